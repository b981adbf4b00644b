/* vcode.c - the middle form's storage and its register allocation: a
 * backward liveness pass over the instructions' control-flow graph, live
 * intervals in program order, and a linear scan (Poletto and Sarkar, TOPLAS
 * 1999) that keeps pairs and quads aligned as the ISA requires. */
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

/* ---- linear scan ---------------------------------------------------------------- */

typedef struct interval {
  uint32_t v;
  size_t start, end;
} interval;

static int by_start(const void *a, const void *b) {
  const interval *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->v < y->v ? -1 : (x->v > y->v);
}

static void intervals(const live *l, interval *iv) {
  for (size_t v = 0; v < l->nv; v++) iv[v] = (interval){(uint32_t)v, SIZE_MAX, 0};
  for (size_t i = 0; i < l->n; i++) {
    const uint64_t *in = set_of(l->in, l, i), *out = set_of(l->out, l, i), *d = set_of(l->def, l, i);
    for (size_t w = 0; w < l->words; w++) {
      uint64_t bits = in[w] | out[w] | d[w];
      while (bits) {
        uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
        bits &= bits - 1;
        if (iv[v].start == SIZE_MAX || i < iv[v].start) iv[v].start = i;
        if (i > iv[v].end) iv[v].end = i;
      }
    }
  }
}

typedef struct pool {
  uint32_t size;      /* registers in the file */
  size_t *busy_until; /* per register: the end of the interval holding it; SIZE_MAX free */
  size_t *busy_from;  /* and its start */
  uint32_t high;      /* highest register handed out + 1 */
} pool;

/* Free at `at`: never held, or held by an interval that ended before, or
 * that ends at `at` having begun earlier (the instruction there reads it
 * before it writes; two results of one instruction never share). */
static bool free_at(const pool *p, uint32_t r, size_t at) {
  size_t until = p->busy_until[r];
  return until == SIZE_MAX || until < at || (until == at && p->busy_from[r] < at);
}

/* The lowest free base aligned to words at position `at`, or UINT32_MAX. */
static uint32_t take(pool *p, uint8_t words, size_t at, size_t end) {
  for (uint32_t b = 0; b + words <= p->size; b += words) {
    bool ok = true;
    for (uint32_t k = 0; k < words && ok; k++) ok = free_at(p, b + k, at);
    if (!ok) continue;
    for (uint32_t k = 0; k < words; k++) p->busy_until[b + k] = end, p->busy_from[b + k] = at;
    if (b + words > p->high) p->high = b + words;
    return b;
  }
  return UINT32_MAX;
}

static ws_status scan_all(ws_ctx *ctx, ws_vcode *vc, interval *iv, pool *regs, pool *preds,
                          const char *kernel) {
  qsort(iv, vc->nregs, sizeof *iv, by_start);
  for (size_t k = 0; k < vc->nregs; k++) {
    if (iv[k].start == SIZE_MAX) continue; /* never used */
    ws_vc_reg *r = &vc->regs[iv[k].v];
    pool *p = r->is_pred ? preds : regs;
    r->phys = take(p, r->is_pred ? 1 : r->words, iv[k].start, iv[k].end);
    if (r->phys != UINT32_MAX) continue;
    if (r->is_pred)
      return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                         "kernel '%s': more than %u predicates are live at once; predicates kept in "
                         "registers are not supported yet",
                         kernel, p->size);
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "kernel '%s': more than %u registers are live at once (spilling to local memory "
                       "is not supported yet)",
                       kernel, p->size);
  }
  return WS_OK;
}

ws_status ws_vcode_alloc(ws_ctx *ctx, ws_vcode *vc, uint32_t max_regs, const char *kernel,
                         uint32_t *regs_used) {
  live l = {.n = vc->ninsns, .nv = vc->nregs, .words = (vc->nregs + 63) / 64};
  size_t cells = l.n * (l.words ? l.words : 1);
  l.in = calloc(cells, sizeof *l.in), l.out = calloc(cells, sizeof *l.out);
  l.use = calloc(cells, sizeof *l.use), l.def = calloc(cells, sizeof *l.def);
  l.succ = calloc(2 * (l.n ? l.n : 1), sizeof *l.succ);
  interval *iv = calloc(vc->nregs ? vc->nregs : 1, sizeof *iv);
  size_t *busy = malloc(2 * (max_regs + WS_NUM_PREDS) * sizeof *busy);
  ws_status st = WS_OK;
  if (!l.in || !l.out || !l.use || !l.def || !l.succ || !iv || !busy) {
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "kernel '%s': out of memory allocating registers", kernel);
  } else {
    for (size_t i = 0; i < l.n; i++) uses_defs(&l, vc, &vc->insns[i], i);
    successors(&l, vc);
    solve(&l);
    intervals(&l, iv);
    size_t nb = max_regs + WS_NUM_PREDS;
    for (size_t i = 0; i < 2 * nb; i++) busy[i] = SIZE_MAX;
    pool regs = {max_regs, busy, busy + nb, 0},
         preds = {WS_NUM_PREDS, busy + max_regs, busy + nb + max_regs, 0};
    st = scan_all(ctx, vc, iv, &regs, &preds, kernel);
    *regs_used = regs.high;
  }
  free(l.in), free(l.out), free(l.use), free(l.def), free(l.succ), free(iv), free(busy);
  return st;
}
