/* vitjob.c - a TinyViT32 run's setup and release (vitjob.h). */
#include "models/vit/vitjob.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/formats/image.h"

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *ws_vitjob_image(const char *const *images, size_t nimages, uint32_t i) {
  if (images && nimages) return images[i % nimages];
  const char *const *s = ws_image_sample_names();
  size_t n = 0;
  while (s[n]) n++;
  return s[i % n];
}

static ws_status load_weights(ws_ctx *ctx, const ws_vitjob_cfg *cfg, ws_tinyvit_weights **w) {
  if (cfg->weights_path) return ws_tinyvit_weights_load(ctx, cfg->weights_path, cfg->model, w);
  ws_status st = ws_tinyvit_weights_create(ctx, cfg->model, w);
  if (st == WS_OK) ws_tinyvit_weights_init_seeded(*w, cfg->seed);
  return st;
}

/* Decodes, resizes and normalizes every image of the batch, timed. */
static ws_status prepare_images(ws_ctx *ctx, const ws_vitjob_cfg *cfg, ws_vitjob *job) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < cfg->batch && st == WS_OK; i++) {
    double t0 = seconds_now();
    st = ws_image_input(ctx, ws_vitjob_image(cfg->images, cfg->nimages, i),
                        job->images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS);
    job->host_prep_s += seconds_now() - t0;
  }
  return st;
}

ws_status ws_vitjob_open(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_vitjob_cfg *cfg, ws_vitjob *job) {
  memset(job, 0, sizeof *job);
  job->images = calloc((size_t)cfg->batch * WS_TINYVIT_IMAGE_FLOATS, sizeof *job->images);
  ws_status st = job->images ? load_weights(ctx, cfg, &job->weights)
                             : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory");
  if (st == WS_OK) st = prepare_images(ctx, cfg, job);
  if (st == WS_OK) st = ws_device_create(ctx, gpu, &job->dev);
  if (st == WS_OK && cfg->device_ready) cfg->device_ready(cfg->user, job->dev);
  if (st == WS_OK) st = ws_runtime_create(job->dev, &job->rt);
  if (st != WS_OK) ws_vitjob_close(job);
  return st;
}

ws_status ws_vitjob_run(ws_vitjob *job, const ws_vitrun_cfg *vc) {
  return ws_vitrun_run(job->rt, job->weights, job->images, vc, &job->res);
}

void ws_vitjob_close(ws_vitjob *job) {
  ws_vitrun_result_free(&job->res);
  ws_runtime_destroy(job->rt);
  ws_device_destroy(job->dev);
  ws_tinyvit_weights_destroy(job->weights);
  free(job->images);
  memset(job, 0, sizeof *job);
}
