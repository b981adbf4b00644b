/* runrow.c - the launches and the runtime's copies on one row (runrow.h). */
#include "viz/runrow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *launch_kernel(const ws_wst_reader *r, uint32_t launch) {
  const ws_wst_launch_info *l = ws_wst_launch(r, launch);
  const ws_wst_kernel_info *k = l && l->kernel != WS_WST_NO_KERNEL ? ws_wst_kernel(r, l->kernel) : NULL;
  return k ? k->name : "?";
}

/* The timeline's kernel records are the launches one for one, in order and
 * by kernel name. */
static bool timeline_matches(const ws_wst_reader *r, const ws_runtime_record *tl, size_t ntl,
                             size_t nlaunches) {
  size_t kernels = 0;
  for (size_t i = 0; i < ntl; i++) {
    if (tl[i].end_ns < tl[i].start_ns) return false;
    if (tl[i].kind != WS_RUNTIME_OP_KERNEL) continue;
    if (kernels >= nlaunches ||
        strncmp(tl[i].kernel, launch_kernel(r, (uint32_t)kernels), sizeof tl[i].kernel - 1) != 0)
      return false;
    kernels++;
  }
  return nlaunches > 0 && kernels == nlaunches;
}

static void build_untimed(ws_viz_runrow *row, size_t nlaunches) {
  for (size_t i = 0; i < nlaunches; i++)
    row->segs[i] = (ws_viz_runrow_seg){WS_VIZ_RUNROW_LAUNCH, (uint32_t)i, UINT32_MAX, i, i + 1, false};
  row->nsegs = nlaunches;
  row->first_ns = 0;
  row->end_ns = nlaunches;
}

/* The launch a click on a copy goes to: the first to start at or after the
 * copy's start, else the last. */
static uint32_t launch_after(const ws_viz_runrow *row, size_t nlaunches, uint64_t start_ns) {
  for (size_t i = 0; i < nlaunches; i++)
    if (row->segs[i].start_ns >= start_ns) return (uint32_t)i;
  return (uint32_t)(nlaunches - 1);
}

/* Whether a copy shares time with any launch (a pipelined run). */
static bool overlaps_launch(const ws_viz_runrow *row, size_t nlaunches, const ws_runtime_record *copy) {
  for (size_t i = 0; i < nlaunches; i++)
    if (row->segs[i].start_ns < copy->end_ns && copy->start_ns < row->segs[i].end_ns) return true;
  return false;
}

static void build_timed(ws_viz_runrow *row, const ws_runtime_record *tl, size_t ntl, size_t nlaunches) {
  size_t n = 0;
  row->first_ns = UINT64_MAX;
  for (size_t i = 0; i < ntl; i++)
    if (tl[i].kind == WS_RUNTIME_OP_KERNEL)
      row->segs[n] = (ws_viz_runrow_seg){WS_VIZ_RUNROW_LAUNCH, (uint32_t)n,  (uint32_t)i,
                                         tl[i].start_ns,       tl[i].end_ns, false},
      n++;
  for (size_t i = 0; i < ntl; i++) {
    if (tl[i].kind != WS_RUNTIME_OP_H2D && tl[i].kind != WS_RUNTIME_OP_D2H) continue;
    ws_viz_runrow_kind k = tl[i].kind == WS_RUNTIME_OP_H2D ? WS_VIZ_RUNROW_H2D : WS_VIZ_RUNROW_D2H;
    row->segs[n++] = (ws_viz_runrow_seg){k,
                                         launch_after(row, nlaunches, tl[i].start_ns),
                                         (uint32_t)i,
                                         tl[i].start_ns,
                                         tl[i].end_ns,
                                         overlaps_launch(row, nlaunches, &tl[i])};
  }
  row->nsegs = n;
  for (size_t i = 0; i < n; i++) {
    if (row->segs[i].start_ns < row->first_ns) row->first_ns = row->segs[i].start_ns;
    if (row->segs[i].end_ns > row->end_ns) row->end_ns = row->segs[i].end_ns;
  }
}

ws_status ws_viz_runrow_build(ws_ctx *ctx, const ws_wst_reader *r, ws_viz_runrow *out) {
  memset(out, 0, sizeof *out);
  size_t ntl = 0, nlaunches = ws_wst_launch_count(r);
  const ws_runtime_record *tl = ws_wst_timeline(r, &ntl);
  bool timed = tl && timeline_matches(r, tl, ntl, nlaunches);
  size_t cap = timed ? ntl : nlaunches;
  out->segs = calloc(cap ? cap : 1, sizeof *out->segs);
  if (!out->segs)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the run's row of %zu segments", cap);
  out->timed = timed;
  if (timed)
    build_timed(out, tl, ntl, nlaunches);
  else
    build_untimed(out, nlaunches);
  return WS_OK;
}

void ws_viz_runrow_free(ws_viz_runrow *row) {
  free(row->segs);
  memset(row, 0, sizeof *row);
}

static int32_t x_of(const ws_viz_runrow *row, uint64_t ns, int32_t width_px) {
  uint64_t span = row->end_ns > row->first_ns ? row->end_ns - row->first_ns : 1;
  uint64_t at = ns > row->first_ns ? ns - row->first_ns : 0;
  if (at > span) at = span;
  return (int32_t)((double)width_px * (double)at / (double)span);
}

void ws_viz_runrow_span(const ws_viz_runrow *row, size_t i, int32_t width_px, int32_t *x0, int32_t *x1) {
  const ws_viz_runrow_seg *s = &row->segs[i];
  int32_t a = x_of(row, s->start_ns, width_px), b = x_of(row, s->end_ns, width_px);
  if (b - a < WS_VIZ_RUNROW_MIN_PX) b = a + WS_VIZ_RUNROW_MIN_PX;
  if (b > width_px) {
    b = width_px;
    a = b - WS_VIZ_RUNROW_MIN_PX > 0 ? b - WS_VIZ_RUNROW_MIN_PX : 0;
  }
  *x0 = a;
  *x1 = b;
}

void ws_viz_runrow_band(const ws_viz_runrow_seg *g, int32_t height_px, int32_t *y0, int32_t *y1) {
  int32_t third = height_px / 3 > 0 ? height_px / 3 : 1;
  *y0 = 0, *y1 = height_px;
  if (!g->banded) return;
  if (g->kind == WS_VIZ_RUNROW_H2D)
    *y1 = third;
  else
    *y0 = height_px - third;
}

bool ws_viz_runrow_at(const ws_viz_runrow *row, int32_t width_px, int32_t height_px, int32_t x, int32_t y,
                      size_t *i) {
  for (size_t k = row->nsegs; k-- > 0;) {
    int32_t x0, x1, y0, y1;
    ws_viz_runrow_span(row, k, width_px, &x0, &x1);
    ws_viz_runrow_band(&row->segs[k], height_px, &y0, &y1);
    if (x >= x0 && x < x1 && y >= y0 && y < y1) {
      *i = k;
      return true;
    }
  }
  return false;
}

/* "1.2 us" style times: the run's copies and kernels are microseconds. */
static void fmt_us(char *buf, size_t n, uint64_t ns) { snprintf(buf, n, "%.2f", (double)ns / 1000.0); }

void ws_viz_runrow_describe(const ws_viz_runrow *row, const ws_wst_reader *r, size_t i, char *buf,
                            size_t buf_bytes) {
  const ws_viz_runrow_seg *s = &row->segs[i];
  if (!row->timed) {
    snprintf(buf, buf_bytes, "launch %u: %s", s->launch, launch_kernel(r, s->launch));
    return;
  }
  size_t ntl = 0;
  const ws_runtime_record *e = &ws_wst_timeline(r, &ntl)[s->record];
  char a[32], b[32], d[32];
  fmt_us(a, sizeof a, s->start_ns);
  fmt_us(b, sizeof b, s->end_ns);
  fmt_us(d, sizeof d, s->end_ns - s->start_ns);
  if (s->kind == WS_VIZ_RUNROW_LAUNCH)
    snprintf(buf, buf_bytes, "launch %u: %s, %s to %s us (%s us)", s->launch, launch_kernel(r, s->launch), a,
             b, d);
  else
    snprintf(buf, buf_bytes, "%s %s: %" PRIu64 " bytes, %s, %s to %s us (%s us)",
             s->kind == WS_VIZ_RUNROW_H2D ? "h2d" : "d2h", e->name, e->size_bytes,
             e->host_mem == WS_PCIE_PAGEABLE ? "pageable" : "pinned", a, b, d);
}
