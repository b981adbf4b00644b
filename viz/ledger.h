/* ledger.h - pixel mode on the picture: the journey ledger as a panel over
 * it (the hops around the current one, the current one highlighted, and
 * how many outputs of each layer the pixel has reached by then) and a
 * bright ring around the current hop's component, so a class sees where
 * the pixel is.
 *
 * Design: drawn onto the renderer's finished surface (viz/render.h) after
 * a frame, by both the window and the headless pictures, so `--hop N` and
 * the window's `j` show the same pixels. It only adds to the picture: the
 * renderer's own parts (packets, legend) are left as they are. The panel
 * takes the bottom corner away from the ring, and the ring is drawn last so
 * the panel never hides it. */
#ifndef WS_VIZ_LEDGER_H
#define WS_VIZ_LEDGER_H

#include <stddef.h>

#include "base/ctx.h"
#include "viz/layout.h"
#include "viz/palette.h"
#include "viz/walk.h"

struct SDL_Surface;

/* The ring's colour: a magenta no other part of the picture uses. */
#define WS_VIZ_LEDGER_RING_RGB ((ws_viz_rgb){0xff, 0x2b, 0xd6})
/* The ring is RING_PX thick and leaves RING_GAP pixels round the
 * component, or round a box of RING_MIN_PX a side centred on it where the
 * component is smaller (an HBM bank, a warp slot of the whole GPU), so it
 * can be seen from the back of a classroom. */
#define WS_VIZ_LEDGER_RING_GAP 1
#define WS_VIZ_LEDGER_RING_PX 3
#define WS_VIZ_LEDGER_RING_MIN_PX 28

typedef struct ws_viz_ledger ws_viz_ledger;

/* Opens the font (NULL: WS_VIZ_FONT_DEFAULT). */
ws_status ws_viz_ledger_create(ws_ctx *ctx, const char *font_path, ws_viz_ledger **out);
void ws_viz_ledger_destroy(ws_viz_ledger *ld);

/* Draws stop `stop` of `w` on `s`, a picture of layout `l`: the panel,
 * then the ring where `l` shows the stop's component (ws_viz_walk_rect). */
void ws_viz_ledger_draw(ws_viz_ledger *ld, struct SDL_Surface *s, const ws_viz_layout *l,
                        const ws_viz_walk *w, size_t stop);
/* The ring's outer rectangle round a component's rectangle. */
ws_viz_rect ws_viz_ledger_ring(ws_viz_rect component);
/* Where the panel went in the last draw (for tests). */
ws_viz_rect ws_viz_ledger_panel(const ws_viz_ledger *ld);

#endif
