/* lexer.h - tokens of the .wsa assembly language.
 *
 * Design: tokens point into the caller's source buffer (no copies, no NUL
 * needed), and a dotted word such as IMUL.HI.U32, SR_TID.X or .kernel is one
 * token: the assembler splits mnemonics on '.' itself, so the lexer stays
 * context-free. Any byte is accepted; one that starts no token becomes a
 * WS_TOK_BAD token the parser reports with its position. */
#ifndef WS_LEXER_H
#define WS_LEXER_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ws_tok_kind {
  WS_TOK_EOF,
  WS_TOK_EOL,    /* '\n' */
  WS_TOK_WORD,   /* [A-Za-z_.][A-Za-z0-9_.]* */
  WS_TOK_NUMBER, /* a digit, then word characters (and a sign after a decimal exponent) */
  WS_TOK_PUNCT,  /* one of , [ ] + - | ! @ : ; */
  WS_TOK_BAD,    /* one byte that starts no token */
  WS_TOK_COUNT
} ws_tok_kind;

typedef struct ws_token {
  ws_tok_kind kind;
  const char *text;
  size_t len;
  size_t line; /* 1-based */
  size_t col;  /* 1-based byte column */
} ws_token;

typedef struct ws_lexer {
  const char *src;
  size_t len;
  size_t pos;
  size_t line;
  size_t line_start; /* offset of the current line's first byte */
} ws_lexer;

void ws_lexer_init(ws_lexer *lx, const char *src, size_t len);
ws_token ws_lexer_next(ws_lexer *lx);

/* True when the token is the punctuation character c. */
bool ws_lexer_token_is(const ws_token *t, char c);
/* Writes how a message shows the token: 'R3' (quoted, long text shortened),
 * '\x80' for a bad byte, "end of line", "end of file". */
void ws_lexer_describe(const ws_token *t, char *buf, size_t size);

#endif
