/* test_wst.c - the .wst trace file (traces/wst.h): what goes in through the
 * probe comes back field by field; the same events give the same bytes; a
 * reader seeks to a launch or a cycle without decompressing the chunks
 * before it; damage (a cut, a flipped byte, a newer version) is named by
 * its byte and everything before it still reads; the writer's filters keep
 * exactly the events they promise; the embedded config reloads to the same
 * values; and a realistic event stream costs under 4 bytes per event.
 *
 * Events come from a small deterministic generator (an LCG), so every
 * expected count below follows from the code that produced the trace. Each
 * test works in a fresh mkdtemp folder. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "base/file.h"
#include "traces/block.h"
#include "traces/wst.h"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_wst.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.') remove(path);
  }
  if (d) closedir(d);
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(wst, .init = setup, .fini = teardown);

static void in_dir(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", dir, name); }

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 17;
}

static uint8_t *slurp(const char *path, size_t *n) {
  char *data = NULL;
  cr_assert_eq(ws_file_read(ctx, path, (size_t)1 << 30, "trace", &data, n), WS_OK, "%s", ws_errmsg(ctx));
  return (uint8_t *)data;
}

static void spit(const char *path, const uint8_t *data, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, n, f), n);
  cr_assert_eq(fclose(f), 0);
}

static ws_gpu_cfg preset(const char *name) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, name, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  return cfg;
}

static ws_wst_writer *writer(const char *path, const ws_wst_filter *filter) {
  ws_gpu_cfg cfg = preset("classroom");
  ws_wst_writer *w = NULL;
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, filter, &w), WS_OK, "%s", ws_errmsg(ctx));
  return w;
}

static ws_wst_reader *open_ok(const char *path) {
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  return r;
}

/* Launch helpers: the identity of kernel k is &kernel_ids[k]. */
static const char kernel_ids[4];
static const char *const kernel_names[4] = {"gemm", "softmax", "layernorm", "gelu"};

static ws_probe_launch launch_of(int k) {
  return (ws_probe_launch){.kernel_name = kernel_names[k],
                           .kernel = &kernel_ids[k],
                           .grid = {4, 2, 1},
                           .block = {128, 1, 1},
                           .regs_per_thread = 32u + (uint32_t)k,
                           .shared_bytes = 1024u * (uint32_t)k,
                           .ctas_per_sm = 2,
                           .cycles = 0};
}

static void begin_launch(const ws_probe *p, int k) {
  ws_probe_launch l = launch_of(k);
  p->launch_begin(p->user, &l);
}

static void end_launch(const ws_probe *p, int k, uint64_t cycles) {
  ws_probe_launch l = launch_of(k);
  l.cycles = cycles;
  p->launch_end(p->user, &l);
}

/* Every field of one event from the LCG, with a kind; small values for the
 * fields a simulator keeps small, full range for the rest. */
static ws_probe_event random_event(uint64_t *s, unsigned kind) {
  ws_probe_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = (uint8_t)kind;
  ev.begin = lcg(s) % 1000000;
  ev.end = ev.begin + lcg(s) % 500;
  if (lcg(s) % 8 == 0) ev.end = lcg(s) << 20; /* any 64-bit value, below begin too */
  ev.addr = lcg(s) << 7 | lcg(s);
  ev.uop = lcg(s);
  ev.link = lcg(s) % 3 ? 0 : lcg(s) << 30;
  ev.a = (uint32_t)lcg(s);
  ev.b = (uint32_t)lcg(s);
  ev.c = (uint32_t)lcg(s);
  ev.pc = (uint32_t)lcg(s);
  ev.sm = lcg(s) % 5 ? (uint16_t)(lcg(s) % 132) : WS_PROBE_NONE;
  ev.unit = (uint16_t)lcg(s);
  ev.warp = (uint16_t)lcg(s);
  ev.outcome = (uint8_t)lcg(s);
  ev.flags = (uint8_t)lcg(s);
  return ev;
}

static void expect_same(const ws_probe_event *got, const ws_probe_event *want, size_t i) {
  cr_assert(got->kind == want->kind && got->begin == want->begin && got->end == want->end &&
                got->addr == want->addr && got->uop == want->uop && got->link == want->link &&
                got->a == want->a && got->b == want->b && got->c == want->c && got->pc == want->pc &&
                got->sm == want->sm && got->unit == want->unit && got->warp == want->warp &&
                got->outcome == want->outcome && got->flags == want->flags,
            "event %zu differs: kind %u/%u begin %llu/%llu pc %u/%u addr %llu/%llu", i, got->kind, want->kind,
            (unsigned long long)got->begin, (unsigned long long)want->begin, got->pc, want->pc,
            (unsigned long long)got->addr, (unsigned long long)want->addr);
}

/* Reads every event a cursor yields into evs (launches into lau), up to
 * max; stops at the first error and returns its status. */
static ws_status drain(ws_wst_cursor *c, ws_probe_event *evs, uint32_t *lau, size_t max, size_t *n) {
  *n = 0;
  for (;;) {
    ws_probe_event ev;
    uint32_t l;
    bool got;
    ws_status st = ws_wst_cursor_next(c, &ev, &l, &got);
    if (st != WS_OK || !got) return st;
    cr_assert_lt(*n, max);
    if (evs) evs[*n] = ev;
    if (lau) lau[*n] = l;
    (*n)++;
  }
}

static size_t count_all(ws_wst_reader *r, ws_status *st_out) {
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open(r, &c), WS_OK);
  size_t n = 0;
  ws_status st = drain(c, NULL, NULL, SIZE_MAX, &n);
  if (st_out) *st_out = st;
  ws_wst_cursor_close(c);
  return n;
}

/* ---- round trip --------------------------------------------------------------- */

#define PER_KIND 300

Test(wst, every_kind_with_every_field_comes_back) {
  char path[128];
  in_dir(path, sizeof path, "all.wst");
  ws_wst_writer *w = writer(path, NULL);
  const ws_probe *p = ws_wst_writer_probe(w);
  size_t n = (size_t)WS_PEV_COUNT * PER_KIND;
  ws_probe_event *want = calloc(n, sizeof *want);
  uint32_t *want_launch = calloc(n, sizeof *want_launch);
  uint64_t s = 1;
  /* a third outside launches, two launches of the rest, kinds interleaved */
  for (size_t i = 0; i < n; i++) {
    if (i == n / 3) begin_launch(p, 0);
    if (i == 2 * n / 3) end_launch(p, 0, 777), begin_launch(p, 1);
    want[i] = random_event(&s, (unsigned)(i % WS_PEV_COUNT));
    want_launch[i] = i < n / 3 ? WS_WST_NO_LAUNCH : i < 2 * n / 3 ? 0 : 1;
    p->event(p->user, &want[i]);
  }
  end_launch(p, 1, 999);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);

  ws_wst_reader *r = open_ok(path);
  cr_expect_null(ws_wst_warning(r), "%s", ws_wst_warning(r));
  cr_expect_eq(ws_wst_version(r), WS_WST_VERSION);
  struct stat sb;
  cr_assert_eq(stat(path, &sb), 0);
  cr_expect_eq(ws_wst_file_bytes(r), (uint64_t)sb.st_size);
  ws_probe_event *got = calloc(n, sizeof *got);
  uint32_t *got_launch = calloc(n, sizeof *got_launch);
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open(r, &c), WS_OK);
  size_t k = 0;
  cr_assert_eq(drain(c, got, got_launch, n, &k), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(k, n);
  for (size_t i = 0; i < n; i++) {
    expect_same(&got[i], &want[i], i);
    cr_assert_eq(got_launch[i], want_launch[i], "event %zu", i);
  }
  const ws_wst_counts *counts = ws_wst_counts_of(r);
  for (int kind = 0; kind < WS_PEV_COUNT; kind++) {
    cr_expect_eq(counts->seen[kind], PER_KIND);
    cr_expect_eq(counts->recorded[kind], PER_KIND);
  }
  cr_assert_eq(ws_wst_launch_count(r), 2);
  cr_expect_eq(ws_wst_launch(r, 0)->cycles, 777);
  cr_expect_eq(ws_wst_launch(r, 1)->cycles, 999);
  cr_expect_eq(ws_wst_launch(r, 0)->events, n * 2 / 3 - n / 3);
  cr_expect_eq(ws_wst_launch(r, 1)->flags, 0);
  ws_wst_cursor_close(c);
  ws_wst_close(r);
  free(want), free(want_launch), free(got), free(got_launch);
}

/* ---- metadata ------------------------------------------------------------------ */

/* A kernel freed and another built at its address, under the same name (a
 * GEMM step with another epilogue): a new table entry with its own
 * registers and text, not the first kernel's. */
Test(wst, a_reused_kernel_address_is_a_new_kernel) {
  char path[128];
  in_dir(path, sizeof path, "reuse.wst");
  ws_wst_writer *w = writer(path, NULL);
  const ws_probe *p = ws_wst_writer_probe(w);
  ws_probe_launch l = launch_of(0);
  cr_assert_eq(ws_wst_writer_kernel_source(w, l.kernel, "// bias\nEXIT;\n"), WS_OK);
  p->launch_begin(p->user, &l);
  p->launch_end(p->user, &l);
  p->launch_begin(p->user, &l); /* the same kernel again */
  p->launch_end(p->user, &l);
  cr_assert_eq(ws_wst_writer_kernel_source(w, l.kernel, "// gelu\nEXIT;\n"), WS_OK);
  p->launch_begin(p->user, &l); /* same address, name and registers, other text */
  p->launch_end(p->user, &l);
  l.regs_per_thread = 56;
  p->launch_begin(p->user, &l); /* and other registers */
  p->launch_end(p->user, &l);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);

  ws_wst_reader *r = open_ok(path);
  cr_assert_eq(ws_wst_kernel_count(r), 3);
  cr_expect_str_eq(ws_wst_kernel(r, 0)->source, "// bias\nEXIT;\n");
  cr_expect_str_eq(ws_wst_kernel(r, 1)->source, "// gelu\nEXIT;\n");
  cr_expect_eq(ws_wst_kernel(r, 1)->regs_per_thread, 32);
  cr_expect_eq(ws_wst_kernel(r, 2)->regs_per_thread, 56);
  static const uint32_t kernel_of[4] = {0, 0, 1, 2};
  for (size_t i = 0; i < 4; i++) cr_expect_eq(ws_wst_launch(r, i)->kernel, kernel_of[i], "launch %zu", i);
  ws_wst_close(r);
}

Test(wst, tables_names_timeline_and_journey_come_back) {
  char path[128];
  in_dir(path, sizeof path, "meta.wst");
  ws_wst_writer *w = writer(path, NULL);
  const ws_probe *p = ws_wst_writer_probe(w);
  cr_assert_eq(ws_wst_writer_kernel_source(w, &kernel_ids[0], "// gemm\nEXIT;\n"), WS_OK);
  begin_launch(p, 0);
  end_launch(p, 0, 10);
  begin_launch(p, 1); /* no source given: "" */
  end_launch(p, 1, 20);
  begin_launch(p, 0); /* the same kernel again: one table entry */
  end_launch(p, 0, 30);
  cr_assert_eq(ws_wst_writer_kernel_source(w, &kernel_ids[2], "late"), WS_OK); /* before its launch ends */
  begin_launch(p, 2);
  end_launch(p, 2, 40);
  static const char *const names[] = {"none", "long_scoreboard", "barrier", ""};
  cr_assert_eq(ws_wst_writer_set_names(w, names, 4), WS_OK);
  ws_runtime_record recs[2];
  memset(recs, 0, sizeof recs);
  recs[0] = (ws_runtime_record){.kind = WS_RUNTIME_OP_H2D,
                                .stream = 1,
                                .size_bytes = 4096,
                                .host_mem = WS_PCIE_PAGEABLE,
                                .start_ns = 5,
                                .end_ns = 900};
  strcpy(recs[0].name, "input");
  recs[1] = (ws_runtime_record){.kind = WS_RUNTIME_OP_KERNEL,
                                .stream = WS_RUNTIME_STREAM_HOST,
                                .grid = {4, 2, 1},
                                .block = {128, 1, 1},
                                .start_ns = 1000,
                                .end_ns = 5000};
  strcpy(recs[1].name, "layer0.qkv");
  strcpy(recs[1].kernel, "gemm");
  recs[1].stats.cycles = 1234; /* not stored */
  cr_assert_eq(ws_wst_writer_set_timeline(w, recs, 2), WS_OK);
  uint8_t journey[300];
  for (int i = 0; i < 300; i++) journey[i] = (uint8_t)(i * 7);
  cr_assert_eq(ws_wst_writer_set_journey(w, journey, sizeof journey), WS_OK);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);

  ws_wst_reader *r = open_ok(path);
  cr_assert_eq(ws_wst_kernel_count(r), 3);
  cr_expect_str_eq(ws_wst_kernel(r, 0)->name, "gemm");
  cr_expect_str_eq(ws_wst_kernel(r, 0)->source, "// gemm\nEXIT;\n");
  cr_expect_eq(ws_wst_kernel(r, 0)->regs_per_thread, 32);
  cr_expect_str_eq(ws_wst_kernel(r, 1)->source, "");
  cr_expect_eq(ws_wst_kernel(r, 1)->shared_bytes, 1024);
  cr_expect_str_eq(ws_wst_kernel(r, 2)->source, "late");
  cr_assert_eq(ws_wst_launch_count(r), 4);
  static const uint32_t kernel_of[4] = {0, 1, 0, 2};
  for (size_t i = 0; i < 4; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(r, i);
    cr_expect_eq(l->kernel, kernel_of[i]);
    cr_expect_eq(l->cycles, 10 * (i + 1));
    cr_expect_eq(l->grid[0], 4);
    cr_expect_eq(l->block[0], 128);
    cr_expect_eq(l->ctas_per_sm, 2);
    cr_expect_eq(l->events, 0);
    cr_expect_eq(l->chunk_count, 0);
  }
  size_t nn = 0;
  const char *const *got_names = ws_wst_names(r, &nn);
  cr_assert_eq(nn, 4);
  for (size_t i = 0; i < 4; i++) cr_expect_str_eq(got_names[i], names[i]);
  size_t nt = 0;
  const ws_runtime_record *t = ws_wst_timeline(r, &nt);
  cr_assert_eq(nt, 2);
  cr_expect_eq(t[0].kind, WS_RUNTIME_OP_H2D);
  cr_expect_eq(t[0].stream, 1);
  cr_expect_str_eq(t[0].name, "input");
  cr_expect_eq(t[0].size_bytes, 4096);
  cr_expect_eq(t[0].host_mem, WS_PCIE_PAGEABLE);
  cr_expect_eq(t[0].end_ns, 900);
  cr_expect_eq(t[1].stream, WS_RUNTIME_STREAM_HOST);
  cr_expect_eq(t[1].grid.y, 2);
  cr_expect_eq(t[1].block.x, 128);
  cr_expect_eq(t[1].start_ns, 1000);
  cr_expect_str_eq(t[1].kernel, "gemm");
  cr_expect_eq(t[1].stats.cycles, 0);
  size_t nj = 0;
  const uint8_t *j = ws_wst_journey(r, &nj);
  cr_assert_eq(nj, sizeof journey);
  cr_expect_eq(memcmp(j, journey, nj), 0);
  ws_wst_close(r);
}

/* ---- config -------------------------------------------------------------------- */

Test(wst, the_embedded_config_reloads_to_every_value) {
  for (const char *const *name = ws_config_preset_names(); *name; name++) {
    ws_gpu_cfg cfg = preset(*name);
    cfg.l2.size_kib *= 2; /* an override travels too */
    cr_assert_eq(ws_config_resolve(ctx, &cfg, "test"), WS_OK, "%s", ws_errmsg(ctx));
    char path[128];
    in_dir(path, sizeof path, "cfg.wst");
    ws_wst_writer *w = NULL;
    cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
    ws_wst_writer_free(w);
    ws_wst_reader *r = open_ok(path);
    ws_gpu_cfg again;
    cr_assert_eq(ws_wst_config(r, &again), WS_OK, "%s: %s", *name, ws_errmsg(ctx));
    for (size_t i = 0; i < ws_config_key_count(); i++) {
      const ws_cfg_key *k = ws_config_key(i);
      char a[512], b[512];
      ws_config_format(&cfg, k, a, sizeof a);
      ws_config_format(&again, k, b, sizeof b);
      cr_expect_str_eq(b, a, "%s: %s.%s", *name, k->section, k->key);
    }
    cr_expect_eq(memcmp(&cfg.geom, &again.geom, sizeof cfg.geom), 0, "%s: derived geometry", *name);
    cr_expect_not_null(strstr(ws_wst_config_text(r), "[l2]\n"));
    ws_wst_close(r);
  }
}

/* ---- determinism --------------------------------------------------------------- */

/* Several launches of random events, each launch k with events_per_launch
 * events whose begins rise (so chunks cover disjoint cycle ranges). */
static void write_launches(const char *path, int launches, size_t events_per_launch, const ws_wst_filter *f) {
  ws_wst_writer *w = writer(path, f);
  const ws_probe *p = ws_wst_writer_probe(w);
  uint64_t s = 42;
  for (int k = 0; k < launches; k++) {
    begin_launch(p, k % 4);
    for (size_t i = 0; i < events_per_launch; i++) {
      ws_probe_event ev = random_event(&s, (unsigned)(lcg(&s) % WS_PEV_HOST));
      ev.begin = i;
      p->event(p->user, &ev);
    }
    end_launch(p, k % 4, events_per_launch);
  }
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
}

Test(wst, the_same_events_give_the_same_bytes) {
  char a[128], b[128];
  in_dir(a, sizeof a, "a.wst");
  in_dir(b, sizeof b, "b.wst");
  write_launches(a, 2, 70000, NULL);
  write_launches(b, 2, 70000, NULL);
  size_t na = 0, nb = 0;
  uint8_t *da = slurp(a, &na), *db = slurp(b, &nb);
  cr_assert_eq(na, nb);
  cr_expect_eq(memcmp(da, db, na), 0);
  free(da), free(db);
}

/* ---- seeking ------------------------------------------------------------------- */

#define SEEK_EVENTS 150000 /* per launch: 3 chunks (65536 + 65536 + 18928) */

Test(wst, a_launch_is_read_without_the_chunks_before_it) {
  char path[128];
  in_dir(path, sizeof path, "seek.wst");
  write_launches(path, 3, SEEK_EVENTS, NULL);
  ws_wst_reader *r = open_ok(path);
  cr_assert_eq(ws_wst_chunk_count(r), 9);
  const ws_wst_launch_info *l2 = ws_wst_launch(r, 2);
  cr_expect_eq(l2->first_chunk, 6);
  cr_expect_eq(l2->chunk_count, 3);
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open_launch(r, 2, 0, 0, &c), WS_OK);
  size_t n = 0;
  cr_assert_eq(drain(c, NULL, NULL, SIZE_MAX, &n), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_cursor_close(c);
  cr_expect_eq(n, SEEK_EVENTS);
  cr_expect_eq(ws_wst_chunks_decoded(r), 3);
  /* cycles [70000, 70010) of launch 1: only its second chunk overlaps */
  ws_probe_event evs[10];
  uint32_t lau[10];
  cr_assert_eq(ws_wst_cursor_open_launch(r, 1, 70000, 70010, &c), WS_OK);
  cr_assert_eq(drain(c, evs, lau, 10, &n), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_cursor_close(c);
  cr_assert_eq(n, 10);
  for (size_t i = 0; i < n; i++) cr_expect(evs[i].begin == 70000 + i && lau[i] == 1);
  cr_expect_eq(ws_wst_chunks_decoded(r), 4);
  cr_expect_eq(ws_wst_chunk(r, 4)->min_begin, 65536);
  cr_expect_eq(ws_wst_chunk(r, 4)->max_begin, 131071);
  ws_wst_close(r);

  /* the proof by damage: launch 0's chunks wrecked, launch 2 still reads */
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  ws_wst_reader *whole = NULL;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "mem.wst", &whole), WS_OK);
  uint64_t from = ws_wst_chunk(whole, 0)->offset + 60, to = ws_wst_chunk(whole, 3)->offset;
  ws_wst_close(whole);
  for (uint64_t i = from; i < to; i++) data[i] ^= 0x5a;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "mem.wst", &r), WS_OK);
  cr_assert_eq(ws_wst_cursor_open_launch(r, 2, 0, 0, &c), WS_OK);
  cr_assert_eq(drain(c, NULL, NULL, SIZE_MAX, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(n, SEEK_EVENTS);
  ws_wst_cursor_close(c);
  cr_assert_eq(ws_wst_cursor_open_launch(r, 0, 0, 0, &c), WS_OK);
  cr_expect_eq(drain(c, NULL, NULL, SIZE_MAX, &n), WS_ERR_INVALID);
  cr_expect_not_null(strstr(ws_errmsg(ctx), "chunk 0: chunk: CRC-32"), "%s", ws_errmsg(ctx));
  ws_wst_cursor_close(c);
  cr_expect_eq(ws_wst_cursor_open_launch(r, 3, 0, 0, &c), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "mem.wst: no launch 3 (the trace has 3)");
  ws_wst_close(r);
  free(data);
}

/* ---- damage -------------------------------------------------------------------- */

Test(wst, a_flipped_byte_names_its_chunk_and_the_rest_reads) {
  char path[128];
  in_dir(path, sizeof path, "flip.wst");
  write_launches(path, 2, SEEK_EVENTS, NULL);
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "t.wst", &r), WS_OK);
  uint64_t payload = ws_wst_chunk(r, 4)->offset + WS_BLOCK_HEADER_BYTES;
  ws_wst_close(r);
  data[payload + 100] ^= 0x01;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "t.wst", &r), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_null(ws_wst_warning(r)); /* the index is intact: chunk bytes are checked when read */
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open(r, &c), WS_OK);
  size_t n = 0;
  cr_assert_eq(drain(c, NULL, NULL, SIZE_MAX, &n), WS_ERR_INVALID);
  cr_expect_eq(n, SEEK_EVENTS + 65536); /* launch 0 and chunk 3 */
  char want[200];
  snprintf(want, sizeof want, "t.wst: byte %llu: chunk 4: chunk: CRC-32 0x", (unsigned long long)payload);
  cr_expect_eq(strncmp(ws_errmsg(ctx), want, strlen(want)), 0, "%s", ws_errmsg(ctx));
  cr_expect_not_null(strstr(ws_errmsg(ctx), " expected, 0x"), "%s", ws_errmsg(ctx));
  cr_expect_not_null(strstr(ws_errmsg(ctx), " found"), "%s", ws_errmsg(ctx));
  /* the cursor moved past the damage: chunk 5 follows */
  size_t rest = 0;
  cr_assert_eq(drain(c, NULL, NULL, SIZE_MAX, &rest), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(rest, SEEK_EVENTS - 2 * 65536);
  ws_wst_cursor_close(c);
  ws_wst_close(r);
  free(data);
}

Test(wst, a_cut_file_names_the_byte_and_keeps_the_chunks_before_it) {
  char path[128];
  in_dir(path, sizeof path, "cut.wst");
  write_launches(path, 2, SEEK_EVENTS, NULL);
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "cut.wst", &r), WS_OK);
  uint64_t chunk[6];
  for (int i = 0; i < 6; i++) chunk[i] = ws_wst_chunk(r, (size_t)i)->offset;
  ws_wst_close(r);
  struct {
    uint64_t cut;
    size_t chunks, launches; /* what still reads */
    uint64_t named;          /* the byte the warning names */
  } cases[] = {
      {chunk[4] + 10, 4, 2, chunk[4]}, /* in chunk 4's header */
      {chunk[4] + WS_BLOCK_HEADER_BYTES + 7, 4, 2, chunk[4] + WS_BLOCK_HEADER_BYTES}, /* in its payload */
      {chunk[1] + 3000, 1, 1, chunk[1] + WS_BLOCK_HEADER_BYTES},                      /* in launch 0 */
      {size - 20, 6, 2, 0},                                                           /* in the index */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t cut = cases[i].cut;
    cr_assert_eq(ws_wst_open_memory(ctx, data, cut, "cut.wst", &r), WS_OK, "cut at %llu: %s",
                 (unsigned long long)cut, ws_errmsg(ctx));
    const char *warning = ws_wst_warning(r);
    cr_assert_not_null(warning);
    char want[160];
    snprintf(want, sizeof want, "cut.wst: byte %llu: %llu bytes expected, the file ends",
             (unsigned long long)cut, (unsigned long long)size);
    cr_expect_eq(strncmp(warning, want, strlen(want)), 0, "%s", warning);
    if (cases[i].named) {
      snprintf(want, sizeof want,
               "walked the blocks instead: byte %llu: ", (unsigned long long)cases[i].named);
      cr_expect_not_null(strstr(warning, want), "%s\nwants %s", warning, want);
      cr_expect_not_null(strstr(warning, "(the file ends)"), "%s", warning);
    }
    cr_expect_eq(ws_wst_chunk_count(r), cases[i].chunks, "cut at %llu", (unsigned long long)cut);
    cr_expect_eq(ws_wst_launch_count(r), cases[i].launches, "cut at %llu", (unsigned long long)cut);
    ws_status st;
    size_t n = count_all(r, &st);
    cr_expect_eq(st, WS_OK, "%s", ws_errmsg(ctx));
    size_t want_events =
        cases[i].chunks <= 3 ? cases[i].chunks * 65536 : SEEK_EVENTS + (cases[i].chunks - 3) * 65536;
    if (cases[i].chunks == 6) want_events = 2 * SEEK_EVENTS;
    cr_expect_eq(n, want_events, "cut at %llu", (unsigned long long)cut);
    /* the config comes before the first chunk: always there */
    ws_gpu_cfg cfg;
    cr_expect_eq(ws_wst_config(r, &cfg), WS_OK, "%s", ws_errmsg(ctx));
    ws_wst_close(r);
  }
  /* a recovered launch keeps its kernel by name; one cut short is unfinished */
  cr_assert_eq(ws_wst_open_memory(ctx, data, chunk[4] + 10, "cut.wst", &r), WS_OK);
  cr_expect_str_eq(ws_wst_kernel(r, ws_wst_launch(r, 0)->kernel)->name, "gemm");
  cr_expect_eq(ws_wst_launch(r, 0)->flags, 0);
  cr_expect_eq(ws_wst_launch(r, 1)->kernel, WS_WST_NO_KERNEL);
  cr_expect_eq(ws_wst_launch(r, 1)->flags, WS_WST_LAUNCH_UNFINISHED);
  ws_wst_close(r);
  /* in the header: nothing to read */
  cr_expect_eq(ws_wst_open_memory(ctx, data, 30, "cut.wst", &r), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "cut.wst: byte 30: a 64-byte header expected, 30 bytes found");
  cr_expect_eq(ws_wst_open_memory(ctx, data, 5, "cut.wst", &r), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "cut.wst: not a .wst trace: byte 0: the 8-byte .wst magic expected, 5 bytes found");
  free(data);
}

Test(wst, damaged_metadata_falls_back_to_the_walk) {
  char path[128];
  in_dir(path, sizeof path, "meta-bad.wst");
  write_launches(path, 2, 1000, NULL);
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  uint64_t meta = ws_bytes_le64(data + 24);
  data[meta + WS_BLOCK_HEADER_BYTES + 2] ^= 0xff;
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open_memory(ctx, data, size, "m.wst", &r), WS_OK, "%s", ws_errmsg(ctx));
  char want[200];
  snprintf(want, sizeof want, "m.wst: byte %llu: metadata: CRC-32 0x", (unsigned long long)meta + 48);
  cr_expect_eq(strncmp(ws_wst_warning(r), want, strlen(want)), 0, "%s", ws_wst_warning(r));
  snprintf(want, sizeof want, "walked the blocks instead: byte %llu: metadata: CRC-32",
           (unsigned long long)meta + 48);
  cr_expect_not_null(strstr(ws_wst_warning(r), want), "%s", ws_wst_warning(r));
  cr_expect_eq(ws_wst_launch_count(r), 2);
  cr_expect_eq(ws_wst_kernel_count(r), 2);
  cr_expect_eq(count_all(r, NULL), 2000);
  ws_wst_close(r);
  free(data);
}

Test(wst, a_newer_version_is_refused) {
  char path[128];
  in_dir(path, sizeof path, "new.wst");
  write_launches(path, 1, 10, NULL);
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  ws_bytes_put_le32(data + 8, WS_WST_VERSION + 1);
  ws_bytes_put_le32(data + 60, ws_block_crc(data, 60));
  spit(path, data, size);
  ws_wst_reader *r = NULL;
  cr_expect_eq(ws_wst_open(ctx, path, &r), WS_ERR_INVALID);
  cr_expect_null(r);
  char want[300];
  snprintf(want, sizeof want,
           "%s: byte 8: format version 2 or older expected, 3 found (written by a newer warpscope): refused",
           path);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  free(data);
}

/* Header fields nothing else repeats, changed with the header's CRC-32
 * fixed: the event count the index disagrees with, and the reserved word. */
Test(wst, header_events_and_reserved_word_are_checked) {
  char path[128];
  in_dir(path, sizeof path, "hdr.wst");
  write_launches(path, 1, 10, NULL);
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  uint8_t *orig = malloc(size);
  cr_assert_not_null(orig);
  memcpy(orig, data, size);
  ws_bytes_put_le64(data + 48, ws_bytes_le64(data + 48) + 1);
  ws_bytes_put_le32(data + 60, ws_block_crc(data, 60));
  spit(path, data, size);
  ws_wst_reader *r = open_ok(path);
  cr_assert_not_null(ws_wst_warning(r));
  cr_expect(strstr(ws_wst_warning(r), "events recorded expected (the index's chunks)"), "%s",
            ws_wst_warning(r));
  cr_expect_eq(count_all(r, NULL), 10, "the walk still reads every record");
  ws_wst_close(r);
  memcpy(data, orig, size);
  ws_bytes_put_le32(data + 56, 7);
  ws_bytes_put_le32(data + 60, ws_block_crc(data, 60));
  spit(path, data, size);
  r = open_ok(path);
  cr_assert_not_null(ws_wst_warning(r));
  cr_expect(strstr(ws_wst_warning(r), "byte 56: a reserved word of 0 expected, 7 found"), "%s",
            ws_wst_warning(r));
  ws_wst_close(r);
  free(orig);
  free(data);
}

/* ---- named ranges (version 2) ---------------------------------------------------- */

static const ws_runtime_region test_regions[3] = {
    {0x1000, 256, WS_RUNTIME_TENSOR_IMAGE, "image"},
    {0x2000, 4096, WS_RUNTIME_TENSOR_WEIGHTS, "blocks.0.attn.qkv.weight"},
    {0x3000, 64, WS_RUNTIME_TENSOR_SCORES, "scores"},
};

static void write_regions(const char *path) {
  ws_wst_writer *w = writer(path, NULL);
  begin_launch(ws_wst_writer_probe(w), 0);
  end_launch(ws_wst_writer_probe(w), 0, 10);
  cr_assert_eq(ws_wst_writer_set_regions(w, test_regions, 3), WS_OK, "%s", ws_errmsg(ctx));
  /* after the ranges, as a run that follows a pixel sets it: neither replaces the other */
  cr_assert_eq(ws_wst_writer_set_journey(w, "hops", 4), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
}

Test(wst, named_ranges_come_back) {
  char path[128];
  in_dir(path, sizeof path, "regions.wst");
  write_regions(path);
  ws_wst_reader *r = open_ok(path);
  cr_expect_null(ws_wst_warning(r));
  size_t n = 0;
  const ws_runtime_region *g = ws_wst_regions(r, &n);
  cr_assert_eq(n, 3);
  for (size_t i = 0; i < n; i++) {
    cr_expect_eq(g[i].addr, test_regions[i].addr);
    cr_expect_eq(g[i].size_bytes, test_regions[i].size_bytes);
    cr_expect_eq(g[i].tensor, test_regions[i].tensor);
    cr_expect_str_eq(g[i].name, test_regions[i].name);
  }
  size_t jn = 0;
  const void *j = ws_wst_journey(r, &jn);
  cr_expect(jn == 4 && memcmp(j, "hops", 4) == 0, "the journey comes back beside them");
  ws_wst_close(r);
}

Test(wst, the_writer_refuses_a_bad_range_table) {
  char path[128];
  in_dir(path, sizeof path, "badregions.wst");
  ws_wst_writer *w = writer(path, NULL);
  ws_runtime_region g[2] = {test_regions[1], test_regions[0]}; /* unsorted */
  cr_expect_eq(ws_wst_writer_set_regions(w, g, 2), WS_ERR_INVALID);
  g[0] = test_regions[0], g[1] = test_regions[0]; /* overlapping */
  cr_expect_eq(ws_wst_writer_set_regions(w, g, 2), WS_ERR_INVALID);
  g[1] = test_regions[1], g[1].tensor = WS_RUNTIME_TENSOR_COUNT;
  cr_expect_eq(ws_wst_writer_set_regions(w, g, 2), WS_ERR_INVALID);
  g[1] = test_regions[1], g[1].name[0] = '\0';
  cr_expect_eq(ws_wst_writer_set_regions(w, g, 2), WS_ERR_INVALID);
  ws_wst_writer_free(w);
}

Test(wst, a_version_1_file_still_opens) {
  /* written by the version-1 writer: the same saxpy run docs/traces.md shows, cycles 0 to 200 */
  ws_wst_reader *r = open_ok(WS_SOURCE_DIR "/tests/traces/data/v1_saxpy.wst");
  cr_expect_null(ws_wst_warning(r));
  cr_expect_eq(ws_wst_version(r), 1);
  cr_expect_eq(ws_wst_launch_count(r), 1);
  size_t n = 99;
  ws_wst_regions(r, &n);
  cr_expect_eq(n, 0);
  cr_expect_eq(count_all(r, NULL), 402);
  ws_wst_close(r);
}

/* Rewrites the metadata block of the file at path as a stored (not
 * compressed) block after edit() changed its raw bytes, shifting the index
 * and fixing every size and CRC: what a reader then refuses is the edit. */
static void edit_meta(const char *path, void (*edit)(uint8_t *raw, size_t n)) {
  size_t size = 0;
  uint8_t *data = slurp(path, &size);
  ws_block_file_header fh;
  char why[200];
  cr_assert_eq(ws_block_unpack_file(data, &fh, why, sizeof why), WS_BLOCK_OK);
  ws_block_header h;
  cr_assert(ws_block_unpack(data + fh.meta_offset, &h, why, sizeof why), "%s", why);
  uint8_t *raw = malloc(h.raw_bytes);
  const uint8_t *stored = data + fh.meta_offset + WS_BLOCK_HEADER_BYTES;
  if (h.codec == WS_BLOCK_ZSTD)
    cr_assert_eq(ZSTD_decompress(raw, h.raw_bytes, stored, h.stored_bytes), h.raw_bytes);
  else
    memcpy(raw, stored, h.raw_bytes);
  edit(raw, h.raw_bytes);
  uint64_t old_end = fh.meta_offset + WS_BLOCK_HEADER_BYTES + h.stored_bytes;
  h.codec = WS_BLOCK_RAW;
  h.stored_bytes = h.raw_bytes;
  h.payload_crc = ws_block_crc(raw, h.raw_bytes);
  size_t out_bytes = (size_t)fh.meta_offset + WS_BLOCK_HEADER_BYTES + h.raw_bytes + (size - (size_t)old_end);
  uint8_t *out = malloc(out_bytes);
  memcpy(out, data, (size_t)fh.meta_offset);
  ws_block_pack(&h, out + fh.meta_offset);
  memcpy(out + fh.meta_offset + WS_BLOCK_HEADER_BYTES, raw, h.raw_bytes);
  memcpy(out + fh.meta_offset + WS_BLOCK_HEADER_BYTES + h.raw_bytes, data + old_end, size - (size_t)old_end);
  fh.index_offset = fh.index_offset - old_end + fh.meta_offset + WS_BLOCK_HEADER_BYTES + h.raw_bytes;
  fh.file_bytes = out_bytes;
  ws_block_pack_file(&fh, out);
  spit(path, out, out_bytes);
  free(out);
  free(raw);
  free(data);
}

/* The last range's class, its u32 just before the name "scores" (6 bytes
 * and their u32 length) at the end of the metadata. */
static void bad_class(uint8_t *raw, size_t n) { ws_bytes_put_le32(raw + n - 6 - 4 - 4, 7); }
/* The last range moved onto the one before it. */
static void overlapping(uint8_t *raw, size_t n) { ws_bytes_put_le64(raw + n - 6 - 4 - 4 - 8 - 8, 0x2100); }
/* The name's length past the end of the block. */
static void long_name(uint8_t *raw, size_t n) { ws_bytes_put_le32(raw + n - 6 - 4, 60); }
/* A count of ranges the block cannot hold. */
static void huge_count(uint8_t *raw, size_t n) {
  size_t entries = 3 * 24 + 5 + 24 + 6; /* addr, size, class, name length; names */
  ws_bytes_put_le32(raw + n - entries - 4, 0xFFFFFFFFu);
}

static void no_edit(uint8_t *raw, size_t n) { (void)raw, (void)n; }

Test(wst, a_stored_metadata_block_reads_as_a_compressed_one) {
  char path[128];
  in_dir(path, sizeof path, "stored.wst");
  write_regions(path);
  edit_meta(path, no_edit);
  ws_wst_reader *r = open_ok(path);
  cr_expect_null(ws_wst_warning(r), "%s", ws_wst_warning(r));
  size_t n = 0;
  ws_wst_regions(r, &n);
  cr_expect_eq(n, 3);
  ws_wst_close(r);
}

Test(wst, a_corrupt_range_table_is_damaged_metadata) {
  void (*const edits[])(uint8_t *, size_t) = {bad_class, overlapping, long_name, huge_count};
  for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
    char path[128];
    in_dir(path, sizeof path, "corrupt.wst");
    write_regions(path);
    edit_meta(path, edits[i]);
    ws_wst_reader *r = open_ok(path);
    cr_assert_not_null(ws_wst_warning(r), "edit %zu", i);
    cr_expect_not_null(strstr(ws_wst_warning(r), "metadata: well-formed tables expected, damaged ones found"),
                       "edit %zu: %s", i, ws_wst_warning(r));
    size_t n = 99;
    ws_wst_regions(r, &n);
    cr_expect_eq(n, 0, "edit %zu", i);
    cr_expect_eq(ws_wst_launch_count(r), 1, "edit %zu: the walk still finds the launch", i);
    ws_wst_close(r);
  }
}

Test(wst, not_a_trace_is_refused) {
  char path[128];
  in_dir(path, sizeof path, "x.txt");
  spit(path, (const uint8_t *)"hello, this is not a trace at all, but it is long enough to be one", 66);
  ws_wst_reader *r = NULL;
  cr_expect_eq(ws_wst_open(ctx, path, &r), WS_ERR_INVALID);
  cr_expect_not_null(strstr(ws_errmsg(ctx), "not a .wst trace: byte 0: the .wst magic"), "%s",
                     ws_errmsg(ctx));
  cr_expect_eq(ws_wst_open(ctx, dir, &r), WS_ERR_IO);
}

/* ---- filters ------------------------------------------------------------------- */

/* Launches of kernels 0..3 (kernel k's events: sm = i % 4 or none, begin i,
 * every third tagged), then host events outside launches. */
static void write_filtered(const char *path, const ws_wst_filter *f) {
  ws_wst_writer *w = writer(path, f);
  const ws_probe *p = ws_wst_writer_probe(w);
  for (int k = 0; k < 4; k++) {
    begin_launch(p, k);
    for (uint32_t i = 0; i < 100; i++) {
      ws_probe_event ev = {.begin = i,
                           .end = i + 1,
                           .kind = (uint8_t)(i % WS_PEV_HOST),
                           .a = i,
                           .b = (uint32_t)k,
                           .sm = i % 10 == 9 ? WS_PROBE_NONE : (uint16_t)(i % 4),
                           .flags = i % 3 == 0 ? WS_PROBE_TAGGED : 0};
      p->event(p->user, &ev);
    }
    end_launch(p, k, 100);
  }
  for (uint32_t i = 0; i < 10; i++) {
    ws_probe_event ev = {.begin = 1000 + i, .kind = i % 2 ? WS_PEV_HOST : WS_PEV_PCIE, .sm = WS_PROBE_NONE};
    p->event(p->user, &ev);
  }
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
}

typedef bool (*keep_fn)(uint32_t kernel, const ws_probe_event *ev);

/* The file holds exactly the events `keep` selects, in order. */
static void expect_kept(const char *path, keep_fn keep) {
  ws_wst_reader *r = open_ok(path);
  ws_wst_cursor *c = NULL;
  cr_assert_eq(ws_wst_cursor_open(r, &c), WS_OK);
  size_t want = 0, n = 0;
  ws_probe_event got[410];
  uint32_t lau[410];
  cr_assert_eq(drain(c, got, lau, 410, &n), WS_OK, "%s", ws_errmsg(ctx));
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t i = 0; i < 100; i++) {
      ws_probe_event ev = {.begin = i,
                           .kind = (uint8_t)(i % WS_PEV_HOST),
                           .sm = i % 10 == 9 ? WS_PROBE_NONE : (uint16_t)(i % 4),
                           .flags = i % 3 == 0 ? WS_PROBE_TAGGED : 0};
      if (!keep(k, &ev)) continue;
      cr_assert_lt(want, n, "event %u of launch %u missing", i, k);
      cr_expect(got[want].a == i && got[want].b == k && lau[want] == k, "event %zu: %u of launch %u expected",
                want, i, k);
      want++;
    }
  cr_expect_eq(n, want + 10, "%zu events, %zu + 10 host ones expected", n, want);
  const ws_wst_counts *counts = ws_wst_counts_of(r);
  uint64_t seen = 0, recorded = 0;
  for (int k = 0; k < WS_PEV_COUNT; k++) seen += counts->seen[k], recorded += counts->recorded[k];
  cr_expect_eq(seen, 410);
  cr_expect_eq(recorded, n);
  for (size_t i = 0; i < 4; i++) cr_expect_eq(ws_wst_launch(r, i)->events_seen, 100);
  ws_wst_cursor_close(c);
  ws_wst_close(r);
}

static bool kernels_1_3(uint32_t k, const ws_probe_event *ev) { return (void)ev, k == 1 || k == 3; }
static bool sms_0_2(uint32_t k, const ws_probe_event *ev) {
  return (void)k, ev->kind == WS_PEV_KERNEL || ev->sm == WS_PROBE_NONE || ev->sm == 0 || ev->sm == 2;
}
static bool cycles_20_50(uint32_t k, const ws_probe_event *ev) {
  return (void)k, ev->kind == WS_PEV_KERNEL || (ev->begin >= 20 && ev->begin < 50);
}
static bool followed(uint32_t k, const ws_probe_event *ev) {
  return (void)k, ev->kind == WS_PEV_KERNEL || ev->kind == WS_PEV_CTA || (ev->flags & WS_PROBE_TAGGED);
}

Test(wst, the_kernel_filter_keeps_table_entries_without_events) {
  char path[128];
  in_dir(path, sizeof path, "fk.wst");
  static const char *const names[] = {"softmax", "gelu"};
  ws_wst_filter f = {.kernels = names, .kernel_count = 2};
  write_filtered(path, &f);
  expect_kept(path, kernels_1_3);
  ws_wst_reader *r = open_ok(path);
  cr_assert_eq(ws_wst_launch_count(r), 4);
  cr_expect_eq(ws_wst_launch(r, 0)->flags, WS_WST_LAUNCH_FILTERED);
  cr_expect_eq(ws_wst_launch(r, 0)->events, 0);
  cr_expect_eq(ws_wst_launch(r, 0)->chunk_count, 0);
  cr_expect_eq(ws_wst_launch(r, 1)->flags, 0);
  cr_expect_eq(ws_wst_launch(r, 1)->events, 100);
  ws_wst_close(r);
}

Test(wst, the_sm_filter_keeps_events_without_an_sm) {
  char path[128];
  in_dir(path, sizeof path, "fs.wst");
  static const uint32_t sms[] = {2, 0, 70000};
  ws_wst_filter f = {.sms = sms, .sm_count = 3};
  write_filtered(path, &f);
  expect_kept(path, sms_0_2);
}

Test(wst, the_cycle_filter_keeps_begins_in_range) {
  char path[128];
  in_dir(path, sizeof path, "fc.wst");
  ws_wst_filter f = {.cycle_begin = 20, .cycle_end = 50};
  write_filtered(path, &f);
  expect_kept(path, cycles_20_50);
}

Test(wst, follow_only_keeps_tagged_events_and_the_frame) {
  char path[128];
  in_dir(path, sizeof path, "ff.wst");
  ws_wst_filter f = {.follow_only = true};
  write_filtered(path, &f);
  expect_kept(path, followed);
}

/* ---- the writer's output rules ---------------------------------------------------- */

static size_t files_in_dir(void) {
  DIR *d = opendir(dir);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

Test(wst, nothing_appears_before_commit_and_nothing_stays_without_it) {
  char path[128];
  in_dir(path, sizeof path, "later.wst");
  ws_wst_writer *w = writer(path, NULL);
  begin_launch(ws_wst_writer_probe(w), 0);
  cr_expect_eq(access(path, F_OK), -1);
  cr_expect_eq(files_in_dir(), 1); /* the temporary file */
  ws_wst_writer_free(w);
  cr_expect_eq(files_in_dir(), 0);
  /* a launch that never ends is kept, marked unfinished */
  w = writer(path, NULL);
  const ws_probe *p = ws_wst_writer_probe(w);
  begin_launch(p, 0);
  ws_probe_event ev = {.kind = WS_PEV_ISSUE, .begin = 3};
  p->event(p->user, &ev);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_wst_writer_commit(w), WS_ERR_INVALID);
  ws_wst_writer_free(w);
  cr_expect_eq(files_in_dir(), 1);
  ws_wst_reader *r = open_ok(path);
  cr_expect_eq(ws_wst_launch(r, 0)->flags, WS_WST_LAUNCH_UNFINISHED);
  cr_expect_eq(ws_wst_launch(r, 0)->events, 1);
  ws_wst_close(r);
}

Test(wst, the_first_error_of_a_callback_is_kept_for_commit) {
  char path[128];
  in_dir(path, sizeof path, "err.wst");
  ws_wst_writer *w = writer(path, NULL);
  const ws_probe *p = ws_wst_writer_probe(w);
  end_launch(p, 0, 1); /* never began */
  ws_probe_event bad = {.kind = WS_PEV_COUNT};
  p->event(p->user, &bad); /* a second error: not the one reported */
  cr_expect_eq(ws_wst_writer_commit(w), WS_ERR_INVALID);
  char want[200];
  snprintf(want, sizeof want, "trace '%s': a launch ended that never began", path);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  ws_wst_writer_free(w);
  cr_expect_eq(files_in_dir(), 0);
}

Test(wst, a_link_is_kept_and_its_target_replaced) {
  char target[128], link[128];
  in_dir(target, sizeof target, "target.wst");
  in_dir(link, sizeof link, "link.wst");
  spit(target, (const uint8_t *)"old", 3);
  cr_assert_eq(symlink(target, link), 0);
  write_launches(link, 1, 10, NULL);
  struct stat sb;
  cr_assert_eq(lstat(link, &sb), 0);
  cr_expect(S_ISLNK(sb.st_mode));
  ws_wst_reader *r = open_ok(target);
  cr_expect_eq(count_all(r, NULL), 10);
  ws_wst_close(r);
}

Test(wst, a_directory_is_refused_and_a_full_device_reported_at_commit) {
  ws_gpu_cfg cfg = preset("classroom");
  ws_wst_writer *w = NULL;
  cr_expect_eq(ws_wst_writer_create(ctx, dir, &cfg, NULL, &w), WS_ERR_IO);
  cr_expect_not_null(strstr(ws_errmsg(ctx), "it is a directory"), "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_wst_writer_create(ctx, "/dev/full", &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_wst_writer_commit(w), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), "cannot write '/dev/full': No space left on device");
  ws_wst_writer_free(w);
  /* a device gets the same bytes a file does */
  cr_assert_eq(ws_wst_writer_create(ctx, "/dev/null", &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
}

/* ---- the fuzzer's seeds ------------------------------------------------------------ */

/* Small traces that touch every table: written into $WS_WST_CORPUS when
 * set (make test-fuzz seeds tests/fuzz/fuzz_wst.c with them), else into
 * the test folder; either way each must open intact. */
/* ---- launch records against their kernel records and the preset ----------- */

/* launch_of(0)'s grid (4,2,1) and block (128,1,1), a run no other field of
 * the metadata holds: where the record's shape starts. */
static uint8_t *find_shape(uint8_t *raw, size_t n) {
  static const uint32_t shape[6] = {4, 2, 1, 128, 1, 1};
  uint8_t want[24];
  for (int i = 0; i < 6; i++) ws_bytes_put_le32(want + 4 * i, shape[i]);
  for (size_t i = 0; i + sizeof want <= n; i++)
    if (memcmp(raw + i, want, sizeof want) == 0) return raw + i;
  cr_assert_fail("the launch record's shape was not found in the metadata");
  return NULL;
}

/* Offsets from the shape: grid 0, block 12, CTAs per SM 24, cycles 28. */
static void grid_zero(uint8_t *raw, size_t n) { ws_bytes_put_le32(find_shape(raw, n), 0); }
static void block_huge(uint8_t *raw, size_t n) { ws_bytes_put_le32(find_shape(raw, n) + 12, 0xFFFFFFFFu); }
static void ctas_zero(uint8_t *raw, size_t n) { ws_bytes_put_le32(find_shape(raw, n) + 24, 0); }
static void ctas_over(uint8_t *raw, size_t n) { ws_bytes_put_le32(find_shape(raw, n) + 24, 33); }
static void cycles_zero(uint8_t *raw, size_t n) { ws_bytes_put_le64(find_shape(raw, n) + 28, 0); }
static void cycles_short(uint8_t *raw, size_t n) { ws_bytes_put_le64(find_shape(raw, n) + 28, 100); }

/* One launch of kernel 0 (32 registers, no shared memory, 128 threads: 16
 * CTAs fit on a classroom SM, limited by its 2048 threads) whose 500 events
 * begin at cycles 0..499 and which ends at cycle 500. */
static void write_one_launch(const char *path) { write_launches(path, 1, 500, NULL); }

Test(wst, launch_records_are_checked_against_kernel_and_preset) {
  char path[128];
  in_dir(path, sizeof path, "launch.wst");
  write_one_launch(path);
  edit_meta(path, no_edit);
  ws_wst_reader *r = open_ok(path);
  ws_gpu_cfg cfg;
  cr_expect_eq(ws_wst_config(r, &cfg), WS_OK, "the record as written: %s", ws_errmsg(ctx));
  ws_wst_close(r);
  struct {
    void (*edit)(uint8_t *, size_t);
    const char *says;
  } cases[] = {
      {grid_zero, "grid (0,2,1) block (128,1,1) found"},
      {block_huge, "block (4294967295,1,1) found"},
      {ctas_zero, "1..16 CTAs per SM expected (128 threads, kernel 0 'gemm' with 32 registers/thread and 0 B "
                  "shared on classroom), 0 found"},
      {ctas_over, "1..16 CTAs per SM expected"},
      {cycles_zero, "a duration of at least 499 cycles expected (its last micro-op began then), 0 found"},
      {cycles_short, "a duration of at least 499 cycles expected (its last micro-op began then), 100 found"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_one_launch(path);
    edit_meta(path, cases[i].edit);
    r = open_ok(path);
    cr_expect_eq(ws_wst_config(r, &cfg), WS_ERR_INVALID, "case %zu was accepted", i);
    cr_expect(strstr(ws_errmsg(ctx), "launch.wst: launch 0: ") && strstr(ws_errmsg(ctx), cases[i].says),
              "case %zu: %s", i, ws_errmsg(ctx));
    ws_wst_close(r);
  }
  /* the last case through the commands: info shows the rest and exits 1, stats refuses */
  const char *subs[] = {"info", "stats"};
  for (size_t i = 0; i < 2; i++) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s trace %s %s >/dev/null 2>&1", WS_CLI, subs[i], path);
    int rc = system(cmd);
    cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "trace %s on a damaged launch record: %d", subs[i], rc);
  }
}

Test(wst, small_traces_seed_the_fuzzer) {
  const char *corpus = getenv("WS_WST_CORPUS");
  for (int seed = 0; seed < 3; seed++) {
    char path[512];
    snprintf(path, sizeof path, "%s/seed%d.wst", corpus ? corpus : dir, seed);
    static const char *const only[] = {"layernorm"};
    ws_wst_filter f = {.kernels = only, .kernel_count = 1};
    ws_wst_writer *w = writer(path, seed == 2 ? &f : NULL);
    const ws_probe *p = ws_wst_writer_probe(w);
    uint64_t s = (uint64_t)seed;
    for (int k = 0; k < 2; k++) {
      begin_launch(p, k + seed);
      for (int i = 0; i < 12 * (seed + 1); i++) {
        ws_probe_event ev = random_event(&s, (unsigned)i % WS_PEV_COUNT);
        ev.begin %= 200, ev.end = ev.begin + (uint64_t)i % 7, ev.addr &= 0xffff80, ev.uop %= 64, ev.pc %= 16;
        p->event(p->user, &ev);
      }
      end_launch(p, k + seed, 200);
    }
    ws_probe_event host = {.kind = WS_PEV_HOST, .begin = 5, .end = 90, .sm = WS_PROBE_NONE};
    p->event(p->user, &host);
    static const char *const names[] = {"none", "wait"};
    ws_runtime_record rec = {.kind = WS_RUNTIME_OP_D2H, .size_bytes = 64, .end_ns = 90};
    strcpy(rec.name, "out");
    cr_assert_eq(ws_wst_writer_set_names(w, names, 2), WS_OK);
    cr_assert_eq(ws_wst_writer_set_timeline(w, &rec, 1), WS_OK);
    cr_assert_eq(ws_wst_writer_set_journey(w, "ledger", 6), WS_OK);
    cr_assert_eq(ws_wst_writer_kernel_source(w, &kernel_ids[seed], "EXIT;\n"), WS_OK);
    cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
    ws_wst_writer_free(w);
    ws_wst_reader *r = open_ok(path);
    cr_expect_null(ws_wst_warning(r));
    /* seed 2 keeps launch 0 (layernorm), none of launch 1 (gelu) */
    cr_expect_eq(count_all(r, NULL), seed == 2 ? 36 + 1 : 2 * 12 * (size_t)(seed + 1) + 1);
    cr_expect_lt(ws_wst_file_bytes(r), 16384);
    ws_wst_close(r);
  }
  /* and two damaged ones the reader must report (hostile-inputs-2): bytes
   * after the committed end, and an embedded config that fails its checks */
  char path[512];
  snprintf(path, sizeof path, "%s/tail.wst", corpus ? corpus : dir);
  write_launches(path, 1, 10, NULL);
  FILE *f = fopen(path, "ab");
  cr_assert_not_null(f);
  fputs("appended", f);
  fclose(f);
  ws_wst_reader *r = open_ok(path);
  cr_expect_not_null(ws_wst_warning(r));
  ws_wst_close(r);
  snprintf(path, sizeof path, "%s/badcfg.wst", corpus ? corpus : dir);
  ws_gpu_cfg cfg = preset("classroom");
  cfg.gpu.num_sms = 0;
  ws_wst_writer *w = NULL;
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
  begin_launch(ws_wst_writer_probe(w), 0);
  end_launch(ws_wst_writer_probe(w), 0, 10);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  r = open_ok(path);
  ws_gpu_cfg back;
  cr_expect_eq(ws_wst_config(r, &back), WS_ERR_INVALID);
  ws_wst_close(r);
  /* and a launch record claiming more CTAs per SM than its kernel allows */
  snprintf(path, sizeof path, "%s/badlaunch.wst", corpus ? corpus : dir);
  write_one_launch(path);
  edit_meta(path, ctas_over);
  r = open_ok(path);
  cr_expect_eq(ws_wst_config(r, &back), WS_ERR_INVALID);
  ws_wst_close(r);
}

/* ---- size ---------------------------------------------------------------------- */

/* A kernel's life as the timing model reports it: 2 SMs x 4 sub-partitions
 * x 8 warps step through a 64-instruction loop body (pc + 1, a branch back
 * at the end), each issue followed by the stall until the warp's next one;
 * every 8th instruction is a memory one: a shared access, or a global load
 * of 1-4 lines through L1, crossbar, L2 and sometimes DRAM, with the fills
 * and the completion. Returns the events emitted. */
typedef struct synth {
  const ws_probe *p;
  uint64_t s, uop, events;
} synth;

static void emit(synth *y, ws_probe_event ev) {
  y->p->event(y->p->user, &ev);
  y->events++;
}

/* One global load of `lines` lines issued at t; returns its completion. */
static uint64_t global_load(synth *y, uint16_t sm, uint16_t warp, uint32_t pc, uint64_t t, uint32_t lines) {
  uint64_t done = t;
  uint64_t base = (0x10000000ull + ((uint64_t)sm * 32 + warp) * 65536 + pc * 512) & ~127ull;
  emit(y, (ws_probe_event){.kind = WS_PEV_COALESCE,
                           .begin = t,
                           .end = t,
                           .sm = sm,
                           .warp = warp,
                           .pc = pc,
                           .a = lines,
                           .b = 4 * lines,
                           .c = 128 * lines,
                           .unit = WS_PROBE_NONE});
  for (uint32_t i = 0; i < lines; i++) {
    uint64_t uop = ++y->uop, line = base + 128 * i, at = t + 1 + i;
    bool l1_hit = lcg(&y->s) % 4 == 0, l2_hit = lcg(&y->s) % 3 != 0;
    uint32_t set = (uint32_t)(line >> 7) % 64, slice = (uint32_t)(line >> 7) % 2;
    emit(y, (ws_probe_event){.kind = WS_PEV_L1,
                             .begin = at,
                             .end = at + 38,
                             .sm = sm,
                             .uop = uop,
                             .addr = line,
                             .a = set,
                             .b = (uint32_t)lcg(&y->s) % 4,
                             .c = 0xf,
                             .unit = WS_PROBE_NONE,
                             .warp = WS_PROBE_NONE,
                             .outcome = l1_hit ? WS_PROBE_L1_HIT : WS_PROBE_L1_MISS});
    if (l1_hit) {
      done = at + 38 > done ? at + 38 : done;
      continue;
    }
    uint64_t arrive = at + 20;
    emit(y, (ws_probe_event){.kind = WS_PEV_XBAR,
                             .begin = at,
                             .end = arrive,
                             .sm = sm,
                             .unit = (uint16_t)slice,
                             .uop = uop,
                             .a = 32,
                             .warp = WS_PROBE_NONE,
                             .outcome = WS_PROBE_DIR_REQ});
    uint64_t ready = arrive + 92;
    emit(y, (ws_probe_event){.kind = WS_PEV_L2,
                             .begin = arrive,
                             .end = ready,
                             .sm = sm,
                             .unit = (uint16_t)slice,
                             .uop = uop,
                             .addr = line,
                             .a = set * 4 % 512,
                             .b = (uint32_t)lcg(&y->s) % 16,
                             .c = 0xf,
                             .warp = WS_PROBE_NONE,
                             .outcome = l2_hit ? WS_PROBE_L2_HIT : WS_PROBE_L2_MISS});
    if (!l2_hit) {
      uint64_t dram = ++y->uop, burst = ready + 200 + lcg(&y->s) % 64;
      emit(y, (ws_probe_event){.kind = WS_PEV_DRAM,
                               .begin = ready,
                               .end = burst,
                               .unit = (uint16_t)(slice * 4),
                               .sm = WS_PROBE_NONE,
                               .warp = WS_PROBE_NONE,
                               .uop = dram,
                               .link = uop,
                               .addr = line,
                               .a = (uint32_t)(line >> 10) % 16,
                               .b = (uint32_t)(line >> 14),
                               .c = 128,
                               .outcome = (uint8_t)(lcg(&y->s) % 3)});
      emit(y, (ws_probe_event){.kind = WS_PEV_L2_FILL,
                               .begin = burst,
                               .end = burst + 4,
                               .unit = (uint16_t)slice,
                               .sm = WS_PROBE_NONE,
                               .warp = WS_PROBE_NONE,
                               .uop = dram,
                               .addr = line,
                               .c = 0xf});
      ready = burst + 4;
    }
    emit(y, (ws_probe_event){.kind = WS_PEV_XBAR,
                             .begin = ready,
                             .end = ready + 20,
                             .sm = sm,
                             .unit = (uint16_t)slice,
                             .uop = uop,
                             .a = 128,
                             .warp = WS_PROBE_NONE,
                             .outcome = WS_PROBE_DIR_RESP});
    emit(y, (ws_probe_event){.kind = WS_PEV_L1_FILL,
                             .begin = ready + 20,
                             .end = ready + 24,
                             .sm = sm,
                             .uop = uop,
                             .addr = line,
                             .c = 0xf,
                             .unit = WS_PROBE_NONE,
                             .warp = WS_PROBE_NONE});
    done = ready + 24 > done ? ready + 24 : done;
  }
  emit(y, (ws_probe_event){.kind = WS_PEV_MEM_DONE,
                           .begin = done,
                           .end = done,
                           .sm = sm,
                           .warp = warp,
                           .pc = pc,
                           .unit = WS_PROBE_NONE});
  return done;
}

#define SYN_SMS 2
#define SYN_SUBS 4
#define SYN_WARPS 8 /* per sub-partition */

static void synth_kernel(synth *y, uint32_t insns_per_warp) {
  uint32_t opcode[64], pc[SYN_SMS][SYN_SUBS * SYN_WARPS] = {{0}}, done[SYN_SMS][SYN_SUBS * SYN_WARPS] = {{0}};
  uint64_t ready[SYN_SMS][SYN_SUBS * SYN_WARPS] = {{0}};
  uint32_t last[SYN_SMS][SYN_SUBS] = {{0}};
  for (int i = 0; i < 64; i++) opcode[i] = 1 + (uint32_t)lcg(&y->s) % 24;
  emit(y, (ws_probe_event){.kind = WS_PEV_KERNEL,
                           .a = 16,
                           .b = 256,
                           .sm = WS_PROBE_NONE,
                           .unit = WS_PROBE_NONE,
                           .warp = WS_PROBE_NONE});
  for (uint16_t sm = 0; sm < SYN_SMS; sm++)
    for (uint32_t cta = 0; cta < 4; cta++)
      emit(y, (ws_probe_event){.kind = WS_PEV_CTA,
                               .sm = sm,
                               .a = sm * 4 + cta,
                               .b = cta,
                               .unit = WS_PROBE_NONE,
                               .warp = WS_PROBE_NONE});
  uint32_t left = SYN_SMS * SYN_SUBS * SYN_WARPS;
  for (uint64_t t = 0; left > 0; t++)
    for (uint16_t sm = 0; sm < SYN_SMS; sm++)
      for (uint16_t sub = 0; sub < SYN_SUBS; sub++) {
        int pick = -1;
        for (uint32_t k = 1; k <= SYN_WARPS && pick < 0; k++) {
          uint32_t w = sub + SYN_SUBS * ((last[sm][sub] + k) % SYN_WARPS);
          if (done[sm][w] < insns_per_warp && ready[sm][w] <= t) pick = (int)w;
        }
        if (pick < 0) continue;
        uint16_t w = (uint16_t)pick;
        last[sm][sub] = w / SYN_SUBS;
        uint32_t at = pc[sm][w], op = opcode[at % 64], lat = op < 16 ? 4 : op < 22 ? 6 : 20;
        emit(y, (ws_probe_event){.kind = WS_PEV_ISSUE,
                                 .begin = t,
                                 .end = t + lat,
                                 .sm = sm,
                                 .unit = sub,
                                 .warp = w,
                                 .pc = at,
                                 .a = 0xffffffffu,
                                 .b = op});
        uint64_t next = t + 1 + (lcg(&y->s) % 2 ? lat : 0);
        uint32_t reason = 1;
        if (done[sm][w] % 8 == 7 && done[sm][w] % 16 == 7) {
          uint32_t wf = 1 + (uint32_t)(lcg(&y->s) % 4 == 0);
          emit(y, (ws_probe_event){.kind = WS_PEV_SMEM,
                                   .begin = t,
                                   .end = t + 29 + wf,
                                   .sm = sm,
                                   .warp = w,
                                   .pc = at,
                                   .a = 0xffffffffu,
                                   .b = wf,
                                   .c = 1,
                                   .unit = WS_PROBE_NONE,
                                   .outcome = WS_PROBE_SMEM_LOAD});
          next = t + 29 + wf, reason = 3;
        } else if (done[sm][w] % 8 == 7) {
          next = global_load(y, sm, w, at, t, 1 + (uint32_t)lcg(&y->s) % 4), reason = 2;
        }
        if (next > t + 1)
          emit(y, (ws_probe_event){.kind = WS_PEV_STALL,
                                   .begin = t + 1,
                                   .end = next,
                                   .sm = sm,
                                   .unit = sub,
                                   .warp = w,
                                   .a = reason});
        ready[sm][w] = next;
        pc[sm][w] = at % 64 == 63 ? at - 55 : at + 1; /* the loop's branch back */
        if (++done[sm][w] == insns_per_warp) left--;
      }
}

Test(wst, a_realistic_stream_costs_under_4_bytes_per_event) {
  char path[128];
  in_dir(path, sizeof path, "real.wst");
  ws_wst_writer *w = writer(path, NULL);
  synth y = {.p = ws_wst_writer_probe(w), .s = 7};
  for (int k = 0; k < 3; k++) {
    begin_launch(y.p, k);
    synth_kernel(&y, 3000);
    end_launch(y.p, k, 1);
  }
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  ws_wst_reader *r = open_ok(path);
  cr_assert_eq(count_all(r, NULL), y.events);
  double per = (double)ws_wst_file_bytes(r) / (double)y.events;
  printf("wst: %llu events in %llu bytes: %.2f bytes/event (%zu chunks)\n", (unsigned long long)y.events,
         (unsigned long long)ws_wst_file_bytes(r), per, ws_wst_chunk_count(r));
  cr_expect_lt(per, 4.0, "%.2f bytes/event", per);
  ws_wst_close(r);
}

/* A trace whose embedded config fails the checks (num_sms = 0): `trace
 * info` says so and exits 1, as stats, export and viz refuse it, instead of
 * printing "unknown" with 0; bytes after the committed end are reported. */
Test(wst, info_refuses_what_stats_refuses) {
  char path[128], cmd[512];
  in_dir(path, sizeof path, "badcfg.wst");
  ws_gpu_cfg cfg = preset("classroom");
  cfg.gpu.num_sms = 0;
  ws_wst_writer *w = NULL;
  cr_assert_eq(ws_wst_writer_create(ctx, path, &cfg, NULL, &w), WS_OK, "%s", ws_errmsg(ctx));
  const ws_probe *p = ws_wst_writer_probe(w);
  begin_launch(p, 0);
  end_launch(p, 0, 10);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  snprintf(cmd, sizeof cmd, "%s trace info %s >/dev/null 2>&1", WS_CLI, path);
  int rc = system(cmd);
  cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "trace info on a bad config: %d", rc);
  snprintf(cmd, sizeof cmd, "%s trace stats %s >/dev/null 2>&1", WS_CLI, path);
  rc = system(cmd);
  cr_expect(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "trace stats on a bad config: %d", rc);

  in_dir(path, sizeof path, "tail.wst");
  w = writer(path, NULL);
  p = ws_wst_writer_probe(w);
  begin_launch(p, 0);
  end_launch(p, 0, 10);
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  FILE *f = fopen(path, "ab");
  cr_assert_not_null(f);
  fputs("appended", f);
  fclose(f);
  ws_wst_reader *r = open_ok(path);
  cr_assert_not_null(ws_wst_warning(r), "8 bytes after the committed end");
  cr_expect(strstr(ws_wst_warning(r), "8 more bytes follow"), "%s", ws_wst_warning(r));
  cr_expect_eq(ws_wst_launch_count(r), 1, "what the header covers still reads");
  ws_wst_close(r);
}
