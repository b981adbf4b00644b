/* inspect.h - what a tooltip says about a memory component at a cycle:
 * the last micro-op it served, with its address, set and way, sectors, hit
 * or miss, and how many cycles that hop took, read from the trace's
 * records.
 *
 * Design: the replay model (viz/model.h) keeps per component only what the
 * picture needs (begin cycles and running hit counts), so a question about
 * one record goes back to the file: the records of the launch that begin
 * in the counters' window before the cycle are read through a cursor
 * (chunks whose range misses the window are skipped), and the last one of
 * the component kept. One answer is cached by launch, cycle and component,
 * so a mouse resting on a cache set costs nothing per frame while paused.
 * No SDL: tests ask it directly. */
#ifndef WS_VIZ_INSPECT_H
#define WS_VIZ_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "traces/wst.h"
#include "viz/layout.h"

typedef struct ws_viz_inspect ws_viz_inspect;

/* Names the range holding an address ("weights blocks.0.mlp.fc1.weight"),
 * or returns false; NULL: addresses are printed bare. */
typedef bool (*ws_viz_inspect_namer)(void *user, uint64_t addr, char *buf, size_t buf_bytes);

/* An inspector over `r` (which must outlive it) for a GPU of `cfg`. */
ws_status ws_viz_inspect_create(ws_ctx *ctx, ws_wst_reader *r, const ws_gpu_cfg *cfg, ws_viz_inspect **out);
void ws_viz_inspect_destroy(ws_viz_inspect *in);
void ws_viz_inspect_set_namer(ws_viz_inspect *in, ws_viz_inspect_namer fn, void *user);

/* Whether `part` is one this module describes (L1 sets and strip, L2
 * slices, HBM channels and banks, shared memory and its banks). */
bool ws_viz_inspect_covers(ws_viz_part part);

/* One line for the component of `hit` at `cycle` of `launch`, about its
 * last record begun in (cycle - window_cycles, cycle]: "L1 set 40: 0x7f40
 * at cycle 1187, way 2, sectors 0x3, hit, 34 cycles" or "no lookup in the
 * last 256 cycles". A damaged chunk is an error naming its byte. */
ws_status ws_viz_inspect_describe(ws_viz_inspect *in, uint32_t launch, uint64_t cycle, uint32_t window_cycles,
                                  const ws_viz_hit *hit, char *buf, size_t buf_bytes);
/* Records read so far: what the cache saved shows in tests. */
uint64_t ws_viz_inspect_reads(const ws_viz_inspect *in);

#endif
