/* palette.c - the visualizer's colour tables (palette.h).
 *
 * A dark background lets lit cells read at one or two pixels; states that
 * mean "work is happening" are saturated, idle ones near the background.
 * The stall colours are twelve well-separated hues in the order of the
 * simulator's reasons (selected, not selected, long scoreboard, short
 * scoreboard, wait, bank conflict, math pipe, LSU throttle, dispatch,
 * barrier, depbar, no instruction), then four spares; none is the issuing
 * green. Packets of the four tensor classes take hues the link colours
 * (light blue, light green, orange, lilac) and the followed pixel's pale
 * yellow and its glow do not: magenta image, violet weights, teal
 * activations, red scores; bright, as everything moving is. */
#include "viz/palette.h"

#include "viz/model.h"

static const ws_viz_rgb colours[WS_VIZ_COL_COUNT] = {
    [WS_VIZ_COL_BG] = {0x12, 0x15, 0x1a},
    [WS_VIZ_COL_HEADER] = {0x1f, 0x26, 0x30},
    [WS_VIZ_COL_PANEL] = {0x18, 0x1c, 0x22},
    [WS_VIZ_COL_BOX] = {0x22, 0x28, 0x31},
    [WS_VIZ_COL_FRAME] = {0x45, 0x50, 0x5e},
    [WS_VIZ_COL_TEXT] = {0xe6, 0xe9, 0xee},
    [WS_VIZ_COL_TEXT_DIM] = {0x8c, 0x96, 0xa3},
    [WS_VIZ_COL_LINK] = {0x1a, 0x20, 0x29},
    [WS_VIZ_COL_WARP_EMPTY] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_WARP_ISSUING] = {0x00, 0xe6, 0x76},
    [WS_VIZ_COL_WARP_DONE] = {0x5c, 0x6b, 0x7a},
    [WS_VIZ_COL_CTA_IDLE] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_CTA_BUSY] = {0x4f, 0xc3, 0xf7},
    [WS_VIZ_COL_CTA_UNUSED] = {0x1b, 0x1f, 0x25},
    [WS_VIZ_COL_SMEM_IDLE] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_SMEM_TOUCHED] = {0xff, 0xd5, 0x4f},
    [WS_VIZ_COL_SMEM_CONFLICT] = {0xff, 0x57, 0x22},
    [WS_VIZ_COL_RF_IDLE] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_RF_CONFLICT] = {0xff, 0x40, 0x81},
    [WS_VIZ_COL_TENSOR_IDLE] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_TENSOR_BUSY] = {0xb3, 0x88, 0xff},
    [WS_VIZ_COL_CACHE_IDLE] = {0x30, 0x37, 0x41},
    [WS_VIZ_COL_CACHE_HIT] = {0x66, 0xbb, 0x6a},
    [WS_VIZ_COL_CACHE_MISS] = {0xe5, 0x39, 0x35},
    [WS_VIZ_COL_L1_SET_LAST] = {0xff, 0xff, 0xff},
    [WS_VIZ_COL_ACTIVITY] = {0xff, 0xff, 0xff},
    [WS_VIZ_COL_BANK_CLOSED] = {0x2a, 0x30, 0x39},
    [WS_VIZ_COL_BANK_OPEN] = {0xff, 0xb3, 0x00},
    [WS_VIZ_COL_BANK_BUSY] = {0xff, 0xf1, 0x76},
    [WS_VIZ_COL_PKT_REQ] = {0x29, 0xb6, 0xf6},
    [WS_VIZ_COL_PKT_RESP] = {0x9c, 0xcc, 0x65},
    [WS_VIZ_COL_PKT_DRAM] = {0xff, 0xa7, 0x26},
    [WS_VIZ_COL_PKT_PCIE] = {0xce, 0x93, 0xd8},
    [WS_VIZ_COL_PKT_IMAGE] = {0xff, 0x4f, 0xe0},
    [WS_VIZ_COL_PKT_WEIGHTS] = {0x8c, 0x6b, 0xff},
    [WS_VIZ_COL_PKT_ACTS] = {0x00, 0xe5, 0xc8},
    [WS_VIZ_COL_PKT_SCORES] = {0xff, 0x45, 0x45},
    [WS_VIZ_COL_PKT_TAGGED] = {0xff, 0xff, 0x8d},
    [WS_VIZ_COL_GLOW] = {0xff, 0xea, 0x00},
    [WS_VIZ_COL_BAR_BG] = {0x2a, 0x30, 0x39},
    [WS_VIZ_COL_BAR] = {0x4f, 0xc3, 0xf7},
};

static const ws_viz_rgb stalls[WS_VIZ_STALL_COLOURS] = {
    {0x7f, 0xc9, 0x7f}, /* selected */
    {0xbe, 0xae, 0xd4}, /* not selected */
    {0xe3, 0x1a, 0x1c}, /* long scoreboard */
    {0xfd, 0x8d, 0x3c}, /* short scoreboard */
    {0xfd, 0xd8, 0x35}, /* wait */
    {0xd8, 0x1b, 0x60}, /* bank conflict */
    {0x8e, 0x24, 0xaa}, /* math pipe */
    {0x8d, 0x6e, 0x63}, /* LSU throttle */
    {0x26, 0xc6, 0xda}, /* dispatch */
    {0x1e, 0x88, 0xe5}, /* barrier */
    {0x5c, 0x6b, 0xc0}, /* depbar */
    {0x9e, 0x9e, 0x9e}, /* no instruction */
    {0xf4, 0x8f, 0xb1}, {0xa1, 0x88, 0x7f}, {0x80, 0xcb, 0xc4}, {0xc5, 0xe1, 0xa5},
};

ws_viz_rgb ws_viz_palette(ws_viz_colour c) {
  return (unsigned)c < WS_VIZ_COL_COUNT ? colours[c] : colours[WS_VIZ_COL_BG];
}

ws_viz_rgb ws_viz_palette_stall(uint32_t reason) { return stalls[reason % WS_VIZ_STALL_COLOURS]; }

ws_viz_rgb ws_viz_palette_warp(uint8_t state) {
  switch (state) {
  case WS_VIZ_WARP_EMPTY: return colours[WS_VIZ_COL_WARP_EMPTY];
  case WS_VIZ_WARP_ISSUING: return colours[WS_VIZ_COL_WARP_ISSUING];
  case WS_VIZ_WARP_DONE: return colours[WS_VIZ_COL_WARP_DONE];
  default: return ws_viz_palette_stall((uint32_t)state - WS_VIZ_WARP_STALL0);
  }
}

static const ws_viz_colour link_colours[WS_VIZ_LINK_COUNT] = {
    [WS_VIZ_LINK_XBAR_REQ] = WS_VIZ_COL_PKT_REQ,  [WS_VIZ_LINK_XBAR_RESP] = WS_VIZ_COL_PKT_RESP,
    [WS_VIZ_LINK_DRAM] = WS_VIZ_COL_PKT_DRAM,     [WS_VIZ_LINK_PCIE_H2D] = WS_VIZ_COL_PKT_PCIE,
    [WS_VIZ_LINK_PCIE_D2H] = WS_VIZ_COL_PKT_PCIE,
};

static const ws_viz_colour tensor_colours[WS_VIZ_TENSOR_COUNT] = {
    [WS_VIZ_TENSOR_NONE] = WS_VIZ_COL_COUNT, /* the link's */
    [WS_VIZ_TENSOR_IMAGE] = WS_VIZ_COL_PKT_IMAGE,      [WS_VIZ_TENSOR_WEIGHTS] = WS_VIZ_COL_PKT_WEIGHTS,
    [WS_VIZ_TENSOR_ACTIVATIONS] = WS_VIZ_COL_PKT_ACTS, [WS_VIZ_TENSOR_SCORES] = WS_VIZ_COL_PKT_SCORES,
    [WS_VIZ_TENSOR_OTHER] = WS_VIZ_COL_COUNT,
};

ws_viz_colour ws_viz_palette_packet(uint8_t link, uint8_t tensor) {
  if (tensor < WS_VIZ_TENSOR_COUNT && tensor_colours[tensor] != WS_VIZ_COL_COUNT)
    return tensor_colours[tensor];
  return link < WS_VIZ_LINK_COUNT ? link_colours[link] : WS_VIZ_COL_PKT_REQ;
}

static uint8_t mix1(uint8_t a, uint8_t b, uint64_t num, uint64_t den) {
  return (uint8_t)((int64_t)a + ((int64_t)b - a) * (int64_t)num / (int64_t)den);
}

ws_viz_rgb ws_viz_palette_mix(ws_viz_rgb a, ws_viz_rgb b, uint64_t num, uint64_t den) {
  if (den == 0) return a;
  if (num > den) num = den;
  return (ws_viz_rgb){mix1(a.r, b.r, num, den), mix1(a.g, b.g, num, den), mix1(a.b, b.b, num, den)};
}

ws_viz_rgb ws_viz_palette_cache(uint32_t lookups, uint32_t hits) {
  if (lookups == 0) return colours[WS_VIZ_COL_CACHE_IDLE];
  return ws_viz_palette_mix(colours[WS_VIZ_COL_CACHE_MISS], colours[WS_VIZ_COL_CACHE_HIT], hits, lookups);
}
