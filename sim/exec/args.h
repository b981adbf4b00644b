/* args.h - a kernel's parameter buffer, filled by name with type checks.
 *
 * Design: callers name params as the .wsa declares them; a value of the wrong
 * type, an unknown name or a param left unset is an error before launch, so a
 * kernel never reads garbage parameters. */
#ifndef WS_ARGS_H
#define WS_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"

typedef struct ws_args {
  const ws_kernel *kernel;
  uint8_t buf[WS_PARAM_MAX_BYTES];
  bool set[WS_PARAM_MAX_BYTES / 4]; /* indexed by param number */
} ws_args;

void ws_args_init(ws_args *args, const ws_kernel *kernel);
ws_status ws_args_set_u32(ws_ctx *ctx, ws_args *args, const char *name, uint32_t v);
ws_status ws_args_set_s32(ws_ctx *ctx, ws_args *args, const char *name, int32_t v);
ws_status ws_args_set_f32(ws_ctx *ctx, ws_args *args, const char *name, float v);
ws_status ws_args_set_u64(ws_ctx *ctx, ws_args *args, const char *name, uint64_t v);
ws_status ws_args_set_ptr(ws_ctx *ctx, ws_args *args, const char *name, uint64_t dptr);
/* Parses `text` according to the param's declared type (CLI use). */
ws_status ws_args_set_text(ws_ctx *ctx, ws_args *args, const char *name, const char *text);
/* Error naming the first param never set. */
ws_status ws_args_check_complete(ws_ctx *ctx, const ws_args *args);

#endif
