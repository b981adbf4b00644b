/* vcode.c - the middle form's storage and its register allocation: a
 * backward liveness pass over the instructions' control-flow graph, an
 * interference graph from it (Chaitin: a result interferes with what is
 * live after it, a copy's source excepted), and greedy coloring in program
 * order that gives a copy its partner's register where it can, keeping
 * pairs and quads aligned as the ISA requires. */
#include "ptx/vcode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

static bool grow(void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return true;
  size_t c = *cap ? *cap * 2 : 64;
  void *p = realloc(*arr, c * elem);
  if (!p) return false;
  *arr = p;
  *cap = c;
  return true;
}

uint32_t ws_vcode_new_reg(ws_vcode *vc, uint8_t words, bool is_pred) {
  if (!grow((void **)&vc->regs, &vc->regs_cap, vc->nregs, sizeof *vc->regs)) {
    vc->oom = true;
    return 0;
  }
  vc->regs[vc->nregs] = (ws_vc_reg){.words = words, .is_pred = is_pred, .phys = WS_VC_NONE};
  return (uint32_t)vc->nregs++;
}

ws_vc_insn *ws_vcode_add(ws_vcode *vc, const char *mnem, uint32_t src) {
  if (!grow((void **)&vc->insns, &vc->insns_cap, vc->ninsns, sizeof *vc->insns)) {
    vc->oom = true;
    return NULL;
  }
  ws_vc_insn *in = &vc->insns[vc->ninsns++];
  memset(in, 0, sizeof *in);
  in->kind = WS_VC_INSN;
  in->guard = WS_VC_NONE;
  in->src = src;
  snprintf(in->mnem, sizeof in->mnem, "%s", mnem);
  return in;
}

void ws_vcode_free(ws_vcode *vc) {
  free(vc->insns);
  free(vc->regs);
  memset(vc, 0, sizeof *vc);
}

/* ---- liveness ------------------------------------------------------------------ */

typedef struct live {
  size_t n, nv, words; /* instructions, virtual registers, 64-bit words per set */
  uint64_t *in, *out;  /* n sets each */
  uint64_t *use, *def;
  size_t *succ; /* two per instruction; SIZE_MAX: none */
} live;

static uint64_t *set_of(uint64_t *base, const live *l, size_t i) { return base + i * l->words; }
static void set_bit(uint64_t *s, uint32_t v) { s[v / 64] |= (uint64_t)1 << (v % 64); }

/* Uses and definitions of instruction i. A guarded definition keeps the
 * old value in the lanes whose guard fails, so it reads the register too. */
static void uses_defs(live *l, const ws_vcode *vc, const ws_vc_insn *in, size_t i) {
  uint64_t *u = set_of(l->use, l, i), *d = set_of(l->def, l, i);
  if (in->kind != WS_VC_INSN) return;
  if (in->guard != WS_VC_NONE) set_bit(u, in->guard);
  for (unsigned k = 0; k < in->nops; k++) {
    const ws_vc_op *o = &in->ops[k];
    bool reg = o->kind == WS_VC_REG || o->kind == WS_VC_PRED || o->kind == WS_VC_GMEM ||
               (o->kind == WS_VC_SMEM && o->v != WS_VC_NONE);
    if (!reg || o->v == WS_VC_NONE) continue;
    if (o->def) {
      set_bit(d, o->v);
      bool partial = o->kind == WS_VC_REG && o->words < vc->regs[o->v].words;
      if (in->guard != WS_VC_NONE || partial) set_bit(u, o->v); /* the other lanes' or words' values stay */
    } else {
      set_bit(u, o->v);
    }
  }
}

static size_t find_label(const ws_vcode *vc, const char *name) {
  for (size_t i = 0; i < vc->ninsns; i++)
    if (vc->insns[i].kind == WS_VC_LABEL && strcmp(vc->insns[i].label, name) == 0) return i;
  return SIZE_MAX;
}

static void successors(live *l, const ws_vcode *vc) {
  for (size_t i = 0; i < l->n; i++) {
    const ws_vc_insn *in = &vc->insns[i];
    size_t *s = &l->succ[2 * i];
    s[0] = s[1] = SIZE_MAX;
    bool unguarded = in->guard == WS_VC_NONE;
    if (in->kind == WS_VC_INSN && in->is_branch) s[0] = find_label(vc, in->label);
    bool falls = !(in->kind == WS_VC_INSN && (in->is_branch || in->is_exit) && unguarded);
    if (falls && i + 1 < l->n) s[1] = i + 1;
  }
}

static void solve(live *l) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = l->n; i-- > 0;) {
      uint64_t *out = set_of(l->out, l, i), *in = set_of(l->in, l, i);
      for (int k = 0; k < 2; k++) {
        size_t s = l->succ[2 * i + k];
        if (s == SIZE_MAX) continue;
        const uint64_t *sin = set_of(l->in, l, s);
        for (size_t w = 0; w < l->words; w++) out[w] |= sin[w];
      }
      const uint64_t *u = set_of(l->use, l, i), *d = set_of(l->def, l, i);
      for (size_t w = 0; w < l->words; w++) {
        uint64_t v = u[w] | (out[w] & ~d[w]);
        if (v != in[w]) in[w] = v, changed = true;
      }
    }
  }
}

/* ---- coloring ---------------------------------------------------------------------- */

/* The interference graph as one bit row per virtual register: a value
 * written at an instruction interferes with every value live after it
 * (Chaitin), except the source of a copy, so that copies can share a
 * register; the results of one instruction interfere with each other. */
typedef struct graph {
  size_t nv, words;
  uint64_t *adj;
  uint32_t *partner; /* a copy's other side, WS_VC_NONE: none */
  size_t *first;     /* first position where live or written, SIZE_MAX: never */
} graph;

static void link2(graph *g, uint32_t a, uint32_t b) {
  if (a == b) return;
  set_bit(g->adj + (size_t)a * g->words, b);
  set_bit(g->adj + (size_t)b * g->words, a);
}

/* A whole-register copy MOV d, s of one word: its source, else WS_VC_NONE. */
static uint32_t copy_source(const ws_vcode *vc, const ws_vc_insn *in) {
  if (in->kind != WS_VC_INSN || strcmp(in->mnem, "MOV") != 0 || in->nops != 2 || in->guard != WS_VC_NONE)
    return WS_VC_NONE;
  const ws_vc_op *d = &in->ops[0], *s = &in->ops[1];
  if (d->kind != WS_VC_REG || s->kind != WS_VC_REG || d->word || s->word) return WS_VC_NONE;
  if (vc->regs[d->v].words != 1 || vc->regs[s->v].words != 1) return WS_VC_NONE;
  return s->v;
}

static void build_graph(graph *g, const live *l, const ws_vcode *vc) {
  for (size_t i = 0; i < l->n; i++) {
    const ws_vc_insn *in = &vc->insns[i];
    const uint64_t *out = set_of(l->out, l, i), *d = set_of(l->def, l, i), *u = set_of(l->in, l, i);
    uint32_t src = copy_source(vc, in);
    for (size_t w = 0; w < l->words; w++) {
      uint64_t seen = out[w] | u[w] | d[w];
      while (seen) {
        uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(seen));
        seen &= seen - 1;
        if (g->first[v] == SIZE_MAX) g->first[v] = i;
      }
      uint64_t defs = d[w];
      while (defs) {
        uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(defs));
        defs &= defs - 1;
        for (size_t x = 0; x < l->words; x++) {
          uint64_t o = out[x] | d[x];
          while (o) {
            uint32_t y = (uint32_t)(x * 64 + (size_t)__builtin_ctzll(o));
            o &= o - 1;
            if (y != src) link2(g, v, y);
          }
        }
        if (src != WS_VC_NONE) g->partner[v] = src, g->partner[src] = v;
      }
    }
  }
}

typedef struct order_key {
  uint32_t v;
  size_t first;
} order_key;

static int by_first(const void *a, const void *b) {
  const order_key *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return x->v < y->v ? -1 : (x->v > y->v);
}

/* Whether registers [b, b + w) are free of every colored neighbour of v. */
static bool fits(const graph *g, const ws_vcode *vc, uint32_t v, uint32_t b, uint32_t w) {
  const uint64_t *row = g->adj + (size_t)v * g->words;
  for (size_t x = 0; x < g->words; x++) {
    uint64_t bits = row[x];
    while (bits) {
      uint32_t y = (uint32_t)(x * 64 + (size_t)__builtin_ctzll(bits));
      bits &= bits - 1;
      const ws_vc_reg *r = &vc->regs[y];
      if (r->phys == WS_VC_NONE || r->is_pred != vc->regs[v].is_pred) continue;
      uint32_t rw = r->is_pred ? 1 : r->words;
      if (r->phys < b + w && b < r->phys + rw) return false;
    }
  }
  return true;
}

/* The copy partner's register when it is free, else the lowest aligned one. */
static uint32_t pick(const graph *g, const ws_vcode *vc, uint32_t v, uint32_t size) {
  const ws_vc_reg *r = &vc->regs[v];
  uint32_t w = r->is_pred ? 1 : r->words;
  uint32_t p = g->partner[v];
  if (p != WS_VC_NONE && vc->regs[p].phys != WS_VC_NONE && vc->regs[p].is_pred == r->is_pred &&
      vc->regs[p].phys % w == 0 && vc->regs[p].phys + w <= size && fits(g, vc, v, vc->regs[p].phys, w))
    return vc->regs[p].phys;
  for (uint32_t b = 0; b + w <= size; b += w)
    if (fits(g, vc, v, b, w)) return b;
  return UINT32_MAX;
}

static ws_status color(ws_ctx *ctx, ws_vcode *vc, const graph *g, uint32_t max_regs, const char *kernel,
                       uint32_t *regs_used) {
  order_key *ord = malloc((vc->nregs ? vc->nregs : 1) * sizeof *ord);
  if (!ord) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory allocating registers", kernel);
  for (size_t v = 0; v < vc->nregs; v++) ord[v] = (order_key){(uint32_t)v, g->first[v]};
  qsort(ord, vc->nregs, sizeof *ord, by_first);
  ws_status st = WS_OK;
  *regs_used = 0;
  for (size_t k = 0; k < vc->nregs && st == WS_OK; k++) {
    uint32_t v = ord[k].v;
    ws_vc_reg *r = &vc->regs[v];
    if (ord[k].first == SIZE_MAX) continue; /* never used */
    uint32_t size = r->is_pred ? WS_NUM_PREDS : max_regs;
    r->phys = pick(g, vc, v, size);
    if (r->phys != UINT32_MAX) {
      if (!r->is_pred && r->phys + r->words > *regs_used) *regs_used = r->phys + r->words;
      continue;
    }
    r->phys = WS_VC_NONE;
    if (r->is_pred)
      st = ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "kernel '%s': more than %u predicates are live at once; predicates kept in "
                       "registers are not supported yet",
                       kernel, size);
    else
      st = ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "kernel '%s': more than %u registers are live at once (spilling to local memory "
                       "is not supported yet)",
                       kernel, size);
  }
  free(ord);
  return st;
}

ws_status ws_vcode_alloc(ws_ctx *ctx, ws_vcode *vc, uint32_t max_regs, const char *kernel,
                         uint32_t *regs_used) {
  live l = {.n = vc->ninsns, .nv = vc->nregs, .words = (vc->nregs + 63) / 64};
  size_t cells = l.n * (l.words ? l.words : 1), nv = vc->nregs ? vc->nregs : 1;
  l.in = calloc(cells, sizeof *l.in), l.out = calloc(cells, sizeof *l.out);
  l.use = calloc(cells, sizeof *l.use), l.def = calloc(cells, sizeof *l.def);
  l.succ = calloc(2 * (l.n ? l.n : 1), sizeof *l.succ);
  graph g = {.nv = vc->nregs, .words = l.words};
  g.adj = calloc(nv * (l.words ? l.words : 1), sizeof *g.adj);
  g.partner = malloc(nv * sizeof *g.partner);
  g.first = malloc(nv * sizeof *g.first);
  ws_status st = WS_OK;
  *regs_used = 0;
  if (!l.in || !l.out || !l.use || !l.def || !l.succ || !g.adj || !g.partner || !g.first) {
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory allocating registers", kernel);
  } else {
    for (size_t v = 0; v < nv; v++) g.partner[v] = WS_VC_NONE, g.first[v] = SIZE_MAX;
    for (size_t i = 0; i < l.n; i++) uses_defs(&l, vc, &vc->insns[i], i);
    successors(&l, vc);
    solve(&l);
    build_graph(&g, &l, vc);
    st = color(ctx, vc, &g, max_regs, kernel, regs_used);
  }
  free(l.in), free(l.out), free(l.use), free(l.def), free(l.succ);
  free(g.adj), free(g.partner), free(g.first);
  return st;
}
