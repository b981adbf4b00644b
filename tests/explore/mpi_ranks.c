/* mpi_ranks.c - run under mpirun by ctest (not a Criterion suite: its
 * workers fork, which MPI does not allow): every rank joins the job, says
 * which items are its own, and sends a message of its own length; rank 0
 * checks it got every rank's bytes in rank order and that every item has
 * exactly one owner. Exit 0 on every rank when all is right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/ranks.h"

static int fail(const char *what) {
  fprintf(stderr, "mpi_ranks: %s\n", what);
  return 1;
}

/* Rank k sends k + 1 copies of the letter 'a' + k. */
static int check_root(const char *all, const size_t *lens, uint32_t size) {
  size_t at = 0;
  for (uint32_t k = 0; k < size; k++) {
    if (lens[k] != k + 1) return fail("a rank's length is not what it sent");
    for (size_t i = 0; i < lens[k]; i++)
      if (all[at + i] != 'a' + (char)k) return fail("the bytes are not in rank order");
    at += lens[k];
  }
  return 0;
}

int main(void) {
  ws_ctx *ctx = ws_ctx_create();
  ws_ranks *r = NULL;
  if (ws_ranks_start(ctx, &r) != WS_OK) return fail(ws_errmsg(ctx));
  uint32_t rank = ws_ranks_rank(r), size = ws_ranks_size(r);
  int rc = ws_ranks_mpi(r) && size > 1 ? 0 : fail("not an MPI job of several ranks");
  uint64_t owned = 0;
  for (uint64_t i = 0; i < 100; i++) owned += ws_ranks_mine(r, i);
  if (owned != (100 - rank + size - 1) / size) rc = fail("the items owned are not index mod size");
  char mine[64];
  memset(mine, 'a' + (int)rank, sizeof mine);
  void *all = NULL;
  size_t lens[64];
  ws_status st = ws_ranks_gather(ctx, r, mine, rank + 1, &all, lens);
  if (ws_ranks_agree(ctx, r, st) != WS_OK) rc = fail(ws_errmsg(ctx));
  if (rc == 0 && rank == 0) rc = all ? check_root(all, lens, size) : fail("rank 0 got nothing");
  if (rank != 0 && all) rc = fail("a rank other than 0 got the results");
  free(all);
  ws_ranks_finish(r);
  ws_ctx_destroy(ctx);
  return rc;
}
