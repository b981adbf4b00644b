/* l2.c - L2 slices: hashing, lookup, MSHRs, write-back, atomics.
 *
 * Design choices, each documented in docs/memory.md:
 *  - Slice hash: the digit sum of the line number in base `slices`, mod
 *    slices. Consecutive lines go to consecutive slices, and any stride that
 *    is a power of the slice count (the strides that camp on one slice under
 *    plain modulo) rotates over all slices. It is a bijection together with
 *    line / slices, which is therefore the set key inside the slice.
 *  - Write-back, write-allocate without fetch: a store marks its sectors
 *    valid and dirty. Partial-sector stores are treated as byte-masked
 *    writes whose merge with DRAM data at eviction is not timed (no fetch).
 *  - A miss reserves (pins) its way at once; the victim's dirty sectors go
 *    to DRAM through a write-back buffer of mshr_entries_per_slice slots.
 *  - Atomics are performed at the slice: a hit takes a second pipeline pass
 *    (2 x hit_lat_cycles, and twice the slice occupancy); a missing atomic
 *    fetches its sectors like a load and takes its one extra pass
 *    (hit_lat_cycles) when they arrive. Atomic sectors become dirty.
 *  - Read misses forward the data to their waiters as it arrives. */
#include "sim/memsys/l2.h"
#include "sim/memsys/addrmap.h"

#include <stdlib.h>
#include <string.h>

#include "sim/memsys/cache.h"
#include "sim/memsys/xbar.h"

#define NO_ID UINT32_MAX

typedef struct mshr {
  uint64_t line;
  uint8_t requested, arrived;
  uint32_t head, tail; /* waiter ids chained through ws_l2.next */
} mshr;

typedef struct slice_stats {
  uint64_t reads, writes, atomics;
  uint64_t sector_hits, sector_misses, line_hits, line_misses;
  uint64_t mshr_merges, mshr_stalls, wb_stalls, dram_queue_stalls;
  uint64_t evictions, writebacks, busy_cycles;
  uint64_t end_writebacks;
} slice_stats;

typedef struct slice {
  ws_cache tags;
  mshr *mshrs;
  uint32_t *free_stack, nfree;
  uint32_t *fifo, fifo_head, fifo_count; /* ring of queue_depth ids */
  uint64_t free_cycle;
  uint32_t wb_used;
  bool stalled;
  slice_stats st;
} slice;

/* a power of two: the memo's index is the top bits of a multiplicative hash,
 * since lines in use often lie a power of two apart (a column of a matrix) */
#define WS_L2_HASH_MEMO_BITS 13
#define WS_L2_HASH_MEMO (1u << WS_L2_HASH_MEMO_BITS)
#define WS_L2_WARM_SEEN 8

/* A warming of the last few, recorded with where it left its line. */
typedef struct warm_seen {
  uint64_t line, stamp; /* the way's stamp after the warming */
  const slice *sl;
  const ws_cache_way *way, *set;
} warm_seen;
_Static_assert(WS_CFG_MAX_L2_SLICES - 1u <= UINT16_MAX, "the hash memo keeps slice numbers in 16 bits");

struct ws_l2 {
  ws_cfg_l2 cfg;
  uint32_t line_shift; /* geom.line_shift: line numbers are shifts, not divisions */
  ws_addrmap map;
  uint32_t fifo_cap, max_ids;
  slice *s;
  uint32_t *next; /* per id: next waiter on the same MSHR */
  uint8_t *wkind; /* per id: access kind of the waiter */
  uint8_t *wneed; /* per id: sectors it still waits for */
  uint8_t *wmask; /* per id: every sector it accesses (an atomic dirties them) */
  /* direct-mapped memo of the slice hash: the digit sum costs a division per
   * base-`slices` digit, and the lines in use repeat far more often than the
   * memo's size turns over */
  uint64_t hash_key[WS_L2_HASH_MEMO]; /* line index + 1; 0: empty */
  uint16_t hash_slice[WS_L2_HASH_MEMO];
  /* the last warmings that touched a way, newest at seen_head - 1 (a ring) */
  warm_seen seen[WS_L2_WARM_SEEN];
  uint32_t seen_head;
};

static ws_status register_slice(ws_l2 *l2, ws_ctx *ctx, ws_stats *s, uint32_t i) {
  slice_stats *t = &l2->s[i].st;
  const ws_stat_def defs[] = {
      {&t->reads, "reads", "read requests (loads and async copies) looked up"},
      {&t->writes, "writes", "write requests (stores, L1 write-backs) absorbed"},
      {&t->atomics, "atomics", "atomic requests performed"},
      {&t->sector_hits, "sector_hits", "read/atomic sectors found valid"},
      {&t->sector_misses, "sector_misses", "read/atomic sectors missing"},
      {&t->line_hits, "line_hits", "read/atomic requests with every sector valid"},
      {&t->line_misses, "line_misses", "read/atomic requests missing a sector"},
      {&t->mshr_merges, "mshr_merges", "misses merged into an in-flight MSHR"},
      {&t->mshr_stalls, "mshr_stalls", "lookups stalled: every MSHR busy or set pinned"},
      {&t->wb_stalls, "wb_stalls", "lookups stalled: write-back buffer full"},
      {&t->dram_queue_stalls, "dram_queue_stalls", "DRAM requests that waited for a controller slot"},
      {&t->evictions, "evictions", "valid lines replaced"},
      {&t->writebacks, "writebacks", "dirty victims written to DRAM"},
      {&t->end_writebacks, "end_writebacks",
       "dirty lines written back after the launch's last cycle, the L2 emptied for the next one (untimed)"},
      {&t->busy_cycles, "busy_cycles", "cycles the slice pipeline was occupied"},
  };
  ws_status st = ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "l2.slice%u.", i);
  if (st == WS_OK) { /* a sampled launch's warming counts these itself (ws_l2_warm) */
    ws_stats_mark_counted_in_loop_gaps(s, &t->evictions);
    ws_stats_mark_counted_in_loop_gaps(s, &t->writebacks);
  }
  return st;
}

uint64_t ws_l2_state_bytes(const ws_gpu_cfg *cfg, uint32_t max_ids) {
  uint64_t per_slice = sizeof(slice) + ws_cache_state_bytes(cfg->geom.l2_sets_per_slice, cfg->l2.assoc) +
                       (uint64_t)cfg->l2.mshr_entries_per_slice * (sizeof(mshr) + sizeof(uint32_t)) +
                       (uint64_t)cfg->noc.queue_depth * sizeof(uint32_t);
  return sizeof(ws_l2) + per_slice * cfg->l2.slices + (uint64_t)max_ids * (sizeof(uint32_t) + 3);
}

static ws_status init_slice(ws_l2 *l2, ws_ctx *ctx, slice *sl, uint32_t sets) {
  ws_status st = ws_cache_init(&sl->tags, ctx, sets, l2->cfg.assoc, NULL, "l2 slice");
  if (st != WS_OK) return st;
  uint32_t n = l2->cfg.mshr_entries_per_slice;
  sl->mshrs = calloc(n, sizeof *sl->mshrs);
  sl->free_stack = calloc(n, sizeof *sl->free_stack);
  sl->fifo = calloc(l2->fifo_cap, sizeof *sl->fifo);
  if (!sl->mshrs || !sl->free_stack || !sl->fifo) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "l2: out of memory");
  return WS_OK;
}

ws_status ws_l2_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, uint32_t max_ids, ws_l2 **out) {
  *out = NULL;
  ws_l2 *l2 = calloc(1, sizeof *l2);
  if (!l2) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "l2: out of memory");
  l2->cfg = cfg->l2;
  l2->line_shift = cfg->geom.line_shift;
  ws_addrmap_init(&l2->map, cfg);
  l2->fifo_cap = cfg->noc.queue_depth;
  l2->max_ids = max_ids;
  l2->s = calloc(l2->cfg.slices, sizeof *l2->s);
  l2->next = calloc(max_ids, sizeof *l2->next);
  l2->wkind = calloc(max_ids, 1);
  l2->wneed = calloc(max_ids, 1);
  l2->wmask = calloc(max_ids, 1);
  ws_status st = WS_OK;
  if (!l2->s || !l2->next || !l2->wkind || !l2->wneed || !l2->wmask)
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "l2: out of memory");
  for (uint32_t i = 0; st == WS_OK && i < l2->cfg.slices; i++)
    st = init_slice(l2, ctx, &l2->s[i], cfg->geom.l2_sets_per_slice);
  for (uint32_t i = 0; st == WS_OK && i < l2->cfg.slices; i++) st = register_slice(l2, ctx, stats, i);
  if (st != WS_OK) {
    ws_l2_destroy(l2);
    return st;
  }
  ws_l2_reset(l2);
  *out = l2;
  return WS_OK;
}

void ws_l2_destroy(ws_l2 *l2) {
  if (!l2) return;
  for (uint32_t i = 0; l2->s && i < l2->cfg.slices; i++) {
    free(l2->s[i].fifo);
    free(l2->s[i].free_stack);
    free(l2->s[i].mshrs);
    ws_cache_fini(&l2->s[i].tags);
  }
  free(l2->wmask);
  free(l2->wneed);
  free(l2->wkind);
  free(l2->next);
  free(l2->s);
  free(l2);
}

void ws_l2_reset(ws_l2 *l2) {
  for (uint32_t i = 0; i < l2->cfg.slices; i++) ws_cache_clear(&l2->s[i].tags);
  memset(l2->seen, 0, sizeof l2->seen); /* the stamps start again */
  ws_l2_reset_timing(l2);
}

void ws_l2_write_back(ws_l2 *l2, ws_l2_dirty_fn emit, void *user) {
  for (uint32_t i = 0; i < l2->cfg.slices; i++) {
    slice *sl = &l2->s[i];
    ws_cache *c = &sl->tags;
    if (c->clean) continue; /* nothing installed since the last clear */
    for (size_t w = 0; w < (size_t)c->sets * c->assoc; w++) {
      ws_cache_way *way = &c->ways[w];
      uint8_t dirty = way->valid & way->dirty;
      if (!dirty || way->pending) continue;
      sl->st.end_writebacks++;
      way->dirty = 0;
      emit(user, way->tag << l2->line_shift, dirty);
    }
  }
}

void ws_l2_reset_timing(ws_l2 *l2) {
  for (uint32_t i = 0; i < l2->cfg.slices; i++) {
    slice *sl = &l2->s[i];
    sl->nfree = l2->cfg.mshr_entries_per_slice;
    for (uint32_t k = 0; k < sl->nfree; k++) sl->free_stack[k] = sl->nfree - 1 - k;
    sl->fifo_head = sl->fifo_count = 0;
    sl->free_cycle = 0;
    sl->wb_used = 0;
    sl->stalled = false;
  }
}

uint32_t ws_l2_slice_of(ws_l2 *l2, uint64_t line_addr) {
  if (l2->cfg.slices < 2) return 0;
  uint64_t x = line_addr >> l2->line_shift;
  uint32_t i = (uint32_t)((x * 0x9E3779B97F4A7C15u) >> (64 - WS_L2_HASH_MEMO_BITS));
  if (l2->hash_key[i] != x + 1) {
    l2->hash_key[i] = x + 1;
    l2->hash_slice[i] = (uint16_t)ws_addrmap_slice(&l2->map, line_addr);
  }
  return l2->hash_slice[i];
}

void ws_l2_push(ws_l2 *l2, uint32_t s, uint32_t id) {
  slice *sl = &l2->s[s];
  sl->fifo[(sl->fifo_head + sl->fifo_count++) % l2->fifo_cap] = id;
}

bool ws_l2_head(const ws_l2 *l2, uint32_t s, uint32_t *id) {
  const slice *sl = &l2->s[s];
  if (!sl->fifo_count) return false;
  *id = sl->fifo[sl->fifo_head];
  return true;
}

void ws_l2_pop(ws_l2 *l2, uint32_t s) {
  slice *sl = &l2->s[s];
  sl->fifo_head = (sl->fifo_head + 1) % l2->fifo_cap;
  sl->fifo_count--;
}

uint64_t ws_l2_free_cycle(const ws_l2 *l2, uint32_t s) { return l2->s[s].free_cycle; }

void ws_l2_occupy(ws_l2 *l2, uint32_t s, uint32_t bytes, bool atomic, uint64_t now) {
  uint64_t beats = ws_xbar_beats(bytes, l2->cfg.slice_bytes_per_cycle) * (atomic ? 2u : 1u);
  l2->s[s].free_cycle = now + beats;
  l2->s[s].st.busy_cycles += beats;
}

void ws_l2_wb_release(ws_l2 *l2, uint32_t s) {
  if (l2->s[s].wb_used) l2->s[s].wb_used--;
  l2->s[s].stalled = false;
}

void ws_l2_count_dram_stall(ws_l2 *l2, uint32_t s) { l2->s[s].st.dram_queue_stalls++; }

bool ws_l2_stalled(const ws_l2 *l2, uint32_t s) { return l2->s[s].stalled; }

static uint64_t set_key(const ws_l2 *l2, uint64_t line) { return (line >> l2->line_shift) / l2->cfg.slices; }

static ws_cache_way *find(ws_l2 *l2, slice *sl, uint64_t line) {
  return ws_cache_find(&sl->tags, set_key(l2, line), line >> l2->line_shift);
}

void ws_l2_where(ws_l2 *l2, uint32_t s, uint64_t line, uint32_t *set, uint32_t *way) {
  ws_cache_where(&l2->s[s].tags, set_key(l2, line), line >> l2->line_shift, set, way);
}

bool ws_l2_is_far(const ws_l2 *l2, uint32_t sm, uint32_t s) {
  return ws_addrmap_slice_partition(&l2->map, s) != ws_addrmap_sm_partition(&l2->map, sm);
}

/* A way for `line` with its victim evicted; NULL (and a stall) when the set
 * is fully pinned or the victim is dirty and the write-back buffer full. */
static ws_cache_way *allocate(ws_l2 *l2, slice *sl, uint64_t line, ws_l2_result *r) {
  ws_cache_way *v = ws_cache_victim(&sl->tags, set_key(l2, line));
  if (!v) {
    sl->st.mshr_stalls++;
    return NULL;
  }
  uint8_t dirty = v->valid & v->dirty;
  if (dirty && sl->wb_used >= l2->cfg.mshr_entries_per_slice) {
    sl->st.wb_stalls++;
    return NULL;
  }
  if (v->valid) sl->st.evictions++;
  if (dirty) {
    r->writeback = true;
    r->wb_line = v->tag << l2->line_shift;
    r->wb_mask = dirty;
    sl->wb_used++;
    sl->st.writebacks++;
  }
  ws_cache_install(&sl->tags, v, line >> l2->line_shift);
  return v;
}

static void add_waiter(ws_l2 *l2, mshr *m, uint32_t id, ws_access_kind kind, uint8_t mask, uint8_t need) {
  l2->next[id] = NO_ID;
  l2->wmask[id] = mask;
  l2->wkind[id] = (uint8_t)kind;
  l2->wneed[id] = need;
  if (m->head == NO_ID)
    m->head = id;
  else
    l2->next[m->tail] = id;
  m->tail = id;
}

static void lookup_write(ws_l2 *l2, slice *sl, uint64_t line, uint8_t mask, ws_l2_result *r) {
  ws_cache_way *w = find(l2, sl, line);
  if (!w && !(w = allocate(l2, sl, line, r))) return;
  ws_cache_touch(&sl->tags, w);
  w->valid |= mask;
  w->dirty |= mask;
  sl->st.writes++;
  r->outcome = WS_L2_WRITTEN;
}

static void count_read(slice *sl, ws_access_kind kind, uint8_t mask, uint8_t miss) {
  if (kind == WS_ACCESS_ATOMIC)
    sl->st.atomics++;
  else
    sl->st.reads++;
  sl->st.sector_hits += ws_access_sectors(mask & (uint8_t)~miss);
  sl->st.sector_misses += ws_access_sectors(miss);
  if (miss)
    sl->st.line_misses++;
  else
    sl->st.line_hits++;
}

static void new_mshr(slice *sl, ws_cache_way *w, uint64_t line, uint8_t miss) {
  uint32_t idx = sl->free_stack[--sl->nfree];
  sl->mshrs[idx] = (mshr){line, miss, 0, NO_ID, NO_ID};
  w->pending = 1;
  w->mshr = idx;
}

static void lookup_read(ws_l2 *l2, slice *sl, uint32_t id, uint64_t line, uint8_t mask, ws_access_kind kind,
                        uint64_t now, ws_l2_result *r) {
  ws_cache_way *w = find(l2, sl, line);
  uint8_t miss = mask & (uint8_t) ~(w ? w->valid : 0);
  bool atomic = kind == WS_ACCESS_ATOMIC;
  if (!miss) {
    r->outcome = WS_L2_HIT;
    r->ready_cycle = now + l2->cfg.hit_lat_cycles * (atomic ? 2u : 1u);
    if (atomic) w->dirty |= mask;
  } else if (w && w->pending) {
    mshr *m = &sl->mshrs[w->mshr];
    r->outcome = WS_L2_MISS;
    r->fetch_mask = miss & (uint8_t)~m->requested;
    m->requested |= r->fetch_mask;
    add_waiter(l2, m, id, kind, mask, miss);
    sl->st.mshr_merges++;
  } else {
    if (sl->nfree == 0) {
      sl->st.mshr_stalls++;
      return;
    }
    if (!w && !(w = allocate(l2, sl, line, r))) return;
    new_mshr(sl, w, line, miss);
    add_waiter(l2, &sl->mshrs[w->mshr], id, kind, mask, miss);
    r->outcome = WS_L2_MISS;
    r->fetch_mask = miss;
  }
  ws_cache_touch(&sl->tags, w);
  count_read(sl, kind, mask, miss);
}

void ws_l2_lookup(ws_l2 *l2, uint32_t s, uint32_t id, uint64_t line, uint8_t mask, ws_access_kind kind,
                  uint64_t now, ws_l2_result *r) {
  slice *sl = &l2->s[s];
  memset(r, 0, sizeof *r);
  r->outcome = WS_L2_STALL;
  if (kind == WS_ACCESS_STORE)
    lookup_write(l2, sl, line, mask, r);
  else
    lookup_read(l2, sl, id, line, mask, kind, now, r);
  sl->stalled = r->outcome == WS_L2_STALL;
}

uint32_t ws_l2_fill(ws_l2 *l2, uint32_t s, uint64_t line, uint8_t mask, uint64_t now, ws_l2_done *out) {
  slice *sl = &l2->s[s];
  ws_cache_way *w = find(l2, sl, line);
  if (!w || !w->pending) return 0;
  mshr *m = &sl->mshrs[w->mshr];
  w->valid |= mask;
  m->arrived |= mask;
  uint32_t n = 0, prev = NO_ID;
  for (uint32_t id = m->head, nx; id != NO_ID; id = nx) {
    nx = l2->next[id];
    l2->wneed[id] &= (uint8_t)~mask;
    if (l2->wneed[id]) {
      prev = id;
      continue;
    }
    bool atomic = l2->wkind[id] == WS_ACCESS_ATOMIC;
    if (atomic) w->dirty |= l2->wmask[id];
    out[n++] = (ws_l2_done){id, now + (atomic ? l2->cfg.hit_lat_cycles : 0)};
    if (prev == NO_ID)
      m->head = nx;
    else
      l2->next[prev] = nx;
    if (m->tail == id) m->tail = prev;
  }
  if ((m->arrived & m->requested) == m->requested) {
    w->pending = 0;
    sl->free_stack[sl->nfree++] = w->mshr;
    sl->stalled = false;
  }
  return n;
}

/* A way for `line` displacing the LRU victim, its dirty sectors into *out. */
static ws_cache_way *warm_install(ws_l2 *l2, slice *sl, uint64_t line, ws_l2_warmed *out) {
  ws_cache_way *v = ws_cache_victim(&sl->tags, set_key(l2, line));
  if (!v) return NULL;
  uint8_t dirty = v->valid & v->dirty;
  if (v->valid) sl->st.evictions++;
  if (dirty) sl->st.writebacks++;
  if (dirty) out->wb_mask = dirty, out->wb_line = v->tag << l2->line_shift;
  ws_cache_install(&sl->tags, v, line >> l2->line_shift);
  return v;
}

/* Whether a recent warming's way still holds `line` as the last use of its
 * set: untouched since, and every use of its slice since was one of the
 * newer warmings, each in another set (LRU stamps count every use, timed
 * ones too). Touching it again would leave the replacement order as is. */
static bool seen_is_latest(const ws_l2 *l2, uint32_t k, uint64_t line) {
  const warm_seen *s = &l2->seen[k];
  const ws_cache_way *w = s->way;
  if (!w || s->line != line || w->stamp != s->stamp || w->tag != line >> l2->line_shift ||
      !(w->valid || w->pending))
    return false;
  uint64_t newer = 0;
  for (uint32_t j = (k + 1) % WS_L2_WARM_SEEN; j != l2->seen_head; j = (j + 1) % WS_L2_WARM_SEEN) {
    if (l2->seen[j].sl != s->sl) continue;
    if (l2->seen[j].set == s->set) return false;
    newer++;
  }
  return s->stamp + newer == s->sl->tags.clock;
}

/* A warming that would change nothing: a recent one's line, still the last
 * use of its set, its read sectors valid and written ones dirty (or its
 * fill in flight, which a warming only touches). Told without the slice
 * hash or the tag search: a warp's line of A between its lines of B. */
static bool warm_repeats(const ws_l2 *l2, uint64_t line, uint8_t mask, bool write) {
  for (uint32_t k = 0; k < WS_L2_WARM_SEEN; k++) {
    if (!seen_is_latest(l2, k, line)) continue;
    const ws_cache_way *w = l2->seen[k].way;
    return w->pending || (!(mask & ~w->valid) && (!write || !(mask & ~w->dirty)));
  }
  return false;
}

static void warm_remember(ws_l2 *l2, uint64_t line, const slice *sl, const ws_cache_way *w) {
  l2->seen[l2->seen_head] = (warm_seen){line, w->stamp, sl, w, ws_cache_set_of(&sl->tags, w)};
  l2->seen_head = (l2->seen_head + 1) % WS_L2_WARM_SEEN;
}

ws_l2_warmed ws_l2_warm(ws_l2 *l2, uint64_t line, uint8_t mask, bool write) {
  ws_l2_warmed out = {0, 0, 0};
  if (warm_repeats(l2, line, mask, write)) return out;
  slice *sl = &l2->s[ws_l2_slice_of(l2, line)];
  ws_cache_way *w = find(l2, sl, line);
  /* every way waits for a fill: the read still goes to DRAM, nothing is kept */
  if (!w && !(w = warm_install(l2, sl, line, &out))) {
    if (!write) out.fetch_mask = mask;
    return out;
  }
  ws_cache_touch(&sl->tags, w);
  warm_remember(l2, line, sl, w);
  if (w->pending) return out;
  if (!write) out.fetch_mask = mask & (uint8_t)~w->valid;
  w->valid |= mask;
  if (write) w->dirty |= mask;
  return out;
}
