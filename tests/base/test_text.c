/* test_text.c - the growable text buffer: appends, printf, take, splice and
 * the sticky allocation failure. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

Test(text, appends_and_formats_past_the_first_capacity) {
  ws_text t;
  ws_text_init(&t);
  for (int i = 0; i < 100; i++) ws_text_printf(&t, "%02d|", i);
  ws_text_puts(&t, "end");
  ws_text_append(&t, "xyz", 2);
  char *s = ws_text_take(&t);
  cr_assert_not_null(s);
  cr_expect_eq(strlen(s), 100 * 3 + 5);
  cr_expect(strncmp(s, "00|01|02|", 9) == 0);
  cr_expect_str_eq(s + 300, "endxy");
  cr_expect_null(t.buf, "take leaves the buffer empty");
  free(s);
}

Test(text, take_of_nothing_is_an_empty_string) {
  ws_text t;
  ws_text_init(&t);
  char *s = ws_text_take(&t);
  cr_assert_not_null(s);
  cr_expect_str_eq(s, "");
  free(s);
}

Test(text, failure_is_sticky) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, "kept?");
  t.failed = true; /* as after a failed growth */
  ws_text_printf(&t, "%d", 42);
  cr_expect_null(ws_text_take(&t));
  cr_expect_not(t.failed, "take resets the buffer");
  ws_text_free(&t);
}

Test(text, splice_replaces_between_markers) {
  char *s = ws_text_splice("a\n<!-- B -->\nold\n<!-- E -->\nz\n", "<!-- B", "<!-- E", "new\n");
  cr_assert_not_null(s);
  cr_expect_str_eq(s, "a\n<!-- B -->\nnew\n<!-- E -->\nz\n");
  free(s);
  cr_expect_null(ws_text_splice("no markers", "<!-- B", "<!-- E", "x"));
}

Test(text, escape_shows_non_printable_bytes_as_hex) {
  char buf[64];
  cr_assert_str_eq(ws_text_escape(buf, sizeof buf, "a=1", 3), "a=1");
  cr_assert_str_eq(ws_text_escape(buf, sizeof buf, "x\0y\x7f\xff\n", 6), "x\\x00y\\x7F\\xFF\\x0A");
  /* cut to fit, never inside an escape */
  cr_assert_str_eq(ws_text_escape(buf, 6, "ab\x01z", 4), "ab");
  cr_assert_str_eq(ws_text_escape(buf, 7, "ab\x01z", 4), "ab\\x01");
}
