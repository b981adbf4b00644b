/* objfile.h - the .wso object format: an assembled program on disk.
 *
 * Design: a versioned, explicitly little-endian, field-by-field encoding (no
 * struct dumps, so it does not depend on padding or host byte order). The
 * loader trusts nothing: the header records the file's size and a CRC-32 of
 * every byte, so a damaged file is refused before its fields are read; every
 * field is then checked while reading (name padding zero, source lines in
 * order), the whole program goes through ws_verify_program, and the derived
 * data (reconvergence points, register counts) is recomputed rather than
 * read. An object that loads is byte for byte what ws_objfile_save writes for
 * the program it loads as. docs/isa.md describes the layout. */
#ifndef WS_OBJFILE_H
#define WS_OBJFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"

/* Version 2 added the size and checksum to the header and the field checks;
 * version 3 the per-thread local memory size (.local) of each kernel, and the
 * opcodes LDL and STL (which renumbered the opcodes after them); version 4
 * the half-precision opcodes HADD2 ... HSETP2 (renumbering the opcodes after
 * them) and their formats in the type field. */
#define WS_OBJFILE_VERSION 4u

/* True when data starts with the .wso magic. */
bool ws_objfile_is_object(const void *data, size_t size_bytes);
/* A malloc'd image of prog, a program as ws_asm_parse makes it (verified;
 * source lines, where it has them, one instruction a line in order); NULL
 * when out of memory or over 4 GiB. */
uint8_t *ws_objfile_save(const ws_program *prog, size_t *size_bytes);
/* Decodes and verifies an image; `name` is used in messages. */
ws_status ws_objfile_load(ws_ctx *ctx, const void *data, size_t size_bytes, const char *name,
                          ws_program **out);
/* Writes an image's size and checksum fields for its current bytes, as save
 * does last (for tools and tests that edit an image on purpose); false, and
 * nothing written, when size_bytes cannot hold a header or exceeds 4 GiB. */
bool ws_objfile_seal(void *image, size_t size_bytes);

#endif
