/* embedded.h - the .wsa kernels compiled into the binary (cmake/embed.cmake).
 *
 * Design: shipped examples must work from any directory and on a machine with
 * only the binary, so their sources are embedded rather than read at run time. */
#ifndef WS_EMBEDDED_H
#define WS_EMBEDDED_H

#include <stddef.h>

typedef struct ws_embedded_file {
  const char *path; /* relative to the source root, e.g. "models/examples/saxpy.wsa" */
  const char *text;
  size_t size_bytes;
} ws_embedded_file;

extern const ws_embedded_file ws_embedded_files[];
extern const size_t ws_embedded_count;

/* NULL when no embedded file has that path. */
const ws_embedded_file *ws_embedded_find(const char *path);

#endif
