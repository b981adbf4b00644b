/* test_gemmgen_emit.c - the structure of the text the GEMM emitter writes
 * (models/kgen/gemmgen_emit.c), independent of what the kernels compute (that is
 * tests/models/kgen/test_gemmgen.c, end to end): the kernel and its params in the
 * order gemmgen.h promises; the highest register the text names is the
 * plan's count minus one, which the header comment states and the assembler
 * finds; every label is defined exactly once and every branch goes to a
 * defined label; and the assembled kernel's shared memory is the plan's.
 * One config per emitter path (simple with the full epilogue, tiled, mma). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "models/kgen/gemmgen_int.h"

typedef struct emitted {
  char *text;
  ws_gemmgen_plan plan;
} emitted;

static emitted emit(ws_gemmgen_cfg c) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s", ws_errmsg(ctx));
  ws_kbuild k;
  ws_kbuild_init(&k);
  emitted e;
  ws_gemmgen_plan_make(&k, &c, &e.plan);
  ws_gemmgen_emit_kernel(&k, &c, &e.plan);
  cr_assert_eq(ws_kbuild_take(ctx, &k, &e.text), WS_OK, "%s", ws_errmsg(ctx));
  ws_kbuild_free(&k);
  ws_ctx_destroy(ctx);
  return e;
}

/* Highest n of a token R<n> (digits only: not RZ, not the param R). */
static long highest_register(const char *text) {
  long hi = -1;
  for (const char *c = text; *c; c++) {
    if (*c != 'R' || (c > text && (isalnum((unsigned char)c[-1]) || c[-1] == '_'))) continue;
    if (!isdigit((unsigned char)c[1])) continue;
    char *end;
    long n = strtol(c + 1, &end, 10);
    if (isalnum((unsigned char)*end) || *end == '_') continue;
    if (n > hi) hi = n;
  }
  return hi;
}

static size_t count_lines(const char *text, const char *line) {
  size_t n = 0, len = strlen(line);
  for (const char *c = text; c; c = strchr(c, '\n')) {
    if (*c == '\n') c++;
    if (strncmp(c, line, len) == 0 && (c[len] == '\n' || c[len] == '\0')) n++;
  }
  return n;
}

/* Labels are lines "name:"; branches "BRA name" (possibly guarded). */
static void expect_labels_sound(const char *text, const char *what) {
  size_t labels = 0;
  for (const char *c = text; c && *c; c = strchr(c, '\n'), c = c ? c + 1 : NULL) {
    const char *eol = strchr(c, '\n');
    size_t len = eol ? (size_t)(eol - c) : strlen(c);
    if (len > 1 && c[len - 1] == ':' && (isalpha((unsigned char)c[0]) || c[0] == '_')) {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)len, c);
      cr_expect_eq(count_lines(text, name), 1, "%s: label %s defined more than once", what, name);
      labels++;
    }
    const char *bra = strstr(c, "BRA ");
    if (bra && bra < c + len && (bra == c || bra[-1] == ' ')) {
      char target[64];
      cr_assert_eq(sscanf(bra + 4, "%63[A-Za-z0-9_]", target), 1);
      char def[70];
      snprintf(def, sizeof def, "%s:", target);
      cr_expect_eq(count_lines(text, def), 1, "%s: branch to %s, defined %zu times", what, target,
                   count_lines(text, def));
    }
  }
  cr_expect_gt(labels, 0, "%s has labels (the k loop, the epilogue)", what);
}

static void expect_structure(ws_gemmgen_cfg c) {
  char what[160];
  ws_gemmgen_describe(&c, what, sizeof what);
  emitted e = emit(c);
  char line[64];
  snprintf(line, sizeof line, ".kernel gemm_%s", ws_gemmgen_variant_name(c.variant));
  cr_expect_eq(count_lines(e.text, line), 1, "%s: one %s line", what, line);
  /* params in order: A, B, C, [bias], [R], M, N, K */
  const char *params[8] = {".param .ptr A", ".param .ptr B", ".param .ptr C"};
  size_t np = 3;
  if (c.epilogue & WS_GEMMGEN_EPI_BIAS) params[np++] = ".param .ptr bias";
  if (c.epilogue & WS_GEMMGEN_EPI_RESIDUAL) params[np++] = ".param .ptr R";
  params[np++] = ".param .u32 M";
  params[np++] = ".param .u32 N";
  params[np++] = ".param .u32 K";
  const char *at = e.text;
  for (size_t i = 0; i < np; i++) {
    const char *p = strstr(at, params[i]);
    cr_expect_not_null(p, "%s: %s missing or out of order", what, params[i]);
    if (p) at = p + strlen(params[i]);
  }
  /* registers: the text, its header comment and the assembler agree with the plan */
  cr_expect_eq(highest_register(e.text), (long)e.plan.regs - 1, "%s", what);
  snprintf(line, sizeof line, "// registers: %u per thread", e.plan.regs);
  cr_expect_eq(count_lines(e.text, line), 1, "%s: no line '%s'", what, line);
  expect_labels_sound(e.text, what);
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, e.text, strlen(e.text), "gemm.wsa", &prog), WS_OK, "%s: %s", what,
               ws_errmsg(ctx));
  cr_expect_eq(prog->kernels[0].regs_per_thread, e.plan.regs, "%s", what);
  cr_expect_eq(prog->kernels[0].shared_size_bytes, e.plan.smem_bytes, "%s", what);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  free(e.text);
}

Test(gemmgen_emit, simple_with_the_full_epilogue) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  c.epilogue = WS_GEMMGEN_EPI_ALL;
  expect_structure(c);
}

Test(gemmgen_emit, tiled) { expect_structure(ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D)); }

Test(gemmgen_emit, mma_with_bias) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_MMA);
  c.epilogue = WS_GEMMGEN_EPI_BIAS;
  expect_structure(c);
}

/* The header: what the variant changes and how to launch it. naive 32x32
 * with 1024 threads: block (1024,1,1), grid (ceil(N/32), ceil(M/32), 1). */
Test(gemmgen_emit, header_comment) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  emitted e = emit(c);
  cr_expect_eq(strncmp(e.text, "// gemm_naive.wsa - ", 20), 0, "%.40s", e.text);
  cr_expect(strstr(e.text, "// Generated by models/kgen/gemmgen_emit.c: naive bm=32 bn=32 "
                           "threads=1024\n") != NULL);
  cr_expect(strstr(e.text, ws_gemmgen_variant_note(WS_GEMMGEN_NAIVE)) != NULL,
            "the variant's note heads the kernel");
  cr_expect(strstr(e.text, "// Launch: block (1024,1,1), grid (ceil(N/32), ceil(M/32), 1).\n") != NULL);
  cr_expect(strstr(e.text, ".param .ptr bias") == NULL, "no epilogue, no bias param");
  free(e.text);
}
