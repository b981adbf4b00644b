/* coalesce.h - the LSU's address coalescer and shared-memory bank model.
 *
 * Design: pure functions of one warp instruction's per-lane addresses, so the
 * SM model, the tests and the visualizer all get the same answer with no
 * state. The global coalescer emits one ws_line_access per cache line touched,
 * sorted by line address, because the memory system is offered line accesses
 * in a deterministic order (run twice, same events). */
#ifndef WS_COALESCE_H
#define WS_COALESCE_H

#include <stdint.h>

#include "sim/memsys/memsys.h"

#ifndef WS_WARP_LANES
#define WS_WARP_LANES 32 /* same value and spelling as isa/isa.h */
#endif

/* Coalesces the active lanes' accesses of `width_bytes` each (1, 2, 4, 8 or
 * 16) into line accesses of `line_bytes` lines made of `sector_bytes`
 * sectors (both powers of two, at most 8 sectors per line). Writes at most
 * `max_out` entries, in ascending line-address order, each with the mask of
 * sectors touched, `kind` and the bytes the active lanes use in that line
 * (a byte read by several lanes counts once). An access that straddles a
 * line boundary (misaligned) touches both lines. Returns the number of
 * distinct lines touched, which may exceed max_out (then only the first
 * max_out are written); 0 when no lane is active. */
uint32_t ws_coalesce_global(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                            uint32_t line_bytes, uint32_t sector_bytes, ws_access_kind kind,
                            ws_line_access *out, uint32_t max_out);

/* Coalesces a local-memory access (LDL/STL; sim/exec/local.h) the same way:
 * addr holds each active lane's first word, and its further words (widths
 * 8 and 16) lie `word_stride_bytes` apart, a warp's 32 words, rather than
 * next to it. Each 32-bit word is one aligned 4-byte access; lines, order,
 * sectors, bytes and the return value are as ws_coalesce_global's. */
uint32_t ws_coalesce_local(const uint64_t addr[WS_WARP_LANES], uint32_t active_mask, uint32_t width_bytes,
                           uint64_t word_stride_bytes, uint32_t line_bytes, uint32_t sector_bytes,
                           ws_access_kind kind, ws_line_access *out, uint32_t max_out);

/* Number of serialized shared-memory wavefronts a warp access needs (1 =
 * conflict-free, 0 when no lane is active). The warp is split into phases
 * of 128 bytes of request: 32 lanes for widths <= 4 B, half-warps for 8 B,
 * quarter-warps for 16 B (NVIDIA's documented processing of 64/128-bit
 * accesses). Within a phase each lane's access covers one or more
 * `bank_width_bytes` words; lanes reading the same word share it
 * (broadcast), and the phase needs as many wavefronts as the largest number
 * of distinct words mapped to one bank. The total is the sum over phases. */
uint32_t ws_coalesce_smem_wavefronts(const uint64_t offsets[WS_WARP_LANES], uint32_t active_mask,
                                     uint32_t width_bytes, uint32_t banks, uint32_t bank_width_bytes);

#endif
