/* wstrec.h - recording .wst traces of the shipped examples, for the suites
 * of traces/ and viz/: a temporary file, a writer that knows the device's
 * stall names set as the device's probe, the examples run and checked, the
 * commit. Header-only (static inline), so each suite stays one file. */
#ifndef WS_TEST_WSTREC_H
#define WS_TEST_WSTREC_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/runs/example.h"
#include "traces/wst.h"

/* Creates the file named by the template (XXXXXX replaced), empty. */
static inline void wstrec_tmpfile(char *path_template) {
  int fd = mkstemp(path_template);
  cr_assert_geq(fd, 0, "mkstemp %s", path_template);
  close(fd);
}

/* A device on preset `gpu`, with "section.key=value" overrides separated
 * by ';' (NULL: none). */
static inline ws_device *wstrec_device(ws_ctx *ctx, const char *gpu, const char *set) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, gpu, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  char buf[256];
  snprintf(buf, sizeof buf, "%s", set ? set : "");
  for (char *save = NULL, *one = strtok_r(buf, ";", &save); one; one = strtok_r(NULL, ";", &save))
    cr_assert_eq(ws_config_set(ctx, &cfg, one), WS_OK, "%s", ws_errmsg(ctx));
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
  return dev;
}

/* A writer into `path` for dev's GPU, with the stall names, set as dev's probe. */
static inline ws_wst_writer *wstrec_start(ws_ctx *ctx, ws_device *dev, const char *path,
                                          const ws_wst_filter *filter) {
  ws_wst_writer *w = NULL;
  cr_assert_eq(ws_wst_writer_create(ctx, path, ws_device_cfg(dev), filter, &w), WS_OK, "%s", ws_errmsg(ctx));
  const char *names[64];
  uint32_t n = ws_device_stall_count();
  cr_assert_leq(n, 64u);
  for (uint32_t i = 0; i < n; i++) names[i] = ws_device_stall_name(i);
  cr_assert_eq(ws_wst_writer_set_names(w, names, n), WS_OK);
  ws_device_set_probe(dev, ws_wst_writer_probe(w));
  return w;
}

/* Example `name` run `times` times on dev, each checked; the last check in *out (may be NULL). */
static inline void wstrec_run(ws_ctx *ctx, ws_device *dev, const char *name, const ws_example_shape *shape,
                              int times, ws_example_check *out) {
  ws_example_check check;
  for (int i = 0; i < times; i++) {
    cr_assert_eq(ws_example_run(dev, name, shape, &check), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert(check.pass, "%s: the result is right", name);
  }
  if (out) *out = check;
}

/* Commits the trace and frees the writer; the device's probe is cleared. */
static inline void wstrec_finish(ws_ctx *ctx, ws_device *dev, ws_wst_writer *w) {
  cr_assert_eq(ws_wst_writer_commit(w), WS_OK, "%s", ws_errmsg(ctx));
  ws_wst_writer_free(w);
  ws_device_set_probe(dev, NULL);
}

/* The whole of it: example `name` run `times` times on preset `gpu` into `path`. */
static inline void wstrec_example(ws_ctx *ctx, const char *path, const char *gpu, const char *name,
                                  const ws_example_shape *shape, int times) {
  ws_device *dev = wstrec_device(ctx, gpu, NULL);
  ws_wst_writer *w = wstrec_start(ctx, dev, path, NULL);
  wstrec_run(ctx, dev, name, shape, times, NULL);
  wstrec_finish(ctx, dev, w);
  ws_device_destroy(dev);
}

#endif
