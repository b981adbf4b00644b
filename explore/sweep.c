/* sweep.c - the sweep engine: a queue of point indices, worker threads,
 * and a coordinating thread that writes the output and reports progress.
 *
 * Design: workers share one mutex-guarded cursor into the point list and
 * store each result at its point's index; the caller's thread waits on a
 * condition variable (with a timeout, to poll the interrupt flag and keep
 * the progress alive) and is the only one that writes files or calls back,
 * so the callback needs no locking. The simulator keeps no mutable globals
 * (every point builds its own device), so points run concurrently with a
 * ws_ctx per worker. Wall time is read for progress, for pacing the
 * flushes and for each point's cost, which reaches a record only with the
 * cost columns (ws_sweep_set_cost). */
#include "explore/sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/text.h"
#include "explore/cost.h"
#include "explore/record.h"

/* More workers than this is a mistake in the flag, not a machine. */
#define JOBS_MAX 1024u
/* How often the coordinator wakes without a finished point (seconds). */
#define POLL_S 0.1

struct ws_sweep {
  ws_point *points;
  ws_point_result *results;
  bool *have; /* results[i] holds point i's result */
  bool *adopted;
  size_t n;
  bool cost; /* the outputs hold the cost columns */
};

ws_status ws_sweep_create(ws_ctx *ctx, const ws_point *points, size_t n, ws_sweep **out) {
  *out = NULL;
  if (n > WS_RECORD_ROWS_MAX)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "a sweep of %zu points: at most %u", n, WS_RECORD_ROWS_MAX);
  ws_sweep *s = calloc(1, sizeof *s);
  size_t m = n ? n : 1;
  if (s) {
    s->points = malloc(m * sizeof *s->points);
    s->results = calloc(m, sizeof *s->results);
    s->have = calloc(m, sizeof *s->have);
    s->adopted = calloc(m, sizeof *s->adopted);
  }
  if (!s || !s->points || !s->results || !s->have || !s->adopted) {
    ws_sweep_destroy(s);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "a sweep of %zu points: out of memory", n);
  }
  /* resolved, so that a resumed record (which holds resolved tiles) finds its point */
  for (size_t i = 0; i < n; i++) ws_point_resolve_tiles(&points[i], &s->points[i]);
  s->n = n;
  *out = s;
  return WS_OK;
}

void ws_sweep_destroy(ws_sweep *s) {
  if (!s) return;
  free(s->adopted);
  free(s->have);
  free(s->results);
  free(s->points);
  free(s);
}

void ws_sweep_set_cost(ws_sweep *s, bool cost) { s->cost = cost; }

size_t ws_sweep_count(const ws_sweep *s) { return s->n; }
const ws_point *ws_sweep_point(const ws_sweep *s, size_t i) { return i < s->n ? &s->points[i] : NULL; }
const ws_point_result *ws_sweep_result(const ws_sweep *s, size_t i) {
  return i < s->n && s->have[i] ? &s->results[i] : NULL;
}

/* ---- resume ---------------------------------------------------------------------------- */

/* A total order on points for matching records to them by binary search:
 * any order works as long as equal points (ws_record_point_equal) compare
 * equal. */
/* The kernel kind's fields, in the order cmp_point takes them. */
static int cmp_kernel(const ws_point *a, const ws_point *b) {
  int c = strncmp(a->kernel, b->kernel, WS_POINT_KERNEL_MAX);
  if (c) return c;
  const uint64_t va[] = {a->ndefines, a->grid[0],  a->grid[1],      a->grid[2],    a->block[0],
                         a->block[1], a->block[2], a->shared_bytes, a->inputs_hash};
  const uint64_t vb[] = {b->ndefines, b->grid[0],  b->grid[1],      b->grid[2],    b->block[0],
                         b->block[1], b->block[2], b->shared_bytes, b->inputs_hash};
  for (size_t i = 0; i < sizeof va / sizeof va[0]; i++)
    if (va[i] != vb[i]) return va[i] < vb[i] ? -1 : 1;
  uint32_t n = a->ndefines < WS_POINT_MAX_DEFINES ? a->ndefines : WS_POINT_MAX_DEFINES;
  for (uint32_t i = 0; i < n; i++) {
    if ((c = strncmp(a->define_names[i], b->define_names[i], WS_POINT_NAME_MAX))) return c;
    if (a->define_values[i] != b->define_values[i]) return a->define_values[i] < b->define_values[i] ? -1 : 1;
  }
  return 0;
}

static int cmp_point(const ws_point *a, const ws_point *b) {
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c = strncmp(a->gpu, b->gpu, WS_POINT_NAME_MAX);
  if (!c) c = strncmp(a->variant, b->variant, WS_POINT_NAME_MAX);
  if (!c) c = strncmp(a->attn, b->attn, WS_POINT_NAME_MAX);
  if (c) return c;
  const uint32_t va[] = {a->m,  a->n,       a->k,   a->bm,    a->bn,    a->bk, a->tm, a->tn,   a->wm,
                         a->wn, a->threads, a->seq, a->heads, a->dhead, a->br, a->bc, a->nsets};
  const uint32_t vb[] = {b->m,  b->n,       b->k,   b->bm,    b->bn,    b->bk, b->tm, b->tn,   b->wm,
                         b->wn, b->threads, b->seq, b->heads, b->dhead, b->br, b->bc, b->nsets};
  for (size_t i = 0; i < sizeof va / sizeof va[0]; i++)
    if (va[i] != vb[i]) return va[i] < vb[i] ? -1 : 1;
  if (a->seed != b->seed) return a->seed < b->seed ? -1 : 1;
  uint32_t nsets = a->nsets < WS_POINT_MAX_SETS ? a->nsets : WS_POINT_MAX_SETS;
  for (uint32_t i = 0; i < nsets; i++)
    if ((c = strncmp(a->sets[i], b->sets[i], WS_POINT_SET_MAX))) return c;
  return cmp_kernel(a, b);
}

static int cmp_point_ptr(const void *a, const void *b) {
  const ws_point *pa = *(const ws_point *const *)a, *pb = *(const ws_point *const *)b;
  int c = cmp_point(pa, pb);
  return c ? c : (pa > pb) - (pa < pb); /* equal points: by index, so the lookup is stable */
}

/* The lowest index of a point equal to p, or SIZE_MAX. */
static size_t find_point(const ws_sweep *s, const ws_point *const *sorted, const ws_point *p) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_point(sorted[mid], p) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && cmp_point(sorted[lo], p) == 0 ? (size_t)(sorted[lo] - s->points) : SIZE_MAX;
}

ws_status ws_sweep_adopt(ws_ctx *ctx, ws_sweep *s, const ws_point *ps, const ws_point_result *rs, size_t n,
                         size_t *kept) {
  const ws_point **sorted = malloc((s->n ? s->n : 1) * sizeof *sorted);
  if (!sorted) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "resuming %zu points: out of memory", s->n);
  for (size_t i = 0; i < s->n; i++) sorted[i] = &s->points[i];
  qsort(sorted, s->n, sizeof *sorted, cmp_point_ptr);
  size_t count = 0;
  for (size_t j = 0; j < n; j++) {
    ws_point tiled; /* a record written before records resolved the tiles holds 0 for a default */
    ws_point_resolve_tiles(&ps[j], &tiled);
    size_t i = find_point(s, sorted, &tiled);
    if (i == SIZE_MAX || s->adopted[i]) continue;
    s->results[i] = rs[j];
    s->have[i] = s->adopted[i] = true;
    count++;
  }
  free(sorted);
  if (kept) *kept = count;
  return WS_OK;
}

ws_status ws_sweep_resume(ws_ctx *ctx, ws_sweep *s, const char *csv_path, size_t *found, size_t *kept) {
  if (found) *found = 0;
  if (kept) *kept = 0;
  if (access(csv_path, F_OK) != 0) return WS_OK; /* nothing to resume */
  ws_point *ps;
  ws_point_result *rs;
  size_t n;
  bool cost;
  ws_status st = ws_record_csv_read(ctx, csv_path, &ps, &rs, &n, &cost);
  if (st != WS_OK) return st;
  if (cost && !s->cost)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s holds the cost columns (sim_wall_s, sim_cpu_s, sim_warp_insns_per_s), which this "
                     "sweep would drop: resume it with them (--cost), or start over (--restart)",
                     csv_path);
  if (st == WS_OK) st = ws_sweep_adopt(ctx, s, ps, rs, n, kept);
  if (found) *found = n;
  free(ps);
  free(rs);
  return st;
}

/* ---- output ------------------------------------------------------------------------------ */

/* The CSV and JSON texts of the points with a result. */
static ws_status render(ws_ctx *ctx, const ws_sweep *s, bool csv, bool json, char **csv_text,
                        char **json_text) {
  *csv_text = *json_text = NULL;
  if (csv) {
    ws_text t;
    ws_text_init(&t);
    ws_record_csv_header(&t, s->cost);
    for (size_t i = 0; i < s->n; i++)
      if (s->have[i]) ws_record_csv_row(&t, &s->points[i], &s->results[i], s->cost);
    if (!(*csv_text = ws_text_take(&t)))
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "the sweep's CSV: out of memory");
  }
  if (!json) return WS_OK;
  size_t m = 0;
  ws_point *ps = malloc((s->n ? s->n : 1) * sizeof *ps);
  ws_point_result *rs = malloc((s->n ? s->n : 1) * sizeof *rs);
  ws_status st = ps && rs ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "the sweep's JSON: out of memory");
  for (size_t i = 0; st == WS_OK && i < s->n; i++) {
    if (!s->have[i]) continue;
    ps[m] = s->points[i];
    rs[m++] = s->results[i];
  }
  if (st == WS_OK) st = ws_record_json(ctx, ps, rs, m, s->cost, json_text);
  free(ps);
  free(rs);
  return st;
}

static ws_status write_texts(ws_ctx *ctx, const char *csv_path, const char *json_path, char *csv_text,
                             char *json_text) {
  ws_status st = WS_OK;
  if (csv_path) st = ws_file_write_atomic(ctx, csv_path, csv_text, strlen(csv_text));
  if (st == WS_OK && json_path) st = ws_file_write_atomic(ctx, json_path, json_text, strlen(json_text));
  free(csv_text);
  free(json_text);
  return st;
}

ws_status ws_sweep_write(ws_ctx *ctx, const ws_sweep *s, const char *csv_path, const char *json_path) {
  char *csv_text, *json_text;
  ws_status st = render(ctx, s, csv_path != NULL, json_path != NULL, &csv_text, &json_text);
  if (st != WS_OK) {
    free(csv_text);
    free(json_text);
    return st;
  }
  return write_texts(ctx, csv_path, json_path, csv_text, json_text);
}

/* ---- running ------------------------------------------------------------------------------ */

/* What the workers and the coordinator share; every field below `mu` is
 * guarded by it (s->results and s->have included). */
typedef struct shared {
  ws_sweep *s;
  const ws_sweep_cfg *cfg;
  uint32_t rank, ranks;
  ws_cost_cpu cpu; /* the process's CPU time when one point runs at a time, else each worker's */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  size_t next;     /* the next index a worker considers */
  size_t finished; /* points completed by this run */
  size_t running;  /* points being simulated */
  uint32_t live;   /* workers not yet exited */
  bool stop;       /* hand out no more points */
  ws_status err;   /* the first error that stopped the sweep */
  char errmsg[WS_ERRMSG_MAX_BYTES];
} shared;

static bool interrupted(const shared *sh) { return sh->cfg->interrupt && *sh->cfg->interrupt; }

/* The next index of the share without a result, or SIZE_MAX; under mu. */
static size_t take_index(shared *sh) {
  if (sh->stop || interrupted(sh)) return SIZE_MAX;
  for (; sh->next < sh->s->n; sh->next++) {
    size_t i = sh->next;
    if (i % sh->ranks == sh->rank && !sh->s->have[i]) {
      sh->next++;
      return i;
    }
  }
  return SIZE_MAX;
}

/* Errors that say nothing about the point: stop, and leave it for a resumed run. */
static bool stops_sweep(ws_status st) {
  return st == WS_ERR_NOMEM || st == WS_ERR_IO || st == WS_ERR_INTERRUPTED;
}

/* Validates and runs one point into *res; a status that stops the sweep
 * is returned, anything else is the point's record. */
static ws_status run_point(ws_ctx *ctx, const ws_sweep_cfg *cfg, const ws_point *p, ws_point_result *res) {
  memset(res, 0, sizeof *res);
  ws_ctx_clear(ctx);
  if (cfg->runner.validate && !cfg->runner.validate(ctx, p, res->why, sizeof res->why)) {
    res->valid = false;
    return WS_OK;
  }
  ws_status st = cfg->runner.run(ctx, p, &cfg->opts, res);
  if (st == WS_OK || stops_sweep(st)) return st;
  memset(res, 0, sizeof *res);
  snprintf(res->why, sizeof res->why, "%s: %s", ws_status_name(st), ws_errmsg(ctx));
  return WS_OK;
}

static void stop_with(shared *sh, ws_status st, const char *msg) {
  if (sh->err == WS_OK) {
    sh->err = st;
    snprintf(sh->errmsg, sizeof sh->errmsg, "%s", msg);
  }
  sh->stop = true;
}

static void *worker(void *arg) {
  shared *sh = arg;
  ws_ctx *ctx = ws_ctx_create();
  pthread_mutex_lock(&sh->mu);
  if (!ctx) stop_with(sh, WS_ERR_NOMEM, "a worker's context: out of memory");
  for (size_t i; ctx && (i = take_index(sh)) != SIZE_MAX;) {
    sh->running++;
    pthread_mutex_unlock(&sh->mu);
    ws_point_result res;
    ws_cost_clock clock;
    ws_cost_start(&clock, sh->cpu);
    ws_status st = run_point(ctx, sh->cfg, &sh->s->points[i], &res);
    ws_cost cost = ws_cost_read(&clock);
    res.sim_wall_s = cost.wall_s;
    res.sim_cpu_s = cost.cpu_s;
    pthread_mutex_lock(&sh->mu);
    sh->running--;
    if (st != WS_OK)
      stop_with(sh, st, ws_errmsg(ctx));
    else {
      sh->s->results[i] = res;
      sh->s->have[i] = true;
      sh->finished++;
    }
    pthread_cond_signal(&sh->cv);
  }
  sh->live--;
  pthread_cond_signal(&sh->cv);
  pthread_mutex_unlock(&sh->mu);
  ws_ctx_destroy(ctx);
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The coordinator's view between wake-ups. */
typedef struct coord {
  double start_s, last_progress_s, next_flush_s;
  size_t share, pending; /* points of the share; of those, without a result at the start */
  size_t resumed;
  size_t flushed; /* `finished` at the last flush */
} coord;

/* Under mu: renders the outputs (the workers keep writing other indices). */
static ws_status flush_locked(ws_ctx *ctx, shared *sh, coord *co, char **csv_text, char **json_text) {
  co->flushed = sh->finished;
  return render(ctx, sh->s, sh->cfg->csv_path != NULL, sh->cfg->json_path != NULL, csv_text, json_text);
}

/* Renders under the lock, writes outside it, and paces the next flush. */
static void flush(ws_ctx *ctx, shared *sh, coord *co) {
  double t0 = now_s();
  char *csv_text, *json_text;
  ws_status st = flush_locked(ctx, sh, co, &csv_text, &json_text);
  pthread_mutex_unlock(&sh->mu);
  if (st == WS_OK)
    st = write_texts(ctx, sh->cfg->csv_path, sh->cfg->json_path, csv_text, json_text);
  else {
    free(csv_text);
    free(json_text);
  }
  double t1 = now_s();
  co->next_flush_s = t1 + 9 * (t1 - t0);
  pthread_mutex_lock(&sh->mu);
  if (st != WS_OK) stop_with(sh, st, ws_errmsg(ctx));
}

static void report(shared *sh, coord *co) {
  if (!sh->cfg->progress) return;
  ws_sweep_progress pr = {co->share - co->pending + sh->finished, co->share, co->resumed, sh->running, 0, -1};
  pr.elapsed_s = now_s() - co->start_s;
  if (sh->finished) pr.eta_s = pr.elapsed_s / (double)sh->finished * (double)(co->pending - sh->finished);
  co->last_progress_s = now_s();
  pthread_mutex_unlock(&sh->mu); /* the callback may take its time (a terminal) */
  sh->cfg->progress(sh->cfg->progress_user, &pr);
  pthread_mutex_lock(&sh->mu);
}

static void wait_a_while(shared *sh) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* pthread_cond_timedwait's clock */
  ts.tv_nsec += (long)(POLL_S * 1e9);
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  pthread_cond_timedwait(&sh->cv, &sh->mu, &ts);
}

/* The coordinator's loop, under mu, until every worker has exited. */
static void coordinate(ws_ctx *ctx, shared *sh, coord *co) {
  size_t reported = SIZE_MAX;
  while (sh->live > 0) {
    wait_a_while(sh);
    if (interrupted(sh)) sh->stop = true;
    bool fresh = sh->finished != co->flushed;
    if (fresh && now_s() >= co->next_flush_s) flush(ctx, sh, co);
    if (sh->finished != reported || now_s() - co->last_progress_s >= 1.0) {
      reported = sh->finished;
      report(sh, co);
    }
  }
}

static uint32_t pick_jobs(const ws_sweep_cfg *cfg, size_t pending) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  uint64_t jobs = cfg->jobs ? cfg->jobs : (cores > 0 ? (uint64_t)cores : 1);
  if (jobs > JOBS_MAX) jobs = JOBS_MAX;
  if (jobs > pending) jobs = pending;
  return (uint32_t)jobs;
}

/* The cores the points running at once leave over go to their launches
 * (ws_point_opts.sim_threads), unless the caller chose: a sweep of fewer
 * points than cores still uses them all. The results are the same
 * whatever the split (ws_engine_set_threads). */
static void split_cores(ws_sweep_cfg *cfg, uint32_t jobs) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cfg->opts.sim_threads || cores <= 1 || jobs == 0) return;
  cfg->opts.sim_threads = (uint32_t)cores / jobs > 1 ? (uint32_t)cores / jobs : 1;
}

/* The share's size and how many of it lack a result. */
static void count_share(const ws_sweep *s, uint32_t rank, uint32_t ranks, coord *co) {
  for (size_t i = rank; i < s->n; i += ranks) {
    co->share++;
    if (!s->have[i])
      co->pending++;
    else if (s->adopted[i])
      co->resumed++;
  }
}

/* Starts the workers, coordinates until they are gone, joins them. */
static ws_status run_workers(ws_ctx *ctx, shared *sh, coord *co, uint32_t jobs) {
  pthread_t *threads = calloc(jobs ? jobs : 1, sizeof *threads);
  if (!threads) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%u workers: out of memory", jobs);
  uint32_t started = 0;
  pthread_mutex_lock(&sh->mu);
  for (; started < jobs; started++) {
    if (pthread_create(&threads[started], NULL, worker, sh) != 0) break;
    sh->live++;
  }
  if (started == 0 && jobs > 0) stop_with(sh, WS_ERR_NOMEM, "no worker thread could be started");
  coordinate(ctx, sh, co);
  pthread_mutex_unlock(&sh->mu);
  for (uint32_t t = 0; t < started; t++) pthread_join(threads[t], NULL);
  free(threads);
  return WS_OK;
}

static ws_status check_cfg(ws_ctx *ctx, const ws_sweep_cfg *cfg, uint32_t ranks) {
  if (!cfg->runner.run) return ws_ctx_fail(ctx, WS_ERR_INVALID, "a sweep needs a run function");
  if (cfg->rank >= ranks)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "rank %u of %u: a rank is below the number of ranks", cfg->rank,
                       ranks);
  return WS_OK;
}

ws_status ws_sweep_run(ws_ctx *ctx, ws_sweep *s, const ws_sweep_cfg *cfg) {
  uint32_t ranks = cfg->ranks ? cfg->ranks : 1;
  ws_status st = check_cfg(ctx, cfg, ranks);
  if (st != WS_OK) return st;
  ws_sweep_cfg split = *cfg;
  shared sh = {.s = s, .cfg = &split, .rank = cfg->rank, .ranks = ranks, .err = WS_OK};
  coord co = {.start_s = now_s()};
  count_share(s, sh.rank, ranks, &co);
  co.next_flush_s = co.start_s;
  uint32_t jobs = pick_jobs(cfg, co.pending);
  split_cores(&split, jobs);
  sh.cpu = jobs == 1 ? WS_COST_CPU_PROCESS : WS_COST_CPU_THREAD;
  pthread_mutex_init(&sh.mu, NULL);
  pthread_cond_init(&sh.cv, NULL);
  st = run_workers(ctx, &sh, &co, jobs);
  pthread_mutex_lock(&sh.mu);
  if (st == WS_OK) report(&sh, &co);
  pthread_mutex_unlock(&sh.mu);
  pthread_cond_destroy(&sh.cv);
  pthread_mutex_destroy(&sh.mu);
  if (st != WS_OK) return st;
  st = ws_sweep_write(ctx, s, cfg->csv_path, cfg->json_path); /* what finished, stopped or not */
  if (st != WS_OK) return st;
  if (sh.err != WS_OK) return ws_ctx_fail(ctx, sh.err, "%s", sh.errmsg);
  if (interrupted(&sh) && sh.finished < co.pending)
    return ws_ctx_fail(ctx, WS_ERR_INTERRUPTED,
                       "interrupted: %zu of %zu points done; the same command resumes",
                       co.share - co.pending + sh.finished, co.share);
  return WS_OK;
}

/* ---- summary ------------------------------------------------------------------------------ */

static bool passes(const ws_point_result *r) { return r->valid && r->check_pass; }

static uint64_t dram_bytes(const ws_point_result *r) { return r->dram_read_bytes + r->dram_write_bytes; }

/* The problem a point solves, which its results are ranked within: the
 * machine (GPU and overrides) and the GEMM's m, n, k, attention's seq,
 * heads, dhead, or a kernel point's file, args and buffers (inputs_hash;
 * its -D values cannot be told apart into sizes and tiles). */
static int cmp_shape(const ws_point *a, const ws_point *b) {
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c = strncmp(a->gpu, b->gpu, WS_POINT_NAME_MAX);
  if (c) return c;
  if (a->nsets != b->nsets) return a->nsets < b->nsets ? -1 : 1;
  for (uint32_t i = 0; i < a->nsets && i < WS_POINT_MAX_SETS; i++)
    if ((c = strncmp(a->sets[i], b->sets[i], WS_POINT_SET_MAX))) return c;
  if ((c = strncmp(a->kernel, b->kernel, WS_POINT_KERNEL_MAX))) return c;
  const uint64_t va[] = {a->m, a->n, a->k, a->seq, a->heads, a->dhead, a->inputs_hash};
  const uint64_t vb[] = {b->m, b->n, b->k, b->seq, b->heads, b->dhead, b->inputs_hash};
  for (size_t i = 0; i < sizeof va / sizeof va[0]; i++)
    if (va[i] != vb[i]) return va[i] < vb[i] ? -1 : 1;
  return 0;
}

/* Candidates for the fronts sorted by shape, then cycles, then bytes, then
 * index. */
typedef struct cand {
  const ws_point *p;
  uint64_t cycles, bytes;
  size_t i;
} cand;

static int cmp_cand(const void *a, const void *b) {
  const cand *x = a, *y = b;
  int c = cmp_shape(x->p, y->p);
  if (c) return c;
  if (x->cycles != y->cycles) return x->cycles < y->cycles ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* Walks one shape's candidates in cycle order: within a group of equal
 * cycles the ones with the group's fewest bytes are undominated inside it,
 * and they are on the front when no faster point had as few bytes. Equal
 * points dominate neither, so both stay. */
static size_t pareto(const cand *c, size_t n, size_t *front) {
  size_t nf = 0;
  uint64_t best_before = UINT64_MAX;
  for (size_t g = 0; g < n;) {
    size_t end = g;
    while (end < n && c[end].cycles == c[g].cycles) end++;
    uint64_t low = c[g].bytes; /* sorted: the group's first has its fewest */
    bool faster_had_fewer = best_before <= low && best_before != UINT64_MAX;
    for (size_t j = g; j < end && c[j].bytes == low && !faster_had_fewer; j++) front[nf++] = c[j].i;
    if (low < best_before) best_before = low;
    g = end;
  }
  return nf;
}

/* One shape per run of equal shapes in the sorted candidates. */
static void summarize_shapes(ws_sweep_summary *out, const cand *c, size_t nc) {
  for (size_t g = 0; g < nc;) {
    size_t end = g + 1;
    while (end < nc && cmp_shape(c[end].p, c[g].p) == 0) end++;
    ws_sweep_shape *sh = &out->shapes[out->nshapes++];
    sh->best = c[g].i;
    sh->front_first = out->nfront;
    sh->nfront = pareto(c + g, end - g, out->front + out->nfront);
    out->nfront += sh->nfront;
    g = end;
  }
}

static ws_status summary_lists(ws_ctx *ctx, const ws_sweep *s, ws_sweep_summary *out, cand *c, size_t nc) {
  qsort(c, nc, sizeof *c, cmp_cand);
  out->front = malloc((nc ? nc : 1) * sizeof *out->front);
  out->shapes = malloc((nc ? nc : 1) * sizeof *out->shapes);
  out->invalid = malloc((s->n ? s->n : 1) * sizeof *out->invalid);
  if (!out->front || !out->shapes || !out->invalid)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "the sweep's summary: out of memory");
  summarize_shapes(out, c, nc);
  for (size_t i = 0; i < s->n; i++)
    if (s->have[i] && !s->results[i].valid) out->invalid[out->ninvalid++] = i;
  return WS_OK;
}

/* Puts point i into the list of the slowest (by wall time, ties by index:
 * points come in index order, so a tie stays behind). */
static void rank_slowest(ws_sweep_summary *out, const ws_sweep *s, size_t i) {
  double wall_s = s->results[i].sim_wall_s;
  size_t at = out->nslowest;
  while (at > 0 && s->results[out->slowest[at - 1]].sim_wall_s < wall_s) at--;
  if (at >= WS_SWEEP_SLOWEST) return;
  size_t last = out->nslowest < WS_SWEEP_SLOWEST ? out->nslowest : WS_SWEEP_SLOWEST - 1;
  memmove(out->slowest + at + 1, out->slowest + at, (last - at) * sizeof *out->slowest);
  out->slowest[at] = i;
  if (out->nslowest < WS_SWEEP_SLOWEST) out->nslowest++;
}

static void summarize_cost(ws_sweep_summary *out, const ws_sweep *s) {
  for (size_t i = 0; i < s->n; i++) {
    const ws_point_result *r = &s->results[i];
    if (!s->have[i] || !(r->sim_wall_s > 0)) continue;
    out->costed++;
    out->wall_s += r->sim_wall_s;
    out->cpu_s += r->sim_cpu_s;
    out->warp_insns += r->warp_insns;
    if (r->valid) rank_slowest(out, s, i); /* a refused point cost its validation only */
  }
}

ws_status ws_sweep_summarize(ws_ctx *ctx, const ws_sweep *s, ws_sweep_summary *out) {
  memset(out, 0, sizeof *out);
  out->points = s->n;
  cand *c = malloc((s->n ? s->n : 1) * sizeof *c);
  if (!c) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "the sweep's summary: out of memory");
  size_t nc = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!s->have[i]) continue;
    const ws_point_result *r = &s->results[i];
    out->with_result++;
    if (r->valid && !r->check_pass) out->failed++;
    if (!passes(r)) continue;
    out->passed++;
    c[nc++] = (cand){&s->points[i], r->cycles, dram_bytes(r), i};
  }
  ws_status st = summary_lists(ctx, s, out, c, nc);
  free(c);
  summarize_cost(out, s);
  if (st != WS_OK) ws_sweep_summary_free(out);
  return st;
}

void ws_sweep_summary_free(ws_sweep_summary *sm) {
  if (!sm) return;
  free(sm->front);
  free(sm->invalid);
  free(sm->shapes);
  sm->front = sm->invalid = NULL;
  sm->shapes = NULL;
  sm->nfront = sm->ninvalid = sm->nshapes = 0;
}
