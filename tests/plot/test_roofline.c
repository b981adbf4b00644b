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

/* Sixteen points in a 4 x 4 block 14 xs apart, as a sweep's tiles crowd on
 * a roofline, each with a label of "bm=64 bn=64 tm=8 tn=4"'s size. */
#define CROWD 16
static void crowd(double *xs, double *ys, double *w) {
  for (size_t i = 0; i < CROWD; i++)
    xs[i] = 300 + 14.0 * (double)(i % 4), ys[i] = 250 + 14.0 * (double)(i / 4);
  for (size_t i = 0; i < CROWD; i++) w[i] = 105 + (double)(i % 3) * 6;
}

static bool overlap(ws_chart_rect a, ws_chart_rect b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

Test(roofline, crowded_labels_never_overlap_each_other_or_a_point) {
  double xs[CROWD], ys[CROWD], w[CROWD];
  ws_chart_rect box[CROWD], bounds = {72, 50, 704, 462};
  bool placed[CROWD];
  crowd(xs, ys, w);
  bool collide = false; /* the old placement, every label 7 xs right of its point */
  for (size_t i = 0; i < CROWD; i++)
    for (size_t j = 0; j < i; j++)
      collide |= overlap((ws_chart_rect){xs[i] + 7, ys[i] - 5.5, w[i], 11},
                         (ws_chart_rect){xs[j] + 7, ys[j] - 5.5, w[j], 11});
  cr_assert(collide, "the crowd is one a fixed offset cannot label");
  size_t n = ws_roofline_place_labels(xs, ys, w, 11, CROWD, bounds, box, placed), count = 0;
  for (size_t i = 0; i < CROWD; i++) {
    if (!placed[i]) continue;
    count++;
    cr_expect(box[i].x >= bounds.x && box[i].y >= bounds.y && box[i].x + box[i].w <= bounds.x + bounds.w &&
                  box[i].y + box[i].h <= bounds.y + bounds.h,
              "label %zu inside the area", i);
    cr_expect(box[i].w == w[i] && box[i].h == 11, "label %zu keeps its size", i);
    for (size_t j = 0; j < CROWD; j++) {
      ws_chart_rect m = {xs[j] - WS_ROOFLINE_MARKER_PX, ys[j] - WS_ROOFLINE_MARKER_PX,
                         2 * WS_ROOFLINE_MARKER_PX, 2 * WS_ROOFLINE_MARKER_PX};
      cr_expect(!overlap(box[i], m), "label %zu covers point %zu", i, j);
      if (j < i && placed[j]) cr_expect(!overlap(box[i], box[j]), "labels %zu and %zu overlap", i, j);
    }
  }
  cr_expect_eq(n, count);
  cr_expect_gt(n, CROWD / 2, "most of the crowd is labelled (%zu of %d)", n, CROWD);
  ws_chart_rect again[CROWD];
  bool placed2[CROWD];
  cr_expect_eq(ws_roofline_place_labels(xs, ys, w, 11, CROWD, bounds, again, placed2), n);
  for (size_t i = 0; i < CROWD; i++)
    cr_expect(placed[i] == placed2[i] && (!placed[i] || memcmp(&box[i], &again[i], sizeof box[i]) == 0),
              "label %zu: the same points, the same place", i);
}

Test(roofline, a_lone_label_sits_right_of_its_point_or_left_at_the_edge) {
  double xs[2] = {100, 790}, ys[2] = {200, 300}, w[2] = {60, 60};
  ws_chart_rect box[2], bounds = {0, 0, 800, 560};
  bool placed[2];
  cr_assert_eq(ws_roofline_place_labels(xs, ys, w, 11, 2, bounds, box, placed), 2);
  cr_expect(box[0].x == 100 + WS_ROOFLINE_MARKER_PX + 2 && box[0].y == 200 - 5.5, "right of its point");
  cr_expect(box[1].x + box[1].w == 790 - WS_ROOFLINE_MARKER_PX - 2, "left of a point at the right edge");
}
