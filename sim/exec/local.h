/* local.h - where a thread's local memory (.local, LDL/STL) lives in device
 * memory.
 *
 * Design: as NVIDIA lays it out, a launch's local memory is one window of
 * device memory with a region per warp slot (every resident warp slot of
 * every SM), and inside a region the threads' words are interleaved: word w
 * of lane L lies at region + (w * 32 + L) * 4. A warp whose 32 lanes access
 * the same local word therefore touches one 128-byte line, as a coalesced
 * global access does, and the caches and DRAM see real addresses. The
 * functional launcher runs one CTA at a time and uses one more CTA's worth
 * of regions past the resident slots, so the CTAs a sampled launch runs
 * functionally never write over a resident CTA's local memory. */
#ifndef WS_LOCAL_H
#define WS_LOCAL_H

#include <stdint.h>

#include "isa/isa.h"
#include "sim/exec/launch.h"

/* Bytes of one warp slot's region: .local bytes per thread x 32 lanes. */
static inline uint64_t ws_local_region_bytes(uint32_t local_bytes) {
  return (uint64_t)local_bytes * WS_WARP_LANES;
}

/* Warp regions a launch's window holds: the GPU's resident warp slots
 * (num_sms x warps_per_sm) and the functional launcher's CTA of
 * warps_per_cta. */
static inline uint64_t ws_local_window_slots(uint32_t num_sms, uint32_t warps_per_sm,
                                             uint32_t warps_per_cta) {
  return (uint64_t)num_sms * warps_per_sm + warps_per_cta;
}

/* The first warp slot of the functional launcher's regions. */
static inline uint32_t ws_local_functional_slot(const ws_exec_launch *launch) {
  return launch->num_sms * launch->local_warps_per_sm;
}

/* Device address of the region of warp slot `slot` (sm x warps_per_sm +
 * the SM's own warp slot). */
static inline uint64_t ws_local_region(const ws_exec_launch *launch, uint64_t slot) {
  return launch->local_base + slot * ws_local_region_bytes(launch->kernel->local_bytes);
}

/* Device address of byte `offset_bytes` (a multiple of 4 within .local) of
 * lane `lane` in the region at `region`. */
static inline uint64_t ws_local_addr(uint64_t region, uint32_t lane, uint32_t offset_bytes) {
  return region + ((uint64_t)(offset_bytes / 4u) * WS_WARP_LANES + lane) * 4u + offset_bytes % 4u;
}

#endif
