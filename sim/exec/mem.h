/* mem.h - the device's sparse 64-bit global address space.
 *
 * Design: allocations live at distinct, never-reused virtual ranges separated
 * by unmapped guard gaps, so an out-of-bounds or use-after-free access always
 * lands on no allocation and is reported, as compute-sanitizer does. Backing
 * host memory is allocated per 64 KiB page on first write, so a 40 GiB
 * allocation costs nothing until touched and unwritten pages read as zero. */
#ifndef WS_MEM_H
#define WS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

typedef struct ws_mem ws_mem;

typedef enum ws_mem_fault {
  WS_MEM_OK,
  WS_MEM_UNMAPPED,   /* no allocation covers the address */
  WS_MEM_FREED,      /* the address belonged to a freed allocation */
  WS_MEM_MISALIGNED, /* not aligned to the access size */
  WS_MEM_NOMEM,      /* host memory for a page could not be allocated */
  WS_MEM_FAULT_COUNT
} ws_mem_fault;

ws_mem *ws_mem_create(uint64_t capacity_bytes);
void ws_mem_destroy(ws_mem *mem);

/* size 0 is an error; allocations are 256-byte aligned (as cudaMalloc). */
ws_status ws_mem_alloc(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr);
/* Mapped (zero-copy) host memory: page-locked host bytes the device
 * addresses directly, at WS_CFG_SYSMEM_BASE and above (sim/common/config.h),
 * where the timing model sends accesses over the host link instead of the
 * caches and DRAM. It does not count against the device's capacity; all of
 * it together is at most WS_MEM_HOST_MAX_BYTES. Freed with ws_mem_free. */
#define WS_MEM_HOST_MAX_BYTES (64ull << 30)
/* Managed (unified) memory: one address for host and device, at
 * WS_CFG_MANAGED_BASE and above, whose pages the timing model migrates
 * between them on demand (sim/memsys/uvm.h). Counted apart from device
 * allocations (the migrated pages take device memory only while resident);
 * all of it together is at most WS_MEM_MANAGED_MAX_BYTES. Freed with
 * ws_mem_free. */
#define WS_MEM_MANAGED_MAX_BYTES (64ull << 30)
ws_status ws_mem_alloc_managed(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr);
ws_status ws_mem_alloc_host(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr);
/* addr must be the start of a live allocation. */
ws_status ws_mem_free(ws_mem *mem, ws_ctx *ctx, uint64_t addr);

/* Kernel accesses: size 1..16 bytes, must be size-aligned. */
ws_mem_fault ws_mem_read(ws_mem *mem, uint64_t addr, void *dst, uint32_t size_bytes);
ws_mem_fault ws_mem_write(ws_mem *mem, uint64_t addr, const void *src, uint32_t size_bytes);

/* Host bytes for a whole warp's access at once: when [addr, addr+size)
 * lies inside one live allocation and one 64 KiB page, returns true and sets
 * *bytes to addr's host byte, the page backed first when `write` (a page
 * never written, read: *bytes is NULL and the range reads as zero).
 * Returns false, having changed nothing visible, otherwise or when host
 * memory for the page ran out: the caller then goes lane by lane through
 * ws_mem_read/ws_mem_write, which report the fault. */
bool ws_mem_page_span(ws_mem *mem, uint64_t addr, uint64_t size_bytes, bool write, uint8_t **bytes);

/* Host copies of any size within one live allocation. */
ws_status ws_mem_copy_in(ws_mem *mem, ws_ctx *ctx, uint64_t dst, const void *src, uint64_t size_bytes);
ws_status ws_mem_copy_out(ws_mem *mem, ws_ctx *ctx, void *dst, uint64_t src, uint64_t size_bytes);
ws_status ws_mem_fill(ws_mem *mem, ws_ctx *ctx, uint64_t dst, uint8_t value, uint64_t size_bytes);

/* Initialization tracking, for the init check: allocations made while it is
 * on remember which bytes the host (copy_in, fill) or a kernel
 * (ws_mem_mark_init) wrote, one bit per byte, kept per page touched; turning
 * it off forgets every record. Allocations made before it was turned on
 * count as fully written, so turning it on late never reports a false read. */
void ws_mem_set_track_init(ws_mem *mem, bool on);
/* Marks [addr, addr+size) of a live allocation written; false when host
 * memory for the record ran out. Untracked ranges are ignored. */
bool ws_mem_mark_init(ws_mem *mem, uint64_t addr, uint64_t size_bytes);
/* Whether [addr, addr+size) of a live allocation holds a byte never written;
 * *first is then the lowest such address. */
bool ws_mem_find_uninit(ws_mem *mem, uint64_t addr, uint64_t size_bytes, uint64_t *first);

/* WS_OK when [addr, addr+size) lies inside one live allocation; otherwise
 * WS_ERR_INVALID with "WHAT of N bytes at ADDR: why" on ctx. */
ws_status ws_mem_check_range(ws_mem *mem, ws_ctx *ctx, const char *what, uint64_t addr, uint64_t size_bytes);

uint64_t ws_mem_allocated_bytes(const ws_mem *mem); /* live allocations */
/* The most the live allocations have held at once since the memory was made. */
uint64_t ws_mem_peak_allocated_bytes(const ws_mem *mem);
uint64_t ws_mem_resident_bytes(const ws_mem *mem); /* touched pages */
const char *ws_mem_fault_name(ws_mem_fault f);
/* Why an access at addr failed with f, for fault reports: e.g. "address was
 * freed (it lay in the 4096-byte allocation at 0x...)". Writes into buf. */
void ws_mem_explain(ws_mem *mem, uint64_t addr, ws_mem_fault f, char *buf, size_t size);

#endif
