/* stats.h - the registry of named counters.
 *
 * Design: components keep plain uint64_t counters in their own structs and
 * touch only those on the hot path; each counter is registered once, at
 * creation, under a hierarchical name that mirrors the component tree
 * ("sm3.l1.hits") with a one-line description, most often as a table of
 * {counter, name, description} under a per-instance prefix. The registry
 * only records where the counters live, so reports, JSON and CSV dumps read
 * them all by name in registration order (deterministic output). */
#ifndef WS_STATS_H
#define WS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ctx.h"

typedef struct ws_stats ws_stats;

ws_stats *ws_stats_create(void);
void ws_stats_destroy(ws_stats *s);

/* Registers `counter` (which must outlive the registry or be unregistered by
 * destroying the registry first) under a printf-formatted name. Names must be
 * unique: a duplicate is an error. */
ws_status ws_stats_register_u64(ws_stats *s, ws_ctx *ctx, uint64_t *counter, const char *desc,
                                const char *name_fmt, ...) __attribute__((format(printf, 5, 6)));

/* One counter of a component, for ws_stats_register_table. */
typedef struct ws_stat_def {
  uint64_t *counter;
  const char *name; /* appended to the table's prefix */
  const char *desc;
} ws_stat_def;

/* Registers defs[0..n) in order, each under the printf-formatted prefix
 * followed by its name ("sm%u.l1." + "sector_hits"); stops at the first
 * failure. */
ws_status ws_stats_register_table(ws_stats *s, ws_ctx *ctx, const ws_stat_def *defs, size_t n,
                                  const char *prefix_fmt, ...) __attribute__((format(printf, 5, 6)));

size_t ws_stats_count(const ws_stats *s);
const char *ws_stats_name(const ws_stats *s, size_t i);
const char *ws_stats_desc(const ws_stats *s, size_t i);
uint64_t ws_stats_value(const ws_stats *s, size_t i);
/* Marks the registered `counter` as one its component counts for the work
 * a sampled launch skips too (the L2 and DRAM see the skipped accesses
 * through ws_memsys_warm), so the sampler must not extrapolate it
 * (sim/gpu/sampler.h). Searches from the latest registration: mark a
 * component's counters right after registering them. */
void ws_stats_mark_counted_when_skipped(ws_stats *s, const uint64_t *counter);
/* Whether counter i is so marked. */
bool ws_stats_counted_when_skipped(const ws_stats *s, size_t i);
/* Marks it as counted for the iterations a sampled launch's loop gaps skip
 * too (the write-backs of the dirty lines their loads evict: a loop that
 * is skipped stores nothing, and each dirty line is written back once), so
 * the gaps must not be priced with it; implies counted when skipped. */
void ws_stats_mark_counted_in_loop_gaps(ws_stats *s, const uint64_t *counter);
bool ws_stats_counted_in_loop_gaps(const ws_stats *s, size_t i);
/* Adds `n` to counter i: the owner's counter itself (a sampled launch's
 * extrapolation, sim/gpu/sampler.h, is the one writer besides the owner). */
void ws_stats_add(ws_stats *s, size_t i, uint64_t n);
/* Value of the counter `name`; false when no such counter. */
bool ws_stats_get(const ws_stats *s, const char *name, uint64_t *value);
/* Sum of every counter whose name matches `pattern`, where '*' stands for
 * one dot-free component ("sm*.l1.hits"). */
uint64_t ws_stats_sum(const ws_stats *s, const char *pattern);
/* Zeroes every registered counter. */
void ws_stats_reset(ws_stats *s);

/* {"name": value, ...} in registration order, with a "descriptions" object
 * when with_desc is set. */
void ws_stats_write_json(const ws_stats *s, FILE *out, bool with_desc);
/* name,value,description lines with a header. */
void ws_stats_write_csv(const ws_stats *s, FILE *out);

#endif
