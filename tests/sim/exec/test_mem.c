/* test_mem.c - the sparse device address space: placement, guard gaps,
 * use-after-free, alignment, lazy pages, capacity and host-copy errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "sim/exec/mem.h"

static ws_ctx *ctx;
static ws_mem *mem;

static void setup(void) {
  ctx = ws_ctx_create();
  mem = ws_mem_create(64ull << 30);
}

static void teardown(void) {
  ws_mem_destroy(mem);
  ws_ctx_destroy(ctx);
}

TestSuite(mem, .init = setup, .fini = teardown);

static uint64_t alloc(uint64_t bytes) {
  uint64_t a = 0;
  cr_assert_eq(ws_mem_alloc(mem, ctx, bytes, &a), WS_OK, "%s", ws_errmsg(ctx));
  return a;
}

Test(mem, placement_alignment_and_guard_gaps) {
  uint64_t a = alloc(100), b = alloc(1), c = alloc(300);
  cr_expect_eq(a, 0x0000700000000000ull);
  cr_expect_eq(a % 256, 0);
  cr_expect_eq(b % 256, 0);
  cr_expect_eq(c % 256, 0);
  cr_expect_geq(b - (a + 100), 64 * 1024);
  cr_expect_geq(c - (b + 1), 64 * 1024);
  uint32_t v = 0;
  cr_expect_eq(ws_mem_read(mem, a + 96, &v, 4), WS_MEM_OK);
  cr_expect_eq(ws_mem_read(mem, a + 100, &v, 4), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_read(mem, a + 256, &v, 4), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_read(mem, b - 4, &v, 4), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_read(mem, 0, &v, 4), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_allocated_bytes(mem), 401);
}

Test(mem, write_read_and_zero_fill) {
  uint64_t a = alloc(4096);
  uint64_t q = 0x1122334455667788ull, got = 1;
  cr_expect_eq(ws_mem_read(mem, a + 8, &got, 8), WS_MEM_OK);
  cr_expect_eq(got, 0);
  cr_expect_eq(ws_mem_write(mem, a + 8, &q, 8), WS_MEM_OK);
  cr_expect_eq(ws_mem_read(mem, a + 8, &got, 8), WS_MEM_OK);
  cr_expect_eq(got, q);
  uint8_t b16[16];
  cr_expect_eq(ws_mem_read(mem, a, b16, 16), WS_MEM_OK);
  cr_expect_eq(b16[8], 0x88);
  cr_expect_eq(ws_mem_resident_bytes(mem), 64 * 1024);
}

Test(mem, use_after_free_and_double_free) {
  uint64_t a = alloc(1024);
  uint32_t v = 7;
  cr_assert_eq(ws_mem_write(mem, a, &v, 4), WS_MEM_OK);
  cr_assert_eq(ws_mem_free(mem, ctx, a), WS_OK);
  cr_expect_eq(ws_mem_read(mem, a, &v, 4), WS_MEM_FREED);
  cr_expect_eq(ws_mem_write(mem, a + 1020, &v, 4), WS_MEM_FREED);
  cr_expect_eq(ws_mem_resident_bytes(mem), 0);
  cr_expect_eq(ws_mem_allocated_bytes(mem), 0);
  cr_expect_eq(ws_mem_free(mem, ctx, a), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "double free of the allocation at 0x0000700000000000");
  cr_expect_eq(ws_mem_free(mem, ctx, a + 4), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "free of 0x0000700000000004: not the start of any allocation");
  uint64_t b = alloc(1024);
  cr_expect_gt(b, a + 1024, "freed ranges are never reused");
  char why[256];
  ws_mem_explain(mem, a + 4, WS_MEM_FREED, why, sizeof why);
  cr_expect_str_eq(why, "address was freed (it lay in the 1024-byte allocation at 0x0000700000000000)");
}

Test(mem, misaligned_and_bad_sizes) {
  uint64_t a = alloc(1024);
  uint8_t buf[32];
  cr_expect_eq(ws_mem_read(mem, a + 2, buf, 4), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_read(mem, a + 4, buf, 8), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_write(mem, a + 8, buf, 16), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_read(mem, a + 3, buf, 1), WS_MEM_OK);
  cr_expect_eq(ws_mem_read(mem, a + 2, buf, 2), WS_MEM_OK);
  cr_expect_eq(ws_mem_read(mem, a, buf, 3), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_read(mem, a, buf, 32), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_read(mem, a + 1020, buf, 8), WS_MEM_MISALIGNED);
  cr_expect_eq(ws_mem_read(mem, a + 1024, buf, 16), WS_MEM_UNMAPPED);
  uint64_t b = alloc(1020); /* an access straddling the end is not inside it */
  cr_expect_eq(ws_mem_read(mem, b + 1016, buf, 8), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_read(mem, b + 1016, buf, 4), WS_MEM_OK);
}

Test(mem, sparse_40_gib_touches_two_pages) {
  uint64_t size = 40ull << 30;
  uint64_t a = alloc(size);
  uint32_t one = 1, two = 2, got = 9;
  cr_assert_eq(ws_mem_write(mem, a, &one, 4), WS_MEM_OK);
  cr_assert_eq(ws_mem_write(mem, a + size - 4, &two, 4), WS_MEM_OK);
  cr_expect_eq(ws_mem_resident_bytes(mem), 128 * 1024);
  cr_expect_eq(ws_mem_read(mem, a + (20ull << 30), &got, 4), WS_MEM_OK);
  cr_expect_eq(got, 0);
  cr_expect_eq(ws_mem_read(mem, a + size - 4, &got, 4), WS_MEM_OK);
  cr_expect_eq(got, 2);
  cr_expect_eq(ws_mem_read(mem, a + size, &got, 4), WS_MEM_UNMAPPED);
  cr_expect_eq(ws_mem_resident_bytes(mem), 128 * 1024);
}

Test(mem, capacity_limit) {
  ws_mem *small = ws_mem_create(1000);
  uint64_t a = 0, b = 0;
  cr_assert_eq(ws_mem_alloc(small, ctx, 600, &a), WS_OK);
  cr_expect_eq(ws_mem_alloc(small, ctx, 500, &b), WS_ERR_LIMIT);
  cr_expect_str_eq(ws_errmsg(ctx), "out of device memory: requested 500 bytes, 600 of 1000 bytes in use");
  cr_expect_eq(ws_mem_alloc(small, ctx, 0, &b), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "cannot allocate 0 bytes");
  cr_assert_eq(ws_mem_free(small, ctx, a), WS_OK);
  cr_expect_eq(ws_mem_alloc(small, ctx, 1000, &b), WS_OK);
  ws_mem_destroy(small);
}

Test(mem, host_copies_across_pages) {
  enum { N = 200000 };
  uint64_t a = alloc(N);
  static uint8_t src[N], dst[N];
  for (size_t i = 0; i < N; i++) src[i] = (uint8_t)(i * 7 + 3);
  cr_assert_eq(ws_mem_copy_in(mem, ctx, a, src, N), WS_OK);
  cr_assert_eq(ws_mem_copy_out(mem, ctx, dst, a, N), WS_OK);
  cr_expect_eq(memcmp(src, dst, N), 0);
  cr_assert_eq(ws_mem_fill(mem, ctx, a + 65530, 0xAB, 10), WS_OK);
  uint8_t b[12];
  cr_assert_eq(ws_mem_copy_out(mem, ctx, b, a + 65529, 12), WS_OK);
  cr_expect_eq(b[0], src[65529]);
  for (int i = 1; i <= 10; i++) cr_expect_eq(b[i], 0xAB);
  cr_expect_eq(b[11], src[65540]);
  cr_expect_eq(ws_mem_resident_bytes(mem), 4 * 64 * 1024);
}

Test(mem, fill_zero_of_untouched_pages_stays_sparse) {
  uint64_t a = alloc(1ull << 30);
  cr_assert_eq(ws_mem_fill(mem, ctx, a, 0, 1ull << 30), WS_OK);
  cr_expect_eq(ws_mem_resident_bytes(mem), 0);
}

Test(mem, copy_range_errors) {
  uint64_t a = alloc(100);
  uint8_t buf[256] = {0};
  cr_expect_eq(ws_mem_copy_in(mem, ctx, a, buf, 200), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "copy of 200 bytes at 0x0000700000000000 runs past the end of "
                                   "the 100-byte allocation at 0x0000700000000000");
  cr_expect_eq(ws_mem_copy_out(mem, ctx, buf, a + 96, 8), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "copy of 8 bytes at 0x0000700000000060 runs past the end of "
                                   "the 100-byte allocation at 0x0000700000000000");
  cr_expect_eq(ws_mem_fill(mem, ctx, a + 100, 0, 4), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "fill of 4 bytes at 0x0000700000000064: address is not inside any allocation");
  cr_assert_eq(ws_mem_free(mem, ctx, a), WS_OK);
  cr_expect_eq(ws_mem_copy_out(mem, ctx, buf, a, 4), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "copy of 4 bytes at 0x0000700000000000: the 100-byte allocation "
                                   "at 0x0000700000000000 was freed");
  cr_expect_eq(ws_mem_copy_in(mem, ctx, a, buf, 0), WS_OK);
}

Test(mem, page_span_one_page_of_one_live_allocation) {
  uint64_t a = alloc(200 * 1024), b = alloc(64);
  uint8_t *bytes = (uint8_t *)1;
  /* an unwritten page reads as zero and stays unbacked */
  cr_expect(ws_mem_page_span(mem, a + 128, 512, false, &bytes));
  cr_expect_null(bytes);
  cr_expect_eq(ws_mem_resident_bytes(mem), 0);
  /* a write backs the page; its bytes are the ones ws_mem_read sees */
  cr_assert(ws_mem_page_span(mem, a + 128, 512, true, &bytes));
  cr_assert_not_null(bytes);
  uint32_t v = 0xCAFEF00Du, got = 0;
  memcpy(bytes + 4, &v, 4);
  cr_expect_eq(ws_mem_read(mem, a + 132, &got, 4), WS_MEM_OK);
  cr_expect_eq(got, v);
  cr_expect(ws_mem_page_span(mem, a + 128, 512, false, &bytes));
  cr_expect_eq(memcmp(bytes + 4, &v, 4), 0);
  /* refused: across a page, past the end, in a guard gap, freed, empty */
  cr_expect_not(ws_mem_page_span(mem, a + 64 * 1024 - 8, 16, false, &bytes));
  cr_expect(ws_mem_page_span(mem, a + 64 * 1024 - 16, 16, false, &bytes));
  cr_expect_not(ws_mem_page_span(mem, b + 32, 64, false, &bytes));
  cr_expect_not(ws_mem_page_span(mem, b + 64, 4, true, &bytes));
  cr_expect_not(ws_mem_page_span(mem, a, 0, false, &bytes));
  cr_expect_eq(ws_mem_free(mem, ctx, b), WS_OK);
  cr_expect_not(ws_mem_page_span(mem, b, 4, false, &bytes));
  cr_expect_eq(ws_mem_resident_bytes(mem), 64 * 1024);
}
