/* scoreboard.h - per-instruction dependency sets (built once per launch) and
 * the per-warp scoreboard that the issue check tests them against.
 *
 * Design: everything the issue stage needs to know about an instruction's
 * registers is precomputed per kernel into a ws_scoreboard_insn (read and write
 * masks over R0..R254, predicate masks, a deduplicated list of the
 * register/predicate "slots" it touches, its register-bank conflict cost),
 * so the check made on every cycle a warp is considered is a few mask tests
 * and a short loop, never an operand decode. Two scoreboards, as on NVIDIA
 * hardware:
 *  - the short scoreboard holds, per register slot, the cycle its pending
 *    fixed- or known-latency result is ready (ALU, SFU, MIO: shared memory,
 *    constant loads) and what kind of result it is (for the stall reason);
 *  - the long scoreboard is one bit per register with a pending global
 *    memory result (LDG, ATOMG, whose return time is only known when the
 *    memory system answers), cleared by the response event.
 * A warp may issue when neither scoreboard holds a register it reads or
 * writes (read-after-write and write-after-write). */
#ifndef WS_SCOREBOARD_H
#define WS_SCOREBOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "sim/common/config.h"

#define WS_SCOREBOARD_MAX_DEPS 24 /* HMMA: 4 + 4 + 2 + 4 registers, a guard, with room */
#define WS_SCOREBOARD_MAX_WRITES 4

/* What a pending short-scoreboard result is, which names the stall reason. */
typedef enum ws_scoreboard_kind {
  WS_SCOREBOARD_FIXED, /* ALU/FMA/SFU/tensor pipeline latency: "wait" */
  WS_SCOREBOARD_MIO,   /* shared memory, constant/param load: "short_scoreboard" */
  WS_SCOREBOARD_KIND_COUNT
} ws_scoreboard_kind;

/* How the LSU path treats an instruction (decided by opcode, before issue). */
typedef enum ws_mem_class {
  WS_MEMC_NONE,
  WS_MEMC_GLOBAL, /* LDG, STG, ATOMG.*, LDGSTS: through the LSU queue to memsys */
  WS_MEMC_SHARED, /* LDS, STS, ATOMS.*: the shared-memory pipe */
  WS_MEMC_CONST,  /* LDC, LDP: constant cache hit */
  WS_MEMC_COMMIT, /* LDGDEPBAR */
  WS_MEMC_WAIT,   /* DEPBAR */
  WS_MEMC_COUNT
} ws_mem_class;

/* FLOPs an instruction contributes (FMA counts 2, HMMA 2*16*8*16). */
typedef enum ws_flop_kind { WS_FLOP_NONE, WS_FLOP_LANE1, WS_FLOP_LANE2, WS_FLOP_MMA } ws_flop_kind;

typedef struct ws_scoreboard_insn {
  uint64_t dep_mask[4];                  /* registers read or written */
  uint64_t wr_mask[4];                   /* registers written */
  uint16_t deps[WS_SCOREBOARD_MAX_DEPS]; /* slots read or written (registers, then nrows + predicate) */
  uint16_t writes[WS_SCOREBOARD_MAX_WRITES + 1]; /* slots written */
  uint8_t ndeps, nwrites;
  uint8_t unit;              /* ws_unit */
  uint8_t mem_class;         /* ws_mem_class */
  uint8_t flop_kind;         /* ws_flop_kind */
  uint8_t bank_extra_cycles; /* operand reads beyond one per bank, on the worst bank */
  uint32_t wait_groups;      /* DEPBAR's operand */
} ws_scoreboard_insn;

/* One pending short-scoreboard result. */
typedef struct ws_scoreboard_slot {
  uint64_t ready_cycle;
  uint16_t conflict_cycles; /* trailing part of the wait due to extra shared wavefronts */
  uint8_t kind;             /* ws_scoreboard_kind */
} ws_scoreboard_slot;

/* Bits in ws_scoreboard.pending: one per slot (at most 256 register rows
 * and 8 predicates). */
#define WS_SCOREBOARD_PENDING_WORDS 5

typedef struct ws_scoreboard {
  uint32_t long_count; /* registers with a pending long result (first: the issue check reads it alone) */
  uint32_t nslots;
  uint64_t long_mask[4];
  /* slots whose short result may still be outstanding: the lookup reads a
   * slot (a cache line of its own, often) only when its bit is set, and
   * drops the bit once the result is known to be in the past */
  uint64_t pending[WS_SCOREBOARD_PENDING_WORDS];
  ws_scoreboard_slot *slots; /* nslots = nrows + 8 predicates */
} ws_scoreboard;

/* The table for kernel k (k->ninsns entries); nrows = ws_cta_regs_needed(k),
 * banks = the register banks per sub-partition, tensor_ii = the tensor
 * pipe's initiation interval (sm.tensor_ii_cycles), over which HMMA's
 * operand reads are hidden. */
ws_status ws_scoreboard_table_build(ws_ctx *ctx, const ws_kernel *k, uint32_t nrows, uint32_t banks,
                                    uint32_t tensor_ii, ws_scoreboard_insn **out);

bool ws_scoreboard_init(ws_scoreboard *sb, uint32_t nrows);
/* Host bytes ws_scoreboard_init allocates for nrows registers. */
uint64_t ws_scoreboard_state_bytes(uint32_t nrows);
void ws_scoreboard_free(ws_scoreboard *sb);
void ws_scoreboard_reset(ws_scoreboard *sb);

static inline bool ws_scoreboard_long_blocked(const ws_scoreboard *sb, const ws_scoreboard_insn *si) {
  return sb->long_count && ((sb->long_mask[0] & si->dep_mask[0]) | (sb->long_mask[1] & si->dep_mask[1]) |
                            (sb->long_mask[2] & si->dep_mask[2]) | (sb->long_mask[3] & si->dep_mask[3]));
}
/* The latest pending short result among si's slots (ready_cycle 0 when
 * none). Results ready at or before `now` may be reported as none: the
 * answer is exact for every question asked at a cycle >= now (pass 0 to
 * keep every result). */
ws_scoreboard_slot ws_scoreboard_latest(ws_scoreboard *sb, const ws_scoreboard_insn *si, uint64_t now);
/* Marks si's written slots ready at `ready_cycle`. */
void ws_scoreboard_set_short(ws_scoreboard *sb, const ws_scoreboard_insn *si, uint64_t ready_cycle,
                             ws_scoreboard_kind kind, uint16_t conflict_cycles);
/* Sets / clears the long bits of si's written registers. */
void ws_scoreboard_set_long(ws_scoreboard *sb, const ws_scoreboard_insn *si);
void ws_scoreboard_clear_long(ws_scoreboard *sb, const ws_scoreboard_insn *si);

#endif
