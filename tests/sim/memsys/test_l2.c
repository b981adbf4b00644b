/* test_l2.c - L2 slices alone (hash, hits, misses, merging, write-allocate,
 * atomics, MSHR and write-back stalls) and the dirty-eviction path through
 * the whole hierarchy down to DRAM writes.
 *
 * memtest.h's L2: 64 KiB over 4 slices = 16 KiB per slice, 128 B lines,
 * 4 ways -> 32 sets keyed by (line number / 4) mod 32; hit latency 100;
 * 8 MSHRs and 8 write-back slots per slice. */
#include <criterion/criterion.h>

#include "sim/memsys/l2.h"
#include "tests/sim/memsys/memtest.h"

typedef struct l2t {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_l2 *l2;
} l2t;

static void l2t_init_cfg(l2t *t, ws_gpu_cfg *c) {
  mt_resolve(c);
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  cr_assert_eq(ws_l2_create(t->ctx, c, t->stats, 64, &t->l2), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void l2t_init(l2t *t) {
  ws_gpu_cfg c = mt_cfg();
  l2t_init_cfg(t, &c);
}

static void l2t_fini(l2t *t) {
  ws_l2_destroy(t->l2);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

static ws_l2_result look(l2t *t, uint32_t id, uint64_t line, uint8_t mask, ws_access_kind k, uint64_t now) {
  ws_l2_result r;
  ws_l2_lookup(t->l2, ws_l2_slice_of(t->l2, line), id, line, mask, k, now, &r);
  return r;
}

static uint64_t stat(l2t *t, const char *pattern) { return ws_stats_sum(t->stats, pattern); }

/* The n-th line (by address) in slice 0, set 0. */
static uint64_t same_set(l2t *t, uint32_t n) {
  for (uint64_t ln = 0;; ln++)
    if (ws_l2_slice_of(t->l2, ln * 128) == 0 && ln / 4 % 32 == 0 && n-- == 0) return ln * 128;
}

Test(l2, hash_spreads_strides) {
  l2t t;
  l2t_init(&t);
  uint64_t strides[] = {1, 2, 4, 16, 64};
  for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++) {
    uint32_t seen = 0;
    for (uint64_t k = 0; k < 16; k++) seen |= 1u << ws_l2_slice_of(t.l2, k * strides[s] * 128);
    cr_expect_eq(seen, 0xF, "stride %llu lines camps", (unsigned long long)strides[s]);
  }
  l2t_fini(&t);
}

Test(l2, miss_merge_fill) {
  l2t t;
  l2t_init(&t);
  uint64_t line = 0x9000;
  uint32_t slice = ws_l2_slice_of(t.l2, line);
  ws_l2_result r = look(&t, 1, line, 0x1, WS_ACCESS_LOAD, 0);
  cr_assert_eq(r.outcome, WS_L2_MISS);
  cr_expect_eq(r.fetch_mask, 0x1);
  r = look(&t, 2, line, 0x1, WS_ACCESS_ASYNC, 1);
  cr_expect_eq(r.outcome, WS_L2_MISS);
  cr_expect_eq(r.fetch_mask, 0, "merged: nothing more to fetch");
  r = look(&t, 3, line, 0x3, WS_ACCESS_LOAD, 2);
  cr_expect_eq(r.fetch_mask, 0x2, "only the new sector");
  cr_expect_eq(stat(&t, "l2.slice*.mshr_merges"), 2);
  ws_l2_done d[64];
  cr_assert_eq(ws_l2_fill(t.l2, slice, line, 0x1, 50, d), 2);
  cr_expect_eq(d[0].id, 1);
  cr_expect_eq(d[1].id, 2);
  cr_expect_eq(d[0].ready_cycle, 50, "data forwarded as it arrives");
  cr_assert_eq(ws_l2_fill(t.l2, slice, line, 0x2, 60, d), 1);
  cr_expect_eq(d[0].id, 3);
  r = look(&t, 4, line, 0x3, WS_ACCESS_LOAD, 100);
  cr_expect_eq(r.outcome, WS_L2_HIT);
  cr_expect_eq(r.ready_cycle, 200);
  cr_expect_eq(stat(&t, "l2.slice*.line_hits"), 1);
  cr_expect_eq(stat(&t, "l2.slice*.sector_misses"), 4, "1 + 1 + 2");
  l2t_fini(&t);
}

Test(l2, store_allocates_without_fetch_and_atomics_take_two_passes) {
  l2t t;
  l2t_init(&t);
  ws_l2_result r = look(&t, 1, 0xA000, 0x4, WS_ACCESS_STORE, 0);
  cr_expect_eq(r.outcome, WS_L2_WRITTEN);
  cr_expect_eq(look(&t, 2, 0xA000, 0x4, WS_ACCESS_LOAD, 10).outcome, WS_L2_HIT);
  r = look(&t, 3, 0xA000, 0x4, WS_ACCESS_ATOMIC, 20);
  cr_expect_eq(r.outcome, WS_L2_HIT);
  cr_expect_eq(r.ready_cycle, 220, "2 x hit latency");
  r = look(&t, 4, 0xB000, 0x1, WS_ACCESS_ATOMIC, 30);
  cr_assert_eq(r.outcome, WS_L2_MISS);
  ws_l2_done d[64];
  cr_assert_eq(ws_l2_fill(t.l2, ws_l2_slice_of(t.l2, 0xB000), 0xB000, 0x1, 90, d), 1);
  cr_expect_eq(d[0].ready_cycle, 190, "the atomic's extra pass after the data arrives");
  cr_expect_eq(stat(&t, "l2.slice*.atomics"), 2);
  l2t_fini(&t);
}

Test(l2, mshr_exhaustion_stalls_until_fill) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.mshr_entries_per_slice = 2;
  l2t t;
  l2t_init_cfg(&t, &c);
  uint64_t a = same_set(&t, 0), b = same_set(&t, 1), e = same_set(&t, 2);
  cr_expect_eq(look(&t, 1, a, 1, WS_ACCESS_LOAD, 0).outcome, WS_L2_MISS);
  cr_expect_eq(look(&t, 2, b, 1, WS_ACCESS_LOAD, 0).outcome, WS_L2_MISS);
  cr_expect_eq(look(&t, 3, e, 1, WS_ACCESS_LOAD, 0).outcome, WS_L2_STALL);
  cr_expect(ws_l2_stalled(t.l2, 0));
  cr_expect_eq(look(&t, 3, a, 1, WS_ACCESS_LOAD, 0).outcome, WS_L2_MISS, "a merge needs no MSHR");
  ws_l2_done d[64];
  ws_l2_fill(t.l2, 0, a, 1, 10, d);
  cr_expect_not(ws_l2_stalled(t.l2, 0));
  cr_expect_eq(look(&t, 4, e, 1, WS_ACCESS_LOAD, 11).outcome, WS_L2_MISS);
  cr_expect_eq(stat(&t, "l2.slice0.mshr_stalls"), 1);
  l2t_fini(&t);
}

Test(l2, dirty_eviction_writes_back_and_bounded_buffer_stalls) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.mshr_entries_per_slice = 1; /* also the write-back buffer size */
  l2t t;
  l2t_init_cfg(&t, &c);
  for (uint32_t i = 0; i < 4; i++)
    cr_expect_eq(look(&t, i, same_set(&t, i), 0x3, WS_ACCESS_STORE, i).outcome, WS_L2_WRITTEN);
  ws_l2_result r = look(&t, 4, same_set(&t, 4), 0x1, WS_ACCESS_STORE, 10);
  cr_expect_eq(r.outcome, WS_L2_WRITTEN);
  cr_expect(r.writeback);
  cr_expect_eq(r.wb_line, same_set(&t, 0), "LRU victim");
  cr_expect_eq(r.wb_mask, 0x3);
  r = look(&t, 5, same_set(&t, 5), 0x1, WS_ACCESS_STORE, 11);
  cr_expect_eq(r.outcome, WS_L2_STALL, "write-back buffer full");
  cr_expect_eq(stat(&t, "l2.slice0.wb_stalls"), 1);
  ws_l2_wb_release(t.l2, 0);
  cr_expect_eq(look(&t, 5, same_set(&t, 5), 0x1, WS_ACCESS_STORE, 12).outcome, WS_L2_WRITTEN);
  cr_expect_eq(stat(&t, "l2.slice0.writebacks"), 2);
  l2t_fini(&t);
}

Test(l2, writebacks_reach_dram_through_memsys) {
  ws_gpu_cfg c = mt_cfg();
  mt_sys s;
  mt_init(&s, &c);
  l2t t;
  l2t_init(&t);
  for (uint32_t i = 0; i < 6; i++) {
    mt_access_retry(&s, 0, same_set(&t, i), 0x1, WS_ACCESS_STORE, 0);
    mt_run(&s, s.now + 1);
  }
  mt_run(&s, UINT64_MAX);
  cr_expect(ws_memsys_idle(s.m));
  cr_expect_eq(mt_stat(&s, "hbm.ch*.writes"), 2, "6 lines in a 4-way set: 2 dirty victims");
  cr_expect_eq(mt_stat(&s, "hbm.ch*.bytes_written"), 64);
  cr_expect_eq(mt_stat(&s, "hbm.ch*.reads"), 0, "write-allocate without fetch");
  cr_expect_eq(s.responses, 0);
  l2t_fini(&t);
  mt_fini(&s);
}

/* ---- warming (a sampled launch's skipped work) ------------------------------------ */

/* A reference sectored LRU for one slice's sets, as ws_l2_warm documents
 * it: the first free way, else the least recently used; a read fetches
 * the sectors it lacks, a write allocates without fetch and dirties. */
typedef struct ref_way {
  uint64_t line, stamp;
  uint8_t valid, dirty;
} ref_way;

typedef struct ref_l2 {
  ref_way ways[4][32][4]; /* slice, set, way */
  uint64_t clock;
} ref_l2;

static ref_way *ref_set(ref_l2 *r, l2t *t, uint64_t line) {
  return r->ways[ws_l2_slice_of(t->l2, line)][line / 128 / 4 % 32];
}

static ws_l2_warmed ref_warm(ref_l2 *r, l2t *t, uint64_t line, uint8_t mask, bool write) {
  ws_l2_warmed out = {0, 0, 0};
  ref_way *set = ref_set(r, t, line), *w = NULL;
  for (int i = 0; i < 4 && !w; i++)
    if (set[i].valid && set[i].line == line) w = &set[i];
  if (!w) {
    for (int i = 0; i < 4 && !w; i++)
      if (!set[i].valid) w = &set[i];
    if (!w) {
      w = &set[0];
      for (int i = 1; i < 4; i++)
        if (set[i].stamp < w->stamp) w = &set[i];
    }
    if (w->valid & w->dirty) out.wb_mask = w->valid & w->dirty, out.wb_line = w->line;
    *w = (ref_way){line, 0, 0, 0};
  }
  w->stamp = ++r->clock;
  if (!write) out.fetch_mask = mask & (uint8_t)~w->valid;
  w->valid |= mask;
  if (write) w->dirty |= mask;
  return out;
}

/* A timed read that hits: the line becomes the most recently used. */
static bool ref_touch(ref_l2 *r, l2t *t, uint64_t line, uint8_t mask) {
  ref_way *set = ref_set(r, t, line);
  for (int i = 0; i < 4; i++)
    if (set[i].valid && set[i].line == line && !(mask & ~set[i].valid)) {
      set[i].stamp = ++r->clock;
      return true;
    }
  return false;
}

/* Warmings that repeat a recent line skip the tag search: the fetches and
 * write-backs, and so the replacement order, stay those of a plain LRU,
 * with timed hits between them moving lines up. */
Test(l2, warming_repeats_keep_the_lru_order) {
  l2t t;
  l2t_init(&t);
  static ref_l2 r;
  memset(&r, 0, sizeof r);
  uint64_t pool[12]; /* 6 lines of one set, 6 of others */
  for (uint32_t i = 0; i < 6; i++) pool[i] = same_set(&t, i);
  for (uint32_t i = 0; i < 6; i++) pool[6 + i] = (uint64_t)(4 * i + 5) * 128;
  uint64_t seed = 12345, recent[3] = {pool[0], pool[1], pool[2]};
  uint32_t fetched = 0, written_back = 0;
  for (uint32_t step = 0; step < 20000; step++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    uint32_t x = (uint32_t)(seed >> 33);
    uint64_t line = x % 3 ? recent[x / 3 % 3] : pool[x / 9 % 12];
    uint8_t mask = (uint8_t)(1u << (x / 200 % 4) | (x / 1000 % 2 ? 3u : 0u));
    if (x % 17 == 0) { /* a timed hit between warmings */
      if (ref_touch(&r, &t, line, mask))
        cr_assert_eq(look(&t, 0, line, mask, WS_ACCESS_LOAD, step).outcome, WS_L2_HIT);
      continue;
    }
    bool write = x / 7 % 5 == 0;
    ws_l2_warmed want = ref_warm(&r, &t, line, mask, write), got = ws_l2_warm(t.l2, line, mask, write);
    cr_assert_eq(got.fetch_mask, want.fetch_mask, "step %u: fetched %#x, the LRU %#x", step, got.fetch_mask,
                 want.fetch_mask);
    cr_assert_eq(got.wb_mask, want.wb_mask, "step %u: wrote back %#x, the LRU %#x", step, got.wb_mask,
                 want.wb_mask);
    if (want.wb_mask) cr_assert_eq(got.wb_line, want.wb_line, "step %u", step);
    fetched += want.fetch_mask != 0, written_back += want.wb_mask != 0;
    recent[step % 3] = line;
  }
  cr_expect_gt(fetched, 1000, "the sequence misses often (%u)", fetched);
  cr_expect_gt(written_back, 100, "and evicts dirty lines (%u)", written_back);
  l2t_fini(&t);
}
