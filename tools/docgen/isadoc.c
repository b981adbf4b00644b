/* isadoc.c - opcode table -> Markdown.
 *
 * Design: operands are shown as NAME=FORM, where NAME is the letter the
 * semantics line uses (d or p for the destination, then a, b, c for the
 * sources in order) and FORM the accepted syntax (R, R:2, [R:2+imm], ...),
 * so a row reads on its own next to its semantics. Modifier spellings and
 * defaults come from modifiers.h, the same table the assembler uses. */
#include "tools/docgen/isadoc.h"

#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "isa/isa.h"
#include "isa/modifiers.h"

static const char *form_of(ws_opnd_sig sig) {
  static const char *const regs[5] = {"R:w", "R", "R:2", "?", "R:4"};
  switch (sig.kind) {
  case 'd':
  case 'r': return sig.nregs <= 4 ? regs[sig.nregs] : "?";
  case 'i': return "R/imm";
  case 'f': return "F";
  case 'h': return "H";
  case 'q': return "[!]P";
  case 'p': return "P";
  case 's': return "SR";
  case 'g': return "[R:2+imm]";
  case 'm':
  case 'o': return "[R+imm]";
  case 'a': return "[param+imm]";
  case 'l': return "label";
  default: return "imm"; /* 'n' */
  }
}

static void put_operands(ws_text *t, ws_op op) {
  unsigned n = ws_isa_nopnds(op);
  char next_src = 'a';
  if (!n) {
    ws_text_puts(t, "none");
    return;
  }
  ws_text_puts(t, "`");
  for (unsigned i = 0; i < n; i++) {
    ws_opnd_sig sig = ws_isa_sig(op, i);
    char name = (sig.kind == 'd' || sig.kind == 'p') ? sig.kind : next_src++;
    ws_text_printf(t, "%s%c=%s", i ? ", " : "", name, form_of(sig));
  }
  ws_text_puts(t, "`");
}

static void put_modifiers(ws_text *t, uint32_t mods) {
  bool any = false;
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    if (!(mods & g->bit)) continue;
    ws_text_puts(t, any ? "; " : "");
    for (unsigned i = 0; i < g->count; i++) ws_text_printf(t, "%s`.%s`", i ? " " : "", g->names[i]);
    if (g->default_index < 0)
      ws_text_puts(t, " (required)");
    else
      ws_text_printf(t, " (default `.%s`)", g->names[g->default_index]);
    any = true;
  }
  if (!any) ws_text_puts(t, "none");
}

/* Semantics text with the table's cell separator escaped. */
static void put_escaped(ws_text *t, const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      ws_text_puts(t, "\\|");
    else
      ws_text_append(t, s, 1);
  }
}

char *ws_isadoc_markdown(void) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, "| Mnemonic | Unit | Operands | Modifiers | Semantics |\n");
  ws_text_puts(&t, "|---|---|---|---|---|\n");
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    const ws_opinfo *info = ws_isa_opinfo((ws_op)op);
    ws_text_printf(&t, "| `%s` | %s | ", info->mnemonic, ws_isa_unit_name(info->unit));
    put_operands(&t, (ws_op)op);
    ws_text_puts(&t, " | ");
    put_modifiers(&t, info->mods);
    ws_text_puts(&t, " | ");
    put_escaped(&t, info->semantics);
    ws_text_puts(&t, " |\n");
  }
  return ws_text_take(&t);
}

char *ws_isadoc_splice(const char *doc, const char *table) {
  return ws_text_splice(doc, WS_ISADOC_BEGIN, WS_ISADOC_END, table);
}
