/* block.h - the framing of a .wst file: its 64-byte header, the 48-byte
 * header every block after it carries, and the little-endian fields and
 * CRC-32s both are made of.
 *
 * Design: every block says what it is, how long it is and what its bytes'
 * CRC-32 is, and its header has a CRC-32 of its own, so a reader that has
 * lost the index (a truncated or damaged file) can walk the blocks from the
 * start and trust each header it accepts; docs/traces.md draws the layout. */
#ifndef WS_BLOCK_H
#define WS_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

#define WS_BLOCK_FILE_HEADER_BYTES 64u
#define WS_BLOCK_HEADER_BYTES 48u
/* 8 bytes, as PNG's: a non-ASCII first byte, and line ends a text-mode
 * copy would change */
#define WS_BLOCK_FILE_MAGIC "\x89WST\r\n\x1a\n"

typedef enum ws_block_kind {
  WS_BLOCK_CONFIG, /* "WSCF": the resolved GPU config as INI text */
  WS_BLOCK_CHUNK,  /* "WSCK": up to WS_WST_CHUNK_EVENTS events of one launch, columns (codec.h), zstd */
  WS_BLOCK_LAUNCH, /* "WSLN": one launch's record, written when it ends */
  WS_BLOCK_META,   /* "WSMT": kernels, launches, names, timeline, journey, counts; zstd */
  WS_BLOCK_INDEX,  /* "WSIX": one entry per chunk */
  WS_BLOCK_KIND_COUNT
} ws_block_kind;

typedef enum ws_block_codec { WS_BLOCK_RAW, WS_BLOCK_ZSTD, WS_BLOCK_CODEC_COUNT } ws_block_codec;

typedef struct ws_block_header {
  ws_block_kind kind;
  uint32_t launch;               /* chunks, launch records */
  uint32_t count;                /* chunks: events; index: entries */
  ws_block_codec codec;          /* how the payload is stored */
  uint32_t raw_bytes;            /* the payload once decompressed */
  uint32_t stored_bytes;         /* the payload as it follows the header */
  uint64_t min_begin, max_begin; /* chunks: the range of the events' begin */
  uint32_t payload_crc;          /* CRC-32 of the stored payload */
} ws_block_header;

typedef struct ws_block_file_header {
  uint32_t version;
  uint64_t file_bytes;   /* 0: never committed */
  uint64_t meta_offset;  /* of the META block's header */
  uint64_t index_offset; /* of the INDEX block's header */
  uint32_t chunks, launches;
  uint64_t events;
} ws_block_file_header;

uint32_t ws_block_crc(const void *data, size_t n);
const char *ws_block_kind_name(ws_block_kind k);

void ws_block_pack(const ws_block_header *h, uint8_t out[WS_BLOCK_HEADER_BYTES]);
/* false with what was expected and found in why[] (header CRC, magic,
 * codec) */
bool ws_block_unpack(const uint8_t in[WS_BLOCK_HEADER_BYTES], ws_block_header *h, char *why,
                     size_t why_bytes);

void ws_block_pack_file(const ws_block_file_header *h, uint8_t out[WS_BLOCK_FILE_HEADER_BYTES]);
/* Checks the magic and the header CRC (version is read first, so a newer
 * file is named as such whatever its layout); *offset gets where the
 * trouble is. */
typedef enum ws_block_verdict { WS_BLOCK_OK, WS_BLOCK_NOT_WST, WS_BLOCK_BAD_CRC } ws_block_verdict;
ws_block_verdict ws_block_unpack_file(const uint8_t in[WS_BLOCK_FILE_HEADER_BYTES], ws_block_file_header *h,
                                      char *why, size_t why_bytes);

/* A bounded reader over a payload: every get past the end sets `bad` and
 * yields zero or empty, so a parser checks once at the end. */
typedef struct ws_block_rd {
  const uint8_t *p, *end;
  bool bad;
} ws_block_rd;

uint32_t ws_block_rd32(ws_block_rd *r);
uint64_t ws_block_rd64(ws_block_rd *r);
/* `n` bytes in place; NULL (and bad) when fewer remain. */
const uint8_t *ws_block_rdbytes(ws_block_rd *r, size_t n);
/* A u32-length-prefixed string of at most max_bytes, copied with a NUL into
 * dst (malloc'd); NULL and bad when malformed (too long, an inner NUL). */
char *ws_block_rdstr(ws_block_rd *r, size_t max_bytes);
size_t ws_block_rdleft(const ws_block_rd *r);

#endif
