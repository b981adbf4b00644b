/* lsu.h - an SM's load/store path: the bounded MIO/LSU queue of global
 * memory instructions, the requests in flight to the memory system, and the
 * shared-memory pipe.
 *
 * Design: a global access is coalesced at issue (ws_coalesce_global) into
 * line accesses that wait in a per-SM queue of sm.lsu_queue_insns
 * instructions; the queue offers ONE line access per cycle to
 * ws_memsys_access and keeps it on back-pressure (false), so the SM sleeps
 * until the next memory event instead of polling. Each load-like
 * instruction (LDG, ATOMG, LDGSTS) owns a request record whose index is the
 * cookie the memory system returns; the record completes when its last line
 * is back. Shared memory needs no events: its completion time is known at
 * issue (the pipe serves one wavefront per cycle, in order), so it returns a
 * ready cycle for the short scoreboard. Named states: EMPTY, SENDING,
 * BLOCKED (refused; waits for a memory event). */
#ifndef WS_LSU_H
#define WS_LSU_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/exec/warp.h"
#include "sim/memsys/memsys.h"
#include "sim/sm/coalesce.h"

/* The MIO queue's depth (sm.lsu_queue_insns) and the shared-memory backlog
 * before issue throttles (sm.smem_backlog_cycles) come from the preset.
 * Lines one instruction may touch: 32 lanes x 16 B straddling two lines, or
 * an LDL/STL.64 of 32 lanes x 2 words; an LDL/STL.128 whose lanes use more
 * distinct words is timed as its first WS_LSU_MAX_LINES lines. */
#define WS_LSU_MAX_LINES 64

typedef enum ws_lsu_state { WS_LSU_EMPTY, WS_LSU_SENDING, WS_LSU_BLOCKED, WS_LSU_STATE_COUNT } ws_lsu_state;

/* A load-like instruction waiting for its lines. */
typedef struct ws_lsu_req {
  uint32_t warp; /* SM warp slot */
  uint32_t pc;   /* the instruction (its write set is released) */
  uint32_t lines_left;
  uint32_t next_free; /* free-list link */
  uint64_t group;     /* LDGSTS commit group */
  uint8_t kind;       /* ws_access_kind */
} ws_lsu_req;

/* What a send reads comes first: after the 1 KiB of lines, `req` was a
 * host cache line of its own, missed on every send. */
typedef struct ws_lsu_entry {
  uint32_t warp;
  uint32_t nlines, next_line;
  uint32_t req; /* index into reqs; UINT32_MAX for stores */
  /* L1 hits sent whose one response is still to be posted
   * (ws_memsys_access_gather), and the latest of their response cycles */
  uint32_t hits;
  uint64_t hit_cycle;
  ws_line_access lines[WS_LSU_MAX_LINES];
} ws_lsu_entry;

/* What one ws_lsu_send call did. */
typedef struct ws_lsu_sent {
  bool entry_done;     /* the head instruction has sent its last line (a queue slot freed) */
  uint32_t store_warp; /* warp whose store finished sending; UINT32_MAX if none */
} ws_lsu_sent;

/* What a send reads and writes comes first, in 64 bytes: every cycle an
 * SM sends a line, and with 108 SMs visited in turn each host cache line
 * of its LSU a send touches was a miss of the host's caches (the queue's
 * 1 KiB entries stood between the state and the head). */
typedef struct ws_lsu {
  ws_memsys *mem;
  uint32_t sm;
  ws_lsu_state state;
  uint32_t head, count, depth; /* depth: sm.lsu_queue_insns, a power of two */
  uint64_t last_send_cycle;
  /* counters (registered by the SM) */
  uint64_t line_accesses, sectors, refusals, smem_wavefronts, smem_conflicts, smem_insns;
  uint64_t local_loads, local_stores, local_bytes; /* LDL/STL, which queue as global accesses do */
  const ws_gpu_cfg *cfg;
  uint64_t smem_backlog; /* sm.smem_backlog_cycles */
  ws_lsu_req *reqs;
  uint32_t nreqs, cap_reqs, free_req;
  uint64_t smem_free_cycle; /* first cycle the shared-memory pipe is free */
  ws_lsu_entry queue[WS_CFG_MAX_LSU_QUEUE];
} ws_lsu;

ws_status ws_lsu_init(ws_ctx *ctx, ws_lsu *l, const ws_gpu_cfg *cfg, ws_memsys *mem, uint32_t sm);
void ws_lsu_free(ws_lsu *l);
/* Clears queue, requests and pipe (not counters). */
void ws_lsu_reset(ws_lsu *l);

static inline bool ws_lsu_full(const ws_lsu *l) { return l->count == l->depth; }
/* Queues a global or local access of warp slot `warp` (step: the executed
 * instruction; local ones, LDL/STL, are counted apart as well).
 * Returns false on NOMEM. *has_req: a response record was made (loads). */
bool ws_lsu_push_global(ws_lsu *l, uint32_t warp, const ws_warp_step *step, uint64_t group, bool *has_req);
/* Offers the head line at `cycle` (at most once per cycle). A load's L1
 * hits answer in one response per instruction (ws_memsys_respond_hits),
 * posted when its last line is sent, when a line is refused, or when the
 * latest hit would respond by the next cycle: the head sends again no
 * earlier than that, so the response is always posted before its cycle. */
ws_lsu_sent ws_lsu_send(ws_lsu *l, uint64_t cycle);
/* Responses for `lines` lines arrived; returns the record when they were
 * its last lines, else NULL. The record stays valid until the next push. */
const ws_lsu_req *ws_lsu_respond(ws_lsu *l, uint64_t cookie, uint32_t lines);
/* A shared-memory access of `wavefronts` arriving at `cycle`, of which
 * `ideal` would suffice without bank conflicts: returns the cycle its result
 * is ready. */
uint64_t ws_lsu_smem(ws_lsu *l, uint64_t cycle, uint32_t wavefronts, uint32_t ideal);
/* Cycle from which a shared access can enter without exceeding the backlog. */
static inline uint64_t ws_lsu_smem_accept_cycle(const ws_lsu *l) {
  return l->smem_free_cycle > l->smem_backlog ? l->smem_free_cycle - l->smem_backlog : 0;
}

#endif
