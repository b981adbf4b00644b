/* cmd_demo.c - `warpscope demo`: runs that show one idea of the seeds from
 * end to end. `demo persistent`: N small work items as N kernel launches
 * and as one persistent ring kernel fed through mapped host memory
 * (models/runs/persistent.h), with the time per item and the crossover.
 *
 * Design: the model measures; this file parses flags and prints. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "models/runs/persistent.h"
#include "models/vit/unified.h"

static const char demo_help[] =
    "usage: warpscope demo persistent [--gpu NAME] [--set K=V] [--items N] [--elems N] [--threads T]\n"
    "       warpscope demo unified [--gpu NAME] [--set K=V] [--batch N]\n\n"
    "persistent: N small work items (item i: out[i][j] = a_i x[j] + b[j], then a\n"
    "done flag written to mapped host memory), handed over one at a time by a host\n"
    "that waits for each result, done two ways: one kernel launch per item, and one\n"
    "persistent ring kernel that stays resident and polls a queue in mapped host\n"
    "memory over the PCIe link. Prints each way's time per item, what the preset's\n"
    "launch overhead and link latency predict, and the crossover: the fewest items\n"
    "for which the ring kernel is done first (docs/runtime.md).\n\n"
    "unified: TinyViT32 pixel to logit three ways: the weights copied into device\n"
    "memory, in managed memory paged in by the kernels' faults, and in managed memory\n"
    "moved by one prefetch; each run checked against OpenBLAS. Prints each way's end\n"
    "to end time, the weights' transfer, the kernels' time, the faults, their batches\n"
    "and what they moved (docs/runtime.md).\n\n"
    "  --items N           work items, 1..4096 (default 64)\n"
    "  --elems N           floats per item, 1..65536 (default 1024)\n"
    "  --threads T         the one CTA's threads, a multiple of 32 (default 256)\n"
    "  --batch N           unified: images per run, 1..64 (default 1)\n"
    "%s"
    "  -h, --help          this text\n"
    "Exit status: 0 on success, 2 on a usage error, 1 when a run fails or a result\n"
    "differs from the host's, 130 when interrupted (Ctrl-C).\n";

enum { OPT_ITEMS = 0x300, OPT_ELEMS, OPT_THREADS, OPT_BATCH };

#define UNIFIED_MAX_BATCH 64u

static const struct option longs[] = {{"items", required_argument, NULL, OPT_ITEMS},
                                      {"elems", required_argument, NULL, OPT_ELEMS},
                                      {"threads", required_argument, NULL, OPT_THREADS},
                                      {"batch", required_argument, NULL, OPT_BATCH},
                                      {"gpu", required_argument, NULL, 'G'},
                                      {"set", required_argument, NULL, 'S'},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

typedef struct demo_opts {
  bool unified;
  ws_cli_gpuopt gpu;
  ws_persistent_cfg cfg;
  bool has_persistent_flags;
  uint32_t batch;
} demo_opts;

static int parse_count(const char *flag, const char *text, uint32_t max, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(text, max, &v) || v == 0)
    return ws_cli_usage_error("demo", "%s expects an integer from 1 to %u, found '%s'", flag, max, text);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static int take(demo_opts *o, int c, const char *arg) {
  if (c == OPT_ITEMS || c == OPT_ELEMS || c == OPT_THREADS) o->has_persistent_flags = true;
  switch (c) {
  case OPT_BATCH:
    if (!o->unified) return ws_cli_usage_error("demo", "--batch is a flag of 'demo unified'");
    return parse_count("--batch", arg, UNIFIED_MAX_BATCH, &o->batch);
  case OPT_ITEMS: return parse_count("--items", arg, WS_PERSISTENT_MAX_ITEMS, &o->cfg.items);
  case OPT_ELEMS: return parse_count("--elems", arg, WS_PERSISTENT_MAX_ELEMS, &o->cfg.elems);
  case OPT_THREADS:
    if (parse_count("--threads", arg, 1024, &o->cfg.threads) != WS_EXIT_OK) return WS_EXIT_USAGE;
    if (o->cfg.threads % 32)
      return ws_cli_usage_error("demo", "--threads must be a multiple of 32, found %s", arg);
    return WS_EXIT_OK;
  case 'G': return ws_cli_gpuopt_set_gpu("demo", &o->gpu, arg);
  case 'S': return ws_cli_gpuopt_add_set("demo", &o->gpu, arg);
  default: return WS_EXIT_OK;
  }
}

static int parse_flags(int argc, char **argv, demo_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("demo", &seen, longs, c, "set")) != WS_EXIT_OK) break;
    if (c == 'h') {
      printf(demo_help, ws_cli_gpuopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("demo", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("demo", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  if (rc == WS_EXIT_OK && optind < argc)
    return ws_cli_usage_error("demo", "unexpected argument '%s'", argv[optind]);
  if (rc == WS_EXIT_OK && o->unified && o->has_persistent_flags)
    return ws_cli_usage_error("demo", "--items, --elems and --threads are flags of 'demo persistent'");
  if (rc == WS_EXIT_OK && (uint64_t)o->cfg.items * o->cfg.elems > WS_PERSISTENT_MAX_OUTPUTS)
    return ws_cli_usage_error("demo", "--items x --elems is at most %u outputs, found %u x %u",
                              WS_PERSISTENT_MAX_OUTPUTS, o->cfg.items, o->cfg.elems);
  return rc;
}

static double us(uint64_t ns) { return (double)ns / 1000.0; }

/* "then per item": the mean cost of each item after the first. */
static double then_us(const uint64_t *done_ns, uint32_t n) {
  return n > 1 ? us(done_ns[n - 1] - done_ns[0]) / (n - 1) : 0.0;
}

static void print_result(const ws_gpu_cfg *gpu, const ws_persistent_cfg *c, const ws_persistent_result *r) {
  uint32_t n = r->items;
  printf("persistent kernels on %s: %u item%s of %u floats, one CTA of %u threads; the host hands\n"
         "over each item once it has the previous one's result\n\n",
         gpu->gpu.name, n, n == 1 ? "" : "s", c->elems, c->threads);
  printf("  %-12s %12s %14s %13s\n", "", "first item", "then per item", "all items");
  double lt = then_us(r->launch_done_ns, n), rt = then_us(r->ring_done_ns, n);
  char then_l[32] = "-", then_r[32] = "-";
  if (n > 1) {
    snprintf(then_l, sizeof then_l, "%.3f us", lt);
    snprintf(then_r, sizeof then_r, "%.3f us", rt);
  }
  printf("  %-12s %9.3f us %14s %10.3f us   each: launch %.3f + kernel %.3f us\n", "launches",
         us(r->launch_done_ns[0]), then_l, us(r->launch_ns), us(gpu->pcie.launch_overhead_ns),
         us(r->launch_kernel_ns[n - 1]));
  printf("  %-12s %9.3f us %14s %10.3f us   each: poll round trip %.3f", "ring kernel",
         us(r->ring_done_ns[0]), then_r, us(r->ring_ns), us(r->poll_ns));
  if (n > 1) printf(" + item %.3f", rt - us(r->poll_ns));
  printf(" us\n\nThe ring kernel starts after its one launch, at %.3f us, and polls %" PRIu64 " times",
         us(r->ring_start_ns), r->polls);
  if (r->polls == (uint64_t)n + 1) printf(": once per item and once\nfor the stop");
  printf(".\n");
  if (n > 1 && rt - us(r->poll_ns) < us(r->launch_kernel_ns[n - 1]))
    printf("Its item is shorter than a launched kernel: the CTA is already resident, and x and b\n"
           "stay in its L1, which every launch empties.\n");
  printf("\n  %-6s %14s %14s\n", "items", "launches", "ring kernel");
  for (uint32_t i = 1; i <= n; i = i < 4 ? i + 1 : i * 2)
    printf("  %-6u %11.3f us %11.3f us\n", i, us(r->launch_done_ns[i - 1]), us(r->ring_done_ns[i - 1]));
  if (r->crossover)
    printf("\ncrossover: the ring kernel is done first from %u item%s on\n", r->crossover,
           r->crossover == 1 ? "" : "s");
  else
    printf("\ncrossover: none within %u item%s\n", n, n == 1 ? "" : "s");
}

static void print_way(const ws_unified_way *w) {
  static const char *const labels[] = {"copy", "managed", "prefetch"};
  printf("  %-10s %9.3f us", labels[w->weights], us(w->end_ns));
  if (w->move_bytes || w->move_ns)
    printf(" %9.3f us %7" PRIu64 " B", us(w->move_ns), w->move_bytes);
  else
    printf(" %12s %9s", "-", "-");
  printf(" %9.3f us %7" PRIu64 " %7" PRIu64 " %9.3f us %7" PRIu64 " B  %s\n", us(w->kernels_ns),
         w->uvm.faults, w->uvm.batches, us(w->fault_ns), w->uvm.migrated_bytes, w->pass ? "ok" : "FAIL");
}

static void print_unified(const ws_gpu_cfg *gpu, uint32_t batch, const ws_unified_way *w) {
  printf("unified memory on %s: TinyViT32 with seeded weights (seed 1), %u image%s, three ways\n\n",
         gpu->gpu.name, batch, batch == 1 ? "" : "s");
  printf("  %-10s %12s %23s %12s %7s %7s %12s %9s\n", "weights", "end to end", "copy or prefetch", "kernels",
         "faults", "batches", "fault time", "migrated");
  for (int i = 0; i < 3; i++) print_way(&w[i]);
  const ws_unified_way *m = &w[WS_VITRUN_WEIGHTS_MANAGED], *p = &w[WS_VITRUN_WEIGHTS_PREFETCH];
  printf("\ncopy: %" PRIu64 " B in one pinned H2D copy before the first kernel.\n", w[0].move_bytes);
  if (m->uvm.batches) {
    printf("managed: the kernels fault the weights in as they first touch them: %" PRIu64
           " page%s in %" PRIu64 " batch%s,\n  each %.3f us of driver work plus its 64 KiB blocks on the "
           "link, added to the kernel that\n"
           "  waits; %u of %u kernels faulted, the first %s (timeline row %" PRIu64 ").",
           m->uvm.faults, m->uvm.faults == 1 ? "" : "s", m->uvm.batches, m->uvm.batches == 1 ? "" : "es",
           us(gpu->uvm.fault_batch_ns), m->faulting_kernels, m->kernels, m->first_fault_name,
           m->first_fault_kernel);
    if (m->uvm.prefetched_bytes)
      printf(" The density prefetcher\n  added %" PRIu64 " B to the %" PRIu64 " B the faults asked for.",
             m->uvm.prefetched_bytes, m->uvm.migrated_bytes - m->uvm.prefetched_bytes);
    printf("\n");
  }
  printf("prefetch: %" PRIu64 " B (whole 64 KiB blocks) in one transfer before the first kernel; %" PRIu64
         " fault%s.\n",
         p->move_bytes, p->uvm.faults, p->uvm.faults == 1 ? "" : "s");
}

static int run_unified(const demo_opts *o) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg gpu;
  ws_unified_way ways[3];
  ws_status st = ws_cli_gpuopt_resolve(ctx, &o->gpu, &gpu);
  if (st == WS_OK) st = ws_unified_run(ctx, &gpu, o->batch, ways);
  int rc = WS_EXIT_OK;
  if (st == WS_OK) {
    print_unified(&gpu, o->batch, ways);
    for (int i = 0; i < 3; i++)
      if (!ways[i].pass)
        rc = ws_cli_error("the %s run does not match OpenBLAS", ws_vitrun_weights_name(ways[i].weights));
  } else {
    rc = ws_cli_exit_code("demo", ctx, st);
  }
  ws_ctx_destroy(ctx);
  return rc;
}

int ws_cli_demo(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
      printf(demo_help, ws_cli_gpuopt_help);
      return WS_EXIT_OK;
    }
    return ws_cli_usage_error("demo", "which demo? (persistent or unified)");
  }
  if (strcmp(argv[1], "persistent") != 0 && strcmp(argv[1], "unified") != 0)
    return ws_cli_usage_error("demo", "no demo '%s' (persistent or unified)", argv[1]);
  demo_opts o = {.unified = !strcmp(argv[1], "unified"), .cfg = ws_persistent_default_cfg(), .batch = 1};
  int rc = parse_flags(argc - 1, argv + 1, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  if (o.unified) return run_unified(&o);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg gpu;
  ws_persistent_result r = {0};
  ws_status st = ws_cli_gpuopt_resolve(ctx, &o.gpu, &gpu);
  if (st == WS_OK) st = ws_persistent_run(ctx, &gpu, &o.cfg, &r);
  if (st == WS_OK)
    print_result(&gpu, &o.cfg, &r);
  else
    rc = ws_cli_exit_code("demo", ctx, st);
  ws_persistent_result_free(&r);
  ws_ctx_destroy(ctx);
  return rc;
}
