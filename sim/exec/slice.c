/* slice.c - the kernel's slice (slice.h): which registers and predicates
 * are needed where, by a backward data-flow pass over the control-flow
 * graph (liveness restricted to what the slice reads), repeated until the
 * memory spaces whose loads are needed stop growing; then each
 * instruction's role.
 *
 * Design: per instruction, not per register: a kernel reuses a register
 * for an address early and for an accumulator later (the flash attention
 * kernel does), and a flow-insensitive pass would call the accumulator
 * needed. An unguarded write ends a register's need; a guarded one does
 * not (the lanes it skips keep the old value). The graph is analysis.c's:
 * a branch goes to its target and, guarded, falls through; an unguarded
 * EXIT ends the path. */
#include "sim/exec/slice.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec/warp.h"

/* Registers R0..R254 as bits 0..254, predicates P0..P6 as bits 256..262. */
#define SET_WORDS 5
#define PRED_BIT(p) (256u + (p))

typedef struct regset {
  uint64_t w[SET_WORDS];
} regset;

static void set_add(regset *s, uint32_t bit) { s->w[bit / 64] |= 1ull << (bit % 64); }

static bool set_meets(const regset *a, const regset *b) {
  uint64_t any = 0;
  for (int i = 0; i < SET_WORDS; i++) any |= a->w[i] & b->w[i];
  return any != 0;
}

static void set_union(regset *a, const regset *b) {
  for (int i = 0; i < SET_WORDS; i++) a->w[i] |= b->w[i];
}

static void set_minus(regset *a, const regset *b) {
  for (int i = 0; i < SET_WORDS; i++) a->w[i] &= ~b->w[i];
}

/* What one instruction reads and writes, split as the slice needs it. */
typedef struct insn_sets {
  regset defs;     /* registers and predicates written */
  regset addr;     /* read whatever the values: guard, addresses, every source of an impure instruction */
  regset data;     /* read for the value only: a pure instruction's sources, a store's data */
  bool pure, kill; /* kill: an unguarded write, ending the need of what it writes */
  ws_space space;  /* an LSU instruction's (a copy: the space it writes) */
} insn_sets;

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
  default: return ws_isa_is_global_atomic(op) ? WS_SPACE_GLOBAL : WS_SPACE_SHARED;
  }
}

static bool is_store(ws_op op) { return op == WS_OP_STG || op == WS_OP_STS || op == WS_OP_STL; }

static bool is_load(ws_op op) {
  return op == WS_OP_LDG || op == WS_OP_LDS || op == WS_OP_LDL || op == WS_OP_LDC || op == WS_OP_LDP;
}

/* Computes registers and predicates and nothing else: no memory, no
 * control, no fault that depends on a value. */
static bool is_pure(ws_op op) {
  const ws_opinfo *info = ws_isa_opinfo(op);
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

/* Adds operand i's registers (an address's base; RZ and PT are none). */
static void add_operand(const ws_insn *in, unsigned i, regset *set) {
  const ws_operand *o = &in->opnd[i];
  if (o->kind == WS_OPND_PRED) {
    if (o->reg < WS_PRED_PT) set_add(set, PRED_BIT(o->reg));
    return;
  }
  unsigned count = ws_isa_opnd_reg_span(in, i);
  for (unsigned r = 0; r < count && o->reg + r < WS_NUM_REGS; r++) set_add(set, o->reg + r);
}

static insn_sets sets_of(const ws_insn *in) {
  insn_sets x;
  memset(&x, 0, sizeof x);
  ws_op op = (ws_op)in->op;
  x.pure = is_pure(op);
  x.kill = in->guard == WS_PRED_PT && !in->guard_neg;
  x.space = space_of(op);
  if (in->guard < WS_PRED_PT) set_add(&x.addr, PRED_BIT(in->guard));
  for (unsigned i = 0, c = ws_isa_nopnds(op); i < c; i++) {
    char kind = ws_isa_sig(op, i).kind;
    if (kind == 'd' || kind == 'p')
      add_operand(in, i, &x.defs);
    else
      add_operand(in, i, x.pure || (is_store(op) && i == 1) ? &x.data : &x.addr);
  }
  return x;
}

/* The state of the analysis: per instruction its sets, and what is needed
 * on entry to it; the spaces whose loads are needed. */
typedef struct flow {
  const ws_kernel *k;
  insn_sets *sets;
  regset *in;
  bool space[WS_SPACE_COUNT];
} flow;

/* What is needed on leaving pc: the union over its successors. */
static regset needed_after(const flow *f, uint32_t pc) {
  const ws_insn *in = &f->k->insns[pc];
  regset out;
  memset(&out, 0, sizeof out);
  bool always = in->guard == WS_PRED_PT && !in->guard_neg;
  bool falls = !(always && (in->op == WS_OP_EXIT || in->op == WS_OP_BRA)) && pc + 1 < f->k->ninsns;
  if (falls) set_union(&out, &f->in[pc + 1]);
  if (in->op == WS_OP_BRA && (uint32_t)in->opnd[0].imm < f->k->ninsns)
    set_union(&out, &f->in[in->opnd[0].imm]);
  return out;
}

/* Whether the instruction at pc computes something needed after it. */
static bool result_needed(const flow *f, uint32_t pc) {
  regset out = needed_after(f, pc);
  return set_meets(&f->sets[pc].defs, &out);
}

/* One backward pass; whether any entry set grew. */
static bool flow_pass(flow *f) {
  bool changed = false;
  for (uint32_t pc = f->k->ninsns; pc-- > 0;) {
    const insn_sets *x = &f->sets[pc];
    regset need = needed_after(f, pc);
    bool used = x->pure && set_meets(&x->defs, &need);
    if (x->kill) set_minus(&need, &x->defs);
    set_union(&need, &x->addr);
    if (used || (is_store((ws_op)f->k->insns[pc].op) && f->space[x->space])) set_union(&need, &x->data);
    if (memcmp(&need, &f->in[pc], sizeof need) != 0) {
      f->in[pc] = need;
      changed = true;
    }
  }
  return changed;
}

/* Marks the spaces a needed load reads; whether any was new. */
static bool mark_spaces(flow *f) {
  bool grew = false;
  for (uint32_t pc = 0; pc < f->k->ninsns; pc++) {
    ws_op op = (ws_op)f->k->insns[pc].op;
    const insn_sets *x = &f->sets[pc];
    /* an async copy whose shared bytes are needed reads global memory for them */
    if (op == WS_OP_LDGSTS && f->space[WS_SPACE_SHARED] && !f->space[WS_SPACE_GLOBAL])
      f->space[WS_SPACE_GLOBAL] = grew = true;
    bool reads = is_load(op) || ws_isa_is_atomic(op);
    if (!reads || f->space[x->space] || !result_needed(f, pc)) continue;
    f->space[x->space] = grew = true;
  }
  return grew;
}

/* rpc[pc]: whether some branch reconverges at pc. */
static void mark_rpcs(const ws_kernel *k, uint8_t *rpc) {
  memset(rpc, 0, k->ninsns);
  for (uint32_t i = 0; i < k->ninsns; i++)
    if (k->insns[i].op == WS_OP_BRA && k->insns[i].rpc < k->ninsns) rpc[k->insns[i].rpc] = 1;
}

static void assign_roles(const flow *f, uint8_t *rpc, ws_slice *s) {
  const ws_kernel *k = f->k;
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const insn_sets *x = &f->sets[pc];
    ws_op op = (ws_op)k->insns[pc].op;
    uint8_t role = WS_SLICE_RUN;
    bool needed = result_needed(f, pc);
    if (x->pure && !needed)
      role = WS_SLICE_SKIP;
    else if ((is_store(op) || op == WS_OP_LDGSTS) && !f->space[x->space])
      role = WS_SLICE_NOWRITE;
    else if (is_load(op) && !needed)
      role = WS_SLICE_NOREAD;
    s->roles[pc] = role;
    s->global_writes |=
        role == WS_SLICE_RUN && x->space == WS_SPACE_GLOBAL && (op == WS_OP_STG || ws_isa_is_atomic(op));
    s->skipped += role == WS_SLICE_SKIP;
    s->nowrite += role == WS_SLICE_NOWRITE;
    s->noread += role == WS_SLICE_NOREAD;
  }
  /* a run stops before a reconvergence point: the step that reaches one
   * pops the SIMT stack there */
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
  flow f = {.k = k, .sets = calloc(n_insns, sizeof *f.sets), .in = calloc(n_insns, sizeof *f.in)};
  uint8_t *rpc = calloc(n_insns, 1);
  out->roles = calloc(n_insns, 1);
  out->runs = calloc(n_insns, sizeof *out->runs);
  if (!f.sets || !f.in || !rpc || !out->roles || !out->runs) {
    free(f.sets), free(f.in), free(rpc), ws_slice_free(out);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted slicing kernel '%s'", k->name);
  }
  for (uint32_t pc = 0; pc < k->ninsns; pc++) f.sets[pc] = sets_of(&k->insns[pc]);
  do {
    while (flow_pass(&f)) {
    }
  } while (mark_spaces(&f));
  out->ninsns = k->ninsns;
  assign_roles(&f, rpc, out);
  out->keep_every = keep_every(ctas);
  free(f.sets), free(f.in), free(rpc);
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
