/* cmd_sweep.c - `warpscope sweep gemm|attention|kernel`: every point of a
 * parameter space simulated, checked (where a reference exists) and measured, in parallel on local
 * cores and across the ranks of an MPI job, into CSV and JSON, with the
 * best point, the Pareto front and the refused points printed.
 *
 * Design: flag parsing and printing only. The space (explore/space.h)
 * expands the flags, the engine (explore/sweep.h) runs the points and
 * writes the outputs, the ranks (explore/ranks.h) split the work: every
 * rank runs the indices i with i mod ranks == rank, sends its records to
 * rank 0 as raw structs (the ranks run the same binary), and rank 0 adopts
 * them and writes the one output a single process would have written. */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "explore/kspace.h"
#include "explore/point.h"
#include "explore/ranks.h"
#include "explore/record.h"
#include "explore/space.h"
#include "explore/sweep.h"

static const char sweep_help[] =
    "usage: warpscope sweep gemm [--gpu LIST] [--m LIST --n LIST --k LIST] [--variant LIST]\n"
    "                            [--bm LIST ... --threads LIST] [--seed LIST] [OPTIONS]\n"
    "       warpscope sweep attention [--gpu LIST] [--seq LIST --heads LIST --dhead LIST]\n"
    "                            [--attn LIST] [--br LIST --bc LIST] [--seed LIST] [OPTIONS]\n"
    "       warpscope sweep kernel FILE.cu [--kernel NAME] -D NAME=LIST... --grid EXPR[,EXPR[,EXPR]]\n"
    "                            --block EXPR[,EXPR[,EXPR]] [--shared EXPR] [--arg NAME=VALUE]...\n"
    "                            [--buf NAME=SPEC]... [--gpu LIST] [OPTIONS]\n\n"
    "Simulates every point of a parameter space in timing mode, checks each against\n"
    "OpenBLAS and writes one record per point (docs/explore.md lists the columns),\n"
    "then prints the best point and the Pareto front over cycles and DRAM bytes of\n"
    "each problem shape (GPU and sizes), and the points that were refused with their\n"
    "reasons; then, on stderr, what simulating cost the host: the total and the slowest\n"
    "points' wall time and warp instructions per CPU second. A LIST is comma-separated values and ranges "
    "START:END[:STEP] (4:8:2 is\n"
    "4,6,8); --variant all and --attn all take every variant. Defaults: --gpu a100;\n"
    "gemm --m/--n/--k 512 --variant all; attention --seq 64 --heads 4 --dhead 16\n"
    "--attn all; tiles: the variant's own.\n\n"
    "A kernel sweep compiles FILE.cu (clang; docs/cuda.md) once per combination of the\n"
    "-D lists and launches the kernel once per point. --grid, --block and --shared are\n"
    "integer expressions over the -D names: + - * / %% ( ) with C semantics,\n"
    "ceil_div(a,b) (or cdiv), min(a,b), max(a,b). --arg and --buf are exec's (the same\n"
    "buffers for every point). A .ptx FILE takes no -D: one point per GPU. There is no\n"
    "reference to check a user's kernel against: its records say \"unchecked\".\n"
    "  -D NAME=LIST        a macro's values (integers and ranges; one -D per name)\n"
    "  --kernel NAME       the kernel to launch (needed when FILE holds several)\n"
    "  --grid, --block     X[,Y[,Z]] expressions; --shared EXPR: dynamic shared bytes\n"
    "  --arg NAME=VALUE    a scalar param, parsed by its declared type\n"
    "  --buf NAME=SPEC     a buffer for a pointer param; SPEC is one of\n" WS_CLI_BUF_SPEC_HELP "\n"
    "  --size LIST         GEMM: M = N = K, each value (instead of --m --n --k)\n"
    "  --set SECTION.KEY=VALUE  a preset override for every point (repeatable)\n"
    "  -o FILE.csv         the records as CSV (default: sweep-gemm.csv, sweep-attention.csv\n"
    "                      or sweep-kernel.csv); rewritten atomically as points finish\n"
    "  --json FILE.json    the records as JSON too\n"
    "  --cost              add what simulating each point cost the host to its record:\n"
    "                      sim_wall_s, sim_cpu_s, sim_warp_insns_per_s (off by default: they\n"
    "                      differ from run to run, and records are otherwise the same bytes\n"
    "                      whoever runs them; a file written with them resumes only with them)\n"
    "  --restart           ignore the records already in the CSV output (default: a\n"
    "                      sweep resumes, simulating only the points it lacks)\n"
    "  -j, --jobs N        points simulated at once (default: one per core)\n"
    "  --sim-threads N     host threads each point's launches run on, 1 to 64 (default: the\n"
    "                      cores the running points leave over); the records are the same\n"
    "  --timeout SECONDS   stop a point's simulation after SECONDS (it is recorded as refused)\n"
    "%s"
    "  -q, --quiet         no progress bar, no summary and no simulation cost\n"
    "  -h, --help          this text\n"
    "Under mpirun (Open MPI) the points are spread over the ranks and rank 0 writes\n"
    "the output, the same bytes one process writes. Ctrl-C stops handing out points,\n"
    "lets the running ones finish and leaves a file the next run resumes.\n"
    "Exit status: 0 when every point ran (refused points included), 1 when a run\n"
    "failed, 2 on a usage error, 130 when interrupted (Ctrl-C: what finished is\n"
    "written, and the same command resumes).\n";

enum { OPT_SIZE = 0x400, OPT_SET, OPT_JSON, OPT_RESTART, OPT_TIMEOUT, OPT_COST, OPT_SIM_THREADS, OPT_PARAM };
enum { OPT_KERNEL = 0x480, OPT_GRID, OPT_BLOCK, OPT_SHARED, OPT_ARG, OPT_BUF }; /* kernel sweeps' */

#define KERNEL_ITEMS_MAX WS_KSPACE_ITEMS_MAX

/* A kernel sweep's flags, as given. */
typedef struct kernel_flags {
  const char *file, *kernel, *grid, *block, *shared;
  const char *defines[WS_POINT_MAX_DEFINES + 1], *args[KERNEL_ITEMS_MAX + 1], *bufs[KERNEL_ITEMS_MAX + 1];
  int ndefines, nargs, nbufs;
  ws_kspace *space; /* built from the flags */
} kernel_flags;

typedef struct sweep_opts {
  ws_space space;
  bool given[WS_SPACE_PARAM_COUNT];
  const char *csv, *json, *size;
  bool restart, quiet, cost;
  bool sample_exact; /* --sample=exact */
  uint32_t jobs;
  uint32_t sim_threads; /* 0: split_cores in explore/sweep.c */
  double timeout_s;
  kernel_flags kf;
} sweep_opts;

/* --gpu, --m ... --seed: one long option per parameter, its code OPT_PARAM + parameter. */
static void param_options(struct option *o) {
  for (int p = 0; p < WS_SPACE_PARAM_COUNT; p++)
    o[p] = (struct option){ws_space_param_name((ws_space_param)p), required_argument, NULL, OPT_PARAM + p};
}

static const struct option fixed_longs[] = {{"size", required_argument, NULL, OPT_SIZE},
                                            {"set", required_argument, NULL, OPT_SET},
                                            {"json", required_argument, NULL, OPT_JSON},
                                            {"restart", no_argument, NULL, OPT_RESTART},
                                            {"cost", no_argument, NULL, OPT_COST},
                                            {"jobs", required_argument, NULL, 'j'},
                                            {"sim-threads", required_argument, NULL, OPT_SIM_THREADS},
                                            {"timeout", required_argument, NULL, OPT_TIMEOUT},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"kernel", required_argument, NULL, OPT_KERNEL},
                                            {"grid", required_argument, NULL, OPT_GRID},
                                            {"block", required_argument, NULL, OPT_BLOCK},
                                            {"shared", required_argument, NULL, OPT_SHARED},
                                            {"arg", required_argument, NULL, OPT_ARG},
                                            {"buf", required_argument, NULL, OPT_BUF},
                                            WS_CLI_SAMPLEOPT_LONGS};
#define NFIXED (sizeof fixed_longs / sizeof fixed_longs[0])

/* ---- flags ------------------------------------------------------------------------------------ */

/* An unknown preset is a mistake on the command line, as for every other
 * command: refused before any point runs, not recorded as refused points. */
static int check_gpus(const ws_space *s) {
  const ws_space_list *l = &s->lists[WS_SPACE_GPU];
  int rc = WS_EXIT_OK;
  for (size_t i = 0; i < l->n && rc == WS_EXIT_OK; i++) {
    ws_cli_gpuopt scratch = {0};
    rc = ws_cli_gpuopt_set_gpu("sweep", &scratch, l->name[i]);
  }
  return rc;
}

static const char *kind_name(ws_point_kind kind) {
  return kind == WS_POINT_GEMM ? "gemm" : kind == WS_POINT_ATTENTION ? "attention" : "kernel";
}

static int take_param(sweep_opts *o, ws_space_param p, const char *arg) {
  if (!ws_space_uses(o->space.kind, p))
    return ws_cli_usage_error("sweep", "--%s is not a parameter of a %s sweep", ws_space_param_name(p),
                              kind_name(o->space.kind));
  ws_ctx *ctx = ws_ctx_create();
  int rc = ws_space_parse(ctx, &o->space, p, arg) == WS_OK
               ? WS_EXIT_OK
               : ws_cli_usage_error("sweep", "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  o->given[p] = true;
  return rc == WS_EXIT_OK && p == WS_SPACE_GPU ? check_gpus(&o->space) : rc;
}

static int push(const char **list, int *n, int max, const char *flag, const char *arg) {
  if (*n >= max) return ws_cli_usage_error("sweep", "at most %d %s", max, flag);
  list[(*n)++] = arg;
  return WS_EXIT_OK;
}

/* -D, --kernel, --grid ...: kept as text until the space is built. */
static int take_kernel_flag(sweep_opts *o, int c, const char *arg) {
  kernel_flags *k = &o->kf;
  if (o->space.kind != WS_POINT_KERNEL)
    return ws_cli_usage_error("sweep",
                              "-D, --kernel, --grid, --block, --shared, --arg and --buf are for kernel "
                              "sweeps");
  switch (c) {
  case 'D': return push(k->defines, &k->ndefines, WS_POINT_MAX_DEFINES, "-D names", arg);
  case OPT_KERNEL: k->kernel = arg; return WS_EXIT_OK;
  case OPT_GRID: k->grid = arg; return WS_EXIT_OK;
  case OPT_BLOCK: k->block = arg; return WS_EXIT_OK;
  case OPT_SHARED: k->shared = arg; return WS_EXIT_OK;
  case OPT_ARG: return push(k->args, &k->nargs, KERNEL_ITEMS_MAX, "--arg", arg);
  default: return push(k->bufs, &k->nbufs, KERNEL_ITEMS_MAX, "--buf", arg);
  }
}

static int take(sweep_opts *o, int c, const char *arg) {
  uint64_t v;
  if (c == 'D' || (c >= OPT_KERNEL && c <= OPT_BUF)) return take_kernel_flag(o, c, arg);
  switch (c) {
  case OPT_SIZE: o->size = arg; return WS_EXIT_OK;
  case OPT_SET: {
    ws_ctx *ctx = ws_ctx_create();
    int rc = ws_space_add_set(ctx, &o->space, arg) == WS_OK
                 ? WS_EXIT_OK
                 : ws_cli_usage_error("sweep", "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    return rc;
  }
  case OPT_JSON: o->json = arg; return WS_EXIT_OK;
  case OPT_RESTART: o->restart = true; return WS_EXIT_OK;
  case OPT_COST: o->cost = true; return WS_EXIT_OK;
  case 'o': o->csv = arg; return WS_EXIT_OK;
  case 'q': o->quiet = true; return WS_EXIT_OK;
  case 'j':
    if (!ws_cli_parse_u64(arg, 4096, &v) || v == 0)
      return ws_cli_usage_error("sweep", "--jobs expects 1 to 4096, found '%s'", arg);
    o->jobs = (uint32_t)v;
    return WS_EXIT_OK;
  case OPT_SIM_THREADS: return ws_cli_parse_sim_threads("sweep", arg, &o->sim_threads);
  case OPT_TIMEOUT: {
    char *end = NULL;
    o->timeout_s = strtod(arg, &end);
    if (!*arg || *end || !(o->timeout_s > 0) || o->timeout_s > 1e7)
      return ws_cli_usage_error("sweep", "--timeout expects seconds above 0, found '%s'", arg);
    return WS_EXIT_OK;
  }
  default: {
    bool taken = false;
    int rc = ws_cli_sampleopt_take("sweep", &o->space.sample_waves, &o->space.sample_rounds, &o->sample_exact,
                                   c, arg, &taken);
    if (!taken) rc = ws_cli_l2opt_take("sweep", &o->space.keep_l2, c, arg, &taken);
    return taken ? rc : take_param(o, (ws_space_param)(c - OPT_PARAM), arg);
  }
  }
}

/* The command's defaults for what was not given (the space has none). */
static int apply_defaults(sweep_opts *o) {
  bool gemm = o->space.kind == WS_POINT_GEMM;
  if (o->size && (o->given[WS_SPACE_M] || o->given[WS_SPACE_N] || o->given[WS_SPACE_K]))
    return ws_cli_usage_error("sweep", "--size and --m/--n/--k exclude each other");
  if (o->size && !gemm) return ws_cli_usage_error("sweep", "--size is for gemm sweeps");
  const struct {
    ws_space_param p;
    const char *value;
  } defaults[] = {{WS_SPACE_GPU, "a100"}, {WS_SPACE_M, "512"},       {WS_SPACE_N, "512"},
                  {WS_SPACE_K, "512"},    {WS_SPACE_VARIANT, "all"}, {WS_SPACE_SEQ, "64"},
                  {WS_SPACE_HEADS, "4"},  {WS_SPACE_DHEAD, "16"},    {WS_SPACE_ATTN, "all"}};
  int rc = WS_EXIT_OK;
  for (size_t i = 0; i < sizeof defaults / sizeof defaults[0] && rc == WS_EXIT_OK; i++)
    if (!o->given[defaults[i].p] && ws_space_uses(o->space.kind, defaults[i].p))
      rc = take_param(o, defaults[i].p, defaults[i].value);
  return rc;
}

/* Each --buf's bytes, read and parsed once: every point gets the same input. */
static ws_status add_buffers(ws_ctx *ctx, kernel_flags *k) {
  ws_status st = WS_OK;
  for (int i = 0; i < k->nbufs && st == WS_OK; i++) {
    ws_cli_buf b;
    memset(&b, 0, sizeof b);
    st = ws_cli_buf_parse(ctx, k->bufs[i], &b);
    if (st == WS_OK)
      st = ws_kspace_add_buf(ctx, k->space, b.name, b.data, b.size_bytes);
    else
      free(b.data);
  }
  return st;
}

/* The kernel sweep's space, every flag checked: a mistake is a usage error
 * before any point runs. */
static int build_kernel_space(sweep_opts *o) {
  kernel_flags *k = &o->kf;
  if (!k->file) return ws_cli_usage_error("sweep", "a kernel sweep needs a FILE.cu (or FILE.ptx)");
  if (!k->grid || !k->block) return ws_cli_usage_error("sweep", "a kernel sweep needs --grid and --block");
  ws_ctx *ctx = ws_ctx_create();
  ws_status st = ws_kspace_create(ctx, k->file, &k->space);
  if (st == WS_OK && k->kernel) st = ws_kspace_set_kernel(ctx, k->space, k->kernel);
  for (int i = 0; i < k->ndefines && st == WS_OK; i++)
    st = ws_kspace_add_define(ctx, k->space, k->defines[i]);
  if (st == WS_OK) st = ws_kspace_set_dims(ctx, k->space, k->grid, k->block, k->shared);
  for (int i = 0; i < k->nargs && st == WS_OK; i++) st = ws_kspace_add_arg(ctx, k->space, k->args[i]);
  if (st == WS_OK) st = add_buffers(ctx, k);
  int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error("sweep", "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  return rc;
}

/* Under --size, the GEMM's M, N and K move together: expanded here as
 * three lists of one value per point would make a cube, so --size sweeps
 * run one space per size (sizes_of) instead. */
static int parse_flags(int argc, char **argv, sweep_opts *o) {
  struct option longs[WS_SPACE_PARAM_COUNT + NFIXED + 1];
  param_options(longs);
  memcpy(longs + WS_SPACE_PARAM_COUNT, fixed_longs, sizeof fixed_longs);
  longs[WS_SPACE_PARAM_COUNT + NFIXED] = (struct option){NULL, 0, NULL, 0};
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":ho:j:qD:", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("sweep", &seen, longs, c, "set,arg,buf")) != WS_EXIT_OK) break;
    if (c == 'h') {
      printf(sweep_help, ws_cli_sampleopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("sweep", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("sweep", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc == WS_EXIT_OK && o->space.kind == WS_POINT_KERNEL && optind < argc) o->kf.file = argv[optind++];
  if (rc == WS_EXIT_OK && optind < argc)
    return ws_cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
  if (rc == WS_EXIT_OK) rc = apply_defaults(o);
  if (rc == WS_EXIT_OK && o->space.kind == WS_POINT_KERNEL) rc = build_kernel_space(o);
  if (!o->csv)
    o->csv = o->space.kind == WS_POINT_GEMM        ? "sweep-gemm.csv"
             : o->space.kind == WS_POINT_ATTENTION ? "sweep-attention.csv"
                                                   : "sweep-kernel.csv";
  /* the CSV is read back to resume and rewritten; the JSON only written */
  const ws_outputs_file files[] = {
      {"-o", o->csv, true}, {"--json", o->json, true}, {"the kernel file", o->kf.file, false}};
  return rc == WS_EXIT_OK ? ws_cli_check_files("sweep", files, o->kf.file ? 3 : 2) : rc;
}

/* ---- the points ----------------------------------------------------------------------------------- */

/* The points: the space's, or with --size one space per size, M = N = K. */
static ws_status points_of(ws_ctx *ctx, sweep_opts *o, ws_point **out, size_t *n) {
  if (o->kf.space) return ws_kspace_expand(ctx, o->kf.space, &o->space, out, n);
  if (!o->size) return ws_space_expand(ctx, &o->space, out, n);
  ws_space sizes;
  ws_space_init(&sizes, WS_POINT_GEMM);
  ws_status st = ws_space_parse(ctx, &sizes, WS_SPACE_M, o->size);
  ws_point *all = NULL;
  size_t total = 0;
  for (size_t i = 0; st == WS_OK && i < sizes.lists[WS_SPACE_M].n; i++) {
    char v[24];
    snprintf(v, sizeof v, "%" PRIu64, sizes.lists[WS_SPACE_M].num[i]);
    ws_point *ps = NULL;
    size_t k = 0;
    st = ws_space_parse(ctx, &o->space, WS_SPACE_M, v);
    if (st == WS_OK) st = ws_space_parse(ctx, &o->space, WS_SPACE_N, v);
    if (st == WS_OK) st = ws_space_parse(ctx, &o->space, WS_SPACE_K, v);
    if (st == WS_OK) st = ws_space_expand(ctx, &o->space, &ps, &k);
    if (st == WS_OK && total + k > WS_SPACE_POINTS_MAX)
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "--size %s: more than the %u points a sweep may have", o->size,
                       WS_SPACE_POINTS_MAX);
    ws_point *grown = st == WS_OK ? realloc(all, (total + k) * sizeof *all) : NULL;
    if (st == WS_OK && !grown) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for %zu points", total + k);
    if (st == WS_OK) {
      all = grown;
      memcpy(all + total, ps, k * sizeof *ps);
      total += k;
    }
    free(ps);
  }
  ws_space_free(&sizes);
  if (st != WS_OK) {
    free(all);
    return st;
  }
  *out = all;
  *n = total;
  return WS_OK;
}

/* ---- progress ------------------------------------------------------------------------------------- */

static void clock_text(double s, char *buf, size_t n) {
  uint64_t t = s > 0 ? (uint64_t)(s + 0.5) : 0;
  snprintf(buf, n, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, t / 3600, t / 60 % 60, t % 60);
}

static void progress_bar(void *user, const ws_sweep_progress *pr) {
  (void)user;
  const int width = 30;
  int full = pr->total ? (int)((double)width * (double)pr->done / (double)pr->total) : width;
  char bar[64], el[32], eta[32];
  for (int i = 0; i < width; i++) bar[i] = i < full ? '#' : '.';
  bar[width] = '\0';
  clock_text(pr->elapsed_s, el, sizeof el);
  if (pr->eta_s < 0)
    snprintf(eta, sizeof eta, "-");
  else
    clock_text(pr->eta_s, eta, sizeof eta);
  fprintf(stderr, "\r[%s] %zu/%zu points, %zu running, %s elapsed, ETA %s ", bar, pr->done, pr->total,
          pr->running, el, eta);
  fflush(stderr);
}

/* ---- the summary ---------------------------------------------------------------------------------- */

/* "a100 TILE=8 grid 8x8x1 block 8x8x1 shared 0": a kernel point. */
static void describe_kernel(const ws_point *p, char *buf, size_t n) {
  size_t used = (size_t)snprintf(buf, n, "%s", p->gpu);
  for (uint32_t i = 0; i < p->ndefines && i < WS_POINT_MAX_DEFINES && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, " %.*s=%" PRId64, WS_POINT_NAME_MAX, p->define_names[i],
                             p->define_values[i]);
  if (used < n)
    snprintf(buf + used, n - used, " grid %ux%ux%u block %ux%ux%u", p->grid[0], p->grid[1], p->grid[2],
             p->block[0], p->block[1], p->block[2]);
}

/* "a100 512x512x512 blocktile2d bm=128 ..." or "a100 seq 64 heads 4 dhead 16 flash br=64 bc=64". */
static void describe(const ws_point *p, char *buf, size_t n) {
  char tiles[160];
  if (p->kind == WS_POINT_KERNEL) {
    describe_kernel(p, buf, n);
    return;
  }
  ws_point_describe(p, tiles, sizeof tiles);
  if (p->kind == WS_POINT_GEMM)
    snprintf(buf, n, "%s %ux%ux%u %s", p->gpu, p->m, p->n, p->k, tiles);
  else
    snprintf(buf, n, "%s seq %u heads %u dhead %u %s", p->gpu, p->seq, p->heads, p->dhead, tiles);
}

static void print_row(const ws_sweep *s, size_t i) {
  const ws_point_result *r = ws_sweep_result(s, i);
  char d[256];
  describe(ws_sweep_point(s, i), d, sizeof d);
  if (ws_sweep_point(s, i)->kind == WS_POINT_KERNEL) /* a user's kernel: its flops are not known */
    printf("  %-60s %12" PRIu64 " cycles %6.2f IPC %12" PRIu64 " DRAM bytes  occupancy %5.1f %%", d,
           r->cycles, r->cycles ? (double)r->warp_insns / (double)r->cycles : 0.0,
           r->dram_read_bytes + r->dram_write_bytes, r->occupancy_pct);
  else
    printf("  %-60s %12" PRIu64 " cycles %10.1f GFLOP/s %12" PRIu64 " DRAM bytes  occupancy %5.1f %%", d,
           r->cycles, r->gflops, r->dram_read_bytes + r->dram_write_bytes, r->occupancy_pct);
  if (r->sampled) printf("  (sampled: cycles +- %" PRIu64 ")", r->cycles_ci95);
  printf("\n");
}

/* Sampled points measured by this run whose CTAs but a spread few ran the
 * kernel's slice: their checks covered the computed CTAs' outputs only. */
static void print_coverage(const ws_sweep *s) {
  size_t partial = 0;
  uint64_t checked = 0, outputs = 0;
  for (size_t i = 0; i < ws_sweep_count(s); i++) {
    const ws_point_result *r = ws_sweep_result(s, i);
    if (!r->valid || !r->computed_ctas || r->computed_ctas >= r->ctas) continue;
    partial++, checked += r->checked_outputs, outputs += r->outputs;
  }
  if (partial)
    printf("%zu sampled point%s checked only the outputs of the CTAs computed in full: %" PRIu64
           " of %" PRIu64 " outputs (--sample=exact computes and checks every CTA)\n",
           partial, partial == 1 ? "" : "s", checked, outputs);
}

static void print_summary(const ws_sweep *s, const ws_sweep_summary *sm) {
  if (ws_sweep_count(s) && ws_sweep_point(s, 0)->kind == WS_POINT_KERNEL)
    printf("%zu points: %zu ran (not checked: there is no reference), %zu refused\n", sm->points, sm->passed,
           sm->ninvalid);
  else
    printf("%zu points: %zu passed, %zu failed the check, %zu refused\n", sm->points, sm->passed, sm->failed,
           sm->ninvalid);
  if (ws_sweep_count(s) && ws_sweep_point(s, 0)->kind != WS_POINT_KERNEL) print_coverage(s);
  /* points of different shapes solve different problems: each shape is ranked on its own */
  const char *each = sm->nshapes > 1 ? " of each shape" : "";
  if (sm->nshapes) printf("best (fewest cycles)%s:\n", each);
  for (size_t i = 0; i < sm->nshapes; i++) print_row(s, sm->shapes[i].best);
  if (sm->nfront) printf("Pareto front (cycles, DRAM bytes read + written)%s:\n", each);
  for (size_t i = 0; i < sm->nfront; i++) print_row(s, sm->front[i]);
  for (size_t i = 0; sm->failed && i < ws_sweep_count(s); i++) {
    const ws_point_result *r = ws_sweep_result(s, i);
    char d[256];
    if (r && r->valid && !r->check_pass) {
      describe(ws_sweep_point(s, i), d, sizeof d);
      printf("failed check: %s: %s\n", d, r->why);
    }
  }
  if (sm->ninvalid) printf("refused:\n");
  for (size_t i = 0; i < sm->ninvalid; i++) {
    char d[256];
    describe(ws_sweep_point(s, sm->invalid[i]), d, sizeof d);
    printf("  %s: %s\n", d, ws_sweep_result(s, sm->invalid[i])->why);
  }
}

/* What simulating cost the host, on stderr: stdout stays the same bytes
 * from run to run. Points resumed without a measured cost are left out. */
static void print_cost(const ws_sweep *s, const ws_sweep_summary *sm) {
  if (!sm->costed) return;
  char rate[32], d[256];
  ws_cli_rate_text(ws_cost_rate(sm->warp_insns, sm->cpu_s), rate, sizeof rate);
  fflush(stdout); /* after the summary also where both go to one file */
  fprintf(stderr,
          "simulation cost of %zu point%s: %.2f s wall, %.2f s CPU, %" PRIu64
          " warp instructions, %s per CPU s\n",
          sm->costed, sm->costed == 1 ? "" : "s", sm->wall_s, sm->cpu_s, sm->warp_insns, rate);
  if (sm->with_result > sm->costed)
    fprintf(stderr, "  (%zu resumed point%s without a measured cost left out)\n",
            sm->with_result - sm->costed, sm->with_result - sm->costed == 1 ? "" : "s");
  if (sm->nslowest) fprintf(stderr, "slowest to simulate:\n");
  for (size_t k = 0; k < sm->nslowest; k++) {
    const ws_point_result *r = ws_sweep_result(s, sm->slowest[k]);
    describe(ws_sweep_point(s, sm->slowest[k]), d, sizeof d);
    ws_cli_rate_text(ws_cost_rate(r->warp_insns, r->sim_cpu_s), rate, sizeof rate);
    fprintf(stderr, "  %-60s %8.2f s wall %8.2f s CPU %8s warp insns per CPU s%s\n", d, r->sim_wall_s,
            r->sim_cpu_s, rate, r->sampled ? "  (sampled)" : "");
  }
}

/* ---- ranks ---------------------------------------------------------------------------------------- */

/* One rank's records, as raw (index, point, result) triples. */
typedef struct shipped {
  uint64_t index;
  ws_point point;
  ws_point_result result;
} shipped;

static ws_status pack(ws_ctx *ctx, const ws_sweep *s, shipped **out, size_t *n) {
  size_t count = 0, total = ws_sweep_count(s);
  for (size_t i = 0; i < total; i++) count += ws_sweep_result(s, i) != NULL;
  shipped *v = calloc(count ? count : 1, sizeof *v);
  if (!v) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory packing %zu records", count);
  size_t k = 0;
  for (size_t i = 0; i < total; i++)
    if (ws_sweep_result(s, i)) v[k++] = (shipped){i, *ws_sweep_point(s, i), *ws_sweep_result(s, i)};
  *out = v;
  *n = count;
  return WS_OK;
}

/* Rank 0 adopts every rank's records; the others send theirs. */
static ws_status merge_ranks(ws_ctx *ctx, ws_ranks *rk, ws_sweep *s) {
  shipped *mine = NULL, *all = NULL;
  size_t n = 0, lens[4096];
  if (ws_ranks_size(rk) > sizeof lens / sizeof lens[0])
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "a sweep takes at most %zu ranks", sizeof lens / sizeof lens[0]);
  ws_status st = pack(ctx, s, &mine, &n);
  st = ws_ranks_agree(ctx, rk, st);
  if (st == WS_OK) st = ws_ranks_gather(ctx, rk, mine, n * sizeof *mine, (void **)&all, lens);
  size_t total = 0;
  for (uint32_t r = 0; st == WS_OK && all && r < ws_ranks_size(rk); r++) total += lens[r] / sizeof *all;
  ws_point *ps = calloc(total ? total : 1, sizeof *ps);
  ws_point_result *rs = calloc(total ? total : 1, sizeof *rs);
  if (st == WS_OK && all && (!ps || !rs))
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory merging records");
  for (size_t i = 0; st == WS_OK && all && i < total; i++) ps[i] = all[i].point, rs[i] = all[i].result;
  if (st == WS_OK && all) st = ws_sweep_adopt(ctx, s, ps, rs, total, NULL);
  free(ps);
  free(rs);
  free(mine);
  free(all);
  return st;
}

/* After the ranks ran their shares with status `st`: rank 0 gathers and
 * writes every rank's records. An interrupted rank still ships what it
 * finished, so the file the next run resumes from holds all the work done;
 * the interruption is reported after the write. */
static ws_status merge_and_write(ws_ctx *ctx, const sweep_opts *o, ws_ranks *rk, ws_sweep *s, ws_status st) {
  bool stopped = st == WS_ERR_INTERRUPTED;
  char why[WS_ERRMSG_MAX_BYTES];
  snprintf(why, sizeof why, "%s", stopped ? ws_errmsg(ctx) : "");
  st = ws_ranks_agree(ctx, rk, stopped ? WS_OK : st);
  if (st == WS_OK) st = merge_ranks(ctx, rk, s);
  if (st == WS_OK && ws_ranks_rank(rk) == 0) st = ws_sweep_write(ctx, s, o->csv, o->json);
  if (st == WS_OK && stopped) st = ws_ctx_fail(ctx, WS_ERR_INTERRUPTED, "%s", why);
  return st;
}

/* ---- the command ---------------------------------------------------------------------------------- */

static ws_status run_sweep(ws_ctx *ctx, sweep_opts *o, ws_ranks *rk, ws_sweep *s,
                           volatile sig_atomic_t *interrupt) {
  bool root = ws_ranks_rank(rk) == 0, alone = ws_ranks_size(rk) == 1;
  size_t found = 0, kept = 0;
  /* a device or a pipe holds no records to resume from: it is only written */
  bool resumable = !o->restart && !ws_outputs_is_stream(o->csv);
  ws_status st = resumable ? ws_sweep_resume(ctx, s, o->csv, &found, &kept) : WS_OK;
  if (st == WS_OK && kept && root && !o->quiet)
    fprintf(stderr, "warpscope: resuming %s: %zu of its %zu records are points of this sweep\n", o->csv, kept,
            found);
  bool bar = root && !o->quiet && isatty(STDERR_FILENO);
  ws_sweep_runner runner = {ws_point_validate, ws_point_run};
  if (o->kf.space) runner = (ws_sweep_runner){NULL, ws_kspace_run};
  ws_sweep_cfg cfg = {.runner = runner,
                      .opts = {.timeout_s = o->timeout_s,
                               .sample_exact = o->sample_exact,
                               .kspace = o->kf.space,
                               .sim_threads = o->sim_threads},
                      .jobs = o->jobs,
                      .rank = ws_ranks_rank(rk),
                      .ranks = ws_ranks_size(rk),
                      .csv_path = alone ? o->csv : NULL,
                      .json_path = alone ? o->json : NULL,
                      .progress = bar ? progress_bar : NULL,
                      .interrupt = interrupt};
  if (st == WS_OK) st = ws_sweep_run(ctx, s, &cfg);
  if (bar) fputc('\n', stderr);
  return alone ? st : merge_and_write(ctx, o, rk, s, st);
}

/* The ranks of an MPI job must hold one sweep: the same points and the same
 * GPUs (a node with another preset file, or another build, would record
 * points rank 0 does not have, and they would be lost). */
static ws_status same_sweep(ws_ctx *ctx, ws_ranks *rk, uint32_t digest) {
  return ws_ranks_size(rk) < 2 ? WS_OK : ws_ranks_same(ctx, rk, digest, "points or GPU configuration");
}

/* Every point of the sweep has its record in what was written. */
static ws_status all_recorded(ws_ctx *ctx, const ws_sweep *s) {
  size_t n = ws_sweep_count(s), missing = 0;
  for (size_t i = 0; i < n; i++) missing += ws_sweep_result(s, i) == NULL;
  if (!missing) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%zu of the sweep's %zu points have no record: a rank's records were lost", missing, n);
}

static ws_status summarize(ws_ctx *ctx, const sweep_opts *o, const ws_sweep *s) {
  ws_sweep_summary sm;
  ws_status st = ws_sweep_summarize(ctx, s, &sm);
  if (st != WS_OK) return st;
  if (!o->quiet) print_summary(s, &sm);
  if (!o->quiet) print_cost(s, &sm);
  ws_sweep_summary_free(&sm);
  return WS_OK;
}

static int kind_of(int argc, char **argv, ws_point_kind *kind) {
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
      printf(sweep_help, ws_cli_sampleopt_help);
      return -1;
    }
    return ws_cli_usage_error("sweep", "a kind is needed: gemm, attention or kernel");
  }
  if (!strcmp(argv[1], "gemm"))
    *kind = WS_POINT_GEMM;
  else if (!strcmp(argv[1], "attention"))
    *kind = WS_POINT_ATTENTION;
  else if (!strcmp(argv[1], "kernel"))
    *kind = WS_POINT_KERNEL;
  else
    return ws_cli_usage_error("sweep", "unknown kind '%s' (expected gemm, attention or kernel)", argv[1]);
  return WS_EXIT_OK;
}

int ws_cli_sweep(int argc, char **argv) {
  sweep_opts o = {0};
  ws_point_kind kind = WS_POINT_GEMM;
  int rc = kind_of(argc, argv, &kind);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  ws_space_init(&o.space, kind);
  rc = parse_flags(argc - 1, argv + 1, &o);
  ws_ctx *ctx = ws_ctx_create();
  ws_point *points = NULL;
  size_t n = 0;
  /* the digest loads each GPU of the points with the overrides: a preset or
   * a --set combination that cannot load is refused before anything runs */
  uint32_t digest = 0;
  if (rc == WS_EXIT_OK &&
      (points_of(ctx, &o, &points, &n) != WS_OK || ws_point_digest(ctx, points, n, &digest) != WS_OK))
    rc = ws_cli_usage_error("sweep", "%s", ws_errmsg(ctx));
  ws_ranks *rk = NULL;
  ws_sweep *s = NULL;
  ws_status st = WS_OK;
  if (rc == WS_EXIT_OK) {
    volatile sig_atomic_t *interrupt = ws_cli_catch_interrupts();
    st = ws_ranks_start(ctx, &rk);
    if (st == WS_OK) st = ws_sweep_create(ctx, points, n, &s);
    if (st == WS_OK) ws_sweep_set_cost(s, o.cost);
    if (st == WS_OK) st = same_sweep(ctx, rk, digest);
    if (st == WS_OK) st = run_sweep(ctx, &o, rk, s, interrupt);
    if (st == WS_OK && ws_ranks_rank(rk) == 0) st = summarize(ctx, &o, s);
    if (st == WS_OK && ws_ranks_rank(rk) == 0) st = all_recorded(ctx, s);
    rc = st == WS_OK ? WS_EXIT_OK : ws_cli_error("%s", ws_errmsg(ctx));
  }
  ws_sweep_destroy(s);
  ws_ranks_finish(rk);
  free(points);
  ws_kspace_destroy(o.kf.space);
  ws_space_free(&o.space);
  ws_ctx_destroy(ctx);
  return rc;
}
