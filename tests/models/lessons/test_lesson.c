/* test_lesson.c - every lesson runs to the end on its preset and every
 * number it states agrees with the value first principles give (the lesson
 * derives each from the preset and the kernel, never from the simulator);
 * the registry and the agreement rule behave.
 *
 * Design: one test per lesson, so a lesson that breaks names itself. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "models/lessons/lesson.h"

static void teach(const char *name, size_t min_figures) {
  const ws_lesson *l = ws_lesson_find(name);
  cr_assert_not_null(l, "lesson %s", name);
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  cr_assert_eq(ws_config_load_preset(ctx, l->gpu, &cfg), WS_OK);
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_device_set_mode(dev, WS_MODE_TIMING);
  ws_lesson_result r;
  memset(&r, 0, sizeof r);
  ws_runtime *rt = NULL;
  if (l->uses_runtime) cr_assert_eq(ws_runtime_create(dev, &rt), WS_OK);
  ws_lesson_ctx lc = {dev, ctx, rt};
  cr_assert_eq(l->run(&lc, &r), WS_OK, "%s: %s", name, ws_errmsg(ctx));
  if (rt) { /* every kernel the lesson ran is on its timeline */
    size_t n, kernels = 0;
    const ws_runtime_record *recs = ws_runtime_timeline(rt, &n);
    for (size_t i = 0; i < n; i++) kernels += recs[i].kind == WS_RUNTIME_OP_KERNEL;
    cr_expect_gt(kernels, 0, "%s: its timeline holds its kernels", name);
  }
  cr_expect_geq(r.nfigs, min_figures, "%s: %zu numbers", name, r.nfigs);
  size_t predicted = 0;
  for (size_t i = 0; i < r.nfigs; i++) {
    const ws_lesson_figure *f = &r.figs[i];
    predicted += f->has_expected;
    cr_expect(ws_lesson_figure_agrees(f, 1e-9), "%s: %s: simulated %.9g, predicted %.9g (%s)", name, f->label,
              f->value, f->expected, f->why);
    cr_expect_neq(f->why[0], '\0', "%s: %s says why", name, f->label);
  }
  cr_expect_gt(predicted, 0, "%s: states something first principles predict", name);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

Test(lesson, threads) { teach("threads", 5); }
Test(lesson, coalescing) { teach("coalescing", 11); }
Test(lesson, bank_conflicts) { teach("bank-conflicts", 14); }
Test(lesson, occupancy) { teach("occupancy", 15); }
Test(lesson, gemm_ladder) { teach("gemm-ladder", 26); }
Test(lesson, attention) { teach("attention", 12); }
Test(lesson, pcie) { teach("pcie", 19); }
Test(lesson, journey) { teach("journey", 12); }
Test(lesson, pipelining) { teach("pipelining", 5); }
Test(lesson, unified) { teach("unified", 13); }

Test(lesson, registry_names_each_lesson_once_with_its_texts) {
  size_t n = 0;
  for (const ws_lesson *const *l = ws_lesson_all(); *l; l++, n++) {
    cr_expect_eq(ws_lesson_find((*l)->name), *l);
    cr_expect((*l)->title[0] && (*l)->intro[0] && (*l)->look[0] && (*l)->seed[0], "%s", (*l)->name);
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg cfg;
    cr_expect_eq(ws_config_load_preset(ctx, (*l)->gpu, &cfg), WS_OK, "%s runs on a preset", (*l)->name);
    ws_ctx_destroy(ctx);
  }
  cr_expect_geq(n, 9);
  cr_expect_null(ws_lesson_find("no-such-lesson"));
}

Test(lesson, agreement_is_relative_above_one_and_absolute_below) {
  ws_lesson_figure f = {.value = 1000.5, .has_expected = true, .expected = 1000};
  cr_expect(ws_lesson_figure_agrees(&f, 1e-3));
  cr_expect(!ws_lesson_figure_agrees(&f, 1e-4));
  f.value = 0.3, f.expected = 0.25;
  cr_expect(!ws_lesson_figure_agrees(&f, 1e-2), "0.05 off with a scale of 1");
  cr_expect(ws_lesson_figure_agrees(&f, 0.1));
  f.has_expected = false;
  cr_expect(ws_lesson_figure_agrees(&f, 0), "a figure without a prediction only shows");
}
