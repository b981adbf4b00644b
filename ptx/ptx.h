/* ptx.h - PTX into a warpscope program: the front end's public face.
 *
 * Design: every PTX entry becomes a kernel of warpscope assembly text (the
 * translation a user can read, with each PTX line and, where the PTX has
 * `.loc`, the CUDA line as comments), which the ISA's own assembler turns
 * into the program, so a translated kernel is checked, analysed
 * (reconvergence at immediate post-dominators) and run exactly as a
 * hand-written one. Each instruction of the program keeps the PTX line and
 * the CUDA file:line it came from. */
#ifndef WS_PTX_H
#define WS_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"

typedef struct ws_ptx_opts {
  uint32_t max_regs; /* registers per thread the allocator may use, 1..255; 0: 255 */
} ws_ptx_opts;

typedef struct ws_ptx_kernel_info {
  char name[WS_NAME_MAX]; /* the program's kernel */
  char *ptx_name;         /* the PTX entry (a C++ mangled name, for CUDA C) */
  uint32_t regs_per_thread;
  uint32_t static_shared_bytes;
  bool dynamic_shared; /* declares extern shared memory, sized at launch */
  uint32_t ninsns;
  uint32_t *ptx_line;  /* per instruction of the program's kernel */
  uint32_t *cuda_file; /* per instruction: index into files (0: none) */
  uint32_t *cuda_line;
} ws_ptx_kernel_info;

typedef struct ws_ptx_result {
  char *wsa; /* the translation, as .wsa text */
  ws_program *prog;
  ws_ptx_kernel_info *kernels; /* in the program's order */
  size_t nkernels;
  char **files; /* the PTX's `.file` table (NULL where absent) */
  size_t nfiles;
} ws_ptx_result;

/* Translates `len` bytes of PTX (`filename` names it in messages; its
 * lines are what errors and the per-instruction lines refer to). An
 * unsupported construct is refused with FILE:LINE, the instruction and
 * what is supported. WS_ERR_INVALID, WS_ERR_LIMIT (registers), WS_ERR_NOMEM. */
ws_status ws_ptx_translate(ws_ctx *ctx, const char *text, size_t len, const char *filename,
                           const ws_ptx_opts *opts, ws_ptx_result *out);
/* Reads the PTX file at path (bounded as every text input) and translates it. */
ws_status ws_ptx_load_file(ws_ctx *ctx, const char *path, const ws_ptx_opts *opts, ws_ptx_result *out);
/* The program, now the caller's; the rest stays with r. */
ws_program *ws_ptx_result_take_program(ws_ptx_result *r);
void ws_ptx_result_free(ws_ptx_result *r);

#endif
