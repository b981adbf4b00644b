/* bench_vit.c - wall time of the main job: what `warpscope run` does for a
 * TinyViT32 batch (device and runtime set-up, seeded weights, image
 * preprocessing, the OpenBLAS reference, every kernel through the timing
 * model, every layer's check), best of REPEATS, single thread.
 *
 *   bench_vit [PRESET] [BATCH]
 * The target is at most 2 s for a batch of 1 (docs/performance.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "models/vit/vitjob.h"

#ifndef REPEATS
#define REPEATS 5
#endif

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One whole run, as `warpscope run --batch N` makes it; the simulated
 * end-to-end time and the instructions simulated come back for the
 * printout. */
static ws_status one_run(ws_ctx *ctx, const char *preset, uint32_t batch, uint64_t *e2e_ns,
                         uint64_t *warp_insns) {
  ws_gpu_cfg gpu;
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  ws_vitjob_cfg jc = {.model = &mc, .seed = 1, .batch = batch};
  ws_vitjob job = {0};
  ws_status st = ws_config_load_preset(ctx, preset, &gpu);
  if (st == WS_OK) st = ws_vitjob_open(ctx, &gpu, &jc, &job);
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  vc.batch = batch;
  if (st == WS_OK) st = ws_vitjob_run(&job, &vc);
  if (st == WS_OK) {
    size_t n;
    const ws_runtime_record *r = ws_runtime_timeline(job.rt, &n);
    *warp_insns = 0;
    for (size_t i = 0; i < n; i++) *warp_insns += r[i].stats.warp_insns;
    *e2e_ns = job.res.end_ns - job.res.image_start_ns;
    if (!job.res.pass) st = ws_ctx_fail(ctx, WS_ERR_FAULT, "a layer failed its check");
  }
  ws_vitjob_close(&job);
  return st;
}

int main(int argc, char **argv) {
  const char *preset = argc > 1 ? argv[1] : "a100";
  uint32_t batch = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1;
  ws_ctx *ctx = ws_ctx_create();
  double best = 1e30;
  uint64_t e2e = 0, insns = 0;
  for (int r = 0; r < REPEATS; r++) {
    double t0 = now_seconds();
    if (one_run(ctx, preset, batch, &e2e, &insns) != WS_OK) {
      fprintf(stderr, "bench_vit: %s\n", ws_errmsg(ctx));
      ws_ctx_destroy(ctx);
      return 1;
    }
    double t = now_seconds() - t0;
    if (t < best) best = t;
  }
  printf("TinyViT32 run on %s, batch %u: %.3f s wall (best of %d; target <= 2 s at batch 1), "
         "%" PRIu64 " warp instructions simulated, %.3f us simulated end to end\n",
         preset, batch, best, REPEATS, insns, (double)e2e / 1e3);
  ws_ctx_destroy(ctx);
  return 0;
}
