/* isa.h - the warpscope ISA: opcodes, modifiers, operands, instructions.
 *
 * Design: an instruction is a small fixed-size struct (no pointers), so a
 * program is a flat array that can be compared with memcmp-like equality,
 * copied freely and decoded by the executor with one switch. Everything about
 * an opcode (mnemonic, unit, operand signature, semantics) lives in
 * opcodes.def; this header only turns that table into C. */
#ifndef WS_ISA_H
#define WS_ISA_H

#include <stdbool.h>
#include <stdint.h>

#define WS_WARP_LANES 32
#define WS_NUM_REGS 255 /* R0..R254 */
#define WS_REG_RZ 255   /* reads as 0, writes are dropped */
#define WS_NUM_PREDS 7  /* P0..P6 */
#define WS_PRED_PT 7    /* always true; writes are dropped */
#define WS_MAX_OPERANDS 4
#define WS_NAME_MAX 64

/* Modifier groups an opcode may accept (bit set in the table's MODS column). */
enum {
  WS_MOD_ICMP = 1u << 0,   /* .EQ .NE .LT .LE .GT .GE */
  WS_MOD_FCMP = 1u << 1,   /* the above plus .EQU .NEU .LTU .LEU .GTU .GEU .NUM .NAN */
  WS_MOD_ITYPE = 1u << 2,  /* .S32 (default) .U32 */
  WS_MOD_ATYPE = 1u << 3,  /* .S32 (default) .U32 .F32 */
  WS_MOD_WIDTH = 1u << 4,  /* .32 (default) .64 .128 */
  WS_MOD_HSEL = 1u << 5,   /* .H0 (default) .H1 */
  WS_MOD_SHFL = 1u << 6,   /* .IDX .UP .DOWN .BFLY (required) */
  WS_MOD_SWIDTH = 1u << 7, /* stores: .8 .16 .32 (default) .64 .128 */
  WS_MOD_HFMT = 1u << 8    /* .F16_V2 (default) .BF16_V2 .F16 .BF16 */
};

typedef enum ws_op {
#define WS_OP(id, mn, unit, sig, mods, sem) WS_OP_##id,
#include "isa/opcodes.def"
#undef WS_OP
  WS_OP_COUNT
} ws_op;

/* Which functional unit an opcode occupies; the timing model keys its
 * latency/throughput tables on this. */
typedef enum ws_unit {
  WS_UNIT_INT,
  WS_UNIT_FP32,
  WS_UNIT_SFU,
  WS_UNIT_SHFL,
  WS_UNIT_LSU,
  WS_UNIT_TENSOR,
  WS_UNIT_CTRL,
  WS_UNIT_COUNT
} ws_unit;

typedef enum ws_cmp {
  WS_CMP_NONE,
  WS_CMP_EQ,
  WS_CMP_NE,
  WS_CMP_LT,
  WS_CMP_LE,
  WS_CMP_GT,
  WS_CMP_GE,
  WS_CMP_EQU,
  WS_CMP_NEU,
  WS_CMP_LTU,
  WS_CMP_LEU,
  WS_CMP_GTU,
  WS_CMP_GEU,
  WS_CMP_NUM,
  WS_CMP_NAN,
  WS_CMP_COUNT
} ws_cmp;

/* The half-precision formats share the type field: _V2 computes both 16-bit
 * halves of a register, the scalar forms the low half only. */
typedef enum ws_dtype {
  WS_DT_S32,
  WS_DT_U32,
  WS_DT_F32,
  WS_DT_F16_V2,
  WS_DT_BF16_V2,
  WS_DT_F16,
  WS_DT_BF16,
  WS_DT_COUNT
} ws_dtype;

typedef enum ws_shfl_mode { WS_SHFL_IDX, WS_SHFL_UP, WS_SHFL_DOWN, WS_SHFL_BFLY, WS_SHFL_COUNT } ws_shfl_mode;

typedef enum ws_sreg {
  WS_SR_TID_X,
  WS_SR_TID_Y,
  WS_SR_TID_Z,
  WS_SR_NTID_X,
  WS_SR_NTID_Y,
  WS_SR_NTID_Z,
  WS_SR_CTAID_X,
  WS_SR_CTAID_Y,
  WS_SR_CTAID_Z,
  WS_SR_NCTAID_X,
  WS_SR_NCTAID_Y,
  WS_SR_NCTAID_Z,
  WS_SR_LANEID,
  WS_SR_WARPID,
  WS_SR_SMID,
  WS_SR_CLOCK,
  WS_SR_CLOCKHI, /* the cycle counter's high 32 bits */
  WS_SR_COUNT
} ws_sreg;

typedef enum ws_opnd_kind {
  WS_OPND_NONE,
  WS_OPND_REG,   /* reg = first register; count from the signature */
  WS_OPND_PRED,  /* reg = predicate index 0..7 (7 = PT) */
  WS_OPND_IMM,   /* imm = value (floats stored as their bit pattern) */
  WS_OPND_SREG,  /* reg = ws_sreg */
  WS_OPND_MEM,   /* reg = base register (RZ for absolute), imm = byte offset */
  WS_OPND_LABEL, /* imm = target instruction index */
  WS_OPND_KIND_COUNT
} ws_opnd_kind;

enum {
  WS_OPND_NEG = 1u << 0, /* -R (float sources) */
  WS_OPND_ABS = 1u << 1, /* |R| (float sources) */
  WS_OPND_NOT = 1u << 2  /* !P (predicate sources) */
};

typedef struct ws_operand {
  uint8_t kind; /* ws_opnd_kind */
  uint8_t reg;
  uint8_t flags; /* WS_OPND_* */
  uint8_t pad;
  int32_t imm;
} ws_operand;

typedef struct ws_insn {
  uint16_t op;         /* ws_op */
  uint8_t guard;       /* predicate index; WS_PRED_PT when unguarded */
  uint8_t guard_neg;   /* 1 for @!Pn */
  uint8_t cmp;         /* ws_cmp, or the ws_shfl_mode for SHFL */
  uint8_t dtype;       /* ws_dtype */
  uint8_t width_bytes; /* 4, 8 or 16 for memory opcodes (1 or 2 for stores too), else 0 */
  uint8_t hsel;        /* 0 = .H0, 1 = .H1 */
  ws_operand opnd[WS_MAX_OPERANDS];
  uint32_t rpc; /* BRA only: reconvergence instruction index (analysis) */
} ws_insn;

/* One row of the opcode table, with its signature pre-parsed. */
typedef struct ws_opnd_sig {
  char kind;     /* one of "dprifhqsgmalno" */
  uint8_t nregs; /* 1, 2, 4; 0 = by width modifier ('W') */
} ws_opnd_sig;

typedef struct ws_opinfo {
  const char *mnemonic;
  ws_unit unit;
  const char *signature;
  uint32_t mods;
  const char *semantics;
} ws_opinfo;

/* NULL for an out-of-range op. */
const ws_opinfo *ws_isa_opinfo(ws_op op);
/* Number of operands in op's signature, and the idx-th parsed item. */
unsigned ws_isa_nopnds(ws_op op);
ws_opnd_sig ws_isa_sig(ws_op op, unsigned idx);
const char *ws_isa_unit_name(ws_unit unit);
const char *ws_isa_cmp_name(ws_cmp cmp);      /* "EQ" ... ; NULL for NONE */
const char *ws_isa_dtype_name(ws_dtype t);    /* "S32", "U32", "F32", "F16_V2", ... */
const char *ws_isa_shfl_name(ws_shfl_mode m); /* "IDX", ... */
const char *ws_isa_sreg_name(ws_sreg sr);     /* "SR_TID.X", ... */
/* Registers an operand of `insn` covers (1, 2 or 4), from signature/width;
 * a byte or halfword store's value is the low bits of one register. */
unsigned ws_isa_opnd_nregs(const ws_insn *insn, unsigned idx);
/* General registers operand idx reads or writes, from its first (reg):
 * a register operand's ws_isa_opnd_nregs, a memory operand's base (a
 * global address is a pair, a shared, constant or local one a single
 * register, a parameter none), 0 for every other kind. RZ is not
 * excluded: the caller decides what it means. */
unsigned ws_isa_opnd_reg_span(const ws_insn *insn, unsigned idx);
/* True for the atomics (ATOMG.*, ATOMS.*). Their address is operand 1:
 * signature kind 'g' for global memory, 'm' for shared. One rule read off
 * the table, so the timing, tracing and checking code that must treat every
 * atomic alike does not keep its own list. */
bool ws_isa_is_atomic(ws_op op);
/* True for the atomics on global memory (ATOMG.*): the ones CTAs on
 * different SMs can share a word through. */
bool ws_isa_is_global_atomic(ws_op op);

#endif
