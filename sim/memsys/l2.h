/* l2.h - the L2 slices: address hash, per-slice input FIFO and pipeline,
 * sectored write-back tag array, MSHRs with unbounded merging, write-back
 * buffer, atomics.
 *
 * Design: like the L1, the slice decides and memsys moves: ws_l2_lookup says
 * hit (data ready at X), miss (fetch these sectors from DRAM), merged,
 * written, or stall (the request stays at the head of the slice's input
 * FIFO until an MSHR or write-back slot frees). Waiters are chained by the
 * caller's request ids through an array sized once at creation (ids are
 * bounded by memsys's request pool), so merging never allocates and never
 * has to refuse. */
#ifndef WS_L2_H
#define WS_L2_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"
#include "sim/memsys/access.h"

typedef struct ws_l2 ws_l2;

typedef enum ws_l2_outcome {
  WS_L2_HIT,     /* read/atomic: data ready at ready_cycle */
  WS_L2_MISS,    /* fetch fetch_mask from DRAM (may be 0 on a merge that adds nothing) */
  WS_L2_WRITTEN, /* store absorbed (write-allocate, no fetch) */
  WS_L2_STALL,   /* no MSHR / write-back slot / way: retry when one frees */
  WS_L2_OUTCOME_COUNT
} ws_l2_outcome;

typedef struct ws_l2_result {
  ws_l2_outcome outcome;
  uint64_t ready_cycle;
  uint8_t fetch_mask;
  bool writeback; /* a dirty victim (line, mask) must go to DRAM; it holds a write-back slot */
  uint64_t wb_line;
  uint8_t wb_mask;
} ws_l2_result;

/* A waiter whose sectors have all arrived: respond at ready_cycle. */
typedef struct ws_l2_done {
  uint32_t id;
  uint64_t ready_cycle;
} ws_l2_done;

/* Request ids passed in must be < max_ids. cfg must be resolved: it is
 * trusted, not checked. */
ws_status ws_l2_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, uint32_t max_ids, ws_l2 **out);
/* Host bytes ws_l2_create of cfg and max_ids allocates (its counters' names
 * aside). */
uint64_t ws_l2_state_bytes(const ws_gpu_cfg *cfg, uint32_t max_ids);
void ws_l2_destroy(ws_l2 *l2);
void ws_l2_reset(ws_l2 *l2);
/* Frees every MSHR, queue and timing stamp but keeps the tags (valid and
 * dirty sectors, LRU order): the L2 as the next kernel finds it. Only
 * between launches, when nothing is in flight. */
void ws_l2_reset_timing(ws_l2 *l2);

/* The slice owning an L1/L2 line (see l2.c for the hash). */
uint32_t ws_l2_slice_of(ws_l2 *l2, uint64_t line_addr);

/* The slice's input FIFO (bounded by the crossbar credits). */
/* Where `line` lives in its slice's tag array (way UINT32_MAX: not held),
 * and whether the slice is in another partition than SM `sm`. */
void ws_l2_where(ws_l2 *l2, uint32_t s, uint64_t line, uint32_t *set, uint32_t *way);
bool ws_l2_is_far(const ws_l2 *l2, uint32_t sm, uint32_t s);
void ws_l2_push(ws_l2 *l2, uint32_t slice, uint32_t id);
bool ws_l2_head(const ws_l2 *l2, uint32_t slice, uint32_t *id);
void ws_l2_pop(ws_l2 *l2, uint32_t slice);
/* The slice pipeline accepts its next request at this cycle. */
uint64_t ws_l2_free_cycle(const ws_l2 *l2, uint32_t slice);
/* Occupies the pipeline for a request moving `bytes` of data (an atomic
 * passes twice) starting at `now`. */
void ws_l2_occupy(ws_l2 *l2, uint32_t slice, uint32_t bytes, bool atomic, uint64_t now);

void ws_l2_lookup(ws_l2 *l2, uint32_t slice, uint32_t id, uint64_t line, uint8_t mask, ws_access_kind kind,
                  uint64_t now, ws_l2_result *r);
/* Sectors `mask` of `line` arrive from DRAM at `now`; writes the completed
 * waiters to `out` (room for max_ids) and returns their count. */
uint32_t ws_l2_fill(ws_l2 *l2, uint32_t slice, uint64_t line, uint8_t mask, uint64_t now, ws_l2_done *out);
/* A dirty victim left the slice for the DRAM queue. */
void ws_l2_wb_release(ws_l2 *l2, uint32_t slice);
/* Counts a DRAM read that had to wait for a controller queue slot. */
void ws_l2_count_dram_stall(ws_l2 *l2, uint32_t slice);
/* Writes back every dirty line: its dirty sectors handed to `emit`, the
 * line left valid and clean, and counted as an end write-back (not with the
 * write-backs of victims, which the launch's time includes). A line whose
 * fill is in flight is left alone (an idle L2 has none). */
typedef void (*ws_l2_dirty_fn)(void *user, uint64_t line_addr, uint8_t dirty_mask);
void ws_l2_write_back(ws_l2 *l2, ws_l2_dirty_fn emit, void *user);
/* What a warming sends to DRAM: the read sectors it found missing and the
 * dirty sectors of the victim it evicted. */
typedef struct ws_l2_warmed {
  uint8_t fetch_mask, wb_mask;
  uint64_t wb_line;
} ws_l2_warmed;
/* Leaves the tags as an access of `mask`'s sectors of `line` would, in no
 * time: the line becomes most recently used, read sectors valid, written
 * ones valid and dirty (write-allocate without fetch, as a store); a dirty
 * victim is written back. Counts the evictions and write-backs (the
 * counters marked as counted in loop gaps, sim/common/stats.h); hits and
 * misses are left to the sampler's estimate, since a warming cannot tell
 * which requests L1 would have caught or an MSHR merged. A sampled launch
 * (sim/gpu/sampler.h) warms the L2 this way with the work it does not time;
 * a line whose fill is in flight is only touched. */
ws_l2_warmed ws_l2_warm(ws_l2 *l2, uint64_t line, uint8_t mask, bool write);
/* Whether the slice is blocked on an MSHR or write-back slot. */
bool ws_l2_stalled(const ws_l2 *l2, uint32_t slice);

#endif
