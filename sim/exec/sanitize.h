/* sanitize.h - the checks a launch can run under (`--check race|init|sync`),
 * like compute-sanitizer's racecheck, initcheck and synccheck: the first
 * finding stops the launch with WS_ERR_FAULT and a report in the style of a
 * fault (sim/exec/fault.h).
 *
 * Design: shadow state beside the real state, touched only while a check is
 * on, so a launch without checks pays one predictable test per instruction
 * in ws_cta_step (cta->san). With checks on, ws_sanitize_before sees the
 * register reads before the instruction can overwrite its own sources, and
 * ws_sanitize_after the register writes and every memory access the step
 * record describes (addresses, width, kind), so the unit files are unchanged.
 * State comes in two levels: ws_sanitize is the launch's (the global-memory
 * race shadow every CTA shares, the register sets of each instruction),
 * ws_sanitize_cta one CTA object's (register and predicate init masks, the
 * shared-memory shadow, the barrier epoch).
 *
 * Ordering (what makes two accesses a race): threads of one warp are ordered
 * by program order, since the ISA runs a warp's lanes in lockstep and has no
 * independent thread scheduling, except the lanes of one instruction; threads
 * of different warps of a CTA are ordered only by a barrier release, which
 * starts a new epoch of the CTA; threads of different CTAs of a launch are
 * never ordered. Atomics do not race with atomics. Global initialization is
 * tracked by the device memory itself (ws_mem_set_track_init), since it must
 * outlive a launch. */
#ifndef WS_SANITIZE_H
#define WS_SANITIZE_H

#include <stdint.h>

#include "sim/exec/fault.h"

/* The race check's global shadow holds at most this much touched memory. */
#define WS_SANITIZE_GLOBAL_CAP_MIB 16u

typedef struct ws_sanitize_cta ws_sanitize_cta;

/* The launch-wide state for `checks` (WS_CHECK_*, launch.h) on kernel k. */
ws_status ws_sanitize_create(ws_ctx *ctx, uint32_t checks, const ws_kernel *k, ws_sanitize **out);
void ws_sanitize_destroy(ws_sanitize *san);

/* One CTA object's state (created with the CTA, reset with it). */
ws_status ws_sanitize_cta_create(ws_ctx *ctx, ws_sanitize *san, const ws_cta *cta, ws_sanitize_cta **out);
void ws_sanitize_cta_destroy(ws_sanitize_cta *sc);
void ws_sanitize_cta_reset(ws_sanitize_cta *sc);

/* Around one instruction: before it executes (register reads), after it
 * executed and settled (register writes, memory accesses, barrier misuse). */
ws_status ws_sanitize_before(ws_sanitize_cta *sc, const ws_exec_site *s);
ws_status ws_sanitize_after(ws_sanitize_cta *sc, const ws_exec_site *s);

/* The CTA's barrier is about to release the warps waiting at it: starts a
 * new epoch and notes barrier misuse, which ws_sanitize_after reports. */
void ws_sanitize_barrier(ws_sanitize_cta *sc, const ws_cta *cta);

#endif
