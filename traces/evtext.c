/* evtext.c - trace records as text (evtext.h): kind, outcome and field
 * forms from the probe table (sim/common/probe.def). */
#include "traces/evtext.h"

#include <inttypes.h>
#include <string.h>

#include "isa/isa.h"

const char *const ws_evtext_columns[WS_EVTEXT_COLUMNS] = {
    "launch", "kind", "begin", "end", "sm", "unit", "warp",    "pc",   "op",
    "uop",    "link", "addr",  "a",   "b",  "c",    "outcome", "flags"};

const char *ws_evtext_kind_name(uint8_t kind) {
  const ws_probe_kind_info *k = ws_probe_kind_lookup(kind);
  return k ? k->name : "?";
}

bool ws_evtext_kind_parse(const char *name, uint8_t *kind) {
  for (uint8_t k = 0; k < WS_PEV_COUNT; k++)
    if (strcmp(name, ws_probe_kind_lookup(k)->name) == 0) {
      *kind = k;
      return true;
    }
  return false;
}

/* The name at index i of a list of n, "?" past its end. */
static const char *pick(const char *const *names, size_t n, uint32_t i) {
  return names && i < n && names[i] ? names[i] : "?";
}

const char *ws_evtext_outcome_name(const ws_probe_event *ev, const char *const *stall_names, size_t nnames) {
  if (ev->kind == WS_PEV_STALL) return pick(stall_names, nnames, ws_probe_stall_reason(ev));
  const ws_probe_kind_info *k = ws_probe_kind_lookup(ev->kind);
  if (!k || k->outcomes == WS_PROBE_OUTCOMES_NONE) return "-";
  const ws_probe_outcome_info *o = ws_probe_outcome_lookup(k->outcomes, ev->outcome);
  return o ? o->name : "?";
}

const char *ws_evtext_flags(uint8_t flags, char *buf) {
  static const struct {
    uint8_t bit;
    const char *name;
  } names[] = {{WS_PROBE_TAGGED, "tagged"},       {WS_PROBE_WRITE, "write"},   {WS_PROBE_FAR, "far"},
               {WS_PROBE_WRITEBACK, "writeback"}, {WS_PROBE_ATOMIC, "atomic"}, {WS_PROBE_MERGED, "merged"}};
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(flags & names[i].bit)) continue;
    if (buf[0]) strcat(buf, "|");
    strcat(buf, names[i].name);
  }
  if (!buf[0]) strcpy(buf, "-");
  return buf;
}

/* Column widths of the aligned style (a longer value pushes the row on). */
static const int widths[WS_EVTEXT_COLUMNS] = {6, 8, 10, 10, 4, 4, 4, 5, 8, 8, 8, 14, 10, 10, 10, 15, 0};

static void put(FILE *out, ws_evtext_style style, int col, const char *text) {
  if (style == WS_EVTEXT_CSV) {
    fprintf(out, col ? ",%s" : "%s", text);
    return;
  }
  if (col == WS_EVTEXT_COLUMNS - 1)
    fprintf(out, col ? " %s" : "%s", text);
  else
    fprintf(out, col ? " %-*s" : "%-*s", widths[col], text);
}

void ws_evtext_header(FILE *out, ws_evtext_style style) {
  for (int i = 0; i < WS_EVTEXT_COLUMNS; i++) put(out, style, i, ws_evtext_columns[i]);
  fputc('\n', out);
}

/* A number, or "-" when it holds the "does not apply" value `none`. */
static const char *num(char *buf, uint64_t v, uint64_t none) {
  if (v == none) return "-";
  snprintf(buf, 24, "%" PRIu64, v);
  return buf;
}

/* Field a, b or c of a record, as its kind's row of probe.def shows it:
 * masks in hex, a way that does not hold the line as "-", the rest (and
 * unused fields) in decimal. */
static const char *field(char *buf, const ws_probe_event *ev, ws_probe_slot slot) {
  uint32_t v = ws_probe_slot_value(ev, slot);
  const ws_probe_field_info *f = ws_probe_field_lookup(ev->kind, slot);
  uint8_t form = f ? f->form : WS_PROBE_FORM_NUM;
  if (form == WS_PROBE_FORM_WAY && v == UINT32_MAX) return "-";
  bool mask = form == WS_PROBE_FORM_MASK32 || form == WS_PROBE_FORM_SECTORS;
  snprintf(buf, 24, mask ? "0x%" PRIx32 : "%" PRIu32, v);
  return buf;
}

void ws_evtext_row(FILE *out, ws_evtext_style style, const ws_probe_event *ev, uint32_t launch,
                   const char *const *stall_names, size_t nnames) {
  char b[WS_EVTEXT_COLUMNS][24], flags[WS_EVTEXT_FLAGS_BYTES];
  const ws_opinfo *op = ev->kind == WS_PEV_ISSUE ? ws_isa_opinfo((ws_op)ws_probe_issue_opcode(ev)) : NULL;
  snprintf(b[11], sizeof b[11], "0x%" PRIx64, ev->addr);
  const char *cols[WS_EVTEXT_COLUMNS] = {num(b[0], launch, UINT32_MAX),
                                         ws_evtext_kind_name(ev->kind),
                                         num(b[2], ev->begin, UINT64_MAX),
                                         num(b[3], ev->end, UINT64_MAX),
                                         num(b[4], ev->sm, WS_PROBE_NONE),
                                         num(b[5], ev->unit, WS_PROBE_NONE),
                                         num(b[6], ev->warp, WS_PROBE_NONE),
                                         num(b[7], ev->pc, UINT32_MAX),
                                         op ? op->mnemonic : "-",
                                         num(b[9], ev->uop, 0),
                                         num(b[10], ev->link, 0),
                                         b[11],
                                         field(b[12], ev, WS_PROBE_SLOT_A),
                                         field(b[13], ev, WS_PROBE_SLOT_B),
                                         field(b[14], ev, WS_PROBE_SLOT_C),
                                         ws_evtext_outcome_name(ev, stall_names, nnames),
                                         ws_evtext_flags(ev->flags, flags)};
  for (int i = 0; i < WS_EVTEXT_COLUMNS; i++) put(out, style, i, cols[i]);
  fputc('\n', out);
}
