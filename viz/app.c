/* app.c - the visualizer's window (app.h). */
#include "viz/app.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/inspect.h"
#include "viz/ledger.h"
#include "viz/palette.h"
#include "viz/render.h"
#include "viz/runrow.h"
#include "viz/shot.h"
#include "viz/walk.h"

#define DEFAULT_W 1280
#define DEFAULT_H 800
#define DEFAULT_WINDOW 256u
#define FONT_PT 12
#define ROW_PX 12 /* the timeline's and the launches' rows */

static const char *const help_lines[] = {
    "Keys",
    "space\tplay / pause",
    "right, .\tone cycle on",
    "n\tnext instruction of the selected warp (none selected: next change)",
    "k / K\tnext / previous kernel launch",
    "+ or = / -\tfaster / slower",
    "z\tzoom into the SM under the mouse (sm:N)",
    "x\tthat SM's shared-memory banks (smem:N)",
    "g\tthe whole GPU",
    "p\tsave a screenshot (viz-cycle-N.png)",
    "j / J\tpixel mode: the followed pixel's next / previous hop",
    "w\tpixel mode on / off (the journey ledger and the ring)",
    "?\tthis help",
    "Esc\tclear the selected warp, close this help",
    "q\tquit",
    "Mouse: click a warp slot to select it; click or drag on the timeline",
    "(bottom) to seek; the row above it is the run, its launches and copies",
    "on the runtime's clock: click a launch to jump there; hover for what is",
    "under the mouse.",
};

struct ws_viz_app {
  ws_ctx *ctx;
  ws_wst_reader *reader;
  ws_viz_model *model;
  ws_viz_app_opts opts;
  SDL_Window *win;
  TTF_Font *font;
  bool sdl_up, ttf_up;
  ws_viz_layout *layout;
  ws_viz_render *render;
  ws_viz_render_opts ropts;
  ws_viz_player player;
  ws_viz_runrow row;       /* the launches and copies above the timeline */
  ws_viz_inspect *inspect; /* memory components' last micro-op, for tooltips */
  bool have_player;        /* the player started: a launch decoded */
  bool broken;             /* the loaded launch failed to decode: no picture */
  ws_status error;         /* the first trace error shown */
  char message[512];
  char note[256];
  char tooltip[1024];        /* lines separated by newlines */
  const ws_viz_frame *frame; /* the frame last drawn (NULL: none) */
  int32_t w, h, bar_h, line_h;
  int32_t mouse_x, mouse_y;
  bool help, quit, dragging;
  /* pixel mode */
  ws_viz_walk *walk;     /* NULL: the journey could not be read (walk_error says why) */
  ws_viz_ledger *ledger; /* NULL: no font for it */
  char walk_error[256];
  bool walk_on;
  size_t stop;
};

/* The status line's note (a saved picture, a refused zoom). */
static void set_note(ws_viz_app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_note(ws_viz_app *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->note, sizeof a->note, fmt, ap);
  va_end(ap);
}

/* ---- the trace's errors ---------------------------------------------------------------------------- */

static void trace_failed(ws_viz_app *a, ws_status st) {
  if (a->error == WS_OK) a->error = st;
  snprintf(a->message, sizeof a->message, "%s", ws_errmsg(a->ctx));
  fprintf(stderr, "warpscope: %s\n", a->message);
  a->broken = true;
  a->frame = NULL;
}

/* A move to `launch` failed to decode it: the player stands on it, at
 * cycle 0 of nothing, so the status line names it, k/K move on from it and
 * the next seek loads again. */
static void stand_on_broken(ws_viz_app *a, ws_status st, uint32_t launch) {
  trace_failed(a, st);
  a->player.launch = launch < a->player.launches ? launch : a->player.launches - 1;
  a->player.cycle = a->player.end_cycle = 0;
  a->player.playing = false;
}

static void seek(ws_viz_app *a, uint32_t launch, uint64_t cycle) {
  if (!a->have_player) return;
  ws_status st = ws_viz_player_seek(&a->player, launch, cycle);
  if (st != WS_OK) {
    stand_on_broken(a, st, launch);
  } else {
    a->broken = false;
    a->message[0] = '\0';
  }
}

/* ---- layout and renderer for a view and the window's size ------------------------------------- */

static ws_status rebuild(ws_viz_app *a, ws_viz_view view) {
  int32_t ch = a->h - a->bar_h;
  if (ch < WS_VIZ_CANVAS_MIN_H) ch = WS_VIZ_CANVAS_MIN_H;
  int32_t cw = a->w < WS_VIZ_CANVAS_MIN_W ? WS_VIZ_CANVAS_MIN_W : a->w;
  if (cw > WS_VIZ_CANVAS_MAX_SIDE) cw = WS_VIZ_CANVAS_MAX_SIDE;
  if (ch > WS_VIZ_CANVAS_MAX_SIDE) ch = WS_VIZ_CANVAS_MAX_SIDE;
  ws_viz_layout *l = NULL;
  ws_viz_render *r = NULL;
  ws_status st = ws_viz_layout_create(a->ctx, ws_viz_model_cfg(a->model), cw, ch, view, &l);
  if (st == WS_OK) st = ws_viz_render_create(a->ctx, l, &a->ropts, &r);
  if (st != WS_OK) {
    ws_viz_layout_destroy(l);
    return st;
  }
  ws_viz_render_destroy(a->render);
  ws_viz_layout_destroy(a->layout);
  a->layout = l;
  a->render = r;
  return WS_OK;
}

static void set_view(ws_viz_app *a, ws_viz_zoom zoom, uint32_t sm) {
  if (rebuild(a, (ws_viz_view){zoom, sm}) != WS_OK)
    set_note(a, "%s", ws_errmsg(a->ctx));
  else
    a->note[0] = '\0';
}

/* The SM under the mouse: a per-SM part's, or the zoomed one's. */
static bool sm_under_mouse(const ws_viz_app *a, uint32_t *sm) {
  ws_viz_hit hit;
  ws_viz_view v = ws_viz_layout_view(a->layout);
  if (ws_viz_layout_hit(a->layout, a->mouse_x, a->mouse_y, &hit) && ws_viz_part_per_sm(hit.part)) {
    *sm = hit.sm;
    return true;
  }
  if (v.zoom != WS_VIZ_ZOOM_GPU) {
    *sm = v.sm;
    return true;
  }
  return false;
}

/* ---- the bottom bar's geometry --------------------------------------------------------------------- */

/* Below the status line: the run's row (its launches and copies on the
 * runtime's clock, viz/runrow.h, named where they fit), then the launch's
 * timeline along the bottom. */
static SDL_Rect launch_rect(const ws_viz_app *a) {
  return (SDL_Rect){4, a->h - a->bar_h + a->line_h + 2, a->w - 8, a->line_h};
}
static SDL_Rect scrub_rect(const ws_viz_app *a) {
  SDL_Rect k = launch_rect(a);
  return (SDL_Rect){k.x, k.y + k.h + 2, k.w, ROW_PX};
}
static bool in_rect(SDL_Rect r, int32_t x, int32_t y) {
  return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

static void scrub_to(ws_viz_app *a, int32_t x) {
  SDL_Rect s = scrub_rect(a);
  if (!a->have_player || s.w < 2) return;
  int64_t dx = x - s.x;
  if (dx < 0) dx = 0;
  if (dx > s.w - 1) dx = s.w - 1;
  uint64_t cycle = (uint64_t)((double)a->player.end_cycle * (double)dx / (double)(s.w - 1) + 0.5);
  seek(a, a->player.launch, cycle);
}

/* ---- events ------------------------------------------------------------------------------------------ */

static void click(ws_viz_app *a, int32_t x, int32_t y) {
  if (in_rect(scrub_rect(a), x, y)) {
    a->dragging = true;
    scrub_to(a, x);
    return;
  }
  SDL_Rect k = launch_rect(a);
  size_t i;
  if (in_rect(k, x, y) && a->have_player && ws_viz_runrow_at(&a->row, k.w, k.h, x - k.x, y - k.y, &i)) {
    const ws_viz_runrow_seg *g = &a->row.segs[i];
    seek(a, g->launch, 0);
    if (g->kind != WS_VIZ_RUNROW_LAUNCH) {
      char d[200];
      ws_viz_runrow_describe(&a->row, a->reader, i, d, sizeof d);
      set_note(a, "%s; a copy is no kernel: showing launch %u, the first to start after it began", d,
               g->launch);
    }
    return;
  }
  ws_viz_hit hit;
  if (a->have_player && ws_viz_layout_hit(a->layout, x, y, &hit) && hit.part == WS_VIZ_PART_WARP_SLOT) {
    ws_viz_player_select_warp(&a->player, hit.sm, hit.index);
    set_note(a, "selected SM %u warp slot %u", hit.sm, hit.index);
  }
}

static void screenshot(ws_viz_app *a) {
  if (!a->have_player || a->broken) return;
  char path[4096];
  const char *dir = a->opts.shot_dir ? a->opts.shot_dir : ".";
  snprintf(path, sizeof path, "%s/viz-cycle-%" PRIu64 ".png", dir, a->player.cycle);
  if (ws_viz_shot_write(a->ctx, path, ws_viz_render_surface(a->render)) == WS_OK)
    set_note(a, "saved %s", path);
  else
    set_note(a, "%s", ws_errmsg(a->ctx));
}

/* ---- pixel mode ---------------------------------------------------------------------------------------- */

/* Whether the walk can be shown; if not, the note says why. */
static bool walk_ready(ws_viz_app *a) {
  if (!a->walk || !a->ledger)
    set_note(a, "pixel mode: %s", a->walk_error[0] ? a->walk_error : "no walk");
  else if (!ws_viz_walk_count(a->walk))
    set_note(a, "pixel mode: this trace has no journey (record one with run --follow-pixel X,Y --trace F)");
  else
    return true;
  return false;
}

/* Stop i: the player at its launch and cycle, the view its own. */
static void go_stop(ws_viz_app *a, size_t i) {
  const ws_viz_walk_stop *s = ws_viz_walk_at(a->walk, i);
  if (!s || !a->have_player) return;
  a->walk_on = true;
  a->stop = i;
  a->player.playing = false;
  seek(a, s->launch, s->cycle);
  ws_viz_view v = ws_viz_layout_view(a->layout);
  if (v.zoom != s->view.zoom || v.sm != s->view.sm) set_view(a, s->view.zoom, s->view.sm);
  set_note(a, "hop %zu of %zu", i + 1, ws_viz_walk_count(a->walk));
}

/* j / J: the next / previous stop (the first j shows the current one);
 * w: pixel mode on (at its stop) or off. */
static void walk_key(ws_viz_app *a, SDL_Keycode sym, bool shift) {
  if (!walk_ready(a)) return;
  size_t n = ws_viz_walk_count(a->walk);
  if (sym == SDLK_w && a->walk_on) {
    a->walk_on = false;
    set_note(a, "pixel mode off");
  } else if (sym == SDLK_w || !a->walk_on) {
    go_stop(a, a->stop < n ? a->stop : 0);
  } else if (!shift) {
    go_stop(a, a->stop + 1 < n ? a->stop + 1 : a->stop);
  } else {
    go_stop(a, a->stop > 0 ? a->stop - 1 : 0);
  }
}

static void open_walk(ws_viz_app *a) {
  ws_status st = ws_viz_walk_create(a->ctx, a->reader, ws_viz_model_cfg(a->model), &a->walk);
  if (st == WS_OK) st = ws_viz_ledger_create(a->ctx, a->opts.font_path, &a->ledger);
  if (st != WS_OK) snprintf(a->walk_error, sizeof a->walk_error, "%s", ws_errmsg(a->ctx));
  if (a->opts.walk && walk_ready(a) && a->opts.walk_stop < ws_viz_walk_count(a->walk))
    go_stop(a, a->opts.walk_stop);
}

static void key(ws_viz_app *a, const SDL_KeyboardEvent *k) {
  SDL_Keycode sym = k->keysym.sym;
  bool shift = (k->keysym.mod & KMOD_SHIFT) != 0;
  ws_viz_player *p = &a->player;
  uint32_t sm;
  if (sym == SDLK_q) {
    a->quit = true;
    return;
  }
  if (sym == SDLK_QUESTION || (sym == SDLK_SLASH && shift)) {
    a->help = !a->help;
    return;
  }
  if (sym == SDLK_ESCAPE) {
    a->help = false;
    if (a->have_player) ws_viz_player_clear_warp(p);
    return;
  }
  if (sym == SDLK_g) {
    set_view(a, WS_VIZ_ZOOM_GPU, 0);
    return;
  }
  if (sym == SDLK_z || sym == SDLK_x) {
    if (sm_under_mouse(a, &sm))
      set_view(a, sym == SDLK_z ? WS_VIZ_ZOOM_SM : WS_VIZ_ZOOM_SMEM, sm);
    else
      set_note(a, "%c: point at an SM first", sym == SDLK_z ? 'z' : 'x');
    return;
  }
  if (!a->have_player) return;
  if (sym == SDLK_j || sym == SDLK_w) {
    walk_key(a, sym, shift);
    return;
  }
  if (sym == SDLK_k) {
    if (!shift) {
      if (p->launch + 1 < p->launches) seek(a, p->launch + 1, 0);
    } else if (p->launch > 0) {
      seek(a, p->launch - 1, 0);
    }
    return;
  }
  if (sym == SDLK_PLUS || sym == SDLK_EQUALS || sym == SDLK_KP_PLUS) ws_viz_player_faster(p);
  if (sym == SDLK_MINUS || sym == SDLK_KP_MINUS) ws_viz_player_slower(p);
  if (a->broken) return; /* the steps below need the launch decoded */
  ws_status st = WS_OK;
  uint32_t next = p->launch + 1; /* the only launch a step can fail to load */
  if (sym == SDLK_SPACE)
    ws_viz_player_toggle(p);
  else if (sym == SDLK_RIGHT || sym == SDLK_PERIOD)
    st = ws_viz_player_step_cycle(p);
  else if (sym == SDLK_n)
    st = ws_viz_player_step_insn(p);
  else if (sym == SDLK_p)
    screenshot(a);
  if (st != WS_OK) stand_on_broken(a, st, next);
}

static void resized(ws_viz_app *a, int32_t w, int32_t h) {
  if (w == a->w && h == a->h) return;
  a->w = w;
  a->h = h;
  if (rebuild(a, ws_viz_layout_view(a->layout)) != WS_OK) set_note(a, "%s", ws_errmsg(a->ctx));
}

bool ws_viz_app_handle(ws_viz_app *a, const SDL_Event *e) {
  switch (e->type) {
  case SDL_QUIT: a->quit = true; break;
  case SDL_KEYDOWN: key(a, &e->key); break;
  case SDL_MOUSEMOTION:
    a->mouse_x = e->motion.x;
    a->mouse_y = e->motion.y;
    if (a->dragging && (e->motion.state & SDL_BUTTON_LMASK)) scrub_to(a, e->motion.x);
    break;
  case SDL_MOUSEBUTTONDOWN:
    a->mouse_x = e->button.x;
    a->mouse_y = e->button.y;
    if (e->button.button == SDL_BUTTON_LEFT) click(a, e->button.x, e->button.y);
    break;
  case SDL_MOUSEBUTTONUP: a->dragging = false; break;
  case SDL_WINDOWEVENT:
    if (e->window.event == SDL_WINDOWEVENT_CLOSE) a->quit = true;
    if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED) resized(a, e->window.data1, e->window.data2);
    break;
  default: break;
  }
  return !a->quit;
}

/* ---- overlays ---------------------------------------------------------------------------------------- */

static Uint32 map(SDL_Surface *s, ws_viz_colour c) {
  ws_viz_rgb v = ws_viz_palette(c);
  return SDL_MapRGB(s->format, v.r, v.g, v.b);
}

/* Text with its top left at (x, y); returns its width. */
static int32_t text(ws_viz_app *a, SDL_Surface *dst, int32_t x, int32_t y, ws_viz_colour c, const char *s) {
  if (!s[0]) return 0;
  ws_viz_rgb v = ws_viz_palette(c);
  SDL_Surface *ts = TTF_RenderUTF8_Blended(a->font, s, (SDL_Color){v.r, v.g, v.b, 255});
  if (!ts) return 0;
  SDL_Rect r = {x, y, ts->w, ts->h};
  SDL_BlitSurface(ts, NULL, dst, &r);
  int32_t w = ts->w;
  SDL_FreeSurface(ts);
  return w;
}

static void outline(SDL_Surface *s, SDL_Rect r, Uint32 c) {
  SDL_Rect e[4] = {
      {r.x, r.y, r.w, 1}, {r.x, r.y + r.h - 1, r.w, 1}, {r.x, r.y, 1, r.h}, {r.x + r.w - 1, r.y, 1, r.h}};
  SDL_FillRects(s, e, 4, c);
}

static const char *warp_state_name(const ws_viz_app *a, uint8_t st, char *buf, size_t n) {
  switch (st) {
  case WS_VIZ_WARP_EMPTY: return "empty";
  case WS_VIZ_WARP_ISSUING: return "issuing";
  case WS_VIZ_WARP_UNRECORDED: return "not recorded";
  case WS_VIZ_WARP_DONE: return "done";
  default: break;
  }
  uint32_t reason = (uint32_t)st - WS_VIZ_WARP_STALL0;
  if (reason < a->ropts.nstall_names && a->ropts.stall_names[reason])
    snprintf(buf, n, "stalled: %s", a->ropts.stall_names[reason]);
  else
    snprintf(buf, n, "stalled: stall %u", reason);
  return buf;
}

/* Over the run's row: the launch or copy under the mouse. */
static bool row_tooltip(ws_viz_app *a) {
  SDL_Rect k = launch_rect(a);
  size_t i;
  if (!a->have_player || !in_rect(k, a->mouse_x, a->mouse_y) ||
      !ws_viz_runrow_at(&a->row, k.w, k.h, a->mouse_x - k.x, a->mouse_y - k.y, &i))
    return false;
  ws_viz_runrow_describe(&a->row, a->reader, i, a->tooltip, sizeof a->tooltip);
  return true;
}

/* "crossbar request: SM 3 -> L2 slice 7" and the like. */
static void packet_route(const ws_viz_packet *p, char *buf, size_t n) {
  switch (p->link) {
  case WS_VIZ_LINK_XBAR_REQ:
    snprintf(buf, n, "crossbar request: SM %u -> L2 slice %u", p->sm, p->slice);
    break;
  case WS_VIZ_LINK_XBAR_RESP:
    snprintf(buf, n, "crossbar response: L2 slice %u -> SM %u", p->slice, p->sm);
    break;
  case WS_VIZ_LINK_DRAM:
    if (p->write)
      snprintf(buf, n, "DRAM write burst: L2 slice %u -> HBM channel %u", p->slice, p->channel);
    else
      snprintf(buf, n, "DRAM read burst: HBM channel %u -> L2 slice %u", p->channel, p->slice);
    break;
  default: snprintf(buf, n, "PCIe burst"); break;
  }
}

/* "weights blocks.0.attn.qkv.weight + 0x1c0": the named range holding an
 * address (ws_viz_inspect_namer), for tooltips. */
static bool name_addr(void *user, uint64_t addr, char *buf, size_t n) {
  const ws_viz_model *m = user;
  const ws_runtime_region *g = ws_viz_model_region(m, ws_viz_model_region_at(m, addr));
  if (!g) return false;
  snprintf(buf, n, "%s %s + 0x%" PRIx64, ws_runtime_tensor_name(g->tensor), g->name, addr - g->addr);
  return true;
}

/* Over a packet in flight: its route, address and tensor, bytes, micro-op
 * and the cycles of its hop. */
static bool packet_tooltip(ws_viz_app *a) {
  size_t i;
  if (!a->frame || a->broken || !ws_viz_render_packet_at(a->render, a->frame, a->mouse_x, a->mouse_y, &i))
    return false;
  const ws_viz_packet *p = &a->frame->packets[i];
  char route[128], name[160] = "";
  packet_route(p, route, sizeof route);
  if (!name_addr(a->model, p->addr, name, sizeof name)) snprintf(name, sizeof name, "no named range");
  snprintf(a->tooltip, sizeof a->tooltip,
           "%s, %u bytes, micro-op %" PRIu64 "%s\nline 0x%" PRIx64 " (%s)\ncycles %" PRIu64 " to %" PRIu64
           ": %" PRIu64 " cycles on the link, %.0f%% of the way",
           route, p->bytes, p->uop, p->tagged ? ", carries the followed pixel" : "", p->addr, name, p->begin,
           p->end, p->end - p->begin, 100.0 * p->progress);
  return true;
}

static void make_tooltip(ws_viz_app *a) {
  a->tooltip[0] = '\0';
  if (row_tooltip(a) || packet_tooltip(a)) return;
  ws_viz_hit hit;
  if (!a->layout || !ws_viz_layout_hit(a->layout, a->mouse_x, a->mouse_y, &hit) ||
      hit.part == WS_VIZ_PART_NONE || hit.part == WS_VIZ_PART_HEADER)
    return;
  char desc[160];
  ws_viz_hit_describe(a->layout, &hit, desc, sizeof desc);
  const ws_viz_frame *f = a->frame;
  if (hit.part == WS_VIZ_PART_WARP_SLOT && f && hit.sm < f->num_sms && hit.index < f->warp_slots) {
    size_t i = (size_t)hit.sm * f->warp_slots + hit.index;
    char sbuf[96];
    const char *name = warp_state_name(a, f->warp[i], sbuf, sizeof sbuf);
    if (f->warp_pc && f->warp_pc[i] != UINT32_MAX)
      snprintf(a->tooltip, sizeof a->tooltip, "%s: %s, pc %u", desc, name, f->warp_pc[i]);
    else
      snprintf(a->tooltip, sizeof a->tooltip, "%s: %s", desc, name);
  } else if (ws_viz_inspect_covers(hit.part) && f && !a->broken) {
    char last[768];
    if (ws_viz_inspect_describe(a->inspect, a->player.launch, a->player.cycle, a->opts.window_cycles, &hit,
                                last, sizeof last) != WS_OK)
      snprintf(last, sizeof last, "%s", ws_errmsg(a->ctx));
    snprintf(a->tooltip, sizeof a->tooltip, "%s:\n%s", desc, last);
  } else {
    snprintf(a->tooltip, sizeof a->tooltip, "%s", desc);
  }
}

static const char *kernel_name(const ws_viz_app *a, uint32_t launch) {
  const ws_wst_launch_info *l = ws_wst_launch(a->reader, launch);
  const ws_wst_kernel_info *k =
      l && l->kernel != WS_WST_NO_KERNEL ? ws_wst_kernel(a->reader, l->kernel) : NULL;
  return k ? k->name : "?";
}

/* A segment's colour: the launch shown, another launch, or a copy in its
 * direction's packet colour. */
static ws_viz_colour row_colour(const ws_viz_app *a, const ws_viz_runrow_seg *g) {
  if (g->kind == WS_VIZ_RUNROW_H2D || g->kind == WS_VIZ_RUNROW_D2H) return WS_VIZ_COL_PKT_PCIE;
  return g->launch == a->player.launch ? WS_VIZ_COL_BAR : WS_VIZ_COL_BAR_BG;
}

static void draw_row(ws_viz_app *a, SDL_Surface *s) {
  SDL_Rect kr = launch_rect(a);
  SDL_FillRect(s, &kr, map(s, WS_VIZ_COL_HEADER));
  for (size_t i = 0; i < a->row.nsegs; i++) {
    const ws_viz_runrow_seg *g = &a->row.segs[i];
    int32_t x0, x1;
    int32_t y0, y1;
    ws_viz_runrow_span(&a->row, i, kr.w, &x0, &x1);
    ws_viz_runrow_band(g, kr.h, &y0, &y1);
    SDL_Rect seg = {kr.x + x0, kr.y + y0, x1 - x0, y1 - y0};
    SDL_FillRect(s, &seg, map(s, row_colour(a, g)));
    outline(s, seg, map(s, WS_VIZ_COL_FRAME));
    size_t ntl = 0;
    const char *name = g->kind == WS_VIZ_RUNROW_LAUNCH ? kernel_name(a, g->launch)
                                                       : ws_wst_timeline(a->reader, &ntl)[g->record].name;
    int tw = 0, th = 0;
    if (TTF_SizeUTF8(a->font, name, &tw, &th) == 0 && tw + 8 <= seg.w && th <= seg.h)
      text(a, s, seg.x + 4, seg.y + 1, WS_VIZ_COL_TEXT, name);
  }
}

static void draw_bar(ws_viz_app *a, SDL_Surface *s) {
  SDL_Rect bar = {0, a->h - a->bar_h, a->w, a->bar_h};
  SDL_FillRect(s, &bar, map(s, WS_VIZ_COL_HEADER));
  const ws_viz_player *p = &a->player;
  char line[512];
  if (a->have_player) {
    snprintf(line, sizeof line,
             "%s   %g cycles/s   launch %u (%u of %u, %s)   cycle %" PRIu64 " / %" PRIu64 "%s%s",
             p->playing ? "playing" : "paused", ws_viz_player_speed(p), p->launch, p->launch + 1, p->launches,
             kernel_name(a, p->launch), p->cycle, p->end_cycle, a->note[0] ? "   " : "", a->note);
  } else {
    snprintf(line, sizeof line, "no launch to show");
  }
  int32_t x = 6 + text(a, s, 6, bar.y + 1, WS_VIZ_COL_TEXT, line);
  if (a->message[0]) text(a, s, x + 12, bar.y + 1, WS_VIZ_COL_CACHE_MISS, a->message);
  if (!a->have_player) return;
  SDL_Rect sc = scrub_rect(a);
  SDL_FillRect(s, &sc, map(s, WS_VIZ_COL_BAR_BG));
  if (p->end_cycle) {
    SDL_Rect done = sc;
    done.w = (int)((double)sc.w * (double)p->cycle / (double)p->end_cycle);
    SDL_FillRect(s, &done, map(s, WS_VIZ_COL_BAR));
  }
  draw_row(a, s);
}

static void draw_tooltip(ws_viz_app *a, SDL_Surface *s) {
  if (!a->tooltip[0]) return;
  char lines[sizeof a->tooltip];
  snprintf(lines, sizeof lines, "%s", a->tooltip);
  int tw = 0, th = 0, n = 0;
  for (char *save = NULL, *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
    int w = 0;
    if (TTF_SizeUTF8(a->font, l, &w, &th) != 0) return;
    if (w > tw) tw = w;
  }
  SDL_Rect box = {a->mouse_x + 14, a->mouse_y + 14, tw + 8, n * a->line_h + 4};
  if (box.x + box.w > a->w) box.x = a->w - box.w;
  if (box.y + box.h > a->h) box.y = a->mouse_y - box.h - 4;
  if (box.x < 0) box.x = 0;
  if (box.y < 0) box.y = 0;
  SDL_FillRect(s, &box, map(s, WS_VIZ_COL_PANEL));
  outline(s, box, map(s, WS_VIZ_COL_FRAME));
  snprintf(lines, sizeof lines, "%s", a->tooltip);
  int y = box.y + 2;
  for (char *save = NULL, *l = strtok_r(lines, "\n", &save); l;
       l = strtok_r(NULL, "\n", &save), y += a->line_h)
    text(a, s, box.x + 4, y, WS_VIZ_COL_TEXT, l);
}

/* A help line "KEY\tWHAT" in two columns, or one line of prose. */
static int32_t help_line(ws_viz_app *a, SDL_Surface *s, int32_t x, int32_t y, int32_t col, size_t i) {
  const char *line = help_lines[i], *tab = strchr(line, '\t');
  ws_viz_colour c = i == 0 ? WS_VIZ_COL_TEXT : WS_VIZ_COL_TEXT_DIM;
  if (!tab) return text(a, s, x, y, c, line);
  char keys[32];
  snprintf(keys, sizeof keys, "%.*s", (int)(tab - line), line);
  text(a, s, x, y, WS_VIZ_COL_TEXT, keys);
  return col + text(a, s, x + col, y, c, tab + 1);
}

static void draw_help(ws_viz_app *a, SDL_Surface *s) {
  size_t n = sizeof help_lines / sizeof help_lines[0];
  int32_t col = 7 * a->line_h, wmax = 0;
  for (size_t i = 0; i < n; i++) {
    const char *tab = strchr(help_lines[i], '\t');
    int tw = 0, th = 0;
    if (TTF_SizeUTF8(a->font, tab ? tab + 1 : help_lines[i], &tw, &th) == 0 && tw + (tab ? col : 0) > wmax)
      wmax = tw + (tab ? col : 0);
  }
  SDL_Rect box = {0, 0, wmax + 24, (int)n * a->line_h + 16};
  box.x = (a->w - box.w) / 2;
  box.y = (a->h - box.h) / 2;
  SDL_FillRect(s, &box, map(s, WS_VIZ_COL_PANEL));
  outline(s, box, map(s, WS_VIZ_COL_TEXT));
  for (size_t i = 0; i < n; i++) help_line(a, s, box.x + 12, box.y + 8 + (int32_t)i * a->line_h, col, i);
}

/* ---- frames ------------------------------------------------------------------------------------------- */

void ws_viz_app_frame(ws_viz_app *a, double seconds) {
  if (a->have_player && !a->broken) {
    uint32_t next = a->player.launch + 1;
    ws_status st = ws_viz_player_advance(&a->player, seconds);
    if (st != WS_OK) stand_on_broken(a, st, next);
    /* playing in pixel mode, the ledger follows the pixel: the last hop it
     * has made by now (the view stays; j/J move it) */
    if (st == WS_OK && a->walk_on && a->player.playing)
      a->stop = ws_viz_walk_reached(a->walk, a->player.launch, a->player.cycle, a->stop);
  }
  if (a->have_player && !a->broken) {
    const ws_viz_frame *f = NULL;
    ws_status st = ws_viz_model_frame(a->model, a->player.cycle, a->opts.window_cycles, &f);
    if (st == WS_OK) st = ws_viz_render_draw(a->render, f, kernel_name(a, a->player.launch));
    if (st == WS_OK && a->walk_on)
      ws_viz_ledger_draw(a->ledger, ws_viz_render_surface(a->render), a->layout, a->walk, a->stop);
    if (st != WS_OK)
      trace_failed(a, st);
    else
      a->frame = f;
  }
  SDL_Surface *ws = SDL_GetWindowSurface(a->win);
  if (!ws) return;
  SDL_FillRect(ws, NULL, map(ws, WS_VIZ_COL_BG));
  if (!a->broken) SDL_BlitSurface(ws_viz_render_surface(a->render), NULL, ws, NULL);
  if (a->broken && a->message[0]) {
    text(a, ws, 16, 16, WS_VIZ_COL_CACHE_MISS, "The trace cannot be shown:");
    text(a, ws, 16, 16 + a->line_h, WS_VIZ_COL_TEXT, a->message);
  }
  draw_bar(a, ws);
  make_tooltip(a);
  draw_tooltip(a, ws);
  if (a->help) draw_help(a, ws);
  SDL_UpdateWindowSurface(a->win);
}

/* ---- open and close -------------------------------------------------------------------------------- */

ws_status ws_viz_app_open(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m, const ws_viz_app_opts *opts,
                          ws_viz_app **out) {
  *out = NULL;
  ws_viz_app *a = calloc(1, sizeof *a);
  if (!a) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the window");
  a->ctx = ctx;
  a->reader = r;
  a->model = m;
  if (opts) a->opts = *opts;
  if (a->opts.width <= 0 || a->opts.height <= 0) {
    a->opts.width = DEFAULT_W;
    a->opts.height = DEFAULT_H;
  }
  if (!a->opts.window_cycles) a->opts.window_cycles = DEFAULT_WINDOW;
  a->w = a->opts.width;
  a->h = a->opts.height;
  a->ropts.font_path = a->opts.font_path;
  a->ropts.stall_names = ws_wst_names(r, &a->ropts.nstall_names);
  ws_status st = WS_OK;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open a window: %s (no display? --screenshot draws without one)",
                     SDL_GetError());
    ws_viz_app_close(a);
    return st;
  }
  a->sdl_up = true;
  /* with no display SDL falls back to a driver that shows nothing (the
   * window would wait for keys no one can press): refused unless asked for */
  const char *driver = SDL_GetCurrentVideoDriver(), *asked = SDL_getenv("SDL_VIDEODRIVER");
  if (driver && (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy")) &&
      !(asked && !strcmp(asked, driver))) {
    st = ws_ctx_fail(
        ctx, WS_ERR_IO,
        "cannot open a window: no display (SDL found only its %s video driver); --screenshot draws "
        "without one",
        driver);
    ws_viz_app_close(a);
    return st;
  }
  /* the picture is drawn in software: the window takes it through X11's
   * own framebuffer, never through a GL texture (no GL libraries loaded) */
  SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
  if (TTF_Init() != 0) {
    st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot start SDL_ttf: %s", TTF_GetError());
  } else {
    a->ttf_up = true;
    const char *font = a->opts.font_path ? a->opts.font_path : WS_VIZ_FONT_DEFAULT;
    a->font = TTF_OpenFont(font, FONT_PT);
    if (!a->font) st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open font '%s': %s", font, TTF_GetError());
  }
  if (st == WS_OK) {
    a->line_h = TTF_FontLineSkip(a->font) + 2;
    a->bar_h = 2 * a->line_h + ROW_PX + 8;
    a->win = SDL_CreateWindow("warpscope viz", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, a->w, a->h,
                              SDL_WINDOW_RESIZABLE);
    if (!a->win) st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open a window: %s", SDL_GetError());
  }
  if (st == WS_OK) {
    SDL_SetWindowMinimumSize(a->win, WS_VIZ_CANVAS_MIN_W, WS_VIZ_CANVAS_MIN_H + a->bar_h);
    SDL_GetWindowSize(a->win, &a->w, &a->h);
    st = rebuild(a, a->opts.view);
  }
  if (st != WS_OK) {
    ws_viz_app_close(a);
    return st;
  }
  st = ws_viz_runrow_build(ctx, r, &a->row);
  if (st == WS_OK) st = ws_viz_inspect_create(ctx, r, ws_viz_model_cfg(m), &a->inspect);
  if (st == WS_OK) ws_viz_inspect_set_namer(a->inspect, name_addr, m);
  if (st != WS_OK) {
    ws_viz_app_close(a);
    return st;
  }
  ws_status pst = ws_viz_player_init(&a->player, ctx, r, m);
  if (pst == WS_OK) {
    a->have_player = true;
    if (a->opts.has_launch || a->opts.cycle) {
      uint32_t launch = a->opts.has_launch ? a->opts.launch : a->player.launch;
      seek(a, launch, a->opts.cycle);
    }
  } else if (ws_wst_launch_count(r) > 0) {
    /* the first launch failed to decode: the window shows why */
    a->have_player = true;
    a->player = (ws_viz_player){
        .model = m, .reader = r, .speed_step = 9, .launches = (uint32_t)ws_wst_launch_count(r)};
    trace_failed(a, pst);
  } else {
    trace_failed(a, pst);
  }
  open_walk(a);
  ws_viz_app_frame(a, 0);
  *out = a;
  return WS_OK;
}

void ws_viz_app_close(ws_viz_app *a) {
  if (!a) return;
  ws_viz_ledger_destroy(a->ledger);
  ws_viz_walk_destroy(a->walk);
  ws_viz_render_destroy(a->render);
  ws_viz_layout_destroy(a->layout);
  ws_viz_runrow_free(&a->row);
  ws_viz_inspect_destroy(a->inspect);
  if (a->font) TTF_CloseFont(a->font);
  if (a->ttf_up) TTF_Quit();
  if (a->win) SDL_DestroyWindow(a->win);
  if (a->sdl_up) SDL_QuitSubSystem(SDL_INIT_VIDEO);
  free(a);
}

ws_status ws_viz_app_run(ws_ctx *ctx, ws_wst_reader *r, ws_viz_model *m, const ws_viz_app_opts *opts) {
  ws_viz_app *a = NULL;
  ws_status st = ws_viz_app_open(ctx, r, m, opts, &a);
  if (st != WS_OK) return st;
  Uint64 last = SDL_GetTicks64();
  bool running = true;
  while (running) {
    SDL_Event e;
    /* wait for an event while paused, so an idle window costs nothing */
    int got = a->player.playing ? SDL_PollEvent(&e) : SDL_WaitEventTimeout(&e, 100);
    while (got && running) {
      running = ws_viz_app_handle(a, &e);
      got = SDL_PollEvent(&e);
    }
    if (!running) break;
    Uint64 now = SDL_GetTicks64();
    ws_viz_app_frame(a, (double)(now - last) / 1000.0);
    last = now;
    if (a->player.playing) SDL_Delay(10);
  }
  st = a->error;
  char msg[sizeof a->message];
  snprintf(msg, sizeof msg, "%s", a->message);
  ws_viz_app_close(a);
  return st == WS_OK ? WS_OK : ws_ctx_fail(ctx, st, "%s", msg);
}

/* ---- for tests -------------------------------------------------------------------------------------- */

const ws_viz_player *ws_viz_app_player(const ws_viz_app *a) { return &a->player; }
const ws_viz_layout *ws_viz_app_layout(const ws_viz_app *a) { return a->layout; }
SDL_Window *ws_viz_app_window(const ws_viz_app *a) { return a->win; }
bool ws_viz_app_help_shown(const ws_viz_app *a) { return a->help; }
const char *ws_viz_app_message(const ws_viz_app *a) { return a->message[0] ? a->message : NULL; }
const char *ws_viz_app_note(const ws_viz_app *a) { return a->note; }
const char *ws_viz_app_tooltip(const ws_viz_app *a) { return a->tooltip; }
bool ws_viz_app_walk(const ws_viz_app *a, size_t *stop) {
  *stop = a->stop;
  return a->walk_on;
}
