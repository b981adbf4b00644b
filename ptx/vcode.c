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

#include "base/grow.h"
#include "isa/isa.h"

uint32_t ws_vcode_new_reg(ws_vcode *vc, uint8_t words, bool is_pred) {
  if (!ws_grow((void **)&vc->regs, &vc->regs_cap, vc->nregs, sizeof *vc->regs, 64)) {
    vc->oom = true;
    return 0;
  }
  vc->regs[vc->nregs] = (ws_vc_reg){.words = words, .is_pred = is_pred, .phys = WS_VC_NONE};
  return (uint32_t)vc->nregs++;
}

ws_vc_insn *ws_vcode_add(ws_vcode *vc, const char *mnem, uint32_t src) {
  if (!ws_grow((void **)&vc->insns, &vc->insns_cap, vc->ninsns, sizeof *vc->insns, 64)) {
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
 * old value in the lanes whose guard fails, and a write of some words of a
 * pair or quad keeps the others, so either reads the register too, where
 * an earlier write may have given it a value (maydef, the registers some
 * path from the entry has written; NULL: every register): a 64-bit value
 * built word by word is not live before its first word is written. */
static void uses_defs(live *l, const ws_vcode *vc, const ws_vc_insn *in, size_t i, const uint64_t *maydef) {
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
      bool had = !maydef || (maydef[o->v / 64] >> (o->v % 64) & 1);
      if ((in->guard != WS_VC_NONE || partial) && had) set_bit(u, o->v);
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

/* Registers some path from the entry has written before each instruction
 * (forward, over the successors), into maydef (n sets). */
static void may_define(const live *l, uint64_t *maydef) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < l->n; i++) {
      const uint64_t *in = set_of(maydef, l, i), *d = set_of(l->def, l, i);
      for (int k = 0; k < 2; k++) {
        size_t s = l->succ[2 * i + k];
        if (s == SIZE_MAX) continue;
        uint64_t *to = set_of(maydef, l, s);
        for (size_t w = 0; w < l->words; w++) {
          uint64_t v = to[w] | in[w] | d[w];
          if (v != to[w]) to[w] = v, changed = true;
        }
      }
    }
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
  size_t *last;      /* and the last */
} graph;

static void link2(graph *g, uint32_t a, uint32_t b) {
  if (a == b) return;
  set_bit(g->adj + (size_t)a * g->words, b);
  set_bit(g->adj + (size_t)b * g->words, a);
}

/* A copy MOV d, s of one register, or of one word of a pair or quad into
 * the same word of another of its size (a 64-bit copy is two of these):
 * its source, else WS_VC_NONE. */
static uint32_t copy_source(const ws_vcode *vc, const ws_vc_insn *in) {
  if (in->kind != WS_VC_INSN || strcmp(in->mnem, "MOV") != 0 || in->nops != 2 || in->guard != WS_VC_NONE)
    return WS_VC_NONE;
  const ws_vc_op *d = &in->ops[0], *s = &in->ops[1];
  if (d->kind != WS_VC_REG || s->kind != WS_VC_REG || s->neg || s->abs || d->word != s->word)
    return WS_VC_NONE;
  if (d->words != 1 || s->words != 1 || vc->regs[d->v].words != vc->regs[s->v].words) return WS_VC_NONE;
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
        g->last[v] = i;
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

/* Colors every used register in order of first appearance; the register
 * that found no place (WS_VC_NONE when all did). */
static uint32_t color(ws_vcode *vc, const graph *g, uint32_t max_regs, order_key *ord, uint32_t *regs_used) {
  for (size_t v = 0; v < vc->nregs; v++)
    ord[v] = (order_key){(uint32_t)v, g->first[v]}, vc->regs[v].phys = WS_VC_NONE;
  qsort(ord, vc->nregs, sizeof *ord, by_first);
  *regs_used = 0;
  for (size_t k = 0; k < vc->nregs; k++) {
    uint32_t v = ord[k].v;
    ws_vc_reg *r = &vc->regs[v];
    if (ord[k].first == SIZE_MAX) continue; /* never used */
    uint32_t p = pick(g, vc, v, r->is_pred ? WS_NUM_PREDS : max_regs);
    if (p == UINT32_MAX) return v;
    r->phys = p;
    if (!r->is_pred && p + r->words > *regs_used) *regs_used = p + r->words;
  }
  return WS_VC_NONE;
}

/* ---- spilling ------------------------------------------------------------------------ */

/* The value to spill when `failed` found no register: of it and its
 * neighbours, the one live over the most instructions (freeing the most
 * places), never a predicate or a spill's own temporary. */
static uint32_t victim(const ws_vcode *vc, const graph *g, uint32_t failed) {
  bool pred = vc->regs[failed].is_pred; /* a predicate makes room among predicates */
  uint32_t best = WS_VC_NONE;
  size_t best_span = 0;
  const uint64_t *row = g->adj + (size_t)failed * g->words;
  for (size_t x = 0; x <= g->words * 64; x++) {
    uint32_t v;
    if (x == g->words * 64)
      v = failed;
    else if (x < vc->nregs && (row[x / 64] >> (x % 64) & 1))
      v = (uint32_t)x;
    else
      continue;
    const ws_vc_reg *r = &vc->regs[v];
    if (r->is_pred != pred || r->no_spill || g->first[v] == SIZE_MAX) continue;
    size_t span = g->last[v] - g->first[v] + 1;
    if (span > best_span) best = v, best_span = span;
  }
  return best;
}

static bool refers(const ws_vc_op *o, uint32_t v) {
  bool reg = o->kind == WS_VC_REG || o->kind == WS_VC_GMEM || (o->kind == WS_VC_SMEM && o->v != WS_VC_NONE);
  return reg && o->v == v;
}

/* Appends a copy of `in` (or a fresh one when in is NULL) to out. */
static ws_vc_insn *put(ws_vcode *out, const ws_vc_insn *in, const char *mnem, uint32_t src) {
  ws_vc_insn *n = ws_vcode_add(out, mnem, src);
  if (n && in) *n = *in;
  return n;
}

/* A rewritten instruction list (and the registers it added) in place of
 * vc's; false, vc keeping its own instructions, when the rewrite ran out
 * of memory. */
static bool install(ws_vcode *vc, ws_vcode *out) {
  vc->regs = out->regs, vc->nregs = out->nregs, vc->regs_cap = out->regs_cap;
  if (out->oom) {
    free(out->insns);
    vc->oom = true;
    return false;
  }
  free(vc->insns);
  vc->insns = out->insns, vc->ninsns = out->ninsns, vc->insns_cap = out->insns_cap;
  return true;
}

/* Rewrites every instruction touching v to go through a fresh temporary:
 * loaded from local offset `off` before a use (or a partial or guarded
 * write, which keeps the other words or lanes), stored after a write. */
static bool spill(ws_vcode *vc, uint32_t v, uint32_t off) {
  ws_vcode out = {.regs = vc->regs, .nregs = vc->nregs, .regs_cap = vc->regs_cap};
  uint8_t w = vc->regs[v].words;
  char ld[16], st[16], at[32];
  snprintf(ld, sizeof ld, "LDL.%u", 32u * w);
  snprintf(st, sizeof st, "STL.%u", 32u * w);
  snprintf(at, sizeof at, "[RZ+%u]", off);
  for (size_t i = 0; i < vc->ninsns && !out.oom; i++) {
    ws_vc_insn in = vc->insns[i];
    bool uses = false, defs = false, partial = false;
    for (unsigned k = 0; k < in.nops; k++) {
      if (!refers(&in.ops[k], v)) continue;
      if (in.ops[k].def)
        defs = true, partial |= in.ops[k].kind == WS_VC_REG && in.ops[k].words < w;
      else
        uses = true;
    }
    if (!uses && !defs) {
      put(&out, &in, "", 0);
      continue;
    }
    uint32_t t = ws_vcode_new_reg(&out, w, false);
    if (out.oom) break;
    out.regs[t].no_spill = 1;
    if (uses || partial || in.guard != WS_VC_NONE) {
      ws_vc_insn *l = put(&out, NULL, ld, in.src);
      if (l) l->ops[0] = (ws_vc_op){.kind = WS_VC_REG, .def = 1, .v = t, .words = w}, l->nops = 2;
      if (l) snprintf(l->ops[1].text, sizeof l->ops[1].text, "%s", at), l->ops[1].kind = WS_VC_TEXT;
    }
    for (unsigned k = 0; k < in.nops; k++)
      if (refers(&in.ops[k], v)) in.ops[k].v = t;
    put(&out, &in, "", 0);
    if (defs) {
      ws_vc_insn *s = put(&out, NULL, st, in.src);
      if (s) {
        s->nops = 2;
        s->ops[0].kind = WS_VC_TEXT;
        snprintf(s->ops[0].text, sizeof s->ops[0].text, "%s", at);
        s->ops[1] = (ws_vc_op){.kind = WS_VC_REG, .v = t, .words = w};
        s->guard = in.guard, s->guard_neg = in.guard_neg;
      }
    }
  }
  return install(vc, &out);
}

/* Keeps predicate p in a register instead, as 1 or 0: each instruction
 * reading it (or guarded by it) first sets a short-lived predicate from
 * the register (ISETP.NE), each one writing it writes a short-lived one
 * that a SEL then stores (under the same guard). */
static bool demote(ws_vcode *vc, uint32_t p) {
  ws_vcode out = {.regs = vc->regs, .nregs = vc->nregs, .regs_cap = vc->regs_cap};
  uint32_t r = ws_vcode_new_reg(&out, 1, false);
  for (size_t i = 0; i < vc->ninsns && !out.oom; i++) {
    ws_vc_insn in = vc->insns[i];
    bool uses = in.guard == p, defs = false;
    for (unsigned k = 0; k < in.nops; k++)
      if (in.ops[k].kind == WS_VC_PRED && in.ops[k].v == p) {
        if (in.ops[k].def)
          defs = true;
        else
          uses = true;
      }
    if (!uses && !defs) {
      put(&out, &in, "", 0);
      continue;
    }
    if (uses) {
      uint32_t t = ws_vcode_new_reg(&out, 1, true);
      if (out.oom) break;
      out.regs[t].no_spill = 1;
      ws_vc_insn *s = put(&out, NULL, "ISETP.NE.U32", in.src);
      if (s) {
        s->nops = 3;
        s->ops[0] = (ws_vc_op){.kind = WS_VC_PRED, .def = 1, .v = t, .words = 1};
        s->ops[1] = (ws_vc_op){.kind = WS_VC_REG, .v = r, .words = 1};
        s->ops[2] = (ws_vc_op){.kind = WS_VC_TEXT, .text = "0"};
      }
      if (in.guard == p) in.guard = t;
      for (unsigned k = 0; k < in.nops; k++)
        if (in.ops[k].kind == WS_VC_PRED && in.ops[k].v == p && !in.ops[k].def) in.ops[k].v = t;
    }
    uint32_t t = WS_VC_NONE;
    if (defs) {
      t = ws_vcode_new_reg(&out, 1, true);
      if (out.oom) break;
      out.regs[t].no_spill = 1;
      for (unsigned k = 0; k < in.nops; k++)
        if (in.ops[k].kind == WS_VC_PRED && in.ops[k].v == p && in.ops[k].def) in.ops[k].v = t;
    }
    put(&out, &in, "", 0);
    ws_vc_insn *sel = defs ? put(&out, NULL, "SEL", in.src) : NULL;
    if (sel) { /* r = t ? 1 : 0 */
      sel->nops = 4;
      sel->ops[0] = (ws_vc_op){.kind = WS_VC_REG, .def = 1, .v = r, .words = 1};
      sel->ops[1] = (ws_vc_op){.kind = WS_VC_TEXT, .text = "RZ"};
      sel->ops[2] = (ws_vc_op){.kind = WS_VC_TEXT, .text = "1"};
      sel->ops[3] = (ws_vc_op){.kind = WS_VC_PRED, .neg = 1, .v = t, .words = 1};
      sel->guard = in.guard, sel->guard_neg = in.guard_neg;
    }
  }
  return install(vc, &out);
}

/* ---- the allocation ------------------------------------------------------------------- */

typedef struct attempt {
  live l;
  graph g;
  order_key *ord;
} attempt;

static void attempt_free(attempt *a) {
  free(a->l.in), free(a->l.out), free(a->l.use), free(a->l.def), free(a->l.succ);
  free(a->g.adj), free(a->g.partner), free(a->g.first), free(a->g.last), free(a->ord);
  memset(a, 0, sizeof *a);
}

/* Liveness and the interference graph of vc as it stands; false on out of memory. */
static bool analyse(attempt *a, const ws_vcode *vc) {
  live *l = &a->l;
  graph *g = &a->g;
  *l = (live){.n = vc->ninsns, .nv = vc->nregs, .words = (vc->nregs + 63) / 64};
  size_t cells = l->n * (l->words ? l->words : 1), nv = vc->nregs ? vc->nregs : 1;
  l->in = calloc(cells, sizeof *l->in), l->out = calloc(cells, sizeof *l->out);
  l->use = calloc(cells, sizeof *l->use), l->def = calloc(cells, sizeof *l->def);
  l->succ = calloc(2 * (l->n ? l->n : 1), sizeof *l->succ);
  *g = (graph){.nv = vc->nregs, .words = l->words};
  g->adj = calloc(nv * (l->words ? l->words : 1), sizeof *g->adj);
  g->partner = malloc(nv * sizeof *g->partner);
  g->first = malloc(nv * sizeof *g->first);
  g->last = calloc(nv, sizeof *g->last);
  a->ord = malloc(nv * sizeof *a->ord);
  if (!l->in || !l->out || !l->use || !l->def || !l->succ || !g->adj || !g->partner || !g->first ||
      !g->last || !a->ord)
    return false;
  for (size_t v = 0; v < nv; v++) g->partner[v] = WS_VC_NONE, g->first[v] = SIZE_MAX;
  for (size_t i = 0; i < l->n; i++) uses_defs(l, vc, &vc->insns[i], i, NULL);
  successors(l, vc);
  uint64_t *maydef = calloc(cells, sizeof *maydef);
  if (!maydef) return false;
  may_define(l, maydef);
  memset(l->use, 0, cells * sizeof *l->use);
  memset(l->def, 0, cells * sizeof *l->def);
  for (size_t i = 0; i < l->n; i++) uses_defs(l, vc, &vc->insns[i], i, set_of(maydef, l, i));
  free(maydef);
  solve(l);
  build_graph(g, l, vc);
  return true;
}

static ws_status no_room(ws_ctx *ctx, const ws_vcode *vc, uint32_t failed, uint32_t max_regs,
                         const char *kernel) {
  if (vc->regs[failed].is_pred)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "kernel '%s': one instruction needs more than %u predicates at once", kernel,
                       WS_NUM_PREDS);
  return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                     "kernel '%s': does not fit in %u registers even with spilling (one instruction "
                     "needs more at once)",
                     kernel, max_regs);
}

ws_status ws_vcode_alloc(ws_ctx *ctx, ws_vcode *vc, uint32_t max_regs, const char *kernel,
                         uint32_t *regs_used, uint32_t *spill_bytes) {
  *regs_used = 0;
  for (;;) {
    attempt a;
    memset(&a, 0, sizeof a);
    if (!analyse(&a, vc)) {
      attempt_free(&a);
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory allocating registers", kernel);
    }
    uint32_t failed = color(vc, &a.g, max_regs, a.ord, regs_used);
    uint32_t v = failed == WS_VC_NONE ? WS_VC_NONE : victim(vc, &a.g, failed);
    attempt_free(&a);
    if (failed == WS_VC_NONE) return WS_OK;
    if (v == WS_VC_NONE) return no_room(ctx, vc, failed, max_regs, kernel);
    if (vc->regs[v].is_pred) {
      if (!demote(vc, v))
        return ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory keeping predicates in registers",
                           kernel);
      continue;
    }
    uint32_t align = 4u * vc->regs[v].words, off = (*spill_bytes + align - 1) / align * align;
    if (off + align > WS_SPILL_MAX_BYTES)
      return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                         "kernel '%s': spills would take more than %u bytes of local memory", kernel,
                         WS_SPILL_MAX_BYTES);
    if (!spill(vc, v, off))
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory spilling registers", kernel);
    *spill_bytes = off + align;
  }
}
