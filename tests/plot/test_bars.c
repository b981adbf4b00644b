/* test_bars.c - stacked bars (plot/bars.h): segment heights proportional
 * to the shares, each part its palette colour, the same bytes twice. */
#include <math.h>

#include "plot/bars.h"
#include "tests/plot/probe.h"

static char dir[] = "/tmp/ws_bars_XXXXXX", png[256];
static ws_ctx *ctx;
static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  snprintf(png, sizeof png, "%s/b.png", dir);
}
static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}
TestSuite(bars, .init = setup, .fini = teardown);

static const char *const labels[] = {"a", "b"}, *const parts[] = {"long_scoreboard", "barrier", "wait"};
static const double shares[] = {50, 30, 20, 10, 10, 60};

static ws_bars chart(void) { return (ws_bars){"t", "s", "%", labels, 2, parts, 3, shares, 700, 450, false}; }

Test(bars, segments_proportional_to_shares) {
  ws_bars b = chart();
  cr_assert_eq(ws_bars_write(ctx, png, &b), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  ws_chart_rect a = ws_bars_area(&b);
  for (size_t i = 0; i < 2; i++) {
    double bottom = a.y + a.h;
    for (size_t p = 0; p < 3; p++) {
      ws_chart_rect r = ws_bars_segment(&b, i, p);
      cr_expect(fabs(r.h - shares[i * 3 + p] / 100.0 * a.h) < 1e-9, "bar %zu part %zu's height", i, p);
      cr_expect(fabs(r.y + r.h - bottom) < 1e-9, "bar %zu part %zu sits on the one below", i, p);
      bottom = r.y;
      px c = probe_pixel(s, r.x + r.w / 2, r.y + r.h / 2);
      const double pal[3][3] = {{0.00, 0.45, 0.70}, {0.84, 0.37, 0.00}, {0.00, 0.62, 0.45}};
      cr_expect(probe_is(c, pal[p][0], pal[p][1], pal[p][2], 2), "bar %zu part %zu: (%d, %d, %d)", i, p, c.r,
                c.g, c.b);
    }
  }
  cairo_surface_destroy(s);
}

/* A part set apart is grey (hatched over), the others keep their
 * palette colours. */
Test(bars, a_first_part_set_apart_is_grey_and_hatched) {
  ws_bars b = chart();
  b.first_apart = true;
  cr_assert_eq(ws_bars_write(ctx, png, &b), WS_OK, "%s", ws_errmsg(ctx));
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  ws_chart_rect r = ws_bars_segment(&b, 0, 0);
  size_t grey = 0, hatch = 0;
  for (double y = r.y + 2; y < r.y + r.h - 2; y++)
    for (double x = r.x + 2; x < r.x + r.w - 2; x++) {
      px c = probe_pixel(s, x, y);
      cr_expect(c.r == c.g && c.g == c.b, "(%g, %g) is grey: (%d, %d, %d)", x, y, c.r, c.g, c.b);
      grey += probe_is(c, 0.80, 0.80, 0.80, 2), hatch += c.r < 190;
    }
  cr_expect(grey > 0 && hatch > 0, "light grey with darker lines: %zu, %zu", grey, hatch);
  r = ws_bars_segment(&b, 0, 1);
  cr_expect(probe_is(probe_pixel(s, r.x + r.w / 2, r.y + r.h / 2), 0.84, 0.37, 0.00, 2), "part 1 its colour");
  cairo_surface_destroy(s);
}

Test(bars, same_bytes_twice_and_refusals) {
  ws_bars b = chart();
  char again[300];
  snprintf(again, sizeof again, "%s/again.png", dir);
  cr_assert_eq(ws_bars_write(ctx, png, &b), WS_OK);
  cr_assert_eq(ws_bars_write(ctx, again, &b), WS_OK);
  cr_expect(probe_same_files(png, again));
  const double neg[] = {50, -1, 20, 10, 10, 60};
  b.shares = neg;
  cr_expect_neq(ws_bars_write(ctx, png, &b), WS_OK);
  cr_expect(strstr(ws_errmsg(ctx), "bar 0 part 1: a finite share >= 0 expected"), "%s", ws_errmsg(ctx));
}
