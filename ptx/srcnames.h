/* srcnames.h - a CUDA kernel's parameter names, read from its source.
 *
 * Design: PTX names a kernel's params by position (`_Z5saxpyifPfS_param_0`)
 * and line tables carry no names, but the kernel's definition is at the
 * line its first instruction's .loc names; its parameter list, split at the
 * top-level commas, gives each param's declarator, whose last identifier is
 * the name a user writes (`--arg n=1000`). Used only when the count matches
 * the PTX's, so a macro or template trick that defeats the reading leaves
 * the positional names. */
#ifndef WS_SRCNAMES_H
#define WS_SRCNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SRCNAME_MAX 64

/* One parameter as the source declares it. */
typedef struct ws_srcparam {
  char name[WS_SRCNAME_MAX];
  bool is_ptr; /* its declarator has a '*': a pointer, whatever the kernel does with it */
} ws_srcparam;

/* Reads the parameter list of the definition of `kernel` (its source name
 * without template arguments) that starts on or up to 8 lines before `line`
 * (1-based; 0: unknown) of `text`, else of its first __global__ definition;
 * true when it finds exactly `nparams` names, each a C identifier, all
 * different, written to names. */
bool ws_srcnames_params(const char *text, size_t len, uint32_t line, const char *kernel, size_t nparams,
                        ws_srcparam *params);

#endif
