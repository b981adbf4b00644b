/* kspace.c - the kernel sweep's space and the run of one of its points
 * (see kspace.h).
 *
 * Design: everything the flags name is checked as it is added (a -D
 * list, an expression and its names, an arg's syntax), so the command can
 * refuse a mistake before any point runs; what can only be judged with the
 * compiled kernel (an arg's type, the block the device accepts) is judged
 * at each point and refuses that point. The per-point work is the same
 * order exec follows: compile, pick the kernel, set the args, upload the
 * buffers, launch. */
#include "explore/kspace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "explore/expr.h"
#include "ptx/ptx.h"
#include "sim/exec/args.h"

#define FILE_MAX_BYTES ((size_t)16 << 20) /* a kernel source; ws_ptx_load_file reads it again, bounded */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

typedef struct define_list {
  char name[WS_POINT_NAME_MAX];
  int64_t *values;
  size_t n, cap;
} define_list;

typedef struct kbuf {
  char name[WS_POINT_KERNEL_MAX];
  uint8_t *data;
  uint64_t size_bytes;
} kbuf;

struct ws_kspace {
  char *path;
  bool is_cu;
  uint64_t file_hash;
  char kernel[WS_POINT_KERNEL_MAX];
  define_list defs[WS_POINT_MAX_DEFINES];
  size_t ndefs;
  ws_expr *grid, *block, *shared;
  char *args[WS_KSPACE_ITEMS_MAX];
  size_t nargs;
  kbuf bufs[WS_KSPACE_ITEMS_MAX];
  size_t nbufs;
};

/* ---- creating ------------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
  return h;
}

ws_status ws_kspace_create(ws_ctx *ctx, const char *path, ws_kspace **out) {
  *out = NULL;
  bool cu = ends_with(path, ".cu");
  if (!cu && !ends_with(path, ".ptx"))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: a kernel sweep takes a CUDA C (.cu) or PTX (.ptx) file",
                       path);
  char *text = NULL;
  size_t len = 0;
  ws_status st = ws_file_read(ctx, path, FILE_MAX_BYTES, "kernel sources", &text, &len);
  if (st != WS_OK) return st;
  ws_kspace *k = calloc(1, sizeof *k);
  if (k) k->path = strdup(path);
  if (!k || !k->path) {
    free(text);
    ws_kspace_destroy(k);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for a kernel sweep");
  }
  k->is_cu = cu;
  k->file_hash = fnv(FNV_OFFSET, text, len);
  free(text);
  *out = k;
  return WS_OK;
}

void ws_kspace_destroy(ws_kspace *k) {
  if (!k) return;
  for (size_t i = 0; i < k->nbufs; i++) free(k->bufs[i].data);
  for (size_t i = 0; i < k->nargs; i++) free(k->args[i]);
  ws_expr_destroy(k->shared);
  ws_expr_destroy(k->block);
  ws_expr_destroy(k->grid);
  for (size_t i = 0; i < k->ndefs; i++) free(k->defs[i].values);
  free(k->path);
  free(k);
}

ws_status ws_kspace_set_kernel(ws_ctx *ctx, ws_kspace *k, const char *name) {
  if (!*name || strlen(name) >= sizeof k->kernel)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--kernel '%s': 1 to %zu characters", name, sizeof k->kernel - 1);
  snprintf(k->kernel, sizeof k->kernel, "%s", name);
  return WS_OK;
}

/* ---- -D lists --------------------------------------------------------------------------- */

static bool is_identifier(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') return false;
  return true;
}

/* A whole decimal integer (sign allowed). */
static bool read_i64(const char *s, size_t n, int64_t *out) {
  char buf[32];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end || errno || isspace((unsigned char)buf[0])) return false;
  *out = v;
  return true;
}

static ws_status push_value(ws_ctx *ctx, const char *text, define_list *d, int64_t v) {
  for (size_t i = 0; i < d->n; i++)
    if (d->values[i] == v) return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: %" PRId64 " given twice", text, v);
  if (d->n >= WS_SPACE_POINTS_MAX)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "-D %s: more than %u values", text, WS_SPACE_POINTS_MAX);
  if (d->n == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 8;
    int64_t *grown = realloc(d->values, cap * sizeof *grown);
    if (!grown) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "-D %s: out of memory", text);
    d->values = grown, d->cap = cap;
  }
  d->values[d->n++] = v;
  return WS_OK;
}

/* One item: an integer or START:END[:STEP]. */
static ws_status parse_item(ws_ctx *ctx, const char *text, const char *s, size_t n, define_list *d) {
  int64_t v[3] = {0, 0, 1};
  size_t parts = 0;
  for (const char *p = s, *end = s + n; parts < 3;) {
    const char *colon = memchr(p, ':', (size_t)(end - p));
    size_t len = colon ? (size_t)(colon - p) : (size_t)(end - p);
    if (!read_i64(p, len, &v[parts++]))
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: '%.*s' is not an integer or a range START:END[:STEP]",
                         text, (int)n, s);
    if (!colon) break;
    p = colon + 1;
    if (parts == 3)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: '%.*s' has more than two ':'", text, (int)n, s);
  }
  if (parts == 1) return push_value(ctx, text, d, v[0]);
  if (v[2] <= 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: '%.*s': a step must be positive", text, (int)n, s);
  if (v[1] < v[0])
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: '%.*s' ends before it starts", text, (int)n, s);
  ws_status st = WS_OK;
  for (int64_t x = v[0]; st == WS_OK && x <= v[1]; x += v[2]) {
    st = push_value(ctx, text, d, x);
    if (x > INT64_MAX - v[2]) break;
  }
  return st;
}

ws_status ws_kspace_add_define(ws_ctx *ctx, ws_kspace *k, const char *text) {
  if (!k->is_cu)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %s: %s is PTX, compiled already: it takes no -D", text,
                       k->path);
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : strlen(text);
  if (!eq || !eq[1] || !is_identifier(text, len) || len >= WS_POINT_NAME_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "-D expects NAME=LIST (NAME an identifier of at most %d characters, LIST integers and "
                       "ranges), found '%s'",
                       WS_POINT_NAME_MAX - 1, text);
  for (size_t i = 0; i < k->ndefs; i++)
    if (strlen(k->defs[i].name) == len && memcmp(k->defs[i].name, text, len) == 0)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "-D %.*s given twice (one -D per name, its values a list)",
                         (int)len, text);
  if (k->ndefs >= WS_POINT_MAX_DEFINES)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "-D %s: at most %d names", text, WS_POINT_MAX_DEFINES);
  define_list d = {{0}, NULL, 0, 0};
  memcpy(d.name, text, len);
  ws_status st = WS_OK;
  for (const char *p = eq + 1; st == WS_OK;) {
    size_t n = strcspn(p, ",");
    st = parse_item(ctx, text, p, n, &d);
    if (!p[n]) break;
    p += n + 1;
  }
  if (st != WS_OK) {
    free(d.values);
    return st;
  }
  k->defs[k->ndefs++] = d;
  return WS_OK;
}

/* ---- dimensions ------------------------------------------------------------------------ */

/* The -D names, and a point's values for them, as an expression's env. */
typedef struct env_store {
  const char *names[WS_POINT_MAX_DEFINES];
  int64_t values[WS_POINT_MAX_DEFINES];
  ws_expr_env env;
} env_store;

static void env_of_space(const ws_kspace *k, env_store *e) {
  for (size_t i = 0; i < k->ndefs; i++) e->names[i] = k->defs[i].name, e->values[i] = 0;
  e->env = (ws_expr_env){k->ndefs, e->names, e->values};
}

static void env_of_point(const ws_point *p, env_store *e) {
  uint32_t n = p->ndefines < WS_POINT_MAX_DEFINES ? p->ndefines : WS_POINT_MAX_DEFINES;
  for (uint32_t i = 0; i < n; i++) e->names[i] = p->define_names[i], e->values[i] = p->define_values[i];
  e->env = (ws_expr_env){n, e->names, e->values};
}

static ws_status parse_dim(ws_ctx *ctx, const char *flag, const char *text, size_t items, const env_store *e,
                           ws_expr **out) {
  ws_status st = ws_expr_parse(ctx, flag, text, items, out);
  if (st == WS_OK) st = ws_expr_check_names(ctx, *out, &e->env);
  return st;
}

ws_status ws_kspace_set_dims(ws_ctx *ctx, ws_kspace *k, const char *grid, const char *block,
                             const char *shared) {
  env_store e;
  env_of_space(k, &e);
  ws_expr *g = NULL, *b = NULL, *s = NULL;
  ws_status st = parse_dim(ctx, "--grid", grid, 3, &e, &g);
  if (st == WS_OK) st = parse_dim(ctx, "--block", block, 3, &e, &b);
  if (st == WS_OK && shared) st = parse_dim(ctx, "--shared", shared, 1, &e, &s);
  if (st != WS_OK) {
    ws_expr_destroy(g), ws_expr_destroy(b), ws_expr_destroy(s);
    return st;
  }
  ws_expr_destroy(k->grid), ws_expr_destroy(k->block), ws_expr_destroy(k->shared);
  k->grid = g, k->block = b, k->shared = s;
  return WS_OK;
}

/* X[,Y[,Z]] of one expression list, missing ones 1, each 1..2^32-1. */
static ws_status eval_dim3(ws_ctx *ctx, const ws_expr *x, const char *flag, const ws_expr_env *env,
                           uint32_t out[3]) {
  for (size_t i = 0; i < 3; i++) {
    int64_t v = 1;
    ws_status st = i < ws_expr_count(x) ? ws_expr_eval(ctx, x, i, env, &v) : WS_OK;
    if (st != WS_OK) return st;
    if (v < 1 || v > UINT32_MAX)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: its %c is %" PRId64 "; a dimension must be 1..4294967295",
                         flag, "xyz"[i], v);
    out[i] = (uint32_t)v;
  }
  return WS_OK;
}

ws_status ws_kspace_dims(ws_ctx *ctx, const ws_kspace *k, const ws_point *p, uint32_t grid[3],
                         uint32_t block[3], uint32_t *shared_bytes) {
  if (!k->grid || !k->block)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a kernel sweep needs --grid and --block");
  env_store e;
  env_of_point(p, &e);
  ws_status st = eval_dim3(ctx, k->grid, "--grid", &e.env, grid);
  if (st == WS_OK) st = eval_dim3(ctx, k->block, "--block", &e.env, block);
  int64_t sh = 0;
  if (st == WS_OK && k->shared) st = ws_expr_eval(ctx, k->shared, 0, &e.env, &sh);
  if (st == WS_OK && (sh < 0 || sh > UINT32_MAX))
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "--shared: %" PRId64 " bytes; it must be 0..4294967295", sh);
  if (st == WS_OK) *shared_bytes = (uint32_t)sh;
  return st;
}

/* ---- args and buffers ---------------------------------------------------------------- */

/* The length of NAME in "NAME=...", 0 when it is not an identifier that fits. */
static size_t assigned_name(const char *text) {
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : 0;
  return is_identifier(text, len) && len < WS_POINT_KERNEL_MAX ? len : 0;
}

ws_status ws_kspace_add_arg(ws_ctx *ctx, ws_kspace *k, const char *text) {
  size_t len = assigned_name(text);
  if (!len || !text[len + 1])
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--arg expects NAME=VALUE, found '%s'", text);
  for (size_t i = 0; i < k->nargs; i++)
    if (strncmp(k->args[i], text, len + 1) == 0)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "--arg %.*s given twice", (int)len, text);
  if (k->nargs >= WS_KSPACE_ITEMS_MAX)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "at most %d --arg", WS_KSPACE_ITEMS_MAX);
  if (!(k->args[k->nargs] = strdup(text))) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  k->nargs++;
  return WS_OK;
}

ws_status ws_kspace_add_buf(ws_ctx *ctx, ws_kspace *k, const char *name, uint8_t *data, uint64_t size_bytes) {
  ws_status st = WS_OK;
  if (!is_identifier(name, strlen(name)) || strlen(name) >= WS_POINT_KERNEL_MAX || !data || !size_bytes)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "--buf %s: a parameter name and a non-empty buffer", name);
  for (size_t i = 0; st == WS_OK && i < k->nbufs; i++)
    if (strcmp(k->bufs[i].name, name) == 0)
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "--buf %s given twice", name);
  if (st == WS_OK && k->nbufs >= WS_KSPACE_ITEMS_MAX)
    st = ws_ctx_fail(ctx, WS_ERR_LIMIT, "at most %d --buf", WS_KSPACE_ITEMS_MAX);
  if (st != WS_OK) {
    free(data);
    return st;
  }
  kbuf *b = &k->bufs[k->nbufs++];
  snprintf(b->name, sizeof b->name, "%s", name);
  b->data = data, b->size_bytes = size_bytes;
  return WS_OK;
}

/* ---- expansion ------------------------------------------------------------------------- */

/* The file, the kernel's name, the args and the buffers, in order. */
static uint64_t inputs_hash(const ws_kspace *k) {
  uint64_t h = fnv(FNV_OFFSET, &k->file_hash, sizeof k->file_hash);
  h = fnv(h, k->kernel, strlen(k->kernel) + 1);
  for (size_t i = 0; i < k->nargs; i++) h = fnv(h, k->args[i], strlen(k->args[i]) + 1);
  for (size_t i = 0; i < k->nbufs; i++) {
    h = fnv(h, k->bufs[i].name, strlen(k->bufs[i].name) + 1);
    h = fnv(h, &k->bufs[i].size_bytes, sizeof k->bufs[i].size_bytes);
    h = fnv(h, k->bufs[i].data, (size_t)k->bufs[i].size_bytes);
  }
  return h;
}

/* Combination i of the -D lists (mixed radix, the last -D fastest). */
static void apply_defines(const ws_kspace *k, size_t i, ws_point *pt) {
  pt->ndefines = (uint32_t)k->ndefs;
  for (size_t d = k->ndefs; d-- > 0;) {
    memcpy(pt->define_names[d], k->defs[d].name, WS_POINT_NAME_MAX);
    pt->define_values[d] = k->defs[d].values[i % k->defs[d].n];
    i /= k->defs[d].n;
  }
}

static ws_status count_combinations(ws_ctx *ctx, const ws_kspace *k, size_t gpus, size_t *n) {
  uint64_t total = gpus;
  for (size_t d = 0; d < k->ndefs; d++) {
    total *= k->defs[d].n;
    if (total > WS_SPACE_POINTS_MAX)
      return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                         "the -D lists and --gpu make more than the %u points a sweep may have",
                         WS_SPACE_POINTS_MAX);
  }
  *n = (size_t)total;
  return WS_OK;
}

ws_status ws_kspace_expand(ws_ctx *ctx, const ws_kspace *k, const ws_space *base, ws_point **points,
                           size_t *n) {
  ws_point *gpus = NULL;
  size_t ngpus = 0, total = 0;
  ws_status st = ws_space_expand(ctx, base, &gpus, &ngpus);
  if (st == WS_OK) st = count_combinations(ctx, k, ngpus, &total);
  ws_point *pts = st == WS_OK ? calloc(total ? total : 1, sizeof *pts) : NULL;
  if (st == WS_OK && !pts) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%zu points: out of memory", total);
  size_t per_gpu = ngpus ? total / ngpus : 0;
  uint64_t hash = st == WS_OK ? inputs_hash(k) : 0;
  for (size_t i = 0; st == WS_OK && i < total; i++) {
    ws_point *pt = &pts[i];
    *pt = gpus[i / per_gpu];
    pt->kind = WS_POINT_KERNEL;
    pt->seed = 0;
    memcpy(pt->kernel, k->kernel, sizeof pt->kernel);
    apply_defines(k, i % per_gpu, pt);
    pt->inputs_hash = hash;
    if (ws_kspace_dims(ctx, k, pt, pt->grid, pt->block, &pt->shared_bytes) != WS_OK) {
      memset(pt->grid, 0, sizeof pt->grid), memset(pt->block, 0, sizeof pt->block), pt->shared_bytes = 0;
      ws_ctx_clear(ctx); /* the run refuses the point and says why */
    }
  }
  free(gpus);
  if (st != WS_OK) {
    free(pts);
    return st;
  }
  *points = pts;
  *n = total;
  return WS_OK;
}

/* ---- running a point ------------------------------------------------------------------ */

/* What the body launches. */
typedef struct launch {
  const ws_kspace *k;
  const ws_point *p;
  const ws_kernel *kernel;
  const uint8_t *consts; /* the program's __constant__ bytes for the constant bank */
  uint32_t const_bytes;
  uint32_t grid[3], block[3], shared_bytes;
} launch;

static void refuse(ws_point_result *res, const char *why) {
  memset(res, 0, sizeof *res);
  snprintf(res->why, sizeof res->why, "%s", why);
}

/* The first line of clang's diagnostics that says "error", else the first. */
static void first_error_line(const char *msg, char *out, size_t n) {
  const char *line = msg, *err = strstr(msg, "error:");
  if (err) {
    line = err;
    while (line > msg && line[-1] != '\n') line--;
  }
  size_t len = strcspn(line, "\n");
  snprintf(out, n, "%.*s", (int)len, line);
}

static ws_status upload(void *user, ws_ctx *ctx, ws_device *dev, ws_point_result *res) {
  const launch *l = user;
  ws_args args;
  ws_args_init(&args, l->kernel);
  ws_status st = l->const_bytes ? ws_device_const_write(dev, 0, l->consts, l->const_bytes) : WS_OK;
  for (size_t i = 0; i < l->k->nargs && st == WS_OK; i++) {
    char name[WS_POINT_KERNEL_MAX];
    size_t len = assigned_name(l->k->args[i]);
    snprintf(name, sizeof name, "%.*s", (int)len, l->k->args[i]);
    st = ws_args_set_text(ctx, &args, name, l->k->args[i] + len + 1);
  }
  for (size_t i = 0; i < l->k->nbufs && st == WS_OK; i++) {
    const kbuf *b = &l->k->bufs[i];
    uint64_t d = 0;
    st = ws_device_malloc(dev, b->size_bytes, &d);
    if (st == WS_OK) st = ws_device_memcpy_htod(dev, d, b->data, b->size_bytes);
    if (st == WS_OK) st = ws_args_set_ptr(ctx, &args, b->name, d);
  }
  ws_launch_stats ls;
  ws_dim3 g = {l->grid[0], l->grid[1], l->grid[2]}, bl = {l->block[0], l->block[1], l->block[2]};
  if (st == WS_OK) st = ws_device_launch(dev, l->kernel, g, bl, l->shared_bytes, &args, &ls);
  if (st == WS_ERR_INVALID || st == WS_ERR_LIMIT || st == WS_ERR_USAGE) {
    refuse(res, ws_errmsg(ctx)); /* the args or the launch's shape: this point's, not the sweep's */
    ws_ctx_clear(ctx);
    return WS_OK;
  }
  return st;
}

/* Compiles the file with the point's definitions and picks the kernel;
 * false with res refused when either fails for this point. */
static ws_status compile(ws_ctx *ctx, const launch *l, ws_ptx_result *pr, ws_point_result *res, bool *ok) {
  char defs[WS_POINT_MAX_DEFINES][WS_POINT_NAME_MAX + 24];
  const char *dp[WS_POINT_MAX_DEFINES];
  uint32_t nd = l->p->ndefines < WS_POINT_MAX_DEFINES ? l->p->ndefines : WS_POINT_MAX_DEFINES;
  for (uint32_t i = 0; i < nd; i++) {
    snprintf(defs[i], sizeof defs[i], "%.*s=%" PRId64, WS_POINT_NAME_MAX - 1, l->p->define_names[i],
             l->p->define_values[i]);
    dp[i] = defs[i];
  }
  ws_cuda_opts cuda = {.defines = dp, .ndefines = nd};
  ws_status st = ws_ptx_load_file(ctx, l->k->path, l->k->is_cu ? &cuda : NULL, NULL, pr);
  *ok = st == WS_OK;
  if (st == WS_ERR_INVALID || st == WS_ERR_LIMIT || st == WS_ERR_USAGE) {
    char why[sizeof res->why];
    first_error_line(ws_errmsg(ctx), why, sizeof why);
    refuse(res, why);
    ws_ctx_clear(ctx);
    return WS_OK;
  }
  return st;
}

/* The kernel the space names (by the program's name or the source's), or
 * the only one; its index into pr->kernels, or -1 with res refused. */
static long pick(const ws_kspace *k, const ws_ptx_result *pr, ws_point_result *res) {
  char plain[WS_NAME_MAX];
  ws_ptx_kernel_name(k->kernel, plain, sizeof plain);
  for (size_t i = 0; i < pr->nkernels; i++)
    if (!k->kernel[0]
            ? pr->nkernels == 1
            : strcmp(pr->kernels[i].name, k->kernel) == 0 || strcmp(pr->kernels[i].name, plain) == 0)
      return (long)i;
  char why[sizeof res->why];
  if (k->kernel[0])
    snprintf(why, sizeof why, "%s: no kernel named '%s'", k->path, k->kernel);
  else
    snprintf(why, sizeof why, "%s holds %zu kernels: name one with --kernel", k->path, pr->nkernels);
  refuse(res, why);
  return -1;
}

ws_status ws_kspace_run(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_result *res) {
  memset(res, 0, sizeof *res);
  const ws_kspace *k = opts ? opts->kspace : NULL;
  if (!k)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "a kernel point runs with its space (ws_point_opts.kspace)");
  launch l = {.k = k, .p = p};
  if (ws_kspace_dims(ctx, k, p, l.grid, l.block, &l.shared_bytes) != WS_OK) {
    refuse(res, ws_errmsg(ctx));
    ws_ctx_clear(ctx);
    return WS_OK;
  }
  ws_ptx_result pr;
  memset(&pr, 0, sizeof pr);
  bool compiled = false;
  ws_status st = compile(ctx, &l, &pr, res, &compiled);
  long ki = compiled ? pick(k, &pr, res) : -1;
  if (ki >= 0) {
    l.kernel = ws_program_find_kernel(pr.prog, pr.kernels[ki].name);
    l.consts = pr.const_image, l.const_bytes = pr.const_bytes;
    st = ws_point_run_body(ctx, p, opts, upload, &l, res);
    if (st == WS_OK && res->valid) {
      res->check_pass = true; /* nothing to check against: the record says "unchecked" */
      res->spill_bytes = pr.kernels[ki].spill_bytes;
      res->smem_per_cta_bytes += l.shared_bytes;
    }
  }
  ws_ptx_result_free(&pr); /* zeroed by the load, whatever it returned */
  return st;
}
