/* lexer.c - the .wsa tokenizer.
 *
 * Design: comments ('//' or '#' to end of line) may hold any bytes, so UTF-8
 * prose in comments is fine, while outside comments only printable ASCII
 * forms tokens. A number token absorbs the sign of a decimal exponent
 * (2e-3) but not after a hex prefix, where '-' is an operator (0x1e-3). */
#include "isa/lexer.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"

#define DESCRIBE_MAX_CHARS 40

void ws_lexer_init(ws_lexer *lx, const char *src, size_t len) {
  lx->src = src;
  lx->len = len;
  lx->pos = 0;
  lx->line = 1;
  lx->line_start = 0;
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '.'; }

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static char peek_at(const ws_lexer *lx, size_t off) {
  return lx->pos + off < lx->len ? lx->src[lx->pos + off] : '\0';
}

/* Skips blanks and comments, stopping before a newline or the end. */
static void skip_blanks(ws_lexer *lx) {
  while (lx->pos < lx->len) {
    char c = lx->src[lx->pos];
    if (is_space(c)) {
      lx->pos++;
    } else if (c == '#' || (c == '/' && peek_at(lx, 1) == '/')) {
      const char *nl = memchr(lx->src + lx->pos, '\n', lx->len - lx->pos);
      lx->pos = nl ? (size_t)(nl - lx->src) : lx->len;
    } else {
      return;
    }
  }
}

static size_t scan_word(const ws_lexer *lx) {
  size_t n = 1;
  while (lx->pos + n < lx->len && is_word_char(lx->src[lx->pos + n])) n++;
  return n;
}

/* A decimal number may carry an exponent sign: 1e-3, 2.5E+7. */
static size_t scan_number(const ws_lexer *lx) {
  char p = peek_at(lx, 1);
  bool radix = lx->src[lx->pos] == '0' && (p == 'x' || p == 'X' || p == 'f' || p == 'F');
  size_t n = 1;
  while (lx->pos + n < lx->len) {
    char c = lx->src[lx->pos + n];
    char prev = lx->src[lx->pos + n - 1];
    bool exp_sign = !radix && (c == '+' || c == '-') && (prev == 'e' || prev == 'E') &&
                    lx->pos + n + 1 < lx->len && is_digit(lx->src[lx->pos + n + 1]);
    if (!is_word_char(c) && !exp_sign) break;
    n++;
  }
  return n;
}

static ws_token make(ws_lexer *lx, ws_tok_kind kind, size_t n) {
  ws_token t = {kind, lx->src + lx->pos, n, lx->line, lx->pos - lx->line_start + 1};
  lx->pos += n;
  return t;
}

ws_token ws_lexer_next(ws_lexer *lx) {
  skip_blanks(lx);
  if (lx->pos >= lx->len) return make(lx, WS_TOK_EOF, 0);
  char c = lx->src[lx->pos];
  if (c == '\n') {
    ws_token t = make(lx, WS_TOK_EOL, 1);
    lx->line++;
    lx->line_start = lx->pos;
    return t;
  }
  if (is_alpha(c) || c == '.') return make(lx, WS_TOK_WORD, scan_word(lx));
  if (is_digit(c)) return make(lx, WS_TOK_NUMBER, scan_number(lx));
  if (c && strchr(",[]+-|!@:;", c)) return make(lx, WS_TOK_PUNCT, 1);
  return make(lx, WS_TOK_BAD, 1);
}

bool ws_lexer_token_is(const ws_token *t, char c) { return t->kind == WS_TOK_PUNCT && t->text[0] == c; }

void ws_lexer_describe(const ws_token *t, char *buf, size_t size) {
  unsigned char b = t->len ? (unsigned char)t->text[0] : 0;
  if (t->kind == WS_TOK_EOF) {
    snprintf(buf, size, "end of file");
  } else if (t->kind == WS_TOK_EOL) {
    snprintf(buf, size, "end of line");
  } else if (t->kind == WS_TOK_BAD && (b < 0x20 || b >= 0x7f)) {
    char esc[8];
    snprintf(buf, size, "'%s'", ws_text_escape(esc, sizeof esc, t->text, 1));
  } else if (t->len > DESCRIBE_MAX_CHARS) {
    snprintf(buf, size, "'%.*s...'", DESCRIBE_MAX_CHARS, t->text);
  } else {
    snprintf(buf, size, "'%.*s'", (int)t->len, t->text);
  }
}
