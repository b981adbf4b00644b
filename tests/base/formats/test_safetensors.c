/* test_safetensors.c - the safetensors reader against a fixture written by an
 * independent encoder (tests/data/make_fixtures.py), a bit-exact round trip
 * through the writer, the writer's byte layout, and a table of malformed
 * files, each with the message it must produce. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/f16.h"
#include "base/formats/safetensors.h"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_st_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(safetensors, .init = setup, .fini = teardown);

static uint32_t bits(float f) { return ws_f32_bits(f); }

Test(safetensors, reads_fixture_from_independent_encoder) {
  ws_safetensors *st = NULL;
  cr_assert_eq(ws_safetensors_load(ctx, WS_SOURCE_DIR "/tests/data/mixed.safetensors", (size_t)1 << 30, &st),
               WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_safetensors_count(st), 4);
  /* header order, not data order */
  static const char *const order[] = {"s", "b", "a", "c"};
  for (size_t i = 0; i < 4; i++) cr_expect_str_eq(ws_safetensors_at(st, i)->name, order[i]);
  cr_expect_null(ws_safetensors_at(st, 4));
  const ws_safetensors_tensor *a = ws_safetensors_find(st, "a"), *b = ws_safetensors_find(st, "b");
  const ws_safetensors_tensor *c = ws_safetensors_find(st, "c"), *s = ws_safetensors_find(st, "s");
  cr_assert(a && b && c && s);
  cr_expect_eq(a->dtype, WS_SAFETENSORS_F32);
  cr_expect_eq(a->ndim, 2);
  cr_expect_eq(a->shape[0], 2);
  cr_expect_eq(a->shape[1], 2);
  const float want_a[] = {1.0f, -2.0f, 0.5f, 3.25f};
  for (int i = 0; i < 4; i++) cr_expect_eq(a->data[i], want_a[i]);
  /* F16 0x3C00, 0xC000, 0x7BFF and BF16 0x3F80, 0xBF00 widened exactly */
  cr_expect_eq(b->dtype, WS_SAFETENSORS_F16);
  cr_expect_eq(b->data[0], 1.0f);
  cr_expect_eq(b->data[1], -2.0f);
  cr_expect_eq(b->data[2], 65504.0f);
  cr_expect_eq(c->dtype, WS_SAFETENSORS_BF16);
  cr_expect_eq(c->data[0], 1.0f);
  cr_expect_eq(c->data[1], -0.5f);
  cr_expect_eq(s->ndim, 0);
  cr_expect_eq(s->count, 1);
  cr_expect_eq(s->data[0], 7.0f);
  cr_expect_str_eq(ws_safetensors_metadata(st, "source"), "python-stdlib");
  cr_expect_null(ws_safetensors_metadata(st, "absent"));
  cr_expect_eq(ws_safetensors_metadata_count(st), 1);
  ws_safetensors_destroy(st);
}

Test(safetensors, f32_round_trip_is_bit_identical) {
  const float v1[] = {0.0f, -0.0f, 1.0f / 3.0f, -1e-40f /* subnormal */, INFINITY, -INFINITY, 3.4028235e38f};
  float v2[24];
  for (int i = 0; i < 24; i++) v2[i] = (float)i * 0.1f - 1.0f;
  v2[5] = ws_f32_from_bits(0x7fc01234u); /* NaN with a payload */
  ws_safetensors_tensor in[] = {
      {.name = "vec", .dtype = WS_SAFETENSORS_F32, .ndim = 1, .shape = {7}, .count = 7, .data = v1},
      {.name = "blk.0.w",
       .dtype = WS_SAFETENSORS_F32,
       .ndim = 3,
       .shape = {2, 3, 4},
       .count = 24,
       .data = v2},
      {.name = "empty", .dtype = WS_SAFETENSORS_F32, .ndim = 2, .shape = {0, 5}, .count = 0, .data = NULL}};
  const ws_safetensors_meta meta[] = {{"format", "pt"}, {"note", "quote \" and \\ kept"}};
  char path[128];
  snprintf(path, sizeof path, "%s/rt.safetensors", dir);
  cr_assert_eq(ws_safetensors_write(ctx, path, in, 3, meta, 2), WS_OK, "%s", ws_errmsg(ctx));
  ws_safetensors *st = NULL;
  cr_assert_eq(ws_safetensors_load(ctx, path, (size_t)1 << 30, &st), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_safetensors_count(st), 3);
  for (size_t t = 0; t < 3; t++) {
    const ws_safetensors_tensor *got = ws_safetensors_at(st, t);
    cr_expect_str_eq(got->name, in[t].name);
    cr_expect_eq(got->ndim, in[t].ndim);
    for (uint32_t d = 0; d < in[t].ndim; d++) cr_expect_eq(got->shape[d], in[t].shape[d]);
    cr_assert_eq(got->count, in[t].count);
    for (size_t i = 0; i < got->count; i++)
      cr_expect_eq(bits(got->data[i]), bits(in[t].data[i]), "%s[%zu]", got->name, i);
  }
  cr_expect_str_eq(ws_safetensors_metadata(st, "note"), "quote \" and \\ kept");
  ws_safetensors_destroy(st);
  remove(path);
}

Test(safetensors, half_types_round_to_nearest_even) {
  /* 1/3 = 0x3EAAAAAB: BF16 keeps the top half, rounding up to 0x3EAB =
   * 0.333984375; F16 is 0x3555 = 1365/4096 = 0.333251953125 */
  const float third[] = {1.0f / 3.0f, 1.0f / 3.0f};
  ws_safetensors_tensor in[] = {
      {.name = "bf", .dtype = WS_SAFETENSORS_BF16, .ndim = 1, .shape = {1}, .count = 1, .data = third},
      {.name = "h", .dtype = WS_SAFETENSORS_F16, .ndim = 1, .shape = {1}, .count = 1, .data = third}};
  uint8_t *buf = NULL;
  size_t size = 0;
  cr_assert_eq(ws_safetensors_encode(ctx, in, 2, NULL, 0, &buf, &size), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(buf[size - 4], 0xAB); /* bf16, little-endian */
  cr_expect_eq(buf[size - 3], 0x3E);
  cr_expect_eq(buf[size - 2], 0x55); /* f16 */
  cr_expect_eq(buf[size - 1], 0x35);
  ws_safetensors *st = NULL;
  cr_assert_eq(ws_safetensors_parse(ctx, buf, size, "mem", &st), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_safetensors_find(st, "bf")->data[0], 0.333984375f);
  cr_expect_eq(ws_safetensors_find(st, "h")->data[0], 0.333251953125f);
  ws_safetensors_destroy(st);
  free(buf);
}

Test(safetensors, writer_layout_matches_the_format) {
  const float one = 1.0f;
  ws_safetensors_tensor in = {
      .name = "x", .dtype = WS_SAFETENSORS_F32, .ndim = 1, .shape = {1}, .count = 1, .data = &one};
  uint8_t *buf = NULL;
  size_t size = 0;
  cr_assert_eq(ws_safetensors_encode(ctx, &in, 1, NULL, 0, &buf, &size), WS_OK);
  const char *json = "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
  size_t len = strlen(json), padded = (len + 7) / 8 * 8; /* 54 -> 56 */
  cr_assert_eq(size, 8 + padded + 4);
  cr_expect_eq(buf[0], padded);
  for (int i = 1; i < 8; i++) cr_expect_eq(buf[i], 0);
  cr_expect_eq(memcmp(buf + 8, json, len), 0, "header: %.*s", (int)padded, (const char *)buf + 8);
  for (size_t i = len; i < padded; i++) cr_expect_eq(buf[8 + i], ' ');
  const uint8_t one_le[4] = {0x00, 0x00, 0x80, 0x3f};
  cr_expect_eq(memcmp(buf + 8 + padded, one_le, 4), 0);
  free(buf);
}

Test(safetensors, writer_rejects_bad_tensors) {
  const float v[2] = {1, 2};
  ws_safetensors_tensor t[2] = {
      {.name = "a", .dtype = WS_SAFETENSORS_F32, .ndim = 1, .shape = {2}, .count = 2, .data = v},
      {.name = "a", .dtype = WS_SAFETENSORS_F32, .ndim = 1, .shape = {2}, .count = 2, .data = v}};
  uint8_t *buf = NULL;
  size_t size = 0;
  cr_expect_eq(ws_safetensors_encode(ctx, t, 2, NULL, 0, &buf, &size), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "tensor 'a' appears twice"), "%s", ws_errmsg(ctx));
  t[1].name = "__metadata__";
  cr_expect_eq(ws_safetensors_encode(ctx, t, 2, NULL, 0, &buf, &size), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "invalid tensor name '__metadata__'"), "%s", ws_errmsg(ctx));
  t[1].name = "b";
  t[1].count = 3;
  cr_expect_eq(ws_safetensors_encode(ctx, t, 2, NULL, 0, &buf, &size), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "'b' has 3 values"), "%s", ws_errmsg(ctx));
  cr_expect_null(buf);
}

Test(safetensors, missing_file_is_an_io_error_naming_it) {
  ws_safetensors *st = (ws_safetensors *)1;
  cr_expect_eq(ws_safetensors_load(ctx, "/nonexistent/w.safetensors", (size_t)1 << 30, &st), WS_ERR_IO);
  cr_expect_null(st);
  cr_expect(strstr(ws_errmsg(ctx), "/nonexistent/w.safetensors"), "%s", ws_errmsg(ctx));
}

/* ---- malformed files ------------------------------------------------------- */

typedef struct bad_case {
  const char *json;  /* header text, or NULL when raw is used */
  size_t data_bytes; /* zero bytes appended after the header */
  const char *raw;   /* the whole file, for frame errors */
  size_t raw_bytes;
  const char *expect;
} bad_case;

static uint8_t *frame(const bad_case *c, size_t *size) {
  if (!c->json) {
    uint8_t *buf = malloc(c->raw_bytes + 1);
    memcpy(buf, c->raw, c->raw_bytes);
    *size = c->raw_bytes;
    return buf;
  }
  size_t n = strlen(c->json);
  *size = 8 + n + c->data_bytes;
  uint8_t *buf = calloc(*size, 1);
  for (int i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)n >> (8 * i));
  memcpy(buf + 8, c->json, n);
  return buf;
}

#define F32_4(name, begin, end)                                                                              \
  "\"" name "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" #begin "," #end "]}"

static const bad_case bad_cases[] = {
    {NULL, 0, "", 0, "mem: file is 0 bytes, shorter than the 8-byte header length field"},
    {NULL, 0, "\x10\0\0\0\0\0\0", 7, "file is 7 bytes, shorter than the 8-byte header length"},
    {NULL, 0, "\xe8\x03\0\0\0\0\0\0{}        ", 18,
     "header length 1000 exceeds the 10 bytes after the length field"},
    {NULL, 0, "\0\0\0\x40\0\0\0\0{}", 10, "header length 1073741824 exceeds the 104857600-byte limit"},
    {NULL, 0, "\0\0\0\0\0\0\0\0", 8, "header length is 0"},
    /* the colon is missing: '1' at header byte 5 is where cJSON stops */
    {"{\"x\" 1}", 0, NULL, 0, "invalid JSON in the header at header byte 5 (file offset 13)"},
    {"{\"x\":{", 0, NULL, 0, "invalid JSON in the header"},
    {"{} x", 0, NULL, 0, "unexpected bytes after the JSON header at header byte 2"},
    {"[1]", 0, NULL, 0, "the header is not a JSON object"},
    {"{\"x\":3}", 0, NULL, 0, "tensor 'x': entry is not an object"},
    {"{\"x\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': \"dtype\" is missing or not a string"},
    {"{\"x\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': \"dtype\" is missing or not a string"},
    {"{\"x\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8, NULL, 0,
     "tensor 'x' has dtype 'F64', which is not supported (F32, F16 and BF16 are)"},
    {"{\"x\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x' has dtype 'I32', which is not supported"},
    {"{\"x\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': \"shape\" is missing or not an array"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': shape[0] is not a non-negative integer"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[1,1.5],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': shape[1] is not a non-negative integer"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x' has 9 dimensions, at most 8 are supported"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, NULL, 0,
     "tensor 'x': \"data_offsets\" must be an array of two non-negative integers"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, NULL, 0,
     "tensor 'x': \"data_offsets\" must be an array of two non-negative integers"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}", 4, NULL, 0,
     "tensor 'x': \"data_offsets\" must be an array of two non-negative integers"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,0]}}", 4, NULL, 0,
     "tensor 'x': data_offsets [4, 0] are reversed"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, NULL, 0,
     "tensor 'x': data_offsets [0, 8] extend past the end of the 4-byte data buffer"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': data_offsets span 4 bytes but shape [2] of F32 needs 8"},
    {"{\"x\":{\"dtype\":\"BF16\",\"shape\":[3,1],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': data_offsets span 4 bytes but shape [3, 1] of BF16 needs 6"},
    {"{\"x\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4],\"data_offsets\":[0,4]}}", 4, NULL, 0,
     "tensor 'x': shape [4294967296, 4294967296, 4] is too large"},
    {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}," F32_4("b", 4, 8) "}", 8, NULL, 0,
     "tensors 'a' [0, 8) and 'b' [4, 8) overlap"},
    {"{" F32_4("a", 0, 4) "," F32_4("b", 8, 12) "}", 12, NULL, 0,
     "bytes [4, 8) of the 12-byte data buffer belong to no tensor"},
    {"{" F32_4("a", 4, 8) "}", 8, NULL, 0, "bytes [0, 4) of the 8-byte data buffer belong to no tensor"},
    {"{" F32_4("a", 0, 4) "}", 8, NULL, 0, "bytes [4, 8) of the 8-byte data buffer belong to no tensor"},
    {"{" F32_4("a", 0, 4) "," F32_4("a", 4, 8) "}", 8, NULL, 0, "tensor 'a' appears twice"},
    {"{\"__metadata__\":[1]}", 0, NULL, 0, "\"__metadata__\" is not an object"},
    {"{\"__metadata__\":{\"k\":1}}", 0, NULL, 0, "\"__metadata__\" value for 'k' is not a string"},
    {"{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}", 0, NULL, 0, "metadata key 'k' appears twice"},
};

Test(safetensors, malformed_files_give_their_errors) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    size_t size = 0;
    uint8_t *buf = frame(&bad_cases[i], &size);
    ws_safetensors *st = (ws_safetensors *)1;
    ws_ctx_clear(ctx);
    ws_status rc = ws_safetensors_parse(ctx, buf, size, "mem", &st);
    cr_expect_eq(rc, WS_ERR_INVALID, "case %zu (%s): status %d", i, bad_cases[i].expect, rc);
    cr_expect_null(st, "case %zu", i);
    cr_expect(strncmp(ws_errmsg(ctx), "mem: ", 5) == 0, "case %zu names no file: %s", i, ws_errmsg(ctx));
    cr_expect(strstr(ws_errmsg(ctx), bad_cases[i].expect), "case %zu: want '%s', got '%s'", i,
              bad_cases[i].expect, ws_errmsg(ctx));
    free(buf);
  }
}

Test(safetensors, minimal_valid_files_parse) {
  /* no tensors at all; a header padded with spaces; a zero-size tensor */
  static const bad_case ok[] = {
      {"{}", 0, NULL, 0, NULL},
      {"{" F32_4("a", 0, 4) "}    \n", 4, NULL, 0, NULL},
      {"{\"z\":{\"dtype\":\"F16\",\"shape\":[0,3],\"data_offsets\":[0,0]}," F32_4("a", 0, 4) "}", 4, NULL, 0,
       NULL},
  };
  static const size_t counts[] = {0, 1, 2};
  for (size_t i = 0; i < 3; i++) {
    size_t size = 0;
    uint8_t *buf = frame(&ok[i], &size);
    ws_safetensors *st = NULL;
    cr_expect_eq(ws_safetensors_parse(ctx, buf, size, "mem", &st), WS_OK, "case %zu: %s", i, ws_errmsg(ctx));
    if (st) cr_expect_eq(ws_safetensors_count(st), counts[i]);
    ws_safetensors_destroy(st);
    free(buf);
  }
}
