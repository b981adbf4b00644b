/* traceopt.c - the trace options every launching command shares: --trace
 * FILE records every micro-op into a .wst file (traces/wst.h), filtered at
 * record time by --trace-kernels, --trace-sms, --trace-cycles and
 * --trace-follow-only; with a followed pixel the journey probe
 * (traces/journey.h) listens too and its ledger goes into the trace.
 *
 * Design: the flags are checked before anything runs (SM numbers against
 * the GPU once it is known); the file appears only when the run succeeded
 * (the writer's commit renames it into place). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

const char ws_cli_traceopt_help[] = WS_CLI_TRACEOPT_HELP;

static int parse_sms(const char *cmd, const char *arg, ws_cli_traceopt *o) {
  for (const char *p = arg; *p;) {
    uint64_t lo, hi;
    char *end;
    if (*p < '0' || *p > '9') goto bad;
    lo = strtoull(p, &end, 10);
    hi = lo;
    if (*end == '-') {
      if (end[1] < '0' || end[1] > '9') goto bad;
      hi = strtoull(end + 1, &end, 10);
    }
    if (hi < lo || hi >= WS_CFG_MAX_SMS) goto bad;
    for (uint64_t s = lo; s <= hi; s++) {
      if (o->nsms == WS_CFG_MAX_SMS) goto bad;
      o->sms[o->nsms++] = (uint32_t)s;
    }
    if (*end == ',' && end[1])
      end++;
    else if (*end)
      goto bad;
    p = end;
  }
  if (o->nsms) return WS_EXIT_OK;
bad:
  return ws_cli_usage_error(cmd,
                            "--trace-sms expects SM numbers and ranges below %u such as 0-3,7, found '%s'",
                            WS_CFG_MAX_SMS, arg);
}

static int parse_cycles(const char *cmd, const char *arg, ws_cli_traceopt *o) {
  if (ws_cli_parse_cycle_range(arg, &o->cycle_begin, &o->cycle_end)) return WS_EXIT_OK;
  return ws_cli_usage_error(cmd, "--trace-cycles expects A:B with A < B (or A:), found '%s'", arg);
}

static int parse_kernels(const char *cmd, const char *arg, ws_cli_traceopt *o) {
  free(o->kernel_text);
  free(o->kernels);
  o->kernel_text = strdup(arg);
  size_t n = 1;
  for (const char *p = arg; *p; p++) n += *p == ',';
  o->kernels = calloc(n, sizeof *o->kernels);
  if (!o->kernel_text || !o->kernels) return ws_cli_error("out of memory");
  o->nkernels = 0;
  for (char *save = NULL, *k = strtok_r(o->kernel_text, ",", &save); k; k = strtok_r(NULL, ",", &save))
    o->kernels[o->nkernels++] = k;
  if (!o->nkernels || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',')
    return ws_cli_usage_error(cmd, "--trace-kernels expects kernel names separated by commas, found '%s'",
                              arg);
  return WS_EXIT_OK;
}

int ws_cli_traceopt_take(const char *cmd, ws_cli_traceopt *o, int c, const char *arg, bool *taken) {
  *taken = true;
  switch (c) {
  case WS_CLI_TRACE:
    if (!*arg) return ws_cli_usage_error(cmd, "--trace needs a file name");
    o->path = arg;
    return WS_EXIT_OK;
  case WS_CLI_TRACE_KERNELS: return parse_kernels(cmd, arg, o);
  case WS_CLI_TRACE_SMS: return parse_sms(cmd, arg, o);
  case WS_CLI_TRACE_CYCLES: o->has_cycles = true; return parse_cycles(cmd, arg, o);
  case WS_CLI_TRACE_FOLLOW_ONLY: o->follow_only = true; return WS_EXIT_OK;
  default: *taken = false; return WS_EXIT_OK;
  }
}

int ws_cli_traceopt_check(const char *cmd, const ws_cli_traceopt *o, bool functional, bool following) {
  bool filters = o->nkernels || o->nsms || o->has_cycles || o->follow_only;
  if (filters && !o->path)
    return ws_cli_usage_error(cmd, "--trace-kernels, --trace-sms, --trace-cycles and "
                                   "--trace-follow-only need --trace FILE");
  if (o->path && functional)
    return ws_cli_usage_error(cmd,
                              "--trace needs the timing model (micro-ops have cycles); drop --functional");
  if (o->follow_only && !following)
    return ws_cli_usage_error(cmd, "--trace-follow-only needs a followed pixel (--follow-pixel X,Y)");
  return WS_EXIT_OK;
}

ws_status ws_cli_traceopt_check_gpu(ws_ctx *ctx, const ws_cli_traceopt *o, const ws_gpu_cfg *cfg) {
  for (size_t i = 0; i < o->nsms; i++)
    if (o->sms[i] >= cfg->gpu.num_sms)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "--trace-sms: SM %u does not exist on %s (SMs 0-%u)", o->sms[i],
                         cfg->gpu.name, cfg->gpu.num_sms - 1);
  return WS_OK;
}

static ws_status start_writer(ws_ctx *ctx, const ws_cli_traceopt *o, const ws_gpu_cfg *cfg, ws_cli_trace *t) {
  ws_wst_filter f = {.kernels = (const char *const *)o->kernels,
                     .kernel_count = o->nkernels,
                     .sms = o->sms,
                     .sm_count = o->nsms,
                     .cycle_begin = o->cycle_begin,
                     .cycle_end = o->cycle_end,
                     .follow_only = o->follow_only};
  ws_status st = ws_wst_writer_create(ctx, o->path, cfg, &f, &t->writer);
  if (st == WS_OK) ws_wst_writer_disassemble(t->writer, true);
  const char *names[64];
  uint32_t n = ws_device_stall_count();
  for (uint32_t i = 0; i < n && i < 64; i++) names[i] = ws_device_stall_name(i);
  if (st == WS_OK) st = ws_wst_writer_set_names(t->writer, names, n < 64 ? n : 64);
  return st;
}

ws_status ws_cli_trace_start(ws_ctx *ctx, const ws_cli_traceopt *o, ws_device *dev, bool follow,
                             ws_cli_trace *t) {
  memset(t, 0, sizeof *t);
  ws_status st = WS_OK;
  if (o->path) st = start_writer(ctx, o, ws_device_cfg(dev), t);
  if (st == WS_OK && follow) st = ws_journey_create(ctx, &t->journey);
  if (st != WS_OK) return st;
  ws_tee_init(&t->tee, t->writer ? ws_wst_writer_probe(t->writer) : NULL,
              t->journey ? ws_journey_probe(t->journey) : NULL);
  if (t->writer || t->journey) ws_device_set_probe(dev, &t->tee.probe);
  return WS_OK;
}

static void print_summary(const char *path, const ws_wst_counts *c, uint64_t file_bytes) {
  uint64_t seen = 0, kept = 0;
  for (int k = 0; k < WS_PEV_COUNT; k++) {
    seen += c->seen[k];
    kept += c->recorded[k];
  }
  fflush(stdout); /* after what the command printed, in a terminal or a pipe */
  fprintf(stderr, "trace: %s: %" PRIu64 " of %" PRIu64 " micro-ops recorded", path, kept, seen);
  if (file_bytes) fprintf(stderr, ", %" PRIu64 " bytes", file_bytes);
  if (file_bytes && kept) fprintf(stderr, " (%.2f bytes per micro-op)", (double)file_bytes / (double)kept);
  fputc('\n', stderr);
}

ws_status ws_cli_trace_regions(ws_cli_trace *t, const ws_runtime_region *regions, size_t count) {
  return t->writer ? ws_wst_writer_set_regions(t->writer, regions, count) : WS_OK;
}

ws_status ws_cli_trace_finish(ws_ctx *ctx, const ws_cli_traceopt *o, ws_cli_trace *t, const ws_runtime *rt) {
  ws_status st = t->journey ? ws_journey_status(t->journey, ctx) : WS_OK;
  if (!t->writer || st != WS_OK) return st;
  if (rt) {
    size_t n;
    const ws_runtime_record *tl = ws_runtime_timeline(rt, &n);
    st = ws_wst_writer_set_timeline(t->writer, tl, n);
    const ws_runtime_region *g = ws_runtime_regions(rt, &n);
    if (st == WS_OK) st = ws_wst_writer_set_regions(t->writer, g, n);
  }
  if (st == WS_OK && t->journey) {
    char *text = NULL;
    size_t size = 0;
    st = ws_journey_to_text(ctx, t->journey, &text, &size);
    if (st == WS_OK) st = ws_wst_writer_set_journey(t->writer, text, size);
    free(text);
  }
  if (st == WS_OK) st = ws_wst_writer_commit(t->writer);
  if (st == WS_OK) {
    ws_wst_reader *r = NULL; /* the size on disk, as a reader sees it */
    uint64_t bytes = 0;
    if (ws_wst_open(ctx, o->path, &r) == WS_OK) bytes = ws_wst_file_bytes(r);
    ws_wst_close(r);
    if (!o->quiet) print_summary(o->path, ws_wst_writer_counts(t->writer), bytes);
  }
  return st;
}

/* The device may be gone already: it calls the probe only while it launches. */
void ws_cli_trace_free(ws_cli_trace *t) {
  ws_wst_writer_free(t->writer);
  ws_journey_destroy(t->journey);
  memset(t, 0, sizeof *t);
}

void ws_cli_traceopt_free(ws_cli_traceopt *o) {
  free(o->kernels);
  free(o->kernel_text);
  o->kernels = NULL;
  o->kernel_text = NULL;
}
