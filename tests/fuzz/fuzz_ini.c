/* fuzz_ini.c - libFuzzer target for the preset loader.
 *
 * Arbitrary bytes go through ws_config_load_text (inih, the key table and
 * every load-time rule); it must return without crashing, hanging or
 * leaking, and a failure must carry a "FILE[:LINE[:COL]]: error:" message of
 * printable ASCII only, whatever bytes the input holds. When the bytes load,
 * the config must validate again and survive a round trip: every key
 * written back as INI text (what `warpscope gpus show` prints) loads to the
 * same config. Any violation abort()s, which libFuzzer reports as a
 * finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "sim/common/config.h"

#define FILE_NAME "fuzz.ini"

static void check_message(const ws_ctx *ctx, ws_status st) {
  const char *msg = ws_errmsg(ctx);
  if (st == WS_ERR_NOMEM) return;
  bool located = strncmp(msg, FILE_NAME, strlen(FILE_NAME)) == 0 && strstr(msg, ": error: ");
  bool printable = true;
  for (const char *p = msg; *p; p++) printable &= *p >= 0x20 && *p < 0x7f;
  if (st == WS_ERR_INVALID && located && printable) return;
  fprintf(stderr, "unexpected failure %d: %s\n", (int)st, msg);
  abort();
}

/* The config as INI text, one `key = value` per table entry. */
static char *write_ini(const ws_gpu_cfg *cfg) {
  ws_text t;
  ws_text_init(&t);
  const char *section = "";
  for (size_t i = 0; i < ws_config_key_count(); i++) {
    const ws_cfg_key *k = ws_config_key(i);
    if (strcmp(k->section, section) != 0) ws_text_printf(&t, "[%s]\n", section = k->section);
    char value[256];
    ws_config_format(cfg, k, value, sizeof value);
    ws_text_printf(&t, "%s = %s\n", k->key, value);
  }
  return ws_text_take(&t);
}

static void check_round_trip(ws_ctx *ctx, const ws_gpu_cfg *cfg) {
  if (ws_config_validate(ctx, cfg, FILE_NAME) != WS_OK) {
    fprintf(stderr, "a loaded config does not validate: %s\n", ws_errmsg(ctx));
    abort();
  }
  char *text = write_ini(cfg);
  if (!text) abort();
  ws_gpu_cfg again;
  if (ws_config_load_text(ctx, text, strlen(text), "written.ini", &again) != WS_OK) {
    fprintf(stderr, "the written config does not load: %s\n%s", ws_errmsg(ctx), text);
    abort();
  }
  if (memcmp(cfg, &again, sizeof again) != 0) {
    fprintf(stderr, "the round trip changed the config:\n%s", text);
    abort();
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  if (!ctx) return 0;
  ws_gpu_cfg cfg;
  ws_status st = ws_config_load_text(ctx, (const char *)data, size, FILE_NAME, &cfg);
  if (st == WS_OK)
    check_round_trip(ctx, &cfg);
  else
    check_message(ctx, st);
  ws_ctx_destroy(ctx);
  return 0;
}
