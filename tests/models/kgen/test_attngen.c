/* test_attngen.c - naive and flash attention against a host reference in
 * double precision, flash against naive, bad (Br, Bc, dh) refused with the
 * reason, and timing runs on the classroom and a100 presets.
 *
 * Tolerance, per output O[i][h*dh + c] (u = 2^-24, the fp32 unit roundoff;
 * every FADD/FMUL/FFMA rounds once; docs/isa.md's MUFU.EX2 and MUFU.RCP are
 * exp2f and 1.0f/a in the executor, charged 2u each: glibc's exp2f is within
 * 1 ulp, the reciprocal is correctly rounded):
 *   score s_j = scale * q . k_j: a dh-term dot product and the scaling (flash
 *     also folds log2(e) into q) err by at most (dh + 3) u scale sum_d|q_d k_dj|;
 *     working in base 2, the products with log2(e) and the subtraction of the
 *     max add 3u (|s_j| + |m|), m the row max;
 *   p_j = e^(s_j - m): the exponent error E_j (the sum of both lines, for s_j
 *     and for m) becomes relative error E_j (|d e^x / e^x| = |dx|), plus 2u;
 *   l = sum p_j (T terms) and O = sum p_j v_j / l: T u each, 2u for RCP, u
 *     for the final multiply.
 * So |O - O_ref| <= (2 max_j E_j + (2T + 7) u) * sum_j p_j |v_jc| / l, to
 * first order; the test uses twice that, which covers the second-order terms
 * and the reference's rounding to float. Flash and naive, each inside the
 * bound, are within twice the bound of each other. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kerntest.h"
#include "models/kgen/attngen.h"
#include "models/kgen/nngen.h"

#define U (1.0 / 16777216.0)

/* A problem: inputs on the host and the device, the double reference and
 * the per-output bound. */
typedef struct problem {
  ws_attngen_shape s;
  uint32_t dim;
  float *qkv;
  double *ref, *bound, *probs; /* probs: reference P [H, T, T] */
  double *probs_bound;
  uint64_t d_qkv, d_out, d_scores;
} problem;

static uint64_t dev_alloc(size_t floats) {
  uint64_t d = 0;
  cr_assert_eq(ws_device_malloc(dev, floats * 4, &d), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_memset(dev, d, 0xFF, floats * 4), WS_OK); /* NaN: unwritten outputs show */
  return d;
}

/* Reference for one head and query row (see the file header). */
static void reference_row(problem *pr, uint32_t h, uint32_t i, double *s) {
  const uint32_t T = pr->s.tokens, dh = pr->s.head_dim, D = pr->dim;
  const double scale = 1.0 / sqrt((double)dh);
  double m = -INFINITY, l = 0, emax = 0;
  double err[T];
  for (uint32_t j = 0; j < T; j++) {
    double dot = 0, mag = 0;
    for (uint32_t d = 0; d < dh; d++) {
      double q = pr->qkv[(size_t)i * 3 * D + h * dh + d], k = pr->qkv[(size_t)j * 3 * D + D + h * dh + d];
      dot += q * k;
      mag += fabs(q * k);
    }
    s[j] = dot * scale;
    err[j] = (dh + 3) * U * scale * mag;
    m = fmax(m, s[j]);
  }
  for (uint32_t j = 0; j < T; j++) {
    err[j] += 3 * U * (fabs(s[j]) + fabs(m));
    emax = fmax(emax, err[j]);
    s[j] = exp(s[j] - m);
    l += s[j];
  }
  for (uint32_t j = 0; j < T; j++) {
    double p = s[j] / l;
    pr->probs[((size_t)h * T + i) * T + j] = p;
    pr->probs_bound[((size_t)h * T + i) * T + j] = 2.0 * p * (2 * emax + (T + 5) * U);
  }
  for (uint32_t c = 0; c < dh; c++) {
    double o = 0, mag = 0;
    for (uint32_t j = 0; j < T; j++) {
      double v = pr->qkv[(size_t)j * 3 * D + 2 * D + h * dh + c];
      o += s[j] * v / l;
      mag += s[j] * fabs(v) / l;
    }
    pr->ref[(size_t)i * D + h * dh + c] = o;
    pr->bound[(size_t)i * D + h * dh + c] = 2.0 * (2 * emax + (2 * T + 7) * U) * mag;
  }
}

static problem problem_make(uint32_t tokens, uint32_t heads, uint32_t head_dim, uint64_t seed) {
  problem pr = {.s = {tokens, heads, head_dim, 1}, .dim = heads * head_dim};
  size_t n = (size_t)tokens * 3 * pr.dim, no = (size_t)tokens * pr.dim, np = (size_t)heads * tokens * tokens;
  pr.qkv = malloc(n * sizeof *pr.qkv);
  pr.ref = malloc(no * sizeof *pr.ref);
  pr.bound = malloc(no * sizeof *pr.bound);
  pr.probs = malloc(np * sizeof *pr.probs);
  pr.probs_bound = malloc(np * sizeof *pr.probs_bound);
  double *s = malloc(tokens * sizeof *s);
  cr_assert(pr.qkv && pr.ref && pr.bound && pr.probs && pr.probs_bound && s);
  for (size_t i = 0; i < n; i++) /* uniform in [-2, 2): scores of a few units, a peaked softmax */
    pr.qkv[i] = (float)((double)(rng_next(&seed) >> 40) * (4.0 / 16777216.0) - 2.0);
  for (uint32_t h = 0; h < heads; h++)
    for (uint32_t i = 0; i < tokens; i++) reference_row(&pr, h, i, s);
  free(s);
  pr.d_qkv = dev_alloc(n);
  cr_assert_eq(ws_device_memcpy_htod(dev, pr.d_qkv, pr.qkv, n * 4), WS_OK);
  pr.d_out = dev_alloc(no);
  pr.d_scores = dev_alloc(np);
  return pr;
}

static void problem_free(problem *pr) {
  ws_device_free(dev, pr->d_qkv);
  ws_device_free(dev, pr->d_out);
  ws_device_free(dev, pr->d_scores);
  free(pr->qkv), free(pr->ref), free(pr->bound), free(pr->probs), free(pr->probs_bound);
}

static float *download(uint64_t d, size_t n) {
  float *v = malloc(n * sizeof *v);
  cr_assert_not_null(v);
  cr_assert_eq(ws_device_memcpy_dtoh(dev, v, d, n * 4), WS_OK, "%s", ws_errmsg(ctx));
  return v;
}

/* Counts outputs outside `scale` times the bound; logs the worst ratio. */
static size_t count_outside(const char *what, const float *got, const double *ref, const double *bound,
                            size_t n, double scale) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double err = fabs((double)got[i] - ref[i]);
    if (!(err <= scale * bound[i]) && bad++ < 3)
      cr_log_error("%s[%zu]: got %.9g, want %.9g +- %.3g", what, i, got[i], ref[i], scale * bound[i]);
    if (bound[i] > 0 && err / bound[i] > worst) worst = err / bound[i];
  }
  cr_log_info("%s: worst error / bound = %.3g over %zu values", what, worst, n);
  return bad;
}

static float *run_naive(problem *pr, ws_launch_stats st[WS_ATTNGEN_STAGE_COUNT]) {
  cr_assert_eq(ws_attngen_naive_run(dev, &pr->s, pr->d_qkv, pr->d_scores, pr->d_out, st), WS_OK, "%s",
               ws_errmsg(ctx));
  return download(pr->d_out, (size_t)pr->s.tokens * pr->dim);
}

static float *run_flash(problem *pr, uint32_t br, uint32_t bc, ws_launch_stats *st) {
  ws_attngen_flash_cfg fc = {br, bc};
  cr_assert_eq(ws_device_memset(dev, pr->d_out, 0xFF, (size_t)pr->s.tokens * pr->dim * 4), WS_OK);
  cr_assert_eq(ws_attngen_flash_run(dev, &pr->s, &fc, pr->d_qkv, pr->d_out, st), WS_OK, "Br=%u Bc=%u: %s", br,
               bc, ws_errmsg(ctx));
  return download(pr->d_out, (size_t)pr->s.tokens * pr->dim);
}

/* ---- correctness ------------------------------------------------------------------ */

static void check_shape(uint32_t tokens, uint32_t heads, uint32_t head_dim, const uint32_t (*tiles)[2],
                        size_t ntiles) {
  problem pr = problem_make(tokens, heads, head_dim, 1000 + tokens + head_dim);
  size_t no = (size_t)tokens * pr.dim, np = (size_t)heads * tokens * tokens;
  char what[96];
  float *naive = run_naive(&pr, NULL);
  snprintf(what, sizeof what, "naive T=%u dh=%u", tokens, head_dim);
  cr_expect_eq(count_outside(what, naive, pr.ref, pr.bound, no, 1.0), 0, "%s", what);
  float *probs = download(pr.d_scores, np);
  snprintf(what, sizeof what, "naive P T=%u dh=%u", tokens, head_dim);
  cr_expect_eq(count_outside(what, probs, pr.probs, pr.probs_bound, np, 1.0), 0, "%s", what);
  double *naive_d = malloc(no * sizeof *naive_d);
  for (size_t i = 0; i < no; i++) naive_d[i] = naive[i];
  for (size_t t = 0; t < ntiles; t++) {
    float *flash = run_flash(&pr, tiles[t][0], tiles[t][1], NULL);
    snprintf(what, sizeof what, "flash T=%u dh=%u Br=%u Bc=%u", tokens, head_dim, tiles[t][0], tiles[t][1]);
    cr_expect_eq(count_outside(what, flash, pr.ref, pr.bound, no, 1.0), 0, "%s", what);
    cr_expect_eq(count_outside("flash vs naive", flash, naive_d, pr.bound, no, 2.0), 0, "%s vs naive", what);
    free(flash);
  }
  free(naive), free(probs), free(naive_d);
  problem_free(&pr);
}

static const uint32_t tiles_main[][2] = {{32, 16}, {64, 64}, {32, 7}, {64, 32}, {128, 50}, {32, 1}};

Test(attngen, t64_dh16_naive_and_flash_match_reference, .init = setup, .fini = teardown) {
  check_shape(64, 4, 16, tiles_main, sizeof tiles_main / sizeof tiles_main[0]);
}

Test(attngen, t50_dh16_odd_tokens, .init = setup, .fini = teardown) {
  check_shape(50, 4, 16, tiles_main, sizeof tiles_main / sizeof tiles_main[0]);
}

Test(attngen, t64_dh8, .init = setup, .fini = teardown) {
  check_shape(64, 4, 8, tiles_main, sizeof tiles_main / sizeof tiles_main[0]);
}

Test(attngen, t50_dh8_odd_tokens, .init = setup, .fini = teardown) {
  check_shape(50, 4, 8, tiles_main, sizeof tiles_main / sizeof tiles_main[0]);
}

Test(attngen, other_head_dims_and_single_token, .init = setup, .fini = teardown) {
  static const uint32_t tiles[][2] = {{32, 16}, {64, 5}};
  check_shape(1, 2, 16, tiles, 2);  /* one token: P = 1, O = V */
  check_shape(33, 1, 32, tiles, 2); /* dh = 32, one head */
  check_shape(20, 3, 4, tiles, 2);  /* dh = 4: one quad per row */
}

Test(attngen, identical_keys_give_the_mean_of_values, .init = setup, .fini = teardown) {
  /* every K row equal: all scores in a row tie, so O is the mean of V over
   * tokens for every query, independently of Q */
  enum { T = 40, H = 2, DH = 8, D = H * DH };
  float qkv[T * 3 * D];
  for (int j = 0; j < T; j++)
    for (int c = 0; c < D; c++) {
      qkv[j * 3 * D + c] = (float)((j * 7 + c) % 11) * 0.25f - 1.0f;
      qkv[j * 3 * D + D + c] = 0.5f;
      qkv[j * 3 * D + 2 * D + c] = (float)j;
    }
  uint64_t dq = dev_alloc(T * 3 * D), dout = dev_alloc(T * D);
  cr_assert_eq(ws_device_memcpy_htod(dev, dq, qkv, sizeof qkv), WS_OK);
  ws_attngen_shape s = {T, H, DH, 1};
  ws_attngen_flash_cfg fc = {32, 16};
  cr_assert_eq(ws_attngen_flash_run(dev, &s, &fc, dq, dout, NULL), WS_OK, "%s", ws_errmsg(ctx));
  float *o = download(dout, T * D);
  /* mean of 0..39 = 19.5; p = 1/40 each, l = 40 exactly: error only from the
   * 40-term accumulation of j/40-ish terms, far below 1e-4 */
  for (int i = 0; i < T * D; i++) cr_expect_float_eq(o[i], 19.5f, 1e-4f, "O[%d] = %g", i, o[i]);
  free(o);
}

/* ---- validation -------------------------------------------------------------------- */

#define EXPECT_REFUSED(call, want, needle)                                                                   \
  do {                                                                                                       \
    ws_ctx_clear(ctx);                                                                                       \
    ws_status st_ = (call);                                                                                  \
    cr_expect_eq(st_, (want), "%s returned %s", #call, ws_status_name(st_));                                 \
    cr_expect(strstr(ws_errmsg(ctx), (needle)) != NULL, "%s: message '%s' lacks '%s'", #call,                \
              ws_errmsg(ctx), (needle));                                                                     \
  } while (0)

/* One launch over a batch computes each image exactly as a launch of its
 * own does (same instructions per value, same order): the batched outputs
 * equal the single-image outputs bit for bit, for both kernels, with one
 * head (the split of z = n*H + h without a magic number) and with three (a
 * divisor that is not a power of two). */
static void check_batch(uint32_t tokens, uint32_t heads, uint32_t head_dim, uint32_t batch) {
  enum { MAXB = 4 };
  cr_assert(batch <= MAXB);
  problem pr[MAXB];
  size_t n = (size_t)tokens * 3 * heads * head_dim, no = (size_t)tokens * heads * head_dim;
  size_t np = (size_t)heads * tokens * tokens;
  uint64_t d_qkv = dev_alloc(n * batch), d_out = dev_alloc(no * batch), d_scores = dev_alloc(np * batch);
  float *want_naive[MAXB], *want_flash[MAXB];
  ws_attngen_flash_cfg fc = {32, 16};
  for (uint32_t b = 0; b < batch; b++) {
    pr[b] = problem_make(tokens, heads, head_dim, 77 + b);
    cr_assert_eq(ws_device_memcpy_htod(dev, d_qkv + b * n * 4, pr[b].qkv, n * 4), WS_OK);
    want_naive[b] = run_naive(&pr[b], NULL);
    want_flash[b] = run_flash(&pr[b], fc.br, fc.bc, NULL);
  }
  ws_attngen_shape s = {tokens, heads, head_dim, batch};
  ws_launch_stats st[WS_ATTNGEN_STAGE_COUNT], fs;
  cr_assert_eq(ws_attngen_naive_run(dev, &s, d_qkv, d_scores, d_out, st), WS_OK, "%s", ws_errmsg(ctx));
  float *naive = download(d_out, no * batch);
  cr_assert_eq(ws_attngen_flash_run(dev, &s, &fc, d_qkv, d_out, &fs), WS_OK, "%s", ws_errmsg(ctx));
  float *flash = download(d_out, no * batch);
  for (uint32_t b = 0; b < batch; b++) {
    cr_expect_eq(memcmp(naive + b * no, want_naive[b], no * 4), 0, "naive H=%u image %u of %u", heads, b,
                 batch);
    cr_expect_eq(memcmp(flash + b * no, want_flash[b], no * 4), 0, "flash H=%u image %u of %u", heads, b,
                 batch);
    free(want_naive[b]), free(want_flash[b]);
    problem_free(&pr[b]);
  }
  uint32_t t16 = (tokens + 15) / 16;
  cr_expect_eq(st[WS_ATTNGEN_SCORES].ctas, (uint64_t)t16 * t16 * heads * batch, "one scores launch");
  cr_expect_eq(fs.ctas, (uint64_t)(tokens + fc.br - 1) / fc.br * heads * batch, "one flash launch");
  free(naive), free(flash);
  ws_device_free(dev, d_qkv), ws_device_free(dev, d_out), ws_device_free(dev, d_scores);
}

Test(attngen, batch_is_one_launch_and_equals_single_images, .init = setup, .fini = teardown) {
  check_batch(50, 3, 8, 3);
  check_batch(33, 1, 16, 4);
  check_batch(64, 4, 16, 2);
}

/* The default Bc builds for every head dimension the kernel takes: its
 * registers stay within the ISA's 255, and twice it (up to 64) would not. */
Test(attngen, default_bc_fits_the_registers, .init = setup, .fini = teardown) {
  for (uint32_t dh = 4; dh <= 64; dh *= 2)
    for (uint32_t br = 32; br <= 128; br *= 2) {
      uint32_t bc = ws_attngen_flash_default_bc(dh, br);
      cr_assert(bc >= 1 && bc <= 64 && (bc & (bc - 1)) == 0, "dh %u: Bc %u", dh, bc);
      cr_expect_leq(ws_attngen_flash_regs(dh, &(ws_attngen_flash_cfg){br, bc}), 255, "dh %u", dh);
      if (bc < 64)
        cr_expect_gt(ws_attngen_flash_regs(dh, &(ws_attngen_flash_cfg){br, 2 * bc}), 255, "dh %u", dh);
      cr_expect_eq(ws_attngen_flash_validate(ctx, &cfg, dh, &(ws_attngen_flash_cfg){br, bc}), WS_OK,
                   "dh %u br %u bc %u: %s", dh, br, bc, ws_errmsg(ctx));
    }
  /* at dh 64 the old default of 64 does not build */
  cr_expect_gt(ws_attngen_flash_regs(64, &(ws_attngen_flash_cfg){64, 64}), 255);
}

Test(attngen, invalid_flash_parameters_are_refused_with_reason, .init = setup, .fini = teardown) {
  static const struct {
    uint32_t dh, br, bc;
    ws_status want;
    const char *needle;
  } cases[] = {
      {12, 64, 16, WS_ERR_INVALID, "head_dim must be a power of two from 4 to 64"},
      {2, 64, 16, WS_ERR_INVALID, "head_dim must be a power of two"},
      {128, 64, 16, WS_ERR_INVALID, "got 128"},
      {16, 48, 16, WS_ERR_INVALID, "Br must be a positive multiple of 32"},
      {16, 0, 16, WS_ERR_INVALID, "Br must be a positive multiple of 32"},
      {16, 64, 0, WS_ERR_INVALID, "Bc must be 1..255, got 0"},
      {16, 2048, 16, WS_ERR_LIMIT, "Br=2048 threads per CTA exceeds a100's limit of 1024"},
      {16, 64, 200, WS_ERR_LIMIT,
       "needs 284 registers per thread (at least 36 + 3*dh + Bc); a100 allows 255"},
      {64, 64, 40, WS_ERR_LIMIT, "needs 268 registers per thread"},
      {64, 1024, 19, WS_ERR_LIMIT, "needs 288256 bytes of shared memory per CTA"},
      {16, 1024, 64, WS_ERR_LIMIT, "limiter: registers"}, /* 196 regs x 32 warps > the register file */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ws_attngen_flash_cfg fc = {cases[i].br, cases[i].bc};
    char *src = NULL;
    EXPECT_REFUSED(ws_attngen_flash_source(ctx, &cfg, cases[i].dh, &fc, &src), cases[i].want,
                   cases[i].needle);
    cr_expect_null(src, "case %zu", i);
  }
  /* the accepted neighbours of the refused cases */
  ws_attngen_flash_cfg ok = {64, 64};
  cr_expect_eq(ws_attngen_flash_validate(ctx, &cfg, 16, &ok), WS_OK, "%s", ws_errmsg(ctx));
  ok = (ws_attngen_flash_cfg){512, 16};
  cr_expect_eq(ws_attngen_flash_validate(ctx, &cfg, 4, &ok), WS_OK, "%s", ws_errmsg(ctx));
  ok = (ws_attngen_flash_cfg){64, 27};
  cr_expect_eq(ws_attngen_flash_validate(ctx, &cfg, 64, &ok), WS_OK, "%s", ws_errmsg(ctx));
  /* registers: 32 fixed + q (dh + 4) + accumulator (dh) + the interleaved
   * K/V rows (4 when they fit, else 2 or 1) + Bc scores */
  cr_expect_eq(ws_attngen_flash_regs(16, &(ws_attngen_flash_cfg){64, 64}), 36 + 32 + 4 * 16 + 64);
  cr_expect_eq(ws_attngen_flash_regs(32, &(ws_attngen_flash_cfg){64, 64}), 36 + 64 + 2 * 32 + 64);
  cr_expect_eq(ws_attngen_flash_regs(64, &(ws_attngen_flash_cfg){64, 27}), 36 + 128 + 64 + 27);
  cr_expect_eq(ws_attngen_flash_smem_bytes(16, &(ws_attngen_flash_cfg){64, 64}),
               64 * 20 * 4 + 2 * 64 * 16 * 4);
}

Test(attngen, invalid_shapes_are_refused, .init = setup, .fini = teardown) {
  ws_dim3 g, b;
  ws_attngen_flash_cfg fc = {64, 64};
  EXPECT_REFUSED(ws_attngen_naive_run(dev, &(ws_attngen_shape){0, 4, 16, 1}, 0, 0, 0, NULL), WS_ERR_INVALID,
                 "attention shape T=0 H=4 dh=16");
  EXPECT_REFUSED(ws_attngen_flash_run(dev, &(ws_attngen_shape){64, 0, 16, 1}, &fc, 0, 0, NULL),
                 WS_ERR_INVALID, "each must be at least 1");
  EXPECT_REFUSED(ws_attngen_flash_run(dev, &(ws_attngen_shape){64, 4, 6, 1}, &fc, 0, 0, NULL), WS_ERR_INVALID,
                 "power of two");
  EXPECT_REFUSED(ws_attngen_flash_run(dev, &(ws_attngen_shape){64, 4, 16, 1}, &fc, 0x1004, 0x2000, NULL),
                 WS_ERR_INVALID, "must be 16-byte aligned");
  EXPECT_REFUSED(
      ws_attngen_naive_geometry(ctx, &(ws_attngen_shape){65536, 2, 8, 1}, WS_ATTNGEN_SCORES, &g, &b),
      WS_ERR_INVALID, "must fit in 32 bits");
  EXPECT_REFUSED(
      ws_attngen_naive_geometry(ctx, &(ws_attngen_shape){1024, 16, 8, 512}, WS_ATTNGEN_SCORES, &g, &b),
      WS_ERR_INVALID, "batch 512");
  EXPECT_REFUSED(
      ws_attngen_naive_geometry(ctx, &(ws_attngen_shape){64, 4, 16, 1}, WS_ATTNGEN_STAGE_COUNT, &g, &b),
      WS_ERR_INVALID, "unknown attention stage");
}

Test(attngen, geometry, .init = setup, .fini = teardown) {
  ws_dim3 g, b;
  ws_attngen_shape s = {50, 4, 8, 1};
  cr_assert_eq(ws_attngen_flash_geometry(ctx, &s, &(ws_attngen_flash_cfg){32, 16}, &g, &b), WS_OK);
  cr_expect(g.x == 2 && g.y == 4 && g.z == 1 && b.x == 32 && b.y == 1, "flash grid (%u,%u) block %u", g.x,
            g.y, b.x);
  cr_assert_eq(ws_attngen_naive_geometry(ctx, &s, WS_ATTNGEN_SCORES, &g, &b), WS_OK);
  cr_expect(g.x == 4 && g.y == 4 && g.z == 4 && b.x == 16 && b.y == 16, "scores grid (%u,%u,%u)", g.x, g.y,
            g.z);
  cr_assert_eq(ws_attngen_naive_geometry(ctx, &s, WS_ATTNGEN_SOFTMAX, &g, &b), WS_OK);
  cr_expect(g.x == 50 && b.x == 128, "softmax: 200 rows, 4 warps per CTA: grid %u", g.x);
  cr_assert_eq(ws_attngen_naive_geometry(ctx, &s, WS_ATTNGEN_PV, &g, &b), WS_OK);
  cr_expect(g.x == 1 && g.y == 4 && g.z == 4, "pv grid (%u,%u,%u)", g.x, g.y, g.z);
}

Test(attngen, generated_text_is_commented_and_reassembles, .init = setup, .fini = teardown) {
  char *src = NULL;
  cr_assert_eq(ws_attngen_flash_source(ctx, &cfg, 16, &(ws_attngen_flash_cfg){64, 32}, &src), WS_OK);
  cr_expect(strstr(src, "// ---- online softmax") != NULL);
  cr_expect(strstr(src, ".shared Qs 5120 16") != NULL, "Q tile 64 x (16+4) x 4 bytes");
  ws_nngen_kernel k;
  cr_assert_eq(ws_nngen_kernel_build(ctx, src, "flash.wsa", &k), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(k.kernel->regs_per_thread, ws_attngen_flash_regs(16, &(ws_attngen_flash_cfg){64, 32}),
               "the plan's register count is what the assembler counts");
  cr_expect_eq(k.kernel->shared_size_bytes, ws_attngen_flash_smem_bytes(16, &(ws_attngen_flash_cfg){64, 32}));
  ws_nngen_kernel_release(&k);
  free(src);
}

/* ---- timing mode --------------------------------------------------------------------- */

static uint64_t stat(const char *pattern) { return ws_stats_sum(ws_device_stats(dev), pattern); }

typedef struct timing {
  uint64_t cycles, dram_read, dram_written, l2_reads, l2_writes;
} timing;

static timing timing_now(uint64_t cycles) {
  return (timing){cycles, stat("hbm.ch*.bytes_read"), stat("hbm.ch*.bytes_written"), stat("l2.slice*.reads"),
                  stat("l2.slice*.writes")};
}

static void timing_add(timing *sum, timing t) {
  sum->cycles += t.cycles, sum->dram_read += t.dram_read, sum->dram_written += t.dram_written;
  sum->l2_reads += t.l2_reads, sum->l2_writes += t.l2_writes;
}

/* T=64, D=64, H=4: naive (three launches, summed) and flash Br=64, Bc=64,
 * both checked against the reference; the figures are logged and quoted in
 * docs/kernels.md. */
static void compare_naive_flash(const char *preset, timing *naive, timing *flash) {
  problem pr = problem_make(64, 4, 16, 77);
  size_t no = 64 * 64;
  *naive = (timing){0};
  for (int k = 0; k < WS_ATTNGEN_STAGE_COUNT; k++) {
    ws_launch_stats ls;
    cr_assert_eq(
        ws_attngen_naive_stage_run(dev, &pr.s, (ws_attngen_stage)k, pr.d_qkv, pr.d_scores, pr.d_out, &ls),
        WS_OK, "%s", ws_errmsg(ctx));
    timing t = timing_now(ls.cycles);
    static const char *const names[] = {"scores", "softmax", "P.V"};
    cr_log_info("%s naive %s: %llu cycles, DRAM %llu B read / %llu B written, L2 %llu reads "
                "/ %llu writes",
                preset, names[k], (unsigned long long)t.cycles, (unsigned long long)t.dram_read,
                (unsigned long long)t.dram_written, (unsigned long long)t.l2_reads,
                (unsigned long long)t.l2_writes);
    timing_add(naive, t);
  }
  float *o = download(pr.d_out, no);
  cr_expect_eq(count_outside("naive (timing)", o, pr.ref, pr.bound, no, 1.0), 0);
  free(o);
  ws_launch_stats fl;
  o = run_flash(&pr, 64, 64, &fl);
  *flash = timing_now(fl.cycles);
  cr_expect_eq(count_outside("flash (timing)", o, pr.ref, pr.bound, no, 1.0), 0);
  free(o);
  cr_log_info("%s naive total: %llu cycles, DRAM %llu B read / %llu B written, L2 %llu reads / %llu writes",
              preset, (unsigned long long)naive->cycles, (unsigned long long)naive->dram_read,
              (unsigned long long)naive->dram_written, (unsigned long long)naive->l2_reads,
              (unsigned long long)naive->l2_writes);
  cr_log_info("%s flash Br=64 Bc=64: %llu cycles, DRAM %llu B read / %llu B written, L2 %llu reads "
              "/ %llu writes",
              preset, (unsigned long long)flash->cycles, (unsigned long long)flash->dram_read,
              (unsigned long long)flash->dram_written, (unsigned long long)flash->l2_reads,
              (unsigned long long)flash->l2_writes);
  problem_free(&pr);
}

/* What fusion must save whatever the preset: the naive path reads QKV in
 * two kernels and the scores S (64 KiB) in two more, the fused one reads
 * QKV (48 KiB) and never touches S. */
static void expect_fusion_saves(const timing *naive, const timing *flash) {
  /* Every launch starts with cold caches and all of these buffers fit in the
   * L2 of both presets, so each byte a kernel reads comes from DRAM exactly
   * once: naive = Q and K (2 x 16 KiB) + S (64 KiB) + P and V (64 + 16 KiB),
   * flash = QKV (48 KiB). */
  cr_expect_eq(naive->dram_read, 2 * 16384 + 65536 + 65536 + 16384);
  cr_expect_eq(flash->dram_read, 3 * 16384);
  cr_expect_lt(flash->l2_reads + flash->l2_writes, naive->l2_reads + naive->l2_writes,
               "flash moves less through L2");
  cr_expect_gt(flash->cycles, 0);
}

Test(attngen, timing_classroom_naive_vs_flash, .init = setup_classroom, .fini = teardown) {
  timing naive, flash;
  compare_naive_flash("classroom", &naive, &flash);
  expect_fusion_saves(&naive, &flash);
}

Test(attngen, timing_a100_naive_vs_flash, .init = setup, .fini = teardown) {
  ws_device_set_mode(dev, WS_MODE_TIMING);
  timing naive, flash;
  compare_naive_flash("a100", &naive, &flash);
  expect_fusion_saves(&naive, &flash);
}

Test(attngen, timing_classroom_other_tiles_and_odd_tokens, .init = setup_classroom, .fini = teardown) {
  static const uint32_t tiles[][2] = {{32, 16}, {64, 7}};
  check_shape(50, 4, 8, tiles, 2);
}

/* Several tilings of the T=64, D=64, H=4 problem on both presets: each is
 * correct and reads QKV from DRAM exactly once; cycles are logged for
 * docs/kernels.md. */
Test(attngen, timing_flash_tile_sweep, .init = setup_classroom, .fini = teardown) {
  static const uint32_t tiles[][2] = {{32, 16}, {32, 32}, {32, 64}, {64, 16}, {64, 32}, {64, 64}, {128, 64}};
  static const char *const presets[] = {"classroom", "a100"};
  for (int pi = 0; pi < 2; pi++) {
    if (pi == 1) {
      teardown();
      setup_preset(presets[pi], WS_MODE_TIMING);
    }
    problem pr = problem_make(64, 4, 16, 78);
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
      ws_launch_stats ls;
      float *o = run_flash(&pr, tiles[t][0], tiles[t][1], &ls);
      cr_expect_eq(count_outside("flash sweep", o, pr.ref, pr.bound, 64 * 64, 1.0), 0);
      cr_expect_eq(stat("hbm.ch*.bytes_read"), 3 * 16384, "Br=%u Bc=%u", tiles[t][0], tiles[t][1]);
      cr_log_info("%s flash Br=%u Bc=%u: %llu cycles, %llu warp instructions, occupancy %.3f", presets[pi],
                  tiles[t][0], tiles[t][1], (unsigned long long)ls.cycles, (unsigned long long)ls.warp_insns,
                  ls.occupancy.occupancy);
      free(o);
    }
    problem_free(&pr);
  }
}
