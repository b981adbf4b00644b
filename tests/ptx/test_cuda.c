/* test_cuda.c - the CUDA C driver (ptx/cuda.h) with the installed clang:
 * SAXPY's PTX, clang's diagnostics in the message, -D, template instances
 * (also through a file name no #include can spell), a missing clang, the
 * checks on the request, each header function's instruction, kernel names,
 * and the corpus of tests/ptx/cuda/ compiled afresh to the entries of its
 * committed .ptx files (each .cu once per run; WS_CUDA_REGEN_DIR=DIR also
 * writes the fresh PTX there, which is how tests/ptx/cuda/regen.sh makes
 * them). Every compile runs with TMPDIR pointed at an empty folder that must
 * be empty again afterwards. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "ptx/cuda.h"

/* relative, from the source root (setup goes there), so the PTX names its
 * sources as tests/ptx/cuda/NAME.cu on every machine */
#define CORPUS_DIR "tests/ptx/cuda"

static ws_ctx *ctx;
static char tmp_dir[64]; /* TMPDIR of the compiles */
static char src_dir[64]; /* where a test writes its .cu files */

static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_eq(chdir(WS_SOURCE_DIR), 0);
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/ws_test_cuda_tmp.XXXXXX");
  snprintf(src_dir, sizeof src_dir, "/tmp/ws_test_cuda_src.XXXXXX");
  cr_assert_not_null(mkdtemp(tmp_dir));
  cr_assert_not_null(mkdtemp(src_dir));
  setenv("TMPDIR", tmp_dir, 1);
}

static size_t count_entries(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s", dir);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static void remove_dir_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[512];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

static void teardown(void) {
  /* the driver's private folder is gone, whatever happened */
  cr_expect_eq(count_entries(tmp_dir), 0, "the compile left files in TMPDIR");
  remove_dir_files(tmp_dir);
  remove_dir_files(src_dir);
  ws_ctx_destroy(ctx);
}

TestSuite(cuda, .init = setup, .fini = teardown);

/* A .cu file named `name` in src_dir holding `text`; its path in out. */
static void write_cu(const char *name, const char *text, char *out, size_t n) {
  snprintf(out, n, "%s/%s", src_dir, name);
  FILE *f = fopen(out, "w");
  cr_assert_not_null(f, "%s", out);
  fputs(text, f);
  fclose(f);
}

static char *compile_ok(const char *path, const ws_cuda_opts *opts) {
  char *ptx = NULL;
  size_t len = 0;
  ws_status st = ws_cuda_compile(ctx, path, opts, &ptx, &len);
  cr_assert_eq(st, WS_OK, "%s: %s", path, ws_errmsg(ctx));
  cr_assert_eq(strlen(ptx), len);
  return ptx;
}

Test(cuda, saxpy_compiles_to_its_entry_and_an_fma) {
  char *ptx = compile_ok(CORPUS_DIR "/saxpy.cu", NULL);
  /* the seed's signature: float *x, float *y */
  cr_expect(strstr(ptx, ".visible .entry _Z5saxpyifPfS_(") != NULL);
  cr_expect(strstr(ptx, "fma.rn.f32") != NULL);
  cr_expect(strstr(ptx, ".target sm_80") != NULL);
  /* the temporary folder's name never reaches the PTX */
  cr_expect(strstr(ptx, "warpscope-cuda-") == NULL);
  free(ptx);
}

Test(cuda, a_syntax_error_gives_clangs_diagnostic_with_file_and_line) {
  char path[256];
  write_cu("we\"ird name.cu", "__global__ void k(int *p) {\n  p[0] = 1\n}\n", path, sizeof path);
  char *ptx = NULL;
  size_t len = 0;
  cr_assert_eq(ws_cuda_compile(ctx, path, NULL, &ptx, &len), WS_ERR_INVALID);
  cr_expect_null(ptx);
  const char *msg = ws_errmsg(ctx);
  char want[300];
  snprintf(want, sizeof want, "%s:2:11: error: expected ';'", path);
  cr_expect(strstr(msg, want) != NULL, "message: %s", msg);
  cr_expect_eq(count_entries(src_dir), 1, "nothing may be written beside the user's file");
}

Test(cuda, a_define_reaches_the_kernel) {
  char path[256];
  write_cu("scale.cu", "__global__ void k(int *p) { p[0] = SCALE * 7; }\n", path, sizeof path);
  const char *defs[] = {"SCALE=6"};
  ws_cuda_opts o = {.defines = defs, .ndefines = 1};
  char *ptx = compile_ok(path, &o);
  cr_expect(strstr(ptx, ", 42;") != NULL, "%s", ptx);
  free(ptx);
  defs[0] = "SCALE=5";
  ptx = compile_ok(path, &o);
  cr_expect(strstr(ptx, ", 35;") != NULL, "%s", ptx);
  free(ptx);
}

Test(cuda, a_define_whose_name_is_not_an_identifier_is_a_usage_error) {
  const char *bad[] = {"1X=2", "A B", "=3", "A-B", "", "X=1\nint y;"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ws_cuda_opts o = {.defines = &bad[i], .ndefines = 1};
    char *ptx = NULL;
    size_t len = 0;
    cr_expect_eq(ws_cuda_compile(ctx, CORPUS_DIR "/saxpy.cu", &o, &ptx, &len), WS_ERR_USAGE, "%s", bad[i]);
    cr_expect(strstr(ws_errmsg(ctx), "-D ") != NULL, "%s", ws_errmsg(ctx));
  }
}

Test(cuda, a_bad_instantiation_request_or_arch_is_a_usage_error) {
  const char *bad[] = {"sgemm", "sgemm<1>; int x", "sgemm<1", "<1>", "k<1>{}", "k<1>>"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ws_cuda_opts o = {.instantiate = &bad[i], .ninstantiate = 1};
    char *ptx = NULL;
    size_t len = 0;
    cr_expect_eq(ws_cuda_compile(ctx, CORPUS_DIR "/saxpy.cu", &o, &ptx, &len), WS_ERR_USAGE, "%s", bad[i]);
  }
  ws_cuda_opts o = {.arch = "sm_80 -fsyntax-only"};
  char *ptx = NULL;
  size_t len = 0;
  cr_expect_eq(ws_cuda_compile(ctx, CORPUS_DIR "/saxpy.cu", &o, &ptx, &len), WS_ERR_USAGE);
}

static const char block_sum_cu[] =
    "template <int N> __global__ void block_sum(const float *x, float *y) {\n"
    "  __shared__ float s[N];\n"
    "  s[threadIdx.x] = x[threadIdx.x];\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) { float t = 0; for (int i = 0; i < N; i++) t += s[i]; "
    "*y = t; }\n"
    "}\n";

Test(cuda, an_instantiation_request_emits_the_instance) {
  char path[256];
  write_cu("block sum.cu", block_sum_cu, path, sizeof path);
  char *ptx = compile_ok(path, NULL);
  cr_expect(strstr(ptx, ".entry") == NULL, "an uninstantiated template emits nothing");
  free(ptx);
  const char *inst[] = {"block_sum<256>", "block_sum<64>"};
  ws_cuda_opts o = {.instantiate = inst, .ninstantiate = 2};
  ptx = compile_ok(path, &o);
  cr_expect(strstr(ptx, ".entry _Z9block_sumILi256EEvPKfPf(") != NULL, "%s", ptx);
  cr_expect(strstr(ptx, ".entry _Z9block_sumILi64EEvPKfPf(") != NULL, "%s", ptx);
  free(ptx);
  cr_expect_eq(count_entries(src_dir), 1);
}

Test(cuda, an_instance_of_a_file_no_include_can_name_still_compiles) {
  /* a double quote in the path: the wrapper reaches it through a link */
  char path[256];
  write_cu("q\"uote.cu", block_sum_cu, path, sizeof path);
  const char *inst[] = {"block_sum<32>"};
  ws_cuda_opts o = {.instantiate = inst, .ninstantiate = 1};
  char *ptx = compile_ok(path, &o);
  cr_expect(strstr(ptx, ".entry _Z9block_sumILi32EEvPKfPf(") != NULL, "%s", ptx);
  free(ptx);
}

Test(cuda, an_instance_that_does_not_exist_is_clangs_error) {
  char path[256];
  write_cu("bs.cu", block_sum_cu, path, sizeof path);
  const char *inst[] = {"block_summ<32>"};
  ws_cuda_opts o = {.instantiate = inst, .ninstantiate = 1};
  char *ptx = NULL;
  size_t len = 0;
  cr_assert_eq(ws_cuda_compile(ctx, path, &o, &ptx, &len), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "block_summ") != NULL, "%s", ws_errmsg(ctx));
}

Test(cuda, a_missing_clang_gives_the_clear_message) {
  const char *missing[] = {"/nonexistent/clang", "warpscope-no-such-clang"};
  for (size_t i = 0; i < 2; i++) {
    setenv("WS_CLANG", missing[i], 1);
    char *ptx = NULL;
    size_t len = 0;
    cr_expect_eq(ws_cuda_compile(ctx, CORPUS_DIR "/saxpy.cu", NULL, &ptx, &len), WS_ERR_IO);
    cr_expect(strstr(ws_errmsg(ctx), "CUDA C needs clang (Debian package clang)") != NULL, "%s",
              ws_errmsg(ctx));
    cr_expect(strstr(ws_errmsg(ctx), missing[i]) != NULL, "%s", ws_errmsg(ctx));
  }
  /* no WS_CLANG and an empty PATH: the message the brief names */
  unsetenv("WS_CLANG");
  setenv("PATH", tmp_dir, 1);
  char found[WS_CUDA_PATH_MAX_BYTES];
  cr_expect_eq(ws_cuda_find_clang(ctx, found, sizeof found), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), "CUDA C needs clang (Debian package clang): not found on PATH");
}

Test(cuda, clang_is_found_on_path_or_through_ws_clang) {
  char found[WS_CUDA_PATH_MAX_BYTES];
  cr_assert_eq(ws_cuda_find_clang(ctx, found, sizeof found), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(access(found, X_OK), 0, "%s", found);
  char again[WS_CUDA_PATH_MAX_BYTES];
  setenv("WS_CLANG", found, 1);
  cr_assert_eq(ws_cuda_find_clang(ctx, again, sizeof again), WS_OK);
  cr_expect_str_eq(again, found);
  cr_expect_eq(ws_cuda_find_clang(ctx, again, 4), WS_ERR_LIMIT);
}

Test(cuda, a_missing_source_is_an_io_error) {
  char *ptx = NULL;
  size_t len = 0;
  cr_expect_eq(ws_cuda_compile(ctx, "/nonexistent/k.cu", NULL, &ptx, &len), WS_ERR_IO);
  cr_expect(strstr(ws_errmsg(ctx), "/nonexistent/k.cu") != NULL);
}

/* Each device-side function of the headers becomes its instruction
 * (docs/cuda.md lists them): tests/ptx/data/device_api.cu calls them all. */
Test(cuda, every_header_function_becomes_its_instruction) {
  char *ptx = compile_ok("tests/ptx/data/device_api.cu", NULL);
  static const char *const want[] = {"bar.sync",
                                     "bar.red.popc.u32",
                                     "bar.red.and.pred",
                                     "bar.red.or.pred",
                                     "bar.warp.sync",
                                     "membar.cta",
                                     "membar.gl",
                                     "membar.sys",
                                     "shfl.sync.idx.b32",
                                     "shfl.sync.up.b32",
                                     "shfl.sync.down.b32",
                                     "shfl.sync.bfly.b32",
                                     "vote.sync.ballot.b32",
                                     "vote.sync.all.pred",
                                     "vote.sync.any.pred",
                                     "activemask.b32",
                                     "popc.b32",
                                     "clz.b32",
                                     "brev.b32",
                                     "atom.global.add.u32",
                                     "atom.global.add.u64",
                                     "atom.global.add.f32",
                                     "atom.global.add.f64",
                                     "atom.shared.add.u32",
                                     "atom.global.min.s32",
                                     "atom.global.min.u32",
                                     "atom.global.max.s32",
                                     "atom.global.max.u32",
                                     "atom.global.exch.b32",
                                     "atom.global.cas.b32",
                                     "atom.global.cas.b64",
                                     "atom.global.and.b32",
                                     "atom.global.or.b32",
                                     "atom.global.xor.b32",
                                     "atom.inc.u32",
                                     "atom.dec.u32",
                                     "ld.global.nc.f32",
                                     "ld.global.nc.u32",
                                     "ld.global.nc.v2.f32",
                                     "ld.global.nc.v4.f32",
                                     "ld.global.nc.v4.u32",
                                     "ex2.approx.f32",
                                     "lg2.approx.f32",
                                     "sin.approx.f32",
                                     "cos.approx.f32",
                                     "div.approx.f32",
                                     "rcp.rn.f32",
                                     "sqrt.rn.f32",
                                     "rsqrt.approx.f32",
                                     "tanh.approx.f32",
                                     "max.f32",
                                     "min.f32",
                                     "abs.f32",
                                     "cvt.rmi.f32.f32",
                                     "cvt.rpi.f32.f32",
                                     "cvt.rzi.f32.f32",
                                     "cvt.sat.f32.f32",
                                     "cvt.rni.s32.f32",
                                     "cvt.rzi.s32.f32",
                                     "%clock",
                                     "vprintf",
                                     "cvt.rn.f16.f32",
                                     "cvt.f32.f16",
                                     "cvt.rn.f16.s32",
                                     "cvt.rzi.s32.f16",
                                     "add.f16 ",
                                     "sub.f16 ",
                                     "mul.f16 ",
                                     "fma.rn.f16 ",
                                     "neg.f16",
                                     "max.f16",
                                     "min.f16",
                                     "add.f16x2",
                                     "sub.f16x2",
                                     "mul.f16x2",
                                     "fma.rn.f16x2",
                                     "max.f16x2",
                                     "min.f16x2",
                                     "neg.f16x2",
                                     "abs.f16x2",
                                     "abs.f16",
                                     "setp.le.f16",
                                     "setp.ge.f16",
                                     "setp.ne.f16",
                                     "setp.eq.f16",
                                     "setp.neu.f16",
                                     "setp.nan.f16",
                                     "fma.rn.bf16x2",
                                     "fma.rn.bf16 ",
                                     "max.bf16x2",
                                     "min.bf16x2",
                                     "neg.bf16x2",
                                     "abs.bf16x2",
                                     "setp.lt.bf16",
                                     "cp.async.cg.shared.global",
                                     "cp.async.commit_group",
                                     "cp.async.wait_group 1",
                                     "cp.async.wait_all",
                                     "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                                     "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                                     "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                                     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                                     "%tid.y",
                                     "%ctaid.z",
                                     "%ntid.x",
                                     "%nctaid.y"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_expect(strstr(ptx, want[i]) != NULL, "no %s in the PTX of device_api.cu", want[i]);
  /* nothing the translator could not see: no call into a library */
  cr_expect(strstr(ptx, "__nv_") == NULL);
  free(ptx);
}

static void expect_demangled(const char *mangled, const char *want) {
  char *got = ws_cuda_demangle(mangled);
  cr_assert_not_null(got);
  cr_expect_str_eq(got, want, "%s", mangled);
  free(got);
}

Test(cuda, kernel_names_demangle_without_their_parameters) {
  expect_demangled("_Z5saxpyifPKfPf", "saxpy");
  expect_demangled("_Z5saxpyifPfS_", "saxpy");
  expect_demangled("_Z9block_sumILi256EEvPKfPf", "block_sum<256>");
  expect_demangled("_Z9sgemm_regILi64ELi64ELi8ELi8ELi8EEviiifPKfS1_fPf", "sgemm_reg<64, 64, 8, 8, 8>");
  expect_demangled("_ZN2ns6kernelEPf", "ns::kernel");
  expect_demangled("_ZN12_GLOBAL__N_16kernelEPf", "(anonymous namespace)::kernel");
  expect_demangled("relu_plain", "relu_plain");
  expect_demangled("_Zoops", "_Zoops");
  expect_demangled("", "");
}

/* ---- the corpus ------------------------------------------------------------ */

/* The words after "// KEY:" in the file's header comment, into list. */
static size_t directive(const char *src, const char *key, char words[][64], size_t max) {
  const char *p = strstr(src, key);
  if (!p) return 0;
  p += strlen(key);
  size_t n = 0;
  while (n < max) {
    p += strspn(p, " \t");
    size_t len = strcspn(p, " \t\n");
    if (len == 0 || len >= 64) break;
    memcpy(words[n], p, len);
    words[n++][len] = '\0';
    p += len;
  }
  return n;
}

/* The sorted ".entry NAME(" names of a PTX text, joined by blanks. */
static void entries(const char *ptx, char *out, size_t n) {
  char names[32][128];
  size_t count = 0;
  for (const char *p = strstr(ptx, ".entry "); p && count < 32; p = strstr(p + 1, ".entry ")) {
    size_t len = strcspn(p + 7, "( \n");
    snprintf(names[count++], sizeof names[0], "%.*s", (int)len, p + 7);
  }
  qsort(names, count, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  out[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    strncat(out, names[i], n - strlen(out) - 1);
    strncat(out, " ", n - strlen(out) - 1);
  }
}

static void check_corpus_file(const char *name, size_t *kernels) {
  char cu[512], committed[512];
  snprintf(cu, sizeof cu, "%s/%s", CORPUS_DIR, name);
  snprintf(committed, sizeof committed, "%.*s.ptx", (int)(strlen(cu) - 3), cu);
  char *src = NULL, *old = NULL;
  size_t len = 0;
  cr_assert_eq(ws_file_read(ctx, cu, 1 << 20, "CUDA source", &src, &len), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect(strncmp(src, "// ", 3) == 0, "%s must open with a comment", name);
  cr_expect(strstr(src, "Launch:") != NULL && strstr(src, "Parameters:") != NULL, "%s: header comment", name);
  char inst[8][64], defs[8][64];
  const char *inst_p[8], *defs_p[8];
  size_t ni = directive(src, "// instantiate:", inst, 8), nd = directive(src, "// define:", defs, 8);
  for (size_t i = 0; i < 8; i++) inst_p[i] = inst[i], defs_p[i] = defs[i];
  ws_cuda_opts o = {.defines = defs_p, .ndefines = nd, .instantiate = inst_p, .ninstantiate = ni};
  char *ptx = compile_ok(cu, &o);
  const char *regen = getenv("WS_CUDA_REGEN_DIR");
  if (regen) {
    char out[512];
    snprintf(out, sizeof out, "%s/%.*s.ptx", regen, (int)(strlen(name) - 3), name);
    cr_assert_eq(ws_file_write_atomic(ctx, out, ptx, strlen(ptx)), WS_OK, "%s", ws_errmsg(ctx));
  }
  for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) (*kernels)++;
  /* regenerating: the committed file is about to be replaced */
  if (!regen)
    cr_assert_eq(ws_file_read(ctx, committed, 64 << 20, "PTX", &old, &len), WS_OK, "%s", ws_errmsg(ctx));
  char fresh_names[4096], old_names[4096];
  entries(ptx, fresh_names, sizeof fresh_names);
  entries(old ? old : ptx, old_names, sizeof old_names);
  cr_expect(fresh_names[0] != '\0', "%s: no kernel", name);
  cr_expect_str_eq(fresh_names, old_names, "%s: entries differ from the committed PTX", name);
  free(src);
  free(old);
  free(ptx);
}

Test(cuda, every_corpus_kernel_compiles_to_its_committed_entries, .timeout = 120) {
  DIR *d = opendir(CORPUS_DIR);
  cr_assert_not_null(d);
  struct dirent *e;
  size_t files = 0, kernels = 0;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".cu") != 0) continue;
    check_corpus_file(e->d_name, &kernels);
    files++;
  }
  closedir(d);
  cr_expect_geq(files, 15);
  cr_expect_geq(kernels, 15);
}
