/* scatter.h - a scatter of points coloured by category with a legend (the
 * explorer's occupancy against cycles): a linear x axis, a y axis that
 * turns logarithmic when the values span more than WS_SCATTER_LOG_SPAN.
 *
 * Design: categories are indices into a list of names the caller built
 * (in the order it met them), so the colours follow the data's order and
 * never a hash; ws_scatter_map gives the pixel of a value pair for tests. */
#ifndef WS_PLOT_SCATTER_H
#define WS_PLOT_SCATTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/chart.h"

#define WS_SCATTER_LOG_SPAN 100.0
#define WS_SCATTER_MAX_GROUPS 64

typedef struct ws_scatter {
  const char *title, *subtitle, *x_label, *y_label;
  double x_min, x_max; /* the x axis (x_max > x_min) */
  const double *x, *y;
  const size_t *group; /* per point, an index into groups; NULL: all one colour */
  size_t n;
  const char *const *groups; /* the legend's names */
  size_t ngroups;
  int32_t width, height;
} ws_scatter;

ws_status ws_scatter_write(ws_ctx *ctx, const char *path, const ws_scatter *s);
ws_chart_rect ws_scatter_area(const ws_scatter *s);
/* Whether the y axis is logarithmic, and the pixel of (x, y). */
bool ws_scatter_log_y(const ws_scatter *s);
void ws_scatter_map(const ws_scatter *s, double x, double y, double *px, double *py);

#endif
