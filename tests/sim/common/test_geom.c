/* test_geom.c - the geometry config.c derives from the keys: every figure
 * of two presets worked out by hand from their INI values, the
 * re-derivation after --set and the edge cases of the derivation.
 *
 * Design: the expected numbers are computed in the comments from the
 * values in sim/presets/a100.ini and classroom.ini (plus the key table's
 * defaults for keys a preset omits), never by calling the code under test,
 * so a wrong formula cannot agree with itself. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/common/config.h"

static ws_gpu_cfg preset(const char *name) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(ctx, name, &c), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  return c;
}

/* a100.ini: 1410 MHz, 108 SMs; L1 28 KiB, 56 ways; L2 40960 KiB over 80
 * slices, 16 ways, 2 partitions, far extra 149; HBM 40 channels, 2048 B
 * rows, tRCD = tCL = tRP = 14000 ps, tRAS 34000 ps, 80 requests per DRAM
 * controller. Defaults: 128 B lines of 32 B sectors, 256 L1 MSHRs of 8
 * requests, 64 L2 MSHRs per slice, 64 crossbar packets per port. */
Test(geom, a100_by_hand) {
  ws_gpu_cfg c = preset("a100");
  const ws_gpu_geom *g = &c.geom;
  cr_expect_eq(g->l1_sets, 4);                /* 28 x 1024 / (56 x 128) = 28672 / 7168 */
  cr_expect_eq(g->line_shift, 7);             /* 2^7 = 128 */
  cr_expect_eq(g->sectors_per_line, 4);       /* 128 / 32 */
  cr_expect_eq(g->l2_bytes, 41943040ull);     /* 40960 x 1024 */
  cr_expect_eq(g->l2_slice_bytes, 524288ull); /* 41943040 / 80 = 512 KiB */
  cr_expect_eq(g->l2_sets_per_slice, 256);    /* 524288 / (16 x 128) */
  cr_expect_eq(g->l2_partitions, 2);
  cr_expect_eq(g->l2_far_extra_lat_cycles, 149);
  cr_expect_eq(g->hbm_lines_per_row, 16); /* 2048 / 128 */
  cr_expect_eq(g->hbm_t_rcd_cycles, 20);  /* 14000 x 1410 / 10^6 = 19.74, rounded up */
  cr_expect_eq(g->hbm_t_cl_cycles, 20);
  cr_expect_eq(g->hbm_t_rp_cycles, 20);
  cr_expect_eq(g->hbm_t_ras_cycles, 48); /* 34000 x 1410 / 10^6 = 47.94 */
  /* per SM 256 x (8 + 1) = 2304, x 108 = 248832; per slice 64 + 64 x (4 + 1) = 384,
   * x 80 = 30720; per channel 80 (a100.ini's queue), x 40 = 3200; plus 2 spare: 282754 */
  cr_expect_eq(g->mem_requests, 282754ull);
}

/* classroom.ini: 1000 MHz, 2 SMs; L1 16 KiB, 32 ways; L2 256 KiB over 2
 * slices, 16 ways, 1 partition; HBM 2 channels, 2048 B rows, the a100's
 * picosecond timings; the same defaults as above. */
Test(geom, classroom_by_hand) {
  ws_gpu_cfg c = preset("classroom");
  const ws_gpu_geom *g = &c.geom;
  cr_expect_eq(g->l1_sets, 4); /* 16 x 1024 / (32 x 128) */
  cr_expect_eq(g->line_shift, 7);
  cr_expect_eq(g->sectors_per_line, 4);
  cr_expect_eq(g->l2_bytes, 262144ull);       /* 256 x 1024 */
  cr_expect_eq(g->l2_slice_bytes, 131072ull); /* 262144 / 2 */
  cr_expect_eq(g->l2_sets_per_slice, 64);     /* 131072 / (16 x 128) */
  cr_expect_eq(g->l2_partitions, 1);
  cr_expect_eq(g->l2_far_extra_lat_cycles, 0);
  cr_expect_eq(g->hbm_lines_per_row, 16);
  cr_expect_eq(g->hbm_t_rcd_cycles, 14); /* 1 cycle = 1 ns: 14000 ps = 14 cycles */
  cr_expect_eq(g->hbm_t_cl_cycles, 14);
  cr_expect_eq(g->hbm_t_rp_cycles, 14);
  cr_expect_eq(g->hbm_t_ras_cycles, 34);
  /* 2304 x 2 + 384 x 2 + 32 x 2 + 2 = 4608 + 768 + 64 + 2 */
  cr_expect_eq(g->mem_requests, 5442ull);
}

Test(geom, set_re_derives) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = preset("classroom");
  cr_assert_eq(ws_config_set(ctx, &c, "l2.size_kib=512"), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(c.geom.l2_slice_bytes, 262144ull); /* 512 KiB / 2 */
  cr_expect_eq(c.geom.l2_sets_per_slice, 128);    /* 262144 / (16 x 128) */
  cr_assert_eq(ws_config_set(ctx, &c, "hbm.t_rcd_ps=14001"), WS_OK);
  cr_expect_eq(c.geom.hbm_t_rcd_cycles, 15, "rounded up");
  cr_assert_eq(ws_config_set(ctx, &c, "gpu.core_clock_mhz=1410"), WS_OK);
  cr_expect_eq(c.geom.hbm_t_rcd_cycles, 20, "14.001 ns at 1.41 GHz = 19.74 cycles");
  cr_expect_eq(c.geom.hbm_t_cl_cycles, 20, "14 ns at 1.41 GHz = 19.74 cycles");
  /* per SM the pool of 2048 waiters and a write buffer of mshr_entries */
  cr_assert_eq(ws_config_set(ctx, &c, "l1.mshr_entries=16"), WS_OK);
  cr_expect_eq(c.geom.mem_requests, (2048u + 16) * 2 + 768 + 64 + 2);
  /* without a pool, each MSHR holds mshr_max_merge */
  cr_assert_eq(ws_config_set(ctx, &c, "l1.mshr_waiters=0"), WS_OK);
  cr_assert_eq(ws_config_set(ctx, &c, "l1.mshr_max_merge=8"), WS_OK);
  cr_expect_eq(c.geom.mem_requests, 16u * 9 * 2 + 768 + 64 + 2);
  cr_expect_eq(ws_config_validate(ctx, &c, "classroom (after --set)"), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* Rows shorter than a line still hold one line of the mapping; a row of 64 B
 * (two 32 B bursts) is a valid preset. */
Test(geom, short_rows_hold_one_line) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = preset("classroom");
  cr_assert_eq(ws_config_set(ctx, &c, "hbm.row_bytes=64"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &c, "classroom"), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(c.geom.hbm_lines_per_row, 1);
  ws_ctx_destroy(ctx);
}

/* Fields edited directly leave the geometry stale until resolved. */
Test(geom, resolve_derives_edited_fields) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c = preset("a100");
  c.l1.size_kib = 14; /* 14 x 1024 / (56 x 128) = 2 sets */
  c.gpu.num_sms = 4;  /* 2304 x 4 + 30720 + 3200 + 2 */
  cr_assert_eq(ws_config_resolve(ctx, &c, "edited a100"), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(c.geom.l1_sets, 2);
  cr_expect_eq(c.geom.mem_requests, 9216ull + 30720 + 3200 + 2);
  ws_ctx_destroy(ctx);
}

/* Loading derives what resolving derives, for every preset. */
Test(geom, every_preset_is_resolved) {
  for (const char *const *n = ws_config_preset_names(); *n; n++) {
    ws_gpu_cfg loaded = preset(*n), again = loaded;
    memset(&again.geom, 0, sizeof again.geom);
    cr_assert_eq(ws_config_resolve(NULL, &again, *n), WS_OK, "%s", *n);
    cr_expect_eq(memcmp(&loaded, &again, sizeof loaded), 0, "%s", *n);
    cr_expect_geq(loaded.geom.l1_sets, 1, "%s", *n);
    cr_expect_leq(loaded.geom.sectors_per_line, WS_CFG_MAX_SECTORS_PER_LINE, "%s", *n);
  }
}
