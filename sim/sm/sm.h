/* sm.h - one streaming multiprocessor of the timing model: resident CTA
 * slots, warp slots, four sub-partitions (scheduler, functional units,
 * register-bank operand collection), the scoreboards and the LSU.
 *
 * Design: the SM never ticks. It is called at the cycles where something can
 * happen (ws_sm_next_cycle) and otherwise sleeps; every warp remembers its
 * current stall reason and since when, and the elapsed warp-cycles are
 * charged when the reason changes (Nsight Compute's warp-state sampling, made
 * exact). Values are computed at issue by ws_cta_step (functional at issue,
 * timed afterward); the SM decides only WHEN each warp instruction issues and
 * when its results are ready.
 *
 * Warp slot s belongs to sub-partition s % subpartitions; each sub-partition
 * issues at most one instruction per cycle, chosen by its scheduler among
 * the eligible warps. Named warp states are the stall reasons below. */
#ifndef WS_SM_H
#define WS_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/pcprof.h"
#include "sim/common/stats.h"
#include "sim/exec/cta.h"
#include "sim/exec/ffwd.h"
#include "sim/exec/watchdog.h"
#include "sim/memsys/memsys.h"
#include "sim/sm/lsu.h"
#include "sim/sm/sched.h"
#include "sim/sm/scoreboard.h"

#define WS_SM_MAX_SUBPARTS 8
#define WS_ASYNC_GROUPS_MAX WS_CFG_MAX_ASYNC_GROUPS /* a warp's group array; sm.async_groups may be fewer */

/* Why a warp did not issue on a cycle (or that it did): Nsight Compute's
 * warp-state vocabulary; see docs/stats.md for the exact mapping. */
typedef enum ws_stall {
  WS_STALL_SELECTED,         /* issued */
  WS_STALL_NOT_SELECTED,     /* eligible; another warp of the sub-partition issued */
  WS_STALL_LONG_SCOREBOARD,  /* waits for a global-memory result (LDG, ATOMG) */
  WS_STALL_SHORT_SCOREBOARD, /* waits for an MIO result (shared memory, LDC/LDP) */
  WS_STALL_WAIT,             /* waits for a fixed-latency result (ALU, FMA, SFU, tensor) */
  WS_STALL_BANK_CONFLICT,    /* waits for the extra wavefronts of a conflicting shared access */
  WS_STALL_MATH_PIPE,        /* its unit is busy (initiation interval) */
  WS_STALL_LSU_THROTTLE,     /* the LSU/MIO queue or the shared pipe backlog is full */
  WS_STALL_DISPATCH,         /* the sub-partition's issue is held by a register-bank conflict */
  WS_STALL_BARRIER,          /* at BAR.SYNC */
  WS_STALL_DEPBAR,           /* at DEPBAR (or LDGDEPBAR with too many groups in flight) */
  WS_STALL_NO_INSTRUCTION,   /* after a taken branch: fetch of the target */
  WS_STALL_COUNT
} ws_stall;

const char *ws_sm_stall_name(ws_stall s);

/* Per-launch environment the engine shares with every SM. */
typedef struct ws_sm_env {
  ws_ctx *ctx;
  const ws_exec_launch *launch;
  const ws_scoreboard_insn *table; /* per instruction of the kernel */
  uint32_t nrows;                  /* registers per thread the warps hold */
  uint32_t ctas_per_sm;
  uint32_t warps_per_cta;
  const ws_probe *probe;    /* every micro-op of the SM goes here; NULL: none */
  ws_pcprof *prof;          /* per-instruction counters, sized for the kernel; NULL: none */
  const ws_ffwd_plan *ffwd; /* the loop sampling may fast-forward; NULL: none */
  uint64_t warp_insn_limit; /* a warp issuing more is reported (ws_sm_over_limit) */
} ws_sm_env;

typedef struct ws_sm ws_sm;

/* What issues add to the launch's counts: the executor's counters
 * (ws_cta_step) and the steps with watchdog effects (WS_WATCHDOG_EFFECTS).
 * One per host thread, on cache lines of its own. */
typedef struct ws_sm_tally {
  _Alignas(64) ws_launch_stats ls;
  uint64_t effects;
} ws_sm_tally;

/* Registers the SM's counters as "sm<id>.*" in stats. */
ws_status ws_sm_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t id, ws_memsys *mem, ws_stats *stats,
                       ws_sm **out);
/* Host bytes one SM of cfg takes at most: what ws_sm_create allocates and
 * what ws_sm_begin adds for a launch filling every warp and CTA slot with
 * max_regs_per_thread registers (the LSU's growth with traffic and the
 * counters' names aside). */
uint64_t ws_sm_state_bytes(const ws_gpu_cfg *cfg);
void ws_sm_destroy(ws_sm *sm);

/* Sizes warp and CTA slots for a launch; ws_sm_end frees them. */
ws_status ws_sm_begin(ws_sm *sm, const ws_sm_env *env);
void ws_sm_end(ws_sm *sm);

/* Free CTA slots now. */
uint32_t ws_sm_free_slots(const ws_sm *sm);
/* Places CTA `linear_id` in a free slot; its warps may issue from `cycle`. */
ws_status ws_sm_launch_cta(ws_sm *sm, uint64_t linear_id, uint64_t cycle);
/* Earliest cycle at which the SM has anything to do without an event;
 * UINT64_MAX when it waits only for events (or is empty). */
uint64_t ws_sm_next_cycle(const ws_sm *sm);
/* Does the SM's work at `cycle`, in two halves. The engine calls the first
 * for every due SM in index order, then the second for each, on several
 * host threads when it may (sim/gpu/engine.c):
 *  - ws_sm_cycle_send retires finished CTAs and sends one line access to
 *    the memory system, whose state all SMs share;
 *  - ws_sm_cycle_issue issues up to one instruction per sub-partition and
 *    retires the CTAs that finished. It touches only this SM, its CTAs'
 *    registers and shared memory, device memory as its warps' loads and
 *    stores do, and *tally (the calling host thread's); a fault's message
 *    goes to ws_sm_issue_ctx.
 * The issue half changes nothing the send half of another SM reads, so the
 * order of the halves across SMs does not change any result.
 * *retired counts the CTAs retired; the issue half also says what the
 * engine reads next, so that it need not read the SM. */
typedef struct ws_sm_issued {
  uint32_t retired;
  uint64_t next_cycle; /* ws_sm_next_cycle */
  bool lsu_blocked;    /* ws_sm_lsu_blocked */
  bool over_limit;     /* ws_sm_over_limit would return true */
} ws_sm_issued;
void ws_sm_cycle_send(ws_sm *sm, uint64_t cycle, uint32_t *retired);
ws_status ws_sm_cycle_issue(ws_sm *sm, uint64_t cycle, ws_sm_tally *tally, ws_sm_issued *out);
ws_ctx *ws_sm_issue_ctx(const ws_sm *sm);
/* The first warp (CTA and warp index) whose issue passed
 * env->warp_insn_limit since the SM's launch began; false when none. */
bool ws_sm_over_limit(const ws_sm *sm, const ws_cta **cta, uint32_t *warp);
/* Whether sub-partition sp issued at `cycle`; if so, the warp (CTA and
 * warp index in it) for the watchdog to look at. */
bool ws_sm_issued_at(const ws_sm *sm, uint32_t sp, uint64_t cycle, const ws_cta **cta, uint32_t *warp);
/* Memory responses for `lines` lines (cookie from ws_memsys_access)
 * arrived at `cycle`: one, or an instruction's gathered L1 hits.
 * False when they were not its instruction's last lines: nothing changed. */
bool ws_sm_mem_response(ws_sm *sm, uint64_t cookie, uint32_t lines, uint64_t cycle);
/* True while the LSU holds an access the memory system refused. */
bool ws_sm_lsu_blocked(const ws_sm *sm);
/* The memory system processed an event: a refused access may now fit. */
void ws_sm_mem_progress(ws_sm *sm, uint64_t cycle);
/* Counts `n` refusals of the LSU's waiting access that were not offered
 * because the memory system knew they would fail (ws_memsys_retry_due). */
void ws_sm_count_refusals(ws_sm *sm, uint64_t n);
/* Folds lazily accumulated counters (active cycles, resident warps) up to `cycle`. */
void ws_sm_flush(ws_sm *sm, uint64_t cycle);
/* Instructions issued by this SM in the current launch. */
uint64_t ws_sm_warp_insns(const ws_sm *sm);

/* ---- sampling inside CTAs (sim/exec/ffwd.h; env->ffwd set) ------------------------ */

/* What the SM's resident CTAs have done of the fast-forward loop, folded
 * into *v (which the caller starts at ws_sm_ffwd_view_init). */
typedef struct ws_sm_ffwd_view {
  uint32_t ctas;           /* resident CTAs */
  uint64_t min_rounds;     /* the fewest rounds a CTA completed */
  uint64_t min_since_mark; /* the fewest rounds a CTA completed since ws_sm_ffwd_mark */
} ws_sm_ffwd_view;

void ws_sm_ffwd_view_init(ws_sm_ffwd_view *v);
void ws_sm_ffwd_look(const ws_sm *sm, ws_sm_ffwd_view *v);
/* Remembers every resident CTA's rounds and instructions now. */
void ws_sm_ffwd_mark(ws_sm *sm);
/* The resident CTAs, at most `max` of them, into out, and the warp
 * instructions each issued since ws_sm_ffwd_mark into insns; returns their
 * number. */
uint32_t ws_sm_ffwd_ctas(ws_sm *sm, ws_cta **out, uint64_t *insns, uint32_t max);
/* After a fast-forward of its resident CTAs at `cycle`: every warp's
 * timing state follows its new pc (next instruction, barrier state) from
 * cycle + 1. */
void ws_sm_ffwd_resume(ws_sm *sm, uint64_t cycle);
/* The same for one CTA, if this SM holds it (true). */
bool ws_sm_ffwd_resume_cta(ws_sm *sm, const ws_cta *cta, uint64_t cycle);

#endif
