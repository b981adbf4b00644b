/* bench_ptx.c - the CUDA front end's speed: how long translating a large
 * PTX file takes (the register-blocked SGEMM's two instances, 3,149 lines,
 * clang's output), and whether a translated kernel simulates as fast as a
 * hand-written one of the same shape (the seeds' SAXPY from CUDA C against
 * models/runs/examples/saxpy.wsa, 4M elements, timing mode). Each figure
 * is the best of REPEATS runs.
 *
 *   bench_ptx [SOURCE_DIR]   (default: the current folder) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/file.h"
#include "isa/asm.h"
#include "ptx/ptx.h"
#include "sim/host/device.h"

#define REPEATS 5

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int translate_speed(ws_ctx *ctx, const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/ptx/cuda/sgemm_reg.ptx", dir);
  char *text = NULL;
  size_t len = 0;
  if (ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "PTX", &text, &len) != WS_OK) {
    fprintf(stderr, "%s\n", ws_errmsg(ctx));
    return 1;
  }
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  double best = 1e30;
  uint32_t insns = 0;
  for (int r = 0; r < REPEATS; r++) {
    ws_ptx_result res;
    double t0 = now_seconds();
    ws_status st = ws_ptx_translate(ctx, text, len, path, NULL, &res);
    double t = now_seconds() - t0;
    if (st != WS_OK) {
      fprintf(stderr, "%s\n", ws_errmsg(ctx));
      free(text);
      return 1;
    }
    insns = 0;
    for (size_t k = 0; k < res.nkernels; k++) insns += res.kernels[k].ninsns;
    ws_ptx_result_free(&res);
    if (t < best) best = t;
  }
  printf("translate sgemm_reg.ptx          %5zu PTX lines -> %5u instructions  %7.2f ms\n", lines, insns,
         best * 1e3);
  free(text);
  return 0;
}

/* Times one launch of SAXPY over n elements of kernel k, params by name. */
static int saxpy_rate(ws_ctx *ctx, const char *label, const ws_kernel *k, const char *n, const char *a,
                      const char *x, const char *y) {
  enum { N = 1 << 22 };
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_status st = ws_config_load_preset(ctx, "a100", &cfg);
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, &dev);
  ws_args args;
  ws_args_init(&args, k);
  uint64_t dx = 0, dy = 0;
  if (st == WS_OK) st = ws_device_malloc(dev, (uint64_t)N * 4, &dx);
  if (st == WS_OK) st = ws_device_malloc(dev, (uint64_t)N * 4, &dy);
  if (st == WS_OK) st = ws_device_memset(dev, dx, 0, (uint64_t)N * 4);
  if (st == WS_OK) st = ws_device_memset(dev, dy, 0, (uint64_t)N * 4);
  if (st == WS_OK) st = ws_args_set_u32(ctx, &args, n, N);
  if (st == WS_OK) st = ws_args_set_f32(ctx, &args, a, 2.0f);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &args, x, dx);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &args, y, dy);
  ws_launch_stats ls;
  double best = 1e30;
  for (int r = 0; r < REPEATS && st == WS_OK; r++) {
    double t0 = now_seconds();
    st = ws_device_launch(dev, k, (ws_dim3){N / 256, 1, 1}, (ws_dim3){256, 1, 1}, 0, &args, &ls);
    double t = now_seconds() - t0;
    if (t < best) best = t;
  }
  if (st == WS_OK)
    printf("%-32s %9" PRIu64 " warp insns %8" PRIu64 " cycles %7.3f s %6.2f M warp insns/s\n", label,
           ls.warp_insns, ls.cycles, best, (double)ls.warp_insns / best / 1e6);
  else
    fprintf(stderr, "%s: %s\n", label, ws_errmsg(ctx));
  ws_device_destroy(dev);
  return st == WS_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  ws_ctx *ctx = ws_ctx_create();
  int rc = translate_speed(ctx, dir);
  char path[1024];
  snprintf(path, sizeof path, "%s/models/runs/examples/saxpy.wsa", dir);
  ws_program *hand = NULL;
  ws_ptx_result res;
  memset(&res, 0, sizeof res);
  if (rc == 0 && ws_asm_file(ctx, path, &hand) != WS_OK) rc = 1;
  snprintf(path, sizeof path, "%s/tests/ptx/cuda/saxpy.ptx", dir);
  if (rc == 0 && ws_ptx_load_file(ctx, path, NULL, NULL, &res) != WS_OK) rc = 1;
  if (rc == 0) rc = saxpy_rate(ctx, "saxpy 4M hand-written (.wsa)", &hand->kernels[0], "n", "a", "x", "y");
  if (rc == 0)
    rc = saxpy_rate(ctx, "saxpy 4M from CUDA C (.ptx)", &res.prog->kernels[0], "param_0", "param_1", "param_2",
                    "param_3");
  if (rc) fprintf(stderr, "bench_ptx: %s\n", ws_errmsg(ctx));
  ws_program_destroy(hand);
  ws_ptx_result_free(&res);
  ws_ctx_destroy(ctx);
  return rc;
}
