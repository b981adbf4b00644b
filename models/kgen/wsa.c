/* wsa.c - lookup in the table of embedded .wsa files. */
#include "models/kgen/wsa.h"

const ws_embedded_file *ws_wsa_find(const char *path) {
  return ws_embedded_find(ws_wsa_files, ws_wsa_files_count, path);
}
