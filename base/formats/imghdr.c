/* imghdr.c - one header reader per image format (see imghdr.h).
 *
 * Design: each reader walks the bytes the way its decoder does, including
 * the decoder's leniencies (libjpeg skips garbage between markers, SDL's GIF
 * reader skips bytes that start no block and frames it cannot start), so
 * the size found is the size the decoder would allocate. Where a decoder
 * takes one of several candidates that cannot be told apart here (TIFF's
 * repeated ImageWidth tags), the reader answers with the largest, which can
 * only refuse more.
 * Every offset is checked against the size before it is read. */
#include "base/formats/imghdr.h"

#include <stdbool.h>
#include <string.h>

#include "base/bytes.h"

typedef struct bytes {
  const uint8_t *p;
  size_t n;
} bytes;

static bool has(const bytes *b, size_t off, size_t len) { return off <= b->n && len <= b->n - off; }
static uint32_t le16(const uint8_t *p) { return ws_bytes_le16(p); }
static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t le24(const uint8_t *p) { return le16(p) | (uint32_t)p[2] << 16; }
static uint32_t le32(const uint8_t *p) { return ws_bytes_le32(p); }
static uint32_t be32(const uint8_t *p) { return be16(p) << 16 | be16(p + 2); }

static const char *const format_names[WS_IMGHDR_FORMAT_COUNT] = {"PNG",  "PNM",  "GIF", "BMP", "JPEG",
                                                                 "TIFF", "WEBP", "QOI", "PCX", "TGA"};

const char *ws_imghdr_format_name(ws_imghdr_format f) {
  return (unsigned)f < WS_IMGHDR_FORMAT_COUNT ? format_names[f] : "?";
}

/* A reader returns NULL and sets *w, *h, or returns what is wrong. */
typedef const char *(*reader)(const bytes *b, uint32_t *w, uint32_t *h);

/* The IHDR chunk comes first: signature (8), length (4), "IHDR", width, height. */
static const char *read_png(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 24) || memcmp(b->p + 12, "IHDR", 4) != 0) return "no IHDR chunk after the signature";
  *w = be32(b->p + 16);
  *h = be32(b->p + 20);
  return NULL;
}

/* SDL's ReadNumber: whitespace and '#' comments, then decimal digits and
 * the byte after them, which it consumes whatever it is (so "10#5" is 10
 * then 5, not 10 and a comment). */
static bool pnm_number(const bytes *b, size_t *pos, uint32_t *out) {
  size_t i = *pos;
  for (;;) {
    if (i >= b->n) return false;
    if (b->p[i] == '#') {
      while (i < b->n && b->p[i] != '\n' && b->p[i] != '\r') i++;
    } else if (memchr(" \t\n\v\f\r", b->p[i], 6) == NULL) {
      break;
    }
    i++;
  }
  if (b->p[i] < '0' || b->p[i] > '9') return false;
  uint64_t v = 0;
  for (; i < b->n && b->p[i] >= '0' && b->p[i] <= '9'; i++)
    if ((v = v * 10 + (uint32_t)(b->p[i] - '0')) > UINT32_MAX) v = UINT32_MAX;
  if (i >= b->n) return false;
  *out = (uint32_t)v;
  *pos = i + 1;
  return true;
}

static const char *read_pnm(const bytes *b, uint32_t *w, uint32_t *h) {
  size_t pos = 2;
  if (!has(b, 0, 2) || b->p[0] != 'P' || b->p[1] < '1' || b->p[1] > '6') return "no P1..P6 magic";
  if (!pnm_number(b, &pos, w) || !pnm_number(b, &pos, h)) return "no width and height after the magic";
  return NULL;
}

/* One sub-block from pos; SDL's memory reads take nothing when fewer bytes
 * than the count remain, so such a block ends the walk after its count. */
static bool gif_block(const bytes *b, size_t *pos) {
  if (*pos >= b->n) return false;
  size_t count = b->p[*pos];
  *pos += 1;
  if (count == 0 || !has(b, *pos, count)) return false;
  *pos += count;
  return true;
}

/* DoExtension: the label, then sub-blocks up to an empty one; a graphic
 * control extension (0xF9) takes its first block whatever its size. */
static size_t gif_skip_extension(const bytes *b, size_t pos) {
  if (pos >= b->n) return pos;
  uint8_t label = b->p[pos++];
  if (label == 0xF9 && pos < b->n) {
    size_t count = b->p[pos++];
    if (has(b, pos, count)) pos += count;
  }
  while (gif_block(b, &pos)) continue;
  return pos;
}

/* The LZW codes of a frame, read from its sub-blocks LSB first. */
typedef struct lzw_bits {
  const bytes *b;
  size_t pos, left; /* next byte; bytes left in the current sub-block */
  uint32_t acc, nbits;
} lzw_bits;

static int lzw_code(lzw_bits *z, uint32_t size) {
  while (z->nbits < size) {
    if (z->left == 0) {
      if (z->pos >= z->b->n || z->b->p[z->pos] == 0 || !has(z->b, z->pos + 1, z->b->p[z->pos])) return -1;
      z->left = z->b->p[z->pos++];
    }
    z->acc |= (uint32_t)z->b->p[z->pos++] << z->nbits;
    z->nbits += 8;
    z->left--;
  }
  int code = (int)(z->acc & ((1u << size) - 1));
  z->acc >>= size;
  z->nbits -= size;
  return code;
}

/* SDL_image 2.6's LZW decoder follows each code's prefix chain onto a
 * fixed stack and only catches a chain that loops on itself, so a code past
 * the next free table entry (which lets two entries point at each other)
 * overruns the stack. Replays its code-size schedule without decoding and
 * refuses such a code; valid streams never contain one. */
static bool gif_lzw_in_table(const bytes *b, size_t pos, uint32_t min_size) {
  lzw_bits z = {b, pos, 0, 0, 0};
  const uint32_t clear = 1u << min_size, end = clear + 1;
  uint32_t size = min_size + 1, next = clear + 2, limit = 2 * clear;
  int code;
  while ((code = lzw_code(&z, size)) == (int)clear) continue; /* the first code: clears skipped */
  if (code < 0) return true;
  if ((uint32_t)code > next) return false;
  while ((code = lzw_code(&z, size)) >= 0) {
    if ((uint32_t)code == clear) { /* the code after a clear is taken as it is, defining nothing */
      size = min_size + 1, next = clear + 2, limit = 2 * clear;
      code = lzw_code(&z, size);
      if (code < 0) return true;
      if ((uint32_t)code > next) return false;
      continue;
    }
    if ((uint32_t)code == end) return true;
    if ((uint32_t)code > next) return false;
    if (next < 4096 && ++next >= limit && limit < 4096) limit *= 2, size++;
  }
  return true;
}

/* SDL's GIF loader scans for ',' (skipping '!' extensions and any other
 * byte) and reads each image descriptor; a frame whose LZW code size is
 * over 12 or whose side is 0 fails before its surface is allocated and the
 * scan goes on after the code size byte. The first other frame is the one
 * decoded, so its size is the one allocated (the logical screen is only
 * used for animations). */
static const char *read_gif(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 13)) return "shorter than the 13-byte header";
  size_t pos = 13;
  if (b->p[10] & 0x80) pos += 3u * (2u << (b->p[10] & 7)); /* global colour table */
  while (pos < b->n) {
    uint8_t c = b->p[pos++];
    if (c == ';') break;
    if (c == '!') pos = gif_skip_extension(b, pos);
    if (c != ',') continue;
    if (!has(b, pos, 9)) break;
    const uint8_t *d = b->p + pos;
    pos += 9;
    if (d[8] & 0x80) pos += 3u * (2u << (d[8] & 7)); /* local colour table */
    if (pos >= b->n) break;
    uint8_t code_size = b->p[pos++];
    *w = le16(d + 4);
    *h = le16(d + 6);
    if (code_size <= 12 && *w && *h)
      return gif_lzw_in_table(b, pos, code_size) ? NULL : "an LZW code past the code table";
  }
  *w = *h = 0;
  return "no image descriptor that would be decoded";
}

/* SDL_LoadBMP_RW: a 12-byte OS/2 core header has 16-bit sizes, a 40-byte
 * or longer one signed 32-bit sizes, a negative height meaning top-down. */
static const char *read_bmp(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 22)) return "shorter than the file and core headers";
  uint32_t info = le32(b->p + 14);
  if (info == 12) {
    *w = le16(b->p + 18);
    *h = le16(b->p + 20);
    return NULL;
  }
  if (info < 40 || !has(b, 0, 26)) return "no 12-byte or 40-byte info header";
  int32_t sw = (int32_t)le32(b->p + 18), sh = (int32_t)le32(b->p + 22);
  if (sw < 0) return "negative width";
  *w = (uint32_t)sw;
  *h = sh < 0 ? 0u - (uint32_t)sh : (uint32_t)sh;
  return NULL;
}

static bool jpeg_is_sof(uint8_t m) { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC; }

/* libjpeg's marker walk: garbage before a marker and fill bytes (0xFF) are
 * skipped, FF 00 is stuffing, RSTn and TEM have no length; the first SOFn
 * gives the size and SOS, EOI or a second SOI before it is an error. */
static const char *read_jpeg(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 2) || b->p[0] != 0xFF || b->p[1] != 0xD8) return "no SOI marker";
  size_t pos = 2;
  for (;;) {
    while (pos < b->n && b->p[pos] != 0xFF) pos++;
    while (pos < b->n && b->p[pos] == 0xFF) pos++;
    if (pos >= b->n) return "no SOFn frame header";
    uint8_t m = b->p[pos++];
    if (m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;
    if (m == 0xD8 || m == 0xD9 || m == 0xDA) return "no SOFn frame header before the scan";
    if (!has(b, pos, 2)) return "truncated marker segment";
    if (jpeg_is_sof(m)) {
      if (!has(b, pos, 8)) return "truncated SOFn frame header";
      /* SDL asks for RGB (or CMYK): other component counts fail anyway,
       * and a progressive decoder keeps coefficients for each one */
      uint8_t comps = b->p[pos + 7];
      if (comps != 1 && comps != 3 && comps != 4) return "component count not 1, 3 or 4";
      *h = be16(b->p + pos + 3);
      *w = be16(b->p + pos + 5);
      return NULL;
    }
    uint32_t len = be16(b->p + pos);
    if (len < 2) return "marker segment length below 2";
    pos += len;
  }
}

static uint32_t tiff16(const bytes *b, size_t off, bool be) {
  return be ? be16(b->p + off) : le16(b->p + off);
}
static uint32_t tiff32(const bytes *b, size_t off, bool be) {
  return be ? be32(b->p + off) : le32(b->p + off);
}

/* libtiff reads the first IFD; ImageWidth (256) and ImageLength (257) are
 * SHORT or LONG single values stored in the entry itself. */
static const char *read_tiff(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 8)) return "shorter than the 8-byte header";
  bool be = b->p[0] == 'M';
  size_t ifd = tiff32(b, 4, be);
  if (!has(b, ifd, 2)) return "first IFD outside the file";
  uint32_t count = tiff16(b, ifd, be), found = 0;
  *w = *h = 0;
  for (uint32_t i = 0; i < count; i++) {
    size_t e = ifd + 2 + 12 * (size_t)i;
    if (!has(b, e, 12)) return "first IFD truncated";
    uint32_t tag = tiff16(b, e, be), type = tiff16(b, e + 2, be);
    if (tag != 256 && tag != 257) continue;
    if ((type != 3 && type != 4) || tiff32(b, e + 4, be) != 1)
      return "ImageWidth or ImageLength is not one SHORT or LONG";
    uint32_t v = type == 3 ? tiff16(b, e + 8, be) : tiff32(b, e + 8, be);
    uint32_t *dst = tag == 256 ? w : h;
    *dst = v > *dst ? v : *dst;
    found |= tag == 256 ? 1u : 2u;
  }
  return found == 3 ? NULL : "no ImageWidth and ImageLength in the first IFD";
}

/* RIFF header (12 bytes), then the first chunk: "VP8 " (lossy key frame:
 * 14-bit sizes after the start code; 30 bytes in all), "VP8L" (lossless:
 * 14-bit sizes minus one after the 0x2f signature; 25 bytes) or "VP8X"
 * (extended: 24-bit canvas sizes minus one; 30 bytes), which is what
 * WebPGetFeatures reports. */
static const char *read_webp(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 25)) return "shorter than the RIFF header and first chunk";
  const uint8_t *c = b->p + 12;
  if (memcmp(c, "VP8L", 4) != 0 && !has(b, 0, 30)) return "shorter than the RIFF header and first chunk";
  if (memcmp(c, "VP8 ", 4) == 0) {
    if (c[11] != 0x9d || c[12] != 0x01 || c[13] != 0x2a) return "no VP8 start code";
    *w = le16(c + 14) & 0x3fff;
    *h = le16(c + 16) & 0x3fff;
  } else if (memcmp(c, "VP8L", 4) == 0) {
    if (c[8] != 0x2f) return "no VP8L signature";
    uint32_t bits = le32(c + 9);
    *w = (bits & 0x3fff) + 1;
    *h = ((bits >> 14) & 0x3fff) + 1;
  } else if (memcmp(c, "VP8X", 4) == 0) {
    *w = le24(c + 12) + 1;
    *h = le24(c + 15) + 1;
  } else {
    return "first chunk is not VP8, VP8L or VP8X";
  }
  return NULL;
}

static const char *read_qoi(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 14)) return "shorter than the 14-byte header";
  *w = be32(b->p + 4);
  *h = be32(b->p + 8);
  return NULL;
}

/* SDL's PCX reader: size = max - min + 1 of signed 16-bit window corners.
 * It also allocates planes x the signed 16-bit bytes per line before it
 * checks them, so a negative count (a request for all of memory) is
 * refused here. */
static const char *read_pcx(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 128)) return "shorter than the 128-byte header";
  if ((int16_t)le16(b->p + 66) <= 0) return "bytes per line not positive";
  int32_t xmin = (int16_t)le16(b->p + 4), ymin = (int16_t)le16(b->p + 6);
  int32_t xmax = (int16_t)le16(b->p + 8), ymax = (int16_t)le16(b->p + 10);
  if (xmax < xmin || ymax < ymin) return "window corners out of order";
  *w = (uint32_t)(xmax - xmin + 1);
  *h = (uint32_t)(ymax - ymin + 1);
  return NULL;
}

static const char *read_tga(const bytes *b, uint32_t *w, uint32_t *h) {
  if (!has(b, 0, 18)) return "shorter than the 18-byte header";
  *w = le16(b->p + 12);
  *h = le16(b->p + 14);
  return NULL;
}

static const reader readers[WS_IMGHDR_FORMAT_COUNT] = {read_png,  read_pnm,  read_gif, read_bmp, read_jpeg,
                                                       read_tiff, read_webp, read_qoi, read_pcx, read_tga};

ws_status ws_imghdr_read(ws_ctx *ctx, ws_imghdr_format f, const void *data, size_t size_bytes,
                         const char *name, uint32_t *width, uint32_t *height) {
  *width = *height = 0;
  if ((unsigned)f >= WS_IMGHDR_FORMAT_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: unknown image format %d", name, (int)f);
  bytes b = {data, size_bytes};
  const char *why = readers[f](&b, width, height);
  if (why)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: %s header does not give the image size: %s", name,
                       format_names[f], why);
  return WS_OK;
}
