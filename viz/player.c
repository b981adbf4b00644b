/* player.c - position, playback and stepping in a trace (player.h). */
#include "viz/player.h"

#define STEPS 25       /* 1, 2, 5, 10, ... 10^8 cycles per second */
#define DEFAULT_STEP 9 /* 1,000 cycles per second: a kernel of 10^4 cycles in ten seconds */

double ws_viz_player_speed(const ws_viz_player *p) {
  static const double mant[3] = {1, 2, 5};
  double v = mant[p->speed_step % 3];
  for (uint32_t i = 0; i < p->speed_step / 3; i++) v *= 10;
  return v;
}

void ws_viz_player_faster(ws_viz_player *p) {
  if (p->speed_step + 1 < STEPS) p->speed_step++;
}

void ws_viz_player_slower(ws_viz_player *p) {
  if (p->speed_step) p->speed_step--;
}

ws_status ws_viz_player_seek(ws_viz_player *p, uint32_t launch, uint64_t cycle) {
  if (launch >= p->launches) launch = p->launches - 1;
  if (launch != p->launch || !p->end_cycle) {
    ws_status st = ws_viz_model_load(p->model, launch);
    if (st != WS_OK) return st;
    p->launch = launch;
    p->end_cycle = ws_wst_launch(p->reader, launch)->cycles;
  }
  p->cycle = cycle < p->end_cycle ? cycle : p->end_cycle;
  p->carry = 0;
  return WS_OK;
}

ws_status ws_viz_player_init(ws_viz_player *p, ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m) {
  *p = (ws_viz_player){.model = m, .reader = r, .speed_step = DEFAULT_STEP};
  p->launches = (uint32_t)ws_wst_launch_count(r);
  if (!p->launches) return ws_ctx_fail(ctx, WS_ERR_INVALID, "the trace holds no launch");
  uint32_t first = 0;
  while (first + 1 < p->launches && !ws_wst_launch(r, first)->events) first++;
  p->launch = first;
  return ws_viz_player_seek(p, first, 0);
}

ws_status ws_viz_player_advance(ws_viz_player *p, double seconds) {
  if (!p->playing || seconds <= 0) return WS_OK;
  p->carry += seconds * ws_viz_player_speed(p);
  uint64_t whole = (uint64_t)p->carry;
  p->carry -= (double)whole;
  uint64_t left = p->end_cycle - p->cycle;
  if (whole <= left) {
    p->cycle += whole;
    return WS_OK;
  }
  if (p->launch + 1 >= p->launches) { /* the end of the trace */
    p->cycle = p->end_cycle;
    p->playing = false;
    return WS_OK;
  }
  return ws_viz_player_seek(p, p->launch + 1, 0);
}

void ws_viz_player_toggle(ws_viz_player *p) {
  if (!p->playing && p->cycle == p->end_cycle && p->launch + 1 >= p->launches) p->cycle = 0; /* replay */
  p->playing = !p->playing;
  p->carry = 0;
}

ws_status ws_viz_player_step_cycle(ws_viz_player *p) {
  p->playing = false;
  if (p->cycle < p->end_cycle) {
    p->cycle++;
    return WS_OK;
  }
  return p->launch + 1 < p->launches ? ws_viz_player_seek(p, p->launch + 1, 0) : WS_OK;
}

ws_status ws_viz_player_step_insn(ws_viz_player *p) {
  p->playing = false;
  uint64_t next = p->have_warp ? ws_viz_model_next_issue(p->model, p->warp_sm, p->warp_slot, p->cycle)
                               : ws_viz_model_next_change(p->model, p->cycle);
  if (next != UINT64_MAX && next <= p->end_cycle) {
    p->cycle = next;
    return WS_OK;
  }
  return ws_viz_player_step_kernel(p);
}

ws_status ws_viz_player_step_kernel(ws_viz_player *p) {
  p->playing = false;
  if (p->launch + 1 >= p->launches) {
    p->cycle = p->end_cycle;
    return WS_OK;
  }
  return ws_viz_player_seek(p, p->launch + 1, 0);
}

void ws_viz_player_select_warp(ws_viz_player *p, uint32_t sm, uint32_t slot) {
  p->have_warp = true;
  p->warp_sm = sm;
  p->warp_slot = slot;
}

void ws_viz_player_clear_warp(ws_viz_player *p) { p->have_warp = false; }
