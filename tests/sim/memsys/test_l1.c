/* test_l1.c - the L1 alone: hits and port serialisation, sector fills, LRU
 * order, MSHR merging and limits, write policies, the write buffer, and the
 * streaming allocation (ways taken at the fill, MSHRs found by line).
 *
 * memtest.h's L1: 4 KiB, 128 B lines, 4 ways -> 8 sets (set = line number
 * mod 8); hit latency 20; 4 MSHRs of up to 2 requests; port 64 B/cycle;
 * allocation on miss unless a test says streaming. */
#include <criterion/criterion.h>

#include "sim/memsys/l1.h"
#include "sim/memsys/xbar.h"
#include "tests/sim/memsys/memtest.h"

typedef struct lt {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_l1 *l1;
} lt;

static void lt_init_cfg(lt *t, ws_gpu_cfg *c) {
  mt_resolve(c);
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  cr_assert_eq(ws_l1_create(t->ctx, c, 0, t->stats, &t->l1), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void lt_init(lt *t, ws_write_policy pol) {
  ws_gpu_cfg c = mt_cfg();
  c.l1.write_policy = pol;
  lt_init_cfg(t, &c);
}

static void lt_init_mshrs(lt *t, uint32_t mshrs) {
  ws_gpu_cfg c = mt_cfg();
  c.l1.mshr_entries = mshrs;
  lt_init_cfg(t, &c);
}

static void lt_init_streaming(lt *t, uint32_t mshrs, uint32_t merge) {
  ws_gpu_cfg c = mt_cfg();
  c.l1.allocation = WS_L1_ALLOC_STREAMING;
  c.l1.mshr_entries = mshrs;
  c.l1.mshr_max_merge = merge;
  lt_init_cfg(t, &c);
}

static void lt_fini(lt *t) {
  ws_l1_destroy(t->l1);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

static ws_l1_result acc(lt *t, uint64_t line, uint8_t mask, ws_access_kind k, uint32_t id, uint64_t now) {
  ws_line_access a = {.line_addr = line, .sector_mask = mask, .kind = (uint8_t)k};
  ws_l1_result r;
  ws_l1_access(t->l1, &a, id, now, &r);
  return r;
}

static uint64_t stat(lt *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(t->stats, name, &v), "%s", name);
  return v;
}

/* Misses `line` and fills it at `now`. */
static void bring(lt *t, uint64_t line, uint8_t mask, uint64_t now) {
  ws_l1_result r = acc(t, line, mask, WS_ACCESS_LOAD, 99, now);
  cr_assert_eq(r.outcome, WS_L1_MISS);
  ws_l1_done d[4];
  cr_assert_eq(ws_l1_fill(t->l1, line, r.send_mask, now, d), 1);
}

static bool hits(lt *t, uint64_t line, uint64_t now) {
  return acc(t, line, 0x1, WS_ACCESS_LOAD, 1, now).outcome == WS_L1_HIT;
}

Test(l1, miss_fill_then_hit_and_port_beats) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  ws_l1_result r = acc(&t, 0x1000, 0x5, WS_ACCESS_LOAD, 7, 0);
  cr_assert_eq(r.outcome, WS_L1_MISS);
  cr_expect_eq(r.send_mask, 0x5);
  ws_l1_done d[4];
  cr_assert_eq(ws_l1_fill(t.l1, 0x1000, 0x5, 100, d), 1);
  cr_expect_eq(d[0].id, 7);
  cr_expect_eq(d[0].resp_cycle, 100, "64 B over a 64 B/cycle port: one beat");
  r = acc(&t, 0x1000, 0x1, WS_ACCESS_LOAD, 8, 200);
  cr_assert_eq(r.outcome, WS_L1_HIT);
  cr_expect_eq(r.resp_cycle, 220);
  r = acc(&t, 0x1000, 0x5, WS_ACCESS_LOAD, 9, 300);
  cr_expect_eq(r.resp_cycle, 320);
  r = acc(&t, 0x1000, 0x5, WS_ACCESS_LOAD, 10, 300);
  cr_expect_eq(r.resp_cycle, 321, "the port is busy for the previous hit's beat");
  cr_expect_eq(stat(&t, "sm0.l1.line_hits"), 3);
  cr_expect_eq(stat(&t, "sm0.l1.sector_hits"), 5);
  cr_expect_eq(stat(&t, "sm0.l1.sector_misses"), 2);
  cr_expect_eq(stat(&t, "sm0.l1.loads"), 4);
  lt_fini(&t);
}

Test(l1, sector_granularity_fill) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  bring(&t, 0x2000, 0x1, 0);
  ws_l1_result r = acc(&t, 0x2000, 0x3, WS_ACCESS_LOAD, 1, 10);
  cr_assert_eq(r.outcome, WS_L1_MISS);
  cr_expect_eq(r.send_mask, 0x2, "only the missing sector is fetched");
  cr_expect_eq(stat(&t, "sm0.l1.sector_hits"), 1);
  cr_expect_eq(stat(&t, "sm0.l1.evictions"), 0, "a partial line is not an eviction");
  lt_fini(&t);
}

Test(l1, lru_eviction_order) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  uint64_t set0[5];
  for (int i = 0; i < 5; i++) set0[i] = (uint64_t)i * 8 * 128; /* line numbers 0, 8, 16... */
  for (int i = 0; i < 4; i++) bring(&t, set0[i], 0x1, (uint64_t)i);
  cr_expect(hits(&t, set0[0], 10), "touch A: B is now least recently used");
  bring(&t, set0[4], 0x1, 20);
  cr_expect_eq(stat(&t, "sm0.l1.evictions"), 1);
  cr_expect(hits(&t, set0[0], 30));
  cr_expect(hits(&t, set0[2], 31));
  cr_expect(hits(&t, set0[3], 32));
  cr_expect(hits(&t, set0[4], 33));
  cr_expect_not(hits(&t, set0[1], 34), "B was the victim");
  lt_fini(&t);
}

Test(l1, mshr_merge_one_request) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  ws_l1_result a = acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 1, 0);
  ws_l1_result b = acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 2, 1);
  cr_expect_eq(a.outcome, WS_L1_MISS);
  cr_expect_eq(b.outcome, WS_L1_MERGED, "same sector in flight: no second L2 request");
  cr_expect_eq(stat(&t, "sm0.l1.mshr_merges"), 1);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 1);
  ws_l1_done d[4];
  cr_assert_eq(ws_l1_fill(t.l1, 0x3000, 0x1, 50, d), 2);
  cr_expect_eq(d[0].id, 1);
  cr_expect_eq(d[1].id, 2);
  cr_expect_eq(d[1].resp_cycle, 51, "the second waiter's beat follows the first's");
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 0);
  lt_fini(&t);
}

Test(l1, merge_adds_sectors_and_limit_rejects) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  cr_expect_eq(acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 1, 0).outcome, WS_L1_MISS);
  ws_l1_result b = acc(&t, 0x3000, 0x3, WS_ACCESS_LOAD, 2, 1);
  cr_expect_eq(b.outcome, WS_L1_MISS);
  cr_expect_eq(b.send_mask, 0x2, "the merge asks only for the new sector");
  cr_expect_eq(acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 3, 2).outcome, WS_L1_REJECT, "merge limit 2");
  cr_expect_eq(stat(&t, "sm0.l1.merge_limit_stalls"), 1);
  cr_expect_eq(stat(&t, "sm0.l1.loads"), 2, "a rejected access is not counted");
  ws_l1_done d[4];
  cr_expect_eq(ws_l1_fill(t.l1, 0x3000, 0x1, 10, d), 1, "request 2 still waits for sector 1");
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 1);
  cr_expect_eq(ws_l1_fill(t.l1, 0x3000, 0x2, 20, d), 1);
  cr_expect_eq(d[0].id, 2);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 0);
  lt_fini(&t);
}

/* A shared pool of 6 request slots for 4 MSHRs of up to 4 requests:
 * one line takes 4, a second line's MSHR takes the last 2, and a third
 * line finds a free MSHR but no slot until a fill returns some. Requests
 * complete in arrival order, each when its last sector is in. */
Test(l1, waiters_come_from_a_shared_pool) {
  lt t;
  ws_gpu_cfg c = mt_cfg();
  c.l1.allocation = WS_L1_ALLOC_STREAMING;
  c.l1.mshr_max_merge = 4;
  c.l1.mshr_waiters = 6;
  lt_init_cfg(&t, &c);
  static const uint8_t need[4] = {0x1, 0x3, 0x2, 0x1};
  for (uint32_t i = 0; i < 4; i++)
    cr_expect_neq(acc(&t, 0x3000, need[i], WS_ACCESS_LOAD, 10 + i, i).outcome, WS_L1_REJECT, "request %u", i);
  cr_expect_eq(acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 14, 4).outcome, WS_L1_REJECT, "merge limit 4");
  cr_expect_eq(stat(&t, "sm0.l1.merge_limit_stalls"), 1);
  cr_expect_eq(acc(&t, 0x4000, 0x1, WS_ACCESS_LOAD, 20, 5).outcome, WS_L1_MISS);
  cr_expect_eq(acc(&t, 0x4000, 0x1, WS_ACCESS_LOAD, 21, 6).outcome, WS_L1_MERGED);
  cr_expect_eq(acc(&t, 0x5000, 0x1, WS_ACCESS_LOAD, 30, 7).outcome, WS_L1_REJECT, "two MSHRs free, no slot");
  cr_expect_eq(acc(&t, 0x4000, 0x1, WS_ACCESS_LOAD, 22, 7).outcome, WS_L1_REJECT, "nor for a merge");
  cr_expect_eq(stat(&t, "sm0.l1.waiter_stalls"), 2);
  cr_expect_eq(stat(&t, "sm0.l1.mshr_full_stalls"), 0);
  ws_l1_done d[4];
  cr_assert_eq(ws_l1_fill(t.l1, 0x3000, 0x1, 50, d), 2, "sector 0 finishes requests 10 and 13");
  cr_expect_eq(d[0].id, 10);
  cr_expect_eq(d[1].id, 13);
  cr_expect_eq(acc(&t, 0x5000, 0x1, WS_ACCESS_LOAD, 30, 51).outcome, WS_L1_MISS,
               "their slots are free again");
  cr_expect_eq(acc(&t, 0x5000, 0x1, WS_ACCESS_LOAD, 31, 52).outcome, WS_L1_MERGED);
  cr_expect_eq(acc(&t, 0x3000, 0x2, WS_ACCESS_LOAD, 15, 53).outcome, WS_L1_REJECT, "the pool is full again");
  cr_assert_eq(ws_l1_fill(t.l1, 0x3000, 0x2, 60, d), 2, "sector 1 finishes 11 and 12, in order");
  cr_expect_eq(d[0].id, 11);
  cr_expect_eq(d[1].id, 12);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 2);
  cr_expect_eq(acc(&t, 0x3000, 0x1, WS_ACCESS_LOAD, 16, 61).outcome, WS_L1_HIT, "the line is in");
  cr_assert_eq(ws_l1_fill(t.l1, 0x4000, 0x1, 70, d), 2);
  cr_expect_eq(d[0].id, 20);
  cr_expect_eq(d[1].id, 21);
  lt_fini(&t);
}

Test(l1, mshr_full_rejects_until_a_fill) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  for (uint32_t i = 0; i < 4; i++)
    cr_expect_eq(acc(&t, 0x10000 + i * 128, 0x1, WS_ACCESS_LOAD, i, 0).outcome, WS_L1_MISS);
  cr_expect_eq(acc(&t, 0x20000, 0x1, WS_ACCESS_LOAD, 9, 1).outcome, WS_L1_REJECT);
  cr_expect_eq(stat(&t, "sm0.l1.mshr_full_stalls"), 1);
  cr_expect_eq(acc(&t, 0x10000, 0x1, WS_ACCESS_LOAD, 10, 1).outcome, WS_L1_MERGED,
               "merging needs no new MSHR");
  ws_l1_done d[4];
  ws_l1_fill(t.l1, 0x10080, 0x1, 5, d);
  cr_expect_eq(acc(&t, 0x20000, 0x1, WS_ACCESS_LOAD, 9, 6).outcome, WS_L1_MISS);
  lt_fini(&t);
}

Test(l1, pinned_set_rejects) {
  lt t;
  lt_init_mshrs(&t, 8);
  for (uint32_t i = 0; i < 4; i++)
    cr_expect_eq(acc(&t, (uint64_t)i * 8 * 128, 0x1, WS_ACCESS_LOAD, i, 0).outcome, WS_L1_MISS);
  cr_expect_eq(acc(&t, 4 * 8 * 128, 0x1, WS_ACCESS_LOAD, 4, 1).outcome, WS_L1_REJECT,
               "every way of set 0 awaits a fill");
  cr_expect_eq(stat(&t, "sm0.l1.reserve_stalls"), 1);
  cr_expect_eq(acc(&t, 1 * 128, 0x1, WS_ACCESS_LOAD, 5, 1).outcome, WS_L1_MISS, "other sets are fine");
  ws_l1_done d[4];
  ws_l1_fill(t.l1, 0, 0x1, 2, d);
  cr_expect_eq(acc(&t, 4 * 8 * 128, 0x1, WS_ACCESS_LOAD, 4, 3).outcome, WS_L1_MISS);
  lt_fini(&t);
}

Test(l1, write_through_invalidates_and_forwards) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  bring(&t, 0x4000, 0x3, 0);
  ws_l1_result r = acc(&t, 0x4000, 0x1, WS_ACCESS_STORE, 1, 5);
  cr_expect_eq(r.outcome, WS_L1_FORWARD);
  cr_expect_not(hits(&t, 0x4000, 6), "the written sector was invalidated");
  cr_expect_eq(acc(&t, 0x4000, 0x2, WS_ACCESS_LOAD, 2, 7).outcome, WS_L1_HIT, "the other stays");
  cr_expect_eq(acc(&t, 0x5000, 0x1, WS_ACCESS_STORE, 3, 8).outcome, WS_L1_FORWARD, "no allocate");
  cr_expect_not(hits(&t, 0x5000, 9));
  cr_expect_eq(acc(&t, 0x4000, 0x2, WS_ACCESS_ATOMIC, 4, 10).outcome, WS_L1_FORWARD);
  cr_expect_eq(stat(&t, "sm0.l1.stores"), 2);
  cr_expect_eq(stat(&t, "sm0.l1.atomics"), 1);
  lt_fini(&t);
}

Test(l1, write_buffer_bounds_forwarded_traffic) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  for (uint32_t i = 0; i < 4; i++)
    cr_expect_eq(acc(&t, 0x6000, 0x1, WS_ACCESS_STORE, i, 0).outcome, WS_L1_FORWARD);
  cr_expect_eq(acc(&t, 0x6000, 0x1, WS_ACCESS_STORE, 4, 0).outcome, WS_L1_REJECT);
  cr_expect_eq(stat(&t, "sm0.l1.wbuf_stalls"), 1);
  ws_l1_wbuf_release(t.l1);
  cr_expect_eq(acc(&t, 0x6000, 0x1, WS_ACCESS_STORE, 4, 1).outcome, WS_L1_FORWARD);
  lt_fini(&t);
}

Test(l1, write_back_allocates_and_writes_back_dirty_victims) {
  lt t;
  lt_init(&t, WS_WRITE_BACK_ALLOC);
  ws_l1_result r = acc(&t, 0, 0x6, WS_ACCESS_STORE, 1, 0);
  cr_expect_eq(r.outcome, WS_L1_HIT, "absorbed, no fetch");
  cr_expect_not(r.writeback);
  cr_expect_eq(acc(&t, 0, 0x2, WS_ACCESS_LOAD, 2, 1).outcome, WS_L1_HIT);
  for (int i = 1; i < 4; i++) bring(&t, (uint64_t)i * 8 * 128, 0x1, (uint64_t)(2 + i));
  r = acc(&t, 4 * 8 * 128, 0x1, WS_ACCESS_LOAD, 3, 10); /* evicts line 0 (LRU, dirty) */
  cr_assert_eq(r.outcome, WS_L1_MISS);
  cr_expect(r.writeback);
  cr_expect_eq(r.wb_line, 0);
  cr_expect_eq(r.wb_mask, 0x6);
  cr_expect_eq(stat(&t, "sm0.l1.writebacks"), 1);
  cr_expect_eq(stat(&t, "sm0.l1.evictions"), 1);
  lt_fini(&t);
}

Test(l1, reset_is_cold) {
  lt t;
  lt_init(&t, WS_WRITE_THROUGH_NOALLOC);
  bring(&t, 0x7000, 0x1, 0);
  acc(&t, 0x8000, 0x1, WS_ACCESS_LOAD, 1, 0);
  ws_l1_reset(t.l1);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 0);
  cr_expect_not(hits(&t, 0x7000, 1));
  lt_fini(&t);
}

/* The case pinned_set_rejects refuses: a fifth miss in a 4-way set is
 * accepted, no way is held until the data comes, and the fills take the
 * set's ways in LRU order, the first filled being the first evicted. */
Test(l1, streaming_set_takes_every_miss_and_fills_allocate) {
  lt t;
  lt_init_streaming(&t, 8, 2);
  for (uint32_t i = 0; i < 5; i++) {
    cr_expect_eq(acc(&t, (uint64_t)i * 8 * 128, 0x1, WS_ACCESS_LOAD, i, 0).outcome, WS_L1_MISS, "line %u", i);
    uint32_t set, way;
    ws_l1_where(t.l1, (uint64_t)i * 8 * 128, &set, &way);
    cr_expect_eq(set, 0);
    cr_expect_eq(way, UINT32_MAX, "a streaming miss holds no way");
  }
  cr_expect_eq(stat(&t, "sm0.l1.reserve_stalls"), 0);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 5);
  ws_l1_done d[4];
  for (uint32_t i = 0; i < 5; i++) {
    cr_assert_eq(ws_l1_fill(t.l1, (uint64_t)i * 8 * 128, 0x1, 10 + i, d), 1);
    cr_expect_eq(d[0].id, i);
  }
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 0);
  cr_expect_eq(stat(&t, "sm0.l1.evictions"), 1, "five fills in four ways");
  cr_expect_not(hits(&t, 0, 20), "the first line filled was the LRU way at the fifth fill");
  for (uint32_t i = 1; i < 5; i++) cr_expect(hits(&t, (uint64_t)i * 8 * 128, 21), "line %u", i);
  lt_fini(&t);
}

/* A sector that reached the MSHR but left the tags before a later request
 * for it (the line evicted by other fills while its MSHR still waited) is
 * fetched again: it would not come back on its own. */
Test(l1, streaming_refetches_a_sector_evicted_in_flight) {
  lt t;
  lt_init_streaming(&t, 8, 4);
  const uint64_t line = 0;
  cr_expect_eq(acc(&t, line, 0x3, WS_ACCESS_LOAD, 1, 0).outcome, WS_L1_MISS);
  ws_l1_done d[4];
  cr_expect_eq(ws_l1_fill(t.l1, line, 0x1, 5, d), 0, "request 1 still waits for sector 1");
  cr_expect(hits(&t, line, 6), "sector 0 is in the tags");
  for (uint32_t i = 1; i <= 4; i++) bring(&t, (uint64_t)i * 8 * 128, 0x1, 10 + i);
  cr_expect_eq(stat(&t, "sm0.l1.evictions"), 1, "the line left set 0");
  ws_l1_result r = acc(&t, line, 0x1, WS_ACCESS_LOAD, 2, 20);
  cr_expect_eq(r.outcome, WS_L1_MISS);
  cr_expect(r.merged);
  cr_expect_eq(r.send_mask, 0x1, "sector 0 arrived once already and is asked again");
  cr_expect_eq(stat(&t, "sm0.l1.mshr_merges"), 1);
  cr_assert_eq(ws_l1_fill(t.l1, line, 0x2, 30, d), 1);
  cr_expect_eq(d[0].id, 1);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 1, "sector 0's second fetch is still out");
  cr_assert_eq(ws_l1_fill(t.l1, line, 0x1, 40, d), 1);
  cr_expect_eq(d[0].id, 2);
  cr_expect_eq(ws_l1_mshrs_used(t.l1), 0);
  lt_fini(&t);
}

/* The MSHR table against a plain list of lines in flight: misses to lines
 * from a small pool (so their table slots collide and runs form) and fills
 * in a scrambled order, the table's deletions moving entries back. Every
 * fill completes exactly the requests its line's model holds. */
Test(l1, streaming_mshr_table_matches_a_list) {
  enum { MSHRS = 16, LINES = 40, STEPS = 4000 };
  lt t;
  lt_init_streaming(&t, MSHRS, 8);
  uint64_t flight[MSHRS];
  uint32_t waiting[MSHRS], n = 0, next_id = 0, seed = 12345, completed = 0, issued = 0;
  ws_l1_done d[8];
  for (uint32_t step = 0; step < STEPS; step++) {
    seed = seed * 1103515245u + 12345u;
    uint32_t pick = (seed >> 16) % (LINES + MSHRS);
    if (pick < LINES) { /* a miss: lines far apart, all in one set of the tags, never cached for long */
      uint64_t line = (uint64_t)pick * 8 * 128 * 64;
      uint32_t k = 0;
      while (k < n && flight[k] != line) k++;
      ws_l1_result r = acc(&t, line, 0x1, WS_ACCESS_LOAD, next_id, step);
      if (r.outcome == WS_L1_HIT) continue;
      bool ok = k < n ? waiting[k] < 8 : n < MSHRS;
      cr_assert_eq(r.outcome != WS_L1_REJECT, ok, "step %u: line %u", step, pick);
      if (!ok) continue;
      next_id++;
      issued++;
      if (k == n) flight[n++] = line, waiting[k] = 0;
      waiting[k]++;
    } else if (n) { /* a fill of one line in flight */
      uint32_t k = (pick - LINES) % n;
      uint32_t got = ws_l1_fill(t.l1, flight[k], 0x1, step, d);
      cr_assert_eq(got, waiting[k], "step %u: every waiter of the line completes", step);
      completed += got;
      flight[k] = flight[n - 1];
      waiting[k] = waiting[n - 1];
      n--;
    }
    cr_assert_eq(ws_l1_mshrs_used(t.l1), n, "step %u", step);
  }
  cr_expect_gt(completed, 1000u, "the run exercised the table");
  uint32_t still = 0;
  for (uint32_t k = 0; k < n; k++) still += waiting[k];
  cr_expect_eq(issued - completed, still, "no request was lost or completed twice");
  lt_fini(&t);
}

/* A mask's sectors come from a table (no popcount instruction assumed),
 * and the port's beats from a table of them made at creation: both must
 * give what the arithmetic gives, for every mask and for a port width that
 * does not divide the sector's. */
Test(l1, sector_counts_and_port_beats_match_the_arithmetic) {
  for (uint32_t m = 0; m < 256; m++)
    cr_assert_eq(ws_access_sectors((uint8_t)m), (uint32_t)__builtin_popcount(m), "mask %#x", m);
  const uint32_t ports[] = {64, 24, 1, 4096};
  for (uint32_t p = 0; p < sizeof ports / sizeof ports[0]; p++) {
    ws_gpu_cfg c = mt_cfg();
    c.l1.port_bytes_per_cycle = ports[p];
    lt t;
    lt_init_cfg(&t, &c);
    uint64_t ready = 1000;
    for (uint32_t m = 0; m < 16; m++) {
      uint64_t beats = ws_xbar_beats((uint64_t)ws_access_sectors((uint8_t)m) * 32, ports[p]);
      cr_assert_eq(ws_l1_deliver(t.l1, (uint8_t)m, ready), ready + beats - 1, "port %u, mask %#x", ports[p],
                   m);
      ready += beats; /* the port is free again exactly then */
    }
    lt_fini(&t);
  }
}
