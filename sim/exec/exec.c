/* exec.c - the functional launcher.
 *
 * Design: the launcher is deliberately the simplest possible driver of
 * ws_cta_step: one CTA object reused for every CTA in linear order, warps
 * visited round-robin, each run until it waits at a barrier or finishes.
 * Because values are computed at issue and barriers order all shared-memory
 * communication, any other legal schedule (the timing model's) gives the same
 * results for data-race-free kernels. */
#include "sim/exec/exec.h"

#include <string.h>

#include "sim/exec/cta.h"
#include "sim/exec/fault.h"
#include "sim/exec/watchdog.h"

/* Runs one warp until it waits at a barrier, finishes or faults. */
typedef struct visitor {
  ws_exec_step_fn fn; /* NULL: nobody */
  void *user;
} visitor;

/* sliced: the CTA runs the slice (a constant at each call, so the loop of
 * a CTA computed in full tests nothing more per step). */
static inline __attribute__((always_inline)) ws_status run_warp(ws_ctx *ctx, ws_cta *cta, uint32_t warp,
                                                                ws_watchdog *wd, ws_warp_step *step,
                                                                ws_launch_stats *stats, const visitor *v,
                                                                bool sliced) {
  ws_warp *w = &cta->warps[warp];
  while (w->state == WS_WARP_READY) {
    if (ws_watchdog_due(wd, stats->warp_insns)) {
      ws_status st = ws_watchdog_check(wd, ctx, cta, warp, stats, 0);
      if (st != WS_OK) return st;
    }
    /* a run the slice skips, up to the watchdog's next look */
    if (sliced && wd->next_check > stats->warp_insns &&
        ws_cta_pass_run(cta, warp, wd->next_check - stats->warp_insns, stats))
      continue;
    ws_status st = ws_cta_step(ctx, cta, warp, w->insns_issued, step, stats);
    if (st != WS_OK) return st;
    ws_watchdog_count(wd, step);
    if (v->fn) v->fn(v->user, step);
  }
  return WS_OK;
}

static ws_status run_cta(ws_ctx *ctx, ws_cta *cta, ws_watchdog *wd, ws_warp_step *step,
                         ws_launch_stats *stats, const visitor *v) {
  while (!ws_cta_done(cta)) {
    for (uint32_t w = 0; w < cta->nwarps; w++) {
      ws_status st = cta->runs ? run_warp(ctx, cta, w, wd, step, stats, v, true)
                               : run_warp(ctx, cta, w, wd, step, stats, v, false);
      if (st != WS_OK) return st;
    }
  }
  return WS_OK;
}

/* CTAs first .. first + count - 1, counted into stats as they finish. */
static ws_status run_range(ws_ctx *ctx, const ws_exec_launch *launch, uint64_t first, uint64_t count,
                           const visitor *v, ws_launch_stats *stats) {
  ws_cta *cta = NULL;
  ws_status st = ws_cta_create(ctx, launch, &cta);
  if (st != WS_OK) return st;
  ws_watchdog wd;
  st = ws_watchdog_init(&wd, ctx, launch, cta->nwarps);
  ws_warp_step step;
  for (uint64_t id = first; id < first + count && st == WS_OK; id++) {
    ws_cta_reset(cta, id);
    st = run_cta(ctx, cta, &wd, &step, stats, v);
    if (st == WS_OK) stats->ctas++;
  }
  ws_watchdog_free(&wd);
  ws_cta_destroy(cta);
  return st;
}

ws_status ws_exec_run(ws_ctx *ctx, const ws_exec_launch *launch, ws_launch_stats *stats) {
  ws_launch_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  uint64_t nctas = (uint64_t)launch->grid.x * launch->grid.y * launch->grid.z;
  ws_status st = run_range(ctx, launch, 0, nctas, &(visitor){NULL, NULL}, stats);
  stats->computed_ctas = stats->ctas;
  return st;
}

ws_status ws_exec_run_ctas(ws_ctx *ctx, const ws_exec_launch *launch, uint64_t first, uint64_t count,
                           ws_exec_step_fn fn, void *user, ws_launch_stats *stats) {
  return run_range(ctx, launch, first, count, &(visitor){fn, user}, stats);
}
