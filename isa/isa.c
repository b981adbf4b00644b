/* isa.c - the opcode table and the names of modifiers and special registers.
 *
 * Design: operand signatures stay as short strings in opcodes.def (readable in
 * the table and in docs) and are parsed on demand; only the assembler,
 * disassembler and analyses ask, never the executor's hot path. */
#include "isa/isa.h"

#include <stddef.h>
#include <string.h>

static const ws_opinfo op_table[WS_OP_COUNT] = {
#define WS_OP(id, mn, unit, sig, mods, sem) {mn, WS_UNIT_##unit, sig, mods, sem},
#include "isa/opcodes.def"
#undef WS_OP
};

const ws_opinfo *ws_isa_opinfo(ws_op op) { return (unsigned)op < WS_OP_COUNT ? &op_table[op] : NULL; }

unsigned ws_isa_nopnds(ws_op op) {
  const ws_opinfo *info = ws_isa_opinfo(op);
  if (!info || !info->signature[0]) return 0;
  unsigned n = 1;
  for (const char *c = info->signature; *c; c++) n += (*c == ',');
  return n;
}

ws_opnd_sig ws_isa_sig(ws_op op, unsigned idx) {
  ws_opnd_sig sig = {0, 0};
  const ws_opinfo *info = ws_isa_opinfo(op);
  if (!info) return sig;
  const char *c = info->signature;
  for (unsigned i = 0; i < idx && *c; c++)
    if (*c == ',') i++;
  if (!*c) return sig;
  sig.kind = c[0];
  sig.nregs = 1;
  if (c[1] == 'W')
    sig.nregs = 0;
  else if (c[1] == '2' || c[1] == '4')
    sig.nregs = (uint8_t)(c[1] - '0');
  return sig;
}

unsigned ws_isa_opnd_nregs(const ws_insn *insn, unsigned idx) {
  ws_opnd_sig sig = ws_isa_sig((ws_op)insn->op, idx);
  if (sig.nregs) return sig.nregs;
  return insn->width_bytes > 4 ? insn->width_bytes / 4u : 1u;
}

unsigned ws_isa_opnd_reg_span(const ws_insn *insn, unsigned idx) {
  const ws_operand *o = &insn->opnd[idx];
  if (o->kind == WS_OPND_REG) return ws_isa_opnd_nregs(insn, idx);
  char kind = ws_isa_sig((ws_op)insn->op, idx).kind;
  if (o->kind != WS_OPND_MEM || kind == 'a') return 0;
  return kind == 'g' ? 2 : 1;
}

bool ws_isa_is_atomic(ws_op op) {
  const ws_opinfo *info = ws_isa_opinfo(op);
  return info && info->unit == WS_UNIT_LSU && strncmp(info->mnemonic, "ATOM", 4) == 0;
}

bool ws_isa_is_global_atomic(ws_op op) { return ws_isa_is_atomic(op) && ws_isa_sig(op, 1).kind == 'g'; }

const char *ws_isa_unit_name(ws_unit unit) {
  static const char *const names[WS_UNIT_COUNT] = {"INT", "FP32", "SFU", "SHFL", "LSU", "TENSOR", "CTRL"};
  return (unsigned)unit < WS_UNIT_COUNT ? names[unit] : "?";
}

const char *ws_isa_cmp_name(ws_cmp cmp) {
  static const char *const names[WS_CMP_COUNT] = {NULL,  "EQ",  "NE",  "LT",  "LE",  "GT",  "GE", "EQU",
                                                  "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"};
  return (unsigned)cmp < WS_CMP_COUNT ? names[cmp] : NULL;
}

const char *ws_isa_dtype_name(ws_dtype t) {
  static const char *const names[WS_DT_COUNT] = {"S32", "U32", "F32", "F16_V2", "BF16_V2", "F16", "BF16"};
  return (unsigned)t < WS_DT_COUNT ? names[t] : "?";
}

const char *ws_isa_shfl_name(ws_shfl_mode m) {
  static const char *const names[WS_SHFL_COUNT] = {"IDX", "UP", "DOWN", "BFLY"};
  return (unsigned)m < WS_SHFL_COUNT ? names[m] : "?";
}

const char *ws_isa_sreg_name(ws_sreg sr) {
  static const char *const names[WS_SR_COUNT] = {
      "SR_TID.X",   "SR_TID.Y",   "SR_TID.Z",   "SR_NTID.X",   "SR_NTID.Y",   "SR_NTID.Z",
      "SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_NCTAID.X", "SR_NCTAID.Y", "SR_NCTAID.Z",
      "SR_LANEID",  "SR_WARPID",  "SR_SMID",    "SR_CLOCK",    "SR_CLOCKHI"};
  return (unsigned)sr < WS_SR_COUNT ? names[sr] : "?";
}
