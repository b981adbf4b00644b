/* kbuild.h - the kernel builder: every generated kernel is written through
 * it, on top of the growable text buffer (base/text.h).
 *
 * Design: a generator asks the builder for named registers instead of
 * numbering them by hand; the builder hands them out in order (pairs and
 * arrays aligned as asked), so its high-water mark is the kernel's register
 * count, and it can print the register map into the kernel's header. Labels
 * come from an allocator that makes every name unique, so an emitter that
 * runs twice cannot define a label twice. Instructions are written with a
 * small printf-like format whose %r takes a register handle, so no emitter
 * writes "R%u" itself. Like ws_text, running out of memory is sticky and
 * reported once, by ws_kbuild_take. */
#ifndef WS_KBUILD_H
#define WS_KBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "base/text.h"

/* A register (R<n>); an array of them is its first element. */
typedef struct ws_kreg {
  uint32_t n;
} ws_kreg;

/* A label; its text is unique within the builder that made it. */
typedef struct ws_klabel {
  uint32_t id;
} ws_klabel;

#define WS_KBUILD_NAME_BYTES 32

typedef struct ws_kbuild_name {
  uint32_t first, count; /* registers: the range; labels: unused */
  char text[WS_KBUILD_NAME_BYTES];
} ws_kbuild_name;

typedef struct ws_kbuild {
  ws_text text;
  uint32_t next_reg;    /* high-water mark: the registers per thread so far */
  ws_kbuild_name *regs; /* what each allocation is for, in order */
  uint32_t nregs, cap_regs;
  ws_kbuild_name *labels; /* the unique names, indexed by ws_klabel.id */
  uint32_t nlabels, cap_labels;
  bool failed;
} ws_kbuild;

/* ---- create / destroy ---- */
void ws_kbuild_init(ws_kbuild *b);
void ws_kbuild_free(ws_kbuild *b);
/* Hands the text to *out (caller frees) and resets b; WS_ERR_NOMEM when any
 * step ran out of memory. */
ws_status ws_kbuild_take(ws_ctx *ctx, ws_kbuild *b, char **out);

/* ---- registers ---- */
/* `count` consecutive registers starting at a multiple of `align`: 64-bit
 * values (pointers, IMAD.WIDE) are aligned pairs, LDG.128 targets quads. */
ws_kreg ws_kbuild_regs(ws_kbuild *b, const char *name, uint32_t count, uint32_t align);
ws_kreg ws_kbuild_reg(ws_kbuild *b, const char *name);   /* one 32-bit register */
ws_kreg ws_kbuild_reg64(ws_kbuild *b, const char *name); /* an aligned pair */
/* One entry of a register table: a ws_kreg field of some struct (its
 * offsetof), its name, and the ws_kbuild_regs count and alignment. */
typedef struct ws_kbuild_regspec {
  size_t offset;
  const char *name;
  uint32_t count, align;
} ws_kbuild_regspec;
/* Allocates specs[0..n) in order, each handle stored into `handles` at its
 * offset: a kernel's register layout as one table instead of a run of calls. */
void ws_kbuild_reg_table(ws_kbuild *b, void *handles, const ws_kbuild_regspec *specs, size_t n);
/* Register i of an array (or the high half of a pair, i = 1). */
static inline ws_kreg ws_kreg_at(ws_kreg r, uint32_t i) { return (ws_kreg){r.n + i}; }
/* Registers per thread the kernel needs: one past the highest handed out. */
uint32_t ws_kbuild_nregs(const ws_kbuild *b);

/* ---- labels ---- */
/* A new label named `name`, or name_2, name_3, ... when taken. */
ws_klabel ws_kbuild_label(ws_kbuild *b, const char *name);
const char *ws_kbuild_label_name(const ws_kbuild *b, ws_klabel l);
/* Defines the label here ("name:"). */
void ws_kbuild_place(ws_kbuild *b, ws_klabel l);

/* ---- text ---- */
/* One instruction. Conversions: %r a ws_kreg ("R12"), %l a ws_klabel, %u
 * unsigned, %d int, %s string, %g double (9 significant digits); %% and
 * any other "%c" print as written and take no argument. A
 * guarded instruction ("@P0 ...") starts in column 0, others are indented;
 * text after "//" is a comment, aligned in one column. */
void ws_kbuild_ins(ws_kbuild *b, const char *fmt, ...);
/* A raw line (directive, comment), printf-formatted; the newline is added. */
void ws_kbuild_line(ws_kbuild *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Comment lines naming every register allocated so far, headed by the count. */
void ws_kbuild_reg_map(ws_kbuild *b);

#endif
