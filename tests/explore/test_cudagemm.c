/* test_cudagemm.c - the GEMM ladder in CUDA C (explore/cudagemm.h): every
 * step's instance is named by its tiles, compiles, translates and computes
 * C within the generated kernel's error bound (ws_gemmgen_reference), on an
 * aligned shape and on one whose K and N are not multiples of 4 (the
 * unaligned load paths and edge tiles); an epilogue is refused.
 *
 * Functional mode on the a100 preset (the default tiles need its shared
 * memory); the tests skip when clang is not installed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/cudagemm.h"
#include "ptx/cuda.h"

static void need_clang(void) {
  ws_ctx *ctx = ws_ctx_create();
  char path[WS_CUDA_PATH_MAX_BYTES];
  bool found = ws_cuda_find_clang(ctx, path, sizeof path) == WS_OK;
  ws_ctx_destroy(ctx);
  if (!found) cr_skip_test("clang is not installed");
}

static float next_input(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(*s >> 40) / 8388608.0 - 1.0); /* [-1, 1) on a 2^-23 grid */
}

/* Runs the CUDA kernel of variant's default tiles on m x n x k and
 * counts the outputs outside the reference's bound. */
static size_t outputs_outside_bound(ws_gemmgen_variant v, uint32_t m, uint32_t n, uint32_t k) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg gpu;
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &gpu), WS_OK);
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(v);
  cr_assert_eq(ws_gemmgen_check(ctx, &cfg, &gpu), WS_OK, "%s", ws_errmsg(ctx));
  ws_program *prog = NULL;
  cr_assert_eq(ws_cudagemm_build(ctx, &cfg, &prog), WS_OK, "%s", ws_errmsg(ctx));
  size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
  float *a = malloc(na * 4), *b = malloc(nb * 4), *c = malloc(nc * 4), *ref = malloc(nc * 4);
  double *bound = malloc(nc * sizeof *bound);
  cr_assert(a && b && c && ref && bound);
  uint64_t s = 11;
  for (size_t i = 0; i < na; i++) a[i] = next_input(&s);
  for (size_t i = 0; i < nb; i++) b[i] = next_input(&s);
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &gpu, &dev), WS_OK);
  ws_gemmgen_problem prob = {m, n, k, 0, 0, 0, 0, 0};
  cr_assert_eq(ws_device_malloc(dev, na * 4, &prob.a), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, nb * 4, &prob.b), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, nc * 4, &prob.c), WS_OK);
  cr_assert_eq(ws_device_memcpy_htod(dev, prob.a, a, na * 4), WS_OK);
  cr_assert_eq(ws_device_memcpy_htod(dev, prob.b, b, nb * 4), WS_OK);
  cr_assert_eq(ws_cudagemm_run(dev, prog, &cfg, &prob, NULL), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_memcpy_dtoh(dev, c, prob.c, nc * 4), WS_OK);
  cr_assert_eq(ws_gemmgen_reference(ctx, &cfg, m, n, k, a, b, NULL, NULL, ref, bound), WS_OK);
  size_t bad = 0;
  for (size_t i = 0; i < nc; i++) bad += !(fabs((double)c[i] - ref[i]) <= bound[i]);
  ws_device_destroy(dev);
  ws_program_destroy(prog);
  free(a), free(b), free(c), free(ref), free(bound);
  ws_ctx_destroy(ctx);
  return bad;
}

Test(cudagemm, instances_are_named_by_the_tiles_each_step_reads) {
  ws_ctx *ctx = ws_ctx_create();
  char buf[128];
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  cr_assert_eq(ws_cudagemm_instance(ctx, &c, buf, sizeof buf), WS_OK);
  cr_expect_str_eq(buf, "sgemm_naive<32,32,1024>");
  c = ws_gemmgen_defaults(WS_GEMMGEN_WARPTILE);
  cr_assert_eq(ws_cudagemm_instance(ctx, &c, buf, sizeof buf), WS_OK);
  cr_expect_str_eq(buf, "sgemm_warptile<128,128,8,4,4,32,64,256>");
  c = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  cr_assert_eq(ws_cudagemm_instance(ctx, &c, buf, sizeof buf), WS_OK);
  cr_expect_str_eq(buf, "sgemm_mma<64,64,32,32,32,128>");
  cr_expect_eq(ws_cudagemm_instance(ctx, &c, buf, 8), WS_ERR_LIMIT);
  ws_ctx_destroy(ctx);
}

Test(cudagemm, every_step_computes_c_within_the_generated_bound, .timeout = 300) {
  need_clang();
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    cr_expect_eq(outputs_outside_bound((ws_gemmgen_variant)v, 128, 128, 64), 0, "%s, 128x128x64",
                 ws_gemmgen_variant_name((ws_gemmgen_variant)v));
    cr_expect_eq(outputs_outside_bound((ws_gemmgen_variant)v, 70, 66, 37), 0, "%s, 70x66x37 (unaligned)",
                 ws_gemmgen_variant_name((ws_gemmgen_variant)v));
  }
}

Test(cudagemm, an_epilogue_is_refused) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_SMEM);
  c.epilogue = WS_GEMMGEN_EPI_BIAS;
  ws_program *prog = NULL;
  cr_expect_eq(ws_cudagemm_build(ctx, &c, &prog), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "no epilogue") != NULL, "%s", ws_errmsg(ctx));
  cr_expect_null(prog);
  ws_ctx_destroy(ctx);
}
