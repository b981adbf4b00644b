/* persistent.h - persistent kernels (seed 003): N small work items done as
 * N kernel launches, and as one persistent ring kernel that stays resident
 * and takes the items from a queue in mapped host memory.
 *
 * Design: both runs are closed loops, as a host serving one request at a
 * time runs them: the host hands over item i + 1 only once it has item i's
 * result. With launches, the host launches the item's kernel (paying the
 * preset's launch overhead) and waits for it; the kernel writes its result
 * flag to mapped host memory. With the ring kernel, the host launches it
 * once; a host agent (ws_host_agent) plays the host's side of the queue:
 * when an item's result flag lands in host memory it writes the next item's
 * slot, which the kernel's polling thread sees on its next poll over the
 * link (pcie.zero_copy_lat_ns a round trip). Every item's output is checked
 * bit for bit against the host's fmaf. Both runs take the same body per
 * item (models/runs/persistent.wsa) on fresh devices that keep their L2
 * between launches, as a real process does. Times are from the host's first
 * call; the host reacts to a result at once (a host spinning on the flag's
 * cache line reacts in tens of ns, below what these figures resolve). */
#ifndef WS_PERSISTENT_H
#define WS_PERSISTENT_H

#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"

#define WS_PERSISTENT_MAX_ITEMS 4096u
#define WS_PERSISTENT_MAX_ELEMS 65536u
#define WS_PERSISTENT_MAX_OUTPUTS (1u << 24) /* items x elems: the outputs' floats */
#define WS_PERSISTENT_SLOTS 64u              /* the ring's slots in mapped host memory */

typedef struct ws_persistent_cfg {
  uint32_t items;   /* 1..WS_PERSISTENT_MAX_ITEMS */
  uint32_t elems;   /* floats per item, 1..WS_PERSISTENT_MAX_ELEMS; items x elems at most
                       WS_PERSISTENT_MAX_OUTPUTS */
  uint32_t threads; /* the one CTA's threads: a whole number of warps */
} ws_persistent_cfg;

/* 64 items of 1024 floats, 256 threads. */
ws_persistent_cfg ws_persistent_default_cfg(void);

typedef struct ws_persistent_result {
  uint32_t items;
  /* when the host had item i's result, in ns from its first call: one
   * entry per item (owned; ws_persistent_result_free) */
  uint64_t *launch_done_ns, *ring_done_ns;
  uint64_t *launch_kernel_ns;  /* item i's kernel with launches (launch overhead excluded) */
  uint64_t launch_ns, ring_ns; /* the last item's: the whole closed loop */
  uint64_t ring_start_ns;      /* the ring kernel's start (after its one launch) */
  uint64_t ring_kernel_ns;     /* the ring kernel from start to exit, the stop included */
  uint64_t polls;              /* the ring's loads of mapped host memory */
  uint64_t poll_ns;            /* one poll's round trip on the idle link, from the preset */
  /* the smallest number of items for which the ring had them all before
   * the launches did; 0 when it never did within `items` */
  uint32_t crossover;
} ws_persistent_result;

/* Runs both ways on `cfg` (not changed); fills *out (freed with
 * ws_persistent_result_free, also after a failure). A result that differs
 * from the host's is WS_ERR_FAULT naming the item and element. */
ws_status ws_persistent_run(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_persistent_cfg *cfg,
                            ws_persistent_result *out);
void ws_persistent_result_free(ws_persistent_result *r);

#endif
