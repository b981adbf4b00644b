/* sampleopt.c - --sample and --sample-waves N, shared by the commands that
 * run explore points (gemm, attention, sweep). */
#include <inttypes.h>

#include "cli/cli.h"
#include "sim/gpu/sampler.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char ws_cli_sampleopt_help[] =
    "  --sample            estimate large grids from sampled CTA waves: the first wave and\n"
    "                      " STR(
        WS_SAMPLER_DEFAULT_WAVES) " measured ones timed in full, whole middle waves run\n"
                                  "                      functionally (exact results, L2 warmed), the last "
                                  "waves timed;\n"
                                  "                      cycles and counters extrapolated with a 95% "
                                  "interval\n"
                                  "                      (docs/explore.md). A grid of fewer waves than "
                                  "sampling needs is\n"
                                  "                      timed in full.\n"
                                  "  --sample-waves N    --sample measuring N waves (" STR(
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
