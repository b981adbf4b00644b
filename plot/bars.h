/* bars.h - stacked bars: one bar per point, stacked by parts (the shares
 * of warp-cycles per warp state), each part one colour of a fixed palette
 * in the order given, with a legend; a first part set apart (the cycles a
 * warp issued, which are not a stall) is grey and hatched.
 *
 * Design: the y axis runs from 0 to 100 % (or to the tallest bar, if any
 * is taller), so bars of different points compare directly; the rectangle
 * of any segment is public (ws_bars_segment) for tests. */
#ifndef WS_PLOT_BARS_H
#define WS_PLOT_BARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/chart.h"

#define WS_BARS_MAX_BARS 512
#define WS_BARS_MAX_PARTS 32

typedef struct ws_bars {
  const char *title, *subtitle, *y_label;
  const char *const *bar_labels; /* under each bar */
  size_t nbars;
  const char *const *parts; /* the legend's names, bottom of the stack first */
  size_t nparts;
  const double *shares; /* nbars x nparts, bar b's at shares[b * nparts]; >= 0 */
  int32_t width, height;
  bool first_apart; /* part 0 is not of the others' kind (warps issuing, under stalls): grey, hatched */
} ws_bars;

ws_status ws_bars_write(ws_ctx *ctx, const char *path, const ws_bars *b);
ws_chart_rect ws_bars_area(const ws_bars *b);
/* The rectangle of part p of bar i (zero height for a zero share). */
ws_chart_rect ws_bars_segment(const ws_bars *b, size_t i, size_t p);

#endif
