/* translate.c - PTX entries into one .wsa text and its assembled program
 * (ptx.h): lowering (lower.c), allocation (vcode.c), then the text with
 * each instruction's PTX and CUDA line, assembled by the ISA's assembler. */
#include "ptx/ptx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/text.h"
#include "isa/asm.h"
#include "ptx/cuda.h"
#include "ptx/inliner.h"
#include "ptx/kparams.h"
#include "ptx/lower.h"
#include "ptx/ptxparse.h"

/* Where each line of the .wsa text came from (0: no instruction). */
typedef struct origin {
  uint32_t ptx_line, cuda_file, cuda_line;
} origin;

typedef struct out_text {
  ws_text t;
  origin *lines; /* by .wsa line, 1-based */
  size_t nlines, cap;
  uint32_t line;       /* lines written so far */
  uint32_t *var_bytes; /* per kernel written: its .local variables' bytes, aligned as spills start */
  size_t nvars, vars_cap;
} out_text;

static bool note_line(out_text *o, origin at) {
  if (o->line + 2 > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 256;
    origin *p = realloc(o->lines, cap * sizeof *p);
    if (!p) return false;
    memset(p + o->cap, 0, (cap - o->cap) * sizeof *p);
    o->lines = p, o->cap = cap;
  }
  o->lines[++o->line] = at;
  return true;
}

/* Appends one line (without its newline) with its origin. */
static bool put_line(out_text *o, origin at, const char *s) {
  ws_text_puts(&o->t, s);
  ws_text_puts(&o->t, "\n");
  return note_line(o, at);
}

/* ---- instructions as text ----------------------------------------------------------- */

static void reg_text(const ws_vcode *vc, const ws_vc_op *op, char *buf, size_t n) {
  uint32_t r = vc->regs[op->v].phys + op->word;
  const char *pre = op->neg ? "-" : "";
  if (op->abs)
    snprintf(buf, n, "%s|R%u|", pre, r);
  else
    snprintf(buf, n, "%sR%u", pre, r);
}

static void op_text(const ws_vcode *vc, const ws_vc_op *op, char *buf, size_t n) {
  switch (op->kind) {
  case WS_VC_REG: reg_text(vc, op, buf, n); break;
  case WS_VC_PRED:
    if (op->v == WS_VC_NONE)
      snprintf(buf, n, "%sPT", op->neg ? "!" : "");
    else
      snprintf(buf, n, "%sP%u", op->neg ? "!" : "", vc->regs[op->v].phys);
    break;
  case WS_VC_GMEM: snprintf(buf, n, "[R%u%+" PRId64 "]", vc->regs[op->v].phys + op->word, op->off); break;
  case WS_VC_SMEM: {
    char base[16] = "RZ";
    if (op->v != WS_VC_NONE) snprintf(base, sizeof base, "R%u", vc->regs[op->v].phys + op->word);
    if (op->text[0])
      snprintf(buf, n, "[%s+%s%+" PRId64 "]", base, op->text, op->off);
    else
      snprintf(buf, n, "[%s%+" PRId64 "]", base, op->off);
    break;
  }
  default: snprintf(buf, n, "%s", op->text); break;
  }
}

/* A label name the assembler accepts: PTX allows '$' and '.'. */
static void label_text(const char *ptx, char *buf, size_t n) {
  snprintf(buf, n, "%s", ptx);
  for (char *c = buf; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
      *c = '_';
  if (buf[0] >= '0' && buf[0] <= '9') buf[0] = '_';
}

static void insn_text(const ws_vcode *vc, const ws_vc_insn *in, char *buf, size_t n) {
  size_t at = 0;
  if (in->guard != WS_VC_NONE)
    at = (size_t)snprintf(buf, n, "@%sP%u ", in->guard_neg ? "!" : "", vc->regs[in->guard].phys);
  else
    at = (size_t)snprintf(buf, n, "    ");
  at += (size_t)snprintf(buf + at, n - at, "%s", in->mnem);
  for (unsigned k = 0; k < in->nops && at < n; k++) {
    char o[300];
    if (in->is_branch)
      label_text(in->label, o, sizeof o);
    else
      op_text(vc, &in->ops[k], o, sizeof o);
    at += (size_t)snprintf(buf + at, n - at, "%s%s", k ? ", " : " ", o);
  }
}

/* ---- names ------------------------------------------------------------------------------ */

void ws_ptx_kernel_name(const char *source, char *out, size_t n) {
  size_t at = 0;
  bool gap = false;
  if (n == 0) return;
  if (n > WS_NAME_MAX) n = WS_NAME_MAX;
  for (const char *c = source; *c && at + 1 < n; c++) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (!ok) {
      gap = at > 0;
      continue;
    }
    if (gap && at + 2 < n) out[at++] = '_';
    gap = false;
    out[at++] = *c;
  }
  out[at] = '\0';
  if (at == 0 || (out[0] >= '0' && out[0] <= '9')) {
    char tmp[WS_NAME_MAX];
    snprintf(tmp, sizeof tmp, "k_%s", out);
    snprintf(out, n, "%s", tmp);
  }
}

static void plain_name(const ws_ptx_entry *e, char *out, size_t n) {
  char *src = ws_cuda_demangle(e->name);
  ws_ptx_kernel_name(src ? src : e->name, out, n);
  free(src);
}

/* The program's name for entry `i`, unique among the entries before it. */
static void kernel_name_of(const ws_ptx_module *m, size_t i, char *out, size_t n) {
  plain_name(&m->entries[i], out, n);
  unsigned k = 1;
  for (size_t j = 0; j < i; j++) {
    char other[WS_NAME_MAX];
    plain_name(&m->entries[j], other, sizeof other);
    if (strcmp(other, out) == 0) k++;
  }
  if (k > 1) {
    char tmp[WS_NAME_MAX + 16];
    snprintf(tmp, sizeof tmp, "%.*s_%u", WS_NAME_MAX - 12, out, k % 100000u);
    size_t len = strlen(tmp) < n ? strlen(tmp) : n - 1;
    memcpy(out, tmp, len);
    out[len] = '\0';
  }
}

/* ---- one kernel ------------------------------------------------------------------------- */

typedef struct kernel_out {
  const ws_ptx_entry *e;
  char name[WS_NAME_MAX];
  ws_vcode vc;
  ws_ptx_shared *shared;
  size_t nshared;
  ws_ptx_pinfo *params; /* the ISA params: whole PTX params and structs' fields */
  size_t nparams;
  uint32_t regs, local_bytes, spill_bytes; /* spill_bytes: the window's end, local variables included */
} kernel_out;

static ws_status header(ws_ctx *ctx, const char *file, out_text *o, const kernel_out *k) {
  origin none = {0, 0, 0};
  char line[600];
  char *src = ws_cuda_demangle(k->e->name);
  snprintf(line, sizeof line, "// %s: %s, PTX entry %s (line %u): %u registers per thread", file,
           src ? src : k->e->name, k->e->name, k->e->line, k->regs);
  free(src);
  put_line(o, none, line);
  snprintf(line, sizeof line, ".kernel %s", k->name);
  put_line(o, none, line);
  if (k->spill_bytes) {
    snprintf(line, sizeof line, ".local %u                           // %u B of local variables, then spills",
             k->spill_bytes, k->local_bytes);
    put_line(o, none, line);
  }
  for (size_t i = 0; i < k->e->nparams; i++) {
    const ws_ptx_param *p = &k->e->params[i];
    if (!ws_kparams_is_struct(p) && p->size_bytes != 4 && p->size_bytes != 8)
      return ws_ctx_fail(
          ctx, WS_ERR_INVALID,
          "%s:%u: error: param '%s' of '%s' is %u bytes; scalars of 4 and 8 bytes, pointers and "
          "structs are supported, not narrow integers",
          file, k->e->line, p->name, k->e->name, p->size_bytes);
  }
  for (size_t i = 0; i < k->nparams; i++) {
    const ws_ptx_pinfo *pi = &k->params[i];
    const ws_ptx_param *p = &k->e->params[pi->param];
    int n = snprintf(line, sizeof line, ".param %s %s", ws_kparams_type(pi, p), pi->name);
    if (pi->is_field && n > 0 && (size_t)n < sizeof line)
      snprintf(line + n, sizeof line - (size_t)n, "%*s// bytes %u..%u of a %u-byte struct",
               n < 40 ? 40 - n : 1, "", pi->offset_bytes, pi->offset_bytes + pi->size_bytes - 1,
               p->size_bytes);
    put_line(o, none, line);
  }
  for (int pass = 0; pass < 2; pass++) /* static arrays first: extern ones start where they end */
    for (size_t i = 0; i < k->nshared; i++) {
      const ws_ptx_shared *s = &k->shared[i];
      if (s->is_extern != (pass == 1)) continue;
      snprintf(line, sizeof line, ".shared %s %" PRIu64 " %u", s->name, s->is_extern ? 0 : s->size_bytes,
               s->align_bytes);
      put_line(o, none, line);
    }
  return WS_OK;
}

/* A MOV whose source and destination got one register: nothing to do. */
static bool same_register_copy(const ws_vcode *vc, const ws_vc_insn *in) {
  if (in->kind != WS_VC_INSN || strcmp(in->mnem, "MOV") != 0 || in->nops != 2) return false;
  const ws_vc_op *d = &in->ops[0], *s = &in->ops[1];
  if (d->kind != WS_VC_REG || s->kind != WS_VC_REG || s->neg || s->abs) return false;
  return vc->regs[d->v].phys + d->word == vc->regs[s->v].phys + s->word;
}

/* "file.cu:12" for a statement with a .loc, the file's last path part. */
static void cuda_where(const ws_ptx_module *m, const ws_ptx_stmt *st, char *buf, size_t n) {
  buf[0] = '\0';
  if (!st->cuda_line || st->cuda_file >= m->nfiles || !m->files[st->cuda_file]) return;
  const char *f = strrchr(m->files[st->cuda_file], '/');
  snprintf(buf, n, " (%s:%u)", f ? f + 1 : m->files[st->cuda_file], st->cuda_line);
}

/* Whether some branch of the kernel targets label `name`. */
static bool targeted(const ws_vcode *vc, const char *name) {
  for (size_t i = 0; i < vc->ninsns; i++)
    if (vc->insns[i].is_branch && strcmp(vc->insns[i].label, name) == 0) return true;
  return false;
}

static bool body(out_text *o, const ws_ptx_module *m, const kernel_out *k) {
  for (size_t i = 0; i < k->vc.ninsns; i++) {
    const ws_vc_insn *in = &k->vc.insns[i];
    const ws_ptx_stmt *st = &k->e->stmts[in->src];
    char buf[512], full[900];
    if (in->kind == WS_VC_LABEL) {
      if (!targeted(&k->vc, in->label)) continue; /* debug-info labels (Ltmp3) say nothing here */
      label_text(in->label, buf, sizeof buf);
      snprintf(full, sizeof full, "%s:", buf);
      if (!put_line(o, (origin){0, 0, 0}, full)) return false;
      continue;
    }
    if (same_register_copy(&k->vc, in)) continue;
    insn_text(&k->vc, in, buf, sizeof buf);
    bool first = i == 0 || k->vc.insns[i - 1].src != in->src;
    char where[300];
    cuda_where(m, st, where, sizeof where);
    if (first)
      snprintf(full, sizeof full, "%-44s // %u: %s%s", buf, st->line, st->op, where);
    else
      snprintf(full, sizeof full, "%s", buf);
    if (!put_line(o, (origin){st->line, st->cuda_file, st->cuda_line}, full)) return false;
  }
  return true;
}

/* The CUDA line where entry e starts: the first of its .loc lines in the
 * source file (the .file whose name ends as the source's does). */
static uint32_t entry_line(const ws_ptx_module *m, const ws_ptx_entry *e, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  uint32_t best = 0;
  for (size_t i = 0; i < e->nstmts; i++) {
    const ws_ptx_stmt *st = &e->stmts[i];
    if (st->inlined) continue; /* a device function's lines, maybe above the kernel */
    if (!st->cuda_line || st->cuda_file >= m->nfiles || !m->files[st->cuda_file]) continue;
    const char *f = strrchr(m->files[st->cuda_file], '/');
    if (strcmp(f ? f + 1 : m->files[st->cuda_file], base) != 0) continue;
    if (!best || st->cuda_line < best) best = st->cuda_line;
  }
  return best;
}

static void free_source_params(ws_srcparam *names, size_t n) {
  for (size_t i = 0; names && i < n; i++) free(names[i].layout);
  free(names);
}

/* The layouts of the structs passed by value, where the source defines them. */
static bool source_layouts(const ws_ptx_entry *e, const ws_ptx_opts *opts, ws_srcparam *names) {
  for (size_t i = 0; i < e->nparams; i++) {
    if (!ws_kparams_is_struct(&e->params[i]) || names[i].is_ptr || !names[i].type[0]) continue;
    ws_srcstruct *s = malloc(sizeof *s);
    if (!s) return false;
    if (ws_srcnames_struct(opts->cuda_text, opts->cuda_len, names[i].type, s))
      names[i].layout = s;
    else
      free(s);
  }
  return true;
}

/* The params' names from the CUDA source, or NULL (positional names). */
static ws_srcparam *source_params(const ws_ptx_module *m, const ws_ptx_entry *e, const ws_ptx_opts *opts) {
  if (!opts || !opts->cuda_text || !e->nparams) return NULL;
  uint32_t line = entry_line(m, e, opts->cuda_path);
  char *src = ws_cuda_demangle(e->name);
  ws_srcparam *names = calloc(e->nparams, sizeof *names);
  bool ok = src && names;
  if (ok) {
    src[strcspn(src, "<")] = '\0'; /* the template's own name */
    ok = ws_srcnames_params(opts->cuda_text, opts->cuda_len, line, src, e->nparams, names);
  }
  free(src);
  if (ok) ok = source_layouts(e, opts, names);
  if (!ok) free_source_params(names, names ? e->nparams : 0);
  return ok ? names : NULL;
}

static ws_status one_kernel(ws_ctx *ctx, const char *file, const ws_ptx_module *m, size_t ei,
                            const ws_ptx_opts *opts, out_text *o) {
  uint32_t max_regs = opts && opts->max_regs ? opts->max_regs : WS_NUM_REGS;
  const ws_ptx_entry *e = &m->entries[ei];
  kernel_out k = {.e = e};
  kernel_name_of(m, ei, k.name, sizeof k.name);
  ws_srcparam *names = source_params(m, e, opts);
  ws_status r = ws_ptx_lower_entry(ctx, file, m, e, names, &k.vc, &k.shared, &k.nshared, &k.params,
                                   &k.nparams, &k.local_bytes);
  free_source_params(names, e->nparams);
  k.spill_bytes = (k.local_bytes + 15) / 16 * 16; /* spill slots after the local variables */
  if (o->nvars == o->vars_cap) {
    size_t cap = o->vars_cap ? o->vars_cap * 2 : 8;
    uint32_t *v = realloc(o->var_bytes, cap * sizeof *v);
    if (!v)
      r = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", file);
    else
      o->var_bytes = v, o->vars_cap = cap;
  }
  if (o->nvars < o->vars_cap) o->var_bytes[o->nvars++] = k.spill_bytes;
  if (r == WS_OK) r = ws_vcode_alloc(ctx, &k.vc, max_regs, k.name, &k.regs, &k.spill_bytes);
  if (r == WS_OK) r = header(ctx, file, o, &k);
  if (r == WS_OK && !body(o, m, &k)) r = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", file);
  if (r == WS_OK) put_line(o, (origin){0, 0, 0}, "");
  ws_vcode_free(&k.vc);
  free(k.shared);
  free(k.params);
  return r;
}

/* ---- the program ---------------------------------------------------------------------------- */

static ws_status infos(ws_ptx_result *res, const ws_ptx_module *m, const out_text *o) {
  const ws_program *p = res->prog;
  res->kernels = calloc(p->nkernels ? p->nkernels : 1, sizeof *res->kernels);
  if (!res->kernels) return WS_ERR_NOMEM;
  res->nkernels = p->nkernels;
  for (size_t i = 0; i < p->nkernels; i++) {
    const ws_kernel *k = &p->kernels[i];
    ws_ptx_kernel_info *ki = &res->kernels[i];
    snprintf(ki->name, sizeof ki->name, "%s", k->name);
    for (size_t j = 0; j < m->nentries; j++) {
      char name[WS_NAME_MAX];
      kernel_name_of(m, j, name, sizeof name);
      if (m->entries[j].is_func || strcmp(name, k->name) != 0) continue;
      ki->ptx_name = strdup(m->entries[j].name);
      ki->source_name = ws_cuda_demangle(m->entries[j].name);
    }
    ki->regs_per_thread = k->regs_per_thread;
    ki->static_shared_bytes = k->shared_size_bytes;
    ki->local_bytes = k->local_bytes;
    uint32_t vars = i < o->nvars ? o->var_bytes[i] : 0;
    ki->spill_bytes = k->local_bytes > vars ? k->local_bytes - vars : 0;
    for (uint32_t s = 0; s < k->nshared; s++) ki->dynamic_shared |= k->shared[s].size_bytes == 0;
    ki->ninsns = k->ninsns;
    size_t n = k->ninsns ? k->ninsns : 1;
    ki->ptx_line = calloc(n, sizeof *ki->ptx_line);
    ki->cuda_file = calloc(n, sizeof *ki->cuda_file);
    ki->cuda_line = calloc(n, sizeof *ki->cuda_line);
    if (!ki->ptx_line || !ki->cuda_file || !ki->cuda_line || !ki->ptx_name || !ki->source_name)
      return WS_ERR_NOMEM;
    for (uint32_t j = 0; j < k->ninsns; j++) {
      uint32_t l = k->insn_lines ? k->insn_lines[j] : 0;
      if (l == 0 || l > o->line) continue;
      ki->ptx_line[j] = o->lines[l].ptx_line;
      ki->cuda_file[j] = o->lines[l].cuda_file;
      ki->cuda_line[j] = o->lines[l].cuda_line;
    }
  }
  return WS_OK;
}

/* The program's per-instruction lines, which fault and check messages
 * quote, become the user's file's lines: the PTX line for a .ptx file, the
 * CUDA line for a .cu one (0 where the instruction came from a header or
 * from code clang made). */
static void user_lines(ws_ptx_result *res, const ws_ptx_module *m, const ws_ptx_opts *opts) {
  const char *cu = opts && opts->cuda_text ? opts->cuda_path : NULL;
  const char *base = cu ? strrchr(cu, '/') : NULL;
  base = base ? base + 1 : cu;
  for (size_t i = 0; i < res->nkernels; i++) {
    ws_kernel *k = &res->prog->kernels[i];
    const ws_ptx_kernel_info *ki = &res->kernels[i];
    for (uint32_t j = 0; k->insn_lines && j < k->ninsns; j++) {
      if (!cu) {
        k->insn_lines[j] = ki->ptx_line[j];
        continue;
      }
      uint32_t f = ki->cuda_file[j];
      const char *name = f < m->nfiles && m->files[f] ? m->files[f] : "";
      const char *fb = strrchr(name, '/');
      k->insn_lines[j] = strcmp(fb ? fb + 1 : name, base) == 0 ? ki->cuda_line[j] : 0;
    }
  }
}

/* The constant bank's initial bytes; at most 64 KiB, CUDA's __constant__ limit. */
static ws_status const_image(ws_ctx *ctx, ws_ptx_result *res, const ws_ptx_module *m, const char *file) {
  uint32_t n = ws_ptx_const_layout(m, NULL, NULL, NULL);
  if (n == 0) return WS_OK;
  if (n > (64u << 10))
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%s: %u bytes of .const variables; the constant bank holds 64 KiB",
                       file, n);
  res->const_image = calloc(1, n);
  if (!res->const_image) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", file);
  res->const_bytes = n;
  ws_ptx_const_layout(m, res->const_image, NULL, NULL);
  res->consts = calloc(m->nglobals ? m->nglobals : 1, sizeof *res->consts);
  if (!res->consts) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", file);
  for (size_t i = 0; i < m->nglobals; i++) {
    const ws_ptx_stmt *g = &m->globals[i];
    if (strcmp(g->space, ".const") != 0) continue;
    ws_ptx_const_sym *c = &res->consts[res->nconsts++];
    char *src = ws_cuda_demangle(g->name);
    ws_ptx_kernel_name(src ? src : g->name, c->name, sizeof c->name);
    free(src);
    ws_ptx_const_layout(m, NULL, g->name, &c->offset_bytes);
    c->size_bytes = (uint32_t)g->size_bytes;
  }
  return WS_OK;
}

static ws_status take_files(ws_ptx_result *res, ws_ptx_module *m) {
  res->files = m->files, res->nfiles = m->nfiles;
  m->files = NULL, m->nfiles = 0;
  return WS_OK;
}

ws_status ws_ptx_translate(ws_ctx *ctx, const char *text, size_t len, const char *filename,
                           const ws_ptx_opts *opts, ws_ptx_result *out) {
  memset(out, 0, sizeof *out);
  uint32_t max_regs = opts && opts->max_regs ? opts->max_regs : WS_NUM_REGS;
  if (max_regs > WS_NUM_REGS)
    return ws_ctx_fail(ctx, WS_ERR_USAGE, "--max-regs must be 1..%u, got %u", WS_NUM_REGS, max_regs);
  ws_ptx_module m;
  ws_status r = ws_ptx_parse(ctx, text, len, filename, &m);
  if (r != WS_OK) return r;
  out_text o = {0};
  ws_text_init(&o.t);
  size_t kernels = 0;
  for (size_t i = 0; r == WS_OK && i < m.nentries; i++) {
    if (m.entries[i].is_func) continue; /* a device function is only reached by calls, inlined there */
    r = ws_inliner_expand(ctx, filename, &m, i);
    if (r == WS_OK) r = one_kernel(ctx, filename, &m, i, opts, &o);
    kernels++;
  }
  if (r == WS_OK && kernels == 0)
    r = ws_ctx_fail(ctx, WS_ERR_INVALID,
                    "%s: no kernel (.entry) in the PTX (a template kernel is compiled only for the instances "
                    "asked for: --instantiate 'NAME<ARGS>')",
                    filename);
  if (r == WS_OK && o.t.failed) r = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", filename);
  if (r == WS_OK) {
    out->wsa = ws_text_take(&o.t);
    char name[600];
    snprintf(name, sizeof name, "%s (translated)", filename);
    r = ws_asm_parse(ctx, out->wsa, strlen(out->wsa), name, &out->prog);
  }
  if (r == WS_OK && infos(out, &m, &o) != WS_OK)
    r = ws_ctx_fail(ctx, WS_ERR_NOMEM, "%s: out of memory", filename);
  if (r == WS_OK) user_lines(out, &m, opts);
  if (r == WS_OK) r = const_image(ctx, out, &m, filename);
  if (r == WS_OK) r = take_files(out, &m);
  ws_text_free(&o.t);
  free(o.lines);
  free(o.var_bytes);
  ws_ptx_module_free(&m);
  if (r != WS_OK) ws_ptx_result_free(out);
  return r;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

bool ws_ptx_is_source(const char *path) { return ends_with(path, ".ptx") || ends_with(path, ".cu"); }

ws_status ws_ptx_load_file(ws_ctx *ctx, const char *path, const ws_cuda_opts *cuda, const ws_ptx_opts *opts,
                           ws_ptx_result *out) {
  char *data = NULL;
  size_t size = 0;
  memset(out, 0, sizeof *out);
  bool is_cu = ends_with(path, ".cu");
  ws_status r = is_cu ? ws_cuda_compile(ctx, path, cuda, &data, &size)
                      : ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "PTX", &data, &size);
  char name[WS_CUDA_PATH_MAX_BYTES + 16];
  snprintf(name, sizeof name, "%s%s", path, is_cu ? " (PTX)" : "");
  ws_ptx_opts with = opts ? *opts : (ws_ptx_opts){0};
  char *text = NULL;
  size_t text_len = 0;
  /* the source itself names the params; a file that cannot be read again leaves positional names */
  if (r == WS_OK && is_cu &&
      ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "CUDA source", &text, &text_len) == WS_OK)
    with.cuda_path = path, with.cuda_text = text, with.cuda_len = text_len;
  if (r == WS_OK) r = ws_ptx_translate(ctx, data, size, name, &with, out);
  free(text);
  free(data);
  return r;
}

ws_program *ws_ptx_result_take_program(ws_ptx_result *r) {
  ws_program *p = r->prog;
  r->prog = NULL;
  return p;
}

void ws_ptx_result_free(ws_ptx_result *r) {
  free(r->wsa);
  free(r->const_image);
  free(r->consts);
  ws_program_destroy(r->prog);
  for (size_t i = 0; i < r->nkernels; i++) {
    free(r->kernels[i].ptx_name);
    free(r->kernels[i].source_name);
    free(r->kernels[i].ptx_line);
    free(r->kernels[i].cuda_file);
    free(r->kernels[i].cuda_line);
  }
  free(r->kernels);
  for (size_t i = 0; i < r->nfiles; i++) free(r->files[i]);
  free(r->files);
  memset(r, 0, sizeof *r);
}
