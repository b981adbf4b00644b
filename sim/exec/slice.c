/* slice.c - the kernel's slice (slice.h): a fixed point over registers,
 * predicates and memory spaces, then each instruction's role. */
#include "sim/exec/slice.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec/warp.h"

typedef struct needs {
  bool reg[WS_NUM_REGS + 1];
  bool pred[8];
  bool space[WS_SPACE_COUNT]; /* a load from it has a needed result */
} needs;

/* The space an LSU instruction reads or writes (a copy: the one it writes). */
static ws_space space_of(ws_op op) {
  switch (op) {
  case WS_OP_LDG:
  case WS_OP_STG: return WS_SPACE_GLOBAL;
  case WS_OP_LDS:
  case WS_OP_STS:
  case WS_OP_LDGSTS: return WS_SPACE_SHARED;
  case WS_OP_LDL:
  case WS_OP_STL: return WS_SPACE_LOCAL;
  case WS_OP_LDC: return WS_SPACE_CONST;
  case WS_OP_LDP: return WS_SPACE_PARAM;
  default: return ws_isa_is_atomic(op) && ws_isa_sig(op, 1).kind == 'g' ? WS_SPACE_GLOBAL : WS_SPACE_SHARED;
  }
}

static bool is_store(ws_op op) { return op == WS_OP_STG || op == WS_OP_STS || op == WS_OP_STL; }

static bool is_load(ws_op op) {
  return op == WS_OP_LDG || op == WS_OP_LDS || op == WS_OP_LDL || op == WS_OP_LDC || op == WS_OP_LDP;
}

/* Computes registers and predicates and nothing else: no memory, no
 * control, no fault that depends on a value. */
static bool is_pure(const ws_insn *in) {
  const ws_opinfo *info = ws_isa_opinfo((ws_op)in->op);
  if (!info) return false;
  switch (info->unit) {
  case WS_UNIT_INT:
  case WS_UNIT_FP32:
  case WS_UNIT_SFU:
  case WS_UNIT_SHFL:
  case WS_UNIT_TENSOR: return true;
  default: return false;
  }
}

/* Calls fn on each register or predicate operand i of `in` covers. */
typedef bool (*visit_fn)(needs *n, bool pred, uint32_t index);

static bool mark(needs *n, bool pred, uint32_t index) {
  bool *slot = pred ? &n->pred[index & 7u] : &n->reg[index];
  bool was = *slot;
  *slot = true;
  return !was;
}

static bool is_needed(needs *n, bool pred, uint32_t index) {
  return pred ? n->pred[index & 7u] : n->reg[index];
}

/* Visits operand i's registers (an address's base; RZ and PT are none). */
static bool visit_operand(const ws_insn *in, unsigned i, needs *n, visit_fn fn) {
  const ws_operand *o = &in->opnd[i];
  ws_opnd_sig sig = ws_isa_sig((ws_op)in->op, i);
  bool any = false;
  if (o->kind == WS_OPND_PRED) return o->reg != WS_PRED_PT && fn(n, true, o->reg);
  unsigned count;
  if (o->kind == WS_OPND_REG)
    count = ws_isa_opnd_nregs(in, i);
  else if (o->kind == WS_OPND_MEM && sig.kind != 'a')
    count = sig.kind == 'g' ? 2 : 1;
  else
    return false;
  if (o->reg == WS_REG_RZ) return false;
  for (unsigned r = 0; r < count && o->reg + r < WS_NUM_REGS; r++) any |= fn(n, false, o->reg + r);
  return any;
}

static bool is_dest(const ws_insn *in, unsigned i) {
  char k = ws_isa_sig((ws_op)in->op, i).kind;
  return k == 'd' || k == 'p';
}

/* Whether any destination of `in` is needed. */
static bool result_needed(const ws_insn *in, needs *n) {
  for (unsigned i = 0, c = ws_isa_nopnds((ws_op)in->op); i < c; i++)
    if (is_dest(in, i) && visit_operand(in, i, n, is_needed)) return true;
  return false;
}

/* Marks the sources of `in` (all of them, or all but a store's data). */
static bool mark_sources(const ws_insn *in, needs *n, bool with_store_data) {
  bool changed = false;
  for (unsigned i = 0, c = ws_isa_nopnds((ws_op)in->op); i < c; i++) {
    if (is_dest(in, i) || (!with_store_data && is_store((ws_op)in->op) && i == 1)) continue;
    changed |= visit_operand(in, i, n, mark);
  }
  return changed;
}

/* What must run whatever the values: every guard (it decides the lanes an
 * instruction counts) and the sources of every instruction that is not
 * pure, a store's data aside. */
static void mark_roots(const ws_kernel *k, needs *n) {
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_insn *in = &k->insns[pc];
    if (in->guard != WS_PRED_PT) mark(n, true, in->guard);
    if (!is_pure(in)) mark_sources(in, n, false);
  }
}

/* One pass of the fixed point; whether anything became needed. */
static bool propagate(const ws_kernel *k, needs *n, uint8_t *needed) {
  bool changed = false;
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_insn *in = &k->insns[pc];
    ws_op op = (ws_op)in->op;
    if (is_pure(in)) {
      if (!needed[pc] && result_needed(in, n)) needed[pc] = 1, changed = true;
      if (needed[pc]) changed |= mark_sources(in, n, true);
    } else if (ws_isa_opinfo(op) && ws_isa_opinfo(op)->unit == WS_UNIT_LSU) {
      ws_space sp = space_of(op);
      if (!n->space[sp] && result_needed(in, n)) n->space[sp] = changed = true;
      if (is_store(op) && n->space[sp]) changed |= mark_sources(in, n, true);
    }
  }
  return changed;
}

/* rpc[pc]: whether some branch reconverges at pc. */
static void mark_rpcs(const ws_kernel *k, uint8_t *rpc) {
  memset(rpc, 0, k->ninsns);
  for (uint32_t i = 0; i < k->ninsns; i++)
    if (k->insns[i].op == WS_OP_BRA && k->insns[i].rpc < k->ninsns) rpc[k->insns[i].rpc] = 1;
}

/* needed: the pure instructions in the slice; scratch afterwards. */
static void assign_roles(const ws_kernel *k, needs *n, uint8_t *needed, ws_slice *s) {
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_insn *in = &k->insns[pc];
    ws_op op = (ws_op)in->op;
    uint8_t role = WS_SLICE_RUN;
    if (is_pure(in) && !needed[pc])
      role = WS_SLICE_SKIP;
    else if ((is_store(op) || op == WS_OP_LDGSTS) && !n->space[space_of(op)])
      role = WS_SLICE_NOWRITE;
    else if (is_load(op) && !result_needed(in, n))
      role = WS_SLICE_NOREAD;
    s->roles[pc] = role;
    s->skipped += role == WS_SLICE_SKIP;
    s->nowrite += role == WS_SLICE_NOWRITE;
    s->noread += role == WS_SLICE_NOREAD;
  }
  /* a run stops before a reconvergence point: the step that reaches one
   * pops the SIMT stack there */
  uint8_t *rpc = needed;
  mark_rpcs(k, rpc);
  for (uint32_t pc = k->ninsns; pc-- > 0;) {
    const ws_insn *in = &k->insns[pc];
    /* HMMA faults on a partial warp, and a run stops short of the kernel's
     * end, where the warp finishes: both are stepped, never passed */
    bool alone = s->roles[pc] == WS_SLICE_SKIP && in->guard == WS_PRED_PT && !in->guard_neg &&
                 in->op != WS_OP_HMMA && pc + 1 < k->ninsns;
    bool next = pc + 1 < k->ninsns && !rpc[pc + 1];
    s->runs[pc] = alone ? 1 + (next ? s->runs[pc + 1] : 0) : 0;
  }
}

static uint64_t keep_every(uint64_t ctas) {
  return ctas >= 2ull * WS_SLICE_COMPUTED_CTAS ? ctas / WS_SLICE_COMPUTED_CTAS : 1;
}

ws_status ws_slice_build(ws_ctx *ctx, const ws_kernel *k, uint64_t ctas, ws_slice *out) {
  memset(out, 0, sizeof *out);
  size_t n_insns = k->ninsns ? k->ninsns : 1;
  needs *n = calloc(1, sizeof *n);
  uint8_t *needed = calloc(n_insns, 1);
  out->roles = calloc(n_insns, 1);
  out->runs = calloc(n_insns, sizeof *out->runs);
  if (!n || !needed || !out->roles || !out->runs) {
    free(n), free(needed), ws_slice_free(out);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted slicing kernel '%s'", k->name);
  }
  mark_roots(k, n);
  while (propagate(k, n, needed)) {
  }
  out->ninsns = k->ninsns;
  assign_roles(k, n, needed, out);
  out->keep_every = keep_every(ctas);
  free(n), free(needed);
  return WS_OK;
}

void ws_slice_free(ws_slice *s) {
  free(s->roles), free(s->runs);
  memset(s, 0, sizeof *s);
}

uint64_t ws_slice_computed_ctas(const ws_slice *s, uint64_t ctas) {
  if (!s || s->keep_every <= 1) return ctas;
  uint64_t n = 0;
  for (uint64_t block = 0; block * s->keep_every < ctas; block++)
    n += block * s->keep_every + block % s->keep_every < ctas; /* the block's computed CTA */
  return n;
}
