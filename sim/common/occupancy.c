/* occupancy.c - CTAs per SM by the CUDA occupancy rules (occupancy.h has
 * the formulas).
 *
 * Design: each resource's limit is computed on its own into ctas_by[] and the
 * minimum wins, exactly as the CUDA Occupancy Calculator tabulates them, so
 * `warpscope` can show every limit and not only the binding one. A resource
 * the kernel does not use (no registers, no shared memory after the reserve)
 * allows UINT32_MAX CTAs: it never limits, and it never wins a tie against
 * the max-CTAs rule that really binds. */
#include "sim/common/occupancy.h"

#include <inttypes.h>

#include <stdio.h>
#include <stdlib.h>

static uint32_t round_up(uint32_t v, uint32_t unit) { return unit ? (v + unit - 1) / unit * unit : v; }

static const char *const limiter_names[WS_OCC_COUNT] = {"warps", "registers", "shared memory", "CTAs"};

const char *ws_occupancy_limiter_name(ws_occ_limiter l) { return l < WS_OCC_COUNT ? limiter_names[l] : "?"; }

/* Registers: whole warps per sub-partition, then whole CTAs over all of them. */
static uint32_t ctas_by_regs(const ws_gpu_cfg *cfg, uint32_t regs_per_warp, uint32_t warps_per_cta) {
  if (regs_per_warp == 0) return UINT32_MAX;
  uint32_t subs = cfg->sm.subpartitions ? cfg->sm.subpartitions : 1;
  uint32_t warps_per_sub = cfg->regfile.regs_per_sm / subs / regs_per_warp;
  return warps_per_sub * subs / warps_per_cta;
}

static void compute_limits(const ws_gpu_cfg *cfg, uint32_t threads, uint32_t regs, uint32_t smem,
                           ws_occupancy *o) {
  o->warps_per_cta = (threads + 31) / 32;
  o->regs_per_warp = round_up(regs * 32u, cfg->regfile.alloc_unit_regs);
  uint64_t smem_total = (uint64_t)smem + cfg->smem.reserved_per_block_bytes;
  o->smem_per_cta_bytes = smem_total > UINT32_MAX - 65536u
                              ? UINT32_MAX
                              : round_up((uint32_t)smem_total, cfg->smem.alloc_unit_bytes);
  o->ctas_by[WS_OCC_WARPS] = cfg->sm.max_warps_per_sm / o->warps_per_cta;
  o->ctas_by[WS_OCC_REGS] = ctas_by_regs(cfg, o->regs_per_warp, o->warps_per_cta);
  o->ctas_by[WS_OCC_SMEM] =
      o->smem_per_cta_bytes ? cfg->smem.per_sm_bytes / o->smem_per_cta_bytes : UINT32_MAX;
  o->ctas_by[WS_OCC_CTAS] = cfg->sm.max_ctas_per_sm;
  /* per-CTA maxima: a CTA over them cannot launch whatever the SM holds */
  if (threads > cfg->sm.max_threads_per_block) o->ctas_by[WS_OCC_WARPS] = 0;
  if (regs > cfg->regfile.max_regs_per_thread) o->ctas_by[WS_OCC_REGS] = 0;
  if (smem > cfg->smem.max_per_block_bytes) o->ctas_by[WS_OCC_SMEM] = 0;
}

static void pick_minimum(const ws_gpu_cfg *cfg, ws_occupancy *o) {
  o->limiter = WS_OCC_WARPS;
  for (int l = 1; l < WS_OCC_COUNT; l++)
    if (o->ctas_by[l] < o->ctas_by[o->limiter]) o->limiter = (ws_occ_limiter)l;
  o->ctas_per_sm = o->ctas_by[o->limiter];
  o->active_warps_per_sm = o->ctas_per_sm * o->warps_per_cta;
  o->occupancy = cfg->sm.max_warps_per_sm ? (double)o->active_warps_per_sm / cfg->sm.max_warps_per_sm : 0.0;
}

/* The register limit's numbers: per sub-partition, as the hardware
 * allocates, and, when the CTA's registers exceed the SM's, the per-block
 * limit CUDA states (its registers per block are the SM's on every preset). */
static void explain_regs(const ws_gpu_cfg *cfg, const ws_occupancy *o, uint32_t regs, char *buf, size_t n) {
  uint32_t subs = cfg->sm.subpartitions ? cfg->sm.subpartitions : 1;
  uint32_t per_sub = cfg->regfile.regs_per_sm / subs, room = per_sub / o->regs_per_warp;
  int len = snprintf(buf, n,
                     "limiter: registers (kernel uses %u registers/thread: %u warps of %u registers after "
                     "rounding to %u; each of %u sub-partitions has %u registers, room for %u such warp%s, "
                     "%u in all",
                     regs, o->warps_per_cta, o->regs_per_warp, cfg->regfile.alloc_unit_regs, subs, per_sub,
                     room, room == 1 ? "" : "s", room * subs);
  uint64_t cta_regs = (uint64_t)o->warps_per_cta * o->regs_per_warp;
  size_t at = len > 0 && (size_t)len < n ? (size_t)len : n - 1;
  if (cta_regs > cfg->regfile.regs_per_sm)
    snprintf(buf + at, n - at, "; the CTA's %" PRIu64 " registers exceed the %u a block may hold)", cta_regs,
             cfg->regfile.regs_per_sm);
  else
    snprintf(buf + at, n - at, ")");
}

/* The reason a CTA does not fit, with the numbers behind it. */
static void explain(const ws_gpu_cfg *cfg, uint32_t threads, uint32_t regs, uint32_t smem,
                    const ws_occupancy *o, char *buf, size_t n) {
  const char *name = ws_occupancy_limiter_name(o->limiter);
  switch (o->limiter) {
  case WS_OCC_WARPS:
    snprintf(
        buf, n,
        "limiter: %s (a CTA of %u threads is %u warps; an SM holds %u warps and a CTA at most %u threads)",
        name, threads, o->warps_per_cta, cfg->sm.max_warps_per_sm, cfg->sm.max_threads_per_block);
    break;
  case WS_OCC_REGS:
    if (regs > cfg->regfile.max_regs_per_thread)
      snprintf(buf, n, "limiter: %s (the kernel uses %u registers/thread, more than the %u allowed)", name,
               regs, cfg->regfile.max_regs_per_thread);
    else
      explain_regs(cfg, o, regs, buf, n);
    break;
  case WS_OCC_SMEM:
    snprintf(buf, n,
             "limiter: %s (a CTA asks %u B + %u B reserve = %u B allocated; an SM has %u B, a CTA may ask at "
             "most %u B)",
             name, smem, cfg->smem.reserved_per_block_bytes, o->smem_per_cta_bytes, cfg->smem.per_sm_bytes,
             cfg->smem.max_per_block_bytes);
    break;
  default: snprintf(buf, n, "limiter: %s (at most %u CTAs per SM)", name, cfg->sm.max_ctas_per_sm); break;
  }
}

ws_status ws_occupancy_compute(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t threads_per_cta,
                               uint32_t regs_per_thread, uint32_t smem_per_cta_bytes, ws_occupancy *out) {
  ws_occupancy o = {0};
  if (threads_per_cta == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "a CTA needs at least one thread");
  compute_limits(cfg, threads_per_cta, regs_per_thread, smem_per_cta_bytes, &o);
  pick_minimum(cfg, &o);
  *out = o;
  if (o.ctas_per_sm > 0) return WS_OK;
  char why[512];
  explain(cfg, threads_per_cta, regs_per_thread, smem_per_cta_bytes, &o, why, sizeof why);
  return ws_ctx_fail(
      ctx, WS_ERR_LIMIT,
      "too many resources requested for launch: a CTA of %u threads, %u registers/thread and %u B "
      "shared memory does not fit on an SM of %s; %s",
      threads_per_cta, regs_per_thread, smem_per_cta_bytes, cfg->gpu.name, why);
}

/* ---- curves ------------------------------------------------------------------------------------- */

static const char *const axis_names[WS_OCC_AXIS_COUNT] = {"threads", "registers", "shared memory"};

const char *ws_occupancy_axis_name(ws_occ_axis axis) {
  return axis < WS_OCC_AXIS_COUNT ? axis_names[axis] : "?";
}

/* The axis's first value, step and last value. */
static void axis_range(const ws_gpu_cfg *cfg, ws_occ_axis axis, uint32_t *lo, uint32_t *step, uint32_t *hi) {
  switch (axis) {
  case WS_OCC_AXIS_THREADS: *lo = 32, *step = 32, *hi = cfg->sm.max_threads_per_block; break;
  case WS_OCC_AXIS_REGS: *lo = 1, *step = 1, *hi = cfg->regfile.max_regs_per_thread; break;
  default:
    *lo = 0, *step = cfg->smem.alloc_unit_bytes ? cfg->smem.alloc_unit_bytes : 1;
    *hi = cfg->smem.max_per_block_bytes;
    break;
  }
}

ws_status ws_occupancy_curve(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_occ_axis axis, uint32_t threads_per_cta,
                             uint32_t regs_per_thread, uint32_t smem_per_cta_bytes, ws_occ_point **points,
                             size_t *npoints) {
  *points = NULL;
  *npoints = 0;
  if (axis >= WS_OCC_AXIS_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "occupancy curve: unknown axis %d", axis);
  uint32_t lo, step, hi;
  axis_range(cfg, axis, &lo, &step, &hi);
  if (hi < lo) return WS_OK;
  size_t n = (size_t)(hi - lo) / step + 1;
  ws_occ_point *p = calloc(n, sizeof *p);
  if (!p) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for an occupancy curve of %zu points", n);
  for (size_t i = 0; i < n; i++) {
    uint32_t x = lo + (uint32_t)i * step;
    uint32_t t = axis == WS_OCC_AXIS_THREADS ? x : threads_per_cta;
    uint32_t r = axis == WS_OCC_AXIS_REGS ? x : regs_per_thread;
    uint32_t s = axis == WS_OCC_AXIS_SMEM ? x : smem_per_cta_bytes;
    p[i].x = x;
    compute_limits(cfg, t ? t : 1, r, s, &p[i].occ);
    pick_minimum(cfg, &p[i].occ);
  }
  *points = p;
  *npoints = n;
  return WS_OK;
}
