/* test_cache.c - the sectored tag array alone: its sets and ways (the
 * config derives them, sim/common/config.c), set selection (mask or modulo), lookup that sees valid or
 * pending lines only, LRU victims that prefer free ways and skip pending
 * ones, install and clear, and the configuration errors.
 *
 * Why: the L1s and the L2 slices share this array; a victim choice or a set
 * function that is off by one shows up only as slightly wrong hit rates. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/ctx.h"
#include "sim/memsys/cache.h"

/* 8 sets of 4 ways (4 KiB of 128-byte lines): a power of two, mask 7. */
static void small(ws_cache *c) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_cache_init(c, ctx, 8, 4, NULL, "test"), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* Installs `tag` into the set of `key` and marks sector 0 valid. */
static ws_cache_way *fill(ws_cache *c, uint64_t key, uint64_t tag) {
  ws_cache_way *w = ws_cache_victim(c, key);
  cr_assert(w);
  ws_cache_install(c, w, tag);
  w->valid = 0x1;
  return w;
}

Test(cache, geometry) {
  ws_cache c;
  small(&c);
  cr_expect_eq(c.sets, 8);
  cr_expect_eq(c.assoc, 4);
  cr_expect_eq(c.set_mask, 7);
  cr_expect_str_eq(c.repl->name, "lru");
  ws_cache_fini(&c);
  ws_ctx *ctx = ws_ctx_create();
  /* 3 sets: not a power of two, so no mask (modulo instead) */
  cr_assert_eq(ws_cache_init(&c, ctx, 3, 4, "lru", "t"), WS_OK);
  cr_expect_eq(c.sets, 3);
  cr_expect_eq(c.set_mask, 0);
  ws_cache_fini(&c);
  /* one set (fully associative): 8 ways, mask 0 selects it for every key */
  cr_assert_eq(ws_cache_init(&c, ctx, 1, 8, NULL, "t"), WS_OK);
  cr_expect_eq(c.sets, 1);
  cr_expect_eq(c.set_mask, 0);
  ws_cache_fini(&c);
  ws_ctx_destroy(ctx);
}

Test(cache, unknown_policy_is_an_error) {
  ws_ctx *ctx = ws_ctx_create();
  ws_cache c;
  cr_expect_eq(ws_cache_init(&c, ctx, 8, 4, "random", "l1"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "l1: unknown replacement policy 'random'");
  ws_cache_fini(&c);
  ws_ctx_destroy(ctx);
}

Test(cache, find_sees_valid_or_pending_lines_only) {
  ws_cache c;
  small(&c);
  cr_expect_null(ws_cache_find(&c, 0, 0), "a cold array holds nothing, not even tag 0");
  ws_cache_way *w = ws_cache_victim(&c, 5);
  ws_cache_install(&c, w, 5);
  cr_expect_eq(w->tag, 5);
  cr_expect_eq(w->valid, 0);
  cr_expect_null(ws_cache_find(&c, 5, 5), "installed but no sector valid yet");
  w->pending = 1;
  cr_expect_eq(ws_cache_find(&c, 5, 5), w, "a pending fill is found (merges into it)");
  w->pending = 0;
  w->valid = 0x4;
  cr_expect_eq(ws_cache_find(&c, 5, 5), w);
  cr_expect_null(ws_cache_find(&c, 5, 13), "same set, other tag: full tags never alias");
  cr_expect_null(ws_cache_find(&c, 6, 5), "the tag is looked up in the set of the key only");
  cr_expect_eq(ws_cache_find(&c, 13, 5), w, "key 13 selects set 13 & 7 = 5");
  ws_cache_fini(&c);
}

Test(cache, modulo_sets_when_not_a_power_of_two) {
  ws_ctx *ctx = ws_ctx_create();
  ws_cache c;
  cr_assert_eq(ws_cache_init(&c, ctx, 3, 4, NULL, "t"), WS_OK);
  ws_cache_way *w = fill(&c, 7, 7);
  cr_expect_eq(w, &c.ways[1 * 4], "key 7 -> set 7 mod 3 = 1, its first way");
  cr_expect_eq(ws_cache_find(&c, 4, 7), w, "key 4 is set 1 too");
  cr_expect_null(ws_cache_find(&c, 5, 7), "key 5 is set 2");
  ws_cache_fini(&c);
  ws_ctx_destroy(ctx);
}

Test(cache, victims_fill_free_ways_in_order_then_lru) {
  ws_cache c;
  small(&c);
  ws_cache_way *set = &c.ways[2 * 4]; /* set 2 */
  for (uint64_t i = 0; i < 4; i++) {
    ws_cache_way *w = fill(&c, 2, 100 + i);
    cr_expect_eq(w, &set[i], "free ways are taken first, in way order");
  }
  /* install order 100,101,102,103: LRU is 100 (way 0) */
  cr_expect_eq(ws_cache_victim(&c, 2), &set[0]);
  ws_cache_find(&c, 2, 100); /* a find alone does not count as a use */
  cr_expect_eq(ws_cache_victim(&c, 2), &set[0]);
  ws_cache_touch(&c, ws_cache_find(&c, 2, 100));
  cr_expect_eq(ws_cache_victim(&c, 2), &set[1], "101 is now least recent");
  ws_cache_touch(&c, &set[1]);
  ws_cache_touch(&c, &set[2]);
  cr_expect_eq(ws_cache_victim(&c, 2), &set[3]);
  /* an invalid way is preferred over any valid one, however recent */
  set[2].valid = 0;
  cr_expect_eq(ws_cache_victim(&c, 2), &set[2]);
  /* other sets are untouched */
  cr_expect_eq(ws_cache_victim(&c, 3), &c.ways[3 * 4]);
  ws_cache_fini(&c);
}

Test(cache, pending_ways_are_never_victims) {
  ws_cache c;
  small(&c);
  ws_cache_way *set = &c.ways[0];
  for (uint64_t i = 0; i < 4; i++) fill(&c, 0, 8 * i);
  set[0].pending = 1; /* the LRU way has a fill in flight */
  cr_expect_eq(ws_cache_victim(&c, 0), &set[1]);
  set[1].pending = 1;
  set[2].pending = 1;
  set[3].valid = 0;
  set[3].pending = 1; /* pending and empty: still not free */
  cr_expect_null(ws_cache_victim(&c, 0), "every way reserved: the caller must wait");
  ws_cache_fini(&c);
}

Test(cache, install_resets_the_way_and_clear_empties_all) {
  ws_cache c;
  small(&c);
  ws_cache_way *w = fill(&c, 1, 9);
  w->valid = 0xF;
  w->dirty = 0x3;
  w->mshr = 7;
  ws_cache_install(&c, w, 17);
  cr_expect_eq(w->tag, 17);
  cr_expect_eq(w->valid, 0);
  cr_expect_eq(w->dirty, 0);
  cr_expect_eq(w->pending, 0);
  cr_expect_eq(w->stamp, c.clock, "install is a use");
  for (uint64_t k = 0; k < 8; k++) fill(&c, k, k);
  ws_cache_clear(&c);
  cr_expect_eq(c.clock, 0);
  for (uint64_t k = 0; k < 8; k++) cr_expect_null(ws_cache_find(&c, k, k));
  cr_expect_eq(ws_cache_victim(&c, 1), &c.ways[4], "cleared: the first way is free again");
  ws_cache_fini(&c);
}

/* Lookups agree with a plain scan of the set through replacements, tags
 * sharing a hint bucket (the miss filter counts per bucket), clears and a
 * clear of an already clean array. */
Test(cache, lookups_match_a_scan_through_replacement_and_clear) {
  ws_cache c;
  small(&c);
  /* few distinct tags, many of them in one hint bucket: for each of 24
   * lines, the lines of the next two blocks of WS_CACHE_HINTS sharing its bucket */
  uint64_t same[24][3];
  for (uint64_t b = 0; b < 24; b++) {
    same[b][0] = b;
    for (uint64_t blk = 1; blk < 3; blk++)
      for (uint64_t t = blk * WS_CACHE_HINTS; t < (blk + 1) * WS_CACHE_HINTS; t++)
        if (ws_cache_bucket(t) == ws_cache_bucket(b)) same[b][blk] = t;
  }
  uint64_t seed = 7;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 4000; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t base = (seed >> 33) % 24, tag = same[base][(seed >> 50) % 3], key = tag;
      cr_assert_eq(ws_cache_bucket(tag), ws_cache_bucket(base));
      ws_cache_way *set = &c.ways[(key & 7) * 4], *want = NULL;
      for (int w = 0; w < 4; w++)
        if (set[w].tag == tag && (set[w].valid || set[w].pending)) want = &set[w];
      ws_cache_way *got = ws_cache_find(&c, key, tag);
      cr_assert_eq(got, want, "round %d step %d tag %llu", round, i, (unsigned long long)tag);
      if (got && (seed >> 20) % 4 == 0) got->valid = 0; /* an invalidation, as a write-through store */
      if (!got) {
        ws_cache_way *v = ws_cache_victim(&c, key);
        if (v) ws_cache_install(&c, v, tag), v->valid = 0x1;
      }
    }
    ws_cache_clear(&c);
    ws_cache_clear(&c);
    for (uint64_t t = 0; t < 3 * WS_CACHE_HINTS; t++) cr_assert_null(ws_cache_find(&c, t, t));
  }
  ws_cache_fini(&c);
}

/* The hint buckets spread what the L1s hold: the lines of one aligned
 * block of WS_CACHE_HINTS lines, and lines a power of two of lines apart
 * (two arrays 16 MiB apart, a matrix's rows), each take distinct buckets. */
Test(cache, buckets_spread_blocks_and_power_of_two_strides) {
  for (uint64_t block = 0; block < 4; block++) {
    bool seen[WS_CACHE_HINTS] = {false};
    for (uint64_t i = 0; i < WS_CACHE_HINTS; i++) {
      uint32_t b = ws_cache_bucket(block * 777 * WS_CACHE_HINTS + i);
      cr_assert(!seen[b], "block %llu line %llu", (unsigned long long)block, (unsigned long long)i);
      seen[b] = true;
    }
  }
  for (uint64_t stride = WS_CACHE_HINTS; stride <= 1u << 17; stride <<= 1) {
    bool seen[WS_CACHE_HINTS] = {false};
    for (uint64_t i = 0; i < 64; i++) {
      uint32_t b = ws_cache_bucket(5 + i * stride);
      cr_assert(!seen[b], "stride %llu line %llu", (unsigned long long)stride, (unsigned long long)i);
      seen[b] = true;
    }
  }
}
