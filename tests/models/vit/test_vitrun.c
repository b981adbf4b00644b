/* test_vitrun.c - TinyViT32 end to end on the simulated GPU: every layer of
 * every configuration matches the OpenBLAS reference forward pass, the
 * timeline has the shape of the pipeline, runs are deterministic, and bad
 * configurations are refused with their reason.
 *
 * Design: the reference is models/vit/tinyvit.c's forward pass (tested on its
 * own against a double-precision triple loop in test_tinyvit.c); the
 * expected structure of the timeline follows from the model's definition
 * (one capture per layer, in order). Runs use the small classroom preset
 * so the whole ladder stays fast. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base/formats/image.h"
#include "models/vit/vitrun.h"

typedef struct fixture {
  ws_ctx *ctx;
  ws_device *dev;
  ws_runtime *rt;
  ws_tinyvit_weights *w;
  float *images;
  ws_vitrun_result res;
} fixture;

static void setup(fixture *f, const char *preset, ws_tinyvit_cfg mc, uint32_t batch) {
  memset(f, 0, sizeof *f);
  f->ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(f->ctx, preset, &cfg), WS_OK, "%s", ws_errmsg(f->ctx));
  cr_assert_eq(ws_device_create(f->ctx, &cfg, &f->dev), WS_OK);
  cr_assert_eq(ws_runtime_create(f->dev, &f->rt), WS_OK);
  cr_assert_eq(ws_tinyvit_weights_create(f->ctx, &mc, &f->w), WS_OK, "%s", ws_errmsg(f->ctx));
  ws_tinyvit_weights_init_seeded(f->w, 7);
  f->images = calloc((size_t)batch * WS_TINYVIT_IMAGE_FLOATS, sizeof *f->images);
  const char *const *names = ws_image_sample_names();
  for (uint32_t i = 0; i < batch; i++) {
    ws_image *img = NULL;
    cr_assert_eq(ws_image_sample(f->ctx, names[i % 4], &img), WS_OK);
    cr_assert_eq(ws_image_to_input(f->ctx, img, f->images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS), WS_OK);
    ws_image_destroy(img);
  }
}

static void teardown(fixture *f) {
  ws_vitrun_result_free(&f->res);
  ws_tinyvit_weights_destroy(f->w);
  ws_runtime_destroy(f->rt);
  ws_device_destroy(f->dev);
  free(f->images);
  ws_ctx_destroy(f->ctx);
}

static ws_status run(fixture *f, const ws_vitrun_cfg *c) {
  ws_vitrun_result_free(&f->res);
  return ws_vitrun_run(f->rt, f->w, f->images, c, &f->res);
}

static void expect_pass(fixture *f, const ws_vitrun_cfg *c, const char *what) {
  cr_assert_eq(run(f, c), WS_OK, "%s: %s", what, ws_errmsg(f->ctx));
  for (size_t i = 0; i < f->res.nchecks; i++) {
    const ws_vitrun_check *k = &f->res.checks[i];
    cr_expect(k->pass, "%s: layer %s: max |err| %g > %g x %g", what, k->layer, k->max_abs_err, k->tol,
              k->scale);
    cr_expect_gt(k->nvalues, 0, "%s: layer %s compared nothing", what, k->layer);
  }
  cr_expect(f->res.pass, "%s", what);
  for (uint32_t i = 0; i < c->batch; i++) {
    double tol = c->gemm.variant == WS_GEMMGEN_MMA ? 2e-2 : 1e-5;
    cr_expect_leq(fabs((double)f->res.prob[i] - f->res.ref_prob[i]), tol, "%s: image %u probability", what,
                  i);
  }
}

static const ws_tinyvit_cfg tiny = {64, 4, 1};

Test(vitrun, default_pipeline_matches_openblas_layer_by_layer) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  expect_pass(&f, &c, "defaults");
  /* patch, patch_embed, 6 per block, pool, head */
  cr_expect_eq(f.res.nchecks, 2 + 6 + 2);
  const char *layers[] = {"patch",          "patch_embed",  "blocks.0.qkv", "blocks.0.attn", "blocks.0.proj",
                          "blocks.0.norm1", "blocks.0.fc1", "blocks.0.fc2", "pool",          "head"};
  for (size_t i = 0; i < 10 && i < f.res.nchecks; i++) cr_expect_str_eq(f.res.checks[i].layer, layers[i]);
  teardown(&f);
}

/* weights H2D, image H2D, the kernels (patch_embed is a GEMM and the
 * position add), the probability D2H; the end-to-end span runs from the
 * image copy's start to the readback's end. */
Test(vitrun, timeline_has_the_pipeline_shape) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  cr_assert_eq(run(&f, &c), WS_OK, "%s", ws_errmsg(f.ctx));
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(f.rt, &n);
  cr_assert_eq(n, 2 + 11 + 1, "2 copies in, 11 kernels, 1 copy out");
  cr_expect_eq(r[0].kind, WS_RUNTIME_OP_H2D);
  cr_expect_str_eq(r[0].name, "weights");
  cr_expect_eq(r[0].size_bytes % 256, 0, "tensors at 256-byte offsets");
  cr_expect_eq(r[1].size_bytes, WS_TINYVIT_IMAGE_FLOATS * 4);
  for (size_t i = 2; i < n - 1; i++) {
    cr_expect_eq(r[i].kind, WS_RUNTIME_OP_KERNEL, "record %zu", i);
    cr_expect_gt(r[i].stats.cycles, 0);
    cr_expect_geq(r[i].start_ns, r[i - 1].end_ns, "one stream: in order");
  }
  cr_expect_str_eq(r[3].kernel, "gemm_blocktile2d");
  cr_expect_str_eq(r[4].kernel, "add_positions");
  cr_expect_eq(r[n - 1].kind, WS_RUNTIME_OP_D2H);
  cr_expect_eq(r[n - 1].size_bytes, 4);
  cr_expect_eq(f.res.image_start_ns, r[1].start_ns);
  cr_expect_eq(f.res.end_ns, r[n - 1].end_ns);
  cr_expect_eq(f.res.checks[1].first_record, 3);
  cr_expect_eq(f.res.checks[1].nrecords, 2);
  teardown(&f);
}

/* Every buffer the run uses is named with its class: each weight tensor by
 * its safetensors name inside the weights allocation, the image, the
 * scores and the activations; the names stay after the buffers are freed. */
Test(vitrun, buffers_are_named_by_tensor) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  cr_assert_eq(run(&f, &c), WS_OK, "%s", ws_errmsg(f.ctx));
  size_t n = 0, nw = ws_tinyvit_weights_count(f.w), counts[WS_RUNTIME_TENSOR_COUNT] = {0};
  const ws_runtime_region *g = ws_runtime_regions(f.rt, &n);
  cr_assert_eq(n, nw + 13, "every weight tensor, the image and 12 other buffers");
  const ws_runtime_region *qkv = NULL, *image = NULL, *scores = NULL;
  for (size_t i = 0; i < n; i++) {
    counts[g[i].tensor]++;
    if (i) cr_expect_geq(g[i].addr, g[i - 1].addr + g[i - 1].size_bytes, "sorted, never overlapping");
    if (strcmp(g[i].name, "blocks.0.attn.qkv.weight") == 0) qkv = &g[i];
    if (strcmp(g[i].name, "image") == 0) image = &g[i];
    if (strcmp(g[i].name, "scores") == 0) scores = &g[i];
  }
  cr_expect_eq(counts[WS_RUNTIME_TENSOR_WEIGHTS], nw);
  cr_expect_eq(counts[WS_RUNTIME_TENSOR_IMAGE], 1);
  cr_expect_eq(counts[WS_RUNTIME_TENSOR_SCORES], 1);
  cr_expect_eq(counts[WS_RUNTIME_TENSOR_ACTIVATIONS], 11);
  cr_expect_eq(counts[WS_RUNTIME_TENSOR_OTHER], 0);
  cr_assert(qkv && image && scores);
  cr_expect_eq(qkv->tensor, WS_RUNTIME_TENSOR_WEIGHTS);
  cr_expect_eq(qkv->size_bytes, 3u * 64u * 64u * 4u, "[3D, D] floats");
  cr_expect_eq(image->tensor, WS_RUNTIME_TENSOR_IMAGE);
  cr_expect_eq(image->size_bytes, WS_TINYVIT_IMAGE_FLOATS * 4);
  cr_expect_eq(scores->tensor, WS_RUNTIME_TENSOR_SCORES);
  cr_expect_eq(scores->size_bytes, 4u * 64u * 64u * 4u, "heads x tokens x tokens floats");
  teardown(&f);
}

Test(vitrun, every_gemm_variant_and_both_attentions) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++)
    for (int a = 0; a < WS_VITRUN_ATTN_COUNT; a++) {
      ws_vitrun_cfg c = ws_vitrun_defaults();
      c.gemm = ws_gemmgen_defaults((ws_gemmgen_variant)v);
      c.attn = (ws_vitrun_attn)a;
      char what[64];
      snprintf(what, sizeof what, "%s + %s", ws_gemmgen_variant_name(c.gemm.variant),
               ws_vitrun_attn_name(c.attn));
      expect_pass(&f, &c, what);
    }
  teardown(&f);
}

Test(vitrun, deeper_narrower_model_and_a_batch) {
  fixture f;
  const ws_tinyvit_cfg mc = {32, 2, 2};
  setup(&f, "classroom", mc, 3);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = 3;
  c.attn = WS_VITRUN_ATTN_NAIVE;
  expect_pass(&f, &c, "D=32 H=2 depth 2, batch 3");
  cr_expect_eq(f.res.nchecks, 2 + 6 * 2 + 2);
  /* different images give different probabilities, each its own reference */
  cr_expect_neq(f.res.ref_prob[0], f.res.ref_prob[1]);
  teardown(&f);
}

/* ---- pipelined batches ------------------------------------------------------------------ */

/* Micro-batches on several streams: every pass is checked against its own
 * images' reference, pass p runs on the p mod S-th stream, and the batched
 * per-image kernels make one launch per layer per pass. */
Test(vitrun, passes_on_streams_match_openblas) {
  fixture f;
  const ws_tinyvit_cfg mc = {32, 2, 1};
  setup(&f, "classroom", mc, 5);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = 5;
  c.streams = 2;
  c.micro_batch = 2;
  c.attn = WS_VITRUN_ATTN_NAIVE;
  expect_pass(&f, &c, "5 images, passes of 2, 2 streams");
  cr_assert_eq(f.res.npasses, 3);
  cr_expect_eq(f.res.nchecks, 3 * (2 + 6 + 2), "every layer of every pass checked");
  uint32_t images[] = {2, 2, 1};
  for (uint32_t p = 0; p < 3; p++) {
    cr_expect_eq(f.res.passes[p].first_image, 2 * p);
    cr_expect_eq(f.res.passes[p].images, images[p]);
    cr_expect_eq(f.res.passes[p].stream, f.res.passes[p % 2].stream);
  }
  cr_expect_neq(f.res.passes[0].stream, f.res.passes[1].stream);
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(f.rt, &n);
  cr_expect_str_eq(r[f.res.passes[1].image_record].name, "images 2-3");
  cr_expect_str_eq(r[f.res.passes[2].prob_record].name, "probability 4");
  size_t kernels = 0;
  for (size_t i = 0; i < n; i++) kernels += r[i].kind == WS_RUNTIME_OP_KERNEL;
  /* patch, embed GEMM + positions, qkv, scores + softmax + PV, proj, norm1, fc1, fc2, pool, head */
  cr_expect_eq(kernels, 3 * 13, "one launch per kernel per pass, whatever the pass's images");
  teardown(&f);
}

/* Record durations, summed over one kind. */
static uint64_t sum_ns(const ws_runtime_record *r, size_t n, ws_runtime_op kind) {
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == kind && strcmp(r[i].name, "weights") != 0) t += r[i].end_ns - r[i].start_ns;
  return t;
}

/* The overlap, from first principles. On one stream, passes of one image
 * serialize: the makespan is every copy and every kernel end to end. On two
 * streams, when a pass's kernels take longer than the next image's H2D and
 * the previous probability's D2H (true here: tens of microseconds of
 * kernels against about ten per copy), every copy but the first H2D and the
 * last D2H hides under compute, and the makespan is the first H2D, all the
 * kernels, and the last D2H. The saving is the hidden copies (and whatever
 * the kernels' own times differ by, their L2 seeing other buffers). */
Test(vitrun, overlap_saves_what_copy_and_compute_times_predict) {
  enum { N = 4 };
  fixture f;
  setup(&f, "a100", tiny, N);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = N;
  c.micro_batch = 1;
  uint64_t span[2], kern[2], h2d[2], d2h[2], first_h2d = 0, last_d2h = 0;
  for (int k = 0; k < 2; k++) {
    c.streams = k ? 2 : 1;
    ws_runtime_destroy(f.rt);
    cr_assert_eq(ws_runtime_create(f.dev, &f.rt), WS_OK);
    expect_pass(&f, &c, k ? "two streams" : "one stream");
    size_t n;
    const ws_runtime_record *r = ws_runtime_timeline(f.rt, &n);
    span[k] = f.res.end_ns - f.res.image_start_ns;
    kern[k] = sum_ns(r, n, WS_RUNTIME_OP_KERNEL);
    h2d[k] = sum_ns(r, n, WS_RUNTIME_OP_H2D);
    d2h[k] = sum_ns(r, n, WS_RUNTIME_OP_D2H);
    if (k) {
      const ws_runtime_record *a = &r[f.res.passes[0].image_record], *b = &r[f.res.passes[N - 1].prob_record];
      first_h2d = a->end_ns - a->start_ns, last_d2h = b->end_ns - b->start_ns;
    }
  }
  cr_expect_eq(span[0], h2d[0] + kern[0] + d2h[0], "one stream: copies and kernels end to end");
  cr_expect_eq(span[1], first_h2d + kern[1] + last_d2h, "two streams: only the first and last copy show");
  int64_t saved = (int64_t)span[0] - (int64_t)span[1];
  int64_t predicted =
      (int64_t)(h2d[0] - first_h2d) + (int64_t)(d2h[0] - last_d2h) + (int64_t)kern[0] - (int64_t)kern[1];
  cr_expect_eq(saved, predicted, "saved %lld ns, predicted %lld ns", (long long)saved, (long long)predicted);
  cr_expect_gt(saved, 0);
  ws_vitrun_serving sv;
  cr_assert(ws_vitrun_serving_of(&f.res, &sv));
  cr_expect_eq(sv.images, N);
  cr_expect_eq(sv.makespan_ns, span[1]);
  uint64_t lat[N];
  for (int p = 0; p < N; p++) lat[p] = f.res.passes[p].end_ns - f.res.passes[p].start_ns;
  uint64_t mx = 0;
  for (int p = 0; p < N; p++) mx = lat[p] > mx ? lat[p] : mx;
  cr_expect_eq(sv.max_ns, mx);
  cr_expect_eq(sv.p99_ns, mx, "nearest rank: ceil(0.99 * 4) = the 4th of 4");
  int below = 0; /* the median is the 2nd smallest of 4: two latencies at most it */
  for (int p = 0; p < N; p++) below += lat[p] <= sv.p50_ns;
  cr_expect_geq(below, 2);
  teardown(&f);
}

/* The device memory a pipelined run holds: the weights and one set of
 * activations per stream in use. ws_vitrun_device_bytes bounds the weights
 * from above (a 256-byte pad per tensor), the activations exactly, so two
 * more streams add exactly two sets to the device's own peak. */
static uint64_t peak_of(ws_vitrun_cfg c) {
  fixture f;
  setup(&f, "classroom", tiny, c.batch);
  ws_device_set_mode(f.dev, WS_MODE_FUNCTIONAL);
  expect_pass(&f, &c, "peak");
  uint64_t peak = f.res.peak_device_bytes;
  teardown(&f);
  return peak;
}

Test(vitrun, pipelined_memory_is_one_activation_set_per_stream) {
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = 6;
  c.micro_batch = 2;
  uint64_t one = ws_vitrun_device_bytes(&c, &tiny), peak1 = peak_of(c);
  c.streams = 3;
  uint64_t three = ws_vitrun_device_bytes(&c, &tiny), peak3 = peak_of(c);
  uint64_t act = (three - one) / 2;
  cr_expect_eq(three, one + 2 * act);
  cr_expect_eq(peak3, peak1 + 2 * act, "peak %llu, one stream %llu, a set %llu", (unsigned long long)peak3,
               (unsigned long long)peak1, (unsigned long long)act);
  cr_expect_leq(peak3, three);
  c.streams = 8; /* only three passes: three streams get one */
  cr_expect_eq(ws_vitrun_device_bytes(&c, &tiny), three);
}

Test(vitrun, pipelining_flags_are_refused_with_the_range) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.streams = 0;
  cr_expect_eq(run(&f, &c), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "--streams must be 1..16") != NULL, "%s", ws_errmsg(f.ctx));
  c = ws_vitrun_defaults();
  c.batch = 2, c.micro_batch = 3;
  cr_expect_eq(run(&f, &c), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "--micro-batch must be 1..2 (the batch), got 3") != NULL, "%s",
            ws_errmsg(f.ctx));
  c = ws_vitrun_defaults();
  c.batch = 4096, c.micro_batch = 2048;
  cr_expect_eq(run(&f, &c), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "--micro-batch must be 1..1024 on classroom") != NULL, "%s",
            ws_errmsg(f.ctx));
  teardown(&f);
}

Test(vitrun, runs_are_deterministic) {
  uint64_t ends[2][16];
  for (int k = 0; k < 2; k++) {
    fixture f;
    setup(&f, "a100", tiny, 1);
    ws_vitrun_cfg c = ws_vitrun_defaults();
    cr_assert_eq(run(&f, &c), WS_OK);
    size_t n;
    const ws_runtime_record *r = ws_runtime_timeline(f.rt, &n);
    cr_assert_eq(n, 14);
    for (size_t i = 0; i < n; i++) ends[k][i] = r[i].end_ns;
    teardown(&f);
  }
  cr_expect_eq(memcmp(ends[0], ends[1], 14 * sizeof ends[0][0]), 0);
}

Test(vitrun, bad_configurations_are_refused_with_the_reason) {
  fixture f;
  setup(&f, "classroom", tiny, 1);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = 0;
  cr_expect_eq(run(&f, &c), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "--batch must be 1..1024 on classroom") != NULL, "%s", ws_errmsg(f.ctx));
  c = ws_vitrun_defaults();
  c.flash.br = 48;
  cr_expect_neq(run(&f, &c), WS_OK);
  cr_expect(strstr(ws_errmsg(f.ctx), "Br") != NULL, "%s", ws_errmsg(f.ctx));
  c = ws_vitrun_defaults();
  c.gemm.bm = 3;
  cr_expect_neq(run(&f, &c), WS_OK);
  cr_expect(strstr(ws_errmsg(f.ctx), "power of two") != NULL, "%s", ws_errmsg(f.ctx));
  size_t n;
  ws_runtime_timeline(f.rt, &n);
  cr_expect_eq(n, 0, "a refused configuration puts nothing on the timeline");
  teardown(&f);
}

Test(vitrun, attention_names_parse) {
  ws_ctx *ctx = ws_ctx_create();
  ws_vitrun_attn a;
  cr_expect_eq(ws_vitrun_attn_parse(ctx, "naive", &a), WS_OK);
  cr_expect_eq(a, WS_VITRUN_ATTN_NAIVE);
  cr_expect_eq(ws_vitrun_attn_parse(ctx, "fast", &a), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "unknown attention variant 'fast' (expected flash or naive)");
  ws_ctx_destroy(ctx);
}

/* ---- limits judged before anything is allocated ------------------------------------- */

static ws_status validate(const char *preset, ws_vitrun_cfg c, ws_tinyvit_cfg m, ws_ctx *ctx) {
  ws_gpu_cfg g;
  cr_assert_eq(ws_config_load_preset(ctx, preset, &g), WS_OK, "%s", ws_errmsg(ctx));
  return ws_vitrun_validate(ctx, &c, &m, &g);
}

/* M = 64*batch rows must stay within the GEMM generator's 65536: 1024
 * images; with bm = 1 the grid's y limit (65535 CTAs) allows 1023. */
Test(vitrun, validate_states_the_real_batch_range) {
  ws_ctx *ctx = ws_ctx_create();
  ws_vitrun_cfg c = ws_vitrun_defaults();
  ws_tinyvit_cfg m = ws_tinyvit_cfg_default();
  c.batch = 1024;
  cr_expect_eq(validate("a100", c, m, ctx), WS_OK, "%s", ws_errmsg(ctx));
  c.batch = 4096;
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "--batch must be 1..1024 on a100 with these tiles (got 4096): M = 64*batch "
                   "must be <= 65536 (the GEMM generator's largest M)");
  c.batch = 0;
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_INVALID);
  c = ws_vitrun_defaults();
  c.gemm = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  c.gemm.bm = 1, c.gemm.bn = 32, c.gemm.threads = 32;
  c.batch = 1024;
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "--batch must be 1..1023 on a100 with these tiles (got 1024): M = 64*batch "
                   "must be <= bm*65535 = 65535 (the grid's y limit)");
  /* the per-image kernels take the images along z: 64 heads x 1024 images is
   * one CTA too many for the naive attention's grid */
  c = ws_vitrun_defaults();
  c.attn = WS_VITRUN_ATTN_NAIVE;
  c.batch = 1024;
  m.heads = 64;
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "--batch must be 1..1023 on a100 with these tiles (got 1024): naive attention launches "
                   "batch*heads = batch*64 CTAs along z, at most 65535");
  ws_ctx_destroy(ctx);
}

/* D=1024, H=16: head_dim 64 needs 36 + 3*64 + Bc = 292 registers in the
 * flash kernel, over the 255 an A100 thread has; naive attention has no
 * such limit. */
Test(vitrun, validate_judges_tiles_and_attention_on_the_preset) {
  ws_ctx *ctx = ws_ctx_create();
  ws_vitrun_cfg c = ws_vitrun_defaults();
  ws_tinyvit_cfg m = {1024, 16, 1};
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_LIMIT);
  cr_expect(strstr(ws_errmsg(ctx),
                   "--attn flash with --dim 1024 --heads 16 (head_dim 64), --br 64 --bc 64 on "
                   "a100: flash attention: Bc=64 with dh=64 needs 292 registers per thread"),
            "%s", ws_errmsg(ctx));
  c.attn = WS_VITRUN_ATTN_NAIVE;
  cr_expect_eq(validate("a100", c, m, ctx), WS_OK, "%s", ws_errmsg(ctx));
  c = ws_vitrun_defaults();
  c.gemm.bm = 3; /* a structural rule, not a device limit: the generator's own status is kept */
  cr_expect_eq(validate("a100", c, ws_tinyvit_cfg_default(), ctx), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "GEMM tiles (--gemm, --bm ...) blocktile2d bm=3"), "%s", ws_errmsg(ctx));
  cr_expect(strstr(ws_errmsg(ctx), "bm=3 must be a power of two"), "%s", ws_errmsg(ctx));
  m = (ws_tinyvit_cfg){64, 5, 1};
  cr_expect_eq(validate("a100", ws_vitrun_defaults(), m, ctx), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "dim 64 is not divisible by heads 5"), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* D=64, H=4, depth 1, batch 1: 40641 parameters (stem 48*64 + 64 + 64*64,
 * block 8*64^2 + 9*64, head 64 + 1) = 162564 bytes, plus 15 tensors x 256
 * alignment = 166404; activations, each rounded to 256 bytes: image 12288,
 * patches 12288, x 16384, qkv 49152, scores 4*64*64*4 = 65536, att, resid,
 * x1 16384 each, h 32768, y 16384, pooled, logit, prob 256 each = 254720. */
Test(vitrun, device_bytes_and_memory_limits) {
  ws_ctx *ctx = ws_ctx_create();
  ws_vitrun_cfg c = ws_vitrun_defaults();
  ws_tinyvit_cfg m = ws_tinyvit_cfg_default();
  cr_expect_eq(ws_vitrun_device_bytes(&c, &m), 166404u + 254720u);
  /* 1 GiB of weights (D=1024, depth 32) does not fit the classroom's 1 GiB */
  c.attn = WS_VITRUN_ATTN_NAIVE;
  m = (ws_tinyvit_cfg){1024, 16, 32};
  cr_expect_eq(validate("classroom", c, m, ctx), WS_ERR_LIMIT);
  cr_expect(strstr(ws_errmsg(ctx),
                   "--batch 1 --dim 1024 --depth 32 needs 1029 MiB of device memory; classroom "
                   "has 1024 MiB"),
            "%s", ws_errmsg(ctx));
  /* on an A100 it fits, but 1024 images keep about 84 MiB of reference
   * activations each on the host */
  c.batch = 1024;
  cr_expect_eq(validate("a100", c, m, ctx), WS_ERR_LIMIT);
  cr_expect(strstr(ws_errmsg(ctx), "MiB of host memory"), "%s", ws_errmsg(ctx));
  cr_expect(strstr(ws_errmsg(ctx), "the limit is 8192 MiB"), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* ---- following a pixel ----------------------------------------------------------------- */

typedef struct want_reach {
  char layer[WS_RUNTIME_NAME_MAX];
  uint64_t reached, total;
} want_reach;

static size_t want_row(want_reach *w, size_t n, const char *layer, uint64_t reached, uint64_t total) {
  snprintf(w[n].layer, sizeof w[n].layer, "%s", layer);
  w[n].reached = reached;
  w[n].total = total;
  return n + 1;
}

/* What a pixel reaches, from the model's structure alone. Its channels
 * land in `channels` values of one patch (token t = (y/4)*8 + x/4); the
 * patch embedding is row-wise, so only row t of x (D values); the QKV
 * projection likewise (3D). Attention mixes tokens: S[h][i][j] = Q_i.K_j
 * holds the tag where i = t or j = t (2T - 1 per head), softmax normalizes
 * each row with all of its entries (every row has a tagged j = t), and
 * every output row i sums P[i][t] V_t, so all T x D outputs are reached;
 * from there every row is tagged (projection, LayerNorm, MLP), the mean
 * pool reaches D values, the head one logit and the probability one value.
 * A second block starts from all-tagged inputs. Other images of a batch
 * are never reached: the counts are image 0's, the totals the batch's (the
 * naive attention's scores buffer holds every image's, one launch). */
static size_t expected_reach(const ws_tinyvit_cfg *m, ws_vitrun_attn attn, uint32_t batch, uint32_t channels,
                             want_reach *w) {
  const uint64_t t = WS_TINYVIT_TOKENS, d = m->dim, h = m->heads, b = batch;
  size_t n = 0;
  char name[WS_RUNTIME_NAME_MAX];
  n = want_row(w, n, "patch", channels, t * WS_TINYVIT_PATCH_DIM * b);
  n = want_row(w, n, "patch_embed", d, t * d * b);
  for (uint32_t k = 0; k < m->depth; k++) {
    bool first = k == 0;
#define ROW(suffix, reached, total)                                                                          \
  snprintf(name, sizeof name, "blocks.%u.%s", k, suffix), n = want_row(w, n, name, reached, total)
    ROW("qkv", first ? 3 * d : t * 3 * d, t * 3 * d * b);
    if (attn == WS_VITRUN_ATTN_NAIVE) {
      ROW("attn.scores", first ? h * (2 * t - 1) : h * t * t, h * t * t * b);
      ROW("attn.softmax", h * t * t, h * t * t * b);
    }
    ROW("attn", t * d, t * d * b);
    ROW("proj", t * d, t * d * b);
    ROW("norm1", t * d, t * d * b);
    ROW("fc1", t * 2 * d, t * 2 * d * b);
    ROW("fc2", t * d, t * d * b);
#undef ROW
  }
  n = want_row(w, n, "pool", d, d * b);
  n = want_row(w, n, "head", 1, b);
  return want_row(w, n, "probability", 1, b);
}

static void expect_reach(fixture *f, const ws_tinyvit_cfg *m, const ws_vitrun_cfg *c, bool timing,
                         const char *what) {
  ws_device_set_mode(f->dev, timing ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
  expect_pass(f, c, what);
  want_reach w[8 + 8 * 32];
  uint32_t channels = c->follow.channel == WS_VITRUN_ALL_CHANNELS ? WS_TINYVIT_CHANNELS : 1;
  size_t n = expected_reach(m, c->attn, c->batch, channels, w);
  cr_assert_eq(f->res.nreach, n, "%s: %zu rows", what, f->res.nreach);
  for (size_t i = 0; i < n; i++) {
    const ws_vitrun_reach *r = &f->res.reach[i];
    cr_expect_str_eq(r->layer, w[i].layer, "%s: row %zu", what, i);
    cr_expect_eq(r->reached, w[i].reached, "%s: %s reached %llu, want %llu", what, r->layer,
                 (unsigned long long)r->reached, (unsigned long long)w[i].reached);
    cr_expect_eq(r->total, w[i].total, "%s: %s of %llu", what, r->layer, (unsigned long long)r->total);
  }
  cr_expect(!ws_device_following(f->dev), "%s: the run turned following back off", what);
}

/* Both attentions, the default GEMM and the tensor-core one, functional
 * and timing: the same counts, all from expected_reach. */
Test(vitrun, following_a_pixel_reaches_what_the_model_structure_says) {
  fixture f;
  const ws_tinyvit_cfg m = ws_tinyvit_cfg_default();
  setup(&f, "classroom", m, 1);
  const ws_gemmgen_variant gemms[] = {ws_vitrun_defaults().gemm.variant, WS_GEMMGEN_MMA};
  for (int timing = 0; timing < 2; timing++)
    for (int a = 0; a < WS_VITRUN_ATTN_COUNT; a++)
      for (int g = 0; g < 2; g++) {
        ws_vitrun_cfg c = ws_vitrun_defaults();
        c.attn = (ws_vitrun_attn)a;
        if (g) c.gemm = ws_gemmgen_defaults(gemms[g]);
        c.follow = (ws_vitrun_follow){true, 12, 7, g ? 1u : WS_VITRUN_ALL_CHANNELS};
        char what[96];
        snprintf(what, sizeof what, "%s + %s, %s, pixel (12,7%s)", ws_gemmgen_variant_name(c.gemm.variant),
                 ws_vitrun_attn_name(c.attn), timing ? "timing" : "functional", g ? ",1" : "");
        expect_reach(&f, &m, &c, timing, what);
      }
  teardown(&f);
}

/* Two blocks and a batch of two: the second block starts from all-tagged
 * inputs, and image 1 is never reached. */
Test(vitrun, following_a_pixel_through_two_blocks_and_a_batch) {
  fixture f;
  const ws_tinyvit_cfg m = {32, 2, 2};
  setup(&f, "classroom", m, 2);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = 2;
  c.attn = WS_VITRUN_ATTN_NAIVE;
  c.follow = (ws_vitrun_follow){true, 31, 0, 2};
  expect_reach(&f, &m, &c, true, "D=32 H=2 depth 2, batch 2");
  teardown(&f);
}

/* Following changes no value and no time: the probabilities, every
 * layer's error and every record's times and cycles are those of the run
 * without it (each on a fresh device: the L2 outlives a run). */
Test(vitrun, following_changes_no_value_and_no_time) {
  fixture f[2];
  for (int k = 0; k < 2; k++) {
    setup(&f[k], "classroom", tiny, 1);
    ws_vitrun_cfg c = ws_vitrun_defaults();
    if (k) c.follow = (ws_vitrun_follow){true, 0, 31, WS_VITRUN_ALL_CHANNELS};
    cr_assert_eq(run(&f[k], &c), WS_OK, "%s", ws_errmsg(f[k].ctx));
  }
  cr_expect_null(f[0].res.reach, "no pixel followed: no rows");
  cr_expect_eq(f[1].res.nreach, 11);
  cr_expect_eq(memcmp(f[0].res.prob, f[1].res.prob, sizeof(float)), 0);
  cr_assert_eq(f[0].res.nchecks, f[1].res.nchecks);
  for (size_t i = 0; i < f[0].res.nchecks; i++)
    cr_expect_eq(f[0].res.checks[i].max_abs_err, f[1].res.checks[i].max_abs_err, "layer %zu", i);
  size_t n0, n1;
  const ws_runtime_record *r0 = ws_runtime_timeline(f[0].rt, &n0), *r1 = ws_runtime_timeline(f[1].rt, &n1);
  cr_assert_eq(n0, n1);
  for (size_t i = 0; i < n0; i++) {
    cr_expect_eq(r0[i].start_ns, r1[i].start_ns, "record %zu", i);
    cr_expect_eq(r0[i].end_ns, r1[i].end_ns, "record %zu", i);
    cr_expect_eq(memcmp(&r0[i].stats, &r1[i].stats, sizeof r0[i].stats), 0, "record %zu", i);
  }
  teardown(&f[0]);
  teardown(&f[1]);
}

Test(vitrun, a_followed_pixel_outside_the_image_is_refused) {
  ws_ctx *ctx = ws_ctx_create();
  ws_vitrun_cfg c = ws_vitrun_defaults();
  const ws_tinyvit_cfg m = ws_tinyvit_cfg_default();
  c.follow = (ws_vitrun_follow){true, 31, 31, 2};
  cr_expect_eq(validate("classroom", c, m, ctx), WS_OK, "%s", ws_errmsg(ctx));
  c.follow = (ws_vitrun_follow){true, 32, 7, WS_VITRUN_ALL_CHANNELS};
  cr_expect_eq(validate("classroom", c, m, ctx), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "--follow-pixel X,Y[,C]: X and Y must be 0..31 (the image is 32x32), got 32,7");
  c.follow = (ws_vitrun_follow){true, 3, 7, 3};
  cr_expect_eq(validate("classroom", c, m, ctx), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--follow-pixel X,Y[,C]: C must be 0..2 (R, G, B), got 3");
  c.follow.on = false; /* ignored when off */
  cr_expect_eq(validate("classroom", c, m, ctx), WS_OK);
  ws_ctx_destroy(ctx);
}
