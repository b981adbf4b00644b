/* test_gemmgen.c - every step of the GEMM ladder computes A*B (+ epilogue)
 * within the derived bound of OpenBLAS (models/kgen/gemmgen_ref.c derives it), on
 * aligned and odd shapes, over several tile configurations; the timing model
 * runs them; every invalid config is refused with its reason.
 *
 * Runtime: functional mode for the numbers (largest product 128^3); the
 * timing runs use the classroom preset (2 SMs) and 64^3 products. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "models/kgen/gemmgen.h"

static ws_ctx *ctx;
static ws_device *dev;

static void open_preset(const char *name) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, name, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
}

static void setup(void) {
  ctx = ws_ctx_create();
  open_preset("a100");
  ws_device_set_mode(dev, WS_MODE_FUNCTIONAL);
}

static void teardown(void) {
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

TestSuite(gemmgen, .init = setup, .fini = teardown);

/* splitmix64, so inputs are the same on every host */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void fill(float *v, size_t n, uint64_t *s) {
  for (size_t i = 0; i < n; i++) v[i] = (float)((double)(rng_next(s) >> 40) / 8388608.0 - 1.0);
}

typedef struct result {
  uint64_t nbad;
  double worst_ratio; /* max |got - ref| / bound */
  double max_err;
  ws_launch_stats stats;
} result;

static void upload(uint64_t *dptr, const float *src, size_t count) {
  cr_assert_eq(ws_device_malloc(dev, count * 4, dptr), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_memcpy_htod(dev, *dptr, src, count * 4), WS_OK, "%s", ws_errmsg(ctx));
}

/* Runs cfg on an m x n x k product of seeded inputs and compares every
 * output with ws_gemmgen_reference. */
static result run_case(const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, uint32_t k) {
  size_t mk = (size_t)m * k, kn = (size_t)k * n, mn = (size_t)m * n;
  float *a = malloc(mk * 4), *b = malloc(kn * 4), *bias = malloc(n * 4), *res = malloc(mn * 4);
  float *got = malloc(mn * 4), *ref = malloc(mn * 4);
  double *bound = malloc(mn * 8);
  cr_assert(a && b && bias && res && got && ref && bound);
  uint64_t seed = 42 + m * 7 + n * 13 + k;
  fill(a, mk, &seed);
  fill(b, kn, &seed);
  fill(bias, n, &seed);
  fill(res, mn, &seed);
  ws_gemmgen_problem p = {m, n, k, 0, 0, 0, 0, 0};
  upload(&p.a, a, mk);
  upload(&p.b, b, kn);
  upload(&p.bias, bias, n);
  upload(&p.res, res, mn);
  cr_assert_eq(ws_device_malloc(dev, mn * 4, &p.c), WS_OK);
  cr_assert_eq(ws_device_memset(dev, p.c, 0xff, mn * 4), WS_OK); /* NaNs: every output must be written */
  result r = {0};
  char desc[200];
  ws_gemmgen_describe(cfg, desc, sizeof desc);
  cr_assert_eq(ws_gemmgen_run(dev, cfg, &p, &r.stats), WS_OK, "%s %ux%ux%u: %s", desc, m, n, k,
               ws_errmsg(ctx));
  cr_assert_eq(ws_device_memcpy_dtoh(dev, got, p.c, mn * 4), WS_OK);
  cr_assert_eq(ws_gemmgen_reference(ctx, cfg, m, n, k, a, b, bias, res, ref, bound), WS_OK, "%s",
               ws_errmsg(ctx));
  for (size_t i = 0; i < mn; i++) {
    double err = fabs((double)got[i] - (double)ref[i]);
    if (!(err <= bound[i])) r.nbad++;
    if (err > r.max_err) r.max_err = err;
    if (bound[i] > 0 && err / bound[i] > r.worst_ratio) r.worst_ratio = err / bound[i];
  }
  uint64_t bufs[] = {p.a, p.b, p.c, p.bias, p.res};
  for (size_t i = 0; i < 5; i++) ws_device_free(dev, bufs[i]);
  free(a), free(b), free(bias), free(res), free(got), free(ref), free(bound);
  return r;
}

static void expect_pass(const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, uint32_t k) {
  result r = run_case(cfg, m, n, k);
  char desc[200];
  ws_gemmgen_describe(cfg, desc, sizeof desc);
  cr_expect_eq(r.nbad, 0, "%s %ux%ux%u: %llu outputs outside the bound, worst ratio %g", desc, m, n, k,
               (unsigned long long)r.nbad, r.worst_ratio);
}

static const uint32_t shapes[][3] = {{128, 128, 128}, {61, 75, 37}, {1, 33, 17}, {33, 70, 64}, {40, 64, 70}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

Test(gemmgen, names_round_trip_and_unknown_is_refused) {
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    ws_gemmgen_variant got;
    cr_expect_eq(ws_gemmgen_variant_parse(ctx, ws_gemmgen_variant_name((ws_gemmgen_variant)v), &got), WS_OK);
    cr_expect_eq((int)got, v);
  }
  ws_gemmgen_variant got;
  cr_expect_eq(ws_gemmgen_variant_parse(ctx, "tiled", &got), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "unknown GEMM variant 'tiled' (expected naive, coalesced, smem, "
                                   "blocktile1d, blocktile2d, vectorized, warptile, async or mma)");
  cr_expect_str_eq(ws_gemmgen_variant_name(WS_GEMMGEN_VARIANT_COUNT), "?");
}

Test(gemmgen, describe_names_the_fields_the_variant_uses) {
  char buf[200];
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  ws_gemmgen_describe(&c, buf, sizeof buf);
  cr_expect_str_eq(buf, "blocktile2d bm=128 bn=128 bk=8 tm=8 tn=8 threads=256");
  c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  c.epilogue = WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_RESIDUAL;
  ws_gemmgen_describe(&c, buf, sizeof buf);
  cr_expect_str_eq(buf, "naive bm=32 bn=32 threads=1024+bias+residual");
  c = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  ws_gemmgen_describe(&c, buf, sizeof buf);
  cr_expect_str_eq(buf, "mma bm=64 bn=64 bk=32 wm=32 wn=32 threads=128");
  char small[8];
  ws_gemmgen_describe(&c, small, sizeof small); /* truncates, never overflows */
  cr_expect_str_eq(small, "mma bm=");
}

Test(gemmgen, defaults_fit_every_preset) {
  static const char *const presets[] = {"a100", "classroom", "h100", "v100", "rtx-a6000"};
  for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
    ws_gpu_cfg g;
    cr_assert_eq(ws_config_load_preset(ctx, presets[i], &g), WS_OK);
    for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
      ws_gemmgen_cfg c = ws_gemmgen_defaults((ws_gemmgen_variant)v);
      c.epilogue = WS_GEMMGEN_EPI_ALL;
      cr_expect_eq(ws_gemmgen_check(ctx, &c, &g), WS_OK, "%s on %s: %s",
                   ws_gemmgen_variant_name((ws_gemmgen_variant)v), presets[i], ws_errmsg(ctx));
    }
  }
}

Test(gemmgen, launch_geometry_covers_c) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  ws_dim3 grid, block;
  uint32_t dyn = 7;
  ws_gemmgen_launch_geometry(&c, 61, 300, &grid, &block, &dyn);
  cr_expect_eq(grid.x, 3); /* ceil(300 / 128) */
  cr_expect_eq(grid.y, 1);
  cr_expect_eq(grid.z, 1);
  cr_expect_eq(block.x, 256);
  cr_expect_eq(block.y, 1);
  cr_expect_eq(dyn, 0);
}

/* The text the generator writes is a kernel the assembler accepts, with the
 * params the epilogue needs and no more registers than the plan counted. */
Test(gemmgen, emitted_kernels_assemble_with_the_planned_resources) {
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++)
    for (uint32_t epi = 0; epi <= WS_GEMMGEN_EPI_ALL; epi += 5) { /* none, and bias+residual+gelu */
      ws_gemmgen_cfg c = ws_gemmgen_defaults((ws_gemmgen_variant)v);
      c.epilogue = epi ? WS_GEMMGEN_EPI_ALL : 0;
      ws_program *prog = NULL;
      cr_assert_eq(ws_gemmgen_build(ctx, &c, &prog), WS_OK, "%s: %s", ws_gemmgen_variant_name(c.variant),
                   ws_errmsg(ctx));
      const ws_kernel *k = &prog->kernels[0];
      char name[64];
      snprintf(name, sizeof name, "gemm_%s", ws_gemmgen_variant_name(c.variant));
      cr_expect_str_eq(k->name, name);
      cr_expect_eq(k->nparams, epi ? 8u : 6u);
      uint32_t regs, smem;
      cr_assert_eq(ws_gemmgen_resources(ctx, &c, &regs, &smem), WS_OK);
      cr_expect_leq(k->regs_per_thread, regs, "%s", name);
      cr_expect_eq(k->shared_size_bytes, smem, "%s", name);
      ws_program_destroy(prog);
    }
}

/* The whole ladder with its default configs, on aligned and odd shapes
 * (K % 4 != 0 and N % 4 != 0 take the scalar paths of the vector steps). */
Test(gemmgen, ladder_matches_openblas_on_aligned_and_odd_shapes) {
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    ws_gemmgen_cfg c = ws_gemmgen_defaults((ws_gemmgen_variant)v);
    for (size_t s = 0; s < NSHAPES; s++) expect_pass(&c, shapes[s][0], shapes[s][1], shapes[s][2]);
  }
}

/* Other tile configurations of every step, each on an aligned and an odd shape. */
Test(gemmgen, ladder_over_other_tile_configs) {
  static const ws_gemmgen_cfg cfgs[] = {
      {WS_GEMMGEN_NAIVE, 16, 8, 1, 1, 1, 0, 0, 128, 0},
      {WS_GEMMGEN_COALESCED, 4, 64, 1, 1, 1, 0, 0, 256, 0},
      {WS_GEMMGEN_SMEM, 16, 16, 16, 1, 1, 0, 0, 256, 0},
      {WS_GEMMGEN_SMEM, 8, 32, 32, 1, 1, 0, 0, 256, 0},
      {WS_GEMMGEN_BLOCKTILE1D, 32, 32, 16, 4, 1, 0, 0, 256, 0},
      {WS_GEMMGEN_BLOCKTILE1D, 128, 32, 8, 16, 1, 0, 0, 256, 0},
      {WS_GEMMGEN_BLOCKTILE2D, 64, 64, 8, 4, 4, 0, 0, 256, 0},
      {WS_GEMMGEN_BLOCKTILE2D, 64, 32, 16, 8, 2, 0, 0, 128, 0},
      {WS_GEMMGEN_VECTORIZED, 64, 64, 16, 4, 8, 0, 0, 128, 0},
      {WS_GEMMGEN_VECTORIZED, 32, 64, 16, 4, 4, 0, 0, 128, 0},
      {WS_GEMMGEN_WARPTILE, 64, 64, 8, 4, 4, 32, 32, 128, 0},
      {WS_GEMMGEN_WARPTILE, 64, 128, 16, 8, 4, 32, 64, 128, 0},
      {WS_GEMMGEN_ASYNC, 64, 64, 8, 4, 4, 32, 32, 128, 0},
      {WS_GEMMGEN_ASYNC, 128, 64, 32, 8, 4, 64, 32, 128, 0},
      {WS_GEMMGEN_MMA, 32, 64, 16, 1, 1, 16, 32, 128, 0},
      {WS_GEMMGEN_MMA, 128, 64, 16, 1, 1, 64, 32, 128, 0},
      {WS_GEMMGEN_MMA, 64, 32, 64, 1, 1, 32, 16, 128, 0},
  };
  for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
    char desc[200];
    ws_gemmgen_describe(&cfgs[i], desc, sizeof desc);
    cr_assert_eq(ws_gemmgen_check(ctx, &cfgs[i], ws_device_cfg(dev)), WS_OK, "%s: %s", desc, ws_errmsg(ctx));
    expect_pass(&cfgs[i], 96, 80, 48);
    expect_pass(&cfgs[i], 61, 75, 37);
  }
}

/* Every combination of the three epilogue stages, on a step with an
 * unchecked interior path (128-bit stores) and one without. */
Test(gemmgen, epilogue_combinations_match_the_host_epilogue) {
  static const ws_gemmgen_variant vs[] = {WS_GEMMGEN_COALESCED, WS_GEMMGEN_WARPTILE, WS_GEMMGEN_MMA};
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
    for (uint32_t epi = 1; epi <= WS_GEMMGEN_EPI_ALL; epi++) {
      ws_gemmgen_cfg c = ws_gemmgen_defaults(vs[i]);
      c.epilogue = epi;
      expect_pass(&c, 128, 128, 128); /* whole tiles: the wide-store path */
      expect_pass(&c, 61, 75, 37);    /* edge tiles: the checked path */
    }
}

Test(gemmgen, full_epilogue_on_every_step) {
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    ws_gemmgen_cfg c = ws_gemmgen_defaults((ws_gemmgen_variant)v);
    c.epilogue = WS_GEMMGEN_EPI_ALL;
    expect_pass(&c, 64, 64, 129); /* K = 129: GELU inputs up to about 4 standard deviations of 3.8 */
    expect_pass(&c, 1, 33, 17);
  }
}

/* The bound is tight enough to see a wrong answer: fp32 results sit far
 * inside it, and it is narrower than one part in 10^4 of the result. */
Test(gemmgen, the_bound_catches_small_errors) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  result r = run_case(&c, 64, 64, 64);
  cr_expect_eq(r.nbad, 0);
  cr_expect_lt(r.worst_ratio, 0.5);
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, ref[4];
  double bound[4];
  cr_assert_eq(ws_gemmgen_reference(ctx, &c, 2, 2, 2, a, b, NULL, NULL, ref, bound), WS_OK);
  cr_expect_eq(ws_gemmgen_reference(ctx, &c, 2, 2, 2, NULL, b, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm reference: A, B, ref and bound must not be NULL");
  cr_expect_eq(ref[0], 3.0f); /* 1 + 2 */
  cr_expect_eq(ref[3], 7.0f); /* 3 + 4 */
  /* 2 K u sum|a b| = 2 * 2 * 2^-24 * 3 */
  cr_expect_eq(bound[0], 12.0 / 16777216.0);
  cr_expect_lt(bound[3] / 7.0, 1e-4);
}

Test(gemmgen, gelu_reference_is_the_tanh_form) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  c.epilogue = WS_GEMMGEN_EPI_GELU;
  float a[1] = {1.0f}, b[1] = {1.0f}, ref[1];
  double bound[1];
  cr_assert_eq(ws_gemmgen_reference(ctx, &c, 1, 1, 1, a, b, NULL, NULL, ref, bound), WS_OK);
  /* 0.5 * (1 + tanh(sqrt(2/pi) * 1.044715)) */
  cr_expect_float_eq(ref[0], 0.841191990f, 1e-7f);
  cr_expect_gt(bound[0], 0.0);
  cr_expect_lt(bound[0], 1e-6);
}

/* The mma error comes from rounding A and B to binary16: the kernel is
 * inside the derived bound, and its error is visibly larger than fp32's. */
Test(gemmgen, mma_error_is_the_binary16_rounding) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  result r = run_case(&c, 128, 128, 128);
  cr_expect_eq(r.nbad, 0);
  /* f16 rounding shows: far above fp32 errors (about 1e-5 here) */
  cr_expect_gt(r.max_err, 1e-4);
  cr_expect_lt(r.max_err, 0.1);
  float big[1] = {70000.0f}, one[1] = {1.0f}, ref[1];
  double bound[1];
  cr_expect_eq(ws_gemmgen_reference(ctx, &c, 1, 1, 1, big, one, NULL, NULL, ref, bound), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "gemm reference: mma rounds A and B to binary16; |values| must stay below 65504");
}

/* The timing model runs the kernels: cycles come back, the answer is still
 * right, and the first rung behaves as on hardware (uncoalesced is slower). */
Test(gemmgen, timing_mode_on_classroom) {
  ws_device_destroy(dev);
  dev = NULL;
  open_preset("classroom");
  ws_device_set_mode(dev, WS_MODE_TIMING);
  static const ws_gemmgen_variant vs[] = {WS_GEMMGEN_NAIVE, WS_GEMMGEN_COALESCED, WS_GEMMGEN_BLOCKTILE2D,
                                          WS_GEMMGEN_ASYNC, WS_GEMMGEN_MMA};
  uint64_t cycles[5];
  for (size_t i = 0; i < 5; i++) {
    ws_gemmgen_cfg c = ws_gemmgen_defaults(vs[i]);
    if (vs[i] == WS_GEMMGEN_BLOCKTILE2D) c = (ws_gemmgen_cfg){vs[i], 64, 64, 8, 4, 4, 0, 0, 256, 0};
    if (vs[i] == WS_GEMMGEN_ASYNC) c = (ws_gemmgen_cfg){vs[i], 64, 64, 8, 4, 4, 32, 32, 128, 0};
    c.epilogue = vs[i] == WS_GEMMGEN_ASYNC ? WS_GEMMGEN_EPI_ALL : 0;
    result r = run_case(&c, 64, 64, 64);
    cr_expect_eq(r.nbad, 0, "%s", ws_gemmgen_variant_name(vs[i]));
    cr_expect_gt(r.stats.cycles, 0);
    cycles[i] = r.stats.cycles;
  }
  cr_expect_lt(cycles[1], cycles[0], "coalesced %llu vs naive %llu cycles", (unsigned long long)cycles[1],
               (unsigned long long)cycles[0]);
  cr_expect_lt(cycles[4], cycles[2], "mma %llu vs blocktile2d %llu cycles", (unsigned long long)cycles[4],
               (unsigned long long)cycles[2]);
}

/* ---- refusals ------------------------------------------------------------------------ */

typedef struct bad_cfg {
  ws_gemmgen_cfg cfg;
  ws_status st;
  const char *msg; /* '#' stands for a number of at least min_number; a final "..." for any text */
  uint32_t min_number;
} bad_cfg;

static bool message_matches(const char *got, const char *msg, uint32_t min_number) {
  const char *hash = strchr(msg, '#');
  if (hash) {
    size_t pre = (size_t)(hash - msg);
    if (strncmp(got, msg, pre) != 0) return false;
    char *end;
    unsigned long v = strtoul(got + pre, &end, 10);
    if (end == got + pre || v < min_number) return false;
    return message_matches(end, hash + 1, 0);
  }
  size_t len = strlen(msg);
  if (len >= 3 && strcmp(msg + len - 3, "...") == 0) return strncmp(got, msg, len - 3) == 0;
  return strcmp(got, msg) == 0;
}

Test(gemmgen, invalid_configs_are_refused_with_the_reason) {
  static const bad_cfg bad[] = {
      {{WS_GEMMGEN_VARIANT_COUNT, 32, 32, 1, 1, 1, 0, 0, 1024, 0},
       WS_ERR_INVALID,
       "unknown GEMM variant 9",
       0},
      {{WS_GEMMGEN_NAIVE, 32, 32, 1, 1, 1, 0, 0, 1024, 8}, WS_ERR_INVALID, "unknown epilogue flags 0x8", 0},
      {{WS_GEMMGEN_NAIVE, 24, 32, 1, 1, 1, 0, 0, 768, 0},
       WS_ERR_INVALID,
       "bm=24 must be a power of two (the kernel splits thread indices with shifts)",
       0},
      {{WS_GEMMGEN_BLOCKTILE2D, 128, 128, 8, 8, 8, 0, 0, 0, 0},
       WS_ERR_INVALID,
       "threads=0 must be a power of two (the kernel splits thread indices with shifts)",
       0},
      {{WS_GEMMGEN_COALESCED, 32, 32, 1, 1, 1, 0, 0, 256, 0},
       WS_ERR_INVALID,
       "coalesced computes one output per thread: threads must be bm*bn = 1024, got 256",
       0},
      {{WS_GEMMGEN_SMEM, 2048, 1, 1, 1, 1, 0, 0, 2048, 0},
       WS_ERR_INVALID,
       "bm, bn, bk and threads must be at most 1024, got 2048, 1, 1, 2048",
       0},
      {{WS_GEMMGEN_SMEM, 32, 32, 32, 2, 1, 0, 0, 512, 0},
       WS_ERR_INVALID,
       "smem computes one output per thread: tm and tn must be 1, got 2 and 1",
       0},
      {{WS_GEMMGEN_BLOCKTILE1D, 64, 64, 8, 8, 2, 0, 0, 256, 0},
       WS_ERR_INVALID,
       "blocktile1d blocks along rows only: tn must be 1, got 2",
       0},
      {{WS_GEMMGEN_BLOCKTILE2D, 128, 128, 8, 8, 8, 0, 0, 128, 0},
       WS_ERR_INVALID,
       "threads must be (bm/tm)*(bn/tn) = 256 (one thread per 8x8 block), got 128",
       0},
      {{WS_GEMMGEN_BLOCKTILE2D, 16, 16, 8, 32, 1, 0, 0, 16, 0},
       WS_ERR_INVALID,
       "the thread tile 32x1 is larger than the CTA tile 16x16",
       0},
      {{WS_GEMMGEN_BLOCKTILE2D, 16, 16, 64, 4, 4, 0, 0, 16, 0},
       WS_ERR_INVALID,
       "the A tile (16 x 64 floats, in chunks of 1) does not divide evenly among 16 threads",
       0},
      {{WS_GEMMGEN_BLOCKTILE2D, 128, 16, 2, 8, 1, 0, 0, 256, 0},
       WS_ERR_INVALID,
       "the B tile (2 x 16 floats, in chunks of 1) does not divide evenly among 256 threads",
       0},
      {{WS_GEMMGEN_VECTORIZED, 128, 128, 8, 8, 2, 0, 0, 1024, 0},
       WS_ERR_INVALID,
       "vectorized reads 128-bit fragments: tm, tn and bk must be multiples of 4, got 8, 2, 8",
       0},
      {{WS_GEMMGEN_WARPTILE, 128, 128, 8, 4, 4, 32, 16, 256, 0},
       WS_ERR_INVALID,
       "a warp's 4x8 lanes of 4x4 blocks must tile the warp tile: wm must be a multiple of 4*tm = 16 "
       "and wn of 8*tn = 32, got 32x16",
       0},
      {{WS_GEMMGEN_WARPTILE, 128, 128, 8, 4, 4, 256, 64, 256, 0},
       WS_ERR_INVALID,
       "the warp tile 256x64 does not divide the CTA tile 128x128",
       0},
      {{WS_GEMMGEN_WARPTILE, 128, 128, 8, 4, 4, 32, 64, 128, 0},
       WS_ERR_INVALID,
       "threads must be 32 per warp tile: (bm/wm)*(bn/wn)*32 = 256, got 128",
       0},
      {{WS_GEMMGEN_MMA, 64, 64, 8, 1, 1, 32, 32, 128, 0},
       WS_ERR_INVALID,
       "mma steps k by 16 (HMMA.16816): bk must be a multiple of 16, got 8",
       0},
      {{WS_GEMMGEN_MMA, 64, 64, 32, 1, 1, 8, 32, 512, 0},
       WS_ERR_INVALID,
       "mma warp tiles are made of 16x8 HMMA tiles: wm must be a multiple of 16 and wn of 8, got 8x32",
       0},
      {{WS_GEMMGEN_MMA, 32, 32, 16, 1, 1, 16, 8, 256, 0},
       WS_ERR_INVALID,
       "the A tile (32 x 16 floats, in chunks of 4) does not divide evenly among 256 threads",
       0},
      {{WS_GEMMGEN_MMA, 32, 32, 16, 1, 1, 16, 16, 128, 0},
       WS_ERR_INVALID,
       "the B tile (16 x 32 floats, in 2x4 chunks) does not divide evenly among 128 threads",
       0},
      /* 256 accumulators alone are past R254 */
      {{WS_GEMMGEN_WARPTILE, 256, 256, 8, 16, 16, 64, 128, 256, 0},
       WS_ERR_LIMIT,
       "warptile needs # registers per thread, more than the 255 allowed",
       256 + 16 + 16},
      {{WS_GEMMGEN_ASYNC, 128, 128, 128, 4, 4, 32, 64, 256, 0},
       WS_ERR_LIMIT,
       "async needs # bytes of shared memory per CTA, more than a100's 166912 per block",
       262144},
      /* 1024 threads leave 65536 / 1024 = 64 registers each: too few for 16 accumulators
       * plus the addresses, bounds and staging registers of a tiled kernel */
      {{WS_GEMMGEN_BLOCKTILE2D, 128, 128, 8, 8, 2, 0, 0, 1024, 0},
       WS_ERR_LIMIT,
       "too many resources requested for launch: a CTA of 1024 threads, # registers/thread and "
       "8192 B shared memory does not fit on an SM of a100; limiter: registers ...",
       65},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ws_ctx_clear(ctx);
    ws_status st = ws_gemmgen_check(ctx, &bad[i].cfg, ws_device_cfg(dev));
    cr_expect_eq(st, bad[i].st, "case %zu: status %d, message '%s'", i, (int)st, ws_errmsg(ctx));
    cr_expect(message_matches(ws_errmsg(ctx), bad[i].msg, bad[i].min_number), "case %zu: '%s'", i,
              ws_errmsg(ctx));
    char *text = (char *)"unchanged";
    uint32_t regs, smem;
    if (bad[i].st == WS_ERR_INVALID) { /* structural: the emitter and the resource count refuse it too */
      cr_expect_eq(ws_gemmgen_emit(ctx, &bad[i].cfg, &text), WS_ERR_INVALID, "case %zu", i);
      cr_expect_null(text);
      cr_expect_eq(ws_gemmgen_resources(ctx, &bad[i].cfg, &regs, &smem), WS_ERR_INVALID, "case %zu", i);
    }
  }
}

Test(gemmgen, bad_problems_are_refused) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_SMEM);
  ws_gemmgen_problem p = {0, 5, 5, 256, 512, 768, 0, 0};
  cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm: M, N and K must be 1..65536, got 0x5x5");
  p = (ws_gemmgen_problem){65536, 65536, 1, 256, 512, 768, 0, 0};
  cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(
      ws_errmsg(ctx),
      "gemm: M*K, K*N and M*N must stay below 2^31 elements (32-bit indices), got 65536x65536x1");
  p = (ws_gemmgen_problem){4, 4, 4, 256, 0, 768, 0, 0};
  cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm: A, B and C must be device buffers");
  c.epilogue = WS_GEMMGEN_EPI_BIAS;
  p.b = 512;
  cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm: the bias epilogue needs a bias buffer");
  c.epilogue = WS_GEMMGEN_EPI_RESIDUAL;
  cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "gemm: the residual epilogue needs an R buffer");
}
