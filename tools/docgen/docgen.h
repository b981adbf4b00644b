/* docgen.h - the generated blocks of the reference documents: the opcode
 * table of docs/isa.md, the preset tables of docs/presets.md, the counter
 * glossary of docs/stats.md and the trace record kinds of docs/traces.md,
 * each between a pair of marker lines.
 *
 * Design: one table names every block, its file, markers and generator, so
 * the ws-docgen tool (make docs) and the test that fails on a stale
 * document walk the same list; adding a generated block is one row. */
#ifndef WS_DOCGEN_H
#define WS_DOCGEN_H

#include <stddef.h>

typedef struct ws_docgen_block {
  const char *name;        /* "isa", "presets", "stats", "traces" */
  const char *path;        /* relative to the source root */
  const char *begin;       /* marker line before the block */
  const char *end;         /* marker text after it */
  char *(*markdown)(void); /* malloc'd block text; NULL on failure */
} ws_docgen_block;

size_t ws_docgen_count(void);
const ws_docgen_block *ws_docgen_get(size_t i);
/* NULL when no block has that name. */
const ws_docgen_block *ws_docgen_find(const char *name);

#endif
