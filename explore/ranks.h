/* ranks.h - the processes an exploration is spread over: a job of one, or
 * the ranks of an MPI job (Open MPI's mpirun, or Slurm's srun), each taking
 * its share of the points, with the results gathered on rank 0.
 *
 * Design: MPI is a build-time option (WS_HAVE_MPI, set when CMake finds
 * Open MPI); without it, or in a process that no MPI launcher started, the
 * job is one rank and nothing here touches MPI, so `warpscope sweep` alone
 * never needs an MPI runtime. The launcher is recognised by the variables
 * it sets (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK). Results travel as
 * bytes the caller serialises; rank 0 receives them in rank order, so the
 * merged output does not depend on which rank finished first. */
#ifndef WS_EXPLORE_RANKS_H
#define WS_EXPLORE_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

typedef struct ws_ranks ws_ranks;

/* Joins the MPI job when an MPI launcher started this process (MPI_Init),
 * else a job of one. Once per process. */
ws_status ws_ranks_start(ws_ctx *ctx, ws_ranks **out);
/* Leaves the job (MPI_Finalize) and frees. */
void ws_ranks_finish(ws_ranks *r);

uint32_t ws_ranks_rank(const ws_ranks *r);
uint32_t ws_ranks_size(const ws_ranks *r);
bool ws_ranks_mpi(const ws_ranks *r); /* started under an MPI launcher */
/* Whether item `index` of a list is this rank's: index mod size == rank. */
bool ws_ranks_mine(const ws_ranks *r, uint64_t index);

/* Every rank gives `bytes` bytes; rank 0 gets them all, rank 0's first,
 * in *all (malloc'd; NULL on the other ranks) with each rank's length in
 * lens[rank] (lens: room for ws_ranks_size entries, rank 0 only). A rank's
 * share is at most WS_RANKS_MAX_BYTES. Collective: every rank calls it. */
#define WS_RANKS_MAX_BYTES ((size_t)1 << 30)
ws_status ws_ranks_gather(ws_ctx *ctx, ws_ranks *r, const void *mine, size_t bytes, void **all, size_t *lens);
/* Whether every rank succeeded (collective): a rank whose own `st` is
 * WS_OK gets another rank's failure with a message saying so, so none waits
 * for a gather that never comes; a failed rank keeps its own. */
ws_status ws_ranks_agree(ws_ctx *ctx, ws_ranks *r, ws_status st);
/* Whether every rank holds the same `digest` as rank 0 (collective): rank 0
 * fails naming the first rank that differs, and through ws_ranks_agree so
 * does every other rank; `what` says what the digest covers. */
ws_status ws_ranks_same(ws_ctx *ctx, ws_ranks *r, uint32_t digest, const char *what);

#endif
