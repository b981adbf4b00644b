/* fuzz_wst.c - libFuzzer target for the .wst reader: any bytes open to a
 * trace or to an error naming the input, and every event of every chunk
 * decodes or is refused with a message naming the chunk, never a crash, a
 * leak or an allocation the input did not earn.
 *
 * Each input is read three ways: as it is; resealed (every block's CRC-32s
 * and the header's recomputed, as tests/fuzz/fuzz_objfile.c does for .wso),
 * since otherwise nearly every mutation stops at a checksum and the
 * decompression, the column decoder and the table checks behind it would go
 * unfuzzed; and as the raw bytes of one chunk given straight to the column
 * decoder. The checksums themselves are covered by tests/traces/test_wst.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/block.h"
#include "traces/codec.h"
#include "traces/journey.h"
#include "traces/wst.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define NAME "fuzz.wst"

static void refused(ws_ctx *ctx, ws_status st, const char *what) {
  const char *msg = ws_errmsg(ctx);
  if (st == WS_ERR_INVALID && strncmp(msg, NAME ": ", strlen(NAME) + 2) == 0) return;
  if (st == WS_ERR_NOMEM) return;
  fprintf(stderr, "%s: status %d, message '%s'\n", what, (int)st, msg);
  abort();
}

/* Every event through a cursor, going on past damaged chunks. */
/* What the reader promises of the named ranges, whatever the bytes. */
static void check_regions(const ws_wst_reader *r) {
  size_t n = 0;
  const ws_runtime_region *g = ws_wst_regions(r, &n);
  if (n > WS_WST_MAX_REGIONS || (n && !g)) abort();
  for (size_t i = 0; i < n; i++) {
    size_t len = strnlen(g[i].name, WS_RUNTIME_NAME_MAX);
    if (len == 0 || len == WS_RUNTIME_NAME_MAX || (unsigned)g[i].tensor >= WS_RUNTIME_TENSOR_COUNT) abort();
    if (g[i].size_bytes == 0 || (i && g[i - 1].addr + g[i - 1].size_bytes > g[i].addr)) abort();
  }
}

static void drain(ws_ctx *ctx, ws_wst_cursor *c, uint64_t max_events) {
  for (uint64_t n = 0;;) {
    ws_probe_event ev;
    uint32_t launch;
    bool got;
    ws_status st = ws_wst_cursor_next(c, &ev, &launch, &got);
    if (st != WS_OK) {
      refused(ctx, st, "cursor");
      continue;
    }
    if (!got) return;
    if (n++ >= max_events || ev.kind >= WS_PEV_COUNT) abort();
  }
}

static void read_all(ws_ctx *ctx, const uint8_t *data, size_t size) {
  ws_wst_reader *r = NULL;
  ws_status st = ws_wst_open_memory(ctx, data, size, NAME, &r);
  if (st != WS_OK) {
    refused(ctx, st, "open");
    return;
  }
  uint64_t events = 0;
  for (size_t i = 0; i < ws_wst_chunk_count(r); i++) events += ws_wst_chunk(r, i)->events;
  ws_wst_cursor *c = NULL;
  if (ws_wst_cursor_open(r, &c) == WS_OK) drain(ctx, c, events);
  ws_wst_cursor_close(c);
  for (size_t i = 0; i < ws_wst_launch_count(r) && i < 4; i++) {
    const ws_wst_launch_info *l = ws_wst_launch(r, i);
    if (l->kernel != WS_WST_NO_KERNEL && !ws_wst_kernel(r, l->kernel)) abort();
    if (ws_wst_cursor_open_launch(r, (uint32_t)i, 10, 1000, &c) == WS_OK) drain(ctx, c, events);
    ws_wst_cursor_close(c);
  }
  size_t n = 0;
  const char *const *names = ws_wst_names(r, &n);
  for (size_t i = 0; i < n; i++)
    if (!names[i]) abort();
  ws_wst_timeline(r, &n);
  ws_wst_journey(r, &n);
  check_regions(r);
  ws_gpu_cfg cfg;
  st = ws_wst_config(r, &cfg);
  if (st != WS_OK && st != WS_ERR_INVALID) abort();
  ws_wst_close(r);
}

/* Recomputes the header's and every block's CRC-32s, walking the blocks
 * as the reader's fallback does. */
static void reseal(uint8_t *p, size_t size) {
  if (size < WS_BLOCK_FILE_HEADER_BYTES) return;
  for (size_t at = WS_BLOCK_FILE_HEADER_BYTES; size - at >= WS_BLOCK_HEADER_BYTES;) {
    uint8_t *h = p + at;
    if (memcmp(h, "WS", 2) != 0) break;
    uint32_t stored = ws_bytes_le32(h + 20);
    if (stored > size - at - WS_BLOCK_HEADER_BYTES) break;
    ws_bytes_put_le32(h + 40, ws_block_crc(h + WS_BLOCK_HEADER_BYTES, stored));
    ws_bytes_put_le32(h + 44, ws_block_crc(h, 44));
    at += WS_BLOCK_HEADER_BYTES + stored;
  }
  ws_bytes_put_le32(p + 60, ws_block_crc(p, 60));
}

/* The bytes as one chunk's columns. */
static void decode_columns(const uint8_t *data, size_t size) {
  static ws_codec_dec dec;
  if (!ws_codec_dec_init(&dec, data, size)) return;
  ws_probe_event ev;
  for (int i = 0; i < 4096 && ws_codec_dec_next(&dec, &ev) == WS_CODEC_COL_COUNT; i++)
    if (ev.kind >= WS_PEV_COUNT) abort();
  ws_codec_dec_leftover(&dec);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  read_all(ctx, data, size);
  uint8_t *copy = malloc(size ? size : 1);
  if (copy) {
    if (size) memcpy(copy, data, size);
    reseal(copy, size);
    read_all(ctx, copy, size);
    free(copy);
  }
  decode_columns(data, size);
  /* the journey a trace stores is text the visualizer parses */
  ws_journey_hop *hops = NULL;
  size_t nhops = 0;
  ws_journey_reach *reach = NULL;
  size_t nreach = 0;
  ws_status st = ws_journey_from_text(ctx, (const char *)data, size, &hops, &nhops, &reach, &nreach);
  for (size_t i = 0; st == WS_OK && i < nreach; i++)
    if (reach[i].reached > reach[i].total || !memchr(reach[i].layer, 0, sizeof reach[i].layer)) abort();
  free(reach);
  if (st != WS_OK && st != WS_ERR_INVALID && st != WS_ERR_NOMEM) abort();
  if (st == WS_OK) {
    for (size_t i = 0; i < nhops; i++)
      if (hops[i].level >= WS_JOURNEY_LEVEL_COUNT || !memchr(hops[i].component, 0, sizeof hops[i].component))
        abort();
  }
  free(hops);
  ws_ctx_destroy(ctx);
  return 0;
}
