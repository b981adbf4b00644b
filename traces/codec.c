/* codec.c - events to columns of predicted residuals and back.
 *
 * The encoder and the decoder share one prediction per field (the pred_*
 * functions) and one state update (learn), so the two sides cannot drift
 * apart: each field's residual is a zigzag-coded difference in the field's
 * own width, written as an LEB128 varint. Fields a, b and c are columns
 * like the others, predicted whatever they mean for the kind
 * (sim/common/probe.def); only the issue's opcode is read for its meaning. */
#include "traces/codec.h"

#include <stdlib.h>
#include <string.h>

static const char *const col_names[WS_CODEC_COL_COUNT] = {"kind", "begin", "end",  "sm",      "unit",
                                                          "warp", "pc",    "a",    "b",       "c",
                                                          "uop",  "addr",  "link", "outcome", "flags"};

const char *ws_codec_col_name(ws_codec_col c) { return c < WS_CODEC_COL_COUNT ? col_names[c] : "?"; }

/* ---- residuals ----------------------------------------------------------------- */

/* Zigzag in `bits` bits: small differences of either sign become small
 * unsigned numbers (0, -1, 1, -2 -> 0, 1, 2, 3). */
static uint64_t zz(uint64_t delta, unsigned bits) {
  uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  delta &= mask;
  uint64_t sign = (delta >> (bits - 1)) & 1;
  return ((delta << 1) & mask) ^ (sign ? mask : 0);
}

static uint64_t unzz(uint64_t z, unsigned bits) {
  uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  z &= mask;
  return ((z >> 1) ^ (0 - (z & 1))) & mask;
}

/* ---- prediction ---------------------------------------------------------------- */

static bool has_pc(unsigned kind) {
  return kind == WS_PEV_ISSUE || kind == WS_PEV_RF_BANK || kind == WS_PEV_COALESCE || kind == WS_PEV_SMEM ||
         kind == WS_PEV_MEM_DONE || kind == WS_PEV_DEPBAR;
}

static bool has_line(unsigned kind) {
  return kind == WS_PEV_L1 || kind == WS_PEV_L2 || kind == WS_PEV_DRAM || kind == WS_PEV_L2_FILL ||
         kind == WS_PEV_L1_FILL;
}

/* Where an event's sm, unit and warp are predicted from: the events the
 * issue stage reports right after an issue concern the warp just issued;
 * the rest follow the previous event of their kind. */
static const ws_probe_event *owner(const ws_codec_state *st, unsigned kind) {
  switch (kind) {
  case WS_PEV_STALL:
  case WS_PEV_RF_BANK:
  case WS_PEV_COALESCE:
  case WS_PEV_SMEM:
  case WS_PEV_BARRIER:
  case WS_PEV_DEPBAR: return &st->prev[WS_PEV_ISSUE];
  default: return &st->prev[kind];
  }
}

static ws_codec_slot *slot(ws_codec_slot *table, size_t slots, uint64_t key) {
  uint64_t h = key * UINT64_C(0x9E3779B97F4A7C15);
  return &table[(h >> 40) & (slots - 1)];
}

static bool lookup(ws_codec_slot *table, size_t slots, uint64_t key, uint64_t *value) {
  ws_codec_slot *s = slot(table, slots, key);
  if (s->key != key + 1) return false;
  *value = s->value;
  return true;
}

static void store(ws_codec_slot *table, size_t slots, uint64_t key, uint64_t value) {
  ws_codec_slot *s = slot(table, slots, key);
  s->key = key + 1;
  s->value = value;
}

static uint64_t warp_key(const ws_probe_event *ev) { return (uint64_t)ev->sm << 16 | ev->warp; }

/* A warp's next issue is at its last issued pc + 1; its other pc-bearing
 * events name the instruction it issued last. */
static uint32_t pred_pc(ws_codec_state *st, const ws_probe_event *ev) {
  uint64_t last;
  if (!has_pc(ev->kind) || !lookup(st->pcs, WS_CODEC_PC_SLOTS, warp_key(ev), &last))
    return st->prev[ev->kind].pc;
  return (uint32_t)last + (ev->kind == WS_PEV_ISSUE);
}

static uint32_t pred_b(ws_codec_state *st, const ws_probe_event *ev) {
  uint64_t op;
  if (ev->kind == WS_PEV_ISSUE && lookup(st->ops, WS_CODEC_OP_SLOTS, ev->pc, &op)) return (uint32_t)op;
  return st->prev[ev->kind].b;
}

static uint64_t pred_addr(ws_codec_state *st, const ws_probe_event *ev) {
  uint64_t line;
  if (has_line(ev->kind) && ev->uop && lookup(st->uops, WS_CODEC_UOP_SLOTS, ev->uop, &line)) return line;
  return st->prev[ev->kind].addr;
}

static void learn(ws_codec_state *st, const ws_probe_event *ev) {
  st->prev_begin = ev->begin;
  st->prev[ev->kind] = *ev;
  if (ev->kind == WS_PEV_ISSUE) {
    store(st->pcs, WS_CODEC_PC_SLOTS, warp_key(ev), ev->pc);
    store(st->ops, WS_CODEC_OP_SLOTS, ev->pc, ws_probe_issue_opcode(ev));
  }
  if (has_line(ev->kind) && ev->uop) store(st->uops, WS_CODEC_UOP_SLOTS, ev->uop, ev->addr);
}

/* ---- encoding ------------------------------------------------------------------ */

void ws_codec_enc_init(ws_codec_enc *e) {
  memset(e, 0, sizeof *e);
  e->min_begin = UINT64_MAX;
}

void ws_codec_enc_free(ws_codec_enc *e) {
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++) ws_bytes_free(&e->cols[c]);
}

static void put_varint(ws_bytes *b, uint64_t v) {
  while (v >= 0x80) {
    b->data[b->len++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b->data[b->len++] = (uint8_t)v;
}

static void put(ws_codec_enc *e, ws_codec_col c, uint64_t value, uint64_t pred, unsigned bits) {
  put_varint(&e->cols[c], zz(value - pred, bits));
}

bool ws_codec_enc_add(ws_codec_enc *e, const ws_probe_event *ev) {
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++)
    if (!ws_bytes_reserve(&e->cols[c], 10)) return false;
  ws_codec_state *st = &e->st;
  const ws_probe_event *p = &st->prev[ev->kind];
  e->cols[WS_CODEC_KIND].data[e->cols[WS_CODEC_KIND].len++] = ev->kind;
  put(e, WS_CODEC_BEGIN, ev->begin, st->prev_begin, 64);
  put(e, WS_CODEC_END, ev->end, ev->begin, 64);
  const ws_probe_event *o = owner(st, ev->kind);
  put(e, WS_CODEC_SM, ev->sm, o->sm, 16);
  put(e, WS_CODEC_UNIT, ev->unit, o->unit, 16);
  put(e, WS_CODEC_WARP, ev->warp, o->warp, 16);
  put(e, WS_CODEC_PC, ev->pc, pred_pc(st, ev), 32);
  put(e, WS_CODEC_A, ev->a, p->a, 32);
  put(e, WS_CODEC_B, ev->b, pred_b(st, ev), 32);
  put(e, WS_CODEC_C, ev->c, p->c, 32);
  put(e, WS_CODEC_UOP, ev->uop, p->uop, 64);
  put(e, WS_CODEC_ADDR, ev->addr, pred_addr(st, ev), 64);
  put(e, WS_CODEC_LINK, ev->link, p->link, 64);
  e->cols[WS_CODEC_OUTCOME].data[e->cols[WS_CODEC_OUTCOME].len++] = ev->outcome;
  e->cols[WS_CODEC_FLAGS].data[e->cols[WS_CODEC_FLAGS].len++] = ev->flags;
  learn(st, ev);
  e->events++;
  if (ev->begin < e->min_begin) e->min_begin = ev->begin;
  if (ev->begin > e->max_begin) e->max_begin = ev->begin;
  return true;
}

bool ws_codec_enc_finish(ws_codec_enc *e, ws_bytes *out) {
  out->len = 0;
  size_t total = WS_CODEC_TABLE_BYTES;
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++) total += e->cols[c].len;
  bool ok = true;
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++) ok = ok && !e->cols[c].failed;
  ok = ok && ws_bytes_reserve(out, total);
  if (ok) {
    for (int c = 0; c < WS_CODEC_COL_COUNT; c++)
      ws_bytes_put_le32(out->data + 4 * c, (uint32_t)e->cols[c].len);
    out->len = WS_CODEC_TABLE_BYTES;
    for (int c = 0; c < WS_CODEC_COL_COUNT; c++) ws_bytes_append(out, e->cols[c].data, e->cols[c].len);
  }
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++) e->cols[c].len = 0, e->cols[c].failed = false;
  memset(&e->st, 0, sizeof e->st);
  e->events = 0;
  e->min_begin = UINT64_MAX;
  e->max_begin = 0;
  return ok;
}

/* ---- decoding ------------------------------------------------------------------ */

bool ws_codec_dec_init(ws_codec_dec *d, const uint8_t *raw, size_t raw_bytes) {
  memset(&d->st, 0, sizeof d->st);
  if (raw_bytes < WS_CODEC_TABLE_BYTES) return false;
  size_t at = WS_CODEC_TABLE_BYTES;
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++) {
    const uint8_t *p = raw + 4 * c;
    size_t len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    if (len > raw_bytes - at) return false;
    d->pos[c] = raw + at;
    d->end[c] = raw + at + len;
    at += len;
  }
  return at == raw_bytes;
}

/* One varint of at most max_bytes bytes; false when the column ends first
 * or the number runs longer. */
static bool get_varint(ws_codec_dec *d, ws_codec_col c, unsigned max_bytes, uint64_t *out) {
  uint64_t v = 0;
  for (unsigned i = 0; i < max_bytes && d->pos[c] < d->end[c]; i++) {
    uint8_t byte = *d->pos[c]++;
    v |= (uint64_t)(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

static bool get(ws_codec_dec *d, ws_codec_col c, uint64_t pred, unsigned bits, uint64_t *out) {
  uint64_t z;
  unsigned max_bytes = bits == 64 ? 10 : bits == 32 ? 5 : 3;
  if (!get_varint(d, c, max_bytes, &z)) return false;
  uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  *out = (pred + unzz(z, bits)) & mask;
  return true;
}

static bool get_byte(ws_codec_dec *d, ws_codec_col c, uint8_t *out) {
  if (d->pos[c] >= d->end[c]) return false;
  *out = *d->pos[c]++;
  return true;
}

/* Reads one field (col) into ev->field of C type `type`, or returns the column. */
#define GET(col, field, type, pred, bits)                                                                    \
  do {                                                                                                       \
    uint64_t v_;                                                                                             \
    if (!get(d, col, pred, bits, &v_)) return col;                                                           \
    ev->field = (type)v_;                                                                                    \
  } while (0)

ws_codec_col ws_codec_dec_next(ws_codec_dec *d, ws_probe_event *ev) {
  ws_codec_state *st = &d->st;
  memset(ev, 0, sizeof *ev);
  if (!get_byte(d, WS_CODEC_KIND, &ev->kind) || ev->kind >= WS_PEV_COUNT) return WS_CODEC_KIND;
  const ws_probe_event *p = &st->prev[ev->kind];
  GET(WS_CODEC_BEGIN, begin, uint64_t, st->prev_begin, 64);
  GET(WS_CODEC_END, end, uint64_t, ev->begin, 64);
  const ws_probe_event *o = owner(st, ev->kind);
  GET(WS_CODEC_SM, sm, uint16_t, o->sm, 16);
  GET(WS_CODEC_UNIT, unit, uint16_t, o->unit, 16);
  GET(WS_CODEC_WARP, warp, uint16_t, o->warp, 16);
  GET(WS_CODEC_PC, pc, uint32_t, pred_pc(st, ev), 32);
  GET(WS_CODEC_A, a, uint32_t, p->a, 32);
  GET(WS_CODEC_B, b, uint32_t, pred_b(st, ev), 32);
  GET(WS_CODEC_C, c, uint32_t, p->c, 32);
  GET(WS_CODEC_UOP, uop, uint64_t, p->uop, 64);
  GET(WS_CODEC_ADDR, addr, uint64_t, pred_addr(st, ev), 64);
  GET(WS_CODEC_LINK, link, uint64_t, p->link, 64);
  if (!get_byte(d, WS_CODEC_OUTCOME, &ev->outcome)) return WS_CODEC_OUTCOME;
  if (!get_byte(d, WS_CODEC_FLAGS, &ev->flags)) return WS_CODEC_FLAGS;
  learn(st, ev);
  return WS_CODEC_COL_COUNT;
}

ws_codec_col ws_codec_dec_leftover(const ws_codec_dec *d) {
  for (int c = 0; c < WS_CODEC_COL_COUNT; c++)
    if (d->pos[c] != d->end[c]) return (ws_codec_col)c;
  return WS_CODEC_COL_COUNT;
}
