/* imghdr.h - the width and height an image file declares, read from its
 * header before anything is decoded.
 *
 * Design: a decoder allocates what the header says, so a 43-byte file can
 * ask for gigabytes; reading the header first lets the caller refuse it
 * before the decoder runs. One small reader per format, each following the
 * decoder SDL2_image 2.6 uses for that format (libpng, libjpeg, libtiff,
 * libwebp, SDL's own BMP, GIF, PNM, QOI, PCX and TGA code): the dimensions
 * read here are the ones that decoder allocates for. The format itself is
 * chosen by the caller (base/formats/image.c asks SDL_image's own IMG_is*
 * checks), so both sides agree on it. Pure byte parsing: no SDL here. */
#ifndef WS_IMGHDR_H
#define WS_IMGHDR_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

typedef enum ws_imghdr_format {
  WS_IMGHDR_PNG,
  WS_IMGHDR_PNM, /* P1..P6: PBM, PGM, PPM, ASCII or binary */
  WS_IMGHDR_GIF,
  WS_IMGHDR_BMP,
  WS_IMGHDR_JPEG,
  WS_IMGHDR_TIFF,
  WS_IMGHDR_WEBP,
  WS_IMGHDR_QOI,
  WS_IMGHDR_PCX,
  WS_IMGHDR_TGA, /* no magic number: only chosen for a ".tga" name */
  WS_IMGHDR_FORMAT_COUNT
} ws_imghdr_format;

/* "PNG", "PNM", ...; "?" outside the enum. */
const char *ws_imghdr_format_name(ws_imghdr_format f);

/* The dimensions `data` declares as format f. A header too short or
 * malformed to say is WS_ERR_INVALID naming `name` and the format; the
 * values are not range-checked here (0 and 65535 come back as found). */
ws_status ws_imghdr_read(ws_ctx *ctx, ws_imghdr_format f, const void *data, size_t size_bytes,
                         const char *name, uint32_t *width, uint32_t *height);

#endif
