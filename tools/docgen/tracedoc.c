/* tracedoc.c - probe.def's kinds, fields and outcomes -> Markdown.
 *
 * Design: a field shows as its Perfetto name, its unit and its meaning, the
 * words a reader of a dump or an export meets; the C accessor's name is in
 * probe.def beside it. */
#include "tools/docgen/tracedoc.h"

#include <stdbool.h>

#include "base/text.h"
#include "sim/common/probe.h"

/* Table text with the cell separator escaped. */
static void put_cell(ws_text *t, const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      ws_text_puts(t, "\\|");
    else
      ws_text_append(t, s, 1);
  }
}

static void put_field(ws_text *t, uint32_t kind, ws_probe_slot slot) {
  const ws_probe_field_info *f = ws_probe_field_lookup(kind, slot);
  ws_text_puts(t, " | ");
  if (!f) {
    ws_text_puts(t, "unused");
    return;
  }
  ws_text_printf(t, "`%s` (%s): ", f->arg, f->unit);
  put_cell(t, f->meaning);
}

static void put_outcomes(ws_text *t, uint32_t set) {
  ws_text_puts(t, " | ");
  const ws_probe_outcome_info *o = ws_probe_outcome_lookup(set, 0);
  if (!o) ws_text_puts(t, "-");
  for (uint32_t i = 0; o; o = ws_probe_outcome_lookup(set, ++i))
    ws_text_printf(t, "%s`%s`", i ? ", " : "", o->name);
}

static void kinds_table(ws_text *t) {
  ws_text_puts(t, "| event | what it is | emitted by | begin → end | other fields | a | b | c | outcome |\n");
  ws_text_puts(t, "|---|---|---|---|---|---|---|---|---|\n");
  for (uint32_t k = 0; k < WS_PEV_COUNT; k++) {
    const ws_probe_kind_info *i = ws_probe_kind_lookup(k);
    ws_text_printf(t, "| `%s` | ", i->name);
    put_cell(t, i->meaning);
    ws_text_puts(t, " | ");
    put_cell(t, i->by);
    ws_text_puts(t, " | ");
    put_cell(t, i->span);
    ws_text_puts(t, " | ");
    put_cell(t, i->fields[0] ? i->fields : "-");
    for (int s = WS_PROBE_SLOT_A; s < WS_PROBE_SLOTS; s++) put_field(t, k, (ws_probe_slot)s);
    put_outcomes(t, i->outcomes);
    ws_text_puts(t, " |\n");
  }
}

/* The kinds whose outcome field takes set `set`, as `l1`, `l2`. */
static void put_users(ws_text *t, uint32_t set) {
  bool any = false;
  for (uint32_t k = 0; k < WS_PEV_COUNT; k++) {
    const ws_probe_kind_info *i = ws_probe_kind_lookup(k);
    if (i->outcomes != set) continue;
    ws_text_printf(t, "%s`%s`", any ? ", " : "", i->name);
    any = true;
  }
}

static void outcomes_table(ws_text *t) {
  ws_text_puts(t, "| outcome | of | meaning |\n|---|---|---|\n");
  for (uint32_t r = 0; r < WS_PROBE_OUTCOME_ROWS; r++) {
    const ws_probe_outcome_info *o = ws_probe_outcome_row(r);
    if (!o->name) continue; /* a set's header */
    ws_text_printf(t, "| `%s` | ", o->name);
    put_users(t, o->set);
    ws_text_puts(t, " | ");
    put_cell(t, o->meaning);
    ws_text_puts(t, " |\n");
  }
}

char *ws_tracedoc_markdown(void) {
  ws_text t;
  ws_text_init(&t);
  kinds_table(&t);
  ws_text_puts(&t, "\n");
  outcomes_table(&t);
  return ws_text_take(&t);
}
