/* test_journey.c - a followed pixel's journey (traces/journey.h) through a
 * real TinyViT32 run: from host RAM over PCIe into HBM, through every
 * kernel's L2, L1, shared memory, registers and function units, and back to
 * host RAM as the probability; the ledger's text round trip; and the trace
 * keeping it.
 *
 * Design: what the ledger must show follows from the pipeline's structure
 * (the image's CHW layout gives the pixel's byte, the link model the
 * burst's time, the timeline the kernels in order), never from a run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/formats/image.h"
#include "models/vit/vitrun.h"
#include "sim/host/pcie.h"
#include "traces/journey.h"
#include "traces/tee.h"
#include "traces/wst.h"

typedef struct fixture {
  ws_ctx *ctx;
  ws_device *dev;
  ws_runtime *rt;
  ws_tinyvit_weights *w;
  float images[WS_TINYVIT_IMAGE_FLOATS];
  ws_vitrun_result res;
  ws_journey *j;
} fixture;

static void run_followed(fixture *f, const ws_probe *extra, uint32_t x, uint32_t y) {
  memset(f, 0, sizeof *f);
  f->ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(f->ctx, "a100", &cfg), WS_OK);
  cr_assert_eq(ws_device_create(f->ctx, &cfg, &f->dev), WS_OK);
  cr_assert_eq(ws_runtime_create(f->dev, &f->rt), WS_OK);
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  cr_assert_eq(ws_tinyvit_weights_create(f->ctx, &mc, &f->w), WS_OK);
  ws_tinyvit_weights_init_seeded(f->w, 1);
  ws_image *img = NULL;
  cr_assert_eq(ws_image_sample(f->ctx, "checker", &img), WS_OK);
  cr_assert_eq(ws_image_to_input(f->ctx, img, f->images), WS_OK);
  ws_image_destroy(img);
  cr_assert_eq(ws_journey_create(f->ctx, &f->j), WS_OK);
  static ws_tee tee; /* the device keeps a pointer to its probe */
  ws_tee_init(&tee, ws_journey_probe(f->j), extra);
  ws_device_set_probe(f->dev, &tee.probe);
  ws_vitrun_cfg c = ws_vitrun_defaults();
  c.follow = (ws_vitrun_follow){true, x, y, WS_VITRUN_ALL_CHANNELS};
  cr_assert_eq(ws_vitrun_run(f->rt, f->w, f->images, &c, &f->res), WS_OK, "%s", ws_errmsg(f->ctx));
  cr_assert(f->res.pass);
  cr_assert_eq(ws_journey_status(f->j, f->ctx), WS_OK);
}

static void teardown(fixture *f) {
  ws_journey_destroy(f->j);
  ws_vitrun_result_free(&f->res);
  ws_tinyvit_weights_destroy(f->w);
  ws_runtime_destroy(f->rt);
  ws_device_destroy(f->dev);
  ws_ctx_destroy(f->ctx);
}

static size_t count_level(const ws_journey_hop *h, size_t n, uint32_t launch, ws_journey_level level) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += h[i].launch == launch && h[i].level == level;
  return c;
}

Test(journey, a_pixel_from_host_ram_to_the_probability) {
  fixture f;
  run_followed(&f, NULL, 12, 7);
  const ws_journey_hop *h;
  size_t n = ws_journey_hops(f.j, &h), ntl;
  const ws_runtime_record *tl = ws_runtime_timeline(f.rt, &ntl);
  cr_assert_geq(n, 6u);
  /* the image's first followed byte: channel 0 of pixel (12,7) in the CHW image, 4-byte floats */
  const uint32_t byte = (7u * 32u + 12u) * 4u;
  cr_expect_eq(h[0].level, WS_JOURNEY_HOST);
  cr_expect_eq(h[1].level, WS_JOURNEY_PCIE);
  cr_expect_eq(h[2].level, WS_JOURNEY_DRAM);
  char want[64];
  snprintf(want, sizeof want, "host buffer, byte %u of the copy", byte);
  cr_expect_str_eq(h[0].component, want);
  /* the image copy is pinned and one burst: its DMA time after the setup latency */
  const ws_gpu_cfg *cfg = ws_device_cfg(f.dev);
  const ws_runtime_record *image = NULL;
  for (size_t i = 0; i < ntl; i++)
    if (tl[i].kind == WS_RUNTIME_OP_H2D && strcmp(tl[i].name, "image") == 0) image = &tl[i];
  cr_assert(image);
  cr_expect_eq(h[1].first, image->start_ns + cfg->pcie.setup_lat_ns);
  cr_expect_eq(h[1].spent, ws_pcie_dma_ns(&cfg->pcie, image->size_bytes));
  cr_expect_eq(h[2].first, image->end_ns, "in HBM when the burst is done");
  /* every kernel: the value reaches its L1 and L2 and its registers, in the launch's order */
  uint32_t launches = ws_journey_launches(f.j), kernels = 0;
  for (size_t i = 0; i < ntl; i++) kernels += tl[i].kind == WS_RUNTIME_OP_KERNEL;
  cr_expect_eq(launches, kernels);
  for (uint32_t l = 0; l < launches; l++) {
    cr_expect_eq(count_level(h, n, l, WS_JOURNEY_L1), 1u, "launch %u reaches an L1 once in the ledger", l);
    cr_expect_eq(count_level(h, n, l, WS_JOURNEY_L2), 1u, "launch %u: L2", l);
    cr_expect_eq(count_level(h, n, l, WS_JOURNEY_REGISTERS), 1u, "launch %u: registers", l);
  }
  cr_expect_eq(count_level(h, n, 0, WS_JOURNEY_DRAM), 1u,
               "the first kernel finds it in HBM (caches start empty)");
  uint32_t prev_launch = 0;
  for (size_t i = 3; i + 3 < n; i++) {
    cr_expect_geq(h[i].launch, prev_launch, "hops in launch order");
    if (i > 3 && h[i].launch == h[i - 1].launch) cr_expect_geq(h[i].first, h[i - 1].first, "in time order");
    prev_launch = h[i].launch;
  }
  /* the probability comes back: HBM, PCIe, host RAM */
  cr_expect_eq(h[n - 3].level, WS_JOURNEY_DRAM);
  cr_expect_eq(h[n - 2].level, WS_JOURNEY_PCIE);
  cr_expect_eq(h[n - 1].level, WS_JOURNEY_HOST);
  cr_expect_eq(h[n - 1].launch, WS_JOURNEY_HOST_LAUNCH);
  cr_expect_eq(h[n - 1].first, tl[ntl - 1].end_ns, "the last copy's end");
  /* arithmetic on the way: the GEMMs' FP32 units and the softmax's exponentials */
  size_t fp32 = 0, sfu = 0;
  for (size_t i = 0; i < n; i++) fp32 += h[i].level == WS_JOURNEY_FP32, sfu += h[i].level == WS_JOURNEY_SFU;
  cr_expect_geq(fp32, 1u);
  cr_expect_geq(sfu, 1u);
  teardown(&f);
}

Test(journey, the_ledger_as_text_round_trips) {
  fixture f;
  run_followed(&f, NULL, 0, 31);
  const ws_journey_hop *h;
  size_t n = ws_journey_hops(f.j, &h);
  /* the run's per-layer reach goes with the hops */
  for (size_t i = 0; i < f.res.nreach; i++)
    cr_assert_eq(
        ws_journey_add_reach(f.ctx, f.j, f.res.reach[i].layer, f.res.reach[i].reached, f.res.reach[i].total),
        WS_OK);
  cr_assert_gt(f.res.nreach, 0u);
  char *text = NULL;
  size_t size = 0;
  cr_assert_eq(ws_journey_to_text(f.ctx, f.j, &text, &size), WS_OK);
  ws_journey_hop *back = NULL;
  ws_journey_reach *reach = NULL;
  size_t nback = 0, nreach = 0;
  cr_assert_eq(ws_journey_from_text(f.ctx, text, size, &back, &nback, &reach, &nreach), WS_OK, "%s",
               ws_errmsg(f.ctx));
  cr_assert_eq(nback, n);
  for (size_t i = 0; i < n; i++) cr_expect_eq(memcmp(&back[i], &h[i], sizeof *h), 0, "hop %zu", i);
  cr_assert_eq(nreach, f.res.nreach);
  for (size_t i = 0; i < nreach; i++) {
    cr_expect_str_eq(reach[i].layer, f.res.reach[i].layer);
    cr_expect_eq(reach[i].reached, f.res.reach[i].reached);
    cr_expect_eq(reach[i].total, f.res.reach[i].total);
  }
  cr_expect_eq(reach[nreach - 1].reached, 1u, "the probability");
  free(reach);
  free(back);
  /* more reached than there are is refused, naming the line */
  char *over = strdup(text);
  char *row = strstr(strstr(over, "layer\treached\ttotal\n"), "\npool\t");
  cr_assert(row);
  row[6] = '9'; /* pool reached 94 of its 64 */
  cr_expect_neq(ws_journey_from_text(f.ctx, over, size, &back, &nback, &reach, &nreach), WS_OK);
  cr_expect(strstr(ws_errmsg(f.ctx), "no fewer"), "%s", ws_errmsg(f.ctx));
  free(over);
  /* a damaged line is named */
  char *bad = strdup(text);
  char *second = strchr(strchr(bad, '\n') + 1, '\n') + 1; /* line 3 */
  second[0] = 'x';
  cr_expect_neq(ws_journey_from_text(f.ctx, bad, size, &back, &nback, NULL, NULL), WS_OK);
  cr_expect(strstr(ws_errmsg(f.ctx), "line 3"), "%s", ws_errmsg(f.ctx));
  free(bad);
  free(text);
  teardown(&f);
}

Test(journey, a_trace_keeps_the_tagged_records) {
  char path[] = "/tmp/ws_journey_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &cfg), WS_OK);
  ws_wst_writer *w = NULL;
  ws_wst_filter only = {.follow_only = true};
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, &only, &w), WS_OK, "%s", ws_errmsg(ctx));
  fixture f;
  run_followed(&f, ws_wst_writer_probe(w), 12, 7);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  const ws_wst_counts *c = ws_wst_writer_counts(w);
  uint64_t seen = 0, kept = 0;
  for (int k = 0; k < WS_PEV_COUNT; k++) seen += c->seen[k], kept += c->recorded[k];
  /* from attention on every value depends on the pixel, but weights, the
   * image's other patches before attention and the stalls never do */
  cr_expect_lt(kept, seen);
  cr_expect_gt(kept, 0u);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_cursor *cur = NULL;
  cr_assert_eq(ws_wst_cursor_open(r, &cur), WS_OK);
  ws_probe_event ev;
  uint32_t launch;
  bool got;
  uint64_t tagged = 0, untagged = 0;
  while (ws_wst_cursor_next(cur, &ev, &launch, &got) == WS_OK && got) {
    bool context =
        ev.kind == WS_PEV_KERNEL || ev.kind == WS_PEV_CTA || ev.kind == WS_PEV_HOST || ev.kind == WS_PEV_PCIE;
    if (ev.flags & WS_PROBE_TAGGED)
      tagged++;
    else
      untagged += !context;
  }
  cr_expect_gt(tagged, 0u);
  cr_expect_eq(untagged, 0u, "only tagged micro-ops besides the context records");
  ws_wst_cursor_close(cur);
  ws_wst_close(r);
  ws_wst_writer_free(w);
  teardown(&f);
  unlink(path);
  ws_ctx_destroy(ctx);
}

/* The unit and index fields name what the where text names: the HBM
 * channel and bank, the L2 slice and set, the L1 set, the link's
 * direction; nothing for the rest, a copy's ends included. */
static void expect_unit_index(size_t i, const ws_journey_hop *h) {
  unsigned a, b;
  switch ((ws_journey_level)h->level) {
  case WS_JOURNEY_DRAM:
    if (sscanf(h->component, "ch %u bank %u", &a, &b) == 2) {
      cr_expect(h->unit == a && h->index == b, "hop %zu '%s': unit %u index %u", i, h->component, h->unit,
                h->index);
      return;
    }
    break;
  case WS_JOURNEY_L2:
    cr_assert_eq(sscanf(h->component, "slice %u set %u", &a, &b), 2);
    cr_expect(h->unit == a && h->index == b, "hop %zu '%s'", i, h->component);
    return;
  case WS_JOURNEY_L1:
    cr_assert_eq(sscanf(h->component, "set %u", &a), 1);
    cr_expect(h->unit == WS_PROBE_NONE && h->index == a, "hop %zu '%s'", i, h->component);
    return;
  case WS_JOURNEY_PCIE:
    cr_expect_eq(h->unit, strncmp(h->component, "D2H", 3) == 0 ? 1u : 0u, "hop %zu '%s'", i, h->component);
    cr_expect_eq(h->index, WS_JOURNEY_NO_INDEX);
    return;
  default: break;
  }
  cr_expect(h->unit == WS_PROBE_NONE && h->index == WS_JOURNEY_NO_INDEX, "hop %zu (%s): none", i,
            ws_journey_level_name((ws_journey_level)h->level));
}

Test(journey, hops_name_their_unit_and_index) {
  fixture f;
  run_followed(&f, NULL, 12, 7);
  const ws_journey_hop *h;
  size_t n = ws_journey_hops(f.j, &h), banks = 0;
  for (size_t i = 0; i < n; i++) {
    expect_unit_index(i, &h[i]);
    banks += h[i].level == WS_JOURNEY_DRAM && h[i].index != WS_JOURNEY_NO_INDEX;
  }
  cr_expect_gt(banks, 0u, "the first kernel's HBM command names its bank");
  teardown(&f);
}

/* Traces written before the unit and index columns still open: ten
 * columns a hop, the fields read as none. */
Test(journey, the_text_of_older_traces_still_reads) {
  ws_ctx *ctx = ws_ctx_create();
  const char text[] =
      "launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tkernel\tcomponent\n"
      "4294967295\t1\t65535\t65535\t0\t4294967295\t25652\t427\t\tH2D burst of 12288 B at +0\n"
      "0\t2\t65535\t65535\t0\t4294967295\t373\t22\tpatch_extract\tch 7 bank 5 row 9 (row hit)\n"
      "layer\treached\ttotal\n"
      "patch\t3\t3072\n";
  ws_journey_hop *h = NULL;
  ws_journey_reach *r = NULL;
  size_t n = 0, nr = 0;
  cr_assert_eq(ws_journey_from_text(ctx, text, sizeof text - 1, &h, &n, &r, &nr), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(n, 2u);
  cr_assert_eq(nr, 1u);
  for (size_t i = 0; i < n; i++) cr_expect(h[i].unit == WS_PROBE_NONE && h[i].index == WS_JOURNEY_NO_INDEX);
  cr_expect_eq(h[1].first, 373u);
  cr_expect_str_eq(h[1].kernel, "patch_extract");
  cr_expect_str_eq(h[1].component, "ch 7 bank 5 row 9 (row hit)");
  cr_expect_eq(r[0].reached, 3u);
  free(h);
  free(r);
  /* an old header with a new line (12 columns) is damaged: named */
  const char mixed[] = "launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tkernel\tcomponent\n"
                       "0\t2\t65535\t65535\t0\t4294967295\t373\t22\t7\t5\tk\tch 7 bank 5\n";
  cr_expect_eq(ws_journey_from_text(ctx, mixed, sizeof mixed - 1, &h, &n, NULL, NULL), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "line 2") != NULL, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}
