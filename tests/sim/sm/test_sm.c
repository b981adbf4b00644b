/* test_sm.c - an SM's counters and CTA residency, through the device API
 * only (the SM's internal interface with its sub-partitions is being
 * reworked): the names each SM registers, instruction, lane, unit, FLOP,
 * branch and LSU counts worked out from the kernel text, the residency
 * integrals (every unfinished warp is in exactly one warp state each cycle,
 * and a resident CTA makes its SM active), and CTAs counted where they ran.
 *
 * Why: the report's IPC, occupancy and FLOP figures are these counters;
 * each one is pinned to what the kernel text says it must be. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/sm/sm.h"
#include "tests/sim/simtest.h"

static uint64_t stat(const simtest *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(ws_device_stats(t->dev), name, &v), "no counter %s", name);
  return v;
}

static void run_on(simtest *t, const char *src, uint32_t num_sms, uint32_t grid, uint32_t block) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = num_sms;
  st_init_cfg(t, src, "t", &c);
  st_run(t, grid, block);
}

Test(sm, every_sm_registers_its_counters) {
  simtest t;
  run_on(&t, ".kernel t\nEXIT\n", 3, 1, 32);
  static const char *const names[] = {"cycles_active",
                                      "warps_active_sum",
                                      "warp_insns",
                                      "thread_insns",
                                      "flops.fp32",
                                      "flops.tensor",
                                      "rf.bank_conflict_cycles",
                                      "ctas",
                                      "branches_taken",
                                      "lsu.line_accesses",
                                      "lsu.sectors",
                                      "lsu.refusals",
                                      "smem.insns",
                                      "smem.wavefronts",
                                      "smem.bank_conflicts",
                                      "inst_by_unit.int",
                                      "inst_by_unit.fp32",
                                      "inst_by_unit.lsu",
                                      "inst_by_unit.tensor",
                                      "inst_by_unit.ctrl"};
  char name[64];
  uint64_t v;
  for (unsigned sm = 0; sm < 3; sm++)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      snprintf(name, sizeof name, "sm%u.%s", sm, names[i]);
      cr_expect(ws_stats_get(ws_device_stats(t.dev), name, &v), "%s", name);
    }
  for (int s = 0; s < WS_STALL_COUNT; s++) {
    snprintf(name, sizeof name, "sm2.stall.%s", ws_sm_stall_name((ws_stall)s));
    cr_expect(ws_stats_get(ws_device_stats(t.dev), name, &v), "%s", name);
  }
  cr_expect_not(ws_stats_get(ws_device_stats(t.dev), "sm3.ctas", &v), "only 3 SMs");
  cr_expect_str_eq(ws_sm_stall_name(WS_STALL_COUNT), "?");
  st_fini(&t);
}

/* 40 threads (2 warps: 32 + 8 lanes); tid < 36 runs the FFMA and FADD:
 * warp 0 all 32 lanes, warp 1 lanes 0-3. Per warp 6 instructions
 * (S2R, ISETP, FFMA, FADD, MOV, EXIT); the MOV is guarded by !P0. */
Test(sm, instruction_lane_unit_and_flop_counts) {
  simtest t;
  run_on(&t,
         ".kernel t\nS2R R0, SR_TID.X\nISETP.LT.U32 P0, R0, 36\n@P0 FFMA R1, R0, R0, R0\n"
         "@P0 FADD R2, R1, R1\n@!P0 MOV R3, 1\nEXIT\n",
         1, 1, 40);
  cr_expect_eq(stat(&t, "sm0.warp_insns"), 12);
  /* lanes: S2R 40, ISETP 40, FFMA 36, FADD 36, MOV 4 (warp 1 lanes 4-7), EXIT 40 */
  cr_expect_eq(stat(&t, "sm0.thread_insns"), 40 + 40 + 36 + 36 + 4 + 40);
  cr_expect_eq(stat(&t, "sm0.thread_insns"), t.stats.thread_insns);
  cr_expect_eq(stat(&t, "sm0.flops.fp32"), 36 * 2 + 36 * 1, "FFMA 2, FADD 1 per executing lane");
  cr_expect_eq(stat(&t, "sm0.flops.tensor"), 0);
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.int"), 6, "S2R, ISETP, MOV per warp");
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.fp32"), 4);
  cr_expect_eq(stat(&t, "sm0.inst_by_unit.ctrl"), 2);
  for (int u = 0; u < WS_UNIT_COUNT; u++) {
    char name[64], unit[16];
    snprintf(unit, sizeof unit, "%s", ws_isa_unit_name((ws_unit)u));
    for (char *c = unit; *c; c++) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    snprintf(name, sizeof name, "sm0.inst_by_unit.%s", unit);
    cr_expect_eq(stat(&t, name), t.stats.warp_insns_by_unit[u], "%s matches the launch stats", name);
  }
  cr_expect_eq(stat(&t, "sm0.ctas"), 1);
  st_fini(&t);
}

/* A branch counts when the warp's next pc is not pc + 1: a uniform taken
 * BRA (3), the divergent if/else at 7 (taken side first, at 10) and the
 * not-taken side's jump over the else (9) do; a branch no lane takes (5)
 * and a divergent "if" whose taken side starts at the join (11: the lanes
 * that fall through run first, from 12) do not. */
Test(sm, branches_taken) {
  simtest t;
  run_on(&t,
         ".kernel t\nS2R R0, SR_TID.X\nISETP.LT.U32 P0, R0, 8\nISETP.LT.U32 P1, R0, 0\n"
         "BRA a\nNOP\na: @P1 BRA b\nNOP\nb: @P0 BRA c\nNOP\nBRA d\nc: NOP\n"
         "d: @P0 BRA e\nNOP\ne: EXIT\n",
         1, 1, 32);
  cr_expect_eq(stat(&t, "sm0.branches_taken"), 3);
  st_fini(&t);
}

/* One warp loads 32 consecutive words (one 128-byte line, four sectors) and
 * stores them (the same line); shared memory: a 2-way conflicted store
 * (stride 2 words over 32 banks) and a conflict-free load. */
Test(sm, lsu_and_shared_counts) {
  simtest t;
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 1;
  c.smem.banks = 32;
  c.smem.bank_width_bytes = 4;
  st_init_cfg(&t,
              ".kernel t\n.param .ptr p\n.shared sh 256\n"
              "S2R R0, SR_TID.X\nLDP.64 R2, [p]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R4, [R2]\n"
              "STG.32 [R2], R4\nSHL R5, R0, 3\nSTS.32 [R5+sh], R4\nSHL R6, R0, 2\nLDS.32 R7, [R6+sh]\nEXIT\n",
              "t", &c);
  st_buf(&t, "p", 128, NULL);
  st_run(&t, 1, 32);
  cr_expect_eq(stat(&t, "sm0.lsu.line_accesses"), 2);
  cr_expect_eq(stat(&t, "sm0.lsu.sectors"), 8);
  cr_expect_eq(stat(&t, "sm0.smem.insns"), 2);
  cr_expect_eq(stat(&t, "sm0.smem.wavefronts"), 2 + 1);
  cr_expect_eq(stat(&t, "sm0.smem.bank_conflicts"), 1);
  st_fini(&t);
}

/* Every cycle each unfinished resident warp is in exactly one warp state,
 * so the states' warp-cycles add up to warps_active_sum; and an SM holding
 * a CTA is active. Three CTAs of 3 warps on 2 SMs. */
Test(sm, residency_integrals_agree_with_the_warp_states) {
  simtest t;
  run_on(&t,
         ".kernel t\nS2R R0, SR_TID.X\nFFMA R1, R0, R0, R0\nFFMA R1, R1, R1, R1\n"
         "ISETP.GE.U32 P0, R0, 64\n@P0 EXIT\nBAR.SYNC\nFFMA R1, R1, R1, R1\nEXIT\n",
         2, 3, 96);
  for (unsigned sm = 0; sm < 2; sm++) {
    char pat[64], name[64];
    snprintf(pat, sizeof pat, "sm%u.stall.*", sm);
    snprintf(name, sizeof name, "sm%u.warps_active_sum", sm);
    uint64_t states = ws_stats_sum(ws_device_stats(t.dev), pat);
    cr_expect_gt(states, 0);
    cr_expect_eq(stat(&t, name), states, "SM %u", sm);
    snprintf(name, sizeof name, "sm%u.cycles_active", sm);
    cr_expect_gt(stat(&t, name), 0);
    cr_expect_leq(stat(&t, name), t.stats.cycles);
  }
  cr_expect_eq(stat(&t, "sm0.ctas") + stat(&t, "sm1.ctas"), 3);
  cr_expect_eq(stat(&t, "sm0.ctas"), 2, "CTAs 0 and 2");
  st_fini(&t);
}

/* One SM, one CTA from cycle 0 to the end: active for the whole launch. */
Test(sm, one_cta_keeps_its_sm_active_for_the_whole_launch) {
  simtest t;
  run_on(&t, ".kernel t\nFFMA R1, R0, R0, R0\nFFMA R1, R1, R1, R1\nEXIT\n", 1, 1, 64);
  cr_expect_eq(stat(&t, "sm0.cycles_active"), t.stats.cycles);
  st_fini(&t);
}
