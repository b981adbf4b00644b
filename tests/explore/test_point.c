/* test_point.c - one point of an exploration (explore/point.h): a GEMM
 * point passes its check and takes the cycles ws_gemmgen_run takes on a
 * fresh device; the record's derived figures follow from its counts; a
 * refused configuration is a result with the generator's reason; naive and
 * flash attention pass with their launch counts; a point gives the same
 * record byte for byte every time; the report hook sees every launch.
 *
 * Small shapes on the classroom preset keep each timed run to a fraction
 * of a second. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "explore/point.h"
#include "explore/space.h"
#include "models/kgen/gemmgen.h"
#include "sim/exec/slice.h"
#include "sim/gpu/sampler.h"

static ws_point gemm_point(const char *variant, uint32_t m, uint32_t n, uint32_t k) {
  ws_point p;
  memset(&p, 0, sizeof p);
  p.kind = WS_POINT_GEMM;
  snprintf(p.gpu, sizeof p.gpu, "classroom");
  snprintf(p.variant, sizeof p.variant, "%s", variant);
  p.m = m, p.n = n, p.k = k;
  p.seed = 7;
  return p;
}

static ws_point attn_point(const char *attn, uint32_t seq, uint32_t heads, uint32_t dhead) {
  ws_point p;
  memset(&p, 0, sizeof p);
  p.kind = WS_POINT_ATTENTION;
  snprintf(p.gpu, sizeof p.gpu, "classroom");
  snprintf(p.attn, sizeof p.attn, "%s", attn);
  p.seq = seq, p.heads = heads, p.dhead = dhead;
  p.seed = 3;
  return p;
}

static void run_point(const ws_point *p, ws_point_result *r) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_point_run(ctx, p, NULL, r), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* The cycles of the same GEMM run by hand, as docs/kernels.md's
 * measurements do: a fresh timed device, A and B uploaded, one launch. */
static uint64_t direct_cycles(const char *variant, uint32_t m, uint32_t n, uint32_t k) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_device_set_mode(dev, WS_MODE_TIMING);
  ws_gemmgen_variant v;
  cr_assert_eq(ws_gemmgen_variant_parse(ctx, variant, &v), WS_OK);
  ws_gemmgen_cfg g = ws_gemmgen_defaults(v);
  ws_gemmgen_problem prob = {m, n, k, 0, 0, 0, 0, 0};
  cr_assert_eq(ws_device_malloc(dev, (uint64_t)m * k * 4, &prob.a), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, (uint64_t)k * n * 4, &prob.b), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, (uint64_t)m * n * 4, &prob.c), WS_OK);
  cr_assert_eq(ws_device_memset(dev, prob.a, 0, (uint64_t)m * k * 4), WS_OK);
  cr_assert_eq(ws_device_memset(dev, prob.b, 0, (uint64_t)k * n * 4), WS_OK);
  ws_launch_stats st;
  cr_assert_eq(ws_gemmgen_run(dev, &g, &prob, &st), WS_OK, "%s", ws_errmsg(ctx));
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return st.cycles;
}

Test(point, gemm_passes_and_matches_a_direct_run) {
  ws_point p = gemm_point("blocktile2d", 96, 80, 64);
  ws_point_result r;
  run_point(&p, &r);
  cr_assert(r.valid, "%s", r.why);
  cr_expect(r.check_pass, "%s", r.why);
  cr_expect_str_empty(r.why);
  cr_expect_eq(r.launches, 1);
  cr_expect_eq(r.ctas, 1); /* one 128 x 128 tile covers 96 x 80 */
  cr_expect_eq(r.threads_per_cta, 256);
  cr_expect_eq(r.cycles, direct_cycles("blocktile2d", 96, 80, 64), "the data does not change the timing");
  cr_expect_gt(r.warp_insns, 0);
  cr_expect_gt(r.dram_read_bytes, 0);
  cr_expect(r.max_abs_err < 1e-4, "max |err| %g", r.max_abs_err);
}

Test(point, derived_figures_follow_from_the_counts) {
  ws_point p = gemm_point("smem", 64, 64, 32);
  ws_point_result r;
  run_point(&p, &r);
  cr_assert(r.valid && r.check_pass, "%s", r.why);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_ctx_destroy(ctx);
  double secs = (double)r.cycles / (cfg.gpu.core_clock_mhz * 1e6);
  cr_expect_eq(r.flops, 2.0 * 64 * 64 * 32);
  cr_expect_float_eq(r.time_us, secs * 1e6, 1e-9 * r.time_us);
  cr_expect_float_eq(r.gflops, r.flops / secs / 1e9, 1e-9 * r.gflops);
  cr_expect_float_eq(r.arith_intensity, r.flops / (double)(r.dram_read_bytes + r.dram_write_bytes), 1e-12);
  cr_expect_eq(r.regs_per_thread > 0 && r.smem_per_cta_bytes == 2 * 32 * 32 * 4, true, "smem %u",
               r.smem_per_cta_bytes);
  cr_expect_gt(r.nstalls, 0);
  double shares = 0;
  for (uint32_t i = 0; i < r.nstalls; i++) shares += r.stall_pct[i];
  cr_expect_float_eq(shares, 100.0, 1e-6);
  cr_expect_str_eq(r.stall_names[0], ws_device_stall_name(0));
  cr_expect(r.l1_hit_pct >= 0 && r.l1_hit_pct <= 100 && r.l2_hit_pct >= 0 && r.l2_hit_pct <= 100);
}

Test(point, refused_configuration_is_a_result_with_the_reason) {
  ws_point p = gemm_point("blocktile2d", 64, 64, 64);
  p.bm = 24; /* not a power of two */
  ws_point_result r;
  run_point(&p, &r);
  cr_expect_not(r.valid);
  cr_expect(strstr(r.why, "bm=24 must be a power of two"), "%s", r.why);
  char why[256];
  ws_ctx *ctx = ws_ctx_create();
  cr_expect_not(ws_point_validate(ctx, &p, why, sizeof why));
  cr_expect_str_eq(why, r.why);
  p.bm = 0, p.wm = 32; /* blocktile2d has no warp tile */
  cr_expect_not(ws_point_validate(ctx, &p, why, sizeof why));
  cr_expect(strstr(why, "wm does not apply to the blocktile2d GEMM"), "%s", why);
  ws_ctx_destroy(ctx);
}

Test(point, oversized_shapes_are_refused_before_allocating) {
  ws_point p = gemm_point("naive", 65536, 65536, 65536);
  ws_point_result r;
  run_point(&p, &r);
  cr_expect_not(r.valid);
  cr_expect(strstr(r.why, "below 2^31 elements"), "%s", r.why);
  p.m = p.n = p.k = 40000; /* indexable, but 19 GB on a 1 GiB preset */
  run_point(&p, &r);
  cr_expect_not(r.valid);
  cr_expect(strstr(r.why, "more than classroom's 1073741824 bytes of memory"), "%s", r.why);
  p.m = 0;
  run_point(&p, &r);
  cr_expect(strstr(r.why, "M, N and K must be 1..65536"), "%s", r.why);
  ws_point a = attn_point("flash", 64, 2, 24); /* head dims are powers of two */
  run_point(&a, &r);
  cr_expect_not(r.valid);
  cr_expect(strstr(r.why, "head_dim must be a power of two"), "%s", r.why);
  a = attn_point("naive", UINT32_MAX, UINT32_MAX, UINT32_MAX); /* products that would wrap 64 bits */
  run_point(&a, &r);
  cr_expect(strstr(r.why, "must fit in 32 bits"), "%s", r.why);
  a = attn_point("naive", 64, 2, 16);
  a.br = 32;
  run_point(&a, &r);
  cr_expect(strstr(r.why, "naive takes none"), "%s", r.why);
}

Test(point, attention_naive_and_flash_pass) {
  ws_point p = attn_point("naive", 64, 2, 16);
  ws_point_result r;
  run_point(&p, &r);
  cr_assert(r.valid, "%s", r.why);
  cr_expect(r.check_pass, "%s", r.why);
  cr_expect_eq(r.launches, 3);
  cr_expect_eq(r.flops, 4.0 * 2 * 64 * 64 * 16);
  uint64_t naive_cycles = r.cycles;
  snprintf(p.attn, sizeof p.attn, "flash");
  p.br = 32, p.bc = 16;
  run_point(&p, &r);
  cr_assert(r.valid, "%s", r.why);
  cr_expect(r.check_pass, "%s", r.why);
  cr_expect_eq(r.launches, 1);
  cr_expect_eq(r.ctas, 2 * 2); /* 64 / Br rows by 2 heads */
  cr_expect_eq(r.threads_per_cta, 32);
  cr_expect_lt(r.cycles, naive_cycles, "the fused kernel keeps S on the SM");
}

/* The L2 policy, from the buffers' sizes on the classroom GPU (256 KiB of
 * L2, which every buffer here fits in): a GEMM launch that empties the L2
 * for the next reads A and B once and ends by writing C back; naive
 * attention's three kernels, sharing the L2, read only Q, K and V from
 * DRAM (the scores and probabilities stay in the L2 for the next kernel)
 * and write back everything they wrote, once, after the last. */
Test(point, the_l2_policy_decides_what_reaches_dram) {
  ws_point g = gemm_point("vectorized", 128, 128, 128);
  ws_point_result r;
  run_point(&g, &r);
  cr_assert(r.valid && r.check_pass, "%s", r.why);
  cr_expect_eq(r.dram_read_bytes, 2 * 128 * 128 * 4, "A and B, once");
  cr_expect_eq(r.dram_write_bytes, 128 * 128 * 4, "C, written back at the end");
  ws_point a = attn_point("naive", 64, 2, 16);
  ws_point_result flush, keep;
  run_point(&a, &flush);
  a.keep_l2 = 1;
  run_point(&a, &keep);
  cr_assert(flush.check_pass && keep.check_pass, "%s %s", flush.why, keep.why);
  const uint64_t qkv = 3ull * 2 * 64 * 16 * 4, scores = 2ull * 64 * 64 * 4, out = 2ull * 64 * 16 * 4;
  cr_expect_eq(keep.dram_read_bytes, qkv, "kept: %llu B read", (unsigned long long)keep.dram_read_bytes);
  cr_expect_eq(flush.dram_read_bytes, qkv + 2 * scores, "flushed: the scores and P read back");
  cr_expect_eq(flush.cycles > keep.cycles, true, "L2 hits are faster than DRAM reads");
  /* the softmax writes P over S: flushed, the buffer goes back twice (S
   * after the first kernel, P after the second) and O once; kept, the
   * buffer's last contents and O once, after the last kernel */
  cr_expect_eq(flush.dram_write_bytes, 2 * scores + out);
  cr_expect_eq(keep.dram_write_bytes, scores + out, "kept: %llu B written",
               (unsigned long long)keep.dram_write_bytes);
}

/* A sweep over naive and flash with flash tiles: the naive point takes
 * none (once), the flash points take each, and every point validates at
 * dhead 64 on the a100 (the default Bc builds there). */
Test(point, naive_and_flash_share_a_tiled_sweep) {
  ws_ctx *ctx = ws_ctx_create();
  ws_space sp;
  ws_space_init(&sp, WS_POINT_ATTENTION);
  const char *flags[][2] = {{"gpu", "a100"},         {"seq", "64"},   {"heads", "2"}, {"dhead", "64"},
                            {"attn", "naive,flash"}, {"br", "32,64"}, {"bc", "0,16"}};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    cr_assert_eq(ws_space_parse(ctx, &sp, ws_space_param_find(flags[i][0]), flags[i][1]), WS_OK, "%s: %s",
                 flags[i][0], ws_errmsg(ctx));
  ws_point *pts;
  size_t n;
  cr_assert_eq(ws_space_expand(ctx, &sp, &pts, &n), WS_OK, "%s", ws_errmsg(ctx));
  ws_space_free(&sp);
  cr_assert_eq(n, 1 + 2 * 2);
  size_t naive = 0;
  for (size_t i = 0; i < n; i++) {
    char why[256];
    bool ok = ws_point_validate(ctx, &pts[i], why, sizeof why);
    cr_expect(ok, "point %zu (%s br %u bc %u): %s", i, pts[i].attn, pts[i].br, pts[i].bc, why);
    if (strcmp(pts[i].attn, "naive") == 0) {
      naive++;
      cr_expect_eq(pts[i].br + pts[i].bc, 0);
    }
  }
  cr_expect_eq(naive, 1);
  free(pts);
  ws_ctx_destroy(ctx);
}

Test(point, same_point_same_record) {
  ws_point p = gemm_point("warptile", 128, 128, 32);
  ws_point_result *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  cr_assert(a && b);
  memset(b, 0xAB, sizeof *b); /* padding too must be rewritten */
  run_point(&p, a);
  run_point(&p, b);
  cr_assert(a->valid && a->check_pass, "%s", a->why);
  cr_expect_eq(memcmp(a, b, sizeof *a), 0);
  free(a), free(b);
}

/* ---- the hooks ------------------------------------------------------------------------ */

typedef struct seen {
  int devices, launches;
  uint64_t cycles;
  char kernels[128];
} seen;

static void on_device(void *user, ws_device *dev) {
  ((seen *)user)->devices++;
  cr_expect_eq(ws_device_mode(dev), WS_MODE_TIMING);
}

static void on_launch(void *user, const ws_device *dev, const char *kernel, ws_dim3 grid, ws_dim3 block,
                      const ws_launch_stats *ls) {
  seen *s = user;
  (void)grid, (void)block;
  s->launches++;
  s->cycles += ls->cycles;
  size_t n = strlen(s->kernels);
  snprintf(s->kernels + n, sizeof s->kernels - n, "%s%s", n ? "," : "", kernel);
  cr_expect_gt(ws_stats_count(ws_device_stats(dev)), 0, "the counters are still there");
}

Test(point, hooks_see_the_device_and_every_launch) {
  ws_point p = attn_point("naive", 32, 1, 8);
  seen s = {0};
  ws_point_opts o = {.on_device = on_device, .on_launch = on_launch, .user = &s};
  ws_point_result r;
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_point_run(ctx, &p, &o, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  cr_expect(r.check_pass, "%s", r.why);
  cr_expect_eq(s.devices, 1);
  cr_expect_eq(s.launches, 3);
  cr_expect_eq(s.cycles, r.cycles);
  cr_expect_str_eq(s.kernels, "attn_scores,softmax_rows,attn_pv");
}

Test(point, describe_names_the_resolved_tiles) {
  ws_point p = gemm_point("smem", 64, 64, 64);
  p.bm = 16, p.bn = 16;
  char d[128];
  ws_point_describe(&p, d, sizeof d);
  cr_expect_str_eq(d, "smem bm=16 bn=16 bk=32 threads=256");
  ws_point a = attn_point("flash", 64, 2, 16);
  ws_point_describe(&a, d, sizeof d);
  cr_expect_str_eq(d, "flash br=64 bc=64");
}

/* The point with (rs[0]) and without (rs[1]) the slice: everything but
 * the check's coverage is the same. */
static void run_both(const ws_point *p, ws_point_result rs[2]) {
  for (int exact = 0; exact < 2; exact++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_point_opts o = {.sample_exact = exact != 0};
    cr_assert_eq(ws_point_run(ctx, p, &o, &rs[exact]), WS_OK, "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    cr_assert(rs[exact].valid && rs[exact].check_pass, "%s", rs[exact].why);
  }
}

static void expect_same_measurements(const ws_point_result *a, const ws_point_result *b) {
  cr_expect_eq(a->cycles, b->cycles);
  cr_expect_eq(a->cycles_ci95, b->cycles_ci95);
  cr_expect_eq(a->warp_insns, b->warp_insns);
  cr_expect_eq(a->timed_warp_insns, b->timed_warp_insns);
  cr_expect_eq(a->dram_read_bytes, b->dram_read_bytes);
  cr_expect_eq(a->dram_write_bytes, b->dram_write_bytes);
  cr_expect_eq(a->smem_bank_conflicts, b->smem_bank_conflicts);
  cr_expect_eq(a->lsu_refusals, b->lsu_refusals);
  cr_expect_eq(memcmp(&a->l1_hit_pct, &b->l1_hit_pct, sizeof a->l1_hit_pct), 0);
  cr_expect_eq(memcmp(&a->l2_hit_pct, &b->l2_hit_pct, sizeof a->l2_hit_pct), 0);
  cr_expect_eq(memcmp(a->stall_pct, b->stall_pct, sizeof a->stall_pct), 0);
}

/* A sampled 64-CTA smem GEMM (32 x 32 tiles): 16 CTAs computed, on a
 * diagonal of 4 x 4 blocks, their 16 x 1024 outputs checked; the rest ran
 * the slice, timed and counted exactly as --sample=exact times them. */
Test(point, a_sampled_point_checks_the_computed_ctas_and_times_the_rest_the_same) {
  ws_point p = gemm_point("smem", 256, 256, 128);
  p.sample_waves = WS_SAMPLER_DEFAULT_WAVES, p.sample_rounds = WS_SAMPLER_DEFAULT_ROUNDS;
  ws_point_result rs[2];
  run_both(&p, rs);
  cr_expect_eq(rs[0].ctas, 64);
  cr_expect_eq(rs[0].computed_ctas, 16);
  cr_expect_eq(rs[0].outputs, 256 * 256);
  cr_expect_eq(rs[0].checked_outputs, 16 * 32 * 32);
  cr_expect_eq(rs[1].computed_ctas, 64);
  cr_expect_eq(rs[1].checked_outputs, 256 * 256);
  expect_same_measurements(&rs[0], &rs[1]);
}

Test(point, flash_attention_is_sliced_and_naive_attention_is_not) {
  ws_point flash = attn_point("flash", 512, 4, 16), naive = attn_point("naive", 128, 4, 16);
  flash.sample_waves = naive.sample_waves = WS_SAMPLER_DEFAULT_WAVES;
  flash.sample_rounds = naive.sample_rounds = WS_SAMPLER_DEFAULT_ROUNDS;
  ws_point_result fr[2], nr[2];
  run_both(&flash, fr);
  cr_expect_gt(fr[0].ctas, 2 * WS_SLICE_COMPUTED_CTAS - 1);
  cr_expect_lt(fr[0].computed_ctas, fr[0].ctas);
  cr_expect_lt(fr[0].checked_outputs, fr[0].outputs);
  cr_expect_gt(fr[0].checked_outputs, 0);
  expect_same_measurements(&fr[0], &fr[1]);
  run_both(&naive, nr);
  cr_expect_eq(nr[0].computed_ctas, nr[0].ctas, "its kernels read each other's outputs");
  cr_expect_eq(nr[0].checked_outputs, nr[0].outputs);
}

/* The skipped waves of a sliced launch run on two host threads: the warm
 * L2, every counter and the checked outputs are one thread's. */
Test(point, a_sampled_point_is_the_same_on_two_host_threads) {
  ws_point p = gemm_point("smem", 512, 512, 32); /* 256 CTAs: 108 timed (docs/explore.md) */
  p.sample_waves = WS_SAMPLER_DEFAULT_WAVES, p.sample_rounds = WS_SAMPLER_DEFAULT_ROUNDS;
  ws_point_result rs[2];
  for (int t = 0; t < 2; t++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_point_opts o = {.sim_threads = t ? 2 : 1};
    cr_assert_eq(ws_point_run(ctx, &p, &o, &rs[t]), WS_OK, "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
  }
  cr_assert(rs[0].sampled && rs[0].timed_ctas < rs[0].ctas, "waves were skipped");
  expect_same_measurements(&rs[0], &rs[1]);
  cr_expect_eq(rs[0].warp_insns, rs[1].warp_insns);
  cr_expect_eq(rs[0].checked_outputs, rs[1].checked_outputs);
  cr_expect_eq(rs[0].max_abs_err, rs[1].max_abs_err);
  cr_expect(rs[1].check_pass, "%s", rs[1].why);
}
