/* inliner.h - calls to .func device functions, inlined into the kernel.
 *
 * Design: warpscope's ISA has no call stack, so a `call` is replaced by
 * the callee's body at the PTX level, before lowering, and everything
 * after (lowering, reconvergence at post-dominators, allocation) sees one
 * straight kernel. Per call site the callee's registers, labels and .local
 * variables are renamed, so two calls share nothing. The .param slots of a
 * call sequence (`st.param [param0+8]`, the callee's `ld.param` of its
 * params, `st.param [func_retval0]`, the caller's `ld.param [retval0]`)
 * become registers, one per slot, offset and width; `ret` in the callee
 * becomes a branch to the end of its inlined body. Recursion, indirect
 * calls and calls to functions the PTX only declares are refused with the
 * call's PTX line. */
#ifndef WS_INLINER_H
#define WS_INLINER_H

#include "base/ctx.h"
#include "ptx/ptxparse.h"

/* Replaces the statements of entry `ei` of m (file `file` in messages)
 * with its body with every call inlined; an entry without calls is left as
 * it is. WS_ERR_INVALID (a located refusal), WS_ERR_LIMIT (an inlined body
 * beyond the reader's bounds), WS_ERR_NOMEM. */
ws_status ws_inliner_expand(ws_ctx *ctx, const char *file, ws_ptx_module *m, size_t ei);

#endif
