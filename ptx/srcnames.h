/* srcnames.h - a CUDA kernel's parameter names, read from its source.
 *
 * Design: PTX names a kernel's params by position (`_Z5saxpyifPfS_param_0`)
 * and line tables carry no names, but the kernel's definition is at the
 * line its first instruction's .loc names; its parameter list, split at the
 * top-level commas, gives each param's declarator, whose last identifier is
 * the name a user writes (`--arg n=1000`). Used only when the count matches
 * the PTX's, so a macro or template trick that defeats the reading leaves
 * the positional names. A struct passed by value is read as well: its
 * definition in the same file, laid out as clang lays it out, gives the
 * fields the host fills one by one (`--arg p.scale=2`). */
#ifndef WS_SRCNAMES_H
#define WS_SRCNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SRCNAME_MAX 64

#define WS_SRCFIELD_MAX 64

/* One parameter as the source declares it. */
typedef struct ws_srcparam {
  char name[WS_SRCNAME_MAX];
  char type[WS_SRCNAME_MAX];   /* the type's last word ("Affine", "float4", "int"); "" when none */
  bool is_ptr;                 /* its declarator has a '*': a pointer, whatever the kernel does with it */
  struct ws_srcstruct *layout; /* a struct passed by value: its fields (NULL: none; the caller's) */
} ws_srcparam;

/* A scalar of a struct passed by value, nested structs and vector types
 * flattened: "scale", "range.x", "inner.src". */
typedef struct ws_srcfield {
  char name[WS_SRCNAME_MAX];
  char kind; /* 'f' float, 's' int, 'u' unsigned, 'U' a 64-bit integer, 'p' a pointer */
  uint32_t offset_bytes, size_bytes;
} ws_srcfield;

typedef struct ws_srcstruct {
  ws_srcfield fields[WS_SRCFIELD_MAX];
  size_t nfields;
  uint32_t size_bytes, align_bytes; /* as clang lays it out for nvptx64 */
} ws_srcstruct;

/* Reads the parameter list of the definition of `kernel` (its source name
 * without template arguments) that starts on or up to 8 lines before `line`
 * (1-based; 0: unknown) of `text`, else of its first __global__ definition;
 * true when it finds exactly `nparams` names, each a C identifier, all
 * different, written to names. */
bool ws_srcnames_params(const char *text, size_t len, uint32_t line, const char *kernel, size_t nparams,
                        ws_srcparam *params);

/* The layout of type `type` (a CUDA vector type such as float4 or int2, or
 * a `struct NAME { ... }` / `typedef struct { ... } NAME` of `text`) by C's
 * rules on nvptx64: each member at its alignment, the struct's size a
 * multiple of its largest. Members may be float, int, unsigned (long long,
 * size_t ...: 8 bytes), pointers, the 4- and 8-byte CUDA vector types and
 * such structs; false for anything else (char, short, double, arrays,
 * bit-fields, explicit alignment), or when there is no such definition. */
bool ws_srcnames_struct(const char *text, size_t len, const char *type, ws_srcstruct *out);

#endif
