/* roofline.c - roofs and points on log-log axes (roofline.h). */
#include "plot/roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot/draw_int.h"

#define TOP 50.0
#define LEFT 72.0
#define BOTTOM 48.0
#define RIGHT 24.0
#define PI 3.14159265358979323846

static const ws_draw_rgb point_rgb = {0.80, 0.10, 0.10};

ws_chart_rect ws_roofline_area(const ws_roofline *r) {
  return (ws_chart_rect){LEFT, TOP, r->width - LEFT - RIGHT, r->height - TOP - BOTTOM};
}

static double max_of(const ws_roof *roofs, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, roofs[i].value);
  return m;
}
static double min_of(const ws_roof *roofs, size_t n) {
  double m = INFINITY;
  for (size_t i = 0; i < n; i++) m = fmin(m, roofs[i].value);
  return m;
}

/* Whole decades holding every point, every ridge and intensity 1. */
static void axes(const ws_roofline *r, ws_draw_axis *x, ws_draw_axis *y) {
  double peak = max_of(r->compute, r->ncompute), low_peak = min_of(r->compute, r->ncompute);
  double xlo = fmin(1.0, low_peak / max_of(r->bandwidth, r->nbandwidth)),
         xhi = fmax(1.0, peak / min_of(r->bandwidth, r->nbandwidth));
  double ylo = INFINITY, yhi = peak * 1.5; /* room above the top roof for its name */
  for (size_t i = 0; i < r->n; i++) {
    xlo = fmin(xlo, r->intensity[i]), xhi = fmax(xhi, r->intensity[i]);
    ylo = fmin(ylo, r->gflops[i]), yhi = fmax(yhi, r->gflops[i]);
  }
  xhi *= 2; /* room right of the last ridge for the compute roofs' names */
  ws_draw_decade_range(&xlo, &xhi);
  ylo = fmin(ylo, min_of(r->bandwidth, r->nbandwidth) * xlo);
  ws_draw_decade_range(&ylo, &yhi);
  ws_chart_rect a = ws_roofline_area(r);
  *x = (ws_draw_axis){xlo, xhi, a.x, a.x + a.w, true};
  *y = (ws_draw_axis){ylo, yhi, a.y + a.h, a.y, true};
}

void ws_roofline_map(const ws_roofline *r, double intensity, double gflops, double *px, double *py) {
  ws_draw_axis x, y;
  axes(r, &x, &y);
  *px = ws_draw_map(&x, intensity), *py = ws_draw_map(&y, gflops);
}

/* ---- checks ------------------------------------------------------------------------------------- */

static ws_status check_roofs(ws_ctx *ctx, const char *which, const ws_roof *roofs, size_t n) {
  if (n == 0 || n > WS_ROOFLINE_MAX_ROOFS || !roofs)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "roofline: 1 to %d %s roofs expected, %zu found",
                       WS_ROOFLINE_MAX_ROOFS, which, n);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(roofs[i].value) || roofs[i].value <= 0 || !roofs[i].name)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "roofline: %s roof %zu: a name and a positive value expected",
                         which, i);
  return WS_OK;
}

static ws_status check(ws_ctx *ctx, const ws_roofline *r) {
  ws_status st = ws_draw_check_size(ctx, r->width, r->height);
  if (st == WS_OK) st = check_roofs(ctx, "bandwidth", r->bandwidth, r->nbandwidth);
  if (st == WS_OK) st = check_roofs(ctx, "compute", r->compute, r->ncompute);
  if (st == WS_OK && r->n && (!r->intensity || !r->gflops))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "roofline: no point data");
  for (size_t i = 0; st == WS_OK && i < r->n; i++)
    if (!(isfinite(r->intensity[i]) && r->intensity[i] > 0 && isfinite(r->gflops[i]) && r->gflops[i] > 0))
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "roofline: point %zu: a positive intensity and GFLOP/s expected",
                       i);
  return st;
}

/* ---- drawing ------------------------------------------------------------------------------------ */

static void line(cairo_t *cr, const ws_draw_axis *x, const ws_draw_axis *y, double x0, double y0, double x1,
                 double y1) {
  cairo_move_to(cr, ws_draw_map(x, x0), ws_draw_map(y, y0));
  cairo_line_to(cr, ws_draw_map(x, x1), ws_draw_map(y, y1));
  cairo_stroke(cr);
}

/* Bandwidth roofs rise to the highest compute roof; compute roofs run flat
 * from the highest bandwidth roof to the right edge; each pair's ridge (the
 * intensity from which the compute roof binds) is a small ring. */
static void roofs(cairo_t *cr, const ws_roofline *r, const ws_draw_axis *x, const ws_draw_axis *y) {
  double peak = max_of(r->compute, r->ncompute), top_bw = max_of(r->bandwidth, r->nbandwidth);
  cairo_set_line_width(cr, 2.0);
  for (size_t i = 0; i < r->nbandwidth; i++) {
    double b = r->bandwidth[i].value;
    ws_draw_colour(cr, ws_draw_palette(i));
    line(cr, x, y, x->lo, b * x->lo, peak / b, peak);
    double lx = x->lo * pow(peak / b / x->lo, 0.18), px = ws_draw_map(x, lx), py = ws_draw_map(y, b * lx);
    double slope = atan2(ws_draw_map(y, b * lx * 10) - py, ws_draw_map(x, lx * 10) - px);
    cairo_save(cr);
    cairo_translate(cr, px, py - 4), cairo_rotate(cr, slope);
    char buf[64];
    snprintf(buf, sizeof buf, "%s %.0f GB/s", r->bandwidth[i].name, b);
    ws_draw_text(cr, 0, 0, 10, true, 0, 1.0, buf);
    cairo_restore(cr);
  }
  for (size_t k = 0; k < r->ncompute; k++) {
    double p = r->compute[k].value;
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    line(cr, x, y, p / top_bw, p, x->hi, p);
    char buf[64];
    snprintf(buf, sizeof buf, "%s %.0f GFLOP/s", r->compute[k].name, p);
    ws_draw_text(cr, ws_draw_map(x, x->hi) - 6, ws_draw_map(y, p) - 4, 10, true, 1.0, 1.0, buf);
  }
  cairo_set_line_width(cr, 1.5);
  for (size_t k = 0; k < r->ncompute; k++)
    for (size_t i = 0; i < r->nbandwidth; i++) {
      double ai = r->compute[k].value / r->bandwidth[i].value;
      cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
      cairo_new_sub_path(cr);
      cairo_arc(cr, ws_draw_map(x, ai), ws_draw_map(y, r->compute[k].value), 3.5, 0, 2 * PI);
      cairo_stroke(cr);
    }
}

/* The ridges of the lowest bandwidth roof (DRAM's, usually: the one a
 * kernel must clear to be compute-bound) are labelled with their
 * intensity. */
static void ridge_labels(cairo_t *cr, const ws_roofline *r, const ws_draw_axis *x, const ws_draw_axis *y) {
  double b = min_of(r->bandwidth, r->nbandwidth);
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  for (size_t k = 0; k < r->ncompute; k++) {
    char buf[48];
    snprintf(buf, sizeof buf, "ridge %.3g FLOP/B", r->compute[k].value / b);
    ws_draw_text(cr, ws_draw_map(x, r->compute[k].value / b) + 5, ws_draw_map(y, r->compute[k].value) + 4, 9,
                 false, 0, 0, buf);
  }
}

/* ---- labels ------------------------------------------------------------------------------------- */

static bool overlap(ws_chart_rect a, ws_chart_rect b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static bool inside(ws_chart_rect a, ws_chart_rect b) {
  return a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h;
}

/* Spot k of a w x h label around (px, py): eight directions at five
 * distances, the nearest first. */
#define SPOTS 40
static ws_chart_rect spot(double px, double py, double w, double h, int k) {
  static const double gap[5] = {WS_ROOFLINE_MARKER_PX + 2, 22, 40, 58, 76};
  static const int dir[8][2] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {1, 1}, {-1, -1}, {-1, 1}};
  double g = gap[k / 8], dx = dir[k % 8][0], dy = dir[k % 8][1];
  double d = dx && dy ? g * 0.7 : g; /* a corner: as far from the point as a side */
  double x = dx > 0 ? px + d : dx < 0 ? px - d - w : px - w / 2;
  double y = dy > 0 ? py + d : dy < 0 ? py - d - h : py - h / 2;
  return (ws_chart_rect){x, y, w, h};
}

/* Whether box b is free of the labels before `upto` and every marker. */
static bool free_spot(ws_chart_rect b, const ws_chart_rect *box, const bool *placed, size_t upto,
                      const double *px, const double *py, size_t n) {
  for (size_t j = 0; j < upto; j++)
    if (placed[j] && overlap(b, box[j])) return false;
  const double m = WS_ROOFLINE_MARKER_PX;
  for (size_t j = 0; j < n; j++)
    if (overlap(b, (ws_chart_rect){px[j] - m, py[j] - m, 2 * m, 2 * m})) return false;
  return true;
}

size_t ws_roofline_place_labels(const double *px, const double *py, const double *w, double h, size_t n,
                                ws_chart_rect bounds, ws_chart_rect *box, bool *placed) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    placed[i] = false;
    for (int k = 0; k < SPOTS && i < WS_ROOFLINE_MAX_LABELS && !placed[i]; k++) {
      ws_chart_rect b = spot(px[i], py[i], w[i], h, k);
      if (inside(b, bounds) && free_spot(b, box, placed, i, px, py, n)) box[i] = b, placed[i] = true;
    }
    count += placed[i];
  }
  return count;
}

/* ---- points ------------------------------------------------------------------------------------- */

#define LABEL_PT 9.0
#define LABEL_H 11.0 /* a line of 9-point text, descenders included */

/* A leader line from the point to the nearest point of its label's box,
 * when the label sits farther out than the nearest spots. */
static void leader(cairo_t *cr, double px, double py, ws_chart_rect b) {
  double qx = fmax(b.x, fmin(px, b.x + b.w)), qy = fmax(b.y, fmin(py, b.y + b.h));
  if (hypot(qx - px, qy - py) < 12) return;
  cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
  cairo_set_line_width(cr, 0.75);
  cairo_move_to(cr, px, py), cairo_line_to(cr, qx, qy), cairo_stroke(cr);
}

typedef struct placing {
  double *px, *py, *w;
  ws_chart_rect *box;
  bool *placed;
} placing;

static void placing_free(placing *p) { free(p->px), free(p->py), free(p->w), free(p->box), free(p->placed); }

/* The labels where ws_roofline_place_labels puts them, with the count of
 * those left out in the area's lower right corner. */
static void labels(cairo_t *cr, const ws_roofline *r, const placing *p, ws_chart_rect a) {
  for (size_t i = 0; i < r->n; i++)
    p->w[i] = r->labels[i] ? ws_draw_text_width(cr, LABEL_PT, false, r->labels[i]) : 0;
  ws_roofline_place_labels(p->px, p->py, p->w, LABEL_H, r->n, a, p->box, p->placed);
  size_t wanted = 0, skipped = 0;
  for (size_t i = 0; i < r->n; i++) {
    if (!r->labels[i]) continue;
    wanted++;
    if (!p->placed[i]) {
      skipped++;
      continue;
    }
    leader(cr, p->px[i], p->py[i], p->box[i]);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ws_draw_text(cr, p->box[i].x, p->box[i].y, LABEL_PT, false, 0, 0, r->labels[i]);
  }
  if (!skipped) return;
  char buf[96];
  snprintf(buf, sizeof buf, "%zu of %zu labels left out: no free room beside their points", skipped, wanted);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  ws_draw_text(cr, a.x + a.w - 6, a.y + a.h - 6, LABEL_PT, false, 1.0, 1.0, buf);
}

/* The markers, then the labels (when there is memory to place them: a
 * chart without them still reads). */
static void points(cairo_t *cr, const ws_roofline *r, const ws_draw_axis *x, const ws_draw_axis *y,
                   ws_chart_rect a) {
  size_t n = r->n ? r->n : 1;
  placing p = {malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double)),
               malloc(n * sizeof(ws_chart_rect)), malloc(n * sizeof(bool))};
  bool room = p.px && p.py && p.w && p.box && p.placed;
  ws_draw_colour(cr, point_rgb);
  for (size_t i = 0; i < r->n; i++) {
    double px = ws_draw_map(x, r->intensity[i]), py = ws_draw_map(y, r->gflops[i]);
    if (room) p.px[i] = px, p.py[i] = py;
    cairo_new_sub_path(cr);
    cairo_arc(cr, px, py, 4.5, 0, 2 * PI);
    cairo_fill(cr);
  }
  if (r->labels && room) labels(cr, r, &p, a);
  placing_free(&p);
}

static void draw(cairo_t *cr, const void *chart) {
  const ws_roofline *r = chart;
  ws_draw_axis x, y;
  axes(r, &x, &y);
  ws_chart_rect a = ws_roofline_area(r);
  ws_draw_titles(cr, r->width, r->title, r->subtitle);
  ws_draw_grid(cr, &x, &y, a);
  cairo_save(cr);
  cairo_rectangle(cr, a.x, a.y, a.w, a.h);
  cairo_clip(cr);
  roofs(cr, r, &x, &y);
  ridge_labels(cr, r, &x, &y);
  points(cr, r, &x, &y, a);
  cairo_restore(cr);
  ws_draw_frame(cr, a, "arithmetic intensity (FLOP/byte)", "GFLOP/s");
}

ws_status ws_roofline_write(ws_ctx *ctx, const char *path, const ws_roofline *r) {
  ws_status st = check(ctx, r);
  return st == WS_OK ? ws_draw_write(ctx, path, r->width, r->height, draw, r) : st;
}
