/* unified.h - unified memory on TinyViT32's weights: the same run with the
 * weights copied into device memory, in managed memory paged in by the
 * kernels' faults, and in managed memory moved by one prefetch.
 *
 * Design: each way is one ws_vitrun_run on a fresh device of the preset,
 * the same seeded weights and image, checked against OpenBLAS as every run
 * is; the figures come from the run's timeline (the weights' copy or
 * prefetch, the kernels) and from the device's managed-memory totals. */
#ifndef WS_UNIFIED_H
#define WS_UNIFIED_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "models/vit/vitrun.h"
#include "sim/common/config.h"

typedef struct ws_unified_way {
  ws_vitrun_weights weights;
  uint64_t end_ns;     /* the probability is back on the host */
  uint64_t move_ns;    /* the weights' copy or prefetch on the timeline (0: none) */
  uint64_t move_bytes; /* what it moved */
  uint64_t kernels_ns; /* every kernel, summed */
  uint32_t kernels, faulting_kernels;
  uint64_t first_fault_kernel; /* timeline index of the first kernel that faulted (UINT64_MAX: none) */
  char first_fault_name[64];
  uint64_t fault_ns;            /* the fault batches' time, at the preset's clock */
  ws_device_managed_totals uvm; /* the device's managed-memory totals after the run */
  bool pass;                    /* every layer matched OpenBLAS */
} ws_unified_way;

/* Runs the three ways (copy, managed, prefetch) in that order on `gpu` with
 * seeded weights (seed 1) and `batch` images of the built-in samples;
 * out[i] is way i. A run whose layers disagree with OpenBLAS is reported
 * (pass false), not an error. */
ws_status ws_unified_run(ws_ctx *ctx, const ws_gpu_cfg *gpu, uint32_t batch, ws_unified_way out[3]);

#endif
