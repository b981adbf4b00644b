/* test_tinyvit.c - the TinyViT32 reference: config validation, the weights
 * table and its seeded initialisation, the helpers against hand-computed
 * values, every intermediate of the BLAS forward pass against a plain
 * triple-loop forward written here from the model definition (double
 * precision, no BLAS), safetensors import/export and its errors, and the
 * per-layer cost table against the parameter count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/f16.h"
#include "base/formats/safetensors.h"
#include "models/vit/tinyvit.h"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_tv_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(tinyvit, .init = setup, .fini = teardown);

static ws_tinyvit_weights *seeded(uint32_t dim, uint32_t heads, uint32_t depth, uint64_t seed) {
  ws_tinyvit_cfg cfg = {dim, heads, depth};
  ws_tinyvit_weights *w = NULL;
  cr_assert_eq(ws_tinyvit_weights_create(ctx, &cfg, &w), WS_OK, "%s", ws_errmsg(ctx));
  ws_tinyvit_weights_init_seeded(w, seed);
  return w;
}

static const float *T_(const ws_tinyvit_weights *w, const char *name) {
  ws_tinyvit_tensor *t = ws_tinyvit_weights_find(w, name);
  cr_assert_not_null(t, "no tensor %s", name);
  return t->data;
}

/* ---- configuration ---------------------------------------------------------- */

Test(tinyvit, config_validation_names_the_problem) {
  ws_tinyvit_cfg def = ws_tinyvit_cfg_default();
  cr_expect_eq(def.dim, 64);
  cr_expect_eq(def.heads, 4);
  cr_expect_eq(def.depth, 1);
  cr_expect_eq(ws_tinyvit_cfg_validate(ctx, &def), WS_OK);
  static const struct {
    ws_tinyvit_cfg cfg;
    const char *expect;
  } bad[] = {
      {{10, 4, 1}, "dim 10 is not divisible by heads 4 (dim % heads = 2)"},
      {{0, 4, 1}, "dim=0 heads=4 depth=1: all three must be at least 1"},
      {{64, 0, 1}, "must be at least 1"},
      {{64, 4, 0}, "must be at least 1"},
      {{4096, 4, 1}, "dim=4096 heads=4 depth=1 is too large (limits: dim 1024, heads 64, depth 32)"},
      {{64, 4, 1000}, "is too large"},
      {{128, 128, 1}, "is too large"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_expect_eq(ws_tinyvit_cfg_validate(ctx, &bad[i].cfg), WS_ERR_INVALID, "case %zu", i);
    cr_expect(strstr(ws_errmsg(ctx), bad[i].expect), "case %zu: %s", i, ws_errmsg(ctx));
  }
  ws_tinyvit_weights *w = (ws_tinyvit_weights *)1;
  cr_expect_eq(ws_tinyvit_weights_create(ctx, &bad[0].cfg, &w), WS_ERR_INVALID);
  cr_expect_null(w);
}

/* ---- weights table ----------------------------------------------------------- */

Test(tinyvit, table_has_every_name_and_shape) {
  ws_tinyvit_weights *w = seeded(64, 4, 2, 1);
  cr_expect_eq(ws_tinyvit_weights_count(w), 3 + 2 * 10 + 2);
  static const struct {
    const char *name;
    uint32_t ndim, rows, cols;
  } want[] = {
      {"patch_embed.weight", 2, 64, 48},
      {"patch_embed.bias", 1, 64, 0},
      {"pos", 2, 64, 64},
      {"blocks.0.attn.qkv.weight", 2, 192, 64},
      {"blocks.1.attn.qkv.bias", 1, 192, 0},
      {"blocks.1.attn.proj.weight", 2, 64, 64},
      {"blocks.0.attn.proj.bias", 1, 64, 0},
      {"blocks.1.norm1.weight", 2 - 1, 64, 0},
      {"blocks.0.norm1.bias", 1, 64, 0},
      {"blocks.1.mlp.fc1.weight", 2, 128, 64},
      {"blocks.0.mlp.fc1.bias", 1, 128, 0},
      {"blocks.1.mlp.fc2.weight", 2, 64, 128},
      {"blocks.1.mlp.fc2.bias", 1, 64, 0},
      {"head.weight", 2, 1, 64},
      {"head.bias", 1, 1, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ws_tinyvit_tensor *t = ws_tinyvit_weights_find(w, want[i].name);
    cr_assert_not_null(t, "%s", want[i].name);
    cr_expect_eq(t->ndim, want[i].ndim, "%s", want[i].name);
    cr_expect_eq(t->shape[0], want[i].rows, "%s", want[i].name);
    if (t->ndim == 2) cr_expect_eq(t->shape[1], want[i].cols, "%s", want[i].name);
    cr_expect_eq(t->count, (size_t)want[i].rows * (want[i].cols ? want[i].cols : 1));
  }
  cr_expect_null(ws_tinyvit_weights_find(w, "blocks.2.norm1.bias"));
  cr_expect_str_eq(ws_tinyvit_weights_at(w, 0)->name, "patch_embed.weight");
  cr_expect_str_eq(ws_tinyvit_weights_at(w, 24)->name, "head.bias");
  cr_expect_null(ws_tinyvit_weights_at(w, 25));
  /* stem 113D, per block 8D^2 + 9D, head D + 1 (D = 64, two blocks) */
  cr_expect_eq(ws_tinyvit_weights_param_count(w), 113 * 64 + 2 * (8 * 64 * 64 + 9 * 64) + 65);
  ws_tinyvit_weights_destroy(w);
  ws_tinyvit_weights_destroy(NULL);
}

static float max_abs(const float *v, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; i++) m = fabsf(v[i]) > m ? fabsf(v[i]) : m;
  return m;
}

Test(tinyvit, seeded_init_follows_pytorch_defaults) {
  ws_tinyvit_weights *w = seeded(64, 4, 1, 42);
  static const struct {
    const char *name;
    double bound;                                         /* 1/sqrt(fan_in) */
  } lin[] = {{"patch_embed.weight", 0.14433756729740643}, /* 1/sqrt(48) */
             {"patch_embed.bias", 0.14433756729740643},
             {"blocks.0.attn.qkv.weight", 0.125}, /* 1/sqrt(64) */
             {"blocks.0.attn.proj.bias", 0.125},
             {"blocks.0.mlp.fc2.weight", 0.08838834764831845}, /* 1/sqrt(128) */
             {"head.weight", 0.125},
             {"pos", 0.02}};
  for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++) {
    ws_tinyvit_tensor *t = ws_tinyvit_weights_find(w, lin[i].name);
    float m = max_abs(t->data, t->count);
    cr_expect(m <= lin[i].bound, "%s: max %g > bound %g", lin[i].name, m, lin[i].bound);
    if (t->count >= 64)
      cr_expect(m > 0.9 * lin[i].bound, "%s: max %g fills too little of the range", lin[i].name, m);
  }
  const float *g = T_(w, "blocks.0.norm1.weight"), *b = T_(w, "blocks.0.norm1.bias");
  for (int i = 0; i < 64; i++) {
    cr_expect_eq(g[i], 1.0f);
    cr_expect_eq(b[i], 0.0f);
  }
  ws_tinyvit_weights_destroy(w);
}

Test(tinyvit, seeded_init_is_deterministic_and_per_tensor) {
  ws_tinyvit_weights *a = seeded(32, 2, 1, 7), *b = seeded(32, 2, 1, 7);
  ws_tinyvit_weights *c = seeded(32, 2, 1, 8), *deep = seeded(32, 2, 3, 7);
  size_t n = ws_tinyvit_weights_param_count(a);
  const float *pa = ws_tinyvit_weights_at(a, 0)->data, *pb = ws_tinyvit_weights_at(b, 0)->data;
  cr_expect_eq(memcmp(pa, pb, n * sizeof(float)), 0);
  cr_expect_neq(memcmp(pa, ws_tinyvit_weights_at(c, 0)->data, n * sizeof(float)), 0);
  /* block 0 does not depend on how many blocks follow */
  ws_tinyvit_tensor *q1 = ws_tinyvit_weights_find(a, "blocks.0.attn.qkv.weight");
  ws_tinyvit_tensor *q3 = ws_tinyvit_weights_find(deep, "blocks.0.attn.qkv.weight");
  cr_expect_eq(memcmp(q1->data, q3->data, q1->count * sizeof(float)), 0);
  ws_tinyvit_tensor *h1 = ws_tinyvit_weights_find(a, "head.weight");
  ws_tinyvit_tensor *h3 = ws_tinyvit_weights_find(deep, "head.weight");
  cr_expect_eq(memcmp(h1->data, h3->data, h1->count * sizeof(float)), 0);
  /* distinct tensors get distinct streams */
  ws_tinyvit_tensor *q2 = ws_tinyvit_weights_find(deep, "blocks.1.attn.qkv.weight");
  cr_expect_neq(memcmp(q1->data, q2->data, q1->count * sizeof(float)), 0);
  ws_tinyvit_weights_destroy(a);
  ws_tinyvit_weights_destroy(b);
  ws_tinyvit_weights_destroy(c);
  ws_tinyvit_weights_destroy(deep);
}

/* ---- helpers against hand-computed values ----------------------------------------- */

Test(tinyvit, patches_follow_conv_weight_order) {
  static float img[WS_TINYVIT_IMAGE_FLOATS], patches[64 * 48];
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < 32; y++)
      for (int x = 0; x < 32; x++) img[(c * 32 + y) * 32 + x] = (float)(c * 1024 + y * 32 + x);
  ws_tinyvit_patches(img, patches);
  /* token 0 starts at pixel (0,0) of channel 0; next element is x+1 */
  cr_expect_eq(patches[0], 0.0f);
  cr_expect_eq(patches[1], 1.0f);
  cr_expect_eq(patches[4], 32.0f);    /* ky = 1 */
  cr_expect_eq(patches[16], 1024.0f); /* c = 1 */
  cr_expect_eq(patches[47], 2048.0f + 3 * 32 + 3);
  /* token 9 = (py 1, px 1): pixel (4,4); element 17 = (c 1, ky 0, kx 1) */
  cr_expect_eq(patches[9 * 48 + 0], 132.0f);
  cr_expect_eq(patches[9 * 48 + 17], 1024.0f + 128 + 5);
  /* token 7 = (py 0, px 7): pixel (28, 0); token 63: last pixel of channel 2 */
  cr_expect_eq(patches[7 * 48 + 0], 28.0f);
  cr_expect_eq(patches[63 * 48 + 47], 3071.0f);
}

Test(tinyvit, layernorm_of_a_hand_computed_vector) {
  /* mean 5, biased variance 4: y = (x - 5) / sqrt(4 + 1e-5) * gamma + beta,
   * 1 / sqrt(4.00001) = 0.49999937500117... */
  const float x[8] = {2, 4, 4, 4, 5, 5, 7, 9};
  const float gamma[8] = {1, 1, 1, 1, 1, 1, 2, 2}, beta[8] = {0, 0, 0, 0, 0, 0.5f, 0, 1};
  const double r = 0.49999937500117;
  const double want[8] = {-3 * r, -r, -r, -r, 0, 0.5, 2 * 2 * r, 4 * 2 * r + 1};
  float y[8];
  ws_tinyvit_layernorm(x, gamma, beta, 1, 8, 1e-5f, y);
  for (int i = 0; i < 8; i++)
    cr_expect(fabs(y[i] - want[i]) < 1e-6, "y[%d] = %.9g, want %.9g", i, y[i], want[i]);
  /* rows are independent and y may alias x: [1, 3] and [10, 14] both
   * normalize to [-1, 1] exactly with eps 0 (variances 1 and 4) */
  float xy[4] = {1, 3, 10, 14};
  const float ones[2] = {1, 1}, zeros[2] = {0, 0};
  ws_tinyvit_layernorm(xy, ones, zeros, 2, 2, 0.0f, xy);
  cr_expect_eq(xy[0], -1.0f);
  cr_expect_eq(xy[1], 1.0f);
  cr_expect_eq(xy[2], -1.0f);
  cr_expect_eq(xy[3], 1.0f);
}

Test(tinyvit, gelu_matches_the_tanh_formula_by_hand) {
  /* g(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), sqrt(2/pi) = 0.7978845608:
   * x=1:   u = 0.8335620, tanh u = 0.6823840, g = 0.5 * 1.6823840 = 0.8411920
   * x=-1:  g(-x) = g(x) - x, so g = 0.8411920 - 1 = -0.1588080
   * x=2:   u = 1.8811884, tanh u = 0.9545977, g = 1.9545977
   * x=-3:  u = -3.3569437, tanh u = -0.9975751, g = -1.5 * 0.0024249 = -0.0036374
   * x=0.5: u = 0.4034020, tanh u = 0.3828560, g = 0.25 * 1.3828560 = 0.3457140 */
  static const struct {
    float x;
    double want;
  } pts[] = {{0.0f, 0.0},       {1.0f, 0.8411920},   {-1.0f, -0.1588080},
             {2.0f, 1.9545977}, {-3.0f, -0.0036374}, {0.5f, 0.3457140}};
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
    cr_expect(fabs(ws_tinyvit_gelu(pts[i].x) - pts[i].want) < 2e-6, "gelu(%g) = %.8f, want %.7f", pts[i].x,
              ws_tinyvit_gelu(pts[i].x), pts[i].want);
}

Test(tinyvit, softmax_of_a_known_row) {
  /* e^0, e^1, e^2 over their sum 11.107337: 0.0900306, 0.2447285, 0.6652410;
   * adding a constant (1000) must not overflow */
  float row[3] = {1000.0f, 1001.0f, 1002.0f};
  ws_tinyvit_softmax(row, 3);
  cr_expect(fabs(row[0] - 0.0900306) < 1e-6, "%.8f", row[0]);
  cr_expect(fabs(row[1] - 0.2447285) < 1e-6, "%.8f", row[1]);
  cr_expect(fabs(row[2] - 0.6652410) < 1e-6, "%.8f", row[2]);
}

/* ---- the triple-loop forward ------------------------------------------------------ */

typedef struct naive {
  double *x0, *qkv, *probs, *att, *a, *x1, *h, *out; /* last block's, except x0 */
  double pooled[64], logit, prob;
} naive;

static double *dalloc(size_t n) { return calloc(n, sizeof(double)); }

/* y[r][o] = sum_i x[r][i] * W[o][i] + b[o] */
static void naive_linear(const double *x, int rows, int in, const float *W, const float *b, int out,
                         double *y) {
  for (int r = 0; r < rows; r++)
    for (int o = 0; o < out; o++) {
      double s = b[o];
      for (int i = 0; i < in; i++) s += x[r * in + i] * W[o * in + i];
      y[r * out + o] = s;
    }
}

static void naive_attention(const naive *n, int D, int H, double *tmp_scores) {
  int dh = D / H;
  for (int h = 0; h < H; h++)
    for (int i = 0; i < 64; i++) {
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < 64; j++) {
        double s = 0;
        for (int k = 0; k < dh; k++) s += n->qkv[i * 3 * D + h * dh + k] * n->qkv[j * 3 * D + D + h * dh + k];
        tmp_scores[j] = s / sqrt((double)dh);
        mx = fmax(mx, tmp_scores[j]);
      }
      for (int j = 0; j < 64; j++) sum += exp(tmp_scores[j] - mx);
      for (int j = 0; j < 64; j++) n->probs[(h * 64 + i) * 64 + j] = exp(tmp_scores[j] - mx) / sum;
      for (int k = 0; k < dh; k++) {
        double s = 0;
        for (int j = 0; j < 64; j++)
          s += n->probs[(h * 64 + i) * 64 + j] * n->qkv[j * 3 * D + 2 * D + h * dh + k];
        n->att[i * D + h * dh + k] = s;
      }
    }
}

static void naive_norm(double *x, const float *g, const float *b, int D) {
  for (int t = 0; t < 64; t++) {
    double mean = 0, var = 0;
    for (int c = 0; c < D; c++) mean += x[t * D + c] / D;
    for (int c = 0; c < D; c++) var += (x[t * D + c] - mean) * (x[t * D + c] - mean) / D;
    for (int c = 0; c < D; c++) x[t * D + c] = (x[t * D + c] - mean) / sqrt(var + 1e-5) * g[c] + b[c];
  }
}

static void naive_block(naive *n, const ws_tinyvit_weights *w, int b, const double *x) {
  int D = (int)ws_tinyvit_weights_cfg(w).dim, H = (int)ws_tinyvit_weights_cfg(w).heads;
  char name[64];
#define W_(suffix) (snprintf(name, sizeof name, "blocks.%d.%s", b, suffix), T_(w, name))
  naive_linear(x, 64, D, W_("attn.qkv.weight"), W_("attn.qkv.bias"), 3 * D, n->qkv);
  double scores[64];
  naive_attention(n, D, H, scores);
  naive_linear(n->att, 64, D, W_("attn.proj.weight"), W_("attn.proj.bias"), D, n->a);
  for (int i = 0; i < 64 * D; i++) n->x1[i] = x[i] + n->a[i];
  naive_norm(n->x1, W_("norm1.weight"), W_("norm1.bias"), D);
  naive_linear(n->x1, 64, D, W_("mlp.fc1.weight"), W_("mlp.fc1.bias"), 2 * D, n->h);
  for (int i = 0; i < 64 * 2 * D; i++) {
    double v = n->h[i];
    n->h[i] = 0.5 * v * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
  }
  naive_linear(n->h, 64, 2 * D, W_("mlp.fc2.weight"), W_("mlp.fc2.bias"), D, n->out);
  for (int i = 0; i < 64 * D; i++) n->out[i] += n->x1[i];
#undef W_
}

static void naive_forward(naive *n, const ws_tinyvit_weights *w, const float *img) {
  ws_tinyvit_cfg cfg = ws_tinyvit_weights_cfg(w);
  int D = (int)cfg.dim;
  double patches[64 * 48], *x = dalloc(64 * (size_t)D);
  for (int t = 0; t < 64; t++)
    for (int e = 0; e < 48; e++) {
      int c = e / 16, ky = e / 4 % 4, kx = e % 4;
      patches[t * 48 + e] = img[(c * 32 + t / 8 * 4 + ky) * 32 + t % 8 * 4 + kx];
    }
  naive_linear(patches, 64, 48, T_(w, "patch_embed.weight"), T_(w, "patch_embed.bias"), D, n->x0);
  for (int i = 0; i < 64 * D; i++) n->x0[i] += T_(w, "pos")[i];
  memcpy(x, n->x0, 64 * (size_t)D * sizeof *x);
  for (int b = 0; b < (int)cfg.depth; b++) {
    naive_block(n, w, b, x);
    memcpy(x, n->out, 64 * (size_t)D * sizeof *x);
  }
  n->logit = T_(w, "head.bias")[0];
  for (int c = 0; c < D; c++) {
    n->pooled[c] = 0;
    for (int t = 0; t < 64; t++) n->pooled[c] += x[t * D + c] / 64;
    n->logit += n->pooled[c] * T_(w, "head.weight")[c];
  }
  n->prob = 1 / (1 + exp(-n->logit));
  free(x);
}

static void expect_close(const char *what, const float *got, const double *want, size_t count) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < count; i++) {
    double err = fabs(got[i] - want[i]), tol = 2e-5 + 1e-4 * fabs(want[i]);
    if (err > tol) bad++;
    worst = fmax(worst, err);
  }
  cr_expect_eq(bad, 0, "%s: %zu of %zu values off, worst error %g", what, bad, count, worst);
}

static void check_forward(uint32_t D, uint32_t H, uint32_t depth) {
  ws_tinyvit_weights *w = seeded(D, H, depth, 1234);
  ws_tinyvit_cfg cfg = {D, H, depth};
  ws_tinyvit_acts *acts = NULL;
  cr_assert_eq(ws_tinyvit_acts_create(ctx, &cfg, &acts), WS_OK, "%s", ws_errmsg(ctx));
  static float img[WS_TINYVIT_IMAGE_FLOATS];
  for (int i = 0; i < WS_TINYVIT_IMAGE_FLOATS; i++) img[i] = (float)sin(i * 0.37) * 2.0f;
  cr_assert_eq(ws_tinyvit_forward(ctx, w, img, acts), WS_OK, "%s", ws_errmsg(ctx));
  naive n = {.x0 = dalloc(64 * D),
             .qkv = dalloc(64 * 3 * D),
             .probs = dalloc(H * 64 * 64),
             .att = dalloc(64 * D),
             .a = dalloc(64 * D),
             .x1 = dalloc(64 * D),
             .h = dalloc(64 * 2 * D),
             .out = dalloc(64 * D)};
  naive_forward(&n, w, img);
  const ws_tinyvit_block_acts *last = &acts->blocks[depth - 1];
  expect_close("x0", acts->x0, n.x0, 64 * D);
  expect_close("qkv", last->qkv, n.qkv, 64 * 3 * D);
  expect_close("probs", last->probs, n.probs, H * 64 * 64);
  expect_close("att", last->att, n.att, 64 * D);
  expect_close("a", last->a, n.a, 64 * D);
  expect_close("x1", last->x1, n.x1, 64 * D);
  expect_close("h", last->h, n.h, 64 * 2 * D);
  expect_close("out", last->out, n.out, 64 * D);
  expect_close("pooled", acts->pooled, n.pooled, D);
  cr_expect(fabs(acts->logit - n.logit) < 1e-4, "logit %g vs %g", acts->logit, n.logit);
  cr_expect(fabs(acts->probability - n.prob) < 1e-5, "p %g vs %g", acts->probability, n.prob);
  /* the intermediates the naive form folds away are consistent too */
  for (size_t i = 0; i < 64 * (size_t)D; i++) {
    cr_assert_eq(last->resid1[i], (depth > 1 ? acts->blocks[depth - 2].out : acts->x0)[i] + last->a[i]);
    cr_assert_eq(last->out[i], last->x1[i] + last->fc2[i]);
  }
  for (size_t i = 0; i < 64 * 2 * (size_t)D; i++) cr_assert_eq(last->h[i], ws_tinyvit_gelu(last->fc1[i]));
  ws_tinyvit_acts_destroy(acts);
  ws_tinyvit_weights_destroy(w);
  double *bufs[] = {n.x0, n.qkv, n.probs, n.att, n.a, n.x1, n.h, n.out};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
}

Test(tinyvit, forward_matches_triple_loop_small_config) { check_forward(16, 2, 2); }

Test(tinyvit, forward_matches_triple_loop_default_config) { check_forward(64, 4, 1); }

Test(tinyvit, forward_matches_triple_loop_single_head) { check_forward(8, 1, 1); }

Test(tinyvit, forward_is_deterministic_and_checks_config) {
  ws_tinyvit_weights *w = seeded(32, 4, 1, 5);
  ws_tinyvit_cfg cfg = {32, 4, 1}, other = {32, 2, 1};
  ws_tinyvit_acts *a = NULL, *b = NULL, *wrong = NULL;
  cr_assert_eq(ws_tinyvit_acts_create(ctx, &cfg, &a), WS_OK);
  cr_assert_eq(ws_tinyvit_acts_create(ctx, &cfg, &b), WS_OK);
  cr_assert_eq(ws_tinyvit_acts_create(ctx, &other, &wrong), WS_OK);
  static float img[WS_TINYVIT_IMAGE_FLOATS];
  for (int i = 0; i < WS_TINYVIT_IMAGE_FLOATS; i++) img[i] = (float)(i % 7) - 3.0f;
  cr_assert_eq(ws_tinyvit_forward(ctx, w, img, a), WS_OK);
  cr_assert_eq(ws_tinyvit_forward(ctx, w, img, b), WS_OK);
  cr_expect_eq(ws_f32_bits(a->logit), ws_f32_bits(b->logit));
  cr_expect_eq(memcmp(a->blocks[0].out, b->blocks[0].out, 64 * 32 * sizeof(float)), 0);
  float sum = 0;
  for (int j = 0; j < 64; j++) sum += a->blocks[0].probs[3 * 64 * 64 + 17 * 64 + j];
  cr_expect(fabsf(sum - 1.0f) < 1e-5f, "row sum %g", sum);
  cr_expect_eq(ws_tinyvit_forward(ctx, w, img, wrong), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "activations are for dim=32 heads=2 depth=1, weights for dim=32 heads=4"),
            "%s", ws_errmsg(ctx));
  ws_tinyvit_acts_destroy(a);
  ws_tinyvit_acts_destroy(b);
  ws_tinyvit_acts_destroy(wrong);
  ws_tinyvit_acts_destroy(NULL);
  ws_tinyvit_weights_destroy(w);
}

/* ---- safetensors import / export ------------------------------------------------- */

static void path_in_dir(char *buf, size_t cap, const char *leaf) { snprintf(buf, cap, "%s/%s", dir, leaf); }

Test(tinyvit, weights_round_trip_through_safetensors) {
  ws_tinyvit_weights *w = seeded(32, 4, 2, 99), *back = NULL;
  char path[128];
  path_in_dir(path, sizeof path, "w.safetensors");
  cr_assert_eq(ws_tinyvit_weights_save(ctx, w, path), WS_OK, "%s", ws_errmsg(ctx));
  ws_tinyvit_cfg cfg = {32, 4, 2};
  cr_assert_eq(ws_tinyvit_weights_load(ctx, path, &cfg, &back), WS_OK, "%s", ws_errmsg(ctx));
  size_t n = ws_tinyvit_weights_param_count(w);
  cr_expect_eq(
      memcmp(ws_tinyvit_weights_at(w, 0)->data, ws_tinyvit_weights_at(back, 0)->data, n * sizeof(float)), 0);
  ws_safetensors *st = NULL;
  cr_assert_eq(ws_safetensors_load(ctx, path, (size_t)1 << 30, &st), WS_OK);
  cr_expect_str_eq(ws_safetensors_metadata(st, "model"), "tinyvit32");
  cr_expect_str_eq(ws_safetensors_metadata(st, "dim"), "32");
  cr_expect_str_eq(ws_safetensors_metadata(st, "heads"), "4");
  cr_expect_str_eq(ws_safetensors_metadata(st, "depth"), "2");
  ws_safetensors_destroy(st);
  remove(path);
  ws_tinyvit_weights_destroy(w);
  ws_tinyvit_weights_destroy(back);
}

/* Writes w's tensors with `edit` applied to the one called `target`. */
typedef void (*edit_fn)(ws_safetensors_tensor *t);

static void write_edited(const ws_tinyvit_weights *w, const char *path, const char *target, edit_fn edit) {
  size_t n = ws_tinyvit_weights_count(w);
  ws_safetensors_tensor *ts = calloc(n, sizeof *ts);
  for (size_t i = 0; i < n; i++) {
    const ws_tinyvit_tensor *t = ws_tinyvit_weights_at(w, i);
    ts[i] = (ws_safetensors_tensor){.name = t->name,
                                    .dtype = WS_SAFETENSORS_F32,
                                    .ndim = t->ndim,
                                    .shape = {t->shape[0], t->shape[1]},
                                    .count = t->count,
                                    .data = t->data};
    if (target && strcmp(t->name, target) == 0) edit(&ts[i]);
  }
  cr_assert_eq(ws_safetensors_write(ctx, path, ts, n, NULL, 0), WS_OK, "%s", ws_errmsg(ctx));
  free(ts);
}

static void rename_beta(ws_safetensors_tensor *t) { t->name = "blocks.0.norm1.beta"; }
static void square_qkv(ws_safetensors_tensor *t) {
  t->shape[0] = 64;
  t->count = 64 * 64;
}
static void as_f16(ws_safetensors_tensor *t) { t->dtype = WS_SAFETENSORS_F16; }
static void flatten(ws_safetensors_tensor *t) {
  t->ndim = 1;
  t->shape[0] = 64 * 48;
}

static void expect_load_error(const char *path, const ws_tinyvit_cfg *cfg, const char *want) {
  ws_tinyvit_weights *w = (ws_tinyvit_weights *)1;
  cr_expect_eq(ws_tinyvit_weights_load(ctx, path, cfg, &w), WS_ERR_INVALID);
  cr_expect_null(w);
  cr_expect(strstr(ws_errmsg(ctx), want), "want '%s', got '%s'", want, ws_errmsg(ctx));
  cr_expect(strstr(ws_errmsg(ctx), path), "names no file: %s", ws_errmsg(ctx));
}

Test(tinyvit, load_names_missing_and_unexpected_tensors) {
  ws_tinyvit_weights *w = seeded(64, 4, 1, 3);
  ws_tinyvit_cfg cfg = ws_tinyvit_cfg_default(), deeper = {64, 4, 3};
  char path[128];
  path_in_dir(path, sizeof path, "renamed.safetensors");
  write_edited(w, path, "blocks.0.norm1.bias", rename_beta);
  expect_load_error(path, &cfg,
                    "1 missing tensor(s) 'blocks.0.norm1.bias'; 1 unexpected tensor(s) "
                    "'blocks.0.norm1.beta'");
  /* a depth-1 file read as depth 3: twenty block tensors are missing */
  write_edited(w, path, NULL, NULL);
  expect_load_error(path, &deeper,
                    "not TinyViT weights for dim=64 heads=4 depth=3: 20 missing tensor(s) "
                    "'blocks.1.attn.qkv.weight'");
  cr_expect(strstr(ws_errmsg(ctx), "more; 0 unexpected tensor(s)"), "%s", ws_errmsg(ctx));
  remove(path);
  ws_tinyvit_weights_destroy(w);
}

Test(tinyvit, load_names_tensor_and_both_shapes) {
  ws_tinyvit_weights *w = seeded(64, 4, 1, 3);
  ws_tinyvit_cfg cfg = ws_tinyvit_cfg_default();
  char path[128];
  path_in_dir(path, sizeof path, "shape.safetensors");
  write_edited(w, path, "blocks.0.attn.qkv.weight", square_qkv);
  expect_load_error(path, &cfg, "tensor 'blocks.0.attn.qkv.weight' has shape [64, 64], expected [192, 64]");
  write_edited(w, path, "patch_embed.weight", flatten);
  expect_load_error(path, &cfg, "tensor 'patch_embed.weight' has shape [3072], expected [64, 48]");
  /* a file for D=64 read as D=128: the first tensor's shape is reported */
  ws_tinyvit_cfg wide = {128, 4, 1};
  write_edited(w, path, NULL, NULL);
  expect_load_error(path, &wide, "tensor 'patch_embed.weight' has shape [64, 48], expected [128, 48]");
  remove(path);
  ws_tinyvit_weights_destroy(w);
}

Test(tinyvit, load_refuses_unsupported_dtype_and_widens_f16) {
  ws_tinyvit_cfg cfg = {8, 2, 1};
  ws_tinyvit_weights *w = seeded(8, 2, 1, 11), *back = NULL;
  char path[128];
  path_in_dir(path, sizeof path, "dtype.safetensors");
  /* a file holding an F64 tensor, written by hand */
  const char *json = "{\"pos\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}";
  size_t len = strlen(json);
  FILE *f = fopen(path, "wb");
  uint8_t hdr[8] = {(uint8_t)len};
  fwrite(hdr, 1, 8, f);
  fwrite(json, 1, len, f);
  fwrite("\0\0\0\0\0\0\xf0\x3f", 1, 8, f);
  fclose(f);
  expect_load_error(path, &cfg, "tensor 'pos' has dtype 'F64', which is not supported");
  /* F16 storage loads, each value rounded through binary16 */
  write_edited(w, path, "blocks.0.mlp.fc1.weight", as_f16);
  cr_assert_eq(ws_tinyvit_weights_load(ctx, path, &cfg, &back), WS_OK, "%s", ws_errmsg(ctx));
  ws_tinyvit_tensor *orig = ws_tinyvit_weights_find(w, "blocks.0.mlp.fc1.weight");
  ws_tinyvit_tensor *got = ws_tinyvit_weights_find(back, "blocks.0.mlp.fc1.weight");
  size_t changed = 0;
  for (size_t i = 0; i < orig->count; i++) {
    cr_expect_eq(got->data[i], ws_f16_to_f32(ws_f16_from_f32(orig->data[i])));
    changed += got->data[i] != orig->data[i];
  }
  cr_expect_gt(changed, 0, "binary16 rounding should alter some fp32 weights");
  remove(path);
  ws_tinyvit_weights_destroy(w);
  ws_tinyvit_weights_destroy(back);
}

/* ---- costs ----------------------------------------------------------------------- */

Test(tinyvit, layer_costs_add_up) {
  ws_tinyvit_cfg cfg = ws_tinyvit_cfg_default();
  ws_tinyvit_layer_cost costs[32];
  size_t n = ws_tinyvit_layer_costs(&cfg, costs, 32);
  cr_assert_eq(n, 12);
  cr_expect_eq(ws_tinyvit_layer_count(&cfg), 12);
  cr_expect_str_eq(costs[0].name, "patches");
  cr_expect_str_eq(costs[1].name, "patch_embed");
  cr_expect_str_eq(costs[2].name, "blocks.0.qkv");
  cr_expect_str_eq(costs[11].name, "head");
  /* 2*64*48*64 for the GEMM, + 2 per output for bias and pos */
  cr_expect_eq(costs[1].flops, 2ull * 64 * 48 * 64 + 2 * 64 * 64);
  /* 2*64*64*192 + 64*192 bias adds */
  cr_expect_eq(costs[2].flops, 2ull * 64 * 64 * 192 + 64 * 192);
  cr_expect_eq(costs[0].in_bytes, 3 * 32 * 32 * 4);
  cr_expect_eq(costs[2].out_bytes, 64 * 192 * 4);
  /* every parameter is read by exactly one layer */
  ws_tinyvit_weights *w = seeded(64, 4, 1, 1);
  uint64_t weight_bytes = 0;
  for (size_t i = 0; i < n; i++) weight_bytes += costs[i].weight_bytes;
  cr_expect_eq(weight_bytes, 4 * ws_tinyvit_weights_param_count(w));
  ws_tinyvit_weights_destroy(w);
  /* each layer reads what the one before wrote, up to the residual inputs */
  cr_expect_eq(costs[1].in_bytes, costs[0].out_bytes);
  cr_expect_eq(costs[3].in_bytes, 2 * 64 * 64 * 4); /* scores read Q and K */
  /* a small cap still reports the count */
  cr_expect_eq(ws_tinyvit_layer_costs(&cfg, costs, 2), 12);
}

/* Sizes from the config alone agree with a built weights object; the file
 * cap is the largest model's (D=1024, depth 32) 268847105 F32 parameters =
 * 1075388420 bytes, + 8 + 1 MiB of header, rounded up: 1027 MiB. */
Test(tinyvit, sizes_from_the_config_match_the_weights_and_bound_the_file) {
  const ws_tinyvit_cfg cfgs[] = {{64, 4, 1}, {96, 3, 2}, {32, 8, 4}};
  for (size_t i = 0; i < 3; i++) {
    ws_tinyvit_weights *w = NULL;
    cr_assert_eq(ws_tinyvit_weights_create(ctx, &cfgs[i], &w), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect_eq(ws_tinyvit_cfg_param_count(&cfgs[i]), ws_tinyvit_weights_param_count(w));
    cr_expect_eq(ws_tinyvit_cfg_tensor_count(&cfgs[i]), ws_tinyvit_weights_count(w));
    ws_tinyvit_weights_destroy(w);
  }
  const ws_tinyvit_cfg largest = {1024, 16, 32};
  cr_expect_eq(ws_tinyvit_cfg_param_count(&largest), 268847105u);
  cr_expect_eq(ws_tinyvit_weights_file_max_bytes(), (size_t)1027 << 20);
}
