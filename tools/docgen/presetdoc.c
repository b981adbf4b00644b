/* presetdoc.c - generates docs/presets.md's tables from the key table and
 * the embedded presets.
 *
 * Design: a preset cites the source of each value in a comment on the
 * value's line, so the generator reads those comments back out of the
 * embedded INI text (ws_config_key_source, as `warpscope gpus show` does);
 * the document then shows exactly the citation that sits next to the number
 * the simulator loads. */
#include "tools/docgen/presetdoc.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "sim/common/config.h"

#define MAX_PRESETS 16

typedef struct preset_doc {
  const char *name;
  const char *text; /* the embedded INI */
  ws_gpu_cfg cfg;
} preset_doc;

static void put_header(ws_text *t, const preset_doc *p, size_t np) {
  ws_text_puts(t, "| key | description | unit |");
  for (size_t i = 0; i < np; i++) ws_text_printf(t, " %s |", p[i].name);
  ws_text_puts(t, " source |\n|---|---|---|");
  for (size_t i = 0; i < np; i++) ws_text_puts(t, "---|");
  ws_text_puts(t, "---|\n");
}

static void put_sources(ws_text *t, const ws_cfg_key *k, const preset_doc *p, size_t np) {
  if (!k->required) {
    ws_text_printf(t, " default %s |\n", k->source);
    return;
  }
  bool first = true;
  for (size_t i = 0; i < np; i++) {
    char c[512];
    ws_config_key_source(p[i].text, k->section, k->key, c, sizeof c);
    if (!*c) continue;
    ws_text_printf(t, "%s%s: %s", first ? " " : "<br>", p[i].name, c);
    first = false;
  }
  ws_text_puts(t, " |\n");
}

static void put_row(ws_text *t, const ws_cfg_key *k, const preset_doc *p, size_t np) {
  ws_text_printf(t, "| `%s.%s`%s | %s | %s |", k->section, k->key, k->required ? "" : " (optional)",
                 k->description, k->unit);
  for (size_t i = 0; i < np; i++) {
    char v[WS_CFG_VALUE_BYTES];
    ws_config_format(&p[i].cfg, k, v, sizeof v);
    ws_text_printf(t, " %s |", v);
  }
  put_sources(t, k, p, np);
}

static size_t load_presets(preset_doc *p) {
  const char *const *names = ws_config_preset_names();
  size_t n = 0;
  for (; names[n] && n < MAX_PRESETS; n++) {
    p[n].text = ws_config_preset_text(names[n]);
    if (!p[n].text || ws_config_load_preset(NULL, names[n], &p[n].cfg) != WS_OK) return 0;
    p[n].name = names[n];
  }
  return n;
}

char *ws_presetdoc_markdown(void) {
  preset_doc p[MAX_PRESETS];
  size_t np = load_presets(p);
  if (np == 0) return NULL;
  ws_text t;
  ws_text_init(&t);
  const char *section = "";
  for (size_t i = 0; i < ws_config_key_count(); i++) {
    const ws_cfg_key *k = ws_config_key(i);
    if (strcmp(k->section, section) != 0) {
      section = k->section;
      ws_text_printf(&t, "%s### [%s]\n\n", i ? "\n" : "", section);
      put_header(&t, p, np);
    }
    put_row(&t, k, p, np);
  }
  return ws_text_take(&t);
}

char *ws_presetdoc_splice(const char *doc, const char *tables) {
  return ws_text_splice(doc, WS_PRESETDOC_BEGIN, WS_PRESETDOC_END, tables);
}
