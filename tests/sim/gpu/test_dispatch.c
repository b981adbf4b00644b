/* test_dispatch.c - the CTA dispatcher: the first wave (CTA i on SM
 * i mod num_sms up to ctas_per_sm each), the hand-out of the remaining CTAs
 * in linear order, completion, and (through a timed launch that records
 * SR_SMID) the refill rule: the SM that freed a slot gets the next CTA,
 * SMs freeing slots in the same cycle served lowest-numbered first.
 *
 * Why: CTA placement decides which SM's L1 a CTA warms and how waves
 * overlap; the rule is fixed and documented, so it is pinned exactly. */
#include <criterion/criterion.h>

#include "sim/gpu/dispatch.h"
#include "tests/sim/simtest.h"

Test(dispatch, first_wave_round_robins_then_hands_out_the_rest) {
  ws_dispatch d;
  ws_dispatch_init(&d, 10, 4, 2); /* first wave: 4 SMs x 2 = 8 CTAs */
  uint32_t sm = 99;
  uint64_t cta = 99;
  static const uint32_t want_sm[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  for (uint64_t i = 0; i < 8; i++) {
    cr_assert(ws_dispatch_initial(&d, &sm, &cta), "CTA %llu", (unsigned long long)i);
    cr_expect_eq(cta, i);
    cr_expect_eq(sm, want_sm[i]);
  }
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta), "the first wave is full");
  cr_expect_eq(d.next, 8);
  cr_expect(ws_dispatch_next(&d, &cta));
  cr_expect_eq(cta, 8);
  cr_expect(ws_dispatch_next(&d, &cta));
  cr_expect_eq(cta, 9);
  cta = 77;
  cr_expect_not(ws_dispatch_next(&d, &cta), "all 10 handed out");
  cr_expect_eq(cta, 77, "nothing written when none remain");
  cr_expect_not(ws_dispatch_all_retired(&d));
  d.retired = 10; /* the engine counts retirements */
  cr_expect(ws_dispatch_all_retired(&d));
}

Test(dispatch, small_grids_end_inside_the_first_wave) {
  ws_dispatch d;
  ws_dispatch_init(&d, 3, 4, 2);
  uint32_t sm;
  uint64_t cta;
  for (uint64_t i = 0; i < 3; i++) {
    cr_assert(ws_dispatch_initial(&d, &sm, &cta));
    cr_expect_eq(sm, i);
  }
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_not(ws_dispatch_next(&d, &cta));
  /* an empty grid is done from the start */
  ws_dispatch_init(&d, 0, 4, 2);
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect(ws_dispatch_all_retired(&d));
}

Test(dispatch, init_restarts_the_counters) {
  ws_dispatch d;
  ws_dispatch_init(&d, 5, 2, 1);
  uint32_t sm;
  uint64_t cta;
  while (ws_dispatch_initial(&d, &sm, &cta)) {
  }
  while (ws_dispatch_next(&d, &cta)) {
  }
  d.retired = 5;
  ws_dispatch_init(&d, 5, 2, 1);
  cr_expect_eq(d.next, 0);
  cr_expect_eq(d.retired, 0);
  cr_assert(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_eq(cta, 0);
  cr_expect_eq(sm, 0);
}

/* Each CTA stores SR_SMID at out[ctaid]; CTA 0 first spins `spin` iterations. */
static const char smid_kernel[] = ".kernel t\n.param .ptr out\n.param .u32 spin\n"
                                  "S2R R0, SR_CTAID.X\nS2R R1, SR_SMID\nLDP R2, [spin]\n"
                                  "ISETP.NE.U32 P0, R0, 0\n@P0 MOV R2, 0\n"
                                  "loop: ISETP.EQ.U32 P1, R2, 0\n@P1 BRA done\n"
                                  "IADD R2, R2, -1\nBRA loop\n"
                                  "done: LDP.64 R4, [out]\nIMAD.WIDE.U32 R6, R0, 4, R4\n"
                                  "STG.32 [R6], R1\nEXIT\n";

static void placement(uint32_t spin, uint32_t got[6]) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 3;
  c.sm.max_ctas_per_sm = 1;
  simtest t;
  st_init_cfg(&t, smid_kernel, "t", &c);
  uint64_t out = st_buf(&t, "out", 6 * 4, NULL);
  st_u32(&t, "spin", spin);
  st_run(&t, 6, 32);
  st_read(&t, got, out, 6 * 4);
  cr_expect_eq(t.stats.ctas, 6);
  st_fini(&t);
}

Test(dispatch, refill_goes_to_the_sm_that_freed_a_slot) {
  uint32_t got[6];
  /* equal CTAs: SMs 0-2 free in the same cycle, lowest first, twice */
  placement(0, got);
  static const uint32_t equal[6] = {0, 1, 2, 0, 1, 2};
  for (int i = 0; i < 6; i++) cr_expect_eq(got[i], equal[i], "equal: CTA %d on SM %u", i, got[i]);
  /* CTA 0 holds SM 0 for 300 iterations: SMs 1 and 2 free together and take
   * CTAs 3 and 4 (lowest first), then CTA 5 goes to SM 1 again */
  placement(300, got);
  static const uint32_t skewed[6] = {0, 1, 2, 1, 2, 1};
  for (int i = 0; i < 6; i++) cr_expect_eq(got[i], skewed[i], "skewed: CTA %d on SM %u", i, got[i]);
}

Test(dispatch, first_wave_round_robin_then_refill) {
  ws_dispatch d;
  ws_dispatch_init(&d, 10, 3, 2);
  uint32_t sm;
  uint64_t cta;
  static const uint32_t want_sm[6] = {0, 1, 2, 0, 1, 2};
  for (uint64_t i = 0; i < 6; i++) {
    cr_assert(ws_dispatch_initial(&d, &sm, &cta));
    cr_expect_eq(cta, i);
    cr_expect_eq(sm, want_sm[i]);
  }
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta), "the first wave fills ctas_per_sm per SM");
  for (uint64_t i = 6; i < 10; i++) {
    cr_assert(ws_dispatch_next(&d, &cta));
    cr_expect_eq(cta, i, "linear order");
  }
  cr_expect_not(ws_dispatch_next(&d, &cta));
  cr_expect_not(ws_dispatch_all_retired(&d));
  d.retired = 10;
  cr_expect(ws_dispatch_all_retired(&d));
}

Test(dispatch, small_grid_uses_the_first_sms) {
  ws_dispatch d;
  ws_dispatch_init(&d, 2, 108, 4);
  uint32_t sm;
  uint64_t cta;
  cr_assert(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_eq(sm, 0);
  cr_assert(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_eq(sm, 1);
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta));
}
