/* model.h - what the visualizer draws at one moment of a trace: the state
 * of every component at a cycle of a launch, replayed from the .wst file's
 * micro-op records (traces/wst.h), never from the simulator.
 *
 * Design: loading a launch decodes its chunks once into compact
 * per-component timelines, each sorted by begin (records arrive unsorted,
 * docs/traces.md): per warp slot its spans (an issue is one cycle at its
 * begin; stall and depbar spans as recorded), per CTA slot its residencies,
 * per HBM bank its commands' rows, per L1 and L2 the begin cycles of its
 * lookups with a running count of hits, and for the records that overlap
 * (shared-memory accesses, operand-bank conflicts, HMMAs in flight,
 * crossbar packets, DRAM bursts) an interval set: spans grouped by the
 * power of two of their length, so a cycle's covering spans are found by a
 * binary search per group and a walk back over at most twice that length.
 * A frame is then a set of binary searches, and scrubbing back and forth
 * costs no decoding. Memory is a few dozen bytes per record of the loaded
 * launch, never the whole file. A damaged chunk is the cursor's error,
 * naming its byte; nothing in a record is trusted (a unit, SM or warp beyond
 * the config is skipped and counted). */
#ifndef WS_VIZ_MODEL_H
#define WS_VIZ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "traces/wst.h"

/* A warp slot's state at a cycle: what colours it. */
typedef enum ws_viz_warp {
  WS_VIZ_WARP_EMPTY = 0,         /* no resident warp in the slot */
  WS_VIZ_WARP_ISSUING = 1,       /* issued an instruction this cycle */
  WS_VIZ_WARP_STALL0 = 2,        /* + stall reason r (the trace's names table, ws_wst_names); a depbar
                                    wait is the reason named "depbar"; reasons beyond 251 show as 251 */
  WS_VIZ_WARP_UNRECORDED = 0xFE, /* resident, not known to be finished, and no record covers the
                                    cycle (a trace recorded with a cycle window) */
  WS_VIZ_WARP_DONE = 0xFF        /* finished (its last record in the CTA is an issue of EXIT), its CTA
                                    not yet retired */
} ws_viz_warp;

/* Something moving along a link at the cycle: where from, where to, how
 * far. Launch frames hold crossbar packets and DRAM bursts; PCIe bursts
 * are host records (nanoseconds on the runtime's timeline, outside every
 * launch), so no launch frame holds one. */
typedef enum ws_viz_link {
  WS_VIZ_LINK_XBAR_REQ,  /* sm -> slice */
  WS_VIZ_LINK_XBAR_RESP, /* slice -> sm */
  WS_VIZ_LINK_DRAM,      /* channel <-> slice: the burst of a DRAM command */
  WS_VIZ_LINK_PCIE_H2D,
  WS_VIZ_LINK_PCIE_D2H,
  WS_VIZ_LINK_COUNT
} ws_viz_link;

/* A packet's tensor: the class of the named range (ws_wst_regions) that
 * holds its address, NONE when none does. NONE is 0 so that a packet built
 * without one is unnamed; the others are ws_runtime_tensor + 1. */
typedef enum ws_viz_tensor {
  WS_VIZ_TENSOR_NONE,
  WS_VIZ_TENSOR_IMAGE,
  WS_VIZ_TENSOR_WEIGHTS,
  WS_VIZ_TENSOR_ACTIVATIONS,
  WS_VIZ_TENSOR_SCORES,
  WS_VIZ_TENSOR_OTHER,
  WS_VIZ_TENSOR_COUNT
} ws_viz_tensor;
#define WS_VIZ_NO_REGION UINT32_MAX

typedef struct ws_viz_packet { /* fields ordered so that it packs into 56 bytes */
  uint8_t link;                /* ws_viz_link */
  uint8_t tagged;              /* carries the followed pixel */
  uint8_t write;               /* DRAM: a write burst */
  uint8_t tensor;              /* ws_viz_tensor of its range */
  uint16_t sm;                 /* the SM end (crossbar); WS_PROBE_NONE for DRAM */
  uint16_t slice;              /* the L2 slice end: the crossbar's, or the slice the DRAM line maps to */
  uint16_t channel;            /* DRAM: the HBM channel; WS_PROBE_NONE for the crossbar */
  uint32_t bytes;              /* crossbar: the packet's; DRAM: the command's */
  uint32_t region;             /* index of that range (ws_viz_model_region), or WS_VIZ_NO_REGION */
  float progress;              /* (cycle - begin) / (end - begin), in [0, 1) */
  uint64_t addr;               /* the record's address: the line it carries */
  uint64_t uop;                /* the record's micro-op id */
  uint64_t begin, end;         /* cycles: begin <= frame cycle < end */
} ws_viz_packet;

/* Every array is row-major as its comment says and owned by the model. */
typedef struct ws_viz_frame {
  uint32_t launch;
  uint64_t cycle;
  /* SMs: num_sms x warp_slots states, row per SM */
  uint32_t num_sms, warp_slots;
  uint8_t *warp;     /* ws_viz_warp */
  uint32_t *warp_pc; /* pc of the warp's last issue in its CTA so far (UINT32_MAX: none) */
  uint8_t *cta_busy; /* num_sms x ctas_per_sm */
  uint32_t ctas_per_sm;
  uint32_t *smem_banks;      /* num_sms: banks touched by the shared accesses in progress (OR of masks) */
  uint32_t *smem_wavefronts; /* num_sms: the most wavefronts of one of them (0: none in progress) */
  uint32_t *rf_conflict;     /* num_sms x subpartitions: extra operand cycles of the reads in progress */
  uint32_t subpartitions;
  uint8_t *tensor_busy; /* num_sms x subpartitions: HMMAs in flight, issue to result (saturates at 255) */
  /* L1 per SM and L2 per slice: load lookups (stores, atomics and refused
   * accesses aside, as trace export's hit-rate counters) and their hits
   * among those that began in the window (cycle - window_cycles, cycle] */
  uint32_t window_cycles;
  uint32_t *l1_lookups, *l1_hits, *l1_set_touched; /* l1_set_touched: set of the window's last (UINT32_MAX) */
  uint32_t num_slices;
  uint32_t *l2_lookups, *l2_hits;
  /* HBM: channels x banks_per_channel open rows (the row of the bank's last
   * command begun at or before the cycle; UINT32_MAX: closed, none yet) and
   * banks with a command in progress */
  uint32_t channels, banks_per_channel;
  uint32_t *bank_row;
  uint8_t *bank_busy;
  /* moving things, by begin (the array is never NULL once a launch is loaded) */
  ws_viz_packet *packets;
  size_t npackets;
  /* live counters */
  uint32_t active_warps;            /* slots neither empty nor done */
  double l1_hit_pct, l2_hit_pct;    /* in the window; < 0 when no lookups */
  double dram_gbps, dram_peak_gbps; /* bursts begun in the window (whole bursts); channels x channel_mbps */
  double xbar_gbps, xbar_peak_gbps; /* packets begun in the window; every SM and slice port at once */
} ws_viz_frame;

/* A frame sized for a GPU of `cfg` (every array zeroed, room for
 * packet_cap packets): what the model fills, and what tests and benchmarks
 * fill by hand. False when memory runs out (nothing is left allocated).
 * ws_viz_frame_free releases the arrays and zeroes the frame. */
bool ws_viz_frame_alloc(ws_viz_frame *f, const ws_gpu_cfg *cfg, uint32_t ctas_per_sm, size_t packet_cap);
void ws_viz_frame_free(ws_viz_frame *f);

typedef struct ws_viz_model ws_viz_model;

/* The model of an open trace; ctx is the one the reader was opened with
 * (the cursor's messages land there), and both must outlive the model. */
ws_status ws_viz_model_create(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model **out);
void ws_viz_model_destroy(ws_viz_model *m);
const ws_gpu_cfg *ws_viz_model_cfg(const ws_viz_model *m);
/* Decodes launch `launch`'s records (once; switching launches frees the
 * previous one's). A damaged chunk is an error naming its byte, and leaves
 * no launch loaded. */
ws_status ws_viz_model_load(ws_viz_model *m, uint32_t launch);
/* The state at `cycle` of the loaded launch, into *f (owned by the model,
 * valid until the next call); window_cycles 0 counts as 1. */
ws_status ws_viz_model_frame(ws_viz_model *m, uint64_t cycle, uint32_t window_cycles, const ws_viz_frame **f);
/* Next cycle after `cycle` at which anything changes (a record begins or
 * ends, or an issue's one cycle ends), UINT64_MAX after the last: "step one
 * cycle" skips idle time. */
uint64_t ws_viz_model_next_change(const ws_viz_model *m, uint64_t cycle);
/* The cycle the given warp slot of an SM issues its next instruction after
 * `cycle`, UINT64_MAX when it does not. */
uint64_t ws_viz_model_next_issue(const ws_viz_model *m, uint32_t sm, uint32_t warp, uint64_t cycle);

/* The loaded launch (UINT32_MAX: none), and its length: the latest begin
 * or end of any of its records (the kernel record's end, or later: a
 * store's L2 tag pass may end after the kernel does). */
uint32_t ws_viz_model_launch(const ws_viz_model *m);
uint64_t ws_viz_model_cycles(const ws_viz_model *m);
/* Records of the loaded launch, and those skipped for naming an SM, warp,
 * slot, unit or bank beyond the config. */
uint64_t ws_viz_model_records(const ws_viz_model *m);
uint64_t ws_viz_model_skipped(const ws_viz_model *m);
/* The trace's named device ranges, sorted by address (none in a version-1
 * trace): what a packet's `region` indexes. NULL when i is out of range. */
size_t ws_viz_model_region_count(const ws_viz_model *m);
const ws_runtime_region *ws_viz_model_region(const ws_viz_model *m, uint32_t i);
/* The range holding byte addr: its index, or WS_VIZ_NO_REGION. */
uint32_t ws_viz_model_region_at(const ws_viz_model *m, uint64_t addr);
/* The packet class of a range's ws_runtime_tensor (NONE when out of range). */
ws_viz_tensor ws_viz_tensor_of(ws_runtime_tensor t);

/* Bytes the model holds for the loaded launch and its frame. */
size_t ws_viz_model_bytes(const ws_viz_model *m);

#endif
