/* presetdoc.h - the Markdown preset reference, generated from the config key
 * table (sim/common/config.c) and the embedded presets (sim/presets/<name>.ini).
 *
 * Design: docs/presets.md holds the generated tables between two marker
 * lines; the ws-docgen tool (make docs) rewrites that block and a test compares it
 * with this generator, so the documented values and their sources cannot
 * drift from what the simulator loads. */
#ifndef WS_PRESETDOC_H
#define WS_PRESETDOC_H

#include <stddef.h>

#define WS_PRESETDOC_BEGIN "<!-- BEGIN GENERATED PRESETS -->"
#define WS_PRESETDOC_END "<!-- END GENERATED PRESETS -->"

/* One table per INI section (key, description, unit, each preset's value,
 * sources), as a malloc'd string; NULL when out of memory or when an
 * embedded preset fails to load (a build defect the tests catch). */
char *ws_presetdoc_markdown(void);
/* A copy of `doc` whose text between the BEGIN marker's line and the END
 * marker is replaced by `tables`; NULL when a marker is missing (or out of
 * memory). */
char *ws_presetdoc_splice(const char *doc, const char *tables);

#endif
