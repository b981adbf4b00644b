/* palette.h - the visualizer's fixed colours: one per component state, one
 * per stall reason, and the integer mixes the renderer shades with.
 *
 * Design: colours are a const table indexed by an enum, so the renderer,
 * the legend and the tests that probe pixels name the same colour and a
 * picture never depends on anything but its frame. Mixing is integer
 * arithmetic, so shades are the same on every machine. */
#ifndef WS_VIZ_PALETTE_H
#define WS_VIZ_PALETTE_H

#include <stdint.h>

typedef struct ws_viz_rgb {
  uint8_t r, g, b;
} ws_viz_rgb;

typedef enum ws_viz_colour {
  WS_VIZ_COL_BG,            /* canvas */
  WS_VIZ_COL_HEADER,        /* header strip */
  WS_VIZ_COL_PANEL,         /* counters and legend */
  WS_VIZ_COL_BOX,           /* a component's body (SM, host, channel, partition) */
  WS_VIZ_COL_FRAME,         /* a component's outline */
  WS_VIZ_COL_TEXT,          /* labels and values */
  WS_VIZ_COL_TEXT_DIM,      /* captions */
  WS_VIZ_COL_LINK,          /* the PCIe lanes, the DRAM band, the crossbar band */
  WS_VIZ_COL_WARP_EMPTY,    /* no resident warp */
  WS_VIZ_COL_WARP_ISSUING,  /* issued this cycle */
  WS_VIZ_COL_WARP_DONE,     /* finished, its CTA not retired */
  WS_VIZ_COL_CTA_IDLE,      /* CTA slot free */
  WS_VIZ_COL_CTA_BUSY,      /* CTA slot holding a CTA */
  WS_VIZ_COL_CTA_UNUSED,    /* beyond the launch's CTAs per SM */
  WS_VIZ_COL_SMEM_IDLE,     /* shared-memory bank untouched */
  WS_VIZ_COL_SMEM_TOUCHED,  /* touched by the access in progress (first wavefront) */
  WS_VIZ_COL_SMEM_CONFLICT, /* touched, the access needing more wavefronts */
  WS_VIZ_COL_RF_IDLE,       /* register-file bank */
  WS_VIZ_COL_RF_CONFLICT,   /* its sub-partition's operand reads conflict */
  WS_VIZ_COL_TENSOR_IDLE,
  WS_VIZ_COL_TENSOR_BUSY, /* an HMMA in flight */
  WS_VIZ_COL_CACHE_IDLE,  /* L1 set or L2 slice without lookups in the window */
  WS_VIZ_COL_CACHE_HIT,   /* all lookups hit (shades run to CACHE_MISS) */
  WS_VIZ_COL_CACHE_MISS,  /* all lookups missed */
  WS_VIZ_COL_L1_SET_LAST, /* the L1 set looked up last */
  WS_VIZ_COL_ACTIVITY,    /* a slice's lookups bar */
  WS_VIZ_COL_BANK_CLOSED, /* HBM bank, no open row */
  WS_VIZ_COL_BANK_OPEN,   /* HBM bank with a row open */
  WS_VIZ_COL_BANK_BUSY,   /* HBM bank serving a command now */
  WS_VIZ_COL_PKT_REQ,     /* crossbar request, SM -> slice */
  WS_VIZ_COL_PKT_RESP,    /* crossbar response, slice -> SM */
  WS_VIZ_COL_PKT_DRAM,    /* channel <-> slice */
  WS_VIZ_COL_PKT_PCIE,    /* host <-> device */
  WS_VIZ_COL_PKT_IMAGE,   /* a packet of the input image (a named range, ws_runtime_tensor) */
  WS_VIZ_COL_PKT_WEIGHTS, /* of a weight tensor */
  WS_VIZ_COL_PKT_ACTS,    /* of an activation */
  WS_VIZ_COL_PKT_SCORES,  /* of the attention scores */
  WS_VIZ_COL_PKT_TAGGED,  /* a packet carrying the followed pixel */
  WS_VIZ_COL_GLOW,        /* the halo around it (drawn at half alpha) */
  WS_VIZ_COL_BAR_BG,      /* counter bar track */
  WS_VIZ_COL_BAR,         /* counter bar */
  WS_VIZ_COL_COUNT
} ws_viz_colour;

/* Distinct stall colours; reason r uses colour r mod this. */
#define WS_VIZ_STALL_COLOURS 16u

ws_viz_rgb ws_viz_palette(ws_viz_colour c);
ws_viz_rgb ws_viz_palette_stall(uint32_t reason);
/* A warp slot's colour by its ws_viz_warp state (viz/model.h). */
ws_viz_rgb ws_viz_palette_warp(uint8_t state);
/* A packet's colour index (a ws_viz_colour) by its link and its tensor
 * (ws_viz_packet, a ws_viz_tensor): the tensor's colour for the four classes, else the
 * link's (request, response, DRAM, PCIe) for class other and unnamed data. */
ws_viz_colour ws_viz_palette_packet(uint8_t link, uint8_t tensor);
/* a + (b - a) x num / den per channel, rounded toward a; den 0 gives a. */
ws_viz_rgb ws_viz_palette_mix(ws_viz_rgb a, ws_viz_rgb b, uint64_t num, uint64_t den);
/* An L1 or L2 by its window's lookups and hits: CACHE_IDLE without
 * lookups, else CACHE_MISS mixed toward CACHE_HIT by the hit fraction. */
ws_viz_rgb ws_viz_palette_cache(uint32_t lookups, uint32_t hits);

#endif
