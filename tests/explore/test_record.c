/* test_record.c - the sweep record (explore/record.h): the header's
 * columns, a CSV written and read back into the very same structs (a `why`
 * with commas, quotes and a line break; doubles that need 17 digits; a
 * 64-bit seed), with and without the cost columns, the JSON parsed back
 * with cJSON, and each malformed file refused with its line and column
 * named. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "explore/record.h"
#include "models/kgen/gemmgen.h"
#include "sim/host/device.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(record, .init = setup, .fini = teardown);

static void device_stalls(ws_point_result *r, double scale) {
  r->nstalls = ws_device_stall_count() < WS_POINT_STALLS_MAX ? ws_device_stall_count() : WS_POINT_STALLS_MAX;
  for (uint32_t i = 0; i < r->nstalls; i++) {
    snprintf(r->stall_names[i], sizeof r->stall_names[i], "%s", ws_device_stall_name(i));
    r->stall_pct[i] = scale * (i + 1) / 7.0;
  }
}

/* Three rows: a passing GEMM, a GEMM whose check failed, a refused attention point. */
static void make_rows(ws_point ps[3], ws_point_result rs[3]) {
  memset(ps, 0, 3 * sizeof *ps);
  memset(rs, 0, 3 * sizeof *rs);
  ps[0] = (ws_point){.kind = WS_POINT_GEMM,
                     .gpu = "a100",
                     .nsets = 2,
                     .m = 1024,
                     .n = 512,
                     .k = 256,
                     .variant = "blocktile2d",
                     .bm = 128,
                     .bn = 64,
                     .bk = 8,
                     .tm = 8,
                     .tn = 4,
                     .threads = 256,
                     .seed = UINT64_MAX};
  snprintf(ps[0].sets[0], WS_POINT_SET_MAX, "l2.size_kib=4096");
  snprintf(ps[0].sets[1], WS_POINT_SET_MAX, "sm.count=8");
  rs[0] = (ws_point_result){.valid = true,
                            .check_pass = true,
                            .max_abs_err = 0.1 + 0.2,
                            .sampled = true,
                            .regs_per_thread = 128,
                            .smem_per_cta_bytes = 8192,
                            .threads_per_cta = 256,
                            .ctas_per_sm = 2,
                            .occupancy_pct = 25.0,
                            .limiter = "registers",
                            .ctas = 64,
                            .launches = 1,
                            .cycles = 123456789012ull,
                            .time_us = 1.0 / 3.0,
                            .flops = 2.68435456e8,
                            .gflops = 5e-324,
                            .warp_insns = 99,
                            .l1_hit_pct = -1,
                            .l2_hit_pct = 87.5,
                            .dram_read_bytes = UINT64_MAX,
                            .dram_write_bytes = 0,
                            .arith_intensity = 1e300,
                            .smem_bank_conflicts = 7,
                            .lsu_refusals = 3};
  device_stalls(&rs[0], 1.0);
  ps[1] = ps[0];
  ps[1].nsets = 0;
  memset(ps[1].sets, 0, sizeof ps[1].sets);
  ps[1].bm = 0; /* the variant's default: printed as its value */
  rs[1] = rs[0];
  rs[1].check_pass = false;
  rs[1].sampled = false;
  snprintf(rs[1].why, sizeof rs[1].why, "max error 3.5, at C[1,2] (\"tolerance\" 1e-3)");
  device_stalls(&rs[1], -0.0);
  ps[2] = (ws_point){.kind = WS_POINT_ATTENTION,
                     .gpu = "h100",
                     .seq = 256,
                     .heads = 4,
                     .dhead = 64,
                     .attn = "flash",
                     .br = 64,
                     .bc = 32,
                     .seed = 1};
  snprintf(rs[2].why, sizeof rs[2].why, "br 64, bc 32:\n\"too much\" shared memory, ok?");
}

static char *csv_with(const ws_point *ps, const ws_point_result *rs, size_t n, bool cost) {
  ws_text t;
  ws_text_init(&t);
  ws_record_csv_header(&t, cost);
  for (size_t i = 0; i < n; i++) ws_record_csv_row(&t, &ps[i], &rs[i], cost);
  char *s = ws_text_take(&t);
  cr_assert_not_null(s);
  return s;
}

static char *csv_of(const ws_point *ps, const ws_point_result *rs, size_t n) {
  return csv_with(ps, rs, n, false);
}

Test(record, header) {
  uint32_t n = ws_record_col_count(false);
  cr_assert_eq(n, WS_RECORD_FIXED_COLS + ws_device_stall_count());
  char name[64];
  const char *some[][2] = {
      {"0", "kind"},           {"3", "m"},       {"21", "seed"},         {"22", "sample_waves"},
      {"23", "sample_rounds"}, {"25", "why"},    {"29", "timed_ctas"},   {"30", "timed_warp_insns"},
      {"31", "cycles_ci95"},   {"40", "cycles"}, {"51", "lsu_refusals"}, {"52", "kernel"},
      {"53", "defines"},       {"54", "grid_x"}, {"57", "block_x"},      {"61", "inputs_hash"},
      {"62", "spill_bytes"},   {"63", "ipc"}};
  for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
    cr_assert(ws_record_col_name((uint32_t)atoi(some[i][0]), name, sizeof name));
    cr_expect_str_eq(name, some[i][1]);
  }
  cr_assert(ws_record_col_name(WS_RECORD_FIXED_COLS, name, sizeof name));
  char want[64];
  snprintf(want, sizeof want, "stall_%s", ws_device_stall_name(0));
  cr_expect_str_eq(name, want);
  /* the cost columns, after the stall columns, only when asked for */
  cr_assert_eq(ws_record_col_count(true), n + 3);
  const char *cost[] = {"sim_wall_s", "sim_cpu_s", "sim_warp_insns_per_s"};
  for (uint32_t i = 0; i < 3; i++) {
    cr_assert(ws_record_col_name(n + i, name, sizeof name));
    cr_expect_str_eq(name, cost[i]);
  }
  cr_expect_not(ws_record_col_name(n + 3, name, sizeof name));
}

Test(record, fields) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char buf[WS_RECORD_FIELD_MAX];
  bool num;
  ws_record_field(&ps[0], &rs[0], 2, buf, sizeof buf, &num);
  cr_expect_str_eq(buf, "l2.size_kib=4096;sm.count=8");
  ws_record_field(&ps[0], &rs[0], 15, buf, sizeof buf, &num); /* a GEMM's seq */
  cr_expect_str_eq(buf, "");
  cr_expect(num);
  ws_record_field(&ps[0], &rs[0], 27, buf, sizeof buf, &num); /* 0.1 + 0.2 needs 17 digits */
  cr_expect_str_eq(buf, "0.30000000000000004");
  ws_record_field(&ps[0], &rs[0], 41, buf, sizeof buf, &num); /* 1/3 */
  cr_expect_str_eq(buf, "0.3333333333333333");                /* 16 suffice */
  ws_record_field(&ps[0], &rs[0], 36, buf, sizeof buf, &num); /* and 25 needs two */
  cr_expect_str_eq(buf, "25");
  ws_record_field(&ps[1], &rs[1], 7, buf, sizeof buf, &num); /* bm 0: the default, written as its value */
  char want[32];
  snprintf(want, sizeof want, "%u", ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D).bm);
  cr_expect_str_eq(buf, want);
  ws_record_field(&ps[1], &rs[1], 12, buf, sizeof buf, &num); /* wm: blocktile2d has no warp tile */
  cr_expect_str_eq(buf, "");
  ws_record_field(&ps[2], &rs[2], 26, buf, sizeof buf, &num); /* no check for a refused point */
  cr_expect_str_eq(buf, "");
  ws_record_field(&ps[2], &rs[2], 24, buf, sizeof buf, &num);
  cr_expect_str_eq(buf, "no");
  ws_record_field(&ps[1], &rs[1], 28, buf, sizeof buf, &num);
  cr_expect_str_eq(buf, "full");
}

/* Column `name` of the row (p, r). */
static void field_named(const ws_point *p, const ws_point_result *r, const char *name, char *buf,
                        size_t bytes) {
  char col[64];
  bool num;
  for (uint32_t c = 0; ws_record_col_name(c, col, sizeof col); c++)
    if (strcmp(col, name) == 0) {
      ws_record_field(p, r, c, buf, bytes, &num);
      return;
    }
  cr_assert_fail("no column %s", name);
}

/* A default-tile point's record holds the tiles the summary line names
 * (ws_point_describe: "smem bm=.. bn=.. bk=.. threads=.."), and the
 * tiles that line leaves out (the variant's kernel does not read them)
 * are empty. */
static void expect_tiles_as_described(const ws_point *p) {
  ws_point_result r = {0};
  char desc[256], buf[WS_RECORD_FIELD_MAX];
  ws_point_describe(p, desc, sizeof desc);
  const char *tiles[] = {"bm", "bn", "bk", "tm", "tn", "wm", "wn", "threads", "br", "bc"};
  for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
    char key[16], want[32] = "";
    snprintf(key, sizeof key, " %s=", tiles[i]);
    const char *at = strstr(desc, key);
    if (at) snprintf(want, sizeof want, "%u", (unsigned)strtoul(at + strlen(key), NULL, 10));
    field_named(p, &r, tiles[i], buf, sizeof buf);
    cr_expect_str_eq(buf, want, "%s of '%s'", tiles[i], desc);
  }
}

Test(record, default_tiles_are_written_as_resolved) {
  ws_point p = {.kind = WS_POINT_GEMM, .gpu = "a100", .m = 512, .n = 512, .k = 512, .seed = 1};
  const char *variants[] = {"naive", "smem", "blocktile2d", "warptile"};
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    snprintf(p.variant, sizeof p.variant, "%s", variants[i]);
    expect_tiles_as_described(&p);
  }
  ws_point a = {.kind = WS_POINT_ATTENTION, .gpu = "a100", .seq = 64, .heads = 2, .dhead = 16, .seed = 1};
  snprintf(a.attn, sizeof a.attn, "flash");
  expect_tiles_as_described(&a);
  snprintf(a.attn, sizeof a.attn, "naive");
  expect_tiles_as_described(&a);
  /* the blocktile2d summary names bm (the test is not vacuous) */
  char buf[WS_RECORD_FIELD_MAX], want[32];
  ws_point_result r = {0};
  snprintf(p.variant, sizeof p.variant, "blocktile2d");
  field_named(&p, &r, "bm", buf, sizeof buf);
  snprintf(want, sizeof want, "%u", ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D).bm);
  cr_expect_str_eq(buf, want);
  /* a default and the same value given are one point */
  ws_point given = p;
  given.bm = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D).bm;
  cr_expect(ws_record_point_equal(&p, &given));
  given.bm *= 2;
  cr_expect_not(ws_record_point_equal(&p, &given));
}

Test(record, csv_round_trip) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char *csv = csv_of(ps, rs, 3);
  cr_expect(strstr(csv, ",\"max error 3.5, at C[1,2] (\"\"tolerance\"\" 1e-3)\",") != NULL, "%s", csv);
  ws_point *back;
  ws_point_result *rback;
  size_t n;
  cr_assert_eq(ws_record_csv_parse(ctx, "t.csv", csv, strlen(csv), &back, &rback, &n, NULL), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(n, 3);
  for (size_t i = 0; i < 3; i++) {
    ws_point tiled; /* the record holds the tiles the kernel is built from */
    ws_point_resolve_tiles(&ps[i], &tiled);
    cr_expect(ws_record_point_equal(&ps[i], &back[i]), "point %zu", i);
    cr_expect_eq(memcmp(&tiled, &back[i], sizeof tiled), 0, "point %zu bytes", i);
    cr_expect_eq(memcmp(&rs[i], &rback[i], sizeof rs[i]), 0, "result %zu", i);
  }
  cr_expect(signbit(rback[1].stall_pct[0]), "-0 stays -0");
  char *again = csv_of(back, rback, 3);
  cr_expect_str_eq(again, csv);
  free(again);
  free(back);
  free(rback);
  free(csv);
}

Test(record, header_alone_and_crlf) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char *csv = csv_of(ps, rs, 0);
  ws_point *back;
  ws_point_result *rback;
  size_t n = 9;
  cr_assert_eq(ws_record_csv_parse(ctx, "t.csv", csv, strlen(csv), &back, &rback, &n, NULL), WS_OK);
  cr_expect_eq(n, 0);
  cr_expect_null(back);
  free(csv);
  /* CRLF line ends (a spreadsheet's save) read the same */
  csv = csv_of(ps, rs, 1);
  ws_text t;
  ws_text_init(&t);
  for (const char *c = csv; *c; c++) ws_text_puts(&t, *c == '\n' ? "\r\n" : (char[]){*c, 0});
  char *crlf = ws_text_take(&t);
  cr_assert_eq(ws_record_csv_parse(ctx, "t.csv", crlf, strlen(crlf), &back, &rback, &n, NULL), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect_eq(n, 1);
  cr_expect_eq(memcmp(&rs[0], &rback[0], sizeof rs[0]), 0);
  free(back);
  free(rback);
  free(crlf);
  free(csv);
}

Test(record, json) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char *text;
  cr_assert_eq(ws_record_json(ctx, ps, rs, 3, false, &text), WS_OK);
  cJSON *arr = cJSON_Parse(text);
  cr_assert_not_null(arr, "not JSON: %s", text);
  cr_assert(cJSON_IsArray(arr));
  cr_assert_eq(cJSON_GetArraySize(arr), 3);
  uint32_t ncols = ws_record_col_count(false);
  for (int i = 0; i < 3; i++) {
    cJSON *row = cJSON_GetArrayItem(arr, i), *item = row->child;
    char name[64];
    for (uint32_t c = 0; c < ncols; c++, item = item->next) {
      cr_assert_not_null(item, "row %d has %u keys", i, c);
      ws_record_col_name(c, name, sizeof name);
      cr_expect_str_eq(item->string, name, "row %d key %u", i, c);
    }
    cr_expect_null(item, "row %d: more keys than columns", i);
  }
  cJSON *r0 = cJSON_GetArrayItem(arr, 0), *r2 = cJSON_GetArrayItem(arr, 2);
  cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(r0, "cycles")));
  cr_expect_eq(cJSON_GetObjectItem(r0, "cycles")->valuedouble, 123456789012.0);
  cr_expect_eq(cJSON_GetObjectItem(r0, "max_abs_err")->valuedouble, 0.1 + 0.2);
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(r0, "seq")));
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(r0, "attn")));
  cr_expect_str_eq(cJSON_GetObjectItem(r0, "kind")->valuestring, "gemm");
  cr_expect_str_eq(cJSON_GetObjectItem(r0, "why")->valuestring, "");
  cr_expect(strstr(text, "\"seed\":18446744073709551615") != NULL, "64-bit integers keep every digit");
  cr_expect_str_eq(cJSON_GetObjectItem(r2, "why")->valuestring, rs[2].why);
  cr_expect_str_eq(cJSON_GetObjectItem(r2, "valid")->valuestring, "no");
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(r2, "cycles")));
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(r2, "check")));
  cJSON_Delete(arr);
  free(text);
  cr_assert_eq(ws_record_json(ctx, ps, rs, 0, false, &text), WS_OK);
  cr_expect_str_eq(text, "[\n]\n");
  free(text);
}

/* csv (taken) with its first occurrence of `from` replaced by `to`. */
static char *replace_first(char *csv, const char *from, const char *to) {
  char *at = strstr(csv, from);
  cr_assert_not_null(at, "no '%s' in the file", from);
  ws_text t;
  ws_text_init(&t);
  ws_text_append(&t, csv, (size_t)(at - csv));
  ws_text_puts(&t, to);
  ws_text_puts(&t, at + strlen(from));
  free(csv);
  return ws_text_take(&t);
}

/* The good file with its first occurrence of `from` replaced by `to`. */
static char *edited(const char *from, const char *to) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  return replace_first(csv_of(ps, rs, 3), from, to);
}

static const struct {
  const char *from, *to, *msg;
} bad_files[] = {
    {"kind,gpu", "kind,GPU", "t.csv:1: header column 2 is 'GPU' where a sweep record has 'gpu'"},
    {"gemm,a100", "gemv,a100", "t.csv:2: column kind (1): 'gemv' is not gemm, attention or kernel"},
    {",123456789012,", ",12x,", "t.csv:2: column cycles (41): '12x' is not an unsigned 64-bit integer"},
    {",1024,512,", ",1024,-512,", "t.csv:2: column n (5): '-512' is not an unsigned 32-bit integer"},
    {",yes,,pass,", ",maybe,,pass,", "t.csv:2: column valid (25): 'maybe' is not yes or no"},
    {",87.5,", ",87.5%,", "t.csv:2: column l2_hit_pct (47): '87.5%' is not a number"},
    {",87.5,", ",,", "t.csv:2: column l2_hit_pct (47): '' is not a number"},
    {"\nattention,h100", "\n\"attention,h100", "t.csv:4: text after a quoted field's closing quote"},
    {"\nattention,h100", "\natt\"ention,h100", "t.csv:4: a quote inside an unquoted field"},
};

Test(record, bad_files) {
  for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
    char *text = edited(bad_files[i].from, bad_files[i].to);
    ws_point *ps = (ws_point *)1;
    ws_point_result *rs = (ws_point_result *)1;
    size_t n = 5;
    cr_expect_eq(ws_record_csv_parse(ctx, "t.csv", text, strlen(text), &ps, &rs, &n, NULL), WS_ERR_INVALID,
                 "case %zu", i);
    cr_expect(strncmp(ws_errmsg(ctx), bad_files[i].msg, strlen(bad_files[i].msg)) == 0, "case %zu: %s", i,
              ws_errmsg(ctx));
    cr_expect(ps == NULL && rs == NULL && n == 0);
    free(text);
  }
}

Test(record, extra_column) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char *csv = csv_of(ps, rs, 3);
  size_t len = strlen(csv);
  char *text = malloc(len + 8);
  memcpy(text, csv, len - 1);
  memcpy(text + len - 1, ",9\n", 4); /* one more field at the end of the last row */
  ws_point *back;
  ws_point_result *rback;
  size_t n;
  cr_expect_eq(ws_record_csv_parse(ctx, "t.csv", text, strlen(text), &back, &rback, &n, NULL),
               WS_ERR_INVALID);
  char want[128];
  snprintf(want, sizeof want, "t.csv:4: %u columns where the header has %u", ws_record_col_count(false) + 1,
           ws_record_col_count(false));
  cr_expect_str_eq(ws_errmsg(ctx), want);
  free(text);
  free(csv);
}

Test(record, unclosed_quote_and_empty) {
  const char *text = "kind,\"gpu";
  ws_point *ps;
  ws_point_result *rs;
  size_t n;
  cr_expect_eq(ws_record_csv_parse(ctx, "t.csv", text, strlen(text), &ps, &rs, &n, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.csv:1: a quoted field is not closed");
  cr_expect_eq(ws_record_csv_parse(ctx, "t.csv", "", 0, &ps, &rs, &n, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.csv:1: empty: no header of a sweep record");
  /* an unclosed quote on a record line, with more than a field's worth of
   * text after it: the quote is the cause, not the length */
  ws_text t;
  ws_text_init(&t);
  ws_record_csv_header(&t, false);
  ws_text_puts(&t, "gemm,\"a100");
  for (int i = 0; i < 600; i++) ws_text_puts(&t, "x,");
  char *csv = ws_text_take(&t);
  cr_assert_not_null(csv);
  cr_expect_eq(ws_record_csv_parse(ctx, "rr.csv", csv, strlen(csv), &ps, &rs, &n, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "rr.csv:2: a quoted field is not closed");
  free(csv);
}

/* Every byte of a good file replaced by each of a few troublemakers: the
 * reader never crashes, and whatever it accepts writes back to a file it
 * reads back to the same text (a small, deterministic stand-in for a
 * fuzzer, run under the sanitizers by make test's second half). */
Test(record, mutations_never_crash) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_rows(ps, rs);
  char *csv = csv_of(ps, rs, 3);
  size_t len = strlen(csv);
  const char subst[] = {',', '"', '\n', '\r', 'x', '9', '-', '.', ';', '\0'};
  size_t accepted = 0;
  for (size_t at = 0; at < len; at++) {
    for (size_t k = 0; k < sizeof subst; k++) {
      char saved = csv[at];
      csv[at] = subst[k];
      ws_point *back = NULL;
      ws_point_result *rback = NULL;
      size_t n = 0;
      if (ws_record_csv_parse(ctx, "m.csv", csv, len, &back, &rback, &n, NULL) == WS_OK) {
        accepted++;
        char *once = csv_of(back, rback, n);
        ws_point *b2;
        ws_point_result *r2;
        size_t n2;
        cr_assert_eq(ws_record_csv_parse(ctx, "m.csv", once, strlen(once), &b2, &r2, &n2, NULL), WS_OK,
                     "byte %zu as %d: %s", at, subst[k], ws_errmsg(ctx));
        char *twice = csv_of(b2, r2, n2);
        cr_expect_str_eq(twice, once, "byte %zu as %d", at, subst[k]);
        free(twice);
        free(once);
        free(b2);
        free(r2);
      } else {
        cr_expect(strncmp(ws_errmsg(ctx), "m.csv:", 6) == 0, "%s", ws_errmsg(ctx));
      }
      free(back);
      free(rback);
      csv[at] = saved;
    }
  }
  cr_expect_gt(accepted, 0);
  free(csv);
}

/* make_rows with what simulating each point cost: the first measured, the
 * second not (a point resumed from records without the cost columns), the
 * refused third measured too (its validation). */
static void make_costed_rows(ws_point ps[3], ws_point_result rs[3]) {
  make_rows(ps, rs);
  rs[0].sim_wall_s = 12.5;
  rs[0].sim_cpu_s = 0.1 + 0.2;
  rs[2].sim_wall_s = 2.5e-5;
  rs[2].sim_cpu_s = 1.0 / 3.0;
}

Test(record, cost_columns_round_trip) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_costed_rows(ps, rs);
  char *csv = csv_with(ps, rs, 3, true);
  cr_expect(strstr(csv, ",sim_wall_s,sim_cpu_s,sim_warp_insns_per_s\n") != NULL, "%s", csv);
  /* 99 warp instructions in 0.1 + 0.2 CPU seconds; the unmeasured row's columns are empty */
  char rate[64], want[128];
  double r = 99 / (0.1 + 0.2); /* 329.99999999999994: 17 digits to read back */
  snprintf(rate, sizeof rate, "%.17g", r);
  cr_assert_eq(strtod(rate, NULL), r);
  snprintf(want, sizeof want, ",12.5,0.30000000000000004,%s\n", rate);
  cr_expect(strstr(csv, want) != NULL, "no '%s' in %s", want, csv);
  cr_expect(strstr(csv, ",,,\nattention") != NULL, "the second row's costs are empty: %s", csv);
  cr_expect(strstr(csv, ",2.5e-05,0.3333333333333333,\n") != NULL, "a refused point has no rate: %s", csv);
  ws_point *back;
  ws_point_result *rback;
  size_t n;
  bool cost = false;
  cr_assert_eq(ws_record_csv_parse(ctx, "t.csv", csv, strlen(csv), &back, &rback, &n, &cost), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(n, 3);
  cr_expect(cost, "the reader says the file has the cost columns");
  for (size_t i = 0; i < 3; i++) cr_expect_eq(memcmp(&rs[i], &rback[i], sizeof rs[i]), 0, "result %zu", i);
  char *again = csv_with(back, rback, 3, true);
  cr_expect_str_eq(again, csv);
  free(again);
  free(back);
  free(rback);
  free(csv);
}

Test(record, cost_columns_only_when_asked) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_costed_rows(ps, rs);
  char *csv = csv_with(ps, rs, 3, false);
  cr_expect_null(strstr(csv, "sim_wall_s"));
  ws_point *back;
  ws_point_result *rback;
  size_t n;
  bool cost = true;
  cr_assert_eq(ws_record_csv_parse(ctx, "t.csv", csv, strlen(csv), &back, &rback, &n, &cost), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect_not(cost);
  cr_assert_eq(n, 3);
  cr_expect_eq(rback[0].sim_wall_s, 0, "a record without the cost columns has no cost");
  cr_expect_eq(rback[0].cycles, rs[0].cycles);
  free(back);
  free(rback);
  free(csv);
  /* the JSON: the keys when asked for, null where not measured */
  char *text;
  cr_assert_eq(ws_record_json(ctx, ps, rs, 3, true, &text), WS_OK);
  cJSON *arr = cJSON_Parse(text);
  cr_assert_not_null(arr, "not JSON: %s", text);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "sim_wall_s")->valuedouble, 12.5);
  cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "sim_warp_insns_per_s")->valuedouble,
               99 / (0.1 + 0.2));
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 1), "sim_cpu_s")));
  cJSON_Delete(arr);
  free(text);
  cr_assert_eq(ws_record_json(ctx, ps, rs, 1, false, &text), WS_OK);
  cr_expect_null(strstr(text, "sim_"), "%s", text);
  free(text);
}

/* The costed file with its first `from` replaced by `to`. */
static char *edited_costed(const char *from, const char *to) {
  ws_point ps[3];
  ws_point_result rs[3];
  make_costed_rows(ps, rs);
  return replace_first(csv_with(ps, rs, 3, true), from, to);
}

Test(record, bad_cost_columns) {
  uint32_t wall = ws_record_col_count(false) + 1, cpu = wall + 1;
  char want[4][160];
  snprintf(want[0], sizeof want[0],
           "t.csv:2: column sim_wall_s (%u): '-12.5' is not a cost: a number of 0 or more", wall);
  snprintf(want[1], sizeof want[1],
           "t.csv:2: column sim_cpu_s (%u): 'inf' is not a cost: a number of 0 or more", cpu);
  snprintf(want[2], sizeof want[2],
           "t.csv:1: %u columns where a sweep record has %u (%u with the cost columns)", wall, wall - 1,
           wall + 2);
  snprintf(want[3], sizeof want[3],
           "t.csv:1: header column %u is 'sim_cpu' where a sweep record has 'sim_cpu_s'", cpu);
  const char *cases[][2] = {{",12.5,", ",-12.5,"},
                            {",12.5,0.30000000000000004,", ",12.5,inf,"},
                            {",sim_wall_s,sim_cpu_s,sim_warp_insns_per_s\n", ",sim_wall_s\n"},
                            {",sim_cpu_s,", ",sim_cpu,"}};
  for (size_t i = 0; i < 4; i++) {
    char *text = edited_costed(cases[i][0], cases[i][1]);
    ws_point *ps;
    ws_point_result *rs;
    size_t n;
    cr_expect_eq(ws_record_csv_parse(ctx, "t.csv", text, strlen(text), &ps, &rs, &n, NULL), WS_ERR_INVALID,
                 "case %zu", i);
    cr_expect_str_eq(ws_errmsg(ctx), want[i], "case %zu", i);
    free(text);
  }
}
