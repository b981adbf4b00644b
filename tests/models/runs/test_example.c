/* test_example.c - the shipped example kernels produce the right numbers:
 * SAXPY and the reduction exactly (closed forms), SGEMM and the tensor-core
 * GEMM within the stated bound of OpenBLAS (models/runs/example.c explains it). */
#include <criterion/criterion.h>
#include <string.h>

#include "models/runs/example.h"

static ws_ctx *ctx;
static ws_device *dev;

static void setup(void) {
  ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
}

static void teardown(void) {
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

static ws_example_check run_ok(const char *name, uint32_t m, uint32_t n, uint32_t k) {
  ws_example_shape s = {m, n, k, 7};
  ws_example_check c;
  cr_assert_eq(ws_example_run(dev, name, &s, &c), WS_OK, "%s: %s", name, ws_errmsg(ctx));
  return c;
}

TestSuite(examples, .init = setup, .fini = teardown);

Test(examples, saxpy_exact_including_partial_last_cta) {
  /* 1000 = 3 full CTAs of 256 plus 232 threads: the tail EXITs early */
  ws_example_check c = run_ok("saxpy", 0, 1000, 0);
  cr_expect(c.pass);
  cr_expect_eq(c.nvalues, 1000);
  cr_expect_eq(c.max_abs_err, 0.0);
  cr_expect_eq(c.stats.ctas, 4);
}

Test(examples, reduce_exact_over_sizes) {
  static const uint32_t sizes[] = {1, 17, 31, 32, 33, 255, 256, 257, 6143, 100000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    ws_example_check c = run_ok("reduce", 0, sizes[i], 0);
    cr_expect(c.pass, "n=%u: max error %g", sizes[i], c.max_abs_err);
    cr_expect_eq(c.max_abs_err, 0.0, "n=%u", sizes[i]);
  }
}

Test(examples, sgemm_odd_shapes_match_openblas) {
  static const uint32_t shapes[][3] = {{33, 65, 17}, {1, 1, 1}, {17, 3, 129}, {50, 31, 7}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    ws_example_check c = run_ok("sgemm", shapes[i][0], shapes[i][1], shapes[i][2]);
    cr_expect(c.pass, "%ux%ux%u: %llu outside, worst ratio %g", shapes[i][0], shapes[i][1], shapes[i][2],
              (unsigned long long)c.nbad, c.worst_ratio);
    cr_expect_eq(c.nvalues, (uint64_t)shapes[i][0] * shapes[i][1]);
  }
}

Test(examples, sgemm_aligned_shapes_match_openblas) {
  ws_example_check c = run_ok("sgemm", 64, 128, 96);
  cr_expect(c.pass, "worst ratio %g", c.worst_ratio);
  cr_expect_eq(c.stats.ctas, (128 / 16) * (64 / 16));
  /* a real product of random inputs is not exactly what BLAS computes in
   * every output, but is far inside the bound */
  cr_expect_lt(c.worst_ratio, 0.5);
}

Test(examples, sgemm_1x1x1_is_exact) {
  ws_example_check c = run_ok("sgemm", 1, 1, 1);
  cr_expect_eq(c.max_abs_err, 0.0); /* one product, rounded once by both */
}

Test(examples, mma_gemm_matches_openblas_on_f16_inputs) {
  static const uint32_t shapes[][3] = {{16, 8, 16}, {64, 32, 48}, {128, 128, 128}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    ws_example_check c = run_ok("mma", shapes[i][0], shapes[i][1], shapes[i][2]);
    cr_expect(c.pass, "%ux%ux%u: worst ratio %g", shapes[i][0], shapes[i][1], shapes[i][2], c.worst_ratio);
    cr_expect_eq(c.stats.warp_insns_by_unit[WS_UNIT_TENSOR],
                 (uint64_t)(shapes[i][0] / 16) * (shapes[i][1] / 8) * (shapes[i][2] / 16));
  }
}

Test(examples, mma_single_tile_passes) {
  /* one HMMA of 16 products: f16 products are exact in fp32, so the result
   * differs from BLAS by summation order only, well inside the bound */
  ws_example_check c = run_ok("mma", 16, 8, 16);
  cr_expect(c.pass);
  cr_expect_eq(c.nvalues, 128);
}

Test(examples, bad_shapes_are_refused_with_reason) {
  ws_example_shape s = {33, 8, 16, 1};
  ws_example_check c;
  cr_expect_eq(ws_example_run(dev, "mma", &s, &c), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "mma: the m16n8k16 kernel needs M % 16 == 0, N % 8 == 0, K % 16 == 0, got 33x8x16");
  ws_example_shape z = {0, 5, 5, 1};
  cr_expect_eq(ws_example_run(dev, "sgemm", &z, &c), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "sgemm: M, N and K must be 1..4096, got 0x5x5");
  cr_expect_eq(ws_example_run(dev, "nope", &z, &c), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "unknown example 'nope' (expected saxpy, reduce, sgemm or mma)");
}
