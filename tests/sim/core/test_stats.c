/* test_stats.c - the counter registry's table registration: names are the
 * formatted prefix followed by each row's name, in row order, with the
 * row's description; a failure stops the table and says why. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/core/stats.h"

Test(stats, table_rows_register_in_order_under_the_prefix) {
  ws_ctx *ctx = ws_ctx_create();
  ws_stats *s = ws_stats_create();
  uint64_t hits = 3, misses = 4;
  const ws_stat_def defs[] = {
      {&hits, "hits", "sectors found"},
      {&misses, "misses", "sectors fetched"},
  };
  cr_assert_eq(ws_stats_register_table(s, ctx, defs, 2, "sm%u.l1.", 7u), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_stats_count(s), 2);
  cr_expect_str_eq(ws_stats_name(s, 0), "sm7.l1.hits");
  cr_expect_str_eq(ws_stats_desc(s, 0), "sectors found");
  cr_expect_str_eq(ws_stats_name(s, 1), "sm7.l1.misses");
  uint64_t v = 0;
  cr_expect(ws_stats_get(s, "sm7.l1.misses", &v));
  cr_expect_eq(v, 4);
  ws_stats_destroy(s);
  ws_ctx_destroy(ctx);
}

Test(stats, table_stops_at_the_first_failure) {
  ws_ctx *ctx = ws_ctx_create();
  ws_stats *s = ws_stats_create();
  uint64_t a = 0, b = 0, c = 0;
  const ws_stat_def defs[] = {{&a, "x", ""}, {&b, "x", ""}, {&c, "y", ""}};
  cr_assert_eq(ws_stats_register_table(s, ctx, defs, 3, "gpu."), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "stat 'gpu.x' registered twice");
  cr_expect_eq(ws_stats_count(s), 1, "the rows after the failing one are not registered");
  char prefix[200];
  memset(prefix, 'p', sizeof prefix - 1);
  prefix[sizeof prefix - 1] = '\0';
  cr_assert_eq(ws_stats_register_table(s, ctx, defs + 2, 1, "%s.", prefix), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "is too long"), "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_stats_count(s), 1);
  ws_stats_destroy(s);
  ws_ctx_destroy(ctx);
}
