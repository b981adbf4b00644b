/* shot.h - headless pictures: a frame rendered without a window and
 * written as a PNG file.
 *
 * Design: the PNG is encoded into memory (SDL2_image writing into a
 * growable SDL_RWops) and then handed to ws_file_write_atomic, so a failed
 * encode or write leaves nothing behind and the previous file intact, and
 * a symbolic link keeps pointing where it did. The same frame on the same
 * layout gives the same bytes: the software renderer is deterministic and
 * the encoder writes no time stamp. */
#ifndef WS_VIZ_SHOT_H
#define WS_VIZ_SHOT_H

#include <stddef.h>

#include "base/ctx.h"
#include "viz/layout.h"
#include "viz/model.h"
#include "viz/render.h"

struct SDL_Surface;

/* Renders `f` on `layout` (with `opts`, which may be NULL) under the header
 * naming `kernel`, and writes the picture to `path` as a PNG. */
ws_status ws_viz_shot_png(ws_ctx *ctx, const char *path, const ws_viz_layout *layout, const ws_viz_frame *f,
                          const ws_viz_render_opts *opts, const char *kernel);

/* A surface's pixels as PNG bytes (malloc'd into *png, caller frees). */
ws_status ws_viz_shot_encode(ws_ctx *ctx, struct SDL_Surface *s, void **png, size_t *png_bytes);
/* A surface written to `path` as a PNG, atomically (the window's
 * screenshot key uses this on the renderer's surface). */
ws_status ws_viz_shot_write(ws_ctx *ctx, const char *path, struct SDL_Surface *s);

#endif
