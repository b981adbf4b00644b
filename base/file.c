/* file.c - whole-file reads and atomic writes (temp file + rename). */
#include "base/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Grows the buffer by doubling, so a file of any size costs O(size), and
 * stops after max_bytes + 1 bytes: enough to tell that a stream is too long
 * without reading it whole. */
static char *read_stream(FILE *f, size_t max_bytes, size_t *len_out) {
  size_t cap = max_bytes < (1 << 16) ? max_bytes + 1 : 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap || len > max_bytes) break;
    size_t next = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
    char *grown = realloc(buf, next + 1);
    if (!grown) free(buf);
    buf = grown;
    cap = next;
  }
  if (buf) buf[len] = '\0';
  *len_out = len;
  return buf;
}

static ws_status too_large(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind) {
  if (max_bytes >= (1u << 20) && max_bytes % (1u << 20) == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: larger than the %zu MiB limit for %s", path, max_bytes >> 20,
                       kind);
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: larger than the %zu-byte limit for %s", path, max_bytes, kind);
}

ws_status ws_file_read(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind, char **data,
                       size_t *size_bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > max_bytes) {
    fclose(f);
    return too_large(ctx, path, max_bytes, kind);
  }
  size_t len = 0;
  char *buf = read_stream(f, max_bytes, &len);
  int err = errno;
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!buf) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory reading '%s'", path);
  if (failed || len > max_bytes) {
    free(buf);
    return failed ? ws_ctx_fail(ctx, WS_ERR_IO, "cannot read '%s': %s", path, strerror(err))
                  : too_large(ctx, path, max_bytes, kind);
  }
  *data = buf;
  *size_bytes = len;
  return WS_OK;
}

ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes) {
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
