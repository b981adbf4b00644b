/* taint.c - the provenance shadow (see taint.h).
 *
 * Design: the global shadow is a bitmap per 4 KiB page (512 bytes of host
 * memory each) in an open-addressing hash table keyed by page number, with
 * a one-entry cache of the last page looked up (a hit or a miss), since a
 * warp's lanes and a copy's bytes walk one page at a time. A page is made
 * only when a byte in it is tagged; clearing a byte of a page that does not
 * exist costs a lookup. Every instruction's registers are found once per
 * launch from the opcode table (its signature letters), so the step does no
 * parsing. An instruction's destination tags are computed in
 * ws_taint_before, while its sources still hold what it reads (a
 * destination may alias a source), and written in ws_taint_after, once the
 * executor has filled the step record's addresses; the same split serves
 * stores (the stored registers' tags) and atomics. The unit files know
 * nothing of tags. */
#include "sim/exec/taint.h"

#include <stdlib.h>
#include <string.h>

#include "sim/exec/exec_int.h"

#define LANES WS_WARP_LANES
#define TPAGE_SHIFT 12u
#define TPAGE_BYTES (1ull << TPAGE_SHIFT)
#define TPAGE_WORDS (TPAGE_BYTES / 64u)

/* ---- the global shadow ---------------------------------------------------------- */

typedef struct tpage {
  uint64_t key; /* page number + 1; 0: empty slot */
  uint64_t *bits;
} tpage;

struct ws_taint_mem {
  tpage *table;
  size_t cap, used; /* cap: a power of two, or 0 */
  uint64_t last_key;
  uint64_t *last_bits; /* the cached lookup of last_key; NULL: no such page */
};

ws_taint_mem *ws_taint_mem_create(void) { return calloc(1, sizeof(ws_taint_mem)); }

void ws_taint_mem_destroy(ws_taint_mem *tm) {
  if (!tm) return;
  for (size_t i = 0; i < tm->cap; i++) free(tm->table[i].bits);
  free(tm->table);
  free(tm);
}

uint64_t ws_taint_mem_resident_bytes(const ws_taint_mem *tm) {
  return tm->used * TPAGE_WORDS * 8u + tm->cap * sizeof(tpage);
}

static size_t slot_of(uint64_t key, size_t cap) {
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static bool grow_table(ws_taint_mem *tm) {
  size_t cap = tm->cap ? tm->cap * 2 : 64;
  tpage *t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < tm->cap; i++) {
    if (!tm->table[i].key) continue;
    size_t j = slot_of(tm->table[i].key, cap);
    while (t[j].key) j = (j + 1) & (cap - 1);
    t[j] = tm->table[i];
  }
  free(tm->table);
  tm->table = t;
  tm->cap = cap;
  return true;
}

/* The bitmap of page `pno`; with make, created when missing (NULL only when
 * host memory ran out). */
static uint64_t *page_of(ws_taint_mem *tm, uint64_t pno, bool make) {
  uint64_t key = pno + 1;
  if (key == tm->last_key && (tm->last_bits || !make)) return tm->last_bits;
  size_t i = 0;
  if (tm->cap)
    for (i = slot_of(key, tm->cap); tm->table[i].key; i = (i + 1) & (tm->cap - 1))
      if (tm->table[i].key == key) {
        tm->last_key = key;
        return tm->last_bits = tm->table[i].bits;
      }
  tm->last_key = key;
  tm->last_bits = NULL;
  if (!make) return NULL;
  if ((tm->used + 1) * 2 > tm->cap) {
    if (!grow_table(tm)) return NULL;
    for (i = slot_of(key, tm->cap); tm->table[i].key;) i = (i + 1) & (tm->cap - 1);
  }
  uint64_t *bits = calloc(TPAGE_WORDS, sizeof *bits);
  if (!bits) return NULL;
  tm->table[i] = (tpage){key, bits};
  tm->used++;
  return tm->last_bits = bits;
}

/* The bits [i, min(end, next multiple of 64)) of word i/64, and how many. */
static uint64_t run_mask(uint64_t i, uint64_t end, uint64_t *cnt) {
  uint64_t b = i & 63u, c = 64u - b < end - i ? 64u - b : end - i;
  *cnt = c;
  return (c == 64u ? ~0ull : (1ull << c) - 1u) << b;
}

static void set_bits(uint64_t *bits, uint64_t from, uint64_t n, bool on) {
  for (uint64_t i = from, end = from + n, cnt; i < end; i += cnt) {
    uint64_t m = run_mask(i, end, &cnt);
    bits[i >> 6] = on ? bits[i >> 6] | m : bits[i >> 6] & ~m;
  }
}

static bool any_bits(const uint64_t *bits, uint64_t from, uint64_t n) {
  for (uint64_t i = from, end = from + n, cnt; i < end; i += cnt)
    if (bits[i >> 6] & run_mask(i, end, &cnt)) return true;
  return false;
}

/* The part of [addr, addr+left) inside addr's page. */
static uint64_t piece(uint64_t addr, uint64_t left) {
  uint64_t room = TPAGE_BYTES - (addr & (TPAGE_BYTES - 1u));
  return room < left ? room : left;
}

static uint64_t in_page(uint64_t addr) { return addr & (TPAGE_BYTES - 1u); }

bool ws_taint_mem_set(ws_taint_mem *tm, uint64_t addr, uint64_t size_bytes, bool on) {
  if (!on && !tm->used) return true;
  for (uint64_t a = addr, end = addr + size_bytes, n; a < end; a += n) {
    n = piece(a, end - a);
    uint64_t *bits = page_of(tm, a >> TPAGE_SHIFT, on);
    if (bits)
      set_bits(bits, in_page(a), n, on);
    else if (on)
      return false;
  }
  return true;
}

bool ws_taint_mem_any(ws_taint_mem *tm, uint64_t addr, uint64_t size_bytes) {
  if (!tm->used) return false;
  for (uint64_t a = addr, end = addr + size_bytes, n; a < end; a += n) {
    n = piece(a, end - a);
    const uint64_t *bits = page_of(tm, a >> TPAGE_SHIFT, false);
    if (bits && any_bits(bits, in_page(a), n)) return true;
  }
  return false;
}

static bool any_nonzero(const uint8_t *p, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    if (p[i]) return true;
  return false;
}

bool ws_taint_mem_write(ws_taint_mem *tm, uint64_t addr, const uint8_t *tags, uint64_t size_bytes) {
  if (!tags) return ws_taint_mem_set(tm, addr, size_bytes, false);
  for (uint64_t a = addr, end = addr + size_bytes, n; a < end; a += n) {
    n = piece(a, end - a);
    const uint8_t *t = tags + (a - addr);
    bool some = any_nonzero(t, n);
    uint64_t *bits = some || tm->used ? page_of(tm, a >> TPAGE_SHIFT, some) : NULL;
    if (some && !bits) return false;
    for (uint64_t i = 0, off = in_page(a); bits && i < n; i++) set_bits(bits, off + i, 1, t[i] != 0);
  }
  return true;
}

bool ws_taint_mem_read(ws_taint_mem *tm, uint64_t addr, uint8_t *tags, uint64_t size_bytes) {
  bool any = false;
  for (uint64_t a = addr, end = addr + size_bytes, n; a < end; a += n) {
    n = piece(a, end - a);
    uint8_t *t = tags + (a - addr);
    const uint64_t *bits = tm->used ? page_of(tm, a >> TPAGE_SHIFT, false) : NULL;
    for (uint64_t i = 0, off = in_page(a); i < n; i++) {
      t[i] = bits ? (uint8_t)(bits[(off + i) >> 6] >> ((off + i) & 63u) & 1u) : 0u;
      any |= t[i] != 0;
    }
  }
  return any;
}

uint64_t ws_taint_mem_count(ws_taint_mem *tm, uint64_t addr, uint64_t n, uint32_t elem_bytes) {
  uint64_t count = 0;
  if (!tm->used || !elem_bytes) return 0;
  for (uint64_t i = 0; i < n; i++) count += ws_taint_mem_any(tm, addr + i * elem_bytes, elem_bytes);
  return count;
}

/* ---- one launch: what each instruction reads and writes --------------------------- */

typedef enum tkind {
  TK_NONE,     /* control, NOP, commit and wait: no data */
  TK_LANEWISE, /* each lane's result from its own sources */
  TK_SHFL,
  TK_VOTE, /* VOTE.ALL/ANY and BALLOT: one answer for every executing lane */
  TK_HMMA,
  TK_LOAD,      /* LDG, LDS, LDL */
  TK_LOAD_NONE, /* LDC, LDP: the constant bank and parameters are never tagged */
  TK_STORE,
  TK_ATOMIC,
  TK_ASYNC /* LDGSTS */
} tkind;

typedef struct tinsn {
  uint8_t kind; /* tkind */
  uint8_t nsrc; /* data source registers (addresses excluded) */
  uint8_t src[12];
  uint8_t psrc;  /* bit mask of the predicates read as operands */
  uint8_t dst;   /* first destination register */
  uint8_t ndst;  /* destination registers; 0: none */
  uint8_t pdst;  /* destination predicate; WS_PRED_PT: none */
  uint8_t pdst2; /* HSETP2's second destination predicate; WS_PRED_PT: none */
} tinsn;

struct ws_taint {
  ws_taint_mem *mem;
  tinsn *insns;
};

ws_taint_mem *ws_taint_memory(const ws_taint *t) { return t->mem; }

static tkind kind_of(ws_op op) {
  switch (op) {
  case WS_OP_SHFL: return TK_SHFL;
  case WS_OP_VOTEALL:
  case WS_OP_VOTEANY:
  case WS_OP_BALLOT: return TK_VOTE;
  case WS_OP_HMMA: return TK_HMMA;
  case WS_OP_LDG:
  case WS_OP_LDS:
  case WS_OP_LDL: return TK_LOAD;
  case WS_OP_LDC:
  case WS_OP_LDP: return TK_LOAD_NONE;
  case WS_OP_STG:
  case WS_OP_STS:
  case WS_OP_STL: return TK_STORE;
  case WS_OP_LDGSTS: return TK_ASYNC;
  default: return ws_isa_is_atomic(op) ? TK_ATOMIC : TK_LANEWISE;
  }
}

static void describe(const ws_insn *insn, tinsn *d) {
  memset(d, 0, sizeof *d);
  d->pdst = d->pdst2 = WS_PRED_PT;
  const ws_op op = (ws_op)insn->op;
  unsigned n = ws_isa_nopnds(op);
  for (unsigned j = 0; j < n && j < WS_MAX_OPERANDS; j++) {
    const ws_operand *o = &insn->opnd[j];
    char kind = ws_isa_sig(op, j).kind;
    unsigned regs = ws_isa_opnd_nregs(insn, j);
    if (kind == 'd' && o->kind == WS_OPND_REG) {
      d->dst = o->reg;
      d->ndst = (uint8_t)regs;
    } else if (kind == 'p' && o->kind == WS_OPND_PRED) {
      *(j == 0 ? &d->pdst : &d->pdst2) = o->reg;
    } else if ((kind == 'r' || kind == 'i' || kind == 'f' || kind == 'h') && o->kind == WS_OPND_REG) {
      for (unsigned k = 0; k < regs && o->reg + k < WS_REG_RZ && d->nsrc < sizeof d->src; k++)
        d->src[d->nsrc++] = (uint8_t)(o->reg + k);
    } else if (kind == 'q' && o->kind == WS_OPND_PRED && o->reg < WS_PRED_PT) {
      d->psrc |= (uint8_t)(1u << o->reg);
    }
  }
  tkind k = kind_of(op);
  if (k == TK_LANEWISE && !d->ndst && d->pdst == WS_PRED_PT) k = TK_NONE;
  d->kind = (uint8_t)k;
}

ws_status ws_taint_create(ws_ctx *ctx, ws_taint_mem *tm, const ws_kernel *k, ws_taint **out) {
  ws_taint *t = calloc(1, sizeof *t);
  if (t) t->insns = calloc(k->ninsns ? k->ninsns : 1, sizeof *t->insns);
  if (!t || !t->insns) {
    ws_taint_destroy(t);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted setting up pixel following");
  }
  t->mem = tm;
  for (uint32_t i = 0; i < k->ninsns; i++) describe(&k->insns[i], &t->insns[i]);
  *out = t;
  return WS_OK;
}

void ws_taint_destroy(ws_taint *t) {
  if (!t) return;
  free(t->insns);
  free(t);
}

/* ---- one CTA object ------------------------------------------------------------------ */

struct ws_taint_cta {
  ws_taint *t;
  uint32_t nwarps, nrows, stride; /* stride = nrows + 2: a zero row read past the kernel's, a sink row */
  uint32_t *regs;                 /* [warp][stride] lane masks */
  uint32_t *preds;                /* [warp][8] */
  uint8_t *smem;                  /* 1 per tagged byte of shared memory */
  uint32_t smem_bytes;
  /* from ws_taint_before to ws_taint_after: the destination registers' tags
   * (or a store's data registers', an atomic's operands') and the
   * destination predicate's */
  uint32_t pend[4];
  uint32_t pend_pred;
};

ws_status ws_taint_cta_create(ws_ctx *ctx, ws_taint *t, const ws_cta *cta, ws_taint_cta **out) {
  ws_taint_cta *tc = calloc(1, sizeof *tc);
  if (tc) {
    tc->t = t;
    tc->nwarps = cta->nwarps;
    tc->nrows = cta->nwarps ? cta->warps[0].nrows : 0;
    tc->stride = tc->nrows + 2;
    tc->smem_bytes = cta->smem_bytes;
    tc->regs = calloc((size_t)tc->nwarps * tc->stride + 1, sizeof *tc->regs);
    tc->preds = calloc((size_t)tc->nwarps * 8 + 1, sizeof *tc->preds);
    tc->smem = calloc((size_t)tc->smem_bytes + 1, 1);
  }
  if (!tc || !tc->regs || !tc->preds || !tc->smem) {
    ws_taint_cta_destroy(tc);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted setting up pixel following for a CTA");
  }
  *out = tc;
  return WS_OK;
}

void ws_taint_cta_destroy(ws_taint_cta *tc) {
  if (!tc) return;
  free(tc->regs);
  free(tc->preds);
  free(tc->smem);
  free(tc);
}

/* A new CTA starts with zeroed registers and shared memory: nothing tagged. */
void ws_taint_cta_reset(ws_taint_cta *tc) {
  memset(tc->regs, 0, (size_t)tc->nwarps * tc->stride * sizeof *tc->regs);
  memset(tc->preds, 0, (size_t)tc->nwarps * 8 * sizeof *tc->preds);
  memset(tc->smem, 0, tc->smem_bytes);
}

/* The tag rows a register reads and writes, as ws_warp_src and ws_warp_dst
 * map the value rows (row nrows stays zero). */
static uint32_t src_row(const ws_taint_cta *tc, uint32_t reg) { return reg < tc->nrows ? reg : tc->nrows; }
static uint32_t dst_row(const ws_taint_cta *tc, uint32_t reg) {
  return reg < tc->nrows ? reg : tc->nrows + 1;
}

static uint32_t *regs_of(ws_taint_cta *tc, uint32_t warp) { return tc->regs + (size_t)warp * tc->stride; }

uint32_t ws_taint_cta_reg(const ws_taint_cta *tc, uint32_t warp, uint32_t reg) {
  return warp < tc->nwarps ? tc->regs[(size_t)warp * tc->stride + src_row(tc, reg)] : 0;
}

uint32_t ws_taint_cta_pred(const ws_taint_cta *tc, uint32_t warp, uint32_t pred) {
  return warp < tc->nwarps && pred < WS_PRED_PT ? tc->preds[(size_t)warp * 8 + pred] : 0;
}

bool ws_taint_cta_smem(const ws_taint_cta *tc, uint32_t offset) {
  return offset < tc->smem_bytes && tc->smem[offset];
}

/* ---- before: the tags of what the instruction reads ------------------------------------ */

static uint32_t pred_tags(const ws_taint_cta *tc, uint32_t warp, uint8_t psrc) {
  uint32_t m = 0;
  for (unsigned p = 0; p < WS_PRED_PT; p++)
    if (psrc >> p & 1u) m |= tc->preds[(size_t)warp * 8 + p];
  return m;
}

static void before_shfl(ws_taint_cta *tc, const ws_exec_site *s, const uint32_t *r) {
  const ws_insn *in = s->insn;
  const ws_operand *ob = &in->opnd[2];
  const uint32_t a = r[src_row(tc, in->opnd[1].reg)];
  const uint32_t *bv = ob->kind == WS_OPND_REG ? ws_warp_src(s->warp, ob->reg) : NULL;
  uint32_t m = ob->kind == WS_OPND_REG ? r[src_row(tc, ob->reg)] : 0u;
  for (unsigned l = 0; l < LANES; l++) {
    uint32_t b = bv ? bv[l] : (uint32_t)ob->imm;
    m |= (a >> ws_exec_shfl_src((ws_shfl_mode)in->cmp, l, b) & 1u) << l;
  }
  tc->pend[0] = m;
}

/* D[i][j] is tagged when row i of A, column j of B or C[i][j] holds a tag;
 * the fragments are spread over the lanes as in exec_alu.c's hmma_gather
 * (lane = 4g + t; A register k holds row g + 8*(k%2), B register k column g,
 * C and D register k element (g + 8*(k/2), 2t + k%2)). */
static void before_hmma(ws_taint_cta *tc, const ws_exec_site *s, const uint32_t *r) {
  const ws_insn *in = s->insn;
  uint32_t rows_a = 0, cols_b = 0;
  for (unsigned l = 0; l < LANES; l++) {
    unsigned g = l >> 2;
    for (unsigned k = 0; k < 4; k++)
      if (r[src_row(tc, (uint32_t)in->opnd[1].reg + k)] >> l & 1u) rows_a |= 1u << (g + (k & 1u) * 8u);
    for (unsigned k = 0; k < 2; k++)
      if (r[src_row(tc, (uint32_t)in->opnd[2].reg + k)] >> l & 1u) cols_b |= 1u << g;
  }
  for (unsigned k = 0; k < 4; k++) {
    uint32_t m = r[src_row(tc, (uint32_t)in->opnd[3].reg + k)];
    for (unsigned l = 0; l < LANES; l++) {
      unsigned i = (l >> 2) + (k >> 1) * 8u, j = (l & 3u) * 2u + (k & 1u);
      m |= ((rows_a >> i | cols_b >> j) & 1u) << l;
    }
    tc->pend[k] = m;
  }
}

void ws_taint_before(ws_taint_cta *tc, const ws_exec_site *s) {
  const tinsn *d = &tc->t->insns[s->pc];
  const uint32_t *r = regs_of(tc, s->warp_idx);
  uint32_t m = 0;
  switch ((tkind)d->kind) {
  case TK_LANEWISE:
    for (unsigned i = 0; i < d->nsrc; i++) m |= r[src_row(tc, d->src[i])];
    m |= pred_tags(tc, s->warp_idx, d->psrc);
    tc->pend[0] = tc->pend[1] = tc->pend[2] = tc->pend[3] = tc->pend_pred = m;
    break;
  case TK_SHFL: before_shfl(tc, s, r); break;
  case TK_VOTE:
    m = (pred_tags(tc, s->warp_idx, d->psrc) & s->exec) ? UINT32_MAX : 0u;
    tc->pend[0] = tc->pend_pred = m;
    break;
  case TK_HMMA: before_hmma(tc, s, r); break;
  case TK_STORE: {
    uint32_t n = ws_isa_opnd_nregs(s->insn, 1);
    for (uint32_t k = 0; k < n && k < 4; k++)
      tc->pend[k] = r[src_row(tc, (uint32_t)s->insn->opnd[1].reg + k)];
    break;
  }
  case TK_ATOMIC:
    for (unsigned i = 0; i < d->nsrc; i++) m |= r[src_row(tc, d->src[i])];
    tc->pend[0] = m;
    break;
  default: break;
  }
}

/* ---- after: the tags of what it wrote ----------------------------------------------------- */

static void put_rows(ws_taint_cta *tc, const ws_exec_site *s, uint32_t reg, uint32_t n, const uint32_t *m) {
  uint32_t *r = regs_of(tc, s->warp_idx);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t *row = &r[dst_row(tc, reg + k)];
    *row = (*row & ~s->exec) | (m[k] & s->exec);
    s->step->tag_result |= m[k] & s->exec;
  }
}

static void put_pred(ws_taint_cta *tc, const ws_exec_site *s, uint32_t pred, uint32_t m) {
  if (pred >= WS_PRED_PT) return;
  uint32_t *p = &tc->preds[(size_t)s->warp_idx * 8 + pred];
  *p = (*p & ~s->exec) | (m & s->exec);
  s->step->tag_result |= m & s->exec;
}

static bool smem_any(const ws_taint_cta *tc, uint64_t off, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (tc->smem[off + i]) return true;
  return false;
}

/* d..d+n-1 = memory: a register is tagged when one of its bytes is. */
static void after_load(ws_taint_cta *tc, const ws_exec_site *s, bool untagged) {
  const ws_warp_step *st = s->step;
  uint32_t n = st->width_bytes / 4u, m[4] = {0, 0, 0, 0};
  for (uint32_t l = 0; l < LANES && !untagged; l++) {
    if (!(s->exec >> l & 1u)) continue;
    for (uint32_t k = 0; k < n && k < 4; k++) {
      uint64_t a = ws_warp_step_word_addr(st, l, k);
      bool tag = st->space == WS_SPACE_SHARED ? smem_any(tc, a, 4) : ws_taint_mem_any(tc->t->mem, a, 4);
      m[k] |= (uint32_t)tag << l;
    }
  }
  put_rows(tc, s, s->insn->opnd[0].reg, n < 4 ? n : 4, m);
  s->step->tag_lanes = (m[0] | m[1] | m[2] | m[3]) & s->exec;
}

/* One lane's write of `n` bytes at `addr` of `sp`, tagged or not. */
static bool write_tags(ws_taint_cta *tc, ws_space sp, uint64_t addr, uint32_t n, bool on) {
  if (sp == WS_SPACE_SHARED) {
    memset(tc->smem + addr, on, n);
    return true;
  }
  return ws_taint_mem_set(tc->t->mem, addr, n, on);
}

static ws_status nomem(const ws_exec_site *s) {
  return ws_ctx_fail(s->ctx, WS_ERR_NOMEM, "host memory exhausted following a pixel");
}

/* Lanes in ascending order, as the executor stores: the highest lane's tag
 * of a shared address wins, as its value does. A byte or halfword store
 * tags only the bytes it wrote. */
static ws_status after_store(ws_taint_cta *tc, const ws_exec_site *s) {
  const ws_warp_step *st = s->step;
  uint32_t n = st->width_bytes > 4 ? st->width_bytes / 4u : 1u, lanes = 0;
  uint32_t part_bytes = st->width_bytes < 4 ? st->width_bytes : 4u;
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    for (uint32_t k = 0; k < n && k < 4; k++) {
      bool on = tc->pend[k] >> l & 1u;
      lanes |= (uint32_t)on << l;
      if (!write_tags(tc, (ws_space)st->space, ws_warp_step_word_addr(st, l, k), part_bytes, on))
        return nomem(s);
    }
  }
  s->step->tag_lanes = s->step->tag_result = lanes;
  return WS_OK;
}

static ws_status after_atomic(ws_taint_cta *tc, const ws_exec_site *s) {
  const ws_warp_step *st = s->step;
  uint32_t old = 0, lanes = 0;
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    uint64_t a = st->addr[l];
    bool was = st->space == WS_SPACE_GLOBAL ? ws_taint_mem_any(tc->t->mem, a, 4) : smem_any(tc, a, 4);
    bool now = was || (tc->pend[0] >> l & 1u);
    if (!write_tags(tc, (ws_space)st->space, a, 4, now)) return nomem(s);
    old |= (uint32_t)was << l;
    lanes |= (uint32_t)now << l;
  }
  put_rows(tc, s, s->insn->opnd[0].reg, 1, &old);
  s->step->tag_lanes = s->step->tag_result = lanes;
  return WS_OK;
}

static void after_async(ws_taint_cta *tc, const ws_exec_site *s) {
  const ws_warp_step *st = s->step;
  uint32_t lanes = 0;
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    uint8_t tags[16];
    uint32_t n = st->width_bytes <= sizeof tags ? st->width_bytes : (uint32_t)sizeof tags;
    if (ws_taint_mem_read(tc->t->mem, st->addr[l], tags, n)) lanes |= 1u << l;
    memcpy(tc->smem + st->addr2[l], tags, n);
  }
  s->step->tag_lanes = s->step->tag_result = lanes;
}

ws_status ws_taint_after(ws_taint_cta *tc, const ws_exec_site *s) {
  const tinsn *d = &tc->t->insns[s->pc];
  if (!s->exec) return WS_OK;
  switch ((tkind)d->kind) {
  case TK_LANEWISE:
  case TK_SHFL:
  case TK_VOTE:
  case TK_HMMA:
    put_rows(tc, s, d->dst, d->ndst < 4 ? d->ndst : 4, tc->pend);
    put_pred(tc, s, d->pdst, tc->pend_pred);
    put_pred(tc, s, d->pdst2, tc->pend_pred);
    return WS_OK;
  case TK_LOAD: after_load(tc, s, false); return WS_OK;
  case TK_LOAD_NONE: after_load(tc, s, true); return WS_OK;
  case TK_STORE: return after_store(tc, s);
  case TK_ATOMIC: return after_atomic(tc, s);
  case TK_ASYNC: after_async(tc, s); return WS_OK;
  default: return WS_OK;
  }
}
