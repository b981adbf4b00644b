/* test_lexer.c - the .wsa tokenizer (isa/lexer.c): kinds, text, line and
 * 1-based byte column of each token of small sources, numbers with and
 * without an exponent sign, comments, bad bytes, and how messages describe a
 * token. Columns were counted by hand on the source strings (written out
 * under each test where it helps). */
#include <criterion/criterion.h>
#include <string.h>

#include "isa/lexer.h"

typedef struct want {
  ws_tok_kind kind;
  const char *text;
  size_t line, col;
} want;

static void expect_tokens(const char *src, size_t len, const want *w, size_t n) {
  ws_lexer lx;
  ws_lexer_init(&lx, src, len);
  for (size_t i = 0; i < n; i++) {
    ws_token t = ws_lexer_next(&lx);
    cr_expect_eq(t.kind, w[i].kind, "token %zu: kind %d, want %d", i, t.kind, w[i].kind);
    cr_expect_eq(t.len, strlen(w[i].text), "token %zu: length %zu ('%.*s'), want '%s'", i, t.len, (int)t.len,
                 t.text, w[i].text);
    cr_expect_eq(strncmp(t.text, w[i].text, t.len), 0, "token %zu: '%.*s', want '%s'", i, (int)t.len, t.text,
                 w[i].text);
    cr_expect_eq(t.line, w[i].line, "token %zu ('%s'): line %zu, want %zu", i, w[i].text, t.line, w[i].line);
    cr_expect_eq(t.col, w[i].col, "token %zu ('%s'): column %zu, want %zu", i, w[i].text, t.col, w[i].col);
  }
}

#define EXPECT_TOKENS(src, ...)                                                                              \
  do {                                                                                                       \
    static const want w_[] = {__VA_ARGS__};                                                                  \
    expect_tokens(src, strlen(src), w_, sizeof w_ / sizeof w_[0]);                                           \
  } while (0)

/* "  @!P0 IADD R1, R2, 0x10 // note\nBRA loop;"
 *  cols: @ 3, ! 4, P0 5, IADD 8, R1 13, ',' 15, R2 17, ',' 19, 0x10 21;
 *  the comment runs from col 26 to the newline at col 33. */
Test(lexer, tokens_of_two_lines_with_positions) {
  EXPECT_TOKENS("  @!P0 IADD R1, R2, 0x10 // note\nBRA loop;", {WS_TOK_PUNCT, "@", 1, 3},
                {WS_TOK_PUNCT, "!", 1, 4}, {WS_TOK_WORD, "P0", 1, 5}, {WS_TOK_WORD, "IADD", 1, 8},
                {WS_TOK_WORD, "R1", 1, 13}, {WS_TOK_PUNCT, ",", 1, 15}, {WS_TOK_WORD, "R2", 1, 17},
                {WS_TOK_PUNCT, ",", 1, 19}, {WS_TOK_NUMBER, "0x10", 1, 21}, {WS_TOK_EOL, "\n", 1, 33},
                {WS_TOK_WORD, "BRA", 2, 1}, {WS_TOK_WORD, "loop", 2, 5}, {WS_TOK_PUNCT, ";", 2, 9},
                {WS_TOK_EOF, "", 2, 10}, {WS_TOK_EOF, "", 2, 10});
}

/* Dotted words are one token; every punctuation character is its own. */
Test(lexer, dotted_words_and_punctuation) {
  EXPECT_TOKENS(".kernel IMUL.HI.U32 SR_TID.X _x9 [R2+-4] |a| :", {WS_TOK_WORD, ".kernel", 1, 1},
                {WS_TOK_WORD, "IMUL.HI.U32", 1, 9}, {WS_TOK_WORD, "SR_TID.X", 1, 21},
                {WS_TOK_WORD, "_x9", 1, 30}, {WS_TOK_PUNCT, "[", 1, 34}, {WS_TOK_WORD, "R2", 1, 35},
                {WS_TOK_PUNCT, "+", 1, 37}, {WS_TOK_PUNCT, "-", 1, 38}, {WS_TOK_NUMBER, "4", 1, 39},
                {WS_TOK_PUNCT, "]", 1, 40}, {WS_TOK_PUNCT, "|", 1, 42}, {WS_TOK_WORD, "a", 1, 43},
                {WS_TOK_PUNCT, "|", 1, 44}, {WS_TOK_PUNCT, ":", 1, 46}, {WS_TOK_EOF, "", 1, 47});
}

/* A decimal exponent absorbs its sign when a digit follows; a hex number
 * does not ('-' is then an operator); other word characters stay in the
 * number for the parser to judge. */
Test(lexer, numbers) {
  EXPECT_TOKENS("2e-3 2.5E+7 0x1e-3 1e- 0f3F800000 12abc 3-4", {WS_TOK_NUMBER, "2e-3", 1, 1},
                {WS_TOK_NUMBER, "2.5E+7", 1, 6}, {WS_TOK_NUMBER, "0x1e", 1, 13}, {WS_TOK_PUNCT, "-", 1, 17},
                {WS_TOK_NUMBER, "3", 1, 18}, {WS_TOK_NUMBER, "1e", 1, 20}, {WS_TOK_PUNCT, "-", 1, 22},
                {WS_TOK_NUMBER, "0f3F800000", 1, 24}, {WS_TOK_NUMBER, "12abc", 1, 35},
                {WS_TOK_NUMBER, "3", 1, 41}, {WS_TOK_PUNCT, "-", 1, 42}, {WS_TOK_NUMBER, "4", 1, 43},
                {WS_TOK_EOF, "", 1, 44});
}

/* '#' and '//' comments may hold any bytes (here UTF-8 "é" and 0xFF; the
 * newline is byte 11 of line 1); a lone '/' is a bad byte; '\r' is a blank,
 * so CRLF ends a line once. */
Test(lexer, comments_blanks_and_line_ends) {
  EXPECT_TOKENS("# caf\xc3\xa9 \xff\r\nA\t// x\r\n\n/B", {WS_TOK_EOL, "\n", 1, 11}, {WS_TOK_WORD, "A", 2, 1},
                {WS_TOK_EOL, "\n", 2, 8}, {WS_TOK_EOL, "\n", 3, 1}, {WS_TOK_BAD, "/", 4, 1},
                {WS_TOK_WORD, "B", 4, 2}, {WS_TOK_EOF, "", 4, 3});
}

/* Outside comments, a byte that starts no token is one BAD token, NUL too. */
Test(lexer, bad_bytes) {
  static const char src[] = "R1 $\x80\0Z";
  static const want w[] = {{WS_TOK_WORD, "R1", 1, 1}, {WS_TOK_BAD, "$", 1, 4},  {WS_TOK_BAD, "\x80", 1, 5},
                           {WS_TOK_BAD, "", 1, 6},    {WS_TOK_WORD, "Z", 1, 7}, {WS_TOK_EOF, "", 1, 8}};
  ws_lexer lx;
  ws_lexer_init(&lx, src, sizeof src - 1);
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
    ws_token t = ws_lexer_next(&lx);
    cr_expect_eq(t.kind, w[i].kind, "token %zu", i);
    cr_expect_eq(t.col, w[i].col, "token %zu", i);
    if (w[i].kind == WS_TOK_BAD) cr_expect_eq(t.len, 1u, "token %zu is one byte", i);
  }
}

/* The length bounds the source: no NUL is needed and nothing past it is read. */
Test(lexer, stops_at_the_given_length) {
  const char *src = "R12345";
  expect_tokens(src, 3, (const want[]){{WS_TOK_WORD, "R12", 1, 1}, {WS_TOK_EOF, "", 1, 4}}, 2);
  expect_tokens(src, 0, (const want[]){{WS_TOK_EOF, "", 1, 1}}, 1);
}

Test(lexer, token_is_matches_punctuation_only) {
  ws_lexer lx;
  ws_lexer_init(&lx, ", a", 3);
  ws_token comma = ws_lexer_next(&lx), word = ws_lexer_next(&lx);
  cr_expect(ws_lexer_token_is(&comma, ','));
  cr_expect_not(ws_lexer_token_is(&comma, ';'));
  cr_expect_not(ws_lexer_token_is(&word, 'a'), "a word is not punctuation");
}

static void expect_describe(const char *src, size_t len, const char *want_text) {
  ws_lexer lx;
  ws_lexer_init(&lx, src, len);
  ws_token t = ws_lexer_next(&lx);
  char buf[64];
  ws_lexer_describe(&t, buf, sizeof buf);
  cr_expect_str_eq(buf, want_text);
}

/* Words and printable bad bytes are quoted; other bad bytes as '\xNN'; a
 * token over 40 characters shows its first 40 and "...". */
Test(lexer, describe) {
  expect_describe("R3", 2, "'R3'");
  expect_describe("$", 1, "'$'");
  expect_describe("\x80", 1, "'\\x80'");
  expect_describe("\x01", 1, "'\\x01'");
  expect_describe("\n", 1, "end of line");
  expect_describe("", 0, "end of file");
  const char *long_word = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"; /* 45 characters */
  expect_describe(long_word, strlen(long_word), "'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN...'");
  char small[8];
  ws_lexer lx;
  ws_lexer_init(&lx, "LONGWORD", 8);
  ws_token t = ws_lexer_next(&lx);
  ws_lexer_describe(&t, small, sizeof small);
  cr_expect_str_eq(small, "'LONGWO", "the buffer size bounds the text");
}
