/* bytes.c - the growable byte buffer of bytes.h. */
#include "base/bytes.h"

#include <stdlib.h>
#include <string.h>

/* The first growth of a buffer that asked for little. */
#define MIN_CAP_BYTES 256u

bool ws_bytes_grow(ws_bytes *b, size_t more) {
  if (b->failed) return false;
  if (more > SIZE_MAX - b->len) return b->failed = true, false;
  size_t need = b->len + more, cap = b->cap ? b->cap : MIN_CAP_BYTES;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
  uint8_t *grown = realloc(b->data, cap);
  if (!grown) return b->failed = true, false;
  b->data = grown;
  b->cap = cap;
  return true;
}

bool ws_bytes_append(ws_bytes *b, const void *data, size_t n) {
  if (!ws_bytes_reserve(b, n)) return false;
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
  return true;
}

bool ws_bytes_append_le16(ws_bytes *b, uint16_t v) {
  uint8_t p[2];
  ws_bytes_put_le16(p, v);
  return ws_bytes_append(b, p, sizeof p);
}

bool ws_bytes_append_le32(ws_bytes *b, uint32_t v) {
  uint8_t p[4];
  ws_bytes_put_le32(p, v);
  return ws_bytes_append(b, p, sizeof p);
}

bool ws_bytes_append_le64(ws_bytes *b, uint64_t v) {
  uint8_t p[8];
  ws_bytes_put_le64(p, v);
  return ws_bytes_append(b, p, sizeof p);
}

void ws_bytes_free(ws_bytes *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}
