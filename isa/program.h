/* program.h - an assembled program: kernels with params, shared symbols,
 * per-thread local memory size, labels and a flat instruction array.
 *
 * Design: the program owns all its memory in a few flat arrays so it can be
 * destroyed in one call and compared field by field (round-trip tests). Names
 * are fixed-size so a kernel needs no per-symbol allocations. */
#ifndef WS_PROGRAM_H
#define WS_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

#define WS_PARAM_MAX_BYTES 4096u
/* Per-thread local memory (.local) at most: CUDA's limit of 512 KiB per
 * thread (CUDA C++ Programming Guide, "Maximum amount of local memory per
 * thread", every compute capability since 2.0). */
#define WS_LOCAL_MAX_BYTES (512u * 1024u)

typedef enum ws_ptype { WS_PT_U32, WS_PT_S32, WS_PT_F32, WS_PT_U64, WS_PT_PTR, WS_PT_COUNT } ws_ptype;

typedef struct ws_param {
  char name[WS_NAME_MAX];
  uint8_t type;          /* ws_ptype */
  uint32_t offset_bytes; /* naturally aligned within the param buffer */
  uint32_t size_bytes;   /* 4 or 8 */
} ws_param;

typedef struct ws_shared_sym {
  char name[WS_NAME_MAX];
  uint32_t offset_bytes;
  uint32_t size_bytes;
  uint32_t align_bytes;
} ws_shared_sym;

typedef struct ws_label {
  char name[WS_NAME_MAX];
  uint32_t pc; /* instruction index the label names */
} ws_label;

typedef struct ws_kernel {
  char name[WS_NAME_MAX];
  ws_insn *insns;
  uint32_t *insn_lines; /* source line of each instruction, for messages */
  uint32_t ninsns;
  ws_param *params;
  uint32_t nparams;
  uint32_t param_size_bytes;
  ws_shared_sym *shared;
  uint32_t nshared;
  uint32_t shared_size_bytes; /* static shared memory per CTA */
  uint32_t local_bytes;       /* per-thread local memory (.local): a multiple of 4, <= WS_LOCAL_MAX_BYTES */
  ws_label *labels;
  uint32_t nlabels;
  uint32_t regs_per_thread; /* from ws_analysis_regs; >= 1 */
} ws_kernel;

typedef struct ws_program {
  ws_kernel *kernels;
  uint32_t nkernels;
} ws_program;

void ws_program_destroy(ws_program *prog);
/* NULL when no kernel has that name. */
const ws_kernel *ws_program_find_kernel(const ws_program *prog, const char *name);
/* Same kernels, params, shared symbols, labels and instructions (source
 * lines are not compared). */
bool ws_program_equal(const ws_program *a, const ws_program *b);
const char *ws_program_ptype_name(ws_ptype t);
/* Whether a local access of `width_bytes` at constant offset `offset_bytes`
 * lies inside `local_bytes` of .local and is aligned to its width. */
bool ws_program_local_fits(uint32_t local_bytes, int64_t offset_bytes,
                           uint32_t width_bytes); /* "u32", "s32", "f32", "u64", "ptr" */

#endif
