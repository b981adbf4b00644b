/* warp.c - allocation and reset of one warp's architectural state. */
#include "sim/exec/warp.h"

#include <stdlib.h>
#include <string.h>

bool ws_warp_init(ws_warp *w, uint32_t nrows) {
  memset(w, 0, sizeof *w);
  w->nrows = nrows;
  w->regs = calloc((size_t)(nrows + 2) * WS_WARP_LANES, sizeof *w->regs);
  if (!w->regs || !ws_simt_init(&w->simt)) {
    ws_warp_free(w);
    return false;
  }
  w->state = WS_WARP_DONE;
  return true;
}

void ws_warp_free(ws_warp *w) {
  free(w->regs);
  w->regs = NULL;
  ws_simt_free(&w->simt);
}

void ws_warp_reset(ws_warp *w, uint32_t lanes_mask) {
  memset(w->regs, 0, (size_t)(w->nrows + 1) * WS_WARP_LANES * sizeof *w->regs);
  memset(w->preds, 0, sizeof w->preds);
  w->preds[WS_PRED_PT] = UINT32_MAX;
  w->live = lanes_mask;
  ws_simt_reset(&w->simt, lanes_mask);
  w->state = lanes_mask ? WS_WARP_READY : WS_WARP_DONE;
  w->insns_issued = 0;
  w->async_uncommitted_copies = 0;
  w->async_groups_committed = 0;
  w->ffwd_backedges = w->ffwd_mark = w->ffwd_seen = 0;
  w->ffwd_pace_q16 = WS_FFWD_PACE_ONE;
  w->ffwd_owed_q16 = 0;
}
