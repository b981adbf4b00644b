/* scoreboard.c - dependency sets from operand signatures, and the two
 * scoreboards.
 *
 * Design: the operand signature letters of opcodes.def say which operands
 * are read (r i f q g m) and written (d p); immediates, RZ and PT carry no
 * dependency. The register-bank cost follows the operand-collector model:
 * distinct source registers map to bank reg % banks, banks read in parallel,
 * k reads in one bank take k cycles, so the instruction spends
 * max_bank(k) - 1 extra cycles collecting operands. */
#include "sim/sm/scoreboard.h"

#include <stdlib.h>
#include <string.h>

typedef struct dep_builder {
  ws_scoreboard_insn *si;
  uint32_t nrows;
  uint8_t src_regs[WS_SCOREBOARD_MAX_DEPS];
  uint32_t nsrc;
} dep_builder;

static void add_slot(dep_builder *b, uint16_t slot, bool write) {
  ws_scoreboard_insn *si = b->si;
  bool seen = false;
  for (uint32_t i = 0; i < si->ndeps; i++) seen |= si->deps[i] == slot;
  if (!seen && si->ndeps < WS_SCOREBOARD_MAX_DEPS) si->deps[si->ndeps++] = slot;
  if (write && si->nwrites <= WS_SCOREBOARD_MAX_WRITES) si->writes[si->nwrites++] = slot;
}

static void add_reg(dep_builder *b, uint32_t reg, bool write) {
  if (reg >= WS_REG_RZ || reg >= b->nrows) return;
  b->si->dep_mask[reg / 64] |= 1ull << (reg % 64);
  if (write) b->si->wr_mask[reg / 64] |= 1ull << (reg % 64);
  add_slot(b, (uint16_t)reg, write);
  if (write) return;
  for (uint32_t i = 0; i < b->nsrc; i++)
    if (b->src_regs[i] == reg) return;
  if (b->nsrc < WS_SCOREBOARD_MAX_DEPS) b->src_regs[b->nsrc++] = (uint8_t)reg;
}

static void add_pred(dep_builder *b, uint32_t p, bool write) {
  if (p >= WS_PRED_PT) return;
  add_slot(b, (uint16_t)(b->nrows + p), write);
}

static void add_operand(dep_builder *b, const ws_insn *insn, unsigned idx) {
  const ws_operand *o = &insn->opnd[idx];
  char kind = ws_isa_sig((ws_op)insn->op, idx).kind;
  bool write = kind == 'd' || kind == 'p';
  if (o->kind == WS_OPND_PRED) {
    add_pred(b, o->reg, write);
  } else if (o->kind == WS_OPND_REG) {
    unsigned n = ws_isa_opnd_nregs(insn, idx);
    for (unsigned r = 0; r < n; r++) add_reg(b, o->reg + r, write);
  } else if (o->kind == WS_OPND_MEM && o->reg < WS_REG_RZ) {
    unsigned n = kind == 'g' ? 2u : 1u; /* global addresses are register pairs */
    for (unsigned r = 0; r < n; r++) add_reg(b, o->reg + r, false);
  }
}

/* Cycles an instruction's operand reads add at issue: one per extra read
 * of the busiest bank. `overlap` cycles of them are hidden: HMMA's ten
 * source registers stream into the tensor pipe while it works, over its
 * initiation interval, so its reads delay it only past that. */
static uint8_t bank_extra(const dep_builder *b, uint32_t banks, uint32_t overlap) {
  uint32_t per_bank[64] = {0}, worst = 0;
  if (!banks) return 0;
  for (uint32_t i = 0; i < b->nsrc; i++) {
    uint32_t bank = b->src_regs[i] % banks % 64;
    if (++per_bank[bank] > worst) worst = per_bank[bank];
  }
  uint32_t extra = worst > 1 ? worst - 1 : 0;
  return (uint8_t)(extra > overlap ? extra - overlap : 0);
}

static ws_mem_class mem_class_of(ws_op op) {
  switch (op) {
  case WS_OP_LDG:
  case WS_OP_STG:
  case WS_OP_LDGSTS:
  case WS_OP_LDL: /* local memory goes the global path: LSU, coalescer, L1, L2 */
  case WS_OP_STL: return WS_MEMC_GLOBAL;
  case WS_OP_LDS:
  case WS_OP_STS: return WS_MEMC_SHARED;
  case WS_OP_LDC:
  case WS_OP_LDP: return WS_MEMC_CONST;
  case WS_OP_LDGDEPBAR: return WS_MEMC_COMMIT;
  case WS_OP_DEPBAR: return WS_MEMC_WAIT;
  default: break;
  }
  if (!ws_isa_is_atomic(op)) return WS_MEMC_NONE;
  return ws_isa_sig(op, 1).kind == 'g' ? WS_MEMC_GLOBAL : WS_MEMC_SHARED;
}

static ws_flop_kind flop_kind_of(ws_op op) {
  switch (op) {
  case WS_OP_FFMA: return WS_FLOP_LANE2;
  case WS_OP_FADD:
  case WS_OP_FMUL: return WS_FLOP_LANE1;
  case WS_OP_HMMA: return WS_FLOP_MMA;
  default: return WS_FLOP_NONE;
  }
}

static void build_one(ws_scoreboard_insn *si, const ws_insn *insn, uint32_t nrows, uint32_t banks,
                      uint32_t tensor_ii) {
  dep_builder b = {.si = si, .nrows = nrows};
  memset(si, 0, sizeof *si);
  const ws_opinfo *info = ws_isa_opinfo((ws_op)insn->op);
  si->unit = (uint8_t)(info ? info->unit : WS_UNIT_CTRL);
  si->mem_class = (uint8_t)mem_class_of((ws_op)insn->op);
  si->flop_kind = (uint8_t)flop_kind_of((ws_op)insn->op);
  add_pred(&b, insn->guard, false);
  unsigned n = info ? ws_isa_nopnds((ws_op)insn->op) : 0;
  for (unsigned i = 0; i < n && i < WS_MAX_OPERANDS; i++) add_operand(&b, insn, i);
  si->bank_extra_cycles = bank_extra(&b, banks, insn->op == WS_OP_HMMA && tensor_ii ? tensor_ii - 1 : 0);
  if (insn->op == WS_OP_DEPBAR) si->wait_groups = (uint32_t)insn->opnd[0].imm;
}

ws_status ws_scoreboard_table_build(ws_ctx *ctx, const ws_kernel *k, uint32_t nrows, uint32_t banks,
                                    uint32_t tensor_ii, ws_scoreboard_insn **out) {
  ws_scoreboard_insn *t = calloc(k->ninsns ? k->ninsns : 1, sizeof *t);
  if (!t) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted building the scoreboard table");
  for (uint32_t i = 0; i < k->ninsns; i++) build_one(&t[i], &k->insns[i], nrows, banks, tensor_ii);
  *out = t;
  return WS_OK;
}

_Static_assert(256 + 8 <= WS_SCOREBOARD_PENDING_WORDS * 64, "one pending bit per slot");

/* One slot per register row and eight for the predicates. */
static uint32_t slots_for(uint32_t nrows) { return nrows + 8; }

uint64_t ws_scoreboard_state_bytes(uint32_t nrows) {
  return slots_for(nrows) * (uint64_t)sizeof(ws_scoreboard_slot);
}

bool ws_scoreboard_init(ws_scoreboard *sb, uint32_t nrows) {
  memset(sb, 0, sizeof *sb);
  sb->nslots = slots_for(nrows);
  sb->slots = calloc(sb->nslots, sizeof *sb->slots);
  return sb->slots != NULL;
}

void ws_scoreboard_free(ws_scoreboard *sb) {
  free(sb->slots);
  sb->slots = NULL;
}

void ws_scoreboard_reset(ws_scoreboard *sb) {
  memset(sb->long_mask, 0, sizeof sb->long_mask);
  sb->long_count = 0;
  memset(sb->pending, 0, sizeof sb->pending);
  memset(sb->slots, 0, sb->nslots * sizeof *sb->slots);
}

ws_scoreboard_slot ws_scoreboard_latest(ws_scoreboard *sb, const ws_scoreboard_insn *si, uint64_t now) {
  ws_scoreboard_slot best = {0, 0, WS_SCOREBOARD_FIXED};
  for (uint32_t i = 0; i < si->ndeps; i++) {
    uint32_t d = si->deps[i];
    uint64_t bit = 1ull << (d % 64);
    if (!(sb->pending[d / 64] & bit)) continue;
    const ws_scoreboard_slot *s = &sb->slots[d];
    if (s->ready_cycle <= now)
      sb->pending[d / 64] &= ~bit; /* in the past for good */
    else if (s->ready_cycle > best.ready_cycle)
      best = *s;
  }
  return best;
}

void ws_scoreboard_set_short(ws_scoreboard *sb, const ws_scoreboard_insn *si, uint64_t ready_cycle,
                             ws_scoreboard_kind kind, uint16_t conflict_cycles) {
  for (uint32_t i = 0; i < si->nwrites; i++) {
    uint32_t d = si->writes[i];
    ws_scoreboard_slot *s = &sb->slots[d];
    sb->pending[d / 64] |= 1ull << (d % 64);
    s->ready_cycle = ready_cycle;
    s->kind = (uint8_t)kind;
    s->conflict_cycles = conflict_cycles;
  }
}

/* Without a host popcount instruction (no -mpopcnt) __builtin_popcountll
 * is a libgcc call, made twice per global load (callgrind: 1.6 % of the
 * coalesced GEMM's host instructions); bit arithmetic counts the few set
 * bits of a write mask, and words with none are skipped. */
static inline uint32_t popcount64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

void ws_scoreboard_set_long(ws_scoreboard *sb, const ws_scoreboard_insn *si) {
  for (int i = 0; i < 4; i++) {
    uint64_t added = si->wr_mask[i] & ~sb->long_mask[i];
    if (!added) continue;
    sb->long_count += popcount64(added);
    sb->long_mask[i] |= added;
  }
}

void ws_scoreboard_clear_long(ws_scoreboard *sb, const ws_scoreboard_insn *si) {
  for (int i = 0; i < 4; i++) {
    uint64_t removed = si->wr_mask[i] & sb->long_mask[i];
    if (!removed) continue;
    sb->long_count -= popcount64(removed);
    sb->long_mask[i] &= ~removed;
  }
}
