/* embedded.h - files compiled into the binary as tables of {path, text}
 * (cmake/embed.cmake): the .wsa kernels of models/ and the GPU presets of
 * sim/presets/.
 *
 * Design: shipped kernels and presets must work from any directory and on a
 * machine with only the binary, so their sources are embedded rather than read
 * at run time. Each layer that embeds files owns its table (the generated
 * file is compiled into that layer's library); base/ holds only the record
 * and the lookup, so nothing here reaches up for a table. */
#ifndef WS_EMBEDDED_H
#define WS_EMBEDDED_H

#include <stddef.h>

typedef struct ws_embedded_file {
  const char *path; /* relative to the source root, e.g. "models/runs/examples/saxpy.wsa" */
  const char *text;
  size_t size_bytes;
} ws_embedded_file;

/* The entry of files[0..count) with that path; NULL when none has it. */
const ws_embedded_file *ws_embedded_find(const ws_embedded_file *files, size_t count, const char *path);

#endif
