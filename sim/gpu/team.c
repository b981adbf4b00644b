/* team.c - a run's items in one queue per thread, each claimed one at a
 * time from an atomic word; workers that spin briefly, then sleep until the
 * next run.
 *
 * Design: a queue's word `claim` holds the run's number (high 32 bits) and
 * its next unclaimed item (low 32). A thread claims an item with a
 * compare-and-swap that names the run, so a worker that wakes late, after
 * its run is over, claims nothing. Before the caller refills the queues it
 * closes them (next item = CLOSED), so a worker that read a queue's size
 * just before cannot claim from the refill either. The caller publishes a
 * run (function, argument, queues, then `run`), does its own queue and
 * then any other's, and waits only until every item is done, not for the
 * workers to turn up: on a host whose other cores are busy, a worker that
 * is not running costs the caller nothing but its share. A worker about to
 * sleep counts itself in `sleepers` under the mutex and looks at `run`
 * again; the caller publishes before it reads `sleepers` (both sequentially
 * consistent), so either the worker sees the new run or the caller sees
 * the sleeper and wakes it. */
#include "sim/gpu/team.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Polls of `run` before a worker sleeps: about a millisecond on this class
 * of host, far longer than the serial part between two cycles, since a
 * sleeping worker wakes too late for its cycle (a futex wake in a virtual
 * machine takes tens of microseconds) and the caller then does its share */
#define SPIN_POLLS 400000u
#define CLOSED UINT32_MAX

/* One thread's queue, on cache lines of its own: its owner claims from it
 * every run, the others only when they have finished theirs. */
typedef struct queue {
  _Alignas(64) _Atomic uint64_t claim; /* run << 32 | next item */
  _Atomic uint32_t n;                  /* items in it this run */
  _Atomic uint32_t done;               /* of them finished */
  uint32_t *items;
} queue;

struct ws_team {
  uint32_t nthreads;
  uint32_t nstarted; /* workers running */
  pthread_t *tid;
  queue *q; /* one per thread, the caller's first */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  _Alignas(64) _Atomic uint64_t run;
  _Atomic uint32_t sleepers;
  atomic_bool stop;
  /* the current run: written by the caller before it publishes `run` */
  ws_team_fn fn;
  void *user;
};

typedef struct worker_arg {
  ws_team *t;
  uint32_t self;
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Claims and does the items of queue q in run `run` while any are left. */
static void drain(ws_team *t, queue *q, uint64_t run, uint32_t self) {
  uint64_t w = atomic_load_explicit(&q->claim, memory_order_acquire);
  while (w >> 32 == run && (uint32_t)w < atomic_load_explicit(&q->n, memory_order_relaxed)) {
    if (!atomic_compare_exchange_weak_explicit(&q->claim, &w, w + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    t->fn(t->user, q->items[(uint32_t)w], self);
    atomic_fetch_add_explicit(&q->done, 1, memory_order_release);
    w = atomic_load_explicit(&q->claim, memory_order_acquire);
  }
}

/* Its own queue first, then the others' in turn. */
static void work(ws_team *t, uint64_t run, uint32_t self) {
  for (uint32_t k = 0; k < t->nthreads; k++) drain(t, &t->q[(self + k) % t->nthreads], run, self);
}

/* Waits until the run differs from `seen`; returns the new one's number,
 * or UINT64_MAX when the team is stopping. */
static uint64_t await_run(ws_team *t, uint64_t seen) {
  for (uint32_t i = 0;; i++) {
    uint64_t run = atomic_load_explicit(&t->run, memory_order_acquire);
    if (atomic_load_explicit(&t->stop, memory_order_acquire)) return UINT64_MAX;
    if (run != seen) return run;
    if (i < SPIN_POLLS) {
      cpu_relax();
      continue;
    }
    pthread_mutex_lock(&t->mu);
    atomic_fetch_add(&t->sleepers, 1);
    while (atomic_load(&t->run) == seen && !atomic_load(&t->stop)) pthread_cond_wait(&t->cv, &t->mu);
    atomic_fetch_sub(&t->sleepers, 1);
    pthread_mutex_unlock(&t->mu);
    i = 0;
  }
}

static void *worker(void *arg) {
  worker_arg a = *(worker_arg *)arg;
  free(arg);
  for (uint64_t run = 0; (run = await_run(a.t, run)) != UINT64_MAX;) work(a.t, run, a.self);
  return NULL;
}

static void wake_all(ws_team *t) {
  pthread_mutex_lock(&t->mu);
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

static bool start_worker(ws_team *t, uint32_t self) {
  worker_arg *a = malloc(sizeof *a);
  if (!a) return false;
  *a = (worker_arg){t, self};
  if (pthread_create(&t->tid[self - 1], NULL, worker, a) == 0) return true;
  free(a);
  return false;
}

static bool alloc_queues(ws_team *t, uint32_t max_items) {
  t->q = aligned_alloc(64, t->nthreads * sizeof *t->q);
  if (!t->q) return false;
  for (uint32_t k = 0; k < t->nthreads; k++) {
    t->q[k] = (queue){.items = calloc(max_items ? max_items : 1, sizeof *t->q[k].items)};
    atomic_init(&t->q[k].claim, (uint64_t)CLOSED);
    if (!t->q[k].items) return false;
  }
  return true;
}

ws_status ws_team_create(ws_ctx *ctx, uint32_t threads, uint32_t max_items, ws_team **out) {
  if (threads < 2 || threads > WS_TEAM_MAX_THREADS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a team has 2 to %u host threads, not %u", WS_TEAM_MAX_THREADS,
                       threads);
  ws_team *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
  if (!t) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating %u host threads", threads);
  *t = (ws_team){.nthreads = threads};
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->cv, NULL);
  t->tid = calloc(threads - 1, sizeof *t->tid);
  if (!t->tid || !alloc_queues(t, max_items)) {
    ws_team_destroy(t);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating %u host threads", threads);
  }
  while (t->nstarted < threads - 1 && start_worker(t, t->nstarted + 1)) t->nstarted++;
  if (t->nstarted == threads - 1) {
    *out = t;
    return WS_OK;
  }
  ws_team_destroy(t);
  return ws_ctx_fail(ctx, WS_ERR_NOMEM, "could not start %u host threads", threads);
}

void ws_team_destroy(ws_team *t) {
  if (!t) return;
  atomic_store(&t->stop, true);
  wake_all(t);
  for (uint32_t i = 0; i < t->nstarted; i++) pthread_join(t->tid[i], NULL);
  pthread_cond_destroy(&t->cv);
  pthread_mutex_destroy(&t->mu);
  for (uint32_t k = 0; t->q && k < t->nthreads; k++) free(t->q[k].items);
  free(t->q);
  free(t->tid);
  free(t);
}

uint32_t ws_team_threads(const ws_team *t) { return t->nthreads; }

/* Closes every queue of the run just over, then fills them for `run`. */
static void fill_queues(ws_team *t, uint64_t run, const uint32_t *keys, uint32_t items) {
  for (uint32_t k = 0; k < t->nthreads; k++) {
    queue *q = &t->q[k];
    atomic_store(&q->claim, (run - 1) << 32 | CLOSED);
    atomic_store_explicit(&q->n, 0, memory_order_relaxed);
    atomic_store_explicit(&q->done, 0, memory_order_relaxed);
  }
  for (uint32_t i = 0; i < items; i++) {
    queue *q = &t->q[keys[i] % t->nthreads];
    uint32_t n = atomic_load_explicit(&q->n, memory_order_relaxed);
    q->items[n] = i;
    atomic_store_explicit(&q->n, n + 1, memory_order_relaxed);
  }
  for (uint32_t k = 0; k < t->nthreads; k++)
    atomic_store_explicit(&t->q[k].claim, run << 32, memory_order_release);
}

static uint32_t done_items(ws_team *t) {
  uint32_t done = 0;
  for (uint32_t k = 0; k < t->nthreads; k++)
    done += atomic_load_explicit(&t->q[k].done, memory_order_acquire);
  return done;
}

void ws_team_run(ws_team *t, ws_team_fn fn, void *user, const uint32_t *keys, uint32_t items) {
  uint64_t run = atomic_load_explicit(&t->run, memory_order_relaxed) + 1;
  t->fn = fn;
  t->user = user;
  fill_queues(t, run, keys, items);
  atomic_store(&t->run, run);
  if (atomic_load(&t->sleepers)) wake_all(t);
  work(t, run, 0);
  /* what is left is an item a worker claimed and is doing */
  for (uint32_t spins = 0; done_items(t) < items;)
    if (++spins % 4096 == 0)
      sched_yield(); /* that worker was preempted: let it run */
    else
      cpu_relax();
}
