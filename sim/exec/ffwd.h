/* ffwd.h - fast-forwarding a CTA through iterations of its main loop,
 * functionally, in the middle of a timed run.
 *
 * Design: a GEMM or attention CTA spends nearly all its time in one loop
 * whose iterations look alike to the hardware (the k tiles of a GEMM, the
 * key/value blocks of flash attention). A sampled timing run times a few
 * iterations and skips the rest: the executor runs them here, exactly,
 * while the timing state waits, and the engine prices them from the rate it
 * measured. What makes that safe is that a skipped iteration may change
 * nothing outside its CTA: the loop chosen (ws_ffwd_plan_kernel) has no
 * global store, atomic, EXIT or clock read in its body, so a CTA can be
 * saved before an iteration (ws_ffwd_save) and put back (ws_ffwd_restore)
 * when the iteration turns out to leave the loop, and the skip stops one
 * iteration short of the loop's end, which is then timed.
 *
 * A round moves the CTA one iteration on. With a barrier in the body, the
 * warps move together: a round ends when the body's first barrier releases,
 * every warp just past it. Without one, every warp takes the back-edge on
 * its own, as often as its pace gives it (ws_ffwd_pace_warps), and a warp
 * that leaves the loop waits after it. The CTA counts both as it runs, timed or not
 * (ws_cta.ffwd_releases, ws_warp.ffwd_backedges), so ws_ffwd_rounds tells
 * how far a CTA has come. */
#ifndef WS_FFWD_H
#define WS_FFWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/ctx.h"
#include "sim/exec/cta.h"

typedef struct ws_ffwd_plan {
  bool usable;           /* the kernel has a loop that can be fast-forwarded */
  uint32_t lo_pc, hi_pc; /* the body: the back-edge's target .. the back-edge (a BRA) */
  uint32_t bar_pc;       /* the body's first BAR.SYNC; UINT32_MAX: none */
} ws_ffwd_plan;

/* The outermost loop (the backward branch spanning the most instructions)
 * whose body holds no STG, ATOMG.*, EXIT or S2R SR_CLOCK. */
void ws_ffwd_plan_kernel(const ws_kernel *k, ws_ffwd_plan *out);
/* Makes a CTA count its rounds of `plan` from now (after ws_cta_reset). */
void ws_ffwd_arm(ws_cta *cta, const ws_ffwd_plan *plan);
/* Rounds the CTA has completed: releases of the body's barrier, or the
 * fewest back-edges any unfinished warp took. */
uint64_t ws_ffwd_rounds(const ws_cta *cta, const ws_ffwd_plan *plan);

/* The pace of each warp in a loop without a barrier, where the scheduler
 * serves the oldest warps first and the youngest wait: a gap moves each
 * warp in proportion to the back-edges it took in the loop's windows, as
 * the SM would have, rather than all alike (which would hold the warps as
 * close as they were, and leave too little for the end, when the slow ones
 * run alone). ws_ffwd_mark_warps at a window's start (fresh: the loop's
 * first, forgetting earlier ones); ws_ffwd_note_warps at its end adds what
 * each warp took; ws_ffwd_pace_warps before a gap turns it into back-edges
 * per round, the mean over the unfinished warps one (with a barrier, one
 * each). */
#define WS_FFWD_PACE_MAX 64.0
void ws_ffwd_mark_warps(ws_cta *cta, bool fresh);
void ws_ffwd_note_warps(ws_cta *cta);
void ws_ffwd_pace_warps(ws_cta *cta, const ws_ffwd_plan *plan);

/* A CTA's architectural state: registers, predicates, SIMT stacks, warp
 * and barrier states, shared memory. Grows, never shrinks. */
typedef struct ws_ffwd_snap {
  ws_bytes bytes; /* reused from one save to the next */
} ws_ffwd_snap;

ws_status ws_ffwd_save(ws_ctx *ctx, const ws_cta *cta, ws_ffwd_snap *snap);
/* Puts back what ws_ffwd_save took from this same CTA. */
void ws_ffwd_restore(ws_cta *cta, const ws_ffwd_snap *snap);
void ws_ffwd_snap_free(ws_ffwd_snap *snap);

typedef struct ws_ffwd_env {
  ws_ctx *ctx;
  const ws_ffwd_plan *plan;
  ws_warp_step *step;                                    /* scratch */
  ws_launch_stats *stats;                                /* counts what the round runs */
  uint64_t per_warp_limit;                               /* instructions a warp may issue in the launch */
  uint64_t launch_limit;                                 /* instructions the launch may issue */
  void (*on_step)(void *user, const ws_warp_step *step); /* every step (may be NULL) */
  void *user;
} ws_ffwd_env;

/* One round. *advanced is false when the round had to stop: a warp left
 * the body (the loop ended), the warps were not all in the body, they could
 * not reach the barrier, or a limit came near; the CTA is then in an
 * undefined state, to be restored from its snapshot. Faults are errors. */
ws_status ws_ffwd_round(const ws_ffwd_env *env, ws_cta *cta, bool *advanced);

#endif
