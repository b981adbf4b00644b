/* test_sampler.c - sampling (sim/gpu/sampler.h). CTA waves: when a grid
 * is sampled, how its gaps are cut (whole waves, the last partial wave
 * kept), the estimate and its interval from hand-computed batches,
 * Student's t, the scaling of counters. Loop windows: how the next gap is
 * planned from the iterations left, how a window's iterations close, and a
 * gap's price and interval from hand-computed windows. And, on real timed
 * GEMMs, that a sampled run gives the full run's results and instruction
 * counts exactly and its cycles within the interval it states.
 *
 * Why: a sampled figure is only worth its stated confidence; these pin the
 * arithmetic behind it and check the confidence against full runs. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "explore/point.h"
#include "models/runs/example.h"
#include "sim/gpu/sampler.h"

Test(sampler, plans_only_grids_with_enough_waves) {
  ws_sampler s;
  ws_sampling three = {.measure_waves = 3, .measure_rounds = 0},
              off = {.measure_waves = 0, .measure_rounds = 0},
              one = {.measure_waves = 1, .measure_rounds = 0};
  cr_expect_eq(ws_sampler_min_waves(&three, 40), 12,
               "2 warm-up + 3 batches + 3 settling + 3 gaps + 1 resident");
  cr_expect_not(ws_sampler_plan(&s, &off, 10000, 40));
  cr_expect_eq(s.phase, WS_SAMPLER_OFF);
  cr_expect_not(ws_sampler_plan(&s, &one, 10000, 40), "one batch gives no interval");
  cr_expect_not(ws_sampler_plan(&s, NULL, 10000, 40));
  cr_expect_not(ws_sampler_plan(&s, &three, 479, 40), "11 whole waves");
  cr_expect(ws_sampler_plan(&s, &three, 480, 40), "12 waves");
  cr_expect_eq(s.phase, WS_SAMPLER_WARM);
  cr_expect_eq(s.batch_ctas, 40);
}

Test(sampler, small_waves_make_batches_of_32_ctas) {
  ws_sampler s;
  ws_sampling three = {.measure_waves = 3, .measure_rounds = 0};
  cr_expect_eq(ws_sampler_batch_waves(4), 8);
  cr_expect_eq(ws_sampler_batch_waves(5), 7, "35 CTAs: whole waves");
  cr_expect_eq(ws_sampler_batch_waves(32), 1);
  cr_expect_eq(ws_sampler_min_waves(&three, 4), 2 + 3 * 8 + 3 + 3 + 1);
  cr_expect_not(ws_sampler_plan(&s, &three, 4 * 32, 4));
  cr_assert(ws_sampler_plan(&s, &three, 4 * 33, 4));
  cr_expect_eq(s.batch_ctas, 32);
}

/* Drives a sampler through a grid retiring one CTA every `period` cycles
 * (plus `jitter` on every other batch's CTAs), the way the engine does:
 * skipped CTAs are handed out and retired at once. Returns CTAs timed. */
static uint64_t drive(ws_sampler *s, uint64_t total, uint64_t wave, double period, double jitter) {
  uint64_t retired = 0, next = wave, cycle = 0, timed = 0;
  while (retired < total) {
    cycle += (uint64_t)(period + ((s->batch % 2) ? jitter : 0));
    retired++, timed++;
    if (next < total) next++;
    ws_sampler_action a = ws_sampler_retired(s, retired, cycle);
    if (a != WS_SAMPLER_SKIP) continue;
    uint64_t n = ws_sampler_skip(s, next, retired);
    cr_assert_eq(n % wave, 0, "gaps are whole waves (%llu)", (unsigned long long)n);
    next += n, retired += n;
    if (s->phase == WS_SAMPLER_DONE)
      cr_expect_eq((total - next) % wave, total % wave, "the last partial wave stays");
  }
  return timed;
}

Test(sampler, a_steady_rate_is_extrapolated_exactly) {
  ws_sampler s;
  ws_sampling three = {.measure_waves = 3, .measure_rounds = 0};
  cr_assert(ws_sampler_plan(&s, &three, 4002, 32)); /* 125 waves and 2 CTAs */
  uint64_t timed = drive(&s, 4002, 32, 100, 0);
  cr_expect_eq(s.phase, WS_SAMPLER_DONE);
  cr_expect_eq(timed + s.skipped_ctas, 4002);
  /* timed: 2 warm-up, 3 batches, 3 settling waves, the resident wave and the 2 left over */
  cr_expect_eq(timed, 9 * 32 + 2, "timed %llu", (unsigned long long)timed);
  cr_expect_float_eq(s.skipped_cycles, 100.0 * (double)s.skipped_ctas, 1e-9);
  cr_expect_float_eq(s.ci95_cycles, 0.0, 1e-12, "no variation, no interval");
  cr_expect_eq(s.window_ctas, 96);
  cr_expect_eq(ws_sampler_scale(&s, 96 * 5), 5 * s.skipped_ctas, "a counter at 5 per CTA");
}

Test(sampler, the_interval_is_students_over_the_batch_means) {
  ws_sampler s;
  ws_sampling three = {.measure_waves = 3, .measure_rounds = 0};
  cr_assert(ws_sampler_plan(&s, &three, 4000, 40));
  drive(&s, 4000, 40, 100, 30); /* batches 0 and 2 at 100 cycles per CTA, batch 1 at 130 */
  double mean = 110, sd = sqrt((100.0 + 400 + 100) / 2); /* deviations -10, +20, -10 */
  cr_expect_float_eq(s.skipped_cycles, mean * (double)s.skipped_ctas, 1e-6);
  cr_expect_float_eq(s.ci95_cycles, 4.303 * sd / sqrt(3.0) * (double)s.skipped_ctas, 1e-6);
}

Test(sampler, student_t_quantiles) {
  cr_expect_float_eq(ws_sampler_t975(1), 12.706, 1e-9);
  cr_expect_float_eq(ws_sampler_t975(2), 4.303, 1e-9);
  cr_expect_float_eq(ws_sampler_t975(30), 2.042, 1e-9);
  cr_expect_float_eq(ws_sampler_t975(31), 1.960, 1e-9);
  cr_expect(isinf(ws_sampler_t975(0)));
}

/* ---- against full runs: GEMMs of 64 waves on the classroom preset ---- */

/* A GEMM point of m x n x k on a preset (with one key overridden when `set`
 * is not NULL: "section.key=value"), timed with sampling (sample_waves
 * batches, sample_rounds per loop window) or in full (0). */
static void run_with(const char *gpu, const char *set, const char *variant, uint32_t m, uint32_t n,
                     uint32_t k, uint32_t sample_waves, uint32_t sample_rounds, ws_point_result *r) {
  ws_point p;
  memset(&p, 0, sizeof p);
  p.kind = WS_POINT_GEMM;
  snprintf(p.gpu, sizeof p.gpu, "%s", gpu);
  if (set) snprintf(p.sets[p.nsets++], sizeof p.sets[0], "%s", set);
  snprintf(p.variant, sizeof p.variant, "%s", variant);
  p.m = m, p.n = n, p.k = k;
  p.seed = 5;
  p.sample_waves = sample_waves;
  p.sample_rounds = sample_rounds;
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_point_run(ctx, &p, NULL, r), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

static void run_on(const char *gpu, const char *variant, uint32_t m, uint32_t n, uint32_t k,
                   uint32_t sample_waves, uint32_t sample_rounds, ws_point_result *r) {
  run_with(gpu, NULL, variant, m, n, k, sample_waves, sample_rounds, r);
}

static void run_rounds(const char *variant, uint32_t m, uint32_t n, uint32_t k, uint32_t sample_waves,
                       uint32_t sample_rounds, ws_point_result *r) {
  run_on("classroom", variant, m, n, k, sample_waves, sample_rounds, r);
}

static void run(const char *variant, uint32_t m, uint32_t n, uint32_t k, uint32_t sample_waves,
                ws_point_result *r) {
  run_rounds(variant, m, n, k, sample_waves, 0, r);
}

/* A sampled point's counters against the full run's: the byte and event
 * counts within `share` of it (or 4 KiB, for counts near zero), the hit
 * rates within `points` percentage points. Before a window's moves were
 * taken apart from the gaps priced into them, each gap priced the ones
 * before it again, and a100's blocktile2d at 512^3 read 13.7 MB of DRAM
 * instead of 2.1 MB. */
static void expect_counters_near(const char *what, const ws_point_result *est, const ws_point_result *full,
                                 double share, double points) {
  const struct {
    const char *name;
    double got, want;
  } c[] = {
      {"DRAM bytes read", (double)est->dram_read_bytes, (double)full->dram_read_bytes},
      {"DRAM bytes written", (double)est->dram_write_bytes, (double)full->dram_write_bytes},
      {"shared bank conflicts", (double)est->smem_bank_conflicts, (double)full->smem_bank_conflicts},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    double slack = share * c[i].want > 4096 ? share * c[i].want : 4096;
    cr_expect_leq(fabs(c[i].got - c[i].want), slack, "%s: %s %.0f against %.0f", what, c[i].name, c[i].got,
                  c[i].want);
  }
  cr_expect_leq(fabs(est->l1_hit_pct - full->l1_hit_pct), points, "%s: L1 hits %.2f %% against %.2f %%", what,
                est->l1_hit_pct, full->l1_hit_pct);
  cr_expect_leq(fabs(est->l2_hit_pct - full->l2_hit_pct), points, "%s: L2 hits %.2f %% against %.2f %%", what,
                est->l2_hit_pct, full->l2_hit_pct);
}

static void check_variant(const char *variant) {
  ws_point_result full, est;
  run(variant, 512, 512, 32, 0, &full); /* 256 CTAs of 32 x 32, 4 per wave, batches of 8 waves */
  cr_assert(full.valid && full.check_pass && !full.sampled);
  cr_expect_eq(full.timed_ctas, full.ctas);
  run(variant, 512, 512, 32, WS_SAMPLER_DEFAULT_WAVES, &est);
  cr_assert(est.sampled, "%s: 64 waves are sampled", variant);
  cr_expect(est.check_pass, "%s: results are exact: %s", variant, est.why);
  cr_expect_eq(est.max_abs_err, full.max_abs_err);
  cr_expect_eq(est.ctas, full.ctas);
  cr_expect_eq(est.warp_insns, full.warp_insns, "%s: instructions are counted, not estimated", variant);
  cr_expect_lt(est.timed_ctas, est.ctas);
  double err = fabs((double)est.cycles - (double)full.cycles);
  cr_expect_leq(err, (double)est.cycles_ci95, "%s: %llu cycles against %llu, +- %llu", variant,
                (unsigned long long)est.cycles, (unsigned long long)full.cycles,
                (unsigned long long)est.cycles_ci95);
  /* DRAM traffic is counted as the skipped CTAs warm the L2; hit rates are
   * estimated from three batches (smem's L2: 79.2 % against 84.7 %) */
  expect_counters_near(variant, &est, &full, 0.05, 6);
}

Test(sampler, naive_gemm_within_its_interval, .timeout = 120) { check_variant("naive"); }
Test(sampler, coalesced_gemm_within_its_interval, .timeout = 120) { check_variant("coalesced"); }
Test(sampler, smem_gemm_within_its_interval, .timeout = 120) { check_variant("smem"); }

Test(sampler, too_few_waves_are_timed_in_full) {
  ws_point_result r;
  run("coalesced", 64, 64, 64, 3, &r); /* 4 CTAs: one wave */
  cr_expect(r.check_pass);
  cr_expect_not(r.sampled);
  cr_expect_eq(r.timed_ctas, r.ctas);
  cr_expect_eq(r.cycles_ci95, 0);
}

/* ---- loop windows ---- */

Test(sampler, the_next_gap_shares_what_is_left) {
  ws_loop_sampler s;
  ws_sampling cfg = {.measure_waves = 0, .measure_rounds = 3};
  ws_loop_sampler_plan(&s, &cfg);
  cr_assert_eq(s.measure_rounds, 3);
  ws_loop_sampler_begin_loop(&s);
  cr_expect_eq(s.windows_left, 2);
  /* a window is 1 settling + 3 measured iterations: (100 - 2 x 4) / 3 */
  ws_loop_sampler_plan_gap(&s, 100);
  cr_expect_eq(s.gap_rounds, 30);
  cr_expect_not(s.gap_alone);
  cr_expect_eq(s.windows_left, 1);
  ws_loop_sampler_plan_gap(&s, 40); /* (40 - 4) / 2 */
  cr_expect_eq(s.gap_rounds, 18);
  cr_expect_eq(s.windows_left, 0);
  ws_loop_sampler_plan_gap(&s, 17);
  cr_expect(s.gap_alone, "after the last window, one gap to the end");
  cr_expect_eq(s.gap_rounds, 17);
  /* too little left for a window after a gap longer than a window */
  ws_loop_sampler_begin_loop(&s);
  ws_loop_sampler_plan_gap(&s, 10);
  cr_expect(s.gap_alone);
  cr_expect_eq(s.gap_rounds, 10);
  ws_sampling off = {.measure_waves = 3, .measure_rounds = 1};
  ws_loop_sampler_plan(&s, &off);
  cr_expect_eq(s.measure_rounds, 0, "one iteration gives no interval");
}

Test(sampler, window_iterations_close_at_the_look_that_sees_them) {
  ws_loop_sampler s;
  ws_sampling cfg = {.measure_waves = 0, .measure_rounds = 3};
  ws_loop_sampler_plan(&s, &cfg);
  ws_loop_sampler_open(&s, WS_LOOP_MEASURE, 10, 5, 0);
  cr_expect_not(ws_loop_sampler_progress(&s, 1, 20, 15));
  cr_expect(ws_loop_sampler_progress(&s, 3, 40, 35), "two iterations ended between two looks");
  cr_expect_eq(ws_loop_window_cycles(&s.win), 30);
  cr_expect_eq(ws_loop_window_insns(&s.win), 30);
  cr_expect_eq(s.win.cycle[2], 40);
  cr_expect_eq(s.win.cycle[3], 40);
  ws_loop_sampler_open(&s, WS_LOOP_SETTLE, 50, 40, 0);
  cr_expect(ws_loop_sampler_progress(&s, 1, 60, 50));
}

/* A gap of 1000 warp instructions between a window of 2 cycles per
 * instruction and one of 1.8: priced at their mean, 1.9; the interval is
 * Student's t over the six iterations' values (mean 1.9, sd 0.1095, 5
 * degrees of freedom). Priced from the window before alone: 2.0, and no
 * spread. */
Test(sampler, a_gap_is_priced_from_the_windows_around_it) {
  ws_loop_sampler s;
  ws_sampling cfg = {.measure_waves = 0, .measure_rounds = 3};
  ws_loop_sampler_plan(&s, &cfg);
  s.prev = (ws_loop_window){.rounds = 3, .cycle = {0, 100, 200, 300}, .insns = {0, 50, 100, 150}};
  s.win = (ws_loop_window){.rounds = 3, .cycle = {1000, 1090, 1180, 1270}, .insns = {500, 550, 600, 650}};
  s.pending_insns = s.pending_time_insns = 1000;
  cr_expect_float_eq(ws_loop_sampler_price(&s, true), 1900.0, 1e-9);
  double sd = sqrt(6 * 0.01 / 5);
  double half = 2.571 * sd / sqrt(6.0) * 1000;
  cr_expect_float_eq(s.var_cycles, half * half, 1e-6);
  cr_expect_eq(s.skipped_insns, 1000);
  cr_expect_eq(s.pending_insns, 0);
  s.pending_insns = s.pending_time_insns = 500;
  cr_expect_float_eq(ws_loop_sampler_price(&s, false), 1000.0, 1e-9);
  cr_expect_float_eq(s.skipped_cycles, 2900.0, 1e-9);
  cr_expect_float_eq(s.var_cycles, half * half, 1e-6, "identical iterations add no spread");
  cr_expect_eq(s.skips, 2);
  /* CTAs that reached their loop's end moved 300 of the 500 instructions
   * the gap's time stands for: its time is the 500's, the instructions
   * skipped are the 300 run; a CTA making up what its SM owed adds
   * instructions and no time */
  s.pending_insns = 300, s.pending_time_insns = 500;
  cr_expect_float_eq(ws_loop_sampler_price(&s, false), 1000.0, 1e-9);
  cr_expect_eq(s.skipped_insns, 1800);
  s.pending_insns = 200, s.pending_time_insns = 0;
  cr_expect_float_eq(ws_loop_sampler_price(&s, false), 0.0, 1e-9);
  cr_expect_eq(s.skipped_insns, 2000);
  cr_expect_float_eq(s.skipped_cycles, 3900.0, 1e-9);
}

/* CTAs far apart in their loops: a gap of a quarter of the loop when the
 * most advanced one leaves less room than that, else none. */
Test(sampler, a_staggered_loop_takes_a_quarter_of_its_iterations) {
  cr_expect_eq(ws_loop_sampler_stagger_gap(10, 1024), 256);
  cr_expect_eq(ws_loop_sampler_stagger_gap(255, 1024), 256);
  cr_expect_eq(ws_loop_sampler_stagger_gap(256, 1024), 0, "room for an even plan");
  cr_expect_eq(ws_loop_sampler_stagger_gap(0, 3), 0, "a loop too short to skip");
}

/* GEMMs whose CTAs run a long loop on the classroom GPU (a few CTAs: no
 * wave to skip): the loop sampled with 3 iterations per window against the
 * full run. Each case's error, deterministic, is pinned inside the interval
 * the run states (but the loop without barriers, below), and the share timed
 * below what it is today. Without a
 * barrier, warps run apart (the scheduler serves the oldest first) and a
 * gap can take only what the warp nearest its end has left: less is
 * skipped. */
static void check_loop(const char *variant, uint32_t m, uint32_t n, uint32_t k, double max_timed_share,
                       double max_err_share) {
  ws_point_result full, est;
  run_rounds(variant, m, n, k, 0, 0, &full);
  cr_assert(full.valid && full.check_pass && !full.sampled);
  cr_expect_eq(full.timed_warp_insns, full.warp_insns);
  run_rounds(variant, m, n, k, 0, 3, &est);
  cr_assert(est.sampled, "%s: the loop is sampled", variant);
  cr_expect(est.check_pass, "%s: results are exact: %s", variant, est.why);
  cr_expect_eq(est.max_abs_err, full.max_abs_err);
  cr_expect_eq(est.warp_insns, full.warp_insns, "%s: instructions are counted, not estimated", variant);
  cr_expect_eq(est.timed_ctas, est.ctas, "%s: every CTA is timed in part", variant);
  cr_expect_lt((double)est.timed_warp_insns, max_timed_share * (double)est.warp_insns,
               "%s: %llu of %llu timed", variant, (unsigned long long)est.timed_warp_insns,
               (unsigned long long)est.warp_insns);
  double err = fabs((double)est.cycles - (double)full.cycles);
  double bound = max_err_share ? max_err_share * (double)full.cycles : (double)est.cycles_ci95;
  cr_expect_gt(est.cycles_ci95, 0, "%s: an interval is stated", variant);
  cr_expect_leq(err, bound, "%s: %llu cycles against %llu, +- %llu", variant, (unsigned long long)est.cycles,
                (unsigned long long)full.cycles, (unsigned long long)est.cycles_ci95);
  /* every counter but the write-backs priced from windows of 3 iterations
   * on the classroom GPU's 256 KiB L2: coalesced's DRAM reads are 17 %
   * high (1,320,197 B against 1,127,520), its L2 hit rate 9.3 points low.
   * The write-backs of the dirty C lines a gap's loads evict are counted
   * as it runs (the loop stores nothing; each dirty line is written back
   * once): the bytes written are the full run's. Priced, vectorized's
   * were 40 % high (183,686 B against 131,072). */
  expect_counters_near(variant, &est, &full, 0.45, 10);
  cr_expect_eq(est.dram_write_bytes, full.dram_write_bytes, "%s: %llu B written against %llu", variant,
               (unsigned long long)est.dram_write_bytes, (unsigned long long)full.dram_write_bytes);
  ws_point_result again;
  run_rounds(variant, m, n, k, 0, 3, &again);
  cr_expect_eq(again.cycles, est.cycles, "%s: the same run gives the same estimate", variant);
  cr_expect_eq(again.cycles_ci95, est.cycles_ci95);
  cr_expect_eq(again.dram_read_bytes, est.dram_read_bytes);
}

Test(sampler, a_blocktile2d_loop_within_its_interval, .timeout = 120) {
  check_loop("blocktile2d", 128, 128, 2048, 0.1, 0);
}
Test(sampler, a_vectorized_loop_within_its_interval, .timeout = 120) {
  check_loop("vectorized", 256, 256, 1024, 0.35, 0);
}
/* The interval measures how the windows' rates spread, not the drift of
 * warps that no barrier holds together. Since an MSHR takes a request from
 * every warp of the SM (l1.mshr_max_merge 64), no merge limit paces the
 * warps of this loop and they run further apart: its estimate is 8.9 %
 * low (1,023,934 cycles against 1,124,409) with an interval of 7.0 % (with
 * 8 a merge, 3.4 % low with 0.9 %). It is held to 10 %, with the share
 * timed below 40 %. */
Test(sampler, a_loop_without_barriers_within_ten_percent, .timeout = 120) {
  check_loop("coalesced", 64, 64, 2048, 0.40, 0.10);
}

/* The sampling --sample sets on a100, where the register-blocked steps are
 * measured: one wave of 16 CTAs, their k loop in windows. Every counter
 * within 1 % of the full run's, as cycles are. */
Test(sampler, a100_blocktile2d_counters_as_the_full_run, .timeout = 120) {
  ws_point_result full, est;
  run_on("a100", "blocktile2d", 512, 512, 512, 0, 0, &full);
  run_on("a100", "blocktile2d", 512, 512, 512, WS_SAMPLER_DEFAULT_WAVES, WS_SAMPLER_DEFAULT_ROUNDS, &est);
  cr_assert(est.sampled && !full.sampled);
  cr_expect_leq(fabs((double)est.cycles - (double)full.cycles), 0.01 * (double)full.cycles,
                "%llu against %llu", (unsigned long long)est.cycles, (unsigned long long)full.cycles);
  expect_counters_near("a100 blocktile2d", &est, &full, 0.01, 1);
}

/* A grid of many waves of long loops, where the CTAs of later waves run
 * far apart in their loops (each placed as one retires): a100 cut to 8
 * SMs, coalesced 256 x 256 x 512, 64 CTAs in 8 waves of one per SM. A gap
 * takes a quarter of the loop from every CTA; those that reach their end
 * in it stop there and the next CTA of their SM makes up the rest. The
 * estimate stays inside its interval (892,972 cycles against 904,035, +-
 * 137,099) with 22.2 % timed, where the gaps the most advanced CTA allowed
 * timed 31.3 %. The loop stores nothing, so its gaps count the write-backs
 * of the dirty lines they evict rather than pricing them: the written
 * bytes are the full run's. Its reads, priced from windows of 3 iterations
 * that see a new line of A every 32, are 9 % low (951,399 B against
 * 1,048,576). */
Test(sampler, staggered_loops_take_a_quarter_each_gap, .timeout = 120) {
  ws_point_result full, est;
  run_with("a100", "gpu.num_sms=8", "coalesced", 256, 256, 512, 0, 0, &full);
  run_with("a100", "gpu.num_sms=8", "coalesced", 256, 256, 512, WS_SAMPLER_DEFAULT_WAVES,
           WS_SAMPLER_DEFAULT_ROUNDS, &est);
  cr_assert(est.sampled && !full.sampled);
  cr_expect(est.check_pass, "%s", est.why);
  cr_expect_eq(est.warp_insns, full.warp_insns);
  cr_expect_lt((double)est.timed_warp_insns, 0.25 * (double)est.warp_insns, "%llu of %llu timed",
               (unsigned long long)est.timed_warp_insns, (unsigned long long)est.warp_insns);
  cr_expect_leq(fabs((double)est.cycles - (double)full.cycles), (double)est.cycles_ci95,
                "%llu cycles against %llu, +- %llu", (unsigned long long)est.cycles,
                (unsigned long long)full.cycles, (unsigned long long)est.cycles_ci95);
  cr_expect_eq(est.dram_write_bytes, full.dram_write_bytes);
  cr_expect_leq(fabs((double)est.dram_read_bytes - (double)full.dram_read_bytes),
                0.25 * (double)full.dram_read_bytes, "%llu B read against %llu",
                (unsigned long long)est.dram_read_bytes, (unsigned long long)full.dram_read_bytes);
}

/* A loop without a barrier whose warps the scheduler serves oldest first:
 * classroom naive 64 x 64 x 2048, two CTAs of 32 warps per SM. The young
 * warps take few iterations while the old ones run, and run alone at the
 * end. Gaps that moved every warp alike held them as close as they were:
 * the estimate was 4,460,103 cycles against 9,314,948, +- 421,198, and DRAM
 * reads 70 % low. Each warp now moves at the pace it kept in the windows,
 * and one that leaves the loop waits after it: 10,354,531 cycles, +-
 * 3,977,747 (the windows around a gap differ as the warps spread), the
 * reads 15 % high. */
Test(sampler, warps_apart_move_at_their_own_pace, .timeout = 120) {
  ws_point_result full, est;
  run_rounds("naive", 64, 64, 2048, 0, 0, &full);
  run_rounds("naive", 64, 64, 2048, 0, 3, &est);
  cr_assert(est.sampled && !full.sampled);
  cr_expect(est.check_pass, "%s", est.why);
  cr_expect_eq(est.warp_insns, full.warp_insns);
  cr_expect_leq(fabs((double)est.cycles - (double)full.cycles), (double)est.cycles_ci95,
                "%llu cycles against %llu, +- %llu", (unsigned long long)est.cycles,
                (unsigned long long)full.cycles, (unsigned long long)est.cycles_ci95);
  cr_expect_leq(fabs((double)est.cycles - (double)full.cycles), 0.15 * (double)full.cycles);
  cr_expect_leq(fabs((double)est.dram_read_bytes - (double)full.dram_read_bytes),
                0.2 * (double)full.dram_read_bytes, "%llu B read against %llu",
                (unsigned long long)est.dram_read_bytes, (unsigned long long)full.dram_read_bytes);
  cr_expect_lt((double)est.timed_warp_insns, 0.5 * (double)est.warp_insns);
}

Test(sampler, a_short_loop_is_timed_in_full) {
  ws_point_result r;
  run_rounds("smem", 64, 64, 64, 0, 3, &r); /* two iterations of 32 */
  cr_expect(r.check_pass);
  cr_expect_not(r.sampled);
  cr_expect_eq(r.timed_warp_insns, r.warp_insns);
  cr_expect_eq(r.cycles_ci95, 0);
}

/* Kernels written by hand, on the classroom GPU with their loops sampled:
 * the same answers and instruction counts as unsampled, and the same
 * estimate, to the last counter, whether a gap runs on one host thread or
 * three. reduce's grid-stride loop has no barrier and its lanes leave it
 * at different trips (a diverged SIMT stack in every snapshot); sgemm.wsa's
 * k loop has two barriers. */
static void run_example(const char *name, ws_example_shape shape, uint32_t rounds, uint32_t threads,
                        ws_example_check *check, uint64_t *dram_bytes) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_device_set_sampling(dev, &(ws_sampling){.measure_rounds = rounds});
  ws_device_set_threads(dev, threads);
  cr_assert_eq(ws_example_run(dev, name, &shape, check), WS_OK, "%s", ws_errmsg(ctx));
  *dram_bytes = ws_stats_sum(ws_device_stats(dev), "hbm.ch*.bytes_read");
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

static void example_three_ways(const char *name, ws_example_shape shape) {
  ws_example_check full, one, three;
  uint64_t dram_full, dram_one, dram_three;
  run_example(name, shape, 0, 1, &full, &dram_full);
  run_example(name, shape, 3, 1, &one, &dram_one);
  run_example(name, shape, 3, 3, &three, &dram_three);
  cr_expect(full.pass && one.pass && three.pass, "%s", name);
  cr_expect_eq(one.max_abs_err, full.max_abs_err, "%s: the same answer", name);
  cr_expect_eq(one.stats.warp_insns, full.stats.warp_insns, "%s", name);
  cr_expect(one.stats.sampled, "%s: the loop was sampled", name);
  cr_expect_lt(one.stats.timed_warp_insns, one.stats.warp_insns, "%s", name);
  cr_expect_eq(three.max_abs_err, one.max_abs_err, "%s: threads change nothing", name);
  cr_expect_eq(three.stats.cycles, one.stats.cycles, "%s", name);
  cr_expect_eq(three.stats.cycles_ci95, one.stats.cycles_ci95, "%s", name);
  cr_expect_eq(three.stats.timed_warp_insns, one.stats.timed_warp_insns, "%s", name);
  cr_expect_eq(dram_three, dram_one, "%s: the L2 warmed alike", name);
}

Test(sampler, hand_written_loops_give_the_same_answers, .timeout = 120) {
  example_three_ways("reduce", (ws_example_shape){0, 1000000, 0, 7});
  example_three_ways("sgemm", (ws_example_shape){64, 64, 2048, 7});
}
