/* test_statsdoc.c - docs/stats.md lists every registered counter: its
 * generated block equals what the registry produces now. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "isa/text.h"
#include "sim/statsdoc.h"

Test(statsdoc, docs_stats_md_is_current) {
  char *table = ws_statsdoc_markdown();
  cr_assert_not_null(table);
  cr_expect(strstr(table, "| `sm<i>.l1.sector_hits` |") != NULL);
  cr_expect(strstr(table, "| `hbm.ch<i>.row_conflicts` |") != NULL);
  cr_expect(strstr(table, "| `sm<i>.stall.long_scoreboard` |") != NULL);
  ws_ctx *ctx = ws_ctx_create();
  char *doc = NULL;
  size_t size = 0;
  cr_assert_eq(ws_file_read(ctx, WS_SOURCE_DIR "/docs/stats.md", &doc, &size), WS_OK, "%s", ws_errmsg(ctx));
  char *spliced = ws_text_splice(doc, WS_STATSDOC_BEGIN, WS_STATSDOC_END, table);
  cr_assert_not_null(spliced, "docs/stats.md lacks the generated-block markers");
  cr_expect_str_eq(doc, spliced, "docs/stats.md is stale: run make docs");
  free(spliced);
  free(doc);
  free(table);
  ws_ctx_destroy(ctx);
}
