/* ptx.h - PTX into a warpscope program: the front end's public face.
 *
 * Design: every PTX entry becomes a kernel of warpscope assembly text (the
 * translation a user can read, with each PTX line and, where the PTX has
 * `.loc`, the CUDA line as comments), which the ISA's own assembler turns
 * into the program, so a translated kernel is checked, analysed
 * (reconvergence at immediate post-dominators) and run exactly as a
 * hand-written one. Each instruction of the program keeps the PTX line and
 * the CUDA file:line it came from; the program's own instruction lines,
 * which fault and check reports quote, are the user's file's: PTX lines,
 * or CUDA lines for a .cu file. */
#ifndef WS_PTX_H
#define WS_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "ptx/cuda.h"

typedef struct ws_ptx_opts {
  uint32_t max_regs; /* registers per thread the allocator may use, 1..255; 0: 255 */
  /* the CUDA source the PTX was compiled from (NULL: none): its kernels'
   * parameter lists name the params, else they are param_0, param_1 ... */
  const char *cuda_path, *cuda_text;
  size_t cuda_len;
} ws_ptx_opts;

typedef struct ws_ptx_kernel_info {
  char name[WS_NAME_MAX]; /* the program's kernel: the source name made an identifier */
  char *ptx_name;         /* the PTX entry (a C++ mangled name, for CUDA C) */
  char *source_name;      /* as written in the source: "saxpy", "block_sum<256>" */
  uint32_t regs_per_thread;
  uint32_t static_shared_bytes;
  uint32_t local_bytes; /* local memory per thread: .local variables, then spilled registers */
  uint32_t spill_bytes; /* of which spilled registers */
  bool dynamic_shared;  /* declares extern shared memory, sized at launch */
  uint32_t ninsns;
  uint32_t *ptx_line;  /* per instruction of the program's kernel */
  uint32_t *cuda_file; /* per instruction: index into files (0: none) */
  uint32_t *cuda_line;
} ws_ptx_kernel_info;

/* A __constant__ variable in the constant bank. */
typedef struct ws_ptx_const_sym {
  char name[WS_NAME_MAX]; /* as the source names it, made an identifier (ws_ptx_kernel_name) */
  uint32_t offset_bytes, size_bytes;
} ws_ptx_const_sym;

typedef struct ws_ptx_result {
  char *wsa; /* the translation, as .wsa text */
  ws_program *prog;
  ws_ptx_kernel_info *kernels; /* in the program's order */
  size_t nkernels;
  uint8_t *const_image;     /* the .const variables' initial bytes, at their offsets in the constant bank */
  uint32_t const_bytes;     /* (0: none); the caller writes them to the device before a launch */
  ws_ptx_const_sym *consts; /* the variables: what a host's cudaMemcpyToSymbol would name */
  size_t nconsts;
  char **files; /* the PTX's `.file` table (NULL where absent) */
  size_t nfiles;
} ws_ptx_result;

/* The program's name for a kernel whose source name is `source` (as the
 * demangler gives it): runs of characters other than letters, digits and
 * '_' become one '_' ("sgemm<128, 64>" is "sgemm_128_64"), at most
 * WS_NAME_MAX - 1 bytes. What `--kernel NAME` is matched against. */
void ws_ptx_kernel_name(const char *source, char *out, size_t n);

/* Translates `len` bytes of PTX (`filename` names it in messages; its
 * lines are what errors and the per-instruction lines refer to). An
 * unsupported construct is refused with FILE:LINE, the instruction and
 * what is supported. WS_ERR_INVALID, WS_ERR_LIMIT (registers), WS_ERR_NOMEM. */
ws_status ws_ptx_translate(ws_ctx *ctx, const char *text, size_t len, const char *filename,
                           const ws_ptx_opts *opts, ws_ptx_result *out);
/* Reads the PTX file at path (bounded as every text input) and translates
 * it; a path ending in .cu is CUDA C, compiled to PTX first (ptx/cuda.h,
 * with `cuda`'s definitions and instantiations; NULL for none). */
ws_status ws_ptx_load_file(ws_ctx *ctx, const char *path, const ws_cuda_opts *cuda, const ws_ptx_opts *opts,
                           ws_ptx_result *out);
/* Whether path names a file ws_ptx_load_file reads: .ptx or .cu. */
bool ws_ptx_is_source(const char *path);
/* The program, now the caller's; the rest stays with r. */
ws_program *ws_ptx_result_take_program(ws_ptx_result *r);
void ws_ptx_result_free(ws_ptx_result *r);

#endif
