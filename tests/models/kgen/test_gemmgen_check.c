/* test_gemmgen_check.c - the GEMM generator's structural rules
 * (models/kgen/gemmgen_check.c, ws_gemmgen_check_structure): every default config
 * passes with and without the full epilogue, and each rule is broken by one
 * config, refused with WS_ERR_INVALID and its exact reason. Each bad config
 * is a default with one or two fields changed; the numbers in the expected
 * reasons are worked out beside it from the rule in gemmgen_check.c. */
#include <criterion/criterion.h>

#include "models/kgen/gemmgen_int.h"

static ws_ctx *ctx;
static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }
TestSuite(gemmgen_check, .init = setup, .fini = teardown);

static void expect_refused(ws_gemmgen_cfg c, const char *want) {
  ws_ctx_clear(ctx);
  cr_expect_eq(ws_gemmgen_check_structure(ctx, &c), WS_ERR_INVALID, "accepted; wanted: %s", want);
  cr_expect_str_eq(ws_errmsg(ctx), want);
}

static ws_gemmgen_cfg def(ws_gemmgen_variant v) { return ws_gemmgen_defaults(v); }

Test(gemmgen_check, every_default_passes) {
  for (unsigned v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    ws_gemmgen_cfg c = def((ws_gemmgen_variant)v);
    cr_expect_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s: %s", ws_gemmgen_variant_name(c.variant),
                 ws_errmsg(ctx));
    c.epilogue = WS_GEMMGEN_EPI_ALL;
    cr_expect_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s+all: %s", ws_gemmgen_variant_name(c.variant),
                 ws_errmsg(ctx));
  }
}

Test(gemmgen_check, variant_and_epilogue) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_NAIVE);
  c.variant = WS_GEMMGEN_VARIANT_COUNT;
  expect_refused(c, "unknown GEMM variant 9");
  c = def(WS_GEMMGEN_NAIVE);
  c.epilogue = 8;
  expect_refused(c, "unknown epilogue flags 0x8");
}

Test(gemmgen_check, powers_of_two_of_the_fields_used) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_NAIVE);
  c.bm = 24;
  expect_refused(c, "bm=24 must be a power of two (the kernel splits thread indices with shifts)");
  c = def(WS_GEMMGEN_NAIVE);
  c.threads = 0;
  expect_refused(c, "threads=0 must be a power of two (the kernel splits thread indices with "
                    "shifts)");
  c = def(WS_GEMMGEN_SMEM);
  c.bk = 12;
  expect_refused(c, "bk=12 must be a power of two (the kernel splits thread indices with shifts)");
  c = def(WS_GEMMGEN_WARPTILE);
  c.wn = 48;
  expect_refused(c, "wn=48 must be a power of two (the kernel splits thread indices with shifts)");
  /* naive reads neither bk nor the thread or warp tile, so they are free */
  c = def(WS_GEMMGEN_NAIVE);
  c.bk = 3, c.tm = 5, c.wm = 7;
  cr_expect_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s", ws_errmsg(ctx));
  /* nor does mma read tm / tn */
  c = def(WS_GEMMGEN_MMA);
  c.tm = 3, c.tn = 0;
  cr_expect_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s", ws_errmsg(ctx));
}

Test(gemmgen_check, sizes_at_most_1024) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_SMEM);
  c.bk = 2048;
  expect_refused(c, "bm, bn, bk and threads must be at most 1024, got 32, 32, 2048, 1024");
}

/* naive and coalesced: one output per thread, so threads = bm*bn. */
Test(gemmgen_check, simple_variants_need_one_thread_per_output) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_NAIVE);
  c.threads = 512;
  expect_refused(c, "naive computes one output per thread: threads must be bm*bn = 1024, got 512");
  c = def(WS_GEMMGEN_COALESCED);
  c.bm = 16; /* 16*32 = 512 */
  expect_refused(c, "coalesced computes one output per thread: threads must be bm*bn = 512, got 1024");
}

Test(gemmgen_check, thread_tiles) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_SMEM);
  c.tm = 2;
  expect_refused(c, "smem computes one output per thread: tm and tn must be 1, got 2 and 1");
  c = def(WS_GEMMGEN_BLOCKTILE1D);
  c.tn = 2;
  expect_refused(c, "blocktile1d blocks along rows only: tn must be 1, got 2");
  c = def(WS_GEMMGEN_BLOCKTILE2D);
  c.bm = 4;
  expect_refused(c, "the thread tile 8x8 is larger than the CTA tile 4x128");
  c = def(WS_GEMMGEN_VECTORIZED);
  c.tm = 2;
  expect_refused(c, "vectorized reads 128-bit fragments: tm, tn and bk must be multiples of 4, "
                    "got 2, 8, 8");
  c = def(WS_GEMMGEN_ASYNC);
  c.bk = 2;
  expect_refused(c, "async reads 128-bit fragments: tm, tn and bk must be multiples of 4, "
                    "got 4, 4, 2");
  /* (128/8) * (128/8) = 256 threads, not 128 */
  c = def(WS_GEMMGEN_BLOCKTILE2D);
  c.threads = 128;
  expect_refused(c, "threads must be (bm/tm)*(bn/tn) = 256 (one thread per 8x8 block), got 128");
}

Test(gemmgen_check, warp_tiles) {
  ws_gemmgen_cfg c = def(WS_GEMMGEN_WARPTILE);
  c.wm = 256;
  expect_refused(c, "the warp tile 256x64 does not divide the CTA tile 128x128");
  c = def(WS_GEMMGEN_MMA);
  c.wm = 8;
  expect_refused(c, "mma warp tiles are made of 16x8 HMMA tiles: wm must be a multiple of 16 and "
                    "wn of 8, got 8x32");
  c = def(WS_GEMMGEN_MMA);
  c.bk = 8;
  expect_refused(c, "mma steps k by 16 (HMMA.16816): bk must be a multiple of 16, got 8");
  /* 4*tm = 16 does not divide wm = 8 */
  c = def(WS_GEMMGEN_WARPTILE);
  c.wm = 8;
  expect_refused(c, "a warp's 4x8 lanes of 4x4 blocks must tile the warp tile: wm must be a "
                    "multiple of 4*tm = 16 and wn of 8*tn = 32, got 8x64");
  /* (128/32) * (128/64) warp tiles * 32 lanes = 256 threads */
  c = def(WS_GEMMGEN_WARPTILE);
  c.threads = 128;
  expect_refused(c, "threads must be 32 per warp tile: (bm/wm)*(bn/wn)*32 = 256, got 128");
}

Test(gemmgen_check, loads_divide_among_threads) {
  /* blocktile2d bk=512: 512 one-float chunks per A row, more than 256 threads */
  ws_gemmgen_cfg c = def(WS_GEMMGEN_BLOCKTILE2D);
  c.bk = 512;
  expect_refused(c, "the A tile (128 x 512 floats, in chunks of 1) does not divide evenly among "
                    "256 threads");
  /* smem 64x16, bk=32, 1024 threads: A passes (32 chunks per row, 32 rows
   * per pass), B has 16 chunks per row, so 64 rows per pass; 32 % 64 != 0 */
  c = def(WS_GEMMGEN_SMEM);
  c.bm = 64, c.bn = 16;
  expect_refused(c, "the B tile (32 x 16 floats, in chunks of 1) does not divide evenly among "
                    "1024 threads");
  /* blocktile1d bm=1024 bn=1 tm=128: (1024/128)*1 = 8 threads; A is 1024 x 8
   * floats = 8192 loads / 8 threads = 1024 per thread, over the limit of 64 */
  c = def(WS_GEMMGEN_BLOCKTILE1D);
  c.bm = 1024, c.bn = 1, c.tm = 128, c.threads = 8;
  expect_refused(c, "the A tile needs more than 64 loads per thread");
  /* mma bn=wn=8: (64/32)*(8/8)*32 = 64 threads; B has 16 k pairs and 2
   * 4-column chunks: 64/16 = 4 chunks per pass do not divide 2 */
  c = def(WS_GEMMGEN_MMA);
  c.bn = 8, c.wn = 8, c.threads = 64;
  expect_refused(c, "the B tile (32 x 8 floats, in 2x4 chunks) does not divide evenly among 64 "
                    "threads");
}
