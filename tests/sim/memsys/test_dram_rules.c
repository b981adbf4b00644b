/* test_dram_rules.c - the JEDEC rules between a channel's commands, each
 * worked by hand at memtest.h's 1 GHz (1000 ps = 1 cycle; tRCD = tCL = 14,
 * a 32-byte burst 2 cycles): activate spacing by bank group and the
 * four-activate window, the bus turnarounds, refresh taken in idle time or
 * postponed rather than making an arrival wait, per-bank refresh, and write
 * draining. */
#include <criterion/criterion.h>

#include "sim/memsys/dram.h"
#include "tests/sim/memsys/memtest.h"

typedef struct rt {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_dram *d;
  ws_gpu_cfg cfg;
} rt;

static void rt_init(rt *t, ws_cfg_hbm rules) {
  t->cfg = mt_cfg();
  t->cfg.hbm.bank_groups = rules.bank_groups;
  t->cfg.hbm.banks_per_channel =
      rules.banks_per_channel ? rules.banks_per_channel : t->cfg.hbm.banks_per_channel;
  t->cfg.hbm.t_rrd_s_ps = rules.t_rrd_s_ps, t->cfg.hbm.t_rrd_l_ps = rules.t_rrd_l_ps;
  t->cfg.hbm.t_faw_ps = rules.t_faw_ps;
  t->cfg.hbm.t_wtr_ps = rules.t_wtr_ps, t->cfg.hbm.t_rtw_ps = rules.t_rtw_ps;
  t->cfg.hbm.t_refi_ps = rules.t_refi_ps, t->cfg.hbm.t_rfc_ps = rules.t_rfc_ps;
  t->cfg.hbm.t_rfcsb_ps = rules.t_rfcsb_ps;
  t->cfg.hbm.write_high = rules.write_high, t->cfg.hbm.write_low = rules.write_low;
  mt_resolve(&t->cfg);
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  cr_assert_eq(ws_dram_create(t->ctx, &t->cfg, t->stats, &t->d), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void rt_fini(rt *t) {
  ws_dram_destroy(t->d);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

/* The n-th line of channel 0 in (bank, row). */
static uint64_t line_at(rt *t, uint32_t bank, uint64_t row, uint32_t n) {
  for (uint64_t ln = 0;; ln++) {
    uint32_t b;
    uint64_t r;
    if (ws_dram_channel(t->d, ln * 128) != 0) continue;
    ws_dram_locate(t->d, ln * 128, &b, &r);
    if (b == bank && r == row && n-- == 0) return ln * 128;
  }
}

static void put(rt *t, uint32_t id, uint64_t line, bool write) {
  cr_assert(ws_dram_reserve(t->d, 0));
  ws_dram_enqueue(t->d, 0, id, line, 32, write);
}

/* Schedules at `now`; out holds the issues, returns how many. */
static uint32_t run(rt *t, uint64_t now, ws_dram_issue *out) {
  uint64_t wake;
  return ws_dram_schedule(t->d, 0, now, out, 8, &wake);
}

static uint64_t stat(rt *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(t->stats, name, &v), "%s", name);
  return v;
}

Test(dram_rules, activates_keep_their_spacing_and_window) {
  rt t;
  rt_init(&t, (ws_cfg_hbm){.banks_per_channel = 8,
                           .bank_groups = 2,
                           .t_rrd_s_ps = 2000,
                           .t_rrd_l_ps = 3000,
                           .t_faw_ps = 20000});
  for (uint32_t b = 0; b < 5; b++) put(&t, b + 1, line_at(&t, b, 0, 0), false);
  ws_dram_issue is[8];
  cr_assert_eq(run(&t, 0, is), 5);
  /* activates: bank 0 (group 0) at 0; bank 1 (group 1) tRRD_S later, 2; bank 2
   * (group 0) max(2 + 2, 0 + 3) = 4; bank 3 at 6; bank 4 would be 8, but it is
   * the fifth in the window: 0 + tFAW = 20. Each read: column 14 later, data
   * 14 after that, 2 cycles on a bus that serialises them. */
  cr_expect_eq(is[0].done_cycle, 0 + 14 + 14 + 2);
  cr_expect_eq(is[1].done_cycle, 32, "data ready at 30, after bank 0's burst");
  cr_expect_eq(is[2].done_cycle, 34);
  cr_expect_eq(is[3].done_cycle, 36);
  cr_expect_eq(is[4].done_cycle, 20 + 14 + 14 + 2, "the four-activate window");
  rt_fini(&t);
}

Test(dram_rules, the_bus_turns_around) {
  rt t;
  rt_init(&t, (ws_cfg_hbm){.t_wtr_ps = 10000, .t_rtw_ps = 7000});
  uint64_t a = line_at(&t, 1, 0, 0), b = line_at(&t, 1, 0, 1), c = line_at(&t, 1, 0, 2);
  ws_dram_issue is[8];
  put(&t, 1, a, false);
  cr_assert_eq(run(&t, 0, is), 1);
  cr_expect_eq(is[0].done_cycle, 30, "read, closed bank: column at 14");
  put(&t, 2, b, true);
  cr_assert_eq(run(&t, 20, is), 1);
  cr_expect_eq(is[0].done_cycle, 21 + 14 + 2, "write to the open row: column at 14 + tRTW 7 = 21, not 20");
  put(&t, 3, c, false);
  cr_assert_eq(run(&t, 25, is), 1);
  cr_expect_eq(is[0].done_cycle, 31 + 14 + 2, "read after it: column at 21 + tWTR 10 = 31, not 25");
  cr_expect_eq(stat(&t, "hbm.ch0.turnarounds"), 2);
  rt_fini(&t);
}

Test(dram_rules, refresh_in_idle_time_never_makes_an_arrival_wait) {
  rt t;
  rt_init(&t, (ws_cfg_hbm){.t_refi_ps = 100000, .t_rfc_ps = 20000});
  uint64_t a = line_at(&t, 1, 0, 0), b = line_at(&t, 1, 0, 1), c = line_at(&t, 1, 0, 2);
  ws_dram_issue is[8];
  put(&t, 1, a, false);
  cr_assert_eq(run(&t, 0, is), 1);
  cr_expect_eq(is[0].done_cycle, 30);
  /* idle from 30: the refresh due at 100 ran [100, 120) and closed the row */
  put(&t, 2, b, false);
  cr_assert_eq(run(&t, 130, is), 1);
  cr_expect_eq(is[0].done_cycle - 130, 14 + 14 + 2, "the row was closed by the refresh: a miss");
  cr_expect_eq(stat(&t, "hbm.ch0.refreshes"), 1);
  /* idle from 160: the refresh due at 200 would run until 220; an arrival at
   * 205 does not wait for it: it is postponed, and paid when the channel is
   * idle again */
  put(&t, 3, c, false);
  cr_assert_eq(run(&t, 205, is), 1);
  cr_expect_eq(is[0].done_cycle - 205, 14 + 2, "a row hit, on time");
  cr_expect_eq(stat(&t, "hbm.ch0.refreshes"), 2, "taken as soon as the channel went idle");
  rt_fini(&t);
}

/* Four banks, tREFI 400: a bank refreshes every 100 cycles, in turn from
 * bank 0, for tRFCsb 30, while the others serve. */
Test(dram_rules, per_bank_refresh_holds_one_bank) {
  rt t;
  rt_init(&t,
          (ws_cfg_hbm){.banks_per_channel = 4, .t_refi_ps = 400000, .t_rfc_ps = 100000, .t_rfcsb_ps = 30000});
  uint64_t a = line_at(&t, 1, 0, 0), b = line_at(&t, 1, 0, 1), c = line_at(&t, 0, 0, 0),
           e = line_at(&t, 1, 0, 2);
  ws_dram_issue is[8];
  put(&t, 1, a, false);
  cr_assert_eq(run(&t, 0, is), 1);
  cr_expect_eq(is[0].done_cycle, 30, "closed bank: column at 14, data 14 later, 2 cycles of burst");
  /* bank 0 refreshes over [100, 130); bank 1 keeps its open row */
  put(&t, 2, b, false);
  cr_assert_eq(run(&t, 105, is), 1);
  cr_expect_eq(is[0].done_cycle, 105 + 14 + 2, "a row hit in bank 1 during bank 0's refresh");
  cr_expect_eq(stat(&t, "hbm.ch0.refreshes"), 1);
  put(&t, 3, c, false);
  uint64_t wake = 0;
  cr_assert_eq(ws_dram_schedule(t.d, 0, 110, is, 8, &wake), 0, "bank 0 is refreshing");
  cr_expect_eq(wake, 130, "the controller wakes when bank 0's refresh is over");
  cr_assert_eq(run(&t, 130, is), 1);
  cr_expect_eq(is[0].done_cycle, 130 + 14 + 14 + 2, "bank 0 activates then");
  /* bank 1's turn at 200: its row closes, it is busy until 230 */
  put(&t, 4, e, false);
  cr_assert_eq(run(&t, 240, is), 1);
  cr_expect_eq(is[0].done_cycle, 240 + 14 + 14 + 2, "the refresh closed bank 1's row: a miss");
  cr_expect_eq(stat(&t, "hbm.ch0.refreshes"), 2);
  rt_fini(&t);
}

Test(dram_rules, writes_wait_for_their_watermark) {
  rt t;
  rt_init(&t, (ws_cfg_hbm){.write_high = 3, .write_low = 1});
  ws_dram_issue is[8];
  put(&t, 1, line_at(&t, 0, 0, 0), true);
  put(&t, 2, line_at(&t, 0, 0, 1), true);
  put(&t, 3, line_at(&t, 1, 0, 0), false);
  cr_assert_eq(run(&t, 0, is), 2, "bank 0 takes one command at a time");
  cr_expect_eq(is[0].id, 3, "two writes are below the watermark: the younger read goes first");
  cr_expect(is[1].is_write);
  rt_fini(&t);
  rt_init(&t, (ws_cfg_hbm){.write_high = 3, .write_low = 1});
  for (uint32_t i = 0; i < 3; i++) put(&t, i + 1, line_at(&t, i, 0, 0), true);
  put(&t, 4, line_at(&t, 3, 0, 0), false);
  cr_assert_eq(run(&t, 0, is), 4);
  cr_expect(is[0].is_write && is[1].is_write, "three writes: they drain first, down to one");
  cr_expect_eq(is[2].id, 4, "then the read");
  rt_fini(&t);
}
