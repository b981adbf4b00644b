/* test_nngen.c - the generated TinyViT32 kernels (patch, LayerNorm, fused
 * add+LayerNorm, softmax, GELU, residual add, add-positions, mean-pool,
 * head) against host references computed in double precision.
 *
 * Tolerances. u = 2^-24 is the fp32 unit roundoff: each FADD/FMUL/FFMA
 * rounds once, with relative error at most u. docs/isa.md defines MUFU.EX2,
 * MUFU.RCP and MUFU.RSQ as 2^a, 1/a and 1/sqrt(a) of fp32 values; the
 * executor computes them as exp2f (glibc: under 1 ulp, i.e. relative error
 * below 2u), 1.0f/a (correctly rounded: u) and 1.0f/sqrtf(a) (two roundings:
 * under 2u + u^2). We charge every MUFU 2u. A sum of n terms in any order
 * carries at most (n-1) u sum|terms| to first order (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., sec. 4.2). Each kernel's
 * bound below adds these first-order terms along its own sequence of
 * operations and then doubles the total, which covers the second-order terms
 * and the reference's own rounding to float; an output outside it is wrong,
 * not merely rounded differently. Moves, sums of two floats and the patch
 * copy are exact: a correctly rounded fp32 add equals the double sum rounded
 * to float. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kerntest.h"
#include "models/kgen/nngen.h"
#include "models/kgen/wsa.h"

#define U (1.0 / 16777216.0)
#define MUFU_ERR (2.0 * U)
#define LOG2E 1.4426950408889634

/* Uniform in [lo, hi), rounded to float. */
static float *random_floats(size_t n, float lo, float hi, uint64_t seed) {
  float *v = malloc(n * sizeof *v);
  cr_assert_not_null(v);
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(lo + (hi - lo) * (double)(rng_next(&seed) >> 11) * (1.0 / 9007199254740992.0));
  return v;
}

static uint64_t upload(const float *v, size_t n) {
  uint64_t d = 0;
  cr_assert_eq(ws_device_malloc(dev, n * 4, &d), WS_OK, "%s", ws_errmsg(ctx));
  if (v)
    cr_assert_eq(ws_device_memcpy_htod(dev, d, v, n * 4), WS_OK, "%s", ws_errmsg(ctx));
  else
    cr_assert_eq(ws_device_memset(dev, d, 0xFF, n * 4), WS_OK); /* NaN fill: unwritten outputs show */
  return d;
}

static float *download(uint64_t d, size_t n) {
  float *v = malloc(n * sizeof *v);
  cr_assert_not_null(v);
  cr_assert_eq(ws_device_memcpy_dtoh(dev, v, d, n * 4), WS_OK, "%s", ws_errmsg(ctx));
  return v;
}

/* Fails the test when any |got - ref| exceeds its bound (NaN always fails). */
static void expect_close(const char *what, const float *got, const double *ref, const double *bound,
                         size_t n) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double err = fabs((double)got[i] - ref[i]);
    if (!(err <= bound[i])) {
      if (bad++ < 3) cr_log_error("%s[%zu]: got %.9g, want %.9g +- %.3g", what, i, got[i], ref[i], bound[i]);
    }
    if (bound[i] > 0 && err / bound[i] > worst) worst = err / bound[i];
  }
  cr_log_info("%s: worst error / bound = %.3g over %zu values", what, worst, n);
  cr_expect_eq(bad, 0, "%s: %zu of %zu outside the bound (worst ratio %g)", what, bad, n, worst);
}

/* ---- patch extraction -------------------------------------------------------- */

static void check_patch(uint32_t c, uint32_t h, uint32_t w, uint32_t p, uint32_t batch) {
  size_t n = (size_t)c * h * w;
  float *img = random_floats(n * batch, -1, 1, 11 + p);
  uint64_t dimg = upload(img, n * batch), dout = upload(NULL, n * batch);
  ws_nngen_patch_shape s = {c, h, w, p, batch};
  ws_launch_stats ls;
  cr_assert_eq(ws_nngen_patch_run(dev, &s, dimg, dout, &ls), WS_OK, "%s", ws_errmsg(ctx));
  float *got = download(dout, n * batch);
  size_t bad = 0;
  uint32_t nx = w / p, row = c * p * p;
  for (uint32_t b = 0; b < batch; b++)
    for (uint32_t py = 0; py < h / p; py++)
      for (uint32_t px = 0; px < nx; px++)
        for (uint32_t ch = 0; ch < c; ch++)
          for (uint32_t ky = 0; ky < p; ky++)
            for (uint32_t kx = 0; kx < p; kx++) {
              float want = img[b * n + ((size_t)ch * h + py * p + ky) * w + px * p + kx];
              size_t at = b * n + (size_t)(py * nx + px) * row + (ch * p + ky) * p + kx;
              bad += memcmp(&got[at], &want, 4) != 0;
            }
  cr_expect_eq(bad, 0, "patch %ux%ux%u P=%u x%u: %zu values misplaced", c, h, w, p, batch, bad);
  cr_expect_eq(ls.ctas, (uint64_t)(h / p) * nx * batch);
  free(img);
  free(got);
}

Test(nngen, patch_tinyvit_and_general_shapes, .init = setup, .fini = teardown) {
  check_patch(3, 32, 32, 4, 1); /* TinyViT32: 64 tokens of 48 */
  check_patch(2, 12, 8, 2, 1);  /* non-square image, other channel count */
  check_patch(1, 5, 5, 5, 1);   /* one token */
}

/* One launch over a batch: image b's patches are the rows after image b-1's. */
Test(nngen, patch_batch_is_one_launch_per_batch, .init = setup, .fini = teardown) {
  check_patch(3, 32, 32, 4, 3);
  check_patch(2, 12, 8, 2, 5);
}

/* ---- LayerNorm and add+LayerNorm ------------------------------------------------ */

/* Reference and first-order bound for one row (see the file header):
 * mean: n-term sum, RCP, multiply -> e_mu = (n+3) u mean|v|;
 * deviation d = v - mean: e_mu + u|d| (+ u|v| for the fused add);
 * variance: the sum of n squares, eps add, RCP and multiply give relative
 * (n+6) u, and RSQ adds 2u: rstd relative (n/2 + 5) u;
 * y = d*rstd*w + b: two roundings in the product, one in the FFMA. */
static void ln_row_ref(const float *x, const float *a, const float *w, const float *b, uint32_t n,
                       double *ref, double *bound) {
  double mean = 0, var = 0, mean_abs = 0;
  for (uint32_t i = 0; i < n; i++) {
    double v = (double)x[i] + (a ? (double)a[i] : 0.0);
    mean += v;
    mean_abs += fabs(v);
  }
  mean /= n;
  mean_abs /= n;
  for (uint32_t i = 0; i < n; i++) {
    double d = (double)x[i] + (a ? (double)a[i] : 0.0) - mean;
    var += d * d;
  }
  var /= n;
  double rstd = 1.0 / sqrt(var + 1e-5), e_mu = (n + 3) * U * mean_abs, rel_r = (n / 2.0 + 5) * U;
  for (uint32_t i = 0; i < n; i++) {
    double v = (double)x[i] + (a ? (double)a[i] : 0.0), d = v - mean, y = d * rstd * w[i] + b[i];
    double e_d = e_mu + U * fabs(d) + (a ? U * fabs(v) : 0.0);
    ref[i] = y;
    bound[i] = 2.0 * (fabs(w[i]) * rstd * (e_d + fabs(d) * (rel_r + 2 * U)) + U * (fabs(y) + fabs(b[i])));
  }
}

static void check_layernorm(ws_nngen_norm kind, uint32_t rows, uint32_t cols, float spread) {
  size_t n = (size_t)rows * cols;
  float *x = random_floats(n, -spread, spread, 21), *a = random_floats(n, -1, 1, 22);
  float *w = random_floats(cols, 0.5f, 1.5f, 23), *b = random_floats(cols, -0.5f, 0.5f, 24);
  for (size_t i = 0; i < n; i++) x[i] += 3.0f; /* a non-zero mean exercises the subtraction */
  uint64_t dx = upload(x, n), da = upload(a, n), dw = upload(w, cols), db = upload(b, cols),
           dy = upload(NULL, n);
  cr_assert_eq(ws_nngen_layernorm_run(dev, kind, rows, cols, dx, da, dw, db, dy, NULL), WS_OK, "%s",
               ws_errmsg(ctx));
  float *got = download(dy, n);
  double *ref = malloc(n * sizeof *ref), *bound = malloc(n * sizeof *bound);
  bool fused = kind == WS_NNGEN_NORM_ADD;
  for (uint32_t r = 0; r < rows; r++)
    ln_row_ref(x + (size_t)r * cols, fused ? a + (size_t)r * cols : NULL, w, b, cols, ref + (size_t)r * cols,
               bound + (size_t)r * cols);
  expect_close(fused ? "add_layernorm" : "layernorm", got, ref, bound, n);
  free(x), free(a), free(w), free(b), free(got), free(ref), free(bound);
}

Test(nngen, layernorm_matches_double_reference, .init = setup, .fini = teardown) {
  check_layernorm(WS_NNGEN_NORM_PLAIN, 64, 64, 1.0f); /* TinyViT32 [T, D] */
  check_layernorm(WS_NNGEN_NORM_PLAIN, 7, 50, 2.0f);  /* odd: lanes finish at different trips */
  check_layernorm(WS_NNGEN_NORM_PLAIN, 5, 200, 0.5f); /* several columns per lane, rows < warps per CTA */
}

Test(nngen, fused_add_layernorm_matches_double_reference, .init = setup, .fini = teardown) {
  check_layernorm(WS_NNGEN_NORM_ADD, 64, 64, 1.0f);
  check_layernorm(WS_NNGEN_NORM_ADD, 9, 33, 2.0f);
}

Test(nngen, layernorm_in_place_and_constant_row, .init = setup, .fini = teardown) {
  /* a constant row has variance 0: y = b exactly (d = 0), rstd = rsq(eps) */
  float x[64], w[64], b[64];
  for (int i = 0; i < 64; i++) x[i] = 2.5f, w[i] = 1.0f, b[i] = (float)i * 0.25f;
  uint64_t dx = upload(x, 64), dw = upload(w, 64), db = upload(b, 64);
  cr_assert_eq(ws_nngen_layernorm_run(dev, WS_NNGEN_NORM_PLAIN, 1, 64, dx, 0, dw, db, dx, NULL), WS_OK, "%s",
               ws_errmsg(ctx));
  float *got = download(dx, 64);
  for (int i = 0; i < 64; i++) cr_expect_eq(got[i], b[i], "col %d: %g", i, got[i]);
  free(got);
}

/* ---- softmax -------------------------------------------------------------------------- */

/* p_i = e^(x_i - m) / sum. The exponent x*log2e - m*log2e carries
 * 2u(|x|+|m|)log2e absolute (two roundings), which EX2 turns into relative
 * error ln2 times that, i.e. at most 2u(|x|+|m|), plus EX2's own 2u; the sum
 * adds n u relative and the max of the terms' errors; RCP and the final
 * multiply 3u. */
static void check_softmax(uint32_t rows, uint32_t cols, float spread) {
  size_t n = (size_t)rows * cols;
  float *x = random_floats(n, -spread, spread, 31);
  uint64_t dx = upload(x, n), dy = upload(NULL, n);
  cr_assert_eq(ws_nngen_softmax_run(dev, rows, cols, dx, dy, NULL), WS_OK, "%s", ws_errmsg(ctx));
  float *got = download(dy, n);
  double *ref = malloc(n * sizeof *ref), *bound = malloc(n * sizeof *bound);
  for (uint32_t r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * cols;
    double m = -INFINITY, sum = 0, emax = 0;
    for (uint32_t i = 0; i < cols; i++) m = fmax(m, xr[i]);
    for (uint32_t i = 0; i < cols; i++) {
      sum += exp((double)xr[i] - m);
      emax = fmax(emax, 2 * U * (fabs(xr[i]) + fabs(m)) + MUFU_ERR);
    }
    for (uint32_t i = 0; i < cols; i++) {
      double p = exp((double)xr[i] - m) / sum, e = 2 * U * (fabs(xr[i]) + fabs(m)) + MUFU_ERR;
      ref[(size_t)r * cols + i] = p;
      bound[(size_t)r * cols + i] = 2.0 * p * (e + emax + cols * U + 3 * U);
    }
  }
  expect_close("softmax", got, ref, bound, n);
  free(x), free(got), free(ref), free(bound);
}

Test(nngen, softmax_matches_double_reference, .init = setup, .fini = teardown) {
  check_softmax(256, 64, 4.0f); /* the attention shape: H*T rows of T */
  check_softmax(9, 50, 8.0f);
  check_softmax(3, 1, 1.0f);    /* a single column gives exactly 1 */
  check_softmax(5, 100, 30.0f); /* large spread: most terms underflow relative to the max */
}

/* ---- GELU ------------------------------------------------------------------------------- */

/* Reference: the tanh form, evaluated as x/(1 + e^(-2u)) in double (checked
 * equal to 0.5x(1 + tanh(u)) where double has no cancellation).
 * Kernel: y = x * rcp(1 + 2^z), z = -2 sqrt(2/pi) log2(e) (x + 0.044715 x^3). x^3,
 * the FFMA and the multiply by the rounded constant give |dz| <= 5u|z|, which
 * changes 2^z by ln2 * 5u|z| relative; 2^z/(1+2^z) <= 1 passes at most that to
 * y, and EX2, the add, RCP and the final multiply add 2u + 3u. */
Test(nngen, gelu_matches_tanh_form, .init = setup, .fini = teardown) {
  enum { N = 1200 };
  float *x = random_floats(N, -8, 8, 41);
  const float special[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 20.0f, -20.0f, 100.0f, -11.0f, 0.5f, -0.5f};
  memcpy(x, special, sizeof special);
  uint64_t dx = upload(x, N), dy = upload(NULL, N);
  ws_launch_stats ls;
  cr_assert_eq(ws_nngen_gelu_run(dev, N, dx, dy, &ls), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ls.ctas, 5);
  float *got = download(dy, N);
  double ref[N], bound[N];
  for (int i = 0; i < N; i++) {
    double v = x[i], u = 0.7978845608028654 * (v + 0.044715 * v * v * v), z = -2 * u * LOG2E;
    /* 0.5(1 + tanh(u)) evaluated as 1/(1 + e^(-2u)), the same value without
     * double's cancellation in 1 + tanh(u) for u << 0 */
    ref[i] = v / (1.0 + exp(-2.0 * u));
    if (fabs(v) < 3) cr_expect_leq(fabs(0.5 * v * (1.0 + tanh(u)) - ref[i]), 1e-14 * fabs(v), "x=%g", v);
    bound[i] = 2.0 * fabs(ref[i]) * (0.7 * 5 * U * fabs(z) + MUFU_ERR + 3 * U) + 1e-45;
  }
  expect_close("gelu", got, ref, bound, N);
  free(x), free(got);
}

/* ---- residual add, add-positions ----------------------------------------------------------- */

Test(nngen, residual_add_is_exact, .init = setup, .fini = teardown) {
  enum { N = 777 };
  float *x = random_floats(N, -4, 4, 51), *a = random_floats(N, -4, 4, 52);
  uint64_t dx = upload(x, N), da = upload(a, N);
  cr_assert_eq(ws_nngen_add_run(dev, N, dx, da, dx, NULL), WS_OK, "%s", ws_errmsg(ctx)); /* in place */
  float *got = download(dx, N);
  for (int i = 0; i < N; i++) cr_expect_eq(got[i], (float)((double)x[i] + a[i]), "element %d", i);
  free(x), free(a), free(got);
}

Test(nngen, add_positions_broadcasts_over_batch, .init = setup, .fini = teardown) {
  enum { B = 3, T = 5, D = 7 };
  float *x = random_floats(B * T * D, -2, 2, 61), *pos = random_floats(T * D, -1, 1, 62);
  uint64_t dx = upload(x, B * T * D), dp = upload(pos, T * D), dy = upload(NULL, B * T * D);
  cr_assert_eq(ws_nngen_add_pos_run(dev, B, T, D, dx, dp, dy, NULL), WS_OK, "%s", ws_errmsg(ctx));
  float *got = download(dy, B * T * D);
  for (int n = 0; n < B; n++)
    for (int i = 0; i < T * D; i++)
      cr_expect_eq(got[n * T * D + i], (float)((double)x[n * T * D + i] + pos[i]), "batch %d element %d", n,
                   i);
  free(x), free(pos), free(got);
}

/* ---- mean-pool, head ---------------------------------------------------------------------- */

/* T-term sum, RCP of T, multiply: (T + 3) u sum|x| / T. */
static void check_meanpool(uint32_t batch, uint32_t tokens, uint32_t dim) {
  size_t n = (size_t)tokens * dim, out = (size_t)batch * dim;
  float *x = random_floats(n * batch, -1, 1, 71);
  uint64_t dx = upload(x, n * batch), dy = upload(NULL, out);
  ws_launch_stats ls;
  cr_assert_eq(ws_nngen_meanpool_run(dev, batch, tokens, dim, dx, dy, &ls), WS_OK, "%s", ws_errmsg(ctx));
  float *got = download(dy, out);
  double *ref = calloc(out, sizeof *ref), *bound = calloc(out, sizeof *bound);
  for (uint32_t b = 0; b < batch; b++)
    for (uint32_t t = 0; t < tokens; t++)
      for (uint32_t d = 0; d < dim; d++) {
        float v = x[b * n + (size_t)t * dim + d];
        ref[(size_t)b * dim + d] += v, bound[(size_t)b * dim + d] += fabs(v);
      }
  for (size_t i = 0; i < out; i++) {
    ref[i] /= tokens;
    bound[i] = 2.0 * (tokens + 3) * U * bound[i] / tokens;
  }
  expect_close("meanpool", got, ref, bound, out);
  cr_expect_eq(ls.ctas, (uint64_t)(dim + 255) / 256 * batch, "one launch: a row of CTAs per image");
  free(x), free(got), free(ref), free(bound);
}

Test(nngen, meanpool_matches_double_reference, .init = setup, .fini = teardown) {
  check_meanpool(1, 64, 64);
  check_meanpool(1, 50, 300); /* two CTAs of columns, partial */
  check_meanpool(1, 1, 3);
  check_meanpool(4, 64, 64); /* a batch: grid y is the image */
  check_meanpool(3, 50, 300);
}

/* logit: a dim-term dot product plus b: (dim + 1) u (sum|p w| + |b|).
 * prob = sigmoid(logit): dlogit moves it by s(1-s) dlogit; the exponent's
 * rounding (u|l| log2e, turned into ln2 times that relative by EX2), EX2,
 * the add and RCP add s(1-s) u|l| + 4u s. */
Test(nngen, head_logit_and_sigmoid, .init = setup, .fini = teardown) {
  enum { R = 3, D = 64 };
  float *p = random_floats(R * D, -1, 1, 81), *w = random_floats(D, -1, 1, 82), b[1] = {0.125f};
  for (int d = 0; d < D; d++)
    p[2 * D + d] = 4.0f * (w[d] > 0 ? 1.0f : -1.0f); /* row 2: logit ~ +128: prob 1 */
  uint64_t dp = upload(p, R * D), dw = upload(w, D), db = upload(b, 1), dl = upload(NULL, R),
           dq = upload(NULL, R);
  cr_assert_eq(ws_nngen_head_run(dev, R, D, dp, dw, db, dl, dq, NULL), WS_OK, "%s", ws_errmsg(ctx));
  float *logit = download(dl, R), *prob = download(dq, R);
  double lref[R], lb[R], pref[R], pb[R];
  for (int r = 0; r < R; r++) {
    double dot = b[0], mag = fabs(b[0]);
    for (int d = 0; d < D; d++) dot += (double)p[r * D + d] * w[d], mag += fabs((double)p[r * D + d] * w[d]);
    double s = 1.0 / (1.0 + exp(-dot)), el = (D + 1) * U * mag;
    lref[r] = dot, lb[r] = 2.0 * el;
    pref[r] = s, pb[r] = 2.0 * (s * (1 - s) * (el + U * fabs(dot)) + 4 * U * s);
  }
  expect_close("logit", logit, lref, lb, R);
  expect_close("prob", prob, pref, pb, R);
  cr_expect_eq(prob[2], 1.0f);
  free(p), free(w), free(logit), free(prob);
}

/* ---- invalid parameters
 * --------------------------------------------------------------------------- */

/* Each call must fail with `want` and leave a message containing `needle`. */
#define EXPECT_REFUSED(call, want, needle)                                                                   \
  do {                                                                                                       \
    ws_ctx_clear(ctx);                                                                                       \
    ws_status st_ = (call);                                                                                  \
    cr_expect_eq(st_, (want), "%s returned %s", #call, ws_status_name(st_));                                 \
    cr_expect(strstr(ws_errmsg(ctx), (needle)) != NULL, "%s: message '%s' lacks '%s'", #call,                \
              ws_errmsg(ctx), (needle));                                                                     \
  } while (0)

Test(nngen, invalid_parameters_are_refused_with_reason, .init = setup, .fini = teardown) {
  char *src = NULL;
  ws_dim3 g, b;
  EXPECT_REFUSED(ws_nngen_layernorm_source(ctx, WS_NNGEN_NORM_PLAIN, 0, &src), WS_ERR_INVALID,
                 "warps per CTA must be 1..32, got 0");
  EXPECT_REFUSED(ws_nngen_layernorm_source(ctx, WS_NNGEN_NORM_COUNT, 4, &src), WS_ERR_INVALID,
                 "unknown LayerNorm kind");
  EXPECT_REFUSED(ws_nngen_gelu_source(ctx, 48, &src), WS_ERR_INVALID, "multiple of 32 in 32..1024, got 48");
  EXPECT_REFUSED(ws_nngen_gelu_source(ctx, 2048, &src), WS_ERR_INVALID,
                 "multiple of 32 in 32..1024, got 2048");
  EXPECT_REFUSED(ws_nngen_gelu_source(ctx, 0, &src), WS_ERR_INVALID, "got 0");
  EXPECT_REFUSED(ws_nngen_rows_geometry(ctx, 0, 4, &g, &b), WS_ERR_INVALID, "rows must be at least 1");
  EXPECT_REFUSED(ws_nngen_elems_geometry(ctx, 0, 1, 256, &g, &b), WS_ERR_INVALID, "element count must be");
  EXPECT_REFUSED(ws_nngen_patch_run(dev, &(ws_nngen_patch_shape){3, 32, 32, 5, 1}, 0, 0, NULL),
                 WS_ERR_INVALID, "patch size 5 dividing the image 32x32");
  EXPECT_REFUSED(ws_nngen_patch_run(dev, &(ws_nngen_patch_shape){65, 32, 32, 4, 1}, 0, 0, NULL), WS_ERR_LIMIT,
                 "1040 threads");
  EXPECT_REFUSED(ws_nngen_patch_run(dev, &(ws_nngen_patch_shape){3, 1024, 1024, 4, 1366}, 0, 0, NULL),
                 WS_ERR_LIMIT, "more than 2^32 values");
  EXPECT_REFUSED(ws_nngen_layernorm_run(dev, WS_NNGEN_NORM_PLAIN, 4, 0, 0, 0, 0, 0, 0, NULL), WS_ERR_INVALID,
                 "rows and cols must be at least 1");
  EXPECT_REFUSED(ws_nngen_add_pos_run(dev, 1, 0, 64, 0, 0, 0, NULL), WS_ERR_INVALID, "batch*tokens*dim");
  EXPECT_REFUSED(ws_nngen_head_run(dev, 0, 64, 0, 0, 0, 0, 0, NULL), WS_ERR_INVALID, "head: rows and cols");
  cr_expect_null(src, "a refused generator returns no text");
}

/* The fixed kernels are their models/kgen/kernels/ files, byte for byte: they read
 * the block size from SR_NTID, so no text depends on the launch. */
Test(nngen, fixed_kernels_are_their_files, .init = setup, .fini = teardown) {
  static const struct {
    ws_status (*source)(ws_ctx *, char **);
    const char *path;
  } fixed[] = {{ws_nngen_add_source, "models/kgen/kernels/add.wsa"},
               {ws_nngen_add_pos_source, "models/kgen/kernels/add_pos.wsa"},
               {ws_nngen_meanpool_source, "models/kgen/kernels/meanpool.wsa"},
               {ws_nngen_softmax_source, "models/kgen/kernels/softmax.wsa"},
               {ws_nngen_head_source, "models/kgen/kernels/head.wsa"},
               {ws_nngen_patch_source, "models/kgen/kernels/patch.wsa"}};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    char *src = NULL;
    cr_assert_eq(fixed[i].source(ctx, &src), WS_OK, "%s", ws_errmsg(ctx));
    const ws_embedded_file *f = ws_wsa_find(fixed[i].path);
    cr_assert_not_null(f, "%s", fixed[i].path);
    cr_expect_eq(strlen(src), f->size_bytes, "%s", fixed[i].path);
    cr_expect_str_eq(src, f->text, "%s", fixed[i].path);
    free(src);
  }
  char *src = NULL;
  EXPECT_REFUSED(ws_nngen_fixed_source(ctx, "models/kgen/kernels/none.wsa", &src), WS_ERR_INVALID,
                 "no embedded kernel models/kgen/kernels/none.wsa");
  cr_expect_null(src);
}

/* One text, any block: add with 64 and with 512 threads per CTA (n not a
 * multiple of either) gives x + a everywhere, since each thread's index comes
 * from SR_NTID; softmax with 1 and with 8 warps per CTA gives, bit for bit,
 * what the model's 4 warps per CTA give. */
static void launch_fixed(ws_nngen_kernel *k, ws_dim3 grid, ws_dim3 block) {
  cr_assert_eq(ws_nngen_kernel_launch(dev, k, grid, block, NULL), WS_OK, "%s", ws_errmsg(ctx));
}

Test(nngen, fixed_kernels_read_the_block_size_at_run_time, .init = setup, .fini = teardown) {
  enum { N = 1000, ROWS = 13, COLS = 40 };
  float *x = random_floats(N, -4, 4, 7), *a = random_floats(N, -4, 4, 8);
  uint64_t dx = upload(x, N), da = upload(a, N), dy = upload(NULL, N);
  char *src = NULL;
  ws_nngen_kernel k;
  cr_assert_eq(ws_nngen_add_source(ctx, &src), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_nngen_kernel_build(ctx, src, "add.wsa", &k), WS_OK, "%s", ws_errmsg(ctx));
  free(src);
  cr_assert_eq(ws_nngen_kernel_ptr(ctx, &k, "x", dx) | ws_nngen_kernel_ptr(ctx, &k, "a", da) |
                   ws_nngen_kernel_ptr(ctx, &k, "y", dy) | ws_nngen_kernel_u32(ctx, &k, "n", N),
               WS_OK, "%s", ws_errmsg(ctx));
  for (uint32_t threads = 64; threads <= 512; threads *= 8) {
    cr_assert_eq(ws_device_memset(dev, dy, 0xFF, N * 4), WS_OK);
    launch_fixed(&k, (ws_dim3){(N + threads - 1) / threads, 1, 1}, (ws_dim3){threads, 1, 1});
    float *y = download(dy, N);
    for (int i = 0; i < N; i++)
      cr_assert_eq(y[i], x[i] + a[i], "block %u: y[%d] = %g, want %g", threads, i, y[i], x[i] + a[i]);
    free(y);
  }
  ws_nngen_kernel_release(&k);
  /* softmax: the model's launch first, then the same text at 1 and 8 warps */
  cr_assert_eq(ws_nngen_softmax_run(dev, ROWS, COLS, dx, dy, NULL), WS_OK, "%s", ws_errmsg(ctx));
  float *want = download(dy, ROWS * COLS);
  cr_assert_eq(ws_nngen_softmax_source(ctx, &src), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_nngen_kernel_build(ctx, src, "softmax.wsa", &k), WS_OK, "%s", ws_errmsg(ctx));
  free(src);
  cr_assert_eq(ws_nngen_kernel_ptr(ctx, &k, "x", dx) | ws_nngen_kernel_ptr(ctx, &k, "y", dy) |
                   ws_nngen_kernel_u32(ctx, &k, "rows", ROWS) | ws_nngen_kernel_u32(ctx, &k, "cols", COLS),
               WS_OK, "%s", ws_errmsg(ctx));
  for (uint32_t warps = 1; warps <= 8; warps *= 8) {
    ws_dim3 grid, block;
    cr_assert_eq(ws_nngen_rows_geometry(ctx, ROWS, warps, &grid, &block), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_device_memset(dev, dy, 0xFF, ROWS * COLS * 4), WS_OK);
    launch_fixed(&k, grid, block);
    float *y = download(dy, ROWS * COLS);
    cr_expect_eq(memcmp(y, want, ROWS * COLS * 4), 0, "softmax at %u warps per CTA differs from 4", warps);
    free(y);
  }
  ws_nngen_kernel_release(&k);
  free(want);
  free(x);
  free(a);
}

/* ---- timing mode
 * ----------------------------------------------------------------------------------- */

Test(nngen, timing_runs_on_classroom_are_correct_and_deterministic, .init = setup_classroom,
     .fini = teardown) {
  enum { T = 64, D = 64 };
  float *x = random_floats(T * D, -1, 1, 91), *w = random_floats(D, 0.5f, 1.5f, 92),
        *b = random_floats(D, -1, 1, 93);
  uint64_t dx = upload(x, T * D), dw = upload(w, D), db = upload(b, D), dy = upload(NULL, T * D);
  ws_launch_stats ls[2];
  for (int rep = 0; rep < 2; rep++)
    cr_assert_eq(ws_nngen_layernorm_run(dev, WS_NNGEN_NORM_PLAIN, T, D, dx, 0, dw, db, dy, &ls[rep]), WS_OK,
                 "%s", ws_errmsg(ctx));
  cr_expect_gt(ls[0].cycles, 0);
  cr_expect_eq(ls[0].cycles, ls[1].cycles, "same launch, same cycles");
  cr_expect_eq(ls[0].ctas, T / 4);
  float *got = download(dy, T * D);
  double ref[T * D], bound[T * D];
  for (int r = 0; r < T; r++) ln_row_ref(x + r * D, NULL, w, b, D, ref + r * D, bound + r * D);
  expect_close("layernorm (timing)", got, ref, bound, T * D);
  uint64_t dpool = upload(NULL, D);
  ws_launch_stats lp;
  cr_assert_eq(ws_nngen_meanpool_run(dev, 1, T, D, dy, dpool, &lp), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_gt(lp.cycles, 0);
  cr_expect_eq(lp.ctas, 1);
  free(x), free(w), free(b), free(got);
}
