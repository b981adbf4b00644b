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
#include "sim/common/pcprof.h"
#include "sim/common/stats.h"
#include "sim/host/device.h"

/* The few figures a timeline line shows per kernel. A rate is negative
 * when its counters are absent (a functional launch). */
typedef struct ws_report_summary {
  double l1_hit_pct, l2_hit_pct; /* sector hit rates */
  double achieved_occupancy_pct;
  uint64_t dram_read_bytes;
  uint64_t dram_write_bytes; /* during the launch and at its end (hbm.ch*.end_bytes_written) */
  /* managed memory: 4 KiB pages faulted, bytes the fault batches moved in,
   * cycles the driver spent on them (0 without managed memory) */
  uint64_t uvm_faults, uvm_migrated_bytes, uvm_fault_cycles;
  /* mapped host memory: zero-copy reads and writes over the link */
  uint64_t sysmem_reads, sysmem_writes;
} ws_report_summary;
void ws_report_summarize(const ws_gpu_cfg *cfg, const ws_stats *stats, ws_report_summary *out);

void ws_report_print(FILE *out, const ws_gpu_cfg *cfg, const char *kernel_name, ws_dim3 grid, ws_dim3 block,
                     const ws_launch_stats *ls, const ws_stats *stats);

/* ---- the source view: a profile (ws_device_set_pcprof) per source line ---------------- */

/* One source line's sums over the instructions the kernel's insn_lines
 * give it: the .wsa line of an assembled kernel, the PTX line of a .ptx
 * one, the CUDA line of a .cu one (line 0: instructions with no line of
 * their own, such as a header's code or code the compiler made). */
typedef struct ws_report_line {
  uint32_t line;
  uint32_t ninsns; /* static instructions on the line */
  ws_pcprof_row sum;
} ws_report_line;

/* The lines of `k` that hold an instruction, hottest first (most warp-state
 * cycles, issues included; ties by line), into *out (malloc'd, the
 * caller's). prof must have been filled by a launch of k. */
ws_status ws_report_lines(ws_ctx *ctx, const ws_pcprof *prof, const ws_kernel *k, ws_report_line **out,
                          size_t *count);

/* Where the lines come from: the name shown before ":line" and the file's
 * text, which gives each line's source (NULL: lines are shown without it). */
typedef struct ws_report_source {
  const char *name;
  const char *text;
  size_t size;
} ws_report_source;

/* The hottest `top` of the `count` lines: file:line, its share of the
 * launch's warp-state cycles, warp instructions, top stall reason, global
 * sectors and shared conflicts where it accesses memory, and its text. */
void ws_report_print_lines(FILE *out, const ws_report_line *lines, size_t count, size_t top,
                           const ws_report_source *src);

#endif
