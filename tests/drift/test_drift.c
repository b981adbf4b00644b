/* test_drift.c - the drift gate: a compact validation suite that fails
 * when a simulated figure leaves the band around its published value.
 *
 * Design: the figures, their bands and their sources live in one data file,
 * tests/drift/bands.csv (preset, figure, published, low, high, source), so a
 * model change that moves a figure out of its band fails `make test` with
 * the figure, its value, the band and the source, and a new measurement is
 * one line. Each preset's figures come from the microbenchmarks of
 * models/runs/microbench.h on a fresh device: pointer-chase latencies per level,
 * the streaming copy's DRAM traffic (% of peak), shared-memory wavefronts
 * per access by stride, L1 sectors per warp load by stride. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "models/runs/microbench.h"
#include "plot/table.h"

typedef struct figures {
  ws_microbench_latency lat[WS_MICROBENCH_LEVEL_COUNT];
  ws_microbench_bw stream;
  ws_microbench_bank_row banks[WS_MICROBENCH_MAX_STRIDE];
  ws_microbench_coalesce_row coal[WS_MICROBENCH_MAX_STRIDE];
  bool has_lat, has_stream, has_banks, has_coal;
} figures;

static ws_device *fresh(ws_ctx *ctx, const char *preset) {
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  cr_assert_eq(ws_config_load_preset(ctx, preset, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
  return dev;
}

/* The figure `name` of `preset`, measured on first need. */
static double measure(ws_ctx *ctx, const char *preset, const char *name, figures *f) {
  static const char *const levels[WS_MICROBENCH_LEVEL_COUNT] = {
      "latency.smem", "latency.l1", "latency.l2_near", "latency.l2_far", "latency.dram"};
  for (int lv = 0; lv < WS_MICROBENCH_LEVEL_COUNT; lv++) {
    if (strcmp(name, levels[lv]) != 0) continue;
    if (!f->has_lat) {
      ws_device *dev = fresh(ctx, preset);
      cr_assert_eq(ws_microbench_latency_run(dev, f->lat), WS_OK, "%s", ws_errmsg(ctx));
      ws_device_destroy(dev);
      f->has_lat = true;
    }
    cr_assert(f->lat[lv].present && !f->lat[lv].why[0], "%s %s: %s", preset, name, f->lat[lv].why);
    return f->lat[lv].measured_cycles;
  }
  if (strcmp(name, "stream.dram_pct") == 0) {
    if (!f->has_stream) {
      ws_device *dev = fresh(ctx, preset);
      uint64_t twice_l2 = 2 * ws_device_cfg(dev)->geom.l2_bytes; /* as microbench bandwidth */
      cr_assert_eq(ws_microbench_stream_hbm(dev, twice_l2, &f->stream), WS_OK, "%s", ws_errmsg(ctx));
      ws_device_destroy(dev);
      f->has_stream = true;
    }
    return 100.0 * f->stream.dram_gbps / f->stream.peak_gbps;
  }
  uint32_t stride = 0;
  if (sscanf(name, "banks.stride%u", &stride) == 1 && stride >= 1 && stride <= WS_MICROBENCH_MAX_STRIDE) {
    if (!f->has_banks) {
      ws_device *dev = fresh(ctx, preset);
      cr_assert_eq(ws_microbench_smem_banks_run(dev, WS_MICROBENCH_MAX_STRIDE, f->banks), WS_OK, "%s",
                   ws_errmsg(ctx));
      ws_device_destroy(dev);
      f->has_banks = true;
    }
    return f->banks[stride - 1].wavefronts_per_access;
  }
  if (sscanf(name, "coalescing.stride%u", &stride) == 1 && stride >= 1 &&
      stride <= WS_MICROBENCH_MAX_STRIDE) {
    if (!f->has_coal) {
      ws_device *dev = fresh(ctx, preset);
      cr_assert_eq(ws_microbench_coalescing_run(dev, WS_MICROBENCH_MAX_STRIDE, f->coal), WS_OK, "%s",
                   ws_errmsg(ctx));
      ws_device_destroy(dev);
      f->has_coal = true;
    }
    return (double)f->coal[stride - 1].sectors;
  }
  cr_assert_fail("tests/drift/bands.csv names an unknown figure '%s'", name);
  return 0;
}

Test(drift, every_figure_stays_in_its_published_band) {
  ws_ctx *ctx = ws_ctx_create();
  ws_table *t = NULL;
  cr_assert_eq(ws_table_read(ctx, WS_SOURCE_DIR "/tests/drift/bands.csv", &t), WS_OK, "%s", ws_errmsg(ctx));
  size_t cp, cf, cpub, clo, chi, csrc;
  cr_assert(ws_table_find(t, "preset", &cp) && ws_table_find(t, "figure", &cf) &&
            ws_table_find(t, "published", &cpub) && ws_table_find(t, "low", &clo) &&
            ws_table_find(t, "high", &chi) && ws_table_find(t, "source", &csrc));
  cr_assert_gt(ws_table_rows(t), 0);
  figures f;
  char preset[64] = "";
  size_t checked = 0;
  for (size_t r = 0; r < ws_table_rows(t); r++) {
    if (strcmp(preset, ws_table_cell(t, r, cp)) != 0) { /* a preset's rows are together */
      snprintf(preset, sizeof preset, "%s", ws_table_cell(t, r, cp));
      memset(&f, 0, sizeof f);
    }
    double pub, lo, hi;
    cr_assert_eq(ws_table_number(ctx, t, r, cpub, &pub), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_table_number(ctx, t, r, clo, &lo), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_table_number(ctx, t, r, chi, &hi), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert(lo <= pub && pub <= hi, "bands.csv line %zu: the band must hold the published value",
              ws_table_line(t, r));
    const char *name = ws_table_cell(t, r, cf);
    double v = measure(ctx, preset, name, &f);
    cr_expect(v >= lo && v <= hi, "drift: %s %s = %.2f left its band [%g, %g] around %g (%s)", preset, name,
              v, lo, hi, pub, ws_table_cell(t, r, csrc));
    checked++;
  }
  cr_expect_geq(checked, 20);
  ws_table_destroy(t);
  ws_ctx_destroy(ctx);
}
