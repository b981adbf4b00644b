/* test_sweepcharts.c - a sweep's table turned into charts
 * (charts/sweepcharts.h): the rows that count and the tally of those left
 * out, a heatmap cell's value under each reduce, a roofline's roofs from a
 * preset, occupancy's categories and axis, stall bars and their labels, and
 * a usage error (a column the table lacks) told from a failed run.
 *
 * Design: each table is a few rows written here, so every expected value is
 * read off the CSV above its test; the roofs are the classroom preset's,
 * worked out from its keys (2 SMs at 1000 MHz). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "charts/sweepcharts.h"

static ws_ctx *ctx;
static ws_table *table;
static ws_charts_tally tally;
static ws_charts_chart chart;
static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) {
  ws_charts_free(&chart);
  ws_table_destroy(table);
  ws_ctx_destroy(ctx);
}
TestSuite(sweepcharts, .init = setup, .fini = teardown);

static void parse(const char *text) {
  ws_table_destroy(table), table = NULL;
  cr_assert_eq(ws_table_parse(ctx, "t.csv", text, strlen(text), &table), WS_OK, "%s", ws_errmsg(ctx));
}

static ws_charts_opts opts(ws_charts_kind kind) {
  return (ws_charts_opts){.source = "t.csv", .kind = kind, .width = 900, .height = 600};
}

static ws_status build(const ws_charts_opts *o) { return ws_charts_build(ctx, o, table, &tally, &chart); }

/* Two bk values share the cell (32, 32); (64, 32) holds a row without
 * gflops and an invalid one. */
static const char sweep[] = "bm,bn,bk,gflops,cycles,valid\n"
                            "32,16,8,100,900,yes\n"
                            "64,16,8,400,500,yes\n"
                            "32,32,8,250,700,yes\n"
                            "32,32,16,300,650,yes\n"
                            "64,32,8,,400,yes\n"
                            "64,32,16,900,100,no\n";

static ws_charts_opts heat(const char *metric, ws_charts_reduce reduce) {
  ws_charts_opts o = opts(WS_CHARTS_HEATMAP);
  o.x = "bm", o.y = "bn", o.metric = metric, o.reduce = reduce;
  return o;
}

/* values[iy * nx + ix], y = 16 first; NAN for a cell without a point. */
static void expect_cells(const double want[4]) {
  const ws_heatmap *h = &chart.as.heatmap;
  cr_assert_eq(h->nx, 2);
  cr_assert_eq(h->ny, 2);
  cr_expect(h->xs[0] == 32 && h->xs[1] == 64 && h->ys[0] == 16 && h->ys[1] == 32);
  for (size_t k = 0; k < 4; k++)
    if (isnan(want[k]))
      cr_expect(isnan(h->values[k]), "cell %zu has no point, found %g", k, h->values[k]);
    else
      cr_expect_eq(h->values[k], want[k], "cell %zu: %g, expected %g", k, h->values[k], want[k]);
}

Test(sweepcharts, heatmap_draws_the_highest_gflops_and_leaves_out_empty_and_invalid_rows) {
  parse(sweep);
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  expect_cells((double[]){100, 400, 300, NAN});
  cr_expect(tally.counted);
  cr_expect_eq(tally.total, 6);
  cr_expect_eq(tally.drawn, 4);
  cr_expect_eq(tally.invalid, 1);
  cr_expect_eq(tally.blank, 1);
  cr_expect_eq(tally.other_gpu, 0);
  cr_expect_str_eq(tally.blank_col, "gflops");
  cr_expect_str_eq(chart.as.heatmap.title, "gflops over bm and bn");
  cr_expect_str_eq(
      chart.as.heatmap.subtitle,
      "4 rows; where several share a cell (up to 2), the highest gflops is drawn, over what set it apart");
}

Test(sweepcharts, heatmap_reduce_min_overrides_the_metrics_direction) {
  parse(sweep);
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_MIN);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  expect_cells((double[]){100, 400, 250, NAN});
  cr_expect_str_eq(
      chart.as.heatmap.subtitle,
      "4 rows; where several share a cell (up to 2), the lowest gflops is drawn, over what set it apart");
}

Test(sweepcharts, heatmap_of_cycles_draws_the_lowest_and_all_takes_the_invalid_row) {
  parse(sweep);
  ws_charts_opts o = heat("cycles", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  expect_cells((double[]){900, 500, 650, 400});
  cr_expect_eq(tally.drawn, 5);
  cr_expect_eq(tally.blank, 0);
  ws_charts_free(&chart);
  o.all = true;
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  expect_cells((double[]){900, 500, 650, 100});
  cr_expect_eq(tally.drawn, 6);
  cr_expect_eq(tally.invalid, 0);
}

Test(sweepcharts, each_metric_says_which_way_is_better) {
  const char *lower[] = {"cycles",
                         "time_us",
                         "dram_read_bytes",
                         "max_abs_err",
                         "smem_bank_conflicts",
                         "stall_long_scoreboard",
                         "stall_barrier",
                         "launches"};
  const char *higher[] = {"gflops", "occupancy_pct",  "l2_hit_pct",
                          "ipc",    "stall_selected", "arith_intensity"};
  for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
    cr_expect(ws_charts_lower_is_better(lower[i]), "less %s is better", lower[i]);
  for (size_t i = 0; i < sizeof higher / sizeof higher[0]; i++)
    cr_expect(!ws_charts_lower_is_better(higher[i]), "more %s is better", higher[i]);
}

/* The colours follow the metric, whichever value --reduce keeps. */
Test(sweepcharts, a_heatmap_of_cycles_draws_its_lowest_bright) {
  parse(sweep);
  ws_charts_opts o = heat("cycles", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(chart.as.heatmap.lower_is_better);
  ws_charts_free(&chart);
  o = heat("gflops", WS_CHARTS_REDUCE_MIN);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(!chart.as.heatmap.lower_is_better);
}

/* Four tm x tn points share the cell (64, 64); bk is the same in all, so
 * the note names only what differs. */
Test(sweepcharts, a_shared_cell_notes_the_parameters_its_drawn_row_differs_in) {
  parse("bm,bn,bk,tm,tn,gflops,cycles\n"
        "64,64,8,8,4,500,900\n"
        "64,64,8,4,4,400,800\n"
        "64,64,8,8,8,450,700\n"
        "64,64,8,4,8,300,950\n"
        "128,64,8,8,4,100,999\n");
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_heatmap *h = &chart.as.heatmap;
  cr_assert_eq(h->nx, 2);
  cr_assert_eq(h->ny, 1);
  cr_assert_not_null(h->notes);
  cr_expect_str_eq(h->notes[0], "tm=8 tn=4", "the 500 GFLOP/s row");
  cr_expect_null(h->notes[1], "a cell of one row needs no note");
  ws_charts_free(&chart);
  o = heat("cycles", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_str_eq(chart.as.heatmap.notes[0], "tm=8 tn=8", "the 700-cycle row");
  ws_charts_free(&chart);
  o.label = "tn,bk";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_str_eq(chart.as.heatmap.notes[0], "tn=8", "--label picks the columns a note may name");
}

Test(sweepcharts, a_column_the_table_lacks_is_a_usage_error) {
  parse(sweep);
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  o.x = "bq";
  cr_expect_eq(build(&o), WS_ERR_USAGE);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv has no column 'bq'; its columns: bm, bn, bk, gflops, cycles, valid");
  cr_expect(!tally.counted, "no row was counted before the refusal");
  cr_expect_null(chart.store);
}

Test(sweepcharts, no_row_left_is_a_failed_run) {
  parse("bm,bn,gflops,valid\n1,2,3,no\n");
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  cr_expect_eq(build(&o), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.csv: no rows to plot (1 rows, 1 left out)");
  cr_expect(tally.counted);
  cr_expect_eq(tally.drawn, 0);
  cr_expect_eq(tally.invalid, 1);
}

Test(sweepcharts, text_where_a_number_belongs_names_its_place) {
  parse("bm,bn,gflops\n1,2,3\n1,6x,4\n");
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  cr_expect_eq(build(&o), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.csv:3:3: error: column 'bn': a number expected, '6x' found");
}

Test(sweepcharts, heatmap_refuses_more_distinct_values_than_an_axis_shows) {
  char text[8192] = "x,y,m\n";
  for (int i = 0; i <= WS_HEATMAP_MAX_SIDE; i++) snprintf(text + strlen(text), 32, "%d,1,%d\n", i, i);
  parse(text);
  ws_charts_opts o = opts(WS_CHARTS_HEATMAP);
  o.x = "x", o.y = "y", o.metric = "m";
  cr_expect_eq(build(&o), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv: 257 distinct values of x and 1 of y: a heatmap shows at most 256 per axis");
  cr_expect(tally.counted, "the rows were counted before the cells");
}

/* ---- roofline ---------------------------------------------------------------------------------- */

static const char points[] = "gpu,variant,bm,arith_intensity,gflops\n"
                             "classroom,naive,32,0.5,20\n"
                             "classroom,tiled,64,4,150\n"
                             "classroom,tiled,,0,10\n";

Test(sweepcharts, roofline_roofs_are_the_presets_peaks) {
  parse(points);
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  o.label = "variant,bm";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_roofline *r = &chart.as.roofline;
  /* DRAM 2 channels x 38875 MB/s; L2 2 slices x 64 B x 1 GHz; L1/shared
   * 128 B x 1 GHz x 2 SMs; FP32 2 SMs x 4 x 16 lanes x 2 x 1 GHz; tensor
   * 2 SMs x 2048 FLOP x 1 GHz */
  cr_assert_eq(r->nbandwidth, 3);
  cr_assert_eq(r->ncompute, 2);
  const char *bw_names[] = {"DRAM", "L2", "L1/shared"}, *fl_names[] = {"FP32", "FP16 tensor"};
  double bw[] = {77.75, 128, 256}, fl[] = {256, 4096};
  for (size_t i = 0; i < 3; i++) {
    cr_expect_str_eq(r->bandwidth[i].name, bw_names[i]);
    cr_expect_float_eq(r->bandwidth[i].value, bw[i], 1e-9, "%s: %g GB/s", bw_names[i], r->bandwidth[i].value);
  }
  for (size_t i = 0; i < 2; i++) {
    cr_expect_str_eq(r->compute[i].name, fl_names[i]);
    cr_expect_float_eq(r->compute[i].value, fl[i], 1e-9, "%s: %g GFLOP/s", fl_names[i], r->compute[i].value);
  }
  cr_assert_eq(r->n, 2, "the point at intensity 0 has no place on a log axis");
  cr_expect(r->intensity[0] == 0.5 && r->gflops[0] == 20 && r->intensity[1] == 4 && r->gflops[1] == 150);
  cr_expect_str_eq(r->labels[0], "naive bm=32");
  cr_expect_str_eq(r->labels[1], "tiled bm=64");
  cr_expect_str_eq(r->title, "Roofline of classroom");
  cr_expect_eq(tally.blank, 0, "no field is empty");
  cr_expect_eq(tally.unplottable, 1, "intensity 0 cannot be drawn on a log axis");
}

/* A number alone does not say whose it is: the first label column is
 * named like the others, a variant alone wherever it stands. */
Test(sweepcharts, every_numeric_label_column_is_named) {
  parse(points);
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  o.label = "bm,variant";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_str_eq(chart.as.roofline.labels[0], "bm=32 naive");
  cr_expect_str_eq(chart.as.roofline.labels[1], "bm=64 tiled");
  ws_charts_free(&chart);
  parse("bm,bn,tm,tn,stall_wait\n64,64,8,4,100\n");
  o = opts(WS_CHARTS_STALLS);
  o.label = "bm,bn,tm,tn";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_str_eq(chart.as.stalls.bar_labels[0], "bm=64 bn=64 tm=8 tn=4");
}

Test(sweepcharts, roofline_of_several_gpus_needs_one_picked) {
  parse("gpu,arith_intensity,gflops\na100,1,2\nh100,1,3\n");
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  cr_expect_eq(build(&o), WS_ERR_USAGE);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv holds rows of several gpus (a100, h100, ...): --gpu NAME picks one");
  o.gpu = "h100";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(tally.other_gpu, 1);
  cr_expect_eq(chart.as.roofline.n, 1);
  cr_expect_null(chart.as.roofline.labels, "no labels unless asked for");
}

Test(sweepcharts, roofline_of_an_unknown_preset_says_which) {
  parse("gpu,arith_intensity,gflops\nzz,1,2\n");
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  cr_expect_eq(build(&o), WS_ERR_INVALID);
  const char *want = "t.csv: gpu 'zz': unknown GPU preset 'zz' (presets: ";
  cr_expect_eq(strncmp(ws_errmsg(ctx), want, strlen(want)), 0, "%s", ws_errmsg(ctx));
}

Test(sweepcharts, a_label_column_the_table_lacks_is_a_usage_error) {
  parse(points);
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  o.label = "variant,nope";
  cr_expect_eq(build(&o), WS_ERR_USAGE);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv has no column 'nope'; its columns: gpu, variant, bm, arith_intensity, gflops");
}

/* ---- occupancy --------------------------------------------------------------------------------- */

Test(sweepcharts, occupancy_groups_in_the_order_met_on_a_percent_axis) {
  parse("variant,occupancy_pct,cycles\ntiled,50,900\nnaive,25,4000\ntiled,75,800\n,100,700\n");
  ws_charts_opts o = opts(WS_CHARTS_OCCUPANCY);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_scatter *s = &chart.as.occupancy;
  cr_assert_eq(s->n, 4);
  cr_assert_eq(s->ngroups, 3);
  cr_expect_str_eq(s->groups[0], "tiled");
  cr_expect_str_eq(s->groups[1], "naive");
  cr_expect_str_eq(s->groups[2], "(empty)");
  size_t want[] = {0, 1, 0, 2};
  for (size_t i = 0; i < 4; i++) cr_expect_eq(s->group[i], want[i], "point %zu", i);
  cr_expect(s->x_min == 0 && s->x_max == 100, "a percentage spans 0 to 100");
  cr_expect_str_eq(s->title, "cycles against occupancy_pct");
  cr_expect_str_eq(s->subtitle, "4 points, coloured by variant");
}

Test(sweepcharts, numeric_categories_are_listed_by_value) {
  parse("threads_per_cta,occupancy_pct,cycles\n256,50,900\n128,25,800\n64,25,700\n512,50,600\n1024,50,500\n"
        ",10,400\n128,30,300\n");
  ws_charts_opts o = opts(WS_CHARTS_OCCUPANCY);
  o.color_by = "threads_per_cta";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_scatter *s = &chart.as.occupancy;
  const char *want[] = {"64", "128", "256", "512", "1024", "(empty)"};
  cr_assert_eq(s->ngroups, 6);
  for (size_t k = 0; k < 6; k++) cr_expect_str_eq(s->groups[k], want[k], "legend entry %zu", k);
  size_t group[] = {2, 1, 0, 3, 4, 5, 1};
  for (size_t i = 0; i < 7; i++) cr_expect_eq(s->group[i], group[i], "point %zu", i);
}

Test(sweepcharts, occupancy_axis_widens_around_one_value) {
  parse("bm,cycles\n128,10\n128,20\n");
  ws_charts_opts o = opts(WS_CHARTS_OCCUPANCY);
  o.x = "bm";
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(chart.as.occupancy.x_min == 127 && chart.as.occupancy.x_max == 129);
  cr_expect_null(chart.as.occupancy.group, "no variant column: one colour");
  cr_expect_str_eq(chart.as.occupancy.subtitle, "2 points");
}

/* ---- stalls ------------------------------------------------------------------------------------ */

Test(sweepcharts, stall_bars_of_complete_rows_labelled_by_default_columns) {
  parse("variant,bm,stall_wait,stall_barrier,other\n"
        "tiled,64,30,70,x\n"
        "tiled,,40,,z\n" /* a missing share: left out */
        ",,10,5,y\n");   /* no label column filled: its line */
  ws_charts_opts o = opts(WS_CHARTS_STALLS);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_bars *b = &chart.as.stalls;
  cr_assert_eq(b->nparts, 2);
  cr_expect_str_eq(b->parts[0], "wait");
  cr_expect_str_eq(b->parts[1], "barrier");
  cr_assert_eq(b->nbars, 2);
  cr_expect(b->shares[0] == 30 && b->shares[1] == 70 && b->shares[2] == 10 && b->shares[3] == 5);
  cr_expect_str_eq(b->bar_labels[0], "tiled bm=64");
  cr_expect_str_eq(b->bar_labels[1], "line 4");
  cr_expect_eq(tally.blank, 1);
  cr_expect_str_eq(tally.blank_col, "stall_barrier");
  cr_expect_str_eq(b->subtitle, "2 points; percent of stalled warp-cycles per reason");
}

/* Issuing is not a stall: it goes first, set apart, whatever its place in
 * the file. */
Test(sweepcharts, selected_is_set_apart_from_the_stalls) {
  parse("variant,stall_wait,stall_selected,stall_barrier\ntiled,30,50,20\n");
  ws_charts_opts o = opts(WS_CHARTS_STALLS);
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  const ws_bars *b = &chart.as.stalls;
  cr_assert_eq(b->nparts, 3);
  cr_expect(b->first_apart);
  cr_expect_str_eq(b->parts[0], "selected (issuing)");
  cr_expect_str_eq(b->parts[1], "wait");
  cr_expect_str_eq(b->parts[2], "barrier");
  cr_expect(b->shares[0] == 50 && b->shares[1] == 30 && b->shares[2] == 20);
  cr_expect_str_eq(
      b->subtitle,
      "1 points; percent of warp-cycles per state; selected (grey, hatched) is issuing, not a stall");
  ws_charts_free(&chart);
  parse("variant,stall_wait\ntiled,100\n");
  cr_assert_eq(build(&o), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(!chart.as.stalls.first_apart, "no selected column: nothing set apart");
}

Test(sweepcharts, stalls_without_stall_columns_is_a_usage_error) {
  parse("variant,bm\ntiled,64\n");
  ws_charts_opts o = opts(WS_CHARTS_STALLS);
  cr_expect_eq(build(&o), WS_ERR_USAGE);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv has no stall_* columns for --kind stalls; its columns: variant, bm");
}

/* ---- drawing ------------------------------------------------------------------------------------ */

Test(sweepcharts, draw_writes_the_chart_or_nothing) {
  char dir[] = "/tmp/ws_charts_XXXXXX", path[64];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/h.png", dir);
  parse(sweep);
  ws_charts_opts o = heat("gflops", WS_CHARTS_REDUCE_AUTO);
  cr_assert_eq(ws_charts_draw(ctx, &o, table, path, &tally), WS_OK, "%s", ws_errmsg(ctx));
  struct stat sb;
  cr_expect_eq(stat(path, &sb), 0);
  cr_expect_gt(sb.st_size, 0);
  remove(path);
  o.metric = "nope";
  cr_expect_eq(ws_charts_draw(ctx, &o, table, path, &tally), WS_ERR_USAGE);
  cr_expect_neq(stat(path, &sb), 0, "a refused chart writes nothing");
  cr_expect_eq(rmdir(dir), 0);
}

/* More rows than a sweep can have: refused before a point is built. */
Test(sweepcharts, a_table_over_the_row_cap_is_refused) {
  size_t rows = WS_CHARTS_MAX_ROWS + 1, len = 0;
  char *text = malloc(32 + rows * 4);
  cr_assert_not_null(text);
  len += (size_t)sprintf(text, "arith_intensity,gflops\n");
  for (size_t i = 0; i < rows; i++) len += (size_t)sprintf(text + len, "1,2\n");
  parse(text);
  free(text);
  ws_charts_opts o = opts(WS_CHARTS_ROOFLINE);
  cr_expect_eq(build(&o), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "t.csv: 100001 rows, over the 100000 a chart is drawn from (a sweep's largest space)");
}
