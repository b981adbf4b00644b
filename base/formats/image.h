/* image.h - model input images: loading (PNG, PPM and every other format
 * SDL2_image decodes), resizing to 32x32, ImageNet normalization into CHW
 * fp32, procedural sample images, and PNG output.
 *
 * Design: an image is plain 8-bit RGB, which is what files hold; resizing
 * works in fp32 (0..255 scale) so no precision is lost before
 * normalization. Resizing is separable and chooses per axis: a downscale is
 * an area average (each output pixel is the mean of the source area it
 * covers, weighted by overlap), an upscale is bilinear with pixel centres at
 * (i + 0.5) (PyTorch's align_corners=False) clamped at the borders. Area
 * averaging avoids the aliasing a point-sampled downscale gives a 4x4-patch
 * model. Sample images are pure functions of their name (and a fixed seed for
 * "noise"), so every run and every machine sees the same pixels. */
#ifndef WS_IMAGE_H
#define WS_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "base/formats/imghdr.h"

#define WS_IMAGE_INPUT_SIZE 32 /* model input, pixels per side */
#define WS_IMAGE_MAX_SIDE 16384u
/* Decoded images are also capped at 16 Mpixel (4096x4096): SDL's 32-bit
 * surface, its RGB24 copy and ours then stay under 160 MiB. */
#define WS_IMAGE_MAX_PIXELS (1u << 24)
/* An uncompressed 16-Mpixel BMP or TIFF is 64 MiB; twice that for files. */
#define WS_IMAGE_MAX_FILE_BYTES ((size_t)128 << 20)
#define WS_IMAGE_NOISE_SEED 0x5eedull

typedef struct ws_image {
  uint32_t width, height;
  uint8_t *rgb; /* width*height*3 bytes, interleaved RGB, top row first */
} ws_image;

/* A black image; sides in [1, WS_IMAGE_MAX_SIDE]. */
ws_status ws_image_create(ws_ctx *ctx, uint32_t width, uint32_t height, ws_image **out);
void ws_image_destroy(ws_image *img);

/* The format (chosen by SDL_image's own signature checks, in its order; TGA,
 * which has none, by a ".tga" name) and the size the header declares,
 * refused unless each side is in [1, WS_IMAGE_MAX_SIDE] and the pixel count
 * at most WS_IMAGE_MAX_PIXELS. Formats whose size cannot be read up front
 * (ICO, CUR, SVG, XCF, XPM, XV, LBM, AVIF, JPEG XL) are refused. Nothing is
 * decoded. */
ws_status ws_image_probe(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                         ws_imghdr_format *format, uint32_t *width, uint32_t *height);
/* Loads PNG, PPM/PGM/PBM, GIF, BMP, JPEG, TIFF, WEBP, QOI, PCX or TGA (with
 * SDL2_image, after ws_image_probe accepts the header) and converts it to
 * RGB; alpha is dropped. A missing file is WS_ERR_IO, an undecodable,
 * oversized (over WS_IMAGE_MAX_FILE_BYTES) or refused one WS_ERR_INVALID;
 * all name the file. */
ws_status ws_image_load(ws_ctx *ctx, const char *path, ws_image **out);
/* The same from a file image in memory; `name` is used in messages. */
ws_status ws_image_decode(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name, ws_image **out);
/* Writes PNG via a temporary file and rename(2). */
ws_status ws_image_save_png(ws_ctx *ctx, const ws_image *img, const char *path);

/* Resizes to dst_w x dst_h into dst_chw [3, dst_h, dst_w], values on the
 * 0..255 scale (area average down, bilinear up; see the header comment). */
ws_status ws_image_resize(ws_ctx *ctx, const ws_image *src, uint32_t dst_w, uint32_t dst_h, float *dst_chw);
/* chw[c] = (chw[c] / 255 - mean[c]) / std[c] with ImageNet's mean
 * (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225); `pixels` per channel. */
void ws_image_normalize(float *chw, size_t pixels);
/* resize to 32x32 + normalize: the TinyViT32 input [3, 32, 32]. */
ws_status ws_image_to_input(ws_ctx *ctx, const ws_image *img, float *chw);

/* Built-in 32x32 samples: "checker", "gradient", "disc", "noise". */
const char *const *ws_image_sample_names(void); /* NULL-terminated */
ws_status ws_image_sample(ws_ctx *ctx, const char *name, ws_image **out);

/* The TinyViT32 input [3, 32, 32] of `name`: a built-in sample's name, or
 * else the path of an image file (decode, resize, normalize). */
ws_status ws_image_input(ws_ctx *ctx, const char *name, float *chw);

#endif
