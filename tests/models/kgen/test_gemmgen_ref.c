/* test_gemmgen_ref.c - the host reference of a GEMM run
 * (models/kgen/gemmgen_ref.c): ref = epilogue(A*B) and, per output, the bound a
 * correct kernel stays within. The product is checked against a 3x2 result
 * worked by hand; the bounds against the file header's formulas evaluated by
 * hand for these small integer inputs (u = 2^-24; all products positive, so
 * sum|a*b| is the product itself); GELU against the tanh form's values at
 * +-1; and every refusal with its message. */
#include <criterion/criterion.h>
#include <math.h>

#include "models/kgen/gemmgen_int.h"

#define U (1.0 / 16777216.0) /* 2^-24 */

/* A (3x2) = [1 2; 3 4; 5 6], B (2x2) = [7 8; 9 10]:
 * C = [1*7+2*9, 1*8+2*10; 3*7+4*9, 3*8+4*10; 5*7+6*9, 5*8+6*10]
 *   = [25 28; 57 64; 89 100] */
static const float A[6] = {1, 2, 3, 4, 5, 6};
static const float B[4] = {7, 8, 9, 10};
static const float C[6] = {25, 28, 57, 64, 89, 100};

static ws_ctx *ctx;
static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }
TestSuite(gemmgen_ref, .init = setup, .fini = teardown);

/* fp32 product bound: 2*K*u*sum|a*b| = 4u*C with K = 2. */
Test(gemmgen_ref, product_3x2) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  float ref[6];
  double bound[6];
  cr_assert_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, B, NULL, NULL, ref, bound), WS_OK, "%s",
               ws_errmsg(ctx));
  for (int i = 0; i < 6; i++) {
    cr_expect_eq(ref[i], C[i], "C[%d] = %g, want %g", i, ref[i], C[i]);
    cr_expect_eq(bound[i], 4.0 * U * C[i], "bound[%d] = %g", i, bound[i]);
  }
}

/* bias [1, -2], residual all 0.5. x = C + bias; each add carries u(|x| +
 * err) and the final fp32 rounding u|result|. For (0,0): err0 = 100u;
 * + bias: x = 26, err = 100u + u(26 + 100u); + 0.5: x = 26.5,
 * err += u(26.5 + err); final err += 26.5u. */
Test(gemmgen_ref, bias_and_residual) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_COALESCED);
  cfg.epilogue = WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_RESIDUAL;
  const float bias[2] = {1, -2};
  const float res[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  float ref[6];
  double bound[6];
  cr_assert_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, B, bias, res, ref, bound), WS_OK, "%s",
               ws_errmsg(ctx));
  static const float want[6] = {26.5f, 26.5f, 58.5f, 62.5f, 90.5f, 98.5f};
  for (int i = 0; i < 6; i++) cr_expect_eq(ref[i], want[i], "ref[%d] = %g", i, ref[i]);
  double e = 100 * U;
  e += U * (26 + e);
  e += U * (26.5 + e);
  e += U * 26.5;
  cr_expect(fabs(bound[0] - e) <= 1e-6 * e, "bound[0] = %.17g, want %.17g", bound[0], e);
  cr_expect_gt(bound[0], 4.0 * U * C[0], "the epilogue adds to the product's bound");
}

/* GELU (tanh form) at x = 1 and -1: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
 * = 0.5(1 + tanh(0.7978845608 * 1.044715)) = 0.5(1 + tanh(0.8335616)) =
 * 0.8411920, and at -1: -0.5(1 - 0.6823840) = -0.1588080. A = [1; -1; 0],
 * B = [1] gives those inputs and GELU(0) = 0. */
Test(gemmgen_ref, gelu) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_SMEM);
  cfg.epilogue = WS_GEMMGEN_EPI_GELU;
  const float a[3] = {1, -1, 0}, b[1] = {1};
  float ref[3];
  double bound[3];
  cr_assert_eq(ws_gemmgen_reference(ctx, &cfg, 3, 1, 1, a, b, NULL, NULL, ref, bound), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect(fabsf(ref[0] - 0.8411920f) < 1e-6f, "gelu(1) = %.9g", ref[0]);
  cr_expect(fabsf(ref[1] + 0.1588080f) < 1e-6f, "gelu(-1) = %.9g", ref[1]);
  cr_expect_eq(ref[2], 0.0f);
  cr_expect_eq(bound[2], 0.0, "an exact zero has nothing to round");
  /* the bound covers a few roundings of the result, not the result itself */
  cr_expect_gt(bound[0], 4 * U * 0.84);
  cr_expect_lt(bound[0], 1e-5);
}

/* mma rounds inputs to binary16: |a16 - a| <= 2^-11|a| here. For 1 * 1
 * (K = 1): conv = 2^-11 + 2^-11 + 2^-22, s16 = (1 + 2^-11)^2, and the bound
 * is conv + u*s16 + u*1. */
Test(gemmgen_ref, mma_bound_includes_the_binary16_rounding) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  const float one[1] = {1};
  float ref[1];
  double bound[1];
  cr_assert_eq(ws_gemmgen_reference(ctx, &cfg, 1, 1, 1, one, one, NULL, NULL, ref, bound), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect_eq(ref[0], 1.0f);
  double h = 1.0 / 2048, want = 2 * h + h * h + U * (1 + h) * (1 + h) + U;
  cr_expect(fabs(bound[0] - want) <= 1e-12 * want, "bound %.17g, want %.17g", bound[0], want);
}

Test(gemmgen_ref, mma_refuses_values_binary16_cannot_hold) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  const float big[1] = {65504}, one[1] = {1}, nan[1] = {NAN};
  float ref[1];
  double bound[1];
  const char *want = "gemm reference: mma rounds A and B to binary16; |values| must stay below "
                     "65504";
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 1, 1, 1, one, big, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 1, 1, 1, nan, one, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  cfg = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE); /* fp32 variants take any value */
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 1, 1, 1, one, big, NULL, NULL, ref, bound), WS_OK);
  cr_expect_eq(ref[0], 65504.0f);
}

Test(gemmgen_ref, refusals) {
  ws_gemmgen_cfg cfg = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  float ref[6];
  double bound[6];
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 0, 2, 2, A, B, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm reference: M, N and K must be 1..65536, got 0x2x2");
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 65537, A, B, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm reference: M, N and K must be 1..65536, got 3x2x65537");
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, NULL, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm reference: A, B, ref and bound must not be NULL");
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, B, NULL, NULL, ref, NULL), WS_ERR_INVALID);
  cfg.epilogue = WS_GEMMGEN_EPI_RESIDUAL;
  const float bias[2] = {0, 0};
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, B, bias, NULL, ref, bound), WS_ERR_INVALID,
               "a bias does not stand in for the residual");
  cr_expect_str_eq(ws_errmsg(ctx), "gemm reference: the epilogue needs its bias / residual inputs");
  cfg.epilogue = WS_GEMMGEN_EPI_BIAS;
  cr_expect_eq(ws_gemmgen_reference(ctx, &cfg, 3, 2, 2, A, B, NULL, NULL, ref, bound), WS_ERR_INVALID);
}
