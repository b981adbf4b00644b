/* test_unified.c - managed memory end to end: TinyViT32 with its weights
 * copied, paged in by faults and prefetched matches OpenBLAS every way;
 * the faults move exactly the weights' 64 KiB blocks and add their batches'
 * time to the kernels that wait; the copy and the prefetch take what the
 * link model gives for their bytes; a prefetch moves only what is not on
 * the device, and the host's touch brings pages back.
 *
 * Runtime: three TinyViT32 runs on a100, about a second. */
#include <criterion/criterion.h>
#include <math.h>

#include "models/vit/unified.h"
#include "sim/host/pcie.h"
#include "sim/host/runtime.h"

static ws_ctx *ctx;
static ws_gpu_cfg gpu;

static void setup(void) {
  ctx = ws_ctx_create();
  cr_assert_eq(ws_config_load_preset(ctx, "a100", &gpu), WS_OK, "%s", ws_errmsg(ctx));
}
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(unified, .init = setup, .fini = teardown);

Test(unified, three_ways_of_moving_the_weights) {
  ws_unified_way w[3];
  cr_assert_eq(ws_unified_run(ctx, &gpu, 1, w), WS_OK, "%s", ws_errmsg(ctx));
  const ws_unified_way *copy = &w[0], *man = &w[1], *pre = &w[2];
  for (int i = 0; i < 3; i++) cr_expect(w[i].pass, "way %d matches OpenBLAS", i);
  uint64_t weights = copy->move_bytes, block = gpu.uvm.migrate_bytes;
  uint64_t blocks = (weights + block - 1) / block * block;
  cr_expect_eq(weights, 162816, "TinyViT32's tensors, each 256-byte aligned");
  cr_expect_eq(copy->move_ns, ws_pcie_transfer_ns(&gpu.pcie, weights, WS_PCIE_H2D, WS_PCIE_PINNED));
  cr_expect_eq(pre->move_bytes, blocks, "a prefetch moves whole blocks");
  cr_expect_eq(pre->move_ns, ws_pcie_transfer_ns(&gpu.pcie, blocks, WS_PCIE_H2D, WS_PCIE_PINNED));
  cr_expect_eq(copy->uvm.faults + pre->uvm.faults, 0);
  cr_expect_eq(man->move_bytes, 0, "nothing is copied");
  cr_expect_gt(man->uvm.batches, 0);
  cr_expect_eq(man->uvm.migrated_bytes, blocks, "the faults and the prefetcher move every block once");
  cr_expect_eq(man->uvm.resident_bytes, 0, "the run frees its weights at the end");
  cr_expect_eq(man->faulting_kernels, man->uvm.batches, "each faulting kernel waits on one batch here");
  /* each batch: the driver's fixed work, then its blocks on the link */
  double floor_ns = (double)man->uvm.batches * gpu.uvm.fault_batch_ns;
  cr_expect_geq((double)man->fault_ns, floor_ns);
  cr_expect_leq((double)man->fault_ns, floor_ns + (double)man->uvm.batches * 2300.0 * 3 + 10);
  /* the kernels that waited are longer by the batches' time */
  double extra = (double)man->kernels_ns - (double)copy->kernels_ns;
  cr_expect(fabs(extra - (double)man->fault_ns) <= 0.02 * (double)man->fault_ns,
            "kernels %.0f ns longer, faults %.0f ns", extra, (double)man->fault_ns);
  cr_expect_gt(man->end_ns, copy->end_ns);
}

Test(unified, a_prefetch_moves_only_what_is_not_there) {
  ws_device *dev;
  ws_runtime *rt;
  cr_assert_eq(ws_device_create(ctx, &gpu, &dev), WS_OK);
  cr_assert_eq(ws_runtime_create(dev, &rt), WS_OK);
  uint64_t p;
  const uint64_t size = 5 * 65536 + 100;
  cr_assert_eq(ws_device_malloc_managed(dev, size, &p), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_device_allocated_bytes(dev), 0, "managed memory is not a device allocation");
  cr_assert_eq(ws_runtime_prefetch(rt, 0, p, size, NULL), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_runtime_prefetch(rt, 0, p, size, "again"), WS_OK);
  uint8_t byte = 7;
  cr_assert_eq(ws_device_memcpy_htod(dev, p + 2 * 65536 + 1, &byte, 1), WS_OK); /* the host takes block 2 */
  cr_assert_eq(ws_runtime_prefetch(rt, 0, p, size, "after the host"), WS_OK);
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(rt, &n);
  cr_assert_eq(n, 3);
  cr_expect_eq(r[0].size_bytes, 6 * 65536);
  cr_expect_str_eq(r[0].name, "prefetch");
  cr_expect_eq(r[0].end_ns - r[0].start_ns,
               ws_pcie_transfer_ns(&gpu.pcie, 6 * 65536, WS_PCIE_H2D, WS_PCIE_PINNED));
  cr_expect_eq(r[1].size_bytes, 0);
  cr_expect_eq(r[1].end_ns, r[1].start_ns, "nothing to move takes no time");
  cr_expect_eq(r[2].size_bytes, 65536);
  cr_expect_eq(ws_device_managed_stats(dev).hinted_bytes, 7 * 65536);
  cr_expect_eq(ws_runtime_prefetch(rt, 0, p + size, 1, NULL), WS_ERR_INVALID, "past the allocation");
  uint64_t d;
  cr_assert_eq(ws_device_malloc(dev, 4096, &d), WS_OK);
  cr_expect_eq(ws_runtime_prefetch(rt, 0, d, 4096, NULL), WS_ERR_INVALID, "device memory is not managed");
  cr_assert_eq(ws_device_free(dev, p), WS_OK);
  cr_expect_eq(ws_device_managed_stats(dev).resident_bytes, 0);
  ws_runtime_destroy(rt);
  ws_device_destroy(dev);
}
