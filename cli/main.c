/* main.c - the warpscope command line: dispatch to a subcommand.
 *
 * Design: each subcommand is a function with its own getopt_long table and
 * --help; main only picks one, so adding a command touches one table. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "cli/cli.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"run", ws_cli_run, "the main job: TinyViT32 pixel-to-logit on the simulated GPU, timed and checked"},
    {"asm", ws_cli_asm, "assemble a .wsa file; report its kernels or write a .wso object"},
    {"disasm", ws_cli_disasm, "print the canonical assembly of a .wso object or .wsa file"},
    {"ptx", ws_cli_ptx, "translate PTX or CUDA C onto the ISA; print it with its source lines"},
    {"exec", ws_cli_exec, "run a kernel (.wsa, .wso, .ptx, .cu) with given grid, block, params and buffers"},
    {"kernel", ws_cli_kernel, "print a generated kernel (GEMM ladder, attention, LayerNorm...) as .wsa"},
    {"example", ws_cli_example, "run a shipped example kernel and check it (saxpy, reduce, sgemm, mma)"},
    {"microbench", ws_cli_microbench, "run GPU microbenchmarks (latency, bandwidth, smem-banks, coalescing)"},
    {"trace", ws_cli_trace_command,
     "read a .wst trace: info, dump, counters rebuilt, Perfetto JSON or CSV export"},
    {"viz", ws_cli_viz, "draw a trace's GPU at a cycle: PNG screenshots and frames, rendered in software"},
    {"occupancy", ws_cli_occupancy,
     "the CUDA occupancy calculator: CTAs per SM, the limiter and the three curves, as tables or a chart"},
    {"gemm", ws_cli_gemm,
     "one generated GEMM of the ladder, timed, checked against OpenBLAS, with its report"},
    {"attention", ws_cli_attention,
     "one multi-head attention, naive or flash, timed, checked, with its report"},
    {"sweep", ws_cli_sweep,
     "simulate every point of a GEMM or attention parameter space: CSV/JSON, the best point, the Pareto "
     "front"},
    {"plot", ws_cli_plot,
     "draw a sweep's CSV: a heatmap, a roofline, occupancy against cycles, stall reasons"},
    {"lesson", ws_cli_lesson,
     "guided lessons: a concept explained, run, its numbers checked, what to look at"},
    {"demo", ws_cli_demo,
     "show one idea end to end: persistent (N launches against one persistent ring kernel), unified "
     "(TinyViT32's weights copied, paged in by faults, prefetched)"},
    {"gpus", ws_cli_gpus, "list the GPU presets, or show one preset's keys, sources and peak figures"},
};

/* Former names still run their command; they are not listed. */
static const struct { const char *old, *now; } renamed[] = {{"bench-gpu", "microbench"}};

static void print_help(FILE *out) {
  fprintf(out, "usage: warpscope COMMAND [OPTIONS]\n\n"
               "warpscope is a GPU memory-hierarchy simulator that runs kernels written in\n"
               "its SIMT ISA (docs/isa.md), and CUDA C or PTX translated onto it (docs/cuda.md).\n\n"
               "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'warpscope COMMAND --help' describes a command.\n"
               "  --help      this text\n  --version   the version\n");
}

/* Everything printed must have reached standard output: a full disk or a
 * closed pipe turns a success into a failure, not silently lost output. */
static int check_stdout(int rc) {
  int err = errno; /* a write that failed during the command left its reason (ENOSPC) here */
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
  if (errno) err = errno;
  if (rc != WS_EXIT_OK) return rc; /* the command has said what failed: one message, not two */
  fprintf(stderr, "warpscope: error: writing standard output: %s\n", strerror(err ? err : EIO));
  return WS_EXIT_FAIL;
}

static int dispatch(int argc, char **argv) {
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    print_help(stdout);
    return WS_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("warpscope %s\n", WS_VERSION);
    return WS_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
    if (strcmp(cmd, renamed[i].old) == 0) cmd = renamed[i].now;
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(cmd, commands[i].name) == 0) {
      errno = 0; /* what is left here at the end is the reason a write failed, if one did */
      int rc = commands[i].run(argc - 1, argv + 1);
      return rc != WS_EXIT_OK && ws_cli_interrupted() ? 128 + SIGINT : rc; /* as a shell reports Ctrl-C */
    }
  fprintf(stderr, "warpscope: unknown command '%s'\nTry 'warpscope --help'.\n", cmd);
  return WS_EXIT_USAGE;
}

int main(int argc, char **argv) {
  /* OpenBLAS splits a product over as many threads as it finds cores, and
   * the split changes the rounding of the references the checks compare
   * with: one thread makes an error figure the same on every machine, under
   * mpirun (one core per rank) and beside a sweep's own worker threads */
  openblas_set_num_threads(1);
  if (argc < 2) {
    print_help(stderr);
    return WS_EXIT_USAGE;
  }
  return check_stdout(dispatch(argc, argv));
}
