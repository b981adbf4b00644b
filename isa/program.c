/* program.c - lifetime, lookup and comparison of assembled programs.
 *
 * Design: equality is field by field rather than memcmp, so struct padding
 * and the operand's pad byte never make two equal programs differ, and the
 * source-line table is deliberately left out (a disassembled program is the
 * same program on different lines). */
#include "isa/program.h"

#include <stdlib.h>
#include <string.h>

static void kernel_free(ws_kernel *k) {
  free(k->insns);
  free(k->insn_lines);
  free(k->params);
  free(k->shared);
  free(k->labels);
}

void ws_program_destroy(ws_program *prog) {
  if (!prog) return;
  for (uint32_t i = 0; i < prog->nkernels; i++) kernel_free(&prog->kernels[i]);
  free(prog->kernels);
  free(prog);
}

const ws_kernel *ws_program_find_kernel(const ws_program *prog, const char *name) {
  if (!prog || !name) return NULL;
  for (uint32_t i = 0; i < prog->nkernels; i++)
    if (strcmp(prog->kernels[i].name, name) == 0) return &prog->kernels[i];
  return NULL;
}

static bool operand_equal(const ws_operand *a, const ws_operand *b) {
  return a->kind == b->kind && a->reg == b->reg && a->flags == b->flags && a->imm == b->imm;
}

static bool insn_equal(const ws_insn *a, const ws_insn *b) {
  if (a->op != b->op || a->guard != b->guard || a->guard_neg != b->guard_neg || a->cmp != b->cmp ||
      a->dtype != b->dtype || a->width_bytes != b->width_bytes || a->hsel != b->hsel || a->rpc != b->rpc)
    return false;
  for (unsigned i = 0; i < WS_MAX_OPERANDS; i++)
    if (!operand_equal(&a->opnd[i], &b->opnd[i])) return false;
  return true;
}

static bool params_equal(const ws_kernel *a, const ws_kernel *b) {
  for (uint32_t i = 0; i < a->nparams; i++) {
    const ws_param *x = &a->params[i], *y = &b->params[i];
    if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->offset_bytes != y->offset_bytes ||
        x->size_bytes != y->size_bytes)
      return false;
  }
  return true;
}

static bool shared_equal(const ws_kernel *a, const ws_kernel *b) {
  for (uint32_t i = 0; i < a->nshared; i++) {
    const ws_shared_sym *x = &a->shared[i], *y = &b->shared[i];
    if (strcmp(x->name, y->name) != 0 || x->offset_bytes != y->offset_bytes ||
        x->size_bytes != y->size_bytes || x->align_bytes != y->align_bytes)
      return false;
  }
  return true;
}

static bool labels_equal(const ws_kernel *a, const ws_kernel *b) {
  for (uint32_t i = 0; i < a->nlabels; i++)
    if (strcmp(a->labels[i].name, b->labels[i].name) != 0 || a->labels[i].pc != b->labels[i].pc) return false;
  return true;
}

static bool kernel_equal(const ws_kernel *a, const ws_kernel *b) {
  if (strcmp(a->name, b->name) != 0 || a->ninsns != b->ninsns || a->nparams != b->nparams ||
      a->param_size_bytes != b->param_size_bytes || a->nshared != b->nshared ||
      a->shared_size_bytes != b->shared_size_bytes || a->local_bytes != b->local_bytes ||
      a->nlabels != b->nlabels || a->regs_per_thread != b->regs_per_thread)
    return false;
  for (uint32_t i = 0; i < a->ninsns; i++)
    if (!insn_equal(&a->insns[i], &b->insns[i])) return false;
  return params_equal(a, b) && shared_equal(a, b) && labels_equal(a, b);
}

bool ws_program_equal(const ws_program *a, const ws_program *b) {
  if (!a || !b) return a == b;
  if (a->nkernels != b->nkernels) return false;
  for (uint32_t i = 0; i < a->nkernels; i++)
    if (!kernel_equal(&a->kernels[i], &b->kernels[i])) return false;
  return true;
}

const char *ws_program_ptype_name(ws_ptype t) {
  static const char *const names[WS_PT_COUNT] = {"u32", "s32", "f32", "u64", "ptr"};
  return (unsigned)t < WS_PT_COUNT ? names[t] : "?";
}

bool ws_program_local_fits(uint32_t local_bytes, int64_t offset_bytes, uint32_t width_bytes) {
  if (!width_bytes || offset_bytes < 0 || offset_bytes % width_bytes) return false;
  return (uint64_t)offset_bytes + width_bytes <= local_bytes;
}
