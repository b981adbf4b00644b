/* cmd_viz.c - `warpscope viz FILE.wst`: the GPU of a trace played back in
 * a window (viz/app.h), or drawn at a cycle headless (--screenshot,
 * --frames) into PNG files.
 *
 * Design: the command reads the trace only (traces/wst.h) and hands it to
 * the visualizer's replay model, layout and renderer (viz/); nothing here
 * knows the simulator. Every flag is checked before a file is written;
 * the ones that depend on the trace (a kernel it lacks, a cycle past a
 * launch's end) are checked once it is open, still before any picture. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "viz/app.h"
#include "viz/layout.h"
#include "viz/ledger.h"
#include "viz/model.h"
#include "viz/render.h"
#include "viz/shot.h"
#include "viz/walk.h"

static const char viz_help[] =
    "usage: warpscope viz FILE.wst [--launch N | --kernel NAME] [--at-cycle N] [--zoom gpu|sm:N|smem:N]\n"
    "                     [--size WxH]\n"
    "       warpscope viz FILE.wst --screenshot OUT.png [--at-cycle N] [--launch N | --kernel NAME]\n"
    "                     [--zoom gpu|sm:N|smem:N] [--size WxH]\n"
    "       warpscope viz FILE.wst --frames DIR --every N [--launch N | --kernel NAME] [--zoom ...]\n"
    "                     [--size WxH]\n"
    "       warpscope viz FILE.wst --walk [--hop N] [--screenshot OUT.png | --frames DIR] [--size WxH]\n\n"
    "Draws the GPU of a trace recorded with --trace (docs/traces.md) as it was at a cycle of a\n"
    "launch: every SM's warp slots coloured by state, shared-memory and register-file banks,\n"
    "tensor cores, L1 and L2 activity, HBM banks with their open rows, the requests moving on\n"
    "the crossbar, and the live counters. Rendered in software: the same trace and flags give\n"
    "the same PNG bytes.\n\n"
    "Without --screenshot or --frames it opens a window that plays the trace back: space plays\n"
    "and pauses, right arrow steps a cycle, n a warp instruction, k/K a kernel, +/- change the\n"
    "speed, z/x/g zoom, j/J walk a followed pixel's hops (pixel mode, w on/off), p saves a\n"
    "picture, ? lists every key, q quits (docs/viz.md). It needs a display; --screenshot draws\n"
    "without one.\n\n"
    "  --screenshot FILE   write the picture at --at-cycle to FILE (PNG, atomically)\n"
    "  --at-cycle N        the cycle within the launch (default 0): the picture's, or where the\n"
    "                      window starts\n"
    "  --frames DIR        write DIR/frame_000000.png, ... every N cycles of the launch\n"
    "  --every N           the cycles between two frames\n"
    "  --launch N          the launch (counted from 0, as `warpscope trace info` lists them;\n"
    "                      default: the first with records)\n"
    "  --kernel NAME       the first launch of kernel NAME\n"
    "  --zoom V            gpu (default), sm:N (one SM) or smem:N (its shared-memory banks)\n"
    "  --size WxH          the picture's or the window's size in pixels (default 1280x800)\n"
    "  --window N          the cycles the live counters (hit rates, bandwidth) look back over\n"
    "                      (default 256)\n"
    "  --walk              pixel mode, for a trace recorded with run --follow-pixel: the view\n"
    "                      follows the pixel hop by hop, with the journey ledger on the picture\n"
    "                      and its hop outlined; --frames DIR draws one frame per hop\n"
    "  --hop N             pixel mode at hop N (1.., as the run's ledger numbers them): the\n"
    "                      picture of --screenshot, or where the window starts\n"
    "  -h, --help          this text\n"
    "Exit status: 0 on success, 1 when the trace cannot be read, a file cannot be written or\n"
    "no window can be opened (no display), 2 on a usage error, 130 when interrupted\n"
    "(Ctrl-C).\n";

#define MAX_FRAMES 10000u
/* ...and at most this many pixels in all (10,000 frames of 1280x1280): an
 * 8192x8192 frame takes tens of seconds, so frames x size is what bounds the
 * time and the disk. */
#define MAX_FRAME_PIXELS (16ull << 30)

enum {
  OPT_SHOT = 0x400,
  OPT_AT,
  OPT_FRAMES,
  OPT_EVERY,
  OPT_LAUNCH,
  OPT_KERNEL,
  OPT_ZOOM,
  OPT_SIZE,
  OPT_WINDOW,
  OPT_WALK,
  OPT_HOP
};

typedef struct viz_opts {
  const char *path, *shot, *frames, *kernel, *zoom;
  bool has_at, has_launch, has_every, walk, has_hop;
  uint64_t at, every, window, hop;
  uint32_t launch;
  int32_t width, height;
} viz_opts;

static const struct option longs[] = {{"screenshot", required_argument, NULL, OPT_SHOT},
                                      {"at-cycle", required_argument, NULL, OPT_AT},
                                      {"frames", required_argument, NULL, OPT_FRAMES},
                                      {"every", required_argument, NULL, OPT_EVERY},
                                      {"launch", required_argument, NULL, OPT_LAUNCH},
                                      {"kernel", required_argument, NULL, OPT_KERNEL},
                                      {"zoom", required_argument, NULL, OPT_ZOOM},
                                      {"size", required_argument, NULL, OPT_SIZE},
                                      {"window", required_argument, NULL, OPT_WINDOW},
                                      {"walk", no_argument, NULL, OPT_WALK},
                                      {"hop", required_argument, NULL, OPT_HOP},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

static int parse_size(const char *arg, viz_opts *o) {
  uint64_t w, h;
  const char *x = strchr(arg, 'x');
  char first[16];
  if (x && (size_t)(x - arg) < sizeof first) {
    memcpy(first, arg, (size_t)(x - arg));
    first[x - arg] = '\0';
    if (ws_cli_parse_u64(first, WS_VIZ_CANVAS_MAX_SIDE, &w) &&
        ws_cli_parse_u64(x + 1, WS_VIZ_CANVAS_MAX_SIDE, &h) && w >= WS_VIZ_CANVAS_MIN_W &&
        h >= WS_VIZ_CANVAS_MIN_H) {
      o->width = (int32_t)w;
      o->height = (int32_t)h;
      return WS_EXIT_OK;
    }
  }
  return ws_cli_usage_error("viz", "--size expects WxH from %dx%d to %dx%d, found '%s'", WS_VIZ_CANVAS_MIN_W,
                            WS_VIZ_CANVAS_MIN_H, WS_VIZ_CANVAS_MAX_SIDE, WS_VIZ_CANVAS_MAX_SIDE, arg);
}

static int parse_u64_flag(const char *flag, const char *arg, uint64_t min, uint64_t max, uint64_t *out) {
  if (ws_cli_parse_u64(arg, max, out) && *out >= min) return WS_EXIT_OK;
  return ws_cli_usage_error("viz", "%s expects an integer from %" PRIu64 " to %" PRIu64 ", found '%s'", flag,
                            min, max, arg);
}

static int take(viz_opts *o, int c, const char *arg) {
  uint64_t v;
  int rc = WS_EXIT_OK;
  switch (c) {
  case OPT_SHOT: o->shot = arg; break;
  case OPT_FRAMES: o->frames = arg; break;
  case OPT_KERNEL: o->kernel = arg; break;
  case OPT_ZOOM: o->zoom = arg; break;
  case OPT_SIZE: return parse_size(arg, o);
  case OPT_AT: o->has_at = true; return parse_u64_flag("--at-cycle", arg, 0, UINT64_MAX, &o->at);
  case OPT_EVERY: o->has_every = true; return parse_u64_flag("--every", arg, 1, UINT64_MAX, &o->every);
  case OPT_WINDOW: return parse_u64_flag("--window", arg, 1, UINT32_MAX, &o->window);
  case OPT_WALK: o->walk = true; break;
  case OPT_HOP: o->walk = o->has_hop = true; return parse_u64_flag("--hop", arg, 1, UINT32_MAX, &o->hop);
  case OPT_LAUNCH:
    o->has_launch = true;
    rc = parse_u64_flag("--launch", arg, 0, UINT32_MAX - 1, &v);
    o->launch = (uint32_t)v;
    break;
  default: return ws_cli_usage_error("viz", "unknown option");
  }
  return rc;
}

/* Pixel mode picks each picture's launch, cycle and view from the hop. */
static int check_walk(const viz_opts *o) {
  if (o->has_at || o->has_launch || o->kernel || o->zoom)
    return ws_cli_usage_error("viz",
                              "--walk and --hop pick the launch, cycle and view of each hop: leave out "
                              "--at-cycle, --launch, --kernel and --zoom");
  if (o->has_every)
    return ws_cli_usage_error("viz", "--frames with --walk draws one frame per hop: leave out --every");
  if (o->frames && o->has_hop)
    return ws_cli_usage_error("viz", "--hop goes with --screenshot or the window, not --frames");
  return WS_EXIT_OK;
}

/* The combinations that cannot work, before the trace is opened. */
static int check(const viz_opts *o) {
  if (o->walk) {
    int rc = check_walk(o);
    if (rc != WS_EXIT_OK) return rc;
  }
  if (o->shot && o->frames) return ws_cli_usage_error("viz", "--screenshot and --frames exclude each other");
  if (o->frames && !o->has_every && !o->walk) return ws_cli_usage_error("viz", "--frames needs --every N");
  if (!o->frames && o->has_every) return ws_cli_usage_error("viz", "--every goes with --frames");
  if (o->frames && o->has_at)
    return ws_cli_usage_error("viz", "--at-cycle goes with --screenshot or the window, not --frames");
  if (o->kernel && o->has_launch)
    return ws_cli_usage_error("viz", "--launch and --kernel exclude each other");
  if ((o->shot && !*o->shot) || (o->frames && !*o->frames))
    return ws_cli_usage_error("viz", "--screenshot and --frames need a name");
  return WS_EXIT_OK;
}

static int parse_flags(int argc, char **argv, viz_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("viz", &seen, longs, c, "")) != WS_EXIT_OK) break;
    if (c == 'h') {
      fputs(viz_help, stdout);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("viz", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("viz", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc != WS_EXIT_OK) return rc;
  if (optind != argc - 1) return ws_cli_usage_error("viz", "expected one trace file (FILE.wst)");
  o->path = argv[optind];
  int rc2 = check(o);
  if (rc2 != WS_EXIT_OK) return rc2;
  const ws_outputs_file files[] = {{"the trace", o->path, false}, {"--screenshot", o->shot, true}};
  return ws_cli_check_files("viz", files, 2);
}

/* ---- what to draw, checked against the trace ------------------------------------------ */

typedef struct viz_state {
  ws_ctx *ctx;
  ws_wst_reader *reader;
  ws_viz_model *model;
  ws_viz_layout *layout;
  ws_viz_render_opts ropts;
  bool usage; /* the failure is the command line's */
  /* pixel mode */
  ws_viz_walk *walk;
  ws_viz_render *render; /* the current view's, rebuilt when a hop changes it */
  ws_viz_ledger *ledger;
  bool loaded; /* the model holds launch `launch` */
  uint32_t launch;
} viz_state;

/* The trace says a flag asks for what it lacks: a usage error. */
static ws_status refuse(viz_state *s) {
  s->usage = true;
  return WS_ERR_INVALID;
}

static ws_status pick_launch(viz_state *s, const viz_opts *o, uint32_t *launch) {
  size_t n = ws_wst_launch_count(s->reader);
  for (size_t i = 0; i < n && !o->has_launch; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(s->reader, i);
    const ws_wst_kernel_info *k = l->kernel == WS_WST_NO_KERNEL ? NULL : ws_wst_kernel(s->reader, l->kernel);
    bool match = o->kernel ? k && strcmp(k->name, o->kernel) == 0 : l->events > 0;
    if (match) {
      *launch = (uint32_t)i;
      return WS_OK;
    }
  }
  if (o->has_launch && o->launch < n) {
    *launch = o->launch;
    return WS_OK;
  }
  if (o->has_launch)
    return ws_ctx_fail(s->ctx, refuse(s), "--launch %u: the trace holds %zu launches", o->launch, n);
  if (o->kernel)
    return ws_ctx_fail(s->ctx, refuse(s), "--kernel %s: the trace holds no launch of it", o->kernel);
  return ws_ctx_fail(s->ctx, WS_ERR_INVALID, "%s: the trace holds no launch with records", o->path);
}

static const char *kernel_name(const viz_state *s, uint32_t launch) {
  const ws_wst_launch_info *l = ws_wst_launch(s->reader, launch);
  const ws_wst_kernel_info *k = l->kernel == WS_WST_NO_KERNEL ? NULL : ws_wst_kernel(s->reader, l->kernel);
  return k ? k->name : "?";
}

static ws_status open_all(viz_state *s, const viz_opts *o, uint32_t *launch) {
  ws_status st = ws_wst_open(s->ctx, o->path, &s->reader);
  if (st == WS_OK && ws_wst_warning(s->reader)) fprintf(stderr, "warpscope: %s\n", ws_wst_warning(s->reader));
  if (st == WS_OK) st = ws_viz_model_create(s->ctx, s->reader, &s->model);
  if (st == WS_OK) st = pick_launch(s, o, launch);
  const ws_gpu_cfg *cfg = st == WS_OK ? ws_viz_model_cfg(s->model) : NULL;
  ws_viz_view view = {WS_VIZ_ZOOM_GPU, 0};
  if (st == WS_OK && o->zoom && (st = ws_viz_view_parse(s->ctx, cfg, o->zoom, &view)) != WS_OK)
    s->usage = true;
  if (st == WS_OK) st = ws_viz_layout_create(s->ctx, cfg, o->width, o->height, view, &s->layout);
  if (st == WS_OK) st = ws_viz_model_load(s->model, *launch);
  s->ropts.stall_names = st == WS_OK ? ws_wst_names(s->reader, &s->ropts.nstall_names) : NULL;
  return st;
}

static ws_status shot_at(viz_state *s, const viz_opts *o, uint32_t launch, uint64_t cycle, const char *path) {
  const ws_viz_frame *f = NULL;
  ws_status st = ws_viz_model_frame(s->model, cycle, (uint32_t)o->window, &f);
  return st == WS_OK ? ws_viz_shot_png(s->ctx, path, s->layout, f, &s->ropts, kernel_name(s, launch)) : st;
}

static ws_status frames(viz_state *s, const viz_opts *o, uint32_t launch, uint64_t end) {
  uint64_t n = end / o->every + 1;
  if (n > MAX_FRAMES)
    return ws_ctx_fail(s->ctx, refuse(s),
                       "--every %" PRIu64 " makes %" PRIu64 " frames of the launch, over the %u limit",
                       o->every, n, MAX_FRAMES);
  uint64_t pixels = n * (uint64_t)o->width * (uint64_t)o->height;
  if (pixels > MAX_FRAME_PIXELS)
    return ws_ctx_fail(s->ctx, refuse(s),
                       "%" PRIu64
                       " frames of %dx%d are %.1f gigapixels, over the %llu-gigapixel limit: a larger "
                       "--every or a smaller --size",
                       n, o->width, o->height, (double)pixels / (double)(1ull << 30), MAX_FRAME_PIXELS >> 30);
  if (mkdir(o->frames, 0777) != 0 && errno != EEXIST)
    return ws_ctx_fail(s->ctx, WS_ERR_IO, "cannot create '%s': %s", o->frames, strerror(errno));
  ws_status st = WS_OK;
  for (uint64_t i = 0; i < n && st == WS_OK && !ws_cli_interrupted(); i++) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/frame_%06" PRIu64 ".png", o->frames, i) >= (int)sizeof path)
      return ws_ctx_fail(s->ctx, WS_ERR_INVALID, "--frames: the directory name is too long");
    st = shot_at(s, o, launch, i * o->every, path);
  }
  return st;
}

/* ---- pixel mode: the walk's stops ----------------------------------------------------------- */

/* The trace, its journey's walk and the hop asked for, all checked before
 * any picture: no journey or a hop past its end is the command line's. */
static ws_status open_walk(viz_state *s, const viz_opts *o) {
  ws_status st = ws_wst_open(s->ctx, o->path, &s->reader);
  if (st == WS_OK && ws_wst_warning(s->reader)) fprintf(stderr, "warpscope: %s\n", ws_wst_warning(s->reader));
  if (st == WS_OK) st = ws_viz_model_create(s->ctx, s->reader, &s->model);
  if (st == WS_OK) st = ws_viz_walk_create(s->ctx, s->reader, ws_viz_model_cfg(s->model), &s->walk);
  if (st != WS_OK) return st;
  size_t n = ws_viz_walk_count(s->walk);
  if (!n)
    return ws_ctx_fail(s->ctx, refuse(s),
                       "%s holds no journey: pixel mode needs a trace recorded with `warpscope run "
                       "--follow-pixel X,Y --trace FILE.wst`",
                       o->path);
  if (o->has_hop && o->hop > n)
    return ws_ctx_fail(s->ctx, refuse(s), "--hop %" PRIu64 ": the journey has %zu hops (1..%zu)", o->hop, n,
                       n);
  s->ropts.stall_names = ws_wst_names(s->reader, &s->ropts.nstall_names);
  return WS_OK;
}

/* The layout and renderer of a view, rebuilt only when the view changes. */
static ws_status walk_view(viz_state *s, const viz_opts *o, ws_viz_view v) {
  if (s->layout) {
    ws_viz_view cur = ws_viz_layout_view(s->layout);
    if (cur.zoom == v.zoom && cur.sm == v.sm) return WS_OK;
  }
  ws_viz_render_destroy(s->render);
  ws_viz_layout_destroy(s->layout);
  s->render = NULL;
  s->layout = NULL;
  ws_status st = ws_viz_layout_create(s->ctx, ws_viz_model_cfg(s->model), o->width, o->height, v, &s->layout);
  return st == WS_OK ? ws_viz_render_create(s->ctx, s->layout, &s->ropts, &s->render) : st;
}

static ws_status walk_load(viz_state *s, uint32_t launch) {
  if (s->loaded && s->launch == launch) return WS_OK;
  s->loaded = false;
  ws_status st = ws_viz_model_load(s->model, launch);
  if (st == WS_OK) {
    s->loaded = true;
    s->launch = launch;
  }
  return st;
}

/* The picture of stop i: the frame at its launch and cycle in its view,
 * with the ledger and the ring drawn over it. */
static ws_status walk_shot(viz_state *s, const viz_opts *o, size_t i, const char *path) {
  const ws_viz_walk_stop *stop = ws_viz_walk_at(s->walk, i);
  const ws_viz_frame *f = NULL;
  ws_status st = walk_view(s, o, stop->view);
  if (st == WS_OK) st = walk_load(s, stop->launch);
  if (st == WS_OK) st = ws_viz_model_frame(s->model, stop->cycle, (uint32_t)o->window, &f);
  if (st == WS_OK) st = ws_viz_render_draw(s->render, f, kernel_name(s, stop->launch));
  if (st != WS_OK) return st;
  ws_viz_ledger_draw(s->ledger, ws_viz_render_surface(s->render), s->layout, s->walk, i);
  return ws_viz_shot_write(s->ctx, path, ws_viz_render_surface(s->render));
}

static ws_status walk_frames(viz_state *s, const viz_opts *o) {
  if (mkdir(o->frames, 0777) != 0 && errno != EEXIST)
    return ws_ctx_fail(s->ctx, WS_ERR_IO, "cannot create '%s': %s", o->frames, strerror(errno));
  ws_status st = WS_OK;
  for (size_t i = 0; i < ws_viz_walk_count(s->walk) && st == WS_OK && !ws_cli_interrupted(); i++) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/frame_%06zu.png", o->frames, i) >= (int)sizeof path)
      return ws_ctx_fail(s->ctx, WS_ERR_INVALID, "--frames: the directory name is too long");
    st = walk_shot(s, o, i, path);
  }
  return st;
}

static ws_status draw_walk(viz_state *s, const viz_opts *o) {
  ws_status st = open_walk(s, o);
  size_t hop = o->has_hop ? (size_t)o->hop - 1 : 0;
  if (st == WS_OK && !o->shot && !o->frames) {
    const ws_viz_walk_stop *stop = ws_viz_walk_at(s->walk, hop);
    ws_viz_app_opts ao = {.width = o->width,
                          .height = o->height,
                          .has_launch = true,
                          .launch = stop->launch,
                          .cycle = stop->cycle,
                          .view = stop->view,
                          .window_cycles = (uint32_t)o->window,
                          .walk = true,
                          .walk_stop = hop};
    return ws_viz_app_run(s->ctx, s->reader, s->model, &ao);
  }
  if (st == WS_OK) st = ws_viz_ledger_create(s->ctx, NULL, &s->ledger);
  if (st != WS_OK) return st;
  return o->shot ? walk_shot(s, o, hop, o->shot) : walk_frames(s, o);
}

/* ---- the command ------------------------------------------------------------------------------ */

static ws_status draw(viz_state *s, const viz_opts *o) {
  if (o->walk) return draw_walk(s, o);
  uint32_t launch = 0;
  ws_status st = open_all(s, o, &launch);
  if (st != WS_OK) return st;
  uint64_t end = ws_wst_launch(s->reader, launch)->cycles;
  if (!o->frames && o->at > end)
    return ws_ctx_fail(s->ctx, refuse(s), "--at-cycle %" PRIu64 ": launch %u (%s) ends at cycle %" PRIu64,
                       o->at, launch, kernel_name(s, launch), end);
  if (!o->shot && !o->frames) {
    ws_viz_app_opts ao = {.width = o->width,
                          .height = o->height,
                          .has_launch = true,
                          .launch = launch,
                          .cycle = o->at,
                          .view = ws_viz_layout_view(s->layout),
                          .window_cycles = (uint32_t)o->window};
    return ws_viz_app_run(s->ctx, s->reader, s->model, &ao);
  }
  return o->shot ? shot_at(s, o, launch, o->at, o->shot) : frames(s, o, launch, end);
}

int ws_cli_viz(int argc, char **argv) {
  viz_opts o = {.width = 1280, .height = 800, .window = 256};
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  viz_state s = {.ctx = ws_ctx_create()};
  /* headless: Ctrl-C or SIGTERM stops between pictures and exits 130 (a
   * picture is written whole or not at all); the window has its own quit */
  if (o.shot || o.frames) ws_cli_catch_interrupts();
  ws_status st = draw(&s, &o);
  if (st == WS_OK && ws_cli_interrupted()) st = ws_ctx_fail(s.ctx, WS_ERR_INTERRUPTED, "interrupted");
  /* a damaged trace: what is intact was drawn, the warning said what is not, and the exit is 1 as for
   * trace info, dump and stats */
  if (st == WS_OK && s.reader && ws_wst_warning(s.reader))
    st = ws_ctx_fail(s.ctx, WS_ERR_INVALID, "%s: drawn from its intact part only", o.path);
  rc = st == WS_OK ? WS_EXIT_OK
       : s.usage   ? ws_cli_usage_error("viz", "%s", ws_errmsg(s.ctx))
                   : ws_cli_error("%s", ws_errmsg(s.ctx));
  ws_viz_ledger_destroy(s.ledger);
  ws_viz_render_destroy(s.render);
  ws_viz_layout_destroy(s.layout);
  ws_viz_walk_destroy(s.walk);
  ws_viz_model_destroy(s.model);
  ws_wst_close(s.reader);
  ws_ctx_destroy(s.ctx);
  return rc;
}
