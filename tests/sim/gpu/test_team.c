/* test_team.c - the host threads a cycle's work is shared out on: every
 * item of every run done exactly once, whatever the keys, and bad team
 * sizes refused. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "sim/gpu/team.h"

enum { MAX_ITEMS = 200, RUNS = 3000 };

typedef struct tally {
  _Atomic uint32_t times[MAX_ITEMS];
  _Atomic uint32_t bad_thread;
  uint32_t threads;
} tally;

static void count(void *user, uint32_t item, uint32_t thread) {
  tally *t = user;
  atomic_fetch_add(&t->times[item], 1);
  if (thread >= t->threads) atomic_fetch_add(&t->bad_thread, 1);
}

static void runs_do_every_item_once(uint32_t threads) {
  ws_team *team = NULL;
  cr_assert_eq(ws_team_create(NULL, threads, MAX_ITEMS, &team), WS_OK);
  cr_expect_eq(ws_team_threads(team), threads);
  static tally t;
  uint32_t keys[MAX_ITEMS];
  uint32_t seed = 12345;
  for (uint32_t r = 0; r < RUNS; r++) {
    memset(&t, 0, sizeof t);
    t.threads = threads;
    seed = seed * 1664525u + 1013904223u;
    uint32_t n = (seed >> 8) % (MAX_ITEMS + 1);                  /* 0 items too */
    for (uint32_t i = 0; i < n; i++) keys[i] = (i * 7 + r) % 13; /* uneven: some threads get more */
    ws_team_run(team, count, &t, keys, n);
    for (uint32_t i = 0; i < MAX_ITEMS; i++)
      cr_assert_eq(atomic_load(&t.times[i]), i < n ? 1u : 0u, "run %u item %u of %u", r, i, n);
    cr_assert_eq(atomic_load(&t.bad_thread), 0);
  }
  ws_team_destroy(team);
}

Test(team, every_item_of_every_run_is_done_once_on_two_threads) { runs_do_every_item_once(2); }

Test(team, every_item_of_every_run_is_done_once_on_five_threads) { runs_do_every_item_once(5); }

Test(team, a_team_needs_two_to_the_most_threads) {
  ws_ctx *ctx = ws_ctx_create();
  ws_team *team = NULL;
  cr_expect_eq(ws_team_create(ctx, 1, 8, &team), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "a team has 2 to 64 host threads, not 1");
  cr_expect_eq(ws_team_create(ctx, WS_TEAM_MAX_THREADS + 1, 8, &team), WS_ERR_INVALID);
  cr_expect_null(team);
  ws_ctx_destroy(ctx);
}
