/* fuzz_csv.c - libFuzzer target for the two CSV readers: the sweep's
 * record reader (explore/record.h, what resume trusts) and the chart
 * command's table (plot/table.h, what `warpscope plot` reads).
 *
 * Arbitrary bytes go to both; each must return without crashing, hanging
 * or leaking, and a failure must carry a message naming the file. What the
 * record reader accepts must survive a round trip: written back as CSV it
 * reads to the same records (the bytes may differ: quoting is canonical,
 * and a tile left empty is written as the default the kernel was built
 * with, so points are compared with their tiles resolved),
 * with the cost columns exactly when the input had them, and that text must parse as a table with one row per
 * record and every cell of the table read back as a number or a text. Any violation abort()s, which libFuzzer
 * reports as a finding. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "explore/point.h"
#include "explore/record.h"
#include "plot/table.h"

#define NAME "fuzz.csv"

static void check_message(const ws_ctx *ctx, ws_status st) {
  if (st == WS_ERR_NOMEM || strncmp(ws_errmsg(ctx), NAME, strlen(NAME)) == 0) return;
  fprintf(stderr, "unexpected failure %d: %s\n", (int)st, ws_errmsg(ctx));
  abort();
}

/* Points a and b run the same kernel: equal once their tiles are resolved. */
static bool same_points(const ws_point *a, const ws_point *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    ws_point ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    ws_point_resolve_tiles(&a[i], &ra);
    ws_point_resolve_tiles(&b[i], &rb);
    if (memcmp(&ra, &rb, sizeof ra) != 0) return false;
  }
  return true;
}

/* The records written back read to the same records, and as a table. */
static void round_trip(ws_ctx *ctx, const ws_point *ps, const ws_point_result *rs, size_t n, bool cost) {
  ws_text t;
  ws_text_init(&t);
  ws_record_csv_header(&t, cost);
  for (size_t i = 0; i < n; i++) ws_record_csv_row(&t, &ps[i], &rs[i], cost);
  size_t len = t.len;
  char *text = ws_text_take(&t);
  if (!text) return;
  ws_point *ps2 = NULL;
  ws_point_result *rs2 = NULL;
  size_t n2 = 0;
  bool cost2 = !cost;
  if (ws_record_csv_parse(ctx, NAME, text, len, &ps2, &rs2, &n2, &cost2) != WS_OK || n2 != n ||
      cost2 != cost || (n && (!same_points(ps, ps2, n) || memcmp(rs, rs2, n * sizeof *rs) != 0))) {
    fprintf(stderr, "records written back do not read to the same records: %s\n", ws_errmsg(ctx));
    abort();
  }
  ws_table *tb = NULL;
  if (ws_table_parse(ctx, NAME, text, len, &tb) != WS_OK || ws_table_rows(tb) != n) {
    fprintf(stderr, "a written record file is no table: %s\n", ws_errmsg(ctx));
    abort();
  }
  ws_table_destroy(tb);
  free(ps2);
  free(rs2);
  free(text);
}

static void table(ws_ctx *ctx, const char *data, size_t size) {
  ws_table *t = NULL;
  ws_status st = ws_table_parse(ctx, NAME, data, size, &t);
  if (st != WS_OK) {
    check_message(ctx, st);
    return;
  }
  for (size_t r = 0; r < ws_table_rows(t); r++)
    for (size_t c = 0; c < ws_table_columns(t); c++) {
      double v;
      if (ws_table_number(ctx, t, r, c, &v) != WS_OK) check_message(ctx, WS_ERR_INVALID);
      if (!ws_table_cell(t, r, c)) abort();
    }
  ws_table_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  ws_point *ps = NULL;
  ws_point_result *rs = NULL;
  size_t n = 0;
  bool cost = false;
  ws_status st = ws_record_csv_parse(ctx, NAME, (const char *)data, size, &ps, &rs, &n, &cost);
  if (st == WS_OK)
    round_trip(ctx, ps, rs, n, cost);
  else
    check_message(ctx, st);
  free(ps);
  free(rs);
  table(ctx, (const char *)data, size);
  ws_ctx_destroy(ctx);
  return 0;
}
