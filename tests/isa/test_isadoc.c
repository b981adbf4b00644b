/* test_isadoc.c - docs/isa.md carries exactly the opcode table that
 * ws_isadoc_markdown generates from opcodes.def, so the reference cannot
 * drift from the code. On failure: build and run
 * `make docs`.
 *
 * Design: the block is cut out of the document here, independently of
 * ws_isadoc_splice, so a bug in the splicer cannot hide a stale document. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "isa/isadoc.h"

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

Test(isadoc, document_block_matches_generator) {
  char *doc = read_text(WS_SOURCE_DIR "/docs/isa.md");
  char *begin = strstr(doc, WS_ISADOC_BEGIN "\n");
  cr_assert_not_null(begin, "docs/isa.md lacks the line " WS_ISADOC_BEGIN);
  char *body = begin + strlen(WS_ISADOC_BEGIN "\n");
  char *end = strstr(body, WS_ISADOC_END);
  cr_assert_not_null(end, "docs/isa.md lacks " WS_ISADOC_END);
  *end = '\0';
  char *table = ws_isadoc_markdown();
  cr_assert_str_eq(body, table, "docs/isa.md is stale: run make docs");
  free(table);
  free(doc);
}

Test(isadoc, one_row_per_opcode) {
  char *table = ws_isadoc_markdown();
  unsigned lines = 0;
  for (const char *c = table; *c; c++) lines += *c == '\n';
  cr_assert_eq(lines, 2 + WS_OP_COUNT); /* header, rule, rows */
  cr_assert_not_null(strstr(table, "| `ISETP` | INT | `p=P, a=R, b=R/imm` | `.EQ` `.NE` `.LT` "
                                   "`.LE` `.GT` `.GE` (required); `.S32` `.U32` (default `.S32`) |"));
  cr_assert_not_null(strstr(table, "| `LDG` | LSU | `d=R:w, a=[R:2+imm]` | `.32` `.64` `.128` "
                                   "(default `.32`) |"));
  cr_assert_not_null(strstr(table, "d = a \\| b"), "a '|' in semantics must be escaped");
  free(table);
}

Test(isadoc, splice_replaces_only_the_block) {
  const char *doc = "# T\n" WS_ISADOC_BEGIN "\nold\nrows\n" WS_ISADOC_END "\ntail\n";
  char *out = ws_isadoc_splice(doc, "new\n");
  cr_assert_str_eq(out, "# T\n" WS_ISADOC_BEGIN "\nnew\n" WS_ISADOC_END "\ntail\n");
  free(out);
  cr_assert_null(ws_isadoc_splice("# no markers\n", "new\n"));
  cr_assert_null(ws_isadoc_splice(WS_ISADOC_BEGIN "\nno end\n", "new\n"));
}
