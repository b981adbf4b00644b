/* kspace.h - the space of `sweep kernel`: a user's CUDA C (or PTX) file,
 * its -D value lists, the grid, block and dynamic shared memory as
 * expressions of the -D names (explore/expr.h), the scalar args and the
 * buffers; its expansion into points and the run of one point.
 *
 * Design: what changes from point to point (the GPU and the -D values, and
 * the dimensions they give) lives in the ws_point, plain data as for the
 * other kinds; what every point shares (the file, the expressions, the
 * args, the buffers' bytes, read once) lives here and reaches the runner
 * through ws_point_opts.kspace. The points carry a hash of the shared
 * inputs (inputs_hash), so the MPI ranks' digest and a resumed sweep's
 * matching tell two files, two --arg values or two buffers apart. Each
 * point compiles the file with its own definitions: a source that does not
 * compile for one combination refuses that point with clang's first error
 * line, and the others run. A .ptx file is compiled already and takes no
 * -D: its space is one point per GPU. There is no reference to check a
 * user's kernel against, so records say "unchecked". */
#ifndef WS_EXPLORE_KSPACE_H
#define WS_EXPLORE_KSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "explore/point.h"
#include "explore/space.h"

/* The most --arg and --buf of one sweep. */
#define WS_KSPACE_ITEMS_MAX 64

typedef struct ws_kspace ws_kspace;

/* A space over the kernel file at path: a .cu or .ptx file that exists and
 * can be read (its bytes enter inputs_hash); WS_ERR_INVALID otherwise, or
 * WS_ERR_IO when it cannot be read. */
ws_status ws_kspace_create(ws_ctx *ctx, const char *path, ws_kspace **out);
void ws_kspace_destroy(ws_kspace *k);

/* The kernel to launch (--kernel), as the program or the source names it;
 * unset: the file's only kernel. */
ws_status ws_kspace_set_kernel(ws_ctx *ctx, ws_kspace *k, const char *name);
/* "NAME=LIST": LIST is comma-separated integers and ranges START:END[:STEP]
 * (as the other sweeps' lists; values may be negative). NAME is a C
 * identifier given once; at most WS_POINT_MAX_DEFINES names. A .ptx file
 * takes none. */
ws_status ws_kspace_add_define(ws_ctx *ctx, ws_kspace *k, const char *text);
/* The expressions (grid and block: one to three, X[,Y[,Z]]; shared: one,
 * NULL for 0), each name in them one of the -D names given before. */
ws_status ws_kspace_set_dims(ws_ctx *ctx, ws_kspace *k, const char *grid, const char *block,
                             const char *shared);
/* A scalar param "NAME=VALUE", parsed by its declared type at each point. */
ws_status ws_kspace_add_arg(ws_ctx *ctx, ws_kspace *k, const char *text);
/* A buffer for pointer param `name`: `data` (malloc'd, size_bytes > 0) is
 * the kspace's now, freed by ws_kspace_destroy even when this fails. */
ws_status ws_kspace_add_buf(ws_ctx *ctx, ws_kspace *k, const char *name, uint8_t *data, uint64_t size_bytes);

/* The points: every GPU of `base` (a space of kind WS_POINT_KERNEL: its
 * --gpu list, --set overrides and sampling) times every combination of the
 * -D lists, the first -D varying slowest, in a malloc'd array. Each point's
 * dimensions are evaluated here (0 where they refuse it; the run says why). */
ws_status ws_kspace_expand(ws_ctx *ctx, const ws_kspace *k, const ws_space *base, ws_point **points,
                           size_t *n);
/* Point p's grid, block and dynamic shared memory: WS_ERR_INVALID for an
 * expression that cannot be evaluated (with its column), a dimension below
 * 1 or beyond 32 bits, or a negative shared size. */
ws_status ws_kspace_dims(ws_ctx *ctx, const ws_kspace *k, const ws_point *p, uint32_t grid[3],
                         uint32_t block[3], uint32_t *shared_bytes);

/* Runs point p (a ws_sweep_runner's run): opts->kspace is the space. The
 * file compiled with the point's definitions, the buffers uploaded, the
 * kernel launched once in timing mode and measured as ws_point_run does.
 * A point whose dimensions, compilation, kernel choice or args fail is
 * refused (res->valid false, the reason in res->why). */
ws_status ws_kspace_run(ws_ctx *ctx, const ws_point *p, const ws_point_opts *opts, ws_point_result *res);

#endif
