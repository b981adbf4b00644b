/* exec_alu.c - semantics of the arithmetic, conversion, shuffle, vote and
 * tensor-core instructions (each matches its line in isa/opcodes.def).
 *
 * Design: every instruction computes all 32 lanes into a local result array
 * and then merges the executing lanes into the destination, so the lane loops
 * have no branches and vectorise, and a destination that aliases a source is
 * never read after being written. Integer arithmetic is done on uint32_t
 * (wrapping, no signed-overflow UB); signed views use the sign-bit-flip trick
 * for comparisons and explicit range checks before any float->int cast. FP32
 * uses the host's IEEE binary32 arithmetic (x86-64 SSE: round to nearest
 * even); FFMA uses fmaf for its single rounding. Lanes that do not execute
 * may compute garbage in the temporaries; it is discarded by the merge. */
#include <math.h>
#include <string.h>

#include "base/f16.h"
#include "sim/exec/exec_int.h"

#define LANES WS_WARP_LANES
#define CANONICAL_NAN 0x7FFFFFFFu
#define SIGN_BIT 0x80000000u

static inline int is_nan_bits(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

/* Source operand i as 32 lanes: a register row, or tmp filled with the
 * immediate. Float modifiers (|x| first, then -x) are applied on the bit
 * pattern, into tmp. */
static const uint32_t *src(const ws_exec_site *s, unsigned i, uint32_t *tmp) {
  const ws_operand *o = &s->insn->opnd[i];
  const uint32_t *row;
  if (o->kind == WS_OPND_REG) {
    row = ws_warp_src(s->warp, o->reg);
  } else {
    for (unsigned l = 0; l < LANES; l++) tmp[l] = (uint32_t)o->imm;
    row = tmp;
  }
  if (!(o->flags & (WS_OPND_NEG | WS_OPND_ABS))) return row;
  uint32_t clear = (o->flags & WS_OPND_ABS) ? SIGN_BIT : 0u;
  uint32_t flip = (o->flags & WS_OPND_NEG) ? SIGN_BIT : 0u;
  for (unsigned l = 0; l < LANES; l++) tmp[l] = (row[l] & ~clear) ^ flip;
  return tmp;
}

/* Register k of a multi-register source operand i. */
static const uint32_t *src_k(const ws_exec_site *s, unsigned i, unsigned k) {
  return ws_warp_src(s->warp, (uint32_t)s->insn->opnd[i].reg + k);
}

/* Merges res into register reg for the executing lanes. */
static void put(const ws_exec_site *s, uint32_t reg, const uint32_t *res) {
  uint32_t *d = ws_warp_dst(s->warp, reg);
  uint32_t exec = s->exec;
  if (exec == UINT32_MAX) { /* the common full warp: a plain copy */
    memcpy(d, res, LANES * sizeof *d);
    return;
  }
  for (unsigned l = 0; l < LANES; l++) {
    uint32_t m = 0u - ((exec >> l) & 1u);
    d[l] = (d[l] & ~m) | (res[l] & m);
  }
}

static void put_d(const ws_exec_site *s, const uint32_t *res) { put(s, s->insn->opnd[0].reg, res); }

static uint32_t pred_src(const ws_exec_site *s, unsigned i) {
  const ws_operand *o = &s->insn->opnd[i];
  uint32_t v = s->warp->preds[o->reg & 7u];
  return (o->flags & WS_OPND_NOT) ? ~v : v;
}

static void put_pred(const ws_exec_site *s, uint32_t bits) {
  uint32_t p = s->insn->opnd[0].reg;
  if (p >= WS_PRED_PT) return;
  s->warp->preds[p] = (s->warp->preds[p] & ~s->exec) | (bits & s->exec);
}

/* ---- integer ----------------------------------------------------------- */

static inline uint64_t sext64(uint32_t a) {
  return (uint64_t)a | ((a & SIGN_BIT) ? 0xFFFFFFFF00000000ull : 0u);
}

/* High word of the 64-bit product: the sign-extended product modulo 2^64 is
 * the two's-complement product, which always fits in 64 bits. */
static inline uint32_t mulhi(uint32_t a, uint32_t b, int is_signed) {
  uint64_t p = is_signed ? sext64(a) * sext64(b) : (uint64_t)a * b;
  return (uint32_t)(p >> 32);
}

static inline uint32_t shr(uint32_t a, uint32_t b, int is_signed) {
  uint32_t fill = (is_signed && (a & SIGN_BIT)) ? UINT32_MAX : 0u;
  if (b >= 32) return fill;
  return (a >> b) | (b ? fill << (32 - b) : 0u);
}

/* a < b, signed compares flip the sign bits and compare unsigned. */
static inline int ilt(uint32_t a, uint32_t b, uint32_t bias) { return (a ^ bias) < (b ^ bias); }

static int icmp(ws_cmp cmp, uint32_t a, uint32_t b, uint32_t bias) {
  switch (cmp) {
  case WS_CMP_EQ: return a == b;
  case WS_CMP_NE: return a != b;
  case WS_CMP_LT: return ilt(a, b, bias);
  case WS_CMP_LE: return !ilt(b, a, bias);
  case WS_CMP_GT: return ilt(b, a, bias);
  case WS_CMP_GE: return !ilt(a, b, bias);
  default: return 0;
  }
}

static void int_binary(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  const int sgn = s->insn->dtype != WS_DT_U32;
  const uint32_t bias = sgn ? SIGN_BIT : 0u;
  unsigned l;
  switch ((ws_op)s->insn->op) {
  case WS_OP_IADD:
    for (l = 0; l < LANES; l++) r[l] = a[l] + b[l];
    break;
  case WS_OP_ISUB:
    for (l = 0; l < LANES; l++) r[l] = a[l] - b[l];
    break;
  case WS_OP_IMUL:
    for (l = 0; l < LANES; l++) r[l] = a[l] * b[l];
    break;
  case WS_OP_IMULHI:
    for (l = 0; l < LANES; l++) r[l] = mulhi(a[l], b[l], sgn);
    break;
  case WS_OP_SHL:
    for (l = 0; l < LANES; l++) r[l] = b[l] >= 32 ? 0u : a[l] << b[l];
    break;
  case WS_OP_SHR:
    for (l = 0; l < LANES; l++) r[l] = shr(a[l], b[l], sgn);
    break;
  case WS_OP_AND:
    for (l = 0; l < LANES; l++) r[l] = a[l] & b[l];
    break;
  case WS_OP_OR:
    for (l = 0; l < LANES; l++) r[l] = a[l] | b[l];
    break;
  case WS_OP_XOR:
    for (l = 0; l < LANES; l++) r[l] = a[l] ^ b[l];
    break;
  case WS_OP_IMIN:
    for (l = 0; l < LANES; l++) r[l] = ilt(b[l], a[l], bias) ? b[l] : a[l];
    break;
  case WS_OP_IMAX:
    for (l = 0; l < LANES; l++) r[l] = ilt(a[l], b[l], bias) ? b[l] : a[l];
    break;
  default: return;
  }
  put_d(s, r);
}

/* Bit reversal by swapping ever larger halves: 5 steps instead of 32. */
static inline uint32_t brev(uint32_t a) {
  a = (a >> 1 & 0x55555555u) | (a & 0x55555555u) << 1;
  a = (a >> 2 & 0x33333333u) | (a & 0x33333333u) << 2;
  a = (a >> 4 & 0x0F0F0F0Fu) | (a & 0x0F0F0F0Fu) << 4;
  a = (a >> 8 & 0x00FF00FFu) | (a & 0x00FF00FFu) << 8;
  return a >> 16 | a << 16;
}

/* PTX bfe: bits of the field that lie past bit 31 (and every bit above the
 * field) take the fill, which is the field's top bit clamped to bit 31 for
 * .S32 and 0 for .U32; shifts are kept below 32 to stay defined in C. */
static inline uint32_t bfe(uint32_t a, uint32_t b, uint32_t c, int is_signed) {
  const uint32_t pos = b & 0xFFu, len = c & 0xFFu;
  if (len == 0) return 0;
  const uint32_t top = pos + len - 1 < 31 ? pos + len - 1 : 31;
  const uint32_t fill = (is_signed && (a >> top & 1u)) ? UINT32_MAX : 0u;
  if (pos > 31) return fill;
  const uint32_t taken = len < 32 - pos ? len : 32 - pos; /* bits read from a */
  const uint32_t mask = taken == 32 ? UINT32_MAX : (1u << taken) - 1u;
  return (a >> pos & mask) | (fill & ~mask);
}

/* PTX prmt.b32 default mode: four selector nibbles each pick one of the
 * eight bytes hi:lo, or (bit 3) that byte's sign replicated. */
static inline uint32_t prmt(uint32_t lo, uint32_t sel, uint32_t hi) {
  const uint64_t bytes = (uint64_t)hi << 32 | lo;
  uint32_t r = 0;
  for (unsigned k = 0; k < 4; k++) {
    const uint32_t nib = sel >> (4 * k) & 0xFu;
    uint32_t byte = (uint32_t)(bytes >> (8 * (nib & 7u))) & 0xFFu;
    if (nib & 8u) byte = (byte & 0x80u) ? 0xFFu : 0u;
    r |= byte << (8 * k);
  }
  return r;
}

/* BFE and PRMT: three sources, each lane on its own. */
static void int_ternary(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], tc[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb), *c = src(s, 3, tc);
  const int sgn = s->insn->dtype != WS_DT_U32;
  if (s->insn->op == WS_OP_BFE)
    for (unsigned l = 0; l < LANES; l++) r[l] = bfe(a[l], b[l], c[l], sgn);
  else
    for (unsigned l = 0; l < LANES; l++) r[l] = prmt(a[l], b[l], c[l]);
  put_d(s, r);
}

/* PAND, POR, PXOR: a whole warp's predicate bits in one operation. */
static void exec_plogic(const ws_exec_site *s) {
  const uint32_t a = pred_src(s, 1), b = pred_src(s, 2);
  switch ((ws_op)s->insn->op) {
  case WS_OP_PAND: put_pred(s, a & b); break;
  case WS_OP_POR: put_pred(s, a | b); break;
  case WS_OP_PXOR: put_pred(s, a ^ b); break;
  default: break;
  }
}

static void int_unary(const ws_exec_site *s) {
  uint32_t ta[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta);
  unsigned l;
  switch ((ws_op)s->insn->op) {
  case WS_OP_NOT:
    for (l = 0; l < LANES; l++) r[l] = ~a[l];
    break;
  case WS_OP_IABS:
    for (l = 0; l < LANES; l++) r[l] = (a[l] & SIGN_BIT) ? 0u - a[l] : a[l];
    break;
  case WS_OP_POPC:
    for (l = 0; l < LANES; l++) r[l] = (uint32_t)__builtin_popcount(a[l]);
    break;
  case WS_OP_CLZ:
    for (l = 0; l < LANES; l++) r[l] = a[l] ? (uint32_t)__builtin_clz(a[l]) : 32u;
    break;
  case WS_OP_BREV:
    for (l = 0; l < LANES; l++) r[l] = brev(a[l]);
    break;
  case WS_OP_MOV: memcpy(r, a, sizeof r); break;
  default: return;
  }
  put_d(s, r);
}

static void exec_imad(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], tc[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb), *c = src(s, 3, tc);
  for (unsigned l = 0; l < LANES; l++) r[l] = a[l] * b[l] + c[l];
  put_d(s, r);
}

static void put_pair(const ws_exec_site *s, const uint64_t *v) {
  uint32_t lo[LANES], hi[LANES];
  for (unsigned l = 0; l < LANES; l++) {
    lo[l] = (uint32_t)v[l];
    hi[l] = (uint32_t)(v[l] >> 32);
  }
  put(s, s->insn->opnd[0].reg, lo);
  put(s, (uint32_t)s->insn->opnd[0].reg + 1, hi);
}

static void exec_imad_wide(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES];
  uint64_t r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  const uint32_t *clo = src_k(s, 3, 0), *chi = src_k(s, 3, 1);
  const int sgn = s->insn->dtype != WS_DT_U32;
  for (unsigned l = 0; l < LANES; l++) {
    uint64_t p = sgn ? sext64(a[l]) * sext64(b[l]) : (uint64_t)a[l] * b[l];
    r[l] = p + ((uint64_t)chi[l] << 32 | clo[l]);
  }
  put_pair(s, r);
}

static void exec_iadd64(const ws_exec_site *s) {
  const uint32_t *alo = src_k(s, 1, 0), *ahi = src_k(s, 1, 1);
  const uint32_t *blo = src_k(s, 2, 0), *bhi = src_k(s, 2, 1);
  uint64_t r[LANES];
  for (unsigned l = 0; l < LANES; l++)
    r[l] = ((uint64_t)ahi[l] << 32 | alo[l]) + ((uint64_t)bhi[l] << 32 | blo[l]);
  put_pair(s, r);
}

static void exec_isetp(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], bits = 0;
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  const uint32_t bias = s->insn->dtype != WS_DT_U32 ? SIGN_BIT : 0u;
  const ws_cmp cmp = (ws_cmp)s->insn->cmp;
  for (unsigned l = 0; l < LANES; l++) bits |= (uint32_t)icmp(cmp, a[l], b[l], bias) << l;
  put_pred(s, bits);
}

static void exec_sel(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  uint32_t c = pred_src(s, 3);
  for (unsigned l = 0; l < LANES; l++) r[l] = (c >> l & 1u) ? a[l] : b[l];
  put_d(s, r);
}

/* ---- fp32 --------------------------------------------------------------- */

/* min/max per opcodes.def: a NaN operand yields the other (both NaN: the
 * canonical NaN); -0 orders below +0 (resolved on the sign bits). */
static inline uint32_t fminmax(uint32_t a, uint32_t b, int is_max) {
  int na = is_nan_bits(a), nb = is_nan_bits(b);
  if (na || nb) return na && nb ? CANONICAL_NAN : (na ? b : a);
  float fa = ws_f32_from_bits(a), fb = ws_f32_from_bits(b);
  if (fa == fb) return is_max ? (a & b) : (a | b); /* only differs for -0/+0 */
  return (fa < fb) == !is_max ? a : b;
}

static int fcmp(ws_cmp cmp, float a, float b) {
  int un = isnan(a) || isnan(b);
  switch (cmp) {
  case WS_CMP_EQ: return !un && a == b;
  case WS_CMP_NE: return !un && a != b;
  case WS_CMP_LT: return !un && a < b;
  case WS_CMP_LE: return !un && a <= b;
  case WS_CMP_GT: return !un && a > b;
  case WS_CMP_GE: return !un && a >= b;
  case WS_CMP_EQU: return un || a == b;
  case WS_CMP_NEU: return un || a != b;
  case WS_CMP_LTU: return un || a < b;
  case WS_CMP_LEU: return un || a <= b;
  case WS_CMP_GTU: return un || a > b;
  case WS_CMP_GEU: return un || a >= b;
  case WS_CMP_NUM: return !un;
  case WS_CMP_NAN: return un;
  default: return 0;
  }
}

static void fp_binary(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  unsigned l;
  switch ((ws_op)s->insn->op) {
  case WS_OP_FADD:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(ws_f32_from_bits(a[l]) + ws_f32_from_bits(b[l]));
    break;
  case WS_OP_FMUL:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(ws_f32_from_bits(a[l]) * ws_f32_from_bits(b[l]));
    break;
  case WS_OP_FMIN:
    for (l = 0; l < LANES; l++) r[l] = fminmax(a[l], b[l], 0);
    break;
  case WS_OP_FMAX:
    for (l = 0; l < LANES; l++) r[l] = fminmax(a[l], b[l], 1);
    break;
  case WS_OP_F2FP:
    for (l = 0; l < LANES; l++)
      r[l] = ws_f16_from_f32(ws_f32_from_bits(a[l])) | (uint32_t)ws_f16_from_f32(ws_f32_from_bits(b[l]))
                                                           << 16;
    break;
  default: return;
  }
  put_d(s, r);
}

/* fmaf is correctly rounded with or without a host FMA instruction, so a
 * clone built for hosts that have one (chosen once, at load time) gives the
 * same bits while running the 32 lanes as a few vector instructions instead
 * of 32 calls into libm. Not under ThreadSanitizer, whose instrumented
 * resolver runs before its runtime is up and crashes at load. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WS_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define WS_NO_CLONES 1
#endif
#if defined(__x86_64__) && defined(__has_attribute) && !defined(WS_NO_CLONES)
#if __has_attribute(target_clones)
__attribute__((target_clones("fma", "default")))
#endif
#endif
static void
ffma_lanes(const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *r) {
  for (unsigned l = 0; l < LANES; l++)
    r[l] = ws_f32_bits(fmaf(ws_f32_from_bits(a[l]), ws_f32_from_bits(b[l]), ws_f32_from_bits(c[l])));
}

static void exec_ffma(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], tc[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb), *c = src(s, 3, tc);
  if (s->exec == UINT32_MAX) { /* a full warp writes its row in place: lane l reads only lane l */
    ffma_lanes(a, b, c, ws_warp_dst(s->warp, s->insn->opnd[0].reg));
    return;
  }
  ffma_lanes(a, b, c, r);
  put_d(s, r);
}

static void exec_fsetp(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], bits = 0;
  const uint32_t *a = src(s, 1, ta), *b = src(s, 2, tb);
  const ws_cmp cmp = (ws_cmp)s->insn->cmp;
  for (unsigned l = 0; l < LANES; l++)
    bits |= (uint32_t)fcmp(cmp, ws_f32_from_bits(a[l]), ws_f32_from_bits(b[l])) << l;
  put_pred(s, bits);
}

/* ---- half precision ------------------------------------------------------ */

#define HALF_SIGNS 0x80008000u
#define HALF_NAN 0x7FFFu

/* Source i of a half instruction: as src(), with -R and |R| acting on the
 * sign bit of each half. */
static const uint32_t *half_src(const ws_exec_site *s, unsigned i, uint32_t *tmp) {
  const ws_operand *o = &s->insn->opnd[i];
  if (o->kind != WS_OPND_REG) return src(s, i, tmp); /* an immediate carries no flags */
  const uint32_t *row = ws_warp_src(s->warp, o->reg);
  if (!(o->flags & (WS_OPND_NEG | WS_OPND_ABS))) return row;
  uint32_t clear = (o->flags & WS_OPND_ABS) ? HALF_SIGNS : 0u;
  uint32_t flip = (o->flags & WS_OPND_NEG) ? HALF_SIGNS : 0u;
  for (unsigned l = 0; l < LANES; l++) tmp[l] = (row[l] & ~clear) ^ flip;
  return tmp;
}

static inline double half_value(uint32_t h, int bf16) {
  return bf16 ? ws_bf16_to_f32((uint16_t)h) : ws_f16_to_f32((uint16_t)h);
}

static inline uint32_t half_round(double x, int bf16) {
  return bf16 ? ws_bf16_from_f64(x) : ws_f16_from_f64(x);
}

static inline int half_is_nan(uint32_t h, int bf16) { return (h & 0x7FFFu) > (bf16 ? 0x7F80u : 0x7C00u); }

/* p + c rounded to odd in double: the nearest double when p + c is one,
 * else whichever of the two doubles around it has an odd last bit. TwoSum
 * gives the exact error of the rounded sum (no overflow in these ranges).
 *
 * Why one rounding: every product of two halves is exact in double (11-bit
 * significands give 22 bits, bfloat16's 8 give 16; exponents stay within
 * 2^-266 .. 2^256, far inside double's normal range), and the sum of such a
 * product and a half is exact in double whenever its bits span at most 53,
 * which holds for binary16 adds. Otherwise (a bfloat16 add, or an fma whose
 * product and addend lie far apart) the exact value is not a double, and
 * rounding it to nearest twice (to double, then to the half) could land on
 * a tie that was not one. Rounding to odd first cannot: a double with 53 >=
 * p + 2 bits rounded to odd, then to nearest at p bits, is the exact value
 * rounded to nearest (Boldo and Melquiond, "Emulation of FMA and correctly
 * rounded sums: proved algorithms using rounding to odd", IEEE TC 2008). */
static double sum_to_odd(double p, double c) {
  double s = p + c;
  if (!isfinite(s)) return s;
  double bb = s - p;
  double err = (p - (s - bb)) + (c - bb);
  if (err == 0.0) return s;
  uint64_t bits;
  memcpy(&bits, &s, sizeof bits);
  return (bits & 1u) ? s : nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
}

/* min/max of two halves per opcodes.def; equal values differ only as -0/+0,
 * which the sign bits order. */
static uint32_t half_minmax(uint32_t a, uint32_t b, int bf16, int is_min) {
  int na = half_is_nan(a, bf16), nb = half_is_nan(b, bf16);
  if (na || nb) return na && nb ? HALF_NAN : (na ? b : a);
  double x = half_value(a, bf16), y = half_value(b, bf16);
  if (x == y) return is_min ? (a | b) : (a & b);
  return (x < y) == is_min ? a : b;
}

/* One half of HADD2, HMUL2, HFMA2 or HMNMX2 (min when `min_sel`). */
static uint32_t half_op(ws_op op, uint32_t a, uint32_t b, uint32_t c, int bf16, int min_sel) {
  const double x = half_value(a, bf16), y = half_value(b, bf16);
  switch (op) {
  case WS_OP_HADD2: return half_round(sum_to_odd(x, y), bf16);
  case WS_OP_HMUL2: return half_round(x * y, bf16);
  case WS_OP_HFMA2: return half_round(sum_to_odd(x * y, half_value(c, bf16)), bf16);
  default: return half_minmax(a, b, bf16, min_sel);
  }
}

static inline int half_bf16(const ws_insn *in) {
  return in->dtype == WS_DT_BF16_V2 || in->dtype == WS_DT_BF16;
}
static inline int half_scalar(const ws_insn *in) { return in->dtype == WS_DT_F16 || in->dtype == WS_DT_BF16; }

static void exec_half(const ws_exec_site *s) {
  const ws_op op = (ws_op)s->insn->op;
  uint32_t ta[LANES], tb[LANES], tc[LANES], r[LANES];
  const uint32_t *a = half_src(s, 1, ta), *b = half_src(s, 2, tb);
  const uint32_t *c = op == WS_OP_HFMA2 ? half_src(s, 3, tc) : b;
  const uint32_t min_lanes = op == WS_OP_HMNMX2 ? pred_src(s, 3) : 0u;
  const int bf = half_bf16(s->insn), scalar = half_scalar(s->insn);
  for (unsigned l = 0; l < LANES; l++) {
    const int mn = (int)(min_lanes >> l & 1u);
    uint32_t lo = half_op(op, a[l] & 0xFFFFu, b[l] & 0xFFFFu, c[l] & 0xFFFFu, bf, mn);
    uint32_t hi = scalar ? 0u : half_op(op, a[l] >> 16, b[l] >> 16, c[l] >> 16, bf, mn);
    r[l] = lo | hi << 16;
  }
  put_d(s, r);
}

/* HSETP2: the low halves' comparison into the first predicate, the high
 * halves' into the second (false for the scalar formats). */
static void exec_hsetp2(const ws_exec_site *s) {
  uint32_t ta[LANES], tb[LANES], lo = 0, hi = 0;
  const uint32_t *a = half_src(s, 2, ta), *b = half_src(s, 3, tb);
  const ws_cmp cmp = (ws_cmp)s->insn->cmp;
  const int bf = half_bf16(s->insn), scalar = half_scalar(s->insn);
  for (unsigned l = 0; l < LANES; l++) {
    lo |= (uint32_t)fcmp(cmp, (float)half_value(a[l] & 0xFFFFu, bf), (float)half_value(b[l] & 0xFFFFu, bf))
          << l;
    if (!scalar)
      hi |= (uint32_t)fcmp(cmp, (float)half_value(a[l] >> 16, bf), (float)half_value(b[l] >> 16, bf)) << l;
  }
  put_pred(s, lo);
  const uint32_t q = s->insn->opnd[1].reg;
  if (q < WS_PRED_PT) s->warp->preds[q] = (s->warp->preds[q] & ~s->exec) | (hi & s->exec);
}

/* ---- SFU and conversions ------------------------------------------------- */

/* Truncation toward zero with saturation; the range is checked before the
 * cast, which would be undefined behaviour out of range. */
static inline uint32_t f2i(float f, int is_signed) {
  if (isnan(f)) return 0;
  if (is_signed) {
    if (f >= 2147483648.0f) return 0x7FFFFFFFu;
    if (f <= -2147483648.0f) return SIGN_BIT;
    int32_t v = (int32_t)f;
    return (uint32_t)v;
  }
  if (!(f >= 1.0f)) return 0;
  if (f >= 4294967296.0f) return UINT32_MAX;
  return (uint32_t)f;
}

static inline float i2f_signed(uint32_t a) {
  int32_t v = (a & SIGN_BIT) ? -(int32_t)(~a) - 1 : (int32_t)a;
  return (float)v;
}

static void sfu(const ws_exec_site *s) {
  uint32_t ta[LANES], r[LANES];
  const uint32_t *a = src(s, 1, ta);
  const int sgn = s->insn->dtype != WS_DT_U32;
  const unsigned sh = s->insn->hsel ? 16u : 0u;
  unsigned l;
  switch ((ws_op)s->insn->op) {
  case WS_OP_EX2:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(exp2f(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_LG2:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(log2f(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_RCP:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(1.0f / ws_f32_from_bits(a[l]));
    break;
  case WS_OP_RSQ:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(1.0f / sqrtf(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_SQRT:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(sqrtf(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_SIN:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(sinf(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_COS:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(cosf(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_TANH:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(tanhf(ws_f32_from_bits(a[l])));
    break;
  case WS_OP_I2F:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(sgn ? i2f_signed(a[l]) : (float)a[l]);
    break;
  case WS_OP_F2I:
    for (l = 0; l < LANES; l++) r[l] = f2i(ws_f32_from_bits(a[l]), sgn);
    break;
  case WS_OP_F2H:
    for (l = 0; l < LANES; l++) r[l] = ws_f16_from_f32(ws_f32_from_bits(a[l]));
    break;
  case WS_OP_H2F:
    for (l = 0; l < LANES; l++) r[l] = ws_f32_bits(ws_f16_to_f32((uint16_t)(a[l] >> sh)));
    break;
  default: return;
  }
  put_d(s, r);
}

/* ---- warp-wide ------------------------------------------------------------ */

static void exec_shfl(const ws_exec_site *s) {
  uint32_t tb[LANES], r[LANES];
  const uint32_t *a = src_k(s, 1, 0), *b = src(s, 2, tb);
  const ws_shfl_mode mode = (ws_shfl_mode)s->insn->cmp;
  for (unsigned l = 0; l < LANES; l++) r[l] = a[ws_exec_shfl_src(mode, l, b[l])];
  put_d(s, r);
}

static void exec_vote(const ws_exec_site *s) {
  uint32_t c = pred_src(s, 1) & s->exec, r[LANES];
  switch ((ws_op)s->insn->op) {
  case WS_OP_VOTEALL: put_pred(s, c == s->exec ? UINT32_MAX : 0u); break;
  case WS_OP_VOTEANY: put_pred(s, c ? UINT32_MAX : 0u); break;
  case WS_OP_BALLOT:
    for (unsigned l = 0; l < LANES; l++) r[l] = c;
    put_d(s, r);
    break;
  default: break;
  }
}

/* Thread index component of lane l along x, y or z. */
static uint32_t tid_of(const ws_exec_site *s, unsigned l, unsigned dim) {
  const ws_dim3 b = s->cta->launch->block;
  uint32_t lin = s->warp_idx * LANES + l;
  if (dim == 0) return lin % b.x;
  if (dim == 1) return lin / b.x % b.y;
  return lin / (b.x * b.y);
}

static uint32_t sreg_uniform(const ws_exec_site *s, ws_sreg sr) {
  const ws_exec_launch *L = s->cta->launch;
  switch (sr) {
  case WS_SR_NTID_X: return L->block.x;
  case WS_SR_NTID_Y: return L->block.y;
  case WS_SR_NTID_Z: return L->block.z;
  case WS_SR_CTAID_X: return s->cta->ctaid.x;
  case WS_SR_CTAID_Y: return s->cta->ctaid.y;
  case WS_SR_CTAID_Z: return s->cta->ctaid.z;
  case WS_SR_NCTAID_X: return L->grid.x;
  case WS_SR_NCTAID_Y: return L->grid.y;
  case WS_SR_NCTAID_Z: return L->grid.z;
  case WS_SR_WARPID: return s->warp_idx;
  case WS_SR_SMID: return s->cta->sm_id;
  case WS_SR_CLOCK: return (uint32_t)s->clock;
  case WS_SR_CLOCKHI: return (uint32_t)(s->clock >> 32);
  default: return 0;
  }
}

/* The register is decoded once per warp, not per lane: a uniform one is one
 * value, and TID.X (the commonest) steps through the block's x extent from
 * the warp's first lane, wrapping as tid_of's modulo does. */
static void exec_s2r(const ws_exec_site *s) {
  const ws_sreg sr = (ws_sreg)s->insn->opnd[1].reg;
  uint32_t r[LANES];
  if (sr == WS_SR_TID_X) {
    const uint32_t bx = s->cta->launch->block.x;
    uint32_t x = tid_of(s, 0, 0);
    for (unsigned l = 0; l < LANES; l++) {
      r[l] = x;
      x = x + 1 == bx ? 0 : x + 1;
    }
  } else if (sr <= WS_SR_TID_Z) {
    for (unsigned l = 0; l < LANES; l++) r[l] = tid_of(s, l, (unsigned)sr);
  } else if (sr == WS_SR_LANEID) {
    for (unsigned l = 0; l < LANES; l++) r[l] = l;
  } else {
    const uint32_t v = sreg_uniform(s, sr);
    for (unsigned l = 0; l < LANES; l++) r[l] = v;
  }
  put_d(s, r);
}

void ws_exec_alu(const ws_exec_site *s) {
  switch ((ws_op)s->insn->op) {
  case WS_OP_IMAD: exec_imad(s); break;
  case WS_OP_IMADWIDE: exec_imad_wide(s); break;
  case WS_OP_IADD64: exec_iadd64(s); break;
  case WS_OP_ISETP: exec_isetp(s); break;
  case WS_OP_SEL: exec_sel(s); break;
  case WS_OP_BFE:
  case WS_OP_PRMT: int_ternary(s); break;
  case WS_OP_PAND:
  case WS_OP_POR:
  case WS_OP_PXOR: exec_plogic(s); break;
  case WS_OP_NOT:
  case WS_OP_IABS:
  case WS_OP_POPC:
  case WS_OP_CLZ:
  case WS_OP_BREV:
  case WS_OP_MOV: int_unary(s); break;
  case WS_OP_FFMA: exec_ffma(s); break;
  case WS_OP_FSETP: exec_fsetp(s); break;
  case WS_OP_FADD:
  case WS_OP_FMUL:
  case WS_OP_FMIN:
  case WS_OP_FMAX:
  case WS_OP_F2FP: fp_binary(s); break;
  case WS_OP_EX2:
  case WS_OP_LG2:
  case WS_OP_RCP:
  case WS_OP_RSQ:
  case WS_OP_SQRT:
  case WS_OP_SIN:
  case WS_OP_COS:
  case WS_OP_TANH:
  case WS_OP_I2F:
  case WS_OP_F2I:
  case WS_OP_F2H:
  case WS_OP_H2F: sfu(s); break;
  case WS_OP_HADD2:
  case WS_OP_HMUL2:
  case WS_OP_HFMA2:
  case WS_OP_HMNMX2: exec_half(s); break;
  case WS_OP_HSETP2: exec_hsetp2(s); break;
  case WS_OP_SHFL: exec_shfl(s); break;
  case WS_OP_VOTEALL:
  case WS_OP_VOTEANY:
  case WS_OP_BALLOT: exec_vote(s); break;
  case WS_OP_S2R: exec_s2r(s); break;
  default: int_binary(s); break;
  }
}

/* ---- tensor core ------------------------------------------------------------ */

/* HMMA.16816.F32 with the PTX mma.m16n8k16 row.col fragment layout
 * (groupID = lane>>2, tig = lane&3): the whole warp's A, B and C are
 * gathered first (D may alias C), then each D[i][j] = C[i][j] + sum over
 * k = 0..15, in k order, of A[i][k]*B[k][j], accumulated in fp32 with one
 * fmaf per k. Products of two halves are exact in fp32, so only the
 * accumulation order matters; it is fixed here for determinism. */
static void hmma_gather(const ws_exec_site *s, float A[16][16], float B[16][8], float C[16][8]) {
  for (unsigned l = 0; l < LANES; l++) {
    unsigned g = l >> 2, t = l & 3u;
    for (unsigned r = 0; r < 4; r++) {
      uint32_t v = src_k(s, 1, r)[l];
      unsigned row = g + (r & 1u) * 8u, col = t * 2u + (r >> 1) * 8u;
      A[row][col] = ws_f16_to_f32((uint16_t)v);
      A[row][col + 1] = ws_f16_to_f32((uint16_t)(v >> 16));
    }
    for (unsigned r = 0; r < 2; r++) {
      uint32_t v = src_k(s, 2, r)[l];
      B[t * 2u + r * 8u][g] = ws_f16_to_f32((uint16_t)v);
      B[t * 2u + r * 8u + 1][g] = ws_f16_to_f32((uint16_t)(v >> 16));
    }
    for (unsigned r = 0; r < 4; r++)
      C[g + (r >> 1) * 8u][t * 2u + (r & 1u)] = ws_f32_from_bits(src_k(s, 3, r)[l]);
  }
}

ws_status ws_exec_alu_hmma(const ws_exec_site *s) {
  if (s->exec != UINT32_MAX)
    return ws_fault_report(s, WS_ERR_FAULT, WS_FAULT_NO_LANE,
                           "HMMA requires all 32 lanes of the warp to be active "
                           "(active and guard-true lanes: 0x%08x)",
                           s->exec);
  float A[16][16], B[16][8], C[16][8];
  hmma_gather(s, A, B, C);
  for (unsigned i = 0; i < 16; i++)
    for (unsigned j = 0; j < 8; j++)
      for (unsigned k = 0; k < 16; k++) C[i][j] = fmaf(A[i][k], B[k][j], C[i][j]);
  uint32_t d[4][LANES];
  for (unsigned l = 0; l < LANES; l++)
    for (unsigned r = 0; r < 4; r++)
      d[r][l] = ws_f32_bits(C[(l >> 2) + (r >> 1) * 8u][(l & 3u) * 2u + (r & 1u)]);
  for (unsigned r = 0; r < 4; r++) put(s, (uint32_t)s->insn->opnd[0].reg + r, d[r]);
  return WS_OK;
}
