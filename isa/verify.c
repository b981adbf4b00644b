/* verify.c - checks that a program is one the assembler could have produced.
 *
 * Design: the executor decodes operands without re-checking them on the hot
 * path, so anything not built by ws_asm_parse (object files, generators) must
 * pass through here first. The rules are read off the opcode table, so a new
 * opcode needs no new code here. */
#include "isa/verify.h"

#include <ctype.h>
#include <string.h>

/* The assembler's rule for names: [A-Za-z_][A-Za-z0-9_]*, shorter than
 * WS_NAME_MAX, and not readable as a register (R7, RZ, P3, PT). */
static bool is_identifier(const char *name) {
  size_t len = strnlen(name, WS_NAME_MAX);
  if (len == 0 || len == WS_NAME_MAX) return false;
  if (!(isalpha((unsigned char)name[0]) || name[0] == '_')) return false;
  bool digits_after = len > 1;
  for (size_t i = 0; i < len; i++) {
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_')) return false;
    if (i > 0 && !isdigit((unsigned char)name[i])) digits_after = false;
  }
  bool reg_like = (name[0] == 'R' || name[0] == 'P') && digits_after;
  return !reg_like && strcmp(name, "RZ") != 0 && strcmp(name, "PT") != 0;
}

/* A param's name: an identifier, then parts of letters, digits and '_'
 * after single dots (a struct's field: `p.scale`, `param_0.8`). */
static bool is_param_name(const char *name) {
  char head[WS_NAME_MAX];
  size_t len = strnlen(name, WS_NAME_MAX), dot = strcspn(name, ".");
  if (len == WS_NAME_MAX || name[len - (len > 0)] == '.') return false;
  memcpy(head, name, dot);
  head[dot] = '\0';
  if (!is_identifier(head)) return false;
  for (size_t i = dot; i < len; i++)
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || (name[i] == '.' && name[i - 1] != '.')))
      return false;
  return true;
}

/* Register range [reg, reg+nregs) aligned and inside R0..R254, or RZ. */
static bool reg_ok(uint8_t reg, unsigned nregs) {
  if (reg == WS_REG_RZ) return true;
  return reg % nregs == 0 && (unsigned)reg + nregs - 1 < WS_NUM_REGS;
}

static bool mods_ok(const ws_insn *in, uint32_t mods) {
  bool cmp_ok = in->cmp == 0;
  if (mods & WS_MOD_ICMP) cmp_ok = in->cmp >= WS_CMP_EQ && in->cmp <= WS_CMP_GE;
  if (mods & WS_MOD_FCMP) cmp_ok = in->cmp >= WS_CMP_EQ && in->cmp < WS_CMP_COUNT;
  if (mods & WS_MOD_SHFL) cmp_ok = in->cmp < WS_SHFL_COUNT;
  bool type_ok = in->dtype == 0;
  if (mods & WS_MOD_ITYPE) type_ok = in->dtype <= WS_DT_U32;
  if (mods & WS_MOD_ATYPE) type_ok = in->dtype <= WS_DT_F32;
  if (mods & WS_MOD_HFMT) type_ok = in->dtype >= WS_DT_F16_V2 && in->dtype < WS_DT_COUNT;
  bool wide = in->width_bytes == 4 || in->width_bytes == 8 || in->width_bytes == 16;
  bool width_ok = in->width_bytes == 0;
  if (mods & WS_MOD_WIDTH) width_ok = wide;
  if (mods & WS_MOD_SWIDTH) width_ok = wide || in->width_bytes == 1 || in->width_bytes == 2;
  bool hsel_ok = (mods & WS_MOD_HSEL) ? in->hsel <= 1 : in->hsel == 0;
  return cmp_ok && type_ok && width_ok && hsel_ok;
}

static bool reg_opnd_ok(const ws_operand *o, unsigned nregs, uint8_t allowed_flags) {
  return o->kind == WS_OPND_REG && o->imm == 0 && (o->flags & ~allowed_flags) == 0 && reg_ok(o->reg, nregs);
}

static bool imm_opnd_ok(const ws_operand *o) {
  return o->kind == WS_OPND_IMM && o->reg == 0 && o->flags == 0;
}

static bool opnd_ok(const ws_kernel *k, const ws_insn *in, unsigned idx) {
  const ws_operand *o = &in->opnd[idx];
  ws_opnd_sig sig = ws_isa_sig((ws_op)in->op, idx);
  unsigned nregs = ws_isa_opnd_nregs(in, idx);
  if (o->pad != 0) return false;
  switch (sig.kind) {
  case 'd':
  case 'r': return reg_opnd_ok(o, nregs, 0);
  case 'i': return reg_opnd_ok(o, 1, 0) || imm_opnd_ok(o);
  case 'f':
  case 'h': return reg_opnd_ok(o, 1, WS_OPND_NEG | WS_OPND_ABS) || imm_opnd_ok(o);
  case 'p': return o->kind == WS_OPND_PRED && o->reg <= WS_PRED_PT && o->flags == 0 && o->imm == 0;
  case 'q':
    return o->kind == WS_OPND_PRED && o->reg <= WS_PRED_PT && (o->flags & ~WS_OPND_NOT) == 0 && o->imm == 0;
  case 's': return o->kind == WS_OPND_SREG && o->reg < WS_SR_COUNT && o->flags == 0 && o->imm == 0;
  case 'g': return o->kind == WS_OPND_MEM && o->flags == 0 && o->reg != WS_REG_RZ && reg_ok(o->reg, 2);
  case 'm':
  case 'o': return o->kind == WS_OPND_MEM && o->flags == 0 && reg_ok(o->reg, 1);
  case 'a':
    return o->kind == WS_OPND_MEM && o->flags == 0 && o->reg == WS_REG_RZ && o->imm >= 0 &&
           o->imm <= (int32_t)WS_PARAM_MAX_BYTES;
  case 'l':
    return o->kind == WS_OPND_LABEL && o->reg == 0 && o->flags == 0 && o->imm >= 0 &&
           (uint32_t)o->imm <= k->ninsns;
  case 'n': return imm_opnd_ok(o);
  default: return false;
  }
}

/* A local access at a constant offset (no register) must lie inside
 * .local, as the assembler requires; a register's offset is checked by the
 * executor when it runs. */
static ws_status verify_local_access(ws_ctx *ctx, const ws_kernel *k, uint32_t pc) {
  const ws_insn *in = &k->insns[pc];
  unsigned n = ws_isa_nopnds((ws_op)in->op);
  for (unsigned i = 0; i < n; i++) {
    const ws_operand *o = &in->opnd[i];
    if (ws_isa_sig((ws_op)in->op, i).kind != 'o' || o->reg != WS_REG_RZ) continue;
    uint32_t width = in->width_bytes ? in->width_bytes : 4u;
    if (!ws_program_local_fits(k->local_bytes, o->imm, width))
      return ws_ctx_fail(ctx, WS_ERR_INVALID,
                         "kernel '%s' pc %u: %s of %u bytes at local offset %d lies outside .local %u bytes",
                         k->name, pc, ws_isa_opinfo((ws_op)in->op)->mnemonic, width, o->imm, k->local_bytes);
  }
  return WS_OK;
}

static ws_status verify_insn(ws_ctx *ctx, const ws_kernel *k, uint32_t pc) {
  const ws_insn *in = &k->insns[pc];
  const ws_opinfo *info = ws_isa_opinfo((ws_op)in->op);
  if (!info)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' pc %u: invalid opcode %u", k->name, pc, in->op);
  if (in->guard > WS_PRED_PT || in->guard_neg > 1 || !mods_ok(in, info->mods))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' pc %u: invalid guard or modifiers for %s", k->name,
                       pc, info->mnemonic);
  unsigned n = ws_isa_nopnds((ws_op)in->op);
  static const ws_operand zero;
  for (unsigned i = 0; i < WS_MAX_OPERANDS; i++) {
    bool ok = i < n ? opnd_ok(k, in, i) : memcmp(&in->opnd[i], &zero, sizeof zero) == 0;
    if (!ok)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' pc %u: operand %u of %s is invalid", k->name, pc,
                         i + 1, info->mnemonic);
  }
  return verify_local_access(ctx, k, pc);
}

static uint64_t align_up(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

/* Params are laid out as the assembler lays them out, in declaration order
 * at their natural alignment, or their text form would not reproduce them. */
static ws_status verify_params(ws_ctx *ctx, const ws_kernel *k) {
  uint64_t end = 0;
  for (uint32_t i = 0; i < k->nparams; i++) {
    const ws_param *p = &k->params[i];
    uint32_t want = (p->type == WS_PT_U64 || p->type == WS_PT_PTR) ? 8 : 4;
    bool ok = is_param_name(p->name) && p->type < WS_PT_COUNT && p->size_bytes == want &&
              p->offset_bytes == align_up(end, want);
    for (uint32_t j = 0; ok && j < i; j++) ok = strcmp(k->params[j].name, p->name) != 0;
    if (!ok) return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s': param %u is invalid", k->name, i + 1);
    end = (uint64_t)p->offset_bytes + want;
  }
  if (k->param_size_bytes != end || end > WS_PARAM_MAX_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s': param size %u does not match its params", k->name,
                       k->param_size_bytes);
  return WS_OK;
}

/* Shared arrays likewise: in order, each at its alignment, nothing after. */
static ws_status verify_shared(ws_ctx *ctx, const ws_kernel *k) {
  uint64_t end = 0;
  for (uint32_t i = 0; i < k->nshared; i++) {
    const ws_shared_sym *s = &k->shared[i];
    bool ok = is_identifier(s->name) && s->align_bytes != 0 && (s->align_bytes & (s->align_bytes - 1)) == 0 &&
              s->offset_bytes == align_up(end, s->align_bytes);
    for (uint32_t j = 0; ok && j < i; j++) ok = strcmp(k->shared[j].name, s->name) != 0;
    if (!ok)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s': shared symbol %u is invalid", k->name, i + 1);
    end = (uint64_t)s->offset_bytes + s->size_bytes;
  }
  if (k->shared_size_bytes != end || end > WS_VERIFY_MAX_SHARED_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s': shared size %u does not match its arrays", k->name,
                       k->shared_size_bytes);
  return WS_OK;
}

/* Labels are kept sorted by pc, as the assembler defines them, so lookups
 * can binary-search and disassembly re-creates the same table. */
static ws_status verify_labels(ws_ctx *ctx, const ws_kernel *k) {
  for (uint32_t i = 0; i < k->nlabels; i++) {
    bool ok = is_identifier(k->labels[i].name) && k->labels[i].pc <= k->ninsns &&
              (i == 0 || k->labels[i - 1].pc <= k->labels[i].pc);
    for (uint32_t j = 0; ok && j < i; j++) ok = strcmp(k->labels[j].name, k->labels[i].name) != 0;
    if (!ok) return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s': label %u is invalid", k->name, i + 1);
  }
  return WS_OK;
}

/* Every branch target is named, as in assembled code; an unnamed one could
 * not be written back as text. */
static ws_status verify_targets(ws_ctx *ctx, const ws_kernel *k) {
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    if (k->insns[pc].op != WS_OP_BRA) continue;
    uint32_t target = (uint32_t)k->insns[pc].opnd[0].imm;
    bool named = false;
    for (uint32_t i = 0; i < k->nlabels && !named; i++) named = k->labels[i].pc == target;
    if (!named)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' pc %u: branch target %u has no label", k->name, pc,
                         target);
  }
  return WS_OK;
}

ws_status ws_verify_kernel(ws_ctx *ctx, const ws_kernel *k) {
  if (!is_identifier(k->name)) return ws_ctx_fail(ctx, WS_ERR_INVALID, "invalid kernel name");
  if (k->ninsns == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' has no instructions", k->name);
  if (k->ninsns > WS_VERIFY_MAX_INSNS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' has %u instructions, more than %u", k->name,
                       k->ninsns, WS_VERIFY_MAX_INSNS);
  if (k->local_bytes % 4 || k->local_bytes > WS_LOCAL_MAX_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "kernel '%s': .local %u bytes is not a multiple of 4 of at most %u bytes", k->name,
                       k->local_bytes, WS_LOCAL_MAX_BYTES);
  ws_status st = verify_params(ctx, k);
  if (st == WS_OK) st = verify_shared(ctx, k);
  if (st == WS_OK) st = verify_labels(ctx, k);
  for (uint32_t pc = 0; st == WS_OK && pc < k->ninsns; pc++) st = verify_insn(ctx, k, pc);
  return st == WS_OK ? verify_targets(ctx, k) : st;
}

ws_status ws_verify_program(ws_ctx *ctx, const ws_program *prog) {
  if (prog->nkernels == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "program has no kernels");
  for (uint32_t i = 0; i < prog->nkernels; i++) {
    ws_status st = ws_verify_kernel(ctx, &prog->kernels[i]);
    if (st != WS_OK) return st;
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(prog->kernels[j].name, prog->kernels[i].name) == 0)
        return ws_ctx_fail(ctx, WS_ERR_INVALID, "kernel '%s' defined twice", prog->kernels[i].name);
  }
  return WS_OK;
}
