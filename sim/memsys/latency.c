/* latency.c - the idle hierarchy's load-to-use latencies, from the preset's
 * latency and port-width keys (docs/memory.md derives each term). */
#include "sim/memsys/latency.h"

#include "sim/memsys/dram.h"
#include "sim/memsys/sysmem.h"
#include "sim/memsys/xbar.h"

uint64_t ws_latency_idle_cycles(const ws_gpu_cfg *cfg, ws_mem_level level) {
  uint64_t sector = cfg->l1.sector_bytes;
  uint64_t port = ws_xbar_beats(sector, cfg->l1.port_bytes_per_cycle) - 1;
  uint64_t l1 = cfg->l1.hit_lat_cycles + port;
  if (level == WS_LEVEL_L1_HIT) return l1;
  if (level == WS_LEVEL_HOST)
    return cfg->l1.hit_lat_cycles + ws_sysmem_idle_read_cycles(cfg, (uint32_t)sector);
  uint64_t to_slice =
      cfg->noc.lat_cycles + ws_xbar_beats(cfg->noc.header_bytes, cfg->noc.sm_port_bytes_per_cycle) - 1;
  uint64_t to_sm = cfg->noc.lat_cycles + ws_xbar_beats(sector, cfg->noc.slice_port_bytes_per_cycle) - 1;
  uint64_t near = cfg->l1.hit_lat_cycles + to_slice + cfg->l2.hit_lat_cycles + to_sm + port;
  if (level == WS_LEVEL_L2_HIT_NEAR) return near;
  if (level == WS_LEVEL_L2_HIT_FAR) return near + cfg->geom.l2_far_extra_lat_cycles;
  return near + 2ull * cfg->hbm.ctrl_lat_cycles + cfg->geom.hbm_t_rcd_cycles + cfg->geom.hbm_t_cl_cycles +
         ws_dram_bus_cycles(cfg, (uint32_t)sector);
}

uint64_t ws_latency_host_request_cycles(const ws_gpu_cfg *cfg) {
  return cfg->l1.hit_lat_cycles + ws_sysmem_idle_request_cycles(cfg);
}
