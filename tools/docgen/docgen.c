/* docgen.c - the table of generated documentation blocks. */
#include "tools/docgen/docgen.h"

#include <string.h>

#include "tools/docgen/isadoc.h"
#include "tools/docgen/presetdoc.h"
#include "tools/docgen/statsdoc.h"
#include "tools/docgen/tracedoc.h"

static const ws_docgen_block blocks[] = {
    {"isa", "docs/isa.md", WS_ISADOC_BEGIN, WS_ISADOC_END, ws_isadoc_markdown},
    {"presets", "docs/presets.md", WS_PRESETDOC_BEGIN, WS_PRESETDOC_END, ws_presetdoc_markdown},
    {"stats", "docs/stats.md", WS_STATSDOC_BEGIN, WS_STATSDOC_END, ws_statsdoc_markdown},
    {"traces", "docs/traces.md", WS_TRACEDOC_BEGIN, WS_TRACEDOC_END, ws_tracedoc_markdown},
};

size_t ws_docgen_count(void) { return sizeof blocks / sizeof blocks[0]; }

const ws_docgen_block *ws_docgen_get(size_t i) { return i < ws_docgen_count() ? &blocks[i] : NULL; }

const ws_docgen_block *ws_docgen_find(const char *name) {
  for (size_t i = 0; i < ws_docgen_count(); i++)
    if (strcmp(blocks[i].name, name) == 0) return &blocks[i];
  return NULL;
}
