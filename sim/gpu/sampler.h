/* sampler.h - sampling of a timed launch: time some of it, run the rest
 * functionally, and extrapolate. Two levels, each used where it has
 * something to skip: whole CTA waves of a grid (below), and iterations of
 * the CTAs' main loop ("Loop windows", further down).
 *
 * Design: a GEMM or attention grid is many waves of identical CTAs that the
 * GPU retires at a steady rate once the first wave (cold caches, every CTA
 * starting at once) is over; but the rate drifts across the grid (the first
 * rows of C fetch B from DRAM, later ones find it in the L2). So the
 * sampler times two waves of warm-up, then `measure_waves` batches of one
 * wave of retirements (or as many as make 32 CTAs) spread over the grid,
 * and after each batch skips a gap of whole waves: the gap's CTAs run
 * functionally (exact results, the L2 warmed with their accesses,
 * ws_memsys_warm) while the resident CTAs and the next ones are timed as
 * usual, so the launch still ends with its real last wave and tail.
 *
 * The wave after a gap (the last gap included, so the tail runs beside its
 * neighbours) is timed but not measured: the CTAs resident across the gap
 * share no data with the ones after it, as neighbours in the grid do, and
 * that costs a few percent of a wave. The skipped CTAs' cycles are the
 * batches' mean cycles per CTA times their number, and every counter gains
 * its rate per CTA over the batches times the same number. The confidence
 * is a Student-t interval over the batch means (measure_waves - 1 degrees
 * of freedom): it covers how the rate varies over the grid, not the model's
 * own error. Gaps are whole waves, so the last partial wave (total mod
 * wave) stays where the full run has it. */
#ifndef WS_SAMPLER_H
#define WS_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

/* The user's choice (ws_device_set_sampling). */
typedef struct ws_sampling {
  uint32_t measure_waves; /* 0: off, every CTA timed; else WS_SAMPLER_MIN_WAVES .. WS_SAMPLER_MAX_WAVES */
  /* inside CTAs (see "Loop windows" below): iterations of the main loop
   * timed before the rest is skipped; 0: off, else
   * WS_SAMPLER_MIN_ROUNDS .. WS_SAMPLER_MAX_ROUNDS */
  uint32_t measure_rounds;
  /* true: every CTA computes every instruction (--sample=exact); false:
   * beyond WS_SLICE_COMPUTED_CTAS spread CTAs, each runs the kernel's
   * slice (sim/exec/slice.h), timed the same, its outputs left unwritten */
  bool exact;
} ws_sampling;

/* The interval's systematic part, as a share of the skipped cycles: a gap
 * brings CTAs that had drifted apart back in step, so what follows it runs
 * faster (or, on the L2, slower) than in a full run, by an amount no window
 * measures. Calibrated on docs/validation.md's ladder points: with the
 * spread and the windows' drift alone, a100's blocktile1d at 1024^3 was
 * -4.14 % against +-2.19 %, its blocktile2d +4.14 % against +-3.85 % and
 * mma at 512^3 +2.60 % against +-1.67 %; 4 % of the skipped cycles covers
 * each of them. */
#define WS_SAMPLER_GAP_SHARE 0.04

#define WS_SAMPLER_MIN_WAVES 2 /* an interval needs two batches */
#define WS_SAMPLER_MAX_WAVES 64
#define WS_SAMPLER_DEFAULT_WAVES 3
/* A batch is one wave, or as many waves as make 32 CTAs: on a small GPU one
 * wave is a few CTAs, whose cycles per CTA vary by 10 % from wave to wave. */
#define WS_SAMPLER_MIN_BATCH_CTAS 32

typedef enum ws_sampler_phase {
  WS_SAMPLER_OFF,     /* every CTA timed: sampling off, or too few waves */
  WS_SAMPLER_WARM,    /* the first two waves, or the wave after a gap: not measured */
  WS_SAMPLER_MEASURE, /* a batch is open */
  WS_SAMPLER_DONE     /* every batch measured and gap skipped; the rest is timed */
} ws_sampler_phase;

typedef enum ws_sampler_action {
  WS_SAMPLER_NOTHING,
  WS_SAMPLER_START, /* a batch opens: take the counters' snapshot */
  WS_SAMPLER_SKIP   /* a batch closed: add the counters' moves, skip a gap (ws_sampler_skip),
                       then, unless the sampler is done, open the next batch */
} ws_sampler_action;

typedef struct ws_sampler {
  ws_sampler_phase phase;
  uint64_t total_ctas, wave_ctas;
  uint64_t batch_ctas; /* retirements that close a batch (whole waves) */
  uint32_t nbatches;
  uint32_t batch;      /* batches measured so far */
  uint64_t warm_until; /* retirements that end the WARM phase */
  uint64_t batch_start_ctas, batch_start_cycle;
  uint64_t window_ctas; /* CTAs retired in the closed batches */
  double cycles_per_cta[WS_SAMPLER_MAX_WAVES];
  uint64_t skipped_ctas;
  double skipped_cycles; /* the estimate of the skipped CTAs' time */
  double ci95_cycles;    /* half-width of its 95 % confidence interval */
} ws_sampler;

/* Sets the sampler up for a launch of total_ctas CTAs, wave_ctas resident
 * at once (num_sms x ctas_per_sm). Sampling happens (true) when it is on
 * and the grid has enough waves for at least one to be skipped:
 * ws_sampler_min_waves(cfg) of them. */
bool ws_sampler_plan(ws_sampler *s, const ws_sampling *cfg, uint64_t total_ctas, uint64_t wave_ctas);
/* Waves in a batch for waves of wave_ctas CTAs (WS_SAMPLER_MIN_BATCH_CTAS). */
uint64_t ws_sampler_batch_waves(uint64_t wave_ctas);
/* Waves a grid needs before sampling skips any: two waves of warm-up, the
 * batches, a settling wave after every gap, a wave in every gap, the
 * resident wave at the end. */
uint64_t ws_sampler_min_waves(const ws_sampling *cfg, uint64_t wave_ctas);
/* CTAs retired so far (`retired`, counting skipped ones) at `cycle`, after a
 * cycle that retired some: what the engine must do now. */
ws_sampler_action ws_sampler_retired(ws_sampler *s, uint64_t retired, uint64_t cycle);
/* After WS_SAMPLER_SKIP, with `next` the next CTA to dispatch and
 * `retired` CTAs retired: the number of CTAs to skip now (whole waves: this
 * gap's share of what the batches still to come and the last partial wave
 * leave). A wave then settles before the next batch opens (phase WARM), or
 * the estimate is made (phase DONE). */
uint64_t ws_sampler_skip(ws_sampler *s, uint64_t next, uint64_t retired);
/* A counter that moved by `window_delta` over the batches, scaled
 * to the skipped CTAs (rounded to nearest). */
uint64_t ws_sampler_scale(const ws_sampler *s, uint64_t window_delta);
/* The 0.975 quantile of Student's t with `dof` degrees of freedom. */
double ws_sampler_t975(uint32_t dof);

/* ---- Loop windows: sampling inside CTAs --------------------------------------------
 *
 * A grid of a few waves has nothing to skip whole, but each of its CTAs
 * runs one main loop hundreds of times (sim/exec/ffwd.h). Once every
 * resident CTA has run WS_SAMPLER_WARM_ROUNDS iterations, a window of
 * measure_rounds iterations is timed. Then the engine finds how many
 * iterations the lead CTA has left (by running it to its loop's end
 * functionally and putting it back), and the resident CTAs move on through
 * a gap, functionally: each by a share proportional to the instructions it
 * issued in the loop's windows so far, so slower CTAs fall behind as they
 * would. After one settling iteration the next window is timed, and so on:
 * WS_SAMPLER_LOOP_WINDOWS windows spread over the loop (ws_loop_sampler_
 * plan_gap shares what is left among the windows to come and the stretch
 * after the last), then a last gap to WS_SAMPLER_END_ROUNDS iterations
 * before the end, and the end is timed. A loop's cost drifts as it runs
 * (its later tiles find a different L2), so a gap is priced at the mean of
 * the cycles per warp instruction of the windows on either side (the last
 * gap: of the window before), and every counter gains the mean of its two
 * rates per instruction times the gap's instructions. A CTA placed or
 * retired drops an open window (its gap priced from the window before); a
 * window opens again once the resident CTAs changed since the last loop was
 * done with. CTAs far apart in their loops (the waves after the first)
 * take gaps of a quarter of the loop instead (ws_loop_sampler_stagger_gap)
 * while a wave is still to be placed. The interval is Student's t over the
 * two windows' iterations (each one's cycles per instruction); gaps'
 * intervals add in quadrature. */

#define WS_SAMPLER_MIN_ROUNDS 2
#define WS_SAMPLER_MAX_ROUNDS 32
#define WS_SAMPLER_DEFAULT_ROUNDS 3
/* The first iterations of a CTA fill its pipelines and, in the first wave,
 * the memory system's queues: not measured. After a gap, one iteration
 * settles the warps, which the fast-forward left side by side. */
#define WS_SAMPLER_WARM_ROUNDS 2
#define WS_SAMPLER_SETTLE_ROUNDS 1
/* Iterations kept before a loop's end: the last ones are timed, so the
 * CTAs finish (and the next ones start) as they would. */
#define WS_SAMPLER_END_ROUNDS 2
/* Windows per loop, at most: three see a trend and a change of regime. */
#define WS_SAMPLER_LOOP_WINDOWS 3

typedef enum ws_loop_phase {
  WS_LOOP_IDLE,    /* waiting for resident CTAs all fresh and warm */
  WS_LOOP_SETTLE,  /* after a gap: the settling iteration */
  WS_LOOP_MEASURE, /* a window is open */
} ws_loop_phase;

typedef struct ws_loop_window {
  uint32_t rounds;                                                             /* closed */
  uint64_t cycle[WS_SAMPLER_MAX_ROUNDS + 1], insns[WS_SAMPLER_MAX_ROUNDS + 1]; /* at each boundary */
} ws_loop_window;

typedef struct ws_loop_sampler {
  uint32_t measure_rounds; /* 0: off */
  ws_loop_phase phase;
  uint64_t changes_at_open; /* CTAs placed and retired so far when the window or settling began */
  uint64_t changes;         /* the same when the last loop was done with (UINT64_MAX: none yet) */
  ws_loop_window win, prev;
  bool has_prev;
  uint32_t windows_left;  /* windows still to come in this loop after the one open (or just closed) */
  uint64_t gap_rounds;    /* the next gap's iterations, for a CTA of mean speed */
  bool gap_alone;         /* the next gap runs to the loop's end: no window after it */
  uint64_t pending_insns; /* the last gap's instructions, priced at the next window's end */
  /* what its time is priced for: the instructions the CTAs would have
   * issued in it, with the share of those that reached their loop's end
   * first (they finish, and their SM starts the next CTA); 0 for a CTA
   * making up what its SM is owed (ws_loop_sampler_stagger_gap) */
  uint64_t pending_time_insns;
  /* over the launch */
  uint32_t skips;
  uint64_t skipped_insns;
  double skipped_cycles;
  double var_cycles; /* sum of the gaps' squared 95 % half-widths */
  /* the drift's share of the interval: per gap, half the difference of
   * the cycles the windows on either side would price it at, summed (a
   * drift pushes every gap the same way); a gap with no window after it
   * takes the largest relative drift seen so far */
  double drift_cycles;
  double drift_share_max;
} ws_loop_sampler;

/* Off unless cfg asks for it (measure_rounds in range). */
void ws_loop_sampler_plan(ws_loop_sampler *s, const ws_sampling *cfg);
/* A new loop: its first window opens at `cycle` (ws_loop_sampler_open). */
void ws_loop_sampler_begin_loop(ws_loop_sampler *s);
/* A window or the settling iteration begins at `cycle`, with `insns` warp
 * instructions issued and `changes` CTAs placed and retired so far. */
void ws_loop_sampler_open(ws_loop_sampler *s, ws_loop_phase phase, uint64_t cycle, uint64_t insns,
                          uint64_t changes);
/* Every resident CTA has completed `rounds` iterations since the phase
 * began: closes the window's iterations that ended; true when the window
 * (or the settling) is over. */
bool ws_loop_sampler_progress(ws_loop_sampler *s, uint32_t rounds, uint64_t cycle, uint64_t insns);
/* A window's instructions and cycles. */
uint64_t ws_loop_window_insns(const ws_loop_window *w);
uint64_t ws_loop_window_cycles(const ws_loop_window *w);
/* At a window's end, with `room` iterations the gaps may still take: the
 * next gap. Iterations are shared evenly among the windows still to come
 * and the stretch after the last one, which a last gap takes alone
 * (gap_alone); a share shorter than a window gives up the windows. */
void ws_loop_sampler_plan_gap(ws_loop_sampler *s, uint64_t room);
/* The gap for CTAs far apart in their loops, as the waves after the first
 * of a many-wave grid are (each CTA placed when one retires), when the
 * room the most advanced one leaves is shorter: a share of the loop's
 * `total` iterations. A CTA that reaches its loop's end in the gap stops
 * there, and its SM's next CTA makes up the rest once warm; 0 when it
 * does not apply (the room is enough for an even plan). */
uint64_t ws_loop_sampler_stagger_gap(uint64_t room, uint64_t total);
/* Prices the pending gap from the window before it and, when `with_next`,
 * the window just closed; adds it to the launch's totals; returns its
 * cycles. */
double ws_loop_sampler_price(ws_loop_sampler *s, bool with_next);

#endif
