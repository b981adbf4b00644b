/* plotkinds.h - what `warpscope plot` shares between its flags
 * (cmd_plot.c) and the making of each chart kind's data (plotkinds.c). */
#ifndef WS_CLI_PLOTKINDS_H
#define WS_CLI_PLOTKINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/table.h"

typedef enum ws_cli_plot_kind {
  WS_CLI_PLOT_HEATMAP,
  WS_CLI_PLOT_ROOFLINE,
  WS_CLI_PLOT_OCCUPANCY,
  WS_CLI_PLOT_STALLS,
  WS_CLI_PLOT_KIND_COUNT
} ws_cli_plot_kind;

typedef enum ws_cli_plot_reduce {
  WS_CLI_PLOT_REDUCE_AUTO, /* by the metric's name: less is better for cycles, times, bytes... */
  WS_CLI_PLOT_REDUCE_MIN,
  WS_CLI_PLOT_REDUCE_MAX
} ws_cli_plot_reduce;

typedef struct ws_cli_plot_opts {
  const char *csv, *out, *x, *y, *metric, *color_by, *label, *gpu, *title;
  ws_cli_plot_kind kind;
  bool has_kind, all;
  ws_cli_plot_reduce reduce;
  int32_t width, height;
} ws_cli_plot_opts;

/* Picks the rows, builds the chart of o->kind and writes it; an exit code
 * (2 for a column the table lacks, 1 for bad content or no rows). */
int ws_cli_plot_draw(ws_ctx *ctx, const ws_cli_plot_opts *o, const ws_table *t);

#endif
