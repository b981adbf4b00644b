/* lower.h - one PTX entry into the middle form (vcode.h): PTX's typed
 * virtual registers become the translator's virtual registers (64-bit
 * values as pairs, vector loads as aligned pairs and quads), and each
 * instruction a few warpscope instructions. What warpscope cannot run is
 * refused here with the PTX line, the instruction and what is supported. */
#ifndef WS_LOWER_H
#define WS_LOWER_H

#include <stdbool.h>

#include "ptx/kparams.h"
#include "ptx/ptxparse.h"
#include "ptx/srcnames.h"
#include "ptx/vcode.h"

#define WS_PTX_SYM_MAX 63 /* the ISA's names: WS_NAME_MAX - 1 */

/* A shared variable as the kernel's .wsa declares it. */
typedef struct ws_ptx_shared {
  char ptx_name[WS_PTX_NAME_MAX];
  char name[WS_PTX_SYM_MAX + 1];
  uint64_t size_bytes;
  uint32_t align_bytes;
  bool is_extern; /* dynamic shared memory: after the static arrays, sized at launch */
} ws_ptx_shared;

typedef struct ws_ptx_lower ws_ptx_lower;

/* The module's .const variables laid out in the constant bank from offset
 * 0, in declaration order, each at its alignment: the bytes they take, and
 * their initial values into image (that many bytes, zeroed first; NULL:
 * only the size). *offset of `name` when it is one (UINT32_MAX if not). */
uint32_t ws_ptx_const_layout(const ws_ptx_module *m, uint8_t *image, const char *name, uint32_t *offset);

/* Lowers entry `e` of module `m` (file `file` in messages) into *vc, with
 * the per-thread bytes of its .local variables (*local_bytes; accesses to
 * them are LDL/STL at their offsets from 0), the entry's shared variables
 * (module-scope ones it names included) and
 * its ISA params (kparams.h: param_names when not NULL, one per PTX param,
 * else param_0, param_1 ...; a struct's fields), *nparams of them. The
 * caller frees vc, shared and params. */
ws_status ws_ptx_lower_entry(ws_ctx *ctx, const char *file, const ws_ptx_module *m, const ws_ptx_entry *e,
                             const ws_srcparam *param_names, ws_vcode *vc, ws_ptx_shared **shared,
                             size_t *nshared, ws_ptx_pinfo **params, size_t *nparams, uint32_t *local_bytes);

#endif
