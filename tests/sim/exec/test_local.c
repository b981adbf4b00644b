/* test_local.c - local memory (.local, LDL/STL; sim/exec/local.h) end to
 * end: every thread reads back what it stored, per thread, in functional
 * and timed launches; an offset past .local faults with a located report;
 * the launch refuses a window device memory cannot hold; occupancy does not
 * change. Expected values are computed from each thread's id. */
#include <inttypes.h>

#include "sim/exec/local.h"
#include "tests/sim/simtest.h"

/* Thread g (global id) stores g at 0, g+1..g+4 with one .128 at 16, 2g and
 * 3g with a .64 at 32 + (tid % 4) * 8 (a register offset) and g+1000 at 92,
 * the last word, then loads them back in another order and writes
 * {g, g+1000, 2g, 3g, g+1, g+2, g+3, g+4} to out[8g..8g+7]. */
static const char spill_src[] = ".kernel spill\n.param .ptr out\n.local 96\n"
                                "S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nS2R R2, SR_NTID.X\n"
                                "IMAD R3, R1, R2, R0\n"
                                "STL [RZ], R3\n"
                                "IADD R8, R3, 1\nIADD R9, R3, 2\nIADD R10, R3, 3\nIADD R11, R3, 4\n"
                                "STL.128 [RZ+16], R8\n"
                                "AND R5, R0, 3\nSHL R5, R5, 3\n"
                                "IADD R12, R3, R3\nIMUL R13, R3, 3\n"
                                "STL.64 [R5+32], R12\n"
                                "IADD R4, R3, 1000\nSTL [RZ+92], R4\n"
                                "LDL R20, [RZ]\nLDL R21, [RZ+92]\nLDL.64 R22, [R5+32]\nLDL.128 R24, [RZ+16]\n"
                                "LDP.64 R30, [out]\nSHL R6, R3, 5\nIMAD.WIDE.U32 R30, R6, 1, R30\n"
                                "STG.128 [R30], R20\nSTG.128 [R30+16], R24\nEXIT\n";

static void spill_case(ws_exec_mode mode, uint32_t grid, uint32_t block) {
  simtest t;
  st_init(&t, spill_src, "spill");
  ws_device_set_mode(t.dev, mode);
  uint32_t n = grid * block;
  uint64_t out = st_buf(&t, "out", (size_t)n * 32u, NULL);
  uint64_t before = ws_device_allocated_bytes(t.dev);
  st_run(&t, grid, block);
  cr_expect_eq(ws_device_allocated_bytes(t.dev), before, "the window is released after the launch");
  uint32_t *got = malloc((size_t)n * 32u);
  cr_assert_not_null(got);
  st_read(&t, got, out, (size_t)n * 32u);
  for (uint32_t g = 0; g < n; g++) {
    const uint32_t want[8] = {g, g + 1000, 2 * g, 3 * g, g + 1, g + 2, g + 3, g + 4};
    for (uint32_t i = 0; i < 8; i++)
      cr_expect_eq(got[8 * g + i], want[i], "thread %u word %u: %u, expected %u (mode %d)", g, i,
                   got[8 * g + i], want[i], (int)mode);
  }
  free(got);
  st_fini(&t);
}

Test(local, each_thread_reads_back_what_it_stored_functional) { spill_case(WS_MODE_FUNCTIONAL, 5, 80); }

/* timed: many CTAs resident on each SM at once, each warp in its own region */
Test(local, each_thread_reads_back_what_it_stored_timed) { spill_case(WS_MODE_TIMING, 300, 96); }

Test(local, an_offset_past_local_faults_with_the_lane_and_instruction) {
  simtest t;
  st_init(&t, ".kernel t\n.local 16\nS2R R0, SR_TID.X\nSHL R1, R0, 2\nLDL R2, [R1]\nEXIT\n", "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(
      ws_errmsg(t.ctx),
      "invalid local read of size 4 at offset 0x10: offset is past the end of the thread's local "
      "memory (.local is 16 bytes)\n    in kernel 't' CTA (0,0,0) warp 0 lane 4 pc 2: LDL.32 R2, [R1]");
  st_fini(&t);
}

Test(local, a_misaligned_offset_faults) {
  simtest t;
  st_init(&t, ".kernel t\n.local 64\nS2R R0, SR_TID.X\nSHL R1, R0, 3\nSTL.64 [R1+4], R2\nEXIT\n", "t");
  ws_device_set_mode(t.dev, WS_MODE_TIMING);
  /* lane 0: offset 4, not 8-aligned */
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "misaligned local write of size 8 at offset 0x4\n    in kernel 't' CTA (0,0,0) "
                   "warp 0 lane 0 pc 2: STL.64 [R1+0x4], R2");
  st_fini(&t);
}

Test(local, a_window_device_memory_cannot_hold_is_refused) {
  ws_gpu_cfg cfg = ws_config_default();
  simtest t;
  st_init_cfg(&t, ".kernel big\n.local 524288\nSTL [RZ], R0\nEXIT\n", "big", &cfg);
  const ws_gpu_cfg *c = &cfg;
  uint64_t threads = ((uint64_t)c->gpu.num_sms * c->sm.max_warps_per_sm + 1) * 32;
  uint64_t need = threads * 524288;
  cr_assert_gt(need, c->gpu.dram_size_bytes, "the case needs more than the device has");
  char want[512];
  snprintf(want, sizeof want,
           "kernel 'big' needs %" PRIu64 " bytes of local memory (.local 524288 bytes x %" PRIu64
           " threads: %u SMs x %u resident threads, and one block); the device has %" PRIu64
           " of its %" PRIu64 " bytes free",
           need, threads, c->gpu.num_sms, c->sm.max_warps_per_sm * 32, c->gpu.dram_size_bytes,
           c->gpu.dram_size_bytes);
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_LIMIT);
  cr_expect_str_eq(ws_errmsg(t.ctx), want);
  st_fini(&t);
}

Test(local, local_memory_does_not_limit_occupancy) {
  simtest t;
  st_init(&t, ".kernel a\n.local 4096\nSTL [RZ], R7\nEXIT\n.kernel b\nMOV R7, 0\nEXIT\n", "a");
  const ws_kernel *b = ws_program_find_kernel(t.prog, "b");
  ws_occupancy with, without;
  cr_assert_eq(ws_device_occupancy(t.dev, t.k, (ws_dim3){256, 1, 1}, 0, &with), WS_OK);
  cr_assert_eq(ws_device_occupancy(t.dev, b, (ws_dim3){256, 1, 1}, 0, &without), WS_OK);
  cr_expect_eq(t.k->regs_per_thread, b->regs_per_thread);
  cr_expect_eq(with.ctas_per_sm, without.ctas_per_sm);
  cr_expect_eq(with.limiter, without.limiter);
  st_fini(&t);
}

Test(local, layout_interleaves_words_across_the_warp) {
  /* word w of lane L: region + (w * 32 + L) * 4 */
  cr_expect_eq(ws_local_addr(0x1000, 0, 0), 0x1000);
  cr_expect_eq(ws_local_addr(0x1000, 1, 0), 0x1004);
  cr_expect_eq(ws_local_addr(0x1000, 31, 0), 0x107c);
  cr_expect_eq(ws_local_addr(0x1000, 0, 4), 0x1080);
  cr_expect_eq(ws_local_addr(0x1000, 5, 40), 0x1000 + (10 * 32 + 5) * 4);
  cr_expect_eq(ws_local_region_bytes(96), 96 * 32);
  cr_expect_eq(ws_local_window_slots(132, 64, 4), 132 * 64 + 4);
}
