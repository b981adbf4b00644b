/* test_table.c - the CSV reader (plot/table.h): RFC 4180 quoting, CRLF,
 * access by name, numbers, and every malformed input refused with its
 * FILE:LINE:COLUMN. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plot/table.h"

static ws_ctx *ctx;
static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }
TestSuite(table, .init = setup, .fini = teardown);

static ws_table *parse(const char *text) {
  ws_table *t = NULL;
  cr_assert_eq(ws_table_parse(ctx, "t.csv", text, strlen(text), &t), WS_OK, "%s", ws_errmsg(ctx));
  return t;
}

Test(table, quoted_fields_crlf_and_names) {
  ws_table *t = parse("kind,why,gflops\r\ngemm,\"a, b \"\"c\"\"\r\nd\",12.5\r\nattn,,7\r\n");
  cr_expect_eq(ws_table_columns(t), 3);
  cr_expect_eq(ws_table_rows(t), 2);
  size_t c;
  cr_assert(ws_table_find(t, "why", &c));
  cr_expect_str_eq(ws_table_cell(t, 0, c), "a, b \"c\"\r\nd");
  cr_expect_str_eq(ws_table_cell(t, 1, c), "");
  cr_expect_eq(ws_table_line(t, 1), 4, "the quoted newline counts");
  double v;
  cr_assert(ws_table_find(t, "gflops", &c));
  cr_expect_eq(ws_table_number(ctx, t, 0, c, &v), WS_OK);
  cr_expect_float_eq(v, 12.5, 1e-12);
  cr_expect(!ws_table_find(t, "nope", &c));
  char list[64];
  ws_table_list_columns(t, list, sizeof list);
  cr_expect_str_eq(list, "kind, why, gflops");
  ws_table_destroy(t);
}

Test(table, header_only_blank_lines_and_no_final_newline) {
  ws_table *t = parse("a,b\n");
  cr_expect_eq(ws_table_rows(t), 0);
  ws_table_destroy(t);
  t = parse("a,b\n1,2\n\n3,4");
  cr_expect_eq(ws_table_rows(t), 2);
  cr_expect_str_eq(ws_table_cell(t, 1, 1), "4");
  ws_table_destroy(t);
}

static void refused(const char *text, size_t len, const char *msg) {
  ws_table *t = NULL;
  cr_expect_neq(ws_table_parse(ctx, "t.csv", text, len, &t), WS_OK, "'%s' accepted", text);
  cr_expect_null(t);
  cr_expect(strstr(ws_errmsg(ctx), msg) != NULL, "'%s' expected in '%s'", msg, ws_errmsg(ctx));
}

Test(table, bad_inputs_name_line_and_column) {
  refused("", 0, "t.csv:1:1: error: no header row");
  refused("a,b\n1,2,3\n", 10, "t.csv:2:5: error: a row of more fields than the header's 2 (3)");
  refused("a,b\n1\n", 6, "t.csv:2:1: error: a row of fewer fields");
  refused("a,b\n1,\"x\n", 9, "t.csv:2:3: error: a quoted field that never ends");
  refused("a,b\n1,\"x\"y\n", 11,
          "t.csv:2:6: error: a ',' or the end of the line expected after a closing quote");
  refused("a,b\n1,x\"y\n", 10, "t.csv:2:4: error: a '\"' inside an unquoted field");
  refused("a,a\n", 4, "t.csv:1:3: error: column 'a' appears twice (fields 1 and 2)");
  refused("a,b\n1,\0\n", 8, "t.csv:2:3: error: a NUL byte");
  refused("a", WS_TABLE_MAX_BYTES + 1, "larger than the 64 MiB limit");
}

Test(table, numbers_name_the_cell) {
  ws_table *t = parse("m,gflops\n1,fast\n2,\n3,1e999\n4,1e-308\n");
  double v;
  cr_expect_neq(ws_table_number(ctx, t, 0, 1, &v), WS_OK);
  cr_expect_str_eq(ws_errmsg(ctx), "t.csv:2:3: error: column 'gflops': a number expected, 'fast' found");
  cr_expect_neq(ws_table_number(ctx, t, 1, 1, &v), WS_OK);
  cr_expect(
      strstr(ws_errmsg(ctx), "t.csv:3:3: error: column 'gflops': a number expected, an empty field found"));
  cr_expect_neq(ws_table_number(ctx, t, 2, 1, &v), WS_OK, "an overflow is not a number");
  cr_expect_eq(ws_table_number(ctx, t, 3, 1, &v), WS_OK, "an underflow (a subnormal) is one: %s",
               ws_errmsg(ctx));
  cr_expect(v > 0 && v < 1.1e-308);
  ws_table_destroy(t);
}

Test(table, ten_thousand_columns_refused_without_a_crash) {
  size_t n = 10000 * 2;
  char *text = malloc(n + 1);
  cr_assert_not_null(text);
  for (size_t i = 0; i < n; i += 2) text[i] = 'x', text[i + 1] = ',';
  text[n - 1] = '\n';
  refused(text, n, "a header of 10000 columns, at most 4096 allowed");
  free(text);
}

Test(table, a_missing_file) {
  ws_table *t = NULL;
  cr_expect_neq(ws_table_read(ctx, "/nonexistent/s.csv", &t), WS_OK);
  cr_expect_null(t);
}
