/* test_roofline.c - the roofline (plot/roofline.h): the DRAM roof passes
 * through the pixel the log axes map (1 FLOP/B, its GB/s) to, the compute
 * roof is flat at its GFLOP/s, a point is where its intensity puts it, the
 * same bytes twice. */
#include <math.h>

#include "plot/roofline.h"
#include "tests/plot/probe.h"

static char dir[] = "/tmp/ws_roof_XXXXXX", png[256], svg[256];
static ws_ctx *ctx;
static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  snprintf(png, sizeof png, "%s/r.png", dir), snprintf(svg, sizeof svg, "%s/r.svg", dir);
}
static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}
TestSuite(roofline, .init = setup, .fini = teardown);

static const ws_roof bw[] = {{"DRAM", 1555}, {"L2", 7000}}, fl[] = {{"FP32", 19500}};
static const double ai[] = {0.5, 40}, gf[] = {300, 9000};

static ws_roofline chart(void) { return (ws_roofline){"t", NULL, bw, fl, 2, 1, ai, gf, NULL, 2, 800, 560}; }

/* Some pixel within 2 of (x, y) is the colour (r, g, b) within tol. */
static bool near(cairo_surface_t *s, double x, double y, double r, double g, double b, int tol) {
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++)
      if (probe_is(probe_pixel(s, x + dx, y + dy), r, g, b, tol)) return true;
  return false;
}

Test(roofline, roofs_and_points_where_the_axes_put_them) {
  ws_roofline r = chart();
  cr_assert_eq(ws_roofline_write(ctx, png, &r), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  double x, y;
  ws_roofline_map(&r, 1.0, 1555, &x, &y);
  cr_expect(near(s, x, y, 0.00, 0.45, 0.70, 40), "the DRAM roof through (1, 1555)");
  ws_roofline_map(&r, 0.1, 155.5, &x, &y);
  cr_expect(near(s, x + 3, y - 0.3 * 3, 0.00, 0.45, 0.70, 40), "and through (0.1, 155.5)");
  ws_roofline_map(&r, 60, 19500, &x, &y);
  cr_expect(near(s, x, y, 0.15, 0.15, 0.15, 40), "the FP32 roof flat at 19500");
  ws_roofline_map(&r, 30, 5000, &x, &y);
  cr_expect(!near(s, x, y, 0.15, 0.15, 0.15, 40), "nothing at (30, 5000)");
  ws_roofline_map(&r, 0.5, 300, &x, &y);
  cr_expect(probe_is(probe_pixel(s, x, y), 0.80, 0.10, 0.10, 3), "the point at (0.5, 300)");
  ws_chart_rect a = ws_roofline_area(&r);
  ws_roofline_map(&r, 0.1, 100, &x, &y);
  cr_expect(fabs(x - a.x) < 1e-9 && fabs(y - (a.y + a.h)) < 1e-9,
            "the axes start at the decades 0.1 and 100");
  cairo_surface_destroy(s);
}

Test(roofline, same_bytes_twice_and_refusals) {
  ws_roofline r = chart();
  char again[300];
  snprintf(again, sizeof again, "%s/again.svg", dir);
  cr_assert_eq(ws_roofline_write(ctx, svg, &r), WS_OK);
  cr_assert_eq(ws_roofline_write(ctx, again, &r), WS_OK);
  cr_expect(probe_same_files(svg, again));
  snprintf(again, sizeof again, "%s/again.png", dir);
  cr_assert_eq(ws_roofline_write(ctx, png, &r), WS_OK);
  cr_assert_eq(ws_roofline_write(ctx, again, &r), WS_OK);
  cr_expect(probe_same_files(png, again));
  const double zero[] = {0, 1};
  r.intensity = zero;
  cr_expect_neq(ws_roofline_write(ctx, png, &r), WS_OK);
  cr_expect(strstr(ws_errmsg(ctx), "point 0: a positive intensity and GFLOP/s expected"), "%s",
            ws_errmsg(ctx));
  r = chart(), r.ncompute = 0;
  cr_expect_neq(ws_roofline_write(ctx, png, &r), WS_OK);
}
