/* kparams.h - a kernel's PTX params as the ISA's params.
 *
 * Design: the ISA's parameter buffer holds 4- and 8-byte scalars and
 * pointers, filled by name, so a scalar or pointer param is one ISA param
 * and a struct passed by value (a `.b8` array in the PTX) is one ISA param
 * per field, named `p.field`: the host fills the fields one by one and an
 * `ld.param` at an offset of the struct reads the field that covers it.
 * The fields are the struct's definition in the CUDA source when it is
 * known and has the PTX param's size; else (a bare .ptx, a type the reader
 * does not lay out) they are the words the kernel's `ld.param`s read, named
 * by their offset (`param_0.8`), so the translation never needs the source.
 * clang reads a struct through its address (`mov.b64 %rd3, k_param_0;
 * ld.param.f32 %f1, [%rd3+4]`): a register that only ever holds a param's
 * address plus a constant is traced here, so such a read is one of a field
 * at a known offset, and the register itself is never materialized. */
#ifndef WS_KPARAMS_H
#define WS_KPARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "ptx/ptxparse.h"
#include "ptx/srcnames.h"

#define WS_KPARAMS_NAME_MAX 64 /* the ISA's names: WS_NAME_MAX */

/* One ISA param: a whole PTX param, or a field of one. */
typedef struct ws_ptx_pinfo {
  char name[WS_KPARAMS_NAME_MAX]; /* as the .wsa declares it: "n", "p.scale", "param_0.8" */
  bool is_ptr;                    /* an 8-byte value the kernel uses as a global address */
  bool is_field;                  /* part of a struct passed by value */
  char kind; /* a field's type: 'f' float, 's' int, 'u' unsigned, 'U' 64-bit, 'p' pointer; 0: the PTX param's
              */
  uint32_t param;                    /* the PTX param it is, or is part of */
  uint32_t offset_bytes, size_bytes; /* its bytes in that param */
} ws_ptx_pinfo;

/* A register that holds the address of a PTX param plus a constant. */
typedef struct ws_kparams_addr {
  char reg[WS_PTX_NAME_MAX / 4];
  uint32_t param;
  int64_t offset_bytes;
  bool other_def; /* also written by something else: not a param's address after all */
} ws_kparams_addr;

typedef struct ws_kparams_addrs {
  ws_kparams_addr *v;
  size_t n, cap;
} ws_kparams_addrs;

/* Whether PTX param p is an aggregate: declared as an array (`.b8 p[24]`). */
bool ws_kparams_is_struct(const ws_ptx_param *p);

/* The registers of entry e every write of which is a `mov` of a param's
 * name, a copy of such a register or its sum with a constant (`add.s64`):
 * their params and offsets. WS_ERR_NOMEM; free with ws_kparams_free_addrs. */
ws_status ws_kparams_trace(ws_ctx *ctx, const ws_ptx_entry *e, ws_kparams_addrs *out);
/* The traced register `reg`, or NULL. */
const ws_kparams_addr *ws_kparams_lookup(const ws_kparams_addrs *a, const char *reg);
/* Whether statement st writes a traced register (and so is left out of the translation). */
bool ws_kparams_defines(const ws_kparams_addrs *a, const ws_ptx_stmt *st);
void ws_kparams_free_addrs(ws_kparams_addrs *a);

/* The ISA params of entry e, in PTX order, fields in offset order: a
 * param's name from names (one per PTX param; NULL: positional names,
 * `param_0` ...), a struct's fields from names[i].layout when it has the
 * param's size, else from the offsets e's ld.param instructions read
 * (through the traced registers `addrs` too).
 * WS_ERR_NOMEM; the caller frees *out. */
ws_status ws_kparams_build(ws_ctx *ctx, const ws_ptx_entry *e, const ws_srcparam *names,
                           const ws_kparams_addrs *addrs, ws_ptx_pinfo **out, size_t *n);

/* The ISA param of PTX param `param` that holds all of bytes [off, off + size), or -1. */
int ws_kparams_find(const ws_ptx_pinfo *ps, size_t n, uint32_t param, uint32_t off, uint32_t size);

/* The .wsa type of ISA param pi of PTX param p (".f32", ".ptr" ...), or
 * NULL when the ISA has none for it (a scalar other than 4 or 8 bytes). */
const char *ws_kparams_type(const ws_ptx_pinfo *pi, const ws_ptx_param *p);

#endif
