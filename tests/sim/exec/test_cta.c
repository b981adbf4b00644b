/* test_barrier.c - BAR.SYNC: cross-warp communication through shared
 * memory, divergent-barrier faults, and barriers with exited threads. */
#include "tests/sim/simtest.h"

Test(barrier, shared_reversal_across_warps) {
  const char *k = ".kernel t\n.param .ptr out\n.shared buf 512\n"
                  "S2R R0, SR_TID.X\nSHL R1, R0, 2\nSTS.32 [R1+buf], R0\nBAR.SYNC\n"
                  "XOR R2, R1, 0x1FC\nLDS.32 R3, [R2+buf]\n"
                  "LDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nSTG.32 [R4], R3\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  uint64_t o = st_buf(&t, "out", 128 * 4, NULL);
  st_run(&t, 2, 128);
  uint32_t out[128];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 128; i++) cr_expect_eq(out[i], 127 - i, "thread %u", i);
  st_fini(&t);
}

Test(barrier, divergent_barrier_faults) {
  const char *k = ".kernel t\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 48\n@P0 BRA skip\nBAR.SYNC\nskip:\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "divergent barrier: reached by 16 of 32 live threads of warp 1 (lanes 0-15)\n"
                   "    in kernel 't' CTA (0,0,0) warp 1 pc 3: BAR.SYNC");
  st_fini(&t);
}

Test(barrier, divergent_barrier_lane_list) {
  const char *k = ".kernel t\nS2R R0, SR_LANEID\nAND R1, R0, 9\nISETP.EQ.U32 P0, R1, 9\n@P0 BRA skip\nBAR.SYNC\nskip:\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){2, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "divergent barrier: reached by 24 of 32 live threads of warp 0 "
                   "(lanes 0-8,10,12,14,16-24,26,28,30)\n    in kernel 't' CTA (0,0,0) warp 0 pc 4: BAR.SYNC");
  st_fini(&t);
}

Test(barrier, exited_threads_count_as_arrived) {
  /* if (tid >= n) return; __syncthreads(); - with 96 threads and n = 80
   * warp 2 keeps lanes 0..15; warp 1 (tids 32..63) leaves entirely */
  const char *k = ".kernel t\n.param .u32 n\n.param .ptr out\n.shared buf 512\n"
                  "S2R R0, SR_TID.X\nLDP.32 R9, [n]\nISETP.GE.U32 P0, R0, R9\n@P0 EXIT\n"
                  "ISETP.GE.U32 P1, R0, 32\nISETP.LT.U32 P2, R0, 64\n"
                  "SHL R1, R0, 2\nSTS.32 [R1+buf], R0\n@P1 BRA chk\nBRA go\nchk:\n@P2 EXIT\ngo:\nBAR.SYNC\n"
                  "MOV R7, 79\nISUB R2, R7, R0\nSHL R2, R2, 2\nLDS.32 R3, [R2+buf]\n"
                  "LDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nSTG.32 [R4], R3\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  st_u32(&t, "n", 80);
  uint64_t o = st_buf(&t, "out", 96 * 4, NULL);
  st_run(&t, 1, 96);
  uint32_t out[96];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 96; i++) {
    uint32_t want = (i < 32 || (i >= 64 && i < 80)) ? 79 - i : 0;
    cr_expect_eq(out[i], want, "thread %u", i);
  }
  st_fini(&t);
}

Test(barrier, waiting_warps_released_when_the_rest_exit) {
  /* warp 0 waits at the barrier; warps 1..3 exit without reaching it */
  const char *k = ".kernel t\n.param .ptr out\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 32\n@P0 EXIT\n"
                  "BAR.SYNC\nBAR.SYNC\nLDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nMOV R1, 1\nSTG.32 [R4], R1\n";
  simtest t;
  st_init(&t, k, "t");
  uint64_t o = st_buf(&t, "out", 128 * 4, NULL);
  st_run(&t, 3, 128);
  uint32_t out[128];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 128; i++) cr_expect_eq(out[i], i < 32);
  st_fini(&t);
}

Test(barrier, barrier_in_a_loop) {
  /* 4 rounds: each thread adds its neighbour's value from the last round */
  const char *k = ".kernel t\n.param .ptr out\n.shared buf 256\n"
                  "S2R R0, SR_TID.X\nSHL R1, R0, 2\nMOV R3, 1\nMOV R6, 0\n"
                  "loop:\nSTS.32 [R1+buf], R3\nBAR.SYNC\nIADD R2, R0, 1\nAND R2, R2, 63\nSHL R2, R2, 2\n"
                  "LDS.32 R5, [R2+buf]\nBAR.SYNC\nIADD R3, R3, R5\nIADD R6, R6, 1\nISETP.LT.U32 P0, R6, 4\n@P0 BRA loop\n"
                  "LDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nSTG.32 [R4], R3\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  uint64_t o = st_buf(&t, "out", 64 * 4, NULL);
  st_run(&t, 1, 64);
  uint32_t out[64];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 64; i++) cr_expect_eq(out[i], 16, "all values double each round: 1,2,4,8,16");
  st_fini(&t);
}
