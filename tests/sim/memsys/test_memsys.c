/* test_memsys.c - the wired hierarchy: idle-latency probes for every level,
 * back-pressure end to end, reset, determinism.
 *
 * Design: the probes compare the simulated response cycle with both the
 * formula (ws_latency_idle_cycles, a sum of per-stage latencies) and a
 * number worked out by hand from memtest.h's configuration, so a wrong
 * formula and a wrong simulator cannot agree by accident. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/memsys/l2.h"
#include "sim/memsys/latency.h"
#include "tests/sim/memsys/memtest.h"

/* Hand values for mt_cfg():
 *  L1 hit: hit_lat 20 + (ceil(32/64) - 1) = 20
 *  a miss leaves the L1 after its pipeline: 20
 *  to slice: lat 10 + ceil(8/32) - 1 = 10; back: lat 10 + ceil(32/32) - 1 = 10
 *  L2 near: 20 + 10 + 100 + 10 + 0 = 140; far: 140 + 30 (once per round trip) = 170
 *  DRAM row miss: 140 + 2 * 20 (ctrl) + 14 (tRCD) + 14 (tCL) + 2 (32 B at 16 B/cycle) = 210 */

static uint64_t probe(mt_sys *s, uint32_t sm, uint64_t line, uint64_t cookie) {
  uint64_t t = s->now;
  cr_assert(mt_access(s, sm, line, 0x1, WS_ACCESS_LOAD, cookie));
  mt_run(s, UINT64_MAX);
  cr_assert_neq(s->resp_cycle[cookie], 0, "no response");
  cr_assert(ws_memsys_idle(s->m));
  return s->resp_cycle[cookie] - t;
}

Test(memsys, idle_probes_single_partition) {
  ws_gpu_cfg c = mt_cfg();
  mt_sys s;
  mt_init(&s, &c);
  s.now = 1000;
  uint64_t dram = probe(&s, 0, 0x10000, 1);
  cr_expect_eq(dram, 210);
  cr_expect_eq(dram, ws_latency_idle_cycles(&c, WS_LEVEL_DRAM_ROW_MISS));
  s.now += 50;
  uint64_t l1 = probe(&s, 0, 0x10000, 2);
  cr_expect_eq(l1, 20);
  cr_expect_eq(l1, ws_latency_idle_cycles(&c, WS_LEVEL_L1_HIT));
  s.now += 50;
  uint64_t l2 = probe(&s, 1, 0x10000, 3); /* another SM: misses its L1, hits L2 */
  cr_expect_eq(l2, 140);
  cr_expect_eq(l2, ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR));
  cr_expect_eq(ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_FAR), 140, "one partition: far == near");
  mt_fini(&s);
}

/* A line whose slice lies in partition `part` (slices 0-1: partition 0, 2-3: 1). */
static uint64_t line_in_partition(const ws_gpu_cfg *c, uint32_t part, uint64_t line) {
  ws_ctx *ctx = ws_ctx_create();
  ws_stats *st = ws_stats_create();
  ws_l2 *l2;
  cr_assert_eq(ws_l2_create(ctx, c, st, 16, &l2), WS_OK);
  while (ws_l2_slice_of(l2, line) * c->l2.partitions / c->l2.slices != part) line += 128;
  ws_l2_destroy(l2);
  ws_stats_destroy(st);
  ws_ctx_destroy(ctx);
  return line;
}

Test(memsys, idle_probes_two_partitions) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.partitions = 2; /* SMs 0-1 and slices 0-1 near each other, SMs 2-3 with slices 2-3 */
  c.l2.far_extra_lat_cycles = 30;
  mt_sys s;
  mt_init(&s, &c);
  uint64_t line = line_in_partition(&c, 0, 0x40000);
  cr_expect_eq(probe(&s, 0, line, 1), 210, "near DRAM path");
  s.now += 10;
  uint64_t near = probe(&s, 1, line, 2);
  s.now += 10;
  uint64_t far = probe(&s, 3, line, 3);
  cr_expect_eq(near, 140);
  cr_expect_eq(far, 170);
  cr_expect_eq(near, ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR));
  cr_expect_eq(far, ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_FAR));
  s.now += 10;
  cr_expect_eq(probe(&s, 3, line_in_partition(&c, 0, 0x200000), 4), 210 + 30,
               "a far DRAM miss pays the far penalty once");
  mt_fini(&s);
}

Test(memsys, multi_sector_response_serialises_on_ports) {
  ws_gpu_cfg c = mt_cfg();
  mt_sys s;
  mt_init(&s, &c);
  cr_assert(mt_access(&s, 0, 0x8000, 0xF, WS_ACCESS_LOAD, 1));
  mt_run(&s, UINT64_MAX);
  /* 128 B: DRAM bus 8 cycles, slice port 4 beats, L1 port 2 beats:
   * 20 (L1) + 10 + 100 (tag pass) + 20 + 14 + 14 + 8 + 20 + (10 + 3) + 1 = 220 */
  cr_expect_eq(s.resp_cycle[1], 220);
  mt_fini(&s);
}

Test(memsys, stores_are_posted_and_atomics_answer) {
  ws_gpu_cfg c = mt_cfg();
  mt_sys s;
  mt_init(&s, &c);
  cr_assert(mt_access(&s, 0, 0x2000, 0x3, WS_ACCESS_STORE, 1));
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(s.responses, 0, "stores produce no response");
  cr_expect(ws_memsys_idle(s.m));
  cr_expect_eq(mt_stat(&s, "l2.slice*.writes"), 1);
  s.now = 1000;
  /* the store allocated the line in L2 without a fetch: the atomic hits,
   * with one extra slice pass; its request carries 8 + 32 bytes (2 beats
   * on the SM port): 20 + (10 + 1) + 2 * 100 + 10 + 0 = 241 */
  cr_assert(mt_access(&s, 0, 0x2000, 0x1, WS_ACCESS_ATOMIC, 2));
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(s.resp_cycle[2] - 1000, 241);
  cr_expect_eq(mt_stat(&s, "hbm.ch*.reads"), 0);
  mt_fini(&s);
}

Test(memsys, dram_queue_backpressure_stalls_l2_then_drains) {
  ws_gpu_cfg c = mt_cfg();
  c.hbm.channels = 1;
  c.hbm.queue_depth = 1;
  c.l2.mshr_entries_per_slice = 2;
  c.l1.mshr_entries = 16;
  mt_sys s;
  mt_init(&s, &c);
  uint32_t n = 0;
  for (uint32_t sm = 0; sm < 4; sm++)
    for (uint32_t i = 0; i < 12; i++, n++)
      mt_access_retry(&s, sm, 0x100000 + (uint64_t)n * 128 * 4, 0x1, WS_ACCESS_LOAD, n + 1);
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(s.responses, n, "every load answered");
  cr_expect_gt(mt_stat(&s, "l2.slice*.dram_queue_stalls"), 0);
  cr_expect_gt(mt_stat(&s, "l2.slice*.mshr_stalls"), 0, "full MSHRs stall the slices");
  cr_expect_eq(mt_stat(&s, "hbm.ch0.reads"), n);
  cr_expect(ws_memsys_idle(s.m));
  mt_fini(&s);
}

Test(memsys, crossbar_backpressure_holds_l1_misses) {
  ws_gpu_cfg c = mt_cfg();
  c.noc.queue_depth = 1;
  c.l2.slices = 1;
  c.l1.mshr_entries = 2;
  mt_sys s;
  mt_init(&s, &c);
  uint32_t rejected = 0;
  for (uint32_t i = 0; i < 16; i++) {
    for (uint32_t sm = 0; sm < 4; sm++) {
      if (!mt_access(&s, sm, 0x200000 + (uint64_t)(i * 4 + sm) * 128, 0x1, WS_ACCESS_LOAD, i * 4 + sm + 1)) {
        rejected++;
        mt_access_retry(&s, sm, 0x200000 + (uint64_t)(i * 4 + sm) * 128, 0x1, WS_ACCESS_LOAD, i * 4 + sm + 1);
      }
    }
  }
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(s.responses, 64);
  cr_expect_gt(rejected, 0, "the L1s pushed back");
  cr_expect_gt(mt_stat(&s, "noc.slice0.req_stalls"), 0, "packets waited for the slice queue");
  cr_expect(ws_memsys_idle(s.m));
  mt_fini(&s);
}

Test(memsys, reset_makes_caches_cold) {
  ws_gpu_cfg c = mt_cfg();
  mt_sys s;
  mt_init(&s, &c);
  probe(&s, 0, 0x3000, 1);
  ws_memsys_reset(s.m);
  s.now += 100;
  cr_expect_eq(probe(&s, 0, 0x3000, 2), 210, "after reset the line comes from DRAM again");
  mt_fini(&s);
}

Test(memsys, destroy_null_is_a_no_op) { ws_memsys_destroy(NULL); }

/* A mixed, contended workload: several SMs, all kinds, reuse and conflicts. */
static char *run_workload(size_t *len) {
  ws_gpu_cfg c = mt_cfg();
  c.l1.write_policy = WS_WRITE_BACK_ALLOC;
  mt_sys s;
  mt_init(&s, &c);
  uint64_t x = 12345;
  for (uint32_t i = 0; i < 3000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t sm = (uint32_t)(x >> 60) % 4;
    uint64_t line = ((x >> 20) % 512) * 128;
    uint8_t mask = (uint8_t)(1u << ((x >> 40) % 4)) | (uint8_t)((x >> 50) & 0xF);
    ws_access_kind kind = (x >> 33) % 8 == 0   ? WS_ACCESS_STORE
                          : (x >> 33) % 8 == 1 ? WS_ACCESS_ATOMIC
                                               : WS_ACCESS_LOAD;
    mt_access_retry(&s, sm, line, mask, kind, i + 1);
    mt_run(&s, s.now + (x >> 36) % 3);
  }
  mt_run(&s, UINT64_MAX);
  cr_assert(ws_memsys_idle(s.m));
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  ws_stats_write_csv(s.stats, f);
  fprintf(f, "end %llu\n", (unsigned long long)s.now);
  fclose(f);
  mt_fini(&s);
  return buf;
}

Test(memsys, deterministic_stats) {
  size_t n1, n2;
  char *a = run_workload(&n1), *b = run_workload(&n2);
  cr_assert_eq(n1, n2);
  cr_expect_eq(memcmp(a, b, n1), 0, "two identical runs differ");
  cr_expect_neq(strstr(a, "hbm.ch0.row_hits"), NULL);
  free(a);
  free(b);
}

/* Every embedded preset must build a memory system whose probes land on its
 * own formula (the explicit configuration above pins the numbers; this pins
 * the presets to the model). */
Test(memsys, every_preset_probes_match_formula) {
  const char *const *names = ws_config_preset_names();
  cr_assert(names && names[0]);
  for (size_t i = 0; names[i]; i++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg c;
    cr_assert_eq(ws_config_load_preset(ctx, names[i], &c), WS_OK, "%s: %s", names[i], ws_errmsg(ctx));
    ws_ctx_destroy(ctx);
    mt_sys *s = calloc(1, sizeof *s);
    mt_init(s, &c);
    uint32_t far_sm = c.l2.partitions > 1 ? c.gpu.num_sms - 1 : 0;
    uint64_t line = line_in_partition(&c, 0, 0x1000000);
    cr_expect_eq(probe(s, 0, line, 1), ws_latency_idle_cycles(&c, WS_LEVEL_DRAM_ROW_MISS), "%s", names[i]);
    cr_expect_eq(probe(s, 0, line, 2), ws_latency_idle_cycles(&c, WS_LEVEL_L1_HIT), "%s", names[i]);
    cr_expect_eq(probe(s, 1, line, 3), ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR), "%s", names[i]);
    if (far_sm)
      cr_expect_eq(probe(s, far_sm, line, 4), ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_FAR), "%s",
                   names[i]);
    printf("%s: L1 %llu, L2 near %llu, far %llu, DRAM %llu\n", names[i],
           (unsigned long long)ws_latency_idle_cycles(&c, WS_LEVEL_L1_HIT),
           (unsigned long long)ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_NEAR),
           (unsigned long long)ws_latency_idle_cycles(&c, WS_LEVEL_L2_HIT_FAR),
           (unsigned long long)ws_latency_idle_cycles(&c, WS_LEVEL_DRAM_ROW_MISS));
    mt_fini(s);
    free(s);
  }
}

/* A stream of whole-line misses through one channel is bound by its data
 * bus: 128 B lines at 16 B/cycle take 8 bus cycles each, and consecutive
 * lines share rows (8 lines per 1 KiB row), so most accesses are row hits. */
Test(memsys, streaming_reads_are_bus_bound) {
  ws_gpu_cfg c = mt_cfg();
  c.hbm.channels = 1;
  c.l1.mshr_entries = 16;
  mt_sys s;
  mt_init(&s, &c);
  for (uint32_t i = 0; i < 64; i++)
    mt_access_retry(&s, i % 4, 0x400000 + (uint64_t)i * 128, 0xF, WS_ACCESS_LOAD, i + 1);
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(s.responses, 64);
  cr_expect_eq(mt_stat(&s, "hbm.ch0.busy_cycles"), 64 * 8);
  cr_expect_eq(mt_stat(&s, "hbm.ch0.bytes_read"), 64 * 128);
  cr_expect_geq(mt_stat(&s, "hbm.ch0.row_hits"), 64 - 8, "at most one opening per row");
  uint64_t first = UINT64_MAX, last = 0;
  for (uint32_t i = 1; i <= 64; i++) {
    if (s.resp_cycle[i] < first) first = s.resp_cycle[i];
    if (s.resp_cycle[i] > last) last = s.resp_cycle[i];
  }
  cr_expect_geq(last - first, 63 * 8, "responses cannot outrun the bus");
  mt_fini(&s);
}

/* ---- the host memory a hierarchy takes, known before it is built ---------- */

#include <malloc.h>

/* Heap bytes in use: small blocks and mmap'd large ones. AddressSanitizer's
 * allocator does not feed mallinfo2, so there the measure is refused. */
static bool heap_in_use(uint64_t *bytes) {
#if defined(__SANITIZE_ADDRESS__)
  (void)bytes;
  return false;
#else
  struct mallinfo2 mi = mallinfo2();
  *bytes = mi.uordblks + mi.hblkhd;
  return true;
#endif
}

/* A preset grown past the shipped ones in every dimension that sizes a
 * table: SMs, L1 size and MSHRs, L2 size, slices and MSHRs, channels and
 * queues. ws_memsys_state_bytes must be what creation takes, to within the
 * allocator's per-block overhead and the counters' names (a few percent). */
Test(memsys, state_bytes_are_what_creation_allocates) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &c), WS_OK);
  const char *sets[] = {"gpu.num_sms=64",    "l1.size_kib=256",    "l1.mshr_entries=1024",
                        "l2.size_kib=65536", "l2.slices=64",       "l2.mshr_entries_per_slice=512",
                        "hbm.channels=64",   "hbm.queue_depth=256"};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
    cr_assert_eq(ws_config_set(ctx, &c, sets[i]), WS_OK);
  cr_assert_eq(ws_config_resolve(ctx, &c, "test"), WS_OK, "%s", ws_errmsg(ctx));
  uint64_t est = ws_memsys_state_bytes(&c), before, after;
  if (!heap_in_use(&before)) cr_skip_test("the allocator under test does not report its use");
  mt_sys s;
  mt_init(&s, &c);
  heap_in_use(&after);
  uint64_t used = after - before;
  cr_expect_gt(est, (uint64_t)32 << 20, "the grown preset should take tens of MB, not %llu bytes",
               (unsigned long long)est);
  cr_expect(used >= est - est / 50 && used <= est + est / 20, "estimated %llu bytes, creation took %llu",
            (unsigned long long)est, (unsigned long long)used);
  mt_fini(&s);
  ws_ctx_destroy(ctx);
}
