/* runrow.h - the window's row of the run above the launch's timeline: the
 * launches and the runtime's copies, placed on the runtime's clock, so a
 * class sees that the weights' copy over PCIe takes longer than most
 * kernels.
 *
 * Design: built once from the trace's timeline (ws_wst_timeline), pure
 * integers and no SDL, so the window draws it, hovers and clicks it, and
 * tests check it, through one function each. The timeline's kernel records
 * are the trace's launches in order; a trace whose timeline does not match
 * its launches one for one (a run without the runtime, as `example` and
 * `exec` make, or a damaged file) gets one equal segment per launch and no
 * copies, as if every launch took the same time. */
#ifndef WS_VIZ_RUNROW_H
#define WS_VIZ_RUNROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "traces/wst.h"

/* The narrowest a segment is drawn, so a 600 ns kernel in an 80 us run
 * stays visible and clickable. */
#define WS_VIZ_RUNROW_MIN_PX 3

typedef enum ws_viz_runrow_kind {
  WS_VIZ_RUNROW_LAUNCH, /* a kernel launch */
  WS_VIZ_RUNROW_H2D,    /* a copy to the device */
  WS_VIZ_RUNROW_D2H,    /* a copy to the host */
} ws_viz_runrow_kind;

typedef struct ws_viz_runrow_seg {
  ws_viz_runrow_kind kind;
  uint32_t launch;           /* the launch; for a copy, the launch a click goes to: the first after it,
                                else the last */
  uint32_t record;           /* index into the timeline, UINT32_MAX for an untimed row */
  uint64_t start_ns, end_ns; /* on the runtime's clock; untimed: the launch index and the next */
  /* a copy that runs while a kernel does (streams overlapping copies with
   * compute): drawn in a band, H2D along the top third of the row and D2H
   * along the bottom third, so the kernel under it stays in view */
  bool banded;
} ws_viz_runrow_seg;

typedef struct ws_viz_runrow {
  ws_viz_runrow_seg *segs; /* launches first, in order, then the copies in timeline order */
  size_t nsegs;
  bool timed;                /* placed by the timeline, else equal segments */
  uint64_t first_ns, end_ns; /* the span the row covers */
} ws_viz_runrow;

ws_status ws_viz_runrow_build(ws_ctx *ctx, const ws_wst_reader *r, ws_viz_runrow *out);
void ws_viz_runrow_free(ws_viz_runrow *row);
/* Segment i's pixels [*x0, *x1) across a row `width_px` wide, at least
 * WS_VIZ_RUNROW_MIN_PX (clamped to the row). */
void ws_viz_runrow_span(const ws_viz_runrow *row, size_t i, int32_t width_px, int32_t *x0, int32_t *x1);
/* The rows of a segment's band in a row `height_px` tall: [*y0, *y1), the
 * whole height except for a banded copy. */
void ws_viz_runrow_band(const ws_viz_runrow_seg *g, int32_t height_px, int32_t *y0, int32_t *y1);
/* The segment under pixel (x, y) (0, 0 at the row's top left): the one
 * drawn last there (copies over launches); false when none. */
bool ws_viz_runrow_at(const ws_viz_runrow *row, int32_t width_px, int32_t height_px, int32_t x, int32_t y,
                      size_t *i);
/* One line for a tooltip or a note: "launch 3: gemm_blocktile2d, 26.75 to
 * 31.21 us (4.46 us)" or "h2d weights: 162,816 bytes, pinned, 10.00 to
 * 15.65 us (5.65 us)". */
void ws_viz_runrow_describe(const ws_viz_runrow *row, const ws_wst_reader *r, size_t i, char *buf,
                            size_t buf_bytes);

#endif
