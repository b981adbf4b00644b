/* test_exec_alu_half.c - the half-precision instructions of exec_alu.c
 * (HADD2, HMUL2, HFMA2, HMNMX2, HSETP2) in their four formats.
 *
 * Expected bits come from two places that share no code with the executor:
 * rows worked out by hand from IEEE 754 binary16 and bfloat16 (ties,
 * subnormals, overflow, NaN, and fma cases where rounding twice gives the
 * wrong answer), and, over many random operands, the host compiler's
 * _Float16 (GCC 12 on x86-64) for binary16 and a bit-level rounding of a
 * float for bfloat16. */
#include "tests/sim/simtest.h"

#include <math.h>

#include "base/f16.h"

typedef struct row {
  uint32_t a, b, c, want;
} row;

static void check_rows(const char *body, const row *rows, uint32_t n) {
  uint32_t a[64], b[64], c[64], out[64];
  cr_assert(n <= 64);
  for (uint32_t i = 0; i < n; i++) a[i] = rows[i].a, b[i] = rows[i].b, c[i] = rows[i].c;
  st_lanes(body, n, a, b, c, out);
  for (uint32_t i = 0; i < n; i++)
    cr_expect_eq(out[i], rows[i].want, "%s: row %u (0x%08x, 0x%08x, 0x%08x) -> 0x%08x, expected 0x%08x", body,
                 i, a[i], b[i], c[i], out[i], rows[i].want);
}

#define CHECK(body, ...)                                                                                     \
  do {                                                                                                       \
    static const row rows_[] = {__VA_ARGS__};                                                                \
    check_rows(body, rows_, (uint32_t)(sizeof rows_ / sizeof rows_[0]));                                     \
  } while (0)

Test(half, hadd2_f16_ties_overflow_subnormals_nan) {
  /* lo 1 + 2^-11: a tie, to the even 1 (0x3C00); hi 1 + 1.5*2^-10 (0x1600)
   * lies halfway between 1+2^-10 (odd) and 1+2^-9 (even 0x3C02) */
  CHECK("HADD2 R13, R10, R11", {0x3C003C00, 0x16001000, 0, 0x3C023C00},
        /* 65504 + 16 = 65520 rounds up to inf; 65504 + 8 = 65512 down to 65504 */
        {0x7BFF7BFF, 0x48004C00, 0, 0x7BFF7C00},
        /* 2^-24 + 2^-24 = 2^-23; the largest subnormal + 2^-24 = the smallest normal */
        {0x03FF0001, 0x00010001, 0, 0x04000002},
        /* inf - inf and a NaN operand: the canonical NaN 0x7FFF in each half */
        {0x7E017C00, 0x3C00FC00, 0, 0x7FFF7FFF},
        /* -0 + +0 = +0, -0 + -0 = -0 */
        {0x80000000, 0x80008000, 0, 0x80000000});
  /* source modifiers act on each half's sign: 1 + -|-2| = -1 in both */
  CHECK("HADD2 R13, R10, -|R11|", {0x3C003C00, 0xC0004000, 0, 0xBC00BC00});
  /* the scalar form computes the low half and clears the high one */
  CHECK("HADD2.F16 R13, R10, R11", {0x3C003C00, 0x3C003C00, 0, 0x00004000},
        {0x12343C00, 0xFFFF3C00, 0, 0x4000});
  /* an immediate holds two halves: (1, 2) + (1, 1) = (2, 3) */
  CHECK("HADD2 R13, R10, 0x3C003C00", {0x40003C00, 0, 0, 0x42004000});
}

Test(half, hmul2_f16_underflow_ties) {
  /* 2^-14 * 0.5 = 2^-15 (subnormal 0x0200); 2^-24 * 0.5 = 2^-25 ties to 0;
   * 3*2^-24 * 0.5 ties between 1 and 2 (*2^-24) to the even 2 */
  CHECK("HMUL2 R13, R10, R11", {0x00010400, 0x38003800, 0, 0x00000200},
        {0x00030003, 0x38003800, 0, 0x00020002},
        /* 256 * 256 = 65536 overflows; -0 * 5 = -0; 0 * inf = NaN */
        {0x5C000000, 0x5C007C00, 0, 0x7C007FFF}, {0x80000000, 0x45004500, 0, 0x80000000});
}

Test(half, hfma2_f16_rounds_once) {
  /* 10928 (0x7156) * 3 = 32784, halfway between 32768 (0x7800, even) and
   * 32800 (0x7801). With c = +2^-24 the exact sum is above the tie and
   * rounds up; a product rounded to float first (spacing 2^-8 there) would
   * lose c, see a tie and round down. c = 0 ties to even, c = -2^-24 rounds
   * down. */
  CHECK("HFMA2 R13, R10, R11, R12", {0x71567156, 0x42004200, 0x00000001, 0x78007801},
        {0x71567156, 0x42004200, 0x80018001, 0x78007800},
        /* 2 * 3 + -6 = +0; -0 * 1 + -0 = -0; inf * 0 + 1 = NaN */
        {0x80004000, 0x3C004200, 0x8000C600, 0x80000000}, {0x7C007C00, 0x00003C00, 0x3C003C00, 0x7FFF7C00});
  CHECK("HFMA2.F16 R13, R10, R11, R12", {0x40004000, 0x40004000, 0x40004000, 0x00004600});
}

Test(half, bf16_formats) {
  /* bfloat16: 1 = 0x3F80, 2^-8 = 0x3B80 (a tie to 1), 1.5*2^-7 = 0x3C40
   * (1 + 3*2^-8 ties to the even 1 + 2^-6 = 0x3F82) */
  CHECK("HADD2.BF16_V2 R13, R10, R11", {0x3F803F80, 0x3C403B80, 0, 0x3F823F80},
        /* the largest finite doubled overflows; the smallest subnormal doubled */
        {0x7F7F0001, 0x7F7F0001, 0, 0x7F800002});
  /* 9 (0x4110) * 29/256 (0x3DE8) = 261/256, halfway between 130/128 (0x3F82,
   * even) and 131/128 (0x3F83). Adding 2^-100 (0x0D80) must round up: a
   * double cannot hold 261/256 + 2^-100, so rounding to double first would
   * leave a tie that rounds down. */
  CHECK("HFMA2.BF16_V2 R13, R10, R11, R12", {0x41104110, 0x3DE83DE8, 0x00000D80, 0x3F823F83},
        {0x41104110, 0x3DE83DE8, 0x8D808D80, 0x3F823F82});
  /* scalar bfloat16: 1.5 * 2 = 3 (0x4040), high half cleared */
  CHECK("HMUL2.BF16 R13, R10, R11", {0x3FC03FC0, 0x40004000, 0, 0x4040});
  CHECK("HFMA2.BF16 R13, R10, R11, R12", {0x3FC03FC0, 0x40004000, 0x3F803F80, 0x4080});
}

Test(half, hmnmx2_nan_and_signed_zero) {
  /* min: NaN and 1 gives 1; -0 and +0 gives -0. Both NaN: 0x7FFF */
  CHECK("HMNMX2 R13, R10, R11, PT", {0x80007E00, 0x00003C00, 0, 0x80003C00},
        {0x7E007C01, 0xFE007E00, 0, 0x7FFF7FFF}, {0xC0003C00, 0x40004000, 0, 0xC0003C00});
  /* max: -0 and +0 gives +0; 1 and 2 gives 2 */
  CHECK("HMNMX2 R13, R10, R11, !PT", {0x80003C00, 0x00004000, 0, 0x00004000});
  CHECK("HMNMX2.BF16_V2 R13, R10, R11, PT", {0xBF803F80, 0x3F80BF80, 0, 0xBF80BF80});
  CHECK("HMNMX2.F16 R13, R10, R11, !PT", {0x3C003C00, 0x40004000, 0, 0x4000});
}

/* R13 = 1 when the first predicate holds, + 2 when the second does. */
#define HSETP(cmp_fmt)                                                                                       \
  "HSETP2." cmp_fmt " P0, P1, R10, R11\nMOV R13, 0\n@P0 IADD R13, R13, 1\n@P1 IADD R13, R13, 2"

Test(half, hsetp2_two_predicates) {
  /* lo 1 < 2, hi NaN < 1 is false; lo 2 < 1 false, hi -inf < -0 true */
  CHECK(HSETP("LT.F16_V2"), {0x7E003C00, 0x3C004000, 0, 1}, {0xFC004000, 0x80003C00, 0, 2});
  /* the unordered form is true on NaN; -0 == +0 */
  CHECK(HSETP("GEU.F16_V2"), {0x7E003C00, 0x3C004000, 0, 2}, {0x00008000, 0x80000000, 0, 3});
  CHECK(HSETP("EQ.F16_V2"), {0x00008000, 0x80000000, 0, 3});
  /* scalar: the high halves are not compared and the second predicate is false */
  CHECK(HSETP("LT.F16"), {0x3C003C00, 0x40004000, 0, 1});
  /* bfloat16 orders as float: 0x3F80 (1) > 0x3F00 (0.5) */
  CHECK(HSETP("GT.BF16_V2"), {0x3F003F80, 0x3F803F00, 0, 1});
}

/* ---- random operands against the host's own half arithmetic -------------- */

static uint32_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 32);
}

/* Half bits biased toward interesting places: a third anything (NaN, inf,
 * subnormals), the rest within a few binades of 1 so that sums cancel and
 * round at every position. */
static uint16_t some_half(uint64_t *s, int bf16) {
  uint32_t r = lcg(s);
  if (r % 3 == 0) return (uint16_t)(r >> 8);
  uint32_t sign = (r >> 4 & 1u) << 15, mant_bits = bf16 ? 7u : 10u, bias = bf16 ? 127u : 15u;
  uint32_t e = bias - 4u + (r >> 5) % 9u;
  return (uint16_t)(sign | e << mant_bits | ((r >> 12) & ((1u << mant_bits) - 1u)));
}

/* bfloat16 of a float by rounding its bits (to nearest even on the low 16),
 * a rule independent of the executor's conversions. */
static uint16_t ref_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFF;
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

#if defined(__FLT16_MAX__)
static float f16_float(uint16_t h) {
  _Float16 v;
  memcpy(&v, &h, sizeof v);
  return (float)v;
}

static uint16_t f16_bits(double x) {
  if (isnan(x)) return 0x7FFF;
  _Float16 v = (_Float16)x; /* the host's correctly rounded narrowing */
  uint16_t h;
  memcpy(&h, &v, sizeof h);
  return h;
}
#endif

static float bf16_float(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* One half of the host's reference. A float holds the sum or product of two
 * halves rounded once at 24 >= 2p + 2 bits, so rounding it again to the half
 * gives the correctly rounded result (double rounding is innocuous then,
 * Figueroa 1995). An fma of binary16 rounded to double and then to binary16
 * is correct too: the exact value needs more than 53 bits only when the
 * product and the addend lie over 53 binades apart, and then the double is
 * one of them nudged, never a binary16 tie. */
static uint16_t reference(char op, uint16_t a, uint16_t b, uint16_t c, int bf16) {
  if (op == '-') b ^= 0x8000u, op = '+'; /* HADD2 with -R flips b's sign bit */
#if defined(__FLT16_MAX__)
  if (!bf16) {
    double x = f16_float(a), y = f16_float(b), z = f16_float(c);
    if (op == '+') return f16_bits((float)x + (float)y);
    if (op == '*') return f16_bits((float)x * (float)y);
    return f16_bits(fma(x, y, z));
  }
#endif
  float x = bf16_float(a), y = bf16_float(b);
  (void)c;
  return ref_bf16(op == '+' ? x + y : x * y);
}

static void random_against_host(const char *body, char op, int bf16, uint64_t seed) {
  enum { N = 1024 };
  static uint32_t a[N], b[N], c[N], out[N];
  for (uint32_t i = 0; i < N; i++) {
    a[i] = some_half(&seed, bf16) | (uint32_t)some_half(&seed, bf16) << 16;
    b[i] = some_half(&seed, bf16) | (uint32_t)some_half(&seed, bf16) << 16;
    c[i] = some_half(&seed, bf16) | (uint32_t)some_half(&seed, bf16) << 16;
  }
  st_lanes(body, N, a, b, c, out);
  unsigned bad = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint32_t want =
        reference(op, (uint16_t)a[i], (uint16_t)b[i], (uint16_t)c[i], bf16) |
        (uint32_t)reference(op, (uint16_t)(a[i] >> 16), (uint16_t)(b[i] >> 16), (uint16_t)(c[i] >> 16), bf16)
            << 16;
    if (out[i] != want && bad++ < 5)
      cr_expect_eq(out[i], want, "%s: (0x%08x, 0x%08x, 0x%08x) -> 0x%08x, the host gives 0x%08x", body, a[i],
                   b[i], c[i], out[i], want);
  }
  cr_expect_eq(bad, 0u, "%s: %u of %d lanes differ from the host", body, bad, N);
}

#if defined(__FLT16_MAX__)
Test(half, f16_random_operands_match_host_float16) {
  random_against_host("HADD2 R13, R10, R11", '+', 0, 1);
  random_against_host("HADD2 R13, R10, -R11", '-', 0, 2);
  random_against_host("HMUL2 R13, R10, R11", '*', 0, 3);
  random_against_host("HFMA2 R13, R10, R11, R12", 'f', 0, 4);
}
#endif

Test(half, bf16_random_operands_match_float_rounding) {
  random_against_host("HADD2.BF16_V2 R13, R10, R11", '+', 1, 5);
  random_against_host("HMUL2.BF16_V2 R13, R10, R11", '*', 1, 6);
}
