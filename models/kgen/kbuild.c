/* kbuild.c - the kernel builder: register and label allocation, and the
 * instruction formatter.
 *
 * Design: the formatter knows only the conversions kernels need (%r, %l,
 * %u, %d, %s, %g), so an argument list is read in one pass without handing
 * a va_list piecewise to vsnprintf. Names live in small growable arrays:
 * kernels have at most a few hundred, so a linear search for a taken label
 * costs nothing next to assembling the text. */
#include "models/kgen/kbuild.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMENT_COLUMN 36 /* instructions are padded to here before " // " */
#define MAP_LINE_BYTES 96 /* the register map wraps before this width */

void ws_kbuild_init(ws_kbuild *b) {
  memset(b, 0, sizeof *b);
  ws_text_init(&b->text);
}

void ws_kbuild_free(ws_kbuild *b) {
  ws_text_free(&b->text);
  free(b->regs);
  free(b->labels);
  ws_kbuild_init(b);
}

ws_status ws_kbuild_take(ws_ctx *ctx, ws_kbuild *b, char **out) {
  bool failed = b->failed;
  *out = ws_text_take(&b->text);
  ws_kbuild_free(b);
  if (failed || !*out) {
    free(*out);
    *out = NULL;
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory generating kernel text");
  }
  return WS_OK;
}

/* Appends a name record to one of the two arrays; NULL when out of memory. */
static ws_kbuild_name *push_name(ws_kbuild *b, ws_kbuild_name **arr, uint32_t *n, uint32_t *cap) {
  if (b->failed) return NULL;
  if (*n == *cap) {
    uint32_t ncap = *cap ? *cap * 2 : 16;
    ws_kbuild_name *p = realloc(*arr, ncap * sizeof *p);
    if (!p) {
      b->failed = true;
      return NULL;
    }
    *arr = p;
    *cap = ncap;
  }
  ws_kbuild_name *rec = &(*arr)[(*n)++];
  memset(rec, 0, sizeof *rec);
  return rec;
}

/* ---- registers --------------------------------------------------------------- */

ws_kreg ws_kbuild_regs(ws_kbuild *b, const char *name, uint32_t count, uint32_t align) {
  if (align == 0) align = 1;
  uint32_t first = (b->next_reg + align - 1) / align * align;
  b->next_reg = first + count;
  ws_kbuild_name *rec = push_name(b, &b->regs, &b->nregs, &b->cap_regs);
  if (rec) {
    rec->first = first;
    rec->count = count;
    snprintf(rec->text, sizeof rec->text, "%s", name);
  }
  return (ws_kreg){first};
}

ws_kreg ws_kbuild_reg(ws_kbuild *b, const char *name) { return ws_kbuild_regs(b, name, 1, 1); }

ws_kreg ws_kbuild_reg64(ws_kbuild *b, const char *name) { return ws_kbuild_regs(b, name, 2, 2); }

void ws_kbuild_reg_table(ws_kbuild *b, void *handles, const ws_kbuild_regspec *specs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    ws_kreg r = ws_kbuild_regs(b, specs[i].name, specs[i].count, specs[i].align);
    memcpy((char *)handles + specs[i].offset, &r, sizeof r);
  }
}

uint32_t ws_kbuild_nregs(const ws_kbuild *b) { return b->next_reg ? b->next_reg : 1; }

/* ---- labels ------------------------------------------------------------------ */

static bool label_taken(const ws_kbuild *b, const char *text) {
  for (uint32_t i = 0; i < b->nlabels; i++)
    if (strcmp(b->labels[i].text, text) == 0) return true;
  return false;
}

ws_klabel ws_kbuild_label(ws_kbuild *b, const char *name) {
  char text[WS_KBUILD_NAME_BYTES];
  snprintf(text, sizeof text, "%.20s", name);
  for (unsigned k = 2; label_taken(b, text); k++) snprintf(text, sizeof text, "%.20s_%u", name, k);
  ws_klabel l = {b->nlabels};
  ws_kbuild_name *rec = push_name(b, &b->labels, &b->nlabels, &b->cap_labels);
  if (rec) memcpy(rec->text, text, sizeof text);
  return l;
}

const char *ws_kbuild_label_name(const ws_kbuild *b, ws_klabel l) {
  return l.id < b->nlabels ? b->labels[l.id].text : "?";
}

void ws_kbuild_place(ws_kbuild *b, ws_klabel l) { ws_kbuild_line(b, "%s:", ws_kbuild_label_name(b, l)); }

/* ---- text -------------------------------------------------------------------- */

void ws_kbuild_line(ws_kbuild *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ws_text_vprintf(&b->text, fmt, ap);
  va_end(ap);
  ws_text_append(&b->text, "\n", 1);
}

/* Expands one conversion of ws_kbuild_ins into `out`. */
static void convert(ws_kbuild *b, ws_text *out, char conv, va_list *ap) {
  switch (conv) {
  case 'r': ws_text_printf(out, "R%u", va_arg(*ap, ws_kreg).n); break;
  case 'l': ws_text_puts(out, ws_kbuild_label_name(b, va_arg(*ap, ws_klabel))); break;
  case 'u': ws_text_printf(out, "%u", va_arg(*ap, unsigned)); break;
  case 'd': ws_text_printf(out, "%d", va_arg(*ap, int)); break;
  case 's': ws_text_puts(out, va_arg(*ap, const char *)); break;
  case 'g': ws_text_printf(out, "%.9g", va_arg(*ap, double)); break;
  default: /* "%%" prints one '%'; any other "%c" as written, so "N % 4" stays */
    ws_text_append(out, "%", 1);
    if (conv != '%') ws_text_append(out, &conv, 1);
    break;
  }
}

/* Writes the formatted instruction: indent, the instruction padded to the
 * comment column, then its comment. */
static void put_ins(ws_kbuild *b, const char *line) {
  const char *slash = strstr(line, "//");
  size_t len = slash ? (size_t)(slash - line) : strlen(line);
  while (len && line[len - 1] == ' ') len--;
  const char *indent = line[0] == '@' ? "" : "    ";
  if (!slash) {
    ws_text_printf(&b->text, "%s%.*s\n", indent, (int)len, line);
    return;
  }
  const char *note = slash + 2;
  while (*note == ' ') note++;
  int width = COMMENT_COLUMN - (int)strlen(indent);
  ws_text_printf(&b->text, "%s%-*.*s // %s\n", indent, width, (int)len, line, note);
}

void ws_kbuild_ins(ws_kbuild *b, const char *fmt, ...) {
  ws_text line;
  ws_text_init(&line);
  va_list ap;
  va_start(ap, fmt);
  for (const char *f = fmt; *f; f++) {
    if (*f != '%' || !f[1])
      ws_text_append(&line, f, 1);
    else
      convert(b, &line, *++f, &ap);
  }
  va_end(ap);
  if (line.failed)
    b->failed = true;
  else
    put_ins(b, line.buf ? line.buf : "");
  ws_text_free(&line);
}

/* One map entry: "R5 cols" or "R32..R51 q". */
static void map_entry(const ws_kbuild_name *r, char *buf, size_t size) {
  if (r->count == 1)
    snprintf(buf, size, "R%u %s", r->first, r->text);
  else
    snprintf(buf, size, "R%u..R%u %s", r->first, r->first + r->count - 1, r->text);
}

void ws_kbuild_reg_map(ws_kbuild *b) {
  ws_text_printf(&b->text, "// registers: %u per thread\n", ws_kbuild_nregs(b));
  size_t col = 0;
  for (uint32_t i = 0; i < b->nregs; i++) {
    char entry[WS_KBUILD_NAME_BYTES + 24];
    map_entry(&b->regs[i], entry, sizeof entry);
    size_t n = strlen(entry);
    if (col && col + 2 + n > MAP_LINE_BYTES) {
      ws_text_puts(&b->text, "\n");
      col = 0;
    }
    ws_text_puts(&b->text, col ? ", " : "//   ");
    ws_text_puts(&b->text, entry);
    col += (col ? 2 : 5) + n;
  }
  if (col) ws_text_puts(&b->text, "\n");
}
