/* test_outputs.c - the one rule for a command's files (base/outputs.h):
 * an output that is an input, or two outputs that are one file, refused
 * with both names; devices and distinct files let through. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outputs.h"

static char dir[] = "/tmp/ws-test-outputs-XXXXXX";
static char in[256], link_in[256], absent[256];

static void setup(void) {
  cr_assert_not_null(mkdtemp(dir));
  snprintf(in, sizeof in, "%s/in.wst", dir);
  snprintf(link_in, sizeof link_in, "%s/link.wst", dir);
  snprintf(absent, sizeof absent, "%s/new.json", dir);
  FILE *f = fopen(in, "w");
  cr_assert_not_null(f);
  fputs("trace", f);
  fclose(f);
  cr_assert_eq(symlink("in.wst", link_in), 0);
}

static void teardown(void) {
  unlink(link_in);
  unlink(in);
  rmdir(dir);
}

static ws_status check(ws_ctx *ctx, const ws_outputs_file *f, size_t n) {
  return ws_outputs_check(ctx, f, n);
}

Test(outputs, an_output_that_is_an_input_is_refused, .init = setup, .fini = teardown) {
  ws_ctx *ctx = ws_ctx_create();
  ws_outputs_file same[] = {{"the trace", in, false}, {"-o", in, true}};
  cr_expect_eq(check(ctx, same, 2), WS_ERR_USAGE);
  char want[600];
  snprintf(want, sizeof want, "-o '%s' is the trace: the output would replace what it reads", in);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  ws_outputs_file linked[] = {{"the trace", link_in, false}, {"--json", in, true}};
  cr_expect_eq(check(ctx, linked, 2), WS_ERR_USAGE, "the same inode through a link");
  snprintf(want, sizeof want, "--json '%s' is the trace '%s' under another name", in, link_in);
  cr_expect(strstr(ws_errmsg(ctx), want), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

Test(outputs, two_outputs_that_are_one_file_are_refused, .init = setup, .fini = teardown) {
  ws_ctx *ctx = ws_ctx_create();
  char spelled[300];
  snprintf(spelled, sizeof spelled, "%s/./new.json", dir);
  ws_outputs_file f[] = {{"-o", absent, true}, {"--json", spelled, true}};
  cr_expect_eq(check(ctx, f, 2), WS_ERR_USAGE, "a file that does not exist yet, spelled twice");
  cr_expect(strstr(ws_errmsg(ctx), "are one file"), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

Test(outputs, distinct_files_devices_and_absent_flags_pass, .init = setup, .fini = teardown) {
  ws_ctx *ctx = ws_ctx_create();
  ws_outputs_file f[] = {{"the trace", in, false},
                         {"-o", absent, true},
                         {"--json", NULL, true},
                         {"--screenshot", "/dev/null", true},
                         {"--stats", "/dev/null", true}};
  cr_expect_eq(check(ctx, f, 5), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(ws_outputs_is_stream("/dev/null"));
  cr_expect_not(ws_outputs_is_stream(in));
  /* in folders that do not exist yet, the folder still tells them apart */
  ws_outputs_file apart[] = {{"-o", "missing/one/a.json", true}, {"--json", "missing/two/a.json", true}};
  cr_expect_eq(check(ctx, apart, 2), WS_OK, "%s", ws_errmsg(ctx));
  ws_outputs_file empty[] = {{"-o", "", true}};
  cr_expect_eq(check(ctx, empty, 1), WS_ERR_USAGE);
  cr_expect_str_eq(ws_errmsg(ctx), "-o needs a file name");
  ws_ctx_destroy(ctx);
}
