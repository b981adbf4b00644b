/* cmd_occupancy.c - `warpscope occupancy`: the CUDA occupancy calculator
 * for a preset: CTAs per SM, active warps, occupancy and the limiter of a
 * CTA given by its resources, by a kernel file or by a generated GEMM, each
 * resource's own limit, and the calculator's three curves as tables and,
 * with -o, as a chart.
 *
 * Design: every number comes from sim/common/occupancy.h (the rules the
 * simulator launches with), so the calculator and the simulated launch can
 * never disagree; the curves' tables print one row per run of equal CTAs,
 * warps and limiter, which is what the calculator's step plots show. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plot/chart.h"
#include "sim/common/occupancy.h"

static const char occupancy_help[] =
    "usage: warpscope occupancy [--gpu NAME] --threads T [--regs R] [--smem BYTES[K]] [-o CHART]\n"
    "       warpscope occupancy [--gpu NAME] --kernel FILE.wsa[:NAME] --threads T [--smem BYTES[K]]\n"
    "       warpscope occupancy [--gpu NAME] --gemm VARIANT [tile flags]\n\n"
    "The CUDA occupancy calculator on a GPU preset: how many CTAs of a kernel fit on\n"
    "one SM, the active warps and occupancy, the resource that limits them and what\n"
    "each resource alone allows, then the calculator's three curves (occupancy as the\n"
    "threads per CTA, the registers per thread or the shared memory per CTA varies)\n"
    "as tables, one row per run of equal results (docs/explore.md).\n\n"
    "  --threads T         threads per CTA (with --gemm: default what the tiles imply)\n"
    "  --regs R            registers per thread (default 32; from the kernel with\n"
    "                      --kernel or --gemm)\n"
    "  --smem BYTES[K]     shared memory per CTA in bytes, or KiB with K (default 0);\n"
    "                      with --kernel or --gemm, dynamic shared memory added to the\n"
    "                      kernel's static shared memory\n"
    "  --kernel FILE[:NAME]  take registers and static shared memory from a kernel of a\n"
    "                      .wsa or .wso file (NAME: which one, when it holds several)\n"
    "  --gemm VARIANT      take them from the generated GEMM (naive ... mma; tile flags:)\n"
    "%s"
    "  -o FILE.png|.svg    also draw the three curves as a chart, the CTA marked\n"
    "  --size WxH          the chart's size (default 1500x480)\n"
    "%s"
    "  -h, --help          this text\n"
    "Exit status: 0 on success (a CTA that does not fit is a result: 0 CTAs and the\n"
    "reason), 2 on a usage error, 1 when a file cannot be read or the chart written, 130\n"
    "when interrupted (Ctrl-C).\n";

typedef struct occ_opts {
  ws_cli_gpuopt gpu;
  ws_cli_gemmopt gemm;
  bool has_threads, has_regs, has_gemm;
  uint32_t threads, regs, smem;
  const char *kernel, *out;
  int32_t width, height;
} occ_opts;

enum { OPT_REGS = 0x300, OPT_SMEM, OPT_KERNEL, OPT_GEMM, OPT_SIZE };

static const struct option longs[] = {{"regs", required_argument, NULL, OPT_REGS},
                                      {"smem", required_argument, NULL, OPT_SMEM},
                                      {"kernel", required_argument, NULL, OPT_KERNEL},
                                      {"gemm", required_argument, NULL, OPT_GEMM},
                                      {"size", required_argument, NULL, OPT_SIZE},
                                      {"gpu", required_argument, NULL, 'G'},
                                      {"set", required_argument, NULL, 'S'},
                                      {"help", no_argument, NULL, 'h'},
                                      WS_CLI_GEMMOPT_LONGS,
                                      {NULL, 0, NULL, 0}};

/* ---- flags -------------------------------------------------------------------------------------- */

static int parse_smem(const char *text, uint32_t *out) {
  char buf[32];
  size_t n = strlen(text);
  bool kib = n > 0 && (text[n - 1] == 'K' || text[n - 1] == 'k');
  snprintf(buf, sizeof buf, "%.*s", (int)(kib ? n - 1 : n), text);
  uint64_t v;
  if (n >= sizeof buf || !ws_cli_parse_u64(buf, kib ? UINT32_MAX / 1024 : UINT32_MAX, &v))
    return ws_cli_usage_error("occupancy", "--smem expects bytes or KiB with K (49152, 48K), found '%s'",
                              text);
  *out = (uint32_t)(kib ? v * 1024 : v);
  return WS_EXIT_OK;
}

static int parse_positive(const char *flag, const char *text, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(text, UINT32_MAX, &v) || v == 0)
    return ws_cli_usage_error("occupancy", "%s expects a positive integer, found '%s'", flag, text);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static int take(occ_opts *o, int c, const char *arg) {
  switch (c) {
  case OPT_REGS: o->has_regs = true; return parse_positive("--regs", arg, &o->regs);
  case OPT_SMEM: return parse_smem(arg, &o->smem);
  case OPT_KERNEL: o->kernel = arg; return WS_EXIT_OK;
  case OPT_GEMM: o->has_gemm = true, o->gemm.variant = arg; return WS_EXIT_OK;
  case OPT_SIZE: return ws_cli_chart_size("occupancy", arg, &o->width, &o->height);
  case 'o': o->out = arg; return WS_EXIT_OK;
  case 'G': return ws_cli_gpuopt_set_gpu("occupancy", &o->gpu, arg);
  case 'S': return ws_cli_gpuopt_add_set("occupancy", &o->gpu, arg);
  default:
    if (c == WS_CLI_GEMMOPT_FIRST + WS_CLI_GEMM_TILES - 1) { /* --threads serves both */
      o->has_threads = true;
      int rc = parse_positive("--threads", arg, &o->threads);
      return rc == WS_EXIT_OK ? ws_cli_gemmopt_take("occupancy", &o->gemm, c, arg) : rc;
    }
    return ws_cli_gemmopt_take("occupancy", &o->gemm, c, arg);
  }
}

/* Combinations that cannot work, once every flag is in. */
static int check_flags(const occ_opts *o) {
  bool tiles = false;
  for (int i = 0; i < WS_CLI_GEMM_TILES - 1; i++) tiles |= o->gemm.tiles[i] != 0;
  if (o->has_gemm && o->kernel)
    return ws_cli_usage_error("occupancy", "--gemm and --kernel exclude each other");
  if (tiles && !o->has_gemm) return ws_cli_usage_error("occupancy", "tile flags need --gemm VARIANT");
  if ((o->has_gemm || o->kernel) && o->has_regs)
    return ws_cli_usage_error("occupancy", "--regs comes from the kernel with %s",
                              o->kernel ? "--kernel" : "--gemm");
  if (!o->has_gemm && !o->has_threads)
    return ws_cli_usage_error("occupancy", "--threads T is needed (or --gemm VARIANT)");
  if (o->out) {
    ws_chart_format f;
    ws_ctx *ctx = ws_ctx_create();
    ws_status st = ws_chart_format_of(ctx, o->out, &f);
    int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error("occupancy", "-o: %s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    if (rc != WS_EXIT_OK) return rc;
  }
  return o->has_gemm ? ws_cli_gemmopt_check("occupancy", "--gemm", &o->gemm) : WS_EXIT_OK;
}

static int parse_flags(int argc, char **argv, occ_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("occupancy", &seen, longs, c, "set")) != WS_EXIT_OK) break;
    if (c == 'h') {
      printf(occupancy_help, ws_cli_gemmopt_help, ws_cli_gpuopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("occupancy", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("occupancy", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc == WS_EXIT_OK && optind < argc)
    return ws_cli_usage_error("occupancy", "unexpected argument '%s'", argv[optind]);
  return rc == WS_EXIT_OK ? check_flags(o) : rc;
}

/* ---- the CTA's resources ------------------------------------------------------------------------ */

typedef struct cta {
  uint32_t threads, regs, smem; /* smem: static + dynamic */
  char what[4400];              /* the kernel the registers came from ("" when given) */
} cta;

static ws_status from_kernel(ws_ctx *ctx, const occ_opts *o, cta *c) {
  char path[4096];
  snprintf(path, sizeof path, "%s", o->kernel);
  char *colon = strrchr(path, ':'), *name = NULL;
  if (colon && access(path, F_OK) != 0) *colon = '\0', name = colon + 1;
  ws_program *prog = NULL;
  const ws_kernel *k = NULL;
  ws_status st = ws_cli_load_program(ctx, path, &prog);
  if (st == WS_OK) st = ws_cli_pick_kernel(ctx, prog, name, path, &k);
  if (st == WS_OK) {
    c->regs = k->regs_per_thread;
    c->smem += k->shared_size_bytes;
    snprintf(c->what, sizeof c->what, "kernel %s of %s", k->name, path);
  }
  ws_program_destroy(prog);
  return st;
}

static ws_status from_gemm(ws_ctx *ctx, const occ_opts *o, cta *c) {
  ws_gemmgen_cfg g;
  uint32_t smem = 0;
  ws_status st = ws_cli_gemmopt_resolve(ctx, &o->gemm, &g);
  if (st == WS_OK) st = ws_gemmgen_resources(ctx, &g, &c->regs, &smem);
  if (st != WS_OK) return st;
  c->threads = g.threads;
  c->smem += smem;
  char d[128];
  ws_gemmgen_describe(&g, d, sizeof d);
  snprintf(c->what, sizeof c->what, "generated GEMM %s", d);
  return WS_OK;
}

static ws_status resolve_cta(ws_ctx *ctx, const occ_opts *o, cta *c) {
  *c = (cta){.threads = o->threads, .regs = o->has_regs ? o->regs : 32, .smem = o->smem};
  if (o->kernel) return from_kernel(ctx, o, c);
  return o->has_gemm ? from_gemm(ctx, o, c) : WS_OK;
}

/* ---- printing ----------------------------------------------------------------------------------- */

/* A percentage with two decimals, trailing zeros dropped down to one:
 * 50.0, 12.5, 6.25 (one warp of 16), 1.56 (one of 64). */
static void pct_text(double pct, char *buf, size_t bytes) {
  snprintf(buf, bytes, "%.2f", pct);
  size_t n = strlen(buf);
  if (n >= 2 && buf[n - 1] == '0' && buf[n - 3] == '.') buf[n - 1] = '\0';
}

static void print_header(const ws_gpu_cfg *g, const cta *c, const ws_occupancy *r) {
  printf("GPU: %s, %s (compute capability %u.%u): per SM %u warps, %u CTAs, %u registers, %u B shared "
         "memory\n",
         g->gpu.name, g->gpu.full_name, g->gpu.cc_major, g->gpu.cc_minor, g->sm.max_warps_per_sm,
         g->sm.max_ctas_per_sm, g->regfile.regs_per_sm, g->smem.per_sm_bytes);
  printf("CTA: %u threads (%u warp%s), %u registers per thread (%u per warp, allocated in units of %u),\n",
         c->threads, r->warps_per_cta, r->warps_per_cta == 1 ? "" : "s", c->regs, r->regs_per_warp,
         g->regfile.alloc_unit_regs);
  printf("     %u B shared memory (%u B allocated with the %u B reserve, in units of %u B)\n", c->smem,
         r->smem_per_cta_bytes, g->smem.reserved_per_block_bytes, g->smem.alloc_unit_bytes);
  if (c->what[0]) printf("     registers and static shared memory of the %s\n", c->what);
  printf("\n");
}

static void print_limits(const ws_occupancy *r) {
  printf("%-16s %12s\n", "limit", "CTAs per SM");
  for (int l = 0; l < WS_OCC_COUNT; l++) {
    char v[16];
    if (r->ctas_by[l] == UINT32_MAX)
      snprintf(v, sizeof v, "-");
    else
      snprintf(v, sizeof v, "%u", r->ctas_by[l]);
    printf("%-16s %12s%s\n", ws_occupancy_limiter_name((ws_occ_limiter)l), v,
           (ws_occ_limiter)l == r->limiter ? "   <- limiter" : "");
  }
}

/* why: the launch's refusal when the CTA does not fit. */
static void print_result(const ws_gpu_cfg *g, const ws_occupancy *r, const char *why) {
  if (r->ctas_per_sm == 0) {
    printf("\noccupancy: 0 CTAs per SM: %s\n", why);
    return;
  }
  char pct[32];
  pct_text(100.0 * r->occupancy, pct, sizeof pct);
  printf("\noccupancy: %u CTA%s per SM, %u of %u warps active: %s %%, limited by %s\n", r->ctas_per_sm,
         r->ctas_per_sm == 1 ? "" : "s", r->active_warps_per_sm, g->sm.max_warps_per_sm, pct,
         ws_occupancy_limiter_name(r->limiter));
}

static bool same_row(const ws_occ_point *a, const ws_occ_point *b) {
  return a->occ.ctas_per_sm == b->occ.ctas_per_sm &&
         a->occ.active_warps_per_sm == b->occ.active_warps_per_sm && a->occ.limiter == b->occ.limiter;
}

/* One row per run of equal results; the run holding `mine` is marked. */
static void print_curve(const ws_gpu_cfg *g, ws_occ_axis axis, const ws_occ_point *p, size_t n,
                        uint32_t mine) {
  static const char *const units[WS_OCC_AXIS_COUNT] = {"threads", "registers", "bytes"};
  printf("\noccupancy against %s per %s\n", ws_occupancy_axis_name(axis),
         axis == WS_OCC_AXIS_REGS ? "thread" : "CTA");
  printf("%-15s %6s %6s %10s  %s\n", units[axis], "CTAs", "warps", "occupancy", "limiter");
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && same_row(&p[i], &p[j + 1])) j++;
    char range[32];
    if (i == j)
      snprintf(range, sizeof range, "%u", p[i].x);
    else
      snprintf(range, sizeof range, "%u-%u", p[i].x, p[j].x);
    const ws_occupancy *o = &p[i].occ;
    bool here = mine >= p[i].x && mine <= p[j].x;
    char pct[32];
    pct_text(g->sm.max_warps_per_sm ? 100.0 * o->active_warps_per_sm / g->sm.max_warps_per_sm : 0.0, pct,
             sizeof pct);
    printf("%-15s %6u %6u %8s %%  %s%s\n", range, o->ctas_per_sm, o->active_warps_per_sm, pct,
           o->ctas_per_sm ? ws_occupancy_limiter_name(o->limiter) : "does not fit",
           here ? "   <- this CTA" : "");
    i = j + 1;
  }
}

/* ---- the chart ---------------------------------------------------------------------------------- */

typedef struct curve {
  ws_occ_point *p;
  size_t n;
  double *x, *y;
} curve;

static ws_status write_chart(ws_ctx *ctx, const occ_opts *o, const ws_gpu_cfg *g, const cta *c,
                             const ws_occupancy *r, curve cv[WS_OCC_AXIS_COUNT]) {
  static const char *const titles[] = {"threads per CTA", "registers per thread", "shared memory per CTA"};
  static const char *const xlabels[] = {"threads", "registers", "bytes"};
  const uint32_t mine[] = {c->threads, c->regs, c->smem};
  ws_chart_series s[WS_OCC_AXIS_COUNT];
  ws_chart_panel pn[WS_OCC_AXIS_COUNT];
  char label[WS_OCC_AXIS_COUNT][48];
  for (int a = 0; a < WS_OCC_AXIS_COUNT; a++) {
    for (size_t i = 0; i < cv[a].n; i++)
      cv[a].x[i] = cv[a].p[i].x, cv[a].y[i] = cv[a].p[i].occ.active_warps_per_sm;
    s[a] = (ws_chart_series){NULL, cv[a].x, cv[a].y, cv[a].n, true};
    double lo = cv[a].n ? cv[a].x[0] : 0, hi = cv[a].n ? cv[a].x[cv[a].n - 1] : 1;
    snprintf(label[a], sizeof label[a], "%u: %u warps", mine[a], r->active_warps_per_sm);
    pn[a] = (ws_chart_panel){titles[a],
                             xlabels[a],
                             "active warps per SM",
                             lo,
                             hi > lo ? hi : lo + 1,
                             0,
                             g->sm.max_warps_per_sm ? g->sm.max_warps_per_sm : 1,
                             &s[a],
                             1,
                             mine[a] <= hi,
                             mine[a],
                             r->active_warps_per_sm,
                             label[a]};
  }
  char title[256], pct[32];
  pct_text(100.0 * r->occupancy, pct, sizeof pct);
  snprintf(title, sizeof title, "Occupancy on %s: %u threads, %u registers, %u B shared: %s %% (%s)",
           g->gpu.name, c->threads, c->regs, c->smem, pct,
           r->ctas_per_sm ? ws_occupancy_limiter_name(r->limiter) : "does not fit");
  ws_chart chart = {title, pn, WS_OCC_AXIS_COUNT, o->width ? o->width : 1500, o->height ? o->height : 480};
  return ws_chart_write(ctx, o->out, &chart);
}

static ws_status curves(ws_ctx *ctx, const occ_opts *o, const ws_gpu_cfg *g, const cta *c,
                        const ws_occupancy *r) {
  curve cv[WS_OCC_AXIS_COUNT] = {{0}};
  const uint32_t mine[] = {c->threads, c->regs, c->smem};
  ws_status st = WS_OK;
  for (int a = 0; a < WS_OCC_AXIS_COUNT && st == WS_OK; a++) {
    st = ws_occupancy_curve(ctx, g, (ws_occ_axis)a, c->threads, c->regs, c->smem, &cv[a].p, &cv[a].n);
    if (st == WS_OK) print_curve(g, (ws_occ_axis)a, cv[a].p, cv[a].n, mine[a]);
    cv[a].x = malloc((cv[a].n ? cv[a].n : 1) * sizeof(double));
    cv[a].y = malloc((cv[a].n ? cv[a].n : 1) * sizeof(double));
    if (st == WS_OK && (!cv[a].x || !cv[a].y))
      st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the chart");
  }
  if (st == WS_OK && o->out) st = write_chart(ctx, o, g, c, r, cv);
  for (int a = 0; a < WS_OCC_AXIS_COUNT; a++) free(cv[a].p), free(cv[a].x), free(cv[a].y);
  return st;
}

int ws_cli_occupancy(int argc, char **argv) {
  occ_opts o = {0};
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg g;
  cta c;
  ws_occupancy r = {0};
  char why[1024] = "";
  ws_status st = ws_cli_gpuopt_resolve(ctx, &o.gpu, &g);
  if (st == WS_OK) st = resolve_cta(ctx, &o, &c);
  /* a CTA that does not fit is a result (0 CTAs and the launch's refusal), not a failure */
  if (st == WS_OK && ws_occupancy_compute(ctx, &g, c.threads, c.regs, c.smem, &r) != WS_OK)
    snprintf(why, sizeof why, "%s", ws_errmsg(ctx));
  if (st == WS_OK) {
    print_header(&g, &c, &r);
    print_limits(&r);
    print_result(&g, &r, why);
    st = curves(ctx, &o, &g, &c, &r);
  }
  rc = ws_cli_exit_code("occupancy", ctx, st);
  if (st == WS_OK && o.out) fprintf(stderr, "warpscope: wrote %s\n", o.out);
  ws_ctx_destroy(ctx);
  return rc;
}
