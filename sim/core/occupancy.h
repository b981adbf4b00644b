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

#include <stdint.h>

#include "base/ctx.h"
#include "sim/core/config.h"

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

#endif
