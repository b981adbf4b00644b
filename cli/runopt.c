/* runopt.c - the options every launching command shares: --report prints
 * the per-kernel performance report (and what the simulation cost the
 * host, on stderr), --stats-json FILE dumps every counter,
 * --functional skips the timing model, --check turns on the checks.
 *
 * Design: the JSON is rendered in memory and written with one atomic rename,
 * so a failure never leaves a half-written stats file behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "isa/objfile.h"
#include "sim/host/report.h"

const char ws_cli_runopt_help[] =
    "  --report             print the performance report of the launch (cycles, IPC, occupancy,\n"
    "                       stall reasons, cache hit rates, DRAM traffic, FLOP/s; docs/stats.md)\n"
    "                       and, on stderr, what simulating it cost: wall and CPU seconds, warp\n"
    "                       instructions per CPU second\n"
    "  --stats-json FILE    write every counter of the launch to FILE as JSON\n"
    "  --functional         compute values only, without the timing model (fastest)\n" WS_CLI_CHECK_HELP
        WS_CLI_WATCHOPT_HELP WS_CLI_TRACEOPT_HELP;

int ws_cli_check_take(const char *cmd, const char *arg, uint32_t *checks) {
  static const struct {
    const char *name;
    uint32_t bit;
  } names[] = {{"race", WS_CHECK_RACE}, {"init", WS_CHECK_INIT}, {"sync", WS_CHECK_SYNC}};
  for (const char *p = arg;; p++) {
    size_t n = strcspn(p, ",");
    size_t i = 0;
    while (i < sizeof names / sizeof names[0] && (strlen(names[i].name) != n || strncmp(p, names[i].name, n)))
      i++;
    if (i == sizeof names / sizeof names[0])
      return ws_cli_usage_error(cmd, "--check expects race, init or sync (comma-separated), found '%.*s'",
                                (int)n, p);
    if (*checks & names[i].bit) return ws_cli_usage_error(cmd, "--check names %s twice", names[i].name);
    *checks |= names[i].bit;
    p += n;
    if (!*p) return WS_EXIT_OK;
  }
}

static int source_view_take(const char *cmd, const char *arg, uint32_t *lines) {
  if (!arg) {
    *lines = WS_CLI_SOURCE_VIEW_DEFAULT_LINES;
    return WS_EXIT_OK;
  }
  char *end = NULL;
  unsigned long n = *arg >= '0' && *arg <= '9' ? strtoul(arg, &end, 10) : 0;
  if (!end || *end || n == 0 || n > 100000)
    return ws_cli_usage_error(cmd, "--source-view=N expects a line count from 1 to 100000, found '%s'", arg);
  *lines = (uint32_t)n;
  return WS_EXIT_OK;
}

int ws_cli_runopt_take(const char *cmd, ws_cli_runopt *o, int c, const char *arg, bool *taken) {
  *taken = true;
  if (c == 'R')
    o->report = true;
  else if (c == 'F')
    o->functional = true;
  else if (c == 'J')
    o->stats_json = arg;
  else if (c == WS_CLI_CHECK)
    return ws_cli_check_take(cmd, arg, &o->checks);
  else if (c == WS_CLI_SOURCE_VIEW)
    return source_view_take(cmd, arg, &o->source_lines);
  else {
    int rc = ws_cli_traceopt_take(cmd, &o->trace, c, arg, taken);
    return *taken ? rc : ws_cli_watchopt_take(cmd, &o->watch, c, arg, taken);
  }
  return WS_EXIT_OK;
}

int ws_cli_runopt_check(const char *cmd, const ws_cli_runopt *o) {
  if (o->functional && (o->report || o->stats_json))
    return ws_cli_usage_error(cmd, "--report and --stats-json need the timing model; drop --functional");
  if (o->functional && o->source_lines)
    return ws_cli_usage_error(cmd, "--source-view needs the timing model; drop --functional");
  if (o->stats_json && !*o->stats_json) return ws_cli_usage_error(cmd, "--stats-json needs a file name");
  if (o->functional && o->watch.max_cycles)
    return ws_cli_usage_error(cmd, "--max-cycles needs the timing model; drop --functional");
  return ws_cli_traceopt_check(cmd, &o->trace, o->functional, false);
}

ws_status ws_cli_runopt_apply(ws_ctx *ctx, ws_cli_runopt *o, ws_device *dev) {
  ws_device_set_mode(dev, o->functional ? WS_MODE_FUNCTIONAL : WS_MODE_TIMING);
  ws_device_set_checks(dev, o->checks);
  ws_cli_watchopt_apply(&o->watch, dev);
  ws_device_set_pcprof(dev, o->source_lines ? &o->prof : NULL);
  ws_cost_start(&o->clock, WS_COST_CPU_PROCESS);
  return ws_cli_trace_start(ctx, &o->trace, dev, false, &o->rec);
}

void ws_cli_runopt_free(ws_cli_runopt *o) {
  ws_cli_trace_free(&o->rec);
  ws_cli_traceopt_free(&o->trace);
  ws_pcprof_free(&o->prof);
}

void ws_cli_runopt_print_cost(const ws_cli_runopt *o, const ws_launch_stats *ls) {
  if (o->report || o->source_lines) ws_cli_print_cost(ws_cost_read(&o->clock), ls->warp_insns, ls->sampled);
}

static ws_status write_stats_json(ws_ctx *ctx, const char *path, const ws_stats *stats,
                                  ws_file_batch *outputs) {
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  if (!mem) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory rendering the stats");
  ws_stats_write_json(stats, mem, true);
  bool ok = fclose(mem) == 0;
  ws_status st = !ok       ? ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory rendering the stats")
                 : outputs ? ws_file_batch_add(ctx, outputs, path, text, size)
                           : ws_file_write_atomic(ctx, path, text, size);
  free(text);
  return st;
}

/* Whether the file is text whose lines the kernel's lines number. */
static bool numbers_lines_of(const char *path) {
  const char *dot = strrchr(path, '.');
  return dot && (!strcmp(dot, ".cu") || !strcmp(dot, ".ptx") || !strcmp(dot, ".wsa"));
}

/* The hottest lines; the file is read again for their text (the command
 * loaded it, so it is there; if it is no longer readable the lines are
 * shown without their text). */
static ws_status print_source_view(ws_ctx *ctx, ws_cli_runopt *o) {
  ws_report_line *lines = NULL;
  size_t count = 0;
  ws_status st = ws_report_lines(ctx, &o->prof, o->source_kernel, &lines, &count);
  if (st != WS_OK) return st;
  const char *path = o->source_path ? o->source_path : "";
  const char *base = strrchr(path, '/');
  ws_report_source src = {.name = base ? base + 1 : path};
  char *text = NULL;
  size_t size = 0;
  if (numbers_lines_of(path) &&
      ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "source", &text, &size) == WS_OK &&
      !ws_objfile_is_object(text, size)) {
    src.text = text;
    src.size = size;
  }
  ws_ctx_clear(ctx);
  ws_report_print_lines(stdout, lines, count, o->source_lines, &src);
  free(text);
  free(lines);
  return WS_OK;
}

ws_status ws_cli_runopt_finish(ws_ctx *ctx, ws_cli_runopt *o, const ws_device *dev, const char *kernel_name,
                               ws_dim3 grid, ws_dim3 block, const ws_launch_stats *ls,
                               ws_file_batch *outputs) {
  if (o->report || o->source_lines)
    ws_report_print(stdout, ws_device_cfg(dev), kernel_name, grid, block, ls, ws_device_stats(dev));
  ws_status st = o->source_lines && o->source_kernel ? print_source_view(ctx, o) : WS_OK;
  if (st != WS_OK) return st;
  st = o->stats_json ? write_stats_json(ctx, o->stats_json, ws_device_stats(dev), outputs) : WS_OK;
  return st == WS_OK ? ws_cli_trace_finish(ctx, &o->trace, &o->rec, NULL) : st;
}
