/* file.h - whole-file reads and all-or-nothing writes.
 *
 * Design: outputs are written to a temporary name beside the target and
 * renamed over it, so a failure (or a crash) never leaves a half-written file
 * or destroys the previous one; rename(2) is atomic within a filesystem. */
#ifndef WS_FILE_H
#define WS_FILE_H

#include <stddef.h>

#include "base/ctx.h"

/* Reads a whole file into a malloc'd buffer with a NUL after the last byte
 * (text can be used as a C string; binary data keeps *size_bytes). */
ws_status ws_file_read(ws_ctx *ctx, const char *path, char **data, size_t *size_bytes);
/* Writes a whole file so that nothing the user had is lost or half-written:
 * a regular file (or one a symlink leads to) is replaced by renaming
 * PATH.tmp.PID over it once complete, so the link itself stays; an absent
 * file is created the same way; a character device or pipe (/dev/null,
 * /dev/stdout, a FIFO) is written directly; anything else (a directory, a
 * block device, a socket) is refused. */
ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes);

#endif
