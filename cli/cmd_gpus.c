/* cmd_gpus.c - `warpscope gpus`: list the GPU presets, or show one preset
 * (or INI file, with --set overrides) key by key with derived peak figures.
 *
 * Design: every line comes from the config key table, so a key added there
 * shows up here with its unit and source; the per-preset source is the
 * comment on the value's line of the INI text, the same text the simulator
 * parsed, so what is shown is what is cited. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"

static const char gpus_help[] =
    "usage: warpscope gpus\n"
    "       warpscope gpus show NAME|FILE.ini [--set SECTION.KEY=VALUE]...\n\n"
    "Lists the GPU presets compiled into warpscope, or shows every key of one\n"
    "preset (or INI file) with its value, unit and source, followed by derived\n"
    "figures: peak FLOP/s, bandwidth of each level, occupancy limits, cache sets.\n\n"
    "  --set SECTION.KEY=VALUE  override one key before showing (repeatable)\n"
    "  -h, --help               this text\n"
    "Exit status: 0 on success, 1 when the preset or file fails to load, 2 on a usage error,\n"
    "130 when interrupted (Ctrl-C).\n";

static int list_presets(void) {
  printf("%-10s %-44s %-4s %5s %10s\n", "NAME", "GPU", "CC", "SMs", "CLOCK");
  for (const char *const *n = ws_config_preset_names(); *n; n++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg c;
    ws_status st = ws_config_load_preset(ctx, *n, &c);
    if (st != WS_OK) {
      int rc = ws_cli_error("%s", ws_errmsg(ctx));
      ws_ctx_destroy(ctx);
      return rc;
    }
    printf("%-10s %-44s %u.%u %5u %6u MHz\n", c.gpu.name, c.gpu.full_name, c.gpu.cc_major, c.gpu.cc_minor,
           c.gpu.num_sms, c.gpu.core_clock_mhz);
    ws_ctx_destroy(ctx);
  }
  printf("\n'warpscope gpus show NAME' lists every key of a preset with its source.\n");
  return WS_EXIT_OK;
}

/* The INI text a preset or file was loaded from (for the source comments);
 * NULL when it cannot be read. *owned is set when the caller must free it. */
static const char *ini_text(const char *gpu, char **owned) {
  *owned = NULL;
  const char *embedded = ws_config_preset_text(gpu);
  if (embedded) return embedded;
  size_t size = 0;
  if (ws_file_read(NULL, gpu, WS_CONFIG_MAX_FILE_BYTES, "GPU presets", owned, &size) != WS_OK) return NULL;
  return *owned;
}

static bool overridden(const ws_cli_gpuopt *o, const ws_cfg_key *k) {
  char name[96];
  int n = snprintf(name, sizeof name, "%s.%s=", k->section, k->key);
  for (int i = 0; i < o->nsets; i++)
    if (strncmp(o->sets[i], name, (size_t)n) == 0) return true;
  return false;
}

static void print_keys(const ws_gpu_cfg *c, const ws_cli_gpuopt *o, const char *text) {
  const char *section = "";
  for (size_t i = 0; i < ws_config_key_count(); i++) {
    const ws_cfg_key *k = ws_config_key(i);
    if (strcmp(section, k->section) != 0) printf("\n[%s]\n", section = k->section);
    char value[WS_CFG_VALUE_BYTES], source[512] = "";
    ws_config_format(c, k, value, sizeof value);
    if (overridden(o, k))
      snprintf(source, sizeof source, "--set");
    else if (text)
      ws_config_key_source(text, k->section, k->key, source, sizeof source);
    if (!*source) snprintf(source, sizeof source, "%s%s", k->required ? "" : "default: ", k->source);
    printf("  %-30s %-24s %-10s %s\n", k->key, value, k->unit, source);
  }
}

static void print_derived(const ws_gpu_cfg *c) {
  ws_gpu_peaks pk = ws_config_peaks(c);
  double sms = c->gpu.num_sms, fp32 = pk.fp32_flops, tensor = pk.tensor_flops;
  double l1_sm = pk.l1_bps_per_sm, smem_sm = pk.smem_bps_per_sm, l2 = pk.l2_bps, dram = pk.dram_bps;
  printf("\nderived\n");
  printf("  peak FP32                  %10.1f TFLOP/s  (%u SMs x %u x %u lanes x 2 x %u MHz)\n", fp32 / 1e12,
         c->gpu.num_sms, c->sm.subpartitions, c->sm.fp32_lanes_per_subpartition, c->gpu.core_clock_mhz);
  printf("  peak FP16 tensor (dense)   %10.1f TFLOP/s  (%u SMs x %u FLOP/cycle x %u MHz)\n", tensor / 1e12,
         c->gpu.num_sms, c->sm.tensor_flops_per_cycle_per_sm, c->gpu.core_clock_mhz);
  printf("  L1 bandwidth               %10.1f GB/s per SM, %.1f GB/s in all\n", l1_sm / 1e9,
         l1_sm * sms / 1e9);
  printf("  shared memory bandwidth    %10.1f GB/s per SM, %.1f GB/s in all\n", smem_sm / 1e9,
         smem_sm * sms / 1e9);
  printf("  L2 bandwidth               %10.1f GB/s  (%u slices x %u B/cycle)\n", l2 / 1e9, c->l2.slices,
         c->l2.slice_bytes_per_cycle);
  printf("  DRAM bandwidth             %10.1f GB/s  (%u channels x %u MB/s)\n", dram / 1e9, c->hbm.channels,
         c->hbm.channel_mbps);
  printf("  occupancy limits           %u warps, %u CTAs, %u registers, %u B shared memory per SM;\n"
         "                             %u threads, %u registers/thread, %u B shared memory per CTA\n",
         c->sm.max_warps_per_sm, c->sm.max_ctas_per_sm, c->regfile.regs_per_sm, c->smem.per_sm_bytes,
         c->sm.max_threads_per_block, c->regfile.max_regs_per_thread, c->smem.max_per_block_bytes);
  printf("  L1 sets                    %u  (%u KiB / (%u ways x %u B))\n", c->geom.l1_sets, c->l1.size_kib,
         c->l1.assoc, c->l1.line_bytes);
  printf("  L2 sets per slice          %u  (%u KiB / (%u slices x %u ways x %u B))\n",
         c->geom.l2_sets_per_slice, c->l2.size_kib, c->l2.slices, c->l2.assoc, c->l2.line_bytes);
}

static int show(const ws_cli_gpuopt *o) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg c;
  ws_status st = ws_cli_gpuopt_resolve(ctx, o, &c);
  if (st != WS_OK) {
    int rc = ws_cli_exit_code("gpus", ctx, st);
    ws_ctx_destroy(ctx);
    return rc;
  }
  char *owned = NULL;
  const char *text = ini_text(o->gpu, &owned);
  printf("%s: %s (compute capability %u.%u)\n", c.gpu.name, c.gpu.full_name, c.gpu.cc_major, c.gpu.cc_minor);
  print_keys(&c, o, text);
  print_derived(&c);
  free(owned);
  ws_ctx_destroy(ctx);
  return WS_EXIT_OK;
}

int ws_cli_gpus(int argc, char **argv) {
  static const struct option longs[] = {
      {"set", required_argument, NULL, 'S'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  ws_cli_gpuopt o;
  memset(&o, 0, sizeof o);
  opterr = 0;
  int c, rc = WS_EXIT_OK;
  ws_cli_seen seen = {{0}};
  while (rc == WS_EXIT_OK && (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if ((rc = ws_cli_once("gpus", &seen, longs, c, "set")) != WS_EXIT_OK) break;
    switch (c) {
    case 'S': rc = ws_cli_gpuopt_add_set("gpus", &o, optarg); break;
    case 'h': fputs(gpus_help, stdout); return WS_EXIT_OK;
    case ':': return ws_cli_usage_error("gpus", "option '%s' needs a value", argv[optind - 1]);
    default: return ws_cli_usage_error("gpus", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (rc != WS_EXIT_OK) return rc;
  if (optind == argc) {
    if (o.nsets) return ws_cli_usage_error("gpus", "--set needs 'gpus show NAME|FILE.ini'");
    return list_presets();
  }
  if (strcmp(argv[optind], "show") != 0)
    return ws_cli_usage_error("gpus", "unknown subcommand '%s' (expected 'show')", argv[optind]);
  if (argc - optind != 2)
    return ws_cli_usage_error("gpus", "'gpus show' expects one preset name or INI file");
  rc = ws_cli_gpuopt_set_gpu("gpus", &o, argv[optind + 1]);
  return rc == WS_EXIT_OK ? show(&o) : rc;
}
