/* engine.c - the event-driven main loop: events, SM visits, host code
 * running alongside, and a launch's start and end; CTAs go where
 * sim/gpu/dispatch.c says, and what a sampled launch times and skips is in
 * engine_sampled.c.
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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/exec/taint.h"
#include "sim/gpu/engine_int.h"
#include "sim/sm/scoreboard.h"

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

uint64_t ws_engine_state_bytes(const ws_gpu_cfg *cfg) {
  const ws_engine *e = NULL; /* an operand of sizeof only */
  uint64_t sms = cfg->gpu.num_sms;
  uint64_t per_sm = sizeof *e->sms + sizeof *e->sm_next + sizeof *e->sm_blocked + sizeof *e->sm_parked;
  return sizeof(ws_engine) + sms * (per_sm + ws_sm_state_bytes(cfg)) + (sms + 63) / 64 * sizeof *e->sm_awake +
         ws_memsys_state_bytes(cfg);
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
  e->due = calloc(e->nsms, sizeof *e->due);
  e->issued = calloc(e->nsms, sizeof *e->issued);
  e->tally = aligned_alloc(64, WS_TEAM_MAX_THREADS * sizeof *e->tally);
  if (e->tally) memset(e->tally, 0, WS_TEAM_MAX_THREADS * sizeof *e->tally);
  ws_status st =
      e->sms && e->sm_next && e->sm_blocked && e->sm_parked && e->sm_awake && e->due && e->issued && e->tally
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

void ws_engine_write_back_l2(ws_engine *e) { ws_memsys_write_back_l2(e->mem); }

struct ws_uvm *ws_engine_uvm(ws_engine *e) {
  return ws_memsys_uvm(e->mem);
}

void ws_engine_set_sampling(ws_engine *e, const ws_sampling *cfg) {
  e->sampling = cfg ? *cfg : (ws_sampling){0};
}

void ws_engine_set_threads(ws_engine *e, uint32_t threads) {
  e->threads = threads < WS_TEAM_MAX_THREADS ? threads : WS_TEAM_MAX_THREADS;
}

void ws_engine_set_probe(ws_engine *e, const ws_probe *probe) {
  e->probe = probe;
  ws_memsys_set_probe(e->mem, probe);
}

void ws_engine_set_pcprof(ws_engine *e, ws_pcprof *prof) { e->prof = prof; }

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

void ws_engine_destroy(ws_engine *e) {
  if (!e) return;
  for (uint32_t i = e->nsms; e->sms && i-- > 0;) ws_sm_destroy(e->sms[i]);
  free(e->sms);
  free(e->sm_next);
  free(e->sm_blocked);
  free(e->sm_parked);
  free(e->sm_awake);
  free(e->due);
  free(e->issued);
  free(e->tally);
  ws_team_destroy(e->team);
  free(e->window);
  free(e->batch_start);
  free(e->loop_start);
  free(e->loop_prev);
  free(e->loop_win);
  ws_ffwd_snap_free(&e->ffwd_origin);
  ws_engine_free_ffwd(e);
  ws_memsys_destroy(e->mem);
  ws_eventq_free(&e->q);
  free(e);
}

/* Offers SM i's refused access again at t (a cycle with memory events,
 * already counted) if its L1 changed since the refusal. */
static void retry_lsu(ws_engine *e, uint32_t i, uint64_t t) {
  if (!ws_memsys_retry_due(e->mem, i)) return;
  ws_engine_count_skipped(e, i, 1); /* the retry at t itself is counted as it is made */
  ws_sm_mem_progress(e->sms[i], t);
  ws_engine_sync_sm(e, i);
}

static void handle_event(ws_engine *e, const ws_event *ev, bool *mem_progress) {
  e->gpu_events++;
  if (ev->kind == WS_EVK_MEM_RESP || ev->kind == WS_EVK_MEM_HITS) {
    /* an instruction's other lines change nothing the engine mirrors: of
     * an uncoalesced load's 32 responses, one needs the SM looked at again */
    uint32_t lines = ev->kind == WS_EVK_MEM_HITS ? ev->arg : 1;
    if (ws_sm_mem_response(e->sms[ev->unit], ev->payload, lines, ev->cycle)) ws_engine_sync_sm(e, ev->unit);
  } else if (ev->kind == WS_EVK_SM_WAKE) {
    if (e->sm_blocked[ev->unit]) ws_engine_count_skipped(e, ev->unit, 0);
    ws_sm_mem_progress(e->sms[ev->unit], ev->cycle);
    ws_engine_sync_sm(e, ev->unit);
  } else if (ev->kind >= WS_EVK_MEMSYS_FIRST && ev->kind <= WS_EVK_MEMSYS_LAST) {
    ws_memsys_handle(e->mem, ev);
    *mem_progress = true;
  }
}

static void handle_events(ws_engine *e, uint64_t t) {
  bool mem_progress = false;
  ws_event ev;
  ws_eventq_visit(&e->q, t); /* a cycle marked for a gathered L1 hit is visited as its event's was */
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
    ws_engine_sync_sm(e, i);
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
  for (uint32_t i = 0; i < e->nsms; i++) ws_engine_sync_sm(e, i);
  return WS_OK;
}

static uint64_t next_cycle(const ws_engine *e) {
  uint64_t t = ws_eventq_next_visit(&e->q);
  for (uint32_t w = 0; w < e->nwords; w++)
    for (uint64_t m = e->sm_awake[w]; m; m &= m - 1) {
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
      if (e->sm_next[i] < t) t = e->sm_next[i];
    }
  return t;
}

/* The SMs due at t, in index order, into e->due. */
static void collect_due(ws_engine *e, uint64_t t) {
  e->ndue = 0;
  e->due_cycle = t;
  for (uint32_t w = 0; w < e->nwords; w++)
    for (uint64_t m = e->sm_awake[w]; m; m &= m - 1) {
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
      if (e->sm_next[i] <= t) e->due[e->ndue++] = i;
    }
}

static void issue_one(void *user, uint32_t k, uint32_t thread) {
  ws_engine *e = user;
  ws_engine_issued *out = &e->issued[k];
  out->st = ws_sm_cycle_issue(e->sms[e->due[k]], e->due_cycle, &e->tally[thread], &out->sm);
}

/* Below this many due SMs a cycle's issue halves run on the caller: a
 * hand-off and the SMs' state moving between cores cost several
 * microseconds on a virtual machine (a round trip between two cores of
 * this one's takes 0.8 to 1.5 us), a few SMs' issue less. */
#define TEAM_MIN_DUE_SMS 16u
/* ws_engine_pick's epochs: cycles of TEAM_MIN_DUE_SMS due SMs or more
 * (some milliseconds each), and the settled epochs between two probes */
#define PICK_EPOCH_CYCLES 2048u
#define PICK_SETTLED_EPOCHS 32u
/* the team is kept only when its probe was this much faster: an epoch's
 * time varies by several percent on a shared host, and a team that is
 * no faster spends a second core for nothing */
#define PICK_MARGIN 0.9
enum { PICK_PROBE_ON, PICK_PROBE_OFF, PICK_SETTLED };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pick_start(ws_engine_pick *p, uint8_t phase, bool use) {
  p->phase = phase;
  p->use = use;
  p->left = PICK_EPOCH_CYCLES;
  p->visits = 0;
  p->start_s = now_s();
}

/* An epoch is over: the next one's way. */
static void pick_next(ws_engine_pick *p) {
  double per_visit = (now_s() - p->start_s) / (double)(p->visits ? p->visits : 1);
  if (p->phase == PICK_PROBE_ON) {
    p->on_s_per_visit = per_visit;
    pick_start(p, PICK_PROBE_OFF, false);
  } else if (p->phase == PICK_PROBE_OFF) {
    p->settled = PICK_SETTLED_EPOCHS;
    pick_start(p, PICK_SETTLED, p->on_s_per_visit < PICK_MARGIN * per_visit);
  } else if (--p->settled == 0) {
    pick_start(p, PICK_PROBE_ON, true);
  } else {
    pick_start(p, PICK_SETTLED, p->use);
  }
}

static bool use_team(ws_engine *e) {
  if (!e->on_team || e->ndue < TEAM_MIN_DUE_SMS) return false;
  ws_engine_pick *p = &e->pick;
  if (p->left-- == 0) pick_next(p);
  p->visits += e->ndue;
  return p->use;
}

static void issue_all(ws_engine *e) {
  if (use_team(e)) {
    ws_team_run(e->team, issue_one, e, e->due, e->ndue);
    return;
  }
  for (uint32_t k = 0; k < e->ndue; k++) issue_one(e, k, 0);
}

/* Adds the threads' tallies to the launch's counts and zeroes them. */
static void fold_tallies(ws_engine *e) {
  uint32_t n = e->on_team ? e->threads : 1;
  for (uint32_t th = 0; th < n; th++) {
    ws_sm_tally *t = &e->tally[th];
    ws_launch_stats_add_insns(e->ls, &t->ls, NULL);
    e->wd->effects += t->effects;
    t->ls.warp_insns = t->ls.thread_insns = t->effects = 0;
    memset(t->ls.warp_insns_by_unit, 0, sizeof t->ls.warp_insns_by_unit);
  }
}

/* The issue halves' results, taken in SM order: the first fault (lowest
 * SM) is the launch's. */
static ws_status fold_issues(ws_engine *e, bool *freed, bool *over_limit) {
  ws_status st = WS_OK;
  fold_tallies(e);
  for (uint32_t k = 0; k < e->ndue; k++) {
    uint32_t i = e->due[k];
    const ws_engine_issued *r = &e->issued[k];
    ws_engine_sync_sm_to(e, i, r->sm.next_cycle, r->sm.lsu_blocked);
    e->dispatch.retired += r->sm.retired;
    *freed |= r->sm.retired != 0;
    *over_limit |= r->sm.over_limit;
    if (st == WS_OK && r->st != WS_OK)
      st = ws_ctx_fail(e->ctx, r->st, "%s", ws_errmsg(ws_sm_issue_ctx(e->sms[i])));
  }
  return st;
}

/* The watchdog's look once the cycle's issues are counted: at the first
 * warp that passed its instruction limit in it (lowest SM), else at a warp
 * that issued, taken in turn over the SMs' sub-partitions, so that the
 * spin detector comes to see every warp that keeps issuing. */
static ws_status watchdog_check(ws_engine *e, uint64_t t) {
  for (uint32_t k = 0; k < e->ndue; k++) {
    const ws_cta *cta;
    uint32_t warp;
    if (ws_sm_over_limit(e->sms[e->due[k]], &cta, &warp))
      return ws_watchdog_check_after(e->wd, e->ctx, cta, warp, e->ls, t);
  }
  uint32_t nsp = e->cfg->sm.subpartitions, slots = e->ndue * nsp;
  for (uint32_t n = 0; n < slots; n++) {
    uint32_t pick = (e->wd_pick + 1 + n) % slots;
    const ws_cta *cta;
    uint32_t warp;
    if (!ws_sm_issued_at(e->sms[e->due[pick / nsp]], pick % nsp, t, &cta, &warp)) continue;
    e->wd_pick = pick;
    return ws_watchdog_check_after(e->wd, e->ctx, cta, warp, e->ls, t);
  }
  return WS_OK; /* no issue at t: the counts did not move */
}

/* Visits the SMs due at t: every one's send half in index order (the memory
 * system's state is shared), then their issue halves, on the team when the
 * launch may use it; places CTAs into slots freed. */
static ws_status run_sms(ws_engine *e, uint64_t t) {
  collect_due(e, t);
  bool freed = false;
  for (uint32_t k = 0; k < e->ndue; k++) {
    uint32_t i = e->due[k], retired = 0;
    e->gpu_visits++;
    ws_sm_cycle_send(e->sms[i], t, &retired);
    e->dispatch.retired += retired;
    freed |= retired != 0;
  }
  issue_all(e);
  bool over_limit = false;
  ws_status st = fold_issues(e, &freed, &over_limit);
  if (st == WS_OK && (ws_watchdog_due(e->wd, e->ls->warp_insns) || over_limit)) st = watchdog_check(e, t);
  if (st != WS_OK) return st;
  if (!freed) return WS_OK;
  if (e->loops.pending_insns) ws_engine_loop_price(e, t, false); /* before the wave sampler reads the time */
  if (e->smp.phase == WS_SAMPLER_WARM || e->smp.phase == WS_SAMPLER_MEASURE) {
    st = ws_engine_sample_wave(e, t);
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
  if (!a) return WS_ENGINE_NEVER;
  uint64_t n = a->next_cycle(a->user);
  e->wd->host_pending = n != WS_ENGINE_NEVER;
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

/* *end: the last cycle simulated, also when a limit, an interrupt or a
 * fault stops the launch (its report then covers what ran). */
static ws_status main_loop(ws_engine *e, uint64_t *end) {
  uint64_t t = 0;
  for (uint32_t iter = 1;; iter++) {
    uint64_t n = next_cycle(e);
    if (n == WS_ENGINE_NEVER) break;
    uint64_t host = agent_next(e);
    if (host < t) host = t; /* planned for a cycle already visited: acts now */
    t = host < n ? host : n;
    *end = t;
    if (iter % POLL_EVERY_ITERATIONS == 0) {
      ws_status st = ws_watchdog_poll(e->wd, e->ctx, e->ls, t);
      if (st != WS_OK) return st;
    }
    handle_events(e, t);
    ws_status st = agent_act(e, t);
    if (st == WS_OK) st = run_sms(e, t);
    if (st == WS_OK && e->loops.measure_rounds && iter % WS_ENGINE_LOOP_LOOK_EVERY_ITERATIONS == 0)
      st = ws_engine_loop_look(e, t);
    if (st != WS_OK) return st;
  }
  *end = t;
  if (ws_dispatch_all_retired(&e->dispatch) && ws_memsys_idle(e->mem)) return WS_OK;
  return ws_ctx_fail(e->ctx, WS_ERR_FAULT,
                     "timing model stalled at cycle %" PRIu64 " with %" PRIu64 " of %" PRIu64
                     " CTAs retired and nothing left to wake it (a memory request was lost?)",
                     t, e->dispatch.retired, e->dispatch.total);
}

static ws_status begin(ws_engine *e, ws_sm_env *env, const ws_exec_launch *launch, const ws_occupancy *occ) {
  ws_status st = ws_engine_plan_loops(e, env, launch, occ);
  if (st != WS_OK) return st;
  for (uint32_t i = 0; i < e->nsms && st == WS_OK; i++) st = ws_sm_begin(e->sms[i], env);
  if (st != WS_OK) return st;
  const ws_dim3 g = launch->grid;
  ws_dispatch_init(&e->dispatch, (uint64_t)g.x * g.y * g.z, e->nsms, occ->ctas_per_sm);
  e->skipped_warp_insns = 0;
  e->placements = 0;
  /* a traced launch holds every micro-op; host code running alongside
   * sees every cycle: neither skips a wave */
  ws_sampler_plan(&e->smp, e->probe || e->prof || launch->agent ? NULL : &e->sampling, e->dispatch.total,
                  (uint64_t)e->nsms * occ->ctas_per_sm);
  if (e->smp.phase != WS_SAMPLER_OFF && (st = ws_engine_window_alloc(e)) != WS_OK) return st;
  return place_initial(e);
}

static void finish(ws_engine *e, uint64_t end, ws_launch_stats *ls) {
  for (uint32_t i = 0; i < e->nsms; i++) {
    if (e->sm_blocked[i]) ws_engine_count_skipped(e, i, 0); /* a launch stopped early */
    ws_sm_flush(e->sms[i], end);
    e->gpu_warp_insns += ws_sm_warp_insns(e->sms[i]);
    ws_sm_end(e->sms[i]);
  }
  e->gpu_cycles = end;
  e->gpu_ctas = e->dispatch.retired;
  e->gpu_thread_insns = ls->thread_insns;
  ls->cycles = end;
  ls->ctas = e->dispatch.retired;
  if (e->loops.pending_insns) ws_engine_loop_price(e, end, false); /* a launch stopped early */
  ls->timed_ctas = e->dispatch.retired - e->smp.skipped_ctas;
  ls->computed_ctas = ws_slice_computed_ctas(e->slice.roles ? &e->slice : NULL, ls->ctas);
  ls->timed_warp_insns = ls->warp_insns - e->skipped_warp_insns - e->loops.skipped_insns;
  bool waves = e->smp.phase == WS_SAMPLER_DONE;
  if (!waves && !e->loops.skips) return;
  if (waves) ws_engine_extrapolate(e);
  e->gpu_warp_insns = ls->warp_insns; /* exact: every skipped instruction ran functionally */
  double skipped = (waves ? e->smp.skipped_cycles : 0) + e->loops.skipped_cycles;
  e->gpu_cycles = ls->cycles = end + (uint64_t)llround(skipped);
  ls->sampled = true;
  double wave_ci = waves ? e->smp.ci95_cycles : 0;
  /* the windows' and batches' spread, then what no spread shows: the drift
   * between windows, and the gaps' own (sampler.h, WS_SAMPLER_GAP_SHARE) */
  double spread = sqrt(wave_ci * wave_ci + e->loops.var_cycles);
  ls->cycles_ci95 = (uint64_t)llround(spread + e->loops.drift_cycles + WS_SAMPLER_GAP_SHARE * skipped);
}

static bool has_global_atomics(const ws_kernel *k) {
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    if (ws_isa_is_global_atomic((ws_op)k->insns[pc].op)) return true;
  }
  return false;
}

/* Whether the launch's SMs issue on the team (ws_engine_set_threads says
 * when they may not). A team that cannot be started leaves the launch on
 * one thread: its results are the same. */
static void plan_team(ws_engine *e, const ws_exec_launch *l) {
  e->on_team = e->threads > 1 && !e->probe && !e->prof && !l->agent && !l->sanitize && !l->taint &&
               !has_global_atomics(l->kernel);
  if (!e->on_team) return;
  if (e->team && ws_team_threads(e->team) != e->threads) {
    ws_team_destroy(e->team);
    e->team = NULL;
  }
  if (!e->team && ws_team_create(NULL, e->threads, e->nsms, &e->team) != WS_OK) e->on_team = false;
  pick_start(&e->pick, PICK_PROBE_ON, true);
}

/* A sampled launch that nobody watches, checks or runs host code beside,
 * of a grid large enough: its CTAs but a spread few run the kernel's slice
 * (timed the same, computing only what timing depends on). *launch then
 * points at the engine's copy, which carries the slice. */
static ws_status plan_slice(ws_engine *e, const ws_exec_launch **launch) {
  const ws_exec_launch *l = *launch;
  const ws_sampling *c = &e->sampling;
  uint64_t ctas = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
  if (c->exact || (!c->measure_waves && !c->measure_rounds) || e->probe || e->prof || l->agent ||
      l->sanitize || l->taint || ctas < 2ull * WS_SLICE_COMPUTED_CTAS)
    return WS_OK;
  ws_status st = ws_slice_build(e->ctx, l->kernel, ctas, &e->slice);
  if (st != WS_OK) return st;
  e->sliced = *l;
  e->sliced.slice = &e->slice;
  *launch = &e->sliced;
  return WS_OK;
}

ws_status ws_engine_run(ws_engine *e, const ws_exec_launch *launch, const ws_occupancy *occ,
                        ws_launch_stats *ls) {
  memset(ls, 0, sizeof *ls);
  ws_status st = plan_slice(e, &launch);
  if (st != WS_OK) return st;
  plan_team(e, launch);
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
                   .probe = e->probe,
                   .prof = e->prof};
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
  st = ws_watchdog_init(&wd, e->ctx, launch, (uint32_t)(resident * occ->warps_per_cta));
  e->wd = &wd;
  env.warp_insn_limit = wd.per_warp;
  e->wd_pick = UINT32_MAX; /* the first look starts at the lowest SM's first sub-partition */
  e->ls = ls;
  e->launch = launch;
  ws_scoreboard_insn *table = NULL;
  if (st == WS_OK && e->prof) st = ws_pcprof_begin(e->ctx, e->prof, launch->kernel->ninsns);
  if (st == WS_OK)
    st = ws_scoreboard_table_build(e->ctx, launch->kernel, env.nrows, e->cfg->regfile.banks_per_subpartition,
                                   e->cfg->sm.tensor_ii_cycles, &table);
  env.table = table;
  uint64_t end = 0;
  if (st == WS_OK) st = begin(e, &env, launch, occ);
  if (st == WS_OK) st = main_loop(e, &end);
  finish(e, end, ls);
  /* the next launch starts with an empty L2: what this one left dirty is
   * its own DRAM writes (after its last cycle, so untimed) */
  if (st == WS_OK && !e->keep_l2) ws_memsys_write_back_l2(e->mem);
  if (e->probe) probe_end(e, launch, occ, end);
  free(table);
  ws_slice_free(&e->slice);
  ws_watchdog_free(&wd);
  e->wd = NULL;
  e->ls = NULL;
  e->launch = NULL;
  return st;
}
