/* draw_int.h - what the chart kinds of plot/ share (private to plot/):
 * text, colours (a qualitative palette and a viridis scale), linear and
 * logarithmic axes with their ticks, legends, and the file writer.
 *
 * Design: every chart kind is a function of its data that draws into a
 * cairo context; draw.c owns the surface, the atomic file and the SVG's
 * surface-id normalisation, so each kind's bytes are deterministic by the
 * same rule, and a kind file holds only its own geometry. */
#ifndef WS_PLOT_DRAW_INT_H
#define WS_PLOT_DRAW_INT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "plot/chart.h"

typedef struct ws_draw_rgb {
  double r, g, b;
} ws_draw_rgb;

/* Colour i of a colour-blind-safe qualitative palette (cycles). */
ws_draw_rgb ws_draw_palette(size_t i);
#define WS_DRAW_PALETTE_SIZE 20
/* The viridis scale at t in [0, 1] (clamped): perceptually uniform, dark
 * blue to yellow, readable in grey; interpolated from a table. */
ws_draw_rgb ws_draw_viridis(double t);
void ws_draw_colour(cairo_t *cr, ws_draw_rgb c);

/* Text with its anchor at (x, y): ax 0 left, 0.5 centre, 1 right; ay the
 * same from the top. */
void ws_draw_text(cairo_t *cr, double x, double y, double size, bool bold, double ax, double ay,
                  const char *s);
/* The advance width of s at `size`. */
double ws_draw_text_width(cairo_t *cr, double size, bool bold, const char *s);
/* The title (bold) and an optional subtitle under it, centred on width. */
void ws_draw_titles(cairo_t *cr, double width, const char *title, const char *subtitle);

/* One axis: values lo..hi onto pixels p0..p1 (p1 < p0 for a y axis). */
typedef struct ws_draw_axis {
  double lo, hi, p0, p1;
  bool log;
} ws_draw_axis;
double ws_draw_map(const ws_draw_axis *a, double v);
/* A tick step of 1, 2 or 5 times a power of ten, about six over lo..hi. */
double ws_draw_tick_step(double lo, double hi);
/* Nice bounds for a linear axis holding lo..hi: whole tick steps. */
void ws_draw_nice_range(double *lo, double *hi);
/* Whole decades holding lo..hi (both > 0), at least one decade apart. */
void ws_draw_decade_range(double *lo, double *hi);
/* Grid lines, ticks and tick labels of both axes over the area; log axes
 * get a labelled line per decade and minor lines at 2..9. */
void ws_draw_grid(cairo_t *cr, const ws_draw_axis *x, const ws_draw_axis *y, ws_chart_rect area);
/* The area's frame and the axis labels (the y label rotated). */
void ws_draw_frame(cairo_t *cr, ws_chart_rect area, const char *x_label, const char *y_label);
/* A legend box of coloured swatches (circles when `dots`) with names, its
 * top-left corner at (x, y). */
void ws_draw_legend(cairo_t *cr, double x, double y, const char *const *names, const ws_draw_rgb *colours,
                    size_t n, bool dots);

/* Writes a chart of width x height into `path` (.png or .svg): `draw`
 * paints it; atomic, deterministic bytes. */
typedef void (*ws_draw_fn)(cairo_t *cr, const void *chart);
ws_status ws_draw_write(ws_ctx *ctx, const char *path, int32_t width, int32_t height, ws_draw_fn draw,
                        const void *chart);
/* A usage-style refusal of a size outside WS_CHART_MIN_SIDE..MAX_SIDE. */
ws_status ws_draw_check_size(ws_ctx *ctx, int32_t width, int32_t height);

#endif
