/* kparams.c - a kernel's PTX params as the ISA's params (kparams.h). */
#include "ptx/kparams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* The bits of a PTX type (".b8" 8, ".u64" 64; 0: not a sized type). */
static uint32_t type_bits(const char *t) {
  if (t[0] == '.') t++;
  if (!strchr("subf", t[0]) || t[1] < '1' || t[1] > '9') return 0;
  char *end = NULL;
  unsigned long v = strtoul(t + 1, &end, 10);
  return *end == '\0' && (v == 8 || v == 16 || v == 32 || v == 64) ? (uint32_t)v : 0;
}

bool ws_kparams_is_struct(const ws_ptx_param *p) {
  uint32_t bits = type_bits(p->type);
  return bits && p->size_bytes > bits / 8;
}

/* ---- registers holding a param's address ------------------------------------------------ */

static int param_index(const ws_ptx_entry *e, const char *name) {
  for (size_t i = 0; i < e->nparams; i++)
    if (strcmp(e->params[i].name, name) == 0) return (int)i;
  return -1;
}

const ws_kparams_addr *ws_kparams_lookup(const ws_kparams_addrs *a, const char *reg) {
  for (size_t i = 0; a && i < a->n; i++)
    if (!a->v[i].other_def && strcmp(a->v[i].reg, reg) == 0) return &a->v[i];
  return NULL;
}

static ws_kparams_addr *entry_of(ws_kparams_addrs *a, const char *reg) {
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->v[i].reg, reg) == 0) return &a->v[i];
  return NULL;
}

/* The param and offset statement st puts in its destination, when it is
 * `mov` of a param's name or of a traced register, or `add.s64`/`add.u64`
 * of a traced register and a constant. */
static bool address_def(const ws_ptx_entry *e, const ws_kparams_addrs *a, const ws_ptx_stmt *st,
                        ws_kparams_addr *out) {
  if (st->kind != WS_PTX_INSN || st->has_guard || st->opnds[0].kind != WS_PTX_OPND_REG) return false;
  const ws_ptx_opnd *s = &st->opnds[1];
  bool mov = strncmp(st->op, "mov.", 4) == 0 && st->nopnds == 2;
  bool add = (!strcmp(st->op, "add.s64") || !strcmp(st->op, "add.u64")) && st->nopnds == 3 &&
             st->opnds[2].kind == WS_PTX_OPND_INT;
  int pi = mov && s->kind == WS_PTX_OPND_SYMBOL ? param_index(e, s->name) : -1;
  const ws_kparams_addr *from =
      (mov || add) && s->kind == WS_PTX_OPND_REG ? ws_kparams_lookup(a, s->name) : NULL;
  if (pi < 0 && !from) return false;
  memset(out, 0, sizeof *out);
  snprintf(out->reg, sizeof out->reg, "%.*s", (int)sizeof out->reg - 1, st->opnds[0].name);
  out->param = pi >= 0 ? (uint32_t)pi : from->param;
  out->offset_bytes = (from ? from->offset_bytes : 0) + (add ? st->opnds[2].ival : 0);
  return true;
}

/* Whether st writes register `reg` (its first operand, or an element of it). */
static bool writes(const ws_ptx_stmt *st, const char *reg) {
  static const char *const no_def[] = {"st.", "red.", "bar", "bra", "ret", "exit", "membar", "fence", "call"};
  if (st->kind != WS_PTX_INSN || st->nopnds == 0) return false;
  for (size_t i = 0; i < sizeof no_def / sizeof *no_def; i++)
    if (strncmp(st->op, no_def[i], strlen(no_def[i])) == 0) return false;
  const ws_ptx_opnd *d = &st->opnds[0];
  if (d->kind == WS_PTX_OPND_REG) return strcmp(d->name, reg) == 0;
  for (uint8_t k = 0; d->kind == WS_PTX_OPND_VECTOR && k < d->nelems; k++)
    if (strcmp(d->elems[k], reg) == 0) return true;
  return false;
}

bool ws_kparams_defines(const ws_kparams_addrs *a, const ws_ptx_stmt *st) {
  return st->kind == WS_PTX_INSN && st->nopnds > 0 && st->opnds[0].kind == WS_PTX_OPND_REG &&
         ws_kparams_lookup(a, st->opnds[0].name) && writes(st, st->opnds[0].name);
}

/* In program order (clang defines such a register before its uses); a
 * register written twice with different values, or by anything else, is
 * not traced. */
ws_status ws_kparams_trace(ws_ctx *ctx, const ws_ptx_entry *e, ws_kparams_addrs *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < e->nstmts; i++) {
    ws_kparams_addr d;
    if (!address_def(e, out, &e->stmts[i], &d)) continue;
    ws_kparams_addr *old = entry_of(out, d.reg);
    if (old) {
      old->other_def |= old->param != d.param || old->offset_bytes != d.offset_bytes;
      continue;
    }
    if (!ws_grow((void **)&out->v, &out->cap, out->n, sizeof *out->v, 8)) {
      ws_kparams_free_addrs(out);
      return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory reading the params of '%s'", e->name);
    }
    out->v[out->n++] = d;
  }
  for (bool changed = true; changed;) { /* a copy of a register found not to be traced is not either */
    changed = false;
    for (size_t i = 0; i < e->nstmts; i++) {
      const ws_ptx_stmt *st = &e->stmts[i];
      ws_kparams_addr d;
      for (size_t k = 0; k < out->n; k++) {
        if (out->v[k].other_def || !writes(st, out->v[k].reg)) continue;
        out->v[k].other_def = !address_def(e, out, st, &d) || strcmp(d.reg, out->v[k].reg) != 0;
        changed |= out->v[k].other_def;
      }
    }
  }
  return WS_OK;
}

void ws_kparams_free_addrs(ws_kparams_addrs *a) {
  free(a->v);
  memset(a, 0, sizeof *a);
}

/* ---- the ISA params ----------------------------------------------------------------------- */

typedef struct plist {
  ws_ptx_pinfo *v;
  size_t n, cap;
} plist;

static ws_ptx_pinfo *add(plist *l) {
  if (!ws_grow((void **)&l->v, &l->cap, l->n, sizeof *l->v, 16)) return NULL;
  ws_ptx_pinfo *p = &l->v[l->n++];
  memset(p, 0, sizeof *p);
  return p;
}

/* The name the .wsa gives PTX param i: its source name, else "param_<i>"
 * (the entry's name taken off the PTX's "<entry>_param_<i>"). */
static void param_name(const ws_ptx_entry *e, const ws_srcparam *names, size_t i, char *out, size_t n) {
  const char *s = e->params[i].name;
  size_t el = strlen(e->name);
  if (strncmp(s, e->name, el) == 0 && s[el] == '_') s += el + 1;
  if (names) s = names[i].name;
  snprintf(out, n, "%.*s", (int)n - 1, s);
}

/* The fields of struct layout s, when it has the param's size. */
static bool source_fields(plist *l, const char *pname, size_t i, const ws_srcstruct *s, uint32_t size_bytes,
                          bool *oom) {
  if (!s || s->size_bytes != size_bytes) return false;
  for (size_t k = 0; k < s->nfields; k++) {
    const ws_srcfield *f = &s->fields[k];
    ws_ptx_pinfo *p = add(l);
    if (!p) return *oom = true;
    snprintf(p->name, sizeof p->name, "%.*s.%.*s", 31, pname, 31, f->name);
    p->is_field = true, p->kind = f->kind, p->is_ptr = f->kind == 'p';
    p->param = (uint32_t)i, p->offset_bytes = f->offset_bytes, p->size_bytes = f->size_bytes;
  }
  return true;
}

/* A read's field: a narrow read widens to its aligned word, which it shares with its neighbours. */
static void read_field(const char *op, uint32_t off, ws_ptx_pinfo *f) {
  const char *t = strrchr(op, '.');
  uint32_t bits = t ? type_bits(t) : 0;
  f->offset_bytes = bits < 32 ? off & ~3u : off;
  f->size_bytes = bits == 64 ? 8 : 4;
  f->kind = bits == 64 ? 'U' : bits == 32 && t[1] == 'f' ? 'f' : bits == 32 && t[1] == 's' ? 's' : 'u';
}

/* Whether statement st reads PTX param i, by name or through a traced
 * register: *off, *n (elements), *elem_bytes. */
static bool reads_param(const ws_ptx_entry *e, const ws_kparams_addrs *addrs, const ws_ptx_stmt *st, size_t i,
                        uint32_t *off, uint32_t *n, uint32_t *elem) {
  if (st->kind != WS_PTX_INSN || strncmp(st->op, "ld.", 3) != 0 || !strstr(st->op, ".param") ||
      st->nopnds < 2)
    return false;
  const ws_ptx_opnd *a = &st->opnds[1];
  if (a->kind != WS_PTX_OPND_ADDR) return false;
  const ws_kparams_addr *r = a->base_is_reg ? ws_kparams_lookup(addrs, a->name) : NULL;
  if (a->base_is_reg ? !r || r->param != i : strcmp(a->name, e->params[i].name) != 0) return false;
  int64_t at = a->ival + (r ? r->offset_bytes : 0);
  const char *t = strrchr(st->op, '.');
  uint32_t bits = type_bits(t);
  if (!bits || at < 0 || at > UINT16_MAX) return false;
  *off = (uint32_t)at;
  *n = strstr(st->op, ".v4.") ? 4 : strstr(st->op, ".v2.") ? 2 : 1;
  *elem = bits / 8;
  return true;
}

/* Whether field f lies inside field g (and is not g itself, taken earlier). */
static bool inside(const ws_ptx_pinfo *f, const ws_ptx_pinfo *g) {
  return f != g && f->offset_bytes >= g->offset_bytes &&
         f->offset_bytes + f->size_bytes <= g->offset_bytes + g->size_bytes &&
         (f->size_bytes < g->size_bytes || f > g);
}

/* The fields a bare PTX param gets from the reads of it: each aligned
 * word or doubleword read, those inside another left out, in offset order. */
static bool read_fields(plist *l, const ws_ptx_entry *e, const ws_kparams_addrs *addrs, const char *pname,
                        size_t i) {
  const ws_ptx_param *p = &e->params[i];
  size_t first = l->n;
  for (size_t s = 0; s < e->nstmts; s++) {
    uint32_t off = 0, n = 0, elem = 0;
    if (!reads_param(e, addrs, &e->stmts[s], i, &off, &n, &elem)) continue;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t o = off + k * elem;
      if (o % elem || o + elem > p->size_bytes) continue; /* refused where it is lowered */
      ws_ptx_pinfo *f = add(l);
      if (!f) return false;
      read_field(e->stmts[s].op, o, f);
      f->param = (uint32_t)i, f->is_field = true;
    }
  }
  size_t kept = first;
  for (size_t a = first; a < l->n; a++) {
    bool drop = false;
    for (size_t b = first; b < l->n && !drop; b++) drop = inside(&l->v[a], &l->v[b]);
    if (!drop) l->v[kept++] = l->v[a];
  }
  l->n = kept;
  for (size_t a = first + 1; a < l->n; a++) /* insertion sort by offset: a handful */
    for (size_t b = a; b > first && l->v[b].offset_bytes < l->v[b - 1].offset_bytes; b--) {
      ws_ptx_pinfo t = l->v[b];
      l->v[b] = l->v[b - 1], l->v[b - 1] = t;
    }
  for (size_t a = first; a < l->n; a++)
    snprintf(l->v[a].name, sizeof l->v[a].name, "%.*s.%u", 40, pname, l->v[a].offset_bytes);
  return true;
}

ws_status ws_kparams_build(ws_ctx *ctx, const ws_ptx_entry *e, const ws_srcparam *names,
                           const ws_kparams_addrs *addrs, ws_ptx_pinfo **out, size_t *n) {
  plist l = {0};
  bool oom = false;
  for (size_t i = 0; i < e->nparams && !oom; i++) {
    const ws_ptx_param *p = &e->params[i];
    char pname[WS_KPARAMS_NAME_MAX];
    param_name(e, names, i, pname, sizeof pname);
    if (ws_kparams_is_struct(p)) {
      const ws_srcstruct *s = names ? names[i].layout : NULL;
      if (!source_fields(&l, pname, i, s, p->size_bytes, &oom) && !oom)
        oom = !read_fields(&l, e, addrs, pname, i);
      continue;
    }
    ws_ptx_pinfo *f = add(&l);
    if (!f) {
      oom = true;
      break;
    }
    snprintf(f->name, sizeof f->name, "%s", pname);
    f->is_ptr = names && names[i].is_ptr && p->size_bytes == 8;
    f->param = (uint32_t)i, f->size_bytes = p->size_bytes;
  }
  if (oom) {
    free(l.v);
    *out = NULL, *n = 0;
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory reading the params of '%s'", e->name);
  }
  *out = l.v, *n = l.n;
  return WS_OK;
}

int ws_kparams_find(const ws_ptx_pinfo *ps, size_t n, uint32_t param, uint32_t off, uint32_t size) {
  for (size_t i = 0; i < n; i++)
    if (ps[i].param == param && off >= ps[i].offset_bytes &&
        off + size <= ps[i].offset_bytes + ps[i].size_bytes)
      return (int)i;
  return -1;
}

const char *ws_kparams_type(const ws_ptx_pinfo *pi, const ws_ptx_param *p) {
  switch (pi->kind) {
  case 'f': return ".f32";
  case 's': return ".s32";
  case 'u': return ".u32";
  case 'U': return pi->is_ptr ? ".ptr" : ".u64";
  case 'p': return ".ptr";
  default: break;
  }
  if (p->size_bytes == 8) return pi->is_ptr ? ".ptr" : ".u64";
  if (p->size_bytes != 4) return NULL;
  if (strcmp(p->type, ".f32") == 0) return ".f32";
  if (strcmp(p->type, ".s32") == 0) return ".s32";
  return ".u32";
}
