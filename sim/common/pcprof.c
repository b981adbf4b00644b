/* pcprof.c - a launch's per-instruction counters (pcprof.h). */
#include "sim/common/pcprof.h"

#include <stdlib.h>
#include <string.h>

ws_status ws_pcprof_begin(ws_ctx *ctx, ws_pcprof *p, uint32_t ninsns) {
  if (ninsns > p->nrows || !p->rows) {
    ws_pcprof_row *rows = realloc(p->rows, (ninsns ? ninsns : 1) * sizeof *rows);
    if (!rows) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the per-instruction profile");
    p->rows = rows;
  }
  p->nrows = ninsns;
  memset(p->rows, 0, (ninsns ? ninsns : 1) * sizeof *p->rows);
  return WS_OK;
}

void ws_pcprof_free(ws_pcprof *p) {
  if (!p) return;
  free(p->rows);
  p->rows = NULL;
  p->nrows = 0;
}

void ws_pcprof_add(ws_pcprof_row *dst, const ws_pcprof_row *src) {
  dst->warp_insns += src->warp_insns;
  dst->thread_insns += src->thread_insns;
  for (int s = 0; s < WS_PCPROF_STATES; s++) dst->state_cycles[s] += src->state_cycles[s];
  dst->global_insns += src->global_insns;
  dst->sectors += src->sectors;
  dst->smem_insns += src->smem_insns;
  dst->smem_wavefronts += src->smem_wavefronts;
  dst->smem_conflicts += src->smem_conflicts;
}

uint64_t ws_pcprof_cycles(const ws_pcprof_row *r) {
  uint64_t n = 0;
  for (int s = 0; s < WS_PCPROF_STATES; s++) n += r->state_cycles[s];
  return n;
}
