/* test_image.c - image input: resampling against hand-computed averages and
 * interpolations, ImageNet normalization, PPM and PNG fixtures with known
 * pixels, decode errors, the sample images and the PNG round trip. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/formats/image.h"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_img_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
  rmdir(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(image, .init = setup, .fini = teardown);

static ws_image *blank(uint32_t w, uint32_t h) {
  ws_image *img = NULL;
  cr_assert_eq(ws_image_create(ctx, w, h, &img), WS_OK, "%s", ws_errmsg(ctx));
  return img;
}

static const uint8_t *px(const ws_image *img, uint32_t x, uint32_t y) {
  return img->rgb + ((size_t)y * img->width + x) * 3;
}

static void expect_px(const ws_image *img, uint32_t x, uint32_t y, int r, int g, int b) {
  const uint8_t *p = px(img, x, y);
  cr_expect(p[0] == r && p[1] == g && p[2] == b, "(%u,%u) = (%d,%d,%d), want (%d,%d,%d)", x, y, p[0], p[1],
            p[2], r, g, b);
}

Test(image, downscale_by_two_averages_each_block_exactly) {
  ws_image *img = blank(64, 64);
  for (uint32_t y = 0; y < 64; y++)
    for (uint32_t x = 0; x < 64; x++)
      for (int c = 0; c < 3; c++) img->rgb[(y * 64 + x) * 3 + c] = (uint8_t)((x * 7 + y * 13 + c * 50) % 256);
  static float out[3 * 32 * 32];
  cr_assert_eq(ws_image_resize(ctx, img, 32, 32, out), WS_OK, "%s", ws_errmsg(ctx));
  for (uint32_t c = 0; c < 3; c++)
    for (uint32_t y = 0; y < 32; y++)
      for (uint32_t x = 0; x < 32; x++) {
        int sum = 0;
        for (uint32_t k = 0; k < 4; k++) sum += px(img, 2 * x + k % 2, 2 * y + k / 2)[c];
        cr_assert_eq(out[(c * 32 + y) * 32 + x], sum / 4.0f, "c%u (%u,%u)", c, x, y);
      }
  ws_image_destroy(img);
}

Test(image, same_size_is_identity_and_uneven_downscale_weighs_overlap) {
  ws_image *img = blank(3, 1);
  const uint8_t row[9] = {0, 3, 6, 30, 33, 36, 60, 63, 66};
  memcpy(img->rgb, row, 9);
  float same[9], half[6];
  cr_assert_eq(ws_image_resize(ctx, img, 3, 1, same), WS_OK);
  for (int c = 0; c < 3; c++)
    for (int x = 0; x < 3; x++) cr_expect_eq(same[c * 3 + x], row[x * 3 + c]);
  /* 3 -> 2: output 0 covers source [0, 1.5): (v0 * 1 + v1 * 0.5) / 1.5;
   * red: (0 + 15) / 1.5 = 10 and (15 + 60) / 1.5 = 50 */
  cr_assert_eq(ws_image_resize(ctx, img, 2, 1, half), WS_OK);
  cr_expect(fabsf(half[0] - 10.0f) < 1e-4f, "%g", half[0]);
  cr_expect(fabsf(half[1] - 50.0f) < 1e-4f, "%g", half[1]);
  cr_expect(fabsf(half[2] - 13.0f) < 1e-4f, "green %g", half[2]); /* (3 + 16.5) / 1.5 */
  ws_image_destroy(img);
}

Test(image, upscale_is_bilinear_with_half_pixel_centres) {
  /* 2 -> 4: centres map to -0.25, 0.25, 0.75, 1.25, clamped to [0, 1]:
   * values 0, 25, 75, 100 for a 0..100 ramp */
  ws_image *img = blank(2, 1);
  img->rgb[0] = 0;
  img->rgb[3] = 100;
  float out[12];
  cr_assert_eq(ws_image_resize(ctx, img, 4, 1, out), WS_OK);
  const float want[4] = {0, 25, 75, 100};
  for (int x = 0; x < 4; x++) cr_expect_eq(out[x], want[x], "x=%d: %g", x, out[x]);
  ws_image_destroy(img);
}

Test(image, normalize_uses_imagenet_statistics) {
  /* white: (1 - mean) / std = 2.2489083, 2.4285714, 2.64; black: -mean / std
   * = -2.1179039, -2.0357143, -1.8044444 */
  float v[6] = {255, 0, 255, 0, 255, 0}; /* 2 pixels per channel */
  ws_image_normalize(v, 2);
  const double want[6] = {2.2489083, -2.1179039, 2.4285714, -2.0357143, 2.64, -1.8044444};
  for (int i = 0; i < 6; i++) cr_expect(fabs(v[i] - want[i]) < 1e-5, "v[%d] = %.7f", i, v[i]);
  ws_image *img = blank(64, 40);
  memset(img->rgb, 255, 64 * 40 * 3);
  static float in[3 * 32 * 32];
  cr_assert_eq(ws_image_to_input(ctx, img, in), WS_OK);
  for (int c = 0; c < 3; c++) cr_expect(fabs(in[c * 1024 + 517] - want[2 * c]) < 1e-5);
  ws_image_destroy(img);
}

Test(image, loads_ascii_ppm_fixture) {
  ws_image *img = NULL;
  cr_assert_eq(ws_image_load(ctx, WS_SOURCE_DIR "/tests/data/image_3x2.ppm", &img), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(img->width, 3);
  cr_assert_eq(img->height, 2);
  expect_px(img, 0, 0, 255, 0, 0);
  expect_px(img, 1, 0, 0, 255, 0);
  expect_px(img, 2, 0, 0, 0, 255);
  expect_px(img, 0, 1, 128, 128, 128);
  expect_px(img, 1, 1, 255, 255, 255);
  expect_px(img, 2, 1, 0, 0, 0);
  ws_image_destroy(img);
}

Test(image, loads_png_fixture) {
  ws_image *img = NULL;
  cr_assert_eq(ws_image_load(ctx, WS_SOURCE_DIR "/tests/data/image_4x2.png", &img), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(img->width, 4);
  cr_assert_eq(img->height, 2);
  expect_px(img, 0, 0, 255, 0, 0);
  expect_px(img, 3, 0, 255, 255, 255);
  expect_px(img, 1, 1, 10, 20, 30);
  expect_px(img, 3, 1, 200, 100, 50);
  ws_image_destroy(img);
}

Test(image, unreadable_files_are_errors_naming_them) {
  ws_image *img = (ws_image *)1;
  cr_expect_eq(ws_image_load(ctx, "/nonexistent/cat.png", &img), WS_ERR_IO);
  cr_expect_null(img);
  cr_expect(strstr(ws_errmsg(ctx), "/nonexistent/cat.png"), "%s", ws_errmsg(ctx));
  const char *text = WS_SOURCE_DIR "/tests/data/make_fixtures.py";
  cr_expect_eq(ws_image_load(ctx, text, &img), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "make_fixtures.py: not a readable image"), "%s", ws_errmsg(ctx));
  const uint8_t truncated_png[12] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
  cr_expect_eq(ws_image_decode(ctx, truncated_png, sizeof truncated_png, "cut.png", &img), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "cut.png: PNG header does not give the image size"), "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_image_decode(ctx, "", 0, "empty.png", &img), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "empty.png: not a readable image (the file is empty)");
  cr_expect_eq(ws_image_create(ctx, 0, 5, &img), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "image size 0x5"), "%s", ws_errmsg(ctx));
  ws_image_destroy(NULL);
}

Test(image, samples_are_known_and_listed) {
  const char *const *names = ws_image_sample_names();
  static const char *const want[] = {"checker", "gradient", "disc", "noise"};
  for (int i = 0; i < 4; i++) cr_expect_str_eq(names[i], want[i]);
  cr_expect_null(names[4]);
  ws_image *img = NULL;
  cr_assert_eq(ws_image_sample(ctx, "checker", &img), WS_OK);
  expect_px(img, 0, 0, 30, 60, 160);
  expect_px(img, 8, 0, 230, 200, 40);
  expect_px(img, 8, 8, 30, 60, 160);
  expect_px(img, 31, 0, 230, 200, 40);
  ws_image_destroy(img);
  cr_assert_eq(ws_image_sample(ctx, "gradient", &img), WS_OK);
  expect_px(img, 0, 0, 0, 0, 0);
  expect_px(img, 31, 0, 255, 0, 128); /* blue (31 * 255 + 31) / 62 = 128 */
  expect_px(img, 31, 31, 255, 255, 255);
  ws_image_destroy(img);
  cr_assert_eq(ws_image_sample(ctx, "disc", &img), WS_OK);
  expect_px(img, 16, 16, 240, 120, 30);
  expect_px(img, 25, 15, 240, 120, 30); /* centre offset 9.5, 0.5: inside r = 10 */
  expect_px(img, 26, 15, 20, 20, 40);   /* 10.5: outside */
  expect_px(img, 0, 0, 20, 20, 40);
  ws_image_destroy(img);
  cr_expect_eq(ws_image_sample(ctx, "zebra", &img), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "unknown sample image 'zebra' (samples: checker, gradient"), "%s",
            ws_errmsg(ctx));
}

Test(image, noise_is_deterministic_and_not_flat) {
  ws_image *a = NULL, *b = NULL;
  cr_assert_eq(ws_image_sample(ctx, "noise", &a), WS_OK);
  cr_assert_eq(ws_image_sample(ctx, "noise", &b), WS_OK);
  cr_expect_eq(memcmp(a->rgb, b->rgb, 32 * 32 * 3), 0);
  int hist[256] = {0}, used = 0;
  for (int i = 0; i < 32 * 32 * 3; i++) hist[a->rgb[i]]++;
  for (int i = 0; i < 256; i++) used += hist[i] > 0;
  cr_expect_gt(used, 240, "only %d distinct byte values in 3072 draws", used);
  ws_image_destroy(a);
  ws_image_destroy(b);
}

Test(image, png_round_trip_of_every_sample) {
  char path[128];
  snprintf(path, sizeof path, "%s/sample.png", dir);
  for (const char *const *n = ws_image_sample_names(); *n; n++) {
    ws_image *img = NULL, *back = NULL;
    cr_assert_eq(ws_image_sample(ctx, *n, &img), WS_OK);
    cr_assert_eq(ws_image_save_png(ctx, img, path), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_eq(ws_image_load(ctx, path, &back), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect_eq(back->width, 32);
    cr_expect_eq(back->height, 32);
    cr_expect_eq(memcmp(img->rgb, back->rgb, 32 * 32 * 3), 0, "%s differs after PNG", *n);
    ws_image_destroy(img);
    ws_image_destroy(back);
  }
  remove(path);
  ws_image *img = blank(4, 4);
  cr_expect_eq(ws_image_save_png(ctx, img, "/nonexistent/dir/x.png"), WS_ERR_IO);
  cr_expect(strstr(ws_errmsg(ctx), "/nonexistent/dir/x.png"), "%s", ws_errmsg(ctx));
  ws_image_destroy(img);
}

/* A sample's name gives the sample; anything else is a path, and a missing
 * one is an error naming it. */
Test(image, input_takes_a_sample_name_or_a_path) {
  ws_ctx *c = ws_ctx_create();
  float a[3 * 32 * 32], b[3 * 32 * 32];
  ws_image *img = NULL;
  cr_assert_eq(ws_image_input(c, "disc", a), WS_OK, "%s", ws_errmsg(c));
  cr_assert_eq(ws_image_sample(c, "disc", &img), WS_OK);
  cr_assert_eq(ws_image_to_input(c, img, b), WS_OK);
  cr_expect_eq(memcmp(a, b, sizeof a), 0);
  ws_image_destroy(img);
  cr_expect_eq(ws_image_input(c, "no-such-image.png", a), WS_ERR_IO);
  cr_expect(strstr(ws_errmsg(c), "no-such-image.png") != NULL, "%s", ws_errmsg(c));
  ws_ctx_destroy(c);
}

/* ---- bounds before decoding ------------------------------------------------------ */

static size_t png_header(uint8_t out[33], uint32_t w, uint32_t h) {
  const uint8_t head[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  memcpy(out, head, 16);
  for (int i = 0; i < 4; i++) {
    out[16 + i] = (uint8_t)(w >> (24 - 8 * i));
    out[20 + i] = (uint8_t)(h >> (24 - 8 * i));
  }
  const uint8_t rest[9] = {8, 2, 0, 0, 0, 0, 0, 0, 0}; /* depth, RGB, methods, (CRC) */
  memcpy(out + 24, rest, 9);
  return 33;
}

/* The two files: a 43-byte GIF whose frame is 65535x65535 and a PNG
 * whose IHDR says 65536x65536, refused from the header with the file, the
 * format, the size found and both limits. */
Test(image, hostile_headers_are_refused_before_decoding) {
  const uint8_t gif[43] = {'G', 'I', 'F',  '8',  '9',  'a',  1, 0, 1, 0,    0x80, 0, 0,   0, 0,
                           0,   255, 255,  255,  '!',  0xF9, 4, 0, 0, 0,    0,    0, ',', 0, 0,
                           0,   0,   0xff, 0xff, 0xff, 0xff, 0, 2, 2, 0x44, 0x01, 0, ';'};
  ws_image *img = (ws_image *)1;
  cr_expect_eq(ws_image_decode(ctx, gif, sizeof gif, "big.gif", &img), WS_ERR_INVALID);
  cr_expect_null(img);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "big.gif: GIF image is 65535x65535; each side must be in [1, 16384] and the "
                   "pixel count at most 16777216 (4096x4096)");
  uint8_t png[33];
  cr_expect_eq(ws_image_decode(ctx, png, png_header(png, 65536, 65536), "big.png", &img), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "big.png: PNG image is 65536x65536; each side must be in [1, 16384] and the "
                   "pixel count at most 16777216 (4096x4096)");
}

Test(image, probe_applies_the_side_and_pixel_limits) {
  uint8_t png[33];
  ws_imghdr_format f = WS_IMGHDR_FORMAT_COUNT;
  uint32_t w = 0, h = 0;
  cr_assert_eq(ws_image_probe(ctx, png, png_header(png, 4096, 4096), "ok.png", &f, &w, &h), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect(f == WS_IMGHDR_PNG && w == 4096 && h == 4096);
  cr_expect_eq(ws_image_probe(ctx, png, png_header(png, 8192, 4096), "wide.png", &f, &w, &h), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "wide.png: PNG image is 8192x4096;"), "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_image_probe(ctx, png, png_header(png, 16385, 1), "long.png", &f, &w, &h), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "long.png: PNG image is 16385x1;"), "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_image_probe(ctx, png, png_header(png, 0, 1), "empty.png", &f, &w, &h), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "empty.png: PNG image is 0x1;"), "%s", ws_errmsg(ctx));
  const char *ppm = "P6 20000 2 255\n";
  cr_expect_eq(ws_image_probe(ctx, ppm, strlen(ppm), "a.ppm", &f, &w, &h), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "a.ppm: PNM image is 20000x2;"), "%s", ws_errmsg(ctx));
}

/* ICO picks one of several entries and holds a BMP or PNG inside: its size
 * cannot be judged from a header, so it is refused, naming the formats
 * that are accepted. */
Test(image, formats_without_a_readable_size_are_refused) {
  const uint8_t ico[22] = {0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 40, 0, 0, 0, 22, 0, 0, 0};
  ws_image *img = (ws_image *)1;
  cr_expect_eq(ws_image_decode(ctx, ico, sizeof ico, "x.ico", &img), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "x.ico: ICO images are not accepted: their size cannot be checked before "
                   "decoding (accepted: PNG, PPM/PGM/PBM, GIF, BMP, JPEG, TIFF, WEBP, QOI, PCX, "
                   "TGA)");
}

/* A 2x1 24-bit BMP (rows bottom-up, BGR, padded to 4 bytes) and the same
 * pixels as a TGA (no signature: chosen by its name) decode through their
 * own loaders. */
Test(image, bmp_and_tga_decode_through_their_own_loaders) {
  uint8_t bmp[62] = {'B',      'M', 62, 0,  0,  0,  0, 0, 0, 0, 54, 0, 0, 0,        /* file header */
                     40,       0,   0,  0,  2,  0,  0, 0, 1, 0, 0,  0, 1, 0, 24, 0, /* info header */
                     [54] = 3, 2,   1,  30, 20, 10, 0, 0};
  ws_image *img = NULL;
  cr_assert_eq(ws_image_decode(ctx, bmp, sizeof bmp, "two.bmp", &img), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert(img->width == 2 && img->height == 1);
  expect_px(img, 0, 0, 1, 2, 3);
  expect_px(img, 1, 0, 10, 20, 30);
  ws_image_destroy(img);
  const uint8_t tga[24] = {0, 0, 2, [12] = 2, 0, 1, 0, 24, 0x20, 3, 2, 1, 30, 20, 10};
  cr_assert_eq(ws_image_decode(ctx, tga, sizeof tga, "two.TGA", &img), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert(img->width == 2 && img->height == 1);
  expect_px(img, 0, 0, 1, 2, 3);
  expect_px(img, 1, 0, 10, 20, 30);
  ws_image_destroy(img);
  cr_expect_eq(ws_image_decode(ctx, tga, sizeof tga, "two.bin", &img), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "two.bin: not a readable image"), "%s", ws_errmsg(ctx));
}

Test(image, files_over_the_image_cap_are_refused_unread) {
  ws_image *img = (ws_image *)1;
  cr_expect_eq(ws_image_load(ctx, "/dev/zero", &img), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "/dev/zero: larger than the 128 MiB limit for images");
  cr_expect_null(img);
}

/* tests/data/image_noise96.gif holds seeded noise through palette i -> (i,
 * 255 - i, 7i): its LZW table fills and clears and its codes grow to 12
 * bits, so every pixel coming back shows the LZW check refuses nothing of a
 * valid stream. */
Test(image, loads_gif_whose_lzw_table_fills_and_clears) {
  ws_image *img = NULL;
  cr_assert_eq(ws_image_load(ctx, WS_SOURCE_DIR "/tests/data/image_noise96.gif", &img), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert(img->width == 96 && img->height == 96);
  uint64_t state = 12345;
  size_t wrong = 0;
  for (uint32_t i = 0; i < 96 * 96; i++) {
    state = (state * 1103515245u + 12345u) % (1u << 31);
    uint32_t v = (uint32_t)(state >> 16) & 0xff;
    const uint8_t *p = px(img, i % 96, i / 96);
    wrong += p[0] != v || p[1] != 255 - v || p[2] != ((7 * v) & 0xff);
  }
  cr_expect_eq(wrong, 0);
  ws_image_destroy(img);
}
