/* program.h - an assembled program: kernels with params, shared symbols,
 * labels and a flat instruction array.
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
const char *ws_program_ptype_name(ws_ptype t); /* "u32", "s32", "f32", "u64", "ptr" */

#endif
