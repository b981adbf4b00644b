/* watchdog.c - limits, progress and spin detection for one launch. */
#include "sim/exec/watchdog.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/asm.h"

#define WINDOW_INSNS (1u << 16)     /* between checks while nothing is suspicious */
#define FIRST_STRIDE 61u            /* between samples once a quiet phase begins */
#define STRIDE_GROWTH (1u << 22)    /* samples get twice as sparse after this many insns */
#define MAX_STRIDE (1u << 14)       /* the sparsest sampling */
#define REPICK_INSNS (1u << 14)     /* a warp away from its sample pc this long gets a new one */
#define PROGRESS_EVERY_S 0.25       /* between progress reports */
#define MAX_LISTED_WARPS 4          /* warps a spin report names */
#define DEFAULT_PER_INSN (1u << 16) /* default per-warp limit per static instruction */

struct ws_watchdog_rec {
  const ws_warp *w; /* NULL: free */
  const ws_cta *cta;
  uint32_t warp, pc;
  uint64_t hash, picked_at; /* the warp's insns_issued when pc was chosen */
  bool repeats;
};

static const ws_watch no_watch;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t ws_watchdog_default_per_warp(const ws_kernel *k) {
  return ((uint64_t)k->ninsns + 64) * DEFAULT_PER_INSN;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

ws_status ws_watchdog_init(ws_watchdog *wd, ws_ctx *ctx, const ws_exec_launch *launch,
                           uint32_t max_resident_warps) {
  memset(wd, 0, sizeof *wd);
  const ws_watch *w = launch->watch ? launch->watch : &no_watch;
  wd->kernel = launch->kernel;
  wd->watch = w;
  wd->per_warp =
      w->max_warp_insns_per_warp ? w->max_warp_insns_per_warp : ws_watchdog_default_per_warp(launch->kernel);
  wd->budget = launch->budget_warp_insns;
  wd->max_cycles = w->max_cycles;
  wd->timeout_s = w->timeout_s;
  wd->ctas_total = (uint64_t)launch->grid.x * launch->grid.y * launch->grid.z;
  wd->start_s = now_s();
  wd->next_progress_s = wd->start_s + PROGRESS_EVERY_S;
  wd->next_check = min_u64(WINDOW_INSNS, wd->budget);
  wd->effects_at_window = 0;
  uint32_t cap = 16;
  while (cap < 2u * max_resident_warps && cap < (1u << 30)) cap *= 2;
  wd->cap = cap;
  if (!w->no_spin_check) {
    wd->recs = calloc(cap, sizeof *wd->recs);
    if (!wd->recs) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory for the spin detector");
  }
  return WS_OK;
}

ws_watch ws_watchdog_rest(const ws_watchdog *wd) {
  ws_watch w = *wd->watch;
  w.progress = NULL;
  w.progress_user = NULL;
  if (wd->timeout_s > 0) {
    double left = wd->timeout_s - (now_s() - wd->start_s);
    w.timeout_s = left > 1e-6 ? left : 1e-6; /* 0 would mean none */
  }
  return w;
}

void ws_watchdog_free(ws_watchdog *wd) {
  free(wd->recs);
  wd->recs = NULL;
  if (wd->reported) {
    const ws_progress p = {.kernel = wd->kernel->name, .ctas_total = wd->ctas_total, .done = true};
    wd->watch->progress(wd->watch->progress_user, &p);
    wd->reported = false;
  }
}

/* ---- the report ------------------------------------------------------------------ */

/* "pc 12 (line 40): LDG.32 R3, [R8]" */
static void describe_pc(const ws_kernel *k, uint32_t pc, char *out, size_t size) {
  char text[160] = "?";
  if (pc < k->ninsns) ws_disasm_insn(k, &k->insns[pc], text, sizeof text);
  if (k->insn_lines && pc < k->ninsns && k->insn_lines[pc])
    snprintf(out, size, "pc %u (line %u): %s", pc, k->insn_lines[pc], text);
  else
    snprintf(out, size, "pc %u: %s", pc, text);
}

static void describe_warp(const ws_cta *cta, uint32_t warp, char *out, size_t size) {
  char at[200];
  describe_pc(cta->launch->kernel, ws_cta_warp_pc(cta, warp), at, sizeof at);
  const ws_dim3 c = cta->ctaid;
  snprintf(out, size, "CTA (%u,%u,%u) warp %u at %s", c.x, c.y, c.z, warp, at);
}

/* "at cycle 1234, 3 of 16 CTAs done, 99 warp instructions" */
static void describe_progress(const ws_watchdog *wd, const ws_launch_stats *ls, uint64_t cycle, char *out,
                              size_t size) {
  char when[48] = "";
  if (cycle) snprintf(when, sizeof when, "at cycle %" PRIu64 ", ", cycle);
  snprintf(out, size, "%s%" PRIu64 " of %" PRIu64 " CTAs done, %" PRIu64 " warp instructions", when, ls->ctas,
           wd->ctas_total, ls->warp_insns);
}

static ws_status stop(const ws_watchdog *wd, ws_ctx *ctx, ws_status st, const char *why, const char *hint,
                      const ws_cta *cta, uint32_t warp, const ws_launch_stats *ls, uint64_t cycle) {
  char progress[160], last[280] = "";
  describe_progress(wd, ls, cycle, progress, sizeof progress);
  if (cta) describe_warp(cta, warp, last, sizeof last);
  return ws_ctx_fail(ctx, st, "kernel '%s' stopped: %s (%s)%s%s%s%s", wd->kernel->name, why, progress,
                     cta ? "\n    next to issue: " : "", last, hint ? "\n    " : "", hint ? hint : "");
}

/* ---- limits ----------------------------------------------------------------------- */

ws_status ws_watchdog_poll(ws_watchdog *wd, ws_ctx *ctx, const ws_launch_stats *ls, uint64_t cycle) {
  const ws_watch *w = wd->watch;
  char why[96];
  if (w->interrupt && *w->interrupt)
    return stop(wd, ctx, WS_ERR_INTERRUPTED, "interrupted", NULL, NULL, 0, ls, cycle);
  if (wd->max_cycles && cycle >= wd->max_cycles) {
    snprintf(why, sizeof why, "reached the limit of %" PRIu64 " cycles", wd->max_cycles);
    return stop(wd, ctx, WS_ERR_BUDGET, why, "raise it with --max-cycles N", NULL, 0, ls, cycle);
  }
  if (!wd->timeout_s && !w->progress) return WS_OK;
  double t = now_s();
  if (wd->timeout_s && t - wd->start_s >= wd->timeout_s) {
    snprintf(why, sizeof why, "ran for the --timeout limit of %g s of wall-clock time", wd->timeout_s);
    return stop(wd, ctx, WS_ERR_BUDGET, why, "raise it with --timeout SECONDS", NULL, 0, ls, cycle);
  }
  if (w->progress && t >= wd->next_progress_s) {
    wd->next_progress_s = t + PROGRESS_EVERY_S;
    wd->reported = true;
    const ws_progress p = {.kernel = wd->kernel->name,
                           .cycles = cycle,
                           .warp_insns = ls->warp_insns,
                           .ctas_done = ls->ctas,
                           .ctas_total = wd->ctas_total,
                           .elapsed_s = t - wd->start_s};
    w->progress(w->progress_user, &p);
  }
  return WS_OK;
}

/* after: the counts include the cycle's steps (ws_watchdog_check_after),
 * so reaching a limit is allowed and passing it is not */
static ws_status check_insn_limits(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                                   const ws_launch_stats *ls, uint64_t cycle, bool after) {
  char why[160];
  if (after && ls->warp_insns > wd->budget) {
    snprintf(why, sizeof why,
             "the launch issued %" PRIu64 " warp instructions, past the launch's limit of %" PRIu64,
             ls->warp_insns, wd->budget);
    return stop(wd, ctx, WS_ERR_BUDGET, why, "raise it with --set gpu.insn_budget_warp_insns=N", cta, warp,
                ls, cycle);
  }
  if (!after && ls->warp_insns >= wd->budget) {
    snprintf(why, sizeof why, "the launch issued %" PRIu64 " warp instructions, the launch's limit",
             wd->budget);
    return stop(wd, ctx, WS_ERR_BUDGET, why, "raise it with --set gpu.insn_budget_warp_insns=N", cta, warp,
                ls, cycle);
  }
  const ws_warp *w = &cta->warps[warp];
  if (w->insns_issued >= wd->per_warp + after) {
    snprintf(why, sizeof why,
             "a warp passed the limit of %" PRIu64 " instructions per warp%s: a loop that never ends?",
             wd->per_warp,
             wd->watch->max_warp_insns_per_warp ? "" : " (65536 per kernel instruction, plus 64)");
    return stop(wd, ctx, WS_ERR_BUDGET, why, "raise it with --max-warp-insns N", cta, warp, ls, cycle);
  }
  return WS_OK;
}

/* ---- spin detection -------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

/* Everything that decides what the warp does next, memory aside. */
static uint64_t warp_hash(const ws_warp *w) {
  uint64_t h = mix(0, w->live);
  for (uint32_t i = 0; i < w->simt.depth; i++) {
    const ws_simt_entry *e = &w->simt.entries[i];
    h = mix(h, ((uint64_t)e->pc << 32 | e->rpc) ^ ((uint64_t)e->mask << 17));
  }
  for (uint32_t p = 0; p < 8; p++) h = mix(h, w->preds[p]);
  const uint64_t *r = (const uint64_t *)(const void *)w->regs;
  for (size_t i = 0, n = (size_t)w->nrows * WS_WARP_LANES / 2; i < n; i++) h = mix(h, r[i]);
  h = mix(h, w->async_uncommitted_copies);
  return mix(h, w->async_groups_committed);
}

static ws_watchdog_rec *find_rec(ws_watchdog *wd, const ws_warp *w) {
  uint32_t i = (uint32_t)(((uintptr_t)w >> 4) * 0x9E3779B1u) & (wd->cap - 1);
  while (wd->recs[i].w && wd->recs[i].w != w) i = (i + 1) & (wd->cap - 1);
  return &wd->recs[i];
}

static void arm(ws_watchdog *wd, const ws_launch_stats *ls) {
  memset(wd->recs, 0, (size_t)wd->cap * sizeof *wd->recs);
  wd->armed = true;
  wd->nrecs = wd->repeating = 0;
  wd->armed_at = wd->last_new_at = ls->warp_insns;
  wd->stride = FIRST_STRIDE;
}

/* Samples warp `warp` before it steps: marks it repeating when it is back at
 * its sample pc in the state it had there last time. */
static void sample(ws_watchdog *wd, const ws_cta *cta, uint32_t warp, const ws_launch_stats *ls) {
  const ws_warp *w = &cta->warps[warp];
  uint32_t pc = ws_cta_warp_pc(cta, warp);
  ws_watchdog_rec *r = find_rec(wd, w);
  if (!r->w) {
    if (2 * (wd->nrecs + 1) > wd->cap) return; /* more warps than the launch can hold: not ours */
    *r = (ws_watchdog_rec){
        .w = w, .cta = cta, .warp = warp, .pc = pc, .hash = warp_hash(w), .picked_at = w->insns_issued};
    wd->nrecs++;
    wd->last_new_at = ls->warp_insns;
    return;
  }
  if (r->repeats) return;
  if (pc == r->pc) {
    uint64_t h = warp_hash(w);
    if (h == r->hash) {
      r->repeats = true;
      wd->repeating++;
      return;
    }
    r->hash = h;
    r->picked_at = w->insns_issued;
  } else if (w->insns_issued - r->picked_at > REPICK_INSNS) {
    r->pc = pc;
    r->hash = warp_hash(w);
    r->picked_at = w->insns_issued;
  }
}

/* The record of the lowest (CTA, warp) not yet listed after `after`. */
static const ws_watchdog_rec *next_listed(const ws_watchdog *wd, const ws_watchdog_rec *after) {
  const ws_watchdog_rec *best = NULL;
  for (uint32_t i = 0; i < wd->cap; i++) {
    const ws_watchdog_rec *r = &wd->recs[i];
    if (!r->w) continue;
    uint64_t key = r->cta->linear_id << 8 | r->warp;
    if (after && key <= (after->cta->linear_id << 8 | after->warp)) continue;
    if (!best || key < (best->cta->linear_id << 8 | best->warp)) best = r;
  }
  return best;
}

static ws_status spin_report(const ws_watchdog *wd, ws_ctx *ctx, const ws_launch_stats *ls, uint64_t cycle) {
  char progress[160], list[MAX_LISTED_WARPS * 300 + 256] = "";
  describe_progress(wd, ls, cycle, progress, sizeof progress);
  size_t used = 0;
  uint32_t listed = 0;
  for (const ws_watchdog_rec *r = next_listed(wd, NULL); r && listed < MAX_LISTED_WARPS;
       r = next_listed(wd, r), listed++) {
    char one[300];
    describe_warp(r->cta, r->warp, one, sizeof one);
    used += (size_t)snprintf(list + used, sizeof list - used, "\n    %s", one);
  }
  if (wd->nrecs > listed)
    used += (size_t)snprintf(list + used, sizeof list - used, "\n    ... and %u more", wd->nrecs - listed);
  if (!cycle) /* functional mode */
    snprintf(list + used, sizeof list - used,
             "\n    (functional mode runs one warp at a time until it waits or exits, so a warp waiting for "
             "another warp's write never sees it; the timing model runs them together)");
  return ws_ctx_fail(ctx, WS_ERR_FAULT,
                     "kernel '%s' can never finish: %u warp%s spin%s in a loop that writes no memory, and no "
                     "other warp writes any (%s); each repeats a state it had before:%s",
                     wd->kernel->name, wd->nrecs, wd->nrecs == 1 ? "" : "s", wd->nrecs == 1 ? "s" : "",
                     progress, list);
}

static void set_next(ws_watchdog *wd, const ws_launch_stats *ls) {
  uint64_t step = wd->armed ? wd->stride : WINDOW_INSNS;
  wd->next_check = min_u64(ls->warp_insns + step, wd->budget);
}

static ws_status detect_spin(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                             const ws_launch_stats *ls, uint64_t cycle) {
  bool quiet = wd->effects == wd->effects_at_window && !wd->host_pending;
  wd->effects_at_window = wd->effects;
  if (!quiet) {
    wd->armed = false;
    return WS_OK;
  }
  if (!wd->armed) {
    arm(wd, ls);
    return WS_OK;
  }
  sample(wd, cta, warp, ls);
  uint64_t armed_for = ls->warp_insns - wd->armed_at;
  if (wd->repeating == wd->nrecs && wd->nrecs &&
      ls->warp_insns - wd->last_new_at >= 8 * (uint64_t)wd->stride * (wd->cap / 2))
    return spin_report(wd, ctx, ls, cycle);
  if (armed_for >= (uint64_t)STRIDE_GROWTH * wd->stride / FIRST_STRIDE && wd->stride < MAX_STRIDE)
    wd->stride *= 2;
  return WS_OK;
}

static ws_status check(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                       const ws_launch_stats *ls, uint64_t cycle, bool after) {
  ws_status st = check_insn_limits(wd, ctx, cta, warp, ls, cycle, after);
  if (st == WS_OK) st = ws_watchdog_poll(wd, ctx, ls, cycle);
  if (st == WS_OK && wd->recs) st = detect_spin(wd, ctx, cta, warp, ls, cycle);
  set_next(wd, ls);
  return st;
}

ws_status ws_watchdog_check(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                            const ws_launch_stats *ls, uint64_t cycle) {
  return check(wd, ctx, cta, warp, ls, cycle, false);
}

ws_status ws_watchdog_check_after(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                                  const ws_launch_stats *ls, uint64_t cycle) {
  return check(wd, ctx, cta, warp, ls, cycle, true);
}
