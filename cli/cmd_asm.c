/* cmd_asm.c - `warpscope asm` and `warpscope disasm`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "cli/cli.h"
#include "isa/asm.h"
#include "isa/objfile.h"

static const char asm_help[] = "usage: warpscope asm FILE.wsa [-o FILE.wso]\n\n"
                               "Assembles FILE.wsa. Without -o, prints each kernel's instruction count,\n"
                               "registers per thread, parameters and static shared memory. With -o, writes\n"
                               "a .wso object that 'warpscope disasm' and 'warpscope exec' read.\n\n"
                               "  -o, --output FILE   write the object to FILE (atomically)\n"
                               "  -h, --help          this text\n";

static const char disasm_help[] = "usage: warpscope disasm FILE [-o OUT.wsa]\n\n"
                                  "Prints the canonical assembly of a .wso object (or of a .wsa file). The\n"
                                  "output assembles back to an identical program.\n\n"
                                  "  -o, --output FILE   write to FILE instead of standard output\n"
                                  "  -h, --help          this text\n";

typedef struct io_opts {
  const char *input;
  const char *output;
} io_opts;

/* Shared flag parsing of the two commands: one input, optional -o. */
static int parse_io(const char *cmd, const char *help, int argc, char **argv, io_opts *o) {
  static const struct option longs[] = {
      {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  opterr = 0;
  int c;
  ws_cli_seen seen = {{0}};
  while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
    int rc = ws_cli_once(cmd, &seen, longs, c, "");
    if (rc != WS_EXIT_OK) return rc;
    if (c == 'o' && !*optarg)
      return ws_cli_usage_error(cmd, "-o needs a file name");
    else if (c == 'o')
      o->output = optarg;
    else if (c == 'h') {
      fputs(help, stdout);
      return -1;
    } else if (c == ':')
      return ws_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    else
      return ws_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
  }
  if (optind != argc - 1)
    return ws_cli_usage_error(
        cmd, optind >= argc ? "expected an input file" : "expected one input file, found %d", argc - optind);
  o->input = argv[optind];
  return WS_EXIT_OK;
}

static void print_kernel_summary(const ws_kernel *k) {
  printf("kernel %s: %u instructions, %u registers/thread, %u bytes static shared, %u params (%u bytes)\n",
         k->name, k->ninsns, k->regs_per_thread, k->shared_size_bytes, k->nparams, k->param_size_bytes);
  for (uint32_t i = 0; i < k->nparams; i++)
    printf("  param %-12s .%s at offset %u\n", k->params[i].name,
           ws_program_ptype_name((ws_ptype)k->params[i].type), k->params[i].offset_bytes);
}

/* True when both paths name one existing file: the same device and inode,
 * so "./k.wsa", another spelling or a symbolic link count too. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Reads and assembles the file at path; an object file is named as such rather than
 * lexed as text (its first byte would be "unexpected character '\x7F'"). */
static ws_status assemble_input(ws_ctx *ctx, const char *path, ws_program **out) {
  char *data = NULL;
  size_t size = 0;
  ws_status st = ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "assembly source", &data, &size);
  if (st == WS_OK && ws_objfile_is_object(data, size))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s is a warpscope object file, not assembly; use 'warpscope disasm %s' to read it",
                     path, path);
  else if (st == WS_OK)
    st = ws_asm_parse(ctx, data, size, path, out);
  free(data);
  return st;
}

int ws_cli_asm(int argc, char **argv) {
  io_opts o = {0};
  int rc = parse_io("asm", asm_help, argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  /* refused before anything is read or written: the object would replace the assembly */
  if (o.output && same_file(o.input, o.output))
    return ws_cli_usage_error("asm", "-o '%s' is the input file; the object would replace the assembly",
                              o.output);
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_status st = assemble_input(ctx, o.input, &prog);
  if (st == WS_OK && o.output) {
    size_t size = 0;
    uint8_t *obj = ws_objfile_save(prog, &size);
    st = obj ? ws_file_write_atomic(ctx, o.output, obj, size)
             : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
    free(obj);
  } else if (st == WS_OK) {
    for (uint32_t i = 0; i < prog->nkernels; i++) print_kernel_summary(&prog->kernels[i]);
  }
  rc = st == WS_OK ? WS_EXIT_OK : ws_cli_error("%s", ws_errmsg(ctx));
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  return rc;
}

int ws_cli_disasm(int argc, char **argv) {
  io_opts o = {0};
  int rc = parse_io("disasm", disasm_help, argc, argv, &o);
  if (rc != WS_EXIT_OK) return rc < 0 ? WS_EXIT_OK : rc;
  /* the canonical text would replace the input: its comments and layout lost */
  if (o.output && same_file(o.input, o.output))
    return ws_cli_usage_error("disasm", "-o '%s' is the input file; the canonical text would replace it",
                              o.output);
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_status st = ws_cli_load_program(ctx, o.input, &prog);
  char *text = st == WS_OK ? ws_disasm_program(prog) : NULL;
  if (st == WS_OK && !text) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  if (st == WS_OK && o.output)
    st = ws_file_write_atomic(ctx, o.output, text, strlen(text));
  else if (st == WS_OK)
    fputs(text, stdout);
  rc = st == WS_OK ? WS_EXIT_OK : ws_cli_error("%s", ws_errmsg(ctx));
  free(text);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  return rc;
}
