/* render.h - draws one ws_viz_frame (viz/model.h) on a layout
 * (viz/layout.h) into a software surface: the picture the window shows and
 * the PNG frames are written from.
 *
 * Design: immediate mode over a read-only frame, through SDL's software
 * renderer (SDL_CreateSoftwareRenderer), so the pixels are the same on
 * every machine with the same font and the window, the PNG writer and the
 * tests share one path. Everything that does not change between frames
 * (component boxes, idle cells, captions, the legend) is drawn once at
 * create into a cached texture; a frame copies it and draws only the cells
 * whose state is not idle, batched by colour, then the moving packets and
 * the live text. The renderer owns its target surface. */
#ifndef WS_VIZ_RENDER_H
#define WS_VIZ_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ctx.h"
#include "viz/layout.h"
#include "viz/model.h"

struct SDL_Surface;

/* The font used when none is given (Debian's fonts-dejavu-core). */
#define WS_VIZ_FONT_DEFAULT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

typedef struct ws_viz_render_opts {
  const char *font_path;          /* TrueType font; NULL: WS_VIZ_FONT_DEFAULT */
  const char *const *stall_names; /* the trace's stall-reason names (ws_wst_names) for the legend; */
  size_t nstall_names;            /* NULL: the legend says "stall N" for the first 12 */
} ws_viz_render_opts;

typedef struct ws_viz_render ws_viz_render;

/* A renderer for `layout` (which must outlive it): opens the font, makes
 * the target surface and draws the static background. `opts` may be NULL. */
ws_status ws_viz_render_create(ws_ctx *ctx, const ws_viz_layout *layout, const ws_viz_render_opts *opts,
                               ws_viz_render **out);
void ws_viz_render_destroy(ws_viz_render *r);

/* Draws frame `f` under the header "KERNEL  launch L  cycle C" (`kernel`
 * may be NULL). A frame whose sizes differ from the layout's GPU (SMs,
 * warp slots, sub-partitions, slices, channels, banks) or a packet naming
 * an SM, slice or channel out of range is refused, and the surface keeps
 * the previous picture. Arrays of the frame left NULL draw as idle. */
ws_status ws_viz_render_draw(ws_viz_render *r, const ws_viz_frame *f, const char *kernel);

/* The packet of frame `f` (the one last drawn) drawn at or within two
 * pixels of (x, y): false when none, or when the view draws no packets. */
bool ws_viz_render_packet_at(const ws_viz_render *r, const ws_viz_frame *f, int32_t x, int32_t y, size_t *i);

/* The picture: width x height of the layout, SDL_PIXELFORMAT_RGB888 (no
 * alpha), owned by the renderer and rewritten by each draw. */
struct SDL_Surface *ws_viz_render_surface(const ws_viz_render *r);
const ws_viz_layout *ws_viz_render_layout(const ws_viz_render *r);

#endif
