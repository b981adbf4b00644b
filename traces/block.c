/* block.c - packing and checking the .wst file header and block headers. */
#include "traces/block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char block_magic[WS_BLOCK_KIND_COUNT][5] = {"WSCF", "WSCK", "WSLN", "WSMT", "WSIX"};
static const char *const block_names[WS_BLOCK_KIND_COUNT] = {"config", "chunk", "launch record", "metadata",
                                                             "index"};

uint32_t ws_block_crc(const void *data, size_t n) {
  return (uint32_t)crc32_z(crc32_z(0, Z_NULL, 0), (const Bytef *)data, n);
}

const char *ws_block_kind_name(ws_block_kind k) { return k < WS_BLOCK_KIND_COUNT ? block_names[k] : "?"; }

/* Block header: magic[4] launch count codec raw_bytes stored_bytes (u32),
 * min_begin max_begin (u64), payload_crc header_crc (u32). */
void ws_block_pack(const ws_block_header *h, uint8_t out[WS_BLOCK_HEADER_BYTES]) {
  memcpy(out, block_magic[h->kind], 4);
  ws_bytes_put_le32(out + 4, h->launch);
  ws_bytes_put_le32(out + 8, h->count);
  ws_bytes_put_le32(out + 12, h->codec);
  ws_bytes_put_le32(out + 16, h->raw_bytes);
  ws_bytes_put_le32(out + 20, h->stored_bytes);
  ws_bytes_put_le64(out + 24, h->min_begin);
  ws_bytes_put_le64(out + 32, h->max_begin);
  ws_bytes_put_le32(out + 40, h->payload_crc);
  ws_bytes_put_le32(out + 44, ws_block_crc(out, 44));
}

/* Bytes as a reader can see them: printable ASCII as is, the rest \xNN. */
static void show(char *dst, size_t dst_bytes, const uint8_t *p, size_t n) {
  size_t at = 0;
  dst[0] = '\0';
  for (size_t i = 0; i < n && at + 5 < dst_bytes; i++)
    at += (size_t)snprintf(dst + at, dst_bytes - at, p[i] >= 0x20 && p[i] < 0x7f ? "%c" : "\\x%02x", p[i]);
}

bool ws_block_unpack(const uint8_t in[WS_BLOCK_HEADER_BYTES], ws_block_header *h, char *why,
                     size_t why_bytes) {
  uint32_t want = ws_bytes_le32(in + 44), got = ws_block_crc(in, 44);
  int kind = -1;
  for (int k = 0; k < WS_BLOCK_KIND_COUNT; k++)
    if (memcmp(in, block_magic[k], 4) == 0) kind = k;
  if (kind < 0) {
    char seen[24];
    show(seen, sizeof seen, in, 4);
    snprintf(why, why_bytes, "a block header (WSCK, WSLN, WSMT, ...) expected, '%s' found", seen);
    return false;
  }
  if (want != got) {
    snprintf(why, why_bytes, "%s header: CRC-32 0x%08x expected, 0x%08x found", block_names[kind], want, got);
    return false;
  }
  memset(h, 0, sizeof *h);
  h->kind = (ws_block_kind)kind;
  h->launch = ws_bytes_le32(in + 4);
  h->count = ws_bytes_le32(in + 8);
  uint32_t codec = ws_bytes_le32(in + 12);
  h->raw_bytes = ws_bytes_le32(in + 16);
  h->stored_bytes = ws_bytes_le32(in + 20);
  h->min_begin = ws_bytes_le64(in + 24);
  h->max_begin = ws_bytes_le64(in + 32);
  h->payload_crc = ws_bytes_le32(in + 40);
  if (codec >= WS_BLOCK_CODEC_COUNT) {
    snprintf(why, why_bytes, "%s header: codec 0 (raw) or 1 (zstd) expected, %u found", block_names[kind],
             codec);
    return false;
  }
  h->codec = (ws_block_codec)codec;
  if (codec == WS_BLOCK_RAW && h->raw_bytes != h->stored_bytes) {
    snprintf(why, why_bytes, "%s header: a raw payload of %u bytes stored in %u", block_names[kind],
             h->raw_bytes, h->stored_bytes);
    return false;
  }
  return true;
}

/* File header: magic[8] version header_bytes (u32) file_bytes meta_offset
 * index_offset (u64) chunks launches (u32) events (u64) reserved crc (u32). */
void ws_block_pack_file(const ws_block_file_header *h, uint8_t out[WS_BLOCK_FILE_HEADER_BYTES]) {
  memset(out, 0, WS_BLOCK_FILE_HEADER_BYTES);
  memcpy(out, WS_BLOCK_FILE_MAGIC, 8);
  ws_bytes_put_le32(out + 8, h->version);
  ws_bytes_put_le32(out + 12, WS_BLOCK_FILE_HEADER_BYTES);
  ws_bytes_put_le64(out + 16, h->file_bytes);
  ws_bytes_put_le64(out + 24, h->meta_offset);
  ws_bytes_put_le64(out + 32, h->index_offset);
  ws_bytes_put_le32(out + 40, h->chunks);
  ws_bytes_put_le32(out + 44, h->launches);
  ws_bytes_put_le64(out + 48, h->events);
  ws_bytes_put_le32(out + 60, ws_block_crc(out, 60));
}

ws_block_verdict ws_block_unpack_file(const uint8_t in[WS_BLOCK_FILE_HEADER_BYTES], ws_block_file_header *h,
                                      char *why, size_t why_bytes) {
  memset(h, 0, sizeof *h);
  if (memcmp(in, WS_BLOCK_FILE_MAGIC, 8) != 0) {
    char seen[40];
    show(seen, sizeof seen, in, 8);
    snprintf(why, why_bytes, "byte 0: the .wst magic \\x89WST\\r\\n\\x1a\\n expected, '%s' found", seen);
    return WS_BLOCK_NOT_WST;
  }
  h->version = ws_bytes_le32(in + 8);
  uint32_t want = ws_bytes_le32(in + 60), got = ws_block_crc(in, 60);
  if (want != got) {
    snprintf(why, why_bytes, "byte 60: header CRC-32 0x%08x expected, 0x%08x found", want, got);
    return WS_BLOCK_BAD_CRC;
  }
  if (ws_bytes_le32(in + 12) != WS_BLOCK_FILE_HEADER_BYTES) {
    snprintf(why, why_bytes, "byte 12: header size %u expected, %u found", WS_BLOCK_FILE_HEADER_BYTES,
             ws_bytes_le32(in + 12));
    return WS_BLOCK_BAD_CRC;
  }
  h->file_bytes = ws_bytes_le64(in + 16);
  h->meta_offset = ws_bytes_le64(in + 24);
  h->index_offset = ws_bytes_le64(in + 32);
  h->chunks = ws_bytes_le32(in + 40);
  h->launches = ws_bytes_le32(in + 44);
  h->events = ws_bytes_le64(in + 48);
  if (ws_bytes_le32(in + 56) != 0) {
    snprintf(why, why_bytes, "byte 56: a reserved word of 0 expected, %u found", ws_bytes_le32(in + 56));
    return WS_BLOCK_BAD_CRC;
  }
  return WS_BLOCK_OK;
}

/* ---- the bounded reader ---------------------------------------------------------- */

size_t ws_block_rdleft(const ws_block_rd *r) { return r->bad ? 0 : (size_t)(r->end - r->p); }

const uint8_t *ws_block_rdbytes(ws_block_rd *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = true;
    return NULL;
  }
  const uint8_t *at = r->p;
  r->p += n;
  return at;
}

uint32_t ws_block_rd32(ws_block_rd *r) {
  const uint8_t *p = ws_block_rdbytes(r, 4);
  return p ? ws_bytes_le32(p) : 0;
}

uint64_t ws_block_rd64(ws_block_rd *r) {
  const uint8_t *p = ws_block_rdbytes(r, 8);
  return p ? ws_bytes_le64(p) : 0;
}

char *ws_block_rdstr(ws_block_rd *r, size_t max_bytes) {
  uint32_t n = ws_block_rd32(r);
  if (n > max_bytes) r->bad = true;
  const uint8_t *p = r->bad ? NULL : ws_block_rdbytes(r, n);
  if (!p || memchr(p, '\0', n)) {
    r->bad = true;
    return NULL;
  }
  char *s = malloc((size_t)n + 1);
  if (!s) {
    r->bad = true;
    return NULL;
  }
  memcpy(s, p, n);
  s[n] = '\0';
  return s;
}
