/* evtext.h - trace records as text: the names of kinds, outcomes and
 * flags, and one record as a row of columns, shared by `warpscope trace
 * dump` and the CSV exporter.
 *
 * Design: one column list (WS_EVTEXT_HEADER) in a fixed order, so a dump
 * and a CSV file line up and scripts can rely on the positions; a field
 * that does not apply to a record's kind (an SM, unit or warp of 65535, a
 * pc or cache way of 4294967295, a micro-op id or link of 0) prints as "-",
 * masks (active lanes, banks, sectors) print in hex. The names are the ones
 * docs/traces.md uses. */
#ifndef WS_EVTEXT_H
#define WS_EVTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/common/probe.h"

/* "kernel", "cta", "issue", ... in ws_probe_kind order; "?" when out of range. */
const char *ws_evtext_kind_name(uint8_t kind);
/* The kind named `name` (exactly as above); false when none. */
bool ws_evtext_kind_parse(const char *name, uint8_t *kind);
/* The outcome's name for its kind ("hit", "row_conflict", "h2d", ...);
 * a stall record's reason comes from `stall_names` (may be NULL); "-" for
 * kinds without an outcome. */
const char *ws_evtext_outcome_name(const ws_probe_event *ev, const char *const *stall_names, size_t nnames);
/* The flags as "tagged|write|far|writeback|atomic" (those set), "-" when
 * none; buf holds at least WS_EVTEXT_FLAGS_BYTES. */
#define WS_EVTEXT_FLAGS_BYTES 48
const char *ws_evtext_flags(uint8_t flags, char *buf);

#define WS_EVTEXT_COLUMNS 17
/* The column names, in order. */
extern const char *const ws_evtext_columns[WS_EVTEXT_COLUMNS];

typedef enum ws_evtext_style {
  WS_EVTEXT_ALIGNED, /* padded columns separated by spaces (dump) */
  WS_EVTEXT_CSV      /* comma-separated (no field holds a comma) */
} ws_evtext_style;

/* The header line and one record (launch UINT32_MAX: "-"), each ending in
 * a newline. */
void ws_evtext_header(FILE *out, ws_evtext_style style);
void ws_evtext_row(FILE *out, ws_evtext_style style, const ws_probe_event *ev, uint32_t launch,
                   const char *const *stall_names, size_t nnames);

#endif
