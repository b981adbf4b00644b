/* tinyvit.c - TinyViT32 weights table, seeded initialisation, safetensors
 * import/export, the OpenBLAS reference forward pass and per-layer costs.
 *
 * The tensor table is built from one description (name suffix, shape as
 * multiples of D, initialiser, fan-in), so creation, initialisation, loading
 * and saving cannot disagree about names or shapes. Tensors sit in one fp32
 * arena in canonical order; lookup by name is a linear scan, which is cheap
 * beside any use of the tensor (a few hundred entries at most). */
#include "models/vit/tinyvit.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/formats/safetensors.h"

enum init_kind { INIT_LINEAR, INIT_ONES, INIT_ZEROS, INIT_POS };

/* pos ~ U(-POS_BOUND, POS_BOUND): small against the patch embedding, like
 * the std 0.02 truncated normal of ViT implementations. */
#define POS_BOUND 0.02

/* One tensor kind. Sizes are multiples of D (dim) or fixed counts. */
typedef struct tensor_desc {
  const char *suffix;
  uint32_t rows_d, rows_fixed; /* rows = rows_d * D + rows_fixed */
  uint32_t cols_d, cols_fixed; /* 0 and 0 for a 1-D tensor */
  enum init_kind init;
  uint32_t fan_in_d, fan_in_fixed;
} tensor_desc;

static const tensor_desc stem_desc[] = {
    {"patch_embed.weight", 1, 0, 0, WS_TINYVIT_PATCH_DIM, INIT_LINEAR, 0, WS_TINYVIT_PATCH_DIM},
    {"patch_embed.bias", 1, 0, 0, 0, INIT_LINEAR, 0, WS_TINYVIT_PATCH_DIM},
    {"pos", 0, WS_TINYVIT_TOKENS, 1, 0, INIT_POS, 0, 0},
};

static const tensor_desc block_desc[] = {
    {"attn.qkv.weight", 3, 0, 1, 0, INIT_LINEAR, 1, 0},  {"attn.qkv.bias", 3, 0, 0, 0, INIT_LINEAR, 1, 0},
    {"attn.proj.weight", 1, 0, 1, 0, INIT_LINEAR, 1, 0}, {"attn.proj.bias", 1, 0, 0, 0, INIT_LINEAR, 1, 0},
    {"norm1.weight", 1, 0, 0, 0, INIT_ONES, 0, 0},       {"norm1.bias", 1, 0, 0, 0, INIT_ZEROS, 0, 0},
    {"mlp.fc1.weight", 2, 0, 1, 0, INIT_LINEAR, 1, 0},   {"mlp.fc1.bias", 2, 0, 0, 0, INIT_LINEAR, 1, 0},
    {"mlp.fc2.weight", 1, 0, 2, 0, INIT_LINEAR, 2, 0},   {"mlp.fc2.bias", 1, 0, 0, 0, INIT_LINEAR, 2, 0},
};

static const tensor_desc head_desc[] = {
    {"head.weight", 0, 1, 1, 0, INIT_LINEAR, 1, 0},
    {"head.bias", 0, 1, 0, 0, INIT_LINEAR, 1, 0},
};

/* Canonical positions of a block's tensors, in block_desc order. */
enum block_field { QKV_W, QKV_B, PROJ_W, PROJ_B, NORM1_W, NORM1_B, FC1_W, FC1_B, FC2_W, FC2_B, BLOCK_FIELDS };

#define N_STEM (sizeof stem_desc / sizeof stem_desc[0])
#define N_HEAD (sizeof head_desc / sizeof head_desc[0])

struct ws_tinyvit_weights {
  ws_tinyvit_cfg cfg;
  size_t count;
  ws_tinyvit_tensor *tensors;
  const tensor_desc **descs; /* descs[i] describes tensors[i] */
  float *arena;
};

/* ---- configuration -------------------------------------------------------- */

ws_tinyvit_cfg ws_tinyvit_cfg_default(void) { return (ws_tinyvit_cfg){64, 4, 1}; }

ws_status ws_tinyvit_cfg_validate(ws_ctx *ctx, const ws_tinyvit_cfg *cfg) {
  if (cfg->dim == 0 || cfg->heads == 0 || cfg->depth == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "TinyViT config dim=%u heads=%u depth=%u: all three must be at least 1", cfg->dim,
                       cfg->heads, cfg->depth);
  if (cfg->dim > WS_TINYVIT_MAX_DIM || cfg->heads > WS_TINYVIT_MAX_HEADS || cfg->depth > WS_TINYVIT_MAX_DEPTH)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "TinyViT config dim=%u heads=%u depth=%u is too large (limits: dim %u, "
                       "heads %u, depth %u)",
                       cfg->dim, cfg->heads, cfg->depth, WS_TINYVIT_MAX_DIM, WS_TINYVIT_MAX_HEADS,
                       WS_TINYVIT_MAX_DEPTH);
  if (cfg->dim % cfg->heads != 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "TinyViT config: dim %u is not divisible by heads %u (dim %% heads = %u)", cfg->dim,
                       cfg->heads, cfg->dim % cfg->heads);
  return WS_OK;
}

/* The shape of one tensor of the table at model width dim (cols 0: a vector). */
static uint64_t desc_rows(const tensor_desc *d, uint64_t dim) { return d->rows_d * dim + d->rows_fixed; }
static uint64_t desc_cols(const tensor_desc *d, uint64_t dim) { return d->cols_d * dim + d->cols_fixed; }
static uint64_t desc_count(const tensor_desc *d, uint64_t dim) {
  uint64_t cols = desc_cols(d, dim);
  return desc_rows(d, dim) * (cols ? cols : 1);
}

static uint64_t desc_params(const tensor_desc *d, size_t n, uint64_t dim) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) total += desc_count(&d[i], dim);
  return total;
}

uint64_t ws_tinyvit_cfg_param_count(const ws_tinyvit_cfg *cfg) {
  return desc_params(stem_desc, N_STEM, cfg->dim) +
         cfg->depth * desc_params(block_desc, BLOCK_FIELDS, cfg->dim) +
         desc_params(head_desc, N_HEAD, cfg->dim);
}

size_t ws_tinyvit_cfg_tensor_count(const ws_tinyvit_cfg *cfg) {
  return N_STEM + (size_t)cfg->depth * BLOCK_FIELDS + N_HEAD;
}

/* ---- weights table ---------------------------------------------------------- */

static void fill_entry(ws_tinyvit_tensor *t, const tensor_desc *d, const char *prefix, uint32_t dim) {
  snprintf(t->name, sizeof t->name, "%s%s", prefix, d->suffix);
  uint32_t cols = (uint32_t)desc_cols(d, dim);
  t->ndim = cols ? 2 : 1;
  t->shape[0] = (uint32_t)desc_rows(d, dim);
  t->shape[1] = cols;
  t->count = (size_t)desc_count(d, dim);
}

/* Fills names, shapes and descriptors; data pointers come later. */
static void layout_table(ws_tinyvit_weights *w) {
  size_t i = 0;
  char prefix[32];
  for (size_t k = 0; k < N_STEM; k++, i++) {
    fill_entry(&w->tensors[i], &stem_desc[k], "", w->cfg.dim);
    w->descs[i] = &stem_desc[k];
  }
  for (uint32_t b = 0; b < w->cfg.depth; b++) {
    snprintf(prefix, sizeof prefix, "blocks.%u.", b);
    for (size_t k = 0; k < BLOCK_FIELDS; k++, i++) {
      fill_entry(&w->tensors[i], &block_desc[k], prefix, w->cfg.dim);
      w->descs[i] = &block_desc[k];
    }
  }
  for (size_t k = 0; k < N_HEAD; k++, i++) {
    fill_entry(&w->tensors[i], &head_desc[k], "", w->cfg.dim);
    w->descs[i] = &head_desc[k];
  }
}

ws_status ws_tinyvit_weights_create(ws_ctx *ctx, const ws_tinyvit_cfg *cfg, ws_tinyvit_weights **out) {
  *out = NULL;
  ws_status st = ws_tinyvit_cfg_validate(ctx, cfg);
  if (st != WS_OK) return st;
  ws_tinyvit_weights *w = calloc(1, sizeof *w);
  if (!w) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for TinyViT weights");
  w->cfg = *cfg;
  w->count = ws_tinyvit_cfg_tensor_count(cfg);
  w->tensors = calloc(w->count, sizeof *w->tensors);
  w->descs = calloc(w->count, sizeof *w->descs);
  if (w->tensors && w->descs) {
    layout_table(w);
    w->arena = calloc(ws_tinyvit_weights_param_count(w), sizeof *w->arena);
  }
  if (!w->arena) {
    ws_tinyvit_weights_destroy(w);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for TinyViT weights");
  }
  float *p = w->arena;
  for (size_t i = 0; i < w->count; p += w->tensors[i].count, i++) w->tensors[i].data = p;
  *out = w;
  return WS_OK;
}

void ws_tinyvit_weights_destroy(ws_tinyvit_weights *w) {
  if (!w) return;
  free(w->arena);
  free(w->descs);
  free(w->tensors);
  free(w);
}

ws_tinyvit_cfg ws_tinyvit_weights_cfg(const ws_tinyvit_weights *w) { return w->cfg; }

size_t ws_tinyvit_weights_count(const ws_tinyvit_weights *w) { return w->count; }

ws_tinyvit_tensor *ws_tinyvit_weights_at(const ws_tinyvit_weights *w, size_t i) {
  return i < w->count ? &w->tensors[i] : NULL;
}

ws_tinyvit_tensor *ws_tinyvit_weights_find(const ws_tinyvit_weights *w, const char *name) {
  for (size_t i = 0; i < w->count; i++)
    if (strcmp(w->tensors[i].name, name) == 0) return &w->tensors[i];
  return NULL;
}

size_t ws_tinyvit_weights_param_count(const ws_tinyvit_weights *w) {
  size_t n = 0;
  for (size_t i = 0; i < w->count; i++) n += w->tensors[i].count;
  return n;
}

/* ---- seeded initialisation -------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t fnv1a64(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

static void fill_uniform(ws_tinyvit_tensor *t, uint64_t seed, double bound) {
  uint64_t state = seed ^ fnv1a64(t->name);
  for (size_t i = 0; i < t->count; i++) {
    double u = (double)(splitmix64(&state) >> 40) * (1.0 / 16777216.0);
    t->data[i] = (float)(bound * (2.0 * u - 1.0));
  }
}

void ws_tinyvit_weights_init_seeded(ws_tinyvit_weights *w, uint64_t seed) {
  for (size_t i = 0; i < w->count; i++) {
    ws_tinyvit_tensor *t = &w->tensors[i];
    const tensor_desc *d = w->descs[i];
    uint32_t fan_in = d->fan_in_d * w->cfg.dim + d->fan_in_fixed;
    switch (d->init) {
    case INIT_LINEAR: fill_uniform(t, seed, 1.0 / sqrt((double)fan_in)); break;
    case INIT_POS: fill_uniform(t, seed, POS_BOUND); break;
    case INIT_ONES:
      for (size_t k = 0; k < t->count; k++) t->data[k] = 1.0f;
      break;
    case INIT_ZEROS: memset(t->data, 0, t->count * sizeof *t->data); break;
    }
  }
}

/* ---- safetensors import/export ------------------------------------------------ */

/* Names joined for a message, "'a', 'b' and 3 more"; bounded so a file of
 * thousands of wrong names still gives a readable line. */
typedef struct name_list {
  char text[320];
  size_t count, shown;
} name_list;

static void name_list_add(name_list *l, const char *name) {
  size_t len = strlen(l->text);
  if (len + strlen(name) + 8 < sizeof l->text) {
    snprintf(l->text + len, sizeof l->text - len, "%s'%s'", l->shown ? ", " : "", name);
    l->shown++;
  }
  l->count++;
}

static const char *name_list_tail(const name_list *l, char *buf, size_t cap) {
  if (l->count > l->shown)
    snprintf(buf, cap, " and %zu more", l->count - l->shown);
  else
    buf[0] = '\0';
  return buf;
}

static ws_status check_names(ws_ctx *ctx, const char *path, const ws_safetensors *st,
                             const ws_tinyvit_weights *w) {
  name_list missing = {{0}, 0, 0}, extra = {{0}, 0, 0};
  for (size_t i = 0; i < w->count; i++)
    if (!ws_safetensors_find(st, w->tensors[i].name)) name_list_add(&missing, w->tensors[i].name);
  for (size_t i = 0; i < ws_safetensors_count(st); i++) {
    const char *name = ws_safetensors_at(st, i)->name;
    if (!ws_tinyvit_weights_find(w, name)) name_list_add(&extra, name);
  }
  if (!missing.count && !extra.count) return WS_OK;
  char tail_m[32], tail_e[32];
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s: not TinyViT weights for dim=%u heads=%u depth=%u: %zu missing "
                     "tensor(s)%s%s%s; %zu unexpected tensor(s)%s%s%s",
                     path, w->cfg.dim, w->cfg.heads, w->cfg.depth, missing.count, missing.count ? " " : "",
                     missing.text, name_list_tail(&missing, tail_m, sizeof tail_m), extra.count,
                     extra.count ? " " : "", extra.text, name_list_tail(&extra, tail_e, sizeof tail_e));
}

static bool same_shape(const ws_safetensors_tensor *s, const ws_tinyvit_tensor *t) {
  if (s->ndim != t->ndim) return false;
  for (uint32_t i = 0; i < t->ndim; i++)
    if (s->shape[i] != t->shape[i]) return false;
  return true;
}

static void shape_text(char *buf, size_t cap, const uint64_t *shape, uint32_t ndim) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < ndim && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
}

static ws_status copy_tensor(ws_ctx *ctx, const char *path, const ws_safetensors_tensor *s,
                             ws_tinyvit_tensor *t) {
  if (!same_shape(s, t)) {
    char want[64], found[160];
    uint64_t shape[2] = {t->shape[0], t->shape[1]};
    shape_text(want, sizeof want, shape, t->ndim);
    shape_text(found, sizeof found, s->shape, s->ndim);
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: tensor '%s' has shape %s, expected %s", path, t->name, found,
                       want);
  }
  memcpy(t->data, s->data, t->count * sizeof *t->data);
  return WS_OK;
}

size_t ws_tinyvit_weights_file_max_bytes(void) {
  const uint64_t mib = 1u << 20;
  const ws_tinyvit_cfg largest = {WS_TINYVIT_MAX_DIM, 1, WS_TINYVIT_MAX_DEPTH};
  uint64_t bytes = ws_tinyvit_cfg_param_count(&largest) * sizeof(float) + 8 + mib;
  return (size_t)((bytes + mib - 1) / mib * mib);
}

ws_status ws_tinyvit_weights_load(ws_ctx *ctx, const char *path, const ws_tinyvit_cfg *cfg,
                                  ws_tinyvit_weights **out) {
  *out = NULL;
  ws_tinyvit_weights *w = NULL;
  ws_safetensors *st = NULL;
  ws_status rc = ws_tinyvit_weights_create(ctx, cfg, &w);
  if (rc == WS_OK) rc = ws_safetensors_load(ctx, path, ws_tinyvit_weights_file_max_bytes(), &st);
  if (rc == WS_OK) rc = check_names(ctx, path, st, w);
  for (size_t i = 0; rc == WS_OK && i < w->count; i++)
    rc = copy_tensor(ctx, path, ws_safetensors_find(st, w->tensors[i].name), &w->tensors[i]);
  ws_safetensors_destroy(st);
  if (rc != WS_OK)
    ws_tinyvit_weights_destroy(w);
  else
    *out = w;
  return rc;
}

ws_status ws_tinyvit_weights_save(ws_ctx *ctx, const ws_tinyvit_weights *w, const char *path) {
  ws_safetensors_tensor *ts = calloc(w->count, sizeof *ts);
  if (!ts) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory writing '%s'", path);
  for (size_t i = 0; i < w->count; i++) {
    const ws_tinyvit_tensor *t = &w->tensors[i];
    ts[i] = (ws_safetensors_tensor){
        .name = t->name, .dtype = WS_SAFETENSORS_F32, .ndim = t->ndim, .count = t->count, .data = t->data};
    ts[i].shape[0] = t->shape[0];
    ts[i].shape[1] = t->shape[1];
  }
  char dim[16], heads[16], depth[16];
  snprintf(dim, sizeof dim, "%u", w->cfg.dim);
  snprintf(heads, sizeof heads, "%u", w->cfg.heads);
  snprintf(depth, sizeof depth, "%u", w->cfg.depth);
  const ws_safetensors_meta meta[] = {
      {"model", "tinyvit32"}, {"dim", dim}, {"heads", heads}, {"depth", depth}};
  ws_status st = ws_safetensors_write(ctx, path, ts, w->count, meta, sizeof meta / sizeof meta[0]);
  free(ts);
  return st;
}

/* ---- activations ----------------------------------------------------------------- */

#define T WS_TINYVIT_TOKENS

static size_t block_act_floats(const ws_tinyvit_cfg *cfg) {
  size_t d = cfg->dim, att = (size_t)cfg->heads * T * T;
  return T * 3 * d + 2 * att + 5 * T * d + 2 * T * 2 * d + T * d;
}

static float *take(float **p, size_t n) {
  float *r = *p;
  *p += n;
  return r;
}

static void carve_block(ws_tinyvit_block_acts *b, const ws_tinyvit_cfg *cfg, float **p) {
  size_t d = cfg->dim, att = (size_t)cfg->heads * T * T;
  b->qkv = take(p, T * 3 * d);
  b->scores = take(p, att);
  b->probs = take(p, att);
  b->att = take(p, T * d);
  b->a = take(p, T * d);
  b->resid1 = take(p, T * d);
  b->x1 = take(p, T * d);
  b->fc1 = take(p, T * 2 * d);
  b->h = take(p, T * 2 * d);
  b->fc2 = take(p, T * d);
  b->out = take(p, T * d);
}

size_t ws_tinyvit_acts_floats(const ws_tinyvit_cfg *cfg) {
  return T * WS_TINYVIT_PATCH_DIM + T * (size_t)cfg->dim + cfg->depth * block_act_floats(cfg) + cfg->dim;
}

ws_status ws_tinyvit_acts_create(ws_ctx *ctx, const ws_tinyvit_cfg *cfg, ws_tinyvit_acts **out) {
  *out = NULL;
  ws_status st = ws_tinyvit_cfg_validate(ctx, cfg);
  if (st != WS_OK) return st;
  size_t floats = ws_tinyvit_acts_floats(cfg);
  ws_tinyvit_acts *a = calloc(1, sizeof *a);
  float *arena = calloc(floats, sizeof *arena);
  ws_tinyvit_block_acts *blocks = calloc(cfg->depth, sizeof *blocks);
  if (!a || !arena || !blocks) {
    free(a);
    free(arena);
    free(blocks);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for TinyViT activations");
  }
  a->cfg = *cfg;
  a->blocks = blocks;
  float *p = arena; /* patches first: destroy frees the arena through it */
  a->patches = take(&p, T * WS_TINYVIT_PATCH_DIM);
  a->x0 = take(&p, T * (size_t)cfg->dim);
  for (uint32_t b = 0; b < cfg->depth; b++) carve_block(&blocks[b], cfg, &p);
  a->pooled = take(&p, cfg->dim);
  *out = a;
  return WS_OK;
}

void ws_tinyvit_acts_destroy(ws_tinyvit_acts *acts) {
  if (!acts) return;
  free(acts->patches);
  free(acts->blocks);
  free(acts);
}

/* ---- helpers ---------------------------------------------------------------------- */

void ws_tinyvit_patches(const float *image_chw, float *patches) {
  const int S = WS_TINYVIT_IMAGE_SIZE, P = WS_TINYVIT_PATCH_SIZE;
  for (int t = 0; t < T; t++) {
    int py = t / WS_TINYVIT_GRID, px = t % WS_TINYVIT_GRID;
    float *row = patches + (size_t)t * WS_TINYVIT_PATCH_DIM;
    for (int c = 0; c < WS_TINYVIT_CHANNELS; c++)
      for (int ky = 0; ky < P; ky++)
        for (int kx = 0; kx < P; kx++)
          row[(c * P + ky) * P + kx] = image_chw[(c * S + py * P + ky) * S + px * P + kx];
  }
}

void ws_tinyvit_layernorm(const float *x, const float *gamma, const float *beta, size_t rows, size_t cols,
                          float eps, float *y) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    double sum = 0.0, sq = 0.0;
    for (size_t c = 0; c < cols; c++) sum += xr[c];
    double mean = sum / (double)cols;
    for (size_t c = 0; c < cols; c++) sq += (xr[c] - mean) * (xr[c] - mean);
    double rstd = 1.0 / sqrt(sq / (double)cols + eps);
    for (size_t c = 0; c < cols; c++) y[r * cols + c] = (float)((xr[c] - mean) * rstd * gamma[c] + beta[c]);
  }
}

float ws_tinyvit_gelu(float x) {
  const float k = 0.7978845608028654f; /* sqrt(2/pi) */
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

void ws_tinyvit_softmax(float *row, size_t n) {
  float mx = -INFINITY;
  for (size_t i = 0; i < n; i++) mx = row[i] > mx ? row[i] : mx;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += row[i] = expf(row[i] - mx);
  for (size_t i = 0; i < n; i++) row[i] = (float)(row[i] / sum);
}

/* ---- forward ------------------------------------------------------------------------ */

/* y[rows, out] = x[rows, in] W^T + b, W in nn.Linear's [out, in] layout. */
static void linear(const float *x, size_t rows, const ws_tinyvit_tensor *w, const ws_tinyvit_tensor *b,
                   float *y) {
  int out = (int)w->shape[0], in = (int)w->shape[1];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, out, in, 1.0f, x, in, w->data, in, 0.0f, y,
              out);
  for (size_t r = 0; r < rows; r++)
    for (int o = 0; o < out; o++) y[r * (size_t)out + (size_t)o] += b->data[o];
}

static void attention(const ws_tinyvit_cfg *cfg, ws_tinyvit_block_acts *ba) {
  int d = (int)cfg->dim, dh = d / (int)cfg->heads, ld = 3 * d;
  float scale = (float)(1.0 / sqrt((double)dh));
  for (int h = 0; h < (int)cfg->heads; h++) {
    const float *q = ba->qkv + h * dh, *k = q + d, *v = q + 2 * d;
    float *s = ba->scores + (size_t)h * T * T, *p = ba->probs + (size_t)h * T * T;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, dh, scale, q, ld, k, ld, 0.0f, s, T);
    memcpy(p, s, (size_t)T * T * sizeof *p);
    for (int r = 0; r < T; r++) ws_tinyvit_softmax(p + (size_t)r * T, T);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, dh, T, 1.0f, p, T, v, ld, 0.0f,
                ba->att + h * dh, d);
  }
}

static void add(const float *x, const float *y, size_t n, float *out) {
  for (size_t i = 0; i < n; i++) out[i] = x[i] + y[i];
}

static void block_forward(const ws_tinyvit_weights *w, uint32_t b, const float *x,
                          ws_tinyvit_block_acts *ba) {
  const ws_tinyvit_tensor *p = &w->tensors[N_STEM + (size_t)b * BLOCK_FIELDS];
  size_t n = T * (size_t)w->cfg.dim;
  linear(x, T, &p[QKV_W], &p[QKV_B], ba->qkv);
  attention(&w->cfg, ba);
  linear(ba->att, T, &p[PROJ_W], &p[PROJ_B], ba->a);
  add(x, ba->a, n, ba->resid1);
  ws_tinyvit_layernorm(ba->resid1, p[NORM1_W].data, p[NORM1_B].data, T, w->cfg.dim, WS_TINYVIT_LN_EPS,
                       ba->x1);
  linear(ba->x1, T, &p[FC1_W], &p[FC1_B], ba->fc1);
  for (size_t i = 0; i < 2 * n; i++) ba->h[i] = ws_tinyvit_gelu(ba->fc1[i]);
  linear(ba->h, T, &p[FC2_W], &p[FC2_B], ba->fc2);
  add(ba->x1, ba->fc2, n, ba->out);
}

static void head_forward(const ws_tinyvit_weights *w, const float *x, ws_tinyvit_acts *acts) {
  size_t d = w->cfg.dim;
  for (size_t c = 0; c < d; c++) {
    float sum = 0.0f;
    for (size_t t = 0; t < T; t++) sum += x[t * d + c];
    acts->pooled[c] = sum / (float)T;
  }
  const ws_tinyvit_tensor *hw = &w->tensors[w->count - 2], *hb = &w->tensors[w->count - 1];
  linear(acts->pooled, 1, hw, hb, &acts->logit);
  acts->probability = 1.0f / (1.0f + expf(-acts->logit));
}

ws_status ws_tinyvit_forward(ws_ctx *ctx, const ws_tinyvit_weights *w, const float *image_chw,
                             ws_tinyvit_acts *acts) {
  ws_tinyvit_cfg c = w->cfg, a = acts->cfg;
  if (c.dim != a.dim || c.heads != a.heads || c.depth != a.depth)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "TinyViT forward: activations are for dim=%u heads=%u depth=%u, weights for "
                       "dim=%u heads=%u depth=%u",
                       a.dim, a.heads, a.depth, c.dim, c.heads, c.depth);
  ws_tinyvit_patches(image_chw, acts->patches);
  linear(acts->patches, T, &w->tensors[0], &w->tensors[1], acts->x0);
  add(acts->x0, w->tensors[2].data, T * (size_t)c.dim, acts->x0);
  const float *x = acts->x0;
  for (uint32_t b = 0; b < c.depth; b++) {
    block_forward(w, b, x, &acts->blocks[b]);
    x = acts->blocks[b].out;
  }
  head_forward(w, x, acts);
  return WS_OK;
}

/* ---- costs ------------------------------------------------------------------------- */

typedef struct cost_sink {
  ws_tinyvit_layer_cost *out;
  size_t cap, n;
} cost_sink;

/* Element counts in, counts of fp32 values; stored as bytes. */
static void emit(cost_sink *s, const char *name, uint64_t flops, uint64_t in, uint64_t weights,
                 uint64_t outv) {
  if (s->n < s->cap) {
    ws_tinyvit_layer_cost *c = &s->out[s->n];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->flops = flops;
    c->in_bytes = in * 4;
    c->weight_bytes = weights * 4;
    c->out_bytes = outv * 4;
  }
  s->n++;
}

static void emit_block(cost_sink *s, const ws_tinyvit_cfg *cfg, uint32_t b) {
  uint64_t d = cfg->dim, hd = cfg->heads, dh = d / hd, td = T * d, tt = (uint64_t)T * T;
  char name[48];
#define BLOCK_COST(suffix, ...)                                                                              \
  (snprintf(name, sizeof name, "blocks.%u.%s", b, suffix), emit(s, name, __VA_ARGS__))
  BLOCK_COST("qkv", 2 * td * 3 * d + 3 * td, td, 3 * d * d + 3 * d, 3 * td);
  BLOCK_COST("scores", hd * (2 * tt * dh + tt), 2 * td, 0, hd * tt);
  BLOCK_COST("softmax", WS_TINYVIT_FLOPS_SOFTMAX * hd * tt, hd * tt, 0, hd * tt);
  BLOCK_COST("attn_v", hd * 2 * tt * dh, hd * tt + td, 0, td);
  BLOCK_COST("proj", 2 * td * d + td, td, d * d + d, td);
  BLOCK_COST("add_norm", (1 + WS_TINYVIT_FLOPS_LAYERNORM) * td, 2 * td, 2 * d, td);
  BLOCK_COST("fc1_gelu", 2 * td * 2 * d + (1 + WS_TINYVIT_FLOPS_GELU) * 2 * td, td, 2 * d * d + 2 * d,
             2 * td);
  BLOCK_COST("fc2_residual", 2 * (2 * td) * d + 2 * td, 3 * td, 2 * d * d + d, td);
#undef BLOCK_COST
}

size_t ws_tinyvit_layer_count(const ws_tinyvit_cfg *cfg) { return 4 + 8 * (size_t)cfg->depth; }

size_t ws_tinyvit_layer_costs(const ws_tinyvit_cfg *cfg, ws_tinyvit_layer_cost *out, size_t cap) {
  cost_sink s = {out, cap, 0};
  uint64_t d = cfg->dim, td = T * d, pd = WS_TINYVIT_PATCH_DIM;
  emit(&s, "patches", 0, WS_TINYVIT_IMAGE_FLOATS, 0, T * pd);
  emit(&s, "patch_embed", 2 * T * pd * d + 2 * td, T * pd, d * pd + d + td, td);
  for (uint32_t b = 0; b < cfg->depth; b++) emit_block(&s, cfg, b);
  emit(&s, "pool", td + d, td, 0, d);
  /* dot product, bias, then sigmoid as negate, exp, add, divide */
  emit(&s, "head", 2 * d + 1 + 4, d, d + 1, 2);
  return s.n;
}
