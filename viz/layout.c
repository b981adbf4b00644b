/* layout.c - the visualizer's geometry: integer rectangles for every
 * component of a preset on a canvas, and the reverse question (what is at a
 * pixel).
 *
 * The whole-GPU view stacks, top to bottom: the memory row (host RAM, the
 * PCIe lanes with their copy engines, the HBM channels with their banks),
 * the DRAM band the channel <-> slice traffic crosses, the L2 partitions
 * with their slices, the crossbar band, and the grid of SMs; a panel on the
 * right holds the counters and the legend. Sizes are fractions of the
 * canvas, and every repeated part (SMs, channels, slices, cells) is placed
 * by one grid fitter that picks the column count giving the largest cells,
 * so 2 SMs and 132 SMs both fill the space they have. An SM's parts are
 * laid out once, relative to its corner (see layout.h). */
#include "viz/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A per-SM kind's template rectangles are relative to the SM's corner;
 * WS_VIZ_PART_SM itself is stored per SM, absolute. */
struct ws_viz_layout {
  ws_gpu_cfg cfg;
  ws_viz_view view;
  int32_t width, height, text_px;
  bool captions, sm_titles;
  uint32_t count[WS_VIZ_PART_COUNT];
  ws_viz_rect *rects[WS_VIZ_PART_COUNT]; /* NULL: not in this view */
  ws_viz_rect *sm_rects;                 /* num_sms; w = 0 where not shown */
};

static const char *const part_names[WS_VIZ_PART_COUNT] = {
    [WS_VIZ_PART_NONE] = "background",
    [WS_VIZ_PART_HEADER] = "header",
    [WS_VIZ_PART_PANEL] = "panel",
    [WS_VIZ_PART_HOST] = "host RAM",
    [WS_VIZ_PART_PCIE] = "PCIe lane",
    [WS_VIZ_PART_COPY_ENGINE] = "copy engine",
    [WS_VIZ_PART_HBM] = "HBM",
    [WS_VIZ_PART_HBM_CHANNEL] = "HBM channel",
    [WS_VIZ_PART_HBM_BANK] = "HBM bank",
    [WS_VIZ_PART_DRAM_LINK] = "DRAM link",
    [WS_VIZ_PART_L2_PARTITION] = "L2 partition",
    [WS_VIZ_PART_L2_SLICE] = "L2 slice",
    [WS_VIZ_PART_XBAR] = "crossbar",
    [WS_VIZ_PART_SM] = "SM",
    [WS_VIZ_PART_SUBPART] = "sub-partition",
    [WS_VIZ_PART_WARP_SLOT] = "warp slot",
    [WS_VIZ_PART_RF_BANK] = "register-file bank",
    [WS_VIZ_PART_TENSOR] = "tensor core",
    [WS_VIZ_PART_CTAS] = "CTA slots",
    [WS_VIZ_PART_CTA_SLOT] = "CTA slot",
    [WS_VIZ_PART_SMEM] = "shared memory",
    [WS_VIZ_PART_SMEM_BANK] = "shared-memory bank",
    [WS_VIZ_PART_SMEM_WAVE] = "shared-memory wavefront",
    [WS_VIZ_PART_L1] = "L1",
    [WS_VIZ_PART_L1_SET] = "L1 set",
};

const char *ws_viz_part_name(ws_viz_part part) {
  return (unsigned)part < WS_VIZ_PART_COUNT ? part_names[part] : "?";
}

bool ws_viz_part_per_sm(ws_viz_part part) { return part >= WS_VIZ_PART_SM && part < WS_VIZ_PART_COUNT; }

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static ws_viz_rect rect(int32_t x, int32_t y, int32_t w, int32_t h) { return (ws_viz_rect){x, y, w, h}; }

static ws_viz_rect inset(ws_viz_rect r, int32_t d) {
  return rect(r.x + d, r.y + d, r.w > 2 * d ? r.w - 2 * d : 0, r.h > 2 * d ? r.h - 2 * d : 0);
}

/* The top `h` pixels of r (at most all of it), and what is left below. */
static ws_viz_rect cut_top(ws_viz_rect *r, int32_t h) {
  if (h > r->h) h = r->h;
  ws_viz_rect top = rect(r->x, r->y, r->w, h);
  r->y += h;
  r->h -= h;
  return top;
}

static ws_viz_rect cut_left(ws_viz_rect *r, int32_t w) {
  if (w > r->w) w = r->w;
  ws_viz_rect left = rect(r->x, r->y, w, r->h);
  r->x += w;
  r->w -= w;
  return left;
}

/* ---- the grid fitter ------------------------------------------------------------ */

/* n equal cells in an area: cols x rows of cw x ch with `gap` between them,
 * centred. */
typedef struct grid {
  int32_t cols, rows, cw, ch, gap, x0, y0;
} grid;

/* The column count giving the largest cells, scored by min(cw, ch x aspect)
 * (aspect: the wanted width / height), ties to the larger area then fewer
 * columns; `exact` takes only counts that fill every row. False when no
 * count leaves a cell of a pixel. */
static bool grid_try(uint32_t n, ws_viz_rect area, int32_t gap, double aspect, bool exact, grid *g) {
  double best = 0;
  *g = (grid){0};
  for (uint32_t c = 1; c <= n; c++) {
    if (exact && n % c != 0) continue;
    int32_t cols = (int32_t)c, rows = (int32_t)((n + c - 1) / c);
    int32_t cw = (area.w - gap * (cols - 1)) / cols, ch = (area.h - gap * (rows - 1)) / rows;
    if (cw < 1 || ch < 1) continue;
    double s = cw < ch * aspect ? cw : ch * aspect;
    if (s > best || (s == best && cw * ch > g->cw * g->ch)) {
      *g = (grid){cols, rows, cw, ch, gap, 0, 0};
      best = s;
    }
  }
  return g->cols > 0;
}

/* Cell arrangements: `square` trims cells to squares; `exact` prefers
 * full rows (16 warp slots as 4 x 4, not 3 x 6) where they fit. */
enum { FIT_FILL = 0, FIT_SQUARE = 1, FIT_EXACT = 2 };

/* grid_try, exact rows first where asked, without the gap where it would
 * leave cells under 3 pixels; the grid is centred in the area. */
static bool grid_fit(uint32_t n, ws_viz_rect area, int32_t gap, double aspect, int how, grid *g) {
  bool exact = how & FIT_EXACT;
  bool ok = grid_try(n, area, gap, aspect, exact, g);
  grid tight;
  if (gap > 0 && (!ok || g->cw < 3 || g->ch < 3) && grid_try(n, area, 0, aspect, exact, &tight)) {
    *g = tight;
    ok = true;
  }
  if (!ok && exact) return grid_fit(n, area, gap, aspect, how & ~FIT_EXACT, g);
  if (!ok) return false;
  if (how & FIT_SQUARE) g->cw = g->ch = g->cw < g->ch ? g->cw : g->ch;
  g->x0 = area.x + (area.w - (g->cols * g->cw + (g->cols - 1) * g->gap)) / 2;
  g->y0 = area.y + (area.h - (g->rows * g->ch + (g->rows - 1) * g->gap)) / 2;
  return true;
}

static ws_viz_rect grid_cell(const grid *g, uint32_t i) {
  int32_t col = (int32_t)i % g->cols, row = (int32_t)i / g->cols;
  return rect(g->x0 + col * (g->cw + g->gap), g->y0 + row * (g->ch + g->gap), g->cw, g->ch);
}

/* ---- storage ------------------------------------------------------------------------ */

static ws_status alloc_kind(ws_ctx *ctx, ws_viz_layout *l, ws_viz_part part) {
  if (l->rects[part]) return WS_OK;
  size_t n = l->count[part] ? l->count[part] : 1;
  l->rects[part] = calloc(n, sizeof(ws_viz_rect));
  if (!l->rects[part]) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the layout");
  return WS_OK;
}

/* Places n cells of `part` from index `first` on in `area`. */
static ws_status place_grid(ws_ctx *ctx, ws_viz_layout *l, ws_viz_part part, uint32_t first, uint32_t n,
                            ws_viz_rect area, int32_t gap, double aspect, int how) {
  ws_status st = alloc_kind(ctx, l, part);
  if (st != WS_OK) return st;
  grid g;
  if (n == 0) return WS_OK;
  if (!grid_fit(n, area, gap, aspect, how, &g))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "a %dx%d canvas is too small for %s: %u %ss do not fit in %dx%d pixels", l->width,
                       l->height, l->cfg.gpu.name, n, part_names[part], area.w, area.h);
  for (uint32_t i = 0; i < n; i++) l->rects[part][first + i] = grid_cell(&g, i);
  return WS_OK;
}

static ws_status place_one(ws_ctx *ctx, ws_viz_layout *l, ws_viz_part part, uint32_t index, ws_viz_rect r) {
  ws_status st = alloc_kind(ctx, l, part);
  if (st != WS_OK) return st;
  if (r.w < 1 || r.h < 1)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a %dx%d canvas is too small for %s: no room for the %s",
                       l->width, l->height, l->cfg.gpu.name, part_names[part]);
  l->rects[part][index] = r;
  return WS_OK;
}

/* ---- one SM ------------------------------------------------------------------------- */

/* Caption line height, when captions are on. */
static int32_t cap_px(const ws_viz_layout *l) { return l->captions ? l->text_px + 2 : 0; }

/* A sub-partition's column: warp slots on top, then its register-file
 * banks and its tensor core side by side. Template coordinates. */
static ws_status place_subpart(ws_ctx *ctx, ws_viz_layout *l, uint32_t sp, ws_viz_rect col, int32_t gap) {
  const ws_gpu_cfg *c = &l->cfg;
  uint32_t nsp = c->sm.subpartitions, per = c->sm.max_warps_per_sm / nsp,
           banks = c->regfile.banks_per_subpartition;
  ws_status st = place_one(ctx, l, WS_VIZ_PART_SUBPART, sp, col);
  if (st != WS_OK) return st;
  ws_viz_rect r = col;
  cut_top(&r, cap_px(l));
  int32_t warp_h = (r.h - gap) * 72 / 100;
  ws_viz_rect warps = cut_top(&r, warp_h);
  cut_top(&r, gap);
  ws_viz_rect rf = cut_left(&r, (r.w - gap) * 55 / 100);
  cut_left(&r, gap);
  /* slot s sits in sub-partition s mod nsp: place the column's cells, then spread them */
  grid g;
  if (!grid_fit(per, warps, 1, 1.0, FIT_SQUARE | FIT_EXACT, &g))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a %dx%d canvas is too small for %s: warp slots do not fit",
                       l->width, l->height, c->gpu.name);
  for (uint32_t k = 0; k < per; k++) l->rects[WS_VIZ_PART_WARP_SLOT][k * nsp + sp] = grid_cell(&g, k);
  st = place_grid(ctx, l, WS_VIZ_PART_RF_BANK, sp * banks, banks, rf, 1, 1.0, FIT_EXACT);
  if (st != WS_OK) return st;
  return place_one(ctx, l, WS_VIZ_PART_TENSOR, sp, r);
}

/* A strip container (CTA slots, shared memory, L1) with its cells. */
static ws_status place_strip(ws_ctx *ctx, ws_viz_layout *l, ws_viz_part box, ws_viz_part cell, uint32_t n,
                             ws_viz_rect r) {
  ws_status st = place_one(ctx, l, box, 0, r);
  if (st != WS_OK) return st;
  cut_top(&r, cap_px(l));
  return place_grid(ctx, l, cell, 0, n, r, 1, 4.0, FIT_EXACT);
}

static int32_t sm_title_px(const ws_viz_layout *l) { return l->sm_titles ? l->text_px + 3 : 0; }

/* The template of an SM of w x h: a frame, its title, the sub-partitions'
 * columns, then the CTA slots, the shared-memory banks and the L1 sets. */
static ws_status place_sm_template(ws_ctx *ctx, ws_viz_layout *l, int32_t w, int32_t h) {
  const ws_gpu_cfg *c = &l->cfg;
  int32_t pad = clamp32((w < h ? w : h) / 40, 1, 8), gap = pad;
  ws_viz_rect r = inset(rect(0, 0, w, h), pad + 1);
  cut_top(&r, sm_title_px(l));
  int32_t avail = r.h - 3 * gap - 3 * cap_px(l);
  /* at least two pixels each: two rows of one-pixel cells where the SM is narrow */
  int32_t cta_h = clamp32(avail * 10 / 100, 2, avail), smem_h = clamp32(avail * 14 / 100, 2, avail),
          l1_h = clamp32(avail * 10 / 100, 2, avail);
  ws_viz_rect cols = cut_top(&r, r.h - (cta_h + smem_h + l1_h + 3 * cap_px(l) + 3 * gap));
  uint32_t nsp = c->sm.subpartitions;
  int32_t cw = (cols.w - (int32_t)(nsp - 1) * gap) / (int32_t)nsp;
  ws_status st = alloc_kind(ctx, l, WS_VIZ_PART_WARP_SLOT);
  for (uint32_t sp = 0; sp < nsp && st == WS_OK; sp++)
    st = place_subpart(ctx, l, sp, rect(cols.x + (int32_t)sp * (cw + gap), cols.y, cw, cols.h), gap);
  if (st != WS_OK) return st;
  cut_top(&r, gap);
  st = place_strip(ctx, l, WS_VIZ_PART_CTAS, WS_VIZ_PART_CTA_SLOT, c->sm.max_ctas_per_sm,
                   cut_top(&r, cta_h + cap_px(l)));
  if (st != WS_OK) return st;
  cut_top(&r, gap);
  st = place_strip(ctx, l, WS_VIZ_PART_SMEM, WS_VIZ_PART_SMEM_BANK, c->smem.banks,
                   cut_top(&r, smem_h + cap_px(l)));
  if (st != WS_OK) return st;
  cut_top(&r, gap);
  return place_strip(ctx, l, WS_VIZ_PART_L1, WS_VIZ_PART_L1_SET, c->geom.l1_sets, r);
}

/* The smem zoom's template: a row of bank headers over columns of
 * wavefront cells stacked from the bottom (wavefront 0 lowest). */
static ws_status place_smem_template(ws_ctx *ctx, ws_viz_layout *l, int32_t w, int32_t h) {
  uint32_t banks = l->cfg.smem.banks;
  ws_viz_rect r = inset(rect(0, 0, w, h), 4);
  cut_top(&r, sm_title_px(l));
  ws_status st = place_one(ctx, l, WS_VIZ_PART_SMEM, 0, r);
  if (st != WS_OK) return st;
  cut_top(&r, cap_px(l));
  int32_t gap = 1, cw = (r.w - (int32_t)(banks - 1) * gap) / (int32_t)banks;
  int32_t head_h = l->text_px + 4;
  int32_t wh = (r.h - head_h - 2 * gap) / (int32_t)WS_VIZ_SMEM_MAX_WAVES - gap;
  if (cw < 1 || wh < 1)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a %dx%d canvas is too small for %u shared-memory banks",
                       l->width, l->height, banks);
  int32_t x0 = r.x + (r.w - ((int32_t)banks * (cw + gap) - gap)) / 2;
  int32_t bottom = r.y + r.h;
  st = alloc_kind(ctx, l, WS_VIZ_PART_SMEM_BANK);
  if (st == WS_OK) st = alloc_kind(ctx, l, WS_VIZ_PART_SMEM_WAVE);
  if (st != WS_OK) return st;
  for (uint32_t b = 0; b < banks; b++) {
    int32_t x = x0 + (int32_t)b * (cw + gap);
    l->rects[WS_VIZ_PART_SMEM_BANK][b] = rect(x, r.y, cw, head_h);
    for (uint32_t k = 0; k < WS_VIZ_SMEM_MAX_WAVES; k++)
      l->rects[WS_VIZ_PART_SMEM_WAVE][k * banks + b] =
          rect(x, bottom - (int32_t)(k + 1) * (wh + gap), cw, wh);
  }
  return WS_OK;
}

/* ---- the whole GPU ------------------------------------------------------------------------ */

/* Host RAM, the two PCIe lanes and the copy engines at their device end. */
static ws_status place_host(ws_ctx *ctx, ws_viz_layout *l, ws_viz_rect host, ws_viz_rect pcie) {
  ws_status st = place_one(ctx, l, WS_VIZ_PART_HOST, 0, host);
  int32_t lane_h = clamp32(pcie.h / 8, 2, 3 * l->text_px), ce_w = pcie.w / 4;
  int32_t ce_h = clamp32(lane_h * 2, 2, pcie.h / 3 - 2);
  for (uint32_t d = 0; d < 2 && st == WS_OK; d++) {
    int32_t mid = pcie.y + pcie.h * (int32_t)(d + 1) / 3;
    st = place_one(ctx, l, WS_VIZ_PART_PCIE, d, rect(pcie.x, mid - lane_h / 2, pcie.w - ce_w - 2, lane_h));
    if (st == WS_OK)
      st = place_one(ctx, l, WS_VIZ_PART_COPY_ENGINE, d,
                     rect(pcie.x + pcie.w - ce_w, mid - ce_h / 2, ce_w, ce_h));
  }
  return st;
}

static ws_status place_hbm(ws_ctx *ctx, ws_viz_layout *l, ws_viz_rect area) {
  uint32_t nch = l->cfg.hbm.channels, bpc = l->cfg.hbm.banks_per_channel;
  ws_status st = place_one(ctx, l, WS_VIZ_PART_HBM, 0, area);
  if (area.h >= 4 * (l->text_px + 2)) cut_top(&area, l->text_px + 2);
  if (st == WS_OK) st = place_grid(ctx, l, WS_VIZ_PART_HBM_CHANNEL, 0, nch, area, 2, 0.6, FIT_FILL);
  for (uint32_t ch = 0; ch < nch && st == WS_OK; ch++)
    st = place_grid(ctx, l, WS_VIZ_PART_HBM_BANK, ch * bpc, bpc,
                    inset(l->rects[WS_VIZ_PART_HBM_CHANNEL][ch], 1), 1, 1.0, FIT_SQUARE | FIT_EXACT);
  return st;
}

/* The L2 partitions side by side, each as wide as its share of slices. */
static ws_status place_l2(ws_ctx *ctx, ws_viz_layout *l, ws_viz_rect area) {
  uint32_t np = l->cfg.geom.l2_partitions, ns = l->cfg.l2.slices, first = 0;
  int32_t gap = 6, x = area.x, w_all = area.w - gap * (int32_t)(np - 1);
  ws_status st = alloc_kind(ctx, l, WS_VIZ_PART_L2_SLICE);
  for (uint32_t p = 0; p < np && st == WS_OK; p++) {
    uint32_t end = first;
    while (end < ns && end * np / ns == p) end++;
    int32_t w = p + 1 == np ? area.x + area.w - x : (int32_t)((int64_t)w_all * (end - first) / ns);
    ws_viz_rect box = rect(x, area.y, w, area.h);
    st = place_one(ctx, l, WS_VIZ_PART_L2_PARTITION, p, box);
    ws_viz_rect in = inset(box, 1);
    if (in.h >= 3 * (l->text_px + 2)) cut_top(&in, l->text_px + 2);
    if (st == WS_OK)
      st = place_grid(ctx, l, WS_VIZ_PART_L2_SLICE, first, end - first, inset(in, 1), 2, 0.8, FIT_FILL);
    x += w + gap;
    first = end;
  }
  return st;
}

/* Every SM in a grid, and their common template. */
static ws_status place_sms(ws_ctx *ctx, ws_viz_layout *l, ws_viz_rect area) {
  uint32_t n = l->cfg.gpu.num_sms;
  grid g;
  if (!grid_fit(n, area, 3, 1.2, FIT_FILL, &g))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a %dx%d canvas is too small for %s's %u SMs", l->width,
                       l->height, l->cfg.gpu.name, n);
  for (uint32_t s = 0; s < n; s++) l->sm_rects[s] = grid_cell(&g, s);
  l->sm_titles = g.ch >= 80;
  return place_sm_template(ctx, l, g.cw, g.ch);
}

static ws_status place_gpu(ws_ctx *ctx, ws_viz_layout *l, ws_viz_rect main) {
  int32_t gap = 3, mem_h = main.h * 16 / 100, dram_h = main.h * 4 / 100, l2_h = main.h * 10 / 100,
          xbar_h = main.h * 7 / 100;
  ws_viz_rect r = main, mem = cut_top(&r, mem_h);
  ws_viz_rect host = cut_left(&mem, main.w * 9 / 100);
  cut_left(&mem, gap * 2);
  ws_viz_rect pcie = cut_left(&mem, main.w * 10 / 100);
  cut_left(&mem, gap * 2);
  ws_status st = place_host(ctx, l, host, pcie);
  if (st == WS_OK) st = place_hbm(ctx, l, mem);
  cut_top(&r, gap);
  if (st == WS_OK) st = place_one(ctx, l, WS_VIZ_PART_DRAM_LINK, 0, cut_top(&r, dram_h));
  cut_top(&r, gap);
  if (st == WS_OK) st = place_l2(ctx, l, cut_top(&r, l2_h));
  cut_top(&r, gap);
  if (st == WS_OK) st = place_one(ctx, l, WS_VIZ_PART_XBAR, 0, cut_top(&r, xbar_h));
  cut_top(&r, gap);
  if (st == WS_OK) st = place_sms(ctx, l, r);
  return st;
}

/* ---- create / destroy ---------------------------------------------------------------------- */

static void set_counts(ws_viz_layout *l) {
  const ws_gpu_cfg *c = &l->cfg;
  uint32_t *n = l->count;
  n[WS_VIZ_PART_HEADER] = n[WS_VIZ_PART_PANEL] = n[WS_VIZ_PART_HOST] = 1;
  n[WS_VIZ_PART_PCIE] = n[WS_VIZ_PART_COPY_ENGINE] = 2;
  n[WS_VIZ_PART_HBM] = 1;
  n[WS_VIZ_PART_HBM_CHANNEL] = c->hbm.channels;
  n[WS_VIZ_PART_HBM_BANK] = c->hbm.channels * c->hbm.banks_per_channel;
  n[WS_VIZ_PART_DRAM_LINK] = n[WS_VIZ_PART_XBAR] = 1;
  n[WS_VIZ_PART_L2_PARTITION] = c->geom.l2_partitions;
  n[WS_VIZ_PART_L2_SLICE] = c->l2.slices;
  n[WS_VIZ_PART_SM] = n[WS_VIZ_PART_CTAS] = n[WS_VIZ_PART_SMEM] = n[WS_VIZ_PART_L1] = 1;
  n[WS_VIZ_PART_SUBPART] = n[WS_VIZ_PART_TENSOR] = c->sm.subpartitions;
  n[WS_VIZ_PART_WARP_SLOT] = c->sm.max_warps_per_sm;
  n[WS_VIZ_PART_RF_BANK] = c->sm.subpartitions * c->regfile.banks_per_subpartition;
  n[WS_VIZ_PART_CTA_SLOT] = c->sm.max_ctas_per_sm;
  n[WS_VIZ_PART_SMEM_BANK] = c->smem.banks;
  n[WS_VIZ_PART_SMEM_WAVE] = c->smem.banks * WS_VIZ_SMEM_MAX_WAVES;
  n[WS_VIZ_PART_L1_SET] = c->geom.l1_sets;
}

static ws_status check_args(ws_ctx *ctx, const ws_gpu_cfg *cfg, int32_t width, int32_t height,
                            ws_viz_view view) {
  if (width < WS_VIZ_CANVAS_MIN_W || height < WS_VIZ_CANVAS_MIN_H || width > WS_VIZ_CANVAS_MAX_SIDE ||
      height > WS_VIZ_CANVAS_MAX_SIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "canvas %dx%d: must be from %dx%d to %dx%d pixels", width, height,
                       WS_VIZ_CANVAS_MIN_W, WS_VIZ_CANVAS_MIN_H, WS_VIZ_CANVAS_MAX_SIDE,
                       WS_VIZ_CANVAS_MAX_SIDE);
  if ((unsigned)view.zoom >= WS_VIZ_ZOOM_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "view: unknown zoom %d", (int)view.zoom);
  if (view.zoom != WS_VIZ_ZOOM_GPU && view.sm >= cfg->gpu.num_sms)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "view: SM %u out of range: %s has %u SMs (0..%u)", view.sm,
                       cfg->gpu.name, cfg->gpu.num_sms, cfg->gpu.num_sms - 1);
  if (cfg->sm.subpartitions == 0 || cfg->sm.max_warps_per_sm % cfg->sm.subpartitions != 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: %u warp slots do not split over %u sub-partitions",
                       cfg->gpu.name, cfg->sm.max_warps_per_sm, cfg->sm.subpartitions);
  return WS_OK;
}

static ws_status build(ws_ctx *ctx, ws_viz_layout *l) {
  int32_t W = l->width, H = l->height, m = 4;
  ws_viz_rect header = rect(0, 0, W, l->text_px + 6);
  int32_t panel_w = clamp32(W / 6, 150, 260);
  ws_viz_rect panel = rect(W - panel_w, header.h, panel_w, H - header.h);
  ws_viz_rect main = rect(m, header.h + m, W - panel_w - 2 * m, H - header.h - 2 * m);
  ws_status st = place_one(ctx, l, WS_VIZ_PART_HEADER, 0, header);
  if (st == WS_OK) st = place_one(ctx, l, WS_VIZ_PART_PANEL, 0, panel);
  if (st != WS_OK) return st;
  if (l->view.zoom == WS_VIZ_ZOOM_GPU) return place_gpu(ctx, l, main);
  l->captions = l->sm_titles = true;
  l->sm_rects[l->view.sm] = main;
  if (l->view.zoom == WS_VIZ_ZOOM_SM) return place_sm_template(ctx, l, main.w, main.h);
  return place_smem_template(ctx, l, main.w, main.h);
}

ws_status ws_viz_layout_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, int32_t width, int32_t height,
                               ws_viz_view view, ws_viz_layout **out) {
  *out = NULL;
  ws_status st = check_args(ctx, cfg, width, height, view);
  if (st != WS_OK) return st;
  ws_viz_layout *l = calloc(1, sizeof *l);
  if (!l) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the layout");
  l->cfg = *cfg;
  l->view = view;
  l->width = width;
  l->height = height;
  l->text_px = clamp32(height / 64, 9, 14);
  set_counts(l);
  l->sm_rects = calloc(cfg->gpu.num_sms, sizeof(ws_viz_rect));
  st = l->sm_rects ? build(ctx, l) : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the layout");
  if (st != WS_OK) {
    ws_viz_layout_destroy(l);
    return st;
  }
  *out = l;
  return WS_OK;
}

void ws_viz_layout_destroy(ws_viz_layout *l) {
  if (!l) return;
  for (int k = 0; k < WS_VIZ_PART_COUNT; k++) free(l->rects[k]);
  free(l->sm_rects);
  free(l);
}

ws_status ws_viz_view_parse(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *text, ws_viz_view *out) {
  *out = (ws_viz_view){WS_VIZ_ZOOM_GPU, 0};
  if (strcmp(text, "gpu") == 0) return WS_OK;
  const char *num = NULL;
  if (strncmp(text, "sm:", 3) == 0) {
    out->zoom = WS_VIZ_ZOOM_SM;
    num = text + 3;
  } else if (strncmp(text, "smem:", 5) == 0) {
    out->zoom = WS_VIZ_ZOOM_SMEM;
    num = text + 5;
  } else {
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "view '%s': expected gpu, sm:N or smem:N", text);
  }
  char *end = NULL;
  unsigned long v = *num >= '0' && *num <= '9' ? strtoul(num, &end, 10) : 0;
  if (!end || *end != '\0')
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "view '%s': '%s' is not an SM number", text, num);
  if (v >= cfg->gpu.num_sms)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "view '%s': %s has %u SMs (0..%u)", text, cfg->gpu.name,
                       cfg->gpu.num_sms, cfg->gpu.num_sms - 1);
  out->sm = (uint32_t)v;
  return WS_OK;
}

/* ---- queries ------------------------------------------------------------------------------ */

const ws_gpu_cfg *ws_viz_layout_cfg(const ws_viz_layout *l) { return &l->cfg; }
ws_viz_view ws_viz_layout_view(const ws_viz_layout *l) { return l->view; }
int32_t ws_viz_layout_text_px(const ws_viz_layout *l) { return l->text_px; }
bool ws_viz_layout_captions(const ws_viz_layout *l) { return l->captions; }
bool ws_viz_layout_sm_titles(const ws_viz_layout *l) { return l->sm_titles; }

void ws_viz_layout_size(const ws_viz_layout *l, int32_t *width, int32_t *height) {
  *width = l->width;
  *height = l->height;
}

uint32_t ws_viz_layout_count(const ws_viz_layout *l, ws_viz_part part) {
  return (unsigned)part < WS_VIZ_PART_COUNT ? l->count[part] : 0;
}

static bool sm_shown(const ws_viz_layout *l, uint32_t sm) {
  return sm < l->cfg.gpu.num_sms && l->sm_rects[sm].w > 0;
}

bool ws_viz_layout_rect(const ws_viz_layout *l, ws_viz_part part, uint32_t sm, uint32_t index,
                        ws_viz_rect *out) {
  if ((unsigned)part >= WS_VIZ_PART_COUNT || part == WS_VIZ_PART_NONE || index >= l->count[part])
    return false;
  if (!ws_viz_part_per_sm(part)) {
    if (!l->rects[part]) return false;
    *out = l->rects[part][index];
    return true;
  }
  if (!sm_shown(l, sm)) return false;
  ws_viz_rect s = l->sm_rects[sm];
  if (part == WS_VIZ_PART_SM) {
    *out = s;
    return true;
  }
  if (!l->rects[part]) return false;
  ws_viz_rect t = l->rects[part][index];
  *out = rect(s.x + t.x, s.y + t.y, t.w, t.h);
  return true;
}

/* Innermost first: a cell before the region holding it. */
static const ws_viz_part global_order[] = {
    WS_VIZ_PART_HBM_BANK,  WS_VIZ_PART_HBM_CHANNEL, WS_VIZ_PART_HBM,      WS_VIZ_PART_COPY_ENGINE,
    WS_VIZ_PART_PCIE,      WS_VIZ_PART_HOST,        WS_VIZ_PART_L2_SLICE, WS_VIZ_PART_L2_PARTITION,
    WS_VIZ_PART_DRAM_LINK, WS_VIZ_PART_XBAR,        WS_VIZ_PART_HEADER,   WS_VIZ_PART_PANEL};
static const ws_viz_part sm_order[] = {WS_VIZ_PART_WARP_SLOT, WS_VIZ_PART_RF_BANK,   WS_VIZ_PART_TENSOR,
                                       WS_VIZ_PART_CTA_SLOT,  WS_VIZ_PART_SMEM_WAVE, WS_VIZ_PART_SMEM_BANK,
                                       WS_VIZ_PART_L1_SET,    WS_VIZ_PART_SUBPART,   WS_VIZ_PART_CTAS,
                                       WS_VIZ_PART_SMEM,      WS_VIZ_PART_L1};

static bool hit_kind(const ws_viz_layout *l, ws_viz_part part, int32_t x, int32_t y, uint32_t *index) {
  if (!l->rects[part]) return false;
  for (uint32_t i = 0; i < l->count[part]; i++)
    if (ws_viz_rect_contains(l->rects[part][i], x, y)) {
      *index = i;
      return true;
    }
  return false;
}

static bool hit_sm(const ws_viz_layout *l, uint32_t sm, int32_t x, int32_t y, ws_viz_hit *out) {
  ws_viz_rect s = l->sm_rects[sm];
  for (size_t k = 0; k < sizeof sm_order / sizeof sm_order[0]; k++)
    if (hit_kind(l, sm_order[k], x - s.x, y - s.y, &out->index)) {
      *out = (ws_viz_hit){sm_order[k], sm, out->index};
      return true;
    }
  *out = (ws_viz_hit){WS_VIZ_PART_SM, sm, 0};
  return true;
}

bool ws_viz_layout_hit(const ws_viz_layout *l, int32_t x, int32_t y, ws_viz_hit *out) {
  *out = (ws_viz_hit){WS_VIZ_PART_NONE, 0, 0};
  for (uint32_t sm = 0; sm < l->cfg.gpu.num_sms; sm++)
    if (sm_shown(l, sm) && ws_viz_rect_contains(l->sm_rects[sm], x, y)) return hit_sm(l, sm, x, y, out);
  for (size_t k = 0; k < sizeof global_order / sizeof global_order[0]; k++)
    if (hit_kind(l, global_order[k], x, y, &out->index)) {
      out->part = global_order[k];
      return true;
    }
  return false;
}

void ws_viz_hit_describe(const ws_viz_layout *l, const ws_viz_hit *hit, char *buf, size_t buf_bytes) {
  const ws_gpu_cfg *c = &l->cfg;
  uint32_t i = hit->index, nsp = c->sm.subpartitions;
  switch (hit->part) {
  case WS_VIZ_PART_NONE: snprintf(buf, buf_bytes, "%s", ""); break;
  case WS_VIZ_PART_HEADER:
  case WS_VIZ_PART_PANEL:
  case WS_VIZ_PART_HOST:
  case WS_VIZ_PART_HBM:
  case WS_VIZ_PART_DRAM_LINK:
  case WS_VIZ_PART_XBAR: snprintf(buf, buf_bytes, "%s", part_names[hit->part]); break;
  case WS_VIZ_PART_PCIE:
  case WS_VIZ_PART_COPY_ENGINE:
    snprintf(buf, buf_bytes, "%s %s", part_names[hit->part], i == 0 ? "host -> device" : "device -> host");
    break;
  case WS_VIZ_PART_HBM_BANK:
    snprintf(buf, buf_bytes, "HBM channel %u bank %u", i / c->hbm.banks_per_channel,
             i % c->hbm.banks_per_channel);
    break;
  case WS_VIZ_PART_L2_SLICE:
    snprintf(buf, buf_bytes, "L2 slice %u (partition %u)", i, i * c->geom.l2_partitions / c->l2.slices);
    break;
  case WS_VIZ_PART_HBM_CHANNEL:
  case WS_VIZ_PART_L2_PARTITION: snprintf(buf, buf_bytes, "%s %u", part_names[hit->part], i); break;
  case WS_VIZ_PART_WARP_SLOT:
    snprintf(buf, buf_bytes, "SM %u warp slot %u (sub-partition %u)", hit->sm, i, i % nsp);
    break;
  case WS_VIZ_PART_RF_BANK:
    snprintf(buf, buf_bytes, "SM %u sub-partition %u register-file bank %u", hit->sm,
             i / c->regfile.banks_per_subpartition, i % c->regfile.banks_per_subpartition);
    break;
  case WS_VIZ_PART_SMEM_WAVE:
    snprintf(buf, buf_bytes, "SM %u shared-memory bank %u wavefront %u", hit->sm, i % c->smem.banks,
             i / c->smem.banks);
    break;
  case WS_VIZ_PART_SM:
  case WS_VIZ_PART_CTAS:
  case WS_VIZ_PART_SMEM:
  case WS_VIZ_PART_L1: snprintf(buf, buf_bytes, "SM %u %s", hit->sm, part_names[hit->part]); break;
  default: snprintf(buf, buf_bytes, "SM %u %s %u", hit->sm, part_names[hit->part], i); break;
  }
}
