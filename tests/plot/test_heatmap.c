/* test_heatmap.c - the heatmap (plot/heatmap.h): each cell has the colour
 * the scale gives its value, an empty cell is grey, the same bytes twice,
 * refusals write nothing. */
#include <math.h>
#include <sys/stat.h>

#include "plot/heatmap.h"
#include "tests/plot/probe.h"

static char dir[] = "/tmp/ws_heat_XXXXXX", png[256], svg[256];
static ws_ctx *ctx;
static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  snprintf(png, sizeof png, "%s/h.png", dir), snprintf(svg, sizeof svg, "%s/h.svg", dir);
}
static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}
TestSuite(heatmap, .init = setup, .fini = teardown);

static const double xs[] = {32, 64, 128}, ys[] = {16, 32};
/* row y=16 then row y=32; one cell without a point */
static const double values[] = {100, 400, 250, 700, NAN, 1000};

static ws_heatmap grid(void) {
  return (ws_heatmap){"t", "s", "bm", "bn", "gflops", xs, ys, 3, 2, values, 700, 450, false, NULL};
}

Test(heatmap, cells_coloured_by_the_scale) {
  ws_heatmap h = grid();
  cr_assert_eq(ws_heatmap_write(ctx, png, &h), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  for (size_t iy = 0; iy < 2; iy++)
    for (size_t ix = 0; ix < 3; ix++) {
      ws_chart_rect c = ws_heatmap_cell(&h, ix, iy);
      px p = probe_pixel(s, c.x + c.w * 0.25, c.y + c.h * 0.25); /* off the printed value */
      double v = values[iy * 3 + ix], rgb[3];
      if (isnan(v)) {
        cr_expect(p.r == p.g && p.g == p.b && p.r > 150, "cell (%zu, %zu) without a point is grey", ix, iy);
        continue;
      }
      ws_heatmap_colour(&h, v, rgb);
      cr_expect(probe_is(p, rgb[0], rgb[1], rgb[2], 2), "cell (%zu, %zu) of %g: (%d, %d, %d)", ix, iy, v, p.r,
                p.g, p.b);
    }
  double lo[3], hi[3];
  ws_heatmap_colour(&h, 100, lo), ws_heatmap_colour(&h, 1000, hi);
  cr_expect(lo[2] > lo[1] && hi[0] > 0.9 && hi[1] > 0.85,
            "viridis: the lowest dark blue, the highest yellow");
  cairo_surface_destroy(s);
}

/* Cycles: the lowest value is the best, so it takes the bright end, in
 * the drawn cell as in the scale. */
Test(heatmap, lower_is_better_puts_the_lowest_value_at_the_bright_end) {
  ws_heatmap h = grid();
  h.lower_is_better = true;
  double best[3], worst[3];
  ws_heatmap_colour(&h, 100, best), ws_heatmap_colour(&h, 1000, worst);
  cr_expect(best[0] > 0.9 && best[1] > 0.85 && best[2] < 0.3, "the lowest is yellow: (%g, %g, %g)", best[0],
            best[1], best[2]);
  cr_expect(worst[2] > worst[1] && worst[0] < 0.3, "the highest is dark blue: (%g, %g, %g)", worst[0],
            worst[1], worst[2]);
  cr_assert_eq(ws_heatmap_write(ctx, png, &h), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  ws_chart_rect c = ws_heatmap_cell(&h, 0, 0); /* 100 */
  cr_expect(probe_is(probe_pixel(s, c.x + c.w * 0.25, c.y + c.h * 0.25), best[0], best[1], best[2], 2));
  cairo_surface_destroy(s);
}

static void expect_format(double v, const char *want) {
  char buf[32];
  ws_heatmap_format(v, buf, sizeof buf);
  cr_expect_str_eq(buf, want, "%g printed as %s, expected %s", v, buf, want);
}

Test(heatmap, values_print_with_si_suffixes_not_exponents) {
  expect_format(519400, "519.4k");
  expect_format(1450000, "1.45M");
  expect_format(999950, "1M");
  expect_format(999.4, "999.4");
  expect_format(185.1, "185.1");
  expect_format(-2500, "-2.5k");
  expect_format(0, "0");
  expect_format(4.6e9, "4.6G");
  expect_format(2e18, "2000P");
}

Test(heatmap, a_note_is_drawn_under_its_cells_value) {
  static const char *const notes[] = {"tm=8 tn=4", NULL, NULL, NULL, NULL, NULL};
  ws_heatmap h = grid();
  cr_assert_eq(ws_heatmap_write(ctx, png, &h), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *plain = cairo_image_surface_create_from_png(png);
  h.notes = notes;
  cr_assert_eq(ws_heatmap_write(ctx, png, &h), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *noted = cairo_image_surface_create_from_png(png);
  ws_chart_rect c = ws_heatmap_cell(&h, 0, 0);
  size_t inked = 0; /* pixels of the note's line, 4 to 10 px under the cell's middle */
  for (double y = c.y + c.h / 2 + 4; y < c.y + c.h / 2 + 10; y++)
    for (double x = c.x + c.w / 2 - 20; x < c.x + c.w / 2 + 20; x++) {
      px a = probe_pixel(plain, x, y), b = probe_pixel(noted, x, y);
      inked += a.r != b.r || a.g != b.g || a.b != b.b;
    }
  cr_expect_gt(inked, 20, "the note's text under the value");
  cairo_surface_destroy(plain), cairo_surface_destroy(noted);
}

Test(heatmap, same_bytes_twice_png_and_svg) {
  ws_heatmap h = grid();
  char again[300];
  const char *paths[] = {png, svg};
  for (int i = 0; i < 2; i++) {
    snprintf(again, sizeof again, "%s.2%s", paths[i], i ? ".svg" : ".png");
    cr_assert_eq(ws_heatmap_write(ctx, paths[i], &h), WS_OK);
    cr_assert_eq(ws_heatmap_write(ctx, again, &h), WS_OK);
    cr_expect(probe_same_files(paths[i], again), "%s: two writes differ", paths[i]);
  }
}

Test(heatmap, refusals_write_nothing) {
  ws_heatmap h = grid();
  const double bad[] = {64, 32};
  h.ys = bad;
  cr_expect_neq(ws_heatmap_write(ctx, png, &h), WS_OK);
  cr_expect(strstr(ws_errmsg(ctx), "y value 1: finite, ascending values expected"), "%s", ws_errmsg(ctx));
  h = grid(), h.nx = 0;
  cr_expect_neq(ws_heatmap_write(ctx, png, &h), WS_OK);
  h = grid(), h.width = 50;
  cr_expect_neq(ws_heatmap_write(ctx, png, &h), WS_OK);
  struct stat st;
  cr_expect_neq(stat(png, &st), 0);
}
