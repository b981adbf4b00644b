/* cost.h - what simulating a point costs the host: wall-clock seconds, CPU
 * seconds and warp instructions simulated per CPU second, the figures a
 * user needs to plan a long run or a sweep.
 *
 * Design: the explorer's one reader of host clocks for a result. A cost
 * depends on the host and its load, so it never reaches a record unless
 * asked for (`sweep --cost`): records stay the same bytes on every host.
 * CPU time is the process's (every thread a sampled launch starts to run
 * its gaps counts) or the calling thread's alone, for a worker that shares
 * the process with other points. */
#ifndef WS_EXPLORE_COST_H
#define WS_EXPLORE_COST_H

#include <stdint.h>

typedef enum ws_cost_cpu {
  WS_COST_CPU_PROCESS, /* every thread of the process */
  WS_COST_CPU_THREAD,  /* the thread that started the clock */
  WS_COST_CPU_COUNT
} ws_cost_cpu;

/* A clock started before a simulation. */
typedef struct ws_cost_clock {
  ws_cost_cpu cpu;
  double wall0_s, cpu0_s;
} ws_cost_clock;

/* What a simulation took. */
typedef struct ws_cost {
  double wall_s, cpu_s;
} ws_cost;

/* Starts a clock that measures CPU time as `cpu` says (a thread clock is
 * read on the thread that started it). */
void ws_cost_start(ws_cost_clock *c, ws_cost_cpu cpu);
/* Wall and CPU seconds since ws_cost_start. */
ws_cost ws_cost_read(const ws_cost_clock *c);
/* Warp instructions per CPU second; 0 when no CPU time was measured. */
double ws_cost_rate(uint64_t warp_insns, double cpu_s);

#endif
