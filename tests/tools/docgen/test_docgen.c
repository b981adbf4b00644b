/* test_docgen.c - every generated block of the reference documents (the
 * opcode table, the preset tables, the counter glossary, the trace record
 * kinds) equals what its generator produces now, so docs cannot drift from
 * the code. On failure:
 * `make docs`.
 *
 * Design: each block is cut out of its document here, independently of
 * ws_text_splice, so a bug in the splicer cannot hide a stale document. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "tools/docgen/docgen.h"

static void expect_current(const ws_docgen_block *g) {
  ws_ctx *ctx = ws_ctx_create();
  char path[1024], *doc = NULL;
  size_t size = 0;
  snprintf(path, sizeof path, "%s/%s", WS_SOURCE_DIR, g->path);
  cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &doc, &size), WS_OK, "%s",
               ws_errmsg(ctx));
  char *begin = strstr(doc, g->begin);
  char *body = begin ? strchr(begin, '\n') : NULL;
  cr_assert_not_null(body, "%s lacks the line %s", g->path, g->begin);
  char *end = strstr(++body, g->end);
  cr_assert_not_null(end, "%s lacks %s", g->path, g->end);
  *end = '\0';
  char *block = g->markdown();
  cr_assert_not_null(block, "the %s generator failed", g->name);
  cr_expect_str_eq(body, block, "%s is stale: run make docs", g->path);
  free(block);
  free(doc);
  ws_ctx_destroy(ctx);
}

Test(docgen, every_generated_block_is_current) {
  cr_assert_eq(ws_docgen_count(), 4);
  for (size_t i = 0; i < ws_docgen_count(); i++) expect_current(ws_docgen_get(i));
}

Test(docgen, stats_glossary_lists_the_counters_the_report_reads) {
  char *table = ws_docgen_find("stats")->markdown();
  cr_assert_not_null(table);
  static const char *const names[] = {"sm<i>.l1.sector_hits",      "l2.slice<i>.sector_misses",
                                      "hbm.ch<i>.bytes_read",      "sm<i>.stall.long_scoreboard",
                                      "sm<i>.smem.bank_conflicts", "gpu.cycles"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char row[96];
    snprintf(row, sizeof row, "| `%s` |", names[i]);
    cr_expect(strstr(table, row) != NULL, "%s missing from the glossary", names[i]);
  }
  cr_expect(strstr(table, "l<i>") == NULL, "only instance numbers become <i>");
  free(table);
}

Test(docgen, trace_kinds_table_names_every_field_from_probe_def) {
  char *table = ws_docgen_find("traces")->markdown();
  cr_assert_not_null(table);
  static const char *const rows[] = {
      "| `dram` | a DRAM column command |", "`bank` (index): the bank in its channel",
      "| `l2_fill` | DRAM data filling an L2 line | L2 slice | DRAM data at the slice | unit = slice, uop = "
      "the "
      "DRAM read's, addr | unused | unused | `sectors` (sector mask)",
      "`row_hit`, `row_miss`, `row_conflict` |", "| `resfail` | `l1` | no MSHR, way or write-buffer slot"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    cr_expect(strstr(table, rows[i]) != NULL, "the table lacks %s", rows[i]);
  free(table);
}

Test(docgen, lookup_by_name) {
  cr_expect_str_eq(ws_docgen_find("presets")->path, "docs/presets.md");
  cr_expect_null(ws_docgen_find("nope"));
  cr_expect_null(ws_docgen_get(4));
}
