/* watchdog.h - what stops a launch that would run too long or forever.
 *
 * Design: both drivers of the executor (the functional launcher and the
 * timing model's issue stage) call ws_watchdog_due before and
 * ws_watchdog_count after every warp instruction: one compare and one add.
 * The real work happens in ws_watchdog_check, which runs once per window of
 * instructions:
 *  - limits: instructions per warp (sized from the kernel by default) and per
 *    launch, simulated cycles, wall-clock time, an interrupt flag (Ctrl-C),
 *    and a progress callback for terminals;
 *  - spin detection. Once a whole window has passed in which no warp wrote
 *    memory, reached or left a barrier or finished, the watchdog samples the
 *    warps now and then and remembers, per warp, a hash of its complete
 *    state (pc, SIMT stack, registers, predicates) at one pc. A warp that
 *    comes back to that pc in the same state while memory is still untouched
 *    must repeat itself forever: what it computes next depends only on its
 *    own state and on memory. When every warp seen issuing repeats, and no
 *    new one has issued for a long while, nothing can ever change and the
 *    launch stops with the warps, their pcs and source lines. A kernel that
 *    reads SR_CLOCK or counts in a register never repeats; the per-warp limit
 *    stops it instead.
 * Sampling (every 61st instruction or so, sparser the longer a quiet phase
 * lasts) keeps a long loop that only loads and computes, such as a GEMM's
 * main loop, from paying for the detector. */
#ifndef WS_WATCHDOG_H
#define WS_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/exec/cta.h"
#include "sim/exec/launch.h"
#include "sim/exec/warp.h"

/* Steps that change what another warp could observe, or a warp's barrier and
 * exit state: any of these ends a quiet phase. */
#define WS_WATCHDOG_EFFECTS                                                                                  \
  (WS_STEP_STORE | WS_STEP_ATOMIC | WS_STEP_ASYNC | WS_STEP_BAR_ARRIVED | WS_STEP_BAR_RELEASED | WS_STEP_DONE)

typedef struct ws_watchdog_rec ws_watchdog_rec;

typedef struct ws_watchdog {
  uint64_t next_check; /* launch warp instructions at which ws_watchdog_check runs */
  uint64_t effects;    /* steps with WS_WATCHDOG_EFFECTS so far */
  /* limits */
  const ws_kernel *kernel;
  const ws_watch *watch; /* never NULL */
  uint64_t per_warp, budget, max_cycles;
  double timeout_s, start_s, next_progress_s;
  bool reported; /* the progress callback was called */
  uint64_t ctas_total;
  /* spin detection */
  uint64_t effects_at_window, armed_at, last_new_at, stride;
  bool armed;
  /* the host may still write memory the warps read (a host agent has an
   * action planned): no repetition proves a spin */
  bool host_pending;
  ws_watchdog_rec *recs; /* open addressing on the warp's address */
  uint32_t cap, nrecs, repeating;
} ws_watchdog;

/* The default instruction limit of one warp for `k`: 65536 per instruction
 * of the kernel, plus 64 (a loop may run its body 65536 times on average). */
uint64_t ws_watchdog_default_per_warp(const ws_kernel *k);

/* Starts watching `launch`; max_resident_warps bounds the warps resident at
 * once (the records the detector may need). */
ws_status ws_watchdog_init(ws_watchdog *wd, ws_ctx *ctx, const ws_exec_launch *launch,
                           uint32_t max_resident_warps);
/* The limits of a run nested in this one's launch (a sampled launch's
 * functional CTAs): the same ones, with what is left of the wall-clock
 * limit, and no progress reports (the outer run makes them). */
ws_watch ws_watchdog_rest(const ws_watchdog *wd);
/* Ends the launch: tells a progress callback that reported that it is over. */
void ws_watchdog_free(ws_watchdog *wd);

/* Before each step: true when ws_watchdog_check is due. */
static inline bool ws_watchdog_due(const ws_watchdog *wd, uint64_t launch_warp_insns) {
  return launch_warp_insns >= wd->next_check;
}
/* 1 when a step has WS_WATCHDOG_EFFECTS: a driver that steps warps on
 * several host threads counts them apart and adds them to wd->effects. */
static inline uint32_t ws_watchdog_effect(const ws_warp_step *step) {
  return (step->flags & WS_WATCHDOG_EFFECTS) != 0;
}
/* After each step: counts its effects. */
static inline void ws_watchdog_count(ws_watchdog *wd, const ws_warp_step *step) {
  wd->effects += ws_watchdog_effect(step);
}

/* The slow path, before warp `warp` of `cta` steps: limits, progress and
 * the spin detector. ls->ctas counts the CTAs retired so far; cycle is the
 * current cycle (0 in functional mode). */
ws_status ws_watchdog_check(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                            const ws_launch_stats *ls, uint64_t cycle);

/* The same, for a driver that steps many warps at once (the timing model,
 * whose SMs issue on several host threads): called after a cycle's steps
 * when ws_watchdog_due, with ls counting them and `warp` one of the warps
 * that stepped. A launch may then reach its limits and stops once it has
 * passed one, at the end of the cycle in which it did. */
ws_status ws_watchdog_check_after(ws_watchdog *wd, ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                                  const ws_launch_stats *ls, uint64_t cycle);

/* Limits that do not need an instruction to be checked (cycles, time,
 * interrupt, progress); the timing model calls it while warps wait. */
ws_status ws_watchdog_poll(ws_watchdog *wd, ws_ctx *ctx, const ws_launch_stats *ls, uint64_t cycle);

#endif
