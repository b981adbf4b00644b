/* cuda.c - the CUDA C driver (cuda.h): finds clang, writes the embedded
 * headers and, when templates are to be instantiated, a wrapping translation
 * unit into a private mkdtemp folder, runs clang there with posix_spawn and
 * reads the PTX back.
 *
 * Design: the folder is the only place anything is written, and it is
 * removed on every path out, so a compile leaves no trace beside the user's
 * file. Template instances are forced by a host function that takes each
 * instance's address: clang's device-side compilation emits every kernel a
 * host function refers to (a <<<>>> launch works the same way), and the
 * address needs no knowledge of the kernel's parameters. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "ptx/cuda.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/embedded.h"
#include "base/file.h"
#include "base/text.h"

extern char **environ;

/* The embedded ptx/include/ headers (cmake/embed.cmake). */
extern const ws_embedded_file ws_cuda_header_files[];
extern const size_t ws_cuda_header_files_count;

#define HEADER_PREFIX "ptx/include/"
#define PRELUDE_NAME "warpscope_prelude.h"
#define DEFAULT_ARCH "sm_80"
/* the diagnostics quoted in a message: what fits beside the message's own
 * words in WS_ERRMSG_MAX_BYTES (the first errors are the ones that matter) */
#define DIAG_QUOTE_MAX_BYTES 800
/* the diagnostics read from clang: more than is quoted, so the cut is known */
#define DIAG_READ_MAX_BYTES 65536
#define ARGV_MAX_COUNT 64
#define NOT_FOUND_MSG "CUDA C needs clang (Debian package clang)"

/* ---- finding clang ------------------------------------------------------- */

static bool is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `name` looked up in each folder of PATH, as execvp would. */
static bool search_path(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    size_t len = strcspn(path, ":");
    int w = snprintf(out, n, "%.*s/%s", (int)len, len ? path : ".", name);
    if (w > 0 && (size_t)w < n && is_executable_file(out)) return true;
    path += len + (path[len] == ':');
  }
  return false;
}

static ws_status find_named(ws_ctx *ctx, const char *clang, char *path, size_t n) {
  if (strchr(clang, '/')) {
    if (!is_executable_file(clang))
      return ws_ctx_fail(ctx, WS_ERR_IO, NOT_FOUND_MSG ": WS_CLANG=%s is not an executable file", clang);
    if (strlen(clang) >= n) return ws_ctx_fail(ctx, WS_ERR_LIMIT, "WS_CLANG: path too long");
    memcpy(path, clang, strlen(clang) + 1);
    return WS_OK;
  }
  if (!search_path(clang, path, n))
    return ws_ctx_fail(ctx, WS_ERR_IO, NOT_FOUND_MSG ": WS_CLANG=%s not found on PATH", clang);
  return WS_OK;
}

ws_status ws_cuda_find_clang(ws_ctx *ctx, char *path, size_t n) {
  const char *env = getenv("WS_CLANG");
  if (env && *env) return find_named(ctx, env, path, n);
  static const char *const names[] = {"clang", "clang-16", "clang-15", "clang-14"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (search_path(names[i], path, n)) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_IO, NOT_FOUND_MSG ": not found on PATH");
}

/* ---- checking the request ------------------------------------------------ */

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* "NAME" or "NAME=VALUE": NAME an identifier, VALUE on one line. */
static ws_status check_define(ws_ctx *ctx, const char *d) {
  const char *p = d;
  if (!is_ident_start(*p))
    return ws_ctx_fail(ctx, WS_ERR_USAGE,
                       "-D %s: NAME must be an identifier (usage: -D NAME or -D NAME=VALUE)", d);
  while (is_ident_char(*p)) p++;
  if (*p != '\0' && *p != '=')
    return ws_ctx_fail(ctx, WS_ERR_USAGE,
                       "-D %s: NAME must be an identifier (usage: -D NAME or -D NAME=VALUE)", d);
  if (strpbrk(p, "\r\n")) return ws_ctx_fail(ctx, WS_ERR_USAGE, "-D %s: the value must be on one line", d);
  return WS_OK;
}

/* A template-id: a qualified name, then <...> with balanced brackets and
 * nothing that could end the expression it is placed in. */
static ws_status check_instance(ws_ctx *ctx, const char *s) {
  const char *p = s;
  while (is_ident_start(*p)) {
    while (is_ident_char(*p)) p++;
    if (p[0] != ':' || p[1] != ':') break;
    p += 2;
  }
  bool named = p != s;
  int depth = 0;
  bool opened = false;
  for (; *p && !(opened && depth == 0); p++) {
    if (strchr(";{}\"'\\\r\n", *p)) break;
    if (*p == '<') depth++, opened = true;
    if (*p == '>') depth--;
  }
  if (!named || !opened || depth != 0 || *p != '\0')
    return ws_ctx_fail(ctx, WS_ERR_USAGE,
                       "instantiate %s: expected a template kernel such as sgemm<128,128,8>", s);
  return WS_OK;
}

static ws_status check_arch(ws_ctx *ctx, const char *arch) {
  const char *p = arch + (strncmp(arch, "sm_", 3) == 0 ? 3 : 0);
  if (p == arch || !isdigit((unsigned char)*p))
    return ws_ctx_fail(ctx, WS_ERR_USAGE, "arch %s: expected sm_NN, such as sm_80", arch);
  while (isdigit((unsigned char)*p)) p++;
  if (*p == 'a') p++;
  if (*p) return ws_ctx_fail(ctx, WS_ERR_USAGE, "arch %s: expected sm_NN, such as sm_80", arch);
  return WS_OK;
}

static ws_status check_opts(ws_ctx *ctx, const ws_cuda_opts *o) {
  for (size_t i = 0; i < o->ndefines; i++)
    if (check_define(ctx, o->defines[i]) != WS_OK) return ws_ctx_status(ctx);
  for (size_t i = 0; i < o->ninstantiate; i++)
    if (check_instance(ctx, o->instantiate[i]) != WS_OK) return ws_ctx_status(ctx);
  return o->arch ? check_arch(ctx, o->arch) : WS_OK;
}

/* ---- the private folder -------------------------------------------------- */

typedef struct workdir {
  char path[PATH_MAX];
  bool made;
} workdir;

static ws_status workdir_make(ws_ctx *ctx, workdir *w) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int len = snprintf(w->path, sizeof w->path, "%s/warpscope-cuda-XXXXXX", tmp);
  if (len < 0 || (size_t)len >= sizeof w->path) return ws_ctx_fail(ctx, WS_ERR_IO, "TMPDIR is too long");
  if (!mkdtemp(w->path))
    return ws_ctx_fail(ctx, WS_ERR_IO, "cannot create a temporary folder in %s: %s", tmp, strerror(errno));
  w->made = true;
  return WS_OK;
}

/* Removes a folder and everything in it without following links. */
static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char sub[PATH_MAX];
      struct stat st;
      if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub) continue;
      if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
        remove_tree(sub);
      else
        unlink(sub);
    }
    closedir(d);
  }
  rmdir(path);
}

static void workdir_remove(workdir *w) {
  if (w->made) remove_tree(w->path);
  w->made = false;
}

/* dir/name, refusing what does not fit. */
static ws_status join(ws_ctx *ctx, char *out, size_t n, const char *dir, const char *name) {
  int len = snprintf(out, n, "%s/%s", dir, name);
  if (len < 0 || (size_t)len >= n) return ws_ctx_fail(ctx, WS_ERR_IO, "%s/%s: path too long", dir, name);
  return WS_OK;
}

/* A new file (O_EXCL: nothing there is overwritten) holding `text`. */
static ws_status write_new(ws_ctx *ctx, const char *path, const char *text, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", path, strerror(errno));
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(fd);
      return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", path, strerror(errno));
    }
    done += (size_t)w;
  }
  if (close(fd) != 0) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", path, strerror(errno));
  return WS_OK;
}

/* The embedded headers into dir/include/ (flat: ptx/include/ has no folders). */
static ws_status write_headers(ws_ctx *ctx, const char *dir) {
  char inc[PATH_MAX], path[PATH_MAX];
  if (join(ctx, inc, sizeof inc, dir, "include") != WS_OK) return ws_ctx_status(ctx);
  if (mkdir(inc, 0700) != 0) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", inc, strerror(errno));
  for (size_t i = 0; i < ws_cuda_header_files_count; i++) {
    const ws_embedded_file *f = &ws_cuda_header_files[i];
    if (strncmp(f->path, HEADER_PREFIX, strlen(HEADER_PREFIX)) != 0) continue;
    if (join(ctx, path, sizeof path, inc, f->path + strlen(HEADER_PREFIX)) != WS_OK)
      return ws_ctx_status(ctx);
    if (write_new(ctx, path, f->text, f->size_bytes) != WS_OK) return ws_ctx_status(ctx);
  }
  return WS_OK;
}

/* ---- the instantiating translation unit ---------------------------------- */

/* How the wrapper names the user's file in its #include: the absolute path
 * when it can be spelled between double quotes (an #include name has no
 * escapes), else a link to it in the folder. *iquote gets the file's folder
 * in the second case, so its own #include "x.h" lines still resolve. */
static ws_status include_name(ws_ctx *ctx, const char *cu_path, const char *dir, char *name, size_t n,
                              char *iquote, size_t iq_n) {
  char real[PATH_MAX];
  iquote[0] = '\0';
  if (!realpath(cu_path, real)) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", cu_path, strerror(errno));
  if (!strpbrk(real, "\"\n")) {
    if (strlen(real) >= n) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: path too long", cu_path);
    memcpy(name, real, strlen(real) + 1);
    return WS_OK;
  }
  if (join(ctx, name, n, dir, "source.cu") != WS_OK) return ws_ctx_status(ctx);
  if (symlink(real, name) != 0) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", name, strerror(errno));
  char *slash = strrchr(real, '/');
  slash[slash == real] = '\0'; /* "/x.cu" keeps its folder "/" */
  if (strlen(real) >= iq_n) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: path too long", cu_path);
  memcpy(iquote, real, strlen(real) + 1);
  return WS_OK;
}

/* dir/instances.cu: the user's file, then one unused host function per
 * request that takes the instance's address. */
static ws_status write_instances(ws_ctx *ctx, const char *dir, const char *include, const ws_cuda_opts *o,
                                 char *out, size_t n) {
  ws_text t;
  ws_text_init(&t);
  ws_text_printf(&t, "#include \"%s\"\n\n", include);
  for (size_t i = 0; i < o->ninstantiate; i++)
    ws_text_printf(&t, "static void __attribute__((unused)) ws_instantiate_%zu(void) { (void)&%s; }\n", i,
                   o->instantiate[i]);
  char *text = ws_text_take(&t);
  if (!text) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory");
  ws_status st = join(ctx, out, n, dir, "instances.cu");
  if (st == WS_OK) st = write_new(ctx, out, text, strlen(text));
  free(text);
  return st;
}

/* ---- running clang ------------------------------------------------------- */

typedef struct argv_list {
  char *items[ARGV_MAX_COUNT + 1];
  size_t count;
  bool failed;
} argv_list;

static void arg_add(argv_list *a, const char *s) {
  char *copy = a->count < ARGV_MAX_COUNT ? strdup(s) : NULL;
  if (!copy) {
    a->failed = true;
    return;
  }
  a->items[a->count++] = copy;
  a->items[a->count] = NULL;
}

static void arg_addf(argv_list *a, const char *fmt, const char *s1, const char *s2) {
  char buf[2 * PATH_MAX + 64];
  int len = snprintf(buf, sizeof buf, fmt, s1, s2);
  if (len < 0 || (size_t)len >= sizeof buf)
    a->failed = true;
  else
    arg_add(a, buf);
}

static void argv_free(argv_list *a) {
  for (size_t i = 0; i < a->count; i++) free(a->items[i]);
  a->count = 0;
}

/* The command: clang's own CUDA device-only mode with the project's headers
 * in place of the toolkit's. +ptx70: with no toolkit clang assumes an old
 * PTX version and refuses the *_sync warp builtins; PTX ISA 7.0 is what
 * sm_80 (cp.async, m16n8k16) needs. The prefix map keeps the temporary
 * folder's random name out of the PTX's .file lines, so the output is the
 * same on every run. */
static void build_argv(argv_list *a, const char *clang, const char *dir, const char *user_path,
                       const char *input, const char *iquote, const ws_cuda_opts *o, const char *out) {
  arg_add(a, clang);
  const char *fixed[] = {"-x", "cuda", "--cuda-device-only", NULL};
  for (size_t i = 0; fixed[i]; i++) arg_add(a, fixed[i]);
  arg_addf(a, "--cuda-gpu-arch=%s%s", o->arch ? o->arch : DEFAULT_ARCH, "");
  const char *flags[] = {"-nocudainc",
                         "-nocudalib",
                         "-O3",
                         "-S",
                         "-gline-tables-only",
                         "-Wno-unknown-cuda-version",
                         "-Xclang",
                         "-target-feature",
                         "-Xclang",
                         "+ptx70",
                         "-fdebug-compilation-dir=.",
                         NULL};
  for (size_t i = 0; flags[i]; i++) arg_add(a, flags[i]);
  arg_addf(a, "-fdebug-prefix-map=%s=%s", dir, "warpscope");
  /* the wrapper of an instantiation includes the source by its absolute
   * path; its .file line names it relative to here, as a direct compile does */
  char cwd[PATH_MAX];
  if (input != user_path && user_path[0] != '/' && getcwd(cwd, sizeof cwd))
    arg_addf(a, "-fdebug-prefix-map=%s/=%s", cwd, "");
  arg_add(a, "-I");
  arg_addf(a, "%s/%s", dir, "include");
  arg_add(a, "-include");
  arg_addf(a, "%s/include/%s", dir, PRELUDE_NAME);
  if (iquote[0]) arg_add(a, "-iquote"), arg_add(a, iquote);
  for (size_t i = 0; i < o->ndefines; i++) arg_add(a, "-D"), arg_add(a, o->defines[i]);
  /* a name starting with '-' would read as an option */
  arg_addf(a, "%s%s", input[0] == '-' ? "./" : "", input);
  arg_add(a, "-o");
  arg_add(a, out);
}

/* Reads the child's stderr to its end, keeping the first `cap` bytes. */
static void drain(int fd, ws_text *diag, size_t cap) {
  char buf[4096];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t room = diag->len < cap ? cap - diag->len : 0;
    ws_text_append(diag, buf, (size_t)r < room ? (size_t)r : room);
  }
}

static int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

/* Runs argv with stdin from /dev/null, stdout and stderr into `diag`;
 * *status gets the wait status. */
static ws_status spawn_and_wait(ws_ctx *ctx, char *const argv[], ws_text *diag, int *status) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return ws_ctx_fail(ctx, WS_ERR_IO, "pipe: %s", strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&fa, pipe_fds[1]);
  pid_t pid;
  int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipe_fds[1]);
  if (err != 0) {
    close(pipe_fds[0]);
    return ws_ctx_fail(ctx, WS_ERR_IO, NOT_FOUND_MSG ": cannot run %s: %s", argv[0], strerror(err));
  }
  drain(pipe_fds[0], diag, DIAG_READ_MAX_BYTES);
  close(pipe_fds[0]);
  *status = wait_child(pid);
  return WS_OK;
}

/* clang's failure as the message: its diagnostics verbatim, cut to fit. */
static ws_status report_failure(ws_ctx *ctx, const char *cu_path, int status, const ws_text *diag) {
  const char *text = diag->buf ? diag->buf : "";
  size_t len = diag->len;
  const char *cut = len > DIAG_QUOTE_MAX_BYTES ? "\n[... clang's further diagnostics cut]" : "";
  if (len > DIAG_QUOTE_MAX_BYTES) len = DIAG_QUOTE_MAX_BYTES;
  while (len > 0 && text[len - 1] == '\n') len--;
  if (status == -1 || !WIFEXITED(status))
    return ws_ctx_fail(ctx, WS_ERR_IO, "%s: clang did not finish (killed by a signal)\n%.*s%s", cu_path,
                       (int)len, text, cut);
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: clang failed (exit %d):\n%.*s%s", cu_path, WEXITSTATUS(status),
                     (int)len, text, cut);
}

static ws_status run_clang(ws_ctx *ctx, const char *cu_path, char *const argv[]) {
  ws_text diag;
  ws_text_init(&diag);
  int status = 0;
  ws_status st = spawn_and_wait(ctx, argv, &diag, &status);
  if (st == WS_OK && !(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
    st = report_failure(ctx, cu_path, status, &diag);
  ws_text_free(&diag);
  return st;
}

/* ---- compiling ----------------------------------------------------------- */

static ws_status compile_in(ws_ctx *ctx, const char *clang, const char *dir, const char *cu_path,
                            const ws_cuda_opts *o, char **ptx_text, size_t *ptx_len) {
  char input[PATH_MAX], iquote[PATH_MAX] = "", out[PATH_MAX];
  if (write_headers(ctx, dir) != WS_OK) return ws_ctx_status(ctx);
  if (join(ctx, out, sizeof out, dir, "out.ptx") != WS_OK) return ws_ctx_status(ctx);
  const char *source = cu_path;
  if (o->ninstantiate > 0) {
    char name[PATH_MAX];
    if (include_name(ctx, cu_path, dir, name, sizeof name, iquote, sizeof iquote) != WS_OK ||
        write_instances(ctx, dir, name, o, input, sizeof input) != WS_OK)
      return ws_ctx_status(ctx);
    source = input;
  }
  argv_list a = {.count = 0};
  build_argv(&a, clang, dir, cu_path, source, iquote, o, out);
  ws_status st = a.failed ? ws_ctx_fail(ctx, WS_ERR_NOMEM, "clang's command line: out of memory or too long")
                          : run_clang(ctx, cu_path, a.items);
  argv_free(&a);
  if (st != WS_OK) return st;
  return ws_file_read(ctx, out, WS_FILE_TEXT_MAX_BYTES, "PTX", ptx_text, ptx_len);
}

ws_status ws_cuda_compile(ws_ctx *ctx, const char *cu_path, const ws_cuda_opts *opts, char **ptx_text,
                          size_t *ptx_len) {
  static const ws_cuda_opts none = {0};
  const ws_cuda_opts *o = opts ? opts : &none;
  char clang[WS_CUDA_PATH_MAX_BYTES];
  if (check_opts(ctx, o) != WS_OK) return ws_ctx_status(ctx);
  if (access(cu_path, R_OK) != 0) return ws_ctx_fail(ctx, WS_ERR_IO, "%s: %s", cu_path, strerror(errno));
  if (ws_cuda_find_clang(ctx, clang, sizeof clang) != WS_OK) return ws_ctx_status(ctx);
  workdir w = {.made = false};
  if (workdir_make(ctx, &w) != WS_OK) return ws_ctx_status(ctx);
  ws_status st = compile_in(ctx, clang, w.path, cu_path, o, ptx_text, ptx_len);
  workdir_remove(&w);
  return st;
}

/* ---- kernel names -------------------------------------------------------- */

/* libstdc++'s demangler (the Itanium C++ ABI's), declared here because its
 * header is C++: the build links stdc++ into this layer. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* The index just past the name in a demangled signature: the start of the
 * last top-level parameter list ("void k<1>(float*)" -> before "("). */
static size_t name_end(const char *s, size_t len) {
  int depth = 0;
  for (size_t i = len; i > 0; i--) {
    char c = s[i - 1];
    if (c == ')' || c == '>') depth++;
    if (c == '(' || c == '<') depth--;
    if (c == '(' && depth == 0) return i - 1;
  }
  return len;
}

/* The index where the name starts: after the return type of a template
 * function ("void k<1>"), skipping blanks inside brackets and parentheses
 * ("(anonymous namespace)::k"). */
static size_t name_start(const char *s, size_t end) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < end; i++) {
    if (s[i] == '(' || s[i] == '<') depth++;
    if (s[i] == ')' || s[i] == '>') depth--;
    if (s[i] == ' ' && depth == 0) start = i + 1;
  }
  return start;
}

char *ws_cuda_demangle(const char *mangled) {
  int status = -1;
  char *full = strncmp(mangled, "_Z", 2) == 0 ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
  if (!full || status != 0) {
    free(full);
    return strdup(mangled);
  }
  size_t end = name_end(full, strlen(full));
  size_t start = name_start(full, end);
  memmove(full, full + start, end - start);
  full[end - start] = '\0';
  return full;
}
