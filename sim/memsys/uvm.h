/* uvm.h - managed (unified) memory: which pages of the managed allocations
 * are on the device, the GPU page faults that bring the others over the
 * PCIe link, in batches, the driver's density prefetch, and eviction when
 * the device is full.
 *
 * Design: the model follows NVIDIA's UVM driver (open GPU kernel modules,
 * nvidia-uvm): a kernel's access to a page not on the device is a
 * replayable fault; faults are serviced in batches of at most
 * uvm.batch_faults 4 KiB pages; a faulted page migrates as its whole
 * uvm.migrate_bytes block (the 64 KiB big page); within each
 * uvm.chunk_bytes chunk (the 2 MiB VA block) the prefetcher also migrates
 * the largest aligned region around a faulted block whose blocks are
 * resident or faulted above uvm.prefetch_threshold_pct percent; and when
 * the migrations would pass the device memory free for managed pages, whole
 * chunks are evicted (written back to the host) in the order they were
 * first populated. A batch starts when the driver is free and takes every
 * fault raised by then; it lasts uvm.fault_batch_ns (the driver's fixed
 * work: fetching and sorting the faults, unmapping, page-table updates, TLB
 * invalidation) plus the evictions' and migrations' time on the link.
 * Residency lasts across launches; the batch machinery is per launch. The
 * memory system refuses a faulting access (the LSU offers it again) until
 * the batch that migrates its block is done. Blocks: uvm.migrate_bytes;
 * chunks: at most 32 blocks each. */
#ifndef WS_UVM_H
#define WS_UVM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"

typedef struct ws_uvm ws_uvm;

/* What has moved since the model was created (across launches and
 * prefetches). */
typedef struct ws_uvm_totals {
  uint64_t faults;           /* distinct 4 KiB pages faulted, per batch */
  uint64_t batches;          /* fault batches serviced */
  uint64_t migrated_bytes;   /* host to device, faulted blocks and the prefetcher's */
  uint64_t prefetched_bytes; /* of those, the density prefetcher's */
  uint64_t hinted_bytes;     /* host to device by explicit prefetch (ws_uvm_prefetch) */
  uint64_t evicted_bytes;    /* device to host, to make room */
  uint64_t fault_cycles;     /* cycles the driver spent servicing batches */
} ws_uvm_totals;

/* Registers the uvm.* counters (per launch) in `stats`. */
ws_status ws_uvm_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_uvm **out);
/* Host bytes ws_uvm_create of cfg allocates (its counters' names aside). */
uint64_t ws_uvm_state_bytes(const ws_gpu_cfg *cfg);
void ws_uvm_destroy(ws_uvm *u);

/* A managed allocation: its pages start on the host. */
ws_status ws_uvm_add_range(ws_uvm *u, ws_ctx *ctx, uint64_t base, uint64_t size_bytes);
/* A freed one: its resident blocks are dropped (nothing is written back). */
void ws_uvm_remove_range(ws_uvm *u, uint64_t base);
/* Device memory the managed blocks may take (what the device allocations
 * leave free). */
void ws_uvm_set_budget(ws_uvm *u, uint64_t bytes);
uint64_t ws_uvm_resident_bytes(const ws_uvm *u);
ws_uvm_totals ws_uvm_get_totals(const ws_uvm *u);

/* A new launch: no batch in flight (residency stays). */
void ws_uvm_reset_batches(ws_uvm *u);
/* Whether the block holding `addr` (in a managed range) is on the device. */
bool ws_uvm_resident(const ws_uvm *u, uint64_t addr);
/* A kernel's access to `addr`, not resident, at `cycle`: records the fault.
 * Returns the cycle a batch must start at (UINT64_MAX: none to start; one
 * is in flight or already planned): the caller calls ws_uvm_batch_start
 * then. */
uint64_t ws_uvm_fault(ws_uvm *u, uint64_t addr, uint64_t cycle);
/* The driver takes the faults raised so far; returns the cycle the batch is
 * done (its blocks resident then). */
uint64_t ws_uvm_batch_start(ws_uvm *u, uint64_t cycle);
/* The batch is done: its blocks are resident. Returns the cycle the next
 * batch starts at (faults raised meanwhile), UINT64_MAX when none. */
uint64_t ws_uvm_batch_done(ws_uvm *u, uint64_t cycle);

/* n offers of a faulting access were skipped while its block was on its way
 * (sim/gpu/engine.c counts them without making them). */
void ws_uvm_count_retries(ws_uvm *u, uint64_t n);
/* The host touched [addr, addr + size): its blocks are on the host now. */
void ws_uvm_host_touch(ws_uvm *u, uint64_t addr, uint64_t size_bytes);
/* Explicit prefetch of [addr, addr + size) to the device (outside any
 * launch): *in_bytes migrate in, *out_bytes were evicted to make room. */
void ws_uvm_prefetch(ws_uvm *u, uint64_t addr, uint64_t size_bytes, uint64_t *in_bytes, uint64_t *out_bytes);
#endif
