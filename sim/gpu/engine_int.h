/* engine_int.h - the engine's state, shared by its two files: engine.c
 * (the main loop, CTA placement, a launch's start and end) and
 * engine_sampled.c (what a sampled launch times, skips and prices, and the
 * gap run on several host threads).
 *
 * Design: one struct, so the main loop's hot fields and the sampler's
 * windows stay where the loop reads them; the split is by concern, not by
 * data. Private to sim/gpu/. */
#ifndef WS_ENGINE_INT_H
#define WS_ENGINE_INT_H

#include "sim/common/eventq.h"
#include "sim/exec/ffwd.h"
#include "sim/exec/slice.h"
#include "sim/gpu/dispatch.h"
#include "sim/gpu/engine.h"
#include "sim/gpu/team.h"
#include "sim/memsys/memsys.h"
#include "sim/sm/sm.h"

#define WS_ENGINE_NEVER UINT64_MAX

/* How often (iterations of the main loop) the loop windows look at the
 * resident CTAs: a look reads every resident CTA, and a window lasts
 * thousands of cycles. */
#define WS_ENGINE_LOOP_LOOK_EVERY_ITERATIONS 16u

/* Whether the team is worth its hand-offs, measured as the launch runs: a
 * busy host (other processes on the cores) can make a team slower than
 * one thread. Epochs of cycles alternate the two ways while probing; the
 * faster is kept for a while, then probed again. Results do not depend on
 * it (engine.c), only the wall time. */
typedef struct ws_engine_pick {
  bool use;         /* this epoch's way */
  uint8_t phase;    /* PICK_PROBE_ON, PICK_PROBE_OFF, PICK_SETTLED */
  uint32_t left;    /* cycles left in the epoch */
  uint32_t settled; /* epochs left before probing again */
  uint64_t visits;  /* SM visits in the epoch */
  double start_s;   /* when it began */
  double on_s_per_visit;
} ws_engine_pick;

typedef struct ws_engine_issued {
  ws_sm_issued sm;
  ws_status st;
} ws_engine_issued;

struct ws_engine {
  ws_ctx *ctx;
  const ws_gpu_cfg *cfg;
  const ws_probe *probe; /* NULL: nobody watches */
  ws_pcprof *prof;       /* NULL: nobody counts per instruction */
  ws_stats *stats;
  ws_eventq q;
  ws_memsys *mem;
  ws_sm **sms;
  uint32_t nsms;
  /* copies of each SM's next cycle and of "its LSU waits for the memory
   * system", refreshed after every call that can change them: the loop scans
   * these contiguous arrays every visited cycle instead of 2 x num_sms SM
   * structs (which do not stay in the host's cache) */
  uint64_t *sm_next;
  uint8_t *sm_blocked;
  /* a blocked LSU is offered again only when the memory system says its
   * L1 changed (ws_memsys_retry_due); the retries it skips, one per cycle
   * with memory events, are counted from mem_progress_cycles (cycles with
   * memory events so far) and sm_parked (its value at the SM's refusal),
   * so the refusal counters stay what retrying every such cycle gave */
  uint64_t *sm_parked;
  uint64_t mem_progress_cycles;
  /* bit i: SM i has a next cycle (sm_next[i] != NEVER). The loop visits
   * the set bits in index order, so SMs with nothing to do (a small grid on
   * a large GPU, or every warp waiting on memory) cost nothing per cycle */
  uint64_t *sm_awake;
  uint32_t nwords;
  ws_dispatch dispatch;
  /* the SMs due at the visited cycle, in index order, with what the issue
   * half of each one's cycle returned (ws_sm_cycle_issue) and left: the
   * SM's next cycle and whether its LSU is blocked, copied by the thread
   * that ran it so the main loop reads them from here, not from an SM
   * struct another core just wrote */
  uint32_t *due;
  ws_engine_issued *issued;
  uint32_t ndue;
  uint64_t due_cycle;
  /* per host thread: the executor's counters of its issues this cycle */
  ws_sm_tally *tally;
  /* host threads: the user's choice (ws_engine_set_threads), the team
   * running the issue halves (NULL: one thread), and whether the running
   * launch may use it (engine.c, issue_on_team) */
  uint32_t threads;
  ws_team *team;
  bool on_team;
  ws_engine_pick pick;
  uint32_t wd_pick; /* where the watchdog's look for an issued warp starts */
  uint64_t cycle;
  bool keep_l2;                 /* a launch finds the previous launch's L2 contents */
  ws_watchdog *wd;              /* the running launch's */
  ws_launch_stats *ls;          /* the running launch's; ctas kept current for progress reports */
  const ws_exec_launch *launch; /* the running launch */
  /* sampling: the choice, the running launch's sampler, the counters at the
   * open batch's start, and their moves over the closed batches */
  ws_sampling sampling;
  ws_sampler smp;
  /* the running launch's slice (roles NULL: none), and the launch as the
   * CTAs see it, pointing at it */
  ws_slice slice;
  ws_exec_launch sliced;
  uint64_t *batch_start, *window;
  size_t nwindow;
  uint64_t skipped_warp_insns; /* issued by the skipped CTAs, run functionally */
  /* sampling inside CTAs: the loop, the windows, the counters at the open
   * window's start, the resident CTAs and their snapshots (one per slot),
   * and CTA placements so far (a placement breaks a window) */
  ws_ffwd_plan ffwd;
  ws_loop_sampler loops;
  uint64_t *loop_start, *loop_prev; /* counters at the window's start; their moves over the window before */
  uint64_t *loop_win;               /* their moves over the window just closed */
  ws_ffwd_snap ffwd_origin;         /* the CTA whose loop's end is looked for */
  ws_cta **ffwd_ctas;
  uint64_t *ffwd_insns; /* each one's instructions over the window just closed */
  uint64_t *ffwd_speed; /* and over every window of the loop so far: its speed */
  uint64_t *ffwd_share; /* the iterations it moves on in the gap being made */
  uint64_t *ffwd_done;  /* and those it made */
  ws_ffwd_snap *ffwd_snaps;
  uint32_t ffwd_cap;
  /* what SMs are owed after a gap of CTAs far apart in their loops: a CTA
   * that reached its loop's end before its share stopped there, and the
   * next CTA placed in its slot (the same ws_cta, reused) makes up the
   * rest of the share once warm */
  struct ws_ffwd_credit {
    ws_cta *cta;
    uint64_t from_id; /* the CTA that left it (cta->linear_id then) */
    uint64_t rounds;
  } * credits;
  uint32_t ncredits;
  uint64_t placements;
  ws_warp_step ffwd_step; /* scratch for the fast-forward's steps */
  /* counters */
  uint64_t gpu_cycles, gpu_ctas, gpu_warp_insns, gpu_thread_insns, gpu_events, gpu_visits;
};

/* Both files keep the SMs' copies current: inline, so the main loop's
 * visit pays no call and neither file calls into the other for it. */
/* Takes SM i's next cycle and LSU state. */
static inline void ws_engine_sync_sm_to(ws_engine *e, uint32_t i, uint64_t next, bool blocked) {
  e->sm_next[i] = next;
  /* only a visit's refusal blocks an LSU: this is that refusal's cycle */
  if (blocked && !e->sm_blocked[i]) e->sm_parked[i] = e->mem_progress_cycles;
  e->sm_blocked[i] = blocked;
  uint64_t bit = 1ull << (i % 64);
  if (e->sm_next[i] != WS_ENGINE_NEVER)
    e->sm_awake[i / 64] |= bit;
  else
    e->sm_awake[i / 64] &= ~bit;
}

/* Re-reads SM i's state after a call that may have changed it. */
static inline void ws_engine_sync_sm(ws_engine *e, uint32_t i) {
  ws_engine_sync_sm_to(e, i, ws_sm_next_cycle(e->sms[i]), ws_sm_lsu_blocked(e->sms[i]));
}

/* Counts the retries SM i's blocked LSU skipped: `later` cycles with memory
 * events since its refusal, each of which would have been refused again. */
static inline void ws_engine_count_skipped(ws_engine *e, uint32_t i, uint64_t later) {
  uint64_t skipped = e->mem_progress_cycles - e->sm_parked[i] - later;
  if (!skipped) return;
  ws_sm_count_refusals(e->sms[i], skipped);
  ws_memsys_count_refusals(e->mem, i, skipped);
  e->sm_parked[i] += skipped;
}

/* engine_sampled.c: CTA waves (sampler.h). At a retirement in a warm or
 * measured wave; after the last CTA, the skipped waves' counters added. */
ws_status ws_engine_sample_wave(ws_engine *e, uint64_t t);
void ws_engine_extrapolate(ws_engine *e);
/* Loop windows inside CTAs: the launch's plan (a loop to fast-forward, and
 * room for its snapshots), the price of the iterations skipped so far, and
 * the main loop's regular look at the resident CTAs. */
ws_status ws_engine_plan_loops(ws_engine *e, ws_sm_env *env, const ws_exec_launch *launch,
                               const ws_occupancy *occ);
void ws_engine_loop_price(ws_engine *e, uint64_t t, bool with_next);
ws_status ws_engine_loop_look(ws_engine *e, uint64_t t);
/* The batches' counters, one per registered counter; the CTA snapshots. */
ws_status ws_engine_window_alloc(ws_engine *e);
void ws_engine_free_ffwd(ws_engine *e);

#endif
