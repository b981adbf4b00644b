/* codec.h - the column encoding of trace events inside one .wst chunk.
 *
 * Design: a chunk's events are split into one byte column per field, and
 * each field is stored as the difference from what the decoder can predict
 * from the events before it in the same chunk: begin from the previous
 * event's begin, end from its own begin, a warp's pc from that warp's last
 * issued pc (+1 for the next issue), an issue's opcode from the last opcode
 * issued at that pc, a memory event's line from the line its uop was last
 * seen with, the sm/unit/warp of what the issue stage reports after an
 * issue (stall, operand reads, coalescing, shared access, barrier) from
 * that issue, and every other field from the previous event of its kind.
 * Most residuals are then zero or tiny, and identical across events, which
 * is what zstd (applied by the caller to the concatenated columns) turns
 * into a few bits. Prediction state starts empty in every chunk, so a chunk
 * decodes without the ones before it. docs/traces.md has the table. */
#ifndef WS_CODEC_H
#define WS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "sim/common/probe.h"

typedef enum ws_codec_col {
  WS_CODEC_KIND,
  WS_CODEC_BEGIN,
  WS_CODEC_END,
  WS_CODEC_SM,
  WS_CODEC_UNIT,
  WS_CODEC_WARP,
  WS_CODEC_PC,
  WS_CODEC_A,
  WS_CODEC_B,
  WS_CODEC_C,
  WS_CODEC_UOP,
  WS_CODEC_ADDR,
  WS_CODEC_LINK,
  WS_CODEC_OUTCOME,
  WS_CODEC_FLAGS,
  WS_CODEC_COL_COUNT
} ws_codec_col;

/* A chunk's raw bytes: WS_CODEC_COL_COUNT little-endian u32 column sizes,
 * then the columns in order. One event takes at most this many raw bytes
 * (the kind, 5 varints of 64-bit fields at 10 bytes, 4 of 32-bit fields at
 * 5, 3 of 16-bit fields at 3, outcome and flags), which bounds a chunk's
 * raw size. */
#define WS_CODEC_TABLE_BYTES (4u * WS_CODEC_COL_COUNT)
#define WS_CODEC_MAX_EVENT_BYTES (1u + 5u * 10u + 4u * 5u + 3u * 3u + 2u)

#define WS_CODEC_PC_SLOTS 8192u  /* (sm, warp) -> last issued pc */
#define WS_CODEC_OP_SLOTS 4096u  /* pc -> last opcode issued there */
#define WS_CODEC_UOP_SLOTS 4096u /* uop -> its line */

typedef struct ws_codec_slot {
  uint64_t key; /* 0: empty; else the key + 1 */
  uint64_t value;
} ws_codec_slot;

/* What both sides predict from; reset at every chunk. */
typedef struct ws_codec_state {
  uint64_t prev_begin;
  ws_probe_event prev[WS_PEV_COUNT]; /* the last event of each kind */
  ws_codec_slot pcs[WS_CODEC_PC_SLOTS];
  ws_codec_slot ops[WS_CODEC_OP_SLOTS];
  ws_codec_slot uops[WS_CODEC_UOP_SLOTS];
} ws_codec_state;

typedef struct ws_codec_enc {
  ws_codec_state st;
  ws_bytes cols[WS_CODEC_COL_COUNT];
  uint32_t events;
  uint64_t min_begin, max_begin;
} ws_codec_enc;

/* ---- encoding ---------------------------------------------------------------- */

void ws_codec_enc_init(ws_codec_enc *e);
void ws_codec_enc_free(ws_codec_enc *e);
/* Appends one event (its kind below WS_PEV_COUNT); false: out of memory. */
bool ws_codec_enc_add(ws_codec_enc *e, const ws_probe_event *ev);
/* The chunk's raw bytes into *out (grown as needed), then an empty chunk
 * begins; false: out of memory. */
bool ws_codec_enc_finish(ws_codec_enc *e, ws_bytes *out);

/* ---- decoding ---------------------------------------------------------------- */

typedef struct ws_codec_dec {
  ws_codec_state st;
  const uint8_t *pos[WS_CODEC_COL_COUNT], *end[WS_CODEC_COL_COUNT];
} ws_codec_dec;

/* Splits raw bytes into columns; false when the column sizes do not add up
 * to raw_bytes. The bytes must outlive the decoder's use. */
bool ws_codec_dec_init(ws_codec_dec *d, const uint8_t *raw, size_t raw_bytes);
/* The next event; WS_CODEC_COL_COUNT on success, else the column that ran
 * out or holds a bad value (a kind past WS_PEV_COUNT, an over-long varint). */
ws_codec_col ws_codec_dec_next(ws_codec_dec *d, ws_probe_event *ev);
/* Every column consumed: WS_CODEC_COL_COUNT, else the first with bytes left. */
ws_codec_col ws_codec_dec_leftover(const ws_codec_dec *d);
const char *ws_codec_col_name(ws_codec_col c);

#endif
