/* sweepcharts.h - the explorer's charts of a sweep's table: which rows
 * count, the value a heatmap cell shows when several rows share it, the
 * roofs a roofline draws from a preset, occupancy against cycles, and the
 * stall reasons per point (what `warpscope plot` draws).
 *
 * Design: a chart is built into plot/'s plain arrays (ws_charts_build), so
 * a test reads the very values that would be drawn, and written by plot/
 * in a second step; ws_charts_draw does both. The rows left out are
 * counted in a tally the caller prints, since a library does not print.
 * A request that names what the table lacks (a column, a gpu among
 * several) fails with WS_ERR_USAGE, bad content or no row to draw with
 * WS_ERR_INVALID: the CLI tells a usage mistake from a failed run. */
#ifndef WS_CHARTS_SWEEPCHARTS_H
#define WS_CHARTS_SWEEPCHARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/bars.h"
#include "plot/heatmap.h"
#include "plot/roofline.h"
#include "plot/scatter.h"
#include "plot/table.h"

/* The rows a chart is drawn from at most: a sweep's whole space (its
 * 100,000-point cap). A chart of more points shows nothing one could read,
 * and its SVG would take gigabytes. */
#define WS_CHARTS_MAX_ROWS 100000u

typedef enum ws_charts_kind {
  WS_CHARTS_HEATMAP,
  WS_CHARTS_ROOFLINE,
  WS_CHARTS_OCCUPANCY,
  WS_CHARTS_STALLS,
  WS_CHARTS_KIND_COUNT
} ws_charts_kind;

typedef enum ws_charts_reduce {
  WS_CHARTS_REDUCE_AUTO, /* by the metric's name (ws_charts_lower_is_better) */
  WS_CHARTS_REDUCE_MIN,
  WS_CHARTS_REDUCE_MAX
} ws_charts_reduce;

/* What to draw; a NULL column takes the kind's default (the heatmap has
 * none: it needs x, y and metric). The chart points into these strings. */
typedef struct ws_charts_opts {
  const char *source; /* the table's name in messages (the CSV's path) */
  const char *x, *y, *metric, *color_by;
  const char *label; /* comma-separated label columns, each must exist; NULL: the kind's default */
  const char *gpu;   /* only this gpu's rows (and its preset's roofs); NULL: the gpu column's one */
  const char *title; /* NULL: the kind's title */
  ws_charts_kind kind;
  ws_charts_reduce reduce; /* the heatmap's */
  bool all;                /* also rows that are not valid or failed their check */
  int32_t width, height;
} ws_charts_opts;

/* The rows the chart left out, and why. */
typedef struct ws_charts_tally {
  bool counted; /* the rows were gathered: the counts below hold */
  size_t total, drawn;
  size_t invalid;        /* not valid, or failing their check */
  size_t other_gpu;      /* of another gpu than opts.gpu */
  size_t blank;          /* an empty field */
  size_t unplottable;    /* a value the chart cannot draw: 0 or less on a log axis, a negative share */
  const char *blank_col; /* the first column whose empty field left a row out; NULL: none */
} ws_charts_tally;

typedef struct ws_charts_store ws_charts_store;

/* A built chart: plot/'s description of the kind, pointing into `store`,
 * the options' strings and the table. */
typedef struct ws_charts_chart {
  ws_charts_kind kind;
  union {
    ws_heatmap heatmap;
    ws_roofline roofline;
    ws_scatter occupancy;
    ws_bars stalls;
  } as;
  ws_charts_store *store; /* the arrays and texts; ws_charts_free releases them */
} ws_charts_chart;

/* Whether less of a metric is better (cycles, times, bytes, errors, bank
 * conflicts, stalls), by its column's name: the heatmap keeps the lowest
 * of a cell's rows and draws the lowest bright. */
bool ws_charts_lower_is_better(const char *metric);

/* Picks the rows (valid ones of opts.gpu's, unless opts.all) and builds
 * the chart of opts.kind; *tally says what was left out, also on failure
 * once the rows were counted. Nothing to free on failure. */
ws_status ws_charts_build(ws_ctx *ctx, const ws_charts_opts *o, const ws_table *t, ws_charts_tally *tally,
                          ws_charts_chart *out);
/* Writes a built chart into `path` (.png or .svg; whole, or not at all). */
ws_status ws_charts_write(ws_ctx *ctx, const char *path, const ws_charts_chart *c);
void ws_charts_free(ws_charts_chart *c);
/* ws_charts_build, ws_charts_write, ws_charts_free. */
ws_status ws_charts_draw(ws_ctx *ctx, const ws_charts_opts *o, const ws_table *t, const char *path,
                         ws_charts_tally *tally);

#endif
