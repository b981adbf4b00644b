/* tracedoc.h - the table of trace record kinds in docs/traces.md, generated
 * from the probe table (sim/common/probe.def).
 *
 * Design: docs/traces.md holds the generated tables between two marker
 * lines; the ws-docgen tool (make docs) rewrites that block and a test
 * compares it with this generator, so what the documentation says a, b and
 * c hold is what the simulator writes and the readers decode. */
#ifndef WS_TRACEDOC_H
#define WS_TRACEDOC_H

#define WS_TRACEDOC_BEGIN "<!-- BEGIN GENERATED EVENTS -->"
#define WS_TRACEDOC_END "<!-- END GENERATED EVENTS -->"

/* Two tables as a malloc'd string: one row per kind (its name, what it is,
 * who reports it, begin and end, the common fields, a, b, c and its
 * outcomes), then one row per outcome; NULL when out of memory. */
char *ws_tracedoc_markdown(void);

#endif
