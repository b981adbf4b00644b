/* test_config.c - the GPU preset loader: every embedded preset loads and
 * validates, each malformed input gives its exact message (file, line,
 * key), `--set` overrides parse and fail as documented, and the source a
 * preset cites for a key is read off the key's line.
 *
 * Design: the bad-input cases edit one line of a small self-contained preset
 * (base[] below, the classroom GPU without comments), so every expected line
 * number can be read off the table here rather than off a shipped preset
 * that may change. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/config.h"

static const char *const base[] = {
    "[gpu]",                                /* 1 */
    "name = t",                             /* 2 */
    "full_name = test GPU",                 /* 3 */
    "cc_major = 8",                         /* 4 */
    "cc_minor = 0",                         /* 5 */
    "num_sms = 2",                          /* 6 */
    "core_clock_mhz = 1000",                /* 7 */
    "dram_size_bytes = 1073741824",         /* 8 */
    "[sm]",                                 /* 9 */
    "max_warps_per_sm = 64",                /* 10 */
    "max_ctas_per_sm = 32",                 /* 11 */
    "fp32_lanes_per_subpartition = 16",     /* 12 */
    "tensor_flops_per_cycle_per_sm = 2048", /* 13 */
    "int_lat_cycles = 4",                   /* 14 */
    "int_ii_cycles = 2",                    /* 15 */
    "fp32_lat_cycles = 4",                  /* 16 */
    "fp32_ii_cycles = 2",                   /* 17 */
    "sfu_lat_cycles = 20",                  /* 18 */
    "sfu_ii_cycles = 8",                    /* 19 */
    "shfl_lat_cycles = 24",                 /* 20 */
    "shfl_ii_cycles = 2",                   /* 21 */
    "tensor_lat_cycles = 32",               /* 22 */
    "tensor_ii_cycles = 8",                 /* 23 */
    "branch_lat_cycles = 8",                /* 24 */
    "const_lat_cycles = 8",                 /* 25 */
    "lsu_ii_cycles = 4",                    /* 26 */
    "[smem]",                               /* 27 */
    "per_sm_bytes = 167936",                /* 28 */
    "max_per_block_bytes = 166912",         /* 29 */
    "reserved_per_block_bytes = 1024",      /* 30 */
    "alloc_unit_bytes = 128",               /* 31 */
    "lat_cycles = 29",                      /* 32 */
    "[l1]",                                 /* 33 */
    "size_kib = 16",                        /* 34 */
    "assoc = 4",                            /* 35 */
    "hit_lat_cycles = 38",                  /* 36 */
    "[l2]",                                 /* 37 */
    "size_kib = 256",                       /* 38 */
    "slices = 2",                           /* 39 */
    "partitions = 1",                       /* 40 */
    "assoc = 16",                           /* 41 */
    "hit_lat_cycles = 92",                  /* 42 */
    "far_extra_lat_cycles = 0",             /* 43 */
    "slice_bytes_per_cycle = 64",           /* 44 */
    "[noc]",                                /* 45 */
    "lat_cycles = 45",                      /* 46 */
    "[hbm]",                                /* 47 */
    "channels = 2",                         /* 48 */
    "banks_per_channel = 16",               /* 49 */
    "row_bytes = 2048",                     /* 50 */
    "burst_bytes = 32",                     /* 51 */
    "channel_mbps = 38875",                 /* 52 */
    "t_rcd_ps = 14000",                     /* 53 */
    "t_cl_ps = 14000",                      /* 54 */
    "t_rp_ps = 14000",                      /* 55 */
    "t_ras_ps = 34000",                     /* 56 */
    "ctrl_lat_cycles = 103",                /* 57 */
};
#define BASE_LINES (sizeof base / sizeof base[0])

/* base[] with line `line` (1-based; 0 for none) replaced by `repl` and line
 * `line2` by `repl2`, then `extra` appended (lines 58, 59, ...). */
static char *build2(unsigned line, const char *repl, unsigned line2, const char *repl2, const char *extra) {
  size_t cap = 8192 + (repl ? strlen(repl) : 0) + (extra ? strlen(extra) : 0);
  char *text = malloc(cap);
  text[0] = '\0';
  for (unsigned i = 0; i < BASE_LINES; i++) {
    strcat(text, i + 1 == line ? repl : i + 1 == line2 ? repl2 : base[i]);
    strcat(text, "\n");
  }
  if (extra) strcat(text, extra);
  return text;
}

static char *build(unsigned line, const char *repl, const char *extra) {
  return build2(line, repl, 0, NULL, extra);
}

static ws_status load(ws_ctx *ctx, const char *text, ws_gpu_cfg *cfg) {
  return ws_config_load_text(ctx, text, strlen(text), "t.ini", cfg);
}

Test(config, base_text_is_valid) {
  ws_ctx *ctx = ws_ctx_create();
  char *text = build(35, "   assoc = 4   ; indented, with a comment",
                     "; a comment longer than inih's 200-byte line buffer is fine, because the reader "
                     "drops comments before inih sees the line: wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"
                     "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwx\n");
  ws_gpu_cfg cfg;
  cr_assert_eq(load(ctx, text, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_str_eq(cfg.gpu.name, "t");
  cr_assert_str_eq(cfg.gpu.full_name, "test GPU");
  cr_assert_eq(cfg.l2.size_kib, 256);
  cr_assert_eq(cfg.gpu.dram_size_bytes, 1073741824ull);
  /* optional keys take the table defaults */
  cr_assert_eq(cfg.regfile.regs_per_sm, 65536);
  cr_assert_eq(cfg.l1.line_bytes, 128);
  cr_assert_eq(cfg.sm.scheduler, WS_SCHED_GTO);
  cr_assert_eq(cfg.l1.write_policy, WS_WRITE_THROUGH_NOALLOC);
  free(text);
  ws_ctx_destroy(ctx);
}

typedef struct bad_case {
  unsigned line;
  const char *repl, *extra, *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {35, "asoc = 4", NULL, "t.ini:35: error: unknown key 'asoc' in section [l1]"},
    {45, "[network]", NULL,
     "t.ini:46: error: unknown section [network] (sections: gpu, sm, regfile, smem, l1, l2, noc, hbm, pcie, "
     "uvm)"},
    {34, "size_kib = 16k", NULL,
     "t.ini:34: error: key 'l1.size_kib' expects an unsigned integer, found '16k'"},
    {34, "size_kib = -16", NULL,
     "t.ini:34: error: key 'l1.size_kib' expects an unsigned integer, found '-16'"},
    {40, "partitions = 3", NULL, "t.ini:40: error: key 'l2.partitions' = 3 is out of range [1, 2]"},
    {6, "num_sms = 0", NULL, "t.ini:6: error: key 'gpu.num_sms' = 0 is out of range [1, 1024] SMs"},
    {6, "num_sms = 99999999999999999999999", NULL,
     "t.ini:6: error: key 'gpu.num_sms' = 99999999999999999999999 is out of range [1, 1024] SMs"},
    {36, "; no hit latency", NULL, "t.ini: error: missing required key 'l1.hit_lat_cycles'"},
    {0, NULL, "[l1]\nassoc = 8\n", "t.ini:59: error: duplicate key 'l1.assoc' (first set on line 35)"},
    /* 24 KiB / (4 ways x 128 B) = 48 sets */
    {34, "size_kib = 24", NULL,
     "t.ini:34: error: key 'l1.size_kib': 24 KiB / (1 slice x 4 ways x 128 B lines) = 48 sets, not a power "
     "of two"},
    /* 256 KiB / (2 slices x 12 ways x 128 B) = 85.33 sets */
    {41, "assoc = 12", NULL,
     "t.ini:38: error: key 'l2.size_kib': 256 KiB / (2 slices x 12 ways x 128 B lines) = 85.33 sets, not a "
     "power "
     "of two"},
    {0, NULL, "[l1]\nline_bytes = 80\n",
     "t.ini:59: error: key 'l1.line_bytes': 80 B is not a power-of-two multiple of the 32 B sector"},
    {0, NULL, "[l2]\nsector_bytes = 24\n",
     "t.ini:59: error: key 'l2.sector_bytes': 24 B is not a power of two"},
    {40, "partitions = 2", "[l2]\nslices = 3\n",
     "t.ini:59: error: duplicate key 'l2.slices' (first set on line 39)"},
    {43, "far_extra_lat_cycles = 5", NULL,
     "t.ini:43: error: key 'l2.far_extra_lat_cycles': 5 cycles, but there is only one partition"},
    {29, "max_per_block_bytes = 167936", NULL,
     "t.ini:29: error: key 'smem.max_per_block_bytes': 167936 B + the 1024 B reserve exceed per_sm_bytes "
     "(167936 B)"},
    {0, NULL, "[sm]\nscheduler = rr\n",
     "t.ini:59: error: key 'sm.scheduler' expects one of lrr, gto, found 'rr'"},
    {0, NULL, "[l1]\nwrite_policy = back\n",
     "t.ini:59: error: key 'l1.write_policy' expects one of write-through, write-back, found 'back'"},
    {1, "; no section", NULL, "t.ini:2: error: key 'name' is outside any [section]"},
    {10, "max_warps_per_sm 64", NULL,
     "t.ini:10: error: expected '[section]' or 'key = value', found 'max_warps_per_sm 64'"},
    /* an unterminated header is reported on its own line, not where the keys after it fail */
    {9, "[sm", NULL, "t.ini:9: error: unterminated section header '[sm' (expected ']')"},
    {9, "[sm   ; the SM", NULL, "t.ini:9: error: unterminated section header '[sm' (expected ']')"},
    /* the first malformed line wins over a later key error */
    {5, "cc_minor 0", "[gpu]\nbogus = 1\n",
     "t.ini:5: error: expected '[section]' or 'key = value', found 'cc_minor 0'"},
    /* bytes quoted from the file are escaped */
    {35, "as\x01soc = 4", NULL, "t.ini:35: error: unknown key 'as\\x01soc' in section [l1]"},
    {34, "size_kib = 16\xff", NULL,
     "t.ini:34: error: key 'l1.size_kib' expects an unsigned integer, found '16\\xFF'"},
    {45, "[n\x1b[0moc]", NULL,
     "t.ini:46: error: unknown section [n\\x1B[0moc] (sections: gpu, sm, regfile, smem, l1, l2, noc, hbm, "
     "pcie, uvm)"},
    {2, "name = t\x7f", NULL, "t.ini:2: error: key 'gpu.name' expects printable ASCII text, found 't\\x7F'"},
    {1, "\x80\x81", NULL, "t.ini:1: error: expected '[section]' or 'key = value', found '\\x80\\x81'"},
    /* each scheduler keeps its warps in 32 slots: 64 warps need at least 2 sub-partitions */
    {0, NULL, "[sm]\nsubpartitions = 1\n",
     "t.ini:10: error: key 'sm.max_warps_per_sm': 64 resident warps exceed sm.subpartitions (1) x 32 warp "
     "slots per sub-partition (32)"},
    {0, NULL, "[sm]\nmax_threads_per_block = 4096\n",
     "t.ini:59: error: key 'sm.max_threads_per_block': 4096 threads exceed max_warps_per_sm (64) x 32"},
    /* 16 KiB / (4 ways x 512 B) = 8 sets, but a sector mask has 8 bits */
    {0, NULL, "[l1]\nline_bytes = 512\n",
     "t.ini:59: error: key 'l1.line_bytes': 512 B lines hold 16 sectors of 32 B; at most 8 sectors per line"},
    /* 256 KiB / (2 slices x 16 ways x 256 B) = 32 sets, but the levels exchange whole lines */
    {0, NULL, "[l2]\nline_bytes = 256\n",
     "t.ini:59: error: key 'l2.line_bytes': line and sector sizes must match the L1's (L1: 128 B lines of 32 "
     "B "
     "sectors, L2: 256 B of 32 B)"},
    {3,
     "full_name = "
     "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"
     "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww",
     NULL, "t.ini:3: error: key 'gpu.full_name' expects 1 to 127 characters, found 128"},
    {3,
     "full_name = "
     "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"
     "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"
     "wwx",
     NULL, "t.ini:3: error: line longer than 198 characters (comments excluded)"},
};

Test(config, bad_input) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    const bad_case *c = &bad_cases[i];
    ws_ctx *ctx = ws_ctx_create();
    char *text = build(c->line, c->repl, c->extra);
    ws_gpu_cfg cfg;
    memset(&cfg, 0x5a, sizeof cfg);
    cr_assert_eq(load(ctx, text, &cfg), WS_ERR_INVALID, "case %zu", i);
    cr_assert_str_eq(ws_errmsg(ctx), c->msg, "case %zu: %s", i, ws_errmsg(ctx));
    cr_assert_eq(cfg.gpu.num_sms, 0x5a5a5a5au, "a failed load leaves *out untouched");
    free(text);
    ws_ctx_destroy(ctx);
  }
}

Test(config, a_nul_byte_is_an_error_at_its_line_and_column) {
  ws_ctx *ctx = ws_ctx_create();
  char *text = build(6, "num_sms = 2#junk", NULL);
  size_t len = strlen(text);
  *strchr(text, '#') = '\0'; /* "num_sms = 2\0junk": inih alone would drop the rest of the line */
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_text(ctx, text, len, "t.ini", &cfg), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "t.ini:6:12: error: NUL byte (a preset is text)");
  free(text);
  ws_ctx_destroy(ctx);
}

/* Whatever the bytes, the message is printable ASCII and located in the file. */
Test(config, binary_input_echoes_no_raw_bytes) {
  static const char elf[] = "\x7f"
                            "ELF\x02\x01\x01\x00\x00\x00";
  static const char noise[] = "\x90\xfe=\x01\x02\n[\xc3\xa9]\n\xff\xfe:\x80\n";
  const struct {
    const char *text;
    size_t len;
    const char *msg;
  } cases[] = {
      {elf, sizeof elf - 1, "bin.ini:1:8: error: NUL byte (a preset is text)"},
      {noise, sizeof noise - 1, "bin.ini:1: error: key '\\x90\\xFE' is outside any [section]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg cfg;
    cr_assert_eq(ws_config_load_text(ctx, cases[i].text, cases[i].len, "bin.ini", &cfg), WS_ERR_INVALID);
    cr_assert_str_eq(ws_errmsg(ctx), cases[i].msg);
    ws_ctx_destroy(ctx);
  }
}

Test(config, a_utf8_bom_and_form_feeds_are_accepted) {
  ws_ctx *ctx = ws_ctx_create();
  char *text = build2(1, "\xef\xbb\xbf[gpu]", 35, "\f assoc = 4", NULL);
  ws_gpu_cfg cfg;
  cr_assert_eq(load(ctx, text, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(cfg.l1.assoc, 4);
  free(text);
  ws_ctx_destroy(ctx);
}

Test(config, warps_must_fit_the_schedulers_slots) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &cfg), WS_OK);
  /* 64 warps over 2 sub-partitions of 32 slots fit exactly */
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.subpartitions=2"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100 (after --set)"), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.subpartitions=1"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100 (after --set)"), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "a100 (after --set): error: key 'sm.max_warps_per_sm': 64 resident warps "
                                   "exceed sm.subpartitions (1) x 32 warp slots per sub-partition (32)");
  /* the pair is consistent again with fewer warps */
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.max_warps_per_sm=32"), WS_OK);
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.max_threads_per_block=1024"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100 (after --set)"), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

Test(config, slices_must_split_evenly_into_partitions) {
  ws_ctx *ctx = ws_ctx_create();
  /* 256 KiB / (1 slice x 16 ways x 128 B) = 128 sets, but 1 slice cannot split into 2 partitions */
  char *text = build2(39, "slices = 1", 40, "partitions = 2", NULL);
  ws_gpu_cfg cfg;
  cr_assert_eq(load(ctx, text, &cfg), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx),
                   "t.ini:39: error: key 'l2.slices': 1 slices do not divide evenly into 2 partitions");
  free(text);
  ws_ctx_destroy(ctx);
}

Test(config, every_embedded_preset_loads_and_validates) {
  ws_ctx *ctx = ws_ctx_create();
  const char *const *names = ws_config_preset_names();
  int n = 0;
  for (; names[n]; n++) {
    cr_assert_not_null(ws_config_preset_text(names[n]), "%s is not embedded", names[n]);
    ws_gpu_cfg cfg;
    cr_assert_eq(ws_config_load_preset(ctx, names[n], &cfg), WS_OK, "%s", ws_errmsg(ctx));
    cr_assert_str_eq(cfg.gpu.name, names[n], "a preset's [gpu] name matches its file");
    cr_assert_eq(ws_config_validate(ctx, &cfg, names[n]), WS_OK, "%s", ws_errmsg(ctx));
    if (n) cr_assert_lt(strcmp(names[n - 1], names[n]), 0, "preset names are sorted");
  }
  cr_assert_eq(n, 5);
  ws_ctx_destroy(ctx);
}

Test(config, preset_files_on_disk_match_the_embedded_ones) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg from_file, embedded;
  cr_assert_eq(ws_config_load_file(ctx, WS_SOURCE_DIR "/sim/presets/v100.ini", &from_file), WS_OK, "%s",
               ws_errmsg(ctx));
  cr_assert_eq(ws_config_load_preset(ctx, "v100", &embedded), WS_OK);
  cr_assert_eq(memcmp(&from_file, &embedded, sizeof from_file), 0);
  ws_ctx_destroy(ctx);
}

Test(config, default_is_the_a100_preset) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg a100, def = ws_config_default();
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &a100), WS_OK, "the embedded a100 preset must load: %s",
               ws_errmsg(ctx));
  cr_assert_eq(memcmp(&a100, &def, sizeof def), 0);
  cr_assert_str_eq(def.gpu.name, "a100");
  cr_assert_eq(def.gpu.num_sms, 108);
  cr_assert_eq(def.smem.per_sm_bytes, 164u * 1024u);
  cr_assert_eq(def.l2.partitions, 2);
  ws_ctx_destroy(ctx);
}

Test(config, preset_figures) {
  ws_gpu_cfg c;
  cr_assert_eq(ws_config_load_preset(NULL, "rtx-a6000", &c), WS_OK);
  cr_assert_eq(c.sm.max_warps_per_sm, 48);
  cr_assert_eq(c.sm.max_ctas_per_sm, 16);
  cr_assert_eq(c.smem.per_sm_bytes, 100u * 1024u);
  cr_assert_eq(c.smem.max_per_block_bytes, 99u * 1024u);
  cr_assert_eq(ws_config_load_preset(NULL, "v100", &c), WS_OK);
  cr_assert_eq(c.smem.reserved_per_block_bytes, 0);
  cr_assert_eq(c.smem.alloc_unit_bytes, 256);
  cr_assert_eq(c.hbm.channels * (uint64_t)c.hbm.channel_mbps, 900000u); /* 900 GB/s */
  cr_assert_eq(ws_config_load_preset(NULL, "h100", &c), WS_OK);
  cr_assert_eq(c.smem.per_sm_bytes, 228u * 1024u);
  cr_assert_eq(ws_config_load_preset(NULL, "classroom", &c), WS_OK);
  cr_assert_eq(c.gpu.num_sms, 2);
  cr_assert_eq(c.l1.size_kib, 16);
  cr_assert_eq(c.l2.size_kib, 256);
  cr_assert_eq(c.l2.slices, 2);
  cr_assert_eq(c.hbm.channels, 2);
}

Test(config, unknown_preset_lists_the_presets) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "b200", &cfg), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx),
                   "unknown GPU preset 'b200' (presets: a100, classroom, h100, rtx-a6000, v100)");
  cr_assert_eq(ws_config_load_preset(ctx, "../models/runs/examples/saxpy", &cfg), WS_ERR_INVALID);
  ws_ctx_destroy(ctx);
}

Test(config, key_source_is_the_comment_on_the_keys_line) {
  char out[128];
  const char *ini = "[a]\nk = 1 ; not this\n[b]\nkey2 = 3\nk = 2   ; [X] the source\n";
  ws_config_key_source(ini, "b", "k", out, sizeof out);
  cr_assert_str_eq(out, "[X] the source");
  ws_config_key_source(ini, "b", "key2", out, sizeof out);
  cr_assert_str_eq(out, "", "a key without a comment");
  ws_config_key_source(ini, "c", "k", out, sizeof out);
  cr_assert_str_eq(out, "", "a section that is absent");
  ws_config_key_source(ini, "b", "ke", out, sizeof out);
  cr_assert_str_eq(out, "", "a key's prefix is no key");
}

Test(config, set_overrides) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_config_set(ctx, &cfg, "l2.size_kib=20480"), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(cfg.l2.size_kib, 20480); /* 256 KiB slices: 128 sets of 16 ways */
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.scheduler=lrr"), WS_OK);
  cr_assert_eq(cfg.sm.scheduler, WS_SCHED_LRR);
  cr_assert_eq(ws_config_set(ctx, &cfg, "l1.write_policy=write-back"), WS_OK);
  cr_assert_eq(cfg.l1.write_policy, WS_WRITE_BACK_ALLOC);
  cr_assert_eq(ws_config_set(ctx, &cfg, "l1.allocation=on-miss"), WS_OK);
  cr_assert_eq(cfg.l1.allocation, WS_L1_ALLOC_ON_MISS);
  cr_assert_eq(ws_config_set(ctx, &cfg, "gpu.full_name=My GPU"), WS_OK);
  cr_assert_str_eq(cfg.gpu.full_name, "My GPU");
  cr_assert_eq(ws_config_set(ctx, &cfg, "gpu.insn_budget_warp_insns=10000000000"), WS_OK);
  cr_assert_eq(cfg.gpu.insn_budget_warp_insns, 10000000000ull);
  cr_assert_eq(ws_config_set(ctx, &cfg, "sm.max_block_dim_z=32"), WS_OK);
  cr_assert_eq(cfg.sm.max_block_dim[2], 32);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100 with --set"), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

typedef struct set_case {
  const char *assign, *msg;
} set_case;

static const set_case set_cases[] = {
    {"l2.size_kib", "--set l2.size_kib: error: expected SECTION.KEY=VALUE"},
    {"size_kib=4", "--set size_kib=4: error: expected SECTION.KEY=VALUE"},
    {"=4", "--set =4: error: expected SECTION.KEY=VALUE"},
    {"l2.size=4", "--set l2.size=4: error: unknown key 'l2.size'"},
    {"cache.size_kib=4", "--set cache.size_kib=4: error: unknown key 'cache.size_kib'"},
    {"l2.size_kib=", "--set l2.size_kib=: error: key 'l2.size_kib' expects an unsigned integer, found ''"},
    {"l2.size_kib=4 MiB",
     "--set l2.size_kib=4 MiB: error: key 'l2.size_kib' expects an unsigned integer, found '4 MiB'"},
    {"l2.partitions=0", "--set l2.partitions=0: error: key 'l2.partitions' = 0 is out of range [1, 2]"},
    {"sm.scheduler=fifo",
     "--set sm.scheduler=fifo: error: key 'sm.scheduler' expects one of lrr, gto, found 'fifo'"},
    /* the limits the timing model's tables are sized by (an SM holds at most 8 sub-partitions) */
    {"sm.subpartitions=9",
     "--set sm.subpartitions=9: error: key 'sm.subpartitions' = 9 is out of range [1, 8]"},
    {"l2.size_kib=\x1b[31m",
     "--set l2.size_kib=\\x1B[31m: error: key 'l2.size_kib' expects an unsigned integer, found '\\x1B[31m'"},
    {"l\xff.x=1", "--set l\\xFF.x=1: error: unknown key 'l\\xFF.x'"},
    {"hbm.channel_mbps=0",
     "--set hbm.channel_mbps=0: error: key 'hbm.channel_mbps' = 0 is out of range [1, 1000000] MB/s"},
    /* XOR masks: hex, nonzero, below bit 48, at most 8, comma-separated */
    {"hbm.channel_xor=0x",
     "--set hbm.channel_xor=0x: error: key 'hbm.channel_xor' expects none or 1 to 8 nonzero hex masks below "
     "bit 48 separated by commas (0x400, 0x2800), found '0x'"},
    {"hbm.channel_xor=1024", "--set hbm.channel_xor=1024: error: key 'hbm.channel_xor' expects none or 1 to "
                             "8 nonzero hex masks below "
                             "bit 48 separated by commas (0x400, 0x2800), found '1024'"},
    {"hbm.bank_xor=0x400,", "--set hbm.bank_xor=0x400,: error: key 'hbm.bank_xor' expects none or 1 to 8 "
                            "nonzero hex masks below bit "
                            "48 separated by commas (0x400, 0x2800), found '0x400,'"},
    {"hbm.bank_xor=0x0", "--set hbm.bank_xor=0x0: error: key 'hbm.bank_xor' expects none or 1 to 8 nonzero "
                         "hex masks below bit 48 "
                         "separated by commas (0x400, 0x2800), found '0x0'"},
    {"hbm.bank_xor=0x1000000000000",
     "--set hbm.bank_xor=0x1000000000000: error: key 'hbm.bank_xor' expects none or 1 to 8 nonzero hex masks "
     "below bit 48 separated by commas (0x400, 0x2800), found '0x1000000000000'"},
    {"hbm.bank_xor=0x1,0x2,0x4,0x8,0x10,0x20,0x40,0x80,0x100",
     "--set hbm.bank_xor=0x1,0x2,0x4,0x8,0x10,0x20,0x40,0x80,0x100: error: key 'hbm.bank_xor' expects none "
     "or "
     "1 to 8 nonzero hex masks below bit 48 separated by commas (0x400, 0x2800), found "
     "'0x1,0x2,0x4,0x8,0x10,0x20,0x40,0x80,0x100'"},
    {"hbm.bank_xor=0x400 0x800",
     "--set hbm.bank_xor=0x400 0x800: error: key 'hbm.bank_xor': unexpected '0x800' after the masks"},
    {"hbm.bank_xor=,0x400", "--set hbm.bank_xor=,0x400: error: key 'hbm.bank_xor' expects none or 1 to 8 "
                            "nonzero hex masks below bit "
                            "48 separated by commas (0x400, 0x2800), found ',0x400'"},
    {"hbm.bank_xor=nonex",
     "--set hbm.bank_xor=nonex: error: key 'hbm.bank_xor' expects none or 1 to 8 nonzero hex masks below bit "
     "48 separated by commas (0x400, 0x2800), found 'nonex'"},
};

Test(config, set_bad) {
  for (size_t i = 0; i < sizeof set_cases / sizeof set_cases[0]; i++) {
    const set_case *c = &set_cases[i];
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg cfg = ws_config_default(), before = cfg;
    cr_assert_eq(ws_config_set(ctx, &cfg, c->assign), WS_ERR_INVALID, "%s", c->assign);
    cr_assert_str_eq(ws_errmsg(ctx), c->msg);
    cr_assert_eq(memcmp(&cfg, &before, sizeof cfg), 0, "a failed --set changes nothing");
    ws_ctx_destroy(ctx);
  }
}

Test(config, set_then_validate_names_the_origin) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  cr_assert_eq(ws_config_set(ctx, &cfg, "l1.size_kib=24"), WS_OK); /* 24 KiB / (32 x 128 B) = 6 sets */
  cr_assert_eq(ws_config_validate(ctx, &cfg, "classroom (after --set)"), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx),
                   "classroom (after --set): error: key 'l1.size_kib': 24 KiB / (1 slice x 32 "
                   "ways x 128 B lines) = 6 sets, not a power of two");
  ws_ctx_destroy(ctx);
}

Test(config, key_table_is_consistent) {
  size_t n = ws_config_key_count();
  cr_assert_eq(n, 117, "update this count when adding a key");
  cr_assert_null(ws_config_key(n));
  for (size_t i = 0; i < n; i++) {
    const ws_cfg_key *k = ws_config_key(i);
    cr_assert_leq(k->offset + k->size_bytes, sizeof(ws_gpu_cfg), "%s.%s", k->section, k->key);
    cr_assert(k->description && *k->description && k->source && *k->source, "%s.%s", k->section, k->key);
    if (k->type == WS_CFG_U32 || k->type == WS_CFG_U64) {
      cr_assert_leq(k->min, k->max);
      if (!k->required) cr_assert(k->def >= k->min && k->def <= k->max, "%s.%s default", k->section, k->key);
    }
    char name[96];
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    cr_assert_eq(ws_config_find_key(name), k);
    for (size_t j = 0; j < i; j++) { /* no two keys share bytes */
      const ws_cfg_key *o = ws_config_key(j);
      cr_assert(o->offset + o->size_bytes <= k->offset || k->offset + k->size_bytes <= o->offset,
                "%s.%s overlaps %s.%s", k->section, k->key, o->section, o->key);
    }
  }
}

Test(config, format_values) {
  ws_gpu_cfg cfg = ws_config_default();
  char buf[64];
  ws_config_format(&cfg, ws_config_find_key("sm.scheduler"), buf, sizeof buf);
  cr_assert_str_eq(buf, "gto");
  ws_config_format(&cfg, ws_config_find_key("gpu.dram_size_bytes"), buf, sizeof buf);
  cr_assert_str_eq(buf, "42949672960");
  ws_config_format(&cfg, ws_config_find_key("gpu.full_name"), buf, sizeof buf);
  cr_assert_str_eq(buf, "NVIDIA A100-SXM4-40GB");
  ws_config_format(&cfg, ws_config_find_key("l1.write_policy"), buf, sizeof buf);
  cr_assert_str_eq(buf, "write-through");
}

/* V100-SXM2-16GB's index functions as [FGPU19] lists them: each a list of
 * the physical address bits whose XOR gives one bit of the index. */
static uint64_t xor_of(const int *bits) {
  uint64_t m = 0;
  for (; *bits >= 0; bits++) m |= 1ull << *bits;
  return m;
}

Test(config, v100_xor_map_is_the_published_one) {
  static const int mbit[5][12] = {{10, 13, 17, 19, 24, 25, 26, 29, 30, 32, 33, -1},
                                  {11, 13, 15, 23, 24, 26, 27, 29, 30, 31, -1},
                                  {12, 15, 16, 18, 20, 21, 23, 26, 28, 29, 30, -1},
                                  {13, 19, 20, 22, 25, 27, 28, 29, -1},
                                  {15, 18, 22, 23, 26, 29, 30, 31, 32, 33, -1}};
  static const int bbit[4][11] = {{10, 11, 20, 23, 25, 28, 30, 33, -1},         /* bbit0 */
                                  {11, 12, 16, 20, 25, 26, 29, 30, 32, 33, -1}, /* bbit1 */
                                  {12, 16, 17, 19, 23, 25, 26, 27, 31, -1},     /* bbit2 */
                                  {16, 19, 20, 23, 27, 29, 31, 33, -1}};        /* bbit5 */
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "v100", &cfg), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(cfg.hbm.channel_xor.count, 5);
  for (int i = 0; i < 5; i++) cr_expect_eq(cfg.hbm.channel_xor.masks[i], xor_of(mbit[i]), "mbit%d", i);
  cr_assert_eq(cfg.hbm.bank_xor.count, 4);
  for (int i = 0; i < 4; i++) cr_expect_eq(cfg.hbm.bank_xor.masks[i], xor_of(bbit[i]), "bank bit %d", i);
  ws_ctx_destroy(ctx);
}

Test(config, xor_masks_round_trip) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  char buf[WS_CFG_VALUE_BYTES];
  const ws_cfg_key *k = ws_config_find_key("hbm.channel_xor");
  ws_config_format(&cfg, k, buf, sizeof buf);
  cr_assert_str_eq(buf, "none", "a100 keeps the skewed interleave");
  cr_assert_eq(ws_config_set(ctx, &cfg, "hbm.channel_xor= 0x400 ,0X2a00, 0xffffffffffff"), WS_OK, "%s",
               ws_errmsg(ctx));
  ws_config_format(&cfg, k, buf, sizeof buf);
  cr_assert_str_eq(buf, "0x400, 0x2a00, 0xffffffffffff");
  cr_assert_eq(ws_config_set(ctx, &cfg, "hbm.channel_xor=\t0x400,\t0x800"), WS_OK, "tabs as blanks");
  cr_assert_eq(cfg.hbm.channel_xor.count, 2);
  cr_assert_eq(ws_config_set(ctx, &cfg, "hbm.channel_xor= none "), WS_OK);
  cr_assert_eq(cfg.hbm.channel_xor.count, 0);
  ws_ctx_destroy(ctx);
}

Test(config, missing_file_is_an_io_error) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_file(ctx, "/nonexistent/gpu.ini", &cfg), WS_ERR_IO);
  ws_ctx_destroy(ctx);
}

Test(config, set_can_break_consistency_until_validated) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  /* 4096 KiB over 80 slices of 16 x 128 B ways: 25.6 sets per slice */
  cr_assert_eq(ws_config_set(ctx, &cfg, "l2.size_kib=4096"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100"), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "a100: error: key 'l2.size_kib': 4096 KiB / (80 slices x 16 ways x 128 B "
                                   "lines) = 25.6 sets, not a power of two");
  ws_ctx_destroy(ctx);
}

/* A sector that is not a power of two is refused when the whole is checked
 * after the overrides, before any memory system is built. */
Test(config, set_sector_size_fails_validation) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_config_set(ctx, &cfg, "l1.sector_bytes=48"), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100 (after --set)"), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx),
                   "a100 (after --set): error: key 'l1.sector_bytes': 48 B is not a power of two");
  ws_ctx_destroy(ctx);
}

typedef struct edit_case {
  void (*edit)(ws_gpu_cfg *cfg);
  const char *msg;
} edit_case;

static void zero_channel_mbps(ws_gpu_cfg *c) { c->hbm.channel_mbps = 0; }
static void zero_l1_mshrs(ws_gpu_cfg *c) { c->l1.mshr_entries = 0; }
static void zero_noc_port(ws_gpu_cfg *c) { c->noc.sm_port_bytes_per_cycle = 0; }
static void bad_scheduler(ws_gpu_cfg *c) { c->sm.scheduler = (ws_sched_policy)7; }
static void odd_sector(ws_gpu_cfg *c) { c->l1.sector_bytes = 48; }
static void l2_sector_differs(ws_gpu_cfg *c) { c->l2.sector_bytes = 64; }
static void streaming_write_back(ws_gpu_cfg *c) { c->l1.write_policy = WS_WRITE_BACK_ALLOC; }
static void long_bank_refresh(ws_gpu_cfg *c) { c->hbm.t_rfcsb_ps = 3000000; }
static void xor_channel_only(ws_gpu_cfg *c) { c->hbm.channel_xor = (ws_cfg_xor){1, {0x400}}; }
static void xor_wrong_count(ws_gpu_cfg *c) {
  c->hbm.channel_xor = (ws_cfg_xor){1, {0x400}};
  c->hbm.bank_xor = (ws_cfg_xor){1, {0x800}};
}
/* two channels of two banks, no bank groups: what the masks below need */
static void xor_small(ws_gpu_cfg *c, uint64_t channel_mask, uint64_t bank_mask) {
  c->hbm.channels = 2;
  c->hbm.banks_per_channel = 2;
  c->hbm.bank_groups = 0;
  c->hbm.channel_xor = (ws_cfg_xor){1, {channel_mask}};
  c->hbm.bank_xor = (ws_cfg_xor){1, {bank_mask}};
}
static void xor_inside_line(ws_gpu_cfg *c) { xor_small(c, 0x440, 0x800); }
static void xor_dependent(ws_gpu_cfg *c) { xor_small(c, 0x1400, 0x1400); }
static void xor_above_memory(ws_gpu_cfg *c) { xor_small(c, 0x400, 1ull << 40); }
static void xor_partly_in_memory(ws_gpu_cfg *c) { xor_small(c, 0x400, 1ull << 35); }

/* Fields written directly (no loader, no --set) are checked by value and as
 * a whole by ws_config_resolve, which the device runs on its copy; the
 * components below it check nothing. */
static const edit_case edit_cases[] = {
    {zero_channel_mbps, "edited: error: key 'hbm.channel_mbps' = 0 is out of range [1, 1000000] MB/s"},
    {zero_l1_mshrs, "edited: error: key 'l1.mshr_entries' = 0 is out of range [1, 4096] lines"},
    {zero_noc_port, "edited: error: key 'noc.sm_port_bytes_per_cycle' = 0 is out of range [1, 1024] B/cycle"},
    {bad_scheduler, "edited: error: key 'sm.scheduler' = 7 is not one of lrr, gto"},
    {odd_sector, "edited: error: key 'l1.sector_bytes': 48 B is not a power of two"},
    {l2_sector_differs,
     "edited: error: key 'l2.sector_bytes': line and sector sizes must match the L1's (L1: "
     "128 B lines of 32 B sectors, L2: 128 B of 64 B)"},
    {streaming_write_back,
     "edited: error: key 'l1.allocation': streaming allocates at the fill and needs l1.write_policy = "
     "write-through (a write-back L1 allocates at the miss: l1.allocation = on-miss)"},
    {long_bank_refresh,
     "edited: error: key 'hbm.t_rfcsb_ps': 3000000 ps with t_refi_ps 3900000 ps: per-bank refresh needs the "
     "interval, and at most half of it"},
    {xor_channel_only,
     "edited: error: key 'hbm.bank_xor': an XOR map gives both the channel and the bank: set hbm.channel_xor "
     "and hbm.bank_xor, or neither"},
    {xor_wrong_count, "edited: error: key 'hbm.channel_xor': 1 masks give 2 channels, but the preset has 40"},
    {xor_inside_line,
     "edited: error: key 'hbm.channel_xor': mask 0 (0x440) takes address bit 6, inside a 128 B line (a line "
     "maps to one place)"},
    {xor_dependent,
     "edited: error: key 'hbm.bank_xor': the channel and bank masks are not independent over address bits 7 "
     "to 34 (the largest power of two within 42949672960 B of device memory): some channel and bank pairs "
     "would "
     "never be used"},
    /* a100's 40 GB hold every address below 2^35, not every one below
     * 2^36: a bank bit from bit 40 would never change, one from bit 35
     * would be 1 only in the top 8 GB, leaving most pairs no memory */
    {xor_above_memory,
     "edited: error: key 'hbm.bank_xor': the channel and bank masks are not independent over address bits 7 "
     "to 34 (the largest power of two within 42949672960 B of device memory): some channel and bank pairs "
     "would "
     "never be used"},
    {xor_partly_in_memory,
     "edited: error: key 'hbm.bank_xor': the channel and bank masks are not independent over address bits 7 "
     "to 34 (the largest power of two within 42949672960 B of device memory): some channel and bank pairs "
     "would "
     "never be used"},
};

Test(config, resolve_checks_edited_fields) {
  for (size_t i = 0; i < sizeof edit_cases / sizeof edit_cases[0]; i++) {
    ws_ctx *ctx = ws_ctx_create();
    ws_gpu_cfg cfg = ws_config_default(), before;
    edit_cases[i].edit(&cfg);
    before = cfg;
    cr_assert_eq(ws_config_resolve(ctx, &cfg, "edited"), WS_ERR_INVALID, "case %zu", i);
    cr_expect_str_eq(ws_errmsg(ctx), edit_cases[i].msg, "case %zu", i);
    cr_expect_eq(memcmp(&cfg, &before, sizeof cfg), 0, "case %zu: a refused config is left alone", i);
    ws_ctx_destroy(ctx);
  }
}
