/* ptxparse.h - PTX text (ISA 6.x-8.x as clang and nvcc emit it) read into
 * entries of located statements.
 *
 * Design: the reader keeps PTX's own vocabulary (an opcode with its dot
 * suffixes, typed operands, %-registers) and checks only the grammar; what
 * an instruction means is the translator's business, so every refusal of an
 * unsupported instruction is made in one place (translate.c) and names the
 * PTX line. Debug sections (`.section .debug_*`) are skipped whole; `.file`
 * and `.loc` give each instruction its CUDA file:line. */
#ifndef WS_PTXPARSE_H
#define WS_PTXPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

#define WS_PTX_NAME_MAX 256 /* identifiers: C++ mangled names can be long */
#define WS_PTX_MAX_OPERANDS 8
#define WS_PTX_MAX_VECTOR 4

typedef enum ws_ptx_opnd_kind {
  WS_PTX_OPND_REG,    /* %r12, %rd3, %f1, %p2, or a named register */
  WS_PTX_OPND_SREG,   /* %tid.x, %laneid, %clock ... */
  WS_PTX_OPND_INT,    /* 42, -1, 0xff */
  WS_PTX_OPND_FLOAT,  /* 0f3F800000 (bits), 0d... (a double's bits), 1.5 */
  WS_PTX_OPND_SYMBOL, /* a param, a shared or global variable, a label */
  WS_PTX_OPND_ADDR,   /* [base+offset]: base a register or a symbol */
  WS_PTX_OPND_VECTOR, /* {a, b, c, d} */
  WS_PTX_OPND_SINK    /* _ */
} ws_ptx_opnd_kind;

typedef struct ws_ptx_opnd {
  uint8_t kind;                                       /* ws_ptx_opnd_kind */
  uint8_t neg;                                        /* !%p as a predicate source */
  uint8_t base_is_reg;                                /* ADDR: base names a register (else a symbol) */
  uint8_t nelems;                                     /* VECTOR: elements in elems */
  char name[WS_PTX_NAME_MAX];                         /* REG, SREG, SYMBOL, ADDR's base */
  char elems[WS_PTX_MAX_VECTOR][WS_PTX_NAME_MAX / 4]; /* VECTOR: register names ("_" for a sink) */
  int64_t ival;                                       /* INT; ADDR's offset */
  uint64_t fbits;                                     /* FLOAT: the value's bits */
  uint8_t fdouble;                                    /* FLOAT: fbits is a binary64 */
} ws_ptx_opnd;

typedef enum ws_ptx_stmt_kind {
  WS_PTX_INSN,
  WS_PTX_LABEL,
  WS_PTX_REG_DECL, /* .reg .TYPE name or name<N> */
  WS_PTX_VAR_DECL, /* .shared / .local / .const / .global variable inside an entry */
  WS_PTX_OPEN,     /* { : a nested scope */
  WS_PTX_CLOSE     /* } */
} ws_ptx_stmt_kind;

typedef struct ws_ptx_stmt {
  uint8_t kind;
  uint8_t guard_neg;
  uint8_t has_guard;
  uint8_t nopnds;
  uint8_t inlined;            /* copied from a device function's body into a kernel (inliner.h) */
  char guard[32];             /* predicate register name */
  char op[64];                /* opcode with its suffixes: "ld.global.nc.v4.f32" */
  char name[WS_PTX_NAME_MAX]; /* LABEL, REG_DECL (prefix), VAR_DECL names */
  char type[16];              /* REG_DECL, VAR_DECL: ".b32", ".pred", ".f32" ... */
  char space[16];             /* VAR_DECL: ".shared", ".local" ... */
  uint32_t count;             /* REG_DECL: N of name<N> (0: one register) */
  uint64_t size_bytes;        /* VAR_DECL */
  uint32_t align_bytes;       /* VAR_DECL */
  uint8_t is_extern;          /* VAR_DECL: extern .shared, sized at launch */
  uint8_t *init;              /* VAR_DECL: the initializer's bytes (size_bytes of them), or NULL */
  /* `call (ret), target, (args...)`: opnds[0] is the target (a function's
   * symbol, or a register for an indirect call), name the return param
   * ("" for none), call_args the params passed, in order */
  char (*call_args)[WS_PTX_NAME_MAX];
  uint32_t ncall_args;
  ws_ptx_opnd opnds[WS_PTX_MAX_OPERANDS];
  uint32_t line;                 /* PTX line */
  uint32_t cuda_file, cuda_line; /* from the last .loc; 0: none */
} ws_ptx_stmt;

typedef struct ws_ptx_param {
  char name[WS_PTX_NAME_MAX];
  char type[16];       /* ".u32", ".u64", ".f32", ".b8" (an aggregate) ... */
  uint32_t size_bytes; /* whole param, arrays and aggregates included */
  uint32_t align_bytes;
  uint8_t is_ptr; /* .ptr attribute, or a .u64 that a cvta later shows to be a pointer */
} ws_ptx_param;

typedef struct ws_ptx_entry {
  char name[WS_PTX_NAME_MAX];
  uint8_t is_func; /* .func rather than .entry */
  uint8_t has_ret; /* a .func returning a value: ret is its return param */
  ws_ptx_param ret;
  ws_ptx_param *params;
  size_t nparams;
  ws_ptx_stmt *stmts;
  size_t nstmts;
  uint32_t line; /* of the .entry */
  uint32_t maxntid[3], reqntid[3];
  uint32_t maxnreg;
} ws_ptx_entry;

typedef struct ws_ptx_module {
  char version[16], target[32];
  uint32_t address_size;
  ws_ptx_entry *entries;
  size_t nentries;
  ws_ptx_stmt *globals; /* module-scope .shared/.global/.const variables (VAR_DECL) */
  size_t nglobals;
  char **files; /* .file N "path": files[N] (NULL where not declared) */
  size_t nfiles;
} ws_ptx_module;

/* Frees what a statement owns (a variable's initializer, a call's params). */
void ws_ptx_stmt_fini(ws_ptx_stmt *st);

/* Reads `len` bytes of PTX (need not be NUL-terminated). Messages are
 * "FILE:LINE:COL: error: expected X, found Y". WS_ERR_INVALID, or
 * WS_ERR_LIMIT for a file beyond the reader's bounds. */
ws_status ws_ptx_parse(ws_ctx *ctx, const char *text, size_t len, const char *filename, ws_ptx_module *out);
void ws_ptx_module_free(ws_ptx_module *m);

#endif
