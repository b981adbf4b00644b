/* outputs.h - the one rule every command applies to the files it names,
 * before it reads or writes anything: no output may be one of its inputs,
 * and no two outputs may be one file, so a typo never replaces a trace
 * that took minutes to record or a sweep that took hours.
 *
 * Design: "one file" means the same path, or the same device and inode
 * (another spelling, a symbolic link, a hard link); for an output that does
 * not exist yet, the same folder (resolved) and name. Character devices and
 * FIFOs are exempt: writing one replaces nothing, and /dev/null may well
 * take two outputs. */
#ifndef WS_OUTPUTS_H
#define WS_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ctx.h"

typedef struct ws_outputs_file {
  const char *what; /* as the message names it: "-o", "--json", "the trace" */
  const char *path; /* NULL: not given (skipped) */
  bool writes;
} ws_outputs_file;

/* WS_ERR_USAGE, with a message naming both, when a name is empty, an
 * output is one of the inputs, or two outputs are one file; WS_OK else. */
ws_status ws_outputs_check(ws_ctx *ctx, const ws_outputs_file *files, size_t n);
/* Whether `path` is a character device or a FIFO: an output that is never
 * read back (a sweep does not resume from one). */
bool ws_outputs_is_stream(const char *path);

#endif
