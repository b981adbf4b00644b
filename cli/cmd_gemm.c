/* cmd_gemm.c - `warpscope gemm` and `warpscope attention`: one launch of a
 * generated GEMM (or one attention: three naive launches or one fused
 * flash kernel) in timing mode, checked against the host reference, with
 * the performance report of each launch and a one-line summary.
 *
 * Design: both commands build an explore point (explore/point.h) and run
 * it with ws_point_run, so a command line and a sweep's row of the same
 * point give the same numbers; the report is printed from the point's
 * launch hook, while the device still holds the launch's counters, and the
 * watch options (limits, Ctrl-C) reach the device through its device hook.
 * The flags are checked before anything runs; a configuration the
 * generator or the device refuses is a bad command line (exit 2, with the
 * generator's reason), a result outside the reference's bound a failed run
 * (exit 1). What the simulation cost the host goes to stderr at the end,
 * so stdout stays the same bytes from run to run. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "explore/point.h"
#include "sim/host/report.h"

static const char gemm_help[] =
    "usage: warpscope gemm --variant V (--size N | --m M --n N --k K) [tile flags] [--gpu NAME]\n\n"
    "Runs one launch of the generated GEMM C = A * B (docs/kernels.md) on a fresh device of\n"
    "the preset in timing mode, A and B uniform in [-1, 1) from --seed, checks C against\n"
    "OpenBLAS within the generator's error bound, and prints the launch's performance\n"
    "report and a summary line: cycles, GFLOP/s, the check (docs/explore.md); then, on\n"
    "stderr, what simulating it cost: wall and CPU seconds, warp instructions per CPU\n"
    "second, and whether the run was sampled or full.\n\n"
    "  --variant V         the ladder step: naive, coalesced, smem, blocktile1d, blocktile2d,\n"
    "                      vectorized, warptile, async, mma\n"
    "  --m, --n, --k N     the shape, each 1..65536 (C is M x N, the sum runs over K)\n"
    "  --size N            M = N = K = N (a --m, --n or --k given as well wins)\n"
    "  --source S          generated (default) or cuda: the same step written in CUDA C\n"
    "                      (models/cuda/sgemm_ladder.cu, embedded), compiled by clang for the\n"
    "                      tiles and launched alike (docs/cuda.md)\n"
    "%s"
    "  --seed N            the inputs' generator (default 1)\n"
    "%s%s%s"
    "  -h, --help          this text\n"
    "Exit status: 0 when the check passes, 1 when it fails or the run stops at a limit (or\n"
    "clang is missing for --source cuda), 2 on a usage error or a configuration the\n"
    "generator or the GPU refuses (the reason is printed), 130 when interrupted (Ctrl-C).\n";

static const char attention_help[] =
    "usage: warpscope attention [--attn naive|flash] [--seq T] [--heads H] [--dhead D] [--br N --bc N]\n\n"
    "Runs multi-head self-attention softmax(Q K^T / sqrt(D)) V (docs/kernels.md) on a fresh\n"
    "device of the preset in timing mode: naive as three kernels through device memory,\n"
    "flash as one fused kernel. Q, K and V are uniform in [-2, 2) from --seed; the output\n"
    "is checked against a double-precision reference within its error bound. Prints each\n"
    "launch's performance report and a summary line (docs/explore.md), then on stderr\n"
    "what simulating it cost (wall and CPU seconds, warp instructions per CPU second).\n\n"
    "  --attn naive|flash  the kernels (default flash)\n"
    "  --seq T             tokens (default 64)\n"
    "  --heads H           heads (default 4)\n"
    "  --dhead D           dimension per head (default 16; flash: a power of two, 4..64)\n"
    "  --br N, --bc N      flash's tiles: Q rows per CTA (a multiple of 32, default 64) and\n"
    "                      K/V rows per step (default: the largest power of two up to 64\n"
    "                      whose kernel needs at most 255 registers: 64 up to dhead 32, 16\n"
    "                      at dhead 64)\n"
    "  --seed N            the inputs' generator (default 1)\n"
    "%s%s%s"
    "  -h, --help          this text\n"
    "Exit status: 0 when the check passes, 1 when it fails or the run stops at a limit, 2\n"
    "on a usage error or a configuration the generator or the GPU refuses (the reason is\n"
    "printed), 130 when interrupted (Ctrl-C).\n";

typedef struct point_opts {
  const char *cmd;
  ws_cli_gpuopt gpu;
  ws_cli_gemmopt gemm;
  ws_cli_watchopt watch;
  uint32_t dims[3]; /* m n k, or seq heads dhead; 0: not given */
  uint32_t size, br, bc;
  const char *attn;
  bool cuda; /* --source cuda */
  uint64_t seed;
  uint32_t sample_waves, sample_rounds; /* 0, 0: every instruction timed */
  bool sample_exact;                    /* --sample=exact */
  uint32_t keep_l2;                     /* --l2 keep */
  /* what the launches reported, for the cost: also those a limit stopped */
  uint64_t launches, warp_insns;
  bool sampled;
} point_opts;

enum { OPT_M = 0x300, OPT_N, OPT_K, OPT_SIZE, OPT_SEED, OPT_VARIANT, OPT_ATTN, OPT_BR, OPT_BC, OPT_SOURCE };

#define COMMON_LONGS                                                                                         \
  {"gpu", required_argument, NULL, 'G'}, {"set", required_argument, NULL, 'S'},                              \
      {"seed", required_argument, NULL, OPT_SEED}, {"help", no_argument, NULL, 'h'}, WS_CLI_WATCHOPT_LONGS,  \
      WS_CLI_SAMPLEOPT_LONGS

static const struct option gemm_longs[] = {{"m", required_argument, NULL, OPT_M},
                                           {"n", required_argument, NULL, OPT_N},
                                           {"k", required_argument, NULL, OPT_K},
                                           {"size", required_argument, NULL, OPT_SIZE},
                                           {"variant", required_argument, NULL, OPT_VARIANT},
                                           {"source", required_argument, NULL, OPT_SOURCE},
                                           WS_CLI_GEMMOPT_LONGS,
                                           COMMON_LONGS,
                                           {NULL, 0, NULL, 0}};

static const struct option attention_longs[] = {{"seq", required_argument, NULL, OPT_M},
                                                {"heads", required_argument, NULL, OPT_N},
                                                {"dhead", required_argument, NULL, OPT_K},
                                                {"attn", required_argument, NULL, OPT_ATTN},
                                                {"br", required_argument, NULL, OPT_BR},
                                                {"bc", required_argument, NULL, OPT_BC},
                                                COMMON_LONGS,
                                                {NULL, 0, NULL, 0}};

/* ---- flags -------------------------------------------------------------------------------------- */

static bool is_gemm(const point_opts *o) { return strcmp(o->cmd, "gemm") == 0; }

static const char *dim_flag(const point_opts *o, int i) {
  static const char *const gemm[] = {"--m", "--n", "--k"}, *const attn[] = {"--seq", "--heads", "--dhead"};
  return is_gemm(o) ? gemm[i] : attn[i];
}

/* A GEMM side is bounded by the generator's limit; attention's sizes by
 * what fits 32-bit indices, which the point itself judges. */
static int parse_count(const point_opts *o, const char *flag, const char *arg, uint32_t *out) {
  uint64_t max = is_gemm(o) ? WS_GEMMGEN_DIM_MAX : UINT32_MAX, v;
  if (!ws_cli_parse_u64(arg, max, &v) || v == 0)
    return ws_cli_usage_error(o->cmd, "%s expects a whole number from 1 to %" PRIu64 ", found '%s'", flag,
                              max, arg);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static int take_common(point_opts *o, int c, const char *arg) {
  bool taken = false;
  int rc = ws_cli_watchopt_take(o->cmd, &o->watch, c, arg, &taken);
  if (!taken)
    rc = ws_cli_sampleopt_take(o->cmd, &o->sample_waves, &o->sample_rounds, &o->sample_exact, c, arg, &taken);
  if (!taken) rc = ws_cli_l2opt_take(o->cmd, &o->keep_l2, c, arg, &taken);
  if (taken) return rc;
  switch (c) {
  case 'G': return ws_cli_gpuopt_set_gpu(o->cmd, &o->gpu, arg);
  case 'S': return ws_cli_gpuopt_add_set(o->cmd, &o->gpu, arg);
  case OPT_SEED:
    if (!ws_cli_parse_u64(arg, UINT64_MAX, &o->seed))
      return ws_cli_usage_error(o->cmd, "--seed expects a whole number, found '%s'", arg);
    return WS_EXIT_OK;
  default: return ws_cli_gemmopt_take(o->cmd, &o->gemm, c, arg);
  }
}

static int take(point_opts *o, int c, const char *arg) {
  switch (c) {
  case OPT_M:
  case OPT_N:
  case OPT_K: return parse_count(o, dim_flag(o, c - OPT_M), arg, &o->dims[c - OPT_M]);
  case OPT_SIZE: return parse_count(o, "--size", arg, &o->size);
  case OPT_VARIANT: o->gemm.variant = arg; return WS_EXIT_OK;
  case OPT_SOURCE:
    if (strcmp(arg, "generated") != 0 && strcmp(arg, "cuda") != 0)
      return ws_cli_usage_error(o->cmd, "--source expects generated or cuda, found '%s'", arg);
    o->cuda = strcmp(arg, "cuda") == 0;
    return WS_EXIT_OK;
  case OPT_ATTN:
    if (strcmp(arg, "naive") != 0 && strcmp(arg, "flash") != 0)
      return ws_cli_usage_error(o->cmd, "--attn expects naive or flash, found '%s'", arg);
    o->attn = arg;
    return WS_EXIT_OK;
  case OPT_BR: return parse_count(o, "--br", arg, &o->br);
  case OPT_BC: return parse_count(o, "--bc", arg, &o->bc);
  default: return take_common(o, c, arg);
  }
}

/* A point carries names and overrides in fixed fields (it is plain data):
 * what does not fit is a usage error rather than cut short. */
static int check_fits(const point_opts *o) {
  if (o->gpu.gpu && strlen(o->gpu.gpu) >= WS_POINT_NAME_MAX)
    return ws_cli_usage_error(o->cmd, "--gpu: a name or path of at most %d characters",
                              WS_POINT_NAME_MAX - 1);
  if (o->gpu.nsets > WS_POINT_MAX_SETS)
    return ws_cli_usage_error(o->cmd, "at most %d --set overrides", WS_POINT_MAX_SETS);
  for (int i = 0; i < o->gpu.nsets; i++)
    if (strlen(o->gpu.sets[i]) >= WS_POINT_SET_MAX)
      return ws_cli_usage_error(o->cmd, "--set %s: at most %d characters", o->gpu.sets[i],
                                WS_POINT_SET_MAX - 1);
  return WS_EXIT_OK;
}

static int check_flags(const point_opts *o) {
  int rc = check_fits(o);
  if (rc != WS_EXIT_OK || !is_gemm(o)) {
    if (rc == WS_EXIT_OK && (o->br || o->bc) && o->attn && strcmp(o->attn, "naive") == 0)
      return ws_cli_usage_error(o->cmd, "--br and --bc are flash's tiles: naive attention takes none");
    return rc;
  }
  if (!o->gemm.variant)
    return ws_cli_usage_error(o->cmd,
                              "--variant V is needed (naive, coalesced, smem, blocktile1d, blocktile2d, "
                              "vectorized, warptile, async, mma)");
  for (int i = 0; i < 3; i++)
    if (!o->dims[i] && !o->size)
      return ws_cli_usage_error(o->cmd, "%s is needed (or --size)", dim_flag(o, i));
  return ws_cli_gemmopt_check(o->cmd, "--variant", &o->gemm);
}

/* -1: --help was printed. */
static int parse_flags(int argc, char **argv, point_opts *o) {
  const struct option *longs = is_gemm(o) ? gemm_longs : attention_longs;
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once(o->cmd, &seen, longs, c, "set")) != WS_EXIT_OK) break;
    if (c == 'h') {
      if (is_gemm(o))
        printf(gemm_help, ws_cli_gemmopt_help, ws_cli_gpuopt_help, ws_cli_sampleopt_help,
               ws_cli_watchopt_help);
      else
        printf(attention_help, ws_cli_gpuopt_help, ws_cli_sampleopt_help, ws_cli_watchopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error(o->cmd, "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error(o->cmd, "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc == WS_EXIT_OK && optind < argc)
    return ws_cli_usage_error(o->cmd, "unexpected argument '%s'", argv[optind]);
  return rc == WS_EXIT_OK ? check_flags(o) : rc;
}

/* ---- the point ---------------------------------------------------------------------------------- */

static void fill_common(const point_opts *o, ws_point *p) {
  snprintf(p->gpu, sizeof p->gpu, "%s", o->gpu.gpu ? o->gpu.gpu : "a100");
  for (int i = 0; i < o->gpu.nsets; i++) snprintf(p->sets[i], sizeof p->sets[i], "%s", o->gpu.sets[i]);
  p->nsets = (uint32_t)o->gpu.nsets;
  p->seed = o->seed;
  p->sample_waves = o->sample_waves;
  p->sample_rounds = o->sample_rounds;
  p->keep_l2 = o->keep_l2;
}

/* The tiles as the CLI resolves them (a changed tile implies --threads),
 * so the point runs exactly what `warpscope kernel gemm` prints. */
static ws_status build_gemm(ws_ctx *ctx, const point_opts *o, ws_point *p) {
  ws_gemmgen_cfg g;
  ws_status st = ws_cli_gemmopt_resolve(ctx, &o->gemm, &g);
  if (st != WS_OK) return st;
  p->kind = WS_POINT_GEMM;
  p->source = o->cuda ? WS_POINT_SOURCE_CUDA : WS_POINT_SOURCE_GENERATED;
  snprintf(p->variant, sizeof p->variant, "%s", ws_gemmgen_variant_name(g.variant));
  uint32_t *dims[3] = {&p->m, &p->n, &p->k};
  for (int i = 0; i < 3; i++) *dims[i] = o->dims[i] ? o->dims[i] : o->size;
  p->bm = g.bm, p->bn = g.bn, p->threads = g.threads;
  if (ws_gemmgen_uses_k_tiles(g.variant)) p->bk = g.bk;
  if (ws_gemmgen_uses_thread_tile(g.variant)) p->tm = g.tm, p->tn = g.tn;
  if (ws_gemmgen_uses_warp_tile(g.variant)) p->wm = g.wm, p->wn = g.wn;
  return WS_OK;
}

static void build_attention(const point_opts *o, ws_point *p) {
  p->kind = WS_POINT_ATTENTION;
  snprintf(p->attn, sizeof p->attn, "%s", o->attn ? o->attn : "flash");
  p->seq = o->dims[0] ? o->dims[0] : 64; /* TinyViT32's attention: 64 tokens, 4 heads of 16 */
  p->heads = o->dims[1] ? o->dims[1] : 4;
  p->dhead = o->dims[2] ? o->dims[2] : 16;
  p->br = o->br, p->bc = o->bc;
}

static void on_device(void *user, ws_device *dev) {
  ws_cli_watchopt_apply(&((point_opts *)user)->watch, dev);
}

static void on_launch(void *user, const ws_device *dev, const char *kernel, ws_dim3 grid, ws_dim3 block,
                      const ws_launch_stats *ls) {
  point_opts *o = user;
  o->launches++;
  o->warp_insns += ls->warp_insns;
  o->sampled |= ls->sampled;
  ws_report_print(stdout, ws_device_cfg(dev), kernel, grid, block, ls, ws_device_stats(dev));
  printf("\n");
}

static void print_summary(const point_opts *o, const ws_point *p, const ws_point_result *r) {
  char what[160];
  ws_point_describe(p, what, sizeof what);
  if (is_gemm(o))
    printf("gemm M=%u N=%u K=%u %s on %s: ", p->m, p->n, p->k, what, p->gpu);
  else
    printf("attention %s seq=%u heads=%u dhead=%u on %s: %" PRIu64 " launch%s, ", what, p->seq, p->heads,
           p->dhead, p->gpu, r->launches, r->launches == 1 ? "" : "es");
  printf("%" PRIu64 " cycles (%.3f us), %.1f GFLOP/s, check %s (max |err| %.3g)\n", r->cycles, r->time_us,
         r->gflops, r->check_pass ? "passed" : "FAILED", r->max_abs_err);
  if (r->sampled)
    printf("  sampled: estimated from %.1f%% of the warp instructions timed (%" PRIu64 " of %" PRIu64
           " CTAs timed), cycles +- %" PRIu64 " (%.2f%%) at 95%% confidence\n",
           r->warp_insns ? 100.0 * (double)r->timed_warp_insns / (double)r->warp_insns : 100.0, r->timed_ctas,
           r->ctas, r->cycles_ci95, r->cycles ? 100.0 * (double)r->cycles_ci95 / (double)r->cycles : 0);
  else if (p->sample_waves || p->sample_rounds)
    printf("  not sampled: too few waves to skip and no main loop long enough to skip in, so every "
           "instruction was timed (docs/explore.md)\n");
  if (r->computed_ctas < r->ctas)
    printf("  checked %" PRIu64 " of %" PRIu64 " outputs: those of the %" PRIu64 " of %" PRIu64
           " CTAs computed in full; the others ran only what their timing depends on (--sample=exact "
           "computes all)\n",
           r->checked_outputs, r->outputs, r->computed_ctas, r->ctas);
  if (p->keep_l2)
    printf("  L2 kept between the launches: DRAM %" PRIu64 " B read, %" PRIu64
           " B written, the lines left dirty after the last launch included\n",
           r->dram_read_bytes, r->dram_write_bytes);
}

static int run_point(point_opts *o, const ws_point *p) {
  ws_ctx *ctx = ws_ctx_create();
  /* one point at a time: its launches may use every core */
  ws_point_opts po = {.on_device = on_device,
                      .on_launch = on_launch,
                      .user = o,
                      .sim_threads = ws_cli_sim_threads(o->watch.sim_threads),
                      .sample_exact = o->sample_exact};
  ws_point_result r;
  ws_cost_clock clock;
  ws_cost_start(&clock, WS_COST_CPU_PROCESS); /* a sampled loop's gap threads count too */
  ws_status st = ws_point_run(ctx, p, &po, &r);
  ws_cost cost = ws_cost_read(&clock);
  if (st == WS_OK && r.valid) print_summary(o, p, &r);
  if (o->launches) /* what ran, a launch a limit stopped included */
    ws_cli_print_cost(cost, o->warp_insns, o->sampled);
  int rc = WS_EXIT_OK;
  if (st != WS_OK)
    rc = ws_cli_error("%s", ws_errmsg(ctx));
  else if (!r.valid)
    rc = ws_cli_usage_error(o->cmd, "%s", r.why);
  else if (!r.check_pass)
    rc = ws_cli_error("check failed: %s", r.why);
  ws_ctx_destroy(ctx);
  return rc;
}

static int run_command(const char *cmd, int argc, char **argv) {
  point_opts o = {.cmd = cmd, .seed = 1};
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  ws_point p;
  memset(&p, 0, sizeof p);
  fill_common(&o, &p);
  if (is_gemm(&o)) {
    ws_ctx *ctx = ws_ctx_create();
    ws_status st = build_gemm(ctx, &o, &p);
    rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    if (rc != WS_EXIT_OK) return rc;
  } else {
    build_attention(&o, &p);
  }
  return run_point(&o, &p);
}

int ws_cli_gemm(int argc, char **argv) { return run_command("gemm", argc, argv); }

int ws_cli_attention(int argc, char **argv) { return run_command("attention", argc, argv); }
