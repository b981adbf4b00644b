/* nngen.h - generators for the TinyViT32 kernels other than attention:
 * patch extraction, LayerNorm (plain and fused with a residual add), row
 * softmax, GELU, residual add, add-positions, mean-pool and the sigmoid head.
 *
 * Design: each generator emits readable .wsa text (commented sections) whose
 * shapes are kernel parameters, so one assembled kernel serves every shape;
 * only what fixes the code itself (threads or warps per CTA) is a generator
 * parameter. Each kernel has a *_source function (the text), a geometry rule
 * and a *_run helper that generates, assembles and launches it on a device
 * through the public runtime API, all buffers fp32 row-major in device
 * memory. The kernels that need no generating are .wsa files in
 * models/kgen/kernels/. The fixed-kernel loader and the assemble-and-launch
 * helper are public because the attention generators (models/kgen/attngen.h) use
 * them too. */
#ifndef WS_NNGEN_H
#define WS_NNGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/exec/args.h"
#include "sim/host/device.h"

/* ---- shared machinery ------------------------------------------------------ */

/* The embedded kernel file at `path` (models/kgen/kernels/...) as a string
 * (*out malloc'd, the caller frees); WS_ERR_INVALID when there is none. */
ws_status ws_nngen_fixed_source(ws_ctx *ctx, const char *path, char **out);

/* An assembled generated kernel with its argument buffer. */
typedef struct ws_nngen_kernel {
  ws_program *prog;
  const ws_kernel *kernel;
  ws_args args;
} ws_nngen_kernel;

/* Assembles `src` (`filename` names it in messages) and picks its first kernel. */
ws_status ws_nngen_kernel_build(ws_ctx *ctx, const char *src, const char *filename, ws_nngen_kernel *out);
void ws_nngen_kernel_release(ws_nngen_kernel *k);
/* Sets a param by name: u32, f32 or a device pointer. */
ws_status ws_nngen_kernel_u32(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, uint32_t v);
ws_status ws_nngen_kernel_f32(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, float v);
ws_status ws_nngen_kernel_ptr(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, uint64_t dptr);
/* Launches with no dynamic shared memory; stats may be NULL. */
ws_status ws_nngen_kernel_launch(ws_device *dev, ws_nngen_kernel *k, ws_dim3 grid, ws_dim3 block,
                                 ws_launch_stats *stats);

/* ---- generators -------------------------------------------------------------- */

/* Row kernels (LayerNorm, add+LayerNorm, softmax) run one warp per row with
 * `warps_per_cta` warps in a CTA (1..32). */
typedef enum ws_nngen_norm {
  WS_NNGEN_NORM_PLAIN, /* y = LN(x) */
  WS_NNGEN_NORM_ADD,   /* y = LN(x + a): the residual add fused in */
  WS_NNGEN_NORM_COUNT
} ws_nngen_norm;

#define WS_NNGEN_LN_EPS 1e-5f

ws_status ws_nngen_patch_source(ws_ctx *ctx, char **out);
ws_status ws_nngen_layernorm_source(ws_ctx *ctx, ws_nngen_norm kind, uint32_t warps_per_cta, char **out);
/* softmax.wsa reads its warps per CTA from SR_NTID: one text for any block. */
ws_status ws_nngen_softmax_source(ws_ctx *ctx, char **out);
/* Elementwise kernels: one thread per element. GELU is generated for
 * `threads_per_cta`, a multiple of 32 (32..1024); add, add-pos and mean-pool
 * are fixed files that read their block size from SR_NTID. */
ws_status ws_nngen_gelu_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out);
ws_status ws_nngen_add_source(ws_ctx *ctx, char **out);
ws_status ws_nngen_add_pos_source(ws_ctx *ctx, char **out);
ws_status ws_nngen_meanpool_source(ws_ctx *ctx, char **out);
ws_status ws_nngen_head_source(ws_ctx *ctx, char **out);

/* ---- geometry ------------------------------------------------------------------- */

/* One warp per row: grid ceil(rows / warps_per_cta), block 32 * warps_per_cta. */
ws_status ws_nngen_rows_geometry(ws_ctx *ctx, uint32_t rows, uint32_t warps_per_cta, ws_dim3 *grid,
                                 ws_dim3 *block);
/* One thread per element: grid ceil(count / threads_per_cta) (x) by `batch` (y). */
ws_status ws_nngen_elems_geometry(ws_ctx *ctx, uint64_t count, uint32_t batch, uint32_t threads_per_cta,
                                  ws_dim3 *grid, ws_dim3 *block);

/* ---- run helpers: generate, assemble, launch (device pointers in, stats out) ---- */

/* Patch extraction: image CHW [channels, height, width] -> patches
 * [(height/patch)*(width/patch), channels*patch*patch], each row ordered
 * (c, ky, kx), token t = py*(width/patch) + px. */
typedef struct ws_nngen_patch_shape {
  uint32_t channels, height, width, patch;
  uint32_t batch; /* images, one after the other in `image` and in `patches` (0 means 1): one launch */
} ws_nngen_patch_shape;

ws_status ws_nngen_patch_run(ws_device *dev, const ws_nngen_patch_shape *s, uint64_t image, uint64_t patches,
                             ws_launch_stats *stats);
/* y[rows, cols] = LN(x (+ a)) * w + b, eps WS_NNGEN_LN_EPS, biased variance;
 * a is ignored for WS_NNGEN_NORM_PLAIN. y may alias x. */
ws_status ws_nngen_layernorm_run(ws_device *dev, ws_nngen_norm kind, uint32_t rows, uint32_t cols, uint64_t x,
                                 uint64_t a, uint64_t w, uint64_t b, uint64_t y, ws_launch_stats *stats);
/* y[rows, cols] = softmax of each row of x (max-subtracted); y may alias x. */
ws_status ws_nngen_softmax_run(ws_device *dev, uint32_t rows, uint32_t cols, uint64_t x, uint64_t y,
                               ws_launch_stats *stats);
/* y[i] = GELU(x[i]), tanh form; y may alias x. */
ws_status ws_nngen_gelu_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t y, ws_launch_stats *stats);
/* y[i] = x[i] + a[i] (the residual add); y may alias x. */
ws_status ws_nngen_add_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t a, uint64_t y,
                           ws_launch_stats *stats);
/* y[n][t][d] = x[n][t][d] + pos[t][d] for n < batch: positions broadcast over
 * a batch of [tokens, dim] blocks; y may alias x. */
ws_status ws_nngen_add_pos_run(ws_device *dev, uint32_t batch, uint32_t tokens, uint32_t dim, uint64_t x,
                               uint64_t pos, uint64_t y, ws_launch_stats *stats);
/* y[n][d] = mean over t of x[n][t][d] for x [batch, tokens, dim]: one launch,
 * grid y the image. */
ws_status ws_nngen_meanpool_run(ws_device *dev, uint32_t batch, uint32_t tokens, uint32_t dim, uint64_t x,
                                uint64_t y, ws_launch_stats *stats);
/* For each of `rows` pooled vectors p[r][0..dim): logit[r] = p[r] . w + b[0],
 * prob[r] = 1 / (1 + 2^(-logit * log2 e)). */
ws_status ws_nngen_head_run(ws_device *dev, uint32_t rows, uint32_t dim, uint64_t pooled, uint64_t w,
                            uint64_t b, uint64_t logit, uint64_t prob, ws_launch_stats *stats);

#endif
