/* ws-presetdoc - prints the Markdown preset reference generated from the
 * config key table and the embedded presets, or keeps docs/presets.md's
 * generated block up to date.
 *
 *   ws-presetdoc                   print the tables
 *   ws-presetdoc --update FILE     rewrite FILE's block between the markers
 *   ws-presetdoc --check FILE      exit 1 when FILE's block is out of date
 *
 * Design: the generator lives in the library (sim/presetdoc.c) so the test
 * suite checks the committed document with the very same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "sim/presetdoc.h"

/* --update and --check: 0 ok, 1 out of date (check), 2 error. */
static int run_on_file(const char *mode, const char *path, const char *tables) {
  ws_ctx *ctx = ws_ctx_create();
  char *doc = NULL;
  size_t size = 0;
  if (ws_file_read(ctx, path, &doc, &size) != WS_OK) doc = NULL;
  char *spliced = doc ? ws_presetdoc_splice(doc, tables) : NULL;
  int rc = 0;
  if (!spliced) {
    fprintf(stderr, "ws-presetdoc: cannot read '%s' or it lacks the %s / %s markers\n", path,
            WS_PRESETDOC_BEGIN, WS_PRESETDOC_END);
    rc = 2;
  } else if (strcmp(mode, "--check") == 0) {
    rc = strcmp(doc, spliced) != 0;
    if (rc) fprintf(stderr, "ws-presetdoc: '%s' is out of date; run ws-presetdoc --update\n", path);
  } else if (ws_file_write_atomic(ctx, path, spliced, strlen(spliced)) != WS_OK) {
    fprintf(stderr, "ws-presetdoc: %s\n", ws_errmsg(ctx));
    rc = 2;
  }
  ws_ctx_destroy(ctx);
  free(doc);
  free(spliced);
  return rc;
}

int main(int argc, char **argv) {
  char *tables = ws_presetdoc_markdown();
  if (!tables) {
    fprintf(stderr, "ws-presetdoc: out of memory, or an embedded preset failed to load\n");
    return 2;
  }
  int rc = 0;
  if (argc == 1) {
    fputs(tables, stdout);
  } else if (argc == 3 && (!strcmp(argv[1], "--update") || !strcmp(argv[1], "--check"))) {
    rc = run_on_file(argv[1], argv[2], tables);
  } else {
    fprintf(stderr, "usage: ws-presetdoc [--update FILE | --check FILE]\n");
    rc = 2;
  }
  free(tables);
  return rc;
}
