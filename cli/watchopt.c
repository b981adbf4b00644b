/* watchopt.c - the options that bound a launch (--max-warp-insns,
 * --max-cycles, --timeout, --no-spin-check), Ctrl-C, and the progress line
 * a long launch shows on a terminal.
 *
 * Design: the simulator polls an interrupt flag it is given (ws_watch); a
 * signal handler can reach nothing but static storage, so the one flag it
 * sets lives here, the only mutable file-scope state of the command. The
 * first Ctrl-C (or SIGTERM) asks the running launch to stop and report what
 * it simulated; the handler then resets itself, so a second one ends the
 * process at once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static volatile sig_atomic_t interrupted;

const char ws_cli_watchopt_help[] = WS_CLI_WATCHOPT_HELP;

static void on_signal(int sig) {
  (void)sig;
  interrupted = 1;
}

bool ws_cli_interrupted(void) { return interrupted != 0; }

static int parse_limit(const char *cmd, const char *flag, const char *arg, uint64_t *out) {
  if (!ws_cli_parse_u64(arg, UINT64_MAX, out) || *out == 0)
    return ws_cli_usage_error(cmd, "%s expects a positive whole number, found '%s'", flag, arg);
  return WS_EXIT_OK;
}

static int parse_seconds(const char *cmd, const char *arg, double *out) {
  char *end = NULL;
  double v = strtod(arg, &end);
  if (!*arg || *end || !isfinite(v) || v <= 0 || v > 1e9)
    return ws_cli_usage_error(cmd, "--timeout expects seconds, a number in (0, 1e9], found '%s'", arg);
  *out = v;
  return WS_EXIT_OK;
}

int ws_cli_parse_sim_threads(const char *cmd, const char *arg, uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(arg, WS_CLI_SIM_THREADS_MAX, &v) || v == 0)
    return ws_cli_usage_error(cmd, "--sim-threads expects a whole number from 1 to %u, found '%s'",
                              WS_CLI_SIM_THREADS_MAX, arg);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

uint32_t ws_cli_sim_threads(uint32_t chosen) {
  if (chosen) return chosen;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) return 1;
  return (uint64_t)cores < WS_CLI_SIM_THREADS_MAX ? (uint32_t)cores : WS_CLI_SIM_THREADS_MAX;
}

int ws_cli_watchopt_take(const char *cmd, ws_cli_watchopt *o, int c, const char *arg, bool *taken) {
  *taken = true;
  switch (c) {
  case WS_CLI_WATCH_MAX_WARP_INSNS: return parse_limit(cmd, "--max-warp-insns", arg, &o->max_warp_insns);
  case WS_CLI_WATCH_MAX_CYCLES: return parse_limit(cmd, "--max-cycles", arg, &o->max_cycles);
  case WS_CLI_WATCH_TIMEOUT: return parse_seconds(cmd, arg, &o->timeout_s);
  case WS_CLI_WATCH_NO_SPIN_CHECK: o->no_spin_check = true; return WS_EXIT_OK;
  case WS_CLI_WATCH_SIM_THREADS: return ws_cli_parse_sim_threads(cmd, arg, &o->sim_threads);
  default: *taken = false; return WS_EXIT_OK;
  }
}

/* "\r  kernel gemm: cycle 1234567, 12 of 64 CTAs, 3.2 s" on a terminal;
 * cleared when the launch ends. */
static void show_progress(void *user, const ws_progress *p) {
  (void)user;
  if (p->done) {
    fputs("\r\033[K", stderr);
  } else if (p->cycles) {
    fprintf(stderr, "\r  kernel %s: cycle %llu, %llu of %llu CTAs done, %.1f s\033[K", p->kernel,
            (unsigned long long)p->cycles, (unsigned long long)p->ctas_done,
            (unsigned long long)p->ctas_total, p->elapsed_s);
  } else {
    fprintf(stderr, "\r  kernel %s: %llu warp instructions, %llu of %llu CTAs done, %.1f s\033[K", p->kernel,
            (unsigned long long)p->warp_insns, (unsigned long long)p->ctas_done,
            (unsigned long long)p->ctas_total, p->elapsed_s);
  }
  fflush(stderr);
}

volatile sig_atomic_t *ws_cli_catch_interrupts(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C stops the process at once */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return &interrupted;
}

void ws_cli_watchopt_apply(const ws_cli_watchopt *o, ws_device *dev) {
  ws_cli_catch_interrupts();
  const ws_watch w = {.max_warp_insns_per_warp = o->max_warp_insns,
                      .max_cycles = o->max_cycles,
                      .timeout_s = o->timeout_s,
                      .no_spin_check = o->no_spin_check,
                      .interrupt = &interrupted,
                      .progress = isatty(STDERR_FILENO) ? show_progress : NULL};
  ws_device_set_watch(dev, &w);
  ws_device_set_threads(dev, ws_cli_sim_threads(o->sim_threads));
}
