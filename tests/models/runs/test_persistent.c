/* test_persistent.c - N launches against one persistent ring kernel: each
 * launched item costs exactly the preset's launch overhead more than its
 * kernel; each ring item costs one poll round trip over the link (its time
 * moves one for one with pcie.zero_copy_lat_ns) and one poll; the crossover
 * a lower launch overhead gives is the one the overhead alone predicts from
 * a run at the preset's; every output is checked by the model itself
 * against the host's fmaf; bad configurations are refused.
 *
 * Runtime: a few hundred milliseconds on a100 with 8 to 24 items. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "isa/asm.h"

#include "models/runs/persistent.h"
#include "sim/host/device.h"
#include "sim/memsys/latency.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(persistent, .init = setup, .fini = teardown);

static ws_gpu_cfg preset(const char *name, const char *set) {
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(ctx, name, &c), WS_OK, "%s", ws_errmsg(ctx));
  if (set) cr_assert_eq(ws_config_set(ctx, &c, set), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_config_resolve(ctx, &c, "test"), WS_OK, "%s", ws_errmsg(ctx));
  return c;
}

static void run(const ws_gpu_cfg *gpu, uint32_t items, ws_persistent_result *r) {
  ws_persistent_cfg c = ws_persistent_default_cfg();
  c.items = items;
  cr_assert_eq(ws_persistent_run(ctx, gpu, &c, r), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(r->items, items);
}

Test(persistent, a_launch_costs_its_overhead_plus_its_kernel) {
  ws_gpu_cfg g = preset("a100", NULL);
  ws_persistent_result r;
  run(&g, 8, &r);
  uint64_t prev = 0;
  for (uint32_t i = 0; i < r.items; i++) {
    cr_expect_eq(r.launch_done_ns[i] - prev, g.pcie.launch_overhead_ns + r.launch_kernel_ns[i], "item %u", i);
    cr_expect_gt(r.launch_kernel_ns[i], 0);
    prev = r.launch_done_ns[i];
  }
  cr_expect_eq(r.launch_ns, r.launch_done_ns[7]);
  ws_persistent_result_free(&r);
}

Test(persistent, the_ring_polls_once_per_item_after_one_launch) {
  ws_gpu_cfg g = preset("a100", NULL);
  ws_persistent_result r;
  run(&g, 8, &r);
  cr_expect_eq(r.polls, 9,
               "the host answers each result at once: the first poll after it sees the next item, "
               "and one more sees the stop");
  cr_expect_eq(r.ring_start_ns, g.pcie.launch_overhead_ns, "its one launch");
  uint64_t rtt = (ws_latency_idle_cycles(&g, WS_LEVEL_HOST) * 1000u) / g.gpu.core_clock_mhz;
  cr_expect_eq(r.poll_ns, (ws_latency_idle_cycles(&g, WS_LEVEL_HOST) * 1000u + g.gpu.core_clock_mhz - 1) /
                              g.gpu.core_clock_mhz);
  for (uint32_t i = 1; i < r.items; i++)
    cr_expect_gt(r.ring_done_ns[i] - r.ring_done_ns[i - 1], rtt, "item %u: at least one round trip", i);
  cr_expect_gt(r.ring_kernel_ns, r.ring_ns - r.ring_start_ns,
               "the kernel outlives the last result (the stop)");
  ws_persistent_result_free(&r);
}

Test(persistent, a_ring_item_moves_one_for_one_with_the_link_latency) {
  ws_gpu_cfg near = preset("a100", NULL), far = preset("a100", "pcie.zero_copy_lat_ns=1400");
  ws_persistent_result a, b;
  run(&near, 8, &a);
  run(&far, 8, &b);
  uint32_t mhz = near.gpu.core_clock_mhz;
  uint64_t d_cycles =
      ws_latency_idle_cycles(&far, WS_LEVEL_HOST) - ws_latency_idle_cycles(&near, WS_LEVEL_HOST);
  double d_ns = (double)d_cycles * 1000.0 / mhz;
  for (uint32_t i = 1; i < a.items; i++) {
    double sa = (double)(a.ring_done_ns[i] - a.ring_done_ns[i - 1]);
    double sb = (double)(b.ring_done_ns[i] - b.ring_done_ns[i - 1]);
    cr_expect(sb - sa >= d_ns - 2 && sb - sa <= d_ns + 2, "item %u: %.0f ns longer, the round trip %.1f ns",
              i, sb - sa, d_ns);
  }
  for (uint32_t i = 0; i < a.items; i++) { /* a launched item only writes its flag: half a round trip */
    double k = (double)b.launch_kernel_ns[i] - (double)a.launch_kernel_ns[i];
    cr_expect(k >= d_ns / 2 - 2 && k <= d_ns / 2 + 2,
              "item %u's kernel: %.0f ns longer, half the round trip %.1f", i, k, d_ns / 2);
  }
  ws_persistent_result_free(&a);
  ws_persistent_result_free(&b);
}

/* The crossover for launch overhead `lo` predicted from a run at the
 * preset's `l0`: every launch moves by lo - l0, so N launches move by
 * N (lo - l0) and the ring, launched once, by lo - l0. */
static uint32_t predicted_crossover(const ws_persistent_result *r, int64_t delta) {
  for (uint32_t n = 1; n <= r->items; n++)
    if ((int64_t)r->ring_done_ns[n - 1] + delta < (int64_t)r->launch_done_ns[n - 1] + (int64_t)n * delta)
      return n;
  return 0;
}

Test(persistent, the_crossover_follows_the_launch_overhead) {
  ws_gpu_cfg base = preset("a100", NULL);
  ws_persistent_result r;
  run(&base, 24, &r);
  cr_expect_eq(r.crossover, predicted_crossover(&r, 0), "the definition");
  cr_expect_eq(r.crossover, 2, "4 us launches: the ring's extra poll is won back by the second item");
  const uint32_t overheads[] = {200, 50, 0};
  for (size_t k = 0; k < sizeof overheads / sizeof overheads[0]; k++) {
    char set[64];
    snprintf(set, sizeof set, "pcie.launch_overhead_ns=%u", overheads[k]);
    ws_gpu_cfg g = preset("a100", set);
    ws_persistent_result o;
    run(&g, 24, &o);
    int64_t delta = (int64_t)overheads[k] - (int64_t)base.pcie.launch_overhead_ns;
    for (uint32_t n = 1; n <= o.items; n++) {
      cr_expect_eq((int64_t)o.launch_done_ns[n - 1], (int64_t)r.launch_done_ns[n - 1] + (int64_t)n * delta,
                   "%s: %u launches", set, n);
      cr_expect_eq((int64_t)o.ring_done_ns[n - 1], (int64_t)r.ring_done_ns[n - 1] + delta, "%s: ring, %u",
                   set, n);
    }
    cr_expect_eq(o.crossover, predicted_crossover(&r, delta), "%s", set);
    ws_persistent_result_free(&o);
  }
  ws_persistent_result_free(&r);
}

Test(persistent, bad_configurations_are_refused) {
  ws_gpu_cfg g = preset("classroom", NULL);
  const ws_persistent_cfg bad[] = {
      {.items = 0, .elems = 16, .threads = 32},
      {.items = WS_PERSISTENT_MAX_ITEMS + 1, .elems = 16, .threads = 32},
      {.items = 1, .elems = 0, .threads = 32},
      {.items = 4096, .elems = 8192, .threads = 32},
      {.items = 1, .elems = 16, .threads = 48},
      {.items = 1, .elems = 16, .threads = 4096},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ws_persistent_result r;
    cr_expect_eq(ws_persistent_run(ctx, &g, &bad[i], &r), WS_ERR_INVALID, "case %zu", i);
    ws_persistent_result_free(&r);
  }
}

static uint64_t never(void *user) {
  (void)user;
  return UINT64_MAX;
}

static ws_status nothing(void *user, uint64_t cycle) {
  (void)user, (void)cycle;
  return WS_OK;
}

Test(persistent, host_code_alongside_needs_the_timing_model) {
  ws_gpu_cfg g = preset("classroom", NULL);
  ws_device *dev;
  cr_assert_eq(ws_device_create(ctx, &g, &dev), WS_OK);
  ws_program *prog;
  const char src[] = ".kernel k\n    EXIT\n";
  cr_assert_eq(ws_asm_parse(ctx, src, sizeof src - 1, "k.wsa", &prog), WS_OK, "%s", ws_errmsg(ctx));
  ws_host_agent agent = {.next_cycle = never, .act = nothing};
  ws_device_set_host_agent(dev, &agent);
  ws_args args;
  ws_args_init(&args, &prog->kernels[0]);
  ws_device_set_mode(dev, WS_MODE_FUNCTIONAL);
  cr_expect_eq(
      ws_device_launch(dev, &prog->kernels[0], (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, &args, NULL),
      WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "needs the timing model"), "%s", ws_errmsg(ctx));
  ws_device_set_mode(dev, WS_MODE_TIMING);
  ws_launch_stats ls;
  cr_expect_eq(
      ws_device_launch(dev, &prog->kernels[0], (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, &args, &ls), WS_OK,
      "%s", ws_errmsg(ctx));
  ws_program_destroy(prog);
  ws_device_destroy(dev);
}
