/* l1.h - one SM's L1 data cache: sectored tags, MSHRs with merging, the
 * return port to the SM, and a small write buffer for traffic that bypasses
 * the cache (write-through stores, atomics, dirty victims).
 *
 * Design: the L1 decides, the memory system moves. ws_l1_access returns
 * what must happen (hit at cycle X, send these sectors to L2, wait on an
 * MSHR, forward, or back-pressure) and never talks to the crossbar itself,
 * so the cache is testable alone and the wiring lives in one place
 * (memsys.c). Under l1.allocation = on-miss a miss reserves its line's
 * way at once (pinned until the fill), so a fill never has to evict and a
 * set whose ways are all pinned is back-pressure, as in GPGPU-Sim 3.x;
 * under streaming (Volta and later) a miss holds only its MSHR and the fill
 * takes the way. Requests are named by the caller's ids; the L1 allocates
 * nothing after creation. */
#ifndef WS_L1_H
#define WS_L1_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"
#include "sim/memsys/access.h"

typedef struct ws_l1 ws_l1;

typedef enum ws_l1_outcome {
  WS_L1_HIT,     /* load/async: every sector present, data at resp_cycle; store: absorbed (write-back)
                  */
  WS_L1_MISS,    /* send a read of send_mask to L2; the request waits on an MSHR */
  WS_L1_MERGED,  /* waits on an MSHR whose reads already cover its sectors */
  WS_L1_FORWARD, /* store (write-through) or atomic: send to L2; holds a write-buffer slot */
  WS_L1_REJECT,  /* back-pressure: nothing changed, try again after a memsys event */
  WS_L1_OUTCOME_COUNT
} ws_l1_outcome;

typedef struct ws_l1_result {
  ws_l1_outcome outcome;
  uint8_t send_mask;   /* MISS: sectors to read from L2 */
  uint64_t resp_cycle; /* HIT of a load/async: the response cycle */
  bool merged;         /* MISS/MERGED: joined an MSHR already in flight */
  bool writeback;      /* a dirty victim must be written to L2 (write-back policy); */
  uint64_t wb_line;    /*   it took a write-buffer slot */
  uint8_t wb_mask;
} ws_l1_result;

/* Where `line` lives in the tag array (way UINT32_MAX: not held). */
void ws_l1_where(ws_l1 *l1, uint64_t line, uint32_t *set, uint32_t *way);

/* A waiter whose sectors have all arrived. */
typedef struct ws_l1_done {
  uint32_t id;
  uint64_t resp_cycle;
} ws_l1_done;

/* cfg must be resolved: it is trusted, not checked. */
ws_status ws_l1_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t sm, ws_stats *stats, ws_l1 **out);
/* Host bytes one ws_l1_create of cfg allocates (its counters' names aside). */
uint64_t ws_l1_state_bytes(const ws_gpu_cfg *cfg);
void ws_l1_destroy(ws_l1 *l1);
/* Cold cache, empty MSHRs and write buffer, idle port. */
void ws_l1_reset(ws_l1 *l1);

/* Offers one line access (request id `id`) at cycle `now`. */
void ws_l1_access(ws_l1 *l1, const ws_line_access *a, uint32_t id, uint64_t now, ws_l1_result *r);
/* Sectors `mask` of `line` arrive from L2 at `now`: fills them (streaming:
 * into the line's way, or the LRU way it evicts) and returns
 * the waiters now complete (at most mshr_max_merge) with their response
 * cycles; the MSHR frees once everything it asked for has arrived. */
uint32_t ws_l1_fill(ws_l1 *l1, uint64_t line, uint8_t mask, uint64_t now, ws_l1_done *out);
/* Reserves the return port for `mask`'s sectors whose data is ready at
 * `ready_cycle`; returns the response cycle (the last beat). */
uint64_t ws_l1_deliver(ws_l1 *l1, uint8_t mask, uint64_t ready_cycle);
/* A write-buffer entry (store, atomic or victim) left the SM. */
void ws_l1_wbuf_release(ws_l1 *l1);
/* Counts `n` more refusals for the reason of the last one: retries that
 * were not offered because nothing had changed since that refusal (the
 * outcome of an access depends only on the L1's state, so each would have
 * been refused the same way). */
void ws_l1_count_rejects(ws_l1 *l1, uint64_t n);
/* MSHRs in use. */
uint32_t ws_l1_mshrs_used(const ws_l1 *l1);

#endif
