/* walk.h - pixel mode's guided walk: the stops of a followed pixel's
 * journey (traces/journey.h) as the visualizer shows them, one per hop in
 * the ledger's order, each with the launch and cycle to show, the view
 * (the hop's SM zoomed in for SM-level hops, the whole GPU for HBM, L2,
 * PCIe and host hops), the component to outline, and which layers' reach
 * ("reached N of M outputs") the walk has passed by then.
 *
 * Design: pure data from the trace's reader and its GPU config, no SDL, so
 * the window, the headless pictures and the tests walk the same stops.
 * Host hops happen in ns outside every launch: a stop shows them at the
 * adjacent launch (the previous one's end, else the next one's start) and
 * says it is host-side. The HBM channel and bank, the L2 slice, the L1 set
 * and the PCIe direction are the hop's unit and index fields; a trace
 * written before them has only the where text, in the form
 * traces/journey.c writes it ("ch 7 bank 5 row ...", "slice 33 set ...",
 * "set 3 sectors ...", "H2D burst ..."), so that is read instead, and a
 * hop naming neither outlines the enclosing part (the channels' area). A
 * reach row counts as passed at the last stop of the timeline record that
 * bears its layer's name (the layer's last kernel, or a copy such as
 * "probability") and at every stop after it. */
#ifndef WS_VIZ_WALK_H
#define WS_VIZ_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "traces/journey.h"
#include "traces/wst.h"
#include "viz/layout.h"

typedef struct ws_viz_walk_stop {
  uint32_t launch;  /* the launch shown */
  uint64_t cycle;   /* the cycle shown (clamped to the launch's last) */
  bool host;        /* a host-side hop, shown at `launch`'s start or end */
  bool at_end;      /* host-side: shown at the end of `launch` (else its start) */
  ws_viz_view view; /* what the picture shows */
  ws_viz_part part; /* the component outlined; WS_VIZ_PART_NONE: none */
  uint32_t sm, index;
} ws_viz_walk_stop;

typedef struct ws_viz_walk ws_viz_walk;

/* The walk of the journey `r` holds, for `cfg` (the trace's GPU). A trace
 * without a journey gives an empty walk (ws_viz_walk_count 0), not an
 * error; a damaged journey, or one naming a launch or SM the trace lacks,
 * is refused naming the hop. */
ws_status ws_viz_walk_create(ws_ctx *ctx, ws_wst_reader *r, const ws_gpu_cfg *cfg, ws_viz_walk **out);
void ws_viz_walk_destroy(ws_viz_walk *w);

/* Stops, one per hop, in the ledger's order. */
size_t ws_viz_walk_count(const ws_viz_walk *w);
/* The last stop the pixel has reached at `cycle` of `launch`: the highest
 * stop shown at or before that moment, in (launch, cycle) order; `from`
 * when none is (playback then leaves the stop a key chose). */
size_t ws_viz_walk_reached(const ws_viz_walk *w, uint32_t launch, uint64_t cycle, size_t from);
/* Stop i and its hop; NULL when i is out of range. */
const ws_viz_walk_stop *ws_viz_walk_at(const ws_viz_walk *w, size_t i);
const ws_journey_hop *ws_viz_walk_hop(const ws_viz_walk *w, size_t i);
/* The timeline's name of stop i's kernel ("patch_embed"), or its kernel's
 * own name when the trace has no timeline; "host" for host-side stops. */
const char *ws_viz_walk_step_name(const ws_viz_walk *w, size_t i);

/* The per-layer reach rows, in the trace's order. */
size_t ws_viz_walk_reaches(const ws_viz_walk *w, const ws_journey_reach **out);
/* Whether the walk has passed row `row`'s layer at stop `stop`. */
bool ws_viz_walk_reach_known(const ws_viz_walk *w, size_t stop, size_t row);

/* Where stop i's component is drawn on `l`: its own part, or the nearest
 * enclosing part `l` shows (an HBM bank's channel, a warp slot's SM);
 * false when `l` shows none of them (another SM zoomed in). */
bool ws_viz_walk_rect(const ws_viz_walk *w, size_t i, const ws_viz_layout *l, ws_viz_rect *out);

#endif
