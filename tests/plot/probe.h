/* probe.h - what the chart suites share: a temporary folder, reading a
 * PNG's pixels back, and the same-bytes-twice check. */
#ifndef WS_TESTS_PLOT_PROBE_H
#define WS_TESTS_PLOT_PROBE_H

#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"

typedef struct px {
  int r, g, b;
} px;

static inline px probe_pixel(cairo_surface_t *s, double fx, double fy) {
  const unsigned char *d = cairo_image_surface_get_data(s);
  int x = (int)fx, y = (int)fy;
  uint32_t v = *(const uint32_t *)(d + (size_t)y * (size_t)cairo_image_surface_get_stride(s) + (size_t)x * 4);
  return (px){(int)(v >> 16 & 255), (int)(v >> 8 & 255), (int)(v & 255)};
}

/* Whether the pixel is within `tol` levels of (r, g, b) in [0, 1]. */
static inline bool probe_is(px p, double r, double g, double b, int tol) {
  return abs(p.r - (int)(r * 255 + 0.5)) <= tol && abs(p.g - (int)(g * 255 + 0.5)) <= tol &&
         abs(p.b - (int)(b * 255 + 0.5)) <= tol;
}

static inline bool probe_same_files(const char *a, const char *b) {
  char *x = NULL, *y = NULL;
  size_t nx = 0, ny = 0;
  ws_ctx *ctx = ws_ctx_create();
  bool same = ws_file_read(ctx, a, 1 << 24, "chart", &x, &nx) == WS_OK &&
              ws_file_read(ctx, b, 1 << 24, "chart", &y, &ny) == WS_OK && nx == ny && memcmp(x, y, nx) == 0;
  free(x), free(y);
  ws_ctx_destroy(ctx);
  return same;
}

#endif
