/* test_presetdoc.c - docs/presets.md carries exactly the tables that
 * ws_presetdoc_markdown generates from the key table and the embedded
 * presets, so the documented values and sources cannot drift from what the
 * simulator loads. On failure: build and run
 * `make docs`.
 *
 * Design: the block is cut out of the document here, independently of
 * ws_presetdoc_splice, so a bug in the splicer cannot hide a stale document. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config.h"
#include "sim/presetdoc.h"

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

Test(presetdoc, document_block_matches_generator) {
  char *doc = read_text(WS_SOURCE_DIR "/docs/presets.md");
  char *begin = strstr(doc, WS_PRESETDOC_BEGIN "\n");
  cr_assert_not_null(begin, "docs/presets.md lacks the line " WS_PRESETDOC_BEGIN);
  char *body = begin + strlen(WS_PRESETDOC_BEGIN "\n");
  char *end = strstr(body, WS_PRESETDOC_END);
  cr_assert_not_null(end, "docs/presets.md lacks " WS_PRESETDOC_END);
  *end = '\0';
  char *tables = ws_presetdoc_markdown();
  cr_assert_not_null(tables, "an embedded preset failed to load");
  cr_assert_str_eq(body, tables, "docs/presets.md is stale: run make docs");
  free(tables);
  free(doc);
}

Test(presetdoc, one_row_per_key_with_sources) {
  char *tables = ws_presetdoc_markdown();
  unsigned rows = 0;
  for (const char *c = strstr(tables, "\n| `"); c; c = strstr(c + 1, "\n| `")) rows++;
  cr_assert_eq(rows + (strncmp(tables, "| `", 3) == 0), ws_gpu_cfg_key_count());
  cr_assert_not_null(strstr(tables, "| `sm.max_warps_per_sm` | resident warps per SM | warps | 64 | 64 | 64 | 48 | "
                                    "64 | a100: [CUDA] cc 8.0: 64 resident warps<br>"));
  cr_assert_not_null(strstr(tables, "| `regfile.alloc_unit_regs` (optional) | per-warp register allocation unit | "
                                    "regs | 256 | 256 | 256 | 256 | 256 | default CUDA Occupancy Calculator"));
  free(tables);
}

Test(presetdoc, source_comment_of_a_line) {
  char out[128];
  const char *ini = "[a]\nk = 1 ; not this\n[b]\nkey2 = 3\nk = 2   ; [X] the source\n";
  ws_presetdoc_source(ini, "b", "k", out, sizeof out);
  cr_assert_str_eq(out, "[X] the source");
  ws_presetdoc_source(ini, "b", "key2", out, sizeof out);
  cr_assert_str_eq(out, "");
  ws_presetdoc_source(ini, "c", "k", out, sizeof out);
  cr_assert_str_eq(out, "");
}

Test(presetdoc, splice_replaces_only_the_block) {
  const char *doc = "# T\n" WS_PRESETDOC_BEGIN "\nold\n" WS_PRESETDOC_END "\ntail\n";
  char *out = ws_presetdoc_splice(doc, "new\n");
  cr_assert_str_eq(out, "# T\n" WS_PRESETDOC_BEGIN "\nnew\n" WS_PRESETDOC_END "\ntail\n");
  free(out);
  cr_assert_null(ws_presetdoc_splice("no markers", "x"));
}
