/* test_device.c - the host API: launch limit checks with exact messages,
 * argument checks, statistics and device memory through the device. */
#include "tests/sim/simtest.h"

static const char *kern = ".kernel t\n.param .ptr out\n.shared s 16\n"
                          "S2R R0, SR_TID.X\nLDP.64 R2, [out]\nIMAD.WIDE.U32 R2, R0, 4, R2\n"
                          "ISETP.GE.U32 P0, R0, 40\n@P0 MOV R20, 1\nSTG.32 [R2], R0\nEXIT\n";

static void expect_launch(simtest *t, ws_dim3 grid, ws_dim3 block, uint32_t dyn, ws_status want,
                          const char *msg) {
  cr_expect_eq(st_launch(t, grid, block, dyn), want, "%s", ws_errmsg(t->ctx));
  cr_expect_str_eq(ws_errmsg(t->ctx), msg);
}

Test(device, launch_limits) {
  simtest t;
  st_init(&t, kern, "t");
  st_buf(&t, "out", 4096, NULL);
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){2048, 1, 1}, 0, WS_ERR_LIMIT,
                "block (2048,1,1) has 2048 threads; this device allows at most 1024 per block");
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){1, 1, 128}, 0, WS_ERR_LIMIT,
                "block.z = 128 exceeds the device limit 64");
  expect_launch(&t, (ws_dim3){1, 70000, 1}, (ws_dim3){32, 1, 1}, 0, WS_ERR_LIMIT,
                "grid.y = 70000 exceeds the device limit 65535");
  expect_launch(&t, (ws_dim3){0, 1, 1}, (ws_dim3){32, 1, 1}, 0, WS_ERR_INVALID,
                "grid (0,1,1) has a zero dimension");
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 0, 1}, 0, WS_ERR_INVALID,
                "block (32,0,1) has a zero dimension");
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 200000, WS_ERR_LIMIT,
                "kernel 't' needs 200016 bytes of shared memory per block (16 static + 200000 dynamic); "
                "this device allows at most 166912");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 166896), WS_OK, "%s", ws_errmsg(t.ctx));
  st_fini(&t);
}

Test(device, register_limit) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.regfile.max_regs_per_thread = 16;
  simtest t;
  st_init_cfg(&t, kern, "t", &cfg);
  st_buf(&t, "out", 4096, NULL);
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0, WS_ERR_LIMIT,
                "kernel 't' needs 21 registers per thread; this device allows at most 16");
  st_fini(&t);
}

Test(device, argument_checks) {
  const char *two = ".kernel a\n.param .ptr out\nEXIT\n.kernel b\n.param .ptr out\nEXIT\n";
  simtest t;
  st_init(&t, two, "a");
  expect_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){1, 1, 1}, 0, WS_ERR_INVALID, "param 'out' was not set");
  st_buf(&t, "out", 16, NULL);
  const ws_kernel *b = ws_program_find_kernel(t.prog, "b");
  cr_expect_eq(ws_device_launch(t.dev, b, (ws_dim3){1, 1, 1}, (ws_dim3){1, 1, 1}, 0, &t.args, NULL),
               WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(t.ctx), "the args were prepared for kernel 'a', not for kernel 'b'");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){1, 1, 1}, 0), WS_OK);
  st_fini(&t);
}

Test(device, stats_count_every_issue) {
  simtest t;
  st_init(&t, kern, "t");
  uint64_t o = st_buf(&t, "out", 4096, NULL);
  st_run(&t, 2, 48); /* per CTA: warp 0 has 32 lanes, warp 1 has 16 */
  /* 7 instructions per warp, all issued (the @P0 MOV too, even in warp 0
   * where no lane's guard holds) */
  cr_expect_eq(t.stats.ctas, 2);
  cr_expect_eq(t.stats.warp_insns, 2 * 2 * 7);
  /* per CTA: warp 0: 6*32 + 0; warp 1: 6*16 + 8 lanes (tid 40..47) run the MOV */
  cr_expect_eq(t.stats.thread_insns, 2 * (6 * 32 + 6 * 16 + 8));
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_LSU], 2 * 2 * 2);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_CTRL], 2 * 2 * 1);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_INT], 2 * 2 * 4);
  uint32_t out[48];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 48; i++) cr_expect_eq(out[i], i);
  st_fini(&t);
}

Test(device, memory_through_the_device) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.gpu.dram_size_bytes = 1 << 20;
  ws_ctx *ctx = ws_ctx_create();
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  cr_expect_eq(ws_device_cfg(dev)->gpu.dram_size_bytes, 1 << 20);
  cr_expect_eq(ws_device_ctx(dev), ctx);
  uint64_t p = 0;
  cr_expect_eq(ws_device_malloc(dev, 2 << 20, &p), WS_ERR_LIMIT);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "out of device memory: requested 2097152 bytes, 0 of 1048576 bytes in use");
  cr_assert_eq(ws_device_malloc(dev, 1000, &p), WS_OK);
  uint8_t in[1000], back[1000];
  for (int i = 0; i < 1000; i++) in[i] = (uint8_t)i;
  cr_expect_eq(ws_device_memcpy_htod(dev, p, in, 1000), WS_OK);
  cr_expect_eq(ws_device_memcpy_dtoh(dev, back, p, 1000), WS_OK);
  cr_expect_eq(memcmp(in, back, 1000), 0);
  cr_expect_eq(ws_device_memset(dev, p, 0xFF, 1001), WS_ERR_INVALID);
  cr_expect_eq(ws_device_free(dev, p), WS_OK);
  ws_device_destroy(dev);
  ws_device_destroy(NULL);
  ws_ctx_destroy(ctx);
}

/* The device checks its copy of the config and derives its geometry: a
 * field edited after loading cannot reach the timing model unchecked. */
Test(device, checks_and_derives_an_edited_config) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.hbm.channel_mbps = 0;
  ws_ctx *ctx = ws_ctx_create();
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "a100: error: key 'hbm.channel_mbps' = 0 is out of range [1, 1000000] MB/s");
  cr_expect_null(dev);
  cfg = ws_config_default();
  cfg.l1.size_kib = 14; /* 14 KiB / (56 ways x 128 B) = 2 sets */
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_device_cfg(dev)->geom.l1_sets, 2);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

Test(device, smid_wraps_over_the_sms) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.gpu.num_sms = 4;
  simtest t;
  st_init_cfg(&t,
              ".kernel t\n.param .ptr out\nS2R R0, SR_CTAID.X\nS2R R1, SR_SMID\nLDP.64 R2, [out]\n"
              "IMAD.WIDE.U32 R2, R0, 4, R2\nSTG.32 [R2], R1\nEXIT\n",
              "t", &cfg);
  uint64_t o = st_buf(&t, "out", 40, NULL);
  st_run(&t, 10, 1);
  uint32_t out[10];
  st_read(&t, out, o, sizeof out);
  for (uint32_t i = 0; i < 10; i++) cr_expect_eq(out[i], i % 4);
  st_fini(&t);
}

/* ---- pixel following -------------------------------------------------------------- */

/* out[tid] = tid for 64 threads: a kernel that reads nothing tagged, so
 * every byte it writes is untagged, whatever the bytes held before. */
Test(device, following_tags_counts_clears_and_refuses_bad_ranges) {
  simtest t;
  st_init(&t, kern, "t");
  uint64_t n = 99;
  cr_expect(!ws_device_following(t.dev));
  uint64_t p = st_buf(&t, "out", 256, NULL);
  cr_expect_eq(ws_device_follow_range(t.dev, p, 4), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "cannot tag device bytes: following is off (ws_device_set_follow first)");
  cr_expect_eq(ws_device_followed(t.dev, p, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 0, "nothing is tagged while following is off");
  ws_device_set_follow(t.dev, true);
  cr_expect(ws_device_following(t.dev));
  cr_assert_eq(ws_device_follow_range(t.dev, p + 6, 5), WS_OK, "%s", ws_errmsg(t.ctx));
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 2, "bytes 6..10 touch words 1 and 2");
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 1, &n), WS_OK);
  cr_expect_eq(n, 5);
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 256, &n), WS_OK);
  cr_expect_eq(n, 1);
  /* the kernel overwrites words 0..63 with untagged values */
  st_run(&t, 1, 64);
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 1, &n), WS_OK);
  cr_expect_eq(n, 0, "a store of an untagged value clears the tag");
  /* host writes are untagged bytes */
  cr_assert_eq(ws_device_follow_range(t.dev, p, 256), WS_OK);
  cr_assert_eq(ws_device_memset(t.dev, p, 0, 16), WS_OK);
  uint32_t words[4] = {1, 2, 3, 4};
  cr_assert_eq(ws_device_memcpy_htod(t.dev, p + 240, words, sizeof words), WS_OK);
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 64 - 4 - 4);
  /* a copy's host tags, both ways */
  uint8_t tags[8] = {0, 0, 0, 0, 0, 1, 0, 0}, back[8];
  bool any = false;
  cr_assert_eq(ws_device_follow_htod(t.dev, p, tags, sizeof tags), WS_OK);
  cr_assert_eq(ws_device_follow_dtoh(t.dev, back, p, sizeof back, &any), WS_OK);
  cr_expect(any);
  cr_expect_arr_eq(back, tags, sizeof tags);
  /* bad ranges and element sizes */
  cr_expect_eq(ws_device_followed(t.dev, p, 10, 4, &n), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(t.ctx),
                   "count of tagged elements: 10 bytes are not a whole number of 4-byte elements");
  cr_expect_eq(ws_device_follow_range(t.dev, p + 200, 100), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(t.ctx), "tag of 100 bytes at 0x") != NULL, "%s", ws_errmsg(t.ctx));
  cr_expect(strstr(ws_errmsg(t.ctx), "runs past the end of the 256-byte allocation") != NULL);
  /* off forgets every tag */
  ws_device_set_follow(t.dev, false);
  ws_device_set_follow(t.dev, true);
  cr_assert_eq(ws_device_followed(t.dev, p, 256, 1, &n), WS_OK);
  cr_expect_eq(n, 0);
  st_fini(&t);
}
