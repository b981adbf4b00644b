/* launch.h - what describes one kernel launch: its grid and block shape,
 * everything the executor reads while it runs, and the statistics it returns.
 *
 * Design: these records are shared by the executor, the timing model and the
 * host API, so they live in a header of their own at the executor's layer;
 * the host API (sim/host/device.h) re-exports them to callers, and nothing
 * here needs to know about devices. */
#ifndef WS_LAUNCH_H
#define WS_LAUNCH_H

#include <stdint.h>

#include "isa/program.h"
#include "sim/core/occupancy.h"

typedef struct ws_mem ws_mem;

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
} ws_launch_stats;

/* Everything one launch needs; read-only while it runs. */
typedef struct ws_exec_launch {
  const ws_kernel *kernel;
  ws_dim3 grid;
  ws_dim3 block;
  uint32_t dyn_shared_bytes;
  const uint8_t *params; /* kernel->param_size_bytes readable bytes */
  ws_mem *mem;
  const uint8_t *const_bank;
  uint32_t const_bank_bytes;
  uint32_t num_sms; /* for SR_SMID */
} ws_exec_launch;

#endif
