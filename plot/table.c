/* table.c - the CSV reader (table.h): one pass of a small state machine
 * over the text, writing unescaped fields into one buffer. A field's text
 * never grows when unquoted and each delimiter becomes its NUL, so the
 * buffer is the input's size plus one. */
#include "plot/table.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/text.h"

typedef struct cell {
  const char *text;
  uint32_t line, col; /* where the field starts, both from 1 */
} cell;

struct ws_table {
  char name[256]; /* the file, for messages */
  char *buf;      /* the fields, each NUL-terminated */
  cell *cells;    /* row-major; row 0 is the header */
  size_t ncells, cap, ncols;
};

/* ---- parsing ------------------------------------------------------------------------------------ */

typedef struct parser {
  ws_ctx *ctx;
  ws_table *t;
  const char *in, *end;
  char *out;
  uint32_t line, col; /* of the next input byte */
  size_t row_start;   /* index of the current row's first cell */
  uint32_t row_line;  /* the line the current row starts on */
} parser;

static ws_status fail_at(parser *p, const char *what) {
  return ws_ctx_fail(p->ctx, WS_ERR_INVALID, "%s:%u:%u: error: %s", p->t->name, p->line, p->col, what);
}

static ws_status push_cell(parser *p, const char *text, uint32_t line, uint32_t col) {
  ws_table *t = p->t;
  if (t->ncells == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    cell *c = cap > SIZE_MAX / sizeof *c ? NULL : realloc(t->cells, cap * sizeof *c);
    if (!c) return ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "%s: out of memory for the table", t->name);
    t->cells = c, t->cap = cap;
  }
  t->cells[t->ncells++] = (cell){text, line, col};
  return WS_OK;
}

static void advance(parser *p) {
  if (*p->in == '\n')
    p->line++, p->col = 1;
  else
    p->col++;
  p->in++;
}

static bool at_line_end(const parser *p) {
  return p->in == p->end || *p->in == '\n' || (*p->in == '\r' && p->in + 1 < p->end && p->in[1] == '\n');
}

/* A quoted field: from the opening quote to the closing one, "" being one
 * quote; then a delimiter or the line's end must follow. */
static ws_status quoted(parser *p) {
  uint32_t line = p->line, col = p->col;
  advance(p);
  for (;;) {
    if (p->in == p->end) {
      p->line = line, p->col = col;
      return fail_at(p, "a quoted field that never ends");
    }
    if (*p->in == '"') {
      if (p->in + 1 < p->end && p->in[1] == '"') {
        *p->out++ = '"';
        advance(p), advance(p);
        continue;
      }
      advance(p);
      break;
    }
    *p->out++ = *p->in;
    advance(p);
  }
  if (!at_line_end(p) && *p->in != ',')
    return fail_at(p, "a ',' or the end of the line expected after a closing quote");
  return WS_OK;
}

static ws_status unquoted(parser *p) {
  while (!at_line_end(p) && *p->in != ',') {
    if (*p->in == '"') return fail_at(p, "a '\"' inside an unquoted field (quote the whole field)");
    *p->out++ = *p->in;
    advance(p);
  }
  return WS_OK;
}

static ws_status field(parser *p) {
  char *start = p->out;
  ws_status st = push_cell(p, start, p->line, p->col);
  if (st == WS_OK) st = p->in < p->end && *p->in == '"' ? quoted(p) : unquoted(p);
  *p->out++ = '\0';
  return st;
}

/* The row just read against the header's width. */
static ws_status end_row(parser *p) {
  ws_table *t = p->t;
  size_t n = t->ncells - p->row_start;
  if (p->row_start == 0) {
    if (n > WS_TABLE_MAX_COLUMNS)
      return ws_ctx_fail(p->ctx, WS_ERR_INVALID, "%s:1:1: error: a header of %zu columns, at most %d allowed",
                         t->name, n, WS_TABLE_MAX_COLUMNS);
    t->ncols = n;
    return WS_OK;
  }
  if (n == t->ncols) return WS_OK;
  const cell *c = &t->cells[n > t->ncols ? p->row_start + t->ncols : t->ncells - 1];
  return ws_ctx_fail(p->ctx, WS_ERR_INVALID,
                     "%s:%u:%u: error: a row of %s fields than the header's %zu (%zu)", t->name, c->line,
                     c->col, n > t->ncols ? "more" : "fewer", t->ncols, n);
}

static bool blank_line(const parser *p) { return at_line_end(p) && p->in < p->end; }

static void skip_line_end(parser *p) {
  if (p->in < p->end && *p->in == '\r') advance(p);
  if (p->in < p->end) advance(p);
}

static ws_status parse_rows(parser *p) {
  while (p->in < p->end) {
    if (blank_line(p) && p->row_start < p->t->ncells) { /* a blank line between rows carries none */
      skip_line_end(p);
      continue;
    }
    p->row_start = p->t->ncells;
    for (;;) {
      ws_status st = field(p);
      if (st != WS_OK) return st;
      if (at_line_end(p)) break;
      advance(p); /* the ',' */
    }
    ws_status st = end_row(p);
    if (st != WS_OK) return st;
    skip_line_end(p);
  }
  return WS_OK;
}

static ws_status check_header(ws_ctx *ctx, const ws_table *t) {
  if (t->ncells == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s:1:1: error: no header row", t->name);
  for (size_t i = 0; i < t->ncols; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(t->cells[i].text, t->cells[j].text) == 0)
        return ws_ctx_fail(ctx, WS_ERR_INVALID,
                           "%s:1:%u: error: column '%s' appears twice (fields %zu and %zu)", t->name,
                           t->cells[i].col, t->cells[i].text, j + 1, i + 1);
  return WS_OK;
}

ws_status ws_table_parse(ws_ctx *ctx, const char *name, const char *text, size_t len, ws_table **out) {
  *out = NULL;
  if (len > WS_TABLE_MAX_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: larger than the %zu MiB limit for a table", name,
                       WS_TABLE_MAX_BYTES >> 20);
  const char *nul = memchr(text, '\0', len);
  ws_table *t = calloc(1, sizeof *t);
  if (t) t->buf = malloc(len + 1);
  if (!t || !t->buf) {
    ws_table_destroy(t);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory for the table", name);
  }
  snprintf(t->name, sizeof t->name, "%s", name);
  parser p = {ctx, t, text, nul ? nul : text + len, t->buf, 1, 1, 0, 1};
  ws_status st = WS_OK;
  if (nul) {
    p.end = text + len;
    while (p.in < nul) advance(&p);
    st = fail_at(&p, "a NUL byte: not a text file");
  }
  if (st == WS_OK) st = parse_rows(&p);
  if (st == WS_OK) st = check_header(ctx, t);
  if (st != WS_OK) {
    ws_table_destroy(t);
    return st;
  }
  *out = t;
  return WS_OK;
}

ws_status ws_table_read(ws_ctx *ctx, const char *path, ws_table **out) {
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  ws_status st = ws_file_read(ctx, path, WS_TABLE_MAX_BYTES, "a table", &text, &len);
  if (st == WS_OK) st = ws_table_parse(ctx, path, text, len, out);
  free(text);
  return st;
}

void ws_table_destroy(ws_table *t) {
  if (!t) return;
  free(t->buf);
  free(t->cells);
  free(t);
}

/* ---- queries ------------------------------------------------------------------------------------ */

size_t ws_table_columns(const ws_table *t) { return t->ncols; }
size_t ws_table_rows(const ws_table *t) { return t->ncols ? t->ncells / t->ncols - 1 : 0; }
const char *ws_table_column_name(const ws_table *t, size_t col) {
  return col < t->ncols ? t->cells[col].text : "";
}

bool ws_table_find(const ws_table *t, const char *name, size_t *col) {
  for (size_t i = 0; i < t->ncols; i++)
    if (strcmp(t->cells[i].text, name) == 0) {
      *col = i;
      return true;
    }
  return false;
}

static const cell *at(const ws_table *t, size_t row, size_t col) {
  return row < ws_table_rows(t) && col < t->ncols ? &t->cells[(row + 1) * t->ncols + col] : NULL;
}

const char *ws_table_cell(const ws_table *t, size_t row, size_t col) {
  const cell *c = at(t, row, col);
  return c ? c->text : "";
}

size_t ws_table_line(const ws_table *t, size_t row) {
  const cell *c = at(t, row, 0);
  return c ? c->line : 0;
}

ws_status ws_table_number(ws_ctx *ctx, const ws_table *t, size_t row, size_t col, double *out) {
  const cell *c = at(t, row, col);
  if (!c) return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: no row %zu, column %zu", t->name, row, col);
  char *end = NULL;
  errno = 0;
  double v = strtod(c->text, &end);
  /* ERANGE with a finite result is an underflow (1e-308, a subnormal): a
   * number all the same; an overflow gives infinity and is refused */
  if (*c->text && *end == '\0' && (errno == 0 || errno == ERANGE) && isfinite(v)) {
    *out = v;
    return WS_OK;
  }
  char shown[64];
  ws_text_escape(shown, sizeof shown, c->text, strlen(c->text));
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s:%u:%u: error: column '%s': a number expected, %s%s%s found",
                     t->name, c->line, c->col, t->cells[col].text, *c->text ? "'" : "",
                     *c->text ? shown : "an empty field", *c->text ? "'" : "");
}

void ws_table_list_columns(const ws_table *t, char *buf, size_t n) {
  size_t used = 0;
  if (n) buf[0] = '\0';
  for (size_t i = 0; i < t->ncols && used < n; i++) {
    int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", t->cells[i].text);
    if (w < 0) break;
    used += (size_t)w;
  }
}
