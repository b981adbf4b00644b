/* sched.h - warp scheduling policies: which eligible warp of a sub-partition
 * issues this cycle.
 *
 * Design: a policy is a small ops table selected by cfg->sm.scheduler from
 * one const table (Ramulator's interface + implementation split), so a new
 * policy is one more row. The scheduler sees only a bit mask of the eligible
 * warps (bit i = the sub-partition's i-th warp slot) and per-slot ages, so a
 * pick is a few bit operations and costs nothing per ineligible warp.
 *  - LRR (loose round robin): the first eligible slot after the one that
 *    issued last, wrapping around.
 *  - GTO (greedy then oldest): the slot that issued last while it stays
 *    eligible, else the eligible slot whose warp arrived on the SM first. */
#ifndef WS_SCHED_H
#define WS_SCHED_H

#include <stdint.h>

#include "sim/common/config.h"

#define WS_SCHED_MAX_SLOTS 32 /* warp slots per sub-partition */

typedef struct ws_sched {
  const struct ws_sched_ops *ops;
  uint32_t last;                    /* slot that issued last (GTO: MAX_SLOTS before any) */
  uint64_t age[WS_SCHED_MAX_SLOTS]; /* arrival order of the warp in each slot (smaller = older) */
} ws_sched;

typedef struct ws_sched_ops {
  const char *name;
  /* eligible != 0; returns the chosen slot */
  uint32_t (*pick)(const ws_sched *s, uint32_t eligible);
} ws_sched_ops;

void ws_sched_init(ws_sched *s, ws_sched_policy policy);
const char *ws_sched_name(ws_sched_policy policy);
/* A warp entered `slot`; `age` orders it against the others (a global counter). */
static inline void ws_sched_arrive(ws_sched *s, uint32_t slot, uint64_t age) { s->age[slot] = age; }
static inline uint32_t ws_sched_pick(ws_sched *s, uint32_t eligible) {
  uint32_t slot = s->ops->pick(s, eligible);
  s->last = slot;
  return slot;
}

#endif
