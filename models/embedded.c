/* embedded.c - lookup in the generated table of embedded kernel sources. */
#include "models/embedded.h"

#include <string.h>

const ws_embedded_file *ws_embedded_find(const char *path) {
  for (size_t i = 0; i < ws_embedded_count; i++)
    if (strcmp(ws_embedded_files[i].path, path) == 0) return &ws_embedded_files[i];
  return NULL;
}
