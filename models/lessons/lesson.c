/* lesson.c - the lessons (see lesson.h): their texts and their runs.
 *
 * Design: each run uses the public device API and the models' helpers, the
 * same calls a user's program would make, and derives every expected value
 * from the preset and the kernel's definition, never from the simulator's
 * answer. */
#include "models/lessons/lesson.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/formats/image.h"
#include "models/kgen/attngen.h"
#include "models/kgen/gemmgen.h"
#include "models/kgen/nngen.h"
#include "models/runs/example.h"
#include "models/runs/microbench.h"
#include "models/runs/persistent.h"
#include "models/vit/vitrun.h"

/* ---- figures -------------------------------------------------------------------------- */

static ws_lesson_figure *add(ws_lesson_result *r, const char *label, double value) {
  if (r->nfigs == WS_LESSON_MAX_FIGURES) return NULL;
  ws_lesson_figure *f = &r->figs[r->nfigs++];
  memset(f, 0, sizeof *f);
  snprintf(f->label, sizeof f->label, "%s", label);
  f->value = value;
  return f;
}

/* A figure with its expected value and the reasoning, printf-style. */
static void expect(ws_lesson_result *r, const char *label, double value, double expected, const char *why,
                   ...) {
  ws_lesson_figure *f = add(r, label, value);
  if (!f) return;
  f->has_expected = true;
  f->expected = expected;
  va_list ap;
  va_start(ap, why);
  vsnprintf(f->why, sizeof f->why, why, ap);
  va_end(ap);
}

static void show(ws_lesson_result *r, const char *label, double value, const char *what) {
  ws_lesson_figure *f = add(r, label, value);
  if (f) snprintf(f->why, sizeof f->why, "%s", what);
}

bool ws_lesson_figure_agrees(const ws_lesson_figure *f, double tol) {
  if (!f->has_expected) return true;
  double scale = fabs(f->expected) > 1 ? fabs(f->expected) : 1;
  return fabs(f->value - f->expected) <= tol * scale;
}

static uint64_t sum(ws_device *dev, const char *pattern) {
  return ws_stats_sum(ws_device_stats(dev), pattern);
}

/* ---- threads: the hierarchy with SAXPY (seed 002) ---------------------------------- */

#define SAXPY_N 1000u
#define SAXPY_BLOCK 256u
#define SAXPY_INSNS 17u  /* saxpy.wsa, top to bottom */
#define SAXPY_EXIT_AT 7u /* instructions up to and including @P0 EXIT */

static ws_status run_threads(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  ws_example_shape shape = {0, SAXPY_N, 0, 1};
  ws_example_check check;
  ws_status st = ws_example_run(lc->dev, "saxpy", &shape, &check);
  if (st != WS_OK) return st;
  if (!check.pass) return ws_ctx_fail(lc->ctx, WS_ERR_INVALID, "saxpy: the result is wrong");
  const ws_gpu_cfg *cfg = ws_device_cfg(lc->dev);
  uint64_t ctas = (SAXPY_N + SAXPY_BLOCK - 1) / SAXPY_BLOCK, warps = ctas * SAXPY_BLOCK / 32;
  uint64_t idle = ctas * SAXPY_BLOCK - SAXPY_N, burst = cfg->hbm.burst_bytes;
  uint64_t bytes = (SAXPY_N * 4ull + burst - 1) / burst * burst;
  const ws_launch_stats *ls = &check.stats;
  expect(r, "CTAs (thread blocks)", (double)ls->ctas, (double)ctas, "ceil(n / block) = ceil(%u / %u)",
         SAXPY_N, SAXPY_BLOCK);
  expect(r, "warp instructions", (double)ls->warp_insns, (double)(warps * SAXPY_INSNS),
         "%llu warps x %u instructions: a warp issues each instruction once for its 32 lanes",
         (unsigned long long)warps, SAXPY_INSNS);
  expect(r, "thread instructions", (double)ls->thread_insns,
         (double)(SAXPY_N * (SAXPY_INSNS - 1) + idle * SAXPY_EXIT_AT),
         "%u threads x %u (the EXIT they skip does not count) + %llu idle threads x %u", SAXPY_N,
         SAXPY_INSNS - 1, (unsigned long long)idle, SAXPY_EXIT_AT);
  expect(r, "fp32 FLOPs", (double)sum(lc->dev, "sm*.flops.fp32"), 2.0 * SAXPY_N,
         "one FFMA (2 FLOPs) per element");
  expect(r, "DRAM bytes read", (double)sum(lc->dev, "hbm.ch*.bytes_read"), 2.0 * (double)bytes,
         "x and y, %u floats each, in whole %llu-byte bursts", SAXPY_N, (unsigned long long)burst);
  show(r, "cycles", (double)ls->cycles, "the timing model's: mostly one DRAM round trip");
  return WS_OK;
}

/* ---- coalescing ------------------------------------------------------------------------ */

static ws_status run_coalescing(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  enum { NROWS = 32 };
  static const uint32_t shown[] = {1, 2, 4, 8, 32};
  ws_microbench_coalesce_row rows[NROWS];
  ws_status st = ws_microbench_coalescing_run(lc->dev, NROWS, rows);
  for (size_t i = 0; i < sizeof shown / sizeof *shown && st == WS_OK; i++) {
    const ws_microbench_coalesce_row *w = &rows[shown[i] - 1];
    /* the microbenchmark's own prediction: distinct sectors and lines of the 32 addresses */
    uint32_t s = w->stride, sectors = w->predicted_sectors, lines = w->predicted_lines;
    char label[WS_LESSON_LABEL_BYTES];
    snprintf(label, sizeof label, "stride %2u: 32-byte sectors per warp load", s);
    expect(r, label, (double)w->sectors, sectors,
           "32 lanes x 4 B spread over %u x 128 B = %u sectors of 32 B", s, sectors);
    snprintf(label, sizeof label, "stride %2u: 128-byte lines per warp load", s);
    expect(r, label, (double)w->lines, lines, "the 32 addresses span %u lines", lines);
  }
  if (st == WS_OK) {
    const ws_microbench_coalesce_row *w = &rows[NROWS - 1];
    expect(r, "stride 32: useful bytes per byte fetched", 128.0 / (32.0 * (double)w->sectors), 128.0 / 1024.0,
           "128 useful bytes in 32 sectors of 32 B");
  }
  return st;
}

/* ---- shared-memory bank conflicts ------------------------------------------------------ */

static ws_status run_banks(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  enum { NROWS = 32 };
  static const uint32_t shown[] = {1, 2, 3, 4, 8, 16, 32};
  ws_microbench_bank_row rows[NROWS];
  ws_status st = ws_microbench_smem_banks_run(lc->dev, NROWS, rows);
  uint32_t banks = ws_device_cfg(lc->dev)->smem.banks;
  for (size_t i = 0; i < sizeof shown / sizeof *shown && st == WS_OK; i++) {
    const ws_microbench_bank_row *w = &rows[shown[i] - 1];
    char label[WS_LESSON_LABEL_BYTES];
    snprintf(label, sizeof label, "stride %2u words: wavefronts per access", w->stride);
    uint32_t degree = w->predicted_degree; /* gcd(stride, banks), the microbenchmark's prediction */
    expect(r, label, w->wavefronts_per_access, degree,
           "gcd(%u, %u banks) = %u lanes share each bank used: the access takes %u wavefronts", w->stride,
           banks, degree, degree);
    snprintf(label, sizeof label, "stride %2u words: cycles per access, relative", w->stride);
    show(r, label, w->relative, "measured in steady state, against stride 1");
  }
  return st;
}

/* ---- occupancy: latency hidden by resident warps ---------------------------------------- */

#define OCC_THREADS 64u /* two warps a CTA: few in flight unless many CTAs are resident */

/* Dynamic shared memory that leaves room for `ctas` CTAs of the copy per SM. */
static uint32_t smem_for(const ws_gpu_cfg *cfg, uint32_t ctas) {
  uint32_t unit = cfg->smem.alloc_unit_bytes ? cfg->smem.alloc_unit_bytes : 1;
  uint32_t per = cfg->smem.per_sm_bytes / ctas / unit * unit;
  uint32_t dyn = per > cfg->smem.reserved_per_block_bytes ? per - cfg->smem.reserved_per_block_bytes : 0;
  return dyn < cfg->smem.max_per_block_bytes ? dyn : cfg->smem.max_per_block_bytes;
}

typedef struct copy_kernel {
  ws_nngen_kernel k;
  uint64_t src, dst, bytes;
} copy_kernel;

static ws_status copy_open(const ws_lesson_ctx *lc, copy_kernel *c, uint64_t bytes) {
  char *src = NULL;
  memset(c, 0, sizeof *c);
  c->bytes = bytes;
  ws_status st = ws_nngen_fixed_source(lc->ctx, "models/runs/microbench/stream.wsa", &src);
  if (st == WS_OK) st = ws_nngen_kernel_build(lc->ctx, src, "stream.wsa", &c->k);
  free(src);
  if (st == WS_OK) st = ws_device_malloc(lc->dev, bytes, &c->src);
  if (st == WS_OK) st = ws_device_malloc(lc->dev, bytes, &c->dst);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(lc->ctx, &c->k, "src", c->src);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(lc->ctx, &c->k, "dst", c->dst);
  if (st == WS_OK) st = ws_nngen_kernel_u32(lc->ctx, &c->k, "n16", (uint32_t)(bytes / 16));
  if (st == WS_OK) st = ws_nngen_kernel_u32(lc->ctx, &c->k, "passes", 1);
  return st;
}

static void copy_close(const ws_lesson_ctx *lc, copy_kernel *c) {
  if (c->src) ws_device_free(lc->dev, c->src);
  if (c->dst) ws_device_free(lc->dev, c->dst);
  ws_nngen_kernel_release(&c->k);
}

static ws_status occupancy_point(const ws_lesson_ctx *lc, copy_kernel *c, uint32_t ctas,
                                 ws_lesson_result *r) {
  const ws_gpu_cfg *cfg = ws_device_cfg(lc->dev);
  uint32_t dyn = smem_for(cfg, ctas), wpc = OCC_THREADS / 32, unit = cfg->smem.alloc_unit_bytes;
  uint32_t per_cta = (dyn + cfg->smem.reserved_per_block_bytes + unit - 1) / unit * unit;
  uint32_t resident = cfg->smem.per_sm_bytes / per_cta, by_warps = cfg->sm.max_warps_per_sm / wpc;
  if (resident > by_warps) resident = by_warps;
  if (resident > cfg->sm.max_ctas_per_sm) resident = cfg->sm.max_ctas_per_sm;
  ws_dim3 grid = {cfg->gpu.num_sms * resident, 1, 1}, block = {OCC_THREADS, 1, 1};
  ws_launch_stats ls;
  ws_status st = ws_device_launch(lc->dev, c->k.kernel, grid, block, dyn, &c->k.args, &ls);
  if (st != WS_OK) return st;
  char label[WS_LESSON_LABEL_BYTES];
  snprintf(label, sizeof label, "%5u B shared per CTA: resident warps per SM", dyn);
  expect(r, label, ls.occupancy.active_warps_per_sm, resident * wpc,
         "floor(%u B per SM / (%u + %u reserved, rounded)) = %u CTAs x %u warps", cfg->smem.per_sm_bytes, dyn,
         cfg->smem.reserved_per_block_bytes, resident, wpc);
  snprintf(label, sizeof label, "%5u B shared per CTA: theoretical occupancy", dyn);
  expect(r, label, ls.occupancy.occupancy, (double)(resident * wpc) / cfg->sm.max_warps_per_sm,
         "%u resident warps of %u", resident * wpc, cfg->sm.max_warps_per_sm);
  double gbps = (double)c->bytes * 2 / (double)ls.cycles * cfg->gpu.core_clock_mhz / 1e3;
  snprintf(label, sizeof label, "%5u B shared per CTA: copy bandwidth, GB/s", dyn);
  show(r, label, gbps, "bytes read and written over the kernel's time");
  return WS_OK;
}

static ws_status run_occupancy(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  static const uint32_t ctas[] = {1, 2, 4, 8, 16};
  const ws_gpu_cfg *cfg = ws_device_cfg(lc->dev);
  copy_kernel c;
  ws_status st = copy_open(lc, &c, 2 * cfg->geom.l2_bytes);
  for (size_t i = 0; i < sizeof ctas / sizeof *ctas && st == WS_OK; i++)
    st = occupancy_point(lc, &c, ctas[i], r);
  copy_close(lc, &c);
  return st;
}

/* ---- pipelining: copies under compute (seeds 001 and 003) ------------------------------- */

#define PIPE_IMAGES 4u

typedef struct pipe_env {
  ws_tinyvit_weights *w;
  float *images;
} pipe_env;

static ws_status pipe_open(const ws_lesson_ctx *lc, pipe_env *e) {
  memset(e, 0, sizeof *e);
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  ws_status st = ws_tinyvit_weights_create(lc->ctx, &mc, &e->w);
  if (st != WS_OK) return st;
  ws_tinyvit_weights_init_seeded(e->w, 1);
  e->images = calloc((size_t)PIPE_IMAGES * WS_TINYVIT_IMAGE_FLOATS, sizeof *e->images);
  if (!e->images) return ws_ctx_fail(lc->ctx, WS_ERR_NOMEM, "out of host memory for the images");
  const char *const *names = ws_image_sample_names();
  for (uint32_t i = 0; i < PIPE_IMAGES && st == WS_OK; i++) {
    ws_image *img = NULL;
    st = ws_image_sample(lc->ctx, names[i % 4], &img);
    if (st == WS_OK) st = ws_image_to_input(lc->ctx, img, e->images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS);
    ws_image_destroy(img);
  }
  return st;
}

static void pipe_close(pipe_env *e) {
  ws_tinyvit_weights_destroy(e->w);
  free(e->images);
}

/* The makespan of one run, and the durations of its copies and kernels. */
typedef struct pipe_times {
  uint64_t span, kernels, h2d, d2h, first_h2d, last_d2h;
} pipe_times;

/* Only this run's records: the runtime may hold an earlier run's, and this
 * run's weights go up before its first image. */
static void times_of(const ws_runtime *rt, const ws_vitrun_result *res, pipe_times *t) {
  size_t n;
  const ws_runtime_record *recs = ws_runtime_timeline(rt, &n);
  memset(t, 0, sizeof *t);
  t->span = res->end_ns - res->image_start_ns;
  size_t last = res->passes[0].prob_record;
  for (uint32_t p = 0; p < res->npasses; p++)
    if (res->passes[p].prob_record > last) last = res->passes[p].prob_record;
  for (size_t i = res->passes[0].image_record; i <= last && i < n; i++) {
    uint64_t d = recs[i].end_ns - recs[i].start_ns;
    if (recs[i].kind == WS_RUNTIME_OP_KERNEL) t->kernels += d;
    if (recs[i].kind == WS_RUNTIME_OP_H2D && strcmp(recs[i].name, "weights") != 0) t->h2d += d;
    if (recs[i].kind == WS_RUNTIME_OP_D2H) t->d2h += d;
  }
  const ws_runtime_record *a = &recs[res->passes[0].image_record],
                          *b = &recs[res->passes[res->npasses - 1].prob_record];
  t->first_h2d = a->end_ns - a->start_ns;
  t->last_d2h = b->end_ns - b->start_ns;
}

static ws_status pipe_run(const ws_lesson_ctx *lc, const pipe_env *e, uint32_t streams, pipe_times *t) {
  ws_vitrun_result res;
  memset(&res, 0, sizeof res);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.batch = PIPE_IMAGES;
  c.micro_batch = 1;
  c.streams = streams;
  ws_status st = ws_vitrun_run(lc->rt, e->w, e->images, &c, &res);
  if (st == WS_OK && !res.pass)
    st = ws_ctx_fail(lc->ctx, WS_ERR_INVALID, "TinyViT32: a layer failed its check");
  if (st == WS_OK) times_of(lc->rt, &res, t);
  ws_vitrun_result_free(&res);
  return st;
}

static ws_status run_pipelining(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  pipe_env e;
  pipe_times one, two;
  ws_status st = pipe_open(lc, &e);
  if (st == WS_OK) st = pipe_run(lc, &e, 1, &one);
  if (st == WS_OK) st = pipe_run(lc, &e, 2, &two);
  pipe_close(&e);
  if (st != WS_OK) return st;
  expect(r, "one stream: makespan, us", one.span / 1e3, (one.h2d + one.kernels + one.d2h) / 1e3,
         "every image's copy in, kernels and copy out, end to end");
  expect(r, "two streams: makespan, us", two.span / 1e3, (two.first_h2d + two.kernels + two.last_d2h) / 1e3,
         "the first copy in, then kernels back to back, then the last copy out");
  double hidden = (double)(one.h2d - two.first_h2d + one.d2h - two.last_d2h);
  expect(r, "time saved, us", ((double)one.span - (double)two.span) / 1e3,
         (hidden + (double)one.kernels - (double)two.kernels) / 1e3,
         "the %u copies that ran under kernels, plus the kernels' own difference", 2 * (PIPE_IMAGES - 1));
  show(r, "one stream: images/s", PIPE_IMAGES / (one.span * 1e-9), "4 images over the makespan");
  show(r, "two streams: images/s", PIPE_IMAGES / (two.span * 1e-9), "4 images over the makespan");
  return WS_OK;
}

/* ---- the GEMM ladder --------------------------------------------------------------------- */

#define LADDER_N 128u

/* The ladder's steps with tiles sized for a 128 x 128 product on the
 * classroom GPU (the generator's 128 x 128 defaults would make one CTA),
 * and the cause of each step's gain. */
static const struct {
  ws_gemmgen_variant v;
  uint32_t bm, bn, bk, tm, tn, wm, wn; /* 0: the generator's default */
  const char *cause;
} ladder[] = {
    {WS_GEMMGEN_NAIVE, 0, 0, 0, 0, 0, 0, 0, "a warp's A load touches 32 rows: 32 sectors for 32 floats"},
    {WS_GEMMGEN_COALESCED, 0, 0, 0, 0, 0, 0, 0, "lanes on consecutive columns: B in 4 sectors, A broadcast"},
    {WS_GEMMGEN_SMEM, 0, 0, 0, 0, 0, 0, 0, "tiles in shared memory: each global float loaded once per tile"},
    {WS_GEMMGEN_BLOCKTILE1D, 64, 64, 8, 8, 1, 0, 0, "8 outputs a thread: a shared B value serves 8 FFMAs"},
    {WS_GEMMGEN_BLOCKTILE2D, 64, 64, 16, 4, 4, 0, 0, "a 4 x 4 block a thread: 8 shared loads feed 16 FFMAs"},
    {WS_GEMMGEN_VECTORIZED, 64, 64, 16, 4, 4, 0, 0, "128-bit loads: a quarter of the load instructions"},
    {WS_GEMMGEN_WARPTILE, 64, 64, 16, 4, 4, 32, 32,
     "warp tiles: lanes read adjacent chunks, no bank conflicts"},
    {WS_GEMMGEN_ASYNC, 64, 64, 16, 4, 4, 32, 32,
     "LDGSTS into two stages: the next tile loads under the FFMAs"},
    {WS_GEMMGEN_MMA, 0, 0, 0, 0, 0, 0, 0, "tensor cores: one HMMA is 4096 FLOPs"},
};

static ws_gemmgen_cfg ladder_cfg(size_t i) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(ladder[i].v);
  if (ladder[i].bm) {
    c.bm = ladder[i].bm, c.bn = ladder[i].bn, c.bk = ladder[i].bk, c.tm = ladder[i].tm, c.tn = ladder[i].tn;
    if (ladder[i].wm) c.wm = ladder[i].wm, c.wn = ladder[i].wn;
    c.threads = ws_gemmgen_implied_threads(&c);
  }
  return c;
}

typedef struct gemm_bufs {
  float *a, *b, *c, *ref;
  double *bound;
  uint64_t da, db, dc;
} gemm_bufs;

static float *random_floats(size_t n, uint64_t seed) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; v && i < n; i++) { /* splitmix64: uniform in [-1, 1) */
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    v[i] = (float)((double)((z ^ (z >> 31)) >> 40) / 8388608.0 - 1.0);
  }
  return v;
}

static ws_status gemm_open(const ws_lesson_ctx *lc, gemm_bufs *g) {
  size_t n = (size_t)LADDER_N * LADDER_N;
  memset(g, 0, sizeof *g);
  g->a = random_floats(n, 1), g->b = random_floats(n, 2);
  g->c = malloc(n * sizeof *g->c), g->ref = malloc(n * sizeof *g->ref),
  g->bound = malloc(n * sizeof *g->bound);
  if (!g->a || !g->b || !g->c || !g->ref || !g->bound)
    return ws_ctx_fail(lc->ctx, WS_ERR_NOMEM, "out of host memory for the GEMM");
  ws_status st = ws_device_malloc(lc->dev, n * 4, &g->da);
  if (st == WS_OK) st = ws_device_malloc(lc->dev, n * 4, &g->db);
  if (st == WS_OK) st = ws_device_malloc(lc->dev, n * 4, &g->dc);
  if (st == WS_OK) st = ws_device_memcpy_htod(lc->dev, g->da, g->a, n * 4);
  if (st == WS_OK) st = ws_device_memcpy_htod(lc->dev, g->db, g->b, n * 4);
  return st;
}

static void gemm_close(const ws_lesson_ctx *lc, gemm_bufs *g) {
  uint64_t d[] = {g->da, g->db, g->dc};
  for (int i = 0; i < 3; i++)
    if (d[i]) ws_device_free(lc->dev, d[i]);
  free(g->a), free(g->b), free(g->c), free(g->ref), free(g->bound);
}

/* Runs step i; *good counts the outputs within OpenBLAS's bound. */
static ws_status ladder_step(const ws_lesson_ctx *lc, gemm_bufs *g, size_t i, uint64_t *cycles,
                             uint64_t *good) {
  ws_gemmgen_cfg c = ladder_cfg(i);
  ws_gemmgen_problem p = {LADDER_N, LADDER_N, LADDER_N, g->da, g->db, g->dc, 0, 0};
  ws_launch_stats ls;
  memset(&ls, 0, sizeof ls);
  size_t n = (size_t)LADDER_N * LADDER_N;
  ws_status st = ws_gemmgen_run(lc->dev, &c, &p, &ls);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(lc->dev, g->c, g->dc, n * 4);
  if (st == WS_OK)
    st = ws_gemmgen_reference(lc->ctx, &c, LADDER_N, LADDER_N, LADDER_N, g->a, g->b, NULL, NULL, g->ref,
                              g->bound);
  *cycles = ls.cycles, *good = 0;
  for (size_t k = 0; st == WS_OK && k < n; k++) *good += fabs((double)g->c[k] - g->ref[k]) <= g->bound[k];
  return st;
}

static ws_status run_ladder(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  gemm_bufs g;
  ws_status st = gemm_open(lc, &g);
  uint64_t first = 0, prev = 0;
  for (size_t i = 0; i < sizeof ladder / sizeof *ladder && st == WS_OK; i++) {
    uint64_t cycles, good;
    st = ladder_step(lc, &g, i, &cycles, &good);
    if (st != WS_OK) break;
    const char *name = ws_gemmgen_variant_name(ladder[i].v);
    char label[WS_LESSON_LABEL_BYTES];
    snprintf(label, sizeof label, "%-11s outputs within OpenBLAS's bound", name);
    expect(r, label, (double)good, LADDER_N * LADDER_N,
           "every one of the 128 x 128: each step computes the same C");
    snprintf(label, sizeof label, "%-11s cycles", name);
    show(r, label, (double)cycles, ladder[i].cause);
    if (i) {
      snprintf(label, sizeof label, "%-11s speed-up over the step before", name);
      show(r, label, (double)prev / (double)cycles, "the step before's cycles over these");
    }
    if (!i) first = cycles;
    prev = cycles;
  }
  if (st == WS_OK)
    show(r, "the whole ladder: speed-up over naive", (double)first / (double)prev,
         "naive's cycles over mma's");
  gemm_close(lc, &g);
  return st;
}

/* ---- attention: naive against fused -------------------------------------------------------- */

/* QKV of T tokens (D = 64, 4 heads) uploaded; out and scores allocated. */
static ws_status attention_point(const ws_lesson_ctx *lc, uint32_t t, bool flash, uint64_t *bytes,
                                 uint64_t *cycles) {
  const ws_attngen_shape s = {t, 4, 16, 1};
  uint64_t d = (uint64_t)s.heads * s.head_dim, qkv = 0, out = 0, sc = 0;
  float *host = random_floats((size_t)t * 3 * d, t);
  ws_status st = host ? ws_device_malloc(lc->dev, (uint64_t)t * 3 * d * 4, &qkv)
                      : ws_ctx_fail(lc->ctx, WS_ERR_NOMEM, "out of host memory for the attention's inputs");
  if (st == WS_OK) st = ws_device_malloc(lc->dev, (uint64_t)t * d * 4, &out);
  if (st == WS_OK) st = ws_device_malloc(lc->dev, (uint64_t)s.heads * t * t * 4, &sc);
  if (st == WS_OK) st = ws_device_memcpy_htod(lc->dev, qkv, host, (uint64_t)t * 3 * d * 4);
  ws_launch_stats ls[WS_ATTNGEN_STAGE_COUNT];
  memset(ls, 0, sizeof ls);
  const ws_attngen_flash_cfg fc = {64, 64};
  *bytes = *cycles = 0;
  for (int k = 0; k < (flash ? 1 : WS_ATTNGEN_STAGE_COUNT) && st == WS_OK; k++) {
    st = flash ? ws_attngen_flash_run(lc->dev, &s, &fc, qkv, out, &ls[0])
               : ws_attngen_naive_stage_run(lc->dev, &s, (ws_attngen_stage)k, qkv, sc, out, &ls[k]);
    *bytes += sum(lc->dev, "hbm.ch*.bytes_read");
    *cycles += ls[k].cycles;
  }
  uint64_t bufs[] = {qkv, out, sc};
  for (int i = 0; i < 3; i++)
    if (bufs[i]) ws_device_free(lc->dev, bufs[i]);
  free(host);
  return st;
}

static ws_status run_attention(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  static const uint32_t seqs[] = {64, 128, 256};
  ws_status st = WS_OK;
  for (size_t i = 0; i < sizeof seqs / sizeof *seqs && st == WS_OK; i++) {
    uint32_t t = seqs[i];
    uint64_t nb, nc, fb, fcyc;
    st = attention_point(lc, t, false, &nb, &nc);
    if (st == WS_OK) st = attention_point(lc, t, true, &fb, &fcyc);
    if (st != WS_OK) break;
    double qkv = 3.0 * t * 64 * 4, s_bytes = 4.0 * t * t * 4;
    char label[WS_LESSON_LABEL_BYTES];
    snprintf(label, sizeof label, "T = %3u: naive, DRAM bytes read", t);
    expect(r, label, (double)nb, qkv + 2 * s_bytes,
           "Q, K, V once (%.0f B) + S read by the softmax and P by P.V: 2 x 4 heads x T^2 x 4 B", qkv);
    snprintf(label, sizeof label, "T = %3u: fused, DRAM bytes read", t);
    expect(r, label, (double)fb, qkv, "Q, K, V once: 3 x T x 64 x 4 B; S never leaves the SM");
    snprintf(label, sizeof label, "T = %3u: naive / fused DRAM bytes read", t);
    show(r, label, (double)nb / (double)fb, "grows with T: the scores are T^2, QKV only T");
    snprintf(label, sizeof label, "T = %3u: naive / fused cycles", t);
    show(r, label, (double)nc / (double)fcyc, "the scores' round trips through DRAM, and two more launches");
  }
  return st;
}

/* ---- a pixel's reach (seed 000) ------------------------------------------------------------ */

#define PIXEL_X 12u
#define PIXEL_Y 7u

typedef struct reach_row {
  const char *layer;
  uint64_t reached, total;
  const char *why;
} reach_row;

/* What the model's structure says of one pixel of a 32 x 32 x 3 image with
 * 4 x 4 patches (64 tokens), width D and 4 heads: it lives in one token
 * until attention, which gives every token a share of it. */
static size_t reach_expected(uint64_t d, reach_row *w) {
  const uint64_t t = WS_TINYVIT_TOKENS;
  const reach_row rows[] = {
      {"patch", 3, t * WS_TINYVIT_PATCH_DIM, "its 3 channels, in its token's row of 48"},
      {"patch_embed", d, t * d, "its token's row: each of the D outputs sums all 48 inputs"},
      {"blocks.0.qkv", 3 * d, t * 3 * d, "its token's row of Q, K and V"},
      {"blocks.0.attn", t * d, t * d, "every token attends to its token's K and V"},
      {"blocks.0.proj", t * d, t * d, "every row already holds it"},
      {"blocks.0.norm1", t * d, t * d, "every row"},
      {"blocks.0.fc1", t * 2 * d, t * 2 * d, "every row, 2D wide"},
      {"blocks.0.fc2", t * d, t * d, "every row"},
      {"pool", d, d, "the mean over tokens: all D"},
      {"head", 1, 1, "the logit"},
      {"probability", 1, 1, "back in host memory"},
  };
  memcpy(w, rows, sizeof rows);
  return sizeof rows / sizeof *rows;
}

static ws_status run_journey(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  pipe_env e;
  ws_vitrun_result res;
  memset(&res, 0, sizeof res);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.follow = (ws_vitrun_follow){true, PIXEL_X, PIXEL_Y, WS_VITRUN_ALL_CHANNELS};
  ws_status st = pipe_open(lc, &e);
  if (st == WS_OK) st = ws_vitrun_run(lc->rt, e.w, e.images, &c, &res);
  if (st == WS_OK && !res.pass)
    st = ws_ctx_fail(lc->ctx, WS_ERR_INVALID, "TinyViT32: a layer failed its check");
  reach_row want[16];
  size_t n = reach_expected(ws_tinyvit_weights_cfg(e.w).dim, want);
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    const ws_vitrun_reach *got = NULL;
    for (size_t k = 0; k < res.nreach; k++)
      if (strcmp(res.reach[k].layer, want[i].layer) == 0) got = &res.reach[k];
    if (!got) {
      st = ws_ctx_fail(lc->ctx, WS_ERR_INVALID, "the run has no reach row for %s", want[i].layer);
      break;
    }
    char label[WS_LESSON_LABEL_BYTES];
    snprintf(label, sizeof label, "%-15s outputs it reached, of %llu", want[i].layer,
             (unsigned long long)got->total);
    expect(r, label, (double)got->reached, (double)want[i].reached, "%s", want[i].why);
  }
  if (st == WS_OK)
    show(r, "end to end, image H2D to probability D2H, us", (res.end_ns - res.image_start_ns) / 1e3,
         "the timeline's: copies, then kernels, then the copy back");
  ws_vitrun_result_free(&res);
  pipe_close(&e);
  return st;
}

/* ---- the PCIe cliff and launch overhead (seed 003) ------------------------------------------ */

#define TINY_KERNELS 10u

/* What the link model of docs/runtime.md gives for a pinned copy of n
 * bytes, worked from the PCIe generation's lane rate and line code. */
static uint64_t pinned_ns(const ws_cfg_pcie *c, uint64_t n, char *why, size_t why_bytes) {
  static const uint32_t mts[] = {0, 2500, 5000, 8000, 16000, 32000};
  uint32_t data = c->gen <= 2 ? 8 : 128, line = c->gen <= 2 ? 10 : 130;
  uint64_t tlps = (n + c->max_payload_bytes - 1) / c->max_payload_bytes,
           wire = n + tlps * c->tlp_overhead_bytes;
  uint64_t num = wire * 8 * line * 1000, den = (uint64_t)data * c->lanes * mts[c->gen < 6 ? c->gen : 5];
  snprintf(why, why_bytes,
           "%u ns setup + %llu wire bytes (%llu TLPs of <= %u B + %u B each) at %u lanes x %u MT/s, %u/%u",
           c->setup_lat_ns, (unsigned long long)wire, (unsigned long long)tlps, c->max_payload_bytes,
           c->tlp_overhead_bytes, c->lanes, mts[c->gen < 6 ? c->gen : 5], data, line);
  return c->setup_lat_ns + (num + den - 1) / den;
}

static uint64_t last_dur(const ws_runtime *rt, uint64_t *start) {
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(rt, &n);
  *start = r[n - 1].start_ns;
  return r[n - 1].end_ns - r[n - 1].start_ns;
}

static ws_status copy_sizes(const ws_lesson_ctx *lc, ws_runtime *rt, ws_lesson_result *r) {
  static const uint64_t sizes[] = {4, 4096, 65536, 1u << 20, 16u << 20};
  const ws_cfg_pcie *c = &ws_device_cfg(lc->dev)->pcie;
  uint64_t big = sizes[sizeof sizes / sizeof *sizes - 1], dptr = 0, t0;
  ws_runtime_host pinned, pageable;
  ws_status st = ws_runtime_host_alloc(rt, big, WS_PCIE_PINNED, &pinned);
  if (st == WS_OK) st = ws_runtime_host_alloc(rt, 1u << 20, WS_PCIE_PAGEABLE, &pageable);
  if (st == WS_OK) st = ws_runtime_malloc(rt, big, &dptr);
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes && st == WS_OK; i++) {
    st = ws_runtime_memcpy_htod(rt, 0, dptr, pinned, 0, sizes[i], "pinned");
    if (st != WS_OK) break;
    uint64_t d = last_dur(rt, &t0);
    char label[WS_LESSON_LABEL_BYTES], why[WS_LESSON_WHY_BYTES];
    snprintf(label, sizeof label, "pinned H2D of %8llu B: ns", (unsigned long long)sizes[i]);
    expect(r, label, (double)d, (double)pinned_ns(c, sizes[i], why, sizeof why), "%s", why);
    snprintf(label, sizeof label, "pinned H2D of %8llu B: GB/s", (unsigned long long)sizes[i]);
    show(r, label, (double)sizes[i] / (double)d, "bytes over the copy's time: setup dominates small copies");
  }
  if (st == WS_OK) st = ws_runtime_memcpy_htod(rt, 0, dptr, pageable, 0, 1u << 20, "pageable");
  if (st == WS_OK) {
    char why[WS_LESSON_WHY_BYTES];
    uint64_t d = last_dur(rt, &t0), p = pinned_ns(c, 1u << 20, why, sizeof why);
    show(r, "pageable H2D of 1 MiB: ns", (double)d,
         "staged through a pinned buffer by the CPU, chunk by chunk");
    show(r, "pageable / pinned time, 1 MiB", (double)d / (double)p, "the host's memcpy is the bottleneck");
  }
  return st;
}

/* Ten tiny kernels back to back: each is shorter than the launch call, so
 * the host's launch overhead, not the GPU, sets the pace. */
static ws_status tiny_kernels(const ws_lesson_ctx *lc, ws_runtime *rt, ws_lesson_result *r) {
  const ws_cfg_pcie *c = &ws_device_cfg(lc->dev)->pcie;
  copy_kernel k;
  ws_status st = copy_open(lc, &k, 32 * 64);
  ws_dim3 grid = {1, 1, 1}, block = {32, 1, 1};
  uint64_t busy = 0, start = 0, first = 0, end = 0;
  for (uint32_t i = 0; i < TINY_KERNELS && st == WS_OK; i++) {
    st = ws_runtime_launch(rt, 0, k.k.kernel, grid, block, 0, &k.k.args, "tiny");
    if (st != WS_OK) break;
    uint64_t d = last_dur(rt, &start);
    busy += d, end = start + d;
    if (!i) first = start;
    if (d >= c->launch_overhead_ns)
      st = ws_ctx_fail(lc->ctx, WS_ERR_INVALID, "a tiny kernel took %llu ns", (unsigned long long)d);
  }
  copy_close(lc, &k);
  if (st != WS_OK) return st;
  expect(r, "10 tiny kernels: last start - first start, ns", (double)(start - first),
         9.0 * c->launch_overhead_ns,
         "9 launch calls of %u ns each: every kernel ends before the next call returns",
         c->launch_overhead_ns);
  show(r, "10 tiny kernels: GPU busy fraction", (double)busy / (double)(end - first),
       "kernel time over the span: the rest is launch overhead");
  return WS_OK;
}

#define RING_ITEMS 8u

/* Eight small items handed over one at a time, as eight launches and as one
 * persistent ring kernel polling mapped host memory (models/runs/persistent.h). */
static ws_status ring_items(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  const ws_gpu_cfg *g = ws_device_cfg(lc->dev);
  ws_persistent_cfg c = ws_persistent_default_cfg();
  c.items = RING_ITEMS;
  ws_persistent_result p;
  ws_status st = ws_persistent_run(lc->ctx, g, &c, &p);
  if (st != WS_OK) {
    ws_persistent_result_free(&p);
    return st;
  }
  uint64_t kernels = 0;
  for (uint32_t i = 0; i < RING_ITEMS; i++) kernels += p.launch_kernel_ns[i];
  expect(r, "8 items as 8 launches: ns", (double)p.launch_ns,
         (double)RING_ITEMS * g->pcie.launch_overhead_ns + (double)kernels,
         "8 x %u ns launch overhead + the 8 kernels' %llu ns: the host waits for each result",
         g->pcie.launch_overhead_ns, (unsigned long long)kernels);
  expect(r, "8 items, one ring kernel: polls", (double)p.polls, RING_ITEMS + 1.0,
         "one poll per item (the first poll after a result sees the next item) + one that sees the stop");
  show(r, "8 items, one ring kernel: ns", (double)p.ring_ns,
       "one launch, then each item as the host hands it over");
  show(r, "ring item after the first: ns",
       (double)(p.ring_done_ns[RING_ITEMS - 1] - p.ring_done_ns[0]) / (RING_ITEMS - 1),
       "one poll round trip over the link + the item, its data already in the resident CTA's L1");
  show(r, "one poll's round trip: ns", (double)p.poll_ns,
       "pcie.zero_copy_lat_ns + the L1 pipeline + two TLPs on the wire");
  show(r, "crossover: items", (double)p.crossover,
       "the fewest items for which the ring kernel is done first");
  ws_persistent_result_free(&p);
  return WS_OK;
}

static ws_status run_pcie(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  ws_status st = copy_sizes(lc, lc->rt, r);
  if (st == WS_OK) st = tiny_kernels(lc, lc->rt, r);
  if (st == WS_OK) st = ring_items(lc, r);
  return st;
}

/* ---- unified memory: faults against copies and prefetches (seed 003) ---------------------------- */

#define UNIFIED_BYTES (4u << 20)
#define UNIFIED_CTAS_PER_SM 2u
#define UNIFIED_THREADS 256u

typedef struct managed_run {
  uint64_t ns;                    /* the kernel on the timeline */
  ws_device_managed_totals after; /* the device's totals after it */
} managed_run;

/* The stream copy from src to the lesson's dst buffer, on the runtime. */
static ws_status stream_from(const ws_lesson_ctx *lc, copy_kernel *c, uint64_t src, const char *name,
                             managed_run *out) {
  ws_status st = ws_nngen_kernel_ptr(lc->ctx, &c->k, "src", src);
  ws_dim3 grid = {ws_device_cfg(lc->dev)->gpu.num_sms * UNIFIED_CTAS_PER_SM, 1, 1},
          block = {UNIFIED_THREADS, 1, 1};
  if (st == WS_OK) st = ws_runtime_launch(lc->rt, 0, c->k.kernel, grid, block, 0, &c->k.args, name);
  uint64_t start;
  if (st == WS_OK) out->ns = last_dur(lc->rt, &start);
  out->after = ws_device_managed_stats(lc->dev);
  return st;
}

/* A managed buffer of the lesson's size, written by the host (so on the host). */
static ws_status host_filled_managed(const ws_lesson_ctx *lc, const void *bytes, uint64_t *p) {
  ws_status st = ws_device_malloc_managed(lc->dev, UNIFIED_BYTES, p);
  return st == WS_OK ? ws_device_memcpy_htod(lc->dev, *p, bytes, UNIFIED_BYTES) : st;
}

static ws_status unified_runs(const ws_lesson_ctx *lc, copy_kernel *c, uint8_t *host, ws_runtime_host h,
                              ws_lesson_result *r) {
  const ws_gpu_cfg *g = ws_device_cfg(lc->dev);
  char why[WS_LESSON_WHY_BYTES];
  uint64_t t0, faulted, prefetched;
  managed_run copy, first, again, pre;
  ws_status st = ws_runtime_memcpy_htod(lc->rt, 0, c->src, h, 0, UNIFIED_BYTES, "copy");
  if (st == WS_OK) {
    expect(r, "copy of 4 MiB to device memory: ns", (double)last_dur(lc->rt, &t0),
           (double)pinned_ns(&g->pcie, UNIFIED_BYTES, why, sizeof why), "%s", why);
    st = stream_from(lc, c, c->src, "from device memory", &copy);
  }
  if (st == WS_OK) st = host_filled_managed(lc, host, &faulted);
  if (st == WS_OK) st = stream_from(lc, c, faulted, "faulting", &first);
  if (st == WS_OK) st = stream_from(lc, c, faulted, "again", &again);
  if (st == WS_OK) st = host_filled_managed(lc, host, &prefetched);
  if (st == WS_OK) st = ws_runtime_prefetch(lc->rt, 0, prefetched, UNIFIED_BYTES, "prefetch");
  if (st == WS_OK) {
    expect(r, "prefetch of 4 MiB of managed memory: ns", (double)last_dur(lc->rt, &t0),
           (double)pinned_ns(&g->pcie, UNIFIED_BYTES, why, sizeof why), "one transfer, as a copy: %s", why);
    st = stream_from(lc, c, prefetched, "after a prefetch", &pre);
  }
  if (st != WS_OK) return st;
  expect(r, "faulting kernel: bytes migrated", (double)first.after.migrated_bytes, UNIFIED_BYTES,
         "every 64 KiB block of the 4 MiB once, by a fault or by the density prefetcher");
  show(r, "faulting kernel: 4 KiB pages faulted", (double)first.after.faults,
       "the first touches of blocks the prefetcher had not brought yet");
  show(r, "faulting kernel: fault batches", (double)first.after.batches,
       "each one 45 us of driver work first");
  show(r, "faulting kernel: of those bytes, prefetched", (double)first.after.prefetched_bytes,
       "regions more than 51 % there or faulted, brought whole");
  expect(r, "same kernel again: new faults", (double)(again.after.faults - first.after.faults), 0,
         "the pages stay on the device between launches");
  expect(r, "after the prefetch: new faults", (double)(pre.after.faults - again.after.faults), 0,
         "the prefetch moved every block before the kernel ran");
  show(r, "kernel from device memory: ns", (double)copy.ns, "the copy came first, outside the kernel");
  show(r, "faulting kernel: ns", (double)first.ns, "its fault batches are inside it");
  show(r, "faulting kernel - kernel from device memory: ns", (double)first.ns - (double)copy.ns,
       "about the batches' time: the warps wait while the driver works");
  show(r, "the batches' time: ns", (double)first.after.fault_cycles * 1000.0 / g->gpu.core_clock_mhz,
       "driver work + the blocks on the link, per batch");
  show(r, "kernel after the prefetch: ns", (double)pre.ns, "as fast as from device memory");
  return WS_OK;
}

static ws_status run_unified(const ws_lesson_ctx *lc, ws_lesson_result *r) {
  copy_kernel c;
  ws_runtime_host h = 0;
  ws_status st = copy_open(lc, &c, UNIFIED_BYTES);
  if (st == WS_OK) st = ws_runtime_host_alloc(lc->rt, UNIFIED_BYTES, WS_PCIE_PINNED, &h);
  uint8_t *host = st == WS_OK ? ws_runtime_host_data(lc->rt, h) : NULL;
  for (uint32_t i = 0; host && i < UNIFIED_BYTES; i++) host[i] = (uint8_t)(i * 13u);
  if (st == WS_OK) st = unified_runs(lc, &c, host, h, r);
  copy_close(lc, &c);
  return st;
}

/* ---- the lessons ------------------------------------------------------------------------- */

static const ws_lesson lesson_threads = {
    .name = "threads",
    .title = "the thread hierarchy: a grid of blocks of warps of threads, with SAXPY",
    .seed = "seed 002",
    .gpu = "classroom",
    .intro =
        "A kernel launch is a grid of thread blocks (CTAs); each block is cut into warps of 32 threads, "
        "and a\n"
        "warp is what the hardware schedules: one instruction at a time for all its lanes. SAXPY gives each\n"
        "thread one element: i = blockIdx.x * blockDim.x + threadIdx.x, y[i] = a * x[i] + y[i].\n"
        "\n"
        "n = 1000 elements in blocks of 256 threads make 4 blocks and 32 warps; the last 24 threads find\n"
        "i >= n and leave at once. The warps issue 17 instructions each, whatever their lanes do, while\n"
        "the thread count follows the lanes that executed: the warp, not the thread, is what costs issue\n"
        "slots.",
    .look = "Press space to play the saxpy launch: the CTA slots of the two SMs fill with the 4 blocks,\n"
            "the warp slots turn long_scoreboard red while the loads of x and y are away, and the HBM banks\n"
            "open rows as the sectors arrive.",
    .look_launch = 0,
    .look_cycle = 300,
    .look_zoom = "gpu",
    .run = run_threads,
};

static const ws_lesson lesson_coalescing = {
    .name = "coalescing",
    .title = "coalescing: the addresses of a warp decide how many sectors move",
    .seed = "seeds 000 and 001",
    .gpu = "classroom",
    .intro =
        "When the 32 lanes of a warp load, the memory system does not see 32 requests: it sees the 128-byte\n"
        "lines and the 32-byte sectors the addresses touch. Neighbouring lanes reading neighbouring floats\n"
        "(stride 1) need one line and 4 sectors, 128 bytes for 128 useful bytes. Every other float (stride\n"
        "2) needs 8 sectors; stride 8 already needs 32 sectors for the same 128 useful bytes, and from\n"
        "there each lane has a sector of its own. Bandwidth is spent in sectors, so a strided kernel pays\n"
        "up to 8 times the bytes for the same work.",
    .look = "The launches are one warp each, one per stride from 1 to 32 (--viz opens stride 32's): step\n"
            "through them with k and watch the sectors and lines one load asks for grow with the stride.",
    .look_launch = 31,
    .look_cycle = 300,
    .look_zoom = "gpu",
    .run = run_coalescing,
};

static const ws_lesson lesson_banks = {
    .name = "bank-conflicts",
    .title = "shared-memory bank conflicts: strides that share a bank are replayed",
    .seed = "seed 001",
    .gpu = "classroom",
    .intro =
        "Shared memory is split into 32 banks of 4-byte words; a warp's access is served in one pass "
        "when no\n"
        "two lanes need different words of one bank. Lane l reading word l * stride puts gcd(stride, 32)\n"
        "lanes on each bank it uses, and the access takes that many passes (wavefronts): odd strides "
        "are free,\n"
        "stride 2 costs 2 passes, stride 32 puts every lane on bank 0 and costs 32. The usual fix is\n"
        "padding a row by one word, which makes the stride odd.",
    .look = "Each stride runs twice (R and 2R accesses; --viz opens stride 32's first run, zoomed on SM 0's\n"
            "shared memory): all 32 lanes queue on bank 0, which shows the conflict colour, while the warps\n"
            "wait in bank_conflict. Step back with K to stride 1, where every bank is touched once.",
    .look_launch = 62,
    .look_cycle = 4000,
    .look_zoom = "smem:0",
    .run = run_banks,
};

static const ws_lesson lesson_occupancy = {
    .name = "occupancy",
    .title = "occupancy: resident warps hide memory latency",
    .seed = "seeds 001 and 003",
    .gpu = "classroom",
    .intro =
        "An SM keeps as many CTAs resident as its registers, shared memory, warp slots and CTA slots allow;\n"
        "the smallest of the four is the limiter, and occupancy is resident warps over the maximum. A\n"
        "memory-bound kernel needs many warps in flight, because while one waits hundreds of cycles "
        "for DRAM\n"
        "others can issue.\n"
        "\n"
        "The same streaming copy runs five times, each asking for enough dynamic shared memory that 1, 2,\n"
        "4, 8 or 16 CTAs of 64 threads fit on an SM: the kernel does not use that memory, only the\n"
        "occupancy rules see it. Occupancy follows from the preset by arithmetic; the bandwidth shows\n"
        "what it buys: more warps, more loads in flight, until DRAM is the limit.",
    .look =
        "Step from the first launch to the last with k: with one CTA per SM most warp slots are empty and\n"
        "the SMs idle between DRAM returns; with sixteen, half the slots are full and the HBM banks stay\n"
        "busy.",
    .look_launch = 0,
    .look_cycle = 18000,
    .look_zoom = "gpu",
    .run = run_occupancy,
};

static const ws_lesson lesson_pipelining = {
    .name = "pipelining",
    .title = "streams: copies over PCIe hidden under compute",
    .seed = "seeds 001 and 003",
    .gpu = "a100",
    .intro =
        "A GPU has copy engines that work while its SMs compute. With one stream, each image's work waits\n"
        "for the previous image: copy in, kernels, copy out, in a line. With two streams and a buffer set\n"
        "each, the next image's copy in runs while the current image's kernels do, and the previous\n"
        "image's probability comes back meanwhile.\n"
        "\n"
        "TinyViT32 runs 4 images one at a time, first on one stream, then on two. When every image's\n"
        "kernels take longer than a copy, every copy but the first in and the last out disappears under\n"
        "compute; the saving is their time.",
    .look = "The story is the timeline: the run's row at the bottom of the window holds both runs, one\n"
            "stream and then two. In the second the copies are bands over the kernels, H2D along the top\n"
            "and D2H along the bottom; hover one for its times. With --trace, 'warpscope trace export FILE\n"
            "--format perfetto' shows each stream as a track of its own.",
    .look_launch = WS_LESSON_NO_PICTURE,
    .look_cycle = 0,
    .look_zoom = NULL,
    .run = run_pipelining,
    .uses_runtime = true,
};

static const ws_lesson lesson_ladder = {
    .name = "gemm-ladder",
    .title = "the GEMM tiling ladder, one step at a time, with the cause of each gain",
    .seed = "seed 000",
    .gpu = "classroom",
    .intro =
        "C = A B for 128 x 128 matrices, nine times: each step of the ladder changes one thing about how\n"
        "the kernel moves data, and every step computes the same C (checked against OpenBLAS). Naive\n"
        "threads read A down its columns, a sector per float; coalescing fixes the access order; shared\n"
        "memory tiles load each value once per tile instead of once per use; register blocking lets a\n"
        "value loaded into a register feed several FFMAs; 128-bit loads, warp tiles and asynchronous\n"
        "copies trim instructions, bank conflicts and waits; tensor cores do 4096 FLOPs an instruction.",
    .look =
        "--viz opens the naive step: the warp slots sit in lsu_throttle and long_scoreboard, the L1 sets\n"
        "churn. Step with k to the last: the mma step's tensor cores light up and the launch is 200 times\n"
        "shorter.",
    .look_launch = 0,
    .look_cycle = 20000,
    .look_zoom = "gpu",
    .run = run_ladder,
};

static const ws_lesson lesson_attention = {
    .name = "attention",
    .title = "naive against fused attention: DRAM bytes as the sequence grows",
    .seed = "seed 001",
    .gpu = "a100",
    .intro =
        "Attention computes S = Q K^T / sqrt(d) for every head, P = softmax(S), O = P V. The naive way\n"
        "runs three kernels and keeps S and P in device memory: T x T scores a head, which grows with the\n"
        "square of the sequence length. The fused (FlashAttention-style) kernel keeps each score in a\n"
        "register from the FFMA that makes it to the one that uses it, streaming K and V through shared\n"
        "memory with an online softmax: DRAM sees Q, K and V once, whatever T is.\n"
        "\n"
        "Each launch here starts with an empty L2, as on a bare device: the L2 is write-back, so the\n"
        "scores a kernel writes stay on chip during it, and the next kernel reads them from DRAM (the\n"
        "write-back of those lines is not counted here: the figures are the bytes read).",
    .look =
        "--viz opens the naive scores kernel at T = 64 (the first launch): its loads walk QKV from global\n"
        "memory. The fused kernel is launch 3: step with k and zoom into an SM's shared memory (z) to see\n"
        "the K and V tiles stream through it.",
    .look_launch = 0,
    .look_cycle = 3000,
    .look_zoom = "gpu",
    .run = run_attention,
};

static const ws_lesson lesson_journey = {
    .name = "journey",
    .title = "a pixel's journey: what one pixel reaches, layer by layer",
    .seed = "seed 000",
    .gpu = "a100",
    .intro =
        "TinyViT32 classifies a 32 x 32 image: 4 x 4 patches become 64 tokens of width 64, one attention\n"
        "block mixes them, and a mean over tokens feeds the head. Follow one pixel, (12, 7), all three\n"
        "channels: its bytes are tagged in host memory, and the tags travel with the values through PCIe,\n"
        "HBM, L2, L1, shared memory and registers into every result computed from them.\n"
        "\n"
        "Until attention the pixel stays in its own token: the patch row it lands in, that token's\n"
        "embedding, its Q, K and V. Attention is where tokens meet: every token's output weighs every\n"
        "token's V, so from there on every value of every layer carries a share of the pixel.",
    .look =
        "The hop-by-hop path (host RAM, PCIe burst, HBM bank, L2 slice, L1 set, registers, FP32 units) is\n"
        "what 'warpscope run --follow-pixel 12,7' prints. --viz opens this run in pixel mode at the\n"
        "pixel's first hop; j / J walk the hops (docs/viz.md). The picture is hop 5: the pixel's first\n"
        "load missing in an L2 slice on its way from HBM to SM 10.",
    .look_launch = 0,
    .look_cycle = 5,
    .look_zoom = NULL,
    .run = run_journey,
    .uses_runtime = true,
    .follows = true,
};

static const ws_lesson lesson_pcie = {
    .name = "pcie",
    .title = "the PCIe cliff and launch overhead: why small copies and small kernels waste a GPU",
    .seed = "seed 003",
    .gpu = "a100",
    .intro =
        "Every copy over PCIe pays a fixed setup (the driver call and the DMA descriptor, about 10 us)\n"
        "before its bytes move at the link's rate, so a 4-byte copy takes almost as long as a 4 KiB one "
        "and a\n"
        "copy needs megabytes to approach the link's bandwidth. Pageable memory is worse: the driver copies\n"
        "it through a pinned buffer with the CPU first.\n"
        "\n"
        "Kernels have the same problem: each launch call keeps the host busy for a few microseconds, so\n"
        "kernels shorter than that run one launch overhead apart and the GPU idles in between. This is\n"
        "why small work is batched, fused into fewer kernels, or handed to a persistent kernel that stays\n"
        "resident and polls a queue.\n"
        "\n"
        "The last part does that for eight small items the host hands over one at a time: eight launches,\n"
        "then one ring kernel whose thread 0 polls a queue in mapped host memory over the link. Each\n"
        "launched item pays the launch overhead; each ring item pays one poll's round trip over PCIe\n"
        "instead, under a microsecond (warpscope demo persistent runs it on its own).",
    .look =
        "The story is the timeline: the run's row at the bottom of the window shows the five copies,\n"
        "the smallest as wide as the 4 KiB one, and the ten tiny kernels spaced one launch overhead apart\n"
        "with the GPU idle between them. (The ring kernel's items run on devices of their own, after.)",
    .look_launch = WS_LESSON_NO_PICTURE,
    .look_cycle = 0,
    .look_zoom = NULL,
    .run = run_pcie,
    .uses_runtime = true,
};

static const ws_lesson lesson_unified = {
    .name = "unified",
    .title = "unified memory: pages that move on a fault, against copies and prefetches",
    .seed = "seed 003",
    .gpu = "a100",
    .intro =
        "Managed memory (cudaMallocManaged) gives the host and the GPU one pointer; its pages move to\n"
        "whichever side touches them. When a kernel touches a page that is still on the host, the GPU\n"
        "raises a page fault and the driver moves it: faults are serviced in batches, each costing tens\n"
        "of microseconds of driver work before a byte moves, a 4 KiB fault brings its whole 64 KiB block,\n"
        "and a region that is mostly there already is brought whole (density prefetch). Convenient, but a\n"
        "kernel that faults waits for all of it.\n"
        "\n"
        "The lesson copies 4 MiB through one kernel three ways: from device memory after an explicit copy,\n"
        "from managed memory that faults in, and from managed memory prefetched first\n"
        "(cudaMemPrefetchAsync), which moves it in one transfer at the link's rate.",
    .look = "The run's row at the bottom of the window shows the copy, the four kernels and the prefetch:\n"
            "the faulting kernel is the wide one, its warps waiting on the driver; the same kernel again,\n"
            "and the one after the prefetch, are as narrow as the kernel from device memory.",
    .look_launch = WS_LESSON_NO_PICTURE,
    .look_cycle = 0,
    .look_zoom = NULL,
    .run = run_unified,
    .uses_runtime = true,
};

static const ws_lesson *const lessons[] = {&lesson_threads,
                                           &lesson_coalescing,
                                           &lesson_banks,
                                           &lesson_occupancy,
                                           &lesson_ladder,
                                           &lesson_attention,
                                           &lesson_journey,
                                           &lesson_pcie,
                                           &lesson_pipelining,
                                           &lesson_unified,
                                           NULL};

const ws_lesson *const *ws_lesson_all(void) { return lessons; }

const ws_lesson *ws_lesson_find(const char *name) {
  for (size_t i = 0; lessons[i]; i++)
    if (strcmp(lessons[i]->name, name) == 0) return lessons[i];
  return NULL;
}
