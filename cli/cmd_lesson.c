/* cmd_lesson.c - `warpscope lesson`: the classroom lessons, each one
 * command that explains a concept, runs it on the simulated GPU, prints the
 * numbers that matter beside what first principles predict, and says what
 * to look at in the window.
 *
 * Design: the lessons and their arithmetic live in lessons/; this file
 * parses the flags, prints, records a trace when a picture or the window is
 * asked for, and hands that trace to `warpscope viz` as a user would. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "models/lessons/lesson.h"

static const char lesson_help[] =
    "usage: warpscope lesson list\n"
    "       warpscope lesson NAME [--viz] [--screenshot DIR] [--trace FILE.wst]\n\n"
    "Guided lessons for a class: each explains one concept of the seed documents, runs\n"
    "it on the simulated GPU, prints the numbers that matter beside the values first\n"
    "principles predict, and says what to look at in the visualizer. 'list' names them.\n\n"
    "  --viz             afterwards, open the lesson's launches in the visualizer's\n"
    "                    window (docs/viz.md), at the launch the lesson points to\n"
    "  --screenshot DIR  write DIR/NAME.png (DIR made if missing): that launch drawn\n"
    "                    headless, at the cycle the lesson points to\n"
    "  --trace FILE.wst  keep the trace of the lesson's launches (docs/traces.md)\n"
    "  -h, --help        this text\n"
    "Exit status: 0 when every number agrees with its prediction, 1 when one does not\n"
    "or the run fails, 2 on a usage error, 130 when interrupted (Ctrl-C).\n";

typedef struct lesson_opts {
  const ws_lesson *lesson;
  bool viz;
  const char *shot_dir, *trace;
  char tmp_trace[64]; /* the trace --viz or --screenshot records when --trace names none */
} lesson_opts;

static int list_lessons(void) {
  printf("%-16s %-18s %-10s %s\n", "NAME", "SEED", "GPU", "LESSON");
  for (const ws_lesson *const *l = ws_lesson_all(); *l; l++)
    printf("%-16s %-18s %-10s %s\n", (*l)->name, (*l)->seed, (*l)->gpu, (*l)->title);
  printf("\n'warpscope lesson NAME' runs one; docs/lessons/ has each with its pictures.\n");
  return WS_EXIT_OK;
}

static int unknown(const char *name) {
  char names[512] = "";
  for (const ws_lesson *const *l = ws_lesson_all(); *l; l++) {
    if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, (*l)->name, sizeof names - strlen(names) - 1);
  }
  return ws_cli_usage_error("lesson", "no lesson '%s' (expected list or one of: %s)", name, names);
}

static const struct option longs[] = {{"viz", no_argument, NULL, 'V'},
                                      {"screenshot", required_argument, NULL, 's'},
                                      {"trace", required_argument, NULL, 't'},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

/* --screenshot names a folder (an existing file is refused, it would fail
 * only after the lesson ran), and neither name may be empty or the other. */
static int check_paths(const lesson_opts *o) {
  struct stat sb;
  if (o->shot_dir && *o->shot_dir && stat(o->shot_dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
    return ws_cli_usage_error(
        "lesson", "--screenshot '%s' is a file; it names the folder the picture goes in", o->shot_dir);
  const ws_outputs_file files[] = {{"--screenshot", o->shot_dir, true}, {"--trace", o->trace, true}};
  return ws_cli_check_files("lesson", files, 2);
}

static int parse(int argc, char **argv, lesson_opts *o) {
  opterr = 0;
  int c;
  ws_cli_seen seen = {{0}};
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    int rc = ws_cli_once("lesson", &seen, longs, c, "");
    if (rc != WS_EXIT_OK) return rc;
    if (c == 'h') {
      fputs(lesson_help, stdout);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("lesson", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("lesson", "unknown option '%s'", argv[optind - 1]);
    if (c == 'V') o->viz = true;
    if (c == 's') o->shot_dir = optarg;
    if (c == 't') o->trace = optarg;
  }
  if (optind >= argc) return ws_cli_usage_error("lesson", "expected 'list' or a lesson's name");
  if (optind + 1 < argc) return ws_cli_usage_error("lesson", "unexpected argument '%s'", argv[optind + 1]);
  if (strcmp(argv[optind], "list") == 0)
    return (o->viz || o->shot_dir || o->trace) ? ws_cli_usage_error("lesson", "'list' takes no options") : -2;
  o->lesson = ws_lesson_find(argv[optind]);
  if (!o->lesson) return unknown(argv[optind]);
  return check_paths(o);
}

/* ---- printing ------------------------------------------------------------------------ */

static void print_text(const char *text) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    printf("%s%.*s\n", n ? "  " : "", (int)n, p);
    p += n + (nl != NULL);
  }
}

static void format_value(char *buf, size_t n, double v) {
  if (fabs(v) < 1e15 && v == floor(v))
    snprintf(buf, n, "%lld", (long long)v);
  else
    snprintf(buf, n, "%.3f", v);
}

/* The figures; returns how many disagree with their prediction. */
static size_t print_figures(const ws_lesson_result *r) {
  size_t bad = 0;
  printf("%-46s %12s %12s  %s\n", "  what", "simulated", "predicted", "why");
  for (size_t i = 0; i < r->nfigs; i++) {
    const ws_lesson_figure *f = &r->figs[i];
    char v[32], e[32] = "-";
    format_value(v, sizeof v, f->value);
    if (f->has_expected) format_value(e, sizeof e, f->expected);
    bool ok = ws_lesson_figure_agrees(f, 1e-9);
    bad += !ok;
    printf("  %-44s %12s %12s  %s%s\n", f->label, v, e, f->why, ok ? "" : "  <- DISAGREES");
  }
  return bad;
}

/* ---- the run ------------------------------------------------------------------------- */

static ws_status make_device(ws_ctx *ctx, const ws_lesson *l, ws_device **dev) {
  ws_gpu_cfg cfg;
  ws_status st = ws_config_load_preset(ctx, l->gpu, &cfg);
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, dev);
  if (st == WS_OK) ws_device_set_mode(*dev, WS_MODE_TIMING);
  return st;
}

static ws_status trace_path(ws_ctx *ctx, lesson_opts *o, ws_cli_traceopt *topt) {
  memset(topt, 0, sizeof *topt);
  topt->path = o->trace;
  if (o->trace || (!o->viz && !o->shot_dir)) return WS_OK;
  snprintf(o->tmp_trace, sizeof o->tmp_trace, "/tmp/warpscope-lesson-XXXXXX");
  int fd = mkstemp(o->tmp_trace);
  if (fd < 0) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create a temporary trace: %s", strerror(errno));
  close(fd);
  topt->path = o->tmp_trace;
  topt->quiet = true;
  return WS_OK;
}

/* The launch the lesson points to, drawn by `warpscope viz`: a picture, or
 * the window. */
static int show(const lesson_opts *o, const char *trace, bool window) {
  const ws_lesson *l = o->lesson;
  char launch[16], cycle[24], out[4096];
  snprintf(launch, sizeof launch, "%u", l->look_launch);
  snprintf(cycle, sizeof cycle, "%llu", (unsigned long long)l->look_cycle);
  snprintf(out, sizeof out, "%s/%s.png", o->shot_dir ? o->shot_dir : ".", l->name);
  char *argv[12] = {"viz",        (char *)trace, "--launch", launch,
                    "--at-cycle", cycle,         "--zoom",   (char *)l->look_zoom};
  int argc = 8;
  if (l->look_launch == WS_LESSON_NO_PICTURE) { /* the window from the first launch: the run's row tells */
    snprintf(launch, sizeof launch, "0");
    argc = 4;
  }
  if (l->follows) { /* pixel mode: the window at the first hop, the picture at hop look_cycle */
    argv[2] = "--walk", argv[3] = "--hop", argv[4] = window ? "1" : cycle;
    argc = 5;
  }
  if (!window) argv[argc++] = "--screenshot", argv[argc++] = out;
  optind = 1;
  return ws_cli_viz(argc, argv);
}

static int after(const lesson_opts *o, const ws_cli_traceopt *topt) {
  int rc = WS_EXIT_OK;
  bool picture = o->lesson->look_launch != WS_LESSON_NO_PICTURE;
  if (o->shot_dir && !picture)
    printf("(no picture: this lesson's story is its timeline, which the window's run row shows)\n");
  if (o->shot_dir && picture) {
    fflush(stdout);
    rc = show(o, topt->path, false);
  }
  if (rc == WS_EXIT_OK && o->viz && (picture || o->lesson->uses_runtime)) {
    fflush(stdout);
    rc = show(o, topt->path, true);
  }
  return rc;
}

/* --screenshot DIR is made (one level, as `viz --frames` does) before the
 * lesson runs, so a bad directory fails at once, not after the run. */
static ws_status shot_dir(ws_ctx *ctx, const lesson_opts *o) {
  if (!o->shot_dir || mkdir(o->shot_dir, 0777) == 0 || errno == EEXIST) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create '%s': %s", o->shot_dir, strerror(errno));
}

static int teach(ws_ctx *ctx, lesson_opts *o) {
  const ws_lesson *l = o->lesson;
  ws_device *dev = NULL;
  ws_runtime *rt = NULL;
  ws_cli_traceopt topt;
  ws_cli_trace trace;
  memset(&trace, 0, sizeof trace);
  ws_lesson_result res;
  memset(&res, 0, sizeof res);
  ws_status st = shot_dir(ctx, o);
  if (st == WS_OK) st = trace_path(ctx, o, &topt);
  if (st == WS_OK) st = make_device(ctx, l, &dev);
  if (st == WS_OK) st = ws_cli_trace_start(ctx, &topt, dev, l->follows && topt.path, &trace);
  if (st == WS_OK && l->uses_runtime) st = ws_runtime_create(dev, &rt);
  if (st == WS_OK) {
    printf("Lesson '%s' (%s, on %s): %s\n\n", l->name, l->seed, l->gpu, l->title);
    print_text(l->intro);
    putchar('\n');
    fflush(stdout);
    ws_lesson_ctx lc = {dev, ctx, rt};
    st = l->run(&lc, &res);
  }
  if (st == WS_OK) st = ws_cli_trace_finish(ctx, &topt, &trace, rt);
  ws_cli_trace_free(&trace);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_error("%s", ws_errmsg(ctx));
  if (rc == WS_EXIT_OK) {
    size_t bad = print_figures(&res);
    printf("\nWhat to look at (warpscope lesson %s --viz):\n", l->name);
    print_text(l->look);
    printf("\n%zu of %zu numbers agree with their prediction -> %s\n", res.nfigs - bad, res.nfigs,
           bad ? "FAIL" : "PASS");
    rc = bad ? WS_EXIT_FAIL : after(o, &topt);
  }
  if (o->tmp_trace[0]) remove(o->tmp_trace);
  return rc;
}

int ws_cli_lesson(int argc, char **argv) {
  lesson_opts o;
  memset(&o, 0, sizeof o);
  int rc = parse(argc, argv, &o);
  if (rc == -1) return WS_EXIT_OK;
  if (rc == -2) return list_lessons();
  if (rc != WS_EXIT_OK) return rc;
  ws_ctx *ctx = ws_ctx_create();
  rc = ctx ? teach(ctx, &o) : ws_cli_error("out of memory");
  ws_ctx_destroy(ctx);
  return rc;
}
