/* inliner.c - device functions inlined at their calls (inliner.h). */
#include "ptx/inliner.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "ptx/cuda.h"

#define MAX_DEPTH 64                /* calls nested deeper are refused */
#define MAX_STMTS ((size_t)4 << 20) /* an inlined kernel's statements at most */
#define NO_ID UINT32_MAX

/* A .param declared in a body: the slot a call sequence fills. */
typedef struct pslot {
  char name[WS_PTX_NAME_MAX];
  uint32_t id, site;
  int depth;
} pslot;

/* A register holding `bytes` bytes of .param slot `id` at offset off. */
typedef struct pkey {
  uint32_t id, off, bytes;
} pkey;

/* One body being copied: the entry itself (n 0) or an inlined callee. */
typedef struct site {
  const ws_ptx_entry *fn;
  uint32_t n;
  const uint32_t *arg_ids; /* per formal param of fn: its slot */
  uint32_t ret_id;         /* the return param's slot (NO_ID: none) */
  const struct site *up;
  const ws_ptx_stmt *call; /* the call that made it */
  bool returned;           /* a ret became a branch to the end label */
  int level;               /* calls around it */
} site;

typedef struct inliner {
  ws_ctx *ctx;
  const char *file;
  const ws_ptx_module *m;
  ws_ptx_stmt *out, *decls; /* the body; registers declared at its top */
  size_t nout, out_cap, ndecls, decls_cap;
  pkey *keys;
  size_t nkeys, keys_cap;
  pslot *slots;
  size_t nslots, slots_cap;
  uint32_t next_id, next_site;
} inliner;

static ws_status oom(inliner *in) {
  return ws_ctx_fail(in->ctx, WS_ERR_NOMEM, "%s: out of memory inlining device functions", in->file);
}

static ws_status refuse(inliner *in, const ws_ptx_stmt *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ws_status refuse(inliner *in, const ws_ptx_stmt *st, const char *fmt, ...) {
  char what[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *target = st->nopnds ? st->opnds[0].name : "";
  return ws_ctx_fail(in->ctx, WS_ERR_INVALID, "%s:%u: error: '%s %s': %s", in->file, st->line, st->op, target,
                     what);
}

/* "f (name)" with the demangled source name where there is one. */
static void fn_text(const char *ptx_name, char *buf, size_t n) {
  char *src = ws_cuda_demangle(ptx_name);
  if (src && strcmp(src, ptx_name) != 0)
    snprintf(buf, n, "'%s' (%s)", ptx_name, src);
  else
    snprintf(buf, n, "'%s'", ptx_name);
  free(src);
}

static ws_status push(inliner *in, ws_ptx_stmt **v, size_t *nv, size_t *cap, const ws_ptx_stmt *st) {
  if (in->nout + in->ndecls >= MAX_STMTS)
    return ws_ctx_fail(in->ctx, WS_ERR_LIMIT,
                       "%s:%u: error: inlining device functions makes more than %zu statements", in->file,
                       st->line, MAX_STMTS);
  if (!ws_grow((void **)v, cap, *nv, sizeof **v, 256)) return oom(in);
  (*v)[(*nv)++] = *st;
  return WS_OK;
}

static ws_status emit(inliner *in, const ws_ptx_stmt *st) {
  return push(in, &in->out, &in->nout, &in->out_cap, st);
}

/* ---- names per call site ------------------------------------------------------------ */

/* A callee's register "%r7" at site n is "%__i<n>_r7"; a prefix keeps the
 * numbering of its declaration "%r<8>". */
static bool reg_name(const site *s, const char *name, char *buf, size_t n) {
  if (s->n == 0) return (size_t)snprintf(buf, n, "%s", name) < n;
  return (size_t)snprintf(buf, n, "%%__i%u_%s", s->n, name + (name[0] == '%')) < n;
}

/* Labels and .local variables of a callee. */
static bool sym_name(const site *s, const char *name, char *buf, size_t n) {
  if (s->n == 0) return (size_t)snprintf(buf, n, "%s", name) < n;
  return (size_t)snprintf(buf, n, "%s__i%u", name, s->n) < n;
}

/* Whether `name` is a label, a .local variable or a register named
 * without '%' that the callee declares. */
static bool own_symbol(const ws_ptx_entry *fn, const char *name, bool *is_reg) {
  for (size_t i = 0; i < fn->nstmts; i++) {
    const ws_ptx_stmt *st = &fn->stmts[i];
    bool var = st->kind == WS_PTX_VAR_DECL && strcmp(st->space, ".local") == 0;
    bool reg = st->kind == WS_PTX_REG_DECL && st->count == 0;
    if ((var || reg || st->kind == WS_PTX_LABEL) && strcmp(st->name, name) == 0) return *is_reg = reg, true;
  }
  return false;
}

/* ---- .param slots ------------------------------------------------------------------ */

/* The slot a body's .param name stands for: a call sequence's .param, the
 * callee's own params, its return param; NO_ID where none. */
static uint32_t slot_of(const inliner *in, const site *s, const char *name) {
  for (size_t i = in->nslots; i-- > 0;)
    if (in->slots[i].site == s->n && strcmp(in->slots[i].name, name) == 0) return in->slots[i].id;
  if (s->n == 0) return NO_ID;
  for (size_t i = 0; i < s->fn->nparams; i++)
    if (strcmp(s->fn->params[i].name, name) == 0) return s->arg_ids[i];
  if (s->fn->has_ret && strcmp(s->fn->ret.name, name) == 0) return s->ret_id;
  return NO_ID;
}

/* The register of `bytes` bytes at off in slot id (declared at the body's
 * top the first time, when `create`); false where a read finds no write
 * of that width at that offset. */
static ws_status key_reg(inliner *in, const ws_ptx_stmt *st, pkey k, bool create, char *buf, size_t n) {
  uint32_t store_bytes = k.bytes < 4 ? 4 : k.bytes;
  snprintf(buf, n, "%%__a%u_%u_%u", k.id, k.off, store_bytes);
  for (size_t i = 0; i < in->nkeys; i++)
    if (in->keys[i].id == k.id && in->keys[i].off == k.off && in->keys[i].bytes == store_bytes) return WS_OK;
  if (!create)
    return refuse(in, st, "reads %u bytes at offset %u of a .param no store of that width wrote", k.bytes,
                  k.off);
  if (!ws_grow((void **)&in->keys, &in->keys_cap, in->nkeys, sizeof *in->keys, 32)) return oom(in);
  in->keys[in->nkeys++] = (pkey){k.id, k.off, store_bytes};
  ws_ptx_stmt d = {.kind = WS_PTX_REG_DECL, .line = st->line};
  snprintf(d.type, sizeof d.type, "%s", store_bytes == 8 ? ".b64" : ".b32");
  snprintf(d.name, sizeof d.name, "%s", buf);
  return push(in, &in->decls, &in->ndecls, &in->decls_cap, &d);
}

/* The element width of an ld/st type suffix (".f32" 4), 0 if none. */
static uint32_t type_bytes(const char *op, uint32_t *nvec, bool *is_signed) {
  *nvec = 1;
  uint32_t bytes = 0;
  for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.')) {
    if (p[1] == 'v' && (p[2] == '2' || p[2] == '4')) *nvec = (uint32_t)(p[2] - '0');
    if (strchr("bsuf", p[1]) && p[2] >= '0' && p[2] <= '9') {
      bytes = (uint32_t)strtoul(p + 2, NULL, 10) / 8;
      *is_signed = p[1] == 's';
    }
  }
  return bytes;
}

static ws_ptx_stmt copy_insn(const ws_ptx_stmt *st, const char *op) {
  ws_ptx_stmt c = {.kind = WS_PTX_INSN,
                   .line = st->line,
                   .cuda_file = st->cuda_file,
                   .cuda_line = st->cuda_line,
                   .has_guard = st->has_guard,
                   .guard_neg = st->guard_neg};
  memcpy(c.guard, st->guard, sizeof c.guard);
  snprintf(c.op, sizeof c.op, "%s", op);
  return c;
}

/* One element of an ld.param/st.param: a copy between the register (or
 * a constant, for a store) `val` and the slot's register. */
static ws_status param_move(inliner *in, const site *s, const ws_ptx_stmt *st, bool load, pkey k,
                            const ws_ptx_opnd *val, bool is_signed) {
  char preg[WS_PTX_NAME_MAX];
  ws_status r = key_reg(in, st, k, !load, preg, sizeof preg);
  if (r != WS_OK || (val->kind == WS_PTX_OPND_SINK)) return r;
  char op[32];
  if (load && k.bytes < 4)
    snprintf(op, sizeof op, "cvt.%c32.%c%u", is_signed ? 's' : 'u', is_signed ? 's' : 'u', k.bytes * 8);
  else
    snprintf(op, sizeof op, "mov.b%u", k.bytes < 4 ? 32 : k.bytes * 8);
  ws_ptx_stmt c = copy_insn(st, op);
  c.nopnds = 2;
  c.inlined = s->n != 0;
  ws_ptx_opnd *reg = &c.opnds[load ? 0 : 1], *slot = &c.opnds[load ? 1 : 0];
  *reg = *val;
  if (val->kind == WS_PTX_OPND_REG && !reg_name(s, val->name, reg->name, sizeof reg->name))
    return refuse(in, st, "a register name too long once renamed");
  slot->kind = WS_PTX_OPND_REG;
  snprintf(slot->name, sizeof slot->name, "%s", preg);
  if (s->n && c.has_guard && !reg_name(s, st->guard, c.guard, sizeof c.guard))
    return refuse(in, st, "a predicate name too long once renamed");
  return emit(in, &c);
}

/* An ld.param or st.param of a call's slot as register copies; *done is
 * false for anything else (a kernel's own params). */
static ws_status param_access(inliner *in, const site *s, const ws_ptx_stmt *st, bool *done) {
  bool load = strncmp(st->op, "ld.param", 8) == 0;
  *done = false;
  if ((!load && strncmp(st->op, "st.param", 8) != 0) || st->nopnds != 2) return WS_OK;
  const ws_ptx_opnd *addr = &st->opnds[load ? 1 : 0], *val = &st->opnds[load ? 0 : 1];
  if (addr->kind != WS_PTX_OPND_ADDR || addr->base_is_reg) return WS_OK;
  uint32_t id = slot_of(in, s, addr->name);
  if (id == NO_ID) return WS_OK;
  *done = true;
  uint32_t nvec = 1;
  bool is_signed = false;
  uint32_t bytes = type_bytes(st->op, &nvec, &is_signed);
  if (bytes == 0 || addr->ival < 0) return refuse(in, st, "a typed access at a non-negative offset");
  if (nvec == 1) return param_move(in, s, st, load, (pkey){id, (uint32_t)addr->ival, bytes}, val, is_signed);
  if (val->kind != WS_PTX_OPND_VECTOR || val->nelems != nvec)
    return refuse(in, st, "a vector of %u registers", nvec);
  ws_status r = WS_OK;
  for (uint32_t k = 0; r == WS_OK && k < nvec; k++) {
    ws_ptx_opnd e = {.kind = strcmp(val->elems[k], "_") == 0 ? WS_PTX_OPND_SINK : WS_PTX_OPND_REG};
    snprintf(e.name, sizeof e.name, "%s", val->elems[k]);
    r = param_move(in, s, st, load, (pkey){id, (uint32_t)addr->ival + k * bytes, bytes}, &e, is_signed);
  }
  return r;
}

/* ---- a callee's statement renamed ---------------------------------------------------- */

static ws_status rename_opnd(inliner *in, const site *s, const ws_ptx_stmt *st, ws_ptx_opnd *o) {
  char buf[WS_PTX_NAME_MAX];
  bool is_reg = false, ok = true;
  bool named =
      o->kind == WS_PTX_OPND_SYMBOL || (o->kind == WS_PTX_OPND_ADDR && !o->base_is_reg && o->name[0]);
  if (named && slot_of(in, s, o->name) != NO_ID)
    return refuse(in, st,
                  "takes the address of the .param '%s'; only ld.param and st.param of a call's params "
                  "are supported",
                  o->name);
  if (s->n == 0) return WS_OK;
  if (o->kind == WS_PTX_OPND_REG || (o->kind == WS_PTX_OPND_ADDR && o->base_is_reg)) {
    ok = reg_name(s, o->name, buf, sizeof buf);
  } else if (named && own_symbol(s->fn, o->name, &is_reg)) {
    ok = is_reg ? reg_name(s, o->name, buf, sizeof buf) : sym_name(s, o->name, buf, sizeof buf);
    if (is_reg && o->kind == WS_PTX_OPND_SYMBOL) o->kind = WS_PTX_OPND_REG;
  } else {
    snprintf(buf, sizeof buf, "%s", o->name);
  }
  for (uint8_t k = 0; ok && o->kind == WS_PTX_OPND_VECTOR && k < o->nelems; k++) {
    char e[sizeof o->elems[0]];
    if (strcmp(o->elems[k], "_") == 0) continue;
    ok = reg_name(s, o->elems[k], e, sizeof e);
    memcpy(o->elems[k], e, sizeof e);
  }
  if (!ok) return refuse(in, st, "a name too long once renamed for the call site");
  memcpy(o->name, buf, sizeof buf);
  return WS_OK;
}

/* Copies a statement of the body of s, renamed for its site; a callee's
 * registers declared outside any inner scope go to the kernel's top. */
static ws_status copy_stmt(inliner *in, const site *s, const ws_ptx_stmt *st, int depth) {
  ws_ptx_stmt c = *st;
  c.call_args = NULL, c.ncall_args = 0, c.init = NULL;
  c.inlined = s->n != 0;
  if (st->init) {
    c.init = malloc(st->size_bytes);
    if (!c.init) return oom(in);
    memcpy(c.init, st->init, st->size_bytes);
  }
  bool ok = true;
  if (c.kind == WS_PTX_REG_DECL) ok = reg_name(s, st->name, c.name, sizeof c.name);
  if (c.kind == WS_PTX_LABEL || (c.kind == WS_PTX_VAR_DECL && strcmp(st->space, ".local") == 0))
    ok = sym_name(s, st->name, c.name, sizeof c.name);
  if (c.has_guard && s->n) ok = ok && reg_name(s, st->guard, c.guard, sizeof c.guard);
  ws_status r = ok ? WS_OK : refuse(in, st, "a name too long once renamed for the call site");
  for (uint8_t k = 0; r == WS_OK && c.kind == WS_PTX_INSN && k < c.nopnds; k++)
    r = rename_opnd(in, s, st, &c.opnds[k]);
  if (r == WS_OK && c.kind == WS_PTX_REG_DECL && s->n && depth == 0)
    r = push(in, &in->decls, &in->ndecls, &in->decls_cap, &c);
  else if (r == WS_OK)
    r = emit(in, &c);
  if (r != WS_OK) free(c.init);
  return r;
}

/* ---- calls ---------------------------------------------------------------------- */

static ws_status expand(inliner *in, site *s);

static const ws_ptx_entry *find_fn(const ws_ptx_module *m, const char *name) {
  for (size_t i = 0; i < m->nentries; i++)
    if (m->entries[i].is_func && strcmp(m->entries[i].name, name) == 0) return &m->entries[i];
  return NULL;
}

static ws_status check_callee(inliner *in, const site *s, const ws_ptx_stmt *st, const ws_ptx_entry **fn) {
  const ws_ptx_opnd *t = &st->opnds[0];
  if (st->nopnds == 0 || t->kind != WS_PTX_OPND_SYMBOL)
    return refuse(in, st,
                  "an indirect call (through a register or a prototype); only calls of a .func by name "
                  "are supported (they are inlined)");
  *fn = find_fn(in->m, t->name);
  if (!*fn)
    return refuse(in, st,
                  "'%s' is declared but not defined in this PTX; library calls (printf, malloc ...) "
                  "are not supported",
                  t->name);
  char what[600];
  fn_text(t->name, what, sizeof what);
  for (const site *u = s; u; u = u->up) {
    if (u->fn != *fn) continue;
    char via[600] = "";
    if (u != s) fn_text(s->fn->name, via, sizeof via);
    return refuse(in, st,
                  "recursion: %s calls itself%s%s; device functions are inlined at their calls, so "
                  "recursive ones are not supported",
                  what, u != s ? " through " : "", via);
  }
  if (s->level >= MAX_DEPTH) return refuse(in, st, "calls nested more than %d deep", MAX_DEPTH);
  if (st->ncall_args != (*fn)->nparams)
    return refuse(in, st, "passes %u params to %s, which takes %zu", st->ncall_args, what, (*fn)->nparams);
  return WS_OK;
}

/* A call's argument or return value: a .param slot by name, or a register
 * (or constant) copied into a fresh slot of the callee's param's width. */
static ws_status call_slot(inliner *in, const site *s, const ws_ptx_stmt *st, const char *name,
                           const ws_ptx_param *p, bool is_ret, uint32_t *id) {
  *id = slot_of(in, s, name);
  if (*id != NO_ID) return WS_OK;
  if (name[0] != '%') return refuse(in, st, "'%s' is not a .param of the call sequence", name);
  *id = in->next_id++;
  if (is_ret) return WS_OK; /* copied out after the body */
  ws_ptx_opnd v = {.kind = WS_PTX_OPND_REG};
  snprintf(v.name, sizeof v.name, "%s", name);
  ws_ptx_stmt c = copy_insn(st, p->size_bytes == 8 ? "st.param.b64" : "st.param.b32");
  c.has_guard = 0;
  return param_move(in, s, &c, false, (pkey){*id, 0, p->size_bytes == 8 ? 8 : 4}, &v, false);
}

static ws_status ret_copy(inliner *in, const site *s, const ws_ptx_stmt *st, const ws_ptx_entry *fn,
                          uint32_t id) {
  if (st->name[0] != '%' || !fn->has_ret) return WS_OK;
  ws_ptx_opnd v = {.kind = WS_PTX_OPND_REG};
  snprintf(v.name, sizeof v.name, "%s", st->name);
  ws_ptx_stmt c = copy_insn(st, fn->ret.size_bytes == 8 ? "ld.param.b64" : "ld.param.b32");
  c.has_guard = 0;
  return param_move(in, s, &c, true, (pkey){id, 0, fn->ret.size_bytes == 8 ? 8 : 4}, &v, false);
}

static ws_status label_at(inliner *in, const ws_ptx_stmt *st, const char *fmt, uint32_t n) {
  ws_ptx_stmt l = {.kind = WS_PTX_LABEL, .line = st->line};
  snprintf(l.name, sizeof l.name, fmt, n);
  return emit(in, &l);
}

/* A guarded call branches around the body on the opposite guard. */
static ws_status guard_branch(inliner *in, const site *s, const ws_ptx_stmt *st, uint32_t n) {
  ws_ptx_stmt b = copy_insn(st, "bra");
  b.guard_neg = !st->guard_neg;
  if (s->n && !reg_name(s, st->guard, b.guard, sizeof b.guard))
    return refuse(in, st, "a predicate name too long once renamed");
  b.nopnds = 1;
  b.opnds[0].kind = WS_PTX_OPND_SYMBOL;
  snprintf(b.opnds[0].name, sizeof b.opnds[0].name, "__skip_i%u", n);
  return emit(in, &b);
}

static ws_status do_call(inliner *in, site *s, const ws_ptx_stmt *st) {
  const ws_ptx_entry *fn = NULL;
  ws_status r = check_callee(in, s, st, &fn);
  uint32_t *ids = r == WS_OK ? calloc(fn->nparams + 1, sizeof *ids) : NULL;
  if (r == WS_OK && !ids) r = oom(in);
  for (size_t i = 0; r == WS_OK && i < fn->nparams; i++)
    r = call_slot(in, s, st, st->call_args[i], &fn->params[i], false, &ids[i]);
  uint32_t ret_id = in->next_id++;
  if (r == WS_OK && st->name[0]) r = call_slot(in, s, st, st->name, &fn->ret, true, &ret_id);
  site c = {.fn = fn,
            .n = ++in->next_site,
            .arg_ids = ids,
            .ret_id = ret_id,
            .up = s,
            .call = st,
            .level = s->level + 1};
  if (r == WS_OK && st->has_guard) r = guard_branch(in, s, st, c.n);
  if (r == WS_OK) r = expand(in, &c);
  if (r == WS_OK && c.returned) r = label_at(in, st, "__ret_i%u", c.n);
  if (r == WS_OK) r = ret_copy(in, s, st, fn, ret_id);
  if (r == WS_OK && st->has_guard) r = label_at(in, st, "__skip_i%u", c.n);
  free(ids);
  return r;
}

/* ---- bodies --------------------------------------------------------------------- */

static ws_status declare_slot(inliner *in, const site *s, const ws_ptx_stmt *st, int depth) {
  if (!ws_grow((void **)&in->slots, &in->slots_cap, in->nslots, sizeof *in->slots, 16)) return oom(in);
  pslot *p = &in->slots[in->nslots++];
  snprintf(p->name, sizeof p->name, "%s", st->name);
  p->id = in->next_id++, p->site = s->n, p->depth = depth;
  return WS_OK;
}

static void close_scope(inliner *in, const site *s, int depth) {
  while (in->nslots && in->slots[in->nslots - 1].site == s->n && in->slots[in->nslots - 1].depth == depth)
    in->nslots--;
}

/* A callee's `ret`: dropped when nothing follows it, else a branch to the
 * end of the inlined body. */
static ws_status do_ret(inliner *in, site *s, size_t i) {
  const ws_ptx_stmt *st = &s->fn->stmts[i];
  bool last = !st->has_guard;
  for (size_t k = i + 1; last && k < s->fn->nstmts; k++)
    last = s->fn->stmts[k].kind != WS_PTX_INSN && s->fn->stmts[k].kind != WS_PTX_LABEL;
  if (last) return WS_OK;
  ws_ptx_stmt b = copy_insn(st, "bra");
  if (b.has_guard && !reg_name(s, st->guard, b.guard, sizeof b.guard))
    return refuse(in, st, "a predicate name too long once renamed");
  b.nopnds = 1;
  b.opnds[0].kind = WS_PTX_OPND_SYMBOL;
  snprintf(b.opnds[0].name, sizeof b.opnds[0].name, "__ret_i%u", s->n);
  s->returned = true;
  return emit(in, &b);
}

static bool is_op(const ws_ptx_stmt *st, const char *name) {
  size_t n = strlen(name);
  return st->kind == WS_PTX_INSN && strncmp(st->op, name, n) == 0 && (st->op[n] == '\0' || st->op[n] == '.');
}

static ws_status one_stmt(inliner *in, site *s, size_t i, int *depth) {
  const ws_ptx_stmt *st = &s->fn->stmts[i];
  if (st->kind == WS_PTX_VAR_DECL && strcmp(st->space, ".param") == 0) return declare_slot(in, s, st, *depth);
  if (st->kind == WS_PTX_OPEN) ++*depth;
  if (st->kind == WS_PTX_CLOSE) close_scope(in, s, (*depth)--);
  if (is_op(st, "call")) return do_call(in, s, st);
  if (is_op(st, "ret") && s->n) return do_ret(in, s, i);
  bool done = false;
  ws_status r = st->kind == WS_PTX_INSN ? param_access(in, s, st, &done) : WS_OK;
  if (r != WS_OK || done) return r;
  return copy_stmt(in, s, st, *depth);
}

static ws_status expand(inliner *in, site *s) {
  int depth = 0;
  ws_status r = WS_OK;
  for (size_t i = 0; r == WS_OK && i < s->fn->nstmts; i++) r = one_stmt(in, s, i, &depth);
  close_scope(in, s, 0);
  return r;
}

static bool has_calls(const ws_ptx_entry *e) {
  for (size_t i = 0; i < e->nstmts; i++)
    if (is_op(&e->stmts[i], "call")) return true;
  return false;
}

static void free_stmts(ws_ptx_stmt *v, size_t n) {
  for (size_t i = 0; i < n; i++) ws_ptx_stmt_fini(&v[i]);
  free(v);
}

ws_status ws_inliner_expand(ws_ctx *ctx, const char *file, ws_ptx_module *m, size_t ei) {
  ws_ptx_entry *e = &m->entries[ei];
  if (!has_calls(e)) return WS_OK;
  inliner in = {.ctx = ctx, .file = file, .m = m};
  site top = {.fn = e, .ret_id = NO_ID};
  ws_status r = expand(&in, &top);
  ws_ptx_stmt *all = NULL;
  if (r == WS_OK && !(all = malloc((in.ndecls + in.nout + 1) * sizeof *all))) r = oom(&in);
  if (r == WS_OK) {
    if (in.ndecls) memcpy(all, in.decls, in.ndecls * sizeof *all);
    if (in.nout) memcpy(all + in.ndecls, in.out, in.nout * sizeof *all);
    free_stmts(e->stmts, e->nstmts);
    e->stmts = all, e->nstmts = in.ndecls + in.nout;
    in.ndecls = in.nout = 0;
  }
  free_stmts(in.decls, in.ndecls);
  free_stmts(in.out, in.nout);
  free(in.keys), free(in.slots);
  return r;
}
