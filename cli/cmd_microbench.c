/* cmd_microbench.c - `warpscope microbench BENCHMARK`: run one of the GPU
 * microbenchmarks of models/runs/microbench.h on a preset and print its table,
 * each measurement beside what the preset predicts. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "models/runs/microbench.h"

static const char bench_help[] =
    "usage: warpscope microbench latency|loaded-latency|bandwidth|throughput|smem-banks|coalescing\n"
    "                           [--gpu NAME|FILE.ini] [--set SECTION.KEY=VALUE]...\n\n"
    "Runs a microbenchmark kernel on the simulated GPU (timing mode) and prints\n"
    "what it measured next to what the preset predicts:\n"
    "  latency     pointer-chase load-to-use latency: shared memory, L1 hit, L2 hit\n"
    "              (near, and far on two-partition GPUs), DRAM with a closed bank;\n"
    "              (cycles(2N steps) - cycles(N steps)) / N against the path latency\n"
    "  loaded-latency  DRAM pointer-chase latency while one CTA on each of k other SMs\n"
    "              copies between buffers twice the L2, k rising from 0 to all: the\n"
    "              latency against the DRAM bandwidth the copy draws\n"
    "  bandwidth   streaming copy over buffers twice the L2 (HBM), a repeated pass of\n"
    "              a copy that fits in L2 (L2), conflict-free LDS.128 (shared memory)\n"
    "  throughput  FP32 FFMA and tensor HMMA FLOP per cycle per SM at full occupancy,\n"
    "              against the preset's peak\n"
    "  smem-banks  lane l reads word l*stride, stride 1..32: cycles per access\n"
    "              relative to stride 1 against the conflict degree gcd(stride, 32)\n"
    "  coalescing  one warp loads words l*stride, stride 1..32: L1 sectors and line\n"
    "              accesses requested against the distinct sectors and lines\n\n"
    "%s"
    "  -h, --help        this text\n"
    "Exit status: 0 after a run, 1 when a run fails, 2 on a usage error, 130 when\n"
    "interrupted (Ctrl-C).\n";

static const char *const bench_names[] = {"latency",        "bandwidth",  "smem-banks", "coalescing",
                                          "loaded-latency", "throughput", NULL};

static int parse_flags(int argc, char **argv, ws_cli_gpuopt *gpu) {
  static const struct option longs[] = {{"gpu", required_argument, NULL, 'G'},
                                        {"set", required_argument, NULL, 'S'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("microbench", &seen, longs, c, "set")) != WS_EXIT_OK) break;
    switch (c) {
    case 'G': rc = ws_cli_gpuopt_set_gpu("microbench", gpu, optarg); break;
    case 'S': rc = ws_cli_gpuopt_add_set("microbench", gpu, optarg); break;
    case 'h': printf(bench_help, ws_cli_gpuopt_help); return -1;
    case ':': return ws_cli_usage_error("microbench", "option '%s' needs a value", argv[optind - 1]);
    default: return ws_cli_usage_error("microbench", "unknown option '%s'", argv[optind - 1]);
    }
  }
  return rc;
}

static void print_header(const ws_gpu_cfg *cfg, const char *what) {
  printf("%s on %s (%s), %u SMs at %u MHz\n\n", what, cfg->gpu.name, cfg->gpu.full_name, cfg->gpu.num_sms,
         cfg->gpu.core_clock_mhz);
}

static ws_status run_latency(ws_device *dev) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_microbench_latency r[WS_MICROBENCH_LEVEL_COUNT];
  ws_status st = ws_microbench_latency_run(dev, r);
  if (st != WS_OK) return st;
  print_header(cfg, "pointer-chase latency");
  printf("%-18s %6s %6s %9s %9s %9s %6s %8s\n", "level", "elems", "steps", "measured", "path", "expected",
         "diff", "ns");
  for (int i = 0; i < WS_MICROBENCH_LEVEL_COUNT; i++) {
    if (!r[i].present || r[i].why[0]) {
      printf("%-18s (%s%s)\n", ws_microbench_level_name((ws_microbench_level)i),
             r[i].present ? "cannot be measured on this preset: " : "one L2 partition: no far slice",
             r[i].present ? r[i].why : "");
      continue;
    }
    printf("%-18s %6u %6u %9.2f %9llu %9llu %+6.2f %8.1f\n", ws_microbench_level_name((ws_microbench_level)i),
           r[i].chain_elems, r[i].steps, r[i].measured_cycles, (unsigned long long)r[i].path_cycles,
           (unsigned long long)r[i].expected_cycles, r[i].measured_cycles - (double)r[i].expected_cycles,
           r[i].measured_cycles * 1000.0 / cfg->gpu.core_clock_mhz);
  }
  printf("\nmeasured = (cycles(2N steps) - cycles(N steps)) / N, from SR_CLOCK; path = the preset's\n"
         "idle latency (ws_memsys_idle_latency; smem.lat_cycles for shared memory); expected =\n"
         "path + %u issue cycle for global loads (the LSU sends a load the cycle after it issues);\n"
         "diff = measured - expected.\n",
         WS_MICROBENCH_GLOBAL_ISSUE_CYCLES);
  return WS_OK;
}

static void print_bw_row(const char *name, const ws_microbench_bw *r, double gbps, bool full) {
  char grid[32] = "", buf[24] = "";
  if (full) {
    snprintf(grid, sizeof grid, "%ux%u", r->ctas, r->threads_per_cta);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->buffer_bytes);
  }
  printf("%-24s %12s %10s %12llu %10.1f %10.1f %6.1f%%\n", name, buf, grid, (unsigned long long)r->cycles,
         gbps, r->peak_gbps, r->peak_gbps > 0 ? 100.0 * gbps / r->peak_gbps : 0.0);
}

static ws_status run_bandwidth(ws_device *dev) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_microbench_bw r[WS_MICROBENCH_BW_COUNT];
  ws_status st = ws_microbench_bandwidth_run(dev, NULL, r);
  if (st != WS_OK) return st;
  print_header(cfg, "bandwidth");
  printf("%-24s %12s %10s %12s %10s %10s %7s\n", "level", "buffer B", "grid", "cycles", "GB/s", "peak GB/s",
         "% peak");
  for (int i = 0; i < WS_MICROBENCH_BW_COUNT; i++) {
    if (r[i].why[0]) {
      printf("%-24s (cannot be measured on this preset: %s)\n",
             ws_microbench_bw_name((ws_microbench_bw_kind)i), r[i].why);
      continue;
    }
    print_bw_row(ws_microbench_bw_name((ws_microbench_bw_kind)i), &r[i], r[i].gbps, true);
    if (i == WS_MICROBENCH_BW_HBM) print_bw_row("  DRAM traffic in it", &r[i], r[i].dram_gbps, false);
  }
  printf("\nGB/s = bytes read + written / cycles x clock (10^9 B/s).\n"
         "HBM: one copy over two buffers of the size shown, the whole launch timed; DRAM\n"
         "traffic: what the channels moved meanwhile (hbm.ch*.bytes_read + bytes_written),\n"
         "which leaves out the stores still dirty in L2 when the kernel ends.\n"
         "L2: cycles(6 passes) - cycles(2 passes) for four passes, each reading lines another\n"
         "SM read (L1 misses, L2 hits). Shared memory: cycles(2R iterations) - cycles(R).\n"
         "Peaks: channels x channel_mbps; slices x slice_bytes_per_cycle x clock;\n"
         "banks x bank_width_bytes x SMs x clock.\n");
  return WS_OK;
}

static ws_status run_banks(ws_device *dev) {
  ws_microbench_bank_row rows[WS_MICROBENCH_MAX_STRIDE];
  ws_status st = ws_microbench_smem_banks_run(dev, WS_MICROBENCH_MAX_STRIDE, rows);
  if (st != WS_OK) return st;
  print_header(ws_device_cfg(dev), "shared-memory bank conflicts");
  printf("%6s %10s %12s %12s %10s\n", "stride", "predicted", "wavefronts", "cycles/acc", "relative");
  for (uint32_t i = 0; i < WS_MICROBENCH_MAX_STRIDE; i++)
    printf("%6u %10u %12.2f %12.3f %10.3f\n", rows[i].stride, rows[i].predicted_degree,
           rows[i].wavefronts_per_access, rows[i].cycles_per_access, rows[i].relative);
  printf("\npredicted = most distinct words in one bank (gcd(stride, 32) with 32 banks);\n"
         "wavefronts = sm*.smem.wavefronts / sm*.smem.insns; cycles/acc = (cycles(R) - cycles(0))\n"
         "/ warp accesses with R = 16 and 2R, 32 warps on SM 0; relative = cycles/acc / stride "
         "1's.\n");
  return WS_OK;
}

static ws_status run_coalescing(ws_device *dev) {
  ws_microbench_coalesce_row rows[WS_MICROBENCH_MAX_STRIDE];
  ws_status st = ws_microbench_coalescing_run(dev, WS_MICROBENCH_MAX_STRIDE, rows);
  if (st != WS_OK) return st;
  print_header(ws_device_cfg(dev), "global-load coalescing (one warp, LDG.32)");
  printf("%6s %10s %10s %10s %10s %6s\n", "stride", "sectors", "predicted", "lines", "predicted", "match");
  for (uint32_t i = 0; i < WS_MICROBENCH_MAX_STRIDE; i++) {
    bool ok = rows[i].sectors == rows[i].predicted_sectors && rows[i].lines == rows[i].predicted_lines;
    printf("%6u %10llu %10u %10llu %10u %6s\n", rows[i].stride, (unsigned long long)rows[i].sectors,
           rows[i].predicted_sectors, (unsigned long long)rows[i].lines, rows[i].predicted_lines,
           ok ? "yes" : "NO");
  }
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  printf("\nsectors = sm*.l1.sector_hits + sm*.l1.sector_misses; lines = sm*.l1.loads;\n"
         "predicted = distinct %u-byte sectors and %u-byte lines among the 32 addresses.\n",
         cfg->l1.sector_bytes, cfg->l1.line_bytes);
  return WS_OK;
}

static ws_status run_loaded(ws_device *dev) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_microbench_loaded r[WS_MICROBENCH_LOADED_POINTS];
  uint32_t n = 0;
  ws_status st = ws_microbench_loaded_run(dev, r, &n);
  if (st != WS_OK) return st;
  print_header(cfg, "DRAM latency under load");
  printf("%-12s %10s %8s %14s %10s %10s\n", "copying SMs", "DRAM GB/s", "% peak", "cycles/step", "ns/step",
         "vs idle");
  for (uint32_t i = 0; i < n; i++)
    printf("%-12u %10.1f %7.1f%% %14.1f %10.1f %+9.1f%%\n", r[i].copy_sms, r[i].dram_gbps, r[i].dram_pct,
           r[i].latency_cycles, r[i].latency_ns, 100.0 * (r[i].latency_cycles / r[0].latency_cycles - 1.0));
  printf("\nOne thread of CTA 0 chases %u distinct lines scattered over twice the L2 (%u warm-up\n"
         "steps untimed, %u timed with SR_CLOCK; cycles/step includes the chase loop's few\n"
         "instructions, as the idle row does) while one CTA of 16 warps on each copying SM\n"
         "copies between two buffers twice the L2 until the chase is over. DRAM GB/s: the\n"
         "launch's hbm.ch*.bytes_read + bytes_written over its cycles; peak: channels x\n"
         "channel_mbps.\n",
         WS_MICROBENCH_LOADED_WARM + WS_MICROBENCH_LOADED_STEPS, WS_MICROBENCH_LOADED_WARM,
         WS_MICROBENCH_LOADED_STEPS);
  return WS_OK;
}

static ws_status run_throughput(ws_device *dev) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_microbench_tput r[WS_MICROBENCH_TPUT_COUNT];
  ws_status st = ws_microbench_tput_run(dev, r);
  if (st != WS_OK) return st;
  print_header(cfg, "arithmetic throughput");
  printf("%-22s %12s %14s %14s %8s\n", "unit", "grid", "FLOP/cycle/SM", "peak", "% peak");
  for (int i = 0; i < WS_MICROBENCH_TPUT_COUNT; i++) {
    char grid[32];
    snprintf(grid, sizeof grid, "%ux%u", r[i].ctas, r[i].threads_per_cta);
    printf("%-22s %12s %14.1f %14.1f %7.1f%%\n", ws_microbench_tput_name((ws_microbench_tput_kind)i), grid,
           r[i].flop_per_cycle_per_sm, r[i].peak_per_cycle_per_sm,
           100.0 * r[i].flop_per_cycle_per_sm / r[i].peak_per_cycle_per_sm);
  }
  printf("\nFLOP/cycle/SM = FLOP of %u extra loop iterations / (cycles(%u) - cycles(%u)) / SMs, one\n"
         "wave at the occupancy the kernel allows; FFMA: 8 independent accumulators per thread,\n"
         "HMMA: 4 per warp. Peak: 2 x sm.fp32_lanes_per_subpartition x sm.subpartitions, and\n"
         "sm.tensor_flops_per_cycle_per_sm.\n",
         r[0].iters, 2 * r[0].iters, r[0].iters);
  return WS_OK;
}

static ws_status run_bench(ws_device *dev, int which) {
  switch (which) {
  case 0: return run_latency(dev);
  case 1: return run_bandwidth(dev);
  case 2: return run_banks(dev);
  case 3: return run_coalescing(dev);
  case 4: return run_loaded(dev);
  default: return run_throughput(dev);
  }
}

int ws_cli_microbench(int argc, char **argv) {
  ws_cli_gpuopt gpu;
  memset(&gpu, 0, sizeof gpu);
  int rc = parse_flags(argc, argv, &gpu);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  if (optind != argc - 1)
    return ws_cli_usage_error("microbench",
                              "expected one benchmark (latency, loaded-latency, bandwidth, throughput, "
                              "smem-banks, coalescing)");
  int which = -1;
  for (int i = 0; bench_names[i]; i++)
    if (strcmp(bench_names[i], argv[optind]) == 0) which = i;
  if (which < 0)
    return ws_cli_usage_error(
        "microbench",
        "unknown benchmark '%s' (expected latency, loaded-latency, bandwidth, throughput, smem-banks or "
        "coalescing)",
        argv[optind]);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_status st = ws_cli_gpuopt_resolve(ctx, &gpu, &cfg);
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, &dev);
  if (st == WS_OK) st = run_bench(dev, which);
  rc = ws_cli_exit_code("microbench", ctx, st);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return rc;
}
