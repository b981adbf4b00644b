/* pcprof.h - a launch's counters per static instruction (pc): warp and
 * thread instructions issued, warp-state cycles by state charged to the
 * instruction a warp was waiting to issue (or issued), and what its memory
 * accesses cost. The source view (sim/host/report.h) sums them per source
 * line, as Nsight Compute's Source page does per SASS and CUDA line.
 *
 * Design: a plain structure owned by whoever creates it and handed to the
 * device (ws_device_set_pcprof), which the timing model fills only when
 * one is set: the SM then runs its instrumented issue stage (the one a
 * probe uses), so a launch without a profile runs exactly the code it ran
 * before. One flat row array per launch, indexed by pc, so counting is one
 * add into a row and the sums are deterministic. */
#ifndef WS_PCPROF_H
#define WS_PCPROF_H

#include <stdint.h>

#include "base/ctx.h"

/* The SM's warp states (ws_stall in sim/sm/sm.h, which checks the number):
 * state_cycles[0] is `selected`, the cycles of the issues themselves. */
#define WS_PCPROF_STATES 12

typedef struct ws_pcprof_row {
  uint64_t warp_insns;   /* warp instructions issued */
  uint64_t thread_insns; /* their active lanes */
  uint64_t state_cycles[WS_PCPROF_STATES];
  uint64_t
      global_insns;    /* global and local accesses with an active lane (LDG, STG, ATOMG, LDGSTS, LDL, STL) */
  uint64_t sectors;    /* 32-byte sectors those requested */
  uint64_t smem_insns; /* shared accesses with an active lane */
  uint64_t smem_wavefronts; /* wavefronts they took */
  uint64_t smem_conflicts;  /* of which extra, beyond a conflict-free access's */
} ws_pcprof_row;

typedef struct ws_pcprof {
  ws_pcprof_row *rows; /* one per instruction of the launched kernel */
  uint32_t nrows;
} ws_pcprof;

/* Sizes the profile for a kernel of `ninsns` instructions and zeroes it
 * (every launch starts from zero). */
ws_status ws_pcprof_begin(ws_ctx *ctx, ws_pcprof *p, uint32_t ninsns);
/* Frees the rows (the structure itself is the caller's); NULL is a no-op. */
void ws_pcprof_free(ws_pcprof *p);
/* Adds every counter of src to dst. */
void ws_pcprof_add(ws_pcprof_row *dst, const ws_pcprof_row *src);
/* Warp-state cycles of the row, every state (issue included). */
uint64_t ws_pcprof_cycles(const ws_pcprof_row *r);

#endif
