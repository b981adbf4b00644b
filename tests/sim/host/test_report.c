/* test_report.c - the per-launch performance report: every figure of the
 * text for a registry whose counters are set by hand (so each percentage,
 * rate and peak below is worked out in a comment), "n/a" where counters are
 * absent, the functional-launch form, the summary the timeline uses, and a
 * small real launch whose counted figures (instructions, FLOPs, sectors,
 * DRAM bytes) follow from the kernel text.
 *
 * Why: the report is what students read; a wrong denominator would look
 * perfectly plausible. Only counted quantities are asserted, never cycles. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/host/report.h"
#include "tests/sim/simtest.h"

/* The value text after `label` on the line that starts with it (leading
 * spaces skipped), NULL when there is no such line; *out is that line's rest. */
static bool field(const char *text, const char *label, char *out, size_t size) {
  size_t n = strlen(label);
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    const char *p = line;
    while (*p == ' ') p++;
    if (strncmp(p, label, n) == 0 && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')) {
      p += n;
      while (*p == ' ') p++;
      size_t len = (size_t)((end ? end : p + strlen(p)) - p);
      if (len >= size) len = size - 1;
      memcpy(out, p, len);
      out[len] = '\0';
      return true;
    }
    line = end ? end + 1 : NULL;
  }
  return false;
}

#define EXPECT_FIELD(text, label, want)                                                                      \
  do {                                                                                                       \
    char got_[256];                                                                                          \
    cr_expect(field(text, label, got_, sizeof got_), "no line '%s' in:\n%s", label, text);                   \
    cr_expect_str_eq(got_, want, "line '%s'", label);                                                        \
  } while (0)

static ws_gpu_cfg rcfg(void) {
  ws_gpu_cfg c = ws_config_default();
  snprintf(c.gpu.name, sizeof c.gpu.name, "tiny");
  c.gpu.num_sms = 2;
  c.gpu.core_clock_mhz = 1000;
  c.sm.max_warps_per_sm = 64;
  c.sm.subpartitions = 4;
  c.sm.fp32_lanes_per_subpartition = 32;
  c.sm.tensor_flops_per_cycle_per_sm = 1024;
  c.hbm.channels = 2;
  c.hbm.channel_mbps = 16000;
  return c;
}

/* A registry of named counters with the values given, all kept in `vals`. */
typedef struct rreg {
  ws_ctx *ctx;
  ws_stats *s;
  uint64_t vals[32];
  int n;
} rreg;

static void add(rreg *r, const char *name, uint64_t v) {
  cr_assert_lt(r->n, 32);
  r->vals[r->n] = v;
  cr_assert_eq(ws_stats_register_u64(r->s, r->ctx, &r->vals[r->n], "", "%s", name), WS_OK);
  r->n++;
}

static void rreg_init(rreg *r) {
  memset(r, 0, sizeof *r);
  r->ctx = ws_ctx_create();
  r->s = ws_stats_create();
}

static void rreg_fini(rreg *r) {
  ws_stats_destroy(r->s);
  ws_ctx_destroy(r->ctx);
}

/* Counters for 2 SMs over a 1000-cycle launch:
 *  active cycles 800 + 400 = 1200; resident warp-cycles 16000 + 3200 = 19200
 *  warp states: selected 500, long_scoreboard 1000 + 500 -> 2000 in all
 *  L1 sectors 30 hits / 10 misses; L2 sectors 5 hits / 15 misses
 *  DRAM 3200 B read + 800 B written; shared 40 wavefronts, 8 of them extra
 *  4096 fp32 FLOPs, no tensor FLOPs. */
static void full_registry(rreg *r) {
  rreg_init(r);
  add(r, "sm0.cycles_active", 800);
  add(r, "sm1.cycles_active", 400);
  add(r, "sm0.warps_active_sum", 16000);
  add(r, "sm1.warps_active_sum", 3200);
  add(r, "sm0.stall.selected", 500);
  add(r, "sm0.stall.long_scoreboard", 1000);
  add(r, "sm1.stall.long_scoreboard", 500);
  add(r, "sm1.stall.barrier", 0);
  add(r, "sm0.l1.sector_hits", 30);
  add(r, "sm1.l1.sector_misses", 10);
  add(r, "l2.slice0.sector_hits", 5);
  add(r, "l2.slice1.sector_misses", 15);
  add(r, "hbm.ch0.bytes_read", 3200);
  add(r, "hbm.ch1.bytes_written", 800);
  add(r, "sm0.smem.wavefronts", 40);
  add(r, "sm0.smem.bank_conflicts", 8);
  add(r, "sm0.flops.fp32", 4096);
  add(r, "sm1.flops.tensor", 0);
}

static ws_launch_stats full_launch(void) {
  ws_launch_stats ls;
  memset(&ls, 0, sizeof ls);
  ls.cycles = 1000;
  ls.ctas = 8;
  ls.warp_insns = 500;
  ls.thread_insns = 16000;
  ls.occupancy.ctas_per_sm = 4;
  ls.occupancy.warps_per_cta = 8;
  ls.occupancy.occupancy = 0.5;
  ls.occupancy.limiter = WS_OCC_REGS;
  return ls;
}

static char *print(const ws_gpu_cfg *c, const ws_launch_stats *ls, const ws_stats *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  ws_report_print(f, c, "k", (ws_dim3){4, 2, 1}, (ws_dim3){128, 1, 1}, ls, s);
  fclose(f);
  return buf;
}

Test(report, every_figure_of_a_known_registry) {
  ws_gpu_cfg c = rcfg();
  rreg r;
  full_registry(&r);
  ws_launch_stats ls = full_launch();
  char *text = print(&c, &ls, r.s);
  static const char head[] = "kernel 'k' on tiny: grid (4,2,1) block (128,1,1), 8 CTAs\n";
  cr_expect(strncmp(text, head, strlen(head)) == 0, "%s", text);
  EXPECT_FIELD(text, "duration [cycles]", "1000");
  EXPECT_FIELD(text, "duration [time]", "1.000 us at 1000 MHz"); /* 1000 cycles at 1 GHz */
  EXPECT_FIELD(text, "warp instructions", "500  (16000 thread instructions)");
  EXPECT_FIELD(text, "IPC (warp insns/cycle, GPU)", "0.500");     /* 500 / 1000 */
  EXPECT_FIELD(text, "IPC per SM (over active cycles)", "0.417"); /* 500 / 1200 */
  EXPECT_FIELD(text, "SM busy (active cycles)", "60.0 %");        /* 1200 / (1000 x 2 SMs) */
  EXPECT_FIELD(text, "theoretical occupancy", "50.0 %  (4 CTAs x 8 warps per SM, limited by registers)");
  EXPECT_FIELD(text, "achieved occupancy", "25.0 %"); /* 19200 / (1200 x 64) */
  EXPECT_FIELD(text, "warp states (% of 2000 warp-cycles):", "");
  EXPECT_FIELD(text, "selected", "25.0 %");        /* 500 / 2000 */
  EXPECT_FIELD(text, "long_scoreboard", "75.0 %"); /* 1500 / 2000 */
  cr_expect_null(strstr(text, "barrier"), "a state with no warp-cycles is not listed");
  EXPECT_FIELD(text, "L1 sector hit rate", "75.0 %"); /* 30 / 40 */
  EXPECT_FIELD(text, "L2 sector hit rate", "25.0 %"); /* 5 / 20 */
  EXPECT_FIELD(text, "DRAM traffic", "3200 B read, 800 B written");
  /* 4000 B in 1 us = 4 GB/s of 2 channels x 16000 MB/s = 32 GB/s */
  EXPECT_FIELD(text, "DRAM bandwidth", "4.0 GB/s  (12.5 % of 32.0 GB/s peak)");
  EXPECT_FIELD(text, "shared bank conflicts", "8 extra wavefronts of 40");
  EXPECT_FIELD(text, "FLOPs", "4096 fp32, 0 tensor");
  /* 4096 FLOP in 1 us = 4.096 GFLOP/s; peak 2 SMs x 4 x 32 lanes x 2 x 1 GHz = 512 */
  EXPECT_FIELD(text, "fp32 throughput", "4.1 GFLOP/s  (0.8 % of 512.0 peak)");
  /* tensor peak 2 SMs x 1024 FLOP/cycle x 1 GHz = 2048 GFLOP/s */
  EXPECT_FIELD(text, "tensor throughput", "0.0 GFLOP/s  (0.0 % of 2048.0 peak)");
  EXPECT_FIELD(text, "arithmetic intensity (DRAM)", "1.024 FLOP/byte"); /* 4096 / 4000 */
  free(text);
  rreg_fini(&r);
}

Test(report, absent_counters_print_na) {
  ws_gpu_cfg c = rcfg();
  rreg r;
  rreg_init(&r);
  add(&r, "sm0.cycles_active", 1000);
  add(&r, "sm0.l1.sector_hits", 0);
  add(&r, "sm0.l1.sector_misses", 0);
  ws_launch_stats ls = full_launch();
  char *text = print(&c, &ls, r.s);
  EXPECT_FIELD(text, "L1 sector hit rate", "n/a"); /* present, but 0 of 0 */
  EXPECT_FIELD(text, "L2 sector hit rate", "n/a"); /* absent */
  EXPECT_FIELD(text, "DRAM traffic", "n/a");
  cr_expect_null(strstr(text, "DRAM bandwidth"));
  EXPECT_FIELD(text, "arithmetic intensity (DRAM)", "n/a");
  EXPECT_FIELD(text, "achieved occupancy", "0.0 %"); /* no resident warps over 1000 active cycles */
  EXPECT_FIELD(text, "warp states (% of 0 warp-cycles):", "");
  free(text);
  rreg_fini(&r);
}

Test(report, a_functional_launch_has_no_timing_figures) {
  ws_gpu_cfg c = rcfg();
  ws_launch_stats ls = full_launch();
  ls.cycles = 0;
  char *text = print(&c, &ls, NULL);
  cr_expect_str_eq(text, "kernel 'k' on tiny: grid (4,2,1) block (128,1,1), 8 CTAs\n"
                         "  duration [cycles]                             0\n"
                         "  duration [time]                           0.000 us at 1000 MHz\n"
                         "  warp instructions                           500  (16000 thread instructions)\n"
                         "  (functional launch: no timing figures)\n");
  free(text);
}

Test(report, summary) {
  ws_gpu_cfg c = rcfg();
  rreg r;
  full_registry(&r);
  ws_report_summary s;
  ws_report_summarize(&c, r.s, &s);
  cr_expect_float_eq(s.l1_hit_pct, 75.0, 1e-9);
  cr_expect_float_eq(s.l2_hit_pct, 25.0, 1e-9);
  cr_expect_float_eq(s.achieved_occupancy_pct, 25.0, 1e-9);
  cr_expect_eq(s.dram_read_bytes, 3200);
  cr_expect_eq(s.dram_write_bytes, 800);
  rreg_fini(&r);
  /* nothing counted: the rates are negative ("absent"), the bytes zero */
  ws_report_summarize(&c, NULL, &s);
  cr_expect_lt(s.l1_hit_pct, 0);
  cr_expect_lt(s.l2_hit_pct, 0);
  cr_expect_lt(s.achieved_occupancy_pct, 0);
  cr_expect_eq(s.dram_read_bytes, 0);
  rreg_init(&r);
  add(&r, "l2.slice0.sector_hits", 0);
  add(&r, "l2.slice0.sector_misses", 0);
  ws_report_summarize(&c, r.s, &s);
  cr_expect_lt(s.l2_hit_pct, 0, "0 of 0 is no rate either");
  rreg_fini(&r);
}

/* 64 threads (2 warps) each load one float, double it and store it: 9
 * instructions per warp -> 18 warp instructions, 576 thread instructions;
 * one FADD per thread = 64 fp32 FLOPs; the 256 loaded bytes are 8 sectors,
 * all L1 misses, fetched from DRAM (8 x 32 B = 256 B). */
Test(report, a_small_real_launch) {
  static const char src[] =
      ".kernel k\n.param .ptr in\n.param .ptr out\n"
      "S2R R0, SR_TID.X\nLDP.64 R2, [in]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R4, [R2]\n"
      "FADD R4, R4, R4\nLDP.64 R6, [out]\nIMAD.WIDE.U32 R6, R0, 4, R6\nSTG.32 [R6], R4\nEXIT\n";
  simtest t;
  st_init(&t, src, "k");
  float in[64];
  for (int i = 0; i < 64; i++) in[i] = (float)i;
  st_buf(&t, "in", sizeof in, in);
  st_buf(&t, "out", sizeof in, NULL);
  st_run(&t, 1, 64);
  const ws_gpu_cfg *c = ws_device_cfg(t.dev);
  const ws_stats *s = ws_device_stats(t.dev);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ws_report_print(f, c, "k", (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, &t.stats, s);
  fclose(f);
  char head[128];
  snprintf(head, sizeof head, "kernel 'k' on %s: grid (1,1,1) block (64,1,1), 1 CTAs\n", c->gpu.name);
  cr_expect(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
  char cycles[32];
  snprintf(cycles, sizeof cycles, "%llu", (unsigned long long)t.stats.cycles);
  EXPECT_FIELD(buf, "duration [cycles]", cycles);
  EXPECT_FIELD(buf, "warp instructions", "18  (576 thread instructions)");
  EXPECT_FIELD(buf, "FLOPs", "64 fp32, 0 tensor");
  EXPECT_FIELD(buf, "L1 sector hit rate", "0.0 %");
  ws_report_summary sum;
  ws_report_summarize(c, s, &sum);
  cr_expect_eq(sum.dram_read_bytes, 256);
  cr_expect_float_eq(sum.l1_hit_pct, 0.0, 1e-9);
  free(buf);
  st_fini(&t);
}
