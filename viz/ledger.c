/* ledger.c - pixel mode's panel and ring on the picture (ledger.h). */
#include "viz/ledger.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "viz/render.h"

#define FONT_PT 12
#define PANEL_W 700 /* wide enough for the longest component text at FONT_PT */
#define HOP_ROWS 9  /* the hops listed around the current one */
#define MARGIN 8
#define PAD 6

/* The columns of a hop row: x from the panel's text edge, and width. */
static const int32_t col_x[6] = {0, 30, 130, 392, 500, 600};
static const int32_t col_w[6] = {28, 100, 262, 108, 100, 80};

struct ws_viz_ledger {
  TTF_Font *font;
  bool ttf_up;
  int32_t line_h;
  ws_viz_rect panel;
};

ws_status ws_viz_ledger_create(ws_ctx *ctx, const char *font_path, ws_viz_ledger **out) {
  *out = NULL;
  ws_viz_ledger *ld = calloc(1, sizeof *ld);
  if (!ld) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the ledger");
  ws_status st = WS_OK;
  const char *font = font_path ? font_path : WS_VIZ_FONT_DEFAULT;
  if (TTF_Init() != 0) {
    st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot start SDL_ttf: %s", TTF_GetError());
  } else {
    ld->ttf_up = true;
    ld->font = TTF_OpenFont(font, FONT_PT);
    if (!ld->font) st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open font '%s': %s", font, TTF_GetError());
  }
  if (st != WS_OK) {
    ws_viz_ledger_destroy(ld);
    return st;
  }
  ld->line_h = TTF_FontLineSkip(ld->font) + 1;
  *out = ld;
  return WS_OK;
}

void ws_viz_ledger_destroy(ws_viz_ledger *ld) {
  if (!ld) return;
  if (ld->font) TTF_CloseFont(ld->font);
  if (ld->ttf_up) TTF_Quit();
  free(ld);
}

ws_viz_rect ws_viz_ledger_panel(const ws_viz_ledger *ld) { return ld->panel; }

/* ---- drawing helpers ------------------------------------------------------------------------- */

static Uint32 map(SDL_Surface *s, ws_viz_rgb c) { return SDL_MapRGB(s->format, c.r, c.g, c.b); }

/* Text with its top left at (x, y), cropped to max_w. */
static void text(ws_viz_ledger *ld, SDL_Surface *s, int32_t x, int32_t y, int32_t max_w, ws_viz_rgb c,
                 const char *str) {
  if (!str[0] || max_w <= 0) return;
  SDL_Surface *ts = TTF_RenderUTF8_Blended(ld->font, str, (SDL_Color){c.r, c.g, c.b, 255});
  if (!ts) return;
  SDL_Rect src = {0, 0, ts->w < max_w ? ts->w : max_w, ts->h}, dst = {x, y, src.w, src.h};
  SDL_BlitSurface(ts, &src, s, &dst);
  SDL_FreeSurface(ts);
}

static void frame_rect(SDL_Surface *s, SDL_Rect r, int32_t thick, Uint32 c) {
  SDL_Rect e[4] = {{r.x, r.y, r.w, thick},
                   {r.x, r.y + r.h - thick, r.w, thick},
                   {r.x, r.y, thick, r.h},
                   {r.x + r.w - thick, r.y, thick, r.h}};
  SDL_FillRects(s, e, 4, c);
}

static void at_least(int32_t *at, int32_t *len, int32_t min) {
  if (*len >= min) return;
  *at -= (min - *len) / 2;
  *len = min;
}

ws_viz_rect ws_viz_ledger_ring(ws_viz_rect rc) {
  at_least(&rc.x, &rc.w, WS_VIZ_LEDGER_RING_MIN_PX);
  at_least(&rc.y, &rc.h, WS_VIZ_LEDGER_RING_MIN_PX);
  int32_t g = WS_VIZ_LEDGER_RING_GAP + WS_VIZ_LEDGER_RING_PX;
  return (ws_viz_rect){rc.x - g, rc.y - g, rc.w + 2 * g, rc.h + 2 * g};
}

static void draw_ring(SDL_Surface *s, ws_viz_rect rc) {
  ws_viz_rect o = ws_viz_ledger_ring(rc);
  frame_rect(s, (SDL_Rect){o.x, o.y, o.w, o.h}, WS_VIZ_LEDGER_RING_PX, map(s, WS_VIZ_LEDGER_RING_RGB));
}

static bool overlap(ws_viz_rect a, ws_viz_rect b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* ---- the panel's text ---------------------------------------------------------------------- */

/* "5", "0-31", "3 of 12-28" (as the ledger prints lanes) */
static void lanes_text(uint32_t lanes, char *buf, size_t n) {
  int lo = __builtin_ctz(lanes), hi = 31 - __builtin_clz(lanes), count = __builtin_popcount(lanes);
  if (count == 1)
    snprintf(buf, n, "lane %d", lo);
  else if (count == hi - lo + 1)
    snprintf(buf, n, "lanes %d-%d", lo, hi);
  else
    snprintf(buf, n, "%d lanes of %d-%d", count, lo, hi);
}

/* The line under the title: where the current hop is, in words. */
static void detail(const ws_viz_walk *w, size_t i, char *buf, size_t n) {
  const ws_viz_walk_stop *s = ws_viz_walk_at(w, i);
  const ws_journey_hop *h = ws_viz_walk_hop(w, i);
  if (s->host) {
    snprintf(buf, n, "host-side, at %" PRIu64 " ns outside every launch: shown at the %s of launch %u",
             h->first, s->at_end ? "end" : "start", s->launch);
    return;
  }
  int k = snprintf(buf, n, "launch %u, cycle %" PRIu64, s->launch, h->first);
  if (h->sm != WS_PROBE_NONE && k > 0 && (size_t)k < n)
    k += snprintf(buf + k, n - (size_t)k, ", SM %u", h->sm);
  if (h->warp != WS_PROBE_NONE && k > 0 && (size_t)k < n)
    k += snprintf(buf + k, n - (size_t)k, ", warp %u", h->warp);
  if (h->lanes && k > 0 && (size_t)k < n) {
    char lanes[32];
    lanes_text(h->lanes, lanes, sizeof lanes);
    snprintf(buf + k, n - (size_t)k, ", %s", lanes);
  }
}

static void hop_row(ws_viz_ledger *ld, SDL_Surface *s, int32_t x, int32_t y, const ws_viz_walk *w, size_t i,
                    bool current) {
  const ws_journey_hop *h = ws_viz_walk_hop(w, i);
  const ws_viz_walk_stop *st = ws_viz_walk_at(w, i);
  char cell[6][80];
  snprintf(cell[0], sizeof cell[0], "%zu", i + 1);
  snprintf(cell[1], sizeof cell[1], "%s", ws_journey_level_name((ws_journey_level)h->level));
  snprintf(cell[2], sizeof cell[2], "%s", h->component);
  snprintf(cell[3], sizeof cell[3], "%s", ws_viz_walk_step_name(w, i));
  if (st->host)
    snprintf(cell[4], sizeof cell[4], "%" PRIu64 " ns", h->first);
  else
    snprintf(cell[4], sizeof cell[4], "%" PRIu64, h->first);
  snprintf(cell[5], sizeof cell[5], "%" PRIu64 " %s", h->spent, st->host ? "ns" : "cyc");
  ws_viz_rgb c = current ? WS_VIZ_LEDGER_RING_RGB : ws_viz_palette(WS_VIZ_COL_TEXT);
  if (current) {
    SDL_Rect band = {x - 2, y, col_x[5] + col_w[5] + 4, ld->line_h};
    SDL_FillRect(s, &band, map(s, ws_viz_palette(WS_VIZ_COL_BAR_BG)));
  }
  for (int k = 0; k < 6; k++) text(ld, s, x + col_x[k], y, col_w[k] - 4, c, cell[k]);
}

static void header_row(ws_viz_ledger *ld, SDL_Surface *s, int32_t x, int32_t y) {
  static const char *const names[6] = {"hop", "level", "where", "step", "cycle / at", "took"};
  for (int k = 0; k < 6; k++)
    text(ld, s, x + col_x[k], y, col_w[k] - 4, ws_viz_palette(WS_VIZ_COL_TEXT_DIM), names[k]);
}

static size_t known_rows(const ws_viz_walk *w, size_t stop) {
  const ws_journey_reach *r;
  size_t n = ws_viz_walk_reaches(w, &r), k = 0;
  for (size_t i = 0; i < n; i++) k += ws_viz_walk_reach_known(w, stop, i);
  return k;
}

/* "reached N of M outputs" for each layer passed, in two columns. */
static void reach_rows(ws_viz_ledger *ld, SDL_Surface *s, int32_t x, int32_t y, int32_t width,
                       const ws_viz_walk *w, size_t stop) {
  const ws_journey_reach *r;
  size_t n = ws_viz_walk_reaches(w, &r), k = 0;
  int32_t half = width / 2;
  for (size_t i = 0; i < n; i++) {
    if (!ws_viz_walk_reach_known(w, stop, i)) continue;
    char line[160];
    snprintf(line, sizeof line, "%s: reached %" PRIu64 " of %" PRIu64 " outputs", r[i].layer, r[i].reached,
             r[i].total);
    text(ld, s, x + (int32_t)(k % 2) * half, y + (int32_t)(k / 2) * ld->line_h, half - 8,
         ws_viz_palette(WS_VIZ_COL_TEXT), line);
    k++;
  }
}

/* The panel's size for stop `stop`: title, detail, header, the hop rows,
 * the reach heading and its rows. */
static ws_viz_rect panel_size(const ws_viz_ledger *ld, const ws_viz_walk *w, size_t stop, int32_t cw) {
  size_t n = ws_viz_walk_count(w), rows = n < HOP_ROWS ? n : HOP_ROWS;
  const ws_journey_reach *r;
  size_t lines = 4 + rows + (ws_viz_walk_reaches(w, &r) ? 1 + (known_rows(w, stop) + 1) / 2 : 0);
  int32_t pw = PANEL_W < cw - 2 * MARGIN ? PANEL_W : cw - 2 * MARGIN;
  return (ws_viz_rect){0, 0, pw, (int32_t)lines * ld->line_h + 2 * PAD};
}

/* The bottom corner (right, else left) the ring stays clear of, else the
 * top ones below the header. */
static ws_viz_rect place(ws_viz_rect p, const ws_viz_layout *l, bool has_ring, ws_viz_rect ring) {
  int32_t cw, ch;
  ws_viz_layout_size(l, &cw, &ch);
  int32_t top = MARGIN + ws_viz_layout_text_px(l) + 8;
  ws_viz_rect at[4] = {{cw - p.w - MARGIN, ch - p.h - MARGIN, p.w, p.h},
                       {MARGIN, ch - p.h - MARGIN, p.w, p.h},
                       {MARGIN, top, p.w, p.h},
                       {cw - p.w - MARGIN, top, p.w, p.h}};
  for (int i = 0; i < 4 && has_ring; i++)
    if (!overlap(at[i], ring)) return at[i];
  return at[0];
}

static void draw_panel(ws_viz_ledger *ld, SDL_Surface *s, const ws_viz_walk *w, size_t stop) {
  ws_viz_rect p = ld->panel;
  SDL_Rect box = {p.x, p.y, p.w, p.h};
  SDL_FillRect(s, &box, map(s, ws_viz_palette(WS_VIZ_COL_PANEL)));
  frame_rect(s, box, 1, map(s, ws_viz_palette(WS_VIZ_COL_FRAME)));
  SDL_SetClipRect(s, &box);
  int32_t x = p.x + PAD, y = p.y + PAD, tw = p.w - 2 * PAD;
  size_t n = ws_viz_walk_count(w);
  char line[256];
  snprintf(line, sizeof line, "Pixel walk: hop %zu of %zu   (j next, J back)", stop + 1, n);
  text(ld, s, x, y, tw, ws_viz_palette(WS_VIZ_COL_TEXT), line);
  detail(w, stop, line, sizeof line);
  text(ld, s, x, y += ld->line_h, tw, WS_VIZ_LEDGER_RING_RGB, line);
  header_row(ld, s, x, y += ld->line_h);
  size_t first = stop > HOP_ROWS / 2 ? stop - HOP_ROWS / 2 : 0;
  if (n > HOP_ROWS && first > n - HOP_ROWS) first = n - HOP_ROWS;
  for (size_t i = first; i < n && i < first + HOP_ROWS; i++)
    hop_row(ld, s, x, y += ld->line_h, w, i, i == stop);
  const ws_journey_reach *r;
  if (ws_viz_walk_reaches(w, &r)) {
    y += 2 * ld->line_h;
    text(ld, s, x, y, tw, ws_viz_palette(WS_VIZ_COL_TEXT_DIM),
         known_rows(w, stop) ? "Outputs the pixel has reached, by layer passed:"
                             : "Outputs reached: none yet (a layer counts once the walk has passed it)");
    reach_rows(ld, s, x, y + ld->line_h, tw, w, stop);
  }
  SDL_SetClipRect(s, NULL);
}

void ws_viz_ledger_draw(ws_viz_ledger *ld, SDL_Surface *s, const ws_viz_layout *l, const ws_viz_walk *w,
                        size_t stop) {
  if (stop >= ws_viz_walk_count(w)) return;
  int32_t cw, ch;
  ws_viz_layout_size(l, &cw, &ch);
  ws_viz_rect rc;
  bool has_ring = ws_viz_walk_rect(w, stop, l, &rc);
  ld->panel = place(panel_size(ld, w, stop, cw), l, has_ring, has_ring ? ws_viz_ledger_ring(rc) : rc);
  draw_panel(ld, s, w, stop);
  if (has_ring) draw_ring(s, rc);
}
