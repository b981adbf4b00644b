/* disasm.c - ws_program -> .wsa text that assembles back to an equal
 * program.
 *
 * Design: output is canonical rather than a copy of the source: every
 * modifier group an opcode accepts is printed, including defaults
 * (LDG.32, ISETP.LT.S32), float immediates use %.9g (nine significant
 * digits identify every binary32 value, so strtof gives the same bits back),
 * NaNs use the exact 0fHHHHHHHH form so payloads survive, and labels are
 * re-emitted from the kernel's label table so names are kept. A branch
 * target with no label (a kernel built in code) gets a synthetic "pcN"
 * label so the text still assembles. */
#include "isa/asm.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "base/text.h"
#include "isa/modifiers.h"

#define INSN_TEXT_MAX 512
/* Integers with a smaller magnitude print in decimal, others in hex. */
#define DECIMAL_LIMIT 65536

/* A bounded writer into the caller's buffer; output is silently cut at
 * size - 1 bytes. */
typedef struct sink {
  char *buf;
  size_t size;
  size_t len;
} sink;

static void put(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(sink *s, const char *fmt, ...) {
  if (s->len + 1 >= s->size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
  va_end(ap);
  if (n > 0) s->len = s->len + (size_t)n < s->size ? s->len + (size_t)n : s->size - 1;
}

static void put_reg(sink *s, unsigned r) {
  if (r == WS_REG_RZ)
    put(s, "RZ");
  else
    put(s, "R%u", r);
}

static void put_pred(sink *s, unsigned p) {
  if (p == WS_PRED_PT)
    put(s, "PT");
  else if (p < WS_NUM_PREDS)
    put(s, "P%u", p);
  else
    put(s, "P?");
}

static void put_int(sink *s, int32_t v) {
  if (v > -DECIMAL_LIMIT && v < DECIMAL_LIMIT)
    put(s, "%d", v);
  else
    put(s, "0x%X", (uint32_t)v);
}

static void put_float(sink *s, int32_t imm) {
  uint32_t bits = (uint32_t)imm;
  float f = ws_f32_from_bits(bits);
  if (isnan(f))
    put(s, "0f%08X", bits);
  else if (isinf(f))
    put(s, "%sinf", f < 0 ? "-" : "");
  else
    put(s, "%.9g", (double)f);
}

/* [R4], [R4+0x10], [R4-0x10]. */
static void put_address(sink *s, unsigned base, int32_t off) {
  put(s, "[");
  put_reg(s, base);
  if (off > 0) put(s, "+0x%X", (unsigned)off);
  if (off < 0) put(s, "-0x%llX", -(long long)off);
  put(s, "]");
}

/* [name] or [name+delta]: the param at or below the offset, else the first. */
static void put_param_ref(sink *s, const ws_kernel *k, int32_t off) {
  if (!k || !k->nparams) {
    put(s, "[%d]", off);
    return;
  }
  const ws_param *best = &k->params[0];
  for (uint32_t i = 0; i < k->nparams; i++)
    if ((int64_t)k->params[i].offset_bytes <= off && k->params[i].offset_bytes >= best->offset_bytes)
      best = &k->params[i];
  long long delta = (long long)off - best->offset_bytes;
  put(s, "[%s", best->name);
  if (delta) put(s, "%+lld", delta);
  put(s, "]");
}

/* The first label at `pc`, by binary search (the assembler keeps labels in
 * pc order); NULL when there is none. */
static const ws_label *label_at(const ws_kernel *k, uint32_t pc) {
  if (!k) return NULL;
  uint32_t lo = 0, hi = k->nlabels;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (k->labels[mid].pc < pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k->nlabels && k->labels[lo].pc == pc ? &k->labels[lo] : NULL;
}

static void put_operand(sink *s, const ws_kernel *k, const ws_insn *in, unsigned i) {
  const ws_operand *o = &in->opnd[i];
  char kind = ws_isa_sig((ws_op)in->op, i).kind;
  const ws_label *l;
  switch (o->kind) {
  case WS_OPND_REG:
    put(s, "%s%s", (o->flags & WS_OPND_NEG) ? "-" : "", (o->flags & WS_OPND_ABS) ? "|" : "");
    put_reg(s, o->reg);
    put(s, "%s", (o->flags & WS_OPND_ABS) ? "|" : "");
    break;
  case WS_OPND_PRED:
    put(s, "%s", (o->flags & WS_OPND_NOT) ? "!" : "");
    put_pred(s, o->reg);
    break;
  case WS_OPND_IMM:
    if (kind == 'f')
      put_float(s, o->imm);
    else if (kind == 'h')
      put(s, "0x%08" PRIX32, (uint32_t)o->imm); /* two halves read best in hex */
    else
      put_int(s, o->imm);
    break;
  case WS_OPND_SREG: put(s, "%s", ws_isa_sreg_name((ws_sreg)o->reg)); break;
  case WS_OPND_MEM:
    if (kind == 'a')
      put_param_ref(s, k, o->imm);
    else
      put_address(s, o->reg, o->imm);
    break;
  case WS_OPND_LABEL:
    l = label_at(k, (uint32_t)o->imm);
    if (l)
      put(s, "%s", l->name);
    else
      put(s, "pc%u", (uint32_t)o->imm);
    break;
  default: put(s, "?"); break;
  }
}

static void put_mnemonic(sink *s, const ws_insn *in, const ws_opinfo *info) {
  put(s, "%s", info->mnemonic);
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    if (!(info->mods & g->bit)) continue;
    int idx = ws_modifiers_index(g, ws_modifiers_get(in, g));
    put(s, ".%s", idx >= 0 ? g->names[idx] : "?");
  }
}

void ws_disasm_insn(const ws_kernel *k, const ws_insn *insn, char *buf, size_t size) {
  if (!buf || !size) return;
  sink s = {buf, size, 0};
  buf[0] = '\0';
  const ws_opinfo *info = ws_isa_opinfo((ws_op)insn->op);
  if (!info) {
    put(&s, "<bad opcode %u>", insn->op);
    return;
  }
  if (insn->guard != WS_PRED_PT || insn->guard_neg) {
    put(&s, "@%s", insn->guard_neg ? "!" : "");
    put_pred(&s, insn->guard);
    put(&s, " ");
  }
  put_mnemonic(&s, insn, info);
  unsigned n = ws_isa_nopnds((ws_op)insn->op);
  for (unsigned i = 0; i < n; i++) {
    put(&s, i ? ", " : " ");
    put_operand(&s, k, insn, i);
  }
}

/* Marks branch targets that have no label, so a synthetic one is printed. */
static bool *unlabelled_targets(const ws_kernel *k) {
  bool *need = calloc((size_t)k->ninsns + 1, sizeof *need);
  if (!need) return NULL;
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_operand *o = &k->insns[pc].opnd[0];
    uint32_t t = (uint32_t)o->imm;
    if (k->insns[pc].op == WS_OP_BRA && o->kind == WS_OPND_LABEL && t <= k->ninsns && !label_at(k, t))
      need[t] = true;
  }
  return need;
}

static void kernel_header(ws_text *t, const ws_kernel *k) {
  ws_text_printf(t, ".kernel %s\n", k->name);
  for (uint32_t i = 0; i < k->nparams; i++)
    ws_text_printf(t, ".param .%s %s\n", ws_program_ptype_name((ws_ptype)k->params[i].type),
                   k->params[i].name);
  for (uint32_t i = 0; i < k->nshared; i++)
    ws_text_printf(t, ".shared %s %u %u\n", k->shared[i].name, k->shared[i].size_bytes,
                   k->shared[i].align_bytes);
  if (k->local_bytes) ws_text_printf(t, ".local %u\n", k->local_bytes);
}

static bool kernel_body(ws_text *t, const ws_kernel *k) {
  bool *need = unlabelled_targets(k);
  if (!need) return false;
  char line[INSN_TEXT_MAX];
  uint32_t li = 0;
  for (uint32_t pc = 0; pc <= k->ninsns; pc++) {
    for (; li < k->nlabels && k->labels[li].pc <= pc; li++)
      if (k->labels[li].pc == pc) ws_text_printf(t, "%s:\n", k->labels[li].name);
    if (need[pc]) ws_text_printf(t, "pc%u:\n", pc);
    if (pc == k->ninsns) break;
    ws_disasm_insn(k, &k->insns[pc], line, sizeof line);
    /* unguarded instructions line up with the mnemonic after "@P0 " */
    ws_text_printf(t, "%s%s\n", line[0] == '@' ? "" : "    ", line);
  }
  free(need);
  return true;
}

char *ws_disasm_program(const ws_program *prog) {
  ws_text t;
  ws_text_init(&t);
  for (uint32_t i = 0; prog && i < prog->nkernels; i++) {
    if (i) ws_text_puts(&t, "\n");
    kernel_header(&t, &prog->kernels[i]);
    if (!kernel_body(&t, &prog->kernels[i])) {
      ws_text_free(&t);
      return NULL;
    }
  }
  return ws_text_take(&t);
}
