/* test_model.c - the replay model (viz/model.h) against the records
 * themselves: real traces are recorded here (an example run with the trace
 * writer's probe on the device), and every frame the model gives is
 * compared with what a straightforward linear scan of the launch's records
 * says at the same cycle.
 *
 * Design: the scan below knows nothing of the model's sorting or interval
 * sets: for each sampled cycle it walks every record once and keeps what
 * covers the cycle, what began last before it and what began in the
 * window. The samples are spread over the launch (and past its end), and
 * put just before, at and after issues, crossbar packets and DRAM
 * commands, where an off-by-one would show. The examples cover tensor
 * cores (mma), shared memory and operand-bank conflicts (sgemm) and
 * DRAM-bound streaming (saxpy), on a100 and classroom. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"
#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "traces/wst.h"
#include "viz/model.h"

#define NONE32 UINT32_MAX

static ws_ctx *ctx;
static char dir[64];
static char path[128], cut_path[128];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_vmodel.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/run.wst", dir);
  snprintf(cut_path, sizeof cut_path, "%s/cut.wst", dir);
}

static void teardown(void) {
  remove(path);
  remove(cut_path);
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(viz_model, .init = setup, .fini = teardown);

/* Runs example `name` on preset `gpu` with the trace writer's probe set,
 * into `path`, with the example's buffers named as `label` (NULL: as the
 * example names them) leaves them. */
static void record_labelled(const char *name, const char *gpu, const ws_example_shape *shape,
                            const ws_wst_filter *filter, void (*label)(ws_example_check *)) {
  ws_device *dev = wstrec_device(ctx, gpu, NULL);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, filter);
  ws_example_check check;
  wstrec_run(ctx, dev, name, shape, 1, &check);
  if (label) label(&check);
  cr_assert_eq(ws_wst_writer_set_regions(w, check.regions, check.nregions), WS_OK, "%s", ws_errmsg(ctx));
  wstrec_finish(ctx, dev, w);
  ws_device_destroy(dev);
}

static void record_filtered(const char *name, const char *gpu, const ws_example_shape *shape,
                            const ws_wst_filter *filter) {
  record_labelled(name, gpu, shape, filter, NULL);
}

static void record(const char *name, const char *gpu, const ws_example_shape *shape) {
  record_filtered(name, gpu, shape, NULL);
}

/* ---- the records, read linearly ------------------------------------------------- */

typedef struct launch_recs {
  ws_probe_event *ev;
  size_t n;
  ws_gpu_cfg cfg;
  uint32_t launch, ctas_per_sm, warps_per_cta, depbar_state;
  uint32_t *l2_slice; /* by uop: the slice of its L2 lookup (NONE32: none) */
  uint64_t uops;
} launch_recs;

static launch_recs read_launch(ws_wst_reader *r, uint32_t launch) {
  launch_recs lr = {.launch = launch};
  cr_assert_eq(ws_wst_config(r, &lr.cfg), WS_OK, "%s", ws_errmsg(ctx));
  const ws_wst_launch_info *li = ws_wst_launch(r, launch);
  lr.ctas_per_sm = li->ctas_per_sm;
  lr.warps_per_cta = (li->block[0] * li->block[1] * li->block[2] + 31) / 32;
  size_t nn = 0;
  const char *const *names = ws_wst_names(r, &nn);
  lr.depbar_state = NONE32;
  for (size_t i = 0; i < nn; i++)
    if (strcmp(names[i], "depbar") == 0) lr.depbar_state = WS_VIZ_WARP_STALL0 + (uint32_t)i;
  cr_assert_neq(lr.depbar_state, NONE32);
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open_launch(r, launch, 0, 0, &c), WS_OK);
  size_t cap = 0;
  for (;;) {
    ws_probe_event ev;
    uint32_t l;
    bool got = false;
    cr_assert_eq(ws_wst_cursor_next(c, &ev, &l, &got), WS_OK, "%s", ws_errmsg(ctx));
    if (!got) break;
    if (lr.n == cap) {
      cap = cap ? cap * 2 : 4096;
      lr.ev = realloc(lr.ev, cap * sizeof *lr.ev);
      cr_assert_not_null(lr.ev);
    }
    lr.ev[lr.n++] = ev;
  }
  ws_wst_cursor_close(c);
  for (size_t i = 0; i < lr.n; i++)
    if (lr.ev[i].uop >= lr.uops) lr.uops = lr.ev[i].uop + 1;
  cr_assert_lt(lr.uops, (uint64_t)1 << 28);
  lr.l2_slice = malloc((lr.uops + 1) * sizeof *lr.l2_slice);
  memset(lr.l2_slice, 0xFF, (lr.uops + 1) * sizeof *lr.l2_slice);
  for (size_t i = 0; i < lr.n; i++)
    if (lr.ev[i].kind == WS_PEV_L2) lr.l2_slice[lr.ev[i].uop] = lr.ev[i].unit;
  return lr;
}

static bool is_tensor(uint32_t op) {
  const ws_opinfo *info = op < WS_OP_COUNT ? ws_isa_opinfo((ws_op)op) : NULL;
  return info && info->unit == WS_UNIT_TENSOR;
}

static bool is_warp_kind(uint8_t k) { return k == WS_PEV_ISSUE || k == WS_PEV_STALL || k == WS_PEV_DEPBAR; }

/* The cycle a warp record stops colouring its slot: an issue shows one cycle. */
static uint64_t warp_end(const ws_probe_event *e) { return e->kind == WS_PEV_ISSUE ? e->begin + 1 : e->end; }

static uint8_t warp_state(const launch_recs *lr, const ws_probe_event *e) {
  if (e->kind == WS_PEV_ISSUE) return WS_VIZ_WARP_ISSUING;
  if (e->kind == WS_PEV_DEPBAR) return (uint8_t)lr->depbar_state;
  return (uint8_t)(WS_VIZ_WARP_STALL0 + e->a);
}

/* What the frame must show at t, by one walk over the records per part. */
typedef struct expect {
  uint8_t *warp;
  uint32_t *pc;
  uint8_t *cta_busy;
  uint32_t active;
} expect;

/* What kinds of state the samples met, so that no comparison is vacuous. */
typedef struct seen {
  uint64_t issuing, stalled, done, unrecorded, active_cta, packets, dram_packets, dram_slices, open_rows,
      tensor, smem, rf, l1, l2;
} seen;

static void expect_warps(const launch_recs *lr, uint64_t t, expect *x) {
  const ws_gpu_cfg *c = &lr->cfg;
  uint32_t ws = c->sm.max_warps_per_sm, nslots = c->gpu.num_sms * ws,
           nctas = c->gpu.num_sms * lr->ctas_per_sm;
  uint64_t *rb = calloc(nctas, sizeof *rb), *re = calloc(nctas, sizeof *re), *cover_b = calloc(nslots, 8),
           *issue_b = calloc(nslots, 8);
  uint64_t *last_b = calloc(nslots, 8);
  bool *ran = calloc(nslots, 1), *later = calloc(nslots, 1), *has_issue = calloc(nslots, 1),
       *exited = calloc(nslots, 1);
  memset(x->warp, WS_VIZ_WARP_EMPTY, nslots);
  memset(x->cta_busy, 0, nctas);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (e->kind != WS_PEV_CTA || e->begin > t || e->end <= t) continue;
    uint32_t k = e->sm * lr->ctas_per_sm + e->b;
    cr_assert(!x->cta_busy[k], "one CTA per slot at a time");
    x->cta_busy[k] = 1;
    rb[k] = e->begin;
    re[k] = e->end;
  }
  uint8_t *cover = calloc(nslots, 1);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (!is_warp_kind(e->kind) || warp_end(e) <= e->begin) continue;
    uint32_t s = e->sm * ws + e->warp, k = e->sm * lr->ctas_per_sm + e->warp / lr->warps_per_cta;
    bool res = x->cta_busy[k];
    if (e->begin <= t && warp_end(e) > t) {
      cr_assert(!cover[s], "sm %u warp %u: two records cover cycle %llu", e->sm, e->warp,
                (unsigned long long)t);
      cover[s] = 1;
      cover_b[s] = e->begin;
      x->warp[s] = warp_state(lr, e);
    }
    bool in_res = !res || e->begin >= rb[k];
    if (e->begin <= t && in_res) {
      if (!ran[s] || e->begin > last_b[s])
        last_b[s] = e->begin, exited[s] = e->kind == WS_PEV_ISSUE && e->b == WS_OP_EXIT;
      ran[s] = true;
      if (e->kind == WS_PEV_ISSUE && (!has_issue[s] || e->begin > issue_b[s])) {
        has_issue[s] = true;
        issue_b[s] = e->begin;
        x->pc[s] = e->pc;
      }
    }
    if (res && e->begin > t && e->begin < re[k]) later[s] = true;
  }
  x->active = 0;
  for (uint32_t s = 0; s < nslots; s++) {
    uint32_t k = (s / ws) * lr->ctas_per_sm + (s % ws) / lr->warps_per_cta;
    bool res = (s % ws) / lr->warps_per_cta < lr->ctas_per_sm && x->cta_busy[k];
    if (!cover[s])
      x->warp[s] = !res                               ? WS_VIZ_WARP_EMPTY
                   : ran[s] && !later[s] && exited[s] ? WS_VIZ_WARP_DONE
                                                      : WS_VIZ_WARP_UNRECORDED;
    if (x->warp[s] == WS_VIZ_WARP_EMPTY || !has_issue[s]) x->pc[s] = NONE32;
    x->active += x->warp[s] != WS_VIZ_WARP_EMPTY && x->warp[s] != WS_VIZ_WARP_DONE;
  }
  free(rb);
  free(re);
  free(cover_b);
  free(issue_b);
  free(ran);
  free(later);
  free(has_issue);
  free(exited);
  free(last_b);
  free(cover);
}

static int cmp_packet(const void *pa, const void *pb) {
  const ws_viz_packet *a = pa, *b = pb;
  if (a->link != b->link) return a->link < b->link ? -1 : 1;
  if (a->uop != b->uop) return a->uop < b->uop ? -1 : 1;
  if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* A DRAM read for an L2 miss goes to the slice that missed: the slice of
 * its link's L2 lookup (WS_PROBE_NONE: a write, or no such lookup). */
static uint16_t asking_slice(const launch_recs *lr, const ws_probe_event *e) {
  if ((e->flags & WS_PROBE_WRITE) || !e->link || e->link >= lr->uops || lr->l2_slice[e->link] == NONE32)
    return WS_PROBE_NONE;
  return (uint16_t)lr->l2_slice[e->link];
}

static void check_packets(const launch_recs *lr, const ws_viz_frame *f, uint64_t t, seen *sn) {
  size_t n = 0, cap = 64;
  ws_viz_packet *want = malloc(cap * sizeof *want);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if ((e->kind != WS_PEV_XBAR && e->kind != WS_PEV_DRAM) || e->begin > t || e->end <= t) continue;
    if (n == cap) want = realloc(want, (cap *= 2) * sizeof *want);
    bool x = e->kind == WS_PEV_XBAR;
    want[n++] = (ws_viz_packet){
        .link = x ? (e->outcome == WS_PROBE_DIR_REQ ? WS_VIZ_LINK_XBAR_REQ : WS_VIZ_LINK_XBAR_RESP)
                  : WS_VIZ_LINK_DRAM,
        .sm = x ? e->sm : WS_PROBE_NONE,
        .slice = x ? e->unit : asking_slice(lr, e),
        .channel = x ? WS_PROBE_NONE : e->unit,
        .bytes = x ? e->a : e->c,
        .uop = e->uop,
        .begin = e->begin,
        .end = e->end,
        .progress = (float)((double)(t - e->begin) / (double)(e->end - e->begin))};
  }
  cr_assert_eq(f->npackets, n, "cycle %llu: %zu packets, %zu records cover it", (unsigned long long)t,
               f->npackets, n);
  for (size_t i = 1; i < f->npackets; i++)
    cr_assert_leq(f->packets[i - 1].begin, f->packets[i].begin, "by begin");
  ws_viz_packet *got = malloc((n ? n : 1) * sizeof *got);
  memcpy(got, f->packets, n * sizeof *got);
  qsort(got, n, sizeof *got, cmp_packet);
  qsort(want, n, sizeof *want, cmp_packet);
  for (size_t i = 0; i < n; i++) {
    const ws_viz_packet *g = &got[i], *w = &want[i];
    cr_assert(g->link == w->link && g->uop == w->uop && g->begin == w->begin && g->end == w->end,
              "cycle %llu: packet %zu", (unsigned long long)t, i);
    cr_assert_eq(g->sm, w->sm);
    cr_assert_eq(g->channel, w->channel);
    cr_assert_eq(g->bytes, w->bytes);
    cr_assert_float_eq(g->progress, w->progress, 1e-6);
    cr_assert(g->progress >= 0.0f && g->progress < 1.0f);
    if (g->link != WS_VIZ_LINK_DRAM) {
      cr_assert_eq(g->slice, w->slice);
      continue;
    }
    cr_assert_lt(g->slice, lr->cfg.l2.slices);
    sn->dram_slices += w->slice != WS_PROBE_NONE;
    if (w->slice != WS_PROBE_NONE)
      cr_assert_eq(g->slice, w->slice, "DRAM read of uop %llu", (unsigned long long)g->uop);
    sn->dram_packets++;
  }
  sn->packets += n;
  free(got);
  free(want);
}

static void check_memory(const launch_recs *lr, const ws_viz_frame *f, uint64_t t, seen *sn) {
  const ws_gpu_cfg *c = &lr->cfg;
  uint32_t nbanks = c->hbm.channels * c->hbm.banks_per_channel;
  uint32_t *row = malloc(nbanks * 4);
  uint64_t *row_b = calloc(nbanks, 8);
  uint8_t *busy = calloc(nbanks, 1);
  memset(row, 0xFF, nbanks * 4);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (e->kind != WS_PEV_DRAM || e->begin > t) continue;
    uint32_t b = e->unit * c->hbm.banks_per_channel + e->a;
    if (row[b] == NONE32 || e->begin >= row_b[b]) row[b] = e->b, row_b[b] = e->begin;
    if (e->end > t) busy[b] = 1;
  }
  for (uint32_t b = 0; b < nbanks; b++) {
    cr_assert_eq(f->bank_row[b], row[b], "cycle %llu bank %u", (unsigned long long)t, b);
    cr_assert_eq(f->bank_busy[b], busy[b], "cycle %llu bank %u busy", (unsigned long long)t, b);
    sn->open_rows += row[b] != NONE32;
  }
  free(row);
  free(row_b);
  free(busy);
  check_packets(lr, f, t, sn);
}

/* L1, L2, DRAM and crossbar counts in the window (t - w, t]. */
static void check_windows(const launch_recs *lr, const ws_viz_frame *f, uint64_t t, uint32_t w, seen *sn) {
  const ws_gpu_cfg *c = &lr->cfg;
  uint64_t from = t >= w ? t - w + 1 : 0, dram = 0, xbar = 0, l1n = 0, l1h = 0, l2n = 0, l2h = 0;
  uint32_t *l1 = calloc(c->gpu.num_sms, 4), *l1hit = calloc(c->gpu.num_sms, 4),
           *set = malloc(c->gpu.num_sms * 4);
  uint32_t *l2 = calloc(c->l2.slices, 4), *l2hit = calloc(c->l2.slices, 4);
  uint64_t *set_b = calloc(c->gpu.num_sms, 8);
  memset(set, 0xFF, c->gpu.num_sms * 4);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (e->begin < from || e->begin > t) continue;
    if (e->kind == WS_PEV_L1 && !(e->flags & (WS_PROBE_WRITE | WS_PROBE_ATOMIC)) &&
        e->outcome != WS_PROBE_L1_RESFAIL) {
      l1[e->sm]++;
      l1hit[e->sm] += e->outcome == WS_PROBE_L1_HIT;
      if (set[e->sm] == NONE32 || e->begin >= set_b[e->sm]) set[e->sm] = e->a, set_b[e->sm] = e->begin;
    }
    if (e->kind == WS_PEV_L2 && e->outcome != WS_PROBE_L2_WRITTEN) {
      l2[e->unit]++;
      l2hit[e->unit] += e->outcome == WS_PROBE_L2_HIT;
    }
    if (e->kind == WS_PEV_DRAM)
      dram += (e->c + c->hbm.burst_bytes - 1) / c->hbm.burst_bytes * c->hbm.burst_bytes;
    if (e->kind == WS_PEV_XBAR) xbar += e->a;
  }
  for (uint32_t s = 0; s < c->gpu.num_sms; s++) {
    cr_assert_eq(f->l1_lookups[s], l1[s], "cycle %llu sm %u", (unsigned long long)t, s);
    cr_assert_eq(f->l1_hits[s], l1hit[s]);
    cr_assert_eq(f->l1_set_touched[s], set[s]);
    l1n += l1[s];
    l1h += l1hit[s];
  }
  for (uint32_t s = 0; s < c->l2.slices; s++) {
    cr_assert_eq(f->l2_lookups[s], l2[s], "cycle %llu slice %u", (unsigned long long)t, s);
    cr_assert_eq(f->l2_hits[s], l2hit[s]);
    l2n += l2[s];
    l2h += l2hit[s];
  }
  sn->l1 += l1n;
  sn->l2 += l2n;
  cr_assert_float_eq(f->l1_hit_pct, l1n ? 100.0 * (double)l1h / (double)l1n : -1.0, 1e-9);
  cr_assert_float_eq(f->l2_hit_pct, l2n ? 100.0 * (double)l2h / (double)l2n : -1.0, 1e-9);
  double secs = (double)(t - from + 1) / (c->gpu.core_clock_mhz * 1e6);
  cr_assert_float_eq(f->dram_gbps, (double)dram / secs / 1e9, 1e-6);
  cr_assert_float_eq(f->xbar_gbps, (double)xbar / secs / 1e9, 1e-6);
  cr_assert_float_eq(f->dram_peak_gbps, c->hbm.channels * (double)c->hbm.channel_mbps / 1000.0, 1e-9);
  free(l1);
  free(l1hit);
  free(set);
  free(set_b);
  free(l2);
  free(l2hit);
}

/* Shared accesses, operand-bank conflicts and HMMAs covering t. */
static void check_units(const launch_recs *lr, const ws_viz_frame *f, uint64_t t, seen *sn) {
  const ws_gpu_cfg *c = &lr->cfg;
  uint32_t sp = c->gpu.num_sms * c->sm.subpartitions;
  uint32_t *banks = calloc(c->gpu.num_sms, 4), *wf = calloc(c->gpu.num_sms, 4), *rf = calloc(sp, 4),
           *hmma = calloc(sp, 4);
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (e->begin > t || e->end <= t) continue;
    if (e->kind == WS_PEV_SMEM) {
      banks[e->sm] |= e->a;
      if (e->b > wf[e->sm]) wf[e->sm] = e->b;
    }
    if (e->kind == WS_PEV_RF_BANK) rf[e->sm * c->sm.subpartitions + e->unit] += e->a;
    if (e->kind == WS_PEV_ISSUE && is_tensor(e->b)) hmma[e->sm * c->sm.subpartitions + e->unit]++;
  }
  for (uint32_t s = 0; s < c->gpu.num_sms; s++) {
    cr_assert_eq(f->smem_banks[s], banks[s], "cycle %llu sm %u", (unsigned long long)t, s);
    cr_assert_eq(f->smem_wavefronts[s], wf[s]);
    sn->smem += wf[s] != 0;
  }
  for (uint32_t k = 0; k < sp; k++) {
    cr_assert_eq(f->rf_conflict[k], rf[k], "cycle %llu sub-partition %u", (unsigned long long)t, k);
    cr_assert_eq(f->tensor_busy[k], hmma[k] > 255 ? 255 : hmma[k]);
    sn->rf += rf[k] != 0;
    sn->tensor += hmma[k];
  }
  free(banks);
  free(wf);
  free(rf);
  free(hmma);
}

static void check_warps(const launch_recs *lr, const ws_viz_frame *f, uint64_t t, seen *sn) {
  const ws_gpu_cfg *c = &lr->cfg;
  uint32_t nslots = c->gpu.num_sms * c->sm.max_warps_per_sm;
  expect x = {malloc(nslots), malloc(nslots * 4), malloc(c->gpu.num_sms * lr->ctas_per_sm), 0};
  expect_warps(lr, t, &x);
  for (uint32_t s = 0; s < nslots; s++) {
    cr_assert_eq(f->warp[s], x.warp[s], "cycle %llu sm %u warp %u: state %u, the records say %u",
                 (unsigned long long)t, s / c->sm.max_warps_per_sm, s % c->sm.max_warps_per_sm, f->warp[s],
                 x.warp[s]);
    cr_assert_eq(f->warp_pc[s], x.pc[s], "cycle %llu slot %u: pc", (unsigned long long)t, s);
    sn->issuing += x.warp[s] == WS_VIZ_WARP_ISSUING;
    sn->done += x.warp[s] == WS_VIZ_WARP_DONE;
    sn->unrecorded += x.warp[s] == WS_VIZ_WARP_UNRECORDED;
    sn->stalled += x.warp[s] >= WS_VIZ_WARP_STALL0 && x.warp[s] < WS_VIZ_WARP_UNRECORDED;
  }
  cr_assert_eq(memcmp(f->cta_busy, x.cta_busy, c->gpu.num_sms * lr->ctas_per_sm), 0, "cycle %llu: CTA slots",
               (unsigned long long)t);
  for (uint32_t k = 0; k < c->gpu.num_sms * lr->ctas_per_sm; k++) sn->active_cta += x.cta_busy[k];
  cr_assert_eq(f->active_warps, x.active, "cycle %llu: %u active warps, the records say %u",
               (unsigned long long)t, f->active_warps, x.active);
  free(x.warp);
  free(x.pc);
  free(x.cta_busy);
}

/* next_change and next_issue against the smallest later begin or end. */
static void check_stepping(const launch_recs *lr, const ws_viz_model *m, uint64_t t) {
  uint64_t next = UINT64_MAX;
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    uint64_t c[3] = {e->begin, e->end, e->kind == WS_PEV_ISSUE ? e->begin + 1 : e->begin};
    for (int k = 0; k < 3; k++)
      if (c[k] > t && c[k] < next) next = c[k];
  }
  cr_assert_eq(ws_viz_model_next_change(m, t), next, "cycle %llu", (unsigned long long)t);
  /* the next issue of the slots of SM 0 and of the last SM */
  uint32_t ws = lr->cfg.sm.max_warps_per_sm, last = lr->cfg.gpu.num_sms - 1;
  uint64_t *want = malloc(2 * ws * sizeof *want);
  for (uint32_t k = 0; k < 2 * ws; k++) want[k] = UINT64_MAX;
  for (size_t i = 0; i < lr->n; i++) {
    const ws_probe_event *e = &lr->ev[i];
    if (e->kind != WS_PEV_ISSUE || (e->sm != 0 && e->sm != last) || e->begin <= t) continue;
    uint64_t *w = &want[(e->sm == 0 ? 0 : ws) + e->warp];
    if (e->begin < *w) *w = e->begin;
  }
  for (uint32_t k = 0; k < 2 * ws; k++) {
    uint32_t sm = k < ws ? 0 : last;
    cr_assert_eq(ws_viz_model_next_issue(m, sm, k % ws, t), want[k], "sm %u warp %u after %llu", sm, k % ws,
                 (unsigned long long)t);
  }
  free(want);
}

/* Cycles to look at: spread over the launch and past its end, and around
 * some issues, packets and DRAM commands. */
static size_t sample_cycles(const launch_recs *lr, uint64_t cycles, uint64_t *out, size_t cap) {
  size_t n = 0, count[4] = {0, 0, 0, 0}, picked[4] = {0, 0, 0, 0};
  for (uint64_t i = 0; i < 50; i++) out[n++] = i * (cycles + 20) / 49;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < lr->n && n + 3 <= cap; i++) {
      const ws_probe_event *e = &lr->ev[i];
      int k = e->kind == WS_PEV_ISSUE  ? 0
              : e->kind == WS_PEV_XBAR ? 1
              : e->kind == WS_PEV_DRAM ? 2
              : e->kind == WS_PEV_CTA  ? 3
                                       : -1;
      if (k < 0) continue;
      if (pass == 0) {
        count[k]++;
        continue;
      }
      size_t step = count[k] / 16 + 1; /* about 16 of each kind */
      if (picked[k]++ % step) continue;
      /* packets and DRAM commands at their begin or end; CTAs before they retire */
      uint64_t at = k == 3                            ? (e->end > 2 ? e->end - 2 : 0)
                    : k > 0 && (picked[k] / step) % 2 ? e->end
                                                      : e->begin;
      out[n++] = at ? at - 1 : 0;
      out[n++] = at;
      out[n++] = at + 1;
    }
  return n;
}

static seen check_trace(const char *what, uint32_t window) {
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_model *m = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &m), WS_OK, "%s", ws_errmsg(ctx));
  seen sn = {0};
  for (uint32_t launch = 0; launch < ws_wst_launch_count(r); launch++) {
    launch_recs lr = read_launch(r, launch);
    cr_assert_eq(ws_viz_model_load(m, launch), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_viz_model_launch(m), launch);
    cr_assert_eq(ws_viz_model_records(m), lr.n);
    cr_assert_eq(ws_viz_model_skipped(m), 0);
    cr_assert_geq(ws_viz_model_cycles(m), ws_wst_launch(r, launch)->cycles, "the kernel's end at least");
    cr_assert_gt(ws_viz_model_bytes(m), lr.n * 8);
    uint64_t cyc[256];
    size_t n = sample_cycles(&lr, ws_viz_model_cycles(m), cyc, 256);
    for (size_t i = 0; i < n; i++) {
      const ws_viz_frame *f = NULL;
      cr_assert_eq(ws_viz_model_frame(m, cyc[i], window, &f), WS_OK, "%s", ws_errmsg(ctx));
      cr_assert_eq(f->cycle, cyc[i]);
      cr_assert_eq(f->launch, launch);
      cr_assert_eq(f->ctas_per_sm, lr.ctas_per_sm);
      cr_assert_eq(f->warp_slots, lr.cfg.sm.max_warps_per_sm);
      check_warps(&lr, f, cyc[i], &sn);
      check_units(&lr, f, cyc[i], &sn);
      check_windows(&lr, f, cyc[i], window, &sn);
      check_memory(&lr, f, cyc[i], &sn);
      if (i % 4 == 0) check_stepping(&lr, m, cyc[i]);
    }
    cr_assert_eq(ws_viz_model_next_change(m, ws_viz_model_cycles(m)), UINT64_MAX, "nothing after the end");
    free(lr.ev);
    free(lr.l2_slice);
  }
  cr_log_info("%s: issuing %llu, stalled %llu, done %llu, unrecorded %llu, CTAs %llu, packets %llu (DRAM "
              "%llu), open rows %llu, "
              "HMMAs %llu, shared %llu, rf %llu, L1 %llu, L2 %llu",
              what, (unsigned long long)sn.issuing, (unsigned long long)sn.stalled,
              (unsigned long long)sn.done, (unsigned long long)sn.unrecorded,
              (unsigned long long)sn.active_cta, (unsigned long long)sn.packets,
              (unsigned long long)sn.dram_packets, (unsigned long long)sn.open_rows,
              (unsigned long long)sn.tensor, (unsigned long long)sn.smem, (unsigned long long)sn.rf,
              (unsigned long long)sn.l1, (unsigned long long)sn.l2);
  cr_expect_gt(sn.issuing, 0u, "%s: issues met", what);
  cr_expect_gt(sn.stalled, 0u, "%s: stalls met", what);
  cr_expect_gt(sn.packets, 0u, "%s: packets met", what);
  cr_expect_gt(sn.dram_packets, 0u, "%s: DRAM bursts met", what);
  cr_expect_gt(sn.dram_slices, 0u, "%s: DRAM reads' slices checked", what);
  cr_expect_gt(sn.open_rows, 0u, "%s: open rows met", what);
  cr_expect_gt(sn.l2, 0u, "%s: L2 lookups met", what);
  if (strstr(what, "mma")) cr_expect_gt(sn.tensor, 0u, "%s: HMMAs in flight met", what);
  if (strstr(what, "sgemm")) cr_expect_gt(sn.smem, 0u, "%s: shared accesses met", what);
  if (strstr(what, "sgemm")) cr_expect_gt(sn.rf, 0u, "%s: operand-bank conflicts met", what);
  if (strstr(what, "saxpy")) cr_expect_gt(sn.l1, 0u, "%s: L1 lookups met", what);
  ws_viz_model_destroy(m);
  ws_wst_close(r);
  return sn;
}

Test(viz_model, mma_frames_match_the_records) {
  ws_example_shape s = ws_example_default_shape("mma");
  record("mma", "a100", &s);
  seen sn = check_trace("mma on a100", 500);
  cr_expect_eq(sn.unrecorded, 0u, "every cycle of a resident warp has its record");
  cr_expect_gt(sn.done, 0u, "finished warps met");
}

Test(viz_model, sgemm_frames_match_the_records) {
  ws_example_shape s = ws_example_default_shape("sgemm");
  s.m = s.n = s.k = 64;
  record("sgemm", "a100", &s);
  seen sn = check_trace("sgemm on a100", 1000);
  cr_expect_eq(sn.unrecorded, 0u, "every cycle of a resident warp has its record");
  cr_expect_gt(sn.done, 0u, "finished warps met");
}

Test(viz_model, saxpy_frames_match_the_records) {
  ws_example_shape s = ws_example_default_shape("saxpy");
  s.n = 8192;
  record("saxpy", "classroom", &s);
  seen sn = check_trace("saxpy on classroom", 64);
  cr_expect_eq(sn.unrecorded, 0u, "every cycle of a resident warp has its record");
  cr_expect_gt(sn.done, 0u, "finished warps met");
}

/* A trace recorded with a cycle window lacks the spans begun before it:
 * resident warps show as unrecorded there, and the frames still follow
 * the records that were kept. */
Test(viz_model, a_cycle_window_leaves_warps_unrecorded) {
  ws_example_shape s = ws_example_default_shape("saxpy");
  s.n = 16384;
  ws_wst_filter filter = {.cycle_begin = 400, .cycle_end = 900};
  record_filtered("saxpy", "classroom", &s, &filter);
  seen sn = check_trace("saxpy on classroom, cycles 400 to 900", 64);
  cr_expect_gt(sn.unrecorded, 0u);
}

/* ---- determinism, errors, damage ------------------------------------------------- */

static bool same_frame(const ws_viz_frame *a, const ws_viz_frame *b) {
  size_t sms = a->num_sms, sp = sms * a->subpartitions, banks = (size_t)a->channels * a->banks_per_channel;
  size_t warps = sms * a->warp_slots;
  return a->cycle == b->cycle && a->npackets == b->npackets && a->active_warps == b->active_warps &&
         !memcmp(a->warp, b->warp, warps) && !memcmp(a->warp_pc, b->warp_pc, warps * 4) &&
         !memcmp(a->cta_busy, b->cta_busy, sms * a->ctas_per_sm) &&
         !memcmp(a->smem_banks, b->smem_banks, sms * 4) &&
         !memcmp(a->smem_wavefronts, b->smem_wavefronts, sms * 4) &&
         !memcmp(a->rf_conflict, b->rf_conflict, sp * 4) && !memcmp(a->tensor_busy, b->tensor_busy, sp) &&
         !memcmp(a->l1_lookups, b->l1_lookups, sms * 4) && !memcmp(a->l1_hits, b->l1_hits, sms * 4) &&
         !memcmp(a->l1_set_touched, b->l1_set_touched, sms * 4) &&
         !memcmp(a->l2_lookups, b->l2_lookups, a->num_slices * 4) &&
         !memcmp(a->l2_hits, b->l2_hits, a->num_slices * 4) && !memcmp(a->bank_row, b->bank_row, banks * 4) &&
         !memcmp(a->bank_busy, b->bank_busy, banks) &&
         !memcmp(a->packets, b->packets, a->npackets * sizeof *a->packets) &&
         a->l1_hit_pct == b->l1_hit_pct && a->l2_hit_pct == b->l2_hit_pct && a->dram_gbps == b->dram_gbps &&
         a->xbar_gbps == b->xbar_gbps;
}

Test(viz_model, frames_are_deterministic) {
  ws_example_shape s = ws_example_default_shape("mma");
  record("mma", "classroom", &s);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_model *a = NULL, *b = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &a), WS_OK);
  cr_assert_eq(ws_viz_model_create(ctx, r, &b), WS_OK);
  cr_assert_eq(ws_viz_model_load(a, 0), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_load(b, 0), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_load(b, 0), WS_OK, "%s", ws_errmsg(ctx)); /* a reload gives the same */
  uint64_t cycles = ws_viz_model_cycles(a);
  cr_assert_gt(cycles, 1000u);
  size_t packets = 0;
  for (uint64_t i = 0; i < 40; i++) {
    uint64_t t = i * cycles / 39, back = (39 - i) * cycles / 39;
    const ws_viz_frame *fa = NULL, *fb = NULL;
    cr_assert_eq(ws_viz_model_frame(b, back, 300, &fb), WS_OK); /* scrubbing backwards first */
    cr_assert_eq(ws_viz_model_frame(a, t, 300, &fa), WS_OK);
    cr_assert_eq(ws_viz_model_frame(b, t, 300, &fb), WS_OK);
    cr_assert(same_frame(fa, fb), "cycle %llu", (unsigned long long)t);
    packets += fa->npackets;
  }
  cr_assert_gt(packets, 0u);
  ws_viz_model_destroy(a);
  ws_viz_model_destroy(b);
  ws_wst_close(r);
}

Test(viz_model, misuse_is_an_error) {
  ws_example_shape s = ws_example_default_shape("saxpy");
  s.n = 4096;
  record("saxpy", "classroom", &s);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_model *m = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &m), WS_OK);
  const ws_viz_frame *f = NULL;
  cr_assert_eq(ws_viz_model_frame(m, 0, 10, &f), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "viz model: no launch loaded");
  cr_assert_null(f);
  cr_assert_eq(ws_viz_model_next_change(m, 0), UINT64_MAX);
  cr_assert_eq(ws_viz_model_next_issue(m, 0, 0, 0), UINT64_MAX);
  cr_assert_eq(ws_viz_model_launch(m), UINT32_MAX);
  cr_assert_eq(ws_viz_model_load(m, 1), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "launch 1: the trace holds 1");
  cr_assert_eq(ws_viz_model_load(m, 0), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_frame(m, 100, 0, &f), WS_OK, "window 0 counts as 1");
  cr_assert_eq(f->window_cycles, 1u);
  cr_assert_eq(ws_viz_model_next_issue(m, 999, 0, 0), UINT64_MAX);
  cr_assert_eq(ws_viz_model_next_issue(m, 0, 999, 0), UINT64_MAX);
  ws_viz_model_destroy(m);
  ws_viz_model_destroy(NULL);
  ws_wst_close(r);
}

static unsigned char *slurp(const char *p, size_t *size) {
  FILE *fp = fopen(p, "rb");
  cr_assert_not_null(fp);
  fseek(fp, 0, SEEK_END);
  *size = (size_t)ftell(fp);
  fseek(fp, 0, SEEK_SET);
  unsigned char *b = malloc(*size);
  cr_assert_eq(fread(b, 1, *size, fp), *size);
  fclose(fp);
  return b;
}

static void spill(const char *p, const unsigned char *b, size_t size) {
  FILE *fp = fopen(p, "wb");
  cr_assert_not_null(fp);
  cr_assert_eq(fwrite(b, 1, size, fp), size);
  fclose(fp);
}

/* Loads every launch of the file at cut_path: each loads, and its frames
 * work, or fails with a message naming a byte. Returns the failures. */
static int load_all(const char *expect_in_message) {
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, cut_path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_model *m = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &m), WS_OK, "%s", ws_errmsg(ctx));
  int failed = 0;
  for (uint32_t l = 0; l < ws_wst_launch_count(r); l++) {
    if (ws_viz_model_load(m, l) != WS_OK) {
      cr_assert(strstr(ws_errmsg(ctx), ": byte ") && strstr(ws_errmsg(ctx), expect_in_message),
                "launch %u: %s", l, ws_errmsg(ctx));
      cr_assert_eq(ws_viz_model_launch(m), UINT32_MAX, "a failed load leaves none loaded");
      const ws_viz_frame *f = NULL;
      cr_assert_eq(ws_viz_model_frame(m, 0, 10, &f), WS_ERR_INVALID);
      failed++;
      continue;
    }
    uint64_t cycles = ws_viz_model_cycles(m);
    for (uint64_t i = 0; i < 20; i++) {
      const ws_viz_frame *f = NULL;
      cr_assert_eq(ws_viz_model_frame(m, i * cycles / 19, 100, &f), WS_OK, "%s", ws_errmsg(ctx));
      cr_assert_leq(f->active_warps, f->num_sms * f->warp_slots);
    }
    for (uint64_t t = 0, k = 0; t != UINT64_MAX && k < 100; k++) t = ws_viz_model_next_change(m, t);
  }
  ws_viz_model_destroy(m);
  ws_wst_close(r);
  return failed;
}

Test(viz_model, a_damaged_trace_is_an_error_naming_the_byte) {
  ws_example_shape s = ws_example_default_shape("mma");
  record("mma", "a100", &s);
  size_t size = 0;
  unsigned char *b = slurp(path, &size);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK);
  size_t chunks = ws_wst_chunk_count(r);
  cr_assert_geq(chunks, 3u, "the launch spans several chunks");
  uint64_t mid = ws_wst_chunk(r, chunks / 2)->offset, next = ws_wst_chunk(r, chunks / 2 + 1)->offset;
  uint64_t events = ws_wst_launch(r, 0)->events;
  ws_wst_close(r);

  /* a flipped byte in a chunk's payload: its CRC-32 fails when read */
  b[mid + 48 + (next - mid - 48) / 2] ^= 0x5A;
  spill(cut_path, b, size);
  char want[64];
  snprintf(want, sizeof want, ": chunk %zu: chunk: CRC-32", chunks / 2);
  cr_assert_eq(load_all(want), 1, "the launch with the damaged chunk fails");
  b[mid + 48 + (next - mid - 48) / 2] ^= 0x5A;

  /* cut in the middle of a chunk: the walk keeps the chunks before it */
  spill(cut_path, b, mid + (next - mid) / 2);
  cr_assert_eq(load_all(""), 0, "the intact part loads");
  cr_assert_eq(ws_wst_open(ctx, cut_path, &r), WS_OK);
  cr_assert_not_null(ws_wst_warning(r));
  ws_viz_model *m = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &m), WS_OK);
  cr_assert_eq(ws_viz_model_load(m, 0), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_gt(ws_viz_model_records(m), 0u);
  cr_assert_lt(ws_viz_model_records(m), events);
  ws_viz_model_destroy(m);
  ws_wst_close(r);

  /* cut at every 1/16 of the file: never a crash */
  for (int k = 1; k < 16; k++) {
    spill(cut_path, b, size * (size_t)k / 16);
    ws_wst_reader *rk = NULL;
    if (ws_wst_open(ctx, cut_path, &rk) != WS_OK) continue;
    ws_wst_close(rk);
    load_all("");
  }
  free(b);
}

/* ---- packets by tensor ------------------------------------------------------------ */

/* saxpy's x as weights, y left unnamed: its packets must then say which. */
static void x_as_weights(ws_example_check *c) {
  cr_assert_eq(c->nregions, 2u);
  cr_assert_str_eq(c->regions[0].name, "x");
  c->regions[0].tensor = WS_RUNTIME_TENSOR_WEIGHTS;
  c->nregions = 1;
}

Test(viz_model, packets_carry_the_tensor_of_their_address) {
  ws_example_shape s = ws_example_default_shape("saxpy");
  s.n = 4096;
  record_labelled("saxpy", "classroom", &s, NULL, x_as_weights);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  ws_viz_model *m = NULL;
  cr_assert_eq(ws_viz_model_create(ctx, r, &m), WS_OK);
  cr_assert_eq(ws_viz_model_region_count(m), 1u);
  const ws_runtime_region *x = ws_viz_model_region(m, 0);
  cr_assert_not_null(x);
  cr_expect_str_eq(x->name, "x");
  cr_expect_null(ws_viz_model_region(m, 1));
  cr_expect_eq(ws_viz_model_region_at(m, x->addr), 0u);
  cr_expect_eq(ws_viz_model_region_at(m, x->addr + x->size_bytes - 1), 0u);
  cr_expect_eq(ws_viz_model_region_at(m, x->addr + x->size_bytes), WS_VIZ_NO_REGION);
  cr_expect_eq(ws_viz_model_region_at(m, x->addr - 1), WS_VIZ_NO_REGION);
  cr_assert_eq(ws_viz_model_load(m, 0), WS_OK, "%s", ws_errmsg(ctx));
  size_t named = 0, unnamed = 0;
  for (uint64_t t = 0; t < ws_viz_model_cycles(m); t += 7) {
    const ws_viz_frame *f = NULL;
    cr_assert_eq(ws_viz_model_frame(m, t, 100, &f), WS_OK, "%s", ws_errmsg(ctx));
    for (size_t i = 0; i < f->npackets; i++) {
      const ws_viz_packet *p = &f->packets[i];
      bool in_x = p->addr >= x->addr && p->addr - x->addr < x->size_bytes;
      cr_assert_eq(p->tensor, in_x ? WS_VIZ_TENSOR_WEIGHTS : WS_VIZ_TENSOR_NONE, "addr 0x%llx",
                   (unsigned long long)p->addr);
      cr_assert_eq(p->region, in_x ? 0u : WS_VIZ_NO_REGION);
      named += in_x, unnamed += !in_x;
    }
  }
  cr_expect_gt(named, 0u, "x is read");
  cr_expect_gt(unnamed, 0u, "y is read and written");
  ws_viz_model_destroy(m);
  ws_wst_close(r);
}
