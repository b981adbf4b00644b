/* heatmap.c - a grid of cells coloured by value (heatmap.h). */
#include "plot/heatmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot/draw_int.h"

#define TOP 50.0    /* the title and the subtitle */
#define LEFT 72.0   /* the y labels */
#define BOTTOM 48.0 /* the x labels */
#define RIGHT 120.0 /* the colour bar and its ticks */
#define BAR_GAP 18.0
#define BAR_W 16.0

static ws_chart_rect area(const ws_heatmap *h) {
  return (ws_chart_rect){LEFT, TOP, h->width - LEFT - RIGHT, h->height - TOP - BOTTOM};
}

ws_chart_rect ws_heatmap_cell(const ws_heatmap *h, size_t ix, size_t iy) {
  ws_chart_rect a = area(h);
  double cw = a.w / (double)h->nx, ch = a.h / (double)h->ny;
  return (ws_chart_rect){a.x + cw * (double)ix, a.y + a.h - ch * (double)(iy + 1), cw, ch};
}

static void value_range(const ws_heatmap *h, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < h->nx * h->ny; i++)
    if (isfinite(h->values[i])) *lo = fmin(*lo, h->values[i]), *hi = fmax(*hi, h->values[i]);
}

static ws_draw_rgb colour_of(const ws_heatmap *h, double v) {
  double lo, hi;
  value_range(h, &lo, &hi);
  double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
  return ws_draw_viridis(h->lower_is_better ? 1.0 - t : t);
}

void ws_heatmap_format(double v, char *buf, size_t bytes) {
  static const char *const suffix[] = {"", "k", "M", "G", "T", "P"};
  size_t k = 0;
  if (fabs(v) < 1e-12) v = 0.0;
  /* scaled until it prints under 1000 (999,950 prints as 1M, not 1000k) */
  for (;;) {
    snprintf(buf, bytes, "%.4g%s", v, suffix[k]);
    if (fabs(strtod(buf, NULL)) < 1000 || k + 1 == sizeof suffix / sizeof suffix[0]) return;
    v /= 1000, k++;
  }
}

void ws_heatmap_colour(const ws_heatmap *h, double v, double rgb[3]) {
  ws_draw_rgb c = colour_of(h, v);
  rgb[0] = c.r, rgb[1] = c.g, rgb[2] = c.b;
}

/* ---- checks ------------------------------------------------------------------------------------- */

static ws_status check_axis(ws_ctx *ctx, const char *which, const double *v, size_t n) {
  if (n == 0 || n > WS_HEATMAP_MAX_SIDE || !v)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "heatmap: 1 to %d distinct %s values expected, %zu found",
                       WS_HEATMAP_MAX_SIDE, which, n);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]) || (i && !(v[i] > v[i - 1])))
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "heatmap: %s value %zu: finite, ascending values expected",
                         which, i);
  return WS_OK;
}

static ws_status check(ws_ctx *ctx, const ws_heatmap *h) {
  ws_status st = ws_draw_check_size(ctx, h->width, h->height);
  if (st == WS_OK) st = check_axis(ctx, "x", h->xs, h->nx);
  if (st == WS_OK) st = check_axis(ctx, "y", h->ys, h->ny);
  if (st == WS_OK && !h->values) st = ws_ctx_fail(ctx, WS_ERR_INVALID, "heatmap: no values");
  for (size_t i = 0; st == WS_OK && i < h->nx * h->ny; i++)
    if (isinf(h->values[i])) st = ws_ctx_fail(ctx, WS_ERR_INVALID, "heatmap: cell %zu: an infinite value", i);
  return st;
}

/* ---- drawing ------------------------------------------------------------------------------------ */

static void hatched(cairo_t *cr, ws_chart_rect c) {
  cairo_set_source_rgb(cr, 0.86, 0.86, 0.86);
  cairo_rectangle(cr, c.x, c.y, c.w, c.h);
  cairo_fill_preserve(cr);
  cairo_save(cr);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, 0.72, 0.72, 0.72);
  cairo_set_line_width(cr, 1.0);
  for (double d = -c.h; d < c.w; d += 8)
    cairo_move_to(cr, c.x + d, c.y + c.h), cairo_line_to(cr, c.x + d + c.h, c.y);
  cairo_stroke(cr);
  cairo_restore(cr);
  if (ws_draw_text_width(cr, 10, false, "no point") < c.w - 6 && c.h >= 14) {
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    ws_draw_text(cr, c.x + c.w / 2, c.y + c.h / 2, 10, false, 0.5, 0.45, "no point");
  }
}

static void cell(cairo_t *cr, const ws_heatmap *h, size_t ix, size_t iy) {
  ws_chart_rect c = ws_heatmap_cell(h, ix, iy);
  double v = h->values[iy * h->nx + ix];
  if (isnan(v)) {
    hatched(cr, c);
    return;
  }
  ws_draw_rgb k = colour_of(h, v);
  ws_draw_colour(cr, k);
  cairo_rectangle(cr, c.x, c.y, c.w, c.h);
  cairo_fill(cr);
  char buf[32];
  ws_heatmap_format(v, buf, sizeof buf);
  if (ws_draw_text_width(cr, 10, false, buf) > c.w - 6 || c.h < 14) return;
  double luma = 0.2126 * k.r + 0.7152 * k.g + 0.0722 * k.b, ink = luma < 0.45 ? 1 : 0.05;
  const char *note = h->notes ? h->notes[iy * h->nx + ix] : NULL;
  bool noted = note && *note && ws_draw_text_width(cr, 9, false, note) <= c.w - 6 && c.h >= 30;
  cairo_set_source_rgb(cr, ink, ink, ink);
  ws_draw_text(cr, c.x + c.w / 2, c.y + c.h / 2 - (noted ? 7 : 0), 10, false, 0.5, 0.45, buf);
  if (noted) ws_draw_text(cr, c.x + c.w / 2, c.y + c.h / 2 + 7, 9, false, 0.5, 0.45, note);
}

/* A label per column and per row: the swept values themselves. */
static void axis_labels(cairo_t *cr, const ws_heatmap *h) {
  char buf[32];
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  for (size_t ix = 0; ix < h->nx; ix++) {
    ws_chart_rect c = ws_heatmap_cell(h, ix, 0);
    snprintf(buf, sizeof buf, "%.6g", h->xs[ix]);
    ws_draw_text(cr, c.x + c.w / 2, c.y + c.h + 4, 10, false, 0.5, 0, buf);
  }
  for (size_t iy = 0; iy < h->ny; iy++) {
    ws_chart_rect c = ws_heatmap_cell(h, 0, iy);
    snprintf(buf, sizeof buf, "%.6g", h->ys[iy]);
    ws_draw_text(cr, c.x - 5, c.y + c.h / 2, 10, false, 1.0, 0.45, buf);
  }
}

#define BETTER_H 14.0 /* "better" over the bar */

/* The colour bar: the scale from the worst value (bottom, dark) to the best
 * (top, bright), which says "better"; for a metric where lower is better
 * the lowest value is on top. */
static void colour_bar(cairo_t *cr, const ws_heatmap *h) {
  ws_chart_rect a = area(h);
  double lo, hi, x = a.x + a.w + BAR_GAP, top = a.y + BETTER_H, bottom = a.y + a.h;
  value_range(h, &lo, &hi);
  if (!(lo <= hi)) return; /* no value at all */
  const int strips = 64;
  for (int i = 0; i < strips; i++) {
    ws_draw_colour(cr, ws_draw_viridis(hi > lo ? (i + 0.5) / strips : 0.5));
    cairo_rectangle(cr, x, bottom - (bottom - top) * (i + 1.0) / strips, BAR_W,
                    (bottom - top) / strips + 0.5);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  ws_draw_text(cr, x + BAR_W / 2, a.y, 9, true, 0.5, 0, "better");
  double tlo = lo, thi = hi > lo ? hi : lo + 1;
  ws_draw_axis ax = h->lower_is_better ? (ws_draw_axis){tlo, thi, top, bottom, false}
                                       : (ws_draw_axis){tlo, thi, bottom, top, false};
  double s = ws_draw_tick_step(tlo, thi);
  char buf[32];
  for (double v = ceil(tlo / s) * s; v <= thi + s * 1e-9 && hi > lo; v += s) {
    double y = floor(ws_draw_map(&ax, v)) + 0.5;
    cairo_move_to(cr, x + BAR_W, y), cairo_line_to(cr, x + BAR_W + 4, y), cairo_stroke(cr);
    ws_heatmap_format(v, buf, sizeof buf);
    ws_draw_text(cr, x + BAR_W + 7, y, 10, false, 0, 0.45, buf);
  }
  if (!(hi > lo)) {
    ws_heatmap_format(lo, buf, sizeof buf);
    ws_draw_text(cr, x + BAR_W + 7, (top + bottom) / 2, 10, false, 0, 0.45, buf);
  }
  if (h->metric_label) ws_draw_text(cr, x - 4, a.y - 16, 10, true, 0, 0, h->metric_label);
}

static void draw(cairo_t *cr, const void *chart) {
  const ws_heatmap *h = chart;
  ws_draw_titles(cr, h->width, h->title, h->subtitle);
  for (size_t iy = 0; iy < h->ny; iy++)
    for (size_t ix = 0; ix < h->nx; ix++) cell(cr, h, ix, iy);
  axis_labels(cr, h);
  cairo_set_line_width(cr, 1.0);
  ws_draw_frame(cr, area(h), h->x_label, h->y_label);
  colour_bar(cr, h);
}

ws_status ws_heatmap_write(ws_ctx *ctx, const char *path, const ws_heatmap *h) {
  ws_status st = check(ctx, h);
  return st == WS_OK ? ws_draw_write(ctx, path, h->width, h->height, draw, h) : st;
}
