/* safetensors.h - reader and writer for the safetensors tensor format.
 *
 * Format: an 8-byte little-endian header length N, N bytes of JSON mapping
 * each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
 * (offsets relative to the data buffer that follows) plus an optional
 * "__metadata__" string-to-string map, then the data buffer.
 *
 * Design: the reader trusts nothing. The JSON (parsed with cJSON) is checked
 * field by field, every tensor's byte range must lie in the buffer and match
 * its shape and dtype, and the ranges must tile the buffer exactly (no
 * overlaps, no holes, no trailing bytes), as the reference implementation
 * requires. F16 and BF16 are widened to fp32 on load (exactly), so users see
 * one element type; other dtypes are refused by name. Tensors keep the order
 * of the header. The writer lays tensors out in the order given and pads the
 * header with spaces to a multiple of 8 bytes so the data stays aligned. */
#ifndef WS_SAFETENSORS_H
#define WS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

#define WS_SAFETENSORS_MAX_DIMS 8
/* The reference implementation's limit; a larger header is corrupt. */
#define WS_SAFETENSORS_MAX_HEADER_BYTES (100u << 20)

typedef enum ws_safetensors_dtype {
  WS_SAFETENSORS_F32,
  WS_SAFETENSORS_F16,
  WS_SAFETENSORS_BF16,
  WS_SAFETENSORS_DTYPE_COUNT
} ws_safetensors_dtype;

typedef struct ws_safetensors_tensor {
  const char *name;
  ws_safetensors_dtype dtype; /* as stored in the file */
  uint32_t ndim;              /* 0 for a scalar */
  uint64_t shape[WS_SAFETENSORS_MAX_DIMS];
  size_t count;      /* product of shape (1 for a scalar) */
  const float *data; /* count values, widened to fp32 */
} ws_safetensors_tensor;

typedef struct ws_safetensors_meta {
  const char *key;
  const char *value;
} ws_safetensors_meta;

typedef struct ws_safetensors ws_safetensors;

/* ---- reading --------------------------------------------------------------- */

/* Parses a whole file image from memory; `name` prefixes every message. */
ws_status ws_safetensors_parse(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                               ws_safetensors **out);
/* Reads and parses a file; one over max_bytes is refused before it is read. */
ws_status ws_safetensors_load(ws_ctx *ctx, const char *path, size_t max_bytes, ws_safetensors **out);
void ws_safetensors_destroy(ws_safetensors *st);

size_t ws_safetensors_count(const ws_safetensors *st);
/* The i-th tensor in header order; NULL past the end. */
const ws_safetensors_tensor *ws_safetensors_at(const ws_safetensors *st, size_t i);
const ws_safetensors_tensor *ws_safetensors_find(const ws_safetensors *st, const char *name);
size_t ws_safetensors_metadata_count(const ws_safetensors *st);
const ws_safetensors_meta *ws_safetensors_metadata_at(const ws_safetensors *st, size_t i);
/* The metadata value for key; NULL when absent. */
const char *ws_safetensors_metadata(const ws_safetensors *st, const char *key);

/* "F32", "F16", "BF16". */
const char *ws_safetensors_dtype_name(ws_safetensors_dtype dtype);
size_t ws_safetensors_dtype_size(ws_safetensors_dtype dtype);

/* ---- writing --------------------------------------------------------------- */

/* Encodes tensors (each converted from fp32 to its dtype, round to nearest
 * even) into a malloc'd file image. Names must be unique and not
 * "__metadata__"; count must equal the product of the shape. */
ws_status ws_safetensors_encode(ws_ctx *ctx, const ws_safetensors_tensor *tensors, size_t ntensors,
                                const ws_safetensors_meta *meta, size_t nmeta, uint8_t **out,
                                size_t *size_bytes);
/* ws_safetensors_encode, then an atomic write to path. */
ws_status ws_safetensors_write(ws_ctx *ctx, const char *path, const ws_safetensors_tensor *tensors,
                               size_t ntensors, const ws_safetensors_meta *meta, size_t nmeta);

#endif
