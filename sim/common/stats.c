/* stats.c - counter registry: an array in registration order plus an
 * open-addressing hash index by name (FNV-1a) for duplicate checks and
 * lookups, so thousands of per-SM counters register in linear time. */
#include "sim/common/stats.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 96

typedef struct entry {
  char name[NAME_MAX_BYTES];
  char *desc;
  uint64_t *counter;
  bool counted_when_skipped, counted_in_loop_gaps;
} entry;

struct ws_stats {
  entry *entries;
  size_t count, cap;
  uint32_t *index;  /* slot -> entry + 1; 0 = empty */
  size_t index_cap; /* power of two, kept >= 2 * count */
};

ws_stats *ws_stats_create(void) { return calloc(1, sizeof(ws_stats)); }

void ws_stats_destroy(ws_stats *s) {
  if (!s) return;
  for (size_t i = 0; i < s->count; i++) free(s->entries[i].desc);
  free(s->entries);
  free(s->index);
  free(s);
}

static uint64_t hash_name(const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 1099511628211ull;
  return h;
}

/* Slot holding `name`, or the empty slot where it would go. */
static size_t find_slot(const ws_stats *s, const char *name) {
  size_t mask = s->index_cap - 1, slot = (size_t)hash_name(name) & mask;
  while (s->index[slot] && strcmp(s->entries[s->index[slot] - 1].name, name) != 0) slot = (slot + 1) & mask;
  return slot;
}

static bool grow_index(ws_stats *s) {
  size_t cap = s->index_cap ? s->index_cap * 2 : 1024;
  uint32_t *old = s->index;
  size_t old_cap = s->index_cap;
  s->index = calloc(cap, sizeof *s->index);
  if (!s->index) {
    s->index = old;
    return false;
  }
  s->index_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i]) s->index[find_slot(s, s->entries[old[i] - 1].name)] = old[i];
  free(old);
  return true;
}

static bool reserve_entry(ws_stats *s) {
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 256;
    entry *grown = realloc(s->entries, cap * sizeof *grown);
    if (!grown) return false;
    s->entries = grown;
    s->cap = cap;
  }
  return (s->count + 1) * 2 <= s->index_cap || grow_index(s);
}

/* A printf-formatted name (or prefix) into buf's NAME_MAX_BYTES; its
 * length, or -1 when it does not fit. */
static int format_name(char *buf, const char *fmt, va_list ap) {
  int len = vsnprintf(buf, NAME_MAX_BYTES, fmt, ap);
  return len < NAME_MAX_BYTES ? len : -1;
}

ws_status ws_stats_register_u64(ws_stats *s, ws_ctx *ctx, uint64_t *counter, const char *desc,
                                const char *name_fmt, ...) {
  char name[NAME_MAX_BYTES];
  va_list ap;
  va_start(ap, name_fmt);
  int len = format_name(name, name_fmt, ap);
  va_end(ap);
  if (len <= 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "stat name '%s' is empty or too long", name);
  if (!reserve_entry(s)) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory registering stats");
  size_t slot = find_slot(s, name);
  if (s->index[slot]) return ws_ctx_fail(ctx, WS_ERR_INVALID, "stat '%s' registered twice", name);
  entry *e = &s->entries[s->count];
  memcpy(e->name, name, (size_t)len + 1);
  e->desc = strdup(desc ? desc : "");
  if (!e->desc) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory registering stats");
  e->counter = counter;
  e->counted_when_skipped = e->counted_in_loop_gaps = false;
  s->index[slot] = (uint32_t)++s->count;
  return WS_OK;
}

ws_status ws_stats_register_table(ws_stats *s, ws_ctx *ctx, const ws_stat_def *defs, size_t n,
                                  const char *prefix_fmt, ...) {
  char prefix[NAME_MAX_BYTES];
  va_list ap;
  va_start(ap, prefix_fmt);
  int len = format_name(prefix, prefix_fmt, ap);
  va_end(ap);
  if (len < 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "stat prefix '%s' is too long", prefix);
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK; i++)
    st = ws_stats_register_u64(s, ctx, defs[i].counter, defs[i].desc, "%s%s", prefix, defs[i].name);
  return st;
}

size_t ws_stats_count(const ws_stats *s) { return s->count; }
const char *ws_stats_name(const ws_stats *s, size_t i) { return s->entries[i].name; }
const char *ws_stats_desc(const ws_stats *s, size_t i) { return s->entries[i].desc; }
uint64_t ws_stats_value(const ws_stats *s, size_t i) { return *s->entries[i].counter; }
bool ws_stats_counted_when_skipped(const ws_stats *s, size_t i) { return s->entries[i].counted_when_skipped; }

static void mark(ws_stats *s, const uint64_t *counter, bool in_loop_gaps) {
  for (size_t i = s->count; i-- > 0;)
    if (s->entries[i].counter == counter) {
      s->entries[i].counted_when_skipped = true;
      s->entries[i].counted_in_loop_gaps |= in_loop_gaps;
      return;
    }
}

void ws_stats_mark_counted_when_skipped(ws_stats *s, const uint64_t *counter) { mark(s, counter, false); }

void ws_stats_mark_counted_in_loop_gaps(ws_stats *s, const uint64_t *counter) { mark(s, counter, true); }

bool ws_stats_counted_in_loop_gaps(const ws_stats *s, size_t i) { return s->entries[i].counted_in_loop_gaps; }

void ws_stats_add(ws_stats *s, size_t i, uint64_t n) { *s->entries[i].counter += n; }

bool ws_stats_get(const ws_stats *s, const char *name, uint64_t *value) {
  if (!s->index_cap) return false;
  size_t slot = find_slot(s, name);
  if (!s->index[slot]) return false;
  *value = *s->entries[s->index[slot] - 1].counter;
  return true;
}

/* '*' matches one or more characters other than '.'. */
static bool matches(const char *pat, const char *name) {
  for (; *pat; pat++, name++) {
    if (*pat == '*') {
      if (*name == '\0' || *name == '.') return false;
      while (name[1] && name[1] != '.') {
        if (matches(pat + 1, name + 1)) return true;
        name++;
      }
      continue;
    }
    if (*pat != *name) return false;
  }
  return *name == '\0';
}

uint64_t ws_stats_sum(const ws_stats *s, const char *pattern) {
  uint64_t sum = 0;
  for (size_t i = 0; i < s->count; i++)
    if (matches(pattern, s->entries[i].name)) sum += *s->entries[i].counter;
  return sum;
}

void ws_stats_reset(ws_stats *s) {
  for (size_t i = 0; i < s->count; i++) *s->entries[i].counter = 0;
}

static void write_json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

void ws_stats_write_json(const ws_stats *s, FILE *out, bool with_desc) {
  fputs("{\n  \"stats\": {", out);
  for (size_t i = 0; i < s->count; i++) {
    fputs(i ? ",\n    " : "\n    ", out);
    write_json_string(out, s->entries[i].name);
    fprintf(out, ": %llu", (unsigned long long)*s->entries[i].counter);
  }
  fputs("\n  }", out);
  if (with_desc) {
    fputs(",\n  \"descriptions\": {", out);
    for (size_t i = 0; i < s->count; i++) {
      fputs(i ? ",\n    " : "\n    ", out);
      write_json_string(out, s->entries[i].name);
      fputs(": ", out);
      write_json_string(out, s->entries[i].desc);
    }
    fputs("\n  }", out);
  }
  fputs("\n}\n", out);
}

void ws_stats_write_csv(const ws_stats *s, FILE *out) {
  fputs("name,value,description\n", out);
  for (size_t i = 0; i < s->count; i++) {
    fprintf(out, "%s,%llu,\"", s->entries[i].name, (unsigned long long)*s->entries[i].counter);
    for (const char *c = s->entries[i].desc; *c; c++) fputs(*c == '"' ? "\"\"" : (char[2]){*c, 0}, out);
    fputs("\"\n", out);
  }
}
