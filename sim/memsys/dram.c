/* dram.c - HBM channel controllers: mapping, FR-FCFS, bank timing.
 *
 * Design: per channel a small array queue in arrival order (so "oldest" is
 * the lowest index and FR-FCFS is one scan of at most queue_depth entries)
 * and per bank the open row, the cycle of its last ACT (for tRAS) and the
 * cycle it can take its next column command. Open-page policy: a row stays
 * open until a request to another row of the bank needs the bank.
 * Mapping: channel = digit sum of the line number in base `channels`, mod
 * channels, so any stride that is a power of the channel count rotates over
 * the channels instead of camping on one; within a channel, consecutive
 * lines fill a row, rows rotate over banks with the same skew. Both steps
 * are bijections, so two lines never share a (channel, bank, row, column). */
#include "sim/memsys/dram.h"
#include "sim/memsys/addrmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct qent {
  uint32_t id;
  uint32_t bank;
  uint64_t row;
  uint32_t bytes;
  bool is_write;
} qent;

typedef struct bank {
  bool open;
  uint64_t row;
  uint64_t act_cycle;   /* last ACT: no PRE before act_cycle + tRAS */
  uint64_t ready_cycle; /* next column command may issue */
} bank;

typedef struct chan_stats {
  uint64_t reads, writes, row_hits, row_misses, row_conflicts, bytes_read, bytes_written;
  uint64_t busy_cycles;
} chan_stats;

typedef struct channel {
  qent *queue; /* queue_depth entries, [0, count) in arrival order */
  uint32_t count;
  uint32_t reserved; /* slots claimed, queued or still travelling to the controller */
  bank *banks;
  uint64_t bus_free_fp; /* data bus free from, in 1/65536 cycles */
  uint64_t busy_fp;     /* total transfer time, in 1/65536 cycles */
  chan_stats st;
} channel;

struct ws_dram {
  uint32_t channels, banks, queue_depth;
  uint64_t t_rcd, t_cl, t_rp, t_ras; /* core cycles */
  ws_gpu_cfg cfg;
  ws_addrmap map;
  channel *ch;
};

uint64_t ws_dram_bus_cycles(const ws_gpu_cfg *cfg, uint32_t bytes) {
  uint64_t burst = cfg->hbm.burst_bytes;
  uint64_t moved = (bytes + burst - 1) / burst * burst;
  uint64_t mbps = cfg->hbm.channel_mbps;
  return (moved * cfg->gpu.core_clock_mhz + mbps - 1) / mbps;
}

#define BUS_FRAC_BITS 16
#define BUS_FRAC_ONE (1ull << BUS_FRAC_BITS)

/* Transfer time of `bytes` in 1/65536 cycles, rounded up, so one transfer
 * on an idle bus ends exactly when ws_dram_bus_cycles says. */
static uint64_t bus_fp(const ws_gpu_cfg *cfg, uint32_t bytes) {
  uint64_t burst = cfg->hbm.burst_bytes;
  uint64_t moved = (bytes + burst - 1) / burst * burst;
  uint64_t mbps = cfg->hbm.channel_mbps;
  return (((moved * cfg->gpu.core_clock_mhz) << BUS_FRAC_BITS) + mbps - 1) / mbps;
}

static ws_status register_stats(ws_dram *d, ws_ctx *ctx, ws_stats *s) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < d->channels && st == WS_OK; i++) {
    chan_stats *c = &d->ch[i].st;
    const ws_stat_def defs[] = {
        {&c->reads, "reads", "read requests served"},
        {&c->writes, "writes", "write requests served (L2 write-backs)"},
        {&c->row_hits, "row_hits", "requests to the open row (tCL)"},
        {&c->row_misses, "row_misses", "requests to a bank with no open row (tRCD + tCL)"},
        {&c->row_conflicts, "row_conflicts", "requests to another row than the open one (tRP + tRCD + tCL)"},
        {&c->bytes_read, "bytes_read", "bytes moved on the bus for reads (whole bursts)"},
        {&c->bytes_written, "bytes_written", "bytes moved on the bus for writes (whole bursts)"},
        {&c->busy_cycles, "busy_cycles", "core cycles the channel data bus was transferring"},
    };
    st = ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "hbm.ch%u.", i);
  }
  return st;
}

static ws_status alloc_channels(ws_dram *d, ws_ctx *ctx) {
  d->ch = calloc(d->channels, sizeof *d->ch);
  if (!d->ch) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "hbm: out of memory");
  for (uint32_t i = 0; i < d->channels; i++) {
    d->ch[i].queue = calloc(d->queue_depth, sizeof(qent));
    d->ch[i].banks = calloc(d->banks, sizeof(bank));
    if (!d->ch[i].queue || !d->ch[i].banks) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "hbm: out of memory");
  }
  return WS_OK;
}

ws_status ws_dram_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_dram **out) {
  *out = NULL;
  ws_dram *d = calloc(1, sizeof *d);
  if (!d) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "hbm: out of memory");
  d->cfg = *cfg;
  d->channels = cfg->hbm.channels;
  d->banks = cfg->hbm.banks_per_channel;
  d->queue_depth = cfg->hbm.queue_depth;
  ws_addrmap_init(&d->map, cfg);
  d->t_rcd = cfg->geom.hbm_t_rcd_cycles;
  d->t_cl = cfg->geom.hbm_t_cl_cycles;
  d->t_rp = cfg->geom.hbm_t_rp_cycles;
  d->t_ras = cfg->geom.hbm_t_ras_cycles;
  ws_status st = alloc_channels(d, ctx);
  if (st == WS_OK) st = register_stats(d, ctx, stats);
  if (st != WS_OK) {
    ws_dram_destroy(d);
    return st;
  }
  *out = d;
  return WS_OK;
}

void ws_dram_destroy(ws_dram *d) {
  if (!d) return;
  for (uint32_t i = 0; d->ch && i < d->channels; i++) {
    free(d->ch[i].banks);
    free(d->ch[i].queue);
  }
  free(d->ch);
  free(d);
}

void ws_dram_reset(ws_dram *d) {
  for (uint32_t i = 0; i < d->channels; i++) {
    channel *c = &d->ch[i];
    c->count = c->reserved = 0;
    c->bus_free_fp = 0;
    c->busy_fp = 0;
    memset(c->banks, 0, d->banks * sizeof *c->banks);
  }
}

uint32_t ws_dram_channel(const ws_dram *d, uint64_t line_addr) {
  return ws_addrmap_channel(&d->map, line_addr);
}

void ws_dram_locate(const ws_dram *d, uint64_t line_addr, uint32_t *bank_out, uint64_t *row) {
  ws_addrmap_bank_row(&d->map, line_addr, bank_out, row);
}

bool ws_dram_reserve(ws_dram *d, uint32_t ch) {
  if (d->ch[ch].reserved >= d->queue_depth) return false;
  d->ch[ch].reserved++;
  return true;
}

uint32_t ws_dram_occupancy(const ws_dram *d, uint32_t ch) { return d->ch[ch].reserved; }

void ws_dram_enqueue(ws_dram *d, uint32_t ch, uint32_t id, uint64_t line_addr, uint32_t bytes,
                     bool is_write) {
  channel *c = &d->ch[ch];
  qent *e = &c->queue[c->count++];
  e->id = id;
  e->bytes = bytes;
  e->is_write = is_write;
  ws_dram_locate(d, line_addr, &e->bank, &e->row);
}

/* Index of the FR-FCFS choice among entries whose bank is ready, or -1. */
static int pick(const ws_dram *d, const channel *c, uint64_t now) {
  int oldest = -1;
  for (uint32_t i = 0; i < c->count; i++) {
    const qent *e = &c->queue[i];
    const bank *b = &c->banks[e->bank];
    if (b->ready_cycle > now) continue;
    if (b->open && b->row == e->row) return (int)i;
    if (oldest < 0) oldest = (int)i;
  }
  (void)d;
  return oldest;
}

/* Cycle of the column command for `e` issued at `now`, opening its row as
 * needed, with the row-buffer outcome counted. */
static uint64_t column_cycle(ws_dram *d, channel *c, const qent *e, uint64_t now, uint8_t *outcome) {
  bank *b = &c->banks[e->bank];
  if (b->open && b->row == e->row) {
    c->st.row_hits++;
    *outcome = WS_PROBE_ROW_HIT;
    return now;
  }
  uint64_t act = now;
  *outcome = b->open ? WS_PROBE_ROW_CONFLICT : WS_PROBE_ROW_MISS;
  if (b->open) {
    c->st.row_conflicts++;
    uint64_t pre = now > b->act_cycle + d->t_ras ? now : b->act_cycle + d->t_ras;
    act = pre + d->t_rp;
  } else {
    c->st.row_misses++;
  }
  b->open = true;
  b->row = e->row;
  b->act_cycle = act;
  return act + d->t_rcd;
}

static ws_dram_issue issue(ws_dram *d, channel *c, uint32_t idx, uint64_t now) {
  qent e = c->queue[idx];
  memmove(&c->queue[idx], &c->queue[idx + 1], (c->count - idx - 1) * sizeof(qent));
  c->count--;
  c->reserved--;
  uint8_t outcome;
  uint64_t col = column_cycle(d, c, &e, now, &outcome);
  uint64_t bus = ws_dram_bus_cycles(&d->cfg, e.bytes);
  /* the bank takes its next column command once this burst has gone (tCCD ~ burst time) */
  c->banks[e.bank].ready_cycle = col + bus;
  /* The bus is booked in 1/65536-cycle units: a transfer rarely lasts a whole
   * number of core cycles, and rounding every one up would cap a channel
   * below its peak (a 128-byte line at 4.64 cycles would take 5). */
  uint64_t data_fp = (col + d->t_cl) << BUS_FRAC_BITS;
  uint64_t start_fp = data_fp > c->bus_free_fp ? data_fp : c->bus_free_fp;
  c->bus_free_fp = start_fp + bus_fp(&d->cfg, e.bytes);
  c->busy_fp += c->bus_free_fp - start_fp;
  c->st.busy_cycles = c->busy_fp >> BUS_FRAC_BITS;
  uint64_t done = (c->bus_free_fp + BUS_FRAC_ONE - 1) >> BUS_FRAC_BITS;
  uint64_t moved =
      bus ? (e.bytes + d->cfg.hbm.burst_bytes - 1) / d->cfg.hbm.burst_bytes * d->cfg.hbm.burst_bytes : 0;
  if (e.is_write) {
    c->st.writes++;
    c->st.bytes_written += moved;
  } else {
    c->st.reads++;
    c->st.bytes_read += moved;
  }
  return (ws_dram_issue){.id = e.id,
                         .is_write = e.is_write,
                         .row_outcome = outcome,
                         .bank = e.bank,
                         .bytes = e.bytes,
                         .row = e.row,
                         .done_cycle = done};
}

static uint64_t next_wake(const channel *c, uint64_t now) {
  uint64_t wake = UINT64_MAX;
  for (uint32_t i = 0; i < c->count; i++) {
    uint64_t r = c->banks[c->queue[i].bank].ready_cycle;
    if (r <= now) r = now + 1;
    if (r < wake) wake = r;
  }
  return wake;
}

uint32_t ws_dram_schedule(ws_dram *d, uint32_t ch, uint64_t now, ws_dram_issue *out, uint32_t max_out,
                          uint64_t *wake_cycle) {
  channel *c = &d->ch[ch];
  uint32_t n = 0;
  while (n < max_out) {
    int idx = pick(d, c, now);
    if (idx < 0) break;
    out[n++] = issue(d, c, (uint32_t)idx, now);
  }
  *wake_cycle = next_wake(c, now);
  return n;
}
