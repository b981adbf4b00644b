/* sweep.h - runs a list of points on worker threads and keeps their
 * results in point order: the engine under `warpscope sweep`.
 *
 * Design: results are stored by the point's index, so the output is in
 * point order whatever order the workers finish in, and one process, N
 * threads or N MPI ranks (each running the indices i with i mod N == rank,
 * their outputs adopted into one sweep and written once) give the same
 * bytes. The output is rewritten whole and atomically (ws_file_write_atomic:
 * a temporary file renamed over the old) after points complete, never
 * appended: a CSV row appended when the process dies is half a row, and a
 * JSON array cannot be appended at all. Rewriting costs the file's size per
 * flush, so a flush waits until the time since the last one is nine times
 * what that one took: at most a tenth of the wall time goes to writing,
 * and with points taking seconds that is after every point. A file left by
 * an interrupted run holds exactly the points that finished, and resume
 * (ws_sweep_resume) adopts them. The library never prints: progress is a
 * callback, the best point and the Pareto front of each problem shape a summary. */
#ifndef WS_EXPLORE_SWEEP_H
#define WS_EXPLORE_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "explore/point.h"

/* What runs a point: ws_point_validate and ws_point_run themselves (their
 * signatures), or a test's double. validate may be NULL (run then refuses
 * what it cannot run). A run error is a property of its point and becomes
 * its record (valid "no", why "STATUS: message"), except running out of
 * memory, an I/O error or an interrupt, which stop the sweep unrecorded so
 * that a resumed run tries the point again. */
typedef struct ws_sweep_runner {
  bool (*validate)(ws_ctx *ctx, const ws_point *p, char *why, size_t why_bytes);
  ws_status (*run)(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_result *res);
} ws_sweep_runner;

typedef struct ws_sweep_progress {
  size_t done;      /* points of this rank's share with a result, resumed ones included */
  size_t total;     /* points of this rank's share */
  size_t resumed;   /* of done, those adopted from an earlier output */
  size_t running;   /* points being simulated now */
  double elapsed_s; /* since ws_sweep_run began */
  double eta_s;     /* to finish the share at this run's pace; < 0 before the first point ends */
} ws_sweep_progress;

typedef struct ws_sweep_cfg {
  ws_sweep_runner runner;
  ws_point_opts opts;
  uint32_t jobs;        /* worker threads; 0: one per online core */
  uint32_t rank, ranks; /* run the indices i with i % ranks == rank; ranks 0 means 1 */
  const char *csv_path; /* outputs, rewritten as points finish; NULL: not written */
  const char *json_path;
  /* Called on the thread that called ws_sweep_run, when a point finishes
   * and at least once a second; NULL: none. */
  void (*progress)(void *user, const ws_sweep_progress *pr);
  void *progress_user;
  /* Set (by a signal handler) to stop handing out points: the running ones
   * finish, the output is written and ws_sweep_run returns
   * WS_ERR_INTERRUPTED. NULL: never. */
  volatile sig_atomic_t *interrupt;
} ws_sweep_cfg;

typedef struct ws_sweep ws_sweep;

/* A sweep over a copy of points[0..n) with their tiles resolved
 * (ws_point_resolve_tiles), none of them run. */
ws_status ws_sweep_create(ws_ctx *ctx, const ws_point *points, size_t n, ws_sweep **out);
void ws_sweep_destroy(ws_sweep *s);
/* Whether the outputs hold the cost columns (explore/record.h; off by
 * default: they differ from run to run). Every point run has its cost
 * measured either way (ws_point_result.sim_wall_s, sim_cpu_s): its wall
 * time and, when the sweep runs one point at a time, the process's CPU
 * time (a sampled point's gap threads included), else its worker
 * thread's. */
void ws_sweep_set_cost(ws_sweep *s, bool cost);

/* Takes the results of earlier records whose points are in the sweep
 * (matched by every parameter, the tiles resolved, ws_record_point_equal:
 * a record that holds 0 for a default tile matches too); the first record of
 * a point wins. *kept (may be NULL) is how many were taken; the others
 * (records of points not in this sweep) are dropped. */
ws_status ws_sweep_adopt(ws_ctx *ctx, ws_sweep *s, const ws_point *ps, const ws_point_result *rs, size_t n,
                         size_t *kept);
/* ws_sweep_adopt of the records in a CSV output (ws_record_csv_read); a
 * file that does not exist adopts nothing. *found (may be NULL): records in
 * the file. A file with the cost columns is refused when the sweep writes
 * none (its costs would be dropped); a file without them is taken by one
 * that writes them, its points' costs empty (not measured). */
ws_status ws_sweep_resume(ws_ctx *ctx, ws_sweep *s, const char *csv_path, size_t *found, size_t *kept);

/* Runs every point of the rank's share that has no result yet, then
 * writes the outputs. WS_ERR_INTERRUPTED when cfg->interrupt stopped it
 * (the outputs then hold what finished). */
ws_status ws_sweep_run(ws_ctx *ctx, ws_sweep *s, const ws_sweep_cfg *cfg);
/* Writes the points with a result, in point order, as CSV and JSON (a
 * NULL path is skipped), each file atomically. */
ws_status ws_sweep_write(ws_ctx *ctx, const ws_sweep *s, const char *csv_path, const char *json_path);

size_t ws_sweep_count(const ws_sweep *s);
const ws_point *ws_sweep_point(const ws_sweep *s, size_t i);
/* Point i's result; NULL when it has none (not run, or another rank's). */
const ws_point_result *ws_sweep_result(const ws_sweep *s, size_t i);

/* The best point and the Pareto front of one problem shape: points of
 * different shapes (GPU and --set overrides; a GEMM's m, n, k; attention's
 * seq, heads, dhead; a kernel sweep's file, args and buffers) solve
 * different problems, so they are never ranked against each other. */
typedef struct ws_sweep_shape {
  size_t best;                /* fewest cycles among the shape's passing points (ties: fewer DRAM bytes,
                               * then the lower index); a point of the shape */
  size_t front_first, nfront; /* the shape's front: the summary's front[front_first .. +nfront) */
} ws_sweep_shape;

/* The most points the summary lists as the slowest to simulate. */
#define WS_SWEEP_SLOWEST 5

/* What the sweep found, over the points with a result; indices into the
 * sweep. */
typedef struct ws_sweep_summary {
  size_t points, with_result;
  size_t passed;          /* valid and within the check's tolerance */
  size_t failed;          /* valid, check failed */
  ws_sweep_shape *shapes; /* the shapes with a passing point, ordered by GPU, then size ascending */
  size_t nshapes;
  size_t *front, nfront;     /* the Pareto fronts over (cycles, DRAM bytes read + written), both lower
                              * better, among each shape's passing points, shape after shape: by cycles
                              * ascending, ties by index */
  size_t *invalid, ninvalid; /* refused points, in point order (their reasons: the results' why) */
  /* what simulating cost the host, over the points with a measured cost
   * (run by this sweep, or resumed from records with the cost columns):
   * their number, their sums, and the slowest of them that ran (refused
   * points cost only their validation) by wall time, ties by index */
  size_t costed;
  double wall_s, cpu_s;
  uint64_t warp_insns;
  size_t slowest[WS_SWEEP_SLOWEST], nslowest;
} ws_sweep_summary;

ws_status ws_sweep_summarize(ws_ctx *ctx, const ws_sweep *s, ws_sweep_summary *out);
void ws_sweep_summary_free(ws_sweep_summary *sm);

#endif
