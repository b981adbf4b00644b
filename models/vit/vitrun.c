/* vitrun.c - TinyViT32 on the simulated GPU, layer by layer (see vitrun.h).
 *
 * Design: one device allocation holds every weight tensor at a 256-byte
 * aligned offset, the nn.Linear weights transposed to [in, out] so that
 * each linear layer is the GEMM X[M, in] * W^T[in, out] of models/gemmgen
 * with its bias, GELU and residual fused into the epilogue. Activations of
 * the whole batch are stacked row-wise ([batch * 64, width]), so the GEMMs
 * and LayerNorm run once per batch; the per-image kernels (patch
 * extraction, attention, mean-pool) take the image from grid z or y, so
 * they too are one launch per batch.
 *
 * A run is one pass of the whole batch, or, with micro-batches, several
 * passes on several streams: each stream owns a slot (its own activation
 * buffers), pass p runs on slot p mod streams, and the host issues the
 * images of the next passes before the current pass's kernels, so their
 * copies overlap its compute (docs/tinyvit32.md, "Pipelined batches"). The
 * functional results are computed at issue time, so a slot is only written
 * again once the pass that used it has been issued in full; the stream's
 * order makes the timeline wait for it too. */
#include "models/vit/vitrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/kgen/nngen.h"

#define TOKENS WS_TINYVIT_TOKENS
#define ALIGN_BYTES 256u
#define MAX_BUFS 16
#define MAX_SLOTS WS_VITRUN_MAX_STREAMS

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
  uint32_t batch, dim; /* batch: images of the pass being issued */
  uint32_t first;      /* its first image */
  uint32_t pass;       /* its index */
  ws_runtime_stream stream;
  uint64_t wbase; /* the weights' device allocation */
  uint64_t *woff; /* per tensor (weights table order): byte offset in it */
  acts_dev a;     /* the pass's slot's buffers (x and y swap per block) */
  acts_dev slot_acts[MAX_SLOTS];
  ws_runtime_stream streams[MAX_SLOTS];
  uint32_t nslots, pass_images, npasses;
  ws_runtime_host host_images, host_probs; /* pinned: every image, every probability */
  uint64_t bufs[MAX_BUFS * MAX_SLOTS];     /* every activation allocation, freed at the end */
  size_t nbufs;
  ws_tinyvit_acts **ref; /* per image */
  float *host;           /* readback scratch */
  ws_vitrun_result *out;
  size_t cap_checks, cap_reach;
  bool was_following; /* the device's following before the run */
} run;

const char *ws_vitrun_weights_name(ws_vitrun_weights w) {
  static const char *const names[WS_VITRUN_WEIGHTS_COUNT] = {"copy", "managed", "prefetch"};
  return (unsigned)w < WS_VITRUN_WEIGHTS_COUNT ? names[w] : "?";
}

ws_status ws_vitrun_weights_parse(ws_ctx *ctx, const char *name, ws_vitrun_weights *out) {
  for (int i = 0; i < WS_VITRUN_WEIGHTS_COUNT; i++)
    if (strcmp(name, ws_vitrun_weights_name((ws_vitrun_weights)i)) == 0) {
      *out = (ws_vitrun_weights)i;
      return WS_OK;
    }
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "weights '%s': expected copy, managed or prefetch", name);
}

ws_vitrun_cfg ws_vitrun_defaults(void) {
  ws_vitrun_cfg c;
  memset(&c, 0, sizeof c);
  c.batch = 1;
  c.streams = 1;
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
  bool managed = r->cfg->weights != WS_VITRUN_WEIGHTS_COPY;
  ws_runtime_host h;
  ws_status st = ws_runtime_host_alloc(r->rt, bytes, WS_PCIE_PINNED, &h);
  if (st == WS_OK)
    st = managed ? ws_device_malloc_managed(ws_runtime_device(r->rt), bytes, &r->wbase)
                 : ws_runtime_malloc(r->rt, bytes, &r->wbase);
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
  if (!managed) return ws_runtime_memcpy_htod(r->rt, 0, r->wbase, h, 0, bytes, "weights");
  /* the host writes them through the managed pointer: they start on the host */
  st = ws_device_memcpy_htod(ws_runtime_device(r->rt), r->wbase, host, bytes);
  if (st == WS_OK && r->cfg->weights == WS_VITRUN_WEIGHTS_PREFETCH)
    st = ws_runtime_prefetch(r->rt, 0, r->wbase, bytes, "prefetch weights");
  return st;
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
                           (uint64_t)batch * m->heads * TOKENS * TOKENS,
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

/* One slot's buffers, sized for a full pass; slot k > 0 names them
 * "streamK.image" and so on, since every stream has its own. */
static ws_status alloc_slot(run *r, uint32_t slot) {
  acts_dev *a = &r->slot_acts[slot];
  uint64_t *const dst[] = {&a->img, &a->patches, &a->x, &a->qkv,    &a->scores, &a->att, &a->resid,
                           &a->x1,  &a->h,       &a->y, &a->pooled, &a->logit,  &a->prob};
  uint64_t sizes[MAX_BUFS];
  size_t n = act_sizes(&r->mc, r->pass_images, sizes);
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    char name[WS_RUNTIME_NAME_MAX];
    if (slot)
      snprintf(name, sizeof name, "stream%u.%s", (unsigned)r->streams[slot], act_names[i].name);
    else
      snprintf(name, sizeof name, "%s", act_names[i].name);
    st = alloc_act(r, sizes[i], dst[i]);
    if (st == WS_OK)
      st = ws_runtime_name_range(r->rt, *dst[i], sizes[i] * sizeof(float), name, act_names[i].tensor);
  }
  return st;
}

/* Streams 1.. for slots 1..; each waits for the weights, which stream 0
 * uploads. */
static ws_status alloc_acts(run *r) {
  ws_runtime_event weights_in = 0;
  ws_status st = WS_OK;
  if (r->nslots > 1) {
    st = ws_runtime_event_create(r->rt, &weights_in);
    if (st == WS_OK) st = ws_runtime_event_record(r->rt, weights_in, 0, "weights in");
  }
  for (uint32_t k = 0; k < r->nslots && st == WS_OK; k++) {
    if (k) st = ws_runtime_stream_create(r->rt, &r->streams[k]);
    if (k && st == WS_OK) st = ws_runtime_stream_wait_event(r->rt, r->streams[k], weights_in);
    if (st == WS_OK) st = alloc_slot(r, k);
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
  c->pass_no = r->pass;
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
    const float *want = ref(r->ref[r->first + i], block), *got = r->host + (size_t)i * per_image;
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

/* With a pixel followed: the row of `layer`, the `elems` floats at p. The
 * pixel is image 0's, so only the first pass can hold it. */
static ws_status reach(run *r, const char *layer, uint64_t p, uint64_t elems) {
  if (!r->cfg->follow.on || r->pass) return WS_OK;
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
  const ws_nngen_patch_shape ps = {WS_TINYVIT_CHANNELS, WS_TINYVIT_IMAGE_SIZE, WS_TINYVIT_IMAGE_SIZE,
                                   WS_TINYVIT_PATCH_SIZE, r->batch};
  return ws_nngen_patch_run(r->dev, &ps, r->a.img, r->a.patches, NULL);
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
 * is counted. */
static ws_status naive_attention(run *r, uint32_t b, const ws_attngen_shape *s) {
  static const char *const stage_names[] = {"scores", "softmax", NULL};
  ws_status st = WS_OK;
  for (int k = 0; k < WS_ATTNGEN_STAGE_COUNT && st == WS_OK; k++) {
    st = ws_attngen_naive_stage_run(r->dev, s, (ws_attngen_stage)k, r->a.qkv, r->a.scores, r->a.att, NULL);
    if (st != WS_OK || !stage_names[k]) continue;
    char name[WS_RUNTIME_NAME_MAX];
    snprintf(name, sizeof name, "blocks.%u.attn.%s", b, stage_names[k]);
    st = reach(r, name, r->a.scores, (uint64_t)r->batch * s->heads * TOKENS * TOKENS);
  }
  return st;
}

static ws_status attention(run *r, uint32_t b) {
  const ws_attngen_shape s = {TOKENS, r->mc.heads, r->dim / r->mc.heads, r->batch};
  if (r->cfg->attn == WS_VITRUN_ATTN_FLASH)
    return ws_attngen_flash_run(r->dev, &s, &r->cfg->flash, r->a.qkv, r->a.att, NULL);
  return naive_attention(r, b, &s);
}

static ws_status pool(run *r) {
  return ws_nngen_meanpool_run(r->dev, r->batch, TOKENS, r->dim, r->a.y, r->a.pooled, NULL);
}

/* Runs one layer in a capture named `layer` on the pass's stream and checks the
 * `per_image` floats it leaves at `result`. */
typedef ws_status (*layer_fn)(run *r, uint32_t block);

static ws_status layer(run *r, const char *name, layer_fn fn, uint32_t block, uint64_t result,
                       size_t per_image, ref_of ref) {
  ws_vitrun_check *c = new_check(r, name);
  if (!c) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted recording checks");
  ws_status st = ws_runtime_capture_begin(r->rt, r->stream, name);
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

uint32_t ws_vitrun_pass_images(const ws_vitrun_cfg *cfg) {
  if (cfg->micro_batch) return cfg->micro_batch;
  return cfg->streams > 1 ? 1 : cfg->batch;
}

uint32_t ws_vitrun_passes(const ws_vitrun_cfg *cfg) {
  uint32_t b = ws_vitrun_pass_images(cfg);
  return b ? (uint32_t)(((uint64_t)cfg->batch + b - 1) / b) : 0;
}

/* Streams that get a pass, each with its own activations. */
static uint32_t slots_of(const ws_vitrun_cfg *cfg) {
  uint32_t p = ws_vitrun_passes(cfg), s = cfg->streams ? cfg->streams : 1;
  return p < s ? (p ? p : 1) : s;
}

uint64_t ws_vitrun_device_bytes(const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *model) {
  uint64_t sizes[MAX_BUFS], slot = 0,
                            bytes = ws_tinyvit_cfg_param_count(model) * sizeof(float) +
                                    ws_tinyvit_cfg_tensor_count(model) * ALIGN_BYTES;
  size_t n = act_sizes(model, ws_vitrun_pass_images(cfg), sizes);
  for (size_t i = 0; i < n; i++) slot += round_up(sizes[i] * sizeof(float));
  return bytes + slots_of(cfg) * slot;
}

/* The largest batch the GEMMs take, and why: M = 64*batch rows within the
 * generator's largest M, within bm x the grid's y limit, and M*3D (the QKV
 * output, the largest operand) below 2^31 elements. */
/* The per-image kernels put a pass's images on a grid axis: z for patch
 * extraction and flash attention, z = image*heads + head for the naive
 * attention's kernels, y for the positions and the mean pool. */
static uint32_t grid_batch(uint32_t most, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m,
                           const ws_gpu_cfg *gpu, char *why, size_t why_bytes) {
  uint32_t z = gpu->sm.max_grid_dim[2], y = gpu->sm.max_grid_dim[1];
  if (cfg->attn == WS_VITRUN_ATTN_NAIVE && m->heads && z / m->heads < most) {
    most = z / m->heads;
    snprintf(why, why_bytes, "naive attention launches batch*heads = batch*%u CTAs along z, at most %u",
             m->heads, z);
  }
  if (z < most)
    most = z,
    snprintf(why, why_bytes, "patch extraction and attention launch batch CTAs along z, at most %u", z);
  if (y < most)
    most = y,
    snprintf(why, why_bytes, "the positions and the mean pool launch batch CTAs along y, at most %u", y);
  return most;
}

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
  return grid_batch((uint32_t)(rows / TOKENS), cfg, m, gpu, why, why_bytes);
}

/* The GEMMs see a pass's images: the whole batch, or a micro-batch. */
static ws_status check_batch(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *m,
                             const ws_gpu_cfg *gpu) {
  char why[160];
  uint32_t most = max_batch(cfg, m, gpu, why, sizeof why), b = ws_vitrun_pass_images(cfg);
  bool micro = cfg->micro_batch || cfg->streams > 1;
  if (cfg->streams < 1 || cfg->streams > WS_VITRUN_MAX_STREAMS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "--streams must be 1..%u (each stream holds its own activations), got %u",
                       WS_VITRUN_MAX_STREAMS, cfg->streams);
  if (cfg->batch && cfg->micro_batch > cfg->batch)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--micro-batch must be 1..%u (the batch), got %u", cfg->batch,
                       cfg->micro_batch);
  if (b < 1 || b > most)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--%s must be 1..%u on %s with these tiles (got %u): %s",
                       micro ? "micro-batch" : "batch", most, gpu->gpu.name, b, why);
  if (cfg->batch < 1 || cfg->batch > WS_VITRUN_MAX_IMAGES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--batch must be 1..%u, got %u", WS_VITRUN_MAX_IMAGES,
                       cfg->batch);
  return WS_OK;
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
  uint64_t staging = (uint64_t)ws_vitrun_pass_images(cfg) * TOKENS * 3 * m->dim; /* read-back (init_result) */
  if (staging < (uint64_t)m->heads * TOKENS * TOKENS) staging = (uint64_t)m->heads * TOKENS * TOKENS;
  uint64_t sim = ws_device_state_bytes(gpu);
  uint64_t host = dev + sim + 2 * ws_tinyvit_cfg_param_count(m) * sizeof(float) +
                  ((uint64_t)cfg->batch * ws_tinyvit_acts_floats(m) + staging) * sizeof(float);
  if (host > WS_VITRUN_MAX_HOST_BYTES)
    return ws_ctx_fail(
        ctx, WS_ERR_LIMIT,
        "--batch %u --dim %u --depth %u on %s needs about %llu MiB of host memory (simulated device "
        "memory, the simulator's state for this GPU: %llu MiB, staged weights, the reference's "
        "activations, read-back); the limit is %llu MiB",
        cfg->batch, m->dim, m->depth, gpu->gpu.name, (unsigned long long)((host + mib - 1) / mib),
        (unsigned long long)((sim + mib - 1) / mib), (unsigned long long)(WS_VITRUN_MAX_HOST_BYTES / mib));
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
  if (st == WS_OK && (unsigned)cfg->weights >= WS_VITRUN_WEIGHTS_COUNT)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown weights placement %d", (int)cfg->weights);
  if (st == WS_OK) st = check_gemm(ctx, cfg, gpu);
  if (st == WS_OK) st = check_attention(ctx, cfg, model, gpu);
  if (st == WS_OK) st = check_memory(ctx, cfg, model, gpu);
  return st;
}

/* ---- the run ------------------------------------------------------------------------ */

/* Every image in one pinned host buffer, image 0's followed pixel tagged;
 * each pass copies its slice. */
static ws_status stage_images(run *r, const float *images) {
  uint64_t bytes = (uint64_t)r->cfg->batch * WS_TINYVIT_IMAGE_FLOATS * sizeof(float);
  ws_status st = ws_runtime_host_alloc(r->rt, bytes, WS_PCIE_PINNED, &r->host_images);
  if (st == WS_OK)
    st =
        ws_runtime_host_alloc(r->rt, (uint64_t)r->cfg->batch * sizeof(float), WS_PCIE_PINNED, &r->host_probs);
  if (st != WS_OK) return st;
  memcpy(ws_runtime_host_data(r->rt, r->host_images), images, bytes);
  const ws_vitrun_follow *f = &r->cfg->follow;
  for (uint32_t c = 0; f->on && c < WS_TINYVIT_CHANNELS && st == WS_OK; c++) {
    uint64_t at = ((uint64_t)c * WS_TINYVIT_IMAGE_SIZE + f->y) * WS_TINYVIT_IMAGE_SIZE + f->x;
    if (f->channel == WS_VITRUN_ALL_CHANNELS || f->channel == c)
      st = ws_runtime_host_follow(r->rt, r->host_images, at * sizeof(float), sizeof(float));
  }
  return st;
}

/* A pass's copy name: "image" / "probability" for a one-pass run, else
 * with the images it carries ("image 3", "images 4-7"). */
static void copy_name(const run *r, const ws_vitrun_pass *p, const char *one, const char *many, char *buf) {
  if (r->npasses == 1)
    snprintf(buf, WS_RUNTIME_NAME_MAX, "%s", one);
  else if (p->images == 1)
    snprintf(buf, WS_RUNTIME_NAME_MAX, "%s %u", one, p->first_image);
  else
    snprintf(buf, WS_RUNTIME_NAME_MAX, "%s %u-%u", many, p->first_image, p->first_image + p->images - 1);
}

static const ws_runtime_record *last_record(run *r, size_t *idx) {
  size_t n;
  const ws_runtime_record *recs = ws_runtime_timeline(r->rt, &n);
  *idx = n - 1;
  return &recs[n - 1];
}

static ws_status upload_pass(run *r, uint32_t p) {
  ws_vitrun_pass *ps = &r->out->passes[p];
  uint64_t per = (uint64_t)WS_TINYVIT_IMAGE_FLOATS * sizeof(float);
  char name[WS_RUNTIME_NAME_MAX];
  copy_name(r, ps, "image", "images", name);
  ws_status st = ws_runtime_memcpy_htod(r->rt, ps->stream, r->slot_acts[p % r->nslots].img, r->host_images,
                                        ps->first_image * per, ps->images * per, name);
  if (st == WS_OK) ps->start_ns = last_record(r, &ps->image_record)->start_ns;
  return st;
}

static ws_status read_back(run *r, ws_vitrun_pass *ps) {
  uint64_t bytes = (uint64_t)ps->images * sizeof(float), at = (uint64_t)ps->first_image * sizeof(float);
  char name[WS_RUNTIME_NAME_MAX];
  copy_name(r, ps, "probability", "probabilities", name);
  ws_status st = ws_runtime_memcpy_dtoh(r->rt, ps->stream, r->host_probs, at, r->a.prob, bytes, name);
  if (st != WS_OK) return st;
  ps->end_ns = last_record(r, &ps->prob_record)->end_ns;
  memcpy(r->out->prob + ps->first_image, (uint8_t *)ws_runtime_host_data(r->rt, r->host_probs) + at, bytes);
  if (r->cfg->follow.on && !r->pass) { /* the probabilities' tags crossed back with them */
    ws_vitrun_reach *x = new_reach(r, "probability", ps->images);
    st = x ? ws_runtime_host_followed(r->rt, r->host_probs, at, bytes, sizeof(float), &x->reached)
           : WS_ERR_NOMEM;
    if (st != WS_OK) return st;
  }
  return ws_device_memcpy_dtoh(r->dev, r->out->logit + ps->first_image, r->a.logit, bytes);
}

static ws_status references(run *r, const float *images) {
  r->ref = calloc(r->cfg->batch, sizeof *r->ref);
  if (!r->ref) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted for the reference");
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < r->cfg->batch && st == WS_OK; i++) {
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
  uint32_t n = r->cfg->batch;
  memset(o, 0, sizeof *o);
  o->pass = true;
  float *f = calloc(4 * (size_t)n, sizeof *f);
  o->passes = calloc(r->npasses, sizeof *o->passes);
  size_t floats = (size_t)r->pass_images * TOKENS * 3 * r->dim;
  if (floats < (size_t)r->mc.heads * TOKENS * TOKENS) floats = (size_t)r->mc.heads * TOKENS * TOKENS;
  r->host = malloc(floats * sizeof *r->host);
  if (!f || !r->host || !o->passes) {
    free(f);
    return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "host memory exhausted for the results");
  }
  o->logit = f, o->prob = f + n, o->ref_logit = f + 2 * n, o->ref_prob = f + 3 * n;
  o->npasses = r->npasses;
  for (uint32_t p = 0; p < r->npasses; p++) {
    ws_vitrun_pass *ps = &o->passes[p];
    ps->first_image = p * r->pass_images;
    ps->images = n - ps->first_image < r->pass_images ? n - ps->first_image : r->pass_images;
  }
  return WS_OK;
}

/* The layers of pass p on its slot and stream, then its read-back. */
static ws_status compute_pass(run *r, uint32_t p) {
  ws_vitrun_pass *ps = &r->out->passes[p];
  r->pass = p, r->first = ps->first_image, r->batch = ps->images;
  r->a = r->slot_acts[p % r->nslots];
  r->stream = ps->stream;
  uint64_t img = (uint64_t)TOKENS * WS_TINYVIT_PATCH_DIM, rows_d = (uint64_t)TOKENS * r->dim;
  ws_status st = layer(r, "patch", l_patch, 0, r->a.patches, img, ref_patches);
  if (st == WS_OK) st = layer(r, "patch_embed", l_embed, 0, r->a.x, rows_d, ref_x0);
  for (uint32_t b = 0; b < r->mc.depth && st == WS_OK; b++) st = block_layers(r, b);
  if (st == WS_OK) st = layer(r, "pool", l_pool, 0, r->a.pooled, r->dim, ref_pooled);
  if (st == WS_OK) st = layer(r, "head", l_head, 0, r->a.logit, 1, ref_logit);
  if (st == WS_OK) { /* the probability is the head's second output: same layer, same records */
    ws_vitrun_check *c = &r->out->checks[r->out->nchecks - 1];
    st = compare(r, c, r->a.prob, 1, ref_prob, 0);
    finish_check(r, c);
  }
  if (st == WS_OK) st = read_back(r, ps);
  return st;
}

/* One stream: each pass's copy just before its kernels. More: the images of
 * the passes the other streams will run next are issued before this pass's
 * kernels, so their H2D overlaps its compute; pass q's slot was last used by
 * pass q - streams, already issued in full. */
static ws_status pipeline(run *r) {
  ws_status st = upload_weights(r);
  if (st == WS_OK) st = alloc_acts(r);
  for (uint32_t p = 0; p < r->npasses && st == WS_OK; p++)
    r->out->passes[p].stream = r->streams[p % r->nslots];
  uint32_t uploaded = 0;
  for (uint32_t p = 0; p < r->npasses && st == WS_OK; p++) {
    uint32_t ahead = p + r->nslots;
    if (ahead > r->npasses) ahead = r->npasses;
    for (; uploaded < ahead && st == WS_OK; uploaded++) st = upload_pass(r, uploaded);
    if (st == WS_OK) st = compute_pass(r, p);
  }
  if (st == WS_OK) {
    r->out->image_start_ns = r->out->passes[0].start_ns;
    for (uint32_t p = 0; p < r->npasses; p++)
      if (r->out->passes[p].end_ns > r->out->end_ns) r->out->end_ns = r->out->passes[p].end_ns;
    r->out->peak_device_bytes = ws_device_peak_allocated_bytes(r->dev);
  }
  return st;
}

static void release(run *r) {
  if (r->cfg->follow.on && !r->was_following) ws_device_set_follow(r->dev, false);
  for (size_t i = 0; i < r->nbufs; i++) ws_runtime_free(r->rt, r->bufs[i]);
  if (r->wbase) ws_runtime_free(r->rt, r->wbase);
  for (uint32_t i = 0; r->ref && i < r->cfg->batch; i++) ws_tinyvit_acts_destroy(r->ref[i]);
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
  r.dim = r.mc.dim;
  r.out = out;
  memset(out, 0, sizeof *out);
  ws_status st = check_cfg(&r);
  r.pass_images = ws_vitrun_pass_images(cfg);
  r.npasses = ws_vitrun_passes(cfg);
  r.nslots = slots_of(cfg);
  r.batch = r.pass_images;
  r.was_following = ws_device_following(r.dev);
  if (st == WS_OK && cfg->follow.on) ws_device_set_follow(r.dev, true);
  if (st == WS_OK) st = init_result(&r);
  if (st == WS_OK) st = references(&r, images);
  if (st == WS_OK) st = stage_images(&r, images);
  if (st == WS_OK) st = pipeline(&r);
  release(&r);
  return st;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Nearest rank: the ceil(pct/100 * n)-th smallest. */
static uint64_t percentile(const uint64_t *sorted, uint32_t n, uint32_t pct) {
  uint64_t rank = ((uint64_t)pct * n + 99) / 100;
  return sorted[rank ? rank - 1 : 0];
}

bool ws_vitrun_serving_of(const ws_vitrun_result *r, ws_vitrun_serving *out) {
  memset(out, 0, sizeof *out);
  uint32_t n = 0;
  for (uint32_t p = 0; p < r->npasses; p++) n += r->passes[p].images;
  if (!n) return true;
  uint64_t *lat = malloc(n * sizeof *lat);
  if (!lat) return false;
  uint32_t k = 0;
  for (uint32_t p = 0; p < r->npasses; p++)
    for (uint32_t i = 0; i < r->passes[p].images; i++) lat[k++] = r->passes[p].end_ns - r->passes[p].start_ns;
  qsort(lat, n, sizeof *lat, cmp_u64);
  out->images = n;
  out->passes = r->npasses;
  out->makespan_ns = r->end_ns - r->image_start_ns;
  out->images_per_s = out->makespan_ns ? n / (out->makespan_ns * 1e-9) : 0;
  out->p50_ns = percentile(lat, n, 50);
  out->p99_ns = percentile(lat, n, 99);
  out->max_ns = lat[n - 1];
  free(lat);
  return true;
}

void ws_vitrun_result_free(ws_vitrun_result *r) {
  if (!r) return;
  free(r->checks);
  free(r->reach);
  free(r->logit); /* prob, ref_logit and ref_prob share its allocation */
  free(r->passes);
  memset(r, 0, sizeof *r);
}
