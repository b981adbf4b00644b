/* test_slice.c - the slice of a kernel (sim/exec/slice.h): which
 * instructions a CTA running it skips, reads or writes nothing for, and
 * which it runs; that such a CTA issues the very instructions, lanes and
 * addresses of a full run; that the CTAs computed in full write exactly
 * what a full run writes and the others nothing; and that a fault stays
 * the fault of a full run.
 *
 * Why: a sampled timing run lets most CTAs run only their slice and
 * trusts their timing to be the full run's; a role too many would change
 * an address or a branch (wrong timing), a role too few only costs time.
 * Kernels whose addresses or branches depend on loaded values must keep
 * those loads and whatever feeds them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "isa/asm.h"
#include "sim/exec/args.h"
#include "sim/exec/exec.h"
#include "sim/exec/mem.h"
#include "sim/exec/slice.h"

/* Each thread loads a[i], iterates an accumulator four times and stores
 * it to out[i]: the loads and the arithmetic feed only the store. */
static const char accumulate_src[] = ".kernel t\n.param .ptr a\n.param .ptr out\n"
                                     "S2R R0, SR_TID.X\n"              /* 0 */
                                     "S2R R1, SR_CTAID.X\n"            /* 1 */
                                     "IMAD R0, R1, 64, R0\n"           /* 2 */
                                     "LDP.64 R2, [a]\n"                /* 3 */
                                     "IMAD.WIDE.U32 R4, R0, 4, R2\n"   /* 4 */
                                     "LDG.32 R6, [R4]\n"               /* 5 */
                                     "MOV R7, 0\n"                     /* 6 */
                                     "MOV R8, 0\n"                     /* 7 */
                                     "loop:\nFFMA R7, R6, R6, R7\n"    /* 8 */
                                     "FMUL R9, R7, 0.5\n"              /* 9 */
                                     "FADD R7, R7, R9\n"               /* 10 */
                                     "IADD R8, R8, 1\n"                /* 11 */
                                     "ISETP.LT.U32 P0, R8, 4\n"        /* 12 */
                                     "@P0 BRA loop\n"                  /* 13 */
                                     "LDP.64 R10, [out]\n"             /* 14 */
                                     "IMAD.WIDE.U32 R10, R0, 4, R10\n" /* 15 */
                                     "STG.32 [R10], R7\n"              /* 16 */
                                     "EXIT\n";                         /* 17 */

/* A gather: the loaded index decides the second load's address. */
static const char gather_src[] = ".kernel t\n.param .ptr idx\n.param .ptr a\n.param .ptr out\n"
                                 "S2R R0, SR_TID.X\n"
                                 "LDP.64 R2, [idx]\n"
                                 "IMAD.WIDE.U32 R4, R0, 4, R2\n"
                                 "LDG.32 R6, [R4]\n"
                                 "LDP.64 R8, [a]\n"
                                 "IMAD.WIDE.U32 R10, R6, 4, R8\n"
                                 "LDG.32 R12, [R10]\n"
                                 "FADD R13, R12, 1.0\n"
                                 "LDP.64 R14, [out]\n"
                                 "IMAD.WIDE.U32 R14, R0, 4, R14\n"
                                 "STG.32 [R14], R13\n"
                                 "EXIT\n";

/* A branch on a value that reaches it through shared memory. */
static const char branch_src[] = ".kernel t\n.param .ptr a\n.param .ptr out\n.shared s 256\n"
                                 "S2R R0, SR_TID.X\n"
                                 "LDP.64 R2, [a]\n"
                                 "IMAD.WIDE.U32 R4, R0, 4, R2\n"
                                 "LDG.32 R6, [R4]\n"
                                 "SHL R7, R0, 2\n"
                                 "STS.32 [R7+s], R6\n"
                                 "BAR.SYNC\n"
                                 "LDS.32 R8, [RZ+s]\n"
                                 "ISETP.GT.U32 P0, R8, 5\n"
                                 "@P0 BRA skip\n"
                                 "LDP.64 R10, [out]\n"
                                 "IMAD.WIDE.U32 R10, R0, 4, R10\n"
                                 "STG.32 [R10], R8\n"
                                 "skip:\nEXIT\n";

typedef struct sl {
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *k;
  ws_slice slice;
} sl;

static void sl_init(sl *t, const char *src, uint64_t ctas) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, src, strlen(src), "slice.wsa", &t->prog), WS_OK, "%s", ws_errmsg(t->ctx));
  t->k = ws_program_find_kernel(t->prog, "t");
  cr_assert(t->k);
  cr_assert_eq(ws_slice_build(t->ctx, t->k, ctas, &t->slice), WS_OK, "%s", ws_errmsg(t->ctx));
  cr_assert_eq(t->slice.ninsns, t->k->ninsns);
}

static void sl_fini(sl *t) {
  ws_slice_free(&t->slice);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

static void expect_roles(const sl *t, const uint8_t *want, uint32_t n) {
  cr_assert_eq(t->k->ninsns, n);
  for (uint32_t pc = 0; pc < n; pc++)
    cr_expect_eq(t->slice.roles[pc], want[pc], "pc %u: role %u, want %u", pc, t->slice.roles[pc], want[pc]);
}

enum { R = WS_SLICE_RUN, S = WS_SLICE_SKIP, W = WS_SLICE_NOWRITE, L = WS_SLICE_NOREAD };

Test(slice, arithmetic_that_feeds_only_a_store_is_left_out) {
  sl t;
  sl_init(&t, accumulate_src, 64);
  const uint8_t want[] = {R, R, R, R, R, L, S, R, S, S, S, R, R, R, R, R, W, R};
  expect_roles(&t, want, sizeof want);
  cr_expect_eq(t.slice.skipped, 4);
  cr_expect_eq(t.slice.noread, 1);
  cr_expect_eq(t.slice.nowrite, 1);
  cr_expect(!t.slice.global_writes, "a sliced CTA writes no global memory");
  /* the loop body's three: passed at once; the lone MOV before the loop
   * counter's is a run of one, and nothing else is passed */
  cr_expect_eq(t.slice.runs[8], 3);
  cr_expect_eq(t.slice.runs[9], 2);
  cr_expect_eq(t.slice.runs[6], 1);
  cr_expect_eq(t.slice.runs[7], 0);
  cr_expect_eq(t.slice.runs[16], 0);
  /* 64 CTAs: one in every 4 computed, on a diagonal of 4 x 4 blocks */
  cr_expect_eq(t.slice.keep_every, 4);
  cr_expect_eq(ws_slice_computed_ctas(&t.slice, 64), 16);
  cr_expect(!ws_slice_applies(&t.slice, 0) && !ws_slice_applies(&t.slice, 5) &&
            !ws_slice_applies(&t.slice, 10));
  cr_expect(ws_slice_applies(&t.slice, 1) && ws_slice_applies(&t.slice, 4) &&
            ws_slice_applies(&t.slice, 62) && !ws_slice_applies(&t.slice, 63));
  sl_fini(&t);
}

Test(slice, a_loaded_address_keeps_its_load_and_every_global_store) {
  sl t;
  sl_init(&t, gather_src, 64);
  for (uint32_t pc = 0; pc < t.k->ninsns; pc++) cr_expect_eq(t.slice.roles[pc], WS_SLICE_RUN, "pc %u", pc);
  sl_fini(&t);
}

Test(slice, a_branch_on_a_shared_value_keeps_the_path_to_it) {
  sl t;
  sl_init(&t, branch_src, 64);
  for (uint32_t pc = 0; pc < t.k->ninsns; pc++) cr_expect_eq(t.slice.roles[pc], WS_SLICE_RUN, "pc %u", pc);
  sl_fini(&t);
}

Test(slice, a_small_grid_computes_every_cta) {
  sl t;
  sl_init(&t, accumulate_src, 2 * WS_SLICE_COMPUTED_CTAS - 1);
  cr_expect_eq(t.slice.keep_every, 1);
  for (uint64_t id = 0; id < 2 * WS_SLICE_COMPUTED_CTAS; id++) cr_expect(!ws_slice_applies(&t.slice, id));
  cr_expect_eq(ws_slice_computed_ctas(&t.slice, 31), 31);
  sl_fini(&t);
}

/* ---- running the slice ------------------------------------------------------------- */

#define CTAS 64u
#define THREADS 64u
#define N (CTAS * THREADS)

typedef struct run {
  ws_launch_stats stats;
  uint64_t addr_hash; /* every step's pc, mask and addresses, in order */
  uint64_t steps;
  float out[N];
  ws_status st;
  char err[512];
} run;

static void hash_step(void *user, const ws_warp_step *step) {
  run *r = user;
  uint64_t h = r->addr_hash ^ ((uint64_t)step->pc << 32 | step->active_mask);
  h *= 0x100000001b3ull;
  if (step->flags & (WS_STEP_LOAD | WS_STEP_STORE))
    for (uint32_t l = 0; l < 32; l++)
      if (step->active_mask >> l & 1u) h = (h ^ step->addr[l]) * 0x100000001b3ull;
  r->addr_hash = h;
  r->steps++;
}

/* The accumulate kernel over CTAS CTAs, out pre-filled with all-ones
 * bytes, with or without the slice, each step shown to fn; out_floats:
 * the out buffer's size. */
static void run_accumulate(sl *t, bool sliced, uint32_t out_floats, ws_exec_step_fn fn, run *r) {
  memset(r, 0, sizeof *r);
  ws_mem *mem = ws_mem_create(1 << 22);
  ws_args args;
  ws_args_init(&args, t->k);
  float a[N];
  for (uint32_t i = 0; i < N; i++) a[i] = (float)(i % 97) * 0.125f - 6.0f;
  uint64_t da = 0, dout = 0;
  cr_assert_eq(ws_mem_alloc(mem, t->ctx, sizeof a, &da), WS_OK);
  cr_assert_eq(ws_mem_copy_in(mem, t->ctx, da, a, sizeof a), WS_OK);
  cr_assert_eq(ws_mem_alloc(mem, t->ctx, out_floats * 4ull, &dout), WS_OK);
  cr_assert_eq(ws_mem_fill(mem, t->ctx, dout, 0xff, out_floats * 4ull), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t->ctx, &args, "a", da), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t->ctx, &args, "out", dout), WS_OK);
  ws_exec_launch launch = {.kernel = t->k,
                           .grid = {CTAS, 1, 1},
                           .block = {THREADS, 1, 1},
                           .params = args.buf,
                           .mem = mem,
                           .num_sms = 4,
                           .budget_warp_insns = 1u << 30,
                           .slice = sliced ? &t->slice : NULL};
  r->st = ws_exec_run_ctas(t->ctx, &launch, 0, CTAS, fn, r, &r->stats);
  snprintf(r->err, sizeof r->err, "%s", r->st == WS_OK ? "" : ws_errmsg(t->ctx));
  ws_ctx_clear(t->ctx);
  uint32_t n = out_floats < N ? out_floats : N;
  cr_assert_eq(ws_mem_copy_out(mem, t->ctx, r->out, dout, n * 4ull), WS_OK);
  ws_mem_destroy(mem);
}

static bool all_ones(float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  return bits == UINT32_MAX;
}

Test(slice, a_sliced_cta_issues_what_a_full_one_does_and_writes_nothing) {
  sl t;
  sl_init(&t, accumulate_src, CTAS);
  static run full, part;
  run_accumulate(&t, false, N, hash_step, &full);
  run_accumulate(&t, true, N, hash_step, &part);
  cr_assert_eq(full.st, WS_OK, "%s", full.err);
  cr_assert_eq(part.st, WS_OK, "%s", part.err);
  /* the same instructions, lanes, units and addresses, step for step */
  cr_expect_eq(part.stats.warp_insns, full.stats.warp_insns);
  cr_expect_eq(part.stats.thread_insns, full.stats.thread_insns);
  for (int u = 0; u < WS_UNIT_COUNT; u++)
    cr_expect_eq(part.stats.warp_insns_by_unit[u], full.stats.warp_insns_by_unit[u], "unit %d", u);
  /* passed runs are not shown to the visitor: the steps differ, the
   * memory steps' addresses must not */
  cr_expect_lt(part.steps, full.steps);
  uint64_t computed = 0;
  for (uint32_t c = 0; c < CTAS; c++) {
    bool kept = !ws_slice_applies(&t.slice, c);
    computed += kept;
    for (uint32_t i = c * THREADS; i < (c + 1) * THREADS; i++) {
      if (kept)
        cr_expect_eq(memcmp(&part.out[i], &full.out[i], 4), 0, "out[%u] of computed CTA %u", i, c);
      else
        cr_expect(all_ones(part.out[i]), "out[%u] of sliced CTA %u was written", i, c);
      cr_expect(!all_ones(full.out[i]));
    }
  }
  cr_expect_eq(computed, 16);
  sl_fini(&t);
}

/* The memory steps alone, to compare a sliced run's addresses. */
static void hash_memory(void *user, const ws_warp_step *step) {
  if (step->flags & (WS_STEP_LOAD | WS_STEP_STORE)) hash_step(user, step);
}

Test(slice, a_sliced_cta_touches_the_addresses_a_full_one_does) {
  sl t;
  sl_init(&t, accumulate_src, CTAS);
  static run full, part;
  run_accumulate(&t, false, N, hash_memory, &full);
  run_accumulate(&t, true, N, hash_memory, &part);
  cr_assert(full.st == WS_OK && part.st == WS_OK, "%s %s", full.err, part.err);
  cr_expect_eq(part.steps, full.steps);
  cr_expect_eq(part.addr_hash, full.addr_hash);
  cr_expect_eq(full.steps, 4 * CTAS * THREADS / 32, "two parameter loads, a load and a store per warp");
  sl_fini(&t);
}

Test(slice, a_sliced_store_out_of_bounds_faults_as_a_full_one) {
  sl t;
  sl_init(&t, accumulate_src, CTAS);
  static run full, part;
  /* room for CTA 0's outputs alone: CTA 1, which runs the slice, faults */
  cr_assert(ws_slice_applies(&t.slice, 1));
  run_accumulate(&t, false, THREADS, hash_step, &full);
  run_accumulate(&t, true, THREADS, hash_step, &part);
  cr_assert_eq(full.st, WS_ERR_FAULT);
  cr_assert_eq(part.st, WS_ERR_FAULT);
  cr_expect_str_eq(part.err, full.err);
  cr_expect(strstr(full.err, "global write") != NULL, "%s", full.err);
  sl_fini(&t);
}
