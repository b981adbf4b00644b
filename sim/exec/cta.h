/* cta.h - one CTA (thread block): its warps, its shared memory and its
 * barrier, and the executor's core primitive ws_cta_step.
 *
 * Design: a CTA object is created once per launch (or once per resident slot
 * in a timing model) and reset for each CTA it runs, so no memory is
 * allocated per CTA or per instruction. Threads are linearised x fastest;
 * warp w holds threads [32w, 32w+32); lanes past the block size in the last
 * warp never exist (never active, never live).
 *
 * Barrier: a warp whose executing lanes reach BAR.SYNC must have all its live
 * lanes there (else a divergent-barrier fault); it then waits. Exited warps
 * count as arrived, as on hardware, so `if (tid >= n) return; BAR.SYNC`
 * works. When every warp that has not finished is waiting, all are released
 * at once; the check runs on every arrival and every warp exit, so a CTA can
 * never hang on a barrier. The fields are public for drivers to read; only
 * the functions here change them. */
#ifndef WS_CTA_H
#define WS_CTA_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/exec/launch.h"
#include "sim/exec/warp.h"

typedef struct ws_sanitize_cta ws_sanitize_cta;
typedef struct ws_taint_cta ws_taint_cta;

typedef struct ws_cta {
  const ws_exec_launch *launch;
  ws_dim3 ctaid;
  uint64_t linear_id;
  uint32_t sm_id; /* what SR_SMID reads: the SM running this CTA */
  /* the warp slot (sim/exec/local.h) whose local memory region warp 0 uses,
   * warp w that of slot + w: the functional launcher's regions after
   * ws_cta_reset; a timing model sets its SM's own */
  uint32_t local_slot;
  uint32_t nthreads;
  uint32_t nwarps;
  ws_warp *warps;
  uint8_t *smem; /* static + dynamic shared memory, zeroed per CTA */
  uint32_t smem_bytes;
  uint32_t warps_waiting; /* at the barrier */
  uint32_t warps_done;
  /* the loop a sampled timing run may fast-forward (sim/exec/ffwd.h): its
   * back-edge and its first barrier (UINT32_MAX: none), and the releases of
   * that barrier so far; set by ws_ffwd_arm, counted by the step */
  uint32_t ffwd_bra_pc, ffwd_bar_pc;
  uint64_t ffwd_releases;
  ws_sanitize_cta *san; /* the checks' state (sim/exec/sanitize.h); NULL: no checks */
  ws_taint_cta *tnt;    /* pixel following's state (sim/exec/taint.h); NULL: off */
  bool shadowed;        /* san or tnt: the one test a step makes for either */
  /* this CTA runs the launch's slice (never with a shadow): each
   * instruction's ws_slice_role, and the skipped runs a functional driver
   * passes at once (ws_cta_pass); NULL otherwise */
  const uint8_t *roles;
  const uint32_t *runs;
} ws_cta;

/* Registers per thread the executor must hold for k: the larger of the
 * kernel's declared count and ws_analysis_regs(k), the highest register any
 * operand touches + 1 (so a hand-built kernel with a wrong count cannot
 * index out of bounds). The analysis counts exactly what the executor
 * reads and writes (a global address is a pair, a shared or constant one a
 * single register, a parameter none), and the assembler and the object
 * loader set regs_per_thread from it, so for every verified program the two
 * are one count. */
uint32_t ws_cta_regs_needed(const ws_kernel *k);

ws_status ws_cta_create(ws_ctx *ctx, const ws_exec_launch *launch, ws_cta **out);
void ws_cta_destroy(ws_cta *cta);
/* Starts CTA number `linear_id` of the grid: fresh registers, shared memory
 * zeroed, every warp at pc 0, sm_id = linear_id % num_sms and local_slot
 * the functional launcher's (its placement; the timing model sets the SM
 * and the warp slots that really run it). Local memory is not cleared: as
 * on hardware, a thread reads back only what it stored. */
void ws_cta_reset(ws_cta *cta, uint64_t linear_id);
static inline bool ws_cta_done(const ws_cta *cta) { return cta->warps_done == cta->nwarps; }
static inline ws_warp_state ws_cta_warp_state(const ws_cta *cta, uint32_t warp) {
  return cta->warps[warp].state;
}
/* The pc warp `warp` issues next (meaningful while it is READY). */
uint32_t ws_cta_warp_pc(const ws_cta *cta, uint32_t warp);

/* Executes one instruction of READY warp `warp` and describes it in *step.
 * clock is what SR_CLOCK reads. stats (may be NULL) is incremented. Returns
 * WS_ERR_FAULT with the report on ctx when the instruction faults. */
ws_status ws_cta_step(ws_ctx *ctx, ws_cta *cta, uint32_t warp, uint64_t clock, ws_warp_step *step,
                      ws_launch_stats *stats);
/* For a functional driver of a CTA running the slice: passes at most
 * `max` of the skipped instructions warp `warp` issues next (a run with no
 * guard, branch or reconvergence point: what stepping each would do but
 * compute), counts them in stats and returns how many. 0 when the next
 * instruction must be stepped. */
uint64_t ws_cta_pass_run(ws_cta *cta, uint32_t warp, uint64_t max, ws_launch_stats *stats);
/* Inline, so a CTA that runs no slice pays one test per step and no call. */
static inline uint64_t ws_cta_pass(ws_cta *cta, uint32_t warp, uint64_t max, ws_launch_stats *stats) {
  return cta->runs ? ws_cta_pass_run(cta, warp, max, stats) : 0;
}

#endif
