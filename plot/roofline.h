/* roofline.h - a roofline chart: log-log axes of arithmetic intensity
 * (FLOP/byte) against GFLOP/s, bandwidth roofs (GB/s: DRAM, L2, L1/shared)
 * rising to the highest compute roof, compute roofs (GFLOP/s: FP32, FP16
 * tensor) flat from where they meet the highest bandwidth roof, the ridge
 * points marked, and every point a marker with an optional label.
 *
 * Design: the roofs are data the caller passes (from a preset's peaks),
 * so this module knows nothing of GPUs; the axes are whole decades chosen
 * from the roofs and the points, and ws_roofline_map gives the pixel of any
 * (intensity, GFLOP/s), so a test can check that a roof passes where the
 * axes put it. */
#ifndef WS_PLOT_ROOFLINE_H
#define WS_PLOT_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/chart.h"

#define WS_ROOFLINE_MAX_ROOFS 8
/* The most points labelled: placing a label checks it against every
 * placed label and every marker, and thousands of labels read as ink. */
#define WS_ROOFLINE_MAX_LABELS 1000
/* The half side of the square a point's marker keeps free of labels. */
#define WS_ROOFLINE_MARKER_PX 5.0

typedef struct ws_roof {
  const char *name;
  double value; /* GB/s for a bandwidth roof, GFLOP/s for a compute roof; > 0 */
} ws_roof;

typedef struct ws_roofline {
  const char *title, *subtitle;
  const ws_roof *bandwidth, *compute;
  size_t nbandwidth, ncompute;      /* 1 to WS_ROOFLINE_MAX_ROOFS each */
  const double *intensity, *gflops; /* the points; both > 0 */
  const char *const *labels;        /* per point; NULL (or a NULL entry): none */
  size_t n;
  int32_t width, height;
} ws_roofline;

ws_status ws_roofline_write(ws_ctx *ctx, const char *path, const ws_roofline *r);
/* The plotting area, and the pixel of (intensity, gflops) in it. */
ws_chart_rect ws_roofline_area(const ws_roofline *r);
void ws_roofline_map(const ws_roofline *r, double intensity, double gflops, double *px, double *py);
/* Places the labels of points (px[i], py[i]), each w[i] x h, inside
 * `bounds` so that no two overlap and none covers a point's marker: label i
 * takes the first free spot of a fixed list around its point (right, left,
 * above, below, the four corners; then the same farther out, where the
 * drawing joins it to its point by a leader line), points in order, so the
 * same points give the same places. A label with no free spot, or past the
 * first WS_ROOFLINE_MAX_LABELS, is left out: placed[i] false. Returns the
 * number placed; box[i] holds label i's rectangle when placed. */
size_t ws_roofline_place_labels(const double *px, const double *py, const double *w, double h, size_t n,
                                ws_chart_rect bounds, ws_chart_rect *box, bool *placed);

#endif
