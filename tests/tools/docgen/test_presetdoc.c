/* test_presetdoc.c - the preset tables generated from the key table: one row
 * per key with its sources (read off the INI lines by ws_config_key_source,
 * tested in tests/sim/common/test_config.c), and the splicer replaces only the
 * generated block. Whether docs/presets.md carries the current tables is
 * checked by tests/tools/docgen/test_docgen.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/config.h"
#include "tools/docgen/presetdoc.h"

Test(presetdoc, one_row_per_key_with_sources) {
  char *tables = ws_presetdoc_markdown();
  unsigned rows = 0;
  for (const char *c = strstr(tables, "\n| `"); c; c = strstr(c + 1, "\n| `")) rows++;
  cr_assert_eq(rows + (strncmp(tables, "| `", 3) == 0), ws_config_key_count());
  cr_assert_not_null(strstr(tables,
                            "| `sm.max_warps_per_sm` | resident warps per SM | warps | 64 | 64 | 64 | 48 | "
                            "64 | a100: [CUDA] cc 8.0: 64 resident warps<br>"));
  cr_assert_not_null(strstr(tables,
                            "| `regfile.alloc_unit_regs` (optional) | per-warp register allocation unit | "
                            "regs | 256 | 256 | 256 | 256 | 256 | default CUDA Occupancy Calculator"));
  free(tables);
}

Test(presetdoc, splice_replaces_only_the_block) {
  const char *doc = "# T\n" WS_PRESETDOC_BEGIN "\nold\n" WS_PRESETDOC_END "\ntail\n";
  char *out = ws_presetdoc_splice(doc, "new\n");
  cr_assert_str_eq(out, "# T\n" WS_PRESETDOC_BEGIN "\nnew\n" WS_PRESETDOC_END "\ntail\n");
  free(out);
  cr_assert_null(ws_presetdoc_splice("no markers", "x"));
}
