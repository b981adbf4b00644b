/* tinyvit.h - TinyViT32: configuration, named weights, the CPU reference
 * forward pass on OpenBLAS, and per-layer costs.
 *
 * Design: the reference keeps every intermediate activation in a struct the
 * caller owns, so each simulated GPU layer can be compared against exactly
 * the tensor it should have produced, not only against the final logit.
 * Weights live in one table of named fp32 tensors with the PyTorch names and
 * [out, in] layouts, so a checkpoint exported from PyTorch to safetensors
 * loads without renaming. The model (post-norm block):
 *   x0  = patches[64,48] W_pe^T + b_pe + pos
 *   qkv = x W_qkv^T + b_qkv; att = concat_h softmax(Q_h K_h^T / sqrt(dh)) V_h
 *   a   = att W_proj^T + b_proj;  x1 = LayerNorm(x + a)
 *   h   = GELU_tanh(x1 W_fc1^T + b_fc1);  x = x1 + h W_fc2^T + b_fc2
 *   pooled = mean over tokens; logit = pooled . w_head + b_head; p = sigmoid. */
#ifndef WS_TINYVIT_H
#define WS_TINYVIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

#define WS_TINYVIT_CHANNELS 3
#define WS_TINYVIT_IMAGE_SIZE 32                                        /* pixels per side */
#define WS_TINYVIT_PATCH_SIZE 4                                         /* pixels per patch side */
#define WS_TINYVIT_GRID (WS_TINYVIT_IMAGE_SIZE / WS_TINYVIT_PATCH_SIZE) /* 8 patches per side */
#define WS_TINYVIT_TOKENS (WS_TINYVIT_GRID * WS_TINYVIT_GRID)           /* 64 */
#define WS_TINYVIT_PATCH_DIM (WS_TINYVIT_CHANNELS * WS_TINYVIT_PATCH_SIZE * WS_TINYVIT_PATCH_SIZE)
#define WS_TINYVIT_IMAGE_FLOATS (WS_TINYVIT_CHANNELS * WS_TINYVIT_IMAGE_SIZE * WS_TINYVIT_IMAGE_SIZE)
#define WS_TINYVIT_LN_EPS 1e-5f

/* Upper bounds that keep every buffer small enough to allocate and every
 * count inside uint32_t; a config beyond them is a typo, not a model. */
#define WS_TINYVIT_MAX_DIM 1024u
#define WS_TINYVIT_MAX_HEADS 64u
#define WS_TINYVIT_MAX_DEPTH 32u

typedef struct ws_tinyvit_cfg {
  uint32_t dim;   /* D, token width; D % heads == 0 */
  uint32_t heads; /* H; head dim = D / H */
  uint32_t depth; /* transformer blocks */
} ws_tinyvit_cfg;

/* ---- configuration -------------------------------------------------------- */

/* D=64, H=4, one block. */
ws_tinyvit_cfg ws_tinyvit_cfg_default(void);
/* WS_ERR_INVALID with the offending value for zero sizes, D % H != 0, or
 * sizes beyond WS_TINYVIT_MAX_*. */
ws_status ws_tinyvit_cfg_validate(ws_ctx *ctx, const ws_tinyvit_cfg *cfg);

/* Sizes of cfg without building anything, for bounding a run up front:
 * fp32 parameters, tensors, and floats of one image's reference
 * activations (ws_tinyvit_acts). */
uint64_t ws_tinyvit_cfg_param_count(const ws_tinyvit_cfg *cfg);
size_t ws_tinyvit_cfg_tensor_count(const ws_tinyvit_cfg *cfg);
size_t ws_tinyvit_acts_floats(const ws_tinyvit_cfg *cfg);

/* ---- weights -------------------------------------------------------------- */

typedef struct ws_tinyvit_tensor {
  char name[48];     /* "blocks.0.attn.qkv.weight" */
  uint32_t ndim;     /* 1 or 2 */
  uint32_t shape[2]; /* [out, in] for Linear weights */
  size_t count;      /* elements */
  float *data;       /* row-major fp32, owned by the weights object */
} ws_tinyvit_tensor;

typedef struct ws_tinyvit_weights ws_tinyvit_weights;

/* All tensors of cfg, zero-filled, in the canonical order: patch_embed.weight,
 * patch_embed.bias, pos, then per block qkv.weight, qkv.bias, proj.weight,
 * proj.bias, norm1.weight, norm1.bias, fc1.weight, fc1.bias, fc2.weight,
 * fc2.bias, then head.weight, head.bias. */
ws_status ws_tinyvit_weights_create(ws_ctx *ctx, const ws_tinyvit_cfg *cfg, ws_tinyvit_weights **out);
void ws_tinyvit_weights_destroy(ws_tinyvit_weights *w);

/* Deterministic initialisation from `seed`. Each tensor draws from its own
 * splitmix64 stream seeded with seed ^ FNV-1a-64(name), so a tensor's values
 * do not depend on the config's other sizes (block 0 is the same at depth 1
 * and depth 4). Linear weights and biases ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))
 * (PyTorch's nn.Linear default), LayerNorm weight 1 and bias 0, pos ~
 * U(-0.02, 0.02). A uniform draw is (splitmix64() >> 40) * 2^-24 in [0, 1). */
void ws_tinyvit_weights_init_seeded(ws_tinyvit_weights *w, uint64_t seed);

ws_tinyvit_cfg ws_tinyvit_weights_cfg(const ws_tinyvit_weights *w);
size_t ws_tinyvit_weights_count(const ws_tinyvit_weights *w);
/* The i-th tensor in canonical order; NULL past the end. */
ws_tinyvit_tensor *ws_tinyvit_weights_at(const ws_tinyvit_weights *w, size_t i);
/* Lookup by name; NULL when cfg has no such tensor. */
ws_tinyvit_tensor *ws_tinyvit_weights_find(const ws_tinyvit_weights *w, const char *name);
/* Total fp32 parameters. */
size_t ws_tinyvit_weights_param_count(const ws_tinyvit_weights *w);

/* Loads a safetensors file written for cfg (F32, F16 or BF16 tensors). Every
 * expected name must be present with its exact shape and nothing else may be;
 * errors name the file, the tensor, the expected and the found shape, and list
 * missing and unexpected names. */
ws_status ws_tinyvit_weights_load(ws_ctx *ctx, const char *path, const ws_tinyvit_cfg *cfg,
                                  ws_tinyvit_weights **out);
/* The largest weights file the loader reads, whatever cfg asks for (so a
 * file for another config still gets the shape message): every parameter of
 * the largest model (WS_TINYVIT_MAX_DIM, WS_TINYVIT_MAX_DEPTH) as F32, the
 * 8-byte length and 1 MiB of JSON header (a depth-32 header is about
 * 20 KiB), rounded up to whole MiB: 1027 MiB. */
size_t ws_tinyvit_weights_file_max_bytes(void);
/* Writes every tensor as F32 (atomically), with metadata model, dim, heads
 * and depth. */
ws_status ws_tinyvit_weights_save(ws_ctx *ctx, const ws_tinyvit_weights *w, const char *path);

/* ---- reference forward pass ---------------------------------------------- */

typedef struct ws_tinyvit_block_acts {
  float *qkv;    /* [64, 3D] x W_qkv^T + b */
  float *scores; /* [H, 64, 64] Q_h K_h^T / sqrt(dh), before softmax */
  float *probs;  /* [H, 64, 64] attention probabilities, one row per query */
  float *att;    /* [64, D] probs_h V_h, heads concatenated */
  float *a;      /* [64, D] att W_proj^T + b */
  float *resid1; /* [64, D] x + a, before LayerNorm */
  float *x1;     /* [64, D] LayerNorm(x + a) */
  float *fc1;    /* [64, 2D] x1 W_fc1^T + b, before GELU */
  float *h;      /* [64, 2D] GELU(fc1) */
  float *fc2;    /* [64, D] h W_fc2^T + b, before the residual */
  float *out;    /* [64, D] x1 + fc2: the block output */
} ws_tinyvit_block_acts;

typedef struct ws_tinyvit_acts {
  ws_tinyvit_cfg cfg;
  float *patches;                /* [64, 48], (c, ky, kx) order per token */
  float *x0;                     /* [64, D] embedded tokens + pos */
  ws_tinyvit_block_acts *blocks; /* depth entries */
  float *pooled;                 /* [D] mean over tokens of the last block output */
  float logit;
  float probability; /* sigmoid(logit) */
} ws_tinyvit_acts;

ws_status ws_tinyvit_acts_create(ws_ctx *ctx, const ws_tinyvit_cfg *cfg, ws_tinyvit_acts **out);
void ws_tinyvit_acts_destroy(ws_tinyvit_acts *acts);

/* Runs the model on a normalized CHW image [3, 32, 32]; every GEMM is one
 * cblas_sgemm. acts must have been created for the weights' cfg. */
ws_status ws_tinyvit_forward(ws_ctx *ctx, const ws_tinyvit_weights *w, const float *image_chw,
                             ws_tinyvit_acts *acts);

/* ---- helpers shared with the GPU checks ---------------------------------- */

/* patches[t, c*16 + ky*4 + kx] = image[c, 4*py + ky, 4*px + kx], t = py*8 + px:
 * the flattening of a Conv2d(3, D, 4, stride 4) weight. */
void ws_tinyvit_patches(const float *image_chw, float *patches);
/* Row-wise LayerNorm over `cols` with biased variance; mean and variance
 * accumulate in double. y may alias x. */
void ws_tinyvit_layernorm(const float *x, const float *gamma, const float *beta, size_t rows, size_t cols,
                          float eps, float *y);
/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
float ws_tinyvit_gelu(float x);
/* In-place numerically stable softmax of one row (max subtracted). */
void ws_tinyvit_softmax(float *row, size_t n);

/* ---- costs for the docs ---------------------------------------------------- */

typedef struct ws_tinyvit_layer_cost {
  char name[48];         /* "patch_embed", "blocks.0.qkv", ... */
  uint64_t flops;        /* GEMMs 2MNK; element-wise ops per WS_TINYVIT_FLOPS_* below */
  uint64_t in_bytes;     /* activations read, fp32 */
  uint64_t weight_bytes; /* parameters read, fp32 */
  uint64_t out_bytes;    /* activations written, fp32 */
} ws_tinyvit_layer_cost;

/* Element-wise op counts (a transcendental counts as one flop). */
#define WS_TINYVIT_FLOPS_SOFTMAX 5   /* max, subtract, exp, sum, divide */
#define WS_TINYVIT_FLOPS_LAYERNORM 7 /* sum, centre, square, sum, scale, gamma, beta */
#define WS_TINYVIT_FLOPS_GELU 8      /* x^3 (2), fma, scale, tanh, add, two multiplies */

/* Layers, in execution order: patches, patch_embed, then per block qkv,
 * scores, softmax, attn_v, proj, add_norm (residual add + LayerNorm),
 * fc1_gelu, fc2_residual, then pool, head (dot + bias + sigmoid). Biases and
 * residual adds count one flop per output. */
size_t ws_tinyvit_layer_count(const ws_tinyvit_cfg *cfg);
/* Fills up to `cap` entries; returns the number of layers. */
size_t ws_tinyvit_layer_costs(const ws_tinyvit_cfg *cfg, ws_tinyvit_layer_cost *out, size_t cap);

#endif
