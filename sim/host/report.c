/* report.c - formatting of the performance report (see report.h).
 *
 * Design: every figure is derived in one small function from named
 * counters, with its definition next to it (docs/stats.md has the same
 * definitions); ratios whose denominator is zero print "n/a". */
#include "sim/host/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
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
    uint64_t end = get_sum(s, "hbm.*.end_bytes_written").value;
    fprintf(out, "  %-34s %12" PRIu64 " B read, %" PRIu64 " B written", "DRAM traffic", rd.value, wr.value);
    if (end) fprintf(out, " + %" PRIu64 " B written back at the end", end);
    fputc('\n', out);
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
  uint64_t bytes = rd.value + wr.value + get_sum(s, "hbm.*.end_bytes_written").value;
  if (bytes)
    fprintf(out, "  %-34s %12.3f FLOP/byte\n", "arithmetic intensity (DRAM)",
            (double)(fp32 + tensor) / (double)bytes);
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
  out->dram_write_bytes =
      get_sum(s, "hbm.*.bytes_written").value + get_sum(s, "hbm.*.end_bytes_written").value;
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

/* ---- the source view ------------------------------------------------------------ */

typedef struct line_pc {
  uint32_t line, pc;
} line_pc;

static int by_line_pc(const void *a, const void *b) {
  const line_pc *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int hottest_first(const void *a, const void *b) {
  const ws_report_line *x = a, *y = b;
  uint64_t cx = ws_pcprof_cycles(&x->sum), cy = ws_pcprof_cycles(&y->sum);
  if (cx != cy) return cx > cy ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

ws_status ws_report_lines(ws_ctx *ctx, const ws_pcprof *prof, const ws_kernel *k, ws_report_line **out,
                          size_t *count) {
  *out = NULL;
  *count = 0;
  if (prof->nrows != k->ninsns)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "the profile holds %u instructions; kernel '%s' has %u",
                       prof->nrows, k->name, k->ninsns);
  size_t n = k->ninsns ? k->ninsns : 1;
  line_pc *order = malloc(n * sizeof *order);
  ws_report_line *lines = calloc(n, sizeof *lines);
  if (!order || !lines) {
    free(order);
    free(lines);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the source view");
  }
  for (uint32_t pc = 0; pc < k->ninsns; pc++)
    order[pc] = (line_pc){k->insn_lines ? k->insn_lines[pc] : 0, pc};
  qsort(order, k->ninsns, sizeof *order, by_line_pc);
  size_t m = 0;
  for (uint32_t i = 0; i < k->ninsns; i++) {
    if (m == 0 || lines[m - 1].line != order[i].line) lines[m++].line = order[i].line;
    lines[m - 1].ninsns++;
    ws_pcprof_add(&lines[m - 1].sum, &prof->rows[order[i].pc]);
  }
  free(order);
  qsort(lines, m, sizeof *lines, hottest_first);
  *out = lines;
  *count = m;
  return WS_OK;
}

/* Line `line` (from 1) of text, without its leading blanks; false when
 * the text is shorter. */
static bool source_line(const ws_report_source *src, uint32_t line, const char **begin, size_t *len) {
  if (!src || !src->text || line == 0) return false;
  const char *p = src->text, *end = src->text + src->size;
  for (uint32_t l = 1; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return false;
    p = nl + 1;
  }
  const char *e = memchr(p, '\n', (size_t)(end - p));
  if (!e) e = end;
  if (e > p && e[-1] == '\r') e--;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  *begin = p;
  *len = (size_t)(e - p);
  return true;
}

/* The state that held the line's warps longest apart from issuing. */
static int top_stall(const ws_pcprof_row *r) {
  int best = -1;
  for (int s = WS_STALL_SELECTED + 1; s < WS_STALL_COUNT; s++)
    if (r->state_cycles[s] && (best < 0 || r->state_cycles[s] > r->state_cycles[best])) best = s;
  return best;
}

#define SOURCE_TEXT_MAX_CHARS 76 /* a line's text beyond this is cut */

static void print_source_line(FILE *out, const ws_report_line *l, uint64_t total,
                              const ws_report_source *src) {
  char label[96];
  const char *name = src && src->name ? src->name : "line";
  if (l->line)
    snprintf(label, sizeof label, "%s:%u", name, l->line);
  else
    snprintf(label, sizeof label, "%s:(no line)", name);
  uint64_t cycles = ws_pcprof_cycles(&l->sum);
  fprintf(out, "    %-22s %5.1f %%  %9" PRIu64 " warp insns", label,
          total ? 100.0 * (double)cycles / (double)total : 0.0, l->sum.warp_insns);
  int s = top_stall(&l->sum);
  if (s >= 0)
    fprintf(out, "  %s %.1f %%", ws_sm_stall_name((ws_stall)s),
            100.0 * (double)l->sum.state_cycles[s] / (double)cycles);
  if (l->sum.global_insns)
    fprintf(out, "  %" PRIu64 " sectors / %" PRIu64 " requests", l->sum.sectors, l->sum.global_insns);
  if (l->sum.smem_insns)
    fprintf(out, "  %" PRIu64 " shared wavefronts (%" PRIu64 " conflicts)", l->sum.smem_wavefronts,
            l->sum.smem_conflicts);
  fputc('\n', out);
  const char *text;
  size_t len;
  if (source_line(src, l->line, &text, &len) && len)
    fprintf(out, "        %.*s%s\n", (int)(len > SOURCE_TEXT_MAX_CHARS ? SOURCE_TEXT_MAX_CHARS : len), text,
            len > SOURCE_TEXT_MAX_CHARS ? " ..." : "");
}

void ws_report_print_lines(FILE *out, const ws_report_line *lines, size_t count, size_t top,
                           const ws_report_source *src) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; i++) total += ws_pcprof_cycles(&lines[i].sum);
  size_t shown = top < count ? top : count;
  fprintf(out, "  source lines, hottest %zu of %zu (%% of %" PRIu64 " warp-cycles, as the warp states):\n",
          shown, count, total);
  for (size_t i = 0; i < shown; i++) print_source_line(out, &lines[i], total, src);
}
