/* sanitize.c - the race, init and sync checks (see sanitize.h).
 *
 * Design: the race shadow keeps, per aligned 4-byte word, the last writer
 * and up to two readers since it: the first reader, and the latest one from
 * another warp than the first; a reader that happens before a new read of
 * all its bytes is dropped, since whatever races with it races with the new
 * read too. Each recorded access carries the bytes of the word it touched
 * (byte and halfword stores write part of a word), and two accesses race
 * only when they share a byte: lanes storing to different bytes of one word
 * do not. Accesses by one warp in one epoch are ordered alike with every
 * other access, so their bytes merge into one record (which names the
 * first of them, in a report the lane of the lowest byte when lanes store
 * bytes in ascending order); a write by another
 * warp that leaves some of the last writer's bytes unwritten replaces it,
 * and a later hazard on those bytes is missed. Within
 * a CTA a later writer differs in warp from at least one of two readers of
 * different warps, so no write-after-read is missed for want of room; across
 * CTAs a reader can be displaced, and a hazard with it missed. Shared memory has one shadow per CTA
 * object, indexed directly; global memory a shadow of 4 KiB pages in a hash
 * table for the launch, capped (WS_SANITIZE_GLOBAL_CAP_MIB) so a large
 * problem is refused with a message rather than exhausting the host. A
 * barrier release bumps the CTA's epoch instead of clearing anything, so a
 * release costs nothing per word. */
#include "sim/exec/sanitize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "sim/exec/exec_int.h"
#include "sim/exec/mem.h"

#define LANES WS_WARP_LANES
#define GPAGE_SHIFT 12u
#define GPAGE_WORDS (1u << (GPAGE_SHIFT - 2u))
#define GPAGE_CAP ((WS_SANITIZE_GLOBAL_CAP_MIB << 20) >> GPAGE_SHIFT)
#define NO_PC UINT32_MAX

/* One access in the shadow; epoch 0 means none. */
typedef struct san_site {
  uint32_t pc;
  uint32_t epoch; /* the CTA's barrier epoch at the access */
  uint32_t cta;   /* linear CTA id (0 for shared memory, which is per CTA) */
  uint16_t tid;   /* thread in the CTA: warp * 32 + lane */
  uint8_t kind;   /* ws_exec_access */
  uint8_t bytes;  /* the word's bytes it touched: bit i is byte i */
} san_site;

typedef struct san_word {
  san_site w, r1, r2;
} san_word;

typedef struct gpage {
  uint64_t key; /* address >> GPAGE_SHIFT */
  san_word *words;
} gpage;

/* The registers and predicates one instruction reads and writes. */
typedef struct san_regs {
  uint8_t src[12];
  uint8_t dst[4];
  uint8_t nsrc, ndst;
  uint8_t psrc;  /* bit mask of predicates read by the executing lanes */
  uint8_t pdst;  /* predicate written; WS_PRED_PT: none */
  uint8_t pdst2; /* HSETP2's second predicate written; WS_PRED_PT: none */
} san_regs;

struct ws_sanitize {
  uint32_t checks;
  san_regs *regs; /* per instruction (init check) */
  gpage *table;   /* global race shadow, open addressing */
  size_t cap, used;
};

struct ws_sanitize_cta {
  ws_sanitize *san;
  uint32_t nwarps, nrows;
  uint32_t *reg_def;  /* [warp][row]: lanes that wrote the register */
  uint32_t *pred_def; /* [warp][8] */
  san_word *smem;     /* race shadow, per word */
  uint32_t *smem_def; /* init: 1 bit per byte written in this CTA */
  uint32_t smem_words, smem_bytes;
  uint32_t epoch;
  uint32_t *exit_pc; /* per warp: the last EXIT it executed; NO_PC: none */
  char pending[WS_ERRMSG_MAX_BYTES];
};

/* ---- register sets ------------------------------------------------------- */

static void add_regs(uint8_t *list, uint8_t *n, unsigned cap, unsigned reg, unsigned count) {
  for (unsigned k = 0; k < count && reg + k < WS_REG_RZ && *n < cap; k++) list[(*n)++] = (uint8_t)(reg + k);
}

static void regs_of(const ws_insn *insn, san_regs *out) {
  memset(out, 0, sizeof *out);
  out->pdst = out->pdst2 = WS_PRED_PT;
  unsigned n = ws_isa_nopnds((ws_op)insn->op);
  for (unsigned j = 0; j < n && j < WS_MAX_OPERANDS; j++) {
    const ws_operand *o = &insn->opnd[j];
    char kind = ws_isa_sig((ws_op)insn->op, j).kind;
    if (kind == 'd' && o->kind == WS_OPND_REG)
      add_regs(out->dst, &out->ndst, sizeof out->dst, o->reg, ws_isa_opnd_nregs(insn, j));
    else if ((kind == 'r' || kind == 'i' || kind == 'f' || kind == 'h') && o->kind == WS_OPND_REG)
      add_regs(out->src, &out->nsrc, sizeof out->src, o->reg, ws_isa_opnd_nregs(insn, j));
    else if ((kind == 'g' || kind == 'm' || kind == 'o') && o->kind == WS_OPND_MEM)
      add_regs(out->src, &out->nsrc, sizeof out->src, o->reg, kind == 'g' ? 2u : 1u);
    else if (kind == 'q' && o->kind == WS_OPND_PRED && o->reg < WS_PRED_PT)
      out->psrc |= (uint8_t)(1u << o->reg);
    else if (kind == 'p' && o->kind == WS_OPND_PRED && j == 0)
      out->pdst = o->reg;
    else if (kind == 'p' && o->kind == WS_OPND_PRED)
      out->pdst2 = o->reg;
  }
}

ws_status ws_sanitize_create(ws_ctx *ctx, uint32_t checks, const ws_kernel *k, ws_sanitize **out) {
  ws_sanitize *san = calloc(1, sizeof *san);
  if (san) san->regs = calloc(k->ninsns ? k->ninsns : 1, sizeof *san->regs);
  if (!san || !san->regs) {
    ws_sanitize_destroy(san);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted setting up the checks");
  }
  san->checks = checks;
  for (uint32_t i = 0; i < k->ninsns; i++) regs_of(&k->insns[i], &san->regs[i]);
  *out = san;
  return WS_OK;
}

void ws_sanitize_destroy(ws_sanitize *san) {
  if (!san) return;
  for (size_t i = 0; i < san->cap; i++) free(san->table[i].words);
  free(san->table);
  free(san->regs);
  free(san);
}

/* ---- per CTA --------------------------------------------------------------- */

ws_status ws_sanitize_cta_create(ws_ctx *ctx, ws_sanitize *san, const ws_cta *cta, ws_sanitize_cta **out) {
  ws_sanitize_cta *sc = calloc(1, sizeof *sc);
  bool ok = sc != NULL;
  if (ok) {
    sc->san = san;
    sc->nwarps = cta->nwarps;
    sc->nrows = cta->nwarps ? cta->warps[0].nrows : 0;
    sc->smem_words = cta->smem_bytes / 4;
    sc->smem_bytes = cta->smem_bytes;
    sc->reg_def = calloc((size_t)sc->nwarps * sc->nrows + 1, sizeof *sc->reg_def);
    sc->pred_def = calloc((size_t)sc->nwarps * 8 + 1, sizeof *sc->pred_def);
    sc->exit_pc = calloc(sc->nwarps + 1u, sizeof *sc->exit_pc);
    sc->smem_def = calloc(sc->smem_bytes / 32 + 1, sizeof *sc->smem_def);
    if (san->checks & WS_CHECK_RACE) sc->smem = calloc(sc->smem_words + 1u, sizeof *sc->smem);
    ok = sc->reg_def && sc->pred_def && sc->exit_pc && sc->smem_def &&
         (sc->smem || !(san->checks & WS_CHECK_RACE));
  }
  if (!ok) {
    ws_sanitize_cta_destroy(sc);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted setting up the checks of a CTA");
  }
  *out = sc;
  return WS_OK;
}

void ws_sanitize_cta_destroy(ws_sanitize_cta *sc) {
  if (!sc) return;
  free(sc->reg_def);
  free(sc->pred_def);
  free(sc->exit_pc);
  free(sc->smem_def);
  free(sc->smem);
  free(sc);
}

/* A new CTA: nothing written; a new epoch, so the shared shadow's entries,
 * which belong to the previous CTA of this object, are all stale. */
void ws_sanitize_cta_reset(ws_sanitize_cta *sc) {
  memset(sc->reg_def, 0, (size_t)sc->nwarps * sc->nrows * sizeof *sc->reg_def);
  memset(sc->pred_def, 0, (size_t)sc->nwarps * 8 * sizeof *sc->pred_def);
  for (uint32_t w = 0; w < sc->nwarps; w++) {
    sc->pred_def[w * 8 + WS_PRED_PT] = UINT32_MAX;
    sc->exit_pc[w] = NO_PC;
  }
  memset(sc->smem_def, 0, (sc->smem_bytes / 32 + 1) * sizeof *sc->smem_def);
  sc->epoch++;
  sc->pending[0] = '\0';
}

/* ---- report wording --------------------------------------------------------- */

static uint32_t line_of(const ws_kernel *k, uint32_t pc) {
  return k->insn_lines && pc < k->ninsns ? k->insn_lines[pc] : 0;
}

/* "CTA (x,y,z) warp w lane l pc p line n: INSN" for a recorded access. */
static void site_text(const ws_exec_site *s, uint64_t cta, uint32_t tid, uint32_t pc, char *buf,
                      size_t size) {
  const ws_kernel *k = s->cta->launch->kernel;
  const ws_dim3 g = s->cta->launch->grid;
  char text[160];
  ws_disasm_insn(k, &k->insns[pc], text, sizeof text);
  snprintf(buf, size, "CTA (%u,%u,%u) warp %u lane %u pc %u line %u: %s", (unsigned)(cta % g.x),
           (unsigned)(cta / g.x % g.y), (unsigned)(cta / ((uint64_t)g.x * g.y)), tid / LANES, tid % LANES, pc,
           line_of(k, pc), text);
}

/* ---- init check: registers ---------------------------------------------------- */

static ws_status uninit_reg(const ws_exec_site *s, uint32_t lanes, char kind, unsigned reg) {
  uint32_t lane = (uint32_t)__builtin_ctz(lanes);
  return ws_fault_report(
      s, WS_ERR_FAULT, lane, "init check: read of %s%u, never written by this thread, at line %u",
      kind == 'P' ? "predicate P" : "register R", reg, line_of(s->cta->launch->kernel, s->pc));
}

static ws_status check_reg_reads(ws_sanitize_cta *sc, const ws_exec_site *s) {
  const san_regs *r = &sc->san->regs[s->pc];
  const uint32_t *def = sc->reg_def + (size_t)s->warp_idx * sc->nrows;
  const uint32_t *pdef = sc->pred_def + (size_t)s->warp_idx * 8;
  const ws_insn *insn = s->insn;
  uint32_t active = ws_simt_top(&s->warp->simt)->mask;
  if (active & ~pdef[insn->guard & 7u])
    return uninit_reg(s, active & ~pdef[insn->guard & 7u], 'P', insn->guard);
  for (unsigned i = 0; i < r->nsrc; i++)
    if (r->src[i] < sc->nrows && (s->exec & ~def[r->src[i]]))
      return uninit_reg(s, s->exec & ~def[r->src[i]], 'R', r->src[i]);
  for (unsigned p = 0; p < WS_PRED_PT; p++)
    if ((r->psrc >> p & 1u) && (s->exec & ~pdef[p])) return uninit_reg(s, s->exec & ~pdef[p], 'P', p);
  return WS_OK;
}

static void mark_reg_writes(ws_sanitize_cta *sc, const ws_exec_site *s) {
  const san_regs *r = &sc->san->regs[s->pc];
  uint32_t *def = sc->reg_def + (size_t)s->warp_idx * sc->nrows;
  for (unsigned i = 0; i < r->ndst; i++)
    if (r->dst[i] < sc->nrows) def[r->dst[i]] |= s->exec;
  if (r->pdst < WS_PRED_PT) sc->pred_def[(size_t)s->warp_idx * 8 + r->pdst] |= s->exec;
  if (r->pdst2 < WS_PRED_PT) sc->pred_def[(size_t)s->warp_idx * 8 + r->pdst2] |= s->exec;
}

ws_status ws_sanitize_before(ws_sanitize_cta *sc, const ws_exec_site *s) {
  if (s->insn->op == WS_OP_EXIT && s->exec) sc->exit_pc[s->warp_idx] = s->pc;
  return (sc->san->checks & WS_CHECK_INIT) ? check_reg_reads(sc, s) : WS_OK;
}

/* ---- init check: memory ------------------------------------------------------- */

static ws_status uninit_mem(const ws_exec_site *s, uint32_t lane, ws_space sp, uint64_t addr) {
  uint32_t line = line_of(s->cta->launch->kernel, s->pc);
  if (sp == WS_SPACE_SHARED)
    return ws_fault_report(s, WS_ERR_FAULT, lane,
                           "init check: read of shared memory at 0x%" PRIx64
                           ", never written by this CTA, at line %u",
                           addr, line);
  return ws_fault_report(s, WS_ERR_FAULT, lane,
                         "init check: read of global memory at 0x%016" PRIx64
                         ", never written since its allocation, at line %u",
                         addr, line);
}

static ws_status init_shared(ws_sanitize_cta *sc, const ws_exec_site *s, uint32_t lane, uint64_t addr,
                             uint32_t width, ws_exec_access kind) {
  for (uint64_t b = addr; b < addr + width; b++) {
    uint32_t *word = &sc->smem_def[b / 32];
    uint32_t bit = 1u << (b % 32);
    if (kind != ACC_WRITE && !(*word & bit)) return uninit_mem(s, lane, WS_SPACE_SHARED, b);
    *word |= bit;
  }
  return WS_OK;
}

static ws_status init_global(const ws_exec_site *s, uint32_t lane, uint64_t addr, uint32_t width,
                             ws_exec_access kind) {
  ws_mem *mem = s->cta->launch->mem;
  uint64_t first = 0;
  if (kind != ACC_WRITE && ws_mem_find_uninit(mem, addr, width, &first))
    return uninit_mem(s, lane, WS_SPACE_GLOBAL, first);
  if (kind != ACC_READ && !ws_mem_mark_init(mem, addr, width))
    return ws_ctx_fail(s->ctx, WS_ERR_NOMEM, "host memory exhausted tracking initialized bytes");
  return WS_OK;
}

/* ---- race check ------------------------------------------------------------- */

/* Whether recorded access a happens before the current access c. */
static bool ordered(const san_site *a, const san_site *c) {
  if (!a->epoch) return true;
  if (a->cta != c->cta) return false;
  return a->tid / LANES == c->tid / LANES || a->epoch != c->epoch;
}

static ws_status hazard(const ws_exec_site *s, ws_space sp, uint64_t addr, const san_site *cur,
                        const san_site *prev) {
  static const char *const names[] = {"read", "write", "atomic"};
  char a[320], b[320];
  const uint64_t here = s->cta->linear_id; /* shared memory's sites are all this CTA's */
  site_text(s, sp == WS_SPACE_SHARED ? here : cur->cta, cur->tid, cur->pc, a, sizeof a);
  site_text(s, sp == WS_SPACE_SHARED ? here : prev->cta, prev->tid, prev->pc, b, sizeof b);
  char where[40];
  if (sp == WS_SPACE_SHARED)
    snprintf(where, sizeof where, "0x%" PRIx64, addr);
  else
    snprintf(where, sizeof where, "0x%016" PRIx64, addr);
  return ws_fault_report(s, WS_ERR_FAULT, cur->tid % LANES,
                         "race check: %s-after-%s hazard on %s memory at %s\n    %-5s by %s\n    %-5s by %s",
                         names[cur->kind], names[prev->kind], sp == WS_SPACE_SHARED ? "shared" : "global",
                         where, names[cur->kind], a, names[prev->kind], b);
}

/* Whether recorded access a and the current access c share a byte and
 * neither happens before the other. */
static bool conflicts(const san_site *a, const san_site *c) {
  return a->epoch && (a->bytes & c->bytes) && !ordered(a, c);
}

/* One CTA, warp and epoch: ordered alike with every other access. */
static bool same_class(const san_site *a, const san_site *c) {
  return a->epoch == c->epoch && a->cta == c->cta && a->tid / LANES == c->tid / LANES;
}

/* Drops reader r when it happens before cur and cur covers its bytes. */
static void drop_covered(san_site *r, const san_site *cur) {
  if (ordered(r, cur) && !(r->bytes & ~cur->bytes)) r->epoch = 0;
}

static void note_read(san_word *wd, const san_site *cur) {
  drop_covered(&wd->r2, cur);
  drop_covered(&wd->r1, cur);
  if (!wd->r1.epoch) wd->r1 = wd->r2, wd->r2.epoch = 0;
  san_site *same = wd->r1.epoch && same_class(&wd->r1, cur)   ? &wd->r1
                   : wd->r2.epoch && same_class(&wd->r2, cur) ? &wd->r2
                                                              : NULL;
  if (same)
    same->bytes |= cur->bytes;
  else if (!wd->r1.epoch)
    wd->r1 = *cur;
  else if (!wd->r2.epoch || wd->r1.cta != cur->cta || wd->r1.tid / LANES != cur->tid / LANES)
    wd->r2 = *cur;
}

/* A write or atomic cur that raced with nothing: the readers of its bytes
 * happened before it, so it stands for them. */
static void note_write(san_word *wd, const san_site *cur) {
  if (wd->w.epoch && wd->w.kind == cur->kind && same_class(&wd->w, cur))
    wd->w.bytes |= cur->bytes;
  else
    wd->w = *cur;
  wd->r1.bytes &= (uint8_t)~cur->bytes;
  wd->r2.bytes &= (uint8_t)~cur->bytes;
  if (!wd->r2.bytes) wd->r2.epoch = 0;
  if (!wd->r1.bytes) wd->r1 = wd->r2, wd->r2.epoch = 0;
}

/* Checks access cur of the word at addr against its shadow, then records
 * it; a hazard names the first byte both accesses touched. */
static ws_status race_word(const ws_exec_site *s, ws_space sp, uint64_t addr, san_word *wd,
                           const san_site *cur) {
  bool both_atomic = cur->kind == ACC_ATOMIC && wd->w.kind == ACC_ATOMIC;
  const san_site *prev = NULL;
  if (!both_atomic && conflicts(&wd->w, cur))
    prev = &wd->w;
  else if (cur->kind != ACC_READ && conflicts(&wd->r1, cur))
    prev = &wd->r1;
  else if (cur->kind != ACC_READ && conflicts(&wd->r2, cur))
    prev = &wd->r2;
  if (prev) return hazard(s, sp, addr + (unsigned)__builtin_ctz(prev->bytes & cur->bytes), cur, prev);
  if (cur->kind == ACC_READ)
    note_read(wd, cur);
  else
    note_write(wd, cur);
  return WS_OK;
}

static uint64_t hash_key(uint64_t key, size_t cap) { return (key * 0x9E3779B97F4A7C15ull) >> 32 & (cap - 1); }

static bool grow_table(ws_sanitize *san) {
  size_t cap = san->cap ? san->cap * 2 : 256;
  gpage *t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < san->cap; i++) {
    if (!san->table[i].words) continue;
    size_t j = hash_key(san->table[i].key, cap);
    while (t[j].words) j = (j + 1) & (cap - 1);
    t[j] = san->table[i];
  }
  free(san->table);
  san->table = t;
  san->cap = cap;
  return true;
}

/* The shadow page of global address addr, made on first touch. */
static ws_status global_page(ws_sanitize *san, ws_ctx *ctx, uint64_t addr, san_word **out) {
  uint64_t key = addr >> GPAGE_SHIFT;
  if (san->cap) {
    size_t j = hash_key(key, san->cap);
    while (san->table[j].words && san->table[j].key != key) j = (j + 1) & (san->cap - 1);
    if (san->table[j].words) return *out = san->table[j].words, WS_OK;
  }
  if (san->used >= GPAGE_CAP)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "race check: the kernel touched more than %u MiB of global memory, the most the "
                       "race check follows; check a smaller problem",
                       WS_SANITIZE_GLOBAL_CAP_MIB);
  if ((san->used + 1) * 2 > san->cap && !grow_table(san))
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted by the race check's shadow");
  size_t j = hash_key(key, san->cap);
  while (san->table[j].words) j = (j + 1) & (san->cap - 1);
  san->table[j].words = calloc(GPAGE_WORDS, sizeof(san_word));
  if (!san->table[j].words)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted by the race check's shadow");
  san->table[j].key = key;
  san->used++;
  return *out = san->table[j].words, WS_OK;
}

static ws_status race_access(ws_sanitize_cta *sc, const ws_exec_site *s, ws_space sp, uint32_t lane,
                             uint64_t addr, uint32_t width, ws_exec_access kind) {
  san_site cur = {s->pc, sc->epoch, 0, (uint16_t)(s->warp_idx * LANES + lane), (uint8_t)kind, 0};
  if (sp == WS_SPACE_GLOBAL) cur.cta = (uint32_t)s->cta->linear_id;
  for (uint64_t a = addr & ~3ull; a < addr + width; a += 4) {
    san_word *wd = NULL;
    ws_status st = WS_OK;
    uint64_t from = a > addr ? a : addr, to = a + 4 < addr + width ? a + 4 : addr + width;
    cur.bytes = (uint8_t)(((1u << (to - from)) - 1u) << (from - a));
    if (sp == WS_SPACE_SHARED) {
      wd = &sc->smem[a / 4];
    } else {
      st = global_page(sc->san, s->ctx, a, &wd);
      if (st == WS_OK) wd += (a >> 2) & (GPAGE_WORDS - 1);
    }
    if (st == WS_OK) st = race_word(s, sp, a, wd, &cur);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

/* Two lanes of one store writing one word: which value lands is undefined. */
static ws_status same_insn_writes(const ws_exec_site *s, ws_space sp, const uint64_t *addr, uint32_t width) {
  for (uint32_t i = 0; i < LANES; i++) {
    if (!(s->exec >> i & 1u)) continue;
    for (uint32_t j = i + 1; j < LANES; j++) {
      if (!(s->exec >> j & 1u) || addr[i] >= addr[j] + width || addr[j] >= addr[i] + width) continue;
      san_site a = {s->pc, 1, 0, (uint16_t)(s->warp_idx * LANES + j), ACC_WRITE, 0xf};
      san_site b = a;
      b.tid = (uint16_t)(s->warp_idx * LANES + i);
      if (sp == WS_SPACE_GLOBAL) a.cta = b.cta = (uint32_t)s->cta->linear_id;
      return hazard(s, sp, addr[i] > addr[j] ? addr[i] : addr[j], &a, &b);
    }
  }
  return WS_OK;
}

/* ---- memory accesses of one step ---------------------------------------------- */

static ws_status check_access(ws_sanitize_cta *sc, const ws_exec_site *s, ws_space sp, uint32_t lane,
                              uint64_t addr, uint32_t width, ws_exec_access kind) {
  ws_status st = WS_OK;
  if (sc->san->checks & WS_CHECK_RACE) st = race_access(sc, s, sp, lane, addr, width, kind);
  if (st != WS_OK || !(sc->san->checks & WS_CHECK_INIT)) return st;
  return sp == WS_SPACE_SHARED ? init_shared(sc, s, lane, addr, width, kind)
                               : init_global(s, lane, addr, width, kind);
}

static ws_status check_lanes(ws_sanitize_cta *sc, const ws_exec_site *s, ws_space sp, const uint64_t *addr,
                             ws_exec_access kind) {
  const uint32_t width = s->step->width_bytes;
  if (kind == ACC_WRITE && (sc->san->checks & WS_CHECK_RACE)) {
    ws_status st = same_insn_writes(s, sp, addr, width);
    if (st != WS_OK) return st;
  }
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    ws_status st = check_access(sc, s, sp, l, addr[l], width, kind);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

static ws_status check_memory(ws_sanitize_cta *sc, const ws_exec_site *s) {
  const ws_warp_step *step = s->step;
  const ws_space sp = (ws_space)step->space;
  if (sp != WS_SPACE_GLOBAL && sp != WS_SPACE_SHARED) return WS_OK;
  if (step->flags & WS_STEP_ASYNC) { /* LDGSTS: a global read, then a shared write */
    uint64_t dst[LANES];
    for (uint32_t l = 0; l < LANES; l++) dst[l] = step->addr2[l];
    ws_status st = check_lanes(sc, s, WS_SPACE_GLOBAL, step->addr, ACC_READ);
    return st == WS_OK ? check_lanes(sc, s, WS_SPACE_SHARED, dst, ACC_WRITE) : st;
  }
  ws_exec_access kind = ACC_READ;
  if (step->flags & WS_STEP_ATOMIC)
    kind = ACC_ATOMIC;
  else if (step->flags & WS_STEP_STORE)
    kind = ACC_WRITE;
  return check_lanes(sc, s, sp, step->addr, kind);
}

ws_status ws_sanitize_after(ws_sanitize_cta *sc, const ws_exec_site *s) {
  if (sc->pending[0]) {
    ws_status st = ws_fault_report(s, WS_ERR_FAULT, WS_FAULT_NO_LANE, "%s", sc->pending);
    sc->pending[0] = '\0';
    return st;
  }
  if (sc->san->checks & WS_CHECK_INIT) mark_reg_writes(sc, s);
  if (!s->exec || !(sc->san->checks & (WS_CHECK_RACE | WS_CHECK_INIT))) return WS_OK;
  return check_memory(sc, s);
}

/* ---- sync check ------------------------------------------------------------- */

/* The lanes of warp w that exist in the CTA. */
static uint32_t lanes_of(const ws_cta *cta, uint32_t w) {
  uint32_t n = cta->nthreads - w * LANES;
  return n >= LANES ? UINT32_MAX : (1u << n) - 1u;
}

static void note_skipped(ws_sanitize_cta *sc, const ws_cta *cta, uint32_t waiter, uint32_t bar_pc,
                         uint32_t w) {
  const ws_kernel *k = cta->launch->kernel;
  uint32_t gone = lanes_of(cta, w) & ~cta->warps[w].live;
  char exit_at[64];
  if (sc->exit_pc[w] == NO_PC)
    snprintf(exit_at, sizeof exit_at, "ran off the end of the kernel");
  else
    snprintf(exit_at, sizeof exit_at, "exited at pc %u line %u", sc->exit_pc[w], line_of(k, sc->exit_pc[w]));
  snprintf(sc->pending, sizeof sc->pending,
           "sync check: the barrier at pc %u line %u was released with warp %u waiting, but %d thread%s of "
           "warp %u %s without reaching it",
           bar_pc, line_of(k, bar_pc), waiter, __builtin_popcount(gone), gone & (gone - 1) ? "s" : "", w,
           exit_at);
}

static void note_mixed(ws_sanitize_cta *sc, const ws_cta *cta, uint32_t w0, uint32_t pc0, uint32_t w1,
                       uint32_t pc1) {
  const ws_kernel *k = cta->launch->kernel;
  snprintf(
      sc->pending, sizeof sc->pending,
      "sync check: warps waiting at different barriers were released together: warp %u at pc %u line %u, "
      "warp %u at pc %u line %u",
      w0, pc0, line_of(k, pc0), w1, pc1, line_of(k, pc1));
}

void ws_sanitize_barrier(ws_sanitize_cta *sc, const ws_cta *cta) {
  sc->epoch++;
  if (!(sc->san->checks & WS_CHECK_SYNC) || sc->pending[0]) return;
  uint32_t first = UINT32_MAX, first_pc = 0;
  for (uint32_t w = 0; w < cta->nwarps; w++) {
    if (cta->warps[w].state != WS_WARP_AT_BARRIER) continue;
    const ws_simt *st = &cta->warps[w].simt;
    uint32_t pc = st->entries[st->depth - 1].pc - 1; /* the BAR set its pc past itself */
    if (first == UINT32_MAX)
      first = w, first_pc = pc;
    else if (pc != first_pc)
      return note_mixed(sc, cta, first, first_pc, w, pc);
  }
  for (uint32_t w = 0; w < cta->nwarps; w++)
    if (lanes_of(cta, w) & ~cta->warps[w].live) return note_skipped(sc, cta, first, first_pc, w);
}
