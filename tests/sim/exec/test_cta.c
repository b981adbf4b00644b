/* test_cta.c - one CTA: its shape (warps, lanes of the last warp, shared
 * memory), reset (CTA ids from the linear id, SM placement, zeroed state),
 * ws_cta_step's description of each instruction (pc, lanes, guard, flags,
 * counts), exits and running off the end; then BAR.SYNC: arrival and
 * release flags step by step, cross-warp communication through shared
 * memory, divergent-barrier faults, and barriers with exited threads.
 *
 * Why: ws_cta_step is the primitive both launchers drive; the timing model
 * relies on its event flags (DONE, BAR_ARRIVED, BAR_RELEASED) to wake warps,
 * so they are pinned instruction by instruction. */
#include "tests/sim/simtest.h"

#include "sim/exec/cta.h"
#include "sim/exec/mem.h"

/* A CTA of kernel t driven directly, without a device. */
typedef struct ct {
  ws_ctx *ctx;
  ws_program *prog;
  ws_mem *mem;
  uint8_t params[64];
  ws_exec_launch launch;
  ws_cta *cta;
  ws_warp_step step;
  ws_launch_stats stats;
} ct;

static void ct_init(ct *t, const char *src, ws_dim3 grid, ws_dim3 block, uint32_t dyn, uint32_t num_sms) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, src, strlen(src), "cta.wsa", &t->prog), WS_OK, "%s", ws_errmsg(t->ctx));
  t->mem = ws_mem_create(1 << 20);
  t->launch = (ws_exec_launch){.kernel = ws_program_find_kernel(t->prog, "t"),
                               .grid = grid,
                               .block = block,
                               .dyn_shared_bytes = dyn,
                               .params = t->params,
                               .mem = t->mem,
                               .num_sms = num_sms};
  cr_assert(t->launch.kernel);
  cr_assert_eq(ws_cta_create(t->ctx, &t->launch, &t->cta), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void ct_fini(ct *t) {
  ws_cta_destroy(t->cta);
  ws_mem_destroy(t->mem);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

/* Steps warp w once and requires success; returns the step flags. */
static uint16_t ct_step(ct *t, uint32_t w) {
  cr_assert_eq(ws_cta_warp_state(t->cta, w), WS_WARP_READY, "warp %u not ready", w);
  cr_assert_eq(ws_cta_step(t->ctx, t->cta, w, 0, &t->step, &t->stats), WS_OK, "%s", ws_errmsg(t->ctx));
  return t->step.flags;
}

static uint32_t lane_reg(const ct *t, uint32_t w, uint32_t reg, uint32_t lane) {
  return ws_warp_src(&t->cta->warps[w], reg)[lane];
}

Test(cta, shape_and_reset) {
  ct t;
  /* 20 x 2 = 40 threads: warp 0 full, warp 1 lanes 0-7; 100 + 28 bytes of shared memory */
  ct_init(&t, ".kernel t\n.shared s 100\nEXIT\n", (ws_dim3){3, 2, 2}, (ws_dim3){20, 2, 1}, 28, 4);
  ws_cta *c = t.cta;
  cr_expect_eq(c->nthreads, 40);
  cr_expect_eq(c->nwarps, 2);
  cr_expect_eq(c->smem_bytes, 128);
  /* linear id 7 in a 3 x 2 x 2 grid: x = 7 % 3 = 1, y = 7 / 3 % 2 = 0, z = 7 / 6 = 1 */
  ws_cta_reset(c, 7);
  cr_expect_eq(c->linear_id, 7);
  cr_expect_eq(c->ctaid.x, 1);
  cr_expect_eq(c->ctaid.y, 0);
  cr_expect_eq(c->ctaid.z, 1);
  cr_expect_eq(c->sm_id, 3, "7 mod 4 SMs");
  cr_expect_eq(c->warps[0].live, 0xFFFFFFFFu);
  cr_expect_eq(c->warps[1].live, 0xFFu, "lanes past the block never exist");
  cr_expect_eq(ws_cta_warp_state(c, 1), WS_WARP_READY);
  cr_expect_eq(ws_cta_warp_pc(c, 1), 0);
  cr_expect_eq(c->warps_done, 0);
  cr_expect_not(ws_cta_done(c));
  /* id 11 = (2, 1, 1) */
  ws_cta_reset(c, 11);
  cr_expect_eq(c->ctaid.x, 2);
  cr_expect_eq(c->ctaid.y, 1);
  cr_expect_eq(c->ctaid.z, 1);
  ct_fini(&t);
  /* no SM count: everything on SM 0 */
  ct_init(&t, ".kernel t\nEXIT\n", (ws_dim3){8, 1, 1}, (ws_dim3){32, 1, 1}, 0, 0);
  ws_cta_reset(t.cta, 5);
  cr_expect_eq(t.cta->sm_id, 0);
  cr_expect_eq(t.cta->nwarps, 1);
  ct_fini(&t);
}

Test(cta, reset_zeroes_shared_memory_and_registers) {
  ct t;
  ct_init(&t, ".kernel t\n.shared s 64\nIADD R3, R3, 5\nEXIT\n", (ws_dim3){2, 1, 1}, (ws_dim3){32, 1, 1}, 0,
          1);
  ws_cta_reset(t.cta, 0);
  memset(t.cta->smem, 0xAB, 64);
  ct_step(&t, 0);
  cr_expect_eq(lane_reg(&t, 0, 3, 17), 5);
  ws_cta_reset(t.cta, 1);
  for (int i = 0; i < 64; i++) cr_expect_eq(t.cta->smem[i], 0);
  cr_expect_eq(lane_reg(&t, 0, 3, 17), 0);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 0);
  ct_fini(&t);
}

/* 40 threads; P0 = tid < 5. Warp 1 (tids 32-39, lanes 0-7) never has P0. */
Test(cta, step_describes_each_instruction) {
  ct t;
  ct_init(&t, ".kernel t\nS2R R0, SR_TID.X\nISETP.LT.U32 P0, R0, 5\n@P0 IADD R1, R0, 1\nEXIT\n",
          (ws_dim3){1, 1, 1}, (ws_dim3){40, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  cr_expect_eq(ct_step(&t, 1), 0);
  cr_expect_eq(t.step.pc, 0);
  cr_expect_eq(t.step.op, WS_OP_S2R);
  cr_expect_eq(t.step.active_mask, 0xFF);
  cr_expect_eq(lane_reg(&t, 1, 0, 7), 39);
  ct_step(&t, 1);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 2);
  ct_step(&t, 1);
  cr_expect_eq(t.step.op, WS_OP_IADD);
  cr_expect_eq(t.step.active_mask, 0, "guard false in every lane: issued, nothing executed");
  cr_expect_eq(lane_reg(&t, 1, 1, 0), 0);
  cr_expect_eq(ct_step(&t, 1), WS_STEP_DONE);
  cr_expect_eq(t.step.op, WS_OP_EXIT);
  cr_expect_eq(ws_cta_warp_state(t.cta, 1), WS_WARP_DONE);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 4, "a finished warp's pc is ninsns");
  cr_expect_eq(t.cta->warps_done, 1);
  for (int i = 0; i < 3; i++) ct_step(&t, 0);
  cr_expect_eq(t.step.active_mask, 0x1F, "lanes 0-4 have P0");
  for (uint32_t l = 0; l < 32; l++) cr_expect_eq(lane_reg(&t, 0, 1, l), l < 5 ? l + 1 : 0, "lane %u", l);
  cr_expect_eq(ct_step(&t, 0), WS_STEP_DONE);
  cr_expect(ws_cta_done(t.cta));
  /* 8 warp instructions; threads: warp 1 8 + 8 + 0 + 8, warp 0 32 + 32 + 5 + 32 */
  cr_expect_eq(t.stats.warp_insns, 8);
  cr_expect_eq(t.stats.thread_insns, 24 + 101);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_INT], 6);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_CTRL], 2);
  cr_expect_eq(t.cta->warps[0].insns_issued, 4);
  ct_fini(&t);
}

Test(cta, sr_clock_reads_the_clock_argument) {
  ct t;
  ct_init(&t, ".kernel t\nS2R R1, SR_CLOCK\nEXIT\n", (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  cr_assert_eq(ws_cta_step(t.ctx, t.cta, 0, 0x100000123ull, &t.step, NULL), WS_OK, "stats may be NULL");
  cr_expect_eq(lane_reg(&t, 0, 1, 31), 0x123, "the low 32 bits");
  ct_fini(&t);
}

Test(cta, partial_exit_and_running_off_the_end) {
  ct t;
  /* lanes 16-31 exit; the rest run off the end after the IADD */
  ct_init(&t, ".kernel t\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 16\n@P0 EXIT\nIADD R1, R0, 1\n",
          (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  ct_step(&t, 0);
  ct_step(&t, 0);
  cr_expect_eq(ct_step(&t, 0), 0, "some lanes remain: not done");
  cr_expect_eq(t.step.active_mask, 0xFFFF0000u);
  cr_expect_eq(t.cta->warps[0].live, 0xFFFFu);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 3);
  cr_expect_eq(ct_step(&t, 0), WS_STEP_DONE, "past the last instruction is an exit");
  cr_expect_eq(t.step.active_mask, 0xFFFFu);
  cr_expect_eq(t.cta->warps[0].live, 0);
  cr_expect(ws_cta_done(t.cta));
  ct_fini(&t);
}

Test(cta, barrier_flags_step_by_step) {
  ct t;
  ct_init(&t, ".kernel t\nBAR.SYNC\nEXIT\n", (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  cr_expect_eq(ct_step(&t, 0), WS_STEP_BAR_ARRIVED);
  cr_expect_eq(ws_cta_warp_state(t.cta, 0), WS_WARP_AT_BARRIER);
  cr_expect_eq(t.cta->warps_waiting, 1);
  cr_expect_eq(ct_step(&t, 1), WS_STEP_BAR_ARRIVED | WS_STEP_BAR_RELEASED, "the last arrival releases");
  cr_expect_eq(t.cta->warps_waiting, 0);
  cr_expect_eq(ws_cta_warp_state(t.cta, 0), WS_WARP_READY);
  cr_expect_eq(ws_cta_warp_state(t.cta, 1), WS_WARP_READY);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 1);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 1);
  ct_fini(&t);
}

Test(cta, an_exit_releases_the_waiting_warps) {
  ct t;
  ct_init(&t, ".kernel t\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 32\n@P0 EXIT\nBAR.SYNC\nEXIT\n",
          (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  for (int i = 0; i < 3; i++) ct_step(&t, 0);
  cr_expect_eq(t.step.active_mask, 0, "warp 0 has no lane with P0");
  cr_expect_eq(ct_step(&t, 0), WS_STEP_BAR_ARRIVED);
  ct_step(&t, 1);
  ct_step(&t, 1);
  cr_expect_eq(ct_step(&t, 1), WS_STEP_DONE | WS_STEP_BAR_RELEASED, "exited warps count as arrived");
  cr_expect_eq(ws_cta_warp_state(t.cta, 0), WS_WARP_READY);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 4);
  ct_fini(&t);
}

Test(cta, divergent_barrier_is_a_fault) {
  ct t;
  ct_init(&t, ".kernel t\nS2R R0, SR_TID.X\nISETP.LT.U32 P0, R0, 8\n@P0 BAR.SYNC\nEXIT\n", (ws_dim3){1, 1, 1},
          (ws_dim3){32, 1, 1}, 0, 1);
  ws_cta_reset(t.cta, 0);
  ct_step(&t, 0);
  ct_step(&t, 0);
  cr_expect_eq(ws_cta_step(t.ctx, t.cta, 0, 0, &t.step, NULL), WS_ERR_FAULT, "8 of 32 live lanes");
  cr_expect_eq(t.cta->warps_waiting, 0, "the warp did not arrive");
  ct_fini(&t);
}

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
  const char *k =
      ".kernel t\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 48\n@P0 BRA skip\nBAR.SYNC\nskip:\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "divergent barrier: reached by 16 of 32 live threads of warp 1 (lanes 0-15)\n"
                   "    in kernel 't' CTA (0,0,0) warp 1 pc 3: BAR.SYNC");
  st_fini(&t);
}

Test(barrier, divergent_barrier_lane_list) {
  const char *k = ".kernel t\nS2R R0, SR_LANEID\nAND R1, R0, 9\nISETP.EQ.U32 P0, R1, 9\n@P0 BRA "
                  "skip\nBAR.SYNC\nskip:\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){2, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_FAULT);
  cr_expect_str_eq(
      ws_errmsg(t.ctx),
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
  const char *k =
      ".kernel t\n.param .ptr out\nS2R R0, SR_TID.X\nISETP.GE.U32 P0, R0, 32\n@P0 EXIT\n"
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
  const char *k =
      ".kernel t\n.param .ptr out\n.shared buf 256\n"
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

/* The kernel of `src` with its declared register count replaced. */
static uint32_t needed(const char *src, uint32_t declared) {
  ct t;
  ct_init(&t, src, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, 1);
  ws_kernel k = *t.launch.kernel;
  k.regs_per_thread = declared;
  uint32_t n = ws_cta_regs_needed(&k);
  ct_fini(&t);
  return n;
}

Test(cta, regs_needed) {
  cr_expect_eq(needed(".kernel t\nEXIT\n", 0), 1, "at least one row");
  cr_expect_eq(needed(".kernel t\nIADD R7, RZ, 1\nEXIT\n", 0), 8, "R7 -> 8 rows; RZ takes none");
  cr_expect_eq(needed(".kernel t\nIADD R7, RZ, 1\nEXIT\n", 20), 20, "a larger declared count wins");
  cr_expect_eq(needed(".kernel t\nIMAD.WIDE.U32 R10, R0, 4, R2\nEXIT\n", 0), 12, "the pair R10:R11");
  cr_expect_eq(needed(".kernel t\nIADD.64 R4, R8, R2\nEXIT\n", 3), 10, "the source pair R8:R9");
  cr_expect_eq(needed(".kernel t\nLDG.128 R8, [R2]\nEXIT\n", 0), 12, "a quad R8-R11");
  cr_expect_eq(needed(".kernel t\nLDG.32 R1, [R4]\nEXIT\n", 0), 6, "a global address is the pair R4:R5");
  cr_expect_eq(needed(".kernel t\nHMMA.16816.F32 R16, R20, R24, R16\nEXIT\n", 0), 26, "B is R24:R25");
  cr_expect_eq(needed(".kernel t\n.param .u32 n\nLDP.32 R3, [n]\nEXIT\n", 0), 4,
               "a param name is no register");
}

/* The executor's rows and the assembler's count are one count: a shared
 * address in R5 is one register (6 rows), as the executor reads it, and
 * every verified program's declared count is what the analysis says. */
Test(cta, regs_needed_is_the_analysis_count) {
  cr_expect_eq(needed(".kernel t\n.shared b 64\nLDS.32 R1, [R5]\nEXIT\n", 0), 6);
  const char *srcs[] = {".kernel t\n.shared b 64\nLDS.32 R1, [R5]\nEXIT\n",
                        ".kernel t\nLDG.32 R1, [R4]\nEXIT\n",
                        ".kernel t\nHMMA.16816.F32 R16, R20, R24, R16\nEXIT\n"};
  for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
    ct t;
    ct_init(&t, srcs[i], (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, 1);
    cr_expect_eq(ws_cta_regs_needed(t.launch.kernel), t.launch.kernel->regs_per_thread, "%s", srcs[i]);
    ct_fini(&t);
  }
}
