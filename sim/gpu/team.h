/* team.h - host threads that share out one simulated cycle's work.
 *
 * Design: a timed launch visits millions of cycles, and in each the SMs'
 * issue stages can run at once (sim/gpu/engine.c). Starting threads per
 * cycle would cost more than the work, so a team's threads live as long as
 * the engine and wait between runs: they spin a few tens of microseconds
 * (the serial part between two cycles is shorter than that) and then sleep
 * on a condition variable, so an idle or slow engine does not hold a core.
 * The caller takes part in every run. An item goes to the thread its key
 * names (key mod threads), so that one SM's state stays in one core's
 * caches from cycle to cycle; a thread done with its own items takes those
 * of a thread that has not come (preempted, on a busy host). Which thread
 * does an item is thus left to chance: the caller's results must not
 * depend on it, and the engine's do not, since each item touches only its
 * own SM. */
#ifndef WS_TEAM_H
#define WS_TEAM_H

#include <stdint.h>

#include "base/ctx.h"

#define WS_TEAM_MAX_THREADS 64

typedef struct ws_team ws_team;

/* Does item `item` of a run; called once per item, from any thread;
 * `thread` (< ws_team_threads) tells which, for per-thread scratch. */
typedef void (*ws_team_fn)(void *user, uint32_t item, uint32_t thread);

/* A team of `threads` host threads, the caller counted (2 or more), for
 * runs of at most max_items items. */
ws_status ws_team_create(ws_ctx *ctx, uint32_t threads, uint32_t max_items, ws_team **out);
void ws_team_destroy(ws_team *t);
uint32_t ws_team_threads(const ws_team *t);

/* Runs fn(user, i, thread) for every i < items on the team, item i
 * preferably on thread keys[i] mod threads (the caller is thread 0);
 * returns when all are done, their writes visible to the caller. items is
 * at most the `max_items` the team was created for. */
void ws_team_run(ws_team *t, ws_team_fn fn, void *user, const uint32_t *keys, uint32_t items);

#endif
