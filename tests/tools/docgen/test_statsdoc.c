/* test_statsdoc.c - the counter glossary generator (tools/docgen/statsdoc.c):
 * a Markdown table with one row per counter name pattern, instance numbers
 * of sm/slice/ch components folded to <i> (the classroom preset it probes
 * has 2 SMs, 2 L2 slices and 2 channels, so unfolded names would show as
 * sm0/sm1...), each pattern once, and the description the simulator
 * registered (quoted here from sim/gpu/engine.c, sim/memsys/l1.c and
 * sim/memsys/xbar.c). The markers it is spliced between are in docs/stats.md
 * once each, in order, and never inside the generated text itself. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "tools/docgen/statsdoc.h"

static char *table;
static void setup(void) { table = ws_statsdoc_markdown(); }
static void teardown(void) { free(table); }
TestSuite(statsdoc, .init = setup, .fini = teardown);

Test(statsdoc, a_table_of_known_counters_with_their_descriptions) {
  cr_assert_not_null(table, "the probe launch failed");
  cr_expect_eq(strncmp(table, "| counter | definition |\n|---|---|\n", 35), 0);
  static const char *const rows[] = {
      "| `gpu.cycles` | kernel duration in core cycles (last CTA retired, memory drained) |\n",
      "| `sm<i>.l1.loads` | load line accesses accepted (one per 128-byte line a warp load "
      "touches) |\n",
      "| `noc.slice<i>.resp_bytes` | ",
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    cr_expect(strstr(table, rows[i]) != NULL, "missing: %s", rows[i]);
  cr_expect_eq(strstr(table, rows[0]), table + 35, "gpu.cycles is the first counter registered");
}

/* Every line after the header is "| `pattern` | description |", and no
 * pattern repeats. */
Test(statsdoc, one_row_per_pattern) {
  cr_assert_not_null(table);
  char *copy = strdup(table);
  cr_assert_not_null(copy);
  char *save = NULL;
  char *patterns[512];
  size_t n = 0, line_no = 0;
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line_no++ < 2) continue;
    size_t len = strlen(line);
    cr_assert(strncmp(line, "| `", 3) == 0 && len > 6 && strcmp(line + len - 2, " |") == 0,
              "malformed row: %s", line);
    char *end = strstr(line + 3, "` | ");
    cr_assert_not_null(end, "malformed row: %s", line);
    *end = '\0';
    cr_assert_lt(n, 512);
    for (size_t j = 0; j < n; j++)
      cr_expect_neq(strcmp(patterns[j], line + 3), 0, "%s is listed twice", line + 3);
    patterns[n++] = line + 3;
  }
  cr_expect_gt(n, 50, "only %zu rows", n);
  free(copy);
}

/* Instance numbers never survive; digits that belong to a name do. */
Test(statsdoc, instance_numbers_become_i) {
  cr_assert_not_null(table);
  static const char *const unfolded[] = {"`sm0", "`sm1", ".slice0", ".slice1", ".ch0", ".ch1"};
  for (size_t i = 0; i < sizeof unfolded / sizeof unfolded[0]; i++)
    cr_expect(strstr(table, unfolded[i]) == NULL, "%s was not folded", unfolded[i]);
  cr_expect(strstr(table, "`sm<i>.") != NULL);
  cr_expect(strstr(table, "`l2.slice<i>.") != NULL);
  cr_expect(strstr(table, "`hbm.ch<i>.") != NULL);
  cr_expect(strstr(table, ".l1.") != NULL, "the 1 of l1 is part of the name");
}

Test(statsdoc, markers) {
  cr_assert_not_null(table);
  cr_expect_str_eq(WS_STATSDOC_BEGIN, "<!-- BEGIN GENERATED STATS -->");
  cr_expect_str_eq(WS_STATSDOC_END, "<!-- END GENERATED STATS -->");
  cr_expect(strstr(table, "<!--") == NULL, "the table holds no marker");
  ws_ctx *ctx = ws_ctx_create();
  char *doc = NULL;
  size_t size = 0;
  cr_assert_eq(
      ws_file_read(ctx, WS_SOURCE_DIR "/docs/stats.md", WS_FILE_TEXT_MAX_BYTES, "test input", &doc, &size),
      WS_OK, "%s", ws_errmsg(ctx));
  char *begin = strstr(doc, WS_STATSDOC_BEGIN), *end = strstr(doc, WS_STATSDOC_END);
  cr_assert_not_null(begin);
  cr_assert_not_null(end);
  cr_expect_lt(begin, end);
  cr_expect_null(strstr(begin + 1, WS_STATSDOC_BEGIN), "BEGIN appears once");
  cr_expect_null(strstr(end + 1, WS_STATSDOC_END), "END appears once");
  free(doc);
  ws_ctx_destroy(ctx);
}

Test(statsdoc, the_same_text_every_time) {
  cr_assert_not_null(table);
  char *again = ws_statsdoc_markdown();
  cr_assert_not_null(again);
  cr_expect_str_eq(again, table);
  free(again);
}
