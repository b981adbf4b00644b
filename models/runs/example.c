/* example.c - SAXPY, warp-shuffle reduction, tiled SGEMM and tensor-core
 * GEMM, each assembled from its embedded .wsa, run through the public device
 * API exactly as a user program would, and checked on the host.
 *
 * GEMM tolerance: the simulator accumulates each dot product in k order with
 * one rounding per FFMA; OpenBLAS uses its own order. Each result carries at
 * most K*u*sum_k|a_ik*b_kj| rounding error to first order (u = 2^-24, Higham,
 * "Accuracy and Stability of Numerical Algorithms", 2nd ed., sec. 3.1), so two
 * correct results differ by at most twice that; an output outside this bound
 * is wrong, not merely rounded differently. */
#include "models/runs/example.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "isa/asm.h"
#include "models/kgen/wsa.h"

const char *const ws_example_names[] = {"saxpy", "reduce", "sgemm", "mma", NULL};

#define UNIT_ROUNDOFF_F32 (1.0 / 16777216.0) /* 2^-24 */

typedef struct run_env {
  ws_device *dev;
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *kernel;
  ws_args args;
  uint64_t bufs[WS_EXAMPLE_MAX_BUFFERS];
  ws_runtime_region regions[WS_EXAMPLE_MAX_BUFFERS]; /* bufs, named as their params */
  unsigned nbufs;
} run_env;

ws_status ws_example_program(ws_ctx *ctx, const char *path, ws_program **out) {
  const ws_embedded_file *f = ws_wsa_find(path);
  if (!f) return ws_ctx_fail(ctx, WS_ERR_INVALID, "no embedded kernel '%s'", path);
  return ws_asm_parse(ctx, f->text, f->size_bytes, path, out);
}

ws_example_shape ws_example_default_shape(const char *name) {
  ws_example_shape s = {256, 256, 256, 1};
  if (strcmp(name, "saxpy") == 0) s.n = 1u << 16;
  if (strcmp(name, "reduce") == 0) s.n = 100000;
  if (strcmp(name, "mma") == 0) s.m = s.n = s.k = 128;
  return s;
}

/* splitmix64: a seeded, platform-independent generator for test inputs. */
static uint64_t rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1) on a 2^-23 grid, so every value is exact in fp32. */
static void fill_uniform(float *v, size_t count, uint64_t *state) {
  for (size_t i = 0; i < count; i++)
    v[i] = (float)((double)(rng_next(state) >> 40) * (1.0 / 8388608.0) - 1.0);
}

static ws_status env_open(run_env *env, ws_device *dev, const char *path) {
  memset(env, 0, sizeof *env);
  env->dev = dev;
  env->ctx = ws_device_ctx(dev);
  ws_status st = ws_example_program(env->ctx, path, &env->prog);
  if (st != WS_OK) return st;
  env->kernel = &env->prog->kernels[0];
  ws_args_init(&env->args, env->kernel);
  return WS_OK;
}

static void env_close(run_env *env) {
  for (unsigned i = 0; i < env->nbufs; i++) ws_device_free(env->dev, env->bufs[i]);
  ws_program_destroy(env->prog);
}

/* Allocates a device buffer, uploads `src` (or zeros when NULL) and binds it
 * to param `name`. */
static ws_status env_buffer(run_env *env, const char *name, const void *src, uint64_t size_bytes) {
  uint64_t dptr = 0;
  ws_status st = ws_device_malloc(env->dev, size_bytes, &dptr);
  if (st != WS_OK) return st;
  ws_runtime_region *g = &env->regions[env->nbufs];
  *g = (ws_runtime_region){.addr = dptr, .size_bytes = size_bytes, .tensor = WS_RUNTIME_TENSOR_OTHER};
  snprintf(g->name, sizeof g->name, "%s", name);
  env->bufs[env->nbufs++] = dptr;
  st = src ? ws_device_memcpy_htod(env->dev, dptr, src, size_bytes)
           : ws_device_memset(env->dev, dptr, 0, size_bytes);
  if (st != WS_OK) return st;
  return ws_args_set_ptr(env->ctx, &env->args, name, dptr);
}

static ws_status env_launch(run_env *env, ws_dim3 grid, ws_dim3 block, ws_example_check *check) {
  snprintf(check->launch, sizeof check->launch, "kernel %s, grid (%u,%u,%u), block (%u,%u,%u)",
           env->kernel->name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
  snprintf(check->kernel, sizeof check->kernel, "%s", env->kernel->name);
  check->grid = grid;
  check->block = block;
  memcpy(check->regions, env->regions, env->nbufs * sizeof *env->regions);
  check->nregions = env->nbufs;
  return ws_device_launch(env->dev, env->kernel, grid, block, 0, &env->args, &check->stats);
}

/* Compares outputs elementwise against ref within bound[i] (exact when
 * bound is NULL) and fills the check's error summary. */
static void compare(const float *got, const float *ref, const double *bound, uint64_t count,
                    ws_example_check *check) {
  check->nvalues = count;
  for (uint64_t i = 0; i < count; i++) {
    double err = fabs((double)got[i] - (double)ref[i]);
    if (isnan(got[i]) != isnan(ref[i])) err = INFINITY;
    double lim = bound ? bound[i] : 0.0;
    if (err > check->max_abs_err) check->max_abs_err = err;
    if (lim > 0 && err / lim > check->worst_ratio) check->worst_ratio = err / lim;
    if (err > lim) check->nbad++;
  }
  check->pass = check->nbad == 0;
}

static ws_status run_saxpy(ws_device *dev, const ws_example_shape *s, ws_example_check *check) {
  float *x = malloc(s->n * sizeof *x), *y = malloc(s->n * sizeof *y), *ref = malloc(s->n * sizeof *ref);
  run_env env;
  ws_status st = (x && y && ref) ? env_open(&env, dev, "models/runs/examples/saxpy.wsa") : WS_ERR_NOMEM;
  if (st == WS_ERR_NOMEM) ws_ctx_fail(ws_device_ctx(dev), st, "saxpy: out of host memory");
  if (st != WS_OK) goto out_free;
  for (uint32_t i = 0; i < s->n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
    ref[i] = 2.0f * (float)i + 1.0f; /* exact: i < 2^23 */
  }
  snprintf(check->title, sizeof check->title, "SAXPY n=%u: y = 2*x + y with x[i] = i, y[i] = 1", s->n);
  snprintf(check->reference, sizeof check->reference, "closed form y[i] = 2i + 1");
  snprintf(check->bound_desc, sizeof check->bound_desc, "exact (every value is an integer below 2^24)");
  if ((st = ws_args_set_u32(env.ctx, &env.args, "n", s->n)) == WS_OK &&
      (st = ws_args_set_f32(env.ctx, &env.args, "a", 2.0f)) == WS_OK &&
      (st = env_buffer(&env, "x", x, s->n * 4ull)) == WS_OK &&
      (st = env_buffer(&env, "y", y, s->n * 4ull)) == WS_OK) {
    ws_dim3 grid = {(s->n + 255) / 256, 1, 1}, block = {256, 1, 1};
    if ((st = env_launch(&env, grid, block, check)) == WS_OK &&
        (st = ws_device_memcpy_dtoh(dev, y, env.bufs[1], s->n * 4ull)) == WS_OK)
      compare(y, ref, NULL, s->n, check);
  }
  env_close(&env);
out_free:
  free(x);
  free(y);
  free(ref);
  return st;
}

static ws_status run_reduce(ws_device *dev, const ws_example_shape *s, ws_example_check *check) {
  float *x = malloc(s->n * sizeof *x);
  run_env env;
  ws_status st = x ? env_open(&env, dev, "models/runs/examples/reduce.wsa") : WS_ERR_NOMEM;
  if (st == WS_ERR_NOMEM) ws_ctx_fail(ws_device_ctx(dev), st, "reduce: out of host memory");
  if (st != WS_OK) goto out_free;
  for (uint32_t i = 0; i < s->n; i++) x[i] = (float)(i % 17);
  /* sum of i%17: q full cycles of 0+...+16 = 136, then 0+...+(r-1) */
  uint64_t q = s->n / 17, r = s->n % 17;
  float ref = (float)(q * 136 + r * (r - 1) / 2);
  snprintf(check->title, sizeof check->title, "warp-shuffle reduction of n=%u floats x[i] = i %% 17", s->n);
  snprintf(check->reference, sizeof check->reference, "closed form 136*(n/17) + r(r-1)/2, r = n %% 17");
  snprintf(check->bound_desc, sizeof check->bound_desc, "exact (all partial sums are integers below 2^24)");
  if ((st = ws_args_set_u32(env.ctx, &env.args, "n", s->n)) == WS_OK &&
      (st = env_buffer(&env, "x", x, s->n * 4ull)) == WS_OK &&
      (st = env_buffer(&env, "out", NULL, 4)) == WS_OK) {
    uint32_t blocks = (s->n + 255) / 256;
    ws_dim3 grid = {blocks < 24 ? blocks : 24, 1, 1}, block = {256, 1, 1};
    float got = 0;
    if ((st = env_launch(&env, grid, block, check)) == WS_OK &&
        (st = ws_device_memcpy_dtoh(dev, &got, env.bufs[1], 4)) == WS_OK)
      compare(&got, &ref, NULL, 1, check);
  }
  env_close(&env);
out_free:
  free(x);
  return st;
}

/* bound[i] = 2 K u sum_k |a_ik b_kj| (see the file header). */
static void gemm_bounds(const float *a, const float *b, uint32_t m, uint32_t n, uint32_t k, double *bound) {
  for (uint32_t i = 0; i < m; i++)
    for (uint32_t j = 0; j < n; j++) {
      double sum = 0;
      for (uint32_t t = 0; t < k; t++) sum += fabs((double)a[i * k + t] * (double)b[t * n + j]);
      bound[i * n + j] = 2.0 * k * UNIT_ROUNDOFF_F32 * sum;
    }
}

typedef struct gemm_host {
  float *a, *b, *c, *ref;
  double *bound;
} gemm_host;

static ws_status gemm_host_alloc(ws_ctx *ctx, gemm_host *h, const ws_example_shape *s) {
  size_t m = s->m, n = s->n, k = s->k;
  h->a = malloc(m * k * sizeof(float));
  h->b = malloc(k * n * sizeof(float));
  h->c = malloc(m * n * sizeof(float));
  h->ref = malloc(m * n * sizeof(float));
  h->bound = malloc(m * n * sizeof(double));
  if (h->a && h->b && h->c && h->ref && h->bound) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_NOMEM, "gemm %ux%ux%u: out of host memory", s->m, s->n, s->k);
}

static void gemm_host_free(gemm_host *h) {
  free(h->a);
  free(h->b);
  free(h->c);
  free(h->ref);
  free(h->bound);
}

/* Inputs, reference product (row-major C = A * B) and per-output bounds. */
static void gemm_reference(gemm_host *h, const ws_example_shape *s, bool round_f16) {
  uint64_t state = s->seed;
  fill_uniform(h->a, (size_t)s->m * s->k, &state);
  fill_uniform(h->b, (size_t)s->k * s->n, &state);
  if (round_f16) {
    for (size_t i = 0; i < (size_t)s->m * s->k; i++) h->a[i] = ws_f16_to_f32(ws_f16_from_f32(h->a[i]));
    for (size_t i = 0; i < (size_t)s->k * s->n; i++) h->b[i] = ws_f16_to_f32(ws_f16_from_f32(h->b[i]));
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->m, (int)s->n, (int)s->k, 1.0f, h->a,
              (int)s->k, h->b, (int)s->n, 0.0f, h->ref, (int)s->n);
  gemm_bounds(h->a, h->b, s->m, s->n, s->k, h->bound);
}

static ws_status gemm_dims(run_env *env, const ws_example_shape *s) {
  ws_status st = ws_args_set_u32(env->ctx, &env->args, "M", s->m);
  if (st == WS_OK) st = ws_args_set_u32(env->ctx, &env->args, "N", s->n);
  if (st == WS_OK) st = ws_args_set_u32(env->ctx, &env->args, "K", s->k);
  return st;
}

static ws_status check_gemm_shape(ws_ctx *ctx, const char *what, const ws_example_shape *s) {
  if (s->m == 0 || s->n == 0 || s->k == 0 || s->m > 4096 || s->n > 4096 || s->k > 4096)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: M, N and K must be 1..4096, got %ux%ux%u", what, s->m, s->n,
                       s->k);
  return WS_OK;
}

static void gemm_titles(ws_example_check *check, const char *kind, const ws_example_shape *s) {
  snprintf(check->title, sizeof check->title, "%s: C[%ux%u] = A[%ux%u] * B[%ux%u]", kind, s->m, s->n, s->m,
           s->k, s->k, s->n);
  snprintf(check->reference, sizeof check->reference,
           "OpenBLAS cblas_sgemm on the same inputs (uniform in [-1,1), seed %llu)",
           (unsigned long long)s->seed);
  snprintf(check->bound_desc, sizeof check->bound_desc,
           "|sim - blas| <= 2*K*2^-24*sum_k|a_ik*b_kj| per output");
}

/* What differs between the two GEMM examples. */
typedef struct gemm_spec {
  const char *path;
  const char *title;
  bool f16_inputs; /* A f16 row-major, B f16 column-major; else both f32 row-major */
  ws_dim3 grid, block;
} gemm_spec;

/* The tensor-core kernel takes A as f16 row-major and B as f16 column-major. */
static ws_status upload_f16_operands(run_env *env, const gemm_host *h, const ws_example_shape *s) {
  size_t mk = (size_t)s->m * s->k, nk = (size_t)s->n * s->k;
  uint16_t *a16 = malloc(mk * 2), *bt16 = malloc(nk * 2);
  ws_status st = WS_OK;
  if (!a16 || !bt16) st = ws_ctx_fail(env->ctx, WS_ERR_NOMEM, "mma: out of host memory");
  if (st == WS_OK) {
    for (size_t i = 0; i < mk; i++) a16[i] = ws_f16_from_f32(h->a[i]);
    for (size_t t = 0; t < s->k; t++)
      for (size_t j = 0; j < s->n; j++) bt16[j * s->k + t] = ws_f16_from_f32(h->b[t * s->n + j]);
    st = env_buffer(env, "A", a16, mk * 2);
  }
  if (st == WS_OK) st = env_buffer(env, "Bt", bt16, nk * 2);
  free(a16);
  free(bt16);
  return st;
}

static ws_status upload_operands(run_env *env, const gemm_spec *spec, const gemm_host *h,
                                 const ws_example_shape *s) {
  if (spec->f16_inputs) return upload_f16_operands(env, h, s);
  ws_status st = env_buffer(env, "A", h->a, (uint64_t)s->m * s->k * 4);
  return st == WS_OK ? env_buffer(env, "B", h->b, (uint64_t)s->k * s->n * 4) : st;
}

static ws_status run_gemm(ws_device *dev, const gemm_spec *spec, const ws_example_shape *s,
                          ws_example_check *check) {
  gemm_host h = {0};
  run_env env;
  ws_status st = gemm_host_alloc(ws_device_ctx(dev), &h, s);
  if (st == WS_OK) st = env_open(&env, dev, spec->path);
  if (st != WS_OK) {
    gemm_host_free(&h);
    return st;
  }
  gemm_reference(&h, s, spec->f16_inputs);
  gemm_titles(check, spec->title, s);
  if (spec->f16_inputs)
    snprintf(check->reference, sizeof check->reference,
             "OpenBLAS cblas_sgemm on the f16-rounded inputs (seed %llu)", (unsigned long long)s->seed);
  size_t c_bytes = (size_t)s->m * s->n * 4;
  if ((st = gemm_dims(&env, s)) == WS_OK && (st = upload_operands(&env, spec, &h, s)) == WS_OK &&
      (st = env_buffer(&env, "C", NULL, c_bytes)) == WS_OK &&
      (st = env_launch(&env, spec->grid, spec->block, check)) == WS_OK &&
      (st = ws_device_memcpy_dtoh(dev, h.c, env.bufs[2], c_bytes)) == WS_OK)
    compare(h.c, h.ref, h.bound, (uint64_t)s->m * s->n, check);
  env_close(&env);
  gemm_host_free(&h);
  return st;
}

static ws_status run_sgemm(ws_device *dev, const ws_example_shape *s, ws_example_check *check) {
  gemm_spec spec = {"models/runs/examples/sgemm.wsa",
                    "SGEMM, shared-memory tiled 16x16",
                    false,
                    {(s->n + 15) / 16, (s->m + 15) / 16, 1},
                    {16, 16, 1}};
  return run_gemm(dev, &spec, s, check);
}

static ws_status run_mma(ws_device *dev, const ws_example_shape *s, ws_example_check *check) {
  gemm_spec spec = {"models/runs/examples/mma_gemm.wsa",
                    "GEMM on the tensor core (HMMA m16n8k16, f16 in, f32 accumulate)",
                    true,
                    {s->n / 8, s->m / 16, 1},
                    {32, 1, 1}};
  return run_gemm(dev, &spec, s, check);
}

static bool is_gemm(const char *name) { return strcmp(name, "sgemm") == 0 || strcmp(name, "mma") == 0; }

ws_status ws_example_check_shape(ws_ctx *ctx, const char *name, const ws_example_shape *s) {
  if (strcmp(name, "saxpy") == 0 && (s->n == 0 || s->n > (1u << 23)))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "saxpy: n must be 1..8388608 so 2*i+1 stays exact in fp32, got %u", s->n);
  if (strcmp(name, "reduce") == 0 && (s->n == 0 || s->n > 1000000))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "reduce: n must be 1..1000000 so every partial sum is exact, got %u", s->n);
  if (is_gemm(name)) {
    ws_status st = check_gemm_shape(ctx, name, s);
    if (st != WS_OK) return st;
  }
  if (strcmp(name, "mma") == 0 && (s->m % 16 || s->n % 8 || s->k % 16))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "mma: the m16n8k16 kernel needs M %% 16 == 0, N %% 8 == 0, K %% 16 == 0, got %ux%ux%u",
                       s->m, s->n, s->k);
  return WS_OK;
}

bool ws_example_uses_mk(const char *name) { return is_gemm(name); }

ws_status ws_example_run(ws_device *dev, const char *name, const ws_example_shape *shape,
                         ws_example_check *check) {
  memset(check, 0, sizeof *check);
  ws_status st = ws_example_check_shape(ws_device_ctx(dev), name, shape);
  if (st != WS_OK) return st;
  if (strcmp(name, "saxpy") == 0) return run_saxpy(dev, shape, check);
  if (strcmp(name, "reduce") == 0) return run_reduce(dev, shape, check);
  if (strcmp(name, "sgemm") == 0) return run_sgemm(dev, shape, check);
  if (strcmp(name, "mma") == 0) return run_mma(dev, shape, check);
  return ws_ctx_fail(ws_device_ctx(dev), WS_ERR_INVALID,
                     "unknown example '%s' (expected saxpy, reduce, sgemm or mma)", name);
}
