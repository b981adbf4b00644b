/* layout.h - where the visualizer draws every component of a GPU preset on a
 * canvas: host RAM and the PCIe link, HBM channels and their banks, L2
 * slices by partition, the crossbar, and every SM with its warp slots, CTA
 * slots, register-file banks, tensor cores, shared-memory banks and L1 sets.
 *
 * Design: pure integer geometry from the config and the canvas size, no
 * SDL, so the renderer, hover tooltips and tests ask the same question
 * ("where is warp slot 5 of SM 1?", "what is under pixel (x, y)?") and get
 * the same answer. Every SM has the same size, so an SM's parts are stored
 * once relative to its corner (a template) and placed by adding the SM's
 * origin: 132 SMs cost one template, and a rectangle is one addition.
 * Rectangles are half-open (x <= px < x + w), and the parts of one kind
 * never overlap. */
#ifndef WS_VIZ_LAYOUT_H
#define WS_VIZ_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"

typedef struct ws_viz_rect {
  int32_t x, y, w, h;
} ws_viz_rect;

/* What a view shows. */
typedef enum ws_viz_zoom {
  WS_VIZ_ZOOM_GPU,  /* the whole GPU */
  WS_VIZ_ZOOM_SM,   /* one SM filling the canvas ("sm:N") */
  WS_VIZ_ZOOM_SMEM, /* one SM's shared-memory banks, wavefronts stacked ("smem:N") */
  WS_VIZ_ZOOM_COUNT
} ws_viz_zoom;

typedef struct ws_viz_view {
  ws_viz_zoom zoom;
  uint32_t sm; /* the SM of WS_VIZ_ZOOM_SM and WS_VIZ_ZOOM_SMEM */
} ws_viz_view;

/* The components, each with an index: per-SM parts (WS_VIZ_PART_SM and after)
 * are also numbered by SM. The index of each part is in its comment. */
typedef enum ws_viz_part {
  WS_VIZ_PART_NONE,
  WS_VIZ_PART_HEADER,       /* 0: kernel, launch and cycle line */
  WS_VIZ_PART_PANEL,        /* 0: live counters and the legend */
  WS_VIZ_PART_HOST,         /* 0: host RAM */
  WS_VIZ_PART_PCIE,         /* 0: host -> device lane, 1: device -> host lane */
  WS_VIZ_PART_COPY_ENGINE,  /* 0: host -> device, 1: device -> host */
  WS_VIZ_PART_HBM,          /* 0: the channels' area, a caption line on top where it fits */
  WS_VIZ_PART_HBM_CHANNEL,  /* channel */
  WS_VIZ_PART_HBM_BANK,     /* channel x hbm.banks_per_channel + bank */
  WS_VIZ_PART_DRAM_LINK,    /* 0: the band between the channels and the L2 */
  WS_VIZ_PART_L2_PARTITION, /* partition */
  WS_VIZ_PART_L2_SLICE,     /* slice (in partition slice x partitions / slices) */
  WS_VIZ_PART_XBAR,         /* 0: the crossbar band between the L2 and the SMs */
  WS_VIZ_PART_SM,           /* 0 */
  WS_VIZ_PART_SUBPART,      /* sub-partition */
  WS_VIZ_PART_WARP_SLOT,    /* warp slot (slot s sits in sub-partition s mod subpartitions) */
  WS_VIZ_PART_RF_BANK,      /* sub-partition x regfile.banks_per_subpartition + bank */
  WS_VIZ_PART_TENSOR,       /* sub-partition */
  WS_VIZ_PART_CTAS,         /* 0: the CTA slots' row */
  WS_VIZ_PART_CTA_SLOT,     /* CTA slot (sm.max_ctas_per_sm of them) */
  WS_VIZ_PART_SMEM,         /* 0: the shared-memory banks' row */
  WS_VIZ_PART_SMEM_BANK,    /* bank */
  WS_VIZ_PART_SMEM_WAVE,    /* zoom smem only: wavefront x smem.banks + bank */
  WS_VIZ_PART_L1,           /* 0: the L1 strip */
  WS_VIZ_PART_L1_SET,       /* set (geom.l1_sets of them) */
  WS_VIZ_PART_COUNT
} ws_viz_part;

/* Wavefronts the smem zoom stacks per bank: a 32-lane access touches one
 * bank at most 32 times. */
#define WS_VIZ_SMEM_MAX_WAVES 32u
/* Canvas bounds: below the minimum the labels and cells stop fitting. */
#define WS_VIZ_CANVAS_MIN_W 320
#define WS_VIZ_CANVAS_MIN_H 200
#define WS_VIZ_CANVAS_MAX_SIDE 8192

typedef struct ws_viz_layout ws_viz_layout;

/* Parses "gpu", "sm:N" or "smem:N" for `cfg`; an SM out of range is refused
 * ("view 'sm:9': the GPU has 2 SMs (0..1)"). */
ws_status ws_viz_view_parse(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *text, ws_viz_view *out);

/* The layout of `view` for a resolved config on a width x height canvas.
 * Refused: a canvas outside [WS_VIZ_CANVAS_MIN_*, WS_VIZ_CANVAS_MAX_SIDE],
 * an SM out of range, or a GPU whose cells would be under one pixel. */
ws_status ws_viz_layout_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, int32_t width, int32_t height,
                               ws_viz_view view, ws_viz_layout **out);
void ws_viz_layout_destroy(ws_viz_layout *l);

const ws_gpu_cfg *ws_viz_layout_cfg(const ws_viz_layout *l);
ws_viz_view ws_viz_layout_view(const ws_viz_layout *l);
void ws_viz_layout_size(const ws_viz_layout *l, int32_t *width, int32_t *height);
/* The text height the layout left room for, in pixels (labels, header). */
int32_t ws_viz_layout_text_px(const ws_viz_layout *l);
/* Whether the SM's regions (sub-partitions, CTA slots, shared memory, L1)
 * keep a caption line at their top (the zoomed views), and whether each SM
 * keeps a title line ("SM 3") above its parts. */
bool ws_viz_layout_captions(const ws_viz_layout *l);
bool ws_viz_layout_sm_titles(const ws_viz_layout *l);

/* How many parts of a kind there are (per SM for per-SM kinds), whether or
 * not this view shows them. */
uint32_t ws_viz_layout_count(const ws_viz_layout *l, ws_viz_part part);
/* Whether parts of this kind are numbered by SM too. */
bool ws_viz_part_per_sm(ws_viz_part part);
/* Where part `index` (of SM `sm` for per-SM kinds; `sm` is ignored
 * otherwise) is drawn: false when the view does not show it or the index is
 * out of range. */
bool ws_viz_layout_rect(const ws_viz_layout *l, ws_viz_part part, uint32_t sm, uint32_t index,
                        ws_viz_rect *out);

/* What is at a canvas pixel: the innermost part drawn there. */
typedef struct ws_viz_hit {
  ws_viz_part part; /* WS_VIZ_PART_NONE: background */
  uint32_t sm, index;
} ws_viz_hit;
bool ws_viz_layout_hit(const ws_viz_layout *l, int32_t x, int32_t y, ws_viz_hit *out);

/* "warp slot", "HBM bank", ... */
const char *ws_viz_part_name(ws_viz_part part);
/* Writes a one-line description of a hit for a tooltip ("SM 3 warp slot 17
 * (sub-partition 1)"), truncated to fit. */
void ws_viz_hit_describe(const ws_viz_layout *l, const ws_viz_hit *hit, char *buf, size_t buf_bytes);

static inline bool ws_viz_rect_contains(ws_viz_rect r, int32_t x, int32_t y) {
  return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

#endif
