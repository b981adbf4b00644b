/* text.c - growable text buffer with sticky allocation failure.
 *
 * Design: capacity doubles, so building an n-byte text costs O(n) copies. */
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ws_text_init(ws_text *t) {
  t->buf = NULL;
  t->len = 0;
  t->cap = 0;
  t->failed = false;
}

/* Makes room for `extra` more bytes plus the terminating NUL. */
static bool reserve(ws_text *t, size_t extra) {
  if (t->failed) return false;
  if (extra < t->cap - t->len) return true;
  size_t cap = t->cap ? t->cap : 256;
  while (cap - t->len <= extra) {
    if (cap > ((size_t)-1) / 2) {
      t->failed = true;
      return false;
    }
    cap *= 2;
  }
  char *buf = realloc(t->buf, cap);
  if (!buf) {
    t->failed = true;
    return false;
  }
  t->buf = buf;
  t->cap = cap;
  return true;
}

void ws_text_append(ws_text *t, const char *s, size_t n) {
  if (!reserve(t, n)) return;
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

void ws_text_puts(ws_text *t, const char *s) { ws_text_append(t, s, strlen(s)); }

void ws_text_vprintf(ws_text *t, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if (!reserve(t, (size_t)n)) return;
  vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
  t->len += (size_t)n;
}

void ws_text_printf(ws_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ws_text_vprintf(t, fmt, ap);
  va_end(ap);
}

char *ws_text_take(ws_text *t) {
  char *out = t->failed ? NULL : t->buf;
  if (!t->failed && !out) out = calloc(1, 1);
  if (t->failed) free(t->buf);
  ws_text_init(t);
  return out;
}

void ws_text_free(ws_text *t) {
  free(t->buf);
  ws_text_init(t);
}

char *ws_text_splice(const char *doc, const char *begin, const char *end, const char *content) {
  const char *at = strstr(doc, begin);
  const char *body = at ? strchr(at, '\n') : NULL;
  const char *stop = body ? strstr(body + 1, end) : NULL;
  if (!stop) return NULL;
  ws_text t;
  ws_text_init(&t);
  ws_text_append(&t, doc, (size_t)(body + 1 - doc));
  ws_text_puts(&t, content);
  ws_text_puts(&t, stop);
  return ws_text_take(&t);
}

char *ws_text_escape(char *dst, size_t dst_bytes, const char *src, size_t src_len) {
  if (!dst_bytes) return dst;
  size_t n = 0;
  for (size_t i = 0; i < src_len; i++) {
    unsigned char b = (unsigned char)src[i];
    bool plain = b >= 0x20 && b < 0x7f;
    size_t need = plain ? 1 : 4;
    if (n + need >= dst_bytes) break; /* whole escapes only */
    if (plain)
      dst[n] = (char)b;
    else
      snprintf(dst + n, 5, "\\x%02X", b);
    n += need;
  }
  dst[n] = '\0';
  return dst;
}
