/* gemmgen_ref.c - the host reference for a GEMM run: epilogue(A*B) with
 * cblas_sgemm and the epilogue in double, and for every output the largest
 * difference a correct kernel can show.
 *
 * Error bounds (ws_gemmgen_reference), u = 2^-24:
 *  - fp32 product: the kernel and OpenBLAS each carry at most K*u*sum|a*b|
 *    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 3.1),
 *    so they differ by at most 2*K*u*sum|a_ik*b_kj|.
 *  - mma: a and b are rounded to binary16, |a16 - a| <= max(2^-11|a|, 2^-25)
 *    (unit roundoff 2^-11; half the subnormal spacing 2^-24 below 2^-14);
 *    products of two halves are exact in fp32 and the tensor core sums them
 *    in fp32, one rounding per k. So |mma - exact| <= sum(ea|b| + |a|eb +
 *    ea*eb) + K*u*sum|a16*b16|, and BLAS adds its K*u*sum|a*b|. With inputs
 *    in [-1,1) this is about (2^-10 + 2*K*u) sum|a*b|.
 *  - + bias, + residual: one fp32 rounding each, u times the result.
 *  - GELU is computed as x * 1/(1 + 2^z), z = -2*sqrt(2/pi)*log2(e)*x*(1 +
 *    0.044715x^2), which equals 0.5x(1+tanh(...)). The four roundings that
 *    form z give |dz| <= 6u|z|, so 2^z carries ln2*6u|z| relative error plus
 *    MUFU.EX2's own; 1 + e, MUFU.RCP and the final multiply add u, rcp's
 *    error and u. docs/isa.md states no accuracy for MUFU; the simulator
 *    computes exp2f and 1.0f/x (both within 1 ulp = 2u), so the evaluation
 *    error is at most (4 + s(2 + 4.16|z|)) u |gelu|, s = 2^z/(1+2^z) <= 1,
 *    plus |x| 2^-126 where 2^z overflows or 1/(1+2^z) is subnormal. An input
 *    error dx moves GELU by at most 1.13|dx| (max |gelu'| = 1.129). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "models/kgen/gemmgen_int.h"

#define UNIT_ROUNDOFF_F32 (1.0 / 16777216.0) /* 2^-24 */
#define F16_MAX 65504.0
#define LN2 0.69314718055994530942

#define REFUSE(...) return ws_ctx_fail(ctx, WS_ERR_INVALID, __VA_ARGS__)

static double f16_err(double x) {
  double rel = fabs(x) * (1.0 / 2048.0); /* 2^-11 */
  return rel > 0x1p-25 ? rel : 0x1p-25;
}

/* |x|, or with f16 |x| plus its binary16 rounding error, as doubles. */
static double *abs_copy(const float *x, size_t count, bool f16) {
  double *out = malloc(count * sizeof *out);
  for (size_t i = 0; out && i < count; i++) {
    double v = fabs((double)x[i]);
    out[i] = f16 ? v + f16_err(v) : v;
  }
  return out;
}

/* sum_t |a_it| |b_tj| for every (i, j), into s (m x n): a GEMM of
 * nonnegative doubles (products of floats are exact in double; the sum's
 * rounding, at most k 2^-53 relative, is far inside the bounds' own
 * slack). With f16, the same sum of (|a| + ea)(|b| + eb) goes to s16. */
static ws_status abs_products(ws_ctx *ctx, const float *a, const float *b, uint32_t m, uint32_t n, uint32_t k,
                              bool f16, double *s, double *s16) {
  ws_status st = WS_OK;
  for (int pass = 0; pass < (f16 ? 2 : 1) && st == WS_OK; pass++) {
    double *aa = abs_copy(a, (size_t)m * k, pass == 1), *bb = abs_copy(b, (size_t)k * n, pass == 1);
    if (aa && bb)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, aa, (int)k, bb,
                  (int)n, 0.0, pass ? s16 : s, (int)n);
    else
      st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "gemm reference: host memory exhausted for the error bounds");
    free(aa);
    free(bb);
  }
  return st;
}

/* Bound on |kernel - blas| for the plain product, from sum|a b| (s) and,
 * with f16, sum (|a|+ea)(|b|+eb) (s16): the conversion errors' share is
 * s16 - s. */
static double product_bound(double s, double s16, uint32_t k, bool f16) {
  double ku = (double)k * UNIT_ROUNDOFF_F32;
  return f16 ? (s16 - s) + ku * s16 + ku * s : 2.0 * ku * s;
}

static double gelu_ref(double x) {
  return 0.5 * x * (1.0 + tanh(WS_GEMMGEN_SQRT_2_OVER_PI * (x + WS_GEMMGEN_GELU_C * x * x * x)));
}

/* Evaluation error of the kernel's GELU at x (file header). */
static double gelu_eval_bound(double x, double y) {
  double u = UNIT_ROUNDOFF_F32;
  double z = -2.0 * WS_GEMMGEN_SQRT_2_OVER_PI * WS_GEMMGEN_LOG2E * x * (1.0 + WS_GEMMGEN_GELU_C * x * x);
  double zhi = z + 6.0 * u * fabs(z);
  double s = zhi > 1000 ? 1.0 : 1.0 / (1.0 + exp2(-zhi));
  return (4.0 + s * (2.0 + 6.0 * LN2 * fabs(z))) * u * fabs(y) + fabs(x) * 0x1p-126;
}

static double epilogue_ref(const ws_gemmgen_cfg *cfg, double x, double bias, double res, double *err) {
  double u = UNIT_ROUNDOFF_F32;
  if (cfg->epilogue & WS_GEMMGEN_EPI_BIAS) {
    x += bias;
    *err += u * (fabs(x) + *err);
  }
  if (cfg->epilogue & WS_GEMMGEN_EPI_GELU) {
    double xe = fabs(x) + *err, y = gelu_ref(x);
    double ye = fabs(y) + 1.13 * *err;
    *err = 1.13 * *err + gelu_eval_bound(x < 0 ? -xe : xe, ye);
    x = y;
  }
  if (cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) {
    x += res;
    *err += u * (fabs(x) + *err);
  }
  if (cfg->epilogue) *err += u * fabs(x); /* ref itself is rounded to fp32 */
  return x;
}

ws_status ws_gemmgen_reference(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, uint32_t k,
                               const float *a, const float *b, const float *bias, const float *res,
                               float *ref, double *bound) {
  if (m == 0 || n == 0 || k == 0 || m > WS_GEMMGEN_DIM_MAX || n > WS_GEMMGEN_DIM_MAX ||
      k > WS_GEMMGEN_DIM_MAX)
    REFUSE("gemm reference: M, N and K must be 1..%u, got %ux%ux%u", WS_GEMMGEN_DIM_MAX, m, n, k);
  if (!a || !b || !ref || !bound) REFUSE("gemm reference: A, B, ref and bound must not be NULL");
  if (((cfg->epilogue & WS_GEMMGEN_EPI_BIAS) && !bias) || ((cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) && !res))
    REFUSE("gemm reference: the epilogue needs its bias / residual inputs");
  bool f16 = cfg->variant == WS_GEMMGEN_MMA;
  if (f16)
    for (size_t i = 0; i < (size_t)m * k + (size_t)k * n; i++)
      if (!(fabs(i < (size_t)m * k ? a[i] : b[i - (size_t)m * k]) < F16_MAX))
        REFUSE("gemm reference: mma rounds A and B to binary16; |values| must stay below %g", F16_MAX);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b, (int)n,
              0.0f, ref, (int)n);
  double *s16 = f16 ? malloc((size_t)m * n * sizeof *s16) : NULL;
  if (f16 && !s16)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "gemm reference: host memory exhausted for the error bounds");
  ws_status st = abs_products(ctx, a, b, m, n, k, f16, bound, s16);
  for (size_t o = 0; st == WS_OK && o < (size_t)m * n; o++) {
    double err = product_bound(bound[o], f16 ? s16[o] : 0.0, k, f16);
    double x = epilogue_ref(cfg, ref[o], bias ? bias[o % n] : 0.0, res ? res[o] : 0.0, &err);
    ref[o] = (float)x;
    bound[o] = err;
  }
  free(s16);
  return st;
}
