/* test_ranks.c - a process no MPI launcher started is a job of one rank
 * (explore/ranks.h): it owns every item, its gather returns its own bytes
 * and its agreement is its own status. (tests/explore/mpi_ranks.c checks a
 * real job under mpirun.) */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "explore/ranks.h"

Test(ranks, a_process_alone_is_a_job_of_one) {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  unsetenv("PMIX_RANK");
  ws_ctx *ctx = ws_ctx_create();
  ws_ranks *r = NULL;
  cr_assert_eq(ws_ranks_start(ctx, &r), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_ranks_rank(r), 0);
  cr_expect_eq(ws_ranks_size(r), 1);
  cr_expect(!ws_ranks_mpi(r));
  for (uint64_t i = 0; i < 10; i++) cr_expect(ws_ranks_mine(r, i));
  void *all = NULL;
  size_t lens[1] = {0};
  cr_assert_eq(ws_ranks_gather(ctx, r, "abc", 3, &all, lens), WS_OK);
  cr_expect_eq(lens[0], 3);
  cr_expect(all && memcmp(all, "abc", 3) == 0);
  free(all);
  cr_expect_eq(ws_ranks_agree(ctx, r, WS_ERR_IO), WS_ERR_IO);
  cr_expect_eq(ws_ranks_gather(ctx, r, "x", WS_RANKS_MAX_BYTES + 1, &all, lens), WS_ERR_LIMIT);
  ws_ranks_finish(r);
  ws_ctx_destroy(ctx);
}
