/* kerntest.h - the fixture the generated-kernel suites share: one device of
 * a preset (functional a100 by default, timed classroom for the timing
 * tests) and a seeded generator of test inputs (splitmix64).
 *
 * Design: a header of static functions, as tests/sim/simtest.h, so each
 * suite stays one file while the set-up is written once. */
#ifndef WS_TESTS_KERNTEST_H
#define WS_TESTS_KERNTEST_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "sim/host/device.h"

static ws_ctx *ctx;
static ws_device *dev;
static ws_gpu_cfg cfg;

static void setup_preset(const char *preset, ws_exec_mode mode) {
  ctx = ws_ctx_create();
  cr_assert_eq(ws_config_load_preset(ctx, preset, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
  ws_device_set_mode(dev, mode);
}

static void setup(void) { setup_preset("a100", WS_MODE_FUNCTIONAL); }
static void setup_classroom(void) { setup_preset("classroom", WS_MODE_TIMING); }

static void teardown(void) {
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

static uint64_t rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif
