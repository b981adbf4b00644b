/* cublas_check.c - warpscope-cublas-check: TinyViT32's five GEMMs computed
 * three ways, on the simulated GPU (the generated kernel), with cuBLAS on a
 * real NVIDIA GPU and with OpenBLAS on the host, each compared with the
 * others within the fp32 accumulation bound.
 *
 * Design: the GEMMs take the reference forward pass's activations as
 * inputs (models/vit/tinyvit.h), so each product is checked on its own and an
 * error cannot hide behind an earlier layer's. Built only when CMake finds
 * the CUDA toolkit; without a usable GPU it exits 77, which CTest reports
 * as skipped. cuBLAS runs in its default math mode, never TF32, so it is an
 * fp32 product like the others. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/formats/image.h"
#include "models/kgen/gemmgen.h"
#include "models/vit/tinyvit.h"

#define EXIT_SKIP 77

typedef struct product {
  const char *layer;
  uint32_t m, n, k;
  const float *a; /* [m, k] activations */
  float *bt;      /* [k, n] the weight, transposed */
} product;

static int skip_without_gpu(void) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr, "warpscope-cublas-check: skipped: no usable CUDA GPU (%s)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
    return 1;
  }
  return 0;
}

/* C[m, n] = A[m, k] B[k, n], row-major, with cuBLAS: column-major C^T = B^T A^T. */
static int cublas_product(cublasHandle_t h, const product *p, float *c) {
  size_t an = (size_t)p->m * p->k, bn = (size_t)p->k * p->n, cn = (size_t)p->m * p->n;
  float *da = NULL, *db = NULL, *dc = NULL;
  const float one = 1.0f, zero = 0.0f;
  int ok = cudaMalloc((void **)&da, an * 4) == cudaSuccess &&
           cudaMalloc((void **)&db, bn * 4) == cudaSuccess &&
           cudaMalloc((void **)&dc, cn * 4) == cudaSuccess &&
           cudaMemcpy(da, p->a, an * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpy(db, p->bt, bn * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
           cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)p->n, (int)p->m, (int)p->k, &one, db, (int)p->n, da,
                       (int)p->k, &zero, dc, (int)p->n) == CUBLAS_STATUS_SUCCESS &&
           cudaMemcpy(c, dc, cn * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return ok;
}

static ws_status sim_product(ws_device *dev, const ws_gemmgen_cfg *g, const product *p, float *c) {
  size_t an = (size_t)p->m * p->k, bn = (size_t)p->k * p->n, cn = (size_t)p->m * p->n;
  ws_gemmgen_problem q = {p->m, p->n, p->k, 0, 0, 0, 0, 0};
  ws_status st = ws_device_malloc(dev, an * 4, &q.a);
  if (st == WS_OK) st = ws_device_malloc(dev, bn * 4, &q.b);
  if (st == WS_OK) st = ws_device_malloc(dev, cn * 4, &q.c);
  if (st == WS_OK) st = ws_device_memcpy_htod(dev, q.a, p->a, an * 4);
  if (st == WS_OK) st = ws_device_memcpy_htod(dev, q.b, p->bt, bn * 4);
  if (st == WS_OK) st = ws_gemmgen_run(dev, g, &q, NULL);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(dev, c, q.c, cn * 4);
  return st;
}

static float *transposed(const ws_tinyvit_tensor *t) {
  uint32_t rows = t->shape[0], cols = t->shape[1];
  float *out = malloc((size_t)rows * cols * sizeof *out);
  for (uint32_t r = 0; out && r < rows; r++)
    for (uint32_t c = 0; c < cols; c++) out[(size_t)c * rows + r] = t->data[(size_t)r * cols + c];
  return out;
}

/* Worst |x - y| / bound over the outputs. */
static double worst_ratio(const float *x, const float *y, const double *bound, size_t n) {
  double w = 0;
  for (size_t i = 0; i < n; i++) {
    double r = fabs((double)x[i] - y[i]) / bound[i];
    if (!(r <= w)) w = r;
  }
  return w;
}

static int check_product(ws_ctx *ctx, ws_device *dev, cublasHandle_t h, const ws_gemmgen_cfg *g,
                         const product *p) {
  size_t cn = (size_t)p->m * p->n;
  float *sim = malloc(cn * 4), *cub = malloc(cn * 4), *ref = malloc(cn * 4);
  double *bound = malloc(cn * sizeof *bound);
  int pass = 0;
  if (sim && cub && ref && bound && sim_product(dev, g, p, sim) == WS_OK &&
      ws_gemmgen_reference(ctx, g, p->m, p->n, p->k, p->a, p->bt, NULL, NULL, ref, bound) == WS_OK &&
      cublas_product(h, p, cub)) {
    /* two correct fp32 products can each be a bound away from exact */
    for (size_t i = 0; i < cn; i++) bound[i] *= 2;
    double sc = worst_ratio(sim, cub, bound, cn), so = worst_ratio(sim, ref, bound, cn);
    double co = worst_ratio(cub, ref, bound, cn);
    pass = sc <= 1 && so <= 1 && co <= 1;
    printf("%-14s M=%-4u N=%-4u K=%-4u  worst error/bound: sim-cuBLAS %.3g  sim-OpenBLAS %.3g  "
           "cuBLAS-OpenBLAS %.3g  %s\n",
           p->layer, p->m, p->n, p->k, sc, so, co, pass ? "ok" : "FAIL");
  } else {
    fprintf(stderr, "warpscope-cublas-check: %s: %s\n", p->layer,
            ws_errmsg(ctx)[0] ? ws_errmsg(ctx) : "a CUDA call failed");
  }
  free(sim);
  free(cub);
  free(ref);
  free(bound);
  return pass;
}

static int run_checks(ws_ctx *ctx, ws_device *dev, cublasHandle_t h, const ws_tinyvit_weights *w,
                      const ws_tinyvit_acts *acts) {
  const ws_tinyvit_cfg c = ws_tinyvit_weights_cfg(w);
  const ws_tinyvit_block_acts *b = &acts->blocks[0];
  product ps[] = {{"patch_embed", 64, c.dim, WS_TINYVIT_PATCH_DIM, acts->patches, NULL},
                  {"blocks.0.qkv", 64, 3 * c.dim, c.dim, acts->x0, NULL},
                  {"blocks.0.proj", 64, c.dim, c.dim, b->att, NULL},
                  {"blocks.0.fc1", 64, 2 * c.dim, c.dim, b->x1, NULL},
                  {"blocks.0.fc2", 64, c.dim, 2 * c.dim, b->h, NULL}};
  const char *names[] = {"patch_embed.weight", "blocks.0.attn.qkv.weight", "blocks.0.attn.proj.weight",
                         "blocks.0.mlp.fc1.weight", "blocks.0.mlp.fc2.weight"};
  ws_gemmgen_cfg g = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  int failures = 0;
  for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
    ps[i].bt = transposed(ws_tinyvit_weights_find(w, names[i]));
    failures += !ps[i].bt || !check_product(ctx, dev, h, &g, &ps[i]);
    free(ps[i].bt);
  }
  return failures;
}

int main(void) {
  if (skip_without_gpu()) return EXIT_SKIP;
  ws_ctx *ctx = ws_ctx_create();
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  ws_gpu_cfg cfg = ws_config_default();
  ws_tinyvit_weights *w = NULL;
  ws_tinyvit_acts *acts = NULL;
  ws_image *img = NULL;
  ws_device *dev = NULL;
  float image[WS_TINYVIT_IMAGE_FLOATS];
  cublasHandle_t h = NULL;
  int failures = 1;
  if (ws_tinyvit_weights_create(ctx, &mc, &w) == WS_OK && ws_tinyvit_acts_create(ctx, &mc, &acts) == WS_OK &&
      ws_image_sample(ctx, "checker", &img) == WS_OK && ws_image_to_input(ctx, img, image) == WS_OK &&
      ws_device_create(ctx, &cfg, &dev) == WS_OK && cublasCreate(&h) == CUBLAS_STATUS_SUCCESS &&
      cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS) {
    ws_tinyvit_weights_init_seeded(w, 1);
    ws_device_set_mode(dev, WS_MODE_FUNCTIONAL);
    if (ws_tinyvit_forward(ctx, w, image, acts) == WS_OK) failures = run_checks(ctx, dev, h, w, acts);
  }
  if (failures)
    fprintf(stderr, "warpscope-cublas-check: %d product(s) failed%s%s\n", failures,
            ws_errmsg(ctx)[0] ? ": " : "", ws_errmsg(ctx));
  else
    printf("warpscope-cublas-check: the simulator, cuBLAS and OpenBLAS agree on all five GEMMs\n");
  if (h) cublasDestroy(h);
  ws_device_destroy(dev);
  ws_image_destroy(img);
  ws_tinyvit_acts_destroy(acts);
  ws_tinyvit_weights_destroy(w);
  ws_ctx_destroy(ctx);
  return failures ? 1 : 0;
}
