/* test_subpart.c - a sub-partition's issue stage, seen only through the
 * device API and the stall counters (its internal interface is being
 * reworked; these cases must survive that): warp slot s belongs to
 * sub-partition s mod 4, each sub-partition issues one instruction per
 * cycle, the configured scheduler decides the order, the warp it passes
 * over is charged "not_selected", and a shared-memory result is a
 * "short_scoreboard" wait.
 *
 * Why: these are the rules of docs/architecture.md's "Timing rules"; every
 * expected count below follows from the latencies set in scfg(). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/sim/simtest.h"

enum { FP32_LAT = 5, INT_LAT = 3, SMEM_LAT = 25, M = 12 };

static ws_gpu_cfg scfg(ws_sched_policy policy) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 1;
  c.sm.subpartitions = 4;
  c.sm.max_warps_per_sm = 64;
  c.sm.scheduler = policy;
  c.sm.int_lat_cycles = INT_LAT, c.sm.int_ii_cycles = 1;
  c.sm.fp32_lat_cycles = FP32_LAT, c.sm.fp32_ii_cycles = 1;
  c.regfile.banks_per_subpartition = 2;
  c.smem.lat_cycles = SMEM_LAT;
  return c;
}

static uint64_t stat(const simtest *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(ws_device_stats(t->dev), name, &v), "no counter %s", name);
  return v;
}

/* M independent FFMAs (sources R20, R21: different banks) and EXIT. */
static void independent(simtest *t, ws_sched_policy policy, uint32_t threads) {
  char src[4096] = ".kernel t\n";
  for (int i = 0; i < M; i++) {
    char line[64];
    snprintf(line, sizeof line, "FFMA R%d, R20, R21, R20\n", i);
    strcat(src, line);
  }
  strcat(src, "EXIT\n");
  ws_gpu_cfg c = scfg(policy);
  st_init_cfg(t, src, "t", &c);
  st_run(t, 1, threads);
}

/* 5 warps: warps 0 and 4 share sub-partition 0, warps 1-3 have one each.
 * LRR alternates warps 0 and 4: FFMAs at cycles 0..2M-1, EXITs at 2M and
 * 2M+1; the passed-over warp is eligible in every one of sub-partition 0's
 * 2(M+1) issue cycles except the last (warp 0 has exited by then). The
 * kernel ends when the last FFMA's result lands: 2M - 1 + FP32_LAT. */
Test(subpart, lrr_alternates_two_warps_of_one_subpartition) {
  simtest t;
  independent(&t, WS_SCHED_LRR, 160);
  cr_expect_eq(stat(&t, "sm0.stall.selected"), 5u * (M + 1));
  cr_expect_eq(stat(&t, "sm0.stall.not_selected"), 2u * M + 1);
  cr_expect_eq(t.stats.cycles, 2u * M - 1 + FP32_LAT);
  st_fini(&t);
}

/* GTO: warp 0 (older) issues all M + 1 instructions at cycles 0..M while
 * warp 4 waits, eligible, M + 1 cycles; warp 4 then issues at M+1..2M+1,
 * its last FFMA at 2M. */
Test(subpart, gto_runs_the_older_warp_to_its_end_first) {
  simtest t;
  independent(&t, WS_SCHED_GTO, 160);
  cr_expect_eq(stat(&t, "sm0.stall.selected"), 5u * (M + 1));
  cr_expect_eq(stat(&t, "sm0.stall.not_selected"), (uint64_t)M + 1);
  cr_expect_eq(t.stats.cycles, 2u * M + FP32_LAT);
  st_fini(&t);
}

/* 4 warps, one per sub-partition: nobody is ever passed over. */
Test(subpart, one_warp_per_subpartition_is_never_passed_over) {
  simtest t;
  independent(&t, WS_SCHED_GTO, 128);
  cr_expect_eq(stat(&t, "sm0.stall.not_selected"), 0);
  cr_expect_eq(t.stats.cycles, (uint64_t)M - 1 + FP32_LAT);
  st_fini(&t);
}

/* LDS at cycle 0 (one wavefront) is ready at SMEM_LAT; the dependent IADD
 * waits cycles 1..SMEM_LAT-1 on the short scoreboard, issues at SMEM_LAT,
 * and its result lands INT_LAT later. */
Test(subpart, a_shared_load_is_a_short_scoreboard_wait) {
  ws_gpu_cfg c = scfg(WS_SCHED_LRR);
  simtest t;
  st_init_cfg(&t, ".kernel t\n.shared sh 128\nLDS.32 R1, [RZ+sh]\nIADD R2, R1, 1\nEXIT\n", "t", &c);
  st_run(&t, 1, 32);
  cr_expect_eq(stat(&t, "sm0.stall.short_scoreboard"), SMEM_LAT - 1);
  cr_expect_eq(stat(&t, "sm0.stall.wait"), 0, "a shared result is not a fixed-latency wait");
  cr_expect_eq(stat(&t, "sm0.stall.selected"), 3);
  cr_expect_eq(t.stats.cycles, (uint64_t)SMEM_LAT + INT_LAT);
  st_fini(&t);
}
