/* sampleopt.c - --sample and --sample-waves N, shared by the commands that
 * run explore points (gemm, attention, sweep). */
#include <inttypes.h>

#include "cli/cli.h"
#include "sim/gpu/sampler.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char ws_cli_sampleopt_help[] =
    "  --sample            estimate a grid of many CTA waves from samples: two waves of\n"
    "                      warm-up and " STR(
        WS_SAMPLER_DEFAULT_WAVES) " batches spread over the grid are timed, the waves\n"
                                  "                      between them run functionally (exact results, L2 "
                                  "warmed), the\n"
                                  "                      end is timed; cycles and counters are extrapolated "
                                  "with a 95%\n"
                                  "                      interval (docs/explore.md). A grid of too few waves "
                                  "is timed in\n"
                                  "                      full, and the summary says so.\n"
                                  "  --sample-waves N    --sample with N batches (" STR(
                                      WS_SAMPLER_MIN_WAVES) " to " STR(WS_SAMPLER_MAX_WAVES) "; more: a "
                                                                                             "tighter "
                                                                                             "interval)\n";

int ws_cli_sampleopt_take(const char *cmd, uint32_t *waves, int c, const char *arg, bool *taken) {
  *taken = c == WS_CLI_SAMPLE || c == WS_CLI_SAMPLE_WAVES;
  if (c == WS_CLI_SAMPLE) {
    if (!*waves) *waves = WS_SAMPLER_DEFAULT_WAVES;
    return WS_EXIT_OK;
  }
  if (c != WS_CLI_SAMPLE_WAVES) return WS_EXIT_OK;
  uint64_t v;
  if (!ws_cli_parse_u64(arg, WS_SAMPLER_MAX_WAVES, &v) || v < WS_SAMPLER_MIN_WAVES)
    return ws_cli_usage_error(cmd, "--sample-waves expects %u to %u, found '%s'", WS_SAMPLER_MIN_WAVES,
                              WS_SAMPLER_MAX_WAVES, arg);
  *waves = (uint32_t)v;
  return WS_EXIT_OK;
}
