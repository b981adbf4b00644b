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

#include "base/formats/image.h"
#include "models/vit/vitrun.h"

#ifndef REPEATS
#define REPEATS 5
#endif

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One whole run; the simulated end-to-end time and the instructions
 * simulated come back for the printout. */
static ws_status one_run(ws_ctx *ctx, const char *preset, uint32_t batch, uint64_t *e2e_ns,
                         uint64_t *warp_insns) {
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_runtime *rt = NULL;
  ws_tinyvit_weights *w = NULL;
  ws_vitrun_result res = {0};
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  float *images = calloc((size_t)batch * WS_TINYVIT_IMAGE_FLOATS, sizeof *images);
  ws_status st = images ? ws_config_load_preset(ctx, preset, &cfg) : WS_ERR_NOMEM;
  for (uint32_t i = 0; i < batch && st == WS_OK; i++)
    st = ws_image_input(ctx, ws_image_sample_names()[i % 4], images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS);
  if (st == WS_OK) st = ws_tinyvit_weights_create(ctx, &mc, &w);
  if (st == WS_OK) ws_tinyvit_weights_init_seeded(w, 1);
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, &dev);
  if (st == WS_OK) st = ws_runtime_create(dev, &rt);
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  vc.batch = batch;
  if (st == WS_OK) st = ws_vitrun_run(rt, w, images, &vc, &res);
  if (st == WS_OK) {
    size_t n;
    const ws_runtime_record *r = ws_runtime_timeline(rt, &n);
    *warp_insns = 0;
    for (size_t i = 0; i < n; i++) *warp_insns += r[i].stats.warp_insns;
    *e2e_ns = res.end_ns - res.image_start_ns;
    if (!res.pass) st = ws_ctx_fail(ctx, WS_ERR_FAULT, "a layer failed its check");
  }
  ws_vitrun_result_free(&res);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  ws_tinyvit_weights_destroy(w);
  free(images);
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
