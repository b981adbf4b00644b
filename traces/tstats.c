/* tstats.c - counters rebuilt from trace records (tstats.h).
 *
 * Each rule below mirrors the line of the simulator that counts the same
 * thing, named in a comment, so a change there shows here as a failing
 * test (tests/traces/test_tstats.c compares every counter with the
 * device's own). */
#include "traces/tstats.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

/* Per-SM counters, in the order they are named. */
enum {
  SM_CYCLES_ACTIVE,
  SM_WARPS_ACTIVE_SUM,
  SM_WARP_INSNS,
  SM_THREAD_INSNS,
  SM_FLOPS_FP32,
  SM_FLOPS_TENSOR,
  SM_RF_CONFLICT,
  SM_CTAS,
  SM_BRANCHES_TAKEN,
  SM_LSU_LINES,
  SM_LSU_SECTORS,
  SM_LSU_REFUSALS,
  SM_SMEM_INSNS,
  SM_SMEM_WAVEFRONTS,
  SM_SMEM_CONFLICTS,
  SM_L1_LOADS,
  SM_L1_STORES,
  SM_L1_ATOMICS,
  SM_L1_ASYNCS,
  SM_L1_LINE_HITS,
  SM_L1_LINE_MISSES,
  SM_L1_SECTOR_HITS,
  SM_L1_SECTOR_MISSES,
  SM_L1_MSHR_MERGES,
  SM_L1_EVICTIONS,
  SM_L1_WRITEBACKS,
  SM_NOC_REQ_BYTES,
  SM_UNIT0, /* inst_by_unit, WS_UNIT_COUNT of them, then the stall reasons */
  SM_FIXED = SM_UNIT0 + WS_UNIT_COUNT
};
static const char *const sm_names[] = {"sm%u.cycles_active",
                                       "sm%u.warps_active_sum",
                                       "sm%u.warp_insns",
                                       "sm%u.thread_insns",
                                       "sm%u.flops.fp32",
                                       "sm%u.flops.tensor",
                                       "sm%u.rf.bank_conflict_cycles",
                                       "sm%u.ctas",
                                       "sm%u.branches_taken",
                                       "sm%u.lsu.line_accesses",
                                       "sm%u.lsu.sectors",
                                       "sm%u.lsu.refusals",
                                       "sm%u.smem.insns",
                                       "sm%u.smem.wavefronts",
                                       "sm%u.smem.bank_conflicts",
                                       "sm%u.l1.loads",
                                       "sm%u.l1.stores",
                                       "sm%u.l1.atomics",
                                       "sm%u.l1.asyncs",
                                       "sm%u.l1.line_hits",
                                       "sm%u.l1.line_misses",
                                       "sm%u.l1.sector_hits",
                                       "sm%u.l1.sector_misses",
                                       "sm%u.l1.mshr_merges",
                                       "sm%u.l1.evictions",
                                       "sm%u.l1.writebacks",
                                       "noc.sm%u.req_bytes"};
_Static_assert(sizeof sm_names / sizeof sm_names[0] == SM_UNIT0, "a name per SM counter");

enum { GPU_CYCLES, GPU_CTAS, GPU_WARP_INSNS, GPU_THREAD_INSNS, GPU_COUNT };
static const char *const gpu_names[GPU_COUNT] = {"gpu.cycles", "gpu.ctas", "gpu.warp_insns",
                                                 "gpu.thread_insns"};

enum {
  L2_READS,
  L2_WRITES,
  L2_ATOMICS,
  L2_LINE_HITS,
  L2_LINE_MISSES,
  L2_WRITEBACKS,
  L2_BUSY_CYCLES,
  L2_NOC_RESP_BYTES,
  L2_COUNT
};
static const char *const l2_names[L2_COUNT] = {
    "l2.slice%u.reads",       "l2.slice%u.writes",     "l2.slice%u.atomics",     "l2.slice%u.line_hits",
    "l2.slice%u.line_misses", "l2.slice%u.writebacks", "l2.slice%u.busy_cycles", "noc.slice%u.resp_bytes"};

enum {
  CH_READS,
  CH_WRITES,
  CH_ROW_HITS,
  CH_ROW_MISSES,
  CH_ROW_CONFLICTS,
  CH_BYTES_READ,
  CH_BYTES_WRITTEN,
  CH_BUSY_CYCLES,
  CH_COUNT
};
static const char *const ch_names[CH_COUNT] = {
    "hbm.ch%u.reads",         "hbm.ch%u.writes",     "hbm.ch%u.row_hits",      "hbm.ch%u.row_misses",
    "hbm.ch%u.row_conflicts", "hbm.ch%u.bytes_read", "hbm.ch%u.bytes_written", "hbm.ch%u.busy_cycles"};

#define LSU_RING 32u /* the LSU queue holds 16 instructions; room for more */
#define NO_PC UINT32_MAX
#define BUS_FRAC_BITS 16 /* the DRAM model books bus time in 1/65536 cycles */

typedef struct lsu_entry {
  bool async;
  uint32_t lines;
} lsu_entry;

/* One way of an SM's L1 as the records rebuild it (l1.c's tags and MSHRs). */
typedef struct l1_way {
  uint64_t line;
  uint8_t valid, dirty, requested, arrived;
  bool pending;
} l1_way;

typedef struct sm_state {
  lsu_entry ring[LSU_RING]; /* global-memory instructions whose lines are not all sent */
  uint32_t head, count;
  uint32_t last_op; /* the opcode of the SM's last issue record */
  struct span {
    uint64_t begin, end;
  } * spans; /* resident-CTA time as disjoint intervals, sorted */
  size_t nspans, capspans;
} sm_state;

struct ws_tstats {
  ws_gpu_cfg cfg;
  uint32_t nsms, nslices, nch, nreasons, per_sm, warps;
  uint32_t selected, depbar; /* stall-reason indices of `selected` and `depbar` (nreasons: none) */
  size_t sm0, l20, ch0, count;
  char **names;
  uint64_t *v;
  sm_state *sm;
  uint32_t *bra_pc; /* per SM and warp slot: a branch awaiting the warp's next issue */
  l1_way *l1;       /* per SM, set and way */
  uint32_t l1_sets, l1_assoc;
  uint64_t *bus_fp; /* per channel: bus time of the current launch */
  uint32_t launch;  /* the launch being added (UINT32_MAX: none yet) */
  bool oom;         /* an interval could not be stored (the count is then low) */
};

static char *format_name(const char *fmt, uint32_t i) {
  char buf[160];
  snprintf(buf, sizeof buf, fmt, i);
  return strdup(buf);
}

/* "sm3.stall.long_scoreboard"; reason names are the trace's, kept to
 * printable characters. */
static char *stall_name(uint32_t sm, const char *reason) {
  char buf[160];
  int n = snprintf(buf, sizeof buf, "sm%u.stall.", sm);
  for (const char *p = reason; *p && n < (int)sizeof buf - 1; p++)
    buf[n++] = isgraph((unsigned char)*p) && *p != '"' && *p != '\\' ? *p : '?';
  buf[n] = '\0';
  return strdup(buf);
}

static char *unit_name(uint32_t sm, uint32_t u) {
  char buf[64], unit[16];
  snprintf(unit, sizeof unit, "%s", ws_isa_unit_name((ws_unit)u));
  for (char *p = unit; *p; p++) *p = (char)tolower((unsigned char)*p);
  snprintf(buf, sizeof buf, "sm%u.inst_by_unit.%s", sm, unit);
  return strdup(buf);
}

static bool name_all(ws_tstats *t, const char *const *reasons) {
  size_t k = 0;
  for (uint32_t i = 0; i < GPU_COUNT; i++) t->names[k++] = strdup(gpu_names[i]);
  for (uint32_t s = 0; s < t->nsms; s++) {
    for (uint32_t i = 0; i < SM_UNIT0; i++) t->names[k++] = format_name(sm_names[i], s);
    for (uint32_t u = 0; u < WS_UNIT_COUNT; u++) t->names[k++] = unit_name(s, u);
    for (uint32_t r = 0; r < t->nreasons; r++) t->names[k++] = stall_name(s, reasons[r] ? reasons[r] : "?");
  }
  for (uint32_t s = 0; s < t->nslices; s++)
    for (uint32_t i = 0; i < L2_COUNT; i++) t->names[k++] = format_name(l2_names[i], s);
  for (uint32_t c = 0; c < t->nch; c++)
    for (uint32_t i = 0; i < CH_COUNT; i++) t->names[k++] = format_name(ch_names[i], c);
  for (size_t i = 0; i < k; i++)
    if (!t->names[i]) return false;
  return true;
}

static uint32_t find_reason(const char *const *reasons, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (reasons[i] && strcmp(reasons[i], name) == 0) return (uint32_t)i;
  return (uint32_t)n;
}

ws_status ws_tstats_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *const *stall_names, size_t nnames,
                           ws_tstats **out) {
  *out = NULL;
  ws_tstats *t = calloc(1, sizeof *t);
  if (!t) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "trace stats: out of memory");
  t->cfg = *cfg;
  t->nsms = cfg->gpu.num_sms;
  t->nslices = cfg->l2.slices;
  t->nch = cfg->hbm.channels;
  t->nreasons = stall_names ? (uint32_t)(nnames < 256 ? nnames : 256) : 0;
  t->selected = find_reason(stall_names, t->nreasons, "selected");
  t->depbar = find_reason(stall_names, t->nreasons, "depbar");
  t->per_sm = SM_FIXED + t->nreasons;
  t->warps = cfg->sm.max_warps_per_sm;
  t->sm0 = GPU_COUNT;
  t->l20 = t->sm0 + (size_t)t->nsms * t->per_sm;
  t->ch0 = t->l20 + (size_t)t->nslices * L2_COUNT;
  t->count = t->ch0 + (size_t)t->nch * CH_COUNT;
  t->launch = UINT32_MAX;
  t->names = calloc(t->count, sizeof *t->names);
  t->v = calloc(t->count, sizeof *t->v);
  t->sm = calloc(t->nsms, sizeof *t->sm);
  t->bra_pc = malloc((size_t)t->nsms * t->warps * sizeof *t->bra_pc);
  t->bus_fp = calloc(t->nch, sizeof *t->bus_fp);
  t->l1_sets = cfg->geom.l1_sets;
  t->l1_assoc = cfg->l1.assoc;
  t->l1 = calloc((size_t)t->nsms * t->l1_sets * t->l1_assoc, sizeof *t->l1);
  if (!t->names || !t->v || !t->sm || !t->bra_pc || !t->bus_fp || !t->l1 || !name_all(t, stall_names)) {
    ws_tstats_destroy(t);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "trace stats: out of memory for %u SMs' counters",
                       cfg->gpu.num_sms);
  }
  for (size_t i = 0; i < (size_t)t->nsms * t->warps; i++) t->bra_pc[i] = NO_PC;
  *out = t;
  return WS_OK;
}

void ws_tstats_destroy(ws_tstats *t) {
  if (!t) return;
  for (size_t i = 0; t->names && i < t->count; i++) free(t->names[i]);
  for (uint32_t s = 0; t->sm && s < t->nsms; s++) free(t->sm[s].spans);
  free(t->names);
  free(t->v);
  free(t->sm);
  free(t->bra_pc);
  free(t->bus_fp);
  free(t->l1);
  free(t);
}

/* ---- the launch's multi-record facts --------------------------------------- */

/* Adds [b, e) to the SM's resident time, merging what it overlaps or
 * touches (sm.c charges cycles_active while any CTA is resident). */
static void add_span(ws_tstats *t, sm_state *s, uint64_t b, uint64_t e) {
  size_t lo = 0;
  while (lo < s->nspans && s->spans[lo].end < b) lo++;
  size_t hi = lo;
  while (hi < s->nspans && s->spans[hi].begin <= e) {
    if (s->spans[hi].begin < b) b = s->spans[hi].begin;
    if (s->spans[hi].end > e) e = s->spans[hi].end;
    hi++;
  }
  if (hi == lo && s->nspans == s->capspans) { /* a new interval needs room */
    size_t cap = s->capspans ? 2 * s->capspans : 16;
    struct span *p = realloc(s->spans, cap * sizeof *p);
    if (!p) {
      t->oom = true;
      return;
    }
    s->spans = p;
    s->capspans = cap;
  }
  if (hi == lo)
    memmove(&s->spans[lo + 1], &s->spans[lo], (s->nspans++ - lo) * sizeof *s->spans);
  else if (hi > lo + 1) {
    memmove(&s->spans[lo + 1], &s->spans[hi], (s->nspans - hi) * sizeof *s->spans);
    s->nspans -= hi - lo - 1;
  }
  s->spans[lo] = (struct span){b, e};
}

/* Settles what the launch's records added up to and forgets its state. */
static void end_launch(ws_tstats *t) {
  for (uint32_t i = 0; i < t->nsms; i++) {
    sm_state *s = &t->sm[i];
    uint64_t active = 0;
    for (size_t k = 0; k < s->nspans; k++) active += s->spans[k].end - s->spans[k].begin;
    t->v[t->sm0 + (size_t)i * t->per_sm + SM_CYCLES_ACTIVE] += active;
    s->nspans = s->head = s->count = 0;
    s->last_op = 0;
  }
  for (uint32_t c = 0; c < t->nch; c++) { /* dram.c: busy_cycles = busy_fp >> 16, per launch */
    t->v[t->ch0 + (size_t)c * CH_COUNT + CH_BUSY_CYCLES] += t->bus_fp[c] >> BUS_FRAC_BITS;
    t->bus_fp[c] = 0;
  }
  for (size_t i = 0; i < (size_t)t->nsms * t->warps; i++) t->bra_pc[i] = NO_PC;
  memset(t->l1, 0, (size_t)t->nsms * t->l1_sets * t->l1_assoc * sizeof *t->l1); /* L1s start empty */
}

void ws_tstats_finish(ws_tstats *t) {
  if (t->launch != UINT32_MAX) end_launch(t);
  t->launch = UINT32_MAX;
}

/* ---- one record ---------------------------------------------------------------- */

static uint64_t *sm_counters(ws_tstats *t, uint16_t sm) { return &t->v[t->sm0 + (size_t)sm * t->per_sm]; }

/* subpart.c count_issue and issue_ctrl. */
static void on_issue(ws_tstats *t, const ws_probe_event *ev) {
  uint64_t *c = sm_counters(t, ev->sm);
  uint32_t lanes = (uint32_t)__builtin_popcount(ws_probe_issue_mask(ev)), op = ws_probe_issue_opcode(ev);
  const ws_opinfo *info = ws_isa_opinfo((ws_op)op);
  c[SM_WARP_INSNS]++;
  c[SM_THREAD_INSNS] += lanes;
  c[SM_WARPS_ACTIVE_SUM]++; /* the `selected` warp-cycle */
  if (t->selected < t->nreasons) c[SM_FIXED + t->selected]++;
  c[SM_UNIT0 + (info ? info->unit : WS_UNIT_CTRL)]++;
  if (op == WS_OP_FFMA) c[SM_FLOPS_FP32] += 2ull * lanes;
  if (op == WS_OP_FADD || op == WS_OP_FMUL) c[SM_FLOPS_FP32] += lanes;
  if (op == WS_OP_HMMA && ws_probe_issue_mask(ev)) c[SM_FLOPS_TENSOR] += 2ull * 16 * 8 * 16;
  t->v[GPU_WARP_INSNS]++;
  t->v[GPU_THREAD_INSNS] += lanes;
  t->sm[ev->sm].last_op = op;
  if (ev->warp >= t->warps) return;
  /* a branch redirected its warp when the warp's next instruction is not the next pc */
  uint32_t *bra = &t->bra_pc[(size_t)ev->sm * t->warps + ev->warp];
  if (*bra != NO_PC && ev->pc != *bra + 1) c[SM_BRANCHES_TAKEN]++;
  *bra = op == WS_OP_BRA ? ev->pc : NO_PC;
}

/* lsu.c: the LSU sends the lines of its queue's head instruction, in order. */
static void on_coalesce(ws_tstats *t, const ws_probe_event *ev) {
  sm_state *s = &t->sm[ev->sm];
  uint32_t lines = ws_probe_coalesce_lines(ev);
  if (!lines) return;
  if (s->count == LSU_RING) { /* cannot happen in an intact trace: forget the oldest */
    s->head = (s->head + 1) % LSU_RING;
    s->count--;
  }
  s->ring[(s->head + s->count++) % LSU_RING] = (lsu_entry){s->last_op == WS_OP_LDGSTS, lines};
}

/* ---- the L1's tags, replayed: each record names the set and the way the
 * line ends in, so the replay never chooses a victim; it only needs what
 * each way held to know which sectors were valid, whether the line's MSHR
 * was in flight, and what a replaced line was. */

static l1_way *l1_set(ws_tstats *t, uint16_t sm, uint32_t set) {
  return &t->l1[((size_t)sm * t->l1_sets + set) * t->l1_assoc];
}

/* The way holding `line` (valid sectors or a fill awaited: cache.c's find). */
static l1_way *l1_find(ws_tstats *t, l1_way *set, uint64_t line) {
  for (uint32_t i = 0; i < t->l1_assoc; i++)
    if (set[i].line == line && (set[i].valid || set[i].pending)) return &set[i];
  return NULL;
}

/* l1.c allocate: the victim way takes the line. */
static l1_way *l1_install(ws_tstats *t, uint64_t *c, l1_way *set, uint32_t way, uint64_t line) {
  if (way >= t->l1_assoc) return NULL;
  l1_way *w = &set[way];
  if (w->valid) c[SM_L1_EVICTIONS]++;
  if (w->valid & w->dirty) c[SM_L1_WRITEBACKS]++;
  *w = (l1_way){.line = line};
  return w;
}

/* l1.c access_read, merge_read, new_mshr, count_read; access_store_wb; access_forward. */
static void l1_replay(ws_tstats *t, uint64_t *c, const ws_probe_event *ev, bool store, bool atomic) {
  uint32_t at = ws_probe_l1_set(ev), way = ws_probe_l1_way(ev);
  if (at >= t->l1_sets) return;
  l1_way *set = l1_set(t, ev->sm, at), *w = l1_find(t, set, ev->addr);
  uint8_t mask = (uint8_t)ws_probe_l1_sectors(ev), miss = mask & (uint8_t) ~(w ? w->valid : 0);
  if (ev->outcome == WS_PROBE_L1_FORWARD) {
    if (w) {
      w->valid &= (uint8_t)~mask;
      w->dirty &= (uint8_t)~mask;
    }
    return;
  }
  if (store || atomic) { /* a write-back store: written into the line, allocated without a fetch */
    if (!w && !(w = l1_install(t, c, set, way, ev->addr))) return;
    w->valid |= mask;
    w->dirty |= mask;
    return;
  }
  if (ev->outcome == WS_PROBE_L1_HIT) miss = 0;
  c[SM_L1_SECTOR_HITS] += (uint32_t)__builtin_popcount(mask & (uint8_t)~miss);
  c[SM_L1_SECTOR_MISSES] += (uint32_t)__builtin_popcount(miss);
  if (!miss) return;
  if (t->cfg.l1.allocation == WS_L1_ALLOC_STREAMING) { /* no way until the fill */
    if (ev->flags & WS_PROBE_MERGED) c[SM_L1_MSHR_MERGES]++;
    return;
  }
  if (w && w->pending) { /* merged into the MSHR in flight; the sectors it lacks are asked too */
    c[SM_L1_MSHR_MERGES]++;
    w->requested |= miss;
    return;
  }
  if (!w && !(w = l1_install(t, c, set, way, ev->addr))) return;
  w->pending = true;
  w->requested = miss;
  w->arrived = 0;
}

/* l1.c fill_streaming: the record names the way the line is in after the
 * fill; a way holding another line (or nothing) was the victim. */
static void l1_fill_streaming(ws_tstats *t, const ws_probe_event *ev) {
  uint32_t at = ws_probe_l1_fill_set(ev), way = ws_probe_l1_fill_way(ev);
  if (at >= t->l1_sets || way >= t->l1_assoc) return;
  l1_way *set = l1_set(t, ev->sm, at), *w = &set[way];
  if (w->line != ev->addr || !w->valid) w = l1_install(t, sm_counters(t, ev->sm), set, way, ev->addr);
  w->valid |= (uint8_t)ws_probe_l1_fill_sectors(ev);
}

/* l1.c ws_l1_fill: the sectors arrive; the MSHR frees when all asked are in. */
static void l1_fill(ws_tstats *t, const ws_probe_event *ev) {
  if (t->cfg.l1.allocation == WS_L1_ALLOC_STREAMING) {
    l1_fill_streaming(t, ev);
    return;
  }
  uint64_t n = ev->addr >> t->cfg.geom.line_shift;
  l1_way *w = l1_find(t, l1_set(t, ev->sm, (uint32_t)(n % t->l1_sets)), ev->addr);
  if (!w || !w->pending) return;
  w->valid |= (uint8_t)ws_probe_l1_fill_sectors(ev);
  w->arrived |= (uint8_t)ws_probe_l1_fill_sectors(ev);
  if ((w->arrived & w->requested) == w->requested) w->pending = false;
}

/* memsys.c probe_l1, l1.c (by_kind, count_read) and lsu.c ws_lsu_send. */
static void on_l1(ws_tstats *t, const ws_probe_event *ev) {
  uint64_t *c = sm_counters(t, ev->sm);
  if (ev->outcome == WS_PROBE_L1_RESFAIL) {
    c[SM_LSU_REFUSALS]++;
    return;
  }
  sm_state *s = &t->sm[ev->sm];
  bool async = s->count && s->ring[s->head].async;
  if (s->count && --s->ring[s->head].lines == 0) {
    s->head = (s->head + 1) % LSU_RING;
    s->count--;
  }
  c[SM_LSU_LINES]++;
  c[SM_LSU_SECTORS] += (uint32_t)__builtin_popcount(ws_probe_l1_sectors(ev));
  bool store = ev->flags & WS_PROBE_WRITE, atomic = ev->flags & WS_PROBE_ATOMIC;
  c[store ? SM_L1_STORES : atomic ? SM_L1_ATOMICS : async ? SM_L1_ASYNCS : SM_L1_LOADS]++;
  if (ev->outcome == WS_PROBE_L1_HIT && !store && !atomic) c[SM_L1_LINE_HITS]++;
  if (ev->outcome == WS_PROBE_L1_MISS || ev->outcome == WS_PROBE_L1_MERGE) c[SM_L1_LINE_MISSES]++;
  l1_replay(t, c, ev, store, atomic);
}

/* l2.c lookup_write, count_read, allocate; ws_l2_occupy for busy_cycles. */
static void on_l2(ws_tstats *t, const ws_probe_event *ev) {
  if (ev->unit >= t->nslices) return;
  uint64_t *c = &t->v[t->l20 + (size_t)ev->unit * L2_COUNT];
  bool atomic = ev->flags & WS_PROBE_ATOMIC;
  if (ev->outcome == WS_PROBE_L2_WRITTEN)
    c[L2_WRITES]++;
  else {
    c[atomic ? L2_ATOMICS : L2_READS]++;
    c[ev->outcome == WS_PROBE_L2_HIT ? L2_LINE_HITS : L2_LINE_MISSES]++;
  }
  if (ev->flags & WS_PROBE_WRITEBACK) c[L2_WRITEBACKS]++;
  uint64_t bytes = (uint64_t)__builtin_popcount(ws_probe_l2_sectors(ev)) * t->cfg.l1.sector_bytes;
  uint64_t per = t->cfg.l2.slice_bytes_per_cycle, beats = (bytes + per - 1) / per;
  c[L2_BUSY_CYCLES] += (beats ? beats : 1) * (atomic ? 2u : 1u);
}

/* dram.c issue(): whole bursts moved, bus time in 1/65536 cycles. */
static void on_dram(ws_tstats *t, const ws_probe_event *ev) {
  if (ev->unit >= t->nch) return;
  uint64_t *c = &t->v[t->ch0 + (size_t)ev->unit * CH_COUNT];
  uint64_t burst = t->cfg.hbm.burst_bytes, mbps = t->cfg.hbm.channel_mbps;
  uint64_t moved = (ws_probe_dram_bytes(ev) + burst - 1) / burst * burst;
  bool write = ev->flags & WS_PROBE_WRITE;
  c[write ? CH_WRITES : CH_READS]++;
  c[write ? CH_BYTES_WRITTEN : CH_BYTES_READ] += moved;
  if (ev->outcome <= WS_PROBE_ROW_CONFLICT) c[CH_ROW_HITS + ev->outcome]++;
  t->bus_fp[ev->unit] += (((moved * t->cfg.gpu.core_clock_mhz) << BUS_FRAC_BITS) + mbps - 1) / mbps;
}

static void on_stall(ws_tstats *t, const ws_probe_event *ev, uint32_t reason) {
  uint64_t *c = sm_counters(t, ev->sm), span = ev->end - ev->begin;
  c[SM_WARPS_ACTIVE_SUM] += span;
  if (reason < t->nreasons) c[SM_FIXED + reason] += span;
}

/* lsu.c ws_lsu_smem */
static void on_smem(uint64_t *c, const ws_probe_event *ev) {
  uint32_t wf = ws_probe_smem_wavefronts(ev), ideal = ws_probe_smem_ideal(ev);
  c[SM_SMEM_INSNS]++;
  c[SM_SMEM_WAVEFRONTS] += wf;
  c[SM_SMEM_CONFLICTS] += wf > ideal ? wf - ideal : 0;
}

static void on_sm_record(ws_tstats *t, const ws_probe_event *ev) {
  uint64_t *c = sm_counters(t, ev->sm);
  switch (ev->kind) {
  case WS_PEV_ISSUE: on_issue(t, ev); break;
  case WS_PEV_STALL: on_stall(t, ev, ws_probe_stall_reason(ev)); break;
  case WS_PEV_DEPBAR: on_stall(t, ev, t->depbar); break;
  case WS_PEV_RF_BANK: c[SM_RF_CONFLICT] += ws_probe_rf_bank_cycles(ev); break;
  case WS_PEV_COALESCE: on_coalesce(t, ev); break;
  case WS_PEV_L1: on_l1(t, ev); break;
  case WS_PEV_L1_FILL: l1_fill(t, ev); break;
  case WS_PEV_SMEM: on_smem(c, ev); break;
  case WS_PEV_CTA:
    c[SM_CTAS]++;
    t->v[GPU_CTAS]++;
    add_span(t, &t->sm[ev->sm], ev->begin, ev->end);
    break;
  case WS_PEV_XBAR:
    if (ev->outcome == WS_PROBE_DIR_REQ) c[SM_NOC_REQ_BYTES] += ws_probe_xbar_bytes(ev);
    break;
  default: break;
  }
}

void ws_tstats_add(ws_tstats *t, uint32_t launch, const ws_probe_event *ev) {
  if (launch == WS_WST_NO_LAUNCH) return;
  if (launch != t->launch) {
    ws_tstats_finish(t);
    t->launch = launch;
  }
  switch (ev->kind) {
  case WS_PEV_KERNEL: t->v[GPU_CYCLES] += ev->end; return;
  case WS_PEV_L2: on_l2(t, ev); return;
  case WS_PEV_DRAM: on_dram(t, ev); return;
  case WS_PEV_XBAR:
    if (ev->outcome == WS_PROBE_DIR_RESP && ev->unit < t->nslices)
      t->v[t->l20 + (size_t)ev->unit * L2_COUNT + L2_NOC_RESP_BYTES] += ws_probe_xbar_bytes(ev);
    break;
  default: break;
  }
  if (ev->sm < t->nsms) on_sm_record(t, ev);
}

/* ---- from a trace, and the results ----------------------------------------------- */

static ws_status add_launch(ws_tstats *t, ws_wst_reader *r, uint32_t launch) {
  ws_wst_cursor *cur = NULL;
  ws_status st = ws_wst_cursor_open_launch(r, launch, 0, 0, &cur);
  ws_probe_event ev;
  uint32_t l;
  bool got = true;
  while (st == WS_OK && (st = ws_wst_cursor_next(cur, &ev, &l, &got)) == WS_OK && got)
    ws_tstats_add(t, l, &ev);
  ws_wst_cursor_close(cur);
  ws_tstats_finish(t);
  return st;
}

ws_status ws_tstats_from_trace(ws_ctx *ctx, ws_wst_reader *r, uint32_t launch, ws_tstats **out) {
  *out = NULL;
  ws_gpu_cfg cfg;
  ws_status st = ws_wst_config(r, &cfg);
  if (st != WS_OK) return st;
  size_t nnames = 0;
  const char *const *names = ws_wst_names(r, &nnames);
  ws_tstats *t = NULL;
  if ((st = ws_tstats_create(ctx, &cfg, names, nnames, &t)) != WS_OK) return st;
  size_t n = ws_wst_launch_count(r);
  for (size_t i = 0; st == WS_OK && i < n; i++)
    if (launch == UINT32_MAX || launch == i) st = add_launch(t, r, (uint32_t)i);
  if (st == WS_OK && t->oom) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "trace stats: out of memory for CTA spans");
  if (st != WS_OK) {
    ws_tstats_destroy(t);
    return st;
  }
  *out = t;
  return WS_OK;
}

size_t ws_tstats_count(const ws_tstats *t) { return t->count; }
const char *ws_tstats_name(const ws_tstats *t, size_t i) { return i < t->count ? t->names[i] : NULL; }
uint64_t ws_tstats_value(const ws_tstats *t, size_t i) { return i < t->count ? t->v[i] : 0; }

bool ws_tstats_get(const ws_tstats *t, const char *name, uint64_t *value) {
  for (size_t i = 0; i < t->count; i++)
    if (strcmp(t->names[i], name) == 0) {
      *value = t->v[i];
      return true;
    }
  return false;
}

void ws_tstats_write_json(const ws_tstats *t, FILE *out) {
  fputs("{\n  \"stats\": {", out);
  for (size_t i = 0; i < t->count; i++)
    fprintf(out, "%s\"%s\": %llu", i ? ",\n    " : "\n    ", t->names[i], (unsigned long long)t->v[i]);
  fputs("\n  }\n}\n", out);
}
