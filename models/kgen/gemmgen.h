/* gemmgen.h - a generator of SGEMM kernels, C = A * B (+ bias, GELU,
 * + residual), emitted as readable .wsa text, one kernel per step of the
 * classic optimisation ladder (naive -> coalesced -> shared-memory tiles ->
 * 1-D and 2-D register blocking -> 128-bit accesses -> warp tiles -> async
 * double-buffered copies -> tensor cores).
 *
 * Design: a config is plain data ({variant, tile sizes, threads, epilogue});
 * ws_gemmgen_check refuses every config the emitter cannot turn into a
 * correct kernel, naming the reason, so the emitter itself never fails on a
 * checked config. M, N and K are kernel parameters, not baked into the text:
 * one kernel runs every shape, bounds are checked with predicates. All
 * matrices are row-major fp32 in device memory; the mma step converts A and
 * B to binary16 as it stages them through shared memory and accumulates in
 * fp32. */
#ifndef WS_GEMMGEN_H
#define WS_GEMMGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "sim/common/config.h"
#include "sim/host/device.h"

typedef enum ws_gemmgen_variant {
  WS_GEMMGEN_NAIVE,       /* one thread per output, consecutive threads walk rows (uncoalesced) */
  WS_GEMMGEN_COALESCED,   /* one thread per output, consecutive threads walk columns */
  WS_GEMMGEN_SMEM,        /* bm x bk and bk x bn tiles staged in shared memory */
  WS_GEMMGEN_BLOCKTILE1D, /* each thread computes tm outputs of one column */
  WS_GEMMGEN_BLOCKTILE2D, /* each thread computes a tm x tn block */
  WS_GEMMGEN_VECTORIZED,  /* 128-bit global loads, A stored transposed, 128-bit shared reads */
  WS_GEMMGEN_WARPTILE,    /* warps own wm x wn tiles; lanes read adjacent 16-byte chunks */
  WS_GEMMGEN_ASYNC,       /* LDGSTS copies into two shared-memory stages (DEPBAR) */
  WS_GEMMGEN_MMA,         /* HMMA.16816 on binary16 copies of A and B, fp32 accumulation */
  WS_GEMMGEN_VARIANT_COUNT
} ws_gemmgen_variant;

/* Epilogue flags, applied in this order: acc (+ bias[col]) -> GELU -> (+ R[row][col]). */
enum {
  WS_GEMMGEN_EPI_BIAS = 1u << 0,     /* + bias[N], broadcast over rows */
  WS_GEMMGEN_EPI_GELU = 1u << 1,     /* 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) */
  WS_GEMMGEN_EPI_RESIDUAL = 1u << 2, /* + R[M,N] */
  WS_GEMMGEN_EPI_ALL = 7u
};

typedef struct ws_gemmgen_cfg {
  ws_gemmgen_variant variant;
  uint32_t bm, bn, bk; /* CTA tile of C (bm x bn) and the k depth staged per step */
  uint32_t tm, tn;     /* outputs per thread (rows x columns) in one register block */
  uint32_t wm, wn;     /* warp tile (warptile, async, mma) */
  uint32_t threads;    /* threads per CTA */
  uint32_t epilogue;   /* WS_GEMMGEN_EPI_* flags */
} ws_gemmgen_cfg;

/* The largest M, N and K a kernel is run for. */
#define WS_GEMMGEN_DIM_MAX 65536u

/* Device buffers and shape of one product. bias and res may be 0 when the
 * config's epilogue does not use them. */
typedef struct ws_gemmgen_problem {
  uint32_t m, n, k;
  uint64_t a, b, c, bias, res;
} ws_gemmgen_problem;

/* "naive", "coalesced", ...; "?" outside the enum. */
const char *ws_gemmgen_variant_name(ws_gemmgen_variant v);
/* WS_ERR_INVALID listing the accepted names when `name` is none of them. */
ws_status ws_gemmgen_variant_parse(ws_ctx *ctx, const char *name, ws_gemmgen_variant *out);

/* Which tile fields the variant's kernel reads: bm and bn always; bk from
 * smem on; tm and tn for the register-blocked steps; wm and wn from
 * warptile on. */
bool ws_gemmgen_uses_k_tiles(ws_gemmgen_variant v);
bool ws_gemmgen_uses_thread_tile(ws_gemmgen_variant v);
bool ws_gemmgen_uses_warp_tile(ws_gemmgen_variant v);
/* The same by field, in the order the tile flags go: bm, bn, bk, tm, tn,
 * wm, wn, threads (0 to 7); false past them. */
#define WS_GEMMGEN_TILE_FIELDS 8u
bool ws_gemmgen_uses_tile(ws_gemmgen_variant v, uint32_t field);

/* A sensible config for the variant (no epilogue). */
ws_gemmgen_cfg ws_gemmgen_defaults(ws_gemmgen_variant v);
/* The threads per CTA the variant's kernel needs for cfg's tiles (bm*bn for
 * one output per thread, one thread per tm x tn block, 32 per wm x wn warp
 * tile); 0 when a tile it divides by is 0 (ws_gemmgen_check then names the
 * problem). Lets a caller change tiles without working out --threads. */
uint32_t ws_gemmgen_implied_threads(const ws_gemmgen_cfg *cfg);
/* "naive bm=32 bn=32 threads=1024" / "... bk=8 tm=8 tn=8 ..." (the fields
 * the variant uses, then "+bias+gelu+residual"). */
void ws_gemmgen_describe(const ws_gemmgen_cfg *cfg, char *buf, size_t buf_bytes);

/* WS_OK when cfg yields a correct kernel that launches on `gpu`; otherwise
 * WS_ERR_INVALID (or WS_ERR_LIMIT for a device limit) with the reason. */
ws_status ws_gemmgen_check(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, const ws_gpu_cfg *gpu);
/* Registers per thread and static shared memory of the kernel cfg yields;
 * WS_ERR_INVALID when cfg breaks a structural rule (device limits are not
 * looked at). */
ws_status ws_gemmgen_resources(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t *regs_per_thread,
                               uint32_t *smem_bytes);

/* Emits the kernel as .wsa text (*wsa_text is malloc'd, the caller frees).
 * The kernel is named "gemm_<variant>" and takes params A, B, C, [bias],
 * [R], M, N, K. Runs ws_gemmgen_check against the default preset's
 * structural rules only (no device limits). */
ws_status ws_gemmgen_emit(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, char **wsa_text);
/* Emits and assembles. */
ws_status ws_gemmgen_build(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, ws_program **out);

/* Grid (ceil(N/bn), ceil(M/bm), 1), block (threads, 1, 1); the kernels use
 * static shared memory only, so *dyn_smem_bytes is 0. */
void ws_gemmgen_launch_geometry(const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, ws_dim3 *grid,
                                ws_dim3 *block, uint32_t *dyn_smem_bytes);

/* Checks cfg against the device's preset, emits, assembles and launches on
 * prob's buffers (in the device's current mode). stats may be NULL. */
ws_status ws_gemmgen_run(ws_device *dev, const ws_gemmgen_cfg *cfg, const ws_gemmgen_problem *prob,
                         ws_launch_stats *stats);

/* Host reference for checking a run: ref = epilogue(A*B) with cblas_sgemm
 * and the epilogue in double, and bound[i] the largest |kernel - ref| a
 * correct kernel can show for output i (derived in gemmgen_ref.c: fp32
 * accumulation, binary16 inputs for mma, the epilogue's roundings and the
 * MUFU.EX2/RCP errors). bias / res may be NULL when unused. */
ws_status ws_gemmgen_reference(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, uint32_t k,
                               const float *a, const float *b, const float *bias, const float *res,
                               float *ref, double *bound);

#endif
