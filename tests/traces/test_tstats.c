/* test_tstats.c - counters rebuilt from a trace (traces/tstats.h) equal the
 * device's own, name by name: each example runs with the trace writer's
 * probe on the device, the trace is read back from its file, and every
 * counter `trace stats` rebuilds must exist in the device's registry with
 * the same value.
 *
 * Design: the examples cover loads and stores (saxpy), shuffles and shared
 * memory with barriers (reduce), a tiled GEMM with its branches and
 * bank conflicts (sgemm) and tensor cores with LDGSTS groups (mma), on two
 * presets whose caches, partitions and DRAM differ (a100, v100), with the
 * presets' streaming L1 (ways taken at the fill, misses merged by line) and
 * with the on-miss one (ways pinned from the miss); the L1 write-back
 * policy, which allocates on miss, adds L1 victims written to L2. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "traces/tstats.h"
#include "traces/wst.h"

static ws_ctx *ctx;
static char dir[64];
static char path[96];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_tstats.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/run.wst", dir);
}

static void teardown(void) {
  remove(path);
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(tstats, .init = setup, .fini = teardown);

/* Runs example `name` on `gpu` (with one --set style override, or NULL)
 * recording a trace into `path`; returns the device (caller destroys). */
static ws_device *run_traced(const char *name, const char *gpu, const char *set,
                             const ws_example_shape *shape) {
  ws_device *dev = wstrec_device(ctx, gpu, set);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, NULL);
  wstrec_run(ctx, dev, name, shape, 1, NULL);
  wstrec_finish(ctx, dev, w);
  return dev;
}

/* Every rebuilt counter equals the device's counter of the same name. */
static void check_example(const char *name, const char *gpu, const char *set, const ws_example_shape *shape) {
  ws_device *dev = run_traced(name, gpu, set, shape);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_null(ws_wst_warning(r));
  size_t launches = ws_wst_launch_count(r);
  cr_assert_geq(launches, 1u);
  ws_tstats *t = NULL; /* the device's counters describe its last launch */
  cr_assert_eq(ws_tstats_from_trace(ctx, r, (uint32_t)(launches - 1), &t), WS_OK, "%s", ws_errmsg(ctx));
  const ws_stats *s = ws_device_stats(dev);
  size_t n = ws_tstats_count(t), nonzero = 0;
  cr_assert_gt(n, 100u);
  for (size_t i = 0; i < n; i++) {
    uint64_t want = 0, got = ws_tstats_value(t, i);
    const char *counter = ws_tstats_name(t, i);
    cr_assert(ws_stats_get(s, counter, &want), "%s: the device has no counter %s", name, counter);
    cr_expect_eq(got, want, "%s on %s%s%s: %s rebuilt as %llu, the device counted %llu", name, gpu,
                 set ? " with " : "", set ? set : "", counter, (unsigned long long)got,
                 (unsigned long long)want);
    nonzero += got != 0;
  }
  cr_expect_gt(nonzero, 20u, "%s: the comparison is not vacuous", name);
  ws_tstats_destroy(t);
  ws_wst_close(r);
  ws_device_destroy(dev);
}

static ws_example_shape shape_of(const char *name) {
  ws_example_shape s = ws_example_default_shape(name);
  if (ws_example_uses_mk(name) && s.m > 128)
    s.m = s.n = s.k = 128; /* the same paths, a quarter of the time */
  return s;
}

static void check_all(const char *gpu, const char *set) {
  static const char *const names[] = {"saxpy", "sgemm", "reduce", "mma"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ws_example_shape s = shape_of(names[i]);
    check_example(names[i], gpu, set, &s);
  }
}

Test(tstats, every_counter_matches_on_a100) { check_all("a100", NULL); }
Test(tstats, every_counter_matches_on_v100) { check_all("v100", NULL); }
Test(tstats, every_counter_matches_with_l1_on_miss) { check_all("a100", "l1.allocation=on-miss"); }
Test(tstats, every_counter_matches_with_l1_write_back) {
  check_all("classroom", "l1.allocation=on-miss;l1.write_policy=write-back");
}

Test(tstats, names_follow_the_registry) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  const char *reasons[] = {"selected", "depbar"};
  ws_tstats *t = NULL;
  cr_assert_eq(ws_tstats_create(ctx, &cfg, reasons, 2, &t), WS_OK);
  uint64_t v = 1;
  cr_expect(ws_tstats_get(t, "gpu.cycles", &v));
  cr_expect_eq(v, 0u);
  cr_expect(ws_tstats_get(t, "sm1.stall.depbar", &v));
  cr_expect(ws_tstats_get(t, "sm0.inst_by_unit.tensor", &v));
  cr_expect(ws_tstats_get(t, "hbm.ch1.busy_cycles", &v));
  cr_expect(ws_tstats_get(t, "noc.slice1.resp_bytes", &v));
  cr_expect_not(ws_tstats_get(t, "sm2.warp_insns", &v), "classroom has two SMs");
  ws_tstats_destroy(t);
}
