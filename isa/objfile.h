/* objfile.h - the .wso object format: an assembled program on disk.
 *
 * Design: a versioned, explicitly little-endian, field-by-field encoding (no
 * struct dumps, so it does not depend on padding or host byte order). The
 * loader trusts nothing: every field is bounds-checked while reading, then
 * the whole program goes through ws_verify_program, and the derived data
 * (reconvergence points, register counts) is recomputed rather than read. */
#ifndef WS_OBJFILE_H
#define WS_OBJFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"

#define WS_OBJFILE_VERSION 1u

/* True when data starts with the .wso magic. */
bool ws_objfile_is_object(const void *data, size_t size_bytes);
/* A malloc'd image of prog; NULL when out of memory. */
uint8_t *ws_objfile_save(const ws_program *prog, size_t *size_bytes);
/* Decodes and verifies an image; `name` is used in messages. */
ws_status ws_objfile_load(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                          ws_program **out);

#endif
