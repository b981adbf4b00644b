/* test_occupancy.c - CTAs per SM by the CUDA occupancy rules, against
 * values computed by hand (in the comments) for compute capability 7.0
 * (v100), 8.0 (a100), 8.6 (rtx-a6000) and 9.0 (h100).
 *
 * Per-SM figures used below (CUDA C++ Programming Guide):
 *   cc 7.0: 64 warps, 32 CTAs, 65536 regs, 96 KB smem, no reserve, 256 B unit
 *   cc 8.0: 64 warps, 32 CTAs, 65536 regs, 164 KB smem, 1 KB reserve, 128 B unit
 *   cc 8.6: 48 warps, 16 CTAs, 65536 regs, 100 KB smem (99 KB/CTA), 1 KB reserve
 *   cc 9.0: 64 warps, 32 CTAs, 65536 regs, 228 KB smem, 1 KB reserve
 * Registers: 16384 per sub-partition, allocated per warp in units of 256. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/common/occupancy.h"

static ws_gpu_cfg preset(const char *name) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(NULL, name, &cfg), WS_OK, "preset %s", name);
  return cfg;
}

static ws_occupancy occ(const char *name, uint32_t threads, uint32_t regs, uint32_t smem) {
  ws_gpu_cfg cfg = preset(name);
  ws_ctx *ctx = ws_ctx_create();
  ws_occupancy o;
  cr_assert_eq(ws_occupancy_compute(ctx, &cfg, threads, regs, smem, &o), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  return o;
}

/* The message of a launch that cannot fit; checks the limiter too. */
static void expect_fail(const char *name, uint32_t threads, uint32_t regs, uint32_t smem, ws_occ_limiter lim,
                        const char *msg) {
  ws_gpu_cfg cfg = preset(name);
  ws_ctx *ctx = ws_ctx_create();
  ws_occupancy o;
  cr_assert_eq(ws_occupancy_compute(ctx, &cfg, threads, regs, smem, &o), WS_ERR_LIMIT);
  cr_assert_eq(o.ctas_per_sm, 0);
  cr_assert_eq(o.limiter, lim, "limiter %s", ws_occupancy_limiter_name(o.limiter));
  cr_assert_str_eq(ws_errmsg(ctx), msg);
  ws_ctx_destroy(ctx);
}

Test(occupancy, cc80_256_threads_64_regs_is_register_bound) {
  /* 8 warps; 64 x 32 = 2048 regs/warp; 16384 / 2048 = 8 warps per sub-partition,
   * 32 in all -> 4 CTAs. warps: 64 / 8 = 8; smem: 0 + 1024 reserve -> 167936 / 1024 = 164 */
  ws_occupancy o = occ("a100", 256, 64, 0);
  cr_assert_eq(o.warps_per_cta, 8);
  cr_assert_eq(o.regs_per_warp, 2048);
  cr_assert_eq(o.smem_per_cta_bytes, 1024);
  cr_assert_eq(o.ctas_by[WS_OCC_WARPS], 8);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], 4);
  cr_assert_eq(o.ctas_by[WS_OCC_SMEM], 164);
  cr_assert_eq(o.ctas_by[WS_OCC_CTAS], 32);
  cr_assert_eq(o.ctas_per_sm, 4);
  cr_assert_eq(o.limiter, WS_OCC_REGS);
  cr_assert_eq(o.active_warps_per_sm, 32);
  cr_assert_float_eq(o.occupancy, 0.5, 1e-12);
}

Test(occupancy, cc80_48k_smem_is_smem_bound) {
  /* 4 warps; 1024 regs/warp -> 16 per sub-partition, 64 -> 16 CTAs; warps 64 / 4 = 16;
   * smem 49152 + 1024 = 50176 (a multiple of 128) -> 167936 / 50176 = 3.35 -> 3 */
  ws_occupancy o = occ("a100", 128, 32, 48 * 1024);
  cr_assert_eq(o.smem_per_cta_bytes, 50176);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], 16);
  cr_assert_eq(o.ctas_by[WS_OCC_SMEM], 3);
  cr_assert_eq(o.ctas_per_sm, 3);
  cr_assert_eq(o.limiter, WS_OCC_SMEM);
  cr_assert_eq(o.active_warps_per_sm, 12);
  cr_assert_float_eq(o.occupancy, 12.0 / 64.0, 1e-12);
}

Test(occupancy, cc70_48k_smem_has_no_reserve) {
  /* smem 49152 + 0 -> 98304 / 49152 = 2 exactly */
  ws_occupancy o = occ("v100", 128, 32, 48 * 1024);
  cr_assert_eq(o.smem_per_cta_bytes, 49152);
  cr_assert_eq(o.ctas_per_sm, 2);
  cr_assert_eq(o.limiter, WS_OCC_SMEM);
}

Test(occupancy, reserve_and_granularity) {
  /* 1 B: cc 8.0 1 + 1024 -> 1152 (128 B units) -> 167936 / 1152 = 145.8 -> 145;
   *      cc 7.0 1 -> 256 (256 B units) -> 98304 / 256 = 384 */
  cr_assert_eq(occ("a100", 32, 0, 1).smem_per_cta_bytes, 1152);
  cr_assert_eq(occ("a100", 32, 0, 1).ctas_by[WS_OCC_SMEM], 145);
  cr_assert_eq(occ("v100", 32, 0, 1).smem_per_cta_bytes, 256);
  cr_assert_eq(occ("v100", 32, 0, 1).ctas_by[WS_OCC_SMEM], 384);
  /* 1000 B: cc 7.0 -> 1024 -> 96 CTAs; cc 8.0 2024 -> 2048 -> 82 */
  cr_assert_eq(occ("v100", 32, 0, 1000).smem_per_cta_bytes, 1024);
  cr_assert_eq(occ("v100", 32, 0, 1000).ctas_by[WS_OCC_SMEM], 96);
  cr_assert_eq(occ("a100", 32, 0, 1000).smem_per_cta_bytes, 2048);
  cr_assert_eq(occ("a100", 32, 0, 1000).ctas_by[WS_OCC_SMEM], 82);
  /* 0 B: cc 8.0 still allocates the 1024 B reserve (164 CTAs); cc 7.0 allocates nothing */
  cr_assert_eq(occ("a100", 32, 0, 0).smem_per_cta_bytes, 1024);
  cr_assert_eq(occ("a100", 32, 0, 0).ctas_by[WS_OCC_SMEM], 164);
  cr_assert_eq(occ("v100", 32, 0, 0).smem_per_cta_bytes, 0);
  cr_assert_eq(occ("v100", 32, 0, 0).ctas_by[WS_OCC_SMEM], UINT32_MAX);
}

Test(occupancy, one_warp_ctas_hit_the_cta_limit) {
  /* 1 warp, 0 registers: warps 64, regs unlimited, smem 164 (8.0) -> max CTAs 32 binds */
  ws_occupancy o = occ("a100", 32, 0, 0);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], UINT32_MAX);
  cr_assert_eq(o.ctas_per_sm, 32);
  cr_assert_eq(o.limiter, WS_OCC_CTAS);
  cr_assert_float_eq(o.occupancy, 0.5, 1e-12);
  /* cc 8.6: 16 CTAs of 1 warp = 16 of 48 warps */
  o = occ("rtx-a6000", 32, 16, 0);
  cr_assert_eq(o.ctas_per_sm, 16);
  cr_assert_eq(o.limiter, WS_OCC_CTAS);
  cr_assert_float_eq(o.occupancy, 16.0 / 48.0, 1e-12);
}

Test(occupancy, cc86_has_48_warps) {
  /* 512 threads = 16 warps: 48 / 16 = 3 (warps); regs 1024/warp -> 64 warps -> 4 */
  ws_occupancy o = occ("rtx-a6000", 512, 32, 0);
  cr_assert_eq(o.ctas_by[WS_OCC_WARPS], 3);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], 4);
  cr_assert_eq(o.ctas_per_sm, 3);
  cr_assert_eq(o.limiter, WS_OCC_WARPS);
  cr_assert_float_eq(o.occupancy, 1.0, 1e-12);
  /* the same CTA on cc 8.0: warps 64 / 16 = 4 ties regs 4; ties go to the first in enum order */
  o = occ("a100", 512, 32, 0);
  cr_assert_eq(o.ctas_per_sm, 4);
  cr_assert_eq(o.limiter, WS_OCC_WARPS);
}

Test(occupancy, cc86_49k_and_99k_smem) {
  /* 49 KiB: 50176 + 1024 = 51200 -> 102400 / 51200 = 2 */
  ws_occupancy o = occ("rtx-a6000", 128, 32, 49 * 1024);
  cr_assert_eq(o.smem_per_cta_bytes, 51200);
  cr_assert_eq(o.ctas_per_sm, 2);
  cr_assert_eq(o.limiter, WS_OCC_SMEM);
  /* 99 KB, the opt-in maximum: 101376 + 1024 = 102400 -> exactly 1 */
  o = occ("rtx-a6000", 128, 32, 99 * 1024);
  cr_assert_eq(o.ctas_per_sm, 1);
}

Test(occupancy, cc90_large_smem) {
  /* 256 threads (8 warps) x 128 regs: 4096 regs/warp -> 4 per sub-partition, 16 -> 2 CTAs;
   * 120 KiB: 122880 + 1024 = 123904 -> 233472 / 123904 = 1.88 -> 1 */
  ws_occupancy o = occ("h100", 256, 128, 120 * 1024);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], 2);
  cr_assert_eq(o.ctas_by[WS_OCC_SMEM], 1);
  cr_assert_eq(o.ctas_per_sm, 1);
  cr_assert_eq(o.limiter, WS_OCC_SMEM);
  /* 227 KB fits once: 232448 + 1024 = 233472 */
  cr_assert_eq(occ("h100", 256, 32, 227 * 1024).ctas_per_sm, 1);
}

Test(occupancy, registers_split_over_subpartitions) {
  /* 80 regs -> 2560/warp. Per sub-partition 16384 / 2560 = 6.4 -> 6, x 4 = 24 warps;
   * the whole file alone would give 65536 / 2560 = 25.6 -> 25. One-warp CTAs: 24. */
  ws_occupancy o = occ("a100", 32, 80, 0);
  cr_assert_eq(o.regs_per_warp, 2560);
  cr_assert_eq(o.ctas_by[WS_OCC_REGS], 24);
  cr_assert_eq(o.ctas_per_sm, 24);
  cr_assert_eq(o.limiter, WS_OCC_REGS);
  /* 33 regs -> 1056 rounds up to 1280; 16384 / 1280 = 12.8 -> 12, 48 warps; 256 threads -> 6 */
  o = occ("a100", 256, 33, 0);
  cr_assert_eq(o.regs_per_warp, 1280);
  cr_assert_eq(o.ctas_per_sm, 6);
  /* partial warps count whole: 33 threads = 2 warps */
  cr_assert_eq(occ("a100", 33, 0, 0).warps_per_cta, 2);
}

Test(occupancy, launch_fails_on_registers) {
  /* 1024 threads = 32 warps; 255 x 32 = 8160 -> 8192/warp; 16384 / 8192 = 2 per
   * sub-partition, 8 in all < 32 -> 0 CTAs */
  expect_fail(
      "a100", 1024, 255, 0, WS_OCC_REGS,
      "too many resources requested for launch: a CTA of 1024 threads, 255 registers/thread and 0 B shared "
      "memory does not fit on an SM of a100; limiter: registers (kernel uses 255 registers/thread: 32 warps "
      "of 8192 registers after rounding to 256; each of 4 sub-partitions has 16384 registers, room for 2 "
      "such warps, 8 in all; the CTA's 262144 registers exceed the 65536 a block may hold)");
  /* 800 threads = 25 warps of 80 x 32 = 2560 registers: 64000 fit in the
   * SM's 65536, but a sub-partition holds 6 such warps, 24 in all */
  expect_fail(
      "a100", 800, 80, 0, WS_OCC_REGS,
      "too many resources requested for launch: a CTA of 800 threads, 80 registers/thread and 0 B "
      "shared memory does not fit on an SM of a100; limiter: registers (kernel uses 80 registers/thread: "
      "25 warps of 2560 registers after rounding to 256; each of 4 sub-partitions has 16384 registers, "
      "room for 6 such warps, 24 in all)");
  expect_fail(
      "v100", 32, 256, 0, WS_OCC_REGS,
      "too many resources requested for launch: a CTA of 32 threads, 256 registers/thread and 0 B shared "
      "memory does not fit on an SM of v100; limiter: registers (the kernel uses 256 registers/thread, more "
      "than the 255 allowed)");
}

Test(occupancy, launch_fails_on_smem) {
  /* 100 KB on cc 8.6 exceeds the 99 KB per-CTA maximum */
  expect_fail(
      "rtx-a6000", 128, 32, 100 * 1024, WS_OCC_SMEM,
      "too many resources requested for launch: a CTA of 128 threads, 32 registers/thread and 102400 B "
      "shared memory does not fit on an SM of rtx-a6000; limiter: shared memory (a CTA asks 102400 B + 1024 "
      "B reserve = 103424 B allocated; an SM has 102400 B, a CTA may ask at most 101376 B)");
  /* 96 KB + 1 B on cc 7.0 */
  expect_fail(
      "v100", 64, 16, 98305, WS_OCC_SMEM,
      "too many resources requested for launch: a CTA of 64 threads, 16 registers/thread and 98305 B "
      "shared memory does not fit on an SM of v100; limiter: shared memory (a CTA asks 98305 B + 0 B reserve "
      "= 98560 B allocated; an SM has 98304 B, a CTA may ask at most 98304 B)");
}

Test(occupancy, launch_fails_on_threads) {
  expect_fail(
      "a100", 2048, 16, 0, WS_OCC_WARPS,
      "too many resources requested for launch: a CTA of 2048 threads, 16 registers/thread and 0 B shared "
      "memory does not fit on an SM of a100; limiter: warps (a CTA of 2048 threads is 64 warps; an SM holds "
      "64 warps and a CTA at most 1024 threads)");
}

Test(occupancy, zero_threads_is_invalid) {
  ws_gpu_cfg cfg = preset("a100");
  ws_ctx *ctx = ws_ctx_create();
  ws_occupancy o;
  cr_assert_eq(ws_occupancy_compute(ctx, &cfg, 0, 32, 0, &o), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "a CTA needs at least one thread");
  ws_ctx_destroy(ctx);
}

Test(occupancy, limiter_names) {
  cr_assert_str_eq(ws_occupancy_limiter_name(WS_OCC_WARPS), "warps");
  cr_assert_str_eq(ws_occupancy_limiter_name(WS_OCC_REGS), "registers");
  cr_assert_str_eq(ws_occupancy_limiter_name(WS_OCC_SMEM), "shared memory");
  cr_assert_str_eq(ws_occupancy_limiter_name(WS_OCC_CTAS), "CTAs");
}

/* The curve's point at x (the axis rises by a fixed step). */
static const ws_occ_point *at(const ws_occ_point *p, size_t n, uint32_t x) {
  for (size_t i = 0; i < n; i++)
    if (p[i].x == x) return &p[i];
  cr_assert_fail("no point at %u", x);
  return NULL;
}

Test(occupancy, curve_of_registers_cc80) {
  /* 256 threads (8 warps): r registers -> ceil(32r / 256) x 256 per warp;
   * 16384 / that warps per sub-partition, x4 / 8 CTAs, at most 8 by warps */
  ws_gpu_cfg cfg = preset("a100");
  ws_occ_point *p;
  size_t n;
  cr_assert_eq(ws_occupancy_curve(NULL, &cfg, WS_OCC_AXIS_REGS, 256, 64, 0, &p, &n), WS_OK);
  cr_assert_eq(n, 255);
  cr_expect_eq(p[0].x, 1);
  cr_expect_eq(at(p, n, 32)->occ.active_warps_per_sm, 64); /* 1024/warp: 16 per sub-partition, 8 CTAs */
  cr_expect_eq(at(p, n, 32)->occ.limiter, WS_OCC_WARPS);
  cr_expect_eq(at(p, n, 33)->occ.active_warps_per_sm, 48); /* 1056 -> 1280: 12 per sub, 6 CTAs */
  cr_expect_eq(at(p, n, 40)->occ.active_warps_per_sm, 48);
  cr_expect_eq(at(p, n, 41)->occ.active_warps_per_sm, 40); /* 1312 -> 1536: 10 per sub, 5 CTAs */
  cr_expect_eq(at(p, n, 64)->occ.active_warps_per_sm, 32);
  cr_expect_eq(at(p, n, 64)->occ.limiter, WS_OCC_REGS);
  cr_expect_eq(at(p, n, 255)->occ.active_warps_per_sm, 8); /* 8160 -> 8192: 2 per sub, 1 CTA */
  free(p);
}

Test(occupancy, curve_of_threads_cc80) {
  ws_gpu_cfg cfg = preset("a100");
  ws_occ_point *p;
  size_t n;
  cr_assert_eq(ws_occupancy_curve(NULL, &cfg, WS_OCC_AXIS_THREADS, 256, 64, 0, &p, &n), WS_OK);
  cr_assert_eq(n, 32); /* 32 to 1024 by 32 */
  /* one warp of 64 registers: 8 per sub-partition -> 32 CTAs, tied with the CTA limit; the register
   * rule comes first */
  cr_expect_eq(p[0].occ.ctas_per_sm, 32);
  cr_expect_eq(p[0].occ.limiter, WS_OCC_REGS);
  cr_expect_eq(at(p, n, 1024)->occ.ctas_per_sm, 1); /* 32 warps: the 32 register-file warps */
  cr_expect_eq(at(p, n, 1024)->occ.active_warps_per_sm, 32);
  cr_expect_eq(at(p, n, 96)->occ.active_warps_per_sm, 30); /* 3 warps: 32 / 3 = 10 CTAs */
  free(p);
}

Test(occupancy, curve_of_shared_memory_cc80) {
  /* 256 threads, 32 registers: 8 CTAs by warps and registers; (s + 1024 reserve) rounded to 128 */
  ws_gpu_cfg cfg = preset("a100");
  ws_occ_point *p;
  size_t n;
  cr_assert_eq(ws_occupancy_curve(NULL, &cfg, WS_OCC_AXIS_SMEM, 256, 32, 0, &p, &n), WS_OK);
  cr_assert_eq(n, cfg.smem.max_per_block_bytes / 128 + 1);
  cr_expect_eq(p[0].x, 0);
  cr_expect_eq(p[0].occ.ctas_per_sm, 8);
  cr_expect_eq(at(p, n, 49152)->occ.ctas_per_sm, 3); /* 167936 / 50176 */
  cr_expect_eq(at(p, n, 49152)->occ.limiter, WS_OCC_SMEM);
  cr_expect_eq(p[n - 1].x, cfg.smem.max_per_block_bytes);
  cr_expect_eq(p[n - 1].occ.ctas_per_sm, 167936 / (cfg.smem.max_per_block_bytes + 1024));
  free(p);
}
