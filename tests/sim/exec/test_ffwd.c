/* test_ffwd.c - fast-forwarding a CTA through its main loop
 * (sim/exec/ffwd.h): which loop is chosen (the outermost whose body cannot
 * reach outside the CTA), how rounds are counted while a CTA runs, that a
 * snapshot puts back every bit of a CTA, and that a round moves a CTA
 * exactly one iteration on (with a barrier: every warp just past it) and
 * stops, undoably, at the loop's end.
 *
 * Why: a sampled timing run skips iterations this way in the middle of a
 * launch and then times the rest from the state left behind; a round that
 * moved a warp one instruction too far, or a snapshot that missed a field,
 * would give a wrong result or hang the timing model. */
#include "tests/sim/simtest.h"

#include "sim/exec/cta.h"
#include "sim/exec/ffwd.h"
#include "sim/exec/mem.h"

/* Two warps; R1 counts iterations to R9 = 10 by 1, R2 sums them through
 * shared memory between two barriers. Loop body: pcs 3 (loop) to 12 (the
 * back-edge); the first barrier is pc 7. */
static const char *const BARRIER_LOOP = ".kernel t\n.shared buf 256\n"
                                        "S2R R0, SR_TID.X\nMOV R1, 0\nMOV R2, 0\n"
                                        "loop:\nISETP.GE.U32 P0, R1, 10\n@P0 BRA done\n"
                                        "SHL R3, R0, 2\nSTS.32 [R3+buf], R1\nBAR.SYNC\n"
                                        "LDS.32 R4, [R3+buf]\nIADD R2, R2, R4\nBAR.SYNC\n"
                                        "IADD R1, R1, 1\nBRA loop\n"
                                        "done:\nEXIT\n";

/* The same loop without barriers, and a store after it. */
static const char *const PLAIN_LOOP =
    ".kernel t\n.param .ptr out\n"
    "S2R R0, SR_TID.X\nMOV R1, 0\nMOV R2, 0\n"
    "loop:\nISETP.GE.U32 P0, R1, 10\n@P0 BRA done\n"
    "IADD R2, R2, R1\nIADD R1, R1, 1\nBRA loop\n"
    "done:\nLDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nSTG.32 [R4], R2\nEXIT\n";

typedef struct ff {
  ws_ctx *ctx;
  ws_program *prog;
  ws_mem *mem;
  uint8_t params[64];
  ws_exec_launch launch;
  ws_cta *cta;
  ws_warp_step step;
  ws_launch_stats stats;
  ws_ffwd_plan plan;
} ff;

static void ff_init(ff *t, const char *src, uint32_t threads) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, src, strlen(src), "ffwd.wsa", &t->prog), WS_OK, "%s", ws_errmsg(t->ctx));
  t->mem = ws_mem_create(1 << 20);
  t->launch = (ws_exec_launch){.kernel = ws_program_find_kernel(t->prog, "t"),
                               .grid = {1, 1, 1},
                               .block = {threads, 1, 1},
                               .params = t->params,
                               .mem = t->mem,
                               .num_sms = 1};
  cr_assert(t->launch.kernel);
  cr_assert_eq(ws_cta_create(t->ctx, &t->launch, &t->cta), WS_OK, "%s", ws_errmsg(t->ctx));
  ws_ffwd_plan_kernel(t->launch.kernel, &t->plan);
  ws_cta_reset(t->cta, 0);
  ws_ffwd_arm(t->cta, &t->plan);
}

static void ff_fini(ff *t) {
  ws_cta_destroy(t->cta);
  ws_mem_destroy(t->mem);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

/* Steps warp w until it reaches pc or stops being ready. */
static void run_to(ff *t, uint32_t w, uint32_t pc) {
  while (ws_cta_warp_state(t->cta, w) == WS_WARP_READY && ws_cta_warp_pc(t->cta, w) != pc)
    cr_assert_eq(ws_cta_step(t->ctx, t->cta, w, 0, &t->step, &t->stats), WS_OK, "%s", ws_errmsg(t->ctx));
}

static uint32_t reg(const ff *t, uint32_t w, uint32_t r, uint32_t lane);

/* Steps both warps in turn, each while it is ready and its R1 (the
 * iteration count) is below v. */
static void iterate_to(ff *t, uint32_t v) {
  for (bool moved = true; moved;) {
    moved = false;
    for (uint32_t w = 0; w < t->cta->nwarps; w++)
      while (ws_cta_warp_state(t->cta, w) == WS_WARP_READY && reg(t, w, 1, 0) < v) {
        cr_assert_eq(ws_cta_step(t->ctx, t->cta, w, 0, &t->step, &t->stats), WS_OK, "%s", ws_errmsg(t->ctx));
        moved = true;
      }
  }
}

static void step_n(ff *t, uint32_t w, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    cr_assert_eq(ws_cta_step(t->ctx, t->cta, w, 0, &t->step, &t->stats), WS_OK, "%s", ws_errmsg(t->ctx));
}

static ws_ffwd_env env_of(ff *t) {
  return (ws_ffwd_env){.ctx = t->ctx,
                       .plan = &t->plan,
                       .step = &t->step,
                       .stats = &t->stats,
                       .per_warp_limit = UINT64_MAX,
                       .launch_limit = UINT64_MAX};
}

static uint32_t reg(const ff *t, uint32_t w, uint32_t r, uint32_t lane) {
  return ws_warp_src(&t->cta->warps[w], r)[lane];
}

Test(ffwd, the_plan_is_the_loop_and_its_first_barrier) {
  ff t;
  ff_init(&t, BARRIER_LOOP, 64);
  cr_expect(t.plan.usable);
  cr_expect_eq(t.plan.lo_pc, 3);
  cr_expect_eq(t.plan.hi_pc, 12);
  cr_expect_eq(t.plan.bar_pc, 7);
  ff_fini(&t);
  ff_init(&t, PLAIN_LOOP, 32);
  cr_expect(t.plan.usable, "the store is after the loop, not in it");
  cr_expect_eq(t.plan.lo_pc, 3);
  cr_expect_eq(t.plan.hi_pc, 7);
  cr_expect_eq(t.plan.bar_pc, UINT32_MAX);
  ff_fini(&t);
}

Test(ffwd, a_loop_that_stores_or_reads_the_clock_is_not_chosen) {
  ff t;
  ff_init(&t,
          ".kernel t\n.param .ptr out\nLDP.64 R4, [out]\nMOV R1, 0\nl:\nSTG.32 [R4], R1\n"
          "IADD R1, R1, 1\nISETP.LT.U32 P0, R1, 4\n@P0 BRA l\nEXIT\n",
          32);
  cr_expect_not(t.plan.usable);
  ff_fini(&t);
  ff_init(&t,
          ".kernel t\nMOV R1, 0\nl:\nS2R R2, SR_CLOCK\nIADD R1, R1, 1\nISETP.LT.U32 P0, R1, 4\n@P0 BRA l\n"
          "EXIT\n",
          32);
  cr_expect_not(t.plan.usable);
  ff_fini(&t);
  /* an inner loop without the store is chosen when the outer one has it */
  ff_init(&t,
          ".kernel t\n.param .ptr out\nLDP.64 R4, [out]\nMOV R1, 0\nouter:\nMOV R2, 0\ninner:\n"
          "IADD R2, R2, 1\nISETP.LT.U32 P1, R2, 3\n@P1 BRA inner\nSTG.32 [R4], R2\nIADD R1, R1, 1\n"
          "ISETP.LT.U32 P0, R1, 4\n@P0 BRA outer\nEXIT\n",
          32);
  cr_expect(t.plan.usable);
  cr_expect_eq(t.plan.lo_pc, 3);
  cr_expect_eq(t.plan.hi_pc, 5);
  ff_fini(&t);
}

Test(ffwd, rounds_count_barrier_releases_or_back_edges) {
  ff t;
  ff_init(&t, BARRIER_LOOP, 64);
  /* both warps through two iterations: four releases, two of them the first barrier's */
  iterate_to(&t, 2);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 12);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 12);
  cr_expect_eq(ws_ffwd_rounds(t.cta, &t.plan), 2);
  ff_fini(&t);
  ff_init(&t, PLAIN_LOOP, 64);
  step_n(&t, 0, 3 + 3 * 5); /* the prologue, then three iterations of five */
  run_to(&t, 1, 7);
  cr_expect_eq(t.cta->warps[0].ffwd_backedges, 3);
  cr_expect_eq(t.cta->warps[1].ffwd_backedges, 0);
  cr_expect_eq(ws_ffwd_rounds(t.cta, &t.plan), 0, "the fewest any warp took");
  ff_fini(&t);
}

Test(ffwd, a_snapshot_puts_every_bit_back) {
  ff t;
  ff_init(&t, BARRIER_LOOP, 64);
  run_to(&t, 0, 9); /* warp 0 at the barrier, warp 1 behind it in the body */
  run_to(&t, 1, 5);
  ws_ffwd_snap snap = {0};
  cr_assert_eq(ws_ffwd_save(t.ctx, t.cta, &snap), WS_OK);
  uint8_t smem[256];
  memcpy(smem, t.cta->smem, sizeof smem);
  ws_warp before[2];
  uint32_t regs[2][8 * 32];
  size_t regs_bytes = t.cta->warps[0].nrows * 32 * sizeof(uint32_t);
  cr_assert_leq(regs_bytes, sizeof regs[0]);
  for (int w = 0; w < 2; w++) {
    before[w] = t.cta->warps[w];
    memcpy(regs[w], t.cta->warps[w].regs, regs_bytes);
  }
  ws_ffwd_env env = env_of(&t);
  bool advanced;
  for (int i = 0; i < 3; i++) cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
  cr_assert(advanced);
  ws_ffwd_restore(t.cta, &snap);
  cr_expect_eq(memcmp(smem, t.cta->smem, sizeof smem), 0);
  for (int w = 0; w < 2; w++) {
    const ws_warp *now = &t.cta->warps[w];
    cr_expect_eq(memcmp(regs[w], now->regs, regs_bytes), 0, "warp %d registers", w);
    cr_expect_eq(memcmp(before[w].preds, now->preds, sizeof now->preds), 0);
    cr_expect_eq(now->state, before[w].state);
    cr_expect_eq(now->insns_issued, before[w].insns_issued);
    cr_expect_eq(now->simt.depth, before[w].simt.depth);
    cr_expect_eq(ws_cta_warp_pc(t.cta, (uint32_t)w), before[w].simt.entries[before[w].simt.depth - 1].pc);
  }
  cr_expect_eq(t.cta->warps_waiting, 1);
  ws_ffwd_snap_free(&snap);
  ff_fini(&t);
}

/* With a barrier, a round ends as the first barrier releases: every warp at
 * the instruction after it, one more release counted. */
Test(ffwd, a_round_is_one_iteration_and_stops_at_the_end) {
  ff t;
  ff_init(&t, BARRIER_LOOP, 64);
  run_to(&t, 0, 7);
  run_to(&t, 1, 7); /* both at the first barrier of iteration 0, not yet arrived */
  ws_ffwd_env env = env_of(&t);
  ws_ffwd_snap snap = {0};
  bool advanced = false;
  uint32_t rounds = 0;
  for (;;) {
    cr_assert_eq(ws_ffwd_save(t.ctx, t.cta, &snap), WS_OK);
    cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
    if (!advanced) break;
    rounds++;
    for (uint32_t w = 0; w < 2; w++) cr_expect_eq(ws_cta_warp_pc(t.cta, w), 8, "round %u warp %u", rounds, w);
    cr_expect_eq(ws_ffwd_rounds(t.cta, &t.plan), rounds);
  }
  ws_ffwd_restore(t.cta, &snap);
  cr_expect_eq(rounds, 10, "the arrival of iteration 0 and the nine after it; the tenth test leaves");
  /* put back after the round that left: iteration 9 past its first barrier, R1 = 9 */
  cr_expect_eq(reg(&t, 0, 1, 5), 9);
  cr_expect_eq(reg(&t, 1, 4, 31), 8, "its shared load not run yet");
  cr_expect_eq(reg(&t, 1, 2, 0), 0 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8, "R2 sums the iterations before");
  ws_ffwd_snap_free(&snap);
  ff_fini(&t);
}

/* Without a barrier every warp takes the back-edge once per round, from
 * wherever it is. */
Test(ffwd, apart_each_warp_takes_its_back_edge) {
  ff t;
  ff_init(&t, PLAIN_LOOP, 64);
  run_to(&t, 0, 5); /* warp 0 in iteration 0, warp 1 still before the loop */
  ws_ffwd_env env = env_of(&t);
  bool advanced;
  cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
  cr_expect_not(advanced, "warp 1 is not in the body yet");
  ff_fini(&t);
  ff_init(&t, PLAIN_LOOP, 64);
  run_to(&t, 0, 5);
  run_to(&t, 1, 3);
  env = env_of(&t);
  cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
  cr_expect(advanced);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 3);
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 3);
  cr_expect_eq(reg(&t, 0, 1, 0), 1);
  cr_expect_eq(reg(&t, 1, 1, 0), 1);
  cr_expect_eq(t.cta->warps[0].ffwd_backedges, 1);
  ff_fini(&t);
}

/* A warp's pace: warp 0 took 3 back-edges in the windows, warp 1 one, so
 * a gap moves warp 0 by 1.5 per round and warp 1 by 0.5 (their mean is
 * one). Warp 0 leaves the loop first and waits after it, at the store,
 * while warp 1 goes on; the round that moves nobody is the last. */
Test(ffwd, apart_each_warp_moves_at_its_pace_and_waits_after_the_loop) {
  ff t;
  ff_init(&t, PLAIN_LOOP, 64);
  run_to(&t, 0, 3);
  run_to(&t, 1, 3);
  ws_ffwd_mark_warps(t.cta, true);
  t.cta->warps[0].ffwd_backedges += 3; /* what the windows saw, as counts only */
  t.cta->warps[1].ffwd_backedges += 1;
  ws_ffwd_note_warps(t.cta);
  t.cta->warps[0].ffwd_backedges -= 3;
  t.cta->warps[1].ffwd_backedges -= 1;
  ws_ffwd_pace_warps(t.cta, &t.plan);
  cr_expect_eq(t.cta->warps[0].ffwd_pace_q16, 3 * WS_FFWD_PACE_ONE / 2);
  cr_expect_eq(t.cta->warps[1].ffwd_pace_q16, WS_FFWD_PACE_ONE / 2);
  ws_ffwd_env env = env_of(&t);
  bool advanced;
  for (uint32_t r = 0; r < 4; r++) cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
  cr_expect_eq(reg(&t, 0, 1, 0), 6, "1.5 iterations a round");
  cr_expect_eq(reg(&t, 1, 1, 0), 2, "0.5 a round");
  uint32_t rounds = 4;
  for (; rounds < 100; rounds++) {
    cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
    if (!advanced) break;
  }
  cr_expect_eq(ws_cta_warp_pc(t.cta, 0), 8, "warp 0 waits after the loop, at its first instruction");
  cr_expect_eq(ws_cta_warp_pc(t.cta, 1), 8);
  cr_expect_eq(reg(&t, 0, 2, 3), 45, "each summed its ten iterations");
  cr_expect_eq(reg(&t, 1, 2, 3), 45);
  cr_expect_eq(rounds, 21, "rounds %u: warp 1's 10 iterations and its leaving test, at 0.5 a round", rounds);
  ff_fini(&t);
}

Test(ffwd, a_round_stops_at_a_limit) {
  ff t;
  ff_init(&t, PLAIN_LOOP, 32);
  run_to(&t, 0, 3);
  ws_ffwd_env env = env_of(&t);
  env.per_warp_limit = t.cta->warps[0].insns_issued + 2; /* less than an iteration's five */
  bool advanced = true;
  cr_assert_eq(ws_ffwd_round(&env, t.cta, &advanced), WS_OK);
  cr_expect_not(advanced);
  ff_fini(&t);
}
