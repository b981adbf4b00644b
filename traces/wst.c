/* wst.c - the .wst writer (a probe) and reader.
 *
 * The writer encodes each event into the current chunk as it arrives and
 * writes the chunk when it is full or its launch ends, so it holds one
 * chunk, the tables (kernels, launches, one index entry per chunk) and what
 * the owner hands it, never the trace. The first error a callback meets is
 * kept, everything after it is skipped, and commit reports it.
 *
 * The reader trusts nothing it reads: every size is checked against the
 * file's size and a cap before anything is allocated, every table against
 * the others, and a chunk's CRC-32 before its bytes are decompressed into a
 * buffer of the size its header declares (itself capped). When the header,
 * the metadata or the index is unusable, it walks the blocks from the
 * start instead and keeps what it passed. */
#include "traces/wst.h"

#include "isa/asm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "base/file.h"
#include "base/text.h"
#include "sim/common/occupancy.h"
#include "traces/block.h"
#include "traces/codec.h"

#define ZSTD_LEVEL 3
#define CHUNK_MAX_RAW_BYTES (WS_CODEC_TABLE_BYTES + (size_t)WS_WST_CHUNK_EVENTS * WS_CODEC_MAX_EVENT_BYTES)
#define LAUNCH_RECORD_BYTES                                                                                  \
  68u /* kernel grid[3] block[3] ctas (u32), cycles seen events (u64), chunks flags */
#define INDEX_ENTRY_BYTES 32u
#define LAUNCH_BLOCK_MAX_BYTES 65536u
#define NAME_MAX_BYTES 4096u /* kernel and stall-reason names */

/* Grows *p (of *cap elements of `size` bytes) to hold n + 1; false: no memory. */
static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t cap2 = *cap ? 2 * *cap : 8;
  void *q = realloc(*p, cap2 * size);
  if (!q) return false;
  *p = q;
  *cap = cap2;
  return true;
}

static void putstr(ws_bytes *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  ws_bytes_append_le32(b, (uint32_t)n);
  ws_bytes_append(b, s, n);
}

static void put_launch(ws_bytes *b, const ws_wst_launch_info *l) {
  ws_bytes_append_le32(b, l->kernel);
  for (int i = 0; i < 3; i++) ws_bytes_append_le32(b, l->grid[i]);
  for (int i = 0; i < 3; i++) ws_bytes_append_le32(b, l->block[i]);
  ws_bytes_append_le32(b, l->ctas_per_sm);
  ws_bytes_append_le64(b, l->cycles);
  ws_bytes_append_le64(b, l->events_seen);
  ws_bytes_append_le64(b, l->events);
  ws_bytes_append_le32(b, l->first_chunk);
  ws_bytes_append_le32(b, l->chunk_count);
  ws_bytes_append_le32(b, l->flags);
}

static void get_launch(ws_block_rd *rd, ws_wst_launch_info *l) {
  l->kernel = ws_block_rd32(rd);
  for (int i = 0; i < 3; i++) l->grid[i] = ws_block_rd32(rd);
  for (int i = 0; i < 3; i++) l->block[i] = ws_block_rd32(rd);
  l->ctas_per_sm = ws_block_rd32(rd);
  l->cycles = ws_block_rd64(rd);
  l->events_seen = ws_block_rd64(rd);
  l->events = ws_block_rd64(rd);
  l->first_chunk = ws_block_rd32(rd);
  l->chunk_count = ws_block_rd32(rd);
  l->flags = ws_block_rd32(rd);
}

/* ==== the writer ================================================================ */

typedef struct wkernel {
  const void *identity; /* never written: pointers are not deterministic */
  char *name, *source;
  uint32_t regs, shared;
} wkernel;

typedef struct wsource {
  const void *identity;
  char *text;
} wsource;

struct ws_wst_writer {
  ws_ctx *ctx;
  char *path;
  ws_file_stream *out;
  FILE *f;
  uint64_t pos;
  ws_status err; /* the first error, kept for commit */
  char errmsg[WS_ERRMSG_MAX_BYTES];
  bool committed;
  ws_probe probe;
  /* the filter */
  char **keep_kernels;
  size_t keep_kernel_count;
  uint8_t *sm_set; /* a bit per SM number; NULL: every SM */
  uint64_t cycle_begin, cycle_end;
  bool follow_only;
  /* the chunk being filled */
  ws_codec_enc enc;
  ws_bytes raw, packed;
  ZSTD_CCtx *zc;
  /* the tables */
  ws_wst_chunk_info *chunks;
  size_t nchunks, chunks_cap;
  wkernel *kernels;
  size_t nkernels, kernels_cap;
  ws_wst_launch_info *launches;
  size_t nlaunches, launches_cap;
  bool in_launch, launch_dropped;
  wsource *sources;
  size_t nsources, sources_cap;
  char **names;
  size_t nnames;
  ws_bytes timeline;
  size_t ntimeline;
  ws_bytes journey;
  ws_bytes regions;
  size_t nregions;
  ws_wst_counts counts;
  bool disassemble; /* kernels without a source get their disassembly */
};

__attribute__((format(printf, 3, 4))) static void fail(ws_wst_writer *w, ws_status st, const char *fmt, ...) {
  if (w->err != WS_OK) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->errmsg, sizeof w->errmsg, fmt, ap);
  va_end(ap);
  w->err = st;
}

static void fail_nomem(ws_wst_writer *w) {
  fail(w, WS_ERR_NOMEM, "out of memory writing trace '%s'", w->path);
}

static void write_bytes(ws_wst_writer *w, const void *data, size_t n) {
  if (w->err != WS_OK) return;
  if (n && fwrite(data, 1, n, w->f) != n)
    fail(w, WS_ERR_IO, "cannot write '%s': %s", w->path, strerror(errno));
  w->pos += n;
}

/* One block: its header, then the payload, compressed when `zstd` and that
 * is smaller. */
static void write_block(ws_wst_writer *w, ws_block_header h, const uint8_t *raw, size_t raw_bytes,
                        bool zstd) {
  if (w->err != WS_OK) return;
  if (raw_bytes > UINT32_MAX) {
    fail(w, WS_ERR_LIMIT, "trace '%s': a block over 4 GiB", w->path);
    return;
  }
  const uint8_t *stored = raw;
  size_t stored_bytes = raw_bytes;
  h.codec = WS_BLOCK_RAW;
  if (zstd) {
    size_t bound = ZSTD_compressBound(raw_bytes);
    w->packed.len = 0;
    if (!ws_bytes_reserve(&w->packed, bound)) {
      fail_nomem(w);
      return;
    }
    size_t n = ZSTD_compressCCtx(w->zc, w->packed.data, bound, raw, raw_bytes, ZSTD_LEVEL);
    if (ZSTD_isError(n)) {
      fail(w, WS_ERR_IO, "trace '%s': zstd: %s", w->path, ZSTD_getErrorName(n));
      return;
    }
    if (n < raw_bytes) stored = w->packed.data, stored_bytes = n, h.codec = WS_BLOCK_ZSTD;
  }
  h.raw_bytes = (uint32_t)raw_bytes;
  h.stored_bytes = (uint32_t)stored_bytes;
  h.payload_crc = ws_block_crc(stored, stored_bytes);
  uint8_t head[WS_BLOCK_HEADER_BYTES];
  ws_block_pack(&h, head);
  write_bytes(w, head, sizeof head);
  write_bytes(w, stored, stored_bytes);
}

static uint32_t current_launch(const ws_wst_writer *w) {
  return w->in_launch ? (uint32_t)(w->nlaunches - 1) : WS_WST_NO_LAUNCH;
}

static void flush_chunk(ws_wst_writer *w) {
  ws_codec_enc *e = &w->enc;
  if (e->events == 0 || w->err != WS_OK) return;
  if (!grow((void **)&w->chunks, &w->chunks_cap, w->nchunks, sizeof *w->chunks)) {
    fail_nomem(w);
    return;
  }
  ws_wst_chunk_info c = {.offset = w->pos,
                         .launch = current_launch(w),
                         .events = e->events,
                         .min_begin = e->min_begin,
                         .max_begin = e->max_begin};
  if (!ws_codec_enc_finish(e, &w->raw)) {
    fail_nomem(w);
    return;
  }
  ws_block_header h = {.kind = WS_BLOCK_CHUNK,
                       .launch = c.launch,
                       .count = c.events,
                       .min_begin = c.min_begin,
                       .max_begin = c.max_begin};
  write_block(w, h, w->raw.data, w->raw.len, true);
  w->chunks[w->nchunks++] = c;
}

/* ---- the probe's callbacks ----------------------------------------------------- */

static bool kernel_kept(const ws_wst_writer *w, const char *name) {
  if (!w->keep_kernels) return true;
  for (size_t i = 0; i < w->keep_kernel_count; i++)
    if (strcmp(w->keep_kernels[i], name) == 0) return true;
  return false;
}

static const char *source_of(const ws_wst_writer *w, const void *identity) {
  for (size_t i = 0; i < w->nsources; i++)
    if (w->sources[i].identity == identity) return w->sources[i].text;
  return NULL;
}

/* The text of a kernel its owner gave none for: its canonical assembly,
 * which assembles back to the same program (docs/isa.md). */
static char *disassembly(const ws_wst_writer *w, const ws_probe_launch *l) {
  if (!w->disassemble || !l->kernel) return NULL;
  ws_program p = {(ws_kernel *)l->kernel, 1};
  return ws_disasm_program(&p);
}

/* Whether entry k is the kernel `l` launches: the same pointer and name,
 * and, since a freed kernel's address is reused by the next one built, the
 * same registers, shared bytes and text. */
static bool same_kernel(const ws_wst_writer *w, const wkernel *k, const ws_probe_launch *l, const char *name,
                        const char *text) {
  if (k->identity != l->kernel || strcmp(k->name, name) != 0) return false;
  if (k->regs != l->regs_per_thread || k->shared != l->shared_bytes) return false;
  const char *src = k->source ? k->source : source_of(w, k->identity);
  return !text || !src || strcmp(src, text) == 0;
}

/* The kernel table's entry for the launch, added when new. */
static uint32_t kernel_index(ws_wst_writer *w, const ws_probe_launch *l, const char *name) {
  const char *src = source_of(w, l->kernel);
  char *text = src ? NULL : disassembly(w, l);
  if (!src && !text && w->disassemble) {
    fail_nomem(w);
    return WS_WST_NO_KERNEL;
  }
  for (size_t i = 0; i < w->nkernels; i++)
    if (same_kernel(w, &w->kernels[i], l, name, src ? src : text)) {
      free(text);
      return (uint32_t)i;
    }
  wkernel k = {.identity = l->kernel,
               .name = strdup(name),
               .source = src ? strdup(src) : text,
               .regs = l->regs_per_thread,
               .shared = l->shared_bytes};
  if (!k.name || (src && !k.source) ||
      !grow((void **)&w->kernels, &w->kernels_cap, w->nkernels, sizeof *w->kernels)) {
    free(k.name);
    free(k.source);
    fail_nomem(w);
    return WS_WST_NO_KERNEL;
  }
  w->kernels[w->nkernels] = k;
  return (uint32_t)w->nkernels++;
}

/* The launch's record, as a LAUNCH block a reader can recover it from. */
static void end_launch(ws_wst_writer *w, uint64_t cycles, bool finished) {
  flush_chunk(w);
  ws_wst_launch_info *l = &w->launches[w->nlaunches - 1];
  l->cycles = cycles;
  l->chunk_count = (uint32_t)(w->nchunks - l->first_chunk);
  if (!finished) l->flags |= WS_WST_LAUNCH_UNFINISHED;
  const wkernel *k = &w->kernels[l->kernel];
  ws_bytes b = {0};
  put_launch(&b, l);
  putstr(&b, k->name);
  ws_bytes_append_le32(&b, k->regs);
  ws_bytes_append_le32(&b, k->shared);
  if (b.failed) fail_nomem(w);
  ws_block_header h = {.kind = WS_BLOCK_LAUNCH, .launch = (uint32_t)(w->nlaunches - 1)};
  write_block(w, h, b.data, b.len, false);
  ws_bytes_free(&b);
  w->in_launch = false;
}

static void on_launch_begin(void *user, const ws_probe_launch *pl) {
  ws_wst_writer *w = user;
  if (w->err != WS_OK) return;
  if (w->in_launch) end_launch(w, 0, false);
  flush_chunk(w);
  const char *name = pl->kernel_name ? pl->kernel_name : "";
  if (strlen(name) > NAME_MAX_BYTES) {
    fail(w, WS_ERR_LIMIT, "trace '%s': a kernel name over %u bytes", w->path, NAME_MAX_BYTES);
    return;
  }
  uint32_t k = kernel_index(w, pl, name);
  if (w->err != WS_OK) return;
  if (w->nlaunches >= WS_WST_NO_LAUNCH - 1) {
    fail(w, WS_ERR_LIMIT, "trace '%s': too many launches", w->path);
    return;
  }
  if (!grow((void **)&w->launches, &w->launches_cap, w->nlaunches, sizeof *w->launches)) {
    fail_nomem(w);
    return;
  }
  ws_wst_launch_info l = {.kernel = k, .ctas_per_sm = pl->ctas_per_sm, .first_chunk = (uint32_t)w->nchunks};
  memcpy(l.grid, pl->grid, sizeof l.grid);
  memcpy(l.block, pl->block, sizeof l.block);
  w->launch_dropped = !kernel_kept(w, name);
  if (w->launch_dropped) l.flags |= WS_WST_LAUNCH_FILTERED;
  w->launches[w->nlaunches++] = l;
  w->in_launch = true;
}

static void on_launch_end(void *user, const ws_probe_launch *pl) {
  ws_wst_writer *w = user;
  if (w->err != WS_OK) return;
  if (!w->in_launch) {
    fail(w, WS_ERR_INVALID, "trace '%s': a launch ended that never began", w->path);
    return;
  }
  end_launch(w, pl->cycles, true);
}

static bool is_host(unsigned kind) { return kind == WS_PEV_HOST || kind == WS_PEV_PCIE; }

static bool keep(const ws_wst_writer *w, const ws_probe_event *ev) {
  if (w->in_launch && w->launch_dropped) return false;
  if (is_host(ev->kind) || ev->kind == WS_PEV_KERNEL) return true;
  if (w->follow_only && ev->kind != WS_PEV_CTA && !(ev->flags & WS_PROBE_TAGGED)) return false;
  if (w->sm_set && ev->sm != WS_PROBE_NONE && !(w->sm_set[ev->sm >> 3] & (1u << (ev->sm & 7)))) return false;
  return ev->begin >= w->cycle_begin && (w->cycle_end == 0 || ev->begin < w->cycle_end);
}

static void on_event(void *user, const ws_probe_event *ev) {
  ws_wst_writer *w = user;
  if (w->err != WS_OK) return;
  if (ev->kind >= WS_PEV_COUNT) {
    fail(w, WS_ERR_INVALID, "trace '%s': event kind %u unknown", w->path, ev->kind);
    return;
  }
  ws_wst_launch_info *l = w->in_launch ? &w->launches[w->nlaunches - 1] : NULL;
  w->counts.seen[ev->kind]++;
  if (l) l->events_seen++;
  if (!keep(w, ev)) return;
  w->counts.recorded[ev->kind]++;
  if (l) l->events++;
  if (w->enc.events == WS_WST_CHUNK_EVENTS) flush_chunk(w);
  if (w->err == WS_OK && !ws_codec_enc_add(&w->enc, ev)) fail_nomem(w);
}

/* ---- create / configure -------------------------------------------------------- */

static char *config_ini(const ws_gpu_cfg *cfg) {
  ws_text t;
  ws_text_init(&t);
  const char *section = "";
  for (size_t i = 0; i < ws_config_key_count(); i++) {
    const ws_cfg_key *k = ws_config_key(i);
    if (strcmp(k->section, section) != 0) {
      ws_text_printf(&t, "%s[%s]\n", *section ? "\n" : "", k->section);
      section = k->section;
    }
    char value[512];
    ws_config_format(cfg, k, value, sizeof value);
    ws_text_printf(&t, "%s = %s\n", k->key, value);
  }
  return ws_text_take(&t);
}

static ws_status copy_filter(ws_wst_writer *w, const ws_wst_filter *f) {
  if (!f) return WS_OK;
  w->cycle_begin = f->cycle_begin;
  w->cycle_end = f->cycle_end;
  w->follow_only = f->follow_only;
  if (f->kernel_count) {
    if (!(w->keep_kernels = calloc(f->kernel_count, sizeof *w->keep_kernels))) return WS_ERR_NOMEM;
    w->keep_kernel_count = f->kernel_count;
    for (size_t i = 0; i < f->kernel_count; i++)
      if (!(w->keep_kernels[i] = strdup(f->kernels[i] ? f->kernels[i] : ""))) return WS_ERR_NOMEM;
  }
  if (f->sm_count) {
    if (!(w->sm_set = calloc(65536 / 8, 1))) return WS_ERR_NOMEM;
    for (size_t i = 0; i < f->sm_count; i++)
      if (f->sms[i] < WS_PROBE_NONE) w->sm_set[f->sms[i] >> 3] |= (uint8_t)(1u << (f->sms[i] & 7));
  }
  return WS_OK;
}

ws_status ws_wst_writer_create(ws_ctx *ctx, const char *path, const ws_gpu_cfg *cfg,
                               const ws_wst_filter *filter, ws_wst_writer **out) {
  *out = NULL;
  ws_wst_writer *w = calloc(1, sizeof *w);
  if (!w) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for trace '%s'", path);
  w->ctx = ctx;
  ws_codec_enc_init(&w->enc);
  w->probe =
      (ws_probe){.user = w, .launch_begin = on_launch_begin, .launch_end = on_launch_end, .event = on_event};
  char *ini = NULL;
  if (!(w->path = strdup(path)) || !(w->zc = ZSTD_createCCtx()) || copy_filter(w, filter) != WS_OK ||
      !(ini = config_ini(cfg))) {
    ws_wst_writer_free(w);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for trace '%s'", path);
  }
  ws_status st = ws_file_stream_open(ctx, path, &w->out);
  if (st != WS_OK) {
    free(ini);
    ws_wst_writer_free(w);
    return st;
  }
  w->f = ws_file_stream_fp(w->out);
  /* the header is written again at commit; a file cut short reads as uncommitted */
  uint8_t head[WS_BLOCK_FILE_HEADER_BYTES];
  ws_block_pack_file(&(ws_block_file_header){.version = WS_WST_VERSION}, head);
  write_bytes(w, head, sizeof head);
  write_block(w, (ws_block_header){.kind = WS_BLOCK_CONFIG}, (const uint8_t *)ini, strlen(ini), false);
  free(ini);
  if (w->err != WS_OK) {
    st = ws_ctx_fail(ctx, w->err, "%s", w->errmsg);
    ws_wst_writer_free(w);
    return st;
  }
  *out = w;
  return WS_OK;
}

const ws_probe *ws_wst_writer_probe(ws_wst_writer *w) { return &w->probe; }
const ws_wst_counts *ws_wst_writer_counts(const ws_wst_writer *w) { return &w->counts; }

static ws_status nomem(ws_wst_writer *w) {
  return ws_ctx_fail(w->ctx, WS_ERR_NOMEM, "out of memory for trace '%s'", w->path);
}

ws_status ws_wst_writer_set_names(ws_wst_writer *w, const char *const *names, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (names[i] && strlen(names[i]) > NAME_MAX_BYTES)
      return ws_ctx_fail(w->ctx, WS_ERR_LIMIT, "trace '%s': name %zu is over %u bytes", w->path, i,
                         NAME_MAX_BYTES);
  char **copy = calloc(count ? count : 1, sizeof *copy);
  if (!copy) return nomem(w);
  bool ok = true;
  for (size_t i = 0; i < count && ok; i++) ok = (copy[i] = strdup(names[i] ? names[i] : "")) != NULL;
  for (size_t i = 0; i < w->nnames; i++) free(w->names[i]);
  free(w->names);
  w->names = copy;
  w->nnames = count;
  return ok ? WS_OK : nomem(w);
}

ws_status ws_wst_writer_kernel_source(ws_wst_writer *w, const void *kernel, const char *source_text) {
  char *text = strdup(source_text ? source_text : "");
  if (!text) return nomem(w);
  for (size_t i = 0; i < w->nsources; i++)
    if (w->sources[i].identity == kernel) {
      free(w->sources[i].text);
      w->sources[i].text = text;
      return WS_OK;
    }
  if (!grow((void **)&w->sources, &w->sources_cap, w->nsources, sizeof *w->sources)) {
    free(text);
    return nomem(w);
  }
  w->sources[w->nsources++] = (wsource){kernel, text};
  return WS_OK;
}

ws_status ws_wst_writer_set_timeline(ws_wst_writer *w, const ws_runtime_record *recs, size_t count) {
  ws_bytes b = {0};
  for (size_t i = 0; i < count; i++) {
    const ws_runtime_record *r = &recs[i];
    ws_bytes_append_le32(&b, (uint32_t)r->kind);
    ws_bytes_append_le32(&b, r->stream);
    putstr(&b, r->name);
    ws_bytes_append_le64(&b, r->size_bytes);
    ws_bytes_append_le32(&b, (uint32_t)r->host_mem);
    ws_bytes_append_le32(&b, r->grid.x), ws_bytes_append_le32(&b, r->grid.y),
        ws_bytes_append_le32(&b, r->grid.z);
    ws_bytes_append_le32(&b, r->block.x), ws_bytes_append_le32(&b, r->block.y),
        ws_bytes_append_le32(&b, r->block.z);
    ws_bytes_append_le64(&b, r->start_ns);
    ws_bytes_append_le64(&b, r->end_ns);
    putstr(&b, r->kernel);
  }
  if (b.failed) {
    ws_bytes_free(&b);
    return nomem(w);
  }
  ws_bytes_free(&w->timeline);
  w->timeline = b;
  w->ntimeline = count;
  return WS_OK;
}

/* Whether a table of named ranges is one a reader accepts: what
 * ws_runtime_name_range guarantees, checked again because the writer takes
 * any caller's table and the reader refuses anything else. */
static bool regions_ok(const ws_runtime_region *g, size_t count) {
  if (count > WS_WST_MAX_REGIONS) return false;
  for (size_t i = 0; i < count; i++) {
    size_t len = strnlen(g[i].name, WS_RUNTIME_NAME_MAX);
    if (len == 0 || len >= WS_RUNTIME_NAME_MAX || (unsigned)g[i].tensor >= WS_RUNTIME_TENSOR_COUNT ||
        g[i].size_bytes == 0 || g[i].addr + g[i].size_bytes < g[i].addr)
      return false;
    if (i > 0 && g[i - 1].addr + g[i - 1].size_bytes > g[i].addr) return false;
  }
  return true;
}

ws_status ws_wst_writer_set_regions(ws_wst_writer *w, const ws_runtime_region *regions, size_t count) {
  if (!regions_ok(regions, count))
    return ws_ctx_fail(w->ctx, WS_ERR_INVALID,
                       "trace '%s': named ranges must be at most %u, sorted, non-empty, never overlapping, "
                       "with names of 1 to %d characters and a known class",
                       w->path, WS_WST_MAX_REGIONS, WS_RUNTIME_NAME_MAX - 1);
  ws_bytes b = {0};
  for (size_t i = 0; i < count; i++) {
    ws_bytes_append_le64(&b, regions[i].addr);
    ws_bytes_append_le64(&b, regions[i].size_bytes);
    ws_bytes_append_le32(&b, (uint32_t)regions[i].tensor);
    putstr(&b, regions[i].name);
  }
  if (b.failed) {
    ws_bytes_free(&b);
    return nomem(w);
  }
  ws_bytes_free(&w->regions);
  w->regions = b;
  w->nregions = count;
  return WS_OK;
}

ws_status ws_wst_writer_set_journey(ws_wst_writer *w, const void *data, size_t size_bytes) {
  if (size_bytes > WS_WST_MAX_META_BYTES / 2)
    return ws_ctx_fail(w->ctx, WS_ERR_LIMIT, "trace '%s': a journey of %zu bytes is over the %zu MiB limit",
                       w->path, size_bytes, WS_WST_MAX_META_BYTES / 2 >> 20);
  ws_bytes b = {0};
  if (!ws_bytes_append(&b, data, size_bytes)) return nomem(w);
  ws_bytes_free(&w->journey);
  w->journey = b;
  return WS_OK;
}

void ws_wst_writer_disassemble(ws_wst_writer *w, bool on) { w->disassemble = on; }

/* ---- commit -------------------------------------------------------------------- */

static void write_meta(ws_wst_writer *w) {
  ws_bytes b = {0};
  ws_bytes_append_le32(&b, (uint32_t)w->nkernels);
  for (size_t i = 0; i < w->nkernels; i++) {
    const wkernel *k = &w->kernels[i];
    const char *src = k->source ? k->source : source_of(w, k->identity);
    putstr(&b, k->name);
    putstr(&b, src ? src : "");
    ws_bytes_append_le32(&b, k->regs);
    ws_bytes_append_le32(&b, k->shared);
  }
  ws_bytes_append_le32(&b, (uint32_t)w->nlaunches);
  for (size_t i = 0; i < w->nlaunches; i++) put_launch(&b, &w->launches[i]);
  ws_bytes_append_le32(&b, (uint32_t)w->nnames);
  for (size_t i = 0; i < w->nnames; i++) putstr(&b, w->names[i]);
  ws_bytes_append_le32(&b, (uint32_t)w->ntimeline);
  ws_bytes_append(&b, w->timeline.data, w->timeline.len);
  ws_bytes_append_le64(&b, w->journey.len);
  ws_bytes_append(&b, w->journey.data, w->journey.len);
  ws_bytes_append_le32(&b, WS_PEV_COUNT);
  for (int k = 0; k < WS_PEV_COUNT; k++)
    ws_bytes_append_le64(&b, w->counts.seen[k]), ws_bytes_append_le64(&b, w->counts.recorded[k]);
  ws_bytes_append_le32(&b, (uint32_t)w->nregions); /* version 2 on */
  ws_bytes_append(&b, w->regions.data, w->regions.len);
  if (b.failed)
    fail_nomem(w);
  else if (b.len > WS_WST_MAX_META_BYTES)
    fail(w, WS_ERR_LIMIT, "trace '%s': metadata of %zu bytes is over the %zu MiB limit", w->path, b.len,
         WS_WST_MAX_META_BYTES >> 20);
  write_block(w, (ws_block_header){.kind = WS_BLOCK_META}, b.data, b.len, true);
  ws_bytes_free(&b);
}

static void write_index(ws_wst_writer *w) {
  size_t n = w->nchunks * INDEX_ENTRY_BYTES;
  uint8_t *p = malloc(n ? n : 1);
  if (!p) {
    fail_nomem(w);
    return;
  }
  for (size_t i = 0; i < w->nchunks; i++) {
    const ws_wst_chunk_info *c = &w->chunks[i];
    uint8_t *e = p + i * INDEX_ENTRY_BYTES;
    ws_bytes_put_le64(e, c->offset);
    ws_bytes_put_le32(e + 8, c->launch);
    ws_bytes_put_le32(e + 12, c->events);
    ws_bytes_put_le64(e + 16, c->min_begin);
    ws_bytes_put_le64(e + 24, c->max_begin);
  }
  write_block(w, (ws_block_header){.kind = WS_BLOCK_INDEX, .count = (uint32_t)w->nchunks}, p, n, false);
  free(p);
}

ws_status ws_wst_writer_commit(ws_wst_writer *w) {
  if (w->committed) return ws_ctx_fail(w->ctx, WS_ERR_INVALID, "trace '%s' is already committed", w->path);
  w->committed = true;
  if (w->in_launch) end_launch(w, 0, false);
  flush_chunk(w);
  ws_block_file_header fh = {
      .version = WS_WST_VERSION, .chunks = (uint32_t)w->nchunks, .launches = (uint32_t)w->nlaunches};
  for (int k = 0; k < WS_PEV_COUNT; k++) fh.events += w->counts.recorded[k];
  fh.meta_offset = w->pos;
  write_meta(w);
  fh.index_offset = w->pos;
  write_index(w);
  fh.file_bytes = w->pos;
  uint8_t head[WS_BLOCK_FILE_HEADER_BYTES];
  ws_block_pack_file(&fh, head);
  if (w->err == WS_OK && fseeko(w->f, 0, SEEK_SET) != 0)
    fail(w, WS_ERR_IO, "cannot write '%s': %s", w->path, strerror(errno));
  write_bytes(w, head, sizeof head);
  if (w->err != WS_OK) return ws_ctx_fail(w->ctx, w->err, "%s", w->errmsg);
  return ws_file_stream_commit(w->ctx, w->out);
}

void ws_wst_writer_free(ws_wst_writer *w) {
  if (!w) return;
  ws_file_stream_close(w->out);
  for (size_t i = 0; i < w->keep_kernel_count; i++) free(w->keep_kernels[i]);
  free(w->keep_kernels);
  free(w->sm_set);
  ws_codec_enc_free(&w->enc);
  ws_bytes_free(&w->raw);
  ws_bytes_free(&w->packed);
  ZSTD_freeCCtx(w->zc);
  free(w->chunks);
  for (size_t i = 0; i < w->nkernels; i++) free(w->kernels[i].name), free(w->kernels[i].source);
  free(w->kernels);
  free(w->launches);
  for (size_t i = 0; i < w->nsources; i++) free(w->sources[i].text);
  free(w->sources);
  for (size_t i = 0; i < w->nnames; i++) free(w->names[i]);
  free(w->names);
  ws_bytes_free(&w->timeline);
  ws_bytes_free(&w->journey);
  ws_bytes_free(&w->regions);
  free(w->path);
  free(w);
}

/* ==== the reader ================================================================ */

/* What the metadata holds, kept together so a walk can try the metadata it
 * meets and fall back to what it had gathered. */
typedef struct tables {
  ws_wst_kernel_info *kernels;
  size_t nkernels, kernels_cap;
  ws_wst_launch_info *launches;
  size_t nlaunches, launches_cap;
  char **names;
  size_t nnames;
  ws_runtime_record *timeline;
  size_t ntimeline;
  uint8_t *journey;
  size_t journey_bytes;
  ws_runtime_region *regions;
  size_t nregions;
  ws_wst_counts counts;
} tables;

struct ws_wst_reader {
  ws_ctx *ctx;
  char *name;
  const uint8_t *mem; /* from memory, or NULL and fd */
  int fd;
  uint64_t size;
  uint32_t version;
  char *warning;
  char *config_text;
  tables t;
  ws_wst_chunk_info *chunks;
  size_t nchunks, chunks_cap;
  uint64_t decoded;
};

static void free_tables(tables *t) {
  for (size_t i = 0; i < t->nkernels; i++)
    free((char *)t->kernels[i].name), free((char *)t->kernels[i].source);
  free(t->kernels);
  free(t->launches);
  for (size_t i = 0; i < t->nnames; i++) free(t->names[i]);
  free(t->names);
  free(t->timeline);
  free(t->journey);
  free(t->regions);
  memset(t, 0, sizeof *t);
}

/* Up to n bytes at `offset`; returns how many there were. */
static size_t read_at(const ws_wst_reader *r, uint64_t offset, void *buf, size_t n) {
  if (n == 0 || offset >= r->size) return 0;
  if (n > r->size - offset) n = (size_t)(r->size - offset);
  if (r->mem) {
    memcpy(buf, r->mem + offset, n);
    return n;
  }
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(r->fd, (uint8_t *)buf + got, n - got, (off_t)(offset + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  return got;
}

/* ---- blocks -------------------------------------------------------------------- */

/* On failure, the functions below leave what was expected and what found
 * in why[] and the byte it concerns in *at. */
typedef struct rblock {
  ws_block_header h;
  uint64_t offset; /* of the header */
} rblock;

static bool read_header(const ws_wst_reader *r, uint64_t offset, rblock *b, uint64_t *at, char *why,
                        size_t n) {
  uint8_t head[WS_BLOCK_HEADER_BYTES];
  size_t got = read_at(r, offset, head, sizeof head);
  b->offset = offset;
  *at = offset;
  if (got < sizeof head) {
    snprintf(why, n, "a %u-byte block header expected, %zu bytes found (the file ends)",
             WS_BLOCK_HEADER_BYTES, got);
    return false;
  }
  if (!ws_block_unpack(head, &b->h, why, n)) return false;
  uint64_t left = r->size - offset - WS_BLOCK_HEADER_BYTES;
  if (b->h.stored_bytes > left) {
    *at = offset + WS_BLOCK_HEADER_BYTES;
    snprintf(why, n, "%s: %u payload bytes expected, %llu found (the file ends)",
             ws_block_kind_name(b->h.kind), b->h.stored_bytes, (unsigned long long)left);
    return false;
  }
  return true;
}

/* The payload, CRC-checked, then decompressed (into raw, with a NUL after
 * it) to its declared size, which must be at most max_raw. */
static bool read_payload(const ws_wst_reader *r, const rblock *b, size_t max_raw, ZSTD_DCtx *dz,
                         ws_bytes *stored, ws_bytes *raw, uint64_t *at, char *why, size_t n) {
  const ws_block_header *h = &b->h;
  const char *kind = ws_block_kind_name(h->kind);
  *at = b->offset;
  if (h->raw_bytes > max_raw ||
      (h->codec == WS_BLOCK_ZSTD && h->stored_bytes > ZSTD_compressBound(max_raw))) {
    snprintf(why, n, "%s header: at most %zu payload bytes expected, %u found", kind, max_raw, h->raw_bytes);
    return false;
  }
  *at = b->offset + WS_BLOCK_HEADER_BYTES;
  stored->len = raw->len = 0;
  stored->failed = raw->failed = false;
  if (!ws_bytes_reserve(stored, h->stored_bytes) || !ws_bytes_reserve(raw, (size_t)h->raw_bytes + 1)) {
    snprintf(why, n, "memory for a %u-byte %s expected, none found", h->raw_bytes, kind);
    return false;
  }
  if (read_at(r, *at, stored->data, h->stored_bytes) != h->stored_bytes) {
    snprintf(why, n, "%s: %u payload bytes expected, fewer found (a read error)", kind, h->stored_bytes);
    return false;
  }
  uint32_t crc = ws_block_crc(stored->data, h->stored_bytes);
  if (crc != h->payload_crc) {
    snprintf(why, n, "%s: CRC-32 0x%08x expected, 0x%08x found", kind, h->payload_crc, crc);
    return false;
  }
  if (h->codec == WS_BLOCK_RAW) {
    if (h->stored_bytes) memcpy(raw->data, stored->data, h->stored_bytes);
  } else {
    size_t got = ZSTD_decompressDCtx(dz, raw->data, h->raw_bytes, stored->data, h->stored_bytes);
    if (ZSTD_isError(got) || got != h->raw_bytes) {
      snprintf(why, n, "%s: a zstd frame of %u bytes expected, %s found", kind, h->raw_bytes,
               ZSTD_isError(got) ? ZSTD_getErrorName(got) : "one of another size");
      return false;
    }
  }
  raw->len = h->raw_bytes;
  raw->data[raw->len] = 0;
  return true;
}

/* ---- the metadata -------------------------------------------------------------- */

/* A count read from the file, refused when its entries, each at least
 * min_bytes, cannot fit in what is left: nothing is allocated for them. */
static size_t rd_count(ws_block_rd *rd, size_t min_bytes) {
  uint32_t n = ws_block_rd32(rd);
  if ((uint64_t)n * min_bytes > ws_block_rdleft(rd)) rd->bad = true;
  return rd->bad ? 0 : n;
}

static void parse_kernels(tables *t, ws_block_rd *rd) {
  size_t n = rd_count(rd, 16);
  if (n && !(t->kernels = calloc(n, sizeof *t->kernels))) rd->bad = true;
  for (size_t i = 0; i < n && !rd->bad; i++, t->nkernels++) {
    ws_wst_kernel_info *k = &t->kernels[i];
    k->name = ws_block_rdstr(rd, NAME_MAX_BYTES);
    k->source = ws_block_rdstr(rd, WS_WST_MAX_META_BYTES);
    k->regs_per_thread = ws_block_rd32(rd);
    k->shared_bytes = ws_block_rd32(rd);
  }
  t->kernels_cap = t->nkernels;
}

static void parse_launches(tables *t, ws_block_rd *rd) {
  size_t n = rd_count(rd, LAUNCH_RECORD_BYTES);
  if (n && !(t->launches = calloc(n, sizeof *t->launches))) rd->bad = true;
  for (size_t i = 0; i < n && !rd->bad; i++, t->nlaunches++) get_launch(rd, &t->launches[i]);
  t->launches_cap = t->nlaunches;
}

static void parse_names(tables *t, ws_block_rd *rd) {
  size_t n = rd_count(rd, 4);
  if (!(t->names = calloc(n + 1, sizeof *t->names))) rd->bad = true;
  for (size_t i = 0; i < n && !rd->bad; i++, t->nnames++) t->names[i] = ws_block_rdstr(rd, NAME_MAX_BYTES);
}

static void rd_name(ws_block_rd *rd, char dst[WS_RUNTIME_NAME_MAX]) {
  char *s = ws_block_rdstr(rd, WS_RUNTIME_NAME_MAX - 1);
  if (s) memcpy(dst, s, strlen(s) + 1);
  free(s);
}

static void parse_timeline(tables *t, ws_block_rd *rd) {
  size_t n = rd_count(rd, 72);
  if (n && !(t->timeline = calloc(n, sizeof *t->timeline))) rd->bad = true;
  for (size_t i = 0; i < n && !rd->bad; i++, t->ntimeline++) {
    ws_runtime_record *e = &t->timeline[i];
    uint32_t kind = ws_block_rd32(rd);
    e->stream = ws_block_rd32(rd);
    rd_name(rd, e->name);
    e->size_bytes = ws_block_rd64(rd);
    uint32_t mem = ws_block_rd32(rd);
    e->grid.x = ws_block_rd32(rd), e->grid.y = ws_block_rd32(rd), e->grid.z = ws_block_rd32(rd);
    e->block.x = ws_block_rd32(rd), e->block.y = ws_block_rd32(rd), e->block.z = ws_block_rd32(rd);
    e->start_ns = ws_block_rd64(rd);
    e->end_ns = ws_block_rd64(rd);
    rd_name(rd, e->kernel);
    if (kind >= WS_RUNTIME_OP_COUNT || mem >= WS_PCIE_HOST_MEM_COUNT) rd->bad = true;
    e->kind = (ws_runtime_op)(kind % WS_RUNTIME_OP_COUNT);
    e->host_mem = (ws_pcie_host_mem)(mem % WS_PCIE_HOST_MEM_COUNT);
  }
}

static void parse_tail(tables *t, ws_block_rd *rd) {
  uint64_t n = ws_block_rd64(rd);
  if (n > ws_block_rdleft(rd)) rd->bad = true;
  const uint8_t *p = rd->bad ? NULL : ws_block_rdbytes(rd, (size_t)n);
  if (p && !(t->journey = malloc(n ? (size_t)n : 1))) rd->bad = true;
  if (p && t->journey && n) memcpy(t->journey, p, (size_t)n);
  if (t->journey) t->journey_bytes = (size_t)n;
  uint32_t kinds = ws_block_rd32(rd);
  if (kinds != WS_PEV_COUNT) rd->bad = true;
  for (uint32_t k = 0; k < kinds && !rd->bad; k++) {
    t->counts.seen[k] = ws_block_rd64(rd);
    t->counts.recorded[k] = ws_block_rd64(rd);
  }
}

/* Version 2's named ranges: each one u64 addr, u64 size, u32 class and a
 * name; the table must be what ws_wst_writer_set_regions accepts. */
static void parse_regions(tables *t, ws_block_rd *rd) {
  size_t n = rd_count(rd, 24);
  if (n > WS_WST_MAX_REGIONS) rd->bad = true;
  if (n && !rd->bad && !(t->regions = calloc(n, sizeof *t->regions))) rd->bad = true;
  for (size_t i = 0; i < n && !rd->bad; i++, t->nregions++) {
    ws_runtime_region *g = &t->regions[i];
    g->addr = ws_block_rd64(rd);
    g->size_bytes = ws_block_rd64(rd);
    uint32_t tensor = ws_block_rd32(rd);
    rd_name(rd, g->name);
    g->tensor = (ws_runtime_tensor)(tensor % WS_RUNTIME_TENSOR_COUNT);
    if (tensor >= WS_RUNTIME_TENSOR_COUNT) rd->bad = true;
  }
  if (!rd->bad && !regions_ok(t->regions, t->nregions)) rd->bad = true;
}

/* The metadata's tables into *t (empty on failure); version 1 ends at the
 * counts, version 2 adds the named ranges. */
static bool parse_meta(tables *t, const ws_bytes *raw, uint32_t version) {
  memset(t, 0, sizeof *t);
  ws_block_rd rd = {raw->data, raw->data + raw->len, false};
  parse_kernels(t, &rd);
  parse_launches(t, &rd);
  parse_names(t, &rd);
  parse_timeline(t, &rd);
  parse_tail(t, &rd);
  if (version >= 2) parse_regions(t, &rd);
  if (ws_block_rdleft(&rd) != 0) rd.bad = true;
  if (rd.bad) free_tables(t);
  return !rd.bad;
}

static bool chunk_ok(const ws_wst_chunk_info *c, size_t nlaunches) {
  return c->events > 0 && c->events <= WS_WST_CHUNK_EVENTS && c->min_begin <= c->max_begin &&
         (c->launch == WS_WST_NO_LAUNCH || c->launch < nlaunches);
}

/* The tables agree with each other and with the chunks: offsets rise
 * inside [first, end); launches own disjoint, rising runs of chunks whose
 * events add up, every chunk of a launch inside its run. Linear, whatever
 * the counts. */
static bool tables_agree(const tables *t, const ws_wst_chunk_info *chunks, size_t nchunks, uint64_t first,
                         uint64_t end, char *why, size_t n) {
  uint64_t at = first;
  for (size_t i = 0; i < nchunks; i++) {
    const ws_wst_chunk_info *c = &chunks[i];
    if (c->offset < at || c->offset > end || end - c->offset < WS_BLOCK_HEADER_BYTES ||
        !chunk_ok(c, t->nlaunches)) {
      snprintf(why, n,
               "index entry %zu: a chunk inside the file expected, offset %llu launch %u events %u found", i,
               (unsigned long long)c->offset, c->launch, c->events);
      return false;
    }
    at = c->offset + WS_BLOCK_HEADER_BYTES;
  }
  size_t next = 0, owned = 0;
  for (size_t i = 0; i < t->nlaunches; i++) {
    const ws_wst_launch_info *l = &t->launches[i];
    uint64_t events = 0;
    bool ok = (l->kernel < t->nkernels || l->kernel == WS_WST_NO_KERNEL) && l->first_chunk >= next &&
              l->first_chunk <= nchunks && l->chunk_count <= nchunks - l->first_chunk;
    for (size_t c = l->first_chunk; ok && c < (size_t)l->first_chunk + l->chunk_count; c++) {
      ok = chunks[c].launch == i;
      events += chunks[c].events;
    }
    if (!ok || events != l->events) {
      snprintf(why, n, "launch %zu: chunks from %zu on, its own, with %llu events expected, others found", i,
               next, (unsigned long long)l->events);
      return false;
    }
    next = (size_t)l->first_chunk + l->chunk_count;
    owned += l->chunk_count;
  }
  size_t with_launch = 0;
  for (size_t i = 0; i < nchunks; i++) with_launch += chunks[i].launch != WS_WST_NO_LAUNCH;
  if (with_launch != owned) {
    snprintf(why, n, "%zu chunks inside their launches' runs expected, %zu found", with_launch, owned);
    return false;
  }
  return true;
}

static bool parse_index(ws_wst_reader *r, const ws_bytes *raw, uint32_t count) {
  if ((uint64_t)count * INDEX_ENTRY_BYTES != raw->len) return false;
  if (count && !(r->chunks = calloc(count, sizeof *r->chunks))) return false;
  r->nchunks = r->chunks_cap = count;
  for (size_t i = 0; i < count; i++) {
    const uint8_t *e = raw->data + i * INDEX_ENTRY_BYTES;
    r->chunks[i] = (ws_wst_chunk_info){.offset = ws_bytes_le64(e),
                                       .launch = ws_bytes_le32(e + 8),
                                       .events = ws_bytes_le32(e + 12),
                                       .min_begin = ws_bytes_le64(e + 16),
                                       .max_begin = ws_bytes_le64(e + 24)};
  }
  return true;
}

/* ---- opening ------------------------------------------------------------------- */

typedef struct opener {
  ws_wst_reader *r;
  ZSTD_DCtx *dz;
  ws_bytes stored, raw;
  char why[512];
  uint64_t at; /* where the trouble is */
} opener;

static bool read_block(opener *o, uint64_t offset, ws_block_kind kind, size_t max_raw, rblock *b) {
  if (!read_header(o->r, offset, b, &o->at, o->why, sizeof o->why)) return false;
  if (b->h.kind != kind) {
    snprintf(o->why, sizeof o->why, "a %s block expected, a %s block found", ws_block_kind_name(kind),
             ws_block_kind_name(b->h.kind));
    return false;
  }
  return read_payload(o->r, b, max_raw, o->dz, &o->stored, &o->raw, &o->at, o->why, sizeof o->why);
}

/* The config block, first after the header; *end: the byte after it. */
static bool read_config(opener *o, uint64_t *end) {
  rblock b;
  if (!read_block(o, WS_BLOCK_FILE_HEADER_BYTES, WS_BLOCK_CONFIG, WS_CONFIG_MAX_FILE_BYTES, &b)) return false;
  if (memchr(o->raw.data, '\0', o->raw.len)) {
    snprintf(o->why, sizeof o->why, "config: INI text expected, a NUL byte found");
    return false;
  }
  free(o->r->config_text);
  o->r->config_text = (char *)o->raw.data;
  o->raw = (ws_bytes){0};
  *end = b.offset + WS_BLOCK_HEADER_BYTES + b.h.stored_bytes;
  return true;
}

/* The fast way in: the header's offsets lead to the metadata and the index. */
static bool open_indexed(opener *o, const ws_block_file_header *fh) {
  ws_wst_reader *r = o->r;
  uint64_t first = 0;
  rblock b;
  if (!read_config(o, &first)) return false;
  if (fh->meta_offset < first || fh->index_offset < fh->meta_offset) {
    o->at = 24;
    snprintf(
        o->why, sizeof o->why, "header: metadata and index after byte %llu expected, at %llu and %llu found",
        (unsigned long long)first, (unsigned long long)fh->meta_offset, (unsigned long long)fh->index_offset);
    return false;
  }
  if (!read_block(o, fh->meta_offset, WS_BLOCK_META, WS_WST_MAX_META_BYTES, &b)) return false;
  if (!parse_meta(&r->t, &o->raw, r->version)) {
    snprintf(o->why, sizeof o->why, "metadata: well-formed tables expected, damaged ones found");
    return false;
  }
  if (!read_block(o, fh->index_offset, WS_BLOCK_INDEX, (size_t)r->size, &b)) return false;
  o->at = fh->index_offset;
  if (!parse_index(r, &o->raw, b.h.count) || r->nchunks != fh->chunks || r->t.nlaunches != fh->launches) {
    snprintf(o->why, sizeof o->why, "index: %u entries for %u launches expected, others found", fh->chunks,
             fh->launches);
    return false;
  }
  uint64_t events = 0;
  for (size_t i = 0; i < r->nchunks; i++) events += r->chunks[i].events;
  if (events != fh->events) {
    o->at = 48;
    snprintf(o->why, sizeof o->why, "header: %llu events recorded expected (the index's chunks), %llu found",
             (unsigned long long)events, (unsigned long long)fh->events);
    return false;
  }
  return tables_agree(&r->t, r->chunks, r->nchunks, first, fh->meta_offset, o->why, sizeof o->why);
}

/* ---- the walk: what a damaged file still holds ------------------------------------ */

static uint32_t add_kernel(tables *t, char *name, uint32_t regs, uint32_t shared) {
  for (size_t i = 0; i < t->nkernels; i++)
    if (strcmp(t->kernels[i].name, name) == 0 && t->kernels[i].regs_per_thread == regs &&
        t->kernels[i].shared_bytes == shared) {
      free(name);
      return (uint32_t)i;
    }
  char *source = strdup("");
  if (!source || !grow((void **)&t->kernels, &t->kernels_cap, t->nkernels, sizeof *t->kernels)) {
    free(name);
    free(source);
    return WS_WST_NO_KERNEL;
  }
  t->kernels[t->nkernels] = (ws_wst_kernel_info){name, source, regs, shared};
  return (uint32_t)t->nkernels++;
}

/* A LAUNCH block: the next launch's record, its kernel known by name. */
static bool walk_launch(opener *o, const rblock *b) {
  ws_wst_reader *r = o->r;
  tables *t = &r->t;
  if (!read_payload(r, b, LAUNCH_BLOCK_MAX_BYTES, o->dz, &o->stored, &o->raw, &o->at, o->why, sizeof o->why))
    return false;
  ws_block_rd rd = {o->raw.data, o->raw.data + o->raw.len, false};
  ws_wst_launch_info l;
  get_launch(&rd, &l);
  char *name = ws_block_rdstr(&rd, NAME_MAX_BYTES);
  uint32_t regs = ws_block_rd32(&rd), shared = ws_block_rd32(&rd);
  uint64_t events = 0;
  for (size_t i = l.first_chunk; !rd.bad && l.first_chunk <= r->nchunks && i < r->nchunks; i++)
    events += r->chunks[i].events;
  if (rd.bad || ws_block_rdleft(&rd) || b->h.launch != t->nlaunches || l.first_chunk > r->nchunks ||
      l.chunk_count != r->nchunks - l.first_chunk || events != l.events ||
      (l.first_chunk > 0 && r->chunks[l.first_chunk - 1].launch == b->h.launch)) {
    free(name);
    o->at = b->offset;
    snprintf(o->why, sizeof o->why, "launch record: launch %zu ending at chunk %zu expected, launch %u found",
             t->nlaunches, r->nchunks, b->h.launch);
    return false;
  }
  l.kernel = add_kernel(t, name, regs, shared);
  if (!grow((void **)&t->launches, &t->launches_cap, t->nlaunches, sizeof *t->launches)) return false;
  t->launches[t->nlaunches++] = l;
  return true;
}

static bool walk_chunk(opener *o, const rblock *b) {
  ws_wst_reader *r = o->r;
  const ws_block_header *h = &b->h;
  ws_wst_chunk_info c = {b->offset, h->launch, h->count, h->min_begin, h->max_begin};
  if ((h->launch != WS_WST_NO_LAUNCH && h->launch != r->t.nlaunches) || !chunk_ok(&c, r->t.nlaunches + 1)) {
    o->at = b->offset;
    snprintf(o->why, sizeof o->why,
             "chunk %zu: launch %zu (or none) with 1 to %u events expected, launch %u with %u found",
             r->nchunks, r->t.nlaunches, WS_WST_CHUNK_EVENTS, h->launch, h->count);
    return false;
  }
  if (!grow((void **)&r->chunks, &r->chunks_cap, r->nchunks, sizeof *r->chunks)) return false;
  r->chunks[r->nchunks++] = c;
  return true;
}

/* The metadata met on the walk replaces what the walk gathered when it
 * agrees with the chunks walked. */
static bool walk_meta(opener *o, const rblock *b) {
  ws_wst_reader *r = o->r;
  tables meta;
  if (!read_payload(r, b, WS_WST_MAX_META_BYTES, o->dz, &o->stored, &o->raw, &o->at, o->why, sizeof o->why))
    return false;
  if (!parse_meta(&meta, &o->raw, r->version) ||
      !tables_agree(&meta, r->chunks, r->nchunks, 0, b->offset, o->why, sizeof o->why)) {
    free_tables(&meta);
    o->at = b->offset;
    snprintf(o->why, sizeof o->why, "metadata: well-formed tables expected, damaged ones found");
    return false;
  }
  free_tables(&r->t);
  r->t = meta;
  return true;
}

/* A launch whose chunks were read but whose record was not: an unfinished
 * entry, so its events keep a launch to belong to. */
static void close_walk(ws_wst_reader *r) {
  tables *t = &r->t;
  size_t first = r->nchunks;
  while (first > 0 && r->chunks[first - 1].launch == t->nlaunches) first--;
  if (first == r->nchunks ||
      !grow((void **)&t->launches, &t->launches_cap, t->nlaunches, sizeof *t->launches))
    return;
  ws_wst_launch_info l = {.kernel = WS_WST_NO_KERNEL,
                          .first_chunk = (uint32_t)first,
                          .chunk_count = (uint32_t)(r->nchunks - first),
                          .flags = WS_WST_LAUNCH_UNFINISHED};
  for (size_t i = first; i < r->nchunks; i++) l.events += r->chunks[i].events;
  l.events_seen = l.events;
  t->launches[t->nlaunches++] = l;
}

/* Walks the blocks from the config on; true when it reached intact
 * metadata and took it, else o->why and o->at say where it stopped. */
static bool walk(opener *o) {
  ws_wst_reader *r = o->r;
  free_tables(&r->t);
  free(r->chunks);
  r->chunks = NULL;
  r->nchunks = r->chunks_cap = 0;
  uint64_t offset = 0;
  if (!read_config(o, &offset)) { /* a damaged text is passed over when its header is intact */
    rblock b;
    uint64_t at;
    char why[8];
    if (!read_header(r, WS_BLOCK_FILE_HEADER_BYTES, &b, &at, why, sizeof why) || b.h.kind != WS_BLOCK_CONFIG)
      return false;
    offset = WS_BLOCK_FILE_HEADER_BYTES + WS_BLOCK_HEADER_BYTES + b.h.stored_bytes;
  }
  for (;;) {
    rblock b;
    if (offset == r->size) {
      o->at = offset;
      snprintf(o->why, sizeof o->why, "the metadata expected, the end of the file found");
      return false;
    }
    if (!read_header(r, offset, &b, &o->at, o->why, sizeof o->why)) return false;
    bool ok;
    if (b.h.kind == WS_BLOCK_CHUNK) {
      ok = walk_chunk(o, &b);
    } else if (b.h.kind == WS_BLOCK_LAUNCH) {
      ok = walk_launch(o, &b);
    } else if (b.h.kind == WS_BLOCK_META) {
      return walk_meta(o, &b);
    } else {
      o->at = b.offset;
      snprintf(o->why, sizeof o->why, "a chunk, launch record or the metadata expected, a %s block found",
               ws_block_kind_name(b.h.kind));
      ok = false;
    }
    if (!ok) return false;
    offset = b.offset + WS_BLOCK_HEADER_BYTES + b.h.stored_bytes;
  }
}

static bool set_warning(ws_wst_reader *r, const char *first, const opener *o, bool whole) {
  uint64_t events = 0;
  for (size_t i = 0; i < r->nchunks; i++) events += r->chunks[i].events;
  char buf[1400];
  if (whole)
    snprintf(buf, sizeof buf, "%s; walked the blocks instead and read all %zu chunks (%llu events)", first,
             r->nchunks, (unsigned long long)events);
  else
    snprintf(buf, sizeof buf,
             "%s; walked the blocks instead: byte %llu: %s; %zu chunks (%llu events) before it", first,
             (unsigned long long)o->at, o->why, r->nchunks, (unsigned long long)events);
  free(r->warning);
  return (r->warning = strdup(buf)) != NULL;
}

/* Why the fast way in is closed, in first[]; "" when it is open. */
static void check_header(ws_wst_reader *r, ws_block_verdict v, const ws_block_file_header *fh,
                         const char *why, char *first, size_t n) {
  first[0] = '\0';
  if (v != WS_BLOCK_OK)
    snprintf(first, n, "%s: %s", r->name, why);
  else if (fh->file_bytes == 0)
    snprintf(first, n, "%s: byte 16: a committed trace expected, an unfinished one found", r->name);
  else if (fh->file_bytes > r->size)
    snprintf(first, n, "%s: byte %llu: %llu bytes expected, the file ends", r->name,
             (unsigned long long)r->size, (unsigned long long)fh->file_bytes);
}

/* Bytes after the end the header records (something appended, or a size
 * field changed): the trace reads whole, and the reader says so. */
static bool check_tail(ws_wst_reader *r, const ws_block_file_header *fh) {
  if (fh->file_bytes >= r->size) return true;
  char buf[700];
  snprintf(buf, sizeof buf, "%s: byte %llu: the trace ends here (its header says so), %llu more bytes follow",
           r->name, (unsigned long long)fh->file_bytes, (unsigned long long)(r->size - fh->file_bytes));
  free(r->warning);
  return (r->warning = strdup(buf)) != NULL;
}

static ws_status open_reader(ws_wst_reader *r) {
  uint8_t head[WS_BLOCK_FILE_HEADER_BYTES] = {0};
  size_t got = read_at(r, 0, head, sizeof head);
  char why[512];
  ws_block_file_header fh;
  ws_block_verdict v = ws_block_unpack_file(head, &fh, why, sizeof why);
  if (got < 8 || v == WS_BLOCK_NOT_WST) {
    if (got < 8) snprintf(why, sizeof why, "byte 0: the 8-byte .wst magic expected, %zu bytes found", got);
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: not a .wst trace: %s", r->name, why);
  }
  if (got < sizeof head)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: byte %zu: a %u-byte header expected, %zu bytes found",
                       r->name, got, WS_BLOCK_FILE_HEADER_BYTES, got);
  if (fh.version > WS_WST_VERSION || fh.version == 0)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: byte 8: format version %u or older expected, %u found%s",
                       r->name, WS_WST_VERSION, fh.version,
                       fh.version ? " (written by a newer warpscope): refused" : "");
  r->version = fh.version;
  opener o = {.r = r, .dz = ZSTD_createDCtx()};
  if (!o.dz) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory opening '%s'", r->name);
  char first[700];
  check_header(r, v, &fh, why, first, sizeof first);
  if (!*first && !open_indexed(&o, &fh))
    snprintf(first, sizeof first, "%s: byte %llu: %s", r->name, (unsigned long long)o.at, o.why);
  bool ok = true;
  if (*first) {
    bool whole = walk(&o);
    if (!whole) close_walk(r);
    ok = set_warning(r, first, &o, whole);
  } else {
    ok = check_tail(r, &fh);
  }
  if (!r->config_text) ok = ok && (r->config_text = strdup("")) != NULL;
  if (!r->t.names) ok = ok && (r->t.names = calloc(1, sizeof *r->t.names)) != NULL;
  ZSTD_freeDCtx(o.dz);
  ws_bytes_free(&o.stored);
  ws_bytes_free(&o.raw);
  return ok ? WS_OK : ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory opening '%s'", r->name);
}

static ws_status finish_open(ws_wst_reader *r, ws_wst_reader **out) {
  ws_status st = open_reader(r);
  if (st != WS_OK) {
    ws_wst_close(r);
    return st;
  }
  *out = r;
  return WS_OK;
}

static ws_wst_reader *new_reader(ws_ctx *ctx, const char *name) {
  ws_wst_reader *r = calloc(1, sizeof *r);
  if (r && !(r->name = strdup(name))) {
    free(r);
    r = NULL;
  }
  if (r) r->ctx = ctx, r->fd = -1;
  return r;
}

ws_status ws_wst_open(ws_ctx *ctx, const char *path, ws_wst_reader **out) {
  *out = NULL;
  ws_wst_reader *r = new_reader(ctx, path);
  if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory opening '%s'", path);
  struct stat sb;
  if ((r->fd = open(path, O_RDONLY)) < 0 || fstat(r->fd, &sb) != 0) {
    ws_status st = ws_ctx_fail(ctx, WS_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    ws_wst_close(r);
    return st;
  }
  if (!S_ISREG(sb.st_mode)) {
    ws_wst_close(r);
    return ws_ctx_fail(ctx, WS_ERR_IO,
                       "cannot read '%s': a trace is read by offset, so it must be a regular file", path);
  }
  r->size = (uint64_t)sb.st_size;
  return finish_open(r, out);
}

ws_status ws_wst_open_memory(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                             ws_wst_reader **out) {
  *out = NULL;
  ws_wst_reader *r = new_reader(ctx, name);
  if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory opening '%s'", name);
  static const uint8_t empty[1];
  r->mem = size_bytes ? data : empty;
  r->size = size_bytes;
  return finish_open(r, out);
}

void ws_wst_close(ws_wst_reader *r) {
  if (!r) return;
  if (r->fd >= 0) close(r->fd);
  free_tables(&r->t);
  free(r->chunks);
  free(r->config_text);
  free(r->warning);
  free(r->name);
  free(r);
}

/* ---- queries ------------------------------------------------------------------- */

const char *ws_wst_warning(const ws_wst_reader *r) { return r->warning; }
uint32_t ws_wst_version(const ws_wst_reader *r) { return r->version; }
uint64_t ws_wst_file_bytes(const ws_wst_reader *r) { return r->size; }
const char *ws_wst_config_text(const ws_wst_reader *r) { return r->config_text; }
size_t ws_wst_kernel_count(const ws_wst_reader *r) { return r->t.nkernels; }
const ws_wst_kernel_info *ws_wst_kernel(const ws_wst_reader *r, size_t i) {
  return i < r->t.nkernels ? &r->t.kernels[i] : NULL;
}
size_t ws_wst_launch_count(const ws_wst_reader *r) { return r->t.nlaunches; }
const ws_wst_launch_info *ws_wst_launch(const ws_wst_reader *r, size_t i) {
  return i < r->t.nlaunches ? &r->t.launches[i] : NULL;
}
size_t ws_wst_chunk_count(const ws_wst_reader *r) { return r->nchunks; }
const ws_wst_chunk_info *ws_wst_chunk(const ws_wst_reader *r, size_t i) {
  return i < r->nchunks ? &r->chunks[i] : NULL;
}
const ws_wst_counts *ws_wst_counts_of(const ws_wst_reader *r) { return &r->t.counts; }
uint64_t ws_wst_chunks_decoded(const ws_wst_reader *r) { return r->decoded; }

const char *const *ws_wst_names(const ws_wst_reader *r, size_t *count) {
  *count = r->t.nnames;
  return (const char *const *)r->t.names;
}

const ws_runtime_record *ws_wst_timeline(const ws_wst_reader *r, size_t *count) {
  *count = r->t.ntimeline;
  return r->t.timeline;
}

const void *ws_wst_journey(const ws_wst_reader *r, size_t *size_bytes) {
  *size_bytes = r->t.journey_bytes;
  return r->t.journey;
}

const ws_runtime_region *ws_wst_regions(const ws_wst_reader *r, size_t *count) {
  *count = r->t.nregions;
  return r->t.regions;
}

/* Whether each of the three dimensions is 1..max. */
static bool dims_ok(const uint32_t d[3], const uint32_t max[3]) {
  for (int i = 0; i < 3; i++)
    if (d[i] == 0 || d[i] > max[i]) return false;
  return true;
}

/* Launch i's shape against the preset's limits, and its CTAs per SM against
 * what its kernel record's registers and shared bytes let fit: the engine
 * never runs more, and a reader sizes its per-SM tables by them. */
static ws_status check_launch(const ws_wst_reader *r, const ws_gpu_cfg *cfg, size_t i) {
  const ws_wst_launch_info *l = &r->t.launches[i];
  const ws_cfg_sm *sm = &cfg->sm;
  if (l->kernel == WS_WST_NO_KERNEL) return WS_OK; /* recovered from its chunks: no shape was recorded */
  if (!dims_ok(l->grid, sm->max_grid_dim) || !dims_ok(l->block, sm->max_block_dim))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: launch %zu: a grid within (%u,%u,%u) and a block within (%u,%u,%u) expected, "
                       "grid (%u,%u,%u) block (%u,%u,%u) found",
                       r->name, i, sm->max_grid_dim[0], sm->max_grid_dim[1], sm->max_grid_dim[2],
                       sm->max_block_dim[0], sm->max_block_dim[1], sm->max_block_dim[2], l->grid[0],
                       l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
  const ws_wst_kernel_info *k = &r->t.kernels[l->kernel];
  uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  ws_occupancy occ = {0}; /* a CTA that does not fit leaves 0; the message below replaces its own */
  if (threads <= sm->max_threads_per_block)
    ws_occupancy_compute(r->ctx, cfg, (uint32_t)threads, k->regs_per_thread, k->shared_bytes, &occ);
  if (l->ctas_per_sm == 0 || l->ctas_per_sm > occ.ctas_per_sm)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: launch %zu: 1..%u CTAs per SM expected (%llu threads, kernel %u '%s' with %u "
                       "registers/thread and %u B shared on %s), %u found",
                       r->name, i, occ.ctas_per_sm, (unsigned long long)threads, l->kernel, k->name,
                       k->regs_per_thread, k->shared_bytes, cfg->gpu.name, l->ctas_per_sm);
  return WS_OK;
}

/* A finished launch lasts at least as long as the last micro-op it began. */
static ws_status check_launch_cycles(const ws_wst_reader *r, size_t i) {
  const ws_wst_launch_info *l = &r->t.launches[i];
  if (l->flags & WS_WST_LAUNCH_UNFINISHED) return WS_OK;
  uint64_t last = 0;
  for (size_t c = l->first_chunk; c < (size_t)l->first_chunk + l->chunk_count; c++)
    if (r->chunks[c].max_begin > last) last = r->chunks[c].max_begin;
  if (l->cycles >= last && (l->cycles > 0 || l->events == 0)) return WS_OK;
  return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                     "%s: launch %zu: a duration of at least %llu cycles expected (its last micro-op began "
                     "then), %llu found",
                     r->name, i, (unsigned long long)(last > 1 ? last : 1), (unsigned long long)l->cycles);
}

ws_status ws_wst_config(const ws_wst_reader *r, ws_gpu_cfg *out) {
  if (!*r->config_text)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: the embedded config was lost", r->name);
  char origin[600];
  snprintf(origin, sizeof origin, "%s (embedded config)", r->name);
  ws_status st = ws_config_load_text(r->ctx, r->config_text, strlen(r->config_text), origin, out);
  for (size_t i = 0; st == WS_OK && i < r->t.nlaunches; i++) st = check_launch(r, out, i);
  for (size_t i = 0; st == WS_OK && i < r->t.nlaunches; i++) st = check_launch_cycles(r, i);
  return st;
}

/* ---- cursors ------------------------------------------------------------------- */

struct ws_wst_cursor {
  ws_wst_reader *r;
  bool one_launch;
  uint32_t launch;
  uint64_t cycle_begin, cycle_end;
  size_t next, end; /* chunks still to visit: [next, end) */
  size_t chunk;     /* the chunk being decoded */
  uint32_t left;    /* its events not yet decoded */
  ZSTD_DCtx *dz;
  ws_bytes stored, raw;
  ws_codec_dec dec;
};

ws_status ws_wst_cursor_open_launch(ws_wst_reader *r, uint32_t launch, uint64_t cycle_begin,
                                    uint64_t cycle_end, ws_wst_cursor **out) {
  *out = NULL;
  if (launch != WS_WST_NO_LAUNCH && launch >= r->t.nlaunches)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: no launch %u (the trace has %zu)", r->name, launch,
                       r->t.nlaunches);
  ws_wst_cursor *c = calloc(1, sizeof *c);
  if (!c || !(c->dz = ZSTD_createDCtx())) {
    free(c);
    return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "out of memory reading '%s'", r->name);
  }
  c->r = r;
  c->one_launch = true;
  c->launch = launch;
  c->cycle_begin = cycle_begin;
  c->cycle_end = cycle_end;
  c->end = r->nchunks;
  if (launch != WS_WST_NO_LAUNCH) {
    c->next = r->t.launches[launch].first_chunk;
    c->end = c->next + r->t.launches[launch].chunk_count;
  }
  *out = c;
  return WS_OK;
}

ws_status ws_wst_cursor_open(ws_wst_reader *r, ws_wst_cursor **out) {
  ws_status st = ws_wst_cursor_open_launch(r, WS_WST_NO_LAUNCH, 0, 0, out);
  if (st == WS_OK) (*out)->one_launch = false;
  return st;
}

void ws_wst_cursor_close(ws_wst_cursor *c) {
  if (!c) return;
  ZSTD_freeDCtx(c->dz);
  ws_bytes_free(&c->stored);
  ws_bytes_free(&c->raw);
  free(c);
}

static bool wanted(const ws_wst_cursor *c, const ws_wst_chunk_info *k) {
  if (c->one_launch && k->launch != c->launch) return false;
  return k->max_begin >= c->cycle_begin && (c->cycle_end == 0 || k->min_begin < c->cycle_end);
}

static ws_status chunk_fail(ws_wst_cursor *c, uint64_t at, const char *why) {
  c->left = 0;
  return ws_ctx_fail(c->r->ctx, WS_ERR_INVALID, "%s: byte %llu: chunk %zu: %s", c->r->name,
                     (unsigned long long)at, c->chunk, why);
}

/* Reads, checks and decompresses chunk c->chunk. */
static ws_status load_chunk(ws_wst_cursor *c) {
  ws_wst_reader *r = c->r;
  const ws_wst_chunk_info *k = &r->chunks[c->chunk];
  rblock b;
  uint64_t at;
  char why[512];
  if (!read_header(r, k->offset, &b, &at, why, sizeof why)) return chunk_fail(c, at, why);
  const ws_block_header *h = &b.h;
  if (h->kind != WS_BLOCK_CHUNK || h->launch != k->launch || h->count != k->events ||
      h->min_begin != k->min_begin || h->max_begin != k->max_begin) {
    snprintf(why, sizeof why,
             "a chunk header as the index describes it expected, a %s of launch %u with %u events found",
             ws_block_kind_name(h->kind), h->launch, h->count);
    return chunk_fail(c, k->offset, why);
  }
  size_t max_raw = WS_CODEC_TABLE_BYTES + (size_t)k->events * WS_CODEC_MAX_EVENT_BYTES;
  if (!read_payload(r, &b, max_raw, c->dz, &c->stored, &c->raw, &at, why, sizeof why))
    return chunk_fail(c, at, why);
  r->decoded++;
  if (!ws_codec_dec_init(&c->dec, c->raw.data, c->raw.len))
    return chunk_fail(c, at, "column sizes adding up to the chunk's size expected, others found");
  c->left = k->events;
  return WS_OK;
}

/* One event of the current chunk, checked against the chunk's header. */
static ws_status decode_one(ws_wst_cursor *c, ws_probe_event *ev) {
  const ws_wst_chunk_info *k = &c->r->chunks[c->chunk];
  uint64_t at = k->offset + WS_BLOCK_HEADER_BYTES;
  uint32_t i = k->events - c->left;
  char why[256];
  ws_codec_col col = ws_codec_dec_next(&c->dec, ev);
  if (col != WS_CODEC_COL_COUNT) {
    snprintf(why, sizeof why, "event %u: a '%s' value expected, %s found", i, ws_codec_col_name(col),
             col == WS_CODEC_KIND ? "an unknown kind or the column's end"
                                  : "a bad varint or the column's end");
    return chunk_fail(c, at, why);
  }
  if (ev->begin < k->min_begin || ev->begin > k->max_begin) {
    snprintf(why, sizeof why, "event %u: a begin within [%llu, %llu] expected, %llu found", i,
             (unsigned long long)k->min_begin, (unsigned long long)k->max_begin,
             (unsigned long long)ev->begin);
    return chunk_fail(c, at, why);
  }
  if (--c->left == 0 && (col = ws_codec_dec_leftover(&c->dec)) != WS_CODEC_COL_COUNT) {
    snprintf(why, sizeof why, "the end of column '%s' after the last event expected, more bytes found",
             ws_codec_col_name(col));
    return chunk_fail(c, at, why);
  }
  return WS_OK;
}

ws_status ws_wst_cursor_next(ws_wst_cursor *c, ws_probe_event *ev, uint32_t *launch, bool *got) {
  *got = false;
  for (;;) {
    if (c->left == 0) {
      while (c->next < c->end && !wanted(c, &c->r->chunks[c->next])) c->next++;
      if (c->next == c->end) return WS_OK;
      c->chunk = c->next++;
      ws_status st = load_chunk(c);
      if (st != WS_OK) return st;
    }
    ws_status st = decode_one(c, ev);
    if (st != WS_OK) return st;
    if (ev->begin >= c->cycle_begin && (c->cycle_end == 0 || ev->begin < c->cycle_end)) {
      *launch = c->r->chunks[c->chunk].launch;
      *got = true;
      return WS_OK;
    }
  }
}
