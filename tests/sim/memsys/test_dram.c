/* test_dram.c - HBM channel timing: row hit / miss / conflict latencies in
 * closed form, tRAS, FR-FCFS order, bus serialisation, queue capacity and
 * the address mapping.
 *
 * memtest.h's clock makes 14000 ps = 14 cycles; tRAS 33000 ps = 33 cycles;
 * a 32-byte burst takes 2 bus cycles. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sim/memsys/dram.h"
#include "tests/sim/memsys/memtest.h"

typedef struct dt {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_dram *d;
  ws_gpu_cfg cfg;
} dt;

static void dt_init(dt *t) {
  t->cfg = mt_cfg();
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  cr_assert_eq(ws_dram_create(t->ctx, &t->cfg, t->stats, &t->d), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void dt_fini(dt *t) {
  ws_dram_destroy(t->d);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

/* The n-th line (n >= 0) of channel 0 that maps to (bank, row). */
static uint64_t find_line(dt *t, uint32_t bank, uint64_t row, uint32_t n) {
  for (uint64_t ln = 0;; ln++) {
    uint64_t line = ln * 128;
    uint32_t b;
    uint64_t r;
    if (ws_dram_channel(t->d, line) != 0) continue;
    ws_dram_locate(t->d, line, &b, &r);
    if (b == bank && r == row && n-- == 0) return line;
  }
}

static uint64_t one(dt *t, uint32_t id, uint64_t line, uint64_t now) {
  cr_assert(ws_dram_reserve(t->d, 0));
  ws_dram_enqueue(t->d, 0, id, line, 32, false);
  ws_dram_issue is[4];
  uint64_t wake;
  cr_assert_eq(ws_dram_schedule(t->d, 0, now, is, 4, &wake), 1);
  cr_expect_eq(is[0].id, id);
  return is[0].done_cycle;
}

static uint64_t stat(dt *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(t->stats, name, &v), "%s", name);
  return v;
}

/* The picosecond timings' conversion is the config's (tests/sim/common/test_geom.c). */
Test(dram, bus_cycles) {
  ws_gpu_cfg c = mt_cfg();
  cr_expect_eq(ws_dram_bus_cycles(&c, 32), 2);
  cr_expect_eq(ws_dram_bus_cycles(&c, 33), 4, "rounded up to whole bursts");
  cr_expect_eq(ws_dram_bus_cycles(&c, 128), 8);
}

Test(dram, row_miss_hit_conflict_latencies) {
  dt t;
  dt_init(&t);
  uint64_t a = find_line(&t, 1, 0, 0), b = find_line(&t, 1, 0, 1), c = find_line(&t, 1, 5, 0);
  cr_expect_eq(one(&t, 1, a, 0), 14 + 14 + 2, "closed bank: tRCD + tCL + burst");
  cr_expect_eq(one(&t, 2, b, 100) - 100, 14 + 2, "open row: tCL + burst");
  cr_expect_eq(one(&t, 3, c, 200) - 200, 14 + 14 + 14 + 2, "conflict: tRP + tRCD + tCL + burst");
  cr_expect_eq(stat(&t, "hbm.ch0.row_misses"), 1);
  cr_expect_eq(stat(&t, "hbm.ch0.row_hits"), 1);
  cr_expect_eq(stat(&t, "hbm.ch0.row_conflicts"), 1);
  cr_expect_eq(stat(&t, "hbm.ch0.reads"), 3);
  cr_expect_eq(stat(&t, "hbm.ch0.bytes_read"), 96);
  cr_expect_eq(stat(&t, "hbm.ch0.busy_cycles"), 6);
  dt_fini(&t);
}

Test(dram, tras_delays_precharge) {
  dt t;
  dt_init(&t);
  uint64_t a = find_line(&t, 2, 0, 0), c = find_line(&t, 2, 3, 0);
  cr_expect_eq(one(&t, 1, a, 0), 30); /* ACT at 0, RD at 14, bank ready at 16 */
  /* PRE waits for ACT + tRAS = 33, ACT at 47, RD at 61, data 75..77 */
  cr_expect_eq(one(&t, 2, c, 16), 77);
  dt_fini(&t);
}

Test(dram, frfcfs_prefers_younger_row_hit) {
  dt t;
  dt_init(&t);
  uint64_t a = find_line(&t, 0, 7, 0), hit = find_line(&t, 0, 7, 1), conflict = find_line(&t, 0, 9, 0);
  cr_expect_eq(one(&t, 1, a, 0), 30);
  ws_dram_issue is[4];
  uint64_t wake;
  cr_assert(ws_dram_reserve(t.d, 0) && ws_dram_reserve(t.d, 0));
  ws_dram_enqueue(t.d, 0, 2, conflict, 32, false); /* older */
  ws_dram_enqueue(t.d, 0, 3, hit, 32, false);      /* younger, same open row */
  cr_expect_eq(ws_dram_schedule(t.d, 0, 5, is, 4, &wake), 0, "bank busy until 16");
  cr_expect_eq(wake, 16);
  cr_assert_eq(ws_dram_schedule(t.d, 0, 16, is, 4, &wake), 1);
  cr_expect_eq(is[0].id, 3, "the row hit goes first");
  cr_expect_eq(is[0].done_cycle, 16 + 14 + 2);
  cr_expect_eq(wake, 18);
  cr_assert_eq(ws_dram_schedule(t.d, 0, 18, is, 4, &wake), 1);
  cr_expect_eq(is[0].id, 2);
  /* PRE at max(18, 0 + 33) = 33, ACT 47, RD 61, data 75, bus to 77 */
  cr_expect_eq(is[0].done_cycle, 77);
  cr_expect_eq(wake, UINT64_MAX);
  dt_fini(&t);
}

Test(dram, banks_overlap_bus_serialises) {
  dt t;
  dt_init(&t);
  uint64_t a = find_line(&t, 0, 0, 0), b = find_line(&t, 3, 0, 0);
  ws_dram_issue is[4];
  uint64_t wake;
  cr_assert(ws_dram_reserve(t.d, 0) && ws_dram_reserve(t.d, 0));
  ws_dram_enqueue(t.d, 0, 1, a, 32, false);
  ws_dram_enqueue(t.d, 0, 2, b, 64, true);
  cr_assert_eq(ws_dram_schedule(t.d, 0, 0, is, 4, &wake), 2, "two banks issue together");
  cr_expect_eq(is[0].done_cycle, 30);
  cr_expect_eq(is[1].done_cycle, 34, "second burst waits for the bus: 30 + 4");
  cr_expect(is[1].is_write);
  cr_expect_eq(stat(&t, "hbm.ch0.writes"), 1);
  cr_expect_eq(stat(&t, "hbm.ch0.bytes_written"), 64);
  dt_fini(&t);
}

Test(dram, queue_capacity) {
  dt t;
  dt_init(&t);
  for (int i = 0; i < 8; i++) cr_expect(ws_dram_reserve(t.d, 1));
  cr_expect_not(ws_dram_reserve(t.d, 1), "queue_depth 8");
  cr_expect_eq(ws_dram_occupancy(t.d, 1), 8);
  cr_expect(ws_dram_reserve(t.d, 0), "channels are independent");
  ws_dram_reset(t.d);
  cr_expect_eq(ws_dram_occupancy(t.d, 1), 0);
  dt_fini(&t);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

Test(dram, mapping_is_a_bijection_and_spreads) {
  dt t;
  dt_init(&t);
  enum { N = 4096 };
  uint64_t *key = malloc(N * sizeof *key);
  uint32_t per_ch[2] = {0};
  for (uint64_t ln = 0; ln < N; ln++) {
    uint32_t ch = ws_dram_channel(t.d, ln * 128), bank;
    uint64_t row;
    ws_dram_locate(t.d, ln * 128, &bank, &row);
    uint64_t col = ln / 2 % 8; /* line within its row: 1024 B rows hold 8 lines */
    key[ln] = ((row * 4 + bank) * 2 + ch) * 8 + col;
    per_ch[ch]++;
  }
  qsort(key, N, sizeof *key, cmp_u64);
  for (int i = 1; i < N; i++) cr_assert_neq(key[i], key[i - 1], "two lines share a location");
  cr_expect_eq(per_ch[0], N / 2);
  /* a stride of 2 lines (= channels) still alternates channels */
  cr_expect_neq(ws_dram_channel(t.d, 0), ws_dram_channel(t.d, 2 * 128));
  dt_fini(&t);
}

Test(dram, destroy_null_is_a_no_op) { ws_dram_destroy(NULL); }
