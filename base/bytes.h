/* bytes.h - little-endian fields and a growable byte buffer: what every
 * binary format of the project (object files, traces, safetensors, image
 * headers, CTA snapshots, PNG in memory) writes and reads.
 *
 * Design: fields are assembled byte by byte, so a file means the same on
 * every host whatever its byte order. Running out of memory in a buffer is
 * sticky, as in ws_text: after a failed growth every append is a no-op and
 * `failed` stays set, so a writer of many fields checks once at the end.
 * The room check is inline (an encoder asks for room per record); only the
 * growth is a call. */
#ifndef WS_BYTES_H
#define WS_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint16_t ws_bytes_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ws_bytes_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ws_bytes_le64(const uint8_t *p) {
  return ws_bytes_le32(p) | (uint64_t)ws_bytes_le32(p + 4) << 32;
}
static inline void ws_bytes_put_le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void ws_bytes_put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ws_bytes_put_le64(uint8_t *p, uint64_t v) {
  ws_bytes_put_le32(p, (uint32_t)v);
  ws_bytes_put_le32(p + 4, (uint32_t)(v >> 32));
}

typedef struct ws_bytes {
  uint8_t *data;
  size_t len, cap;
  bool failed;
} ws_bytes;

/* Grows the buffer to hold `more` bytes past len (at least doubling);
 * false, and `failed` set, when memory ran out. */
bool ws_bytes_grow(ws_bytes *b, size_t more);
static inline bool ws_bytes_reserve(ws_bytes *b, size_t more) {
  if (b->failed) return false;
  return b->cap - b->len >= more || ws_bytes_grow(b, more);
}
bool ws_bytes_append(ws_bytes *b, const void *data, size_t n);
bool ws_bytes_append_le16(ws_bytes *b, uint16_t v);
bool ws_bytes_append_le32(ws_bytes *b, uint32_t v);
bool ws_bytes_append_le64(ws_bytes *b, uint64_t v);
/* Frees the data; the buffer is empty and reusable. */
void ws_bytes_free(ws_bytes *b);

#endif
