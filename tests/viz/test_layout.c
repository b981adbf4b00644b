/* test_layout.c - the visualizer's geometry (viz/layout.h) on every preset:
 * every rectangle on the canvas, parts of one kind never overlapping, cells
 * inside the part that holds them, counts equal to the config, hit-testing
 * a cell's centre finds that cell, and the zoomed views.
 *
 * Design: the checks walk the layout through its public queries only, the
 * way the renderer and the tooltips use it, so a rectangle the renderer
 * draws is a rectangle tested here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "viz/layout.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(layout, .init = setup, .fini = teardown);

static ws_gpu_cfg preset(const char *name) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, name, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  return cfg;
}

static ws_viz_layout *make(const ws_gpu_cfg *cfg, int32_t w, int32_t h, ws_viz_view view) {
  ws_viz_layout *l = NULL;
  cr_assert_eq(ws_viz_layout_create(ctx, cfg, w, h, view, &l), WS_OK, "%s %dx%d: %s", cfg->gpu.name, w, h,
               ws_errmsg(ctx));
  return l;
}

static bool inside(ws_viz_rect in, ws_viz_rect out) {
  return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w && in.y + in.h <= out.y + out.h;
}

static bool overlap(ws_viz_rect a, ws_viz_rect b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static ws_viz_rect get(const ws_viz_layout *l, ws_viz_part part, uint32_t sm, uint32_t i) {
  ws_viz_rect r;
  cr_assert(ws_viz_layout_rect(l, part, sm, i, &r), "%s %u of SM %u is in the view", ws_viz_part_name(part),
            i, sm);
  return r;
}

/* The parts a cell of `part` index i lies in (its container, or none). */
static ws_viz_part container_of(ws_viz_part part, const ws_gpu_cfg *c, uint32_t i, uint32_t *ci) {
  switch (part) {
  case WS_VIZ_PART_HBM_BANK: *ci = i / c->hbm.banks_per_channel; return WS_VIZ_PART_HBM_CHANNEL;
  case WS_VIZ_PART_HBM_CHANNEL: *ci = 0; return WS_VIZ_PART_HBM;
  case WS_VIZ_PART_L2_SLICE: *ci = i * c->geom.l2_partitions / c->l2.slices; return WS_VIZ_PART_L2_PARTITION;
  case WS_VIZ_PART_WARP_SLOT: *ci = i % c->sm.subpartitions; return WS_VIZ_PART_SUBPART;
  case WS_VIZ_PART_RF_BANK: *ci = i / c->regfile.banks_per_subpartition; return WS_VIZ_PART_SUBPART;
  case WS_VIZ_PART_TENSOR: *ci = i; return WS_VIZ_PART_SUBPART;
  case WS_VIZ_PART_CTA_SLOT: *ci = 0; return WS_VIZ_PART_CTAS;
  case WS_VIZ_PART_SMEM_BANK:
  case WS_VIZ_PART_SMEM_WAVE: *ci = 0; return WS_VIZ_PART_SMEM;
  case WS_VIZ_PART_L1_SET: *ci = 0; return WS_VIZ_PART_L1;
  default: *ci = 0; return WS_VIZ_PART_NONE;
  }
}

static bool is_leaf(ws_viz_part p) {
  switch (p) {
  case WS_VIZ_PART_HBM_BANK:
  case WS_VIZ_PART_L2_SLICE:
  case WS_VIZ_PART_PCIE:
  case WS_VIZ_PART_COPY_ENGINE:
  case WS_VIZ_PART_HOST:
  case WS_VIZ_PART_DRAM_LINK:
  case WS_VIZ_PART_XBAR:
  case WS_VIZ_PART_HEADER:
  case WS_VIZ_PART_WARP_SLOT:
  case WS_VIZ_PART_RF_BANK:
  case WS_VIZ_PART_TENSOR:
  case WS_VIZ_PART_CTA_SLOT:
  case WS_VIZ_PART_SMEM_BANK:
  case WS_VIZ_PART_SMEM_WAVE:
  case WS_VIZ_PART_L1_SET: return true;
  default: return false;
  }
}

/* Every shown part of every kind: on the canvas, inside its SM and its
 * container, apart from the others of its kind, and found by its centre.
 * Returns how many parts were checked. */
static size_t check_layout(const ws_viz_layout *l, int32_t W, int32_t H) {
  const ws_gpu_cfg *c = ws_viz_layout_cfg(l);
  ws_viz_rect canvas = {0, 0, W, H};
  size_t checked = 0;
  for (int p = WS_VIZ_PART_HEADER; p < WS_VIZ_PART_COUNT; p++) {
    ws_viz_part part = (ws_viz_part)p;
    uint32_t n = ws_viz_layout_count(l, part), nsm = ws_viz_part_per_sm(part) ? c->gpu.num_sms : 1;
    for (uint32_t sm = 0; sm < nsm; sm++) {
      static ws_viz_rect prev[8192]; /* h100: 80 channels x 64 banks */
      uint32_t shown = 0;
      cr_assert_leq(n, 8192u);
      for (uint32_t i = 0; i < n; i++) {
        ws_viz_rect r;
        if (!ws_viz_layout_rect(l, part, sm, i, &r)) continue;
        checked++;
        cr_assert(r.w >= 1 && r.h >= 1, "%s %u of SM %u: %dx%d", ws_viz_part_name(part), i, sm, r.w, r.h);
        cr_assert(inside(r, canvas), "%s %u of SM %u (%d,%d %dx%d) on the %dx%d canvas",
                  ws_viz_part_name(part), i, sm, r.x, r.y, r.w, r.h, W, H);
        if (ws_viz_part_per_sm(part) && part != WS_VIZ_PART_SM)
          cr_assert(inside(r, get(l, WS_VIZ_PART_SM, sm, 0)), "%s %u inside SM %u", ws_viz_part_name(part), i,
                    sm);
        uint32_t ci;
        ws_viz_part cp = container_of(part, c, i, &ci);
        ws_viz_rect cr;
        if (cp != WS_VIZ_PART_NONE && ws_viz_layout_rect(l, cp, sm, ci, &cr))
          cr_assert(inside(r, cr), "%s %u of SM %u inside %s %u", ws_viz_part_name(part), i, sm,
                    ws_viz_part_name(cp), ci);
        for (uint32_t j = 0; j < shown; j++)
          cr_assert(!overlap(r, prev[j]), "%s %u of SM %u overlaps another", ws_viz_part_name(part), i, sm);
        prev[shown++] = r;
        if (is_leaf(part)) {
          ws_viz_hit hit;
          cr_assert(ws_viz_layout_hit(l, r.x + r.w / 2, r.y + r.h / 2, &hit));
          cr_assert(hit.part == part && hit.index == i && (!ws_viz_part_per_sm(part) || hit.sm == sm),
                    "centre of %s %u of SM %u hits %s %u of SM %u", ws_viz_part_name(part), i, sm,
                    ws_viz_part_name(hit.part), hit.index, hit.sm);
        }
      }
    }
  }
  return checked;
}

/* SMs pairwise apart (the per-kind check above sees one SM at a time). */
static void check_sms_apart(const ws_viz_layout *l, uint32_t nsm) {
  for (uint32_t a = 0; a < nsm; a++)
    for (uint32_t b = a + 1; b < nsm; b++)
      cr_assert(!overlap(get(l, WS_VIZ_PART_SM, a, 0), get(l, WS_VIZ_PART_SM, b, 0)),
                "SM %u and SM %u overlap", a, b);
}

Test(layout, every_preset_fits_the_default_canvas) {
  for (const char *const *name = ws_config_preset_names(); *name; name++) {
    ws_gpu_cfg cfg = preset(*name);
    ws_viz_layout *l = make(&cfg, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
    size_t checked = check_layout(l, 1280, 800);
    check_sms_apart(l, cfg.gpu.num_sms);
    /* every SM, channel, bank, slice and cell is shown */
    uint32_t per_sm = 1 + cfg.sm.subpartitions * 2 + cfg.sm.max_warps_per_sm +
                      cfg.sm.subpartitions * cfg.regfile.banks_per_subpartition + 1 + cfg.sm.max_ctas_per_sm +
                      1 + cfg.smem.banks + 1 + cfg.geom.l1_sets;
    size_t global = 2 + 1 + 2 + 2 + 1 + cfg.hbm.channels * (1 + cfg.hbm.banks_per_channel) + 1 +
                    cfg.geom.l2_partitions + cfg.l2.slices + 1;
    cr_expect_eq(checked, global + (size_t)per_sm * cfg.gpu.num_sms, "%s: %zu parts", *name, checked);
    ws_viz_layout_destroy(l);
  }
}

Test(layout, counts_follow_the_config) {
  for (const char *const *name = ws_config_preset_names(); *name; name++) {
    ws_gpu_cfg c = preset(*name);
    ws_viz_layout *l = make(&c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_WARP_SLOT), c.sm.max_warps_per_sm, "%s", *name);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_HBM_BANK), c.hbm.channels * c.hbm.banks_per_channel);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_HBM_CHANNEL), c.hbm.channels);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_L2_SLICE), c.l2.slices);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_L2_PARTITION), c.l2.partitions);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_RF_BANK),
                 c.sm.subpartitions * c.regfile.banks_per_subpartition);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_SMEM_BANK), c.smem.banks);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_CTA_SLOT), c.sm.max_ctas_per_sm);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_TENSOR), c.sm.subpartitions);
    cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_L1_SET), c.geom.l1_sets);
    ws_viz_layout_destroy(l);
  }
}

/* The numbers quoted in the presets: 132 SMs x 64 warps, 80 channels x 64
 * banks and 100 slices in two partitions of 50 on the h100. */
Test(layout, h100_numbers) {
  ws_gpu_cfg c = preset("h100");
  ws_viz_layout *l = make(&c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
  cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_WARP_SLOT), 64u);
  cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_HBM_BANK), 5120u);
  cr_expect_eq(ws_viz_layout_count(l, WS_VIZ_PART_L2_SLICE), 100u);
  /* slices 0..49 in partition 0, 50..99 in partition 1 */
  cr_expect(inside(get(l, WS_VIZ_PART_L2_SLICE, 0, 49), get(l, WS_VIZ_PART_L2_PARTITION, 0, 0)));
  cr_expect(inside(get(l, WS_VIZ_PART_L2_SLICE, 0, 50), get(l, WS_VIZ_PART_L2_PARTITION, 0, 1)));
  /* the smallest cells still show: warp slots of at least 2x2 pixels */
  ws_viz_rect w = get(l, WS_VIZ_PART_WARP_SLOT, 131, 63);
  cr_expect(w.w >= 2 && w.h >= 2, "warp slot %dx%d", w.w, w.h);
  ws_viz_rect b = get(l, WS_VIZ_PART_HBM_BANK, 0, 1279);
  cr_expect(b.w >= 2 && b.h >= 2, "HBM bank %dx%d", b.w, b.h);
  ws_viz_layout_destroy(l);
}

/* Warp slot s sits in sub-partition s mod 4: slots 0 and 4 share a column
 * of the grid, slots 0..3 are in four different sub-partitions. */
Test(layout, warp_slots_by_subpartition) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = make(&c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
  for (uint32_t s = 0; s < 8; s++) {
    ws_viz_hit hit;
    ws_viz_rect r = get(l, WS_VIZ_PART_WARP_SLOT, 1, s), sp = get(l, WS_VIZ_PART_SUBPART, 1, s % 4);
    cr_expect(inside(r, sp), "slot %u in sub-partition %u", s, s % 4);
    cr_assert(ws_viz_layout_hit(l, sp.x + 1, sp.y + sp.h - 1, &hit));
  }
  ws_viz_layout_destroy(l);
}

Test(layout, zoom_sm_shows_one_sm_filling_the_canvas) {
  for (const char *const *name = ws_config_preset_names(); *name; name++) {
    ws_gpu_cfg c = preset(*name);
    uint32_t sm = c.gpu.num_sms - 1;
    ws_viz_layout *l = make(&c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_SM, sm});
    check_layout(l, 1280, 800);
    ws_viz_rect r, s = get(l, WS_VIZ_PART_SM, sm, 0), panel = get(l, WS_VIZ_PART_PANEL, 0, 0);
    cr_expect(!ws_viz_layout_rect(l, WS_VIZ_PART_SM, 0 == sm ? 1 : 0, 0, &r), "%s: one SM", *name);
    cr_expect(!ws_viz_layout_rect(l, WS_VIZ_PART_HBM_BANK, 0, 0, &r), "no HBM in the SM view");
    cr_expect_geq(s.w, panel.x - 10, "%s: the SM spans the canvas left of the panel", *name);
    cr_expect_geq(s.h, 800 - 40);
    ws_viz_rect w = get(l, WS_VIZ_PART_WARP_SLOT, sm, 0);
    cr_expect_geq(w.w, 20, "%s: warp slots drawn large (%dx%d)", *name, w.w, w.h);
    cr_expect(ws_viz_layout_captions(l) && ws_viz_layout_sm_titles(l));
    ws_viz_layout_destroy(l);
  }
}

Test(layout, zoom_smem_stacks_wavefronts) {
  ws_gpu_cfg c = preset("a100");
  ws_viz_view v;
  cr_assert_eq(ws_viz_view_parse(ctx, &c, "smem:7", &v), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_layout *l = make(&c, 1280, 800, v);
  check_layout(l, 1280, 800);
  /* bank 3's wavefronts stack upwards from wavefront 0, all under its header */
  ws_viz_rect head = get(l, WS_VIZ_PART_SMEM_BANK, 7, 3);
  ws_viz_rect w0 = get(l, WS_VIZ_PART_SMEM_WAVE, 7, 0 * 32 + 3),
              w1 = get(l, WS_VIZ_PART_SMEM_WAVE, 7, 1 * 32 + 3);
  ws_viz_rect w31 = get(l, WS_VIZ_PART_SMEM_WAVE, 7, 31 * 32 + 3);
  cr_expect(w1.y < w0.y && w31.y > head.y + head.h - 1 && w0.x == head.x && w31.x == head.x);
  ws_viz_rect r;
  cr_expect(!ws_viz_layout_rect(l, WS_VIZ_PART_WARP_SLOT, 7, 0, &r), "only the banks in the smem view");
  ws_viz_layout_destroy(l);
}

Test(layout, views_parse_and_refuse_sms_out_of_range) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_view v;
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "gpu", &v), WS_OK);
  cr_expect_eq(v.zoom, WS_VIZ_ZOOM_GPU);
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "sm:1", &v), WS_OK);
  cr_expect(v.zoom == WS_VIZ_ZOOM_SM && v.sm == 1);
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "sm:2", &v), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "view 'sm:2': classroom has 2 SMs (0..1)");
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "sm:x", &v), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "view 'sm:x': 'x' is not an SM number");
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "sm:-1", &v), WS_ERR_INVALID);
  cr_expect_eq(ws_viz_view_parse(ctx, &c, "l2", &v), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "view 'l2': expected gpu, sm:N or smem:N");
  ws_viz_layout *l = NULL;
  cr_expect_eq(ws_viz_layout_create(ctx, &c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_SM, 5}, &l),
               WS_ERR_INVALID);
  cr_expect_null(l);
  cr_expect_str_eq(ws_errmsg(ctx), "view: SM 5 out of range: classroom has 2 SMs (0..1)");
}

Test(layout, canvas_bounds) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = NULL;
  cr_expect_eq(ws_viz_layout_create(ctx, &c, 100, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0}, &l),
               WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "canvas 100x800: must be from 320x200 to 8192x8192 pixels");
  /* the smallest canvas still holds the classroom GPU */
  l = make(&c, WS_VIZ_CANVAS_MIN_W, WS_VIZ_CANVAS_MIN_H, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
  check_layout(l, WS_VIZ_CANVAS_MIN_W, WS_VIZ_CANVAS_MIN_H);
  ws_viz_layout_destroy(l);
}

/* The golden image's canvas: every preset fits 640x400 too. */
Test(layout, every_preset_fits_640x400) {
  for (const char *const *name = ws_config_preset_names(); *name; name++) {
    ws_gpu_cfg cfg = preset(*name);
    ws_viz_layout *l = make(&cfg, 640, 400, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
    check_layout(l, 640, 400);
    ws_viz_layout_destroy(l);
  }
}

Test(layout, hits_and_tooltips) {
  ws_gpu_cfg c = preset("a100");
  ws_viz_layout *l = make(&c, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0});
  char buf[128];
  ws_viz_hit hit;
  ws_viz_rect r = get(l, WS_VIZ_PART_WARP_SLOT, 3, 17);
  cr_assert(ws_viz_layout_hit(l, r.x, r.y, &hit));
  ws_viz_hit_describe(l, &hit, buf, sizeof buf);
  cr_expect_str_eq(buf, "SM 3 warp slot 17 (sub-partition 1)");
  r = get(l, WS_VIZ_PART_HBM_BANK, 0, 5 * c.hbm.banks_per_channel + 9);
  cr_assert(ws_viz_layout_hit(l, r.x + r.w - 1, r.y + r.h - 1, &hit));
  ws_viz_hit_describe(l, &hit, buf, sizeof buf);
  cr_expect_str_eq(buf, "HBM channel 5 bank 9");
  r = get(l, WS_VIZ_PART_L2_SLICE, 0, 41);
  cr_assert(ws_viz_layout_hit(l, r.x, r.y, &hit));
  ws_viz_hit_describe(l, &hit, buf, sizeof buf);
  cr_expect_str_eq(buf, "L2 slice 41 (partition 1)");
  /* just past a cell's right edge is no longer that cell (half-open) */
  r = get(l, WS_VIZ_PART_SM, 0, 0);
  cr_assert(ws_viz_layout_hit(l, r.x + r.w - 1, r.y, &hit));
  cr_expect(hit.part == WS_VIZ_PART_SM && hit.sm == 0);
  cr_expect(!ws_viz_layout_hit(l, r.x + r.w, r.y, &hit) || hit.part != WS_VIZ_PART_SM || hit.sm != 0);
  ws_viz_layout_destroy(l);
}
