/* occupancy.h - how many CTAs of a kernel fit on one SM, by the CUDA
 * occupancy rules for the preset's compute capability (the logic of
 * cuda_occupancy.h / the CUDA Occupancy Calculator):
 *   warps per CTA = ceil(threads / 32)
 *   registers: per warp, regs/thread * 32 rounded up to the allocation unit
 *     (256); the register file is split over the sub-partitions, so
 *     CTAs = floor(floor(regs_per_sm / subpartitions / regs_per_warp)
 *                   * subpartitions / warps_per_cta)
 *   shared memory: per CTA, (static + dynamic + the per-block reserve)
 *     rounded up to the allocation unit; CTAs = floor(smem_per_sm / that)
 *   warps: floor(max_warps_per_sm / warps_per_cta); CTAs: max_ctas_per_sm
 * The result is the minimum; 0 means the launch fails, naming the limiter. */
#ifndef WS_OCCUPANCY_H
#define WS_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"

typedef enum ws_occ_limiter {
  WS_OCC_WARPS, /* max warps (threads) per SM */
  WS_OCC_REGS,  /* register file */
  WS_OCC_SMEM,  /* shared memory */
  WS_OCC_CTAS,  /* max resident CTAs per SM */
  WS_OCC_COUNT
} ws_occ_limiter;

typedef struct ws_occupancy {
  uint32_t ctas_per_sm; /* 0: the CTA does not fit */
  uint32_t warps_per_cta;
  uint32_t active_warps_per_sm;   /* ctas_per_sm * warps_per_cta */
  double occupancy;               /* active_warps_per_sm / max_warps_per_sm */
  ws_occ_limiter limiter;         /* the resource that gives the minimum (first in enum order on ties) */
  uint32_t ctas_by[WS_OCC_COUNT]; /* CTAs per SM each resource alone allows */
  uint32_t regs_per_warp;         /* allocated, after rounding */
  uint32_t smem_per_cta_bytes;    /* allocated, after the reserve and rounding */
} ws_occupancy;

/* Fills *out. When ctas_per_sm is 0 returns WS_ERR_LIMIT with a message
 * naming the limiter and the numbers, as a failed CUDA launch would
 * ("too many resources requested for launch: ..."). */
ws_status ws_occupancy_compute(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t threads_per_cta,
                               uint32_t regs_per_thread, uint32_t smem_per_cta_bytes, ws_occupancy *out);
const char *ws_occupancy_limiter_name(ws_occ_limiter l); /* "warps", "registers", ... */

/* The CUDA Occupancy Calculator's three curves: occupancy as one resource
 * of the CTA varies and the other two stay as given. */
typedef enum ws_occ_axis {
  WS_OCC_AXIS_THREADS, /* threads per CTA: 32 to max_threads_per_block, by 32 */
  WS_OCC_AXIS_REGS,    /* registers per thread: 1 to max_regs_per_thread */
  WS_OCC_AXIS_SMEM,    /* shared memory per CTA: 0 to max_per_block_bytes, by the allocation unit */
  WS_OCC_AXIS_COUNT
} ws_occ_axis;

typedef struct ws_occ_point {
  uint32_t x;       /* the varied resource's value */
  ws_occupancy occ; /* ctas_per_sm 0 where the CTA does not fit */
} ws_occ_point;

/* The points of one curve, in rising x, into *points (malloc'd; the
 * caller frees) and *npoints; a GPU without threads, registers or
 * shared memory to vary gives no points. */
ws_status ws_occupancy_curve(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_occ_axis axis, uint32_t threads_per_cta,
                             uint32_t regs_per_thread, uint32_t smem_per_cta_bytes, ws_occ_point **points,
                             size_t *npoints);
const char *ws_occupancy_axis_name(ws_occ_axis axis); /* "threads", "registers", "shared memory" */

#endif
