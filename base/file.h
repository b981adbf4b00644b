/* file.h - whole-file reads and all-or-nothing writes.
 *
 * Design: outputs are written to a temporary name beside the target and
 * renamed over it, so a failure (or a crash) never leaves a half-written file
 * or destroys the previous one; rename(2) is atomic within a filesystem. */
#ifndef WS_FILE_H
#define WS_FILE_H

#include <stddef.h>

#include "base/ctx.h"

/* The cap for text inputs (assembly, docs); other readers state their own. */
#define WS_FILE_TEXT_MAX_BYTES ((size_t)64 << 20)

/* Reads a whole file into a malloc'd buffer with a NUL after the last byte
 * (text can be used as a C string; binary data keeps *size_bytes). A file
 * over max_bytes is refused before it is read ("PATH: larger than the 64 MiB
 * limit for KIND"); a pipe or device is read to at most max_bytes + 1. */
ws_status ws_file_read(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind, char **data,
                       size_t *size_bytes);
/* Writes via PATH.tmp.PID and rename(2). */
ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes);

#endif
