/* gpuopt.c - the --gpu and --set options every simulating command shares.
 *
 * Design: commands only collect the option values while parsing flags and
 * resolve them once, after parsing, so the order of --gpu and --set on the
 * command line never matters: the preset or file loads first, then the
 * overrides apply in the order given, then the whole is validated (an
 * override may only be consistent together with another). */
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "cli/cli.h"

const char ws_cli_gpuopt_help[] =
    "  --gpu NAME|FILE.ini  the GPU: a preset (see 'warpscope gpus') or an INI file (default a100)\n"
    "  --set SECTION.KEY=VALUE  override one preset key, e.g. --set l2.size_kib=20480 (repeatable)\n";

/* One --set is checked on its own when given (form, key, value within the
 * key's range): a malformed one is a usage error. Whether the overrides
 * suit the GPU together is known only when they are applied to it. */
int ws_cli_gpuopt_add_set(const char *cmd, ws_cli_gpuopt *o, const char *assignment) {
  if (o->nsets >= WS_CLI_MAX_SETS)
    return ws_cli_usage_error(cmd, "at most %d --set options", WS_CLI_MAX_SETS);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg scratch = ws_config_default();
  int rc = ws_config_set(ctx, &scratch, assignment) == WS_OK ? WS_EXIT_OK
                                                             : ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  if (rc == WS_EXIT_OK) o->sets[o->nsets++] = assignment;
  return rc;
}

static bool is_path(const char *gpu) {
  size_t n = strlen(gpu);
  return strchr(gpu, '/') || (n > 4 && strcmp(gpu + n - 4, ".ini") == 0);
}

/* A preset name that is none of the presets is a usage error; a file is
 * read when the command runs (an unreadable one fails the run). */
int ws_cli_gpuopt_set_gpu(const char *cmd, ws_cli_gpuopt *o, const char *gpu) {
  if (!*gpu) return ws_cli_usage_error(cmd, "--gpu needs a preset name or an INI file");
  if (!is_path(gpu)) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg scratch;
    int rc = ws_config_load_preset(ctx, gpu, &scratch) == WS_OK
                 ? WS_EXIT_OK
                 : ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    if (rc != WS_EXIT_OK) return rc;
  }
  o->gpu = gpu;
  return WS_EXIT_OK;
}

ws_status ws_cli_gpuopt_resolve(ws_ctx *ctx, const ws_cli_gpuopt *o, ws_gpu_cfg *out) {
  const char *gpu = o->gpu ? o->gpu : "a100";
  ws_gpu_cfg cfg;
  ws_status st = is_path(gpu) ? ws_config_load_file(ctx, gpu, &cfg) : ws_config_load_preset(ctx, gpu, &cfg);
  for (int i = 0; i < o->nsets && st == WS_OK; i++) st = ws_config_set(ctx, &cfg, o->sets[i]);
  if (st == WS_OK && o->nsets > 0) {
    char origin[300], shown[256];
    snprintf(origin, sizeof origin, "%s (after --set)",
             ws_text_escape(shown, sizeof shown, gpu, strlen(gpu)));
    /* every key was in range when given: the combination is the command line's mistake */
    if ((st = ws_config_validate(ctx, &cfg, origin)) != WS_OK) st = WS_ERR_USAGE;
  }
  if (st == WS_OK) *out = cfg;
  return st;
}
