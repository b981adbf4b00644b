/* sysmem.h - the system-memory aperture: a kernel's loads, stores and
 * atomics to mapped host memory (zero-copy, at WS_CFG_SYSMEM_BASE and
 * above), carried over the host link instead of the caches and DRAM.
 *
 * Design: such an access bypasses the L1 (a poll must see the host's
 * writes), the L2 and DRAM. Each direction of the link is one serial
 * resource at the preset's raw rate (geom.pcie_wire_mbps); every access is
 * one TLP of its payload plus pcie.tlp_overhead_bytes of framing. A read
 * (load, atomic, async copy) sends a request upstream and gets its data in
 * a completion downstream: its data is back pcie.zero_copy_lat_ns after it
 * left the L1 pipeline, plus the time its two TLPs waited for and crossed
 * the link. A store is posted: it crosses upstream and lands in host
 * memory half the round trip later. At most pcie.zero_copy_tags reads are
 * outstanding (PCIe's 8-bit tag space by default); more are refused
 * (back-pressure).
 * Times are kept in 1/1024 cycle so that many small TLPs add up to the
 * link's rate. */
#ifndef WS_SYSMEM_H
#define WS_SYSMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/stats.h"

typedef struct ws_sysmem ws_sysmem;

/* Registers the sysmem.* counters in `stats` (which must outlive it). */
ws_status ws_sysmem_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_sysmem **out);
/* Host bytes ws_sysmem_create allocates (its counters' names aside). */
uint64_t ws_sysmem_state_bytes(void);
void ws_sysmem_destroy(ws_sysmem *s);
/* An idle link, no read outstanding (a new launch). */
void ws_sysmem_reset(ws_sysmem *s);
/* Whether another read may be sent now (a refusal is counted). */
bool ws_sysmem_can_read(ws_sysmem *s);
/* A read of payload_bytes leaving the L1 pipeline at `cycle`: the cycle its
 * data is back at the SM. Holds a tag until ws_sysmem_read_done. */
uint64_t ws_sysmem_read(ws_sysmem *s, uint64_t cycle, uint32_t payload_bytes);
void ws_sysmem_read_done(ws_sysmem *s);
/* A posted write of payload_bytes leaving at `cycle`: the cycle it lands in
 * host memory. */
uint64_t ws_sysmem_write(ws_sysmem *s, uint64_t cycle, uint32_t payload_bytes);

/* On an idle link: a read's cycles from leaving the L1 pipeline to its
 * data at the SM, and to its request reaching host memory. */
uint64_t ws_sysmem_idle_read_cycles(const ws_gpu_cfg *cfg, uint32_t payload_bytes);
uint64_t ws_sysmem_idle_request_cycles(const ws_gpu_cfg *cfg);

#endif
