/* exec.h - the functional SIMT executor: runs a whole launch.
 *
 * Design: the executor is built from one primitive, ws_cta_step (cta.h):
 * "execute ONE instruction of warp W of CTA C now and say what it did". The
 * functional launcher below is the simplest driver of that primitive; a
 * cycle-level timing model drives the same primitive in its own order (and
 * supplies cycles for SR_CLOCK), so functional results never depend on which
 * driver ran them - values are computed at issue. */
#ifndef WS_EXEC_H
#define WS_EXEC_H

#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "sim/exec/launch.h"
#include "sim/exec/mem.h"
#include "sim/exec/warp.h"

/* Runs every CTA in linear order (x fastest, then y, then z); within a CTA
 * the warps are visited round-robin, each running until it waits at a
 * barrier or finishes. SR_SMID = CTA linear id % num_sms; SR_CLOCK = the
 * warp's count of issued instructions. Stops at the first fault (WS_ERR_FAULT),
 * when launch->budget_warp_insns or a limit of launch->watch runs out
 * (WS_ERR_BUDGET), on an interrupt (WS_ERR_INTERRUPTED), or when its warps
 * provably spin forever (WS_ERR_FAULT; sim/exec/watchdog.h). stats (may be
 * NULL) is zeroed first and filled. */
ws_status ws_exec_run(ws_ctx *ctx, const ws_exec_launch *launch, ws_launch_stats *stats);

/* Sees every instruction a CTA run by ws_exec_run_ctas executes, after it
 * executed (its addresses included). */
typedef void (*ws_exec_step_fn)(void *user, const ws_warp_step *step);
/* Runs CTAs first .. first + count - 1 of the launch as ws_exec_run does,
 * adding to stats (not zeroed: the timing model passes its launch's, so
 * the launch's budget and counts cover these CTAs too), and shows each
 * step to `fn` (NULL: nobody). How a sampled launch executes the CTAs it
 * does not time (sim/gpu/sampler.h): their results are exact. */
ws_status ws_exec_run_ctas(ws_ctx *ctx, const ws_exec_launch *launch, uint64_t first, uint64_t count,
                           ws_exec_step_fn fn, void *user, ws_launch_stats *stats);

#endif
