/* expr.h - integer expressions over named values: the --grid, --block and
 * --shared of `sweep kernel`, evaluated at each point from its -D values.
 *
 * Design: a small recursive-descent parser turns the text into a node
 * array once (the usual C precedence: unary minus, then * / %, then + -,
 * parentheses, and the calls ceil_div(a,b) (alias cdiv), min(a,b) and
 * max(a,b)); evaluation walks it with C's int64 semantics (division
 * truncates toward zero, % takes the dividend's sign). A text may hold
 * several comma-separated expressions (the X,Y,Z of a grid). Every error,
 * from parsing or from evaluating, names the flag, quotes the text and
 * gives the 1-based column of the offending character, so the user sees
 * where, not only what: "--grid 'N/(T-8)': column 2: division by zero". */
#ifndef WS_EXPLORE_EXPR_H
#define WS_EXPLORE_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

/* The longest text, and the most expressions one text may hold. */
#define WS_EXPR_TEXT_MAX 256
#define WS_EXPR_ITEMS_MAX 3

typedef struct ws_expr ws_expr;

/* The values names take: n names, each with its value. */
typedef struct ws_expr_env {
  size_t n;
  const char *const *names;
  const int64_t *values;
} ws_expr_env;

/* Parses `text`, one to max_items comma-separated expressions; `flag` names
 * it in messages ("--grid"). WS_ERR_INVALID with the column. */
ws_status ws_expr_parse(ws_ctx *ctx, const char *flag, const char *text, size_t max_items, ws_expr **out);
void ws_expr_destroy(ws_expr *e);

/* How many expressions the text held. */
size_t ws_expr_count(const ws_expr *e);
/* Every name the text uses is one of env's: else WS_ERR_INVALID naming the
 * first other one, its column and the names there are. */
ws_status ws_expr_check_names(ws_ctx *ctx, const ws_expr *e, const ws_expr_env *env);
/* The value of expression i (< ws_expr_count) with env's values: WS_ERR_INVALID
 * for a division by zero, an unknown name or a result beyond 64 bits, with
 * the column of the operator or name. */
ws_status ws_expr_eval(ws_ctx *ctx, const ws_expr *e, size_t i, const ws_expr_env *env, int64_t *out);

#endif
