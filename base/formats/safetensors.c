/* safetensors.c - the safetensors reader (validating) and writer.
 *
 * The reader works in passes over a parsed cJSON tree: frame (length field),
 * JSON, per-entry fields, layout of all byte ranges together, then widening
 * of the data to fp32. Every check happens before any data is read, so a
 * failure never leaves a half-filled object. All integers in the file are
 * little-endian and decoded byte by byte, independent of host byte order. */
#include "base/formats/safetensors.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/f16.h"
#include "base/file.h"

#define LENGTH_FIELD_BYTES 8
#define METADATA_KEY "__metadata__"
/* Doubles represent every integer up to 2^53; JSON numbers beyond it are not
 * trustworthy offsets or dimensions. */
#define MAX_JSON_INTEGER 9007199254740992.0

struct ws_safetensors {
  ws_safetensors_tensor *tensors;
  size_t ntensors;
  ws_safetensors_meta *meta;
  size_t nmeta;
  float *values; /* every tensor's data, one allocation */
};

/* What the reader knows about one tensor before its data is decoded. */
typedef struct entry {
  uint64_t begin, end; /* byte range in the data buffer */
} entry;

typedef struct reader {
  ws_ctx *ctx;
  const char *name;
  const uint8_t *buf; /* the data buffer after the header */
  size_t buf_bytes;
  ws_safetensors *st;
  entry *entries;
} reader;

static const char *const dtype_names[WS_SAFETENSORS_DTYPE_COUNT] = {"F32", "F16", "BF16"};
static const size_t dtype_sizes[WS_SAFETENSORS_DTYPE_COUNT] = {4, 2, 2};

const char *ws_safetensors_dtype_name(ws_safetensors_dtype dtype) {
  return (unsigned)dtype < WS_SAFETENSORS_DTYPE_COUNT ? dtype_names[dtype] : "?";
}

size_t ws_safetensors_dtype_size(ws_safetensors_dtype dtype) {
  return (unsigned)dtype < WS_SAFETENSORS_DTYPE_COUNT ? dtype_sizes[dtype] : 0;
}

/* ---- small helpers ------------------------------------------------------------ */

/* "[2, 3]" into buf; truncates quietly, the message stays readable. */
static const char *format_shape(char *buf, size_t cap, const uint64_t *shape, uint32_t ndim) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < ndim && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
  if (len < cap) snprintf(buf + len, cap - len, "]");
  return buf;
}

/* Elements of a shape; false when the product overflows 64 bits. A zero
 * dimension makes an empty tensor however large the others are. */
static bool shape_count(const uint64_t *shape, uint32_t ndim, uint64_t *count) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < ndim; i++)
    if (shape[i] == 0) return *count = 0, true;
  for (uint32_t i = 0; i < ndim; i++) {
    if (n > UINT64_MAX / shape[i]) return false;
    n *= shape[i];
  }
  *count = n;
  return true;
}

static int cmp_str_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first name (in sorted order) that occurs twice; NULL when all are
 * distinct or on allocation failure (the caller then skips the check only
 * if it cannot allocate, which it reports separately). */
static const char *find_duplicate(const char *const *names, size_t n, bool *nomem) {
  *nomem = false;
  if (n < 2) return NULL;
  const char **sorted = malloc(n * sizeof *sorted);
  if (!sorted) return *nomem = true, NULL;
  memcpy(sorted, names, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_str_ptr);
  const char *dup = NULL;
  for (size_t i = 1; i < n && !dup; i++)
    if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
  free(sorted);
  return dup;
}

static bool json_uint(const cJSON *item, uint64_t *out) {
  if (!cJSON_IsNumber(item)) return false;
  double d = item->valuedouble;
  if (!(d >= 0.0 && d <= MAX_JSON_INTEGER && d == floor(d))) return false;
  *out = (uint64_t)d;
  return true;
}

/* ---- frame and JSON -------------------------------------------------------- */

/* The header length n against the limit, the bytes after the length field
 * (when `known`: a stream's first bytes do not say how many follow) and 0. */
static ws_status check_length(ws_ctx *ctx, const char *name, uint64_t n, size_t after_bytes, bool known) {
  if (n > WS_SAFETENSORS_MAX_HEADER_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: header length %llu exceeds the %u-byte limit", name,
                       (unsigned long long)n, WS_SAFETENSORS_MAX_HEADER_BYTES);
  if (known && n > after_bytes)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: header length %llu exceeds the %zu bytes after the length field", name,
                       (unsigned long long)n, after_bytes);
  if (n == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: header length is 0", name);
  return WS_OK;
}

static ws_status check_frame(ws_ctx *ctx, const char *name, size_t size_bytes, const uint8_t *data,
                             size_t *hdr_bytes) {
  if (size_bytes < LENGTH_FIELD_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: file is %zu bytes, shorter than the 8-byte header length field", name,
                       size_bytes);
  uint64_t n = ws_bytes_le64(data);
  ws_status st = check_length(ctx, name, n, size_bytes - LENGTH_FIELD_BYTES, true);
  if (st == WS_OK) *hdr_bytes = (size_t)n;
  return st;
}

static bool only_json_space(const char *p, const char *end) {
  for (; p < end; p++)
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return false;
  return true;
}

static ws_status parse_json(ws_ctx *ctx, const char *name, const char *json, size_t len, cJSON **root) {
  const char *stop = NULL;
  *root = cJSON_ParseWithLengthOpts(json, len, &stop, 0);
  size_t at = stop && stop >= json ? (size_t)(stop - json) : 0;
  if (!*root)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: invalid JSON in the header at header byte %zu (file offset %zu)", name, at,
                       at + LENGTH_FIELD_BYTES);
  if (!only_json_space(json + at, json + len))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: unexpected bytes after the JSON header at header byte %zu (file "
                       "offset %zu)",
                       name, at, at + LENGTH_FIELD_BYTES);
  if (!cJSON_IsObject(*root))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: the header is not a JSON object", name);
  return WS_OK;
}

/* ---- header entries ------------------------------------------------------------ */

static ws_status parse_metadata(reader *r, const cJSON *obj) {
  if (!cJSON_IsObject(obj))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: \"%s\" is not an object", r->name, METADATA_KEY);
  size_t n = (size_t)cJSON_GetArraySize(obj);
  r->st->meta = calloc(n ? n : 1, sizeof *r->st->meta);
  if (!r->st->meta) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  for (const cJSON *kv = obj->child; kv; kv = kv->next) {
    if (!cJSON_IsString(kv))
      return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: \"%s\" value for '%s' is not a string", r->name,
                         METADATA_KEY, kv->string);
    ws_safetensors_meta *m = &r->st->meta[r->st->nmeta++];
    m->key = strdup(kv->string);
    m->value = strdup(kv->valuestring);
    if (!m->key || !m->value) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  }
  return WS_OK;
}

static ws_status parse_dtype(reader *r, const cJSON *obj, ws_safetensors_tensor *t) {
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(obj, "dtype");
  if (!cJSON_IsString(d))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': \"dtype\" is missing or not a string",
                       r->name, t->name);
  for (int i = 0; i < WS_SAFETENSORS_DTYPE_COUNT; i++)
    if (strcmp(d->valuestring, dtype_names[i]) == 0) return t->dtype = (ws_safetensors_dtype)i, WS_OK;
  return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                     "%s: tensor '%s' has dtype '%s', which is not supported (F32, F16 and BF16 "
                     "are)",
                     r->name, t->name, d->valuestring);
}

static ws_status parse_shape(reader *r, const cJSON *obj, ws_safetensors_tensor *t) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, "shape");
  if (!cJSON_IsArray(s))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': \"shape\" is missing or not an array",
                       r->name, t->name);
  int ndim = cJSON_GetArraySize(s);
  if (ndim > WS_SAFETENSORS_MAX_DIMS)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s' has %d dimensions, at most %d are supported",
                       r->name, t->name, ndim, WS_SAFETENSORS_MAX_DIMS);
  t->ndim = (uint32_t)ndim;
  uint32_t i = 0;
  for (const cJSON *dim = s->child; dim; dim = dim->next, i++)
    if (!json_uint(dim, &t->shape[i]))
      return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': shape[%u] is not a non-negative integer",
                         r->name, t->name, i);
  return WS_OK;
}

static ws_status parse_offsets(reader *r, const cJSON *obj, const ws_safetensors_tensor *t, entry *e) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, "data_offsets");
  if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 2 || !json_uint(o->child, &e->begin) ||
      !json_uint(o->child->next, &e->end))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: tensor '%s': \"data_offsets\" must be an array of two non-negative "
                       "integers",
                       r->name, t->name);
  if (e->begin > e->end)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': data_offsets [%llu, %llu] are reversed",
                       r->name, t->name, (unsigned long long)e->begin, (unsigned long long)e->end);
  if (e->end > r->buf_bytes)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: tensor '%s': data_offsets [%llu, %llu] extend past the end of the "
                       "%zu-byte data buffer",
                       r->name, t->name, (unsigned long long)e->begin, (unsigned long long)e->end,
                       r->buf_bytes);
  return WS_OK;
}

static ws_status check_size(reader *r, ws_safetensors_tensor *t, const entry *e) {
  char shape[160];
  uint64_t count = 0, span = e->end - e->begin, size = dtype_sizes[t->dtype];
  format_shape(shape, sizeof shape, t->shape, t->ndim);
  if (!shape_count(t->shape, t->ndim, &count) || count > UINT64_MAX / size)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': shape %s is too large", r->name, t->name,
                       shape);
  if (count * size != span)
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: tensor '%s': data_offsets span %llu bytes but shape %s of %s needs "
                       "%llu",
                       r->name, t->name, (unsigned long long)span, shape, dtype_names[t->dtype],
                       (unsigned long long)(count * size));
  t->count = (size_t)count;
  return WS_OK;
}

static ws_status parse_tensor(reader *r, const cJSON *obj, size_t idx) {
  ws_safetensors_tensor *t = &r->st->tensors[idx];
  t->name = strdup(obj->string);
  if (!t->name) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  if (!cJSON_IsObject(obj))
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensor '%s': entry is not an object", r->name, t->name);
  ws_status st = parse_dtype(r, obj, t);
  if (st == WS_OK) st = parse_shape(r, obj, t);
  if (st == WS_OK) st = parse_offsets(r, obj, t, &r->entries[idx]);
  if (st == WS_OK) st = check_size(r, t, &r->entries[idx]);
  return st;
}

static ws_status parse_entries(reader *r, const cJSON *root) {
  size_t n = (size_t)cJSON_GetArraySize(root);
  r->st->tensors = calloc(n ? n : 1, sizeof *r->st->tensors);
  r->entries = calloc(n ? n : 1, sizeof *r->entries);
  if (!r->st->tensors || !r->entries) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  bool seen_meta = false;
  for (const cJSON *item = root->child; item; item = item->next) {
    ws_status st;
    if (strcmp(item->string, METADATA_KEY) == 0) {
      if (seen_meta)
        return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: \"%s\" appears twice", r->name, METADATA_KEY);
      seen_meta = true;
      st = parse_metadata(r, item);
    } else {
      st = parse_tensor(r, item, r->st->ntensors++);
    }
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

static ws_status check_unique(reader *r) {
  ws_safetensors *st = r->st;
  size_t n = st->ntensors > st->nmeta ? st->ntensors : st->nmeta;
  const char **names = malloc((n ? n : 1) * sizeof *names);
  if (!names) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  bool nomem = false;
  for (size_t i = 0; i < st->ntensors; i++) names[i] = st->tensors[i].name;
  const char *dup = find_duplicate(names, st->ntensors, &nomem);
  const char *what = "tensor";
  if (!dup && !nomem) {
    for (size_t i = 0; i < st->nmeta; i++) names[i] = st->meta[i].key;
    dup = find_duplicate(names, st->nmeta, &nomem);
    what = "metadata key";
  }
  ws_status rc = WS_OK;
  if (nomem)
    rc = ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  else if (dup)
    rc = ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: %s '%s' appears twice", r->name, what, dup);
  free(names);
  return rc;
}

/* ---- layout: the ranges must tile the data buffer ------------------------------ */

typedef struct by_range {
  const entry *entries;
  size_t idx;
} by_range;

static int cmp_range(const void *a, const void *b) {
  const by_range *x = a, *y = b;
  const entry *ex = &x->entries[x->idx], *ey = &y->entries[y->idx];
  if (ex->begin != ey->begin) return ex->begin < ey->begin ? -1 : 1;
  if (ex->end != ey->end) return ex->end < ey->end ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static ws_status range_error(reader *r, const by_range *order, size_t i, uint64_t expected) {
  /* i == ntensors: the last range ends before the buffer does */
  if (i == r->st->ntensors || i == 0 || r->entries[order[i].idx].begin > expected) {
    uint64_t to = i < r->st->ntensors ? r->entries[order[i].idx].begin : r->buf_bytes;
    return ws_ctx_fail(r->ctx, WS_ERR_INVALID,
                       "%s: bytes [%llu, %llu) of the %zu-byte data buffer belong to no tensor", r->name,
                       (unsigned long long)expected, (unsigned long long)to, r->buf_bytes);
  }
  const entry *a = &r->entries[order[i - 1].idx], *b = &r->entries[order[i].idx];
  return ws_ctx_fail(r->ctx, WS_ERR_INVALID, "%s: tensors '%s' [%llu, %llu) and '%s' [%llu, %llu) overlap",
                     r->name, r->st->tensors[order[i - 1].idx].name, (unsigned long long)a->begin,
                     (unsigned long long)a->end, r->st->tensors[order[i].idx].name,
                     (unsigned long long)b->begin, (unsigned long long)b->end);
}

static ws_status check_layout(reader *r) {
  size_t n = r->st->ntensors;
  by_range *order = malloc((n ? n : 1) * sizeof *order);
  if (!order) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  for (size_t i = 0; i < n; i++) order[i] = (by_range){r->entries, i};
  qsort(order, n, sizeof *order, cmp_range);
  uint64_t expected = 0;
  ws_status st = WS_OK;
  for (size_t i = 0; i < n && st == WS_OK; i++) {
    if (r->entries[order[i].idx].begin != expected) st = range_error(r, order, i, expected);
    expected = r->entries[order[i].idx].end;
  }
  if (st == WS_OK && expected != r->buf_bytes) st = range_error(r, order, n, expected);
  free(order);
  return st;
}

/* ---- data -------------------------------------------------------------------- */

static float decode_value(const uint8_t *p, ws_safetensors_dtype dtype) {
  switch (dtype) {
  case WS_SAFETENSORS_F16: return ws_f16_to_f32(ws_bytes_le16(p));
  case WS_SAFETENSORS_BF16: return ws_f32_from_bits((uint32_t)ws_bytes_le16(p) << 16);
  default: return ws_f32_from_bits(ws_bytes_le32(p));
  }
}

static ws_status decode_data(reader *r) {
  ws_safetensors *st = r->st;
  size_t total = 0;
  for (size_t i = 0; i < st->ntensors; i++) total += st->tensors[i].count;
  st->values = malloc((total ? total : 1) * sizeof *st->values);
  if (!st->values) return ws_ctx_fail(r->ctx, WS_ERR_NOMEM, "%s: out of memory", r->name);
  float *v = st->values;
  for (size_t i = 0; i < st->ntensors; i++) {
    ws_safetensors_tensor *t = &st->tensors[i];
    size_t size = dtype_sizes[t->dtype];
    const uint8_t *src = r->buf + r->entries[i].begin;
    for (size_t k = 0; k < t->count; k++) v[k] = decode_value(src + k * size, t->dtype);
    t->data = v;
    v += t->count;
  }
  return WS_OK;
}

ws_status ws_safetensors_parse(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                               ws_safetensors **out) {
  *out = NULL;
  const uint8_t *bytes = data;
  size_t hdr = 0;
  ws_status st = check_frame(ctx, name, size_bytes, bytes, &hdr);
  if (st != WS_OK) return st;
  cJSON *root = NULL;
  st = parse_json(ctx, name, (const char *)bytes + LENGTH_FIELD_BYTES, hdr, &root);
  reader r = {ctx, name, bytes + LENGTH_FIELD_BYTES + hdr, size_bytes - LENGTH_FIELD_BYTES - hdr, NULL, NULL};
  if (st == WS_OK) {
    r.st = calloc(1, sizeof *r.st);
    if (!r.st) st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", name);
  }
  if (st == WS_OK) st = parse_entries(&r, root);
  if (st == WS_OK) st = check_unique(&r);
  if (st == WS_OK) st = check_layout(&r);
  if (st == WS_OK) st = decode_data(&r);
  cJSON_Delete(root);
  free(r.entries);
  if (st != WS_OK)
    ws_safetensors_destroy(r.st);
  else
    *out = r.st;
  return st;
}

/* The length field, read before the rest of the file: /dev/zero or a
 * stream of other bytes is refused from its first 8 bytes. */
static ws_status judge_head(ws_ctx *ctx, const char *path, const void *head, size_t n, bool whole) {
  size_t hdr_bytes;
  if (whole) return check_frame(ctx, path, n, head, &hdr_bytes);
  return n < LENGTH_FIELD_BYTES ? WS_OK : check_length(ctx, path, ws_bytes_le64(head), 0, false);
}

ws_status ws_safetensors_load(ws_ctx *ctx, const char *path, size_t max_bytes, ws_safetensors **out) {
  *out = NULL;
  char *data = NULL;
  size_t size = 0;
  ws_status st = ws_file_read_judged(ctx, path, max_bytes, "safetensors weights", judge_head, &data, &size);
  if (st != WS_OK) return st;
  st = ws_safetensors_parse(ctx, data, size, path, out);
  free(data);
  return st;
}

void ws_safetensors_destroy(ws_safetensors *st) {
  if (!st) return;
  for (size_t i = 0; i < st->ntensors; i++) free((char *)st->tensors[i].name);
  for (size_t i = 0; i < st->nmeta; i++) {
    free((char *)st->meta[i].key);
    free((char *)st->meta[i].value);
  }
  free(st->tensors);
  free(st->meta);
  free(st->values);
  free(st);
}

size_t ws_safetensors_count(const ws_safetensors *st) { return st->ntensors; }

const ws_safetensors_tensor *ws_safetensors_at(const ws_safetensors *st, size_t i) {
  return i < st->ntensors ? &st->tensors[i] : NULL;
}

const ws_safetensors_tensor *ws_safetensors_find(const ws_safetensors *st, const char *name) {
  for (size_t i = 0; i < st->ntensors; i++)
    if (strcmp(st->tensors[i].name, name) == 0) return &st->tensors[i];
  return NULL;
}

size_t ws_safetensors_metadata_count(const ws_safetensors *st) { return st->nmeta; }

const ws_safetensors_meta *ws_safetensors_metadata_at(const ws_safetensors *st, size_t i) {
  return i < st->nmeta ? &st->meta[i] : NULL;
}

const char *ws_safetensors_metadata(const ws_safetensors *st, const char *key) {
  for (size_t i = 0; i < st->nmeta; i++)
    if (strcmp(st->meta[i].key, key) == 0) return st->meta[i].value;
  return NULL;
}

/* ---- writer -------------------------------------------------------------------- */

/* Round to nearest even; a NaN stays a NaN (a payload only in the low half
 * would otherwise truncate to infinity). */
static uint16_t bf16_from_f32(float f) {
  uint32_t u = ws_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    uint16_t h = (uint16_t)(u >> 16);
    return (h & 0x7fu) ? h : (uint16_t)(h | 0x40u);
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static void encode_value(uint8_t *p, float v, ws_safetensors_dtype dtype) {
  uint32_t bits = dtype == WS_SAFETENSORS_F32   ? ws_f32_bits(v)
                  : dtype == WS_SAFETENSORS_F16 ? ws_f16_from_f32(v)
                                                : bf16_from_f32(v);
  for (size_t i = 0; i < dtype_sizes[dtype]; i++) p[i] = (uint8_t)(bits >> (8 * i));
}

static ws_status check_tensor_in(ws_ctx *ctx, const ws_safetensors_tensor *t) {
  uint64_t count = 0;
  if (!t->name || strcmp(t->name, METADATA_KEY) == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "safetensors writer: invalid tensor name '%s'",
                       t->name ? t->name : "(null)");
  if ((unsigned)t->dtype >= WS_SAFETENSORS_DTYPE_COUNT || t->ndim > WS_SAFETENSORS_MAX_DIMS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "safetensors writer: tensor '%s' has a bad dtype or rank",
                       t->name);
  if (!shape_count(t->shape, t->ndim, &count) || count != t->count || (count && !t->data))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "safetensors writer: tensor '%s' has %zu values, which does not match its "
                       "shape",
                       t->name, t->count);
  return WS_OK;
}

/* Fails when two of the n names are equal; `what` names the kind. */
static ws_status check_distinct(ws_ctx *ctx, const char **names, size_t n, const char *what) {
  bool nomem = false;
  const char *dup = find_duplicate(names, n, &nomem);
  if (nomem) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "safetensors writer: out of memory");
  if (dup) return ws_ctx_fail(ctx, WS_ERR_INVALID, "safetensors writer: %s '%s' appears twice", what, dup);
  return WS_OK;
}

static ws_status check_writer_input(ws_ctx *ctx, const ws_safetensors_tensor *tensors, size_t n,
                                    const ws_safetensors_meta *meta, size_t nmeta) {
  for (size_t i = 0; i < n; i++) {
    ws_status st = check_tensor_in(ctx, &tensors[i]);
    if (st != WS_OK) return st;
  }
  for (size_t i = 0; i < nmeta; i++)
    if (!meta[i].key || !meta[i].value)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "safetensors writer: metadata entry %zu is NULL", i);
  size_t cap = n > nmeta ? n : nmeta;
  const char **names = malloc((cap ? cap : 1) * sizeof *names);
  if (!names) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "safetensors writer: out of memory");
  for (size_t i = 0; i < n; i++) names[i] = tensors[i].name;
  ws_status st = check_distinct(ctx, names, n, "tensor");
  for (size_t i = 0; i < nmeta; i++) names[i] = meta[i].key;
  if (st == WS_OK) st = check_distinct(ctx, names, nmeta, "metadata key");
  free(names);
  return st;
}

static bool add_tensor_json(cJSON *root, const ws_safetensors_tensor *t, uint64_t begin, uint64_t end) {
  cJSON *obj = cJSON_CreateObject(), *shape = cJSON_CreateArray(), *offs = cJSON_CreateArray();
  bool ok = obj && shape && offs && cJSON_AddStringToObject(obj, "dtype", dtype_names[t->dtype]);
  for (uint32_t i = 0; ok && i < t->ndim; i++)
    ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t->shape[i]));
  ok = ok && cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)begin)) &&
       cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)end));
  if (ok && cJSON_AddItemToObject(obj, "shape", shape)) shape = NULL;
  if (ok && cJSON_AddItemToObject(obj, "data_offsets", offs)) offs = NULL;
  ok = ok && !shape && !offs && cJSON_AddItemToObject(root, t->name, obj);
  cJSON_Delete(shape);
  cJSON_Delete(offs);
  if (!ok) cJSON_Delete(obj);
  return ok;
}

static bool add_metadata_json(cJSON *root, const ws_safetensors_meta *meta, size_t nmeta) {
  if (nmeta == 0) return true;
  cJSON *obj = cJSON_AddObjectToObject(root, METADATA_KEY);
  bool ok = obj != NULL;
  for (size_t i = 0; ok && i < nmeta; i++)
    ok = cJSON_AddStringToObject(obj, meta[i].key, meta[i].value) != NULL;
  return ok;
}

/* The header JSON, or NULL when out of memory; data offsets assume tensors
 * laid out back to back in the order given. */
static char *header_json(const ws_safetensors_tensor *tensors, size_t n, const ws_safetensors_meta *meta,
                         size_t nmeta, uint64_t *data_bytes) {
  cJSON *root = cJSON_CreateObject();
  bool ok = root && add_metadata_json(root, meta, nmeta);
  uint64_t at = 0;
  for (size_t i = 0; ok && i < n; i++) {
    uint64_t size = (uint64_t)tensors[i].count * dtype_sizes[tensors[i].dtype];
    ok = add_tensor_json(root, &tensors[i], at, at + size);
    at += size;
  }
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  *data_bytes = at;
  return text;
}

ws_status ws_safetensors_encode(ws_ctx *ctx, const ws_safetensors_tensor *tensors, size_t ntensors,
                                const ws_safetensors_meta *meta, size_t nmeta, uint8_t **out,
                                size_t *size_bytes) {
  *out = NULL;
  ws_status st = check_writer_input(ctx, tensors, ntensors, meta, nmeta);
  if (st != WS_OK) return st;
  uint64_t data_bytes = 0;
  char *json = header_json(tensors, ntensors, meta, nmeta, &data_bytes);
  if (!json) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "safetensors writer: out of memory");
  size_t json_len = strlen(json), hdr = (json_len + 7) & ~(size_t)7;
  size_t total = LENGTH_FIELD_BYTES + hdr + (size_t)data_bytes;
  uint8_t *buf = malloc(total);
  if (!buf) {
    cJSON_free(json);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "safetensors writer: out of memory");
  }
  ws_bytes_put_le64(buf, hdr);
  memcpy(buf + LENGTH_FIELD_BYTES, json, json_len);
  memset(buf + LENGTH_FIELD_BYTES + json_len, ' ', hdr - json_len);
  cJSON_free(json);
  uint8_t *p = buf + LENGTH_FIELD_BYTES + hdr;
  for (size_t i = 0; i < ntensors; i++) {
    const ws_safetensors_tensor *t = &tensors[i];
    for (size_t k = 0; k < t->count; k++, p += dtype_sizes[t->dtype]) encode_value(p, t->data[k], t->dtype);
  }
  *out = buf;
  *size_bytes = total;
  return WS_OK;
}

ws_status ws_safetensors_write(ws_ctx *ctx, const char *path, const ws_safetensors_tensor *tensors,
                               size_t ntensors, const ws_safetensors_meta *meta, size_t nmeta) {
  uint8_t *buf = NULL;
  size_t size = 0;
  ws_status st = ws_safetensors_encode(ctx, tensors, ntensors, meta, nmeta, &buf, &size);
  if (st == WS_OK) st = ws_file_write_atomic(ctx, path, buf, size);
  free(buf);
  return st;
}
