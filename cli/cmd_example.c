/* cmd_example.c - `warpscope example NAME`: run a shipped kernel and print
 * its check against the host reference. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "models/runs/example.h"

static const char example_help[] =
    "usage: warpscope example NAME [--m M] [--n N] [--k K] [--seed S] [--gpu NAME|FILE.ini]\n"
    "                         [--set SECTION.KEY=VALUE]... [--report] [--stats-json FILE]\n"
    "                         [--functional] [--check race|init|sync]\n"
    "       warpscope example --list\n\n"
    "Runs a shipped example kernel on the simulated GPU and checks the result:\n"
    "  saxpy   y = a*x + y (seed 002's kernel), against the closed form\n"
    "  reduce  warp-shuffle sum reduction, against the closed form\n"
    "  sgemm   shared-memory tiled fp32 GEMM, against OpenBLAS cblas_sgemm\n"
    "  mma     tensor-core GEMM (HMMA m16n8k16), against OpenBLAS on f16-rounded inputs\n\n"
    "  --m, --n, --k N   problem size (GEMMs use all three; saxpy and reduce use --n)\n"
    "  --seed S          seed of the random GEMM inputs (default 1)\n"
    "  --list            list the examples\n"
    "%s%s"
    "  -h, --help        this text\n"
    "Exit status: 0 when the check passes, 1 when it fails or the run fails, 130 when\n"
    "interrupted (Ctrl-C).\n";

static void print_check(const ws_example_check *c, const ws_gpu_cfg *cfg) {
  printf("%s\n", c->title);
  printf("  launch:    %s\n", c->launch);
  printf("  executed:  %" PRIu64 " CTAs, %" PRIu64 " warp instructions, %" PRIu64 " thread instructions\n",
         c->stats.ctas, c->stats.warp_insns, c->stats.thread_insns);
  if (c->stats.cycles)
    printf("  timing:    %" PRIu64 " cycles on %s = %.3f us at %u MHz\n", c->stats.cycles, cfg->gpu.name,
           (double)c->stats.cycles / cfg->gpu.core_clock_mhz, cfg->gpu.core_clock_mhz);
  printf("  reference: %s\n", c->reference);
  printf("  tolerance: %s\n", c->bound_desc);
  printf("  result:    %" PRIu64 " outputs, max |error| %.3g, worst error/bound %.3g, %" PRIu64
         " outside -> %s\n",
         c->nvalues, c->max_abs_err, c->worst_ratio, c->nbad, c->pass ? "PASS" : "FAIL");
}

static int parse_size(const char *flag, const char *text, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(text, UINT32_MAX, &v))
    return ws_cli_usage_error("example", "%s expects a non-negative integer, found '%s'", flag, text);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static int parse_flags(int argc, char **argv, ws_example_shape *s, bool *sized, ws_cli_gpuopt *gpu,
                       ws_cli_runopt *run) {
  static const struct option longs[] = {{"m", required_argument, NULL, 'm'},
                                        {"n", required_argument, NULL, 'n'},
                                        {"k", required_argument, NULL, 'k'},
                                        {"seed", required_argument, NULL, 's'},
                                        {"gpu", required_argument, NULL, 'G'},
                                        {"set", required_argument, NULL, 'S'},
                                        {"list", no_argument, NULL, 'l'},
                                        {"help", no_argument, NULL, 'h'},
                                        WS_CLI_RUNOPT_LONGS,
                                        {NULL, 0, NULL, 0}};
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("example", &seen, longs, c, "set,check")) != WS_EXIT_OK) break;
    switch (c) {
    case 'm':
      rc = parse_size("--m", optarg, &s->m);
      sized[0] = true;
      break;
    case 'n':
      rc = parse_size("--n", optarg, &s->n);
      sized[1] = true;
      break;
    case 'k':
      rc = parse_size("--k", optarg, &s->k);
      sized[2] = true;
      break;
    case 's':
      if (!ws_cli_parse_u64(optarg, UINT64_MAX, &s->seed))
        rc = ws_cli_usage_error("example", "--seed expects a non-negative integer, found '%s'", optarg);
      break;
    case 'G': rc = ws_cli_gpuopt_set_gpu("example", gpu, optarg); break;
    case 'S': rc = ws_cli_gpuopt_add_set("example", gpu, optarg); break;
    case 'l':
      for (int i = 0; ws_example_names[i]; i++) puts(ws_example_names[i]);
      return -1;
    case 'h': printf(example_help, ws_cli_gpuopt_help, ws_cli_runopt_help); return -1;
    case ':': return ws_cli_usage_error("example", "option '%s' needs a value", argv[optind - 1]);
    default: {
      bool taken = false;
      rc = ws_cli_runopt_take("example", run, c, optarg, &taken);
      if (!taken) return ws_cli_usage_error("example", "unknown option '%s'", argv[optind - 1]);
    }
    }
  }
  return rc == WS_EXIT_OK ? ws_cli_runopt_check("example", run) : rc;
}

static int example(int argc, char **argv, ws_cli_runopt *run) {
  ws_example_shape s = {0, 0, 0, 1};
  bool sized[3] = {false, false, false};
  ws_cli_gpuopt gpu;
  memset(&gpu, 0, sizeof gpu);
  int rc = parse_flags(argc, argv, &s, sized, &gpu, run);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  if (optind != argc - 1)
    return ws_cli_usage_error("example", "expected one example name (saxpy, reduce, sgemm, mma)");
  const char *name = argv[optind];
  bool known = false;
  for (int i = 0; ws_example_names[i]; i++) known |= strcmp(ws_example_names[i], name) == 0;
  if (!known)
    return ws_cli_usage_error("example", "unknown example '%s' (expected saxpy, reduce, sgemm or mma)", name);
  if ((sized[0] || sized[2]) && !ws_example_uses_mk(name))
    return ws_cli_usage_error("example", "%s takes --n only, not --%s", name, sized[0] ? "m" : "k");
  ws_example_shape def = ws_example_default_shape(name);
  if (!sized[0]) s.m = def.m;
  if (!sized[1]) s.n = def.n;
  if (!sized[2]) s.k = def.k;
  ws_ctx *ctx = ws_ctx_create();
  if (ws_example_check_shape(ctx, name, &s) != WS_OK) {
    rc = ws_cli_usage_error("example", "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    return rc;
  }
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_example_check check;
  ws_status st = ws_cli_gpuopt_resolve(ctx, &gpu, &cfg);
  bool usage =
      st == WS_ERR_USAGE || (st == WS_OK && ws_cli_traceopt_check_gpu(ctx, &run->trace, &cfg) != WS_OK);
  if (usage) st = WS_ERR_INVALID;
  if (st == WS_OK) st = ws_device_create(ctx, &cfg, &dev);
  if (st == WS_OK) st = ws_cli_runopt_apply(ctx, run, dev);
  if (st == WS_OK) st = ws_example_run(dev, name, &s, &check);
  if (st == WS_OK) print_check(&check, &cfg);
  if (st == WS_OK) st = ws_cli_trace_regions(&run->rec, check.regions, check.nregions);
  if (st == WS_OK)
    st = ws_cli_runopt_finish(ctx, run, dev, check.kernel, check.grid, check.block, &check.stats, NULL);
  if (st == WS_OK) ws_cli_runopt_print_cost(run, &check.stats);
  rc = usage         ? ws_cli_usage_error("example", "%s", ws_errmsg(ctx))
       : st != WS_OK ? ws_cli_error("%s", ws_errmsg(ctx))
       : check.pass  ? WS_EXIT_OK
                     : WS_EXIT_FAIL;
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return rc;
}

int ws_cli_example(int argc, char **argv) {
  ws_cli_runopt run;
  memset(&run, 0, sizeof run);
  int rc = example(argc, argv, &run);
  ws_cli_runopt_free(&run);
  return rc;
}
