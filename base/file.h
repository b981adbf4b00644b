/* file.h - whole-file reads and all-or-nothing writes.
 *
 * Design: outputs are written to a temporary name beside the target and
 * renamed over it, so a failure (or a crash) never leaves a half-written file
 * or destroys the previous one; rename(2) is atomic within a filesystem. */
#ifndef WS_FILE_H
#define WS_FILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/ctx.h"

/* The cap for text inputs (assembly, docs); other readers state their own. */
#define WS_FILE_TEXT_MAX_BYTES ((size_t)64 << 20)

/* Reads a whole file into a malloc'd buffer with a NUL after the last byte
 * (text can be used as a C string; binary data keeps *size_bytes). A file
 * over max_bytes is refused before it is read ("PATH: larger than the 64 MiB
 * limit for KIND"); a pipe or device is read to at most max_bytes + 1. */
ws_status ws_file_read(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind, char **data,
                       size_t *size_bytes);
/* Judges a file from its first bytes (up to 64 KiB; `whole`: that is all of
 * it), before the rest is read: a device or a pipe whose first bytes already
 * say it is not this kind of file is refused at once, not after max_bytes. */
typedef ws_status (*ws_file_judge_fn)(ws_ctx *ctx, const char *path, const void *head, size_t head_bytes,
                                      bool whole);
/* ws_file_read with `judge` (NULL: none) asked once the first bytes are in. */
ws_status ws_file_read_judged(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind,
                              ws_file_judge_fn judge, char **data, size_t *size_bytes);
/* Writes a whole file so that nothing the user had is lost or half-written:
 * a regular file (or the one a symlink leads to) is replaced by renaming a
 * temporary file beside it over it once complete, so the link itself stays;
 * an absent file is created the same way; a character device or pipe
 * (/dev/null, /dev/stdout, a FIFO) is written directly; anything else (a
 * directory, a block device, a socket) is refused. */
ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes);

/* Several outputs of one command, all or none: each add writes its
 * temporary file (devices and pipes wait); commit renames them all into
 * place, then writes the devices; free removes whatever was not committed.
 * Two adds naming one file are refused. SIGINT and SIGTERM are held from the
 * first temporary file to free, so none is left behind. Data for a device
 * or pipe is copied, so the caller's buffer may go before commit. */
typedef struct ws_file_item ws_file_item;
typedef struct ws_file_batch {
  ws_file_item *items;
  size_t n, cap;
  sigset_t saved;
  bool blocked;
} ws_file_batch;

void ws_file_batch_init(ws_file_batch *b);
ws_status ws_file_batch_add(ws_ctx *ctx, ws_file_batch *b, const char *path, const void *data,
                            size_t size_bytes);
ws_status ws_file_batch_commit(ws_ctx *ctx, ws_file_batch *b);
void ws_file_batch_free(ws_file_batch *b);

/* One output written piece by piece (a trace), put in place whole at
 * commit by the same rules as ws_file_write_atomic: the bytes go to a
 * temporary file beside the target (a link's target), renamed over it at
 * commit; a character device or pipe gets an anonymous temporary file
 * copied into it at commit; anything else is refused at open. The FILE is
 * seekable either way, so a writer may go back to fill in a header.
 * Signals are not held while the stream is open (a long simulation must
 * stay interruptible): an owner that stops on Ctrl-C closes the stream,
 * which removes the temporary file. Close without commit discards it. */
typedef struct ws_file_stream ws_file_stream;

ws_status ws_file_stream_open(ws_ctx *ctx, const char *path, ws_file_stream **out);
FILE *ws_file_stream_fp(ws_file_stream *s);
/* Flushes and closes the temporary file, then renames or copies it into
 * place; the stream is spent either way (close it). */
ws_status ws_file_stream_commit(ws_ctx *ctx, ws_file_stream *s);
void ws_file_stream_close(ws_file_stream *s);

#endif
