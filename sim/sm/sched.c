/* sched.c - the LRR and GTO policies over an eligibility mask.
 *
 * Design: LRR rotates the mask so the slot after `last` becomes bit 0 and
 * takes the lowest set bit: O(1). GTO keeps issuing the same warp (good for
 * cache locality and for getting one warp to its long-latency load early)
 * and falls back to the oldest, a scan over the set bits only. */
#include "sim/sm/sched.h"

static uint32_t pick_lrr(const ws_sched *s, uint32_t eligible) {
  uint32_t start = (s->last + 1) % WS_SCHED_MAX_SLOTS;
  uint32_t rot = start ? (eligible >> start) | (eligible << (WS_SCHED_MAX_SLOTS - start)) : eligible;
  return (start + (uint32_t)__builtin_ctz(rot)) % WS_SCHED_MAX_SLOTS;
}

static uint32_t pick_gto(const ws_sched *s, uint32_t eligible) {
  /* 64-bit: before the first issue last is WS_SCHED_MAX_SLOTS, no slot */
  if ((uint64_t)eligible >> s->last & 1u) return s->last;
  uint32_t best = (uint32_t)__builtin_ctz(eligible);
  for (uint32_t m = eligible & (eligible - 1); m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctz(m);
    if (s->age[i] < s->age[best]) best = i;
  }
  return best;
}

static const ws_sched_ops policies[WS_SCHED_COUNT] = {
    [WS_SCHED_LRR] = {"lrr", pick_lrr},
    [WS_SCHED_GTO] = {"gto", pick_gto},
};

void ws_sched_init(ws_sched *s, ws_sched_policy policy) {
  s->ops = &policies[policy < WS_SCHED_COUNT ? policy : WS_SCHED_LRR];
  /* LRR's first pick is slot 0, the one after 31; GTO's is the oldest,
   * so it has no greedy slot until something issued */
  s->last = s->ops->pick == pick_gto ? WS_SCHED_MAX_SLOTS : WS_SCHED_MAX_SLOTS - 1;
  for (uint32_t i = 0; i < WS_SCHED_MAX_SLOTS; i++) s->age[i] = UINT64_MAX;
}

const char *ws_sched_name(ws_sched_policy policy) {
  return policy < WS_SCHED_COUNT ? policies[policy].name : "?";
}
