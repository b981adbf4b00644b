/* chart.h - charts drawn with cairo into PNG or SVG files: panels of
 * lines and step functions on linear axes, side by side under one title,
 * with a marked point per panel (the occupancy calculator's curves, the
 * explorer's plots).
 *
 * Design: a chart is data (panels of series, plain arrays the caller owns)
 * and one call draws it, so the CLI composes and the drawing is tested in
 * one place. The geometry of each panel's plotting area is a function of
 * the size alone (ws_chart_area), so tests probe the pixels where a value
 * must be. Text is cairo's DejaVu Sans (Debian's fonts-dejavu-core through
 * fontconfig); no clock, path or pointer reaches the file, so the same
 * chart gives the same bytes. Files are written to a temporary file and
 * renamed into place (base/file.h). */
#ifndef WS_PLOT_CHART_H
#define WS_PLOT_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

typedef struct ws_chart_series {
  const char *label; /* in the panel's legend; NULL: none */
  const double *x, *y;
  size_t n;
  bool steps; /* a step function: y[i] holds from x[i] to x[i + 1] */
} ws_chart_series;

typedef struct ws_chart_panel {
  const char *title, *x_label, *y_label;
  double x_min, x_max, y_min, y_max; /* the axes' ranges (x_max > x_min, y_max > y_min) */
  const ws_chart_series *series;
  size_t nseries;
  bool has_mark; /* a point drawn over the series with a label (the current configuration) */
  double mark_x, mark_y;
  const char *mark_label;
} ws_chart_panel;

typedef struct ws_chart {
  const char *title;
  const ws_chart_panel *panels; /* side by side, left to right */
  size_t npanels;
  int32_t width, height; /* pixels (PNG) or points (SVG) */
} ws_chart;

typedef enum ws_chart_format { WS_CHART_PNG, WS_CHART_SVG } ws_chart_format;

/* Bounds of a chart's size, and of its panels. */
#define WS_CHART_MIN_SIDE 200
#define WS_CHART_MAX_SIDE 8192
#define WS_CHART_MAX_PANELS 8

/* The format a path's extension names (.png or .svg, any case); anything
 * else is WS_ERR_INVALID naming what was expected. */
ws_status ws_chart_format_of(ws_ctx *ctx, const char *path, ws_chart_format *out);
/* Checks the chart (sizes, ranges, finite values), then draws it into
 * `path` in the format its extension names. */
ws_status ws_chart_write(ws_ctx *ctx, const char *path, const ws_chart *chart);

typedef struct ws_chart_rect {
  double x, y, w, h;
} ws_chart_rect;
/* The plotting area of panel i: x_min maps to its left edge, x_max to its
 * right edge, y_min to its bottom and y_max to its top. */
ws_chart_rect ws_chart_area(const ws_chart *chart, size_t i);

#endif
