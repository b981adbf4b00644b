/* test_args.c - filling parameter buffers by name: types, text parsing and
 * the exact error messages. The kernel is built by hand so this suite does
 * not depend on the assembler. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sim/exec/args.h"

static ws_param params[] = {{"n", WS_PT_U32, 0, 4},  {"a", WS_PT_F32, 4, 4},  {"x", WS_PT_PTR, 8, 8},
                            {"y", WS_PT_PTR, 16, 8}, {"s", WS_PT_S32, 24, 4}, {"big", WS_PT_U64, 32, 8}};
static ws_kernel kernel;
static ws_ctx *ctx;
static ws_args args;

static void setup(void) {
  memset(&kernel, 0, sizeof kernel);
  strcpy(kernel.name, "saxpy");
  kernel.params = params;
  kernel.nparams = 4; /* n, a, x, y unless a test widens it */
  kernel.param_size_bytes = 24;
  ctx = ws_ctx_create();
  ws_args_init(&args, &kernel);
}

static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(args, .init = setup, .fini = teardown);

static uint32_t u32_at(uint32_t off) {
  uint32_t v;
  memcpy(&v, args.buf + off, 4);
  return v;
}

Test(args, typed_setters_fill_the_buffer) {
  cr_assert_eq(ws_args_set_u32(ctx, &args, "n", 1000), WS_OK);
  cr_assert_eq(ws_args_set_f32(ctx, &args, "a", 2.5f), WS_OK);
  cr_assert_eq(ws_args_set_ptr(ctx, &args, "x", 0x0000700000000000ull), WS_OK);
  cr_expect_eq(ws_args_check_complete(ctx, &args), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'y' was not set");
  cr_assert_eq(ws_args_set_ptr(ctx, &args, "y", 0x0000700000010100ull), WS_OK);
  cr_expect_eq(ws_args_check_complete(ctx, &args), WS_OK);
  cr_expect_eq(u32_at(0), 1000);
  cr_expect_eq(u32_at(4), 0x40200000u);
  cr_expect_eq(u32_at(8), 0);
  cr_expect_eq(u32_at(12), 0x7000);
  cr_expect_eq(u32_at(16), 0x00010100u);
}

Test(args, unknown_name_lists_the_params) {
  cr_expect_eq(ws_args_set_u32(ctx, &args, "m", 1), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "unknown param 'm' (kernel 'saxpy' has: n, a, x, y)");
  kernel.nparams = 0;
  cr_expect_eq(ws_args_set_text(ctx, &args, "m", "1"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "unknown param 'm' (kernel 'saxpy' has no params)");
}

Test(args, wrong_type) {
  cr_expect_eq(ws_args_set_f32(ctx, &args, "n", 1.0f), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'n' is .u32, cannot take a .f32 value");
  cr_expect_eq(ws_args_set_u64(ctx, &args, "x", 1), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'x' is .ptr, cannot take a .u64 value");
}

Test(args, text_unsigned) {
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "4294967295"), WS_OK);
  cr_expect_eq(u32_at(0), 0xFFFFFFFFu);
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "0x10"), WS_OK);
  cr_expect_eq(u32_at(0), 16);
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "010"), WS_OK);
  cr_expect_eq(u32_at(0), 10, "no octal");
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "1.5"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'n' (.u32): expected an unsigned integer, found '1.5'");
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "-1"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'n' (.u32): expected an unsigned integer, found '-1'");
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", ""), WS_ERR_INVALID);
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", " 5"), WS_ERR_INVALID);
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "0x"), WS_ERR_INVALID);
  cr_expect_eq(ws_args_set_text(ctx, &args, "n", "4294967296"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'n' (.u32): value 4294967296 is out of range");
  cr_expect_eq(ws_args_set_text(ctx, &args, "x", "0x700000000000"), WS_OK);
  cr_expect_eq(u32_at(12), 0x7000);
  cr_expect_eq(ws_args_set_text(ctx, &args, "x", "99999999999999999999"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'x' (.ptr): value 99999999999999999999 is out of range");
}

Test(args, text_signed_and_u64) {
  kernel.nparams = 6;
  kernel.param_size_bytes = 40;
  cr_expect_eq(ws_args_set_text(ctx, &args, "s", "-2147483648"), WS_OK);
  cr_expect_eq(u32_at(24), 0x80000000u);
  cr_expect_eq(ws_args_set_text(ctx, &args, "s", "2147483647"), WS_OK);
  cr_expect_eq(u32_at(24), 0x7FFFFFFFu);
  cr_expect_eq(ws_args_set_text(ctx, &args, "s", "2147483648"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 's' (.s32): value 2147483648 is out of range");
  cr_expect_eq(ws_args_set_text(ctx, &args, "s", "12abc"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 's' (.s32): expected an integer, found '12abc'");
  cr_expect_eq(ws_args_set_text(ctx, &args, "big", "18446744073709551615"), WS_OK);
  cr_expect_eq(u32_at(32), 0xFFFFFFFFu);
  cr_expect_eq(u32_at(36), 0xFFFFFFFFu);
}

Test(args, text_float) {
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", "2.5"), WS_OK);
  cr_expect_eq(u32_at(4), 0x40200000u);
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", "-1e3"), WS_OK);
  cr_expect_eq(u32_at(4), 0xC47A0000u);
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", "inf"), WS_OK);
  cr_expect_eq(u32_at(4), 0x7F800000u);
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", "nan"), WS_OK);
  cr_expect((u32_at(4) & 0x7FFFFFFFu) > 0x7F800000u);
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", "2.5x"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "param 'a' (.f32): expected a floating-point number, found '2.5x'");
  cr_expect_eq(ws_args_set_text(ctx, &args, "a", ""), WS_ERR_INVALID);
}
