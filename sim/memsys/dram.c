/* dram.c - HBM channel controllers: FR-FCFS scheduling, bank timing, the
 * JEDEC rules between commands, refresh and write batching. Where a line
 * lives (channel, bank, row) is sim/memsys/addrmap.c's answer, asked once
 * per request.
 *
 * Design: per channel a small array queue in arrival order (so "oldest" is
 * the lowest index and FR-FCFS is one scan of at most queue_depth entries)
 * and per bank the open row, the cycle of its last ACT (for tRAS) and the
 * cycle it can take its next column command. Open-page policy: a row stays
 * open until a request to another row of the bank needs the bank.
 * JEDEC rules between the commands of a channel (each 0 when the preset
 * leaves it out): column to column tCCD_S/tCCD_L and activate to activate
 * tRRD_S/tRRD_L by bank group (bank b in group b mod bank_groups), four
 * activates per tFAW, the read-to-write and write-to-read turnarounds, and
 * all-bank refresh: one tRFC per tREFI, taken when due if the channel is
 * idle, postponed while it is busy (JEDEC allows eight) and forced at the
 * eighth; refreshes that fell in an idle stretch were done then. Per-bank
 * refresh (hbm.t_rfcsb_ps) instead takes one bank at a time, in turn, every
 * tREFI / banks: that bank's row closes and it waits tRFCsb while the others
 * go on, so nothing is postponed. With write
 * watermarks, writes wait while reads are queued until write_high of them
 * are, then go first until write_low are left, so the bus turns around
 * once per batch instead of at every mixed pair. */
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
  uint64_t busy_cycles, refreshes, turnarounds;
  uint64_t end_bytes_written;
} chan_stats;

#define FAW_ACTS 4      /* tFAW bounds this many activates per pseudo-channel */
#define ACT_HIST 16     /* booked activates the rules look at: more than any window holds */
#define MAX_POSTPONED 8 /* JEDEC: refreshes a controller may owe */

typedef struct channel {
  qent *queue; /* queue_depth entries, [0, count) in arrival order */
  uint32_t count;
  uint32_t reserved; /* slots claimed, queued or still travelling to the controller */
  bank *banks;
  uint64_t bus_free_fp; /* data bus free from, in 1/65536 cycles */
  uint64_t busy_fp;     /* total transfer time, in 1/65536 cycles */
  /* the JEDEC rules' memory: the last column command and activate, the
   * last four activates, refresh, write draining */
  bool has_col, col_write, draining;
  uint32_t col_bg, writes, nacts;
  uint64_t col_cycle;
  uint64_t act_at[ACT_HIST]; /* the latest booked activates, sorted by time */
  uint32_t act_bg[ACT_HIST];
  uint64_t next_refresh; /* the next refresh is due (0: refresh off) */
  uint32_t next_rb;      /* per-bank refresh: the bank whose turn is next */
  uint64_t idle_from;    /* the channel has had nothing to do since (UINT64_MAX: busy) */
  chan_stats st;
} channel;

struct ws_dram {
  uint32_t channels, banks, queue_depth, bank_groups;
  uint32_t faw_acts; /* activates per tFAW window on one channel: FAW_ACTS per pseudo-channel */
  uint64_t t_rcd, t_cl, t_rp, t_ras; /* core cycles */
  uint64_t t_ccd_s, t_ccd_l, t_rrd_s, t_rrd_l, t_faw, t_wtr, t_rtw, t_refi, t_rfc;
  uint64_t t_rfcsb;      /* per-bank refresh (0: all-bank) */
  uint64_t refresh_step; /* between refreshes: t_refi, or t_refi / banks per bank */
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

/* A request's bytes on the bus: whole bursts. */
static void count_transfer(const ws_dram *d, channel *c, uint32_t bytes, bool is_write) {
  uint64_t burst = d->cfg.hbm.burst_bytes;
  uint64_t moved = (bytes + burst - 1) / burst * burst;
  if (is_write) {
    c->st.writes++;
    c->st.bytes_written += moved;
  } else {
    c->st.reads++;
    c->st.bytes_read += moved;
  }
}

void ws_dram_count_untimed(ws_dram *d, uint64_t line_addr, uint32_t bytes, bool is_write) {
  if (bytes) count_transfer(d, &d->ch[ws_dram_channel(d, line_addr)], bytes, is_write);
}

void ws_dram_count_end_write(ws_dram *d, uint64_t line_addr, uint32_t bytes) {
  uint64_t burst = d->cfg.hbm.burst_bytes;
  d->ch[ws_dram_channel(d, line_addr)].st.end_bytes_written += (bytes + burst - 1) / burst * burst;
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
        {&c->end_bytes_written, "end_bytes_written",
         "bytes of the L2's dirty lines written after the launch's last cycle (whole bursts, untimed)"},
        {&c->busy_cycles, "busy_cycles", "core cycles the channel data bus was transferring"},
        {&c->refreshes, "refreshes",
         "refreshes: all-bank (each closes every row for tRFC) or, with hbm.t_rfcsb_ps, per-bank (one "
         "bank for tRFCsb)"},
        {&c->turnarounds, "turnarounds",
         "column commands that turned the bus around (read after write or "
         "write after read)"},
    };
    st = ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "hbm.ch%u.", i);
    if (st != WS_OK) break;
    /* a sampled launch's L2 warming counts the traffic itself (ws_dram_count_untimed) */
    ws_stats_mark_counted_when_skipped(s, &c->reads);
    ws_stats_mark_counted_when_skipped(s, &c->bytes_read);
    ws_stats_mark_counted_in_loop_gaps(s, &c->writes);
    ws_stats_mark_counted_in_loop_gaps(s, &c->bytes_written);
  }
  return st;
}

uint64_t ws_dram_state_bytes(const ws_gpu_cfg *cfg) {
  uint64_t per_channel = sizeof(channel) + (uint64_t)cfg->hbm.queue_depth * sizeof(qent) +
                         (uint64_t)cfg->hbm.banks_per_channel * sizeof(bank);
  return sizeof(ws_dram) + per_channel * cfg->hbm.channels;
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
  d->bank_groups = cfg->hbm.bank_groups ? cfg->hbm.bank_groups : 1;
  d->faw_acts = FAW_ACTS * (cfg->hbm.pseudo_channels ? cfg->hbm.pseudo_channels : 1);
  d->t_ccd_s = cfg->geom.hbm_t_ccd_s_cycles, d->t_ccd_l = cfg->geom.hbm_t_ccd_l_cycles;
  d->t_rrd_s = cfg->geom.hbm_t_rrd_s_cycles, d->t_rrd_l = cfg->geom.hbm_t_rrd_l_cycles;
  d->t_faw = cfg->geom.hbm_t_faw_cycles, d->t_wtr = cfg->geom.hbm_t_wtr_cycles;
  d->t_rtw = cfg->geom.hbm_t_rtw_cycles;
  d->t_refi = cfg->geom.hbm_t_refi_cycles, d->t_rfc = cfg->geom.hbm_t_rfc_cycles;
  d->t_rfcsb = cfg->geom.hbm_t_rfcsb_cycles;
  d->refresh_step = d->t_rfcsb && d->t_refi / d->banks ? d->t_refi / d->banks : d->t_refi;
  ws_status st = alloc_channels(d, ctx);
  if (st == WS_OK) st = register_stats(d, ctx, stats);
  if (st != WS_OK) {
    ws_dram_destroy(d);
    return st;
  }
  ws_dram_reset(d);
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
    c->has_col = c->draining = false;
    c->writes = c->nacts = 0;
    c->next_refresh = d->refresh_step;
    c->next_rb = 0;
    c->idle_from = 0;
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
  c->writes += is_write;
  ws_dram_locate(d, line_addr, &e->bank, &e->row);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

enum { ANY = 2 }; /* a class for pick_class: reads (0), writes (1) or either */

/* Index of the FR-FCFS choice among the entries of class `cls` whose bank
 * is ready, or -1: the first row hit, else the oldest. */
static int pick_class(const channel *c, uint64_t now, int cls) {
  int oldest = -1;
  for (uint32_t i = 0; i < c->count; i++) {
    const qent *e = &c->queue[i];
    const bank *b = &c->banks[e->bank];
    if ((cls != ANY && e->is_write != cls) || b->ready_cycle > now) continue;
    if (b->open && b->row == e->row) return (int)i;
    if (oldest < 0) oldest = (int)i;
  }
  return oldest;
}

/* FR-FCFS over every entry without watermarks; with them, the class the
 * drain state prefers first, then the other. */
static int pick(const ws_dram *d, channel *c, uint64_t now) {
  uint32_t high = d->cfg.hbm.write_high, low = d->cfg.hbm.write_low;
  if (!high) return pick_class(c, now, ANY);
  if (c->writes >= high) c->draining = true;
  if (c->writes <= low) c->draining = false;
  bool first = c->draining || c->writes == c->count;
  int i = pick_class(c, now, first);
  return i >= 0 ? i : pick_class(c, now, !first);
}

/* Whether an activate of group bg at t keeps tRRD from its neighbours in
 * time and at most FAW_ACTS activates in every tFAW window. */
static bool act_fits(const ws_dram *d, const channel *c, uint32_t bg, uint64_t t) {
  uint32_t before = 0; /* booked activates earlier than t */
  for (uint32_t i = 0; i < c->nacts; i++) {
    uint64_t a = c->act_at[i], rrd = bg == c->act_bg[i] ? d->t_rrd_l : d->t_rrd_s;
    if ((a <= t ? t - a : a - t) < rrd) return false;
    before += a < t;
  }
  if (!d->t_faw) return true;
  /* the windows of faw_acts + 1 consecutive activates that hold t */
  uint32_t w = d->faw_acts;
  for (uint32_t k = 0; k <= w; k++) {
    if (k > before || before - k + w > c->nacts) continue;
    uint32_t first = before - k; /* index of the window's first booked activate */
    uint64_t lo = k ? c->act_at[first] : t, hi = k < w ? c->act_at[first + w - 1] : t;
    if (hi - lo < d->t_faw) return false;
  }
  return true;
}

/* The earliest activate at or after `act` that tRRD (by bank group) and
 * tFAW allow among the booked ones (a later decision may still go first
 * when there is room); books it. */
static uint64_t activate_rules(const ws_dram *d, channel *c, uint32_t bg, uint64_t act) {
  if (!d->t_rrd_s && !d->t_rrd_l && !d->t_faw) return act; /* no rules: nothing to keep */
  uint64_t t = act;
  if (!act_fits(d, c, bg, t)) {
    t = UINT64_MAX; /* the first release point after act that fits */
    for (uint32_t i = 0; i < c->nacts; i++) {
      uint64_t cand[2] = {c->act_at[i] + (bg == c->act_bg[i] ? d->t_rrd_l : d->t_rrd_s),
                          c->act_at[i] + d->t_faw};
      for (int j = 0; j < 2; j++)
        if (cand[j] >= act && cand[j] < t && act_fits(d, c, bg, cand[j])) t = cand[j];
    }
    if (t == UINT64_MAX) t = c->act_at[c->nacts - 1] + d->t_faw + d->t_rrd_l; /* after them all */
  }
  uint32_t n = c->nacts == ACT_HIST ? ACT_HIST - 1 : c->nacts, i = n;
  if (c->nacts == ACT_HIST) { /* forget the oldest */
    memmove(&c->act_at[0], &c->act_at[1], n * sizeof *c->act_at);
    memmove(&c->act_bg[0], &c->act_bg[1], n * sizeof *c->act_bg);
  }
  while (i > 0 && c->act_at[i - 1] > t) {
    c->act_at[i] = c->act_at[i - 1], c->act_bg[i] = c->act_bg[i - 1];
    i--;
  }
  c->act_at[i] = t, c->act_bg[i] = bg;
  c->nacts = n + 1;
  return t;
}

/* The spacing the bus needs from a column command of (bg, write) to the
 * next one of (bg2, write2). */
static uint64_t col_gap(const ws_dram *d, uint32_t bg, bool write, uint32_t bg2, bool write2) {
  if (write != write2) return write ? d->t_wtr : d->t_rtw;
  return bg == bg2 ? d->t_ccd_l : d->t_ccd_s;
}

/* The earliest column command at or after `col` that tCCD (by bank group)
 * and the bus turnarounds allow against the latest one booked: a command
 * decided later may still go first (a row hit while another bank opens its
 * row), when it fits before; books it. */
static uint64_t column_rules(const ws_dram *d, channel *c, uint32_t bg, bool write, uint64_t col) {
  if (!d->t_ccd_s && !d->t_ccd_l && !d->t_wtr && !d->t_rtw) { /* no rules: count the turnarounds only */
    c->st.turnarounds += c->has_col && write != c->col_write;
    c->has_col = true, c->col_write = write;
    return col;
  }
  if (!c->has_col) {
    c->has_col = true, c->col_cycle = col, c->col_bg = bg, c->col_write = write;
    return col;
  }
  if (write != c->col_write) c->st.turnarounds++;
  if (col + col_gap(d, bg, write, c->col_bg, c->col_write) <= c->col_cycle) return col; /* fits before */
  col = max_u64(col, c->col_cycle + col_gap(d, c->col_bg, c->col_write, bg, write));
  c->col_cycle = col, c->col_bg = bg, c->col_write = write;
  return col;
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
  act = activate_rules(d, c, e->bank % d->bank_groups, act);
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
  c->writes -= e.is_write;
  uint8_t outcome;
  uint64_t col = column_cycle(d, c, &e, now, &outcome);
  col = column_rules(d, c, e.bank % d->bank_groups, e.is_write, col);
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
  count_transfer(d, c, e.bytes, e.is_write);
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

/* ---- refresh ------------------------------------------------------------------------- */

/* One all-bank refresh from `at`: every row closes, every bank waits tRFC. */
static void refresh_at(const ws_dram *d, channel *c, uint64_t at) {
  for (uint32_t b = 0; b < d->banks; b++) at = max_u64(at, c->banks[b].ready_cycle);
  for (uint32_t b = 0; b < d->banks; b++) {
    c->banks[b].open = false;
    c->banks[b].ready_cycle = at + d->t_rfc;
  }
  c->next_refresh += d->t_refi;
  c->st.refreshes++;
}

/* Per-bank refreshes due by `now`, each from its due time or once its bank
 * is free: only that bank's row closes and only it waits. */
static void refresh_banks(const ws_dram *d, channel *c, uint64_t now) {
  while (c->next_refresh <= now) {
    bank *b = &c->banks[c->next_rb];
    b->open = false;
    b->ready_cycle = max_u64(c->next_refresh, b->ready_cycle) + d->t_rfcsb;
    c->next_rb = c->next_rb + 1 == d->banks ? 0 : c->next_rb + 1;
    c->next_refresh += d->refresh_step;
    c->st.refreshes++;
  }
}

/* Refreshes at the start of a scheduling pass at `now`: those due in the
 * idle stretch just ended were done then, if they were over by now; one
 * that would still be running is postponed rather than making the arrival
 * wait (JEDEC allows eight owed); a channel busy for eight intervals
 * refreshes now. */
static void refresh(const ws_dram *d, channel *c, uint64_t now) {
  if (!d->t_refi) return;
  while (c->idle_from != UINT64_MAX && c->next_refresh >= c->idle_from && c->next_refresh + d->t_rfc <= now) {
    for (uint32_t b = 0; b < d->banks; b++) c->banks[b].open = false;
    c->next_refresh += d->t_refi;
    c->st.refreshes++;
  }
  while (c->next_refresh + MAX_POSTPONED * d->t_refi <= now) refresh_at(d, c, now);
}

/* The channel has nothing to do from `idle`: it pays what it owes first. */
static uint64_t go_idle(const ws_dram *d, channel *c, uint64_t idle) {
  for (uint32_t b = 0; b < d->banks; b++) idle = max_u64(idle, c->banks[b].ready_cycle);
  while (c->next_refresh <= idle) {
    refresh_at(d, c, idle);
    idle = c->banks[0].ready_cycle;
  }
  return idle;
}

uint32_t ws_dram_schedule(ws_dram *d, uint32_t ch, uint64_t now, ws_dram_issue *out, uint32_t max_out,
                          uint64_t *wake_cycle) {
  channel *c = &d->ch[ch];
  bool all_bank = d->t_refi && !d->t_rfcsb;
  if (d->t_rfcsb) refresh_banks(d, c, now);
  if (all_bank) {
    refresh(d, c, now);
    c->idle_from = UINT64_MAX;
  }
  uint32_t n = 0;
  while (n < max_out) {
    int idx = pick(d, c, now);
    if (idx < 0) break;
    out[n++] = issue(d, c, (uint32_t)idx, now);
  }
  if (c->count == 0 && all_bank) /* idle once the last burst is over (only refresh asks) */
    c->idle_from = go_idle(d, c, (c->bus_free_fp + BUS_FRAC_ONE - 1) >> BUS_FRAC_BITS);
  *wake_cycle = next_wake(c, now);
  return n;
}
