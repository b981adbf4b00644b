/* ws-isadoc - prints the Markdown opcode reference generated from
 * isa/opcodes.def, or keeps docs/isa.md's generated block up to date.
 *
 *   ws-isadoc                   print the table
 *   ws-isadoc --update FILE     rewrite FILE's block between the markers
 *   ws-isadoc --check FILE      exit 1 when FILE's block is out of date
 *
 * Design: the generator lives in the library (isa/isadoc.c) so the test
 * suite checks the committed document with the very same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "isa/isadoc.h"

/* --update and --check: 0 ok, 1 out of date (check), 2 error. */
static int run_on_file(const char *mode, const char *path, const char *table) {
  ws_ctx *ctx = ws_ctx_create();
  char *doc = NULL;
  size_t size = 0;
  if (ws_file_read(ctx, path, &doc, &size) != WS_OK) doc = NULL;
  char *spliced = doc ? ws_isadoc_splice(doc, table) : NULL;
  int rc = 0;
  if (!spliced) {
    fprintf(stderr, "ws-isadoc: cannot read '%s' or it lacks the %s / %s markers\n", path,
            WS_ISADOC_BEGIN, WS_ISADOC_END);
    rc = 2;
  } else if (strcmp(mode, "--check") == 0) {
    rc = strcmp(doc, spliced) != 0;
    if (rc) fprintf(stderr, "ws-isadoc: '%s' is out of date; run ws-isadoc --update\n", path);
  } else if (ws_file_write_atomic(ctx, path, spliced, strlen(spliced)) != WS_OK) {
    fprintf(stderr, "ws-isadoc: %s\n", ws_errmsg(ctx));
    rc = 2;
  }
  ws_ctx_destroy(ctx);
  free(doc);
  free(spliced);
  return rc;
}

int main(int argc, char **argv) {
  char *table = ws_isadoc_markdown();
  if (!table) {
    fprintf(stderr, "ws-isadoc: out of memory\n");
    return 2;
  }
  int rc = 0;
  if (argc == 1) {
    fputs(table, stdout);
  } else if (argc == 3 && (!strcmp(argv[1], "--update") || !strcmp(argv[1], "--check"))) {
    rc = run_on_file(argv[1], argv[2], table);
  } else {
    fprintf(stderr, "usage: ws-isadoc [--update FILE | --check FILE]\n");
    rc = 2;
  }
  free(table);
  return rc;
}
