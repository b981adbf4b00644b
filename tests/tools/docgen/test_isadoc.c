/* test_isadoc.c - the opcode table generated from opcodes.def: one row per
 * opcode, and the splicer replaces only the generated block. Whether
 * docs/isa.md carries the current table is checked by tests/tools/docgen/test_docgen.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "tools/docgen/isadoc.h"

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
