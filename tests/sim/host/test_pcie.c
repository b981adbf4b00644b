/* test_pcie.c - the host link model: transfer durations worked out by hand
 * from the shipped presets' [pcie] values, generation ratios, pinned versus
 * pageable, and the link keys' validation.
 *
 * Design: every expected duration below is derived in the comment beside
 * it from the preset values (gen, x16, 256 B payload, 24 B per TLP, 10 us
 * setup, 8000 MB/s host copy, 64 KiB staging chunks), so a change to the
 * model or to a preset shows up as a named failure. On gen3 x16 with
 * 128b/130b one wire byte takes 8 x 130 x 1000 / (128 x 16 x 8000) =
 * 65/1024 ns; gen4 halves that, gen5 halves it again. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/common/config.h"
#include "sim/host/pcie.h"

static ws_cfg_pcie preset(const char *name) {
  ws_gpu_cfg cfg;
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_config_load_preset(ctx, name, &cfg), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  return cfg.pcie;
}

#define MIB (1024u * 1024u)

Test(pcie, presets_name_their_links) {
  static const struct {
    const char *name;
    uint32_t gen;
  } want[] = {{"v100", 3}, {"a100", 4}, {"h100", 5}, {"rtx-a6000", 4}, {"classroom", 3}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ws_cfg_pcie p = preset(want[i].name);
    cr_expect_eq(p.gen, want[i].gen, "%s", want[i].name);
    cr_expect_eq(p.lanes, 16, "%s", want[i].name);
    cr_expect_eq(p.max_payload_bytes, 256, "%s", want[i].name);
    cr_expect_eq(p.tlp_overhead_bytes, 24, "%s", want[i].name);
    cr_expect_eq(p.setup_lat_ns, 10000, "%s", want[i].name);
  }
}

Test(pcie, generation_table) {
  cr_assert_null(ws_pcie_gen_info(0));
  cr_assert_null(ws_pcie_gen_info(6));
  const ws_pcie_gen *g3 = ws_pcie_gen_info(3), *g5 = ws_pcie_gen_info(5), *g1 = ws_pcie_gen_info(1);
  cr_expect_eq(g3->lane_mtps, 8000);
  cr_expect_eq(g3->code_data_bits, 128);
  cr_expect_eq(g3->code_line_bits, 130);
  cr_expect_eq(g5->lane_mtps, 32000);
  cr_expect_eq(g1->lane_mtps, 2500);
  cr_expect_eq(g1->code_line_bits, 10);
}

Test(pcie, wire_bytes_add_one_overhead_per_tlp) {
  ws_cfg_pcie p = preset("v100");
  cr_expect_eq(ws_pcie_wire_bytes(&p, 1), 1 + 24);
  cr_expect_eq(ws_pcie_wire_bytes(&p, 256), 256 + 24);
  cr_expect_eq(ws_pcie_wire_bytes(&p, 257), 257 + 2 * 24);
  cr_expect_eq(ws_pcie_wire_bytes(&p, MIB), MIB + 4096 * 24); /* 4096 TLPs */
}

Test(pcie, pinned_durations_by_hand_gen3) {
  ws_cfg_pcie p = preset("v100");
  /* 1 MiB: (1048576 + 4096 x 24) x 65 / 1024 = 1146880 x 65 / 1024 = 72800 ns exactly */
  cr_expect_eq(ws_pcie_dma_ns(&p, MIB), 72800);
  cr_expect_eq(ws_pcie_transfer_ns(&p, MIB, WS_PCIE_H2D, WS_PCIE_PINNED), 10000 + 72800);
  cr_expect_eq(ws_pcie_transfer_ns(&p, MIB, WS_PCIE_D2H, WS_PCIE_PINNED), 10000 + 72800);
  /* 1000 B: 4 TLPs, 1096 wire bytes x 65 / 1024 = 69.57 -> 70 ns */
  cr_expect_eq(ws_pcie_transfer_ns(&p, 1000, WS_PCIE_H2D, WS_PCIE_PINNED), 10070);
  cr_expect_eq(ws_pcie_transfer_ns(&p, 0, WS_PCIE_H2D, WS_PCIE_PINNED), 0);
}

Test(pcie, setup_latency_dominates_tiny_copies) {
  ws_cfg_pcie p = preset("v100");
  /* 4 B: 28 wire bytes x 65 / 1024 = 1.78 -> 2 ns behind 10 us of setup */
  uint64_t t = ws_pcie_transfer_ns(&p, 4, WS_PCIE_H2D, WS_PCIE_PINNED);
  cr_expect_eq(t, 10002);
  cr_expect_gt(p.setup_lat_ns * 1000u, 999u * t, "setup is over 99.9%% of a 4-byte copy");
  /* and 4 B cost nearly what 4 KiB cost: 4096 + 16 x 24 = 4480 x 65 / 1024 = 284.4 -> 285 ns */
  cr_expect_eq(ws_pcie_transfer_ns(&p, 4096, WS_PCIE_H2D, WS_PCIE_PINNED), 10285);
}

Test(pcie, generations_scale_two_to_one) {
  ws_cfg_pcie g3 = preset("v100"), g4 = preset("a100"), g5 = preset("h100");
  /* gen4: 1146880 x 65 / 2048 = 36400; gen5: 1146880 x 65 / 4096 = 18200 */
  cr_expect_eq(ws_pcie_dma_ns(&g4, MIB), 36400);
  cr_expect_eq(ws_pcie_dma_ns(&g5, MIB), 18200);
  cr_expect_eq(ws_pcie_dma_ns(&g3, 64 * MIB), 2 * ws_pcie_dma_ns(&g4, 64 * MIB));
  cr_expect_eq(ws_pcie_dma_ns(&g4, 64 * MIB), 2 * ws_pcie_dma_ns(&g5, 64 * MIB));
  cr_expect_eq(ws_pcie_transfer_ns(&g5, MIB, WS_PCIE_H2D, WS_PCIE_PINNED), 28200);
}

Test(pcie, peak_bandwidth) {
  ws_cfg_pcie g3 = preset("v100"), g4 = preset("rtx-a6000"), g5 = preset("h100");
  /* 16 x 8000 MT/s x 128/130 / 8 = 15753.8 MB/s raw, x 256/280 = 14403.5 MB/s of payload;
   * gen4 28807.0, gen5 57614.1 */
  cr_expect_eq(ws_pcie_peak_mbps(&g3), 14403);
  cr_expect_eq(ws_pcie_peak_mbps(&g4), 28807);
  cr_expect_eq(ws_pcie_peak_mbps(&g5), 57614);
  /* gen1 x16, 8b/10b: 16 x 2500 x 8/10 / 8 = 4000 MB/s raw; a wire byte takes 1/4 ns */
  g3.gen = 1;
  cr_expect_eq(ws_pcie_peak_mbps(&g3), 3657); /* 4000 x 256 / 280 = 3657.1 */
  cr_expect_eq(ws_pcie_dma_ns(&g3, MIB), 1146880 / 4);
}

Test(pcie, pageable_is_staged_and_slower) {
  ws_cfg_pcie p = preset("v100");
  /* 16 chunks of 64 KiB; CPU copy 65536 x 1000 / 8000 = 8192 ns, DMA (65536 + 256 x 24) x 65 / 1024
   * = 4550 ns. The CPU is the slower stage: the 16th copy ends at 16 x 8192 = 131072, its DMA at
   * 135622; plus setup. */
  uint64_t h2d = ws_pcie_transfer_ns(&p, MIB, WS_PCIE_H2D, WS_PCIE_PAGEABLE);
  cr_expect_eq(ws_pcie_host_copy_ns(&p, 65536), 8192);
  cr_expect_eq(ws_pcie_dma_ns(&p, 65536), 4550);
  cr_expect_eq(h2d, 10000 + 135622);
  /* D2H runs the stages the other way round: DMA first (4550), then 16 CPU copies back to back */
  cr_expect_eq(ws_pcie_transfer_ns(&p, MIB, WS_PCIE_D2H, WS_PCIE_PAGEABLE), 10000 + 4550 + 16 * 8192);
  cr_expect_gt(h2d, ws_pcie_transfer_ns(&p, MIB, WS_PCIE_H2D, WS_PCIE_PINNED));
  /* gen5 is no help when the CPU copy is the bottleneck: 1 GiB pageable runs near 8000 MB/s */
  ws_cfg_pcie g5 = preset("h100");
  uint64_t gib = 1024ull * MIB, t = ws_pcie_transfer_ns(&g5, gib, WS_PCIE_H2D, WS_PCIE_PAGEABLE);
  cr_expect_eq(t, 10000 + 16384 * 8192 + ws_pcie_dma_ns(&g5, 65536));
  cr_expect_lt(ws_pcie_transfer_ns(&g5, gib, WS_PCIE_H2D, WS_PCIE_PINNED) * 3, t);
}

Test(pcie, pageable_partial_last_chunk) {
  ws_cfg_pcie p = preset("v100");
  /* 100000 B = 65536 + 34464. Chunk 1: copy 8192, DMA 4550 (ends 12742). Chunk 2: copy 34464 x 1000
   * / 8000 = 4308 (ends 12500), waits for the DMA engine until 12742, DMA of 135 TLPs = 37704 wire
   * bytes x 65 / 1024 = 2393.3 -> 2394: ends 15136. */
  cr_expect_eq(ws_pcie_transfer_ns(&p, 100000, WS_PCIE_H2D, WS_PCIE_PAGEABLE), 10000 + 15136);
  /* a transfer smaller than a chunk is one copy then one DMA: 1000 B -> 125 + 70 */
  cr_expect_eq(ws_pcie_transfer_ns(&p, 1000, WS_PCIE_H2D, WS_PCIE_PAGEABLE), 10000 + 125 + 70);
}

Test(pcie, link_keys_are_validated) {
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_config_set(ctx, &cfg, "pcie.gen=6"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "--set pcie.gen=6: error: key 'pcie.gen' = 6 is out of range [1, 5]");
  cr_assert_eq(ws_config_set(ctx, &cfg, "pcie.lanes=3"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100"), WS_ERR_INVALID);
  cr_expect_str_eq(
      ws_errmsg(ctx),
      "a100: error: key 'pcie.lanes': x3 is not a PCIe link width (x1, x2, x4, x8, x12, x16, x32)");
  cr_assert_eq(ws_config_set(ctx, &cfg, "pcie.lanes=8"), WS_OK);
  cr_assert_eq(ws_config_set(ctx, &cfg, "pcie.max_payload_bytes=384"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100"), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "a100: error: key 'pcie.max_payload_bytes': 384 B is not a power of two");
  cr_assert_eq(ws_config_set(ctx, &cfg, "pcie.max_payload_bytes=512"), WS_OK);
  cr_assert_eq(ws_config_validate(ctx, &cfg, "a100"), WS_OK, "%s", ws_errmsg(ctx));
  /* x8 gen4, 512 B TLPs: 8 x 16000 x 128/130 / 8 x 512/536 = 15048.5 MB/s */
  cr_expect_eq(ws_pcie_peak_mbps(&cfg.pcie), 15048);
  ws_ctx_destroy(ctx);
}

Test(pcie, ini_section_errors) {
  ws_ctx *ctx = ws_ctx_create();
  const char *base = ws_config_preset_text("classroom");
  cr_assert_not_null(base);
  char text[16384];
  snprintf(text, sizeof text, "%s\n[pcie]\nlane = 8\n", base);
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_text(ctx, text, strlen(text), "c.ini", &cfg), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "error: unknown key 'lane' in section [pcie]"), "%s", ws_errmsg(ctx));
  snprintf(text, sizeof text, "%s\n[pci]\ngen = 3\n", base);
  cr_assert_eq(ws_config_load_text(ctx, text, strlen(text), "c.ini", &cfg), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "error: unknown section [pci] (sections: gpu, sm, regfile, smem, l1, l2, "
                                   "noc, hbm, pcie, uvm)"),
            "%s", ws_errmsg(ctx));
  snprintf(text, sizeof text, "%s\n[pcie]\ngen = 5\n", base);
  cr_assert_eq(ws_config_load_text(ctx, text, strlen(text), "c.ini", &cfg), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "error: duplicate key 'pcie.gen'"), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}
