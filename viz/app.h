/* app.h - the visualizer's window: a trace played back in an SDL window,
 * with a status line, a timeline to seek in, a row of launches to jump
 * between, hover tooltips, a help overlay, pixel mode's walk (viz/walk.h,
 * viz/ledger.h) and the keys of docs/viz.md.
 *
 * Design: the window is a thin shell over the pieces that are tested
 * without one: the player (viz/player.h) holds the position and the steps,
 * the model (viz/model.h) the state at a cycle, the layout (viz/layout.h)
 * the geometry and the hit test, the renderer (viz/render.h) the picture.
 * The app copies the renderer's software surface to the window's surface
 * and draws its overlays there. Events and time come in through
 * ws_viz_app_handle and ws_viz_app_frame, so a test drives the real window
 * with synthetic events and a chosen elapsed time; ws_viz_app_run is the
 * loop that feeds them from SDL and the wall clock. A trace that fails to
 * decode leaves a message line in the window instead of a picture. */
#ifndef WS_VIZ_APP_H
#define WS_VIZ_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "viz/layout.h"
#include "viz/model.h"
#include "viz/player.h"

union SDL_Event;
struct SDL_Window;

typedef struct ws_viz_app_opts {
  int32_t width, height; /* the window's size; 0: 1280x800 */
  bool has_launch;       /* start at `launch` (else the first launch with records) */
  uint32_t launch;
  uint64_t cycle;         /* the cycle it starts at */
  ws_viz_view view;       /* what it starts showing */
  uint32_t window_cycles; /* the live counters' window; 0: 256 */
  const char *font_path;  /* NULL: WS_VIZ_FONT_DEFAULT */
  const char *shot_dir;   /* where `p` writes viz-cycle-N.png; NULL: the current directory */
  bool walk;              /* start in pixel mode (viz/walk.h) at stop `walk_stop`, when the trace */
  size_t walk_stop;       /* has a journey (else the window notes it has none) */
} ws_viz_app_opts;

typedef struct ws_viz_app ws_viz_app;

/* Starts SDL's video, opens the window and shows the start position. No
 * display (SDL_Init fails) or no window is an error naming SDL's message.
 * A trace that cannot be decoded is not: the window opens showing the
 * message (ws_viz_app_message). */
ws_status ws_viz_app_open(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m, const ws_viz_app_opts *opts,
                          ws_viz_app **out);
/* One event; false once the app is to quit (q, window close, SDL_QUIT). */
bool ws_viz_app_handle(ws_viz_app *a, const union SDL_Event *e);
/* Moves playback on by `seconds` of wall time, draws and shows a frame. */
void ws_viz_app_frame(ws_viz_app *a, double seconds);
void ws_viz_app_close(ws_viz_app *a);

/* The loop: open, events and frames by SDL_GetTicks64 until quit, close.
 * Returns the trace's error if one was shown (its message in ctx). */
ws_status ws_viz_app_run(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m, const ws_viz_app_opts *opts);

/* What the window shows, for tests. */
const ws_viz_player *ws_viz_app_player(const ws_viz_app *a);
const ws_viz_layout *ws_viz_app_layout(const ws_viz_app *a);
struct SDL_Window *ws_viz_app_window(const ws_viz_app *a);
bool ws_viz_app_help_shown(const ws_viz_app *a);
/* The trace's error shown in the window, NULL when none. */
const char *ws_viz_app_message(const ws_viz_app *a);
/* The last status note (a saved screenshot, a refused zoom), "" when none. */
const char *ws_viz_app_note(const ws_viz_app *a);
/* Pixel mode: whether it is on, and the stop shown (0-based). */
bool ws_viz_app_walk(const ws_viz_app *a, size_t *stop);
/* The tooltip under the mouse, "" when none. */
const char *ws_viz_app_tooltip(const ws_viz_app *a);

#endif
