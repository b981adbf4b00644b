/* sampleopt.c - --sample, --sample-waves N, --sample-rounds N and --l2, shared by
 * the commands that run explore points (gemm, attention, sweep). */
#include <inttypes.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/gpu/sampler.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define LOOP_WINDOWS STR(WS_SAMPLER_LOOP_WINDOWS)
#define LOOP_ROUNDS STR(WS_SAMPLER_DEFAULT_ROUNDS)
#define WAVES STR(WS_SAMPLER_DEFAULT_WAVES)
#define WAVES_RANGE STR(WS_SAMPLER_MIN_WAVES) " to " STR(WS_SAMPLER_MAX_WAVES)
#define ROUNDS_RANGE STR(WS_SAMPLER_MIN_ROUNDS) " to " STR(WS_SAMPLER_MAX_ROUNDS)

const char ws_cli_sampleopt_help[] =
    "  --sample            estimate a long launch from samples (docs/explore.md): inside\n"
    "                      CTAs, each main loop is timed in " LOOP_WINDOWS " windows of " LOOP_ROUNDS
    " iterations\n"
    "                      spread over it and the iterations between them run functionally;\n"
    "                      over a grid of many waves, two waves of warm-up and " WAVES " batches\n"
    "                      spread over the grid are timed and the waves between them run\n"
    "                      functionally. Cycles and counters are extrapolated with a 95%\n"
    "                      interval, and the summary says how much was timed. Of a grid of\n"
    "                      32 CTAs or more, 16 to 31 spread over it compute in full and are\n"
    "                      checked; the others run only what their timing depends on (the\n"
    "                      same cycles and counters, their outputs unwritten)\n"
    "  --sample=exact      --sample with every CTA computed in full and checked\n"
    "  --sample-waves N    --sample with N batches of waves (" WAVES_RANGE ")\n"
    "  --sample-rounds N   --sample with N loop iterations per window (" ROUNDS_RANGE ")\n"
    "  --l2 keep|flush     keep: the launches of a point share the L2 (naive attention's\n"
    "                      scores stay there for the next kernel), written back after\n"
    "                      the last; flush (default): each launch starts with an empty\n"
    "                      L2 and ends by writing back what it left dirty, counted as\n"
    "                      its DRAM writes\n";

int ws_cli_l2opt_take(const char *cmd, uint32_t *keep, int c, const char *arg, bool *taken) {
  *taken = c == WS_CLI_L2;
  if (!*taken) return WS_EXIT_OK;
  if (strcmp(arg, "keep") == 0 || strcmp(arg, "flush") == 0) {
    *keep = arg[0] == 'k';
    return WS_EXIT_OK;
  }
  return ws_cli_usage_error(cmd, "--l2 expects keep or flush, found '%s'", arg);
}

/* Sampling on: every level not set yet takes its default. */
static void turn_on(uint32_t *waves, uint32_t *rounds) {
  if (!*waves) *waves = WS_SAMPLER_DEFAULT_WAVES;
  if (!*rounds) *rounds = WS_SAMPLER_DEFAULT_ROUNDS;
}

static int take_count(const char *cmd, const char *flag, uint32_t lo, uint32_t hi, const char *arg,
                      uint32_t *out) {
  uint64_t v;
  if (!ws_cli_parse_u64(arg, hi, &v) || v < lo)
    return ws_cli_usage_error(cmd, "%s expects %u to %u, found '%s'", flag, lo, hi, arg);
  *out = (uint32_t)v;
  return WS_EXIT_OK;
}

int ws_cli_sampleopt_take(const char *cmd, uint32_t *waves, uint32_t *rounds, bool *exact, int c,
                          const char *arg, bool *taken) {
  *taken = c == WS_CLI_SAMPLE || c == WS_CLI_SAMPLE_WAVES || c == WS_CLI_SAMPLE_ROUNDS;
  int rc = WS_EXIT_OK;
  if (c == WS_CLI_SAMPLE && arg) {
    if (strcmp(arg, "exact") != 0)
      return ws_cli_usage_error(cmd, "--sample= expects exact (or nothing: --sample), found '%s'", arg);
    *exact = true;
  } else if (c == WS_CLI_SAMPLE_WAVES)
    rc = take_count(cmd, "--sample-waves", WS_SAMPLER_MIN_WAVES, WS_SAMPLER_MAX_WAVES, arg, waves);
  else if (c == WS_CLI_SAMPLE_ROUNDS)
    rc = take_count(cmd, "--sample-rounds", WS_SAMPLER_MIN_ROUNDS, WS_SAMPLER_MAX_ROUNDS, arg, rounds);
  if (*taken && rc == WS_EXIT_OK) turn_on(waves, rounds);
  return rc;
}
