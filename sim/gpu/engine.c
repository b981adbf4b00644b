/* engine.c - the event-driven main loop and CTA placement.
 *
 * Design: see engine.h. The loop's invariant: at a visited cycle t, every
 * event stamped t is handled before any SM issues at t, so a response at t
 * can be used by an instruction issued at t (load-to-use latency is exactly
 * the memory system's), and CTAs freed at t are replaced by new ones that
 * start issuing at t + 1 (placement is a cycle of work). Kernel time is the
 * cycle at which the last CTA retires and the memory system has drained
 * (posted stores included). The config comes resolved from the device and
 * is trusted: the engine re-checks nothing. */
#include "sim/gpu/engine.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/eventq.h"
#include "sim/exec/ffwd.h"
#include "sim/exec/taint.h"
#include "sim/gpu/dispatch.h"
#include "sim/memsys/memsys.h"
#include "sim/sm/scoreboard.h"
#include "sim/sm/sm.h"

#define NEVER UINT64_MAX

struct ws_engine {
  ws_ctx *ctx;
  const ws_gpu_cfg *cfg;
  const ws_probe *probe; /* NULL: nobody watches */
  ws_stats *stats;
  ws_eventq q;
  ws_memsys *mem;
  ws_sm **sms;
  uint32_t nsms;
  /* copies of each SM's next cycle and of "its LSU waits for the memory
   * system", refreshed after every call that can change them: the loop scans
   * these contiguous arrays every visited cycle instead of 2 x num_sms SM
   * structs (which do not stay in the host's cache) */
  uint64_t *sm_next;
  uint8_t *sm_blocked;
  /* a blocked LSU is offered again only when the memory system says its
   * L1 changed (ws_memsys_retry_due); the retries it skips, one per cycle
   * with memory events, are counted from mem_progress_cycles (cycles with
   * memory events so far) and sm_parked (its value at the SM's refusal),
   * so the refusal counters stay what retrying every such cycle gave */
  uint64_t *sm_parked;
  uint64_t mem_progress_cycles;
  /* bit i: SM i has a next cycle (sm_next[i] != NEVER). The loop visits
   * the set bits in index order, so SMs with nothing to do (a small grid on
   * a large GPU, or every warp waiting on memory) cost nothing per cycle */
  uint64_t *sm_awake;
  uint32_t nwords;
  ws_dispatch dispatch;
  uint64_t cycle;
  bool keep_l2;                 /* a launch finds the previous launch's L2 contents */
  ws_watchdog *wd;              /* the running launch's */
  ws_launch_stats *ls;          /* the running launch's; ctas kept current for progress reports */
  const ws_exec_launch *launch; /* the running launch */
  /* sampling: the choice, the running launch's sampler, the counters at the
   * open batch's start, and their moves over the closed batches */
  ws_sampling sampling;
  ws_sampler smp;
  uint64_t *batch_start, *window;
  size_t nwindow;
  uint64_t skipped_warp_insns; /* issued by the skipped CTAs, run functionally */
  /* sampling inside CTAs: the loop, the windows, the counters at the open
   * window's start, the resident CTAs and their snapshots (one per slot),
   * and CTA placements so far (a placement breaks a window) */
  ws_ffwd_plan ffwd;
  ws_loop_sampler loops;
  uint64_t *loop_start, *loop_prev; /* counters at the window's start; their moves over the window before */
  ws_ffwd_snap ffwd_origin;         /* the CTA whose loop's end is looked for */
  ws_cta **ffwd_ctas;
  uint64_t *ffwd_insns; /* each one's instructions over the window just closed */
  uint64_t *ffwd_speed; /* and over every window of the loop so far: its speed */
  uint64_t *ffwd_share; /* the iterations it moves on in the gap being made */
  ws_ffwd_snap *ffwd_snaps;
  uint32_t ffwd_cap;
  uint64_t placements;
  ws_warp_step ffwd_step; /* scratch for the fast-forward's steps */
  /* counters */
  uint64_t gpu_cycles, gpu_ctas, gpu_warp_insns, gpu_thread_insns, gpu_events, gpu_visits;
};

/* SM numbers travel as 16-bit event units, and an SM holds at most
 * WS_SM_MAX_SUBPARTS sub-partitions: the key table's bounds, checked when
 * the config was loaded, keep every config inside both. */
_Static_assert(WS_CFG_MAX_SMS - 1u <= UINT16_MAX, "SM numbers are event units");
_Static_assert(WS_CFG_MAX_SUBPARTITIONS <= WS_SM_MAX_SUBPARTS, "an SM's sub-partition array holds them all");

static void agent_landed(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle);

static ws_status register_stats(ws_engine *e) {
  const ws_stat_def defs[] = {
      {&e->gpu_cycles, "cycles", "kernel duration in core cycles (last CTA retired, memory drained)"},
      {&e->gpu_ctas, "ctas", "CTAs run"},
      {&e->gpu_warp_insns, "warp_insns", "warp instructions issued on all SMs"},
      {&e->gpu_thread_insns, "thread_insns", "thread instructions (executing lanes) on all SMs"},
      {&e->gpu_events, "events", "events processed by the engine (simulator work, not hardware)"},
      {&e->gpu_visits, "sm_visits", "SM visits by the engine (simulator work: cycles not skipped)"},
  };
  return ws_stats_register_table(e->stats, e->ctx, defs, sizeof defs / sizeof defs[0], "gpu.");
}

ws_status ws_engine_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_engine **out) {
  ws_engine *e = calloc(1, sizeof *e);
  if (!e) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating the timing engine");
  e->ctx = ctx;
  e->cfg = cfg;
  e->stats = stats;
  ws_eventq_init(&e->q);
  e->nsms = cfg->gpu.num_sms;
  e->sms = calloc(e->nsms, sizeof *e->sms);
  e->sm_next = calloc(e->nsms, sizeof *e->sm_next);
  e->sm_blocked = calloc(e->nsms, sizeof *e->sm_blocked);
  e->sm_parked = calloc(e->nsms, sizeof *e->sm_parked);
  e->nwords = (e->nsms + 63) / 64;
  e->sm_awake = calloc(e->nwords, sizeof *e->sm_awake);
  ws_status st = e->sms && e->sm_next && e->sm_blocked && e->sm_parked && e->sm_awake
                     ? register_stats(e)
                     : ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating SMs");
  if (st == WS_OK) st = ws_memsys_create(ctx, cfg, stats, &e->q, &e->mem);
  if (st == WS_OK) ws_memsys_set_host_write_observer(e->mem, agent_landed, e);
  for (uint32_t i = 0; i < e->nsms && st == WS_OK; i++)
    st = ws_sm_create(ctx, cfg, i, e->mem, stats, &e->sms[i]);
  if (st != WS_OK) {
    ws_engine_destroy(e);
    return st;
  }
  *out = e;
  return WS_OK;
}

void ws_engine_set_keep_l2(ws_engine *e, bool keep) { e->keep_l2 = keep; }

struct ws_uvm *ws_engine_uvm(ws_engine *e) {
  return ws_memsys_uvm(e->mem);
}

void ws_engine_set_sampling(ws_engine *e, const ws_sampling *cfg) {
  e->sampling = cfg ? *cfg : (ws_sampling){0};
}

void ws_engine_set_probe(ws_engine *e, const ws_probe *probe) {
  e->probe = probe;
  ws_memsys_set_probe(e->mem, probe);
}

static bool tagged(void *user, uint64_t addr, uint64_t size_bytes) {
  return ws_taint_mem_any(user, addr, size_bytes);
}

static ws_probe_launch probe_launch(const ws_exec_launch *launch, const ws_occupancy *occ, uint64_t cycles) {
  const ws_kernel *k = launch->kernel;
  return (ws_probe_launch){.kernel_name = k->name,
                           .kernel = k,
                           .grid = {launch->grid.x, launch->grid.y, launch->grid.z},
                           .block = {launch->block.x, launch->block.y, launch->block.z},
                           .regs_per_thread = k->regs_per_thread,
                           .shared_bytes = k->shared_size_bytes + launch->dyn_shared_bytes,
                           .ctas_per_sm = occ->ctas_per_sm,
                           .cycles = cycles};
}

/* The launch's own record, then its end: after the last micro-op. */
static void probe_end(const ws_engine *e, const ws_exec_launch *launch, const ws_occupancy *occ,
                      uint64_t end) {
  const ws_dim3 g = launch->grid, b = launch->block;
  ws_probe_event ev = {.end = end,
                       .sm = WS_PROBE_NONE,
                       .unit = WS_PROBE_NONE,
                       .warp = WS_PROBE_NONE,
                       .pc = UINT32_MAX,
                       .kind = WS_PEV_KERNEL};
  ws_probe_set_kernel_ctas(&ev, (uint32_t)((uint64_t)g.x * g.y * g.z));
  ws_probe_set_kernel_threads(&ev, b.x * b.y * b.z);
  e->probe->event(e->probe->user, &ev);
  ws_probe_launch l = probe_launch(launch, occ, end);
  e->probe->launch_end(e->probe->user, &l);
}

static void free_ffwd(ws_engine *e) {
  for (uint32_t i = 0; i < e->ffwd_cap; i++) ws_ffwd_snap_free(&e->ffwd_snaps[i]);
  free(e->ffwd_snaps);
  free(e->ffwd_ctas);
  free(e->ffwd_insns);
  free(e->ffwd_speed);
  free(e->ffwd_share);
  e->ffwd_speed = NULL;
  e->ffwd_share = NULL;
  e->ffwd_snaps = NULL;
  e->ffwd_ctas = NULL;
  e->ffwd_insns = NULL;
  e->ffwd_cap = 0;
}

void ws_engine_destroy(ws_engine *e) {
  if (!e) return;
  for (uint32_t i = e->nsms; e->sms && i-- > 0;) ws_sm_destroy(e->sms[i]);
  free(e->sms);
  free(e->sm_next);
  free(e->sm_blocked);
  free(e->sm_parked);
  free(e->sm_awake);
  free(e->window);
  free(e->batch_start);
  free(e->loop_start);
  free(e->loop_prev);
  ws_ffwd_snap_free(&e->ffwd_origin);
  free_ffwd(e);
  ws_memsys_destroy(e->mem);
  ws_eventq_free(&e->q);
  free(e);
}

/* Re-reads SM i's state after a call that may have changed it. */
static void sync_sm(ws_engine *e, uint32_t i) {
  e->sm_next[i] = ws_sm_next_cycle(e->sms[i]);
  bool blocked = ws_sm_lsu_blocked(e->sms[i]);
  /* only a visit's refusal blocks an LSU: this is that refusal's cycle */
  if (blocked && !e->sm_blocked[i]) e->sm_parked[i] = e->mem_progress_cycles;
  e->sm_blocked[i] = blocked;
  uint64_t bit = 1ull << (i % 64);
  if (e->sm_next[i] != NEVER)
    e->sm_awake[i / 64] |= bit;
  else
    e->sm_awake[i / 64] &= ~bit;
}

/* Counts the retries SM i's blocked LSU skipped: `later` cycles with memory
 * events since its refusal, each of which would have been refused again. */
static void count_skipped(ws_engine *e, uint32_t i, uint64_t later) {
  uint64_t skipped = e->mem_progress_cycles - e->sm_parked[i] - later;
  if (!skipped) return;
  ws_sm_count_refusals(e->sms[i], skipped);
  ws_memsys_count_refusals(e->mem, i, skipped);
  e->sm_parked[i] += skipped;
}

/* Offers SM i's refused access again at t (a cycle with memory events,
 * already counted) if its L1 changed since the refusal. */
static void retry_lsu(ws_engine *e, uint32_t i, uint64_t t) {
  if (!ws_memsys_retry_due(e->mem, i)) return;
  count_skipped(e, i, 1); /* the retry at t itself is counted as it is made */
  ws_sm_mem_progress(e->sms[i], t);
  sync_sm(e, i);
}

static void handle_event(ws_engine *e, const ws_event *ev, bool *mem_progress) {
  e->gpu_events++;
  if (ev->kind == WS_EVK_MEM_RESP || ev->kind == WS_EVK_SM_WAKE) {
    if (ev->kind == WS_EVK_MEM_RESP) {
      ws_sm_mem_response(e->sms[ev->unit], ev->payload, ev->cycle);
    } else {
      if (e->sm_blocked[ev->unit]) count_skipped(e, ev->unit, 0);
      ws_sm_mem_progress(e->sms[ev->unit], ev->cycle);
    }
    sync_sm(e, ev->unit);
  } else if (ev->kind >= WS_EVK_MEMSYS_FIRST && ev->kind <= WS_EVK_MEMSYS_LAST) {
    ws_memsys_handle(e->mem, ev);
    *mem_progress = true;
  }
}

static void handle_events(ws_engine *e, uint64_t t) {
  bool mem_progress = false;
  ws_event ev;
  while (ws_eventq_next_cycle(&e->q) == t && ws_eventq_pop(&e->q, &ev)) handle_event(e, &ev, &mem_progress);
  if (!mem_progress) return;
  e->mem_progress_cycles++;
  for (uint32_t i = 0; i < e->nsms; i++)
    if (e->sm_blocked[i]) retry_lsu(e, i, t);
}

static ws_status place(ws_engine *e, uint64_t t) {
  uint64_t cta;
  for (uint32_t i = 0; i < e->nsms; i++) {
    ws_sm *sm = e->sms[i];
    while (ws_sm_free_slots(sm) && ws_dispatch_next(&e->dispatch, &cta)) {
      ws_status st = ws_sm_launch_cta(sm, cta, t);
      if (st != WS_OK) return st;
      e->placements++;
    }
    sync_sm(e, i);
  }
  return WS_OK;
}

static ws_status place_initial(ws_engine *e) {
  uint32_t sm;
  uint64_t cta;
  while (ws_dispatch_initial(&e->dispatch, &sm, &cta)) {
    ws_status st = ws_sm_launch_cta(e->sms[sm], cta, 0);
    if (st != WS_OK) return st;
  }
  for (uint32_t i = 0; i < e->nsms; i++) sync_sm(e, i);
  return WS_OK;
}

static uint64_t next_cycle(const ws_engine *e) {
  uint64_t t = ws_eventq_next_cycle(&e->q);
  for (uint32_t w = 0; w < e->nwords; w++)
    for (uint64_t m = e->sm_awake[w]; m; m &= m - 1) {
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
      if (e->sm_next[i] < t) t = e->sm_next[i];
    }
  return t;
}

/* ---- sampling (sampler.h) ---------------------------------------------------------- */

/* Brings every lazily kept counter up to t: the SMs' active cycles and
 * resident warps, and the refusals blocked LSUs skipped. */
static void settle_counters(ws_engine *e, uint64_t t) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    if (e->sm_blocked[i]) count_skipped(e, i, 0);
    ws_sm_flush(e->sms[i], t);
  }
}

/* A batch opens (close = false: the counters now) or closes (their moves since, added up). */
static void batch_snapshot(ws_engine *e, uint64_t t, bool close) {
  settle_counters(e, t);
  for (size_t i = 0; i < e->nwindow; i++) {
    uint64_t v = ws_stats_value(e->stats, i);
    if (close)
      e->window[i] += v - e->batch_start[i];
    else
      e->batch_start[i] = v;
  }
}

/* The L2 warmings a skipped step makes: one per run of lanes in the same
 * line (a coalesced access is one to four), handed to `emit`. */
typedef void (*warm_fn)(void *user, uint64_t line_addr, uint8_t sectors, bool write);

static void step_lines(const ws_gpu_cfg *cfg, const ws_warp_step *step, warm_fn emit, void *user) {
  if (!(step->flags & (WS_STEP_LOAD | WS_STEP_STORE | WS_STEP_ATOMIC | WS_STEP_ASYNC))) return;
  if (step->space != WS_SPACE_GLOBAL && !(step->flags & WS_STEP_ASYNC)) return;
  bool write = step->flags & (WS_STEP_STORE | WS_STEP_ATOMIC);
  uint32_t shift = cfg->geom.line_shift, sector = cfg->l2.sector_bytes;
  uint64_t line = UINT64_MAX;
  uint8_t mask = 0;
  for (uint32_t m = step->active_mask; m; m &= m - 1) {
    uint64_t a = step->addr[__builtin_ctz(m)];
    if (a >> shift != line) {
      if (mask) emit(user, line << shift, mask, write);
      line = a >> shift, mask = 0;
    }
    mask |= (uint8_t)(1u << ((a & ((1u << shift) - 1)) / sector)); /* aligned: one sector per lane */
  }
  if (mask) emit(user, line << shift, mask, write);
}

static void warm_line(void *user, uint64_t line_addr, uint8_t sectors, bool write) {
  ws_memsys_warm(((ws_engine *)user)->mem, line_addr, sectors, write);
}

/* What a skipped CTA's global accesses leave in the L2. */
static void warm_step(void *user, const ws_warp_step *step) {
  ws_engine *e = user;
  step_lines(e->cfg, step, warm_line, e);
}

/* Runs CTAs [first, first + n) functionally, inside the launch's limits. */
static ws_status run_skipped(ws_engine *e, uint64_t first, uint64_t n) {
  ws_watch rest = ws_watchdog_rest(e->wd);
  ws_exec_launch l = *e->launch;
  l.watch = &rest;
  uint64_t before = e->ls->warp_insns;
  uint64_t ctas = e->ls->ctas;
  ws_status st = ws_exec_run_ctas(e->ctx, &l, first, n, warm_step, e, e->ls);
  e->ls->ctas = ctas; /* the engine counts CTAs by retirement */
  e->skipped_warp_insns += e->ls->warp_insns - before;
  return st;
}

/* Cycles as a full run would have them at t: loop windows skipped some. */
static uint64_t virtual_cycle(const ws_engine *e, uint64_t t) {
  return t + (uint64_t)llround(e->loops.skipped_cycles);
}

static ws_status sample(ws_engine *e, uint64_t t) {
  ws_sampler_action a = ws_sampler_retired(&e->smp, e->dispatch.retired, virtual_cycle(e, t));
  if (a == WS_SAMPLER_START) batch_snapshot(e, t, false);
  if (a != WS_SAMPLER_SKIP) return WS_OK;
  batch_snapshot(e, t, true);
  uint64_t n = ws_sampler_skip(&e->smp, e->dispatch.next, e->dispatch.retired);
  ws_status st = n ? run_skipped(e, e->dispatch.next, n) : WS_OK;
  e->dispatch.next += n;
  e->dispatch.retired += n;
  if (e->smp.phase == WS_SAMPLER_MEASURE) batch_snapshot(e, t, false);
  return st;
}

/* The skipped CTAs' share of every counter but the engine's own (gpu.*:
 * cycles and instructions are set exactly, events and visits count the
 * simulator's work). */
static void extrapolate(ws_engine *e) {
  for (size_t i = 0; i < e->nwindow; i++)
    if (strncmp(ws_stats_name(e->stats, i), "gpu.", 4) != 0)
      ws_stats_add(e->stats, i, ws_sampler_scale(&e->smp, e->window[i]));
}

/* ---- sampling inside CTAs (sampler.h "Loop windows", sim/exec/ffwd.h) --------------- */

/* How often (iterations of main_loop) the windows look at the resident
 * CTAs: a look reads every resident CTA, and a window lasts thousands of
 * cycles. */
#define LOOP_LOOK_EVERY_ITERATIONS 16u

static void loop_begin(ws_engine *e, ws_loop_phase phase, uint64_t t) {
  for (uint32_t i = 0; i < e->nsms; i++) ws_sm_ffwd_mark(e->sms[i]);
  if (phase == WS_LOOP_MEASURE) {
    settle_counters(e, t);
    for (size_t i = 0; i < e->nwindow; i++) e->loop_start[i] = ws_stats_value(e->stats, i);
  }
  ws_loop_sampler_open(&e->loops, phase, t, e->ls->warp_insns, e->placements + e->dispatch.retired);
}

/* The pending gap, priced (sampler.h); every counter but the engine's own
 * gains its rate per instruction over the window before the gap (and the
 * one just closed, when with_next) times the gap's instructions. */
static void loop_price(ws_engine *e, uint64_t t, bool with_next) {
  ws_loop_sampler *L = &e->loops;
  uint64_t gap = L->pending_insns;
  /* a window issues instructions, so prev is never empty; were it, its rates would divide by zero */
  if (!gap || !ws_loop_window_insns(&L->prev)) return;
  settle_counters(e, t);
  double before = (double)ws_loop_window_insns(&L->prev), after = (double)ws_loop_window_insns(&L->win);
  for (size_t i = 0; i < e->nwindow; i++) {
    if (strncmp(ws_stats_name(e->stats, i), "gpu.", 4) == 0) continue;
    double rate = (double)e->loop_prev[i] / before;
    if (with_next) rate = (rate + (double)(ws_stats_value(e->stats, i) - e->loop_start[i]) / after) / 2;
    ws_stats_add(e->stats, i, (uint64_t)llround(rate * (double)gap));
  }
  ws_loop_sampler_price(L, with_next);
}

static ws_ffwd_env ffwd_env(ws_engine *e, bool warm) {
  return (ws_ffwd_env){.ctx = e->ctx,
                       .plan = &e->ffwd,
                       .step = &e->ffwd_step,
                       .stats = e->ls,
                       .per_warp_limit = e->wd->per_warp,
                       .launch_limit = e->wd->budget ? e->wd->budget : UINT64_MAX,
                       .on_step = warm ? warm_step : NULL,
                       .user = e};
}

/* Fast-forwards one CTA (snapshot in snap) at most `limit` iterations, or
 * until an iteration has to stop (the loop's end), which is undone with
 * its counts: the CTA keeps its last iteration to be timed. *done: the
 * iterations made. With wd, Ctrl-C and the wall-clock limit are polled as
 * it goes (only the engine's own thread may: the watchdog is shared). */
static ws_status cta_rounds(const ws_ffwd_env *env, ws_cta *cta, ws_ffwd_snap *snap, uint64_t limit,
                            ws_watchdog *wd, uint64_t cycle, uint64_t *done) {
  for (*done = 0; *done < limit;) {
    ws_status st = ws_ffwd_save(env->ctx, cta, snap);
    ws_launch_stats keep = *env->stats;
    bool advanced = false;
    if (st == WS_OK) st = ws_ffwd_round(env, cta, &advanced);
    if (st != WS_OK) return st;
    if (!advanced) {
      ws_ffwd_restore(cta, snap);
      *env->stats = keep;
      return WS_OK;
    }
    if (++*done % 16 == 0 && wd && (st = ws_watchdog_poll(wd, env->ctx, env->stats, cycle)) != WS_OK)
      return st;
  }
  return WS_OK;
}

/* The resident CTAs' mean speed (instructions in the loop's windows), and
 * the highest into *most when not NULL. */
static double speed_mean(const ws_engine *e, uint32_t n, double *most) {
  double mean = 0, top = 0;
  for (uint32_t k = 0; k < n; k++) {
    mean += (double)e->ffwd_speed[k] / n;
    if ((double)e->ffwd_speed[k] > top) top = (double)e->ffwd_speed[k];
  }
  if (most) *most = top;
  return mean;
}

/* ---- a gap on several host threads ---------------------------------------------- */

typedef struct warm_rec {
  uint64_t line_addr;
  uint8_t sectors;
  bool write;
} warm_rec;

/* One CTA's share of a gap, run on a thread of its own. Everything it
 * writes is its own (its CTA and snapshot, its counts, the warmings it
 * records, its error); the threads share only what they read: the kernel,
 * the launch and device memory, which a loop's body only reads
 * (sim/exec/ffwd.h). The engine applies the warmings and counts afterwards
 * in CTA order, so a gap leaves exactly what one thread would have. */
typedef struct gap_job {
  ws_engine *e;
  uint32_t k;
  uint64_t share, done;
  ws_ctx *ctx;
  ws_launch_stats stats;
  ws_warp_step step;
  warm_rec *recs;
  size_t nrecs, cap;
  bool nomem;
  ws_status st;
} gap_job;

static void record_line(void *user, uint64_t line_addr, uint8_t sectors, bool write) {
  gap_job *j = user;
  if (j->nrecs == j->cap) {
    size_t cap = j->cap ? 2 * j->cap : 1024;
    warm_rec *grown = realloc(j->recs, cap * sizeof *grown);
    if (!grown) {
      j->nomem = true;
      return;
    }
    j->recs = grown;
    j->cap = cap;
  }
  j->recs[j->nrecs++] = (warm_rec){line_addr, sectors, write};
}

static void record_step(void *user, const ws_warp_step *step) {
  gap_job *j = user;
  step_lines(j->e->cfg, step, record_line, j);
}

/* cta_rounds on the job's own state. */
static void *run_job(void *arg) {
  gap_job *j = arg;
  ws_engine *e = j->e;
  ws_ffwd_env env = {.ctx = j->ctx,
                     .plan = &e->ffwd,
                     .step = &j->step,
                     .stats = &j->stats,
                     .per_warp_limit = e->wd->per_warp,
                     .launch_limit = e->wd->budget ? e->wd->budget : UINT64_MAX,
                     .on_step = record_step,
                     .user = j};
  j->st = cta_rounds(&env, e->ffwd_ctas[j->k], &e->ffwd_snaps[j->k], j->share, NULL, 0, &j->done);
  if (j->nomem && j->st == WS_OK)
    j->st = ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "host memory exhausted recording a gap's L2 accesses");
  return NULL;
}

/* Runs jobs [0, n) at once, one thread each (inline when a thread cannot
 * be started: the outcome is the same). */
static void run_jobs(gap_job *jobs, uint32_t n) {
  pthread_t tid[WS_SAMPLER_MAX_THREADS];
  bool started[WS_SAMPLER_MAX_THREADS];
  for (uint32_t i = 0; i < n; i++) {
    started[i] = i > 0 && pthread_create(&tid[i], NULL, run_job, &jobs[i]) == 0;
    if (i > 0 && !started[i]) run_job(&jobs[i]);
  }
  run_job(&jobs[0]);
  for (uint32_t i = 1; i < n; i++)
    if (started[i]) pthread_join(tid[i], NULL);
}

/* A finished job's effects, in CTA order: its warmings, its counts, its error. */
static ws_status take_job(ws_engine *e, gap_job *j, const ws_launch_stats *base, uint64_t *short_of) {
  for (size_t r = 0; r < j->nrecs; r++)
    ws_memsys_warm(e->mem, j->recs[r].line_addr, j->recs[r].sectors, j->recs[r].write);
  e->ls->warp_insns += j->stats.warp_insns - base->warp_insns;
  e->ls->thread_insns += j->stats.thread_insns - base->thread_insns;
  for (int u = 0; u < WS_UNIT_COUNT; u++)
    e->ls->warp_insns_by_unit[u] += j->stats.warp_insns_by_unit[u] - base->warp_insns_by_unit[u];
  *short_of += j->done < j->share;
  return j->st == WS_OK ? WS_OK : ws_ctx_fail(e->ctx, j->st, "%s", ws_errmsg(j->ctx));
}

/* The gap's CTAs in batches of `threads`, each batch at once. */
static ws_status gap_threads(ws_engine *e, uint32_t n, const uint64_t *shares, uint32_t threads, uint64_t t,
                             uint64_t *short_of) {
  gap_job jobs[WS_SAMPLER_MAX_THREADS];
  memset(jobs, 0, sizeof jobs);
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < threads && st == WS_OK; i++)
    if (!(jobs[i].ctx = ws_ctx_create()))
      st = ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for a gap's threads");
  for (uint32_t first = 0; first < n && st == WS_OK; first += threads) {
    uint32_t m = n - first < threads ? n - first : threads;
    ws_launch_stats base = *e->ls;
    for (uint32_t i = 0; i < m; i++) {
      jobs[i].e = e, jobs[i].k = first + i, jobs[i].share = shares[first + i];
      jobs[i].stats = base, jobs[i].nrecs = 0, jobs[i].nomem = false, jobs[i].st = WS_OK;
    }
    run_jobs(jobs, m);
    for (uint32_t i = 0; i < m; i++) {
      ws_status js = take_job(e, &jobs[i], &base, short_of);
      if (st == WS_OK) st = js;
    }
    if (st == WS_OK)
      st = ws_watchdog_poll(e->wd, e->ctx, e->ls, virtual_cycle(e, t)); /* Ctrl-C, wall clock */
  }
  for (uint32_t i = 0; i < threads; i++) {
    free(jobs[i].recs);
    ws_ctx_destroy(jobs[i].ctx);
  }
  return st;
}

/* A gap of `rounds` iterations for a CTA of mean speed: each CTA moves on
 * in proportion to the instructions it issued in the loop's windows so far,
 * so a CTA that runs slower (the younger of two on an SM, which the
 * scheduler serves last; an SM far from the L2 slices it reads) falls
 * behind as it would have, and the last to finish is the one it would have
 * been. A window of a few iterations measures a speed to a few percent;
 * every window of the loop adds to it.
 * *short_of: how many CTAs reached their loop's end before their share. */
static ws_status ffwd_gap(ws_engine *e, uint32_t n, uint64_t rounds, uint64_t t, uint64_t *short_of) {
  double mean = speed_mean(e, n, NULL);
  for (uint32_t k = 0; k < n; k++)
    e->ffwd_share[k] = (uint64_t)llround((double)rounds * (mean > 0 ? (double)e->ffwd_speed[k] / mean : 1.0));
  *short_of = 0;
  uint32_t threads =
      e->sampling.threads < WS_SAMPLER_MAX_THREADS ? e->sampling.threads : WS_SAMPLER_MAX_THREADS;
  if (threads > 1 && n > 1) return gap_threads(e, n, e->ffwd_share, threads, t, short_of);
  ws_ffwd_env env = ffwd_env(e, true);
  for (uint32_t k = 0; k < n; k++) {
    uint64_t done;
    ws_status st = cta_rounds(&env, e->ffwd_ctas[k], &e->ffwd_snaps[k], e->ffwd_share[k], e->wd,
                              virtual_cycle(e, t), &done);
    if (st != WS_OK) return st;
    *short_of += done < e->ffwd_share[k];
  }
  return WS_OK;
}

/* What the gaps may take of the `left` iterations the most advanced CTA
 * has: a CTA faster than the mean moves on by more than a gap's iterations
 * (ffwd_gap), so the room shrinks by the fastest one's lead, and the
 * loop's last iterations stay to be timed. */
static uint64_t gaps_room(const ws_engine *e, uint32_t n, uint64_t left) {
  double most, mean = speed_mean(e, n, &most);
  uint64_t room = most > 0 ? (uint64_t)((double)left * mean / most) : left;
  return room > WS_SAMPLER_END_ROUNDS ? room - WS_SAMPLER_END_ROUNDS : 0;
}

/* The iterations the most advanced resident CTA has left before its loop
 * ends: it runs there functionally (caches untouched) and is put back. */
static ws_status loop_left(ws_engine *e, uint32_t n, uint64_t t, uint64_t *left) {
  uint32_t lead = 0;
  for (uint32_t k = 1; k < n; k++)
    if (ws_ffwd_rounds(e->ffwd_ctas[k], &e->ffwd) > ws_ffwd_rounds(e->ffwd_ctas[lead], &e->ffwd)) lead = k;
  ws_status st = ws_ffwd_save(e->ctx, e->ffwd_ctas[lead], &e->ffwd_origin);
  if (st != WS_OK) return st;
  ws_launch_stats keep = *e->ls;
  ws_ffwd_env env = ffwd_env(e, false);
  st = cta_rounds(&env, e->ffwd_ctas[lead], &e->ffwd_snaps[lead], UINT64_MAX, e->wd, virtual_cycle(e, t),
                  left);
  ws_ffwd_restore(e->ffwd_ctas[lead], &e->ffwd_origin);
  *e->ls = keep;
  return st;
}

static uint32_t resident_ctas(ws_engine *e) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->nsms; i++)
    n += ws_sm_ffwd_ctas(e->sms[i], e->ffwd_ctas + n, e->ffwd_insns + n, e->ffwd_cap - n);
  return n;
}

/* The SMs carry on from t + 1 with their CTAs fast-forwarded. */
static void loop_resume(ws_engine *e, uint64_t t) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    ws_sm_ffwd_resume(e->sms[i], t);
    sync_sm(e, i);
  }
}

/* The resident CTAs' loop is done with: no window opens again before a
 * CTA is placed or retires. */
static void loop_end(ws_engine *e) {
  e->loops.phase = WS_LOOP_IDLE;
  e->loops.changes = e->placements + e->dispatch.retired;
}

/* A window closed at t: price the gap before it, plan the next gap from
 * what the lead CTA has left, and skip it, if there is room for one. */
static ws_status loop_window_closed(ws_engine *e, uint64_t t) {
  ws_loop_sampler *L = &e->loops;
  loop_price(e, t, true);
  uint32_t n = resident_ctas(e);
  uint64_t left;
  ws_status st = loop_left(e, n, t, &left);
  if (st != WS_OK) return st;
  for (uint32_t k = 0; k < n; k++) e->ffwd_speed[k] += e->ffwd_insns[k];
  ws_loop_sampler_plan_gap(L, gaps_room(e, n, left));
  if (!L->gap_rounds) {
    loop_end(e);
    return WS_OK;
  }
  settle_counters(e, t);
  for (size_t i = 0; i < e->nwindow; i++) e->loop_prev[i] = ws_stats_value(e->stats, i) - e->loop_start[i];
  L->prev = L->win;
  uint64_t before = e->ls->warp_insns, short_of;
  st = ffwd_gap(e, n, L->gap_rounds, t, &short_of);
  if (st != WS_OK) return st;
  L->pending_insns = e->ls->warp_insns - before;
  if (L->pending_insns) loop_resume(e, t);
  if (L->gap_alone || short_of) {
    loop_price(e, t, false);
    loop_end(e);
  } else {
    loop_begin(e, WS_LOOP_SETTLE, t);
  }
  return WS_OK;
}

/* A look at the resident CTAs every few cycles: a loop's first window opens
 * when all of them are past their warm-up and they changed since the last
 * loop was done with; a CTA placed or retired drops an open window or
 * settling (its gap priced from the window before). */
static ws_status loop_look(ws_engine *e, uint64_t t) {
  ws_loop_sampler *L = &e->loops;
  uint64_t changes = e->placements + e->dispatch.retired;
  if (L->phase == WS_LOOP_IDLE && changes == L->changes) return WS_OK; /* done with these CTAs: no scan */
  ws_sm_ffwd_view v;
  ws_sm_ffwd_view_init(&v);
  for (uint32_t i = 0; i < e->nsms; i++) ws_sm_ffwd_look(e->sms[i], &v);
  if (L->phase != WS_LOOP_IDLE && changes != L->changes_at_open) {
    loop_price(e, t, false);
    L->phase = WS_LOOP_IDLE;
  }
  if (L->phase == WS_LOOP_IDLE) {
    if (v.ctas && changes != L->changes && v.min_rounds >= WS_SAMPLER_WARM_ROUNDS) {
      ws_loop_sampler_begin_loop(L);
      memset(e->ffwd_speed, 0, e->ffwd_cap * sizeof *e->ffwd_speed);
      loop_begin(e, WS_LOOP_MEASURE, t);
    }
    return WS_OK;
  }
  uint32_t rounds = v.min_since_mark < UINT32_MAX ? (uint32_t)v.min_since_mark : UINT32_MAX;
  if (!ws_loop_sampler_progress(L, rounds, t, e->ls->warp_insns)) return WS_OK;
  if (L->phase == WS_LOOP_SETTLE) {
    loop_begin(e, WS_LOOP_MEASURE, t);
    return WS_OK;
  }
  return loop_window_closed(e, t);
}

/* Visits the SMs due at t, in index order; places CTAs into slots freed. */
static ws_status run_sms(ws_engine *e, uint64_t t) {
  bool freed = false;
  for (uint32_t w = 0; w < e->nwords; w++)
    for (uint64_t m = e->sm_awake[w]; m; m &= m - 1) {
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
      if (e->sm_next[i] > t) continue;
      uint32_t retired = 0;
      e->gpu_visits++;
      ws_status st = ws_sm_cycle(e->sms[i], t, &retired);
      sync_sm(e, i);
      if (st != WS_OK) return st;
      e->dispatch.retired += retired;
      freed |= retired != 0;
    }
  if (!freed) return WS_OK;
  if (e->loops.pending_insns) loop_price(e, t, false); /* before the wave sampler reads the time */
  if (e->smp.phase == WS_SAMPLER_WARM || e->smp.phase == WS_SAMPLER_MEASURE) {
    ws_status st = sample(e, t);
    if (st != WS_OK) return st;
  }
  e->ls->ctas = e->dispatch.retired; /* for progress reports */
  return place(e, t + 1);
}

/* Loop iterations between the watchdog's polls of the limits that need no
 * instruction (cycles, wall-clock time, interrupt): warps may wait on memory
 * for a long time without issuing. */
#define POLL_EVERY_ITERATIONS 4096u

/* ---- host code running alongside (ws_host_agent) ----------------------------------- */

/* The agent's next action while the kernel runs; an action planned after
 * the last CTA is gone and the memory system has drained is not waited for. */
static uint64_t agent_next(const ws_engine *e) {
  const ws_host_agent *a = e->launch->agent;
  if (!a) return NEVER;
  uint64_t n = a->next_cycle(a->user);
  e->wd->host_pending = n != NEVER;
  return n;
}

static ws_status agent_act(ws_engine *e, uint64_t t) {
  const ws_host_agent *a = e->launch->agent;
  if (!a || a->next_cycle(a->user) > t) return WS_OK;
  e->wd->effects++; /* the host wrote memory the warps may read */
  return a->act(a->user, t);
}

static void agent_landed(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle) {
  const ws_host_agent *a = ((ws_engine *)user)->launch->agent;
  if (a && a->landed) a->landed(a->user, line_addr, sector_mask, cycle);
}

static ws_status main_loop(ws_engine *e, uint64_t *end) {
  uint64_t t = 0;
  for (uint32_t iter = 1;; iter++) {
    uint64_t n = next_cycle(e);
    if (n == NEVER) break;
    uint64_t host = agent_next(e);
    if (host < t) host = t; /* planned for a cycle already visited: acts now */
    t = host < n ? host : n;
    if (iter % POLL_EVERY_ITERATIONS == 0) {
      ws_status st = ws_watchdog_poll(e->wd, e->ctx, e->ls, t);
      if (st != WS_OK) return st;
    }
    handle_events(e, t);
    ws_status st = agent_act(e, t);
    if (st == WS_OK) st = run_sms(e, t);
    if (st == WS_OK && e->loops.measure_rounds && iter % LOOP_LOOK_EVERY_ITERATIONS == 0)
      st = loop_look(e, t);
    if (st != WS_OK) return st;
  }
  *end = t;
  if (ws_dispatch_all_retired(&e->dispatch) && ws_memsys_idle(e->mem)) return WS_OK;
  return ws_ctx_fail(e->ctx, WS_ERR_FAULT,
                     "timing model stalled at cycle %" PRIu64 " with %" PRIu64 " of %" PRIu64
                     " CTAs retired and nothing left to wake it (a memory request was lost?)",
                     t, e->dispatch.retired, e->dispatch.total);
}

/* The batches' counters: one per registered counter (the registry only
 * grows, so the arrays grow when it did). */
static ws_status window_alloc(ws_engine *e) {
  size_t n = ws_stats_count(e->stats);
  if (n > e->nwindow) {
    free(e->window);
    free(e->batch_start);
    free(e->loop_start);
    free(e->loop_prev);
    e->batch_start = malloc(n * sizeof *e->batch_start);
    e->window = malloc(n * sizeof *e->window);
    e->loop_start = malloc(n * sizeof *e->loop_start);
    e->loop_prev = malloc(n * sizeof *e->loop_prev);
    e->nwindow = 0;
    if (!e->window || !e->batch_start || !e->loop_start || !e->loop_prev)
      return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the sampler's counters");
  }
  e->nwindow = n;
  memset(e->window, 0, n * sizeof *e->window);
  return WS_OK;
}

/* Room for every resident CTA and its snapshot. */
static ws_status ffwd_alloc(ws_engine *e, uint32_t resident) {
  if (resident <= e->ffwd_cap) return WS_OK;
  free_ffwd(e);
  e->ffwd_ctas = calloc(resident, sizeof *e->ffwd_ctas);
  e->ffwd_insns = calloc(resident, sizeof *e->ffwd_insns);
  e->ffwd_speed = calloc(resident, sizeof *e->ffwd_speed);
  e->ffwd_share = calloc(resident, sizeof *e->ffwd_share);
  e->ffwd_snaps = calloc(resident, sizeof *e->ffwd_snaps);
  if (!e->ffwd_ctas || !e->ffwd_insns || !e->ffwd_speed || !e->ffwd_share || !e->ffwd_snaps) {
    free_ffwd(e);
    return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the sampler's CTA snapshots");
  }
  e->ffwd_cap = resident;
  return WS_OK;
}

/* Sampling inside CTAs needs a loop to fast-forward, and no probe, checks
 * or pixel following (they watch every instruction where it runs). */
static ws_status plan_loops(ws_engine *e, ws_sm_env *env, const ws_exec_launch *launch,
                            const ws_occupancy *occ) {
  bool allowed = !e->probe && !launch->sanitize && !launch->taint && !launch->agent;
  ws_loop_sampler_plan(&e->loops, allowed ? &e->sampling : NULL);
  env->ffwd = NULL;
  if (!e->loops.measure_rounds) return WS_OK;
  ws_ffwd_plan_kernel(launch->kernel, &e->ffwd);
  if (!e->ffwd.usable) {
    e->loops.measure_rounds = 0;
    return WS_OK;
  }
  env->ffwd = &e->ffwd;
  ws_status st = window_alloc(e);
  return st == WS_OK ? ffwd_alloc(e, e->nsms * occ->ctas_per_sm) : st;
}

static ws_status begin(ws_engine *e, ws_sm_env *env, const ws_exec_launch *launch, const ws_occupancy *occ) {
  ws_status st = plan_loops(e, env, launch, occ);
  if (st != WS_OK) return st;
  for (uint32_t i = 0; i < e->nsms && st == WS_OK; i++) st = ws_sm_begin(e->sms[i], env);
  if (st != WS_OK) return st;
  const ws_dim3 g = launch->grid;
  ws_dispatch_init(&e->dispatch, (uint64_t)g.x * g.y * g.z, e->nsms, occ->ctas_per_sm);
  e->skipped_warp_insns = 0;
  e->placements = 0;
  /* a traced launch holds every micro-op; host code running alongside
   * sees every cycle: neither skips a wave */
  ws_sampler_plan(&e->smp, e->probe || launch->agent ? NULL : &e->sampling, e->dispatch.total,
                  (uint64_t)e->nsms * occ->ctas_per_sm);
  if (e->smp.phase != WS_SAMPLER_OFF && (st = window_alloc(e)) != WS_OK) return st;
  return place_initial(e);
}

static void finish(ws_engine *e, uint64_t end, ws_launch_stats *ls) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    if (e->sm_blocked[i]) count_skipped(e, i, 0); /* a launch stopped early */
    ws_sm_flush(e->sms[i], end);
    e->gpu_warp_insns += ws_sm_warp_insns(e->sms[i]);
    ws_sm_end(e->sms[i]);
  }
  e->gpu_cycles = end;
  e->gpu_ctas = e->dispatch.retired;
  e->gpu_thread_insns = ls->thread_insns;
  ls->cycles = end;
  ls->ctas = e->dispatch.retired;
  if (e->loops.pending_insns) loop_price(e, end, false); /* a launch stopped early */
  ls->timed_ctas = e->dispatch.retired - e->smp.skipped_ctas;
  ls->timed_warp_insns = ls->warp_insns - e->skipped_warp_insns - e->loops.skipped_insns;
  bool waves = e->smp.phase == WS_SAMPLER_DONE;
  if (!waves && !e->loops.skips) return;
  if (waves) extrapolate(e);
  e->gpu_warp_insns = ls->warp_insns; /* exact: every skipped instruction ran functionally */
  double skipped = (waves ? e->smp.skipped_cycles : 0) + e->loops.skipped_cycles;
  e->gpu_cycles = ls->cycles = end + (uint64_t)llround(skipped);
  ls->sampled = true;
  double wave_ci = waves ? e->smp.ci95_cycles : 0;
  ls->cycles_ci95 = (uint64_t)llround(sqrt(wave_ci * wave_ci + e->loops.var_cycles));
}

ws_status ws_engine_run(ws_engine *e, const ws_exec_launch *launch, const ws_occupancy *occ,
                        ws_launch_stats *ls) {
  memset(ls, 0, sizeof *ls);
  memset(&e->smp, 0, sizeof e->smp); /* off until begin plans it */
  memset(&e->loops, 0, sizeof e->loops);
  ls->occupancy = *occ;
  ws_stats_reset(e->stats);
  if (e->keep_l2)
    ws_memsys_reset_keep_l2(e->mem);
  else
    ws_memsys_reset(e->mem);
  ws_eventq_free(&e->q);
  ws_eventq_init(&e->q);
  ws_sm_env env = {.ctx = e->ctx,
                   .launch = launch,
                   .nrows = ws_cta_regs_needed(launch->kernel),
                   .ctas_per_sm = occ->ctas_per_sm,
                   .warps_per_cta = occ->warps_per_cta,
                   .ls = ls,
                   .probe = e->probe};
  if (e->probe && launch->taint)
    ws_memsys_set_tag_query(e->mem, tagged, ws_taint_memory(launch->taint));
  else
    ws_memsys_set_tag_query(e->mem, NULL, NULL);
  if (e->probe) {
    ws_probe_launch l = probe_launch(launch, occ, 0);
    e->probe->launch_begin(e->probe->user, &l);
  }
  ws_watchdog wd;
  uint64_t ctas = (uint64_t)launch->grid.x * launch->grid.y * launch->grid.z;
  uint64_t resident = (uint64_t)e->nsms * occ->ctas_per_sm;
  if (ctas < resident) resident = ctas;
  ws_status st = ws_watchdog_init(&wd, e->ctx, launch, (uint32_t)(resident * occ->warps_per_cta));
  env.wd = e->wd = &wd;
  e->ls = ls;
  e->launch = launch;
  ws_scoreboard_insn *table = NULL;
  if (st == WS_OK)
    st = ws_scoreboard_table_build(e->ctx, launch->kernel, env.nrows, e->cfg->regfile.banks_per_subpartition,
                                   e->cfg->sm.tensor_ii_cycles, &table);
  env.table = table;
  uint64_t end = 0;
  if (st == WS_OK) st = begin(e, &env, launch, occ);
  if (st == WS_OK) st = main_loop(e, &end);
  finish(e, end, ls);
  if (e->probe) probe_end(e, launch, occ, end);
  free(table);
  ws_watchdog_free(&wd);
  e->wd = NULL;
  e->ls = NULL;
  e->launch = NULL;
  return st;
}
