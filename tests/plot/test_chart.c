/* test_chart.c - charts drawn with cairo (plot/chart.h): the step line
 * where the axes put it, the marked point, the same bytes twice, and every
 * refusal leaving no file behind. Pixels are read back from the PNG. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "plot/chart.h"

static char dir[] = "/tmp/ws_chart_XXXXXX";
static ws_ctx *ctx;
static char png[256], svg[256];

static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  snprintf(png, sizeof png, "%s/c.png", dir);
  snprintf(svg, sizeof svg, "%s/c.svg", dir);
}

static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}

TestSuite(chart, .init = setup, .fini = teardown);

/* A step from 8 to 4 at x = 50 over x in [0, 100], y in [0, 10], marked at (20, 8). */
static const double xs[] = {0, 50, 100}, ys[] = {8, 4, 4};
static const ws_chart_series steps = {"warps", xs, ys, 3, true};

static ws_chart one_panel(ws_chart_panel *p) {
  *p = (ws_chart_panel){"panel", "x", "y", 0, 100, 0, 10, &steps, 1, true, 20, 8, "here"};
  return (ws_chart){"title", p, 1, 600, 400};
}

typedef struct px {
  int r, g, b;
} px;

static px pixel(cairo_surface_t *s, int x, int y) {
  const unsigned char *d = cairo_image_surface_get_data(s);
  uint32_t v = *(const uint32_t *)(d + (size_t)y * cairo_image_surface_get_stride(s) + (size_t)x * 4);
  return (px){(int)(v >> 16 & 255), (int)(v >> 8 & 255), (int)(v & 255)};
}

/* Whether a pixel within 2 of (x, y) is mostly blue (the first series) or
 * mostly red (the mark). */
static bool near(cairo_surface_t *s, double fx, double fy, bool red) {
  int x0 = (int)floor(fx), y0 = (int)floor(fy);
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
      px p = pixel(s, x0 + dx, y0 + dy);
      if (red ? (p.r > 150 && p.g < 80 && p.b < 80) : (p.b > 120 && p.r < 60)) return true;
    }
  return false;
}

Test(chart, the_step_and_the_mark_where_the_axes_put_them) {
  ws_chart_panel p;
  ws_chart c = one_panel(&p);
  cr_assert_eq(ws_chart_write(ctx, png, &c), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  cr_assert_eq(cairo_image_surface_get_width(s), 600);
  ws_chart_rect a = ws_chart_area(&c, 0);
  double x = a.x + 0.35 * a.w, y8 = a.y + a.h * 0.2, y4 = a.y + a.h * 0.6;
  cr_expect(near(s, x, y8, false), "y = 8 at x = 35");
  cr_expect(!near(s, x, y4, false), "not 4 before the step");
  cr_expect(near(s, a.x + 0.75 * a.w, y4, false), "y = 4 at x = 75");
  cr_expect(near(s, a.x + 0.5 * a.w, a.y + a.h * 0.4, false), "the step's riser at x = 50");
  cr_expect(near(s, a.x + 0.2 * a.w, y8, true), "the mark at (20, 8)");
  px bg = pixel(s, (int)(a.x + 0.9 * a.w), (int)(a.y + a.h * 0.9 + 3));
  cr_expect(bg.r == 255 && bg.g == 255 && bg.b == 255, "empty plot area is white");
  cairo_surface_destroy(s);
}

static void expect_same_bytes(const char *path, const ws_chart *c) {
  char again[300];
  snprintf(again, sizeof again, "%s.again%s", path, strrchr(path, '.'));
  cr_assert_eq(ws_chart_write(ctx, path, c), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_chart_write(ctx, again, c), WS_OK, "%s", ws_errmsg(ctx));
  char *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  cr_assert_eq(ws_file_read(ctx, path, 1 << 24, "chart", &a, &na), WS_OK);
  cr_assert_eq(ws_file_read(ctx, again, 1 << 24, "chart", &b, &nb), WS_OK);
  cr_expect(na == nb && memcmp(a, b, na) == 0, "%s: two writes of one chart differ", path);
  free(a);
  free(b);
}

Test(chart, same_chart_same_bytes_png_and_svg) {
  ws_chart_panel p;
  ws_chart c = one_panel(&p);
  expect_same_bytes(png, &c);
  expect_same_bytes(svg, &c);
  char *t = NULL;
  size_t n = 0;
  cr_assert_eq(ws_file_read(ctx, svg, 1 << 24, "chart", &t, &n), WS_OK);
  cr_expect(strstr(t, "<svg") != NULL);
  free(t);
}

static void refused(const char *path, const ws_chart *c, const char *msg) {
  cr_expect_neq(ws_chart_write(ctx, path, c), WS_OK);
  cr_expect(strstr(ws_errmsg(ctx), msg) != NULL, "'%s' expected in '%s'", msg, ws_errmsg(ctx));
  struct stat st;
  cr_expect_neq(stat(path, &st), 0, "a refused chart left %s", path);
}

Test(chart, refusals_write_nothing) {
  ws_chart_panel p;
  ws_chart c = one_panel(&p);
  char txt[300];
  snprintf(txt, sizeof txt, "%s/c.txt", dir);
  refused(txt, &c, "a .png or .svg file name expected, '.txt' found");
  c.width = 100;
  refused(png, &c, "a size of 200 to 8192 per side expected, 100x400 found");
  c = one_panel(&p);
  p.x_max = p.x_min;
  refused(png, &c, "panel 0: axis ranges with max > min expected");
  c = one_panel(&p);
  double bad[] = {1, NAN, 3};
  ws_chart_series s = {NULL, xs, bad, 3, false};
  p.series = &s;
  refused(png, &c, "panel 0 series 0 point 1: a finite value expected");
  c = one_panel(&p);
  c.npanels = 0;
  refused(png, &c, "1 to 8 panels expected, 0 found");
}
