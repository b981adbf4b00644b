/* report.c - formatting of the performance report (see report.h).
 *
 * Design: every figure is derived in one small function from named
 * counters, with its definition next to it (docs/stats.md has the same
 * definitions); ratios whose denominator is zero print "n/a". */
#include "sim/host/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "sim/sm/sm.h"

/* A counter sum that knows whether any counter matched. */
typedef struct sum {
  uint64_t value;
  bool present;
} sum;

/* '*' matches a dot-free run, as in ws_stats_sum. */
static bool matches(const char *p, const char *n) {
  if (!*p) return !*n;
  if (*p == '*') {
    for (const char *q = n;; q++) {
      if (matches(p + 1, q)) return true;
      if (!*q || *q == '.') return false;
    }
  }
  return *p == *n && matches(p + 1, n + 1);
}

/* ws_stats_sum cannot tell "no such counter" from zero. */
static bool any_named(const ws_stats *s, const char *pattern) {
  for (size_t i = 0; i < ws_stats_count(s); i++)
    if (matches(pattern, ws_stats_name(s, i))) return true;
  return false;
}

static sum get_sum(const ws_stats *s, const char *pattern) {
  sum r = {0, false};
  if (!s) return r;
  r.value = ws_stats_sum(s, pattern);
  r.present = r.value != 0 || any_named(s, pattern);
  return r;
}

static void print_pct(FILE *out, const char *label, double num, double den) {
  if (den > 0)
    fprintf(out, "  %-34s %8.1f %%\n", label, 100.0 * num / den);
  else
    fprintf(out, "  %-34s %8s\n", label, "n/a");
}

static void print_rate(FILE *out, const char *label, sum hits, sum misses) {
  if (!hits.present && !misses.present)
    fprintf(out, "  %-34s %8s\n", label, "n/a");
  else
    print_pct(out, label, (double)hits.value, (double)(hits.value + misses.value));
}

static double seconds_of(const ws_gpu_cfg *cfg, uint64_t cycles) {
  return cfg->gpu.core_clock_mhz ? (double)cycles / (cfg->gpu.core_clock_mhz * 1e6) : 0.0;
}

static void print_header(FILE *out, const ws_gpu_cfg *cfg, const char *kernel_name, ws_dim3 g, ws_dim3 b,
                         const ws_launch_stats *ls) {
  double secs = seconds_of(cfg, ls->cycles);
  fprintf(out, "kernel '%s' on %s: grid (%u,%u,%u) block (%u,%u,%u), %" PRIu64 " CTAs\n", kernel_name,
          cfg->gpu.name, g.x, g.y, g.z, b.x, b.y, b.z, ls->ctas);
  fprintf(out, "  %-34s %12" PRIu64 "\n", "duration [cycles]", ls->cycles);
  if (ls->sampled)
    fprintf(out,
            "  %-34s %12" PRIu64 "  (95%% interval; %.1f%% of the warp instructions timed, %" PRIu64
            " of %" PRIu64 " CTAs)\n",
            "  estimated by sampling, +-", ls->cycles_ci95,
            ls->warp_insns ? 100.0 * (double)ls->timed_warp_insns / (double)ls->warp_insns : 100.0,
            ls->timed_ctas, ls->ctas);
  fprintf(out, "  %-34s %12.3f us at %u MHz\n", "duration [time]", secs * 1e6, cfg->gpu.core_clock_mhz);
  fprintf(out, "  %-34s %12" PRIu64 "  (%" PRIu64 " thread instructions)\n", "warp instructions",
          ls->warp_insns, ls->thread_insns);
}

static void print_throughput(FILE *out, const ws_gpu_cfg *cfg, const ws_launch_stats *ls, const ws_stats *s) {
  sum active = get_sum(s, "sm*.cycles_active");
  double ipc = ls->cycles ? (double)ls->warp_insns / (double)ls->cycles : 0;
  fprintf(out, "  %-34s %12.3f\n", "IPC (warp insns/cycle, GPU)", ipc);
  fprintf(out, "  %-34s %12.3f\n", "IPC per SM (over active cycles)",
          active.value ? (double)ls->warp_insns / (double)active.value : 0.0);
  print_pct(out, "SM busy (active cycles)", (double)active.value, (double)ls->cycles * cfg->gpu.num_sms);
}

static void print_occupancy(FILE *out, const ws_gpu_cfg *cfg, const ws_launch_stats *ls, const ws_stats *s) {
  const ws_occupancy *o = &ls->occupancy;
  fprintf(out, "  %-34s %8.1f %%  (%u CTAs x %u warps per SM, limited by %s)\n", "theoretical occupancy",
          100.0 * o->occupancy, o->ctas_per_sm, o->warps_per_cta, ws_occupancy_limiter_name(o->limiter));
  sum warps = get_sum(s, "sm*.warps_active_sum"), active = get_sum(s, "sm*.cycles_active");
  print_pct(out, "achieved occupancy", (double)warps.value, (double)active.value * cfg->sm.max_warps_per_sm);
}

static void print_stalls(FILE *out, const ws_stats *s) {
  char pattern[64];
  uint64_t v[WS_STALL_COUNT], total = 0;
  for (int i = 0; i < WS_STALL_COUNT; i++) {
    snprintf(pattern, sizeof pattern, "sm*.stall.%s", ws_sm_stall_name((ws_stall)i));
    v[i] = ws_stats_sum(s, pattern);
    total += v[i];
  }
  fprintf(out, "  warp states (%% of %" PRIu64 " warp-cycles):\n", total);
  for (int i = 0; i < WS_STALL_COUNT; i++)
    if (v[i]) {
      snprintf(pattern, sizeof pattern, "  %s", ws_sm_stall_name((ws_stall)i));
      print_pct(out, pattern, (double)v[i], (double)total);
    }
}

static void print_memory(FILE *out, const ws_gpu_cfg *cfg, const ws_launch_stats *ls, const ws_stats *s) {
  print_rate(out, "L1 sector hit rate", get_sum(s, "sm*.l1.sector_hits"), get_sum(s, "sm*.l1.sector_misses"));
  print_rate(out, "L2 sector hit rate", get_sum(s, "l2.*.sector_hits"), get_sum(s, "l2.*.sector_misses"));
  sum rd = get_sum(s, "hbm.*.bytes_read"), wr = get_sum(s, "hbm.*.bytes_written");
  double secs = seconds_of(cfg, ls->cycles);
  double peak = (double)cfg->hbm.channels * cfg->hbm.channel_mbps * 1e6;
  if (!rd.present && !wr.present) {
    fprintf(out, "  %-34s %8s\n", "DRAM traffic", "n/a");
  } else {
    double bw = secs > 0 ? (double)(rd.value + wr.value) / secs : 0;
    fprintf(out, "  %-34s %12" PRIu64 " B read, %" PRIu64 " B written\n", "DRAM traffic", rd.value, wr.value);
    fprintf(out, "  %-34s %12.1f GB/s", "DRAM bandwidth", bw / 1e9);
    if (peak > 0) fprintf(out, "  (%.1f %% of %.1f GB/s peak)", 100.0 * bw / peak, peak / 1e9);
    fputc('\n', out);
  }
  sum wf = get_sum(s, "sm*.smem.wavefronts"), bc = get_sum(s, "sm*.smem.bank_conflicts");
  fprintf(out, "  %-34s %12" PRIu64 " extra wavefronts of %" PRIu64 "\n", "shared bank conflicts", bc.value,
          wf.value);
  /* local memory: register spills and per-thread arrays, shown when used */
  sum ll = get_sum(s, "sm*.lsu.local_loads"), lst = get_sum(s, "sm*.lsu.local_stores");
  if (ll.value || lst.value)
    fprintf(out, "  %-34s %12" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64 " B requested\n",
            "local memory traffic", ll.value, lst.value, get_sum(s, "sm*.lsu.local_bytes").value);
  sum faults = get_sum(s, "uvm.faults"), zc = get_sum(s, "sysmem.reads"), zw = get_sum(s, "sysmem.writes");
  if (faults.value)
    fprintf(out, "  %-34s %12" PRIu64 " pages in %" PRIu64 " batches: %" PRIu64 " B in, %" PRIu64 " cycles\n",
            "managed memory faults", faults.value, get_sum(s, "uvm.batches").value,
            get_sum(s, "uvm.migrated_bytes").value, get_sum(s, "uvm.fault_cycles").value);
  if (zc.value || zw.value)
    fprintf(out, "  %-34s %12" PRIu64 " reads, %" PRIu64 " writes over the link\n", "mapped host memory",
            zc.value, zw.value);
}

static void print_flops(FILE *out, const ws_gpu_cfg *cfg, const ws_launch_stats *ls, const ws_stats *s) {
  uint64_t fp32 = get_sum(s, "sm*.flops.fp32").value, tensor = get_sum(s, "sm*.flops.tensor").value;
  double secs = seconds_of(cfg, ls->cycles), clock = cfg->gpu.core_clock_mhz * 1e6;
  double peak32 =
      (double)cfg->gpu.num_sms * cfg->sm.subpartitions * cfg->sm.fp32_lanes_per_subpartition * 2 * clock;
  double peak_tc = (double)cfg->gpu.num_sms * cfg->sm.tensor_flops_per_cycle_per_sm * clock;
  fprintf(out, "  %-34s %12" PRIu64 " fp32, %" PRIu64 " tensor\n", "FLOPs", fp32, tensor);
  if (secs > 0) {
    fprintf(out, "  %-34s %12.1f GFLOP/s", "fp32 throughput", (double)fp32 / secs / 1e9);
    if (peak32 > 0)
      fprintf(out, "  (%.1f %% of %.1f peak)", 100.0 * (double)fp32 / secs / peak32, peak32 / 1e9);
    fprintf(out, "\n  %-34s %12.1f GFLOP/s", "tensor throughput", (double)tensor / secs / 1e9);
    if (peak_tc > 0)
      fprintf(out, "  (%.1f %% of %.1f peak)", 100.0 * (double)tensor / secs / peak_tc, peak_tc / 1e9);
    fputc('\n', out);
  }
  sum rd = get_sum(s, "hbm.*.bytes_read"), wr = get_sum(s, "hbm.*.bytes_written");
  if (rd.value + wr.value)
    fprintf(out, "  %-34s %12.3f FLOP/byte\n", "arithmetic intensity (DRAM)",
            (double)(fp32 + tensor) / (double)(rd.value + wr.value));
  else
    fprintf(out, "  %-34s %8s\n", "arithmetic intensity (DRAM)", "n/a");
}

static double rate_pct(sum hits, sum misses) {
  if (!hits.present && !misses.present) return -1.0;
  uint64_t all = hits.value + misses.value;
  return all ? 100.0 * (double)hits.value / (double)all : -1.0;
}

void ws_report_summarize(const ws_gpu_cfg *cfg, const ws_stats *s, ws_report_summary *out) {
  out->l1_hit_pct = rate_pct(get_sum(s, "sm*.l1.sector_hits"), get_sum(s, "sm*.l1.sector_misses"));
  out->l2_hit_pct = rate_pct(get_sum(s, "l2.*.sector_hits"), get_sum(s, "l2.*.sector_misses"));
  sum warps = get_sum(s, "sm*.warps_active_sum"), active = get_sum(s, "sm*.cycles_active");
  double den = (double)active.value * cfg->sm.max_warps_per_sm;
  out->achieved_occupancy_pct = den > 0 ? 100.0 * (double)warps.value / den : -1.0;
  out->dram_read_bytes = get_sum(s, "hbm.*.bytes_read").value;
  out->dram_write_bytes = get_sum(s, "hbm.*.bytes_written").value;
  out->uvm_faults = get_sum(s, "uvm.faults").value;
  out->uvm_migrated_bytes = get_sum(s, "uvm.migrated_bytes").value;
  out->uvm_fault_cycles = get_sum(s, "uvm.fault_cycles").value;
  out->sysmem_reads = get_sum(s, "sysmem.reads").value;
  out->sysmem_writes = get_sum(s, "sysmem.writes").value;
}

void ws_report_print(FILE *out, const ws_gpu_cfg *cfg, const char *kernel_name, ws_dim3 grid, ws_dim3 block,
                     const ws_launch_stats *ls, const ws_stats *stats) {
  print_header(out, cfg, kernel_name, grid, block, ls);
  if (!ls->cycles) {
    fprintf(out, "  (functional launch: no timing figures)\n");
    return;
  }
  print_throughput(out, cfg, ls, stats);
  print_occupancy(out, cfg, ls, stats);
  print_stalls(out, stats);
  print_memory(out, cfg, ls, stats);
  print_flops(out, cfg, ls, stats);
}
