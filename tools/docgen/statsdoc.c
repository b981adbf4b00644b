/* statsdoc.c - every registered counter pattern with its description. */
#include "tools/docgen/statsdoc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "isa/asm.h"
#include "sim/host/device.h"

/* One store: enough for the engine, the SMs and the whole memory hierarchy to
 * exist and register their counters. */
static const char probe_kernel[] = ".kernel probe\n.param .ptr out\n"
                                   "LDP.64 R2, [out]\nSTG.32 [R2], RZ\nEXIT\n";

/* "sm12.l1.hits" -> "sm<i>.l1.hits": the number ending a name component
 * that starts with an instance prefix (sm, slice, ch) becomes <i>; other
 * digits ("l1", "fp32") are part of the name. */
static void pattern_of(const char *name, char *out, size_t size) {
  static const char *const prefixes[] = {"sm", "slice", "ch"};
  size_t n = 0;
  const char *c = name;
  while (*c && n + 4 < size) {
    bool at_start = c == name || c[-1] == '.';
    size_t skip = 0;
    for (size_t p = 0; at_start && p < 3 && !skip; p++) {
      size_t len = strlen(prefixes[p]);
      if (strncmp(c, prefixes[p], len) == 0 && isdigit((unsigned char)c[len])) skip = len;
    }
    if (!skip) {
      out[n++] = *c++;
      continue;
    }
    memcpy(out + n, c, skip);
    memcpy(out + n + skip, "<i>", 3);
    n += skip + 3;
    for (c += skip; isdigit((unsigned char)*c); c++) continue;
  }
  out[n] = '\0';
}

static bool seen_before(const ws_stats *s, size_t upto, const char *pattern) {
  char other[128];
  for (size_t j = 0; j < upto; j++) {
    pattern_of(ws_stats_name(s, j), other, sizeof other);
    if (strcmp(other, pattern) == 0) return true;
  }
  return false;
}

static char *render(const ws_stats *s) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, "| counter | definition |\n|---|---|\n");
  char pattern[128];
  for (size_t i = 0; i < ws_stats_count(s); i++) {
    pattern_of(ws_stats_name(s, i), pattern, sizeof pattern);
    if (!seen_before(s, i, pattern)) ws_text_printf(&t, "| `%s` | %s |\n", pattern, ws_stats_desc(s, i));
  }
  return ws_text_take(&t);
}

static ws_status run_probe(ws_ctx *ctx, ws_device *dev, ws_program **prog) {
  ws_status st = ws_asm_parse(ctx, probe_kernel, sizeof probe_kernel - 1, "probe.wsa", prog);
  uint64_t out = 0;
  ws_args args;
  if (st == WS_OK) st = ws_device_malloc(dev, 4, &out);
  if (st == WS_OK) {
    ws_args_init(&args, &(*prog)->kernels[0]);
    st = ws_args_set_ptr(ctx, &args, "out", out);
  }
  ws_dim3 one = {1, 1, 1};
  if (st == WS_OK) st = ws_device_launch(dev, &(*prog)->kernels[0], one, one, 0, &args, NULL);
  return st;
}

char *ws_statsdoc_markdown(void) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  ws_device *dev = NULL;
  ws_program *prog = NULL;
  char *md = NULL;
  if (ctx && ws_config_load_preset(ctx, "classroom", &cfg) == WS_OK &&
      ws_device_create(ctx, &cfg, &dev) == WS_OK && run_probe(ctx, dev, &prog) == WS_OK)
    md = render(ws_device_stats(dev));
  ws_program_destroy(prog);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
  return md;
}
