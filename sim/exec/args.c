/* args.c - fills a kernel's parameter buffer by name, with type checks.
 *
 * Design: every setter funnels through one lookup that checks name and type,
 * so the error wording is identical whether a value came from C code or from
 * the command line. Text parsing is strict (the whole string must parse, no
 * sign on unsigned types, no octal surprises: only decimal and 0x hex) because
 * a silently misread launch parameter is far harder to debug than an error. */
#include "sim/exec/args.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ws_args_init(ws_args *args, const ws_kernel *kernel) {
  memset(args, 0, sizeof *args);
  args->kernel = kernel;
}

static ws_status unknown_param(ws_ctx *ctx, const ws_kernel *k, const char *name) {
  char list[768];
  size_t used = 0;
  list[0] = '\0';
  for (uint32_t i = 0; i < k->nparams && used < sizeof list; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", k->params[i].name);
  if (k->nparams == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown param '%s' (kernel '%s' has no params)", name, k->name);
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown param '%s' (kernel '%s' has: %s)", name, k->name, list);
}

/* Finds `name`; *idx receives its number. */
static ws_status find_param(ws_ctx *ctx, const ws_args *args, const char *name, uint32_t *idx) {
  const ws_kernel *k = args->kernel;
  if (!k) return ws_ctx_fail(ctx, WS_ERR_INVALID, "args were not initialised with a kernel");
  for (uint32_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, name) == 0) {
      *idx = i;
      return WS_OK;
    }
  return unknown_param(ctx, k, name);
}

static ws_status store(ws_ctx *ctx, ws_args *args, const char *name, ws_ptype type, const void *val,
                       uint32_t size_bytes) {
  uint32_t i = 0;
  ws_status st = find_param(ctx, args, name, &i);
  if (st != WS_OK) return st;
  const ws_param *p = &args->kernel->params[i];
  if (p->type != type)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' is .%s, cannot take a .%s value", name,
                       ws_program_ptype_name((ws_ptype)p->type), ws_program_ptype_name(type));
  if (p->size_bytes != size_bytes || p->offset_bytes + size_bytes > WS_PARAM_MAX_BYTES ||
      i >= WS_PARAM_MAX_BYTES / 4)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' has an invalid layout (%u bytes at %u)", name,
                       p->size_bytes, p->offset_bytes);
  memcpy(args->buf + p->offset_bytes, val, size_bytes);
  args->set[i] = true;
  return WS_OK;
}

ws_status ws_args_set_u32(ws_ctx *ctx, ws_args *args, const char *name, uint32_t v) {
  return store(ctx, args, name, WS_PT_U32, &v, 4);
}

ws_status ws_args_set_s32(ws_ctx *ctx, ws_args *args, const char *name, int32_t v) {
  return store(ctx, args, name, WS_PT_S32, &v, 4);
}

ws_status ws_args_set_f32(ws_ctx *ctx, ws_args *args, const char *name, float v) {
  return store(ctx, args, name, WS_PT_F32, &v, 4);
}

ws_status ws_args_set_u64(ws_ctx *ctx, ws_args *args, const char *name, uint64_t v) {
  return store(ctx, args, name, WS_PT_U64, &v, 8);
}

ws_status ws_args_set_ptr(ws_ctx *ctx, ws_args *args, const char *name, uint64_t dptr) {
  return store(ctx, args, name, WS_PT_PTR, &dptr, 8);
}

/* Parses an unsigned decimal or 0x-hex integer; the whole text must match. */
static int parse_unsigned(const char *text, uint64_t *out) {
  int base = 10;
  const char *digits = text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text + 2;
  }
  if (!isxdigit((unsigned char)digits[0]) || (base == 10 && !isdigit((unsigned char)digits[0]))) return 0;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(digits, &end, base);
  if (*end != '\0') return 0;
  if (errno == ERANGE) return -1;
  *out = v;
  return 1;
}

/* Parses an optionally negative integer; 1 ok, 0 malformed, -1 out of range. */
static int parse_signed(const char *text, int64_t *out) {
  int neg = text[0] == '-';
  uint64_t mag = 0;
  int r = parse_unsigned(text + (neg || text[0] == '+'), &mag);
  if (r != 1) return r;
  if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX) return -1;
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return 1;
}

static ws_status bad_text(ws_ctx *ctx, const ws_param *p, const char *expected, const char *text) {
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' (.%s): expected %s, found '%s'", p->name,
                     ws_program_ptype_name((ws_ptype)p->type), expected, text);
}

static ws_status out_of_range(ws_ctx *ctx, const ws_param *p, const char *text) {
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' (.%s): value %s is out of range", p->name,
                     ws_program_ptype_name((ws_ptype)p->type), text);
}

static ws_status set_text_unsigned(ws_ctx *ctx, ws_args *args, const ws_param *p, const char *text) {
  uint64_t v = 0;
  int r = parse_unsigned(text, &v);
  if (r == 0) return bad_text(ctx, p, "an unsigned integer", text);
  if (r < 0 || (p->type == WS_PT_U32 && v > UINT32_MAX)) return out_of_range(ctx, p, text);
  if (p->type == WS_PT_U32) return ws_args_set_u32(ctx, args, p->name, (uint32_t)v);
  if (p->type == WS_PT_U64) return ws_args_set_u64(ctx, args, p->name, v);
  return ws_args_set_ptr(ctx, args, p->name, v);
}

static ws_status set_text_s32(ws_ctx *ctx, ws_args *args, const ws_param *p, const char *text) {
  int64_t v = 0;
  int r = parse_signed(text, &v);
  if (r == 0) return bad_text(ctx, p, "an integer", text);
  if (r < 0 || v < INT32_MIN || v > INT32_MAX) return out_of_range(ctx, p, text);
  return ws_args_set_s32(ctx, args, p->name, (int32_t)v);
}

static ws_status set_text_f32(ws_ctx *ctx, ws_args *args, const ws_param *p, const char *text) {
  char *end = NULL;
  if (text[0] == '\0' || isspace((unsigned char)text[0]))
    return bad_text(ctx, p, "a floating-point number", text);
  float v = strtof(text, &end);
  if (*end != '\0') return bad_text(ctx, p, "a floating-point number", text);
  return ws_args_set_f32(ctx, args, p->name, v);
}

ws_status ws_args_set_text(ws_ctx *ctx, ws_args *args, const char *name, const char *text) {
  uint32_t i = 0;
  ws_status st = find_param(ctx, args, name, &i);
  if (st != WS_OK) return st;
  const ws_param *p = &args->kernel->params[i];
  switch ((ws_ptype)p->type) {
  case WS_PT_U32:
  case WS_PT_U64:
  case WS_PT_PTR: return set_text_unsigned(ctx, args, p, text);
  case WS_PT_S32: return set_text_s32(ctx, args, p, text);
  case WS_PT_F32: return set_text_f32(ctx, args, p, text);
  default: break;
  }
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' has an unknown type", name);
}

ws_status ws_args_check_complete(ws_ctx *ctx, const ws_args *args) {
  const ws_kernel *k = args->kernel;
  if (!k) return ws_ctx_fail(ctx, WS_ERR_INVALID, "args were not initialised with a kernel");
  for (uint32_t i = 0; i < k->nparams && i < WS_PARAM_MAX_BYTES / 4; i++)
    if (!args->set[i]) return ws_ctx_fail(ctx, WS_ERR_INVALID, "param '%s' was not set", k->params[i].name);
  return WS_OK;
}
