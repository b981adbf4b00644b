/* gemmopt.c - the GEMM tile flags shared by `warpscope run` and `warpscope
 * kernel gemm`: --gemm/--variant, --bm --bn --bk --tm --tn --wm --wn
 * --threads.
 *
 * Design: flags override the variant's defaults one by one; when tile
 * sizes change and --threads is not given, the thread count the tiles imply
 * is derived (the generator's rule for that variant), so `--bm 32 --bn 32`
 * alone is a complete request. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char ws_cli_gemmopt_help[] = "  --bm, --bn, --bk N  CTA tile of C (bm x bn) and k depth per step\n"
                                   "  --tm, --tn N        outputs per thread (register blocking)\n"
                                   "  --wm, --wn N        warp tile (warptile, async, mma)\n"
                                   "  --threads N         threads per CTA (default: what the tiles imply)\n";

static const char *const tile_flags[WS_CLI_GEMM_TILES] = {"--bm", "--bn", "--bk", "--tm",
                                                          "--tn", "--wm", "--wn", "--threads"};

int ws_cli_gemmopt_take(const char *cmd, ws_cli_gemmopt *o, int c, const char *arg) {
  int i = c - WS_CLI_GEMMOPT_FIRST;
  uint64_t v;
  if (!ws_cli_parse_u64(arg, UINT32_MAX, &v) || v == 0)
    return ws_cli_usage_error(cmd, "%s expects a positive integer, found '%s'", tile_flags[i], arg);
  o->tiles[i] = (uint32_t)v;
  return WS_EXIT_OK;
}

/* The variant's name and the tile flags are checked together once all
 * flags are in: an unknown variant, or a flag the variant's kernel does not
 * read (--wm with blocktile2d), is a usage error rather than ignored. */
int ws_cli_gemmopt_check(const char *cmd, const char *variant_flag, const ws_cli_gemmopt *o) {
  ws_gemmgen_variant v = o->default_variant;
  if (o->variant) {
    ws_ctx *ctx = ws_ctx_create();
    ws_status st = ws_gemmgen_variant_parse(ctx, o->variant, &v);
    int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error(cmd, "%s: %s", variant_flag, ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    if (rc != WS_EXIT_OK) return rc;
  }
  for (int i = 0; i < WS_CLI_GEMM_TILES; i++)
    if (o->tiles[i] && !ws_gemmgen_uses_tile(v, (uint32_t)i))
      return ws_cli_usage_error(cmd, "%s does not apply to the %s GEMM", tile_flags[i],
                                ws_gemmgen_variant_name(v));
  return WS_EXIT_OK;
}

ws_status ws_cli_gemmopt_resolve(ws_ctx *ctx, const ws_cli_gemmopt *o, ws_gemmgen_cfg *out) {
  ws_gemmgen_variant v = o->default_variant;
  if (o->variant) {
    ws_status st = ws_gemmgen_variant_parse(ctx, o->variant, &v);
    if (st != WS_OK) return st;
  }
  *out = o->variant || !o->has_default_cfg ? ws_gemmgen_defaults(v) : o->default_cfg;
  uint32_t *fields[WS_CLI_GEMM_TILES] = {&out->bm, &out->bn, &out->bk, &out->tm,
                                         &out->tn, &out->wm, &out->wn, &out->threads};
  bool tiles_set = false;
  for (int i = 0; i < WS_CLI_GEMM_TILES; i++)
    if (o->tiles[i]) {
      *fields[i] = o->tiles[i];
      tiles_set |= i < WS_CLI_GEMM_TILES - 1;
    }
  if (tiles_set && !o->tiles[WS_CLI_GEMM_TILES - 1]) out->threads = ws_gemmgen_implied_threads(out);
  return WS_OK;
}
