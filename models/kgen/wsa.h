/* wsa.h - the .wsa files of models/ (examples, microbenchmarks, the fixed
 * layer kernels), embedded in the binary by cmake/embed.cmake.
 *
 * Design: the kernels students read are files in the tree; embedding them
 * keeps the binary self-contained and the text identical to the file. */
#ifndef WS_WSA_H
#define WS_WSA_H

#include "base/embedded.h"

extern const ws_embedded_file ws_wsa_files[];
extern const size_t ws_wsa_files_count;

/* The embedded file at `path` (e.g. "models/runs/examples/saxpy.wsa"); NULL when
 * none has it. */
const ws_embedded_file *ws_wsa_find(const char *path);

#endif
