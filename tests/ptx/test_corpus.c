/* test_corpus.c - every kernel of the CUDA corpus (tests/ptx/cuda/) that the
 * translator accepts, translated from its committed .ptx and run on the
 * simulated GPU in both modes, each output element checked against the
 * same computation done here in C; the corpus files it refuses, refused at
 * their exact PTX line; and saxpy.cu compiled by the installed clang.
 *
 * Design: a kernel's launch is one function run twice on one device, once
 * functional (under the race, init and barrier checks) and once timed. The
 * functional run is checked against the reference; the timed run must take
 * cycles and give the same bytes. Inputs
 * are chosen so that the reference is exact wherever the kernel's
 * arithmetic can be exact (integers, floats holding small integers, whose
 * sums are exact in any order); the two kernels with transcendental or
 * data-dependent rounding (softmax, layernorm) are compared within a
 * tolerance derived, in a comment, from their summation order and the
 * approximate instructions they use. Sizes are a few CTAs each, with edges
 * where the kernel handles them, so the suite stays quick under sanitizers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/f16.h"
#include "ptx/ptx.h"
#include "sim/host/device.h"

#define CORPUS WS_SOURCE_DIR "/tests/ptx/cuda/"

typedef struct run {
  ws_ctx *ctx;
  ws_ptx_result res;
  ws_device *dev;
  const ws_kernel *k;
  ws_args args;
  ws_launch_stats stats;
} run;

/* Translates the committed PTX of corpus file `file` and makes a device of
 * `preset` (NULL: the default preset) to run its kernel `kernel` on. */
static void start(run *r, const char *file, const char *kernel, const char *preset) {
  memset(r, 0, sizeof *r);
  r->ctx = ws_ctx_create();
  char path[512];
  snprintf(path, sizeof path, CORPUS "%s.ptx", file);
  ws_status st = ws_ptx_load_file(r->ctx, path, NULL, NULL, &r->res);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r->ctx));
  r->k = ws_program_find_kernel(r->res.prog, kernel);
  cr_assert_not_null(r->k, "%s has no kernel %s", path, kernel);
  ws_gpu_cfg cfg = ws_config_default();
  if (preset) cr_assert_eq(ws_config_load_preset(r->ctx, preset, &cfg), WS_OK, "%s", ws_errmsg(r->ctx));
  cr_assert_eq(ws_device_create(r->ctx, &cfg, &r->dev), WS_OK, "%s", ws_errmsg(r->ctx));
}

static void stop(run *r) {
  ws_device_destroy(r->dev);
  ws_ptx_result_free(&r->res);
  ws_ctx_destroy(r->ctx);
}

/* A device buffer of `bytes` holding init (NULL: zeros), passed as param. */
static uint64_t buf(run *r, const char *param, size_t bytes, const void *init) {
  uint64_t p = 0;
  cr_assert_eq(ws_device_malloc(r->dev, bytes, &p), WS_OK, "%s", ws_errmsg(r->ctx));
  if (init)
    cr_assert_eq(ws_device_memcpy_htod(r->dev, p, init, bytes), WS_OK);
  else
    cr_assert_eq(ws_device_memset(r->dev, p, 0, bytes), WS_OK);
  if (param) cr_assert_eq(ws_args_set_ptr(r->ctx, &r->args, param, p), WS_OK, "%s", ws_errmsg(r->ctx));
  return p;
}

static void set_u32(run *r, const char *param, uint32_t v) {
  cr_assert_eq(ws_args_set_u32(r->ctx, &r->args, param, v), WS_OK, "%s", ws_errmsg(r->ctx));
}

static void set_f32(run *r, const char *param, float v) {
  cr_assert_eq(ws_args_set_f32(r->ctx, &r->args, param, v), WS_OK, "%s", ws_errmsg(r->ctx));
}

static void launch(run *r, ws_dim3 grid, ws_dim3 block) {
  ws_status st = ws_device_launch(r->dev, r->k, grid, block, 0, &r->args, &r->stats);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r->ctx));
}

static void read_back(run *r, void *dst, uint64_t src, size_t bytes) {
  cr_assert_eq(ws_device_memcpy_dtoh(r->dev, dst, src, bytes), WS_OK);
}

static ws_dim3 dim1(uint32_t x) { return (ws_dim3){x, 1, 1}; }
static ws_dim3 dim2(uint32_t x, uint32_t y) { return (ws_dim3){x, y, 1}; }
static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* One launch of a case: fresh buffers from `in`, the outputs into `out`. */
typedef void (*launch_fn)(run *r, const void *in, void *out);

/* Runs fn functionally into out, under the race, uninitialized-read and
 * barrier checks (the corpus's PTX must be free of them for its results to
 * mean anything), then timed without them: the timed run takes cycles and
 * writes the same bytes. */
static void both_modes(const char *file, const char *kernel, const char *preset, launch_fn fn, const void *in,
                       void *out, size_t out_bytes) {
  run r;
  start(&r, file, kernel, preset);
  ws_device_set_mode(r.dev, WS_MODE_FUNCTIONAL);
  ws_device_set_checks(r.dev, WS_CHECK_ALL);
  ws_args_init(&r.args, r.k);
  fn(&r, in, out);
  ws_device_set_checks(r.dev, 0);
  uint8_t *timed = calloc(1, out_bytes);
  cr_assert_not_null(timed);
  ws_device_set_mode(r.dev, WS_MODE_TIMING);
  ws_args_init(&r.args, r.k);
  fn(&r, in, timed);
  cr_assert(r.stats.cycles > 0, "%s: the timed launch took no cycles", kernel);
  cr_assert_eq(out_bytes % 4, 0);
  for (size_t i = 0; i < out_bytes; i += 4) {
    uint32_t f, t;
    memcpy(&f, (const uint8_t *)out + i, 4);
    memcpy(&t, timed + i, 4);
    if (f != t) cr_assert_fail("%s: timed output word %zu is 0x%08x, functional 0x%08x", kernel, i / 4, t, f);
  }
  free(timed);
  stop(&r);
}

/* Deterministic inputs: a 32-bit LCG (Numerical Recipes' constants). */
static uint32_t next_rand(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* An integer in [lo, hi]. */
static int small_int(uint32_t *s, int lo, int hi) {
  return lo + (int)(next_rand(s) % (uint32_t)(hi - lo + 1));
}

/* ---- saxpy: y = a * x + y --------------------------------------------------------- */

enum { SAXPY_N = 1000 }; /* 4 CTAs of 256, the last one partly past n */

typedef struct saxpy_case {
  float a, x[SAXPY_N], y[SAXPY_N];
} saxpy_case;

static void saxpy_launch(run *r, const void *in, void *out) {
  const saxpy_case *c = in;
  buf(r, "param_2", sizeof c->x, c->x);
  uint64_t y = buf(r, "param_3", sizeof c->y, c->y);
  set_u32(r, "param_0", SAXPY_N);
  set_f32(r, "param_1", c->a);
  launch(r, dim1(ceil_div(SAXPY_N, 256)), dim1(256));
  read_back(r, out, y, sizeof c->y);
}

/* clang contracts a*x[i] + y[i] into one fma.rn.f32: fmaf is the same single rounding */
Test(corpus, saxpy) {
  static saxpy_case c;
  static float y[SAXPY_N];
  c.a = 2.5f;
  for (int i = 0; i < SAXPY_N; i++) c.x[i] = (float)i * 0.37f - 11.0f, c.y[i] = (float)(i % 17) - 3.25f;
  both_modes("saxpy", "saxpy", NULL, saxpy_launch, &c, y, sizeof y);
  for (int i = 0; i < SAXPY_N; i++)
    cr_assert_eq(y[i], fmaf(c.a, c.x[i], c.y[i]), "y[%d] = %.9g, expected %.9g", i, y[i],
                 fmaf(c.a, c.x[i], c.y[i]));
}

/* ---- half2_math: packed binary16 and bfloat16 arithmetic ------------------------------- */

enum { HALF2_N = 700 }; /* pairs: 3 CTAs of 256, the last one partly past n2 */

typedef struct half2_case {
  uint32_t a[HALF2_N], x[HALF2_N], y[HALF2_N];
} half2_case;

static void half2_launch(run *r, const void *in, void *out) {
  const half2_case *c = in;
  set_u32(r, "param_0", HALF2_N);
  buf(r, "param_1", sizeof c->a, c->a);
  buf(r, "param_2", sizeof c->x, c->x);
  uint64_t y = buf(r, "param_3", sizeof c->y, c->y);
  launch(r, dim1(ceil_div(HALF2_N, 256)), dim1(256));
  read_back(r, out, y, sizeof c->y);
}

/* A value with `mant_bits` of random mantissa and an exponent in
 * [-4, 4], either sign, as the format's bits (bias 15 or 127). */
static uint16_t some_half(uint32_t *s, unsigned mant_bits, unsigned bias) {
  uint32_t r = next_rand(s);
  return (uint16_t)((r & 1u) << 15 | (bias - 4u + (r >> 1) % 9u) << mant_bits |
                    ((r >> 5) & ((1u << mant_bits) - 1u)));
}

#if defined(__FLT16_MAX__)
/* The host's binary16 (GCC's _Float16): a sum or product of two halves
 * computed in float and narrowed once is correctly rounded (24 >= 2*11 + 2
 * bits: rounding twice is innocuous), and so is a double fma narrowed once
 * (the exact value needs over 53 bits only when product and addend lie
 * over 53 binades apart, and then the double is not a binary16 tie). */
static float hf(uint16_t h) {
  _Float16 v;
  memcpy(&v, &h, sizeof v);
  return (float)v;
}

static uint16_t hbits(double d) {
  _Float16 v = (_Float16)d;
  uint16_t h;
  memcpy(&h, &v, sizeof h);
  return h;
}

/* half2_fma's one half: r = max((a*x + y) - x*x, -|a|) */
static uint16_t half2_fma_ref(uint16_t a, uint16_t x, uint16_t y) {
  uint16_t r = hbits(fma(hf(a), hf(x), hf(y)));
  uint16_t xx = hbits(hf(x) * hf(x));
  r = hbits(hf(r) - hf(xx));
  uint16_t na = (uint16_t)(a | 0x8000u);
  return hf(r) >= hf(na) ? r : na; /* no NaN or equal values of both signs arise here */
}

Test(corpus, half2_fma_matches_host_float16) {
  static half2_case c;
  static uint32_t got[HALF2_N];
  uint32_t s = 31;
  for (int i = 0; i < HALF2_N; i++) {
    c.a[i] = some_half(&s, 10, 15) | (uint32_t)some_half(&s, 10, 15) << 16;
    c.x[i] = some_half(&s, 10, 15) | (uint32_t)some_half(&s, 10, 15) << 16;
    c.y[i] = some_half(&s, 10, 15) | (uint32_t)some_half(&s, 10, 15) << 16;
  }
  both_modes("half2_math", "half2_fma", NULL, half2_launch, &c, got, sizeof got);
  for (int i = 0; i < HALF2_N; i++) {
    uint16_t lo = half2_fma_ref((uint16_t)c.a[i], (uint16_t)c.x[i], (uint16_t)c.y[i]);
    uint16_t hi = half2_fma_ref((uint16_t)(c.a[i] >> 16), (uint16_t)(c.x[i] >> 16), (uint16_t)(c.y[i] >> 16));
    uint32_t want = hf(lo) < hf(hi) ? (uint32_t)hi | (uint32_t)lo << 16 : (uint32_t)lo | (uint32_t)hi << 16;
    cr_assert_eq(got[i], want, "y[%d] = 0x%08x, expected 0x%08x", i, got[i], want);
  }
}
#endif

/* bfloat16 from the bits of a double in bfloat16's normal range: keep the
 * top 7 mantissa bits, round the 45 below to nearest, ties to even (a
 * carry into the exponent is the right answer). */
static uint16_t bf16_of(double d) {
  if (d == 0.0) return signbit(d) ? 0x8000u : 0u;
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  uint64_t mag = u & 0x7FFFFFFFFFFFFFFFull, kept = mag >> 45, rem = mag & ((1ull << 45) - 1u);
  if (rem > (1ull << 44) || (rem == (1ull << 44) && (kept & 1u))) kept++;
  uint64_t exp = (kept >> 7) - 1023u + 127u;
  cr_assert(exp >= 1 && exp <= 254, "%a is outside bfloat16's normal range", d);
  return (uint16_t)((u >> 63) << 15 | exp << 7 | (kept & 0x7Fu));
}

static double bf(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* a*x + y of bfloat16 values within 2^-4 .. 2^5 is exact in double (a
 * 16-bit product and an 8-bit addend spanning under 40 bits), so rounding
 * that double once is the fused result; likewise x*x and the final add. */
static uint16_t bf16_axpy_ref(uint16_t a, uint16_t x, uint16_t y) {
  uint16_t f = bf16_of(bf(a) * bf(x) + bf(y));
  return bf16_of(bf(f) + bf(bf16_of(bf(x) * bf(x))));
}

Test(corpus, bf16_axpy_matches_exact_rounding) {
  static half2_case c;
  static uint32_t got[HALF2_N];
  uint32_t s = 37;
  for (int i = 0; i < HALF2_N; i++) {
    c.a[i] = some_half(&s, 7, 127) | (uint32_t)some_half(&s, 7, 127) << 16;
    c.x[i] = some_half(&s, 7, 127) | (uint32_t)some_half(&s, 7, 127) << 16;
    c.y[i] = some_half(&s, 7, 127) | (uint32_t)some_half(&s, 7, 127) << 16;
  }
  both_modes("half2_math", "bf16_axpy", NULL, half2_launch, &c, got, sizeof got);
  for (int i = 0; i < HALF2_N; i++) {
    uint32_t want =
        bf16_axpy_ref((uint16_t)c.a[i], (uint16_t)c.x[i], (uint16_t)c.y[i]) |
        (uint32_t)bf16_axpy_ref((uint16_t)(c.a[i] >> 16), (uint16_t)(c.x[i] >> 16), (uint16_t)(c.y[i] >> 16))
            << 16;
    cr_assert_eq(got[i], want, "y[%d] = 0x%08x, expected 0x%08x", i, got[i], want);
  }
}

/* ---- reduce_warp: the sum of n floats --------------------------------------------- */

enum { REDUCE_N = 5000, REDUCE_GRID = 8 }; /* each thread strides over 2 or 3 elements */

static void reduce_launch(run *r, const void *in, void *out) {
  uint64_t sum = buf(r, "param_1", sizeof(float), NULL);
  buf(r, "param_0", REDUCE_N * sizeof(float), in);
  set_u32(r, "param_2", REDUCE_N);
  launch(r, dim1(REDUCE_GRID), dim1(256));
  read_back(r, out, sum, sizeof(float));
}

/* The inputs are integers in [-8, 8]: every partial sum is an integer below
 * 2^24 in magnitude, so fp32 adds it exactly in any order, and the order of
 * the blocks' atomicAdds cannot change the result. */
Test(corpus, reduce_warp) {
  static float x[REDUCE_N];
  uint32_t s = 1;
  int64_t want = 0;
  for (int i = 0; i < REDUCE_N; i++) {
    int v = small_int(&s, -8, 8);
    x[i] = (float)v;
    want += v;
  }
  float sum = 0.0f;
  both_modes("reduce_warp", "reduce_sum", NULL, reduce_launch, x, &sum, sizeof sum);
  cr_assert_eq(sum, (float)want, "sum %.9g, expected %lld", sum, (long long)want);
}

/* ---- the three transposes: out = in^T --------------------------------------------- */

enum { TR_ROWS = 70, TR_COLS = 45 }; /* a 2 x 3 grid of 32 x 32 tiles, both edges partial */

static void transpose_launch(run *r, const void *in, void *out) {
  buf(r, "param_0", TR_ROWS * TR_COLS * sizeof(float), in);
  uint64_t o = buf(r, "param_1", TR_ROWS * TR_COLS * sizeof(float), NULL);
  set_u32(r, "param_2", TR_ROWS);
  set_u32(r, "param_3", TR_COLS);
  launch(r, dim2(ceil_div(TR_COLS, 32), ceil_div(TR_ROWS, 32)), dim2(32, 32));
  read_back(r, out, o, TR_ROWS * TR_COLS * sizeof(float));
}

/* A transpose moves values without arithmetic: exact. */
static void check_transpose(const char *kernel) {
  static float in[TR_ROWS * TR_COLS], out[TR_ROWS * TR_COLS];
  for (int i = 0; i < TR_ROWS * TR_COLS; i++) in[i] = (float)i + 0.5f;
  both_modes(kernel, kernel, NULL, transpose_launch, in, out, sizeof out);
  for (int y = 0; y < TR_ROWS; y++)
    for (int x = 0; x < TR_COLS; x++)
      cr_assert_eq(out[x * TR_ROWS + y], in[y * TR_COLS + x], "%s: out[%d][%d] = %g, expected %g", kernel, x,
                   y, out[x * TR_ROWS + y], in[y * TR_COLS + x]);
}

Test(corpus, transpose_naive) { check_transpose("transpose_naive"); }
Test(corpus, transpose_shared) { check_transpose("transpose_shared"); }
Test(corpus, transpose_padded) { check_transpose("transpose_padded"); }

/* ---- histogram: 256 bins of n bytes ------------------------------------------------ */

enum { HIST_N = 5000, HIST_GRID = 8 }; /* on the classroom preset's 2 SMs: several CTAs per SM */

static void histogram_launch(run *r, const void *in, void *out) {
  buf(r, "param_0", HIST_N, in);
  uint64_t bins = buf(r, "param_2", 256 * sizeof(uint32_t), NULL);
  set_u32(r, "param_1", HIST_N);
  launch(r, dim1(HIST_GRID), dim1(256));
  read_back(r, out, bins, 256 * sizeof(uint32_t));
}

/* Integer atomics: exact in any order. A third of the bytes fall in bins
 * 0..7, so a warp's shared atomics collide often. */
Test(corpus, histogram) {
  static uint8_t data[HIST_N];
  uint32_t want[256] = {0}, bins[256];
  uint32_t s = 7;
  for (int i = 0; i < HIST_N; i++) {
    uint32_t v = next_rand(&s);
    data[i] = (uint8_t)(v % 3 == 0 ? (v >> 4) % 8 : (v >> 4) % 256);
    want[data[i]]++;
  }
  both_modes("histogram", "histogram256", "classroom", histogram_launch, data, bins, sizeof bins);
  for (int b = 0; b < 256; b++)
    cr_assert_eq(bins[b], want[b], "bin %d = %u, expected %u", b, bins[b], want[b]);
}

/* ---- softmax: each row's exp(x - max) / sum ---------------------------------------- */

enum { SM_ROWS = 11, SM_COLS = 70 }; /* 3 CTAs of 4 warps, one warp past the rows; 70 = 2 x 32 + 6 */

static void softmax_launch(run *r, const void *in, void *out) {
  buf(r, "param_0", SM_ROWS * SM_COLS * sizeof(float), in);
  uint64_t y = buf(r, "param_1", SM_ROWS * SM_COLS * sizeof(float), NULL);
  set_u32(r, "param_2", SM_ROWS);
  set_u32(r, "param_3", SM_COLS);
  launch(r, dim1(ceil_div(SM_ROWS, 4)), dim2(32, 4));
  read_back(r, out, y, SM_ROWS * SM_COLS * sizeof(float));
}

/* The reference is computed in double. Per element the kernel rounds:
 * x - max (a result below 8 in magnitude: at most 2^-22 absolute, 2.4e-7
 * relative after exp), __expf's multiply by log2(e) (itself rounded to
 * fp32) then ex2.approx.f32 (an argument up to 11.6: 2 x 2^-21 absolute,
 * 6.7e-7 relative; ex2.approx about 2 ulp, 2.4e-7), so each term is within
 * 1.2e-6; the row's sum adds 2 or 3 terms per lane then 5 butterfly levels
 * (7 roundings, 4.2e-7 more), then rcp.rn and one multiply (1.2e-7). The
 * quotient is within about 3e-6 of exact; 1e-5 relative leaves a margin
 * and still catches any wrong or missing term (each is at least exp(-8)
 * of the largest, 3e-4 of it). */
Test(corpus, softmax) {
  static float x[SM_ROWS * SM_COLS], y[SM_ROWS * SM_COLS];
  uint32_t s = 3;
  for (int i = 0; i < SM_ROWS * SM_COLS; i++) x[i] = (float)small_int(&s, -400, 400) / 100.0f;
  both_modes("softmax", "softmax_rows", NULL, softmax_launch, x, y, sizeof y);
  for (int row = 0; row < SM_ROWS; row++) {
    const float *in = x + row * SM_COLS;
    double m = in[0], sum = 0.0;
    for (int c = 1; c < SM_COLS; c++) m = fmax(m, in[c]);
    for (int c = 0; c < SM_COLS; c++) sum += exp((double)in[c] - m);
    for (int c = 0; c < SM_COLS; c++) {
      double want = exp((double)in[c] - m) / sum, got = y[row * SM_COLS + c];
      cr_assert_leq(fabs(got - want), 1e-5 * want, "y[%d][%d] = %.9g, expected %.9g", row, c, got, want);
    }
  }
}

/* ---- layernorm: (x - mean) * rsqrt(var + eps) * gamma + beta, per row -------------- */

enum { LN_ROWS = 5, LN_D = 200 }; /* block 128: threads 0..71 take two elements, the rest one */

typedef struct ln_case {
  float x[LN_ROWS * LN_D], gamma[LN_D], beta[LN_D];
} ln_case;

static const float ln_eps = 1e-5f;

static void layernorm_launch(run *r, const void *in, void *out) {
  const ln_case *c = in;
  buf(r, "param_0", sizeof c->x, c->x);
  uint64_t y = buf(r, "param_1", sizeof c->x, NULL);
  buf(r, "param_2", sizeof c->gamma, c->gamma);
  buf(r, "param_3", sizeof c->beta, c->beta);
  set_u32(r, "param_4", LN_D);
  set_f32(r, "param_5", ln_eps);
  launch(r, dim1(LN_ROWS), dim1(128));
  read_back(r, out, y, sizeof c->x);
}

/* The inputs are quarters in [-4, 4]: the sums of x (multiples of 1/4) and
 * of x^2 (multiples of 1/16) stay far below 2^20 and are exact in any
 * order, so the summation order does not matter. What remains inexact, per
 * the PTX: mean = sum / D and var = fma(-mean, mean, sumsq / D) + eps (4
 * roundings on values below 8, var about 5.6: under 2e-7 relative to var),
 * rsqrt.approx.f32 (2^-22.9 relative, PTX ISA), then (x - mean) * rstd *
 * gamma + beta (3 or 4 roundings). The scaled term is within 6e-7 relative
 * and the sum with beta adds one rounding; 2e-6 of (|scaled| + |beta|),
 * with 1e-7 absolute where both are near 0 (mean's own rounding), leaves a
 * margin. */
Test(corpus, layernorm) {
  static ln_case c;
  static float y[LN_ROWS * LN_D];
  uint32_t s = 11;
  for (int i = 0; i < LN_ROWS * LN_D; i++) c.x[i] = (float)small_int(&s, -16, 16) / 4.0f;
  for (int i = 0; i < LN_D; i++) c.gamma[i] = (float)small_int(&s, -8, 8) / 4.0f;
  for (int i = 0; i < LN_D; i++) c.beta[i] = (float)small_int(&s, -8, 8) / 2.0f;
  both_modes("layernorm", "layernorm", NULL, layernorm_launch, &c, y, sizeof y);
  for (int row = 0; row < LN_ROWS; row++) {
    const float *in = c.x + row * LN_D;
    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < LN_D; i++) sum += in[i], sq += (double)in[i] * in[i];
    double mean = sum / LN_D, rstd = 1.0 / sqrt(sq / LN_D - mean * mean + (double)ln_eps);
    for (int i = 0; i < LN_D; i++) {
      double scaled = ((double)in[i] - mean) * rstd * c.gamma[i];
      double want = scaled + c.beta[i], got = y[row * LN_D + i];
      double tol = 2e-6 * (fabs(scaled) + fabs((double)c.beta[i])) + 1e-7;
      cr_assert_leq(fabs(got - want), tol, "y[%d][%d] = %.9g, expected %.9g", row, i, got, want);
    }
  }
}

/* ---- scan: block-level inclusive prefix sums --------------------------------------- */

enum { SCAN_N = 1000, SCAN_GRID = 4 }; /* the last block holds 232 elements */

typedef struct scan_out {
  int32_t out[SCAN_N], block_sums[SCAN_GRID];
} scan_out;

static void scan_launch(run *r, const void *in, void *outp) {
  scan_out *o = outp;
  buf(r, "param_0", SCAN_N * sizeof(int32_t), in);
  uint64_t out = buf(r, "param_1", sizeof o->out, NULL);
  uint64_t sums = buf(r, "param_2", sizeof o->block_sums, NULL);
  set_u32(r, "param_3", SCAN_N);
  launch(r, dim1(SCAN_GRID), dim1(256));
  read_back(r, o->out, out, sizeof o->out);
  read_back(r, o->block_sums, sums, sizeof o->block_sums);
}

/* Integers: exact. A block's sum is its last thread's value, which past n
 * adds zeros, so the partial last block's sum is the sum of its elements. */
Test(corpus, scan) {
  static int32_t in[SCAN_N];
  static scan_out o;
  uint32_t s = 5;
  for (int i = 0; i < SCAN_N; i++) in[i] = small_int(&s, -50, 50);
  both_modes("scan", "scan_inclusive", "classroom", scan_launch, in, &o, sizeof o);
  int32_t acc = 0;
  for (int i = 0; i < SCAN_N; i++) {
    if (i % 256 == 0) acc = 0;
    acc += in[i];
    cr_assert_eq(o.out[i], acc, "out[%d] = %d, expected %d", i, o.out[i], acc);
    if (i % 256 == 255 || i == SCAN_N - 1)
      cr_assert_eq(o.block_sums[i / 256], acc, "block_sums[%d] = %d, expected %d", i / 256,
                   o.block_sums[i / 256], acc);
  }
}

/* ---- the SGEMMs: C = alpha * A * B + beta * C ---------------------------------------- */

typedef struct gemm_case {
  uint32_t m, n, k;
  ws_dim3 grid, block;
  float alpha, beta;
  float *a, *b, *c; /* m x k, k x n, m x n; row-major */
} gemm_case;

static void gemm_launch(run *r, const void *in, void *out) {
  const gemm_case *g = in;
  set_u32(r, "param_0", g->m);
  set_u32(r, "param_1", g->n);
  set_u32(r, "param_2", g->k);
  set_f32(r, "param_3", g->alpha);
  buf(r, "param_4", (size_t)g->m * g->k * sizeof(float), g->a);
  buf(r, "param_5", (size_t)g->k * g->n * sizeof(float), g->b);
  set_f32(r, "param_6", g->beta);
  uint64_t c = buf(r, "param_7", (size_t)g->m * g->n * sizeof(float), g->c);
  launch(r, g->grid, g->block);
  read_back(r, out, c, (size_t)g->m * g->n * sizeof(float));
}

/* Entries are integers in [-3, 3] (C in [-5, 5]), alpha = 2, beta = -3:
 * every product, partial sum (at most K x 9 = 432) and the final
 * alpha * acc + beta * c is an integer far below 2^24, so fp32 computes it
 * exactly whatever the summation order or fusing: exact equality. */
static void check_gemm(const char *file, const char *kernel, uint32_t m, uint32_t n, uint32_t k, ws_dim3 grid,
                       ws_dim3 block) {
  gemm_case g = {.m = m, .n = n, .k = k, .grid = grid, .block = block, .alpha = 2.0f, .beta = -3.0f};
  g.a = malloc((size_t)m * k * sizeof(float));
  g.b = malloc((size_t)k * n * sizeof(float));
  g.c = malloc((size_t)m * n * sizeof(float));
  float *got = malloc((size_t)m * n * sizeof(float));
  cr_assert(g.a && g.b && g.c && got);
  uint32_t s = 9;
  for (size_t i = 0; i < (size_t)m * k; i++) g.a[i] = (float)small_int(&s, -3, 3);
  for (size_t i = 0; i < (size_t)k * n; i++) g.b[i] = (float)small_int(&s, -3, 3);
  for (size_t i = 0; i < (size_t)m * n; i++) g.c[i] = (float)small_int(&s, -5, 5);
  both_modes(file, kernel, NULL, gemm_launch, &g, got, (size_t)m * n * sizeof(float));
  for (uint32_t i = 0; i < m; i++)
    for (uint32_t j = 0; j < n; j++) {
      int64_t acc = 0;
      for (uint32_t p = 0; p < k; p++) acc += (int64_t)g.a[i * k + p] * (int64_t)g.b[p * n + j];
      float want = (float)(2 * acc - 3 * (int64_t)g.c[i * n + j]);
      cr_assert_eq(got[i * n + j], want, "%s: C[%u][%u] = %g, expected %g", kernel, i, j, got[i * n + j],
                   want);
    }
  free(g.a);
  free(g.b);
  free(g.c);
  free(got);
}

/* 37 x 45 x 29: a 3 x 3 grid of 16 x 16 blocks, partial in both dimensions */
Test(corpus, sgemm_naive) { check_gemm("sgemm_naive", "sgemm_naive", 37, 45, 29, dim2(3, 3), dim2(16, 16)); }

/* 40 x 35 x 50: a 3 x 3 grid, and K = 3 x 16 + 2 so the last tile of k is partial */
Test(corpus, sgemm_tiled) { check_gemm("sgemm_tiled", "sgemm_tiled", 40, 35, 50, dim2(3, 3), dim2(16, 16)); }

/* the kernel requires multiples of the tiles: 128 x 192 x 24 is 3 x 2 CTAs of
 * 64 threads, three steps of k */
Test(corpus, sgemm_reg_64) {
  check_gemm("sgemm_reg", "sgemm_reg_64_64_8_8_8", 128, 192, 24, dim2(3, 2), dim1(64));
}

/* 256 x 256 x 16: 2 x 2 CTAs of 256 threads, two steps of k */
Test(corpus, sgemm_reg_128) {
  check_gemm("sgemm_reg", "sgemm_reg_128_128_8_8_8", 256, 256, 16, dim2(2, 2), dim1(256));
}

/* ---- hgemm_mma: C = A * B on tensor cores (half in, float out) ------------------------- */

typedef struct hgemm_case {
  uint32_t m, n, k;
  uint16_t *a, *bt; /* binary16: m x k row-major, and B stored n x k */
} hgemm_case;

static void hgemm_launch(run *r, const void *in, void *out) {
  const hgemm_case *h = in;
  set_u32(r, "param_0", h->m);
  set_u32(r, "param_1", h->n);
  set_u32(r, "param_2", h->k);
  buf(r, "param_3", (size_t)h->m * h->k * sizeof(uint16_t), h->a);
  buf(r, "param_4", (size_t)h->n * h->k * sizeof(uint16_t), h->bt);
  uint64_t c = buf(r, "param_5", (size_t)h->m * h->n * sizeof(float), NULL);
  launch(r, dim2(h->n / 32, h->m / 16), dim1(128));
  read_back(r, out, c, (size_t)h->m * h->n * sizeof(float));
}

/* 48 x 96 x 32: 3 x 3 CTAs of four warps, two steps of k (the kernel needs
 * M, N, K multiples of 16, 32, 16). Entries are integers in [-3, 3], exact
 * in binary16, and every fp32 partial sum is an integer below 2^24 whatever
 * order the MMA adds in: exact equality. */
Test(corpus, hgemm_mma) {
  enum { M = 48, N = 96, K = 32 };
  static uint16_t a[M * K], bt[N * K];
  static int av[M * K], bv[N * K];
  static float got[M * N];
  uint32_t s = 21;
  for (int i = 0; i < M * K; i++) av[i] = small_int(&s, -3, 3), a[i] = ws_f16_from_f32((float)av[i]);
  for (int i = 0; i < N * K; i++) bv[i] = small_int(&s, -3, 3), bt[i] = ws_f16_from_f32((float)bv[i]);
  hgemm_case h = {.m = M, .n = N, .k = K, .a = a, .bt = bt};
  both_modes("hgemm_mma", "hgemm_mma", NULL, hgemm_launch, &h, got, sizeof got);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int acc = 0;
      for (int p = 0; p < K; p++) acc += av[i * K + p] * bv[j * K + p];
      cr_assert_eq(got[i * N + j], (float)acc, "C[%d][%d] = %g, expected %d", i, j, got[i * N + j], acc);
    }
}

/* ---- divergent_loop: trips[i] steps of v = v * 0.5 + 1 -------------------------------- */

enum { DL_N = 300 }; /* 3 CTAs of 128, the last one partly past n */

typedef struct dl_case {
  int32_t trips[DL_N];
  float x[DL_N];
} dl_case;

static void divergent_launch(run *r, const void *in, void *out) {
  const dl_case *c = in;
  buf(r, "param_0", sizeof c->trips, c->trips);
  buf(r, "param_1", sizeof c->x, c->x);
  uint64_t y = buf(r, "param_2", DL_N * sizeof(float), NULL);
  set_u32(r, "param_3", DL_N);
  launch(r, dim1(ceil_div(DL_N, 128)), dim1(128));
  read_back(r, out, y, DL_N * sizeof(float));
}

/* v * 0.5 is exact, so the kernel's fma.rn.f32 (v, 0.5, 1) rounds once
 * exactly as v * 0.5f + 1.0f does here: exact equality. Trip counts 0..12
 * differ between neighbouring lanes (7 i mod 13), so every warp diverges. */
Test(corpus, divergent_loop) {
  static dl_case c;
  static float y[DL_N];
  for (int i = 0; i < DL_N; i++) c.trips[i] = (7 * i) % 13, c.x[i] = (float)i * 1.7f - 200.0f;
  both_modes("divergent_loop", "divergent_loop", NULL, divergent_launch, &c, y, sizeof y);
  for (int i = 0; i < DL_N; i++) {
    float v = c.x[i];
    for (int t = 0; t < c.trips[i]; t++) v = v * 0.5f + 1.0f;
    cr_assert_eq(y[i], v, "y[%d] = %.9g, expected %.9g (%d trips)", i, y[i], v, c.trips[i]);
  }
}

/* ---- early_exit: relu with a count of the negatives ---------------------------------- */

enum { EE_N = 1000 }; /* 4 CTAs of 256, the last one partly past n */

typedef struct ee_out {
  float y[EE_N + 8]; /* 8 guard elements past n must stay untouched */
  int32_t negatives;
} ee_out;

static void early_exit_launch(run *r, const void *in, void *outp) {
  ee_out *o = outp;
  buf(r, "param_0", EE_N * sizeof(float), in);
  uint64_t y = buf(r, "param_1", sizeof o->y, NULL);
  set_u32(r, "param_2", EE_N);
  uint64_t neg = buf(r, "param_3", sizeof(int32_t), NULL);
  launch(r, dim1(ceil_div(EE_N, 256)), dim1(256));
  read_back(r, o->y, y, sizeof o->y);
  read_back(r, &o->negatives, neg, sizeof o->negatives);
}

/* Copies, zeros and an integer count: exact. -0.0 is not negative (v >= 0
 * holds), so it is copied with its sign. */
Test(corpus, early_exit) {
  static float x[EE_N];
  static ee_out o;
  uint32_t s = 13;
  int32_t want = 0;
  for (int i = 0; i < EE_N; i++) {
    x[i] = i % 97 == 0 ? -0.0f : (float)small_int(&s, -300, 200) / 8.0f;
    want += x[i] < 0.0f;
  }
  both_modes("early_exit", "relu_count", NULL, early_exit_launch, x, &o, sizeof o);
  for (int i = 0; i < EE_N; i++) {
    float w = x[i] >= 0.0f ? x[i] : 0.0f;
    cr_assert(memcmp(&o.y[i], &w, sizeof w) == 0, "y[%d] = %g, expected %g", i, o.y[i], w);
  }
  for (int i = EE_N; i < EE_N + 8; i++) cr_assert_eq(o.y[i], 0.0f, "y[%d] past n was written", i);
  cr_assert_eq(o.negatives, want, "negatives = %d, expected %d", o.negatives, want);
}

/* ---- device_funcs: __noinline__ functions, inlined at each call ----------------------- */

enum { DF_N = 300 }; /* 3 CTAs of 128, the last one partly past n */

typedef struct df_out {
  float y[DF_N], z[DF_N];
  int32_t w[DF_N];
} df_out;

static void device_funcs_launch(run *r, const void *in, void *outp) {
  df_out *o = outp;
  set_u32(r, "param_0", DF_N);
  buf(r, "param_1", DF_N * sizeof(float), in);
  uint64_t y = buf(r, "param_2", sizeof o->y, NULL), z = buf(r, "param_3", sizeof o->z, NULL);
  uint64_t w = buf(r, "param_4", sizeof o->w, NULL);
  set_f32(r, "param_5", 0.75f);
  launch(r, dim1(ceil_div(DF_N, 128)), dim1(128));
  read_back(r, o->y, y, sizeof o->y);
  read_back(r, o->z, z, sizeof o->z);
  read_back(r, o->w, w, sizeof o->w);
}

static float df_poly(float v, float c) { return fmaf(v, v, c); }

static int df_first_above(const float *x, int n, float t) {
  for (int k = 0; k < n; k++)
    if (x[k] > t) return k;
  return -1;
}

/* clang contracts each v * s + c into one fma.rn.f32, as fmaf rounds once;
 * the inputs are eighths, so every result is the host's exactly. */
Test(corpus, device_funcs) {
  static float x[DF_N];
  static df_out o;
  uint32_t s = 29;
  for (int i = 0; i < DF_N; i++) x[i] = (float)small_int(&s, -40, 40) / 8.0f;
  both_modes("device_funcs", "device_funcs", NULL, device_funcs_launch, x, &o, sizeof o);
  for (int i = 0; i < DF_N; i++) {
    float a = df_poly(x[i], 0.5f);
    if (i % 3 == 0) a = df_poly(a, -1.0f);
    int c = i % 7 - 10 + i;
    c = c < -4 ? -4 : c > 40 ? 40 : c;
    float y = fmaf(a, 0.75f, (float)c), z = df_poly(x[i], 1.0f) + df_poly(-x[i], 2.0f);
    int left = DF_N - i < 8 ? DF_N - i : 8;
    int w = x[i] < 0.0f ? df_first_above(x + i, left, x[i] + 1.0f) : -2;
    cr_assert_eq(o.y[i], y, "y[%d] = %.9g, expected %.9g", i, o.y[i], y);
    cr_assert_eq(o.z[i], z, "z[%d] = %.9g, expected %.9g", i, o.z[i], z);
    cr_assert_eq(o.w[i], w, "w[%d] = %d, expected %d", i, o.w[i], w);
  }
}

/* ---- persistent: blocks take work items until the queue runs dry --------------------- */

/* The committed PTX (clang 14.0.6) is racy for blocks of more than one
 * thread: the `int it = item;` after the first __syncthreads is compiled,
 * for threads other than 0, into an ld.shared of `item` *before* the
 * bar.sync (persistent.ptx line 52, the barrier is line 70), so they read
 * the previous item, or shared memory never written. This is LLVM's
 * __syncthreads miscompilation (llvm/llvm-project#58626: a shared variable
 * written by one thread, read by all after the barrier); the translation
 * is faithful to the PTX. With one thread per block there is no one to
 * race with, so the work queue is tested with blocks of 1 (items of one
 * float); the 128-thread launch is pinned to the race the simulator's
 * checker finds in it. */
enum { PW_ITEMS = 40, PW_GRID = 2 }; /* grid = the classroom preset's 2 SMs */

typedef struct pw_out {
  float out[PW_ITEMS];
  int32_t next_item;
} pw_out;

/* The buffers and params of a launch with blocks of `block` threads over
 * PW_ITEMS items, `ready` already allocated; the outputs' addresses. */
static void persistent_args(run *r, uint64_t ready, uint32_t block, const float *in, uint64_t *out,
                            uint64_t *next) {
  cr_assert_eq(ws_args_set_ptr(r->ctx, &r->args, "param_0", ready), WS_OK);
  *next = buf(r, "param_1", sizeof(int32_t), NULL);
  buf(r, "param_2", PW_ITEMS * block * sizeof(float), in);
  *out = buf(r, "param_3", PW_ITEMS * block * sizeof(float), NULL);
  set_u32(r, "param_4", PW_ITEMS);
}

static void persistent_launch(run *r, const void *in, void *outp) {
  pw_out *o = outp;
  const int32_t one = 1;
  uint64_t ready = buf(r, NULL, sizeof one, &one), out, next;
  persistent_args(r, ready, 1, in, &out, &next);
  launch(r, dim1(PW_GRID), dim1(1));
  read_back(r, o->out, out, sizeof o->out);
  read_back(r, &o->next_item, next, sizeof o->next_item);
}

/* Every item is doubled exactly once, whichever block takes it; each
 * block's last atomicAdd returns an index past the items, so the counter
 * ends at items + blocks. */
static void check_persistent(const float *in, const pw_out *o) {
  for (int i = 0; i < PW_ITEMS; i++)
    cr_assert_eq(o->out[i], in[i] * 2.0f, "out[%d] = %g, expected %g", i, o->out[i], in[i] * 2.0f);
  cr_assert_eq(o->next_item, PW_ITEMS + PW_GRID, "next_item = %d, expected %d", o->next_item,
               PW_ITEMS + PW_GRID);
}

static void persistent_input(float *in, size_t n) {
  for (size_t i = 0; i < n; i++) in[i] = (float)i * 0.25f - 100.0f;
}

/* The flag is set by the host before the launch, so the spin passes at once. */
Test(corpus, persistent_with_the_flag_set_before_the_launch) {
  float in[PW_ITEMS];
  pw_out o;
  persistent_input(in, PW_ITEMS);
  both_modes("persistent", "persistent_worker", "classroom", persistent_launch, in, &o, sizeof o);
  check_persistent(in, &o);
}

/* The producer the .cu names: the host publishes the flag during a timed
 * launch (a host agent writing mapped host memory at a simulated cycle), so
 * both blocks' thread 0 spin on their volatile load until then. */
enum { PW_PUBLISH_CYCLE = 3000 };

typedef struct publisher {
  ws_device *dev;
  uint64_t ready;
  bool done;
} publisher;

static uint64_t publish_next(void *user) { return ((publisher *)user)->done ? UINT64_MAX : PW_PUBLISH_CYCLE; }

static ws_status publish(void *user, uint64_t cycle) {
  publisher *p = user;
  const int32_t one = 1;
  (void)cycle;
  p->done = true;
  return ws_device_memcpy_htod(p->dev, p->ready, &one, sizeof one);
}

Test(corpus, persistent_with_the_flag_published_during_the_launch) {
  float in[PW_ITEMS];
  pw_out o;
  persistent_input(in, PW_ITEMS);
  run r;
  start(&r, "persistent", "persistent_worker", "classroom");
  ws_args_init(&r.args, r.k);
  publisher p = {.dev = r.dev};
  cr_assert_eq(ws_device_host_alloc(r.dev, sizeof(int32_t), &p.ready), WS_OK, "%s", ws_errmsg(r.ctx));
  cr_assert_eq(ws_device_memset(r.dev, p.ready, 0, sizeof(int32_t)), WS_OK);
  uint64_t out, next;
  persistent_args(&r, p.ready, 1, in, &out, &next);
  const ws_host_agent agent = {.user = &p, .next_cycle = publish_next, .act = publish};
  ws_device_set_host_agent(r.dev, &agent);
  ws_device_set_mode(r.dev, WS_MODE_TIMING);
  launch(&r, dim1(PW_GRID), dim1(1));
  ws_device_set_host_agent(r.dev, NULL);
  read_back(&r, o.out, out, sizeof o.out);
  read_back(&r, &o.next_item, next, sizeof o.next_item);
  cr_assert(p.done, "the flag was never published");
  cr_assert_gt(r.stats.cycles, PW_PUBLISH_CYCLE, "the kernel finished at cycle %llu, before the flag",
               (unsigned long long)r.stats.cycles);
  check_persistent(in, &o);
  stop(&r);
}

/* The launch the .cu describes, blocks of 128, under the race check: the
 * hoisted load of `item` (PTX line 52) races with thread 0's store (PTX
 * line 67). Without the check the launch stops at a divergent barrier: in
 * warp 0 thread 0 took a new item while threads 1-31 kept the old one, so
 * they disagree on leaving the loop. When the corpus's
 * PTX comes from a clang without the bug (or __syncthreads is made an asm
 * barrier with a memory clobber, which fixes it), this test fails and
 * should become a plain run with blocks of 128. */
/* Blocks of 128 threads share each item through shared memory behind a
 * __syncthreads: race-free (the race check on), every element doubled once. */
Test(corpus, persistent_blocks_of_128_run_race_free) {
  enum { BLOCK = 128 };
  static float in[PW_ITEMS * BLOCK], got[PW_ITEMS * BLOCK];
  persistent_input(in, PW_ITEMS * BLOCK);
  run r;
  start(&r, "persistent", "persistent_worker", "classroom");
  ws_device_set_mode(r.dev, WS_MODE_FUNCTIONAL);
  ws_device_set_checks(r.dev, WS_CHECK_RACE);
  ws_args_init(&r.args, r.k);
  const int32_t one = 1;
  uint64_t ready = buf(&r, NULL, sizeof one, &one), out, next;
  persistent_args(&r, ready, BLOCK, in, &out, &next);
  ws_status st = ws_device_launch(r.dev, r.k, dim1(PW_GRID), dim1(BLOCK), 0, &r.args, &r.stats);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r.ctx));
  int32_t next_item = 0;
  read_back(&r, got, out, sizeof got);
  read_back(&r, &next_item, next, sizeof next_item);
  for (int i = 0; i < PW_ITEMS * BLOCK; i++)
    cr_assert_eq(got[i], in[i] * 2.0f, "out[%d] = %g, expected %g", i, got[i], in[i] * 2.0f);
  cr_assert_eq(next_item, PW_ITEMS + PW_GRID, "next_item = %d", next_item);
  stop(&r);
}

/* ---- bytes: 8- and 16-bit stores (STG/STS .8 and .16) ------------------------------------ */

enum { BYTES_PIX = 300, BYTES_Q8 = 500, BYTES_Q16 = 301, BYTES_PAD = 8 };

/* The output buffers start as 0xA5 bytes and run BYTES_PAD bytes past what
 * the kernel writes: a byte store that wrote its whole word, or past its
 * element, would show there. */
static uint64_t padded(run *r, const char *param, size_t bytes) {
  uint8_t *fill = malloc(bytes);
  cr_assert_not_null(fill);
  memset(fill, 0xA5, bytes);
  uint64_t p = buf(r, param, bytes, fill);
  free(fill);
  return p;
}

static const float bytes_gain = 1.7f;

static void brighten_launch(run *r, const void *in, void *out) {
  buf(r, "param_0", BYTES_PIX * 4u, in);
  uint64_t o = padded(r, "param_1", BYTES_PIX * 4u + BYTES_PAD);
  set_u32(r, "param_2", BYTES_PIX);
  set_f32(r, "param_3", bytes_gain);
  launch(r, dim1(ceil_div(BYTES_PIX, 256)), dim1(256));
  read_back(r, out, o, BYTES_PIX * 4u + BYTES_PAD);
}

/* Pixels with every byte value in each channel; the product and the
 * truncation are one fp32 multiply and a conversion, exact in C alike. */
static void check_brighten(const char *kernel) {
  static uint8_t in[BYTES_PIX * 4], out[BYTES_PIX * 4 + BYTES_PAD];
  for (int i = 0; i < BYTES_PIX * 4; i++) in[i] = (uint8_t)(i * 37 + i / 7);
  both_modes("bytes", kernel, NULL, brighten_launch, in, out, sizeof out);
  for (int i = 0; i < BYTES_PIX * 4; i++) {
    int v = (int)((float)in[i] * bytes_gain), want = i % 4 == 3 ? in[i] : v < 255 ? v : 255;
    cr_assert_eq(out[i], want, "%s: byte %d = %u, expected %d", kernel, i, out[i], want);
  }
  for (int i = BYTES_PIX * 4; i < (int)sizeof out; i++)
    cr_assert_eq(out[i], 0xA5, "%s: byte %d past the pixels was overwritten", kernel, i);
}

Test(corpus, brighten_stores_each_channel_as_a_byte) { check_brighten("brighten"); }
Test(corpus, brighten4_stores_packed_uchar4_pixels) { check_brighten("brighten4"); }

static unsigned host_quantize(float x, float top) {
  return (unsigned)(fminf(fmaxf(x * top, 0.0f), top) + 0.5f);
}

/* Inputs from below 0 to above 1, so both clamps act. */
static float quantize_input(int i) { return (float)(i % 97) / 80.0f - 0.1f; }

static void quantize_u8_launch(run *r, const void *in, void *out) {
  enum { GRID = (BYTES_Q8 + 255) / 256 };
  buf(r, "param_0", BYTES_Q8 * sizeof(float), in);
  uint64_t o = padded(r, "param_1", GRID * 256u + BYTES_PAD);
  set_u32(r, "param_2", BYTES_Q8);
  launch(r, dim1(GRID), dim1(256));
  read_back(r, out, o, GRID * 256u + BYTES_PAD);
}

/* Each warp's 32 lanes store 32 adjacent bytes of shared memory, four to a
 * word, which the race check must not take for a race; the reversal reads
 * them back across warps after the barrier. */
Test(corpus, quantize_u8_reverses_bytes_through_shared_memory) {
  enum { GRID = (BYTES_Q8 + 255) / 256 };
  static float in[BYTES_Q8];
  static uint8_t out[GRID * 256 + BYTES_PAD];
  for (int i = 0; i < BYTES_Q8; i++) in[i] = quantize_input(i);
  both_modes("bytes", "quantize_u8", NULL, quantize_u8_launch, in, out, sizeof out);
  for (int b = 0; b < GRID; b++)
    for (int t = 0; t < 256; t++) {
      int e = b * 256 + 255 - t;
      unsigned want = e < BYTES_Q8 ? host_quantize(in[e], 255.0f) : 0u;
      cr_assert_eq(out[b * 256 + t], want, "out[%d] = %u, expected %u", b * 256 + t, out[b * 256 + t], want);
    }
  for (int i = GRID * 256; i < (int)sizeof out; i++) cr_assert_eq(out[i], 0xA5, "byte %d overwritten", i);
}

static void quantize_u16_launch(run *r, const void *in, void *out) {
  buf(r, "param_0", BYTES_Q16 * sizeof(float), in);
  uint64_t o = padded(r, "param_1", BYTES_Q16 * 2u + BYTES_PAD + 2u);
  set_u32(r, "param_2", BYTES_Q16);
  launch(r, dim1(ceil_div(BYTES_Q16, 256)), dim1(256));
  read_back(r, out, o, BYTES_Q16 * 2u + BYTES_PAD + 2u);
}

/* An odd count: the last element's word has an unwritten upper half. */
Test(corpus, quantize_u16_stores_halfwords) {
  static float in[BYTES_Q16];
  static uint16_t out[BYTES_Q16 + (BYTES_PAD + 2) / 2];
  for (int i = 0; i < BYTES_Q16; i++) in[i] = quantize_input(i * 13);
  both_modes("bytes", "quantize_u16", NULL, quantize_u16_launch, in, out, sizeof out);
  for (int i = 0; i < BYTES_Q16; i++) {
    unsigned want = host_quantize(in[i], 65535.0f);
    cr_assert_eq(out[i], want, "out[%d] = %u, expected %u", i, out[i], want);
  }
  for (int i = BYTES_Q16; i < (int)(sizeof out / 2); i++)
    cr_assert_eq(out[i], 0xA5A5, "halfword %d past the elements was overwritten", i);
}

/* ---- struct_params: structs passed by value ---------------------------------------------- */

/* The committed PTX has no source beside it, so each struct's fields are
 * the words its ld.param instructions read, named by offset: Affine's
 * scale, shift, n and src at 0, 4, 8 and 16; gains4's float4 at 0, 4, 8,
 * 12 and Span's range.x, range.y and data at 0, 4 and 8. */
enum { STRUCT_N = 700, STRUCT_LEN = 800 };
static const float affine_scale = 1.75f, affine_shift = -0.375f;
static const float gain[4] = {0.5f, 2.0f, -1.25f, 3.0f};
static const int span_lo = 37, span_hi = 611;

static void affine_launch(run *r, const void *in, void *outp) {
  set_f32(r, "param_0.0", affine_scale);
  set_f32(r, "param_0.4", affine_shift);
  set_u32(r, "param_0.8", STRUCT_N); /* read by ld.param.u32: a .u32 field */
  buf(r, "param_0.16", STRUCT_LEN * sizeof(float), in);
  uint64_t out = buf(r, "param_1", STRUCT_LEN * sizeof(float), NULL);
  launch(r, dim1(ceil_div(STRUCT_LEN, 256)), dim1(256));
  read_back(r, outp, out, STRUCT_LEN * sizeof(float));
}

static void gains4_launch(run *r, const void *in, void *outp) {
  char name[16];
  for (int c = 0; c < 4; c++) {
    snprintf(name, sizeof name, "param_0.%d", 4 * c);
    set_f32(r, name, gain[c]);
  }
  set_u32(r, "param_1.0", (uint32_t)span_lo);
  set_u32(r, "param_1.4", (uint32_t)span_hi);
  uint64_t data = buf(r, "param_1.8", STRUCT_LEN * sizeof(float), in);
  launch(r, dim1(ceil_div(STRUCT_LEN, 256)), dim1(256));
  read_back(r, outp, data, STRUCT_LEN * sizeof(float));
}

Test(corpus, struct_params_by_value) {
  static float in[STRUCT_LEN], out[STRUCT_LEN];
  for (int i = 0; i < STRUCT_LEN; i++) in[i] = (float)((i * 29) % 97 - 48) * 0.0625f;
  both_modes("struct_params", "affine", NULL, affine_launch, in, out, sizeof out);
  for (int i = 0; i < STRUCT_LEN; i++) {
    float want = i < STRUCT_N ? fmaf(in[i], affine_scale, affine_shift) : 0.0f;
    cr_assert_eq(out[i], want, "affine out[%d] = %.9g, expected %.9g", i, out[i], want);
  }
  both_modes("struct_params", "gains4", NULL, gains4_launch, in, out, sizeof out);
  for (int i = 0; i < STRUCT_LEN; i++) {
    float want = i >= span_lo && i < span_hi ? in[i] * gain[i % 4] : in[i];
    cr_assert_eq(out[i], want, "gains4 data[%d] = %.9g, expected %.9g", i, out[i], want);
  }
}

/* ---- the corpus files the translator refuses ------------------------------------------ */

/* half_axpy.cu: one fma.rn.f16x2 per pair, and a float -> half kernel
 * whose 16-bit stores leave the neighbouring half alone. GCC's _Float16
 * is the reference: a half product is exact in double and the sum of two
 * values within [-8, 8] too, so one rounding to _Float16 is fma's. */
enum { HALF_PAIRS = 300, HALF_N = 601 };
static const float half_a = 0.75f;

static void half_axpy_launch(run *r, const void *in, void *outp) {
  const _Float16 *xy = in; /* x pairs, then y pairs */
  uint64_t x = buf(r, "param_2", HALF_PAIRS * 4, xy);
  uint64_t y = buf(r, "param_3", HALF_PAIRS * 4, xy + 2 * HALF_PAIRS);
  set_u32(r, "param_0", HALF_PAIRS);
  set_f32(r, "param_1", half_a);
  (void)x;
  launch(r, dim1(ceil_div(HALF_PAIRS, 256)), dim1(256));
  read_back(r, outp, y, HALF_PAIRS * 4);
}

static void to_half_launch(run *r, const void *in, void *outp) {
  static _Float16 fill[HALF_N + 1];
  for (int i = 0; i <= HALF_N; i++) fill[i] = (_Float16)-3.0f; /* the half past n stays */
  buf(r, "param_0", HALF_N * sizeof(float), in);
  uint64_t out = buf(r, "param_1", sizeof fill, fill);
  set_u32(r, "param_2", HALF_N);
  launch(r, dim1(ceil_div(HALF_N, 256)), dim1(256));
  read_back(r, outp, out, sizeof fill);
}

Test(corpus, half_axpy_fma_and_half_stores) {
  static _Float16 xy[4 * HALF_PAIRS], y[2 * HALF_PAIRS];
  for (int i = 0; i < 4 * HALF_PAIRS; i++) xy[i] = (_Float16)((float)((i * 37) % 113 - 56) / 7.0f);
  both_modes("half_axpy", "half_axpy", NULL, half_axpy_launch, xy, y, sizeof y);
  _Float16 ah = (_Float16)half_a;
  for (int i = 0; i < 2 * HALF_PAIRS; i++) {
    _Float16 want = (_Float16)((double)ah * (double)xy[i] + (double)xy[2 * HALF_PAIRS + i]);
    cr_assert(y[i] == want, "y[%d] = %g, expected %g", i, (double)y[i], (double)want);
  }
  static float in[HALF_N];
  static _Float16 out[HALF_N + 1];
  for (int i = 0; i < HALF_N; i++) in[i] = (float)(i - 300) * 0.3337f + 1e-4f * (float)i;
  both_modes("half_axpy", "to_half", NULL, to_half_launch, in, out, sizeof out);
  for (int i = 0; i < HALF_N; i++)
    cr_assert(out[i] == (_Float16)in[i], "out[%d] = %g, expected %g", i, (double)out[i],
              (double)(_Float16)in[i]);
  cr_assert(out[HALF_N] == (_Float16)-3.0f, "the half past n is untouched");
}

/* host_program.cu's kernel reads a __constant__ array its host code fills
 * with cudaMemcpyToSymbol; here the test writes the constant bank as that
 * call would (the translation puts coef at offset 0) and compares with C's
 * libm: ex2 and tanh are approximations on a GPU (docs/isa.md), 2e-6
 * relative covers their error and the rounding of four terms. */
static const float host_coef[4] = {0.25f, 0.0f, 0.0f, 0.0f};

static void host_program_launch(run *r, const void *in, void *outp) {
  enum { N = 300 };
  const float *x = in;
  cr_assert_eq(r->res.const_bytes, sizeof host_coef, "coef takes %u bytes", r->res.const_bytes);
  cr_assert_eq(ws_device_const_write(r->dev, 0, host_coef, sizeof host_coef), WS_OK);
  buf(r, "param_0", N * sizeof(float), x);
  uint64_t y = buf(r, "param_1", N * sizeof(float), NULL);
  set_u32(r, "param_2", N);
  launch(r, dim1(ceil_div(N, 256)), dim1(256));
  read_back(r, outp, y, N * sizeof(float));
}

Test(corpus, host_program_reads_its_constant_array) {
  enum { N = 300 };
  static float x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i - 150) / 64.0f;
  both_modes("host_program", "norm", NULL, host_program_launch, x, y, sizeof y);
  for (int i = 0; i < N; i++) {
    double want = sqrt((double)x[i] * x[i] + host_coef[0]) + exp(x[i]) + fabs(x[i]) + tanh(x[i]);
    cr_assert(fabs(y[i] - want) <= 2e-6 * fabs(want) + 1e-6, "y[%d] = %.9g, expected %.9g", i, y[i], want);
  }
}

/* ---- saxpy.cu through the installed clang --------------------------------------------- */

/* The .cu path compiles with the project's driver; the params take the
 * source's names (n, a, x, y). */
Test(corpus, saxpy_cu_compiled_by_clang_runs) {
  ws_ctx *ctx = ws_ctx_create();
  char clang[WS_CUDA_PATH_MAX_BYTES];
  if (ws_cuda_find_clang(ctx, clang, sizeof clang) != WS_OK) {
    char why[512];
    snprintf(why, sizeof why, "no clang to compile saxpy.cu: %s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    cr_skip_test("%s", why);
  }
  ws_ctx_destroy(ctx);
  run r;
  memset(&r, 0, sizeof r);
  r.ctx = ws_ctx_create();
  ws_status st = ws_ptx_load_file(r.ctx, CORPUS "saxpy.cu", NULL, NULL, &r.res);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r.ctx));
  r.k = ws_program_find_kernel(r.res.prog, "saxpy");
  cr_assert_not_null(r.k);
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
  ws_args_init(&r.args, r.k);
  enum { N = 777 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 7.0f, y[i] = (float)(i % 13) + 0.25f;
  buf(&r, "x", sizeof x, x);
  uint64_t dy = buf(&r, "y", sizeof y, y);
  set_u32(&r, "n", N);
  set_f32(&r, "a", 2.0f);
  launch(&r, dim1(ceil_div(N, 256)), dim1(256));
  read_back(&r, out, dy, sizeof out);
  for (int i = 0; i < N; i++) cr_assert_eq(out[i], fmaf(2.0f, x[i], y[i]), "y[%d] = %g", i, out[i]);
  stop(&r);
}
