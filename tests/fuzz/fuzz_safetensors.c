/* fuzz_safetensors.c - libFuzzer target: any bytes given to the safetensors
 * reader give a parsed file or an error, never a crash; a parsed file
 * re-encodes to one that parses to the same names, dtypes, shapes, metadata
 * and bit-identical values (widening F16/BF16 to fp32 loses nothing, so
 * narrowing back is exact), except that a NaN need only stay a NaN: the
 * binary16 conversion quiets signaling NaNs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "base/formats/safetensors.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int same_tensor(const ws_safetensors_tensor *a, const ws_safetensors_tensor *b) {
  if (strcmp(a->name, b->name) != 0 || a->dtype != b->dtype || a->ndim != b->ndim || a->count != b->count)
    return 0;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d]) return 0;
  for (size_t i = 0; i < a->count; i++)
    if (ws_f32_bits(a->data[i]) != ws_f32_bits(b->data[i]) && !(isnan(a->data[i]) && isnan(b->data[i])))
      return 0;
  return 1;
}

static int same_file(const ws_safetensors *a, const ws_safetensors *b) {
  if (ws_safetensors_count(a) != ws_safetensors_count(b) ||
      ws_safetensors_metadata_count(a) != ws_safetensors_metadata_count(b))
    return 0;
  for (size_t i = 0; i < ws_safetensors_count(a); i++)
    if (!same_tensor(ws_safetensors_at(a, i), ws_safetensors_at(b, i))) return 0;
  for (size_t i = 0; i < ws_safetensors_metadata_count(a); i++) {
    const ws_safetensors_meta *m = ws_safetensors_metadata_at(a, i);
    const char *v = ws_safetensors_metadata(b, m->key);
    if (!v || strcmp(v, m->value) != 0) return 0;
  }
  return 1;
}

static void check_reencode(ws_ctx *ctx, const ws_safetensors *st) {
  size_t n = ws_safetensors_count(st), nmeta = ws_safetensors_metadata_count(st);
  ws_safetensors_tensor *ts = calloc(n ? n : 1, sizeof *ts);
  ws_safetensors_meta *meta = calloc(nmeta ? nmeta : 1, sizeof *meta);
  if (!ts || !meta) abort();
  for (size_t i = 0; i < n; i++) ts[i] = *ws_safetensors_at(st, i);
  for (size_t i = 0; i < nmeta; i++) meta[i] = *ws_safetensors_metadata_at(st, i);
  uint8_t *buf = NULL;
  size_t size = 0;
  ws_safetensors *again = NULL;
  if (ws_safetensors_encode(ctx, ts, n, meta, nmeta, &buf, &size) != WS_OK ||
      ws_safetensors_parse(ctx, buf, size, "reencoded", &again) != WS_OK || !same_file(st, again))
    abort();
  ws_safetensors_destroy(again);
  free(buf);
  free(meta);
  free(ts);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  ws_safetensors *st = NULL;
  if (ws_safetensors_parse(ctx, data, size, "fuzz.safetensors", &st) == WS_OK) check_reencode(ctx, st);
  ws_safetensors_destroy(st);
  ws_ctx_destroy(ctx);
  return 0;
}
