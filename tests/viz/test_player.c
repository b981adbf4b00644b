/* test_player.c - the visualizer's playback and steps (viz/player.h) over a
 * real trace of two launches: the speed ladder, playing across a launch's
 * end, pausing at the trace's end, and the cycle, instruction and kernel
 * steps landing where the replay model says. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "tests/support/wstrec.h"
#include "viz/player.h"

static char path[] = "/tmp/ws_player_XXXXXX";
static ws_ctx *ctx;
static ws_wst_reader *reader;
static ws_viz_model *model;

/* Two launches of saxpy on the classroom preset, one trace. */
static void setup(void) {
  ctx = ws_ctx_create();
  wstrec_tmpfile(path);
  ws_example_shape shape = ws_example_default_shape("saxpy");
  shape.n = 2048;
  wstrec_example(ctx, path, "classroom", "saxpy", &shape, 2);
  cr_assert_eq(ws_wst_open(ctx, path, &reader), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_viz_model_create(ctx, reader, &model), WS_OK, "%s", ws_errmsg(ctx));
}

static void teardown(void) {
  ws_viz_model_destroy(model);
  ws_wst_close(reader);
  unlink(path);
  ws_ctx_destroy(ctx);
}

TestSuite(player, .init = setup, .fini = teardown);

Test(player, starts_paused_and_speeds_move_on_a_1_2_5_ladder) {
  ws_viz_player p;
  cr_assert_eq(ws_viz_player_init(&p, ctx, reader, model), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(p.launches, 2u);
  cr_expect_eq(p.launch, 0u);
  cr_expect_eq(p.cycle, 0u);
  cr_expect(!p.playing);
  cr_expect_eq(p.end_cycle, ws_wst_launch(reader, 0)->cycles);
  cr_expect_float_eq(ws_viz_player_speed(&p), 1000.0, 1e-9);
  ws_viz_player_faster(&p);
  cr_expect_float_eq(ws_viz_player_speed(&p), 2000.0, 1e-9);
  ws_viz_player_faster(&p);
  cr_expect_float_eq(ws_viz_player_speed(&p), 5000.0, 1e-9);
  for (int i = 0; i < 40; i++) ws_viz_player_slower(&p);
  cr_expect_float_eq(ws_viz_player_speed(&p), 1.0, 1e-9, "the slowest is one cycle a second");
  for (int i = 0; i < 40; i++) ws_viz_player_faster(&p);
  cr_expect_float_eq(ws_viz_player_speed(&p), 1e8, 1, "the fastest, 10^8");
}

Test(player, plays_across_a_launch_and_pauses_at_the_end) {
  ws_viz_player p;
  cr_assert_eq(ws_viz_player_init(&p, ctx, reader, model), WS_OK);
  cr_expect_eq(ws_viz_player_advance(&p, 1.0), WS_OK);
  cr_expect_eq(p.cycle, 0u, "paused: time does not move it");
  ws_viz_player_toggle(&p);
  cr_expect_eq(ws_viz_player_advance(&p, 0.25), WS_OK);
  cr_expect_eq(p.cycle, 250u, "a quarter second at 1,000 cycles a second");
  cr_expect_eq(ws_viz_player_advance(&p, 0.0005), WS_OK);
  cr_expect_eq(ws_viz_player_advance(&p, 0.0005), WS_OK);
  cr_expect_eq(p.cycle, 251u, "fractions of a cycle add up");
  uint64_t end0 = p.end_cycle;
  cr_expect_eq(ws_viz_player_advance(&p, (double)end0 / 1000.0), WS_OK);
  cr_expect_eq(p.launch, 1u, "past the first launch's end: the second, from its start");
  cr_expect_eq(p.cycle, 0u);
  cr_expect_eq(ws_viz_model_launch(model), 1u);
  cr_expect_eq(ws_viz_player_advance(&p, 1e6), WS_OK);
  cr_expect_eq(p.cycle, p.end_cycle, "the trace's end");
  cr_expect(!p.playing, "and paused there");
  ws_viz_player_toggle(&p);
  cr_expect_eq(p.cycle, 0u, "play again from the start of the launch");
}

Test(player, steps_land_where_the_model_says) {
  ws_viz_player p;
  cr_assert_eq(ws_viz_player_init(&p, ctx, reader, model), WS_OK);
  cr_expect_eq(ws_viz_player_step_cycle(&p), WS_OK);
  cr_expect_eq(p.cycle, 1u);
  uint64_t want = ws_viz_model_next_change(model, 1);
  cr_expect_eq(ws_viz_player_step_insn(&p), WS_OK);
  cr_expect_eq(p.cycle, want, "no warp selected: the next change");
  /* a warp that issues: the first slot of SM 0 holding a warp at the cycle */
  const ws_viz_frame *f = NULL;
  cr_assert_eq(ws_viz_model_frame(model, 200, 1, &f), WS_OK);
  uint32_t slot = UINT32_MAX;
  for (uint32_t i = 0; i < f->warp_slots && slot == UINT32_MAX; i++)
    if (f->warp[i] != WS_VIZ_WARP_EMPTY && f->warp[i] != WS_VIZ_WARP_DONE) slot = i;
  cr_assert_neq(slot, UINT32_MAX, "a resident warp on SM 0 at cycle 200");
  ws_viz_player_select_warp(&p, 0, slot);
  cr_assert_eq(ws_viz_player_seek(&p, 0, 200), WS_OK);
  want = ws_viz_model_next_issue(model, 0, slot, 200);
  cr_expect_eq(ws_viz_player_step_insn(&p), WS_OK);
  cr_expect_eq(p.cycle, want, "the selected warp's next issue");
  cr_assert_eq(ws_viz_model_frame(model, p.cycle, 1, &f), WS_OK);
  cr_expect_eq(f->warp[slot], WS_VIZ_WARP_ISSUING, "shown issuing at that cycle");
  cr_expect_eq(ws_viz_player_step_kernel(&p), WS_OK);
  cr_expect_eq(p.launch, 1u);
  cr_expect_eq(p.cycle, 0u);
  cr_expect_eq(ws_viz_player_step_kernel(&p), WS_OK);
  cr_expect_eq(p.launch, 1u, "no launch after the last");
  cr_expect_eq(p.cycle, p.end_cycle);
}
