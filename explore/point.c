/* point.c - one point of an exploration (see point.h): resolve the preset
 * and the generator's configuration, run the kernel on a fresh timing-mode
 * device, check it against the host reference and measure it.
 *
 * Design: validation and running share one resolver, so a point the sweep
 * validated runs with exactly the configuration it was judged on, and
 * everything a generator or the device refuses is found before a byte is
 * allocated (a refusal is a result, res->valid = false). The counters are
 * read by a device observer after every launch, because the stats registry
 * is zeroed at each timed launch: naive attention's three launches are
 * summed from three readings, and the caller's report hook sees each launch
 * while its counters are still there. Inputs come from a splitmix64 stream
 * of the point's seed and nothing reads the clock, so a point's record is
 * the same on every run and every host. */
#include "explore/point.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "explore/cudagemm.h"
#include "models/kgen/attngen.h"
#include "models/kgen/gemmgen.h"
#include "sim/common/stats.h"

#define ATTN_DEFAULT_BR 64               /* Br when not given: `warpscope kernel flash`'s default */
#define U32_INDEX_LIMIT (1ull << 31)     /* the kernels index with 32-bit integers */
#define UNIT_ROUNDOFF (1.0 / 16777216.0) /* fp32: 2^-24 */

/* ---- resolving ---------------------------------------------------------------------- */

typedef struct resolved {
  ws_gpu_cfg gpu;
  ws_gemmgen_cfg gemm;        /* GEMM points */
  ws_attngen_shape shape;     /* attention points */
  ws_attngen_flash_cfg flash; /* flash points */
  bool flash_on;
} resolved;

/* A '/' or an .ini suffix names a preset file, as --gpu does (cli/gpuopt.c). */
static bool is_path(const char *gpu) {
  size_t n = strlen(gpu);
  return strchr(gpu, '/') || (n > 4 && strcmp(gpu + n - 4, ".ini") == 0);
}

static ws_status resolve_gpu(ws_ctx *ctx, const ws_point *p, ws_gpu_cfg *out) {
  char gpu[WS_POINT_NAME_MAX + 1];
  snprintf(gpu, sizeof gpu, "%.*s", (int)sizeof p->gpu, p->gpu[0] ? p->gpu : "a100");
  ws_status st = is_path(gpu) ? ws_config_load_file(ctx, gpu, out) : ws_config_load_preset(ctx, gpu, out);
  if (st == WS_OK && p->nsets > WS_POINT_MAX_SETS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a point carries at most %d overrides, got %u", WS_POINT_MAX_SETS,
                       p->nsets);
  for (uint32_t i = 0; i < p->nsets && st == WS_OK; i++) {
    char set[WS_POINT_SET_MAX + 1];
    snprintf(set, sizeof set, "%.*s", (int)sizeof p->sets[i],
             p->sets[i]); /* bounded: a caller may leave no NUL */
    st = ws_config_set(ctx, out, set);
  }
  if (st == WS_OK && p->nsets > 0) {
    char origin[WS_POINT_NAME_MAX + 32];
    snprintf(origin, sizeof origin, "%s (after --set)", gpu);
    st = ws_config_validate(ctx, out, origin);
  }
  return st;
}

/* The variant's defaults, then each tile the point gives; a tile the
 * variant's kernel does not read is refused rather than silently dropped,
 * so two records never differ only in a field that changed nothing. */
static ws_status resolve_gemm_cfg(ws_ctx *ctx, const ws_point *p, ws_gemmgen_cfg *out) {
  char name[WS_POINT_NAME_MAX + 1];
  snprintf(name, sizeof name, "%.*s", (int)sizeof p->variant, p->variant);
  ws_gemmgen_variant v;
  ws_status st = ws_gemmgen_variant_parse(ctx, name, &v);
  if (st != WS_OK) return st;
  *out = ws_gemmgen_defaults(v);
  static const char *const names[] = {"bm", "bn", "bk", "tm", "tn", "wm", "wn", "threads"};
  const uint32_t given[] = {p->bm, p->bn, p->bk, p->tm, p->tn, p->wm, p->wn, p->threads};
  uint32_t *fields[] = {&out->bm, &out->bn, &out->bk, &out->tm, &out->tn, &out->wm, &out->wn, &out->threads};
  bool tiles = false;
  for (size_t i = 0; i < sizeof given / sizeof given[0]; i++) {
    if (!given[i]) continue;
    if (!ws_gemmgen_uses_tile(v, (uint32_t)i))
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s does not apply to the %s GEMM", names[i],
                         ws_gemmgen_variant_name(v));
    *fields[i] = given[i];
    tiles |= i + 1 < sizeof given / sizeof given[0];
  }
  if (tiles && !p->threads) out->threads = ws_gemmgen_implied_threads(out);
  return WS_OK;
}

/* Shapes the kernels cannot index, and buffers the device cannot hold, are
 * refused before any host or device memory is asked for. */
static ws_status check_gemm_shape(ws_ctx *ctx, const ws_point *p, const ws_gpu_cfg *gpu) {
  if (!p->m || !p->n || !p->k || p->m > WS_GEMMGEN_DIM_MAX || p->n > WS_GEMMGEN_DIM_MAX ||
      p->k > WS_GEMMGEN_DIM_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "M, N and K must be 1..%u, got %ux%ux%u", WS_GEMMGEN_DIM_MAX,
                       p->m, p->n, p->k);
  uint64_t mk = (uint64_t)p->m * p->k, kn = (uint64_t)p->k * p->n, mn = (uint64_t)p->m * p->n;
  if (mk >= U32_INDEX_LIMIT || kn >= U32_INDEX_LIMIT || mn >= U32_INDEX_LIMIT)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "M*K, K*N and M*N must stay below 2^31 elements (the kernels index with 32-bit "
                       "integers), got %ux%ux%u",
                       p->m, p->n, p->k);
  uint64_t bytes = 4 * (mk + kn + mn);
  if (bytes > gpu->gpu.dram_size_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "A, B and C take %llu bytes, more than %s's %llu bytes of memory",
                       (unsigned long long)bytes, gpu->gpu.name,
                       (unsigned long long)gpu->gpu.dram_size_bytes);
  return WS_OK;
}

static ws_status resolve_gemm(ws_ctx *ctx, const ws_point *p, resolved *r) {
  if (p->source >= WS_POINT_SOURCE_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown GEMM source %d", (int)p->source);
  ws_status st = resolve_gemm_cfg(ctx, p, &r->gemm);
  if (st == WS_OK) st = check_gemm_shape(ctx, p, &r->gpu);
  return st == WS_OK ? ws_gemmgen_check(ctx, &r->gemm, &r->gpu) : st;
}

/* The qkv, output and (naive) score buffers, in floats. */
static uint64_t attn_floats(const ws_attngen_shape *s, bool flash) {
  uint64_t d = (uint64_t)s->heads * s->head_dim;
  return (uint64_t)s->tokens * 4 * d + (flash ? 0 : (uint64_t)s->heads * s->tokens * s->tokens);
}

static ws_status check_attn_shape(ws_ctx *ctx, const resolved *r) {
  const ws_attngen_shape *s = &r->shape;
  uint64_t d = (uint64_t)s->heads * s->head_dim; /* the limits are divided, so no product can wrap */
  if (!s->tokens || !s->heads || !s->head_dim || (uint64_t)s->tokens * 3 > UINT32_MAX / d ||
      (uint64_t)s->tokens * s->tokens > UINT32_MAX / s->heads)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "attention seq=%u heads=%u dhead=%u: each must be at least 1, and seq*3*heads*dhead "
                       "and heads*seq^2 must fit in 32 bits",
                       s->tokens, s->heads, s->head_dim);
  uint64_t bytes = 4 * attn_floats(s, r->flash_on);
  if (bytes > r->gpu.gpu.dram_size_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "attention's buffers take %llu bytes, more than %s's %llu bytes",
                       (unsigned long long)bytes, r->gpu.gpu.name,
                       (unsigned long long)r->gpu.gpu.dram_size_bytes);
  return WS_OK;
}

/* Br and Bc as given, the defaults for the ones that are not (Bc from the
 * head dimension, so the default builds). */
static ws_attngen_flash_cfg flash_tiles(const ws_point *p) {
  uint32_t br = p->br ? p->br : ATTN_DEFAULT_BR;
  return (ws_attngen_flash_cfg){br, p->bc ? p->bc : ws_attngen_flash_default_bc(p->dhead, br)};
}

static ws_status resolve_attn(ws_ctx *ctx, const ws_point *p, resolved *r) {
  char attn[WS_POINT_NAME_MAX + 1];
  snprintf(attn, sizeof attn, "%.*s", (int)sizeof p->attn, p->attn);
  r->flash_on = strcmp(attn, "flash") == 0;
  if (!r->flash_on && strcmp(attn, "naive") != 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention '%s' (expected naive or flash)", attn);
  if (!r->flash_on && (p->br || p->bc))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "br and bc are flash attention's tiles; naive takes none");
  r->shape = (ws_attngen_shape){p->seq, p->heads, p->dhead, 1};
  r->flash = flash_tiles(p);
  ws_status st = check_attn_shape(ctx, r);
  if (st == WS_OK && r->flash_on) st = ws_attngen_flash_validate(ctx, &r->gpu, p->dhead, &r->flash);
  return st;
}

static ws_status resolve(ws_ctx *ctx, const ws_point *p, resolved *r) {
  memset(r, 0, sizeof *r);
  if (p->sample_waves && (p->sample_waves < WS_SAMPLER_MIN_WAVES || p->sample_waves > WS_SAMPLER_MAX_WAVES))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "sampling measures %u to %u waves, not %u", WS_SAMPLER_MIN_WAVES,
                       WS_SAMPLER_MAX_WAVES, p->sample_waves);
  if (p->sample_rounds &&
      (p->sample_rounds < WS_SAMPLER_MIN_ROUNDS || p->sample_rounds > WS_SAMPLER_MAX_ROUNDS))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "sampling times %u to %u iterations per window, not %u",
                       WS_SAMPLER_MIN_ROUNDS, WS_SAMPLER_MAX_ROUNDS, p->sample_rounds);
  ws_status st = resolve_gpu(ctx, p, &r->gpu);
  if (st != WS_OK) return st;
  if (p->kind != WS_POINT_GEMM && p->source != WS_POINT_SOURCE_GENERATED)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "only GEMM points have a CUDA C source");
  switch (p->kind) {
  case WS_POINT_GEMM: return resolve_gemm(ctx, p, r);
  case WS_POINT_ATTENTION: return resolve_attn(ctx, p, r);
  case WS_POINT_KERNEL: return WS_OK; /* its kernel is known once compiled (explore/kspace.c) */
  default: return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown point kind %d", (int)p->kind);
  }
}

bool ws_point_validate(ws_ctx *ctx, const ws_point *p, char *why, size_t why_bytes) {
  resolved r;
  if (resolve(ctx, p, &r) == WS_OK) {
    if (why_bytes) why[0] = '\0';
    return true;
  }
  if (why_bytes) snprintf(why, why_bytes, "%s", ws_errmsg(ctx));
  return false;
}

/* The GEMM tiles of cfg into the point's fields, 0 where the variant's
 * kernel does not read the field. */
static void store_gemm_tiles(const ws_gemmgen_cfg *g, ws_point *out) {
  const uint32_t got[] = {g->bm, g->bn, g->bk, g->tm, g->tn, g->wm, g->wn, g->threads};
  uint32_t *fields[] = {&out->bm, &out->bn, &out->bk, &out->tm, &out->tn, &out->wm, &out->wn, &out->threads};
  for (uint32_t i = 0; i < sizeof got / sizeof got[0]; i++)
    *fields[i] = ws_gemmgen_uses_tile(g->variant, i) ? got[i] : 0;
}

void ws_point_resolve_tiles(const ws_point *p, ws_point *out) {
  *out = *p;
  if (p->kind == WS_POINT_GEMM) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gemmgen_cfg g;
    if (ctx && resolve_gemm_cfg(ctx, p, &g) == WS_OK) store_gemm_tiles(&g, out);
    ws_ctx_destroy(ctx);
  } else if (p->kind == WS_POINT_ATTENTION && strncmp(p->attn, "flash", WS_POINT_NAME_MAX) == 0) {
    ws_attngen_flash_cfg fc = flash_tiles(p);
    out->br = fc.br;
    out->bc = fc.bc;
  }
}

void ws_point_describe(const ws_point *p, char *buf, size_t buf_bytes) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gemmgen_cfg g;
  if (p->kind == WS_POINT_GEMM && ctx && resolve_gemm_cfg(ctx, p, &g) == WS_OK) {
    ws_gemmgen_describe(&g, buf, buf_bytes);
    size_t len = strlen(buf);
    if (p->source == WS_POINT_SOURCE_CUDA && len < buf_bytes)
      snprintf(buf + len, buf_bytes - len, " source cuda");
  } else if (p->kind == WS_POINT_GEMM)
    snprintf(buf, buf_bytes, "%.*s", WS_POINT_NAME_MAX, p->variant);
  else if (strncmp(p->attn, "flash", WS_POINT_NAME_MAX) == 0)
    snprintf(buf, buf_bytes, "flash br=%u bc=%u", flash_tiles(p).br, flash_tiles(p).bc);
  else
    snprintf(buf, buf_bytes, "%.*s", WS_POINT_NAME_MAX, p->attn);
  ws_ctx_destroy(ctx);
}

/* ---- measuring: one reading per launch ------------------------------------------------ */

typedef struct meter {
  ws_device *dev;
  const ws_point_opts *opts;
  ws_point_result *res;
  uint64_t longest_cycles; /* the launch the resources and occupancy are taken from */
  uint64_t l1_hits, l1_misses, l2_hits, l2_misses;
  uint64_t stalls[WS_POINT_STALLS_MAX];
} meter;

/* The CTA shape and occupancy of the point are its longest launch's: for
 * naive attention, the kernel that dominates its time. */
static void take_resources(meter *m, const ws_kernel *k, ws_dim3 block, const ws_launch_stats *ls) {
  ws_point_result *r = m->res;
  if (r->launches > 1 && ls->cycles <= m->longest_cycles) return;
  m->longest_cycles = ls->cycles;
  r->regs_per_thread = k->regs_per_thread;
  r->smem_per_cta_bytes = k->shared_size_bytes; /* the generated kernels use static shared memory only */
  r->threads_per_cta = block.x * block.y * block.z;
  r->ctas_per_sm = ls->occupancy.ctas_per_sm;
  r->occupancy_pct = 100.0 * ls->occupancy.occupancy;
  snprintf(r->limiter, sizeof r->limiter, "%s", ws_occupancy_limiter_name(ls->occupancy.limiter));
}

/* Counter names as docs/stats.md and sim/host/report.c define them. */
static void take_counters(meter *m, const ws_stats *s) {
  ws_point_result *r = m->res;
  m->l1_hits += ws_stats_sum(s, "sm*.l1.sector_hits");
  m->l1_misses += ws_stats_sum(s, "sm*.l1.sector_misses");
  m->l2_hits += ws_stats_sum(s, "l2.*.sector_hits");
  m->l2_misses += ws_stats_sum(s, "l2.*.sector_misses");
  r->dram_read_bytes += ws_stats_sum(s, "hbm.*.bytes_read");
  r->dram_write_bytes += ws_stats_sum(s, "hbm.*.bytes_written") + ws_stats_sum(s, "hbm.*.end_bytes_written");
  r->smem_bank_conflicts += ws_stats_sum(s, "sm*.smem.bank_conflicts");
  r->lsu_refusals += ws_stats_sum(s, "sm*.lsu.refusals");
  char pattern[64];
  for (uint32_t i = 0; i < r->nstalls; i++) {
    snprintf(pattern, sizeof pattern, "sm*.stall.%s", ws_device_stall_name(i));
    m->stalls[i] += ws_stats_sum(s, pattern);
  }
}

static ws_status observe(void *user, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                         const ws_launch_stats *ls) {
  meter *m = user;
  ws_point_result *r = m->res;
  r->launches++;
  r->ctas += ls->ctas;
  r->cycles += ls->cycles;
  r->warp_insns += ls->warp_insns;
  r->sampled |= ls->sampled;
  r->timed_ctas += ls->timed_ctas;
  r->timed_warp_insns += ls->timed_warp_insns;
  r->computed_ctas += ls->computed_ctas;
  r->cycles_ci95 += ls->cycles_ci95;
  take_resources(m, k, block, ls);
  take_counters(m, ws_device_stats(m->dev));
  if (m->opts && m->opts->on_launch) m->opts->on_launch(m->opts->user, m->dev, k->name, grid, block, ls);
  return WS_OK;
}

/* A launch stopped by a limit or an interrupt: the caller's report hook
 * sees what it simulated so far; the record takes nothing (the point's
 * run fails with the stop). */
static ws_status observe_stop(void *user, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                              const ws_launch_stats *ls) {
  const meter *m = user;
  m->opts->on_launch(m->opts->user, m->dev, k->name, grid, block, ls);
  return WS_OK;
}

static double hit_pct(uint64_t hits, uint64_t misses) {
  return hits + misses ? 100.0 * (double)hits / (double)(hits + misses) : -1.0;
}

/* The rates, over everything the launches summed. */
static void finish_record(const meter *m, const ws_point *p, const ws_gpu_cfg *gpu) {
  ws_point_result *r = m->res;
  r->l1_hit_pct = hit_pct(m->l1_hits, m->l1_misses);
  r->l2_hit_pct = hit_pct(m->l2_hits, m->l2_misses);
  uint64_t stalled = 0;
  for (uint32_t i = 0; i < r->nstalls; i++) stalled += m->stalls[i];
  for (uint32_t i = 0; i < r->nstalls; i++)
    r->stall_pct[i] = stalled ? 100.0 * (double)m->stalls[i] / (double)stalled : 0.0;
  if (p->kind == WS_POINT_GEMM)
    r->flops = 2.0 * p->m * p->n * p->k;
  else
    r->flops = 4.0 * p->heads * p->seq * p->seq * p->dhead;
  double clock_hz = (double)gpu->gpu.core_clock_mhz * 1e6;
  double secs = clock_hz > 0 ? (double)r->cycles / clock_hz : 0.0;
  r->time_us = secs * 1e6;
  r->gflops = secs > 0 ? r->flops / secs / 1e9 : 0.0;
  uint64_t dram = r->dram_read_bytes + r->dram_write_bytes;
  r->arith_intensity = dram ? r->flops / (double)dram : 0.0;
}

/* ---- inputs and checks ---------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [-range, range), on a 2^-24 grid: exact in fp32. */
static void fill_uniform(float *v, size_t n, double range, uint64_t *state) {
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(((double)(splitmix64(state) >> 40) / 8388608.0 - 1.0) * range);
}

/* What an output buffer holds before the launch: a NaN no arithmetic on
 * finite inputs makes (its payload is all ones; computed NaNs carry the
 * default payload), so an output still holding it was never written. */
#define UNWRITTEN_BYTE 0xffu
#define UNWRITTEN_BITS 0xffffffffu

static bool unwritten(const float *v) {
  uint32_t bits;
  memcpy(&bits, v, sizeof bits);
  return bits == UNWRITTEN_BITS;
}

/* Counts the outputs outside their bound and keeps the worst error; a NaN
 * is outside every bound. When the launch ran the slice (r->computed_ctas
 * < r->ctas), only the outputs written are compared, and counted. */
static void compare(ws_point_result *r, const char *what, const float *got, const double *ref,
                    const double *bound, size_t n) {
  size_t bad = 0, first = 0;
  double worst = 0;
  bool partial = r->computed_ctas < r->ctas;
  r->outputs = n;
  for (size_t i = 0; i < n; i++) {
    if (partial && unwritten(&got[i])) continue;
    r->checked_outputs++;
    double err = fabs((double)got[i] - ref[i]);
    if (!(err <= bound[i]) && bad++ == 0) first = i;
    if (err > worst || isnan(err)) worst = isnan(err) ? INFINITY : err;
  }
  r->max_abs_err = worst;
  r->check_pass = bad == 0;
  if (bad)
    snprintf(r->why, sizeof r->why,
             "%zu of %zu outputs outside the bound; first %s[%zu] = %.9g, want %.9g +- %.3g", bad, n, what,
             first, (double)got[first], ref[first], bound[first]);
}

/* The host buffers of one run, freed together. */
typedef struct host_bufs {
  float *in[2], *out, *ref32;
  double *ref, *bound;
} host_bufs;

static void host_free(host_bufs *h) {
  free(h->in[0]), free(h->in[1]), free(h->out), free(h->ref32), free(h->ref), free(h->bound);
}

static ws_status upload(ws_device *dev, const float *v, size_t n, uint64_t *d) {
  ws_status st = ws_device_malloc(dev, n * sizeof *v, d);
  return st == WS_OK ? ws_device_memcpy_htod(dev, *d, v, n * sizeof *v) : st;
}

/* ---- GEMM ------------------------------------------------------------------------------- */

static ws_status gemm_check(ws_ctx *ctx, const resolved *rs, const ws_point *p, host_bufs *h,
                            ws_point_result *r) {
  size_t nc = (size_t)p->m * p->n;
  ws_status st = ws_gemmgen_reference(ctx, &rs->gemm, p->m, p->n, p->k, h->in[0], h->in[1], NULL, NULL,
                                      h->ref32, h->bound);
  if (st != WS_OK) return st;
  h->ref = malloc(nc * sizeof *h->ref);
  if (!h->ref) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory for the reference");
  for (size_t i = 0; i < nc; i++) h->ref[i] = h->ref32[i];
  compare(r, "C", h->out, h->ref, h->bound, nc);
  return WS_OK;
}

/* The generated kernel, or the CUDA C one compiled for this point's tiles. */
static ws_status gemm_launch(ws_ctx *ctx, ws_device *dev, const resolved *rs, const ws_point *p,
                             const ws_gemmgen_problem *prob) {
  if (p->source != WS_POINT_SOURCE_CUDA) return ws_gemmgen_run(dev, &rs->gemm, prob, NULL);
  ws_program *prog = NULL;
  ws_status st = ws_cudagemm_build(ctx, &rs->gemm, &prog);
  if (st == WS_OK) st = ws_cudagemm_run(dev, prog, &rs->gemm, prob, NULL);
  ws_program_destroy(prog);
  return st;
}

static ws_status gemm_run(ws_ctx *ctx, ws_device *dev, const resolved *rs, const ws_point *p,
                          ws_point_result *r) {
  size_t na = (size_t)p->m * p->k, nb = (size_t)p->k * p->n, nc = (size_t)p->m * p->n;
  host_bufs h = {{malloc(na * sizeof(float)), malloc(nb * sizeof(float))},
                 malloc(nc * sizeof(float)),
                 malloc(nc * sizeof(float)),
                 NULL,
                 malloc(nc * sizeof(double))};
  ws_status st = WS_OK;
  if (!h.in[0] || !h.in[1] || !h.out || !h.ref32 || !h.bound)
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory for a %ux%ux%u GEMM", p->m, p->n, p->k);
  ws_gemmgen_problem prob = {p->m, p->n, p->k, 0, 0, 0, 0, 0};
  if (st == WS_OK) {
    uint64_t seed = p->seed;
    fill_uniform(h.in[0], na, 1.0, &seed);
    fill_uniform(h.in[1], nb, 1.0, &seed);
    st = upload(dev, h.in[0], na, &prob.a);
  }
  if (st == WS_OK) st = upload(dev, h.in[1], nb, &prob.b);
  if (st == WS_OK) st = ws_device_malloc(dev, nc * sizeof(float), &prob.c);
  if (st == WS_OK) st = ws_device_memset(dev, prob.c, UNWRITTEN_BYTE, nc * sizeof(float));
  if (st == WS_OK) st = gemm_launch(ctx, dev, rs, p, &prob);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(dev, h.out, prob.c, nc * sizeof(float));
  if (st == WS_OK) st = gemm_check(ctx, rs, p, &h, r);
  host_free(&h);
  return st;
}

/* ---- attention ---------------------------------------------------------------------------- */

/* One query row of one head in double precision, with the bound of
 * tests/models/kgen/test_attngen.c (derived there): scores err by (dh + 3) u
 * scale sum|q k|, plus 3u (|s| + |m|) in base 2; the softmax sum and P V
 * add (2T + 7) u; twice that covers second-order terms. s: T doubles. */
static void attn_ref_row(const ws_attngen_shape *sh, const float *qkv, uint32_t h, uint32_t i, double *s,
                         double *ref, double *bound) {
  const uint32_t T = sh->tokens, dh = sh->head_dim, D = sh->heads * dh;
  const double scale = 1.0 / sqrt((double)dh);
  const float *q = qkv + (size_t)i * 3 * D + (size_t)h * dh;
  double m = -INFINITY, l = 0, emax = 0;
  for (uint32_t j = 0; j < T; j++) {
    const float *k = qkv + (size_t)j * 3 * D + D + (size_t)h * dh;
    double dot = 0, mag = 0;
    for (uint32_t d = 0; d < dh; d++) dot += (double)q[d] * k[d], mag += fabs((double)q[d] * k[d]);
    s[j] = dot * scale;
    emax = fmax(emax, (dh + 3) * UNIT_ROUNDOFF * scale * mag); /* completed below with the max */
    m = fmax(m, s[j]);
  }
  double e = 0;
  for (uint32_t j = 0; j < T; j++) e = fmax(e, 3 * UNIT_ROUNDOFF * (fabs(s[j]) + fabs(m)));
  emax += e;
  for (uint32_t j = 0; j < T; j++) s[j] = exp(s[j] - m), l += s[j];
  for (uint32_t c = 0; c < dh; c++) {
    double o = 0, mag = 0;
    for (uint32_t j = 0; j < T; j++) {
      double v = qkv[(size_t)j * 3 * D + 2 * D + (size_t)h * dh + c];
      o += s[j] * v / l, mag += s[j] * fabs(v) / l;
    }
    ref[(size_t)i * D + (size_t)h * dh + c] = o;
    bound[(size_t)i * D + (size_t)h * dh + c] = 2.0 * (2 * emax + (2.0 * T + 7) * UNIT_ROUNDOFF) * mag;
  }
}

static ws_status attn_check(ws_ctx *ctx, const ws_attngen_shape *sh, host_bufs *h, ws_point_result *r) {
  size_t no = (size_t)sh->tokens * sh->heads * sh->head_dim;
  h->ref = malloc(no * sizeof *h->ref);
  h->bound = malloc(no * sizeof *h->bound);
  double *s = malloc(sh->tokens * sizeof *s);
  if (!h->ref || !h->bound || !s) {
    free(s);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory for the attention reference");
  }
  for (uint32_t hd = 0; hd < sh->heads; hd++)
    for (uint32_t i = 0; i < sh->tokens; i++) attn_ref_row(sh, h->in[0], hd, i, s, h->ref, h->bound);
  free(s);
  compare(r, "O", h->out, h->ref, h->bound, no);
  return WS_OK;
}

static ws_status attn_launch(ws_device *dev, const resolved *rs, uint64_t qkv, uint64_t out) {
  if (rs->flash_on) return ws_attngen_flash_run(dev, &rs->shape, &rs->flash, qkv, out, NULL);
  const ws_attngen_shape *sh = &rs->shape;
  uint64_t scores = 0;
  ws_status st = ws_device_malloc(dev, (uint64_t)sh->heads * sh->tokens * sh->tokens * 4, &scores);
  return st == WS_OK ? ws_attngen_naive_run(dev, sh, qkv, scores, out, NULL) : st;
}

static ws_status attn_run(ws_ctx *ctx, ws_device *dev, const resolved *rs, const ws_point *p,
                          ws_point_result *r) {
  const ws_attngen_shape *sh = &rs->shape;
  size_t d = (size_t)sh->heads * sh->head_dim, nq = (size_t)sh->tokens * 3 * d, no = (size_t)sh->tokens * d;
  host_bufs h = {{malloc(nq * sizeof(float)), NULL}, malloc(no * sizeof(float)), NULL, NULL, NULL};
  ws_status st = WS_OK;
  if (!h.in[0] || !h.out) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory for attention's inputs");
  uint64_t qkv = 0, out = 0;
  if (st == WS_OK) {
    uint64_t seed = p->seed;
    fill_uniform(h.in[0], nq, 2.0, &seed); /* scores of a few units: a peaked softmax, as in the tests */
    st = upload(dev, h.in[0], nq, &qkv);
  }
  if (st == WS_OK) st = ws_device_malloc(dev, no * sizeof(float), &out);
  if (st == WS_OK) st = ws_device_memset(dev, out, UNWRITTEN_BYTE, no * sizeof(float));
  if (st == WS_OK) st = attn_launch(dev, rs, qkv, out);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(dev, h.out, out, no * sizeof(float));
  if (st == WS_OK) st = attn_check(ctx, sh, &h, r);
  host_free(&h);
  return st;
}

/* ---- running -------------------------------------------------------------------------------- */

/* A point's launches measured on dev: timing mode, the watch, sampling and
 * hooks of opts, every launch body makes observed, and the record finished
 * from the counters. */
static ws_status measure(ws_ctx *ctx, ws_device *dev, const ws_gpu_cfg *gpu, const ws_point *p,
                         const ws_point_opts *opts, ws_point_body_fn body, void *user, ws_point_result *res) {
  ws_device_set_mode(dev, WS_MODE_TIMING);
  ws_watch watch = {0};
  watch.timeout_s = opts ? opts->timeout_s : 0;
  ws_device_set_watch(dev, &watch);
  /* naive attention's later kernels read what the first wrote: a slice of
   * one would leave the next reading outputs never written */
  bool chained = p->kind == WS_POINT_ATTENTION && strncmp(p->attn, "flash", WS_POINT_NAME_MAX) != 0;
  ws_device_set_sampling(dev, &(ws_sampling){.measure_waves = p->sample_waves,
                                             .measure_rounds = p->sample_rounds,
                                             .exact = chained || (opts && opts->sample_exact)});
  ws_device_set_threads(dev, opts ? opts->sim_threads : 0);
  if (opts && opts->on_device) opts->on_device(opts->user, dev);
  meter m = {.dev = dev, .opts = opts, .res = res};
  ws_device_set_observer(dev, observe, &m);
  if (opts && opts->on_launch) ws_device_set_stop_observer(dev, observe_stop, &m);
  ws_device_set_keep_l2(dev, p->keep_l2 != 0);
  ws_status st = body(user, ctx, dev, res);
  if (st == WS_OK && p->keep_l2) { /* the last launch's dirty lines, written back after it */
    ws_device_write_back_l2(dev);
    res->dram_write_bytes += ws_stats_sum(ws_device_stats(dev), "hbm.*.end_bytes_written");
  }
  ws_device_set_observer(dev, NULL, NULL);
  ws_device_set_stop_observer(dev, NULL, NULL);
  if (st == WS_OK && res->valid) finish_record(&m, p, gpu);
  return st;
}

/* The built-in kinds' launches: a generated GEMM or attention. */
typedef struct builtin {
  const resolved *rs;
  const ws_point *p;
} builtin;

static ws_status builtin_body(void *user, ws_ctx *ctx, ws_device *dev, ws_point_result *res) {
  const builtin *b = user;
  return b->p->kind == WS_POINT_GEMM ? gemm_run(ctx, dev, b->rs, b->p, res)
                                     : attn_run(ctx, dev, b->rs, b->p, res);
}

/* Every key of the config as an INI file would hold it, into the CRC. */
static uint32_t config_crc(uint32_t crc, const ws_gpu_cfg *cfg) {
  for (size_t i = 0; i < ws_config_key_count(); i++) {
    char value[512];
    ws_config_format(cfg, ws_config_key(i), value, sizeof value);
    crc = (uint32_t)crc32_z(crc, (const Bytef *)value, strlen(value) + 1);
  }
  return crc;
}

ws_status ws_point_digest(ws_ctx *ctx, const ws_point *pts, size_t n, uint32_t *out) {
  uint32_t crc = (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), (const Bytef *)pts, n * sizeof *pts);
  const ws_point *distinct[256]; /* each GPU once: a space names a handful */
  size_t nd = 0;
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK && nd < sizeof distinct / sizeof distinct[0]; i++) {
    bool seen = false;
    for (size_t j = 0; j < nd && !seen; j++)
      seen = memcmp(distinct[j]->gpu, pts[i].gpu, sizeof pts[i].gpu) == 0;
    if (seen) continue;
    distinct[nd++] = &pts[i];
    ws_gpu_cfg gpu;
    if ((st = resolve_gpu(ctx, &pts[i], &gpu)) == WS_OK) crc = config_crc(crc, &gpu);
  }
  *out = crc;
  return st;
}

/* What every run of a point starts with: res cleared (padding too: records
 * compare with memcmp), the point resolved (a refusal goes into res, with
 * *dev NULL and WS_OK), the stall names, and a fresh device of its GPU. */
static ws_status prepare(ws_ctx *ctx, const ws_point *p, ws_point_result *res, resolved *rs,
                         ws_device **dev) {
  memset(res, 0, sizeof *res);
  *dev = NULL;
  if (resolve(ctx, p, rs) != WS_OK) {
    snprintf(res->why, sizeof res->why, "%s", ws_errmsg(ctx));
    ws_ctx_clear(ctx);
    return WS_OK;
  }
  res->valid = true;
  res->nstalls =
      ws_device_stall_count() < WS_POINT_STALLS_MAX ? ws_device_stall_count() : WS_POINT_STALLS_MAX;
  for (uint32_t i = 0; i < res->nstalls; i++)
    snprintf(res->stall_names[i], sizeof res->stall_names[i], "%s", ws_device_stall_name(i));
  return ws_device_create(ctx, &rs->gpu, dev);
}

ws_status ws_point_run(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_result *res) {
  resolved rs;
  ws_device *dev = NULL;
  ws_status st = prepare(ctx, p, res, &rs, &dev);
  builtin b = {&rs, p};
  if (st == WS_OK && dev) st = measure(ctx, dev, &rs.gpu, p, opts, builtin_body, &b, res);
  ws_device_destroy(dev);
  return st;
}

/* ---- a caller's launches ------------------------------------------------------------------ */

ws_status ws_point_run_body(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_body_fn body,
                            void *user, ws_point_result *res) {
  resolved rs;
  ws_device *dev = NULL;
  ws_status st = prepare(ctx, p, res, &rs, &dev);
  if (st != WS_OK || !dev) return st;
  st = measure(ctx, dev, &rs.gpu, p, opts, body, user, res);
  ws_device_destroy(dev);
  return st;
}
