/* sampler.c - the wave sampler's plan, batches and estimate (see sampler.h). */
#include "sim/gpu/sampler.h"

#include <math.h>
#include <string.h>

uint64_t ws_sampler_batch_waves(uint64_t wave_ctas) {
  return wave_ctas >= WS_SAMPLER_MIN_BATCH_CTAS ? 1 : (WS_SAMPLER_MIN_BATCH_CTAS + wave_ctas - 1) / wave_ctas;
}

uint64_t ws_sampler_min_waves(const ws_sampling *cfg, uint64_t wave_ctas) {
  uint64_t m = cfg->measure_waves;
  return 2 + m * ws_sampler_batch_waves(wave_ctas) + m + m + 1;
}

bool ws_sampler_plan(ws_sampler *s, const ws_sampling *cfg, uint64_t total_ctas, uint64_t wave_ctas) {
  memset(s, 0, sizeof *s);
  s->phase = WS_SAMPLER_OFF;
  s->total_ctas = total_ctas;
  s->wave_ctas = wave_ctas;
  uint32_t nb = cfg ? cfg->measure_waves : 0;
  if (nb < WS_SAMPLER_MIN_WAVES || nb > WS_SAMPLER_MAX_WAVES || !wave_ctas) return false;
  if (total_ctas / wave_ctas < ws_sampler_min_waves(cfg, wave_ctas)) return false;
  s->nbatches = nb;
  s->batch_ctas = ws_sampler_batch_waves(wave_ctas) * wave_ctas;
  s->phase = WS_SAMPLER_WARM;
  s->warm_until = 2 * wave_ctas;
  return true;
}

static void open_batch(ws_sampler *s, uint64_t retired, uint64_t cycle) {
  s->phase = WS_SAMPLER_MEASURE;
  s->batch_start_ctas = retired;
  s->batch_start_cycle = cycle;
}

ws_sampler_action ws_sampler_retired(ws_sampler *s, uint64_t retired, uint64_t cycle) {
  if (s->phase == WS_SAMPLER_WARM && retired >= s->warm_until) {
    open_batch(s, retired, cycle);
    return WS_SAMPLER_START;
  }
  if (s->phase != WS_SAMPLER_MEASURE || retired < s->batch_start_ctas + s->batch_ctas)
    return WS_SAMPLER_NOTHING;
  uint64_t n = retired - s->batch_start_ctas;
  s->cycles_per_cta[s->batch++] = (double)(cycle - s->batch_start_cycle) / (double)n;
  s->window_ctas += n;
  return WS_SAMPLER_SKIP;
}

/* Mean and the interval's half-width of the batch means, per CTA. */
static void batch_stats(const ws_sampler *s, double *mean, double *half) {
  double sum = 0, sq = 0;
  for (uint32_t b = 0; b < s->nbatches; b++) sum += s->cycles_per_cta[b];
  *mean = sum / s->nbatches;
  for (uint32_t b = 0; b < s->nbatches; b++)
    sq += (s->cycles_per_cta[b] - *mean) * (s->cycles_per_cta[b] - *mean);
  double sd = sqrt(sq / (s->nbatches - 1));
  *half = ws_sampler_t975(s->nbatches - 1) * sd / sqrt((double)s->nbatches);
}

/* This gap's CTAs: what is not yet dispatched, less the dispatches the
 * batches still to come need (in steady state a CTA dispatched per CTA
 * retired: the settling wave and the batch), the wave that settles before
 * the end and the last partial wave, in whole waves shared evenly by the
 * gaps left. */
static uint64_t gap_ctas(const ws_sampler *s, uint64_t next) {
  uint64_t gaps_left = s->nbatches - s->batch + 1;
  uint64_t remaining = next < s->total_ctas ? s->total_ctas - next : 0;
  uint64_t keep = (gaps_left - 1) * (s->wave_ctas + s->batch_ctas) + s->wave_ctas + remaining % s->wave_ctas;
  uint64_t waves = remaining > keep ? (remaining - keep) / s->wave_ctas : 0;
  return (gaps_left == 1 ? waves : waves / gaps_left) * s->wave_ctas;
}

uint64_t ws_sampler_skip(ws_sampler *s, uint64_t next, uint64_t retired) {
  uint64_t n = gap_ctas(s, next);
  s->skipped_ctas += n;
  if (s->batch < s->nbatches) {
    s->phase = WS_SAMPLER_WARM;
    s->warm_until = retired + n + s->wave_ctas;
    return n;
  }
  s->phase = WS_SAMPLER_DONE;
  double mean, half;
  batch_stats(s, &mean, &half);
  s->skipped_cycles = mean * (double)s->skipped_ctas;
  s->ci95_cycles = half * (double)s->skipped_ctas;
  return n;
}

uint64_t ws_sampler_scale(const ws_sampler *s, uint64_t window_delta) {
  if (!s->window_ctas) return 0;
  return (uint64_t)llround((double)window_delta * (double)s->skipped_ctas / (double)s->window_ctas);
}

double ws_sampler_t975(uint32_t dof) {
  /* the standard table's 0.975 quantiles; past 30 degrees the normal's */
  static const double t[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                               2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return INFINITY;
  return dof <= 30 ? t[dof] : 1.960;
}
