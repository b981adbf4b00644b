/* file.c - whole-file reads and atomic writes (temp file + rename). */
/* realpath(3) is an XSI function in glibc's headers */
#define _XOPEN_SOURCE 700
#include "base/file.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Grows the buffer by doubling, so a file of any size costs O(size). */
static char *read_stream(FILE *f, size_t *len_out) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    char *grown = realloc(buf, cap * 2 + 1);
    if (!grown) free(buf);
    buf = grown;
    cap *= 2;
  }
  if (buf) buf[len] = '\0';
  *len_out = len;
  return buf;
}

ws_status ws_file_read(ws_ctx *ctx, const char *path, char **data, size_t *size_bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  size_t len = 0;
  char *buf = read_stream(f, &len);
  int err = errno;
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!buf) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory reading '%s'", path);
  if (failed) {
    free(buf);
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot read '%s': %s", path, strerror(err));
  }
  *data = buf;
  *size_bytes = len;
  return WS_OK;
}

/* Writes straight into a character device or a pipe (/dev/null, /dev/stdout,
 * a FIFO): those cannot be replaced by a rename, and need not be. */
static ws_status write_direct(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes) {
  FILE *f = fopen(path, "wb");
  if (!f) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  bool ok = fwrite(data, 1, size_bytes, f) == size_bytes;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  return ok ? WS_OK : ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", path, strerror(err));
}

/* A temporary file beside `path`, renamed over it once complete. */
static ws_status write_renamed(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
    return ws_ctx_fail(ctx, WS_ERR_IO, "output path too long: '%s'", path);
  FILE *f = fopen(tmp, "wb");
  if (!f) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
  bool ok = fwrite(data, 1, size_bytes, f) == size_bytes;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    int err = errno;
    remove(tmp);
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  return WS_OK;
}

ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes) {
  struct stat sb;
  if (!*path) return ws_ctx_fail(ctx, WS_ERR_IO, "an output needs a file name");
  if (strlen(path) + 32 >= PATH_MAX) return ws_ctx_fail(ctx, WS_ERR_IO, "output path too long: '%s'", path);
  if (stat(path, &sb) != 0) /* absent (or a dangling link: created where it points) */
    return errno == ENOENT ? write_renamed(ctx, path, data, size_bytes)
                           : ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) return write_direct(ctx, path, data, size_bytes);
  if (!S_ISREG(sb.st_mode))
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': it is a %s, not a regular file, device or pipe",
                       path,
                       S_ISDIR(sb.st_mode)   ? "directory"
                       : S_ISBLK(sb.st_mode) ? "block device"
                                             : "socket");
  /* a link to a regular file: its target gets the new contents, the link stays */
  char *real = realpath(path, NULL);
  if (!real) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot resolve '%s': %s", path, strerror(errno));
  ws_status st = write_renamed(ctx, real, data, size_bytes);
  free(real);
  return st;
}
