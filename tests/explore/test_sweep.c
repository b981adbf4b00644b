/* test_sweep.c - the sweep engine (explore/sweep.h), driven by a test
 * double in place of ws_point_validate / ws_point_run: the same output
 * bytes for 1, 2 and 4 workers, rank shares whose union is the whole,
 * resume running only what is missing, an interrupt leaving a readable
 * partial file that resumes to the full one, run errors recorded or
 * stopping the sweep, the best point and Pareto front of a hand-made
 * set, and each point's simulation cost: measured, written only with the
 * cost columns, resumed with and without them, summed and ranked. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "explore/record.h"
#include "explore/space.h"
#include "explore/sweep.h"
#include "models/kgen/gemmgen.h"
#include "sim/host/device.h"

static ws_ctx *ctx;
static char dir[] = "/tmp/ws_sweep_XXXXXX";
static ws_point *pts;
static size_t npts;

/* ---- the test double ------------------------------------------------------------------ */
/* FAKE RUNNER (test double): a deterministic function of the point's
 * fields standing in for the simulator. bm over 64 is refused (with a
 * comma and quotes in the reason), tm 7 fails with a watchdog-like error,
 * tn 2 fails its check; the rest pass. Runs are counted, and the count can
 * raise the interrupt flag, as a Ctrl-C would. The file-scope counters are
 * the double's only state (the real runner has none). */
static atomic_uint fake_runs;
static unsigned fake_interrupt_after; /* 0: never */
static volatile sig_atomic_t fake_interrupt;
static unsigned fake_nomem_tm; /* 0: never; else run fails out of memory for this tm */
static double fake_burn_cpu_s; /* CPU seconds each run spins for (0: none) */

/* Spins until the calling thread has used `s` CPU seconds more. */
static void burn_cpu(double s) {
  struct timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < s);
}

static bool fake_validate(ws_ctx *c, const ws_point *p, char *why, size_t why_bytes) {
  (void)c;
  if (p->bm <= 64) return true;
  snprintf(why, why_bytes, "bm %u, over 64: \"too big\"", p->bm);
  return false;
}

static ws_status fake_run(ws_ctx *c, const ws_point *p, const ws_point_opts *opts, ws_point_result *r) {
  (void)opts;
  unsigned k = atomic_fetch_add(&fake_runs, 1) + 1;
  if (fake_interrupt_after && k >= fake_interrupt_after) fake_interrupt = 1;
  struct timespec nap = {0, 200000L * (p->tm % 3)}; /* uneven durations: workers finish out of order */
  nanosleep(&nap, NULL);
  if (fake_burn_cpu_s > 0) burn_cpu(fake_burn_cpu_s);
  if (p->tm == fake_nomem_tm) return ws_ctx_fail(c, WS_ERR_NOMEM, "fake: no memory");
  if (p->tm == 7) return ws_ctx_fail(c, WS_ERR_BUDGET, "watchdog after %u cycles", 1000 * p->tm);
  memset(r, 0, sizeof *r);
  r->valid = true;
  r->check_pass = p->tn != 2;
  if (!r->check_pass) snprintf(r->why, sizeof r->why, "max error %g, at C[0,1]", p->tn * 0.1);
  r->cycles = 100000 / p->bm + 1000 * p->tm + 7 * p->tn;
  r->warp_insns = 100 * r->cycles;
  r->dram_read_bytes = (uint64_t)p->m * p->k * 4 * (256 / p->bm);
  r->dram_write_bytes = (uint64_t)p->m * p->n * 4;
  r->time_us = (double)r->cycles / 1410.0;
  r->flops = 2.0 * p->m * p->n * p->k;
  r->gflops = r->flops / (r->time_us * 1e3);
  r->max_abs_err = 1e-7 / 3 * p->tn;
  r->nstalls = ws_device_stall_count();
  for (uint32_t i = 0; i < r->nstalls; i++) {
    snprintf(r->stall_names[i], sizeof r->stall_names[i], "%s", ws_device_stall_name(i));
    r->stall_pct[i] = 100.0 / (i + p->tm);
  }
  return WS_OK;
}

/* ---- fixtures ------------------------------------------------------------------------ */

/* bm 32,64,128 x tm 4..8 x tn 1,2: 30 points, the last 10 refused. */
static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_not_null(mkdtemp(dir));
  atomic_store(&fake_runs, 0);
  fake_interrupt_after = 0;
  fake_interrupt = 0;
  fake_nomem_tm = 0;
  fake_burn_cpu_s = 0;
  ws_space sp;
  ws_space_init(&sp, WS_POINT_GEMM);
  const char *flags[][2] = {{"gpu", "a100"},     {"m", "256"},  {"n", "128"},  {"k", "64"},
                            {"bm", "32,64,128"}, {"tm", "4:8"}, {"tn", "1,2"}, {"variant", "blocktile2d"}};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    ws_space_param p = ws_space_param_find(flags[i][0]);
    cr_assert_eq(ws_space_parse(ctx, &sp, p, flags[i][1]), WS_OK, "%s", ws_errmsg(ctx));
  }
  cr_assert_eq(ws_space_expand(ctx, &sp, &pts, &npts), WS_OK, "%s", ws_errmsg(ctx));
  ws_space_free(&sp);
  cr_assert_eq(npts, 30);
}

static void teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  free(pts);
  ws_ctx_destroy(ctx);
}

TestSuite(sweep, .init = setup, .fini = teardown);

static void path(char *buf, size_t bytes, const char *name) { snprintf(buf, bytes, "%s/%s", dir, name); }

static ws_sweep_cfg cfg_for(uint32_t jobs, const char *csv, const char *json) {
  return (ws_sweep_cfg){.runner = {fake_validate, fake_run},
                        .jobs = jobs,
                        .csv_path = csv,
                        .json_path = json,
                        .interrupt = &fake_interrupt};
}

/* Runs the fixture's sweep (after resuming from `resume_from` if given)
 * into csv/json; returns the status. */
static ws_status sweep_cost_into(ws_sweep_cfg cfg, const char *resume_from, bool cost) {
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  ws_sweep_set_cost(s, cost);
  if (resume_from)
    cr_assert_eq(ws_sweep_resume(ctx, s, resume_from, NULL, NULL), WS_OK, "%s", ws_errmsg(ctx));
  ws_status st = ws_sweep_run(ctx, s, &cfg);
  ws_sweep_destroy(s);
  return st;
}

static ws_status sweep_into(ws_sweep_cfg cfg, const char *resume_from) {
  return sweep_cost_into(cfg, resume_from, false);
}

static char *slurp(const char *p) {
  char *data;
  size_t n;
  cr_assert_eq(ws_file_read(ctx, p, 1 << 24, "test output", &data, &n), WS_OK, "%s", ws_errmsg(ctx));
  return data;
}

static size_t rows_in(const char *csv_path) {
  ws_point *ps;
  ws_point_result *rs;
  size_t n;
  cr_assert_eq(ws_record_csv_read(ctx, csv_path, &ps, &rs, &n, NULL), WS_OK, "%s", ws_errmsg(ctx));
  free(ps);
  free(rs);
  return n;
}

/* The reference output: one worker, one process. */
static char *reference(void) {
  char csv[128];
  path(csv, sizeof csv, "ref.csv");
  cr_assert_eq(sweep_into(cfg_for(1, csv, NULL), NULL), WS_OK, "%s", ws_errmsg(ctx));
  atomic_store(&fake_runs, 0);
  return slurp(csv);
}

/* ---- tests ------------------------------------------------------------------------------ */

Test(sweep, same_bytes_for_any_number_of_workers) {
  char csv[3][128], json[3][128];
  const uint32_t jobs[3] = {1, 2, 4};
  for (int i = 0; i < 3; i++) {
    snprintf(csv[i], sizeof csv[i], "%s/j%u.csv", dir, jobs[i]);
    snprintf(json[i], sizeof json[i], "%s/j%u.json", dir, jobs[i]);
    atomic_store(&fake_runs, 0);
    cr_assert_eq(sweep_into(cfg_for(jobs[i], csv[i], json[i]), NULL), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect_eq(atomic_load(&fake_runs), 20, "refused points are not run");
  }
  char *c1 = slurp(csv[0]), *j1 = slurp(json[0]);
  for (int i = 1; i < 3; i++) {
    char *c = slurp(csv[i]), *j = slurp(json[i]);
    cr_expect_str_eq(c, c1, "%u workers' CSV", jobs[i]);
    cr_expect_str_eq(j, j1, "%u workers' JSON", jobs[i]);
    free(c);
    free(j);
  }
  cr_expect_eq(rows_in(csv[0]), 30);
  free(c1);
  free(j1);
}

Test(sweep, records_refusals_and_errors) {
  char csv[128];
  path(csv, sizeof csv, "r.csv");
  cr_assert_eq(sweep_into(cfg_for(2, csv, NULL), NULL), WS_OK);
  ws_point *ps;
  ws_point_result *rs;
  size_t n;
  cr_assert_eq(ws_record_csv_read(ctx, csv, &ps, &rs, &n, NULL), WS_OK);
  cr_assert_eq(n, 30);
  for (size_t i = 0; i < n; i++) {
    cr_expect(ws_record_point_equal(&ps[i], &pts[i]), "row %zu is point %zu", i, i);
    if (pts[i].bm == 128) {
      cr_expect_not(rs[i].valid);
      cr_expect_str_eq(rs[i].why, "bm 128, over 64: \"too big\"");
    } else if (pts[i].tm == 7) {
      cr_expect_not(rs[i].valid);
      cr_expect_str_eq(rs[i].why, "limit exhausted: watchdog after 7000 cycles");
    } else {
      cr_expect(rs[i].valid);
      cr_expect_eq(rs[i].check_pass, pts[i].tn != 2);
    }
  }
  free(ps);
  free(rs);
}

Test(sweep, rank_shares_make_the_whole) {
  char *ref = reference();
  char csv[3][128];
  for (uint32_t r = 0; r < 3; r++) {
    snprintf(csv[r], sizeof csv[r], "%s/rank%u.csv", dir, r);
    ws_sweep_cfg cfg = cfg_for(2, csv[r], NULL);
    cfg.rank = r;
    cfg.ranks = 3;
    cr_assert_eq(sweep_into(cfg, NULL), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect_eq(rows_in(csv[r]), 10, "rank %u holds its share only", r);
  }
  cr_expect_eq(atomic_load(&fake_runs), 20, "each point ran once over the ranks");
  /* the merge: adopt every rank's output, nothing left to run, one file */
  atomic_store(&fake_runs, 0);
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  for (int r = 0; r < 3; r++) {
    size_t found, kept;
    cr_assert_eq(ws_sweep_resume(ctx, s, csv[r], &found, &kept), WS_OK);
    cr_expect_eq(kept, 10);
  }
  char merged[128];
  path(merged, sizeof merged, "merged.csv");
  ws_sweep_cfg cfg = cfg_for(2, merged, NULL);
  cr_assert_eq(ws_sweep_run(ctx, s, &cfg), WS_OK);
  ws_sweep_destroy(s);
  cr_expect_eq(atomic_load(&fake_runs), 0);
  char *m = slurp(merged);
  cr_expect_str_eq(m, ref);
  free(m);
  free(ref);
}

Test(sweep, resume_runs_only_what_is_missing) {
  char *ref = reference();
  char csv[128];
  path(csv, sizeof csv, "out.csv");
  ws_sweep_cfg half = cfg_for(2, csv, NULL);
  half.rank = 1;
  half.ranks = 2; /* odd indices: 10 of the 20 runnable points, 5 of the refused */
  cr_assert_eq(sweep_into(half, NULL), WS_OK);
  atomic_store(&fake_runs, 0);
  cr_assert_eq(sweep_into(cfg_for(2, csv, NULL), csv), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(atomic_load(&fake_runs), 10);
  char *out = slurp(csv);
  cr_expect_str_eq(out, ref);
  free(out);
  /* resuming a finished sweep runs nothing and changes no byte */
  atomic_store(&fake_runs, 0);
  cr_assert_eq(sweep_into(cfg_for(2, csv, NULL), csv), WS_OK);
  cr_expect_eq(atomic_load(&fake_runs), 0);
  out = slurp(csv);
  cr_expect_str_eq(out, ref);
  free(out);
  free(ref);
}

/* The fixture leaves bn, bk and threads to the variant: the file holds
 * their values (wm and wn, which blocktile2d does not read, empty), and
 * both such a file and records holding 0 for a default (as the points were
 * given) find their points. */
Test(sweep, resume_matches_resolved_tiles) {
  char csv[128];
  path(csv, sizeof csv, "tiles.csv");
  cr_assert_eq(sweep_into(cfg_for(2, csv, NULL), NULL), WS_OK, "%s", ws_errmsg(ctx));
  ws_point *back;
  ws_point_result *rback;
  size_t n;
  cr_assert_eq(ws_record_csv_read(ctx, csv, &back, &rback, &n, NULL), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(n, npts);
  ws_gemmgen_cfg def = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  for (size_t i = 0; i < n; i++) {
    cr_expect_eq(back[i].bn, def.bn);
    cr_expect_eq(back[i].bk, def.bk);
    cr_expect_eq(back[i].threads, (back[i].bm / back[i].tm) * (def.bn / back[i].tn), "point %zu", i);
    cr_expect_eq(back[i].wm + back[i].wn, 0);
  }
  ws_sweep *s;
  size_t kept;
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, back, rback, n, &kept), WS_OK);
  cr_expect_eq(kept, npts);
  ws_sweep_destroy(s);
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, pts, rback, n, &kept), WS_OK);
  cr_expect_eq(kept, npts);
  ws_sweep_destroy(s);
  free(back);
  free(rback);
}

Test(sweep, records_of_other_points_are_dropped) {
  char csv[128];
  path(csv, sizeof csv, "old.csv");
  cr_assert_eq(sweep_into(cfg_for(1, csv, NULL), NULL), WS_OK);
  ws_point other[2] = {pts[0], pts[1]};
  other[1].seed = 99;
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, other, 2, &s), WS_OK);
  size_t found, kept;
  cr_assert_eq(ws_sweep_resume(ctx, s, csv, &found, &kept), WS_OK);
  cr_expect_eq(found, 30);
  cr_expect_eq(kept, 1);
  cr_expect_not_null(ws_sweep_result(s, 0));
  cr_expect_null(ws_sweep_result(s, 1));
  ws_sweep_destroy(s);
}

Test(sweep, interrupt_leaves_a_resumable_file) {
  char *ref = reference();
  char csv[128], json[128];
  path(csv, sizeof csv, "int.csv");
  path(json, sizeof json, "int.json");
  fake_interrupt_after = 5; /* the fifth run raises the flag; that run still finishes */
  cr_assert_eq(sweep_into(cfg_for(1, csv, json), NULL), WS_ERR_INTERRUPTED);
  cr_expect(strstr(ws_errmsg(ctx), "interrupted: 5 of 30 points done") != NULL, "%s", ws_errmsg(ctx));
  cr_expect_eq(rows_in(csv), 5);
  char *j = slurp(json);
  cr_expect(strncmp(j, "[\n{", 3) == 0 && strstr(j, "\n]\n") != NULL);
  free(j);
  fake_interrupt_after = 0;
  fake_interrupt = 0;
  atomic_store(&fake_runs, 0);
  cr_assert_eq(sweep_into(cfg_for(2, csv, json), csv), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(atomic_load(&fake_runs), 15);
  char *out = slurp(csv);
  cr_expect_str_eq(out, ref);
  free(out);
  free(ref);
}

Test(sweep, out_of_memory_stops_unrecorded) {
  char csv[128];
  path(csv, sizeof csv, "nomem.csv");
  fake_nomem_tm = 5;
  cr_assert_eq(sweep_into(cfg_for(1, csv, NULL), NULL), WS_ERR_NOMEM);
  cr_expect_str_eq(ws_errmsg(ctx), "fake: no memory");
  cr_expect_eq(rows_in(csv), 2, "the points before it, in order (tm 4 with tn 1 and 2)");
}

/* Progress as the callback saw it. */
typedef struct seen {
  size_t calls, last_done, total;
  double last_eta;
  bool monotonic;
} seen;

static void on_progress(void *user, const ws_sweep_progress *pr) {
  seen *sn = user;
  if (pr->done < sn->last_done) sn->monotonic = false;
  sn->calls++;
  sn->last_done = pr->done;
  sn->total = pr->total;
  sn->last_eta = pr->eta_s;
}

Test(sweep, progress) {
  seen sn = {.monotonic = true};
  ws_sweep_cfg cfg = cfg_for(2, NULL, NULL);
  cfg.progress = on_progress;
  cfg.progress_user = &sn;
  cr_assert_eq(sweep_into(cfg, NULL), WS_OK);
  cr_expect_geq(sn.calls, 1);
  cr_expect(sn.monotonic);
  cr_expect_eq(sn.last_done, 30);
  cr_expect_eq(sn.total, 30);
  cr_expect_eq(sn.last_eta, 0.0);
}

Test(sweep, bad_configuration) {
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  ws_sweep_cfg cfg = cfg_for(1, NULL, NULL);
  cfg.rank = 2;
  cfg.ranks = 2;
  cr_expect_eq(ws_sweep_run(ctx, s, &cfg), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "rank 2 of 2: a rank is below the number of ranks");
  cfg = cfg_for(1, NULL, NULL);
  cfg.runner.run = NULL;
  cr_expect_eq(ws_sweep_run(ctx, s, &cfg), WS_ERR_INVALID);
  ws_sweep_destroy(s);
}

/* A hand-made set: (cycles, DRAM bytes) per point, computed by hand. */
Test(sweep, best_and_pareto_front) {
  static const struct {
    uint64_t cycles, bytes;
    bool valid, pass;
  } set[] = {
      {100, 500, true, true}, /* 0 A: on the front */
      {200, 300, true, true}, /* 1 B: on the front */
      {150, 600, true, true}, /* 2 C: A is faster with fewer bytes */
      {300, 300, true, true}, /* 3 D: B is faster with as few */
      {100, 500, true, true}, /* 4 E: equal to A; neither dominates: on the front */
      {50, 1000, true, true}, /* 5 F: the fastest: best, on the front */
      {10, 10, false, false}, /* 6 G: refused */
      {20, 20, true, false},  /* 7 H: failed its check: not a candidate */
      {100, 400, true, true}, /* 8 I: dominates A and E (same cycles, fewer bytes) */
      {400, 100, true, true}, /* 9 J: the fewest bytes: on the front */
  };
  size_t n = sizeof set / sizeof set[0];
  ws_point ps[10];
  ws_point_result rs[10];
  memset(rs, 0, sizeof rs);
  for (size_t i = 0; i < n; i++) {
    ps[i] = pts[0];
    ps[i].seed = i;
    rs[i].valid = set[i].valid;
    rs[i].check_pass = set[i].pass;
    rs[i].cycles = set[i].cycles;
    rs[i].dram_read_bytes = set[i].bytes / 2;
    rs[i].dram_write_bytes = set[i].bytes - set[i].bytes / 2;
  }
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, ps, n, &s), WS_OK);
  size_t kept;
  cr_assert_eq(ws_sweep_adopt(ctx, s, ps, rs, n, &kept), WS_OK);
  cr_assert_eq(kept, n);
  ws_sweep_summary sm;
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  cr_expect_eq(sm.with_result, 10);
  cr_expect_eq(sm.passed, 8);
  cr_expect_eq(sm.failed, 1);
  cr_assert_eq(sm.nshapes, 1);
  cr_expect_eq(sm.shapes[0].best, 5);
  const size_t front[] = {5, 8, 1, 9}; /* F(50), I(100), B(200), J(400) */
  cr_assert_eq(sm.nfront, 4);
  for (size_t i = 0; i < 4; i++) cr_expect_eq(sm.front[i], front[i], "front %zu", i);
  cr_assert_eq(sm.ninvalid, 1);
  cr_expect_eq(sm.invalid[0], 6);
  ws_sweep_summary_free(&sm);
  /* without I, A and E (equal) are both on it */
  rs[8].check_pass = false;
  ws_sweep_destroy(s);
  cr_assert_eq(ws_sweep_create(ctx, ps, n, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, ps, rs, n, NULL), WS_OK);
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  const size_t front2[] = {5, 0, 4, 1, 9};
  cr_assert_eq(sm.nfront, 5);
  for (size_t i = 0; i < 5; i++) cr_expect_eq(sm.front[i], front2[i], "front %zu", i);
  ws_sweep_summary_free(&sm);
  ws_sweep_destroy(s);
}

/* Two sizes, interleaved: the small one's points are all faster than the
 * large one's, yet the large one has its own best and front; and attention
 * points of two sequence lengths likewise. */
Test(sweep, best_and_front_per_shape) {
  static const struct {
    uint32_t m;
    uint64_t cycles, bytes;
  } set[] = {
      {256, 100, 500},  /* 0: small, best of its shape */
      {1024, 900, 800}, /* 1: large, on its front (fewest bytes of its shape) */
      {256, 200, 300},  /* 2: small, on its front */
      {1024, 700, 900}, /* 3: large, best of its shape */
      {256, 300, 400},  /* 4: small, dominated by 2 */
      {1024, 800, 950}, /* 5: large, dominated by 3 */
  };
  size_t n = sizeof set / sizeof set[0];
  ws_point ps[6];
  ws_point_result rs[6];
  memset(rs, 0, sizeof rs);
  for (size_t i = 0; i < n; i++) {
    ps[i] = pts[0];
    ps[i].m = set[i].m;
    ps[i].seed = i;
    rs[i].valid = rs[i].check_pass = true;
    rs[i].cycles = set[i].cycles;
    rs[i].dram_read_bytes = set[i].bytes;
  }
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, ps, n, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, ps, rs, n, NULL), WS_OK);
  ws_sweep_summary sm;
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  cr_assert_eq(sm.nshapes, 2);
  cr_expect_eq(sm.shapes[0].best, 0); /* m 256 sorts first */
  cr_expect_eq(sm.shapes[1].best, 3);
  cr_assert_eq(sm.shapes[0].nfront, 2);
  cr_assert_eq(sm.shapes[1].nfront, 2);
  cr_assert_eq(sm.nfront, 4);
  const size_t front[] = {0, 2, 3, 1};
  for (size_t i = 0; i < 4; i++) cr_expect_eq(sm.front[i], front[i], "front %zu", i);
  cr_expect_eq(sm.shapes[1].front_first, 2);
  ws_sweep_summary_free(&sm);
  ws_sweep_destroy(s);
  /* attention: seq 64 and 128 are two shapes; the GPU makes two more */
  ws_point a[4] = {{.kind = WS_POINT_ATTENTION, .gpu = "a100", .seq = 64, .heads = 4, .dhead = 16}};
  snprintf(a[0].attn, sizeof a[0].attn, "naive");
  a[1] = a[0];
  a[1].seq = 128;
  a[2] = a[1];
  snprintf(a[2].attn, sizeof a[2].attn, "flash");
  a[3] = a[2];
  snprintf(a[3].gpu, sizeof a[3].gpu, "h100");
  ws_point_result ar[4] = {{.valid = true, .check_pass = true, .cycles = 10},
                           {.valid = true, .check_pass = true, .cycles = 40},
                           {.valid = true, .check_pass = true, .cycles = 30},
                           {.valid = true, .check_pass = true, .cycles = 20}};
  cr_assert_eq(ws_sweep_create(ctx, a, 4, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, a, ar, 4, NULL), WS_OK);
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  cr_assert_eq(sm.nshapes, 3);
  cr_expect_eq(sm.shapes[0].best, 0); /* a100 seq 64 */
  cr_expect_eq(sm.shapes[1].best, 2); /* a100 seq 128: flash beats naive */
  cr_expect_eq(sm.shapes[2].best, 3); /* h100 seq 128 */
  ws_sweep_summary_free(&sm);
  ws_sweep_destroy(s);
}

Test(sweep, empty_sweep) {
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, NULL, 0, &s), WS_OK);
  char csv[128];
  path(csv, sizeof csv, "empty.csv");
  ws_sweep_cfg cfg = cfg_for(0, csv, NULL);
  cr_assert_eq(ws_sweep_run(ctx, s, &cfg), WS_OK);
  cr_expect_eq(rows_in(csv), 0);
  ws_sweep_summary sm;
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  cr_expect_eq(sm.nshapes, 0);
  cr_expect_eq(sm.nfront, 0);
  ws_sweep_summary_free(&sm);
  ws_sweep_destroy(s);
}

/* ---- simulation cost -------------------------------------------------------------------- */

/* Each run point's cost is measured, with one worker (the process's CPU
 * time) and with several (each worker's): at least the CPU time the double
 * spun for, and the wall time at least that and its nap. */
Test(sweep, cost_columns_hold_each_points_cost) {
  fake_burn_cpu_s = 0.002;
  for (uint32_t jobs = 1; jobs <= 2; jobs++) {
    char csv[128];
    snprintf(csv, sizeof csv, "%s/cost%u.csv", dir, jobs);
    cr_assert_eq(sweep_cost_into(cfg_for(jobs, csv, NULL), NULL, true), WS_OK, "%s", ws_errmsg(ctx));
    ws_point *ps;
    ws_point_result *rs;
    size_t n;
    bool cost = false;
    cr_assert_eq(ws_record_csv_read(ctx, csv, &ps, &rs, &n, &cost), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect(cost, "the file has the cost columns");
    cr_assert_eq(n, 30);
    for (size_t i = 0; i < n; i++) {
      if (ps[i].bm == 128) continue; /* refused by validation: not run */
      double nap_s = 200e-6 * (ps[i].tm % 3);
      cr_expect_geq(rs[i].sim_cpu_s, fake_burn_cpu_s, "%u jobs, point %zu", jobs, i);
      cr_expect_geq(rs[i].sim_wall_s, fake_burn_cpu_s + nap_s, "%u jobs, point %zu", jobs, i);
    }
    free(ps);
    free(rs);
  }
}

/* Without the cost columns the file is the reference, byte for byte, and
 * the columns are the only difference with them. */
Test(sweep, cost_columns_only_when_asked) {
  char *ref = reference();
  cr_expect_null(strstr(ref, "sim_wall_s"));
  char csv[128];
  path(csv, sizeof csv, "c.csv");
  cr_assert_eq(sweep_cost_into(cfg_for(2, csv, NULL), NULL, true), WS_OK);
  char *with = slurp(csv);
  size_t rows = 0;
  for (const char *a = ref, *b = with; *a; rows++) { /* each line of ref begins its line of with */
    size_t len = strcspn(a, "\n");
    cr_assert_eq(strncmp(a, b, len), 0, "line %zu", rows + 1);
    cr_assert_eq(b[len], ',', "line %zu: the cost columns follow", rows + 1);
    a += len + 1;
    b = strchr(b, '\n') + 1;
  }
  cr_expect_eq(rows, 31);
  free(with);
  free(ref);
}

/* A file with the cost columns is refused by a sweep without them, naming
 * the file; the reverse is taken, the resumed points' costs empty. */
Test(sweep, resume_with_and_without_cost) {
  char csv[128], plain[128];
  path(csv, sizeof csv, "costed.csv");
  path(plain, sizeof plain, "plain.csv");
  ws_sweep_cfg half = cfg_for(2, csv, NULL);
  half.rank = 1;
  half.ranks = 2;
  cr_assert_eq(sweep_cost_into(half, NULL, true), WS_OK);
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, pts, npts, &s), WS_OK);
  cr_expect_eq(ws_sweep_resume(ctx, s, csv, NULL, NULL), WS_ERR_INVALID);
  char want[512];
  snprintf(want, sizeof want,
           "%s holds the cost columns (sim_wall_s, sim_cpu_s, sim_warp_insns_per_s), which this sweep would "
           "drop: resume it with them (--cost), or start over (--restart)",
           csv);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  ws_sweep_destroy(s);
  /* with them: the other half runs, and every row has its cost */
  atomic_store(&fake_runs, 0);
  cr_assert_eq(sweep_cost_into(cfg_for(2, csv, NULL), csv, true), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(atomic_load(&fake_runs), 10);
  ws_point *ps;
  ws_point_result *rs;
  size_t n;
  cr_assert_eq(ws_record_csv_read(ctx, csv, &ps, &rs, &n, NULL), WS_OK);
  for (size_t i = 0; i < n; i++)
    if (rs[i].valid) cr_expect_gt(rs[i].sim_wall_s, 0, "point %zu", i);
  free(ps);
  free(rs);
  /* a plain file resumed with the cost columns: its points' costs stay empty */
  half.csv_path = plain;
  cr_assert_eq(sweep_cost_into(half, NULL, false), WS_OK);
  cr_assert_eq(sweep_cost_into(cfg_for(2, plain, NULL), plain, true), WS_OK, "%s", ws_errmsg(ctx));
  bool cost = false;
  cr_assert_eq(ws_record_csv_read(ctx, plain, &ps, &rs, &n, &cost), WS_OK);
  cr_expect(cost);
  cr_assert_eq(n, 30);
  for (size_t i = 0; i < n; i++)
    if (rs[i].valid) cr_expect_eq(rs[i].sim_wall_s > 0, i % 2 == 0, "point %zu: run now, or resumed", i);
  free(ps);
  free(rs);
}

/* The summary's cost: sums over the measured points, the slowest five
 * that ran by wall time (ties by index); an unmeasured point is left out,
 * a refused one counted in the sums only. */
Test(sweep, summary_of_cost) {
  const double wall_s[] = {3, 0, 5, 9, 5, 2, 4};
  size_t n = sizeof wall_s / sizeof wall_s[0];
  ws_point ps[7];
  ws_point_result rs[7];
  memset(rs, 0, sizeof rs);
  for (size_t i = 0; i < n; i++) {
    ps[i] = pts[0];
    ps[i].seed = i;
    rs[i].valid = rs[i].check_pass = i != 3; /* point 3 refused: it ran nothing */
    rs[i].cycles = rs[i].valid ? 100 : 0;
    rs[i].warp_insns = rs[i].valid ? 1000 * (i + 1) : 0;
    rs[i].sim_wall_s = wall_s[i];
    rs[i].sim_cpu_s = wall_s[i] / 2;
  }
  ws_sweep *s;
  cr_assert_eq(ws_sweep_create(ctx, ps, n, &s), WS_OK);
  cr_assert_eq(ws_sweep_adopt(ctx, s, ps, rs, n, NULL), WS_OK);
  ws_sweep_summary sm;
  cr_assert_eq(ws_sweep_summarize(ctx, s, &sm), WS_OK);
  cr_expect_eq(sm.costed, 6);
  cr_expect_eq(sm.wall_s, 28.0);
  cr_expect_eq(sm.cpu_s, 14.0);
  cr_expect_eq(sm.warp_insns, 1000u * (1 + 3 + 5 + 6 + 7), "point 1 (unmeasured) left out");
  const size_t slowest[] = {2, 4, 6, 0, 5};
  cr_assert_eq(sm.nslowest, 5);
  for (size_t i = 0; i < 5; i++) cr_expect_eq(sm.slowest[i], slowest[i], "slowest %zu", i);
  ws_sweep_summary_free(&sm);
  ws_sweep_destroy(s);
}
