/* objfile.c - .wso encode/decode (see objfile.h for the format's rules).
 *
 * Layout, all integers little-endian (docs/isa.md, "Object files"):
 *   header  "\x7fWSO" u32 version u32 size_bytes u32 crc32 u32 nkernels
 *   per kernel:
 *   name[64] u32 ninsns nparams param_size nshared shared_size nlabels
 *            local_bytes (version 3 on)
 *   params  { name[64] u8 type u32 offset u32 size }
 *   shared  { name[64] u32 offset u32 size u32 align }
 *   labels  { name[64] u32 pc }
 *   insns   { u16 op u8 guard guard_neg cmp dtype width hsel
 *             4 x { u8 kind reg flags pad u32 imm } u32 source_line }
 * crc32 is zlib's CRC-32 of the whole file with the crc32 field read as
 * zero. Checks run cheapest and most telling first: magic, version (so an
 * old object gets "reassemble", not "corrupt"), size, checksum, then every
 * field. The checksum catches accidents; the field checks keep a crafted
 * object with a valid checksum from loading anything the text could not say,
 * so every object that loads is exactly what ws_objfile_save writes for it. */
#include "isa/objfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/bytes.h"
#include "isa/analysis.h"
#include "isa/verify.h"

static const uint8_t magic[4] = {0x7f, 'W', 'S', 'O'};

enum {
  VERSION_AT = 4,
  SIZE_AT = 8,
  CRC_AT = 12,
  NKERNELS_AT = 16,
  HEADER_BYTES = 20,
  INSN_RECORD_BYTES = 2 + 6 + WS_MAX_OPERANDS * 8 + 4,
  NAME_BYTES = WS_NAME_MAX
};

/* CRC-32 of the image with its checksum field taken as zero, so the sum
 * covers every other byte, the header included. */
static uint32_t checksum(const uint8_t *image, size_t size_bytes) {
  static const uint8_t zero_field[4] = {0};
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, image, CRC_AT);
  crc = crc32_z(crc, zero_field, sizeof zero_field);
  crc = crc32_z(crc, image + CRC_AT + 4, size_bytes - (CRC_AT + 4));
  return (uint32_t)crc;
}

bool ws_objfile_seal(void *image, size_t size_bytes) {
  if (size_bytes < HEADER_BYTES || size_bytes > UINT32_MAX) return false;
  uint8_t *p = image;
  ws_bytes_put_le32(p + SIZE_AT, (uint32_t)size_bytes);
  ws_bytes_put_le32(p + CRC_AT, checksum(p, size_bytes));
  return true;
}

/* ---- encoding ------------------------------------------------------------- */

typedef ws_bytes writer;

static void put_bytes(writer *w, const void *src, size_t n) { ws_bytes_append(w, src, n); }

static void put_u8(writer *w, uint8_t v) { put_bytes(w, &v, 1); }

static void put_u16(writer *w, uint16_t v) { ws_bytes_append_le16(w, v); }

static void put_u32(writer *w, uint32_t v) { ws_bytes_append_le32(w, v); }

static void put_name(writer *w, const char *name) {
  char padded[NAME_BYTES] = {0};
  memcpy(padded, name, strnlen(name, NAME_BYTES - 1));
  put_bytes(w, padded, NAME_BYTES);
}

static void put_insn(writer *w, const ws_insn *in, uint32_t line) {
  put_u16(w, in->op);
  put_u8(w, in->guard);
  put_u8(w, in->guard_neg);
  put_u8(w, in->cmp);
  put_u8(w, in->dtype);
  put_u8(w, in->width_bytes);
  put_u8(w, in->hsel);
  for (int i = 0; i < WS_MAX_OPERANDS; i++) {
    put_u8(w, in->opnd[i].kind);
    put_u8(w, in->opnd[i].reg);
    put_u8(w, in->opnd[i].flags);
    put_u8(w, in->opnd[i].pad);
    put_u32(w, (uint32_t)in->opnd[i].imm);
  }
  put_u32(w, line);
}

static void put_kernel(writer *w, const ws_kernel *k) {
  put_name(w, k->name);
  uint32_t counts[7] = {k->ninsns,  k->nparams,    k->param_size_bytes, k->nshared, k->shared_size_bytes,
                        k->nlabels, k->local_bytes};
  for (int i = 0; i < 7; i++) put_u32(w, counts[i]);
  for (uint32_t i = 0; i < k->nparams; i++) {
    put_name(w, k->params[i].name);
    put_u8(w, k->params[i].type);
    put_u32(w, k->params[i].offset_bytes);
    put_u32(w, k->params[i].size_bytes);
  }
  for (uint32_t i = 0; i < k->nshared; i++) {
    put_name(w, k->shared[i].name);
    put_u32(w, k->shared[i].offset_bytes);
    put_u32(w, k->shared[i].size_bytes);
    put_u32(w, k->shared[i].align_bytes);
  }
  for (uint32_t i = 0; i < k->nlabels; i++) {
    put_name(w, k->labels[i].name);
    put_u32(w, k->labels[i].pc);
  }
  for (uint32_t i = 0; i < k->ninsns; i++) put_insn(w, &k->insns[i], k->insn_lines ? k->insn_lines[i] : 0);
}

bool ws_objfile_is_object(const void *data, size_t size_bytes) {
  return size_bytes >= sizeof magic && memcmp(data, magic, sizeof magic) == 0;
}

uint8_t *ws_objfile_save(const ws_program *prog, size_t *size_bytes) {
  writer w = {0};
  put_bytes(&w, magic, sizeof magic);
  put_u32(&w, WS_OBJFILE_VERSION);
  put_u32(&w, 0); /* size and checksum: ws_objfile_seal fills them in */
  put_u32(&w, 0);
  put_u32(&w, prog->nkernels);
  for (uint32_t i = 0; i < prog->nkernels; i++) put_kernel(&w, &prog->kernels[i]);
  if (w.failed || !ws_objfile_seal(w.data, w.len)) {
    ws_bytes_free(&w);
    return NULL;
  }
  *size_bytes = w.len;
  return w.data;
}

/* ---- decoding ------------------------------------------------------------- */

typedef struct reader {
  const uint8_t *p;
  size_t len, pos;
  bool short_read; /* ran past the end: every later read yields 0 */
  bool bad;        /* a field failed its check (message on ctx): likewise */
  ws_ctx *ctx;
  const char *name;
} reader;

/* Records the first bad field as "NAME: corrupt object at byte N: ...". */
static void __attribute__((format(printf, 3, 4))) bad_field(reader *r, size_t at, const char *fmt, ...) {
  if (r->bad) return;
  char what[WS_ERRMSG_MAX_BYTES / 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: corrupt object at byte %zu: %s", r->name, at, what);
  r->bad = true;
}

static const uint8_t *take(reader *r, size_t n) {
  if (r->bad || r->short_read || r->len - r->pos < n) {
    if (!r->bad) r->short_read = true;
    return NULL;
  }
  const uint8_t *at = r->p + r->pos;
  r->pos += n;
  return at;
}

static uint8_t get_u8(reader *r) {
  const uint8_t *b = take(r, 1);
  return b ? b[0] : 0;
}

static uint16_t get_u16(reader *r) {
  const uint8_t *b = take(r, 2);
  return b ? ws_bytes_le16(b) : 0;
}

static uint32_t get_u32(reader *r) {
  const uint8_t *b = take(r, 4);
  return b ? ws_bytes_le32(b) : 0;
}

/* A name field holds the name, a NUL, and zeros to its end: one spelling per
 * name, so nothing in the field can change without the check seeing it. */
static void get_name(reader *r, char *dst, const char *what) {
  size_t at = r->pos;
  const uint8_t *b = take(r, NAME_BYTES);
  if (!b) return;
  const uint8_t *nul = memchr(b, 0, NAME_BYTES);
  if (!nul) {
    bad_field(r, at, "%s has no terminating NUL within its %d bytes", what, NAME_BYTES);
    return;
  }
  for (const uint8_t *q = nul + 1; q < b + NAME_BYTES; q++)
    if (*q != 0) {
      bad_field(r, at + (size_t)(q - b), "byte 0x%02x in the padding of %s '%s', expected zero", *q, what,
                (const char *)b);
      return;
    }
  memcpy(dst, b, NAME_BYTES);
}

/* Allocates count records only when the input can still hold them, so a
 * corrupt count cannot request gigabytes. */
static void *alloc_records(reader *r, uint32_t count, size_t record_bytes, size_t elem_size) {
  if (count == 0 || r->short_read || r->bad || (r->len - r->pos) / record_bytes < count) {
    if (count && !r->bad) r->short_read = true;
    return NULL;
  }
  return calloc(count, elem_size);
}

static void get_insn(reader *r, ws_insn *in, uint32_t *line) {
  in->op = get_u16(r);
  in->guard = get_u8(r);
  in->guard_neg = get_u8(r);
  in->cmp = get_u8(r);
  in->dtype = get_u8(r);
  in->width_bytes = get_u8(r);
  in->hsel = get_u8(r);
  for (int i = 0; i < WS_MAX_OPERANDS; i++) {
    in->opnd[i].kind = get_u8(r);
    in->opnd[i].reg = get_u8(r);
    in->opnd[i].flags = get_u8(r);
    in->opnd[i].pad = get_u8(r);
    in->opnd[i].imm = (int32_t)get_u32(r);
  }
  *line = get_u32(r);
}

static bool get_tables(reader *r, ws_kernel *k) {
  k->params = alloc_records(r, k->nparams, NAME_BYTES + 9, sizeof *k->params);
  for (uint32_t i = 0; k->params && i < k->nparams; i++) {
    get_name(r, k->params[i].name, "param name");
    k->params[i].type = get_u8(r);
    k->params[i].offset_bytes = get_u32(r);
    k->params[i].size_bytes = get_u32(r);
  }
  k->shared = alloc_records(r, k->nshared, NAME_BYTES + 12, sizeof *k->shared);
  for (uint32_t i = 0; k->shared && i < k->nshared; i++) {
    get_name(r, k->shared[i].name, "shared symbol name");
    k->shared[i].offset_bytes = get_u32(r);
    k->shared[i].size_bytes = get_u32(r);
    k->shared[i].align_bytes = get_u32(r);
  }
  k->labels = alloc_records(r, k->nlabels, NAME_BYTES + 4, sizeof *k->labels);
  for (uint32_t i = 0; k->labels && i < k->nlabels; i++) {
    get_name(r, k->labels[i].name, "label name");
    k->labels[i].pc = get_u32(r);
  }
  return !r->short_read && !r->bad && (k->nparams == 0 || k->params) && (k->nshared == 0 || k->shared) &&
         (k->nlabels == 0 || k->labels);
}

/* Source lines are what the assembler records: one instruction per line, in
 * file order, so a kernel's lines rise strictly and start after the previous
 * kernel's last. A kernel built without source text has none (all zero).
 * *last_line carries the previous kernel's last line. */
static void check_lines(reader *r, const ws_kernel *k, size_t insns_at, uint32_t *last_line) {
  const uint32_t *lines = k->insn_lines;
  for (uint32_t pc = 0; pc < k->ninsns && !r->bad; pc++) {
    size_t at = insns_at + (size_t)pc * INSN_RECORD_BYTES + (INSN_RECORD_BYTES - 4);
    if (lines[0] == 0 && lines[pc] != 0)
      bad_field(r, at, "kernel '%s' pc %u: source line %u, but pc 0 has none (expected all or none)", k->name,
                pc, lines[pc]);
    else if (lines[0] != 0 && lines[pc] <= (pc ? lines[pc - 1] : *last_line))
      bad_field(r, at, "kernel '%s' pc %u: source line %u, expected a line after %u (one instruction a line)",
                k->name, pc, lines[pc], pc ? lines[pc - 1] : *last_line);
  }
  if (lines[0] != 0) *last_line = lines[k->ninsns - 1];
}

static bool get_kernel(reader *r, ws_kernel *k, uint32_t *last_line) {
  get_name(r, k->name, "kernel name");
  k->ninsns = get_u32(r);
  k->nparams = get_u32(r);
  k->param_size_bytes = get_u32(r);
  k->nshared = get_u32(r);
  k->shared_size_bytes = get_u32(r);
  k->nlabels = get_u32(r);
  k->local_bytes = get_u32(r);
  if (!get_tables(r, k)) return false;
  if (k->ninsns == 0) return true; /* ws_verify_kernel reports it */
  size_t insns_at = r->pos;
  k->insns = alloc_records(r, k->ninsns, INSN_RECORD_BYTES, sizeof *k->insns);
  k->insn_lines = k->insns ? calloc(k->ninsns, sizeof *k->insn_lines) : NULL;
  if (!k->insns || !k->insn_lines) return false;
  for (uint32_t i = 0; i < k->ninsns; i++) get_insn(r, &k->insns[i], &k->insn_lines[i]);
  if (!r->short_read) check_lines(r, k, insns_at, last_line);
  return !r->short_read && !r->bad;
}

static ws_status header_cut(ws_ctx *ctx, size_t size, const char *name) {
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s: truncated or corrupt object: %zu bytes, the header alone is %d", name, size,
                     HEADER_BYTES);
}

/* Magic, version, size and checksum, before any field is read. */
static ws_status check_header(ws_ctx *ctx, const uint8_t *p, size_t size, const char *name) {
  if (!ws_objfile_is_object(p, size))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: not a warpscope object (bad magic)", name);
  if (size < VERSION_AT + 4) return header_cut(ctx, size, name);
  uint32_t version = ws_bytes_le32(p + VERSION_AT);
  if (version != WS_OBJFILE_VERSION)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: object format version %u, this warpscope reads %u; reassemble the .wsa", name,
                       version, WS_OBJFILE_VERSION);
  if (size < HEADER_BYTES) return header_cut(ctx, size, name); /* after the version: an old one says so */
  uint32_t recorded = ws_bytes_le32(p + SIZE_AT);
  if (recorded != size)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: truncated or corrupt object: the header records %u bytes, the file has %zu", name,
                       recorded, size);
  uint32_t stored = ws_bytes_le32(p + CRC_AT), computed = checksum(p, size);
  if (stored != computed)
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "%s: corrupt object: checksum mismatch, the header says 0x%08x, the contents give 0x%08x", name,
        stored, computed);
  return WS_OK;
}

static ws_status decode(reader *r, ws_program *prog) {
  r->pos = NKERNELS_AT;
  prog->nkernels = get_u32(r);
  prog->kernels = alloc_records(r, prog->nkernels, NAME_BYTES + 24, sizeof *prog->kernels);
  if (!prog->kernels) prog->nkernels = 0;
  uint32_t last_line = 0;
  for (uint32_t i = 0; i < prog->nkernels && !r->short_read && !r->bad; i++)
    if (!get_kernel(r, &prog->kernels[i], &last_line) && !r->short_read && !r->bad)
      return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  if (r->bad) return WS_ERR_INVALID;
  if (r->short_read)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: truncated or corrupt object (at byte %zu of %zu)",
                       r->name, r->pos, r->len);
  if (r->pos != r->len)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: corrupt object at byte %zu: expected the end of the file after the last kernel, "
                       "found %zu more byte%s",
                       r->name, r->pos, r->len - r->pos, r->len - r->pos == 1 ? "" : "s");
  return WS_OK;
}

/* Recomputes what the assembler derives instead of trusting the file. */
static ws_status derive(ws_ctx *ctx, ws_program *prog) {
  for (uint32_t i = 0; i < prog->nkernels; i++) {
    ws_kernel *k = &prog->kernels[i];
    k->regs_per_thread = ws_analysis_regs(k);
    for (uint32_t pc = 0; pc < k->ninsns; pc++) k->insns[pc].rpc = 0;
    ws_status st = ws_analysis_reconvergence(ctx, k);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

ws_status ws_objfile_load(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                          ws_program **out) {
  *out = NULL;
  ws_status st = check_header(ctx, data, size_bytes, name);
  if (st != WS_OK) return st;
  ws_program *prog = calloc(1, sizeof *prog);
  if (!prog) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", name);
  reader r = {data, size_bytes, 0, false, false, ctx, name};
  st = decode(&r, prog);
  if (st == WS_OK && (st = ws_verify_program(ctx, prog)) != WS_OK) {
    char msg[WS_ERRMSG_MAX_BYTES];
    snprintf(msg, sizeof msg, "%s", ws_errmsg(ctx));
    ws_ctx_fail(ctx, st, "%s: %s", name, msg);
  }
  if (st == WS_OK) st = derive(ctx, prog);
  if (st != WS_OK) {
    ws_program_destroy(prog);
    return st;
  }
  *out = prog;
  return WS_OK;
}
