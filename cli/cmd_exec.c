/* cmd_exec.c - `warpscope exec`: assemble (or load) a kernel, build its
 * buffers and params from flags, run it, print and save results.
 *
 * Design: everything the user names is checked before the launch (params by
 * declared type, buffers by spec), and outputs are written only after a
 * successful run, each atomically, so a fault never leaves partial files. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "base/file.h"
#include "cli/cli.h"
#include "sim/host/report.h"

#define MAX_ITEMS 64

static const char exec_help[] =
    "usage: warpscope exec FILE [--kernel NAME] --grid X[,Y[,Z]] --block X[,Y[,Z]]\n"
    "                      [--shared BYTES] [--arg NAME=VALUE]... [--buf NAME=SPEC]...\n"
    "                      [--print NAME[:TYPE[:COUNT]]]... [--out NAME=PATH]...\n"
    "                      [--gpu NAME|FILE.ini] [--set SECTION.KEY=VALUE]...\n"
    "                      [--report] [--source-view[=N]] [--stats-json FILE] [--functional]\n"
    "                      [--check race|init|sync]\n\n"
    "Assembles FILE (.wsa), loads a .wso object, or translates PTX (.ptx) or CUDA C (.cu,\n"
    "compiled by clang; docs/cuda.md), and runs one kernel to completion.\n\n"
    "  --kernel NAME        the kernel to run (needed when FILE holds several)\n"
    "  --grid X[,Y[,Z]]     CTAs in the grid (required)\n"
    "  --block X[,Y[,Z]]    threads per CTA (required)\n"
    "  --shared BYTES       dynamic shared memory per CTA, after the static arrays\n"
    "  --arg NAME=VALUE     a scalar param (.u32 .s32 .f32 .u64), parsed by its declared type\n"
    "  --buf NAME=SPEC      allocate a device buffer for .ptr param NAME; SPEC is one of\n"
    "                         f32:1.5,2,-3   u32:1,2,3   s32:-1,2   f16:0.5,1   (listed values)\n"
    "                         zeros:BYTES    file:PATH (the file's raw bytes)\n"
    "  --print NAME[:TYPE[:COUNT]]  after the run, print buffer NAME as f32, u32, s32, f16\n"
    "                       or x32 (hex words); TYPE defaults to the buffer's SPEC type\n"
    "  --out NAME=PATH      after the run, write buffer NAME's raw bytes to PATH\n"
    "  -D NAME[=VALUE]      a macro for compiling a .cu FILE (repeatable)\n"
    "  --instantiate K<ARGS>  emit this instance of a template kernel of a .cu FILE\n"
    "  --const NAME=SPEC    fill __constant__ variable NAME of a .cu or .ptx kernel (as the\n"
    "                       host's cudaMemcpyToSymbol would), SPEC as for --buf\n"
    "  --max-regs N         registers per thread for a translated .ptx or .cu kernel (1..255);\n"
    "                       what does not fit spills to local memory (docs/cuda.md)\n"
    "%s" WS_CLI_SOURCE_VIEW_HELP "%s"
    "  -h, --help           this text\n\n"
    "Exit status: 0 on success, 1 when assembly, launch or the kernel fails (a limit\n"
    "included), 2 on a usage error, 130 when interrupted (Ctrl-C).\n";

typedef ws_cli_buf buf_item;

/* A --print spec, parsed once before the run. */
typedef struct print_spec {
  char name[WS_NAME_MAX];
  char type[4]; /* "": the buffer's own type */
  bool counted;
  uint64_t count;
} print_spec;

typedef struct exec_opts {
  const char *file, *kernel;
  ws_dim3 grid, block;
  bool have_grid, have_block;
  uint32_t dyn_shared_bytes;
  const char *args[MAX_ITEMS], *bufs[MAX_ITEMS], *prints[MAX_ITEMS], *outs[MAX_ITEMS];
  print_spec print_specs[MAX_ITEMS]; /* prints[i] parsed */
  int nargs, nbufs, nprints, nouts;
  ws_cli_gpuopt gpu;
  ws_cli_runopt run;
  const char *defines[MAX_ITEMS], *instances[MAX_ITEMS], *consts[MAX_ITEMS];
  int ndefines, ninstances, nconsts;
  uint32_t max_regs; /* 0: the translator's default */
} exec_opts;

static int push_item(const char **list, int *count, const char *value) {
  if (*count >= MAX_ITEMS) return ws_cli_usage_error("exec", "at most %d of each repeated option", MAX_ITEMS);
  list[(*count)++] = value;
  return WS_EXIT_OK;
}

static int parse_dim_flag(const char *flag, const char *text, ws_dim3 *dim, bool *have) {
  if (!ws_cli_parse_dim3(text, dim))
    return ws_cli_usage_error("exec", "%s expects X[,Y[,Z]] with positive integers, found '%s'", flag, text);
  *have = true;
  return WS_EXIT_OK;
}

static bool is_print_type(const char *type) {
  static const char *const types[] = {"f32", "u32", "s32", "f16", "x32"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(type, types[i]) == 0) return true;
  return false;
}

/* The NAME of "NAME<delim>..." in name; false when empty or too long. */
static bool spec_name(const char *spec, const char *delims, char name[WS_NAME_MAX]) {
  size_t len = strcspn(spec, delims);
  if (len == 0 || len >= WS_NAME_MAX) return false;
  memcpy(name, spec, len);
  name[len] = '\0';
  return true;
}

/* Index of the spec among list[0..n) whose NAME is `name`, or -1. */
static int find_named(const char *const *list, int n, const char *delims, const char *name) {
  char other[WS_NAME_MAX];
  for (int i = 0; i < n; i++)
    if (spec_name(list[i], delims, other) && strcmp(other, name) == 0) return i;
  return -1;
}

/* "NAME[:TYPE[:COUNT]]" naming a --buf, TYPE one of the print types. */
static int parse_print(const exec_opts *o, const char *spec, print_spec *p) {
  memset(p, 0, sizeof *p);
  if (!spec_name(spec, ":", p->name))
    return ws_cli_usage_error("exec", "--print expects NAME[:TYPE[:COUNT]], found '%s'", spec);
  if (find_named(o->bufs, o->nbufs, "=", p->name) < 0)
    return ws_cli_usage_error("exec", "--print %s: no --buf named '%s'", spec, p->name);
  const char *rest = spec + strlen(p->name);
  if (*rest++ != ':') return WS_EXIT_OK;
  size_t tlen = strcspn(rest, ":");
  if (tlen == 3) memcpy(p->type, rest, 3);
  if (!is_print_type(p->type))
    return ws_cli_usage_error("exec", "--print %s: TYPE must be f32, u32, s32, f16 or x32", spec);
  p->counted = rest[tlen] == ':';
  if (p->counted && !ws_cli_parse_u64(rest + tlen + 1, UINT64_MAX, &p->count))
    return ws_cli_usage_error("exec", "--print %s: COUNT must be a whole number, found '%s'", spec,
                              rest + tlen + 1);
  return WS_EXIT_OK;
}

/* Everything the flags name, checked before anything is read or run: a
 * malformed spec, a name given twice or an output of no buffer is a usage
 * error, so a typo costs no simulation and leaves no file behind. */
static int validate_specs(exec_opts *o) {
  char name[WS_NAME_MAX];
  for (int i = 0; i < o->nargs; i++) {
    if (!spec_name(o->args[i], "=", name) || !strchr(o->args[i], '='))
      return ws_cli_usage_error("exec", "--arg expects NAME=VALUE, found '%s'", o->args[i]);
    if (find_named(o->args, i, "=", name) >= 0)
      return ws_cli_usage_error("exec", "--arg %s given twice", name);
  }
  for (int i = 0; i < o->nbufs; i++) {
    int rc = ws_cli_buf_check("exec", o->bufs[i]);
    if (rc != WS_EXIT_OK) return rc;
    spec_name(o->bufs[i], "=", name);
    if (find_named(o->bufs, i, "=", name) >= 0)
      return ws_cli_usage_error("exec", "--buf %s given twice", name);
  }
  for (int i = 0; i < o->nprints; i++) {
    int rc = parse_print(o, o->prints[i], &o->print_specs[i]);
    if (rc != WS_EXIT_OK) return rc;
  }
  for (int i = 0; i < o->nouts; i++) {
    const char *eq = strchr(o->outs[i], '=');
    if (!spec_name(o->outs[i], "=", name) || !eq || !eq[1])
      return ws_cli_usage_error("exec", "--out expects NAME=PATH, found '%s'", o->outs[i]);
    if (find_named(o->bufs, o->nbufs, "=", name) < 0)
      return ws_cli_usage_error("exec", "--out %s: no --buf named '%s'", o->outs[i], name);
    for (int j = 0; j < i; j++)
      if (strcmp(strchr(o->outs[j], '=') + 1, eq + 1) == 0)
        return ws_cli_usage_error("exec", "--out %s: '%s' is already the output of --out %s", o->outs[i],
                                  eq + 1, o->outs[j]);
    if (find_named(o->outs, i, "=", name) >= 0)
      return ws_cli_usage_error("exec", "--out %s given twice", name);
  }
  return WS_EXIT_OK;
}

/* The kernel file is an input; the trace, the counters and each --out are
 * outputs (base/outputs.h). */
static int check_files(const exec_opts *o) {
  ws_outputs_file files[MAX_ITEMS + 3] = {{"the kernel file", o->file, false},
                                          {"--trace", o->run.trace.path, true},
                                          {"--stats-json", o->run.stats_json, true}};
  size_t n = 3;
  for (int i = 0; i < o->nouts; i++)
    files[n++] = (ws_outputs_file){"--out", strchr(o->outs[i], '=') + 1, true};
  return ws_cli_check_files("exec", files, n);
}

/* codes of the long-only options, clear of the shared option groups' letters */
enum { OPT_INSTANTIATE = 0x180, OPT_MAX_REGS, OPT_CONST };

static int parse_flags(int argc, char **argv, exec_opts *o) {
  static const struct option longs[] = {{"kernel", required_argument, NULL, 'K'},
                                        {"grid", required_argument, NULL, 'g'},
                                        {"block", required_argument, NULL, 'b'},
                                        {"shared", required_argument, NULL, 's'},
                                        {"arg", required_argument, NULL, 'a'},
                                        {"buf", required_argument, NULL, 'B'},
                                        {"print", required_argument, NULL, 'p'},
                                        {"out", required_argument, NULL, 'o'},
                                        {"gpu", required_argument, NULL, 'G'},
                                        {"set", required_argument, NULL, 'S'},
                                        {"instantiate", required_argument, NULL, OPT_INSTANTIATE},
                                        {"max-regs", required_argument, NULL, OPT_MAX_REGS},
                                        {"const", required_argument, NULL, OPT_CONST},
                                        WS_CLI_RUNOPT_LONGS,
                                        WS_CLI_SOURCE_VIEW_LONG,
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  uint64_t v;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":hD:", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("exec", &seen, longs, c, "arg,buf,print,out,set,check,instantiate,const")) !=
        WS_EXIT_OK)
      break;
    switch (c) {
    case 'D': rc = push_item(o->defines, &o->ndefines, optarg); break;
    case OPT_INSTANTIATE: rc = push_item(o->instances, &o->ninstances, optarg); break;
    case OPT_CONST:
      rc = ws_cli_buf_check_flag("exec", "--const", optarg);
      if (rc == WS_EXIT_OK) rc = push_item(o->consts, &o->nconsts, optarg);
      break;
    case OPT_MAX_REGS:
      if (!ws_cli_parse_u64(optarg, 255, &v) || v == 0)
        return ws_cli_usage_error("exec", "--max-regs must be 1..255, got '%s'", optarg);
      o->max_regs = (uint32_t)v;
      break;
    case 'K': o->kernel = optarg; break;
    case 'g': rc = parse_dim_flag("--grid", optarg, &o->grid, &o->have_grid); break;
    case 'b': rc = parse_dim_flag("--block", optarg, &o->block, &o->have_block); break;
    case 's':
      if (!ws_cli_parse_u64(optarg, UINT32_MAX, &v))
        return ws_cli_usage_error("exec", "--shared expects a byte count, found '%s'", optarg);
      o->dyn_shared_bytes = (uint32_t)v;
      break;
    case 'a': rc = push_item(o->args, &o->nargs, optarg); break;
    case 'B': rc = push_item(o->bufs, &o->nbufs, optarg); break;
    case 'p': rc = push_item(o->prints, &o->nprints, optarg); break;
    case 'o': rc = push_item(o->outs, &o->nouts, optarg); break;
    case 'G': rc = ws_cli_gpuopt_set_gpu("exec", &o->gpu, optarg); break;
    case 'S': rc = ws_cli_gpuopt_add_set("exec", &o->gpu, optarg); break;
    case 'h': printf(exec_help, ws_cli_gpuopt_help, ws_cli_runopt_help); return -1;
    case ':': return ws_cli_usage_error("exec", "option '%s' needs a value", argv[optind - 1]);
    default: {
      bool taken = false;
      rc = ws_cli_runopt_take("exec", &o->run, c, optarg, &taken);
      if (!taken) return ws_cli_usage_error("exec", "unknown option '%s'", argv[optind - 1]);
    }
    }
  }
  if (rc != WS_EXIT_OK) return rc;
  if (optind != argc - 1) return ws_cli_usage_error("exec", "expected one kernel file");
  if (!o->have_grid || !o->have_block) return ws_cli_usage_error("exec", "--grid and --block are required");
  o->file = argv[optind];
  rc = ws_cli_runopt_check("exec", &o->run);
  if (rc == WS_EXIT_OK) rc = validate_specs(o);
  return rc == WS_EXIT_OK ? check_files(o) : rc;
}

typedef struct exec_state {
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *kernel;
  ws_device *dev;
  ws_args args;
  buf_item bufs[MAX_ITEMS];
  int nbufs;
  bool usage; /* the failure is a command-line error (exit 2) */
} exec_state;

static buf_item *find_buf(exec_state *s, const char *name) {
  for (int i = 0; i < s->nbufs; i++)
    if (strcmp(s->bufs[i].name, name) == 0) return &s->bufs[i];
  return NULL;
}

static ws_status setup_buffers(exec_state *s, const exec_opts *o) {
  for (int i = 0; i < o->nbufs; i++) {
    buf_item *b = &s->bufs[s->nbufs];
    memset(b, 0, sizeof *b);
    ws_status st = ws_cli_buf_parse(s->ctx, o->bufs[i], b);
    if (b->data) s->nbufs++;
    if (st != WS_OK) return st;
    if ((st = ws_device_malloc(s->dev, b->size_bytes, &b->dptr)) != WS_OK ||
        (st = ws_device_memcpy_htod(s->dev, b->dptr, b->data, b->size_bytes)) != WS_OK ||
        (st = ws_args_set_ptr(s->ctx, &s->args, b->name, b->dptr)) != WS_OK)
      return st;
  }
  return WS_OK;
}

/* The buffers by the names the user gave them, class other (a user's
 * kernel means nothing we know), sorted as the device allocated them. */
static ws_status name_buffers(exec_state *s, exec_opts *o) {
  ws_runtime_region g[MAX_ITEMS];
  for (int i = 0; i < s->nbufs; i++) {
    g[i] = (ws_runtime_region){
        .addr = s->bufs[i].dptr, .size_bytes = s->bufs[i].size_bytes, .tensor = WS_RUNTIME_TENSOR_OTHER};
    snprintf(g[i].name, sizeof g[i].name, "%s", s->bufs[i].name);
  }
  return ws_cli_trace_regions(&o->run.rec, g, (size_t)s->nbufs);
}

static ws_status setup_args(exec_state *s, const exec_opts *o) {
  for (int i = 0; i < o->nargs; i++) {
    char name[WS_NAME_MAX];
    const char *value = NULL;
    ws_status st = ws_cli_split_assign(s->ctx, "--arg", o->args[i], name, &value);
    if (st == WS_OK) st = ws_args_set_text(s->ctx, &s->args, name, value);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

static void print_element(const char *type, const uint8_t *p) {
  uint32_t w = 0;
  uint16_t h = 0;
  if (strcmp(type, "f16") == 0) {
    memcpy(&h, p, 2);
    printf("%.9g", (double)ws_f16_to_f32(h));
    return;
  }
  memcpy(&w, p, 4);
  if (strcmp(type, "f32") == 0)
    printf("%.9g", (double)ws_f32_from_bits(w));
  else if (strcmp(type, "u32") == 0)
    printf("%" PRIu32, w);
  else if (strcmp(type, "s32") == 0)
    printf("%" PRId32, (int32_t)w);
  else
    printf("0x%08" PRIx32, w);
}

/* The element type a --print shows and the number of elements. */
static const char *print_type(const print_spec *p, const buf_item *b) {
  return p->type[0] ? p->type : b->type;
}

static uint64_t print_count(const print_spec *p, const buf_item *b) {
  return p->counted ? p->count : b->size_bytes / ws_cli_buf_elem_bytes(print_type(p, b));
}

/* Prints a buffer read back from the device, as its --print says. */
static void print_buffer(exec_state *s, const print_spec *p) {
  const buf_item *b = find_buf(s, p->name);
  const char *type = print_type(p, b);
  size_t elem = ws_cli_buf_elem_bytes(type);
  uint64_t count = print_count(p, b);
  printf("%s (%s[%" PRIu64 "]):", p->name, type, count);
  for (uint64_t i = 0; i < count; i++) {
    fputs(i % 8 == 0 ? "\n  " : " ", stdout);
    print_element(type, b->data + i * elem);
  }
  putchar('\n');
}

/* Every --out, added to the command's outputs (written all or none). */
static ws_status add_outputs(exec_state *s, const exec_opts *o, ws_file_batch *batch) {
  ws_status st = WS_OK;
  for (int i = 0; i < o->nouts && st == WS_OK; i++) {
    char name[WS_NAME_MAX];
    spec_name(o->outs[i], "=", name);
    const buf_item *b = find_buf(s, name);
    st = ws_file_batch_add(s->ctx, batch, strchr(o->outs[i], '=') + 1, b->data, b->size_bytes);
  }
  return st;
}

/* A --print COUNT larger than its buffer, known once file: buffers are read:
 * refused before the launch. */
static ws_status check_print_counts(exec_state *s, const exec_opts *o) {
  for (int i = 0; i < o->nprints; i++) {
    const print_spec *p = &o->print_specs[i];
    const buf_item *b = find_buf(s, p->name);
    uint64_t have = b->size_bytes / ws_cli_buf_elem_bytes(print_type(p, b));
    if (p->counted && p->count > have) {
      s->usage = true;
      return ws_ctx_fail(s->ctx, WS_ERR_INVALID,
                         "--print %s: COUNT must be 0..%" PRIu64 " (the buffer's size)", o->prints[i], have);
    }
  }
  return WS_OK;
}

/* --const NAME=SPEC: the bytes a host's cudaMemcpyToSymbol would write,
 * at the variable's place in the constant bank. */
static ws_status set_constants(exec_state *s, const exec_opts *o, const ws_cli_consts *c) {
  for (int i = 0; i < o->nconsts; i++) {
    ws_cli_buf b;
    memset(&b, 0, sizeof b);
    b.flag = "--const";
    ws_status st = ws_cli_buf_parse(s->ctx, o->consts[i], &b);
    char plain[WS_NAME_MAX];
    ws_ptx_kernel_name(b.name, plain, sizeof plain);
    const ws_ptx_const_sym *sym = NULL;
    for (size_t k = 0; st == WS_OK && k < c->nsyms && !sym; k++)
      if (strcmp(c->syms[k].name, plain) == 0) sym = &c->syms[k];
    if (st == WS_OK && !sym)
      st = ws_ctx_fail(s->ctx, WS_ERR_INVALID,
                       "--const %s: the program has no __constant__ variable of that name", b.name);
    if (st == WS_OK && b.size_bytes > sym->size_bytes)
      st = ws_ctx_fail(s->ctx, WS_ERR_INVALID, "--const %s: %llu bytes given; the variable holds %u", b.name,
                       (unsigned long long)b.size_bytes, sym->size_bytes);
    if (st == WS_OK) st = ws_device_const_write(s->dev, sym->offset_bytes, b.data, (uint32_t)b.size_bytes);
    free(b.data);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

static ws_status run(exec_state *s, exec_opts *o) {
  ws_gpu_cfg cfg;
  ws_launch_stats stats;
  ws_status st = ws_cli_gpuopt_resolve(s->ctx, &o->gpu, &cfg);
  s->usage = st == WS_ERR_USAGE;
  if (st == WS_OK && (st = ws_cli_traceopt_check_gpu(s->ctx, &o->run.trace, &cfg)) != WS_OK) s->usage = true;
  ws_cuda_opts cuda = {.defines = o->defines,
                       .ndefines = (size_t)o->ndefines,
                       .instantiate = o->instances,
                       .ninstantiate = (size_t)o->ninstances};
  ws_ptx_opts popts = {.max_regs = o->max_regs};
  ws_cli_consts consts = {0};
  if (st == WS_OK) st = ws_cli_load_source(s->ctx, o->file, &cuda, &popts, &s->prog, &consts);
  s->usage |= st == WS_ERR_USAGE;
  if (st == WS_OK) st = ws_cli_pick_kernel(s->ctx, s->prog, o->kernel, o->file, &s->kernel);
  if (st == WS_OK) st = ws_device_create(s->ctx, &cfg, &s->dev);
  if (st == WS_OK && consts.bytes) st = ws_device_const_write(s->dev, 0, consts.image, consts.bytes);
  if (st == WS_OK) st = set_constants(s, o, &consts);
  ws_cli_consts_free(&consts);
  if (st != WS_OK) return st;
  ws_args_init(&s->args, s->kernel);
  if ((st = setup_args(s, o)) != WS_OK || (st = setup_buffers(s, o)) != WS_OK ||
      (st = check_print_counts(s, o)) != WS_OK)
    return st;
  if ((st = ws_cli_runopt_apply(s->ctx, &o->run, s->dev)) != WS_OK) return st;
  st = ws_device_launch(s->dev, s->kernel, o->grid, o->block, o->dyn_shared_bytes, &s->args, &stats);
  bool stopped = st == WS_ERR_BUDGET || st == WS_ERR_INTERRUPTED;
  if (stopped && o->run.report) { /* what it simulated before the limit or Ctrl-C stopped it */
    ws_report_print(stdout, &cfg, s->kernel->name, o->grid, o->block, &stats, ws_device_stats(s->dev));
    ws_cli_runopt_print_cost(&o->run, &stats);
  }
  if (st != WS_OK) return st;
  printf("kernel %s: grid (%u,%u,%u), block (%u,%u,%u), %u registers/thread\n", s->kernel->name, o->grid.x,
         o->grid.y, o->grid.z, o->block.x, o->block.y, o->block.z, s->kernel->regs_per_thread);
  printf("executed: %" PRIu64 " CTAs, %" PRIu64 " warp instructions, %" PRIu64 " thread instructions",
         stats.ctas, stats.warp_insns, stats.thread_insns);
  if (stats.cycles) printf(", %" PRIu64 " cycles on %s", stats.cycles, cfg.gpu.name);
  putchar('\n');
  ws_file_batch outputs; /* the stats JSON and every --out: all or none */
  ws_file_batch_init(&outputs);
  st = name_buffers(s, o);
  o->run.source_kernel = s->kernel;
  o->run.source_path = o->file;
  if (st == WS_OK)
    st = ws_cli_runopt_finish(s->ctx, &o->run, s->dev, s->kernel->name, o->grid, o->block, &stats, &outputs);
  for (int i = 0; i < s->nbufs && st == WS_OK; i++)
    st = ws_device_memcpy_dtoh(s->dev, s->bufs[i].data, s->bufs[i].dptr, s->bufs[i].size_bytes);
  for (int i = 0; i < o->nprints && st == WS_OK; i++) print_buffer(s, &o->print_specs[i]);
  if (st == WS_OK) st = add_outputs(s, o, &outputs);
  if (st == WS_OK) st = ws_file_batch_commit(s->ctx, &outputs);
  ws_file_batch_free(&outputs);
  if (st == WS_OK) ws_cli_runopt_print_cost(&o->run, &stats);
  return st;
}

int ws_cli_exec(int argc, char **argv) {
  exec_opts o;
  memset(&o, 0, sizeof o);
  int rc = parse_flags(argc, argv, &o);
  if (rc != WS_EXIT_OK) {
    ws_cli_runopt_free(&o.run);
    return rc < 0 ? WS_EXIT_OK : rc;
  }
  exec_state s;
  memset(&s, 0, sizeof s);
  s.ctx = ws_ctx_create();
  ws_status st = run(&s, &o);
  rc = st == WS_OK ? WS_EXIT_OK
       : s.usage   ? ws_cli_usage_error("exec", "%s", ws_errmsg(s.ctx))
                   : ws_cli_error("%s", ws_errmsg(s.ctx));
  for (int i = 0; i < s.nbufs; i++) free(s.bufs[i].data);
  ws_cli_runopt_free(&o.run);
  ws_device_destroy(s.dev);
  ws_program_destroy(s.prog);
  ws_ctx_destroy(s.ctx);
  return rc;
}
