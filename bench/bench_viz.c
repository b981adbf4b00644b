/* bench_viz.c - the visualizer's speed: how long a trace of `warpscope run`
 * takes from opening the file to its first frame on screen, and frames per
 * second while animating the run's busiest kernel (the launch with the most
 * records), every frame replayed from the trace and drawn in software.
 *
 *   bench_viz [PRESET] [FRAMES] [WIDTHxHEIGHT]
 * Defaults: h100 (132 SMs), 600 frames, 1280x800. The targets are a first
 * frame within 1 s and at least 60 frames per second (docs/performance.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/formats/image.h"
#include "models/vit/vitrun.h"
#include "traces/wst.h"
#include "viz/layout.h"
#include "viz/model.h"
#include "viz/render.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* `warpscope run --trace path` on the preset: the trace to animate. */
static ws_status record(ws_ctx *ctx, const char *preset, const char *path) {
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_runtime *rt = NULL;
  ws_tinyvit_weights *w = NULL;
  ws_wst_writer *wr = NULL;
  ws_vitrun_result res = {0};
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  float images[WS_TINYVIT_IMAGE_FLOATS];
  ws_status st = ws_config_load_preset(ctx, preset, &cfg);
  if (st == WS_OK) st = ws_image_input(ctx, "checker", images);
  if (st == WS_OK) st = ws_tinyvit_weights_create(ctx, &mc, &w);
  if (st == WS_OK) ws_tinyvit_weights_init_seeded(w, 1);
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, &dev);
  if (st == WS_OK) st = ws_runtime_create(dev, &rt);
  if (st == WS_OK) st = ws_wst_writer_create(ctx, path, &cfg, NULL, &wr);
  if (st == WS_OK) ws_device_set_probe(dev, ws_wst_writer_probe(wr));
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  if (st == WS_OK) st = ws_vitrun_run(rt, w, images, &vc, &res);
  if (st == WS_OK) st = ws_wst_writer_commit(wr);
  ws_wst_writer_free(wr);
  ws_vitrun_result_free(&res);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  ws_tinyvit_weights_destroy(w);
  return st;
}

static uint32_t busiest(const ws_wst_reader *r) {
  uint32_t best = 0;
  for (size_t i = 1; i < ws_wst_launch_count(r); i++)
    if (ws_wst_launch(r, i)->events > ws_wst_launch(r, best)->events) best = (uint32_t)i;
  return best;
}

typedef struct viewer {
  ws_wst_reader *reader;
  ws_viz_model *model;
  ws_viz_layout *layout;
  ws_viz_render *render;
  uint32_t launch;
} viewer;

/* Everything the window does before its first frame, and that frame. */
static ws_status open_viewer(ws_ctx *ctx, const char *path, int32_t w, int32_t h, viewer *v) {
  ws_status st = ws_wst_open(ctx, path, &v->reader);
  if (st == WS_OK) st = ws_viz_model_create(ctx, v->reader, &v->model);
  if (st == WS_OK) v->launch = busiest(v->reader);
  if (st == WS_OK)
    st = ws_viz_layout_create(ctx, ws_viz_model_cfg(v->model), w, h, (ws_viz_view){0}, &v->layout);
  ws_viz_render_opts o = {0};
  if (st == WS_OK) o.stall_names = ws_wst_names(v->reader, &o.nstall_names);
  if (st == WS_OK) st = ws_viz_render_create(ctx, v->layout, &o, &v->render);
  if (st == WS_OK) st = ws_viz_model_load(v->model, v->launch);
  const ws_viz_frame *f = NULL;
  if (st == WS_OK) st = ws_viz_model_frame(v->model, 0, 256, &f);
  if (st == WS_OK) st = ws_viz_render_draw(v->render, f, "first");
  return st;
}

static void close_viewer(viewer *v) {
  ws_viz_render_destroy(v->render);
  ws_viz_layout_destroy(v->layout);
  ws_viz_model_destroy(v->model);
  ws_wst_close(v->reader);
}

int main(int argc, char **argv) {
  const char *preset = argc > 1 ? argv[1] : "h100";
  int frames = argc > 2 ? atoi(argv[2]) : 600;
  int32_t w = 1280, h = 800;
  if (argc > 3 && sscanf(argv[3], "%dx%d", &w, &h) != 2) w = 1280, h = 800;
  if (frames < 1) frames = 1;
  ws_ctx *ctx = ws_ctx_create();
  char path[] = "/tmp/bench_viz_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || !ctx) return 1;
  close(fd);
  viewer v = {0};
  ws_status st = record(ctx, preset, path);
  double t0 = now_seconds();
  if (st == WS_OK) st = open_viewer(ctx, path, w, h, &v);
  double first = now_seconds() - t0;
  uint64_t cycles = st == WS_OK ? ws_wst_launch(v.reader, v.launch)->cycles : 0;
  double t1 = now_seconds();
  for (int i = 0; i < frames && st == WS_OK; i++) {
    const ws_viz_frame *f = NULL;
    st = ws_viz_model_frame(v.model, cycles * (uint64_t)i / (uint64_t)frames, 256, &f);
    if (st == WS_OK) st = ws_viz_render_draw(v.render, f, "bench");
  }
  double secs = now_seconds() - t1;
  if (st == WS_OK) {
    printf("bench_viz: %s, busiest launch of warpscope run: %u (%" PRIu64 " records, %" PRIu64
           " cycles), %dx%d\n",
           preset, v.launch, ws_wst_launch(v.reader, v.launch)->events, cycles, w, h);
    printf("  open the trace to the first frame drawn: %.0f ms\n", first * 1e3);
    printf("  %d frames replayed and drawn in %.2f s: %.0f frames per second\n", frames, secs, frames / secs);
  } else {
    fprintf(stderr, "bench_viz: %s\n", ws_errmsg(ctx));
  }
  close_viewer(&v);
  unlink(path);
  ws_ctx_destroy(ctx);
  return st == WS_OK ? 0 : 1;
}
