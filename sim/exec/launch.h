/* launch.h - what describes one kernel launch: its grid and block shape,
 * everything the executor reads while it runs, and the statistics it returns.
 *
 * Design: these records are shared by the executor, the timing model and the
 * host API, so they live in a header of their own at the executor's layer;
 * the host API (sim/host/device.h) re-exports them to callers, and nothing
 * here needs to know about devices. */
#ifndef WS_LAUNCH_H
#define WS_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "isa/program.h"
#include "sim/common/occupancy.h"

typedef struct ws_mem ws_mem;
typedef struct ws_sanitize ws_sanitize;
typedef struct ws_taint ws_taint;
typedef struct ws_slice ws_slice;

/* Checks a launch can run under (sim/exec/sanitize.h), like compute-sanitizer's
 * tools: shared and global memory races, reads of uninitialized registers
 * and memory, barrier misuse. */
enum {
  WS_CHECK_RACE = 1u << 0,
  WS_CHECK_INIT = 1u << 1,
  WS_CHECK_SYNC = 1u << 2,
  WS_CHECK_ALL = (1u << 3) - 1u
};

typedef struct ws_dim3 {
  uint32_t x, y, z;
} ws_dim3;

typedef struct ws_launch_stats {
  uint64_t cycles;        /* kernel duration in core cycles (0 in functional mode) */
  ws_occupancy occupancy; /* theoretical occupancy of this launch on the preset */
  uint64_t ctas;
  uint64_t warp_insns;   /* warp instructions issued (guard-false included) */
  uint64_t thread_insns; /* sum over issued warp instructions of active lanes */
  uint64_t warp_insns_by_unit[WS_UNIT_COUNT];
  /* timing mode with sampling on (sim/gpu/sampler.h): whether CTA waves were
   * skipped, in which case cycles and the per-SM and memory counters are
   * estimates (ctas and the instruction counts stay exact); the CTAs timed
   * in full (all of them when not sampled); the half-width of the 95 %
   * confidence interval of cycles (0 when not sampled) */
  bool sampled;
  uint64_t timed_ctas;
  uint64_t cycles_ci95;
  /* warp instructions issued in timing (the rest ran functionally: skipped
   * waves, and iterations fast-forwarded inside CTAs); = warp_insns when
   * not sampled */
  uint64_t timed_warp_insns;
  /* CTAs that computed every instruction, their outputs exact; the others
   * ran the launch's slice (sim/exec/slice.h), timed as in full but leaving
   * their outputs unwritten. = ctas unless a sampled launch sliced */
  uint64_t computed_ctas;
} ws_launch_stats;

/* Adds the instruction counts `now` has beyond `before` (NULL: beyond zero)
 * to dst: how counts kept apart (a host thread's, a gap's) join the
 * launch's. */
static inline void ws_launch_stats_add_insns(ws_launch_stats *dst, const ws_launch_stats *now,
                                             const ws_launch_stats *before) {
  const ws_launch_stats zero = {0};
  if (!before) before = &zero;
  dst->warp_insns += now->warp_insns - before->warp_insns;
  dst->thread_insns += now->thread_insns - before->thread_insns;
  for (int u = 0; u < WS_UNIT_COUNT; u++)
    dst->warp_insns_by_unit[u] += now->warp_insns_by_unit[u] - before->warp_insns_by_unit[u];
}

/* What a long launch reports while it runs (ws_watch.progress). */
typedef struct ws_progress {
  const char *kernel;
  uint64_t cycles; /* simulated so far (0 in functional mode) */
  uint64_t warp_insns;
  uint64_t ctas_done, ctas_total;
  double elapsed_s; /* wall clock since the launch started */
  bool done;        /* the launch ended: a last call, only after earlier reports */
} ws_progress;

/* What stops a launch that runs too long or forever; see sim/exec/watchdog.h.
 * A zero limit means the default: for max_warp_insns_per_warp,
 * ws_watchdog_default_per_warp(kernel); max_cycles and timeout_s are then
 * off. The launch as a whole is bounded by the preset's
 * gpu.insn_budget_warp_insns too. */
typedef struct ws_watch {
  uint64_t max_warp_insns_per_warp;
  uint64_t max_cycles;                                /* timing mode */
  double timeout_s;                                   /* wall clock */
  bool no_spin_check;                                 /* true: do not stop warps that provably spin forever */
  const volatile sig_atomic_t *interrupt;             /* becomes nonzero: stop now (Ctrl-C) */
  void (*progress)(void *user, const ws_progress *p); /* about every 0.25 s; NULL: none */
  void *progress_user;
} ws_watch;

/* Everything one launch needs; read-only while it runs. */
/* Host code that runs while a kernel does: the host's side of mapped host
 * memory (sim/exec/mem.h), such as the host end of a persistent kernel's
 * work queue. Timing mode only (sim/gpu/engine.c); times are core cycles
 * from the launch's start. The agent reads and writes mapped host memory
 * with ws_device_memcpy_htod/dtoh (the only device calls it may make): host
 * memory is its own, so its accesses take no link time. A kernel's load
 * samples memory when it issues, so a host write meant to be seen by loads
 * that reach host memory from cycle h on is made at h minus
 * ws_latency_host_request_cycles (sim/memsys/latency.h). */
typedef struct ws_host_agent {
  void *user;
  /* the cycle of the agent's next action; UINT64_MAX: none planned (it may
   * plan one when told a store landed) */
  uint64_t (*next_cycle)(void *user);
  /* acts at `cycle`, its next_cycle; a failure stops the launch */
  ws_status (*act)(void *user, uint64_t cycle);
  /* a kernel's store to mapped host memory has left the SM and will land at
   * `cycle`: its line and the sectors it wrote (the bytes are in memory
   * already, since the store issued; told in advance, so the agent can plan
   * what it does when they land) */
  void (*landed)(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle);
} ws_host_agent;

typedef struct ws_exec_launch {
  const ws_kernel *kernel;
  ws_dim3 grid;
  ws_dim3 block;
  uint32_t dyn_shared_bytes;
  const uint8_t *params; /* kernel->param_size_bytes readable bytes */
  ws_mem *mem;
  const uint8_t *const_bank;
  uint32_t const_bank_bytes;
  uint32_t num_sms;           /* for SR_SMID */
  uint64_t budget_warp_insns; /* the whole launch (gpu.insn_budget_warp_insns) */
  const ws_watch *watch;      /* NULL: the defaults */
  ws_sanitize *sanitize;      /* the checks' launch-wide state; NULL: no checks */
  ws_taint *taint;            /* pixel following's launch-wide state (taint.h); NULL: off */
  const ws_host_agent *agent; /* host code running alongside (timing mode); NULL: none */
  /* local memory (sim/exec/local.h): the device address of the launch's
   * window (0: none; the kernel's LDL/STL then fault) and the warp slots
   * each SM has in it (sm.max_warps_per_sm) */
  uint64_t local_base;
  uint32_t local_warps_per_sm;
  /* a sampled timing run's slice (sim/exec/slice.h): the CTAs it applies to
   * run only what their timing depends on; NULL: every CTA computes all */
  const ws_slice *slice;
} ws_exec_launch;

#endif
