/* cost.c - host clocks for what a simulation costs.
 *
 * Design: CLOCK_MONOTONIC for wall time (a clock set backwards must not
 * give a negative cost) and the POSIX CPU-time clocks for CPU time, all
 * three with nanosecond resolution, so even a refused point's validation
 * has a cost above zero (a zero cost means "not measured" in a record). */
#include "explore/cost.h"

#include <time.h>

static double seconds_of(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static clockid_t cpu_clock(ws_cost_cpu cpu) {
  return cpu == WS_COST_CPU_THREAD ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID;
}

void ws_cost_start(ws_cost_clock *c, ws_cost_cpu cpu) {
  c->cpu = cpu;
  c->wall0_s = seconds_of(CLOCK_MONOTONIC);
  c->cpu0_s = seconds_of(cpu_clock(cpu));
}

ws_cost ws_cost_read(const ws_cost_clock *c) {
  ws_cost k = {seconds_of(CLOCK_MONOTONIC) - c->wall0_s, seconds_of(cpu_clock(c->cpu)) - c->cpu0_s};
  if (k.wall_s < 0) k.wall_s = 0;
  if (k.cpu_s < 0) k.cpu_s = 0;
  return k;
}

double ws_cost_rate(uint64_t warp_insns, double cpu_s) { return cpu_s > 0 ? (double)warp_insns / cpu_s : 0; }
