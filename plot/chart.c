/* chart.c - panels of lines and steps drawn with cairo (chart.h); the
 * file, text and tick rules are draw.c's, shared with the other kinds. */
#include "plot/chart.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plot/draw_int.h"

#define FONT "DejaVu Sans"
#define TITLE_PX 30.0  /* the chart's title band */
#define PANEL_TOP 26.0 /* a panel's title line */
#define MARGIN_LEFT 62.0
#define MARGIN_RIGHT 18.0
#define MARGIN_BOTTOM 46.0
#define PI 3.14159265358979323846

typedef struct rgb {
  double r, g, b;
} rgb;

/* Series colours, in order (a colour-blind-safe qualitative set). */
static const rgb series_rgb[] = {{0.00, 0.45, 0.70}, {0.84, 0.37, 0.00}, {0.00, 0.62, 0.45},
                                 {0.80, 0.47, 0.65}, {0.34, 0.71, 0.91}, {0.90, 0.62, 0.00}};
static const rgb mark_rgb = {0.80, 0.10, 0.10};

ws_chart_rect ws_chart_area(const ws_chart *c, size_t i) {
  double pw = (double)c->width / (double)(c->npanels ? c->npanels : 1);
  ws_chart_rect r = {pw * (double)i + MARGIN_LEFT, TITLE_PX + PANEL_TOP, pw - MARGIN_LEFT - MARGIN_RIGHT,
                     (double)c->height - TITLE_PX - PANEL_TOP - MARGIN_BOTTOM};
  return r;
}

/* ---- checks ------------------------------------------------------------------------------------- */

static bool finite_range(double lo, double hi) { return isfinite(lo) && isfinite(hi) && hi > lo; }

static ws_status check_series(ws_ctx *ctx, size_t p, size_t k, const ws_chart_series *s) {
  if (s->n && (!s->x || !s->y))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: panel %zu series %zu: no data", p, k);
  for (size_t i = 0; i < s->n; i++)
    if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
      return ws_ctx_fail(ctx, WS_ERR_INVALID,
                         "chart: panel %zu series %zu point %zu: a finite value expected", p, k, i);
  return WS_OK;
}

static ws_status check_chart(ws_ctx *ctx, const ws_chart *c) {
  if (c->width < WS_CHART_MIN_SIDE || c->height < WS_CHART_MIN_SIDE || c->width > WS_CHART_MAX_SIDE ||
      c->height > WS_CHART_MAX_SIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: a size of %d to %d per side expected, %dx%d found",
                       WS_CHART_MIN_SIDE, WS_CHART_MAX_SIDE, c->width, c->height);
  if (c->npanels == 0 || c->npanels > WS_CHART_MAX_PANELS || !c->panels)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: 1 to %d panels expected, %zu found", WS_CHART_MAX_PANELS,
                       c->npanels);
  if (ws_chart_area(c, 0).w < 40.0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: %d pixels are too narrow for %zu panels", c->width,
                       c->npanels);
  for (size_t p = 0; p < c->npanels; p++) {
    const ws_chart_panel *pn = &c->panels[p];
    if (!finite_range(pn->x_min, pn->x_max) || !finite_range(pn->y_min, pn->y_max))
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: panel %zu: axis ranges with max > min expected", p);
    for (size_t k = 0; k < pn->nseries; k++) {
      ws_status st = check_series(ctx, p, k, &pn->series[k]);
      if (st != WS_OK) return st;
    }
  }
  return WS_OK;
}

/* ---- drawing ------------------------------------------------------------------------------------ */

static void colour(cairo_t *cr, rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

/* Text with its anchor at (x, y) (draw_int.h). */
static void text_at(cairo_t *cr, double x, double y, double size, bool bold, double ax, double ay,
                    const char *s) {
  ws_draw_text(cr, x, y, size, bold, ax, ay, s);
}

static double tick_step(double lo, double hi) { return ws_draw_tick_step(lo, hi); }

static double map_x(const ws_chart_panel *p, ws_chart_rect a, double x) {
  return a.x + (x - p->x_min) / (p->x_max - p->x_min) * a.w;
}
static double map_y(const ws_chart_panel *p, ws_chart_rect a, double y) {
  return a.y + a.h - (y - p->y_min) / (p->y_max - p->y_min) * a.h;
}

static void tick_label(double v, char *buf, size_t n) {
  snprintf(buf, n, "%.10g", fabs(v) < 1e-12 ? 0.0 : v);
}

static void draw_grid(cairo_t *cr, const ws_chart_panel *p, ws_chart_rect a) {
  char buf[32];
  cairo_set_line_width(cr, 1.0);
  double sx = tick_step(p->x_min, p->x_max), sy = tick_step(p->y_min, p->y_max);
  for (double v = ceil(p->x_min / sx) * sx; v <= p->x_max + sx * 1e-9; v += sx) {
    double x = floor(map_x(p, a, v)) + 0.5;
    cairo_set_source_rgb(cr, 0.90, 0.90, 0.90);
    cairo_move_to(cr, x, a.y), cairo_line_to(cr, x, a.y + a.h), cairo_stroke(cr);
    tick_label(v, buf, sizeof buf);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text_at(cr, x, a.y + a.h + 4, 10, false, 0.5, 0, buf);
  }
  for (double v = ceil(p->y_min / sy) * sy; v <= p->y_max + sy * 1e-9; v += sy) {
    double y = floor(map_y(p, a, v)) + 0.5;
    cairo_set_source_rgb(cr, 0.90, 0.90, 0.90);
    cairo_move_to(cr, a.x, y), cairo_line_to(cr, a.x + a.w, y), cairo_stroke(cr);
    tick_label(v, buf, sizeof buf);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text_at(cr, a.x - 5, y, 10, false, 1.0, 0.45, buf);
  }
}

static void draw_series(cairo_t *cr, const ws_chart_panel *p, ws_chart_rect a, const ws_chart_series *s,
                        rgb c) {
  if (s->n == 0) return;
  cairo_save(cr);
  cairo_rectangle(cr, a.x, a.y - 2, a.w, a.h + 4);
  cairo_clip(cr);
  colour(cr, c);
  cairo_set_line_width(cr, 2.0);
  cairo_move_to(cr, map_x(p, a, s->x[0]), map_y(p, a, s->y[0]));
  for (size_t i = 1; i < s->n; i++) {
    if (s->steps) cairo_line_to(cr, map_x(p, a, s->x[i]), map_y(p, a, s->y[i - 1]));
    cairo_line_to(cr, map_x(p, a, s->x[i]), map_y(p, a, s->y[i]));
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

static void draw_legend(cairo_t *cr, const ws_chart_panel *p, ws_chart_rect a) {
  double y = a.y + 6;
  for (size_t k = 0; k < p->nseries; k++) {
    if (!p->series[k].label) continue;
    colour(cr, series_rgb[k % (sizeof series_rgb / sizeof series_rgb[0])]);
    cairo_rectangle(cr, a.x + a.w - 120, y + 3, 12, 6);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, a.x + a.w - 104, y, 10, false, 0, 0, p->series[k].label);
    y += 14;
  }
}

static void draw_mark(cairo_t *cr, const ws_chart_panel *p, ws_chart_rect a) {
  if (!p->has_mark) return;
  double x = map_x(p, a, p->mark_x), y = map_y(p, a, p->mark_y);
  colour(cr, mark_rgb);
  cairo_set_line_width(cr, 1.0);
  const double dash[] = {4.0, 3.0};
  cairo_set_dash(cr, dash, 2, 0);
  cairo_move_to(cr, x, y), cairo_line_to(cr, x, a.y + a.h), cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_arc(cr, x, y, 4.5, 0, 2 * PI);
  cairo_fill(cr);
  if (p->mark_label) {
    bool right = x < a.x + a.w / 2;
    text_at(cr, right ? x + 8 : x - 8, y - 16, 10, true, right ? 0 : 1, 0, p->mark_label);
  }
}

static void draw_panel(cairo_t *cr, const ws_chart *c, size_t i) {
  const ws_chart_panel *p = &c->panels[i];
  ws_chart_rect a = ws_chart_area(c, i);
  draw_grid(cr, p, a);
  for (size_t k = 0; k < p->nseries; k++)
    draw_series(cr, p, a, &p->series[k], series_rgb[k % (sizeof series_rgb / sizeof series_rgb[0])]);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, floor(a.x) + 0.5, floor(a.y) + 0.5, floor(a.w), floor(a.h));
  cairo_stroke(cr);
  draw_legend(cr, p, a);
  draw_mark(cr, p, a);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (p->title) text_at(cr, a.x + a.w / 2, a.y - PANEL_TOP + 4, 12, true, 0.5, 0, p->title);
  if (p->x_label) text_at(cr, a.x + a.w / 2, a.y + a.h + 22, 11, false, 0.5, 0, p->x_label);
  if (p->y_label) {
    cairo_save(cr);
    cairo_translate(cr, a.x - MARGIN_LEFT + 4, a.y + a.h / 2);
    cairo_rotate(cr, -PI / 2);
    text_at(cr, 0, 0, 11, false, 0.5, 0, p->y_label);
    cairo_restore(cr);
  }
}

/* On the white the file writer paints (draw.c). */
static void draw(cairo_t *cr, const ws_chart *c) {
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (c->title) text_at(cr, c->width / 2.0, 7, 15, true, 0.5, 0, c->title);
  for (size_t i = 0; i < c->npanels; i++) draw_panel(cr, c, i);
}

/* ---- files -------------------------------------------------------------------------------------- */

static void draw_fn(cairo_t *cr, const void *chart) { draw(cr, chart); }

ws_status ws_chart_write(ws_ctx *ctx, const char *path, const ws_chart *chart) {
  ws_chart_format fmt = WS_CHART_PNG;
  ws_status st = ws_chart_format_of(ctx, path, &fmt);
  if (st == WS_OK) st = check_chart(ctx, chart);
  return st == WS_OK ? ws_draw_write(ctx, path, chart->width, chart->height, draw_fn, chart) : st;
}
