/* cache.h - a sectored, set-associative tag array shared by the L1s and the
 * L2 slices.
 *
 * Design: the array holds tags and per-sector valid/dirty bits only; timing,
 * MSHRs and policies live in the level that owns it. A way can be pinned
 * ("pending") while a miss fill is in flight into it, so a reserved line is
 * never chosen as a victim (GPGPU-Sim's reservation). Replacement is a small
 * ops table selected by name; LRU uses a per-way stamp from a per-array
 * counter, so a lookup costs O(assoc) with no allocation. */
#ifndef WS_CACHE_H
#define WS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"

typedef struct ws_cache_way {
  uint64_t tag;    /* the full line number: no aliasing whatever the set function */
  uint64_t stamp;  /* replacement state (LRU: last use) */
  uint8_t valid;   /* bit i: sector i holds data */
  uint8_t dirty;   /* bit i: sector i is newer than the level below */
  uint8_t pending; /* a fill is in flight into this way: not a victim */
  uint32_t mshr;   /* while pending: the owner's MSHR index (O(assoc) MSHR lookup) */
} ws_cache_way;

typedef struct ws_cache ws_cache;

/* One hint bucket: the way last found or installed, the ways tagged. */
typedef struct ws_cache_bucket_entry {
  uint32_t hint;
  uint32_t tagged;
} ws_cache_bucket_entry;

/* A replacement policy: `touch` on every use, `victim` picks the way to
 * replace among the set's non-pending ways (NULL when all are pending),
 * the first invalid one if there is one. */
typedef struct ws_cache_repl_ops {
  const char *name;
  void (*touch)(ws_cache *c, ws_cache_way *w);
  ws_cache_way *(*victim)(ws_cache *c, ws_cache_way *set);
} ws_cache_repl_ops;

struct ws_cache {
  uint32_t sets, assoc;
  uint32_t set_mask; /* sets - 1 when sets is a power of two (a mask, not a division), else 0 */
  /* no way installed since the array was zeroed: clearing it again (a
   * launch resets the caches the creation just zeroed) writes nothing */
  bool clean;
  ws_cache_way *ways; /* sets * assoc, set-major */
  uint64_t clock;     /* LRU stamp source */
  const ws_cache_repl_ops *repl;
  /* per hint bucket (ws_cache_bucket of a line number): where a line of
   * that bucket was last found or installed (a way index, or UINT32_MAX;
   * a live line is held by one way only, so a hint whose way still holds
   * it is the answer a scan of a 64-way set would give, at the cost of one
   * test), and how many ways installed since the array was zeroed hold a
   * tag of that bucket (none: the lookup cannot hit and skips the scan of
   * its set, the common case of a streaming miss). Both halves side by
   * side: a lookup reads one host cache line for them, not two, and with
   * 108 SMs' L1s each lookup's bucket had left the host's caches */
  ws_cache_bucket_entry *buckets;
};

#define WS_CACHE_HINTS 1024u

/* A line number's hint bucket: its low bits, offset by odd multiples of
 * its two higher runs of 10 bits. Modulo WS_CACHE_HINTS alone, rows of a
 * matrix a power of two of lines apart (the naive GEMM's at 512^3: two
 * CTAs' rows 3,072 lines apart) shared buckets, so their hints overwrote
 * each other and every lookup scanned its set. Consecutive lines still
 * take consecutive buckets within an aligned block, so a stream's lines in
 * the L1 leave the next line's bucket empty (the miss filter), and two
 * streams a multiple of 1,024 lines apart (SAXPY's x and y) land at least
 * 128 buckets apart. */
static inline uint32_t ws_cache_bucket(uint64_t tag) {
  return (uint32_t)(tag + (tag >> 10) * 0x9E37u + (tag >> 20) * 0x79B9u) & (WS_CACHE_HINTS - 1);
}
_Static_assert(WS_CACHE_HINTS == 1u << 10, "the bucket folds runs of 10 bits");

/* `sets` x `assoc` ways (sets and assoc at least 1: the config's geometry,
 * checked when it was loaded); `repl_name` selects the policy ("lru"; NULL
 * means "lru"). */
ws_status ws_cache_init(ws_cache *c, ws_ctx *ctx, uint32_t sets, uint32_t assoc, const char *repl_name,
                        const char *what);
void ws_cache_fini(ws_cache *c);
/* Host bytes ws_cache_init allocates for `sets` x `assoc` ways. */
uint64_t ws_cache_state_bytes(uint32_t sets, uint32_t assoc);
/* Invalidates every line (a cold cache). */
void ws_cache_clear(ws_cache *c);

/* The way holding line `tag` in set `set_key % sets`, or NULL. Does not
 * update the replacement state: callers touch what they really use. */
ws_cache_way *ws_cache_find(ws_cache *c, uint64_t set_key, uint64_t tag);
/* The first way of w's set. */
const ws_cache_way *ws_cache_set_of(const ws_cache *c, const ws_cache_way *w);
void ws_cache_touch(ws_cache *c, ws_cache_way *w);
/* The way to replace for a line of set `set_key`, or NULL when every way of
 * the set is pending. The caller evicts its contents, then installs. */
ws_cache_way *ws_cache_victim(ws_cache *c, uint64_t set_key);
/* Set index of `set_key`, and the way holding `tag` there (UINT32_MAX when
 * it is not present): where a probe says a line lives. */
void ws_cache_where(ws_cache *c, uint64_t set_key, uint64_t tag, uint32_t *set, uint32_t *way);
/* Makes `w` hold line `tag` with no valid sectors, and touches it. */
void ws_cache_install(ws_cache *c, ws_cache_way *w, uint64_t tag);

#endif
