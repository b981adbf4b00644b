/* test_probe.c - the probe seam (sim/common/probe.h): one load on an idle
 * hierarchy reported hop by hop at the cycles the latency formulas give,
 * the micro-op records adding up to the launch's own counters, and a probe
 * that changes nothing.
 *
 * Design: a recording probe keeps every record in an array; the expected
 * cycles come from the preset's keys (as sim/memsys/latency.c composes
 * them), never from a run. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "models/runs/example.h"
#include "sim/host/pcie.h"
#include "sim/host/runtime.h"
#include "sim/memsys/dram.h"
#include "sim/memsys/latency.h"
#include "sim/memsys/xbar.h"
#include "tests/sim/simtest.h"

typedef struct rec {
  ws_probe_event *ev;
  size_t n, cap;
  uint32_t begins, ends;
  uint64_t end_cycles;
} rec;

static void on_event(void *user, const ws_probe_event *ev) {
  rec *r = user;
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 1024;
    r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
    cr_assert(r->ev);
  }
  r->ev[r->n++] = *ev;
}

static void on_begin(void *user, const ws_probe_launch *l) {
  (void)l;
  ((rec *)user)->begins++;
}

static void on_end(void *user, const ws_probe_launch *l) {
  rec *r = user;
  r->ends++;
  r->end_cycles = l->cycles;
}

static ws_probe probe_of(rec *r) { return (ws_probe){r, on_begin, on_end, on_event}; }

/* The one record of `kind` (the test fails if there are several). */
static const ws_probe_event *only(const rec *r, ws_probe_kind kind) {
  const ws_probe_event *found = NULL;
  for (size_t i = 0; i < r->n; i++) {
    if (r->ev[i].kind != kind) continue;
    cr_assert(!found, "two records of kind %d", kind);
    found = &r->ev[i];
  }
  cr_assert(found, "no record of kind %d", kind);
  return found;
}

static size_t count(const rec *r, ws_probe_kind kind, uint8_t outcome, bool any_outcome) {
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++)
    n += r->ev[i].kind == kind && (any_outcome || r->ev[i].outcome == outcome);
  return n;
}

Test(probe, one_load_hop_by_hop) {
  simtest t;
  st_init(&t, ".kernel k\n.param .ptr buf\nLDP.64 R2, [buf]\nLDG.32 R4, [R2]\nIADD R5, R4, 1\nEXIT\n", "k");
  rec r = {0};
  ws_probe p = probe_of(&r);
  ws_device_set_probe(t.dev, &p);
  st_buf(&t, "buf", 256, NULL);
  st_run(&t, 1, 1);
  const ws_gpu_cfg *c = ws_device_cfg(t.dev);
  uint64_t sector = c->l1.sector_bytes;
  uint64_t port = ws_xbar_beats(sector, c->l1.port_bytes_per_cycle) - 1;
  uint64_t to_slice =
      c->noc.lat_cycles + ws_xbar_beats(c->noc.header_bytes, c->noc.sm_port_bytes_per_cycle) - 1;
  uint64_t to_sm = c->noc.lat_cycles + ws_xbar_beats(sector, c->noc.slice_port_bytes_per_cycle) - 1;

  const ws_probe_event *l1 = only(&r, WS_PEV_L1), *dram = only(&r, WS_PEV_DRAM), *l2 = only(&r, WS_PEV_L2);
  const ws_probe_event *fill2 = only(&r, WS_PEV_L2_FILL), *fill1 = only(&r, WS_PEV_L1_FILL);
  const ws_probe_event *done = only(&r, WS_PEV_MEM_DONE);
  cr_expect_eq(l1->outcome, WS_PROBE_L1_MISS);
  cr_expect_eq(l1->c, 1u, "one sector");
  cr_expect_neq(l1->uop, 0u);
  const ws_probe_event *req = NULL, *resp = NULL;
  for (size_t i = 0; i < r.n; i++)
    if (r.ev[i].kind == WS_PEV_XBAR) *(r.ev[i].outcome == WS_PROBE_DIR_REQ ? &req : &resp) = &r.ev[i];
  cr_assert(req && resp);
  /* one micro-op from the LSU to the slice and back; the DRAM read is its own, linked to it */
  cr_expect_eq(req->uop, l1->uop);
  cr_expect_eq(l2->uop, l1->uop);
  cr_expect_eq(resp->uop, l1->uop);
  cr_expect_eq(fill1->uop, l1->uop);
  cr_expect_eq(dram->link, l1->uop);
  cr_expect_eq(fill2->uop, dram->uop);
  cr_expect_neq(dram->uop, l1->uop);
  /* each hop at the cycle the idle-latency terms give */
  cr_expect_eq(req->begin, l1->begin + c->l1.hit_lat_cycles, "the request leaves after the L1's tag pass");
  uint64_t far =
      l2->flags & WS_PROBE_FAR ? c->geom.l2_far_extra_lat_cycles : 0; /* charged on the way there */
  cr_expect_eq(req->end, req->begin + to_slice + far);
  cr_expect_eq(l2->begin, req->end);
  cr_expect_eq(l2->outcome, WS_PROBE_L2_MISS);
  cr_expect_eq(dram->begin, l2->begin + c->l2.hit_lat_cycles + c->hbm.ctrl_lat_cycles);
  cr_expect_eq(dram->outcome, WS_PROBE_ROW_MISS, "an idle bank has no open row");
  cr_expect_eq(dram->end, dram->begin + c->geom.hbm_t_rcd_cycles + c->geom.hbm_t_cl_cycles +
                              ws_dram_bus_cycles(c, (uint32_t)sector));
  cr_expect_eq(fill2->begin, dram->end + c->hbm.ctrl_lat_cycles);
  cr_expect_eq(resp->begin, fill2->begin);
  cr_expect_eq(resp->end, resp->begin + to_sm);
  cr_expect_eq(fill1->begin, resp->end);
  cr_expect_eq(fill1->end, fill1->begin + port);
  cr_expect_eq(done->begin, fill1->end);
  cr_expect_eq(done->begin - l1->begin, ws_latency_idle_cycles(c, WS_LEVEL_DRAM_ROW_MISS) + far,
               "the whole trip is the preset's idle DRAM latency");
  /* the load itself: issued the cycle before the LSU sends its line */
  const ws_probe_event *ldg = NULL;
  for (size_t i = 0; i < r.n; i++)
    if (r.ev[i].kind == WS_PEV_ISSUE && r.ev[i].pc == 1) ldg = &r.ev[i];
  cr_assert(ldg);
  cr_expect_eq(ldg->a, 1u, "one active lane");
  cr_expect_eq(ldg->b, (uint32_t)WS_OP_LDG);
  cr_expect_eq(done->pc, 1u);
  cr_expect_eq(done->warp, ldg->warp);
  cr_expect_eq(r.begins, 1u);
  cr_expect_eq(r.ends, 1u);
  cr_expect_eq(only(&r, WS_PEV_KERNEL)->end, t.stats.cycles);
  cr_expect_eq(r.end_cycles, t.stats.cycles);
  free(r.ev);
  st_fini(&t);
}

static uint64_t sum_stall_spans(const rec *r) {
  uint64_t spans = 0;
  for (size_t i = 0; i < r->n; i++)
    if (r->ev[i].kind == WS_PEV_STALL || r->ev[i].kind == WS_PEV_DEPBAR)
      spans += r->ev[i].end - r->ev[i].begin;
  return spans;
}

/* The records rebuild the launch's own counters. */
static void check_sums(const rec *r, const ws_stats *s, const ws_launch_stats *ls, const char *what) {
  size_t l1 = count(r, WS_PEV_L1, 0, true), refused = count(r, WS_PEV_L1, WS_PROBE_L1_RESFAIL, false);
  cr_expect_eq(l1 - refused, ws_stats_sum(s, "sm*.lsu.line_accesses"), "%s: an L1 record per line access",
               what);
  cr_expect_eq(refused, ws_stats_sum(s, "sm*.lsu.refusals"), "%s: a refusal record per refusal", what);
  cr_expect_eq(count(r, WS_PEV_DRAM, 0, true),
               ws_stats_sum(s, "hbm.*.reads") + ws_stats_sum(s, "hbm.*.writes"),
               "%s: a DRAM record per command", what);
  cr_expect_eq(count(r, WS_PEV_DRAM, WS_PROBE_ROW_HIT, false), ws_stats_sum(s, "hbm.*.row_hits"), "%s", what);
  cr_expect_eq(count(r, WS_PEV_ISSUE, 0, true), ls->warp_insns, "%s: an issue record per warp instruction",
               what);
  cr_expect_eq(count(r, WS_PEV_CTA, 0, true), ls->ctas, "%s: a CTA record per CTA", what);
  cr_expect_eq(sum_stall_spans(r) + ls->warp_insns, ws_stats_sum(s, "sm*.stall.*"),
               "%s: stall spans and issues cover every charged warp cycle", what);
  uint64_t smem = 0;
  for (size_t i = 0; i < r->n; i++)
    if (r->ev[i].kind == WS_PEV_SMEM) smem += r->ev[i].b;
  cr_expect_eq(smem, ws_stats_sum(s, "sm*.smem.wavefronts"), "%s: shared wavefronts", what);
}

/* Runs example `name` on `gpu` with (r) or without (NULL) a probe and
 * returns every counter, in registry order. */
static uint64_t *run_example(const char *name, const char *gpu, rec *r, size_t *n, ws_launch_stats *ls) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, gpu, &cfg), WS_OK);
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_probe p = r ? probe_of(r) : (ws_probe){0};
  if (r) ws_device_set_probe(dev, &p);
  ws_example_check check;
  ws_example_shape shape = ws_example_default_shape(name);
  cr_assert_eq(ws_example_run(dev, name, &shape, &check), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(check.pass, "%s on %s: the result is right", name, gpu);
  *ls = check.stats;
  const ws_stats *s = ws_device_stats(dev);
  *n = ws_stats_count(s);
  uint64_t *v = calloc(*n, sizeof *v);
  for (size_t i = 0; i < *n; i++) v[i] = ws_stats_value(s, i);
  if (r) check_sums(r, s, ls, name);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return v;
}

Test(probe, records_add_up_and_change_nothing) {
  static const char *const names[] = {"saxpy", "sgemm", "reduce", "mma"};
  for (size_t e = 0; e < sizeof names / sizeof *names; e++) {
    rec r = {0};
    size_t n0, n1;
    ws_launch_stats ls0, ls1;
    uint64_t *v0 = run_example(names[e], "a100", NULL, &n0, &ls0);
    uint64_t *v1 = run_example(names[e], "a100", &r, &n1, &ls1);
    cr_assert_eq(n0, n1);
    cr_expect_eq(memcmp(v0, v1, n0 * sizeof *v0), 0, "%s: every counter is the same with a probe", names[e]);
    cr_expect_eq(ls0.cycles, ls1.cycles);
    free(v0);
    free(v1);
    free(r.ev);
  }
}

Test(probe, runtime_records_and_dma_bursts) {
  simtest t;
  st_init(&t, ".kernel k\nEXIT\n", "k");
  rec r = {0};
  ws_probe p = probe_of(&r);
  ws_device_set_probe(t.dev, &p);
  ws_runtime *rt = NULL;
  cr_assert_eq(ws_runtime_create(t.dev, &rt), WS_OK);
  const ws_cfg_pcie *pc = &ws_device_cfg(t.dev)->pcie;
  uint64_t bytes = 2ull * pc->staging_chunk_bytes + 1000; /* three staging chunks, the last short */
  ws_runtime_host h;
  cr_assert_eq(ws_runtime_host_alloc(rt, bytes, WS_PCIE_PAGEABLE, &h), WS_OK);
  uint64_t d;
  cr_assert_eq(ws_runtime_malloc(rt, bytes, &d), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(rt, 0, d, h, 0, bytes, "in"), WS_OK);
  cr_assert_eq(ws_runtime_launch(rt, 0, t.k, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, &t.args, "k"),
               WS_OK);
  cr_assert_eq(ws_runtime_host_work(rt, "cpu", 500), WS_OK);
  size_t nrec;
  const ws_runtime_record *tl = ws_runtime_timeline(rt, &nrec);
  cr_expect_eq(count(&r, WS_PEV_HOST, 0, true) - count(&r, WS_PEV_HOST, WS_PROBE_HOST_LAUNCH_OVERHEAD, false),
               nrec, "one record per timeline entry");
  /* the bursts tile the copy in order and the last one ends the copy */
  uint64_t next_off = 0, prev_end = tl[0].start_ns;
  size_t bursts = 0;
  for (size_t i = 0; i < r.n; i++) {
    const ws_probe_event *e = &r.ev[i];
    if (e->kind != WS_PEV_PCIE) continue;
    bursts++;
    cr_expect_eq(e->addr, next_off);
    cr_expect_geq(e->begin, prev_end);
    cr_expect_eq(e->end - e->begin, ws_pcie_dma_ns(pc, e->c), "a burst lasts its DMA time");
    next_off += e->c;
    prev_end = e->end;
  }
  cr_expect_eq(bursts, 3u);
  cr_expect_eq(next_off, bytes);
  cr_expect_eq(prev_end, tl[0].end_ns, "the last burst ends the copy");
  const ws_probe_event *ovh = NULL;
  for (size_t i = 0; i < r.n; i++)
    if (r.ev[i].kind == WS_PEV_HOST && r.ev[i].outcome == WS_PROBE_HOST_LAUNCH_OVERHEAD) ovh = &r.ev[i];
  cr_assert(ovh);
  cr_expect_eq(ovh->end - ovh->begin, pc->launch_overhead_ns);
  cr_expect_eq(ovh->a, 1u, "the overhead of the kernel, the second record");
  cr_expect_leq(ovh->end, tl[1].start_ns);
  ws_runtime_destroy(rt);
  free(r.ev);
  st_fini(&t);
}
