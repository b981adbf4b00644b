/* space.h - the parameter space of a sweep: one list of values per
 * parameter of a GEMM or attention point, parsed from the flags' text
 * ("32,64,128", "4:8:2", "all"), and its expansion into the ordered list of
 * points.
 *
 * Design: the point list is the cartesian product of the lists, taken in
 * the fixed parameter order of ws_space_param (the first parameter varies
 * slowest, the last fastest) and each list in the order it was written. So
 * the same flags give the same list on every machine and every MPI rank,
 * and a point is named by its index alone: rank r of N runs the indices i
 * with i mod N == r and the outputs merge in index order. The size is
 * checked (a product of the list lengths, overflow-safe) before anything is
 * expanded. */
#ifndef WS_EXPLORE_SPACE_H
#define WS_EXPLORE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "explore/point.h"

/* The largest sweep, and the longest list one parameter may hold. */
#define WS_SPACE_POINTS_MAX 100000u

/* Every parameter of either kind, in expansion order: a GEMM sweep uses
 * gpu, m, n, k, variant, bm .. threads, seed; an attention sweep gpu, seq,
 * heads, dhead, attn, br, bc, seed. */
typedef enum ws_space_param {
  WS_SPACE_GPU,
  WS_SPACE_M,
  WS_SPACE_N,
  WS_SPACE_K,
  WS_SPACE_VARIANT,
  WS_SPACE_BM,
  WS_SPACE_BN,
  WS_SPACE_BK,
  WS_SPACE_TM,
  WS_SPACE_TN,
  WS_SPACE_WM,
  WS_SPACE_WN,
  WS_SPACE_THREADS,
  WS_SPACE_SEQ,
  WS_SPACE_HEADS,
  WS_SPACE_DHEAD,
  WS_SPACE_ATTN,
  WS_SPACE_BR,
  WS_SPACE_BC,
  WS_SPACE_SEED,
  WS_SPACE_PARAM_COUNT
} ws_space_param;

/* One parameter's values: numbers, or names (gpu, variant, attn). */
typedef struct ws_space_list {
  size_t n;
  uint64_t *num;
  char (*name)[WS_POINT_NAME_MAX];
} ws_space_list;

typedef struct ws_space {
  ws_point_kind kind;
  ws_space_list lists[WS_SPACE_PARAM_COUNT];
  char sets[WS_POINT_MAX_SETS][WS_POINT_SET_MAX]; /* --set overrides, the same for every point */
  uint32_t nsets;
  uint32_t sample_waves;  /* every point's (ws_point.sample_waves) */
  uint32_t sample_rounds; /* every point's (ws_point.sample_rounds) */
  uint32_t keep_l2;       /* every point's (ws_point.keep_l2) */
} ws_space;

/* A space of `kind` where the tile parameters (bm .. threads, br, bc) hold
 * one value, 0 (the generator's default), and seed holds 1; the others
 * (gpu, the problem size, variant or attn) hold none until parsed: the
 * caller supplies its defaults, so they live in one place (the command). */
void ws_space_init(ws_space *s, ws_point_kind kind);
void ws_space_free(ws_space *s);

/* "m", "variant", ...: the parameter's flag without its dashes. */
const char *ws_space_param_name(ws_space_param p);
/* The parameter named `name` (a flag without its dashes);
 * WS_SPACE_PARAM_COUNT when none is. */
ws_space_param ws_space_param_find(const char *name);
/* Whether a sweep of `kind` has parameter p. */
bool ws_space_uses(ws_point_kind kind, ws_space_param p);

/* Replaces parameter p's list with the values of `text`: comma-separated
 * items, each a number or a range START:END[:STEP] (STEP defaults to 1;
 * END is included when the steps reach it: 4:9:2 is 4,6,8), or for names
 * the names themselves; "all" for variant is every ws_gemmgen_variant and
 * for attn naive,flash. Numbers fit 32 bits (the seed 64). A value given
 * twice is refused, since two equal points could not be told apart when
 * resuming. Errors name the flag and the text: "--tm 4:8:0: a step of 0". */
ws_status ws_space_parse(ws_ctx *ctx, ws_space *s, ws_space_param p, const char *text);
/* Adds one --set override carried by every point. */
ws_status ws_space_add_set(ws_ctx *ctx, ws_space *s, const char *set);

/* The number of points, refusing an empty parameter of the space's kind
 * and a product over WS_SPACE_POINTS_MAX (the message shows the product:
 * "--bm 3 x --tm 40000 ... = 120000 points"). */
ws_status ws_space_count(ws_ctx *ctx, const ws_space *s, size_t *n);
/* The points, in expansion order, in a malloc'd array the caller frees;
 * every byte not set by a parameter is zero, so points compare by value.
 * --br and --bc apply to flash points only: a naive attention point has
 * them 0 and appears once, so *n may be below ws_space_count's. */
ws_status ws_space_expand(ws_ctx *ctx, const ws_space *s, ws_point **points, size_t *n);

#endif
