/* srcnames.c - parameter names from a kernel's definition (srcnames.h). */
#include "ptx/srcnames.h"

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

/* The last identifier of declarator [a, b), defaults and array bounds aside. */
static bool last_ident(const char *text, size_t a, size_t b, ws_srcparam *out) {
  out->is_ptr = false;
  for (size_t i = a; i < b; i++) {
    if (text[i] == '=' || text[i] == '[') b = i;
    if (i < b && text[i] == '*') out->is_ptr = true;
  }
  while (b > a && !ident_char(text[b - 1])) b--;
  size_t e = b;
  while (b > a && ident_char(text[b - 1])) b--;
  if (e == b || e - b >= WS_SRCNAME_MAX || (text[b] >= '0' && text[b] <= '9')) return false;
  memcpy(out->name, text + b, e - b);
  out->name[e - b] = '\0';
  return true;
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
