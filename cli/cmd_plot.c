/* cmd_plot.c - `warpscope plot SWEEP.csv --kind ...`: the explorer's
 * charts drawn from a sweep's CSV: a heatmap over two swept parameters, a
 * roofline of the preset, occupancy against cycles, stall reasons per point.
 *
 * Design: the CSV is read by column name (plot/table.h), so any CSV with a
 * header serves and a sweep may add columns; only valid rows that passed
 * their check are drawn unless --all. The roofs come from the preset's
 * peaks (ws_config_peaks, what `warpscope gpus show` prints), never from
 * numbers of this file. The charts library (charts/sweepcharts.h) picks
 * the rows and builds and writes the chart; this file parses the flags,
 * prints the rows left out and maps the library's status to the exit code
 * (WS_ERR_USAGE: 2). Nothing is written on failure. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/sweepcharts.h"
#include "cli/cli.h"
#include "plot/chart.h"

static const char plot_help[] =
    "usage: warpscope plot SWEEP.csv --kind heatmap|roofline|occupancy|stalls -o OUT.png|.svg\n"
    "       [--x COL] [--y COL] [--metric COL] [--reduce min|max] [--color-by COL]\n"
    "       [--label COL[,COL...]] [--gpu NAME] [--all] [--size WxH] [--title T]\n\n"
    "Draws a chart of a sweep's CSV (docs/explore.md), reading columns by name:\n"
    "  heatmap     a grid over the distinct values of --x and --y (both needed), each\n"
    "              cell coloured by --metric (needed); where several rows share a cell\n"
    "              the best is drawn: the max, or the min for cycles, times, bytes,\n"
    "              errors, conflicts and refusals (--reduce picks)\n"
    "  roofline    the preset's bandwidth roofs (DRAM, L2, L1/shared) and compute roofs\n"
    "              (FP32, FP16 tensor), each row at --x (default arith_intensity),\n"
    "              --metric (default gflops); the preset is the gpu column's (--gpu\n"
    "              picks one when the file holds several)\n"
    "  occupancy   --x (default occupancy_pct) against --y (default cycles, log when\n"
    "              it spans over 100x), coloured by --color-by (default variant)\n"
    "  stalls      a stacked bar per row of its stall_* columns (percent of stalled\n"
    "              warp-cycles per reason)\n\n"
    "  -o FILE.png|.svg    the chart (written whole, or not at all)\n"
    "  --label COLS        label points (roofline) or bars (stalls) by these columns\n"
    "                      (stalls default: variant,bm,bn where present)\n"
    "  --gpu NAME          only the rows of this gpu (and its preset's roofs)\n"
    "  --all               also rows that are not valid or failed their check\n"
    "  --size WxH          the chart's size (default 900x600)\n"
    "  --title T           the chart's title\n"
    "  -h, --help          this text\n"
    "Rows left out are counted on stderr. Exit status: 0 on success, 2 on a usage\n"
    "error (a kind, flag or column that does not exist), 1 when the CSV is bad\n"
    "(FILE:LINE:COLUMN), holds no row to plot, or the chart cannot be written, 130\n"
    "when interrupted (Ctrl-C: nothing is written).\n";

enum {
  OPT_KIND = 0x300,
  OPT_X,
  OPT_Y,
  OPT_METRIC,
  OPT_REDUCE,
  OPT_COLOR,
  OPT_LABEL,
  OPT_GPU,
  OPT_ALL,
  OPT_SIZE,
  OPT_TITLE
};

static const struct option longs[] = {{"kind", required_argument, NULL, OPT_KIND},
                                      {"x", required_argument, NULL, OPT_X},
                                      {"y", required_argument, NULL, OPT_Y},
                                      {"metric", required_argument, NULL, OPT_METRIC},
                                      {"reduce", required_argument, NULL, OPT_REDUCE},
                                      {"color-by", required_argument, NULL, OPT_COLOR},
                                      {"label", required_argument, NULL, OPT_LABEL},
                                      {"gpu", required_argument, NULL, OPT_GPU},
                                      {"all", no_argument, NULL, OPT_ALL},
                                      {"size", required_argument, NULL, OPT_SIZE},
                                      {"title", required_argument, NULL, OPT_TITLE},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

/* The chart's options, and what only the flags know. */
typedef struct plot_opts {
  ws_charts_opts chart;
  const char *out;
  bool has_kind;
} plot_opts;

static const char *const kind_names[WS_CHARTS_KIND_COUNT] = {"heatmap", "roofline", "occupancy", "stalls"};

/* ---- flags -------------------------------------------------------------------------------------- */

static int parse_kind(const char *text, ws_charts_kind *out) {
  for (int k = 0; k < WS_CHARTS_KIND_COUNT; k++)
    if (strcmp(text, kind_names[k]) == 0) {
      *out = (ws_charts_kind)k;
      return WS_EXIT_OK;
    }
  return ws_cli_usage_error("plot", "--kind expects heatmap, roofline, occupancy or stalls, found '%s'",
                            text);
}

static int take(plot_opts *po, int c, const char *arg) {
  ws_charts_opts *o = &po->chart;
  switch (c) {
  case OPT_KIND: po->has_kind = true; return parse_kind(arg, &o->kind);
  case OPT_X: o->x = arg; return WS_EXIT_OK;
  case OPT_Y: o->y = arg; return WS_EXIT_OK;
  case OPT_METRIC: o->metric = arg; return WS_EXIT_OK;
  case OPT_REDUCE:
    if (strcmp(arg, "min") != 0 && strcmp(arg, "max") != 0)
      return ws_cli_usage_error("plot", "--reduce expects min or max, found '%s'", arg);
    o->reduce = arg[1] == 'i' ? WS_CHARTS_REDUCE_MIN : WS_CHARTS_REDUCE_MAX;
    return WS_EXIT_OK;
  case OPT_COLOR: o->color_by = arg; return WS_EXIT_OK;
  case OPT_LABEL: o->label = arg; return WS_EXIT_OK;
  case OPT_GPU: o->gpu = arg; return WS_EXIT_OK;
  case OPT_ALL: o->all = true; return WS_EXIT_OK;
  case OPT_SIZE: return ws_cli_chart_size("plot", arg, &o->width, &o->height);
  case OPT_TITLE: o->title = arg; return WS_EXIT_OK;
  case 'o': po->out = arg; return WS_EXIT_OK;
  default: return ws_cli_usage_error("plot", "unknown option");
  }
}

/* What each kind needs, once every flag is in. */
static int check_flags(const plot_opts *po) {
  const ws_charts_opts *o = &po->chart;
  if (!o->source) return ws_cli_usage_error("plot", "a SWEEP.csv file is needed");
  if (!po->has_kind) return ws_cli_usage_error("plot", "--kind heatmap|roofline|occupancy|stalls is needed");
  if (!po->out) return ws_cli_usage_error("plot", "-o OUT.png|.svg is needed");
  ws_chart_format f;
  ws_ctx *ctx = ws_ctx_create();
  ws_status st = ws_chart_format_of(ctx, po->out, &f);
  int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error("plot", "-o: %s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  const ws_outputs_file files[] = {{"the table", o->source, false}, {"-o", po->out, true}};
  if (rc == WS_EXIT_OK) rc = ws_cli_check_files("plot", files, 2);
  if (rc != WS_EXIT_OK) return rc;
  if (o->kind == WS_CHARTS_HEATMAP && (!o->x || !o->y || !o->metric))
    return ws_cli_usage_error("plot", "--kind heatmap needs --x COL, --y COL and --metric COL");
  if (o->reduce != WS_CHARTS_REDUCE_AUTO && o->kind != WS_CHARTS_HEATMAP)
    return ws_cli_usage_error("plot", "--reduce goes with --kind heatmap");
  if (o->color_by && o->kind != WS_CHARTS_OCCUPANCY)
    return ws_cli_usage_error("plot", "--color-by goes with --kind occupancy");
  if (o->label && o->kind != WS_CHARTS_ROOFLINE && o->kind != WS_CHARTS_STALLS)
    return ws_cli_usage_error("plot", "--label goes with --kind roofline or stalls");
  return WS_EXIT_OK;
}

static int parse_flags(int argc, char **argv, plot_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("plot", &seen, longs, c, "")) != WS_EXIT_OK) break;
    if (c == 'h') {
      fputs(plot_help, stdout);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("plot", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc != WS_EXIT_OK) return rc;
  if (optind < argc) o->chart.source = argv[optind++];
  if (optind < argc) return ws_cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
  return check_flags(o);
}

/* ---- the chart ---------------------------------------------------------------------------------- */

/* How many rows were left out and why, once the library counted them. */
static void print_tally(const ws_charts_tally *ty, const char *gpu) {
  size_t out = ty->total - ty->drawn;
  if (!ty->counted || !out) return;
  fprintf(stderr, "warpscope plot: %zu of %zu rows left out:", out, ty->total);
  const char *sep = " ";
  if (ty->invalid)
    fprintf(stderr, "%s%zu not valid or failing their check (--all draws them)", sep, ty->invalid),
        sep = "; ";
  if (ty->other_gpu) fprintf(stderr, "%s%zu of another gpu than %s", sep, ty->other_gpu, gpu), sep = "; ";
  if (ty->blank)
    fprintf(stderr, "%s%zu with an empty field (%s, ...)", sep, ty->blank,
            ty->blank_col ? ty->blank_col : "a value"),
        sep = "; ";
  if (ty->unplottable)
    fprintf(stderr, "%s%zu with a value the chart cannot draw (0 or less on a log axis, a negative share)",
            sep, ty->unplottable);
  fprintf(stderr, "\n");
}

int ws_cli_plot(int argc, char **argv) {
  plot_opts o = {.chart = {.width = 900, .height = 600}};
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  ws_ctx *ctx = ws_ctx_create();
  ws_table *t = NULL;
  ws_charts_tally tally = {0};
  ws_cli_catch_interrupts(); /* a chart of many points takes a while: Ctrl-C writes nothing, exit 130 */
  ws_status st = ws_table_read(ctx, o.chart.source, &t);
  if (st == WS_OK) {
    ws_charts_chart chart;
    memset(&chart, 0, sizeof chart);
    st = ws_charts_build(ctx, &o.chart, t, &tally, &chart);
    if (st == WS_OK && ws_cli_interrupted()) st = ws_ctx_fail(ctx, WS_ERR_INTERRUPTED, "interrupted");
    if (st == WS_OK) st = ws_charts_write(ctx, o.out, &chart);
    print_tally(&tally, o.chart.gpu);
    ws_charts_free(&chart);
  }
  rc = ws_cli_exit_code("plot", ctx, st);
  if (rc == WS_EXIT_OK) fprintf(stderr, "warpscope: wrote %s\n", o.out);
  ws_table_destroy(t);
  ws_ctx_destroy(ctx);
  return rc;
}
