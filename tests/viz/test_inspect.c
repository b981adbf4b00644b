/* test_inspect.c - tooltips' last micro-op of a memory component
 * (viz/inspect.h), against records read straight from a recorded trace: an
 * SGEMM on the classroom preset, which touches every level. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "viz/inspect.h"

static char path[] = "/tmp/ws_inspect_XXXXXX";
static ws_ctx *ctx;
static ws_wst_reader *reader;
static ws_gpu_cfg cfg;

static void record(void) {
  wstrec_tmpfile(path);
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_example_shape shape = ws_example_default_shape("sgemm");
  shape.m = shape.n = shape.k = 64;
  wstrec_example(ctx, path, "classroom", "sgemm", &shape, 1);
}

static void setup(void) {
  ctx = ws_ctx_create();
  record();
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
}

static void teardown(void) {
  ws_wst_close(reader);
  unlink(path);
  ws_ctx_destroy(ctx);
}

TestSuite(inspect, .init = setup, .fini = teardown, .timeout = 120);

/* The first record of `kind` in launch 0 whose component has no other
 * record beginning in the same cycle; `same` says what a component is. */
static bool pick(uint8_t kind, bool (*same)(const ws_probe_event *, const ws_probe_event *),
                 ws_probe_event *out) {
  ws_probe_event all[4096];
  size_t n = 0;
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open_launch(reader, 0, 0, 0, &c), WS_OK);
  for (bool more = true; more && n < 4096;) {
    uint32_t l;
    cr_assert_eq(ws_wst_cursor_next(c, &all[n], &l, &more), WS_OK);
    if (more && all[n].kind == kind) n++;
  }
  ws_wst_cursor_close(c);
  for (size_t i = 0; i < n; i++) {
    bool alone = true;
    for (size_t j = 0; j < n && alone; j++)
      if (j != i && all[j].begin == all[i].begin && same(&all[i], &all[j])) alone = false;
    if (alone) {
      *out = all[i];
      return true;
    }
  }
  return false;
}

static bool same_l1_set(const ws_probe_event *a, const ws_probe_event *b) {
  return a->sm == b->sm && a->a == b->a;
}
static bool same_slice(const ws_probe_event *a, const ws_probe_event *b) { return a->unit == b->unit; }
static bool same_bank(const ws_probe_event *a, const ws_probe_event *b) {
  return a->unit == b->unit && a->a == b->a;
}

static void describe(const ws_viz_hit *h, uint64_t cycle, uint32_t window, char *buf, size_t n) {
  ws_viz_inspect *in = NULL;
  cr_assert_eq(ws_viz_inspect_create(ctx, reader, &cfg, &in), WS_OK);
  cr_assert_eq(ws_viz_inspect_describe(in, 0, cycle, window, h, buf, n), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_inspect_destroy(in);
}

static void expect_has(const char *text, const char *want) {
  cr_expect(strstr(text, want) != NULL, "'%s' expected in '%s'", want, text);
}

Test(inspect, an_l1_set_names_its_last_lookup) {
  ws_probe_event e;
  cr_assert(pick(WS_PEV_L1, same_l1_set, &e));
  ws_viz_hit h = {WS_VIZ_PART_L1_SET, e.sm, e.a};
  char got[768], want[96];
  describe(&h, e.begin, 1, got, sizeof got);
  snprintf(want, sizeof want, "at cycle %" PRIu64 " by warp %u: line 0x%" PRIx64 ", set %u,", e.begin, e.warp,
           e.addr, e.a);
  expect_has(got, want);
  snprintf(want, sizeof want, ", sectors 0x%x, ", e.c);
  expect_has(got, want);
  snprintf(want, sizeof want, ", %" PRIu64 " cycles", e.end - e.begin);
  expect_has(got, want);
  expect_has(got, e.b == UINT32_MAX ? "no way" : "way ");
}

Test(inspect, an_l2_slice_and_an_hbm_bank) {
  ws_probe_event e;
  char got[768], want[128];
  cr_assert(pick(WS_PEV_L2, same_slice, &e));
  ws_viz_hit h = {WS_VIZ_PART_L2_SLICE, 0, e.unit};
  describe(&h, e.begin, 1, got, sizeof got);
  snprintf(want, sizeof want, "at cycle %" PRIu64 " from SM %u: line 0x%" PRIx64 ", set %u, ", e.begin, e.sm,
           e.addr, e.a);
  expect_has(got, want);
  cr_assert(pick(WS_PEV_DRAM, same_bank, &e));
  h = (ws_viz_hit){WS_VIZ_PART_HBM_BANK, 0, e.unit * cfg.hbm.banks_per_channel + e.a};
  describe(&h, e.begin, 1, got, sizeof got);
  snprintf(want, sizeof want, "%s %u B of line 0x%" PRIx64 ", bank %u row %u, ",
           e.flags & WS_PROBE_WRITE ? "write" : "read", e.c, e.addr, e.a, e.b);
  expect_has(got, want);
  snprintf(want, sizeof want, ", %" PRIu64 " cycles", e.end - e.begin);
  expect_has(got, want);
}

Test(inspect, nothing_in_the_window_and_the_cache) {
  ws_probe_event e;
  cr_assert(pick(WS_PEV_L1, same_l1_set, &e));
  ws_viz_hit h = {WS_VIZ_PART_L1_SET, e.sm, e.a};
  char got[768];
  ws_viz_inspect *in = NULL;
  cr_assert_eq(ws_viz_inspect_create(ctx, reader, &cfg, &in), WS_OK);
  cr_assert_eq(ws_viz_inspect_describe(in, 0, e.begin, 1, &h, got, sizeof got), WS_OK);
  uint64_t reads = ws_viz_inspect_reads(in);
  cr_assert_gt(reads, 0);
  cr_assert_eq(ws_viz_inspect_describe(in, 0, e.begin, 1, &h, got, sizeof got), WS_OK);
  cr_expect_eq(ws_viz_inspect_reads(in), reads, "the same question is answered from the cache");
  ws_viz_hit far = {WS_VIZ_PART_L1_SET, e.sm, cfg.l1.size_kib * 1024u}; /* no such set */
  cr_assert_eq(ws_viz_inspect_describe(in, 0, e.begin, 256, &far, got, sizeof got), WS_OK);
  cr_expect_str_eq(got, "no lookup in the last 256 cycles");
  ws_viz_hit warp = {WS_VIZ_PART_WARP_SLOT, 0, 0};
  cr_expect_eq(ws_viz_inspect_describe(in, 0, e.begin, 1, &warp, got, sizeof got), WS_ERR_INVALID);
  ws_viz_inspect_destroy(in);
}
