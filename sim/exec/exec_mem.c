/* exec_mem.c - loads, stores, atomics and async copies, with fault reports.
 *
 * Design: every memory instruction first computes its per-lane addresses
 * into the step record (so a timing model sees exactly what was accessed),
 * then performs the accesses lane by lane in ascending lane order through one
 * accessor that knows the four spaces. That order is the documented rule for
 * conflicts: for stores to the same address the highest lane's value wins,
 * and atomics are serviced lane 0 first. Loads gather every lane's data
 * before writing any register, so `LDG R4, [R4]` is safe. The first failing
 * lane (the lowest, since lanes go in order) is reported and stops the
 * launch. Registers are little-endian words: register d holds the lowest
 * address (the host is little-endian x86-64, so memcpy keeps that order). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/f16.h"
#include "sim/exec/exec_int.h"
#include "sim/exec/local.h"
#include "sim/exec/slice.h"

#define LANES WS_WARP_LANES

static const char *const space_names[WS_SPACE_COUNT] = {"", "global", "shared", "constant", "param", "local"};
static const char *const access_names[] = {"read", "write", "atomic"};

static ws_status global_fault(const ws_exec_site *s, uint32_t lane, uint64_t addr, uint32_t width,
                              ws_exec_access kind, ws_mem_fault f) {
  if (f == WS_MEM_MISALIGNED)
    return ws_fault_report(s, WS_ERR_FAULT, lane, "misaligned global %s of size %u at 0x%016" PRIx64,
                           access_names[kind], width, addr);
  char why[256];
  ws_mem_explain(s->cta->launch->mem, addr, f, why, sizeof why);
  return ws_fault_report(s, f == WS_MEM_NOMEM ? WS_ERR_NOMEM : WS_ERR_FAULT, lane,
                         "invalid global %s of size %u at 0x%016" PRIx64 ": %s", access_names[kind], width,
                         addr, why);
}

/* Base pointer and size of a flat space (shared, constant, param). */
static uint8_t *window(const ws_exec_site *s, ws_space sp, uint64_t *size_bytes) {
  const ws_exec_launch *L = s->cta->launch;
  if (sp == WS_SPACE_SHARED) {
    *size_bytes = s->cta->smem_bytes;
    return s->cta->smem;
  }
  if (sp == WS_SPACE_CONST) {
    *size_bytes = L->const_bank_bytes;
    return (uint8_t *)(uintptr_t)L->const_bank;
  }
  *size_bytes = L->kernel->param_size_bytes;
  return (uint8_t *)(uintptr_t)L->params;
}

static ws_status window_fault(const ws_exec_site *s, ws_space sp, uint32_t lane, uint64_t addr,
                              uint32_t width, ws_exec_access kind, uint64_t size_bytes) {
  static const char *const what[WS_SPACE_COUNT] = {"", "", "shared window", "constant bank",
                                                   "parameter buffer"};
  if (addr & (width - 1))
    return ws_fault_report(s, WS_ERR_FAULT, lane, "misaligned %s %s of size %u at 0x%" PRIx64,
                           space_names[sp], access_names[kind], width, addr);
  return ws_fault_report(s, WS_ERR_FAULT, lane,
                         "invalid %s %s of size %u at 0x%" PRIx64
                         ": address is past the end of the %s (%s is %" PRIu64 " bytes)",
                         space_names[sp], access_names[kind], width, addr, what[sp], what[sp], size_bytes);
}

/* One lane's access of `width` bytes; atomics read here and write later. */
static ws_status access(const ws_exec_site *s, ws_space sp, uint32_t lane, uint64_t addr, void *data,
                        uint32_t width, ws_exec_access kind) {
  if (sp == WS_SPACE_GLOBAL) {
    ws_mem *mem = s->cta->launch->mem;
    ws_mem_fault f =
        kind == ACC_WRITE ? ws_mem_write(mem, addr, data, width) : ws_mem_read(mem, addr, data, width);
    return f == WS_MEM_OK ? WS_OK : global_fault(s, lane, addr, width, kind, f);
  }
  uint64_t size_bytes = 0;
  uint8_t *base = window(s, sp, &size_bytes);
  if ((addr & (width - 1)) || addr + width > size_bytes)
    return window_fault(s, sp, lane, addr, width, kind, size_bytes);
  if (kind == ACC_WRITE)
    memcpy(base + addr, data, width);
  else
    memcpy(data, base + addr, width);
  return WS_OK;
}

/* Per-lane addresses of memory operand i into out. */
static void addresses(const ws_exec_site *s, unsigned i, ws_space sp, uint64_t *out) {
  const ws_operand *o = &s->insn->opnd[i];
  const uint32_t *lo = ws_warp_src(s->warp, o->reg);
  if (sp == WS_SPACE_PARAM) {
    for (unsigned l = 0; l < LANES; l++) out[l] = (uint32_t)o->imm;
  } else if (sp == WS_SPACE_GLOBAL) {
    const uint32_t *hi = ws_warp_src(s->warp, (uint32_t)o->reg + 1);
    uint64_t off = (uint64_t)(int64_t)o->imm;
    for (unsigned l = 0; l < LANES; l++) out[l] = ((uint64_t)hi[l] << 32 | lo[l]) + off;
  } else {
    for (unsigned l = 0; l < LANES; l++) out[l] = (uint32_t)(lo[l] + (uint32_t)o->imm);
  }
}

static void note(const ws_exec_site *s, ws_space sp, uint16_t flags, uint32_t width) {
  s->step->space = (uint8_t)sp;
  s->step->flags |= flags;
  s->step->width_bytes = (uint8_t)width;
}

/* The common case of a flat-space load (shared, constant, param): every
 * active lane aligned and inside the window. Copies straight into the
 * registers (the addresses are already in the step record, so a destination that
 * is also the address register changes nothing) and returns true; false,
 * having touched nothing, when some lane faults, for the lane-by-lane path
 * to report the lowest such lane. */
static bool load_window_fast(const ws_exec_site *s, ws_space sp, uint32_t width) {
  uint64_t size_bytes = 0;
  const uint8_t *base = window(s, sp, &size_bytes);
  const uint64_t *addr = s->step->addr;
  const uint32_t exec = s->exec;
  if (sp == WS_SPACE_PARAM) { /* one address for every lane (addresses()): one check, one read */
    if ((addr[0] & (width - 1)) || addr[0] + width > size_bytes) return false;
    for (uint32_t r = 0; r < width / 4; r++) {
      uint32_t *d = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r), v;
      memcpy(&v, base + addr[0] + 4u * r, 4);
      if (exec == UINT32_MAX)
        for (uint32_t l = 0; l < LANES; l++) d[l] = v;
      else
        for (uint32_t l = 0; l < LANES; l++)
          if (exec >> l & 1u) d[l] = v;
    }
    return true;
  }
  uint64_t bad = 0;
  for (uint32_t l = 0; l < LANES; l++) {
    uint64_t lane = 0u - (uint64_t)(exec >> l & 1u);
    bad |= ((addr[l] & (width - 1)) | (uint64_t)(addr[l] + width > size_bytes)) & lane;
  }
  if (bad) return false;
  if (exec == UINT32_MAX && width == 16) { /* LDS.128 of a full warp: one 16-byte read per lane */
    uint32_t *d[4];
    for (uint32_t r = 0; r < 4; r++) d[r] = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r);
    for (uint32_t l = 0; l < LANES; l++) {
      uint32_t v[4];
      memcpy(v, base + addr[l], sizeof v);
      d[0][l] = v[0], d[1][l] = v[1], d[2][l] = v[2], d[3][l] = v[3];
    }
    return true;
  }
  for (uint32_t r = 0; r < width / 4; r++) {
    uint32_t *d = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r);
    if (exec == UINT32_MAX)
      for (uint32_t l = 0; l < LANES; l++) memcpy(&d[l], base + addr[l] + 4u * r, 4);
    else
      for (uint32_t l = 0; l < LANES; l++)
        if (exec >> l & 1u) memcpy(&d[l], base + addr[l] + 4u * r, 4);
  }
  return true;
}

/* The warp's global span for a per-warp access: true when every active lane
 * is aligned to a width of whole words and all of them lie inside one page
 * of one live allocation; *bytes and *lo then map address a to host byte
 * *bytes + (a - *lo) (*bytes NULL: an unwritten page, read as zero). The
 * same conditions under which every lane's ws_mem_read/ws_mem_write
 * succeeds, so the per-lane path is left for faults (and sub-word widths). */
/* The lanes' common address step (0: one address), or UINT64_MAX when
 * they have none. Accumulated without an early exit: a loop the compiler
 * vectorizes, unlike a minimum and maximum of 64-bit addresses. */
static uint64_t run_step(const uint64_t *addr) {
  uint64_t step = addr[1] - addr[0], off = 0;
  for (uint32_t l = 2; l < LANES; l++) off |= (addr[l] - addr[l - 1]) ^ step;
  return off ? UINT64_MAX : step;
}

static bool global_span(const ws_exec_site *s, uint32_t width, bool write, uint8_t **bytes, uint64_t *lo) {
  const uint64_t *addr = s->step->addr;
  const uint32_t exec = s->exec;
  if (width < 4) return false;
  uint64_t min = UINT64_MAX, max = 0, bits = 0;
  const uint64_t step = exec == UINT32_MAX ? run_step(addr) : UINT64_MAX;
  if (step == width || step == 0) { /* consecutive elements, or one: the ends are the span */
    if ((addr[0] & (width - 1)) || addr[LANES - 1] < addr[0]) return false;
    *lo = addr[0];
    return ws_mem_page_span(s->cta->launch->mem, addr[0], addr[LANES - 1] - addr[0] + width, write, bytes);
  }
  if (exec == UINT32_MAX) { /* the common full warp, without a test per lane */
    for (uint32_t l = 0; l < LANES; l++) {
      uint64_t a = addr[l];
      bits |= a;
      min = a < min ? a : min;
      max = a > max ? a : max;
    }
  } else {
    for (uint32_t l = 0; l < LANES; l++) {
      if (!(exec >> l & 1u)) continue;
      uint64_t a = addr[l];
      bits |= a;
      min = a < min ? a : min;
      max = a > max ? a : max;
    }
  }
  if ((bits & (width - 1)) || max - min > UINT32_MAX) return false; /* the size below cannot wrap */
  *lo = min;
  return ws_mem_page_span(s->cta->launch->mem, min, max - min + width, write, bytes);
}

/* A global load through global_span: straight into the registers (the
 * addresses are already in the step record, so a destination that is also
 * the address register changes nothing). */
static bool load_global_fast(const ws_exec_site *s, uint32_t width) {
  uint8_t *bytes = NULL;
  uint64_t lo = 0;
  if (!global_span(s, width, false, &bytes, &lo)) return false;
  const uint64_t *addr = s->step->addr;
  const uint32_t exec = s->exec;
  for (uint32_t r = 0; r < width / 4; r++) {
    uint32_t *d = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r);
    if (!bytes) {
      for (uint32_t l = 0; l < LANES; l++)
        if (exec >> l & 1u) d[l] = 0;
    } else if (exec == UINT32_MAX) {
      for (uint32_t l = 0; l < LANES; l++) memcpy(&d[l], bytes + (addr[l] - lo) + 4u * r, 4);
    } else {
      for (uint32_t l = 0; l < LANES; l++)
        if (exec >> l & 1u) memcpy(&d[l], bytes + (addr[l] - lo) + 4u * r, 4);
    }
  }
  return true;
}

/* A global store through global_span, lane 0 first, so that for lanes
 * storing to one address the highest lane's value wins, as lane by lane. */
static bool store_global_fast(const ws_exec_site *s, uint32_t width) {
  uint8_t *bytes = NULL;
  uint64_t lo = 0;
  if (!global_span(s, width, true, &bytes, &lo)) return false;
  const uint64_t *addr = s->step->addr;
  const uint32_t exec = s->exec;
  const uint32_t *src[4];
  for (uint32_t r = 0; r < width / 4; r++) src[r] = ws_warp_src(s->warp, (uint32_t)s->insn->opnd[1].reg + r);
  if (exec == UINT32_MAX && width == 4) { /* the commonest store, without a test per lane */
    for (uint32_t l = 0; l < LANES; l++) memcpy(bytes + (addr[l] - lo), &src[0][l], 4);
    return true;
  }
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(exec >> l & 1u)) continue;
    for (uint32_t r = 0; r < width / 4; r++) memcpy(bytes + (addr[l] - lo) + 4u * r, &src[r][l], 4);
  }
  return true;
}

/* Whether the CTA runs the slice and gives this instruction `role`. */
static bool left_out(const ws_exec_site *s, ws_slice_role role) {
  return __builtin_expect(s->cta->roles != NULL, 0) && s->cta->roles[s->pc] == role;
}

/* An access the slice leaves out, at the step's addresses (or `addr`, a
 * copy's shared side): each lane faults as its access would, and no byte
 * moves. */
static ws_status check_lanes(const ws_exec_site *s, ws_space sp, const uint64_t *addr, uint32_t width,
                             ws_exec_access kind) {
  uint8_t *bytes = NULL;
  uint64_t lo = 0;
  if (sp == WS_SPACE_GLOBAL && addr == s->step->addr && global_span(s, width, false, &bytes, &lo))
    return WS_OK;
  uint64_t size_bytes = 0;
  if (sp != WS_SPACE_GLOBAL) (void)window(s, sp, &size_bytes);
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    uint8_t scratch[16];
    ws_mem_fault f =
        sp == WS_SPACE_GLOBAL ? ws_mem_read(s->cta->launch->mem, addr[l], scratch, width) : WS_MEM_OK;
    if (f != WS_MEM_OK) return global_fault(s, l, addr[l], width, kind, f);
    if (sp != WS_SPACE_GLOBAL && ((addr[l] & (width - 1)) || addr[l] + width > size_bytes))
      return window_fault(s, sp, l, addr[l], width, kind, size_bytes);
  }
  return WS_OK;
}

/* d..d+n-1 = space[a]: gathers every lane, then writes the registers. */
static ws_status load(const ws_exec_site *s, ws_space sp) {
  const uint32_t width = s->insn->width_bytes ? s->insn->width_bytes : 4u;
  uint32_t data[LANES][4];
  note(s, sp, WS_STEP_LOAD, width);
  addresses(s, 1, sp, s->step->addr);
  if (left_out(s, WS_SLICE_NOREAD)) return check_lanes(s, sp, s->step->addr, width, ACC_READ);
  if (sp == WS_SPACE_GLOBAL ? load_global_fast(s, width) : load_window_fast(s, sp, width)) return WS_OK;
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    ws_status st = access(s, sp, l, s->step->addr[l], data[l], width, ACC_READ);
    if (st != WS_OK) return st;
  }
  for (uint32_t r = 0; r < width / 4; r++) {
    uint32_t *d = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r);
    for (uint32_t l = 0; l < LANES; l++)
      if (s->exec >> l & 1u) d[l] = data[l][r];
  }
  return WS_OK;
}

/* space[a] = b..b+n-1, lane 0 first. A byte or halfword store copies the
 * low bytes of b's word (little-endian) and touches no other byte, so two
 * lanes storing to different bytes of one word both land. */
static ws_status store(const ws_exec_site *s, ws_space sp) {
  const uint32_t width = s->insn->width_bytes ? s->insn->width_bytes : 4u;
  const uint32_t nregs = width > 4 ? width / 4 : 1u;
  note(s, sp, WS_STEP_STORE, width);
  addresses(s, 0, sp, s->step->addr);
  if (left_out(s, WS_SLICE_NOWRITE)) return check_lanes(s, sp, s->step->addr, width, ACC_WRITE);
  if (sp == WS_SPACE_GLOBAL && store_global_fast(s, width)) return WS_OK;
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    uint32_t data[4];
    for (uint32_t r = 0; r < nregs; r++)
      data[r] = ws_warp_src(s->warp, (uint32_t)s->insn->opnd[1].reg + r)[l];
    ws_status st = access(s, sp, l, s->step->addr[l], data, width, ACC_WRITE);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

/* ---- local memory (LDL, STL) --------------------------------------------------- */

/* A lane's local offset that is misaligned or past .local: the fault names
 * the offset the thread used, not the device address it maps to. */
static ws_status local_fault(const ws_exec_site *s, uint32_t lane, uint32_t off, uint32_t width,
                             ws_exec_access kind) {
  uint32_t local_bytes = s->cta->launch->kernel->local_bytes;
  if (off & (width - 1))
    return ws_fault_report(s, WS_ERR_FAULT, lane, "misaligned local %s of size %u at offset 0x%x",
                           access_names[kind], width, off);
  return ws_fault_report(s, WS_ERR_FAULT, lane,
                         "invalid local %s of size %u at offset 0x%x: offset is past the end of the "
                         "thread's local memory (.local is %u bytes)",
                         access_names[kind], width, off, local_bytes);
}

/* Checks every executing lane's offset (operand i) and records in the step
 * the device address of its first word; the lowest bad lane faults. */
static ws_status local_addresses(const ws_exec_site *s, unsigned i, uint32_t width, ws_exec_access kind) {
  const ws_exec_launch *L = s->cta->launch;
  const ws_operand *o = &s->insn->opnd[i];
  const uint32_t *base = ws_warp_src(s->warp, o->reg);
  const uint64_t region = ws_local_region(L, (uint64_t)s->cta->local_slot + s->warp_idx);
  for (uint32_t l = 0; l < LANES; l++) {
    uint32_t off = base[l] + (uint32_t)o->imm;
    s->step->addr[l] = 0;
    if (!(s->exec >> l & 1u)) continue;
    if ((off & (width - 1)) || (uint64_t)off + width > L->kernel->local_bytes)
      return local_fault(s, l, off, width, kind);
    if (!L->local_base)
      return ws_fault_report(s, WS_ERR_FAULT, l, "local %s without a local memory window for the launch",
                             access_names[kind]);
    s->step->addr[l] = ws_local_addr(region, l, off);
  }
  return WS_OK;
}

/* Up to one word of device memory behind a checked local address: the
 * window is the launch's own, so only host memory for a page can fail. */
static ws_status local_access(const ws_exec_site *s, uint32_t lane, uint64_t addr, uint32_t *word,
                              uint32_t size_bytes, ws_exec_access kind) {
  ws_mem *mem = s->cta->launch->mem;
  ws_mem_fault f = kind == ACC_WRITE ? ws_mem_write(mem, addr, word, size_bytes)
                                     : ws_mem_read(mem, addr, word, size_bytes);
  return f == WS_MEM_OK ? WS_OK : global_fault(s, lane, addr, size_bytes, kind, f);
}

/* d..d+n-1 = local[a]: gathers every lane, then writes the registers. */
static ws_status load_local(const ws_exec_site *s) {
  const uint32_t width = s->insn->width_bytes ? s->insn->width_bytes : 4u;
  uint32_t data[LANES][4];
  note(s, WS_SPACE_LOCAL, WS_STEP_LOAD, width);
  ws_status st = local_addresses(s, 1, width, ACC_READ);
  if (st == WS_OK && left_out(s, WS_SLICE_NOREAD)) return WS_OK;
  for (uint32_t l = 0; l < LANES && st == WS_OK; l++) {
    if (!(s->exec >> l & 1u)) continue;
    for (uint32_t r = 0; r < width / 4 && st == WS_OK; r++)
      st = local_access(s, l, ws_warp_step_word_addr(s->step, l, r), &data[l][r], 4, ACC_READ);
  }
  if (st != WS_OK) return st;
  for (uint32_t r = 0; r < width / 4; r++) {
    uint32_t *d = ws_warp_dst(s->warp, (uint32_t)s->insn->opnd[0].reg + r);
    for (uint32_t l = 0; l < LANES; l++)
      if (s->exec >> l & 1u) d[l] = data[l][r];
  }
  return WS_OK;
}

/* local[a] = b..b+n-1, lane 0 first (each thread's words are its own); a
 * byte or halfword store writes only its bytes, at the device address of
 * the offset, which keeps the byte's place in its interleaved word. */
static ws_status store_local(const ws_exec_site *s) {
  const uint32_t width = s->insn->width_bytes ? s->insn->width_bytes : 4u;
  const uint32_t nregs = width > 4 ? width / 4 : 1u, part_bytes = width < 4 ? width : 4u;
  note(s, WS_SPACE_LOCAL, WS_STEP_STORE, width);
  ws_status st = local_addresses(s, 0, width, ACC_WRITE);
  if (st == WS_OK && left_out(s, WS_SLICE_NOWRITE)) return WS_OK;
  for (uint32_t l = 0; l < LANES && st == WS_OK; l++) {
    if (!(s->exec >> l & 1u)) continue;
    for (uint32_t r = 0; r < nregs && st == WS_OK; r++) {
      uint32_t v = ws_warp_src(s->warp, (uint32_t)s->insn->opnd[1].reg + r)[l];
      st = local_access(s, l, ws_warp_step_word_addr(s->step, l, r), &v, part_bytes, ACC_WRITE);
    }
  }
  return st;
}

/* The new memory value of one atomic given the old one; c is the operand
 * (b is CAS's compare value). Signed min/max flip the sign bits and
 * compare unsigned; INC and DEC wrap as PTX atom.inc/dec.u32 do. */
static uint32_t atomic_value(const ws_insn *insn, uint32_t old, uint32_t b, uint32_t c) {
  const uint32_t bias = insn->dtype == WS_DT_U32 ? 0u : 0x80000000u;
  switch ((ws_op)insn->op) {
  case WS_OP_ATOMGADD:
  case WS_OP_ATOMSADD:
    return insn->dtype == WS_DT_F32 ? ws_f32_bits(ws_f32_from_bits(old) + ws_f32_from_bits(c)) : old + c;
  case WS_OP_ATOMGMAX:
  case WS_OP_ATOMSMAX: return (old ^ bias) < (c ^ bias) ? c : old;
  case WS_OP_ATOMGMIN:
  case WS_OP_ATOMSMIN: return (c ^ bias) < (old ^ bias) ? c : old;
  case WS_OP_ATOMGEXCH:
  case WS_OP_ATOMSEXCH: return c;
  case WS_OP_ATOMGAND:
  case WS_OP_ATOMSAND: return old & c;
  case WS_OP_ATOMGOR:
  case WS_OP_ATOMSOR: return old | c;
  case WS_OP_ATOMGXOR:
  case WS_OP_ATOMSXOR: return old ^ c;
  case WS_OP_ATOMGINC:
  case WS_OP_ATOMSINC: return old >= c ? 0u : old + 1u;
  case WS_OP_ATOMGDEC:
  case WS_OP_ATOMSDEC: return (old == 0 || old > c) ? c : old - 1u;
  default: return old == b ? c : old; /* CAS */
  }
}

/* d = space[a]; space[a] = f(d, b, c), lanes in ascending order. */
static ws_status atomic(const ws_exec_site *s, ws_space sp) {
  const ws_insn *insn = s->insn;
  const int cas = insn->op == WS_OP_ATOMGCAS || insn->op == WS_OP_ATOMSCAS;
  const uint32_t *b = ws_warp_src(s->warp, insn->opnd[2].reg);
  const uint32_t *c = ws_warp_src(s->warp, insn->opnd[cas ? 3 : 2].reg);
  uint32_t old[LANES];
  note(s, sp, WS_STEP_ATOMIC, 4);
  addresses(s, 1, sp, s->step->addr);
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    ws_status st = access(s, sp, l, s->step->addr[l], &old[l], 4, ACC_ATOMIC);
    uint32_t v = atomic_value(insn, old[l], b[l], c[l]);
    if (st == WS_OK) st = access(s, sp, l, s->step->addr[l], &v, 4, ACC_WRITE);
    if (st != WS_OK) return st;
  }
  uint32_t *d = ws_warp_dst(s->warp, insn->opnd[0].reg);
  for (uint32_t l = 0; l < LANES; l++)
    if (s->exec >> l & 1u) d[l] = old[l];
  return WS_OK;
}

/* LDGSTS: the copy global -> shared happens at issue (all loads, then all
 * stores); the warp counts it towards its next committed group. */
static ws_status async_copy(const ws_exec_site *s) {
  const uint32_t width = s->insn->width_bytes ? s->insn->width_bytes : 4u;
  uint32_t data[LANES][4];
  uint64_t dst[LANES];
  note(s, WS_SPACE_GLOBAL, WS_STEP_ASYNC, width);
  addresses(s, 1, WS_SPACE_GLOBAL, s->step->addr);
  addresses(s, 0, WS_SPACE_SHARED, dst);
  if (left_out(s, WS_SLICE_NOWRITE)) {
    for (uint32_t l = 0; l < LANES; l++) s->step->addr2[l] = (uint32_t)dst[l];
    ws_status st = check_lanes(s, WS_SPACE_GLOBAL, s->step->addr, width, ACC_READ);
    if (st == WS_OK) st = check_lanes(s, WS_SPACE_SHARED, dst, width, ACC_WRITE);
    if (st == WS_OK) s->warp->async_uncommitted_copies++;
    return st;
  }
  for (uint32_t l = 0; l < LANES; l++) {
    s->step->addr2[l] = (uint32_t)dst[l];
    if (!(s->exec >> l & 1u)) continue;
    ws_status st = access(s, WS_SPACE_GLOBAL, l, s->step->addr[l], data[l], width, ACC_READ);
    if (st != WS_OK) return st;
  }
  for (uint32_t l = 0; l < LANES; l++) {
    if (!(s->exec >> l & 1u)) continue;
    ws_status st = access(s, WS_SPACE_SHARED, l, dst[l], data[l], width, ACC_WRITE);
    if (st != WS_OK) return st;
  }
  s->warp->async_uncommitted_copies++;
  return WS_OK;
}

ws_status ws_exec_mem(const ws_exec_site *s) {
  if (!s->exec) return WS_OK;
  switch ((ws_op)s->insn->op) {
  case WS_OP_LDG: return load(s, WS_SPACE_GLOBAL);
  case WS_OP_LDS: return load(s, WS_SPACE_SHARED);
  case WS_OP_LDC: return load(s, WS_SPACE_CONST);
  case WS_OP_LDP: return load(s, WS_SPACE_PARAM);
  case WS_OP_STG: return store(s, WS_SPACE_GLOBAL);
  case WS_OP_STS: return store(s, WS_SPACE_SHARED);
  case WS_OP_LDL: return load_local(s);
  case WS_OP_STL: return store_local(s);
  case WS_OP_ATOMGADD:
  case WS_OP_ATOMGMAX:
  case WS_OP_ATOMGCAS:
  case WS_OP_ATOMGMIN:
  case WS_OP_ATOMGEXCH:
  case WS_OP_ATOMGAND:
  case WS_OP_ATOMGOR:
  case WS_OP_ATOMGXOR:
  case WS_OP_ATOMGINC:
  case WS_OP_ATOMGDEC: return atomic(s, WS_SPACE_GLOBAL);
  case WS_OP_ATOMSADD:
  case WS_OP_ATOMSMAX:
  case WS_OP_ATOMSCAS:
  case WS_OP_ATOMSMIN:
  case WS_OP_ATOMSEXCH:
  case WS_OP_ATOMSAND:
  case WS_OP_ATOMSOR:
  case WS_OP_ATOMSXOR:
  case WS_OP_ATOMSINC:
  case WS_OP_ATOMSDEC: return atomic(s, WS_SPACE_SHARED);
  case WS_OP_LDGSTS: return async_copy(s);
  case WS_OP_LDGDEPBAR:
    s->warp->async_uncommitted_copies = 0;
    s->warp->async_groups_committed++;
    s->step->flags |= WS_STEP_COMMIT;
    return WS_OK;
  case WS_OP_DEPBAR:
    s->step->flags |= WS_STEP_WAIT;
    s->step->wait_groups = (uint32_t)s->insn->opnd[0].imm;
    return WS_OK;
  default: return WS_OK;
  }
}
