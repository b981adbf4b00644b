/* bench_sim.c - simulator speed: simulated warp instructions per second,
 * single-threaded, on two SGEMMs 512^3 (the FFMA-heavy register-blocked
 * one of the GEMM ladder, and the shared-memory tiled example, which issues
 * as many shared loads as FFMAs), a memory-bound SAXPY, the naive and
 * coalesced GEMMs of the ladder (memory-bound, 128^3) and the tensor-core
 * GEMM, either with the cycle model (timing) or values only
 * (functional). Only ws_device_launch is timed (inputs are uploaded before,
 * nothing is checked after: the tests do that); each case runs REPEATS times
 * and keeps the best wall time, the one least disturbed by the rest of the
 * machine. The simulated cycles and the engine's work counters are printed
 * too, so a speed change can be told apart from a change in what was
 * simulated.
 *
 *   bench_sim [timing|functional] [CASE] [SMS]
 * CASE runs only the cases whose label starts with it; SMS simulates a GPU
 * with that many SMs (how the cost per instruction depends on the state the
 * host must keep in cache). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/asm.h"
#include "models/kgen/gemmgen.h"
#include "models/runs/example.h"

#ifndef REPEATS
#define REPEATS 3
#endif

/* BENCH_REPEATS=1 in the environment runs each case once: under callgrind,
 * where instruction counts (not wall time) are the figure, one run is
 * enough and three cost three times as long. */
static int repeats(void) {
  const char *s = getenv("BENCH_REPEATS");
  int n = s ? atoi(s) : REPEATS;
  return n > 0 ? n : REPEATS;
}

typedef struct bench_case {
  const char *label;
  const char *path;           /* a shipped kernel, or NULL: ... */
  const ws_gemmgen_cfg *gemm; /* ... a generated GEMM */
  ws_dim3 grid, block;
  const char *ptrs[3];
  uint64_t ptr_bytes[3];
  const char *u32_names[3];
  uint32_t u32_values[3];
} bench_case;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Buffers are zero-filled: the instruction stream of these kernels does not
 * depend on the values, and zeros cannot slow the host with denormals. */
static ws_status bind_inputs(ws_device *dev, const bench_case *bc, ws_args *args, uint64_t *dptrs) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = WS_OK;
  for (int i = 0; i < 3 && bc->ptrs[i] && st == WS_OK; i++) {
    if ((st = ws_device_malloc(dev, bc->ptr_bytes[i], &dptrs[i])) == WS_OK &&
        (st = ws_device_memset(dev, dptrs[i], 0, bc->ptr_bytes[i])) == WS_OK)
      st = ws_args_set_ptr(ctx, args, bc->ptrs[i], dptrs[i]);
  }
  return st;
}

static void print_result(ws_device *dev, const bench_case *bc, const ws_launch_stats *ls, double best) {
  uint64_t events = 0, visits = 0;
  ws_stats_get(ws_device_stats(dev), "gpu.events", &events);
  ws_stats_get(ws_device_stats(dev), "gpu.sm_visits", &visits);
  printf("%-30s %9" PRIu64 " warp insns %8" PRIu64 " cycles %7.3f s %6.2f M warp insns/s %7.3f M cycles/s"
         "  (%" PRIu64 " events, %" PRIu64 " SM visits)\n",
         bc->label, ls->warp_insns, ls->cycles, best, (double)ls->warp_insns / best / 1e6,
         (double)ls->cycles / best / 1e6, events, visits);
}

static int run_case(ws_device *dev, const bench_case *bc) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_program *prog = NULL;
  ws_status built =
      bc->path ? ws_example_program(ctx, bc->path, &prog) : ws_gemmgen_build(ctx, bc->gemm, &prog);
  if (built != WS_OK) {
    fprintf(stderr, "%s: %s\n", bc->label, ws_errmsg(ctx));
    return 1;
  }
  ws_args args;
  ws_args_init(&args, &prog->kernels[0]);
  uint64_t dptrs[3] = {0, 0, 0};
  ws_status st = bind_inputs(dev, bc, &args, dptrs);
  for (int i = 0; i < 3 && bc->u32_names[i] && st == WS_OK; i++)
    st = ws_args_set_u32(ctx, &args, bc->u32_names[i], bc->u32_values[i]);
  if (st == WS_OK && strcmp(bc->label, "saxpy") == 0) st = ws_args_set_f32(ctx, &args, "a", 2.0f);
  double best = 1e30;
  ws_launch_stats stats;
  for (int r = 0; r < repeats() && st == WS_OK; r++) {
    double t0 = now_seconds();
    st = ws_device_launch(dev, &prog->kernels[0], bc->grid, bc->block, 0, &args, &stats);
    double t = now_seconds() - t0;
    if (t < best) best = t;
  }
  if (st == WS_OK)
    print_result(dev, bc, &stats, best);
  else
    fprintf(stderr, "%s: %s\n", bc->label, ws_errmsg(ctx));
  for (int i = 0; i < 3; i++)
    if (dptrs[i]) ws_device_free(dev, dptrs[i]);
  ws_program_destroy(prog);
  return st == WS_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  enum { N = 512, SAXPY_N = 1 << 22, NAIVE_N = 128 };
  /* the FFMA-heavy SGEMM: 128x128 CTA tiles, 8x8 outputs per thread, 64
   * FFMAs per 16 shared loads (models/kgen/gemmgen.c, blocktile2d) */
  const ws_gemmgen_cfg rb = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  /* the first two steps of the ladder: one output per thread, 32x32 CTA
   * tiles of 1024 threads, every operand from global memory (memory-bound,
   * the LSU refused most of the time) */
  const ws_gemmgen_cfg naive = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  const ws_gemmgen_cfg coalesced = ws_gemmgen_defaults(WS_GEMMGEN_COALESCED);
  const bench_case cases[] = {
      {"sgemm-ffma 512^3 (8x8/thread)",
       NULL,
       &rb,
       {N / 128, N / 128, 1},
       {256, 1, 1},
       {"A", "B", "C"},
       {N * N * 4, N * N * 4, N * N * 4},
       {"M", "N", "K"},
       {N, N, N}},
      {"sgemm 512^3 (16x16 tiles)",
       "models/runs/examples/sgemm.wsa",
       NULL,
       {N / 16, N / 16, 1},
       {16, 16, 1},
       {"A", "B", "C"},
       {N * N * 4, N * N * 4, N * N * 4},
       {"M", "N", "K"},
       {N, N, N}},
      {"saxpy",
       "models/runs/examples/saxpy.wsa",
       NULL,
       {SAXPY_N / 256, 1, 1},
       {256, 1, 1},
       {"x", "y", NULL},
       {SAXPY_N * 4ull, SAXPY_N * 4ull, 0},
       {"n", NULL, NULL},
       {SAXPY_N, 0, 0}},
      {"gemm-naive 128^3",
       NULL,
       &naive,
       {NAIVE_N / 32, NAIVE_N / 32, 1},
       {1024, 1, 1},
       {"A", "B", "C"},
       {NAIVE_N * NAIVE_N * 4, NAIVE_N * NAIVE_N * 4, NAIVE_N * NAIVE_N * 4},
       {"M", "N", "K"},
       {NAIVE_N, NAIVE_N, NAIVE_N}},
      {"gemm-coalesced 128^3",
       NULL,
       &coalesced,
       {NAIVE_N / 32, NAIVE_N / 32, 1},
       {1024, 1, 1},
       {"A", "B", "C"},
       {NAIVE_N * NAIVE_N * 4, NAIVE_N * NAIVE_N * 4, NAIVE_N * NAIVE_N * 4},
       {"M", "N", "K"},
       {NAIVE_N, NAIVE_N, NAIVE_N}},
      {"mma gemm 512^3 (HMMA)",
       "models/runs/examples/mma_gemm.wsa",
       NULL,
       {N / 8, N / 16, 1},
       {32, 1, 1},
       {"A", "Bt", "C"},
       {N * N * 2, N * N * 2, N * N * 4},
       {"M", "N", "K"},
       {N, N, N}},
  };
  bool functional = argc > 1 && strcmp(argv[1], "functional") == 0;
  if (argc > 1 && !functional && strcmp(argv[1], "timing") != 0) {
    fprintf(stderr, "usage: bench_sim [timing|functional] [CASE|-] [SMS|-] [THREADS]\n");
    return 2;
  }
  const char *only = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  if (argc > 3 && strcmp(argv[3], "-") != 0) cfg.gpu.num_sms = (uint32_t)strtoul(argv[3], NULL, 10);
  /* host threads the timed launches' SMs run on (ws_device_set_threads) */
  uint32_t threads = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1;
  ws_device *dev = NULL;
  if (ws_device_create(ctx, &cfg, &dev) != WS_OK) {
    fprintf(stderr, "%s\n", ws_errmsg(ctx));
    return 1;
  }
  ws_device_set_mode(dev, functional ? WS_MODE_FUNCTIONAL : WS_MODE_TIMING);
  ws_device_set_threads(dev, threads);
  printf("%s (%s preset, %u SMs), %u host thread%s, launch only, best of %d\n",
         functional ? "functional executor" : "timing model", cfg.gpu.name, cfg.gpu.num_sms,
         threads ? threads : 1, threads > 1 ? "s" : "", repeats());
  int rc = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!only || strncmp(cases[i].label, only, strlen(only)) == 0) rc |= run_case(dev, &cases[i]);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return rc;
}
