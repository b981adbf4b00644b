/* attngen.h - multi-head self-attention kernel generators: naive (three
 * kernels through device memory) and flash (one fused kernel).
 *
 * Input is the packed QKV buffer [T, 3D] (Q = columns [0, D), K = [D, 2D),
 * V = [2D, 3D); head h uses columns h*dh .. h*dh+dh-1 of each), output
 * O [T, D] with the heads concatenated, scale 1/sqrt(dh), all fp32 row-major
 * in device memory.
 *
 * Design: the naive path materialises the scores S [H, T, T] in device
 * memory, softmaxes them in place with the row softmax of models/kgen/nngen.h,
 * then multiplies by V. The flash path (FlashAttention, Dao et al. 2022)
 * gives a CTA of Br threads one Br-row Q tile of one head in shared memory,
 * streams Bc-row K/V tiles through shared memory and keeps the online
 * softmax (running max, running sum, rescaled accumulator) in registers, so
 * S never leaves the SM. dh, Br and Bc fix the flash kernel's register
 * layout and unrolling and are generator parameters; T and D are kernel
 * parameters. */
#ifndef WS_ATTNGEN_H
#define WS_ATTNGEN_H

#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/host/device.h"

typedef struct ws_attngen_shape {
  uint32_t tokens;   /* T */
  uint32_t heads;    /* H */
  uint32_t head_dim; /* dh; the model dimension D = H * dh */
  /* images (0 means 1), attended in one launch: QKV [batch*T, 3D], the
   * output [batch*T, D], the naive scores [batch*H, T, T] */
  uint32_t batch;
} ws_attngen_shape;

typedef struct ws_attngen_flash_cfg {
  uint32_t br; /* Q rows per CTA = threads per CTA, one row per thread */
  uint32_t bc; /* K/V rows per streamed tile */
} ws_attngen_flash_cfg;

/* ---- naive: scores, softmax (models/kgen/nngen.h), P V ---------------------------- */

typedef enum ws_attngen_stage {
  WS_ATTNGEN_SCORES,  /* S[h][i][j] = scale * Q_h[i] . K_h[j] */
  WS_ATTNGEN_SOFTMAX, /* P = softmax of each row of S, in place */
  WS_ATTNGEN_PV,      /* O[i][h*dh + c] = sum_j P[h][i][j] V_h[j][c] */
  WS_ATTNGEN_STAGE_COUNT
} ws_attngen_stage;

ws_status ws_attngen_scores_source(ws_ctx *ctx, char **out);
ws_status ws_attngen_pv_source(ws_ctx *ctx, char **out);
/* Grid and block of one naive stage for a shape. */
ws_status ws_attngen_naive_geometry(ws_ctx *ctx, const ws_attngen_shape *s, ws_attngen_stage stage,
                                    ws_dim3 *grid, ws_dim3 *block);
/* Runs one stage, so a caller can read the device's counters after each. */
ws_status ws_attngen_naive_stage_run(ws_device *dev, const ws_attngen_shape *s, ws_attngen_stage stage,
                                     uint64_t qkv, uint64_t scores, uint64_t out, ws_launch_stats *stats);
/* Runs the three stages; `scores` is a device buffer of batch*H*T*T floats that
 * ends holding P. stats (may be NULL) receives one entry per stage. */
ws_status ws_attngen_naive_run(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv, uint64_t scores,
                               uint64_t out, ws_launch_stats stats[WS_ATTNGEN_STAGE_COUNT]);

/* ---- flash ------------------------------------------------------------------- */

/* Registers per thread and static shared bytes per CTA the flash kernel uses. */
uint32_t ws_attngen_flash_regs(uint32_t head_dim, const ws_attngen_flash_cfg *fc);
uint32_t ws_attngen_flash_smem_bytes(uint32_t head_dim, const ws_attngen_flash_cfg *fc);
/* Bc when none is given: the largest power of two up to 64 whose kernel for
 * head_dim and br needs at most 255 registers per thread (the ISA's limit;
 * the kernel takes at least 36 + 3*dh + Bc), so the default builds for
 * every head_dim the kernel takes: 64 up to dh 32, 16 at dh 64. 64 for a
 * head_dim the kernel cannot be built for (validation names it). */
uint32_t ws_attngen_flash_default_bc(uint32_t head_dim, uint32_t br);
/* Refuses, with the reason, a head_dim or (Br, Bc) that the kernel cannot be
 * built for or that does not fit the preset's registers, shared memory or
 * threads per CTA. */
ws_status ws_attngen_flash_validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                    const ws_attngen_flash_cfg *fc);
/* The kernel for one image; ws_attngen_flash_run launches a text with six
 * more setup instructions (image n = ctaid.z moves QKV and O on by n*T
 * rows) when the shape has a batch. */
ws_status ws_attngen_flash_source(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                  const ws_attngen_flash_cfg *fc, char **out);
/* grid (ceil(T / Br), H, batch), block (Br). */
ws_status ws_attngen_flash_geometry(ws_ctx *ctx, const ws_attngen_shape *s, const ws_attngen_flash_cfg *fc,
                                    ws_dim3 *grid, ws_dim3 *block);
ws_status ws_attngen_flash_run(ws_device *dev, const ws_attngen_shape *s, const ws_attngen_flash_cfg *fc,
                               uint64_t qkv, uint64_t out, ws_launch_stats *stats);

#endif
