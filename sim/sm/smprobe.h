/* smprobe.h - the SM's micro-ops as probe records (sim/common/probe.h): what
 * an issue did, a stall span, a memory instruction's completion, a CTA's
 * residency.
 *
 * Design: every function here runs only when a probe is set (the callers
 * test sm->probe first) and is kept out of line, so the issue path without
 * a probe is the one it was. They read what the issue stage has just
 * booked and never change it. */
#ifndef WS_SMPROBE_H
#define WS_SMPROBE_H

#include "sim/sm/sm_int.h"

/* The instruction `w` (scheduler slot `pick` of `sp`) just issued at cycle t
 * and booked: its issue record, and those of its operand-bank conflict,
 * shared-memory access, coalesced lines and barrier arrival. Marks the
 * LSU's lines of a global access with the warp and whether they carry a
 * followed value. */
void ws_smprobe_issue(ws_sm *sm, const ws_subpart *sp, const ws_twarp *w, const ws_scoreboard_insn *si,
                      uint32_t wslot, uint64_t t);
/* Slot i of sp stalled for `reason` over [begin, end). */
void ws_smprobe_stall(ws_sm *sm, const ws_subpart *sp, uint32_t i, uint8_t reason, uint64_t begin,
                      uint64_t end);
/* The last line of load-like instruction `pc` of warp slot `warp` is back. */
void ws_smprobe_mem_done(ws_sm *sm, uint32_t warp, uint32_t pc, uint64_t cycle);
/* The CTA in slot s retires at `cycle`. */
void ws_smprobe_cta(ws_sm *sm, uint32_t s, uint64_t cycle);

#endif
