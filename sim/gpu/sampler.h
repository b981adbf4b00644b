/* sampler.h - CTA-wave sampling of a timed launch: time some waves in full,
 * skip the rest, and extrapolate.
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
} ws_sampling;

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

#endif
