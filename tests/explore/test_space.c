/* test_space.c - a sweep's parameter space (explore/space.h): lists and
 * ranges parse to the values they say, "all" expands to every variant, the
 * product comes out in the documented order (first parameter slowest), and
 * each malformed flag is refused with its flag and text named, leaving the
 * list it would have replaced. */
#include <criterion/criterion.h>
#include <string.h>

#include "explore/space.h"
#include "models/kgen/gemmgen.h"

static ws_ctx *ctx;
static ws_space sp;

static void setup(void) {
  ctx = ws_ctx_create();
  ws_space_init(&sp, WS_POINT_GEMM);
}

static void teardown(void) {
  ws_space_free(&sp);
  ws_ctx_destroy(ctx);
}

TestSuite(space, .init = setup, .fini = teardown);

static void parse_ok(ws_space_param p, const char *text) {
  cr_assert_eq(ws_space_parse(ctx, &sp, p, text), WS_OK, "--%s %s: %s", ws_space_param_name(p), text,
               ws_errmsg(ctx));
}

static void expect_nums(ws_space_param p, const uint64_t *want, size_t n) {
  cr_assert_eq(sp.lists[p].n, n, "--%s: %zu values, want %zu", ws_space_param_name(p), sp.lists[p].n, n);
  for (size_t i = 0; i < n; i++) cr_expect_eq(sp.lists[p].num[i], want[i], "value %zu", i);
}

/* The problem a GEMM sweep needs before it can count. */
static void gemm_problem(void) {
  parse_ok(WS_SPACE_GPU, "a100");
  parse_ok(WS_SPACE_M, "64");
  parse_ok(WS_SPACE_N, "64");
  parse_ok(WS_SPACE_K, "64");
  parse_ok(WS_SPACE_VARIANT, "blocktile2d");
}

Test(space, lists_and_ranges) {
  parse_ok(WS_SPACE_BM, "32,64,128");
  expect_nums(WS_SPACE_BM, (const uint64_t[]){32, 64, 128}, 3);
  parse_ok(WS_SPACE_TM, "4:8:2");
  expect_nums(WS_SPACE_TM, (const uint64_t[]){4, 6, 8}, 3);
  parse_ok(WS_SPACE_TM, "4:9:2"); /* END is included only when a step lands on it */
  expect_nums(WS_SPACE_TM, (const uint64_t[]){4, 6, 8}, 3);
  parse_ok(WS_SPACE_TN, "1:3");
  expect_nums(WS_SPACE_TN, (const uint64_t[]){1, 2, 3}, 3);
  parse_ok(WS_SPACE_BK, "64");
  expect_nums(WS_SPACE_BK, (const uint64_t[]){64}, 1);
  parse_ok(WS_SPACE_WM, "16,2:6:4,100");
  expect_nums(WS_SPACE_WM, (const uint64_t[]){16, 2, 6, 100}, 4);
  parse_ok(WS_SPACE_SEED, "18446744073709551615");
  expect_nums(WS_SPACE_SEED, (const uint64_t[]){UINT64_MAX}, 1);
}

Test(space, param_names) {
  for (int p = 0; p < WS_SPACE_PARAM_COUNT; p++)
    cr_expect_eq(ws_space_param_find(ws_space_param_name((ws_space_param)p)), p);
  cr_expect_eq(ws_space_param_find("--bm"), WS_SPACE_PARAM_COUNT);
  cr_expect_str_eq(ws_space_param_name(WS_SPACE_PARAM_COUNT), "?");
  cr_expect(ws_space_uses(WS_POINT_GEMM, WS_SPACE_THREADS));
  cr_expect_not(ws_space_uses(WS_POINT_GEMM, WS_SPACE_SEQ));
  cr_expect(ws_space_uses(WS_POINT_ATTENTION, WS_SPACE_BC));
  cr_expect_not(ws_space_uses(WS_POINT_ATTENTION, WS_SPACE_VARIANT));
}

Test(space, defaults) {
  /* tiles default to one 0 (the generator's choice), seed to 1, the problem to nothing */
  expect_nums(WS_SPACE_BM, (const uint64_t[]){0}, 1);
  expect_nums(WS_SPACE_SEED, (const uint64_t[]){1}, 1);
  size_t n;
  cr_assert_eq(ws_space_count(ctx, &sp, &n), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "a gemm sweep needs a value for --gpu");
}

Test(space, all_variants) {
  parse_ok(WS_SPACE_VARIANT, "all");
  cr_assert_eq(sp.lists[WS_SPACE_VARIANT].n, WS_GEMMGEN_VARIANT_COUNT);
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++)
    cr_expect_str_eq(sp.lists[WS_SPACE_VARIANT].name[v], ws_gemmgen_variant_name((ws_gemmgen_variant)v));
  parse_ok(WS_SPACE_ATTN, "all");
  cr_assert_eq(sp.lists[WS_SPACE_ATTN].n, 2);
  cr_expect_str_eq(sp.lists[WS_SPACE_ATTN].name[0], "naive");
  cr_expect_str_eq(sp.lists[WS_SPACE_ATTN].name[1], "flash");
}

Test(space, gemm_order) {
  gemm_problem();
  parse_ok(WS_SPACE_VARIANT, "naive,smem");
  parse_ok(WS_SPACE_BM, "32,64");
  parse_ok(WS_SPACE_TM, "4:8:2");
  cr_assert_eq(ws_space_add_set(ctx, &sp, "l2.size_kib=4096"), WS_OK);
  ws_point *pts;
  size_t n;
  cr_assert_eq(ws_space_expand(ctx, &sp, &pts, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(n, 12);
  /* variant slowest, then bm, then tm fastest */
  for (size_t i = 0; i < n; i++) {
    cr_expect_str_eq(pts[i].variant, i < 6 ? "naive" : "smem", "point %zu", i);
    cr_expect_eq(pts[i].bm, (i / 3) % 2 ? 64u : 32u, "point %zu", i);
    cr_expect_eq(pts[i].tm, 4 + 2 * (i % 3), "point %zu", i);
    cr_expect_eq(pts[i].kind, WS_POINT_GEMM);
    cr_expect_str_eq(pts[i].gpu, "a100");
    cr_expect_eq(pts[i].m, 64);
    cr_expect_eq(pts[i].seed, 1);
    cr_expect_eq(pts[i].nsets, 1);
    cr_expect_str_eq(pts[i].sets[0], "l2.size_kib=4096");
    cr_expect_eq(pts[i].seq, 0); /* attention fields stay zero */
    cr_expect_str_eq(pts[i].attn, "");
  }
  free(pts);
}

Test(space, attention_ignores_gemm_lists) {
  ws_space_free(&sp);
  ws_space_init(&sp, WS_POINT_ATTENTION);
  parse_ok(WS_SPACE_GPU, "a100,h100");
  parse_ok(WS_SPACE_SEQ, "64:256:64");
  parse_ok(WS_SPACE_HEADS, "4");
  parse_ok(WS_SPACE_DHEAD, "32");
  parse_ok(WS_SPACE_ATTN, "all");
  parse_ok(WS_SPACE_BM, "1:100"); /* not an attention parameter: no effect on the product */
  size_t n;
  cr_assert_eq(ws_space_count(ctx, &sp, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(n, 2 * 4 * 2);
  ws_point *pts;
  cr_assert_eq(ws_space_expand(ctx, &sp, &pts, &n), WS_OK);
  cr_expect_str_eq(pts[0].gpu, "a100");
  cr_expect_str_eq(pts[8].gpu, "h100");
  cr_expect_eq(pts[2].seq, 128);
  cr_expect_str_eq(pts[3].attn, "flash");
  cr_expect_eq(pts[3].bm, 0);
  cr_expect_str_eq(pts[3].variant, "");
  free(pts);
}

/* Each refusal and its exact message. */
static const struct {
  ws_space_param p;
  const char *text, *msg;
} refusals[] = {
    {WS_SPACE_TM, "4:8:0", "--tm 4:8:0: a step of 0"},
    {WS_SPACE_TM, "8:4", "--tm 8:4: a range whose start is after its end"},
    {WS_SPACE_BM, "32,x", "--bm 32,x: 'x' is not a non-negative integer below 2^32"},
    {WS_SPACE_BM, "-1", "--bm -1: '-1' is not a non-negative integer below 2^32"},
    {WS_SPACE_BM, "4294967296", "--bm 4294967296: '4294967296' is not a non-negative integer below 2^32"},
    {WS_SPACE_BM, "1::2", "--bm 1::2: '' is not a non-negative integer below 2^32"},
    {WS_SPACE_BM, "32,,64", "--bm 32,,64: an empty item"},
    {WS_SPACE_BM, "", "--bm : an empty item"},
    {WS_SPACE_BM, "32,16:64:16", "--bm 32,16:64:16: 32 is given twice"},
    {WS_SPACE_BM, "1:200000", "--bm 1:200000: more than 100000 values"},
    {WS_SPACE_GPU, "a100,a100", "--gpu a100,a100: 'a100' is given twice"},
    {WS_SPACE_GPU, "a100,", "--gpu a100,: an empty item"},
    {WS_SPACE_ATTN, "fused", "--attn fused: attn is naive, flash or all"},
    {WS_SPACE_SEED, "18446744073709551616",
     "--seed 18446744073709551616: '18446744073709551616' is not a "
     "non-negative integer"},
};

Test(space, refusals) {
  parse_ok(WS_SPACE_BM, "16");
  parse_ok(WS_SPACE_TM, "2");
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    cr_expect_eq(ws_space_parse(ctx, &sp, refusals[i].p, refusals[i].text), WS_ERR_INVALID, "%s",
                 refusals[i].text);
    cr_expect_str_eq(ws_errmsg(ctx), refusals[i].msg);
  }
  /* a refused flag leaves the list it would have replaced */
  expect_nums(WS_SPACE_BM, (const uint64_t[]){16}, 1);
  expect_nums(WS_SPACE_TM, (const uint64_t[]){2}, 1);
}

Test(space, unknown_variant_names_the_choices) {
  cr_assert_eq(ws_space_parse(ctx, &sp, WS_SPACE_VARIANT, "naive,fastest"), WS_ERR_INVALID);
  cr_expect(strncmp(ws_errmsg(ctx), "--variant naive,fastest: ", 25) == 0, "%s", ws_errmsg(ctx));
  cr_expect(strstr(ws_errmsg(ctx), "blocktile2d") != NULL, "%s", ws_errmsg(ctx));
}

Test(space, too_many_points_refused_before_expanding) {
  gemm_problem();
  parse_ok(WS_SPACE_BM, "1:1000");
  parse_ok(WS_SPACE_BN, "1:1000");
  parse_ok(WS_SPACE_TM, "1:1000");
  size_t n = 7;
  cr_assert_eq(ws_space_count(ctx, &sp, &n), WS_ERR_LIMIT);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "--bm 1000 x --bn 1000 x --tm 1000: more than the 100000 points a sweep may have");
  ws_point *pts = NULL;
  cr_expect_eq(ws_space_expand(ctx, &sp, &pts, &n), WS_ERR_LIMIT);
  cr_expect_null(pts);
  /* exactly the limit is fine */
  parse_ok(WS_SPACE_BM, "1:100");
  parse_ok(WS_SPACE_TM, "1");
  cr_assert_eq(ws_space_count(ctx, &sp, &n), WS_OK);
  cr_expect_eq(n, 100000);
}

Test(space, sets) {
  cr_expect_eq(ws_space_add_set(ctx, &sp, "a.b=1;c.d=2"), WS_ERR_INVALID);
  for (int i = 0; i < WS_POINT_MAX_SETS; i++)
    cr_assert_eq(ws_space_add_set(ctx, &sp, "l2.size_kib=1"), WS_OK);
  cr_expect_eq(ws_space_add_set(ctx, &sp, "l2.size_kib=1"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--set l2.size_kib=1: at most 16 overrides");
}
