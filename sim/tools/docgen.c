/* ws-docgen - keeps the generated blocks of the reference documents current:
 * the opcode table of docs/isa.md, the preset tables of docs/presets.md and
 * the counter glossary of docs/stats.md.
 *
 *   ws-docgen NAME                 print one block (isa, presets, stats)
 *   ws-docgen --update [NAME...]   rewrite the blocks in docs/ (all by default)
 *   ws-docgen --check [NAME...]    exit 1 when a block is out of date
 *
 * Design: the generators live in the library, so the test suites check the
 * committed documents with the very same code; run from the source root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "isa/isadoc.h"
#include "isa/text.h"
#include "sim/presetdoc.h"
#include "sim/statsdoc.h"

typedef struct generator {
  const char *name, *path, *begin, *end;
  char *(*markdown)(void);
} generator;

static const generator generators[] = {
    {"isa", "docs/isa.md", WS_ISADOC_BEGIN, WS_ISADOC_END, ws_isadoc_markdown},
    {"presets", "docs/presets.md", WS_PRESETDOC_BEGIN, WS_PRESETDOC_END, ws_presetdoc_markdown},
    {"stats", "docs/stats.md", WS_STATSDOC_BEGIN, WS_STATSDOC_END, ws_statsdoc_markdown},
};
enum { NGEN = sizeof generators / sizeof generators[0] };

static const generator *find(const char *name) {
  for (int i = 0; i < NGEN; i++)
    if (strcmp(generators[i].name, name) == 0) return &generators[i];
  return NULL;
}

/* 0 current (or updated), 1 out of date (--check), 2 error. */
static int process(const generator *g, bool check) {
  ws_ctx *ctx = ws_ctx_create();
  char *block = g->markdown(), *doc = NULL, *spliced = NULL;
  size_t size = 0;
  int rc = 2;
  if (!block) fprintf(stderr, "ws-docgen: generating the %s block failed\n", g->name);
  else if (ws_file_read(ctx, g->path, &doc, &size) != WS_OK) fprintf(stderr, "ws-docgen: %s\n", ws_errmsg(ctx));
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

int main(int argc, char **argv) {
  bool update = argc > 1 && strcmp(argv[1], "--update") == 0;
  bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
  if (argc == 2 && !update && !check) {
    const generator *g = find(argv[1]);
    char *block = g ? g->markdown() : NULL;
    if (block) fputs(block, stdout);
    free(block);
    return block ? 0 : 2;
  }
  if (!update && !check) {
    fprintf(stderr, "usage: ws-docgen NAME | --update [NAME...] | --check [NAME...]\n"
                    "NAME: isa, presets, stats\n");
    return 2;
  }
  int rc = 0;
  for (int i = 0; i < NGEN; i++) {
    bool wanted = argc == 2;
    for (int j = 2; j < argc; j++) wanted |= strcmp(argv[j], generators[i].name) == 0;
    if (wanted) {
      int r = process(&generators[i], check);
      if (r > rc) rc = r;
    }
  }
  return rc;
}
