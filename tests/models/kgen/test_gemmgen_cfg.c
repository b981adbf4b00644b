/* test_gemmgen_cfg.c - the GEMM generator's config functions
 * (models/kgen/gemmgen_cfg.c): variant names and parsing, each variant's default
 * tile sizes (the table docs/kernels.md measures), which fields each variant
 * uses, the one-line description and its truncation, the kernel-top notes,
 * and the integer log2 the planner splits thread indices with. Expected
 * strings are written out from the format in gemmgen.h by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "models/kgen/gemmgen_int.h"

static const char *const names[WS_GEMMGEN_VARIANT_COUNT] = {
    "naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile", "async", "mma"};

Test(gemmgen_cfg, variant_names_and_parse) {
  ws_ctx *ctx = ws_ctx_create();
  for (unsigned v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    cr_expect_str_eq(ws_gemmgen_variant_name((ws_gemmgen_variant)v), names[v]);
    ws_gemmgen_variant out = WS_GEMMGEN_VARIANT_COUNT;
    cr_expect_eq(ws_gemmgen_variant_parse(ctx, names[v], &out), WS_OK);
    cr_expect_eq(out, (ws_gemmgen_variant)v, "%s", names[v]);
  }
  cr_expect_str_eq(ws_gemmgen_variant_name(WS_GEMMGEN_VARIANT_COUNT), "?");
  ws_gemmgen_variant out = WS_GEMMGEN_MMA;
  cr_expect_eq(ws_gemmgen_variant_parse(ctx, "Naive", &out), WS_ERR_INVALID, "case matters");
  cr_expect_str_eq(ws_errmsg(ctx),
                   "unknown GEMM variant 'Naive' (expected naive, coalesced, smem, blocktile1d, "
                   "blocktile2d, vectorized, warptile, async or mma)");
  cr_expect_eq(out, WS_GEMMGEN_MMA, "a refused name leaves *out alone");
  cr_expect_eq(ws_gemmgen_variant_parse(ctx, NULL, &out), WS_ERR_INVALID);
  cr_expect_eq(strncmp(ws_errmsg(ctx), "unknown GEMM variant '(null)'", 29), 0, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

static void expect_cfg(ws_gemmgen_variant v, uint32_t bm, uint32_t bn, uint32_t bk, uint32_t tm, uint32_t tn,
                       uint32_t wm, uint32_t wn, uint32_t threads) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(v);
  const char *n = ws_gemmgen_variant_name(v);
  cr_expect_eq(c.variant, v, "%s", n);
  cr_expect_eq(c.bm, bm, "%s bm", n);
  cr_expect_eq(c.bn, bn, "%s bn", n);
  cr_expect_eq(c.bk, bk, "%s bk", n);
  cr_expect_eq(c.tm, tm, "%s tm", n);
  cr_expect_eq(c.tn, tn, "%s tn", n);
  cr_expect_eq(c.wm, wm, "%s wm", n);
  cr_expect_eq(c.wn, wn, "%s wn", n);
  cr_expect_eq(c.threads, threads, "%s threads", n);
  cr_expect_eq(c.epilogue, 0u, "%s: defaults have no epilogue", n);
}

Test(gemmgen_cfg, defaults) {
  /*         variant                 bm   bn   bk  tm tn  wm  wn  threads */
  expect_cfg(WS_GEMMGEN_NAIVE, 32, 32, 1, 1, 1, 0, 0, 1024);
  expect_cfg(WS_GEMMGEN_COALESCED, 32, 32, 1, 1, 1, 0, 0, 1024);
  expect_cfg(WS_GEMMGEN_SMEM, 32, 32, 32, 1, 1, 0, 0, 1024);
  expect_cfg(WS_GEMMGEN_BLOCKTILE1D, 64, 64, 8, 8, 1, 0, 0, 512);
  expect_cfg(WS_GEMMGEN_BLOCKTILE2D, 128, 128, 8, 8, 8, 0, 0, 256);
  expect_cfg(WS_GEMMGEN_VECTORIZED, 128, 128, 8, 8, 8, 0, 0, 256);
  expect_cfg(WS_GEMMGEN_WARPTILE, 128, 128, 8, 4, 4, 32, 64, 256);
  expect_cfg(WS_GEMMGEN_ASYNC, 128, 128, 16, 4, 4, 32, 64, 256);
  expect_cfg(WS_GEMMGEN_MMA, 64, 64, 32, 1, 1, 32, 32, 128);
}

/* Which fields a variant reads: k tiles from smem on, thread tiles from
 * blocktile1d up to async (mma has none), warp tiles from warptile on. */
Test(gemmgen_cfg, fields_each_variant_uses) {
  static const bool k_tiles[] = {0, 0, 1, 1, 1, 1, 1, 1, 1};
  static const bool thread_tile[] = {0, 0, 0, 1, 1, 1, 1, 1, 0};
  static const bool warp_tile[] = {0, 0, 0, 0, 0, 0, 1, 1, 1};
  for (unsigned v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    cr_expect_eq(ws_gemmgen_uses_k_tiles((ws_gemmgen_variant)v), k_tiles[v], "%s", names[v]);
    cr_expect_eq(ws_gemmgen_uses_thread_tile((ws_gemmgen_variant)v), thread_tile[v], "%s", names[v]);
    cr_expect_eq(ws_gemmgen_uses_warp_tile((ws_gemmgen_variant)v), warp_tile[v], "%s", names[v]);
  }
}

static void expect_describe(ws_gemmgen_cfg c, const char *want) {
  char buf[160];
  ws_gemmgen_describe(&c, buf, sizeof buf);
  cr_expect_str_eq(buf, want);
}

Test(gemmgen_cfg, describe_names_the_fields_the_variant_uses) {
  expect_describe(ws_gemmgen_defaults(WS_GEMMGEN_NAIVE), "naive bm=32 bn=32 threads=1024");
  expect_describe(ws_gemmgen_defaults(WS_GEMMGEN_SMEM), "smem bm=32 bn=32 bk=32 threads=1024");
  expect_describe(ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D),
                  "blocktile2d bm=128 bn=128 bk=8 tm=8 tn=8 threads=256");
  expect_describe(ws_gemmgen_defaults(WS_GEMMGEN_WARPTILE),
                  "warptile bm=128 bn=128 bk=8 tm=4 tn=4 wm=32 wn=64 threads=256");
  expect_describe(ws_gemmgen_defaults(WS_GEMMGEN_MMA), "mma bm=64 bn=64 bk=32 wm=32 wn=32 threads=128");
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_COALESCED);
  c.epilogue = WS_GEMMGEN_EPI_ALL;
  expect_describe(c, "coalesced bm=32 bn=32 threads=1024+bias+gelu+residual");
  c.epilogue = WS_GEMMGEN_EPI_GELU | WS_GEMMGEN_EPI_RESIDUAL;
  expect_describe(c, "coalesced bm=32 bn=32 threads=1024+gelu+residual");
}

/* The description is cut to the buffer, always NUL-terminated, and nothing
 * past the buffer is written (the bytes after it keep their canary). */
Test(gemmgen_cfg, describe_truncates_to_the_buffer) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_WARPTILE);
  c.epilogue = WS_GEMMGEN_EPI_ALL;
  static const size_t sizes[] = {1, 10, 30, 63};
  /* full text: "warptile bm=128 bn=128 bk=8 tm=4 tn=4 wm=32 wn=64 threads=256+bias+gelu+residual" */
  const char *full = "warptile bm=128 bn=128 bk=8 tm=4 tn=4 wm=32 wn=64 threads=256+bias+gelu+residual";
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char buf[80];
    memset(buf, '#', sizeof buf);
    ws_gemmgen_describe(&c, buf, sizes[i]);
    cr_expect_eq(strlen(buf), sizes[i] - 1, "size %zu", sizes[i]);
    cr_expect_eq(strncmp(buf, full, sizes[i] - 1), 0, "size %zu: %s", sizes[i], buf);
    cr_expect_eq(buf[sizes[i]], '#', "size %zu: wrote past the buffer", sizes[i]);
  }
}

Test(gemmgen_cfg, notes) {
  for (unsigned v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    const char *note = ws_gemmgen_variant_note((ws_gemmgen_variant)v);
    cr_expect_gt(strlen(note), 40, "%s has a note", names[v]);
    /* continuation lines are comments in the emitted kernel */
    for (const char *nl = strchr(note, '\n'); nl; nl = strchr(nl + 1, '\n'))
      cr_expect_eq(strncmp(nl + 1, "// ", 3), 0, "%s: a note line lacks its //", names[v]);
  }
  cr_expect(strstr(ws_gemmgen_variant_note(WS_GEMMGEN_NAIVE), "ROWS") != NULL);
  cr_expect(strstr(ws_gemmgen_variant_note(WS_GEMMGEN_MMA), "HMMA.16816") != NULL);
  cr_expect(strstr(ws_gemmgen_variant_note(WS_GEMMGEN_ASYNC), "LDGSTS") != NULL);
  cr_expect_str_eq(ws_gemmgen_variant_note(WS_GEMMGEN_VARIANT_COUNT), "");
}

/* floor(log2(x)); 0 and 1 both give 0. */
Test(gemmgen_cfg, ilog2) {
  cr_expect_eq(ws_gemmgen_ilog2(0), 0u);
  cr_expect_eq(ws_gemmgen_ilog2(1), 0u);
  cr_expect_eq(ws_gemmgen_ilog2(2), 1u);
  cr_expect_eq(ws_gemmgen_ilog2(3), 1u);
  cr_expect_eq(ws_gemmgen_ilog2(32), 5u);
  cr_expect_eq(ws_gemmgen_ilog2(1023), 9u);
  cr_expect_eq(ws_gemmgen_ilog2(1024), 10u);
  cr_expect_eq(ws_gemmgen_ilog2(0x80000000u), 31u);
  cr_expect_eq(ws_gemmgen_ilog2(0xffffffffu), 31u);
}
