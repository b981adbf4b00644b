/* modifiers.c - the modifier-group table.
 *
 * Design: spellings come from the same enums the executor switches on
 * (ws_cmp, ws_dtype, ws_shfl_mode), with the stored value next to each
 * spelling, so a group's order in the table is its canonical print order. */
#include "isa/modifiers.h"

#include <string.h>

static const char *const icmp_names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
static const uint8_t icmp_values[] = {WS_CMP_EQ, WS_CMP_NE, WS_CMP_LT, WS_CMP_LE, WS_CMP_GT, WS_CMP_GE};
static const char *const fcmp_names[] = {"EQ",  "NE",  "LT",  "LE",  "GT",  "GE",  "EQU",
                                         "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"};
static const uint8_t fcmp_values[] = {WS_CMP_EQ,  WS_CMP_NE,  WS_CMP_LT,  WS_CMP_LE,  WS_CMP_GT,
                                      WS_CMP_GE,  WS_CMP_EQU, WS_CMP_NEU, WS_CMP_LTU, WS_CMP_LEU,
                                      WS_CMP_GTU, WS_CMP_GEU, WS_CMP_NUM, WS_CMP_NAN};
static const char *const type_names[] = {"S32", "U32", "F32"};
static const uint8_t type_values[] = {WS_DT_S32, WS_DT_U32, WS_DT_F32};
static const char *const width_names[] = {"32", "64", "128"};
static const uint8_t width_values[] = {4, 8, 16};
static const char *const swidth_names[] = {"8", "16", "32", "64", "128"};
static const uint8_t swidth_values[] = {1, 2, 4, 8, 16};
static const char *const hsel_names[] = {"H0", "H1"};
static const uint8_t hsel_values[] = {0, 1};
static const char *const hfmt_names[] = {"F16_V2", "BF16_V2", "F16", "BF16"};
static const uint8_t hfmt_values[] = {WS_DT_F16_V2, WS_DT_BF16_V2, WS_DT_F16, WS_DT_BF16};
static const char *const shfl_names[] = {"IDX", "UP", "DOWN", "BFLY"};
static const uint8_t shfl_values[] = {WS_SHFL_IDX, WS_SHFL_UP, WS_SHFL_DOWN, WS_SHFL_BFLY};

static const ws_modgroup groups[WS_MODGROUP_COUNT] = {
    {WS_MOD_ICMP, "comparison", 6, icmp_names, icmp_values, -1},
    {WS_MOD_FCMP, "comparison", 14, fcmp_names, fcmp_values, -1},
    {WS_MOD_ITYPE, "type", 2, type_names, type_values, 0},
    {WS_MOD_ATYPE, "type", 3, type_names, type_values, 0},
    {WS_MOD_WIDTH, "width", 3, width_names, width_values, 0},
    {WS_MOD_SWIDTH, "store width", 5, swidth_names, swidth_values, 2},
    {WS_MOD_HSEL, "half", 2, hsel_names, hsel_values, 0},
    {WS_MOD_SHFL, "shuffle mode", 4, shfl_names, shfl_values, -1},
    {WS_MOD_HFMT, "half format", 4, hfmt_names, hfmt_values, 0},
};

const ws_modgroup *ws_modifiers_group(unsigned i) { return i < WS_MODGROUP_COUNT ? &groups[i] : NULL; }

int ws_modifiers_find(const ws_modgroup *g, const char *s, size_t n) {
  for (unsigned i = 0; i < g->count; i++)
    if (strlen(g->names[i]) == n && memcmp(g->names[i], s, n) == 0) return (int)i;
  return -1;
}

int ws_modifiers_index(const ws_modgroup *g, unsigned value) {
  for (unsigned i = 0; i < g->count; i++)
    if (g->values[i] == value) return (int)i;
  return -1;
}

unsigned ws_modifiers_get(const ws_insn *insn, const ws_modgroup *g) {
  switch (g->bit) {
  case WS_MOD_ITYPE:
  case WS_MOD_ATYPE:
  case WS_MOD_HFMT: return insn->dtype;
  case WS_MOD_WIDTH:
  case WS_MOD_SWIDTH: return insn->width_bytes;
  case WS_MOD_HSEL: return insn->hsel;
  default: return insn->cmp; /* comparisons and the shuffle mode */
  }
}

void ws_modifiers_set(ws_insn *insn, const ws_modgroup *g, unsigned value) {
  uint8_t v = (uint8_t)value;
  switch (g->bit) {
  case WS_MOD_ITYPE:
  case WS_MOD_ATYPE:
  case WS_MOD_HFMT: insn->dtype = v; break;
  case WS_MOD_WIDTH:
  case WS_MOD_SWIDTH: insn->width_bytes = v; break;
  case WS_MOD_HSEL: insn->hsel = v; break;
  default: insn->cmp = v; break;
  }
}
