/* test_threads.c - a timed launch's SMs on several host threads: every
 * counter, the executor's counts, the outputs, a fault's report and a
 * limit's stop are those of one thread, for 1, 2 and 3 threads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/runs/example.h"
#include "tests/sim/simtest.h"

static char *stats_json(ws_device *dev) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  ws_stats_write_json(ws_device_stats(dev), f, false);
  fclose(f);
  return buf;
}

static void expect_same_counts(const ws_launch_stats *a, const ws_launch_stats *b, const char *what) {
  cr_expect_eq(a->cycles, b->cycles, "%s", what);
  cr_expect_eq(a->ctas, b->ctas, "%s", what);
  cr_expect_eq(a->warp_insns, b->warp_insns, "%s", what);
  cr_expect_eq(a->thread_insns, b->thread_insns, "%s", what);
  cr_expect_arr_eq(a->warp_insns_by_unit, b->warp_insns_by_unit, sizeof a->warp_insns_by_unit, "%s", what);
}

typedef struct example_run {
  ws_example_check chk;
  char *json;
} example_run;

static void run_example(const char *name, uint32_t threads, example_run *out) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = ws_config_default();
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &c, &dev), WS_OK, "%s", ws_errmsg(ctx));
  ws_device_set_threads(dev, threads);
  ws_example_shape s = ws_example_default_shape(name);
  if (s.m > 128) s.m = s.n = s.k = 128; /* keep the Debug suite quick */
  cr_assert_eq(ws_example_run(dev, name, &s, &out->chk), WS_OK, "%s: %s", name, ws_errmsg(ctx));
  out->json = stats_json(dev);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

/* saxpy, reduce, sgemm and mma on the a100's 108 SMs: many due SMs each
 * cycle, so the threads share real work; a kernel with global atomics runs
 * on one thread whatever is asked, and must come out the same too */
Test(threads, every_shipped_example_is_the_same_on_one_two_and_three_threads) {
  for (const char *const *name = ws_example_names; *name; name++) {
    example_run one, more;
    run_example(*name, 1, &one);
    cr_expect(one.chk.pass, "%s", *name);
    for (uint32_t threads = 2; threads <= 3; threads++) {
      run_example(*name, threads, &more);
      char what[64];
      snprintf(what, sizeof what, "%s on %u threads", *name, threads);
      expect_same_counts(&one.chk.stats, &more.chk.stats, what);
      cr_expect_eq(one.chk.max_abs_err, more.chk.max_abs_err, "%s", what);
      cr_expect_str_eq(one.json, more.json, "%s: every counter", what);
      free(more.json);
    }
    free(one.json);
  }
}

/* thread i of CTA c copies x[256c + i] to y; x holds 6 CTAs' worth, so
 * CTAs 6 and 7, on SMs 6 and 7, fault in the same cycle */
static const char *wide_copy =
    ".kernel t\n.param .ptr x\n.param .ptr y\n"
    "S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nIMAD R0, R1, 256, R0\nLDP.64 R2, [x]\nLDP.64 R4, [y]\n"
    "IMAD.WIDE.U32 R6, R0, 4, R2\nLDG.32 R8, [R6]\nIMAD.WIDE.U32 R10, R0, 4, R4\nSTG.32 [R10], R8\nEXIT\n";

static void run_faulting(uint32_t threads, char *msg, size_t size, char **json) {
  simtest t;
  st_init(&t, wide_copy, "t");
  st_buf(&t, "x", 6 * 256 * 4, NULL);
  st_buf(&t, "y", 8 * 256 * 4, NULL);
  ws_device_set_threads(t.dev, threads);
  cr_expect_eq(st_launch(&t, (ws_dim3){8, 1, 1}, (ws_dim3){256, 1, 1}, 0), WS_ERR_FAULT);
  snprintf(msg, size, "%s", ws_errmsg(t.ctx));
  *json = stats_json(t.dev);
  st_fini(&t);
}

Test(threads, of_two_faults_in_one_cycle_the_lowest_sms_is_reported_whatever_the_threads) {
  char one[1024], more[1024], *json_one, *json_more;
  run_faulting(1, one, sizeof one, &json_one);
  cr_expect(strstr(one, "in kernel 't' CTA (6,0,0) warp 4 lane 0 pc 6: LDG.32 R8, [R6]"), "%s", one);
  for (uint32_t threads = 2; threads <= 3; threads++) {
    run_faulting(threads, more, sizeof more, &json_more);
    cr_expect_str_eq(one, more);
    cr_expect_str_eq(json_one, json_more, "the counters of the cycles that ran");
    free(json_more);
  }
  free(json_one);
}

static void run_budget(uint32_t threads, char *msg, size_t size, ws_launch_stats *ls) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.gpu.insn_budget_warp_insns = 5000;
  simtest t;
  st_init_cfg(&t, ".kernel spin\nMOV R1, 0\nloop:\nIADD R1, R1, 1\nBRA loop\n", "spin", &cfg);
  ws_device_set_threads(t.dev, threads);
  cr_expect_eq(st_launch(&t, (ws_dim3){16, 1, 1}, (ws_dim3){128, 1, 1}, 0), WS_ERR_BUDGET);
  snprintf(msg, size, "%s", ws_errmsg(t.ctx));
  *ls = t.stats;
  st_fini(&t);
}

/* 16 CTAs of 4 warps: 64 issues a cycle, so the launch passes 5000 by
 * less than 64 and stops in the same cycle on any number of threads */
Test(threads, a_launch_stops_at_its_limit_in_the_same_cycle_whatever_the_threads) {
  char one[1024], more[1024];
  ws_launch_stats ls_one, ls_more;
  run_budget(1, one, sizeof one, &ls_one);
  cr_expect(strstr(one, "past the launch's limit of 5000"), "%s", one);
  cr_expect_gt(ls_one.warp_insns, 5000);
  cr_expect_leq(ls_one.warp_insns, 5000 + 64);
  for (uint32_t threads = 2; threads <= 3; threads++) {
    run_budget(threads, more, sizeof more, &ls_more);
    cr_expect_str_eq(one, more);
    expect_same_counts(&ls_one, &ls_more, "budget");
  }
}
