/* inspect.c - a memory component's last micro-op, for tooltips (inspect.h). */
#include "viz/inspect.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/evtext.h"

struct ws_viz_inspect {
  ws_ctx *ctx;
  ws_wst_reader *reader;
  ws_gpu_cfg cfg;
  ws_viz_inspect_namer namer;
  void *namer_user;
  uint64_t reads;
  /* the cached answer */
  bool cached;
  uint32_t launch, window;
  uint64_t cycle;
  ws_viz_hit hit;
  char text[768];
};

ws_status ws_viz_inspect_create(ws_ctx *ctx, ws_wst_reader *r, const ws_gpu_cfg *cfg, ws_viz_inspect **out) {
  ws_viz_inspect *in = calloc(1, sizeof *in);
  if (!in) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the tooltips' inspector");
  in->ctx = ctx;
  in->reader = r;
  in->cfg = *cfg;
  *out = in;
  return WS_OK;
}

void ws_viz_inspect_destroy(ws_viz_inspect *in) { free(in); }

void ws_viz_inspect_set_namer(ws_viz_inspect *in, ws_viz_inspect_namer fn, void *user) {
  in->namer = fn;
  in->namer_user = user;
  in->cached = false;
}

uint64_t ws_viz_inspect_reads(const ws_viz_inspect *in) { return in->reads; }

bool ws_viz_inspect_covers(ws_viz_part part) {
  switch (part) {
  case WS_VIZ_PART_L1:
  case WS_VIZ_PART_L1_SET:
  case WS_VIZ_PART_L2_SLICE:
  case WS_VIZ_PART_HBM_CHANNEL:
  case WS_VIZ_PART_HBM_BANK:
  case WS_VIZ_PART_SMEM:
  case WS_VIZ_PART_SMEM_BANK:
  case WS_VIZ_PART_SMEM_WAVE: return true;
  default: return false;
  }
}

/* ---- which records belong to a component ---------------------------------------------------------- */

static uint8_t kind_of(ws_viz_part part) {
  switch (part) {
  case WS_VIZ_PART_L1:
  case WS_VIZ_PART_L1_SET: return WS_PEV_L1;
  case WS_VIZ_PART_L2_SLICE: return WS_PEV_L2;
  case WS_VIZ_PART_HBM_CHANNEL:
  case WS_VIZ_PART_HBM_BANK: return WS_PEV_DRAM;
  default: return WS_PEV_SMEM;
  }
}

/* The shared-memory bank a part names (the smem zoom numbers its cells
 * wavefront x banks + bank); UINT32_MAX for the whole row. */
static uint32_t smem_bank(const ws_viz_inspect *in, const ws_viz_hit *h) {
  if (h->part == WS_VIZ_PART_SMEM_BANK) return h->index;
  if (h->part == WS_VIZ_PART_SMEM_WAVE && in->cfg.smem.banks) return h->index % in->cfg.smem.banks;
  return UINT32_MAX;
}

static bool belongs(const ws_viz_inspect *in, const ws_viz_hit *h, const ws_probe_event *ev) {
  if (ev->kind != kind_of(h->part)) return false;
  uint32_t banks = in->cfg.hbm.banks_per_channel ? in->cfg.hbm.banks_per_channel : 1;
  switch (h->part) {
  case WS_VIZ_PART_L1: return ev->sm == h->sm;
  case WS_VIZ_PART_L1_SET: return ev->sm == h->sm && ws_probe_l1_set(ev) == h->index;
  case WS_VIZ_PART_L2_SLICE: return ev->unit == h->index;
  case WS_VIZ_PART_HBM_CHANNEL: return ev->unit == h->index;
  case WS_VIZ_PART_HBM_BANK:
    return ev->unit == h->index / banks && ws_probe_dram_bank(ev) == h->index % banks;
  default: {
    uint32_t b = smem_bank(in, h);
    return ev->sm == h->sm && (b == UINT32_MAX || (b < 32 && (ws_probe_smem_banks(ev) >> b & 1u)));
  }
  }
}

/* The component's record with the latest begin in [lo, cycle] (the last
 * in file order among equals); *got false when none. */
static ws_status last_record(ws_viz_inspect *in, uint32_t launch, uint64_t lo, uint64_t cycle,
                             const ws_viz_hit *h, ws_probe_event *best, bool *got) {
  *got = false;
  ws_wst_cursor *c = NULL;
  ws_status st = ws_wst_cursor_open_launch(in->reader, launch, lo, cycle + 1, &c);
  for (bool more = st == WS_OK; more;) {
    ws_probe_event ev;
    uint32_t l;
    st = ws_wst_cursor_next(c, &ev, &l, &more);
    if (st != WS_OK || !more) break;
    in->reads++;
    if (ev.begin < lo || ev.begin > cycle || !belongs(in, h, &ev)) continue;
    if (!*got || ev.begin >= best->begin) *best = ev, *got = true;
  }
  ws_wst_cursor_close(c);
  return st;
}

/* ---- the words ------------------------------------------------------------------------------------- */

/* "0x7f40" or "0x7f40 (weights blocks.0.qkv.weight)". */
static void addr_text(const ws_viz_inspect *in, uint64_t addr, char *buf, size_t n) {
  char name[160];
  if (in->namer && in->namer(in->namer_user, addr, name, sizeof name))
    snprintf(buf, n, "0x%" PRIx64 " (%s)", addr, name);
  else
    snprintf(buf, n, "0x%" PRIx64, addr);
}

static void way_text(uint32_t way, char *buf, size_t n) {
  if (way == UINT32_MAX)
    snprintf(buf, n, "no way");
  else
    snprintf(buf, n, "way %u", way);
}

static void say_l1(const ws_viz_inspect *in, const ws_probe_event *e, char *buf, size_t n) {
  char at[200], way[32];
  addr_text(in, e->addr, at, sizeof at);
  way_text(ws_probe_l1_way(e), way, sizeof way);
  snprintf(buf, n,
           "last lookup at cycle %" PRIu64 " by warp %u: line %s, set %u, %s, sectors 0x%x, %s, %" PRIu64
           " cycles",
           e->begin, e->warp, at, ws_probe_l1_set(e), way, ws_probe_l1_sectors(e),
           ws_evtext_outcome_name(e, NULL, 0), e->end - e->begin);
}

static void say_l2(const ws_viz_inspect *in, const ws_probe_event *e, char *buf, size_t n) {
  char at[200], way[32];
  addr_text(in, e->addr, at, sizeof at);
  way_text(ws_probe_l2_way(e), way, sizeof way);
  snprintf(buf, n,
           "last lookup at cycle %" PRIu64 " from SM %u: line %s, set %u, %s, sectors 0x%x, %s%s, %" PRIu64
           " cycles",
           e->begin, e->sm, at, ws_probe_l2_set(e), way, ws_probe_l2_sectors(e),
           ws_evtext_outcome_name(e, NULL, 0), e->flags & WS_PROBE_FAR ? " (far partition)" : "",
           e->end - e->begin);
}

static void say_dram(const ws_viz_inspect *in, const ws_probe_event *e, char *buf, size_t n) {
  char at[200];
  addr_text(in, e->addr, at, sizeof at);
  snprintf(
      buf, n, "last command at cycle %" PRIu64 ": %s %u B of line %s, bank %u row %u, %s, %" PRIu64 " cycles",
      e->begin, e->flags & WS_PROBE_WRITE ? "write" : "read", ws_probe_dram_bytes(e), at,
      ws_probe_dram_bank(e), ws_probe_dram_row(e), ws_evtext_outcome_name(e, NULL, 0), e->end - e->begin);
}

static void say_smem(const ws_probe_event *e, char *buf, size_t n) {
  snprintf(buf, n,
           "last access at cycle %" PRIu64 " by warp %u pc %u: %s, banks 0x%08x, %u wavefronts (%u without "
           "conflicts), %" PRIu64 " cycles",
           e->begin, e->warp, e->pc, ws_evtext_outcome_name(e, NULL, 0), ws_probe_smem_banks(e),
           ws_probe_smem_wavefronts(e), ws_probe_smem_ideal(e), e->end - e->begin);
}

static void say(const ws_viz_inspect *in, const ws_probe_event *e, char *buf, size_t n) {
  switch (e->kind) {
  case WS_PEV_L1: say_l1(in, e, buf, n); break;
  case WS_PEV_L2: say_l2(in, e, buf, n); break;
  case WS_PEV_DRAM: say_dram(in, e, buf, n); break;
  default: say_smem(e, buf, n); break;
  }
}

static const char *none_text(ws_viz_part part) {
  uint8_t k = kind_of(part);
  return k == WS_PEV_DRAM ? "no command" : k == WS_PEV_SMEM ? "no access" : "no lookup";
}

static bool same_hit(const ws_viz_hit *a, const ws_viz_hit *b) {
  return a->part == b->part && a->sm == b->sm && a->index == b->index;
}

ws_status ws_viz_inspect_describe(ws_viz_inspect *in, uint32_t launch, uint64_t cycle, uint32_t window_cycles,
                                  const ws_viz_hit *hit, char *buf, size_t buf_bytes) {
  if (!ws_viz_inspect_covers(hit->part))
    return ws_ctx_fail(in->ctx, WS_ERR_INVALID, "inspect: a %s is not a memory component",
                       ws_viz_part_name(hit->part));
  if (window_cycles == 0) window_cycles = 1;
  if (in->cached && in->launch == launch && in->cycle == cycle && in->window == window_cycles &&
      same_hit(&in->hit, hit)) {
    snprintf(buf, buf_bytes, "%s", in->text);
    return WS_OK;
  }
  uint64_t lo = cycle + 1 > window_cycles ? cycle + 1 - window_cycles : 0;
  ws_probe_event ev;
  bool got = false;
  in->cached = false;
  ws_status st = last_record(in, launch, lo, cycle, hit, &ev, &got);
  if (st != WS_OK) return st;
  if (got)
    say(in, &ev, in->text, sizeof in->text);
  else
    snprintf(in->text, sizeof in->text, "%s in the last %u cycles", none_text(hit->part), window_cycles);
  in->cached = true;
  in->launch = launch, in->cycle = cycle, in->window = window_cycles, in->hit = *hit;
  snprintf(buf, buf_bytes, "%s", in->text);
  return WS_OK;
}
