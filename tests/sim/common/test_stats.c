/* test_stats.c - the counter registry: registration order and lookup by
 * name, live values, '*' wildcard sums, zeroing, the duplicate and bad-name
 * errors, index growth, and the exact JSON and CSV dumps.
 *
 * Why: reports and every memory-system test read counters through these
 * names; a pattern that matched one component too many or too few would
 * silently change every figure built on it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "sim/common/stats.h"

typedef struct reg {
  ws_ctx *ctx;
  ws_stats *s;
} reg;

static void reg_init(reg *r) {
  r->ctx = ws_ctx_create();
  r->s = ws_stats_create();
  cr_assert(r->ctx && r->s);
}

static void reg_fini(reg *r) {
  ws_stats_destroy(r->s);
  ws_ctx_destroy(r->ctx);
}

Test(stats, register_and_look_up_live_values) {
  reg r;
  reg_init(&r);
  uint64_t a = 7, b = 0;
  cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &a, "hits of SM 3", "sm%u.l1.hits", 3u), WS_OK);
  cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &b, NULL, "l2.slice%u.%s", 12u, "misses"), WS_OK);
  cr_expect_eq(ws_stats_count(r.s), 2);
  cr_expect_str_eq(ws_stats_name(r.s, 0), "sm3.l1.hits");
  cr_expect_str_eq(ws_stats_name(r.s, 1), "l2.slice12.misses");
  cr_expect_str_eq(ws_stats_desc(r.s, 0), "hits of SM 3");
  cr_expect_str_eq(ws_stats_desc(r.s, 1), "", "a NULL description reads as empty");
  uint64_t v = 99;
  cr_expect(ws_stats_get(r.s, "sm3.l1.hits", &v));
  cr_expect_eq(v, 7);
  /* the registry points at the counters: later increments are visible */
  a += 5;
  b = 40;
  cr_expect_eq(ws_stats_value(r.s, 0), 12);
  cr_expect(ws_stats_get(r.s, "l2.slice12.misses", &v));
  cr_expect_eq(v, 40);
  v = 99;
  cr_expect_not(ws_stats_get(r.s, "sm3.l1", &v), "a prefix is not a name");
  cr_expect_not(ws_stats_get(r.s, "sm3.l1.hitsx", &v));
  cr_expect_eq(v, 99, "a failed lookup leaves the value alone");
  reg_fini(&r);
}

Test(stats, lookups_on_an_empty_registry) {
  ws_stats *s = ws_stats_create();
  uint64_t v = 5;
  cr_expect_eq(ws_stats_count(s), 0);
  cr_expect_not(ws_stats_get(s, "anything", &v));
  cr_expect_eq(ws_stats_sum(s, "*"), 0);
  ws_stats_reset(s);
  ws_stats_destroy(s);
  ws_stats_destroy(NULL);
}

Test(stats, duplicate_and_bad_names_are_errors) {
  reg r;
  reg_init(&r);
  uint64_t a = 1, b = 2;
  cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &a, "", "sm0.cycles"), WS_OK);
  cr_expect_eq(ws_stats_register_u64(r.s, r.ctx, &b, "", "sm%d.cycles", 0), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(r.ctx), "'sm0.cycles' registered twice"), "%s", ws_errmsg(r.ctx));
  cr_expect_eq(ws_stats_count(r.s), 1);
  uint64_t v;
  cr_expect(ws_stats_get(r.s, "sm0.cycles", &v));
  cr_expect_eq(v, 1, "the first registration stays");
  cr_expect_eq(ws_stats_register_u64(r.s, r.ctx, &b, "", "%s", ""), WS_ERR_INVALID, "empty name");
  /* names are limited to 95 characters (a 96-byte buffer) */
  char name[97];
  memset(name, 'x', 95);
  name[95] = '\0';
  cr_expect_eq(ws_stats_register_u64(r.s, r.ctx, &b, "", "%s", name), WS_OK, "95 characters fit");
  memset(name, 'y', 96);
  name[96] = '\0';
  cr_expect_eq(ws_stats_register_u64(r.s, r.ctx, &b, "", "%s", name), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(r.ctx), "too long"), "%s", ws_errmsg(r.ctx));
  cr_expect_eq(ws_stats_count(r.s), 2);
  reg_fini(&r);
}

/* Counters 1, 2, 4, ... so every sum names exactly the counters it took. */
Test(stats, wildcard_sums) {
  reg r;
  reg_init(&r);
  static const char *const names[] = {
      "sm0.l1.hits",    /* 1 */
      "sm1.l1.hits",    /* 2 */
      "sm12.l1.hits",   /* 4 */
      "sm.l1.hits",     /* 8: '*' needs at least one character */
      "sm0.l1.hits_x",  /* 16: different last component */
      "sm0.x.l1.hits",  /* 32: '*' never crosses a dot */
      "sm0.l1.misses",  /* 64 */
      "l2.slice3.hits", /* 128 */
  };
  uint64_t c[8];
  for (int i = 0; i < 8; i++) {
    c[i] = 1ull << i;
    cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &c[i], "", "%s", names[i]), WS_OK);
  }
  cr_expect_eq(ws_stats_sum(r.s, "sm0.l1.hits"), 1, "no wildcard: one exact name");
  cr_expect_eq(ws_stats_sum(r.s, "sm*.l1.hits"), 1 + 2 + 4);
  cr_expect_eq(ws_stats_sum(r.s, "sm1*.l1.hits"), 4, "sm12 only: sm1 has nothing after the 1");
  cr_expect_eq(ws_stats_sum(r.s, "sm0.l1.*"), 1 + 16 + 64);
  cr_expect_eq(ws_stats_sum(r.s, "sm0.*.hits"), 1, "sm0.l1.hits; sm0.x.l1.hits has four components");
  cr_expect_eq(ws_stats_sum(r.s, "*.*.hits"), 1 + 2 + 4 + 8 + 128);
  cr_expect_eq(ws_stats_sum(r.s, "*.l1.*"), 1 + 2 + 4 + 8 + 16 + 64);
  cr_expect_eq(ws_stats_sum(r.s, "*"), 0, "every name has a dot");
  cr_expect_eq(ws_stats_sum(r.s, "sm*.l1.hit"), 0, "patterns are anchored at the end");
  cr_expect_eq(ws_stats_sum(r.s, "*.slice*.hits"), 128);
  reg_fini(&r);
}

Test(stats, reset_zeroes_every_counter) {
  reg r;
  reg_init(&r);
  uint64_t c[3] = {5, 6, 7};
  for (unsigned i = 0; i < 3; i++)
    cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &c[i], "", "c%u", i), WS_OK);
  ws_stats_reset(r.s);
  for (int i = 0; i < 3; i++) cr_expect_eq(c[i], 0);
  c[1] = 3;
  cr_expect_eq(ws_stats_value(r.s, 1), 3, "still registered after a reset");
  reg_fini(&r);
}

/* 3000 counters outgrow the first entry array (256) and the first hash
 * index (1024 slots, kept at least twice the count) several times. */
Test(stats, many_counters_keep_order_and_lookup) {
  reg r;
  reg_init(&r);
  enum { N = 3000 };
  uint64_t *c = calloc(N, sizeof *c);
  for (unsigned i = 0; i < N; i++) {
    c[i] = i * 3u;
    cr_assert_eq(ws_stats_register_u64(r.s, r.ctx, &c[i], "", "sm%u.u%u.n", i / 10, i % 10), WS_OK, "%s",
                 ws_errmsg(r.ctx));
  }
  cr_expect_eq(ws_stats_count(r.s), N);
  char name[32];
  for (unsigned i = 0; i < N; i += 7) {
    snprintf(name, sizeof name, "sm%u.u%u.n", i / 10, i % 10);
    uint64_t v = 0;
    cr_assert(ws_stats_get(r.s, name, &v), "%s", name);
    cr_expect_eq(v, i * 3u);
    cr_expect_str_eq(ws_stats_name(r.s, i), name);
  }
  uint64_t dup = 0;
  cr_expect_eq(ws_stats_register_u64(r.s, r.ctx, &dup, "", "sm299.u9.n"), WS_ERR_INVALID,
               "duplicates found after the index grew");
  /* sum over i of 3i for the ten counters of sm42: 3 * (420 + ... + 429) = 12735 */
  cr_expect_eq(ws_stats_sum(r.s, "sm42.*.n"), 12735);
  reg_fini(&r);
  free(c);
}

static char *dump(const ws_stats *s, int csv, bool desc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  if (csv)
    ws_stats_write_csv(s, f);
  else
    ws_stats_write_json(s, f, desc);
  fclose(f);
  return buf;
}

Test(stats, json_dump_exact) {
  reg r;
  reg_init(&r);
  uint64_t a = 3, b = 18446744073709551615ull;
  ws_stats_register_u64(r.s, r.ctx, &a, "say \"hi\"\\now\n", "sm0.hits");
  ws_stats_register_u64(r.s, r.ctx, &b, "max", "dram.bytes");
  char *j = dump(r.s, 0, false);
  cr_expect_str_eq(
      j, "{\n  \"stats\": {\n    \"sm0.hits\": 3,\n    \"dram.bytes\": 18446744073709551615\n  }\n}\n");
  free(j);
  j = dump(r.s, 0, true);
  cr_expect_str_eq(j,
                   "{\n  \"stats\": {\n    \"sm0.hits\": 3,\n    \"dram.bytes\": 18446744073709551615\n  },\n"
                   "  \"descriptions\": {\n    \"sm0.hits\": \"say \\\"hi\\\"\\\\now\\u000a\",\n"
                   "    \"dram.bytes\": \"max\"\n  }\n}\n");
  free(j);
  reg_fini(&r);
}

Test(stats, json_dump_of_an_empty_registry) {
  ws_stats *s = ws_stats_create();
  char *j = dump(s, 0, true);
  cr_expect_str_eq(j, "{\n  \"stats\": {\n  },\n  \"descriptions\": {\n  }\n}\n");
  free(j);
  ws_stats_destroy(s);
}

Test(stats, csv_dump_exact) {
  reg r;
  reg_init(&r);
  uint64_t a = 3, b = 0;
  ws_stats_register_u64(r.s, r.ctx, &a, "the \"hits\", all", "sm0.hits");
  ws_stats_register_u64(r.s, r.ctx, &b, NULL, "sm0.misses");
  char *c = dump(r.s, 1, false);
  cr_expect_str_eq(c, "name,value,description\nsm0.hits,3,\"the \"\"hits\"\", all\"\nsm0.misses,0,\"\"\n");
  free(c);
  reg_fini(&r);
}

/* ---- registration from a table of {counter, name, description} rows ---- */

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
