/* test_file.c - whole-file reads and all-or-nothing writes (base/file.h).
 * Reads: the exact bytes come back with a NUL after them, past the reader's
 * first 64 KiB buffer too; failures are WS_ERR_IO with a message naming the
 * path and the system's reason, and leave the output untouched. Writes: the
 * target gets exactly the bytes, an existing file is replaced, no PATH.tmp.PID
 * is left behind on success or on failure, and a failed rename leaves the
 * target as it was. (The header promises nothing about symlinks or device
 * nodes, so neither is tested.) Every file lives in a fresh mkdtemp folder. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"

static ws_ctx *ctx;
static char dir[64];

static void setup(void) {
  ctx = ws_ctx_create();
  snprintf(dir, sizeof dir, "/tmp/ws_test_file.XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    remove(path);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    remove_tree(sub);
  }
  closedir(d);
  rmdir(path);
}

static void teardown(void) {
  remove_tree(dir);
  ws_ctx_destroy(ctx);
}

TestSuite(file, .init = setup, .fini = teardown);

static void in_dir(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", dir, name); }

static void put(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, n, f), n);
  cr_assert_eq(fclose(f), 0);
}

/* The names in the test folder, sorted is not needed: counts and a search. */
static size_t entries(const char *needle, size_t *matching) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  size_t n = 0;
  *matching = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    n++;
    if (strstr(e->d_name, needle)) (*matching)++;
  }
  closedir(d);
  return n;
}

Test(file, read_returns_the_bytes_with_a_nul_after_them) {
  char path[128];
  in_dir(path, sizeof path, "small.bin");
  static const char bytes[5] = {'a', 'b', '\0', 'c', 'd'}; /* an inner NUL is kept */
  put(path, bytes, sizeof bytes);
  char *data = NULL;
  size_t size = 99;
  cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect_eq(size, 5);
  cr_expect_eq(memcmp(data, bytes, 5), 0);
  cr_expect_eq(data[5], '\0');
  free(data);
}

Test(file, read_of_an_empty_file_is_an_empty_string) {
  char path[128];
  in_dir(path, sizeof path, "empty");
  put(path, "", 0);
  char *data = NULL;
  size_t size = 99;
  cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_expect_eq(size, 0);
  cr_assert_not_null(data);
  cr_expect_str_eq(data, "");
  free(data);
}

/* 65536 bytes fill the first buffer exactly (the reader must grow and find
 * the end); 200000 bytes need two doublings (64 -> 128 -> 256 KiB). The byte
 * at i is i % 251, so a chunk read twice or skipped shows. */
Test(file, read_past_the_first_buffer) {
  static const size_t sizes[] = {65536, 200000};
  for (size_t s = 0; s < 2; s++) {
    size_t n = sizes[s];
    unsigned char *bytes = malloc(n);
    cr_assert_not_null(bytes);
    for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(i % 251);
    char path[128];
    in_dir(path, sizeof path, "big.bin");
    put(path, bytes, n);
    char *data = NULL;
    size_t size = 0;
    cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK, "%s",
                 ws_errmsg(ctx));
    cr_expect_eq(size, n);
    cr_expect_eq(memcmp(data, bytes, n), 0, "%zu bytes differ", n);
    cr_expect_eq(data[n], '\0');
    free(data);
    free(bytes);
  }
}

/* A judge that refuses a head of zero bytes, and remembers what it saw. */
static size_t judged_bytes;
static bool judged_whole;
static ws_status no_zeros(ws_ctx *c, const char *path, const void *head, size_t n, bool whole) {
  judged_bytes = n;
  judged_whole = whole;
  const unsigned char *p = head;
  return n && p[0] == 0 ? ws_ctx_fail(c, WS_ERR_INVALID, "%s: starts with a zero", path) : WS_OK;
}

Test(file, a_judge_refuses_a_stream_from_its_first_bytes) {
  char *data = NULL;
  size_t n = 0;
  /* /dev/zero never ends: without the judge it would be read to the cap */
  cr_expect_eq(ws_file_read_judged(ctx, "/dev/zero", (size_t)1 << 30, "test data", no_zeros, &data, &n),
               WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "/dev/zero: starts with a zero");
  cr_expect_eq(judged_bytes, (size_t)1 << 16, "the first read only");
  cr_expect_not(judged_whole);
  cr_expect_null(data);
  char path[128];
  in_dir(path, sizeof path, "ok.bin");
  put(path, "abc", 3);
  cr_assert_eq(ws_file_read_judged(ctx, path, 100, "test data", no_zeros, &data, &n), WS_OK);
  cr_expect_eq(n, 3);
  cr_expect(judged_whole, "a short file is judged whole");
  cr_expect_eq(judged_bytes, 3);
  free(data);
}

Test(file, read_of_an_absent_file_names_the_path) {
  char path[128], want[256];
  in_dir(path, sizeof path, "absent.txt");
  snprintf(want, sizeof want, "cannot open '%s': %s", path, strerror(ENOENT));
  char *data = (char *)"untouched";
  size_t size = 7;
  cr_expect_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  cr_expect_str_eq(data, "untouched");
  cr_expect_eq(size, 7);
}

/* fopen succeeds on a folder on Linux; the first fread fails with EISDIR. */
Test(file, read_of_a_folder_fails_at_the_read) {
  char want[256];
  snprintf(want, sizeof want, "cannot read '%s': %s", dir, strerror(EISDIR));
  char *data = NULL;
  size_t size = 7;
  cr_expect_eq(ws_file_read(ctx, dir, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  cr_expect_null(data);
  cr_expect_eq(size, 7);
}

Test(file, write_creates_the_file_and_leaves_no_temporary) {
  char path[128];
  in_dir(path, sizeof path, "out.bin");
  static const char bytes[4] = {1, 0, 2, 3};
  cr_assert_eq(ws_file_write_atomic(ctx, path, bytes, 4), WS_OK, "%s", ws_errmsg(ctx));
  char *data = NULL;
  size_t size = 0;
  cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK);
  cr_expect_eq(size, 4);
  cr_expect_eq(memcmp(data, bytes, 4), 0);
  free(data);
  size_t tmp = 0;
  cr_expect_eq(entries(".tmp.", &tmp), 1, "only out.bin is in the folder");
  cr_expect_eq(tmp, 0);
}

Test(file, write_replaces_an_existing_file_whole) {
  char path[128];
  in_dir(path, sizeof path, "out.txt");
  put(path, "a much longer previous content", 30);
  cr_assert_eq(ws_file_write_atomic(ctx, path, "new", 3), WS_OK, "%s", ws_errmsg(ctx));
  char *data = NULL;
  size_t size = 0;
  cr_assert_eq(ws_file_read(ctx, path, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK);
  cr_expect_eq(size, 3, "no tail of the old content remains");
  cr_expect_str_eq(data, "new");
  free(data);
  size_t tmp = 0;
  cr_expect_eq(entries(".tmp.", &tmp), 1);
  cr_expect_eq(tmp, 0);
}

Test(file, write_of_nothing_makes_an_empty_file) {
  char path[128];
  in_dir(path, sizeof path, "empty.out");
  cr_assert_eq(ws_file_write_atomic(ctx, path, "", 0), WS_OK, "%s", ws_errmsg(ctx));
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_expect_eq(st.st_size, 0);
}

/* The temporary beside the target cannot be created: the message names the
 * file the user asked for. */
Test(file, write_into_a_missing_folder_names_the_target) {
  char path[128], want[512];
  in_dir(path, sizeof path, "nodir/out.bin");
  snprintf(want, sizeof want, "cannot create '%s': %s", path, strerror(ENOENT));
  cr_expect_eq(ws_file_write_atomic(ctx, path, "x", 1), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  size_t tmp = 0;
  cr_expect_eq(entries(".tmp.", &tmp), 0, "nothing was created");
}

/* A folder is refused before a temporary is made: nothing is left behind
 * and the folder (the previous target) keeps its content. */
Test(file, failed_rename_removes_the_temporary_and_keeps_the_target) {
  char path[128], inner[160], want[512];
  in_dir(path, sizeof path, "target");
  cr_assert_eq(mkdir(path, 0700), 0);
  snprintf(inner, sizeof inner, "%s/kept", path);
  put(inner, "kept", 4);
  snprintf(want, sizeof want, "cannot write '%s': it is a directory, not a regular file, device or pipe",
           path);
  cr_expect_eq(ws_file_write_atomic(ctx, path, "x", 1), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  size_t tmp = 0;
  cr_expect_eq(entries(".tmp.", &tmp), 1, "only the target folder remains");
  cr_expect_eq(tmp, 0);
  char *data = NULL;
  size_t size = 0;
  cr_assert_eq(ws_file_read(ctx, inner, WS_FILE_TEXT_MAX_BYTES, "test input", &data, &size), WS_OK);
  cr_expect_str_eq(data, "kept");
  free(data);
}

/* PATH.tmp.PID must fit in 4096 bytes; a 4090-byte path cannot. The message
 * is cut at WS_ERRMSG_MAX_BYTES, so only its start is compared. */
Test(file, write_refuses_a_path_too_long_for_the_temporary) {
  char *path = malloc(4091);
  cr_assert_not_null(path);
  memset(path, 'a', 4090);
  path[4090] = '\0';
  cr_expect_eq(ws_file_write_atomic(ctx, path, "x", 1), WS_ERR_IO);
  const char *msg = ws_errmsg(ctx);
  cr_expect_eq(strncmp(msg, "output path too long: 'aaaa", 27), 0, "%s", msg);
  free(path);
}

/* The cap: a regular file is judged by its size before it is read; exactly
 * the cap is read, one byte more is refused naming the path, the cap and the
 * kind; a cap that is not whole MiB is stated in bytes. */
Test(file, read_refuses_a_file_over_its_cap_before_reading_it) {
  char path[128];
  in_dir(path, sizeof path, "big.bin");
  size_t mib = 1u << 20;
  char *bytes = calloc(mib + 1, 1);
  cr_assert_not_null(bytes);
  put(path, bytes, mib + 1);
  free(bytes);
  char *data = (char *)1;
  size_t size = 7;
  cr_expect_eq(ws_file_read(ctx, path, mib, "test data", &data, &size), WS_ERR_INVALID);
  char want[256];
  snprintf(want, sizeof want, "%s: larger than the 1 MiB limit for test data", path);
  cr_expect_str_eq(ws_errmsg(ctx), want);
  cr_expect_eq(data, (char *)1, "the output is untouched");
  cr_expect_eq(size, 7);
  cr_assert_eq(ws_file_read(ctx, path, mib + 1, "test data", &data, &size), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(size, mib + 1);
  free(data);
  cr_expect_eq(ws_file_read(ctx, path, 1000, "test data", &data, &size), WS_ERR_INVALID);
  snprintf(want, sizeof want, "%s: larger than the 1000-byte limit for test data", path);
  cr_expect_str_eq(ws_errmsg(ctx), want);
}

/* A device has no size: it is read to cap + 1 bytes and refused, so an
 * endless one ends. */
Test(file, read_stops_an_endless_device_one_byte_past_the_cap) {
  char *data = (char *)1;
  size_t size = 7;
  cr_expect_eq(ws_file_read(ctx, "/dev/zero", (size_t)3 << 20, "test data", &data, &size), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "/dev/zero: larger than the 3 MiB limit for test data");
  cr_expect_eq(data, (char *)1);
  cr_expect_eq(ws_file_read(ctx, "/dev/zero", 0, "test data", &data, &size), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "/dev/zero: larger than the 0-byte limit for test data");
  cr_assert_eq(ws_file_read(ctx, "/dev/null", 0, "test data", &data, &size), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(size, 0);
  cr_expect_eq(data[0], '\0');
  free(data);
}

/* ---- outputs never destroy what they point at ------------------------------------- */

Test(file, a_write_through_a_symlink_updates_its_target_and_keeps_the_link) {
  char target[128], link[128];
  in_dir(target, sizeof target, "target.bin");
  in_dir(link, sizeof link, "link.bin");
  put(target, "old", 3);
  cr_assert_eq(symlink("target.bin", link), 0, "%s", strerror(errno));
  cr_assert_eq(ws_file_write_atomic(ctx, link, "new!", 4), WS_OK, "%s", ws_errmsg(ctx));
  struct stat sb;
  cr_assert_eq(lstat(link, &sb), 0);
  cr_expect(S_ISLNK(sb.st_mode), "the link is still a link");
  char *data = NULL;
  size_t n = 0;
  cr_assert_eq(ws_file_read(ctx, target, 1 << 20, "test data", &data, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(n, 4);
  cr_expect_str_eq(data, "new!");
  free(data);
  size_t tmps = 0;
  entries(".tmp.", &tmps);
  cr_expect_eq(tmps, 0, "no temporary file is left");
}

Test(file, a_character_device_is_written_in_place_not_replaced) {
  struct stat before, after;
  cr_assert_eq(stat("/dev/null", &before), 0);
  cr_assert_eq(ws_file_write_atomic(ctx, "/dev/null", "xyz", 3), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(stat("/dev/null", &after), 0);
  cr_expect(S_ISCHR(after.st_mode), "/dev/null is still a character device");
  cr_expect_eq(before.st_rdev, after.st_rdev);
}

Test(file, a_pipe_is_written_in_place) {
  char fifo[128];
  in_dir(fifo, sizeof fifo, "fifo");
  cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
  pid_t child = fork();
  cr_assert_neq(child, -1);
  if (child == 0) { /* the reader: counts what arrives */
    FILE *f = fopen(fifo, "rb");
    char buf[16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    _exit(n == 5 && memcmp(buf, "hello", 5) == 0 ? 0 : 1);
  }
  cr_expect_eq(ws_file_write_atomic(ctx, fifo, "hello", 5), WS_OK, "%s", ws_errmsg(ctx));
  int status = 0;
  cr_assert_eq(waitpid(child, &status, 0), child);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader got the five bytes");
  struct stat sb;
  cr_assert_eq(lstat(fifo, &sb), 0);
  cr_expect(S_ISFIFO(sb.st_mode), "the pipe is still a pipe");
}

Test(file, a_directory_or_an_empty_name_is_refused) {
  cr_expect_eq(ws_file_write_atomic(ctx, dir, "x", 1), WS_ERR_IO);
  cr_expect(strstr(ws_errmsg(ctx), "it is a directory, not a regular file, device or pipe"), "%s",
            ws_errmsg(ctx));
  cr_expect_eq(ws_file_write_atomic(ctx, "", "x", 1), WS_ERR_IO);
  cr_expect_str_eq(ws_errmsg(ctx), "an output needs a file name");
}

/* Outputs of one command are all written or none: a second output that
 * cannot be created leaves the first file as it was, and no temporary. */
Test(file, a_batch_that_fails_changes_nothing) {
  char first[128], second[128];
  in_dir(first, sizeof first, "first.bin");
  in_dir(second, sizeof second, "nodir/second.bin");
  put(first, "old", 3);
  ws_file_batch b;
  ws_file_batch_init(&b);
  cr_expect_eq(ws_file_batch_add(ctx, &b, first, "new!", 4), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_add(ctx, &b, second, "x", 1), WS_ERR_IO);
  ws_file_batch_free(&b);
  char *data = NULL;
  size_t n = 0;
  cr_assert_eq(ws_file_read(ctx, first, 1 << 20, "test data", &data, &n), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_str_eq(data, "old");
  free(data);
  size_t tmps = 0;
  entries(".tmp.", &tmps);
  cr_expect_eq(tmps, 0);
}

Test(file, a_batch_commits_every_output_and_refuses_one_file_twice) {
  char a[128], b_path[128], link[128];
  in_dir(a, sizeof a, "a.bin");
  in_dir(b_path, sizeof b_path, "b.bin");
  in_dir(link, sizeof link, "a-link.bin");
  cr_assert_eq(symlink("a.bin", link), 0);
  put(a, "0", 1);
  ws_file_batch b;
  ws_file_batch_init(&b);
  cr_expect_eq(ws_file_batch_add(ctx, &b, a, "aa", 2), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_add(ctx, &b, link, "zz", 2), WS_ERR_INVALID, "the link names a.bin again");
  cr_expect(strstr(ws_errmsg(ctx), "a-link.bin' is written twice by one command"), "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_add(ctx, &b, b_path, "bbb", 3), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_add(ctx, &b, "/dev/null", "ignored", 7), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_commit(ctx, &b), WS_OK, "%s", ws_errmsg(ctx));
  ws_file_batch_free(&b);
  char *data = NULL;
  size_t n = 0;
  cr_assert_eq(ws_file_read(ctx, a, 1 << 20, "test data", &data, &n), WS_OK);
  cr_expect_str_eq(data, "aa");
  free(data);
  cr_assert_eq(ws_file_read(ctx, b_path, 1 << 20, "test data", &data, &n), WS_OK);
  cr_expect_str_eq(data, "bbb");
  free(data);
}

/* What was added is kept by the batch: the caller's buffer may be freed
 * before commit, for files (written at add) and devices (copied). */
Test(file, a_batch_needs_no_caller_buffer_at_commit) {
  char path[128];
  in_dir(path, sizeof path, "late.bin");
  char *data = strdup("late data");
  ws_file_batch b;
  ws_file_batch_init(&b);
  cr_expect_eq(ws_file_batch_add(ctx, &b, path, data, 9), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_file_batch_add(ctx, &b, "/dev/null", data, 9), WS_OK, "%s", ws_errmsg(ctx));
  memset(data, 'x', 9);
  free(data);
  cr_expect_eq(ws_file_batch_commit(ctx, &b), WS_OK, "%s", ws_errmsg(ctx));
  ws_file_batch_free(&b);
  char *back = NULL;
  size_t n = 0;
  cr_assert_eq(ws_file_read(ctx, path, 1 << 20, "test data", &back, &n), WS_OK);
  cr_expect_str_eq(back, "late data");
  free(back);
}
