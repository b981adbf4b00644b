/* unified.c - TinyViT32's weights three ways; see unified.h. */
#include "models/vit/unified.h"

#include <stdlib.h>
#include <string.h>

#include "base/formats/image.h"

static ws_status load_images(ws_ctx *ctx, uint32_t batch, float **out) {
  *out = calloc((size_t)batch * WS_TINYVIT_IMAGE_FLOATS, sizeof **out);
  if (!*out) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted for %u images", batch);
  const char *const *names = ws_image_sample_names();
  size_t nnames = 0;
  while (names[nnames]) nnames++;
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < batch && st == WS_OK; i++) {
    ws_image *img = NULL;
    st = ws_image_sample(ctx, names[i % nnames], &img);
    if (st == WS_OK) st = ws_image_to_input(ctx, img, *out + (size_t)i * WS_TINYVIT_IMAGE_FLOATS);
    ws_image_destroy(img);
  }
  return st;
}

/* The figures of one run's timeline. */
static void read_timeline(const ws_runtime *rt, ws_unified_way *w) {
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(rt, &n);
  w->first_fault_kernel = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    if (r[i].kind == WS_RUNTIME_OP_H2D &&
        (!strcmp(r[i].name, "weights") || !strcmp(r[i].name, "prefetch weights"))) {
      w->move_ns += r[i].end_ns - r[i].start_ns;
      w->move_bytes += r[i].size_bytes;
    }
    if (r[i].kind != WS_RUNTIME_OP_KERNEL) continue;
    w->kernels++;
    w->kernels_ns += r[i].end_ns - r[i].start_ns;
    if (!r[i].summary.uvm_faults) continue;
    if (!w->faulting_kernels++) {
      w->first_fault_kernel = i;
      snprintf(w->first_fault_name, sizeof w->first_fault_name, "%s", r[i].name);
    }
  }
}

static ws_status run_way(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_tinyvit_weights *wts,
                         const float *images, uint32_t batch, ws_unified_way *w) {
  ws_device *dev = NULL;
  ws_runtime *rt = NULL;
  ws_vitrun_result res;
  memset(&res, 0, sizeof res);
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  vc.batch = batch;
  vc.weights = w->weights;
  ws_status st = ws_device_create(ctx, gpu, &dev);
  if (st == WS_OK) st = ws_runtime_create(dev, &rt);
  if (st == WS_OK) st = ws_vitrun_run(rt, wts, images, &vc, &res);
  if (st == WS_OK) {
    w->end_ns = res.end_ns;
    w->pass = res.pass;
    read_timeline(rt, w);
    w->uvm = ws_device_managed_stats(dev);
    w->fault_ns = ws_config_cycles_to_ns(w->uvm.fault_cycles, gpu->gpu.core_clock_mhz);
  }
  ws_vitrun_result_free(&res);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  return st;
}

ws_status ws_unified_run(ws_ctx *ctx, const ws_gpu_cfg *gpu, uint32_t batch, ws_unified_way out[3]) {
  memset(out, 0, 3 * sizeof *out);
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  vc.batch = batch;
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  ws_status st = ws_vitrun_validate(ctx, &vc, &mc, gpu);
  if (st != WS_OK) return st;
  ws_tinyvit_weights *wts = NULL;
  float *images = NULL;
  st = ws_tinyvit_weights_create(ctx, &mc, &wts);
  if (st == WS_OK) {
    ws_tinyvit_weights_init_seeded(wts, 1);
    st = load_images(ctx, batch, &images);
  }
  for (int i = 0; i < 3 && st == WS_OK; i++) {
    out[i].weights = (ws_vitrun_weights)i;
    st = run_way(ctx, gpu, wts, images, batch, &out[i]);
  }
  free(images);
  ws_tinyvit_weights_destroy(wts);
  return st;
}
