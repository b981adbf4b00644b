/* test_bytes.c - little-endian fields and the growable byte buffer
 * (base/bytes.h), against hand-written byte strings. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/bytes.h"

Test(bytes, fields_are_little_endian_whatever_the_host) {
  const uint8_t p[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
  cr_expect_eq(ws_bytes_le16(p), 0x0201);
  cr_expect_eq(ws_bytes_le32(p), 0x04030201u);
  cr_expect_eq(ws_bytes_le64(p), 0x8807060504030201ull);
  uint8_t q[8] = {0};
  ws_bytes_put_le64(q, 0x8807060504030201ull);
  cr_expect_arr_eq(q, p, 8);
  memset(q, 0, sizeof q);
  ws_bytes_put_le32(q, 0x04030201u);
  ws_bytes_put_le16(q + 4, 0x0605);
  cr_expect_arr_eq(q, p, 6);
  cr_expect_eq(q[6], 0);
}

Test(bytes, appends_grow_and_keep_order) {
  ws_bytes b = {0};
  cr_assert(ws_bytes_append_le16(&b, 0xBEEF));
  cr_assert(ws_bytes_append_le32(&b, 0xDEADC0DEu));
  cr_assert(ws_bytes_append_le64(&b, 1));
  const uint8_t want[14] = {0xEF, 0xBE, 0xDE, 0xC0, 0xAD, 0xDE, 1, 0, 0, 0, 0, 0, 0, 0};
  cr_assert_eq(b.len, 14);
  cr_expect_arr_eq(b.data, want, 14);
  /* past the first allocation: every byte kept */
  uint8_t block[1000];
  for (size_t i = 0; i < sizeof block; i++) block[i] = (uint8_t)(i * 7);
  for (int i = 0; i < 5; i++) cr_assert(ws_bytes_append(&b, block, sizeof block));
  cr_assert_eq(b.len, 14 + 5 * sizeof block);
  cr_expect(b.cap >= b.len);
  cr_expect_arr_eq(b.data + 14 + 4 * sizeof block, block, sizeof block);
  ws_bytes_free(&b);
  cr_expect_eq(b.data, NULL);
  cr_expect_eq(b.len, 0);
}

Test(bytes, a_failed_growth_is_sticky) {
  ws_bytes b = {0};
  cr_assert(ws_bytes_append(&b, "ab", 2));
  cr_expect_not(ws_bytes_reserve(&b, SIZE_MAX - 1), "more than any address space");
  cr_expect(b.failed);
  cr_expect_not(ws_bytes_append(&b, "c", 1), "later appends are refused");
  cr_expect_eq(b.len, 2, "what was there stays");
  ws_bytes_free(&b);
  cr_expect_not(b.failed, "a freed buffer is reusable");
}
