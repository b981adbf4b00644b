/* l1.c - per-SM L1: tag lookup, MSHR allocation and merging, sector fills,
 * store policies, the return port.
 *
 * Design: every decision is computed before anything is changed, so a
 * rejected access leaves no trace but its stall counter (the LSU will offer
 * it again). MSHRs are a fixed table with a free stack; the requests
 * waiting on them (at most l1.mshr_waiters per SM) sit in chunks of three
 * from one pool per SM, chained per MSHR in arrival order, so a line can
 * take a request from every warp (mshr_max_merge) without reserving that
 * many for each MSHR, and a fill chases one link per three of its waiters
 * rather than one per waiter. Allocation (preset
 * l1.allocation): on-miss reserves the missed line's way at once and finds
 * its MSHR through the pinned way in O(assoc); streaming leaves the tags
 * alone until the data arrives, finds a line's MSHR in a small open-address
 * table, and lets the fill take the set's LRU way, so outstanding misses
 * never hold ways and a set cannot refuse a miss. Store policy (preset
 * l1.write_policy): write-through/no-allocate forwards the store to L2 and
 * invalidates the sectors it writes in L1 (the copy would be stale in a real
 * GPU until the L2 write completes; invalidating is the conservative
 * choice); write-back/allocate writes the sectors into L1 (allocating
 * without a fetch, sector granularity) and marks them dirty; a dirty victim
 * is written to L2 through the write buffer. */
#include "sim/memsys/l1.h"

#include <stdlib.h>
#include <string.h>

#include "sim/memsys/cache.h"
#include "sim/memsys/xbar.h"

#define NO_CHUNK UINT32_MAX
#define CHUNK_WAITERS 3u

/* A request waiting on an MSHR. */
typedef struct waiter {
  uint32_t id;
  uint8_t need; /* sectors still to arrive for this request */
  uint8_t mask; /* every sector it reads: all of them cross the return port */
} waiter;

/* Three waiters of one MSHR in arrival order, and its next chunk: half a
 * host cache line (the pool is aligned to one). Every chunk of an MSHR but
 * its last is full, so waiter k of the MSHR is slot k % 3 of its chunk
 * k / 3. Three, not seven to a line: the pool must hold the worst spread
 * (every MSHR's last chunk one waiter full), and the presets' limits on
 * host memory count it (ws_l1_state_bytes). */
typedef struct chunk {
  waiter w[CHUNK_WAITERS];
  uint32_t next; /* the MSHR's next chunk; in the pool, the next free one */
  uint32_t unused;
} chunk;
_Static_assert(sizeof(chunk) == 32, "a chunk is half a host cache line");

typedef struct mshr {
  uint64_t line;
  uint8_t requested, arrived;
  uint32_t nwait;      /* at most mshr_max_merge */
  uint32_t head, tail; /* its chunks, oldest first */
} mshr;

/* The counters a read hit adds to lead, so that they share its second
 * host cache line with the return port. */
typedef struct l1_stats {
  uint64_t by_kind[WS_ACCESS_KIND_COUNT];
  uint64_t sector_hits, line_hits, sector_misses, line_misses;
  uint64_t mshr_merges, mshr_full_stalls, merge_limit_stalls, waiter_stalls, reserve_stalls, wbuf_stalls;
  uint64_t evictions, writebacks;
} l1_stats;

/* What a read hit touches comes first, in two host cache lines (the
 * struct is aligned to one): the tags and the return port's beats per
 * sector count, then the port, the line size and latency and the hit's
 * counters. With every SM's L1 visited in turn, each line of it a hit
 * reads is a miss of the host's caches; spread over the struct they
 * were five. */
struct ws_l1 {
  ws_cache tags;
  uint16_t beats[WS_CFG_MAX_SECTORS_PER_LINE]; /* [n - 1]: return-port beats of n sectors */
  uint64_t port_free_cycle;
  uint32_t line_shift, hit_lat_cycles;
  l1_stats st;
  ws_cfg_l1 cfg;
  mshr *mshrs;
  /* the waiters' pool: ws_config_l1_waiters requests at most (nwaiters,
   * nfree_waiters of them free), in chunks enough for them all however
   * they spread (each MSHR's last chunk may be part full) */
  chunk *chunks;
  uint32_t nchunks, free_chunk; /* the pool's size and free list */
  uint32_t nwaiters, nfree_waiters;
  uint32_t *free_stack, nfree;
  /* streaming: the MSHR of each line in flight, by line number; slot holds
   * the MSHR index + 1 (0: empty), at most half the slots are used */
  uint32_t *by_line, by_line_mask;
  uint32_t wbuf_used, wbuf_cap;
  uint64_t *last_reject; /* the stall counter the last refusal charged */
};
_Static_assert(sizeof(ws_cache) + sizeof(((ws_l1 *)0)->beats) <= 64, "the tags and beats fill one host line");
_Static_assert(WS_CFG_MAX_SECTORS_PER_LINE * 1024u <= UINT16_MAX, "a line's beats fit 16 bits");

/* A refusal: its reason's counter, remembered so that retries known to fail
 * the same way can be counted without being made (ws_l1_count_rejects). */
static void reject(ws_l1 *l1, uint64_t *stall) {
  (*stall)++;
  l1->last_reject = stall;
}

static ws_status register_stats(ws_l1 *l1, ws_ctx *ctx, ws_stats *s, uint32_t sm) {
  l1_stats *t = &l1->st;
  const ws_stat_def defs[] = {
      {&t->by_kind[WS_ACCESS_LOAD], "loads",
       "load line accesses accepted (one per 128-byte line a warp load touches)"},
      {&t->by_kind[WS_ACCESS_STORE], "stores",
       "store line accesses accepted (forwarded to L2, or written in L1 under write-back)"},
      {&t->by_kind[WS_ACCESS_ATOMIC], "atomics",
       "atomic line accesses accepted (passed through to the L2 slice)"},
      {&t->by_kind[WS_ACCESS_ASYNC], "asyncs",
       "LDGSTS line accesses accepted (loads whose data goes to shared memory)"},
      {&t->sector_hits, "sector_hits", "load/async sectors found valid"},
      {&t->sector_misses, "sector_misses", "load/async sectors read from L2"},
      {&t->line_hits, "line_hits", "load/async line accesses with every sector valid"},
      {&t->line_misses, "line_misses", "load/async line accesses missing a sector"},
      {&t->mshr_merges, "mshr_merges", "misses merged into an in-flight MSHR"},
      {&t->mshr_full_stalls, "mshr_full_stalls", "accesses refused: every MSHR busy"},
      {&t->merge_limit_stalls, "merge_limit_stalls",
       "accesses refused: the line's MSHR is at mshr_max_merge"},
      {&t->waiter_stalls, "waiter_stalls",
       "accesses refused: every request slot of the MSHRs is taken (l1.mshr_waiters)"},
      {&t->reserve_stalls, "reserve_stalls",
       "accesses refused: every way of the set awaits a fill (on-miss allocation only)"},
      {&t->wbuf_stalls, "wbuf_stalls", "accesses refused: the write buffer is full"},
      {&t->evictions, "evictions", "valid lines replaced"},
      {&t->writebacks, "writebacks", "dirty victims written to L2"},
  };
  return ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "sm%u.l1.", sm);
}

/* The MSHR lookup table: a power of two at least twice the MSHRs, so
 * linear probing stays short. */
static uint32_t by_line_slots(uint32_t mshrs) {
  uint32_t slots = 2;
  while (slots < 2 * mshrs) slots <<= 1;
  return slots;
}

/* The L1's struct, rounded up to whole host cache lines (aligned_alloc). */
static size_t l1_bytes(void) { return (sizeof(ws_l1) + 63) / 64 * 64; }

/* Chunks for every waiter however they spread: all but each MSHR's last
 * chunk are full, so k MSHRs holding w waiters take at most
 * (w + (CHUNK_WAITERS - 1) k) / CHUNK_WAITERS, and k is at most both the
 * MSHRs and the waiters. */
static uint32_t chunks_for(const ws_gpu_cfg *cfg) {
  uint64_t w = ws_config_l1_waiters(cfg), k = cfg->l1.mshr_entries < w ? cfg->l1.mshr_entries : w;
  return (uint32_t)((w + (CHUNK_WAITERS - 1) * k + CHUNK_WAITERS - 1) / CHUNK_WAITERS);
}

/* The chunk pool's bytes, whole host cache lines (aligned_alloc). */
static size_t chunk_bytes(uint32_t nchunks) { return ((size_t)nchunks * sizeof(chunk) + 63) / 64 * 64; }

uint64_t ws_l1_state_bytes(const ws_gpu_cfg *cfg) {
  uint64_t n = cfg->l1.mshr_entries;
  return l1_bytes() + ws_cache_state_bytes(cfg->geom.l1_sets, cfg->l1.assoc) +
         n * (sizeof(mshr) + sizeof(uint32_t)) + chunk_bytes(chunks_for(cfg)) +
         (uint64_t)by_line_slots((uint32_t)n) * sizeof(uint32_t);
}

static ws_status alloc_mshrs(ws_l1 *l1, ws_ctx *ctx) {
  uint32_t n = l1->cfg.mshr_entries;
  l1->mshrs = calloc(n, sizeof *l1->mshrs);
  l1->chunks = aligned_alloc(64, chunk_bytes(l1->nchunks));
  l1->free_stack = calloc(n, sizeof *l1->free_stack);
  uint32_t slots = by_line_slots(n);
  l1->by_line = calloc(slots, sizeof *l1->by_line);
  l1->by_line_mask = slots - 1;
  if (!l1->mshrs || !l1->chunks || !l1->free_stack || !l1->by_line)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "l1: out of memory for %u MSHRs", n);
  return WS_OK;
}

ws_status ws_l1_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t sm, ws_stats *stats, ws_l1 **out) {
  *out = NULL;
  const ws_cfg_l1 *c = &cfg->l1;
  ws_l1 *l1 = aligned_alloc(64, l1_bytes());
  if (!l1) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "l1: out of memory");
  memset(l1, 0, sizeof *l1);
  l1->cfg = *c;
  l1->line_shift = cfg->geom.line_shift;
  l1->hit_lat_cycles = c->hit_lat_cycles;
  for (uint32_t n = 1; n <= WS_CFG_MAX_SECTORS_PER_LINE; n++)
    l1->beats[n - 1] = (uint16_t)ws_xbar_beats((uint64_t)n * c->sector_bytes, c->port_bytes_per_cycle);
  l1->wbuf_cap = c->mshr_entries;
  l1->nwaiters = ws_config_l1_waiters(cfg);
  l1->nchunks = chunks_for(cfg);
  ws_status st = ws_cache_init(&l1->tags, ctx, cfg->geom.l1_sets, c->assoc, NULL, "l1");
  if (st == WS_OK) st = alloc_mshrs(l1, ctx);
  if (st == WS_OK) st = register_stats(l1, ctx, stats, sm);
  if (st != WS_OK) {
    ws_l1_destroy(l1);
    return st;
  }
  ws_l1_reset(l1);
  *out = l1;
  return WS_OK;
}

void ws_l1_destroy(ws_l1 *l1) {
  if (!l1) return;
  free(l1->by_line);
  free(l1->free_stack);
  free(l1->chunks);
  free(l1->mshrs);
  ws_cache_fini(&l1->tags);
  free(l1);
}

void ws_l1_reset(ws_l1 *l1) {
  ws_cache_clear(&l1->tags);
  l1->nfree = l1->cfg.mshr_entries;
  for (uint32_t i = 0; i < l1->nfree; i++) l1->free_stack[i] = l1->nfree - 1 - i;
  for (uint32_t i = 0; i < l1->nchunks; i++)
    l1->chunks[i] = (chunk){.next = i + 1 < l1->nchunks ? i + 1 : NO_CHUNK};
  l1->free_chunk = 0;
  l1->nfree_waiters = l1->nwaiters;
  memset(l1->by_line, 0, ((size_t)l1->by_line_mask + 1) * sizeof *l1->by_line);
  l1->wbuf_used = 0;
  l1->port_free_cycle = 0;
  l1->last_reject = NULL;
}

uint64_t ws_l1_deliver(ws_l1 *l1, uint8_t mask, uint64_t ready_cycle) {
  uint32_t n = ws_access_sectors(mask); /* no sector: one beat, as ws_xbar_beats gives */
  uint64_t beats = n ? l1->beats[n - 1] : 1;
  uint64_t start = ready_cycle > l1->port_free_cycle ? ready_cycle : l1->port_free_cycle;
  l1->port_free_cycle = start + beats;
  return start + beats - 1;
}

void ws_l1_wbuf_release(ws_l1 *l1) {
  if (l1->wbuf_used) l1->wbuf_used--;
}

void ws_l1_count_rejects(ws_l1 *l1, uint64_t n) {
  if (l1->last_reject) *l1->last_reject += n;
}

uint32_t ws_l1_mshrs_used(const ws_l1 *l1) { return l1->cfg.mshr_entries - l1->nfree; }

static uint64_t line_no(const ws_l1 *l1, uint64_t line) { return line >> l1->line_shift; }

static ws_cache_way *find(ws_l1 *l1, uint64_t line) {
  uint64_t n = line_no(l1, line);
  return ws_cache_find(&l1->tags, n, n);
}

/* ---- streaming: MSHRs by line (linear probing, Fibonacci hashing) ---- */

static uint32_t home_slot(const ws_l1 *l1, uint64_t line) {
  return (uint32_t)((line_no(l1, line) * 0x9E3779B97F4A7C15ull) >> 32) & l1->by_line_mask;
}

/* The slot holding `line`'s MSHR, or the empty slot where it would go. */
static uint32_t slot_of(const ws_l1 *l1, uint64_t line) {
  uint32_t s = home_slot(l1, line);
  while (l1->by_line[s] && l1->mshrs[l1->by_line[s] - 1].line != line) s = (s + 1) & l1->by_line_mask;
  return s;
}

/* Removes slot s, moving later entries of its probe run back so that no
 * lookup meets a hole before its entry (no tombstones to sweep). */
static void slot_erase(ws_l1 *l1, uint32_t s) {
  uint32_t mask = l1->by_line_mask;
  for (uint32_t j = (s + 1) & mask; l1->by_line[j]; j = (j + 1) & mask) {
    uint32_t home = home_slot(l1, l1->mshrs[l1->by_line[j] - 1].line);
    /* j's entry may fill the hole at s unless its home lies in (s, j] */
    if (((j - home) & mask) >= ((j - s) & mask)) {
      l1->by_line[s] = l1->by_line[j];
      s = j;
    }
  }
  l1->by_line[s] = 0;
}

void ws_l1_where(ws_l1 *l1, uint64_t line, uint32_t *set, uint32_t *way) {
  uint64_t n = line_no(l1, line);
  ws_cache_where(&l1->tags, n, n, set, way);
}

/* A way for `line`, evicting the victim (its dirty sectors go to r's
 * writeback). NULL when the set is fully pinned or a needed write-buffer
 * slot is missing; then nothing has changed. */
static ws_cache_way *allocate(ws_l1 *l1, uint64_t line, ws_l1_result *r, uint32_t wbuf_extra) {
  uint64_t n = line_no(l1, line);
  ws_cache_way *v = ws_cache_victim(&l1->tags, n);
  if (!v) {
    reject(l1, &l1->st.reserve_stalls);
    return NULL;
  }
  bool dirty = v->valid && (v->dirty & v->valid);
  if (dirty && l1->wbuf_used + wbuf_extra + 1 > l1->wbuf_cap) {
    reject(l1, &l1->st.wbuf_stalls);
    return NULL;
  }
  if (v->valid) l1->st.evictions++;
  if (dirty) {
    r->writeback = true;
    r->wb_line = v->tag << l1->line_shift;
    r->wb_mask = v->dirty & v->valid;
    l1->wbuf_used++;
    l1->st.writebacks++;
  }
  ws_cache_install(&l1->tags, v, n);
  return v;
}

/* A read that missed a sector of `mask` (miss, not 0) and was accepted. */
static void count_read_miss(ws_l1 *l1, uint8_t mask, uint8_t miss) {
  l1->st.sector_hits += ws_access_sectors(mask & (uint8_t)~miss);
  l1->st.sector_misses += ws_access_sectors(miss);
  l1->st.line_misses++;
}

/* Queues request `id` on m, from the pool (the caller checked it has a
 * waiter free; then a chunk is free too, chunks_for). */
static void add_waiter(ws_l1 *l1, mshr *m, uint32_t id, uint8_t need, uint8_t mask) {
  uint32_t slot = m->nwait % CHUNK_WAITERS;
  if (slot == 0) { /* the last chunk is full, or there is none */
    uint32_t c = l1->free_chunk;
    l1->free_chunk = l1->chunks[c].next;
    l1->chunks[c].next = NO_CHUNK;
    if (m->nwait)
      l1->chunks[m->tail].next = c;
    else
      m->head = c;
    m->tail = c;
  }
  l1->chunks[m->tail].w[slot] = (waiter){.id = id, .need = need, .mask = mask};
  m->nwait++;
  l1->nfree_waiters--;
}

/* Whether a miss may wait on m (NULL: on a new MSHR); refuses it, with its
 * reason counted, when not. */
static bool may_wait(ws_l1 *l1, const mshr *m) {
  if (m && m->nwait >= l1->cfg.mshr_max_merge)
    reject(l1, &l1->st.merge_limit_stalls);
  else if (!m && l1->nfree == 0)
    reject(l1, &l1->st.mshr_full_stalls);
  else if (l1->nfree_waiters == 0)
    reject(l1, &l1->st.waiter_stalls);
  else
    return true;
  return false;
}

/* A sector the MSHR already received but the tags no longer hold (a
 * streaming fill evicted the line, or a store dropped the sector) is asked
 * for again: it will not arrive a second time by itself. */
static void merge_read(ws_l1 *l1, mshr *m, uint8_t mask, uint8_t miss, uint32_t id, ws_l1_result *r) {
  add_waiter(l1, m, id, miss, mask);
  r->send_mask = miss & (uint8_t)(~m->requested | m->arrived);
  m->requested |= r->send_mask;
  m->arrived &= (uint8_t)~r->send_mask;
  r->outcome = r->send_mask ? WS_L1_MISS : WS_L1_MERGED;
  r->merged = true;
  l1->st.mshr_merges++;
}

static uint32_t new_mshr(ws_l1 *l1, uint64_t line, uint8_t mask, uint8_t miss, uint32_t id, ws_l1_result *r) {
  uint32_t idx = l1->free_stack[--l1->nfree];
  mshr *m = &l1->mshrs[idx];
  m->line = line;
  m->requested = miss;
  m->arrived = 0;
  m->nwait = 0;
  add_waiter(l1, m, id, miss, mask);
  r->outcome = WS_L1_MISS;
  r->send_mask = miss;
  return idx;
}

/* A read with every sector present, counted (no sector missed). */
static void hit(ws_l1 *l1, ws_cache_way *w, uint8_t mask, uint64_t now, ws_l1_result *r) {
  ws_cache_touch(&l1->tags, w);
  r->outcome = WS_L1_HIT;
  r->resp_cycle = ws_l1_deliver(l1, mask, now + l1->hit_lat_cycles);
  l1->st.sector_hits += ws_access_sectors(mask);
  l1->st.line_hits++;
}

/* On-miss allocation: the missed line's way is pinned until its fill. */
static void read_on_miss(ws_l1 *l1, const ws_line_access *a, ws_cache_way *w, uint8_t miss, uint32_t id,
                         ws_l1_result *r) {
  if (w && w->pending) {
    mshr *m = &l1->mshrs[w->mshr];
    if (!may_wait(l1, m)) return;
    ws_cache_touch(&l1->tags, w);
    merge_read(l1, m, a->sector_mask, miss, id, r);
    return;
  }
  if (!may_wait(l1, NULL)) return;
  if (!w && !(w = allocate(l1, a->line_addr, r, 0))) return;
  ws_cache_touch(&l1->tags, w);
  w->pending = 1;
  w->mshr = new_mshr(l1, a->line_addr, a->sector_mask, miss, id, r);
}

/* Streaming: the miss takes an MSHR (or joins the line's) and no way. */
static void read_streaming(ws_l1 *l1, const ws_line_access *a, ws_cache_way *w, uint8_t miss, uint32_t id,
                           ws_l1_result *r) {
  uint32_t slot = slot_of(l1, a->line_addr);
  mshr *m = l1->by_line[slot] ? &l1->mshrs[l1->by_line[slot] - 1] : NULL;
  if (!may_wait(l1, m)) return;
  if (m)
    merge_read(l1, m, a->sector_mask, miss, id, r);
  else
    l1->by_line[slot] = new_mshr(l1, a->line_addr, a->sector_mask, miss, id, r) + 1;
  if (w) ws_cache_touch(&l1->tags, w);
}

static void access_read(ws_l1 *l1, const ws_line_access *a, uint32_t id, uint64_t now, ws_l1_result *r) {
  ws_cache_way *w = find(l1, a->line_addr);
  uint8_t miss = a->sector_mask & (uint8_t) ~(w ? w->valid : 0);
  if (!miss) {
    hit(l1, w, a->sector_mask, now, r);
    return;
  }
  if (l1->cfg.allocation == WS_L1_ALLOC_STREAMING)
    read_streaming(l1, a, w, miss, id, r);
  else
    read_on_miss(l1, a, w, miss, id, r);
  if (r->outcome != WS_L1_REJECT) count_read_miss(l1, a->sector_mask, miss);
}

static void access_store_wb(ws_l1 *l1, const ws_line_access *a, ws_l1_result *r) {
  ws_cache_way *w = find(l1, a->line_addr);
  if (!w && !(w = allocate(l1, a->line_addr, r, 0))) return;
  ws_cache_touch(&l1->tags, w);
  w->valid |= a->sector_mask;
  w->dirty |= a->sector_mask;
  r->outcome = WS_L1_HIT;
}

/* Write-through stores and atomics: forwarded to L2, the L1 copy of the
 * sectors they modify is dropped. */
static void access_forward(ws_l1 *l1, const ws_line_access *a, ws_l1_result *r) {
  if (l1->wbuf_used >= l1->wbuf_cap) {
    reject(l1, &l1->st.wbuf_stalls);
    return;
  }
  ws_cache_way *w = find(l1, a->line_addr);
  if (w) {
    w->valid &= (uint8_t)~a->sector_mask;
    w->dirty &= (uint8_t)~a->sector_mask;
  }
  l1->wbuf_used++;
  r->outcome = WS_L1_FORWARD;
}

void ws_l1_access(ws_l1 *l1, const ws_line_access *a, uint32_t id, uint64_t now, ws_l1_result *r) {
  memset(r, 0, sizeof *r);
  r->outcome = WS_L1_REJECT;
  ws_access_kind kind = (ws_access_kind)a->kind;
  if (kind == WS_ACCESS_LOAD || kind == WS_ACCESS_ASYNC)
    access_read(l1, a, id, now, r);
  else if (kind == WS_ACCESS_STORE && l1->cfg.write_policy == WS_WRITE_BACK_ALLOC)
    access_store_wb(l1, a, r);
  else
    access_forward(l1, a, r);
  if (r->outcome != WS_L1_REJECT) l1->st.by_kind[kind]++;
}

/* Returns m's chunks after `last` (all of them: NO_CHUNK) to the pool;
 * `last` becomes m's last chunk. */
static void free_chunks_after(ws_l1 *l1, mshr *m, uint32_t last) {
  uint32_t c = last == NO_CHUNK ? (m->nwait ? m->head : NO_CHUNK) : l1->chunks[last].next;
  while (c != NO_CHUNK) {
    uint32_t next = l1->chunks[c].next;
    l1->chunks[c].next = l1->free_chunk;
    l1->free_chunk = c;
    c = next;
  }
  if (last != NO_CHUNK) l1->chunks[last].next = NO_CHUNK;
  m->tail = last;
}

/* Completes the waiters `mask` finishes; frees the MSHR once all it asked
 * for is in (true). */
static bool arrive(ws_l1 *l1, mshr *m, uint8_t mask, uint64_t now, ws_l1_done *out, uint32_t *n) {
  m->arrived |= mask;
  /* the waiters that stay move up in place, in order (writing never
   * passes reading), so every chunk but the last stays full */
  uint32_t rc = m->head, wc = m->head, wi = 0, kept = 0;
  for (uint32_t k = 0; k < m->nwait; k++) {
    uint32_t ri = k % CHUNK_WAITERS;
    if (k && ri == 0) rc = l1->chunks[rc].next;
    waiter w = l1->chunks[rc].w[ri];
    w.need &= (uint8_t)~mask;
    if (!w.need) { /* all of the request's sectors cross the port once its last one is in */
      out[(*n)++] = (ws_l1_done){w.id, ws_l1_deliver(l1, w.mask, now)};
      continue;
    }
    if (wi == CHUNK_WAITERS) wc = l1->chunks[wc].next, wi = 0;
    l1->chunks[wc].w[wi++] = w;
    kept++;
  }
  l1->nfree_waiters += m->nwait - kept;
  free_chunks_after(l1, m, kept ? wc : NO_CHUNK);
  m->nwait = kept;
  if ((m->arrived & m->requested) != m->requested) return false;
  l1->free_stack[l1->nfree++] = (uint32_t)(m - l1->mshrs);
  return true;
}

/* Streaming: the arriving sectors go into the line's way, the set's LRU
 * way if it holds none (no way is ever pinned, so there always is one; a
 * streaming L1 is write-through, so the victim is clean). */
static void fill_streaming(ws_l1 *l1, uint64_t line, uint8_t mask) {
  ws_cache_way *w = find(l1, line);
  if (!w) {
    uint64_t n = line_no(l1, line);
    w = ws_cache_victim(&l1->tags, n);
    if (w->valid) l1->st.evictions++;
    ws_cache_install(&l1->tags, w, n);
  }
  w->valid |= mask;
}

uint32_t ws_l1_fill(ws_l1 *l1, uint64_t line, uint8_t mask, uint64_t now, ws_l1_done *out) {
  uint32_t n = 0;
  if (l1->cfg.allocation == WS_L1_ALLOC_STREAMING) {
    uint32_t slot = slot_of(l1, line);
    if (!l1->by_line[slot]) return 0;
    fill_streaming(l1, line, mask);
    if (arrive(l1, &l1->mshrs[l1->by_line[slot] - 1], mask, now, out, &n)) slot_erase(l1, slot);
    return n;
  }
  ws_cache_way *w = find(l1, line);
  if (!w || !w->pending) return 0;
  w->valid |= mask;
  if (arrive(l1, &l1->mshrs[w->mshr], mask, now, out, &n)) w->pending = 0;
  return n;
}
