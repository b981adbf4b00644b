/* pcie.c - the host link model: TLP framing, line code, lane rate, setup
 * latency and the staged pipeline of pageable transfers.
 *
 * Design: every duration is a ceiling of an exact integer ratio (no
 * floating point), so results are identical on every machine and a test
 * can derive them by hand from the preset. Pageable transfers use the
 * closed form of a two-stage pipeline (CPU copy, DMA) over equal chunks,
 * so a gigabyte costs no more to time than a kilobyte. */
#include "sim/host/pcie.h"

#include <stddef.h>

/* PCI-SIG PCI Express Base Specification 1.0a/2.0: 2.5 and 5 GT/s with
 * 8b/10b; 3.0, 4.0 and 5.0: 8, 16 and 32 GT/s with 128b/130b. */
const ws_pcie_gen *ws_pcie_gen_info(uint32_t gen) { return ws_config_pcie_gen(gen); }

/* ceil(a * n / d) without overflow for the operand ranges the key table
 * allows ((d - 1) * n stays far below 2^64). */
static uint64_t muldiv_ceil(uint64_t a, uint64_t n, uint64_t d) {
  return (a / d) * n + ((a % d) * n + d - 1) / d;
}

uint64_t ws_pcie_wire_bytes(const ws_cfg_pcie *cfg, uint64_t size_bytes) {
  return ws_config_pcie_wire_bytes(cfg, size_bytes);
}

uint64_t ws_pcie_dma_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes) {
  return ws_config_pcie_dma_ns(cfg, size_bytes);
}

/* MB/s are 10^6 B/s, so one byte takes 1000 / mbps ns. */
uint64_t ws_pcie_host_copy_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes) {
  return muldiv_ceil(size_bytes, 1000u, cfg->host_memcpy_mbps);
}

/* Two stages in order, one chunk at a time in each: n - 1 full chunks
 * (stage times first, second) and a last chunk (first_last, second_last).
 * The full chunks leave the second stage at first + second + (n - 2) x
 * max(first, second); the last chunk enters the second stage when both it
 * has left the first stage and the second stage is free. */
static uint64_t pipeline_ns(uint64_t n, uint64_t first, uint64_t second, uint64_t first_last,
                            uint64_t second_last) {
  if (n == 1) return first_last + second_last;
  uint64_t slow = first > second ? first : second;
  uint64_t second_free = first + second + (n - 2) * slow;
  uint64_t last_ready = (n - 1) * first + first_last;
  return (second_free > last_ready ? second_free : last_ready) + second_last;
}

static uint64_t staged_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes, ws_pcie_dir dir) {
  uint64_t chunk = cfg->staging_chunk_bytes;
  uint64_t n = (size_bytes + chunk - 1) / chunk, last = size_bytes - (n - 1) * chunk;
  uint64_t copy = ws_pcie_host_copy_ns(cfg, chunk), dma = ws_pcie_dma_ns(cfg, chunk);
  uint64_t copy_last = ws_pcie_host_copy_ns(cfg, last), dma_last = ws_pcie_dma_ns(cfg, last);
  /* H2D: the CPU fills the staging buffer, then the DMA drains it; D2H the reverse */
  if (dir == WS_PCIE_H2D) return pipeline_ns(n, copy, dma, copy_last, dma_last);
  return pipeline_ns(n, dma, copy, dma_last, copy_last);
}

uint64_t ws_pcie_transfer_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes, ws_pcie_dir dir,
                             ws_pcie_host_mem mem) {
  if (size_bytes == 0) return 0;
  uint64_t body = mem == WS_PCIE_PAGEABLE ? staged_ns(cfg, size_bytes, dir) : ws_pcie_dma_ns(cfg, size_bytes);
  return cfg->setup_lat_ns + body;
}

void ws_pcie_for_each_chunk(const ws_cfg_pcie *cfg, uint64_t size_bytes, ws_pcie_dir dir,
                            ws_pcie_host_mem mem, void (*fn)(void *user, const ws_pcie_chunk *c),
                            void *user) {
  if (size_bytes == 0) return;
  if (mem != WS_PCIE_PAGEABLE) {
    ws_pcie_chunk c = {0, size_bytes, cfg->setup_lat_ns, cfg->setup_lat_ns + ws_pcie_dma_ns(cfg, size_bytes)};
    fn(user, &c);
    return;
  }
  uint64_t chunk = cfg->staging_chunk_bytes, staged = cfg->setup_lat_ns, dma_free = cfg->setup_lat_ns;
  for (uint64_t off = 0; off < size_bytes; off += chunk) {
    uint64_t n = size_bytes - off < chunk ? size_bytes - off : chunk;
    ws_pcie_chunk c = {off, n, 0, 0};
    if (dir ==
        WS_PCIE_H2D) { /* the CPU stages chunk after chunk; each DMA waits for its chunk and the engine */
      staged += ws_pcie_host_copy_ns(cfg, n);
      c.dma_begin_ns = staged > dma_free ? staged : dma_free;
    } else { /* the DMA runs back to back; the CPU copies out behind it */
      c.dma_begin_ns = dma_free;
    }
    c.dma_end_ns = dma_free = c.dma_begin_ns + ws_pcie_dma_ns(cfg, n);
    fn(user, &c);
  }
}

uint64_t ws_pcie_peak_mbps(const ws_cfg_pcie *cfg) {
  const ws_pcie_gen *g = ws_pcie_gen_info(cfg->gen);
  if (!g) return 0;
  uint64_t num = (uint64_t)cfg->lanes * g->lane_mtps * g->code_data_bits * cfg->max_payload_bytes;
  uint64_t den = 8ull * g->code_line_bits * (cfg->max_payload_bytes + cfg->tlp_overhead_bytes);
  return num / den;
}
