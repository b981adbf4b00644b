/* microbench.c - the microbenchmark runners of microbench.h.
 *
 * Design: each runner assembles its embedded kernel, prepares buffers, and
 * launches twice where a difference cancels fixed costs. Addresses for the
 * latency chains are chosen with the memory system's own mapping functions
 * (L2 slice hash, crossbar partition, DRAM channel/bank), instantiated
 * privately from the device's preset, so "near", "far" and "a bank no
 * earlier step opened" mean exactly what the timing model means by them.
 * Device caches are emptied at every timed launch (ws_memsys_reset in the
 * engine), so every level that needs warm caches warms them inside the same
 * launch: the chase runs `warm` untimed steps first, the L2 copy times a
 * second pass. A level is reported only when the counters of the two
 * launches show that its extra timed loads were all served by it; on a
 * preset too small for a chain (a tiny L1 or L2) the row says why instead
 * of carrying another level's latency under its name. */
#include "models/runs/microbench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/runs/example.h"
#include "sim/memsys/latency.h"

/* ---- kernels ---------------------------------------------------------------- */

typedef struct kern {
  ws_device *dev;
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *k;
  ws_args args;
} kern;

static ws_status kern_open(kern *kn, ws_device *dev, const char *path) {
  memset(kn, 0, sizeof *kn);
  kn->dev = dev;
  kn->ctx = ws_device_ctx(dev);
  ws_status st = ws_example_program(kn->ctx, path, &kn->prog);
  if (st != WS_OK) return st;
  kn->k = &kn->prog->kernels[0];
  ws_args_init(&kn->args, kn->k);
  return WS_OK;
}

static void kern_close(kern *kn) { ws_program_destroy(kn->prog); }

static ws_status kern_launch(kern *kn, uint32_t ctas, uint32_t threads, ws_launch_stats *ls) {
  if (ws_device_mode(kn->dev) != WS_MODE_TIMING)
    return ws_ctx_fail(kn->ctx, WS_ERR_INVALID, "microbenchmarks need the device in timing mode");
  return ws_device_launch(kn->dev, kn->k, (ws_dim3){ctas, 1, 1}, (ws_dim3){threads, 1, 1}, 0, &kn->args, ls);
}

/* CTAs of `threads` one SM holds for kernel k (at least 1 when it fits). */
static ws_status ctas_per_sm(kern *kn, uint32_t threads, uint32_t *out) {
  ws_occupancy occ;
  ws_status st = ws_device_occupancy(kn->dev, kn->k, (ws_dim3){threads, 1, 1}, 0, &occ);
  *out = st == WS_OK ? occ.ctas_per_sm : 0;
  return st;
}

/* Whether line's L2 slice is in the partition far from SM 0 (where CTA 0 runs). */
static bool line_is_far(const ws_device *dev, uint64_t line) {
  ws_location loc;
  ws_device_locate(dev, 0, line, &loc);
  return loc.far;
}

/* ---- latency: pointer chases ------------------------------------------------ */

#define CHASE_ELEMS_L1 32u   /* 4 KiB of lines: fits every preset's L1 (fewer on a smaller one) */
#define CHASE_ELEMS_L2 128u  /* lines in one L1 set: twice the most ways a preset has (64) */
#define CHASE_ELEMS_DRAM 32u /* fresh (channel, bank) pairs: classroom has exactly 32 */
#define CHASE_SMEM_STEPS 128u
#define CHASE_CANDIDATES 4096u

const char *ws_microbench_level_name(ws_microbench_level level) {
  static const char *const names[WS_MICROBENCH_LEVEL_COUNT] = {"shared memory", "L1 hit", "L2 hit, near",
                                                               "L2 hit, far", "DRAM, closed bank"};
  return level < WS_MICROBENCH_LEVEL_COUNT ? names[level] : "?";
}

/* Element i holds the address of element i + 1 (the last, of the first). */
static ws_status write_chain(ws_device *dev, const uint64_t *addrs, uint32_t n) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < n && st == WS_OK; i++) {
    uint64_t next = addrs[(i + 1) % n];
    st = ws_device_memcpy_htod(dev, addrs[i], &next, sizeof next);
  }
  return st;
}

#define NO_WARM_PARAM UINT32_MAX /* pchase_smem.wsa has no warm-up parameter */

/* Timed cycles of one chase launch (SR_CLOCK difference the kernel stores). */
static ws_status chase_once(kern *kn, uint64_t out, uint32_t warm, uint32_t steps, uint64_t *cycles) {
  uint32_t clk = 0;
  ws_status st = ws_args_set_u32(kn->ctx, &kn->args, "steps", steps);
  if (st == WS_OK && warm != NO_WARM_PARAM) st = ws_args_set_u32(kn->ctx, &kn->args, "warm", warm);
  if (st == WS_OK) st = kern_launch(kn, 1, 1, NULL);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(kn->dev, &clk, out, sizeof clk);
  *cycles = clk;
  return st;
}

/* Where the last launch's global loads were served: L1 hits, L2 hits and
 * L2 misses, in sectors (one per chase step). */
static void served(const ws_device *dev, uint64_t out[3]) {
  const ws_stats *stats = ws_device_stats(dev);
  out[0] = ws_stats_sum(stats, "sm*.l1.sector_hits");
  out[1] = ws_stats_sum(stats, "l2.*.sector_hits");
  out[2] = ws_stats_sum(stats, "l2.*.sector_misses");
}

/* The N- and 2N-step runs, their per-step difference and where the N extra
 * steps were served. */
/* What the longer of two launches served beyond the shorter one (each
 * launch resets the counters, so a level may serve fewer in the longer:
 * that counts as none, not as a wrapped difference). */
static uint64_t counted_between(uint64_t shorter, uint64_t longer) {
  return longer > shorter ? longer - shorter : 0;
}

static ws_status chase_pair(kern *kn, uint64_t out, uint32_t warm, ws_microbench_latency *r) {
  uint64_t a[3] = {0}, b[3] = {0};
  ws_status st = chase_once(kn, out, warm, r->steps, &r->cycles_n);
  served(kn->dev, a);
  if (st == WS_OK) st = chase_once(kn, out, warm, 2 * r->steps, &r->cycles_2n);
  served(kn->dev, b);
  r->served_l1 = counted_between(a[0], b[0]);
  r->served_l2 = counted_between(a[1], b[1]);
  r->served_dram = counted_between(a[2], b[2]);
  if (st == WS_OK && r->cycles_2n >= r->cycles_n && r->steps)
    r->measured_cycles = (double)(r->cycles_2n - r->cycles_n) / r->steps;
  return st;
}

static void why(ws_microbench_latency *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why(ws_microbench_latency *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
}

/* Every one of the N extra timed loads must have been served by the level
 * the row names, or the difference measures something else. */
static void check_served(ws_microbench_level lv, ws_microbench_latency *r) {
  uint64_t want[3] = {0};
  want[lv == WS_MICROBENCH_L1 ? 0 : lv == WS_MICROBENCH_DRAM ? 2 : 1] = r->steps;
  if (r->served_l1 == want[0] && r->served_l2 == want[1] && r->served_dram == want[2]) return;
  why(r, "of its %u timed loads %llu hit L1, %llu hit L2 and %llu missed L2", r->steps,
      (unsigned long long)r->served_l1, (unsigned long long)r->served_l2, (unsigned long long)r->served_dram);
}

/* Lines the L1 holds. */
static uint64_t l1_lines(const ws_gpu_cfg *cfg) { return (uint64_t)cfg->geom.l1_sets * cfg->l1.assoc; }

/* L1: consecutive lines, no more than the L1 holds (consecutive lines fill
 * its sets in turn); one lap fills the L1, then N = one lap, 2N = two. */
static uint32_t pick_l1(const ws_gpu_cfg *cfg, uint64_t base, uint64_t *addrs) {
  uint32_t n = l1_lines(cfg) < CHASE_ELEMS_L1 ? (uint32_t)l1_lines(cfg) : CHASE_ELEMS_L1;
  for (uint32_t i = 0; i < n; i++) addrs[i] = base + (uint64_t)i * cfg->l1.line_bytes;
  return n;
}

/* L2: lines that all fall into one L1 set (a cyclic walk over more lines
 * than the set has ways misses every time under LRU) and whose slice is in
 * the wanted partition. */
static uint32_t pick_l2(const ws_gpu_cfg *cfg, const ws_device *dev, uint64_t base, uint64_t region, bool far,
                        uint64_t *addrs) {
  uint64_t set_stride = (uint64_t)cfg->geom.l1_sets * cfg->l1.line_bytes;
  uint32_t n = 0;
  for (uint64_t j = 0; (j + 1) * set_stride <= region && n < CHASE_ELEMS_L2; j++) {
    uint64_t line = base + j * set_stride;
    if (line_is_far(dev, line) == far) addrs[n++] = line;
  }
  return n;
}

/* splitmix64: deterministic scattering of candidate lines. */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* DRAM: lines scattered over `region` bytes (twice the L2), each through a
 * near slice and into a (channel, bank) no earlier element uses, so every
 * step misses L1 and L2 (caches start cold and no line repeats) and finds
 * its bank closed: the idle closed-bank latency, with no row hit or
 * conflict. With `apart`, neighbours in the chain (the last and the first
 * included) use different channels: a channel that owes a refresh pays it
 * as soon as it goes idle, and the next step would otherwise wait for it. */
static uint32_t pick_dram_pass(const ws_gpu_cfg *cfg, const ws_device *dev, uint64_t base, uint64_t region,
                               uint8_t *used, uint64_t *addrs, bool apart) {
  uint64_t lines = region / cfg->l2.line_bytes;
  memset(used, 0, (size_t)cfg->hbm.channels * cfg->hbm.banks_per_channel);
  uint32_t n = 0, prev = 0, first = 0;
  for (uint32_t j = 0; j < CHASE_CANDIDATES * 16u && n < CHASE_ELEMS_DRAM; j++) {
    uint64_t line = base + (mix64(j) % lines) * cfg->l2.line_bytes;
    ws_location loc;
    ws_device_locate(dev, 0, line, &loc);
    uint32_t key = loc.channel * cfg->hbm.banks_per_channel + loc.bank;
    bool last = n + 1 == CHASE_ELEMS_DRAM, near_prev = n && loc.channel == prev;
    if (loc.far || used[key] || (apart && (near_prev || (last && loc.channel == first)))) continue;
    used[key] = 1;
    if (!n) first = loc.channel;
    prev = loc.channel;
    addrs[n++] = line;
  }
  /* a shorter chain may end on its first line's channel: the previous line's differs */
  if (apart && n > 2 && prev == first) n--;
  return n;
}

/* Channels kept apart when that still fills the chain, or gives the longer
 * one (a preset whose near lines reach a single channel cannot). */
static uint32_t pick_dram(const ws_gpu_cfg *cfg, const ws_device *dev, uint64_t base, uint64_t region,
                          uint8_t *used, uint64_t *addrs) {
  uint32_t n = pick_dram_pass(cfg, dev, base, region, used, addrs, true);
  if (n == CHASE_ELEMS_DRAM) return n;
  uint32_t together = pick_dram_pass(cfg, dev, base, region, used, addrs, false);
  return together > n ? together : pick_dram_pass(cfg, dev, base, region, used, addrs, true);
}

static void set_expected(const ws_gpu_cfg *cfg, ws_microbench_level lv, ws_microbench_latency *r) {
  static const ws_mem_level mem_level[WS_MICROBENCH_LEVEL_COUNT] = {
      WS_LEVEL_L1_HIT, WS_LEVEL_L1_HIT, WS_LEVEL_L2_HIT_NEAR, WS_LEVEL_L2_HIT_FAR, WS_LEVEL_DRAM_ROW_MISS};
  if (lv == WS_MICROBENCH_SMEM) {
    r->path_cycles = r->expected_cycles = cfg->smem.lat_cycles;
    return;
  }
  r->path_cycles = ws_latency_idle_cycles(cfg, mem_level[lv]);
  r->expected_cycles = r->path_cycles + WS_MICROBENCH_GLOBAL_ISSUE_CYCLES;
}

typedef struct chase_env {
  ws_device *dev;
  const ws_gpu_cfg *cfg;
  kern kn;
  uint64_t out, region, region_bytes;
  uint64_t *addrs;
  uint8_t *bank_used; /* per (channel, bank): taken by a DRAM chain element */
} chase_env;

/* Why no chain of this preset can hit L2 while missing L1: a chain misses
 * L1 only with more lines than an L1 set has ways, and the L2 must hold
 * them all. False when a chain may. */
static bool l2_too_small(const ws_gpu_cfg *cfg, ws_microbench_latency *r) {
  uint64_t l2_lines = cfg->geom.l2_bytes / cfg->l2.line_bytes;
  if (l2_lines > cfg->l1.assoc) return false;
  why(r, "the L2 holds %llu lines, and a chain that misses L1 needs more than its %u ways of one set",
      (unsigned long long)l2_lines, cfg->l1.assoc);
  return true;
}

/* Runs the first n lines of e->addrs as a chain and checks where it was served. */
static ws_status run_chain(chase_env *e, ws_microbench_level lv, uint32_t n, ws_microbench_latency *r) {
  r->why[0] = '\0';
  r->chain_elems = n;
  r->warm_steps = lv == WS_MICROBENCH_DRAM ? 0 : n;
  r->steps = lv == WS_MICROBENCH_DRAM ? n / 2 : n;
  ws_status st = write_chain(e->dev, e->addrs, n);
  if (st == WS_OK) st = ws_args_set_ptr(e->kn.ctx, &e->kn.args, "start", e->addrs[0]);
  if (st == WS_OK) st = chase_pair(&e->kn, e->out, r->warm_steps, r);
  if (st == WS_OK) check_served(lv, r);
  return st;
}

static ws_status chase_global(chase_env *e, ws_microbench_level lv, ws_microbench_latency *r) {
  uint32_t n = 0;
  uint64_t base = e->region;
  bool l2 = lv == WS_MICROBENCH_L2_NEAR || lv == WS_MICROBENCH_L2_FAR;
  if (l2 && l2_too_small(e->cfg, r)) return WS_OK;
  if (lv == WS_MICROBENCH_L1)
    n = pick_l1(e->cfg, base, e->addrs);
  else if (lv == WS_MICROBENCH_DRAM)
    n = pick_dram(e->cfg, e->dev, base, e->region_bytes, e->bank_used, e->addrs);
  else
    n = pick_l2(e->cfg, e->dev, base, e->region_bytes, lv == WS_MICROBENCH_L2_FAR, e->addrs);
  r->chain_elems = n;
  if (n < 2) {
    why(r, "found only %u suitable line%s for a chain of at least 2", n, n == 1 ? "" : "s");
    return WS_OK;
  }
  ws_status st = run_chain(e, lv, n, r);
  /* a small L2 may not keep the whole chain: then the shortest chain that
   * still misses L1 (one line more than a set's ways) is tried */
  uint32_t shortest = e->cfg->l1.assoc + 1;
  if (st == WS_OK && l2 && r->served_dram && n > shortest) st = run_chain(e, lv, shortest, r);
  return st;
}

static ws_status chase_smem(ws_device *dev, uint64_t out, ws_microbench_latency *r) {
  kern kn;
  ws_status st = kern_open(&kn, dev, "models/runs/microbench/pchase_smem.wsa");
  if (st == WS_OK) st = ws_args_set_ptr(kn.ctx, &kn.args, "out", out);
  r->chain_elems = 1024;
  r->warm_steps = 0;
  r->steps = CHASE_SMEM_STEPS;
  if (st == WS_OK && kn.k->shared_size_bytes > ws_device_cfg(dev)->smem.max_per_block_bytes) {
    why(r, "its %u-byte chain does not fit the %u bytes of shared memory a CTA may use",
        kn.k->shared_size_bytes, ws_device_cfg(dev)->smem.max_per_block_bytes);
    kern_close(&kn);
    return WS_OK;
  }
  if (st == WS_OK) st = chase_pair(&kn, out, NO_WARM_PARAM, r);
  kern_close(&kn);
  return st;
}

static ws_status chase_open(chase_env *e, ws_device *dev) {
  memset(e, 0, sizeof *e);
  e->dev = dev;
  e->cfg = ws_device_cfg(dev);
  ws_ctx *ctx = ws_device_ctx(dev);
  /* twice the L2 for the DRAM chain, and room for the L1 and L2 chains on a
   * preset whose L2 is smaller than they are */
  uint64_t set_stride = (uint64_t)e->cfg->geom.l1_sets * e->cfg->l1.line_bytes;
  e->region_bytes = 2 * e->cfg->geom.l2_bytes;
  if (e->region_bytes < (uint64_t)CHASE_ELEMS_L1 * e->cfg->l1.line_bytes)
    e->region_bytes = (uint64_t)CHASE_ELEMS_L1 * e->cfg->l1.line_bytes;
  if (e->region_bytes < CHASE_ELEMS_L2 * set_stride) e->region_bytes = CHASE_ELEMS_L2 * set_stride;
  e->addrs = calloc(CHASE_ELEMS_L2 > CHASE_ELEMS_DRAM ? CHASE_ELEMS_L2 : CHASE_ELEMS_DRAM, sizeof *e->addrs);
  e->bank_used = calloc((size_t)e->cfg->hbm.channels * e->cfg->hbm.banks_per_channel, 1);
  if (!e->addrs || !e->bank_used)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted (microbench chase)");
  ws_status st = ws_device_malloc(dev, 256, &e->out);
  if (st == WS_OK) st = ws_device_malloc(dev, e->region_bytes, &e->region);
  if (st == WS_OK) st = kern_open(&e->kn, dev, "models/runs/microbench/pchase.wsa");
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &e->kn.args, "out", e->out);
  return st;
}

static void chase_close(chase_env *e) {
  kern_close(&e->kn);
  if (e->region) ws_device_free(e->dev, e->region);
  if (e->out) ws_device_free(e->dev, e->out);
  free(e->bank_used);
  free(e->addrs);
}

ws_status ws_microbench_latency_run(ws_device *dev, ws_microbench_latency out[WS_MICROBENCH_LEVEL_COUNT]) {
  memset(out, 0, WS_MICROBENCH_LEVEL_COUNT * sizeof *out);
  chase_env e;
  ws_status st = chase_open(&e, dev);
  for (int lv = 0; lv < WS_MICROBENCH_LEVEL_COUNT && st == WS_OK; lv++) {
    ws_microbench_latency *r = &out[lv];
    if (lv == WS_MICROBENCH_L2_FAR && e.cfg->l2.partitions < 2) continue;
    r->present = true;
    set_expected(e.cfg, (ws_microbench_level)lv, r);
    if (lv == WS_MICROBENCH_SMEM)
      st = chase_smem(dev, e.out, r);
    else
      st = chase_global(&e, (ws_microbench_level)lv, r);
  }
  chase_close(&e);
  return st;
}

/* ---- bandwidth ------------------------------------------------------------------ */

#define STREAM_THREADS 256u
#define SMEM_BW_THREADS 1024u
#define SMEM_BW_LOADS_PER_REP 8u
#define SMEM_BW_BYTES_PER_LOAD 512u /* 32 lanes x 16 bytes */

const char *ws_microbench_bw_name(ws_microbench_bw_kind kind) {
  static const char *const names[WS_MICROBENCH_BW_COUNT] = {"HBM (copy > L2)", "L2 (copy, passes 3-6)",
                                                            "shared memory (LDS.128)"};
  return kind < WS_MICROBENCH_BW_COUNT ? names[kind] : "?";
}

static double to_gbps(const ws_gpu_cfg *cfg, uint64_t bytes, uint64_t cycles) {
  return cycles ? (double)bytes / (double)cycles * cfg->gpu.core_clock_mhz / 1000.0 : 0.0;
}

typedef struct stream_env {
  kern kn;
  uint64_t src, dst;
  uint32_t ctas, threads;
  uint64_t n16;
} stream_env;

/* Rounds buffer_bytes up to whole grid sweeps (4 pieces of 16 B per thread). */
static uint64_t stream_n16(uint64_t buffer_bytes, uint32_t ctas, uint32_t threads) {
  uint64_t unit = 4ull * ctas * threads;
  uint64_t n16 = (buffer_bytes + 15) / 16;
  return (n16 + unit - 1) / unit * unit;
}

/* max_sweep_bytes: when nonzero, fewer CTAs per SM (down to one) until one
 * grid sweep (64 B per thread) of a buffer is at most that. */
static ws_status stream_open(stream_env *s, ws_device *dev, uint64_t buffer_bytes, uint32_t threads,
                             uint64_t max_sweep_bytes) {
  memset(s, 0, sizeof *s);
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_status st = kern_open(&s->kn, dev, "models/runs/microbench/stream.wsa");
  uint32_t per_sm = 1;
  if (st == WS_OK) st = ctas_per_sm(&s->kn, threads, &per_sm);
  while (max_sweep_bytes && per_sm > 1 && 64ull * threads * per_sm * cfg->gpu.num_sms > max_sweep_bytes)
    per_sm--;
  s->threads = threads;
  s->ctas = cfg->gpu.num_sms * per_sm; /* one wave: CTA c runs on SM c mod num_sms */
  s->n16 = stream_n16(buffer_bytes, s->ctas, threads);
  if (st == WS_OK && s->n16 > UINT32_MAX)
    st = ws_ctx_fail(s->kn.ctx, WS_ERR_INVALID, "microbench: a %llu-byte stream buffer is too large",
                     (unsigned long long)buffer_bytes);
  if (st == WS_OK) st = ws_device_malloc(dev, s->n16 * 16, &s->src);
  if (st == WS_OK) st = ws_device_malloc(dev, s->n16 * 16, &s->dst);
  if (st == WS_OK) st = ws_args_set_ptr(s->kn.ctx, &s->kn.args, "src", s->src);
  if (st == WS_OK) st = ws_args_set_ptr(s->kn.ctx, &s->kn.args, "dst", s->dst);
  if (st == WS_OK) st = ws_args_set_u32(s->kn.ctx, &s->kn.args, "n16", (uint32_t)s->n16);
  return st;
}

static void stream_close(stream_env *s) {
  if (s->dst) ws_device_free(s->kn.dev, s->dst);
  if (s->src) ws_device_free(s->kn.dev, s->src);
  kern_close(&s->kn);
}

static ws_status stream_launch(stream_env *s, uint32_t passes, uint64_t *cycles) {
  ws_launch_stats ls;
  ws_status st = ws_args_set_u32(s->kn.ctx, &s->kn.args, "passes", passes);
  if (st == WS_OK) st = kern_launch(&s->kn, s->ctas, s->threads, &ls);
  *cycles = ls.cycles;
  return st;
}

static void stream_fill(const stream_env *s, ws_microbench_bw *out) {
  out->buffer_bytes = s->n16 * 16;
  out->bytes = 2 * out->buffer_bytes;
  out->ctas = s->ctas;
  out->threads_per_cta = s->threads;
}

ws_status ws_microbench_stream_hbm(ws_device *dev, uint64_t buffer_bytes, ws_microbench_bw *out) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  memset(out, 0, sizeof *out);
  stream_env s;
  ws_status st = stream_open(&s, dev, buffer_bytes, STREAM_THREADS, 0);
  if (st == WS_OK) st = stream_launch(&s, 1, &out->cycles);
  if (st == WS_OK) {
    const ws_stats *stats = ws_device_stats(dev);
    uint64_t dram = ws_stats_sum(stats, "hbm.*.bytes_read") + ws_stats_sum(stats, "hbm.*.bytes_written");
    stream_fill(&s, out);
    out->gbps = to_gbps(cfg, out->bytes, out->cycles);
    out->dram_gbps = to_gbps(cfg, dram, out->cycles);
    out->peak_gbps = (double)cfg->hbm.channels * cfg->hbm.channel_mbps / 1000.0;
  }
  stream_close(&s);
  return st;
}

/* L2: passes 3 to 6 of a copy whose buffers stay in L2, timed as
 * (cycles(6 passes) - cycles(2 passes)) / 4. Warps flow from one pass into
 * the next without a barrier, so the difference holds four passes' worth of
 * L2 traffic at full occupancy, with neither the ramp of the first pass nor
 * its DRAM fills; averaging four passes amortises how unevenly the warps
 * finish (one sweep per pass means one iteration per warp). Each pass reads the lines of the
 * next CTA of the previous pass (stream.wsa), which another SM read; an SM
 * meets its own lines again only num_sms passes later, or (two SMs) after
 * streaming more than its L1 holds. The grid is cut to fit one sweep in the
 * buffer, so the buffer stays at most the requested size. */
/* Passes 3-6 measure the L2 only when it holds both buffers and served
 * their reads: at least nine in ten sectors read hit L2. The rest are a few
 * conflict misses (a100: 220 of 1.1 million) or lines an SM read itself and
 * finds in its L1 (classroom: 1.6%); on a one-SM preset every SM re-reads
 * its own lines. */
static void check_l2_copy(const ws_gpu_cfg *cfg, uint64_t buffer_bytes, const uint64_t sectors[3],
                          ws_microbench_bw *out) {
  uint64_t reads = sectors[0] + sectors[1] + sectors[2];
  if (2 * buffer_bytes > cfg->geom.l2_bytes)
    snprintf(out->why, sizeof out->why, "its two %llu-byte buffers do not fit in the %llu-byte L2",
             (unsigned long long)buffer_bytes, (unsigned long long)cfg->geom.l2_bytes);
  else if (sectors[1] * 10 < reads * 9)
    snprintf(out->why, sizeof out->why,
             "passes 3-6 found only %llu of their %llu sectors read in L2 (%llu hit L1, %llu missed L2)",
             (unsigned long long)sectors[1], (unsigned long long)reads, (unsigned long long)sectors[0],
             (unsigned long long)sectors[2]);
}

static ws_status stream_l2(ws_device *dev, uint64_t buffer_bytes, ws_microbench_bw *out) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  stream_env s;
  uint64_t two = 0, six = 0;
  uint32_t threads = STREAM_THREADS;
  while (threads > 32 && 64ull * threads * cfg->gpu.num_sms > buffer_bytes) threads /= 2;
  /* with two SMs an SM meets its own lines every second pass, and two CTAs
   * sharing an SM drift apart by passes (the scheduler favours the older),
   * so the one behind would find in its L1 what the one ahead just read:
   * one CTA per SM there, the buffer two sweeps */
  uint64_t max_sweep = cfg->gpu.num_sms == 2 ? buffer_bytes / 2 : buffer_bytes;
  ws_status st = stream_open(&s, dev, buffer_bytes, threads, max_sweep);
  if (st == WS_OK && s.n16 * 16 > buffer_bytes) {
    /* round down instead: whole sweeps inside the requested size */
    uint64_t sweep = 64ull * s.ctas * s.threads;
    s.n16 = (buffer_bytes / sweep ? buffer_bytes / sweep : 1) * sweep / 16;
    st = ws_args_set_u32(s.kn.ctx, &s.kn.args, "n16", (uint32_t)s.n16);
  }
  uint64_t a[3] = {0}, b[3] = {0};
  if (st == WS_OK) st = stream_launch(&s, 2, &two);
  served(dev, a);
  if (st == WS_OK) st = stream_launch(&s, 6, &six);
  served(dev, b);
  uint64_t passes[3] = {counted_between(a[0], b[0]), counted_between(a[1], b[1]),
                        counted_between(a[2], b[2])};
  if (st == WS_OK) check_l2_copy(cfg, s.n16 * 16, passes, out);
  if (st == WS_OK) {
    stream_fill(&s, out);
    out->bytes *= 4;
    out->cycles = six > two ? six - two : 0;
    out->gbps = to_gbps(cfg, out->bytes, out->cycles);
    out->peak_gbps = to_gbps(cfg, (uint64_t)cfg->l2.slices * cfg->l2.slice_bytes_per_cycle, 1);
  }
  stream_close(&s);
  return st;
}

static ws_status smem_bw(ws_device *dev, uint32_t reps, ws_microbench_bw *out) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  kern kn;
  ws_launch_stats a, b;
  uint32_t ctas = cfg->gpu.num_sms; /* one 32-warp CTA per SM: 8 warps per sub-partition */
  ws_status st = kern_open(&kn, dev, "models/runs/microbench/smem_bw.wsa");
  if (st == WS_OK) st = ws_args_set_u32(kn.ctx, &kn.args, "reps", reps);
  if (st == WS_OK) st = kern_launch(&kn, ctas, SMEM_BW_THREADS, &a);
  if (st == WS_OK) st = ws_args_set_u32(kn.ctx, &kn.args, "reps", 2 * reps);
  if (st == WS_OK) st = kern_launch(&kn, ctas, SMEM_BW_THREADS, &b);
  if (st == WS_OK) {
    /* steady state: the R extra iterations of the 2R run */
    uint64_t warps = (uint64_t)ctas * (SMEM_BW_THREADS / 32);
    out->bytes = warps * reps * SMEM_BW_LOADS_PER_REP * SMEM_BW_BYTES_PER_LOAD;
    out->cycles = b.cycles > a.cycles ? b.cycles - a.cycles : 0;
    out->gbps = to_gbps(cfg, out->bytes, out->cycles);
    uint64_t per_cycle = (uint64_t)cfg->smem.banks * cfg->smem.bank_width_bytes * cfg->gpu.num_sms;
    out->peak_gbps = to_gbps(cfg, per_cycle, 1);
    out->ctas = ctas;
    out->threads_per_cta = SMEM_BW_THREADS;
  }
  kern_close(&kn);
  return st;
}

ws_status ws_microbench_bandwidth_run(ws_device *dev, const ws_microbench_bw_opts *opts,
                                      ws_microbench_bw out[WS_MICROBENCH_BW_COUNT]) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  uint64_t l2_bytes = cfg->geom.l2_bytes;
  ws_microbench_bw_opts o = opts ? *opts : (ws_microbench_bw_opts){0, 0, 0};
  if (!o.hbm_buffer_bytes) o.hbm_buffer_bytes = 2 * l2_bytes;
  if (!o.l2_buffer_bytes) o.l2_buffer_bytes = l2_bytes / 4;
  if (!o.smem_reps) o.smem_reps = 32;
  memset(out, 0, WS_MICROBENCH_BW_COUNT * sizeof *out);
  ws_status st = ws_microbench_stream_hbm(dev, o.hbm_buffer_bytes, &out[WS_MICROBENCH_BW_HBM]);
  if (st == WS_OK) st = stream_l2(dev, o.l2_buffer_bytes, &out[WS_MICROBENCH_BW_L2]);
  if (st == WS_OK) st = smem_bw(dev, o.smem_reps, &out[WS_MICROBENCH_BW_SMEM]);
  return st;
}

/* ---- shared-memory bank conflicts ---------------------------------------------- */

#define BANKS_THREADS 1024u /* 32 warps on SM 0: eight per sub-partition */
#define BANKS_REPS 16u
#define BANKS_LOADS_PER_REP 16u

/* Most distinct words any one bank receives from lanes reading word l * stride
 * (modulo the 1024-word array, as the kernel wraps). */
static uint32_t predicted_degree(const ws_gpu_cfg *cfg, uint32_t stride) {
  uint32_t banks = cfg->smem.banks ? cfg->smem.banks : 1, worst = 0;
  uint32_t words[32];
  for (uint32_t l = 0; l < 32; l++) words[l] = (l * stride) & 1023u;
  for (uint32_t b = 0; b < banks; b++) {
    uint32_t distinct = 0;
    for (uint32_t l = 0; l < 32; l++) {
      if (words[l] % banks != b) continue;
      bool seen = false;
      for (uint32_t k = 0; k < l && !seen; k++) seen = words[k] == words[l];
      distinct += !seen;
    }
    if (distinct > worst) worst = distinct;
  }
  return worst;
}

static ws_status banks_launch(kern *kn, uint32_t reps, ws_launch_stats *ls) {
  ws_status st = ws_args_set_u32(kn->ctx, &kn->args, "reps", reps);
  return st == WS_OK ? kern_launch(kn, 1, BANKS_THREADS, ls) : st;
}

/* Steady state: cycles(2R) - cycles(R) over R iterations' accesses, which
 * cancels both the start of the loop and the drain of its last loads. */
static ws_status banks_one(kern *kn, uint32_t stride, ws_microbench_bank_row *r) {
  ws_launch_stats a, b;
  ws_status st = ws_args_set_u32(kn->ctx, &kn->args, "stride", stride);
  if (st == WS_OK) st = banks_launch(kn, BANKS_REPS, &a);
  const ws_stats *stats = ws_device_stats(kn->dev);
  uint64_t wf = ws_stats_sum(stats, "sm*.smem.wavefronts"), insns = ws_stats_sum(stats, "sm*.smem.insns");
  if (st == WS_OK) st = banks_launch(kn, 2 * BANKS_REPS, &b);
  if (st != WS_OK) return st;
  uint64_t accesses = (uint64_t)(BANKS_THREADS / 32) * BANKS_REPS * BANKS_LOADS_PER_REP;
  r->stride = stride;
  r->predicted_degree = predicted_degree(ws_device_cfg(kn->dev), stride);
  r->wavefronts_per_access = insns ? (double)wf / (double)insns : 0.0;
  r->cycles_per_access = b.cycles > a.cycles ? (double)(b.cycles - a.cycles) / (double)accesses : 0.0;
  return WS_OK;
}

ws_status ws_microbench_smem_banks_run(ws_device *dev, uint32_t nrows, ws_microbench_bank_row *rows) {
  ws_ctx *ctx = ws_device_ctx(dev);
  if (!nrows || nrows > WS_MICROBENCH_MAX_STRIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "microbench: strides 1..%u, not %u", WS_MICROBENCH_MAX_STRIDE,
                       nrows);
  kern kn;
  uint64_t out = 0;
  ws_status st = kern_open(&kn, dev, "models/runs/microbench/smem_banks.wsa");
  if (st == WS_OK) st = ws_device_malloc(dev, 256, &out);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &kn.args, "out", out);
  for (uint32_t i = 0; i < nrows && st == WS_OK; i++) st = banks_one(&kn, i + 1, &rows[i]);
  for (uint32_t i = 0; i < nrows && st == WS_OK; i++)
    rows[i].relative =
        rows[0].cycles_per_access > 0 ? rows[i].cycles_per_access / rows[0].cycles_per_access : 0.0;
  if (out) ws_device_free(dev, out);
  kern_close(&kn);
  return st;
}

/* ---- coalescing ------------------------------------------------------------------ */

/* Distinct units of `unit_bytes` among the 32 addresses 4 * stride * lane. */
static uint32_t distinct_units(uint32_t stride, uint32_t unit_bytes) {
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint64_t u = 4ull * stride * l / unit_bytes;
    bool seen = false;
    for (uint32_t k = 0; k < l && !seen; k++) seen = 4ull * stride * k / unit_bytes == u;
    n += !seen;
  }
  return n;
}

static ws_status coalesce_one(kern *kn, uint32_t stride, ws_microbench_coalesce_row *r) {
  const ws_gpu_cfg *cfg = ws_device_cfg(kn->dev);
  ws_status st = ws_args_set_u32(kn->ctx, &kn->args, "stride", stride);
  if (st == WS_OK) st = kern_launch(kn, 1, 32, NULL);
  if (st != WS_OK) return st;
  const ws_stats *stats = ws_device_stats(kn->dev);
  r->stride = stride;
  r->predicted_sectors = distinct_units(stride, cfg->l1.sector_bytes);
  r->predicted_lines = distinct_units(stride, cfg->l1.line_bytes);
  r->sectors = ws_stats_sum(stats, "sm*.l1.sector_hits") + ws_stats_sum(stats, "sm*.l1.sector_misses");
  r->lines = ws_stats_sum(stats, "sm*.l1.loads");
  return WS_OK;
}

ws_status ws_microbench_coalescing_run(ws_device *dev, uint32_t nrows, ws_microbench_coalesce_row *rows) {
  ws_ctx *ctx = ws_device_ctx(dev);
  if (!nrows || nrows > WS_MICROBENCH_MAX_STRIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "microbench: strides 1..%u, not %u", WS_MICROBENCH_MAX_STRIDE,
                       nrows);
  kern kn;
  uint64_t data = 0, out = 0;
  ws_status st = kern_open(&kn, dev, "models/runs/microbench/stride.wsa");
  /* lane 0 must start a line, as the prediction assumes: the allocator's
   * 256-byte alignment does that for lines up to 256 B, longer lines get
   * room to round the start up */
  uint32_t line = ws_device_cfg(dev)->l1.line_bytes, pad = line > 256 ? line : 0;
  if (st == WS_OK) st = ws_device_malloc(dev, 4ull * 32 * WS_MICROBENCH_MAX_STRIDE + pad, &data);
  if (st == WS_OK) st = ws_device_malloc(dev, 4ull * 32, &out);
  uint64_t start = (data + line - 1) / line * line;
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &kn.args, "data", start);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &kn.args, "out", out);
  for (uint32_t i = 0; i < nrows && st == WS_OK; i++) st = coalesce_one(&kn, i + 1, &rows[i]);
  if (out) ws_device_free(dev, out);
  if (data) ws_device_free(dev, data);
  kern_close(&kn);
  return st;
}

/* ---- latency under load ------------------------------------------------------------ */

#define LOADED_THREADS 512u /* 16 warps per copying CTA */

typedef struct loaded_env {
  kern kn;
  uint64_t out, chain, src, dst, region_bytes, n16;
  uint64_t *addrs;
} loaded_env;

/* WARM + STEPS distinct lines scattered over the chain's region. */
static void pick_scattered(const ws_gpu_cfg *cfg, uint64_t base, uint64_t region, uint64_t *addrs,
                           uint32_t n) {
  uint64_t lines = region / cfg->l2.line_bytes;
  uint32_t got = 0;
  for (uint64_t j = 0; got < n; j++) {
    uint64_t line = base + (mix64(j + 7919u) % lines) * cfg->l2.line_bytes;
    bool seen = false;
    for (uint32_t i = 0; i < got && !seen; i++) seen = addrs[i] == line;
    if (!seen) addrs[got++] = line;
  }
}

static ws_status loaded_open(loaded_env *e, ws_device *dev) {
  memset(e, 0, sizeof *e);
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_ctx *ctx = ws_device_ctx(dev);
  uint32_t n = WS_MICROBENCH_LOADED_WARM + WS_MICROBENCH_LOADED_STEPS;
  e->region_bytes = 2 * cfg->geom.l2_bytes;
  if (e->region_bytes < (uint64_t)n * cfg->l2.line_bytes * 16)
    e->region_bytes = (uint64_t)n * cfg->l2.line_bytes * 16;
  /* every copying warp's first chunk inside the buffers: a sweep at most */
  uint64_t sweep16 = (uint64_t)cfg->gpu.num_sms * (LOADED_THREADS / 32) * 128;
  e->n16 = e->region_bytes / 16 / sweep16 * sweep16;
  if (e->n16 < sweep16) e->n16 = sweep16;
  e->addrs = calloc(n, sizeof *e->addrs);
  if (!e->addrs) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted (microbench loaded latency)");
  ws_status st = kern_open(&e->kn, dev, "models/runs/microbench/loaded.wsa");
  if (st == WS_OK && e->n16 > UINT32_MAX)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "microbench: loaded-latency buffers of %llu pieces are too large",
                     (unsigned long long)e->n16);
  if (st == WS_OK) st = ws_device_malloc(dev, 256, &e->out);
  if (st == WS_OK) st = ws_device_malloc(dev, e->region_bytes, &e->chain);
  if (st == WS_OK) st = ws_device_malloc(dev, e->n16 * 16, &e->src);
  if (st == WS_OK) st = ws_device_malloc(dev, e->n16 * 16, &e->dst);
  if (st != WS_OK) return st;
  pick_scattered(cfg, e->chain, e->region_bytes, e->addrs, n);
  st = write_chain(dev, e->addrs, n);
  const struct {
    const char *name;
    uint64_t v;
  } ptrs[] = {{"start", e->addrs[0]}, {"out", e->out}, {"src", e->src}, {"dst", e->dst}};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs && st == WS_OK; i++)
    st = ws_args_set_ptr(ctx, &e->kn.args, ptrs[i].name, ptrs[i].v);
  if (st == WS_OK) st = ws_args_set_u32(ctx, &e->kn.args, "warm", WS_MICROBENCH_LOADED_WARM);
  if (st == WS_OK) st = ws_args_set_u32(ctx, &e->kn.args, "steps", WS_MICROBENCH_LOADED_STEPS);
  if (st == WS_OK) st = ws_args_set_u32(ctx, &e->kn.args, "n16", (uint32_t)e->n16);
  return st;
}

static void loaded_close(loaded_env *e) {
  const uint64_t bufs[] = {e->dst, e->src, e->chain, e->out};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]) ws_device_free(e->kn.dev, bufs[i]);
  kern_close(&e->kn);
  free(e->addrs);
}

/* One launch with `k` copying SMs; the flag is cleared first. */
static ws_status loaded_point(loaded_env *e, uint32_t k, ws_microbench_loaded *r) {
  const ws_gpu_cfg *cfg = ws_device_cfg(e->kn.dev);
  uint32_t zero[4] = {0}, clk = 0;
  ws_launch_stats ls;
  ws_status st = ws_device_memcpy_htod(e->kn.dev, e->out, zero, sizeof zero);
  if (st == WS_OK)
    st = ws_device_launch(e->kn.dev, e->kn.k, (ws_dim3){1 + k, 1, 1}, (ws_dim3){LOADED_THREADS, 1, 1}, 0,
                          &e->kn.args, &ls);
  if (st == WS_OK) st = ws_device_memcpy_dtoh(e->kn.dev, &clk, e->out, sizeof clk);
  if (st != WS_OK) return st;
  const ws_stats *stats = ws_device_stats(e->kn.dev);
  r->copy_sms = k;
  r->chase_cycles = clk;
  r->latency_cycles = (double)clk / WS_MICROBENCH_LOADED_STEPS;
  r->latency_ns = r->latency_cycles * 1000.0 / cfg->gpu.core_clock_mhz;
  r->launch_cycles = ls.cycles;
  r->dram_bytes = ws_stats_sum(stats, "hbm.*.bytes_read") + ws_stats_sum(stats, "hbm.*.bytes_written");
  r->dram_gbps = to_gbps(cfg, r->dram_bytes, ls.cycles);
  double peak = (double)cfg->hbm.channels * cfg->hbm.channel_mbps / 1e3;
  r->dram_pct = peak > 0 ? 100.0 * r->dram_gbps / peak : 0;
  return WS_OK;
}

ws_status ws_microbench_loaded_run(ws_device *dev, ws_microbench_loaded out[WS_MICROBENCH_LOADED_POINTS],
                                   uint32_t *n) {
  static const uint32_t sixteenths[WS_MICROBENCH_LOADED_POINTS] = {0, 1, 2, 4, 8, 12, 16};
  memset(out, 0, WS_MICROBENCH_LOADED_POINTS * sizeof *out);
  *n = 0;
  if (ws_device_mode(dev) != WS_MODE_TIMING)
    return ws_ctx_fail(ws_device_ctx(dev), WS_ERR_INVALID, "microbenchmarks need the device in timing mode");
  uint32_t others = ws_device_cfg(dev)->gpu.num_sms - 1, last = UINT32_MAX;
  loaded_env e;
  ws_status st = loaded_open(&e, dev);
  for (uint32_t i = 0; i < WS_MICROBENCH_LOADED_POINTS && st == WS_OK; i++) {
    uint32_t k = (others * sixteenths[i] + 8) / 16;
    if (sixteenths[i] && k == 0) k = 1;
    if (k > others || k == last) continue;
    last = k;
    st = loaded_point(&e, k, &out[(*n)++]);
  }
  loaded_close(&e);
  return st;
}

/* ---- arithmetic throughput --------------------------------------------------------- */

#define TPUT_THREADS 256u
#define TPUT_ITERS 16u

const char *ws_microbench_tput_name(ws_microbench_tput_kind kind) {
  static const char *const names[WS_MICROBENCH_TPUT_COUNT] = {"FP32 FFMA", "tensor HMMA.16816.F32"};
  return kind < WS_MICROBENCH_TPUT_COUNT ? names[kind] : "?";
}

/* FLOP of one loop iteration of one warp: 32 FFMAs x 32 lanes x 2, or 8 HMMAs x 4096. */
static double tput_iter_flop(ws_microbench_tput_kind kind) {
  return kind == WS_MICROBENCH_FFMA ? 32.0 * 32 * 2 : 8.0 * 4096;
}

static ws_status tput_one(ws_device *dev, ws_program *prog, ws_microbench_tput_kind kind,
                          ws_microbench_tput *r) {
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  ws_ctx *ctx = ws_device_ctx(dev);
  const ws_kernel *k = &prog->kernels[kind];
  ws_occupancy occ;
  ws_status st = ws_device_occupancy(dev, k, (ws_dim3){TPUT_THREADS, 1, 1}, 0, &occ);
  if (st != WS_OK) return st;
  r->ctas = cfg->gpu.num_sms * occ.ctas_per_sm; /* one wave, every warp slot it allows */
  r->threads_per_cta = TPUT_THREADS;
  r->iters = TPUT_ITERS;
  uint64_t out = 0;
  ws_args args;
  ws_args_init(&args, k);
  st = ws_device_malloc(dev, (uint64_t)r->ctas * TPUT_THREADS * 4, &out);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, &args, "out", out);
  for (uint32_t pass = 0; pass < 2 && st == WS_OK; pass++) {
    ws_launch_stats ls;
    st = ws_args_set_u32(ctx, &args, "iters", TPUT_ITERS << pass);
    if (st == WS_OK)
      st = ws_device_launch(dev, k, (ws_dim3){r->ctas, 1, 1}, (ws_dim3){TPUT_THREADS, 1, 1}, 0, &args, &ls);
    if (st == WS_OK) *(pass ? &r->cycles_2n : &r->cycles_n) = ls.cycles;
  }
  if (out) ws_device_free(dev, out);
  if (st != WS_OK) return st;
  double warps = (double)r->ctas * (TPUT_THREADS / 32);
  double flop = warps * TPUT_ITERS * tput_iter_flop(kind);
  r->flop_per_cycle_per_sm =
      r->cycles_2n > r->cycles_n ? flop / (double)(r->cycles_2n - r->cycles_n) / cfg->gpu.num_sms : 0;
  r->peak_per_cycle_per_sm = kind == WS_MICROBENCH_FFMA
                                 ? 2.0 * cfg->sm.fp32_lanes_per_subpartition * cfg->sm.subpartitions
                                 : (double)cfg->sm.tensor_flops_per_cycle_per_sm;
  return WS_OK;
}

ws_status ws_microbench_tput_run(ws_device *dev, ws_microbench_tput out[WS_MICROBENCH_TPUT_COUNT]) {
  memset(out, 0, WS_MICROBENCH_TPUT_COUNT * sizeof *out);
  if (ws_device_mode(dev) != WS_MODE_TIMING)
    return ws_ctx_fail(ws_device_ctx(dev), WS_ERR_INVALID, "microbenchmarks need the device in timing mode");
  ws_program *prog = NULL;
  ws_status st = ws_example_program(ws_device_ctx(dev), "models/runs/microbench/tput.wsa", &prog);
  for (int i = 0; i < WS_MICROBENCH_TPUT_COUNT && st == WS_OK; i++)
    st = tput_one(dev, prog, (ws_microbench_tput_kind)i, &out[i]);
  ws_program_destroy(prog);
  return st;
}
