/* test_runrow.c - the window's row of the run (viz/runrow.h): launches and
 * copies placed on the runtime's clock from a trace's timeline, hand-made
 * so every pixel is computed here, and the fallback to one equal segment
 * per launch when the timeline does not match the launches. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "viz/runrow.h"

static char path[] = "/tmp/ws_runrow_XXXXXX";
static ws_ctx *ctx;

static ws_runtime_record rec(ws_runtime_op kind, const char *name, uint64_t bytes, uint64_t a, uint64_t b) {
  ws_runtime_record r = {.kind = kind, .size_bytes = bytes, .start_ns = a, .end_ns = b};
  snprintf(r.name, sizeof r.name, "%s", name);
  if (kind == WS_RUNTIME_OP_KERNEL) snprintf(r.kernel, sizeof r.kernel, "%s", name);
  return r;
}

/* Two saxpy launches on the classroom preset, with `tl` as the timeline. */
static ws_wst_reader *record(const ws_runtime_record *tl, size_t ntl) {
  wstrec_tmpfile(path);
  ws_device *dev = wstrec_device(ctx, "classroom", NULL);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, NULL);
  ws_example_shape shape = ws_example_default_shape("saxpy");
  shape.n = 256;
  wstrec_run(ctx, dev, "saxpy", &shape, 2, NULL);
  cr_assert_eq(ws_wst_writer_set_timeline(w, tl, ntl), WS_OK);
  wstrec_finish(ctx, dev, w);
  ws_device_destroy(dev);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  unlink(path);
  strcpy(path, "/tmp/ws_runrow_XXXXXX");
  return r;
}

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }
TestSuite(runrow, .init = setup, .fini = teardown, .timeout = 120);

static void span_is(const ws_viz_runrow *row, size_t i, int32_t w, int32_t x0, int32_t x1) {
  int32_t a, b;
  ws_viz_runrow_span(row, i, w, &a, &b);
  cr_expect(a == x0 && b == x1, "segment %zu: [%d, %d) expected, [%d, %d) found", i, x0, x1, a, b);
}

Test(runrow, copies_and_launches_on_the_runtime_clock) {
  const char *k = "saxpy";
  ws_runtime_record tl[] = {
      rec(WS_RUNTIME_OP_H2D, "x", 4096, 1000, 11000),   rec(WS_RUNTIME_OP_KERNEL, k, 0, 11000, 13000),
      rec(WS_RUNTIME_OP_HOST, "host", 0, 13000, 13100), rec(WS_RUNTIME_OP_KERNEL, k, 0, 13100, 14000),
      rec(WS_RUNTIME_OP_D2H, "y", 1024, 14000, 21000),
  };
  ws_wst_reader *r = record(tl, 5);
  cr_assert_str_eq(ws_wst_kernel(r, 0)->name, "saxpy");
  ws_viz_runrow row;
  cr_assert_eq(ws_viz_runrow_build(ctx, r, &row), WS_OK);
  cr_assert(row.timed);
  cr_assert_eq(row.nsegs, 4); /* two launches, two copies; host work is not drawn */
  cr_expect_eq(row.first_ns, 1000);
  cr_expect_eq(row.end_ns, 21000);
  cr_expect_eq(row.segs[0].kind, WS_VIZ_RUNROW_LAUNCH);
  cr_expect_eq(row.segs[1].launch, 1);
  cr_expect_eq(row.segs[2].kind, WS_VIZ_RUNROW_H2D);
  cr_expect_eq(row.segs[2].launch, 0, "a click on a copy goes to the first launch after it");
  cr_expect_eq(row.segs[3].kind, WS_VIZ_RUNROW_D2H);
  cr_expect_eq(row.segs[3].launch, 1, "after the last launch: the last");
  /* 200 px for 20,000 ns: 100 ns per pixel */
  span_is(&row, 0, 200, 100, 120);
  span_is(&row, 1, 200, 121, 130);
  span_is(&row, 2, 200, 0, 100);
  span_is(&row, 3, 200, 130, 200);
  /* 20 px: the 900 ns launch is under a pixel and drawn 3 wide */
  span_is(&row, 1, 20, 12, 15);
  span_is(&row, 3, 20, 13, 20);
  size_t i = 99;
  for (int j = 0; j < 4; j++) cr_expect(!row.segs[j].banded, "nothing overlaps in time: full height");
  cr_expect(ws_viz_runrow_at(&row, 200, 12, 50, 6, &i) && i == 2);
  cr_expect(ws_viz_runrow_at(&row, 200, 12, 125, 0, &i) && i == 1);
  cr_expect(!ws_viz_runrow_at(&row, 200, 12, 120, 6, &i), "the host work's 100 ns is a gap");
  cr_expect(!ws_viz_runrow_at(&row, 200, 12, 200, 6, &i));
  cr_expect(ws_viz_runrow_at(&row, 20, 12, 14, 11, &i) && i == 3, "copies are drawn over launches");
  char d[200];
  ws_viz_runrow_describe(&row, r, 2, d, sizeof d);
  cr_expect_str_eq(d, "h2d x: 4096 bytes, pinned, 1.00 to 11.00 us (10.00 us)");
  ws_viz_runrow_describe(&row, r, 1, d, sizeof d);
  cr_expect_str_eq(d, "launch 1: saxpy, 13.10 to 14.00 us (0.90 us)");
  ws_viz_runrow_free(&row);
  ws_wst_close(r);
}

/* Streams overlap copies with kernels: such a copy takes a band (H2D the
 * top third, D2H the bottom third) and the kernel under it stays reachable
 * in the rest of the row. */
Test(runrow, copies_under_compute_take_a_band) {
  const char *k = "saxpy";
  ws_runtime_record tl[] = {
      rec(WS_RUNTIME_OP_H2D, "x0", 4096, 0, 10000),     rec(WS_RUNTIME_OP_KERNEL, k, 0, 10000, 30000),
      rec(WS_RUNTIME_OP_H2D, "x1", 4096, 10000, 20000), rec(WS_RUNTIME_OP_D2H, "y0", 1024, 30000, 40000),
      rec(WS_RUNTIME_OP_KERNEL, k, 0, 30000, 40000),
  };
  ws_wst_reader *r = record(tl, 5);
  ws_viz_runrow row;
  cr_assert_eq(ws_viz_runrow_build(ctx, r, &row), WS_OK);
  cr_assert_eq(row.nsegs, 5);
  cr_expect(!row.segs[2].banded, "x0 runs before any kernel");
  cr_expect(row.segs[3].banded, "x1 runs during launch 0");
  cr_expect(row.segs[4].banded, "y0 runs during launch 1");
  int32_t y0, y1;
  ws_viz_runrow_band(&row.segs[3], 12, &y0, &y1);
  cr_expect(y0 == 0 && y1 == 4, "H2D: the top third");
  ws_viz_runrow_band(&row.segs[4], 12, &y0, &y1);
  cr_expect(y0 == 8 && y1 == 12, "D2H: the bottom third");
  size_t i = 99; /* 40 px: 1000 ns a pixel */
  cr_expect(ws_viz_runrow_at(&row, 40, 12, 15, 1, &i) && i == 3, "the copy in its band");
  cr_expect(ws_viz_runrow_at(&row, 40, 12, 15, 6, &i) && i == 0, "the kernel below it");
  cr_expect(ws_viz_runrow_at(&row, 40, 12, 35, 10, &i) && i == 4);
  cr_expect(ws_viz_runrow_at(&row, 40, 12, 35, 2, &i) && i == 1);
  cr_expect(ws_viz_runrow_at(&row, 40, 12, 5, 6, &i) && i == 2, "a copy alone keeps the whole height");
  ws_viz_runrow_free(&row);
  ws_wst_close(r);
}

static void untimed(const ws_runtime_record *tl, size_t ntl) {
  ws_wst_reader *r = record(tl, ntl);
  ws_viz_runrow row;
  cr_assert_eq(ws_viz_runrow_build(ctx, r, &row), WS_OK);
  cr_expect(!row.timed);
  cr_assert_eq(row.nsegs, 2);
  span_is(&row, 0, 200, 0, 100);
  span_is(&row, 1, 200, 100, 200);
  char d[200];
  ws_viz_runrow_describe(&row, r, 1, d, sizeof d);
  cr_expect_str_eq(d, "launch 1: saxpy");
  ws_viz_runrow_free(&row);
  ws_wst_close(r);
}

Test(runrow, a_timeline_that_is_not_the_launches_gives_equal_segments) {
  untimed(NULL, 0); /* no runtime: example and exec */
  ws_runtime_record one[] = {rec(WS_RUNTIME_OP_KERNEL, "saxpy", 0, 0, 10)};
  untimed(one, 1);
  ws_runtime_record other[] = {rec(WS_RUNTIME_OP_KERNEL, "saxpy", 0, 0, 10),
                               rec(WS_RUNTIME_OP_KERNEL, "sgemm", 0, 10, 20)};
  untimed(other, 2);
}
