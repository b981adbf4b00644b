/* fuzz_image.c - libFuzzer target for the image header readers and the
 * bounded loader.
 *
 * Any bytes go through every format's header reader: each returns a size or
 * an error naming the file, never a crash or a read past the end. Then the
 * bytes go through ws_image_decode under the real bounds (the input's first
 * byte picks a ".tga" name half the time, so the signature-less TGA path is
 * fuzzed too). A decoded image must be one ws_image_probe accepted, no
 * larger than the size it found and within the limits; a refusal must name
 * the file. Any violation abort()s, which libFuzzer reports as a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/formats/image.h"
#include "base/formats/imghdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_readers(ws_ctx *ctx, const uint8_t *data, size_t size) {
  for (int f = 0; f < WS_IMGHDR_FORMAT_COUNT; f++) {
    uint32_t w, h;
    ws_status st = ws_imghdr_read(ctx, (ws_imghdr_format)f, data, size, "fuzz.img", &w, &h);
    if (st != WS_OK && (st != WS_ERR_INVALID || strncmp(ws_errmsg(ctx), "fuzz.img: ", 10) != 0)) {
      fprintf(stderr, "%s reader: status %d, message '%s'\n", ws_imghdr_format_name((ws_imghdr_format)f),
              (int)st, ws_errmsg(ctx));
      abort();
    }
  }
}

static void check_decode(ws_ctx *ctx, const uint8_t *data, size_t size) {
  const char *name = size && (data[0] & 1) ? "fuzz.tga" : "fuzz.img";
  ws_imghdr_format f;
  uint32_t pw = 0, ph = 0;
  ws_status probed = ws_image_probe(ctx, data, size, name, &f, &pw, &ph);
  ws_image *img = NULL;
  ws_status st = ws_image_decode(ctx, data, size, name, &img);
  if (st == WS_OK) {
    if (probed != WS_OK || img->width > pw || img->height > ph ||
        (uint64_t)img->width * img->height > WS_IMAGE_MAX_PIXELS) {
      fprintf(stderr, "decoded %ux%u, probe said %d %ux%u\n", img->width, img->height, (int)probed, pw, ph);
      abort();
    }
  } else if (st != WS_ERR_NOMEM && strncmp(ws_errmsg(ctx), name, strlen(name)) != 0) {
    fprintf(stderr, "unexpected failure %d: %s\n", (int)st, ws_errmsg(ctx));
    abort();
  }
  ws_image_destroy(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  if (!ctx) return 0;
  check_readers(ctx, data, size);
  check_decode(ctx, data, size);
  ws_ctx_destroy(ctx);
  return 0;
}
