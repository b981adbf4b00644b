/* render.c - the software renderer of the visualizer (render.h).
 *
 * A draw is: copy the cached background (every box, idle cell, caption and
 * the legend, drawn once at create), shade the caches, queue every cell
 * whose state is not idle into a bucket per colour, fill each bucket with
 * one SDL_RenderFillRects call, then draw the packets and the text that
 * changes (header, counters). Cells never overlap and packets move only
 * inside the bands between rows, so the order of the buckets cannot change
 * a pixel; glows are blended before the packets they surround.
 *
 * Packets: a crossbar packet crosses the crossbar band from its SM's port
 * (a point on the SM's column, one per SM row so SMs of one column are
 * told apart) to its slice's port, requests upward and responses downward;
 * a DRAM packet crosses the DRAM band from its channel (`channel`) to the
 * L2 slice its line maps to (`slice`); PCIe packets run along their lane. Size grows with bytes.
 * Colour says which tensor the data belongs to (the model classifies each
 * record once at load: ws_viz_palette_packet), so a frame pays one table
 * lookup per packet; class other and unnamed data keep their link's
 * colour, and the followed pixel's packets keep their own colour and glow. */
#include "viz/render.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/palette.h"

#define NBUCKETS ((int)WS_VIZ_COL_COUNT + (int)WS_VIZ_STALL_COLOURS)
#define DEFAULT_STALL_NAMES 12u

typedef struct bucket {
  SDL_Rect *rects;
  int n, cap;
} bucket;

typedef struct legend_entry {
  ws_viz_rgb rgb;
  char label[48];
} legend_entry;

typedef enum align { ALIGN_LEFT, ALIGN_CENTRE, ALIGN_RIGHT } align;

struct label;

struct ws_viz_render {
  ws_ctx *ctx;
  const ws_viz_layout *layout;
  const ws_gpu_cfg *cfg;
  ws_viz_view view;
  int32_t w, h, text_px;
  TTF_Font *font;
  bool ttf_up;
  SDL_Surface *surface;
  SDL_Renderer *ren;
  SDL_Texture *bg;
  bucket buckets[NBUCKETS];
  bool oom; /* a bucket could not grow */
  legend_entry *legend;
  size_t nlegend;
  /* the zoomed SM's cell labels, drawn over the cells every frame */
  struct label *labels;
  size_t nlabels;
  /* the counters in the panel: text at (x, y + k * row_h), bar under it */
  int32_t cx, cy, cw, row_h;
  /* SM rows of the grid, for the crossbar ports */
  int32_t sm_y0, sm_h, sm_rows;
};

/* ---- drawing primitives ------------------------------------------------------------------ */

static SDL_Rect sdl_rect(ws_viz_rect r) { return (SDL_Rect){r.x, r.y, r.w, r.h}; }

static void set_colour(ws_viz_render *r, ws_viz_rgb c, uint8_t alpha) {
  SDL_SetRenderDrawColor(r->ren, c.r, c.g, c.b, alpha);
}

static void fill(ws_viz_render *r, ws_viz_rgb c, ws_viz_rect rc) {
  SDL_Rect s = sdl_rect(rc);
  set_colour(r, c, 255);
  SDL_RenderFillRect(r->ren, &s);
}

static void outline(ws_viz_render *r, ws_viz_rgb c, ws_viz_rect rc) {
  SDL_Rect s = sdl_rect(rc);
  set_colour(r, c, 255);
  SDL_RenderDrawRect(r->ren, &s);
}

static void box(ws_viz_render *r, ws_viz_rect rc) {
  fill(r, ws_viz_palette(WS_VIZ_COL_BOX), rc);
  outline(r, ws_viz_palette(WS_VIZ_COL_FRAME), rc);
}

/* Queues a cell of colour index `b` (a ws_viz_colour, or WS_VIZ_COL_COUNT +
 * stall colour); false when out of memory. */
static bool push(ws_viz_render *r, int b, ws_viz_rect rc) {
  bucket *k = &r->buckets[b];
  if (k->n == k->cap) {
    int cap = k->cap ? 2 * k->cap : 256;
    SDL_Rect *g = realloc(k->rects, (size_t)cap * sizeof *g);
    if (!g) {
      r->oom = true;
      return false;
    }
    k->rects = g;
    k->cap = cap;
  }
  k->rects[k->n++] = sdl_rect(rc);
  return true;
}

static ws_viz_rgb bucket_rgb(int b) {
  return b < WS_VIZ_COL_COUNT ? ws_viz_palette((ws_viz_colour)b)
                              : ws_viz_palette_stall((uint32_t)b - WS_VIZ_COL_COUNT);
}

static void flush(ws_viz_render *r) {
  for (int b = 0; b < NBUCKETS; b++) {
    bucket *k = &r->buckets[b];
    if (k->n == 0) continue;
    set_colour(r, bucket_rgb(b), 255);
    SDL_RenderFillRects(r->ren, k->rects, k->n);
    k->n = 0;
  }
}

/* A rendered text and where it goes. */
typedef struct label {
  SDL_Texture *t;
  SDL_Rect src, dst;
} label;

/* Renders text with its top at y, cropped to max_w; false when there is
 * nothing to draw. */
static bool make_label(ws_viz_render *r, int32_t x, int32_t y, int32_t max_w, align a, ws_viz_rgb c,
                       const char *s, label *out) {
  if (!s[0] || max_w <= 0) return false;
  SDL_Surface *ts = TTF_RenderUTF8_Blended(r->font, s, (SDL_Color){c.r, c.g, c.b, 255});
  if (!ts) return false;
  out->t = SDL_CreateTextureFromSurface(r->ren, ts);
  int32_t w = ts->w < max_w ? ts->w : max_w;
  int32_t dx = a == ALIGN_LEFT || ts->w > max_w ? 0 : a == ALIGN_CENTRE ? (max_w - ts->w) / 2 : max_w - ts->w;
  out->src = (SDL_Rect){0, 0, w, ts->h};
  out->dst = (SDL_Rect){x + dx, y, w, ts->h};
  SDL_FreeSurface(ts);
  return out->t != NULL;
}

/* Draws text with its top at y, cropped to max_w; returns the width drawn. */
static int32_t text(ws_viz_render *r, int32_t x, int32_t y, int32_t max_w, align a, ws_viz_rgb c,
                    const char *s) {
  label lb;
  if (!make_label(r, x, y, max_w, a, c, s, &lb)) return 0;
  SDL_RenderCopy(r->ren, lb.t, &lb.src, &lb.dst);
  SDL_DestroyTexture(lb.t);
  return lb.dst.w;
}

/* Text in a rect: centred both ways, only where the rect is tall enough. */
static void text_in(ws_viz_render *r, ws_viz_rect rc, ws_viz_colour c, const char *s) {
  if (rc.h < r->text_px + 2 || rc.w < 3 * r->text_px) return;
  int32_t y = rc.y + (rc.h - TTF_FontHeight(r->font)) / 2;
  text(r, rc.x + 2, y, rc.w - 4, ALIGN_CENTRE, ws_viz_palette(c), s);
}

static ws_viz_rect get(const ws_viz_render *r, ws_viz_part part, uint32_t sm, uint32_t i) {
  ws_viz_rect rc = {0, 0, 0, 0};
  ws_viz_layout_rect(r->layout, part, sm, i, &rc);
  return rc;
}

/* ---- the static background ------------------------------------------------------------------ */

static void legend_add(ws_viz_render *r, ws_viz_rgb rgb, const char *name) {
  legend_entry *e = &r->legend[r->nlegend++];
  e->rgb = rgb;
  snprintf(e->label, sizeof e->label, "%s", name);
}

/* What follows the stall reasons, in order; packets of class other or of
 * no named range keep their link's colour. */
static const struct {
  ws_viz_colour c;
  const char *label;
} legend_fixed[] = {
    {WS_VIZ_COL_WARP_DONE, "warp done"},          {WS_VIZ_COL_WARP_EMPTY, "empty slot"},
    {WS_VIZ_COL_CTA_BUSY, "CTA slot busy"},       {WS_VIZ_COL_SMEM_TOUCHED, "smem bank touched"},
    {WS_VIZ_COL_SMEM_CONFLICT, "smem conflict"},  {WS_VIZ_COL_RF_CONFLICT, "RF bank conflict"},
    {WS_VIZ_COL_TENSOR_BUSY, "tensor core busy"}, {WS_VIZ_COL_CACHE_HIT, "cache hits"},
    {WS_VIZ_COL_CACHE_MISS, "cache misses"},      {WS_VIZ_COL_L1_SET_LAST, "L1 set looked up"},
    {WS_VIZ_COL_BANK_OPEN, "DRAM row open"},      {WS_VIZ_COL_BANK_BUSY, "DRAM bank busy"},
    {WS_VIZ_COL_PKT_IMAGE, "image data"},         {WS_VIZ_COL_PKT_WEIGHTS, "weights data"},
    {WS_VIZ_COL_PKT_ACTS, "activations data"},    {WS_VIZ_COL_PKT_SCORES, "scores data"},
    {WS_VIZ_COL_PKT_REQ, "other request"},        {WS_VIZ_COL_PKT_RESP, "other response"},
    {WS_VIZ_COL_PKT_DRAM, "other DRAM"},          {WS_VIZ_COL_PKT_PCIE, "PCIe transfer"},
    {WS_VIZ_COL_PKT_TAGGED, "followed pixel"},
};

static ws_status build_legend(ws_viz_render *r, const ws_viz_render_opts *o) {
  size_t nst = o && o->stall_names ? o->nstall_names : DEFAULT_STALL_NAMES;
  r->legend = calloc(nst + 1 + sizeof legend_fixed / sizeof legend_fixed[0], sizeof *r->legend);
  if (!r->legend) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory for the legend");
  legend_add(r, ws_viz_palette(WS_VIZ_COL_WARP_ISSUING), "warp issuing");
  for (size_t i = 0; i < nst; i++) {
    char name[48];
    if (o && o->stall_names)
      snprintf(name, sizeof name, "%s", o->stall_names[i]);
    else
      snprintf(name, sizeof name, "stall %zu", i);
    legend_add(r, ws_viz_palette_stall((uint32_t)i), name);
  }
  for (size_t i = 0; i < sizeof legend_fixed / sizeof legend_fixed[0]; i++)
    legend_add(r, ws_viz_palette(legend_fixed[i].c), legend_fixed[i].label);
  return WS_OK;
}

/* The counters' places (drawn per frame) and the legend in columns. */
static void draw_panel(ws_viz_render *r) {
  ws_viz_rect p = get(r, WS_VIZ_PART_PANEL, 0, 0);
  fill(r, ws_viz_palette(WS_VIZ_COL_PANEL), p);
  int32_t x = p.x + 8, w = p.w - 16, line = r->text_px + 4, y = p.y + 6;
  text(r, x, y, w, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), "live counters");
  r->cx = x;
  r->cw = w;
  r->cy = y + line + 2;
  r->row_h = line + 7;
  for (int k = 0; k < 5; k++)
    fill(r, ws_viz_palette(WS_VIZ_COL_BAR_BG), (ws_viz_rect){x, r->cy + k * r->row_h + line, w, 3});
  y = r->cy + 5 * r->row_h + 6;
  text(r, x, y, w, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), "legend");
  y += line;
  int32_t rows = (p.y + p.h - 4 - y) / line;
  if (rows < 1) return;
  int32_t cols = (int32_t)((r->nlegend + (size_t)rows - 1) / (size_t)rows), col_w = w / cols;
  int32_t sw = r->text_px - 2;
  for (size_t i = 0; i < r->nlegend; i++) {
    int32_t cx = x + (int32_t)i / rows * col_w, cy = y + (int32_t)i % rows * line;
    fill(r, r->legend[i].rgb, (ws_viz_rect){cx, cy + 2, sw, sw});
    text(r, cx + sw + 4, cy, col_w - sw - 6, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT), r->legend[i].label);
  }
}

static void draw_header_static(ws_viz_render *r) {
  ws_viz_rect hd = get(r, WS_VIZ_PART_HEADER, 0, 0);
  fill(r, ws_viz_palette(WS_VIZ_COL_HEADER), hd);
  char buf[256];
  if (r->view.zoom == WS_VIZ_ZOOM_GPU)
    snprintf(buf, sizeof buf, "%s", r->cfg->gpu.full_name);
  else
    snprintf(buf, sizeof buf, "%s  %s %u", r->cfg->gpu.full_name,
             r->view.zoom == WS_VIZ_ZOOM_SM ? "SM" : "shared memory of SM", r->view.sm);
  text(r, hd.x + hd.w / 2, hd.y + 3, hd.w / 2 - 6, ALIGN_RIGHT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), buf);
}

static void cells(ws_viz_render *r, ws_viz_part part, uint32_t sm, ws_viz_colour c) {
  uint32_t n = ws_viz_layout_count(r->layout, part);
  ws_viz_rect rc;
  for (uint32_t i = 0; i < n; i++)
    if (ws_viz_layout_rect(r->layout, part, sm, i, &rc)) push(r, (int)c, rc);
}

/* A region's caption on its top line, in the zoomed views. */
static void caption(ws_viz_render *r, ws_viz_part part, uint32_t sm, uint32_t i, const char *s) {
  ws_viz_rect rc;
  if (!ws_viz_layout_captions(r->layout) || !ws_viz_layout_rect(r->layout, part, sm, i, &rc)) return;
  text(r, rc.x, rc.y, rc.w, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), s);
}

static void draw_sm_static(ws_viz_render *r, uint32_t sm) {
  ws_viz_rect s = get(r, WS_VIZ_PART_SM, sm, 0);
  box(r, s);
  char buf[64];
  if (ws_viz_layout_sm_titles(r->layout)) {
    snprintf(buf, sizeof buf, "SM %u", sm);
    text(r, s.x + 4, s.y + 2, s.w - 8, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT), buf);
  }
  for (uint32_t sp = 0; sp < r->cfg->sm.subpartitions; sp++) {
    snprintf(buf, sizeof buf, "sub-partition %u", sp);
    caption(r, WS_VIZ_PART_SUBPART, sm, sp, buf);
  }
  caption(r, WS_VIZ_PART_CTAS, sm, 0, "CTA slots");
  snprintf(buf, sizeof buf,
           r->view.zoom == WS_VIZ_ZOOM_SMEM
               ? "shared memory: %u banks, a cell per wavefront from the bottom up"
               : "shared memory: %u banks",
           r->cfg->smem.banks);
  caption(r, WS_VIZ_PART_SMEM, sm, 0, buf);
  snprintf(buf, sizeof buf, "L1: %u sets", r->cfg->geom.l1_sets);
  caption(r, WS_VIZ_PART_L1, sm, 0, buf);
  cells(r, WS_VIZ_PART_WARP_SLOT, sm, WS_VIZ_COL_WARP_EMPTY);
  cells(r, WS_VIZ_PART_RF_BANK, sm, WS_VIZ_COL_RF_IDLE);
  cells(r, WS_VIZ_PART_TENSOR, sm, WS_VIZ_COL_TENSOR_IDLE);
  cells(r, WS_VIZ_PART_CTA_SLOT, sm, WS_VIZ_COL_CTA_IDLE);
  cells(r, WS_VIZ_PART_SMEM_BANK, sm, WS_VIZ_COL_SMEM_IDLE);
  cells(r, WS_VIZ_PART_SMEM_WAVE, sm, WS_VIZ_COL_BANK_CLOSED);
  cells(r, WS_VIZ_PART_L1_SET, sm, WS_VIZ_COL_CACHE_IDLE);
  flush(r);
  if (r->view.zoom == WS_VIZ_ZOOM_SMEM)
    for (uint32_t b = 0; b < r->cfg->smem.banks; b++) {
      snprintf(buf, sizeof buf, "%u", b);
      text_in(r, get(r, WS_VIZ_PART_SMEM_BANK, sm, b), WS_VIZ_COL_TEXT, buf);
    }
}

/* A caption in a band or box's top-left corner, where it fits. */
static void corner(ws_viz_render *r, ws_viz_rect rc, const char *s) {
  if (rc.h >= r->text_px + 2)
    text(r, rc.x + 3, rc.y + 1, rc.w - 6, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), s);
}

static void draw_host_static(ws_viz_render *r) {
  ws_viz_rect host = get(r, WS_VIZ_PART_HOST, 0, 0);
  box(r, host);
  text_in(r, host, WS_VIZ_COL_TEXT, "host RAM");
  char buf[64];
  snprintf(buf, sizeof buf, "PCIe %u x%u", r->cfg->pcie.gen, r->cfg->pcie.lanes);
  ws_viz_rect lane0 = get(r, WS_VIZ_PART_PCIE, 0, 0);
  if (lane0.y - r->text_px - 2 >= host.y)
    text(r, lane0.x, lane0.y - r->text_px - 3, lane0.w, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), buf);
  for (uint32_t d = 0; d < 2; d++) {
    ws_viz_rect lane = get(r, WS_VIZ_PART_PCIE, 0, d), ce = get(r, WS_VIZ_PART_COPY_ENGINE, 0, d);
    fill(r, ws_viz_palette(WS_VIZ_COL_LINK), lane);
    outline(r, ws_viz_palette(WS_VIZ_COL_FRAME), lane);
    text_in(r, lane, WS_VIZ_COL_TEXT_DIM, d == 0 ? "H2D" : "D2H");
    box(r, ce);
    text_in(r, ce, WS_VIZ_COL_TEXT, "CE");
  }
}

static void draw_memory_static(ws_viz_render *r) {
  const ws_gpu_cfg *c = r->cfg;
  char buf[64];
  ws_viz_rect hbm = get(r, WS_VIZ_PART_HBM, 0, 0);
  if (get(r, WS_VIZ_PART_HBM_CHANNEL, 0, 0).y - hbm.y > r->text_px) {
    snprintf(buf, sizeof buf, "DRAM: %u channels x %u banks", c->hbm.channels, c->hbm.banks_per_channel);
    text(r, hbm.x, hbm.y, hbm.w, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), buf);
  }
  for (uint32_t ch = 0; ch < c->hbm.channels; ch++) box(r, get(r, WS_VIZ_PART_HBM_CHANNEL, 0, ch));
  cells(r, WS_VIZ_PART_HBM_BANK, 0, WS_VIZ_COL_BANK_CLOSED);
  ws_viz_rect dram = get(r, WS_VIZ_PART_DRAM_LINK, 0, 0), xbar = get(r, WS_VIZ_PART_XBAR, 0, 0);
  fill(r, ws_viz_palette(WS_VIZ_COL_LINK), dram);
  corner(r, dram, "DRAM");
  fill(r, ws_viz_palette(WS_VIZ_COL_LINK), xbar);
  corner(r, xbar, "crossbar");
  for (uint32_t p = 0; p < c->geom.l2_partitions; p++) {
    ws_viz_rect part = get(r, WS_VIZ_PART_L2_PARTITION, 0, p);
    box(r, part);
    uint32_t first = (p * c->l2.slices + c->geom.l2_partitions - 1) / c->geom.l2_partitions;
    if (get(r, WS_VIZ_PART_L2_SLICE, 0, first).y - part.y > r->text_px) {
      snprintf(buf, sizeof buf, c->geom.l2_partitions > 1 ? "L2 partition %u" : "L2", p);
      corner(r, part, buf);
    }
  }
  cells(r, WS_VIZ_PART_L2_SLICE, 0, WS_VIZ_COL_CACHE_IDLE);
  flush(r);
}

/* The SM grid's rows, for the crossbar ports. */
static void measure_sm_rows(ws_viz_render *r) {
  ws_viz_rect s0 = get(r, WS_VIZ_PART_SM, 0, 0), last = get(r, WS_VIZ_PART_SM, r->cfg->gpu.num_sms - 1, 0);
  r->sm_y0 = s0.y;
  r->sm_h = s0.h > 0 ? s0.h : 1;
  r->sm_rows = (last.y - s0.y) / r->sm_h + 1;
}

static ws_status draw_static(ws_viz_render *r) {
  fill(r, ws_viz_palette(WS_VIZ_COL_BG), (ws_viz_rect){0, 0, r->w, r->h});
  draw_header_static(r);
  draw_panel(r);
  if (r->view.zoom == WS_VIZ_ZOOM_GPU) {
    draw_host_static(r);
    draw_memory_static(r);
    for (uint32_t sm = 0; sm < r->cfg->gpu.num_sms; sm++) draw_sm_static(r, sm);
    measure_sm_rows(r);
  } else {
    draw_sm_static(r, r->view.sm);
  }
  SDL_RenderFlush(r->ren);
  if (r->oom) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory drawing the background");
  r->bg = SDL_CreateTextureFromSurface(r->ren, r->surface);
  if (!r->bg)
    return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "cannot cache the background (SDL: %s)", SDL_GetError());
  SDL_SetTextureBlendMode(r->bg, SDL_BLENDMODE_NONE);
  return WS_OK;
}

/* One label in a cell's top-left corner, kept only where it fits. */
static bool add_label(ws_viz_render *r, ws_viz_part part, uint32_t sm, uint32_t i, const char *s) {
  ws_viz_rect rc;
  label lb;
  if (!ws_viz_layout_rect(r->layout, part, sm, i, &rc) ||
      !make_label(r, rc.x + 3, rc.y + 2, rc.w - 6, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT), s, &lb))
    return true;
  if (lb.dst.w < lb.src.w || lb.dst.h + 4 > rc.h) {
    SDL_DestroyTexture(lb.t);
    return true;
  }
  label *g = realloc(r->labels, (r->nlabels + 1) * sizeof *g);
  if (!g) {
    SDL_DestroyTexture(lb.t);
    return false;
  }
  r->labels = g;
  r->labels[r->nlabels++] = lb;
  return true;
}

/* The SM view names its cells: warp slots, RF banks, tensor cores, shared-memory banks. */
static ws_status build_labels(ws_viz_render *r) {
  const ws_gpu_cfg *c = r->cfg;
  uint32_t sm = r->view.sm, banks = c->regfile.banks_per_subpartition;
  char buf[32];
  bool ok = true;
  for (uint32_t i = 0; i < c->sm.max_warps_per_sm && ok; i++) {
    snprintf(buf, sizeof buf, "%u", i);
    ok = add_label(r, WS_VIZ_PART_WARP_SLOT, sm, i, buf);
  }
  for (uint32_t i = 0; i < c->sm.subpartitions * banks && ok; i++) {
    snprintf(buf, sizeof buf, "RF %u", i % banks);
    ok = add_label(r, WS_VIZ_PART_RF_BANK, sm, i, buf);
  }
  for (uint32_t i = 0; i < c->sm.subpartitions && ok; i++)
    ok = add_label(r, WS_VIZ_PART_TENSOR, sm, i, "tensor");
  for (uint32_t i = 0; i < c->smem.banks && ok; i++) {
    snprintf(buf, sizeof buf, "%u", i);
    ok = add_label(r, WS_VIZ_PART_SMEM_BANK, sm, i, buf);
  }
  return ok ? WS_OK : ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory for the labels");
}

static void draw_labels(ws_viz_render *r) {
  for (size_t i = 0; i < r->nlabels; i++) {
    label *lb = &r->labels[i];
    fill(r, ws_viz_palette(WS_VIZ_COL_BOX),
         (ws_viz_rect){lb->dst.x - 2, lb->dst.y, lb->dst.w + 4, lb->dst.h});
    SDL_RenderCopy(r->ren, lb->t, &lb->src, &lb->dst);
  }
}

/* ---- create / destroy -------------------------------------------------------------------------- */

ws_status ws_viz_render_create(ws_ctx *ctx, const ws_viz_layout *layout, const ws_viz_render_opts *opts,
                               ws_viz_render **out) {
  *out = NULL;
  ws_viz_render *r = calloc(1, sizeof *r);
  if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the renderer");
  r->ctx = ctx;
  r->layout = layout;
  r->cfg = ws_viz_layout_cfg(layout);
  r->view = ws_viz_layout_view(layout);
  r->text_px = ws_viz_layout_text_px(layout);
  ws_viz_layout_size(layout, &r->w, &r->h);
  const char *font = opts && opts->font_path ? opts->font_path : WS_VIZ_FONT_DEFAULT;
  ws_status st = WS_OK;
  if (TTF_Init() != 0) {
    st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot start SDL_ttf: %s", TTF_GetError());
  } else {
    r->ttf_up = true;
    /* a font's pixel height runs about 1.2 x its point size */
    r->font = TTF_OpenFont(font, r->text_px * 5 / 6 + 1);
    if (!r->font) st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open font '%s': %s", font, TTF_GetError());
  }
  if (st == WS_OK) {
    r->surface = SDL_CreateRGBSurfaceWithFormat(0, r->w, r->h, 32, SDL_PIXELFORMAT_RGB888);
    r->ren = r->surface ? SDL_CreateSoftwareRenderer(r->surface) : NULL;
    if (!r->ren)
      st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "cannot make a %dx%d software surface (SDL: %s)", r->w, r->h,
                       SDL_GetError());
  }
  if (st == WS_OK) st = build_legend(r, opts);
  if (st == WS_OK) st = draw_static(r);
  if (st == WS_OK && r->view.zoom == WS_VIZ_ZOOM_SM) st = build_labels(r);
  if (st != WS_OK) {
    ws_viz_render_destroy(r);
    return st;
  }
  *out = r;
  return WS_OK;
}

void ws_viz_render_destroy(ws_viz_render *r) {
  if (!r) return;
  for (int b = 0; b < NBUCKETS; b++) free(r->buckets[b].rects);
  free(r->legend);
  for (size_t i = 0; i < r->nlabels; i++) SDL_DestroyTexture(r->labels[i].t);
  free(r->labels);
  if (r->bg) SDL_DestroyTexture(r->bg);
  if (r->ren) SDL_DestroyRenderer(r->ren);
  SDL_FreeSurface(r->surface);
  if (r->font) TTF_CloseFont(r->font);
  if (r->ttf_up) TTF_Quit();
  free(r);
}

SDL_Surface *ws_viz_render_surface(const ws_viz_render *r) { return r->surface; }
const ws_viz_layout *ws_viz_render_layout(const ws_viz_render *r) { return r->layout; }

/* ---- one frame ------------------------------------------------------------------------------------ */

static ws_status check_packets(ws_viz_render *r, const ws_viz_frame *f) {
  const ws_gpu_cfg *c = r->cfg;
  for (size_t i = 0; i < f->npackets; i++) {
    const ws_viz_packet *p = &f->packets[i];
    if (p->link >= WS_VIZ_LINK_COUNT)
      return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: packet %zu: unknown link %u", i, p->link);
    bool xbar = p->link == WS_VIZ_LINK_XBAR_REQ || p->link == WS_VIZ_LINK_XBAR_RESP;
    if (xbar && (p->sm >= c->gpu.num_sms || p->slice >= c->l2.slices))
      return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                         "frame: packet %zu: SM %u -> slice %u out of range (%u SMs, %u slices)", i, p->sm,
                         p->slice, c->gpu.num_sms, c->l2.slices);
    if (p->link == WS_VIZ_LINK_DRAM && (p->channel >= c->hbm.channels || p->slice >= c->l2.slices))
      return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                         "frame: packet %zu: channel %u -> slice %u out of range (%u channels, %u slices)", i,
                         p->channel, p->slice, c->hbm.channels, c->l2.slices);
  }
  return WS_OK;
}

static ws_status check_frame(ws_viz_render *r, const ws_viz_frame *f) {
  const ws_gpu_cfg *c = r->cfg;
  if (f->num_sms != c->gpu.num_sms || (f->warp && f->warp_slots != c->sm.max_warps_per_sm))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: %u SMs x %u warp slots, but %s has %u x %u",
                       f->num_sms, f->warp_slots, c->gpu.name, c->gpu.num_sms, c->sm.max_warps_per_sm);
  if ((f->rf_conflict || f->tensor_busy) && f->subpartitions != c->sm.subpartitions)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: %u sub-partitions, but %s has %u", f->subpartitions,
                       c->gpu.name, c->sm.subpartitions);
  if (f->cta_busy && f->ctas_per_sm > c->sm.max_ctas_per_sm)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: %u CTA slots per SM, but %s has %u", f->ctas_per_sm,
                       c->gpu.name, c->sm.max_ctas_per_sm);
  if ((f->l2_lookups || f->l2_hits) && f->num_slices != c->l2.slices)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: %u L2 slices, but %s has %u", f->num_slices,
                       c->gpu.name, c->l2.slices);
  if ((f->bank_row || f->bank_busy) &&
      (f->channels != c->hbm.channels || f->banks_per_channel != c->hbm.banks_per_channel))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "frame: %u HBM channels x %u banks, but %s has %u x %u",
                       f->channels, f->banks_per_channel, c->gpu.name, c->hbm.channels,
                       c->hbm.banks_per_channel);
  return check_packets(r, f);
}

static int warp_bucket(uint8_t state) {
  switch (state) {
  case WS_VIZ_WARP_ISSUING: return WS_VIZ_COL_WARP_ISSUING;
  case WS_VIZ_WARP_DONE: return WS_VIZ_COL_WARP_DONE;
  default: return WS_VIZ_COL_COUNT + (int)((state - WS_VIZ_WARP_STALL0) % WS_VIZ_STALL_COLOURS);
  }
}

static void draw_warps(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  uint32_t n = f->warp_slots;
  ws_viz_rect rc;
  if (!f->warp) return;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t st = f->warp[(size_t)sm * n + i];
    if (st != WS_VIZ_WARP_EMPTY && ws_viz_layout_rect(r->layout, WS_VIZ_PART_WARP_SLOT, sm, i, &rc))
      push(r, warp_bucket(st), rc);
  }
}

static void draw_ctas(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  uint32_t n = r->cfg->sm.max_ctas_per_sm, used = f->cta_busy ? f->ctas_per_sm : 0;
  ws_viz_rect rc;
  if (!f->cta_busy || used == 0) return;
  for (uint32_t i = 0; i < n; i++) {
    if (!ws_viz_layout_rect(r->layout, WS_VIZ_PART_CTA_SLOT, sm, i, &rc)) continue;
    if (i >= used)
      push(r, WS_VIZ_COL_CTA_UNUSED, rc);
    else if (f->cta_busy[(size_t)sm * used + i])
      push(r, WS_VIZ_COL_CTA_BUSY, rc);
  }
}

/* Banks touched by the shared access in progress; in the smem view each
 * touched bank's column lights one cell per wavefront. */
static void draw_smem(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  if (!f->smem_banks) return;
  uint32_t mask = f->smem_banks[sm], waves = f->smem_wavefronts ? f->smem_wavefronts[sm] : 1;
  uint32_t banks = r->cfg->smem.banks < 32 ? r->cfg->smem.banks : 32;
  int colour = waves > 1 ? WS_VIZ_COL_SMEM_CONFLICT : WS_VIZ_COL_SMEM_TOUCHED;
  ws_viz_rect rc;
  if (waves > WS_VIZ_SMEM_MAX_WAVES) waves = WS_VIZ_SMEM_MAX_WAVES;
  for (uint32_t b = 0; b < banks; b++) {
    if (!(mask >> b & 1u)) continue;
    /* the smem view keeps its bank numbers; the stacks below show the access */
    if (r->view.zoom != WS_VIZ_ZOOM_SMEM && ws_viz_layout_rect(r->layout, WS_VIZ_PART_SMEM_BANK, sm, b, &rc))
      push(r, colour, rc);
    for (uint32_t k = 0; k < waves; k++)
      if (ws_viz_layout_rect(r->layout, WS_VIZ_PART_SMEM_WAVE, sm, k * r->cfg->smem.banks + b, &rc))
        push(r, k == 0 ? WS_VIZ_COL_SMEM_TOUCHED : WS_VIZ_COL_SMEM_CONFLICT, rc);
  }
}

static void draw_units(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  uint32_t nsp = r->cfg->sm.subpartitions, banks = r->cfg->regfile.banks_per_subpartition;
  ws_viz_rect rc;
  for (uint32_t sp = 0; sp < nsp; sp++) {
    if (f->rf_conflict && f->rf_conflict[(size_t)sm * nsp + sp])
      for (uint32_t b = 0; b < banks; b++)
        if (ws_viz_layout_rect(r->layout, WS_VIZ_PART_RF_BANK, sm, sp * banks + b, &rc))
          push(r, WS_VIZ_COL_RF_CONFLICT, rc);
    if (f->tensor_busy && f->tensor_busy[(size_t)sm * nsp + sp] &&
        ws_viz_layout_rect(r->layout, WS_VIZ_PART_TENSOR, sm, sp, &rc))
      push(r, WS_VIZ_COL_TENSOR_BUSY, rc);
  }
}

/* The L1's sets shaded by the window's hit fraction, the last set looked
 * up in white. */
static void draw_l1(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  if (!f->l1_lookups || f->l1_lookups[sm] == 0) return;
  ws_viz_rgb c = ws_viz_palette_cache(f->l1_lookups[sm], f->l1_hits ? f->l1_hits[sm] : 0);
  uint32_t last = f->l1_set_touched ? f->l1_set_touched[sm] : UINT32_MAX;
  ws_viz_rect rc;
  for (uint32_t s = 0; s < r->cfg->geom.l1_sets; s++) {
    if (!ws_viz_layout_rect(r->layout, WS_VIZ_PART_L1_SET, sm, s, &rc)) continue;
    if (s == last)
      push(r, WS_VIZ_COL_L1_SET_LAST, rc);
    else
      fill(r, c, rc);
  }
}

static void draw_sm(ws_viz_render *r, const ws_viz_frame *f, uint32_t sm) {
  draw_warps(r, f, sm);
  draw_ctas(r, f, sm);
  draw_smem(r, f, sm);
  draw_units(r, f, sm);
  draw_l1(r, f, sm);
}

/* Slices shaded by hit fraction, with a bar along the bottom for their
 * lookups against the busiest slice's. */
static void draw_l2(ws_viz_render *r, const ws_viz_frame *f) {
  if (!f->l2_lookups) return;
  uint32_t n = r->cfg->l2.slices, most = 1;
  for (uint32_t s = 0; s < n; s++)
    if (f->l2_lookups[s] > most) most = f->l2_lookups[s];
  for (uint32_t s = 0; s < n; s++) {
    uint32_t k = f->l2_lookups[s];
    if (k == 0) continue;
    ws_viz_rect rc = get(r, WS_VIZ_PART_L2_SLICE, 0, s);
    fill(r, ws_viz_palette_cache(k, f->l2_hits ? f->l2_hits[s] : 0), rc);
    int32_t bar_h = rc.h >= 8 ? 2 : 1, bar_w = (int32_t)((int64_t)rc.w * k / most);
    push(r, WS_VIZ_COL_ACTIVITY, (ws_viz_rect){rc.x, rc.y + rc.h - bar_h, bar_w > 0 ? bar_w : 1, bar_h});
  }
}

static void draw_hbm(ws_viz_render *r, const ws_viz_frame *f) {
  uint32_t n = r->cfg->hbm.channels * r->cfg->hbm.banks_per_channel;
  ws_viz_rect rc;
  for (uint32_t i = 0; i < n; i++) {
    bool busy = f->bank_busy && f->bank_busy[i], open = f->bank_row && f->bank_row[i] != UINT32_MAX;
    if ((busy || open) && ws_viz_layout_rect(r->layout, WS_VIZ_PART_HBM_BANK, 0, i, &rc))
      push(r, busy ? WS_VIZ_COL_BANK_BUSY : WS_VIZ_COL_BANK_OPEN, rc);
  }
}

/* ---- packets ------------------------------------------------------------------------------------- */

static int32_t lerp(int32_t a, int32_t b, float t) { return a + (int32_t)floorf(t * (float)(b - a) + 0.5f); }

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Where a packet is: the ends of its path at progress 0 and 1. */
static bool packet_path(const ws_viz_render *r, const ws_viz_packet *p, int32_t *x0, int32_t *y0, int32_t *x1,
                        int32_t *y1, ws_viz_rect *band) {
  switch (p->link) {
  case WS_VIZ_LINK_XBAR_REQ:
  case WS_VIZ_LINK_XBAR_RESP: {
    *band = get(r, WS_VIZ_PART_XBAR, 0, 0);
    ws_viz_rect s = get(r, WS_VIZ_PART_SM, p->sm, 0), sl = get(r, WS_VIZ_PART_L2_SLICE, 0, p->slice);
    int32_t row = (s.y - r->sm_y0) / r->sm_h;
    int32_t smx = s.x + (int32_t)((int64_t)s.w * (2 * row + 1) / (2 * r->sm_rows));
    int32_t slx = sl.x + sl.w / 2, top = band->y, bottom = band->y + band->h - 1;
    bool req = p->link == WS_VIZ_LINK_XBAR_REQ;
    *x0 = req ? smx : slx, *y0 = req ? bottom : top, *x1 = req ? slx : smx, *y1 = req ? top : bottom;
    return true;
  }
  case WS_VIZ_LINK_DRAM: {
    *band = get(r, WS_VIZ_PART_DRAM_LINK, 0, 0);
    ws_viz_rect ch = get(r, WS_VIZ_PART_HBM_CHANNEL, 0, p->channel);
    ws_viz_rect sl = get(r, WS_VIZ_PART_L2_SLICE, 0, p->slice);
    *x0 = ch.x + ch.w / 2;
    *x1 = sl.x + sl.w / 2;
    *y0 = band->y, *y1 = band->y + band->h - 1;
    return true;
  }
  case WS_VIZ_LINK_PCIE_H2D:
  case WS_VIZ_LINK_PCIE_D2H: {
    *band = get(r, WS_VIZ_PART_PCIE, 0, p->link == WS_VIZ_LINK_PCIE_H2D ? 0 : 1);
    int32_t left = band->x, right = band->x + band->w - 1, mid = band->y + band->h / 2;
    bool h2d = p->link == WS_VIZ_LINK_PCIE_H2D;
    *x0 = h2d ? left : right, *x1 = h2d ? right : left, *y0 = *y1 = mid;
    return true;
  }
  default: return false;
  }
}

/* A square of side s centred at (x, y), kept inside the band. */
static ws_viz_rect square_in(int32_t x, int32_t y, int32_t s, ws_viz_rect band) {
  if (s > band.w) s = band.w;
  if (s > band.h) s = band.h;
  return (ws_viz_rect){clampi(x - s / 2, band.x, band.x + band.w - s),
                       clampi(y - s / 2, band.y, band.y + band.h - s), s, s};
}

/* Where a packet is drawn: its centre, its side (growing with bytes) and
 * the band it stays inside; false when it has no path in this view. */
static bool packet_place(const ws_viz_render *r, const ws_viz_packet *p, int32_t *x, int32_t *y,
                         int32_t *side, ws_viz_rect *band) {
  int32_t x0, y0, x1, y1;
  if (!packet_path(r, p, &x0, &y0, &x1, &y1, band) || band->w < 1 || band->h < 1) return false;
  float t = p->progress < 0.0f ? 0.0f : p->progress > 1.0f ? 1.0f : p->progress;
  *x = lerp(x0, x1, t), *y = lerp(y0, y1, t);
  *side = 2 + (int32_t)((p->bytes < 256 ? p->bytes : 256) / 64);
  return true;
}

static void draw_packets(ws_viz_render *r, const ws_viz_frame *f) {
  SDL_SetRenderDrawBlendMode(r->ren, SDL_BLENDMODE_BLEND);
  for (size_t i = 0; i < f->npackets; i++) {
    const ws_viz_packet *p = &f->packets[i];
    int32_t x, y, s;
    ws_viz_rect band;
    if (!packet_place(r, p, &x, &y, &s, &band)) continue;
    if (p->tagged) {
      SDL_Rect g = sdl_rect(square_in(x, y, 3 * s + 2, band));
      set_colour(r, ws_viz_palette(WS_VIZ_COL_GLOW), 128);
      SDL_RenderFillRect(r->ren, &g);
    }
    push(r, p->tagged ? WS_VIZ_COL_PKT_TAGGED : (int)ws_viz_palette_packet(p->link, p->tensor),
         square_in(x, y, s, band));
  }
  SDL_SetRenderDrawBlendMode(r->ren, SDL_BLENDMODE_NONE);
}

bool ws_viz_render_packet_at(const ws_viz_render *r, const ws_viz_frame *f, int32_t x, int32_t y, size_t *i) {
  if (r->view.zoom != WS_VIZ_ZOOM_GPU || !f || !f->packets) return false;
  for (size_t k = f->npackets; k-- > 0;) { /* the last drawn is on top */
    int32_t px, py, s;
    ws_viz_rect band;
    if (!packet_place(r, &f->packets[k], &px, &py, &s, &band)) continue;
    ws_viz_rect q = square_in(px, py, s, band);
    /* a 2-pixel square is hard to point at: two pixels of slack around it */
    if (x >= q.x - 2 && y >= q.y - 2 && x < q.x + q.w + 2 && y < q.y + q.h + 2) {
      *i = k;
      return true;
    }
  }
  return false;
}

/* ---- text ---------------------------------------------------------------------------------------- */

static void draw_header(ws_viz_render *r, const ws_viz_frame *f, const char *kernel) {
  ws_viz_rect hd = get(r, WS_VIZ_PART_HEADER, 0, 0);
  char buf[256];
  snprintf(buf, sizeof buf, "%s    launch %u    cycle %llu    window %u cycles", kernel ? kernel : "-",
           f->launch, (unsigned long long)f->cycle, f->window_cycles);
  text(r, hd.x + 6, hd.y + 3, hd.w / 2, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT), buf);
}

/* One counter: its line of text and its bar (fraction num / den). */
static void counter(ws_viz_render *r, int k, const char *s, double num, double den) {
  int32_t y = r->cy + k * r->row_h, line = r->text_px + 4;
  text(r, r->cx, y, r->cw, ALIGN_LEFT, ws_viz_palette(WS_VIZ_COL_TEXT), s);
  if (!(den > 0) || !(num > 0)) return;
  double frac = num >= den ? 1.0 : num / den;
  int32_t w = (int32_t)(frac * r->cw + 0.5);
  if (w > 0) fill(r, ws_viz_palette(WS_VIZ_COL_BAR), (ws_viz_rect){r->cx, y + line, w, 3});
}

static void pct_line(char *buf, size_t n, const char *name, double pct) {
  if (pct < 0)
    snprintf(buf, n, "%s hits  -", name);
  else
    snprintf(buf, n, "%s hits  %.1f %%", name, pct);
}

static void draw_counters(ws_viz_render *r, const ws_viz_frame *f) {
  char buf[128];
  double slots = (double)r->cfg->gpu.num_sms * r->cfg->sm.max_warps_per_sm;
  snprintf(buf, sizeof buf, "active warps  %u of %.0f", f->active_warps, slots);
  counter(r, 0, buf, f->active_warps, slots);
  pct_line(buf, sizeof buf, "L1", f->l1_hit_pct);
  counter(r, 1, buf, f->l1_hit_pct, 100.0);
  pct_line(buf, sizeof buf, "L2", f->l2_hit_pct);
  counter(r, 2, buf, f->l2_hit_pct, 100.0);
  snprintf(buf, sizeof buf, "DRAM  %.0f of %.0f GB/s", f->dram_gbps, f->dram_peak_gbps);
  counter(r, 3, buf, f->dram_gbps, f->dram_peak_gbps);
  snprintf(buf, sizeof buf, "crossbar  %.0f of %.0f GB/s", f->xbar_gbps, f->xbar_peak_gbps);
  counter(r, 4, buf, f->xbar_gbps, f->xbar_peak_gbps);
}

ws_status ws_viz_render_draw(ws_viz_render *r, const ws_viz_frame *f, const char *kernel) {
  ws_status st = check_frame(r, f);
  if (st != WS_OK) return st;
  SDL_RenderCopy(r->ren, r->bg, NULL, NULL);
  if (r->view.zoom == WS_VIZ_ZOOM_GPU) {
    draw_l2(r, f);
    draw_hbm(r, f);
    for (uint32_t sm = 0; sm < r->cfg->gpu.num_sms; sm++) draw_sm(r, f, sm);
    if (f->packets) draw_packets(r, f);
  } else {
    draw_sm(r, f, r->view.sm);
  }
  flush(r);
  if (r->oom) {
    r->oom = false;
    return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory drawing a frame");
  }
  draw_labels(r);
  draw_header(r, f, kernel);
  draw_counters(r, f);
  SDL_RenderFlush(r->ren);
  return WS_OK;
}
