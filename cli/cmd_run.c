/* cmd_run.c - `warpscope run`: the main job. TinyViT32 takes an image from
 * host memory across PCIe into HBM, through every layer's kernel, to a
 * probability back on the host; the command prints that timeline, each
 * layer's check against OpenBLAS, the end-to-end latency and the result.
 *
 * Design: host preprocessing is real host work, measured with the host's
 * clock and printed on its own line, never mixed into the simulated
 * timeline: everything simulated stays bit-identical run to run. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/formats/image.h"
#include "cli/cli.h"
#include "models/vit/vitjob.h"
#include "sim/host/pcie.h"
#include "viz/app.h"

#define MAX_IMAGES 64

static const char run_help[] =
    "usage: warpscope run [--image NAME|FILE]... [--batch N [--streams S] [--micro-batch B]]\n"
    "                     [--weights FILE.safetensors] [--weights-mem copy|managed|prefetch]\n"
    "                     [--dim D] [--heads H] [--depth L] [--seed S] [--save-weights FILE]\n"
    "                     [--attn flash|naive] [--br N] [--bc N]\n"
    "                     [--gemm VARIANT] [--bm N] [--bn N] [--bk N] [--tm N] [--tn N]\n"
    "                     [--wm N] [--wn N] [--threads N] [--gpu NAME|FILE.ini]\n"
    "                     [--set SECTION.KEY=VALUE]... [--check race|init|sync]\n"
    "                     [--follow-pixel X,Y[,C]] [--trace FILE.wst [--trace-kernels A,B]\n"
    "                     [--trace-sms LIST] [--trace-cycles A:B] [--trace-follow-only]] [--viz]\n\n"
    "Runs TinyViT32 pixel-to-logit on the simulated GPU: the image crosses PCIe into HBM,\n"
    "every layer runs as a generated, tiled kernel, and the probability comes back. Prints\n"
    "the timeline (copies and kernels with grid, block, tile config, cycles, time,\n"
    "occupancy, cache hit rates, DRAM traffic and each layer's error against OpenBLAS),\n"
    "the end-to-end latency and the probability.\n\n"
    "  --image NAME|FILE   a built-in sample (checker, gradient, disc, noise) or an image\n"
    "                      file (PNG, PPM, GIF, BMP, JPEG, TIFF, WEBP, QOI, PCX, TGA; at most\n"
    "                      16 Mpixel), resized to 32x32; repeat for several; a batch cycles\n"
    "                      through them (default: the samples in that order)\n"
    "  --batch N           images per run (default 1; in one pass at most 1024 on the default\n"
    "                      tiles: M = 64*N GEMM rows); adds images/s\n"
    "  --streams S         pipeline the batch over S streams (1..16, default 1): passes of\n"
    "                      --micro-batch images, pass p on stream p mod S with its own\n"
    "                      activations, the next images' H2D overlapping the current\n"
    "                      compute and the previous D2H; adds p50/p99 latency per image and\n"
    "                      the peak device memory\n"
    "  --micro-batch B     images per pass (default: the whole batch on one stream, 1 with\n"
    "                      more)\n"
    "  --weights FILE      safetensors weights (names and shapes in docs/tinyvit32.md);\n"
    "                      default: seeded weights\n"
    "  --weights-mem copy|managed|prefetch  the weights in device memory with one H2D copy\n"
    "                      (default), in managed memory paged in by the kernels' faults, or in\n"
    "                      managed memory moved by one prefetch (docs/runtime.md)\n"
    "  --dim, --heads, --depth  the model (default 64, 4, 1; at most 1024, 64, 32)\n"
    "  --seed S            seed of the seeded weights (default 1)\n"
    "  --save-weights FILE write the weights used as safetensors\n"
    "  --attn flash|naive  fused attention or scores/softmax/PV kernels (default flash)\n"
    "  --br, --bc N        flash attention tile rows of Q and of K/V (default 64, 64)\n"
    "  --follow-pixel X,Y[,C]  tag pixel (X, Y) of image 0 (0..31; channel C 0..2, default all\n"
    "                      three) in host memory, let the tags travel with the values, and\n"
    "                      print its journey hop by hop and how many output elements of each\n"
    "                      layer it reached\n"
    "  --gemm VARIANT      naive, coalesced, smem, blocktile1d, blocktile2d, vectorized,\n"
    "                      warptile, async or mma (default: blocktile2d bm=32 bn=32 bk=16\n"
    "                      tm=2 tn=2, sized for 64-row GEMMs); tile flags override it\n"
    "%s%s" WS_CLI_CHECK_HELP "%s" WS_CLI_TRACEOPT_HELP
    "  --viz               after the run, open its trace in the visualizer's window\n"
    "                      (docs/viz.md; recorded to a temporary file unless --trace names one);\n"
    "                      with --follow-pixel in pixel mode, at the pixel's first hop\n"
    "  -h, --help          this text\n"
    "Every flag is checked against the GPU before anything runs.\n"
    "Exit status: 0 when every layer matches OpenBLAS within tolerance, 1 otherwise,\n"
    "2 for a flag out of range, 130 when interrupted (Ctrl-C).\n";

typedef struct run_opts {
  const char *images[MAX_IMAGES];
  int nimages;
  const char *weights, *save_weights;
  ws_tinyvit_cfg model;
  uint64_t seed;
  ws_vitrun_cfg vit;
  ws_cli_gemmopt gemm;
  ws_cli_gpuopt gpu;
  ws_cli_watchopt watch;
  uint32_t checks; /* --check */
  ws_cli_traceopt trace;
  bool viz;           /* --viz */
  char viz_trace[64]; /* the temporary trace --viz records when --trace names none */
} run_opts;

/* --follow-pixel X,Y[,C]: decimal digits only, two or three fields; the
 * ranges are the pipeline's to judge (ws_vitrun_validate). */
static int parse_pixel(const char *text, ws_vitrun_follow *f) {
  uint32_t v[3];
  int n = 0;
  const char *p = text;
  for (;;) {
    size_t len = strspn(p, "0123456789");
    if (n == 3 || len == 0 || len > 9 || (p[len] != ',' && p[len] != '\0')) break;
    v[n++] = (uint32_t)strtoul(p, NULL, 10);
    p += len;
    if (!*p && n >= 2) {
      *f = (ws_vitrun_follow){true, v[0], v[1], n == 3 ? v[2] : WS_VITRUN_ALL_CHANNELS};
      return WS_EXIT_OK;
    }
    if (!*p++) break;
  }
  return ws_cli_usage_error(
      "run", "--follow-pixel expects X,Y or X,Y,C (pixel 0..31, channel 0..2), found '%s'", text);
}

static int parse_u32(const char *flag, const char *text, uint32_t min, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(text, UINT32_MAX, &v) || v < min)
    return ws_cli_usage_error("run", "%s expects an integer >= %u, found '%s'", flag, min, text);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static const struct option longs[] = {{"image", required_argument, NULL, 'i'},
                                      {"batch", required_argument, NULL, 'b'},
                                      {"streams", required_argument, NULL, 'T'},
                                      {"micro-batch", required_argument, NULL, 'm'},
                                      {"weights", required_argument, NULL, 'w'},
                                      {"save-weights", required_argument, NULL, 'W'},
                                      {"weights-mem", required_argument, NULL, 'M'},
                                      {"dim", required_argument, NULL, 'D'},
                                      {"heads", required_argument, NULL, 'H'},
                                      {"depth", required_argument, NULL, 'L'},
                                      {"seed", required_argument, NULL, 's'},
                                      {"attn", required_argument, NULL, 'a'},
                                      {"br", required_argument, NULL, 'r'},
                                      {"bc", required_argument, NULL, 'c'},
                                      {"gemm", required_argument, NULL, 'g'},
                                      {"follow-pixel", required_argument, NULL, 'P'},
                                      WS_CLI_GEMMOPT_LONGS,
                                      {"gpu", required_argument, NULL, 'G'},
                                      {"set", required_argument, NULL, 'S'},
                                      WS_CLI_WATCHOPT_LONGS,
                                      WS_CLI_CHECK_LONG,
                                      WS_CLI_TRACEOPT_LONGS,
                                      {"viz", no_argument, NULL, 'V'},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

static int take(run_opts *o, int c, const char *arg) {
  switch (c) {
  case 'i':
    if (o->nimages == MAX_IMAGES) return ws_cli_usage_error("run", "at most %d --image flags", MAX_IMAGES);
    o->images[o->nimages++] = arg;
    return WS_EXIT_OK;
  case 'b': return parse_u32("--batch", arg, 1, &o->vit.batch);
  case 'T': return parse_u32("--streams", arg, 1, &o->vit.streams);
  case 'm': return parse_u32("--micro-batch", arg, 1, &o->vit.micro_batch);
  case 'w': o->weights = arg; return WS_EXIT_OK;
  case 'W': o->save_weights = arg; return WS_EXIT_OK;
  case 'M': {
    ws_ctx *ctx = ws_ctx_create();
    int rc =
        ws_vitrun_weights_parse(ctx, arg, &o->vit.weights) == WS_OK
            ? WS_EXIT_OK
            : ws_cli_usage_error("run", "--weights-mem expects copy, managed or prefetch, found '%s'", arg);
    ws_ctx_destroy(ctx);
    return rc;
  }
  case 'D': return parse_u32("--dim", arg, 1, &o->model.dim);
  case 'H': return parse_u32("--heads", arg, 1, &o->model.heads);
  case 'L': return parse_u32("--depth", arg, 1, &o->model.depth);
  case 's':
    return ws_cli_parse_u64(arg, UINT64_MAX, &o->seed)
               ? WS_EXIT_OK
               : ws_cli_usage_error("run", "--seed expects a non-negative integer, found '%s'", arg);
  case 'a':
    if (strcmp(arg, "flash") && strcmp(arg, "naive"))
      return ws_cli_usage_error("run", "--attn expects flash or naive, found '%s'", arg);
    o->vit.attn = strcmp(arg, "flash") ? WS_VITRUN_ATTN_NAIVE : WS_VITRUN_ATTN_FLASH;
    return WS_EXIT_OK;
  case 'r': return parse_u32("--br", arg, 1, &o->vit.flash.br);
  case 'c': return parse_u32("--bc", arg, 1, &o->vit.flash.bc);
  case 'g': o->gemm.variant = arg; return WS_EXIT_OK;
  case 'P': return parse_pixel(arg, &o->vit.follow);
  case 'V': o->viz = true; return WS_EXIT_OK;
  case 'G': return ws_cli_gpuopt_set_gpu("run", &o->gpu, arg);
  case 'S': return ws_cli_gpuopt_add_set("run", &o->gpu, arg);
  case WS_CLI_CHECK: return ws_cli_check_take("run", arg, &o->checks);
  default: {
    if (c >= WS_CLI_GEMMOPT_FIRST && c < WS_CLI_GEMMOPT_FIRST + WS_CLI_GEMM_TILES)
      return ws_cli_gemmopt_take("run", &o->gemm, c, arg);
    bool taken = false;
    int rc = ws_cli_traceopt_take("run", &o->trace, c, arg, &taken);
    if (!taken) rc = ws_cli_watchopt_take("run", &o->watch, c, arg, &taken);
    return taken ? rc : ws_cli_usage_error("run", "unknown option");
  }
  }
}

static int parse_flags(int argc, char **argv, run_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("run", &seen, longs, c, "image,set,check")) != WS_EXIT_OK) break;
    if (c == 'h') {
      printf(run_help, ws_cli_gemmopt_help, ws_cli_gpuopt_help, ws_cli_watchopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc == WS_EXIT_OK && optind != argc)
    return ws_cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
  return rc == WS_EXIT_OK ? ws_cli_traceopt_check("run", &o->trace, false, o->vit.follow.on) : rc;
}

/* ---- inputs ------------------------------------------------------------------ */

static const char *image_of(const run_opts *o, uint32_t i) {
  return ws_vitjob_image(o->images, (size_t)o->nimages, i);
}

/* Checks and limits cover the runtime's own allocations too. */
static void device_ready(void *user, ws_device *dev) {
  const run_opts *o = user;
  ws_cli_watchopt_apply(&o->watch, dev);
  ws_device_set_checks(dev, o->checks);
}

/* ---- printing ------------------------------------------------------------------- */

/* More than one pass, or more than one stream: the timeline says which
 * pass and stream each record belongs to, and the summary is the serving
 * figures. */
static bool pipelined(const ws_vitrun_cfg *vc) { return vc->streams > 1 || ws_vitrun_passes(vc) > 1; }

/* The pass whose records (its image copy to its probability copy) hold
 * record `rec`; -1 for the weights and events before them. */
static int pass_of(const ws_vitrun_result *res, const ws_runtime_record *recs, size_t rec) {
  for (uint32_t p = 0; p < res->npasses; p++) {
    const ws_vitrun_pass *ps = &res->passes[p];
    if (rec == ps->image_record) return (int)p;
    if (rec > ps->image_record && rec <= ps->prob_record && recs[rec].stream == ps->stream &&
        recs[rec].kind != WS_RUNTIME_OP_H2D)
      return (int)p;
  }
  return -1;
}

static void print_header(const run_opts *o, const ws_gpu_cfg *cfg, const ws_tinyvit_weights *w,
                         double host_s) {
  const ws_gemmgen_cfg *g = &o->vit.gemm;
  char gdesc[128];
  ws_gemmgen_describe(g, gdesc, sizeof gdesc);
  printf("TinyViT32 pixel-to-logit on %s (%s): %u SMs at %u MHz, PCIe gen%u x%u\n", cfg->gpu.name,
         cfg->gpu.full_name, cfg->gpu.num_sms, cfg->gpu.core_clock_mhz, cfg->pcie.gen, cfg->pcie.lanes);
  printf("  model:     D=%u, H=%u, depth %u, %zu parameters, ", o->model.dim, o->model.heads, o->model.depth,
         ws_tinyvit_weights_param_count(w));
  if (o->weights)
    printf("weights from %s\n", o->weights);
  else
    printf("seeded weights (seed %" PRIu64 ")\n", o->seed);
  printf("  images:    batch %u:", o->vit.batch);
  for (uint32_t i = 0; i < o->vit.batch && i < 8; i++) printf(" %s", image_of(o, i));
  printf("%s\n", o->vit.batch > 8 ? " ..." : "");
  if (pipelined(&o->vit)) {
    uint32_t b = ws_vitrun_pass_images(&o->vit);
    uint32_t passes = ws_vitrun_passes(&o->vit), used = o->vit.streams < passes ? o->vit.streams : passes;
    printf("  pipeline:  %u pass%s of %u image%s on %u stream%s\n", passes, passes == 1 ? "" : "es", b,
           b == 1 ? "" : "s", used, used == 1 ? "" : "s");
  }
  printf("  kernels:   GEMM %s; attention %s", gdesc, ws_vitrun_attn_name(o->vit.attn));
  if (o->vit.attn == WS_VITRUN_ATTN_FLASH) printf(" Br=%u Bc=%u", o->vit.flash.br, o->vit.flash.bc);
  printf("\n  host:      preprocessing (decode, resize to 32x32, normalize) %.3f ms, measured on this\n"
         "             host, not part of the simulated time below\n\n",
         host_s * 1e3);
}

static const ws_vitrun_check *check_ending_at(const ws_vitrun_result *res, size_t rec) {
  for (size_t i = 0; i < res->nchecks; i++)
    if (res->checks[i].nrecords && res->checks[i].first_record + res->checks[i].nrecords - 1 == rec)
      return &res->checks[i];
  return NULL;
}

static void print_pct(double v) {
  if (v < 0)
    printf(" %5s", "n/a");
  else
    printf(" %5.1f", v);
}

/* The tile config a kernel row shows: the GEMM's tiles ("bm=32 bn=32 bk=16
 * tm=2 tn=2", the generator's description without the variant and the
 * thread count, which the grid column shows), flash attention's Br and Bc,
 * nothing for the fixed-shape kernels. */
static void tile_config(const ws_vitrun_cfg *vc, const char *kernel, char *buf, size_t n) {
  buf[0] = '\0';
  if (strncmp(kernel, "gemm_", 5) == 0) {
    char d[128];
    ws_gemmgen_cfg g = vc->gemm;
    g.epilogue = 0;
    ws_gemmgen_describe(&g, d, sizeof d);
    const char *from = strchr(d, ' '), *to = strstr(d, " threads=");
    if (from && to && to > from) snprintf(buf, n, "%.*s", (int)(to - from - 1), from + 1);
  } else if (strcmp(kernel, "flash_attention") == 0) {
    snprintf(buf, n, "Br=%u Bc=%u", vc->flash.br, vc->flash.bc);
  }
}

static void print_kernel(const ws_vitrun_cfg *vc, const ws_runtime_record *r) {
  char geo[40], tiles[64];
  snprintf(geo, sizeof geo, "%ux%u %u", r->grid.x, r->grid.y, r->block.x * r->block.y * r->block.z);
  tile_config(vc, r->kernel, tiles, sizeof tiles);
  printf(" %-18s %-27s %-13s %9" PRIu64 " %5.1f %-9s", r->kernel, tiles, geo, r->stats.cycles,
         100.0 * r->stats.occupancy.occupancy, ws_occupancy_limiter_name(r->stats.occupancy.limiter));
  print_pct(r->summary.l1_hit_pct);
  print_pct(r->summary.l2_hit_pct);
  printf(" %9" PRIu64 " %9" PRIu64, r->summary.dram_read_bytes, r->summary.dram_write_bytes);
}

static void print_timeline(const ws_runtime *rt, const ws_vitrun_cfg *vc, const ws_vitrun_result *res) {
  size_t n;
  const ws_runtime_record *recs = ws_runtime_timeline(rt, &n);
  bool pipe = pipelined(vc);
  printf("%3s %-6s ", "#", "op");
  if (pipe) printf("%4s %6s ", "pass", "stream");
  printf("%-15s %9s %9s  %-18s %-27s %-13s %9s %5s %-9s %5s %5s %9s %9s  %s\n", "name", "start_us", "dur_us",
         "kernel / bytes", "tile config", "grid threads", "cycles", "occ%", "limiter", "L1%", "L2%",
         "DRAM rd B", "DRAM wr B", "max|err| vs OpenBLAS (tol x scale)");
  for (size_t i = 0; i < n; i++) {
    const ws_runtime_record *r = &recs[i];
    printf("%3zu %-6s ", i, ws_runtime_op_name(r->kind));
    if (pipe) {
      int p = pass_of(res, recs, i);
      if (p < 0)
        printf("%4s %6u ", "", r->stream);
      else
        printf("%4d %6u ", p, r->stream);
    }
    printf("%-15s %9.3f %9.3f ", r->name, r->start_ns / 1e3, (r->end_ns - r->start_ns) / 1e3);
    if (r->kind == WS_RUNTIME_OP_KERNEL)
      print_kernel(vc, r);
    else
      printf(" %-18s", "");
    if (r->kind == WS_RUNTIME_OP_H2D || r->kind == WS_RUNTIME_OP_D2H)
      printf(" %" PRIu64 " B %s", r->size_bytes, r->host_mem == WS_PCIE_PINNED ? "pinned" : "pageable");
    const ws_vitrun_check *c = check_ending_at(res, i);
    if (c) printf("  %.2e (%.0e x %.3g) %s", c->max_abs_err, c->tol, c->scale, c->pass ? "ok" : "FAIL");
    putchar('\n');
  }
}

/* The serving figures of a pipelined run. */
static void print_serving(const ws_vitrun_result *res) {
  ws_vitrun_serving sv;
  if (!ws_vitrun_serving_of(res, &sv)) return;
  printf("\npipeline, first image H2D start to last probability D2H end: %.3f us simulated, %.0f images/s\n",
         sv.makespan_ns / 1e3, sv.images_per_s);
  printf("latency per image, its pass's image H2D start to probability D2H end: p50 %.3f us, p99 %.3f us, "
         "max %.3f us\n",
         sv.p50_ns / 1e3, sv.p99_ns / 1e3, sv.max_ns / 1e3);
  printf("peak device memory: %" PRIu64 " bytes (%.2f MiB): the weights and the activations of each stream\n",
         res->peak_device_bytes, res->peak_device_bytes / 1048576.0);
}

static void print_summary(const run_opts *o, const ws_vitrun_result *res) {
  if (pipelined(&o->vit)) {
    print_serving(res);
  } else {
    double e2e_us = (double)(res->end_ns - res->image_start_ns) / 1e3;
    printf("\nend-to-end, image H2D start to probability D2H end: %.3f us simulated", e2e_us);
    if (o->vit.batch > 1) printf(" (%.0f images/s)", o->vit.batch / (e2e_us * 1e-6));
    putchar('\n');
  }
  for (uint32_t i = 0; i < o->vit.batch; i++) {
    double d = (double)res->prob[i] - res->ref_prob[i];
    printf("image %u (%s): probability %.6f (logit %+.6f); OpenBLAS reference %.6f (logit %+.6f), "
           "|diff| %.2e\n",
           i, image_of(o, i), res->prob[i], res->logit[i], res->ref_prob[i], res->ref_logit[i],
           d < 0 ? -d : d);
  }
  size_t bad = 0;
  for (size_t i = 0; i < res->nchecks; i++) bad += !res->checks[i].pass;
  printf("check: %zu layers%s against the OpenBLAS forward pass, tolerance %.0e (fp32) / %.0e (fp16 "
         "tensor-core inputs) x max(1, max|reference|): %zu outside -> %s\n",
         res->nchecks, res->npasses > 1 ? " (each layer of each pass)" : "", WS_VITRUN_TOL_FP32,
         WS_VITRUN_TOL_FP16, bad, res->pass ? "PASS" : "FAIL");
}

/* The followed pixel's reach: one row per layer output. */
static void print_reach(const ws_vitrun_follow *f, const ws_vitrun_result *res) {
  if (f->channel == WS_VITRUN_ALL_CHANNELS)
    printf("\npixel (%u,%u) reached:\n", f->x, f->y);
  else
    printf("\npixel (%u,%u) channel %u reached:\n", f->x, f->y, f->channel);
  printf("  %-24s %10s %10s\n", "layer", "elements", "out of");
  for (size_t i = 0; i < res->nreach; i++)
    printf("  %-24s %10" PRIu64 " %10" PRIu64 "\n", res->reach[i].layer, res->reach[i].reached,
           res->reach[i].total);
}

/* The followed pixel's journey, hop by hop. */
static void print_journey(const ws_vitrun_follow *f, const ws_journey *j, const ws_runtime *rt,
                          const ws_gpu_cfg *cfg) {
  const ws_journey_hop *hops;
  size_t n = ws_journey_hops(j, &hops), ntl;
  const ws_runtime_record *tl = ws_runtime_timeline(rt, &ntl);
  printf("\njourney of pixel (%u,%u), the first time it reaches each level in each step (times in ns on the\n"
         "timeline; cycles from the kernel's start):\n",
         f->x, f->y);
  ws_journey_print(stdout, hops, n, tl, ntl, cfg->gpu.core_clock_mhz);
}

/* --viz: the run's trace in the visualizer's window, from its first launch,
 * or with a followed pixel in pixel mode at its first hop. */
static ws_status view(ws_ctx *ctx, const char *path, bool walk) {
  fflush(stdout);
  ws_wst_reader *r = NULL;
  ws_viz_model *m = NULL;
  ws_status st = ws_wst_open(ctx, path, &r);
  if (st == WS_OK) st = ws_viz_model_create(ctx, r, &m);
  ws_viz_app_opts ao = {.walk = walk};
  if (st == WS_OK) st = ws_viz_app_run(ctx, r, m, &ao);
  ws_viz_model_destroy(m);
  ws_wst_close(r);
  return st;
}

/* --viz without --trace: a trace file of its own, removed at the end. */
static ws_status viz_trace_file(ws_ctx *ctx, run_opts *o) {
  if (!o->viz || o->trace.path) return WS_OK;
  snprintf(o->viz_trace, sizeof o->viz_trace, "/tmp/warpscope-run-XXXXXX");
  int fd = mkstemp(o->viz_trace);
  if (fd < 0)
    return ws_ctx_fail(ctx, WS_ERR_IO, "--viz: cannot create a temporary trace: %s", strerror(errno));
  close(fd);
  o->trace.path = o->viz_trace;
  return WS_OK;
}

/* ---- the command --------------------------------------------------------------------- */

/* Resolves the tiles and the GPU and judges every flag against what the
 * pipeline can run on it, before anything is allocated: a value out of
 * range is a command-line error (exit 2), an unreadable --gpu file a failed
 * run (exit 1). */
/* Images and weights are inputs; the saved weights, the trace and the
 * counters outputs (base/outputs.h). */
static int check_files(const run_opts *o) {
  ws_outputs_file files[MAX_IMAGES + 3] = {{"--weights", o->weights, false},
                                           {"--save-weights", o->save_weights, true},
                                           {"--trace", o->trace.path, true}};
  size_t n = 3;
  for (int i = 0; i < o->nimages; i++) files[n++] = (ws_outputs_file){"--image", o->images[i], false};
  return ws_cli_check_files("run", files, n);
}

static int check_flags(ws_ctx *ctx, run_opts *o, ws_gpu_cfg *cfg) {
  int rc = check_files(o);
  if (rc != WS_EXIT_OK) return rc;
  if (ws_cli_gemmopt_resolve(ctx, &o->gemm, &o->vit.gemm) != WS_OK)
    return ws_cli_usage_error("run", "%s", ws_errmsg(ctx));
  ws_status st = ws_cli_gpuopt_resolve(ctx, &o->gpu, cfg);
  if (st != WS_OK) return ws_cli_exit_code("run", ctx, st);
  if (ws_cli_traceopt_check_gpu(ctx, &o->trace, cfg) != WS_OK)
    return ws_cli_usage_error("run", "%s", ws_errmsg(ctx));
  if (ws_vitrun_validate(ctx, &o->vit, &o->model, cfg) != WS_OK)
    return ws_cli_usage_error("run", "%s", ws_errmsg(ctx));
  return WS_EXIT_OK;
}

static ws_status execute(ws_ctx *ctx, run_opts *o, const ws_gpu_cfg *cfg, int *exit_code) {
  ws_vitjob_cfg jc = {.model = &o->model,
                      .weights_path = o->weights,
                      .seed = o->seed,
                      .images = o->images,
                      .nimages = (size_t)o->nimages,
                      .batch = o->vit.batch,
                      .device_ready = device_ready,
                      .user = o};
  ws_vitjob job;
  ws_status st = ws_vitjob_open(ctx, cfg, &jc, &job);
  const ws_vitrun_result *res = &job.res;
  ws_cli_trace trace;
  memset(&trace, 0, sizeof trace);
  if (st == WS_OK) st = ws_cli_trace_start(ctx, &o->trace, job.dev, o->vit.follow.on, &trace);
  if (st == WS_OK) st = ws_vitjob_run(&job, &o->vit);
  /* Ctrl-C after the last launch: no output is written, the exit is 130 */
  if (st == WS_OK && ws_cli_interrupted()) st = ws_ctx_fail(ctx, WS_ERR_INTERRUPTED, "interrupted");
  if (st == WS_OK) {
    print_header(o, cfg, job.weights, job.host_prep_s);
    print_timeline(job.rt, &o->vit, res);
    print_summary(o, res);
    if (o->vit.follow.on) print_journey(&o->vit.follow, trace.journey, job.rt, cfg);
    if (o->vit.follow.on) print_reach(&o->vit.follow, res);
    *exit_code = res->pass ? WS_EXIT_OK : WS_EXIT_FAIL;
  }
  /* the trace keeps the pixel's reach per layer beside its hops */
  for (size_t i = 0; st == WS_OK && trace.journey && i < res->nreach; i++)
    st = ws_journey_add_reach(ctx, trace.journey, res->reach[i].layer, res->reach[i].reached,
                              res->reach[i].total);
  if (st == WS_OK) st = ws_cli_trace_finish(ctx, &o->trace, &trace, job.rt);
  ws_cli_trace_free(&trace);
  if (st == WS_OK && o->viz) st = view(ctx, o->trace.path, o->vit.follow.on);
  /* the weights file is an output like any other: written only by a run
   * that succeeded, so a refused or failed run leaves the old file alone */
  if (st == WS_OK && res->pass && o->save_weights)
    st = ws_tinyvit_weights_save(ctx, job.weights, o->save_weights);
  ws_vitjob_close(&job);
  return st;
}

int ws_cli_run(int argc, char **argv) {
  run_opts o;
  memset(&o, 0, sizeof o);
  o.model = ws_tinyvit_cfg_default();
  o.seed = 1;
  o.vit = ws_vitrun_defaults();
  o.gemm.default_variant = o.vit.gemm.variant;
  o.gemm.has_default_cfg = true;
  o.gemm.default_cfg = o.vit.gemm;
  int rc = parse_flags(argc, argv, &o);
  if (rc == WS_EXIT_OK) rc = ws_cli_gemmopt_check("run", "--gemm", &o.gemm);
  if (rc != WS_EXIT_OK) {
    ws_cli_traceopt_free(&o.trace);
    return rc < 0 ? WS_EXIT_OK : rc;
  }
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  rc = check_flags(ctx, &o, &cfg);
  if (rc == WS_EXIT_OK) {
    int exit_code = WS_EXIT_FAIL;
    ws_status st = viz_trace_file(ctx, &o);
    if (st == WS_OK) st = execute(ctx, &o, &cfg, &exit_code);
    if (o.viz_trace[0]) unlink(o.viz_trace);
    rc = st != WS_OK ? ws_cli_error("%s", ws_errmsg(ctx)) : exit_code;
  }
  ws_cli_traceopt_free(&o.trace);
  ws_ctx_destroy(ctx);
  return rc;
}
