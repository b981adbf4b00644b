/* ctx.c - error context: one message buffer, last failure wins. */
#include "base/ctx.h"

#include <stdio.h>
#include <stdlib.h>

struct ws_ctx {
  ws_status status;
  char msg[WS_ERRMSG_MAX_BYTES];
};

ws_ctx *ws_ctx_create(void) { return calloc(1, sizeof(ws_ctx)); }

void ws_ctx_destroy(ws_ctx *ctx) { free(ctx); }

ws_status ws_ctx_vfail(ws_ctx *ctx, ws_status st, const char *fmt, va_list ap) {
  if (!ctx) return st;
  ctx->status = st;
  vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
  return st;
}

ws_status ws_ctx_fail(ws_ctx *ctx, ws_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ws_ctx_vfail(ctx, st, fmt, ap);
  va_end(ap);
  return st;
}

void ws_ctx_clear(ws_ctx *ctx) {
  if (!ctx) return;
  ctx->status = WS_OK;
  ctx->msg[0] = '\0';
}

const char *ws_errmsg(const ws_ctx *ctx) { return ctx ? ctx->msg : ""; }

ws_status ws_ctx_status(const ws_ctx *ctx) { return ctx ? ctx->status : WS_OK; }

const char *ws_status_name(ws_status st) {
  static const char *const names[WS_STATUS_COUNT] = {
      "ok",           "invalid input",   "i/o error",   "out of memory", "device limit exceeded",
      "kernel fault", "limit exhausted", "interrupted", "usage error"};
  return (unsigned)st < WS_STATUS_COUNT ? names[st] : "unknown status";
}
