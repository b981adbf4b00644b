/* warp.h - the architectural state of one warp, and the record of one
 * executed warp instruction (ws_warp_step).
 *
 * Design: registers are a flat array [reg][lane], lane-contiguous, so every
 * warp operation is a tight loop over 32 consecutive words that compilers
 * vectorise. Two extra rows follow the kernel's registers: a row of zeros
 * that reads of RZ (and of pair/quad parts past R254) return, and a sink row
 * that writes to RZ land in, so no per-lane test for RZ is ever needed.
 * Predicates are one 32-bit lane mask each; PT is a constant all-ones mask.
 * Memory is owned by the warp and allocated once per launch, never per
 * instruction. */
#ifndef WS_WARP_H
#define WS_WARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"
#include "sim/exec/simt.h"

typedef enum ws_warp_state {
  WS_WARP_READY,      /* can issue its next instruction */
  WS_WARP_AT_BARRIER, /* arrived at BAR.SYNC, waiting for the rest of the CTA */
  WS_WARP_DONE,       /* every lane exited (or the warp has no lanes) */
  WS_WARP_STATE_COUNT
} ws_warp_state;

/* One back-edge per round of a fast-forward (16.16 fixed point). */
#define WS_FFWD_PACE_ONE 65536u

typedef struct ws_warp {
  uint32_t *regs;    /* (nrows + 2) * 32 words: [reg][lane] */
  uint32_t nrows;    /* registers the kernel uses */
  uint32_t preds[8]; /* lane masks; preds[WS_PRED_PT] is all ones */
  uint32_t live;     /* lanes that exist and have not exited */
  ws_simt simt;
  ws_warp_state state;
  uint64_t insns_issued;
  /* async copies (LDGSTS): copies issued since the last LDGDEPBAR, and groups
   * committed so far; a timing model tracks when each group lands and makes
   * DEPBAR wait. Functionally every copy completes at issue. */
  uint32_t async_uncommitted_copies;
  uint64_t async_groups_committed;
  /* taken back-edges of the CTA's fast-forward loop (sim/exec/ffwd.h) */
  uint64_t ffwd_backedges;
  /* its pace there, for a loop without a barrier: back-edges at the open
   * window's start and over the loop's windows so far; in a gap, the
   * back-edges it takes per round and what it has not taken of them yet
   * (16.16 fixed point) */
  uint64_t ffwd_mark, ffwd_seen;
  uint32_t ffwd_pace_q16, ffwd_owed_q16;
} ws_warp;

/* Allocates state for a kernel using `nrows` registers; false on NOMEM. */
bool ws_warp_init(ws_warp *w, uint32_t nrows);
void ws_warp_free(ws_warp *w);
/* Zeroes registers and predicates; `lanes_mask` are the lanes that exist. */
void ws_warp_reset(ws_warp *w, uint32_t lanes_mask);

/* Row read by a source register (RZ and rows past the kernel's read zero). */
static inline const uint32_t *ws_warp_src(const ws_warp *w, uint32_t reg) {
  return w->regs + (size_t)(reg < w->nrows ? reg : w->nrows) * WS_WARP_LANES;
}
/* Row written by a destination register (RZ writes go to the sink row). */
static inline uint32_t *ws_warp_dst(ws_warp *w, uint32_t reg) {
  return w->regs + (size_t)(reg < w->nrows ? reg : w->nrows + 1) * WS_WARP_LANES;
}

/* Lanes set in a mask. Written out rather than __builtin_popcount, which at
 * the default -march is a libgcc call, on the per-instruction path. */
static inline uint32_t ws_lane_count(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* ---- the record of one executed warp instruction --------------------------- */

typedef enum ws_space {
  WS_SPACE_NONE,
  WS_SPACE_GLOBAL,
  WS_SPACE_SHARED,
  WS_SPACE_CONST,
  WS_SPACE_PARAM,
  WS_SPACE_LOCAL, /* addr: the device address of each lane's first word (sim/exec/local.h) */
  WS_SPACE_COUNT
} ws_space;

enum {
  WS_STEP_LOAD = 1u << 0,
  WS_STEP_STORE = 1u << 1,
  WS_STEP_ATOMIC = 1u << 2,
  WS_STEP_ASYNC = 1u << 3,        /* LDGSTS: addr = global source, addr2 = shared dest */
  WS_STEP_BAR_ARRIVED = 1u << 4,  /* the warp now waits at a barrier */
  WS_STEP_BAR_RELEASED = 1u << 5, /* this arrival (or exit) released the CTA's barrier */
  WS_STEP_DONE = 1u << 6,         /* the warp finished (EXIT or running off the end) */
  WS_STEP_COMMIT = 1u << 7,       /* LDGDEPBAR committed a group */
  WS_STEP_WAIT = 1u << 8          /* DEPBAR: wait_groups holds its operand */
};

typedef struct ws_warp_step {
  uint32_t pc;
  uint16_t op;          /* ws_op */
  uint16_t flags;       /* WS_STEP_* */
  uint32_t active_mask; /* lanes that executed (active and guard true) */
  uint8_t space;        /* ws_space, for memory instructions */
  uint8_t width_bytes;  /* per-lane access size */
  uint32_t wait_groups; /* DEPBAR's operand */
  /* pixel following (sim/exec/taint.h; both 0 when it is off): lanes whose
   * memory access moved a tagged value (a load that read a tagged byte, a
   * store or atomic of a tagged value, an async copy of a tagged byte), and
   * executing lanes whose destination is tagged after the instruction */
  uint32_t tag_lanes;
  uint32_t tag_result;
  uint64_t addr[WS_WARP_LANES];  /* per-lane address (shared/const/param: offset) */
  uint32_t addr2[WS_WARP_LANES]; /* LDGSTS shared destination offsets */
} ws_warp_step;

/* Address of the k-th 32-bit word of `lane`'s access in a step: the words
 * follow each other in every space but local memory, where a thread's
 * consecutive words lie a warp's 32 words apart (sim/exec/local.h). */
static inline uint64_t ws_warp_step_word_addr(const ws_warp_step *step, uint32_t lane, uint32_t k) {
  return step->addr[lane] + (uint64_t)k * (step->space == WS_SPACE_LOCAL ? WS_WARP_LANES * 4u : 4u);
}

#endif
