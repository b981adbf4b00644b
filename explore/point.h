/* point.h - one point of an exploration: a generated GEMM or attention
 * kernel with its tile configuration, on a GPU preset, for one problem
 * size; run in timing mode, checked against OpenBLAS, and measured into one
 * flat record that the `gemm` and `attention` commands print, the sweep
 * writes as a CSV or JSON row, and the charts read back.
 *
 * Design: a point is plain data (names and numbers, no pointers into the
 * simulator), so it can be copied to worker threads and MPI ranks, parsed
 * back from a sweep's output to resume it, and compared field by field.
 * The result record is the one schema of the explorer: its columns, in
 * order, are the sweep's (explore/record.h, docs/explore.md); a field that
 * does not apply (a GEMM's sequence length, blocktile2d's warp tile) is 0
 * and printed empty. Nothing
 * in a record depends on the host (no wall time) unless the cost columns
 * are asked for, so a sweep's output is the same whoever ran its points. */
#ifndef WS_EXPLORE_POINT_H
#define WS_EXPLORE_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/host/device.h"

typedef enum ws_point_kind {
  WS_POINT_GEMM,
  WS_POINT_ATTENTION,
  WS_POINT_KERNEL,
  WS_POINT_KIND_COUNT
} ws_point_kind;
/* Where a GEMM point's kernel comes from: the generator (models/kgen), or
 * the same step written in CUDA C (explore/cudagemm.h), compiled by clang. */
typedef enum ws_point_source {
  WS_POINT_SOURCE_GENERATED,
  WS_POINT_SOURCE_CUDA,
  WS_POINT_SOURCE_COUNT
} ws_point_source;

#define WS_POINT_NAME_MAX 32
#define WS_POINT_MAX_SETS 16 /* --set overrides carried by a point */
#define WS_POINT_SET_MAX 96
#define WS_POINT_MAX_DEFINES 8 /* -D names of a kernel point */
#define WS_POINT_KERNEL_MAX 64 /* a kernel's name (WS_NAME_MAX) */

/* What is run. */
typedef struct ws_point {
  ws_point_kind kind;
  char gpu[WS_POINT_NAME_MAX];                    /* preset name */
  char sets[WS_POINT_MAX_SETS][WS_POINT_SET_MAX]; /* "section.key=value" overrides, applied in order */
  uint32_t nsets;
  /* GEMM: C[m x n] = A[m x k] B[k x n] */
  uint32_t m, n, k;
  char variant[WS_POINT_NAME_MAX];              /* the ladder step (ws_gemmgen_variant_name) */
  uint32_t bm, bn, bk, tm, tn, wm, wn, threads; /* 0: the variant's default */
  ws_point_source source;                       /* the kernel's origin; generated when 0 */
  /* attention: heads x seq x dhead, naive (three kernels) or flash (fused) */
  uint32_t seq, heads, dhead;
  char attn[WS_POINT_NAME_MAX]; /* "naive" or "flash" */
  uint32_t br, bc;              /* flash tiles; 0: default */
  uint64_t seed;                /* the inputs' generator */
  /* kernel: a CUDA C (or PTX) file's kernel compiled with the -D
   * definitions, launched with the grid, block and dynamic shared memory
   * their expressions give (explore/kspace.h) */
  char kernel[WS_POINT_KERNEL_MAX]; /* as --kernel names it; "": the file's only kernel */
  uint32_t ndefines;
  char define_names[WS_POINT_MAX_DEFINES][WS_POINT_NAME_MAX];
  int64_t define_values[WS_POINT_MAX_DEFINES];
  uint32_t grid[3], block[3]; /* all 0 when the expressions refuse the point */
  uint32_t shared_bytes;      /* dynamic shared memory per CTA */
  uint64_t inputs_hash;       /* the file's bytes, the kernel name, the args and buffers (ws_kspace) */
  /* 0: every CTA timed; else CTA-wave sampling with this many measured
   * waves (sim/gpu/sampler.h: WS_SAMPLER_MIN_WAVES .. WS_SAMPLER_MAX_WAVES) */
  uint32_t sample_waves;
  /* 0: no sampling inside CTAs; else iterations of each CTA's main loop
   * timed per window (WS_SAMPLER_MIN_ROUNDS .. WS_SAMPLER_MAX_ROUNDS) */
  uint32_t sample_rounds;
  /* 1: the point's launches share the L2 (--l2 keep), its dirty lines
   * written back after the last; 0: each launch starts with an empty L2
   * and ends by writing back what it left dirty (--l2 flush, the default) */
  uint32_t keep_l2;
} ws_point;

/* What was measured. Sums over the point's launches (naive attention has
 * three); rates are over the same. */
#define WS_POINT_STALLS_MAX 24
typedef struct ws_point_result {
  bool valid;                /* false: the configuration was refused before running */
  char why[256];             /* why it was refused, or why the check failed ("" otherwise) */
  bool check_pass;           /* results within the tolerance of OpenBLAS; kernel points: true, not checked */
  double max_abs_err;        /* against OpenBLAS */
  bool sampled;              /* cycles and counters estimated from samples; false: every instruction timed */
  uint64_t timed_ctas;       /* CTAs simulated in full timing, over the launches (= ctas when not sampled) */
  uint64_t timed_warp_insns; /* warp instructions timed (the rest ran functionally); = warp_insns when full */
  uint64_t cycles_ci95; /* sampled: half-width of the 95 % interval of cycles, summed over launches; else 0 */
  uint32_t regs_per_thread, smem_per_cta_bytes, threads_per_cta;
  uint32_t spill_bytes; /* local memory per thread holding spilled registers (translated kernels) */
  uint32_t ctas_per_sm;
  double occupancy_pct; /* theoretical */
  char limiter[24];     /* ws_occupancy_limiter_name */
  uint64_t ctas, launches;
  uint64_t cycles;
  double time_us; /* cycles at the preset's clock */
  double flops;   /* the algorithm's: 2 m n k for a GEMM; 4 heads seq^2 dhead for attention */
  double gflops;  /* flops / time */
  uint64_t warp_insns;
  double l1_hit_pct, l2_hit_pct; /* sector hit rates, < 0 when no lookups */
  uint64_t dram_read_bytes;
  uint64_t dram_write_bytes; /* during the launches and the write-backs at their ends */
  double arith_intensity;    /* flops / DRAM bytes (read + written) */
  uint64_t smem_bank_conflicts;
  uint64_t lsu_refusals;
  double stall_pct[WS_POINT_STALLS_MAX]; /* share of stalled warp-cycles per reason, in the device's order */
  uint32_t nstalls;
  char stall_names[WS_POINT_STALLS_MAX][24];
  /* a sampled point's CTAs beyond a spread few ran the kernel's slice
   * (sim/exec/slice.h): timed the same, their outputs left unwritten, so
   * the check covers the outputs the computed CTAs wrote. Summed over the
   * launches; computed_ctas = ctas and checked_outputs = outputs when
   * nothing was sliced. Not part of the sweep record. */
  uint64_t computed_ctas;
  uint64_t checked_outputs, outputs;
  /* what simulating the point cost the host (explore/cost.h), measured by
   * whoever runs it (the sweep), not by ws_point_run; 0: not measured. A
   * record holds them only with the cost columns (`sweep --cost`). */
  double sim_wall_s, sim_cpu_s;
} ws_point_result;

/* Called after each launch of the point while its device still holds the
 * launch's counters (ws_device_stats describes that launch), so a caller
 * can print the per-kernel report (sim/host/report.h) of a point it never
 * sees the device of; also for a launch stopped by a limit or an
 * interrupt, with what it simulated so far (the run then fails with the
 * stop). */
typedef void (*ws_point_launch_fn)(void *user, const ws_device *dev, const char *kernel, ws_dim3 grid,
                                   ws_dim3 block, const ws_launch_stats *ls);
/* Called once the device exists, before anything is copied or launched:
 * the place for watch limits and Ctrl-C (ws_device_set_watch). It must
 * leave the mode, checks and probe as they are, or the record is not the
 * point's. */
typedef void (*ws_point_device_fn)(void *user, ws_device *dev);

typedef struct ws_point_opts {
  double timeout_s;               /* wall-clock bound of the point's simulation; 0: none */
  uint32_t sim_threads;           /* host threads a timed launch may use (ws_device_set_threads); 0: one */
  bool sample_exact;              /* a sampled point computes every CTA in full (ws_sampling.exact) */
  ws_point_device_fn on_device;   /* NULL: none */
  ws_point_launch_fn on_launch;   /* NULL: none */
  void *user;                     /* passed to both */
  const struct ws_kspace *kspace; /* a kernel sweep's shared inputs (explore/kspace.h); NULL otherwise */
} ws_point_opts;

/* Resolves the preset and the generator's configuration and checks them
 * (the generator's rules and the device limits), without running: false
 * with the reason in *why for a point that cannot run. */
bool ws_point_validate(ws_ctx *ctx, const ws_point *p, char *why, size_t why_bytes);
/* A digest of the points (their bytes: two points compare by them) and of
 * every GPU they name as it resolves here, preset file and overrides
 * applied: two processes with the same digest run the same sweep. Each GPU
 * is loaded once, so a preset or a combination of --set values that cannot
 * load fails here, before any point runs (the command line's mistake, not
 * a refusal repeated at every point). */
ws_status ws_point_digest(ws_ctx *ctx, const ws_point *pts, size_t n, uint32_t *out);
/* Runs the point: a fresh device on its preset, inputs from its seed,
 * timing mode, the check against OpenBLAS. A refused configuration is not
 * an error: res->valid is false with the reason. Errors are for what stops
 * the run itself (no memory, a watchdog). */
ws_status ws_point_run(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_result *res);
/* What a kernel point launches on the device the point's run made: the
 * counters of every launch it makes are measured as the built-in kinds'
 * are. */
typedef ws_status (*ws_point_body_fn)(void *user, ws_ctx *ctx, ws_device *dev, ws_point_result *res);
/* Runs body on a fresh timing-mode device of the point's GPU, with the
 * watch, sampling and hooks of opts, and fills res as ws_point_run does
 * (flops 0: the kernel's work is not known). A GPU or sampling that
 * cannot be used refuses the point (res->valid false). */
ws_status ws_point_run_body(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_body_fn body,
                            void *user, ws_point_result *res);
/* p with its tiles as the kernel is built from them: a GEMM variant's
 * defaults filled in and the tiles its kernel does not read 0, a flash
 * point's Br and Bc. A point whose tiles do not resolve (an unknown
 * variant, a tile the variant or naive attention refuses) is copied as
 * given. Records hold these tiles, and resume matches on them, so a
 * default and the same value given explicitly are one point. */
void ws_point_resolve_tiles(const ws_point *p, ws_point *out);
/* "blocktile2d bm=128 bn=128 bk=8 tm=8 tn=8 threads=256" (the resolved tiles,
 * then " source cuda" for the CUDA C kernel)
 * or "flash br=64 bc=64"; the point's fields as given when they do not
 * resolve. */
void ws_point_describe(const ws_point *p, char *buf, size_t buf_bytes);

#endif
