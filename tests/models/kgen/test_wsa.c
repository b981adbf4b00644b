/* test_wsa.c - the embedded .wsa table (models/kgen/wsa.c and the generated
 * table from cmake/embed.cmake): every entry is found by its own path, its
 * text and size equal the file under WS_SOURCE_DIR byte for byte (with a NUL
 * after the text), every .wsa file of models/ is embedded, and an absent
 * path gives NULL. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "models/kgen/wsa.h"

Test(wsa, every_entry_is_found_by_its_path) {
  cr_assert_gt(ws_wsa_files_count, 0);
  for (size_t i = 0; i < ws_wsa_files_count; i++) {
    const ws_embedded_file *f = &ws_wsa_files[i];
    cr_expect_eq(strncmp(f->path, "models/", 7), 0, "%s is outside models/", f->path);
    cr_expect_eq(ws_wsa_find(f->path), f, "%s", f->path);
  }
}

Test(wsa, text_equals_the_file_on_disk) {
  ws_ctx *ctx = ws_ctx_create();
  for (size_t i = 0; i < ws_wsa_files_count; i++) {
    const ws_embedded_file *f = &ws_wsa_files[i];
    char path[1024], *data = NULL;
    size_t size = 0;
    snprintf(path, sizeof path, "%s/%s", WS_SOURCE_DIR, f->path);
    cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK, "%s",
                 ws_errmsg(ctx));
    cr_expect_eq(f->size_bytes, size, "%s: %zu bytes embedded, %zu on disk", f->path, f->size_bytes, size);
    cr_expect_eq(memcmp(f->text, data, size < f->size_bytes ? size : f->size_bytes), 0,
                 "%s differs from the file", f->path);
    cr_expect_eq(f->text[f->size_bytes], '\0', "%s: text is a C string", f->path);
    free(data);
  }
  ws_ctx_destroy(ctx);
}

/* Walks models/ on disk; each *.wsa must be in the table (a file added to
 * the tree without re-running cmake would be missing). */
static size_t check_folder(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", WS_SOURCE_DIR, rel);
  DIR *d = opendir(path);
  cr_assert_not_null(d, "%s", path);
  size_t found = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".wsa") == 0) {
      cr_expect_not_null(ws_wsa_find(sub), "%s is not embedded", sub);
      found++;
    } else {
      char full[1200];
      snprintf(full, sizeof full, "%s/%s", WS_SOURCE_DIR, sub);
      DIR *inner = opendir(full);
      if (inner) {
        closedir(inner);
        found += check_folder(sub);
      }
    }
  }
  closedir(d);
  return found;
}

Test(wsa, every_file_on_disk_is_embedded) { cr_expect_eq(check_folder("models"), ws_wsa_files_count); }

Test(wsa, absent_paths_give_null) {
  cr_expect_null(ws_wsa_find("models/runs/examples/no_such_kernel.wsa"));
  cr_expect_null(ws_wsa_find("sim/presets/a100.ini"), "presets are not in this table");
  cr_expect_null(ws_wsa_find(""));
  const char *first = ws_wsa_files[0].path;
  char longer[1024];
  snprintf(longer, sizeof longer, "%s.bak", first);
  cr_expect_null(ws_wsa_find(longer));
  cr_expect_null(ws_wsa_find(first + 7), "paths are relative to the source root");
}
