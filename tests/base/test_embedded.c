/* test_embedded.c - ws_embedded_find over a small hand-built table: an
 * exact path is found (the entry itself, not a copy), a near miss or an
 * absent path gives NULL, only the first `count` entries are searched, and
 * with a duplicated path the first entry wins (the lookup is a linear scan
 * from index 0). The generated tables are checked by tests/models/kgen/test_wsa.c. */
#include <criterion/criterion.h>

#include "base/embedded.h"

static const ws_embedded_file table[] = {
    {"models/runs/examples/saxpy.wsa", "saxpy", 5},
    {"sim/presets/a100.ini", "a100", 4},
    {"models/runs/examples/saxpy.wsa", "second saxpy", 12},
    {"models/kgen/kernels/gelu.wsa", "gelu", 4},
};

Test(embedded, finds_each_path_in_the_table) {
  cr_expect_eq(ws_embedded_find(table, 4, "sim/presets/a100.ini"), &table[1]);
  cr_expect_eq(ws_embedded_find(table, 4, "models/kgen/kernels/gelu.wsa"), &table[3]);
}

Test(embedded, a_duplicated_path_gives_the_first_entry) {
  const ws_embedded_file *f = ws_embedded_find(table, 4, "models/runs/examples/saxpy.wsa");
  cr_assert_eq(f, &table[0]);
  cr_expect_str_eq(f->text, "saxpy");
}

Test(embedded, absent_and_near_miss_paths_give_null) {
  cr_expect_null(ws_embedded_find(table, 4, "models/runs/examples/nope.wsa"));
  cr_expect_null(ws_embedded_find(table, 4, "sim/presets/a100"), "a prefix is not a match");
  cr_expect_null(ws_embedded_find(table, 4, "sim/presets/a100.ini "), "nor a longer name");
  cr_expect_null(ws_embedded_find(table, 4, "SIM/PRESETS/A100.INI"), "case matters");
  cr_expect_null(ws_embedded_find(table, 4, ""));
}

Test(embedded, only_the_first_count_entries_are_searched) {
  cr_expect_null(ws_embedded_find(table, 3, "models/kgen/kernels/gelu.wsa"));
  cr_expect_null(ws_embedded_find(table, 0, "models/runs/examples/saxpy.wsa"));
  cr_expect_null(ws_embedded_find(NULL, 0, "anything"), "an empty table is never read");
}
