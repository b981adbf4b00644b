/* test_scatter.c - the scatter (plot/scatter.h): markers where the axes
 * put them in their category's colour, a log y axis past a 100x span, the
 * same bytes twice. */
#include <math.h>

#include "plot/scatter.h"
#include "tests/plot/probe.h"

static char dir[] = "/tmp/ws_scat_XXXXXX", png[256], svg[256];
static ws_ctx *ctx;
static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  snprintf(png, sizeof png, "%s/s.png", dir), snprintf(svg, sizeof svg, "%s/s.svg", dir);
}
static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}
TestSuite(scatter, .init = setup, .fini = teardown);

static const double xs[] = {25, 50, 90}, ys[] = {2000, 5000, 400000};
static const size_t group[] = {0, 1, 1};
static const char *const names[] = {"naive", "tiled"};

static ws_scatter chart(void) {
  return (ws_scatter){"t", "s", "occupancy_pct", "cycles", 0, 100, xs, ys, group, 3, names, 2, 700, 450};
}

Test(scatter, markers_in_their_colours_on_a_log_axis) {
  ws_scatter c = chart();
  cr_expect(ws_scatter_log_y(&c), "2000 to 400000 spans 200x");
  cr_assert_eq(ws_scatter_write(ctx, png, &c), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  const double pal[2][3] = {{0.00, 0.45, 0.70}, {0.84, 0.37, 0.00}};
  for (size_t i = 0; i < 3; i++) {
    double x, y;
    ws_scatter_map(&c, xs[i], ys[i], &x, &y);
    px p = probe_pixel(s, x, y);
    cr_expect(probe_is(p, pal[group[i]][0], pal[group[i]][1], pal[group[i]][2], 3), "point %zu: (%d, %d, %d)",
              i, p.r, p.g, p.b);
  }
  double x, y1, y2;
  ws_scatter_map(&c, 50, 1000, &x, &y1), ws_scatter_map(&c, 50, 10000, &x, &y2);
  double y3;
  ws_scatter_map(&c, 50, 100000, &x, &y3);
  cr_expect(fabs((y1 - y2) - (y2 - y3)) < 1e-6, "decades equally spaced");
  cairo_surface_destroy(s);
  c.y = (const double[]){1000, 5000, 20000};
  cr_expect(!ws_scatter_log_y(&c), "a 20x span stays linear");
}

Test(scatter, same_bytes_twice) {
  ws_scatter c = chart();
  char again[300];
  snprintf(again, sizeof again, "%s/again.svg", dir);
  cr_assert_eq(ws_scatter_write(ctx, svg, &c), WS_OK);
  cr_assert_eq(ws_scatter_write(ctx, again, &c), WS_OK);
  cr_expect(probe_same_files(svg, again));
  const size_t bad[] = {0, 2, 1};
  c.group = bad;
  cr_expect_neq(ws_scatter_write(ctx, png, &c), WS_OK);
  cr_expect(strstr(ws_errmsg(ctx), "point 1: category 2 of 2"), "%s", ws_errmsg(ctx));
}
