/* simt.c - SIMT reconvergence stack operations (mechanism in simt.h). */
#include "sim/exec/simt.h"

#include <stdlib.h>

#define INITIAL_DEPTH 8u

bool ws_simt_init(ws_simt *s) {
  s->entries = malloc(INITIAL_DEPTH * sizeof *s->entries);
  s->depth = 0;
  s->cap = s->entries ? INITIAL_DEPTH : 0;
  return s->entries != NULL;
}

void ws_simt_free(ws_simt *s) {
  free(s->entries);
  s->entries = NULL;
  s->depth = s->cap = 0;
}

void ws_simt_reset(ws_simt *s, uint32_t live_mask) {
  s->depth = 0;
  if (!live_mask) return;
  s->entries[0] = (ws_simt_entry){0, WS_SIMT_NO_RPC, live_mask};
  s->depth = 1;
}

void ws_simt_settle(ws_simt *s) {
  while (s->depth && s->entries[s->depth - 1].pc == s->entries[s->depth - 1].rpc) s->depth--;
}

static bool push(ws_simt *s, uint32_t pc, uint32_t rpc, uint32_t mask) {
  if (pc == rpc) return true; /* already at the reconvergence point: waits below */
  if (s->depth == s->cap) {
    uint32_t cap = s->cap * 2;
    ws_simt_entry *e = realloc(s->entries, cap * sizeof *e);
    if (!e) return false;
    s->entries = e;
    s->cap = cap;
  }
  s->entries[s->depth++] = (ws_simt_entry){pc, rpc, mask};
  return true;
}

bool ws_simt_branch(ws_simt *s, uint32_t pc, uint32_t target, uint32_t rpc, uint32_t taken) {
  ws_simt_entry *top = &s->entries[s->depth - 1];
  uint32_t not_taken = top->mask & ~taken;
  if (!not_taken) {
    top->pc = target;
    return true;
  }
  if (!taken) {
    top->pc = pc + 1;
    return true;
  }
  if (top->rpc == rpc)
    s->depth--; /* the entry below already waits at rpc */
  else
    top->pc = rpc;
  return push(s, pc + 1, rpc, not_taken) && push(s, target, rpc, taken);
}

void ws_simt_exit(ws_simt *s, uint32_t lanes) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < s->depth; i++) {
    ws_simt_entry e = s->entries[i];
    e.mask &= ~lanes;
    if (e.mask) s->entries[kept++] = e;
  }
  s->depth = kept;
}
