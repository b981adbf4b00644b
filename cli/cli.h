/* cli.h - what the warpscope subcommands share: exit codes, messages, flag
 * value parsers and safe file output.
 *
 * Design: the CLI only composes library calls and prints; every subcommand
 * returns one of three exit codes so scripts can tell a usage mistake (2) from
 * a failed run (1). Output files are written to a temp file and renamed, so a
 * failure never leaves a half-written file or destroys the previous one. */
#ifndef WS_CLI_H
#define WS_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "base/outputs.h"
#include "explore/cost.h"
#include "isa/program.h"
#include "models/kgen/gemmgen.h"
#include "ptx/ptx.h"
#include "sim/host/device.h"
#include "sim/host/runtime.h"
#include "traces/journey.h"
#include "traces/tee.h"
#include "traces/wst.h"

enum { WS_EXIT_OK = 0, WS_EXIT_FAIL = 1, WS_EXIT_USAGE = 2 };

int ws_cli_asm(int argc, char **argv);
int ws_cli_disasm(int argc, char **argv);
int ws_cli_ptx(int argc, char **argv);
int ws_cli_exec(int argc, char **argv);
int ws_cli_example(int argc, char **argv);
int ws_cli_gpus(int argc, char **argv);
int ws_cli_microbench(int argc, char **argv);
int ws_cli_run(int argc, char **argv);
int ws_cli_kernel(int argc, char **argv);
int ws_cli_trace_command(int argc, char **argv);
int ws_cli_viz(int argc, char **argv);
int ws_cli_occupancy(int argc, char **argv);
int ws_cli_gemm(int argc, char **argv);
int ws_cli_attention(int argc, char **argv);
int ws_cli_sweep(int argc, char **argv);
int ws_cli_plot(int argc, char **argv);
int ws_cli_lesson(int argc, char **argv);
int ws_cli_demo(int argc, char **argv);

/* "warpscope: error: ..." on stderr, or "warpscope: WHERE: error: ..." when
 * the message is located (holds ": error: ") already; returns WS_EXIT_FAIL. */
int ws_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warpscope CMD: ...\nTry 'warpscope CMD --help'." on stderr; returns WS_EXIT_USAGE. */
int ws_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The files a command names, checked before it reads or writes any
 * (base/outputs.h): a usage error when an output is an input, two outputs
 * are one file, or a name is empty. */
int ws_cli_check_files(const char *cmd, const ws_outputs_file *files, size_t n);
/* A library call's outcome as the exit code, its message printed: a usage
 * error of command `cmd` for WS_ERR_USAGE, a failed run for any other. */
int ws_cli_exit_code(const char *cmd, const ws_ctx *ctx, ws_status st);

/* "X", "X,Y" or "X,Y,Z", each 1..2^32-1. */
bool ws_cli_parse_dim3(const char *text, ws_dim3 *out);
/* Options seen so far by one command's getopt loop. */
typedef struct ws_cli_seen {
  uint64_t bits[32]; /* option codes 0-2047: the commands number theirs below 0x800 */
} ws_cli_seen;
/* A usage error when option code c was given before and its long name is
 * not in `repeatable` (comma-separated names); a flag whose last value would
 * silently win is refused. */
struct option;
int ws_cli_once(const char *cmd, ws_cli_seen *seen, const struct option *longs, int c,
                const char *repeatable);
/* A whole decimal/0x number in [0, max]. */
bool ws_cli_parse_u64(const char *text, uint64_t max, uint64_t *out);
/* A chart's --size WxH, each side WS_CHART_MIN_SIDE..WS_CHART_MAX_SIDE
 * (plot/chart.h); a usage error of command `cmd` otherwise. */
int ws_cli_chart_size(const char *cmd, const char *text, int32_t *w, int32_t *h);
/* "A:B" (cycles A to B, A < B) or "A:" (from A on: *end 0). */
bool ws_cli_parse_cycle_range(const char *text, uint64_t *begin, uint64_t *end);
/* A rate with an SI prefix to three significant digits: "987", "12.3 k",
 * "4.56 M". */
void ws_cli_rate_text(double per_s, char *buf, size_t bytes);
/* What simulating the run cost the host, on stderr after everything
 * stdout holds (stdout stays the same bytes from run to run):
 * "simulation cost: 1.23 s wall, 1.20 s CPU, 4718592 warp instructions,
 * 3.93 M per CPU s (full run)". */
void ws_cli_print_cost(ws_cost cost, uint64_t warp_insns, bool sampled);

/* Loads a program from .wsa text or a .wso object, chosen by content. */
/* A program from FILE: .wsa assembly, a .wso object, PTX (.ptx) or CUDA C
 * (.cu) translated. */
ws_status ws_cli_load_program(ws_ctx *ctx, const char *path, ws_program **out);
/* What a translated program keeps in the device's constant bank: its
 * __constant__ variables' initial bytes and where each variable is. */
typedef struct ws_cli_consts {
  uint8_t *image;
  uint32_t bytes;
  ws_ptx_const_sym *syms;
  size_t nsyms;
} ws_cli_consts;
void ws_cli_consts_free(ws_cli_consts *c);
/* The same, a .cu compiled with `cuda` (-D, --instantiate) and PTX
 * translated with `opts` (--max-regs); NULL for the defaults. With consts
 * (NULL: not wanted), also the program's constant bank (the caller frees
 * it; empty for anything but a translation), which a launch needs. */
ws_status ws_cli_load_source(ws_ctx *ctx, const char *path, const ws_cuda_opts *cuda, const ws_ptx_opts *opts,
                             ws_program **out, ws_cli_consts *consts);
/* The kernel named `name`, or the only kernel when name is NULL. */
ws_status ws_cli_pick_kernel(ws_ctx *ctx, const ws_program *prog, const char *name, const char *path,
                             const ws_kernel **out);

/* ---- a user's kernel's buffers: --buf NAME=SPEC (bufspec.c) ---- */

typedef struct ws_cli_buf {
  const char *flag; /* named in messages; NULL: "--buf" */
  char name[WS_NAME_MAX];
  char type[4]; /* element type for printing: f32 u32 s32 f16 x32 */
  uint8_t *data;
  uint64_t size_bytes;
  uint64_t dptr; /* where a command uploaded it */
} ws_cli_buf;
/* Splits "NAME=REST" into name (WS_NAME_MAX bytes) and a pointer to REST;
 * `flag` names it in the message. */
ws_status ws_cli_split_assign(ws_ctx *ctx, const char *flag, const char *text, char *name, const char **rest);
/* Bytes per element of a buffer or print type: 2 for f16, else 4. */
size_t ws_cli_buf_elem_bytes(const char *type);
/* "NAME=SPEC" into b (b->data malloc'd, the caller's): f32:, u32:, s32:,
 * f16: listed values, zeros:BYTES or file:PATH (read now). */
ws_status ws_cli_buf_parse(ws_ctx *ctx, const char *text, ws_cli_buf *b);
/* A usage error of command `cmd` for a malformed spec; a file: spec is
 * checked for a path only (its file is read when the command runs). */
int ws_cli_buf_check(const char *cmd, const char *spec);
/* The same for a spec given with another flag (--const). */
int ws_cli_buf_check_flag(const char *cmd, const char *flag, const char *spec);
#define WS_CLI_BUF_SPEC_HELP                                                                                 \
  "                         f32:1.5,2,-3   u32:1,2,3   s32:-1,2   f16:0.5,1   (listed values)\n"             \
  "                         zeros:BYTES    file:PATH (the file's raw bytes)\n"

/* ---- GPU selection: --gpu NAME|FILE.ini and --set SECTION.KEY=VALUE (gpuopt.c) ---- */

#define WS_CLI_MAX_SETS 64

typedef struct ws_cli_gpuopt {
  const char *gpu;                   /* preset name or INI path; NULL: the default (a100) */
  const char *sets[WS_CLI_MAX_SETS]; /* overrides, applied in order */
  int nsets;
} ws_cli_gpuopt;

/* Records one --set for command `cmd`; a usage error when there are too many. */
int ws_cli_gpuopt_add_set(const char *cmd, ws_cli_gpuopt *o, const char *assignment);
/* Records --gpu; an unknown preset name is a usage error. */
int ws_cli_gpuopt_set_gpu(const char *cmd, ws_cli_gpuopt *o, const char *gpu);
/* Loads the preset (a name) or INI file (a path: it holds '/' or ends in
 * .ini), applies the overrides, then validates the result: WS_ERR_USAGE
 * when the overrides, each in range, together break a rule. */
ws_status ws_cli_gpuopt_resolve(ws_ctx *ctx, const ws_cli_gpuopt *o, ws_gpu_cfg *out);
/* The help lines describing --gpu and --set. */
extern const char ws_cli_gpuopt_help[];

/* ---- what bounds a launch: --max-warp-insns, --max-cycles, --timeout, --no-spin-check,
 * Ctrl-C and the progress line (watchopt.c) ---- */

typedef struct ws_cli_watchopt {
  uint64_t max_warp_insns, max_cycles; /* 0: the defaults (sim/exec/watchdog.h) */
  double timeout_s;                    /* 0: none */
  bool no_spin_check;
  uint32_t sim_threads; /* --sim-threads; 0: the cores available */
} ws_cli_watchopt;

enum { /* getopt codes of the watch options */
       WS_CLI_WATCH_MAX_WARP_INSNS = 0x200,
       WS_CLI_WATCH_MAX_CYCLES,
       WS_CLI_WATCH_TIMEOUT,
       WS_CLI_WATCH_NO_SPIN_CHECK,
       WS_CLI_WATCH_SIM_THREADS
};
#define WS_CLI_WATCHOPT_LONGS                                                                                \
  {"max-warp-insns", required_argument, NULL, WS_CLI_WATCH_MAX_WARP_INSNS},                                  \
      {"max-cycles", required_argument, NULL, WS_CLI_WATCH_MAX_CYCLES},                                      \
      {"timeout", required_argument, NULL, WS_CLI_WATCH_TIMEOUT},                                            \
      {"no-spin-check", no_argument, NULL, WS_CLI_WATCH_NO_SPIN_CHECK}, {                                    \
    "sim-threads", required_argument, NULL, WS_CLI_WATCH_SIM_THREADS                                         \
  }
/* Takes option code c: *taken tells whether it was one of them; returns a
 * usage error for a malformed value, else WS_EXIT_OK. */
int ws_cli_watchopt_take(const char *cmd, ws_cli_watchopt *o, int c, const char *arg, bool *taken);
/* Sets the limits and the host threads on the device, catches SIGINT and
 * SIGTERM (the launch then stops and reports), and shows progress when
 * stderr is a terminal. */
void ws_cli_watchopt_apply(const ws_cli_watchopt *o, ws_device *dev);
/* The host threads a timed launch may use: --sim-threads, or the cores
 * available (at most WS_CLI_SIM_THREADS_MAX). */
#define WS_CLI_SIM_THREADS_MAX 64u
uint32_t ws_cli_sim_threads(uint32_t chosen);
/* Parses --sim-threads' value (1 .. WS_CLI_SIM_THREADS_MAX). */
int ws_cli_parse_sim_threads(const char *cmd, const char *arg, uint32_t *out);
/* Whether Ctrl-C or SIGTERM arrived (main exits 130 then). */
bool ws_cli_interrupted(void);
/* Catches SIGINT and SIGTERM (the second one kills) into the flag
 * ws_cli_interrupted reads, and returns it for a library to poll. */
volatile sig_atomic_t *ws_cli_catch_interrupts(void);
#define WS_CLI_WATCHOPT_HELP                                                                                 \
  "  --max-warp-insns N   stop when one warp issues N instructions (default: 65536 per\n"                    \
  "                       instruction of the kernel, plus 64)\n"                                             \
  "  --max-cycles N       stop a timed launch at cycle N (default: no limit)\n"                              \
  "  --timeout SECONDS    stop a launch after SECONDS of wall-clock time (default: no limit)\n"              \
  "  --no-spin-check      do not stop warps that provably spin forever\n"                                    \
  "  --sim-threads N      host threads a timed launch's SMs run on, 1 to 64 (default: the\n"                 \
  "                       cores available); the results are the same for every N\n"                          \
  "  A launch stopped by a limit or by Ctrl-C reports what it simulated so far.\n"
extern const char ws_cli_watchopt_help[];

/* ---- sampling: --sample, --sample-waves N, --sample-rounds N; the L2: --l2 (sampleopt.c) ---- */

enum { WS_CLI_SAMPLE = 0x240, WS_CLI_SAMPLE_WAVES, WS_CLI_SAMPLE_ROUNDS, WS_CLI_L2 };
#define WS_CLI_SAMPLEOPT_LONGS                                                                               \
  {"sample", optional_argument, NULL, WS_CLI_SAMPLE},                                                        \
      {"sample-waves", required_argument, NULL, WS_CLI_SAMPLE_WAVES},                                        \
      {"sample-rounds", required_argument, NULL, WS_CLI_SAMPLE_ROUNDS}, {                                    \
    "l2", required_argument, NULL, WS_CLI_L2                                                                 \
  }
/* Takes option code c into *waves and *rounds (both 0: off) and *exact.
 * --sample turns both levels on with their defaults, --sample=exact too
 * with every CTA computed in full (*exact); --sample-waves N and
 * --sample-rounds N set one and turn sampling on. *taken tells whether c
 * was one of them. A malformed N or another --sample= is a usage error. */
int ws_cli_sampleopt_take(const char *cmd, uint32_t *waves, uint32_t *rounds, bool *exact, int c,
                          const char *arg, bool *taken);
/* Takes --l2 keep|flush into *keep (1: the point's launches share the L2,
 * ws_point.keep_l2); anything else is a usage error. */
int ws_cli_l2opt_take(const char *cmd, uint32_t *keep, int c, const char *arg, bool *taken);
extern const char ws_cli_sampleopt_help[];

/* ---- what to record of a launch: --trace FILE and its filters (traceopt.c) ---- */

typedef struct ws_cli_traceopt {
  const char *path; /* --trace; NULL: no trace */
  char **kernels;   /* --trace-kernels, split (into kernel_text) */
  char *kernel_text;
  size_t nkernels;
  uint32_t sms[WS_CFG_MAX_SMS]; /* --trace-sms */
  size_t nsms;
  bool has_cycles; /* --trace-cycles A:B (cycle_end 0: open) */
  uint64_t cycle_begin, cycle_end;
  bool follow_only;
  bool quiet; /* a trace the user did not name (a lesson's picture): no summary line */
} ws_cli_traceopt;

enum { /* getopt codes of the trace options */
       WS_CLI_TRACE = 0x220,
       WS_CLI_TRACE_KERNELS,
       WS_CLI_TRACE_SMS,
       WS_CLI_TRACE_CYCLES,
       WS_CLI_TRACE_FOLLOW_ONLY
};
#define WS_CLI_TRACEOPT_LONGS                                                                                \
  {"trace", required_argument, NULL, WS_CLI_TRACE},                                                          \
      {"trace-kernels", required_argument, NULL, WS_CLI_TRACE_KERNELS},                                      \
      {"trace-sms", required_argument, NULL, WS_CLI_TRACE_SMS},                                              \
      {"trace-cycles", required_argument, NULL, WS_CLI_TRACE_CYCLES}, {                                      \
    "trace-follow-only", no_argument, NULL, WS_CLI_TRACE_FOLLOW_ONLY                                         \
  }
/* Takes option code c: *taken tells whether it was one of them; returns a
 * usage error for a malformed value, else WS_EXIT_OK. */
int ws_cli_traceopt_take(const char *cmd, ws_cli_traceopt *o, int c, const char *arg, bool *taken);
/* Usage errors for combinations that cannot work, and for SMs the GPU lacks. */
int ws_cli_traceopt_check(const char *cmd, const ws_cli_traceopt *o, bool functional, bool following);
/* The GPU lacks an SM of --trace-sms: WS_ERR_INVALID, a command-line error. */
ws_status ws_cli_traceopt_check_gpu(ws_ctx *ctx, const ws_cli_traceopt *o, const ws_gpu_cfg *cfg);
void ws_cli_traceopt_free(ws_cli_traceopt *o);
#define WS_CLI_TRACEOPT_HELP                                                                                 \
  "  --trace FILE.wst     record every micro-op of the timed launches (docs/traces.md)\n"                    \
  "  --trace-kernels A,B  record only launches of these kernels\n"                                           \
  "  --trace-sms LIST     record only these SMs' micro-ops (0-3,7; DRAM and host records stay)\n"            \
  "  --trace-cycles A:B   record only micro-ops beginning in cycles [A, B) of each launch (A: for\n"         \
  "                       no end)\n"                                                                         \
  "  --trace-follow-only  record only what carries the followed pixel (with --follow-pixel)\n"
extern const char ws_cli_traceopt_help[];

/* A trace being recorded (and a pixel's journey being followed). */
typedef struct ws_cli_trace {
  ws_wst_writer *writer; /* NULL: no --trace */
  ws_journey *journey;   /* NULL: nothing followed */
  ws_tee tee;
} ws_cli_trace;
/* Sets the probe on dev before the launches. */
ws_status ws_cli_trace_start(ws_ctx *ctx, const ws_cli_traceopt *o, ws_device *dev, bool follow,
                             ws_cli_trace *t);
/* After a successful run: stores the timeline (rt may be NULL) and the
 * journey, puts the file in place and says on stderr what it holds. */
ws_status ws_cli_trace_finish(ws_ctx *ctx, const ws_cli_traceopt *o, ws_cli_trace *t, const ws_runtime *rt);
void ws_cli_trace_free(ws_cli_trace *t);
/* The named device ranges a run without a runtime knows (an example's or
 * exec's buffers), for the trace being recorded; nothing without --trace.
 * A run with a runtime gets its table from ws_cli_trace_finish. */
ws_status ws_cli_trace_regions(ws_cli_trace *t, const ws_runtime_region *regions, size_t count);

/* ---- what to do around a launch: --report, --stats-json FILE, --functional (runopt.c) ---- */

/* --check race|init|sync (repeatable, comma-separated): the device's checks
 * (ws_device_set_checks), shared by exec, example and run. */
#define WS_CLI_CHECK 0x210 /* its getopt code */
#define WS_CLI_CHECK_LONG                                                                                    \
  { "check", required_argument, NULL, WS_CLI_CHECK }
#define WS_CLI_CHECK_HELP                                                                                    \
  "  --check race|init|sync  stop at the first race on shared or global memory, read of an\n"                \
  "                       uninitialized register or memory, or barrier misuse (repeatable,\n"                \
  "                       comma-separated; docs/usage.md)\n"
/* Adds the checks named in arg to *checks; a usage error for an unknown name. */
int ws_cli_check_take(const char *cmd, const char *arg, uint32_t *checks);

/* --source-view[=N] (exec): the report with its hottest N source lines. */
#define WS_CLI_SOURCE_VIEW 0x211 /* its getopt code */
#define WS_CLI_SOURCE_VIEW_DEFAULT_LINES 10u
#define WS_CLI_SOURCE_VIEW_LONG                                                                              \
  { "source-view", optional_argument, NULL, WS_CLI_SOURCE_VIEW }
#define WS_CLI_SOURCE_VIEW_HELP                                                                              \
  "  --source-view[=N]    the report, and its N hottest source lines (default 10): the CUDA\n"               \
  "                       lines of a .cu file, the PTX lines of a .ptx, the lines of a .wsa\n"

typedef struct ws_cli_runopt {
  bool report;                    /* print the per-kernel performance report */
  uint32_t source_lines;          /* --source-view: lines to show; 0: no source view */
  ws_pcprof prof;                 /* what the launch counted per instruction, for the source view */
  const ws_kernel *source_kernel; /* set by the command before finishing: the launched kernel */
  const char *source_path;        /* and the file it came from */
  bool functional;                /* values only, no timing */
  const char *stats_json;         /* write every counter here after the launch */
  ws_cli_watchopt watch;          /* what bounds the launch */
  uint32_t checks;                /* WS_CHECK_* (--check) */
  ws_cli_traceopt trace;          /* --trace and its filters */
  ws_cli_trace rec;               /* the trace being recorded */
  ws_cost_clock clock;            /* started when the launch is set up: the report's simulation cost */
} ws_cli_runopt;

/* getopt_long entries for the three options (codes 'R', 'J', 'F'), --check
 * and the watch options. */
#define WS_CLI_RUNOPT_LONGS                                                                                  \
  {"report", no_argument, NULL, 'R'}, {"stats-json", required_argument, NULL, 'J'},                          \
      {"functional", no_argument, NULL, 'F'}, WS_CLI_CHECK_LONG, WS_CLI_WATCHOPT_LONGS,                      \
      WS_CLI_TRACEOPT_LONGS
/* Takes option code c (with its argument): *taken tells whether it was one
 * of them; returns a usage error for a malformed value, else WS_EXIT_OK. */
int ws_cli_runopt_take(const char *cmd, ws_cli_runopt *o, int c, const char *arg, bool *taken);
/* A usage error for combinations that cannot work (and, with the GPU's
 * config, trace filters naming SMs it lacks), else WS_EXIT_OK. */
int ws_cli_runopt_check(const char *cmd, const ws_cli_runopt *o);
/* Puts the device in the requested mode, with the watch options and the
 * trace, before the launch. */
ws_status ws_cli_runopt_apply(ws_ctx *ctx, ws_cli_runopt *o, ws_device *dev);
/* Drops an unfinished trace (nothing is written) and the options' memory. */
void ws_cli_runopt_free(ws_cli_runopt *o);
/* After a successful launch: prints the report and writes the stats JSON
 * as requested: into `outputs` when the command writes several files (all
 * or none, base/file.h), else atomically on its own (outputs NULL). */
typedef struct ws_file_batch ws_file_batch;
ws_status ws_cli_runopt_finish(ws_ctx *ctx, ws_cli_runopt *o, const ws_device *dev, const char *kernel_name,
                               ws_dim3 grid, ws_dim3 block, const ws_launch_stats *ls,
                               ws_file_batch *outputs);
/* With the report: what the simulation cost since ws_cli_runopt_apply
 * (ws_cli_print_cost), once the command has printed everything else. */
void ws_cli_runopt_print_cost(const ws_cli_runopt *o, const ws_launch_stats *ls);
extern const char ws_cli_runopt_help[];

/* ---- GEMM tiles: --bm --bn --bk --tm --tn --wm --wn --threads (gemmopt.c) ---- */
#define WS_CLI_GEMM_TILES 8
#define WS_CLI_GEMMOPT_FIRST 0x100 /* getopt codes 0x100..0x107, in the order above */
typedef struct ws_cli_gemmopt {
  const char *variant; /* NULL: default_variant */
  ws_gemmgen_variant default_variant;
  bool has_default_cfg; /* without --variant, start from default_cfg */
  ws_gemmgen_cfg default_cfg;
  uint32_t tiles[WS_CLI_GEMM_TILES]; /* 0: not given */
} ws_cli_gemmopt;
#define WS_CLI_GEMMOPT_LONGS                                                                                 \
  {"bm", required_argument, NULL, 0x100}, {"bn", required_argument, NULL, 0x101},                            \
      {"bk", required_argument, NULL, 0x102}, {"tm", required_argument, NULL, 0x103},                        \
      {"tn", required_argument, NULL, 0x104}, {"wm", required_argument, NULL, 0x105},                        \
      {"wn", required_argument, NULL, 0x106}, {                                                              \
    "threads", required_argument, NULL, 0x107                                                                \
  }
int ws_cli_gemmopt_take(const char *cmd, ws_cli_gemmopt *o, int c, const char *arg);
/* The variant's defaults (or default_cfg), then each tile flag given. */
/* A usage error for an unknown variant (named by variant_flag: "--gemm",
 * "--variant") or a tile flag the variant does not use; else WS_EXIT_OK. */
int ws_cli_gemmopt_check(const char *cmd, const char *variant_flag, const ws_cli_gemmopt *o);
ws_status ws_cli_gemmopt_resolve(ws_ctx *ctx, const ws_cli_gemmopt *o, ws_gemmgen_cfg *out);
extern const char ws_cli_gemmopt_help[];

#endif
