/* test_ctx.c - the error context keeps the last message and status. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/ctx.h"

Test(ctx, starts_empty_and_records_last_failure) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_not_null(ctx);
  cr_expect_str_eq(ws_errmsg(ctx), "");
  cr_expect_eq(ws_ctx_status(ctx), WS_OK);
  cr_expect_eq(ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s'", "x.wsa"), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), "cannot open 'x.wsa'");
  cr_expect_eq(ws_ctx_fail(ctx, WS_ERR_FAULT, "second %d", 2), WS_ERR_FAULT);
  cr_expect_str_eq(ws_errmsg(ctx), "second 2");
  cr_expect_eq(ws_ctx_status(ctx), WS_ERR_FAULT);
  ws_ctx_clear(ctx);
  cr_expect_str_eq(ws_errmsg(ctx), "");
  ws_ctx_destroy(ctx);
}

Test(ctx, long_messages_are_truncated_not_overflowed) {
  ws_ctx *ctx = ws_ctx_create();
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ws_ctx_fail(ctx, WS_ERR_INVALID, "%s", big);
  cr_expect_eq(strlen(ws_errmsg(ctx)), WS_ERRMSG_MAX_BYTES - 1);
  ws_ctx_destroy(ctx);
}

Test(ctx, null_context_is_tolerated) {
  cr_expect_eq(ws_ctx_fail(NULL, WS_ERR_NOMEM, "x"), WS_ERR_NOMEM);
  cr_expect_str_eq(ws_errmsg(NULL), "");
  ws_ctx_destroy(NULL);
  cr_expect_str_eq(ws_status_name(WS_ERR_FAULT), "kernel fault");
  cr_expect_str_eq(ws_status_name(WS_ERR_USAGE), "usage error");
  cr_expect_str_eq(ws_status_name((ws_status)99), "unknown status");
}
