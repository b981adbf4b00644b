/* test_render.c - the software renderer (viz/render.h) and the PNG writer
 * (viz/shot.h): pixels probed at the places the layout reports, a golden
 * image, determinism, and the atomic write.
 *
 * Design: frames are built by hand (the struct is plain data), so each test
 * states the one thing it lights and reads back the palette colour at that
 * cell's centre through SDL's own format conversion. The golden image is
 * compared pixel for pixel with no tolerance; WS_UPDATE_GOLDEN=1 rewrites it
 * (tests/viz/data/golden_classroom.png) after a deliberate change. */
#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "viz/layout.h"
#include "viz/palette.h"
#include "viz/render.h"
#include "viz/shot.h"

#define GOLDEN WS_SOURCE_DIR "/tests/viz/data/golden_classroom.png"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_render.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
  ws_ctx_destroy(ctx);
}

TestSuite(render, .init = setup, .fini = teardown);

/* The simulator's stall reasons as a trace names them (ws_wst_names). */
static const char *const stall_names[] = {"selected", "not_selected",  "long_scoreboard", "short_scoreboard",
                                          "wait",     "bank_conflict", "math_pipe",       "lsu_throttle",
                                          "dispatch", "barrier",       "depbar",          "no_instruction"};
static const ws_viz_render_opts opts = {NULL, stall_names, 12};

/* ---- frames by hand ---------------------------------------------------------------------------- */

/* An idle frame with every array allocated: no warps, rows closed. */
static ws_viz_frame frame_new(const ws_gpu_cfg *c, size_t npackets) {
  ws_viz_frame f;
  cr_assert(ws_viz_frame_alloc(&f, c, c->sm.max_ctas_per_sm, npackets));
  uint32_t n = c->gpu.num_sms, nb = c->hbm.channels * c->hbm.banks_per_channel;
  f.window_cycles = 1000;
  f.l1_hit_pct = -1;
  f.l2_hit_pct = -1;
  for (uint32_t i = 0; i < n; i++) f.l1_set_touched[i] = UINT32_MAX;
  for (uint32_t i = 0; i < nb; i++) f.bank_row[i] = UINT32_MAX;
  return f;
}

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* A busy frame: every slot holding a warp in some state, CTAs, shared
 * accesses, conflicts, tensor work, cache traffic, open rows and
 * `npackets` packets on every link, some tagged. The same seed gives the
 * same frame. */
static ws_viz_frame frame_busy(const ws_gpu_cfg *c, uint32_t seed, size_t npackets) {
  ws_viz_frame f = frame_new(c, npackets);
  uint32_t s = seed, n = c->gpu.num_sms, sp = c->sm.subpartitions;
  size_t nb = (size_t)c->hbm.channels * c->hbm.banks_per_channel;
  for (size_t i = 0; i < (size_t)n * f.warp_slots; i++) {
    uint32_t k = lcg(&s) % 15;
    f.warp[i] = k == 0    ? WS_VIZ_WARP_ISSUING
                : k == 13 ? WS_VIZ_WARP_DONE
                          : (uint8_t)(WS_VIZ_WARP_STALL0 + k - 1);
  }
  f.ctas_per_sm = c->sm.max_ctas_per_sm * 3 / 4;
  for (size_t i = 0; i < (size_t)n * f.ctas_per_sm; i++) f.cta_busy[i] = lcg(&s) % 4 != 0;
  for (uint32_t i = 0; i < n; i++) {
    f.smem_banks[i] = lcg(&s) | lcg(&s) << 16;
    f.smem_wavefronts[i] = 1 + lcg(&s) % 4;
    f.l1_lookups[i] = 10 + lcg(&s) % 50;
    f.l1_hits[i] = lcg(&s) % f.l1_lookups[i];
    f.l1_set_touched[i] = lcg(&s) % c->geom.l1_sets;
  }
  for (size_t i = 0; i < (size_t)n * sp; i++) {
    f.rf_conflict[i] = lcg(&s) % 3;
    f.tensor_busy[i] = lcg(&s) % 2;
  }
  for (uint32_t i = 0; i < c->l2.slices; i++) {
    f.l2_lookups[i] = 1 + lcg(&s) % 100;
    f.l2_hits[i] = lcg(&s) % f.l2_lookups[i];
  }
  for (size_t i = 0; i < nb; i++) {
    f.bank_row[i] = lcg(&s) % 3 ? lcg(&s) % 1000 : UINT32_MAX;
    f.bank_busy[i] = lcg(&s) % 5 == 0;
  }
  for (size_t i = 0; i < npackets; i++) {
    ws_viz_packet *p = &f.packets[i];
    uint32_t k = lcg(&s) % 10;
    p->link = k < 4         ? WS_VIZ_LINK_XBAR_REQ
              : k < 8       ? WS_VIZ_LINK_XBAR_RESP
              : k < 9       ? WS_VIZ_LINK_DRAM
              : lcg(&s) % 2 ? WS_VIZ_LINK_PCIE_H2D
                            : WS_VIZ_LINK_PCIE_D2H;
    p->sm = (uint16_t)(lcg(&s) % n);
    p->slice = (uint16_t)(lcg(&s) % c->l2.slices);
    p->channel = WS_PROBE_NONE;
    if (p->link == WS_VIZ_LINK_DRAM) { /* from a channel to the slice its line maps to */
      p->channel = (uint16_t)(lcg(&s) % c->hbm.channels);
      p->sm = WS_PROBE_NONE;
    }
    p->bytes = 32u << (lcg(&s) % 3);
    p->tagged = lcg(&s) % 25 == 0;
    p->progress = (float)(lcg(&s) % 1000) / 1000.0f;
    p->tensor = (uint8_t)(lcg(&s) % WS_VIZ_TENSOR_COUNT); /* every class, and unnamed */
  }
  f.npackets = npackets;
  f.launch = 3;
  f.cycle = 48213;
  f.active_warps = n * f.warp_slots * 13 / 15;
  f.l1_hit_pct = 63.4;
  f.l2_hit_pct = 81.25;
  f.dram_gbps = 812;
  f.dram_peak_gbps = 1555;
  f.xbar_gbps = 2301;
  f.xbar_peak_gbps = 4500;
  return f;
}

/* ---- helpers -------------------------------------------------------------------------------------- */

static ws_gpu_cfg preset(const char *name) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, name, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  return cfg;
}

static ws_viz_layout *layout(const ws_gpu_cfg *c, int32_t w, int32_t h, const char *view) {
  ws_viz_view v;
  cr_assert_eq(ws_viz_view_parse(ctx, c, view, &v), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_layout *l = NULL;
  cr_assert_eq(ws_viz_layout_create(ctx, c, w, h, v, &l), WS_OK, "%s", ws_errmsg(ctx));
  return l;
}

static ws_viz_render *renderer(const ws_viz_layout *l) {
  ws_viz_render *r = NULL;
  cr_assert_eq(ws_viz_render_create(ctx, l, &opts, &r), WS_OK, "%s", ws_errmsg(ctx));
  return r;
}

static void draw(ws_viz_render *r, const ws_viz_frame *f) {
  cr_assert_eq(ws_viz_render_draw(r, f, "probe"), WS_OK, "%s", ws_errmsg(ctx));
}

static ws_viz_rgb pixel(SDL_Surface *s, int32_t x, int32_t y) {
  cr_assert(x >= 0 && y >= 0 && x < s->w && y < s->h);
  const uint8_t *row = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch;
  uint32_t v;
  memcpy(&v, row + (size_t)x * s->format->BytesPerPixel, sizeof v);
  ws_viz_rgb c;
  SDL_GetRGB(v, s->format, &c.r, &c.g, &c.b);
  return c;
}

static ws_viz_rect rect_of(const ws_viz_layout *l, ws_viz_part part, uint32_t sm, uint32_t i) {
  ws_viz_rect r;
  cr_assert(ws_viz_layout_rect(l, part, sm, i, &r), "%s %u of SM %u is shown", ws_viz_part_name(part), i, sm);
  return r;
}

/* The colour at the centre of a part equals `want`. */
static void expect_centre(ws_viz_render *r, ws_viz_part part, uint32_t sm, uint32_t i, ws_viz_rgb want,
                          const char *what) {
  ws_viz_rect rc = rect_of(ws_viz_render_layout(r), part, sm, i);
  ws_viz_rgb got = pixel(ws_viz_render_surface(r), rc.x + rc.w / 2, rc.y + rc.h / 2);
  cr_expect(got.r == want.r && got.g == want.g && got.b == want.b,
            "%s: %s %u of SM %u at (%d,%d) is #%02x%02x%02x, want #%02x%02x%02x", what,
            ws_viz_part_name(part), i, sm, rc.x + rc.w / 2, rc.y + rc.h / 2, got.r, got.g, got.b, want.r,
            want.g, want.b);
}

static ws_viz_rgb col(ws_viz_colour c) { return ws_viz_palette(c); }

/* ---- pixel probes ---------------------------------------------------------------------------------- */

Test(render, warp_slots_and_dram_banks_by_state) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 0);
  f.warp[1 * f.warp_slots + 5] = WS_VIZ_WARP_ISSUING;
  f.warp[0 * f.warp_slots + 3] = WS_VIZ_WARP_STALL0 + 2; /* long scoreboard */
  f.warp[0 * f.warp_slots + 9] = WS_VIZ_WARP_DONE;
  f.bank_row[0 * c.hbm.banks_per_channel + 2] = 17;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 1, 5, col(WS_VIZ_COL_WARP_ISSUING), "issuing");
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 0, 3, ws_viz_palette_stall(2), "stalled on reason 2");
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 0, 9, col(WS_VIZ_COL_WARP_DONE), "done");
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 0, 5, col(WS_VIZ_COL_WARP_EMPTY), "empty");
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 1, 3, col(WS_VIZ_COL_WARP_EMPTY), "empty");
  expect_centre(r, WS_VIZ_PART_HBM_BANK, 0, 2, col(WS_VIZ_COL_BANK_OPEN), "row open");
  expect_centre(r, WS_VIZ_PART_HBM_BANK, 0, 3, col(WS_VIZ_COL_BANK_CLOSED), "closed");
  ws_viz_rgb a = ws_viz_palette_stall(2), b = col(WS_VIZ_COL_WARP_ISSUING);
  cr_expect(a.r != b.r || a.g != b.g || a.b != b.b, "a stall is not drawn as issuing");
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

Test(render, bank_lit_while_its_row_is_open) {
  ws_gpu_cfg c = preset("a100");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 0);
  uint32_t bank = 39 * 16 + 15; /* the last channel's last bank */
  f.bank_row[bank] = 4095;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_HBM_BANK, 0, bank, col(WS_VIZ_COL_BANK_OPEN), "open");
  f.bank_busy[bank] = 1;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_HBM_BANK, 0, bank, col(WS_VIZ_COL_BANK_BUSY), "busy");
  f.bank_busy[bank] = 0;
  f.bank_row[bank] = UINT32_MAX;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_HBM_BANK, 0, bank, col(WS_VIZ_COL_BANK_CLOSED), "closed again");
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* The smallest cells: the h100's 132 SMs. */
Test(render, h100_cells) {
  ws_gpu_cfg c = preset("h100");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 0);
  f.warp[131 * 64 + 63] = WS_VIZ_WARP_ISSUING;
  f.warp[77 * 64 + 40] = WS_VIZ_WARP_STALL0 + 9;
  f.cta_busy[5 * f.ctas_per_sm + 31] = 1;
  f.tensor_busy[100 * 4 + 2] = 1;
  f.rf_conflict[64 * 4 + 1] = 2;
  f.smem_banks[12] = 1u << 31;
  f.smem_wavefronts[12] = 1;
  f.smem_banks[13] = 1u << 0;
  f.smem_wavefronts[13] = 4;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 131, 63, col(WS_VIZ_COL_WARP_ISSUING), "issuing");
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 77, 40, ws_viz_palette_stall(9), "at a barrier");
  expect_centre(r, WS_VIZ_PART_CTA_SLOT, 5, 31, col(WS_VIZ_COL_CTA_BUSY), "CTA");
  expect_centre(r, WS_VIZ_PART_CTA_SLOT, 5, 30, col(WS_VIZ_COL_CTA_IDLE), "free CTA slot");
  expect_centre(r, WS_VIZ_PART_TENSOR, 100, 2, col(WS_VIZ_COL_TENSOR_BUSY), "HMMA");
  expect_centre(r, WS_VIZ_PART_TENSOR, 100, 1, col(WS_VIZ_COL_TENSOR_IDLE), "idle tensor core");
  expect_centre(r, WS_VIZ_PART_RF_BANK, 64, 1 * 2 + 0, col(WS_VIZ_COL_RF_CONFLICT), "RF conflict");
  expect_centre(r, WS_VIZ_PART_RF_BANK, 64, 1 * 2 + 1, col(WS_VIZ_COL_RF_CONFLICT), "RF conflict");
  expect_centre(r, WS_VIZ_PART_RF_BANK, 64, 0, col(WS_VIZ_COL_RF_IDLE), "RF idle");
  expect_centre(r, WS_VIZ_PART_SMEM_BANK, 12, 31, col(WS_VIZ_COL_SMEM_TOUCHED), "one wavefront");
  expect_centre(r, WS_VIZ_PART_SMEM_BANK, 13, 0, col(WS_VIZ_COL_SMEM_CONFLICT), "four wavefronts");
  expect_centre(r, WS_VIZ_PART_SMEM_BANK, 12, 0, col(WS_VIZ_COL_SMEM_IDLE), "untouched bank");
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* Caches shaded by the window's hit fraction; the last L1 set in white. */
Test(render, caches_by_hits) {
  ws_gpu_cfg c = preset("a100");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 0);
  f.l1_lookups[7] = 40;
  f.l1_hits[7] = 10;
  f.l1_set_touched[7] = 2;
  f.l2_lookups[41] = 8;
  f.l2_hits[41] = 8;
  f.l2_lookups[42] = 8;
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_L1_SET, 7, 0, ws_viz_palette_cache(40, 10), "L1, a quarter hits");
  expect_centre(r, WS_VIZ_PART_L1_SET, 7, 2, col(WS_VIZ_COL_L1_SET_LAST), "the last set");
  expect_centre(r, WS_VIZ_PART_L1_SET, 6, 0, col(WS_VIZ_COL_CACHE_IDLE), "no lookups");
  expect_centre(r, WS_VIZ_PART_L2_SLICE, 0, 41, col(WS_VIZ_COL_CACHE_HIT), "L2, all hits");
  expect_centre(r, WS_VIZ_PART_L2_SLICE, 0, 42, col(WS_VIZ_COL_CACHE_MISS), "L2, all misses");
  expect_centre(r, WS_VIZ_PART_L2_SLICE, 0, 43, col(WS_VIZ_COL_CACHE_IDLE), "L2, no lookups");
  ws_viz_rgb quarter = ws_viz_palette_cache(40, 10);
  cr_expect_eq(quarter.r, 0xe5 + (0x66 - 0xe5) * 10 / 40);
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* A PCIe packet at progress 0 sits at its lane's start, at 1 at its end;
 * a tagged one glows around itself. */
Test(render, packets_along_their_link) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 3);
  f.npackets = 3;
  f.packets[0] =
      (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_H2D, .sm = WS_PROBE_NONE, .bytes = 128, .progress = 0};
  f.packets[1] =
      (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_D2H, .sm = WS_PROBE_NONE, .bytes = 128, .progress = 1};
  f.packets[2] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_H2D, .tagged = 1, .bytes = 32, .progress = 1};
  draw(r, &f);
  SDL_Surface *s = ws_viz_render_surface(r);
  ws_viz_rect h2d = rect_of(l, WS_VIZ_PART_PCIE, 0, 0), d2h = rect_of(l, WS_VIZ_PART_PCIE, 0, 1);
  ws_viz_rgb p = pixel(s, h2d.x, h2d.y + h2d.h / 2), q = pixel(s, d2h.x, d2h.y + d2h.h / 2);
  ws_viz_rgb want = col(WS_VIZ_COL_PKT_PCIE), link = col(WS_VIZ_COL_LINK);
  cr_expect(p.r == want.r && p.g == want.g && p.b == want.b, "H2D packet at the host end");
  cr_expect(q.r == want.r && q.g == want.g && q.b == want.b, "D2H packet at the host end when done");
  ws_viz_rgb t = pixel(s, h2d.x + h2d.w - 1, h2d.y + h2d.h / 2);
  want = col(WS_VIZ_COL_PKT_TAGGED);
  cr_expect(t.r == want.r && t.g == want.g && t.b == want.b, "tagged packet at the device end");
  ws_viz_rgb g = pixel(s, h2d.x + h2d.w - 8, h2d.y + h2d.h / 2);
  cr_expect(g.r != link.r || g.g != link.g || g.b != link.b, "the glow lights the lane around it");
  ws_viz_rgb far = pixel(s, h2d.x + h2d.w / 2, h2d.y + h2d.h / 2);
  cr_expect(far.r == link.r && far.g == link.g && far.b == link.b, "the lane between them is dark");
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* What a tooltip points at: the packet drawn under the mouse, the last
 * drawn on top, none between them or in a zoomed view. */
Test(render, packet_under_the_mouse) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 3);
  f.npackets = 3;
  f.packets[0] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_H2D, .bytes = 128, .progress = 0};
  f.packets[1] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_D2H, .bytes = 128, .progress = 1};
  f.packets[2] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_H2D, .bytes = 128, .progress = 0};
  draw(r, &f);
  ws_viz_rect h2d = rect_of(l, WS_VIZ_PART_PCIE, 0, 0), d2h = rect_of(l, WS_VIZ_PART_PCIE, 0, 1);
  size_t i = 99;
  cr_expect(ws_viz_render_packet_at(r, &f, h2d.x + 1, h2d.y + h2d.h / 2, &i) && i == 2,
            "the last drawn wins");
  cr_expect(ws_viz_render_packet_at(r, &f, d2h.x + 1, d2h.y + d2h.h / 2, &i) && i == 1);
  cr_expect(!ws_viz_render_packet_at(r, &f, h2d.x + h2d.w / 2, h2d.y + h2d.h / 2, &i), "nothing mid-lane");
  ws_viz_layout *zl = layout(&c, 1280, 800, "sm:0");
  ws_viz_render *zr = renderer(zl);
  cr_expect(!ws_viz_render_packet_at(zr, &f, h2d.x + 1, h2d.y + h2d.h / 2, &i),
            "an SM view draws no packets");
  ws_viz_render_destroy(zr);
  ws_viz_layout_destroy(zl);
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* A packet of each tensor class in its class's colour, at the start of a
 * path the layout reports; class other keeps its link's colour, and the
 * followed pixel's colour wins over its class. */
Test(render, packets_coloured_by_tensor) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 6);
  f.npackets = 6;
  f.packets[0] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_H2D, .tensor = WS_VIZ_TENSOR_IMAGE, .bytes = 128};
  f.packets[1] = (ws_viz_packet){
      .link = WS_VIZ_LINK_DRAM, .tensor = WS_VIZ_TENSOR_WEIGHTS, .channel = 0, .slice = 1, .bytes = 64};
  f.packets[2] = (ws_viz_packet){
      .link = WS_VIZ_LINK_XBAR_RESP, .tensor = WS_VIZ_TENSOR_ACTIVATIONS, .sm = 1, .slice = 0, .bytes = 32};
  f.packets[3] = (ws_viz_packet){.link = WS_VIZ_LINK_PCIE_D2H, .tensor = WS_VIZ_TENSOR_SCORES, .bytes = 128};
  f.packets[4] = (ws_viz_packet){
      .link = WS_VIZ_LINK_DRAM, .tensor = WS_VIZ_TENSOR_OTHER, .channel = 1, .slice = 0, .bytes = 64};
  f.packets[5] = (ws_viz_packet){.link = WS_VIZ_LINK_XBAR_RESP,
                                 .tensor = WS_VIZ_TENSOR_SCORES,
                                 .tagged = 1,
                                 .sm = 0,
                                 .slice = 1,
                                 .bytes = 32};
  draw(r, &f);
  SDL_Surface *s = ws_viz_render_surface(r);
  ws_viz_rect h2d = rect_of(l, WS_VIZ_PART_PCIE, 0, 0), d2h = rect_of(l, WS_VIZ_PART_PCIE, 0, 1);
  ws_viz_rect dram = rect_of(l, WS_VIZ_PART_DRAM_LINK, 0, 0), xbar = rect_of(l, WS_VIZ_PART_XBAR, 0, 0);
  ws_viz_rect ch0 = rect_of(l, WS_VIZ_PART_HBM_CHANNEL, 0, 0),
              ch1 = rect_of(l, WS_VIZ_PART_HBM_CHANNEL, 0, 1);
  ws_viz_rect sl0 = rect_of(l, WS_VIZ_PART_L2_SLICE, 0, 0), sl1 = rect_of(l, WS_VIZ_PART_L2_SLICE, 0, 1);
  const struct {
    int32_t x, y;
    ws_viz_colour want;
    const char *what;
  } probes[] = {
      {h2d.x, h2d.y + h2d.h / 2, WS_VIZ_COL_PKT_IMAGE, "image on PCIe H2D, at the host end"},
      {ch0.x + ch0.w / 2, dram.y, WS_VIZ_COL_PKT_WEIGHTS, "weights on the DRAM band, at channel 0"},
      {sl0.x + sl0.w / 2, xbar.y, WS_VIZ_COL_PKT_ACTS, "activations on the crossbar, at slice 0"},
      {d2h.x + d2h.w - 1, d2h.y + d2h.h / 2, WS_VIZ_COL_PKT_SCORES, "scores on PCIe D2H, at the device end"},
      {ch1.x + ch1.w / 2, dram.y, WS_VIZ_COL_PKT_DRAM, "class other keeps the DRAM colour"},
      {sl1.x + sl1.w / 2, xbar.y, WS_VIZ_COL_PKT_TAGGED, "the followed pixel's colour wins"},
  };
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    ws_viz_rgb p = pixel(s, probes[i].x, probes[i].y), want = col(probes[i].want);
    cr_expect(p.r == want.r && p.g == want.g && p.b == want.b, "%s: #%02x%02x%02x, #%02x%02x%02x expected",
              probes[i].what, p.r, p.g, p.b, want.r, want.g, want.b);
  }
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

/* The four tensor colours are told apart from each other, from the link
 * colours unnamed data keeps, and from every warp state's. */
/* Squared distance of two colours in RGB. */
static int rgb_dist2(ws_viz_rgb a, ws_viz_rgb b) {
  int dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
  return dr * dr + dg * dg + db * db;
}

Test(render, tensor_colours_are_distinct) {
  const ws_viz_colour tensors[] = {WS_VIZ_COL_PKT_IMAGE, WS_VIZ_COL_PKT_WEIGHTS, WS_VIZ_COL_PKT_ACTS,
                                   WS_VIZ_COL_PKT_SCORES};
  const ws_viz_colour fixed[] = {WS_VIZ_COL_PKT_REQ,  WS_VIZ_COL_PKT_RESP,   WS_VIZ_COL_PKT_DRAM,
                                 WS_VIZ_COL_PKT_PCIE, WS_VIZ_COL_PKT_TAGGED, WS_VIZ_COL_GLOW,
                                 WS_VIZ_COL_LINK,     WS_VIZ_COL_WARP_EMPTY, WS_VIZ_COL_WARP_ISSUING,
                                 WS_VIZ_COL_WARP_DONE};
  for (size_t i = 0; i < 4; i++) {
    ws_viz_rgb a = col(tensors[i]);
    for (size_t j = i + 1; j < 4; j++)
      cr_expect_gt(rgb_dist2(a, col(tensors[j])), 48 * 48, "tensor colours %zu and %zu", i, j);
    for (size_t j = 0; j < sizeof fixed / sizeof fixed[0]; j++)
      cr_expect_gt(rgb_dist2(a, col(fixed[j])), 48 * 48, "tensor colour %zu and colour %d", i, (int)fixed[j]);
    for (uint32_t j = 0; j < WS_VIZ_STALL_COLOURS; j++)
      cr_expect_gt(rgb_dist2(a, ws_viz_palette_stall(j)), 48 * 48, "tensor colour %zu and stall %u", i, j);
  }
}

Test(render, zoomed_views) {
  ws_gpu_cfg c = preset("a100");
  ws_viz_frame f = frame_new(&c, 0);
  f.warp[12 * 64 + 17] = WS_VIZ_WARP_STALL0 + 4;
  f.smem_banks[12] = 1u << 3;
  f.smem_wavefronts[12] = 2;
  ws_viz_layout *l = layout(&c, 1280, 800, "sm:12");
  ws_viz_render *r = renderer(l);
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_WARP_SLOT, 12, 17, ws_viz_palette_stall(4), "SM view");
  expect_centre(r, WS_VIZ_PART_SMEM_BANK, 12, 3, col(WS_VIZ_COL_SMEM_CONFLICT), "SM view");
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
  l = layout(&c, 1280, 800, "smem:12");
  r = renderer(l);
  draw(r, &f);
  expect_centre(r, WS_VIZ_PART_SMEM_WAVE, 12, 0 * 32 + 3, col(WS_VIZ_COL_SMEM_TOUCHED), "first wavefront");
  expect_centre(r, WS_VIZ_PART_SMEM_WAVE, 12, 1 * 32 + 3, col(WS_VIZ_COL_SMEM_CONFLICT), "second wavefront");
  expect_centre(r, WS_VIZ_PART_SMEM_WAVE, 12, 2 * 32 + 3, col(WS_VIZ_COL_BANK_CLOSED), "no third");
  expect_centre(r, WS_VIZ_PART_SMEM_WAVE, 12, 0 * 32 + 4, col(WS_VIZ_COL_BANK_CLOSED), "bank 4 untouched");
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
  ws_viz_frame_free(&f);
}

Test(render, frames_that_do_not_fit_are_refused) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 640, 400, "gpu");
  ws_viz_render *r = renderer(l);
  ws_viz_frame f = frame_new(&c, 1);
  f.num_sms = 3;
  cr_expect_eq(ws_viz_render_draw(r, &f, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "frame: 3 SMs x 64 warp slots, but classroom has 2 x 64");
  f.num_sms = 2;
  f.npackets = 1;
  f.packets[0] = (ws_viz_packet){.link = WS_VIZ_LINK_XBAR_REQ, .sm = 1, .slice = 9};
  cr_expect_eq(ws_viz_render_draw(r, &f, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "frame: packet 0: SM 1 -> slice 9 out of range (2 SMs, 2 slices)");
  f.packets[0].slice = 1;
  cr_expect_eq(ws_viz_render_draw(r, &f, NULL), WS_OK, "%s", ws_errmsg(ctx));
  /* arrays left NULL draw as idle */
  ws_viz_frame bare = {.num_sms = 2};
  cr_expect_eq(ws_viz_render_draw(r, &bare, NULL), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_frame_free(&f);
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

Test(render, missing_font_is_refused) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 640, 400, "gpu");
  ws_viz_render *r = NULL;
  ws_viz_render_opts o = {"/nonexistent/font.ttf", NULL, 0};
  cr_expect_eq(ws_viz_render_create(ctx, l, &o, &r), WS_ERR_IO);
  cr_expect_null(r);
  cr_expect(strncmp(ws_errmsg(ctx), "cannot open font '/nonexistent/font.ttf': ", 42) == 0, "%s",
            ws_errmsg(ctx));
  ws_viz_layout_destroy(l);
}

/* ---- determinism and the golden image ---------------------------------------------------------------- */

static void *png_of(const ws_viz_layout *l, const ws_viz_frame *f, size_t *n) {
  ws_viz_render *r = renderer(l);
  draw(r, f);
  void *png = NULL;
  cr_assert_eq(ws_viz_shot_encode(ctx, ws_viz_render_surface(r), &png, n), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_render_destroy(r);
  return png;
}

Test(render, same_frame_same_bytes) {
  ws_gpu_cfg c = preset("h100");
  ws_viz_layout *l = layout(&c, 1280, 800, "gpu");
  ws_viz_frame f = frame_busy(&c, 11, 500);
  size_t n1, n2;
  void *a = png_of(l, &f, &n1), *b = png_of(l, &f, &n2);
  cr_expect_eq(n1, n2);
  cr_expect(n1 == n2 && memcmp(a, b, n1) == 0, "two renders of one frame give the same PNG bytes");
  /* and one renderer drawing another frame in between comes back to the same pixels */
  ws_viz_render *r = renderer(l);
  draw(r, &f);
  SDL_Surface *s = ws_viz_render_surface(r);
  size_t bytes = (size_t)s->pitch * (size_t)s->h;
  void *first = malloc(bytes);
  cr_assert_not_null(first);
  memcpy(first, s->pixels, bytes);
  ws_viz_frame g = frame_busy(&c, 12, 100);
  draw(r, &g);
  cr_expect(memcmp(first, s->pixels, bytes) != 0, "another frame, another picture");
  draw(r, &f);
  cr_expect(memcmp(first, s->pixels, bytes) == 0, "nothing of the other frame stays");
  free(first);
  ws_viz_render_destroy(r);
  ws_viz_frame_free(&g);
  ws_viz_frame_free(&f);
  free(a);
  free(b);
  ws_viz_layout_destroy(l);
}

/* Where the two pictures differ: the count and the first pixel. */
static size_t compare(SDL_Surface *got, SDL_Surface *want, int32_t *fx, int32_t *fy) {
  size_t diff = 0;
  *fx = *fy = -1;
  for (int32_t y = 0; y < got->h; y++)
    for (int32_t x = 0; x < got->w; x++) {
      ws_viz_rgb a = pixel(got, x, y), b = pixel(want, x, y);
      if (a.r == b.r && a.g == b.g && a.b == b.b) continue;
      if (diff++ == 0) *fx = x, *fy = y;
    }
  return diff;
}

Test(render, golden_classroom) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 640, 400, "gpu");
  ws_viz_frame f = frame_busy(&c, 2024, 60);
  const char *update = getenv("WS_UPDATE_GOLDEN");
  if (update && strcmp(update, "1") == 0) {
    cr_assert_eq(ws_viz_shot_png(ctx, GOLDEN, l, &f, &opts, "sgemm_tiled"), WS_OK, "%s", ws_errmsg(ctx));
    cr_log_warn("rewrote %s", GOLDEN);
  }
  ws_viz_render *r = renderer(l);
  cr_assert_eq(ws_viz_render_draw(r, &f, "sgemm_tiled"), WS_OK, "%s", ws_errmsg(ctx));
  SDL_Surface *want = IMG_Load(GOLDEN);
  cr_assert_not_null(want, "%s: %s (WS_UPDATE_GOLDEN=1 writes it)", GOLDEN, IMG_GetError());
  SDL_Surface *w = SDL_ConvertSurfaceFormat(want, SDL_PIXELFORMAT_RGB888, 0);
  cr_assert_not_null(w);
  SDL_Surface *got = ws_viz_render_surface(r);
  cr_assert(w->w == got->w && w->h == got->h, "golden %dx%d, rendered %dx%d", w->w, w->h, got->w, got->h);
  int32_t x, y;
  size_t diff = compare(got, w, &x, &y);
  cr_expect_eq(diff, 0, "%zu pixels differ from %s, the first at (%d,%d)", diff, GOLDEN, x, y);
  SDL_FreeSurface(w);
  SDL_FreeSurface(want);
  ws_viz_render_destroy(r);
  ws_viz_frame_free(&f);
  ws_viz_layout_destroy(l);
}

/* ---- the PNG file ------------------------------------------------------------------------------------ */

Test(render, png_through_a_symlink_and_refused_on_a_directory) {
  ws_gpu_cfg c = preset("classroom");
  ws_viz_layout *l = layout(&c, 640, 400, "gpu");
  ws_viz_frame f = frame_busy(&c, 5, 20);
  char target[128], link[128], sub[128];
  snprintf(target, sizeof target, "%s/frame.png", dir);
  snprintf(link, sizeof link, "%s/latest.png", dir);
  snprintf(sub, sizeof sub, "%s/adir", dir);
  cr_assert_eq(ws_file_write_atomic(ctx, target, "old", 3), WS_OK);
  cr_assert_eq(symlink("frame.png", link), 0);
  cr_assert_eq(ws_viz_shot_png(ctx, link, l, &f, &opts, "probe"), WS_OK, "%s", ws_errmsg(ctx));
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_expect(S_ISLNK(st.st_mode), "the link stays a link");
  SDL_Surface *back = IMG_Load(target);
  cr_assert_not_null(back, "the link's target now holds the PNG: %s", IMG_GetError());
  cr_expect(back->w == 640 && back->h == 400);
  SDL_FreeSurface(back);
  size_t n;
  void *png = png_of(l, &f, &n);
  char *file = NULL;
  size_t fn = 0;
  cr_assert_eq(ws_file_read(ctx, target, 1 << 24, "PNG", &file, &fn), WS_OK);
  cr_expect(fn == n && memcmp(file, png, n) == 0, "the file holds exactly the encoded bytes");
  free(file);
  free(png);
  cr_assert_eq(mkdir(sub, 0755), 0);
  cr_expect_eq(ws_viz_shot_png(ctx, sub, l, &f, &opts, "k"), WS_ERR_IO);
  cr_expect(strstr(ws_errmsg(ctx), "it is a directory") != NULL, "%s", ws_errmsg(ctx));
  /* a frame refused leaves no file */
  char none[128];
  snprintf(none, sizeof none, "%s/none.png", dir);
  f.num_sms = 9;
  cr_expect_eq(ws_viz_shot_png(ctx, none, l, &f, &opts, "k"), WS_ERR_INVALID);
  cr_expect_neq(access(none, F_OK), 0);
  f.num_sms = 2;
  /* nothing but the three names is left in the folder */
  char cmd[256];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 3", dir);
  cr_expect_eq(system(cmd), 0, "no temporary file left behind");
  ws_viz_frame_free(&f);
  ws_viz_layout_destroy(l);
}
