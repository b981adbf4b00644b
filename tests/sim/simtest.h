/* simtest.h - header-only helpers for the executor suites: assemble a .wsa
 * string, allocate and fill device buffers, launch, read results back.
 *
 * Design: static inline functions so every suite stays one self-contained
 * translation unit; failures abort the test through Criterion asserts with
 * the library's own message, so a broken kernel says why. */
#ifndef WS_TESTS_SIMTEST_H
#define WS_TESTS_SIMTEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "isa/asm.h"
#include "sim/host/device.h"

typedef struct simtest {
  ws_ctx *ctx;
  ws_device *dev;
  ws_program *prog;
  const ws_kernel *k;
  ws_args args;
  ws_launch_stats stats;
} simtest;

static inline void st_init_cfg(simtest *t, const char *src, const char *kernel, const ws_gpu_cfg *cfg) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert(t->ctx);
  ws_status st = ws_asm_parse(t->ctx, src, strlen(src), "test.wsa", &t->prog);
  cr_assert_eq(st, WS_OK, "assembly failed: %s", ws_errmsg(t->ctx));
  t->k = ws_program_find_kernel(t->prog, kernel);
  cr_assert(t->k, "no kernel '%s'", kernel);
  cr_assert_eq(ws_device_create(t->ctx, cfg, &t->dev), WS_OK);
  ws_args_init(&t->args, t->k);
}

static inline void st_init(simtest *t, const char *src, const char *kernel) {
  ws_gpu_cfg cfg = ws_config_default();
  st_init_cfg(t, src, kernel, &cfg);
}

static inline void st_fini(simtest *t) {
  ws_device_destroy(t->dev);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

/* Allocates `bytes` and fills them from init (zeros when NULL). */
static inline uint64_t st_alloc(simtest *t, size_t bytes, const void *init) {
  uint64_t p = 0;
  cr_assert_eq(ws_device_malloc(t->dev, bytes, &p), WS_OK, "%s", ws_errmsg(t->ctx));
  if (init)
    cr_assert_eq(ws_device_memcpy_htod(t->dev, p, init, bytes), WS_OK);
  else
    cr_assert_eq(ws_device_memset(t->dev, p, 0, bytes), WS_OK);
  return p;
}

/* Allocates a buffer, binds it to ptr param `name`. */
static inline uint64_t st_buf(simtest *t, const char *name, size_t bytes, const void *init) {
  uint64_t p = st_alloc(t, bytes, init);
  cr_assert_eq(ws_args_set_ptr(t->ctx, &t->args, name, p), WS_OK, "%s", ws_errmsg(t->ctx));
  return p;
}

static inline void st_u32(simtest *t, const char *name, uint32_t v) {
  cr_assert_eq(ws_args_set_u32(t->ctx, &t->args, name, v), WS_OK, "%s", ws_errmsg(t->ctx));
}

static inline ws_status st_launch(simtest *t, ws_dim3 grid, ws_dim3 block, uint32_t dyn_shared) {
  return ws_device_launch(t->dev, t->k, grid, block, dyn_shared, &t->args, &t->stats);
}

/* Launches and requires success. */
static inline void st_run(simtest *t, uint32_t grid_x, uint32_t block_x) {
  ws_status st = st_launch(t, (ws_dim3){grid_x, 1, 1}, (ws_dim3){block_x, 1, 1}, 0);
  cr_assert_eq(st, WS_OK, "launch failed: %s", ws_errmsg(t->ctx));
}

static inline void st_read(simtest *t, void *dst, uint64_t src, size_t bytes) {
  cr_assert_eq(ws_device_memcpy_dtoh(t->dev, dst, src, bytes), WS_OK, "%s", ws_errmsg(t->ctx));
}

/* Runs `body` (which reads R10, R11, R12 and writes R13; R0 = thread id)
 * in n threads of one CTA, lane i getting a[i], b[i], c[i]; out[i] = R13. */
static inline void st_lanes(const char *body, uint32_t n, const uint32_t *a, const uint32_t *b,
                            const uint32_t *c, uint32_t *out) {
  char src[4096];
  snprintf(src, sizeof src,
           ".kernel t\n.param .ptr pa\n.param .ptr pb\n.param .ptr pc\n.param .ptr out\n"
           "S2R R0, SR_TID.X\n"
           "LDP.64 R2, [pa]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R10, [R2]\n"
           "LDP.64 R4, [pb]\nIMAD.WIDE.U32 R4, R0, 4, R4\nLDG.32 R11, [R4]\n"
           "LDP.64 R6, [pc]\nIMAD.WIDE.U32 R6, R0, 4, R6\nLDG.32 R12, [R6]\n"
           "%s\n"
           "LDP.64 R8, [out]\nIMAD.WIDE.U32 R8, R0, 4, R8\nSTG.32 [R8], R13\nEXIT\n",
           body);
  simtest t;
  st_init(&t, src, "t");
  uint32_t zeros[1024] = {0};
  st_buf(&t, "pa", n * 4u, a ? a : zeros);
  st_buf(&t, "pb", n * 4u, b ? b : zeros);
  st_buf(&t, "pc", n * 4u, c ? c : zeros);
  uint64_t o = st_buf(&t, "out", n * 4u, NULL);
  st_run(&t, 1, n);
  st_read(&t, out, o, n * 4u);
  st_fini(&t);
}

#endif
