/* report.h - the per-kernel performance report of a timed launch, in the
 * vocabulary of Nsight Compute: duration, IPC, occupancy, warp stall
 * reasons, cache hit rates, DRAM traffic, shared-memory conflicts, FLOPs and
 * the roofline quantities, each against the preset's peak.
 *
 * Design: the report reads only public results (ws_launch_stats and the
 * stats registry, by counter name with '*' patterns), never the simulator's
 * internals, so it works on any registry with those names; a counter that
 * is absent (a memory model without DRAM counters, a functional launch)
 * prints "n/a" rather than a misleading zero. */
#ifndef WS_REPORT_H
#define WS_REPORT_H

#include <stdio.h>

#include "isa/program.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"
#include "sim/host/device.h"

/* The few figures a timeline line shows per kernel. A rate is negative
 * when its counters are absent (a functional launch). */
typedef struct ws_report_summary {
  double l1_hit_pct, l2_hit_pct; /* sector hit rates */
  double achieved_occupancy_pct;
  uint64_t dram_read_bytes, dram_write_bytes;
  /* managed memory: 4 KiB pages faulted, bytes the fault batches moved in,
   * cycles the driver spent on them (0 without managed memory) */
  uint64_t uvm_faults, uvm_migrated_bytes, uvm_fault_cycles;
  /* mapped host memory: zero-copy reads and writes over the link */
  uint64_t sysmem_reads, sysmem_writes;
} ws_report_summary;
void ws_report_summarize(const ws_gpu_cfg *cfg, const ws_stats *stats, ws_report_summary *out);

void ws_report_print(FILE *out, const ws_gpu_cfg *cfg, const char *kernel_name, ws_dim3 grid, ws_dim3 block,
                     const ws_launch_stats *ls, const ws_stats *stats);

#endif
