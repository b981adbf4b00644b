/* ranks.c - a job of one, or an MPI job's ranks (ranks.h). */
#include "explore/ranks.h"

#include <stdlib.h>
#include <string.h>

#ifdef WS_HAVE_MPI
#include <mpi.h>
#endif

struct ws_ranks {
  uint32_t rank, size;
  bool mpi;
};

/* Set by Open MPI's mpirun, by PMI (Slurm's srun --mpi=pmi2) and by PMIx. */
static bool launched_by_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

#ifdef WS_HAVE_MPI
static ws_status join(ws_ctx *ctx, ws_ranks *r) {
  int inited = 0, rank = 0, size = 1;
  MPI_Initialized(&inited);
  if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS)
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot join the MPI job (MPI_Init failed)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  r->rank = (uint32_t)rank;
  r->size = (uint32_t)size;
  r->mpi = true;
  return WS_OK;
}
#else
static ws_status join(ws_ctx *ctx, ws_ranks *r) {
  (void)r;
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "started by an MPI launcher, but this warpscope was built without MPI (install "
                     "libopenmpi-dev and rebuild)");
}
#endif

ws_status ws_ranks_start(ws_ctx *ctx, ws_ranks **out) {
  *out = NULL;
  ws_ranks *r = calloc(1, sizeof *r);
  if (!r) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory for the job's ranks");
  r->size = 1;
  ws_status st = launched_by_mpi() ? join(ctx, r) : WS_OK;
  if (st != WS_OK) {
    free(r);
    return st;
  }
  *out = r;
  return WS_OK;
}

void ws_ranks_finish(ws_ranks *r) {
  if (!r) return;
#ifdef WS_HAVE_MPI
  if (r->mpi) MPI_Finalize();
#endif
  free(r);
}

uint32_t ws_ranks_rank(const ws_ranks *r) { return r->rank; }
uint32_t ws_ranks_size(const ws_ranks *r) { return r->size; }
bool ws_ranks_mpi(const ws_ranks *r) { return r->mpi; }
bool ws_ranks_mine(const ws_ranks *r, uint64_t index) { return index % r->size == r->rank; }

/* ---- collectives ------------------------------------------------------------------------------------ */

static ws_status gather_one(ws_ctx *ctx, const void *mine, size_t bytes, void **all, size_t *lens) {
  *all = malloc(bytes ? bytes : 1);
  if (!*all) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory gathering %zu bytes of results", bytes);
  if (bytes) memcpy(*all, mine, bytes);
  lens[0] = bytes;
  return WS_OK;
}

#ifdef WS_HAVE_MPI
/* Rank 0's side: the lengths, then the bytes placed rank after rank. */
static ws_status gather_root(ws_ctx *ctx, ws_ranks *r, const void *mine, int n, void **all, size_t *lens) {
  int *counts = calloc(r->size, sizeof *counts), *at = calloc(r->size, sizeof *at);
  ws_status st = counts && at ? WS_OK : ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory gathering results");
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  size_t total = 0;
  for (uint32_t i = 0; st == WS_OK && i < r->size; i++) {
    at[i] = (int)total;
    lens[i] = (size_t)counts[i];
    total += (size_t)counts[i];
  }
  if (st == WS_OK && total > (size_t)INT32_MAX)
    st = ws_ctx_fail(ctx, WS_ERR_LIMIT, "%zu bytes of results are more than one gather carries", total);
  if (st == WS_OK && !(*all = malloc(total ? total : 1)))
    st = ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory gathering %zu bytes of results", total);
  /* the other ranks send whatever happens here: a failure must still take their bytes */
  MPI_Gatherv(mine, n, MPI_BYTE, st == WS_OK ? *all : NULL, counts, at, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(counts);
  free(at);
  if (st != WS_OK) {
    free(*all);
    *all = NULL;
  }
  return st;
}
#endif

ws_status ws_ranks_gather(ws_ctx *ctx, ws_ranks *r, const void *mine, size_t bytes, void **all,
                          size_t *lens) {
  *all = NULL;
  if (bytes > WS_RANKS_MAX_BYTES)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "rank %u: %zu bytes of results, more than the %zu a rank may send",
                       r->rank, bytes, WS_RANKS_MAX_BYTES);
  if (!r->mpi) return gather_one(ctx, mine, bytes, all, lens);
#ifdef WS_HAVE_MPI
  int n = (int)bytes;
  if (r->rank == 0) return gather_root(ctx, r, mine, n, all, lens);
  MPI_Gather(&n, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gatherv(mine, n, MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
  return WS_OK;
}

ws_status ws_ranks_same(ws_ctx *ctx, ws_ranks *r, uint32_t digest, const char *what) {
  if (!r->mpi) return WS_OK;
  uint32_t *all = NULL;
  size_t *lens = r->rank == 0 ? calloc(r->size, sizeof *lens) : NULL;
  ws_status st =
      r->rank == 0 && !lens ? ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory comparing ranks") : WS_OK;
  st = ws_ranks_agree(ctx, r, st);
  if (st == WS_OK) st = ws_ranks_gather(ctx, r, &digest, sizeof digest, (void **)&all, lens);
  for (uint32_t i = 1; st == WS_OK && all && i < r->size; i++)
    if (all[i] != all[0])
      st = ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "rank %u holds other %s than rank 0 (another --gpu, --set or preset file, or another "
                       "warpscope build): nothing was run",
                       i, what);
  free(all);
  free(lens);
  return ws_ranks_agree(ctx, r, st);
}

ws_status ws_ranks_agree(ws_ctx *ctx, ws_ranks *r, ws_status st) {
  if (!r->mpi) return st;
#ifdef WS_HAVE_MPI
  int mine = (int)st, worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (st == WS_OK && worst != WS_OK)
    return ws_ctx_fail(ctx, (ws_status)worst,
                       "rank %u: another rank of the job failed (its message is on its "
                       "own output)",
                       r->rank);
#else
  (void)ctx;
#endif
  return st;
}
