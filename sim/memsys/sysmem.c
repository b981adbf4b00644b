/* sysmem.c - zero-copy accesses over the host link; see sysmem.h. */
#include "sim/memsys/sysmem.h"

#include <stdlib.h>

#define FRAC_SHIFT 10 /* link times in 1/1024 cycle */

typedef enum link_dir { UP, DOWN, DIR_COUNT } link_dir; /* device to host, host to device */

struct ws_sysmem {
  uint64_t lat_cycles;     /* the read round trip, idle link */
  uint32_t overhead_bytes; /* per TLP */
  uint64_t clock_mhz, wire_mbps;
  uint64_t free_at[DIR_COUNT]; /* first time (1/1024 cycle) the direction is free */
  uint32_t reads_out, tags;    /* tags: pcie.zero_copy_tags */
  /* counters */
  uint64_t reads, writes, read_bytes, write_bytes, wait_cycles, tag_stalls;
};

uint64_t ws_sysmem_state_bytes(void) { return sizeof(ws_sysmem); }

ws_status ws_sysmem_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_sysmem **out) {
  *out = NULL;
  ws_sysmem *s = calloc(1, sizeof *s);
  if (!s) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "sysmem: out of memory");
  s->lat_cycles = cfg->geom.zero_copy_lat_cycles;
  s->overhead_bytes = cfg->pcie.tlp_overhead_bytes;
  s->clock_mhz = cfg->gpu.core_clock_mhz;
  s->wire_mbps = cfg->geom.pcie_wire_mbps;
  s->tags = cfg->pcie.zero_copy_tags;
  const ws_stat_def defs[] = {
      {&s->reads, "reads", "loads, atomics and async copies of mapped host memory (one TLP each)"},
      {&s->writes, "writes", "stores to mapped host memory (one posted TLP each)"},
      {&s->read_bytes, "read_bytes", "payload bytes read from mapped host memory"},
      {&s->write_bytes, "write_bytes", "payload bytes written to mapped host memory"},
      {&s->wait_cycles, "link_wait_cycles", "cycles zero-copy TLPs waited for the link to be free"},
      {&s->tag_stalls, "tag_stalls", "reads refused because every PCIe tag was taken (pcie.zero_copy_tags)"},
  };
  ws_status st = ws_stats_register_table(stats, ctx, defs, sizeof defs / sizeof defs[0], "sysmem.");
  if (st != WS_OK) {
    free(s);
    return st;
  }
  *out = s;
  return WS_OK;
}

void ws_sysmem_destroy(ws_sysmem *s) { free(s); }

void ws_sysmem_reset(ws_sysmem *s) {
  s->free_at[UP] = s->free_at[DOWN] = 0;
  s->reads_out = 0;
}

bool ws_sysmem_can_read(ws_sysmem *s) {
  if (s->reads_out < s->tags) return true;
  s->tag_stalls++;
  return false;
}

/* Sends one TLP of payload_bytes on `d` no earlier than `at` (1/1024
 * cycle); returns when its last byte has crossed. bytes / (MB/s) is in us,
 * and a us is clock_mhz cycles. */
static uint64_t cross(ws_sysmem *s, link_dir d, uint64_t at, uint32_t payload_bytes) {
  uint64_t start = at > s->free_at[d] ? at : s->free_at[d];
  s->wait_cycles += (start - at) >> FRAC_SHIFT;
  uint64_t bytes = (uint64_t)payload_bytes + s->overhead_bytes;
  uint64_t wire = (bytes * s->clock_mhz << FRAC_SHIFT) / s->wire_mbps;
  s->free_at[d] = start + (wire ? wire : 1);
  return s->free_at[d];
}

static uint64_t whole_cycles(uint64_t frac) { return (frac + (1u << FRAC_SHIFT) - 1) >> FRAC_SHIFT; }

uint64_t ws_sysmem_read(ws_sysmem *s, uint64_t cycle, uint32_t payload_bytes) {
  s->reads_out++;
  s->reads++;
  s->read_bytes += payload_bytes;
  /* the request carries no payload; the completion leaves the host half
   * the round trip after the request left the SM, at the earliest */
  uint64_t asked = cross(s, UP, cycle << FRAC_SHIFT, 0);
  uint64_t half = (s->lat_cycles << FRAC_SHIFT) / 2;
  uint64_t back = cross(s, DOWN, asked + half, payload_bytes);
  return whole_cycles(back + (s->lat_cycles << FRAC_SHIFT) - half);
}

void ws_sysmem_read_done(ws_sysmem *s) {
  if (s->reads_out) s->reads_out--;
}

uint64_t ws_sysmem_write(ws_sysmem *s, uint64_t cycle, uint32_t payload_bytes) {
  s->writes++;
  s->write_bytes += payload_bytes;
  uint64_t sent = cross(s, UP, cycle << FRAC_SHIFT, payload_bytes);
  return whole_cycles(sent + (s->lat_cycles << FRAC_SHIFT) / 2);
}

uint64_t ws_sysmem_idle_read_cycles(const ws_gpu_cfg *cfg, uint32_t payload_bytes) {
  ws_sysmem s = {.lat_cycles = cfg->geom.zero_copy_lat_cycles,
                 .overhead_bytes = cfg->pcie.tlp_overhead_bytes,
                 .clock_mhz = cfg->gpu.core_clock_mhz,
                 .wire_mbps = cfg->geom.pcie_wire_mbps};
  return ws_sysmem_read(&s, 0, payload_bytes);
}

uint64_t ws_sysmem_idle_request_cycles(const ws_gpu_cfg *cfg) {
  ws_sysmem s = {.overhead_bytes = cfg->pcie.tlp_overhead_bytes,
                 .clock_mhz = cfg->gpu.core_clock_mhz,
                 .wire_mbps = cfg->geom.pcie_wire_mbps};
  return whole_cycles(cross(&s, UP, 0, 0) + (cfg->geom.zero_copy_lat_cycles << FRAC_SHIFT) / 2);
}
