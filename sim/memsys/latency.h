/* latency.h - load-to-use latency of one sector load on an idle
 * hierarchy, in core cycles, computed from the preset alone.
 *
 * Design: the prediction is a pure function of the configuration, so the
 * probes in tests and the microbenchmarks compare the simulated cycle with
 * it without building any component; it is part of the public API. */
#ifndef WS_LATENCY_H
#define WS_LATENCY_H

#include <stdint.h>

#include "sim/common/config.h"

typedef enum ws_mem_level {
  WS_LEVEL_L1_HIT,
  WS_LEVEL_L2_HIT_NEAR,
  WS_LEVEL_L2_HIT_FAR,    /* equals NEAR on single-partition GPUs */
  WS_LEVEL_DRAM_ROW_MISS, /* an idle bank with no open row: tRCD + tCL */
  WS_LEVEL_HOST,          /* mapped host memory over an idle link (zero-copy) */
  WS_LEVEL_COUNT
} ws_mem_level;

/* cfg must be resolved (its geometry derived). */
uint64_t ws_latency_idle_cycles(const ws_gpu_cfg *cfg, ws_mem_level level);
/* A load of mapped host memory on an idle link: cycles from its access at
 * the L1 to its request reaching host memory (where it reads what the host
 * wrote by then). */
uint64_t ws_latency_host_request_cycles(const ws_gpu_cfg *cfg);

#endif
