/* gemmgen_cfg.c - the GEMM generator's configs: variant names, defaults,
 * the one-line description, and which fields each variant uses.
 *
 * Design: a config is plain data; everything here is a pure function of it,
 * so the checker, the planner and the emitter share one reading of the
 * fields. */
#include <stdio.h>
#include <string.h>

#include "models/kgen/gemmgen_int.h"

static const char *const variant_names[WS_GEMMGEN_VARIANT_COUNT] = {
    "naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile", "async", "mma"};

/* What each step changes, written at the top of its kernel. */
static const char *const variant_notes[WS_GEMMGEN_VARIANT_COUNT] = {
    "One thread per output. Consecutive threads take consecutive ROWS of C, so\n"
    "// a warp's loads of A touch 32 different rows (32 lines per load): uncoalesced.",
    "One thread per output. Consecutive threads take consecutive COLUMNS of C:\n"
    "// a warp reads one value of A (broadcast) and 32 adjacent floats of B.",
    "The CTA stages a bm x bk tile of A and a bk x bn tile of B in shared memory;\n"
    "// each element loaded from global memory is then used by bn (or bm) threads.",
    "Each thread computes tm outputs of one column: one value of B read from\n"
    "// shared memory feeds tm FFMAs (1-D register blocking).",
    "Each thread computes a tm x tn block: tm + tn shared-memory reads feed\n"
    "// tm * tn FFMAs (2-D register blocking, an outer product per k).",
    "As blocktile2d, with 128-bit global loads, A stored transposed in shared\n"
    "// memory (As[k][m]) so fragments of A and B are read with LDS.128.",
    "Warps own wm x wn tiles of C; inside a warp, lanes 8 apart read adjacent\n"
    "// 16-byte chunks of B, so a fragment read needs no extra wavefronts.",
    "As warptile, but tiles are copied with LDGSTS into two shared-memory stages:\n"
    "// the copy of tile k+1 runs while tile k is multiplied (DEPBAR waits).",
    "Tensor cores: A and B are converted to binary16 while staged in shared memory,\n"
    "// stored in fragment order (one LDS.128 / LDS.64 per fragment), and each warp\n"
    "// issues HMMA.16816 (16x8x16) with fp32 accumulators. The next tile is loaded\n"
    "// into registers while the current one is multiplied."};

const char *ws_gemmgen_variant_name(ws_gemmgen_variant v) {
  return (unsigned)v < WS_GEMMGEN_VARIANT_COUNT ? variant_names[v] : "?";
}

ws_status ws_gemmgen_variant_parse(ws_ctx *ctx, const char *name, ws_gemmgen_variant *out) {
  for (unsigned i = 0; i < WS_GEMMGEN_VARIANT_COUNT; i++)
    if (name && strcmp(name, variant_names[i]) == 0) {
      *out = (ws_gemmgen_variant)i;
      return WS_OK;
    }
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "unknown GEMM variant '%s' (expected naive, coalesced, smem, blocktile1d, "
                     "blocktile2d, vectorized, warptile, async or mma)",
                     name ? name : "(null)");
}

/* The default config of each variant: the tile sizes docs/kernels.md
 * measures; fields a variant does not use stay 0 (tm, tn: 1). */
static const ws_gemmgen_cfg defaults[WS_GEMMGEN_VARIANT_COUNT] = {
    [WS_GEMMGEN_NAIVE] = {.bm = 32, .bn = 32, .bk = 1, .tm = 1, .tn = 1, .threads = 1024},
    [WS_GEMMGEN_COALESCED] = {.bm = 32, .bn = 32, .bk = 1, .tm = 1, .tn = 1, .threads = 1024},
    [WS_GEMMGEN_SMEM] = {.bm = 32, .bn = 32, .bk = 32, .tm = 1, .tn = 1, .threads = 1024},
    [WS_GEMMGEN_BLOCKTILE1D] = {.bm = 64, .bn = 64, .bk = 8, .tm = 8, .tn = 1, .threads = 512},
    [WS_GEMMGEN_BLOCKTILE2D] = {.bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .threads = 256},
    [WS_GEMMGEN_VECTORIZED] = {.bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8, .threads = 256},
    [WS_GEMMGEN_WARPTILE] =
        {.bm = 128, .bn = 128, .bk = 8, .tm = 4, .tn = 4, .wm = 32, .wn = 64, .threads = 256},
    [WS_GEMMGEN_ASYNC] =
        {.bm = 128, .bn = 128, .bk = 16, .tm = 4, .tn = 4, .wm = 32, .wn = 64, .threads = 256},
    [WS_GEMMGEN_MMA] = {.bm = 64, .bn = 64, .bk = 32, .tm = 1, .tn = 1, .wm = 32, .wn = 32, .threads = 128},
};

ws_gemmgen_cfg ws_gemmgen_defaults(ws_gemmgen_variant v) {
  ws_gemmgen_cfg c = (unsigned)v < WS_GEMMGEN_VARIANT_COUNT ? defaults[v] : defaults[WS_GEMMGEN_NAIVE];
  c.variant = v;
  return c;
}

uint32_t ws_gemmgen_implied_threads(const ws_gemmgen_cfg *g) {
  switch (g->variant) {
  case WS_GEMMGEN_NAIVE:
  case WS_GEMMGEN_COALESCED:
  case WS_GEMMGEN_SMEM: return g->bm * g->bn;
  case WS_GEMMGEN_WARPTILE:
  case WS_GEMMGEN_ASYNC:
  case WS_GEMMGEN_MMA: return g->wm && g->wn ? (g->bm / g->wm) * (g->bn / g->wn) * 32 : 0;
  default: return g->tm && g->tn ? (g->bm / g->tm) * (g->bn / g->tn) : 0;
  }
}

bool ws_gemmgen_uses_k_tiles(ws_gemmgen_variant v) { return v >= WS_GEMMGEN_SMEM; }
bool ws_gemmgen_uses_thread_tile(ws_gemmgen_variant v) {
  return v >= WS_GEMMGEN_BLOCKTILE1D && v != WS_GEMMGEN_MMA;
}
bool ws_gemmgen_uses_warp_tile(ws_gemmgen_variant v) { return v >= WS_GEMMGEN_WARPTILE; }

bool ws_gemmgen_uses_tile(ws_gemmgen_variant v, uint32_t field) {
  switch (field) {
  case 2: return ws_gemmgen_uses_k_tiles(v);
  case 3:
  case 4: return ws_gemmgen_uses_thread_tile(v);
  case 5:
  case 6: return ws_gemmgen_uses_warp_tile(v);
  default: return field < WS_GEMMGEN_TILE_FIELDS;
  }
}

void ws_gemmgen_describe(const ws_gemmgen_cfg *c, char *buf, size_t buf_bytes) {
  int n = snprintf(buf, buf_bytes, "%s bm=%u bn=%u", ws_gemmgen_variant_name(c->variant), c->bm, c->bn);
  size_t len = n > 0 ? (size_t)n : 0;
#define MORE(...)                                                                                            \
  do {                                                                                                       \
    if (len < buf_bytes) {                                                                                   \
      int w = snprintf(buf + len, buf_bytes - len, __VA_ARGS__);                                             \
      len += w > 0 ? (size_t)w : 0;                                                                          \
    }                                                                                                        \
  } while (0)
  if (ws_gemmgen_uses_k_tiles(c->variant)) MORE(" bk=%u", c->bk);
  if (ws_gemmgen_uses_thread_tile(c->variant)) MORE(" tm=%u tn=%u", c->tm, c->tn);
  if (ws_gemmgen_uses_warp_tile(c->variant)) MORE(" wm=%u wn=%u", c->wm, c->wn);
  MORE(" threads=%u", c->threads);
  if (c->epilogue & WS_GEMMGEN_EPI_BIAS) MORE("+bias");
  if (c->epilogue & WS_GEMMGEN_EPI_GELU) MORE("+gelu");
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) MORE("+residual");
#undef MORE
}

const char *ws_gemmgen_variant_note(ws_gemmgen_variant v) {
  return (unsigned)v < WS_GEMMGEN_VARIANT_COUNT ? variant_notes[v] : "";
}

uint32_t ws_gemmgen_ilog2(uint32_t x) {
  uint32_t r = 0;
  while (x > 1) x >>= 1, r++;
  return r;
}
