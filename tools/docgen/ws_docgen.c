/* ws-docgen - keeps the generated blocks of the reference documents current:
 * the opcode table of docs/isa.md, the preset tables of docs/presets.md,
 * the counter glossary of docs/stats.md and the record kinds of
 * docs/traces.md.
 *
 *   ws-docgen NAME                 print one block (isa, presets, stats, traces)
 *   ws-docgen --update [NAME...]   rewrite the blocks in docs/ (all by default)
 *   ws-docgen --check [NAME...]    exit 1 when a block is out of date
 *
 * Design: the block table and generators live in the library (tools/docgen/docgen.h),
 * so tests/tools/docgen/test_docgen.c checks the committed documents with the very
 * same code; run from the source root. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/text.h"
#include "tools/docgen/docgen.h"

/* 0 current (or updated), 1 out of date (--check), 2 error. */
static int process(const ws_docgen_block *g, bool check) {
  ws_ctx *ctx = ws_ctx_create();
  char *block = g->markdown(), *doc = NULL, *spliced = NULL;
  size_t size = 0;
  int rc = 2;
  if (!block)
    fprintf(stderr, "ws-docgen: generating the %s block failed\n", g->name);
  else if (ws_file_read(ctx, g->path, WS_FILE_TEXT_MAX_BYTES, "documents", &doc, &size) != WS_OK)
    fprintf(stderr, "ws-docgen: %s\n", ws_errmsg(ctx));
  else if (!(spliced = ws_text_splice(doc, g->begin, g->end, block)))
    fprintf(stderr, "ws-docgen: %s lacks the %s / %s markers\n", g->path, g->begin, g->end);
  else if (check) {
    rc = strcmp(doc, spliced) != 0;
    if (rc) fprintf(stderr, "ws-docgen: %s is out of date; run 'make docs'\n", g->path);
  } else if (ws_file_write_atomic(ctx, g->path, spliced, strlen(spliced)) != WS_OK) {
    fprintf(stderr, "ws-docgen: %s\n", ws_errmsg(ctx));
  } else {
    rc = 0;
  }
  free(block);
  free(doc);
  free(spliced);
  ws_ctx_destroy(ctx);
  return rc;
}

static int print_block(const char *name) {
  const ws_docgen_block *g = ws_docgen_find(name);
  char *block = g ? g->markdown() : NULL;
  if (block) fputs(block, stdout);
  free(block);
  return block ? 0 : 2;
}

int main(int argc, char **argv) {
  bool update = argc > 1 && strcmp(argv[1], "--update") == 0;
  bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
  if (argc == 2 && !update && !check) return print_block(argv[1]);
  if (!update && !check) {
    fprintf(stderr, "usage: ws-docgen NAME | --update [NAME...] | --check [NAME...]\n"
                    "NAME: isa, presets, stats, traces\n");
    return 2;
  }
  int rc = 0;
  for (size_t i = 0; i < ws_docgen_count(); i++) {
    const ws_docgen_block *g = ws_docgen_get(i);
    bool wanted = argc == 2;
    for (int j = 2; j < argc; j++) wanted |= strcmp(argv[j], g->name) == 0;
    int r = wanted ? process(g, check) : 0;
    if (r > rc) rc = r;
  }
  return rc;
}
