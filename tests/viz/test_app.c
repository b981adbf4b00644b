/* test_app.c - the visualizer's window (viz/app.h), for real: an X server
 * (Xvfb) started by the test, SDL on its x11 driver, synthetic events
 * pushed through SDL's queue, and the effects checked on the player, the
 * layout and the window's pixels. A trace of two saxpy launches on the
 * classroom preset is recorded first (pixel mode records a followed run of
 * its own). Xvfb is a dependency
 * (scripts/install-deps.sh): without it the tests fail. */
#include <SDL2/SDL.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "viz/app.h"
#include "viz/ledger.h"
#include "viz/palette.h"
#include "viz/walk.h"

#define XVFB "/usr/bin/Xvfb"

static char path[] = "/tmp/ws_app_XXXXXX";
static ws_ctx *ctx;
static ws_wst_reader *reader;
static ws_viz_model *model;
static pid_t xvfb = -1;

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Whether the X server holding `lock` is process `pid`: Xvfb writes its
 * pid into the lock file before it makes its socket. Criterion runs the
 * tests in parallel processes, each starting its own server: two of them
 * can try the same display at once, and the one whose server lost must not
 * take the winner's socket for its own (the winner's test ends, stops its
 * server, and the loser's next window finds no display). */
static bool lock_held_by(const char *lock, pid_t pid) {
  FILE *f = fopen(lock, "r");
  if (!f) return false;
  long v = 0;
  bool ok = fscanf(f, "%ld", &v) == 1;
  fclose(f);
  return ok && v == (long)pid;
}

/* Xvfb on the first free display of :91..:99, waited for until its socket
 * exists and its lock names it; DISPLAY points at it. */
static void start_xvfb(void) {
  cr_assert_eq(access(XVFB, X_OK), 0, "Xvfb is not installed at " XVFB " (scripts/install-deps.sh)");
  for (int d = 91; d <= 99; d++) {
    char lock[64], sock[64], disp[16];
    snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
    snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", d);
    snprintf(disp, sizeof disp, ":%d", d);
    if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0) continue;
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
      }
      execl(XVFB, "Xvfb", disp, "-nolisten", "tcp", "-screen", "0", "1600x1000x24", (char *)NULL);
      _exit(127);
    }
    for (int i = 0; i < 100; i++) {
      struct stat st;
      if (stat(sock, &st) == 0 && lock_held_by(lock, pid)) {
        xvfb = pid;
        setenv("DISPLAY", disp, 1);
        setenv("SDL_VIDEODRIVER", "x11", 1);
        return;
      }
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) break; /* it exited: the display was taken */
      sleep_ms(50);
    }
    if (waitpid(pid, NULL, WNOHANG) == 0) {
      kill(pid, SIGTERM);
      waitpid(pid, NULL, 0);
    }
  }
  cr_assert_fail("Xvfb could not start on any display of :91..:99");
}

static void stop_xvfb(void) {
  if (xvfb > 0) {
    kill(xvfb, SIGTERM);
    waitpid(xvfb, NULL, 0);
    xvfb = -1;
  }
}

static void record(void) {
  wstrec_tmpfile(path);
  ws_example_shape shape = ws_example_default_shape("saxpy");
  shape.n = 2048;
  wstrec_example(ctx, path, "classroom", "saxpy", &shape, 2);
}

static void setup(void) {
  ctx = ws_ctx_create();
  record();
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_create(ctx, reader, &model), WS_OK, "%s", ws_errmsg(ctx));
  start_xvfb();
}

static void teardown(void) {
  stop_xvfb();
  ws_viz_model_destroy(model);
  ws_wst_close(reader);
  unlink(path);
  ws_ctx_destroy(ctx);
}

TestSuite(app, .init = setup, .fini = teardown, .timeout = 120);

/* Pushes an event and lets the app handle everything queued; returns
 * whether the app goes on. */
static bool send(ws_viz_app *a, SDL_Event *e) {
  cr_assert_eq(SDL_PushEvent(e), 1, "%s", SDL_GetError());
  SDL_Event got;
  bool on = true;
  while (SDL_PollEvent(&got)) on = ws_viz_app_handle(a, &got) && on;
  return on;
}

static bool press(ws_viz_app *a, SDL_Keycode sym, Uint16 mod) {
  SDL_Event e = {0};
  e.type = SDL_KEYDOWN;
  e.key.state = SDL_PRESSED;
  e.key.keysym.sym = sym;
  e.key.keysym.mod = mod;
  return send(a, &e);
}

static void move(ws_viz_app *a, int32_t x, int32_t y) {
  SDL_Event e = {0};
  e.type = SDL_MOUSEMOTION;
  e.motion.x = x;
  e.motion.y = y;
  /* the X pointer goes there too, so the server's own motion agrees */
  SDL_WarpMouseInWindow(ws_viz_app_window(a), x, y);
  send(a, &e);
}

static void click(ws_viz_app *a, int32_t x, int32_t y) {
  SDL_Event e = {0};
  e.type = SDL_MOUSEBUTTONDOWN;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = SDL_PRESSED;
  e.button.x = x;
  e.button.y = y;
  send(a, &e);
  e.type = SDL_MOUSEBUTTONUP;
  e.button.state = SDL_RELEASED;
  send(a, &e);
}

/* The first cycle of launch 0 at which some warp slot issues. */
static bool find_issue(uint64_t *cycle, uint32_t *sm, uint32_t *slot) {
  cr_assert_eq(ws_viz_model_load(model, 0), WS_OK, "%s", ws_errmsg(ctx));
  uint64_t c = 0, end = ws_viz_model_cycles(model);
  while (c <= end) {
    const ws_viz_frame *f = NULL;
    cr_assert_eq(ws_viz_model_frame(model, c, 1, &f), WS_OK);
    for (uint32_t s = 0; s < f->num_sms; s++)
      for (uint32_t w = 0; w < f->warp_slots; w++)
        if (f->warp[(size_t)s * f->warp_slots + w] == WS_VIZ_WARP_ISSUING) {
          *cycle = c;
          *sm = s;
          *slot = w;
          return true;
        }
    uint64_t next = ws_viz_model_next_change(model, c);
    if (next == UINT64_MAX) break;
    c = next;
  }
  return false;
}

static ws_viz_rgb pixel(ws_viz_app *a, int32_t x, int32_t y) {
  SDL_Surface *s = SDL_GetWindowSurface(ws_viz_app_window(a));
  cr_assert_not_null(s, "%s", SDL_GetError());
  SDL_LockSurface(s);
  const uint8_t *p = (const uint8_t *)s->pixels + (size_t)y * s->pitch + (size_t)x * s->format->BytesPerPixel;
  Uint32 v = 0;
  memcpy(&v, p, s->format->BytesPerPixel > 4 ? 4 : s->format->BytesPerPixel);
  SDL_UnlockSurface(s);
  ws_viz_rgb c;
  SDL_GetRGB(v, s->format, &c.r, &c.g, &c.b);
  return c;
}

static ws_viz_app *open_at(uint64_t cycle) {
  ws_viz_app_opts o = {.width = 1024, .height = 700, .has_launch = true, .launch = 0, .cycle = cycle};
  ws_viz_app *a = NULL;
  cr_assert_eq(ws_viz_app_open(ctx, reader, model, &o, &a), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_null(ws_viz_app_message(a), "%s", ws_viz_app_message(a));
  return a;
}

Test(app, keys_move_the_player) {
  ws_viz_app *a = open_at(0);
  const ws_viz_player *p = ws_viz_app_player(a);
  cr_expect_eq(p->launch, 0u);
  cr_expect(!p->playing);
  press(a, SDLK_SPACE, 0);
  cr_expect(p->playing, "space plays");
  ws_viz_app_frame(a, 0.01); /* 1,000 cycles/s: ten cycles */
  cr_expect_eq(p->cycle, 10u, "playing moves by elapsed time x speed");
  press(a, SDLK_SPACE, 0);
  cr_expect(!p->playing, "space pauses");
  uint64_t c = p->cycle;
  press(a, SDLK_RIGHT, 0);
  cr_expect_eq(p->cycle, c + 1, "right arrow: one cycle");
  press(a, SDLK_PERIOD, 0);
  cr_expect_eq(p->cycle, c + 2, "'.': one cycle");
  double speed = ws_viz_player_speed(p);
  press(a, SDLK_PLUS, 0);
  cr_expect_gt(ws_viz_player_speed(p), speed, "'+' is faster");
  press(a, SDLK_MINUS, 0);
  cr_expect_float_eq(ws_viz_player_speed(p), speed, 1e-9, "'-' is slower");
  press(a, SDLK_EQUALS, 0);
  cr_expect_gt(ws_viz_player_speed(p), speed, "'=' is faster too");
  press(a, SDLK_k, 0);
  cr_expect_eq(p->launch, 1u, "k: the next launch");
  cr_expect_eq(p->cycle, 0u);
  press(a, SDLK_k, KMOD_LSHIFT);
  cr_expect_eq(p->launch, 0u, "K: the previous launch");
  cr_expect(!ws_viz_app_help_shown(a));
  press(a, SDLK_QUESTION, 0);
  cr_expect(ws_viz_app_help_shown(a), "'?' shows the help");
  ws_viz_app_frame(a, 0);
  press(a, SDLK_ESCAPE, 0);
  cr_expect(!ws_viz_app_help_shown(a), "Esc closes it");
  SDL_Event q = {.type = SDL_QUIT};
  cr_expect(!send(a, &q), "SDL_QUIT ends the app");
  ws_viz_app_close(a);
}

Test(app, q_quits) {
  ws_viz_app *a = open_at(0);
  cr_expect(!press(a, SDLK_q, 0));
  ws_viz_app_close(a);
}

Test(app, window_shows_an_issuing_warp_and_a_click_selects_it) {
  uint64_t c0;
  uint32_t sm, slot;
  cr_assert(find_issue(&c0, &sm, &slot), "the trace has an issue");
  ws_viz_app *a = open_at(c0);
  const ws_viz_player *p = ws_viz_app_player(a);
  cr_assert_eq(p->cycle, c0);
  ws_viz_app_frame(a, 0);
  ws_viz_rect rc;
  cr_assert(ws_viz_layout_rect(ws_viz_app_layout(a), WS_VIZ_PART_WARP_SLOT, sm, slot, &rc));
  int32_t x = rc.x + rc.w / 2, y = rc.y + rc.h / 2;
  ws_viz_rgb want = ws_viz_palette_warp(WS_VIZ_WARP_ISSUING), got = pixel(a, x, y);
  cr_expect(got.r == want.r && got.g == want.g && got.b == want.b,
            "SM %u slot %u at cycle %lu: window pixel %u,%u,%u, issuing colour %u,%u,%u", sm, slot,
            (unsigned long)c0, got.r, got.g, got.b, want.r, want.g, want.b);
  move(a, x, y);
  ws_viz_app_frame(a, 0);
  cr_expect(strstr(ws_viz_app_tooltip(a), "warp slot") && strstr(ws_viz_app_tooltip(a), "issuing"),
            "tooltip '%s' for SM %u slot %u at %lu (cycle %lu)", ws_viz_app_tooltip(a), sm, slot,
            (unsigned long)c0, (unsigned long)p->cycle);
  click(a, x, y);
  cr_expect(p->have_warp && p->warp_sm == sm && p->warp_slot == slot, "a click selects the slot");
  uint64_t next = ws_viz_model_next_issue(model, sm, slot, c0);
  press(a, SDLK_n, 0);
  if (next != UINT64_MAX && next <= p->end_cycle)
    cr_expect_eq(p->cycle, next, "n lands on the warp's next issue");
  else
    cr_expect_eq(p->launch, 1u, "no next issue: the next launch");
  press(a, SDLK_ESCAPE, 0);
  cr_expect(!p->have_warp, "Esc clears the selection");
  /* z: the SM under the mouse fills the window; x: its banks; g: back */
  move(a, x, y);
  press(a, SDLK_z, 0);
  ws_viz_view v = ws_viz_layout_view(ws_viz_app_layout(a));
  cr_expect_eq(v.zoom, WS_VIZ_ZOOM_SM);
  cr_expect_eq(v.sm, sm);
  ws_viz_app_frame(a, 0);
  press(a, SDLK_x, 0);
  v = ws_viz_layout_view(ws_viz_app_layout(a));
  cr_expect_eq(v.zoom, WS_VIZ_ZOOM_SMEM);
  cr_expect_eq(v.sm, sm);
  ws_viz_app_frame(a, 0);
  press(a, SDLK_g, 0);
  cr_expect_eq(ws_viz_layout_view(ws_viz_app_layout(a)).zoom, WS_VIZ_ZOOM_GPU);
  ws_viz_app_frame(a, 0);
  ws_viz_app_close(a);
}

Test(app, timeline_and_launch_row_seek) {
  ws_viz_app *a = open_at(0);
  const ws_viz_player *p = ws_viz_app_player(a);
  /* the launch row sits above the timeline: its right half is launch 1 */
  click(a, 1024 * 3 / 4, 700 - 24);
  cr_expect_eq(p->launch, 1u, "a click on the second segment jumps to launch 1");
  /* the timeline runs along the bottom: its middle is the launch's middle */
  click(a, 512, 700 - 8);
  cr_expect(p->cycle > p->end_cycle / 4 && p->cycle < p->end_cycle * 3 / 4, "cycle %lu of %lu",
            (unsigned long)p->cycle, (unsigned long)p->end_cycle);
  ws_viz_app_close(a);
}

Test(app, screenshot_key_writes_a_png) {
  char dir[] = "/tmp/ws_app_shot_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  ws_viz_app_opts o = {.width = 800, .height = 600, .shot_dir = dir};
  ws_viz_app *a = NULL;
  cr_assert_eq(ws_viz_app_open(ctx, reader, model, &o, &a), WS_OK, "%s", ws_errmsg(ctx));
  press(a, SDLK_RIGHT, 0);
  press(a, SDLK_p, 0);
  char png[128];
  snprintf(png, sizeof png, "%s/viz-cycle-1.png", dir);
  struct stat st;
  cr_expect_eq(stat(png, &st), 0, "p wrote %s (%s)", png, ws_viz_app_note(a));
  ws_viz_app_close(a);
  unlink(png);
  rmdir(dir);
}

Test(app, a_truncated_trace_shows_its_message) {
  char cut[] = "/tmp/ws_app_cut_XXXXXX";
  int fd = mkstemp(cut);
  cr_assert_geq(fd, 0);
  FILE *in = fopen(path, "rb");
  cr_assert_not_null(in);
  char buf[3000];
  size_t n = fread(buf, 1, sizeof buf, in);
  fclose(in);
  cr_assert_eq(write(fd, buf, n), (ssize_t)n);
  close(fd);
  ws_ctx *c2 = ws_ctx_create();
  ws_wst_reader *r2 = NULL;
  ws_viz_model *m2 = NULL;
  cr_assert_eq(ws_wst_open(c2, cut, &r2), WS_OK, "%s", ws_errmsg(c2));
  cr_assert_eq(ws_viz_model_create(c2, r2, &m2), WS_OK, "%s", ws_errmsg(c2));
  ws_viz_app_opts o = {.width = 800, .height = 600};
  ws_viz_app *a = NULL;
  cr_assert_eq(ws_viz_app_open(c2, r2, m2, &o, &a), WS_OK, "%s", ws_errmsg(c2));
  cr_expect_not_null(ws_viz_app_message(a), "the window shows why");
  static const SDL_Keycode keys[] = {SDLK_SPACE, SDLK_RIGHT, SDLK_n, SDLK_k, SDLK_p, SDLK_z, SDLK_QUESTION};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    press(a, keys[i], 0);
    ws_viz_app_frame(a, 0.05);
  }
  cr_expect_not_null(ws_viz_app_message(a), "still shown after the keys");
  SDL_Event q = {.type = SDL_QUIT};
  cr_expect(!send(a, &q), "and the window closes");
  ws_viz_app_close(a);
  ws_viz_model_destroy(m2);
  ws_wst_close(r2);
  ws_ctx_destroy(c2);
  unlink(cut);
}

/* A flipped byte in a chunk of launch 1: moving there shows the CRC error
 * in the window; launch 0 is still reachable and drawn. */
Test(app, a_damaged_launch_shows_its_message_and_the_others_stay_reachable) {
  size_t nchunks = ws_wst_chunk_count(reader);
  struct stat fst;
  cr_assert_eq(stat(path, &fst), 0);
  uint64_t at = 0;
  for (size_t i = 0; i < nchunks && !at; i++) {
    const ws_wst_chunk_info *c = ws_wst_chunk(reader, i);
    uint64_t end = i + 1 < nchunks ? ws_wst_chunk(reader, i + 1)->offset : (uint64_t)fst.st_size;
    /* a quarter into the payload (past the 48-byte block header): the last
     * chunk ends before the file's index */
    if (c->launch == 1 && c->events && end > c->offset + 96) at = c->offset + 48 + (end - c->offset - 48) / 4;
  }
  cr_assert_gt(at, 0u, "a chunk of launch 1 with a payload");
  char bad[] = "/tmp/ws_app_bad_XXXXXX";
  int fd = mkstemp(bad);
  cr_assert_geq(fd, 0);
  FILE *in = fopen(path, "rb");
  cr_assert_not_null(in);
  unsigned char buf[65536];
  size_t n, off = 0;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
    if (at >= off && at < off + n) buf[at - off] ^= 0x5A;
    cr_assert_eq(write(fd, buf, n), (ssize_t)n);
    off += n;
  }
  fclose(in);
  close(fd);
  ws_ctx *c2 = ws_ctx_create();
  ws_wst_reader *r2 = NULL;
  ws_viz_model *m2 = NULL;
  cr_assert_eq(ws_wst_open(c2, bad, &r2), WS_OK, "%s", ws_errmsg(c2));
  cr_assert_eq(ws_viz_model_create(c2, r2, &m2), WS_OK, "%s", ws_errmsg(c2));
  ws_viz_app_opts o = {.width = 800, .height = 600};
  ws_viz_app *a = NULL;
  cr_assert_eq(ws_viz_app_open(c2, r2, m2, &o, &a), WS_OK, "%s", ws_errmsg(c2));
  cr_expect_null(ws_viz_app_message(a), "launch 0 is intact");
  press(a, SDLK_k, 0);
  ws_viz_app_frame(a, 0.1);
  cr_expect(ws_viz_app_message(a) && strstr(ws_viz_app_message(a), "CRC-32"), "message '%s'",
            ws_viz_app_message(a) ? ws_viz_app_message(a) : "(none)");
  press(a, SDLK_SPACE, 0);
  press(a, SDLK_RIGHT, 0);
  ws_viz_app_frame(a, 0.1);
  press(a, SDLK_k, KMOD_LSHIFT);
  ws_viz_app_frame(a, 0);
  cr_expect_eq(ws_viz_app_player(a)->launch, 0u);
  cr_expect_null(ws_viz_app_message(a), "back on launch 0, drawn again");
  ws_viz_app_close(a);
  ws_viz_model_destroy(m2);
  ws_wst_close(r2);
  ws_ctx_destroy(c2);
  unlink(bad);
}

/* ---- pixel mode ------------------------------------------------------------------------------------- */

/* The stop shown is the walk's: the player at its launch and cycle, the
 * layout its view. */
static void expect_at_stop(ws_viz_app *a, const ws_viz_walk *w, size_t i) {
  size_t stop = SIZE_MAX;
  cr_assert(ws_viz_app_walk(a, &stop), "pixel mode is on");
  cr_expect_eq(stop, i);
  const ws_viz_walk_stop *s = ws_viz_walk_at(w, i);
  const ws_viz_player *p = ws_viz_app_player(a);
  cr_expect_eq(p->launch, s->launch, "stop %zu: launch", i);
  cr_expect_eq(p->cycle, s->cycle, "stop %zu: cycle", i);
  ws_viz_view v = ws_viz_layout_view(ws_viz_app_layout(a));
  cr_expect(v.zoom == s->view.zoom && (v.zoom == WS_VIZ_ZOOM_GPU || v.sm == s->view.sm), "stop %zu: view", i);
}

/* The ring is on the window at the layout's rectangle of the stop's part. */
static void expect_ring_shown(ws_viz_app *a, const ws_viz_walk *w, size_t i) {
  ws_viz_app_frame(a, 0);
  ws_viz_rect rc;
  cr_assert(ws_viz_walk_rect(w, i, ws_viz_app_layout(a), &rc));
  ws_viz_rect o = ws_viz_ledger_ring(rc);
  int32_t x = o.x + o.w - 2, y = o.y + o.h / 2;
  ws_viz_rgb got = pixel(a, x, y), want = WS_VIZ_LEDGER_RING_RGB;
  cr_expect(got.r == want.r && got.g == want.g && got.b == want.b, "stop %zu: (%d,%d) is #%02x%02x%02x", i, x,
            y, got.r, got.g, got.b);
}

Test(app, walk_keys_follow_the_pixel_hop_by_hop) {
  char fp[] = "/tmp/ws_app_walk_XXXXXX";
  int fd = mkstemp(fp);
  cr_assert_geq(fd, 0);
  close(fd);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' run --gpu classroom --follow-pixel 12,7 --trace '%s' > /dev/null 2>&1",
           WS_CLI, fp);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  ws_ctx *c2 = ws_ctx_create();
  ws_wst_reader *r2 = NULL;
  ws_viz_model *m2 = NULL;
  ws_viz_walk *w = NULL;
  cr_assert_eq(ws_wst_open(c2, fp, &r2), WS_OK, "%s", ws_errmsg(c2));
  cr_assert_eq(ws_viz_model_create(c2, r2, &m2), WS_OK, "%s", ws_errmsg(c2));
  cr_assert_eq(ws_viz_walk_create(c2, r2, ws_viz_model_cfg(m2), &w), WS_OK, "%s", ws_errmsg(c2));
  cr_assert_gt(ws_viz_walk_count(w), 10);
  ws_viz_app_opts o = {.width = 1280, .height = 860};
  ws_viz_app *a = NULL;
  cr_assert_eq(ws_viz_app_open(c2, r2, m2, &o, &a), WS_OK, "%s", ws_errmsg(c2));
  size_t stop;
  cr_expect(!ws_viz_app_walk(a, &stop), "off until asked for");
  press(a, SDLK_j, 0);
  expect_at_stop(a, w, 0);
  expect_ring_shown(a, w, 0);
  /* on to the first stop inside an SM: the view zooms into it */
  size_t i = 0;
  while (i + 1 < ws_viz_walk_count(w) && ws_viz_walk_at(w, i)->view.zoom != WS_VIZ_ZOOM_SM) {
    press(a, SDLK_j, 0);
    expect_at_stop(a, w, ++i);
  }
  cr_assert_eq(ws_viz_walk_at(w, i)->view.zoom, WS_VIZ_ZOOM_SM);
  expect_ring_shown(a, w, i);
  press(a, SDLK_j, KMOD_LSHIFT);
  expect_at_stop(a, w, i - 1);
  cr_expect_eq(ws_viz_layout_view(ws_viz_app_layout(a)).zoom, ws_viz_walk_at(w, i - 1)->view.zoom,
               "J: back, and the view with it");
  /* playing, the ledger follows the pixel to the last hop it has made */
  press(a, SDLK_SPACE, 0);
  ws_viz_app_frame(a, 0.5);
  const ws_viz_player *p = ws_viz_app_player(a);
  cr_assert(ws_viz_app_walk(a, &stop));
  const ws_viz_walk_stop *at = ws_viz_walk_at(w, stop);
  cr_expect(at->launch < p->launch || (at->launch == p->launch && at->cycle <= p->cycle),
            "stop %zu is not ahead of the player", stop);
  if (stop + 1 < ws_viz_walk_count(w)) {
    const ws_viz_walk_stop *nx = ws_viz_walk_at(w, stop + 1);
    cr_expect(nx->launch > p->launch || (nx->launch == p->launch && nx->cycle > p->cycle),
              "stop %zu: the next stop is still ahead", stop);
  }
  cr_expect_geq(stop, i - 1, "playback moves the ledger on, never back");
  press(a, SDLK_SPACE, 0);
  press(a, SDLK_w, 0);
  cr_expect(!ws_viz_app_walk(a, &stop), "w: off");
  press(a, SDLK_QUESTION, 0);
  ws_viz_app_frame(a, 0);
  ws_viz_app_close(a);
  /* opened in pixel mode (run --follow-pixel --viz, viz --walk --hop N) */
  o.walk = true;
  o.walk_stop = ws_viz_walk_count(w) - 1;
  cr_assert_eq(ws_viz_app_open(c2, r2, m2, &o, &a), WS_OK, "%s", ws_errmsg(c2));
  expect_at_stop(a, w, o.walk_stop);
  press(a, SDLK_j, 0);
  expect_at_stop(a, w, o.walk_stop); /* the last stop stays */
  ws_viz_app_close(a);
  ws_viz_walk_destroy(w);
  ws_viz_model_destroy(m2);
  ws_wst_close(r2);
  ws_ctx_destroy(c2);
  unlink(fp);
}

Test(app, walk_keys_on_a_trace_without_a_journey_say_so) {
  ws_viz_app *a = open_at(0);
  press(a, SDLK_j, 0);
  size_t stop;
  cr_expect(!ws_viz_app_walk(a, &stop));
  cr_expect(strstr(ws_viz_app_note(a), "no journey") != NULL, "note '%s'", ws_viz_app_note(a));
  press(a, SDLK_w, 0);
  cr_expect(!ws_viz_app_walk(a, &stop));
  ws_viz_app_frame(a, 0);
  ws_viz_app_close(a);
}
