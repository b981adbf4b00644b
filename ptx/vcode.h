/* vcode.h - the translator's middle form: warpscope instructions over
 * virtual registers, between lowering (lower.c, one PTX statement into a
 * few of these) and allocation (regalloc.c, onto R0..R254 and P0..P6).
 *
 * Design: an instruction is its mnemonic with modifiers and a short list of
 * operands, each either a virtual register (with the words it covers), a
 * virtual predicate, or text printed as is (immediates, special registers,
 * labels, params); the assembler, which already checks every operand, is
 * the judge of the final text, so the middle form needs no opcode table. */
#ifndef WS_VCODE_H
#define WS_VCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

#define WS_VC_NONE UINT32_MAX
#define WS_VC_MAX_OPS 5
#define WS_VC_TEXT_MAX 96
#define WS_SPILL_MAX_BYTES (64u << 10) /* local memory the allocator may spill to, per thread */

typedef enum ws_vc_kind {
  WS_VC_REG,  /* a virtual register's words [word, word + words) */
  WS_VC_PRED, /* a virtual predicate (neg: !P); WS_VC_NONE is PT */
  WS_VC_TEXT, /* printed as is */
  WS_VC_GMEM, /* [pair+off]: v the 64-bit base */
  WS_VC_SMEM  /* [reg+sym+off] or [sym+off] (v WS_VC_NONE) */
} ws_vc_kind;

typedef struct ws_vc_op {
  uint8_t kind;              /* ws_vc_kind */
  uint8_t def;               /* written by the instruction */
  uint8_t neg;               /* !P for a predicate; -R for a float source */
  uint8_t abs;               /* |R| for a float source */
  uint8_t word;              /* first word used of the register */
  uint8_t words;             /* words used: 1, 2 or 4 */
  uint32_t v;                /* virtual register or predicate */
  int64_t off;               /* GMEM/SMEM offset */
  char text[WS_VC_TEXT_MAX]; /* TEXT; SMEM's symbol ("" none) */
} ws_vc_op;

typedef enum ws_vc_ikind { WS_VC_INSN, WS_VC_LABEL } ws_vc_ikind;

typedef struct ws_vc_insn {
  uint8_t kind; /* ws_vc_ikind */
  uint8_t guard_neg;
  uint8_t nops;
  uint8_t is_branch; /* BRA: label names the target */
  uint8_t is_exit;   /* EXIT */
  uint32_t guard;    /* virtual predicate, WS_VC_NONE when unguarded */
  char mnem[40];
  char label[256]; /* LABEL's name, BRA's target */
  ws_vc_op ops[WS_VC_MAX_OPS];
  uint32_t src; /* index of the PTX statement it came from */
} ws_vc_insn;

typedef struct ws_vc_reg {
  uint8_t words; /* 1, 2 or 4 */
  uint8_t is_pred;
  uint8_t no_spill; /* a spill's own temporary: spilling it again gains nothing */
  uint32_t phys;    /* after allocation: first register or predicate */
} ws_vc_reg;

typedef struct ws_vcode {
  ws_vc_insn *insns;
  size_t ninsns, insns_cap;
  ws_vc_reg *regs; /* virtual registers and predicates, one index space */
  size_t nregs, regs_cap;
  bool oom;
} ws_vcode;

uint32_t ws_vcode_new_reg(ws_vcode *vc, uint8_t words, bool is_pred);
/* A new instruction (zeroed, unguarded), or NULL on out of memory (vc->oom). */
ws_vc_insn *ws_vcode_add(ws_vcode *vc, const char *mnem, uint32_t src);
void ws_vcode_free(ws_vcode *vc);

/* Allocates every virtual register onto R0..max_regs-1 (pairs aligned to 2,
 * quads to 4) and every predicate onto P0..P6 by coloring the interference
 * graph of a liveness pass over the control-flow graph; a copy whose two
 * sides share a register becomes a no-op the emitter leaves out. When the
 * registers do not suffice, values are spilled to local memory one at a
 * time, the longest-lived first (each use reloads it with LDL into a short
 * temporary, each definition stores it with STL) until the rest fit.
 * *regs_used: highest register + 1; *spill_bytes: where spill slots
 * start on entry (after the kernel's own local variables), where they end
 * on return. WS_ERR_LIMIT naming what did not fit (predicates are
 * never spilled). */
ws_status ws_vcode_alloc(ws_ctx *ctx, ws_vcode *vc, uint32_t max_regs, const char *kernel,
                         uint32_t *regs_used, uint32_t *spill_bytes);

#endif
