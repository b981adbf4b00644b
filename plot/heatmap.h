/* heatmap.h - a heatmap: a grid over the distinct values of two swept
 * parameters, each cell coloured by a metric on the viridis scale (the
 * best value bright, whichever way the metric is better), its value
 * printed where it fits, a colour bar with ticks and "better" at its best
 * end; a cell without a value is grey, hatched and labelled "no point".
 *
 * Design: the caller reduces its points to one value per cell (it knows
 * which is best for its metric) and passes the grid; this module only
 * places and colours it. The geometry (ws_heatmap_cell) and the colour of
 * a value (ws_heatmap_colour) are public, so tests probe where and what a
 * value must be. */
#ifndef WS_PLOT_HEATMAP_H
#define WS_PLOT_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/chart.h"

#define WS_HEATMAP_MAX_SIDE 256 /* distinct values per axis */

typedef struct ws_heatmap {
  const char *title, *subtitle, *x_label, *y_label, *metric_label;
  const double *xs, *ys; /* the distinct values, ascending: columns left to right, rows bottom to top */
  size_t nx, ny;
  const double *values; /* nx x ny, row iy at values[iy * nx]; NAN: no point in that cell */
  int32_t width, height;
  bool lower_is_better;     /* the scale reversed: the lowest value bright (cycles, bytes) */
  const char *const *notes; /* nx x ny like values: a line printed under the cell's value where it fits
                             * (which row won a cell several shared); NULL, or a NULL entry: none */
} ws_heatmap;

/* Checks the grid (sizes, ascending finite axes), then draws it into
 * `path` (.png or .svg). */
ws_status ws_heatmap_write(ws_ctx *ctx, const char *path, const ws_heatmap *h);
/* The rectangle of cell (ix, iy). */
ws_chart_rect ws_heatmap_cell(const ws_heatmap *h, size_t ix, size_t iy);
/* The colour of value v: viridis over the finite values' range (its middle
 * when all are equal), the best value yellow, the worst dark blue; r, g, b
 * in [0, 1]. */
void ws_heatmap_colour(const ws_heatmap *h, double v, double rgb[3]);
/* A cell's or a tick's value as the chart prints it: four significant
 * digits, with k, M, G, T or P for thousands and up ("519.4k", "1.45M",
 * "185.1"), so a column of cycles reads alike cell to cell. */
void ws_heatmap_format(double v, char *buf, size_t bytes);

#endif
