/* sm_int.h - the SM's internals shared by sm.c (lifecycle, CTA slots,
 * responses, counters) and subpart.c (the sub-partitions' issue stage); not
 * part of the public interface. */
#ifndef WS_SM_INT_H
#define WS_SM_INT_H

#include "sim/sm/sm.h"

/* A remembered shared-access bank analysis: the wavefront count depends
 * only on the active mask, the lanes' offsets from lane 0 and lane 0's
 * position in a bank row, and a loop body repeats those exactly. */
#define WS_SMEM_MEMO_ENTRIES 64
typedef struct ws_smem_memo {
  uint32_t pc; /* UINT32_MAX: empty */
  uint32_t mask;
  uint32_t row_offset; /* lane 0's address mod the bank row */
  uint32_t width_bytes;
  uint32_t wavefronts;
  int32_t delta[WS_WARP_LANES]; /* addr[l] - addr[0] */
} ws_smem_memo;

/* Timing state of one warp slot (its architectural state is in the CTA). */
typedef struct ws_twarp {
  /* everything the issue check touches comes first,
   * in the first 64 bytes (the array is 64-byte aligned), so classifying a
   * warp and recharging its stall reason cost one cache line */
  _Alignas(64) const ws_scoreboard_insn *next; /* dependency sets of the instruction it issues next */
  uint64_t ready_cycle;                        /* no issue before this (branch target fetch, arrival) */
  /* the latest short-scoreboard result `next` depends on: fixed from the
   * moment `next` becomes current (only the warp's own issues set short
   * entries), so it is looked up once per instruction, not once per cycle */
  ws_scoreboard_slot next_dep;
  uint16_t groups_incomplete;  /* committed LDGSTS groups with requests in flight (<= WS_ASYNC_GROUPS_MAX) */
  bool at_barrier;             /* mirrors the CTA's WS_WARP_AT_BARRIER, kept here for the scan */
  bool resident;               /* holds a warp of a resident CTA */
  bool finished;               /* every lane exited */
  ws_scoreboard sb;            /* long_count, its first field, still lands in the first line */
  uint32_t cta_slot, cta_warp; /* where its architectural state lives */
  uint32_t sp, sp_slot;
  uint64_t last_result_cycle; /* latest short-scoreboard result it is owed */
  /* LDGSTS groups: requests per group (ring) and groups committed */
  uint32_t group_reqs[WS_ASYNC_GROUPS_MAX];
  uint64_t groups_committed;
} ws_twarp;

#define WS_SLOT_REASON_UNKNOWN 0xFF

/* What the issue stage keeps per scheduler slot, in one 32-byte record: a
 * visit to a slot touches half a cache line, however many of these it
 * reads. */
typedef struct ws_slot {
  /* the cycle until which its last classification holds (0: reclassify):
   * set by the scan, cleared by whatever ends a wait early (events) */
  uint64_t until;
  /* stall accounting: `reason` since `since`, turning into `reason2` at
   * `split`. Kept here rather than in the warp: the reason of a waiting
   * warp changes nearly every cycle (not selected, then its unit busy,
   * then not selected again), and charging it must not cost a cache line
   * of the warp's each time. */
  uint64_t since, split;
  uint16_t warp; /* SM warp slot */
  /* for a ready slot (see ready_mask): its next instruction's unit and
   * memory class, and the stall reason the issue stage last charged it
   * (WS_SLOT_REASON_UNKNOWN: none yet), so a ready warp kept waiting for
   * the same unit cycle after cycle is not charged again */
  uint8_t unit, memc, held_reason;
  uint8_t reason, reason2;
} ws_slot;

typedef struct ws_subpart {
  /* what every visit reads first, together: the scan's masks and the unit
   * and issue timing an eligible warp is re-checked against */
  uint64_t next_cycle; /* next cycle worth scanning */
  uint64_t woken;      /* earliest wake posted during the current visit */
  uint64_t issue_free; /* first cycle the issue stage is free */
  uint32_t live_mask;  /* slots holding an unfinished resident warp */
  /* slots found eligible and not issued since: nothing but this
   * sub-partition's unit/issue timing and the LSU's fullness can make them
   * ineligible (their own scoreboard changes only when they issue), so they
   * are re-checked against those alone, from these arrays */
  uint32_t ready_mask;
  uint32_t not_selected_mask; /* slots whose charged reason is not_selected */
  uint32_t nslots;
  uint64_t unit_free[WS_UNIT_COUNT]; /* first cycle each unit accepts an instruction */
  _Alignas(64) ws_slot slot[WS_SCHED_MAX_SLOTS];
  ws_sched sched;
  /* its last issue: the cycle and the SM warp slot (the watchdog samples
   * a warp that issued in the cycle just visited) */
  uint64_t issued_cycle;
  uint32_t issued_warp;
} ws_subpart;

typedef struct ws_cta_slot {
  ws_cta *cta; /* created on first use, reused */
  bool busy;
  uint32_t warps_left;      /* warps not finished */
  uint32_t mem_outstanding; /* queued or in-flight memory instructions */
  uint64_t done_cycle;      /* latest warp completion (incl. owed results) */
  uint64_t retire_cycle;    /* UINT64_MAX until retirement is due */
  uint64_t start_cycle;     /* when it was placed (for the probe) */
  uint64_t ffwd_mark;       /* its fast-forward rounds at ws_sm_ffwd_mark */
  uint64_t ffwd_mark_insns; /* and its warps' instructions then */
} ws_cta_slot;

struct ws_sm {
  const ws_gpu_cfg *cfg;
  ws_ctx *ctx;
  /* what the issue half of a cycle (ws_sm_cycle_issue) writes instead of
   * the launch's shared state, since SMs issue on several host threads: a
   * fault's message, and the tally of the host thread running it (set for
   * the call) */
  ws_ctx *issue_ctx;
  ws_sm_tally *tally;
  uint32_t over_limit; /* warp slot + 1 of the first warp past env->warp_insn_limit; 0: none */
  uint32_t id;
  uint32_t nsp;
  uint32_t lat_cycles[WS_UNIT_COUNT], ii_cycles[WS_UNIT_COUNT];
  const ws_sm_env *env;
  const ws_probe *probe; /* env->probe, one load closer */
  /* a probe or a profile is set: the instrumented issue stage runs
   * (subpart_probed.c), which tests each of them */
  bool watched;
  ws_pcprof_row *prof; /* env->prof's rows; NULL: no profile */
  uint32_t
      *issued_pc; /* per warp slot, with a profile: its last issue, which its `selected` cycles count at */
  ws_cta_slot *slots;
  uint32_t nslots;
  ws_twarp *warps;
  uint32_t nwarps;
  ws_subpart sp[WS_SM_MAX_SUBPARTS];
  ws_lsu lsu;
  uint64_t next_cycle;
  /* the earliest of the sub-partitions' next_cycle: a visit that only
   * sends a line of an uncoalesced access (32 visits per load) reads this
   * instead of four sub-partitions' cache lines, twice */
  uint64_t sp_next_cycle;
  uint64_t next_retire_cycle; /* earliest retire_cycle of any slot */
  uint64_t age_counter;
  ws_warp_step step; /* scratch for ws_cta_step (no per-issue allocation) */
  ws_smem_memo memo[WS_SMEM_MEMO_ENTRIES];
  uint32_t smem_wf, smem_ideal; /* the last shared access's wavefronts, for the probe */
  uint64_t smem_ready;
  /* lazily integrated residency */
  uint32_t live_warps, busy_ctas;
  uint64_t acc_cycle;
  /* counters */
  uint64_t cycles_active, warps_active_sum, warp_insns, thread_insns;
  uint64_t inst_by_unit[WS_UNIT_COUNT];
  uint64_t stall[WS_STALL_COUNT];
  uint64_t flops_fp32, flops_tensor, rf_bank_conflict_cycles, ctas_done, branch_taken;
};

/* subpart.c */
void ws_subpart_init(ws_subpart *sp, ws_sched_policy policy);

/* What one visit of a sub-partition did, for the SM to act on: the
 * sub-partition never calls back into the SM (as the LSU reports with
 * ws_lsu_sent). ws_subpart_issue picks and executes a warp and books its
 * timing; the SM then counts the memory instruction, releases the barrier
 * and retires the warp as reported. Settling the issuing warp's
 * dependencies and the sub-partition's next cycle must see a released
 * barrier or a finished warp, so when one happened (WS_SUBPART_FINISH) the SM
 * calls ws_subpart_finish after acting; otherwise the issue settled the
 * visit itself, the common case costing one call. */
typedef struct ws_subpart_outcome {
  ws_twarp *warp;   /* the warp that issued */
  uint32_t pick;    /* its scheduler slot */
  uint32_t others;  /* slots that were eligible and not picked */
  uint64_t next;    /* earliest cycle a blocked slot may become eligible */
  uint32_t actions; /* WS_SUBPART_*: what the SM must do; 0 when nothing */
} ws_subpart_outcome;

enum {
  WS_SUBPART_MEM_ISSUED = 1u << 0,   /* a global memory instruction entered the LSU */
  WS_SUBPART_BAR_RELEASED = 1u << 1, /* it released its CTA's barrier */
  WS_SUBPART_WARP_DONE = 1u << 2,    /* it exited: the warp finished */
  WS_SUBPART_FINISH = 1u << 3        /* ws_subpart_finish is still to be called */
};

/* Only for a due sub-partition (next_cycle <= cycle). out->actions is 0
 * when there is nothing for the SM to do (no warp issued, or one issued
 * without memory, barrier or exit); the other fields are set otherwise. */
ws_status ws_subpart_issue(ws_sm *sm, ws_subpart *sp, uint64_t cycle, ws_subpart_outcome *out);
void ws_subpart_finish(ws_sm *sm, ws_subpart *sp, uint64_t cycle, const ws_subpart_outcome *out);
/* The same three with the probe's hooks (subpart_probed.c): what the SM
 * calls when a probe is set. */
ws_status ws_subpart_issue_probed(ws_sm *sm, ws_subpart *sp, uint64_t cycle, ws_subpart_outcome *out);
void ws_subpart_finish_probed(ws_sm *sm, ws_subpart *sp, uint64_t cycle, const ws_subpart_outcome *out);
void ws_subpart_charge_warp_probed(ws_sm *sm, ws_twarp *w, uint64_t cycle);
/* Stall accounting of scheduler slot i (the warp in it). */
void ws_subpart_charge(ws_sm *sm, ws_subpart *sp, uint32_t i, uint64_t cycle);
void ws_subpart_set_reason(ws_sm *sm, ws_subpart *sp, uint32_t i, ws_stall r, uint64_t cycle);
void ws_subpart_charge_warp(ws_sm *sm, ws_twarp *w, uint64_t cycle);

/* Re-reads the warp's next instruction after its pc changed; _refresh also
 * looks up the latest pending result that instruction depends on. */
void ws_subpart_refresh_pc(const ws_sm *sm, ws_twarp *w);
void ws_subpart_refresh_warp(const ws_sm *sm, ws_twarp *w);

#endif
