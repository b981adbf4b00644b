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

/* Runs every CTA in linear order (x fastest, then y, then z); within a CTA
 * the warps are visited round-robin, each running until it waits at a
 * barrier or finishes. SR_SMID = CTA linear id % num_sms; SR_CLOCK = the
 * warp's count of issued instructions. Stops at the first fault (WS_ERR_FAULT),
 * when launch->budget_warp_insns or a limit of launch->watch runs out
 * (WS_ERR_BUDGET), on an interrupt (WS_ERR_INTERRUPTED), or when its warps
 * provably spin forever (WS_ERR_FAULT; sim/exec/watchdog.h). stats (may be
 * NULL) is zeroed first and filled. */
ws_status ws_exec_run(ws_ctx *ctx, const ws_exec_launch *launch, ws_launch_stats *stats);

#endif
