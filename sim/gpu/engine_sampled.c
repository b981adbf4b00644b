/* engine_sampled.c - the engine's side of a sampled launch
 * (sim/gpu/sampler.h): the CTA waves it times and the ones it runs only
 * functionally, the loop windows inside CTAs and the gaps between them,
 * fast-forwarded on several host threads, and the price of what was skipped.
 *
 * Design: the sampler decides (plans, estimates) and this file acts on the
 * engine's state (engine_int.h): it snapshots counters, runs skipped work,
 * warms the caches with the lines skipped work touched, and adds the
 * estimate back, so engine.c's main loop makes one test per visited cycle
 * for all of it. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gpu/engine_int.h"

void ws_engine_free_ffwd(ws_engine *e) {
  for (uint32_t i = 0; i < e->ffwd_cap; i++) ws_ffwd_snap_free(&e->ffwd_snaps[i]);
  free(e->ffwd_snaps);
  free(e->ffwd_ctas);
  free(e->ffwd_insns);
  free(e->ffwd_speed);
  free(e->ffwd_share);
  free(e->ffwd_done);
  free(e->credits);
  e->ffwd_speed = NULL;
  e->ffwd_share = NULL;
  e->ffwd_done = NULL;
  e->credits = NULL;
  e->ncredits = 0;
  e->ffwd_snaps = NULL;
  e->ffwd_ctas = NULL;
  e->ffwd_insns = NULL;
  e->ffwd_cap = 0;
}

/* ---- sampling (sampler.h) ---------------------------------------------------------- */

/* Brings every lazily kept counter up to t: the SMs' active cycles and
 * resident warps, and the refusals blocked LSUs skipped. */
static void settle_counters(ws_engine *e, uint64_t t) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    if (e->sm_blocked[i]) ws_engine_count_skipped(e, i, 0);
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
  bool local = step->space == WS_SPACE_LOCAL;
  if (step->space != WS_SPACE_GLOBAL && !local && !(step->flags & WS_STEP_ASYNC)) return;
  bool write = step->flags & (WS_STEP_STORE | WS_STEP_ATOMIC);
  uint32_t shift = cfg->geom.line_shift, sector = cfg->l2.sector_bytes;
  /* a local access's further words lie a warp's width apart: one pass each */
  uint32_t words = local && step->width_bytes > 4 ? step->width_bytes / 4u : 1u;
  for (uint32_t k = 0; k < words; k++) {
    uint64_t line = UINT64_MAX;
    uint8_t mask = 0;
    for (uint32_t m = step->active_mask; m; m &= m - 1) {
      uint64_t a = ws_warp_step_word_addr(step, (uint32_t)__builtin_ctz(m), k);
      if (a >> shift != line) {
        if (mask) emit(user, line << shift, mask, write);
        line = a >> shift, mask = 0;
      }
      mask |= (uint8_t)(1u << ((a & ((1u << shift) - 1)) / sector)); /* aligned: one sector per lane */
    }
    if (mask) emit(user, line << shift, mask, write);
  }
}

static void warm_line(void *user, uint64_t line_addr, uint8_t sectors, bool write) {
  ws_memsys_warm(((ws_engine *)user)->mem, line_addr, sectors, write, false);
}

static void warm_counted_line(void *user, uint64_t line_addr, uint8_t sectors, bool write) {
  ws_memsys_warm(((ws_engine *)user)->mem, line_addr, sectors, write, true);
}

/* What a loop gap's global accesses leave in the L2. Its DRAM reads are
 * priced with the other counters: the gap runs each CTA's share after the
 * other's, not interleaved as the SMs run them, so the L2 sees its lines
 * in another order and would count reads no run makes. The write-backs of
 * the dirty lines its loads evict are counted: the loop stores nothing,
 * and each dirty line is written back once, whenever that is. */
static void warm_step(void *user, const ws_warp_step *step) {
  ws_engine *e = user;
  step_lines(e->cfg, step, warm_line, e);
}

/* What a skipped CTA's global accesses leave in the L2, and the DRAM
 * traffic they cause, counted. */
static void warm_counted_step(void *user, const ws_warp_step *step) {
  ws_engine *e = user;
  step_lines(e->cfg, step, warm_counted_line, e);
}

static ws_status wave_threads(ws_engine *e, uint64_t first, uint64_t n, uint32_t threads);

/* Whether a wave gap may run on several host threads: its CTAs run the
 * slice but for a few, and the slice writes no global memory, so the
 * threads only read device memory while the few computed CTAs, which may
 * write, run alone first (nothing the others read depends on them). */
static uint32_t wave_gap_threads(const ws_engine *e, uint64_t n) {
  uint32_t threads = e->threads;
  if (threads < 2 || n < 2 * (uint64_t)threads || !e->slice.roles || e->slice.global_writes) return 1;
  return threads;
}

/* Runs CTAs [first, first + n) functionally, inside the launch's limits. */
static ws_status run_skipped(ws_engine *e, uint64_t first, uint64_t n) {
  uint64_t before = e->ls->warp_insns;
  uint64_t ctas = e->ls->ctas;
  uint32_t threads = wave_gap_threads(e, n);
  ws_status st;
  if (threads > 1) {
    st = wave_threads(e, first, n, threads);
  } else {
    ws_watch rest = ws_watchdog_rest(e->wd);
    ws_exec_launch l = *e->launch;
    l.watch = &rest;
    st = ws_exec_run_ctas(e->ctx, &l, first, n, warm_counted_step, e, e->ls);
  }
  e->ls->ctas = ctas; /* the engine counts CTAs by retirement */
  e->skipped_warp_insns += e->ls->warp_insns - before;
  return st;
}

/* Cycles as a full run would have them at t: loop windows skipped some. */
static uint64_t virtual_cycle(const ws_engine *e, uint64_t t) {
  return t + (uint64_t)llround(e->loops.skipped_cycles);
}

ws_status ws_engine_sample_wave(ws_engine *e, uint64_t t) {
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
 * simulator's work) and those their L2 warming counted (DRAM traffic and
 * write-backs: ws_memsys_warm with count set). The CTAs of a batch and
 * those of a gap between waves miss on different lines (the first rows of C fetch B, later ones
 * find it), so what a few batches fetched is a poor guide to what the
 * rest does; warming the L2 with each skipped access tells it exactly. */
void ws_engine_extrapolate(ws_engine *e) {
  for (size_t i = 0; i < e->nwindow; i++)
    if (strncmp(ws_stats_name(e->stats, i), "gpu.", 4) != 0 && !ws_stats_counted_when_skipped(e->stats, i))
      ws_stats_add(e->stats, i, ws_sampler_scale(&e->smp, e->window[i]));
}

/* ---- sampling inside CTAs (sampler.h "Loop windows", sim/exec/ffwd.h) --------------- */

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
void ws_engine_loop_price(ws_engine *e, uint64_t t, bool with_next) {
  ws_loop_sampler *L = &e->loops;
  uint64_t gap = L->pending_insns;
  /* a window issues instructions, so prev is never empty; were it, its rates would divide by zero */
  if (!gap || !ws_loop_window_insns(&L->prev)) return;
  settle_counters(e, t);
  double before = (double)ws_loop_window_insns(&L->prev), after = (double)ws_loop_window_insns(&L->win);
  for (size_t i = 0; i < e->nwindow; i++) {
    if (strncmp(ws_stats_name(e->stats, i), "gpu.", 4) == 0 || ws_stats_counted_in_loop_gaps(e->stats, i))
      continue;
    double rate = (double)e->loop_prev[i] / before;
    if (with_next) rate = (rate + (double)e->loop_win[i] / after) / 2;
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
  /* a wave gap's job instead: CTAs [first, first + count) run whole, their
   * DRAM traffic counted when the warmings are applied */
  uint64_t first, count;
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

/* Runs the job's CTAs whole, on its own state (run_skipped's, recorded). */
static ws_status run_wave_job(gap_job *j) {
  ws_engine *e = j->e;
  ws_watch rest = ws_watchdog_rest(e->wd);
  ws_exec_launch l = *e->launch;
  l.watch = &rest;
  return ws_exec_run_ctas(j->ctx, &l, j->first, j->count, record_step, j, &j->stats);
}

/* cta_rounds, or a wave gap's CTAs, on the job's own state. */
static void *run_job(void *arg) {
  gap_job *j = arg;
  ws_engine *e = j->e;
  if (j->count) {
    j->st = run_wave_job(j);
    if (j->nomem && j->st == WS_OK)
      j->st = ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "host memory exhausted recording a gap's L2 accesses");
    return NULL;
  }
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
static void run_job_list(gap_job **jobs, uint32_t n) {
  pthread_t tid[WS_TEAM_MAX_THREADS];
  bool started[WS_TEAM_MAX_THREADS];
  for (uint32_t i = 0; i < n; i++) {
    started[i] = i > 0 && pthread_create(&tid[i], NULL, run_job, jobs[i]) == 0;
    if (i > 0 && !started[i]) run_job(jobs[i]);
  }
  run_job(jobs[0]);
  for (uint32_t i = 1; i < n; i++)
    if (started[i]) pthread_join(tid[i], NULL);
}

static void run_jobs(gap_job *jobs, uint32_t n) {
  gap_job *list[WS_TEAM_MAX_THREADS];
  for (uint32_t i = 0; i < n; i++) list[i] = &jobs[i];
  run_job_list(list, n);
}

/* A finished job's effects, in CTA order: its warmings, its counts, its error. */
static ws_status take_job(ws_engine *e, gap_job *j, const ws_launch_stats *base, uint64_t *short_of) {
  bool counted = j->count != 0; /* a wave gap's traffic is counted (run_skipped) */
  for (size_t r = 0; r < j->nrecs; r++)
    ws_memsys_warm(e->mem, j->recs[r].line_addr, j->recs[r].sectors, j->recs[r].write, counted);
  ws_launch_stats_add_insns(e->ls, &j->stats, base);
  if (!j->count) e->ffwd_done[j->k] = j->done;
  *short_of += j->done < j->share;
  return j->st == WS_OK ? WS_OK : ws_ctx_fail(e->ctx, j->st, "%s", ws_errmsg(j->ctx));
}

/* Jobs [0, threads), each with a context of its own (the error on e's
 * when one cannot be made); jobs_close frees what they hold. */
static ws_status jobs_open(ws_engine *e, gap_job *jobs, uint32_t threads) {
  memset(jobs, 0, threads * sizeof *jobs);
  for (uint32_t i = 0; i < threads; i++)
    if (!(jobs[i].ctx = ws_ctx_create()))
      return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for a gap's threads");
  return WS_OK;
}

static void jobs_close(gap_job *jobs, uint32_t threads) {
  for (uint32_t i = 0; i < threads; i++) {
    free(jobs[i].recs);
    ws_ctx_destroy(jobs[i].ctx);
  }
}

/* A job about to run: the launch's counts so far, nothing recorded. */
static void job_reset(gap_job *j, ws_engine *e, const ws_launch_stats *base) {
  j->e = e, j->stats = *base, j->nrecs = 0, j->nomem = false, j->st = WS_OK;
}

/* Jobs [0, m) finished: their effects in order; the first error. */
static ws_status take_jobs(ws_engine *e, gap_job *jobs, uint32_t m, const ws_launch_stats *base,
                           uint64_t *short_of) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < m; i++) {
    ws_status js = take_job(e, &jobs[i], base, short_of);
    if (st == WS_OK) st = js;
  }
  return st;
}

/* The gap's CTAs in batches of `threads`, each batch at once. */
static ws_status gap_threads(ws_engine *e, uint32_t n, const uint64_t *shares, uint32_t threads, uint64_t t,
                             uint64_t *short_of) {
  gap_job jobs[WS_TEAM_MAX_THREADS];
  ws_status st = jobs_open(e, jobs, threads);
  for (uint32_t first = 0; first < n && st == WS_OK; first += threads) {
    uint32_t m = n - first < threads ? n - first : threads;
    ws_launch_stats base = *e->ls;
    for (uint32_t i = 0; i < m; i++) {
      job_reset(&jobs[i], e, &base);
      jobs[i].k = first + i, jobs[i].share = shares[first + i];
    }
    run_jobs(jobs, m);
    st = take_jobs(e, jobs, m, &base, short_of);
    if (st == WS_OK)
      st = ws_watchdog_poll(e->wd, e->ctx, e->ls, virtual_cycle(e, t)); /* Ctrl-C, wall clock */
  }
  jobs_close(jobs, threads);
  return st;
}

/* run_skipped on several threads, `threads` CTAs at a time, one job each
 * (a job records its CTA's L2 warmings: one CTA's worth of memory at
 * most): a CTA computed in full runs alone first, the sliced ones at once;
 * then the warmings and counts are applied in CTA order, so the L2 and
 * every counter end as one thread leaves them. */
static ws_status wave_threads(ws_engine *e, uint64_t first, uint64_t n, uint32_t threads) {
  gap_job jobs[WS_TEAM_MAX_THREADS];
  ws_status st = jobs_open(e, jobs, threads);
  for (uint64_t id = first; id < first + n && st == WS_OK; id += threads) {
    uint32_t m = first + n - id < threads ? (uint32_t)(first + n - id) : threads, np = 0;
    ws_launch_stats base = *e->ls;
    gap_job *sliced[WS_TEAM_MAX_THREADS];
    for (uint32_t i = 0; i < m; i++) {
      job_reset(&jobs[i], e, &base);
      jobs[i].first = id + i, jobs[i].count = 1;
      if (ws_slice_applies(&e->slice, jobs[i].first))
        sliced[np++] = &jobs[i];
      else
        run_job(&jobs[i]); /* it may write memory: alone */
    }
    if (np) run_job_list(sliced, np);
    uint64_t short_of = 0;
    st = take_jobs(e, jobs, m, &base, &short_of);
  }
  jobs_close(jobs, threads);
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
  uint32_t threads = e->threads;
  if (threads > 1 && n > 1) return gap_threads(e, n, e->ffwd_share, threads, t, short_of);
  ws_ffwd_env env = ffwd_env(e, true);
  for (uint32_t k = 0; k < n; k++) {
    uint64_t done;
    ws_status st = cta_rounds(&env, e->ffwd_ctas[k], &e->ffwd_snaps[k], e->ffwd_share[k], e->wd,
                              virtual_cycle(e, t), &done);
    if (st != WS_OK) return st;
    e->ffwd_done[k] = done;
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
static ws_status loop_left(ws_engine *e, uint32_t n, uint64_t t, uint64_t *left, uint64_t *lead_rounds) {
  uint32_t lead = 0;
  for (uint32_t k = 1; k < n; k++)
    if (ws_ffwd_rounds(e->ffwd_ctas[k], &e->ffwd) > ws_ffwd_rounds(e->ffwd_ctas[lead], &e->ffwd)) lead = k;
  *lead_rounds = ws_ffwd_rounds(e->ffwd_ctas[lead], &e->ffwd);
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

/* After a gap of CTAs far apart in their loops: the instructions the CTAs
 * that reached their loop's end before their share would have issued in
 * the rest of it, at the gap's instructions per iteration (the gap's time
 * stands for all of them: their SMs went on to the next CTA, a wave of
 * which is still to be placed). Each such SM is owed the rest: the next
 * CTA placed in that slot makes it up (pay_credits). */
static uint64_t stagger_owed(ws_engine *e, uint32_t n, uint64_t moved) {
  uint64_t done = 0, owed = 0;
  for (uint32_t k = 0; k < n; k++) done += e->ffwd_done[k];
  if (!done) return 0;
  for (uint32_t k = 0; k < n; k++) {
    if (e->ffwd_done[k] >= e->ffwd_share[k]) continue;
    uint64_t rest = e->ffwd_share[k] - e->ffwd_done[k];
    owed += rest;
    e->credits[e->ncredits++] = (struct ws_ffwd_credit){e->ffwd_ctas[k], e->ffwd_ctas[k]->linear_id, rest};
  }
  return (uint64_t)llround((double)moved / (double)done * (double)owed);
}

/* One CTA, k of the resident ones, makes up `rounds` iterations its SM is
 * owed, functionally, the L2 warmed; its counters are priced at the rates
 * of the last window, and no time: the gap that left the debt priced it. */
static ws_status pay_credit(ws_engine *e, uint32_t k, uint64_t rounds, uint64_t t) {
  ws_ffwd_env env = ffwd_env(e, true);
  uint64_t before = e->ls->warp_insns, done;
  ws_status st =
      cta_rounds(&env, e->ffwd_ctas[k], &e->ffwd_snaps[k], rounds, e->wd, virtual_cycle(e, t), &done);
  if (st != WS_OK || e->ls->warp_insns == before) return st;
  for (uint32_t i = 0; i < e->nsms; i++)
    if (ws_sm_ffwd_resume_cta(e->sms[i], e->ffwd_ctas[k], t)) {
      ws_engine_sync_sm(e, i);
      break;
    }
  e->loops.pending_insns = e->ls->warp_insns - before;
  e->loops.pending_time_insns = 0;
  ws_engine_loop_price(e, t, false);
  return WS_OK;
}

static bool resident_index(const ws_engine *e, uint32_t n, const ws_cta *cta, uint32_t *k) {
  for (*k = 0; *k < n; ++*k)
    if (e->ffwd_ctas[*k] == cta) return true;
  return false;
}

/* What the SMs are owed, paid where it can be: a CTA placed in a slot
 * whose CTA left a debt, once warm. A debt waits while that CTA is still
 * there or the new one is not warm, and lapses when the slot is empty with
 * no CTA left to place. *waiting: some debt still waits (no window opens
 * before it is paid: the new CTAs would start behind). */
static ws_status pay_credits(ws_engine *e, uint64_t t, bool *waiting) {
  *waiting = false;
  if (!e->ncredits) return WS_OK;
  uint32_t n = resident_ctas(e), k;
  bool more = e->dispatch.next < e->dispatch.total;
  for (uint32_t c = 0; c < e->ncredits;) {
    struct ws_ffwd_credit cr = e->credits[c];
    bool there = resident_index(e, n, cr.cta, &k);
    bool ready = there && cr.cta->linear_id != cr.from_id &&
                 ws_ffwd_rounds(cr.cta, &e->ffwd) >= WS_SAMPLER_WARM_ROUNDS;
    if (!ready && (there || more)) {
      *waiting = true;
      c++;
      continue;
    }
    e->credits[c] = e->credits[--e->ncredits];
    if (ready) {
      ws_status st = pay_credit(e, k, cr.rounds, t);
      if (st != WS_OK) return st;
    }
  }
  return WS_OK;
}

/* The SMs carry on from t + 1 with their CTAs fast-forwarded. */
static void loop_resume(ws_engine *e, uint64_t t) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    ws_sm_ffwd_resume(e->sms[i], t);
    ws_engine_sync_sm(e, i);
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
  /* the window's own moves, taken before the gap before it is priced into
   * the counters: were the estimate part of them, every gap would price the
   * ones before it again, and the counters grow with the number of gaps */
  settle_counters(e, t);
  for (size_t i = 0; i < e->nwindow; i++) e->loop_win[i] = ws_stats_value(e->stats, i) - e->loop_start[i];
  ws_engine_loop_price(e, t, true);
  uint32_t n = resident_ctas(e);
  uint64_t left, lead;
  for (uint32_t k = 0; k < n; k++) {
    e->ffwd_speed[k] += e->ffwd_insns[k];
    ws_ffwd_note_warps(e->ffwd_ctas[k]);
    ws_ffwd_pace_warps(e->ffwd_ctas[k], &e->ffwd);
  }
  ws_status st = loop_left(e, n, t, &left, &lead);
  if (st != WS_OK) return st;
  /* a gap's time is priced at the window's occupancy: CTAs that reach their
   * loop's end in it must be replaced, as they are while a wave of CTAs is
   * still to be placed */
  bool refilled = e->dispatch.total - e->dispatch.next >= n;
  uint64_t room = gaps_room(e, n, left),
           stagger = refilled ? ws_loop_sampler_stagger_gap(room, lead + left + 1) : 0;
  if (stagger)
    L->gap_rounds = stagger, L->gap_alone = true;
  else
    ws_loop_sampler_plan_gap(L, room);
  if (!L->gap_rounds) {
    loop_end(e);
    return WS_OK;
  }
  uint64_t *moves = e->loop_prev;
  e->loop_prev = e->loop_win, e->loop_win = moves;
  L->prev = L->win;
  uint64_t before = e->ls->warp_insns, short_of;
  st = ffwd_gap(e, n, L->gap_rounds, t, &short_of);
  if (st != WS_OK) return st;
  L->pending_insns = e->ls->warp_insns - before;
  L->pending_time_insns = L->pending_insns + (stagger ? stagger_owed(e, n, L->pending_insns) : 0);
  if (L->pending_insns) loop_resume(e, t);
  if (L->gap_alone || short_of) {
    ws_engine_loop_price(e, t, false);
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
ws_status ws_engine_loop_look(ws_engine *e, uint64_t t) {
  ws_loop_sampler *L = &e->loops;
  uint64_t changes = e->placements + e->dispatch.retired;
  if (L->phase == WS_LOOP_IDLE && changes == L->changes && !e->ncredits) return WS_OK; /* no scan */
  ws_sm_ffwd_view v;
  ws_sm_ffwd_view_init(&v);
  for (uint32_t i = 0; i < e->nsms; i++) ws_sm_ffwd_look(e->sms[i], &v);
  if (L->phase != WS_LOOP_IDLE && changes != L->changes_at_open) {
    ws_engine_loop_price(e, t, false);
    L->phase = WS_LOOP_IDLE;
  }
  if (L->phase == WS_LOOP_IDLE) {
    bool waiting;
    ws_status st = pay_credits(e, t, &waiting);
    if (st != WS_OK || waiting) return st;
    if (v.ctas && changes != L->changes && v.min_rounds >= WS_SAMPLER_WARM_ROUNDS) {
      ws_loop_sampler_begin_loop(L);
      memset(e->ffwd_speed, 0, e->ffwd_cap * sizeof *e->ffwd_speed);
      loop_begin(e, WS_LOOP_MEASURE, t);
      for (uint32_t k = 0, n = resident_ctas(e); k < n; k++) ws_ffwd_mark_warps(e->ffwd_ctas[k], true);
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

/* The batches' counters: one per registered counter (the registry only
 * grows, so the arrays grow when it did). */
ws_status ws_engine_window_alloc(ws_engine *e) {
  size_t n = ws_stats_count(e->stats);
  if (n > e->nwindow) {
    free(e->window);
    free(e->batch_start);
    free(e->loop_start);
    free(e->loop_prev);
    free(e->loop_win);
    e->batch_start = malloc(n * sizeof *e->batch_start);
    e->window = malloc(n * sizeof *e->window);
    e->loop_start = malloc(n * sizeof *e->loop_start);
    e->loop_prev = malloc(n * sizeof *e->loop_prev);
    e->loop_win = malloc(n * sizeof *e->loop_win);
    e->nwindow = 0;
    if (!e->window || !e->batch_start || !e->loop_start || !e->loop_prev || !e->loop_win)
      return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the sampler's counters");
  }
  e->nwindow = n;
  memset(e->window, 0, n * sizeof *e->window);
  return WS_OK;
}

/* Room for every resident CTA and its snapshot. */
static ws_status ffwd_alloc(ws_engine *e, uint32_t resident) {
  if (resident <= e->ffwd_cap) return WS_OK;
  ws_engine_free_ffwd(e);
  e->ffwd_ctas = calloc(resident, sizeof *e->ffwd_ctas);
  e->ffwd_insns = calloc(resident, sizeof *e->ffwd_insns);
  e->ffwd_speed = calloc(resident, sizeof *e->ffwd_speed);
  e->ffwd_share = calloc(resident, sizeof *e->ffwd_share);
  e->ffwd_done = calloc(resident, sizeof *e->ffwd_done);
  e->credits = calloc(resident, sizeof *e->credits);
  e->ffwd_snaps = calloc(resident, sizeof *e->ffwd_snaps);
  if (!e->ffwd_ctas || !e->ffwd_insns || !e->ffwd_speed || !e->ffwd_share || !e->ffwd_done || !e->credits ||
      !e->ffwd_snaps) {
    ws_engine_free_ffwd(e);
    return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the sampler's CTA snapshots");
  }
  e->ffwd_cap = resident;
  return WS_OK;
}

/* Sampling inside CTAs needs a loop to fast-forward, and no probe, checks
 * or pixel following (they watch every instruction where it runs). */
ws_status ws_engine_plan_loops(ws_engine *e, ws_sm_env *env, const ws_exec_launch *launch,
                               const ws_occupancy *occ) {
  bool allowed = !e->probe && !e->prof && !launch->sanitize && !launch->taint && !launch->agent;
  e->ncredits = 0; /* a launch stopped early may leave debts; its slots are reused */
  ws_loop_sampler_plan(&e->loops, allowed ? &e->sampling : NULL);
  env->ffwd = NULL;
  if (!e->loops.measure_rounds) return WS_OK;
  ws_ffwd_plan_kernel(launch->kernel, &e->ffwd);
  if (!e->ffwd.usable) {
    e->loops.measure_rounds = 0;
    return WS_OK;
  }
  env->ffwd = &e->ffwd;
  ws_status st = ws_engine_window_alloc(e);
  return st == WS_OK ? ffwd_alloc(e, e->nsms * occ->ctas_per_sm) : st;
}
