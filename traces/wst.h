/* wst.h - the .wst trace file: a writer that is a probe (sim/common/probe.h)
 * and a reader that seeks by launch and cycle.
 *
 * Design: events go to disk as they come, in chunks of at most
 * WS_WST_CHUNK_EVENTS events of one launch, each encoded column by column
 * (traces/codec.h) and compressed with zstd, so memory stays bounded
 * whatever the run's length and a real simulation costs a few bytes per
 * micro-op. What is known only at the end (kernel sources, stall-reason
 * names, the runtime's timeline, the journey blob, the named ranges) and the index of the
 * chunks follow the last chunk; the header at byte 0 points at them and is
 * written last, and the file appears under its name only on commit. Every
 * block carries its own size and CRC-32, so a reader opens what is intact
 * of a damaged file and says where and why it stopped. docs/traces.md
 * gives the layout. */
#ifndef WS_WST_H
#define WS_WST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/probe.h"
#include "sim/host/runtime.h"

#define WS_WST_VERSION 2u                        /* files of a newer version are refused */
#define WS_WST_MAX_REGIONS 65536u                /* named ranges a trace holds at most */
#define WS_WST_CHUNK_EVENTS 65536u               /* events per chunk at most */
#define WS_WST_NO_LAUNCH UINT32_MAX              /* events outside every launch (host timeline) */
#define WS_WST_NO_KERNEL UINT32_MAX              /* a launch whose record was lost (damaged file) */
#define WS_WST_MAX_META_BYTES ((size_t)64 << 20) /* kernels, names, timeline and journey together */

/* What the writer keeps; NULL or all zero: everything. */
typedef struct ws_wst_filter {
  const char *const *kernels; /* only launches of these kernels (others: a table entry, no events at all) */
  size_t kernel_count;
  const uint32_t *sms; /* only events of these SMs; events without an SM (DRAM, L2 fills, host) stay */
  size_t sm_count;
  uint64_t cycle_begin,
      cycle_end;    /* only events beginning in [begin, end) of their launch; end 0: no bound */
  bool follow_only; /* only WS_PROBE_TAGGED events, plus KERNEL, CTA, HOST and PCIE records */
} ws_wst_filter;

typedef struct ws_wst_counts {
  uint64_t seen[WS_PEV_COUNT];     /* events the probe received */
  uint64_t recorded[WS_PEV_COUNT]; /* events the filter kept */
} ws_wst_counts;

typedef struct ws_wst_kernel_info {
  const char *name;
  const char *source; /* "" when the owner gave none */
  uint32_t regs_per_thread, shared_bytes;
} ws_wst_kernel_info;

#define WS_WST_LAUNCH_FILTERED 0x1u   /* left out by the kernel filter: no events */
#define WS_WST_LAUNCH_UNFINISHED 0x2u /* no launch_end was seen (a stopped run, or a damaged file) */

typedef struct ws_wst_launch_info {
  uint32_t kernel; /* index into the kernel table, or WS_WST_NO_KERNEL */
  uint32_t grid[3], block[3];
  uint32_t ctas_per_sm;
  uint64_t cycles;
  uint64_t events_seen, events; /* events the probe received, events recorded */
  uint32_t first_chunk, chunk_count;
  uint32_t flags; /* WS_WST_LAUNCH_* */
} ws_wst_launch_info;

typedef struct ws_wst_chunk_info {
  uint64_t offset; /* of its block header */
  uint32_t launch; /* or WS_WST_NO_LAUNCH */
  uint32_t events;
  uint64_t min_begin, max_begin;
} ws_wst_chunk_info;

/* ---- writing ------------------------------------------------------------------ */

typedef struct ws_wst_writer ws_wst_writer;

/* Starts a trace of `cfg` (embedded as INI text) into a temporary file
 * beside `path`; `filter` is copied (NULL: keep everything). Messages go to
 * ctx, which must outlive the writer. */
ws_status ws_wst_writer_create(ws_ctx *ctx, const char *path, const ws_gpu_cfg *cfg,
                               const ws_wst_filter *filter, ws_wst_writer **out);
/* Removes the temporary file unless committed. */
void ws_wst_writer_free(ws_wst_writer *w);
/* The probe to set on the device; valid until ws_wst_writer_free. */
const ws_probe *ws_wst_writer_probe(ws_wst_writer *w);
/* The names of stall reasons (WS_PEV_STALL's a), copied. */
ws_status ws_wst_writer_set_names(ws_wst_writer *w, const char *const *names, size_t count);
/* The text the kernel identified by `kernel` (launch_begin's l->kernel) was
 * assembled from, copied; before or after its launches. */
ws_status ws_wst_writer_kernel_source(ws_wst_writer *w, const void *kernel, const char *source_text);
/* With on, a kernel launched without a source given (above) gets its
 * canonical disassembly as its text: launch_begin's l->kernel must then be
 * the ws_kernel launched, as the simulator's probe gives it. */
void ws_wst_writer_disassemble(ws_wst_writer *w, bool on);
/* The runtime's timeline, copied: kind, stream, name, size, host memory,
 * grid, block, start, end and kernel name of each record. */
ws_status ws_wst_writer_set_timeline(ws_wst_writer *w, const ws_runtime_record *recs, size_t count);
/* The runtime's named device ranges (ws_runtime_regions: sorted, never
 * overlapping, names under WS_RUNTIME_NAME_MAX), copied; a table that is
 * not so, or longer than WS_WST_MAX_REGIONS, is refused. */
ws_status ws_wst_writer_set_regions(ws_wst_writer *w, const ws_runtime_region *regions, size_t count);
/* Opaque bytes stored and returned verbatim, copied. */
ws_status ws_wst_writer_set_journey(ws_wst_writer *w, const void *data, size_t size_bytes);
/* Writes the last chunk, the metadata, the index and the header, and puts
 * the file in place; returns the first error any callback met (a full disk,
 * no memory) instead, leaving nothing behind. Once only. */
ws_status ws_wst_writer_commit(ws_wst_writer *w);
const ws_wst_counts *ws_wst_writer_counts(const ws_wst_writer *w);

/* ---- reading ------------------------------------------------------------------ */

typedef struct ws_wst_reader ws_wst_reader;

/* Reads the header, the config, the metadata and the index. A file whose
 * metadata or index is missing or damaged (truncated, a bad CRC-32) still
 * opens: its blocks are walked from the start and what is intact is
 * readable, with ws_wst_warning saying where and why the walk stopped. Not
 * a .wst file, or a newer version: an error naming the byte. Messages and
 * later errors go to ctx, which must outlive the reader. */
ws_status ws_wst_open(ws_ctx *ctx, const char *path, ws_wst_reader **out);
/* The same from memory; `data` is not copied and must outlive the reader;
 * `name` names it in messages. */
ws_status ws_wst_open_memory(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                             ws_wst_reader **out);
void ws_wst_close(ws_wst_reader *r);

/* NULL for an intact file; else why the index went unused and where the
 * walk stopped: "NAME: byte N: X expected, Y found; walked the blocks
 * instead: byte M: ...; K chunks (E events) before it". */
const char *ws_wst_warning(const ws_wst_reader *r);
uint32_t ws_wst_version(const ws_wst_reader *r);
uint64_t ws_wst_file_bytes(const ws_wst_reader *r);
/* The embedded INI text ("" when lost), and the config it loads to, with
 * every launch record checked against it (grid and block within the
 * preset's limits, CTAs per SM within what the kernel record's registers
 * and shared bytes let fit, a finished launch no shorter than the last
 * micro-op it began): the one check stats, export, viz and `trace info`
 * share. WS_ERR_INVALID naming the launch. */
const char *ws_wst_config_text(const ws_wst_reader *r);
ws_status ws_wst_config(const ws_wst_reader *r, ws_gpu_cfg *out);

size_t ws_wst_kernel_count(const ws_wst_reader *r);
const ws_wst_kernel_info *ws_wst_kernel(const ws_wst_reader *r, size_t i);
size_t ws_wst_launch_count(const ws_wst_reader *r);
const ws_wst_launch_info *ws_wst_launch(const ws_wst_reader *r, size_t i);
size_t ws_wst_chunk_count(const ws_wst_reader *r);
const ws_wst_chunk_info *ws_wst_chunk(const ws_wst_reader *r, size_t i);
const char *const *ws_wst_names(const ws_wst_reader *r, size_t *count);
/* The stored fields of each record; stats and summary are zero. */
const ws_runtime_record *ws_wst_timeline(const ws_wst_reader *r, size_t *count);
const void *ws_wst_journey(const ws_wst_reader *r, size_t *size_bytes);
/* The named device ranges, sorted by address and never overlapping (none
 * in a version-1 file, or when the metadata was lost). */
const ws_runtime_region *ws_wst_regions(const ws_wst_reader *r, size_t *count);
/* Events seen and recorded per kind (zero when the metadata was lost). */
const ws_wst_counts *ws_wst_counts_of(const ws_wst_reader *r);
/* Chunks decompressed so far by all cursors: what a seek skipped shows. */
uint64_t ws_wst_chunks_decoded(const ws_wst_reader *r);

/* Events one chunk at a time, in file order. */
typedef struct ws_wst_cursor ws_wst_cursor;

/* Every event of the file. */
ws_status ws_wst_cursor_open(ws_wst_reader *r, ws_wst_cursor **out);
/* The events of one launch (WS_WST_NO_LAUNCH: those outside launches) that
 * begin in [cycle_begin, cycle_end) (cycle_end 0: no bound); chunks whose
 * begin range misses it are never read. */
ws_status ws_wst_cursor_open_launch(ws_wst_reader *r, uint32_t launch, uint64_t cycle_begin,
                                    uint64_t cycle_end, ws_wst_cursor **out);
/* The next event and its launch: *got false at the end. A damaged chunk is
 * an error naming its byte and index; the cursor has then moved past it, so
 * calling again goes on with the next chunk. */
ws_status ws_wst_cursor_next(ws_wst_cursor *c, ws_probe_event *ev, uint32_t *launch, bool *got);
void ws_wst_cursor_close(ws_wst_cursor *c);

#endif
