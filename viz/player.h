/* player.h - where the visualizer is in a trace and how it moves: the
 * launch and cycle shown, playing or paused, the speed, and the steps the
 * controls take (one cycle, one warp instruction, one kernel).
 *
 * Design: plain logic over the replay model (viz/model.h), with no SDL, so
 * every control is testable without a window; the window feeds it wall
 * time and keys. Speed is in simulated cycles per wall-clock second, on a
 * 1-2-5 logarithmic ladder, from 1 to 10^8 cycles per second. */
#ifndef WS_VIZ_PLAYER_H
#define WS_VIZ_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "viz/model.h"

typedef struct ws_viz_player {
  ws_viz_model *model;
  ws_wst_reader *reader;
  uint32_t launch, launches; /* the launch shown, of how many */
  uint64_t cycle, end_cycle; /* the cycle shown; the launch's last cycle */
  bool playing;
  uint32_t speed_step; /* index on the ladder */
  double carry;        /* fractional cycles not yet shown */
  bool have_warp;      /* a warp is selected: instruction steps follow it */
  uint32_t warp_sm, warp_slot;
} ws_viz_player;

/* Starts paused at cycle 0 of the first launch with records (loaded). */
ws_status ws_viz_player_init(ws_viz_player *p, ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m);
/* Shows launch `launch` (loading it) at `cycle` (clamped to its end). */
ws_status ws_viz_player_seek(ws_viz_player *p, uint32_t launch, uint64_t cycle);
/* Playing: moves on by seconds x speed cycles, into the next launch at
 * the end of one, and pauses at the end of the last. */
ws_status ws_viz_player_advance(ws_viz_player *p, double seconds);
void ws_viz_player_toggle(ws_viz_player *p);
ws_status ws_viz_player_step_cycle(ws_viz_player *p);
/* The next cycle at which the selected warp issues (none selected: the
 * next cycle at which anything changes). */
ws_status ws_viz_player_step_insn(ws_viz_player *p);
ws_status ws_viz_player_step_kernel(ws_viz_player *p);
void ws_viz_player_faster(ws_viz_player *p);
void ws_viz_player_slower(ws_viz_player *p);
double ws_viz_player_speed(const ws_viz_player *p);
void ws_viz_player_select_warp(ws_viz_player *p, uint32_t sm, uint32_t slot);
void ws_viz_player_clear_warp(ws_viz_player *p);

#endif
