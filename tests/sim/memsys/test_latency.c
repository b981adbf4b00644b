/* test_latency.c - the idle load-to-use latency formula on its own, with
 * numbers worked out by hand for each term: the L1 port, the two crossbar
 * hops (header out, sector back), the far-partition extra, DRAM timings in
 * picoseconds rounded up to core cycles, and the bus time of one sector.
 *
 * Why: test_memsys.c checks that the simulator lands on this formula; this
 * suite checks the formula itself against arithmetic, so both cannot drift
 * together. No component is built. */
#include <criterion/criterion.h>

#include "sim/memsys/latency.h"
#include "tests/sim/memsys/memtest.h"

/* The latency on a resolved copy of *c (the suites edit fields first). */
static uint64_t lat(const ws_gpu_cfg *c, ws_mem_level l) {
  ws_gpu_cfg r = *c;
  mt_resolve(&r);
  return ws_latency_idle_cycles(&r, l);
}

/* mt_cfg(): L1 20; to slice 10 + ceil(8/32) - 1 = 10; back 10 + ceil(32/32) - 1 = 10;
 * L2 near 20 + 10 + 100 + 10 = 140; DRAM 140 + 2 * 20 + 14 + 14 + 32/16 = 210. */
Test(latency, memtest_config) {
  ws_gpu_cfg c = mt_cfg();
  cr_expect_eq(lat(&c, WS_LEVEL_L1_HIT), 20);
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 140);
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_FAR), 140, "one partition: the far extra does not apply");
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 210);
  c.l2.partitions = 2;
  c.l2.far_extra_lat_cycles = 30;
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_FAR), 170, "two partitions: + 30 once");
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 140);
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 210, "the DRAM level is the near path");
}

/* Narrow ports add their extra beats: an L1 port of 16 B/cycle needs 2 beats
 * for a 32-byte sector (+1, counted on the hit and on the L2 paths); an SM
 * port of 4 B/cycle needs 2 beats for the 8-byte header (+1); a slice port of
 * 8 B/cycle needs 4 beats for the sector (+3). */
Test(latency, port_widths_add_beats) {
  ws_gpu_cfg c = mt_cfg();
  c.l1.port_bytes_per_cycle = 16;
  cr_expect_eq(lat(&c, WS_LEVEL_L1_HIT), 21);
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 141, "the fill reaches the warp through the port too");
  c.noc.sm_port_bytes_per_cycle = 4;
  c.noc.slice_port_bytes_per_cycle = 8;
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 141 + 1 + 3);
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 145 + 40 + 14 + 14 + 2);
}

/* At 1500 MHz a cycle is 666.67 ps: tRCD 13500 ps = 20.25 -> 21 cycles,
 * tCL 14000 ps = 21 cycles exactly; 32 bytes at 16000 MB/s take
 * 32 * 1500 / 16000 = 3 cycles. */
Test(latency, dram_terms_round_up_to_core_cycles) {
  ws_gpu_cfg c = mt_cfg();
  c.gpu.core_clock_mhz = 1500;
  c.hbm.t_rcd_ps = 13500;
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 140 + 40 + 21 + 21 + 3);
  /* a 64-byte burst moves 64 bytes for a 32-byte sector: 64 * 1500 / 16000 = 6 */
  c.hbm.burst_bytes = 64;
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 140 + 40 + 21 + 21 + 6);
  /* the L1 and L2 levels do not depend on the DRAM keys */
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 140);
}

/* The a100 preset's own comments state its calibration targets: near hit
 * 33 + 2 x 45 + 85 = 208, far 208 + 149 = 357, near miss 476
 * (= 208 + 2 x 113 + tRCD 14 ns and tCL 14 ns at 1410 MHz, 19.74 -> 20 each,
 * + one 32-byte burst at 38875 MB/s, 1.16 -> 2). */
Test(latency, a100_preset) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &c), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  cr_expect_eq(lat(&c, WS_LEVEL_L1_HIT), 33);
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_NEAR), 208);
  cr_expect_eq(lat(&c, WS_LEVEL_L2_HIT_FAR), 357);
  cr_expect_eq(lat(&c, WS_LEVEL_DRAM_ROW_MISS), 476);
}
