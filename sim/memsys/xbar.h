/* xbar.h - the crossbar between the SMs and the L2 slices.
 *
 * Design: two independent directions (requests SM -> slice, responses
 * slice -> SM). Each source port serialises its packets at its bandwidth
 * (a "free at" cycle, no per-cycle ticking); each destination has an input
 * queue of `queue_depth` packets, modelled as credits: a packet takes a
 * credit when it is sent and gives it back when the destination consumes it.
 * With no credit the sender must hold the packet (back-pressure) and resend
 * it when ws_xbar_release reports a free slot; the owner keeps the waiting
 * packets (per-destination FIFOs, i.e. virtual output queues, so one full
 * slice does not block an SM's traffic to the others).
 * Timing convention (used everywhere in memsys): a transfer of n beats
 * through a stage of latency L starts at s and is complete at s + L + n - 1.
 * A request to a slice of the other L2 partition adds far_extra_lat_cycles
 * (once per round trip). */
#ifndef WS_XBAR_H
#define WS_XBAR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"

/* A read request carries a command header only (noc.header_bytes: address,
 * mask, kind, ids); write and atomic requests add their data, responses
 * carry the data. */

typedef enum ws_xbar_dir { WS_XBAR_REQ, WS_XBAR_RESP, WS_XBAR_DIR_COUNT } ws_xbar_dir;

typedef struct ws_xbar ws_xbar;

ws_status ws_xbar_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_xbar **out);
/* Host bytes ws_xbar_create of cfg allocates (its counters' names aside). */
uint64_t ws_xbar_state_bytes(const ws_gpu_cfg *cfg);
void ws_xbar_destroy(ws_xbar *x);
/* Frees every port and returns every credit. */
void ws_xbar_reset(ws_xbar *x);

/* True when a packet from `src` to `dst` in `dir` can be sent (the
 * destination queue has a free slot). */
bool ws_xbar_can_send(const ws_xbar *x, ws_xbar_dir dir, uint32_t src, uint32_t dst);
/* Counts a packet that must wait at its sender for a slot at `dst`. */
void ws_xbar_count_stall(ws_xbar *x, ws_xbar_dir dir, uint32_t dst);
/* Sends a packet that becomes ready at `ready_cycle` (takes a credit: call
 * only after ws_xbar_can_send). Returns the cycle it is complete at `dst`. */
uint64_t ws_xbar_send(ws_xbar *x, ws_xbar_dir dir, uint32_t src, uint32_t dst, uint32_t bytes,
                      uint64_t ready_cycle);
/* The destination consumed a packet: its queue slot is free again. */
void ws_xbar_release(ws_xbar *x, ws_xbar_dir dir, uint32_t dst);

/* Partition (0 or 1) of an SM and of a slice. */
uint32_t ws_xbar_sm_partition(const ws_xbar *x, uint32_t sm);
uint32_t ws_xbar_slice_partition(const ws_xbar *x, uint32_t slice);

/* ceil(bytes / bytes_per_cycle), at least 1: the beats of a transfer. */
static inline uint64_t ws_xbar_beats(uint64_t bytes, uint64_t bytes_per_cycle) {
  uint64_t b = (bytes + bytes_per_cycle - 1) / bytes_per_cycle;
  return b ? b : 1;
}

#endif
