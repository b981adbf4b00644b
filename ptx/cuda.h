/* cuda.h - the CUDA C driver: a .cu file's device code compiled to PTX by
 * the system's clang, and kernel names made readable.
 *
 * Design: warpscope does not need the CUDA toolkit. clang (Debian package
 * clang) compiles device code on its own with -nocudainc -nocudalib when it
 * is given headers; the project's headers (ptx/include/) are embedded in the
 * binary and written to a private temporary folder for each compile, so the
 * binary works with nothing beside it but clang. clang is found at run time
 * (WS_CLANG, else clang, clang-16, clang-15, clang-14 on PATH) and run
 * without a shell, so any file name is safe; its diagnostics come back
 * verbatim in the error message. */
#ifndef WS_CUDA_H
#define WS_CUDA_H

#include <stddef.h>

#include "base/ctx.h"

typedef struct ws_cuda_opts {
  /* -D definitions, each "NAME" or "NAME=VALUE"; NAME must be an identifier */
  const char *const *defines;
  size_t ndefines;
  /* template kernels to emit, each a template-id such as "sgemm<128,128,8,8,8>" */
  const char *const *instantiate;
  size_t ninstantiate;
  /* the GPU architecture clang compiles for: "sm_80" when NULL */
  const char *arch;
} ws_cuda_opts;

/* The size of a buffer that holds any path ws_cuda_find_clang writes. */
#define WS_CUDA_PATH_MAX_BYTES 4096

/* The clang to run: WS_CLANG when set (a path, or a name looked up on PATH),
 * else the first of clang, clang-16, clang-15, clang-14 on PATH. Fails with
 * WS_ERR_IO and "CUDA C needs clang (Debian package clang): ..." when there
 * is none, WS_ERR_LIMIT when the path does not fit in n bytes. */
ws_status ws_cuda_find_clang(ws_ctx *ctx, char *path, size_t n);

/* Compiles the device code of cu_path (opts NULL: no defines, no
 * instantiations, sm_80) to PTX text, NUL-terminated, in *ptx_text (the
 * caller frees it) of *ptx_len bytes. Fails with WS_ERR_USAGE for a bad -D,
 * instantiation request or architecture, WS_ERR_INVALID with clang's
 * diagnostics (file:line: error: ...) when the source does not compile,
 * WS_ERR_IO when clang or the temporary folder is unavailable. Nothing is
 * written beside cu_path; the temporary folder is always removed. */
ws_status ws_cuda_compile(ws_ctx *ctx, const char *cu_path, const ws_cuda_opts *opts, char **ptx_text,
                          size_t *ptx_len);

/* A kernel's source name without its parameter list: "_Z5saxpyifPKfPf" ->
 * "saxpy", "_Z9block_sumILi256EEvPKfPf" -> "block_sum<256>". A name that is
 * not mangled (an extern "C" kernel) comes back as it is. malloc'd; NULL only
 * when out of memory. */
char *ws_cuda_demangle(const char *mangled);

#endif
