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
 * warp's count of issued instructions. Stops at the first fault (WS_ERR_FAULT)
 * or when more than budget_warp_insns warp instructions would issue
 * (WS_ERR_BUDGET). stats (may be NULL) is zeroed first and filled. */
ws_status ws_exec_run(ws_ctx *ctx, const ws_exec_launch *launch, uint64_t budget_warp_insns,
                      ws_launch_stats *stats);

#endif
