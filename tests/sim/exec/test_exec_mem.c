/* test_exec_mem.c - memory instructions: widths and word order, the
 * constant bank and params, same-address stores, atomics under contention,
 * async copies (the tensor-core HMMA is exec_alu.c's: test_exec_alu.c). */
#include "tests/sim/simtest.h"

Test(mem_ops, widths_and_word_order) {
  const char *src =
      ".kernel t\n.param .ptr in\n.param .ptr out\n.shared buf 64 16\n"
      "LDP.64 R2, [in]\nLDP.64 R4, [out]\n"
      "LDG.128 R8, [R2]\nLDG.64 R12, [R2+16]\nLDG.32 R14, [R2+24]\n"
      "STS.128 [RZ+buf], R8\nSTS.64 [RZ+buf+16], R12\nMOV R1, 8\nLDS.64 R16, [R1+buf]\n"
      "LDS.128 R20, [RZ+buf]\n"
      "STG.128 [R4], R20\nSTG.64 [R4+16], R16\nSTG.32 [R4+24], R14\nSTG.64 [R4+32], R12\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  uint32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[10];
  st_buf(&t, "in", sizeof in, in);
  uint64_t o = st_buf(&t, "out", sizeof out, NULL);
  st_run(&t, 1, 1);
  st_read(&t, out, o, sizeof out);
  uint32_t want[10] = {1, 2, 3, 4, 3, 4, 7, 0, 5, 6};
  for (int i = 0; i < 10; i++) cr_expect_eq(out[i], want[i], "word %d", i);
  st_fini(&t);
}

Test(mem_ops, constant_bank_and_params) {
  const char *src = ".kernel t\n.param .u32 n\n.param .u64 big\n.param .ptr out\n"
                    "LDP.64 R4, [out]\nS2R R0, SR_TID.X\nSHL R1, R0, 2\nLDC.32 R2, [R1+16]\n"
                    "IMAD.WIDE.U32 R6, R0, 16, R4\nLDP.32 R8, [n]\nLDP.64 R10, [big]\n"
                    "STG.32 [R6], R2\nSTG.32 [R6+4], R8\nSTG.64 [R6+8], R10\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  uint32_t consts[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  cr_assert_eq(ws_device_const_write(t.dev, 12, consts, sizeof consts), WS_OK);
  st_u32(&t, "n", 77);
  cr_assert_eq(ws_args_set_u64(t.ctx, &t.args, "big", 0x123456789ABCDEF0ull), WS_OK);
  uint64_t o = st_buf(&t, "out", 4 * 16, NULL);
  st_run(&t, 1, 4);
  uint32_t out[16];
  st_read(&t, out, o, sizeof out);
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(out[i * 4], consts[i + 1], "bank offset 16 + 4i is consts[1 + i]");
    cr_expect_eq(out[i * 4 + 1], 77);
    cr_expect_eq(out[i * 4 + 2], 0x9ABCDEF0u);
    cr_expect_eq(out[i * 4 + 3], 0x12345678u);
  }
  cr_expect_eq(ws_device_const_write(t.dev, 65530, consts, 8), WS_ERR_INVALID);
  cr_expect_str_eq(
      ws_errmsg(t.ctx),
      "constant write of 8 bytes at offset 65530 runs past the end of the 65536-byte constant bank");
  st_fini(&t);
}

Test(mem_ops, same_address_stores_highest_lane_wins) {
  const char *src = ".kernel t\n.param .ptr out\n"
                    "LDP.64 R4, [out]\nS2R R0, SR_TID.X\nSTG.32 [R4], R0\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  uint64_t o = st_buf(&t, "out", 4, NULL);
  st_run(&t, 1, 32);
  uint32_t v;
  st_read(&t, &v, o, 4);
  cr_expect_eq(v, 31);
  st_fini(&t);
}

/* Runs an atomic kernel over n threads: word[0] starts at init, each thread
 * contributes operand c = vals[tid] (and b = cmp[tid] for CAS); returns the
 * final word and each thread's old value. */
static uint32_t run_atomic(const char *atom, uint32_t n, uint32_t init, const uint32_t *vals,
                           const uint32_t *cmp, uint32_t *olds) {
  char src[1024];
  snprintf(src, sizeof src,
           ".kernel t\n.param .ptr word\n.param .ptr vals\n.param .ptr cmps\n.param .ptr olds\n.shared s 16\n"
           "S2R R0, SR_TID.X\nLDP.64 R2, [vals]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R6, [R2]\n"
           "LDP.64 R2, [cmps]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R7, [R2]\nLDP.64 R4, [word]\n"
           "%s\n"
           "LDP.64 R2, [olds]\nIMAD.WIDE.U32 R2, R0, 4, R2\nSTG.32 [R2], R8\nEXIT\n",
           atom);
  simtest t;
  st_init(&t, src, "t");
  uint64_t w = st_buf(&t, "word", 4, &init);
  st_buf(&t, "vals", n * 4, vals);
  st_buf(&t, "cmps", n * 4, cmp ? cmp : vals);
  uint64_t o = st_buf(&t, "olds", n * 4, NULL);
  st_run(&t, 1, n);
  uint32_t final;
  st_read(&t, &final, w, 4);
  st_read(&t, olds, o, n * 4);
  st_fini(&t);
  return final;
}

Test(mem_ops, atomic_add_contention_exact) {
  uint32_t vals[64], olds[64];
  for (uint32_t i = 0; i < 64; i++) vals[i] = i + 1;
  /* 64 threads (two warps) add 1..64 to one word: sum 2080; served warp 0
   * lanes 0..31 then warp 1, so thread t sees the prefix sum t(t+1)/2 */
  uint32_t final = run_atomic("ATOMG.ADD.U32 R8, [R4], R6", 64, 0, vals, NULL, olds);
  cr_expect_eq(final, 2080);
  for (uint32_t i = 0; i < 64; i++) cr_expect_eq(olds[i], i * (i + 1) / 2, "thread %u", i);
  uint32_t ones[32];
  for (int i = 0; i < 32; i++) ones[i] = 1;
  cr_expect_eq(run_atomic("ATOMG.ADD.S32 R8, [R4], R6", 32, 0xFFFFFFF0u, ones, NULL, olds), 0x10, "wraps");
  cr_expect_eq(olds[16], 0);
  uint32_t halves[32];
  for (int i = 0; i < 32; i++) halves[i] = 0x3F000000u; /* 0.5f */
  cr_expect_eq(run_atomic("ATOMG.ADD.F32 R8, [R4], R6", 32, 0, halves, NULL, olds), 0x41800000u, "16.0f");
  cr_expect_eq(olds[3], 0x3FC00000u, "1.5f before lane 3");
  cr_expect_eq(run_atomic("ATOMS.ADD.U32 R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 64, 0,
                          vals, NULL, olds),
               2080);
  cr_expect_eq(olds[63], 2016);
}

Test(mem_ops, atomic_max_and_cas) {
  uint32_t vals[32], cmp[32], olds[32];
  for (uint32_t i = 0; i < 32; i++) vals[i] = i - 16u; /* -16 .. 15 */
  cr_expect_eq(run_atomic("ATOMG.MAX.S32 R8, [R4], R6", 32, 0x80000000u, vals, NULL, olds), 15);
  cr_expect_eq(olds[0], 0x80000000u);
  cr_expect_eq(olds[1], 0xFFFFFFF0u);
  cr_expect_eq(run_atomic("ATOMG.MAX.U32 R8, [R4], R6", 32, 0, vals, NULL, olds), 0xFFFFFFFFu);
  cr_expect_eq(run_atomic("ATOMS.MAX.S32 R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0,
                          vals, NULL, olds),
               15);
  /* CAS(compare = lane, swap = lane + 1) from 0: every lane succeeds in turn */
  for (uint32_t i = 0; i < 32; i++) {
    cmp[i] = i;
    vals[i] = i + 1;
  }
  cr_expect_eq(run_atomic("ATOMG.CAS R8, [R4], R7, R6", 32, 0, vals, cmp, olds), 32);
  for (uint32_t i = 0; i < 32; i++) cr_expect_eq(olds[i], i);
  /* compare always 5 from 0: nobody succeeds */
  for (uint32_t i = 0; i < 32; i++) cmp[i] = 5;
  cr_expect_eq(run_atomic("ATOMG.CAS R8, [R4], R7, R6", 32, 0, vals, cmp, olds), 0);
  for (uint32_t i = 0; i < 32; i++) cmp[i] = i;
  cr_expect_eq(run_atomic("ATOMS.CAS R8, [RZ], R7, R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0,
                          vals, cmp, olds),
               32);
}

Test(mem_ops, atomic_min_exch_and_bitwise) {
  uint32_t vals[32], olds[32];
  for (uint32_t i = 0; i < 32; i++) vals[i] = 15u - i; /* 15 .. -16 */
  /* signed: -16 from lane 31; unsigned: 0 from lane 15 (the negatives are huge) */
  cr_expect_eq(run_atomic("ATOMG.MIN.S32 R8, [R4], R6", 32, 0x7FFFFFFFu, vals, NULL, olds), 0xFFFFFFF0u);
  cr_expect_eq(olds[0], 0x7FFFFFFFu);
  cr_expect_eq(olds[1], 15u);
  cr_expect_eq(olds[31], 0xFFFFFFF1u, "-15 before lane 31");
  cr_expect_eq(run_atomic("ATOMG.MIN.U32 R8, [R4], R6", 32, 0xFFFFFFFFu, vals, NULL, olds), 0u);
  cr_expect_eq(olds[16], 0u, "lane 15 stored 0");
  cr_expect_eq(run_atomic("ATOMG.MIN R8, [R4], R6", 32, 0, vals, NULL, olds), 0xFFFFFFF0u, ".S32 default");
  /* exchange: each lane gets the previous lane's value, the last one stays */
  for (uint32_t i = 0; i < 32; i++) vals[i] = 100u + i;
  cr_expect_eq(run_atomic("ATOMG.EXCH R8, [R4], R6", 32, 7, vals, NULL, olds), 131u);
  cr_expect_eq(olds[0], 7u);
  for (uint32_t i = 1; i < 32; i++) cr_expect_eq(olds[i], 99u + i, "lane %u", i);
  cr_expect_eq(run_atomic("ATOMS.EXCH R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               131u);
  cr_expect_eq(olds[5], 104u);
  /* lane i contributes bit i: OR sets all, AND of ~bit clears all, XOR toggles */
  for (uint32_t i = 0; i < 32; i++) vals[i] = 1u << i;
  cr_expect_eq(run_atomic("ATOMG.OR R8, [R4], R6", 32, 0, vals, NULL, olds), 0xFFFFFFFFu);
  cr_expect_eq(olds[4], 0xFu);
  cr_expect_eq(run_atomic("ATOMG.XOR R8, [R4], R6", 32, 0x0000FFFFu, vals, NULL, olds), 0xFFFF0000u);
  cr_expect_eq(olds[16], 0u, "the low 16 bits toggled off first");
  cr_expect_eq(run_atomic("ATOMS.OR R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               0xFFFFFFFFu);
  cr_expect_eq(run_atomic("ATOMS.XOR R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               0xFFFFFFFFu);
  for (uint32_t i = 0; i < 32; i++) vals[i] = ~(1u << i);
  cr_expect_eq(run_atomic("ATOMG.AND R8, [R4], R6", 32, 0xFFFFFFFFu, vals, NULL, olds), 0u);
  cr_expect_eq(olds[31], 0x80000000u);
  cr_expect_eq(run_atomic("ATOMS.AND R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               0u);
}

/* PTX atom.inc.u32: old >= b ? 0 : old + 1; atom.dec.u32:
 * (old == 0 || old > b) ? b : old - 1 (the word is never written here
 * between lanes, so each lane sees the last one's result). */
Test(mem_ops, atomic_inc_dec_wrap) {
  uint32_t vals[32], olds[32];
  for (uint32_t i = 0; i < 32; i++) vals[i] = 4; /* a counter modulo 5 */
  /* 0 1 2 3 4 0 1 ... : 32 increments from 0 end at 32 mod 5 = 2 */
  cr_expect_eq(run_atomic("ATOMG.INC R8, [R4], R6", 32, 0, vals, NULL, olds), 2u);
  for (uint32_t i = 0; i < 32; i++) cr_expect_eq(olds[i], i % 5u, "lane %u", i);
  /* from 9 > 4: the first increment wraps to 0 */
  cr_expect_eq(run_atomic("ATOMG.INC R8, [R4], R6", 1, 9, vals, NULL, olds), 0u);
  /* 3 2 1 0 4 3 ...: 0 wraps to b, so 32 decrements from 3 give (3 - 32) mod 5 = 1 */
  cr_expect_eq(run_atomic("ATOMG.DEC R8, [R4], R6", 32, 3, vals, NULL, olds), 1u);
  cr_expect_eq(olds[0], 3u);
  cr_expect_eq(olds[3], 0u);
  cr_expect_eq(olds[4], 4u, "0 wrapped to b");
  /* old above b also becomes b */
  cr_expect_eq(run_atomic("ATOMG.DEC R8, [R4], R6", 1, 9, vals, NULL, olds), 4u);
  /* b = 0xFFFFFFFF: inc never wraps below it, so inc is a plain +1 except at the top */
  for (uint32_t i = 0; i < 32; i++) vals[i] = 0xFFFFFFFFu;
  cr_expect_eq(run_atomic("ATOMG.INC R8, [R4], R6", 2, 0xFFFFFFFEu, vals, NULL, olds), 0u);
  cr_expect_eq(olds[1], 0xFFFFFFFFu);
  for (uint32_t i = 0; i < 32; i++) vals[i] = 4;
  cr_expect_eq(run_atomic("ATOMS.INC R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               2u);
  cr_expect_eq(olds[7], 2u);
  /* shared memory starts at 0: the first decrement wraps to 4 */
  cr_expect_eq(run_atomic("ATOMS.DEC R8, [RZ], R6\nBAR.SYNC\nLDS.32 R9, [RZ]\nSTG.32 [R4], R9", 32, 0, vals,
                          NULL, olds),
               3u);
  cr_expect_eq(olds[0], 0u);
  cr_expect_eq(olds[1], 4u);
}

/* 64 threads of one CTA (two warps) race ATOMS.MIN on one shared word that
 * thread 0 set to INT32_MAX; values (t * 37) % 64 - 20 hold every number
 * -20..43 once, so the minimum is -20, wherever it sits. */
Test(mem_ops, atoms_min_race_across_two_warps) {
  static const char src[] =
      ".kernel t\n.param .ptr vals\n.param .ptr out\n.shared m 4\n"
      "S2R R0, SR_TID.X\nISETP.EQ.U32 P0, R0, 0\nMOV R1, 0x7FFFFFFF\n@P0 STS.32 [m], R1\n"
      "BAR.SYNC\nLDP.64 R2, [vals]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R6, [R2]\n"
      "ATOMS.MIN.S32 R8, [m], R6\nBAR.SYNC\n@!P0 EXIT\n"
      "LDS.32 R9, [m]\nLDP.64 R4, [out]\nSTG.32 [R4], R9\nEXIT\n";
  int32_t vals[64];
  for (int32_t t = 0; t < 64; t++) vals[t] = (t * 37) % 64 - 20;
  simtest t;
  st_init(&t, src, "t");
  st_buf(&t, "vals", sizeof vals, vals);
  uint64_t o = st_buf(&t, "out", 4, NULL);
  st_run(&t, 1, 64);
  int32_t got;
  st_read(&t, &got, o, 4);
  cr_expect_eq(got, -20);
  st_fini(&t);
}

Test(mem_ops, ldgsts_async_copy) {
  const char *src = ".kernel t\n.param .ptr in\n.param .ptr out\n.shared tile 512 16\n"
                    "S2R R0, SR_TID.X\nLDP.64 R2, [in]\nIMAD.WIDE.U32 R2, R0, 16, R2\nSHL R1, R0, 4\n"
                    "LDGSTS.128 [R1+tile], [R2]\nLDGDEPBAR\nDEPBAR 0\nBAR.SYNC\n"
                    "XOR R5, R1, 0x1F0\nLDS.128 R8, [R5+tile]\n" /* read the mirrored thread's slot */
                    "LDP.64 R6, [out]\nIMAD.WIDE.U32 R6, R0, 16, R6\nSTG.128 [R6], R8\nEXIT\n";
  simtest t;
  st_init(&t, src, "t");
  uint32_t in[128], out[128];
  for (uint32_t i = 0; i < 128; i++) in[i] = 0xA0000000u + i;
  st_buf(&t, "in", sizeof in, in);
  uint64_t o = st_buf(&t, "out", sizeof out, NULL);
  st_run(&t, 1, 32);
  st_read(&t, out, o, sizeof out);
  for (uint32_t th = 0; th < 32; th++)
    for (uint32_t w = 0; w < 4; w++) cr_expect_eq(out[th * 4 + w], in[(th ^ 31) * 4 + w]);
  st_fini(&t);
}

/* Global accesses inside one page go warp-wide, others lane by lane: both
 * give the same values, a load may overwrite its own address registers, an
 * unwritten page reads as zero, inactive lanes keep their registers and
 * stores land where each lane points. */
Test(mem_ops, warp_wide_and_lane_by_lane_global_accesses_agree) {
  const char *src = ".kernel t\n.param .ptr in\n.param .ptr zero\n.param .ptr out\n.param .u32 stride\n"
                    "S2R R0, SR_TID.X\nLDP.32 R1, [stride]\nIMAD R1, R0, R1, RZ\n"
                    "LDP.64 R2, [in]\nIMAD.WIDE.U32 R2, R1, 1, R2\n"
                    "LDP.64 R6, [zero]\nIMAD.WIDE.U32 R6, R1, 1, R6\nMOV R8, 7\nMOV R9, 9\n"
                    "ISETP.LT.U32 P0, R0, 20\n@P0 LDG.64 R2, [R2]\n@P0 LDG.64 R8, [R6]\n"
                    "ISETP.GE.U32 P1, R0, 20\n@P1 MOV R2, 5\n@P1 MOV R3, 6\n"
                    "LDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R1, 1, R4\n"
                    "IADD R2, R2, R8\nIADD R3, R3, R9\nSTG.64 [R4], R2\nEXIT\n";
  static uint32_t in[32 * 8192 / 4];
  for (uint32_t stride = 8; stride <= 8192; stride *= 1024) { /* one page; 4 pages */
    memset(in, 0, sizeof in);
    for (uint32_t l = 0; l < 32; l++) in[l * stride / 4] = 100 + l, in[l * stride / 4 + 1] = 1000 * l;
    simtest t;
    st_init(&t, src, "t");
    st_buf(&t, "in", 32ull * stride, in);
    st_buf(&t, "zero", 32ull * stride, NULL);
    uint64_t o = st_buf(&t, "out", 32ull * stride, NULL);
    st_u32(&t, "stride", stride);
    st_run(&t, 1, 32);
    for (uint32_t l = 0; l < 32; l++) {
      uint32_t v[2] = {0, 0};
      st_read(&t, v, o + (uint64_t)l * stride, 8);
      cr_expect_eq(v[0], l < 20 ? 100 + l : 5 + 7, "stride %u lane %u", stride, l);
      cr_expect_eq(v[1], l < 20 ? 1000 * l : 6 + 9, "stride %u lane %u", stride, l);
    }
    st_fini(&t);
  }
}

/* ---- byte and halfword stores ------------------------------------------------------------ */

/* Thread t stores byte 7t + 1 at out + 3t + 1 (STG.8, lanes sharing words)
 * and halfword 0xB000 + t at half + 6t + 2 (STG.16); shared memory gets
 * byte t at t (four lanes to a word) and halfword t at 64 + 2t, read back
 * by words after the barrier; local memory gets bytes 3 and 6 of the
 * thread's 8 and reads them back as words. Every other byte keeps the 0xEE
 * the buffers start with, or the zeros of the words first stored. */
static const char narrow_src[] =
    ".kernel t\n.param .ptr out\n.param .ptr half\n.param .ptr sh\n.param .ptr loc\n"
    ".shared buf 256\n.local 8\n"
    "S2R R0, SR_TID.X\nLDP.64 R4, [out]\nIMUL R1, R0, 7\nIADD R1, R1, 1\n"
    "IMUL R2, R0, 3\nIADD R2, R2, 1\nIMAD.WIDE.U32 R6, R2, 1, R4\nSTG.8 [R6], R1\n"
    "LDP.64 R4, [half]\nIADD R1, R0, 0xB000\nIMUL R2, R0, 6\nIADD R2, R2, 2\n"
    "IMAD.WIDE.U32 R6, R2, 1, R4\nSTG.16 [R6], R1\n"
    "SHL R3, R0, 2\nSTS.32 [R3+buf], RZ\nSTS.32 [R3+buf+128], RZ\nBAR.SYNC\n"
    "STS.8 [R0+buf], R0\nSHL R2, R0, 1\nSTS.16 [R2+buf+128], R0\nBAR.SYNC\n"
    "LDS.32 R8, [R3+buf]\nLDS.32 R9, [R3+buf+128]\nLDP.64 R4, [sh]\n"
    "IMAD.WIDE.U32 R6, R0, 8, R4\nSTG.64 [R6], R8\n"
    "STL.64 [RZ], RZ\nIADD R1, R0, 0x40\nSTL.8 [RZ+3], R1\nSTL.16 [RZ+6], R0\n"
    "LDL.64 R8, [RZ]\nLDP.64 R4, [loc]\nIMAD.WIDE.U32 R6, R0, 8, R4\n"
    "STG.64 [R6], R8\nEXIT\n";

static void check_narrow_stores(ws_exec_mode mode) {
  enum { N = 32 };
  simtest t;
  st_init(&t, narrow_src, "t");
  ws_device_set_mode(t.dev, mode);
  uint8_t fill[6 * N + 8], out[3 * N + 8], half[6 * N + 8];
  memset(fill, 0xEE, sizeof fill);
  uint64_t o = st_buf(&t, "out", sizeof out, fill);
  uint64_t h = st_buf(&t, "half", sizeof half, fill);
  uint64_t sh = st_buf(&t, "sh", 8 * N, NULL), loc = st_buf(&t, "loc", 8 * N, NULL);
  st_run(&t, 1, N);
  st_read(&t, out, o, sizeof out);
  st_read(&t, half, h, sizeof half);
  uint8_t want_out[sizeof out], want_half[sizeof half];
  memset(want_out, 0xEE, sizeof want_out);
  memset(want_half, 0xEE, sizeof want_half);
  for (uint32_t i = 0; i < N; i++) {
    want_out[3 * i + 1] = (uint8_t)(7 * i + 1);
    want_half[6 * i + 2] = (uint8_t)i, want_half[6 * i + 3] = 0xB0;
  }
  for (size_t i = 0; i < sizeof out; i++) cr_expect_eq(out[i], want_out[i], "global byte %zu", i);
  for (size_t i = 0; i < sizeof half; i++) cr_expect_eq(half[i], want_half[i], "global halfword byte %zu", i);
  uint32_t words[2 * N], lw[2 * N];
  st_read(&t, words, sh, sizeof words);
  st_read(&t, lw, loc, sizeof lw);
  for (uint32_t i = 0; i < N; i++) {
    uint32_t b = 4 * i; /* shared word i holds the bytes of threads 4i..4i+3 (zero past 31) */
    uint32_t want = b < N ? b | (b + 1) << 8 | (b + 2) << 16 | (b + 3) << 24 : 0;
    uint32_t hw = 2 * i < N ? (2 * i) | (2 * i + 1) << 16 : 0;
    cr_expect_eq(words[2 * i], want, "shared word %u = 0x%08x", i, words[2 * i]);
    cr_expect_eq(words[2 * i + 1], hw, "shared halfword word %u = 0x%08x", i, words[2 * i + 1]);
    cr_expect_eq(lw[2 * i], (0x40u + i) << 24, "local word 0 of thread %u", i);
    cr_expect_eq(lw[2 * i + 1], i << 16, "local word 1 of thread %u", i);
  }
  st_fini(&t);
}

Test(mem_ops, byte_and_halfword_stores_write_only_their_bytes) { check_narrow_stores(WS_MODE_FUNCTIONAL); }
Test(mem_ops, byte_and_halfword_stores_timed) { check_narrow_stores(WS_MODE_TIMING); }
