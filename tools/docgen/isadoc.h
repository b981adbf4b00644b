/* isadoc.h - the Markdown opcode reference, generated from opcodes.def.
 *
 * Design: docs/isa.md holds the generated table between two marker lines;
 * the ws-docgen tool (make docs) rewrites that block and a test compares it with this
 * generator, so the documentation cannot drift from the opcode table. */
#ifndef WS_ISADOC_H
#define WS_ISADOC_H

#define WS_ISADOC_BEGIN "<!-- BEGIN GENERATED OPCODES -->"
#define WS_ISADOC_END "<!-- END GENERATED OPCODES -->"

/* The table, one row per opcode, as a malloc'd string; NULL when out of
 * memory. */
char *ws_isadoc_markdown(void);
/* A copy of `doc` whose text between the BEGIN marker's line and the END
 * marker is replaced by `table`; NULL when a marker is missing (or out of
 * memory). */
char *ws_isadoc_splice(const char *doc, const char *table);

#endif
