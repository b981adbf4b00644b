/* test_modifiers.c - the modifier-group table (isa/modifiers.c): the groups
 * in canonical order with their spellings, stored values and defaults;
 * finding a spelling (exact length, only inside its own group); the spelling
 * of a stored value; and which ws_insn field each group reads and writes.
 * Expected values are the table rows in modifiers.c and the enums of isa.h. */
#include <criterion/criterion.h>

#include "isa/modifiers.h"

static const ws_modgroup *group_of(uint32_t bit) {
  for (unsigned i = 0; i < WS_MODGROUP_COUNT; i++)
    if (ws_modifiers_group(i)->bit == bit) return ws_modifiers_group(i);
  cr_assert_fail("no group for bit 0x%x", bit);
  return NULL;
}

Test(modifiers, groups_in_canonical_order) {
  static const uint32_t order[WS_MODGROUP_COUNT] = {WS_MOD_ICMP,  WS_MOD_FCMP,  WS_MOD_ITYPE,
                                                    WS_MOD_ATYPE, WS_MOD_WIDTH, WS_MOD_SWIDTH,
                                                    WS_MOD_HSEL,  WS_MOD_SHFL,  WS_MOD_HFMT};
  static const unsigned counts[WS_MODGROUP_COUNT] = {6, 14, 2, 3, 3, 5, 2, 4, 4};
  static const int defaults[WS_MODGROUP_COUNT] = {-1, -1, 0, 0, 0, 2, 0, -1, 0};
  static const char *const what[WS_MODGROUP_COUNT] = {"comparison", "comparison",   "type",
                                                      "type",       "width",        "store width",
                                                      "half",       "shuffle mode", "half format"};
  for (unsigned i = 0; i < WS_MODGROUP_COUNT; i++) {
    const ws_modgroup *g = ws_modifiers_group(i);
    cr_assert_not_null(g);
    cr_expect_eq(g->bit, order[i], "group %u", i);
    cr_expect_eq(g->count, counts[i], "group %u", i);
    cr_expect_eq(g->default_index, defaults[i], "group %u", i);
    cr_expect_str_eq(g->what, what[i], "group %u", i);
  }
  cr_expect_null(ws_modifiers_group(WS_MODGROUP_COUNT));
  cr_expect_null(ws_modifiers_group(100));
}

Test(modifiers, spellings_and_values) {
  const ws_modgroup *w = group_of(WS_MOD_WIDTH);
  cr_expect_str_eq(w->names[0], "32");
  cr_expect_str_eq(w->names[2], "128");
  cr_expect_eq(w->values[0], 4, "widths are stored in bytes");
  cr_expect_eq(w->values[1], 8);
  cr_expect_eq(w->values[2], 16);
  /* stores also move a byte or a halfword; .32 stays their default */
  const ws_modgroup *sw = group_of(WS_MOD_SWIDTH);
  cr_expect_str_eq(sw->names[0], "8");
  cr_expect_eq(sw->values[0], 1);
  cr_expect_str_eq(sw->names[1], "16");
  cr_expect_eq(sw->values[1], 2);
  cr_expect_eq(sw->values[4], 16);
  cr_expect_str_eq(sw->names[sw->default_index], "32");
  cr_expect_eq(ws_modifiers_find(w, "8", 1), -1, "loads move whole words");
  const ws_modgroup *f = group_of(WS_MOD_FCMP);
  cr_expect_str_eq(f->names[6], "EQU");
  cr_expect_eq(f->values[6], WS_CMP_EQU);
  cr_expect_str_eq(f->names[13], "NAN");
  cr_expect_eq(f->values[13], WS_CMP_NAN);
  const ws_modgroup *s = group_of(WS_MOD_SHFL);
  cr_expect_str_eq(s->names[3], "BFLY");
  cr_expect_eq(s->values[3], WS_SHFL_BFLY);
  /* the defaults: .S32, .32, .H0 */
  cr_expect_str_eq(group_of(WS_MOD_ITYPE)->names[0], "S32");
  cr_expect_str_eq(w->names[w->default_index], "32");
  cr_expect_str_eq(group_of(WS_MOD_HSEL)->names[0], "H0");
}

Test(modifiers, find_matches_whole_spellings_of_its_group) {
  const ws_modgroup *w = group_of(WS_MOD_WIDTH), *icmp = group_of(WS_MOD_ICMP), *fcmp = group_of(WS_MOD_FCMP),
                    *itype = group_of(WS_MOD_ITYPE), *atype = group_of(WS_MOD_ATYPE);
  cr_expect_eq(ws_modifiers_find(w, "128", 3), 2);
  cr_expect_eq(ws_modifiers_find(w, "64", 2), 1);
  cr_expect_eq(ws_modifiers_find(w, "12", 2), -1, "a prefix is not a spelling");
  cr_expect_eq(ws_modifiers_find(w, "1280", 4), -1);
  cr_expect_eq(ws_modifiers_find(icmp, "GE", 2), 5);
  cr_expect_eq(ws_modifiers_find(icmp, "GEU", 3), -1, "unordered forms are float-only");
  cr_expect_eq(ws_modifiers_find(fcmp, "GEU", 3), 11);
  cr_expect_eq(ws_modifiers_find(icmp, "eq", 2), -1, "spellings are upper case");
  cr_expect_eq(ws_modifiers_find(icmp, "EQ.U32", 2), 0, "only n bytes are read");
  cr_expect_eq(ws_modifiers_find(itype, "F32", 3), -1, "integer types stop at U32");
  cr_expect_eq(ws_modifiers_find(atype, "F32", 3), 2);
  cr_expect_eq(ws_modifiers_find(itype, "", 0), -1);
}

Test(modifiers, index_of_a_stored_value) {
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_WIDTH), 16), 2);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_WIDTH), 12), -1, "a corrupt width");
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_WIDTH), 0), -1);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_FCMP), WS_CMP_NAN), 13);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_ICMP), WS_CMP_NAN), -1);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_ICMP), WS_CMP_NONE), -1);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_SHFL), WS_SHFL_BFLY), 3);
  cr_expect_eq(ws_modifiers_index(group_of(WS_MOD_HSEL), 1), 1);
}

/* Each group lives in one field; setting it leaves every other field alone. */
Test(modifiers, get_and_set_use_the_groups_field) {
  ws_insn in = {.op = 1, .guard = 3, .cmp = 9, .dtype = 9, .width_bytes = 9, .hsel = 9};
  ws_modifiers_set(&in, group_of(WS_MOD_SWIDTH), 2);
  cr_expect_eq(in.width_bytes, 2);
  ws_modifiers_set(&in, group_of(WS_MOD_WIDTH), 16);
  cr_expect_eq(in.width_bytes, 16);
  ws_modifiers_set(&in, group_of(WS_MOD_ATYPE), WS_DT_F32);
  cr_expect_eq(in.dtype, WS_DT_F32);
  ws_modifiers_set(&in, group_of(WS_MOD_HSEL), 1);
  cr_expect_eq(in.hsel, 1);
  ws_modifiers_set(&in, group_of(WS_MOD_SHFL), WS_SHFL_DOWN);
  cr_expect_eq(in.cmp, WS_SHFL_DOWN);
  cr_expect_eq(in.op, 1);
  cr_expect_eq(in.guard, 3);
  cr_expect_eq(ws_modifiers_get(&in, group_of(WS_MOD_WIDTH)), 16u);
  cr_expect_eq(ws_modifiers_get(&in, group_of(WS_MOD_ITYPE)), (unsigned)WS_DT_F32);
  cr_expect_eq(ws_modifiers_get(&in, group_of(WS_MOD_HSEL)), 1u);
  cr_expect_eq(ws_modifiers_get(&in, group_of(WS_MOD_ICMP)), (unsigned)WS_SHFL_DOWN,
               "comparisons and the shuffle mode share the cmp field");
  ws_modifiers_set(&in, group_of(WS_MOD_FCMP), WS_CMP_LTU);
  cr_expect_eq(in.cmp, WS_CMP_LTU);
  cr_expect_eq(in.width_bytes, 16);
  cr_expect_eq(in.dtype, WS_DT_F32);
  cr_expect_eq(in.hsel, 1);
}
