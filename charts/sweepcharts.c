/* sweepcharts.c - a sweep's rows turned into each chart kind's arrays
 * (sweepcharts.h): which rows count, which value a heatmap cell shows when
 * several rows share it, which preset's roofs a roofline draws.
 *
 * Design: a cell that is empty in a row (a field that does not apply, as
 * bm for an attention point) leaves that row out of the chart and is
 * counted; a cell that holds text where a number belongs is an error naming
 * FILE:LINE:COLUMN, since the file is then not what it claims to be. Every
 * array a chart points into lives in one store, so a built chart is freed
 * in one call and a failed build leaves nothing behind. */
#include "charts/sweepcharts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/config.h"

#define LABEL_BYTES 96
#define LIST_BYTES 2048 /* the table's column names in a message */
#define TEXT_BYTES 256
/* The bounds a roofline's title and an occupancy chart's subtitle always
 * had, so a long name is cut where it was. */
#define SHORT_TEXT_BYTES 128

typedef struct grid {
  double *px, *py, *pm, *xs, *ys, *values;
  size_t *count, *prow, *win; /* per point its row; per cell the point drawn */
  char *text;                 /* per cell a note of LABEL_BYTES */
  const char **notes;         /* into text */
  size_t n, nx, ny;
} grid;

typedef struct points {
  double *x, *y;
  char *text;          /* n labels of LABEL_BYTES */
  const char **label;  /* into text */
  size_t *group, *row; /* the category (occupancy), the row of the table */
  size_t n;
} points;

typedef struct stalls {
  size_t col[WS_BARS_MAX_PARTS];
  const char *name[WS_BARS_MAX_PARTS];
  size_t nparts, nbars;
  bool apart; /* part 0 is "selected" */
  double *shares;
  char *text;
  const char **label;
} stalls;

struct ws_charts_store {
  grid g;      /* the heatmap's */
  points p;    /* the roofline's and the occupancy chart's */
  stalls s;    /* the stall bars' */
  size_t *row; /* the rows to draw, in file order */
  const char *groups[WS_SCATTER_MAX_GROUPS];
  ws_roof bandwidth[3], compute[2];
  char title[TEXT_BYTES], sub[TEXT_BYTES];
};

typedef struct job {
  ws_ctx *ctx;
  const ws_charts_opts *o;
  const ws_table *t;
  ws_charts_tally *tally;
  ws_charts_store *st;
  size_t n; /* rows in st->row */
} job;

/* ---- columns and rows --------------------------------------------------------------------------- */

static ws_status column(const job *j, const char *name, size_t *col) {
  if (ws_table_find(j->t, name, col)) return WS_OK;
  char list[LIST_BYTES];
  ws_table_list_columns(j->t, list, sizeof list);
  return ws_ctx_fail(j->ctx, WS_ERR_USAGE, "%s has no column '%s'; its columns: %s", j->o->source, name,
                     list);
}

static bool has(const job *j, const char *name) {
  size_t c;
  return ws_table_find(j->t, name, &c);
}

/* valid = yes and check not fail (unless all), and of the wanted gpu. */
static bool wanted(const job *j, size_t r) {
  size_t c;
  bool ok =
      j->o->all || ((!ws_table_find(j->t, "valid", &c) || strcmp(ws_table_cell(j->t, r, c), "yes") == 0) &&
                    (!ws_table_find(j->t, "check", &c) || strcmp(ws_table_cell(j->t, r, c), "fail") != 0));
  if (!ok) return j->tally->invalid++, false;
  if (j->o->gpu && ws_table_find(j->t, "gpu", &c) && strcmp(ws_table_cell(j->t, r, c), j->o->gpu) != 0)
    return j->tally->other_gpu++, false;
  return true;
}

static ws_status select_rows(job *j) {
  size_t total = j->tally->total = ws_table_rows(j->t);
  j->st->row = malloc((total ? total : 1) * sizeof *j->st->row);
  if (!j->st->row) return ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for %zu rows", total);
  for (size_t r = 0; r < total; r++)
    if (wanted(j, r)) j->st->row[j->n++] = r;
  return WS_OK;
}

/* The number in row r's column c; *present false for an empty field. */
static ws_status number(job *j, size_t r, size_t c, double *v, bool *present) {
  *present = ws_table_cell(j->t, r, c)[0] != '\0';
  if (*present) return ws_table_number(j->ctx, j->t, r, c, v);
  if (!j->tally->blank_col) j->tally->blank_col = ws_table_column_name(j->t, c);
  return WS_OK;
}

/* The points are gathered: the tally holds; a failure when none is left. */
static ws_status counted(const job *j, size_t drawn) {
  ws_charts_tally *ty = j->tally;
  ty->counted = true, ty->drawn = drawn;
  if (drawn) return WS_OK;
  return ws_ctx_fail(j->ctx, WS_ERR_INVALID, "%s: no rows to plot (%zu rows, %zu left out)", j->o->source,
                     ty->total, ty->total);
}

static const char *title_or(const job *j, const char *fallback) {
  return j->o->title ? j->o->title : fallback;
}

/* ---- labels ------------------------------------------------------------------------------------- */

/* Columns whose values name themselves ("tiled", "flash", "a100"): a
 * label shows them alone. Every other column shows as NAME=VALUE, since a
 * bare "64" does not say whether it is bm or bn. */
static bool names_itself(const char *col) {
  static const char *const cols[] = {"variant", "attn", "gpu", "kernel"};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    if (strcmp(col, cols[i]) == 0) return true;
  return false;
}

/* "tiled bm=64 bn=32 ..." of the label columns in `cols` (comma-separated)
 * for row r; missing columns were refused before. */
static void label_of(const job *j, const char *cols, size_t r, char *out) {
  size_t used = 0;
  out[0] = '\0';
  for (const char *p = cols; *p && used < LABEL_BYTES;) {
    size_t len = strcspn(p, ","), c;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
    p += len + (p[len] == ',');
    const char *v = ws_table_find(j->t, name, &c) ? ws_table_cell(j->t, r, c) : "";
    if (!*v) continue;
    const char *sep = used ? " " : "";
    int w = names_itself(name) ? snprintf(out + used, LABEL_BYTES - used, "%s%s", sep, v)
                               : snprintf(out + used, LABEL_BYTES - used, "%s%s=%s", sep, name, v);
    used += w > 0 ? (size_t)w : 0;
  }
  if (used >= LABEL_BYTES) out[LABEL_BYTES - 1] = '\0';
}

/* The label columns: the options', each of which must exist, or the
 * default's that exist. */
static ws_status label_columns(const job *j, const char *fallback, char *out, size_t n) {
  const char *cols = j->o->label ? j->o->label : fallback;
  size_t used = 0;
  out[0] = '\0';
  for (const char *p = cols; *p;) {
    size_t len = strcspn(p, ","), c;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
    p += len + (p[len] == ',');
    if (j->o->label && column(j, name, &c) != WS_OK) return WS_ERR_USAGE;
    if (!has(j, name)) continue;
    int w = snprintf(out + used, n - used, "%s%s", used ? "," : "", name);
    used += w > 0 && (size_t)w < n - used ? (size_t)w : 0;
  }
  return WS_OK;
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

/* Which way each metric of a sweep's table is better, by a word of its
 * column's name, the first that matches; a column no word names (gflops,
 * occupancy, hit rates, ipc) is better higher. Issuing is the one warp
 * state a kernel wants more of, so stall_selected is named before the
 * stalls. */
typedef struct metric {
  const char *word;
  bool lower_is_better;
} metric;

static const metric metrics[] = {
    {"stall_selected", false}, {"stall_", true},  {"cycles", true},    {"time", true},
    {"bytes", true},           {"err", true},     {"conflicts", true}, {"refusals", true},
    {"launches", true},        {"gflops", false}, {"pct", false},      {"ipc", false},
};

bool ws_charts_lower_is_better(const char *metric_name) {
  for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
    if (strstr(metric_name, metrics[i].word)) return metrics[i].lower_is_better;
  return false;
}

static void grid_free(grid *g) {
  free(g->px), free(g->py), free(g->pm), free(g->xs), free(g->ys), free(g->values), free(g->count);
  free(g->prow), free(g->win), free(g->text), free(g->notes);
}

static ws_status heat_points(job *j, grid *g) {
  size_t cx, cy, cm;
  ws_status st = column(j, j->o->x, &cx);
  if (st == WS_OK) st = column(j, j->o->y, &cy);
  if (st == WS_OK) st = column(j, j->o->metric, &cm);
  if (st != WS_OK) return st;
  size_t n = j->n ? j->n : 1;
  g->px = malloc(n * sizeof(double)), g->py = malloc(n * sizeof(double)), g->pm = malloc(n * sizeof(double));
  g->xs = malloc(n * sizeof(double)), g->ys = malloc(n * sizeof(double)),
  g->prow = malloc(n * sizeof(size_t));
  if (!g->px || !g->py || !g->pm || !g->xs || !g->ys || !g->prow)
    return ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for the heatmap");
  for (size_t i = 0; i < j->n; i++) {
    size_t r = j->st->row[i];
    bool a, b, c;
    double x = 0, y = 0, m = 0;
    if ((st = number(j, r, cx, &x, &a)) != WS_OK || (st = number(j, r, cy, &y, &b)) != WS_OK ||
        (st = number(j, r, cm, &m, &c)) != WS_OK)
      return st;
    if (!a || !b || !c) {
      j->tally->blank++;
      continue;
    }
    g->prow[g->n] = r;
    g->px[g->n] = g->xs[g->n] = x, g->py[g->n] = g->ys[g->n] = y, g->pm[g->n++] = m;
  }
  return WS_OK;
}

/* Each cell's best value and how many rows shared it; the most shared. */
static ws_status heat_cells(job *j, grid *g, bool lower, size_t *most) {
  g->nx = distinct(g->xs, g->n), g->ny = distinct(g->ys, g->n);
  if (g->nx > WS_HEATMAP_MAX_SIDE || g->ny > WS_HEATMAP_MAX_SIDE)
    return ws_ctx_fail(j->ctx, WS_ERR_INVALID,
                       "%s: %zu distinct values of %s and %zu of %s: a heatmap shows at most %d per axis",
                       j->o->source, g->nx, j->o->x, g->ny, j->o->y, WS_HEATMAP_MAX_SIDE);
  g->values = malloc(g->nx * g->ny * sizeof(double) + 1),
  g->count = calloc(g->nx * g->ny + 1, sizeof(size_t)), g->win = calloc(g->nx * g->ny + 1, sizeof(size_t));
  if (!g->values || !g->count || !g->win)
    return ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for the heatmap");
  for (size_t i = 0; i < g->nx * g->ny; i++) g->values[i] = NAN;
  *most = 0;
  for (size_t i = 0; i < g->n; i++) {
    size_t k = index_of(g->ys, g->ny, g->py[i]) * g->nx + index_of(g->xs, g->nx, g->px[i]);
    double v = g->values[k], m = g->pm[i];
    if (g->count[k]++ == 0 || (lower ? m < v : m > v)) g->values[k] = m, g->win[k] = i;
    if (g->count[k] > *most) *most = g->count[k];
  }
  return WS_OK;
}

/* The columns a shared cell's note may name: --label's, else the sweep's
 * parameters (those the table has); never the axes. */
#define PARAMS                                                                                               \
  "variant,m,n,k,bm,bn,bk,tm,tn,wm,wn,threads,seq,heads,dhead,attn,br,bc,kernel,defines,grid_x,grid_y,"      \
  "grid_z,block_x,block_y,block_z,shared_bytes,sets,l2,sample_waves,sample_rounds"
#define MAX_NOTE_COLS 64

static size_t cell_of(const grid *g, size_t i) {
  return index_of(g->ys, g->ny, g->py[i]) * g->nx + index_of(g->xs, g->nx, g->px[i]);
}

/* The note columns, split in place; their count. */
static size_t note_columns(const job *j, char *buf, size_t bytes, const char **col) {
  size_t n = 0;
  if (label_columns(j, PARAMS, buf, bytes) != WS_OK) return 0;
  char *save = NULL;
  for (char *p = strtok_r(buf, ",", &save); p && n < MAX_NOTE_COLS; p = strtok_r(NULL, ",", &save))
    if (strcmp(p, j->o->x) != 0 && strcmp(p, j->o->y) != 0) col[n++] = p;
  return n;
}

/* Per cell, a bit for each note column whose text differs among the
 * cell's rows. */
static void varying(const job *j, const grid *g, const size_t *cc, size_t ncols, uint64_t *vary) {
  for (size_t i = 0; i < g->n; i++) {
    size_t k = cell_of(g, i), w = g->prow[g->win[k]];
    for (size_t c = 0; c < ncols; c++)
      if (strcmp(ws_table_cell(j->t, g->prow[i], cc[c]), ws_table_cell(j->t, w, cc[c])) != 0)
        vary[k] |= (uint64_t)1 << c;
  }
}

/* Cell k's note: the drawn row's values of the columns `vary` marks. */
static void note_of(const job *j, const grid *g, const char *const *col, size_t ncols, uint64_t vary,
                    size_t k) {
  char list[512];
  size_t used = 0;
  for (size_t c = 0; c < ncols; c++)
    if (vary >> c & 1) {
      int w = snprintf(list + used, sizeof list - used, "%s%s", used ? "," : "", col[c]);
      used += w > 0 && (size_t)w < sizeof list - used ? (size_t)w : 0;
    }
  label_of(j, list, g->prow[g->win[k]], g->text + k * LABEL_BYTES);
  g->notes[k] = g->text + k * LABEL_BYTES;
}

/* Under a shared cell's value, what its drawn row was run with where the
 * cell's rows differ ("tm=8 tn=4"): the parameters the axes hide. */
static ws_status cell_notes(job *j, grid *g) {
  char buf[512];
  const char *col[MAX_NOTE_COLS];
  size_t cc[MAX_NOTE_COLS], ncols = note_columns(j, buf, sizeof buf, col), cells = g->nx * g->ny;
  for (size_t c = 0; c < ncols; c++) ws_table_find(j->t, col[c], &cc[c]);
  uint64_t *vary = calloc(cells, sizeof *vary);
  g->text = calloc(cells, LABEL_BYTES), g->notes = calloc(cells, sizeof *g->notes);
  if (!vary || !g->text || !g->notes) {
    free(vary);
    return ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for the heatmap's notes");
  }
  varying(j, g, cc, ncols, vary);
  for (size_t k = 0; k < cells; k++)
    if (vary[k]) note_of(j, g, col, ncols, vary[k], k);
  free(vary);
  return WS_OK;
}

static ws_status build_heatmap(job *j, ws_heatmap *h) {
  const ws_charts_opts *o = j->o;
  if (!o->x || !o->y || !o->metric)
    return ws_ctx_fail(j->ctx, WS_ERR_USAGE, "a heatmap needs x, y and metric columns");
  grid *g = &j->st->g;
  size_t most = 0;
  bool lower = o->reduce == WS_CHARTS_REDUCE_AUTO ? ws_charts_lower_is_better(o->metric)
                                                  : o->reduce == WS_CHARTS_REDUCE_MIN;
  ws_status st = heat_points(j, g);
  if (st == WS_OK) st = counted(j, g->n);
  if (st == WS_OK) st = heat_cells(j, g, lower, &most);
  if (st == WS_OK) st = cell_notes(j, g);
  if (st != WS_OK) return st;
  char *title = j->st->title, *sub = j->st->sub;
  snprintf(title, TEXT_BYTES, "%s over %s and %s", o->metric, o->x, o->y);
  if (most > 1)
    snprintf(sub, TEXT_BYTES,
             "%zu rows; where several share a cell (up to %zu), the %s %s is drawn, over what set it apart",
             g->n, most, lower ? "lowest" : "highest", o->metric);
  else
    snprintf(sub, TEXT_BYTES, "%zu rows, one per cell", g->n);
  *h = (ws_heatmap){title_or(j, title),
                    sub,
                    o->x,
                    o->y,
                    o->metric,
                    g->xs,
                    g->ys,
                    g->nx,
                    g->ny,
                    g->values,
                    o->width,
                    o->height,
                    ws_charts_lower_is_better(o->metric),
                    g->notes};
  return WS_OK;
}

/* ---- roofline ----------------------------------------------------------------------------------- */

/* The gpu the rows name: the options', else the one value of the gpu
 * column. */
static ws_status pick_gpu(const job *j, const char **name) {
  size_t c;
  *name = j->o->gpu;
  if (*name) return WS_OK;
  if (!ws_table_find(j->t, "gpu", &c))
    return ws_ctx_fail(j->ctx, WS_ERR_USAGE, "%s has no gpu column: --gpu NAME says whose roofs to draw",
                       j->o->source);
  for (size_t i = 0; i < j->n; i++) {
    const char *g = ws_table_cell(j->t, j->st->row[i], c);
    if (!*name) *name = g;
    if (strcmp(g, *name) != 0)
      return ws_ctx_fail(j->ctx, WS_ERR_USAGE,
                         "%s holds rows of several gpus (%s, %s, ...): --gpu NAME picks one", j->o->source,
                         *name, g);
  }
  return WS_OK;
}

static void points_free(points *p) {
  free(p->x), free(p->y), free(p->text), free(p->label), free(p->group), free(p->row);
}

static ws_status points_alloc(const job *j, points *p) {
  size_t n = j->n ? j->n : 1;
  p->x = malloc(n * sizeof(double)), p->y = malloc(n * sizeof(double)), p->text = malloc(n * LABEL_BYTES);
  p->label = malloc(n * sizeof(char *)), p->group = calloc(n, sizeof(size_t)),
  p->row = malloc(n * sizeof(size_t));
  return p->x && p->y && p->text && p->label && p->group && p->row
             ? WS_OK
             : ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for the points");
}

/* The rows' (x, y), leaving out empty fields and, when `positive`, values
 * a log axis cannot show; labelled by `labels` columns. */
static ws_status xy_points(job *j, const char *xname, const char *yname, bool positive, const char *labels,
                           points *p) {
  size_t cx, cy;
  ws_status st = column(j, xname, &cx);
  if (st == WS_OK) st = column(j, yname, &cy);
  if (st == WS_OK) st = points_alloc(j, p);
  for (size_t i = 0; st == WS_OK && i < j->n; i++) {
    size_t r = j->st->row[i];
    bool a, b;
    double x = 0, y = 0;
    if ((st = number(j, r, cx, &x, &a)) != WS_OK || (st = number(j, r, cy, &y, &b)) != WS_OK) break;
    if (!a || !b || (positive && (x <= 0 || y <= 0))) {
      *(!a || !b ? &j->tally->blank : &j->tally->unplottable) += 1;
      continue;
    }
    p->x[p->n] = x, p->y[p->n] = y, p->row[p->n] = r;
    p->label[p->n] = labels ? p->text + p->n * LABEL_BYTES : NULL;
    if (labels) label_of(j, labels, r, p->text + p->n * LABEL_BYTES);
    p->n++;
  }
  return st;
}

/* The preset of `gpu`, its message prefixed by the table and the gpu. */
static ws_status load_preset(const job *j, const char *gpu, ws_gpu_cfg *cfg) {
  ws_status st = ws_config_load_preset(j->ctx, gpu, cfg);
  if (st == WS_OK) return WS_OK;
  char why[WS_ERRMSG_MAX_BYTES]; /* the message is rewritten in place: copy it first */
  snprintf(why, sizeof why, "%s", ws_errmsg(j->ctx));
  return ws_ctx_fail(j->ctx, st, "%s: gpu '%s': %s", j->o->source, gpu, why);
}

/* The bandwidth roofs (DRAM, L2, L1/shared) and compute roofs (FP32, FP16
 * tensor) of a preset, in GB/s and GFLOP/s; the number of compute roofs. */
static size_t roofs(const ws_gpu_cfg *cfg, ws_roof *bandwidth, ws_roof *compute) {
  ws_gpu_peaks pk = ws_config_peaks(cfg);
  double l1_bps = fmax(pk.l1_bps_per_sm, pk.smem_bps_per_sm) * cfg->gpu.num_sms;
  bandwidth[0] = (ws_roof){"DRAM", pk.dram_bps / 1e9};
  bandwidth[1] = (ws_roof){"L2", pk.l2_bps / 1e9};
  bandwidth[2] = (ws_roof){"L1/shared", l1_bps / 1e9};
  compute[0] = (ws_roof){"FP32", pk.fp32_flops / 1e9};
  compute[1] = (ws_roof){"FP16 tensor", pk.tensor_flops / 1e9};
  return pk.tensor_flops > 0 ? 2 : 1;
}

static ws_status build_roofline(job *j, ws_roofline *out) {
  const ws_charts_opts *o = j->o;
  ws_charts_store *s = j->st;
  const char *gpu = NULL;
  char labels[512] = "";
  ws_gpu_cfg cfg;
  ws_status st = pick_gpu(j, &gpu);
  if (st == WS_OK && o->label) st = label_columns(j, "", labels, sizeof labels);
  if (st == WS_OK)
    st = xy_points(j, o->x ? o->x : "arith_intensity", o->metric ? o->metric : "gflops", true,
                   o->label ? labels : NULL, &s->p);
  if (st == WS_OK) st = counted(j, s->p.n);
  if (st == WS_OK) st = load_preset(j, gpu, &cfg);
  if (st != WS_OK) return st;
  size_t ncompute = roofs(&cfg, s->bandwidth, s->compute);
  snprintf(s->title, SHORT_TEXT_BYTES, "Roofline of %s", gpu);
  snprintf(s->sub, TEXT_BYTES, "%s: %zu points; roofs from the preset's peaks (warpscope gpus show %s)",
           cfg.gpu.full_name, s->p.n, gpu);
  *out = (ws_roofline){
      title_or(j, s->title),        s->sub, s->bandwidth, s->compute, 3, ncompute, s->p.x, s->p.y,
      o->label ? s->p.label : NULL, s->p.n, o->width,     o->height};
  return WS_OK;
}

/* ---- occupancy against cycles ------------------------------------------------------------------- */

/* Each point's category: the colour column's text, numbered in the order
 * met; the number of categories. */
static ws_status categorise(const job *j, size_t col, const points *p, const char **names, size_t *n) {
  for (size_t i = 0; i < p->n; i++) {
    const char *v = ws_table_cell(j->t, p->row[i], col);
    size_t k = 0;
    while (k < *n && strcmp(names[k], v) != 0) k++;
    if (k == *n) {
      if (*n == WS_SCATTER_MAX_GROUPS)
        return ws_ctx_fail(j->ctx, WS_ERR_INVALID,
                           "%s: column '%s' holds over %d values: too many colours for one chart",
                           j->o->source, ws_table_column_name(j->t, col), WS_SCATTER_MAX_GROUPS);
      names[(*n)++] = *v ? v : "(empty)";
    }
    p->group[i] = k;
  }
  return WS_OK;
}

/* Whether text is a number and nothing else; its value. */
static bool numeric(const char *text, double *v) {
  char *end;
  *v = strtod(text, &end);
  return *text && !*end;
}

/* Numeric categories (threads per CTA, a tile) in ascending order, the
 * empty one last; the points' indices follow. Names of text keep the
 * order met: a sweep lists its variants in the ladder's order. */
static void sort_groups(points *p, const char **names, size_t n) {
  double v[WS_SCATTER_MAX_GROUPS];
  size_t order[WS_SCATTER_MAX_GROUPS], rank[WS_SCATTER_MAX_GROUPS];
  for (size_t k = 0; k < n; k++)
    if (strcmp(names[k], "(empty)") == 0)
      v[k] = INFINITY;
    else if (!numeric(names[k], &v[k]))
      return;
  for (size_t k = 0; k < n; k++) order[k] = k;
  for (size_t k = 1; k < n; k++) /* insertion sort: stable, and at most 64 names */
    for (size_t i = k; i > 0 && v[order[i]] < v[order[i - 1]]; i--) {
      size_t t = order[i];
      order[i] = order[i - 1], order[i - 1] = t;
    }
  const char *sorted[WS_SCATTER_MAX_GROUPS];
  for (size_t k = 0; k < n; k++) sorted[k] = names[order[k]], rank[order[k]] = k;
  for (size_t k = 0; k < n; k++) names[k] = sorted[k];
  for (size_t i = 0; i < p->n; i++) p->group[i] = rank[p->group[i]];
}

/* The x axis: a percentage's whole range, else the values' (widened when
 * they are all equal). */
static void x_range(const points *p, double *lo, double *hi) {
  *lo = p->x[0], *hi = p->x[0];
  for (size_t i = 0; i < p->n; i++) *lo = fmin(*lo, p->x[i]), *hi = fmax(*hi, p->x[i]);
  if (*lo >= 0 && *hi <= 100)
    *lo = 0, *hi = 100;
  else if (!(*hi > *lo))
    *lo -= 1, *hi += 1;
}

static ws_status build_occupancy(job *j, ws_scatter *out) {
  const ws_charts_opts *o = j->o;
  ws_charts_store *s = j->st;
  const char *xn = o->x ? o->x : "occupancy_pct", *yn = o->y ? o->y : "cycles";
  const char *cn = o->color_by ? o->color_by : (has(j, "variant") ? "variant" : NULL);
  size_t cc = 0, ngroups = 0;
  ws_status st = cn ? column(j, cn, &cc) : WS_OK;
  if (st == WS_OK) st = xy_points(j, xn, yn, false, NULL, &s->p);
  if (st == WS_OK) st = counted(j, s->p.n);
  if (st == WS_OK && cn) st = categorise(j, cc, &s->p, s->groups, &ngroups);
  if (st != WS_OK) return st;
  sort_groups(&s->p, s->groups, ngroups);
  double lo, hi;
  x_range(&s->p, &lo, &hi);
  snprintf(s->title, TEXT_BYTES, "%s against %s", yn, xn);
  snprintf(s->sub, SHORT_TEXT_BYTES, "%zu points%s%s", s->p.n, cn ? ", coloured by " : "", cn ? cn : "");
  *out = (ws_scatter){title_or(j, s->title),
                      s->sub,
                      xn,
                      yn,
                      lo,
                      hi,
                      s->p.x,
                      s->p.y,
                      cn ? s->p.group : NULL,
                      s->p.n,
                      cn ? s->groups : NULL,
                      ngroups,
                      o->width,
                      o->height};
  return WS_OK;
}

/* ---- stall reasons ------------------------------------------------------------------------------ */

static void stalls_free(stalls *s) { free(s->shares), free(s->text), free(s->label); }

/* "selected" counts the warp-cycles a warp issued: not a stall but the
 * share the stalls leave, so it goes first, at the bottom of each bar, set
 * apart (grey, hatched) and named so in the legend. */
static void set_apart(stalls *s) {
  for (size_t k = 0; k < s->nparts; k++) {
    if (strcmp(s->name[k], "selected") != 0) continue;
    size_t col = s->col[k];
    memmove(&s->col[1], &s->col[0], k * sizeof s->col[0]);
    memmove(&s->name[1], &s->name[0], k * sizeof s->name[0]);
    s->col[0] = col, s->name[0] = "selected (issuing)", s->apart = true;
    return;
  }
}

static ws_status stall_columns(const job *j, stalls *s) {
  for (size_t c = 0; c < ws_table_columns(j->t); c++) {
    const char *n = ws_table_column_name(j->t, c);
    if (strncmp(n, "stall_", 6) != 0) continue;
    if (s->nparts == WS_BARS_MAX_PARTS)
      return ws_ctx_fail(j->ctx, WS_ERR_INVALID, "%s: over %d stall_* columns", j->o->source,
                         WS_BARS_MAX_PARTS);
    s->col[s->nparts] = c, s->name[s->nparts++] = n + 6;
  }
  set_apart(s);
  if (s->nparts) return WS_OK;
  char list[LIST_BYTES];
  ws_table_list_columns(j->t, list, sizeof list);
  return ws_ctx_fail(j->ctx, WS_ERR_USAGE, "%s has no stall_* columns for --kind stalls; its columns: %s",
                     j->o->source, list);
}

/* One bar per row whose stall fields are all present. */
static ws_status stall_bars(job *j, stalls *s, const char *labels) {
  size_t n = j->n ? j->n : 1;
  s->shares = malloc(n * s->nparts * sizeof(double)), s->text = malloc(n * LABEL_BYTES);
  s->label = malloc(n * sizeof(char *));
  if (!s->shares || !s->text || !s->label)
    return ws_ctx_fail(j->ctx, WS_ERR_NOMEM, "out of memory for the bars");
  for (size_t i = 0; i < j->n; i++) {
    size_t r = j->st->row[i];
    bool all = true, present = true;
    for (size_t k = 0; k < s->nparts && all; k++) {
      ws_status st = number(j, r, s->col[k], &s->shares[s->nbars * s->nparts + k], &present);
      if (st != WS_OK) return st;
      all = present && s->shares[s->nbars * s->nparts + k] >= 0;
    }
    if (!all) {
      *(!present ? &j->tally->blank : &j->tally->unplottable) += 1;
      continue;
    }
    char *t = s->text + s->nbars * LABEL_BYTES;
    label_of(j, labels, r, t);
    if (!*t) snprintf(t, LABEL_BYTES, "line %zu", ws_table_line(j->t, r));
    s->label[s->nbars++] = t;
  }
  return WS_OK;
}

static ws_status build_stalls(job *j, ws_bars *out) {
  stalls *s = &j->st->s;
  char labels[512];
  ws_status st = stall_columns(j, s);
  if (st == WS_OK) st = label_columns(j, "variant,bm,bn", labels, sizeof labels);
  if (st == WS_OK) st = stall_bars(j, s, labels);
  if (st == WS_OK) st = counted(j, s->nbars);
  if (st == WS_OK && s->nbars > WS_BARS_MAX_BARS)
    st = ws_ctx_fail(j->ctx, WS_ERR_INVALID,
                     "%s: %zu rows: at most %d bars fit one chart (--gpu or a filtered CSV)", j->o->source,
                     s->nbars, WS_BARS_MAX_BARS);
  if (st != WS_OK) return st;
  if (s->apart)
    snprintf(j->st->sub, TEXT_BYTES,
             "%zu points; percent of warp-cycles per state; selected (grey, hatched) is issuing, not a stall",
             s->nbars);
  else
    snprintf(j->st->sub, TEXT_BYTES, "%zu points; percent of stalled warp-cycles per reason", s->nbars);
  *out = (ws_bars){title_or(j, "Stall reasons per point"),
                   j->st->sub,
                   "% of warp-cycles",
                   s->label,
                   s->nbars,
                   s->name,
                   s->nparts,
                   s->shares,
                   j->o->width,
                   j->o->height,
                   s->apart};
  return WS_OK;
}

/* ---- the chart ---------------------------------------------------------------------------------- */

static void store_free(ws_charts_store *s) {
  if (!s) return;
  grid_free(&s->g), points_free(&s->p), stalls_free(&s->s), free(s->row);
  free(s);
}

static ws_status build_kind(job *j, ws_charts_chart *c) {
  switch (c->kind) {
  case WS_CHARTS_HEATMAP: return build_heatmap(j, &c->as.heatmap);
  case WS_CHARTS_ROOFLINE: return build_roofline(j, &c->as.roofline);
  case WS_CHARTS_OCCUPANCY: return build_occupancy(j, &c->as.occupancy);
  case WS_CHARTS_STALLS: return build_stalls(j, &c->as.stalls);
  default: return ws_ctx_fail(j->ctx, WS_ERR_USAGE, "no chart kind %d", (int)c->kind);
  }
}

ws_status ws_charts_build(ws_ctx *ctx, const ws_charts_opts *o, const ws_table *t, ws_charts_tally *tally,
                          ws_charts_chart *out) {
  *tally = (ws_charts_tally){0};
  *out = (ws_charts_chart){.kind = o->kind};
  if (ws_table_rows(t) > WS_CHARTS_MAX_ROWS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: %zu rows, over the %u a chart is drawn from (a sweep's largest space)", o->source,
                       ws_table_rows(t), WS_CHARTS_MAX_ROWS);
  job j = {ctx, o, t, tally, calloc(1, sizeof(ws_charts_store)), 0};
  if (!j.st) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for a chart");
  ws_status st = select_rows(&j);
  if (st == WS_OK) st = build_kind(&j, out);
  if (st != WS_OK) {
    store_free(j.st);
    *out = (ws_charts_chart){.kind = o->kind};
    return st;
  }
  out->store = j.st;
  return WS_OK;
}

ws_status ws_charts_write(ws_ctx *ctx, const char *path, const ws_charts_chart *c) {
  switch (c->kind) {
  case WS_CHARTS_HEATMAP: return ws_heatmap_write(ctx, path, &c->as.heatmap);
  case WS_CHARTS_ROOFLINE: return ws_roofline_write(ctx, path, &c->as.roofline);
  case WS_CHARTS_OCCUPANCY: return ws_scatter_write(ctx, path, &c->as.occupancy);
  case WS_CHARTS_STALLS: return ws_bars_write(ctx, path, &c->as.stalls);
  default: return ws_ctx_fail(ctx, WS_ERR_USAGE, "no chart kind %d", (int)c->kind);
  }
}

void ws_charts_free(ws_charts_chart *c) {
  if (!c) return;
  store_free(c->store);
  c->store = NULL;
}

ws_status ws_charts_draw(ws_ctx *ctx, const ws_charts_opts *o, const ws_table *t, const char *path,
                         ws_charts_tally *tally) {
  ws_charts_chart c;
  ws_status st = ws_charts_build(ctx, o, t, tally, &c);
  if (st == WS_OK) st = ws_charts_write(ctx, path, &c);
  ws_charts_free(&c);
  return st;
}
