/* lesson.h - guided classroom lessons: each runs a small simulation that
 * shows one concept of the seeds (the thread hierarchy, coalescing, bank
 * conflicts, occupancy, overlapping copies with compute) and returns the
 * numbers that matter, each beside the value first principles predict.
 *
 * Design: a lesson is data (its name, title, the seed it comes from, the
 * explanation, what to look at in the window) and one function that runs
 * on a device the caller made, so the caller decides where its launches go
 * (a trace for the visualizer, or nowhere). Every figure carries its
 * expected value and the reasoning behind it, so the command can print the
 * comparison and the tests can hold each lesson to it. Nothing here prints. */
#ifndef WS_LESSON_H
#define WS_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/host/device.h"
#include "sim/host/runtime.h"

#define WS_LESSON_LABEL_BYTES 80
#define WS_LESSON_WHY_BYTES 200
#define WS_LESSON_MAX_FIGURES 32
#define WS_LESSON_NO_PICTURE UINT32_MAX

/* One number a lesson states: what the simulator measured, and what first
 * principles predict (has_expected false for a figure that only shows,
 * such as a cycle count, whose value is the timing model's). */
typedef struct ws_lesson_figure {
  char label[WS_LESSON_LABEL_BYTES]; /* "sectors per warp load, stride 2" */
  double value;
  bool has_expected;
  double expected;
  char why[WS_LESSON_WHY_BYTES]; /* how the expected value follows: "2 x 32 lanes x 4 B / 32 B" */
} ws_lesson_figure;

typedef struct ws_lesson_result {
  ws_lesson_figure figs[WS_LESSON_MAX_FIGURES];
  size_t nfigs;
} ws_lesson_result;

/* What a lesson needs besides the device it runs on. */
typedef struct ws_lesson_ctx {
  ws_device *dev; /* a fresh device on the lesson's preset, timing mode */
  ws_ctx *ctx;
  /* for a lesson with uses_runtime: a runtime on dev that every copy and
   * kernel of the lesson goes on, so its timeline (and the visualizer's run
   * row) shows them; NULL otherwise */
  ws_runtime *rt;
} ws_lesson_ctx;

typedef struct ws_lesson {
  const char *name;  /* "coalescing" */
  const char *title; /* one line */
  const char *seed;  /* the seed document it teaches: "seed 002" */
  const char *gpu;   /* the preset it runs on */
  const char *intro; /* the explanation, paragraphs separated by a blank line */
  const char *look;  /* what to look at in the window, and which launch */
  /* the picture --screenshot draws and the launch --viz opens at: launch
   * (0-based, WS_LESSON_NO_PICTURE when the lesson's story is a timeline the
   * window's run row shows from another command), cycle, and zoom ("gpu",
   * "sm:N", "smem:N") */
  uint32_t look_launch;
  uint64_t look_cycle;
  const char *look_zoom;
  ws_status (*run)(const ws_lesson_ctx *lc, ws_lesson_result *out);
  /* the lesson's story is a timeline: it needs lc->rt (a runtime keeps the
   * L2 between kernels, which the other lessons must not have) */
  bool uses_runtime;
  /* it follows a value (ws_device_set_follow): a trace it records keeps the
   * value's journey, --viz opens the window in pixel mode, and the picture
   * is the hop look_cycle of the walk */
  bool follows;
} ws_lesson;

/* Every lesson, in teaching order, NULL-terminated. */
const ws_lesson *const *ws_lesson_all(void);
/* The lesson named `name`, or NULL. */
const ws_lesson *ws_lesson_find(const char *name);

/* A figure's measured value within `tol` (relative, or absolute below 1) of
 * its expected value; a figure without one always agrees. */
bool ws_lesson_figure_agrees(const ws_lesson_figure *f, double tol);

#endif
