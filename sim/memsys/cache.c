/* cache.c - the sectored tag array: lookup, LRU replacement, install.
 *
 * Design: one flat array of ways, set-major, so a lookup scans `assoc`
 * adjacent small structs. A policy's victim scan also prefers the first
 * invalid way: the L1s have four sets of up to 64 ways, and one pass over a
 * set costs half of two. */
#include "sim/memsys/cache.h"

#include <stdlib.h>
#include <string.h>

static void lru_touch(ws_cache *c, ws_cache_way *w) { w->stamp = ++c->clock; }

static ws_cache_way *lru_victim(ws_cache *c, ws_cache_way *set) {
  ws_cache_way *best = NULL;
  for (uint32_t i = 0; i < c->assoc; i++) {
    ws_cache_way *w = &set[i];
    if (w->pending) continue;
    if (!w->valid) return w; /* the first free way, in one pass over a wide set */
    if (!best || w->stamp < best->stamp) best = w;
  }
  return best;
}

static const ws_cache_repl_ops repl_table[] = {
    {"lru", lru_touch, lru_victim},
};

static const ws_cache_repl_ops *find_repl(const char *name) {
  if (!name) return &repl_table[0];
  for (size_t i = 0; i < sizeof repl_table / sizeof repl_table[0]; i++)
    if (strcmp(repl_table[i].name, name) == 0) return &repl_table[i];
  return NULL;
}

/* No hints, no tags counted. */
static void clear_buckets(ws_cache *c) {
  for (uint32_t i = 0; i < WS_CACHE_HINTS; i++) c->buckets[i] = (ws_cache_bucket_entry){UINT32_MAX, 0};
}

ws_status ws_cache_init(ws_cache *c, ws_ctx *ctx, uint32_t sets, uint32_t assoc, const char *repl_name,
                        const char *what) {
  memset(c, 0, sizeof *c);
  c->repl = find_repl(repl_name);
  if (!c->repl)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: unknown replacement policy '%s'", what, repl_name);
  c->sets = sets;
  c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
  c->assoc = assoc;
  c->ways = calloc((size_t)sets * assoc, sizeof *c->ways);
  c->buckets = malloc(WS_CACHE_HINTS * sizeof *c->buckets);
  if (c->buckets) clear_buckets(c);
  if (!c->ways || !c->buckets)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory for %u sets", what, sets);
  c->clean = true;
  return WS_OK;
}

uint64_t ws_cache_state_bytes(uint32_t sets, uint32_t assoc) {
  return (uint64_t)sets * assoc * sizeof(ws_cache_way) +
         WS_CACHE_HINTS * (uint64_t)sizeof(ws_cache_bucket_entry);
}

void ws_cache_fini(ws_cache *c) {
  free(c->ways);
  free(c->buckets);
  c->ways = NULL;
  c->buckets = NULL;
}

void ws_cache_clear(ws_cache *c) {
  c->clock = 0;
  if (c->clean) return;
  memset(c->ways, 0, (size_t)c->sets * c->assoc * sizeof *c->ways);
  clear_buckets(c);
  c->clean = true;
}

static ws_cache_way *set_of(ws_cache *c, uint64_t set_key) {
  uint64_t set = c->set_mask || c->sets == 1 ? set_key & c->set_mask : set_key % c->sets;
  return &c->ways[(size_t)set * c->assoc];
}

static bool holds(const ws_cache_way *w, uint64_t tag) { return w->tag == tag && (w->valid || w->pending); }

ws_cache_way *ws_cache_find(ws_cache *c, uint64_t set_key, uint64_t tag) {
  ws_cache_way *set = set_of(c, set_key);
  ws_cache_bucket_entry *b = &c->buckets[ws_cache_bucket(tag)];
  if (!b->tagged) return NULL;
  size_t h = b->hint - (size_t)(set - c->ways); /* the hinted way's index in this set, if it is in it */
  if (h < c->assoc && holds(&set[h], tag)) return &set[h];
  for (uint32_t i = 0; i < c->assoc; i++)
    if (holds(&set[i], tag)) { /* the tag test fails first */
      b->hint = (uint32_t)(set - c->ways) + i;
      return &set[i];
    }
  return NULL;
}

void ws_cache_where(ws_cache *c, uint64_t set_key, uint64_t tag, uint32_t *set, uint32_t *way) {
  ws_cache_way *first = set_of(c, set_key), *w = ws_cache_find(c, set_key, tag);
  *set = (uint32_t)((size_t)(first - c->ways) / c->assoc);
  *way = w ? (uint32_t)(w - first) : UINT32_MAX;
}

const ws_cache_way *ws_cache_set_of(const ws_cache *c, const ws_cache_way *w) {
  return c->ways + (size_t)(w - c->ways) / c->assoc * c->assoc;
}

void ws_cache_touch(ws_cache *c, ws_cache_way *w) { c->repl->touch(c, w); }

ws_cache_way *ws_cache_victim(ws_cache *c, uint64_t set_key) {
  return c->repl->victim(c, set_of(c, set_key));
}

void ws_cache_install(ws_cache *c, ws_cache_way *w, uint64_t tag) {
  c->clean = false;
  if (w->stamp) c->buckets[ws_cache_bucket(w->tag)].tagged--; /* a stamp: installed since zeroed */
  ws_cache_bucket_entry *b = &c->buckets[ws_cache_bucket(tag)];
  b->tagged++;
  b->hint = (uint32_t)(w - c->ways);
  w->tag = tag;
  w->valid = 0;
  w->dirty = 0;
  w->pending = 0;
  ws_cache_touch(c, w);
}
