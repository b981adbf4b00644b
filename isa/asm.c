/* asm.c - the .wsa assembler: source text -> ws_program.
 *
 * Design: a hand-written recursive-descent parser with two tokens of
 * lookahead (a label is "word ':'"). Each operand kind of the opcode
 * signatures in opcodes.def has one small parse function, so a new opcode
 * needs a table row, not parser code. The first error stops the parse with
 * "FILE:LINE:COL: error: ..." on the context and frees the partial program:
 * students fix one thing at a time, and a message never cascades from an
 * earlier one. Symbol tables are hashed (symtab.h) so no input, however
 * large, makes the parser quadratic. */
#include "isa/asm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "base/file.h"
#include "isa/analysis.h"
#include "isa/lexer.h"
#include "isa/modifiers.h"
#include "isa/symtab.h"

#define MAX_INSNS 1000000u
#define MAX_SHARED_BYTES (1u << 30)
#define IMM_MIN (-2147483647ll - 1)
#define IMM_MAX_UNSIGNED 4294967295ll
#define IMM_MAX_SIGNED 2147483647ll
/* Bound on a running sum of terms, far outside every accepted range, so
 * summing can never overflow int64. */
#define SUM_BOUND (1ll << 40)
#define MSG_MAX 512
#define FOUND_MAX 64

/* A label use, resolved when its kernel ends (labels may come later). */
typedef struct fixup {
  uint32_t insn;
  uint32_t opnd;
  ws_token tok;
} fixup;

typedef struct parser {
  ws_ctx *ctx;
  const char *file;
  ws_lexer lex;
  ws_token tok;  /* current token */
  ws_token next; /* one token of lookahead */
  ws_program *prog;
  uint32_t kernels_cap, kernel_lines_cap;
  size_t *kernel_lines; /* line of each kernel's .kernel, for messages */
  bool in_kernel;
  bool local_seen;     /* the current kernel has its .local */
  ws_token kernel_tok; /* the current kernel's name token */
  uint32_t insns_cap, lines_cap, params_cap, shared_cap, labels_cap;
  size_t *label_lines; /* line of each label of the current kernel */
  uint32_t label_lines_cap;
  fixup *fixups;
  uint32_t nfixups, fixups_cap;
  ws_symtab kernel_tab, param_tab, shared_tab, label_tab;
} parser;

/* ---- errors ----------------------------------------------------------------- */

static ws_status fail_at(parser *p, const ws_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ws_status fail_at(parser *p, const ws_token *t, const char *fmt, ...) {
  char msg[MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ws_ctx_fail(p->ctx, WS_ERR_INVALID, "%s:%zu:%zu: error: %s", p->file, t->line, t->col, msg);
}

/* "expected WHAT, found TOKEN"; a byte that starts no token is reported as
 * such whatever was expected, since that is the real problem. */
static ws_status fail_expected(parser *p, const ws_token *t, const char *what) {
  char found[FOUND_MAX];
  ws_lexer_describe(t, found, sizeof found);
  if (t->kind == WS_TOK_BAD) return fail_at(p, t, "unexpected character %s", found);
  return fail_at(p, t, "expected %s, found %s", what, found);
}

static ws_status fail_nomem(parser *p) {
  return ws_ctx_fail(p->ctx, WS_ERR_NOMEM, "%s: error: out of memory while assembling", p->file);
}

/* ---- small helpers ---------------------------------------------------------- */

static void advance(parser *p) {
  p->tok = p->next;
  p->next = ws_lexer_next(&p->lex);
}

static bool at_statement_end(const parser *p) {
  return p->tok.kind == WS_TOK_EOL || p->tok.kind == WS_TOK_EOF || ws_lexer_token_is(&p->tok, ';');
}

static bool word_is(const ws_token *t, const char *s) {
  return t->kind == WS_TOK_WORD && strlen(s) == t->len && memcmp(t->text, s, t->len) == 0;
}

static ws_kernel *cur_kernel(parser *p) { return &p->prog->kernels[p->prog->nkernels - 1]; }

/* Grows *arr to hold `need` elements; *cap changes only on success. */
static bool reserve(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t n = *cap ? *cap : 16;
  while (n < need) {
    if (n > UINT32_MAX / 2) return false;
    n *= 2;
  }
  void *grown = realloc(*arr, (size_t)n * elem);
  if (!grown) return false;
  *arr = grown;
  *cap = n;
  return true;
}

static int32_t bits32(int64_t v) {
  uint32_t u = (uint32_t)v;
  int32_t s;
  memcpy(&s, &u, sizeof s);
  return s;
}

static uint64_t align_up(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A decimal or 0x-hex integer token; the value saturates just above any
 * 32-bit range so callers can report "does not fit" without overflow. */
static bool int_token(const ws_token *t, uint64_t *out) {
  if (t->kind != WS_TOK_NUMBER) return false;
  bool hex = t->len > 2 && t->text[0] == '0' && (t->text[1] == 'x' || t->text[1] == 'X');
  unsigned base = hex ? 16 : 10;
  uint64_t v = 0;
  for (size_t i = hex ? 2 : 0; i < t->len; i++) {
    int d = hex ? hex_value(t->text[i]) : (is_digit(t->text[i]) ? t->text[i] - '0' : -1);
    if (d < 0) return false;
    v = v * base + (unsigned)d;
    if (v > SUM_BOUND) v = SUM_BOUND;
  }
  *out = v;
  return true;
}

/* R0..R254 -> 0..254 and RZ -> 255; anything else (R255 included) fails. */
static bool reg_name(const ws_token *t, unsigned *reg) {
  if (t->kind != WS_TOK_WORD || t->len < 2 || t->text[0] != 'R') return false;
  if (t->len == 2 && t->text[1] == 'Z') {
    *reg = WS_REG_RZ;
    return true;
  }
  unsigned v = 0;
  for (size_t i = 1; i < t->len; i++) {
    if (!is_digit(t->text[i]) || v > WS_NUM_REGS) return false;
    v = v * 10 + (unsigned)(t->text[i] - '0');
  }
  if (v >= WS_NUM_REGS) return false;
  *reg = v;
  return true;
}

/* P0..P6 -> 0..6 and PT -> 7. */
static bool pred_name(const ws_token *t, unsigned *pred) {
  if (t->kind != WS_TOK_WORD || t->len != 2 || t->text[0] != 'P') return false;
  if (t->text[1] == 'T') {
    *pred = WS_PRED_PT;
    return true;
  }
  if (t->text[1] < '0' || t->text[1] >= '0' + WS_NUM_PREDS) return false;
  *pred = (unsigned)(t->text[1] - '0');
  return true;
}

/* R<digits>, RZ, P<digits>, PT: spellings that read as registers, so they
 * may not name symbols (and R255 is reported as a bad register). */
static bool looks_like_reg(const ws_token *t) {
  if (t->kind != WS_TOK_WORD || t->len < 2) return false;
  if (t->len == 2 && ((t->text[0] == 'R' && t->text[1] == 'Z') || (t->text[0] == 'P' && t->text[1] == 'T')))
    return true;
  if (t->text[0] != 'R' && t->text[0] != 'P') return false;
  for (size_t i = 1; i < t->len; i++)
    if (!is_digit(t->text[i])) return false;
  return true;
}

static bool is_identifier(const ws_token *t) {
  if (t->kind != WS_TOK_WORD || is_digit(t->text[0]) || t->text[0] == '.') return false;
  for (size_t i = 0; i < t->len; i++)
    if (t->text[i] == '.') return false;
  return true;
}

/* A param's name may be a path of identifiers and numbers joined by '.'
 * (`p.scale`, `param_0.8`): a struct's field, filled by name as any param. */
static bool is_param_name(const ws_token *t) {
  if (t->kind != WS_TOK_WORD || is_digit(t->text[0]) || t->text[0] == '.' || t->text[t->len - 1] == '.')
    return false;
  for (size_t i = 1; i < t->len; i++)
    if (t->text[i] == '.' && t->text[i - 1] == '.') return false;
  return true;
}

/* A symbol name: an identifier (for a param, a path of them) of at most
 * WS_NAME_MAX - 1 characters that does not read as a register. */
static ws_status check_name(parser *p, const ws_token *t, const char *what) {
  char expect[48];
  snprintf(expect, sizeof expect, "a %s name", what);
  if (!(strcmp(what, "param") == 0 ? is_param_name(t) : is_identifier(t))) return fail_expected(p, t, expect);
  if (t->len >= WS_NAME_MAX) {
    char found[FOUND_MAX];
    ws_lexer_describe(t, found, sizeof found);
    return fail_at(p, t, "%s name %s is longer than %d characters", what, found, WS_NAME_MAX - 1);
  }
  if (looks_like_reg(t))
    return fail_at(p, t, "%s name '%.*s' is reserved: it reads as a register", what, (int)t->len, t->text);
  return WS_OK;
}

static void copy_name(char dst[WS_NAME_MAX], const ws_token *t) {
  memcpy(dst, t->text, t->len);
  dst[t->len] = '\0';
}

/* ---- integer terms: 16, -0x10, tile, tile+4-2 ---------------------------------- */

static ws_status check_range(parser *p, const ws_token *at, int64_t v, bool is_signed) {
  if (v < IMM_MIN || v > (is_signed ? IMM_MAX_SIGNED : IMM_MAX_UNSIGNED))
    return is_signed ? fail_at(p, at, "offset %lld does not fit in 32 bits (signed)", (long long)v)
                     : fail_at(p, at, "immediate %lld does not fit in 32 bits", (long long)v);
  return WS_OK;
}

static ws_status shared_term(parser *p, int64_t *v) {
  const ws_kernel *k = cur_kernel(p);
  const ws_token *t = &p->tok;
  if (!is_identifier(t) || looks_like_reg(t)) return fail_expected(p, t, "an integer or shared symbol");
  uint32_t i = ws_symtab_find(&p->shared_tab, k->shared, sizeof *k->shared, t->text, t->len);
  if (i == WS_SYMTAB_NONE)
    return fail_at(p, t, "unknown shared symbol '%.*s'", (int)(t->len < WS_NAME_MAX ? t->len : WS_NAME_MAX),
                   t->text);
  *v = k->shared[i].offset_bytes;
  advance(p);
  return WS_OK;
}

/* One term: [-]integer, or a shared symbol when `syms`. A literal must fit
 * in 32 bits on its own. */
static ws_status parse_term(parser *p, bool syms, int64_t *v) {
  ws_token start = p->tok;
  bool neg = ws_lexer_token_is(&p->tok, '-');
  if (neg) advance(p);
  uint64_t u;
  if (!int_token(&p->tok, &u)) {
    if (syms && !neg && p->tok.kind == WS_TOK_WORD) return shared_term(p, v);
    return fail_expected(p, &p->tok, syms ? "an integer or shared symbol" : "an integer");
  }
  if (u > (uint64_t)(neg ? -IMM_MIN : IMM_MAX_UNSIGNED)) {
    size_t n = p->tok.len < FOUND_MAX ? p->tok.len : FOUND_MAX;
    return fail_at(p, &start, "immediate %s%.*s does not fit in 32 bits", neg ? "-" : "", (int)n,
                   p->tok.text);
  }
  *v = neg ? -(int64_t)u : (int64_t)u;
  advance(p);
  return WS_OK;
}

/* Adds any following "+ term" / "- term" to *acc. */
static ws_status parse_more_terms(parser *p, bool syms, const ws_token *start, int64_t *acc) {
  while (ws_lexer_token_is(&p->tok, '+') || ws_lexer_token_is(&p->tok, '-')) {
    bool minus = p->tok.text[0] == '-';
    advance(p);
    int64_t v;
    ws_status st = parse_term(p, syms, &v);
    if (st) return st;
    *acc += minus ? -v : v;
    if (*acc > SUM_BOUND || *acc < -SUM_BOUND) return check_range(p, start, *acc, false);
  }
  return WS_OK;
}

static ws_status parse_sum(parser *p, bool syms, int64_t *acc) {
  ws_token start = p->tok;
  ws_status st = parse_term(p, syms, acc);
  if (st) return st;
  return parse_more_terms(p, syms, &start, acc);
}

/* ---- floats ---------------------------------------------------------------------- */

/* 0fHHHHHHHH: an exact f32 bit pattern (PTX spelling). */
static ws_status float_bits_literal(parser *p, uint32_t *bits) {
  const ws_token *t = &p->tok;
  uint32_t v = 0;
  size_t i = 2;
  while (t->len == 10 && i < 10 && hex_value(t->text[i]) >= 0) v = v << 4 | (uint32_t)hex_value(t->text[i++]);
  if (i != 10) return fail_expected(p, t, "a float bit pattern 0f followed by 8 hex digits");
  *bits = v;
  return WS_OK;
}

/* Decimal (or hex) float text with strtof's round-to-nearest. */
static ws_status float_text_literal(parser *p, uint32_t *bits) {
  const ws_token *t = &p->tok;
  char *copy = malloc(t->len + 1);
  if (!copy) return fail_nomem(p);
  memcpy(copy, t->text, t->len);
  copy[t->len] = '\0';
  char *end;
  float f = strtof(copy, &end);
  bool whole = end == copy + t->len;
  free(copy);
  if (!whole) return fail_expected(p, t, "a float");
  *bits = ws_f32_bits(f);
  return WS_OK;
}

/* A float literal: 1.5, 2e-3, 2, inf, nan, 0f3F800000 (the caller handles a
 * leading '-'). */
static ws_status parse_float_literal(parser *p, uint32_t *bits) {
  const ws_token *t = &p->tok;
  ws_status st = WS_OK;
  if (word_is(t, "inf")) {
    *bits = 0x7F800000u;
  } else if (word_is(t, "nan")) {
    *bits = 0x7FC00000u;
  } else if (t->kind != WS_TOK_NUMBER) {
    return fail_expected(p, t, "a register or float");
  } else if (t->len > 1 && t->text[0] == '0' && (t->text[1] == 'f' || t->text[1] == 'F')) {
    st = float_bits_literal(p, bits);
  } else {
    st = float_text_literal(p, bits);
  }
  if (st == WS_OK) advance(p);
  return st;
}

static ws_status parse_signed_float(parser *p, ws_operand *o) {
  bool neg = ws_lexer_token_is(&p->tok, '-');
  if (neg) advance(p);
  uint32_t bits = 0;
  ws_status st = parse_float_literal(p, &bits);
  if (st) return st;
  o->kind = WS_OPND_IMM;
  o->imm = bits32(neg ? bits ^ 0x80000000u : bits);
  return WS_OK;
}

/* MOV takes float literals: a number that is not an integer, or inf/nan
 * when no shared symbol has that name. */
static bool float_ahead(parser *p) {
  const ws_token *t = ws_lexer_token_is(&p->tok, '-') ? &p->next : &p->tok;
  uint64_t u;
  if (t->kind == WS_TOK_NUMBER) return !int_token(t, &u);
  if (!word_is(t, "inf") && !word_is(t, "nan")) return false;
  const ws_kernel *k = cur_kernel(p);
  return ws_symtab_find(&p->shared_tab, k->shared, sizeof *k->shared, t->text, t->len) == WS_SYMTAB_NONE;
}

/* ---- operands ------------------------------------------------------------------- */

static ws_status check_reg_range(parser *p, const ws_token *t, unsigned r, unsigned n) {
  if (r == WS_REG_RZ || n == 1) return WS_OK;
  if (n == 2 && r % 2) return fail_at(p, t, "register pair must start at an even register, found R%u", r);
  if (n == 4 && r % 4) return fail_at(p, t, "register quad must start at a multiple of 4, found R%u", r);
  if (r + n - 1 >= WS_NUM_REGS)
    return fail_at(p, t, "register %s R%u..R%u runs past R%d", n == 2 ? "pair" : "quad", r, r + n - 1,
                   WS_NUM_REGS - 1);
  return WS_OK;
}

static ws_status parse_regs(parser *p, unsigned n, ws_operand *o) {
  unsigned r;
  if (!reg_name(&p->tok, &r)) return fail_expected(p, &p->tok, "a register R0..R254 or RZ");
  ws_status st = check_reg_range(p, &p->tok, r, n);
  if (st) return st;
  o->kind = WS_OPND_REG;
  o->reg = (uint8_t)r;
  advance(p);
  return WS_OK;
}

static ws_status parse_pred(parser *p, bool allow_not, ws_operand *o) {
  if (allow_not && ws_lexer_token_is(&p->tok, '!')) {
    o->flags = WS_OPND_NOT;
    advance(p);
  }
  unsigned r;
  if (!pred_name(&p->tok, &r)) return fail_expected(p, &p->tok, "a predicate P0..P6 or PT");
  o->kind = WS_OPND_PRED;
  o->reg = (uint8_t)r;
  advance(p);
  return WS_OK;
}

/* 'i': a register, an integer sum, a shared symbol; MOV also a float. */
static ws_status parse_int_operand(parser *p, const ws_insn *in, ws_operand *o) {
  unsigned r;
  if (reg_name(&p->tok, &r)) return parse_regs(p, 1, o);
  if (looks_like_reg(&p->tok)) return fail_expected(p, &p->tok, "a register R0..R254 or RZ");
  if (in->op == WS_OP_MOV && float_ahead(p)) return parse_signed_float(p, o);
  ws_token start = p->tok;
  int64_t v;
  ws_status st = parse_sum(p, true, &v);
  if (!st) st = check_range(p, &start, v, false);
  o->kind = WS_OPND_IMM;
  o->imm = bits32(v);
  return st;
}

static ws_status parse_imm_operand(parser *p, ws_operand *o);

/* 'f': R, -R, |R|, -|R| or a float literal; 'h' (halves): the same
 * registers or an integer holding two halves' bits. */
static ws_status parse_float_operand(parser *p, ws_operand *o, bool halves) {
  bool neg = ws_lexer_token_is(&p->tok, '-');
  bool abs = ws_lexer_token_is(neg ? &p->next : &p->tok, '|');
  bool reg = looks_like_reg(neg ? &p->next : &p->tok);
  if (!abs && !reg) return halves ? parse_imm_operand(p, o) : parse_signed_float(p, o);
  if (neg) advance(p);
  if (abs) advance(p);
  ws_status st = parse_regs(p, 1, o);
  if (st) return st;
  if (abs && !ws_lexer_token_is(&p->tok, '|')) return fail_expected(p, &p->tok, "'|' to close |R|");
  if (abs) advance(p);
  o->flags = (uint8_t)((neg ? WS_OPND_NEG : 0) | (abs ? WS_OPND_ABS : 0));
  return WS_OK;
}

static ws_status parse_sreg(parser *p, ws_operand *o) {
  for (unsigned i = 0; i < WS_SR_COUNT; i++) {
    if (!word_is(&p->tok, ws_isa_sreg_name((ws_sreg)i))) continue;
    o->kind = WS_OPND_SREG;
    o->reg = (uint8_t)i;
    advance(p);
    return WS_OK;
  }
  return fail_expected(p, &p->tok, "a special register (SR_TID.X, SR_LANEID, ...)");
}

static ws_status expect_punct(parser *p, char c, const char *what) {
  if (!ws_lexer_token_is(&p->tok, c)) return fail_expected(p, &p->tok, what);
  advance(p);
  return WS_OK;
}

/* 'g': [Rpair], [Rpair+imm], [Rpair-imm]; the pair holds a 64-bit address. */
static ws_status parse_global(parser *p, ws_operand *o) {
  ws_status st = expect_punct(p, '[', "'[' to start a global address");
  if (st) return st;
  unsigned r;
  if (!reg_name(&p->tok, &r) || r == WS_REG_RZ)
    return fail_expected(p, &p->tok, "a register pair R0, R2, ... holding a 64-bit address");
  if ((st = parse_regs(p, 2, o))) return st;
  ws_token start = p->tok;
  int64_t off = 0;
  if ((st = parse_more_terms(p, false, &start, &off))) return st;
  if ((st = check_range(p, &start, off, true))) return st;
  o->kind = WS_OPND_MEM;
  o->imm = bits32(off);
  return expect_punct(p, ']', "'+', '-' or ']' in the address");
}

/* [R+terms], [RZ+terms] or [terms]: the register-plus-offset addresses of
 * 'm' and 'o'; shared symbols count as terms when `syms`. */
static ws_status parse_reg_addr(parser *p, bool syms, ws_operand *o) {
  ws_status st = expect_punct(p, '[', "'[' to start an address");
  if (st) return st;
  ws_token start = p->tok;
  int64_t off = 0;
  unsigned r = WS_REG_RZ; /* an address without a register is absolute */
  if (reg_name(&p->tok, &r)) {
    advance(p);
    st = parse_more_terms(p, syms, &start, &off);
  } else if (looks_like_reg(&p->tok)) {
    st = fail_expected(p, &p->tok, "a register R0..R254 or RZ");
  } else {
    st = parse_sum(p, syms, &off);
  }
  if (!st) st = check_range(p, &start, off, false);
  if (st) return st;
  o->kind = WS_OPND_MEM;
  o->reg = (uint8_t)r;
  o->imm = bits32(off);
  return expect_punct(p, ']', "'+', '-' or ']' in the address");
}

/* 'm': [R+terms], [RZ+tile+4] or [tile+4]; terms are integers and shared
 * symbols. */
static ws_status parse_shared_addr(parser *p, ws_operand *o) { return parse_reg_addr(p, true, o); }

/* 'o': [R+imm], [RZ+imm] or [imm], a byte offset into the thread's .local
 * bytes. A constant offset (no register) is checked against .local here,
 * where the line is known; a register's is checked when it runs. */
static ws_status parse_local_addr(parser *p, const ws_insn *in, ws_operand *o) {
  ws_token start = p->next;
  ws_status st = parse_reg_addr(p, false, o);
  if (st || o->reg != WS_REG_RZ) return st;
  const ws_kernel *k = cur_kernel(p);
  uint32_t width = in->width_bytes ? in->width_bytes : 4u;
  if (o->imm >= 0 && o->imm % (int32_t)width)
    return fail_at(p, &start, "local access of %u bytes at offset %d is not aligned to its width", width,
                   o->imm);
  if (!ws_program_local_fits(k->local_bytes, o->imm, width))
    return fail_at(p, &start,
                   "local access of %u bytes at offset %d lies outside the kernel's .local %u bytes", width,
                   o->imm, k->local_bytes);
  return WS_OK;
}

/* 'a': [param] or [param+imm]: stored as the byte offset in the buffer. */
static ws_status parse_param_ref(parser *p, ws_operand *o) {
  ws_status st = expect_punct(p, '[', "'[' to start a param reference");
  if (st) return st;
  const ws_kernel *k = cur_kernel(p);
  ws_token name = p->tok;
  if (!is_param_name(&name)) return fail_expected(p, &name, "a param name");
  uint32_t i = ws_symtab_find(&p->param_tab, k->params, sizeof *k->params, name.text, name.len);
  if (i == WS_SYMTAB_NONE)
    return fail_at(p, &name, "unknown param '%.*s'", (int)(name.len < WS_NAME_MAX ? name.len : WS_NAME_MAX),
                   name.text);
  advance(p);
  int64_t off = k->params[i].offset_bytes;
  if ((st = parse_more_terms(p, false, &name, &off))) return st;
  if ((st = check_range(p, &name, off, true))) return st;
  o->kind = WS_OPND_MEM;
  o->reg = WS_REG_RZ;
  o->imm = bits32(off);
  return expect_punct(p, ']', "'+', '-' or ']' in the param reference");
}

static ws_status parse_label_ref(parser *p, uint32_t opnd, ws_operand *o) {
  if (!is_identifier(&p->tok)) return fail_expected(p, &p->tok, "a label name");
  if (!reserve((void **)&p->fixups, &p->fixups_cap, p->nfixups + 1, sizeof *p->fixups)) return fail_nomem(p);
  fixup *f = &p->fixups[p->nfixups++];
  f->insn = cur_kernel(p)->ninsns;
  f->opnd = opnd;
  f->tok = p->tok;
  o->kind = WS_OPND_LABEL;
  advance(p);
  return WS_OK;
}

static ws_status parse_imm_operand(parser *p, ws_operand *o) {
  ws_token start = p->tok;
  int64_t v = 0;
  ws_status st = parse_sum(p, false, &v);
  if (!st) st = check_range(p, &start, v, false);
  o->kind = WS_OPND_IMM;
  o->imm = bits32(v);
  return st;
}

static ws_status parse_operand(parser *p, ws_insn *in, unsigned idx) {
  ws_opnd_sig sig = ws_isa_sig((ws_op)in->op, idx);
  ws_operand *o = &in->opnd[idx];
  switch (sig.kind) {
  case 'd':
  case 'r': return parse_regs(p, ws_isa_opnd_nregs(in, idx), o);
  case 'i': return parse_int_operand(p, in, o);
  case 'f': return parse_float_operand(p, o, false);
  case 'h': return parse_float_operand(p, o, true);
  case 'q': return parse_pred(p, true, o);
  case 'p': return parse_pred(p, false, o);
  case 's': return parse_sreg(p, o);
  case 'g': return parse_global(p, o);
  case 'm': return parse_shared_addr(p, o);
  case 'o': return parse_local_addr(p, in, o);
  case 'a': return parse_param_ref(p, o);
  case 'l': return parse_label_ref(p, idx, o);
  default: return parse_imm_operand(p, o); /* 'n' */
  }
}

/* ---- mnemonics and modifiers ------------------------------------------------------ */

/* The longest table mnemonic that equals a dot-prefix of the word. */
static int match_opcode(const ws_token *t, size_t *mn_len) {
  int best = -1;
  *mn_len = 0;
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    const char *m = ws_isa_opinfo((ws_op)op)->mnemonic;
    size_t n = strlen(m);
    if (n <= *mn_len || n > t->len || memcmp(m, t->text, n) != 0) continue;
    if (n < t->len && t->text[n] != '.') continue;
    best = (int)op;
    *mn_len = n;
  }
  return best;
}

/* ".EQ .NE ..." for every group the opcode takes, or "none". */
static void list_modifiers(uint32_t mods, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    for (unsigned i = 0; (mods & g->bit) && i < g->count && len < size; i++)
      len += (size_t)snprintf(buf + len, size - len, "%s.%s", len ? " " : "", g->names[i]);
  }
  if (!len) snprintf(buf, size, "none");
}

static ws_status apply_modifier(parser *p, ws_insn *in, const ws_token *seg, uint32_t *seen,
                                ws_token *seen_tok) {
  const ws_opinfo *info = ws_isa_opinfo((ws_op)in->op);
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    int idx = (info->mods & g->bit) ? ws_modifiers_find(g, seg->text + 1, seg->len - 1) : -1;
    if (idx < 0) continue;
    if (*seen & g->bit) {
      const ws_token *prev = &seen_tok[gi];
      if (prev->len == seg->len && memcmp(prev->text, seg->text, seg->len) == 0)
        return fail_at(p, seg, "modifier '%.*s' given twice", (int)seg->len, seg->text);
      return fail_at(p, seg, "modifier '%.*s' conflicts with '%.*s'", (int)seg->len, seg->text,
                     (int)prev->len, prev->text);
    }
    *seen |= g->bit;
    seen_tok[gi] = *seg;
    ws_modifiers_set(in, g, g->values[idx]);
    return WS_OK;
  }
  char allowed[160], found[FOUND_MAX];
  list_modifiers(info->mods, allowed, sizeof allowed);
  ws_lexer_describe(seg, found, sizeof found);
  return fail_at(p, seg, "unexpected modifier %s on %s (allowed: %s)", found, info->mnemonic, allowed);
}

/* Omitted groups take their default; a required one is an error. */
static ws_status apply_defaults(parser *p, ws_insn *in, const ws_token *mn, uint32_t seen) {
  const ws_opinfo *info = ws_isa_opinfo((ws_op)in->op);
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    if (!(info->mods & g->bit) || (seen & g->bit)) continue;
    if (g->default_index >= 0) {
      ws_modifiers_set(in, g, g->values[g->default_index]);
      continue;
    }
    char what[96];
    if (g->count > 4)
      snprintf(what, sizeof what, "a %s modifier (.%s, .%s, ...)", g->what, g->names[0], g->names[1]);
    else
      snprintf(what, sizeof what, "a %s modifier (.%s, .%s, .%s, .%s)", g->what, g->names[0], g->names[1],
               g->names[2], g->names[3]);
    return fail_expected(p, mn, what);
  }
  return WS_OK;
}

static ws_status parse_mnemonic(parser *p, const ws_token *mn, ws_insn *in) {
  size_t n;
  int op = match_opcode(mn, &n);
  if (op < 0) {
    char found[FOUND_MAX];
    ws_lexer_describe(mn, found, sizeof found);
    return fail_at(p, mn, "unknown mnemonic %s", found);
  }
  in->op = (uint16_t)op;
  uint32_t seen = 0;
  ws_token seen_tok[WS_MODGROUP_COUNT];
  while (n < mn->len) {
    size_t end = n + 1;
    while (end < mn->len && mn->text[end] != '.') end++;
    ws_token seg = {WS_TOK_WORD, mn->text + n, end - n, mn->line, mn->col + n};
    ws_status st = apply_modifier(p, in, &seg, &seen, seen_tok);
    if (st) return st;
    n = end;
  }
  return apply_defaults(p, in, mn, seen);
}

/* ---- instructions ------------------------------------------------------------------ */

static ws_status parse_guard(parser *p, ws_insn *in) {
  advance(p); /* '@' */
  if (ws_lexer_token_is(&p->tok, '!')) {
    in->guard_neg = 1;
    advance(p);
  }
  unsigned r;
  if (!pred_name(&p->tok, &r)) return fail_expected(p, &p->tok, "a predicate P0..P6 or PT");
  in->guard = (uint8_t)r;
  advance(p);
  return WS_OK;
}

static ws_status parse_operands(parser *p, ws_insn *in) {
  unsigned n = ws_isa_nopnds((ws_op)in->op);
  char what[64];
  for (unsigned i = 0; i < n; i++) {
    if (i > 0 && !ws_lexer_token_is(&p->tok, ',')) {
      snprintf(what, sizeof what, "',' after operand %u", i);
      return fail_expected(p, &p->tok, what);
    }
    if (i > 0) advance(p);
    ws_status st = parse_operand(p, in, i);
    if (st) return st;
  }
  if (at_statement_end(p)) return WS_OK;
  if (n == 0)
    snprintf(what, sizeof what, "end of line after %s", ws_isa_opinfo((ws_op)in->op)->mnemonic);
  else
    snprintf(what, sizeof what, "end of line after operand %u", n);
  return fail_expected(p, &p->tok, what);
}

static ws_status append_insn(parser *p, const ws_insn *in, const ws_token *first) {
  ws_kernel *k = cur_kernel(p);
  if (k->ninsns >= MAX_INSNS)
    return fail_at(p, first, "kernel '%s' has more than %u instructions", k->name, MAX_INSNS);
  if (!reserve((void **)&k->insns, &p->insns_cap, k->ninsns + 1, sizeof *k->insns) ||
      !reserve((void **)&k->insn_lines, &p->lines_cap, k->ninsns + 1, sizeof *k->insn_lines))
    return fail_nomem(p);
  k->insns[k->ninsns] = *in;
  k->insn_lines[k->ninsns] = first->line > UINT32_MAX ? UINT32_MAX : (uint32_t)first->line;
  k->ninsns++;
  return WS_OK;
}

static ws_status parse_insn(parser *p) {
  ws_token first = p->tok;
  if (!p->in_kernel) return fail_expected(p, &first, "a directive .kernel before the first instruction");
  ws_insn in;
  memset(&in, 0, sizeof in);
  in.guard = WS_PRED_PT;
  ws_status st = WS_OK;
  if (ws_lexer_token_is(&p->tok, '@')) st = parse_guard(p, &in);
  if (st) return st;
  ws_token mn = p->tok;
  if (mn.kind != WS_TOK_WORD) return fail_expected(p, &mn, "a mnemonic");
  if ((st = parse_mnemonic(p, &mn, &in))) return st;
  advance(p);
  if ((st = parse_operands(p, &in))) return st;
  return append_insn(p, &in, &first);
}

/* ---- kernels, params, shared symbols, labels ---------------------------------------- */

static ws_status define_label(parser *p) {
  if (!p->in_kernel) return fail_expected(p, &p->tok, "a directive .kernel before the first label");
  const ws_token *t = &p->tok;
  ws_status st = check_name(p, t, "label");
  if (st) return st;
  ws_kernel *k = cur_kernel(p);
  uint32_t prev = ws_symtab_find(&p->label_tab, k->labels, sizeof *k->labels, t->text, t->len);
  if (prev != WS_SYMTAB_NONE)
    return fail_at(p, t, "label '%.*s' defined twice (first at line %zu)", (int)t->len, t->text,
                   p->label_lines[prev]);
  if (!reserve((void **)&k->labels, &p->labels_cap, k->nlabels + 1, sizeof *k->labels) ||
      !reserve((void **)&p->label_lines, &p->label_lines_cap, k->nlabels + 1, sizeof *p->label_lines))
    return fail_nomem(p);
  ws_label *l = &k->labels[k->nlabels];
  memset(l, 0, sizeof *l);
  copy_name(l->name, t);
  l->pc = k->ninsns;
  p->label_lines[k->nlabels] = t->line;
  if (!ws_symtab_add(&p->label_tab, k->labels, sizeof *k->labels, k->nlabels)) return fail_nomem(p);
  k->nlabels++;
  advance(p); /* name */
  advance(p); /* ':' */
  return WS_OK;
}

static ws_status resolve_labels(parser *p, ws_kernel *k) {
  for (uint32_t i = 0; i < p->nfixups; i++) {
    const fixup *f = &p->fixups[i];
    uint32_t l = ws_symtab_find(&p->label_tab, k->labels, sizeof *k->labels, f->tok.text, f->tok.len);
    if (l == WS_SYMTAB_NONE) {
      int n = (int)(f->tok.len < WS_NAME_MAX ? f->tok.len : WS_NAME_MAX);
      return fail_at(p, &f->tok, "label '%.*s' is not defined", n, f->tok.text);
    }
    k->insns[f->insn].opnd[f->opnd].imm = (int32_t)k->labels[l].pc;
  }
  return WS_OK;
}

/* A kernel is complete: labels resolve, and the analyses fill in what the
 * executor needs (register count, reconvergence points). */
static ws_status finish_kernel(parser *p) {
  ws_kernel *k = cur_kernel(p);
  p->in_kernel = false;
  if (k->ninsns == 0) return fail_at(p, &p->kernel_tok, "kernel '%s' has no instructions", k->name);
  ws_status st = resolve_labels(p, k);
  if (st) return st;
  k->regs_per_thread = ws_analysis_regs(k);
  return ws_analysis_reconvergence(p->ctx, k);
}

static void reset_kernel_state(parser *p) {
  p->insns_cap = p->lines_cap = p->params_cap = p->shared_cap = p->labels_cap = 0;
  p->nfixups = 0;
  p->local_seen = false;
  ws_symtab_clear(&p->param_tab);
  ws_symtab_clear(&p->shared_tab);
  ws_symtab_clear(&p->label_tab);
  p->in_kernel = true;
}

static ws_status parse_kernel(parser *p) {
  advance(p); /* .kernel */
  ws_status st = p->in_kernel ? finish_kernel(p) : WS_OK;
  if (!st) st = check_name(p, &p->tok, "kernel");
  if (st) return st;
  ws_program *prog = p->prog;
  const ws_token *t = &p->tok;
  uint32_t prev = ws_symtab_find(&p->kernel_tab, prog->kernels, sizeof *prog->kernels, t->text, t->len);
  if (prev != WS_SYMTAB_NONE)
    return fail_at(p, t, "kernel '%.*s' defined twice (first at line %zu)", (int)t->len, t->text,
                   p->kernel_lines[prev]);
  if (!reserve((void **)&prog->kernels, &p->kernels_cap, prog->nkernels + 1, sizeof *prog->kernels) ||
      !reserve((void **)&p->kernel_lines, &p->kernel_lines_cap, prog->nkernels + 1, sizeof *p->kernel_lines))
    return fail_nomem(p);
  ws_kernel *k = &prog->kernels[prog->nkernels];
  memset(k, 0, sizeof *k);
  copy_name(k->name, t);
  p->kernel_lines[prog->nkernels] = t->line;
  if (!ws_symtab_add(&p->kernel_tab, prog->kernels, sizeof *prog->kernels, prog->nkernels))
    return fail_nomem(p);
  prog->nkernels++;
  p->kernel_tok = *t;
  reset_kernel_state(p);
  advance(p);
  return WS_OK;
}

static int param_type(const ws_token *t) {
  for (unsigned i = 0; i < WS_PT_COUNT; i++) {
    const char *name = ws_program_ptype_name((ws_ptype)i);
    if (t->kind == WS_TOK_WORD && t->len == strlen(name) + 1 && t->text[0] == '.' &&
        memcmp(t->text + 1, name, t->len - 1) == 0)
      return (int)i;
  }
  return -1;
}

static ws_status parse_param(parser *p) {
  if (!p->in_kernel) return fail_expected(p, &p->tok, "a directive .kernel before the first .param");
  advance(p);
  int type = param_type(&p->tok);
  if (type < 0) return fail_expected(p, &p->tok, "a param type (.u32, .s32, .f32, .u64, .ptr)");
  advance(p);
  const ws_token *t = &p->tok;
  ws_status st = check_name(p, t, "param");
  if (st) return st;
  ws_kernel *k = cur_kernel(p);
  if (ws_symtab_find(&p->param_tab, k->params, sizeof *k->params, t->text, t->len) != WS_SYMTAB_NONE)
    return fail_at(p, t, "param '%.*s' declared twice", (int)t->len, t->text);
  uint32_t size = (type == WS_PT_U64 || type == WS_PT_PTR) ? 8 : 4;
  uint64_t offset = align_up(k->param_size_bytes, size);
  if (offset + size > WS_PARAM_MAX_BYTES)
    return fail_at(p, t, "params of kernel '%s' take more than %u bytes", k->name, WS_PARAM_MAX_BYTES);
  if (!reserve((void **)&k->params, &p->params_cap, k->nparams + 1, sizeof *k->params)) return fail_nomem(p);
  ws_param *prm = &k->params[k->nparams];
  memset(prm, 0, sizeof *prm);
  copy_name(prm->name, t);
  prm->type = (uint8_t)type;
  prm->offset_bytes = (uint32_t)offset;
  prm->size_bytes = size;
  if (!ws_symtab_add(&p->param_tab, k->params, sizeof *k->params, k->nparams)) return fail_nomem(p);
  k->nparams++;
  k->param_size_bytes = (uint32_t)(offset + size);
  advance(p);
  return WS_OK;
}

/* Size and optional alignment of a .shared declaration. */
static ws_status parse_shared_numbers(parser *p, uint64_t *size, uint64_t *align) {
  if (!int_token(&p->tok, size)) return fail_expected(p, &p->tok, "a size in bytes");
  advance(p);
  *align = 4;
  if (p->tok.kind != WS_TOK_NUMBER) return WS_OK;
  if (!int_token(&p->tok, align) || *align == 0 || (*align & (*align - 1)) || *align > MAX_SHARED_BYTES)
    return fail_expected(p, &p->tok, "a power-of-two alignment of at most 1 GiB");
  advance(p);
  return WS_OK;
}

static ws_status parse_shared(parser *p) {
  if (!p->in_kernel) return fail_expected(p, &p->tok, "a directive .kernel before the first .shared");
  advance(p);
  ws_token name = p->tok;
  ws_status st = check_name(p, &name, "shared symbol");
  if (st) return st;
  ws_kernel *k = cur_kernel(p);
  if (ws_symtab_find(&p->shared_tab, k->shared, sizeof *k->shared, name.text, name.len) != WS_SYMTAB_NONE)
    return fail_at(p, &name, "shared symbol '%.*s' declared twice", (int)name.len, name.text);
  advance(p);
  ws_token size_tok = p->tok;
  uint64_t size, align;
  if ((st = parse_shared_numbers(p, &size, &align))) return st;
  uint64_t offset = align_up(k->shared_size_bytes, align);
  if (size > MAX_SHARED_BYTES || offset + size > MAX_SHARED_BYTES)
    return fail_at(p, &size_tok, "shared memory of kernel '%s' would exceed 1 GiB", k->name);
  if (!reserve((void **)&k->shared, &p->shared_cap, k->nshared + 1, sizeof *k->shared)) return fail_nomem(p);
  ws_shared_sym *s = &k->shared[k->nshared];
  memset(s, 0, sizeof *s);
  copy_name(s->name, &name);
  s->offset_bytes = (uint32_t)offset;
  s->size_bytes = (uint32_t)size;
  s->align_bytes = (uint32_t)align;
  if (!ws_symtab_add(&p->shared_tab, k->shared, sizeof *k->shared, k->nshared)) return fail_nomem(p);
  k->nshared++;
  k->shared_size_bytes = (uint32_t)(offset + size);
  return WS_OK;
}

/* .local BYTES: the kernel's per-thread local memory, declared once and
 * before its first instruction, so every constant local offset can be
 * checked on its own line. */
static ws_status parse_local(parser *p) {
  if (!p->in_kernel) return fail_expected(p, &p->tok, "a directive .kernel before the first .local");
  ws_kernel *k = cur_kernel(p);
  if (p->local_seen) return fail_at(p, &p->tok, "kernel '%s' declares .local twice", k->name);
  if (k->ninsns)
    return fail_at(p, &p->tok, ".local of kernel '%s' must come before its first instruction", k->name);
  advance(p);
  uint64_t size;
  if (!int_token(&p->tok, &size)) return fail_expected(p, &p->tok, "a local memory size in bytes");
  if (size % 4)
    return fail_at(p, &p->tok, "local memory of %llu bytes is not a multiple of 4", (unsigned long long)size);
  if (size > WS_LOCAL_MAX_BYTES)
    return fail_at(p, &p->tok, "local memory of %llu bytes per thread exceeds the limit of %u (512 KiB)",
                   (unsigned long long)size, WS_LOCAL_MAX_BYTES);
  k->local_bytes = (uint32_t)size;
  p->local_seen = true;
  advance(p);
  return WS_OK;
}

static ws_status parse_directive(parser *p) {
  if (word_is(&p->tok, ".kernel")) return parse_kernel(p);
  if (word_is(&p->tok, ".param")) return parse_param(p);
  if (word_is(&p->tok, ".shared")) return parse_shared(p);
  if (word_is(&p->tok, ".local")) return parse_local(p);
  return fail_expected(p, &p->tok, "a directive (.kernel, .param, .shared, .local)");
}

/* line := { label ':' } [ directive | instruction ] [ ';' ] end-of-line */
static ws_status parse_line(parser *p) {
  ws_status st = WS_OK;
  while (p->tok.kind == WS_TOK_WORD && ws_lexer_token_is(&p->next, ':') && !st) st = define_label(p);
  if (st) return st;
  if (p->tok.kind == WS_TOK_WORD && p->tok.text[0] == '.')
    st = parse_directive(p);
  else if (p->tok.kind == WS_TOK_WORD || ws_lexer_token_is(&p->tok, '@'))
    st = parse_insn(p);
  else if (!at_statement_end(p))
    st = fail_expected(p, &p->tok, "an instruction, label or directive");
  if (st) return st;
  if (ws_lexer_token_is(&p->tok, ';')) advance(p);
  if (p->tok.kind == WS_TOK_EOF) return WS_OK;
  if (p->tok.kind != WS_TOK_EOL) return fail_expected(p, &p->tok, "end of line");
  advance(p);
  return WS_OK;
}

static ws_status parse_all(parser *p) {
  advance(p);
  advance(p);
  while (p->tok.kind != WS_TOK_EOF) {
    ws_status st = parse_line(p);
    if (st) return st;
  }
  if (p->in_kernel) return finish_kernel(p);
  return fail_expected(p, &p->tok, "a .kernel directive");
}

static void parser_free(parser *p) {
  free(p->kernel_lines);
  free(p->label_lines);
  free(p->fixups);
  ws_symtab_free(&p->kernel_tab);
  ws_symtab_free(&p->param_tab);
  ws_symtab_free(&p->shared_tab);
  ws_symtab_free(&p->label_tab);
}

ws_status ws_asm_parse(ws_ctx *ctx, const char *src, size_t len, const char *filename, ws_program **out) {
  if (!out) return ws_ctx_fail(ctx, WS_ERR_INVALID, "ws_asm_parse: no output pointer");
  *out = NULL;
  if (!src && len) return ws_ctx_fail(ctx, WS_ERR_INVALID, "ws_asm_parse: no source text");
  parser p;
  memset(&p, 0, sizeof p);
  p.ctx = ctx;
  p.file = filename ? filename : "<input>";
  ws_lexer_init(&p.lex, src ? src : "", len);
  p.prog = calloc(1, sizeof *p.prog);
  if (!p.prog) return fail_nomem(&p);
  ws_status st = parse_all(&p);
  parser_free(&p);
  if (st) {
    ws_program_destroy(p.prog);
    return st;
  }
  *out = p.prog;
  return WS_OK;
}

ws_status ws_asm_file(ws_ctx *ctx, const char *path, ws_program **out) {
  if (!out) return ws_ctx_fail(ctx, WS_ERR_INVALID, "ws_asm_file: no output pointer");
  *out = NULL;
  char *buf = NULL;
  size_t len = 0;
  ws_status st = ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "assembly source", &buf, &len);
  if (st != WS_OK) return st;
  st = ws_asm_parse(ctx, buf, len, path, out);
  free(buf);
  return st;
}
