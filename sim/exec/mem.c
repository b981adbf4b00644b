/* mem.c - sparse device memory: bump-allocated ranges, lazily backed pages.
 *
 * Design: each allocation is a record {base, size, live, page table} kept in
 * an array sorted by base. Device, managed and mapped host memory each have
 * a range of addresses of their own, in that order, and within each the
 * bases only grow (bump allocation with a 64 KiB unmapped guard gap after
 * every range, never reused), so inserting a record at the end of its
 * range's run keeps the array sorted and a lookup is a binary search; a
 * one-entry cache of the last
 * record hit makes the common streaming case O(1). Freed records stay in the
 * array, flagged, so a later access is reported as use-after-free rather
 * than as a wild address. Pages (64 KiB, relative to the allocation base) are
 * calloc'd on first write; because bases are 256-byte aligned, a size-aligned
 * access of at most 16 bytes never straddles two pages. */
#include "sim/exec/mem.h"

#include "sim/common/config.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VA_BASE 0x0000700000000000ull
/* managed memory and mapped host memory lie in ranges of their own, above
 * every device address, in that order */
#define MANAGED_VA_BASE WS_CFG_MANAGED_BASE
#define HOST_VA_BASE WS_CFG_SYSMEM_BASE
#define GUARD_BYTES (64ull * 1024u)
#define ALIGN_BYTES 256ull
#define PAGE_SHIFT 16
#define PAGE_BYTES (1ull << PAGE_SHIFT)

typedef struct alloc_rec {
  uint64_t base;
  uint64_t size_bytes;
  uint8_t **pages; /* NULL once freed */
  uint8_t **init;  /* per page, 1 bit per written byte; NULL: not tracked */
  uint64_t npages;
  bool live;
} alloc_rec;

struct ws_mem {
  uint64_t capacity_bytes;
  uint64_t allocated_bytes;
  uint64_t peak_allocated_bytes; /* the most allocated_bytes has been */
  uint64_t resident_pages;
  uint64_t next_base;
  uint64_t host_bytes, next_host_base;       /* mapped host memory (ws_mem_alloc_host) */
  uint64_t managed_bytes, next_managed_base; /* managed memory (ws_mem_alloc_managed) */
  size_t nhost, nmanaged; /* their records: the last nhost of recs, the nmanaged before them */
  alloc_rec *recs;
  size_t nrecs, cap_recs;
  /* index into recs, valid when nrecs > 0; relaxed atomic: the threads of
   * a sampled launch's gap read memory at once (sim/gpu/engine.c), and any
   * index one of them leaves is a valid hint */
  _Atomic size_t last_hit;
  bool track_init; /* new allocations get init records */
};

ws_mem *ws_mem_create(uint64_t capacity_bytes) {
  ws_mem *mem = calloc(1, sizeof *mem);
  if (!mem) return NULL;
  mem->capacity_bytes = capacity_bytes;
  mem->next_base = VA_BASE;
  mem->next_host_base = HOST_VA_BASE;
  mem->next_managed_base = MANAGED_VA_BASE;
  return mem;
}

static void release_init(alloc_rec *r) {
  if (!r->init) return;
  for (uint64_t i = 0; i < r->npages; i++) free(r->init[i]);
  free(r->init);
  r->init = NULL;
}

static void release_pages(ws_mem *mem, alloc_rec *r) {
  release_init(r);
  if (!r->pages) return;
  for (uint64_t i = 0; i < r->npages; i++) {
    if (r->pages[i]) mem->resident_pages--;
    free(r->pages[i]);
  }
  free(r->pages);
  r->pages = NULL;
}

void ws_mem_destroy(ws_mem *mem) {
  if (!mem) return;
  for (size_t i = 0; i < mem->nrecs; i++) release_pages(mem, &mem->recs[i]);
  free(mem->recs);
  free(mem);
}

static bool grow_recs(ws_mem *mem) {
  if (mem->nrecs < mem->cap_recs) return true;
  size_t cap = mem->cap_recs ? mem->cap_recs * 2 : 16;
  alloc_rec *recs = realloc(mem->recs, cap * sizeof *recs);
  if (!recs) return false;
  mem->recs = recs;
  mem->cap_recs = cap;
  return true;
}

/* A record of size_bytes at `base`, inserted at recs[at] (which keeps the
 * array sorted: device records come before the mapped host ones). */
static ws_status add_rec(ws_mem *mem, ws_ctx *ctx, uint64_t base, uint64_t size_bytes, size_t at) {
  uint64_t npages = (size_bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
  uint8_t **pages = calloc((size_t)npages, sizeof *pages);
  uint8_t **init = mem->track_init ? calloc((size_t)npages, sizeof *init) : NULL;
  if (!pages || (mem->track_init && !init) || !grow_recs(mem)) {
    free(pages);
    free(init);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted allocating a page table");
  }
  memmove(&mem->recs[at + 1], &mem->recs[at], (mem->nrecs - at) * sizeof *mem->recs);
  mem->nrecs++;
  atomic_store_explicit(&mem->last_hit, at, memory_order_relaxed);
  mem->recs[at] = (alloc_rec){
      .base = base, .size_bytes = size_bytes, .pages = pages, .init = init, .npages = npages, .live = true};
  return WS_OK;
}

static uint64_t span_of(uint64_t size_bytes) {
  return ((size_bytes + ALIGN_BYTES - 1) & ~(ALIGN_BYTES - 1)) + GUARD_BYTES;
}

ws_status ws_mem_alloc(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr) {
  if (size_bytes == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "cannot allocate 0 bytes");
  if (size_bytes > mem->capacity_bytes - mem->allocated_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "out of device memory: requested %" PRIu64 " bytes, %" PRIu64 " of %" PRIu64
                       " bytes in use",
                       size_bytes, mem->allocated_bytes, mem->capacity_bytes);
  if (span_of(size_bytes) > MANAGED_VA_BASE - mem->next_base)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "device address space exhausted: too many allocations");
  ws_status st = add_rec(mem, ctx, mem->next_base, size_bytes, mem->nrecs - mem->nhost - mem->nmanaged);
  if (st != WS_OK) return st;
  *addr = mem->next_base;
  mem->next_base += span_of(size_bytes);
  mem->allocated_bytes += size_bytes;
  if (mem->allocated_bytes > mem->peak_allocated_bytes) mem->peak_allocated_bytes = mem->allocated_bytes;
  return WS_OK;
}

ws_status ws_mem_alloc_managed(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr) {
  if (size_bytes == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "cannot allocate 0 bytes");
  if (size_bytes > WS_MEM_MANAGED_MAX_BYTES - mem->managed_bytes ||
      span_of(size_bytes) > HOST_VA_BASE - mem->next_managed_base)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "out of managed memory: requested %" PRIu64 " bytes, %" PRIu64 " of %" PRIu64
                       " bytes in use",
                       size_bytes, mem->managed_bytes, (uint64_t)WS_MEM_MANAGED_MAX_BYTES);
  ws_status st = add_rec(mem, ctx, mem->next_managed_base, size_bytes, mem->nrecs - mem->nhost);
  if (st != WS_OK) return st;
  *addr = mem->next_managed_base;
  mem->next_managed_base += span_of(size_bytes);
  mem->managed_bytes += size_bytes;
  mem->nmanaged++;
  return WS_OK;
}

ws_status ws_mem_alloc_host(ws_mem *mem, ws_ctx *ctx, uint64_t size_bytes, uint64_t *addr) {
  if (size_bytes == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "cannot allocate 0 bytes");
  if (size_bytes > WS_MEM_HOST_MAX_BYTES - mem->host_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "out of mapped host memory: requested %" PRIu64 " bytes, %" PRIu64 " of %" PRIu64
                       " bytes in use",
                       size_bytes, mem->host_bytes, (uint64_t)WS_MEM_HOST_MAX_BYTES);
  ws_status st = add_rec(mem, ctx, mem->next_host_base, size_bytes, mem->nrecs);
  if (st != WS_OK) return st;
  *addr = mem->next_host_base;
  mem->next_host_base += span_of(size_bytes);
  mem->host_bytes += size_bytes;
  mem->nhost++;
  return WS_OK;
}

/* Index of the last record whose base is <= addr, or -1. */
static long find_rec(ws_mem *mem, uint64_t addr) {
  size_t lo = 0, hi = mem->nrecs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (mem->recs[mid].base <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

/* The record containing [addr, addr+size), whether live or not; NULL when
 * the range is not inside one record. */
static alloc_rec *lookup(ws_mem *mem, uint64_t addr, uint64_t size_bytes) {
  if (mem->nrecs) {
    alloc_rec *c = &mem->recs[atomic_load_explicit(&mem->last_hit, memory_order_relaxed)];
    if (addr - c->base < c->size_bytes && size_bytes <= c->size_bytes - (addr - c->base)) return c;
  }
  long i = find_rec(mem, addr);
  if (i < 0) return NULL;
  alloc_rec *r = &mem->recs[i];
  if (addr - r->base >= r->size_bytes || size_bytes > r->size_bytes - (addr - r->base)) return NULL;
  atomic_store_explicit(&mem->last_hit, (size_t)i, memory_order_relaxed);
  return r;
}

ws_status ws_mem_free(ws_mem *mem, ws_ctx *ctx, uint64_t addr) {
  long i = find_rec(mem, addr);
  if (i < 0 || mem->recs[i].base != addr)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "free of 0x%016" PRIx64 ": not the start of any allocation",
                       addr);
  alloc_rec *r = &mem->recs[i];
  if (!r->live)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "double free of the allocation at 0x%016" PRIx64, addr);
  release_pages(mem, r);
  r->live = false;
  if (r->base >= HOST_VA_BASE)
    mem->host_bytes -= r->size_bytes;
  else if (r->base >= MANAGED_VA_BASE)
    mem->managed_bytes -= r->size_bytes;
  else
    mem->allocated_bytes -= r->size_bytes;
  return WS_OK;
}

/* The page holding base-relative offset `off`; NULL: never written. An
 * atomic load: another host thread may be installing it (touch_page). */
static uint8_t *page_at(const alloc_rec *r, uint64_t off) {
  return __atomic_load_n(&r->pages[off >> PAGE_SHIFT], __ATOMIC_ACQUIRE);
}

static ws_mem_fault check_access(ws_mem *mem, uint64_t addr, uint32_t size_bytes, alloc_rec **out) {
  if (size_bytes == 0 || size_bytes > 16 || (addr & (size_bytes - 1)) || (size_bytes & (size_bytes - 1)))
    return WS_MEM_MISALIGNED;
  alloc_rec *r = lookup(mem, addr, size_bytes);
  if (!r) return WS_MEM_UNMAPPED;
  if (!r->live) return WS_MEM_FREED;
  *out = r;
  return WS_MEM_OK;
}

ws_mem_fault ws_mem_read(ws_mem *mem, uint64_t addr, void *dst, uint32_t size_bytes) {
  alloc_rec *r = NULL;
  ws_mem_fault f = check_access(mem, addr, size_bytes, &r);
  if (f != WS_MEM_OK) return f;
  uint64_t off = addr - r->base;
  const uint8_t *page = page_at(r, off);
  if (page)
    memcpy(dst, page + (off & (PAGE_BYTES - 1)), size_bytes);
  else
    memset(dst, 0, size_bytes);
  return WS_MEM_OK;
}

/* The page holding base-relative offset `off`, allocated on first touch.
 * The timing model's SMs issue on several host threads (sim/gpu/team.h),
 * so two may touch a new page at once: the first to install its page wins
 * and the other frees its own. */
static uint8_t *touch_page(ws_mem *mem, alloc_rec *r, uint64_t off) {
  uint8_t **slot = &r->pages[off >> PAGE_SHIFT];
  uint8_t *page = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (page) return page;
  uint8_t *mine = calloc(1, PAGE_BYTES);
  if (!mine) return NULL;
  if (!__atomic_compare_exchange_n(slot, &page, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(mine);
    return page;
  }
  __atomic_fetch_add(&mem->resident_pages, 1, __ATOMIC_RELAXED);
  return mine;
}

ws_mem_fault ws_mem_write(ws_mem *mem, uint64_t addr, const void *src, uint32_t size_bytes) {
  alloc_rec *r = NULL;
  ws_mem_fault f = check_access(mem, addr, size_bytes, &r);
  if (f != WS_MEM_OK) return f;
  uint64_t off = addr - r->base;
  uint8_t *page = touch_page(mem, r, off);
  if (!page) return WS_MEM_NOMEM;
  memcpy(page + (off & (PAGE_BYTES - 1)), src, size_bytes);
  return WS_MEM_OK;
}

bool ws_mem_page_span(ws_mem *mem, uint64_t addr, uint64_t size_bytes, bool write, uint8_t **bytes) {
  if (size_bytes == 0 || size_bytes > PAGE_BYTES) return false;
  alloc_rec *r = lookup(mem, addr, size_bytes);
  if (!r || !r->live) return false;
  uint64_t off = addr - r->base;
  if (off >> PAGE_SHIFT != (off + size_bytes - 1) >> PAGE_SHIFT) return false;
  uint8_t *page = write ? touch_page(mem, r, off) : page_at(r, off);
  if (write && !page) return false;
  *bytes = page ? page + (off & (PAGE_BYTES - 1)) : NULL;
  return true;
}

/* Validates a host copy of [addr, addr+size) and returns its live record. */
static ws_status host_range(ws_mem *mem, ws_ctx *ctx, const char *what, uint64_t addr, uint64_t size_bytes,
                            alloc_rec **out) {
  long i = find_rec(mem, addr);
  alloc_rec *r = i < 0 ? NULL : &mem->recs[i];
  if (!r || addr - r->base >= r->size_bytes)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s of %" PRIu64 " bytes at 0x%016" PRIx64 ": address is not inside any allocation",
                       what, size_bytes, addr);
  if (!r->live)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s of %" PRIu64 " bytes at 0x%016" PRIx64 ": the %" PRIu64
                       "-byte allocation at 0x%016" PRIx64 " was freed",
                       what, size_bytes, addr, r->size_bytes, r->base);
  if (size_bytes > r->size_bytes - (addr - r->base))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s of %" PRIu64 " bytes at 0x%016" PRIx64 " runs past the end of the %" PRIu64
                       "-byte allocation at 0x%016" PRIx64,
                       what, size_bytes, addr, r->size_bytes, r->base);
  *out = r;
  return WS_OK;
}

/* Walks [off, off+size) of a record page by page: copy_in/out/fill share it.
 * dir: 0 = host -> device (src), 1 = device -> host (dst), 2 = fill. */
static ws_status walk_pages(ws_mem *mem, ws_ctx *ctx, alloc_rec *r, uint64_t off, uint8_t *host,
                            uint8_t value, uint64_t size_bytes, int dir) {
  while (size_bytes) {
    uint64_t in_page = off & (PAGE_BYTES - 1);
    uint64_t n = PAGE_BYTES - in_page < size_bytes ? PAGE_BYTES - in_page : size_bytes;
    uint8_t *page = r->pages[off >> PAGE_SHIFT];
    if (dir == 1) {
      if (page)
        memcpy(host, page + in_page, (size_t)n);
      else
        memset(host, 0, (size_t)n);
    } else if (page || dir == 0 || value != 0) {
      page = touch_page(mem, r, off);
      if (!page) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted backing a page");
      if (dir == 0)
        memcpy(page + in_page, host, (size_t)n);
      else
        memset(page + in_page, value, (size_t)n);
    }
    if (host) host += n;
    off += n;
    size_bytes -= n;
  }
  return WS_OK;
}

/* ---- initialization tracking ---------------------------------------------- */

void ws_mem_set_track_init(ws_mem *mem, bool on) {
  mem->track_init = on;
  if (!on)
    for (size_t i = 0; i < mem->nrecs; i++) release_init(&mem->recs[i]);
}

/* The init bitmap of the page holding offset `off`; NULL when none (with
 * `make`, only when host memory ran out). */
static uint8_t *init_page(alloc_rec *r, uint64_t off, bool make) {
  uint8_t **slot = &r->init[off >> PAGE_SHIFT];
  if (!*slot && make) *slot = calloc(1, PAGE_BYTES / 8);
  return *slot;
}

/* Sets bits [from, to) of one page's bitmap. */
static void set_bits(uint8_t *bits, uint64_t from, uint64_t to) {
  for (; from < to && (from & 7); from++) bits[from >> 3] |= (uint8_t)(1u << (from & 7));
  if (to - from >= 8) memset(bits + (from >> 3), 0xFF, (size_t)((to - from) >> 3));
  for (from += (to - from) & ~7ull; from < to; from++) bits[from >> 3] |= (uint8_t)(1u << (from & 7));
}

bool ws_mem_mark_init(ws_mem *mem, uint64_t addr, uint64_t size_bytes) {
  if (!mem->track_init) return true; /* no record has a bitmap: nothing to mark */
  alloc_rec *r = lookup(mem, addr, size_bytes);
  if (!r || !r->init) return true;
  for (uint64_t off = addr - r->base, end = off + size_bytes; off < end;) {
    uint8_t *bits = init_page(r, off, true);
    if (!bits) return false;
    uint64_t in_page = off & (PAGE_BYTES - 1);
    uint64_t n = PAGE_BYTES - in_page < end - off ? PAGE_BYTES - in_page : end - off;
    set_bits(bits, in_page, in_page + n);
    off += n;
  }
  return true;
}

bool ws_mem_find_uninit(ws_mem *mem, uint64_t addr, uint64_t size_bytes, uint64_t *first) {
  alloc_rec *r = lookup(mem, addr, size_bytes);
  if (!r || !r->init) return false;
  for (uint64_t off = addr - r->base, end = off + size_bytes; off < end; off++) {
    const uint8_t *bits = init_page(r, off, false);
    uint64_t b = off & (PAGE_BYTES - 1);
    if (!bits || !(bits[b >> 3] >> (b & 7) & 1u)) {
      *first = r->base + off;
      return true;
    }
  }
  return false;
}

/* After a host write: its bytes count as written. */
static ws_status host_marked(ws_mem *mem, ws_ctx *ctx, uint64_t dst, uint64_t size_bytes) {
  if (ws_mem_mark_init(mem, dst, size_bytes)) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted tracking initialized bytes");
}

ws_status ws_mem_copy_in(ws_mem *mem, ws_ctx *ctx, uint64_t dst, const void *src, uint64_t size_bytes) {
  if (size_bytes == 0) return WS_OK;
  alloc_rec *r = NULL;
  ws_status st = host_range(mem, ctx, "copy", dst, size_bytes, &r);
  if (st == WS_OK) st = walk_pages(mem, ctx, r, dst - r->base, (uint8_t *)(uintptr_t)src, 0, size_bytes, 0);
  return st == WS_OK ? host_marked(mem, ctx, dst, size_bytes) : st;
}

ws_status ws_mem_copy_out(ws_mem *mem, ws_ctx *ctx, void *dst, uint64_t src, uint64_t size_bytes) {
  if (size_bytes == 0) return WS_OK;
  alloc_rec *r = NULL;
  ws_status st = host_range(mem, ctx, "copy", src, size_bytes, &r);
  if (st != WS_OK) return st;
  return walk_pages(mem, ctx, r, src - r->base, dst, 0, size_bytes, 1);
}

ws_status ws_mem_fill(ws_mem *mem, ws_ctx *ctx, uint64_t dst, uint8_t value, uint64_t size_bytes) {
  if (size_bytes == 0) return WS_OK;
  alloc_rec *r = NULL;
  ws_status st = host_range(mem, ctx, "fill", dst, size_bytes, &r);
  if (st == WS_OK) st = walk_pages(mem, ctx, r, dst - r->base, NULL, value, size_bytes, 2);
  return st == WS_OK ? host_marked(mem, ctx, dst, size_bytes) : st;
}

uint64_t ws_mem_allocated_bytes(const ws_mem *mem) { return mem->allocated_bytes; }

uint64_t ws_mem_peak_allocated_bytes(const ws_mem *mem) { return mem->peak_allocated_bytes; }

uint64_t ws_mem_resident_bytes(const ws_mem *mem) { return mem->resident_pages * PAGE_BYTES; }

const char *ws_mem_fault_name(ws_mem_fault f) {
  static const char *const names[WS_MEM_FAULT_COUNT] = {"ok", "unmapped", "freed", "misaligned",
                                                        "out of host memory"};
  return (unsigned)f < WS_MEM_FAULT_COUNT ? names[f] : "?";
}

void ws_mem_explain(ws_mem *mem, uint64_t addr, ws_mem_fault f, char *buf, size_t size) {
  long i = find_rec(mem, addr);
  const alloc_rec *r = i < 0 ? NULL : &mem->recs[i];
  if (f == WS_MEM_MISALIGNED) {
    snprintf(buf, size, "address is not aligned to the access size");
  } else if (f == WS_MEM_NOMEM) {
    snprintf(buf, size, "host memory exhausted backing the page");
  } else if (r && addr - r->base < r->size_bytes && !r->live) {
    snprintf(buf, size, "address was freed (it lay in the %" PRIu64 "-byte allocation at 0x%016" PRIx64 ")",
             r->size_bytes, r->base);
  } else if (r && addr - r->base < r->size_bytes) {
    snprintf(buf, size, "access runs past the end of the %" PRIu64 "-byte allocation at 0x%016" PRIx64,
             r->size_bytes, r->base);
  } else if (r) {
    snprintf(buf, size,
             "address is past the end of any allocation: it is %" PRIu64
             " bytes after the nearest allocation at 0x%016" PRIx64 " of size %" PRIu64 " bytes%s",
             addr - r->base - r->size_bytes, r->base, r->size_bytes, r->live ? "" : " (freed)");
  } else {
    snprintf(buf, size, "address is below every allocation");
  }
}

ws_status ws_mem_check_range(ws_mem *mem, ws_ctx *ctx, const char *what, uint64_t addr, uint64_t size_bytes) {
  alloc_rec *r;
  return host_range(mem, ctx, what, addr, size_bytes, &r);
}
