/* modifiers.h - the dot-suffix modifier groups (WS_MOD_*): spellings, the
 * value each stores in a ws_insn, defaults and canonical order.
 *
 * Design: one const table serves the assembler (matching suffixes), the
 * disassembler (printing every group explicitly, in table order) and the
 * doc generator, so the three cannot disagree on a spelling or a default. */
#ifndef WS_MODIFIERS_H
#define WS_MODIFIERS_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

#define WS_MODGROUP_COUNT 9

typedef struct ws_modgroup {
  uint32_t bit;             /* WS_MOD_* */
  const char *what;         /* "comparison", "type", ... for messages */
  unsigned count;           /* number of spellings */
  const char *const *names; /* "EQ", "S32", "128", ... (without the dot) */
  const uint8_t *values;    /* what each spelling stores in the insn */
  int default_index;        /* spelling used when omitted; -1 = required */
} ws_modgroup;

/* Groups in canonical (printing) order; NULL when i >= WS_MODGROUP_COUNT. */
const ws_modgroup *ws_modifiers_group(unsigned i);
/* Index of the spelling s[0..n) in g, or -1. */
int ws_modifiers_find(const ws_modgroup *g, const char *s, size_t n);
/* Index of the spelling that stores `value`, or -1 (a corrupt insn). */
int ws_modifiers_index(const ws_modgroup *g, unsigned value);
/* The insn field a group lives in (cmp, dtype, width_bytes or hsel). */
unsigned ws_modifiers_get(const ws_insn *insn, const ws_modgroup *g);
void ws_modifiers_set(ws_insn *insn, const ws_modgroup *g, unsigned value);

#endif
