/* cmd_trace.c - `warpscope trace info|dump|stats|export FILE.wst`: what a
 * .wst trace holds, its records as text, the counters rebuilt from them,
 * and the trace as Perfetto JSON or CSV (docs/traces.md).
 *
 * Design: every subcommand reads through the trace reader's cursors, so
 * memory stays bounded whatever the trace's size; a filtered dump seeks to
 * the launch and cycle range it wants and never decodes the chunks before
 * it. A damaged file is read as far as it is intact: info, dump and stats
 * print that part, then the reader's warning, and exit 1; export writes
 * nothing from a damaged file. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "traces/evtext.h"
#include "traces/export.h"
#include "traces/tstats.h"

static const char trace_help[] =
    "usage: warpscope trace info FILE.wst\n"
    "       warpscope trace dump FILE.wst [--launch N] [--kind K[,K]...] [--sm N] [--cycles A:B]\n"
    "                                     [--uop N] [--limit N]\n"
    "       warpscope trace stats FILE.wst [--launch N] [--json FILE]\n"
    "       warpscope trace export FILE.wst --format perfetto|csv [-o FILE] [--launch N]\n"
    "                                       [--cycles A:B] [--window CYCLES] [--no-flows]\n\n"
    "Reads a trace recorded with --trace (docs/traces.md):\n"
    "  info    the file, the GPU, the kernels and launches, and the records per kind\n"
    "  dump    one record per line after a header line: launch kind begin end sm unit warp pc\n"
    "          op uop link addr a b c outcome flags ('-' where a field does not apply)\n"
    "  stats   the simulator's counters rebuilt from the records, under the names\n"
    "          --stats-json uses (docs/traces.md lists which counters the records determine)\n"
    "  export  the trace as Chrome trace-event JSON for ui.perfetto.dev, or as CSV (the\n"
    "          dump's columns)\n\n"
    "  --launch N        only launch N (counted from 0, as info lists them)\n"
    "  --kind K[,K]...   only these kinds (kernel cta issue stall rf_bank coalesce smem l1 xbar\n"
    "                    l2 dram l2_fill l1_fill mem_done barrier depbar host pcie)\n"
    "  --sm N            only records of SM N\n"
    "  --cycles A:B      only records beginning in cycles [A, B) of their launch (A: for no\n"
    "                    end); records outside launches (host, PCIe) are left out\n"
    "  --uop N           one memory request: records of micro-op N, the DRAM reads whose link\n"
    "                    is N and their L2 fills (ids count from 1 in each launch)\n"
    "  --limit N         stop after N records\n"
    "  --json FILE       write the counters as {\"stats\": {NAME: VALUE}} to FILE ('-': stdout)\n"
    "  --format F        perfetto or csv\n"
    "  -o FILE           write the export to FILE, atomically (default and '-': stdout)\n"
    "  --window CYCLES   the counter tracks' window (default: a launch's cycles / 200)\n"
    "  --no-flows        leave out the arrows that follow each memory request\n"
    "  -h, --help        this text\n"
    "Exit status: 0 on success, 1 when the file cannot be read or is damaged (what is intact\n"
    "is still shown, except by export), 2 on a usage error, 130 when interrupted\n"
    "(Ctrl-C).\n";

enum { OPT_LAUNCH = 0x300, OPT_KIND, OPT_SM, OPT_CYCLES, OPT_UOP, OPT_LIMIT, OPT_JSON, OPT_FORMAT };
enum { OPT_WINDOW = 0x310, OPT_NO_FLOWS };

typedef struct trace_opts {
  const char *sub, *path;
  bool has_launch, has_sm, has_cycles, has_uop, has_limit, no_flows;
  uint32_t launch, sm;
  uint64_t cycle_begin, cycle_end, uop, limit, window;
  uint32_t kinds; /* bit per kind; 0: all */
  const char *json, *format, *out;
} trace_opts;

/* ---- options ------------------------------------------------------------------ */

static int parse_cycles(const char *arg, trace_opts *o) {
  o->has_cycles = ws_cli_parse_cycle_range(arg, &o->cycle_begin, &o->cycle_end);
  if (o->has_cycles) return WS_EXIT_OK;
  return ws_cli_usage_error("trace", "--cycles expects A:B with A < B (or A:), found '%s'", arg);
}

static int parse_kinds(const char *arg, trace_opts *o) {
  if (!*arg || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',')
    return ws_cli_usage_error("trace", "--kind expects kind names separated by commas, found '%s'", arg);
  for (const char *k = arg; *k;) {
    size_t n = strcspn(k, ",");
    char name[16] = "";
    uint8_t kind;
    if (n < sizeof name) memcpy(name, k, n);
    if (n >= sizeof name || !ws_evtext_kind_parse(name, &kind))
      return ws_cli_usage_error("trace", "--kind: unknown kind '%.*s' (see 'warpscope trace --help')", (int)n,
                                k);
    o->kinds |= 1u << kind;
    k += n + (k[n] == ',');
  }
  return WS_EXIT_OK;
}

static int parse_number(const char *flag, const char *arg, uint64_t max, uint64_t *out) {
  if (ws_cli_parse_u64(arg, max, out)) return WS_EXIT_OK;
  return ws_cli_usage_error("trace", "%s expects a number from 0 to %" PRIu64 ", found '%s'", flag, max, arg);
}

static int take(trace_opts *o, int c, const char *arg) {
  uint64_t v = 0;
  int rc = WS_EXIT_OK;
  switch (c) {
  case OPT_LAUNCH: rc = parse_number("--launch", arg, UINT32_MAX - 1, &v), o->launch = (uint32_t)v; break;
  case OPT_SM: rc = parse_number("--sm", arg, WS_PROBE_NONE - 1, &v), o->sm = (uint32_t)v; break;
  case OPT_UOP: rc = parse_number("--uop", arg, UINT64_MAX, &o->uop); break;
  case OPT_LIMIT: rc = parse_number("--limit", arg, UINT64_MAX, &o->limit); break;
  case OPT_WINDOW:
    rc = parse_number("--window", arg, UINT32_MAX, &o->window);
    if (rc == WS_EXIT_OK && !o->window) rc = ws_cli_usage_error("trace", "--window must be at least 1");
    break;
  case OPT_CYCLES: return parse_cycles(arg, o);
  case OPT_KIND: return parse_kinds(arg, o);
  case OPT_JSON: o->json = arg; break;
  case OPT_FORMAT: o->format = arg; break;
  case 'o': o->out = arg; break;
  case OPT_NO_FLOWS: o->no_flows = true; break;
  default: break;
  }
  o->has_launch |= c == OPT_LAUNCH;
  o->has_sm |= c == OPT_SM;
  o->has_uop |= c == OPT_UOP;
  o->has_limit |= c == OPT_LIMIT;
  return rc;
}

/* Which options each subcommand takes, by getopt code; NULL: no such subcommand. */
static const int *options_of(const char *sub) {
  static const struct {
    const char *sub;
    int codes[8];
  } table[] = {
      {"info", {0}},
      {"dump", {OPT_LAUNCH, OPT_KIND, OPT_SM, OPT_CYCLES, OPT_UOP, OPT_LIMIT}},
      {"stats", {OPT_LAUNCH, OPT_JSON}},
      {"export", {OPT_LAUNCH, OPT_CYCLES, OPT_FORMAT, 'o', OPT_WINDOW, OPT_NO_FLOWS}},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(sub, table[i].sub) == 0) return table[i].codes;
  return NULL;
}

static const struct option longs[] = {{"launch", required_argument, NULL, OPT_LAUNCH},
                                      {"kind", required_argument, NULL, OPT_KIND},
                                      {"sm", required_argument, NULL, OPT_SM},
                                      {"cycles", required_argument, NULL, OPT_CYCLES},
                                      {"uop", required_argument, NULL, OPT_UOP},
                                      {"limit", required_argument, NULL, OPT_LIMIT},
                                      {"json", required_argument, NULL, OPT_JSON},
                                      {"format", required_argument, NULL, OPT_FORMAT},
                                      {"output", required_argument, NULL, 'o'},
                                      {"window", required_argument, NULL, OPT_WINDOW},
                                      {"no-flows", no_argument, NULL, OPT_NO_FLOWS},
                                      {"help", no_argument, NULL, 'h'},
                                      {NULL, 0, NULL, 0}};

/* A usage error for an option given that the subcommand does not take. */
static int check_applies(const char *sub, const ws_cli_seen *seen) {
  const int *codes = options_of(sub);
  for (const struct option *l = longs; l->name; l++) {
    if (l->val == 'h' || !(seen->bits[l->val / 64] >> (l->val % 64) & 1u)) continue;
    bool ok = false;
    for (int k = 0; k < 8 && codes[k]; k++) ok |= codes[k] == l->val;
    if (!ok) return ws_cli_usage_error("trace", "--%s does not apply to 'trace %s'", l->name, sub);
  }
  return WS_EXIT_OK;
}

static int check_values(const trace_opts *o) {
  if (!strcmp(o->sub, "export") && !o->format)
    return ws_cli_usage_error("trace", "'trace export' needs --format perfetto or --format csv");
  if (o->format && strcmp(o->format, "perfetto") && strcmp(o->format, "csv"))
    return ws_cli_usage_error("trace", "--format expects perfetto or csv, found '%s'", o->format);
  if (o->format && !strcmp(o->format, "csv") && (o->window || o->no_flows))
    return ws_cli_usage_error("trace", "--window and --no-flows apply to --format perfetto only");
  if (o->json && !*o->json) return ws_cli_usage_error("trace", "--json needs a file name");
  if (o->out && !*o->out) return ws_cli_usage_error("trace", "-o needs a file name");
  return WS_EXIT_OK;
}

/* The subcommand and file (anywhere among the options), then the options. */
static int parse(int argc, char **argv, trace_opts *o, bool *help) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  const char *pos[2];
  int npos = 0;
  while ((c = getopt_long(argc, argv, "-:ho:", longs, NULL)) != -1) {
    if (c == 1) {
      if (npos == 2) return ws_cli_usage_error("trace", "unexpected argument '%s'", optarg);
      pos[npos++] = optarg;
      continue;
    }
    if (c == 'h') {
      *help = true;
      return WS_EXIT_OK;
    }
    if (c == ':') return ws_cli_usage_error("trace", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("trace", "unknown option '%s'", argv[optind - 1]);
    if ((rc = ws_cli_once("trace", &seen, longs, c, "")) != WS_EXIT_OK) return rc;
    if ((rc = take(o, c, optarg)) != WS_EXIT_OK) return rc;
  }
  if (npos == 0) return ws_cli_usage_error("trace", "expected a subcommand: info, dump, stats or export");
  o->sub = pos[0];
  if (!options_of(o->sub))
    return ws_cli_usage_error("trace", "unknown subcommand '%s' (expected info, dump, stats or export)",
                              o->sub);
  if (npos != 2) return ws_cli_usage_error("trace", "'trace %s' expects one FILE.wst", o->sub);
  o->path = pos[1];
  if ((rc = check_applies(o->sub, &seen)) != WS_EXIT_OK) return rc;
  if ((rc = check_values(o)) != WS_EXIT_OK) return rc;
  const ws_outputs_file files[] = {
      {"the trace", o->path, false}, {"--json", o->json, true}, {"-o", o->out, true}};
  return ws_cli_check_files("trace", files, 3);
}

/* ---- shared ---------------------------------------------------------------------- */

/* A launch number the trace has; else a usage error naming what it has. */
static int check_launch(const trace_opts *o, const ws_wst_reader *r) {
  size_t n = ws_wst_launch_count(r);
  if (!o->has_launch || o->launch < n) return WS_EXIT_OK;
  if (!n) return ws_cli_usage_error("trace", "--launch %u: %s holds no launch", o->launch, o->path);
  return ws_cli_usage_error("trace", "--launch %u: %s holds launches 0-%zu", o->launch, o->path, n - 1);
}

/* The reader's warning as the command's error: exit 1 once the intact part is shown. */
static int damaged(const ws_wst_reader *r) {
  const char *w = ws_wst_warning(r);
  return w ? ws_cli_error("%s", w) : WS_EXIT_OK;
}

static const char *kernel_name(const ws_wst_reader *r, uint32_t k) {
  const ws_wst_kernel_info *ki = k == WS_WST_NO_KERNEL ? NULL : ws_wst_kernel(r, k);
  return ki ? ki->name : "?";
}

/* ---- info ------------------------------------------------------------------------ */

/* The embedded config and the launch records through the same checks
 * stats, export and viz apply; false (the message on the reader's context)
 * when they fail them. */
static bool info_gpu(const ws_wst_reader *r) {
  ws_gpu_cfg cfg;
  if (ws_wst_config(r, &cfg) != WS_OK) {
    printf("gpu:      unknown: the embedded config or a launch record fails its checks (below)\n");
    return false;
  }
  printf("gpu:      %s: %u SMs at %u MHz, %u sub-partitions per SM, %u L2 slices, %u HBM channels\n",
         cfg.gpu.name, cfg.gpu.num_sms, cfg.gpu.core_clock_mhz, cfg.sm.subpartitions, cfg.l2.slices,
         cfg.hbm.channels);
  return true;
}

static void info_kernels(const ws_wst_reader *r) {
  size_t nk = ws_wst_kernel_count(r), nl = ws_wst_launch_count(r);
  printf("kernels:  %zu\n", nk);
  for (size_t k = 0; k < nk; k++) {
    const ws_wst_kernel_info *ki = ws_wst_kernel(r, k);
    size_t launches = 0;
    for (size_t l = 0; l < nl; l++) launches += ws_wst_launch(r, l)->kernel == k;
    printf("  %-3zu %-20s %3u registers/thread  %6u B shared  %zu launch%s\n", k, ki->name,
           ki->regs_per_thread, ki->shared_bytes, launches, launches == 1 ? "" : "es");
  }
}

static void info_launches(const ws_wst_reader *r) {
  size_t nl = ws_wst_launch_count(r);
  printf("launches: %zu\n", nl);
  for (size_t i = 0; i < nl; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(r, i);
    char grid[48], block[48];
    snprintf(grid, sizeof grid, "(%u,%u,%u)", l->grid[0], l->grid[1], l->grid[2]);
    snprintf(block, sizeof block, "(%u,%u,%u)", l->block[0], l->block[1], l->block[2]);
    printf("  %-3zu %-20s grid %-14s block %-12s %10" PRIu64 " cycles  %" PRIu64 " of %" PRIu64
           " events%s%s\n",
           i, kernel_name(r, l->kernel), grid, block, l->cycles, l->events, l->events_seen,
           l->flags & WS_WST_LAUNCH_FILTERED ? "  (filtered out)"
           : l->events < l->events_seen      ? "  (filtered)"
                                             : "",
           l->flags & WS_WST_LAUNCH_UNFINISHED ? "  (unfinished)" : "");
  }
}

/* Records per kind; a damaged file's counts were lost with its metadata,
 * so the intact chunks are counted (what the probe saw is unknown then). */
static void info_counts(ws_wst_reader *r) {
  ws_wst_counts c = *ws_wst_counts_of(r);
  bool lost = ws_wst_warning(r) != NULL;
  if (lost) {
    memset(&c, 0, sizeof c);
    ws_wst_cursor *cur = NULL;
    ws_probe_event ev;
    uint32_t launch;
    bool got = true;
    if (ws_wst_cursor_open(r, &cur) == WS_OK)
      while (ws_wst_cursor_next(cur, &ev, &launch, &got) == WS_OK && got)
        if (ev.kind < WS_PEV_COUNT) c.recorded[ev.kind]++;
    ws_wst_cursor_close(cur);
  }
  uint64_t rec = 0, seen = 0;
  printf("events:   %-10s %12s %12s\n", "kind", "recorded", "seen");
  for (uint8_t k = 0; k < WS_PEV_COUNT; k++) {
    char s[24] = "-";
    if (!lost) snprintf(s, sizeof s, "%" PRIu64, c.seen[k]);
    printf("          %-10s %12" PRIu64 " %12s\n", ws_evtext_kind_name(k), c.recorded[k], s);
    rec += c.recorded[k];
    seen += c.seen[k];
  }
  char s[24] = "-";
  if (!lost) snprintf(s, sizeof s, "%" PRIu64, seen);
  printf("          %-10s %12" PRIu64 " %12s\n", "total", rec, s);
  if (rec)
    printf("          %.2f bytes per recorded event%s\n", (double)ws_wst_file_bytes(r) / (double)rec,
           lost ? " (counting the damaged part)" : "");
}

/* A followed pixel's ledger (traces/journey.h), when the run kept one. */
static void info_journey(ws_wst_reader *r) {
  size_t size = 0;
  const void *text = ws_wst_journey(r, &size);
  if (!text || !size) return;
  ws_ctx *ctx = ws_ctx_create();
  ws_journey_hop *hops = NULL;
  ws_journey_reach *reach = NULL;
  size_t n = 0, nreach = 0;
  if (ctx && ws_journey_from_text(ctx, text, size, &hops, &n, &reach, &nreach) == WS_OK)
    printf("journey:  a followed pixel, %zu hops, its reach in %zu layers (warpscope run --follow-pixel;\n"
           "          docs/traces.md)\n",
           n, nreach);
  else
    printf("journey:  %zu bytes that are not a journey: %s\n", size, ctx ? ws_errmsg(ctx) : "out of memory");
  free(reach);
  free(hops);
  ws_ctx_destroy(ctx);
}

/* The named device ranges, one line each: the viz colours traffic by them. */
static void info_regions(ws_wst_reader *r) {
  size_t n = 0;
  const ws_runtime_region *g = ws_wst_regions(r, &n);
  if (!n) return;
  printf("ranges:   %zu named device ranges\n", n);
  for (size_t i = 0; i < n; i++)
    printf("  %-11s %-30s 0x%010" PRIx64 "-0x%010" PRIx64 " %10" PRIu64 " B\n",
           ws_runtime_tensor_name(g[i].tensor), g[i].name, g[i].addr, g[i].addr + g[i].size_bytes,
           g[i].size_bytes);
}

static int cmd_info(ws_ctx *ctx, const trace_opts *o, ws_wst_reader *r) {
  printf("file:     %s: %" PRIu64 " bytes, .wst version %u, %zu chunks\n", o->path, ws_wst_file_bytes(r),
         ws_wst_version(r), ws_wst_chunk_count(r));
  bool cfg_ok = info_gpu(r);
  char why[WS_ERRMSG_MAX_BYTES];
  snprintf(why, sizeof why, "%s", cfg_ok ? "" : ws_errmsg(ctx));
  info_kernels(r);
  info_launches(r);
  info_regions(r);
  info_counts(r);
  info_journey(r);
  int rc = damaged(r);
  return rc == WS_EXIT_OK && !cfg_ok ? ws_cli_error("%s", why) : rc;
}

/* ---- dump ------------------------------------------------------------------------ */

typedef struct dump_state {
  const trace_opts *o;
  const char *const *names;
  size_t nnames, printed;
  uint64_t linked[64]; /* DRAM reads of the followed request (--uop) */
  size_t nlinked;
} dump_state;

static bool is_linked(const dump_state *d, uint64_t uop) {
  for (size_t i = 0; i < d->nlinked; i++)
    if (d->linked[i] == uop) return true;
  return false;
}

static bool wanted(dump_state *d, const ws_probe_event *ev) {
  const trace_opts *o = d->o;
  if (o->kinds && !(o->kinds >> ev->kind & 1u)) return false;
  if (o->has_sm && ev->sm != o->sm) return false;
  if (!o->has_uop) return true;
  if (ev->kind == WS_PEV_DRAM && ev->link == o->uop && ev->uop) {
    if (d->nlinked < 64 && !is_linked(d, ev->uop)) d->linked[d->nlinked++] = ev->uop;
    return true;
  }
  return ev->uop == o->uop || (ev->uop && is_linked(d, ev->uop));
}

/* Prints the wanted records of one cursor; false once --limit is reached. */
static bool dump_cursor(dump_state *d, ws_wst_cursor *cur, ws_ctx *ctx, int *rc) {
  ws_probe_event ev;
  uint32_t launch;
  bool got = true;
  uint32_t cur_launch = UINT32_MAX;
  while (got) {
    if (d->o->has_limit && d->printed >= d->o->limit) return false;
    if (ws_wst_cursor_next(cur, &ev, &launch, &got) != WS_OK) {
      *rc = ws_cli_error("%s", ws_errmsg(ctx)); /* a damaged chunk: go on with the next */
      got = true;
      continue;
    }
    if (!got) break;
    if (launch != cur_launch) d->nlinked = 0; /* micro-op ids count per launch */
    cur_launch = launch;
    if (!wanted(d, &ev)) continue;
    ws_evtext_row(stdout, WS_EVTEXT_ALIGNED, &ev, launch, d->names, d->nnames);
    d->printed++;
  }
  return true;
}

static int cmd_dump(const trace_opts *o, ws_wst_reader *r, ws_ctx *ctx) {
  int rc = check_launch(o, r);
  if (rc != WS_EXIT_OK) return rc;
  dump_state d = {.o = o};
  d.names = ws_wst_names(r, &d.nnames);
  ws_evtext_header(stdout, WS_EVTEXT_ALIGNED);
  size_t nl = ws_wst_launch_count(r);
  bool per_launch = o->has_launch || o->has_cycles, more = true;
  for (size_t i = 0; more && i < (per_launch ? nl : 1); i++) {
    if (o->has_launch && i != o->launch) continue;
    ws_wst_cursor *cur = NULL;
    ws_status st = per_launch ? ws_wst_cursor_open_launch(r, (uint32_t)i, o->cycle_begin, o->cycle_end, &cur)
                              : ws_wst_cursor_open(r, &cur);
    if (st != WS_OK) {
      ws_wst_cursor_close(cur);
      return ws_cli_error("%s", ws_errmsg(ctx));
    }
    d.nlinked = 0;
    more = dump_cursor(&d, cur, ctx, &rc);
    ws_wst_cursor_close(cur);
  }
  int drc = damaged(r);
  return rc != WS_EXIT_OK ? rc : drc;
}

/* ---- stats ----------------------------------------------------------------------- */

static ws_status write_json(ws_ctx *ctx, const char *path, const ws_tstats *t) {
  if (!strcmp(path, "-")) {
    ws_tstats_write_json(t, stdout);
    return WS_OK;
  }
  char *buf = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&buf, &size);
  if (!mem) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  ws_tstats_write_json(t, mem);
  ws_status st = fclose(mem) == 0 ? ws_file_write_atomic(ctx, path, buf, size)
                                  : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  free(buf);
  return st;
}

static void print_filtered_note(const ws_wst_reader *r, uint32_t launch) {
  size_t nl = ws_wst_launch_count(r);
  for (size_t i = 0; i < nl; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(r, i);
    if ((launch == UINT32_MAX || launch == i) && l->events < l->events_seen) {
      fprintf(stderr,
              "warpscope: note: launch %zu was recorded with filters (%" PRIu64 " of %" PRIu64
              " events): its counters are partial\n",
              i, l->events, l->events_seen);
    }
  }
}

static int cmd_stats(const trace_opts *o, ws_wst_reader *r, ws_ctx *ctx) {
  int rc = check_launch(o, r);
  if (rc != WS_EXIT_OK) return rc;
  uint32_t launch = o->has_launch ? o->launch : UINT32_MAX;
  ws_tstats *t = NULL;
  if (ws_tstats_from_trace(ctx, r, launch, &t) != WS_OK) {
    rc = ws_cli_error("%s", ws_errmsg(ctx));
    damaged(r);
    return rc;
  }
  print_filtered_note(r, launch);
  if (!o->json || strcmp(o->json, "-")) {
    size_t nl = ws_wst_launch_count(r);
    if (o->has_launch || nl == 1) {
      uint32_t l = o->has_launch ? o->launch : 0;
      printf("counters of launch %u (%s), rebuilt from its records\n", l,
             kernel_name(r, ws_wst_launch(r, l)->kernel));
    } else
      printf("counters of %zu launches, added up, rebuilt from their records\n", nl);
    for (size_t i = 0; i < ws_tstats_count(t); i++)
      printf("  %-40s %" PRIu64 "\n", ws_tstats_name(t, i), ws_tstats_value(t, i));
  }
  if (o->json && write_json(ctx, o->json, t) != WS_OK) rc = ws_cli_error("%s", ws_errmsg(ctx));
  ws_tstats_destroy(t);
  int drc = damaged(r);
  return rc != WS_EXIT_OK ? rc : drc;
}

/* ---- export ---------------------------------------------------------------------- */

static int cmd_export(const trace_opts *o, ws_wst_reader *r, ws_ctx *ctx) {
  int rc = check_launch(o, r);
  if (rc != WS_EXIT_OK) return rc;
  if (ws_wst_warning(r))
    return ws_cli_error("%s (nothing exported from a damaged trace; 'trace dump' shows what is intact)",
                        ws_wst_warning(r));
  ws_export_opts eo = {.launch = o->has_launch ? o->launch : UINT32_MAX,
                       .cycle_begin = o->cycle_begin,
                       .cycle_end = o->cycle_end,
                       .window_cycles = o->window,
                       .flows = !o->no_flows,
                       .interrupt = ws_cli_catch_interrupts()};
  bool to_stdout = !o->out || !strcmp(o->out, "-");
  ws_file_stream *s = NULL;
  if (!to_stdout && ws_file_stream_open(ctx, o->out, &s) != WS_OK) return ws_cli_error("%s", ws_errmsg(ctx));
  FILE *out = to_stdout ? stdout : ws_file_stream_fp(s);
  ws_export_result res;
  ws_status st = !strcmp(o->format, "csv") ? ws_export_csv(ctx, r, &eo, out, &res)
                                           : ws_export_perfetto(ctx, r, &eo, out, &res);
  if (st == WS_OK && s) st = ws_file_stream_commit(ctx, s);
  ws_file_stream_close(s);
  if (st != WS_OK) return ws_cli_error("%s", ws_errmsg(ctx));
  if (res.reordered || res.skipped)
    fprintf(stderr,
            "warpscope: note: %" PRIu64 " slices moved to keep their track in order, %" PRIu64
            " records naming units the GPU lacks left out\n",
            res.reordered, res.skipped);
  return WS_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------------ */

int ws_cli_trace_command(int argc, char **argv) {
  trace_opts o;
  memset(&o, 0, sizeof o);
  bool help = false;
  int rc = parse(argc, argv, &o, &help);
  if (help) {
    fputs(trace_help, stdout);
    return WS_EXIT_OK;
  }
  if (rc != WS_EXIT_OK) return rc;
  ws_ctx *ctx = ws_ctx_create();
  ws_wst_reader *r = NULL;
  if (ws_wst_open(ctx, o.path, &r) != WS_OK) {
    rc = ws_cli_error("%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    return rc;
  }
  if (!strcmp(o.sub, "info"))
    rc = cmd_info(ctx, &o, r);
  else if (!strcmp(o.sub, "dump"))
    rc = cmd_dump(&o, r, ctx);
  else if (!strcmp(o.sub, "stats"))
    rc = cmd_stats(&o, r, ctx);
  else
    rc = cmd_export(&o, r, ctx);
  ws_wst_close(r);
  ws_ctx_destroy(ctx);
  return rc;
}
