/* bench_exec.c - simulator speed: warp instructions per second of the
 * functional SIMT executor, single-threaded, on an FFMA-heavy SGEMM and on a
 * memory-bound SAXPY. Each case runs REPEATS times; the best time is kept, as
 * the least disturbed by the rest of the machine. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "models/examples.h"

#define REPEATS 3

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_case(ws_device *dev, const char *name, ws_example_shape shape) {
  double best = 1e30;
  ws_example_check check;
  for (int r = 0; r < REPEATS; r++) {
    double t0 = now_seconds();
    if (ws_example_run(dev, name, &shape, &check) != WS_OK || !check.pass) {
      fprintf(stderr, "bench %s failed: %s\n", name, ws_errmsg(ws_device_ctx(dev)));
      return 1;
    }
    double t = now_seconds() - t0;
    if (t < best) best = t;
  }
  printf("%-8s %-40s %12" PRIu64 " warp insns  %8.3f s  %7.2f M warp insns/s  %8.1f M thread insns/s\n",
         name, check.title, check.stats.warp_insns, best, (double)check.stats.warp_insns / best / 1e6,
         (double)check.stats.thread_insns / best / 1e6);
  return 0;
}

int main(void) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_gpu_cfg_default();
  ws_device *dev = NULL;
  if (ws_device_create(ctx, &cfg, &dev) != WS_OK) {
    fprintf(stderr, "%s\n", ws_errmsg(ctx));
    return 1;
  }
  printf("functional executor speed (best of %d, includes host setup and the OpenBLAS check)\n", REPEATS);
  int rc = bench_case(dev, "sgemm", (ws_example_shape){512, 512, 512, 1});
  rc |= bench_case(dev, "saxpy", (ws_example_shape){0, 1u << 22, 0, 1});
  rc |= bench_case(dev, "mma", (ws_example_shape){512, 512, 512, 1});
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return rc;
}
