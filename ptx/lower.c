/* lower.c - PTX instructions into warpscope instructions over virtual
 * registers (lower.h). One handler per PTX opcode family; each reads the
 * statement's suffixes, checks what it can run, and emits. */
#include "ptx/lower.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "isa/program.h"

#define MAX_PARTS 10
#define MAX_DECLARED_REGS 4000000u

typedef struct slot {
  uint32_t v;
  uint8_t word;
} slot;

typedef struct decl {
  char prefix[WS_PTX_NAME_MAX];
  uint32_t count; /* registers prefix0..prefix<count-1>; 0: the one register `prefix` */
  uint8_t words;
  uint8_t is_pred;
  int depth;
  slot *slots;    /* max(count, 1) */
  uint16_t *defs; /* definitions seen by the pre-pass, saturating */
} decl;

typedef enum space { SP_UNKNOWN, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST } space;

/* A .local variable (clang's __local_depot of a kernel's arrays): its
 * offset in the thread's local window, below the spill slots. */
typedef struct local_var {
  char name[WS_PTX_NAME_MAX];
  uint32_t offset_bytes;
} local_var;

struct ws_ptx_lower {
  ws_ctx *ctx;
  const char *file;
  const ws_ptx_module *m;
  const ws_ptx_entry *e;
  const ws_srcparam *param_names;
  ws_vcode *vc;
  decl *decls;
  size_t ndecls, decls_cap, declared;
  int depth;
  ws_ptx_shared *shared;
  size_t nshared, shared_cap;
  ws_ptx_pinfo *params; /* the ISA params (kparams.h) */
  size_t nparams;
  ws_kparams_addrs addrs; /* registers holding a param's address: left out, read through */
  local_var *locals;
  size_t nlocals, locals_cap;
  uint32_t local_bytes; /* the .local variables' window, per thread */
  uint8_t *space;       /* per virtual register */
  uint32_t *param_of;   /* per virtual register: the param it was loaded from + 1 */
  size_t info_cap;
  const ws_ptx_stmt *st;
  uint32_t si;
  char parts[MAX_PARTS][24];
  int nparts;
};

typedef ws_ptx_lower lower;

/* ---- messages ------------------------------------------------------------------ */

static void stmt_text(const ws_ptx_stmt *st, char *buf, size_t n) {
  size_t at = (size_t)snprintf(buf, n, "%s%s%s%s", st->has_guard ? "@" : "", st->guard_neg ? "!" : "",
                               st->has_guard ? st->guard : "", st->has_guard ? " " : "");
  if (at < n) at += (size_t)snprintf(buf + at, n - at, "%s", st->op);
  for (unsigned i = 0; i < st->nopnds && at < n; i++) {
    const ws_ptx_opnd *o = &st->opnds[i];
    const char *sep = i ? ", " : " ";
    switch (o->kind) {
    case WS_PTX_OPND_INT: at += (size_t)snprintf(buf + at, n - at, "%s%" PRId64, sep, o->ival); break;
    case WS_PTX_OPND_FLOAT:
      at += (size_t)snprintf(buf + at, n - at, "%s0%c%0*" PRIX64, sep, o->fdouble ? 'd' : 'f',
                             o->fdouble ? 16 : 8, o->fbits);
      break;
    case WS_PTX_OPND_ADDR:
      at += (size_t)snprintf(buf + at, n - at, "%s[%s%+" PRId64 "]", sep, o->name, o->ival);
      break;
    case WS_PTX_OPND_VECTOR: at += (size_t)snprintf(buf + at, n - at, "%s{...}", sep); break;
    default: at += (size_t)snprintf(buf + at, n - at, "%s%s%s", sep, o->neg ? "!" : "", o->name); break;
    }
  }
}

static ws_status refuse(lower *lw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ws_status refuse(lower *lw, const char *fmt, ...) {
  char what[300], text[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  stmt_text(lw->st, text, sizeof text);
  return ws_ctx_fail(lw->ctx, WS_ERR_INVALID, "%s:%u: error: '%s': %s", lw->file, lw->st->line, text, what);
}

static ws_status oom(lower *lw) {
  return ws_ctx_fail(lw->ctx, WS_ERR_NOMEM, "%s: out of memory translating '%s'", lw->file, lw->e->name);
}

/* ---- the opcode's suffixes --------------------------------------------------------- */

static void split_op(lower *lw) {
  const char *s = lw->st->op;
  lw->nparts = 0;
  while (*s && lw->nparts < MAX_PARTS) {
    size_t n = strcspn(s, ".");
    if (n >= sizeof lw->parts[0]) n = sizeof lw->parts[0] - 1;
    memcpy(lw->parts[lw->nparts], s, n);
    lw->parts[lw->nparts++][n] = '\0';
    s += strcspn(s, ".");
    if (*s == '.') s++;
  }
}

static bool has(const lower *lw, const char *part) {
  for (int i = 1; i < lw->nparts; i++)
    if (strcmp(lw->parts[i], part) == 0) return true;
  return false;
}

typedef struct ptype {
  char kind; /* 's', 'u', 'b', 'f', 'p' (pred), 0: none */
  uint8_t bits;
} ptype;

static ptype parse_type(const char *p) {
  ptype t = {0, 0};
  if (strcmp(p, "pred") == 0) return (ptype){'p', 1};
  if (strcmp(p, "f16x2") == 0 || strcmp(p, "bf16") == 0 || strcmp(p, "bf16x2") == 0) return (ptype){'h', 32};
  if ((p[0] == 's' || p[0] == 'u' || p[0] == 'b' || p[0] == 'f') && p[1] >= '0' && p[1] <= '9') {
    char *end = NULL;
    long bits = strtol(p + 1, &end, 10);
    if (*end == '\0' && (bits == 8 || bits == 16 || bits == 32 || bits == 64))
      t = (ptype){p[0], (uint8_t)bits};
  }
  return t;
}

/* The k-th type suffix from the end (0: the last). */
static ptype type_at(const lower *lw, int k) {
  for (int i = lw->nparts - 1; i > 0; i--) {
    ptype t = parse_type(lw->parts[i]);
    if (t.kind && k-- == 0) return t;
  }
  return (ptype){0, 0};
}

/* ---- registers ------------------------------------------------------------------------ */

/* Keeps the per-register side tables as long as the register list. */
static bool track(lower *lw) {
  if (lw->vc->nregs <= lw->info_cap) return true;
  size_t cap = lw->vc->nregs * 2;
  uint8_t *sp = realloc(lw->space, cap);
  if (sp) lw->space = sp;
  uint32_t *po = realloc(lw->param_of, cap * sizeof *po);
  if (po) lw->param_of = po;
  if (!sp || !po) return false;
  memset(lw->space + lw->info_cap, 0, cap - lw->info_cap);
  memset(lw->param_of + lw->info_cap, 0, (cap - lw->info_cap) * sizeof *po);
  lw->info_cap = cap;
  return true;
}

static uint32_t new_reg(lower *lw, uint8_t words, bool pred) {
  uint32_t v = ws_vcode_new_reg(lw->vc, words, pred);
  if (!track(lw)) lw->vc->oom = true;
  return v;
}

static ws_status declare(lower *lw, const ws_ptx_stmt *st) {
  ptype t = parse_type(st->type + (st->type[0] == '.'));
  if (!t.kind) return refuse(lw, "a register type expected, '%s' found", st->type);
  size_t n = st->count ? st->count : 1;
  if (lw->declared + n > MAX_DECLARED_REGS)
    return refuse(lw, "more than %u registers declared", MAX_DECLARED_REGS);
  if (!ws_grow((void **)&lw->decls, &lw->decls_cap, lw->ndecls, sizeof *lw->decls, 32)) return oom(lw);
  decl *d = &lw->decls[lw->ndecls];
  memset(d, 0, sizeof *d);
  snprintf(d->prefix, sizeof d->prefix, "%s", st->name);
  d->count = st->count;
  d->words = t.bits == 64 ? 2 : 1;
  d->is_pred = t.kind == 'p';
  d->depth = lw->depth;
  d->slots = malloc(n * sizeof *d->slots);
  d->defs = calloc(n, sizeof *d->defs);
  if (!d->slots || !d->defs) {
    free(d->slots), free(d->defs);
    return oom(lw);
  }
  for (size_t i = 0; i < n; i++) d->slots[i] = (slot){WS_VC_NONE, 0};
  lw->ndecls++;
  lw->declared += n;
  return WS_OK;
}

/* The declaration and index of register `name`, innermost scope first. */
static decl *find_decl(lower *lw, const char *name, uint32_t *index) {
  for (size_t i = lw->ndecls; i-- > 0;) {
    decl *d = &lw->decls[i];
    size_t pl = strlen(d->prefix);
    if (strncmp(name, d->prefix, pl) != 0) continue;
    const char *rest = name + pl;
    if (d->count == 0) {
      if (*rest == '\0') return *index = 0, d;
      continue;
    }
    if (*rest == '\0' || strspn(rest, "0123456789") != strlen(rest) || strlen(rest) > 9) continue;
    unsigned long k = strtoul(rest, NULL, 10);
    if (k < d->count) return *index = (uint32_t)k, d;
  }
  return NULL;
}

static ws_status reg_slot(lower *lw, const char *name, slot *out, decl **dout) {
  uint32_t k = 0;
  decl *d = find_decl(lw, name, &k);
  if (!d) return refuse(lw, "register '%s' is not declared", name);
  slot *s = &d->slots[k];
  if (s->v == WS_VC_NONE) s->v = new_reg(lw, d->words, d->is_pred), s->word = 0;
  if (lw->vc->oom) return oom(lw);
  *out = *s;
  if (dout) *dout = d;
  return WS_OK;
}

/* ---- operands -------------------------------------------------------------------------- */

static ws_vc_op op_reg(uint32_t v, uint8_t word, uint8_t words, bool def) {
  return (ws_vc_op){.kind = WS_VC_REG, .def = def, .v = v, .word = word, .words = words};
}
static ws_vc_op op_pred(uint32_t p, bool neg, bool def) {
  return (ws_vc_op){.kind = WS_VC_PRED, .def = def, .neg = neg, .v = p, .words = 1};
}
static ws_vc_op op_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static ws_vc_op op_text(const char *fmt, ...) {
  ws_vc_op o = {.kind = WS_VC_TEXT};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o.text, sizeof o.text, fmt, ap);
  va_end(ap);
  return o;
}

static ws_vc_insn *emit(lower *lw, const char *mnem, int nops, ...) {
  ws_vc_insn *in = ws_vcode_add(lw->vc, mnem, lw->si);
  if (!in) return NULL;
  va_list ap;
  va_start(ap, nops);
  for (int i = 0; i < nops; i++) in->ops[i] = va_arg(ap, ws_vc_op);
  va_end(ap);
  in->nops = (uint8_t)nops;
  return in;
}

/* The guard of the statement on every instruction emitted since `from`. */
static ws_status guard_from(lower *lw, size_t from) {
  if (lw->vc->oom) return oom(lw);
  if (!lw->st->has_guard) return WS_OK;
  slot p;
  decl *d = NULL;
  ws_status r = reg_slot(lw, lw->st->guard, &p, &d);
  if (r != WS_OK) return r;
  if (!d->is_pred) return refuse(lw, "the guard '%s' is not a predicate", lw->st->guard);
  for (size_t i = from; i < lw->vc->ninsns; i++) {
    ws_vc_insn *in = &lw->vc->insns[i];
    if (in->guard != WS_VC_NONE) return refuse(lw, "a guarded instruction that needs its own predicates");
    in->guard = p.v;
    in->guard_neg = lw->st->guard_neg;
  }
  return WS_OK;
}

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= (int64_t)UINT32_MAX; }

static uint32_t f32_bits(const ws_ptx_opnd *o) {
  if (!o->fdouble) return (uint32_t)o->fbits;
  double d;
  memcpy(&d, &o->fbits, sizeof d);
  float f = (float)d;
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static ws_status sreg_op(lower *lw, const char *name, ws_vc_op *out) {
  static const struct {
    const char *ptx, *ws;
  } map[] = {{"%tid.x", "SR_TID.X"},       {"%tid.y", "SR_TID.Y"},       {"%tid.z", "SR_TID.Z"},
             {"%ntid.x", "SR_NTID.X"},     {"%ntid.y", "SR_NTID.Y"},     {"%ntid.z", "SR_NTID.Z"},
             {"%ctaid.x", "SR_CTAID.X"},   {"%ctaid.y", "SR_CTAID.Y"},   {"%ctaid.z", "SR_CTAID.Z"},
             {"%nctaid.x", "SR_NCTAID.X"}, {"%nctaid.y", "SR_NCTAID.Y"}, {"%nctaid.z", "SR_NCTAID.Z"},
             {"%laneid", "SR_LANEID"},     {"%warpid", "SR_WARPID"},     {"%smid", "SR_SMID"},
             {"%clock", "SR_CLOCK"}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(map[i].ptx, name) == 0) {
      *out = op_text("%s", map[i].ws);
      return WS_OK;
    }
  return refuse(lw,
                "special register '%s' is not supported; supported: %%tid, %%ntid, %%ctaid, %%nctaid (.x .y "
                ".z), %%laneid, %%warpid, %%smid, %%clock, %%clock64",
                name);
}

/* A source that must be a register of `words` words: immediates and
 * special registers go through a fresh register. */
static ws_status use_r(lower *lw, const ws_ptx_opnd *o, uint8_t words, ws_vc_op *out) {
  if (o->kind == WS_PTX_OPND_REG && ws_kparams_lookup(&lw->addrs, o->name))
    return refuse(lw,
                  "'%s' holds the address of a param, which is only read by ld.param (a struct's address "
                  "passed on, or made generic, is not supported)",
                  o->name);
  if (o->kind == WS_PTX_OPND_REG) {
    slot s = {0, 0};
    decl *d = NULL;
    ws_status r = reg_slot(lw, o->name, &s, &d);
    if (r != WS_OK) return r;
    if (d->is_pred) return refuse(lw, "'%s' is a predicate; a register expected", o->name);
    if (d->words < words) return refuse(lw, "'%s' holds 32 bits; a 64-bit register expected", o->name);
    *out = op_reg(s.v, s.word, words, false);
    return WS_OK;
  }
  if (o->kind == WS_PTX_OPND_SREG) {
    ws_vc_op sr;
    ws_status r = sreg_op(lw, o->name, &sr);
    if (r != WS_OK) return r;
    uint32_t t = new_reg(lw, words, false);
    emit(lw, "S2R", 2, op_reg(t, 0, 1, true), sr);
    if (words == 2) emit(lw, "MOV", 2, op_reg(t, 1, 1, true), op_text("0"));
    *out = op_reg(t, 0, words, false);
    return lw->vc->oom ? oom(lw) : WS_OK;
  }
  if (o->kind == WS_PTX_OPND_INT || o->kind == WS_PTX_OPND_FLOAT) {
    uint64_t v = o->kind == WS_PTX_OPND_INT ? (uint64_t)o->ival : (words == 2 ? o->fbits : f32_bits(o));
    if (o->kind == WS_PTX_OPND_FLOAT && o->fdouble && words == 2)
      return refuse(lw, "64-bit floats are not supported");
    uint32_t t = new_reg(lw, words, false);
    emit(lw, "MOV", 2, op_reg(t, 0, 1, true), op_text("0x%" PRIX32, (uint32_t)v));
    if (words == 2) emit(lw, "MOV", 2, op_reg(t, 1, 1, true), op_text("0x%" PRIX32, (uint32_t)(v >> 32)));
    *out = op_reg(t, 0, words, false);
    return lw->vc->oom ? oom(lw) : WS_OK;
  }
  return refuse(lw, "a register or a constant expected as a source");
}

/* A 32-bit source that may stay an immediate. */
static ws_status use_i(lower *lw, const ws_ptx_opnd *o, ws_vc_op *out) {
  if (o->kind == WS_PTX_OPND_INT) {
    if (!fits32(o->ival)) return refuse(lw, "the constant %" PRId64 " does not fit in 32 bits", o->ival);
    *out = op_text("0x%" PRIX32, (uint32_t)o->ival);
    return WS_OK;
  }
  if (o->kind == WS_PTX_OPND_FLOAT) {
    *out = op_text("0x%" PRIX32, f32_bits(o));
    return WS_OK;
  }
  return use_r(lw, o, 1, out);
}

/* A float source: a register or a float literal. */
static ws_status use_f(lower *lw, const ws_ptx_opnd *o, ws_vc_op *out) {
  if (o->kind == WS_PTX_OPND_FLOAT) {
    *out = op_text("0f%08" PRIX32, f32_bits(o));
    return WS_OK;
  }
  if (o->kind == WS_PTX_OPND_INT) return refuse(lw, "an integer where a float is expected");
  return use_r(lw, o, 1, out);
}

static ws_status def_r(lower *lw, const ws_ptx_opnd *o, uint8_t words, ws_vc_op *out) {
  if (o->kind != WS_PTX_OPND_REG) return refuse(lw, "a register expected as the destination");
  slot s = {0, 0};
  decl *d = NULL;
  ws_status r = reg_slot(lw, o->name, &s, &d);
  if (r != WS_OK) return r;
  if (d->is_pred) return refuse(lw, "'%s' is a predicate; a register expected", o->name);
  if (d->words < words) return refuse(lw, "'%s' holds 32 bits; a 64-bit register expected", o->name);
  *out = op_reg(s.v, s.word, words, true);
  return WS_OK;
}

static ws_status use_p(lower *lw, const ws_ptx_opnd *o, ws_vc_op *out) {
  if (o->kind == WS_PTX_OPND_INT) {
    *out = op_text("%sPT", o->ival ? "" : "!");
    return WS_OK;
  }
  if (o->kind != WS_PTX_OPND_REG) return refuse(lw, "a predicate expected");
  slot s = {0, 0};
  decl *d = NULL;
  ws_status r = reg_slot(lw, o->name, &s, &d);
  if (r != WS_OK) return r;
  if (!d->is_pred) return refuse(lw, "'%s' is not a predicate", o->name);
  *out = op_pred(s.v, o->neg, false);
  return WS_OK;
}

static ws_status def_p(lower *lw, const ws_ptx_opnd *o, ws_vc_op *out) {
  if (o->kind == WS_PTX_OPND_SINK) {
    *out = op_text("PT");
    return WS_OK;
  }
  ws_status r = use_p(lw, o, out);
  out->def = 1;
  return r;
}

static ws_status need(lower *lw, unsigned n) {
  if (lw->st->nopnds == n) return WS_OK;
  return refuse(lw, "%u operands expected, %u found", n, (unsigned)lw->st->nopnds);
}

static ws_vc_op word_of(ws_vc_op o, uint8_t w) {
  o.word = (uint8_t)(o.word + w);
  o.words = 1;
  return o;
}

static ws_status type_check(lower *lw, ptype t, const char *kinds, uint8_t bits_mask) {
  if (t.kind && strchr(kinds, t.kind) && (bits_mask & (t.bits / 8))) return WS_OK;
  return refuse(lw, "this type is not supported here");
}

/* ---- integer arithmetic ---------------------------------------------------------------- */

/* d = a OP b for 32-bit `mnem` (IADD, IMUL ...); commutative ops put an
 * immediate second, as the ISA's "d,r,i" signature needs. */
static ws_status binary32(lower *lw, const char *mnem, bool commutes) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b;
  const ws_ptx_opnd *x = &o[1], *y = &o[2];
  if (commutes && x->kind != WS_PTX_OPND_REG && y->kind == WS_PTX_OPND_REG) x = &o[2], y = &o[1];
  ws_status r = need(lw, 3);
  if (r == WS_OK) r = use_r(lw, x, 1, &a);
  if (r == WS_OK) r = use_i(lw, y, &b);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, mnem, 3, d, a, b);
  return r;
}

/* A 64-bit value's words as registers (immediates materialized). */
static ws_status use64(lower *lw, const ws_ptx_opnd *o, ws_vc_op *out) { return use_r(lw, o, 2, out); }

static void copy_space(lower *lw, const ws_vc_op *d, const ws_vc_op *a) {
  if (!track(lw)) return;
  if (lw->space[a->v] != SP_UNKNOWN) lw->space[d->v] = lw->space[a->v];
  if (lw->param_of[a->v]) lw->param_of[d->v] = lw->param_of[a->v];
}

static ws_status add64(lower *lw, bool sub) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b;
  ws_status r = need(lw, 3);
  if (r == WS_OK && sub && o[2].kind == WS_PTX_OPND_INT) {
    ws_ptx_opnd neg = o[2];
    neg.ival = -neg.ival;
    r = use64(lw, &neg, &b);
  } else if (r == WS_OK && sub) {
    ws_vc_op y;
    r = use64(lw, &o[2], &y);
    uint32_t t = new_reg(lw, 2, false);
    ws_vc_op one;
    if (r == WS_OK) {
      emit(lw, "NOT", 2, op_reg(t, 0, 1, true), word_of(y, 0));
      emit(lw, "NOT", 2, op_reg(t, 1, 1, true), word_of(y, 1));
      ws_ptx_opnd c1 = {.kind = WS_PTX_OPND_INT, .ival = 1};
      r = use64(lw, &c1, &one);
    }
    if (r == WS_OK) emit(lw, "IADD.64", 3, op_reg(t, 0, 2, true), op_reg(t, 0, 2, false), one);
    b = op_reg(t, 0, 2, false);
  } else if (r == WS_OK) {
    r = use64(lw, &o[2], &b);
  }
  if (r == WS_OK) r = use64(lw, &o[1], &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
  if (r == WS_OK) {
    emit(lw, "IADD.64", 3, d, a, b);
    copy_space(lw, &d, &a);
    if (o[2].kind == WS_PTX_OPND_REG) copy_space(lw, &d, &b);
  }
  return r;
}

static ws_status lower_add(lower *lw, bool sub) {
  ptype t = type_at(lw, 0);
  if (t.kind == 'f') {
    ws_vc_op d, a, b;
    ws_status r = need(lw, 3);
    if (r == WS_OK) r = type_check(lw, t, "f", 4);
    if (r == WS_OK && (has(lw, "sat") || has(lw, "rz") || has(lw, "rm") || has(lw, "rp")))
      r = refuse(lw, "only round-to-nearest fp32 arithmetic without .sat is supported");
    if (r == WS_OK) r = use_f(lw, &lw->st->opnds[1], &a);
    if (r == WS_OK) r = use_f(lw, &lw->st->opnds[2], &b);
    if (r == WS_OK) r = def_r(lw, &lw->st->opnds[0], 1, &d);
    if (r == WS_OK && a.kind == WS_VC_TEXT) {
      ws_vc_op tmp = a; /* FADD's first source may be a literal too, but keep registers first */
      a = b, b = tmp;
      if (sub) return refuse(lw, "a constant minus a register: write it as an add of the negation");
    }
    if (r == WS_OK && sub) {
      if (b.kind == WS_VC_TEXT) {
        uint32_t bits = (uint32_t)strtoul(b.text + 2, NULL, 16) ^ 0x80000000u;
        b = op_text("0f%08" PRIX32, bits);
      } else {
        b.neg = 1;
      }
    }
    if (r == WS_OK) emit(lw, "FADD", 3, d, a, b);
    return r;
  }
  if (t.bits == 64) return add64(lw, sub);
  ws_status r = type_check(lw, t, "sub", 4);
  if (r == WS_OK && has(lw, "sat")) r = refuse(lw, "saturating integer arithmetic is not supported");
  if (r != WS_OK) return r;
  return sub ? binary32(lw, "ISUB", false) : binary32(lw, "IADD", true);
}

static ws_status lower_mul(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 3);
  if (r != WS_OK) return r;
  if (t.kind == 'f') {
    ws_vc_op d, a, b;
    r = type_check(lw, t, "f", 4);
    if (r == WS_OK && (has(lw, "sat") || has(lw, "rz") || has(lw, "rm") || has(lw, "rp")))
      r = refuse(lw, "only round-to-nearest fp32 arithmetic without .sat is supported");
    if (r == WS_OK) r = use_f(lw, &o[1], &a);
    if (r == WS_OK) r = use_f(lw, &o[2], &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
    if (r == WS_OK) emit(lw, "FMUL", 3, d, a.kind == WS_VC_TEXT ? b : a, a.kind == WS_VC_TEXT ? a : b);
    return r;
  }
  const char *dt = t.kind == 's' ? "S32" : "U32";
  if (has(lw, "wide")) {
    ws_vc_op d, a, b;
    if (t.bits != 32) return refuse(lw, "mul.wide is supported for 32-bit sources");
    const ws_ptx_opnd *x = &o[1], *y = &o[2];
    if (x->kind != WS_PTX_OPND_REG && y->kind == WS_PTX_OPND_REG) x = &o[2], y = &o[1];
    r = use_r(lw, x, 1, &a);
    if (r == WS_OK) r = use_i(lw, y, &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
    char m[32];
    snprintf(m, sizeof m, "IMAD.WIDE.%s", dt);
    if (r == WS_OK) emit(lw, m, 4, d, a, b, op_text("RZ"));
    return r;
  }
  if (t.bits == 64) {
    ws_vc_op d, a, b;
    if (!has(lw, "lo")) return refuse(lw, "64-bit multiplication is supported as mul.lo");
    r = use64(lw, &o[1], &a);
    if (r == WS_OK) r = use64(lw, &o[2], &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
    if (r != WS_OK) return r;
    uint32_t t2 = new_reg(lw, 2, false);
    emit(lw, "IMAD.WIDE.U32", 4, op_reg(t2, 0, 2, true), word_of(a, 0), word_of(b, 0), op_text("RZ"));
    emit(lw, "IMAD", 4, op_reg(t2, 1, 1, true), word_of(a, 0), word_of(b, 1), op_reg(t2, 1, 1, false));
    emit(lw, "IMAD", 4, op_reg(t2, 1, 1, true), word_of(a, 1), word_of(b, 0), op_reg(t2, 1, 1, false));
    emit(lw, "MOV", 2, word_of(d, 0), op_reg(t2, 0, 1, false));
    emit(lw, "MOV", 2, word_of(d, 1), op_reg(t2, 1, 1, false));
    return WS_OK;
  }
  r = type_check(lw, t, "sub", 4);
  if (r != WS_OK) return r;
  if (has(lw, "hi")) {
    char m[32];
    snprintf(m, sizeof m, "IMUL.HI.%s", dt);
    return binary32(lw, m, true);
  }
  return binary32(lw, "IMUL", true);
}

static ws_status lower_mad(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b, c;
  ws_status r = need(lw, 4);
  if (r != WS_OK) return r;
  if (t.kind == 'f') { /* mad.rn.f32 is fma.rn.f32 */
    r = type_check(lw, t, "f", 4);
    if (r == WS_OK && (has(lw, "sat") || has(lw, "rz") || has(lw, "rm") || has(lw, "rp")))
      r = refuse(lw, "only round-to-nearest fp32 arithmetic without .sat is supported");
    if (r == WS_OK) r = use_f(lw, &o[1], &a);
    if (r == WS_OK) r = use_f(lw, &o[2], &b);
    if (r == WS_OK) r = use_f(lw, &o[3], &c);
    if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
    if (r == WS_OK) emit(lw, "FFMA", 4, d, a, b, c);
    return r;
  }
  const char *dt = t.kind == 's' ? "S32" : "U32";
  const ws_ptx_opnd *x = &o[1], *y = &o[2];
  if (x->kind != WS_PTX_OPND_REG && y->kind == WS_PTX_OPND_REG) x = &o[2], y = &o[1];
  if (has(lw, "wide")) {
    r = use_r(lw, x, 1, &a);
    if (r == WS_OK) r = use_i(lw, y, &b);
    if (r == WS_OK) r = use64(lw, &o[3], &c);
    if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
    char m[32];
    snprintf(m, sizeof m, "IMAD.WIDE.%s", dt);
    if (r == WS_OK) {
      emit(lw, m, 4, d, a, b, c);
      copy_space(lw, &d, &c);
    }
    return r;
  }
  if (t.bits != 32 || !has(lw, "lo"))
    return refuse(lw, "integer mad is supported as mad.lo and mad.wide on 32 bits");
  r = use_r(lw, x, 1, &a);
  if (r == WS_OK) r = use_i(lw, y, &b);
  if (r == WS_OK) r = use_r(lw, &o[3], 1, &c);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, "IMAD", 4, d, a, b, c);
  return r;
}

/* Unsigned 32-bit division and remainder as the hardware has no divider:
 * a reciprocal estimate scaled to 2^32, one Newton step, the quotient from
 * the high product and two corrections (the sequence LLVM uses for GPUs
 * without integer division); results for b = 0 are unspecified, as in PTX. */
static void udivrem(lower *lw, ws_vc_op a, ws_vc_op b, ws_vc_op *q_out, ws_vc_op *r_out) {
  uint32_t f = new_reg(lw, 1, false), z = new_reg(lw, 1, false), t = new_reg(lw, 1, false);
  uint32_t q = new_reg(lw, 1, false), rm = new_reg(lw, 1, false), p = new_reg(lw, 1, true);
  ws_vc_op F = op_reg(f, 0, 1, true), Z = op_reg(z, 0, 1, true), T = op_reg(t, 0, 1, true);
  ws_vc_op Q = op_reg(q, 0, 1, true), R = op_reg(rm, 0, 1, true), P = op_pred(p, false, true);
  ws_vc_op f_ = op_reg(f, 0, 1, false), z_ = op_reg(z, 0, 1, false), t_ = op_reg(t, 0, 1, false);
  ws_vc_op q_ = op_reg(q, 0, 1, false), r_ = op_reg(rm, 0, 1, false), p_ = op_pred(p, false, false);
  emit(lw, "I2F.U32", 2, F, b);
  emit(lw, "MUFU.RCP", 2, F, f_);
  emit(lw, "FMUL", 3, F, f_, op_text("0f4F7FFFFE")); /* 2^32 - 512: the estimate stays below 2^32/b */
  emit(lw, "F2I.U32", 2, Z, f_);
  emit(lw, "ISUB", 3, T, op_text("RZ"), b); /* -b */
  emit(lw, "IMUL", 3, T, t_, z_);           /* -b * z: the estimate's error, scaled */
  emit(lw, "IMUL.HI.U32", 3, T, z_, t_);
  emit(lw, "IADD", 3, Z, z_, t_); /* one Newton step */
  emit(lw, "IMUL.HI.U32", 3, Q, a, z_);
  emit(lw, "IMUL", 3, T, q_, b);
  emit(lw, "ISUB", 3, R, a, t_);
  for (int k = 0; k < 2; k++) {
    emit(lw, "ISETP.GE.U32", 3, P, r_, b);
    ws_vc_insn *i1 = emit(lw, "IADD", 3, Q, q_, op_text("1"));
    ws_vc_insn *i2 = emit(lw, "ISUB", 3, R, r_, b);
    if (i1) i1->guard = p;
    if (i2) i2->guard = p;
    (void)p_;
  }
  *q_out = q_;
  *r_out = r_;
}

static ws_status lower_divrem(lower *lw, bool rem) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 3);
  if (r != WS_OK) return r;
  if (t.kind == 'f') {
    ws_vc_op d, a, b;
    if (rem) return refuse(lw, "rem is an integer instruction");
    r = type_check(lw, t, "f", 4);
    if (r == WS_OK) r = use_f(lw, &o[1], &a);
    if (r == WS_OK) r = use_r(lw, &o[2], 1, &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
    if (r != WS_OK) return r;
    uint32_t rc = new_reg(lw, 1, false);
    ws_vc_op RC = op_reg(rc, 0, 1, true), rc_ = op_reg(rc, 0, 1, false);
    emit(lw, "MUFU.RCP", 2, RC, b);
    if (has(lw, "approx") || has(lw, "full")) {
      emit(lw, "FMUL", 3, d, a, rc_);
      return WS_OK;
    }
    /* div.rn: q = a/b refined by one fused residual step (q + r*(a - b*q)) */
    uint32_t q = new_reg(lw, 1, false), e = new_reg(lw, 1, false);
    ws_vc_op nb = b;
    nb.neg = 1;
    emit(lw, "FMUL", 3, op_reg(q, 0, 1, true), a, rc_);
    emit(lw, "FFMA", 4, op_reg(e, 0, 1, true), nb, op_reg(q, 0, 1, false), a);
    emit(lw, "FFMA", 4, d, op_reg(e, 0, 1, false), rc_, op_reg(q, 0, 1, false));
    return WS_OK;
  }
  r = type_check(lw, t, "sub", 4);
  if (r != WS_OK) return r;
  ws_vc_op d, a, b, q, rm;
  r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = use_r(lw, &o[2], 1, &b);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  if (lw->st->has_guard) return refuse(lw, "a guarded integer division is not supported; divide unguarded");
  if (t.kind != 's') {
    udivrem(lw, a, b, &q, &rm);
    emit(lw, "MOV", 2, d, rem ? rm : q);
    return WS_OK;
  }
  uint32_t ua = new_reg(lw, 1, false), ub = new_reg(lw, 1, false), s = new_reg(lw, 1, false);
  uint32_t neg = new_reg(lw, 1, true), res = new_reg(lw, 1, false);
  emit(lw, "IABS", 2, op_reg(ua, 0, 1, true), a);
  emit(lw, "IABS", 2, op_reg(ub, 0, 1, true), b);
  udivrem(lw, op_reg(ua, 0, 1, false), op_reg(ub, 0, 1, false), &q, &rm);
  /* the quotient is negative when the signs differ, the remainder takes a's sign */
  if (rem)
    emit(lw, "MOV", 2, op_reg(s, 0, 1, true), a);
  else
    emit(lw, "XOR", 3, op_reg(s, 0, 1, true), a, b);
  emit(lw, "ISETP.LT.S32", 3, op_pred(neg, false, true), op_reg(s, 0, 1, false), op_text("0"));
  emit(lw, "MOV", 2, op_reg(res, 0, 1, true), rem ? rm : q);
  ws_vc_insn *n = emit(lw, "ISUB", 3, op_reg(res, 0, 1, true), op_text("RZ"), op_reg(res, 0, 1, false));
  if (n) n->guard = neg;
  emit(lw, "MOV", 2, d, op_reg(res, 0, 1, false));
  return WS_OK;
}

static ws_status lower_minmax(lower *lw, bool is_max) {
  ptype t = type_at(lw, 0);
  if (t.kind == 'f') {
    const ws_ptx_opnd *o = lw->st->opnds;
    ws_vc_op d, a, b;
    ws_status r = need(lw, 3);
    if (r == WS_OK) r = type_check(lw, t, "f", 4);
    if (r == WS_OK && has(lw, "NaN")) r = refuse(lw, ".NaN min/max is not supported");
    if (r == WS_OK) r = use_f(lw, &o[1], &a);
    if (r == WS_OK) r = use_f(lw, &o[2], &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
    if (r == WS_OK)
      emit(lw, is_max ? "FMAX" : "FMIN", 3, d, a.kind == WS_VC_TEXT ? b : a, a.kind == WS_VC_TEXT ? a : b);
    return r;
  }
  ws_status r = type_check(lw, t, "su", 4);
  if (r != WS_OK) return r;
  char m[24];
  snprintf(m, sizeof m, "%s.%s", is_max ? "IMAX" : "IMIN", t.kind == 's' ? "S32" : "U32");
  return binary32(lw, m, true);
}

static ws_status lower_neg_abs(lower *lw, bool is_abs) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a;
  ws_status r = need(lw, 2);
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  if (t.kind == 'f' && t.bits == 32) {
    if (is_abs)
      a.abs = 1;
    else
      a.neg = 1;
    emit(lw, "FADD", 3, d, a, op_text("-0.0")); /* x + -0 is x, signed zeros kept */
    return WS_OK;
  }
  r = type_check(lw, t, "s", 4);
  if (r != WS_OK) return r;
  if (is_abs)
    emit(lw, "IABS", 2, d, a);
  else
    emit(lw, "ISUB", 3, d, op_text("RZ"), a);
  return WS_OK;
}

/* ---- bits -------------------------------------------------------------------------------- */

static ws_status lower_logic(lower *lw, const char *mnem, const char *pmnem) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 3);
  if (r != WS_OK) return r;
  if (t.kind == 'p') {
    ws_vc_op d, a, b;
    r = def_p(lw, &o[0], &d);
    if (r == WS_OK) r = use_p(lw, &o[1], &a);
    if (r == WS_OK) r = use_p(lw, &o[2], &b);
    if (r == WS_OK) emit(lw, pmnem, 3, d, a, b);
    return r;
  }
  if (t.bits == 64) {
    ws_vc_op d, a, b;
    r = use64(lw, &o[1], &a);
    if (r == WS_OK) r = use64(lw, &o[2], &b);
    if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
    if (r != WS_OK) return r;
    emit(lw, mnem, 3, word_of(d, 0), word_of(a, 0), word_of(b, 0));
    emit(lw, mnem, 3, word_of(d, 1), word_of(a, 1), word_of(b, 1));
    return WS_OK;
  }
  return binary32(lw, mnem, true);
}

static ws_status lower_not(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a;
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  if (t.kind == 'p') {
    r = def_p(lw, &o[0], &d);
    if (r == WS_OK) r = use_p(lw, &o[1], &a);
    if (r == WS_OK) {
      a.neg = !a.neg;
      emit(lw, "PAND", 3, d, a, op_text("PT"));
    }
    return r;
  }
  uint8_t w = t.bits == 64 ? 2 : 1;
  r = use_r(lw, &o[1], w, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], w, &d);
  for (uint8_t k = 0; r == WS_OK && k < w; k++) emit(lw, "NOT", 2, word_of(d, k), word_of(a, k));
  return r;
}

/* 64-bit shifts by a constant, from 32-bit ones. */
static ws_status shift64(lower *lw, bool left, bool arith) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (o[2].kind != WS_PTX_OPND_INT || o[2].ival < 0 || o[2].ival > 63)
    return refuse(lw, "64-bit shifts are supported by a constant 0..63");
  unsigned n = (unsigned)o[2].ival;
  ws_vc_op d, a;
  ws_status r = use64(lw, &o[1], &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
  if (r != WS_OK) return r;
  const char *sr = arith ? "SHR.S32" : "SHR.U32";
  uint32_t t = new_reg(lw, 2, false), u = new_reg(lw, 1, false);
  ws_vc_op lo = op_reg(t, 0, 1, true), hi = op_reg(t, 1, 1, true), U = op_reg(u, 0, 1, true);
  ws_vc_op lo_ = op_reg(t, 0, 1, false), hi_ = op_reg(t, 1, 1, false), u_ = op_reg(u, 0, 1, false);
  if (n == 0) {
    emit(lw, "MOV", 2, lo, word_of(a, 0)), emit(lw, "MOV", 2, hi, word_of(a, 1));
  } else if (left && n < 32) {
    emit(lw, "SHR.U32", 3, U, word_of(a, 0), op_text("%u", 32 - n));
    emit(lw, "SHL", 3, hi, word_of(a, 1), op_text("%u", n));
    emit(lw, "OR", 3, hi, hi_, u_);
    emit(lw, "SHL", 3, lo, word_of(a, 0), op_text("%u", n));
  } else if (left) {
    emit(lw, "SHL", 3, hi, word_of(a, 0), op_text("%u", n - 32));
    emit(lw, "MOV", 2, lo, op_text("0"));
  } else if (n < 32) {
    emit(lw, "SHL", 3, U, word_of(a, 1), op_text("%u", 32 - n));
    emit(lw, "SHR.U32", 3, lo, word_of(a, 0), op_text("%u", n));
    emit(lw, "OR", 3, lo, lo_, u_);
    emit(lw, sr, 3, hi, word_of(a, 1), op_text("%u", n));
  } else {
    emit(lw, sr, 3, lo, word_of(a, 1), op_text("%u", n - 32));
    if (arith)
      emit(lw, "SHR.S32", 3, hi, word_of(a, 1), op_text("31"));
    else
      emit(lw, "MOV", 2, hi, op_text("0"));
  }
  emit(lw, "MOV", 2, word_of(d, 0), lo_);
  emit(lw, "MOV", 2, word_of(d, 1), hi_);
  return WS_OK;
}

static ws_status lower_shift(lower *lw, bool left) {
  ptype t = type_at(lw, 0);
  ws_status r = need(lw, 3);
  if (r != WS_OK) return r;
  if (t.bits == 64) return shift64(lw, left, t.kind == 's');
  r = type_check(lw, t, "sub", 4);
  if (r != WS_OK) return r;
  if (left) return binary32(lw, "SHL", false);
  return binary32(lw, t.kind == 's' ? "SHR.S32" : "SHR.U32", false);
}

static ws_status unary32(lower *lw, const char *mnem) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a;
  ws_status r = need(lw, 2);
  if (r == WS_OK && type_at(lw, 0).bits != 32) r = refuse(lw, "supported on 32-bit values");
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, mnem, 2, d, a);
  return r;
}

static ws_status lower_bfe(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b, c;
  ws_status r = need(lw, 4);
  if (r == WS_OK) r = type_check(lw, t, "su", 4);
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = use_i(lw, &o[2], &b);
  if (r == WS_OK) r = use_i(lw, &o[3], &c);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, t.kind == 's' ? "BFE.S32" : "BFE.U32", 4, d, a, b, c);
  return r;
}

/* bfi d, a, b, pos, len: a's low len bits into b at pos; constant fields. */
static ws_status lower_bfi(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 5);
  if (r != WS_OK) return r;
  if (o[3].kind != WS_PTX_OPND_INT || o[4].kind != WS_PTX_OPND_INT || o[3].ival < 0 || o[4].ival < 0)
    return refuse(lw, "bfi is supported with a constant position and length");
  uint32_t pos = (uint32_t)(o[3].ival & 0xff), len = (uint32_t)(o[4].ival & 0xff);
  if (pos > 31) pos = 32;
  if (len > 32 - (pos > 32 ? 32 : pos)) len = 32 - pos;
  uint32_t mask = len == 32 ? 0xFFFFFFFFu : ((1u << len) - 1u) << pos;
  ws_vc_op d, a, b;
  r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = use_r(lw, &o[2], 1, &b);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  uint32_t x = new_reg(lw, 1, false), y = new_reg(lw, 1, false);
  emit(lw, "SHL", 3, op_reg(x, 0, 1, true), a, op_text("%u", pos & 31));
  emit(lw, "AND", 3, op_reg(x, 0, 1, true), op_reg(x, 0, 1, false), op_text("0x%" PRIX32, mask));
  emit(lw, "AND", 3, op_reg(y, 0, 1, true), b, op_text("0x%" PRIX32, ~mask));
  emit(lw, "OR", 3, d, op_reg(x, 0, 1, false), op_reg(y, 0, 1, false));
  return WS_OK;
}

static ws_status lower_prmt(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b, c;
  ws_status r = need(lw, 4);
  if (r == WS_OK && lw->nparts > 2) r = refuse(lw, "prmt is supported in its default mode");
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = use_r(lw, &o[2], 1, &b);
  if (r == WS_OK) r = use_i(lw, &o[3], &c);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, "PRMT", 4, d, a, c, b);
  return r;
}

/* ---- moves, selects, comparisons ------------------------------------------------------------- */

static ws_ptx_shared *find_shared(lower *lw, const char *ptx_name);

static const local_var *find_local(const lower *lw, const char *name) {
  for (size_t i = 0; i < lw->nlocals; i++)
    if (strcmp(lw->locals[i].name, name) == 0) return &lw->locals[i];
  return NULL;
}

/* mov d, SYMBOL: the symbol's address `addr` (its offset in its space; the
 * high word 0 for 64 bits), d remembered as pointing into space sp. */
static ws_status mov_address(lower *lw, uint8_t words, ws_vc_op addr, space sp) {
  ws_vc_op d;
  ws_status r = def_r(lw, &lw->st->opnds[0], words, &d);
  if (r != WS_OK) return r;
  emit(lw, "MOV", 2, word_of(d, 0), addr);
  if (words == 2) emit(lw, "MOV", 2, word_of(d, 1), op_text("0"));
  if (track(lw)) lw->space[d.v] = sp;
  return WS_OK;
}

uint32_t ws_ptx_const_layout(const ws_ptx_module *m, uint8_t *image, const char *name, uint32_t *offset) {
  uint64_t at = 0;
  if (offset) *offset = UINT32_MAX;
  for (size_t i = 0; i < m->nglobals; i++) {
    const ws_ptx_stmt *g = &m->globals[i];
    if (strcmp(g->space, ".const") != 0) continue;
    uint32_t align = g->align_bytes ? g->align_bytes : 4;
    at = (at + align - 1) / align * align;
    if (at + g->size_bytes > UINT32_MAX) return UINT32_MAX;
    if (name && offset && strcmp(g->name, name) == 0) *offset = (uint32_t)at;
    if (image && g->init) memcpy(image + at, g->init, g->size_bytes);
    at += g->size_bytes;
  }
  return (uint32_t)at;
}

static uint32_t const_offset(const lower *lw, const char *name) {
  uint32_t off = UINT32_MAX;
  ws_ptx_const_layout(lw->m, NULL, name, &off);
  return off;
}

static ws_status mov_symbol(lower *lw, const ws_ptx_opnd *src, uint8_t words) {
  const local_var *lv = find_local(lw, src->name);
  if (lv)
    return mov_address(lw, words, op_text("%u", lv->offset_bytes), SP_LOCAL); /* in the thread's window */
  uint32_t coff = const_offset(lw, src->name);
  if (coff != UINT32_MAX) return mov_address(lw, words, op_text("%u", coff), SP_CONST); /* in the bank */
  ws_ptx_shared *sh = find_shared(lw, src->name);
  if (!sh)
    return refuse(lw, "'%s' is not a shared variable of this kernel (only shared addresses can be taken)",
                  src->name);
  return mov_address(lw, words, op_text("%s", sh->name), SP_SHARED);
}

/* mov.b32 d, {lo, hi} and mov.b32 {lo, hi}, s: 16-bit halves, each held
 * in the low half of a register. */
static ws_status pack16(lower *lw, const ws_ptx_opnd *whole, const ws_ptx_opnd *vec, bool pack) {
  ws_ptx_opnd e[2] = {{.kind = WS_PTX_OPND_REG}, {.kind = WS_PTX_OPND_REG}};
  for (int k = 0; k < 2; k++) snprintf(e[k].name, sizeof e[k].name, "%s", vec->elems[k]);
  ws_vc_op w, lo, hi;
  ws_status r;
  if (pack) {
    r = def_r(lw, whole, 1, &w);
    if (r == WS_OK) r = use_r(lw, &e[0], 1, &lo);
    if (r == WS_OK) r = use_r(lw, &e[1], 1, &hi);
    if (r == WS_OK) emit(lw, "PRMT", 4, w, lo, op_text("0x5410"), hi);
    return r;
  }
  r = use_r(lw, whole, 1, &w);
  bool want_lo = strcmp(e[0].name, "_") != 0, want_hi = strcmp(e[1].name, "_") != 0;
  if (r == WS_OK && want_lo) r = def_r(lw, &e[0], 1, &lo);
  if (r == WS_OK && want_lo) emit(lw, "BFE.U32", 4, lo, w, op_text("0"), op_text("16"));
  if (r == WS_OK && want_hi) r = def_r(lw, &e[1], 1, &hi);
  if (r == WS_OK && want_hi) emit(lw, "SHR.U32", 3, hi, w, op_text("16"));
  return r;
}

/* %clock64 from two 32-bit halves read high, low, high: the low half
 * read before a carry into the high one is at least 2^31 (the reads are a
 * few cycles apart), so it goes with the first high half, else with the
 * second. */
static ws_status clock64(lower *lw, ws_vc_op d, uint8_t words) {
  if (words != 2) return refuse(lw, "%%clock64 is read into a 64-bit register");
  uint32_t hi1 = new_reg(lw, 1, false), hi2 = new_reg(lw, 1, false), p = new_reg(lw, 1, true);
  emit(lw, "S2R", 2, op_reg(hi1, 0, 1, true), op_text("SR_CLOCKHI"));
  emit(lw, "S2R", 2, word_of(d, 0), op_text("SR_CLOCK"));
  emit(lw, "S2R", 2, op_reg(hi2, 0, 1, true), op_text("SR_CLOCKHI"));
  ws_vc_op lo = word_of(d, 0);
  lo.def = 0;
  emit(lw, "ISETP.LT.S32", 3, op_pred(p, false, true), lo, op_text("0"));
  emit(lw, "SEL", 4, word_of(d, 1), op_reg(hi1, 0, 1, false), op_reg(hi2, 0, 1, false),
       op_pred(p, false, false));
  return WS_OK;
}

static ws_status lower_mov(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  uint8_t words = t.bits == 64 ? 2 : 1;
  if (t.kind == 'p') {
    ws_vc_op d, a;
    r = def_p(lw, &o[0], &d);
    if (r == WS_OK) r = use_p(lw, &o[1], &a);
    if (r == WS_OK) emit(lw, "PAND", 3, d, a, op_text("PT"));
    return r;
  }
  if (o[1].kind == WS_PTX_OPND_SYMBOL) return mov_symbol(lw, &o[1], words);
  if (o[0].kind == WS_PTX_OPND_VECTOR || o[1].kind == WS_PTX_OPND_VECTOR) {
    bool pack = o[1].kind == WS_PTX_OPND_VECTOR;
    const ws_ptx_opnd *vec = pack ? &o[1] : &o[0], *whole = pack ? &o[0] : &o[1];
    if (words == 1 && t.bits == 32 && vec->nelems == 2) return pack16(lw, whole, vec, pack);
    if (words != 2 || vec->nelems != 2) return refuse(lw, "mov packs or unpacks two 32-bit halves of a .b64");
    ws_vc_op w;
    r = pack ? def_r(lw, whole, 2, &w) : use64(lw, whole, &w);
    for (uint8_t k = 0; r == WS_OK && k < 2; k++) {
      ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
      snprintf(e.name, sizeof e.name, "%s", vec->elems[k]);
      if (strcmp(e.name, "_") == 0) continue;
      ws_vc_op x;
      r = pack ? use_r(lw, &e, 1, &x) : def_r(lw, &e, 1, &x);
      if (r == WS_OK) emit(lw, "MOV", 2, pack ? word_of(w, k) : x, pack ? x : word_of(w, k));
    }
    return r;
  }
  ws_vc_op d;
  r = def_r(lw, &o[0], words, &d);
  if (r != WS_OK) return r;
  if (o[1].kind == WS_PTX_OPND_SREG && strcmp(o[1].name, "%clock64") == 0) return clock64(lw, d, words);
  if (o[1].kind == WS_PTX_OPND_SREG) {
    ws_vc_op sr;
    r = sreg_op(lw, o[1].name, &sr);
    if (r == WS_OK) emit(lw, "S2R", 2, word_of(d, 0), sr);
    if (r == WS_OK && words == 2) emit(lw, "MOV", 2, word_of(d, 1), op_text("0"));
    return r;
  }
  if (words == 2) {
    ws_vc_op a;
    r = use64(lw, &o[1], &a);
    if (r == WS_OK) {
      emit(lw, "MOV", 2, word_of(d, 0), word_of(a, 0));
      emit(lw, "MOV", 2, word_of(d, 1), word_of(a, 1));
      copy_space(lw, &d, &a);
    }
    return r;
  }
  ws_vc_op a;
  r = use_i(lw, &o[1], &a);
  if (r == WS_OK) emit(lw, "MOV", 2, d, a);
  return r;
}

static ws_status lower_selp(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 4);
  if (r != WS_OK) return r;
  uint8_t words = t.bits == 64 ? 2 : 1;
  ws_vc_op d, a, b, p;
  r = use_r(lw, &o[1], words, &a);
  if (r == WS_OK) r = words == 2 ? use64(lw, &o[2], &b) : use_i(lw, &o[2], &b);
  if (r == WS_OK) r = use_p(lw, &o[3], &p);
  if (r == WS_OK) r = def_r(lw, &o[0], words, &d);
  if (r != WS_OK) return r;
  if (words == 1) {
    emit(lw, "SEL", 4, d, a, b, p);
  } else {
    emit(lw, "SEL", 4, word_of(d, 0), word_of(a, 0), word_of(b, 0), p);
    emit(lw, "SEL", 4, word_of(d, 1), word_of(a, 1), word_of(b, 1), p);
  }
  return WS_OK;
}

/* The ISA's comparison for a PTX one; NULL when there is none. */
static const char *cmp_name(const char *c, bool is_float, bool *is_unsigned) {
  static const struct {
    const char *ptx, *ws;
    bool uns;
  } map[] = {{"eq", "EQ", false},   {"ne", "NE", false},   {"lt", "LT", false},   {"le", "LE", false},
             {"gt", "GT", false},   {"ge", "GE", false},   {"lo", "LT", true},    {"ls", "LE", true},
             {"hi", "GT", true},    {"hs", "GE", true},    {"equ", "EQU", false}, {"neu", "NEU", false},
             {"ltu", "LTU", false}, {"leu", "LEU", false}, {"gtu", "GTU", false}, {"geu", "GEU", false},
             {"num", "NUM", false}, {"nan", "NAN", false}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
    if (strcmp(map[i].ptx, c) != 0) continue;
    if (!is_float && strlen(map[i].ws) == 3) return NULL;
    *is_unsigned = map[i].uns;
    return map[i].ws;
  }
  return NULL;
}

/* p = a CMP b on 32-bit or float operands. */
static ws_status compare32(lower *lw, const char *cmp, ptype t, ws_vc_op p, const ws_ptx_opnd *x,
                           const ws_ptx_opnd *y) {
  bool uns = false, is_float = t.kind == 'f';
  const char *c = cmp_name(cmp, is_float, &uns);
  if (!c) return refuse(lw, "comparison '%s' is not supported for this type", cmp);
  char m[32];
  ws_vc_op a, b;
  ws_status r;
  if (is_float) {
    snprintf(m, sizeof m, "FSETP.%s", c);
    r = use_r(lw, x, 1, &a);
    if (r == WS_OK) r = use_f(lw, y, &b);
  } else {
    snprintf(m, sizeof m, "ISETP.%s.%s", c, uns || t.kind != 's' ? "U32" : "S32");
    r = use_r(lw, x, 1, &a);
    if (r == WS_OK) r = use_i(lw, y, &b);
  }
  if (r == WS_OK) emit(lw, m, 3, p, a, b);
  return r;
}

/* p = a CMP b on 64-bit integers: the high words decide unless equal. */
static ws_status compare64(lower *lw, const char *cmp, ptype t, ws_vc_op p, const ws_ptx_opnd *x,
                           const ws_ptx_opnd *y) {
  bool uns = false;
  const char *c = cmp_name(cmp, false, &uns);
  if (!c) return refuse(lw, "comparison '%s' is not supported for this type", cmp);
  ws_vc_op a, b;
  ws_status r = use64(lw, x, &a);
  if (r == WS_OK) r = use64(lw, y, &b);
  if (r != WS_OK) return r;
  const char *ht = uns || t.kind != 's' ? "U32" : "S32";
  uint32_t h = new_reg(lw, 1, true), e = new_reg(lw, 1, true), l = new_reg(lw, 1, true);
  char m[32];
  if (strcmp(c, "EQ") == 0 || strcmp(c, "NE") == 0) {
    snprintf(m, sizeof m, "ISETP.%s.U32", c);
    emit(lw, m, 3, op_pred(h, false, true), word_of(a, 1), word_of(b, 1));
    emit(lw, m, 3, op_pred(l, false, true), word_of(a, 0), word_of(b, 0));
    emit(lw, strcmp(c, "EQ") == 0 ? "PAND" : "POR", 3, p, op_pred(h, false, false), op_pred(l, false, false));
    return WS_OK;
  }
  char strict[3] = {c[0], 'T', 0}; /* LT or GT on the high words */
  snprintf(m, sizeof m, "ISETP.%s.%s", strict, ht);
  emit(lw, m, 3, op_pred(h, false, true), word_of(a, 1), word_of(b, 1));
  emit(lw, "ISETP.EQ.U32", 3, op_pred(e, false, true), word_of(a, 1), word_of(b, 1));
  snprintf(m, sizeof m, "ISETP.%s.U32", c);
  emit(lw, m, 3, op_pred(l, false, true), word_of(a, 0), word_of(b, 0));
  emit(lw, "PAND", 3, op_pred(l, false, true), op_pred(l, false, false), op_pred(e, false, false));
  emit(lw, "POR", 3, p, op_pred(h, false, false), op_pred(l, false, false));
  return WS_OK;
}

static ws_status lower_setp(lower *lw) {
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  const char *cmp = lw->nparts > 1 ? lw->parts[1] : "";
  const char *bop = NULL;
  if (has(lw, "and")) bop = "PAND";
  if (has(lw, "or")) bop = "POR";
  if (has(lw, "xor")) bop = "PXOR";
  unsigned srcs = bop ? 3 : 2;
  bool two = lw->st->nopnds == srcs + 2;
  if (lw->st->nopnds != srcs + 1 && !two) return need(lw, srcs + 1);
  if (t.kind == 'f' && t.bits != 32) return refuse(lw, "floating-point comparisons are supported on f32");
  if (t.kind == 'p' || t.bits < 16) return refuse(lw, "comparisons of this type are not supported");
  const ws_ptx_opnd *x = &o[two ? 2 : 1], *y = &o[two ? 3 : 2];
  if (!bop && !two) { /* the common case: the comparison writes p itself */
    ws_vc_op p;
    ws_status r = def_p(lw, &o[0], &p);
    if (r != WS_OK) return r;
    return t.bits == 64 ? compare64(lw, cmp, t, p, &o[1], &o[2]) : compare32(lw, cmp, t, p, &o[1], &o[2]);
  }
  uint32_t c = new_reg(lw, 1, true);
  ws_vc_op C = op_pred(c, false, true), c_ = op_pred(c, false, false);
  ws_status r = t.bits == 64 ? compare64(lw, cmp, t, C, x, y) : compare32(lw, cmp, t, C, x, y);
  ws_vc_op p, q, k;
  if (r == WS_OK) r = def_p(lw, &o[0], &p);
  if (r == WS_OK && two) r = def_p(lw, &o[1], &q);
  if (r == WS_OK && bop) r = use_p(lw, &o[srcs + (two ? 1 : 0)], &k);
  if (r != WS_OK) return r;
  ws_vc_op nc = c_;
  nc.neg = 1;
  emit(lw, bop ? bop : "PAND", 3, p, c_, bop ? k : op_text("PT"));
  if (two) emit(lw, bop ? bop : "PAND", 3, q, nc, bop ? k : op_text("PT"));
  return WS_OK;
}

/* ---- conversions ------------------------------------------------------------------------------ */

/* cvt.rn.f16x2.f32 d, a, b: a rounded into the high half, b into the low. */
static ws_status cvt_pack(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a, b;
  ws_status r = need(lw, 3);
  if (r == WS_OK && !has(lw, "rn")) r = refuse(lw, "f32 to f16x2 is supported with .rn");
  if (r == WS_OK) r = use_f(lw, &o[1], &a);
  if (r == WS_OK) r = use_f(lw, &o[2], &b);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) emit(lw, "F2FP.PACK", 3, d, b, a);
  return r;
}

static ws_status lower_cvt(lower *lw) {
  ptype dt = type_at(lw, 1), st = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  if (has(lw, "f16x2") && st.kind == 'f' && st.bits == 32) return cvt_pack(lw);
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  if (!dt.kind || !st.kind) return refuse(lw, "cvt needs a destination and a source type");
  if (has(lw, "sat")) return refuse(lw, "saturating conversions are not supported");
  bool dint = dt.kind != 'f', sint = st.kind != 'f';
  ws_vc_op d, a;
  if (dint && sint) {
    uint8_t sw = st.bits == 64 ? 2 : 1, dw = dt.bits == 64 ? 2 : 1;
    r = use_r(lw, &o[1], sw, &a);
    if (r == WS_OK) r = def_r(lw, &o[0], dw, &d);
    if (r != WS_OK) return r;
    if (st.bits < 32 && dt.bits >= st.bits) { /* widen a narrow value held in 32 bits */
      emit(lw, st.kind == 's' ? "BFE.S32" : "BFE.U32", 4, word_of(d, 0), word_of(a, 0), op_text("0"),
           op_text("%u", st.bits));
    } else if (dt.bits < 32) {
      emit(lw, dt.kind == 's' ? "BFE.S32" : "BFE.U32", 4, word_of(d, 0), word_of(a, 0), op_text("0"),
           op_text("%u", dt.bits));
    } else {
      emit(lw, "MOV", 2, word_of(d, 0), word_of(a, 0));
    }
    if (dw == 2 && sw == 2)
      emit(lw, "MOV", 2, word_of(d, 1), word_of(a, 1));
    else if (dw == 2 && st.kind == 's')
      emit(lw, "SHR.S32", 3, word_of(d, 1), word_of(d, 0), op_text("31"));
    else if (dw == 2)
      emit(lw, "MOV", 2, word_of(d, 1), op_text("0"));
    return WS_OK;
  }
  if (dt.bits == 64 || st.bits == 64) return refuse(lw, "64-bit float conversions are not supported");
  r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  if (dt.kind == 'f' && st.kind == 'f') {
    if (dt.bits == 16 && st.bits == 32) {
      if (!has(lw, "rn")) return refuse(lw, "f32 to f16 is supported with .rn");
      emit(lw, "F2F.F16.F32", 2, d, a);
    } else if (dt.bits == 32 && st.bits == 16) {
      emit(lw, "F2F.F32.F16.H0", 2, d, a);
    } else if (dt.bits == 32 && st.bits == 32) {
      if (!has(lw, "rni") && !has(lw, "rzi") && !has(lw, "rmi") && !has(lw, "rpi"))
        emit(lw, "MOV", 2, d, a);
      else
        return refuse(lw, "rounding a float to an integral float is not supported");
    } else {
      return refuse(lw, "this float conversion is not supported");
    }
    return WS_OK;
  }
  if (dt.kind == 'f') {
    if (dt.bits != 32 || st.bits > 32)
      return refuse(lw, "integer to float is supported from 8, 16 and 32 bits to f32");
    if (!has(lw, "rn")) return refuse(lw, "integer to float is supported with .rn");
    if (st.bits < 32) { /* a narrow value held in 32 bits: its own bits, extended, convert exactly */
      uint32_t x = new_reg(lw, 1, false);
      emit(lw, st.kind == 's' ? "BFE.S32" : "BFE.U32", 4, op_reg(x, 0, 1, true), a, op_text("0"),
           op_text("%u", st.bits));
      a = op_reg(x, 0, 1, false);
    }
    emit(lw, st.kind == 's' ? "I2F.S32" : "I2F.U32", 2, d, a);
    return WS_OK;
  }
  if (st.bits != 32 || dt.bits != 32) return refuse(lw, "float to integer is supported from f32 to 32 bits");
  if (!has(lw, "rzi")) return refuse(lw, "float to integer is supported with .rzi (truncation)");
  emit(lw, dt.kind == 's' ? "F2I.S32" : "F2I.U32", 2, d, a);
  return WS_OK;
}

static ws_status lower_cvta(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  bool shared = has(lw, "shared"), local = has(lw, "local");
  if (!shared && !local && !has(lw, "global"))
    return refuse(lw, "cvta is supported for the global, shared and local spaces");
  ws_vc_op d, a;
  if (o[1].kind == WS_PTX_OPND_SYMBOL) return mov_symbol(lw, &o[1], 2);
  r = use64(lw, &o[1], &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 2, &d);
  if (r != WS_OK) return r;
  emit(lw, "MOV", 2, word_of(d, 0), word_of(a, 0));
  emit(lw, "MOV", 2, word_of(d, 1), word_of(a, 1));
  copy_space(lw, &d, &a);
  if (track(lw)) lw->space[d.v] = shared ? SP_SHARED : local ? SP_LOCAL : SP_GLOBAL;
  if (!shared && !local && track(lw) && lw->param_of[a.v]) lw->params[lw->param_of[a.v] - 1].is_ptr = true;
  return WS_OK;
}

/* ---- the SFU -------------------------------------------------------------------------------- */

static ws_status lower_sfu(lower *lw, const char *mnem) {
  ptype t = type_at(lw, 0);
  if (t.kind != 'f' || t.bits != 32) return refuse(lw, "supported on f32");
  return unary32(lw, mnem);
}

static ws_status lower_rcp(lower *lw) {
  if (has(lw, "approx")) return lower_sfu(lw, "MUFU.RCP");
  ptype t = type_at(lw, 0);
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a;
  ws_status r = need(lw, 2);
  if (r == WS_OK && (t.kind != 'f' || t.bits != 32)) r = refuse(lw, "supported on f32");
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  /* rcp.rn: the estimate refined by one Newton step, x + x*(1 - a*x) */
  uint32_t x = new_reg(lw, 1, false), e = new_reg(lw, 1, false);
  ws_vc_op na = a;
  na.neg = 1;
  emit(lw, "MUFU.RCP", 2, op_reg(x, 0, 1, true), a);
  emit(lw, "FFMA", 4, op_reg(e, 0, 1, true), na, op_reg(x, 0, 1, false), op_text("1.0"));
  emit(lw, "FFMA", 4, d, op_reg(x, 0, 1, false), op_reg(e, 0, 1, false), op_reg(x, 0, 1, false));
  return WS_OK;
}

/* ---- memory ------------------------------------------------------------------------------------- */

static ws_status add_shared(lower *lw, const ws_ptx_stmt *v);

/* The kernel's shared variable `ptx_name`: its own, or a module-scope one
 * it names (added on first use, so a kernel's shared memory holds only the
 * arrays it uses, as ptxas allocates them). */
static ws_ptx_shared *own_shared(lower *lw, const char *ptx_name) {
  for (size_t i = 0; i < lw->nshared; i++)
    if (strcmp(lw->shared[i].ptx_name, ptx_name) == 0) return &lw->shared[i];
  return NULL;
}

static ws_ptx_shared *find_shared(lower *lw, const char *ptx_name) {
  ws_ptx_shared *own = own_shared(lw, ptx_name);
  if (own) return own;
  for (size_t i = 0; i < lw->m->nglobals; i++) {
    const ws_ptx_stmt *g = &lw->m->globals[i];
    if (strcmp(g->space, ".shared") != 0 || strcmp(g->name, ptx_name) != 0) continue;
    const ws_ptx_stmt *at = lw->st;
    ws_status r = add_shared(lw, g);
    lw->st = at;
    return r == WS_OK ? &lw->shared[lw->nshared - 1] : NULL;
  }
  return NULL;
}

static int find_param(lower *lw, const char *name) {
  for (size_t i = 0; i < lw->e->nparams; i++)
    if (strcmp(lw->e->params[i].name, name) == 0) return (int)i;
  return -1;
}

/* Word [o, o + 4) of PTX param pi into d: the ISA param (kparams.h) that holds it. */
static ws_status param_word(lower *lw, uint32_t pi, uint32_t o, ws_vc_op d) {
  int f = ws_kparams_find(lw->params, lw->nparams, pi, o, 4);
  if (f < 0)
    return refuse(lw, "bytes %u..%u of param '%s' lie in no one field of its struct (padding, or across two)",
                  o, o + 3, lw->e->params[pi].name);
  emit(lw, "LDP.32", 2, d, op_text("[%s+%u]", lw->params[f].name, o - lw->params[f].offset_bytes));
  return WS_OK;
}

/* One element of an ld.param: bytes [o, o + bits / 8) of PTX param pi into
 * d. A doubleword no one field holds is read as its two words; a byte or
 * halfword is extracted from its word, zero- or sign-extended. */
static ws_status param_elem(lower *lw, uint32_t pi, uint32_t o, ptype t, ws_vc_op d) {
  if (t.bits == 32) return param_word(lw, pi, o, d);
  if (t.bits == 64) {
    int f = ws_kparams_find(lw->params, lw->nparams, pi, o, 8);
    if (f < 0) {
      ws_status r = param_word(lw, pi, o, word_of(d, 0));
      return r == WS_OK ? param_word(lw, pi, o + 4, word_of(d, 1)) : r;
    }
    const ws_ptx_pinfo *p = &lw->params[f];
    emit(lw, "LDP.64", 2, d, op_text("[%s+%u]", p->name, o - p->offset_bytes));
    if (track(lw) && p->offset_bytes == o && p->size_bytes == 8) lw->param_of[d.v] = (uint32_t)f + 1;
    return WS_OK;
  }
  uint32_t w = new_reg(lw, 1, false);
  ws_status r = param_word(lw, pi, o & ~3u, op_reg(w, 0, 1, true));
  if (r == WS_OK)
    emit(lw, t.kind == 's' ? "BFE.S32" : "BFE.U32", 4, d, op_reg(w, 0, 1, false), op_text("%u", (o & 3u) * 8),
         op_text("%u", t.bits));
  return r;
}

/* ld.param of a scalar or a vector (.v2, .v4) of 8 to 64 bits, element by element. */
static ws_status lower_ld_param(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ptype t = type_at(lw, 0);
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  if (o[1].kind != WS_PTX_OPND_ADDR) return refuse(lw, "a param name expected in '[ ]'");
  const ws_kparams_addr *via = o[1].base_is_reg ? ws_kparams_lookup(&lw->addrs, o[1].name) : NULL;
  if (o[1].base_is_reg && !via)
    return refuse(lw,
                  "'%s' is not traced to a param's address (a mov of the param's name, copies, constant "
                  "offsets)",
                  o[1].name);
  int pi = via ? (int)via->param : find_param(lw, o[1].name);
  if (pi < 0) return refuse(lw, "'%s' is not a param of '%s'", o[1].name, lw->e->name);
  const char *pname = lw->e->params[pi].name;
  if (t.bits < 8 || t.bits > 64) return refuse(lw, "params are read as 8, 16, 32 or 64 bits");
  uint8_t n = has(lw, "v4") ? 4 : has(lw, "v2") ? 2 : 1, words = t.bits == 64 ? 2 : 1;
  if (n > 1 && (o[0].kind != WS_PTX_OPND_VECTOR || o[0].nelems != n))
    return refuse(lw, "a vector of %u registers expected", n);
  uint32_t eb = t.bits / 8u, size = lw->e->params[pi].size_bytes;
  if (!ws_kparams_is_struct(&lw->e->params[pi]) && size != 4 && size != 8)
    return refuse(lw, "param '%s' is %u bytes; scalars of 4 and 8 bytes, pointers and structs are supported",
                  pname, size);
  for (uint8_t k = 0; k < n && r == WS_OK; k++) {
    int64_t at = o[1].ival + (via ? via->offset_bytes : 0) + (int64_t)k * eb;
    if (at < 0 || at + eb > size)
      return refuse(lw, "reads bytes %" PRId64 "..%" PRId64 " of param '%s', which has %u", at, at + eb - 1,
                    pname, size);
    if (at % eb)
      return refuse(lw, "a read of %u bytes at offset %" PRId64 " is not aligned to its size", eb, at);
    ws_ptx_opnd e = o[0];
    if (n > 1 && strcmp(o[0].elems[k], "_") == 0) continue;
    if (n > 1) e = (ws_ptx_opnd){.kind = WS_PTX_OPND_REG};
    if (n > 1) snprintf(e.name, sizeof e.name, "%s", o[0].elems[k]);
    ws_vc_op d;
    r = def_r(lw, &e, words, &d);
    if (r == WS_OK) r = param_elem(lw, (uint32_t)pi, (uint32_t)at, t, d);
  }
  return r;
}

/* The space an address operand lies in: the instruction's, or for a
 * generic access the space its base register was traced to. */
static space addr_space(lower *lw, const ws_ptx_opnd *addr) {
  if (has(lw, "global")) return SP_GLOBAL;
  if (has(lw, "shared")) return SP_SHARED;
  if (has(lw, "local")) return SP_LOCAL;
  if (has(lw, "const")) return SP_CONST;
  if (!addr->base_is_reg) {
    if (const_offset(lw, addr->name) != UINT32_MAX) return SP_CONST;
    return find_local(lw, addr->name) ? SP_LOCAL : find_shared(lw, addr->name) ? SP_SHARED : SP_GLOBAL;
  }
  slot s;
  if (reg_slot(lw, addr->name, &s, NULL) != WS_OK || !track(lw)) return SP_UNKNOWN;
  /* generic: global unless traced to a shared or local variable */
  space traced = (space)lw->space[s.v];
  return traced == SP_SHARED || traced == SP_LOCAL || traced == SP_CONST ? traced : SP_GLOBAL;
}

static ws_status address(lower *lw, const ws_ptx_opnd *addr, space sp, ws_vc_op *out) {
  if (addr->kind != WS_PTX_OPND_ADDR) return refuse(lw, "an address in '[ ]' expected");
  if (addr->ival < INT32_MIN || addr->ival > INT32_MAX)
    return refuse(lw, "the offset does not fit in 32 bits");
  memset(out, 0, sizeof *out);
  out->off = addr->ival;
  if (sp == SP_GLOBAL) {
    if (!addr->base_is_reg) return refuse(lw, "global variables are not supported; pass a pointer instead");
    ws_ptx_opnd base = {.kind = WS_PTX_OPND_REG};
    snprintf(base.name, sizeof base.name, "%s", addr->name);
    ws_vc_op b;
    ws_status r = use_r(lw, &base, 2, &b);
    if (r != WS_OK) return r;
    out->kind = WS_VC_GMEM, out->v = b.v, out->word = b.word, out->words = 2;
    if (track(lw) && lw->param_of[b.v]) lw->params[lw->param_of[b.v] - 1].is_ptr = true;
    return WS_OK;
  }
  out->kind = WS_VC_SMEM;
  out->v = WS_VC_NONE;
  const local_var *lv = sp == SP_LOCAL && !addr->base_is_reg ? find_local(lw, addr->name) : NULL;
  if (lv) {
    out->off += lv->offset_bytes;
    return WS_OK;
  }
  uint32_t coff = sp == SP_CONST && !addr->base_is_reg ? const_offset(lw, addr->name) : UINT32_MAX;
  if (sp == SP_CONST && !addr->base_is_reg && coff == UINT32_MAX)
    return refuse(lw, "'%s' is not a .const variable of the module", addr->name);
  if (coff != UINT32_MAX) {
    out->off += coff;
    return WS_OK;
  }
  if (!addr->base_is_reg) {
    ws_ptx_shared *sh = find_shared(lw, addr->name);
    if (!sh) return refuse(lw, "'%s' is not a shared variable of this kernel", addr->name);
    snprintf(out->text, sizeof out->text, "%s", sh->name);
    return WS_OK;
  }
  ws_ptx_opnd base = {.kind = WS_PTX_OPND_REG};
  snprintf(base.name, sizeof base.name, "%s", addr->name);
  slot s = {0, 0};
  decl *d = NULL;
  ws_status r = reg_slot(lw, base.name, &s, &d);
  if (r != WS_OK) return r;
  out->v = s.v, out->word = s.word, out->words = 1; /* a 64-bit shared address: its low word is the offset */
  return WS_OK;
}

/* Registers of a vector operand as one aligned group: the group the
 * pre-pass made of them, or a fresh one the caller copies through. */
static ws_status vector_group(lower *lw, const ws_ptx_opnd *vec, uint8_t ewords, bool def, ws_vc_op *group,
                              bool *direct) {
  uint8_t n = vec->nelems, words = (uint8_t)(n * ewords);
  slot first = {0, 0};
  *direct = true;
  for (uint8_t k = 0; k < n && *direct; k++) {
    slot s = {0, 0};
    if (strcmp(vec->elems[k], "_") == 0 || reg_slot(lw, vec->elems[k], &s, NULL) != WS_OK) {
      *direct = false;
      break;
    }
    if (k == 0) first = s;
    if (s.v != first.v || s.word != first.word + k * ewords || lw->vc->regs[s.v].words != words)
      *direct = false;
  }
  ws_ctx_clear(lw->ctx);
  if (*direct) {
    *group = op_reg(first.v, first.word, words, def);
    return WS_OK;
  }
  *group = op_reg(new_reg(lw, words, false), 0, words, def);
  return lw->vc->oom ? oom(lw) : WS_OK;
}

/* An 8- or 16-bit load as the aligned word holding it and a bit-field
 * extract (sign- or zero-extended as the type says): the ISA moves 4, 8 or
 * 16 bytes, and the word lies in the same sector as the byte. */
static ws_status narrow_load(lower *lw, ptype t) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (has(lw, "v2") || has(lw, "v4"))
    return refuse(lw, "a vector of two 8-bit values is not supported (vectors of 4 bytes or more are)");
  if (o[1].kind != WS_PTX_OPND_ADDR || !o[1].base_is_reg)
    return refuse(lw, "an address in a register expected");
  space sp = addr_space(lw, &o[1]);
  ws_vc_op m, d;
  ws_status r = address(lw, &o[1], sp, &m);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  if (sp == SP_SHARED && (m.v == WS_VC_NONE || m.text[0]))
    return refuse(lw, "a narrow shared load through a register address expected");
  uint32_t at = new_reg(lw, sp == SP_SHARED ? 1 : 2, false), sh = new_reg(lw, 1, false),
           w = new_reg(lw, 1, false);
  ws_vc_op base = op_reg(m.v, m.word, m.words, false);
  /* the byte address, then its word's address and the bit offset in it */
  if (sp == SP_SHARED) {
    emit(lw, "IADD", 3, op_reg(at, 0, 1, true), base, op_text("%d", (int)m.off));
  } else {
    ws_ptx_opnd off = {.kind = WS_PTX_OPND_INT, .ival = m.off};
    ws_vc_op k;
    r = use_r(lw, &off, 2, &k);
    if (r != WS_OK) return r;
    emit(lw, "IADD.64", 3, op_reg(at, 0, 2, true), base, k);
  }
  emit(lw, "AND", 3, op_reg(sh, 0, 1, true), op_reg(at, 0, 1, false), op_text("3"));
  emit(lw, "SHL", 3, op_reg(sh, 0, 1, true), op_reg(sh, 0, 1, false), op_text("3"));
  emit(lw, "AND", 3, op_reg(at, 0, 1, true), op_reg(at, 0, 1, false), op_text("0xFFFFFFFC"));
  ws_vc_op wm = m;
  wm.v = at, wm.word = 0, wm.off = 0;
  emit(lw, sp == SP_SHARED ? "LDS.32" : "LDG.32", 2, op_reg(w, 0, 1, true), wm);
  emit(lw, t.kind == 's' ? "BFE.S32" : "BFE.U32", 4, d, op_reg(w, 0, 1, false), op_reg(sh, 0, 1, false),
       op_text("%u", t.bits));
  return WS_OK;
}

/* The source register of element k of a vector operand (or of the scalar). */
static ws_status elem_use(lower *lw, const ws_ptx_opnd *o, uint8_t k, ws_vc_op *out) {
  if (o->kind != WS_PTX_OPND_VECTOR) return use_r(lw, o, 1, out);
  if (strcmp(o->elems[k], "_") == 0) return refuse(lw, "a register for every element expected");
  ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
  snprintf(e.name, sizeof e.name, "%s", o->elems[k]);
  return use_r(lw, &e, 1, out);
}

/* The ISA load of `bits` from space sp: LDS, LDL, LDC or LDG. */
static void load_mnemonic(char *buf, size_t n, space sp, unsigned bits) {
  const char *op = sp == SP_SHARED ? "LDS" : sp == SP_LOCAL ? "LDL" : sp == SP_CONST ? "LDC" : "LDG";
  snprintf(buf, n, "%s.%u", op, bits);
}

/* A vector of 8- or 16-bit values of 4 bytes or more: the aligned words
 * that hold it (PTX aligns a vector to its size), then a bit-field extract
 * per element at its constant bit offset. */
static ws_status narrow_vector_load(lower *lw, ptype t, uint8_t n) {
  const ws_ptx_opnd *o = lw->st->opnds;
  uint8_t words = (uint8_t)(n * t.bits / 32u);
  if (o[0].kind != WS_PTX_OPND_VECTOR || o[0].nelems != n)
    return refuse(lw, "a vector of %u registers expected", n);
  space sp = addr_space(lw, &o[1]);
  ws_vc_op m;
  ws_status r = address(lw, &o[1], sp, &m);
  if (r != WS_OK) return r;
  char mnem[24];
  load_mnemonic(mnem, sizeof mnem, sp, words * 32u);
  uint32_t w = new_reg(lw, words, false);
  emit(lw, mnem, 2, op_reg(w, 0, words, true), m);
  for (uint8_t k = 0; k < n && r == WS_OK; k++) {
    if (strcmp(o[0].elems[k], "_") == 0) continue;
    ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
    snprintf(e.name, sizeof e.name, "%s", o[0].elems[k]);
    ws_vc_op d;
    r = def_r(lw, &e, 1, &d);
    unsigned bit = k * t.bits;
    if (r == WS_OK)
      emit(lw, t.kind == 's' ? "BFE.S32" : "BFE.U32", 4, d, op_reg(w, (uint8_t)(bit / 32u), 1, false),
           op_text("%u", bit % 32u), op_text("%u", t.bits));
  }
  return r;
}

static ws_status lower_ld(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (has(lw, "param")) return lower_ld_param(lw);

  ptype t = type_at(lw, 0);
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  uint8_t n = has(lw, "v4") ? 4 : has(lw, "v2") ? 2 : 1, ew = t.bits == 64 ? 2 : 1;
  if (t.bits < 32 && n * t.bits >= 32) return narrow_vector_load(lw, t, n);
  if (t.bits < 32) return narrow_load(lw, t);
  uint8_t words = (uint8_t)(n * ew);
  if (words > 4) return refuse(lw, "at most 16 bytes per access");
  space sp = addr_space(lw, &o[1]);
  ws_vc_op m;
  r = address(lw, &o[1], sp, &m);
  if (r != WS_OK) return r;
  char mnem[24];
  load_mnemonic(mnem, sizeof mnem, sp, words * 32u);
  if (n == 1) {
    ws_vc_op d;
    r = def_r(lw, &o[0], ew, &d);
    if (r == WS_OK) emit(lw, mnem, 2, d, m);
    return r;
  }
  if (o[0].kind != WS_PTX_OPND_VECTOR || o[0].nelems != n)
    return refuse(lw, "a vector of %u registers expected", n);
  ws_vc_op g;
  bool direct;
  r = vector_group(lw, &o[0], ew, true, &g, &direct);
  if (r != WS_OK) return r;
  emit(lw, mnem, 2, g, m);
  for (uint8_t k = 0; !direct && k < n && r == WS_OK; k++) {
    if (strcmp(o[0].elems[k], "_") == 0) continue;
    ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
    snprintf(e.name, sizeof e.name, "%s", o[0].elems[k]);
    ws_vc_op x;
    r = def_r(lw, &e, ew, &x);
    ws_vc_op src = g;
    src.def = 0, src.word = (uint8_t)(g.word + k * ew), src.words = ew;
    for (uint8_t w = 0; r == WS_OK && w < ew; w++) emit(lw, "MOV", 2, word_of(x, w), word_of(src, w));
  }
  return r;
}

/* An 8- or 16-bit store: STG/STS/STL .8 or .16 of the low bits of the
 * value's register, writing only those bytes. A vector of them is packed
 * with PRMT into the words of one store of its total size, which PTX
 * aligns to that size: bytes pairwise (selector 0x0040), then halves
 * (0x5410). */
static ws_status narrow_store(lower *lw, ptype t, space sp, ws_vc_op m) {
  const ws_ptx_opnd *o = lw->st->opnds;
  uint8_t n = has(lw, "v4") ? 4 : has(lw, "v2") ? 2 : 1;
  unsigned bytes = n * t.bits / 8u;
  if (n > 1 && (o[1].kind != WS_PTX_OPND_VECTOR || o[1].nelems != n))
    return refuse(lw, "a vector of %u registers expected", n);
  ws_vc_op e[4];
  ws_status r = WS_OK;
  for (uint8_t k = 0; k < n && r == WS_OK; k++) r = elem_use(lw, &o[1], k, &e[k]);
  if (r != WS_OK) return r;
  char mnem[24];
  snprintf(mnem, sizeof mnem, "%s.%u", sp == SP_SHARED ? "STS" : sp == SP_LOCAL ? "STL" : "STG", bytes * 8u);
  if (n == 1) return emit(lw, mnem, 2, m, e[0]), WS_OK;
  uint8_t words = bytes > 4 ? 2 : 1;
  uint32_t v = new_reg(lw, words, false);
  if (t.bits == 16) {
    for (uint8_t w = 0; w < n / 2; w++)
      emit(lw, "PRMT", 4, op_reg(v, w, 1, true), e[2 * w], op_text("0x5410"), e[2 * w + 1]);
  } else {
    emit(lw, "PRMT", 4, op_reg(v, 0, 1, true), e[0], op_text("0x0040"), e[1]);
    if (n == 4) {
      uint32_t hi = new_reg(lw, 1, false);
      emit(lw, "PRMT", 4, op_reg(hi, 0, 1, true), e[2], op_text("0x0040"), e[3]);
      emit(lw, "PRMT", 4, op_reg(v, 0, 1, true), op_reg(v, 0, 1, false), op_text("0x5410"),
           op_reg(hi, 0, 1, false));
    }
  }
  emit(lw, mnem, 2, m, op_reg(v, 0, words, false));
  return lw->vc->oom ? oom(lw) : WS_OK;
}

static ws_status lower_st(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (has(lw, "param") || has(lw, "const"))
    return refuse(lw, "stores to the param and const spaces are not supported");
  ptype t = type_at(lw, 0);
  ws_status r = need(lw, 2);
  if (r != WS_OK) return r;
  uint8_t n = has(lw, "v4") ? 4 : has(lw, "v2") ? 2 : 1, ew = t.bits == 64 ? 2 : 1;
  uint8_t words = (uint8_t)(n * ew);
  if (words > 4) return refuse(lw, "at most 16 bytes per access");
  space sp = addr_space(lw, &o[0]);
  if (sp == SP_CONST) return refuse(lw, "a store to constant memory");
  ws_vc_op m, v;
  r = address(lw, &o[0], sp, &m);
  if (r != WS_OK) return r;
  if (t.bits < 32) return narrow_store(lw, t, sp, m);
  char mnem[24];
  snprintf(mnem, sizeof mnem, "%s.%u", sp == SP_SHARED ? "STS" : sp == SP_LOCAL ? "STL" : "STG", words * 32u);
  if (n == 1) {
    r = ew == 2 ? use64(lw, &o[1], &v) : use_r(lw, &o[1], 1, &v);
    if (r == WS_OK) emit(lw, mnem, 2, m, v);
    return r;
  }
  if (o[1].kind != WS_PTX_OPND_VECTOR || o[1].nelems != n)
    return refuse(lw, "a vector of %u registers expected", n);
  bool direct;
  r = vector_group(lw, &o[1], ew, false, &v, &direct);
  for (uint8_t k = 0; !direct && k < n && r == WS_OK; k++) {
    ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
    snprintf(e.name, sizeof e.name, "%s", o[1].elems[k]);
    ws_vc_op x;
    r = use_r(lw, &e, ew, &x);
    for (uint8_t w = 0; r == WS_OK && w < ew; w++)
      emit(lw, "MOV", 2, op_reg(v.v, (uint8_t)(k * ew + w), 1, true), word_of(x, w));
  }
  if (r == WS_OK) emit(lw, mnem, 2, m, v);
  return r;
}

static ws_status lower_atom(lower *lw, bool red) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ptype t = type_at(lw, 0);
  static const char *const ops[] = {"add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec"};
  const char *op = NULL;
  for (size_t i = 0; i < sizeof ops / sizeof *ops && !op; i++)
    if (has(lw, ops[i])) op = ops[i];
  if (!op)
    return refuse(lw, "atomic operation not supported; supported: add min max exch cas and or xor inc dec");
  if (t.bits != 32) return refuse(lw, "atomics are supported on 32-bit values");
  if (t.kind == 'f' && strcmp(op, "add") != 0) return refuse(lw, "float atomics are supported for add");
  bool cas = strcmp(op, "cas") == 0;
  unsigned first = red ? 0 : 1;
  ws_status r = need(lw, first + (cas ? 3u : 2u));
  if (r != WS_OK) return r;
  space sp = addr_space(lw, &o[first]);
  ws_vc_op m, b, c, d;
  r = address(lw, &o[first], sp, &m);
  if (r == WS_OK) r = use_r(lw, &o[first + 1], 1, &b);
  if (r == WS_OK && cas) r = use_r(lw, &o[first + 2], 1, &c);
  if (r != WS_OK) return r;
  if (red)
    d = op_reg(new_reg(lw, 1, false), 0, 1, true);
  else
    r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  char mnem[32], up[8];
  size_t i = 0;
  for (; op[i] && i < sizeof up - 1; i++) up[i] = (char)(op[i] - 'a' + 'A');
  up[i] = '\0';
  const char *suffix = "";
  if (strcmp(op, "add") == 0) suffix = t.kind == 'f' ? ".F32" : t.kind == 's' ? ".S32" : ".U32";
  if (strcmp(op, "min") == 0 || strcmp(op, "max") == 0) suffix = t.kind == 's' ? ".S32" : ".U32";
  snprintf(mnem, sizeof mnem, "%s.%s%s", sp == SP_SHARED ? "ATOMS" : "ATOMG", up, suffix);
  if (cas)
    emit(lw, mnem, 4, d, m, b, c);
  else
    emit(lw, mnem, 3, d, m, b);
  return WS_OK;
}

/* cp.async.{ca,cg}.shared.global [shared], [global], 4|8|16: an LDGSTS;
 * commit_group an LDGDEPBAR; wait_group N a DEPBAR N; wait_all both. */
static ws_status lower_cp(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (!has(lw, "async")) return refuse(lw, "instruction 'cp' is supported as cp.async");
  if (has(lw, "commit_group")) return emit(lw, "LDGDEPBAR", 0), WS_OK;
  if (has(lw, "wait_all")) {
    emit(lw, "LDGDEPBAR", 0);
    emit(lw, "DEPBAR", 1, op_text("0"));
    return WS_OK;
  }
  if (has(lw, "wait_group")) {
    if (lw->st->nopnds != 1 || o[0].kind != WS_PTX_OPND_INT || o[0].ival < 0 || o[0].ival > 255)
      return refuse(lw, "cp.async.wait_group takes a constant group count");
    emit(lw, "DEPBAR", 1, op_text("%d", (int)o[0].ival));
    return WS_OK;
  }
  if (!has(lw, "shared") || !has(lw, "global")) return refuse(lw, "cp.async copies global to shared memory");
  ws_status r = lw->st->nopnds == 4 ? refuse(lw, "cp.async with a source size (zero fill) is not supported")
                                    : need(lw, 3);
  if (r == WS_OK && (o[2].kind != WS_PTX_OPND_INT || (o[2].ival != 4 && o[2].ival != 8 && o[2].ival != 16)))
    r = refuse(lw, "cp.async copies 4, 8 or 16 bytes, without a source size (no zero fill)");
  if (r == WS_OK && (has(lw, "L2") || lw->nparts > 5))
    r = refuse(lw, "cache hints of cp.async are not supported");
  ws_vc_op dst, src;
  if (r == WS_OK) r = address(lw, &o[0], SP_SHARED, &dst);
  if (r == WS_OK) r = address(lw, &o[1], SP_GLOBAL, &src);
  char m[24];
  snprintf(m, sizeof m, "LDGSTS.%d", (int)o[2].ival * 8);
  if (r == WS_OK) emit(lw, m, 2, dst, src);
  return r;
}

/* The destination register of matrix i of an ldmatrix. */
static ws_status ldmatrix_dst(lower *lw, uint8_t n, uint8_t i, ws_vc_op *d) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
  snprintf(e.name, sizeof e.name, "%s", n == 1 && o[0].kind == WS_PTX_OPND_REG ? o[0].name : o[0].elems[i]);
  return def_r(lw, &e, 1, d);
}

/* Without .trans lane t receives, of matrix i, the word at column pair t%4
 * of the row whose address lane 8i + t/4 holds: per matrix a shuffle of
 * the row address and a 32-bit shared load (the same bank traffic, more
 * issue slots: docs/cuda.md). */
static ws_status ldmatrix_rows(lower *lw, uint8_t n, ws_vc_op base) {
  const ws_ptx_opnd *o = lw->st->opnds;
  uint32_t lane = new_reg(lw, 1, false), q = new_reg(lw, 1, false), col = new_reg(lw, 1, false);
  uint32_t src = new_reg(lw, 1, false), row = new_reg(lw, 1, false), at = new_reg(lw, 1, false);
  emit(lw, "S2R", 2, op_reg(lane, 0, 1, true), op_text("SR_LANEID"));
  emit(lw, "SHR.U32", 3, op_reg(q, 0, 1, true), op_reg(lane, 0, 1, false), op_text("2"));
  emit(lw, "AND", 3, op_reg(col, 0, 1, true), op_reg(lane, 0, 1, false), op_text("3"));
  emit(lw, "SHL", 3, op_reg(col, 0, 1, true), op_reg(col, 0, 1, false), op_text("2"));
  if (o[1].ival)
    emit(lw, "IADD", 3, op_reg(col, 0, 1, true), op_reg(col, 0, 1, false), op_text("%d", (int)o[1].ival));
  ws_status r = WS_OK;
  for (uint8_t i = 0; i < n && r == WS_OK; i++) {
    ws_vc_op d;
    r = ldmatrix_dst(lw, n, i, &d);
    if (r != WS_OK) break;
    emit(lw, "IADD", 3, op_reg(src, 0, 1, true), op_reg(q, 0, 1, false), op_text("%u", 8u * i));
    emit(lw, "SHFL.IDX", 3, op_reg(row, 0, 1, true), base, op_reg(src, 0, 1, false));
    emit(lw, "IADD", 3, op_reg(at, 0, 1, true), op_reg(row, 0, 1, false), op_reg(col, 0, 1, false));
    ws_vc_op m = {.kind = WS_VC_SMEM, .v = at, .words = 1};
    emit(lw, "LDS.32", 2, d, m);
  }
  return r;
}

/* With .trans lane t receives, of matrix i, column t/4 of rows 2(t%4) and
 * 2(t%4) + 1 (the low half from the first): per matrix two shuffles fetch
 * those rows' addresses from lanes 8i + 2(t%4) and the next, two 32-bit
 * shared loads read the word holding the column in each row, and a PRMT
 * packs the column's halves (selector 0x5410 for an even column, 0x7632 for
 * an odd one). The two loads touch the same 128 bytes per matrix as the
 * hardware's one. */
static ws_status ldmatrix_trans(lower *lw, uint8_t n, ws_vc_op base) {
  const ws_ptx_opnd *o = lw->st->opnds;
  uint32_t lane = new_reg(lw, 1, false), pair = new_reg(lw, 1, false), word = new_reg(lw, 1, false);
  uint32_t sel = new_reg(lw, 1, false), src = new_reg(lw, 1, false), row = new_reg(lw, 1, false);
  uint32_t w0 = new_reg(lw, 1, false), w1 = new_reg(lw, 1, false);
  emit(lw, "S2R", 2, op_reg(lane, 0, 1, true), op_text("SR_LANEID"));
  emit(lw, "AND", 3, op_reg(pair, 0, 1, true), op_reg(lane, 0, 1, false), op_text("3"));
  emit(lw, "SHL", 3, op_reg(pair, 0, 1, true), op_reg(pair, 0, 1, false), op_text("1"));
  emit(lw, "SHR.U32", 3, op_reg(word, 0, 1, true), op_reg(lane, 0, 1, false), op_text("3"));
  emit(lw, "SHL", 3, op_reg(word, 0, 1, true), op_reg(word, 0, 1, false), op_text("2"));
  if (o[1].ival)
    emit(lw, "IADD", 3, op_reg(word, 0, 1, true), op_reg(word, 0, 1, false), op_text("%d", (int)o[1].ival));
  emit(lw, "BFE.U32", 4, op_reg(sel, 0, 1, true), op_reg(lane, 0, 1, false), op_text("2"), op_text("1"));
  emit(lw, "IMUL", 3, op_reg(sel, 0, 1, true), op_reg(sel, 0, 1, false), op_text("0x2222"));
  emit(lw, "IADD", 3, op_reg(sel, 0, 1, true), op_reg(sel, 0, 1, false), op_text("0x5410"));
  ws_status r = WS_OK;
  for (uint8_t i = 0; i < n && r == WS_OK; i++) {
    ws_vc_op d;
    r = ldmatrix_dst(lw, n, i, &d);
    if (r != WS_OK) break;
    for (uint32_t k = 0; k < 2; k++) {
      uint32_t w = k ? w1 : w0;
      emit(lw, "IADD", 3, op_reg(src, 0, 1, true), op_reg(pair, 0, 1, false), op_text("%u", 8u * i + k));
      emit(lw, "SHFL.IDX", 3, op_reg(row, 0, 1, true), base, op_reg(src, 0, 1, false));
      emit(lw, "IADD", 3, op_reg(row, 0, 1, true), op_reg(row, 0, 1, false), op_reg(word, 0, 1, false));
      ws_vc_op m = {.kind = WS_VC_SMEM, .v = row, .words = 1};
      emit(lw, "LDS.32", 2, op_reg(w, 0, 1, true), m);
    }
    emit(lw, "PRMT", 4, d, op_reg(w0, 0, 1, false), op_reg(sel, 0, 1, false), op_reg(w1, 0, 1, false));
  }
  return r;
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: each lane holds
 * the address of one row of a matrix (lanes 8i..8i+7 those of matrix i).
 * The ISA has no such load; ldmatrix_rows and ldmatrix_trans emulate it. */
static ws_status lower_ldmatrix(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  uint8_t n = has(lw, "x4") ? 4 : has(lw, "x2") ? 2 : has(lw, "x1") ? 1 : 0;
  if (!n || !has(lw, "m8n8") || !has(lw, "shared"))
    return refuse(lw, "ldmatrix is supported as ldmatrix.sync.aligned.m8n8.x1/.x2/.x4[.trans].shared.b16");
  ws_status r = need(lw, 2);
  if (r == WS_OK && (o[0].kind != WS_PTX_OPND_VECTOR || o[0].nelems != n) &&
      !(n == 1 && o[0].kind == WS_PTX_OPND_REG))
    r = refuse(lw, "a vector of %u registers expected", n);
  if (r == WS_OK && (o[1].kind != WS_PTX_OPND_ADDR || !o[1].base_is_reg))
    r = refuse(lw, "a shared address in a register expected");
  ws_vc_op base;
  ws_ptx_opnd b = {.kind = WS_PTX_OPND_REG};
  if (r == WS_OK) snprintf(b.name, sizeof b.name, "%s", o[1].name), r = use_r(lw, &b, 1, &base);
  if (r != WS_OK) return r;
  return has(lw, "trans") ? ldmatrix_trans(lw, n, base) : ldmatrix_rows(lw, n, base);
}

/* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: one HMMA, whose
 * fragments are PTX's (docs/isa.md); operands as aligned groups. */
static ws_status lower_mma(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (!has(lw, "m16n8k16") || !has(lw, "row") || !has(lw, "col") || type_at(lw, 0).kind != 'f' ||
      type_at(lw, 0).bits != 32 || type_at(lw, 1).bits != 16 || type_at(lw, 3).bits != 32)
    return refuse(lw, "mma is supported as mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  ws_status r = need(lw, 4);
  static const uint8_t n[4] = {4, 4, 2, 4};
  for (int i = 0; r == WS_OK && i < 4; i++)
    if (o[i].kind != WS_PTX_OPND_VECTOR || o[i].nelems != n[i])
      r = refuse(lw, "register vectors of 4, 4, 2 and 4 expected");
  ws_vc_op g[4];
  bool direct[4];
  for (int i = 1; r == WS_OK && i < 4; i++) {
    r = vector_group(lw, &o[i], 1, false, &g[i], &direct[i]);
    for (uint8_t k = 0; r == WS_OK && !direct[i] && k < n[i]; k++) {
      ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
      snprintf(e.name, sizeof e.name, "%s", o[i].elems[k]);
      ws_vc_op x;
      r = use_r(lw, &e, 1, &x);
      if (r == WS_OK) emit(lw, "MOV", 2, op_reg(g[i].v, k, 1, true), x);
    }
  }
  if (r == WS_OK) r = vector_group(lw, &o[0], 1, true, &g[0], &direct[0]);
  if (r != WS_OK) return r;
  emit(lw, "HMMA.16816.F32", 4, g[0], g[1], g[2], g[3]);
  for (uint8_t k = 0; !direct[0] && k < 4 && r == WS_OK; k++) {
    ws_ptx_opnd e = {.kind = WS_PTX_OPND_REG};
    snprintf(e.name, sizeof e.name, "%s", o[0].elems[k]);
    ws_vc_op x;
    r = def_r(lw, &e, 1, &x);
    if (r == WS_OK) emit(lw, "MOV", 2, x, op_reg(g[0].v, k, 1, false));
  }
  return r;
}

/* ---- warps, barriers, control --------------------------------------------------------------------- */

static ws_status lower_shfl(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  static const char *const modes[] = {"up", "down", "bfly", "idx"};
  const char *mode = NULL;
  for (size_t i = 0; i < 4 && !mode; i++)
    if (has(lw, modes[i])) mode = modes[i];
  if (!mode) return refuse(lw, "shfl needs .up, .down, .bfly or .idx");
  ws_status r = need(lw, has(lw, "sync") ? 5 : 4);
  if (r != WS_OK) return r;
  const ws_ptx_opnd *c = &o[3];
  bool up = strcmp(mode, "up") == 0;
  if (c->kind != WS_PTX_OPND_INT || (up ? c->ival != 0 : (c->ival & 0x1f1f) != 0x1f))
    return refuse(lw, "shfl is supported over the whole warp (c = %s)", up ? "0" : "31");
  if (has(lw, "sync") && (o[4].kind != WS_PTX_OPND_INT || (uint32_t)o[4].ival != 0xFFFFFFFFu))
    return refuse(lw, "shfl.sync is supported with the full member mask 0xffffffff");
  ws_vc_op d, a, b;
  r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = use_i(lw, &o[2], &b);
  char m[24];
  snprintf(m, sizeof m, "SHFL.%s",
           up                          ? "UP"
           : strcmp(mode, "down") == 0 ? "DOWN"
           : mode[0] == 'b'            ? "BFLY"
                                       : "IDX");
  if (r == WS_OK) emit(lw, m, 3, d, a, b);
  return r;
}

static ws_status lower_vote(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, has(lw, "sync") ? 3 : 2);
  if (r != WS_OK) return r;
  ws_vc_op d, a;
  r = use_p(lw, &o[1], &a);
  if (r != WS_OK) return r;
  if (has(lw, "ballot")) {
    r = def_r(lw, &o[0], 1, &d);
    if (r == WS_OK) emit(lw, "VOTE.BALLOT", 2, d, a);
    return r;
  }
  if (!has(lw, "any") && !has(lw, "all")) return refuse(lw, "vote is supported as .ballot, .any and .all");
  r = def_p(lw, &o[0], &d);
  if (r == WS_OK) emit(lw, has(lw, "any") ? "VOTE.ANY" : "VOTE.ALL", 2, d, a);
  return r;
}

/* match.all.sync.b32/.b64 d[|p], a, 0xffffffff: every lane holds lane 0's
 * value or not (a full mask: the warp is converged, lane 0 active), so a
 * shuffle from lane 0, a compare and two votes answer it in four
 * instructions (seven for 64 bits, one more for p); d is the member mask
 * when they all agree, else 0.
 * match.any, the mask of the lanes holding the lane's own value, has no
 * such cheap form (one shuffle and vote per lane) and is refused. */
static ws_status lower_match(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (!has(lw, "all"))
    return refuse(lw, "match is supported as match.all.sync (match.any has no cheap lowering)");
  bool two = lw->st->nopnds == 4;
  if (lw->st->nopnds != 3 && !two) return need(lw, 3);
  const ws_ptx_opnd *mask = &o[two ? 3 : 2];
  if (mask->kind != WS_PTX_OPND_INT || (uint32_t)mask->ival != 0xFFFFFFFFu)
    return refuse(lw, "match.all.sync is supported with the full member mask 0xffffffff");
  uint8_t words = has(lw, "b64") ? 2 : 1;
  ws_vc_op d, a, p = {0};
  ws_status r = def_r(lw, &o[0], 1, &d);
  if (r == WS_OK) r = use_r(lw, &o[two ? 2 : 1], words, &a);
  if (r == WS_OK && two) r = def_p(lw, &o[1], &p);
  if (r != WS_OK) return r;
  uint32_t same[2];
  for (uint8_t w = 0; w < words; w++) {
    uint32_t lane0 = new_reg(lw, 1, false);
    same[w] = new_reg(lw, 1, true);
    emit(lw, "SHFL.IDX", 3, op_reg(lane0, 0, 1, true), word_of(a, w), op_text("0"));
    emit(lw, "ISETP.EQ.U32", 3, op_pred(same[w], false, true), word_of(a, w), op_reg(lane0, 0, 1, false));
  }
  if (words == 2) /* both words agree */
    emit(lw, "PAND", 3, op_pred(same[0], false, true), op_pred(same[0], false, false),
         op_pred(same[1], false, false));
  uint32_t all = new_reg(lw, 1, true);
  emit(lw, "VOTE.ALL", 2, op_pred(all, false, true), op_pred(same[0], false, false));
  /* every lane holds the same `all`: its ballot is the whole warp or none */
  emit(lw, "VOTE.BALLOT", 2, d, op_pred(all, false, false));
  if (two) emit(lw, "PAND", 3, p, op_pred(all, false, false), op_text("PT"));
  return WS_OK;
}

static ws_status lower_bar(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  if (has(lw, "warp")) { /* __syncwarp: a warp's lanes run in step once reconverged; the issue slot stays */
    if (lw->st->nopnds != 1 || o[0].kind != WS_PTX_OPND_INT || (uint32_t)o[0].ival != 0xFFFFFFFFu)
      return refuse(lw, "bar.warp.sync is supported with the full mask 0xffffffff");
    emit(lw, "NOP", 0);
    return WS_OK;
  }
  if (has(lw, "arrive") || has(lw, "red"))
    return refuse(lw, "barrier arrive and reductions are not supported");
  if (lw->st->nopnds < 1 || o[0].kind != WS_PTX_OPND_INT || o[0].ival != 0 || lw->st->nopnds > 1)
    return refuse(lw, "barrier 0 over the whole CTA is supported (bar.sync 0)");
  emit(lw, "BAR.SYNC", 0);
  return WS_OK;
}

static ws_status lower_bra(lower *lw) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_status r = need(lw, 1);
  if (r == WS_OK && o[0].kind != WS_PTX_OPND_SYMBOL) r = refuse(lw, "a label expected");
  if (r != WS_OK) return r;
  ws_vc_insn *in = emit(lw, "BRA", 1, op_text("%s", o[0].name));
  if (in) {
    in->is_branch = 1;
    snprintf(in->label, sizeof in->label, "%s", o[0].name);
  }
  return WS_OK;
}

static ws_status lower_exit(lower *lw) {
  ws_vc_insn *in = emit(lw, "EXIT", 0);
  if (in) in->is_exit = 1;
  return WS_OK;
}

static ws_status lower_fence(lower *lw) {
  /* the memory system keeps every access of a warp in order, so a fence
   * orders nothing more; it costs its issue slot */
  emit(lw, "NOP", 0);
  return WS_OK;
}

static ws_status lower_activemask(lower *lw) {
  ws_vc_op d;
  ws_status r = need(lw, 1);
  if (r == WS_OK) r = def_r(lw, &lw->st->opnds[0], 1, &d);
  if (r == WS_OK) emit(lw, "VOTE.BALLOT", 2, d, op_text("PT"));
  return r;
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

static ws_status lower_fma(lower *lw) {
  if (!has(lw, "rn")) return refuse(lw, "fma is supported with .rn");
  return lower_mad(lw);
}

/* ---- half precision ------------------------------------------------------------------------------ */

/* The ISA's format for a half type suffix (scalar .f16 and .bf16 live in the
 * low half of a register, high half 0); NULL when the statement has none. */
static const char *half_format(const lower *lw) {
  static const struct {
    const char *ptx, *ws;
  } map[] = {{"f16", "F16"}, {"f16x2", "F16_V2"}, {"bf16", "BF16"}, {"bf16x2", "BF16_V2"}};
  for (int i = lw->nparts - 1; i > 0; i--)
    for (size_t k = 0; k < sizeof map / sizeof *map; k++)
      if (strcmp(lw->parts[i], map[k].ptx) == 0) return map[k].ws;
  return NULL;
}

static bool half_arith(const lower *lw) {
  static const char *const arith[] = {"add", "sub", "mul", "mad",  "fma", "min",
                                      "max", "neg", "abs", "setp", "div"};
  if (!half_format(lw)) return false;
  for (size_t i = 0; i < sizeof arith / sizeof *arith; i++)
    if (strcmp(lw->parts[0], arith[i]) == 0) return true;
  return false;
}

/* The modifiers the half instructions do not model, refused by name. */
static ws_status half_mods(lower *lw) {
  static const char *const refused[] = {"ftz", "sat", "rz", "rm", "rp", "NaN", "xorsign", "relu", "oob"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (has(lw, refused[i]))
      return refuse(lw,
                    ".%s on half-precision arithmetic is not supported (round to nearest, subnormals kept)",
                    refused[i]);
  return WS_OK;
}

/* d = a OP b (OP c): HADD2, HMUL2, HFMA2 or HMNMX2 (min/max) in `fmt`. */
static ws_status half_arith3(lower *lw, const char *op, const char *fmt, unsigned nsrc) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, src[3];
  ws_status r = need(lw, nsrc + 1);
  for (unsigned i = 0; r == WS_OK && i < nsrc; i++) r = use_r(lw, &o[i + 1], 1, &src[i]);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  char m[32];
  if (!strcmp(op, "min") || !strcmp(op, "max")) {
    snprintf(m, sizeof m, "HMNMX2.%s", fmt);
    emit(lw, m, 4, d, src[0], src[1], op_text(op[1] == 'i' ? "PT" : "!PT"));
    return WS_OK;
  }
  if (!strcmp(op, "sub")) src[1].neg = 1;
  snprintf(m, sizeof m, "%s.%s", !strcmp(op, "mul") ? "HMUL2" : !strcmp(op, "fma") ? "HFMA2" : "HADD2", fmt);
  if (nsrc == 3)
    emit(lw, m, 4, d, src[0], src[1], src[2]);
  else
    emit(lw, m, 3, d, src[0], src[1]);
  return WS_OK;
}

/* neg and abs touch only sign bits, as PTX defines them (a NaN keeps its
 * payload): one integer op on both halves, or on the low one. */
static ws_status half_sign(lower *lw, bool is_abs, const char *fmt) {
  const ws_ptx_opnd *o = lw->st->opnds;
  ws_vc_op d, a;
  ws_status r = need(lw, 2);
  if (r == WS_OK) r = use_r(lw, &o[1], 1, &a);
  if (r == WS_OK) r = def_r(lw, &o[0], 1, &d);
  if (r != WS_OK) return r;
  bool two = strstr(fmt, "_V2") != NULL;
  if (is_abs)
    emit(lw, "AND", 3, d, a, op_text(two ? "0x7FFF7FFF" : "0x7FFF"));
  else
    emit(lw, "XOR", 3, d, a, op_text(two ? "0x80008000" : "0x8000"));
  return WS_OK;
}

/* setp on halves: HSETP2 writes the low halves' result and (f16x2, bf16x2)
 * the high halves'; a boolean operation combines each with c. Scalar p|q
 * is p and its negation, as for other types. */
static ws_status half_setp(lower *lw, const char *fmt) {
  const ws_ptx_opnd *o = lw->st->opnds;
  const char *bop = has(lw, "and") ? "PAND" : has(lw, "or") ? "POR" : has(lw, "xor") ? "PXOR" : NULL;
  unsigned srcs = bop ? 3 : 2;
  bool two = lw->st->nopnds == srcs + 2, pair = strstr(fmt, "_V2") != NULL;
  if (lw->st->nopnds != srcs + 1 && !two) return need(lw, srcs + 1);
  if (pair && !two) return refuse(lw, "setp on a half pair writes two predicates (p|q)");
  bool uns = false;
  const char *c = cmp_name(lw->nparts > 1 ? lw->parts[1] : "", true, &uns);
  if (!c || uns) return refuse(lw, "comparison '%s' is not supported for this type", lw->parts[1]);
  ws_vc_op a, b, p, q = op_text("PT"), k = op_text("PT");
  ws_status r = use_r(lw, &o[two ? 2 : 1], 1, &a);
  if (r == WS_OK) r = use_r(lw, &o[two ? 3 : 2], 1, &b);
  if (r == WS_OK) r = def_p(lw, &o[0], &p);
  if (r == WS_OK && two) r = def_p(lw, &o[1], &q);
  if (r == WS_OK && bop) r = use_p(lw, &o[srcs + (two ? 1 : 0)], &k);
  if (r != WS_OK) return r;
  char m[32];
  snprintf(m, sizeof m, "HSETP2.%s.%s", c, fmt);
  if (!bop && (pair || !two)) {
    emit(lw, m, 4, p, pair ? q : op_text("PT"), a, b);
    return WS_OK;
  }
  uint32_t lo = new_reg(lw, 1, true), hi = new_reg(lw, 1, true);
  ws_vc_op L = op_pred(lo, false, false), H = op_pred(pair ? hi : lo, !pair, false);
  emit(lw, m, 4, op_pred(lo, false, true), pair ? op_pred(hi, false, true) : op_text("PT"), a, b);
  emit(lw, bop ? bop : "PAND", 3, p, L, k);
  if (two) emit(lw, bop ? bop : "PAND", 3, q, H, k);
  return WS_OK;
}

static ws_status lower_half(lower *lw) {
  const char *op = lw->parts[0], *fmt = half_format(lw);
  ws_status r = half_mods(lw);
  if (r != WS_OK) return r;
  if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul")) return half_arith3(lw, op, fmt, 2);
  if (!strcmp(op, "min") || !strcmp(op, "max")) return half_arith3(lw, op, fmt, 2);
  if (!strcmp(op, "fma"))
    return has(lw, "rn") ? half_arith3(lw, op, fmt, 3) : refuse(lw, "fma is supported with .rn");
  if (!strcmp(op, "neg") || !strcmp(op, "abs")) return half_sign(lw, op[0] == 'a', fmt);
  if (!strcmp(op, "setp")) return half_setp(lw, fmt);
  return refuse(lw, "%s on half precision is not supported (convert to f32)", op);
}

static ws_status dispatch(lower *lw) {
  const char *op = lw->parts[0];
  if (half_arith(lw)) return lower_half(lw);
  if (!strcmp(op, "add")) return lower_add(lw, false);
  if (!strcmp(op, "sub")) return lower_add(lw, true);
  if (!strcmp(op, "mul")) return lower_mul(lw);
  if (!strcmp(op, "mad")) return lower_mad(lw);
  if (!strcmp(op, "fma")) return lower_fma(lw);
  if (!strcmp(op, "div")) return lower_divrem(lw, false);
  if (!strcmp(op, "rem")) return lower_divrem(lw, true);
  if (!strcmp(op, "min")) return lower_minmax(lw, false);
  if (!strcmp(op, "max")) return lower_minmax(lw, true);
  if (!strcmp(op, "neg")) return lower_neg_abs(lw, false);
  if (!strcmp(op, "abs")) return lower_neg_abs(lw, true);
  if (!strcmp(op, "and")) return lower_logic(lw, "AND", "PAND");
  if (!strcmp(op, "or")) return lower_logic(lw, "OR", "POR");
  if (!strcmp(op, "xor")) return lower_logic(lw, "XOR", "PXOR");
  if (!strcmp(op, "not")) return lower_not(lw);
  if (!strcmp(op, "shl")) return lower_shift(lw, true);
  if (!strcmp(op, "shr")) return lower_shift(lw, false);
  if (!strcmp(op, "popc")) return unary32(lw, "POPC");
  if (!strcmp(op, "clz")) return unary32(lw, "CLZ");
  if (!strcmp(op, "brev")) return unary32(lw, "BREV");
  if (!strcmp(op, "bfe")) return lower_bfe(lw);
  if (!strcmp(op, "bfi")) return lower_bfi(lw);
  if (!strcmp(op, "prmt")) return lower_prmt(lw);
  if (!strcmp(op, "mov")) return lower_mov(lw);
  if (!strcmp(op, "selp")) return lower_selp(lw);
  if (!strcmp(op, "setp")) return lower_setp(lw);
  if (!strcmp(op, "cvt")) return lower_cvt(lw);
  if (!strcmp(op, "cvta")) return lower_cvta(lw);
  if (!strcmp(op, "rcp")) return lower_rcp(lw);
  if (!strcmp(op, "sqrt")) return lower_sfu(lw, "MUFU.SQRT");
  if (!strcmp(op, "rsqrt")) return lower_sfu(lw, "MUFU.RSQ");
  if (!strcmp(op, "ex2")) return lower_sfu(lw, "MUFU.EX2");
  if (!strcmp(op, "lg2")) return lower_sfu(lw, "MUFU.LG2");
  if (!strcmp(op, "sin")) return lower_sfu(lw, "MUFU.SIN");
  if (!strcmp(op, "cos")) return lower_sfu(lw, "MUFU.COS");
  if (!strcmp(op, "tanh")) return lower_sfu(lw, "MUFU.TANH");
  if (!strcmp(op, "ld") || !strcmp(op, "ldu")) return lower_ld(lw);
  if (!strcmp(op, "st")) return lower_st(lw);
  if (!strcmp(op, "atom")) return lower_atom(lw, false);
  if (!strcmp(op, "red")) return lower_atom(lw, true);
  if (!strcmp(op, "shfl")) return lower_shfl(lw);
  if (!strcmp(op, "vote")) return lower_vote(lw);
  if (!strcmp(op, "bar") || !strcmp(op, "barrier")) return lower_bar(lw);
  if (!strcmp(op, "bra")) return lower_bra(lw);
  if (!strcmp(op, "ret") || !strcmp(op, "exit")) return lower_exit(lw);
  if (!strcmp(op, "membar") || !strcmp(op, "fence")) return lower_fence(lw);
  if (!strcmp(op, "activemask")) return lower_activemask(lw);
  if (!strcmp(op, "match")) return lower_match(lw);
  if (!strcmp(op, "cp")) return lower_cp(lw);
  if (!strcmp(op, "mma")) return lower_mma(lw);
  if (!strcmp(op, "ldmatrix")) return lower_ldmatrix(lw);
  return refuse(lw, "instruction '%s' is not supported; docs/cuda.md lists what is", op);
}

/* ---- the entry ------------------------------------------------------------------------------------ */

/* The name a .wsa gives a PTX variable: a C++ function-local static
 * (_ZZ...E<len><name>) by its own name, else the PTX name, shortened and
 * made unique among the kernel's symbols. */
static void symbol_name(lower *lw, const char *ptx, char *out, size_t n) {
  const char *base = ptx;
  const char *e = strrchr(ptx, 'E');
  if (strncmp(ptx, "_ZZ", 3) == 0 && e && e[1] >= '1' && e[1] <= '9') {
    char *end = NULL;
    unsigned long len = strtoul(e + 1, &end, 10);
    if (end && strlen(end) == len) base = end;
  }
  snprintf(out, n, "%.*s", (int)(n - 8), base);
  for (char *c = out; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
      *c = '_';
  if (out[0] >= '0' && out[0] <= '9') out[0] = '_';
  char cand[WS_PTX_SYM_MAX + 1];
  snprintf(cand, sizeof cand, "%s", out);
  for (unsigned k = 1;; k++) {
    bool taken = false;
    for (size_t i = 0; i < lw->nshared && !taken; i++) taken = strcmp(lw->shared[i].name, cand) == 0;
    if (!taken) break;
    snprintf(cand, sizeof cand, "%.*s_%u", WS_PTX_SYM_MAX - 12, out, k);
  }
  snprintf(out, n, "%s", cand);
}

/* A .local variable takes the next aligned place in the thread's window. */
static ws_status add_local(lower *lw, const ws_ptx_stmt *v) {
  if (find_local(lw, v->name)) return WS_OK;
  uint32_t align = v->align_bytes < 4 ? 4 : v->align_bytes;
  uint64_t at = ((uint64_t)lw->local_bytes + align - 1) / align * align,
           end = at + (v->size_bytes + 3) / 4 * 4;
  if (end > WS_LOCAL_MAX_BYTES) {
    lw->st = v;
    return refuse(lw, "local variables of more than %u bytes per thread", WS_LOCAL_MAX_BYTES);
  }
  if (!ws_grow((void **)&lw->locals, &lw->locals_cap, lw->nlocals, sizeof *lw->locals, 32)) return oom(lw);
  local_var *lv = &lw->locals[lw->nlocals++];
  snprintf(lv->name, sizeof lv->name, "%s", v->name);
  lv->offset_bytes = (uint32_t)at;
  lw->local_bytes = (uint32_t)end;
  return WS_OK;
}

static ws_status add_shared(lower *lw, const ws_ptx_stmt *v) {
  if (strcmp(v->space, ".local") == 0) return add_local(lw, v);
  if (strcmp(v->space, ".const") == 0 && const_offset(lw, v->name) != UINT32_MAX) return WS_OK;
  if (strcmp(v->space, ".shared") != 0) {
    lw->st = v;
    return refuse(lw, "%s variables are not supported yet; only .shared ones", v->space);
  }
  if (own_shared(lw, v->name)) return WS_OK;
  if (!ws_grow((void **)&lw->shared, &lw->shared_cap, lw->nshared, sizeof *lw->shared, 32)) return oom(lw);
  ws_ptx_shared *sh = &lw->shared[lw->nshared];
  memset(sh, 0, sizeof *sh);
  snprintf(sh->ptx_name, sizeof sh->ptx_name, "%s", v->name);
  symbol_name(lw, v->name, sh->name, sizeof sh->name);
  sh->size_bytes = v->size_bytes;
  sh->align_bytes = v->align_bytes ? v->align_bytes : 4;
  sh->is_extern = v->is_extern || v->size_bytes == 0;
  lw->nshared++;
  return WS_OK;
}

/* The destinations' names of a statement whose first operand is written. */
static bool writes_first(const ws_ptx_stmt *st) {
  static const char *const no_def[] = {"st",  "red",  "bar",    "barrier", "bra",
                                       "ret", "exit", "membar", "fence"};
  size_t n = strcspn(st->op, ".");
  for (size_t i = 0; i < sizeof no_def / sizeof *no_def; i++)
    if (strlen(no_def[i]) == n && strncmp(st->op, no_def[i], n) == 0) return false;
  return st->nopnds > 0;
}

static void count_def(lower *lw, const char *name) {
  uint32_t k = 0;
  decl *d = find_decl(lw, name, &k);
  if (d && d->defs[k] < UINT16_MAX) d->defs[k]++;
}

/* The registers of a vector operand as the words of one aligned group,
 * when they are distinct 32-bit registers not grouped yet: a named 32-bit
 * register is just as well a word of a pair or quad, and a vector access
 * then needs no copies (a loop-carried copy between two groups, word by
 * word, the allocator can then leave out too). */
static void group_vector(lower *lw, const ws_ptx_opnd *v) {
  if (v->kind != WS_PTX_OPND_VECTOR || (v->nelems != 2 && v->nelems != 4)) return;
  decl *ds[4];
  uint32_t ks[4];
  for (uint8_t k = 0; k < v->nelems; k++) {
    ds[k] = find_decl(lw, v->elems[k], &ks[k]);
    if (!ds[k] || ds[k]->is_pred || ds[k]->words != 1 || ds[k]->slots[ks[k]].v != WS_VC_NONE) return;
    for (uint8_t j = 0; j < k; j++)
      if (ds[j] == ds[k] && ks[j] == ks[k]) return;
  }
  uint32_t g = new_reg(lw, v->nelems, false);
  for (uint8_t k = 0; k < v->nelems; k++) ds[k]->slots[ks[k]] = (slot){g, k};
}

/* The vector operands of loads (destination), stores (source) and mma
 * (D, then C), in program order. */
static void group_vectors(lower *lw, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    const ws_ptx_stmt *st = &lw->e->stmts[i];
    if (st->kind != WS_PTX_INSN || st->nopnds < 2) continue;
    if (strncmp(st->op, "ld.", 3) == 0) group_vector(lw, &st->opnds[0]);
    if (strncmp(st->op, "st.", 3) == 0) group_vector(lw, &st->opnds[1]);
    if (strncmp(st->op, "mma.", 4) == 0 && st->nopnds == 4) {
      group_vector(lw, &st->opnds[0]);
      group_vector(lw, &st->opnds[3]);
    }
  }
}

static ws_status prepass(lower *lw) {
  for (size_t i = 0; i < lw->e->nstmts; i++) {
    const ws_ptx_stmt *st = &lw->e->stmts[i];
    if (st->kind != WS_PTX_INSN || !writes_first(st)) continue;
    const ws_ptx_opnd *o = &st->opnds[0];
    if (o->kind == WS_PTX_OPND_REG) count_def(lw, o->name);
    for (uint8_t k = 0; o->kind == WS_PTX_OPND_VECTOR && k < o->nelems; k++) count_def(lw, o->elems[k]);
  }
  return WS_OK;
}

/* Whether the instruction is an f32 add, sub, mul, fma, mad or cvt with
 * .sat, which is then taken off the suffixes (the operation runs as
 * without it, then saturate clamps its result). */
static bool take_sat(lower *lw) {
  static const char *const ops[] = {"add", "sub", "mul", "fma", "mad", "cvt"};
  int at = 0;
  for (int i = 1; i < lw->nparts; i++)
    if (strcmp(lw->parts[i], "sat") == 0) at = i;
  ptype t = type_at(lw, strcmp(lw->parts[0], "cvt") == 0); /* cvt's destination type comes first */
  if (!at || t.kind != 'f' || t.bits != 32 || lw->st->nopnds == 0) return false;
  bool known = false;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) known |= strcmp(lw->parts[0], ops[i]) == 0;
  if (!known) return false;
  for (int i = at; i + 1 < lw->nparts; i++) memcpy(lw->parts[i], lw->parts[i + 1], sizeof lw->parts[i]);
  lw->nparts--;
  return true;
}

/* PTX's .sat on f32: the result clamped to [0, 1], NaN to +0. FMAX with
 * +0 turns NaN (the other operand wins) and -0 (below +0) into +0. */
static ws_status saturate(lower *lw) {
  ws_vc_op d, a;
  ws_status r = def_r(lw, &lw->st->opnds[0], 1, &d);
  if (r == WS_OK) r = use_r(lw, &lw->st->opnds[0], 1, &a);
  if (r != WS_OK) return r;
  emit(lw, "FMAX", 3, d, a, op_text("0f00000000"));
  emit(lw, "FMIN", 3, d, a, op_text("0f3F800000"));
  return WS_OK;
}

static ws_status one_stmt(lower *lw, size_t i) {
  const ws_ptx_stmt *st = &lw->e->stmts[i];
  lw->st = st;
  lw->si = (uint32_t)i;
  switch (st->kind) {
  case WS_PTX_REG_DECL: return declare(lw, st);
  case WS_PTX_VAR_DECL: return add_shared(lw, st);
  case WS_PTX_OPEN: lw->depth++; return WS_OK;
  case WS_PTX_CLOSE:
    while (lw->ndecls && lw->decls[lw->ndecls - 1].depth == lw->depth) {
      decl *d = &lw->decls[--lw->ndecls];
      free(d->slots), free(d->defs);
    }
    lw->depth--;
    return WS_OK;
  case WS_PTX_LABEL: {
    ws_vc_insn *in = ws_vcode_add(lw->vc, "", lw->si);
    if (!in) return oom(lw);
    in->kind = WS_VC_LABEL;
    snprintf(in->label, sizeof in->label, "%s", st->name);
    return WS_OK;
  }
  default: break;
  }
  if (ws_kparams_defines(&lw->addrs, st)) return WS_OK; /* a param's address: its loads read the param */
  split_op(lw);
  size_t from = lw->vc->ninsns;
  bool sat = take_sat(lw);
  ws_status r = dispatch(lw);
  if (r == WS_OK && sat) r = saturate(lw);
  if (r == WS_OK) r = guard_from(lw, from);
  return r;
}

/* Declarations first (they may follow the instructions' first use in a
 * scope only in hand-written PTX), counted definitions, vector groups,
 * then the statements in order. */
static ws_status lower_all(lower *lw) {
  ws_status r = ws_kparams_trace(lw->ctx, lw->e, &lw->addrs);
  if (r == WS_OK)
    r = ws_kparams_build(lw->ctx, lw->e, lw->param_names, &lw->addrs, &lw->params, &lw->nparams);
  size_t top = 0;
  for (; r == WS_OK && top < lw->e->nstmts && lw->e->stmts[top].kind == WS_PTX_REG_DECL; top++) {
    lw->st = &lw->e->stmts[top];
    r = declare(lw, lw->st);
  }
  if (r == WS_OK) r = prepass(lw);
  if (r == WS_OK) group_vectors(lw, top, lw->e->nstmts);
  for (size_t i = top; r == WS_OK && i < lw->e->nstmts; i++) r = one_stmt(lw, i);
  if (r == WS_OK && lw->vc->oom) r = oom(lw);
  return r;
}

ws_status ws_ptx_lower_entry(ws_ctx *ctx, const char *file, const ws_ptx_module *m, const ws_ptx_entry *e,
                             const ws_srcparam *param_names, ws_vcode *vc, ws_ptx_shared **shared,
                             size_t *nshared, ws_ptx_pinfo **params, size_t *nparams, uint32_t *local_bytes) {
  lower lw = {.ctx = ctx, .file = file, .m = m, .e = e, .vc = vc, .param_names = param_names};
  memset(vc, 0, sizeof *vc);
  if (e->is_func) {
    *shared = NULL, *nshared = 0, *params = NULL, *nparams = 0, *local_bytes = 0;
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "%s:%u: error: '.func %s' is a device function, not a kernel; it runs inlined at "
                       "its calls",
                       file, e->line, e->name);
  }
  ws_status r = lower_all(&lw);
  for (size_t i = 0; i < lw.ndecls; i++) free(lw.decls[i].slots), free(lw.decls[i].defs);
  free(lw.decls);
  free(lw.locals);
  *local_bytes = lw.local_bytes;
  free(lw.space);
  free(lw.param_of);
  ws_kparams_free_addrs(&lw.addrs);
  *shared = lw.shared, *nshared = lw.nshared, *params = lw.params, *nparams = lw.nparams;
  return r;
}
