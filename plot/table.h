/* table.h - a CSV file read whole (RFC 4180) and accessed by column name:
 * the explorer's sweeps, as `warpscope plot` reads them.
 *
 * Design: the file is parsed once into one buffer of unescaped,
 * NUL-terminated fields plus a row-major index, so a cell is a pointer and
 * a column is found by name, never by position: a sweep may add or move
 * columns without breaking a reader. Every cell remembers the line and the
 * byte column it started at, so a bad number is reported as
 * FILE:LINE:COLUMN. Inputs are bounded: the file's size, the number of
 * columns, and rows wider or narrower than the header are refused. */
#ifndef WS_PLOT_TABLE_H
#define WS_PLOT_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ctx.h"

#define WS_TABLE_MAX_BYTES ((size_t)64 << 20)
#define WS_TABLE_MAX_COLUMNS 4096

typedef struct ws_table ws_table;

/* Reads and parses `path` (at most WS_TABLE_MAX_BYTES). */
ws_status ws_table_read(ws_ctx *ctx, const char *path, ws_table **out);
/* Parses CSV text; `name` is the file name the messages give. */
ws_status ws_table_parse(ws_ctx *ctx, const char *name, const char *text, size_t len, ws_table **out);
void ws_table_destroy(ws_table *t);

size_t ws_table_columns(const ws_table *t);
size_t ws_table_rows(const ws_table *t);
const char *ws_table_column_name(const ws_table *t, size_t col);
/* The index of the column named `name`; false when there is none. */
bool ws_table_find(const ws_table *t, const char *name, size_t *col);
/* The cell's text (unquoted); never NULL. */
const char *ws_table_cell(const ws_table *t, size_t row, size_t col);
/* The cell as a finite number; WS_ERR_INVALID naming FILE:LINE:COLUMN and
 * the column when it is empty or not a number. */
ws_status ws_table_number(ws_ctx *ctx, const ws_table *t, size_t row, size_t col, double *out);
/* The line of the file a row starts on (the header is line 1). */
size_t ws_table_line(const ws_table *t, size_t row);
/* All column names, comma-separated, into buf (cut to fit): for a message
 * that lists what a file offers. */
void ws_table_list_columns(const ws_table *t, char *buf, size_t n);

#endif
