/* plotkinds.c - `warpscope plot`'s rows turned into each chart kind's
 * arrays (plotkinds.h): which rows count, which value a heatmap cell shows
 * when several rows share it, which preset's roofs a roofline draws.
 *
 * Design: a cell that is empty in a row (a field that does not apply, as
 * bm for an attention point) leaves that row out of the chart and is
 * counted; a cell that holds text where a number belongs is an error naming
 * FILE:LINE:COLUMN, since the file is then not what it claims to be. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plotkinds.h"
#include "plot/bars.h"
#include "plot/heatmap.h"
#include "plot/roofline.h"
#include "plot/scatter.h"
#include "sim/core/config.h"

#define LABEL_BYTES 96

typedef struct rowset {
  size_t *row; /* the rows to draw, in file order */
  size_t n, total, invalid, other_gpu, blank;
  const char *blank_col; /* the first column whose empty field left a row out */
} rowset;

typedef struct job {
  ws_ctx *ctx;
  const ws_cli_plot_opts *o;
  const ws_table *t;
  rowset rs;
} job;

/* ---- columns and rows --------------------------------------------------------------------------- */

static int column(const job *j, const char *name, size_t *col) {
  if (ws_table_find(j->t, name, col)) return WS_EXIT_OK;
  char list[2048];
  ws_table_list_columns(j->t, list, sizeof list);
  return ws_cli_usage_error("plot", "%s has no column '%s'; its columns: %s", j->o->csv, name, list);
}

static bool has(const job *j, const char *name) {
  size_t c;
  return ws_table_find(j->t, name, &c);
}

/* valid = yes and check not fail (unless --all), and of --gpu's gpu. */
static bool wanted(const job *j, size_t r, rowset *rs) {
  size_t c;
  bool ok =
      j->o->all || ((!ws_table_find(j->t, "valid", &c) || strcmp(ws_table_cell(j->t, r, c), "yes") == 0) &&
                    (!ws_table_find(j->t, "check", &c) || strcmp(ws_table_cell(j->t, r, c), "fail") != 0));
  if (!ok) return rs->invalid++, false;
  if (j->o->gpu && ws_table_find(j->t, "gpu", &c) && strcmp(ws_table_cell(j->t, r, c), j->o->gpu) != 0)
    return rs->other_gpu++, false;
  return true;
}

static int select_rows(job *j) {
  rowset *rs = &j->rs;
  rs->total = ws_table_rows(j->t);
  rs->row = malloc((rs->total ? rs->total : 1) * sizeof *rs->row);
  if (!rs->row) return ws_cli_error("out of memory for %zu rows", rs->total);
  for (size_t r = 0; r < rs->total; r++)
    if (wanted(j, r, rs)) rs->row[rs->n++] = r;
  return WS_EXIT_OK;
}

/* The number in row r's column c; *present false for an empty field. */
static int number(job *j, size_t r, size_t c, double *v, bool *present) {
  *present = ws_table_cell(j->t, r, c)[0] != '\0';
  if (!*present) {
    if (!j->rs.blank_col) j->rs.blank_col = ws_table_column_name(j->t, c);
    return WS_EXIT_OK;
  }
  return ws_table_number(j->ctx, j->t, r, c, v) == WS_OK ? WS_EXIT_OK : ws_cli_error("%s", ws_errmsg(j->ctx));
}

/* Says how many rows are left out and why; exit 1 when none is left. */
static int report(const job *j, size_t drawn) {
  const rowset *rs = &j->rs;
  size_t out = rs->total - drawn;
  if (out) {
    fprintf(stderr, "warpscope plot: %zu of %zu rows left out:", out, rs->total);
    if (rs->invalid)
      fprintf(stderr, " %zu not valid or failing their check (--all draws them);", rs->invalid);
    if (rs->other_gpu) fprintf(stderr, " %zu of another gpu than %s;", rs->other_gpu, j->o->gpu);
    if (rs->blank)
      fprintf(stderr, " %zu with an empty field (%s, ...) or nothing to draw;", rs->blank,
              rs->blank_col ? rs->blank_col : "a value");
    fprintf(stderr, "\n");
  }
  if (drawn == 0)
    return ws_cli_error("%s: no rows to plot (%zu rows, %zu left out)", j->o->csv, rs->total, out);
  return WS_EXIT_OK;
}

static const char *title_or(const job *j, const char *fallback) {
  return j->o->title ? j->o->title : fallback;
}

/* ---- heatmap ------------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The distinct values of v (sorted, in place); their count. */
static size_t distinct(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[i] != v[k - 1]) v[k++] = v[i];
  return k;
}

static size_t index_of(const double *v, size_t n, double x) {
  const double *at = bsearch(&x, v, n, sizeof *v, cmp_double);
  return at ? (size_t)(at - v) : 0;
}

/* Less is better for these metrics; more for the rest (gflops, occupancy,
 * hit rates). */
static bool lower_is_better(const char *metric) {
  static const char *const words[] = {"cycles", "time", "bytes", "err", "conflicts", "refusals", "launches"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strstr(metric, words[i])) return true;
  return false;
}

typedef struct grid {
  double *px, *py, *pm, *xs, *ys, *values;
  size_t *count;
  size_t n, nx, ny;
} grid;

static void grid_free(grid *g) {
  free(g->px), free(g->py), free(g->pm), free(g->xs), free(g->ys), free(g->values), free(g->count);
}

static int heat_points(job *j, grid *g) {
  size_t cx, cy, cm;
  int rc = column(j, j->o->x, &cx);
  if (rc == WS_EXIT_OK) rc = column(j, j->o->y, &cy);
  if (rc == WS_EXIT_OK) rc = column(j, j->o->metric, &cm);
  if (rc != WS_EXIT_OK) return rc;
  size_t n = j->rs.n ? j->rs.n : 1;
  g->px = malloc(n * sizeof(double)), g->py = malloc(n * sizeof(double)), g->pm = malloc(n * sizeof(double));
  g->xs = malloc(n * sizeof(double)), g->ys = malloc(n * sizeof(double));
  if (!g->px || !g->py || !g->pm || !g->xs || !g->ys) return ws_cli_error("out of memory for the heatmap");
  for (size_t i = 0; i < j->rs.n; i++) {
    size_t r = j->rs.row[i];
    bool a, b, c;
    double x = 0, y = 0, m = 0;
    if ((rc = number(j, r, cx, &x, &a)) != WS_EXIT_OK || (rc = number(j, r, cy, &y, &b)) != WS_EXIT_OK ||
        (rc = number(j, r, cm, &m, &c)) != WS_EXIT_OK)
      return rc;
    if (!a || !b || !c) {
      j->rs.blank++;
      continue;
    }
    g->px[g->n] = g->xs[g->n] = x, g->py[g->n] = g->ys[g->n] = y, g->pm[g->n++] = m;
  }
  return WS_EXIT_OK;
}

/* Each cell's best value and how many rows shared it; the most shared. */
static int heat_cells(job *j, grid *g, bool lower, size_t *most) {
  g->nx = distinct(g->xs, g->n), g->ny = distinct(g->ys, g->n);
  if (g->nx > WS_HEATMAP_MAX_SIDE || g->ny > WS_HEATMAP_MAX_SIDE)
    return ws_cli_error("%s: %zu distinct values of %s and %zu of %s: a heatmap shows at most %d per axis",
                        j->o->csv, g->nx, j->o->x, g->ny, j->o->y, WS_HEATMAP_MAX_SIDE);
  g->values = malloc(g->nx * g->ny * sizeof(double) + 1),
  g->count = calloc(g->nx * g->ny + 1, sizeof(size_t));
  if (!g->values || !g->count) return ws_cli_error("out of memory for the heatmap");
  for (size_t i = 0; i < g->nx * g->ny; i++) g->values[i] = NAN;
  *most = 0;
  for (size_t i = 0; i < g->n; i++) {
    size_t k = index_of(g->ys, g->ny, g->py[i]) * g->nx + index_of(g->xs, g->nx, g->px[i]);
    double v = g->values[k], m = g->pm[i];
    if (g->count[k]++ == 0 || (lower ? m < v : m > v)) g->values[k] = m;
    if (g->count[k] > *most) *most = g->count[k];
  }
  return WS_EXIT_OK;
}

static int draw_heatmap(job *j) {
  grid g = {0};
  size_t most = 0;
  bool lower = j->o->reduce == WS_CLI_PLOT_REDUCE_AUTO ? lower_is_better(j->o->metric)
                                                       : j->o->reduce == WS_CLI_PLOT_REDUCE_MIN;
  int rc = heat_points(j, &g);
  if (rc == WS_EXIT_OK) rc = report(j, g.n);
  if (rc == WS_EXIT_OK) rc = heat_cells(j, &g, lower, &most);
  if (rc == WS_EXIT_OK) {
    char title[256], sub[256];
    snprintf(title, sizeof title, "%s over %s and %s", j->o->metric, j->o->x, j->o->y);
    if (most > 1)
      snprintf(sub, sizeof sub, "%zu rows; where several share a cell (up to %zu), the %s %s is drawn", g.n,
               most, lower ? "lowest" : "highest", j->o->metric);
    else
      snprintf(sub, sizeof sub, "%zu rows, one per cell", g.n);
    ws_heatmap h = {
        title_or(j, title), sub,         j->o->x,     j->o->y, j->o->metric, g.xs, g.ys, g.nx, g.ny,
        g.values,           j->o->width, j->o->height};
    if (ws_heatmap_write(j->ctx, j->o->out, &h) != WS_OK) rc = ws_cli_error("%s", ws_errmsg(j->ctx));
  }
  grid_free(&g);
  return rc;
}

/* ---- labels ------------------------------------------------------------------------------------- */

/* "VALUE1 COL2=VALUE2 ..." of the label columns in `cols` (comma-separated)
 * for row r; missing columns were refused before. */
static void label_of(const job *j, const char *cols, size_t r, char *out) {
  size_t used = 0, first = 1;
  out[0] = '\0';
  for (const char *p = cols; *p && used < LABEL_BYTES;) {
    size_t len = strcspn(p, ","), c;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
    p += len + (p[len] == ',');
    const char *v = ws_table_find(j->t, name, &c) ? ws_table_cell(j->t, r, c) : "";
    if (!*v) continue;
    int w = first ? snprintf(out + used, LABEL_BYTES - used, "%s", v)
                  : snprintf(out + used, LABEL_BYTES - used, " %s=%s", name, v);
    used += w > 0 ? (size_t)w : 0, first = 0;
  }
  if (used >= LABEL_BYTES) out[LABEL_BYTES - 1] = '\0';
}

/* The label columns: --label's, each of which must exist, or the default's
 * that exist. */
static int label_columns(const job *j, const char *fallback, char *out, size_t n) {
  const char *cols = j->o->label ? j->o->label : fallback;
  size_t used = 0;
  out[0] = '\0';
  for (const char *p = cols; *p;) {
    size_t len = strcspn(p, ","), c;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
    p += len + (p[len] == ',');
    if (j->o->label && column(j, name, &c) != WS_EXIT_OK) return WS_EXIT_USAGE;
    if (!has(j, name)) continue;
    int w = snprintf(out + used, n - used, "%s%s", used ? "," : "", name);
    used += w > 0 && (size_t)w < n - used ? (size_t)w : 0;
  }
  return WS_EXIT_OK;
}

/* ---- roofline ----------------------------------------------------------------------------------- */

/* The gpu the rows name: --gpu, else the one value of the gpu column. */
static int pick_gpu(job *j, const char **name) {
  size_t c;
  *name = j->o->gpu;
  if (*name) return WS_EXIT_OK;
  if (!ws_table_find(j->t, "gpu", &c))
    return ws_cli_usage_error("plot", "%s has no gpu column: --gpu NAME says whose roofs to draw", j->o->csv);
  for (size_t i = 0; i < j->rs.n; i++) {
    const char *g = ws_table_cell(j->t, j->rs.row[i], c);
    if (!*name) *name = g;
    if (strcmp(g, *name) != 0)
      return ws_cli_usage_error("plot", "%s holds rows of several gpus (%s, %s, ...): --gpu NAME picks one",
                                j->o->csv, *name, g);
  }
  return WS_EXIT_OK;
}

typedef struct points {
  double *x, *y;
  char *text;          /* n labels of LABEL_BYTES */
  const char **label;  /* into text */
  size_t *group, *row; /* the category (occupancy), the row of the table */
  size_t n;
} points;

static void points_free(points *p) {
  free(p->x), free(p->y), free(p->text), free(p->label), free(p->group), free(p->row);
}

static int points_alloc(size_t n, points *p) {
  n = n ? n : 1;
  p->x = malloc(n * sizeof(double)), p->y = malloc(n * sizeof(double)), p->text = malloc(n * LABEL_BYTES);
  p->label = malloc(n * sizeof(char *)), p->group = calloc(n, sizeof(size_t)),
  p->row = malloc(n * sizeof(size_t));
  return p->x && p->y && p->text && p->label && p->group && p->row
             ? WS_EXIT_OK
             : ws_cli_error("out of memory for the points");
}

/* The rows' (x, y), leaving out empty fields and, when `positive`, values
 * a log axis cannot show; labelled by `labels` columns. */
static int xy_points(job *j, const char *xname, const char *yname, bool positive, const char *labels,
                     points *p) {
  size_t cx, cy;
  int rc = column(j, xname, &cx);
  if (rc == WS_EXIT_OK) rc = column(j, yname, &cy);
  if (rc == WS_EXIT_OK) rc = points_alloc(j->rs.n, p);
  for (size_t i = 0; rc == WS_EXIT_OK && i < j->rs.n; i++) {
    size_t r = j->rs.row[i];
    bool a, b;
    double x = 0, y = 0;
    if ((rc = number(j, r, cx, &x, &a)) != WS_EXIT_OK || (rc = number(j, r, cy, &y, &b)) != WS_EXIT_OK) break;
    if (!a || !b || (positive && (x <= 0 || y <= 0))) {
      j->rs.blank++;
      continue;
    }
    p->x[p->n] = x, p->y[p->n] = y, p->row[p->n] = r;
    p->label[p->n] = labels ? p->text + p->n * LABEL_BYTES : NULL;
    if (labels) label_of(j, labels, r, p->text + p->n * LABEL_BYTES);
    p->n++;
  }
  return rc;
}

static int draw_roofline(job *j) {
  const char *gpu = NULL;
  char labels[512] = "";
  points p = {0};
  ws_gpu_cfg cfg;
  int rc = pick_gpu(j, &gpu);
  if (rc == WS_EXIT_OK && j->o->label) rc = label_columns(j, "", labels, sizeof labels);
  if (rc == WS_EXIT_OK)
    rc = xy_points(j, j->o->x ? j->o->x : "arith_intensity", j->o->metric ? j->o->metric : "gflops", true,
                   j->o->label ? labels : NULL, &p);
  if (rc == WS_EXIT_OK) rc = report(j, p.n);
  if (rc == WS_EXIT_OK && ws_config_load_preset(j->ctx, gpu, &cfg) != WS_OK)
    rc = ws_cli_error("%s: gpu '%s': %s", j->o->csv, gpu, ws_errmsg(j->ctx));
  if (rc == WS_EXIT_OK) {
    ws_gpu_peaks pk = ws_config_peaks(&cfg);
    double l1 = fmax(pk.l1_bps_per_sm, pk.smem_bps_per_sm) * cfg.gpu.num_sms;
    ws_roof bw[] = {{"DRAM", pk.dram_bps / 1e9}, {"L2", pk.l2_bps / 1e9}, {"L1/shared", l1 / 1e9}};
    ws_roof fl[] = {{"FP32", pk.fp32_flops / 1e9}, {"FP16 tensor", pk.tensor_flops / 1e9}};
    char title[128], sub[256];
    snprintf(title, sizeof title, "Roofline of %s", gpu);
    snprintf(sub, sizeof sub, "%s: %zu points; roofs from the preset's peaks (warpscope gpus show %s)",
             cfg.gpu.full_name, p.n, gpu);
    ws_roofline r = {
        title_or(j, title),           sub, bw,          fl,          3, pk.tensor_flops > 0 ? 2 : 1, p.x, p.y,
        j->o->label ? p.label : NULL, p.n, j->o->width, j->o->height};
    if (ws_roofline_write(j->ctx, j->o->out, &r) != WS_OK) rc = ws_cli_error("%s", ws_errmsg(j->ctx));
  }
  points_free(&p);
  return rc;
}

/* ---- occupancy against cycles ------------------------------------------------------------------- */

typedef struct groups {
  const char *name[WS_SCATTER_MAX_GROUPS];
  size_t n;
} groups;

/* Each point's category: the --color-by column's text, numbered in the
 * order met. */
static int categorise(job *j, size_t col, const points *p, groups *gs) {
  for (size_t i = 0; i < p->n; i++) {
    const char *v = ws_table_cell(j->t, p->row[i], col);
    size_t k = 0;
    while (k < gs->n && strcmp(gs->name[k], v) != 0) k++;
    if (k == gs->n) {
      if (gs->n == WS_SCATTER_MAX_GROUPS)
        return ws_cli_error("%s: column '%s' holds over %d values: too many colours for one chart", j->o->csv,
                            ws_table_column_name(j->t, col), WS_SCATTER_MAX_GROUPS);
      gs->name[gs->n++] = *v ? v : "(empty)";
    }
    p->group[i] = k;
  }
  return WS_EXIT_OK;
}

static int draw_occupancy(job *j) {
  const char *xn = j->o->x ? j->o->x : "occupancy_pct", *yn = j->o->y ? j->o->y : "cycles";
  const char *cn = j->o->color_by ? j->o->color_by : (has(j, "variant") ? "variant" : NULL);
  points p = {0};
  groups gs = {{0}, 0};
  size_t cc = 0;
  int rc = cn ? column(j, cn, &cc) : WS_EXIT_OK;
  if (rc == WS_EXIT_OK) rc = xy_points(j, xn, yn, false, NULL, &p);
  if (rc == WS_EXIT_OK) rc = report(j, p.n);
  if (rc == WS_EXIT_OK && cn) rc = categorise(j, cc, &p, &gs);
  if (rc == WS_EXIT_OK) {
    double lo = p.x[0], hi = p.x[0];
    for (size_t i = 0; i < p.n; i++) lo = fmin(lo, p.x[i]), hi = fmax(hi, p.x[i]);
    if (lo >= 0 && hi <= 100)
      lo = 0, hi = 100; /* a percentage: its whole range */
    else if (!(hi > lo))
      lo -= 1, hi += 1;
    char title[256], sub[128];
    snprintf(title, sizeof title, "%s against %s", yn, xn);
    snprintf(sub, sizeof sub, "%zu points%s%s", p.n, cn ? ", coloured by " : "", cn ? cn : "");
    ws_scatter s = {
        title_or(j, title),  sub,  xn,          yn,          lo, hi, p.x, p.y, cn ? p.group : NULL, p.n,
        cn ? gs.name : NULL, gs.n, j->o->width, j->o->height};
    if (ws_scatter_write(j->ctx, j->o->out, &s) != WS_OK) rc = ws_cli_error("%s", ws_errmsg(j->ctx));
  }
  points_free(&p);
  return rc;
}

/* ---- stall reasons ------------------------------------------------------------------------------ */

typedef struct stalls {
  size_t col[WS_BARS_MAX_PARTS];
  const char *name[WS_BARS_MAX_PARTS];
  size_t nparts, nbars;
  double *shares;
  char *text;
  const char **label;
} stalls;

static int stall_columns(job *j, stalls *s) {
  for (size_t c = 0; c < ws_table_columns(j->t); c++) {
    const char *n = ws_table_column_name(j->t, c);
    if (strncmp(n, "stall_", 6) != 0) continue;
    if (s->nparts == WS_BARS_MAX_PARTS)
      return ws_cli_error("%s: over %d stall_* columns", j->o->csv, WS_BARS_MAX_PARTS);
    s->col[s->nparts] = c, s->name[s->nparts++] = n + 6;
  }
  if (s->nparts) return WS_EXIT_OK;
  char list[2048];
  ws_table_list_columns(j->t, list, sizeof list);
  return ws_cli_usage_error("plot", "%s has no stall_* columns for --kind stalls; its columns: %s", j->o->csv,
                            list);
}

/* One bar per row whose stall fields are all present. */
static int stall_bars(job *j, stalls *s, const char *labels) {
  size_t n = j->rs.n ? j->rs.n : 1;
  s->shares = malloc(n * s->nparts * sizeof(double)), s->text = malloc(n * LABEL_BYTES);
  s->label = malloc(n * sizeof(char *));
  if (!s->shares || !s->text || !s->label) return ws_cli_error("out of memory for the bars");
  for (size_t i = 0; i < j->rs.n; i++) {
    size_t r = j->rs.row[i];
    bool all = true, present;
    for (size_t k = 0; k < s->nparts && all; k++) {
      int rc = number(j, r, s->col[k], &s->shares[s->nbars * s->nparts + k], &present);
      if (rc != WS_EXIT_OK) return rc;
      all = present && s->shares[s->nbars * s->nparts + k] >= 0;
    }
    if (!all) {
      j->rs.blank++;
      continue;
    }
    char *t = s->text + s->nbars * LABEL_BYTES;
    label_of(j, labels, r, t);
    if (!*t) snprintf(t, LABEL_BYTES, "line %zu", ws_table_line(j->t, r));
    s->label[s->nbars++] = t;
  }
  return WS_EXIT_OK;
}

static int draw_stalls(job *j) {
  stalls s = {0};
  char labels[512];
  int rc = stall_columns(j, &s);
  if (rc == WS_EXIT_OK) rc = label_columns(j, "variant,bm,bn", labels, sizeof labels);
  if (rc == WS_EXIT_OK) rc = stall_bars(j, &s, labels);
  if (rc == WS_EXIT_OK) rc = report(j, s.nbars);
  if (rc == WS_EXIT_OK && s.nbars > WS_BARS_MAX_BARS)
    rc = ws_cli_error("%s: %zu rows: at most %d bars fit one chart (--gpu or a filtered CSV)", j->o->csv,
                      s.nbars, WS_BARS_MAX_BARS);
  if (rc == WS_EXIT_OK) {
    char sub[128];
    snprintf(sub, sizeof sub, "%zu points; percent of stalled warp-cycles per reason", s.nbars);
    ws_bars b = {title_or(j, "Stall reasons per point"),
                 sub,
                 "% of stalled warp-cycles",
                 s.label,
                 s.nbars,
                 s.name,
                 s.nparts,
                 s.shares,
                 j->o->width,
                 j->o->height};
    if (ws_bars_write(j->ctx, j->o->out, &b) != WS_OK) rc = ws_cli_error("%s", ws_errmsg(j->ctx));
  }
  free(s.shares), free(s.text), free(s.label);
  return rc;
}

int ws_cli_plot_draw(ws_ctx *ctx, const ws_cli_plot_opts *o, const ws_table *t) {
  job j = {ctx, o, t, {0}};
  int rc = select_rows(&j);
  if (rc == WS_EXIT_OK) switch (o->kind) {
    case WS_CLI_PLOT_HEATMAP: rc = draw_heatmap(&j); break;
    case WS_CLI_PLOT_ROOFLINE: rc = draw_roofline(&j); break;
    case WS_CLI_PLOT_OCCUPANCY: rc = draw_occupancy(&j); break;
    default: rc = draw_stalls(&j); break;
    }
  free(j.rs.row);
  return rc;
}
