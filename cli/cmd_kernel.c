/* cmd_kernel.c - `warpscope kernel KIND`: prints a generated kernel as .wsa
 * text, the kernel TinyViT32 runs for that layer with the given tile
 * configuration, for students to read, assemble and run by hand.
 *
 * Design: every kind goes through the same generators the model uses, and
 * a configuration the generator refuses is refused here with its reason,
 * so what is printed is always a kernel that assembles and launches on the
 * chosen GPU. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "models/kgen/attngen.h"
#include "models/kgen/gemmgen.h"
#include "models/kgen/nngen.h"

static const char kernel_help[] =
    "usage: warpscope kernel KIND [OPTIONS] [-o FILE]\n\n"
    "Prints a generated kernel as .wsa assembly (docs/kernels.md explains each one).\n"
    "KIND is one of:\n"
    "  gemm        C = A*B (+bias, GELU, +residual): --variant naive|coalesced|smem|\n"
    "              blocktile1d|blocktile2d|vectorized|warptile|async|mma, tile flags below,\n"
    "              --epilogue bias,gelu,residual\n"
    "  flash       fused attention: --head-dim N (default 16), --br N (default 64), --bc N\n"
    "              (default: the largest power of two up to 64 within 255 registers: 16 at\n"
    "              head dim 64)\n"
    "  scores      naive attention, step 1: S = Q K^T * scale for every head\n"
    "  softmax     row softmax (naive attention, step 2), one warp per row\n"
    "  pv          naive attention, step 3: O = P V\n"
    "  layernorm   LayerNorm over rows: --warps N, --fused-add (y = LN(x + a))\n"
    "  gelu        GELU, one thread per element: --threads N per CTA (default 256)\n"
    "  add, add-pos, meanpool   element-wise kernels, one thread per element\n"
    "  patch       4x4 patch extraction of a CHW image\n"
    "  head        mean-pooled vector . w + b, then sigmoid\n"
    "The fixed kernels (scores, softmax, pv, add, add-pos, meanpool, patch, head) read\n"
    "their block size from SR_NTID: one text serves every block size.\n\n"
    "  --variant V         the GEMM ladder step (default blocktile2d)\n"
    "%s"
    "  --epilogue LIST     comma-separated: bias, gelu, residual (default none)\n"
    "%s"
    "  -o FILE             write the text to FILE (atomically) instead of stdout\n"
    "  -h, --help          this text\n"
    "Exit status: 0 on success, 2 on a usage error (a configuration the generator refuses\n"
    "included), 1 when a GPU file cannot be read or the output cannot be written, 130\n"
    "when interrupted (Ctrl-C).\n";

typedef struct kernel_opts {
  ws_cli_gemmopt gemm;
  ws_cli_gpuopt gpu;
  uint32_t epilogue, head_dim, br, bc, warps, threads;
  bool fused_add;
  const char *out;
} kernel_opts;

static const struct option longs[] = {{"variant", required_argument, NULL, 'v'},
                                      {"epilogue", required_argument, NULL, 'e'},
                                      {"head-dim", required_argument, NULL, 'd'},
                                      {"br", required_argument, NULL, 'r'},
                                      {"bc", required_argument, NULL, 'c'},
                                      {"warps", required_argument, NULL, 'w'},
                                      {"fused-add", no_argument, NULL, 'a'},
                                      {"gpu", required_argument, NULL, 'G'},
                                      {"set", required_argument, NULL, 'S'},
                                      {"help", no_argument, NULL, 'h'},
                                      WS_CLI_GEMMOPT_LONGS,
                                      {NULL, 0, NULL, 0}};

static int parse_epilogue(const char *text, uint32_t *out) {
  static const struct {
    const char *name;
    uint32_t flag;
  } names[] = {
      {"bias", WS_GEMMGEN_EPI_BIAS}, {"gelu", WS_GEMMGEN_EPI_GELU}, {"residual", WS_GEMMGEN_EPI_RESIDUAL}};
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text);
  *out = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    size_t i = 0;
    while (i < 3 && strcmp(tok, names[i].name)) i++;
    if (i == 3)
      return ws_cli_usage_error("kernel", "--epilogue expects bias, gelu or residual, found '%s'", tok);
    if (*out & names[i].flag) return ws_cli_usage_error("kernel", "--epilogue names %s twice", tok);
    *out |= names[i].flag;
  }
  return WS_EXIT_OK;
}

static int parse_count(const char *flag, const char *text, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(text, UINT32_MAX, &v) || v == 0)
    return ws_cli_usage_error("kernel", "%s expects a positive integer, found '%s'", flag, text);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

static int take(kernel_opts *o, int c, const char *arg) {
  switch (c) {
  case 'v': o->gemm.variant = arg; return WS_EXIT_OK;
  case 'e': return parse_epilogue(arg, &o->epilogue);
  case 'd': return parse_count("--head-dim", arg, &o->head_dim);
  case 'r': return parse_count("--br", arg, &o->br);
  case 'c': return parse_count("--bc", arg, &o->bc);
  case 'w': return parse_count("--warps", arg, &o->warps);
  case 'a': o->fused_add = true; return WS_EXIT_OK;
  case 'o': o->out = arg; return WS_EXIT_OK;
  case 'G': return ws_cli_gpuopt_set_gpu("kernel", &o->gpu, arg);
  case 'S': return ws_cli_gpuopt_add_set("kernel", &o->gpu, arg);
  default:
    if (c == WS_CLI_GEMMOPT_FIRST + WS_CLI_GEMM_TILES - 1) { /* --threads serves both */
      int rc = ws_cli_gemmopt_take("kernel", &o->gemm, c, arg);
      o->threads = o->gemm.tiles[WS_CLI_GEMM_TILES - 1];
      return rc;
    }
    if (c >= WS_CLI_GEMMOPT_FIRST && c < WS_CLI_GEMMOPT_FIRST + WS_CLI_GEMM_TILES)
      return ws_cli_gemmopt_take("kernel", &o->gemm, c, arg);
    return ws_cli_usage_error("kernel", "unknown option");
  }
}

static int parse_flags(int argc, char **argv, kernel_opts *o) {
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("kernel", &seen, longs, c, "set")) != WS_EXIT_OK) break;
    if (c == 'h') {
      printf(kernel_help, ws_cli_gemmopt_help, ws_cli_gpuopt_help);
      return -1;
    }
    if (c == ':') return ws_cli_usage_error("kernel", "option '%s' needs a value", argv[optind - 1]);
    if (c == '?') return ws_cli_usage_error("kernel", "unknown option '%s'", argv[optind - 1]);
    rc = take(o, c, optarg);
  }
  return rc;
}

static ws_status gemm_source(ws_ctx *ctx, const kernel_opts *o, const ws_gpu_cfg *cfg, char **text) {
  ws_gemmgen_cfg g;
  ws_status st = ws_cli_gemmopt_resolve(ctx, &o->gemm, &g);
  g.epilogue = o->epilogue;
  if (st == WS_OK) st = ws_gemmgen_check(ctx, &g, cfg);
  return st == WS_OK ? ws_gemmgen_emit(ctx, &g, text) : st;
}

static ws_status flash_source(ws_ctx *ctx, const kernel_opts *o, const ws_gpu_cfg *cfg, char **text) {
  uint32_t br = o->br ? o->br : 64, dh = o->head_dim ? o->head_dim : 16;
  const ws_attngen_flash_cfg fc = {br, o->bc ? o->bc : ws_attngen_flash_default_bc(dh, br)};
  ws_status st = ws_attngen_flash_validate(ctx, cfg, dh, &fc);
  return st == WS_OK ? ws_attngen_flash_source(ctx, cfg, dh, &fc, text) : st;
}

/* The kernel text for `kind`; WS_ERR_NOT_FOUND-style usage is decided by the caller. */
static ws_status generate(ws_ctx *ctx, const char *kind, const kernel_opts *o, const ws_gpu_cfg *cfg,
                          char **text, bool *known) {
  uint32_t warps = o->warps ? o->warps : 4, threads = o->threads ? o->threads : 256;
  *known = true;
  if (!strcmp(kind, "gemm")) return gemm_source(ctx, o, cfg, text);
  if (!strcmp(kind, "flash")) return flash_source(ctx, o, cfg, text);
  if (!strcmp(kind, "scores")) return ws_attngen_scores_source(ctx, text);
  if (!strcmp(kind, "pv")) return ws_attngen_pv_source(ctx, text);
  if (!strcmp(kind, "softmax")) return ws_nngen_softmax_source(ctx, text);
  if (!strcmp(kind, "layernorm"))
    return ws_nngen_layernorm_source(ctx, o->fused_add ? WS_NNGEN_NORM_ADD : WS_NNGEN_NORM_PLAIN, warps,
                                     text);
  if (!strcmp(kind, "gelu")) return ws_nngen_gelu_source(ctx, threads, text);
  if (!strcmp(kind, "add")) return ws_nngen_add_source(ctx, text);
  if (!strcmp(kind, "add-pos")) return ws_nngen_add_pos_source(ctx, text);
  if (!strcmp(kind, "meanpool")) return ws_nngen_meanpool_source(ctx, text);
  if (!strcmp(kind, "patch")) return ws_nngen_patch_source(ctx, text);
  if (!strcmp(kind, "head")) return ws_nngen_head_source(ctx, text);
  *known = false;
  return WS_OK;
}

/* --warps and --threads shape the generated kernels that take them; the
 * fixed files read their block size at run time, so the flag would be ignored
 * there. 0 when the flags fit the kind, else the usage error's exit code. */
static int check_block_flags(const char *kind, const kernel_opts *o) {
  if (o->warps && strcmp(kind, "layernorm"))
    return ws_cli_usage_error("kernel", "--warps applies to layernorm only, not to %s", kind);
  if (o->threads && strcmp(kind, "gemm") && strcmp(kind, "gelu"))
    return ws_cli_usage_error("kernel", "--threads applies to gemm and gelu only, not to %s", kind);
  return 0;
}

int ws_cli_kernel(int argc, char **argv) {
  kernel_opts o;
  memset(&o, 0, sizeof o);
  o.gemm.default_variant = WS_GEMMGEN_BLOCKTILE2D;
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  if (optind != argc - 1)
    return ws_cli_usage_error("kernel", "expected one KIND (gemm, flash, layernorm, ...)");
  const char *kind = argv[optind];
  rc = check_block_flags(kind, &o);
  if (!rc && !strcmp(kind, "gemm")) rc = ws_cli_gemmopt_check("kernel", "--variant", &o.gemm);
  if (rc) return rc;
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  char *text = NULL;
  bool known = true, refused = false;
  ws_status st = ws_cli_gpuopt_resolve(ctx, &o.gpu, &cfg);
  refused = st == WS_ERR_USAGE;
  if (st == WS_OK) refused = (st = generate(ctx, kind, &o, &cfg, &text, &known)) != WS_OK;
  if (!known)
    rc = ws_cli_usage_error("kernel", "unknown kernel kind '%s' (see warpscope kernel --help)", kind);
  else if (st == WS_OK && o.out)
    st = ws_file_write_atomic(ctx, o.out, text, strlen(text));
  else if (st == WS_OK)
    fputs(text, stdout);
  /* the flags are this command's only input: a configuration the generator
   * refuses is a command-line error, like the same flags given to run */
  if (known)
    rc = st == WS_OK ? WS_EXIT_OK
         : refused   ? ws_cli_usage_error("kernel", "%s", ws_errmsg(ctx))
                     : ws_cli_error("%s", ws_errmsg(ctx));
  free(text);
  ws_ctx_destroy(ctx);
  return rc;
}
