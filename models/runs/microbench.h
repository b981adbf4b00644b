/* microbench.h - GPU microbenchmarks run on a simulated device: pointer-chase
 * latencies, streaming and shared-memory bandwidth, shared-memory bank
 * conflicts and global-load coalescing.
 *
 * Design: every benchmark is the kind of kernel published GPU
 * microbenchmarks use (the .wsa files in models/runs/microbench), run through the public
 * device API; every result carries, next to the measurement, what the
 * preset predicts (a path latency from ws_latency_idle_cycles, a peak
 * bandwidth, a conflict degree, a sector count), so the simulator can be
 * checked against its own configuration and the configuration against
 * published measurements (docs/validation.md). Timed quantities are
 * differences of two launches (2N chase steps minus N, two copy passes minus
 * one, R loop iterations minus 0), which cancel the constant cost of
 * launching and of the loop around the measured work. The chases compare N
 * with 2N steps rather than with 0: with no step the loop's exit test lies
 * on the timed path, while after a load it hides under the load's latency,
 * so a 0-step run would bias the difference by that test's few cycles. */
#ifndef WS_MICROBENCH_H
#define WS_MICROBENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/host/device.h"

/* A global load issued at cycle t is offered to the memory system at t + 1:
 * the LSU queue is served at the start of each SM cycle, before the
 * sub-partitions issue (sim/sm/sm.c ws_sm_cycle), so the load issued at t
 * leaves on the next cycle. A dependent load issues the cycle its data
 * arrives, so one pointer-chase step through global memory costs the path
 * latency plus this one cycle. Shared-memory loads complete in the LSU's
 * pipe at issue + smem.lat_cycles (sim/sm/lsu.c) and carry no such cycle. */
#define WS_MICROBENCH_GLOBAL_ISSUE_CYCLES 1u

/* ---- latency ------------------------------------------------------------- */

typedef enum ws_microbench_level {
  WS_MICROBENCH_SMEM,
  WS_MICROBENCH_L1,
  WS_MICROBENCH_L2_NEAR,
  WS_MICROBENCH_L2_FAR, /* only on presets with two L2 partitions */
  WS_MICROBENCH_DRAM,   /* every step opens a row in a bank no earlier step used */
  WS_MICROBENCH_LEVEL_COUNT
} ws_microbench_level;

#define WS_MICROBENCH_WHY_BYTES 192

typedef struct ws_microbench_latency {
  bool present; /* false: the level does not exist on this preset */
  /* "" when measured; else why this preset cannot make the chain hit the
   * level (too few lines fit, or the timed loads were served elsewhere):
   * the numbers below are then no measurement of the level */
  char why[WS_MICROBENCH_WHY_BYTES];
  /* where the N extra timed loads of the 2N run were served, from the
   * counters of the two launches: L1 hits, L2 hits, L2 misses */
  uint64_t served_l1, served_l2, served_dram;
  uint32_t chain_elems;     /* distinct 8-byte elements (lines) in the chain */
  uint32_t warm_steps;      /* untimed steps filling the caches first */
  uint32_t steps;           /* N */
  uint64_t cycles_n;        /* SR_CLOCK cycles of a run of N timed steps */
  uint64_t cycles_2n;       /* the same with 2N steps */
  double measured_cycles;   /* (cycles_2n - cycles_n) / N */
  uint64_t path_cycles;     /* from the preset: ws_latency_idle_cycles or smem.lat_cycles */
  uint64_t expected_cycles; /* path_cycles + WS_MICROBENCH_GLOBAL_ISSUE_CYCLES for global levels */
} ws_microbench_latency;

const char *ws_microbench_level_name(ws_microbench_level level);
/* Runs the five chases (a level the preset lacks is left with present =
 * false; one it has but cannot measure gets a `why`). Needs the device in
 * timing mode. */
ws_status ws_microbench_latency_run(ws_device *dev, ws_microbench_latency out[WS_MICROBENCH_LEVEL_COUNT]);

/* ---- bandwidth ----------------------------------------------------------- */

typedef enum ws_microbench_bw_kind {
  WS_MICROBENCH_BW_HBM,  /* one copy over buffers larger than L2 */
  WS_MICROBENCH_BW_L2,   /* passes 3-6 of a copy whose buffers fit in L2 */
  WS_MICROBENCH_BW_SMEM, /* conflict-free LDS.128 from every warp slot */
  WS_MICROBENCH_BW_COUNT
} ws_microbench_bw_kind;

typedef struct ws_microbench_bw_opts {
  uint64_t hbm_buffer_bytes; /* per buffer (src and dst); 0: twice the L2 size */
  uint64_t l2_buffer_bytes;  /* per buffer; 0: a quarter of the L2 size */
  uint32_t smem_reps;        /* R: smem_bw runs R and 2R iterations; 0: 32 */
} ws_microbench_bw_opts;

typedef struct ws_microbench_bw {
  uint64_t buffer_bytes; /* per buffer (0 for shared memory) */
  uint64_t bytes;        /* bytes moved in the timed part: read + written */
  uint64_t cycles;       /* its duration in core cycles */
  double gbps;           /* bytes / cycles x core clock, in 10^9 B/s */
  double peak_gbps;      /* the preset's peak for this level */
  double dram_gbps;      /* HBM only: what the channels moved (hbm.ch*.bytes_*) over the same cycles */
  /* L2 only: "" when passes 3-6 were served by the L2; else why this preset
   * cannot keep the copy there (the figures above are then no L2 bandwidth) */
  char why[WS_MICROBENCH_WHY_BYTES];
  uint32_t ctas, threads_per_cta;
} ws_microbench_bw;

const char *ws_microbench_bw_name(ws_microbench_bw_kind kind);
/* opts may be NULL (the defaults). */
ws_status ws_microbench_bandwidth_run(ws_device *dev, const ws_microbench_bw_opts *opts,
                                      ws_microbench_bw out[WS_MICROBENCH_BW_COUNT]);
/* One streaming copy of `buffer_bytes` per buffer (rounded up to the grid's
 * granularity), timed over the whole launch: the HBM row above. */
ws_status ws_microbench_stream_hbm(ws_device *dev, uint64_t buffer_bytes, ws_microbench_bw *out);

/* ---- shared-memory bank conflicts ---------------------------------------- */

#define WS_MICROBENCH_MAX_STRIDE 32u

typedef struct ws_microbench_bank_row {
  uint32_t stride;              /* words between lanes */
  uint32_t predicted_degree;    /* most distinct words in one bank: gcd(stride, 32) for 32 banks */
  double wavefronts_per_access; /* measured: sm0.smem.wavefronts / sm0.smem.insns */
  double cycles_per_access;     /* steady state, per warp instruction */
  double relative;              /* cycles_per_access / stride 1's */
} ws_microbench_bank_row;

/* Strides 1..nrows (nrows <= WS_MICROBENCH_MAX_STRIDE); rows[i] is stride i + 1. */
/* ---- arithmetic throughput -------------------------------------------------------
 *
 * models/runs/microbench/tput.wsa at full occupancy on every SM: FFMA on eight
 * independent accumulators per thread, HMMA.16816.F32 on four per warp;
 * (FLOP of 2N iterations - FLOP of N) / (cycles(2N) - cycles(N)), per SM. */
typedef enum ws_microbench_tput_kind {
  WS_MICROBENCH_FFMA,
  WS_MICROBENCH_HMMA,
  WS_MICROBENCH_TPUT_COUNT
} ws_microbench_tput_kind;

typedef struct ws_microbench_tput {
  uint32_t ctas, threads_per_cta, iters; /* the N run; the other runs 2N */
  uint64_t cycles_n, cycles_2n;
  double flop_per_cycle_per_sm; /* measured */
  double peak_per_cycle_per_sm; /* the preset's: 2 x FP32 lanes x sub-partitions, or the tensor rate */
} ws_microbench_tput;

const char *ws_microbench_tput_name(ws_microbench_tput_kind kind);
ws_status ws_microbench_tput_run(ws_device *dev, ws_microbench_tput out[WS_MICROBENCH_TPUT_COUNT]);

/* ---- latency under load ----------------------------------------------------------
 *
 * models/runs/microbench/loaded.wsa: one thread of CTA 0 chases a chain of
 * distinct lines scattered over twice the L2 (every step a DRAM access
 * that opens a row, as a random access does), while one CTA on each of the
 * first k other SMs copies between two buffers twice the L2 as fast as it
 * can, k rising from none to all of them. Each point is one launch: the
 * chase's timed cycles per step (its loop's few instructions included, as
 * in the idle point) and the DRAM traffic of the whole launch
 * (hbm.ch*.bytes_read + bytes_written over its cycles). */
#define WS_MICROBENCH_LOADED_POINTS 7u
#define WS_MICROBENCH_LOADED_WARM 16u
#define WS_MICROBENCH_LOADED_STEPS 48u

typedef struct ws_microbench_loaded {
  uint32_t copy_sms;     /* SMs copying (0: the idle point) */
  uint64_t chase_cycles; /* timed cycles of WS_MICROBENCH_LOADED_STEPS steps */
  double latency_cycles; /* per step */
  double latency_ns;
  uint64_t launch_cycles, dram_bytes;
  double dram_gbps, dram_pct; /* over the launch; of channels x channel_mbps */
} ws_microbench_loaded;

/* Fills out[0 .. *n): k = 0 and (num_sms - 1) x 1/16, 1/8, 1/4, 1/2, 3/4, 1,
 * rounded, each at least 1 and counted once (fewer points on a small GPU). */
ws_status ws_microbench_loaded_run(ws_device *dev, ws_microbench_loaded out[WS_MICROBENCH_LOADED_POINTS],
                                   uint32_t *n);

ws_status ws_microbench_smem_banks_run(ws_device *dev, uint32_t nrows, ws_microbench_bank_row *rows);

/* ---- coalescing ---------------------------------------------------------- */

typedef struct ws_microbench_coalesce_row {
  uint32_t stride;            /* words between lanes */
  uint32_t predicted_sectors; /* distinct 32-byte sectors among the 32 addresses */
  uint32_t predicted_lines;   /* distinct 128-byte lines */
  uint64_t sectors;           /* measured: sm*.l1.sector_hits + sm*.l1.sector_misses */
  uint64_t lines;             /* measured: sm*.l1.loads (line accesses) */
} ws_microbench_coalesce_row;

ws_status ws_microbench_coalescing_run(ws_device *dev, uint32_t nrows, ws_microbench_coalesce_row *rows);

#endif
