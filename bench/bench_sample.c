/* bench_sample.c - what sampling (sim/gpu/sampler.h) buys and costs on one
 * GEMM of the ladder: the launch timed in full and with --sample's
 * settings, their cycles, the estimate's error and interval, the share of
 * warp instructions timed, and the wall time of each, single-threaded.
 * Inputs are zeros: a GEMM's instruction stream does not depend on its
 * values, and the tests check results.
 *
 *   bench_sample GPU VARIANT M N K [full|sampled|both] [THREADS]
 * "full" or "sampled" runs one of the two (to run them on separate cores);
 * "both" (the default) runs both and prints the comparison. THREADS (1 by
 * default) is the host threads a sampled loop's gaps may run on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/kgen/gemmgen.h"
#include "sim/gpu/sampler.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct outcome {
  ws_launch_stats ls;
  double wall_s;
} outcome;

static ws_status alloc_zeroed(ws_device *dev, uint64_t bytes, uint64_t *ptr) {
  ws_status st = ws_device_malloc(dev, bytes, ptr);
  return st == WS_OK ? ws_device_memset(dev, *ptr, 0, bytes) : st;
}

static ws_status run(ws_device *dev, const ws_gemmgen_cfg *cfg, ws_gemmgen_problem *prob, bool sampled,
                     uint32_t threads, outcome *out) {
  ws_sampling s = {.measure_waves = sampled ? WS_SAMPLER_DEFAULT_WAVES : 0,
                   .measure_rounds = sampled ? WS_SAMPLER_DEFAULT_ROUNDS : 0};
  ws_device_set_sampling(dev, &s);
  ws_device_set_threads(dev, threads);
  double t0 = now_seconds();
  ws_status st = ws_gemmgen_run(dev, cfg, prob, &out->ls);
  out->wall_s = now_seconds() - t0;
  return st;
}

static void print_one(const char *label, const char *how, const outcome *o) {
  printf("%-40s %-7s %10" PRIu64 " cycles +- %8" PRIu64 "  %5.1f %% of %" PRIu64
         " warp insns timed  %8.2f s\n",
         label, how, o->ls.cycles, o->ls.cycles_ci95,
         100.0 * (double)o->ls.timed_warp_insns / (double)(o->ls.warp_insns ? o->ls.warp_insns : 1),
         o->ls.warp_insns, o->wall_s);
}

static int usage(void) {
  fprintf(stderr, "usage: bench_sample GPU VARIANT M N K [full|sampled|both] [THREADS]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 6 || argc > 8) return usage();
  const char *which = argc >= 7 ? argv[6] : "both";
  uint32_t threads = argc == 8 ? (uint32_t)strtoul(argv[7], NULL, 10) : 1;
  bool full = strcmp(which, "full") == 0 || strcmp(which, "both") == 0;
  bool sampled = strcmp(which, "sampled") == 0 || strcmp(which, "both") == 0;
  if (!full && !sampled) return usage();
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg gpu;
  ws_gemmgen_variant v;
  ws_device *dev = NULL;
  ws_gemmgen_problem prob = {(uint32_t)strtoul(argv[3], NULL, 10),
                             (uint32_t)strtoul(argv[4], NULL, 10),
                             (uint32_t)strtoul(argv[5], NULL, 10),
                             0,
                             0,
                             0,
                             0,
                             0};
  ws_status st = ws_config_load_preset(ctx, argv[1], &gpu);
  if (st == WS_OK) st = ws_gemmgen_variant_parse(ctx, argv[2], &v);
  if (st == WS_OK) st = ws_device_create(ctx, &gpu, &dev);
  if (st == WS_OK) st = alloc_zeroed(dev, (uint64_t)prob.m * prob.k * 4, &prob.a);
  if (st == WS_OK) st = alloc_zeroed(dev, (uint64_t)prob.k * prob.n * 4, &prob.b);
  if (st == WS_OK) st = alloc_zeroed(dev, (uint64_t)prob.m * prob.n * 4, &prob.c);
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(st == WS_OK ? v : WS_GEMMGEN_NAIVE);
  char label[64];
  snprintf(label, sizeof label, "%s %s %ux%ux%u", argv[1], argv[2], prob.m, prob.n, prob.k);
  if (st == WS_OK) ws_device_set_mode(dev, WS_MODE_TIMING);
  outcome f = {0}, s = {0};
  if (st == WS_OK && full && (st = run(dev, &cfg, &prob, false, threads, &f)) == WS_OK)
    print_one(label, "full", &f);
  if (st == WS_OK && sampled && (st = run(dev, &cfg, &prob, true, threads, &s)) == WS_OK)
    print_one(label, s.ls.sampled ? "sampled" : "(full)", &s);
  if (st == WS_OK && full && sampled)
    printf("%-40s error %+.2f %% (interval +- %.2f %%), %.1fx faster\n", label,
           100.0 * ((double)s.ls.cycles - (double)f.ls.cycles) / (double)f.ls.cycles,
           100.0 * (double)s.ls.cycles_ci95 / (double)f.ls.cycles, f.wall_s / s.wall_s);
  if (st != WS_OK) fprintf(stderr, "bench_sample: %s\n", ws_errmsg(ctx));
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return st == WS_OK ? 0 : 1;
}
