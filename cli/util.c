/* util.c - shared CLI helpers: error and usage messages, number, dimension,
 * cycle-range and chart-size parsing, a repeated flag refused, a program
 * loaded from .wsa or .wso with its kernel picked, and a run's simulation
 * cost. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/outputs.h"
#include "cli/cli.h"
#include "isa/asm.h"
#include "isa/objfile.h"
#include "plot/chart.h"
#include "ptx/ptx.h"

/* A located library message ("FILE:LINE:COL: error: ...", "a100 (after
 * --set): error: ...") already says "error:" after its location: it keeps
 * its own label, so every message shows exactly one. */
int ws_cli_error(const char *fmt, ...) {
  char msg[WS_ERRMSG_MAX_BYTES + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "warpscope: %s%s\n", strstr(msg, ": error: ") ? "" : "error: ", msg);
  return WS_EXIT_FAIL;
}

int ws_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "warpscope %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry 'warpscope %s --help'.\n", cmd);
  va_end(ap);
  return WS_EXIT_USAGE;
}

int ws_cli_check_files(const char *cmd, const ws_outputs_file *files, size_t n) {
  ws_ctx *ctx = ws_ctx_create();
  if (!ctx) return ws_cli_error("out of memory");
  int rc =
      ws_outputs_check(ctx, files, n) == WS_OK ? WS_EXIT_OK : ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  return rc;
}

int ws_cli_exit_code(const char *cmd, const ws_ctx *ctx, ws_status st) {
  if (st == WS_OK) return WS_EXIT_OK;
  if (st == WS_ERR_USAGE) return ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
  return ws_cli_error("%s", ws_errmsg(ctx));
}

bool ws_cli_parse_u64(const char *text, uint64_t max, uint64_t *out) {
  /* a digit first: strtoull would skip blanks and take a sign */
  if (!text || *text < '0' || *text > '9') return false;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 0);
  if (errno || *end || v > max) return false;
  *out = v;
  return true;
}

bool ws_cli_parse_dim3(const char *text, ws_dim3 *out) {
  uint32_t v[3] = {1, 1, 1};
  const char *p = text;
  for (int i = 0; i < 3; i++) {
    char part[32];
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof part) return false;
    memcpy(part, p, len);
    part[len] = '\0';
    uint64_t x;
    if (!ws_cli_parse_u64(part, UINT32_MAX, &x) || x == 0) return false;
    v[i] = (uint32_t)x;
    p += len;
    if (*p == '\0') break;
    if (i == 2) return false; /* a fourth component */
    p++;
  }
  out->x = v[0];
  out->y = v[1];
  out->z = v[2];
  return true;
}

ws_status ws_cli_load_program(ws_ctx *ctx, const char *path, ws_program **out) {
  return ws_cli_load_source(ctx, path, NULL, NULL, out, NULL);
}

void ws_cli_consts_free(ws_cli_consts *c) {
  free(c->image);
  free(c->syms);
  memset(c, 0, sizeof *c);
}

ws_status ws_cli_load_source(ws_ctx *ctx, const char *path, const ws_cuda_opts *cuda, const ws_ptx_opts *opts,
                             ws_program **out, ws_cli_consts *consts) {
  if (consts) memset(consts, 0, sizeof *consts);
  if (ws_ptx_is_source(path)) {
    ws_ptx_result res;
    ws_status st = ws_ptx_load_file(ctx, path, cuda, opts, &res);
    if (st == WS_OK) *out = ws_ptx_result_take_program(&res);
    if (st == WS_OK && consts) {
      *consts = (ws_cli_consts){res.const_image, res.const_bytes, res.consts, res.nconsts};
      res.const_image = NULL, res.consts = NULL;
    }
    ws_ptx_result_free(&res);
    return st;
  }
  char *data = NULL;
  size_t size = 0;
  ws_status st =
      ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "assembly source or .wso objects", &data, &size);
  if (st != WS_OK) return st;
  if (ws_objfile_is_object(data, size))
    st = ws_objfile_load(ctx, data, size, path, out);
  else
    st = ws_asm_parse(ctx, data, size, path, out);
  free(data);
  return st;
}

ws_status ws_cli_pick_kernel(ws_ctx *ctx, const ws_program *prog, const char *name, const char *path,
                             const ws_kernel **out) {
  if (name) {
    *out = ws_program_find_kernel(prog, name);
    char plain[WS_NAME_MAX];
    ws_ptx_kernel_name(name, plain, sizeof plain); /* a CUDA name: "sgemm<64, 64>" is kernel sgemm_64_64 */
    if (!*out) *out = ws_program_find_kernel(prog, plain);
    if (*out) return WS_OK;
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: no kernel named '%s'", path, name);
  }
  if (prog->nkernels != 1)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s holds %u kernels; choose one with --kernel NAME (first is '%s')", path,
                       prog->nkernels, prog->kernels[0].name);
  *out = &prog->kernels[0];
  return WS_OK;
}

int ws_cli_once(const char *cmd, ws_cli_seen *seen, const struct option *longs, int c,
                const char *repeatable) {
  if (c < 0 || c >= (int)(64 * sizeof seen->bits / sizeof seen->bits[0]) || c == ':' || c == '?' || c == 'h')
    return WS_EXIT_OK;
  const char *name = NULL;
  for (const struct option *o = longs; o->name; o++)
    if (o->val == c && !o->flag) name = o->name;
  if (!name) return WS_EXIT_OK;
  size_t len = strlen(name);
  for (const char *p = strstr(repeatable, name); p; p = strstr(p + 1, name))
    if ((p == repeatable || p[-1] == ',') && (p[len] == ',' || !p[len])) return WS_EXIT_OK;
  uint64_t bit = 1ull << (c % 64);
  if (seen->bits[c / 64] & bit)
    return ws_cli_usage_error(cmd, "--%s given twice (one value is allowed; the last would silently win)",
                              name);
  seen->bits[c / 64] |= bit;
  return WS_EXIT_OK;
}

bool ws_cli_parse_cycle_range(const char *text, uint64_t *begin, uint64_t *end) {
  const char *colon = strchr(text, ':');
  char first[32];
  size_t n = colon ? (size_t)(colon - text) : 0;
  if (!colon || n >= sizeof first) return false;
  memcpy(first, text, n);
  first[n] = '\0';
  *end = 0;
  if (!ws_cli_parse_u64(first, UINT64_MAX - 1, begin)) return false;
  return colon[1] == '\0' || (ws_cli_parse_u64(colon + 1, UINT64_MAX, end) && *end > *begin);
}

int ws_cli_chart_size(const char *cmd, const char *text, int32_t *w, int32_t *h) {
  unsigned a, b;
  char tail;
  const char *x = strchr(text, 'x');
  bool digits = text[0] >= '0' && text[0] <= '9' && x && x[1] >= '0' && x[1] <= '9'; /* no blanks, no signs */
  if (!digits || sscanf(text, "%ux%u%c", &a, &b, &tail) != 2 || a < WS_CHART_MIN_SIDE ||
      b < WS_CHART_MIN_SIDE || a > WS_CHART_MAX_SIDE || b > WS_CHART_MAX_SIDE)
    return ws_cli_usage_error(cmd, "--size expects WxH, each %d to %d, found '%s'", WS_CHART_MIN_SIDE,
                              WS_CHART_MAX_SIDE, text);
  *w = (int32_t)a, *h = (int32_t)b;
  return WS_EXIT_OK;
}

void ws_cli_rate_text(double per_s, char *buf, size_t bytes) {
  static const char *const prefix[] = {"", " k", " M", " G"};
  int p = 0;
  while (p < 3 && per_s >= 999.5) {
    per_s /= 1000;
    p++;
  }
  int digits = p == 0 || per_s >= 99.95 ? 0 : per_s >= 9.995 ? 1 : 2;
  snprintf(buf, bytes, "%.*f%s", digits, per_s, prefix[p]);
}

void ws_cli_print_cost(ws_cost cost, uint64_t warp_insns, bool sampled) {
  char rate[32];
  ws_cli_rate_text(ws_cost_rate(warp_insns, cost.cpu_s), rate, sizeof rate);
  fflush(stdout); /* the line follows the report also where both go to one file */
  fprintf(stderr,
          "simulation cost: %.2f s wall, %.2f s CPU, %" PRIu64 " warp instructions, %s per CPU s (%s run)\n",
          cost.wall_s, cost.cpu_s, warp_insns, rate, sampled ? "sampled" : "full");
}
