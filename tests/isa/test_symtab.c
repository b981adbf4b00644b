/* test_symtab.c - the assembler's name -> index hash (isa/symtab.c) over
 * caller-owned records: lookups by (pointer, length) slices, absent and
 * prefix names, the growth rule (16 slots on first use, doubled whenever
 * count would pass half the slots: 8 entries fit in 16, the 9th makes 32,
 * 1000 need 2048), lookups after the records array moved, clear keeping the
 * allocation, and how a duplicate is detected (find before add). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/program.h"
#include "isa/symtab.h"

Test(symtab, empty_table_finds_nothing) {
  ws_symtab t;
  ws_symtab_init(&t);
  ws_label none[1] = {{"x", 0}};
  cr_expect_eq(ws_symtab_find(&t, none, sizeof none[0], "x", 1), WS_SYMTAB_NONE);
  cr_expect_eq(t.cap, 0u);
  cr_expect_null(t.slots);
  ws_symtab_free(&t);
}

Test(symtab, finds_slices_by_exact_name) {
  ws_label recs[3] = {{"alpha", 10}, {"beta", 20}, {"alphabet", 30}};
  ws_symtab t;
  ws_symtab_init(&t);
  for (uint32_t i = 0; i < 3; i++) cr_assert(ws_symtab_add(&t, recs, sizeof recs[0], i));
  cr_expect_eq(t.count, 3u);
  cr_expect_eq(t.cap, 16u);
  const char *line = "alphabetical beta,";
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], line, 5), 0u);      /* "alpha" */
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], line, 8), 2u);      /* "alphabet" */
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], line + 13, 4), 1u); /* "beta" */
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], line, 4), WS_SYMTAB_NONE, "\"alph\"");
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], line, 12), WS_SYMTAB_NONE);
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], "gamma", 5), WS_SYMTAB_NONE);
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], "", 0), WS_SYMTAB_NONE);
  ws_symtab_free(&t);
  cr_expect_null(t.slots);
  cr_expect_eq(t.cap, 0u);
  cr_expect_eq(t.count, 0u);
}

/* The assembler refuses a redefinition by finding the name before adding:
 * the earlier record's index comes back for the later record's name. */
Test(symtab, a_duplicate_is_found_before_it_is_added) {
  ws_param recs[2] = {{.name = "n"}, {.name = "n"}};
  ws_symtab t;
  ws_symtab_init(&t);
  cr_assert(ws_symtab_add(&t, recs, sizeof recs[0], 0));
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], recs[1].name, strlen(recs[1].name)), 0u);
  ws_symtab_free(&t);
}

static void name_of(char *buf, size_t size, uint32_t i) { snprintf(buf, size, "sym_%u", i); }

Test(symtab, grows_and_follows_a_moved_array) {
  ws_label *recs = NULL;
  ws_symtab t;
  ws_symtab_init(&t);
  for (uint32_t i = 0; i < 1000; i++) {
    ws_label *grown = realloc(recs, (i + 1) * sizeof *recs); /* the base may move each time */
    cr_assert_not_null(grown);
    recs = grown;
    name_of(recs[i].name, sizeof recs[i].name, i);
    recs[i].pc = i;
    cr_assert(ws_symtab_add(&t, recs, sizeof *recs, i));
    if (i == 7) cr_expect_eq(t.cap, 16u, "8 entries fit in 16 slots");
    if (i == 8) cr_expect_eq(t.cap, 32u, "the 9th doubles the table");
  }
  cr_expect_eq(t.count, 1000u);
  cr_expect_eq(t.cap, 2048u);
  for (uint32_t i = 0; i < 1000; i++) {
    char name[WS_NAME_MAX];
    name_of(name, sizeof name, i);
    cr_expect_eq(ws_symtab_find(&t, recs, sizeof *recs, name, strlen(name)), i, "%s", name);
  }
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof *recs, "sym_1000", 8), WS_SYMTAB_NONE);
  ws_symtab_free(&t);
  free(recs);
}

Test(symtab, clear_forgets_entries_and_keeps_the_allocation) {
  ws_label recs[20];
  ws_symtab t;
  ws_symtab_init(&t);
  for (uint32_t i = 0; i < 20; i++) {
    name_of(recs[i].name, sizeof recs[i].name, i);
    cr_assert(ws_symtab_add(&t, recs, sizeof recs[0], i));
  }
  cr_expect_eq(t.cap, 64u); /* 16 -> 32 at the 9th, -> 64 at the 17th */
  uint32_t *slots = t.slots;
  ws_symtab_clear(&t);
  cr_expect_eq(t.count, 0u);
  cr_expect_eq(t.cap, 64u);
  cr_expect_eq(t.slots, slots);
  for (uint32_t i = 0; i < 20; i++)
    cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], recs[i].name, strlen(recs[i].name)),
                 WS_SYMTAB_NONE);
  /* reused for the next kernel's names */
  snprintf(recs[0].name, sizeof recs[0].name, "again");
  cr_assert(ws_symtab_add(&t, recs, sizeof recs[0], 0));
  cr_expect_eq(ws_symtab_find(&t, recs, sizeof recs[0], "again", 5), 0u);
  cr_expect_eq(t.count, 1u);
  ws_symtab_free(&t);
  ws_symtab_init(&t);
  ws_symtab_clear(&t); /* clear of an unused table is harmless */
  cr_expect_eq(t.count, 0u);
}
