/* srcnames.c - parameter names from a kernel's definition (srcnames.h). */
#include "ptx/srcnames.h"

#include <stdio.h>
#include <string.h>

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The offset where line `line` (1-based) starts, or len past the end. */
static size_t line_start(const char *text, size_t len, uint32_t line) {
  size_t at = 0;
  for (uint32_t l = 1; l < line && at < len; at++)
    if (text[at] == '\n') l++;
  return at;
}

/* The '(' after an occurrence of `kernel` as a whole word in [from, to). */
static size_t find_call(const char *text, size_t from, size_t to, const char *kernel) {
  size_t k = strlen(kernel);
  for (size_t i = from; k && i + k < to; i++) {
    if (memcmp(text + i, kernel, k) != 0) continue;
    if ((i > 0 && ident_char(text[i - 1])) || ident_char(text[i + k])) continue;
    size_t j = i + k;
    while (j < to && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n')) j++;
    if (j < to && text[j] == '(') return j;
  }
  return SIZE_MAX;
}

/* The identifier ending at b (after skipping what is not one) in [a, b):
 * its start, *end its end; a == *end when there is none. */
static size_t ident_before(const char *text, size_t a, size_t b, size_t *end) {
  while (b > a && !ident_char(text[b - 1])) b--;
  *end = b;
  while (b > a && ident_char(text[b - 1])) b--;
  return b;
}

static bool copy_ident(const char *text, size_t b, size_t e, char out[WS_SRCNAME_MAX]) {
  if (e == b || e - b >= WS_SRCNAME_MAX || (text[b] >= '0' && text[b] <= '9')) return false;
  memcpy(out, text + b, e - b);
  out[e - b] = '\0';
  return true;
}

/* The last identifier of declarator [a, b), defaults and array bounds
 * aside, and the type word before it. */
static bool last_ident(const char *text, size_t a, size_t b, ws_srcparam *out) {
  out->is_ptr = false;
  out->layout = NULL;
  for (size_t i = a; i < b; i++) {
    if (text[i] == '=' || text[i] == '[') b = i;
    if (i < b && text[i] == '*') out->is_ptr = true;
  }
  size_t e = 0, te = 0;
  b = ident_before(text, a, b, &e);
  size_t tb = ident_before(text, a, b, &te);
  if (!copy_ident(text, tb, te, out->type)) out->type[0] = '\0';
  return copy_ident(text, b, e, out->name);
}

static bool distinct(const ws_srcparam *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(p[i].name, p[j].name) == 0) return false;
  return true;
}

/* The '(' of the __global__ definition of `kernel`: the occurrence near
 * `line` first, else the first whose declaration (back to the previous ';',
 * '}' or '#') says __global__. */
static size_t find_definition(const char *text, size_t len, uint32_t line, const char *kernel) {
  size_t from = line_start(text, len, line > 8 ? line - 8 : 1), to = line_start(text, len, line + 2);
  size_t open = line ? find_call(text, from, to < len ? to : len, kernel) : SIZE_MAX;
  for (size_t at = 0; open == SIZE_MAX && at < len;) {
    size_t o = find_call(text, at, len, kernel);
    if (o == SIZE_MAX) break;
    size_t b = o;
    while (b > 0 && text[b - 1] != ';' && text[b - 1] != '}' && text[b - 1] != '#') b--;
    bool global = false;
    for (size_t i = b; i + 10 <= o && !global; i++) global = memcmp(text + i, "__global__", 10) == 0;
    if (global) open = o;
    at = o + 1;
  }
  return open;
}

bool ws_srcnames_params(const char *text, size_t len, uint32_t line, const char *kernel, size_t nparams,
                        ws_srcparam *names) {
  size_t open = find_definition(text, len, line, kernel);
  if (open == SIZE_MAX) return false;
  size_t found = 0, start = open + 1;
  int depth = 0;
  for (size_t i = open + 1; i < len; i++) {
    char c = text[i];
    if (c == '(' || c == '<' || c == '[' || c == '{')
      depth++;
    else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0)
      depth--;
    else if ((c == ',' || c == ')') && depth == 0) {
      bool empty = true;
      for (size_t k = start; k < i && empty; k++)
        empty = text[k] == ' ' || text[k] == '\t' || text[k] == '\n';
      if (!(empty && c == ')' && found == 0)) {
        if (found == nparams || !last_ident(text, start, i, &names[found])) return false;
        found++;
      }
      if (c == ')') return found == nparams && distinct(names, found);
      start = i + 1;
    }
  }
  return false;
}

/* ---- structs passed by value ------------------------------------------------------------ */

enum { NEST_MAX = 4 }; /* structs within structs, at most this deep */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* Appends field `name` (prefix.name; "" as the whole) of kind and size at offset. */
static bool add_field(ws_srcstruct *s, const char *prefix, const char *name, char kind, uint32_t size,
                      uint32_t offset) {
  if (s->nfields == WS_SRCFIELD_MAX) return false;
  ws_srcfield *f = &s->fields[s->nfields++];
  int n = snprintf(f->name, sizeof f->name, "%s%s%s", prefix, *prefix && *name ? "." : "", name);
  f->kind = kind, f->size_bytes = size, f->offset_bytes = offset;
  return n >= 0 && (size_t)n < sizeof f->name;
}

/* The scalar types by the words that name them (qualifiers left out). */
static bool scalar_type(const char *words, char *kind, uint32_t *size) {
  static const struct {
    const char *words;
    char kind;
    uint32_t size;
  } types[] = {
      {"float", 'f', 4},         {"int", 's', 4},
      {"signed", 's', 4},        {"signed int", 's', 4},
      {"int32_t", 's', 4},       {"unsigned", 'u', 4},
      {"unsigned int", 'u', 4},  {"uint32_t", 'u', 4},
      {"long", 'U', 8},          {"long int", 'U', 8},
      {"long long", 'U', 8},     {"long long int", 'U', 8},
      {"unsigned long", 'U', 8}, {"unsigned long long", 'U', 8},
      {"size_t", 'U', 8},        {"int64_t", 'U', 8},
      {"uint64_t", 'U', 8},      {"ptrdiff_t", 'U', 8},
  };
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strcmp(words, types[i].words) == 0) {
      *kind = types[i].kind, *size = types[i].size;
      return true;
    }
  return false;
}

/* CUDA's vector types of 4-byte elements (ptx/include/vector_types.h):
 * float2 and int2 align to 8, the 4-element ones to 16, the 3-element ones
 * to their element. */
static bool vector_type(const char *words, ws_srcstruct *s) {
  static const char *const bases[] = {"float", "int", "uint"};
  static const char kinds[] = {'f', 's', 'u'};
  static const char *const names[] = {"x", "y", "z", "w"};
  for (size_t b = 0; b < 3; b++) {
    size_t n = strlen(bases[b]);
    char c = words[n];
    if (strncmp(words, bases[b], n) != 0 || c < '1' || c > '4' || words[n + 1]) continue;
    uint32_t count = (uint32_t)(c - '0');
    for (uint32_t k = 0; k < count; k++)
      if (!add_field(s, "", names[k], kinds[b], 4, 4 * k)) return false;
    s->size_bytes = 4 * count;
    s->align_bytes = count == 2 ? 8 : count == 4 ? 16 : 4;
    return true;
  }
  return false;
}

static bool layout_of(const char *text, size_t len, const char *type, int depth, ws_srcstruct *out);

/* The '}' that closes the brace opened at open, into *at. */
static bool matching_close(const char *text, size_t len, size_t open, size_t *at) {
  int depth = 0;
  for (size_t i = open; i < len; i++) {
    if (text[i] == '{') depth++;
    if (text[i] == '}' && --depth == 0) {
      *at = i;
      return true;
    }
  }
  return false;
}

static bool matching_open(const char *text, size_t close, size_t *at) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (text[i] == '}') depth++;
    if (text[i] == '{' && --depth == 0) {
      *at = i;
      return true;
    }
  }
  return false;
}

/* Whether the word ending at b (spaces before b skipped) is `word`. */
static bool word_before(const char *text, size_t b, const char *word, size_t *start) {
  size_t e = 0, s = ident_before(text, 0, b, &e);
  for (size_t i = e; i < b; i++)
    if (!is_space(text[i])) return false;
  *start = s;
  return e - s == strlen(word) && memcmp(text + s, word, e - s) == 0;
}

static size_t skip_space(const char *text, size_t len, size_t i) {
  while (i < len && is_space(text[i])) i++;
  return i;
}

/* The '{' that opens the definition of `type`, *close its matching '}':
 * `struct TYPE {`, or `typedef struct [TAG] { ... } TYPE;`. */
static size_t find_body(const char *text, size_t len, const char *type, size_t *close) {
  size_t k = strlen(type), s = 0;
  for (size_t i = 0; k && i + k <= len; i++) {
    if (memcmp(text + i, type, k) != 0 || (i > 0 && ident_char(text[i - 1])) ||
        (i + k < len && ident_char(text[i + k])))
      continue;
    size_t after = skip_space(text, len, i + k), open = 0;
    if (after < len && text[after] == '{' && word_before(text, i, "struct", &s) &&
        matching_close(text, len, after, close))
      return after;
    size_t b = i;
    while (b > 0 && is_space(text[b - 1])) b--;
    if (b == 0 || text[b - 1] != '}' || after >= len || text[after] != ';') continue;
    if (!matching_open(text, b - 1, &open)) continue;
    size_t tag = open, tag_end = 0;
    if (!word_before(text, tag, "struct", &s)) { /* a tag between struct and '{' */
      tag = ident_before(text, 0, open, &tag_end);
      if (!word_before(text, tag, "struct", &s)) continue;
    }
    if (word_before(text, s, "typedef", &s)) {
      *close = b - 1;
      return open;
    }
  }
  return SIZE_MAX;
}

/* The type words of member declaration [a, b) up to its first declarator's
 * name (qualifiers and `struct` left out), space-separated, into words. */
static bool member_words(const char *text, size_t a, size_t b, char *words, size_t n) {
  static const char *const skip[] = {"const", "volatile", "struct", "__restrict__", "__restrict"};
  size_t used = 0;
  words[0] = '\0';
  for (size_t i = a; i < b;) {
    if (!ident_char(text[i])) {
      i++;
      continue;
    }
    size_t e = i;
    while (e < b && ident_char(text[e])) e++;
    bool skipped = false;
    for (size_t k = 0; k < sizeof skip / sizeof *skip; k++)
      skipped |= e - i == strlen(skip[k]) && memcmp(text + i, skip[k], e - i) == 0;
    if (!skipped) {
      if (used + (e - i) + 2 > n) return false;
      used += (size_t)snprintf(words + used, n - used, "%s%.*s", used ? " " : "", (int)(e - i), text + i);
    }
    i = e;
  }
  return used > 0;
}

/* Places a member of layout `m` named name at the next offset of *s that its alignment allows. */
static bool place(ws_srcstruct *s, uint32_t *at, const char *name, const ws_srcstruct *m) {
  uint32_t off = align_up(*at, m->align_bytes);
  for (size_t i = 0; i < m->nfields; i++) {
    const ws_srcfield *f = &m->fields[i];
    if (!add_field(s, name, f->name, f->kind, f->size_bytes, off + f->offset_bytes)) return false;
  }
  *at = off + m->size_bytes;
  if (m->align_bytes > s->align_bytes) s->align_bytes = m->align_bytes;
  return true;
}

/* The layout of a member whose type is `words`, a pointer when ptr. */
static bool member_layout(const char *text, size_t len, const char *words, bool ptr, int depth,
                          ws_srcstruct *m) {
  memset(m, 0, sizeof *m);
  char kind = 0;
  uint32_t size = 0;
  if (ptr) kind = 'p', size = 8;
  if (!ptr && !scalar_type(words, &kind, &size)) return layout_of(text, len, words, depth + 1, m);
  m->size_bytes = m->align_bytes = size;
  return add_field(m, "", "", kind, size, 0);
}

/* One member declaration [a, b): `TYPE name;`, `TYPE *a, b;`. */
static bool member(const char *text, size_t len, size_t a, size_t b, int depth, ws_srcstruct *s,
                   uint32_t *at) {
  for (size_t i = a; i < b; i++)
    if (memchr("[]():=<>{}#", text[i], 11)) return false; /* arrays, bit-fields, methods, templates */
  size_t first = a, e = 0;
  while (first < b && text[first] != ',') first++;
  size_t stop = ident_before(text, a, first, &e); /* the first declarator's name ends the type words */
  for (size_t i = a; i < stop; i++)
    if (text[i] == '*') stop = i;
  char words[WS_SRCNAME_MAX];
  if (!member_words(text, a, stop, words, sizeof words)) return false;
  for (size_t i = a, start = a; i <= b; i++) {
    if (i < b && text[i] != ',') continue;
    ws_srcparam d;
    if (!last_ident(text, start, i, &d)) return false;
    ws_srcstruct sub;
    if (!member_layout(text, len, words, d.is_ptr, depth, &sub) || !place(s, at, d.name, &sub)) return false;
    start = i + 1;
  }
  return true;
}

static bool layout_of(const char *text, size_t len, const char *type, int depth, ws_srcstruct *out) {
  memset(out, 0, sizeof *out);
  if (vector_type(type, out)) return true;
  size_t close = 0, open = depth < NEST_MAX ? find_body(text, len, type, &close) : SIZE_MAX;
  if (open == SIZE_MAX) return false;
  uint32_t at = 0;
  out->align_bytes = 1;
  size_t start = open + 1;
  for (size_t i = start; i < close; i++) {
    if (text[i] != ';') continue;
    if (!member(text, len, start, i, depth, out, &at)) return false;
    start = i + 1;
  }
  if (skip_space(text, close, start) != close) return false; /* a member without its ';' */
  out->size_bytes = align_up(at, out->align_bytes);
  return out->nfields > 0;
}

bool ws_srcnames_struct(const char *text, size_t len, const char *type, ws_srcstruct *out) {
  return layout_of(text, len, type, 0, out);
}
