/* export.h - a .wst trace as Chrome trace-event JSON for Perfetto
 * (ui.perfetto.dev) or as CSV, streamed as the records are decoded.
 *
 * Design: both exporters read through the trace reader's cursors and write
 * as they go, so memory stays bounded whatever the trace's size. Perfetto
 * JSON puts each component on tracks of its own (docs/traces.md: a process
 * per SM, L2 slice and HBM channel, a thread per scheduler, warp slot and
 * CTA slot, lanes for components whose operations overlap) and keeps every
 * track's slices in order of their start without sorting the file: the
 * simulator reports nearly all records at the cycle they begin, the few
 * that begin later (crossbar transfers) wait in a small queue until the
 * simulation's clock has passed them, and the records reported when they
 * end (stalls, CTAs, kernels) go on tracks of their own that the simulator
 * reports in order. Only the host timeline's records, a few per copy or
 * kernel, are sorted in memory. */
#ifndef WS_EXPORT_H
#define WS_EXPORT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ctx.h"
#include "traces/wst.h"

typedef struct ws_export_opts {
  uint32_t launch;                        /* only this launch; UINT32_MAX: all, and the host timeline */
  uint64_t cycle_begin, cycle_end;        /* only records beginning in cycles [begin, end) of their launch
                                             (end 0: no bound); either set leaves the host timeline out */
  uint64_t window_cycles;                 /* counter tracks' window; 0: a launch's cycles / 200 */
  bool flows;                             /* arrows following each memory request hop by hop */
  const volatile sig_atomic_t *interrupt; /* set (Ctrl-C): stop with WS_ERR_INTERRUPTED; NULL: none */
} ws_export_opts;

typedef struct ws_export_result {
  uint64_t records;   /* trace records read */
  uint64_t events;    /* trace events (or CSV rows) written */
  uint64_t flows;     /* arrows (pairs of "s" and "f" events) */
  uint64_t reordered; /* slices moved to keep a track in order: 0 unless a record breaks the
                         ordering the simulator keeps (docs/traces.md) */
  uint64_t skipped;   /* records naming an SM, slice, channel or slot the GPU lacks */
} ws_export_result;

/* One row per record (the columns of traces/evtext.h) after a header line;
 * without filters, every record of the file in its order. res may be NULL. */
ws_status ws_export_csv(ws_ctx *ctx, ws_wst_reader *r, const ws_export_opts *o, FILE *out,
                        ws_export_result *res);
/* The trace as {"traceEvents": [...]} (docs/traces.md says what is where).
 * res may be NULL. */
ws_status ws_export_perfetto(ws_ctx *ctx, ws_wst_reader *r, const ws_export_opts *o, FILE *out,
                             ws_export_result *res);

#endif
