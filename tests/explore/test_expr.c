/* test_expr.c - the expressions of `sweep kernel` (explore/expr.h): values
 * with C's integer semantics, precedence, the functions, and every error
 * with its column. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "explore/expr.h"

static const char *const names[] = {"TILE", "N", "Z"};
static const int64_t values[] = {16, 100, 0};
static const ws_expr_env env = {3, names, values};

/* The value of expression i of text; fails the test on an error. */
static int64_t value_of(const char *text, size_t i) {
  ws_ctx *ctx = ws_ctx_create();
  ws_expr *e = NULL;
  cr_assert_eq(ws_expr_parse(ctx, "--grid", text, 3, &e), WS_OK, "%s: %s", text, ws_errmsg(ctx));
  int64_t v = 0;
  cr_assert_eq(ws_expr_eval(ctx, e, i, &env, &v), WS_OK, "%s: %s", text, ws_errmsg(ctx));
  ws_expr_destroy(e);
  ws_ctx_destroy(ctx);
  return v;
}

Test(expr, values_and_precedence) {
  const struct {
    const char *text;
    int64_t want;
  } cases[] = {{"1+2*3", 7},
               {"(1+2)*3", 9},
               {"10-4-3", 3},
               {"100/7/2", 7},
               {"-7/2", -3},
               {"-7%3", -1},
               {"7%-3", 1},
               {"-(2+3)*2", -10},
               {"+5", 5},
               {"N/TILE", 6},
               {"ceil_div(N,TILE)", 7},
               {"cdiv(N, TILE)", 7},
               {"cdiv(96,TILE)", 6},
               {"cdiv(-7,2)", -3},
               {"min(N,TILE)", 16},
               {"max(N, TILE*8)", 128},
               {" TILE * TILE ", 256},
               {"2*cdiv(N,TILE)+1", 15},
               {"Z", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    cr_expect_eq(value_of(cases[i].text, 0), cases[i].want, "%s", cases[i].text);
}

Test(expr, lists) {
  ws_ctx *ctx = ws_ctx_create();
  ws_expr *e = NULL;
  cr_assert_eq(ws_expr_parse(ctx, "--grid", "cdiv(N,TILE), max(1,2), 3", 3, &e), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_expr_count(e), 3);
  ws_expr_destroy(e);
  cr_expect_eq(value_of("cdiv(N,TILE), max(1,2), 3", 1), 2);
  cr_expect_eq(value_of("cdiv(N,TILE), max(1,2), 3", 2), 3);
  ws_ctx_destroy(ctx);
}

Test(expr, parse_errors_name_the_column) {
  const struct {
    const char *text;
    const char *msg;
  } cases[] = {
      {"2*(TILE", "--grid '2*(TILE': column 8: expected ')'"},
      {"TILE+", "--grid 'TILE+': column 6: the expression ends too soon"},
      {"TILE 2", "--grid 'TILE 2': column 6: expected an operator"},
      {"3x", "--grid '3x': column 2: a letter right after a number"},
      {"foo(1,2)",
       "--grid 'foo(1,2)': column 1: an unknown function (there are ceil_div, cdiv, min and max)"},
      {"min(1)", "--grid 'min(1)': column 6: expected ',' between a function's two arguments"},
      {"1,2,3,4", "--grid '1,2,3,4': column 7: too many expressions"},
      {"", "--grid '': column 1: the expression ends too soon"},
      {"N $ 2", "--grid 'N $ 2': column 3: expected an operator"},
      {"99999999999999999999", "--grid '99999999999999999999': column 1: a number beyond 64 bits"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_expr *e = NULL;
    cr_expect_eq(ws_expr_parse(ctx, "--grid", cases[i].text, 3, &e), WS_ERR_INVALID, "%s", cases[i].text);
    cr_expect_null(e);
    cr_expect_str_eq(ws_errmsg(ctx), cases[i].msg);
    ws_ctx_destroy(ctx);
  }
}

Test(expr, eval_errors_name_the_column) {
  const struct {
    const char *text;
    const char *msg;
  } cases[] = {
      {"N/Z", "--block 'N/Z': column 2: division by zero"},
      {"cdiv(N, Z)", "--block 'cdiv(N, Z)': column 1: division by zero"},
      {"N % (TILE-16)", "--block 'N % (TILE-16)': column 3: division by zero"},
      {"4611686018427387904*2", "--block '4611686018427387904*2': column 20: a result beyond 64 bits"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_expr *e = NULL;
    cr_assert_eq(ws_expr_parse(ctx, "--block", cases[i].text, 3, &e), WS_OK, "%s", ws_errmsg(ctx));
    int64_t v;
    cr_expect_eq(ws_expr_eval(ctx, e, 0, &env, &v), WS_ERR_INVALID, "%s", cases[i].text);
    cr_expect_str_eq(ws_errmsg(ctx), cases[i].msg);
    ws_expr_destroy(e);
    ws_ctx_destroy(ctx);
  }
}

Test(expr, names_outside_the_env) {
  ws_ctx *ctx = ws_ctx_create();
  ws_expr *e = NULL;
  cr_assert_eq(ws_expr_parse(ctx, "--grid", "cdiv(M, TILE)", 3, &e), WS_OK);
  cr_expect_eq(ws_expr_check_names(ctx, e, &env), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--grid 'cdiv(M, TILE)': column 6: 'M' is not a -D name (TILE, N, Z)");
  ws_expr_destroy(e);
  cr_assert_eq(ws_expr_parse(ctx, "--grid", "N+TILE", 3, &e), WS_OK);
  cr_expect_eq(ws_expr_check_names(ctx, e, &env), WS_OK);
  ws_expr_destroy(e);
  ws_ctx_destroy(ctx);
}
