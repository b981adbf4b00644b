/* shot.c - PNG frames without a window (shot.h).
 *
 * SDL_RWFromMem cannot grow, so the encoder writes into an SDL_RWops of our
 * own over a doubling buffer; the bytes then go through
 * ws_file_write_atomic, which also decides what a path may be (a regular
 * file or a link to one is replaced, a directory refused). */
#include "viz/shot.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/file.h"

/* SDL_image writes a PNG with seeks: the bytes, and where the next write goes. */
typedef struct membuf {
  ws_bytes b;
  size_t pos;
} membuf;

static membuf *mb(SDL_RWops *rw) { return rw->hidden.unknown.data1; }

static Sint64 mem_size(SDL_RWops *rw) { return (Sint64)mb(rw)->b.len; }

static Sint64 mem_seek(SDL_RWops *rw, Sint64 offset, int whence) {
  membuf *m = mb(rw);
  Sint64 base = whence == RW_SEEK_SET ? 0 : whence == RW_SEEK_CUR ? (Sint64)m->pos : (Sint64)m->b.len;
  if (base + offset < 0) return SDL_SetError("seek before the start");
  m->pos = (size_t)(base + offset);
  return (Sint64)m->pos;
}

static size_t mem_read(SDL_RWops *rw, void *ptr, size_t size, size_t maxnum) {
  membuf *m = mb(rw);
  if (size == 0 || m->pos >= m->b.len) return 0;
  size_t n = (m->b.len - m->pos) / size;
  if (n > maxnum) n = maxnum;
  memcpy(ptr, m->b.data + m->pos, n * size);
  m->pos += n * size;
  return n;
}

static size_t mem_write(SDL_RWops *rw, const void *ptr, size_t size, size_t num) {
  membuf *m = mb(rw);
  if (size == 0 || num > SIZE_MAX / size) return 0;
  size_t bytes = size * num, end = m->pos + bytes;
  if (end > m->b.len && !ws_bytes_reserve(&m->b, end - m->b.len)) return 0;
  if (m->pos > m->b.len) memset(m->b.data + m->b.len, 0, m->pos - m->b.len);
  memcpy(m->b.data + m->pos, ptr, bytes);
  m->pos = end;
  if (end > m->b.len) m->b.len = end;
  return num;
}

static int mem_close(SDL_RWops *rw) {
  SDL_FreeRW(rw);
  return 0;
}

ws_status ws_viz_shot_encode(ws_ctx *ctx, SDL_Surface *s, void **png, size_t *png_bytes) {
  *png = NULL;
  *png_bytes = 0;
  membuf m = {0};
  SDL_RWops *rw = SDL_AllocRW();
  if (!rw) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for a PNG");
  rw->size = mem_size;
  rw->seek = mem_seek;
  rw->read = mem_read;
  rw->write = mem_write;
  rw->close = mem_close;
  rw->type = SDL_RWOPS_UNKNOWN;
  rw->hidden.unknown.data1 = &m;
  int rc = IMG_SavePNG_RW(s, rw, 1);
  if (rc != 0 || m.b.failed) {
    bool oom = m.b.failed;
    ws_bytes_free(&m.b);
    if (oom) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory encoding a %dx%d PNG", s->w, s->h);
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot encode a %dx%d PNG (SDL_image: %s)", s->w, s->h,
                       IMG_GetError());
  }
  *png = m.b.data;
  *png_bytes = m.b.len;
  return WS_OK;
}

ws_status ws_viz_shot_write(ws_ctx *ctx, const char *path, SDL_Surface *s) {
  void *png = NULL;
  size_t n = 0;
  ws_status st = ws_viz_shot_encode(ctx, s, &png, &n);
  if (st == WS_OK) st = ws_file_write_atomic(ctx, path, png, n);
  free(png);
  return st;
}

ws_status ws_viz_shot_png(ws_ctx *ctx, const char *path, const ws_viz_layout *layout, const ws_viz_frame *f,
                          const ws_viz_render_opts *opts, const char *kernel) {
  ws_viz_render *r = NULL;
  ws_status st = ws_viz_render_create(ctx, layout, opts, &r);
  if (st == WS_OK) st = ws_viz_render_draw(r, f, kernel);
  if (st == WS_OK) st = ws_viz_shot_write(ctx, path, ws_viz_render_surface(r));
  ws_viz_render_destroy(r);
  return st;
}
