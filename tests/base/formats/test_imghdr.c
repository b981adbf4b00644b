/* test_imghdr.c - the size each image format's header declares
 * (base/formats/imghdr.h), read from hand-made headers laid out byte by byte from
 * the formats' specifications: PNG (IHDR), PNM (ASCII after the magic, with
 * comments), GIF (logical screen and image descriptor, behind a colour table
 * and an extension), BMP (OS/2 core and Windows info headers, top-down),
 * JPEG (SOFn behind APPn, garbage and fill bytes), TIFF (both byte orders,
 * SHORT and LONG), WEBP (VP8, VP8L, VP8X), QOI, PCX and TGA; and the
 * malformed ones, each refused with the file, the format and the reason. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/formats/imghdr.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(imghdr, .init = setup, .fini = teardown);

static void expect_size(ws_imghdr_format f, const void *data, size_t n, uint32_t w, uint32_t h) {
  uint32_t gw = 1, gh = 1;
  cr_assert_eq(ws_imghdr_read(ctx, f, data, n, "x", &gw, &gh), WS_OK, "%s: %s", ws_imghdr_format_name(f),
               ws_errmsg(ctx));
  cr_expect(gw == w && gh == h, "%s: %ux%u, want %ux%u", ws_imghdr_format_name(f), gw, gh, w, h);
}

static void expect_refused(ws_imghdr_format f, const void *data, size_t n, const char *msg) {
  uint32_t w, h;
  cr_expect_eq(ws_imghdr_read(ctx, f, data, n, "bad.img", &w, &h), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), msg);
}

Test(imghdr, png_size_is_in_ihdr) {
  const uint8_t png[24] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0,    13,
                           'I',  'H', 'D', 'R', 0,    1,    0,    0,    0, 0, 0x01, 0x2c};
  expect_size(WS_IMGHDR_PNG, png, sizeof png, 65536, 300);
  expect_refused(WS_IMGHDR_PNG, png, 20,
                 "bad.img: PNG header does not give the image size: no IHDR chunk after the signature");
}

Test(imghdr, pnm_numbers_follow_whitespace_and_comments) {
  const char *p6 = "P6\n# made by hand\n  640 # width\n480\n255\n";
  expect_size(WS_IMGHDR_PNM, p6, strlen(p6), 640, 480);
  const char *p1 = "P1 3 2 1 0 1 0 1 0";
  expect_size(WS_IMGHDR_PNM, p1, strlen(p1), 3, 2);
  const char *huge = "P5 99999999999 1 255\n";
  expect_size(WS_IMGHDR_PNM, huge, strlen(huge), UINT32_MAX, 1);
  const char *hash = "P6 10#60000\n5 255\n"; /* SDL reads 10, eats '#', reads 60000 */
  expect_size(WS_IMGHDR_PNM, hash, strlen(hash), 10, 60000);
  expect_refused(WS_IMGHDR_PNM, "P3 12", 5,
                 "bad.img: PNM header does not give the image size: no width and height after the magic");
}

/* screen 10x20, a 2-entry global colour table, a graphic control extension,
 * a byte SDL skips, a frame with LZW code size 13 and one 0 pixels wide
 * (both fail before SDL allocates them), then the 30x5 frame it decodes */
Test(imghdr, gif_size_is_the_first_frame_sdl_would_allocate) {
  const uint8_t gif[] = {'G', 'I',  'F', '8', '9', 'a',  10,   0,    20,   0, 0x80, 0, 0, /* screen */
                         1,   2,    3,   4,   5,   6,                                     /* colour table */
                         '!', 0xF9, 4,   0,   0,   0,    0,    0,                         /* extension */
                         7,                                                               /* skipped */
                         ',', 0,    0,   0,   0,   0xff, 0xff, 0xff, 0xff, 0, 13,         /* code size 13 */
                         ',', 0,    0,   0,   0,   0,    0,    0xff, 0x7f, 0, 2,          /* width 0 */
                         ',', 0,    0,   0,   0,   30,   0,    5,    0,    0, 2,    2, 0x44, 1, 0, ';'};
  expect_size(WS_IMGHDR_GIF, gif, sizeof gif, 30, 5);
  const uint8_t hostile[13] = {'G', 'I', 'F', '8', '9', 'a', 0xff, 0xff, 0xff, 0xff, 0, 0, 0};
  expect_refused(
      WS_IMGHDR_GIF, hostile, sizeof hostile,
      "bad.img: GIF header does not give the image size: no image descriptor that would be decoded");
}

/* A 2x1 frame whose first code (min size 2: clear 4, end 5, next free 6)
 * is 7, past the table: SDL's decoder would chase a prefix loop off its
 * stack, so the frame is refused. Code 6 (the next free entry) is valid. */
Test(imghdr, gif_lzw_codes_past_the_table_are_refused) {
  uint8_t gif[] = {'G', 'I', 'F', '8', '9', 'a', 2, 1, 0, 0, 0,    0, 0,  ',', 0,
                   0,   0,   0,   2,   0,   1,   0, 0, 2, 1, 0x7C, 0, ';'}; /* codes 4 (clear), 7 in 3 bits */
  expect_refused(WS_IMGHDR_GIF, gif, sizeof gif,
                 "bad.img: GIF header does not give the image size: an LZW code past the code table");
  gif[sizeof gif - 3] = 0x34; /* clear, then 6 */
  expect_size(WS_IMGHDR_GIF, gif, sizeof gif, 2, 1);
}

/* A sub-block longer than what is left is not read (SDL's memory reads are
 * all or nothing), so the scan resumes after its count byte and finds the
 * frame inside it. */
Test(imghdr, gif_scan_resumes_after_a_block_that_does_not_fit) {
  const uint8_t gif[] = {'G', 'I', 'F', '8',  '9', 'a', 1,    0,    1,    0, 0,
                         0,   0,   '!', 0xFE, 200, /* comment */
                         ',', 0,   0,   0,    0,   0,   0x40, 0x40, 0x01, 0, 2};
  expect_size(WS_IMGHDR_GIF, gif, sizeof gif, 16384, 320);
}

Test(imghdr, bmp_core_and_info_headers) {
  uint8_t core[26] = {'B', 'M', [14] = 12, [18] = 0x20, 0x03, 0x58, 0x02};
  expect_size(WS_IMGHDR_BMP, core, sizeof core, 800, 600);
  uint8_t info[26] = {'B', 'M', [14] = 40, [18] = 0x00, 0x01, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff};
  expect_size(WS_IMGHDR_BMP, info, sizeof info, 256, 1); /* height -1: one row, top-down */
  info[21] = 0x80;                                       /* width -2^31 + 256 */
  expect_refused(WS_IMGHDR_BMP, info, sizeof info,
                 "bad.img: BMP header does not give the image size: negative width");
}

Test(imghdr, jpeg_walks_markers_like_libjpeg) {
  const uint8_t jpg[] = {0xFF, 0xD8, 0xFF, 0xE0, 0,    4,    'J',  'F', /* APP0 */
                         0x13, 0x37, 0xFF, 0xFF, 0xFF, 0xD0,            /* garbage, fill, RST0 */
                         0xFF, 0xC2, 0,    11,   8,    0x01, 0x2c, 0x02, 0x80, 1, 1, 0x11, 0}; /* SOF2 */
  expect_size(WS_IMGHDR_JPEG, jpg, sizeof jpg, 640, 300);
  uint8_t ten[sizeof jpg];
  memcpy(ten, jpg, sizeof jpg);
  ten[sizeof jpg - 4] = 10; /* Nf */
  expect_refused(WS_IMGHDR_JPEG, ten, sizeof ten,
                 "bad.img: JPEG header does not give the image size: component count not 1, 3 or 4");
  const uint8_t sos_first[] = {0xFF, 0xD8, 0xFF, 0xDA, 0, 2};
  expect_refused(WS_IMGHDR_JPEG, sos_first, sizeof sos_first,
                 "bad.img: JPEG header does not give the image size: no SOFn frame header before the scan");
}

Test(imghdr, tiff_first_ifd_in_both_byte_orders) {
  const uint8_t le[] = {'I',  'I',  42, 0, 8, 0, 0, 0, 2,    0,                /* IFD at 8, 2 entries */
                        0x00, 0x01, 3,  0, 1, 0, 0, 0, 0x40, 0x01, 0,    0,    /* width SHORT 320 */
                        0x01, 0x01, 4,  0, 1, 0, 0, 0, 0xf0, 0x00, 0x01, 0x00, /* length LONG 65776 */
                        0,    0,    0,  0};
  expect_size(WS_IMGHDR_TIFF, le, sizeof le, 320, 65776);
  const uint8_t be[] = {'M',  'M',  0, 42, 0, 0, 0, 8, 0,    2,                /* */
                        0x01, 0x00, 0, 4,  0, 0, 0, 1, 0,    0,    0x10, 0x00, /* width LONG 4096 */
                        0x01, 0x01, 0, 3,  0, 0, 0, 1, 0x00, 0x07, 0,    0,    /* length SHORT 7 */
                        0,    0,    0, 0};
  expect_size(WS_IMGHDR_TIFF, be, sizeof be, 4096, 7);
  expect_refused(WS_IMGHDR_TIFF, le, 22,
                 "bad.img: TIFF header does not give the image size: first IFD truncated");
}

Test(imghdr, webp_lossy_lossless_and_extended) {
  uint8_t vp8[30] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W',  'E',  'B',  'P',  'V',  'P',  '8',
                     ' ', 0,   0,   0,   0, 0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x41};
  expect_size(WS_IMGHDR_WEBP, vp8, sizeof vp8, 640, 480); /* the top two bits are scaling */
  uint8_t vp8l[30] = {'R', 'I', 'F', 'F', 0,   0, 0, 0, 'W', 'E', 'B',
                      'P', 'V', 'P', '8', 'L', 0, 0, 0, 0,   0x2f};
  /* 14 bits width-1 = 99, 14 bits height-1 = 49 */
  uint32_t bits = 99u | 49u << 14;
  for (int i = 0; i < 4; i++) vp8l[21 + i] = (uint8_t)(bits >> (8 * i));
  expect_size(WS_IMGHDR_WEBP, vp8l, sizeof vp8l, 100, 50);
  expect_size(WS_IMGHDR_WEBP, vp8l, 25, 100, 50); /* the smallest lossless header */
  expect_refused(
      WS_IMGHDR_WEBP, vp8, 29,
      "bad.img: WEBP header does not give the image size: shorter than the RIFF header and first chunk");
  uint8_t vp8x[30] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E',  'B',  'P', 'V',  'P', '8',
                      'X', 10,  0,   0,   0, 0, 0, 0, 0,   0xff, 0x3f, 0,   0x01, 0,   0};
  expect_size(WS_IMGHDR_WEBP, vp8x, sizeof vp8x, 16384, 2);
  vp8x[15] = 'Y';
  expect_refused(WS_IMGHDR_WEBP, vp8x, sizeof vp8x,
                 "bad.img: WEBP header does not give the image size: first chunk is not VP8, VP8L or VP8X");
}

Test(imghdr, qoi_pcx_and_tga) {
  const uint8_t qoi[14] = {'q', 'o', 'i', 'f', 0, 0, 0x01, 0x00, 0, 1, 0, 0, 3, 0};
  expect_size(WS_IMGHDR_QOI, qoi, sizeof qoi, 256, 65536);
  uint8_t pcx[128] = {10, 5, 1, 8, 0xfe, 0xff, 0, 0, 9, 0, 0xff, 0x7f, [65] = 1, 0x80, 0xff};
  expect_refused(WS_IMGHDR_PCX, pcx, sizeof pcx,
                 "bad.img: PCX header does not give the image size: bytes per line not positive");
  pcx[67] = 0;                                            /* 128 bytes per line */
  expect_size(WS_IMGHDR_PCX, pcx, sizeof pcx, 12, 32768); /* x -2..9, y 0..32767 */
  pcx[8] = 0xf0, pcx[9] = 0xff;                           /* xmax -16 < xmin */
  expect_refused(WS_IMGHDR_PCX, pcx, sizeof pcx,
                 "bad.img: PCX header does not give the image size: window corners out of order");
  const uint8_t tga[18] = {0, 0, 2, [12] = 0x00, 0x04, 0x03, 0x00, 24};
  expect_size(WS_IMGHDR_TGA, tga, sizeof tga, 1024, 3);
  expect_refused(WS_IMGHDR_TGA, tga, 17,
                 "bad.img: TGA header does not give the image size: shorter than the 18-byte header");
}

Test(imghdr, every_reader_survives_every_prefix) {
  const uint8_t jpg[] = {0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0};
  for (int f = 0; f < WS_IMGHDR_FORMAT_COUNT; f++)
    for (size_t n = 0; n <= sizeof jpg; n++) {
      uint32_t w, h;
      ws_status st = ws_imghdr_read(ctx, (ws_imghdr_format)f, jpg, n, "p", &w, &h);
      cr_expect(st == WS_OK || st == WS_ERR_INVALID);
    }
  cr_expect_str_eq(ws_imghdr_format_name(WS_IMGHDR_FORMAT_COUNT), "?");
}
