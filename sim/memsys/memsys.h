/* memsys.h - the memory hierarchy below the SMs' load/store units: per-SM
 * sectored L1s, the crossbar, the sliced L2 and the HBM channels.
 *
 * Contract with the SM model (sm.c):
 *  - The LSU coalesces a warp's global access into line accesses (one per
 *    128-byte line touched, with the mask of 32-byte sectors used) and offers
 *    them to ws_memsys_access one at a time, at most one per SM per cycle.
 *  - false means "not this cycle" (a full MSHR table, a full miss queue, an
 *    MSHR that cannot merge more): back-pressure, not an error. The LSU keeps
 *    the access and tries again on a later cycle; resources only free up when
 *    a memsys event is processed, so the SM may sleep until the next event,
 *    and until its L1 has changed (ws_memsys_retry_due).
 *  - For loads, atomics and async copies, exactly one response per accepted
 *    access arrives as an event {kind WS_EVK_MEM_RESP, unit = sm, payload =
 *    cookie} at the cycle the data is back at the SM (the cookie is the SM's
 *    own tag), except that the L1 hits of ws_memsys_access_gather answer
 *    together in the one event their caller posts (ws_memsys_respond_hits).
 *    Stores are posted: they consume bandwidth and MSHR/queue space
 *    but produce no response.
 *  - Every event with kind in [WS_EVK_MEMSYS_FIRST, WS_EVK_MEMSYS_LAST] is
 *    handed back by the engine to ws_memsys_handle.
 * Timing is event driven: a request costs a handful of events, never one per
 * idle cycle. Nothing is unbounded: MSHRs, crossbar ports and DRAM queues
 * have the preset's capacities and stall their requesters when full. */
#ifndef WS_MEMSYS_H
#define WS_MEMSYS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/eventq.h"
#include "sim/common/probe.h"
#include "sim/common/stats.h"
#include "sim/memsys/access.h"

typedef struct ws_memsys ws_memsys;

/* Registers its counters in `stats` and posts its events on `q`; both must
 * outlive it. cfg must be resolved (ws_config_resolve or a loader): it is
 * trusted, not checked. */
ws_status ws_memsys_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_eventq *q,
                           ws_memsys **out);
/* Host bytes ws_memsys_create of cfg allocates: its request pool and
 * queues, every L1, the crossbar, the L2 slices, the DRAM channels and the
 * link models (the counters' names aside). Lets a caller refuse a preset
 * whose hierarchy alone would not fit before anything is allocated. */
uint64_t ws_memsys_state_bytes(const ws_gpu_cfg *cfg);
void ws_memsys_destroy(ws_memsys *m);
/* Empties every cache, queue and row buffer (a fresh launch on a cold GPU),
 * without touching the counters. */
void ws_memsys_reset(ws_memsys *m);
/* The same, except that the L2 keeps its contents (the L1s are emptied, as
 * NVIDIA GPUs invalidate them at kernel boundaries): how a kernel finds the
 * hierarchy after the previous one in a real process. */
void ws_memsys_reset_keep_l2(ws_memsys *m);

/* Every micro-op of the hierarchy goes to `probe` (NULL: none, the
 * default); it must outlive its use. Memory micro-ops are numbered from 1
 * at every reset, in the order they are created. */
void ws_memsys_set_probe(ws_memsys *m, const ws_probe *probe);
/* Whether any byte of [addr, addr + size_bytes) holds a followed value:
 * with a probe, each record's sectors are asked (sector granularity), so
 * a line is tagged while it carries the value, whoever asked for it. NULL
 * (the default): records are tagged when the access that made them was. */
typedef bool (*ws_memsys_tag_fn)(void *user, uint64_t addr, uint64_t size_bytes);
void ws_memsys_set_tag_query(ws_memsys *m, ws_memsys_tag_fn fn, void *user);

bool ws_memsys_access(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle, uint64_t cookie);
/* The same, except that a load's or LDGSTS's L1 hit posts no response of
 * its own: *hit_cycle is the cycle the response would have arrived (0 for
 * every other outcome), that cycle is marked for a visit on the queue, and
 * the caller owes a ws_memsys_respond_hits covering it, made before that
 * cycle. Without a probe only: with one (every response is then a record
 * where it happens) and when the cycle cannot be marked, the hit posts its
 * response as ws_memsys_access does and *hit_cycle is 0. */
bool ws_memsys_access_gather(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle,
                             uint64_t cookie, uint64_t *hit_cycle);
/* Posts one response for `lines` L1 hits of the access `cookie` of SM
 * `sm`, at `cycle`, the latest of their response cycles: an event
 * {kind WS_EVK_MEM_HITS, unit = sm, payload = cookie, arg = lines}. Of
 * one SM's hits, which cross its L1's return port in order, the last
 * responds last, and no instruction completes before its last line is
 * back: completing its hits together at the last one's cycle completes
 * the instruction at the cycle one response per hit did. */
void ws_memsys_respond_hits(ws_memsys *m, uint32_t sm, uint64_t cycle, uint64_t cookie, uint32_t lines);
void ws_memsys_handle(ws_memsys *m, const ws_event *ev);
/* Whether SM `sm`'s refused access could be accepted if offered again:
 * false while nothing its L1's refusal depended on has changed (no fill, no
 * write-buffer slot freed since), so the retry would be refused the same
 * way; always true after a refusal for want of a request record, and while
 * a probe is set (each retry is then a record). */
bool ws_memsys_retry_due(const ws_memsys *m, uint32_t sm);
/* Counts `n` refusals of SM `sm`'s waiting access that were known to fail
 * and so not offered, under the reason of its last refusal. */
void ws_memsys_count_refusals(ws_memsys *m, uint32_t sm, uint64_t n);
/* Writes the L2's dirty lines back to DRAM, in no time, counted apart from
 * the launch's timed traffic (l2.slice*.end_writebacks,
 * hbm.ch*.end_bytes_written). The lines stay valid and clean. */
void ws_memsys_write_back_l2(ws_memsys *m);
/* Leaves the L2 as a global access of the sectors `mask` of the line at
 * `line_addr` would leave it, in no time (ws_l2_warm), and counts the
 * evictions and DRAM write-backs it causes, and with `count_reads` the
 * DRAM reads: how a sampled launch warms the L2 with the work it does not
 * time (a skipped CTA's reads counted, a loop gap's priced). */
void ws_memsys_warm(ws_memsys *m, uint64_t line_addr, uint8_t mask, bool write, bool count_reads);
/* Accesses to mapped host memory (line_addr >= WS_CFG_SYSMEM_BASE) go over
 * the host link (sim/memsys/sysmem.h), not through the caches. `fn` (NULL:
 * none, the default) is told when a store leaves for host memory: its
 * line, the sectors it wrote and the cycle it will land. */
typedef void (*ws_memsys_host_write_fn)(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle);
void ws_memsys_set_host_write_observer(ws_memsys *m, ws_memsys_host_write_fn fn, void *user);
/* Managed memory (line_addr in [WS_CFG_MANAGED_BASE, WS_CFG_SYSMEM_BASE)):
 * an access to a block not on the device faults and is refused until the
 * batch that migrates it is done (sim/memsys/uvm.h). The model's state,
 * which lasts across launches: */
typedef struct ws_uvm ws_uvm;
ws_uvm *ws_memsys_uvm(ws_memsys *m);
/* True when no request is anywhere in the hierarchy (all responses sent). */
bool ws_memsys_idle(const ws_memsys *m);

#endif
