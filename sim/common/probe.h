/* probe.h - the seam through which the simulator reports every micro-op as
 * it happens: one table of callbacks, set on a device (ws_device_set_probe)
 * and handed down to the components where each micro-op already funnels.
 *
 * Design: the probe is NULL by default and every site is one predictable
 * test of a pointer the component already holds, so a simulation without a
 * probe does the work it did before. Every micro-op is one fixed-size
 * record (ws_probe_event) whose fields mean what probe.def, the one table
 * of kinds, says for its kind; a fixed record lets the trace writer encode
 * columns without a case per component, and lets a test compare records
 * field by field, while the typed accessors generated from the table
 * (ws_probe_dram_bank) keep readers and writers from decoding a, b and c
 * by hand. The simulator never reads anything back from a
 * probe: results, counters and timing are the same with and without one.
 * A probe that fails (a full disk) keeps its first error itself and reports
 * it when its owner asks; the simulation is not interrupted. */
#ifndef WS_PROBE_H
#define WS_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of micro-op, the outcome sets and what fields a, b and c hold
 * per kind all come from one table, probe.def; docs/traces.md shows it.
 * Cycles are the launch's core cycles (0: the launch starts) except for
 * the host kinds, whose begin/end are nanoseconds on the runtime's
 * timeline. */
typedef enum ws_probe_kind {
#define WS_PEV(id, name, set, by, span, fields, meaning) WS_PEV_##id,
#include "sim/common/probe.def"
  WS_PEV_COUNT
} ws_probe_kind;

/* Which outcome names a kind's `outcome` field takes (NONE: none). */
typedef enum ws_probe_outcome_set {
  WS_PROBE_OUTCOMES_NONE,
#define WS_PEV_OUTCOMES(set, what) WS_PROBE_OUTCOMES_##set,
#include "sim/common/probe.def"
  WS_PROBE_OUTCOMES_COUNT
} ws_probe_outcome_set;

/* Every row of the outcome table, set headers included, in table order:
 * an outcome's value is its distance from its set's header, so each set
 * counts from 0 (WS_PROBE_L1_HIT = 0, WS_PROBE_L1_MISS = 1, ...). */
enum ws_probe_outcome_row_ {
#define WS_PEV_OUTCOMES(set, what) WS_PROBE_OROW_##set,
#define WS_PEV_OUTCOME(set, id, name, meaning) WS_PROBE_OROW_##set##_##id,
#include "sim/common/probe.def"
  WS_PROBE_OUTCOME_ROWS
};
enum {
#define WS_PEV_OUTCOME(set, id, name, meaning)                                                               \
  WS_PROBE_##set##_##id = WS_PROBE_OROW_##set##_##id - WS_PROBE_OROW_##set - 1,
#include "sim/common/probe.def"
};

/* flags */
#define WS_PROBE_TAGGED 0x01u    /* it moves or computes a value that depends on the followed input */
#define WS_PROBE_WRITE 0x02u     /* a store / DRAM write */
#define WS_PROBE_FAR 0x04u       /* the slice is in the far L2 partition from the SM */
#define WS_PROBE_WRITEBACK 0x08u /* a dirty victim was written back */
#define WS_PROBE_ATOMIC 0x10u
#define WS_PROBE_MERGED 0x20u /* L1 miss: joined the line's MSHR already in flight */

#define WS_PROBE_NONE 0xFFFFu /* sm / unit / warp that does not apply */

typedef struct ws_probe_event {
  uint64_t begin, end; /* core cycles of the launch (host kinds: ns) */
  uint64_t addr;       /* line address, or bytes (host kinds) */
  uint64_t uop;        /* memory micro-op id, unique within a launch (0: none) */
  uint64_t link;       /* a related uop (the DRAM read's requester), 0: none */
  uint32_t a, b, c;    /* per kind (probe.def): read and write them with the accessors below */
  uint32_t pc;
  uint16_t sm, unit, warp;
  uint8_t kind;    /* ws_probe_kind */
  uint8_t outcome; /* per kind */
  uint8_t flags;   /* WS_PROBE_* */
} ws_probe_event;

/* ---- the table, as C -------------------------------------------------------------- */

typedef enum ws_probe_slot {
  WS_PROBE_SLOT_A,
  WS_PROBE_SLOT_B,
  WS_PROBE_SLOT_C,
  WS_PROBE_SLOTS
} ws_probe_slot;
/* probe.def names a slot by its member; these turn the name into the slot. */
#define WS_PROBE_SLOT_OF_a WS_PROBE_SLOT_A
#define WS_PROBE_SLOT_OF_b WS_PROBE_SLOT_B
#define WS_PROBE_SLOT_OF_c WS_PROBE_SLOT_C

/* How text shows a field: a number, a 32-bit mask (lanes, banks), a sector
 * mask, or a cache way (4294967295: none). */
typedef enum ws_probe_form {
  WS_PROBE_FORM_NUM,
  WS_PROBE_FORM_MASK32,
  WS_PROBE_FORM_SECTORS,
  WS_PROBE_FORM_WAY
} ws_probe_form;

typedef struct ws_probe_kind_info {
  const char *name;    /* "kernel", "l1", ...: dumps, exports, --kind */
  const char *by;      /* the component that reports it */
  const char *span;    /* what begin and end are */
  const char *fields;  /* the common fields that apply ("" none) */
  const char *meaning; /* one line */
  uint8_t outcomes;    /* ws_probe_outcome_set */
} ws_probe_kind_info;

typedef struct ws_probe_field_info {
  const char *name;    /* its accessor is ws_probe_<name>: "l1_set", "dram_bank" */
  const char *arg;     /* its name in Perfetto exports */
  const char *unit;    /* "bytes", "index", "sector mask", ... */
  const char *meaning; /* one line */
  uint8_t form;        /* ws_probe_form */
} ws_probe_field_info;

typedef struct ws_probe_outcome_info {
  uint8_t set;         /* ws_probe_outcome_set; NONE for a set's header row */
  const char *name;    /* "hit", "row_conflict", ...; NULL for a header */
  const char *meaning; /* one line; a header's: what the set is */
} ws_probe_outcome_info;

/* Kind `kind`'s row; NULL when out of range. */
static inline const ws_probe_kind_info *ws_probe_kind_lookup(uint32_t kind) {
  static const ws_probe_kind_info rows[WS_PEV_COUNT] = {
#define WS_PEV(id, name, set, by, span, fields, meaning)                                                     \
  {name, by, span, fields, meaning, WS_PROBE_OUTCOMES_##set},
#include "sim/common/probe.def"
  };
  return kind < WS_PEV_COUNT ? &rows[kind] : NULL;
}

/* What slot `slot` of kind `kind` holds; NULL when unused (or either is
 * out of range). */
static inline const ws_probe_field_info *ws_probe_field_lookup(uint32_t kind, uint32_t slot) {
  static const ws_probe_field_info rows[WS_PEV_COUNT][WS_PROBE_SLOTS] = {
#define WS_PEV_FIELD(id, slot, accessor, arg, form, unit, meaning)                                           \
  [WS_PEV_##id][WS_PROBE_SLOT_OF_##slot] = {#accessor, arg, unit, meaning, WS_PROBE_FORM_##form},
#include "sim/common/probe.def"
  };
  if (kind >= WS_PEV_COUNT || slot >= WS_PROBE_SLOTS || !rows[kind][slot].arg) return NULL;
  return &rows[kind][slot];
}

/* Row `row` of the outcome table (< WS_PROBE_OUTCOME_ROWS), headers included. */
static inline const ws_probe_outcome_info *ws_probe_outcome_row(uint32_t row) {
  static const ws_probe_outcome_info rows[WS_PROBE_OUTCOME_ROWS] = {
#define WS_PEV_OUTCOMES(set, what) {WS_PROBE_OUTCOMES_NONE, NULL, what},
#define WS_PEV_OUTCOME(set, id, name, meaning) {WS_PROBE_OUTCOMES_##set, name, meaning},
#include "sim/common/probe.def"
  };
  return row < WS_PROBE_OUTCOME_ROWS ? &rows[row] : NULL;
}

/* Outcome `outcome` of set `set`; NULL when the set has no such outcome. */
static inline const ws_probe_outcome_info *ws_probe_outcome_lookup(uint32_t set, uint32_t outcome) {
  static const uint32_t header[WS_PROBE_OUTCOMES_COUNT] = {
      [WS_PROBE_OUTCOMES_NONE] = WS_PROBE_OUTCOME_ROWS,
#define WS_PEV_OUTCOMES(set, what) [WS_PROBE_OUTCOMES_##set] = WS_PROBE_OROW_##set,
#include "sim/common/probe.def"
  };
  if (set >= WS_PROBE_OUTCOMES_COUNT || outcome >= WS_PROBE_OUTCOME_ROWS) return NULL;
  const ws_probe_outcome_info *o = ws_probe_outcome_row(header[set] + 1 + outcome);
  return o && o->set == set ? o : NULL;
}

/* Slot `slot` of a record whatever its kind, for readers that show the
 * three fields as columns (dumps) and name them through the lookups. */
static inline uint32_t ws_probe_slot_value(const ws_probe_event *e, ws_probe_slot slot) {
  return slot == WS_PROBE_SLOT_A ? e->a : slot == WS_PROBE_SLOT_B ? e->b : e->c;
}

/* The typed accessors, one pair per field row: ws_probe_l1_set(e),
 * ws_probe_set_l1_set(e, v), ... They trust the record's kind: a reader
 * switches on it first. */
#define WS_PEV_FIELD(id, slot, accessor, arg, form, unit, meaning)                                           \
  static inline uint32_t ws_probe_##accessor(const ws_probe_event *e) { return e->slot; }                    \
  static inline void ws_probe_set_##accessor(ws_probe_event *e, uint32_t v) { e->slot = v; }
#include "sim/common/probe.def"

/* What a launch is, for the probe's kernel table. The kernel's text is not
 * the simulator's business: the probe's owner knows which program it
 * assembled. */
typedef struct ws_probe_launch {
  const char *kernel_name;
  const void *kernel; /* the ws_kernel launched, as an identity for the probe's kernel table */
  uint32_t grid[3], block[3];
  uint32_t regs_per_thread, shared_bytes;
  uint32_t ctas_per_sm;
  uint64_t cycles; /* launch_end only */
} ws_probe_launch;

typedef struct ws_probe {
  void *user;
  /* Called before the first micro-op of a launch and after its last. */
  void (*launch_begin)(void *user, const ws_probe_launch *l);
  void (*launch_end)(void *user, const ws_probe_launch *l);
  /* Every micro-op, in the order the simulator processes them: begin
   * cycles are not sorted (a transfer's end is known when it starts). */
  void (*event)(void *user, const ws_probe_event *ev);
} ws_probe;

#endif
