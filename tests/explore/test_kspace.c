/* test_kspace.c - the kernel sweep's space (explore/kspace.h): the -D
 * lists' product in order with each point's dimensions, the refusals of bad
 * flags, and one end-to-end sweep of the corpus's tiled SGEMM over TILE. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore/kspace.h"
#include "explore/sweep.h"
#include "ptx/cuda.h"

#define SGEMM "tests/ptx/cuda/sgemm_tiled.cu"

static ws_ctx *ctx;

static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_eq(chdir(WS_SOURCE_DIR), 0);
}

static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(kspace, .init = setup, .fini = teardown);

/* A space of kind kernel on the a100 alone. */
static void base_space(ws_space *s) {
  ws_space_init(s, WS_POINT_KERNEL);
  cr_assert_eq(ws_space_parse(ctx, s, WS_SPACE_GPU, "a100"), WS_OK, "%s", ws_errmsg(ctx));
}

Test(kspace, the_product_in_order_with_dimensions) {
  ws_kspace *k = NULL;
  cr_assert_eq(ws_kspace_create(ctx, SGEMM, &k), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_kspace_add_define(ctx, k, "TILE=8,16"), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_kspace_add_define(ctx, k, "SIZE=0:64:32"), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_kspace_set_dims(ctx, k, "cdiv(SIZE,TILE), 2", "TILE,TILE", "TILE*4"), WS_OK, "%s",
               ws_errmsg(ctx));
  ws_space s;
  base_space(&s);
  ws_point *pts = NULL;
  size_t n = 0;
  cr_assert_eq(ws_kspace_expand(ctx, k, &s, &pts, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(n, 6);
  const int64_t tile[] = {8, 8, 8, 16, 16, 16}, size[] = {0, 32, 64, 0, 32, 64};
  for (size_t i = 0; i < n; i++) {
    cr_expect_eq(pts[i].kind, WS_POINT_KERNEL);
    cr_expect_str_eq(pts[i].gpu, "a100");
    cr_expect_eq(pts[i].ndefines, 2);
    cr_expect_str_eq(pts[i].define_names[0], "TILE");
    cr_expect_str_eq(pts[i].define_names[1], "SIZE");
    cr_expect_eq(pts[i].define_values[0], tile[i], "point %zu", i);
    cr_expect_eq(pts[i].define_values[1], size[i], "point %zu", i);
    cr_expect_eq(pts[i].inputs_hash, pts[0].inputs_hash);
    if (size[i] == 0) { /* a grid of 0 refuses the point: its dimensions stay 0 */
      cr_expect_eq(pts[i].grid[0], 0);
      cr_expect_eq(pts[i].block[0], 0);
      continue;
    }
    cr_expect_eq(pts[i].grid[0], (uint32_t)((size[i] + tile[i] - 1) / tile[i]), "point %zu", i);
    cr_expect_eq(pts[i].grid[1], 2);
    cr_expect_eq(pts[i].grid[2], 1);
    cr_expect_eq(pts[i].block[0], (uint32_t)tile[i]);
    cr_expect_eq(pts[i].block[1], (uint32_t)tile[i]);
    cr_expect_eq(pts[i].block[2], 1);
    cr_expect_eq(pts[i].shared_bytes, (uint32_t)tile[i] * 4);
  }
  uint32_t g[3], b[3], sh;
  cr_expect_eq(ws_kspace_dims(ctx, k, &pts[0], g, b, &sh), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--grid: its x is 0; a dimension must be 1..4294967295");
  free(pts);
  ws_space_free(&s);
  ws_kspace_destroy(k);
}

Test(kspace, bad_flags_are_refused) {
  ws_kspace *k = NULL;
  cr_expect_eq(ws_kspace_create(ctx, "README.md", &k), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "README.md: a kernel sweep takes a CUDA C (.cu) or PTX (.ptx) file");
  cr_expect_neq(ws_kspace_create(ctx, "tests/ptx/cuda/no_such_file.cu", &k), WS_OK);
  cr_assert_eq(ws_kspace_create(ctx, SGEMM, &k), WS_OK, "%s", ws_errmsg(ctx));
  const char *bad[] = {"TILE", "8=TILE", "TILE=", "TILE=8,x", "TILE=8,8", "TILE=8:4", "TILE=1:9:0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_expect_eq(ws_kspace_add_define(ctx, k, bad[i]), WS_ERR_INVALID, "%s", bad[i]);
  cr_assert_eq(ws_kspace_add_define(ctx, k, "TILE=-4,8"), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_kspace_add_define(ctx, k, "TILE=16"), WS_ERR_INVALID);
  cr_expect_eq(ws_kspace_set_dims(ctx, k, "N/TILE", "TILE", NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--grid 'N/TILE': column 1: 'N' is not a -D name (TILE)");
  cr_expect_eq(ws_kspace_set_dims(ctx, k, "1", "TILE*", NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--block 'TILE*': column 6: the expression ends too soon");
  cr_expect_eq(ws_kspace_add_arg(ctx, k, "M"), WS_ERR_INVALID);
  ws_kspace_destroy(k);
  cr_assert_eq(ws_kspace_create(ctx, "tests/ptx/data/saxpy_const.ptx", &k), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_kspace_add_define(ctx, k, "TILE=8"), WS_ERR_INVALID);
  ws_kspace_destroy(k);
}

/* A 32x32x32 SGEMM's A, B and C as malloc'd zeros-and-ones. */
static uint8_t *ones(size_t floats) {
  float *v = malloc(floats * sizeof *v);
  cr_assert_not_null(v);
  for (size_t i = 0; i < floats; i++) v[i] = 1.0f;
  return (uint8_t *)v;
}

Test(kspace, sweeps_the_tiled_sgemm_over_tile, .timeout = 120) {
  char clang[WS_CUDA_PATH_MAX_BYTES];
  if (ws_cuda_find_clang(ctx, clang, sizeof clang) != WS_OK) cr_skip_test("no clang: %s", ws_errmsg(ctx));
  ws_kspace *k = NULL;
  cr_assert_eq(ws_kspace_create(ctx, SGEMM, &k), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_kspace_add_define(ctx, k, "TILE=8,16"), WS_OK);
  cr_assert_eq(ws_kspace_add_define(ctx, k, "SIZE=32"), WS_OK);
  cr_assert_eq(ws_kspace_set_dims(ctx, k, "cdiv(SIZE,TILE),cdiv(SIZE,TILE)", "TILE,TILE", NULL), WS_OK, "%s",
               ws_errmsg(ctx));
  const char *args[] = {"M=32", "N=32", "K=32", "alpha=1", "beta=0"};
  for (size_t i = 0; i < 5; i++)
    cr_assert_eq(ws_kspace_add_arg(ctx, k, args[i]), WS_OK, "%s", ws_errmsg(ctx));
  const char *bufs[] = {"A", "B", "C"};
  for (size_t i = 0; i < 3; i++)
    cr_assert_eq(ws_kspace_add_buf(ctx, k, bufs[i], ones(32 * 32), 32 * 32 * 4), WS_OK, "%s", ws_errmsg(ctx));
  ws_space s;
  base_space(&s);
  ws_point *pts = NULL;
  size_t n = 0;
  cr_assert_eq(ws_kspace_expand(ctx, k, &s, &pts, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(n, 2);
  ws_sweep *sw = NULL;
  cr_assert_eq(ws_sweep_create(ctx, pts, n, &sw), WS_OK);
  ws_sweep_cfg cfg = {.runner = {NULL, ws_kspace_run}, .opts = {.kspace = k}, .jobs = 2};
  cr_assert_eq(ws_sweep_run(ctx, sw, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  for (size_t i = 0; i < n; i++) {
    const ws_point *p = ws_sweep_point(sw, i);
    const ws_point_result *r = ws_sweep_result(sw, i);
    uint32_t tile = i == 0 ? 8 : 16;
    cr_assert_not_null(r);
    cr_expect(r->valid, "point %zu: %s", i, r->why);
    cr_expect_eq(p->define_values[0], tile);
    cr_expect_eq(p->grid[0], 32 / tile);
    cr_expect_eq(p->grid[1], 32 / tile);
    cr_expect_eq(p->block[0], tile);
    cr_expect_eq(p->block[1], tile);
    cr_expect_eq(r->threads_per_cta, tile * tile);
    cr_expect_gt(r->cycles, 0);
    cr_expect_gt(r->regs_per_thread, 0);
    cr_expect_eq(r->smem_per_cta_bytes, 2 * tile * tile * 4); /* As and Bs */
    cr_expect_gt(r->dram_read_bytes, 0);
    cr_expect(r->check_pass, "a kernel point is not checked: it counts as run");
  }
  ws_sweep_destroy(sw);
  free(pts);
  ws_space_free(&s);
  ws_kspace_destroy(k);
}
