/* gemmgen_check.c - which GEMM configs make a correct kernel.
 *
 * Design: every rule the planner and the emitter rely on is checked here
 * and refused with its reason, so neither ever fails on a checked config.
 * Device limits are not looked at here: gemmgen.c judges them on the plan's
 * own register count and shared-memory size. */
#include "models/kgen/gemmgen_int.h"

static bool pow2(uint32_t x) { return x && !(x & (x - 1)); }

#define REFUSE(...) return ws_ctx_fail(ctx, WS_ERR_INVALID, __VA_ARGS__)

static ws_status check_pow2(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  const struct {
    const char *name;
    uint32_t v;
    bool used;
  } f[] = {{"bm", c->bm, true},
           {"bn", c->bn, true},
           {"bk", c->bk, ws_gemmgen_uses_k_tiles(c->variant)},
           {"tm", c->tm, ws_gemmgen_uses_thread_tile(c->variant)},
           {"tn", c->tn, ws_gemmgen_uses_thread_tile(c->variant)},
           {"wm", c->wm, ws_gemmgen_uses_warp_tile(c->variant)},
           {"wn", c->wn, ws_gemmgen_uses_warp_tile(c->variant)},
           {"threads", c->threads, true}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (f[i].used && !pow2(f[i].v))
      REFUSE("%s=%u must be a power of two (the kernel splits thread indices with shifts)", f[i].name,
             f[i].v);
  return WS_OK;
}

static ws_status check_simple(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  if (c->threads != c->bm * c->bn)
    REFUSE("%s computes one output per thread: threads must be bm*bn = %u, got %u",
           ws_gemmgen_variant_name(c->variant), c->bm * c->bn, c->threads);
  return WS_OK;
}

/* Every thread loads the same number of chunks of each tile. */
static ws_status check_loads(ws_ctx *ctx, const ws_gemmgen_cfg *c, const char *what, uint32_t rows,
                             uint32_t cols, uint32_t chunk) {
  uint32_t cpr = cols / chunk;
  if (cpr == 0 || c->threads % cpr || rows % (c->threads / cpr))
    REFUSE("the %s tile (%u x %u floats, in chunks of %u) does not divide evenly among %u threads", what,
           rows, cols, chunk, c->threads);
  if ((rows * cpr) / c->threads > WS_GEMMGEN_MAX_PASSES)
    REFUSE("the %s tile needs more than %u loads per thread", what, WS_GEMMGEN_MAX_PASSES);
  return WS_OK;
}

/* mma copies B in chunks of 2 (k) x 4 (n), consecutive threads taking consecutive k pairs. */
static ws_status check_mma_b_loads(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  uint32_t pairs = c->bk / 2, chunks = c->bn / 4;
  if (chunks == 0 || c->threads % pairs || chunks % (c->threads / pairs))
    REFUSE("the B tile (%u x %u floats, in 2x4 chunks) does not divide evenly among %u threads", c->bk, c->bn,
           c->threads);
  return WS_OK;
}

static ws_status check_thread_tile(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  ws_gemmgen_variant v = c->variant;
  if (v == WS_GEMMGEN_SMEM && (c->tm != 1 || c->tn != 1))
    REFUSE("smem computes one output per thread: tm and tn must be 1, got %u and %u", c->tm, c->tn);
  if (v == WS_GEMMGEN_BLOCKTILE1D && c->tn != 1)
    REFUSE("blocktile1d blocks along rows only: tn must be 1, got %u", c->tn);
  if (c->tm > c->bm || c->tn > c->bn)
    REFUSE("the thread tile %ux%u is larger than the CTA tile %ux%u", c->tm, c->tn, c->bm, c->bn);
  if (v >= WS_GEMMGEN_VECTORIZED && (c->tm % 4 || c->tn % 4 || c->bk % 4))
    REFUSE("%s reads 128-bit fragments: tm, tn and bk must be multiples of 4, got %u, %u, %u",
           ws_gemmgen_variant_name(v), c->tm, c->tn, c->bk);
  if (!ws_gemmgen_uses_warp_tile(v) && c->threads != (c->bm / c->tm) * (c->bn / c->tn))
    REFUSE("threads must be (bm/tm)*(bn/tn) = %u (one thread per %ux%u block), got %u",
           (c->bm / c->tm) * (c->bn / c->tn), c->tm, c->tn, c->threads);
  return WS_OK;
}

static ws_status check_warp_tile(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  bool mma = c->variant == WS_GEMMGEN_MMA;
  if (c->bm % c->wm || c->bn % c->wn)
    REFUSE("the warp tile %ux%u does not divide the CTA tile %ux%u", c->wm, c->wn, c->bm, c->bn);
  if (mma && (c->wm % 16 || c->wn % 8))
    REFUSE("mma warp tiles are made of 16x8 HMMA tiles: wm must be a multiple of 16 and wn of 8, "
           "got %ux%u",
           c->wm, c->wn);
  if (mma && c->bk % 16) REFUSE("mma steps k by 16 (HMMA.16816): bk must be a multiple of 16, got %u", c->bk);
  if (!mma && (c->wm % (4 * c->tm) || c->wn % (8 * c->tn)))
    REFUSE("a warp's 4x8 lanes of %ux%u blocks must tile the warp tile: wm must be a multiple of "
           "4*tm = %u and wn of 8*tn = %u, got %ux%u",
           c->tm, c->tn, 4 * c->tm, 8 * c->tn, c->wm, c->wn);
  uint32_t want = (c->bm / c->wm) * (c->bn / c->wn) * 32;
  if (c->threads != want)
    REFUSE("threads must be 32 per warp tile: (bm/wm)*(bn/wn)*32 = %u, got %u", want, c->threads);
  return WS_OK;
}

ws_status ws_gemmgen_check_structure(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  if ((unsigned)c->variant >= WS_GEMMGEN_VARIANT_COUNT) REFUSE("unknown GEMM variant %d", (int)c->variant);
  if (c->epilogue & ~(uint32_t)WS_GEMMGEN_EPI_ALL) REFUSE("unknown epilogue flags 0x%x", c->epilogue);
  ws_status st = check_pow2(ctx, c);
  if (st != WS_OK) return st;
  if (c->bm > 1024 || c->bn > 1024 || c->bk > 1024 || c->threads > 1024)
    REFUSE("bm, bn, bk and threads must be at most 1024, got %u, %u, %u, %u", c->bm, c->bn, c->bk,
           c->threads);
  if (c->variant <= WS_GEMMGEN_COALESCED) return check_simple(ctx, c);
  if (c->variant != WS_GEMMGEN_MMA && (st = check_thread_tile(ctx, c)) != WS_OK) return st;
  if (ws_gemmgen_uses_warp_tile(c->variant) && (st = check_warp_tile(ctx, c)) != WS_OK) return st;
  uint32_t vw = c->variant >= WS_GEMMGEN_VECTORIZED ? 4 : 1;
  if ((st = check_loads(ctx, c, "A", c->bm, c->bk, vw)) != WS_OK) return st;
  if (c->variant == WS_GEMMGEN_MMA) return check_mma_b_loads(ctx, c);
  return check_loads(ctx, c, "B", c->bk, c->bn, vw);
}
