/* space.c - parsing a sweep's value lists and expanding their product.
 *
 * Design: a list is parsed whole into a fresh ws_space_list and only then
 * replaces the old one, so a refused flag leaves the space as it was. Every
 * size (a range's length, a list's, the product) is checked against
 * WS_SPACE_POINTS_MAX before memory is asked for it: "1:4000000000" is a
 * message, not four billion values. */
#include "explore/space.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "models/kgen/gemmgen.h"

static const char *const param_names[WS_SPACE_PARAM_COUNT] = {
    "gpu", "m",  "n",       "k",   "variant", "bm",    "bn",   "bk", "tm", "tn",
    "wm",  "wn", "threads", "seq", "heads",   "dhead", "attn", "br", "bc", "seed"};

static const char *const attn_names[] = {"naive", "flash"};

const char *ws_space_param_name(ws_space_param p) {
  return (unsigned)p < WS_SPACE_PARAM_COUNT ? param_names[p] : "?";
}

ws_space_param ws_space_param_find(const char *name) {
  int p = 0;
  while (p < WS_SPACE_PARAM_COUNT && strcmp(param_names[p], name) != 0) p++;
  return (ws_space_param)p;
}

bool ws_space_uses(ws_point_kind kind, ws_space_param p) {
  if (p == WS_SPACE_GPU) return true;
  if (p == WS_SPACE_SEED) return kind != WS_POINT_KERNEL; /* a kernel's inputs are its --buf specs */
  if (kind == WS_POINT_GEMM) return p >= WS_SPACE_M && p <= WS_SPACE_THREADS;
  if (kind == WS_POINT_ATTENTION) return p >= WS_SPACE_SEQ && p <= WS_SPACE_BC;
  return false;
}

static bool is_name_param(ws_space_param p) {
  return p == WS_SPACE_GPU || p == WS_SPACE_VARIANT || p == WS_SPACE_ATTN;
}

static bool is_tile_param(ws_space_param p) {
  return (p >= WS_SPACE_BM && p <= WS_SPACE_THREADS) || p == WS_SPACE_BR || p == WS_SPACE_BC;
}

static void list_free(ws_space_list *l) {
  free(l->num);
  free(l->name);
  memset(l, 0, sizeof *l);
}

void ws_space_init(ws_space *s, ws_point_kind kind) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  for (int p = 0; p < WS_SPACE_PARAM_COUNT; p++) {
    if (!is_tile_param((ws_space_param)p) && p != WS_SPACE_SEED) continue;
    s->lists[p].num = calloc(1, sizeof *s->lists[p].num);
    if (!s->lists[p].num) continue; /* an empty list: ws_space_count names it */
    s->lists[p].num[0] = p == WS_SPACE_SEED ? 1 : 0;
    s->lists[p].n = 1;
  }
}

void ws_space_free(ws_space *s) {
  if (!s) return;
  for (int p = 0; p < WS_SPACE_PARAM_COUNT; p++) list_free(&s->lists[p]);
}

/* ---- parsing ----------------------------------------------------------------- */

/* What one flag's parse needs to report and to grow its list. */
typedef struct parser {
  ws_ctx *ctx;
  ws_space_param p;
  const char *text; /* the whole flag value, for messages */
  ws_space_list l;
  size_t cap;
} parser;

static ws_status fail(parser *ps, const char *fmt, const char *what) {
  char detail[400];
  snprintf(detail, sizeof detail, fmt, what);
  return ws_ctx_fail(ps->ctx, WS_ERR_INVALID, "--%s %.200s: %s", param_names[ps->p], ps->text, detail);
}

/* Room for `more` values, refusing a list longer than a sweep may be. */
static ws_status reserve(parser *ps, uint64_t more) {
  if (more > WS_SPACE_POINTS_MAX - ps->l.n) {
    char what[96];
    snprintf(what, sizeof what, "more than %u values", WS_SPACE_POINTS_MAX);
    return fail(ps, "%s", what);
  }
  size_t need = ps->l.n + (size_t)more;
  if (need <= ps->cap) return WS_OK;
  size_t cap = ps->cap ? ps->cap : 8;
  while (cap < need) cap *= 2;
  void *grown = is_name_param(ps->p) ? realloc(ps->l.name, cap * sizeof *ps->l.name)
                                     : realloc(ps->l.num, cap * sizeof *ps->l.num);
  if (!grown) return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "--%s: out of memory", param_names[ps->p]);
  if (is_name_param(ps->p))
    ps->l.name = grown;
  else
    ps->l.num = grown;
  ps->cap = cap;
  return WS_OK;
}

static ws_status add_name(parser *ps, const char *name, size_t len) {
  if (len == 0) return fail(ps, "%s", "an empty item");
  if (len >= WS_POINT_NAME_MAX) return fail(ps, "%s", "a name longer than 31 characters");
  ws_status st = reserve(ps, 1);
  if (st != WS_OK) return st;
  memset(ps->l.name[ps->l.n], 0, WS_POINT_NAME_MAX); /* points compare by their bytes too */
  memcpy(ps->l.name[ps->l.n], name, len);
  ps->l.n++;
  return WS_OK;
}

/* "all", or one name checked against what the parameter accepts. */
static ws_status parse_name_item(parser *ps, const char *item, size_t len) {
  bool all = len == 3 && memcmp(item, "all", 3) == 0;
  if (ps->p == WS_SPACE_VARIANT) {
    if (all) {
      for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
        const char *name = ws_gemmgen_variant_name((ws_gemmgen_variant)v);
        ws_status st = add_name(ps, name, strlen(name));
        if (st != WS_OK) return st;
      }
      return WS_OK;
    }
    char name[WS_POINT_NAME_MAX];
    ws_gemmgen_variant v;
    if (len >= sizeof name) return fail(ps, "%s", "a name longer than 31 characters");
    snprintf(name, sizeof name, "%.*s", (int)len, item);
    if (ws_gemmgen_variant_parse(ps->ctx, name, &v) != WS_OK) return fail(ps, "%s", ws_errmsg(ps->ctx));
  } else if (ps->p == WS_SPACE_ATTN) {
    if (all) {
      ws_status st = add_name(ps, attn_names[0], strlen(attn_names[0]));
      return st == WS_OK ? add_name(ps, attn_names[1], strlen(attn_names[1])) : st;
    }
    bool known = (len == 5 && memcmp(item, "naive", 5) == 0) || (len == 5 && memcmp(item, "flash", 5) == 0);
    if (!known) return fail(ps, "%s", "attn is naive, flash or all");
  }
  return add_name(ps, item, len);
}

/* Digits only (no sign, no spaces), at most `max`. */
static bool parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out) {
  if (len == 0 || len > 20) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (v > max) return false;
  *out = v;
  return true;
}

static ws_status parse_number(parser *ps, const char *s, size_t len, uint64_t *out) {
  uint64_t max = ps->p == WS_SPACE_SEED ? UINT64_MAX : UINT32_MAX;
  if (parse_u64(s, len, max, out)) return WS_OK;
  char what[64];
  snprintf(what, sizeof what, "'%.*s'", (int)(len < 40 ? len : 40), s);
  char msg[128];
  snprintf(msg, sizeof msg, "%s is not a non-negative integer%s", what,
           ps->p == WS_SPACE_SEED ? "" : " below 2^32");
  return fail(ps, "%s", msg);
}

/* START:END[:STEP], END included when the steps land on it. */
static ws_status parse_range(parser *ps, const char *item, size_t len, const char *colon) {
  const char *end_s = colon + 1, *stop = item + len;
  const char *colon2 = memchr(end_s, ':', (size_t)(stop - end_s));
  uint64_t start, end, step = 1;
  ws_status st = parse_number(ps, item, (size_t)(colon - item), &start);
  if (st == WS_OK) st = parse_number(ps, end_s, (size_t)((colon2 ? colon2 : stop) - end_s), &end);
  if (st == WS_OK && colon2) st = parse_number(ps, colon2 + 1, (size_t)(stop - colon2 - 1), &step);
  if (st != WS_OK) return st;
  if (step == 0) return fail(ps, "%s", "a step of 0");
  if (start > end) return fail(ps, "%s", "a range whose start is after its end");
  uint64_t count = (end - start) / step + 1;
  if ((st = reserve(ps, count)) != WS_OK) return st;
  for (uint64_t i = 0; i < count; i++) ps->l.num[ps->l.n++] = start + i * step;
  return WS_OK;
}

static ws_status parse_num_item(parser *ps, const char *item, size_t len) {
  if (len == 0) return fail(ps, "%s", "an empty item");
  const char *colon = memchr(item, ':', len);
  if (colon) return parse_range(ps, item, len, colon);
  uint64_t v;
  ws_status st = parse_number(ps, item, len, &v);
  if (st == WS_OK) st = reserve(ps, 1);
  if (st == WS_OK) ps->l.num[ps->l.n++] = v;
  return st;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); }

/* Equal values would make equal points; the sorted copy finds them. */
static ws_status refuse_duplicates(parser *ps) {
  size_t n = ps->l.n, size = is_name_param(ps->p) ? sizeof *ps->l.name : sizeof *ps->l.num;
  char *copy = malloc(n * size);
  if (!copy) return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "--%s: out of memory", param_names[ps->p]);
  memcpy(copy, is_name_param(ps->p) ? (void *)ps->l.name : (void *)ps->l.num, n * size);
  int (*cmp)(const void *, const void *) = is_name_param(ps->p) ? cmp_name : cmp_u64;
  qsort(copy, n, size, cmp);
  ws_status st = WS_OK;
  for (size_t i = 1; i < n && st == WS_OK; i++) {
    if (cmp(copy + (i - 1) * size, copy + i * size) != 0) continue;
    char what[64];
    if (is_name_param(ps->p))
      snprintf(what, sizeof what, "'%s'", copy + i * size);
    else
      snprintf(what, sizeof what, "%" PRIu64, *(const uint64_t *)(const void *)(copy + i * size));
    char msg[96];
    snprintf(msg, sizeof msg, "%s is given twice", what);
    st = fail(ps, "%s", msg);
  }
  free(copy);
  return st;
}

ws_status ws_space_parse(ws_ctx *ctx, ws_space *s, ws_space_param p, const char *text) {
  if ((unsigned)p >= WS_SPACE_PARAM_COUNT || !text)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "ws_space_parse: no parameter %d or no text", (int)p);
  parser ps = {ctx, p, text, {0}, 0};
  ws_status st = WS_OK;
  for (const char *item = text; st == WS_OK;) {
    const char *comma = strchr(item, ',');
    size_t len = comma ? (size_t)(comma - item) : strlen(item);
    st = is_name_param(p) ? parse_name_item(&ps, item, len) : parse_num_item(&ps, item, len);
    if (!comma) break;
    item = comma + 1;
  }
  if (st == WS_OK) st = refuse_duplicates(&ps);
  if (st != WS_OK) {
    list_free(&ps.l);
    return st;
  }
  list_free(&s->lists[p]);
  s->lists[p] = ps.l;
  return WS_OK;
}

ws_status ws_space_add_set(ws_ctx *ctx, ws_space *s, const char *set) {
  if (s->nsets >= WS_POINT_MAX_SETS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--set %s: at most %d overrides", set, WS_POINT_MAX_SETS);
  if (strlen(set) >= WS_POINT_SET_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--set %.120s: longer than %d characters", set,
                       WS_POINT_SET_MAX - 1);
  if (strchr(set, ';'))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "--set %s: a ';' (the record joins overrides with it)", set);
  snprintf(s->sets[s->nsets++], WS_POINT_SET_MAX, "%s", set);
  return WS_OK;
}

/* ---- expansion ----------------------------------------------------------------- */

/* "--bm 3 x --tm 2 x ..." for the message of a space too large. */
static void describe_product(const ws_space *s, char *buf, size_t bytes) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = 0; p < WS_SPACE_PARAM_COUNT && used < bytes; p++) {
    if (!ws_space_uses(s->kind, (ws_space_param)p) || s->lists[p].n < 2) continue;
    int w =
        snprintf(buf + used, bytes - used, "%s--%s %zu", used ? " x " : "", param_names[p], s->lists[p].n);
    if (w < 0) break;
    used += (size_t)w;
  }
}

ws_status ws_space_count(ws_ctx *ctx, const ws_space *s, size_t *n) {
  if ((unsigned)s->kind >= WS_POINT_KIND_COUNT) return ws_ctx_fail(ctx, WS_ERR_INVALID, "a sweep of no kind");
  uint64_t total = 1;
  bool over = false;
  for (int p = 0; p < WS_SPACE_PARAM_COUNT; p++) {
    if (!ws_space_uses(s->kind, (ws_space_param)p)) continue;
    size_t len = s->lists[p].n;
    if (len == 0)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "a %s sweep needs a value for --%s",
                         s->kind == WS_POINT_GEMM        ? "gemm"
                         : s->kind == WS_POINT_ATTENTION ? "attention"
                                                         : "kernel",
                         param_names[p]);
    /* saturate instead of overflowing: every list is at most the limit, so
     * one more product never wraps 64 bits once clamped */
    total *= len;
    if (total > WS_SPACE_POINTS_MAX) {
      over = true;
      total = (uint64_t)WS_SPACE_POINTS_MAX + 1;
    }
  }
  if (over) {
    char prod[512];
    describe_product(s, prod, sizeof prod);
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%s: more than the %u points a sweep may have", prod,
                       WS_SPACE_POINTS_MAX);
  }
  *n = (size_t)total;
  return WS_OK;
}

static void set_name(char dst[WS_POINT_NAME_MAX], const char *src) {
  snprintf(dst, WS_POINT_NAME_MAX, "%s", src);
}

/* Puts value `idx` of parameter p into the point. */
static void apply(ws_point *pt, const ws_space *s, ws_space_param p, size_t idx) {
  const ws_space_list *l = &s->lists[p];
  uint32_t v32 = is_name_param(p) || p == WS_SPACE_SEED ? 0 : (uint32_t)l->num[idx];
  switch (p) {
  case WS_SPACE_GPU: set_name(pt->gpu, l->name[idx]); break;
  case WS_SPACE_VARIANT: set_name(pt->variant, l->name[idx]); break;
  case WS_SPACE_ATTN: set_name(pt->attn, l->name[idx]); break;
  case WS_SPACE_SEED: pt->seed = l->num[idx]; break;
  case WS_SPACE_M: pt->m = v32; break;
  case WS_SPACE_N: pt->n = v32; break;
  case WS_SPACE_K: pt->k = v32; break;
  case WS_SPACE_BM: pt->bm = v32; break;
  case WS_SPACE_BN: pt->bn = v32; break;
  case WS_SPACE_BK: pt->bk = v32; break;
  case WS_SPACE_TM: pt->tm = v32; break;
  case WS_SPACE_TN: pt->tn = v32; break;
  case WS_SPACE_WM: pt->wm = v32; break;
  case WS_SPACE_WN: pt->wn = v32; break;
  case WS_SPACE_THREADS: pt->threads = v32; break;
  case WS_SPACE_SEQ: pt->seq = v32; break;
  case WS_SPACE_HEADS: pt->heads = v32; break;
  case WS_SPACE_DHEAD: pt->dhead = v32; break;
  case WS_SPACE_BR: pt->br = v32; break;
  case WS_SPACE_BC: pt->bc = v32; break;
  default: break;
  }
}

/* Point i of the product: i written in the mixed radix of the list
 * lengths, the last parameter the least significant digit. False for a
 * point that repeats another: --br and --bc are flash's tiles, so a naive
 * attention point takes none and is kept only at their first values. */
static bool make_point(const ws_space *s, size_t i, ws_point *pt) {
  memset(pt, 0, sizeof *pt);
  pt->kind = s->kind;
  memcpy(pt->sets, s->sets, sizeof pt->sets);
  pt->nsets = s->nsets;
  pt->sample_waves = s->sample_waves;
  pt->sample_rounds = s->sample_rounds;
  pt->keep_l2 = s->keep_l2;
  bool first_tiles = true;
  for (int p = WS_SPACE_PARAM_COUNT - 1; p >= 0; p--) {
    if (!ws_space_uses(s->kind, (ws_space_param)p)) continue;
    size_t len = s->lists[p].n;
    apply(pt, s, (ws_space_param)p, i % len);
    if (p == WS_SPACE_BR || p == WS_SPACE_BC) first_tiles &= i % len == 0;
    i /= len;
  }
  if (pt->kind != WS_POINT_ATTENTION || strncmp(pt->attn, "naive", WS_POINT_NAME_MAX) != 0) return true;
  pt->br = pt->bc = 0;
  return first_tiles;
}

ws_status ws_space_expand(ws_ctx *ctx, const ws_space *s, ws_point **points, size_t *n) {
  size_t count;
  ws_status st = ws_space_count(ctx, s, &count);
  if (st != WS_OK) return st;
  ws_point *pts = calloc(count, sizeof *pts);
  if (!pts) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%zu points: out of memory", count);
  size_t kept = 0;
  for (size_t i = 0; i < count; i++) kept += make_point(s, i, &pts[kept]);
  *points = pts;
  *n = kept;
  return WS_OK;
}
