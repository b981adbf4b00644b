/* cmd_ptx.c - `warpscope ptx`: a PTX file's translation onto the ISA, as
 * .wsa text with each PTX line (and CUDA line) as a comment. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/outputs.h"
#include "cli/cli.h"
#include "ptx/cuda.h"
#include "ptx/ptx.h"

static const char ptx_help[] =
    "usage: warpscope ptx FILE.ptx|FILE.cu [-D NAME[=VALUE]]... [--instantiate 'K<ARGS>']...\n"
    "                     [--max-regs N] [-o OUT.wsa]\n\n"
    "Translates every kernel of FILE onto warpscope's ISA and prints the translation as\n"
    "assembly, each instruction with the PTX line (and, where the PTX carries .loc, the\n"
    "CUDA file:line) it came from, then each kernel's registers per thread and static\n"
    "shared memory. A .cu file is compiled to PTX first by clang (Debian package clang)\n"
    "with warpscope's device-side CUDA headers. 'warpscope exec FILE' runs a kernel of it.\n"
    "What is supported, and how PTX maps onto the ISA: docs/cuda.md.\n\n"
    "  -D NAME[=VALUE]     a macro for the CUDA compile (repeatable), e.g. -D TILE=32\n"
    "  --instantiate K<ARGS>  also emit this instance of a template kernel (repeatable),\n"
    "                      e.g. --instantiate 'sgemm_reg<128,128,8,8,8>'\n"
    "  --max-regs N        registers per thread the allocator may use (1..255, default 255)\n"
    "  -o, --output FILE   write the translation to FILE (atomically) and print the summary\n"
    "  -h, --help          this text\n\n"
    "Exit status: 0 translated, 1 the file could not be read or translated, 2 usage,\n"
    "130 interrupted (Ctrl-C).\n";

#define MAX_DEFINES 64

typedef struct ptx_opts {
  const char *input, *output;
  uint32_t max_regs;
  const char *defines[MAX_DEFINES], *instances[MAX_DEFINES];
  size_t ndefines, ninstances;
} ptx_opts;

static int add_to(const char *flag, const char **list, size_t *n, const char *value) {
  if (!*value) return ws_cli_usage_error("ptx", "%s needs a value", flag);
  if (*n == MAX_DEFINES) return ws_cli_usage_error("ptx", "at most %d %s flags", MAX_DEFINES, flag);
  list[(*n)++] = value;
  return WS_EXIT_OK;
}

static int parse(int argc, char **argv, ptx_opts *o) {
  static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                        {"max-regs", required_argument, NULL, 'r'},
                                        {"instantiate", required_argument, NULL, 'i'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  opterr = 0;
  int c;
  ws_cli_seen seen = {{0}};
  while ((c = getopt_long(argc, argv, ":o:hD:", longs, NULL)) != -1) {
    int rc = ws_cli_once("ptx", &seen, longs, c, "instantiate");
    if (rc != WS_EXIT_OK) return rc;
    if (c == 'D' || c == 'i') {
      rc = c == 'D' ? add_to("-D", o->defines, &o->ndefines, optarg)
                    : add_to("--instantiate", o->instances, &o->ninstances, optarg);
      if (rc != WS_EXIT_OK) return rc;
      continue;
    }
    if (c == 'o' && !*optarg) return ws_cli_usage_error("ptx", "-o needs a file name");
    if (c == 'o') {
      o->output = optarg;
    } else if (c == 'r') {
      char *end = NULL;
      unsigned long v = strtoul(optarg, &end, 10);
      if (!*optarg || *end || optarg[0] == '-' || v < 1 || v > 255)
        return ws_cli_usage_error("ptx", "--max-regs must be 1..255, got '%s'", optarg);
      o->max_regs = (uint32_t)v;
    } else if (c == 'h') {
      fputs(ptx_help, stdout);
      return -1;
    } else if (c == ':') {
      return ws_cli_usage_error("ptx", "option '%s' needs a value", argv[optind - 1]);
    } else {
      return ws_cli_usage_error("ptx", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return ws_cli_usage_error(
        "ptx", optind >= argc ? "expected a .ptx or .cu file" : "expected one file, found %d", argc - optind);
  o->input = argv[optind];
  if (!ws_ptx_is_source(o->input))
    return ws_cli_usage_error("ptx", "'%s': a .ptx or .cu file expected", o->input);
  if ((o->ndefines || o->ninstances) && strcmp(o->input + strlen(o->input) - 3, ".cu") != 0)
    return ws_cli_usage_error("ptx", "-D and --instantiate apply to a .cu file");
  return WS_EXIT_OK;
}

static void summary(const ws_ptx_result *r, FILE *out) {
  for (size_t i = 0; i < r->nkernels; i++) {
    const ws_ptx_kernel_info *k = &r->kernels[i];
    char arrays[64] = "";
    if (k->local_bytes > k->spill_bytes)
      snprintf(arrays, sizeof arrays, "%u bytes of local arrays, ", k->local_bytes - k->spill_bytes);
    fprintf(out,
            "// kernel %s (%s): %u instructions, %u registers/thread, %u bytes spilled, %s%u bytes static "
            "shared%s\n",
            k->name, k->source_name, k->ninsns, k->regs_per_thread, k->spill_bytes, arrays,
            k->static_shared_bytes, k->dynamic_shared ? " (and dynamic shared memory sized at launch)" : "");
  }
}

int ws_cli_ptx(int argc, char **argv) {
  ptx_opts o = {0};
  int rc = parse(argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  const ws_outputs_file files[] = {{"the PTX file", o.input, false}, {"-o", o.output, true}};
  rc = ws_cli_check_files("ptx", files, 2);
  if (rc != WS_EXIT_OK) return rc;
  ws_ctx *ctx = ws_ctx_create();
  ws_ptx_opts po = {.max_regs = o.max_regs};
  ws_ptx_result res;
  ws_cuda_opts co = {
      .defines = o.defines, .ndefines = o.ndefines, .instantiate = o.instances, .ninstantiate = o.ninstances};
  ws_status st = ws_ptx_load_file(ctx, o.input, &co, &po, &res);
  if (st == WS_OK && o.output) {
    st = ws_file_write_atomic(ctx, o.output, res.wsa, strlen(res.wsa));
    if (st == WS_OK) summary(&res, stdout);
  } else if (st == WS_OK) {
    fputs(res.wsa, stdout);
    summary(&res, stdout);
  }
  rc = ws_cli_exit_code("ptx", ctx, st);
  ws_ptx_result_free(&res);
  ws_ctx_destroy(ctx);
  return rc;
}
