/* bufspec.c - the buffers a user's kernel reads: `--buf NAME=SPEC` of
 * exec and `sweep kernel`, parsed into host bytes.
 *
 * Design: one parser for both commands, so a SPEC means the same bytes
 * wherever it is written; a spec is checked whole (every listed value, a
 * zeros: size) before anything runs, and a file: spec is read when the
 * command needs its bytes, so a missing file fails the run, not the flags. */
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "base/file.h"
#include "cli/cli.h"

/* a --buf file becomes one device buffer; 1 GiB is larger than any kernel
 * here reads and small enough to hold in host memory twice */
#define BUF_FILE_MAX_BYTES ((size_t)1 << 30)

/* Splits "NAME=REST" into name (bounded) and a pointer to REST. */
ws_status ws_cli_split_assign(ws_ctx *ctx, const char *flag, const char *text, char *name,
                              const char **rest) {
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : 0;
  if (!eq || len == 0 || len >= WS_NAME_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s expects NAME=VALUE, found '%s'", flag, text);
  memcpy(name, text, len);
  name[len] = '\0';
  *rest = eq + 1;
  return WS_OK;
}

/* The flag a spec came with, for messages: --buf unless the caller said. */
static const char *flag_of(const ws_cli_buf *b) { return b->flag ? b->flag : "--buf"; }

size_t ws_cli_buf_elem_bytes(const char *type) { return strcmp(type, "f16") == 0 ? 2 : 4; }

/* Converts one listed value of a buffer spec into 4 or 2 bytes at dst. */
static bool convert_value(const char *type, const char *text, uint8_t *dst) {
  char *end = NULL;
  uint32_t word = 0;
  if (strcmp(type, "f32") == 0 || strcmp(type, "f16") == 0) {
    float f = strtof(text, &end);
    if (end == text || *end) return false;
    if (type[1] == '1') {
      uint16_t h = ws_f16_from_f32(f);
      memcpy(dst, &h, 2);
      return true;
    }
    word = ws_f32_bits(f);
  } else {
    long long v = strtoll(text, &end, 0);
    if (end == text || *end) return false;
    if (type[0] == 'u' ? (v < 0 || v > (long long)UINT32_MAX) : (v < INT32_MIN || v > INT32_MAX))
      return false;
    word = (uint32_t)v;
  }
  memcpy(dst, &word, 4);
  return true;
}

static ws_status parse_value_list(ws_ctx *ctx, ws_cli_buf *b, const char *list) {
  size_t elem = ws_cli_buf_elem_bytes(b->type), count = 1;
  for (const char *p = list; *p; p++) count += (*p == ',');
  b->data = calloc(count, elem);
  if (!b->data) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  b->size_bytes = count * elem;
  const char *p = list;
  for (size_t i = 0; i < count; i++) {
    char item[128];
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof item)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s %s: value %zu is empty or too long", flag_of(b), b->name,
                         i + 1);
    memcpy(item, p, len);
    item[len] = '\0';
    if (!convert_value(b->type, item, b->data + i * elem))
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s %s: expected a %s value, found '%s'", flag_of(b), b->name,
                         b->type, item);
    p += len + (p[len] == ',');
  }
  return WS_OK;
}

ws_status ws_cli_buf_parse(ws_ctx *ctx, const char *text, ws_cli_buf *b) {
  const char *spec = NULL;
  ws_status st = ws_cli_split_assign(ctx, flag_of(b), text, b->name, &spec);
  if (st != WS_OK) return st;
  strcpy(b->type, "f32");
  if (strncmp(spec, "zeros:", 6) == 0) {
    if (!ws_cli_parse_u64(spec + 6, 1ull << 40, &b->size_bytes) || b->size_bytes == 0)
      return ws_ctx_fail(ctx, WS_ERR_INVALID,
                         "%s %s: zeros: expects a byte count in 1..2^40 (1 TiB), found '%s'", flag_of(b),
                         b->name, spec + 6);
    b->data = calloc(1, b->size_bytes);
    return b->data ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for --buf %s", b->name);
  }
  if (strncmp(spec, "file:", 5) == 0) {
    size_t size = 0;
    st = ws_file_read(ctx, spec + 5, BUF_FILE_MAX_BYTES, "buffer files", (char **)&b->data, &size);
    if (st == WS_OK && size == 0)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s %s: file '%s' is empty", flag_of(b), b->name, spec + 5);
    b->size_bytes = size;
    return st;
  }
  static const char *const types[] = {"f32", "u32", "s32", "f16"};
  for (size_t i = 0; i < 4; i++)
    if (strncmp(spec, types[i], 3) == 0 && spec[3] == ':') {
      strcpy(b->type, types[i]);
      return parse_value_list(ctx, b, spec + 4);
    }
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s %s: expected f32:, u32:, s32:, f16:, zeros: or file:, found '%s'", flag_of(b),
                     b->name, spec);
}

int ws_cli_buf_check(const char *cmd, const char *spec) { return ws_cli_buf_check_flag(cmd, "--buf", spec); }

int ws_cli_buf_check_flag(const char *cmd, const char *flag, const char *spec) {
  ws_ctx *ctx = ws_ctx_create();
  ws_cli_buf b;
  memset(&b, 0, sizeof b);
  b.flag = flag;
  const char *eq = strchr(spec, '='), *rest = NULL;
  ws_status st;
  if (eq && strncmp(eq + 1, "file:", 5) == 0) { /* read at run time: an unreadable file fails the run */
    st = ws_cli_split_assign(ctx, flag, spec, b.name, &rest);
    if (st == WS_OK && !eq[6])
      st = ws_ctx_fail(ctx, WS_ERR_INVALID, "%s %s: file: needs a path", flag, b.name);
  } else {
    st = ws_cli_buf_parse(ctx, spec, &b);
  }
  int rc = st == WS_OK ? WS_EXIT_OK : ws_cli_usage_error(cmd, "%s", ws_errmsg(ctx));
  free(b.data);
  ws_ctx_destroy(ctx);
  return rc;
}
