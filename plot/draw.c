/* draw.c - the pieces every chart kind shares (draw_int.h): text,
 * colours, axes, legends, and writing a file. */
#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/file.h"
#include "base/text.h"
#include "plot/draw_int.h"

#define FONT "DejaVu Sans"
#define PI 3.14159265358979323846

/* Okabe and Ito's colour-blind-safe set and four muted extras; colours 10
 * to 19 are the same ten lightened halfway to white, so twenty categories
 * (the stall reasons, the variants) stay apart. */
static const ws_draw_rgb palette[10] = {
    {0.00, 0.45, 0.70}, {0.84, 0.37, 0.00}, {0.00, 0.62, 0.45}, {0.80, 0.47, 0.65}, {0.34, 0.71, 0.91},
    {0.90, 0.62, 0.00}, {0.94, 0.89, 0.26}, {0.40, 0.40, 0.40}, {0.55, 0.34, 0.16}, {0.60, 0.60, 0.85}};

/* matplotlib's viridis at t = 0, 0.1, ..., 1 (#440154 ... #FDE725); linear
 * interpolation between these eleven stays within a few levels of the full
 * 256-entry table. */
static const ws_draw_rgb viridis[] = {{0.267, 0.005, 0.329}, {0.282, 0.141, 0.458}, {0.254, 0.265, 0.530},
                                      {0.207, 0.372, 0.553}, {0.164, 0.471, 0.558}, {0.128, 0.567, 0.551},
                                      {0.135, 0.659, 0.518}, {0.267, 0.749, 0.441}, {0.478, 0.821, 0.318},
                                      {0.741, 0.873, 0.150}, {0.993, 0.906, 0.144}};

ws_draw_rgb ws_draw_palette(size_t i) {
  ws_draw_rgb c = palette[i % 10];
  if (i % WS_DRAW_PALETTE_SIZE < 10) return c;
  return (ws_draw_rgb){0.5 + c.r / 2, 0.5 + c.g / 2, 0.5 + c.b / 2};
}

ws_draw_rgb ws_draw_viridis(double t) {
  if (!(t > 0)) t = 0; /* NaN too */
  if (t > 1) t = 1;
  double f = t * 10.0;
  int i = (int)floor(f);
  if (i >= 10) return viridis[10];
  double u = f - i;
  ws_draw_rgb a = viridis[i], b = viridis[i + 1];
  return (ws_draw_rgb){a.r + u * (b.r - a.r), a.g + u * (b.g - a.g), a.b + u * (b.b - a.b)};
}

void ws_draw_colour(cairo_t *cr, ws_draw_rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

/* ---- text --------------------------------------------------------------------------------------- */

static void font(cairo_t *cr, double size, bool bold) {
  cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double ws_draw_text_width(cairo_t *cr, double size, bool bold, const char *s) {
  font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  return e.x_advance;
}

void ws_draw_text(cairo_t *cr, double x, double y, double size, bool bold, double ax, double ay,
                  const char *s) {
  double w = ws_draw_text_width(cr, size, bold, s);
  cairo_move_to(cr, x - ax * w, y - ay * size + size * 0.8);
  cairo_show_text(cr, s);
}

void ws_draw_titles(cairo_t *cr, double width, const char *title, const char *subtitle) {
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (title) ws_draw_text(cr, width / 2.0, 7, 15, true, 0.5, 0, title);
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  if (subtitle) ws_draw_text(cr, width / 2.0, 27, 11, false, 0.5, 0, subtitle);
}

/* ---- axes --------------------------------------------------------------------------------------- */

double ws_draw_map(const ws_draw_axis *a, double v) {
  double t =
      a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : (v - a->lo) / (a->hi - a->lo);
  return a->p0 + t * (a->p1 - a->p0);
}

double ws_draw_tick_step(double lo, double hi) {
  double raw = (hi - lo) / 6.0, mag = pow(10.0, floor(log10(raw))), norm = raw / mag;
  return (norm <= 1.0 ? 1.0 : norm <= 2.0 ? 2.0 : norm <= 5.0 ? 5.0 : 10.0) * mag;
}

void ws_draw_nice_range(double *lo, double *hi) {
  if (!(*hi > *lo)) *hi = *lo + (*lo != 0 ? fabs(*lo) : 1.0);
  double s = ws_draw_tick_step(*lo, *hi);
  *lo = floor(*lo / s) * s, *hi = ceil(*hi / s) * s;
}

void ws_draw_decade_range(double *lo, double *hi) {
  *lo = pow(10.0, floor(log10(*lo)));
  *hi = pow(10.0, ceil(log10(*hi)));
  if (!(*hi > *lo)) *hi = *lo * 10.0;
}

/* Whole numbers in full (1000000, not 1e+06: an axis of cycles reads
 * better so), fractions to six digits. */
static void tick_label(double v, char *buf, size_t n) {
  if (fabs(v) < 1e-12) v = 0.0;
  snprintf(buf, n, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.6g", v);
}

/* One grid line at value v of axis a (vertical for x), light or minor. */
static void grid_line(cairo_t *cr, const ws_draw_axis *a, bool is_x, ws_chart_rect r, double v, bool minor,
                      bool label) {
  double p = floor(ws_draw_map(a, v)) + 0.5;
  cairo_set_source_rgb(cr, minor ? 0.95 : 0.88, minor ? 0.95 : 0.88, minor ? 0.95 : 0.88);
  if (is_x)
    cairo_move_to(cr, p, r.y), cairo_line_to(cr, p, r.y + r.h);
  else
    cairo_move_to(cr, r.x, p), cairo_line_to(cr, r.x + r.w, p);
  cairo_stroke(cr);
  if (!label) return;
  char buf[32];
  tick_label(v, buf, sizeof buf);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  if (is_x)
    ws_draw_text(cr, p, r.y + r.h + 4, 10, false, 0.5, 0, buf);
  else
    ws_draw_text(cr, r.x - 5, p, 10, false, 1.0, 0.45, buf);
}

static void axis_lines(cairo_t *cr, const ws_draw_axis *a, bool is_x, ws_chart_rect r) {
  if (!a->log) {
    double s = ws_draw_tick_step(a->lo, a->hi);
    for (double v = ceil(a->lo / s) * s; v <= a->hi + s * 1e-9; v += s)
      grid_line(cr, a, is_x, r, v, false, true);
    return;
  }
  int d0 = (int)floor(log10(a->lo) + 1e-9), d1 = (int)ceil(log10(a->hi) - 1e-9);
  for (int d = d0; d <= d1 && d - d0 < 40; d++) {
    double base = pow(10.0, d);
    for (int m = 2; m <= 9; m++)
      if (base * m > a->lo && base * m < a->hi) grid_line(cr, a, is_x, r, base * m, true, false);
    if (base >= a->lo * (1 - 1e-9) && base <= a->hi * (1 + 1e-9))
      grid_line(cr, a, is_x, r, base, false, true);
  }
}

void ws_draw_grid(cairo_t *cr, const ws_draw_axis *x, const ws_draw_axis *y, ws_chart_rect r) {
  cairo_set_line_width(cr, 1.0);
  axis_lines(cr, x, true, r);
  axis_lines(cr, y, false, r);
}

void ws_draw_frame(cairo_t *cr, ws_chart_rect a, const char *x_label, const char *y_label) {
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, floor(a.x) + 0.5, floor(a.y) + 0.5, floor(a.w), floor(a.h));
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (x_label) ws_draw_text(cr, a.x + a.w / 2, a.y + a.h + 22, 11, false, 0.5, 0, x_label);
  if (y_label) {
    cairo_save(cr);
    cairo_translate(cr, a.x - 58, a.y + a.h / 2);
    cairo_rotate(cr, -PI / 2);
    ws_draw_text(cr, 0, 0, 11, false, 0.5, 0, y_label);
    cairo_restore(cr);
  }
}

void ws_draw_legend(cairo_t *cr, double x, double y, const char *const *names, const ws_draw_rgb *colours,
                    size_t n, bool dots) {
  for (size_t k = 0; k < n; k++, y += 15) {
    ws_draw_colour(cr, colours[k]);
    if (dots)
      cairo_arc(cr, x + 5, y + 6, 4, 0, 2 * PI);
    else
      cairo_rectangle(cr, x, y + 1, 11, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ws_draw_text(cr, x + 16, y, 10, false, 0, 0, names[k]);
  }
}

/* ---- files -------------------------------------------------------------------------------------- */

/* chart.h declares it; it lives here, beside the writer that needs it, so
 * chart.c and draw.c do not call each other. */
ws_status ws_chart_format_of(ws_ctx *ctx, const char *path, ws_chart_format *out) {
  const char *dot = strrchr(path, '.');
  if (dot && strcasecmp(dot, ".png") == 0) {
    *out = WS_CHART_PNG;
    return WS_OK;
  }
  if (dot && strcasecmp(dot, ".svg") == 0) {
    *out = WS_CHART_SVG;
    return WS_OK;
  }
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart '%s': a .png or .svg file name expected, '%s' found", path,
                     dot ? dot : "no extension");
}

ws_status ws_draw_check_size(ws_ctx *ctx, int32_t w, int32_t h) {
  if (w < WS_CHART_MIN_SIDE || h < WS_CHART_MIN_SIDE || w > WS_CHART_MAX_SIDE || h > WS_CHART_MAX_SIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "chart: a size of %d to %d per side expected, %dx%d found",
                       WS_CHART_MIN_SIDE, WS_CHART_MAX_SIDE, w, h);
  return WS_OK;
}

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int length) {
  return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static cairo_status_t to_text(void *closure, const unsigned char *data, unsigned int length) {
  ws_text *t = closure;
  ws_text_append(t, (const char *)data, length);
  return t->failed ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

/* cairo numbers its SVG surfaces with a counter of the process ('<g
 * id="surface6">' for the sixth chart drawn): the SVG's own surface is
 * renamed surface1 wherever it is named, so a chart's bytes do not depend
 * on what the process drew before it. */
static bool write_svg(const char *svg, size_t len, FILE *fp) {
  static const char key[] = "id=\"surface";
  const char *at = strstr(svg, key), *p = svg, *end = svg + len;
  char name[40];
  int n = snprintf(name, sizeof name, "surface%lu\"", at ? strtoul(at + sizeof key - 1, NULL, 10) : 0ul);
  for (const char *hit; at && (hit = strstr(p, name)) != NULL; p = hit + n)
    if (fwrite(p, 1, (size_t)(hit - p), fp) != (size_t)(hit - p) || fputs("surface1\"", fp) < 0) return false;
  return fwrite(p, 1, (size_t)(end - p), fp) == (size_t)(end - p);
}

/* Draws into a surface that writes to fp (through memory for SVG); the
 * surface's status at the end. */
static cairo_status_t render(int32_t w, int32_t h, ws_chart_format fmt, ws_draw_fn fn, const void *chart,
                             FILE *fp) {
  ws_text svg;
  ws_text_init(&svg);
  cairo_surface_t *s = fmt == WS_CHART_PNG ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h)
                                           : cairo_svg_surface_create_for_stream(to_text, &svg, w, h);
  cairo_t *cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  fn(cr, chart);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (st == CAIRO_STATUS_SUCCESS && fmt == WS_CHART_PNG)
    st = cairo_surface_write_to_png_stream(s, to_file, fp);
  cairo_surface_finish(s);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  size_t len = svg.len;
  char *text = ws_text_take(&svg);
  if (st == CAIRO_STATUS_SUCCESS && fmt == WS_CHART_SVG && (!text || !write_svg(text, len, fp)))
    st = CAIRO_STATUS_WRITE_ERROR;
  free(text);
  return st;
}

ws_status ws_draw_write(ws_ctx *ctx, const char *path, int32_t width, int32_t height, ws_draw_fn fn,
                        const void *chart) {
  ws_chart_format fmt = WS_CHART_PNG;
  ws_status st = ws_chart_format_of(ctx, path, &fmt);
  if (st == WS_OK) st = ws_draw_check_size(ctx, width, height);
  if (st != WS_OK) return st;
  ws_file_stream *out = NULL;
  st = ws_file_stream_open(ctx, path, &out);
  if (st != WS_OK) return st;
  cairo_status_t cs = render(width, height, fmt, fn, chart, ws_file_stream_fp(out));
  if (cs != CAIRO_STATUS_SUCCESS)
    st = ws_ctx_fail(ctx, WS_ERR_IO, "chart '%s': cairo: %s", path, cairo_status_to_string(cs));
  else
    st = ws_file_stream_commit(ctx, out);
  ws_file_stream_close(out);
  return st;
}
