/* model.h - what the visualizer draws at one moment of a trace: the state
 * of every component at a cycle of a launch, replayed from the .wst file's
 * micro-op records (traces/wst.h), never from the simulator.
 *
 * Design: opening a launch decodes its chunks once into compact per-component
 * timelines (sorted spans), so a frame at any cycle is a set of binary
 * searches, and scrubbing back and forth costs no decoding. Memory is
 * bounded by the launch's records, never the whole file. */
#ifndef WS_VIZ_MODEL_H
#define WS_VIZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/core/config.h"
#include "traces/wst.h"

/* A warp slot's state at a cycle: what colours it. */
typedef enum ws_viz_warp {
  WS_VIZ_WARP_EMPTY = 0,   /* no resident warp in the slot */
  WS_VIZ_WARP_ISSUING = 1, /* issued an instruction this cycle */
  WS_VIZ_WARP_STALL0 = 2,  /* + stall reason r (the trace's names table, ws_wst_names) */
  WS_VIZ_WARP_DONE = 0xFF  /* finished, its CTA not yet retired */
} ws_viz_warp;

/* Something moving along a link at the cycle (a crossbar packet, a DRAM
 * burst, a PCIe burst, an L1/L2 fill): where from, where to, how far. */
typedef enum ws_viz_link {
  WS_VIZ_LINK_XBAR_REQ,  /* sm -> slice */
  WS_VIZ_LINK_XBAR_RESP, /* slice -> sm */
  WS_VIZ_LINK_DRAM,      /* channel <-> slice (slice = unit of the L2 that asked, or UINT32_MAX) */
  WS_VIZ_LINK_PCIE_H2D,
  WS_VIZ_LINK_PCIE_D2H,
  WS_VIZ_LINK_COUNT
} ws_viz_link;

typedef struct ws_viz_packet {
  uint8_t link;       /* ws_viz_link */
  uint8_t tagged;     /* carries the followed pixel */
  uint16_t sm;        /* WS_PROBE_NONE where it does not apply */
  uint16_t slice;     /* L2 slice (xbar), or channel (dram) */
  uint32_t bytes;
  uint64_t uop;
  uint64_t begin, end; /* cycles */
  float progress;      /* (cycle - begin) / (end - begin), 0..1 */
} ws_viz_packet;

typedef struct ws_viz_frame {
  uint32_t launch;
  uint64_t cycle;
  /* SMs: num_sms x warp_slots states, row per SM */
  uint32_t num_sms, warp_slots;
  uint8_t *warp;       /* ws_viz_warp */
  uint32_t *warp_pc;   /* pc of the warp's last issue (UINT32_MAX: none) */
  uint8_t *cta_busy;   /* num_sms x ctas_per_sm */
  uint32_t ctas_per_sm;
  uint32_t *smem_banks;   /* num_sms: banks touched by a shared access in progress (mask) */
  uint32_t *smem_wavefronts; /* num_sms: its wavefronts (0: none) */
  uint32_t *rf_conflict;  /* num_sms x subpartitions: extra operand cycles in progress */
  uint32_t subpartitions;
  uint8_t *tensor_busy;   /* num_sms x subpartitions: an HMMA in flight */
  /* L1 per SM and L2 per slice: lookups and hits in the window [cycle - window, cycle] */
  uint32_t window_cycles;
  uint32_t *l1_lookups, *l1_hits, *l1_set_touched; /* l1_set_touched: last set looked up (UINT32_MAX) */
  uint32_t num_slices;
  uint32_t *l2_lookups, *l2_hits;
  /* HBM: channels x banks_per_channel open rows (UINT32_MAX: closed) and banks busy now */
  uint32_t channels, banks_per_channel;
  uint32_t *bank_row;
  uint8_t *bank_busy;
  /* moving things */
  ws_viz_packet *packets;
  size_t npackets;
  /* live counters */
  uint32_t active_warps;
  double l1_hit_pct, l2_hit_pct;            /* in the window; < 0 when no lookups */
  double dram_gbps, dram_peak_gbps;         /* in the window */
  double xbar_gbps, xbar_peak_gbps;
} ws_viz_frame;

typedef struct ws_viz_model ws_viz_model;

/* The model of an open trace (the reader must outlive it). */
ws_status ws_viz_model_create(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model **out);
void ws_viz_model_destroy(ws_viz_model *m);
const ws_gpu_cfg *ws_viz_model_cfg(const ws_viz_model *m);
/* Decodes launch `launch`'s records (once; switching launches frees the
 * previous one's). A damaged chunk is an error naming its byte. */
ws_status ws_viz_model_load(ws_viz_model *m, uint32_t launch);
/* The state at `cycle` of the loaded launch, into *f (owned by the model,
 * valid until the next call). */
ws_status ws_viz_model_frame(ws_viz_model *m, uint64_t cycle, uint32_t window_cycles, const ws_viz_frame **f);
/* Next cycle after `cycle` at which anything changes (a record begins or
 * ends), UINT64_MAX at the launch's end: "step one cycle" skips idle time. */
uint64_t ws_viz_model_next_change(const ws_viz_model *m, uint64_t cycle);
/* The cycle the given warp slot of an SM issues its next instruction after `cycle`. */
uint64_t ws_viz_model_next_issue(const ws_viz_model *m, uint32_t sm, uint32_t warp, uint64_t cycle);

#endif
