/* pcie.h - the host link: how long moving N bytes between host and device
 * memory takes over PCIe, pinned or pageable, in either direction.
 *
 * Design: a closed-form model in integer nanoseconds, so the same transfer
 * always costs the same time and tests can compute it by hand. The link
 * moves payload in TLPs of at most max_payload_bytes, each carrying
 * tlp_overhead_bytes of framing, at lanes x lane rate x line-code
 * efficiency; a transfer first pays a fixed setup latency. Pageable
 * transfers go through a pinned staging buffer chunk by chunk, the CPU copy
 * of one chunk overlapping the DMA of another (a two-stage pipeline). Each
 * direction has its own copy engine and the link is full duplex, so the
 * caller (sim/host/runtime.c) may run an H2D and a D2H transfer at once. */
#ifndef WS_PCIE_H
#define WS_PCIE_H

#include <stdint.h>

#include "sim/common/config.h"

typedef enum ws_pcie_dir { WS_PCIE_H2D, WS_PCIE_D2H, WS_PCIE_DIR_COUNT } ws_pcie_dir;

typedef enum ws_pcie_host_mem {
  WS_PCIE_PINNED,   /* page-locked: the DMA engine reads or writes it directly */
  WS_PCIE_PAGEABLE, /* ordinary memory: staged through a pinned bounce buffer */
  WS_PCIE_HOST_MEM_COUNT
} ws_pcie_host_mem;

/* Per-lane signalling of one PCIe generation (the table lives with the
 * config, which derives the link's rate from it). */
typedef ws_cfg_pcie_gen ws_pcie_gen;

/* The signalling of generation `gen` (1..5); NULL for any other. */
const ws_pcie_gen *ws_pcie_gen_info(uint32_t gen);

/* Bytes on the wire for size_bytes of payload: the payload plus one TLP
 * overhead per max_payload_bytes (or part of it). */
uint64_t ws_pcie_wire_bytes(const ws_cfg_pcie *cfg, uint64_t size_bytes);
/* Time the DMA engine needs to move size_bytes over the link, no setup. */
uint64_t ws_pcie_dma_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes);
/* Time the CPU needs to copy size_bytes to or from the staging buffer. */
uint64_t ws_pcie_host_copy_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes);
/* A whole transfer: setup + DMA (pinned), or setup + the staged pipeline
 * (pageable). 0 bytes take 0 ns (nothing is sent). */
uint64_t ws_pcie_transfer_ns(const ws_cfg_pcie *cfg, uint64_t size_bytes, ws_pcie_dir dir,
                             ws_pcie_host_mem mem);
/* The link's payload bandwidth for large transfers, in MB/s (10^6 B/s),
 * rounded down: lanes x rate x code efficiency x TLP efficiency. */
/* One DMA burst of a transfer: which bytes, and when the copy engine moves
 * them, in ns from the transfer's start. */
typedef struct ws_pcie_chunk {
  uint64_t offset_bytes, size_bytes;
  uint64_t dma_begin_ns, dma_end_ns;
} ws_pcie_chunk;
/* Calls fn for every DMA burst of a transfer, in order, with the times the
 * closed form above implies: a pinned transfer is one burst after the setup
 * latency; a pageable one is one per staging chunk, each DMA starting once
 * its chunk is staged (H2D) or the previous DMA is done (D2H, the CPU
 * copying out behind it). An H2D transfer's last burst ends when
 * ws_pcie_transfer_ns says. */
void ws_pcie_for_each_chunk(const ws_cfg_pcie *cfg, uint64_t size_bytes, ws_pcie_dir dir,
                            ws_pcie_host_mem mem, void (*fn)(void *user, const ws_pcie_chunk *c), void *user);
uint64_t ws_pcie_peak_mbps(const ws_cfg_pcie *cfg);

#endif
