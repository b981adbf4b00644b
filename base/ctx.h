/* ctx.h - the error context every fallible warpscope call reports through.
 *
 * Design: like SQLite's sqlite3_errmsg, a failing function returns a ws_status
 * and leaves a human-readable message on the context it was given, so library
 * code never prints, exits or aborts on bad input; the caller decides. */
#ifndef WS_CTX_H
#define WS_CTX_H

#include <stdarg.h>
#include <stddef.h>

typedef enum ws_status {
  WS_OK = 0,
  WS_ERR_INVALID,     /* bad argument, malformed input, value out of range */
  WS_ERR_IO,          /* a file could not be read or written */
  WS_ERR_NOMEM,       /* host allocation failed */
  WS_ERR_LIMIT,       /* a device limit was exceeded (grid, block, shared memory) */
  WS_ERR_FAULT,       /* a kernel faulted (out of bounds, misaligned, barrier misuse) */
  WS_ERR_BUDGET,      /* a limit ran out: instructions, cycles or wall-clock time */
  WS_ERR_INTERRUPTED, /* stopped on request (Ctrl-C) */
  WS_ERR_USAGE,       /* the request names what is not there: a column the table lacks, a
                         choice the input leaves open (a command's usage error, exit 2) */
  WS_STATUS_COUNT
} ws_status;

#define WS_ERRMSG_MAX_BYTES 1024

typedef struct ws_ctx ws_ctx;

ws_ctx *ws_ctx_create(void);
void ws_ctx_destroy(ws_ctx *ctx);

/* Records a printf-style message and returns `st`, so callers can write
 * `return ws_ctx_fail(ctx, WS_ERR_INVALID, "...", ...);`. */
ws_status ws_ctx_fail(ws_ctx *ctx, ws_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
ws_status ws_ctx_vfail(ws_ctx *ctx, ws_status st, const char *fmt, va_list ap);
void ws_ctx_clear(ws_ctx *ctx);

/* The last message; "" when none. Never NULL. */
const char *ws_errmsg(const ws_ctx *ctx);
ws_status ws_ctx_status(const ws_ctx *ctx);
const char *ws_status_name(ws_status st);

#endif
