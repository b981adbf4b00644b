/* model.c - the replay model: a launch's records as per-component sorted
 * timelines, and a frame at any cycle from binary searches over them.
 *
 * Design: loading reads the launch's records once through a cursor and
 * appends each to a flat vector of its kind (compact: 16 to 32 bytes a
 * record, not the 72 of a decoded event); then each vector is grouped by
 * component with a stable counting sort and each group sorted by begin with
 * a stable merge sort (skipped when already in order, as most groups nearly
 * are), so ties keep the file's order. Records that overlap on one
 * component go to interval sets (ivset below). Nothing decoded is trusted:
 * indexes are checked against the config before they index anything, and
 * sizes come from the config and the launch, never from a record. */
#include "viz/model.h"

#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/memsys/addrmap.h"

#define NONE32 UINT32_MAX
#define NCLASS 64u      /* interval-set groups: span lengths in [2^k, 2^(k+1)) */
#define MAX_REASON 251u /* stall reasons above show as this one (the state is a byte) */
#define L1_SET_INVALID 0x7FFFFFFFu

/* ---- growable vectors and stable sorts ------------------------------------------ */

typedef struct vec {
  void *p;
  size_t n, cap;
} vec;

static void *vec_add(vec *v, size_t elsize) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 256;
    void *p = realloc(v->p, cap * elsize);
    if (!p) return NULL;
    v->p = p;
    v->cap = cap;
  }
  return (char *)v->p + v->n++ * elsize;
}

static void vec_free(vec *v) {
  free(v->p);
  memset(v, 0, sizeof *v);
}

/* Every element type below starts with its sort key, a uint64 cycle. */
static uint64_t first_u64(const void *el) {
  uint64_t t;
  memcpy(&t, el, sizeof t);
  return t;
}

static bool is_sorted(const char *a, size_t n, size_t elsize) {
  for (size_t i = 1; i < n; i++)
    if (first_u64(a + (i - 1) * elsize) > first_u64(a + i * elsize)) return false;
  return true;
}

/* Stable bottom-up merge sort of n elements by their first uint64; tmp holds
 * n elements. */
static void merge_sort(char *a, size_t n, size_t elsize, char *tmp) {
  if (n < 2 || is_sorted(a, n, elsize)) return;
  char *src = a, *dst = tmp;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        bool right = first_u64(src + j * elsize) < first_u64(src + i * elsize);
        memcpy(dst + k++ * elsize, src + (right ? j++ : i++) * elsize, elsize);
      }
      memcpy(dst + k * elsize, src + i * elsize, (mid - i) * elsize);
      k += mid - i;
      memcpy(dst + k * elsize, src + j * elsize, (hi - j) * elsize);
    }
    char *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * elsize);
}

static uint32_t key_at(const char *el, size_t key_off) {
  uint32_t k;
  memcpy(&k, el + key_off, sizeof k);
  return k;
}

/* Groups v's elements by the uint32 key at key_off (every key < nkeys) with
 * a stable counting sort, then sorts each group by begin: *off_out gets
 * nkeys + 1 group starts. */
static bool group_sort(vec *v, size_t elsize, size_t key_off, uint32_t nkeys, size_t **off_out) {
  size_t *off = calloc((size_t)nkeys + 2, sizeof *off);
  char *tmp = malloc(v->n ? v->n * elsize : 1);
  if (!off || !tmp) {
    free(off);
    free(tmp);
    return false;
  }
  char *a = v->p;
  for (size_t i = 0; i < v->n; i++) off[key_at(a + i * elsize, key_off) + 2]++;
  for (uint32_t k = 0; k < nkeys; k++) off[k + 2] += off[k + 1];
  for (size_t i = 0; i < v->n; i++)
    memcpy(tmp + off[key_at(a + i * elsize, key_off) + 1]++ * elsize, a + i * elsize, elsize);
  /* off[k] is now group k's start; the copy is the grouped array */
  for (uint32_t k = 0; k < nkeys; k++) merge_sort(tmp + off[k] * elsize, off[k + 1] - off[k], elsize, a);
  v->p = tmp;
  v->cap = v->n;
  free(a);
  *off_out = off;
  return true;
}

/* First index in [lo, hi) whose first uint64 is > t. */
static size_t upper(const void *base, size_t elsize, size_t lo, size_t hi, uint64_t t) {
  const char *a = base;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (first_u64(a + mid * elsize) <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* ---- the element types -------------------------------------------------------- */

/* A warp slot's span: an issue (one cycle) or a stall or depbar wait. */
typedef struct wspan {
  uint64_t begin;
  uint32_t dur;  /* cycles, at least 1 */
  uint32_t pc;   /* an issue's pc; a wait's: the last issue before it in its CTA */
  uint32_t slot; /* sm x warp_slots + warp */
  uint8_t state; /* ws_viz_warp */
  uint8_t exit;  /* an issue of EXIT: the warp's last, once it has no later span */
} wspan;

/* A span of a component: CTA residencies, and the interval sets' entries. */
typedef struct span {
  uint64_t begin, end;
  uint32_t key, a, b, cls;
} span;

/* A moment of a component: lookups, DRAM commands' rows, bytes moved. */
typedef struct mark {
  uint64_t t;
  uint32_t key, v;
} mark;

/* Spans that overlap, grouped by the power of two of their length and
 * sorted by begin within a group: a span of group k that covers cycle t
 * began after t - 2^(k+1), so a query walks back from the last begin <= t
 * of each group only that far. */
typedef struct ivset {
  vec v;       /* span */
  size_t *off; /* group k: [off[k], off[k + 1]) */
} ivset;

static uint32_t length_class(uint64_t len) {
  uint32_t k = 0;
  while (k + 1 < NCLASS && (len >> (k + 1))) k++;
  return k;
}

static bool ivset_add(ivset *s, uint64_t begin, uint64_t end, uint32_t key, uint32_t a, uint32_t b) {
  if (end <= begin) return true; /* covers no cycle */
  span *e = vec_add(&s->v, sizeof *e);
  if (!e) return false;
  *e = (span){begin, end, key, a, b, length_class(end - begin)};
  return true;
}

static bool ivset_build(ivset *s) {
  return group_sort(&s->v, sizeof(span), offsetof(span, cls), NCLASS, &s->off);
}

/* Calls fn for every span covering t. */
static void ivset_query(const ivset *s, uint64_t t, void (*fn)(void *user, const span *e), void *user) {
  const span *e = s->v.p;
  for (uint32_t k = 0; s->off && k < NCLASS; k++) {
    size_t lo = s->off[k], i = upper(e, sizeof *e, lo, s->off[k + 1], t);
    uint64_t reach = k + 1 < 64 ? (uint64_t)1 << (k + 1) : UINT64_MAX; /* longer than any of the group */
    for (; i > lo && t - e[i - 1].begin < reach; i--)
      if (e[i - 1].end > t) fn(user, &e[i - 1]);
  }
}

static void ivset_free(ivset *s) {
  vec_free(&s->v);
  free(s->off);
  s->off = NULL;
}

/* The cycles at which something begins or ends: a bitmap of the cycles
 * below a bound that grows with the records read (a launch's cycles are
 * usually far fewer than its records, so most repeat), and a list of those
 * beyond it, merged into one sorted array once loaded. */
typedef struct changeset {
  uint64_t *bits;
  size_t words;
  vec over; /* uint64 */
} changeset;

#define CHG_MIN_BITS ((uint64_t)1 << 22)

static bool changeset_add(changeset *c, uint64_t t, uint64_t records) {
  uint64_t limit = records * 64 > CHG_MIN_BITS ? records * 64 : CHG_MIN_BITS;
  if (t < limit && t / 64 >= c->words) {
    size_t words = c->words ? c->words : 1024;
    while (words <= t / 64) words *= 2;
    uint64_t *b = realloc(c->bits, words * sizeof *b);
    if (!b) return false;
    memset(b + c->words, 0, (words - c->words) * sizeof *b);
    c->bits = b;
    c->words = words;
  }
  if (t / 64 < c->words) {
    c->bits[t / 64] |= (uint64_t)1 << (t % 64);
    return true;
  }
  uint64_t *p = vec_add(&c->over, sizeof *p);
  if (p) *p = t;
  return p != NULL;
}

static void changeset_free(changeset *c) {
  free(c->bits);
  vec_free(&c->over);
  memset(c, 0, sizeof *c);
}

/* ---- the model ------------------------------------------------------------------ */

struct ws_viz_model {
  ws_ctx *ctx;
  ws_wst_reader *r;
  ws_gpu_cfg cfg;
  ws_addrmap amap;
  uint8_t depbar_state;
  const ws_runtime_region *regions; /* the reader's, sorted, never overlapping */
  size_t nregions;
  /* the loaded launch */
  uint32_t launch;
  uint64_t cycles, records, skipped;
  uint32_t ctas_per_sm, warps_per_cta, nbanks;
  vec warps; /* wspan, by slot: [warp_off[s], warp_off[s + 1]) */
  size_t *warp_off;
  vec ctas; /* span, by sm x ctas_per_sm + slot */
  size_t *cta_off;
  ivset smem, rf, tensor, xbar, dram;
  vec packets; /* ws_viz_packet templates of xbar and dram spans (key) */
  vec l1, l2;  /* mark: load lookups by SM / slice; v = set << 1 | hit (l1), hit (l2) */
  size_t *l1_off, *l2_off;
  uint32_t *l1_cum, *l2_cum; /* hits before index i */
  vec rows;                  /* mark: DRAM commands by bank; v = row */
  size_t *row_off;
  vec dram_bytes, xbar_bytes; /* mark, one group; v = bytes */
  uint64_t *dram_cum, *xbar_cum;
  changeset chg; /* while loading */
  vec changes;   /* uint64 cycles, sorted, unique */
  /* the frame */
  ws_viz_frame f;
  size_t packets_cap;
};

const ws_gpu_cfg *ws_viz_model_cfg(const ws_viz_model *m) { return &m->cfg; }
uint32_t ws_viz_model_launch(const ws_viz_model *m) { return m->launch; }
uint64_t ws_viz_model_cycles(const ws_viz_model *m) { return m->cycles; }
uint64_t ws_viz_model_records(const ws_viz_model *m) { return m->records; }
uint64_t ws_viz_model_skipped(const ws_viz_model *m) { return m->skipped; }

void ws_viz_frame_free(ws_viz_frame *f) {
  free(f->warp);
  free(f->warp_pc);
  free(f->cta_busy);
  free(f->smem_banks);
  free(f->smem_wavefronts);
  free(f->rf_conflict);
  free(f->tensor_busy);
  free(f->l1_lookups);
  free(f->l1_hits);
  free(f->l1_set_touched);
  free(f->l2_lookups);
  free(f->l2_hits);
  free(f->bank_row);
  free(f->bank_busy);
  free(f->packets);
  memset(f, 0, sizeof *f);
}

static void unload(ws_viz_model *m) {
  vec_free(&m->warps);
  vec_free(&m->ctas);
  vec_free(&m->packets);
  vec_free(&m->l1);
  vec_free(&m->l2);
  vec_free(&m->rows);
  vec_free(&m->dram_bytes);
  vec_free(&m->xbar_bytes);
  vec_free(&m->changes);
  changeset_free(&m->chg);
  ivset_free(&m->smem);
  ivset_free(&m->rf);
  ivset_free(&m->tensor);
  ivset_free(&m->xbar);
  ivset_free(&m->dram);
  size_t **offs[] = {&m->warp_off, &m->cta_off, &m->l1_off, &m->l2_off, &m->row_off};
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    free(*offs[i]);
    *offs[i] = NULL;
  }
  free(m->l1_cum);
  free(m->l2_cum);
  free(m->dram_cum);
  free(m->xbar_cum);
  m->l1_cum = m->l2_cum = NULL;
  m->dram_cum = m->xbar_cum = NULL;
  ws_viz_frame_free(&m->f);
  m->packets_cap = 0;
  m->launch = NONE32;
  m->cycles = m->records = m->skipped = 0;
}

ws_status ws_viz_model_create(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model **out) {
  *out = NULL;
  ws_viz_model *m = calloc(1, sizeof *m);
  if (!m) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "viz model: out of memory");
  m->ctx = ctx;
  m->r = r;
  m->launch = NONE32;
  ws_status st = ws_wst_config(r, &m->cfg);
  if (st != WS_OK) {
    free(m);
    return st;
  }
  ws_addrmap_init(&m->amap, &m->cfg);
  m->regions = ws_wst_regions(r, &m->nregions);
  size_t n = 0;
  const char *const *names = ws_wst_names(r, &n);
  m->depbar_state = WS_VIZ_WARP_STALL0 + MAX_REASON; /* names lost: an unnamed reason */
  for (size_t i = 0; i < n && i <= MAX_REASON; i++)
    if (names[i] && strcmp(names[i], "depbar") == 0) m->depbar_state = (uint8_t)(WS_VIZ_WARP_STALL0 + i);
  *out = m;
  return WS_OK;
}

void ws_viz_model_destroy(ws_viz_model *m) {
  if (!m) return;
  unload(m);
  free(m);
}

/* ---- loading: one record into its vectors --------------------------------------- */

static bool add_change(ws_viz_model *m, uint64_t t) { return changeset_add(&m->chg, t, m->records); }

static bool add_mark(vec *v, uint64_t t, uint32_t key, uint32_t val) {
  mark *p = vec_add(v, sizeof *p);
  if (p) *p = (mark){t, key, val};
  return p != NULL;
}

static bool add_wspan(ws_viz_model *m, const ws_probe_event *ev, uint64_t end, uint8_t state, uint32_t pc,
                      bool is_exit) {
  if (end <= ev->begin) return true;
  wspan *p = vec_add(&m->warps, sizeof *p);
  if (!p) return false;
  uint64_t dur = end - ev->begin;
  *p = (wspan){.begin = ev->begin,
               .dur = dur > UINT32_MAX ? UINT32_MAX : (uint32_t)dur,
               .pc = pc,
               .slot = (uint32_t)ev->sm * m->cfg.sm.max_warps_per_sm + ev->warp,
               .state = state,
               .exit = is_exit};
  return true;
}

size_t ws_viz_model_region_count(const ws_viz_model *m) { return m->nregions; }

const ws_runtime_region *ws_viz_model_region(const ws_viz_model *m, uint32_t i) {
  return i < m->nregions ? &m->regions[i] : NULL;
}

/* A binary search for the last range starting at or before addr: the table
 * is sorted and never overlaps, so only that one can hold it. */
uint32_t ws_viz_model_region_at(const ws_viz_model *m, uint64_t addr) {
  size_t lo = 0, hi = m->nregions;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->regions[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || lo > UINT32_MAX) return WS_VIZ_NO_REGION;
  const ws_runtime_region *g = &m->regions[lo - 1];
  return addr - g->addr < g->size_bytes ? (uint32_t)(lo - 1) : WS_VIZ_NO_REGION;
}

ws_viz_tensor ws_viz_tensor_of(ws_runtime_tensor t) {
  return (unsigned)t < WS_RUNTIME_TENSOR_COUNT ? (ws_viz_tensor)(t + 1) : WS_VIZ_TENSOR_NONE;
}

/* Classified once per record at load, so a frame pays nothing for it. */
static bool add_packet(ws_viz_model *m, ivset *s, const ws_probe_event *ev, ws_viz_packet pk, uint32_t a) {
  if (ev->end <= ev->begin) return true;
  if (m->packets.n >= UINT32_MAX) return false;
  uint32_t key = (uint32_t)m->packets.n;
  ws_viz_packet *p = vec_add(&m->packets, sizeof *p);
  if (!p) return false;
  pk.tagged = (ev->flags & WS_PROBE_TAGGED) != 0;
  pk.uop = ev->uop;
  pk.addr = ev->addr;
  pk.region = ws_viz_model_region_at(m, ev->addr);
  pk.tensor = (uint8_t)(pk.region == WS_VIZ_NO_REGION ? WS_VIZ_TENSOR_NONE
                                                      : ws_viz_tensor_of(m->regions[pk.region].tensor));
  pk.begin = ev->begin;
  pk.end = ev->end;
  *p = pk;
  return ivset_add(s, ev->begin, ev->end, key, a, 0);
}

static bool in_sm(const ws_viz_model *m, const ws_probe_event *ev) { return ev->sm < m->cfg.gpu.num_sms; }
static bool in_warp(const ws_viz_model *m, const ws_probe_event *ev) {
  return in_sm(m, ev) && ev->warp < m->cfg.sm.max_warps_per_sm;
}
static bool in_subpart(const ws_viz_model *m, const ws_probe_event *ev) {
  return in_sm(m, ev) && ev->unit < m->cfg.sm.subpartitions;
}

static bool is_tensor(uint32_t op) {
  const ws_opinfo *info = op < WS_OP_COUNT ? ws_isa_opinfo((ws_op)op) : NULL;
  return info && info->unit == WS_UNIT_TENSOR;
}

static uint32_t subpart_key(const ws_viz_model *m, const ws_probe_event *ev) {
  return (uint32_t)ev->sm * m->cfg.sm.subpartitions + ev->unit;
}

/* Appends what the record adds to the timelines; false when out of memory.
 * A record naming a component beyond the config is counted as skipped. */
static bool add_record(ws_viz_model *m, const ws_probe_event *ev) {
  bool ok = add_change(m, ev->begin) && add_change(m, ev->end), skip = false;
  const ws_gpu_cfg *c = &m->cfg;
  switch (ev->kind) {
  case WS_PEV_CTA:
    skip = !in_sm(m, ev);
    if (!skip && ev->end > ev->begin) {
      span *p = vec_add(&m->ctas, sizeof *p);
      ok = ok && p;
      if (p)
        *p = (span){ev->begin, ev->end, ev->sm, ws_probe_cta_slot(ev),
                    0,         0}; /* keyed once ctas_per_sm is known */
    }
    break;
  case WS_PEV_ISSUE:
    skip = !in_warp(m, ev);
    if (skip) break;
    ok = ok && (ev->begin == UINT64_MAX || add_change(m, ev->begin + 1));
    ok = ok && add_wspan(m, ev, ev->begin + 1, WS_VIZ_WARP_ISSUING, ev->pc,
                         ws_probe_issue_opcode(ev) == WS_OP_EXIT);
    if (is_tensor(ws_probe_issue_opcode(ev)) && ev->unit < c->sm.subpartitions)
      ok = ok && ivset_add(&m->tensor, ev->begin, ev->end, subpart_key(m, ev), 0, 0);
    break;
  case WS_PEV_STALL:
  case WS_PEV_DEPBAR: {
    skip = !in_warp(m, ev);
    uint32_t reason = ev->kind == WS_PEV_STALL ? ws_probe_stall_reason(ev) : 0;
    uint8_t st = ev->kind == WS_PEV_DEPBAR
                     ? m->depbar_state
                     : (uint8_t)(WS_VIZ_WARP_STALL0 + (reason < MAX_REASON ? reason : MAX_REASON));
    if (!skip) ok = ok && add_wspan(m, ev, ev->end, st, NONE32, false);
    break;
  }
  case WS_PEV_RF_BANK:
    skip = !in_subpart(m, ev);
    if (!skip)
      ok = ok && ivset_add(&m->rf, ev->begin, ev->end, subpart_key(m, ev), ws_probe_rf_bank_cycles(ev), 0);
    break;
  case WS_PEV_SMEM:
    skip = !in_sm(m, ev);
    if (!skip)
      ok = ok && ivset_add(&m->smem, ev->begin, ev->end, ev->sm, ws_probe_smem_banks(ev),
                           ws_probe_smem_wavefronts(ev));
    break;
  case WS_PEV_L1: {
    skip = !in_sm(m, ev);
    bool load = !(ev->flags & (WS_PROBE_WRITE | WS_PROBE_ATOMIC)) && ev->outcome != WS_PROBE_L1_RESFAIL;
    uint32_t set = ws_probe_l1_set(ev);
    if (set >= c->geom.l1_sets || set >= L1_SET_INVALID) set = L1_SET_INVALID;
    if (!skip && load)
      ok = ok && add_mark(&m->l1, ev->begin, ev->sm, set << 1 | (ev->outcome == WS_PROBE_L1_HIT));
    break;
  }
  case WS_PEV_L2:
    skip = ev->unit >= c->l2.slices;
    if (!skip && ev->outcome != WS_PROBE_L2_WRITTEN)
      ok = ok && add_mark(&m->l2, ev->begin, ev->unit, ev->outcome == WS_PROBE_L2_HIT);
    break;
  case WS_PEV_XBAR: {
    skip = !in_sm(m, ev) || ev->unit >= c->l2.slices;
    if (skip) break;
    uint8_t link = ev->outcome == WS_PROBE_DIR_REQ ? WS_VIZ_LINK_XBAR_REQ : WS_VIZ_LINK_XBAR_RESP;
    ws_viz_packet pk = {.link = link,
                        .sm = ev->sm,
                        .slice = ev->unit,
                        .channel = WS_PROBE_NONE,
                        .bytes = ws_probe_xbar_bytes(ev)};
    ok = ok && add_mark(&m->xbar_bytes, ev->begin, 0, ws_probe_xbar_bytes(ev)) &&
         add_packet(m, &m->xbar, ev, pk, 0);
    break;
  }
  case WS_PEV_DRAM: {
    skip = ev->unit >= c->hbm.channels || ws_probe_dram_bank(ev) >= c->hbm.banks_per_channel;
    if (skip) break;
    uint32_t bank = (uint32_t)ev->unit * c->hbm.banks_per_channel + ws_probe_dram_bank(ev);
    ws_viz_packet pk = {.link = WS_VIZ_LINK_DRAM,
                        .write = (ev->flags & WS_PROBE_WRITE) != 0,
                        .sm = WS_PROBE_NONE,
                        .slice = (uint16_t)ws_addrmap_slice(&m->amap, ev->addr),
                        .channel = ev->unit,
                        .bytes = ws_probe_dram_bytes(ev)};
    ok = ok && add_mark(&m->rows, ev->begin, bank, ws_probe_dram_row(ev)) &&
         add_mark(&m->dram_bytes, ev->begin, 0, ws_probe_dram_bytes(ev)) &&
         add_packet(m, &m->dram, ev, pk, bank);
    break;
  }
  default: break; /* fills, completions, barriers: moments the frame does not show */
  }
  m->skipped += skip;
  return ok;
}

/* ---- loading: sorting and the derived indexes ------------------------------------ */

/* CTA spans keyed by sm x ctas_per_sm + slot, once the slots per SM are known. */
static void key_ctas(ws_viz_model *m) {
  span *e = m->ctas.p;
  size_t kept = 0;
  for (size_t i = 0; i < m->ctas.n; i++) {
    if (e[i].a >= m->ctas_per_sm) {
      m->skipped++;
      continue;
    }
    e[kept] = e[i];
    e[kept++].key = e[i].key * m->ctas_per_sm + e[i].a;
  }
  m->ctas.n = kept;
}

/* The launch's CTA slots per SM and warps per CTA: from its record, or, for
 * a launch whose record was lost, from what the records show. */
static void launch_shape(ws_viz_model *m, const ws_wst_launch_info *li) {
  uint32_t slots = m->cfg.sm.max_warps_per_sm;
  uint64_t ctas = li->ctas_per_sm, threads = (uint64_t)li->block[0] * li->block[1] * li->block[2];
  if (!ctas) {
    const span *e = m->ctas.p;
    for (size_t i = 0; i < m->ctas.n; i++)
      if ((uint64_t)e[i].a + 1 > ctas) ctas = (uint64_t)e[i].a + 1;
  }
  if (!ctas) ctas = 1;
  if (ctas > slots) ctas = slots; /* every CTA holds a warp slot at least */
  m->ctas_per_sm = (uint32_t)ctas;
  uint64_t wpc = (threads + 31) / 32;
  if (!wpc || wpc * ctas > slots) wpc = slots / ctas;
  m->warps_per_cta = wpc ? (uint32_t)wpc : 1;
}

/* Each wait's pc: the pc of the last issue before it in the same CTA
 * residency of its slot (none before the CTA's first issue). */
static void carry_pcs(ws_viz_model *m) {
  wspan *w = m->warps.p;
  const span *c = m->ctas.p;
  uint32_t slots = m->cfg.sm.max_warps_per_sm;
  for (uint32_t s = 0; s < m->cfg.gpu.num_sms * slots; s++) {
    uint32_t cslot = (s % slots) / m->warps_per_cta;
    size_t j = 0, jend = 0, cur = SIZE_MAX;
    if (cslot < m->ctas_per_sm) {
      uint32_t key = (s / slots) * m->ctas_per_sm + cslot;
      j = m->cta_off[key];
      jend = m->cta_off[key + 1];
    }
    uint32_t pc = NONE32;
    for (size_t i = m->warp_off[s]; i < m->warp_off[s + 1]; i++) {
      while (j < jend && c[j].end <= w[i].begin) j++;
      size_t res = j < jend && c[j].begin <= w[i].begin ? j : SIZE_MAX - 1;
      if (res != cur) pc = NONE32;
      cur = res;
      if (w[i].state == WS_VIZ_WARP_ISSUING)
        pc = w[i].pc;
      else
        w[i].pc = pc;
    }
  }
}

/* cum[i]: the hits (v's bit 0) of marks [0, i). */
static bool prefix32(const vec *v, uint32_t **out) {
  const mark *e = v->p;
  uint32_t *cum = malloc((v->n + 1) * sizeof *cum);
  if (!cum) return false;
  cum[0] = 0;
  for (size_t i = 0; i < v->n; i++) cum[i + 1] = cum[i] + (e[i].v & 1);
  *out = cum;
  return true;
}

static bool prefix64(const vec *v, uint64_t burst, uint64_t **out) {
  const mark *e = v->p;
  uint64_t *cum = malloc((v->n + 1) * sizeof *cum);
  if (!cum) return false;
  cum[0] = 0;
  for (size_t i = 0; i < v->n; i++)
    cum[i + 1] = cum[i] + (burst ? ((uint64_t)e[i].v + burst - 1) / burst * burst : e[i].v);
  *out = cum;
  return true;
}

/* The change set as one sorted array without repeats. */
static bool unique_changes(ws_viz_model *m) {
  changeset *c = &m->chg;
  vec *over = &c->over;
  char *tmp = malloc(over->n ? over->n * sizeof(uint64_t) : 1);
  if (!tmp) return false;
  merge_sort(over->p, over->n, sizeof(uint64_t), tmp);
  free(tmp);
  size_t n = over->n;
  for (size_t w = 0; w < c->words; w++) n += (size_t)__builtin_popcountll(c->bits[w]);
  uint64_t *out = malloc(n ? n * sizeof *out : 1), *o = over->p;
  if (!out) return false;
  size_t k = 0, j = 0;
  for (size_t w = 0; w < c->words; w++)
    for (uint64_t bits = c->bits[w]; bits; bits &= bits - 1) {
      uint64_t t = (uint64_t)w * 64 + (uint64_t)__builtin_ctzll(bits);
      for (; j < over->n && o[j] <= t; j++)
        if (!k || o[j] != out[k - 1]) out[k++] = o[j];
      if (!k || t != out[k - 1]) out[k++] = t;
    }
  for (; j < over->n; j++)
    if (!k || o[j] != out[k - 1]) out[k++] = o[j];
  changeset_free(c);
  m->changes = (vec){out, k, n};
  return true;
}

bool ws_viz_frame_alloc(ws_viz_frame *f, const ws_gpu_cfg *c, uint32_t ctas_per_sm, size_t packet_cap) {
  memset(f, 0, sizeof *f);
  f->num_sms = c->gpu.num_sms;
  f->warp_slots = c->sm.max_warps_per_sm;
  f->ctas_per_sm = ctas_per_sm;
  f->subpartitions = c->sm.subpartitions;
  f->num_slices = c->l2.slices;
  f->channels = c->hbm.channels;
  f->banks_per_channel = c->hbm.banks_per_channel;
  size_t sms = f->num_sms, warps = sms * f->warp_slots, sp = sms * f->subpartitions;
  size_t banks = (size_t)f->channels * f->banks_per_channel;
  f->warp = calloc(warps ? warps : 1, 1);
  f->warp_pc = calloc(warps ? warps : 1, sizeof *f->warp_pc);
  f->cta_busy = calloc(sms * ctas_per_sm + 1, 1);
  f->smem_banks = calloc(sms + 1, sizeof(uint32_t));
  f->smem_wavefronts = calloc(sms + 1, sizeof(uint32_t));
  f->rf_conflict = calloc(sp + 1, sizeof(uint32_t));
  f->tensor_busy = calloc(sp + 1, 1);
  f->l1_lookups = calloc(sms + 1, sizeof(uint32_t));
  f->l1_hits = calloc(sms + 1, sizeof(uint32_t));
  f->l1_set_touched = calloc(sms + 1, sizeof(uint32_t));
  f->l2_lookups = calloc(f->num_slices + 1, sizeof(uint32_t));
  f->l2_hits = calloc(f->num_slices + 1, sizeof(uint32_t));
  f->bank_row = calloc(banks + 1, sizeof(uint32_t));
  f->bank_busy = calloc(banks + 1, 1);
  f->packets = calloc(packet_cap ? packet_cap : 1, sizeof *f->packets);
  f->dram_peak_gbps = (double)c->hbm.channels * c->hbm.channel_mbps / 1000.0;
  f->xbar_peak_gbps = ((double)c->gpu.num_sms * c->noc.sm_port_bytes_per_cycle +
                       (double)c->l2.slices * c->noc.slice_port_bytes_per_cycle) *
                      c->gpu.core_clock_mhz / 1000.0;
  bool ok = f->warp && f->warp_pc && f->cta_busy && f->smem_banks && f->smem_wavefronts && f->rf_conflict &&
            f->tensor_busy && f->l1_lookups && f->l1_hits && f->l1_set_touched && f->l2_lookups &&
            f->l2_hits && f->bank_row && f->bank_busy && f->packets;
  if (!ok) ws_viz_frame_free(f);
  return ok;
}

static bool alloc_frame(ws_viz_model *m) {
  m->packets_cap = 256; /* grows in frames; never NULL, even when a frame has none */
  return ws_viz_frame_alloc(&m->f, &m->cfg, m->ctas_per_sm, m->packets_cap);
}

static bool build(ws_viz_model *m) {
  const ws_gpu_cfg *c = &m->cfg;
  uint32_t nslots = c->gpu.num_sms * c->sm.max_warps_per_sm;
  key_ctas(m);
  if (!group_sort(&m->ctas, sizeof(span), offsetof(span, key), c->gpu.num_sms * m->ctas_per_sm,
                  &m->cta_off) ||
      !group_sort(&m->warps, sizeof(wspan), offsetof(wspan, slot), nslots, &m->warp_off))
    return false;
  carry_pcs(m);
  if (!ivset_build(&m->smem) || !ivset_build(&m->rf) || !ivset_build(&m->tensor) || !ivset_build(&m->xbar) ||
      !ivset_build(&m->dram))
    return false;
  if (!group_sort(&m->l1, sizeof(mark), offsetof(mark, key), c->gpu.num_sms, &m->l1_off) ||
      !group_sort(&m->l2, sizeof(mark), offsetof(mark, key), c->l2.slices, &m->l2_off) ||
      !group_sort(&m->rows, sizeof(mark), offsetof(mark, key), m->nbanks, &m->row_off))
    return false;
  size_t *o1 = NULL, *o2 = NULL;
  bool ok = group_sort(&m->dram_bytes, sizeof(mark), offsetof(mark, key), 1, &o1) &&
            group_sort(&m->xbar_bytes, sizeof(mark), offsetof(mark, key), 1, &o2);
  free(o1);
  free(o2);
  return ok && prefix32(&m->l1, &m->l1_cum) && prefix32(&m->l2, &m->l2_cum) &&
         prefix64(&m->dram_bytes, c->hbm.burst_bytes, &m->dram_cum) &&
         prefix64(&m->xbar_bytes, 0, &m->xbar_cum) && unique_changes(m) && alloc_frame(m);
}

ws_status ws_viz_model_load(ws_viz_model *m, uint32_t launch) {
  unload(m);
  if (launch >= ws_wst_launch_count(m->r))
    return ws_ctx_fail(m->ctx, WS_ERR_INVALID, "launch %u: the trace holds %zu", launch,
                       ws_wst_launch_count(m->r));
  m->nbanks = m->cfg.hbm.channels * m->cfg.hbm.banks_per_channel;
  ws_wst_cursor *cur = NULL;
  ws_status st = ws_wst_cursor_open_launch(m->r, launch, 0, 0, &cur);
  while (st == WS_OK) {
    ws_probe_event ev;
    uint32_t l;
    bool got = false;
    st = ws_wst_cursor_next(cur, &ev, &l, &got);
    if (st != WS_OK || !got) break;
    m->records++;
    if (ev.end > m->cycles) m->cycles = ev.end;
    if (ev.begin > m->cycles) m->cycles = ev.begin;
    if (!add_record(m, &ev)) st = ws_ctx_fail(m->ctx, WS_ERR_NOMEM, "launch %u: out of memory", launch);
  }
  ws_wst_cursor_close(cur);
  if (st == WS_OK) {
    launch_shape(m, ws_wst_launch(m->r, launch));
    if (!build(m)) st = ws_ctx_fail(m->ctx, WS_ERR_NOMEM, "launch %u: out of memory", launch);
  }
  if (st != WS_OK) {
    unload(m);
    return st;
  }
  m->launch = launch;
  m->f.launch = launch;
  return WS_OK;
}

/* ---- frames ------------------------------------------------------------------------ */

/* The residency of CTA slot key covering t, or NULL. */
static const span *residency(const ws_viz_model *m, uint32_t key, uint64_t t) {
  const span *c = m->ctas.p;
  size_t i = upper(c, sizeof *c, m->cta_off[key], m->cta_off[key + 1], t);
  return i > m->cta_off[key] && c[i - 1].end > t ? &c[i - 1] : NULL;
}

/* A warp slot's state and pc at t. */
static void warp_at(const ws_viz_model *m, uint32_t sm, uint32_t warp, uint64_t t, uint8_t *state,
                    uint32_t *pc) {
  uint32_t s = sm * m->cfg.sm.max_warps_per_sm + warp;
  const wspan *w = m->warps.p;
  size_t lo = m->warp_off[s], hi = m->warp_off[s + 1], i = upper(w, sizeof *w, lo, hi, t);
  if (i > lo && w[i - 1].begin + w[i - 1].dur > t) {
    *state = w[i - 1].state;
    *pc = w[i - 1].pc;
    return;
  }
  uint32_t cslot = warp / m->warps_per_cta;
  const span *res = cslot < m->ctas_per_sm ? residency(m, sm * m->ctas_per_sm + cslot, t) : NULL;
  *state = WS_VIZ_WARP_EMPTY;
  *pc = NONE32;
  if (!res) return;
  bool ran = i > lo && w[i - 1].begin >= res->begin; /* records of this residency before t */
  bool later = i < hi && w[i].begin < res->end;
  *state = ran && !later && w[i - 1].exit ? WS_VIZ_WARP_DONE : WS_VIZ_WARP_UNRECORDED;
  if (ran) *pc = w[i - 1].pc;
}

static void on_smem(void *user, const span *e) {
  ws_viz_frame *f = user;
  f->smem_banks[e->key] |= e->a;
  if (e->b > f->smem_wavefronts[e->key]) f->smem_wavefronts[e->key] = e->b;
}

static void on_rf(void *user, const span *e) {
  ws_viz_frame *f = user;
  f->rf_conflict[e->key] += e->a;
}

static void on_tensor(void *user, const span *e) {
  ws_viz_frame *f = user;
  if (f->tensor_busy[e->key] < 255) f->tensor_busy[e->key]++;
}

typedef struct pk_query {
  ws_viz_model *m;
  bool ok;
} pk_query;

static void on_packet(void *user, const span *e) {
  pk_query *q = user;
  ws_viz_model *m = q->m;
  ws_viz_frame *f = &m->f;
  if (f->npackets == m->packets_cap) {
    size_t cap = m->packets_cap * 2;
    ws_viz_packet *p = realloc(f->packets, cap * sizeof *p);
    if (!p) {
      q->ok = false;
      return;
    }
    f->packets = p;
    m->packets_cap = cap;
  }
  ws_viz_packet *p = &f->packets[f->npackets++];
  *p = ((const ws_viz_packet *)m->packets.p)[e->key];
  p->progress = (float)((double)(f->cycle - p->begin) / (double)(p->end - p->begin));
  if (p->link == WS_VIZ_LINK_DRAM) f->bank_busy[e->a] = 1;
}

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int cmp_packet(const void *pa, const void *pb) {
  const ws_viz_packet *a = pa, *b = pb;
  int c = cmp_u64(a->begin, b->begin);
  if (!c) c = (a->link > b->link) - (a->link < b->link);
  if (!c) c = cmp_u64(a->uop, b->uop);
  if (!c) c = cmp_u64(a->end, b->end);
  if (!c) c = (a->sm > b->sm) - (a->sm < b->sm);
  if (!c) c = (a->slice > b->slice) - (a->slice < b->slice);
  if (!c) c = (a->channel > b->channel) - (a->channel < b->channel);
  if (!c) c = (a->bytes > b->bytes) - (a->bytes < b->bytes);
  return c;
}

/* Marks of group [lo, hi) that began in the window [from, t]. */
static void window(const vec *v, size_t lo, size_t hi, uint64_t from, uint64_t t, size_t *a, size_t *b) {
  *a = from ? upper(v->p, sizeof(mark), lo, hi, from - 1) : lo;
  *b = upper(v->p, sizeof(mark), lo, hi, t);
}

static void frame_caches(ws_viz_model *m, uint64_t t, uint64_t from) {
  ws_viz_frame *f = &m->f;
  uint64_t lookups = 0, hits = 0;
  const mark *l1 = m->l1.p;
  for (uint32_t s = 0; s < f->num_sms; s++) {
    size_t a, b;
    window(&m->l1, m->l1_off[s], m->l1_off[s + 1], from, t, &a, &b);
    f->l1_lookups[s] = (uint32_t)(b - a);
    f->l1_hits[s] = m->l1_cum[b] - m->l1_cum[a];
    uint32_t set = b > a ? l1[b - 1].v >> 1 : L1_SET_INVALID;
    f->l1_set_touched[s] = set == L1_SET_INVALID ? NONE32 : set;
    lookups += b - a;
    hits += f->l1_hits[s];
  }
  f->l1_hit_pct = lookups ? 100.0 * (double)hits / (double)lookups : -1.0;
  lookups = hits = 0;
  for (uint32_t s = 0; s < f->num_slices; s++) {
    size_t a, b;
    window(&m->l2, m->l2_off[s], m->l2_off[s + 1], from, t, &a, &b);
    f->l2_lookups[s] = (uint32_t)(b - a);
    f->l2_hits[s] = m->l2_cum[b] - m->l2_cum[a];
    lookups += b - a;
    hits += f->l2_hits[s];
  }
  f->l2_hit_pct = lookups ? 100.0 * (double)hits / (double)lookups : -1.0;
}

static void frame_rates(ws_viz_model *m, uint64_t t, uint64_t from) {
  ws_viz_frame *f = &m->f;
  /* bytes over (t - from + 1) cycles at core_clock_mhz: bytes x MHz / cycles / 1000 GB/s */
  double scale = (double)m->cfg.gpu.core_clock_mhz / (double)(t - from + 1) / 1000.0;
  size_t a, b;
  window(&m->dram_bytes, 0, m->dram_bytes.n, from, t, &a, &b);
  f->dram_gbps = (double)(m->dram_cum[b] - m->dram_cum[a]) * scale;
  window(&m->xbar_bytes, 0, m->xbar_bytes.n, from, t, &a, &b);
  f->xbar_gbps = (double)(m->xbar_cum[b] - m->xbar_cum[a]) * scale;
}

static void frame_sms(ws_viz_model *m, uint64_t t) {
  ws_viz_frame *f = &m->f;
  f->active_warps = 0;
  for (uint32_t s = 0; s < f->num_sms; s++)
    for (uint32_t w = 0; w < f->warp_slots; w++) {
      size_t i = (size_t)s * f->warp_slots + w;
      warp_at(m, s, w, t, &f->warp[i], &f->warp_pc[i]);
      f->active_warps += f->warp[i] != WS_VIZ_WARP_EMPTY && f->warp[i] != WS_VIZ_WARP_DONE;
    }
  for (uint32_t k = 0; k < f->num_sms * m->ctas_per_sm; k++) f->cta_busy[k] = residency(m, k, t) != NULL;
  size_t sp = (size_t)f->num_sms * f->subpartitions;
  memset(f->smem_banks, 0, f->num_sms * sizeof(uint32_t));
  memset(f->smem_wavefronts, 0, f->num_sms * sizeof(uint32_t));
  memset(f->rf_conflict, 0, sp * sizeof(uint32_t));
  memset(f->tensor_busy, 0, sp);
  ivset_query(&m->smem, t, on_smem, f);
  ivset_query(&m->rf, t, on_rf, f);
  ivset_query(&m->tensor, t, on_tensor, f);
}

static bool frame_memory(ws_viz_model *m, uint64_t t) {
  ws_viz_frame *f = &m->f;
  const mark *rows = m->rows.p;
  for (uint32_t b = 0; b < m->nbanks; b++) {
    size_t lo = m->row_off[b], i = upper(rows, sizeof *rows, lo, m->row_off[b + 1], t);
    f->bank_row[b] = i > lo ? rows[i - 1].v : NONE32;
  }
  memset(f->bank_busy, 0, m->nbanks);
  f->npackets = 0;
  pk_query q = {m, true};
  ivset_query(&m->xbar, t, on_packet, &q);
  ivset_query(&m->dram, t, on_packet, &q);
  if (f->npackets > 1) qsort(f->packets, f->npackets, sizeof *f->packets, cmp_packet);
  return q.ok;
}

ws_status ws_viz_model_frame(ws_viz_model *m, uint64_t cycle, uint32_t window_cycles,
                             const ws_viz_frame **f) {
  *f = NULL;
  if (m->launch == NONE32) return ws_ctx_fail(m->ctx, WS_ERR_INVALID, "viz model: no launch loaded");
  uint32_t w = window_cycles ? window_cycles : 1;
  uint64_t from = cycle >= w ? cycle - w + 1 : 0;
  m->f.cycle = cycle;
  m->f.window_cycles = w;
  frame_sms(m, cycle);
  frame_caches(m, cycle, from);
  frame_rates(m, cycle, from);
  if (!frame_memory(m, cycle)) return ws_ctx_fail(m->ctx, WS_ERR_NOMEM, "viz model: out of memory");
  *f = &m->f;
  return WS_OK;
}

/* ---- stepping ---------------------------------------------------------------------- */

uint64_t ws_viz_model_next_change(const ws_viz_model *m, uint64_t cycle) {
  size_t i = upper(m->changes.p, sizeof(uint64_t), 0, m->changes.n, cycle);
  return i < m->changes.n ? ((const uint64_t *)m->changes.p)[i] : UINT64_MAX;
}

uint64_t ws_viz_model_next_issue(const ws_viz_model *m, uint32_t sm, uint32_t warp, uint64_t cycle) {
  if (m->launch == NONE32 || sm >= m->cfg.gpu.num_sms || warp >= m->cfg.sm.max_warps_per_sm)
    return UINT64_MAX;
  uint32_t s = sm * m->cfg.sm.max_warps_per_sm + warp;
  const wspan *w = m->warps.p;
  for (size_t i = upper(w, sizeof *w, m->warp_off[s], m->warp_off[s + 1], cycle); i < m->warp_off[s + 1]; i++)
    if (w[i].state == WS_VIZ_WARP_ISSUING) return w[i].begin;
  return UINT64_MAX;
}

static size_t vec_bytes(const vec *v, size_t elsize) { return v->cap * elsize; }
static size_t groups_bytes(const size_t *off, size_t nkeys) { return off ? (nkeys + 2) * sizeof(size_t) : 0; }

size_t ws_viz_model_bytes(const ws_viz_model *m) {
  size_t bytes = sizeof *m, sp = sizeof(span), mk = sizeof(mark);
  bytes += vec_bytes(&m->warps, sizeof(wspan)) + vec_bytes(&m->ctas, sp) + vec_bytes(&m->l1, mk) +
           vec_bytes(&m->l2, mk) + vec_bytes(&m->rows, mk) + vec_bytes(&m->dram_bytes, mk) +
           vec_bytes(&m->xbar_bytes, mk) + vec_bytes(&m->changes, sizeof(uint64_t)) +
           vec_bytes(&m->packets, sizeof(ws_viz_packet));
  const ivset *sets[] = {&m->smem, &m->rf, &m->tensor, &m->xbar, &m->dram};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
    bytes += vec_bytes(&sets[i]->v, sp) + groups_bytes(sets[i]->off, NCLASS);
  if (m->launch == NONE32) return bytes;
  const ws_viz_frame *f = &m->f;
  size_t sms = f->num_sms, subparts = sms * f->subpartitions, warps = sms * f->warp_slots;
  bytes += groups_bytes(m->warp_off, warps) + groups_bytes(m->cta_off, sms * m->ctas_per_sm) +
           groups_bytes(m->l1_off, sms) + groups_bytes(m->l2_off, f->num_slices) +
           groups_bytes(m->row_off, m->nbanks);
  bytes +=
      (m->l1.n + m->l2.n + 2) * sizeof(uint32_t) + (m->dram_bytes.n + m->xbar_bytes.n + 2) * sizeof(uint64_t);
  /* the frame: states and pcs, CTA slots, per SM, per sub-partition, per slice, per bank, packets */
  bytes += warps * 5 + sms * m->ctas_per_sm + sms * 5 * sizeof(uint32_t) + subparts * 5 +
           f->num_slices * 2 * sizeof(uint32_t) + m->nbanks * 5 + m->packets_cap * sizeof(ws_viz_packet);
  return bytes;
}
