/* uvm.c - managed memory: residency, fault batches, density prefetch and
 * eviction; see uvm.h. */
#include "sim/memsys/uvm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX
#define PAGE_SHIFT 12 /* faults are recorded per 4 KiB page */
#define MAX_RANGES 4096u

typedef struct chunk {
  uint32_t resident, pending, moving; /* per block of the chunk */
  uint64_t stamp;                     /* when it was first populated (eviction order) */
} chunk;

typedef struct range {
  uint64_t base, size_bytes;
} range;

struct ws_uvm {
  uint64_t block_bytes, chunk_bytes;
  uint32_t block_shift, blocks_per_chunk;
  uint32_t batch_faults, threshold_pct;
  uint64_t batch_cycles; /* the driver's fixed work per batch */
  const ws_gpu_cfg *cfg; /* for the link's time */
  chunk *chunks;         /* by (addr - WS_CFG_MANAGED_BASE) / chunk_bytes */
  size_t nchunks;
  range *ranges;
  size_t nranges, cap_ranges;
  uint64_t budget_bytes, resident_blocks, next_stamp;
  /* the batch machinery: the pending batch's 4 KiB faults (distinct), the
   * in-flight batch's end */
  uint64_t *pend_pages;
  uint32_t npend;
  uint64_t busy_until; /* NEVER: no batch in flight */
  bool start_planned;
  ws_uvm_totals totals;
  /* counters, per launch */
  uint64_t faults, batches, migrated_bytes, prefetched_bytes, evicted_bytes, fault_cycles, retries;
};

static uint32_t popcount32(uint32_t m) { return (uint32_t)__builtin_popcount(m); }

uint64_t ws_uvm_state_bytes(const ws_gpu_cfg *cfg) {
  return sizeof(ws_uvm) + (uint64_t)cfg->uvm.batch_faults * sizeof(uint64_t);
}

ws_status ws_uvm_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_uvm **out) {
  *out = NULL;
  ws_uvm *u = calloc(1, sizeof *u);
  if (u) u->pend_pages = calloc(cfg->uvm.batch_faults, sizeof *u->pend_pages);
  if (!u || !u->pend_pages) {
    free(u);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "uvm: out of memory");
  }
  u->cfg = cfg;
  u->block_bytes = cfg->uvm.migrate_bytes;
  u->chunk_bytes = cfg->uvm.chunk_bytes;
  u->block_shift = (uint32_t)__builtin_ctzll(u->block_bytes);
  u->blocks_per_chunk = (uint32_t)(u->chunk_bytes / u->block_bytes);
  u->batch_faults = cfg->uvm.batch_faults;
  u->threshold_pct = cfg->uvm.prefetch_threshold_pct;
  u->batch_cycles = cfg->geom.uvm_batch_cycles;
  u->budget_bytes = cfg->gpu.dram_size_bytes;
  u->busy_until = NEVER;
  const ws_stat_def defs[] = {
      {&u->faults, "faults", "distinct 4 KiB pages of managed memory that faulted, counted per batch"},
      {&u->batches, "batches", "fault batches the driver serviced"},
      {&u->migrated_bytes, "migrated_bytes",
       "bytes the batches moved host to device (faulted and prefetched)"},
      {&u->prefetched_bytes, "prefetched_bytes", "of those, the bytes the density prefetcher added"},
      {&u->evicted_bytes, "evicted_bytes", "bytes written back to the host to make room"},
      {&u->fault_cycles, "fault_cycles", "cycles the driver spent servicing batches"},
      {&u->retries, "retries", "accesses offered again while their block was still on its way"},
  };
  ws_status st = ws_stats_register_table(stats, ctx, defs, sizeof defs / sizeof defs[0], "uvm.");
  if (st != WS_OK) {
    ws_uvm_destroy(u);
    return st;
  }
  *out = u;
  return WS_OK;
}

void ws_uvm_destroy(ws_uvm *u) {
  if (!u) return;
  free(u->chunks);
  free(u->ranges);
  free(u->pend_pages);
  free(u);
}

/* ---- addresses ---------------------------------------------------------------------- */

static size_t chunk_of(const ws_uvm *u, uint64_t addr) {
  return (size_t)((addr - WS_CFG_MANAGED_BASE) / u->chunk_bytes);
}

static uint32_t block_in_chunk(const ws_uvm *u, uint64_t addr) {
  return (uint32_t)(((addr - WS_CFG_MANAGED_BASE) % u->chunk_bytes) >> u->block_shift);
}

static uint64_t block_addr(const ws_uvm *u, size_t c, uint32_t b) {
  return WS_CFG_MANAGED_BASE + (uint64_t)c * u->chunk_bytes + ((uint64_t)b << u->block_shift);
}

/* The blocks of chunk c that hold bytes of some managed range. */
static uint32_t mapped_blocks(const ws_uvm *u, size_t c) {
  uint32_t m = 0;
  uint64_t lo = block_addr(u, c, 0), hi = lo + u->chunk_bytes;
  for (size_t i = 0; i < u->nranges; i++) {
    const range *r = &u->ranges[i];
    if (r->base >= hi || r->base + r->size_bytes <= lo) continue;
    uint64_t a = r->base > lo ? r->base : lo, b = r->base + r->size_bytes < hi ? r->base + r->size_bytes : hi;
    for (uint32_t k = block_in_chunk(u, a); k <= block_in_chunk(u, b - 1); k++) m |= 1u << k;
  }
  return m;
}

/* ---- ranges ---------------------------------------------------------------------------- */

ws_status ws_uvm_add_range(ws_uvm *u, ws_ctx *ctx, uint64_t base, uint64_t size_bytes) {
  size_t need = chunk_of(u, base + size_bytes - 1) + 1;
  if (u->nranges == MAX_RANGES)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "at most %u managed allocations at once", MAX_RANGES);
  if (need > u->nchunks) {
    chunk *c = realloc(u->chunks, need * sizeof *c);
    if (!c) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "uvm: out of memory for %zu chunks", need);
    memset(c + u->nchunks, 0, (need - u->nchunks) * sizeof *c);
    u->chunks = c;
    u->nchunks = need;
  }
  if (u->nranges == u->cap_ranges) {
    size_t cap = u->cap_ranges ? u->cap_ranges * 2 : 8;
    range *r = realloc(u->ranges, cap * sizeof *r);
    if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "uvm: out of memory for ranges");
    u->ranges = r;
    u->cap_ranges = cap;
  }
  u->ranges[u->nranges++] = (range){base, size_bytes};
  return WS_OK;
}

/* Drops the blocks `mask` of chunk c from the device. */
static void drop(ws_uvm *u, size_t c, uint32_t mask) {
  chunk *ch = &u->chunks[c];
  u->resident_blocks -= popcount32(ch->resident & mask);
  ch->resident &= ~mask;
}

static void drop_span(ws_uvm *u, uint64_t addr, uint64_t size_bytes) {
  if (!size_bytes) return;
  for (uint64_t a = addr & ~(u->block_bytes - 1); a < addr + size_bytes; a += u->block_bytes) {
    size_t c = chunk_of(u, a);
    if (c < u->nchunks) drop(u, c, 1u << block_in_chunk(u, a));
  }
}

void ws_uvm_remove_range(ws_uvm *u, uint64_t base) {
  for (size_t i = 0; i < u->nranges; i++)
    if (u->ranges[i].base == base) {
      drop_span(u, base, u->ranges[i].size_bytes);
      u->ranges[i] = u->ranges[--u->nranges];
      return;
    }
}

void ws_uvm_count_retries(ws_uvm *u, uint64_t n) { u->retries += n; }

void ws_uvm_host_touch(ws_uvm *u, uint64_t addr, uint64_t size_bytes) { drop_span(u, addr, size_bytes); }

void ws_uvm_set_budget(ws_uvm *u, uint64_t bytes) { u->budget_bytes = bytes; }

uint64_t ws_uvm_resident_bytes(const ws_uvm *u) { return u->resident_blocks * u->block_bytes; }

ws_uvm_totals ws_uvm_get_totals(const ws_uvm *u) { return u->totals; }

bool ws_uvm_resident(const ws_uvm *u, uint64_t addr) {
  size_t c = chunk_of(u, addr);
  return c < u->nchunks && (u->chunks[c].resident >> block_in_chunk(u, addr) & 1u);
}

/* ---- the link ------------------------------------------------------------------------------ */

static uint64_t ns_cycles(const ws_uvm *u, uint64_t ns) {
  uint64_t mhz = u->cfg->gpu.core_clock_mhz;
  return (ns * mhz + 999u) / 1000u;
}

/* ---- eviction and migration ------------------------------------------------------------------ */

/* Evicts whole chunks, first populated first, other than those being moved
 * into, until `need` more blocks fit the budget; returns the bytes written
 * back. */
static uint64_t make_room(ws_uvm *u, uint64_t need) {
  uint64_t out = 0;
  uint64_t budget = u->budget_bytes / u->block_bytes;
  while (u->resident_blocks + need > budget) {
    size_t victim = SIZE_MAX;
    for (size_t c = 0; c < u->nchunks; c++) {
      const chunk *ch = &u->chunks[c];
      if (ch->resident && !ch->moving && (victim == SIZE_MAX || ch->stamp < u->chunks[victim].stamp))
        victim = c;
    }
    if (victim == SIZE_MAX) break; /* nothing left to evict: the batch overcommits */
    out += (uint64_t)popcount32(u->chunks[victim].resident) * u->block_bytes;
    drop(u, victim, UINT32_MAX);
  }
  return out;
}

/* Blocks `mask` of chunk c arrive. */
static void arrive(ws_uvm *u, size_t c, uint32_t mask) {
  chunk *ch = &u->chunks[c];
  if (!ch->resident) ch->stamp = ++u->next_stamp;
  mask &= ~ch->resident;
  ch->resident |= mask;
  u->resident_blocks += popcount32(mask);
}

/* ---- the density prefetcher ------------------------------------------------------------------ */

/* For each faulted block of chunk c (`faulted`), the largest aligned region
 * around it whose mapped blocks are resident or moving above the threshold
 * joins the migration. Returns the blocks to move. */
static uint32_t prefetch_regions(const ws_uvm *u, size_t c, uint32_t faulted) {
  const chunk *ch = &u->chunks[c];
  uint32_t mapped = mapped_blocks(u, c), move = faulted;
  if (u->threshold_pct >= 100) return move;
  for (uint32_t b = 0; b < u->blocks_per_chunk; b++) {
    if (!(faulted >> b & 1u)) continue;
    for (uint32_t n = 2; n <= u->blocks_per_chunk; n *= 2) {
      uint32_t first = b / n * n;
      uint32_t region = (n == 32 ? UINT32_MAX : ((1u << n) - 1u) << first) & mapped;
      uint32_t have = (ch->resident | faulted) & region;
      if ((uint64_t)popcount32(have) * 100u > (uint64_t)popcount32(region) * u->threshold_pct) move |= region;
    }
  }
  return move & ~ch->resident;
}

/* ---- batches ------------------------------------------------------------------------------------ */

void ws_uvm_reset_batches(ws_uvm *u) {
  for (size_t c = 0; c < u->nchunks; c++) u->chunks[c].pending = u->chunks[c].moving = 0;
  u->npend = 0;
  u->busy_until = NEVER;
  u->start_planned = false;
}

uint64_t ws_uvm_fault(ws_uvm *u, uint64_t addr, uint64_t cycle) {
  size_t c = chunk_of(u, addr);
  uint32_t bit = 1u << block_in_chunk(u, addr);
  chunk *ch = &u->chunks[c];
  u->retries++;
  if (ch->moving & bit) return NEVER; /* on its way */
  uint64_t page = addr >> PAGE_SHIFT;
  for (uint32_t i = 0; i < u->npend; i++)
    if (u->pend_pages[i] == page) return NEVER;
  if (u->npend == u->batch_faults) return NEVER; /* the fault buffer is full: it faults again later */
  u->retries--;
  u->pend_pages[u->npend++] = page;
  ch->pending |= bit;
  if (u->busy_until != NEVER || u->start_planned) return NEVER;
  u->start_planned = true;
  return cycle + 1; /* faults of this cycle join it */
}

uint64_t ws_uvm_batch_start(ws_uvm *u, uint64_t cycle) {
  u->start_planned = false;
  uint64_t in_blocks = 0, prefetched = 0;
  for (size_t c = 0; c < u->nchunks; c++) {
    chunk *ch = &u->chunks[c];
    if (!ch->pending) continue;
    uint32_t move = prefetch_regions(u, c, ch->pending & ~ch->resident);
    prefetched += popcount32(move & ~ch->pending);
    ch->moving |= move;
    ch->pending = 0;
    in_blocks += popcount32(move);
  }
  uint64_t out_bytes = make_room(u, in_blocks), in_bytes = in_blocks * u->block_bytes;
  uint64_t cycles = u->batch_cycles + ns_cycles(u, ws_config_pcie_dma_ns(&u->cfg->pcie, out_bytes)) +
                    ns_cycles(u, ws_config_pcie_dma_ns(&u->cfg->pcie, in_bytes));
  u->faults += u->npend, u->totals.faults += u->npend;
  u->npend = 0;
  u->batches++, u->totals.batches++;
  u->migrated_bytes += in_bytes, u->totals.migrated_bytes += in_bytes;
  u->prefetched_bytes += prefetched * u->block_bytes,
      u->totals.prefetched_bytes += prefetched * u->block_bytes;
  u->evicted_bytes += out_bytes, u->totals.evicted_bytes += out_bytes;
  u->fault_cycles += cycles, u->totals.fault_cycles += cycles;
  u->busy_until = cycle + cycles;
  return u->busy_until;
}

uint64_t ws_uvm_batch_done(ws_uvm *u, uint64_t cycle) {
  for (size_t c = 0; c < u->nchunks; c++) {
    chunk *ch = &u->chunks[c];
    if (!ch->moving) continue;
    arrive(u, c, ch->moving);
    ch->moving = 0;
  }
  u->busy_until = NEVER;
  if (!u->npend) return NEVER;
  u->start_planned = true;
  return cycle;
}

void ws_uvm_prefetch(ws_uvm *u, uint64_t addr, uint64_t size_bytes, uint64_t *in_bytes, uint64_t *out_bytes) {
  uint64_t need = 0;
  *in_bytes = *out_bytes = 0;
  if (!size_bytes) return;
  uint64_t first = addr & ~(u->block_bytes - 1), end = addr + size_bytes;
  for (uint64_t a = first; a < end; a += u->block_bytes) need += !ws_uvm_resident(u, a);
  *out_bytes = make_room(u, need);
  for (uint64_t a = first; a < end; a += u->block_bytes) {
    size_t c = chunk_of(u, a);
    if (c < u->nchunks) arrive(u, c, 1u << block_in_chunk(u, a));
  }
  *in_bytes = need * u->block_bytes;
  u->totals.hinted_bytes += *in_bytes;
  u->totals.evicted_bytes += *out_bytes;
}
