/* example.h - the shipped example kernels, each run on a device and checked.
 *
 * Design: every example returns a check computed honestly on the host: SAXPY
 * and the reduction against closed-form answers that fp32 represents exactly,
 * the GEMMs against OpenBLAS's cblas_sgemm with an error bound derived from
 * the inputs (see ws_example_check.bound_desc). The same functions back the
 * CLI (`warpscope example`), the tests and the benchmarks. */
#ifndef WS_EXAMPLE_H
#define WS_EXAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/host/device.h"
#include "sim/host/runtime.h"

#define WS_EXAMPLE_MAX_BUFFERS 4

typedef struct ws_example_check {
  char title[160];  /* what ran, e.g. "SGEMM 33x65x17 (shared-memory tiled)" */
  char launch[160]; /* grid and block */
  char kernel[64];  /* the kernel's name */
  ws_dim3 grid, block;
  char reference[160];  /* what the result was checked against */
  char bound_desc[160]; /* the tolerance rule */
  uint64_t nvalues;     /* outputs compared */
  uint64_t nbad;        /* outputs outside the bound */
  double max_abs_err;
  double worst_ratio; /* max over outputs of |error| / bound (0 when exact) */
  bool pass;
  ws_launch_stats stats;
  /* the device buffers by their kernel parameter's name, class other (an
   * example's operands are no model's tensors), sorted by address: what a
   * trace of the run names (ws_wst_writer_set_regions) */
  ws_runtime_region regions[WS_EXAMPLE_MAX_BUFFERS];
  size_t nregions;
} ws_example_check;

typedef struct ws_example_shape {
  uint32_t m, n, k; /* GEMMs; saxpy and reduce use n */
  uint64_t seed;    /* input generator seed */
} ws_example_shape;

/* The names `warpscope example` accepts, NULL-terminated. */
extern const char *const ws_example_names[];

/* Default shape for an example name (sgemm 256x256x256 and so on). */
ws_example_shape ws_example_default_shape(const char *name);

/* WS_ERR_INVALID with the reason when `shape` is not one example `name`
 * supports (ws_example_run checks it first). */
ws_status ws_example_check_shape(ws_ctx *ctx, const char *name, const ws_example_shape *s);
/* Whether the example reads M and K (the GEMMs) besides N. */
bool ws_example_uses_mk(const char *name);

/* Runs example `name` on dev with `shape`. WS_ERR_INVALID for an unknown name
 * or a shape the kernel does not support; a wrong answer is not an error but
 * check->pass = false. */
ws_status ws_example_run(ws_device *dev, const char *name, const ws_example_shape *shape,
                         ws_example_check *check);

/* Assembles an embedded kernel source ("models/runs/examples/sgemm.wsa"). */
ws_status ws_example_program(ws_ctx *ctx, const char *path, ws_program **out);

#endif
