/* vitrun.c - TinyViT32 on the simulated GPU, layer by layer (see vitrun.h).
 *
 * Design: one device allocation holds every weight tensor at a 256-byte
 * aligned offset, the nn.Linear weights transposed to [in, out] so that
 * each linear layer is the GEMM X[M, in] * W^T[in, out] of models/gemmgen
 * with its bias, GELU and residual fused into the epilogue. Activations of
 * the whole batch are stacked row-wise ([batch * 64, width]), so the GEMMs
 * and LayerNorm run once per batch; the per-image kernels (patch
 * extraction, attention, mean-pool) run once per image. */
#include "models/vitrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/nngen.h"

#define TOKENS WS_TINYVIT_TOKENS
#define ALIGN_BYTES 256u
#define MAX_BUFS 16

typedef struct acts_dev {
  uint64_t img, patches, x, qkv, scores, att, resid, x1, h, y, pooled, logit, prob;
} acts_dev;

typedef struct run {
  ws_runtime *rt;
  ws_device *dev;
  ws_ctx *ctx;
  const ws_vitrun_cfg *cfg;
  const ws_tinyvit_weights *w;
  ws_tinyvit_cfg mc;
  uint32_t batch, dim;
  uint64_t wbase; /* the weights' device allocation */
  uint64_t *woff; /* per tensor (weights table order): byte offset in it */
  acts_dev a;
  uint64_t bufs[MAX_BUFS]; /* every activation allocation, freed at the end */
  size_t nbufs;
  ws_tinyvit_acts **ref; /* per image */
  float *host;           /* readback scratch */
  ws_vitrun_result *out;
  size_t cap_checks, cap_reach;
  bool was_following; /* the device's following before the run */
} run;

ws_vitrun_cfg ws_vitrun_defaults(void) {
  ws_vitrun_cfg c;
  memset(&c, 0, sizeof c);
  c.batch = 1;
  c.attn = WS_VITRUN_ATTN_FLASH;
  c.flash = (ws_attngen_flash_cfg){64, 64};
  /* 64-row GEMMs: 32x32 tiles give the 108 SMs of an A100 more than one
   * CTA to run, where the generator's 128x128 default makes one */
  c.gemm = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  c.gemm.bm = c.gemm.bn = 32;
  c.gemm.bk = 16;
  c.gemm.tm = c.gemm.tn = 2;
  c.gemm.threads = 256;
  return c;
}

static const char *const attn_names[WS_VITRUN_ATTN_COUNT] = {"flash", "naive"};

const char *ws_vitrun_attn_name(ws_vitrun_attn a) { return a < WS_VITRUN_ATTN_COUNT ? attn_names[a] : "?"; }

ws_status ws_vitrun_attn_parse(ws_ctx *ctx, const char *name, ws_vitrun_attn *out) {
  for (int i = 0; i < WS_VITRUN_ATTN_COUNT; i++)
    if (strcmp(name, attn_names[i]) == 0) {
      *out = (ws_vitrun_attn)i;
      return WS_OK;
    }
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention variant '%s' (expected flash or naive)", name);
}

/* ---- weights ----------------------------------------------------------------- */

/* nn.Linear weights are the GEMMs' B operands, stored transposed. */
static bool is_gemm_weight(const ws_tinyvit_tensor *t) {
  size_t n = strlen(t->name);
  return t->ndim == 2 && n > 7 && strcmp(t->name + n - 7, ".weight") == 0 &&
         strcmp(t->name, "head.weight") != 0;
}

static void put_tensor(const ws_tinyvit_tensor *t, float *dst) {
  if (!is_gemm_weight(t)) {
    memcpy(dst, t->data, t->count * sizeof(float));
    return;
  }
  uint32_t rows = t->shape[0], cols = t->shape[1]; /* [out, in] -> [in, out] */
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t c = 0; c < cols; c++) dst[(size_t)c * rows + r] = t->data[(size_t)r * cols + c];
}

static uint64_t round_up(uint64_t v) { return (v + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES; }

static ws_status upload_weights(run *r) {
  size_t n = ws_tinyvit_weights_count(r->w);
  r->woff = calloc(n ? n : 1, sizeof *r->woff);
  if (!r->woff) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted laying out the weights");
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; i++) {
    r->woff[i] = bytes;
    bytes = round_up(bytes + ws_tinyvit_weights_at(r->w, i)->count * sizeof(float));
  }
  ws_runtime_host h;
  ws_status st = ws_runtime_host_alloc(r->rt, bytes, WS_PCIE_PINNED, &h);
  if (st == WS_OK) st = ws_runtime_malloc(r->rt, bytes, &r->wbase);
  if (st != WS_OK) return st;
  uint8_t *host = ws_runtime_host_data(r->rt, h);
  for (size_t i = 0; i < n; i++) put_tensor(ws_tinyvit_weights_at(r->w, i), (float *)(host + r->woff[i]));
  /* each tensor by its safetensors name, so a trace tells which one a load touched */
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    const ws_tinyvit_tensor *t = ws_tinyvit_weights_at(r->w, i);
    st = ws_runtime_name_range(r->rt, r->wbase + r->woff[i], t->count * sizeof(float), t->name,
                               WS_RUNTIME_TENSOR_WEIGHTS);
  }
  if (st != WS_OK) return st;
  return ws_runtime_memcpy_htod(r->rt, 0, r->wbase, h, 0, bytes, "weights");
}

/* The device address of tensor `name` (it exists: the weights object was
 * built for r->mc). */
static uint64_t wptr(const run *r, const char *name) {
  for (size_t i = 0; i < ws_tinyvit_weights_count(r->w); i++)
    if (strcmp(ws_tinyvit_weights_at(r->w, i)->name, name) == 0) return r->wbase + r->woff[i];
  return 0;
}

static uint64_t blockw(const run *r, uint32_t b, const char *suffix) {
  char name[64];
  snprintf(name, sizeof name, "blocks.%u.%s", b, suffix);
  return wptr(r, name);
}

/* ---- activations --------------------------------------------------------------- */

static ws_status alloc_act(run *r, uint64_t floats, uint64_t *out) {
  ws_status st = ws_runtime_malloc(r->rt, round_up(floats * sizeof(float)), out);
  if (st == WS_OK) r->bufs[r->nbufs++] = *out;
  return st;
}

/* Floats of every activation buffer alloc_acts makes, in its order. */
static size_t act_sizes(const ws_tinyvit_cfg *m, uint32_t batch, uint64_t out[MAX_BUFS]) {
  uint64_t rows = (uint64_t)batch * TOKENS, d = m->dim;
  const uint64_t want[] = {(uint64_t)batch * WS_TINYVIT_IMAGE_FLOATS,
                           rows * WS_TINYVIT_PATCH_DIM,
                           rows * d,
                           rows * 3 * d,
                           (uint64_t)m->heads * TOKENS * TOKENS,
                           rows * d,
                           rows * d,
                           rows * d,
                           rows * 2 * d,
                           rows * d,
                           batch * d,
                           batch,
                           batch};
  memcpy(out, want, sizeof want);
  return sizeof want / sizeof *want;
}

/* The name and class of every buffer alloc_acts makes, in its order: the
 * input image, the attention scores (softmax(QK^T), one matrix per head)
 * and the activations between layers. */
static const struct {
  const char *name;
  ws_runtime_tensor tensor;
} act_names[] = {
    {"image", WS_RUNTIME_TENSOR_IMAGE},        {"patches", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"x", WS_RUNTIME_TENSOR_ACTIVATIONS},      {"qkv", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"scores", WS_RUNTIME_TENSOR_SCORES},      {"att", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"resid", WS_RUNTIME_TENSOR_ACTIVATIONS},  {"x1", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"h", WS_RUNTIME_TENSOR_ACTIVATIONS},      {"y", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"pooled", WS_RUNTIME_TENSOR_ACTIVATIONS}, {"logit", WS_RUNTIME_TENSOR_ACTIVATIONS},
    {"prob", WS_RUNTIME_TENSOR_ACTIVATIONS},
};

static ws_status alloc_acts(run *r) {
  uint64_t *const dst[] = {&r->a.img,    &r->a.patches, &r->a.x,   &r->a.qkv, &r->a.scores,
                           &r->a.att,    &r->a.resid,   &r->a.x1,  &r->a.h,   &r->a.y,
                           &r->a.pooled, &r->a.logit,   &r->a.prob};
  uint64_t sizes[MAX_BUFS];
  size_t n = act_sizes(&r->mc, r->batch, sizes);
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    st = alloc_act(r, sizes[i], dst[i]);
    if (st == WS_OK)
      st = ws_runtime_name_range(r->rt, *dst[i], sizes[i] * sizeof(float), act_names[i].name,
                                 act_names[i].tensor);
  }
  return st;
}

/* ---- checks ----------------------------------------------------------------------- */

static ws_vitrun_check *new_check(run *r, const char *layer) {
  ws_vitrun_result *o = r->out;
  if (o->nchecks == r->cap_checks) {
    size_t cap = r->cap_checks ? 2 * r->cap_checks : 16;
    ws_vitrun_check *c = realloc(o->checks, cap * sizeof *c);
    if (!c) return NULL;
    o->checks = c;
    r->cap_checks = cap;
  }
  ws_vitrun_check *c = &o->checks[o->nchecks++];
  memset(c, 0, sizeof *c);
  snprintf(c->layer, sizeof c->layer, "%s", layer);
  ws_runtime_timeline(r->rt, &c->first_record);
  return c;
}

typedef const float *(*ref_of)(const ws_tinyvit_acts *a, uint32_t block);

/* Compares `per_image` floats per image at device address p with the
 * reference arrays, into check c. */
static ws_status compare(run *r, ws_vitrun_check *c, uint64_t p, size_t per_image, ref_of ref,
                         uint32_t block) {
  size_t n = per_image * r->batch;
  ws_status st = ws_device_memcpy_dtoh(r->dev, r->host, p, n * sizeof(float));
  if (st != WS_OK) return st;
  for (uint32_t i = 0; i < r->batch; i++) {
    const float *want = ref(r->ref[i], block), *got = r->host + (size_t)i * per_image;
    for (size_t j = 0; j < per_image; j++) {
      double e = fabs((double)got[j] - want[j]), s = fabs((double)want[j]);
      if (!(e <= c->max_abs_err)) c->max_abs_err = e; /* a NaN sticks */
      if (s > c->scale) c->scale = s;
    }
  }
  c->nvalues += n;
  return WS_OK;
}

static void finish_check(run *r, ws_vitrun_check *c) {
  size_t now;
  ws_runtime_timeline(r->rt, &now);
  c->nrecords = now - c->first_record;
  if (c->scale < 1.0) c->scale = 1.0;
  c->tol = r->cfg->gemm.variant == WS_GEMMGEN_MMA ? WS_VITRUN_TOL_FP16 : WS_VITRUN_TOL_FP32;
  c->pass = c->max_abs_err <= c->tol * c->scale;
  r->out->pass &= c->pass;
}

/* A new row of out->reach for `total` elements; NULL (with the message)
 * when host memory ran out. */
static ws_vitrun_reach *new_reach(run *r, const char *layer, uint64_t total) {
  ws_vitrun_result *o = r->out;
  if (o->nreach == r->cap_reach) {
    size_t cap = r->cap_reach ? 2 * r->cap_reach : 16;
    ws_vitrun_reach *x = realloc(o->reach, cap * sizeof *x);
    if (!x) {
      ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted following a pixel");
      return NULL;
    }
    o->reach = x;
    r->cap_reach = cap;
  }
  ws_vitrun_reach *x = &o->reach[o->nreach++];
  memset(x, 0, sizeof *x);
  snprintf(x->layer, sizeof x->layer, "%s", layer);
  x->total = total;
  return x;
}

/* With a pixel followed: the row of `layer`, the `elems` floats at p. */
static ws_status reach(run *r, const char *layer, uint64_t p, uint64_t elems) {
  if (!r->cfg->follow.on) return WS_OK;
  ws_vitrun_reach *x = new_reach(r, layer, elems);
  return x ? ws_device_followed(r->dev, p, elems * sizeof(float), sizeof(float), &x->reached) : WS_ERR_NOMEM;
}

static const float *ref_patches(const ws_tinyvit_acts *a, uint32_t b) {
  (void)b;
  return a->patches;
}
static const float *ref_x0(const ws_tinyvit_acts *a, uint32_t b) {
  (void)b;
  return a->x0;
}
static const float *ref_qkv(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].qkv; }
static const float *ref_att(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].att; }
static const float *ref_resid(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].resid1; }
static const float *ref_x1(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].x1; }
static const float *ref_h(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].h; }
static const float *ref_out(const ws_tinyvit_acts *a, uint32_t b) { return a->blocks[b].out; }
static const float *ref_pooled(const ws_tinyvit_acts *a, uint32_t b) {
  (void)b;
  return a->pooled;
}
static const float *ref_logit(const ws_tinyvit_acts *a, uint32_t b) {
  (void)b;
  return &a->logit;
}
static const float *ref_prob(const ws_tinyvit_acts *a, uint32_t b) {
  (void)b;
  return &a->probability;
}

/* ---- layers ----------------------------------------------------------------------- */

static ws_status gemm(run *r, uint64_t a, uint64_t b, uint64_t c, uint32_t n, uint32_t k, uint64_t bias,
                      uint64_t res, uint32_t epilogue) {
  ws_gemmgen_cfg g = r->cfg->gemm;
  g.epilogue = epilogue;
  ws_gemmgen_problem p = {r->batch * TOKENS, n, k, a, b, c, bias, res};
  return ws_gemmgen_run(r->dev, &g, &p, NULL);
}

static ws_status patch_embed(run *r) {
  const ws_nngen_patch_shape ps = {3, 32, 32, 4};
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < r->batch && st == WS_OK; i++)
    st = ws_nngen_patch_run(r->dev, &ps, r->a.img + (uint64_t)i * WS_TINYVIT_IMAGE_FLOATS * 4,
                            r->a.patches + (uint64_t)i * TOKENS * WS_TINYVIT_PATCH_DIM * 4, NULL);
  return st;
}

static ws_status embed(run *r) {
  ws_status st = gemm(r, r->a.patches, wptr(r, "patch_embed.weight"), r->a.x, r->dim, WS_TINYVIT_PATCH_DIM,
                      wptr(r, "patch_embed.bias"), 0, WS_GEMMGEN_EPI_BIAS);
  if (st == WS_OK)
    st = ws_nngen_add_pos_run(r->dev, r->batch, TOKENS, r->dim, r->a.x, wptr(r, "pos"), r->a.x, NULL);
  return st;
}

/* The naive kernels one stage at a time, so that a followed pixel's reach
 * into S and P (the scores buffer after the first and the second kernel)
 * is counted for image 0. */
static ws_status naive_attention(run *r, uint32_t b, uint32_t image, uint64_t q, uint64_t o) {
  static const char *const stage_names[] = {"scores", "softmax", NULL};
  const ws_attngen_shape s = {TOKENS, r->mc.heads, r->dim / r->mc.heads};
  ws_status st = WS_OK;
  for (int k = 0; k < WS_ATTNGEN_STAGE_COUNT && st == WS_OK; k++) {
    st = ws_attngen_naive_stage_run(r->dev, &s, (ws_attngen_stage)k, q, r->a.scores, o, NULL);
    if (st != WS_OK || image || !stage_names[k]) continue;
    char name[WS_RUNTIME_NAME_MAX];
    snprintf(name, sizeof name, "blocks.%u.attn.%s", b, stage_names[k]);
    st = reach(r, name, r->a.scores, (uint64_t)s.heads * TOKENS * TOKENS);
  }
  return st;
}

static ws_status attention(run *r, uint32_t b) {
  const ws_attngen_shape s = {TOKENS, r->mc.heads, r->dim / r->mc.heads};
  uint64_t stride_qkv = (uint64_t)TOKENS * 3 * r->dim * 4, stride_att = (uint64_t)TOKENS * r->dim * 4;
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < r->batch && st == WS_OK; i++) {
    uint64_t q = r->a.qkv + i * stride_qkv, o = r->a.att + i * stride_att;
    if (r->cfg->attn == WS_VITRUN_ATTN_FLASH)
      st = ws_attngen_flash_run(r->dev, &s, &r->cfg->flash, q, o, NULL);
    else
      st = naive_attention(r, b, i, q, o);
  }
  return st;
}

static ws_status pool(run *r) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < r->batch && st == WS_OK; i++)
    st = ws_nngen_meanpool_run(r->dev, TOKENS, r->dim, r->a.y + (uint64_t)i * TOKENS * r->dim * 4,
                               r->a.pooled + (uint64_t)i * r->dim * 4, NULL);
  return st;
}

/* Runs one layer in a capture named `layer` on stream 0 and checks the
 * `per_image` floats it leaves at `result`. */
typedef ws_status (*layer_fn)(run *r, uint32_t block);

static ws_status layer(run *r, const char *name, layer_fn fn, uint32_t block, uint64_t result,
                       size_t per_image, ref_of ref) {
  ws_vitrun_check *c = new_check(r, name);
  if (!c) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted recording checks");
  ws_status st = ws_runtime_capture_begin(r->rt, 0, name);
  if (st != WS_OK) return st;
  st = fn(r, block);
  ws_runtime_capture_end(r->rt);
  if (st == WS_OK) st = compare(r, c, result, per_image, ref, block);
  finish_check(r, c);
  if (st == WS_OK) st = reach(r, name, result, per_image * r->batch);
  return st;
}

static ws_status l_patch(run *r, uint32_t b) {
  (void)b;
  return patch_embed(r);
}
static ws_status l_embed(run *r, uint32_t b) {
  (void)b;
  return embed(r);
}
static ws_status l_attn(run *r, uint32_t b) { return attention(r, b); }
static ws_status l_pool(run *r, uint32_t b) {
  (void)b;
  return pool(r);
}

static ws_status l_qkv(run *r, uint32_t b) {
  return gemm(r, r->a.x, blockw(r, b, "attn.qkv.weight"), r->a.qkv, 3 * r->dim, r->dim,
              blockw(r, b, "attn.qkv.bias"), 0, WS_GEMMGEN_EPI_BIAS);
}

/* resid1 = x + (att W_proj^T + b): the residual add fused into the GEMM */
static ws_status l_proj(run *r, uint32_t b) {
  return gemm(r, r->a.att, blockw(r, b, "attn.proj.weight"), r->a.resid, r->dim, r->dim,
              blockw(r, b, "attn.proj.bias"), r->a.x, WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_RESIDUAL);
}

static ws_status l_norm(run *r, uint32_t b) {
  return ws_nngen_layernorm_run(r->dev, WS_NNGEN_NORM_PLAIN, r->batch * TOKENS, r->dim, r->a.resid, 0,
                                blockw(r, b, "norm1.weight"), blockw(r, b, "norm1.bias"), r->a.x1, NULL);
}

static ws_status l_fc1(run *r, uint32_t b) {
  return gemm(r, r->a.x1, blockw(r, b, "mlp.fc1.weight"), r->a.h, 2 * r->dim, r->dim,
              blockw(r, b, "mlp.fc1.bias"), 0, WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_GELU);
}

/* the block's output y = x1 + (h W_fc2^T + b); the next block reads it as x */
static ws_status l_fc2(run *r, uint32_t b) {
  return gemm(r, r->a.h, blockw(r, b, "mlp.fc2.weight"), r->a.y, r->dim, 2 * r->dim,
              blockw(r, b, "mlp.fc2.bias"), r->a.x1, WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_RESIDUAL);
}

static ws_status l_head(run *r, uint32_t b) {
  (void)b;
  return ws_nngen_head_run(r->dev, r->batch, r->dim, r->a.pooled, wptr(r, "head.weight"),
                           wptr(r, "head.bias"), r->a.logit, r->a.prob, NULL);
}

static ws_status block_layers(run *r, uint32_t b) {
  char name[WS_RUNTIME_NAME_MAX];
  uint64_t rows_d = (uint64_t)TOKENS * r->dim;
  struct {
    const char *suffix;
    layer_fn fn;
    uint64_t result;
    size_t per_image;
    ref_of ref;
  } steps[] = {{"qkv", l_qkv, r->a.qkv, 3 * rows_d, ref_qkv},   {"attn", l_attn, r->a.att, rows_d, ref_att},
               {"proj", l_proj, r->a.resid, rows_d, ref_resid}, {"norm1", l_norm, r->a.x1, rows_d, ref_x1},
               {"fc1", l_fc1, r->a.h, 2 * rows_d, ref_h},       {"fc2", l_fc2, r->a.y, rows_d, ref_out}};
  ws_status st = WS_OK;
  for (size_t i = 0; i < sizeof steps / sizeof *steps && st == WS_OK; i++) {
    snprintf(name, sizeof name, "blocks.%u.%s", b, steps[i].suffix);
    st = layer(r, name, steps[i].fn, b, steps[i].result, steps[i].per_image, steps[i].ref);
  }
  if (b + 1 < r->mc.depth) { /* the output becomes the next block's input */
    uint64_t t = r->a.x;
    r->a.x = r->a.y;
    r->a.y = t;
  }
  return st;
}

/* ---- limits, judged before anything is allocated ------------------------------------- */

uint64_t ws_vitrun_device_bytes(const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *model) {
  uint64_t sizes[MAX_BUFS], bytes = ws_tinyvit_cfg_param_count(model) * sizeof(float) +
                                    ws_tinyvit_cfg_tensor_count(model) * ALIGN_BYTES;
  size_t n = act_sizes(model, cfg->batch, sizes);
  for (size_t i = 0; i < n; i++) bytes += round_up(sizes[i] * sizeof(float));
  return bytes;
}

/* The largest batch the GEMMs take, and why: M = 64*batch rows within the
 * generator's largest M, within bm x the grid's y limit, and M*3D (the QKV
 * output, the largest operand) below 2^31 elements. */
static uint32_t max_batch(const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m, const ws_gpu_cfg *gpu, char *why,
                          size_t why_bytes) {
  uint64_t bm = cfg->gemm.bm ? cfg->gemm.bm : 1, grid = gpu->sm.max_grid_dim[1] * bm;
  uint64_t index = ((1ull << 31) - 1) / (3ull * m->dim), rows = WS_GEMMGEN_DIM_MAX;
  snprintf(why, why_bytes, "M = 64*batch must be <= %u (the GEMM generator's largest M)", WS_GEMMGEN_DIM_MAX);
  if (grid < rows)
    rows = grid, snprintf(why, why_bytes, "M = 64*batch must be <= bm*%u = %llu (the grid's y limit)",
                          gpu->sm.max_grid_dim[1], (unsigned long long)grid);
  if (index < rows)
    rows = index,
    snprintf(why, why_bytes, "M*3*dim = 64*batch*%u must stay below 2^31 (32-bit indices)", 3 * m->dim);
  return (uint32_t)(rows / TOKENS);
}

static ws_status check_batch(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m,
                             const ws_gpu_cfg *gpu) {
  char why[160];
  uint32_t most = max_batch(cfg, m, gpu, why, sizeof why);
  if (cfg->batch >= 1 && cfg->batch <= most) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "--batch must be 1..%u on %s with these tiles (got %u): %s", most,
                     gpu->gpu.name, cfg->batch, why);
}

/* Puts "PREFIX: <the message on ctx>" on ctx. */
static ws_status explain(ws_ctx *ctx, const char *prefix) {
  char inner[512];
  snprintf(inner, sizeof inner, "%s", ws_errmsg(ctx));
  return ws_ctx_fail(ctx, ws_ctx_status(ctx), "%s: %s", prefix, inner);
}

/* Every epilogue the layers fuse changes the kernel's register count. */
static ws_status check_gemm(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_gpu_cfg *gpu) {
  static const uint32_t epilogues[] = {WS_GEMMGEN_EPI_BIAS, WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_GELU,
                                       WS_GEMMGEN_EPI_BIAS | WS_GEMMGEN_EPI_RESIDUAL};
  for (size_t i = 0; i < sizeof epilogues / sizeof *epilogues; i++) {
    ws_gemmgen_cfg g = cfg->gemm;
    g.epilogue = epilogues[i];
    if (ws_gemmgen_check(ctx, &g, gpu) != WS_OK) {
      char desc[128], prefix[256];
      ws_gemmgen_describe(&g, desc, sizeof desc);
      snprintf(prefix, sizeof prefix, "GEMM tiles (--gemm, --bm ...) %s on %s", desc, gpu->gpu.name);
      return explain(ctx, prefix);
    }
  }
  return WS_OK;
}

static ws_status check_attention(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m,
                                 const ws_gpu_cfg *gpu) {
  if (cfg->attn != WS_VITRUN_ATTN_FLASH) return WS_OK;
  uint32_t dh = m->dim / m->heads;
  if (ws_attngen_flash_validate(ctx, gpu, dh, &cfg->flash) == WS_OK) return WS_OK;
  char prefix[160];
  snprintf(prefix, sizeof prefix,
           "--attn flash with --dim %u --heads %u (head_dim %u), --br %u --bc %u on %s", m->dim, m->heads, dh,
           cfg->flash.br, cfg->flash.bc, gpu->gpu.name);
  return explain(ctx, prefix);
}

static ws_status check_memory(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m,
                              const ws_gpu_cfg *gpu) {
  const uint64_t mib = 1u << 20;
  uint64_t dev = ws_vitrun_device_bytes(cfg, m);
  if (dev > gpu->gpu.dram_size_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "--batch %u --dim %u --depth %u needs %llu MiB of device memory; %s has %llu MiB",
                       cfg->batch, m->dim, m->depth, (unsigned long long)((dev + mib - 1) / mib),
                       gpu->gpu.name, (unsigned long long)(gpu->gpu.dram_size_bytes / mib));
  uint64_t staging = (uint64_t)cfg->batch * TOKENS * 3 * m->dim; /* read-back buffer (init_result) */
  if (staging < (uint64_t)m->heads * TOKENS * TOKENS) staging = (uint64_t)m->heads * TOKENS * TOKENS;
  uint64_t host = dev + 2 * ws_tinyvit_cfg_param_count(m) * sizeof(float) +
                  ((uint64_t)cfg->batch * ws_tinyvit_acts_floats(m) + staging) * sizeof(float);
  if (host > WS_VITRUN_MAX_HOST_BYTES)
    return ws_ctx_fail(
        ctx, WS_ERR_LIMIT,
        "--batch %u --dim %u --depth %u needs about %llu MiB of host memory (simulated device "
        "memory, staged weights, the reference's activations, read-back); the limit is %llu MiB",
        cfg->batch, m->dim, m->depth, (unsigned long long)((host + mib - 1) / mib),
        (unsigned long long)(WS_VITRUN_MAX_HOST_BYTES / mib));
  return WS_OK;
}

static ws_status check_follow(ws_ctx *ctx, const ws_vitrun_follow *f) {
  const uint32_t side = WS_TINYVIT_IMAGE_SIZE;
  if (!f->on) return WS_OK;
  if (f->x >= side || f->y >= side)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "--follow-pixel X,Y[,C]: X and Y must be 0..%u (the image is %ux%u), got %u,%u",
                       side - 1, side, side, f->x, f->y);
  if (f->channel >= WS_TINYVIT_CHANNELS && f->channel != WS_VITRUN_ALL_CHANNELS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--follow-pixel X,Y[,C]: C must be 0..%u (R, G, B), got %u",
                       WS_TINYVIT_CHANNELS - 1, f->channel);
  return WS_OK;
}

ws_status ws_vitrun_validate(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *model,
                             const ws_gpu_cfg *gpu) {
  ws_status st = ws_tinyvit_cfg_validate(ctx, model);
  if (st == WS_OK) st = check_follow(ctx, &cfg->follow);
  if (st == WS_OK) st = check_batch(ctx, cfg, model, gpu);
  if (st == WS_OK && (unsigned)cfg->attn >= WS_VITRUN_ATTN_COUNT)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention variant %d", (int)cfg->attn);
  if (st == WS_OK) st = check_gemm(ctx, cfg, gpu);
  if (st == WS_OK) st = check_attention(ctx, cfg, model, gpu);
  if (st == WS_OK) st = check_memory(ctx, cfg, model, gpu);
  return st;
}

/* ---- the run ------------------------------------------------------------------------ */

static ws_status upload_images(run *r, const float *images) {
  uint64_t bytes = (uint64_t)r->batch * WS_TINYVIT_IMAGE_FLOATS * sizeof(float);
  ws_runtime_host h;
  ws_status st = ws_runtime_host_alloc(r->rt, bytes, WS_PCIE_PINNED, &h);
  if (st != WS_OK) return st;
  memcpy(ws_runtime_host_data(r->rt, h), images, bytes);
  const ws_vitrun_follow *f = &r->cfg->follow;
  for (uint32_t c = 0; f->on && c < WS_TINYVIT_CHANNELS && st == WS_OK; c++) {
    uint64_t at = ((uint64_t)c * WS_TINYVIT_IMAGE_SIZE + f->y) * WS_TINYVIT_IMAGE_SIZE + f->x;
    if (f->channel == WS_VITRUN_ALL_CHANNELS || f->channel == c)
      st = ws_runtime_host_follow(r->rt, h, at * sizeof(float), sizeof(float)); /* image 0's pixel */
  }
  if (st != WS_OK) return st;
  size_t idx;
  ws_runtime_timeline(r->rt, &idx);
  st = ws_runtime_memcpy_htod(r->rt, 0, r->a.img, h, 0, bytes, "image");
  if (st == WS_OK) r->out->image_start_ns = ws_runtime_timeline(r->rt, &idx)[idx - 1].start_ns;
  return st;
}

static ws_status read_back(run *r) {
  uint64_t bytes = (uint64_t)r->batch * sizeof(float);
  ws_runtime_host h;
  ws_status st = ws_runtime_host_alloc(r->rt, bytes, WS_PCIE_PINNED, &h);
  if (st == WS_OK) st = ws_runtime_memcpy_dtoh(r->rt, 0, h, 0, r->a.prob, bytes, "probability");
  if (st != WS_OK) return st;
  size_t n;
  r->out->end_ns = ws_runtime_timeline(r->rt, &n)[n - 1].end_ns;
  memcpy(r->out->prob, ws_runtime_host_data(r->rt, h), bytes);
  if (r->cfg->follow.on) { /* the probabilities' tags crossed back with them */
    ws_vitrun_reach *x = new_reach(r, "probability", r->batch);
    st = x ? ws_runtime_host_followed(r->rt, h, 0, bytes, sizeof(float), &x->reached) : WS_ERR_NOMEM;
    if (st != WS_OK) return st;
  }
  return ws_device_memcpy_dtoh(r->dev, r->out->logit, r->a.logit, bytes);
}

static ws_status references(run *r, const float *images) {
  r->ref = calloc(r->batch, sizeof *r->ref);
  if (!r->ref) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted for the reference");
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < r->batch && st == WS_OK; i++) {
    st = ws_tinyvit_acts_create(r->ctx, &r->mc, &r->ref[i]);
    if (st == WS_OK)
      st = ws_tinyvit_forward(r->ctx, r->w, images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS, r->ref[i]);
    if (st == WS_OK) r->out->ref_logit[i] = r->ref[i]->logit, r->out->ref_prob[i] = r->ref[i]->probability;
  }
  return st;
}

static ws_status check_cfg(run *r) {
  return ws_vitrun_validate(r->ctx, r->cfg, &r->mc, ws_device_cfg(r->dev));
}

static ws_status init_result(run *r) {
  ws_vitrun_result *o = r->out;
  memset(o, 0, sizeof *o);
  o->pass = true;
  float *f = calloc(4 * (size_t)r->batch, sizeof *f);
  size_t floats = (size_t)r->batch * TOKENS * 3 * r->dim;
  if (floats < (size_t)r->mc.heads * TOKENS * TOKENS) floats = (size_t)r->mc.heads * TOKENS * TOKENS;
  r->host = malloc(floats * sizeof *r->host);
  if (!f || !r->host) {
    free(f);
    return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted for the results");
  }
  o->logit = f, o->prob = f + r->batch, o->ref_logit = f + 2 * r->batch, o->ref_prob = f + 3 * r->batch;
  return WS_OK;
}

static ws_status pipeline(run *r, const float *images) {
  ws_status st = upload_weights(r);
  if (st == WS_OK) st = alloc_acts(r);
  if (st == WS_OK) st = upload_images(r, images);
  uint64_t img = (uint64_t)TOKENS * WS_TINYVIT_PATCH_DIM, rows_d = (uint64_t)TOKENS * r->dim;
  if (st == WS_OK) st = layer(r, "patch", l_patch, 0, r->a.patches, img, ref_patches);
  if (st == WS_OK) st = layer(r, "patch_embed", l_embed, 0, r->a.x, rows_d, ref_x0);
  for (uint32_t b = 0; b < r->mc.depth && st == WS_OK; b++) st = block_layers(r, b);
  if (st == WS_OK) st = layer(r, "pool", l_pool, 0, r->a.pooled, r->dim, ref_pooled);
  if (st == WS_OK) st = layer(r, "head", l_head, 0, r->a.logit, 1, ref_logit);
  if (st == WS_OK) { /* the probability is the head's second output: same layer, same records */
    ws_vitrun_check *c = &r->out->checks[r->out->nchecks - 1];
    st = compare(r, c, r->a.prob, 1, ref_prob, 0);
    finish_check(r, c);
  }
  if (st == WS_OK) st = read_back(r);
  return st;
}

static void release(run *r) {
  if (r->cfg->follow.on && !r->was_following) ws_device_set_follow(r->dev, false);
  for (size_t i = 0; i < r->nbufs; i++) ws_runtime_free(r->rt, r->bufs[i]);
  if (r->wbase) ws_runtime_free(r->rt, r->wbase);
  for (uint32_t i = 0; r->ref && i < r->batch; i++) ws_tinyvit_acts_destroy(r->ref[i]);
  free(r->ref);
  free(r->woff);
  free(r->host);
}

ws_status ws_vitrun_run(ws_runtime *rt, const ws_tinyvit_weights *w, const float *images,
                        const ws_vitrun_cfg *cfg, ws_vitrun_result *out) {
  run r;
  memset(&r, 0, sizeof r);
  r.rt = rt;
  r.dev = ws_runtime_device(rt);
  r.ctx = ws_device_ctx(r.dev);
  r.cfg = cfg;
  r.w = w;
  r.mc = ws_tinyvit_weights_cfg(w);
  r.batch = cfg->batch;
  r.dim = r.mc.dim;
  r.out = out;
  memset(out, 0, sizeof *out);
  ws_status st = check_cfg(&r);
  r.was_following = ws_device_following(r.dev);
  if (st == WS_OK && cfg->follow.on) ws_device_set_follow(r.dev, true);
  if (st == WS_OK) st = init_result(&r);
  if (st == WS_OK) st = references(&r, images);
  if (st == WS_OK) st = pipeline(&r, images);
  release(&r);
  return st;
}

void ws_vitrun_result_free(ws_vitrun_result *r) {
  if (!r) return;
  free(r->checks);
  free(r->reach);
  free(r->logit); /* prob, ref_logit and ref_prob share its allocation */
  memset(r, 0, sizeof *r);
}
