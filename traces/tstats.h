/* tstats.h - the simulator's counters rebuilt from a trace's records: per
 * SM, per L2 slice, per HBM channel and GPU-wide, under the names the
 * device's stats registry uses (docs/stats.md), so the two compare name by
 * name.
 *
 * Design: a counter is rebuilt only where the records determine it exactly
 * (docs/traces.md lists which and why the others cannot be); the few facts
 * that need more than one record are kept small: each SM's LSU queue
 * (which instruction a line access belongs to: a load or an LDGSTS), each
 * warp slot's last branch (taken when the warp's next issue is not at the
 * next pc), each SM's resident-CTA spans as merged intervals, each HBM
 * channel's bus time in the DRAM model's fixed point, and each L1's tags,
 * replayed from the set and way every L1 record names (which sectors were
 * valid, which MSHRs in flight, what a replaced way held). Everything else
 * is a sum, so memory stays bounded whatever the trace's length. */
#ifndef WS_TSTATS_H
#define WS_TSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/probe.h"
#include "traces/wst.h"

typedef struct ws_tstats ws_tstats;

/* Counters for the GPU `cfg` describes; stall reasons are named by
 * `stall_names` (the trace's, ws_wst_names), copied. */
ws_status ws_tstats_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *const *stall_names, size_t nnames,
                           ws_tstats **out);
void ws_tstats_destroy(ws_tstats *t);

/* One record of launch `launch`, in the trace's order (records outside
 * launches are ignored). Counters add up over launches; what spans records
 * (CTA spans, bus time) is settled when the launch changes and at
 * ws_tstats_finish. */
void ws_tstats_add(ws_tstats *t, uint32_t launch, const ws_probe_event *ev);
void ws_tstats_finish(ws_tstats *t);

/* Rebuilds the counters of launch `launch` (UINT32_MAX: all launches,
 * added up) from an open trace. */
ws_status ws_tstats_from_trace(ws_ctx *ctx, ws_wst_reader *r, uint32_t launch, ws_tstats **out);

/* The counters, in a fixed order: gpu.*, then each SM's, each slice's,
 * each channel's. */
size_t ws_tstats_count(const ws_tstats *t);
const char *ws_tstats_name(const ws_tstats *t, size_t i);
uint64_t ws_tstats_value(const ws_tstats *t, size_t i);
bool ws_tstats_get(const ws_tstats *t, const char *name, uint64_t *value);

/* {"stats": {"name": value, ...}}, the shape of --stats-json without its
 * descriptions. */
void ws_tstats_write_json(const ws_tstats *t, FILE *out);

#endif
