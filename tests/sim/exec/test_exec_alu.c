/* test_exec_alu.c - the instructions of exec_alu.c (integer, fp32, SFU,
 * conversions, shuffles, votes, special registers, the tensor-core HMMA) on
 * edge values. Expected results are worked out by hand from IEEE 754 /
 * two's-complement arithmetic and the semantics lines of isa/opcodes.def
 * (comments give the reasoning); HMMA against a plain C reference with
 * exactly representable values. */
#include "tests/sim/simtest.h"

#include <math.h>

#include "base/f16.h"

#define ANY_NAN 0x7FC00001u /* sentinel: any NaN is accepted */
#define PINF 0x7F800000u
#define NINF 0xFF800000u
#define QNAN 0x7FC00000u
#define NZERO 0x80000000u
#define ONE 0x3F800000u
#define TWO 0x40000000u

typedef struct row {
  uint32_t a, b, c, want;
} row;

static void check_rows(const char *body, const row *rows, uint32_t n) {
  uint32_t a[64], b[64], c[64], out[64];
  cr_assert(n <= 64);
  for (uint32_t i = 0; i < n; i++) {
    a[i] = rows[i].a;
    b[i] = rows[i].b;
    c[i] = rows[i].c;
  }
  st_lanes(body, n, a, b, c, out);
  for (uint32_t i = 0; i < n; i++) {
    if (rows[i].want == ANY_NAN)
      cr_expect((out[i] & 0x7FFFFFFFu) > PINF, "%s: row %u (0x%08x, 0x%08x, 0x%08x) -> 0x%08x, expected NaN",
                body, i, a[i], b[i], c[i], out[i]);
    else
      cr_expect_eq(out[i], rows[i].want, "%s: row %u (0x%08x, 0x%08x, 0x%08x) -> 0x%08x, expected 0x%08x",
                   body, i, a[i], b[i], c[i], out[i], rows[i].want);
  }
}

#define CHECK(body, ...)                                                                                     \
  do {                                                                                                       \
    static const row rows_[] = {__VA_ARGS__};                                                                \
    check_rows(body, rows_, (uint32_t)(sizeof rows_ / sizeof rows_[0]));                                     \
  } while (0)

Test(alu, integer_add_sub_mul_wrap) {
  CHECK("IADD R13, R10, R11", {0x7FFFFFFF, 1, 0, 0x80000000}, {0xFFFFFFFF, 1, 0, 0},
        {0x80000000, 0x80000000, 0, 0});
  CHECK("IADD R13, R10, -1", {0, 0, 0, 0xFFFFFFFF}, {0x80000000, 0, 0, 0x7FFFFFFF});
  CHECK("ISUB R13, R10, R11", {0, 1, 0, 0xFFFFFFFF}, {0x80000000, 1, 0, 0x7FFFFFFF});
  CHECK("IMUL R13, R10, R11", {0x10000, 0x10000, 0, 0}, {0xFFFFFFFF, 0xFFFFFFFF, 0, 1},
        {0x80000000, 0xFFFFFFFF, 0, 0x80000000});
  /* (-1)(-1) = 1 -> high 0; (-2^31)^2 = 2^62 -> 0x40000000;
   * -2^31 * (2^31-1) = 0xC0000000_80000000; -1 * 2 = 0xFFFFFFFF_FFFFFFFE */
  CHECK("IMUL.HI.S32 R13, R10, R11", {0xFFFFFFFF, 0xFFFFFFFF, 0, 0}, {0x80000000, 0x80000000, 0, 0x40000000},
        {0x80000000, 0x7FFFFFFF, 0, 0xC0000000}, {0xFFFFFFFF, 2, 0, 0xFFFFFFFF});
  /* (2^32-1)^2 = 0xFFFFFFFE_00000001 */
  CHECK("IMUL.HI.U32 R13, R10, R11", {0xFFFFFFFF, 0xFFFFFFFF, 0, 0xFFFFFFFE}, {0x80000000, 2, 0, 1},
        {0xFFFFFFFF, 2, 0, 1});
  CHECK("IMAD R13, R10, R11, R12", {0xFFFFFFFF, 0xFFFFFFFF, 5, 6}, {0x80000000, 2, 7, 7},
        {3, 4, 0xFFFFFFFF, 11});
}

Test(alu, integer_64bit) {
  /* c pair = (R12, R12). -1*2 + 0x00000001_00000001 = 0x00000000_FFFFFFFF */
  const char *wide_s_lo = "MOV R16, R12\nMOV R17, R12\nIMAD.WIDE.S32 R14, R10, R11, R16\nMOV R13, R14";
  const char *wide_s_hi = "MOV R16, R12\nMOV R17, R12\nIMAD.WIDE.S32 R14, R10, R11, R16\nMOV R13, R15";
  const char *wide_u_lo = "MOV R16, R12\nMOV R17, R12\nIMAD.WIDE.U32 R14, R10, R11, R16\nMOV R13, R14";
  const char *wide_u_hi = "MOV R16, R12\nMOV R17, R12\nIMAD.WIDE.U32 R14, R10, R11, R16\nMOV R13, R15";
  CHECK(wide_s_lo, {0xFFFFFFFF, 2, 0, 0xFFFFFFFE}, {0xFFFFFFFF, 2, 1, 0xFFFFFFFF},
        {0x80000000, 0x80000000, 0, 0});
  CHECK(wide_s_hi, {0xFFFFFFFF, 2, 0, 0xFFFFFFFF}, {0xFFFFFFFF, 2, 1, 0},
        {0x80000000, 0x80000000, 0, 0x40000000});
  /* 0xFFFFFFFF*2 = 0x1_FFFFFFFE; + 0x1_00000001 = 0x2_FFFFFFFF */
  CHECK(wide_u_lo, {0xFFFFFFFF, 2, 0, 0xFFFFFFFE}, {0xFFFFFFFF, 2, 1, 0xFFFFFFFF});
  CHECK(wide_u_hi, {0xFFFFFFFF, 2, 0, 1}, {0xFFFFFFFF, 2, 1, 2},
        {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE});
  /* (hi R11 : lo R10) + (R12 : R12) */
  const char *add_lo =
      "MOV R16, R10\nMOV R17, R11\nMOV R18, R12\nMOV R19, R12\nIADD.64 R14, R16, R18\nMOV R13, R14";
  const char *add_hi =
      "MOV R16, R10\nMOV R17, R11\nMOV R18, R12\nMOV R19, R12\nIADD.64 R14, R16, R18\nMOV R13, R15";
  CHECK(add_lo, {0xFFFFFFFF, 0, 1, 0}, {0xFFFFFFFF, 0xFFFFFFFF, 1, 0}, {5, 6, 7, 12});
  CHECK(add_hi, {0xFFFFFFFF, 0, 1, 2}, {0xFFFFFFFF, 0xFFFFFFFF, 1, 1}, {5, 6, 7, 13});
}

Test(alu, shifts_including_large_counts) {
  CHECK("SHL R13, R10, R11", {1, 31, 0, 0x80000000}, {1, 32, 0, 0}, {1, 33, 0, 0}, {1, 0xFFFFFFFF, 0, 0},
        {0xFFFFFFFF, 0, 0, 0xFFFFFFFF}, {3, 4, 0, 0x30});
  CHECK("SHR.U32 R13, R10, R11", {0x80000000, 31, 0, 1}, {0x80000000, 32, 0, 0}, {0x80000000, 33, 0, 0},
        {0x80000000, 0xFFFFFFFF, 0, 0}, {0xF0000000, 4, 0, 0x0F000000}, {5, 0, 0, 5});
  CHECK("SHR.S32 R13, R10, R11", {0x80000000, 31, 0, 0xFFFFFFFF}, {0x80000000, 32, 0, 0xFFFFFFFF},
        {0x80000000, 33, 0, 0xFFFFFFFF}, {0x80000000, 0xFFFFFFFF, 0, 0xFFFFFFFF}, {0x7FFFFFFF, 32, 0, 0},
        {0x7FFFFFFF, 30, 0, 1}, {0xF0000000, 4, 0, 0xFF000000}, {5, 0, 0, 5});
  CHECK("SHR R13, R10, 4", {0xF0000000, 0, 0, 0xFF000000});
  CHECK("SHL R13, R10, 32", {0xFFFFFFFF, 0, 0, 0});
}

Test(alu, logic_minmax_abs_popc) {
  CHECK("AND R13, R10, R11", {0xF0F0F0F0, 0xFF00FF00, 0, 0xF000F000});
  CHECK("OR R13, R10, R11", {0xF0F0F0F0, 0x0F000000, 0, 0xFFF0F0F0});
  CHECK("XOR R13, R10, R11", {0xFFFFFFFF, 0x0000FFFF, 0, 0xFFFF0000});
  CHECK("NOT R13, R10", {0, 0, 0, 0xFFFFFFFF}, {0x12345678, 0, 0, 0xEDCBA987});
  CHECK("IMIN.S32 R13, R10, R11", {0x80000000, 0x7FFFFFFF, 0, 0x80000000}, {0xFFFFFFFF, 0, 0, 0xFFFFFFFF});
  CHECK("IMIN.U32 R13, R10, R11", {0x80000000, 0x7FFFFFFF, 0, 0x7FFFFFFF}, {0xFFFFFFFF, 0, 0, 0});
  CHECK("IMAX.S32 R13, R10, R11", {0x80000000, 0x7FFFFFFF, 0, 0x7FFFFFFF}, {0xFFFFFFFF, 0, 0, 0});
  CHECK("IMAX.U32 R13, R10, R11", {0x80000000, 0x7FFFFFFF, 0, 0x80000000}, {0xFFFFFFFF, 0, 0, 0xFFFFFFFF});
  CHECK("IMAX R13, R10, -5", {0xFFFFFFF0, 0, 0, 0xFFFFFFFB});
  CHECK("IABS R13, R10", {0x80000000, 0, 0, 0x80000000}, {0xFFFFFFFF, 0, 0, 1}, {5, 0, 0, 5}, {0, 0, 0, 0});
  CHECK("POPC R13, R10", {0, 0, 0, 0}, {0xFFFFFFFF, 0, 0, 32}, {0x80000001, 0, 0, 2});
}

/* PTX bfe: pos = b & 0xff, len = c & 0xff; the field's top bit (clamped to
 * bit 31) fills the rest for .S32, 0 for .U32; len 0 gives 0. */
Test(alu, bit_field_extract) {
  /* 0xF0 >> 4 = 0xF, top bit set: -1 signed, 15 unsigned; 0x70 -> 7 either way.
   * 0x80000000 pos 28 len 8: only bits 28..31 exist (1000b), the fill is bit 31.
   * pos 40: no field bit exists; .S32 replicates bit 31. b = 0x104, c = 0x208
   * are pos 4, len 8 after the & 0xff: (0x12345678 >> 4) & 0xff = 0x67. */
  CHECK("BFE.S32 R13, R10, R11, R12", {0xF0, 4, 4, 0xFFFFFFFF}, {0x70, 4, 4, 7},
        {0x80000000, 31, 1, 0xFFFFFFFF}, {0x80000000, 28, 8, 0xFFFFFFF8}, {0x7FFFFFFF, 40, 5, 0},
        {0x80000000, 40, 5, 0xFFFFFFFF}, {0xFFFFFFFF, 0, 0, 0}, {0xFFFFFFFF, 7, 256, 0},
        {0x12345678, 0x104, 0x208, 0x67}, {0xDEADBEEF, 0, 32, 0xDEADBEEF}, {0xDEADBEEF, 0, 255, 0xDEADBEEF},
        {0x800, 8, 4, 0xFFFFFFF8}, {0xDEADBEEF, 16, 16, 0xFFFFDEAD});
  CHECK("BFE.U32 R13, R10, R11, R12", {0xF0, 4, 4, 0xF}, {0x80000000, 28, 8, 8}, {0x80000000, 40, 5, 0},
        {0xFFFFFFFF, 0, 0, 0}, {0xDEADBEEF, 16, 16, 0xDEAD}, {0xDEADBEEF, 0, 32, 0xDEADBEEF},
        {0xFFFFFFFF, 31, 8, 1});
  CHECK("BFE R13, R10, 4, 4", {0xF0, 0, 0, 0xFFFFFFFF}); /* .S32 is the default */
  CHECK("BFE.U32 R13, R10, R11, 12", {0xABCDEF, 8, 0, 0xBCD});
}

/* PRMT d, a, sel, c = PTX prmt.b32 d, a, c, sel: bytes 0..3 of a, 4..7 of c;
 * nibble k of sel picks byte k of d; its bit 3 replicates the byte's sign. */
Test(alu, byte_permute) {
  const uint32_t a = 0x44332211, c = 0x88776655;
  CHECK("PRMT R13, R10, R11, R12", {a, 0x3210, c, a}, {a, 0x7654, c, c}, {a, 0x0123, c, 0x11223344},
        {a, 0x4567, c, 0x55667788}, {a, 0x5140, c, 0x66225511}, {a, 0x8888, c, 0}, {a, 0xF000, c, 0xFF111111},
        {a, 0xFFFF3210, c, a}, {0x7F80FF01, 0x0009, 0, 0x010101FF}, {0x7F80FF01, 0x000B, 0, 0x01010100},
        {0x7F80FF01, 0xAAAA, 0, 0xFFFFFFFF});
  /* the common pack of two low halves: selector 0x5410 as an immediate */
  CHECK("PRMT R13, R10, 0x5410, R12", {a, 0, c, 0x66552211});
}

Test(alu, clz_and_brev) {
  CHECK("CLZ R13, R10", {0, 0, 0, 32}, {1, 0, 0, 31}, {0x80000000, 0, 0, 0}, {0x00010000, 0, 0, 15},
        {0xFFFFFFFF, 0, 0, 0}, {0x7FFFFFFF, 0, 0, 1});
  /* 0x12345678 = 0001 0010 0011 0100 0101 0110 0111 1000, read backwards
   * 0001 1110 0110 1010 0010 1100 0100 1000 = 0x1E6A2C48 */
  CHECK("BREV R13, R10", {1, 0, 0, 0x80000000}, {0x80000000, 0, 0, 1}, {0x12345678, 0, 0, 0x1E6A2C48},
        {0, 0, 0, 0}, {0xFFFFFFFF, 0, 0, 0xFFFFFFFF}, {0x0000FFFF, 0, 0, 0xFFFF0000});
}

/* P1 = (R10 != 0), P2 = (R11 != 0); R13 = the result predicate as 0/1, over
 * the four rows of the truth table. */
Test(alu, predicate_logic) {
  static const struct {
    const char *insn;
    uint32_t want[4]; /* (0,0) (0,1) (1,0) (1,1) */
  } cases[] = {
      {"PAND P3, P1, P2", {0, 0, 0, 1}},  {"POR P3, P1, P2", {0, 1, 1, 1}},
      {"PXOR P3, P1, P2", {0, 1, 1, 0}},  {"PAND P3, !P1, P2", {0, 1, 0, 0}},
      {"POR P3, !P1, !P2", {1, 1, 1, 0}}, {"PXOR P3, P1, PT", {1, 1, 0, 0}},
      {"PAND P3, P2, !PT", {0, 0, 0, 0}}, {"PXOR P3, !P1, P2", {1, 0, 0, 1}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char body[256];
    snprintf(body, sizeof body,
             "ISETP.NE.U32 P1, R10, 0\nISETP.NE.U32 P2, R11, 0\n%s\nMOV R13, 0\n@P3 MOV R13, 1",
             cases[i].insn);
    row rows[4];
    for (uint32_t r = 0; r < 4; r++) rows[r] = (row){r >> 1, r & 1u, 0, cases[i].want[r]};
    check_rows(body, rows, 4);
  }
  /* a write to PT is dropped: PT stays true */
  CHECK("POR PT, P1, P1\nMOV R13, 0\n@PT MOV R13, 1", {0, 0, 0, 1});
  /* guarded: lanes whose guard fails keep P3 (set true first) */
  CHECK("ISETP.NE.U32 P1, R10, 0\nISETP.NE.U32 P2, R11, 0\nISETP.EQ.U32 P3, RZ, 0\n@P1 PAND P3, P2, P2\n"
        "MOV R13, 0\n@P3 MOV R13, 1",
        {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 1, 0, 1});
}

Test(alu, isetp_all_comparisons) {
  /* pairs: (1,2) (2,1) (2,2) (-1,0) (INT_MIN, INT_MAX) */
  static const char *cmps[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  static const uint32_t pa[] = {1, 2, 2, 0xFFFFFFFF, 0x80000000}, pb[] = {1 + 1, 1, 2, 0, 0x7FFFFFFF};
  static const uint32_t want_s[6][5] = {{0, 0, 1, 0, 0}, {1, 1, 0, 1, 1}, {1, 0, 0, 1, 1},
                                        {1, 0, 1, 1, 1}, {0, 1, 0, 0, 0}, {0, 1, 1, 0, 0}};
  static const uint32_t want_u[6][5] = {{0, 0, 1, 0, 0}, {1, 1, 0, 1, 1}, {1, 0, 0, 0, 0},
                                        {1, 0, 1, 0, 0}, {0, 1, 0, 1, 1}, {0, 1, 1, 1, 1}};
  for (int t = 0; t < 2; t++)
    for (int c = 0; c < 6; c++) {
      char body[160];
      snprintf(body, sizeof body, "ISETP.%s.%s P1, R10, R11\nMOV R13, 0\n@P1 MOV R13, 1", cmps[c],
               t ? "U32" : "S32");
      row rows[5];
      for (int i = 0; i < 5; i++) rows[i] = (row){pa[i], pb[i], 0, t ? want_u[c][i] : want_s[c][i]};
      check_rows(body, rows, 5);
    }
}

Test(alu, moves_and_select) {
  CHECK("MOV R13, 0f7FC00000", {0, 0, 0, QNAN});
  CHECK("MOV R13, 1.5", {0, 0, 0, 0x3FC00000});
  CHECK("MOV R13, -1", {0, 0, 0, 0xFFFFFFFF});
  CHECK("MOV R13, R10", {0xDEADBEEF, 0, 0, 0xDEADBEEF});
  CHECK("MOV R13, RZ", {0xDEADBEEF, 0, 0, 0});
  CHECK("MOV RZ, R10\nIADD R13, RZ, 7", {0xDEADBEEF, 0, 0, 7});
  CHECK("ISETP.NE.U32 P2, R12, 0\nSEL R13, R10, R11, P2", {1, 2, 1, 1}, {1, 2, 0, 2});
  CHECK("ISETP.NE.U32 P2, R12, 0\nSEL R13, R10, R11, !P2", {1, 2, 1, 2}, {1, 2, 0, 1});
  CHECK("SEL R13, R10, 9, PT", {4, 0, 0, 4});
  CHECK("SEL R13, R10, 9, !PT", {4, 0, 0, 9});
  /* guards: @!P0 with P0 false runs; writes to PT are dropped */
  CHECK("ISETP.EQ.U32 PT, R10, 99\nMOV R13, 5\n@!PT MOV R13, 6", {0, 0, 0, 5});
  CHECK("ISETP.EQ.U32 P3, R10, 1\nMOV R13, 5\n@!P3 MOV R13, 6", {1, 0, 0, 5}, {0, 0, 0, 6});
}

Test(alu, shared_symbol_offset_in_mov) {
  const char *src = ".kernel t\n.param .ptr out\n.shared a 20\n.shared buf 64 16\n"
                    "MOV R1, buf\nMOV R2, a\nLDP.64 R4, [out]\nSTG.32 [R4], R1\nSTG.32 [R4+4], R2\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  uint64_t o = st_buf(&t, "out", 8, NULL);
  st_run(&t, 1, 1);
  uint32_t got[2];
  st_read(&t, got, o, 8);
  cr_expect_eq(got[0], 32, "buf follows a (20 bytes) rounded up to its 16-byte alignment");
  cr_expect_eq(got[1], 0);
  st_fini(&t);
}

Test(alu, special_registers) {
  const char *src =
      ".kernel t\n.param .ptr out\n"
      "S2R R1, SR_TID.X\nS2R R2, SR_TID.Y\nS2R R3, SR_TID.Z\nS2R R4, SR_NTID.X\nS2R R5, SR_NTID.Y\n"
      "S2R R6, SR_NTID.Z\nIMAD R7, R3, R5, R2\nIMAD R7, R7, R4, R1\n" /* linear tid */
      "S2R R8, SR_CTAID.X\nS2R R9, SR_CTAID.Y\nS2R R10, SR_NCTAID.X\nIMAD R11, R9, R10, R8\n"
      "IMUL R12, R4, R5\nIMUL R12, R12, R6\nIMAD R12, R11, R12, R7\n" /* global index */
      "LDP.64 R14, [out]\nIMAD.WIDE.U32 R14, R12, 32, R14\n"
      "S2R R16, SR_LANEID\nS2R R17, SR_WARPID\nS2R R18, SR_SMID\nS2R R19, SR_NCTAID.Y\n"
      "STG.32 [R14], R1\nSTG.32 [R14+4], R2\nSTG.32 [R14+8], R3\nSTG.32 [R14+12], R16\n"
      "STG.32 [R14+16], R17\nSTG.32 [R14+20], R8\nSTG.32 [R14+24], R9\nSTG.32 [R14+28], R18\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  enum { BX = 8, BY = 5, BZ = 2, GX = 2, GY = 3, N = BX * BY * BZ * GX * GY };
  uint64_t o = st_buf(&t, "out", N * 32, NULL);
  cr_assert_eq(st_launch(&t, (ws_dim3){GX, GY, 1}, (ws_dim3){BX, BY, BZ}, 0), WS_OK, "%s", ws_errmsg(t.ctx));
  static uint32_t got[N][8];
  st_read(&t, got, o, sizeof got);
  for (uint32_t cy = 0; cy < GY; cy++)
    for (uint32_t cx = 0; cx < GX; cx++)
      for (uint32_t z = 0; z < BZ; z++)
        for (uint32_t y = 0; y < BY; y++)
          for (uint32_t x = 0; x < BX; x++) {
            uint32_t lin = x + BX * (y + BY * z), cta = cy * GX + cx;
            const uint32_t *g = got[cta * BX * BY * BZ + lin];
            uint32_t want[8] = {x, y, z, lin % 32, lin / 32, cx, cy, cta % 108};
            for (int i = 0; i < 8; i++) cr_expect_eq(g[i], want[i], "cta %u lin %u field %d", cta, lin, i);
          }
  cr_expect_eq(t.stats.ctas, GX * GY);
  st_fini(&t);
}

Test(alu, fp32_add_mul_fma) {
  /* 1 + 2^-24 is a tie between 1 and 1+2^-23: even -> 1; 1 + 3*2^-24 -> 1 + 2^-22 */
  CHECK("FADD R13, R10, R11", {ONE, 0x33800000, 0, ONE}, {ONE, 0x34400000, 0, 0x3F800002},
        {PINF, NINF, 0, ANY_NAN}, {NZERO, NZERO, 0, NZERO}, {NZERO, 0, 0, 0},
        {0x7F7FFFFF, 0x7F7FFFFF, 0, PINF}, {QNAN, ONE, 0, ANY_NAN});
  CHECK("FADD R13, -R10, |R11|", {ONE, 0xC0000000, 0, ONE}, {NZERO, NZERO, 0, 0});
  CHECK("FADD R13, R10, 0.5", {ONE, 0, 0, 0x3FC00000});
  /* 2^-126 * 0.5 is the subnormal 2^-127 (no flush to zero) */
  CHECK("FMUL R13, R10, R11", {PINF, 0, 0, ANY_NAN}, {NZERO, 0x40A00000, 0, NZERO},
        {0x00800000, 0x3F000000, 0, 0x00400000}, {0x7E967699, 0x41200000, 0, PINF});
  /* (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly when fused (0x3A000400); an
   * unfused multiply would round 1+2^-11+2^-24 (a tie) to 1+2^-11 first. */
  CHECK("FFMA R13, R10, R11, R12", {0x3F800800, 0x3F800800, 0xBF800000, 0x3A000400},
        {TWO, 0x40400000, ONE, 0x40E00000}, {PINF, 0, ONE, ANY_NAN});
  CHECK("FFMA R13, -R10, R11, -R12", {TWO, 0x40400000, ONE, 0xC0E00000});
}

Test(alu, fp32_source_modifiers_on_bits) {
  /* min(x, x) returns x's bits, so these expose the modifier result exactly */
  CHECK("FMIN R13, -|R10|, -|R10|", {TWO, 0, 0, 0xC0000000}, {NZERO, 0, 0, NZERO}, {0, 0, 0, NZERO},
        {NINF, 0, 0, NINF}, {0xC0400000, 0, 0, 0xC0400000});
  CHECK("FMIN R13, -R10, -R10", {ONE, 0, 0, 0xBF800000}, {NZERO, 0, 0, 0}, {NINF, 0, 0, PINF});
  CHECK("FMIN R13, |R10|, |R10|", {0xC0400000, 0, 0, 0x40400000}, {NZERO, 0, 0, 0});
}

Test(alu, fmin_fmax_nan_and_signed_zero) {
  CHECK("FMIN R13, R10, R11", {QNAN, ONE, 0, ONE}, {ONE, QNAN, 0, ONE}, {QNAN, QNAN, 0, 0x7FFFFFFF},
        {NZERO, 0, 0, NZERO}, {0, NZERO, 0, NZERO}, {NINF, 0x40A00000, 0, NINF}, {0x40400000, TWO, 0, TWO},
        {QNAN, NINF, 0, NINF}, {0xFFC00000, TWO, 0, TWO});
  CHECK("FMAX R13, R10, R11", {QNAN, ONE, 0, ONE}, {ONE, QNAN, 0, ONE}, {QNAN, QNAN, 0, 0x7FFFFFFF},
        {NZERO, 0, 0, 0}, {0, NZERO, 0, 0}, {NINF, 0x40A00000, 0, 0x40A00000},
        {0x40400000, TWO, 0, 0x40400000}, {QNAN, NINF, 0, NINF}, {NZERO, NZERO, 0, NZERO});
}

Test(alu, fsetp_ordered_unordered) {
  static const char *cmps[] = {"EQ",  "NE",  "LT",  "LE",  "GT",  "GE",  "EQU",
                               "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"};
  /* pairs: (1,2) (2,1) (1,1) (NaN,1) (1,NaN) (-0,+0) */
  static const uint32_t pa[] = {ONE, TWO, ONE, QNAN, ONE, NZERO}, pb[] = {TWO, ONE, ONE, ONE, QNAN, 0};
  static const uint32_t want[14][6] = {
      {0, 0, 1, 0, 0, 1}, {1, 1, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {1, 0, 1, 0, 0, 1}, {0, 1, 0, 0, 0, 0},
      {0, 1, 1, 0, 0, 1}, {0, 0, 1, 1, 1, 1}, {1, 1, 0, 1, 1, 0}, {1, 0, 0, 1, 1, 0}, {1, 0, 1, 1, 1, 1},
      {0, 1, 0, 1, 1, 0}, {0, 1, 1, 1, 1, 1}, {1, 1, 1, 0, 0, 1}, {0, 0, 0, 1, 1, 0}};
  for (int c = 0; c < 14; c++) {
    char body[128];
    snprintf(body, sizeof body, "FSETP.%s P1, R10, R11\nMOV R13, 0\n@P1 MOV R13, 1", cmps[c]);
    row rows[6];
    for (int i = 0; i < 6; i++) rows[i] = (row){pa[i], pb[i], 0, want[c][i]};
    check_rows(body, rows, 6);
  }
}

Test(alu, mufu) {
  CHECK("MUFU.EX2 R13, R10", {0, 0, 0, ONE}, {0x41200000, 0, 0, 0x44800000}, {NINF, 0, 0, 0},
        {PINF, 0, 0, PINF}, {ONE, 0, 0, TWO}, {0xBF800000, 0, 0, 0x3F000000});
  CHECK("MUFU.LG2 R13, R10", {ONE, 0, 0, 0}, {0x41000000, 0, 0, 0x40400000}, {0, 0, 0, NINF},
        {NZERO, 0, 0, NINF}, {0xBF800000, 0, 0, ANY_NAN}, {PINF, 0, 0, PINF});
  CHECK("MUFU.RCP R13, R10", {TWO, 0, 0, 0x3F000000}, {0, 0, 0, PINF}, {NZERO, 0, 0, NINF}, {PINF, 0, 0, 0},
        {0x40800000, 0, 0, 0x3E800000});
  CHECK("MUFU.RSQ R13, R10", {0x40800000, 0, 0, 0x3F000000}, {0, 0, 0, PINF}, {0xBF800000, 0, 0, ANY_NAN},
        {PINF, 0, 0, 0});
  /* sqrt(2) correctly rounded = 0x3FB504F3 */
  CHECK("MUFU.SQRT R13, R10", {0x40800000, 0, 0, TWO}, {NZERO, 0, 0, NZERO}, {0xBF800000, 0, 0, ANY_NAN},
        {TWO, 0, 0, 0x3FB504F3}, {PINF, 0, 0, PINF});
  CHECK("MUFU.RCP R13, -R10", {TWO, 0, 0, 0xBF000000});
}

/* Expected bits are the correctly rounded results (libm's sinf, cosf and
 * tanhf give them for these inputs): 0x40490FDB is pi rounded to fp32, just
 * above pi, so its sine is -8.742278e-8 (0xB3BBBD2E); 0x3FC90FDB is pi/2
 * rounded up, cosine -4.371139e-8 (0xB33BBD2E), sine 1.0 after rounding. */
Test(alu, mufu_sin_cos_tanh) {
  CHECK("MUFU.SIN R13, R10", {0, 0, 0, 0}, {NZERO, 0, 0, NZERO}, {0x3FC90FDB, 0, 0, ONE},
        {0x40490FDB, 0, 0, 0xB3BBBD2E}, {ONE, 0, 0, 0x3F576AA4}, {PINF, 0, 0, ANY_NAN},
        {QNAN, 0, 0, ANY_NAN});
  CHECK("MUFU.COS R13, R10", {0, 0, 0, ONE}, {0x40490FDB, 0, 0, 0xBF800000}, {0x3FC90FDB, 0, 0, 0xB33BBD2E},
        {ONE, 0, 0, 0x3F0A5140}, {NINF, 0, 0, ANY_NAN});
  /* tanh(0.5) = 0.46211716 (0x3EEC9A9F), tanh(1) = 0.7615942 (0x3F42F7D6),
   * tanh(-2) = -0.9640276 (0xBF76CA83); tanh(20) rounds to 1 */
  CHECK("MUFU.TANH R13, R10", {0, 0, 0, 0}, {NZERO, 0, 0, NZERO}, {0x3F000000, 0, 0, 0x3EEC9A9F},
        {ONE, 0, 0, 0x3F42F7D6}, {0xC0000000, 0, 0, 0xBF76CA83}, {0x41A00000, 0, 0, ONE}, {PINF, 0, 0, ONE},
        {NINF, 0, 0, 0xBF800000}, {QNAN, 0, 0, ANY_NAN});
  CHECK("MUFU.SIN R13, -R10", {0x3FC90FDB, 0, 0, 0xBF800000});
}

/* RZ as IMAD.WIDE's 64-bit addend reads as a pair of zeros: the product
 * alone, zero- or sign-extended (R16:R17 hold junk to show they are not read). */
Test(alu, imad_wide_with_rz_addend) {
  const char *u_lo = "MOV R16, 5\nMOV R17, 5\nIMAD.WIDE.U32 R14, R10, 4, RZ\nMOV R13, R14";
  const char *u_hi = "MOV R16, 5\nMOV R17, 5\nIMAD.WIDE.U32 R14, R10, 4, RZ\nMOV R13, R15";
  const char *s_hi = "IMAD.WIDE.S32 R14, R10, R11, RZ\nMOV R13, R15";
  /* 0xFFFFFFFF * 4 = 0x3_FFFFFFFC; 7 * 4 = 28 */
  CHECK(u_lo, {0xFFFFFFFF, 0, 0, 0xFFFFFFFC}, {7, 0, 0, 28});
  CHECK(u_hi, {0xFFFFFFFF, 0, 0, 3}, {7, 0, 0, 0});
  /* -1 * 4 = 0xFFFFFFFF_FFFFFFFC; 0x40000000 * 4 = 0x1_00000000 */
  CHECK(s_hi, {0xFFFFFFFF, 4, 0, 0xFFFFFFFF}, {0x40000000, 4, 0, 1});
}

Test(alu, int_float_conversions) {
  /* 2^24+1 ties to 2^24 (even); 2^24+3 ties to 2^24+4 (even mantissa) */
  CHECK("I2F.S32 R13, R10", {0x80000000, 0, 0, 0xCF000000}, {0xFFFFFFFF, 0, 0, 0xBF800000},
        {16777217, 0, 0, 0x4B800000}, {16777219, 0, 0, 0x4B800002}, {0x7FFFFFFF, 0, 0, 0x4F000000},
        {0, 0, 0, 0});
  CHECK("I2F.U32 R13, R10", {0xFFFFFFFF, 0, 0, 0x4F800000}, {0x80000000, 0, 0, 0x4F000000},
        {0x80000001, 0, 0, 0x4F000000}, {7, 0, 0, 0x40E00000});
  /* truncation toward zero, saturation, NaN -> 0 */
  CHECK("F2I.S32 R13, R10", {0x4039999A, 0, 0, 2}, {0xC039999A, 0, 0, 0xFFFFFFFE}, {QNAN, 0, 0, 0},
        {PINF, 0, 0, 0x7FFFFFFF}, {NINF, 0, 0, 0x80000000}, {0x4F32D05E, 0, 0, 0x7FFFFFFF},
        {0xCF32D05E, 0, 0, 0x80000000}, {0x4EFFFFFF, 0, 0, 0x7FFFFF80}, {0xCF000000, 0, 0, 0x80000000},
        {0xBF000000, 0, 0, 0}, {0x4F000000, 0, 0, 0x7FFFFFFF});
  CHECK("F2I.U32 R13, R10", {0xBF800000, 0, 0, 0}, {0xBF666666, 0, 0, 0}, {QNAN, 0, 0, 0},
        {0x4F7FFFFF, 0, 0, 0xFFFFFF00}, {0x4F800000, 0, 0, 0xFFFFFFFF}, {PINF, 0, 0, 0xFFFFFFFF},
        {0x407F5C29, 0, 0, 3}, {NINF, 0, 0, 0});
  CHECK("F2I R13, -R10", {0x40400000, 0, 0, 0xFFFFFFFD});
}

Test(alu, half_conversions) {
  /* 65520 overflows to inf; 1+2^-11 ties to 1; 2^-25 ties to 0; 3*2^-26 -> 2^-24 */
  CHECK("F2F.F16.F32 R13, R10", {ONE, 0, 0, 0x3C00}, {0x477FF000, 0, 0, 0x7C00}, {0x3F801000, 0, 0, 0x3C00},
        {0x33000000, 0, 0, 0}, {0x33400000, 0, 0, 1}, {QNAN, 0, 0, 0x7E00}, {NINF, 0, 0, 0xFC00},
        {0x477FE000, 0, 0, 0x7BFF});
  CHECK("F2F.F32.F16.H0 R13, R10", {0x3C00C000, 0, 0, 0xC0000000}, {0x00017C00, 0, 0, PINF});
  CHECK("F2F.F32.F16.H1 R13, R10", {0x3C00C000, 0, 0, ONE}, {0x00017C00, 0, 0, 0x33800000});
  CHECK("F2F.F32.F16 R13, R10", {0x00003555, 0, 0, 0x3EAAA000});
  CHECK("F2FP.PACK R13, R10, R11", {ONE, 0xC0000000, 0, 0xC0003C00}, {0x477FF000, 0x33800000, 0, 0x00017C00});
}

/* Expected source lane of a shuffle, written from the opcodes.def rule. */
static uint32_t shfl_lane(int mode, int lane, uint32_t b) {
  long src = mode == 0   ? (long)(b & 31)
             : mode == 1 ? lane - (long)b
             : mode == 2 ? lane + (long)b
                         : lane ^ (long)(b & 31);
  return (src < 0 || src > 31) ? (uint32_t)lane : (uint32_t)src;
}

Test(alu, shfl_all_modes) {
  static const char *modes[] = {"IDX", "UP", "DOWN", "BFLY"};
  uint32_t a[32], b[32], out[32];
  for (int l = 0; l < 32; l++) {
    a[l] = 1000u + (uint32_t)l;
    b[l] = (uint32_t)((l * 7) % 40); /* some counts past 31 */
  }
  b[3] = 0xFFFFFFFFu;
  for (int m = 0; m < 4; m++) {
    char body[64];
    snprintf(body, sizeof body, "SHFL.%s R13, R10, R11", modes[m]);
    st_lanes(body, 32, a, b, NULL, out);
    for (int l = 0; l < 32; l++)
      cr_expect_eq(out[l], 1000u + shfl_lane(m, l, b[l]), "%s lane %d b %u", modes[m], l, b[l]);
  }
  /* fixed spot checks: IDX 0xFFFFFFFF -> lane 31; UP by 0xFFFFFFFF keeps own */
  st_lanes("SHFL.IDX R13, R10, R11", 32, a, b, NULL, out);
  cr_expect_eq(out[3], 1031);
  st_lanes("SHFL.UP R13, R10, R11", 32, a, b, NULL, out);
  cr_expect_eq(out[3], 1003);
  st_lanes("SHFL.BFLY R13, R10, 1", 32, a, NULL, NULL, out);
  cr_expect_eq(out[0], 1001);
  cr_expect_eq(out[31], 1030);
  st_lanes("SHFL.DOWN R13, R10, 16", 32, a, NULL, NULL, out);
  cr_expect_eq(out[0], 1016);
  cr_expect_eq(out[15], 1031);
  cr_expect_eq(out[16], 1016);
}

Test(alu, shfl_reads_exited_lanes) {
  /* lanes 16..31 exit; lanes 0..15 still read their (kept) registers */
  uint32_t a[32], c[32], out[32];
  for (int l = 0; l < 32; l++) {
    a[l] = 500u + (uint32_t)l;
    c[l] = l >= 16;
  }
  st_lanes("MOV R13, 7\nISETP.NE.U32 P1, R12, 0\n@P1 BRA skip\nSHFL.DOWN R13, R10, 16\nskip:", 32, a, NULL, c,
           out);
  for (int l = 0; l < 16; l++) cr_expect_eq(out[l], 516u + (uint32_t)l);
  for (int l = 16; l < 32; l++) cr_expect_eq(out[l], 7);
}

Test(alu, vote_and_ballot) {
  uint32_t c[32], out[32];
  for (int l = 0; l < 32; l++) c[l] = 1;
  const char *all = "ISETP.NE.U32 P1, R12, 0\nVOTE.ALL P2, P1\nMOV R13, 0\n@P2 MOV R13, 1";
  const char *any = "ISETP.NE.U32 P1, R12, 0\nVOTE.ANY P2, P1\nMOV R13, 0\n@P2 MOV R13, 1";
  st_lanes(all, 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 1);
  c[5] = 0;
  st_lanes(all, 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 0);
  /* over executing lanes only: the lanes with c set all agree */
  st_lanes("ISETP.NE.U32 P1, R12, 0\n@P1 VOTE.ALL P2, P1\nMOV R13, 0\n@P2 MOV R13, 1", 32, NULL, NULL, c,
           out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], l != 5);
  for (int l = 0; l < 32; l++) c[l] = 0;
  st_lanes(any, 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 0);
  c[31] = 1;
  st_lanes(any, 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 1);
  for (int l = 0; l < 32; l++) c[l] = l % 3 == 0;
  st_lanes("ISETP.NE.U32 P1, R12, 0\nVOTE.BALLOT R13, P1", 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 0x49249249u);
  st_lanes("ISETP.NE.U32 P1, R12, 0\nVOTE.BALLOT R13, !P1", 32, NULL, NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], 0xB6DB6DB6u);
  st_lanes("ISETP.NE.U32 P1, R12, 0\nISETP.LT.U32 P4, R0, 16\nMOV R13, 3\n@P4 VOTE.BALLOT R13, P1", 32, NULL,
           NULL, c, out);
  for (int l = 0; l < 32; l++) cr_expect_eq(out[l], l < 16 ? 0x9249u : 3u);
  /* a 40-thread CTA: warp 1 has 8 lanes; the ballot sees only those */
  uint32_t c40[40], o40[40];
  for (int l = 0; l < 40; l++) c40[l] = 1;
  st_lanes("ISETP.NE.U32 P1, R12, 0\nVOTE.BALLOT R13, P1", 40, NULL, NULL, c40, o40);
  cr_expect_eq(o40[0], 0xFFFFFFFFu);
  cr_expect_eq(o40[39], 0xFFu);
}

/* A, B, C with small dyadic values: every product and partial sum is exact
 * in fp32, so the reference below is exact whatever the order. */
static float a_val(int i, int k) { return (float)((i * 3 + k * 5) % 13 - 6) * 0.25f; }
static float b_val(int k, int j) { return (float)((k * 7 + j * 3) % 11 - 5) * 0.5f; }
static float c_val(int i, int j) { return (float)(i * 8 + j) - 40.0f; }

static uint32_t pack(float lo, float hi) { return ws_f16_from_f32(lo) | (uint32_t)ws_f16_from_f32(hi) << 16; }

Test(alu, hmma_16816_f32) {
  const char *src = ".kernel t\n.param .ptr fa\n.param .ptr fb\n.param .ptr fc\n.param .ptr out\n"
                    "S2R R0, SR_LANEID\n"
                    "LDP.64 R2, [fa]\nIMAD.WIDE.U32 R2, R0, 16, R2\nLDG.128 R4, [R2]\n"
                    "LDP.64 R2, [fb]\nIMAD.WIDE.U32 R2, R0, 8, R2\nLDG.64 R8, [R2]\n"
                    "LDP.64 R2, [fc]\nIMAD.WIDE.U32 R2, R0, 16, R2\nLDG.128 R12, [R2]\n"
                    "HMMA.16816.F32 R12, R4, R8, R12\n" /* D aliases C */
                    "LDP.64 R2, [out]\nIMAD.WIDE.U32 R2, R0, 16, R2\nSTG.128 [R2], R12\nEXIT\n";
  uint32_t fa[32][4], fb[32][2], fc[32][4], fd[32][4];
  for (int l = 0; l < 32; l++) {
    int g = l >> 2, t = l & 3;
    fa[l][0] = pack(a_val(g, t * 2), a_val(g, t * 2 + 1));
    fa[l][1] = pack(a_val(g + 8, t * 2), a_val(g + 8, t * 2 + 1));
    fa[l][2] = pack(a_val(g, t * 2 + 8), a_val(g, t * 2 + 9));
    fa[l][3] = pack(a_val(g + 8, t * 2 + 8), a_val(g + 8, t * 2 + 9));
    fb[l][0] = pack(b_val(t * 2, g), b_val(t * 2 + 1, g));
    fb[l][1] = pack(b_val(t * 2 + 8, g), b_val(t * 2 + 9, g));
    float cv[4] = {c_val(g, t * 2), c_val(g, t * 2 + 1), c_val(g + 8, t * 2), c_val(g + 8, t * 2 + 1)};
    memcpy(fc[l], cv, sizeof cv);
  }
  simtest t;
  st_init(&t, src, "t");
  st_buf(&t, "fa", sizeof fa, fa);
  st_buf(&t, "fb", sizeof fb, fb);
  st_buf(&t, "fc", sizeof fc, fc);
  uint64_t o = st_buf(&t, "out", sizeof fd, NULL);
  st_run(&t, 1, 32);
  st_read(&t, fd, o, sizeof fd);
  for (int l = 0; l < 32; l++) {
    int g = l >> 2, tg = l & 3;
    for (int r = 0; r < 4; r++) {
      int i = g + (r >> 1) * 8, j = tg * 2 + (r & 1);
      double want = c_val(i, j);
      for (int k = 0; k < 16; k++) want += (double)a_val(i, k) * b_val(k, j);
      float got;
      memcpy(&got, &fd[l][r], 4);
      cr_expect_eq((double)got, want, "D[%d][%d] (lane %d reg %d)", i, j, l, r);
    }
  }
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_TENSOR], 1);
  st_fini(&t);
}

Test(alu, hmma_rounds_once_per_k_in_order) {
  /* C = 2^24 and a single nonzero product 1*1: 2^24 + 1 is a tie between
   * 2^24 and 2^24 + 2 and must round to even (2^24), as an fp32 fmaf does. */
  const char *src = ".kernel t\n.param .ptr fa\n.param .ptr fb\n.param .ptr out\n"
                    "S2R R0, SR_LANEID\nLDP.64 R2, [fa]\nIMAD.WIDE.U32 R2, R0, 16, R2\nLDG.128 R4, [R2]\n"
                    "LDP.64 R2, [fb]\nIMAD.WIDE.U32 R2, R0, 8, R2\nLDG.64 R8, [R2]\n"
                    "MOV R12, 0f4B800000\nMOV R13, R12\nMOV R14, R12\nMOV R15, R12\n"
                    "HMMA.16816.F32 R16, R4, R8, R12\n"
                    "LDP.64 R2, [out]\nIMAD.WIDE.U32 R2, R0, 16, R2\nSTG.128 [R2], R16\nEXIT\n";
  uint32_t fa[32][4] = {{0}}, fb[32][2], fd[32][4];
  /* row 0: A[0][0] = 1 (lane 0 reg 0 low half), everything else 0 */
  fa[0][0] = 0x3C00;
  for (int l = 0; l < 32; l++) fb[l][0] = fb[l][1] = 0x3C003C00; /* B = all ones */
  simtest t;
  st_init(&t, src, "t");
  st_buf(&t, "fa", sizeof fa, fa);
  st_buf(&t, "fb", sizeof fb, fb);
  uint64_t o = st_buf(&t, "out", sizeof fd, NULL);
  st_run(&t, 1, 32);
  st_read(&t, fd, o, sizeof fd);
  cr_expect_eq(fd[0][0], 0x4B800000u, "2^24 + 1 rounds to 2^24 (ties to even)");
  cr_expect_eq(fd[4][0], 0x4B800000u, "row 1 is C unchanged");
  st_fini(&t);
}
