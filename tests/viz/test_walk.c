/* test_walk.c - pixel mode's walk (viz/walk.h) and its ledger and ring on
 * the picture (viz/ledger.h), from a real trace: `warpscope run
 * --follow-pixel 12,7` on the classroom preset, recorded by the binary as a
 * user would, so the journey is the one the trace format really carries.
 * The stops are checked against the hops the reader returns (order, launch,
 * cycle), the views against each hop's level and SM, the outlined part
 * against the hop's component text and the layout, and the ring's pixels
 * against the layout's rectangle. */
#include <SDL2/SDL.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/formats/image.h"
#include "models/vit/vitrun.h"
#include "traces/journey.h"
#include "traces/tee.h"
#include "traces/wst.h"
#include "viz/layout.h"
#include "viz/ledger.h"
#include "viz/model.h"
#include "viz/render.h"
#include "viz/walk.h"

static char path[] = "/tmp/ws_walk_XXXXXX";
static ws_ctx *ctx;
static ws_wst_reader *reader;
static ws_gpu_cfg cfg;
static ws_viz_walk *walk;
static ws_journey_hop *hops;
static size_t nhops;

/* The binary records `args` into `path` (stdout dropped). */
static void record(const char *args) {
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' %s --trace '%s' > /dev/null 2>&1", WS_CLI, args, path);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void open_walk(const char *args) {
  ctx = ws_ctx_create();
  record(args);
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_wst_config(reader, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_walk_create(ctx, reader, &cfg, &walk), WS_OK, "%s", ws_errmsg(ctx));
  size_t bytes = 0;
  const void *text = ws_wst_journey(reader, &bytes);
  if (text && bytes) cr_assert_eq(ws_journey_from_text(ctx, text, bytes, &hops, &nhops, NULL, NULL), WS_OK);
}

static void setup_follow(void) { open_walk("run --gpu classroom --follow-pixel 12,7"); }

static void teardown(void) {
  free(hops);
  hops = NULL;
  nhops = 0;
  ws_viz_walk_destroy(walk);
  ws_wst_close(reader);
  unlink(path);
  ws_ctx_destroy(ctx);
}

static bool sm_level(const ws_journey_hop *h) {
  return h->launch != WS_JOURNEY_HOST_LAUNCH && h->level >= WS_JOURNEY_L1 && h->sm != WS_PROBE_NONE;
}

/* ---- stops ------------------------------------------------------------------------------------- */

Test(walk, one_stop_per_hop_in_the_ledgers_order, .init = setup_follow, .fini = teardown) {
  size_t n = ws_viz_walk_count(walk);
  cr_assert_eq(n, nhops);
  cr_assert_gt(n, 10);
  cr_assert_null(ws_viz_walk_at(walk, n));
  for (size_t i = 0; i < n; i++) {
    const ws_journey_hop *h = ws_viz_walk_hop(walk, i);
    cr_assert_eq(memcmp(h, &hops[i], sizeof *h), 0, "stop %zu is hop %zu", i, i);
    const ws_viz_walk_stop *s = ws_viz_walk_at(walk, i);
    uint64_t end = ws_wst_launch(reader, s->launch)->cycles;
    if (h->launch == WS_JOURNEY_HOST_LAUNCH) {
      cr_expect(s->host);
      cr_expect_str_eq(ws_viz_walk_step_name(walk, i), "host");
    } else {
      cr_expect(!s->host);
      cr_expect_eq(s->launch, h->launch, "stop %zu shows the hop's launch", i);
      cr_expect_eq(s->cycle, h->first < end ? h->first : end, "stop %zu shows the hop's cycle", i);
    }
  }
  /* the image's copy comes before the first kernel, the probability's after the last */
  const ws_viz_walk_stop *first = ws_viz_walk_at(walk, 0), *last = ws_viz_walk_at(walk, n - 1);
  cr_expect(first->host && !first->at_end && first->launch == 0 && first->cycle == 0);
  uint32_t launches = (uint32_t)ws_wst_launch_count(reader);
  cr_expect(last->host && last->at_end && last->launch == launches - 1);
  cr_expect_eq(last->cycle, ws_wst_launch(reader, launches - 1)->cycles);
  cr_expect_str_eq(ws_viz_walk_step_name(walk, 4), "patch", "the timeline's name for the first kernel");
}

Test(walk, the_view_follows_the_hops_level_and_sm, .init = setup_follow, .fini = teardown) {
  size_t zoomed = 0;
  for (size_t i = 0; i < ws_viz_walk_count(walk); i++) {
    const ws_journey_hop *h = ws_viz_walk_hop(walk, i);
    const ws_viz_walk_stop *s = ws_viz_walk_at(walk, i);
    if (sm_level(h)) {
      cr_expect_eq(s->view.zoom, WS_VIZ_ZOOM_SM, "hop %zu (%s) zooms into its SM", i + 1,
                   ws_journey_level_name((ws_journey_level)h->level));
      cr_expect_eq(s->view.sm, h->sm);
      cr_expect_eq(s->sm, h->sm);
      zoomed++;
    } else {
      cr_expect_eq(s->view.zoom, WS_VIZ_ZOOM_GPU, "hop %zu (%s) shows the whole GPU", i + 1,
                   ws_journey_level_name((ws_journey_level)h->level));
    }
  }
  cr_expect_gt(zoomed, 0);
}

/* The part each level outlines, with the index its component text names. */
static void expect_part(size_t i, const ws_journey_hop *h, const ws_viz_walk_stop *s) {
  unsigned a, b;
  switch ((ws_journey_level)h->level) {
  case WS_JOURNEY_HOST: cr_expect_eq(s->part, WS_VIZ_PART_HOST); break;
  case WS_JOURNEY_PCIE:
    cr_expect_eq(s->part, WS_VIZ_PART_PCIE);
    cr_expect_eq(s->index, strncmp(h->component, "D2H", 3) == 0 ? 1u : 0u, "hop %zu: the lane", i + 1);
    break;
  case WS_JOURNEY_DRAM:
    if (sscanf(h->component, "ch %u bank %u", &a, &b) == 2) {
      cr_expect_eq(s->part, WS_VIZ_PART_HBM_BANK, "hop %zu", i + 1);
      cr_expect_eq(s->index, a * cfg.hbm.banks_per_channel + b, "hop %zu: %s", i + 1, h->component);
    } else {
      cr_expect_eq(s->part, WS_VIZ_PART_HBM, "hop %zu: a copy's end, the channels' area", i + 1);
    }
    break;
  case WS_JOURNEY_L2:
    cr_assert_eq(sscanf(h->component, "slice %u", &a), 1);
    cr_expect_eq(s->part, WS_VIZ_PART_L2_SLICE);
    cr_expect_eq(s->index, a, "hop %zu: %s", i + 1, h->component);
    break;
  case WS_JOURNEY_L1:
    cr_assert_eq(sscanf(h->component, "set %u", &a), 1);
    cr_expect_eq(s->part, WS_VIZ_PART_L1_SET);
    cr_expect_eq(s->index, a, "hop %zu: %s", i + 1, h->component);
    break;
  case WS_JOURNEY_SHARED: cr_expect_eq(s->part, WS_VIZ_PART_SMEM); break;
  case WS_JOURNEY_TENSOR: cr_expect_eq(s->part, WS_VIZ_PART_TENSOR); break;
  default:
    cr_expect_eq(s->part, WS_VIZ_PART_WARP_SLOT, "hop %zu: the warp holding the value", i + 1);
    cr_expect_eq(s->index, h->warp);
    break;
  }
}

Test(walk, each_stop_outlines_its_component_where_the_layout_draws_it, .init = setup_follow,
     .fini = teardown) {
  for (size_t i = 0; i < ws_viz_walk_count(walk); i++) {
    const ws_journey_hop *h = ws_viz_walk_hop(walk, i);
    const ws_viz_walk_stop *s = ws_viz_walk_at(walk, i);
    expect_part(i, h, s);
    ws_viz_layout *l = NULL;
    cr_assert_eq(ws_viz_layout_create(ctx, &cfg, 1280, 800, s->view, &l), WS_OK, "%s", ws_errmsg(ctx));
    ws_viz_rect got, want;
    cr_expect(ws_viz_walk_rect(walk, i, l, &got), "hop %zu: its view shows its component", i + 1);
    cr_expect(ws_viz_layout_rect(l, s->part, s->sm, s->index, &want));
    cr_expect(got.x == want.x && got.y == want.y && got.w == want.w && got.h == want.h,
              "hop %zu: the ring goes round the %s itself", i + 1, ws_viz_part_name(s->part));
    ws_viz_layout_destroy(l);
  }
}

Test(walk, a_view_without_the_component_outlines_what_holds_it, .init = setup_follow, .fini = teardown) {
  size_t bank = SIZE_MAX, warp = SIZE_MAX;
  for (size_t i = 0; i < ws_viz_walk_count(walk); i++) {
    const ws_viz_walk_stop *s = ws_viz_walk_at(walk, i);
    if (s->part == WS_VIZ_PART_HBM_BANK && bank == SIZE_MAX) bank = i;
    if (s->part == WS_VIZ_PART_WARP_SLOT && warp == SIZE_MAX) warp = i;
  }
  cr_assert_neq(bank, SIZE_MAX);
  cr_assert_neq(warp, SIZE_MAX);
  /* zoomed into an SM the HBM is not drawn: no ring */
  ws_viz_layout *l = NULL;
  ws_viz_rect got, want;
  cr_assert_eq(ws_viz_layout_create(ctx, &cfg, 1280, 800, (ws_viz_view){WS_VIZ_ZOOM_SM, 0}, &l), WS_OK);
  cr_expect(!ws_viz_walk_rect(walk, bank, l, &got));
  ws_viz_layout_destroy(l);
  /* the whole GPU at 320x200 has no room for warp slots' numbers, but draws them; the ring
   * is the slot's when drawn, else its SM's */
  cr_assert_eq(ws_viz_layout_create(ctx, &cfg, 320, 200, (ws_viz_view){WS_VIZ_ZOOM_GPU, 0}, &l), WS_OK);
  const ws_viz_walk_stop *s = ws_viz_walk_at(walk, warp);
  cr_expect(ws_viz_walk_rect(walk, warp, l, &got));
  bool slot = ws_viz_layout_rect(l, WS_VIZ_PART_WARP_SLOT, s->sm, s->index, &want);
  if (!slot) cr_assert(ws_viz_layout_rect(l, WS_VIZ_PART_SM, s->sm, 0, &want));
  cr_expect(got.x == want.x && got.y == want.y && got.w == want.w && got.h == want.h);
  ws_viz_layout_destroy(l);
}

/* ---- reach -------------------------------------------------------------------------------------- */

static size_t row_of(const char *layer) {
  const ws_journey_reach *r;
  size_t n = ws_viz_walk_reaches(walk, &r);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(r[i].layer, layer)) return i;
  cr_assert_fail("no reach row for %s", layer);
  return 0;
}

Test(walk, a_layers_reach_shows_once_the_walk_has_passed_it, .init = setup_follow, .fini = teardown) {
  const ws_journey_reach *r;
  size_t nr = ws_viz_walk_reaches(walk, &r), n = ws_viz_walk_count(walk);
  cr_assert_gt(nr, 5);
  for (size_t k = 0; k < nr; k++) {
    cr_expect(!ws_viz_walk_reach_known(walk, 0, k), "%s: nothing is known at the first hop", r[k].layer);
    cr_expect(ws_viz_walk_reach_known(walk, n - 1, k), "%s: everything at the last", r[k].layer);
  }
  /* patch: from the last hop in the patch kernel (launch 0) on */
  size_t patch = row_of("patch"), last_patch = 0;
  for (size_t i = 0; i < n; i++)
    if (!ws_viz_walk_at(walk, i)->host && ws_viz_walk_hop(walk, i)->launch == 0) last_patch = i;
  cr_assert_gt(last_patch, 0);
  cr_expect(!ws_viz_walk_reach_known(walk, last_patch - 1, patch));
  cr_expect(ws_viz_walk_reach_known(walk, last_patch, patch));
  cr_expect(ws_viz_walk_reach_known(walk, last_patch + 1, patch));
  cr_expect(!ws_viz_walk_reach_known(walk, last_patch + 1, row_of("patch_embed")));
  /* the probability is the D2H copy's: known only at the copy's last hop */
  cr_expect(!ws_viz_walk_reach_known(walk, n - 2, row_of("probability")));
  cr_expect(!ws_viz_walk_reach_known(walk, n, 0), "out of range: unknown");
}

/* ---- traces without a journey, or a damaged one ----------------------------------------------------- */

Test(walk, a_trace_without_a_journey_has_an_empty_walk) {
  open_walk("example saxpy --gpu classroom");
  cr_expect_eq(ws_viz_walk_count(walk), 0);
  cr_expect_null(ws_viz_walk_at(walk, 0));
  const ws_journey_reach *r;
  cr_expect_eq(ws_viz_walk_reaches(walk, &r), 0);
  teardown();
}

/* A journey naming launch 3 in a trace of none is refused naming the hop. */
Test(walk, a_journey_past_the_traces_launches_is_refused) {
  ctx = ws_ctx_create();
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_wst_writer *w = NULL;
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
  const char text[] = "launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tkernel\tcomponent\n"
                      "3\t3\t0\t65535\t0\t4294967295\t10\t5\tk\tslice 0 set 1 (hit)\n";
  cr_assert_eq(ws_wst_writer_set_journey(w, text, sizeof text - 1), WS_OK);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_viz_walk_create(ctx, reader, &cfg, &walk), WS_ERR_INVALID);
  cr_expect_null(walk);
  cr_expect(strstr(ws_errmsg(ctx), "launch") != NULL, "%s", ws_errmsg(ctx));
  teardown();
}

/* A journey's text as traces before the unit and index columns wrote it:
 * those two columns (the 9th and 10th) dropped from every hop line. */
static char *without_unit_index(const char *text, size_t size) {
  char *out = malloc(size + 1), *o = out;
  cr_assert_not_null(out);
  const char *end = text + size, *reach = strstr(text, "layer\treached\ttotal\n");
  for (const char *p = text; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
    int col = 0;
    for (size_t k = 0; k < len; k++) {
      if (reach && p >= reach) col = 0; /* the reach rows stay whole */
      bool drop = col == 8 || col == 9;
      if (p[k] == '\t' && col < 10) col++;
      if (!drop) *o++ = p[k];
    }
    p += len;
  }
  *o = '\0';
  return out;
}

/* The stops a hop's fields give (what the walk of a new trace shows). */
static void expect_same_part(size_t i, const ws_journey_hop *h, const ws_viz_walk_stop *s) {
  switch ((ws_journey_level)h->level) {
  case WS_JOURNEY_DRAM:
    if (h->index != WS_JOURNEY_NO_INDEX)
      cr_expect(s->part == WS_VIZ_PART_HBM_BANK && s->index == h->unit * cfg.hbm.banks_per_channel + h->index,
                "hop %zu", i + 1);
    break;
  case WS_JOURNEY_L2:
    cr_expect(s->part == WS_VIZ_PART_L2_SLICE && s->index == h->unit, "hop %zu", i + 1);
    break;
  case WS_JOURNEY_L1:
    cr_expect(s->part == WS_VIZ_PART_L1_SET && s->index == h->index, "hop %zu", i + 1);
    break;
  case WS_JOURNEY_PCIE:
    cr_expect(s->part == WS_VIZ_PART_PCIE && s->index == h->unit, "hop %zu", i + 1);
    break;
  default: break;
  }
}

/* A trace written before the unit and index columns: its walk reads the
 * where texts and outlines the same parts. */
Test(walk, a_trace_from_before_the_unit_and_index_columns_walks_the_same) {
  ctx = ws_ctx_create();
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_device *dev = NULL;
  ws_runtime *rt = NULL;
  ws_tinyvit_weights *tw = NULL;
  ws_image *img = NULL;
  ws_journey *j = NULL;
  ws_wst_writer *wr = NULL;
  float images[WS_TINYVIT_IMAGE_FLOATS];
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  cr_assert_eq(ws_runtime_create(dev, &rt), WS_OK);
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  cr_assert_eq(ws_tinyvit_weights_create(ctx, &mc, &tw), WS_OK);
  ws_tinyvit_weights_init_seeded(tw, 1);
  cr_assert_eq(ws_image_sample(ctx, "checker", &img), WS_OK);
  cr_assert_eq(ws_image_to_input(ctx, img, images), WS_OK);
  cr_assert_eq(ws_journey_create(ctx, &j), WS_OK);
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, NULL, &wr), WS_OK, "%s", ws_errmsg(ctx));
  static ws_tee tee; /* the device keeps a pointer to its probe */
  ws_tee_init(&tee, ws_journey_probe(j), ws_wst_writer_probe(wr));
  ws_device_set_probe(dev, &tee.probe);
  ws_vitrun_cfg vc = ws_vitrun_defaults();
  vc.follow = (ws_vitrun_follow){true, 12, 7, WS_VITRUN_ALL_CHANNELS};
  ws_vitrun_result res;
  memset(&res, 0, sizeof res);
  cr_assert_eq(ws_vitrun_run(rt, tw, images, &vc, &res), WS_OK, "%s", ws_errmsg(ctx));
  char *text = NULL, *old = NULL;
  size_t size = 0, ntl = 0;
  cr_assert_eq(ws_journey_to_text(ctx, j, &text, &size), WS_OK);
  old = without_unit_index(text, size);
  const ws_runtime_record *tl = ws_runtime_timeline(rt, &ntl);
  cr_assert_eq(ws_wst_writer_set_timeline(wr, tl, ntl), WS_OK);
  cr_assert_eq(ws_wst_writer_set_journey(wr, old, strlen(old)), WS_OK);
  cr_assert_eq(ws_wst_writer_commit(wr), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(wr);
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_walk_create(ctx, reader, &cfg, &walk), WS_OK, "%s", ws_errmsg(ctx));
  const ws_journey_hop *h;
  size_t n = ws_journey_hops(j, &h);
  cr_assert_eq(ws_viz_walk_count(walk), n);
  for (size_t i = 0; i < n; i++) {
    cr_expect_eq(ws_viz_walk_hop(walk, i)->index, WS_JOURNEY_NO_INDEX, "read as an old trace");
    expect_same_part(i, &h[i], ws_viz_walk_at(walk, i));
  }
  free(old);
  free(text);
  ws_journey_destroy(j);
  ws_vitrun_result_free(&res);
  ws_image_destroy(img);
  ws_tinyvit_weights_destroy(tw);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  teardown();
}

/* ---- the ledger and the ring on the picture --------------------------------------------------------- */

static ws_viz_rgb pixel(SDL_Surface *s, int32_t x, int32_t y) {
  cr_assert(x >= 0 && y >= 0 && x < s->w && y < s->h);
  const uint8_t *row = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch;
  uint32_t v;
  memcpy(&v, row + (size_t)x * s->format->BytesPerPixel, sizeof v);
  ws_viz_rgb c;
  SDL_GetRGB(v, s->format, &c.r, &c.g, &c.b);
  return c;
}

static bool same(ws_viz_rgb a, ws_viz_rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

/* Stop i drawn as `viz --hop` draws it: the ring in its colour on all four
 * sides of the layout's rectangle, the panel inside the canvas and clear of
 * the ring. */
static void expect_ring(ws_viz_model *m, ws_viz_ledger *ld, size_t i) {
  const ws_viz_walk_stop *s = ws_viz_walk_at(walk, i);
  ws_viz_layout *l = NULL;
  ws_viz_render *r = NULL;
  const ws_viz_frame *f = NULL;
  cr_assert_eq(ws_viz_layout_create(ctx, &cfg, 1280, 800, s->view, &l), WS_OK);
  cr_assert_eq(ws_viz_render_create(ctx, l, NULL, &r), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_load(m, s->launch), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_frame(m, s->cycle, 256, &f), WS_OK);
  cr_assert_eq(ws_viz_render_draw(r, f, "walk"), WS_OK);
  SDL_Surface *surf = ws_viz_render_surface(r);
  ws_viz_ledger_draw(ld, surf, l, walk, i);
  ws_viz_rect rc;
  cr_assert(ws_viz_walk_rect(walk, i, l, &rc));
  /* one pixel inside the ring's outer edge, on each side: the ring is outside the part */
  ws_viz_rect o = ws_viz_ledger_ring(rc);
  cr_expect(o.x < rc.x && o.y < rc.y && o.x + o.w > rc.x + rc.w && o.y + o.h > rc.y + rc.h);
  int32_t mx = o.x + o.w / 2, my = o.y + o.h / 2;
  int32_t probes[4][2] = {{o.x + 1, my}, {o.x + o.w - 2, my}, {mx, o.y + 1}, {mx, o.y + o.h - 2}};
  for (int k = 0; k < 4; k++) {
    if (probes[k][0] < 0 || probes[k][1] < 0 || probes[k][0] >= 1280 || probes[k][1] >= 800) continue;
    ws_viz_rgb got = pixel(surf, probes[k][0], probes[k][1]);
    cr_expect(same(got, WS_VIZ_LEDGER_RING_RGB), "hop %zu (%s): side %d at (%d,%d) is #%02x%02x%02x", i + 1,
              ws_viz_part_name(s->part), k, probes[k][0], probes[k][1], got.r, got.g, got.b);
  }
  ws_viz_rect p = ws_viz_ledger_panel(ld);
  cr_expect(p.x >= 0 && p.y >= 0 && p.x + p.w <= 1280 && p.y + p.h <= 800, "hop %zu: panel in the canvas",
            i + 1);
  /* the panel's top left is its frame, the text's background is the panel's */
  cr_expect(same(pixel(surf, p.x + 2, p.y + p.h - 2), ws_viz_palette(WS_VIZ_COL_PANEL)));
  ws_viz_render_destroy(r);
  ws_viz_layout_destroy(l);
}

Test(walk, the_ring_is_drawn_round_the_layouts_rect_in_its_colour, .init = setup_follow, .fini = teardown) {
  ws_viz_model *m = NULL;
  ws_viz_ledger *ld = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, reader, &m), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_ledger_create(ctx, NULL, &ld), WS_OK, "%s", ws_errmsg(ctx));
  /* one stop of each kind of part */
  bool seen[WS_VIZ_PART_COUNT] = {false};
  for (size_t i = 0; i < ws_viz_walk_count(walk); i++) {
    ws_viz_part part = ws_viz_walk_at(walk, i)->part;
    if (seen[part]) continue;
    seen[part] = true;
    expect_ring(m, ld, i);
  }
  cr_expect(seen[WS_VIZ_PART_HOST] && seen[WS_VIZ_PART_L2_SLICE] && seen[WS_VIZ_PART_WARP_SLOT]);
  ws_viz_ledger_destroy(ld);
  ws_viz_model_destroy(m);
}
