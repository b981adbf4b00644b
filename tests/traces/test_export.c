/* test_export.c - a real trace as Perfetto JSON and CSV (traces/export.h)
 * and its records as text (traces/evtext.h).
 *
 * Design: small runs on the classroom preset are recorded through the
 * trace writer's probe into a fresh folder; the JSON is parsed back with
 * cJSON and checked for what Perfetto needs (every event's fields, slices
 * of non-negative length in order of start on every thread and never
 * overlapping, every flow start with exactly one end, named processes and
 * threads, counters), and for what it must show (one scheduler slice per
 * issue record, the host timeline when the runtime ran the work). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "sim/host/runtime.h"
#include "tests/support/wstrec.h"
#include "traces/evtext.h"
#include "traces/export.h"
#include "traces/wst.h"

static ws_ctx *ctx;
static char dir[64];
static char path[96];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_export.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/run.wst", dir);
}

static void teardown(void) {
  remove(path);
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(export, .init = setup, .fini = teardown);

/* ---- recording ------------------------------------------------------------------ */

static void finish(ws_device *dev, ws_wst_writer *w) {
  wstrec_finish(ctx, dev, w);
  ws_device_destroy(dev);
}

/* Example `name` on classroom at a small size. */
static void record_example(const char *name, uint32_t size) {
  ws_device *dev = wstrec_device(ctx, "classroom", NULL);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, NULL);
  ws_example_shape s = ws_example_default_shape(name);
  s.n = size;
  if (ws_example_uses_mk(name)) s.m = s.k = size;
  ws_example_check check;
  cr_assert_eq(ws_example_run(dev, name, &s, &check), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert(check.pass);
  finish(dev, w);
}

/* SAXPY through the host runtime: copies in, two launches, a copy out. */
static void record_runtime(void) {
  ws_device *dev = wstrec_device(ctx, "classroom", NULL);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, NULL);
  ws_program *prog = NULL;
  cr_assert_eq(ws_example_program(ctx, "models/runs/examples/saxpy.wsa", &prog), WS_OK, "%s", ws_errmsg(ctx));
  const ws_kernel *k = ws_program_find_kernel(prog, "saxpy");
  cr_assert_not_null(k);
  ws_runtime *rt = NULL;
  cr_assert_eq(ws_runtime_create(dev, &rt), WS_OK);
  uint32_t n = 2048;
  uint64_t bytes = n * 4ull, x, y;
  ws_runtime_host h;
  cr_assert_eq(ws_runtime_host_alloc(rt, bytes, WS_PCIE_PAGEABLE, &h), WS_OK);
  cr_assert_eq(ws_runtime_malloc(rt, bytes, &x), WS_OK);
  cr_assert_eq(ws_runtime_malloc(rt, bytes, &y), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(rt, 0, x, h, 0, bytes, "x in"), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(rt, 0, y, h, 0, bytes, "y in"), WS_OK);
  ws_args args;
  ws_args_init(&args, k);
  cr_assert_eq(ws_args_set_u32(ctx, &args, "n", n), WS_OK);
  cr_assert_eq(ws_args_set_f32(ctx, &args, "a", 2.0f), WS_OK);
  cr_assert_eq(ws_args_set_ptr(ctx, &args, "x", x), WS_OK);
  cr_assert_eq(ws_args_set_ptr(ctx, &args, "y", y), WS_OK);
  for (int i = 0; i < 2; i++)
    cr_assert_eq(
        ws_runtime_launch(rt, 0, k, (ws_dim3){n / 256, 1, 1}, (ws_dim3){256, 1, 1}, 0, &args, "step"), WS_OK,
        "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_runtime_memcpy_dtoh(rt, 0, h, 0, y, bytes, "y out"), WS_OK);
  ws_runtime_synchronize(rt);
  size_t ntl;
  const ws_runtime_record *tl = ws_runtime_timeline(rt, &ntl);
  cr_assert_eq(ws_wst_writer_set_timeline(w, tl, ntl), WS_OK);
  ws_runtime_destroy(rt);
  ws_program_destroy(prog);
  finish(dev, w);
}

static ws_wst_reader *open_trace(void) {
  ws_wst_reader *r = NULL;
  cr_assert_eq(ws_wst_open(ctx, path, &r), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_null(ws_wst_warning(r));
  return r;
}

static uint64_t recorded(const ws_wst_reader *r, int kind) {
  const ws_wst_counts *c = ws_wst_counts_of(r);
  if (kind >= 0) return c->recorded[kind];
  uint64_t n = 0;
  for (int k = 0; k < WS_PEV_COUNT; k++) n += c->recorded[k];
  return n;
}

/* The export in memory. */
static char *export_to_memory(ws_wst_reader *r, bool perfetto, const ws_export_opts *o, ws_export_result *res,
                              size_t *size) {
  char *buf = NULL;
  FILE *out = open_memstream(&buf, size);
  cr_assert_not_null(out);
  ws_status st = perfetto ? ws_export_perfetto(ctx, r, o, out, res) : ws_export_csv(ctx, r, o, out, res);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(fclose(out), 0);
  return buf;
}

static const ws_export_opts all = {.launch = UINT32_MAX, .flows = true};

/* ---- the JSON's structure --------------------------------------------------------- */

typedef struct track {
  double pid, tid, last_ts, last_end;
  char name[64];
  size_t slices;
} track;

typedef struct tracks {
  track *t;
  size_t n, cap;
} tracks;

static track *find_track(tracks *ts, double pid, double tid) {
  for (size_t i = 0; i < ts->n; i++)
    if (ts->t[i].pid == pid && ts->t[i].tid == tid) return &ts->t[i];
  if (ts->n == ts->cap) {
    ts->cap = ts->cap ? 2 * ts->cap : 64;
    ts->t = realloc(ts->t, ts->cap * sizeof *ts->t);
    cr_assert_not_null(ts->t);
  }
  ts->t[ts->n] = (track){.pid = pid, .tid = tid, .last_ts = -1, .last_end = -1};
  return &ts->t[ts->n++];
}

static double num(const cJSON *ev, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
  cr_assert(cJSON_IsNumber(v), "an event without a number '%s'", key);
  return v->valuedouble;
}

/* Every flow id: starts and ends seen, and the start's time. */
typedef struct flows {
  double *start_ts;
  unsigned char *s, *f;
  size_t cap;
} flows;

static void flow_seen(flows *fl, double id, char ph, double t) {
  size_t i = (size_t)id;
  cr_assert_gt(id, 0);
  if (i >= fl->cap) {
    size_t cap = fl->cap ? fl->cap : 1024;
    while (cap <= i) cap *= 2;
    fl->start_ts = realloc(fl->start_ts, cap * sizeof *fl->start_ts);
    fl->s = realloc(fl->s, cap);
    fl->f = realloc(fl->f, cap);
    cr_assert(fl->start_ts && fl->s && fl->f);
    memset(fl->s + fl->cap, 0, cap - fl->cap);
    memset(fl->f + fl->cap, 0, cap - fl->cap);
    fl->cap = cap;
  }
  if (ph == 's') {
    fl->s[i]++;
    fl->start_ts[i] = t;
  } else
    fl->f[i]++;
}

typedef struct summary {
  size_t x, flows_paired, counters, instants, meta;
  size_t sched_slices, nkernels;
  double kernel_ts[8]; /* the kernels track's slices */
  bool host_track, pcie_track, sm0, slice0, channel0;
} summary;

static void check_metadata(const cJSON *ev, tracks *ts, summary *s) {
  const char *what = cJSON_GetObjectItemCaseSensitive(ev, "name")->valuestring;
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
  cr_assert(cJSON_IsObject(args));
  s->meta++;
  if (!strcmp(what, "thread_name")) {
    const char *n = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
    track *t = find_track(ts, num(ev, "pid"), num(ev, "tid"));
    cr_assert_eq(t->slices, 0u, "a thread is named before its first slice");
    snprintf(t->name, sizeof t->name, "%s", n);
    s->host_track |= !strcmp(n, "stream 0");
    s->pcie_track |= !strcmp(n, "H2D");
  } else if (!strcmp(what, "process_name")) {
    const char *n = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
    s->sm0 |= !strcmp(n, "SM 0");
    s->slice0 |= !strcmp(n, "L2 slice 0");
    s->channel0 |= !strcmp(n, "HBM channel 0");
  }
}

static void check_slice(const cJSON *ev, tracks *ts, summary *s) {
  double t = num(ev, "ts"), d = num(ev, "dur");
  track *tr = find_track(ts, num(ev, "pid"), num(ev, "tid"));
  cr_assert_geq(d, 0.0, "an X event of negative duration");
  cr_assert_geq(t, tr->last_ts, "track %s (pid %g tid %g): ts %.4f after %.4f", tr->name, tr->pid, tr->tid, t,
                tr->last_ts);
  cr_assert_geq(t + 1e-9, tr->last_end, "track %s: a slice at %.4f overlaps the one ending at %.4f", tr->name,
                t, tr->last_end);
  cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ev, "name")));
  cr_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ev, "args")));
  tr->last_ts = t;
  tr->last_end = t + d;
  tr->slices++;
  s->x++;
  s->sched_slices += !strncmp(tr->name, "scheduler ", 10);
  if (!strcmp(tr->name, "kernels") && s->nkernels < 8) s->kernel_ts[s->nkernels++] = t;
}

/* Parses `json` and checks every event; returns what it found. */
static summary check_json(const char *json, size_t size) {
  cJSON *root = cJSON_ParseWithLength(json, size);
  cr_assert_not_null(root, "the export is JSON");
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
  cr_assert(cJSON_IsArray(events));
  tracks ts = {0};
  flows fl = {0};
  summary s = {0};
  const cJSON *ev;
  cJSON_ArrayForEach(ev, events) {
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
    cr_assert(cJSON_IsString(ph) && strlen(ph->valuestring) == 1, "every event has a phase");
    char p = ph->valuestring[0];
    num(ev, "pid");
    if (p == 'M') {
      check_metadata(ev, &ts, &s);
      continue;
    }
    double t = num(ev, "ts");
    if (p == 'C') {
      cr_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ev, "args")));
      s.counters++;
      continue;
    }
    num(ev, "tid");
    if (p == 'X')
      check_slice(ev, &ts, &s);
    else if (p == 's' || p == 'f')
      flow_seen(&fl, num(ev, "id"), p, t);
    else
      cr_assert_eq(p, 'i', "unexpected phase %c", p);
    s.instants += p == 'i';
    if (p == 'f') cr_assert_geq(t, fl.start_ts[(size_t)num(ev, "id")], "an arrow goes forward in time");
  }
  for (size_t i = 0; i < fl.cap; i++) {
    cr_assert_eq(fl.s[i], fl.f[i], "flow %zu: %u starts, %u ends", i, fl.s[i], fl.f[i]);
    cr_assert_leq(fl.s[i], 1u, "flow %zu used twice", i);
    s.flows_paired += fl.s[i];
  }
  free(fl.start_ts);
  free(fl.s);
  free(fl.f);
  free(ts.t);
  cJSON_Delete(root);
  return s;
}

/* ---- tests ---------------------------------------------------------------------- */

static void check_perfetto_of_example(const char *name, uint32_t size) {
  record_example(name, size);
  ws_wst_reader *r = open_trace();
  ws_export_result res;
  size_t size_bytes;
  char *json = export_to_memory(r, true, &all, &res, &size_bytes);
  summary s = check_json(json, size_bytes);
  cr_expect_eq(res.reordered, 0u, "%s: no slice had to be moved", name);
  cr_expect_eq(res.skipped, 0u);
  cr_expect_eq(res.records, recorded(r, -1));
  cr_expect_eq(s.sched_slices, recorded(r, WS_PEV_ISSUE), "%s: a scheduler slice per issue record", name);
  cr_expect_gt(s.flows_paired, 0u);
  cr_expect_eq(s.flows_paired, res.flows);
  cr_expect_gt(s.counters, 0u);
  cr_expect_gt(s.instants, 0u);
  cr_expect(s.sm0 && s.slice0 && s.channel0, "named processes");
  /* the same trace gives the same bytes */
  size_t size2;
  char *again = export_to_memory(r, true, &all, NULL, &size2);
  cr_expect(size2 == size_bytes && !memcmp(json, again, size_bytes), "the export is deterministic");
  free(again);
  free(json);
  ws_wst_close(r);
}

Test(export, perfetto_saxpy) { check_perfetto_of_example("saxpy", 4096); }
Test(export, perfetto_sgemm) { check_perfetto_of_example("sgemm", 32); }

Test(export, perfetto_host_timeline_and_launches) {
  record_runtime();
  ws_wst_reader *r = open_trace();
  cr_assert_eq(ws_wst_launch_count(r), 2u);
  ws_export_result res;
  size_t size;
  char *json = export_to_memory(r, true, &all, &res, &size);
  summary s = check_json(json, size);
  cr_expect(s.host_track, "a track for stream 0");
  cr_expect(s.pcie_track, "a track for H2D copies");
  cr_expect_eq(res.reordered, 0u);
  cr_expect_eq(s.sched_slices, recorded(r, WS_PEV_ISSUE));
  size_t ntl, k = 0;
  const ws_runtime_record *tl = ws_wst_timeline(r, &ntl);
  cr_assert_eq(s.nkernels, 2u);
  for (size_t i = 0; i < ntl; i++) /* each launch starts where the timeline placed its kernel */
    if (tl[i].kind == WS_RUNTIME_OP_KERNEL) {
      cr_expect_float_eq(s.kernel_ts[k], (double)tl[i].start_ns / 1000.0 + 0.0005, 1e-9, "launch %zu", k);
      k++;
    }
  cr_expect_eq(k, 2u);
  free(json);
  /* one launch, without arrows: only its slices */
  ws_export_opts one = {.launch = 1, .flows = false};
  json = export_to_memory(r, true, &one, &res, &size);
  s = check_json(json, size);
  cr_expect_eq(s.flows_paired, 0u);
  cr_expect_eq(s.sched_slices * 2, recorded(r, WS_PEV_ISSUE), "two equal launches, one exported");
  cr_expect_not(s.host_track);
  free(json);
  ws_wst_close(r);
}

Test(export, perfetto_cycle_window) {
  record_example("saxpy", 4096);
  ws_wst_reader *r = open_trace();
  ws_export_opts o = {.launch = UINT32_MAX, .cycle_begin = 200, .cycle_end = 400, .flows = true};
  ws_export_result res;
  size_t size;
  char *json = export_to_memory(r, true, &o, &res, &size);
  summary s = check_json(json, size);
  cr_expect_gt(s.x, 0u);
  cr_expect_lt(res.records, recorded(r, -1), "records outside the window are not read");
  free(json);
  ws_wst_close(r);
}

static size_t count_lines(const char *text, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < size; i++) n += text[i] == '\n';
  return n;
}

Test(export, csv_row_per_record) {
  record_runtime();
  ws_wst_reader *r = open_trace();
  ws_export_result res;
  size_t size;
  char *csv = export_to_memory(r, false, &all, &res, &size);
  cr_expect_eq(count_lines(csv, size), recorded(r, -1) + 1, "a header and a row per recorded event");
  cr_expect_eq(res.events, recorded(r, -1));
  char header[256] = "";
  for (int i = 0; i < WS_EVTEXT_COLUMNS; i++) {
    if (i) strcat(header, ",");
    strcat(header, ws_evtext_columns[i]);
  }
  strcat(header, "\n");
  cr_expect_eq(strncmp(csv, header, strlen(header)), 0, "the header is the dump's columns");
  for (const char *line = csv; *line;) { /* every row has every column */
    const char *nl = strchr(line, '\n');
    size_t commas = 0;
    for (const char *c = line; c < nl; c++) commas += *c == ',';
    cr_assert_eq(commas, WS_EVTEXT_COLUMNS - 1u);
    line = nl + 1;
  }
  cr_expect_neq(strstr(csv, ",host,"), NULL, "host records are rows too");
  free(csv);
  ws_export_opts one = {.launch = 0};
  csv = export_to_memory(r, false, &one, &res, &size);
  cr_expect_eq(count_lines(csv, size), ws_wst_launch(r, 0)->events + 1);
  free(csv);
  ws_wst_close(r);
}

Test(export, record_text) {
  uint8_t k = 0;
  for (uint8_t i = 0; i < WS_PEV_COUNT; i++) {
    cr_expect(ws_evtext_kind_parse(ws_evtext_kind_name(i), &k));
    cr_expect_eq(k, i);
  }
  cr_expect_not(ws_evtext_kind_parse("l3", &k));
  char flags[WS_EVTEXT_FLAGS_BYTES];
  cr_expect_str_eq(ws_evtext_flags(WS_PROBE_WRITE | WS_PROBE_FAR, flags), "write|far");
  cr_expect_str_eq(ws_evtext_flags(0, flags), "-");
  ws_probe_event ev = {.kind = WS_PEV_DRAM, .outcome = WS_PROBE_ROW_CONFLICT};
  cr_expect_str_eq(ws_evtext_outcome_name(&ev, NULL, 0), "row_conflict");
  const char *names[] = {"selected", "barrier"};
  ev = (ws_probe_event){.kind = WS_PEV_STALL, .a = 1};
  cr_expect_str_eq(ws_evtext_outcome_name(&ev, names, 2), "barrier");
  ev = (ws_probe_event){.kind = WS_PEV_ISSUE,
                        .begin = 7,
                        .end = 11,
                        .sm = 1,
                        .unit = 2,
                        .warp = 5,
                        .pc = 3,
                        .a = 0xffffffffu,
                        .b = WS_OP_FFMA};
  char *buf = NULL;
  size_t size;
  FILE *out = open_memstream(&buf, &size);
  ws_evtext_row(out, WS_EVTEXT_CSV, &ev, 0, NULL, 0);
  fclose(out);
  char want[128];
  snprintf(want, sizeof want, "0,issue,7,11,1,2,5,3,FFMA,-,-,0x0,0xffffffff,%u,0x0,-,-\n",
           (unsigned)WS_OP_FFMA);
  cr_expect_str_eq(buf, want);
  free(buf);
}
