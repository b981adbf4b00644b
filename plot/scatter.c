/* scatter.c - coloured points with a legend (scatter.h). */
#include "plot/scatter.h"

#include <math.h>

#include "plot/draw_int.h"

#define TOP 50.0
#define LEFT 72.0
#define BOTTOM 48.0
#define RIGHT 150.0 /* the legend */
#define PI 3.14159265358979323846

ws_chart_rect ws_scatter_area(const ws_scatter *s) {
  return (ws_chart_rect){LEFT, TOP, s->width - LEFT - RIGHT, s->height - TOP - BOTTOM};
}

static void y_span(const ws_scatter *s, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t i = 0; i < s->n; i++) *lo = fmin(*lo, s->y[i]), *hi = fmax(*hi, s->y[i]);
  if (s->n == 0) *lo = 0, *hi = 1;
}

bool ws_scatter_log_y(const ws_scatter *s) {
  double lo, hi;
  y_span(s, &lo, &hi);
  return lo > 0 && hi / lo > WS_SCATTER_LOG_SPAN;
}

static void axes(const ws_scatter *s, ws_draw_axis *x, ws_draw_axis *y) {
  ws_chart_rect a = ws_scatter_area(s);
  double lo, hi;
  y_span(s, &lo, &hi);
  bool log_y = ws_scatter_log_y(s);
  if (log_y)
    ws_draw_decade_range(&lo, &hi);
  else {
    lo = fmin(lo, 0.0), hi = hi * 1.05; /* from zero, so heights compare */
    ws_draw_nice_range(&lo, &hi);
  }
  *x = (ws_draw_axis){s->x_min, s->x_max, a.x, a.x + a.w, false};
  *y = (ws_draw_axis){lo, hi, a.y + a.h, a.y, log_y};
}

void ws_scatter_map(const ws_scatter *s, double x, double y, double *px, double *py) {
  ws_draw_axis ax, ay;
  axes(s, &ax, &ay);
  *px = ws_draw_map(&ax, x), *py = ws_draw_map(&ay, y);
}

static ws_status check(ws_ctx *ctx, const ws_scatter *s) {
  ws_status st = ws_draw_check_size(ctx, s->width, s->height);
  if (st == WS_OK && !(isfinite(s->x_min) && isfinite(s->x_max) && s->x_max > s->x_min))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "scatter: an x range with max > min expected");
  if (st == WS_OK && s->ngroups > WS_SCATTER_MAX_GROUPS)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "scatter: at most %d categories, %zu found", WS_SCATTER_MAX_GROUPS,
                     s->ngroups);
  if (st == WS_OK && s->n && (!s->x || !s->y))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "scatter: no point data");
  for (size_t i = 0; st == WS_OK && i < s->n; i++) {
    if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "scatter: point %zu: a finite value expected", i);
    else if (s->group && s->group[i] >= s->ngroups)
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "scatter: point %zu: category %zu of %zu", i, s->group[i],
                       s->ngroups);
  }
  return st;
}

static void draw(cairo_t *cr, const void *chart) {
  const ws_scatter *s = chart;
  ws_draw_axis x, y;
  axes(s, &x, &y);
  ws_chart_rect a = ws_scatter_area(s);
  ws_draw_titles(cr, s->width, s->title, s->subtitle);
  ws_draw_grid(cr, &x, &y, a);
  for (size_t i = 0; i < s->n; i++) {
    ws_draw_colour(cr, ws_draw_palette(s->group ? s->group[i] : 0));
    cairo_new_sub_path(cr);
    cairo_arc(cr, ws_draw_map(&x, s->x[i]), ws_draw_map(&y, s->y[i]), 4.5, 0, 2 * PI);
    cairo_fill(cr);
  }
  ws_draw_frame(cr, a, s->x_label, s->y_label);
  ws_draw_rgb colours[WS_SCATTER_MAX_GROUPS];
  for (size_t k = 0; k < s->ngroups; k++) colours[k] = ws_draw_palette(k);
  if (s->groups) ws_draw_legend(cr, a.x + a.w + 14, a.y, s->groups, colours, s->ngroups, true);
}

ws_status ws_scatter_write(ws_ctx *ctx, const char *path, const ws_scatter *s) {
  ws_status st = check(ctx, s);
  return st == WS_OK ? ws_draw_write(ctx, path, s->width, s->height, draw, s) : st;
}
