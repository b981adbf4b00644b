/* ptxparse.c - the PTX reader: a scanner of PTX tokens and a statement
 * parser (ptxparse.h). Directives that end at the line's end (.version,
 * .target, .file, .loc) are read by line; everything else by ';'. */
#include "ptx/ptxparse.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

#define MAX_PTX_BYTES ((size_t)64 << 20)
#define MAX_FILES 4096u

typedef enum tok_kind { T_EOF, T_IDENT, T_NUM, T_STR, T_PUNCT } tok_kind;

typedef struct tok {
  tok_kind kind;
  const char *s;
  size_t n;
  uint32_t line, col;
} tok;

typedef struct parser {
  ws_ctx *ctx;
  const char *src, *end, *p, *name;
  uint32_t line;
  const char *line_start;
  tok t;                       /* the current token */
  uint32_t loc_file, loc_line; /* the last .loc */
  ws_ptx_module *m;
  bool failed;
} parser;

/* ---- scanning ---------------------------------------------------------------- */

static bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' || c == '.';
}
static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
static bool num_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.';
}

static void newline(parser *ps) {
  ps->line++;
  ps->line_start = ps->p + 1;
}

/* Skips blanks and comments; false at an unterminated block comment. */
static bool skip_space(parser *ps) {
  while (ps->p < ps->end) {
    char c = *ps->p;
    if (c == '\n') {
      newline(ps);
      ps->p++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ps->p++;
    } else if (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '/') {
      while (ps->p < ps->end && *ps->p != '\n') ps->p++;
    } else if (c == '/' && ps->p + 1 < ps->end && ps->p[1] == '*') {
      ps->p += 2;
      while (ps->p + 1 < ps->end && !(ps->p[0] == '*' && ps->p[1] == '/')) {
        if (*ps->p == '\n') newline(ps);
        ps->p++;
      }
      if (ps->p + 1 >= ps->end) return false;
      ps->p += 2;
    } else {
      break;
    }
  }
  return true;
}

static void describe(const tok *t, char *buf, size_t n) {
  if (t->kind == T_EOF)
    snprintf(buf, n, "the end of the file");
  else
    snprintf(buf, n, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->s);
}

static ws_status fail_at(parser *ps, const tok *t, const char *expected) {
  char found[64];
  describe(t, found, sizeof found);
  ps->failed = true;
  return ws_ctx_fail(ps->ctx, WS_ERR_INVALID, "%s:%u:%u: error: expected %s, found %s", ps->name, t->line,
                     t->col, expected, found);
}

static void scan(parser *ps) {
  tok *t = &ps->t;
  if (!skip_space(ps)) {
    t->kind = T_PUNCT, t->s = "/*", t->n = 2;
    fail_at(ps, t, "the end of a comment '*/'");
    t->kind = T_EOF;
    return;
  }
  t->line = ps->line;
  t->col = (uint32_t)(ps->p - ps->line_start) + 1;
  t->s = ps->p;
  if (ps->p >= ps->end) {
    t->kind = T_EOF, t->n = 0;
    return;
  }
  char c = *ps->p;
  if (ident_start(c)) {
    while (ps->p < ps->end && ident_char(*ps->p)) ps->p++;
    t->kind = T_IDENT;
  } else if (c >= '0' && c <= '9') {
    while (ps->p < ps->end && num_char(*ps->p)) ps->p++;
    t->kind = T_NUM;
  } else if (c == '"') {
    ps->p++;
    while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\n') ps->p++;
    if (ps->p < ps->end && *ps->p == '"') ps->p++;
    t->kind = T_STR;
  } else {
    ps->p++;
    t->kind = T_PUNCT;
  }
  t->n = (size_t)(ps->p - t->s);
}

static bool is_punct(const parser *ps, char c) { return ps->t.kind == T_PUNCT && *ps->t.s == c; }
static bool is_word(const parser *ps, const char *w) {
  return ps->t.kind == T_IDENT && ps->t.n == strlen(w) && memcmp(ps->t.s, w, ps->t.n) == 0;
}

static ws_status expect_punct(parser *ps, char c, const char *what) {
  if (!is_punct(ps, c)) return fail_at(ps, &ps->t, what);
  scan(ps);
  return WS_OK;
}

/* The current token into buf (bounded); false when it does not fit. */
static bool copy_tok(const parser *ps, char *buf, size_t n) {
  if (ps->t.n >= n) return false;
  memcpy(buf, ps->t.s, ps->t.n);
  buf[ps->t.n] = '\0';
  return true;
}

static ws_status take_ident(parser *ps, char *buf, size_t n, const char *what) {
  if (ps->t.kind != T_IDENT || !copy_tok(ps, buf, n)) return fail_at(ps, &ps->t, what);
  scan(ps);
  return WS_OK;
}

static void skip_to_semicolon(parser *ps) {
  while (ps->t.kind != T_EOF && !is_punct(ps, ';') && !ps->failed) scan(ps);
  if (is_punct(ps, ';')) scan(ps);
}

/* Skips a balanced { ... } block starting at the current '{'. */
static ws_status skip_block(parser *ps) {
  tok open = ps->t;
  int depth = 0;
  do {
    if (is_punct(ps, '{')) depth++;
    if (is_punct(ps, '}')) depth--;
    scan(ps);
  } while (depth > 0 && ps->t.kind != T_EOF && !ps->failed);
  if (depth > 0) return fail_at(ps, &open, "a block closed by '}'");
  return ps->failed ? WS_ERR_INVALID : WS_OK;
}

/* ---- numbers ------------------------------------------------------------------ */

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool parse_hex(const char *s, size_t n, uint64_t *out) {
  uint64_t v = 0;
  if (n == 0 || n > 16) return false;
  for (size_t i = 0; i < n; i++) {
    int h = hexval(s[i]);
    if (h < 0) return false;
    v = v << 4 | (uint64_t)h;
  }
  *out = v;
  return true;
}

/* A NUM token into *o as INT or FLOAT; `neg` when a '-' preceded it. */
static bool parse_number(const tok *t, bool neg, ws_ptx_opnd *o) {
  const char *s = t->s;
  size_t n = t->n;
  if (n > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    o->kind = WS_PTX_OPND_FLOAT;
    o->fdouble = s[1] == 'd' || s[1] == 'D';
    if (n != (o->fdouble ? 18u : 10u) || !parse_hex(s + 2, n - 2, &o->fbits)) return false;
    if (neg) o->fbits ^= o->fdouble ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    return true;
  }
  while (n > 0 && (s[n - 1] == 'U' || s[n - 1] == 'u')) n--;
  uint64_t v = 0;
  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (!parse_hex(s + 2, n - 2, &v)) return false;
  } else if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) {
    char buf[64];
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *endp = NULL;
    double d = strtod(buf, &endp);
    if (*endp) return false;
    if (neg) d = -d;
    o->kind = WS_PTX_OPND_FLOAT, o->fdouble = 1;
    memcpy(&o->fbits, &d, sizeof d);
    return true;
  } else {
    for (size_t i = 0; i < n; i++) {
      if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10) return false;
      v = v * 10 + (uint64_t)(s[i] - '0');
    }
  }
  o->kind = WS_PTX_OPND_INT;
  o->ival = neg ? -(int64_t)v : (int64_t)v;
  return true;
}

static ws_status take_int(parser *ps, int64_t *out, const char *what) {
  bool neg = false;
  if (is_punct(ps, '-')) {
    neg = true;
    scan(ps);
  }
  ws_ptx_opnd o = {0};
  if (ps->t.kind != T_NUM || !parse_number(&ps->t, neg, &o) || o.kind != WS_PTX_OPND_INT)
    return fail_at(ps, &ps->t, what);
  *out = o.ival;
  scan(ps);
  return WS_OK;
}

/* ---- growable arrays ------------------------------------------------------------ */

typedef struct stmts {
  ws_ptx_stmt *v;
  size_t n, cap;
} stmts;

static ws_ptx_stmt *new_stmt(parser *ps, stmts *s, ws_ptx_stmt_kind kind) {
  if (!ws_grow((void **)&s->v, &s->cap, s->n, sizeof *s->v, 16)) {
    ps->failed = true;
    ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
    return NULL;
  }
  ws_ptx_stmt *st = &s->v[s->n++];
  memset(st, 0, sizeof *st);
  st->kind = (uint8_t)kind;
  st->line = ps->t.line;
  st->cuda_file = ps->loc_file;
  st->cuda_line = ps->loc_line;
  return st;
}

/* ---- operands --------------------------------------------------------------------- */

static const char *const sregs[] = {
    "%tid",         "%ntid",        "%ctaid",       "%nctaid",      "%laneid",  "%warpid",
    "%nwarpid",     "%smid",        "%nsmid",       "%clock",       "%clock64", "%lanemask_eq",
    "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%gridid",  "%globaltimer"};

static bool is_sreg(const char *name) {
  size_t n = strcspn(name, ".");
  for (size_t i = 0; i < sizeof sregs / sizeof *sregs; i++)
    if (strlen(sregs[i]) == n && strncmp(sregs[i], name, n) == 0) return true;
  return false;
}

static ws_status parse_address(parser *ps, ws_ptx_opnd *o) {
  scan(ps); /* '[' */
  o->kind = WS_PTX_OPND_ADDR;
  if (ps->t.kind == T_NUM) {
    ws_status st = take_int(ps, &o->ival, "an address");
    if (st != WS_OK) return st;
  } else {
    ws_status st = take_ident(ps, o->name, sizeof o->name, "a register or a variable inside '[ ]'");
    if (st != WS_OK) return st;
    o->base_is_reg = o->name[0] == '%';
    if (is_punct(ps, '+')) {
      scan(ps);
      st = take_int(ps, &o->ival, "an offset after '+'");
      if (st != WS_OK) return st;
    } else if (is_punct(ps, '-')) {
      st = take_int(ps, &o->ival, "an offset after '-'");
      if (st != WS_OK) return st;
    }
  }
  return expect_punct(ps, ']', "']' closing the address");
}

static ws_status parse_vector(parser *ps, ws_ptx_opnd *o) {
  scan(ps); /* '{' */
  o->kind = WS_PTX_OPND_VECTOR;
  for (;;) {
    if (o->nelems == WS_PTX_MAX_VECTOR) return fail_at(ps, &ps->t, "at most 4 vector elements");
    ws_status st = take_ident(ps, o->elems[o->nelems], sizeof o->elems[0], "a register in the vector");
    if (st != WS_OK) return st;
    o->nelems++;
    if (!is_punct(ps, ',')) break;
    scan(ps);
  }
  return expect_punct(ps, '}', "'}' closing the vector");
}

static ws_status parse_operand(parser *ps, ws_ptx_opnd *o) {
  memset(o, 0, sizeof *o);
  if (is_punct(ps, '[')) return parse_address(ps, o);
  if (is_punct(ps, '{')) return parse_vector(ps, o);
  bool neg = false, bang = false;
  if (is_punct(ps, '!'))
    bang = true, scan(ps);
  else if (is_punct(ps, '-'))
    neg = true, scan(ps);
  if (ps->t.kind == T_NUM && !bang) {
    if (!parse_number(&ps->t, neg, o)) return fail_at(ps, &ps->t, "a number");
    scan(ps);
    return WS_OK;
  }
  if (ps->t.kind != T_IDENT || neg) return fail_at(ps, &ps->t, "an operand");
  ws_status st = take_ident(ps, o->name, sizeof o->name, "an operand");
  if (st != WS_OK) return st;
  o->neg = bang;
  if (strcmp(o->name, "_") == 0)
    o->kind = WS_PTX_OPND_SINK;
  else if (o->name[0] == '%')
    o->kind = is_sreg(o->name) ? WS_PTX_OPND_SREG : WS_PTX_OPND_REG;
  else
    o->kind = WS_PTX_OPND_SYMBOL;
  return WS_OK;
}

/* ---- statements inside an entry -------------------------------------------------- */

/* A call's parenthesized list of param names, "(a, b)", into call_args
 * (or, with at most one name, the return param into name). */
static ws_status parse_call_list(parser *ps, ws_ptx_stmt *st, bool is_ret) {
  scan(ps); /* '(' */
  size_t cap = 0;
  while (!is_punct(ps, ')')) {
    char name[WS_PTX_NAME_MAX];
    ws_status r = take_ident(ps, name, sizeof name, "a param name in the call's list");
    if (r != WS_OK) return r;
    if (is_ret) {
      if (st->name[0]) return fail_at(ps, &ps->t, "one return param");
      memcpy(st->name, name, sizeof name);
    } else {
      if (!ws_grow((void **)&st->call_args, &cap, st->ncall_args, sizeof *st->call_args, 8))
        return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
      memcpy(st->call_args[st->ncall_args++], name, sizeof name);
    }
    if (is_punct(ps, ','))
      scan(ps);
    else if (!is_punct(ps, ')'))
      return fail_at(ps, &ps->t, "',' or ')' in the call's list");
  }
  scan(ps);
  return WS_OK;
}

/* "call.uni (ret), target, (args), prototype;" with the lists and the
 * prototype optional: the target in opnds[0], a prototype in opnds[1]. */
static ws_status parse_call(parser *ps, ws_ptx_stmt *st) {
  ws_status r = WS_OK;
  if (is_punct(ps, '(')) {
    r = parse_call_list(ps, st, true);
    if (r == WS_OK) r = expect_punct(ps, ',', "',' after the call's return param");
  }
  if (r == WS_OK) r = parse_operand(ps, &st->opnds[st->nopnds++]);
  if (r == WS_OK && is_punct(ps, ',')) {
    scan(ps);
    if (is_punct(ps, '('))
      r = parse_call_list(ps, st, false);
    else
      r = parse_operand(ps, &st->opnds[st->nopnds++]);
  }
  if (r == WS_OK && is_punct(ps, ',')) {
    scan(ps);
    r = parse_operand(ps, &st->opnds[st->nopnds++]);
  }
  if (r == WS_OK) r = expect_punct(ps, ';', "';' after the call");
  return r;
}

static ws_status parse_insn(parser *ps, stmts *s) {
  ws_ptx_stmt *st = new_stmt(ps, s, WS_PTX_INSN);
  if (!st) return WS_ERR_NOMEM;
  if (is_punct(ps, '@')) {
    scan(ps);
    if (is_punct(ps, '!')) st->guard_neg = 1, scan(ps);
    ws_status r = take_ident(ps, st->guard, sizeof st->guard, "a predicate register after '@'");
    if (r != WS_OK) return r;
    st->has_guard = 1;
  }
  ws_status r = take_ident(ps, st->op, sizeof st->op, "an instruction");
  if (r != WS_OK) return r;
  if (strcmp(st->op, "call") == 0 || strncmp(st->op, "call.", 5) == 0) return parse_call(ps, st);
  while (!is_punct(ps, ';')) {
    if (st->nopnds == WS_PTX_MAX_OPERANDS) return fail_at(ps, &ps->t, "';' (at most 8 operands)");
    r = parse_operand(ps, &st->opnds[st->nopnds++]);
    if (r != WS_OK) return r;
    if (is_punct(ps, ',') || is_punct(ps, '|'))
      scan(ps); /* setp's "p|q" writes two predicates */
    else if (!is_punct(ps, ';'))
      return fail_at(ps, &ps->t, "',' or ';' after an operand");
  }
  scan(ps);
  return WS_OK;
}

/* ".reg .b32 %r<6>;" or ".reg .f32 %a, %b;" */
static ws_status parse_reg_decl(parser *ps, stmts *s) {
  scan(ps); /* .reg */
  char type[16];
  ws_status r = take_ident(ps, type, sizeof type, "a register type (.b32, .pred ...)");
  while (r == WS_OK) {
    ws_ptx_stmt *st = new_stmt(ps, s, WS_PTX_REG_DECL);
    if (!st) return WS_ERR_NOMEM;
    strcpy(st->type, type);
    r = take_ident(ps, st->name, sizeof st->name, "a register name");
    if (r == WS_OK && is_punct(ps, '<')) {
      int64_t n = 0;
      scan(ps);
      r = take_int(ps, &n, "a register count");
      if (r == WS_OK && (n < 0 || n > 1000000))
        r = fail_at(ps, &ps->t, "a register count of at most 1000000");
      if (r == WS_OK) r = expect_punct(ps, '>', "'>'");
      st->count = (uint32_t)n;
    }
    if (r != WS_OK || is_punct(ps, ';')) break;
    r = expect_punct(ps, ',', "',' or ';'");
  }
  return r == WS_OK ? expect_punct(ps, ';', "';'") : r;
}

/* One initializer value of an element of `elem` bytes at *at. */
static ws_status init_value(parser *ps, ws_ptx_stmt *st, uint64_t elem, uint64_t *at) {
  bool neg = false;
  if (is_punct(ps, '-')) neg = true, scan(ps);
  ws_ptx_opnd o = {0};
  if (ps->t.kind != T_NUM || !parse_number(&ps->t, neg, &o))
    return fail_at(ps, &ps->t, "a number in the initializer");
  if (*at + elem > st->size_bytes) return fail_at(ps, &ps->t, "no more values than the variable holds");
  uint64_t bits = (uint64_t)o.ival;
  bool is_float = st->type[1] == 'f';
  if (is_float && elem == 4) {
    float f;
    if (o.kind == WS_PTX_OPND_FLOAT && !o.fdouble) {
      bits = o.fbits;
    } else {
      double d = 0;
      if (o.kind == WS_PTX_OPND_FLOAT)
        memcpy(&d, &o.fbits, sizeof d);
      else
        d = (double)o.ival;
      f = (float)d;
      uint32_t b;
      memcpy(&b, &f, sizeof b);
      bits = b;
    }
  } else if (o.kind == WS_PTX_OPND_FLOAT) {
    return fail_at(ps, &ps->t, "an integer for an integer variable");
  }
  for (uint64_t k = 0; k < elem; k++) st->init[*at + k] = (uint8_t)(bits >> (8 * k));
  *at += elem;
  scan(ps);
  return WS_OK;
}

/* "= value" or "= {v, v, ...}" (nested braces for arrays of arrays are
 * flattened); values fill the variable in order, the rest stays 0. */
static ws_status parse_init(parser *ps, ws_ptx_stmt *st, uint64_t elem) {
  if (st->size_bytes == 0 || st->size_bytes > (64u << 10))
    return fail_at(ps, &ps->t, "an initialized variable of 1 byte to 64 KiB");
  st->init = calloc(1, st->size_bytes);
  if (!st->init) return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
  uint64_t at = 0;
  int depth = 0;
  do {
    if (is_punct(ps, '{')) {
      depth++, scan(ps);
      continue;
    }
    if (is_punct(ps, '}') && depth > 0) {
      depth--, scan(ps);
    } else {
      ws_status r = init_value(ps, st, elem, &at);
      if (r != WS_OK) return r;
    }
    if (is_punct(ps, ',')) scan(ps);
  } while (depth > 0 && ps->t.kind != T_EOF && !ps->failed);
  return ps->failed ? WS_ERR_INVALID : WS_OK;
}

/* ".shared .align 4 .b8 name[N];" (inside or outside an entry); also
 * ".extern .shared .align 16 .b8 name[];" for dynamic shared memory. */
static ws_status parse_var(parser *ps, stmts *s, bool is_extern) {
  ws_ptx_stmt *st = new_stmt(ps, s, WS_PTX_VAR_DECL);
  if (!st) return WS_ERR_NOMEM;
  st->is_extern = is_extern;
  ws_status r = take_ident(ps, st->space, sizeof st->space, "a state space");
  st->align_bytes = 0;
  while (r == WS_OK && ps->t.kind == T_IDENT && ps->t.s[0] == '.') {
    if (is_word(ps, ".align")) {
      int64_t a = 0;
      scan(ps);
      r = take_int(ps, &a, "an alignment");
      if (r == WS_OK && (a <= 0 || a > 4096 || (a & (a - 1))))
        r = fail_at(ps, &ps->t, "a power-of-two alignment");
      st->align_bytes = (uint32_t)a;
    } else {
      r = take_ident(ps, st->type, sizeof st->type, "a type");
    }
  }
  if (r == WS_OK) r = take_ident(ps, st->name, sizeof st->name, "a variable name");
  uint64_t elem = 1;
  if (strlen(st->type) > 2) elem = (uint64_t)strtoul(st->type + 2, NULL, 10) / 8;
  if (elem == 0 || strcmp(st->type, ".pred") == 0) elem = 1;
  st->size_bytes = elem;
  while (r == WS_OK && is_punct(ps, '[')) {
    int64_t n = 0;
    scan(ps);
    if (is_punct(ps, ']')) {
      st->size_bytes = 0; /* extern: sized at launch */
    } else {
      r = take_int(ps, &n, "an array size");
      if (r == WS_OK && (n <= 0 || (uint64_t)n > ((uint64_t)1 << 32)))
        r = fail_at(ps, &ps->t, "a size up to 2^32");
      st->size_bytes *= (uint64_t)n;
      if (st->size_bytes > ((uint64_t)1 << 32)) r = fail_at(ps, &ps->t, "a variable of at most 4 GiB");
    }
    if (r == WS_OK) r = expect_punct(ps, ']', "']'");
  }
  if (st->align_bytes == 0) st->align_bytes = (uint32_t)elem;
  if (r != WS_OK) return r;
  if (is_punct(ps, '=')) {
    scan(ps);
    r = parse_init(ps, st, elem);
    if (r != WS_OK) return r;
  }
  return expect_punct(ps, ';', "';' after the variable");
}

static void parse_loc(parser *ps) {
  uint32_t line = ps->t.line;
  scan(ps); /* .loc */
  int64_t f = 0, l = 0;
  if (ps->t.kind == T_NUM && take_int(ps, &f, "a file number") == WS_OK && ps->t.kind == T_NUM &&
      take_int(ps, &l, "a line") == WS_OK) {
    ps->loc_file = f > 0 && f < MAX_FILES ? (uint32_t)f : 0;
    ps->loc_line = l > 0 && l < UINT32_MAX ? (uint32_t)l : 0;
  }
  while (ps->t.kind != T_EOF && ps->t.line == line && !ps->failed) scan(ps);
}

static ws_status parse_body(parser *ps, stmts *s) {
  tok open = ps->t;
  int depth = 1;
  scan(ps); /* '{' */
  while (depth > 0 && !ps->failed) {
    ws_status r = WS_OK;
    if (ps->t.kind == T_EOF) return fail_at(ps, &open, "the entry's body closed by '}'");
    if (is_punct(ps, '{')) {
      if (!new_stmt(ps, s, WS_PTX_OPEN)) return WS_ERR_NOMEM;
      depth++, scan(ps);
    } else if (is_punct(ps, '}')) {
      if (--depth > 0 && !new_stmt(ps, s, WS_PTX_CLOSE)) return WS_ERR_NOMEM;
      scan(ps);
    } else if (is_word(ps, ".reg")) {
      r = parse_reg_decl(ps, s);
    } else if (is_word(ps, ".loc")) {
      parse_loc(ps);
    } else if (is_word(ps, ".pragma") || is_word(ps, ".callprototype")) {
      skip_to_semicolon(ps); /* a prototype serves only indirect calls, which are refused */
    } else if (is_word(ps, ".shared") || is_word(ps, ".local") || is_word(ps, ".const") ||
               is_word(ps, ".param")) {
      r = parse_var(ps, s, false);
    } else if (ps->t.kind == T_IDENT && ps->t.s[0] != '.' && ps->t.s[0] != '%' && ps->p < ps->end) {
      /* a label ("LBB0_2:") or an instruction without a guard */
      const char *save_p = ps->p, *save_ls = ps->line_start;
      uint32_t save_line = ps->line;
      tok save = ps->t;
      scan(ps);
      if (is_punct(ps, ':')) {
        ws_ptx_stmt *st = new_stmt(ps, s, WS_PTX_LABEL);
        if (!st) return WS_ERR_NOMEM;
        st->line = save.line;
        if (save.n >= sizeof st->name) return fail_at(ps, &save, "a shorter label");
        memcpy(st->name, save.s, save.n);
        scan(ps);
      } else {
        ps->p = save_p, ps->line_start = save_ls, ps->line = save_line, ps->t = save;
        r = parse_insn(ps, s);
      }
    } else if (is_punct(ps, '@')) {
      r = parse_insn(ps, s);
    } else {
      r = fail_at(ps, &ps->t, "an instruction, a label, a declaration or '}'");
    }
    if (r != WS_OK) return r;
  }
  return ps->failed ? WS_ERR_INVALID : WS_OK;
}

/* ---- entries ------------------------------------------------------------------------ */

static ws_status parse_param(parser *ps, ws_ptx_param *p) {
  memset(p, 0, sizeof *p);
  ws_status r = WS_OK;
  if (!is_word(ps, ".param") && !is_word(ps, ".reg")) return fail_at(ps, &ps->t, "'.param'");
  scan(ps);
  while (r == WS_OK && ps->t.kind == T_IDENT && ps->t.s[0] == '.') {
    if (is_word(ps, ".align")) {
      int64_t a = 0;
      scan(ps);
      r = take_int(ps, &a, "an alignment");
      p->align_bytes = (uint32_t)(a > 0 && a <= 4096 ? a : 1);
    } else if (is_word(ps, ".ptr")) {
      p->is_ptr = 1, scan(ps);
    } else if (is_word(ps, ".global") || is_word(ps, ".shared") || is_word(ps, ".const") ||
               is_word(ps, ".local")) {
      scan(ps);
    } else {
      r = take_ident(ps, p->type, sizeof p->type, "a param type");
    }
  }
  if (r == WS_OK) r = take_ident(ps, p->name, sizeof p->name, "a param name");
  uint32_t elem = strlen(p->type) > 2 ? (uint32_t)strtoul(p->type + 2, NULL, 10) / 8 : 0;
  if (r == WS_OK && elem == 0) return fail_at(ps, &ps->t, "a sized param type (.u32, .b8 ...)");
  p->size_bytes = elem;
  if (r == WS_OK && is_punct(ps, '[')) {
    int64_t n = 0;
    scan(ps);
    r = take_int(ps, &n, "an array size");
    if (r == WS_OK && (n <= 0 || n > 4096)) r = fail_at(ps, &ps->t, "a param array of at most 4096 elements");
    if (r == WS_OK) r = expect_punct(ps, ']', "']'");
    p->size_bytes = elem * (uint32_t)n;
  }
  if (p->align_bytes == 0) p->align_bytes = elem;
  return r;
}

static ws_status parse_params(parser *ps, ws_ptx_entry *e) {
  if (!is_punct(ps, '(')) return WS_OK;
  scan(ps);
  size_t cap = 0;
  while (!is_punct(ps, ')')) {
    if (!ws_grow((void **)&e->params, &cap, e->nparams, sizeof *e->params, 16))
      return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
    ws_status r = parse_param(ps, &e->params[e->nparams]);
    if (r != WS_OK) return r;
    e->nparams++;
    if (is_punct(ps, ','))
      scan(ps);
    else if (!is_punct(ps, ')'))
      return fail_at(ps, &ps->t, "',' or ')' after a param");
  }
  scan(ps);
  return WS_OK;
}

static ws_status parse_dims(parser *ps, uint32_t d[3]) {
  scan(ps);
  for (int i = 0; i < 3; i++) d[i] = 1;
  for (int i = 0; i < 3; i++) {
    int64_t v = 0;
    ws_status r = take_int(ps, &v, "a thread count");
    if (r != WS_OK) return r;
    d[i] = (uint32_t)(v > 0 && v < 65536 ? v : 0);
    if (!is_punct(ps, ',')) break;
    scan(ps);
  }
  return WS_OK;
}

static ws_status parse_perf(parser *ps, ws_ptx_entry *e) {
  for (;;) {
    ws_status r = WS_OK;
    int64_t v = 0;
    if (is_word(ps, ".maxntid"))
      r = parse_dims(ps, e->maxntid);
    else if (is_word(ps, ".reqntid"))
      r = parse_dims(ps, e->reqntid);
    else if (is_word(ps, ".maxnreg")) {
      scan(ps);
      r = take_int(ps, &v, "a register count");
      e->maxnreg = (uint32_t)(v > 0 && v < 256 ? v : 0);
    } else if (is_word(ps, ".minnctapersm") || is_word(ps, ".maxnctapersm") || is_word(ps, ".noreturn")) {
      scan(ps);
      if (ps->t.kind == T_NUM) r = take_int(ps, &v, "a count");
    } else {
      return WS_OK;
    }
    if (r != WS_OK) return r;
  }
}

static ws_status parse_entry(parser *ps, bool is_func) {
  ws_ptx_module *m = ps->m;
  uint32_t line = ps->t.line;
  scan(ps); /* .entry / .func */
  ws_ptx_param ret = {0};
  if (is_func && is_punct(ps, '(')) { /* a return value */
    scan(ps);
    ws_status r = parse_param(ps, &ret);
    if (r != WS_OK) return r;
    r = expect_punct(ps, ')', "')' after the return value");
    if (r != WS_OK) return r;
  }
  ws_ptx_entry e;
  memset(&e, 0, sizeof e);
  e.is_func = is_func;
  e.has_ret = ret.name[0] != '\0';
  e.ret = ret;
  e.line = line;
  ws_status r = take_ident(ps, e.name, sizeof e.name, "the entry's name");
  if (r == WS_OK) r = parse_params(ps, &e);
  if (r == WS_OK) r = parse_perf(ps, &e);
  if (r == WS_OK && is_punct(ps, ';')) { /* a declaration only */
    scan(ps);
    free(e.params);
    return WS_OK;
  }
  stmts s = {0};
  if (r == WS_OK && !is_punct(ps, '{')) r = fail_at(ps, &ps->t, "'{' opening the entry's body");
  if (r == WS_OK) r = parse_body(ps, &s);
  e.stmts = s.v, e.nstmts = s.n;
  size_t cap = m->nentries;
  if (r == WS_OK && !ws_grow((void **)&m->entries, &cap, m->nentries, sizeof *m->entries, 16))
    r = ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
  if (r != WS_OK) {
    for (size_t k = 0; k < e.nstmts; k++) ws_ptx_stmt_fini(&e.stmts[k]);
    free(e.params);
    free(e.stmts);
    return r;
  }
  m->entries[m->nentries++] = e;
  return WS_OK;
}

/* ---- the module ----------------------------------------------------------------------- */

static ws_status parse_file_dir(parser *ps) {
  uint32_t line = ps->t.line;
  scan(ps);
  int64_t n = 0;
  if (ps->t.kind == T_NUM && take_int(ps, &n, "a file number") == WS_OK && ps->t.kind == T_STR && n > 0 &&
      n < MAX_FILES) {
    ws_ptx_module *m = ps->m;
    if ((size_t)n >= m->nfiles) {
      char **f = realloc(m->files, (size_t)(n + 1) * sizeof *f);
      if (!f) return ws_ctx_fail(ps->ctx, WS_ERR_NOMEM, "%s: out of memory reading PTX", ps->name);
      for (size_t i = m->nfiles; i <= (size_t)n; i++) f[i] = NULL;
      m->files = f, m->nfiles = (size_t)n + 1;
    }
    free(m->files[n]);
    m->files[n] = strndup(ps->t.s + 1, ps->t.n >= 2 ? ps->t.n - 2 : 0);
  }
  while (ps->t.kind != T_EOF && ps->t.line == line && !ps->failed) scan(ps);
  return WS_OK;
}

static ws_status take_rest(parser *ps, char *buf, size_t n) {
  uint32_t line = ps->t.line;
  scan(ps);
  if (ps->t.line == line && copy_tok(ps, buf, n)) scan(ps);
  while (ps->t.kind != T_EOF && ps->t.line == line && !ps->failed) scan(ps);
  return WS_OK;
}

static ws_status parse_top(parser *ps, stmts *globals) {
  if (is_word(ps, ".version")) return take_rest(ps, ps->m->version, sizeof ps->m->version);
  if (is_word(ps, ".target")) return take_rest(ps, ps->m->target, sizeof ps->m->target);
  if (is_word(ps, ".address_size")) {
    scan(ps);
    int64_t a = 0;
    ws_status r = take_int(ps, &a, "32 or 64");
    if (r == WS_OK && a != 64)
      return fail_at(ps, &ps->t, "'.address_size 64' (32-bit addressing is not supported)");
    ps->m->address_size = (uint32_t)a;
    return r;
  }
  if (is_word(ps, ".file")) return parse_file_dir(ps);
  if (is_word(ps, ".section")) {
    while (!is_punct(ps, '{') && ps->t.kind != T_EOF) scan(ps);
    return skip_block(ps);
  }
  if (is_word(ps, ".pragma")) {
    skip_to_semicolon(ps);
    return WS_OK;
  }
  bool is_extern = false;
  while (is_word(ps, ".visible") || is_word(ps, ".extern") || is_word(ps, ".weak") ||
         is_word(ps, ".common")) {
    is_extern |= is_word(ps, ".extern");
    scan(ps);
  }
  if (is_word(ps, ".entry")) return parse_entry(ps, false);
  if (is_word(ps, ".func")) return parse_entry(ps, true);
  if (is_word(ps, ".shared") || is_word(ps, ".global") || is_word(ps, ".const"))
    return parse_var(ps, globals, is_extern);
  return fail_at(ps, &ps->t, "a directive (.version, .target, .entry, .func, .shared ...)");
}

ws_status ws_ptx_parse(ws_ctx *ctx, const char *text, size_t len, const char *filename, ws_ptx_module *out) {
  memset(out, 0, sizeof *out);
  if (len > MAX_PTX_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%s: %zu bytes of PTX; at most %zu MiB", filename, len,
                       MAX_PTX_BYTES >> 20);
  if (memchr(text, '\0', len))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: PTX text expected, a NUL byte found (a binary file?)",
                       filename);
  parser ps = {.ctx = ctx,
               .src = text,
               .end = text + len,
               .p = text,
               .name = filename,
               .line = 1,
               .line_start = text,
               .m = out};
  stmts globals = {0};
  scan(&ps);
  ws_status r = WS_OK;
  while (r == WS_OK && !ps.failed && ps.t.kind != T_EOF) r = parse_top(&ps, &globals);
  out->globals = globals.v, out->nglobals = globals.n;
  if (r == WS_OK && ps.failed) r = ws_ctx_status(ctx);
  if (r == WS_OK && out->version[0] == '\0')
    r = ws_ctx_fail(ctx, WS_ERR_INVALID,
                    "%s:1:1: error: expected a PTX module starting with '.version', found none", filename);
  if (r != WS_OK) ws_ptx_module_free(out);
  return r;
}

void ws_ptx_stmt_fini(ws_ptx_stmt *st) {
  free(st->init);
  st->init = NULL;
  free(st->call_args);
  st->call_args = NULL;
  st->ncall_args = 0;
}

void ws_ptx_module_free(ws_ptx_module *m) {
  for (size_t i = 0; i < m->nentries; i++) {
    for (size_t k = 0; k < m->entries[i].nstmts; k++) ws_ptx_stmt_fini(&m->entries[i].stmts[k]);
    free(m->entries[i].params);
    free(m->entries[i].stmts);
  }
  free(m->entries);
  for (size_t i = 0; i < m->nglobals; i++) ws_ptx_stmt_fini(&m->globals[i]);
  free(m->globals);
  for (size_t i = 0; i < m->nfiles; i++) free(m->files[i]);
  free(m->files);
  memset(m, 0, sizeof *m);
}
