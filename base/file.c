/* file.c - whole-file reads and atomic writes (temp file + rename). */
/* realpath(3) is an XSI function in glibc's headers */
#define _XOPEN_SOURCE 700
#include "base/file.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Grows the buffer by doubling, so a file of any size costs O(size), and
 * stops after max_bytes + 1 bytes: enough to tell that a stream is too long
 * without reading it whole. The judge sees the first read; its refusal
 * stops the reading (*judged gets its status). */
static char *read_stream(ws_ctx *ctx, const char *path, FILE *f, size_t max_bytes, ws_file_judge_fn judge,
                         ws_status *judged, size_t *len_out) {
  size_t cap = max_bytes < (1 << 16) ? max_bytes + 1 : 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  *judged = WS_OK;
  for (bool first = true; buf; first = false) {
    len += fread(buf + len, 1, cap - len, f);
    if (first && judge && (*judged = judge(ctx, path, buf, len, len < cap && !ferror(f))) != WS_OK) break;
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
  return ws_file_read_judged(ctx, path, max_bytes, kind, NULL, data, size_bytes);
}

ws_status ws_file_read_judged(ws_ctx *ctx, const char *path, size_t max_bytes, const char *kind,
                              ws_file_judge_fn judge, char **data, size_t *size_bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > max_bytes) {
    fclose(f);
    return too_large(ctx, path, max_bytes, kind);
  }
  size_t len = 0;
  ws_status judged;
  char *buf = read_stream(ctx, path, f, max_bytes, judge, &judged, &len);
  int err = errno;
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!buf) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory reading '%s'", path);
  if (judged != WS_OK || failed || len > max_bytes) {
    free(buf);
    return judged != WS_OK ? judged
           : failed        ? ws_ctx_fail(ctx, WS_ERR_IO, "cannot read '%s': %s", path, strerror(err))
                           : too_large(ctx, path, max_bytes, kind);
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

struct ws_file_item {
  char *final; /* the file replaced (a link's target), or the device written */
  char *tmp;   /* NULL: written directly at commit */
  void *data;  /* direct items only: a copy, written at commit */
  size_t size_bytes;
};

void ws_file_batch_init(ws_file_batch *b) { memset(b, 0, sizeof *b); }

/* Where `path` is written, and how: *final is malloc'd; *direct for devices
 * and pipes. */
static ws_status resolve_target(ws_ctx *ctx, const char *path, char **final, bool *direct) {
  struct stat sb;
  *direct = false;
  if (!*path) return ws_ctx_fail(ctx, WS_ERR_IO, "an output needs a file name");
  if (strlen(path) + 48 >= PATH_MAX) return ws_ctx_fail(ctx, WS_ERR_IO, "output path too long: '%s'", path);
  if (stat(path, &sb) != 0) { /* absent (or a dangling link: created where it points) */
    if (errno != ENOENT) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    *final = strdup(path);
  } else if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
    *direct = true;
    *final = strdup(path);
  } else if (!S_ISREG(sb.st_mode)) {
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': it is a %s, not a regular file, device or pipe",
                       path,
                       S_ISDIR(sb.st_mode)   ? "directory"
                       : S_ISBLK(sb.st_mode) ? "block device"
                                             : "socket");
  } else if (!(* final = realpath(path, NULL))) { /* a link's target is replaced, the link stays */
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot resolve '%s': %s", path, strerror(errno));
  }
  return *final ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", path);
}

/* SIGINT and SIGTERM wait while temporary files exist, so an interrupted
 * command never leaves one behind; they are delivered when the batch ends. */
static void block_signals(ws_file_batch *b) {
  if (b->blocked) return;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  b->blocked = sigprocmask(SIG_BLOCK, &set, &b->saved) == 0;
}

static ws_status write_temp(ws_ctx *ctx, ws_file_batch *b, ws_file_item *it, const void *data, size_t n) {
  size_t len = strlen(it->final) + 48;
  it->tmp = malloc(len);
  if (!it->tmp) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", it->final);
  snprintf(it->tmp, len, "%s.tmp.%ld.%zu", it->final, (long)getpid(), b->n);
  block_signals(b);
  FILE *f = fopen(it->tmp, "wb");
  if (!f) {
    int err = errno;
    free(it->tmp);
    it->tmp = NULL;
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create '%s': %s", it->final, strerror(err));
  }
  bool ok = fwrite(data, 1, n, f) == n;
  int err = errno;
  if (fclose(f) != 0 && ok) ok = false, err = errno;
  return ok ? WS_OK : ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", it->final, strerror(err));
}

ws_status ws_file_batch_add(ws_ctx *ctx, ws_file_batch *b, const char *path, const void *data,
                            size_t size_bytes) {
  char *final = NULL;
  bool direct = false;
  ws_status st = resolve_target(ctx, path, &final, &direct);
  if (st != WS_OK) return st;
  for (size_t i = 0; i < b->n; i++)
    if (strcmp(b->items[i].final, final) == 0) {
      free(final);
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "'%s' is written twice by one command", path);
    }
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 4;
    ws_file_item *grown = realloc(b->items, cap * sizeof *grown);
    if (!grown) {
      free(final);
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", path);
    }
    b->items = grown;
    b->cap = cap;
  }
  ws_file_item *it = &b->items[b->n];
  *it = (ws_file_item){.final = final, .size_bytes = size_bytes};
  if (direct && !(it->data = malloc(size_bytes ? size_bytes : 1)))
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", path);
  else if (direct)
    memcpy(it->data, data, size_bytes);
  else
    st = write_temp(ctx, b, it, data, size_bytes);
  b->n++; /* even when failed: ws_file_batch_free removes its temporary */
  return st;
}

ws_status ws_file_batch_commit(ws_ctx *ctx, ws_file_batch *b) {
  ws_status st = WS_OK;
  for (size_t i = 0; i < b->n && st == WS_OK; i++) {
    ws_file_item *it = &b->items[i];
    if (!it->tmp) continue;
    if (rename(it->tmp, it->final) != 0)
      st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", it->final, strerror(errno));
    else {
      free(it->tmp);
      it->tmp = NULL;
    }
  }
  for (size_t i = 0; i < b->n && st == WS_OK; i++)
    if (b->items[i].data) st = write_direct(ctx, b->items[i].final, b->items[i].data, b->items[i].size_bytes);
  return st;
}

void ws_file_batch_free(ws_file_batch *b) {
  for (size_t i = 0; i < b->n; i++) {
    if (b->items[i].tmp) remove(b->items[i].tmp);
    free(b->items[i].tmp);
    free(b->items[i].final);
    free(b->items[i].data);
  }
  free(b->items);
  if (b->blocked) sigprocmask(SIG_SETMASK, &b->saved, NULL);
  ws_file_batch_init(b);
}

ws_status ws_file_write_atomic(ws_ctx *ctx, const char *path, const void *data, size_t size_bytes) {
  ws_file_batch b;
  ws_file_batch_init(&b);
  ws_status st = ws_file_batch_add(ctx, &b, path, data, size_bytes);
  if (st == WS_OK) st = ws_file_batch_commit(ctx, &b);
  ws_file_batch_free(&b);
  return st;
}

/* ---- streams ------------------------------------------------------------------ */

struct ws_file_stream {
  char *final; /* the file replaced (a link's target), or the device written */
  char *tmp;   /* NULL: an anonymous temporary file, copied into a device or pipe */
  FILE *f;
  bool done; /* committed (or failed at commit): nothing left to remove */
};

/* A fresh name beside the target, created exclusively so two streams of one
 * process to one target never share a temporary file. */
static ws_status create_temp(ws_ctx *ctx, ws_file_stream *s) {
  size_t len = strlen(s->final) + 48;
  if (!(s->tmp = malloc(len)))
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", s->final);
  for (unsigned i = 0; i < 1000; i++) {
    snprintf(s->tmp, len, "%s.tmp.%ld.s%u", s->final, (long)getpid(), i);
    if ((s->f = fopen(s->tmp, "wb+x")) != NULL) return WS_OK;
    if (errno != EEXIST) break;
  }
  int err = errno;
  free(s->tmp);
  s->tmp = NULL;
  return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create '%s': %s", s->final, strerror(err));
}

ws_status ws_file_stream_open(ws_ctx *ctx, const char *path, ws_file_stream **out) {
  *out = NULL;
  ws_file_stream *s = calloc(1, sizeof *s);
  if (!s) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for output '%s'", path);
  bool direct = false;
  ws_status st = resolve_target(ctx, path, &s->final, &direct);
  if (st == WS_OK && direct && !(s->f = tmpfile()))
    st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot create a temporary file for '%s': %s", path, strerror(errno));
  else if (st == WS_OK && !direct)
    st = create_temp(ctx, s);
  if (st != WS_OK) {
    ws_file_stream_close(s);
    return st;
  }
  *out = s;
  return WS_OK;
}

FILE *ws_file_stream_fp(ws_file_stream *s) { return s->f; }

/* The anonymous file's bytes into the device or pipe. */
static ws_status copy_to_device(ws_ctx *ctx, ws_file_stream *s) {
  if (fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET) != 0)
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", s->final, strerror(errno));
  FILE *dev = fopen(s->final, "wb");
  if (!dev) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", s->final, strerror(errno));
  char buf[1 << 16];
  bool ok = true;
  int err = 0;
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, s->f)) > 0)
    if (fwrite(buf, 1, n, dev) != n) ok = false, err = errno;
  if (ok && ferror(s->f)) ok = false, err = errno;
  if (fclose(dev) != 0 && ok) ok = false, err = errno;
  return ok ? WS_OK : ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", s->final, strerror(err));
}

ws_status ws_file_stream_commit(ws_ctx *ctx, ws_file_stream *s) {
  if (s->done || !s->f) return ws_ctx_fail(ctx, WS_ERR_INVALID, "'%s' is already committed", s->final);
  ws_status st = WS_OK;
  if (!s->tmp) {
    st = copy_to_device(ctx, s);
  } else {
    bool ok = fflush(s->f) == 0;
    int err = errno;
    if (fclose(s->f) != 0 && ok) ok = false, err = errno;
    s->f = NULL;
    if (ok && rename(s->tmp, s->final) != 0) ok = false, err = errno;
    if (ok) {
      free(s->tmp);
      s->tmp = NULL;
    } else {
      st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", s->final, strerror(err));
    }
  }
  s->done = true;
  return st;
}

void ws_file_stream_close(ws_file_stream *s) {
  if (!s) return;
  if (s->f) fclose(s->f);
  if (s->tmp) remove(s->tmp);
  free(s->tmp);
  free(s->final);
  free(s);
}
