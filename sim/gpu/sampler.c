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

/* ---- loop windows ---------------------------------------------------------------- */

void ws_loop_sampler_plan(ws_loop_sampler *s, const ws_sampling *cfg) {
  memset(s, 0, sizeof *s);
  uint32_t r = cfg ? cfg->measure_rounds : 0;
  s->measure_rounds = r >= WS_SAMPLER_MIN_ROUNDS && r <= WS_SAMPLER_MAX_ROUNDS ? r : 0;
  s->changes = UINT64_MAX;
}

void ws_loop_sampler_open(ws_loop_sampler *s, ws_loop_phase phase, uint64_t cycle, uint64_t insns,
                          uint64_t changes) {
  s->phase = phase;
  s->changes_at_open = changes;
  s->win.rounds = 0;
  s->win.cycle[0] = cycle;
  s->win.insns[0] = insns;
}

bool ws_loop_sampler_progress(ws_loop_sampler *s, uint32_t rounds, uint64_t cycle, uint64_t insns) {
  if (s->phase == WS_LOOP_SETTLE) return rounds >= WS_SAMPLER_SETTLE_ROUNDS;
  /* iterations that ended between two looks end at the later one: an empty one is left out when priced */
  while (s->win.rounds < rounds && s->win.rounds < s->measure_rounds) {
    s->win.rounds++;
    s->win.cycle[s->win.rounds] = cycle;
    s->win.insns[s->win.rounds] = insns;
  }
  return s->win.rounds == s->measure_rounds;
}

uint64_t ws_loop_window_insns(const ws_loop_window *w) { return w->insns[w->rounds] - w->insns[0]; }

uint64_t ws_loop_window_cycles(const ws_loop_window *w) { return w->cycle[w->rounds] - w->cycle[0]; }

void ws_loop_sampler_begin_loop(ws_loop_sampler *s) {
  s->windows_left = WS_SAMPLER_LOOP_WINDOWS - 1;
  s->pending_insns = s->pending_time_insns = 0;
}

void ws_loop_sampler_plan_gap(ws_loop_sampler *s, uint64_t room) {
  uint64_t window = WS_SAMPLER_SETTLE_ROUNDS + s->measure_rounds;
  while (s->windows_left && (room < s->windows_left * window ||
                             (room - s->windows_left * window) / (s->windows_left + 1) < window))
    s->windows_left--;
  s->gap_alone = s->windows_left == 0;
  s->gap_rounds = s->gap_alone ? room : (room - s->windows_left * window) / (s->windows_left + 1);
  if (!s->gap_alone) s->windows_left--;
}

/* Cycles per instruction of a window's iterations that issued anything,
 * appended to cpi[]; returns how many. */
static uint32_t window_cpis(const ws_loop_window *w, double *cpi) {
  uint32_t n = 0;
  for (uint32_t k = 1; k <= w->rounds; k++) {
    uint64_t di = w->insns[k] - w->insns[k - 1];
    if (di) cpi[n++] = (double)(w->cycle[k] - w->cycle[k - 1]) / (double)di;
  }
  return n;
}

/* The half-width of the 95 % interval of the mean of n values. */
static double half_width(const double *v, uint32_t n) {
  if (n < 2) return 0;
  double sum = 0, sq = 0;
  for (uint32_t k = 0; k < n; k++) sum += v[k];
  double mean = sum / n;
  for (uint32_t k = 0; k < n; k++) sq += (v[k] - mean) * (v[k] - mean);
  return ws_sampler_t975(n - 1) * sqrt(sq / (n - 1)) / sqrt((double)n);
}

static double window_cpi(const ws_loop_window *w) {
  uint64_t i = ws_loop_window_insns(w);
  return i ? (double)ws_loop_window_cycles(w) / (double)i : 0;
}

/* A gap's systematic uncertainty per instruction: the windows on either
 * side measure different costs (a loop's later tiles find another L2, the
 * CTAs drift apart and the gaps bring them back in step), and the mean of
 * the two is right only when the cost moves evenly between them. Half
 * their difference bounds it; with no window after the gap, the largest
 * share of its cost seen in the launch stands in. */
static double drift(ws_loop_sampler *s, bool with_next, double cpi) {
  if (!with_next || cpi <= 0) return s->drift_share_max * cpi;
  double d = fabs(window_cpi(&s->prev) - window_cpi(&s->win)) / 2;
  if (d / cpi > s->drift_share_max) s->drift_share_max = d / cpi;
  return d;
}

uint64_t ws_loop_sampler_stagger_gap(uint64_t room, uint64_t total) {
  uint64_t gap = total / (WS_SAMPLER_LOOP_WINDOWS + 1);
  return room < gap ? gap : 0;
}

double ws_loop_sampler_price(ws_loop_sampler *s, bool with_next) {
  uint64_t gap = s->pending_insns, time = s->pending_time_insns;
  s->pending_insns = s->pending_time_insns = 0;
  if (!gap) return 0;
  double cpi = with_next ? (window_cpi(&s->prev) + window_cpi(&s->win)) / 2 : window_cpi(&s->prev);
  double v[2 * WS_SAMPLER_MAX_ROUNDS];
  uint32_t n = window_cpis(&s->prev, v);
  if (with_next) n += window_cpis(&s->win, v + n);
  double cycles = cpi * (double)time, half = half_width(v, n) * (double)time;
  s->skips++;
  s->skipped_insns += gap;
  s->skipped_cycles += cycles;
  s->var_cycles += half * half;
  s->drift_cycles += drift(s, with_next, cpi) * (double)time;
  return cycles;
}
