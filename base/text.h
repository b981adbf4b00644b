/* text.h - a growable NUL-terminated text buffer (disassembler, doc
 * generator, kernel builder).
 *
 * Design: running out of memory is sticky: after a failed growth every
 * append is a no-op and ws_text_take returns NULL, so a long generator checks
 * once at the end instead of after every line. */
#ifndef WS_TEXT_H
#define WS_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct ws_text {
  char *buf;
  size_t len;
  size_t cap;
  bool failed;
} ws_text;

void ws_text_init(ws_text *t);
void ws_text_append(ws_text *t, const char *s, size_t n);
void ws_text_puts(ws_text *t, const char *s);
void ws_text_printf(ws_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ws_text_vprintf(ws_text *t, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Hands the buffer to the caller ("" when nothing was appended); NULL when an
 * allocation failed. The ws_text is left empty and reusable. */
char *ws_text_take(ws_text *t);
/* A copy of `doc` with the lines between the line holding `begin` and the
 * text `end` replaced by `content`; NULL when a marker is missing or out of
 * memory. Generated documentation blocks are kept current with it. */
char *ws_text_splice(const char *doc, const char *begin, const char *end, const char *content);
void ws_text_free(ws_text *t);

/* `src_len` bytes of `src` as printable text in dst (always NUL-terminated,
 * cut to fit): bytes outside printable ASCII become \xNN, so a message that
 * quotes a binary file echoes no raw bytes. Returns dst. */
char *ws_text_escape(char *dst, size_t dst_bytes, const char *src, size_t src_len);

#endif
