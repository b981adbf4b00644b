/* test_warp.c - one warp's architectural state: allocation (nrows + a zero
 * row + a sink row), reset (registers and predicates cleared, PT all ones,
 * live lanes, a fresh SIMT stack at pc 0, counters zeroed), the RZ and
 * out-of-range rows, and the lane count.
 *
 * Why: the executor never tests for RZ per lane: it relies on the zero row
 * staying zero and the sink row taking the writes. If a reset or a write
 * reached the zero row, every later read of RZ would be wrong. */
#include <criterion/criterion.h>

#include "sim/exec/warp.h"

Test(warp, init_allocates_a_done_warp) {
  ws_warp w;
  cr_assert(ws_warp_init(&w, 6));
  cr_expect_eq(w.nrows, 6);
  cr_expect_eq(w.state, WS_WARP_DONE, "no lanes until reset");
  for (uint32_t i = 0; i < (6 + 2) * WS_WARP_LANES; i++) cr_expect_eq(w.regs[i], 0);
  ws_warp_free(&w);
  cr_expect_null(w.regs);
  ws_warp_free(&w); /* freeing twice is harmless */
}

Test(warp, reset_starts_the_lanes_at_pc_0) {
  ws_warp w;
  cr_assert(ws_warp_init(&w, 4));
  for (uint32_t i = 0; i < 5 * WS_WARP_LANES; i++)
    w.regs[i] = 0xDEAD0000u + i; /* rows 0-3 and the zero row */
  for (int p = 0; p < 8; p++) w.preds[p] = 0x5555u;
  w.insns_issued = 77;
  w.async_uncommitted_copies = 3;
  w.async_groups_committed = 2;
  ws_warp_reset(&w, 0x00FFu);
  for (uint32_t i = 0; i < 5 * WS_WARP_LANES; i++) cr_expect_eq(w.regs[i], 0, "word %u", i);
  for (int p = 0; p < 7; p++) cr_expect_eq(w.preds[p], 0, "P%d", p);
  cr_expect_eq(w.preds[WS_PRED_PT], 0xFFFFFFFFu);
  cr_expect_eq(w.live, 0xFFu);
  cr_expect_eq(w.state, WS_WARP_READY);
  cr_expect_eq(w.insns_issued, 0);
  cr_expect_eq(w.async_uncommitted_copies, 0);
  cr_expect_eq(w.async_groups_committed, 0);
  const ws_simt_entry *top = ws_simt_top(&w.simt);
  cr_assert_not_null(top);
  cr_expect_eq(w.simt.depth, 1);
  cr_expect_eq(top->pc, 0);
  cr_expect_eq(top->mask, 0xFFu);
  ws_warp_reset(&w, 0);
  cr_expect_eq(w.state, WS_WARP_DONE, "a warp with no lanes is done at once");
  cr_expect_null(ws_simt_top(&w.simt));
  ws_warp_free(&w);
}

Test(warp, rz_and_rows_past_the_kernel) {
  ws_warp w;
  cr_assert(ws_warp_init(&w, 3));
  ws_warp_reset(&w, 0xFFFFFFFFu);
  /* rows: 0-2 the kernel's, 3 the zero row, 4 the sink row */
  cr_expect_eq(ws_warp_src(&w, 2), w.regs + 2 * WS_WARP_LANES);
  cr_expect_eq(ws_warp_dst(&w, 2), w.regs + 2 * WS_WARP_LANES, "a real register reads and writes one row");
  cr_expect_eq(ws_warp_src(&w, WS_REG_RZ), w.regs + 3 * WS_WARP_LANES);
  cr_expect_eq(ws_warp_src(&w, 3), w.regs + 3 * WS_WARP_LANES, "past the kernel's rows reads zero");
  cr_expect_eq(ws_warp_dst(&w, WS_REG_RZ), w.regs + 4 * WS_WARP_LANES);
  cr_expect_eq(ws_warp_dst(&w, 100), w.regs + 4 * WS_WARP_LANES);
  uint32_t *sink = ws_warp_dst(&w, WS_REG_RZ);
  for (uint32_t l = 0; l < WS_WARP_LANES; l++) sink[l] = 0xFFFFFFFFu;
  for (uint32_t l = 0; l < WS_WARP_LANES; l++)
    cr_expect_eq(ws_warp_src(&w, WS_REG_RZ)[l], 0, "writes to RZ never show in reads");
  ws_warp_free(&w);
}

Test(warp, lane_count) {
  cr_expect_eq(ws_lane_count(0), 0);
  cr_expect_eq(ws_lane_count(1), 1);
  cr_expect_eq(ws_lane_count(0x80000001u), 2);
  cr_expect_eq(ws_lane_count(0xF0F0u), 8);
  cr_expect_eq(ws_lane_count(0x55555555u), 16);
  cr_expect_eq(ws_lane_count(0xFFFFFFFEu), 31);
  cr_expect_eq(ws_lane_count(0xFFFFFFFFu), 32);
  for (uint32_t i = 0; i < 32; i++) cr_expect_eq(ws_lane_count((1u << i) - 1u), i);
}
