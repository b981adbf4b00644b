/* record.h - a point and its result as one row of text: the columns of a
 * sweep's CSV and JSON output, and the CSV reader that resumes a sweep.
 *
 * Design: one column table gives every column its name, the field it
 * shows and when it applies, and both writers and the reader walk it, so
 * CSV, JSON and resume cannot disagree. The columns are fixed (65, then one
 * `stall_<reason>` per stall reason of the device, ws_device_stall_name),
 * so the header is known before any point runs and a chart can read
 * columns by name. Numbers are written so they read back to the same bits:
 * integers in decimal, doubles in the shortest of %.15g, %.16g and %.17g
 * that round-trips. The tiles are the ones the kernel is built from
 * (ws_point_resolve_tiles: a default is written as its value). A field that
 * does not apply to its row (a GEMM's seq, blocktile2d's wm, the cycles of
 * a refused point) is empty when it is zero, so a row reads back to the
 * structs it came from, the point's tiles resolved. The cost columns
 * (what simulating the point cost the host, explore/cost.h) come last and
 * only on request: they differ from run to run, and records are otherwise
 * the same bytes whoever runs them. */
#ifndef WS_EXPLORE_RECORD_H
#define WS_EXPLORE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "base/text.h"
#include "explore/point.h"

/* The columns before the stall columns. */
#define WS_RECORD_FIXED_COLS 65u
/* The largest record file the reader takes, and the most rows. */
#define WS_RECORD_FILE_MAX_BYTES ((size_t)256 << 20)
#define WS_RECORD_ROWS_MAX 1000000u
/* Room for any one column name or field text. */
#define WS_RECORD_FIELD_MAX 512

/* The cost columns, after the stall columns when asked for: sim_wall_s,
 * sim_cpu_s (the point's ws_point_result.sim_wall_s and sim_cpu_s) and
 * sim_warp_insns_per_s (warp_insns / sim_cpu_s), each empty when not
 * measured. */
#define WS_RECORD_COST_COLS 3u

/* The number of columns: the fixed ones, one per stall reason, and the
 * cost columns when `cost`. */
uint32_t ws_record_col_count(bool cost);
/* Column c's name ("kind", ..., "stall_<reason>", "sim_wall_s", ...) into
 * buf; false when c is not a column (c >= ws_record_col_count(true)). */
bool ws_record_col_name(uint32_t c, char *buf, size_t bytes);
/* Column c's text for the row (p, r), unquoted: "" when it does not apply.
 * *is_number tells the JSON writer whether it is a number (or empty). */
void ws_record_field(const ws_point *p, const ws_point_result *r, uint32_t c, char *buf, size_t bytes,
                     bool *is_number);

/* The header line, and one row, each ending in "\n", with the cost
 * columns when `cost`; a field holding a comma, a quote or a line break is
 * quoted as RFC 4180 says. */
void ws_record_csv_header(ws_text *t, bool cost);
void ws_record_csv_row(ws_text *t, const ws_point *p, const ws_point_result *r, bool cost);
/* The JSON array of n records: one object per row, the columns as keys in
 * order, numbers as numbers, a field that does not apply as null. The text
 * is malloc'd; the caller frees it. */
ws_status ws_record_json(ws_ctx *ctx, const ws_point *ps, const ws_point_result *rs, size_t n, bool cost,
                         char **out);

/* Reads CSV text written by ws_record_csv_* back into its rows (malloc'd
 * arrays the caller frees; both NULL with *n 0 for a header alone). The
 * header must be this build's, with or without the cost columns (*cost,
 * which may be NULL, tells which); every field is checked, and the first
 * bad one is named by `name` (the file), line and column:
 * "out.csv:7: column cycles (36): '12x' is not an unsigned integer". */
ws_status ws_record_csv_parse(ws_ctx *ctx, const char *name, const char *text, size_t len, ws_point **ps,
                              ws_point_result **rs, size_t *n, bool *cost);
/* ws_record_csv_parse of a file (at most WS_RECORD_FILE_MAX_BYTES). */
ws_status ws_record_csv_read(ws_ctx *ctx, const char *path, ws_point **ps, ws_point_result **rs, size_t *n,
                             bool *cost);

/* Whether two points are the same point: every parameter equal, the
 * tiles resolved (ws_point_resolve_tiles, as resume matches), whatever
 * lies past a name's NUL. */
bool ws_record_point_equal(const ws_point *a, const ws_point *b);

#endif
