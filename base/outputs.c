/* outputs.c - a command's files checked against each other (outputs.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/outputs.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct file_id {
  bool exists, stream;
  dev_t dev;
  ino_t ino;
  char canon[2 * PATH_MAX + 2]; /* an absent file: its folder resolved, then its name */
} file_id;

static void identify(const char *path, file_id *id) {
  struct stat sb;
  memset(id, 0, sizeof *id);
  if (stat(path, &sb) == 0) {
    id->exists = true;
    id->stream = S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode);
    id->dev = sb.st_dev;
    id->ino = sb.st_ino;
    return;
  }
  char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  snprintf(base, sizeof base, "%s", path);
  const char *folder = dirname(dir); /* may point into dir: asked once */
  if (!realpath(folder, real)) snprintf(real, sizeof real, "%s", folder);
  snprintf(id->canon, sizeof id->canon, "%s/%s", real, basename(base));
}

static bool same(const char *pa, const file_id *a, const char *pb, const file_id *b) {
  if (a->stream || b->stream) return false;
  if (strcmp(pa, pb) == 0) return true;
  if (a->exists != b->exists) return false;
  if (a->exists) return a->dev == b->dev && a->ino == b->ino;
  return strcmp(a->canon, b->canon) == 0;
}

static ws_status clash(ws_ctx *ctx, const ws_outputs_file *out, const ws_outputs_file *other) {
  if (other->writes)
    return ws_ctx_fail(ctx, WS_ERR_USAGE,
                       "%s '%s' and %s '%s' are one file: one output would replace the other", other->what,
                       other->path, out->what, out->path);
  if (strcmp(out->path, other->path) == 0)
    return ws_ctx_fail(ctx, WS_ERR_USAGE, "%s '%s' is %s: the output would replace what it reads", out->what,
                       out->path, other->what);
  return ws_ctx_fail(ctx, WS_ERR_USAGE,
                     "%s '%s' is %s '%s' under another name: the output would replace what it reads",
                     out->what, out->path, other->what, other->path);
}

ws_status ws_outputs_check(ws_ctx *ctx, const ws_outputs_file *files, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (files[i].path && !*files[i].path)
      return ws_ctx_fail(ctx, WS_ERR_USAGE, "%s needs a file name", files[i].what);
  file_id *ids = calloc(n ? n : 1, sizeof *ids);
  if (!ids) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory checking the command's files");
  for (size_t i = 0; i < n; i++)
    if (files[i].path) identify(files[i].path, &ids[i]);
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    if (!files[i].path || !files[i].writes) continue;
    for (size_t j = 0; j < n && st == WS_OK; j++)
      if (j != i && files[j].path && (!files[j].writes || j < i) &&
          same(files[i].path, &ids[i], files[j].path, &ids[j]))
        st = clash(ctx, &files[i], &files[j]);
  }
  free(ids);
  return st;
}

bool ws_outputs_is_stream(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode));
}
