/* test_watchdog.c - what stops a launch: spin detection (and no false alarm
 * on a warp that waits for another warp's write), the per-warp limit sized
 * from the kernel, cycle and interrupt limits, progress reports. */
#include <criterion/criterion.h>
#include <string.h>

#include "../simtest.h"
#include "sim/exec/watchdog.h"

static const char spin_src[] = ".kernel spin\nL:  BRA L\n    EXIT\n";

/* Warp 0 waits for a flag in global memory that warp 1 writes after counting
 * to `n` in a register: a wait that ends, and a long quiet phase in which
 * only warp 1's counter changes. */
static const char flag_src[] = ".kernel flagwait\n"
                               ".param .ptr flag\n"
                               ".param .u32 n\n"
                               "    S2R R0, SR_TID.X\n"
                               "    LDP.64 R2, [flag]\n"
                               "    LDP.32 R7, [n]\n"
                               "    ISETP.GE.U32 P0, R0, 32\n"
                               "@P0 BRA setter\n"
                               "wait:\n"
                               "    LDG.32 R4, [R2]\n"
                               "    ISETP.EQ.U32 P1, R4, 0\n"
                               "@P1 BRA wait\n"
                               "    EXIT\n"
                               "setter:\n"
                               "    MOV R5, 0\n"
                               "work:\n"
                               "    IADD R5, R5, 1\n"
                               "    ISETP.LT.U32 P2, R5, R7\n"
                               "@P2 BRA work\n"
                               "    MOV R6, 1\n"
                               "    STG.32 [R2], R6\n"
                               "    EXIT\n";

/* Warp 0 waits for a shared flag warp 1 sets only after a barrier that
 * warp 0 never reaches. */
static const char deadlock_src[] = ".kernel dead\n"
                                   ".shared flag 4\n"
                                   "    S2R R0, SR_TID.X\n"
                                   "    ISETP.GE.U32 P0, R0, 32\n"
                                   "@P0 BRA setter\n"
                                   "wait:\n"
                                   "    LDS.32 R4, [flag]\n"
                                   "    ISETP.EQ.U32 P1, R4, 0\n"
                                   "@P1 BRA wait\n"
                                   "    BAR.SYNC\n"
                                   "    EXIT\n"
                                   "setter:\n"
                                   "    BAR.SYNC\n"
                                   "    MOV R6, 1\n"
                                   "    STS.32 [flag], R6\n"
                                   "    EXIT\n";

static void init(simtest *t, const char *src, const char *kernel, bool timing) {
  ws_gpu_cfg cfg = ws_config_default();
  st_init_cfg(t, src, kernel, &cfg);
  ws_device_set_mode(t->dev, timing ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
}

static void expect_msg(const simtest *t, const char *needle) {
  cr_expect(strstr(ws_errmsg(t->ctx), needle), "'%s' not in:\n%s", needle, ws_errmsg(t->ctx));
}

Test(watchdog, default_per_warp_limit_is_sized_from_the_kernel) {
  ws_kernel k = {.ninsns = 3};
  cr_expect_eq(ws_watchdog_default_per_warp(&k), 67ull * 65536);
}

Test(watchdog, a_branch_to_itself_is_stopped_in_both_modes) {
  for (int timing = 0; timing < 2; timing++) {
    simtest t;
    init(&t, spin_src, "spin", timing);
    cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_FAULT);
    expect_msg(&t, "kernel 'spin' can never finish: 1 warp spins in a loop that writes no memory");
    expect_msg(&t, "\n    CTA (0,0,0) warp 0 at pc 0 (line 2): BRA L");
    /* far below the per-warp limit of 66 * 65536: the detector, not the limit */
    cr_expect_lt(t.stats.warp_insns, 3000000, "%lu", (unsigned long)t.stats.warp_insns);
    if (!timing) expect_msg(&t, "functional mode runs one warp at a time");
    st_fini(&t);
  }
}

Test(watchdog, many_spinning_warps_are_listed_lowest_first) {
  simtest t;
  init(&t, spin_src, "spin", true);
  cr_expect_eq(st_launch(&t, (ws_dim3){3, 1, 1}, (ws_dim3){64, 1, 1}, 0), WS_ERR_FAULT);
  expect_msg(&t, "6 warps spin");
  expect_msg(&t, "\n    CTA (0,0,0) warp 0 at pc 0 (line 2): BRA L\n    CTA (0,0,0) warp 1 at pc 0 (line 2): "
                 "BRA L\n    CTA (1,0,0) warp 0");
  expect_msg(&t, "... and 2 more");
  st_fini(&t);
}

Test(watchdog, a_wait_for_another_warps_write_is_not_a_spin) {
  simtest t;
  init(&t, flag_src, "flagwait", true);
  uint64_t flag = st_buf(&t, "flag", 4, NULL);
  st_u32(&t, "n", 200000); /* 600k quiet instructions of warp 1 while warp 0 polls */
  st_run(&t, 1, 64);
  uint32_t v = 0;
  st_read(&t, &v, flag, 4);
  cr_expect_eq(v, 1);
  st_fini(&t);
}

Test(watchdog, a_wait_that_a_barrier_blocks_is_a_spin) {
  simtest t;
  init(&t, deadlock_src, "dead", true);
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0), WS_ERR_FAULT);
  expect_msg(&t, "kernel 'dead' can never finish: 1 warp spins");
  expect_msg(&t, "CTA (0,0,0) warp 0 at pc");
  st_fini(&t);
}

Test(watchdog, no_spin_check_leaves_it_to_the_per_warp_limit) {
  simtest t;
  init(&t, spin_src, "spin", false);
  ws_device_set_watch(t.dev, &(ws_watch){.no_spin_check = true, .max_warp_insns_per_warp = 100000});
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_BUDGET);
  expect_msg(&t,
             "kernel 'spin' stopped: a warp passed the limit of 100000 instructions per warp: a loop that "
             "never ends?");
  expect_msg(
      &t, "next to issue: CTA (0,0,0) warp 0 at pc 0 (line 2): BRA L\n    raise it with --max-warp-insns N");
  /* checked once per window of 65536 launch instructions */
  cr_expect_geq(t.stats.warp_insns, 100000);
  cr_expect_leq(t.stats.warp_insns, 100000 + 65536);
  st_fini(&t);
}

Test(watchdog, the_per_warp_default_stops_a_counting_loop) {
  /* a register counts, so no state repeats: only the limit can stop it */
  simtest t;
  init(&t, ".kernel count\nL:  IADD R1, R1, 1\n    BRA L\n", "count", false);
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_BUDGET);
  expect_msg(&t,
             "a warp passed the limit of 4325376 instructions per warp (65536 per kernel instruction, plus "
             "64)");
  st_fini(&t);
}

Test(watchdog, max_cycles_stops_a_timed_launch) {
  simtest t;
  init(&t, ".kernel count\nL:  IADD R1, R1, 1\n    BRA L\n", "count", true);
  ws_device_set_watch(t.dev, &(ws_watch){.max_cycles = 20000});
  cr_expect_eq(st_launch(&t, (ws_dim3){4, 1, 1}, (ws_dim3){128, 1, 1}, 0), WS_ERR_BUDGET);
  expect_msg(&t, "kernel 'count' stopped: reached the limit of 20000 cycles (at cycle 2");
  expect_msg(&t, "raise it with --max-cycles N");
  st_fini(&t);
}

Test(watchdog, an_interrupt_stops_the_launch_and_says_how_far_it_got) {
  volatile sig_atomic_t flag = 1;
  for (int timing = 0; timing < 2; timing++) {
    simtest t;
    init(&t, ".kernel count\nL:  IADD R1, R1, 1\n    BRA L\n", "count", timing);
    ws_device_set_watch(t.dev, &(ws_watch){.interrupt = &flag});
    cr_expect_eq(st_launch(&t, (ws_dim3){2, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_INTERRUPTED);
    expect_msg(&t, "kernel 'count' stopped: interrupted (");
    expect_msg(&t, "0 of 2 CTAs done");
    st_fini(&t);
  }
}

typedef struct progress_log {
  int reports, done;
  uint64_t last_insns;
} progress_log;

static void log_progress(void *user, const ws_progress *p) {
  progress_log *log = user;
  cr_expect_str_eq(p->kernel, "count");
  cr_expect_eq(p->ctas_total, 1);
  if (p->done) {
    log->done++;
    return;
  }
  log->reports++;
  cr_expect_geq(p->warp_insns, log->last_insns, "progress only grows");
  log->last_insns = p->warp_insns;
}

/* A wall-clock limit: the one test here whose outcome depends on time, and
 * only on "more than 0.6 s passed", never on how much work that was. */
Test(watchdog, timeout_stops_a_launch_that_reported_progress_and_closes_it) {
  simtest t;
  init(&t, ".kernel count\nL:  IADD R1, R1, 1\n    BRA L\n", "count", false);
  progress_log log = {0};
  ws_device_set_watch(t.dev, &(ws_watch){.max_warp_insns_per_warp = UINT64_MAX,
                                         .timeout_s = 0.6,
                                         .progress = log_progress,
                                         .progress_user = &log});
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_ERR_BUDGET);
  expect_msg(&t, "kernel 'count' stopped: ran for the --timeout limit of 0.6 s of wall-clock time");
  cr_expect_geq(log.reports, 1, "progress every 0.25 s");
  cr_expect_eq(log.done, 1, "the progress line is closed once");
  st_fini(&t);
}
