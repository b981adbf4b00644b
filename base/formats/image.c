/* image.c - image decode/encode through SDL2_image, separable resampling,
 * ImageNet normalization and the procedural sample images.
 *
 * Files are read with ws_file_read and decoded from memory, so "cannot
 * open" and "not an image" are told apart. Before anything is decoded the
 * format is chosen with SDL_image's own checks and the size read from the
 * header (base/formats/imghdr.h) and bounded; then that format's loader runs. SDL needs no video
 * initialisation for surfaces, decoding or PNG output. Resampling weights are
 * computed once per axis as (first source index, weights) taps and applied
 * horizontally then vertically. */
#include "base/formats/image.h"

#include <SDL2/SDL.h>
#include <SDL2/SDL_image.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/file.h"

ws_status ws_image_create(ws_ctx *ctx, uint32_t width, uint32_t height, ws_image **out) {
  *out = NULL;
  if (width == 0 || height == 0 || width > WS_IMAGE_MAX_SIDE || height > WS_IMAGE_MAX_SIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "image size %ux%u: each side must be in [1, %u]", width, height,
                       WS_IMAGE_MAX_SIDE);
  ws_image *img = calloc(1, sizeof *img);
  uint8_t *rgb = calloc((size_t)width * height * 3, 1);
  if (!img || !rgb) {
    free(img);
    free(rgb);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for a %ux%u image", width, height);
  }
  *img = (ws_image){width, height, rgb};
  *out = img;
  return WS_OK;
}

void ws_image_destroy(ws_image *img) {
  if (!img) return;
  free(img->rgb);
  free(img);
}

/* ---- decode / encode ------------------------------------------------------------ */

/* SDL_image 2.6's detection table (IMG.c), in its order, so the format
 * chosen here is the one IMG_Load_RW would choose. -1: no header reader,
 * the format is refused. */
static const struct {
  const char *name;
  int (*is)(SDL_RWops *src);
  int format;
} sniffers[] = {
    {"AVIF", IMG_isAVIF, -1},
    {"CUR", IMG_isCUR, -1},
    {"ICO", IMG_isICO, -1},
    {"BMP", IMG_isBMP, WS_IMGHDR_BMP},
    {"GIF", IMG_isGIF, WS_IMGHDR_GIF},
    {"JPEG", IMG_isJPG, WS_IMGHDR_JPEG},
    {"JPEG XL", IMG_isJXL, -1},
    {"LBM", IMG_isLBM, -1},
    {"PCX", IMG_isPCX, WS_IMGHDR_PCX},
    {"PNG", IMG_isPNG, WS_IMGHDR_PNG},
    {"PNM", IMG_isPNM, WS_IMGHDR_PNM},
    {"SVG", IMG_isSVG, -1},
    {"TIFF", IMG_isTIF, WS_IMGHDR_TIFF},
    {"XCF", IMG_isXCF, -1},
    {"XPM", IMG_isXPM, -1},
    {"XV", IMG_isXV, -1},
    {"WEBP", IMG_isWEBP, WS_IMGHDR_WEBP},
    {"QOI", IMG_isQOI, WS_IMGHDR_QOI},
};

/* Each format's own decoder: the one whose header was read. */
static SDL_Surface *(*const loaders[WS_IMGHDR_FORMAT_COUNT])(SDL_RWops *src) = {
    IMG_LoadPNG_RW, IMG_LoadPNM_RW,  IMG_LoadGIF_RW, IMG_LoadBMP_RW, IMG_LoadJPG_RW,
    IMG_LoadTIF_RW, IMG_LoadWEBP_RW, IMG_LoadQOI_RW, IMG_LoadPCX_RW, IMG_LoadTGA_RW};

#define ACCEPTED "PNG, PPM/PGM/PBM, GIF, BMP, JPEG, TIFF, WEBP, QOI, PCX, TGA"

static bool named_tga(const char *name) {
  size_t n = strlen(name);
  return n >= 4 && strcasecmp(name + n - 4, ".tga") == 0;
}

static ws_status sniff(ws_ctx *ctx, SDL_RWops *rw, const char *name, ws_imghdr_format *format) {
  for (size_t i = 0; i < sizeof sniffers / sizeof *sniffers; i++) {
    if (!sniffers[i].is(rw)) continue;
    if (sniffers[i].format >= 0) {
      *format = (ws_imghdr_format)sniffers[i].format;
      return WS_OK;
    }
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s: %s images are not accepted: their size cannot be checked before decoding "
                       "(accepted: " ACCEPTED ")",
                       name, sniffers[i].name);
  }
  if (named_tga(name)) {
    *format = WS_IMGHDR_TGA;
    return WS_OK;
  }
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: not a readable image (no signature of " ACCEPTED ")", name);
}

static ws_status check_size(ws_ctx *ctx, const char *name, const char *format, uint32_t w, uint32_t h) {
  if (w >= 1 && h >= 1 && w <= WS_IMAGE_MAX_SIDE && h <= WS_IMAGE_MAX_SIDE &&
      (uint64_t)w * h <= WS_IMAGE_MAX_PIXELS)
    return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "%s: %s image is %ux%u; each side must be in [1, %u] and the pixel count at most %u "
                     "(4096x4096)",
                     name, format, w, h, WS_IMAGE_MAX_SIDE, WS_IMAGE_MAX_PIXELS);
}

static ws_status probe_rw(ws_ctx *ctx, SDL_RWops *rw, const void *data, size_t size_bytes, const char *name,
                          ws_imghdr_format *format, uint32_t *w, uint32_t *h) {
  ws_status st = sniff(ctx, rw, name, format);
  if (st == WS_OK) st = ws_imghdr_read(ctx, *format, data, size_bytes, name, w, h);
  if (st == WS_OK) st = check_size(ctx, name, ws_imghdr_format_name(*format), *w, *h);
  return st;
}

static ws_status open_mem(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                          SDL_RWops **rw) {
  if (size_bytes > WS_IMAGE_MAX_FILE_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: larger than the %zu MiB limit for images", name,
                       WS_IMAGE_MAX_FILE_BYTES >> 20);
  if (size_bytes == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: not a readable image (the file is empty)", name);
  *rw = SDL_RWFromConstMem(data, (int)size_bytes);
  return *rw ? WS_OK
             : ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: cannot wrap the file (SDL: %s)", name, SDL_GetError());
}

ws_status ws_image_probe(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                         ws_imghdr_format *format, uint32_t *width, uint32_t *height) {
  SDL_RWops *rw = NULL;
  ws_status st = open_mem(ctx, data, size_bytes, name, &rw);
  if (st != WS_OK) return st;
  st = probe_rw(ctx, rw, data, size_bytes, name, format, width, height);
  SDL_RWclose(rw);
  return st;
}

static ws_status copy_rgb24(ws_ctx *ctx, SDL_Surface *rgb, const char *name, ws_image **out) {
  ws_status st = check_size(ctx, name, "decoded", (uint32_t)(rgb->w > 0 ? rgb->w : 0),
                            (uint32_t)(rgb->h > 0 ? rgb->h : 0));
  if (st == WS_OK) st = ws_image_create(ctx, (uint32_t)rgb->w, (uint32_t)rgb->h, out);
  if (st != WS_OK) return st;
  if (SDL_MUSTLOCK(rgb)) SDL_LockSurface(rgb);
  size_t row_bytes = (size_t)rgb->w * 3;
  for (int y = 0; y < rgb->h; y++)
    memcpy((*out)->rgb + (size_t)y * row_bytes, (const uint8_t *)rgb->pixels + (size_t)y * (size_t)rgb->pitch,
           row_bytes);
  if (SDL_MUSTLOCK(rgb)) SDL_UnlockSurface(rgb);
  return WS_OK;
}

/* Decodes with the probed format's own loader, so no other decoder (with
 * another idea of the size) can run. */
static SDL_Surface *decode_rw(SDL_RWops *rw, ws_imghdr_format format) {
  if (SDL_RWseek(rw, 0, RW_SEEK_SET) != 0) return NULL;
  return loaders[format](rw);
}

ws_status ws_image_decode(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                          ws_image **out) {
  *out = NULL;
  SDL_RWops *rw = NULL;
  ws_status st = open_mem(ctx, data, size_bytes, name, &rw);
  if (st != WS_OK) return st;
  ws_imghdr_format format = WS_IMGHDR_PNG;
  uint32_t w, h;
  st = probe_rw(ctx, rw, data, size_bytes, name, &format, &w, &h);
  SDL_Surface *surf = st == WS_OK ? decode_rw(rw, format) : NULL;
  SDL_RWclose(rw);
  if (st != WS_OK) return st;
  if (!surf)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: not a readable %s image (SDL_image: %s)", name,
                       ws_imghdr_format_name(format), IMG_GetError());
  SDL_Surface *rgb = SDL_ConvertSurfaceFormat(surf, SDL_PIXELFORMAT_RGB24, 0);
  SDL_FreeSurface(surf);
  if (!rgb)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: cannot convert to RGB (SDL: %s)", name, SDL_GetError());
  st = copy_rgb24(ctx, rgb, name, out);
  SDL_FreeSurface(rgb);
  return st;
}

ws_status ws_image_load(ws_ctx *ctx, const char *path, ws_image **out) {
  *out = NULL;
  char *data = NULL;
  size_t size = 0;
  ws_status st = ws_file_read(ctx, path, WS_IMAGE_MAX_FILE_BYTES, "images", &data, &size);
  if (st != WS_OK) return st;
  st = ws_image_decode(ctx, data, size, path, out);
  free(data);
  return st;
}

ws_status ws_image_save_png(ws_ctx *ctx, const ws_image *img, const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
    return ws_ctx_fail(ctx, WS_ERR_IO, "output path too long: '%s'", path);
  /* SDL only reads the wrapped pixels when saving */
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormatFrom(img->rgb, (int)img->width, (int)img->height, 24,
                                                      (int)img->width * 3, SDL_PIXELFORMAT_RGB24);
  if (!s) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: cannot wrap the image (SDL: %s)", path, SDL_GetError());
  int rc = IMG_SavePNG(s, tmp);
  SDL_FreeSurface(s);
  if (rc != 0) {
    remove(tmp);
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s' (SDL_image: %s)", path, IMG_GetError());
  }
  if (rename(tmp, path) != 0) {
    int err = errno;
    remove(tmp);
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  return WS_OK;
}

/* ---- resampling ---------------------------------------------------------------- */

/* Output pixel i of one axis reads count[i] source pixels from first[i] on,
 * with weights w[i * max + k] summing to 1. */
typedef struct taps {
  uint32_t *first, *count;
  float *w;
  uint32_t max;
} taps;

static void taps_free(taps *t) {
  free(t->first);
  free(t->count);
  free(t->w);
}

/* Area average: output i covers source [i*s, (i+1)*s), s = src/dst >= 1. */
static void box_taps(taps *t, uint32_t src_n, uint32_t dst_n, uint32_t i) {
  double s = (double)src_n / dst_n, x0 = i * s, x1 = (i + 1) * s;
  uint32_t j0 = (uint32_t)floor(x0), j1 = (uint32_t)ceil(x1);
  if (j1 > src_n) j1 = src_n;
  t->first[i] = j0;
  t->count[i] = j1 - j0;
  for (uint32_t j = j0; j < j1; j++) {
    double lo = x0 > j ? x0 : j, hi = x1 < j + 1.0 ? x1 : j + 1.0;
    t->w[(size_t)i * t->max + (j - j0)] = (float)((hi - lo) / s);
  }
}

/* Bilinear: output centre i + 0.5 maps to source x = (i + 0.5) src/dst - 0.5. */
static void linear_taps(taps *t, uint32_t src_n, uint32_t dst_n, uint32_t i) {
  double x = (i + 0.5) * src_n / dst_n - 0.5;
  if (x < 0) x = 0;
  if (x > src_n - 1) x = src_n - 1;
  uint32_t j0 = (uint32_t)floor(x);
  double f = x - j0;
  t->first[i] = j0;
  t->count[i] = (j0 + 1 < src_n && f > 0) ? 2 : 1;
  t->w[(size_t)i * t->max] = (float)(t->count[i] == 2 ? 1.0 - f : 1.0);
  if (t->count[i] == 2) t->w[(size_t)i * t->max + 1] = (float)f;
}

static int taps_build(taps *t, uint32_t src_n, uint32_t dst_n) {
  int down = dst_n <= src_n;
  t->max = down ? (uint32_t)ceil((double)src_n / dst_n) + 1 : 2;
  t->first = calloc(dst_n, sizeof *t->first);
  t->count = calloc(dst_n, sizeof *t->count);
  t->w = calloc((size_t)dst_n * t->max, sizeof *t->w);
  if (!t->first || !t->count || !t->w) return 0;
  for (uint32_t i = 0; i < dst_n; i++) {
    if (down)
      box_taps(t, src_n, dst_n, i);
    else
      linear_taps(t, src_n, dst_n, i);
  }
  return 1;
}

/* tmp[y][x][c] = horizontal pass over the source rows */
static void resample_rows(const ws_image *src, const taps *tx, uint32_t dst_w, float *tmp) {
  for (uint32_t y = 0; y < src->height; y++)
    for (uint32_t x = 0; x < dst_w; x++)
      for (uint32_t c = 0; c < 3; c++) {
        float acc = 0.0f;
        const uint8_t *row = src->rgb + ((size_t)y * src->width + tx->first[x]) * 3 + c;
        for (uint32_t k = 0; k < tx->count[x]; k++) acc += tx->w[(size_t)x * tx->max + k] * row[k * 3];
        tmp[((size_t)y * dst_w + x) * 3 + c] = acc;
      }
}

static void resample_cols(const float *tmp, const taps *ty, uint32_t dst_w, uint32_t dst_h, float *dst_chw) {
  for (uint32_t y = 0; y < dst_h; y++)
    for (uint32_t x = 0; x < dst_w; x++)
      for (uint32_t c = 0; c < 3; c++) {
        float acc = 0.0f;
        for (uint32_t k = 0; k < ty->count[y]; k++)
          acc += ty->w[(size_t)y * ty->max + k] * tmp[(((size_t)ty->first[y] + k) * dst_w + x) * 3 + c];
        dst_chw[((size_t)c * dst_h + y) * dst_w + x] = acc;
      }
}

ws_status ws_image_resize(ws_ctx *ctx, const ws_image *src, uint32_t dst_w, uint32_t dst_h, float *dst_chw) {
  if (dst_w == 0 || dst_h == 0 || dst_w > WS_IMAGE_MAX_SIDE || dst_h > WS_IMAGE_MAX_SIDE)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "resize to %ux%u: each side must be in [1, %u]", dst_w, dst_h,
                       WS_IMAGE_MAX_SIDE);
  taps tx = {0}, ty = {0};
  float *tmp = malloc((size_t)src->height * dst_w * 3 * sizeof *tmp);
  int ok = tmp && taps_build(&tx, src->width, dst_w) && taps_build(&ty, src->height, dst_h);
  if (ok) {
    resample_rows(src, &tx, dst_w, tmp);
    resample_cols(tmp, &ty, dst_w, dst_h, dst_chw);
  }
  taps_free(&tx);
  taps_free(&ty);
  free(tmp);
  if (!ok) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory resizing to %ux%u", dst_w, dst_h);
  return WS_OK;
}

void ws_image_normalize(float *chw, size_t pixels) {
  static const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
  for (size_t c = 0; c < 3; c++)
    for (size_t i = 0; i < pixels; i++) {
      float *v = &chw[c * pixels + i];
      *v = (*v / 255.0f - mean[c]) / std[c];
    }
}

ws_status ws_image_to_input(ws_ctx *ctx, const ws_image *img, float *chw) {
  ws_status st = ws_image_resize(ctx, img, WS_IMAGE_INPUT_SIZE, WS_IMAGE_INPUT_SIZE, chw);
  if (st == WS_OK) ws_image_normalize(chw, WS_IMAGE_INPUT_SIZE * WS_IMAGE_INPUT_SIZE);
  return st;
}

/* ---- samples --------------------------------------------------------------------- */

static void put(ws_image *img, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b) {
  uint8_t *p = img->rgb + ((size_t)y * img->width + x) * 3;
  p[0] = r;
  p[1] = g;
  p[2] = b;
}

/* 8x8-pixel cells: each spans exactly 2x2 model patches. */
static void draw_checker(ws_image *img) {
  for (uint32_t y = 0; y < img->height; y++)
    for (uint32_t x = 0; x < img->width; x++) {
      if (((x / 8) + (y / 8)) % 2)
        put(img, x, y, 230, 200, 40);
      else
        put(img, x, y, 30, 60, 160);
    }
}

static uint8_t ramp(uint32_t v, uint32_t max) { return (uint8_t)((v * 255 + max / 2) / max); }

/* red rises left to right, green top to bottom, blue along the diagonal */
static void draw_gradient(ws_image *img) {
  uint32_t w = img->width - 1, h = img->height - 1;
  for (uint32_t y = 0; y <= h; y++)
    for (uint32_t x = 0; x <= w; x++) put(img, x, y, ramp(x, w), ramp(y, h), ramp(x + y, w + h));
}

/* Radius 10 around the centre, tested on pixel centres in half-pixel units
 * so the decision is exact integer arithmetic. */
static void draw_disc(ws_image *img) {
  for (uint32_t y = 0; y < img->height; y++)
    for (uint32_t x = 0; x < img->width; x++) {
      int dx = 2 * (int)x + 1 - (int)img->width, dy = 2 * (int)y + 1 - (int)img->height;
      if (dx * dx + dy * dy <= 400)
        put(img, x, y, 240, 120, 30);
      else
        put(img, x, y, 20, 20, 40);
    }
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void draw_noise(ws_image *img) {
  uint64_t state = WS_IMAGE_NOISE_SEED;
  size_t n = (size_t)img->width * img->height;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix64(&state);
    img->rgb[i * 3] = (uint8_t)r;
    img->rgb[i * 3 + 1] = (uint8_t)(r >> 8);
    img->rgb[i * 3 + 2] = (uint8_t)(r >> 16);
  }
}

static const char *const sample_names[] = {"checker", "gradient", "disc", "noise", NULL};
static void (*const sample_draw[])(ws_image *) = {draw_checker, draw_gradient, draw_disc, draw_noise};

const char *const *ws_image_sample_names(void) { return sample_names; }

ws_status ws_image_sample(ws_ctx *ctx, const char *name, ws_image **out) {
  *out = NULL;
  for (size_t i = 0; sample_names[i]; i++) {
    if (strcmp(name, sample_names[i]) != 0) continue;
    ws_status st = ws_image_create(ctx, WS_IMAGE_INPUT_SIZE, WS_IMAGE_INPUT_SIZE, out);
    if (st == WS_OK) sample_draw[i](*out);
    return st;
  }
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "unknown sample image '%s' (samples: checker, gradient, disc, noise)", name);
}

static bool is_sample(const char *name) {
  for (const char *const *s = ws_image_sample_names(); *s; s++)
    if (strcmp(*s, name) == 0) return true;
  return false;
}

ws_status ws_image_input(ws_ctx *ctx, const char *name, float *chw) {
  ws_image *img = NULL;
  ws_status st = is_sample(name) ? ws_image_sample(ctx, name, &img) : ws_image_load(ctx, name, &img);
  if (st == WS_OK) st = ws_image_to_input(ctx, img, chw);
  ws_image_destroy(img);
  return st;
}
