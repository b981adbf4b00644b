/* journey.h - a followed value's journey: from the probe's records marked
 * WS_PROBE_TAGGED, the first time it reaches each level of the machine in
 * each launch (host RAM, the PCIe link, HBM, L2, L1, shared memory,
 * registers, each kind of function unit), as a ledger of hops.
 *
 * Design: a probe (sim/common/probe.h) that keeps, per launch and level, the
 * earliest tagged record only, so following a value costs a fixed amount of
 * memory whatever the run. The ledger is data: the CLI prints it, the trace
 * stores it (ws_journey_to_text / ws_journey_from_text) and the visualizer
 * replays it. */
#ifndef WS_JOURNEY_H
#define WS_JOURNEY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ctx.h"
#include "sim/common/probe.h"
#include "sim/host/runtime.h"

typedef enum ws_journey_level {
  WS_JOURNEY_HOST,      /* host RAM: the bytes as a copy reads or writes them */
  WS_JOURNEY_PCIE,      /* the DMA burst that carries them */
  WS_JOURNEY_DRAM,      /* an HBM command */
  WS_JOURNEY_L2,        /* an L2 slice lookup */
  WS_JOURNEY_L1,        /* an L1 lookup */
  WS_JOURNEY_SHARED,    /* a shared-memory access */
  WS_JOURNEY_REGISTERS, /* a load that leaves them in registers */
  WS_JOURNEY_INT,       /* the function units, by the instruction that computes with them */
  WS_JOURNEY_FP32,
  WS_JOURNEY_SFU,
  WS_JOURNEY_SHFL,
  WS_JOURNEY_TENSOR,
  WS_JOURNEY_LEVEL_COUNT
} ws_journey_level;

#define WS_JOURNEY_HOST_LAUNCH UINT32_MAX /* launch of a hop outside any kernel */
#define WS_JOURNEY_NO_INDEX UINT32_MAX    /* a hop's index where none applies */

typedef struct ws_journey_hop {
  uint32_t launch;    /* launch index, or WS_JOURNEY_HOST_LAUNCH (times in ns on the timeline) */
  uint8_t level;      /* ws_journey_level */
  uint16_t sm, warp;  /* WS_PROBE_NONE where they do not apply */
  uint16_t unit;      /* the HBM channel, the L2 slice, the PCIe direction (0 to the device, 1 back); */
                      /* WS_PROBE_NONE elsewhere, and in traces written before the field */
  uint32_t lanes;     /* registers and units: the lanes holding the value */
  uint32_t pc;        /* UINT32_MAX where it does not apply */
  uint32_t index;     /* the HBM bank, the L2 or L1 set; WS_JOURNEY_NO_INDEX elsewhere (and before) */
  uint64_t first;     /* launch cycle (host hops: ns) */
  uint64_t spent;     /* cycles (ns) that hop took */
  char kernel[48];    /* the launch's kernel ("" for host hops) */
  char component[64]; /* where: "ch 3 bank 5 row 12", "slice 7 set 40 way 2 (far)", ... */
} ws_journey_hop;

/* How many output elements of a layer the followed value reached, of how
 * many: what the model's owner counts after the run (models/vit/vitrun.h). */
typedef struct ws_journey_reach {
  char layer[64];
  uint64_t reached, total;
} ws_journey_reach;

typedef struct ws_journey ws_journey;

ws_status ws_journey_create(ws_ctx *ctx, ws_journey **out);
void ws_journey_destroy(ws_journey *j);
/* The probe to set on the device (or to tee with a trace writer's). */
const ws_probe *ws_journey_probe(ws_journey *j);
/* Hops in order (launch, then first cycle; host hops by their time). */
size_t ws_journey_hops(const ws_journey *j, const ws_journey_hop **out);
uint32_t ws_journey_launches(const ws_journey *j);
/* An out-of-memory inside the probe (it keeps recording nothing more). */
ws_status ws_journey_status(const ws_journey *j, ws_ctx *ctx);
const char *ws_journey_level_name(ws_journey_level level);

/* The ledger as a table: level, component, SM/warp/lane, kernel (the
 * timeline's name for it when `tl` is given), when (ns on the timeline) and
 * the cycles or ns the hop took. clock_mhz converts launch cycles. */
void ws_journey_print(FILE *out, const ws_journey_hop *hops, size_t nhops, const ws_runtime_record *tl,
                      size_t ntl, uint32_t clock_mhz);

/* Adds a layer's reach (copied; a name longer than 63 bytes is refused). */
ws_status ws_journey_add_reach(ws_ctx *ctx, ws_journey *j, const char *layer, uint64_t reached,
                               uint64_t total);
size_t ws_journey_reaches(const ws_journey *j, const ws_journey_reach **out);

/* Tab-separated text: a header line and one hop per line, then, when there
 * are any, a second header line and one layer's reach per line: what a
 * trace stores. _from_text reads it back into `hops` and `reach` (malloc'd;
 * reach and nreach may be NULL) and checks every field, naming the line of
 * a damaged one. It also reads the text of traces written before the unit
 * and index columns (ten columns a hop), giving them WS_PROBE_NONE and
 * WS_JOURNEY_NO_INDEX. */
ws_status ws_journey_to_text(ws_ctx *ctx, const ws_journey *j, char **text, size_t *size_bytes);
ws_status ws_journey_from_text(ws_ctx *ctx, const char *text, size_t size_bytes, ws_journey_hop **hops,
                               size_t *nhops, ws_journey_reach **reach, size_t *nreach);

#endif
