/* bars.c - stacked bars with a legend (bars.h). */
#include "plot/bars.h"

#include <math.h>
#include <stdio.h>

#include "plot/draw_int.h"

#define TOP 50.0
#define LEFT 72.0
#define BOTTOM 90.0 /* the bars' labels, slanted */
#define RIGHT 170.0 /* the legend */
#define PI 3.14159265358979323846

ws_chart_rect ws_bars_area(const ws_bars *b) {
  return (ws_chart_rect){LEFT, TOP, b->width - LEFT - RIGHT, b->height - TOP - BOTTOM};
}

static double y_max(const ws_bars *b) {
  double m = 100.0;
  for (size_t i = 0; i < b->nbars; i++) {
    double sum = 0;
    for (size_t p = 0; p < b->nparts; p++) sum += b->shares[i * b->nparts + p];
    m = fmax(m, sum);
  }
  double lo = 0;
  if (m > 101.0) ws_draw_nice_range(&lo, &m); /* shares rounded to 0.1 % may sum a little over 100 */
  return m > 101.0 ? m : 100.0;
}

ws_chart_rect ws_bars_segment(const ws_bars *b, size_t i, size_t p) {
  ws_chart_rect a = ws_bars_area(b);
  double slot = a.w / (double)b->nbars, scale = a.h / y_max(b), below = 0;
  for (size_t k = 0; k < p; k++) below += b->shares[i * b->nparts + k];
  double h = b->shares[i * b->nparts + p] * scale;
  return (ws_chart_rect){a.x + slot * (double)i + slot * 0.15, a.y + a.h - below * scale - h, slot * 0.7, h};
}

static ws_status check(ws_ctx *ctx, const ws_bars *b) {
  ws_status st = ws_draw_check_size(ctx, b->width, b->height);
  if (st == WS_OK && (b->nbars == 0 || b->nbars > WS_BARS_MAX_BARS))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "bars: 1 to %d bars expected, %zu found", WS_BARS_MAX_BARS,
                     b->nbars);
  if (st == WS_OK && (b->nparts == 0 || b->nparts > WS_BARS_MAX_PARTS || !b->parts || !b->shares))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "bars: 1 to %d parts expected, %zu found", WS_BARS_MAX_PARTS,
                     b->nparts);
  for (size_t i = 0; st == WS_OK && i < b->nbars * b->nparts; i++)
    if (!isfinite(b->shares[i]) || b->shares[i] < 0)
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "bars: bar %zu part %zu: a finite share >= 0 expected",
                       i / b->nparts, i % b->nparts);
  return st;
}

static const ws_draw_rgb apart_rgb = {0.80, 0.80, 0.80};

/* Part p's colour: the palette's, or grey for a part set apart. */
static ws_draw_rgb colour(const ws_bars *b, size_t p) {
  return p == 0 && b->first_apart ? apart_rgb : ws_draw_palette(p);
}

/* Diagonal lines over a segment set apart, so it reads as another kind
 * than the stacked colours even in grey print. */
static void hatch(cairo_t *cr, ws_chart_rect r) {
  cairo_save(cr);
  cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
  cairo_set_line_width(cr, 1.0);
  for (double d = -r.h; d < r.w; d += 6)
    cairo_move_to(cr, r.x + d, r.y + r.h), cairo_line_to(cr, r.x + d + r.h, r.y);
  cairo_stroke(cr);
  cairo_restore(cr);
}

static void labels(cairo_t *cr, const ws_bars *b) {
  if (!b->bar_labels) return;
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  for (size_t i = 0; i < b->nbars; i++) {
    ws_chart_rect s = ws_bars_segment(b, i, 0);
    if (!b->bar_labels[i]) continue;
    cairo_save(cr);
    cairo_translate(cr, s.x + s.w / 2 + 3, s.y + s.h + 6);
    cairo_rotate(cr, -PI / 5);
    ws_draw_text(cr, 0, 0, 9, false, 1.0, 0.5, b->bar_labels[i]);
    cairo_restore(cr);
  }
}

static void draw(cairo_t *cr, const void *chart) {
  const ws_bars *b = chart;
  ws_chart_rect a = ws_bars_area(b);
  ws_draw_axis y = {0, y_max(b), a.y + a.h, a.y, false};
  ws_draw_titles(cr, b->width, b->title, b->subtitle);
  cairo_set_line_width(cr, 1.0);
  double s = ws_draw_tick_step(y.lo, y.hi);
  for (double v = 0; v <= y.hi + s * 1e-9; v += s) {
    double py = floor(ws_draw_map(&y, v)) + 0.5;
    char buf[16];
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, a.x, py), cairo_line_to(cr, a.x + a.w, py), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    snprintf(buf, sizeof buf, "%g", v);
    ws_draw_text(cr, a.x - 5, py, 10, false, 1.0, 0.45, buf);
  }
  cairo_save(cr);
  cairo_rectangle(cr, a.x, a.y, a.w, a.h);
  cairo_clip(cr);
  for (size_t i = 0; i < b->nbars; i++)
    for (size_t p = 0; p < b->nparts; p++) {
      ws_chart_rect r = ws_bars_segment(b, i, p);
      ws_draw_colour(cr, colour(b, p));
      cairo_rectangle(cr, r.x, r.y, r.w, r.h);
      cairo_fill(cr);
      if (p == 0 && b->first_apart) hatch(cr, r);
    }
  cairo_restore(cr);
  labels(cr, b);
  ws_draw_frame(cr, a, NULL, b->y_label);
  ws_draw_rgb colours[WS_BARS_MAX_PARTS];
  for (size_t p = 0; p < b->nparts; p++) colours[p] = colour(b, p);
  ws_draw_legend(cr, a.x + a.w + 14, a.y, b->parts, colours, b->nparts, false);
}

ws_status ws_bars_write(ws_ctx *ctx, const char *path, const ws_bars *b) {
  ws_status st = check(ctx, b);
  return st == WS_OK ? ws_draw_write(ctx, path, b->width, b->height, draw, b) : st;
}
