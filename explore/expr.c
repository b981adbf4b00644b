/* expr.c - the expression parser and evaluator (see expr.h).
 *
 * Design: the grammar is the textbook one, a function per precedence level
 * (list -> sum -> product -> unary -> primary), writing nodes into a fixed
 * array whose size the text's length bounds, so parsing never allocates
 * after the first call. Names stay slices of the copied text; a node keeps
 * the column it came from, so an evaluation error points into the text as
 * a parse error does. The recursion is bounded by a nesting limit: a text of
 * 256 '(' is an error, not a deep stack. */
#include "explore/expr.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES_MAX WS_EXPR_TEXT_MAX /* each node consumes at least one character */
#define DEPTH_MAX 64

typedef enum node_kind {
  N_NUM,
  N_NAME,
  N_NEG,
  N_ADD,
  N_SUB,
  N_MUL,
  N_DIV,
  N_MOD,
  N_CDIV,
  N_MIN,
  N_MAX
} node_kind;

typedef struct node {
  node_kind kind;
  int64_t value;       /* N_NUM */
  uint16_t start, len; /* N_NAME: the slice of the text */
  uint16_t a, b;       /* operands (node indices) */
  uint16_t col;        /* 1-based column of the token */
} node;

struct ws_expr {
  char flag[32];
  char text[WS_EXPR_TEXT_MAX];
  node nodes[NODES_MAX];
  size_t nnodes;
  uint16_t items[WS_EXPR_ITEMS_MAX]; /* root node of each expression */
  size_t nitems;
};

typedef struct parser {
  ws_ctx *ctx;
  ws_expr *e;
  size_t pos;
  int depth;
} parser;

/* ---- messages ---------------------------------------------------------------------- */

static ws_status fail_at(ws_ctx *ctx, const ws_expr *e, size_t col, const char *what) {
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s '%s': column %zu: %s", e->flag, e->text, col, what);
}

static ws_status perr(parser *ps, const char *what) { return fail_at(ps->ctx, ps->e, ps->pos + 1, what); }

/* ---- parsing ------------------------------------------------------------------------- */

static void skip_blanks(parser *ps) {
  while (ps->e->text[ps->pos] == ' ' || ps->e->text[ps->pos] == '\t') ps->pos++;
}

static char peek(parser *ps) {
  skip_blanks(ps);
  return ps->e->text[ps->pos];
}

static ws_status add_node(parser *ps, node n, uint16_t *out) {
  if (ps->e->nnodes >= NODES_MAX) return perr(ps, "too many terms");
  ps->e->nodes[ps->e->nnodes] = n;
  *out = (uint16_t)ps->e->nnodes++;
  return WS_OK;
}

static ws_status parse_sum(parser *ps, uint16_t *out);

static ws_status parse_number(parser *ps, uint16_t *out) {
  size_t col = ps->pos + 1;
  const char *s = ps->e->text + ps->pos;
  int64_t v = 0;
  size_t i = 0;
  for (; isdigit((unsigned char)s[i]); i++) {
    int d = s[i] - '0';
    if (v > (INT64_MAX - d) / 10) return perr(ps, "a number beyond 64 bits");
    v = v * 10 + d;
  }
  if (isalpha((unsigned char)s[i]) || s[i] == '_') {
    ps->pos += i;
    return perr(ps, "a letter right after a number");
  }
  ps->pos += i;
  return add_node(ps, (node){.kind = N_NUM, .value = v, .col = (uint16_t)col}, out);
}

/* The function a name before '(' calls; -1 for none. */
static int function_of(const char *s, size_t len) {
  static const struct {
    const char *name;
    node_kind kind;
  } fns[] = {{"ceil_div", N_CDIV}, {"cdiv", N_CDIV}, {"min", N_MIN}, {"max", N_MAX}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (strlen(fns[i].name) == len && memcmp(fns[i].name, s, len) == 0) return (int)fns[i].kind;
  return -1;
}

static ws_status expect(parser *ps, char ch, const char *what) {
  if (peek(ps) != ch) return perr(ps, what);
  ps->pos++;
  return WS_OK;
}

/* name(a, b): a call of one of the two-argument functions. */
static ws_status parse_call(parser *ps, node_kind kind, size_t col, uint16_t *out) {
  node n = {.kind = kind, .col = (uint16_t)col};
  ps->pos++; /* '(' */
  ws_status st = parse_sum(ps, &n.a);
  if (st == WS_OK) st = expect(ps, ',', "expected ',' between a function's two arguments");
  if (st == WS_OK) st = parse_sum(ps, &n.b);
  if (st == WS_OK) st = expect(ps, ')', "expected ')' closing the function's arguments");
  return st == WS_OK ? add_node(ps, n, out) : st;
}

static ws_status parse_name(parser *ps, uint16_t *out) {
  size_t start = ps->pos;
  const char *s = ps->e->text;
  while (isalnum((unsigned char)s[ps->pos]) || s[ps->pos] == '_') ps->pos++;
  size_t len = ps->pos - start;
  if (peek(ps) == '(') {
    int fn = function_of(s + start, len);
    if (fn < 0) {
      ps->pos = start;
      return perr(ps, "an unknown function (there are ceil_div, cdiv, min and max)");
    }
    return parse_call(ps, (node_kind)fn, start + 1, out);
  }
  return add_node(
      ps,
      (node){.kind = N_NAME, .start = (uint16_t)start, .len = (uint16_t)len, .col = (uint16_t)(start + 1)},
      out);
}

static ws_status parse_unary(parser *ps, uint16_t *out) {
  if (++ps->depth > DEPTH_MAX) return perr(ps, "nested too deeply");
  char ch = peek(ps);
  size_t col = ps->pos + 1;
  ws_status st;
  if (ch == '-' || ch == '+') {
    ps->pos++;
    node n = {.kind = N_NEG, .col = (uint16_t)col};
    st = parse_unary(ps, &n.a);
    if (st == WS_OK) st = ch == '-' ? add_node(ps, n, out) : (*out = n.a, WS_OK);
  } else if (ch == '(') {
    ps->pos++;
    st = parse_sum(ps, out);
    if (st == WS_OK) st = expect(ps, ')', "expected ')'");
  } else if (isdigit((unsigned char)ch)) {
    st = parse_number(ps, out);
  } else if (isalpha((unsigned char)ch) || ch == '_') {
    st = parse_name(ps, out);
  } else {
    st = perr(ps, ch ? "expected a number, a name or '('" : "the expression ends too soon");
  }
  ps->depth--;
  return st;
}

/* One level of left-associative binary operators: ops[i] makes kinds[i]. */
static ws_status parse_level(parser *ps, const char *ops, const node_kind *kinds,
                             ws_status (*operand)(parser *, uint16_t *), uint16_t *out) {
  ws_status st = operand(ps, out);
  for (const char *op; st == WS_OK && peek(ps) && (op = strchr(ops, peek(ps)));) {
    node n = {.kind = kinds[op - ops], .a = *out, .col = (uint16_t)(ps->pos + 1)};
    ps->pos++;
    st = operand(ps, &n.b);
    if (st == WS_OK) st = add_node(ps, n, out);
  }
  return st;
}

static ws_status parse_product(parser *ps, uint16_t *out) {
  static const node_kind kinds[] = {N_MUL, N_DIV, N_MOD};
  return parse_level(ps, "*/%", kinds, parse_unary, out);
}

static ws_status parse_sum(parser *ps, uint16_t *out) {
  static const node_kind kinds[] = {N_ADD, N_SUB};
  return parse_level(ps, "+-", kinds, parse_product, out);
}

static ws_status parse_list(parser *ps, size_t max_items) {
  ws_expr *e = ps->e;
  for (;;) {
    if (e->nitems >= max_items)
      return perr(ps, max_items == 1 ? "one expression only" : "too many expressions");
    ws_status st = parse_sum(ps, &e->items[e->nitems]);
    if (st != WS_OK) return st;
    e->nitems++;
    char ch = peek(ps);
    if (!ch) return WS_OK;
    if (ch != ',') return perr(ps, "expected an operator");
    ps->pos++;
  }
}

ws_status ws_expr_parse(ws_ctx *ctx, const char *flag, const char *text, size_t max_items, ws_expr **out) {
  *out = NULL;
  ws_expr *e = calloc(1, sizeof *e);
  if (!e) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for %s", flag);
  snprintf(e->flag, sizeof e->flag, "%s", flag);
  if (strlen(text) >= sizeof e->text) {
    free(e);
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: longer than %d characters", flag, WS_EXPR_TEXT_MAX - 1);
  }
  snprintf(e->text, sizeof e->text, "%s", text);
  parser ps = {ctx, e, 0, 0};
  if (max_items > WS_EXPR_ITEMS_MAX) max_items = WS_EXPR_ITEMS_MAX;
  ws_status st = parse_list(&ps, max_items ? max_items : 1);
  if (st != WS_OK) {
    free(e);
    return st;
  }
  *out = e;
  return WS_OK;
}

void ws_expr_destroy(ws_expr *e) { free(e); }

size_t ws_expr_count(const ws_expr *e) { return e ? e->nitems : 0; }

/* ---- names and evaluation ---------------------------------------------------------------- */

/* The index of node n's name in env; -1 when it has none there. */
static long find_name(const ws_expr *e, const node *n, const ws_expr_env *env) {
  for (size_t i = 0; i < env->n; i++)
    if (strlen(env->names[i]) == n->len && memcmp(env->names[i], e->text + n->start, n->len) == 0)
      return (long)i;
  return -1;
}

static ws_status unknown_name(ws_ctx *ctx, const ws_expr *e, const node *n, const ws_expr_env *env) {
  char what[WS_EXPR_TEXT_MAX + 160];
  size_t used =
      (size_t)snprintf(what, sizeof what, "'%.*s' is not a -D name (", (int)n->len, e->text + n->start);
  for (size_t i = 0; i < env->n && used < sizeof what; i++)
    used += (size_t)snprintf(what + used, sizeof what - used, "%s%s", i ? ", " : "", env->names[i]);
  if (used < sizeof what) snprintf(what + used, sizeof what - used, "%s)", env->n ? "" : "there are none");
  return fail_at(ctx, e, n->col, what);
}

ws_status ws_expr_check_names(ws_ctx *ctx, const ws_expr *e, const ws_expr_env *env) {
  for (size_t i = 0; i < e->nnodes; i++)
    if (e->nodes[i].kind == N_NAME && find_name(e, &e->nodes[i], env) < 0)
      return unknown_name(ctx, e, &e->nodes[i], env);
  return WS_OK;
}

/* C's a / b and a % b rounded up for ceil_div, refusing b = 0 and the one
 * quotient that overflows (INT64_MIN / -1). */
static bool divide(node_kind kind, int64_t a, int64_t b, int64_t *out) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  int64_t q = a / b, r = a % b;
  if (kind == N_MOD)
    *out = r;
  else
    *out = kind == N_CDIV && r != 0 && ((r > 0) == (b > 0)) ? q + 1 : q;
  return true;
}

static ws_status eval_node(ws_ctx *ctx, const ws_expr *e, uint16_t i, const ws_expr_env *env, int64_t *out) {
  const node *n = &e->nodes[i];
  int64_t a = 0, b = 0;
  ws_status st = WS_OK;
  if (n->kind == N_NUM) return *out = n->value, WS_OK;
  if (n->kind == N_NAME) {
    long k = find_name(e, n, env);
    if (k < 0) return unknown_name(ctx, e, n, env);
    return *out = env->values[k], WS_OK;
  }
  st = eval_node(ctx, e, n->a, env, &a);
  if (st == WS_OK && n->kind != N_NEG) st = eval_node(ctx, e, n->b, env, &b);
  if (st != WS_OK) return st;
  bool ok = true;
  switch (n->kind) {
  case N_NEG: ok = !__builtin_sub_overflow((int64_t)0, a, out); break;
  case N_ADD: ok = !__builtin_add_overflow(a, b, out); break;
  case N_SUB: ok = !__builtin_sub_overflow(a, b, out); break;
  case N_MUL: ok = !__builtin_mul_overflow(a, b, out); break;
  case N_MIN: *out = a < b ? a : b; break;
  case N_MAX: *out = a > b ? a : b; break;
  default:
    if (!divide(n->kind, a, b, out))
      return fail_at(ctx, e, n->col, b == 0 ? "division by zero" : "a quotient beyond 64 bits");
  }
  return ok ? WS_OK : fail_at(ctx, e, n->col, "a result beyond 64 bits");
}

ws_status ws_expr_eval(ws_ctx *ctx, const ws_expr *e, size_t i, const ws_expr_env *env, int64_t *out) {
  if (i >= e->nitems)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s '%s': no expression %zu", e->flag, e->text, i + 1);
  return eval_node(ctx, e, e->items[i], env, out);
}
