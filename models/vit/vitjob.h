/* vitjob.h - everything one TinyViT32 run needs around ws_vitrun_run: the
 * weights (loaded or seeded), the batch of images decoded, resized and
 * normalized, a device and its runtime; then the run, then one release.
 * `warpscope run` and the end-to-end benchmark take the same steps through
 * it, so what they measure is the same run.
 *
 * Design: open (with a hook for what must be set on the device before its
 * runtime exists), then the caller sets what else only it knows on job->dev
 * (probes) before ws_vitjob_run; the host time spent
 * preparing the images is measured on this machine, the one wall-clock
 * reading, kept apart from the simulated timeline. */
#ifndef WS_VITJOB_H
#define WS_VITJOB_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "models/vit/tinyvit.h"
#include "models/vit/vitrun.h"
#include "sim/common/config.h"
#include "sim/host/device.h"
#include "sim/host/runtime.h"

typedef struct ws_vitjob_cfg {
  const ws_tinyvit_cfg *model;
  const char *weights_path; /* NULL: weights seeded with `seed` */
  uint64_t seed;
  const char *const *images; /* image i of the batch is images[i % nimages]; NULL: the sample images */
  size_t nimages;
  uint32_t batch;
  /* called on the new device before its runtime exists (NULL: nothing):
   * where the caller sets checks and limits, which then cover the runtime's
   * own allocations too */
  void (*device_ready)(void *user, ws_device *dev);
  void *user;
} ws_vitjob_cfg;

typedef struct ws_vitjob {
  ws_tinyvit_weights *weights;
  float *images; /* batch x WS_TINYVIT_IMAGE_FLOATS */
  ws_device *dev;
  ws_runtime *rt;
  ws_vitrun_result res;
  double host_prep_s; /* decoding, resizing and normalizing the images */
} ws_vitjob;

/* The name of image i of a batch drawn from `images` (nimages of them;
 * NULL or 0: the sample images), in turn. */
const char *ws_vitjob_image(const char *const *images, size_t nimages, uint32_t i);
/* Fills *job (zeroed first); on failure what was made is released. */
ws_status ws_vitjob_open(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_vitjob_cfg *cfg, ws_vitjob *job);
/* ws_vitrun_run on the job's runtime, weights and images into job->res. */
ws_status ws_vitjob_run(ws_vitjob *job, const ws_vitrun_cfg *vc);
/* Releases everything; a zeroed job is fine. */
void ws_vitjob_close(ws_vitjob *job);

#endif
