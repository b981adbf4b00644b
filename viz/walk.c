/* walk.c - the stops of pixel mode's walk (walk.h). */
#include "viz/walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ws_viz_walk {
  ws_journey_hop *hops;
  ws_viz_walk_stop *stops;
  size_t n;
  ws_journey_reach *reach;
  size_t nreach;
  size_t *stop_pos;  /* per stop: its timeline record (SIZE_MAX: none) */
  size_t *reach_pos; /* per reach row: its layer's last timeline record (SIZE_MAX: none) */
  const ws_runtime_record *tl;
  size_t ntl;
};

#define NO_POS SIZE_MAX

static bool is_host(const ws_journey_hop *h) { return h->launch == WS_JOURNEY_HOST_LAUNCH; }

/* SM-level hops are drawn inside their SM; the rest on the whole GPU. */
static bool in_sm(ws_journey_level level) { return level >= WS_JOURNEY_L1 && level < WS_JOURNEY_LEVEL_COUNT; }

/* ---- the component to outline ------------------------------------------------------------ */

static void warp_part(const ws_journey_hop *h, const ws_gpu_cfg *cfg, ws_viz_walk_stop *s) {
  if (h->warp >= cfg->sm.max_warps_per_sm) {
    s->part = WS_VIZ_PART_SM;
    s->index = 0;
  } else if (h->level == WS_JOURNEY_TENSOR && cfg->sm.subpartitions) {
    s->part = WS_VIZ_PART_TENSOR; /* the warp's sub-partition's tensor core */
    s->index = h->warp % cfg->sm.subpartitions;
  } else {
    s->part = WS_VIZ_PART_WARP_SLOT; /* the warp whose registers hold it, or that computes with it */
    s->index = h->warp;
  }
}

/* The channel, slice or set a hop names: its unit and index fields, or in
 * a trace written before them, the numbers its where text starts with. */
static bool l1_set(const ws_journey_hop *h, unsigned *set) {
  if (h->index == WS_JOURNEY_NO_INDEX) return sscanf(h->component, "set %u", set) == 1;
  *set = h->index;
  return true;
}

static bool hbm_bank(const ws_journey_hop *h, unsigned *ch, unsigned *bank) {
  if (h->unit == WS_PROBE_NONE || h->index == WS_JOURNEY_NO_INDEX)
    return sscanf(h->component, "ch %u bank %u", ch, bank) == 2;
  *ch = h->unit;
  *bank = h->index;
  return true;
}

static bool l2_slice(const ws_journey_hop *h, unsigned *slice) {
  if (h->unit == WS_PROBE_NONE) return sscanf(h->component, "slice %u", slice) == 1;
  *slice = h->unit;
  return true;
}

static uint32_t pcie_lane(const ws_journey_hop *h) {
  if (h->unit != WS_PROBE_NONE) return h->unit ? 1 : 0;
  return strncmp(h->component, "D2H", 3) == 0;
}

/* The SM's parts: the L1 set, the shared-memory banks, the warp. */
static void sm_part(const ws_journey_hop *h, const ws_gpu_cfg *cfg, ws_viz_walk_stop *s) {
  unsigned set;
  s->sm = h->sm;
  switch ((ws_journey_level)h->level) {
  case WS_JOURNEY_L1:
    s->part = WS_VIZ_PART_L1;
    if (l1_set(h, &set) && set < cfg->geom.l1_sets) {
      s->part = WS_VIZ_PART_L1_SET;
      s->index = set;
    }
    break;
  case WS_JOURNEY_SHARED: s->part = WS_VIZ_PART_SMEM; break;
  default: warp_part(h, cfg, s); break;
  }
}

/* The GPU's parts: host RAM, the PCIe lane, the HBM bank (a copy's end:
 * the channels' area), the L2 slice. */
static void gpu_part(const ws_journey_hop *h, const ws_gpu_cfg *cfg, ws_viz_walk_stop *s) {
  unsigned a, b;
  switch ((ws_journey_level)h->level) {
  case WS_JOURNEY_HOST: s->part = WS_VIZ_PART_HOST; break;
  case WS_JOURNEY_PCIE:
    s->part = WS_VIZ_PART_PCIE;
    s->index = pcie_lane(h);
    break;
  case WS_JOURNEY_DRAM:
    s->part = WS_VIZ_PART_HBM;
    if (hbm_bank(h, &a, &b) && a < cfg->hbm.channels && b < cfg->hbm.banks_per_channel) {
      s->part = WS_VIZ_PART_HBM_BANK;
      s->index = a * cfg->hbm.banks_per_channel + b;
    }
    break;
  case WS_JOURNEY_L2:
    if (l2_slice(h, &a) && a < cfg->l2.slices) {
      s->part = WS_VIZ_PART_L2_SLICE;
      s->index = a;
    }
    break;
  default: break;
  }
}

/* ---- where and when each stop is ----------------------------------------------------------- */

/* A host hop's launch: the previous device hop's (its end), else the next
 * one's (its start), else the first launch. */
static void host_when(const ws_journey_hop *hops, size_t n, size_t i, ws_viz_walk_stop *s) {
  for (size_t k = i; k-- > 0;)
    if (!is_host(&hops[k])) {
      s->launch = hops[k].launch;
      s->at_end = true;
      return;
    }
  for (size_t k = i + 1; k < n; k++)
    if (!is_host(&hops[k])) {
      s->launch = hops[k].launch;
      return;
    }
  s->launch = 0;
}

static ws_status make_stop(ws_ctx *ctx, const ws_journey_hop *hops, size_t n, size_t i, ws_wst_reader *r,
                           const ws_gpu_cfg *cfg, ws_viz_walk_stop *s) {
  const ws_journey_hop *h = &hops[i];
  size_t launches = ws_wst_launch_count(r);
  *s = (ws_viz_walk_stop){.view = {WS_VIZ_ZOOM_GPU, 0}, .part = WS_VIZ_PART_NONE};
  s->host = is_host(h);
  if (s->host)
    host_when(hops, n, i, s);
  else
    s->launch = h->launch;
  if (s->launch >= launches)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey hop %zu: launch %u, but the trace holds %zu launches",
                       i + 1, s->launch, launches);
  uint64_t end = ws_wst_launch(r, s->launch)->cycles;
  s->cycle = s->host ? (s->at_end ? end : 0) : h->first < end ? h->first : end;
  bool sm_level = !s->host && in_sm((ws_journey_level)h->level) && h->sm != WS_PROBE_NONE;
  if (sm_level && h->sm >= cfg->gpu.num_sms)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "journey hop %zu: SM %u, but the GPU has %u SMs", i + 1, h->sm,
                       cfg->gpu.num_sms);
  if (sm_level) {
    s->view = (ws_viz_view){WS_VIZ_ZOOM_SM, h->sm};
    sm_part(h, cfg, s);
  } else {
    gpu_part(h, cfg, s);
  }
  return WS_OK;
}

/* ---- the reach known at each stop -------------------------------------------------------- */

/* The timeline record of launch `launch`: the launch-th kernel record. */
static size_t kernel_pos(const ws_viz_walk *w, uint32_t launch) {
  for (size_t i = 0; i < w->ntl; i++)
    if (w->tl[i].kind == WS_RUNTIME_OP_KERNEL && launch-- == 0) return i;
  return NO_POS;
}

/* A host hop's record: the copy whose span holds its time, else the last
 * record begun by then. */
static size_t host_pos(const ws_viz_walk *w, uint64_t ns) {
  size_t last = NO_POS;
  for (size_t i = 0; i < w->ntl; i++) {
    const ws_runtime_record *t = &w->tl[i];
    bool copy = t->kind == WS_RUNTIME_OP_H2D || t->kind == WS_RUNTIME_OP_D2H;
    if (copy && t->start_ns <= ns && ns <= t->end_ns) return i;
    if (t->start_ns <= ns) last = i;
  }
  return last;
}

static size_t layer_pos(const ws_viz_walk *w, const char *layer) {
  size_t pos = NO_POS;
  for (size_t i = 0; i < w->ntl; i++)
    if (strcmp(w->tl[i].name, layer) == 0) pos = i;
  return pos;
}

static ws_status place_reach(ws_ctx *ctx, ws_viz_walk *w) {
  w->stop_pos = calloc(w->n ? w->n : 1, sizeof *w->stop_pos);
  w->reach_pos = calloc(w->nreach ? w->nreach : 1, sizeof *w->reach_pos);
  if (!w->stop_pos || !w->reach_pos) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the walk");
  for (size_t i = 0; i < w->n; i++)
    w->stop_pos[i] = is_host(&w->hops[i]) ? host_pos(w, w->hops[i].first) : kernel_pos(w, w->hops[i].launch);
  for (size_t i = 0; i < w->nreach; i++) w->reach_pos[i] = layer_pos(w, w->reach[i].layer);
  return WS_OK;
}

/* ---- create / destroy -------------------------------------------------------------------- */

static ws_status build(ws_ctx *ctx, ws_viz_walk *w, ws_wst_reader *r, const ws_gpu_cfg *cfg) {
  size_t bytes = 0;
  const void *text = ws_wst_journey(r, &bytes);
  if (!text || !bytes) return WS_OK;
  ws_status st = ws_journey_from_text(ctx, text, bytes, &w->hops, &w->n, &w->reach, &w->nreach);
  if (st != WS_OK) return st;
  if (w->n && !ws_wst_launch_count(r))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "the journey's hops need a launch to be shown; the trace has none");
  w->stops = calloc(w->n ? w->n : 1, sizeof *w->stops);
  if (!w->stops) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the walk");
  for (size_t i = 0; i < w->n && st == WS_OK; i++)
    st = make_stop(ctx, w->hops, w->n, i, r, cfg, &w->stops[i]);
  w->tl = ws_wst_timeline(r, &w->ntl);
  if (!w->tl) w->ntl = 0;
  return st == WS_OK ? place_reach(ctx, w) : st;
}

ws_status ws_viz_walk_create(ws_ctx *ctx, ws_wst_reader *r, const ws_gpu_cfg *cfg, ws_viz_walk **out) {
  *out = NULL;
  ws_viz_walk *w = calloc(1, sizeof *w);
  if (!w) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the walk");
  ws_status st = build(ctx, w, r, cfg);
  if (st != WS_OK) {
    ws_viz_walk_destroy(w);
    return st;
  }
  *out = w;
  return WS_OK;
}

void ws_viz_walk_destroy(ws_viz_walk *w) {
  if (!w) return;
  free(w->reach_pos);
  free(w->stop_pos);
  free(w->stops);
  free(w->reach);
  free(w->hops);
  free(w);
}

/* ---- query ----------------------------------------------------------------------------------- */

size_t ws_viz_walk_count(const ws_viz_walk *w) { return w->n; }

const ws_viz_walk_stop *ws_viz_walk_at(const ws_viz_walk *w, size_t i) {
  return i < w->n ? &w->stops[i] : NULL;
}

const ws_journey_hop *ws_viz_walk_hop(const ws_viz_walk *w, size_t i) {
  return i < w->n ? &w->hops[i] : NULL;
}

const char *ws_viz_walk_step_name(const ws_viz_walk *w, size_t i) {
  if (i >= w->n) return "";
  if (w->stops[i].host) return "host";
  size_t pos = w->stop_pos[i];
  return pos != NO_POS ? w->tl[pos].name : w->hops[i].kernel;
}

size_t ws_viz_walk_reaches(const ws_viz_walk *w, const ws_journey_reach **out) {
  *out = w->reach;
  return w->nreach;
}

bool ws_viz_walk_reach_known(const ws_viz_walk *w, size_t stop, size_t row) {
  if (stop >= w->n || row >= w->nreach) return false;
  size_t p = w->reach_pos[row], at = w->stop_pos[stop];
  if (p == NO_POS || at == NO_POS) return stop + 1 == w->n; /* unplaced: known once the walk is over */
  if (at != p) return at > p;
  return stop + 1 == w->n || w->stop_pos[stop + 1] == NO_POS || w->stop_pos[stop + 1] > p;
}

/* The part drawn around `part` where the view leaves it out. */
static bool parent(const ws_gpu_cfg *cfg, ws_viz_part *part, uint32_t *index) {
  switch (*part) {
  case WS_VIZ_PART_HBM_BANK:
    *part = WS_VIZ_PART_HBM_CHANNEL;
    *index = cfg->hbm.banks_per_channel ? *index / cfg->hbm.banks_per_channel : 0;
    return true;
  case WS_VIZ_PART_HBM_CHANNEL: *part = WS_VIZ_PART_HBM, *index = 0; return true;
  case WS_VIZ_PART_L1_SET: *part = WS_VIZ_PART_L1, *index = 0; return true;
  case WS_VIZ_PART_L1:
  case WS_VIZ_PART_SMEM:
  case WS_VIZ_PART_TENSOR:
  case WS_VIZ_PART_WARP_SLOT: *part = WS_VIZ_PART_SM, *index = 0; return true;
  default: return false;
  }
}

bool ws_viz_walk_rect(const ws_viz_walk *w, size_t i, const ws_viz_layout *l, ws_viz_rect *out) {
  if (i >= w->n || w->stops[i].part == WS_VIZ_PART_NONE) return false;
  ws_viz_part part = w->stops[i].part;
  uint32_t index = w->stops[i].index;
  const ws_gpu_cfg *cfg = ws_viz_layout_cfg(l);
  do {
    if (ws_viz_layout_rect(l, part, w->stops[i].sm, index, out)) return true;
  } while (parent(cfg, &part, &index));
  return false;
}

size_t ws_viz_walk_reached(const ws_viz_walk *w, uint32_t launch, uint64_t cycle, size_t from) {
  size_t best = from;
  bool found = false;
  for (size_t i = 0; i < ws_viz_walk_count(w); i++) {
    const ws_viz_walk_stop *s = ws_viz_walk_at(w, i);
    if (s->launch < launch || (s->launch == launch && s->cycle <= cycle)) best = i, found = true;
  }
  return found ? best : from;
}
