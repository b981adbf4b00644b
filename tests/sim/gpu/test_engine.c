/* test_engine.c - the timing engine end to end through ws_device_launch:
 * dependent and independent issue, initiation intervals, register-bank and
 * shared-bank conflicts, barriers, the long scoreboard, DEPBAR, CTA
 * dispatch, launch failure, determinism and the shipped examples.
 *
 * Design: every expected cycle count is derived in the test from the
 * latencies it sets itself (tcfg), never copied from a run; the memory
 * hierarchy keeps the default preset's values because these tests only
 * need its latency to be large. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/runs/example.h"
#include "sim/common/occupancy.h"
#include "sim/host/report.h"
#include "sim/memsys/latency.h"
#include "sim/memsys/memsys.h"
#include "tests/sim/simtest.h"

enum { FP32_LAT = 5, INT_LAT = 3, SMEM_LAT = 25, BRANCH_LAT = 7 };

static ws_gpu_cfg tcfg(void) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 2;
  c.gpu.core_clock_mhz = 1000;
  c.sm.subpartitions = 4;
  c.sm.max_warps_per_sm = 64;
  c.sm.max_ctas_per_sm = 32;
  c.sm.scheduler = WS_SCHED_LRR;
  c.sm.int_lat_cycles = INT_LAT, c.sm.int_ii_cycles = 1;
  c.sm.fp32_lat_cycles = FP32_LAT, c.sm.fp32_ii_cycles = 1;
  c.sm.sfu_lat_cycles = 20, c.sm.sfu_ii_cycles = 4;
  c.sm.shfl_lat_cycles = 10, c.sm.shfl_ii_cycles = 1;
  c.sm.tensor_lat_cycles = 30, c.sm.tensor_ii_cycles = 8;
  c.sm.branch_lat_cycles = BRANCH_LAT;
  c.sm.const_lat_cycles = 9;
  c.sm.lsu_ii_cycles = 1;
  c.regfile.regs_per_sm = 65536;
  c.regfile.alloc_unit_regs = 256;
  c.regfile.banks_per_subpartition = 2;
  c.smem.banks = 32;
  c.smem.bank_width_bytes = 4;
  c.smem.lat_cycles = SMEM_LAT;
  cr_assert_eq(ws_config_resolve(NULL, &c, "tcfg"), WS_OK);
  return c;
}

static uint64_t stat(const simtest *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(ws_device_stats(t->dev), name, &v), "no counter %s", name);
  return v;
}

/* Assembles `body` as kernel t and runs grid x block threads on tcfg (or c). */
static void run_cfg(simtest *t, const char *body, uint32_t grid, uint32_t block, const ws_gpu_cfg *c) {
  static const char head[] = ".kernel t\n.param .ptr buf\n.shared sh 8192 16\n";
  size_t n = sizeof head + strlen(body);
  char *src = malloc(n);
  cr_assert_not_null(src);
  snprintf(src, n, "%s%s", head, body);
  st_init_cfg(t, src, "t", c);
  free(src);
  st_buf(t, "buf", 1 << 16, NULL);
  st_run(t, grid, block);
}

static void run(simtest *t, const char *body, uint32_t grid, uint32_t block) {
  ws_gpu_cfg c = tcfg();
  run_cfg(t, body, grid, block, &c);
}

static char *repeat(const char *line, int n, char *buf, size_t size) {
  buf[0] = 0;
  for (int i = 0; i < n; i++) strncat(buf, line, size - strlen(buf) - 1);
  return buf;
}

Test(engine, dependent_ffma_chain_takes_n_latencies) {
  /* issue k at (k-1)*lat, the last result lands at n*lat; EXIT issues
   * before that but the warp retires only when its results have landed */
  for (int n = 1; n <= 16; n *= 4) {
    char body[4096];
    repeat("FFMA R0, R0, R0, R0\n", n, body, sizeof body);
    strcat(body, "EXIT\n");
    simtest t;
    run(&t, body, 1, 32);
    cr_expect_eq(t.stats.cycles, (uint64_t)n * FP32_LAT, "n=%d", n);
    cr_expect_eq(stat(&t, "sm0.stall.selected"), (uint64_t)n + 1);
    cr_expect_eq(stat(&t, "sm0.stall.wait"), (uint64_t)(n - 1) * (FP32_LAT - 1), "n=%d", n);
    st_fini(&t);
  }
}

Test(engine, four_warps_issue_one_per_cycle_each) {
  /* independent FFMAs (sources R20, R21: different banks) on 4 sub-partitions */
  enum { M = 12 };
  char body[4096] = "";
  for (int i = 0; i < M; i++) {
    char line[64];
    snprintf(line, sizeof line, "FFMA R%d, R20, R21, R20\n", i);
    strcat(body, line);
  }
  strcat(body, "EXIT\n");
  simtest t;
  run(&t, body, 1, 128);
  cr_expect_eq(t.stats.cycles, (uint64_t)(M - 1 + FP32_LAT), "cycles %lu", (unsigned long)t.stats.cycles);
  cr_expect_eq(stat(&t, "sm0.stall.selected"), 4u * (M + 1));
  cr_expect_eq(stat(&t, "sm0.stall.not_selected"), 0);
  cr_expect_eq(stat(&t, "sm0.warp_insns"), 4u * (M + 1));
  st_fini(&t);
}

Test(engine, initiation_interval_spaces_issues) {
  enum { M = 10, II = 3 };
  char body[4096] = "";
  for (int i = 0; i < M; i++) {
    char line[64];
    snprintf(line, sizeof line, "FFMA R%d, R20, R21, R20\n", i);
    strcat(body, line);
  }
  strcat(body, "EXIT\n");
  ws_gpu_cfg c = tcfg();
  c.sm.fp32_ii_cycles = II;
  simtest t;
  run_cfg(&t, body, 1, 32, &c);
  cr_expect_eq(t.stats.cycles, (uint64_t)((M - 1) * II + FP32_LAT));
  cr_expect_eq(stat(&t, "sm0.stall.math_pipe_throttle"), (uint64_t)(M - 1) * (II - 1));
  st_fini(&t);
}

Test(engine, register_bank_conflict_adds_a_cycle) {
  /* R10 and R12 share bank 0 of 2: two reads there cost one extra cycle */
  simtest a, b;
  run(&a, "FFMA R1, R10, R11, R10\nFFMA R2, R1, R1, R1\nEXIT\n", 1, 32);
  run(&b, "FFMA R1, R10, R12, R11\nFFMA R2, R1, R1, R1\nEXIT\n", 1, 32);
  cr_expect_eq(a.stats.cycles, 2u * FP32_LAT);
  cr_expect_eq(b.stats.cycles, 2u * FP32_LAT + 1);
  cr_expect_eq(stat(&a, "sm0.rf.bank_conflict_cycles"), 0);
  cr_expect_eq(stat(&b, "sm0.rf.bank_conflict_cycles"), 1);
  st_fini(&a);
  st_fini(&b);
}

/* lane i reads word i * stride: stride 2^k gives a 2^k-way conflict */
static void smem_case(uint32_t stride_words, uint64_t *cycles, uint64_t *wavefronts, uint64_t *conflicts) {
  char body[512];
  snprintf(body, sizeof body, "S2R R0, SR_TID.X\nIMUL R0, R0, %u\nLDS.32 R1, [R0+sh]\nIADD R2, R1, 1\nEXIT\n",
           stride_words * 4);
  simtest t;
  run(&t, body, 1, 32);
  *cycles = t.stats.cycles;
  *wavefronts = stat(&t, "sm0.smem.wavefronts");
  *conflicts = stat(&t, "sm0.smem.bank_conflicts");
  st_fini(&t);
}

Test(engine, shared_n_way_conflict_costs_n_wavefronts) {
  uint64_t c1, w1, x1;
  smem_case(1, &c1, &w1, &x1);
  cr_expect_eq(w1, 1);
  cr_expect_eq(x1, 0);
  for (uint32_t n = 2; n <= 32; n *= 2) {
    uint64_t c, w, x;
    smem_case(n, &c, &w, &x);
    cr_expect_eq(w, n * w1, "%u-way", n);
    cr_expect_eq(x, n - 1, "%u-way", n);
    cr_expect_eq(c, c1 + (n - 1), "%u-way: each extra wavefront returns one cycle later", n);
  }
  /* the conflict-free load: S2R, IMUL (int lat), LDS (smem lat), IADD (int lat) */
  cr_expect_eq(c1, (uint64_t)INT_LAT + INT_LAT + SMEM_LAT + INT_LAT);
}

Test(engine, barrier_makes_fast_warps_wait) {
  char chain[4096];
  repeat("FFMA R4, R4, R4, R4\n", 20, chain, sizeof chain);
  char body[8192];
  snprintf(body, sizeof body,
           "S2R R0, SR_TID.X\nISETP.GE P0, R0, 32\n@P0 BRA wait\n%swait:\nBAR.SYNC\nEXIT\n", chain);
  simtest t;
  run(&t, body, 1, 64);
  /* S2R at 0, ISETP at INT_LAT, BRA at 2 INT_LAT. Warp 1 branches and
   * reaches BAR.SYNC BRANCH_LAT later; warp 0 falls through, issues the 20
   * dependent FFMAs one latency apart and BAR.SYNC the cycle after the last
   * (it does not read R4), which releases warp 1. */
  uint64_t warp0_bar = 2u * INT_LAT + 1 + 19u * FP32_LAT + 1;
  uint64_t warp1_bar = 2u * INT_LAT + BRANCH_LAT;
  cr_expect_eq(stat(&t, "sm0.stall.barrier"), warp0_bar - warp1_bar);
  /* the branch issues (selected) and its target issues BRANCH_LAT later */
  cr_expect_eq(stat(&t, "sm0.stall.no_instruction"), BRANCH_LAT - 1);
  st_fini(&t);
}

Test(engine, load_use_is_a_long_scoreboard_stall) {
  simtest t;
  run(&t, "LDP.64 R2, [buf]\nLDG.32 R4, [R2]\nIADD R5, R4, 1\nEXIT\n", 1, 32);
  ws_gpu_cfg c = tcfg();
  uint64_t l2 = ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR);
  cr_expect_geq(stat(&t, "sm0.stall.long_scoreboard"), l2, "at least an L2 round trip");
  cr_expect_geq(t.stats.cycles, l2);
  cr_expect_eq(stat(&t, "sm0.lsu.line_accesses"), 1);
  st_fini(&t);
}

Test(engine, depbar_waits_for_its_group) {
  simtest t;
  run(&t,
      "S2R R0, SR_TID.X\nLDP.64 R2, [buf]\nIMAD.WIDE.U32 R2, R0, 4, R2\nSHL R1, R0, 2\n"
      "LDGSTS.32 [R1+sh], [R2]\nLDGDEPBAR\nDEPBAR 0\nLDS.32 R5, [R1+sh]\nEXIT\n",
      1, 32);
  ws_gpu_cfg c = tcfg();
  cr_expect_geq(stat(&t, "sm0.stall.depbar"), ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR));
  cr_expect_eq(stat(&t, "sm0.stall.long_scoreboard"), 0);
  st_fini(&t);
}

/* 32 lanes load 32 consecutive words: one line, four sectors. Launched
 * twice, the second launch misses in the L2 again unless the device keeps
 * the L2 between launches; then all four sectors hit and DRAM is not read.
 * The L1 is emptied at every launch either way. */
static void twice(bool keep_l2, uint64_t hits[2], uint64_t dram[2], uint64_t l1_hits[2]) {
  simtest t;
  ws_gpu_cfg c = tcfg();
  st_init_cfg(&t,
              ".kernel t\n.param .ptr buf\nS2R R0, SR_TID.X\nLDP.64 R2, [buf]\n"
              "IMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R4, [R2]\nEXIT\n",
              "t", &c);
  st_buf(&t, "buf", 4096, NULL);
  ws_device_set_keep_l2(t.dev, keep_l2);
  for (int i = 0; i < 2; i++) {
    st_run(&t, 1, 32);
    hits[i] = ws_stats_sum(ws_device_stats(t.dev), "l2.*.sector_hits");
    dram[i] = ws_stats_sum(ws_device_stats(t.dev), "hbm.*.bytes_read");
    l1_hits[i] = ws_stats_sum(ws_device_stats(t.dev), "sm*.l1.sector_hits");
  }
  st_fini(&t);
}

Test(engine, keep_l2_lets_the_next_launch_hit) {
  uint64_t hits[2], dram[2], l1[2];
  twice(false, hits, dram, l1);
  cr_expect_eq(hits[0], 0);
  cr_expect_eq(hits[1], 0, "a cold L2 at every launch");
  cr_expect_eq(dram[1], 4 * 32, "the four sectors come from DRAM again");
  twice(true, hits, dram, l1);
  cr_expect_eq(hits[0], 0);
  cr_expect_eq(hits[1], 4, "the line stayed in the L2");
  cr_expect_eq(dram[1], 0);
  cr_expect_eq(l1[1], 0, "the L1 is emptied at every launch");
}

Test(engine, ctas_refill_the_sm_that_freed_a_slot) {
  /* one CTA per SM at a time, 5 equal CTAs on 2 SMs: 0,2,4 on SM0; 1,3 on SM1 */
  ws_gpu_cfg c = tcfg();
  c.sm.max_ctas_per_sm = 1;
  simtest t;
  run_cfg(&t, "FFMA R0, R0, R0, R0\nEXIT\n", 5, 32, &c);
  cr_expect_eq(t.stats.ctas, 5);
  cr_expect_eq(stat(&t, "sm0.ctas"), 3);
  cr_expect_eq(stat(&t, "sm1.ctas"), 2);
  cr_expect_eq(stat(&t, "gpu.ctas"), 5);
  /* three waves back to back, each a placement cycle after the last retired */
  cr_expect_eq(t.stats.cycles, 3u * FP32_LAT + 2);
  st_fini(&t);
}

/* CTA 0 spins 200 iterations, the others store at once: with one CTA per SM
 * on 2 SMs, CTA 0 holds SM 0 while CTAs 1-5 run one after the other on SM 1,
 * and SR_SMID must say so (the functional launcher's placement would have
 * been 0,1,0,1,0,1). */
static const char smid_kernel[] = ".kernel t\n.param .ptr buf\n"
                                  "S2R R0, SR_CTAID.X\nS2R R1, SR_SMID\n"
                                  "ISETP.NE.U32 P0, R0, 0\nMOV R2, 200\n@P0 MOV R2, 0\n"
                                  "loop: ISETP.EQ.U32 P1, R2, 0\n@P1 BRA done\n"
                                  "IADD R2, R2, -1\nBRA loop\n"
                                  "done: LDP.64 R4, [buf]\nIMAD.WIDE.U32 R6, R0, 4, R4\n"
                                  "STG.32 [R6], R1\nEXIT\n";

static void smid_case(ws_exec_mode mode, uint32_t got[6]) {
  ws_gpu_cfg c = tcfg();
  c.sm.max_ctas_per_sm = 1;
  simtest t;
  st_init_cfg(&t, smid_kernel, "t", &c);
  uint64_t out = st_buf(&t, "buf", 6 * 4, NULL);
  ws_device_set_mode(t.dev, mode);
  st_run(&t, 6, 32);
  st_read(&t, got, out, 6 * 4);
  st_fini(&t);
}

Test(engine, sr_smid_names_the_sm_that_runs_the_cta) {
  uint32_t timed[6], functional[6];
  smid_case(WS_MODE_TIMING, timed);
  smid_case(WS_MODE_FUNCTIONAL, functional);
  static const uint32_t want_timed[6] = {0, 1, 1, 1, 1, 1}, want_functional[6] = {0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 6; i++) {
    cr_expect_eq(timed[i], want_timed[i], "timed CTA %d ran on SM %u", i, timed[i]);
    cr_expect_eq(functional[i], want_functional[i], "functional CTA %d: SM %u", i, functional[i]);
  }
}

Test(engine, a_cta_that_cannot_fit_fails_to_launch) {
  simtest t;
  ws_gpu_cfg c = tcfg();
  st_init_cfg(&t, ".kernel t\nMOV R254, 1\nEXIT\n", "t", &c);
  ws_status st = st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){1024, 1, 1}, 0);
  cr_expect_eq(st, WS_ERR_LIMIT);
  char launch_msg[1024];
  snprintf(launch_msg, sizeof launch_msg, "%s", ws_errmsg(t.ctx));
  ws_occupancy occ;
  cr_expect_eq(ws_occupancy_compute(t.ctx, &c, 1024, 255, 0, &occ), WS_ERR_LIMIT);
  cr_expect_eq(occ.limiter, WS_OCC_REGS);
  cr_expect_str_eq(launch_msg, ws_errmsg(t.ctx));
  cr_expect(strstr(launch_msg, "too many resources requested for launch") == launch_msg, "%s", launch_msg);
  st_fini(&t);
}

static char *stats_json(const char *example) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = ws_config_default();
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &c, &dev), WS_OK, "%s", ws_errmsg(ctx));
  ws_example_shape s = ws_example_default_shape(example);
  ws_example_check chk;
  cr_assert_eq(ws_example_run(dev, example, &s, &chk), WS_OK, "%s", ws_errmsg(ctx));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ws_stats_write_json(ws_device_stats(dev), f, false);
  fclose(f);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return buf;
}

Test(engine, two_runs_give_identical_stats) {
  char *a = stats_json("reduce"), *b = stats_json("reduce");
  cr_expect(strlen(a) > 1000);
  cr_expect_str_eq(a, b);
  free(a);
  free(b);
}

Test(engine, shipped_examples_pass_timed_with_a_report) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = ws_config_default();
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &c, &dev), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_device_mode(dev), WS_MODE_TIMING);
  for (const char *const *name = ws_example_names; *name; name++) {
    ws_example_shape s = ws_example_default_shape(*name);
    if (s.m > 128) s.m = s.n = s.k = 128; /* keep the Debug suite quick */
    ws_example_check chk;
    cr_assert_eq(ws_example_run(dev, *name, &s, &chk), WS_OK, "%s: %s", *name, ws_errmsg(ctx));
    cr_expect(chk.pass, "%s failed its check in timing mode", *name);
    cr_expect_gt(chk.stats.cycles, 0, "%s", *name);
    cr_expect_gt(chk.stats.warp_insns, 0, "%s", *name);
    uint64_t insns = 0;
    ws_stats_get(ws_device_stats(dev), "gpu.warp_insns", &insns);
    cr_expect_eq(insns, chk.stats.warp_insns, "%s: SM counters agree with the executor", *name);
    uint64_t sel = ws_stats_sum(ws_device_stats(dev), "sm*.stall.selected");
    cr_expect_eq(sel, insns, "%s: one 'selected' warp-cycle per issue", *name);
  }
  /* the report of the last launch names its sections */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ws_program *prog = NULL;
  cr_assert_eq(ws_example_program(ctx, "models/runs/examples/saxpy.wsa", &prog), WS_OK);
  ws_launch_stats ls = {.cycles = 1000, .warp_insns = 10, .ctas = 1};
  ws_report_print(f, &c, prog->kernels[0].name, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, &ls,
                  ws_device_stats(dev));
  fclose(f);
  cr_expect(strstr(buf, "IPC"), "%s", buf);
  cr_expect(strstr(buf, "L2 sector hit rate"), "%s", buf);
  cr_expect(strstr(buf, "warp states"), "%s", buf);
  free(buf);
  ws_program_destroy(prog);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

/* every lane loads its own 128-byte line: 32 line accesses in one instruction */
static const char *scattered_load =
    "S2R R0, SR_TID.X\nLDP.64 R2, [buf]\nIMAD.WIDE.U32 R2, R0, 128, R2\nLDG.32 R4, [R2]\n"
    "IADD R5, R4, 1\nEXIT\n";

Test(engine, refused_line_accesses_are_retried) {
  ws_gpu_cfg c = tcfg();
  simtest roomy;
  run_cfg(&roomy, scattered_load, 1, 32, &c);
  cr_expect_eq(stat(&roomy, "sm0.lsu.line_accesses"), 32);
  c.l1.mshr_entries = 2; /* at most two missing lines in flight */
  simtest tight;
  run_cfg(&tight, scattered_load, 1, 32, &c);
  cr_expect_eq(stat(&tight, "sm0.lsu.line_accesses"), 32, "every line still goes out once");
  cr_expect_gt(stat(&tight, "sm0.lsu.refusals"), 0);
  cr_expect_gt(tight.stats.cycles, roomy.stats.cycles, "back-pressure costs time");
  st_fini(&roomy);
  st_fini(&tight);
}

Test(engine, a_full_lsu_queue_throttles_issue) {
  /* 20 scattered stores from one warp: 640 line accesses, one per cycle,
   * behind a 16-instruction queue */
  char body[4096] = "S2R R0, SR_TID.X\nLDP.64 R2, [buf]\nIMAD.WIDE.U32 R2, R0, 128, R2\n";
  for (int i = 0; i < 20; i++) strcat(body, "STG.32 [R2], R0\n");
  strcat(body, "EXIT\n");
  simtest t;
  run(&t, body, 1, 32);
  cr_expect_eq(stat(&t, "sm0.lsu.line_accesses"), 20u * 32);
  cr_expect_gt(stat(&t, "sm0.stall.lsu_throttle"), 0);
  cr_expect_geq(t.stats.cycles, 20u * 32, "the LSU sends one line access per cycle");
  st_fini(&t);
}

Test(engine, the_instruction_budget_stops_a_runaway_loop) {
  ws_gpu_cfg c = tcfg();
  c.gpu.insn_budget_warp_insns = 50;
  simtest t;
  st_init_cfg(&t, ".kernel t\nloop:\nIADD R0, R0, 1\nBRA loop\nEXIT\n", "t", &c);
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_BUDGET);
  /* one warp, one instruction a cycle: the cycle that passes the limit
   * issues the 51st */
  cr_expect(strstr(ws_errmsg(t.ctx), "kernel 't' stopped: the launch issued 51 warp instructions, past the "
                                     "launch's limit of 50"),
            "%s", ws_errmsg(t.ctx));
  cr_expect_eq(t.stats.warp_insns, 51);
  st_fini(&t);
}

Test(engine, units_and_flops_are_counted) {
  simtest t;
  run(&t, "FFMA R0, R1, R2, R3\nFADD R4, R1, R2\nIADD R5, R1, 1\nEXIT\n", 1, 48);
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.fp32"), 4, "2 instructions x 2 warps");
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.int"), 2);
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.ctrl"), 2);
  cr_expect_eq(stat(&t, "sm0.flops.fp32"), 48u * 2 + 48u, "FFMA 2 and FADD 1 per lane, 48 lanes");
  cr_expect_eq(stat(&t, "sm0.thread_insns"), 48u * 4);
  st_fini(&t);
}

Test(engine, functional_mode_has_no_cycles_but_occupancy) {
  ws_gpu_cfg c = tcfg();
  simtest t;
  st_init_cfg(&t, ".kernel t\nFFMA R0, R0, R0, R0\nEXIT\n", "t", &c);
  ws_device_set_mode(t.dev, WS_MODE_FUNCTIONAL);
  cr_expect_eq(ws_device_mode(t.dev), WS_MODE_FUNCTIONAL);
  st_run(&t, 3, 64);
  cr_expect_eq(t.stats.cycles, 0);
  cr_expect_eq(t.stats.ctas, 3);
  cr_expect_eq(t.stats.occupancy.warps_per_cta, 2);
  cr_expect_gt(t.stats.occupancy.ctas_per_sm, 0);
  st_fini(&t);
}

/* ---- the host memory an engine takes, known before it is built ------------ */

#include <malloc.h>

#include "sim/gpu/engine.h"
#include "sim/host/device.h"
#include "sim/sm/sm.h"

/* ws_engine_state_bytes is a bound for a run's memory check: what creation
 * allocates (the hierarchy and every SM) must fit under it, and the part
 * it adds for a launch that fills every warp slot is the SMs' share only.
 * AddressSanitizer's allocator does not feed mallinfo2: skipped there. */
Test(engine, state_bytes_bound_what_creation_allocates) {
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("the allocator under test does not report its use");
#else
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &c), WS_OK);
  cr_assert_eq(ws_config_set(ctx, &c, "l2.slices=80"), WS_OK);
  cr_assert_eq(ws_config_resolve(ctx, &c, "test"), WS_OK, "%s", ws_errmsg(ctx));
  ws_stats *stats = ws_stats_create();
  struct mallinfo2 a = mallinfo2();
  ws_engine *e = NULL;
  cr_assert_eq(ws_engine_create(ctx, &c, stats, &e), WS_OK, "%s", ws_errmsg(ctx));
  struct mallinfo2 b = mallinfo2();
  uint64_t used = (b.uordblks + b.hblkhd) - (a.uordblks + a.hblkhd);
  uint64_t est = ws_engine_state_bytes(&c), sms = c.gpu.num_sms * ws_sm_state_bytes(&c);
  cr_expect_leq(used, est, "creation took %llu bytes, more than the %llu estimated", (unsigned long long)used,
                (unsigned long long)est);
  cr_expect_geq(used, est - sms, "creation took %llu bytes, less than the hierarchy's %llu",
                (unsigned long long)used, (unsigned long long)(est - sms));
  cr_expect_gt(ws_device_state_bytes(&c), est, "the device adds its constant bank");
  ws_engine_destroy(e);
  ws_stats_destroy(stats);
  ws_ctx_destroy(ctx);
#endif
}

/* ---- local memory ------------------------------------------------------------------- */

/* A warp's 32 lanes on one local word use the 32 consecutive words of one
 * 128-byte line (word w of lane L at region + (w * 32 + L) * 4, and a
 * region is a multiple of 128 bytes): one line access of 4 sectors for the
 * store, one for the load. A .64 covers words 2 and 3: two lines. */
Test(engine, a_warp_on_one_local_word_touches_one_line) {
  simtest t;
  run(&t, ".local 64\nS2R R0, SR_TID.X\nSTL [RZ+16], R0\nLDL R1, [RZ+16]\nIADD R2, R1, 1\nEXIT\n", 1, 32);
  cr_expect_eq(stat(&t, "sm0.lsu.line_accesses"), 2);
  cr_expect_eq(stat(&t, "sm0.lsu.sectors"), 8);
  cr_expect_eq(stat(&t, "sm0.lsu.local_loads"), 1);
  cr_expect_eq(stat(&t, "sm0.lsu.local_stores"), 1);
  cr_expect_eq(stat(&t, "sm0.lsu.local_bytes"), 2 * 32 * 4);
  ws_gpu_cfg c = tcfg();
  cr_expect_geq(stat(&t, "sm0.stall.long_scoreboard"), ws_latency_idle_cycles(&c, WS_LEVEL_L1_HIT),
                "the load waits on the memory path");
  st_fini(&t);
  run(&t, ".local 64\nSTL.64 [RZ+8], R4\nEXIT\n", 1, 32);
  cr_expect_eq(stat(&t, "sm0.lsu.line_accesses"), 2);
  cr_expect_eq(stat(&t, "sm0.lsu.sectors"), 8);
  cr_expect_eq(stat(&t, "sm0.lsu.local_stores"), 1);
  cr_expect_eq(stat(&t, "sm0.lsu.local_bytes"), 32 * 8);
  st_fini(&t);
}

Test(engine, the_report_shows_local_memory_traffic_when_used) {
  simtest t;
  run(&t, ".local 64\nSTL [RZ], R4\nLDL R5, [RZ]\nIADD R6, R5, 1\nEXIT\n", 1, 64);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert_not_null(f);
  ws_gpu_cfg c = tcfg();
  ws_report_print(f, &c, "t", (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, &t.stats, ws_device_stats(t.dev));
  fclose(f);
  cr_expect(strstr(buf, "local memory traffic") != NULL, "%s", buf);
  cr_expect(strstr(buf, " 2 loads, 2 stores, 512 B requested") != NULL, "%s", buf);
  free(buf);
  st_fini(&t);
}
