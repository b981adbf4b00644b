/* embedded.c - lookup in a generated table of embedded files. */
#include "base/embedded.h"

#include <string.h>

const ws_embedded_file *ws_embedded_find(const ws_embedded_file *files, size_t count, const char *path) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(files[i].path, path) == 0) return &files[i];
  return NULL;
}
