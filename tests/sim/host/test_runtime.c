/* test_runtime.c - the host runtime: stream ordering, copy/compute
 * overlap, full-duplex copy engines, events, cross-stream waits, host work,
 * real kernel results, the printed table, and the error messages of misuse.
 *
 * Design: every run uses the classroom preset (PCIe gen3 x16, 1000 MHz, so
 * one core cycle is one ns), whose link costs are worked out in
 * tests/sim/host/test_pcie.c: a pinned 1 MiB copy takes 10000 + 72800 = 82800
 * ns, a 4-byte one 10002 ns, a 256-byte one 10018 ns ((256 + 24) x 65 /
 * 1024 = 17.8 -> 18), a pageable 1 MiB one 145622 ns; a launch call keeps
 * the host 4000 ns. Kernel durations come from the timing model's cycle
 * count in the record, so the expected times below are the stream rules
 * applied to those figures by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "isa/asm.h"
#include "sim/host/runtime.h"

#define MIB (1024u * 1024u)
#define COPY_1MIB_NS 82800u
#define COPY_4B_NS 10002u
#define COPY_256B_NS 10018u
#define PAGEABLE_1MIB_NS 145622u
#define LAUNCH_NS 4000u

/* out[i] = 3 x in[i] + 1 for thread i */
static const char *kern_src =
    ".kernel triple\n.param .ptr in\n.param .ptr out\n"
    "S2R R0, SR_TID.X\nLDP.64 R2, [in]\nIMAD.WIDE.U32 R2, R0, 4, R2\nLDG.32 R10, [R2]\n"
    "MOV R1, 1\nIMAD R13, R10, 3, R1\n"
    "LDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R0, 4, R4\nSTG.32 [R4], R13\nEXIT\n";

typedef struct fixture {
  ws_ctx *ctx;
  ws_device *dev;
  ws_runtime *rt;
  ws_program *prog;
  const ws_kernel *k;
  ws_args args;
  uint64_t d_in, d_out, d_big;
} fixture;

static void setup(fixture *f) {
  memset(f, 0, sizeof *f);
  f->ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(f->ctx, "classroom", &cfg), WS_OK, "%s", ws_errmsg(f->ctx));
  cr_assert_eq(ws_device_create(f->ctx, &cfg, &f->dev), WS_OK);
  cr_assert_eq(ws_runtime_create(f->dev, &f->rt), WS_OK);
  cr_assert_eq(ws_asm_parse(f->ctx, kern_src, strlen(kern_src), "t.wsa", &f->prog), WS_OK, "%s",
               ws_errmsg(f->ctx));
  f->k = ws_program_find_kernel(f->prog, "triple");
  cr_assert_eq(ws_runtime_malloc(f->rt, 256, &f->d_in), WS_OK);
  cr_assert_eq(ws_runtime_malloc(f->rt, 256, &f->d_out), WS_OK);
  cr_assert_eq(ws_runtime_malloc(f->rt, MIB, &f->d_big), WS_OK);
  ws_args_init(&f->args, f->k);
  cr_assert_eq(ws_args_set_ptr(f->ctx, &f->args, "in", f->d_in), WS_OK);
  cr_assert_eq(ws_args_set_ptr(f->ctx, &f->args, "out", f->d_out), WS_OK);
}

static void teardown(fixture *f) {
  ws_runtime_destroy(f->rt);
  ws_device_destroy(f->dev);
  ws_program_destroy(f->prog);
  ws_ctx_destroy(f->ctx);
}

static ws_runtime_host host_buf(fixture *f, uint64_t bytes, ws_pcie_host_mem mem) {
  ws_runtime_host h = 0;
  cr_assert_eq(ws_runtime_host_alloc(f->rt, bytes, mem, &h), WS_OK, "%s", ws_errmsg(f->ctx));
  return h;
}

static ws_runtime_stream stream(fixture *f) {
  ws_runtime_stream s;
  cr_assert_eq(ws_runtime_stream_create(f->rt, &s), WS_OK);
  return s;
}

static ws_runtime_event event(fixture *f) {
  ws_runtime_event e;
  cr_assert_eq(ws_runtime_event_create(f->rt, &e), WS_OK);
  return e;
}

static void launch(fixture *f, ws_runtime_stream s, const char *name) {
  ws_status st =
      ws_runtime_launch(f->rt, s, f->k, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0, &f->args, name);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(f->ctx));
}

static const ws_runtime_record *rec(fixture *f, size_t i) {
  size_t n;
  const ws_runtime_record *r = ws_runtime_timeline(f->rt, &n);
  cr_assert_lt(i, n, "record %zu of %zu", i, n);
  return &r[i];
}

static size_t rec_count(fixture *f) {
  size_t n;
  ws_runtime_timeline(f->rt, &n);
  return n;
}

static void expect_span(const ws_runtime_record *r, uint64_t start, uint64_t end) {
  cr_expect_eq(r->start_ns, start, "%s '%s' starts at %llu", ws_runtime_op_name(r->kind), r->name,
               (unsigned long long)r->start_ns);
  cr_expect_eq(r->end_ns, end, "%s '%s' ends at %llu", ws_runtime_op_name(r->kind), r->name,
               (unsigned long long)r->end_ns);
}

/* The kernel's duration in ns at 1000 MHz: its cycle count, which must be
 * real (the timing model ran) and short next to a 1 MiB copy. */
static uint64_t kernel_ns(const ws_runtime_record *r) {
  cr_assert_eq(r->kind, WS_RUNTIME_OP_KERNEL);
  cr_assert_gt(r->stats.cycles, 0);
  cr_assert_lt(r->stats.cycles, COPY_1MIB_NS - LAUNCH_NS);
  return r->stats.cycles;
}

Test(runtime, two_streams_overlap_copy_and_kernel) {
  fixture f;
  setup(&f);
  ws_runtime_host big = host_buf(&f, MIB, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f), s2 = stream(&f);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_big, big, 0, MIB, "weights"), WS_OK);
  launch(&f, s2, "qkv_proj");
  expect_span(rec(&f, 0), 0, COPY_1MIB_NS);
  uint64_t k = kernel_ns(rec(&f, 1));
  /* the kernel starts when its launch call returns, under the copy */
  expect_span(rec(&f, 1), LAUNCH_NS, LAUNCH_NS + k);
  cr_expect_str_eq(rec(&f, 1)->name, "qkv_proj");
  cr_expect_eq(rec(&f, 1)->stream, s2);
  /* max(82800, 4000 + k), not the sum */
  cr_expect_eq(ws_runtime_synchronize(f.rt), COPY_1MIB_NS);
  teardown(&f);
}

Test(runtime, one_stream_serializes) {
  fixture f;
  setup(&f);
  ws_runtime_host big = host_buf(&f, MIB, WS_PCIE_PINNED);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_big, big, 0, MIB, "up"), WS_OK);
  launch(&f, 0, NULL);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, big, 0, f.d_big, MIB, "down"), WS_OK);
  uint64_t k = kernel_ns(rec(&f, 1));
  cr_expect_str_eq(rec(&f, 1)->name, "triple", "an unnamed launch takes the kernel's name");
  expect_span(rec(&f, 0), 0, COPY_1MIB_NS);
  expect_span(rec(&f, 1), COPY_1MIB_NS, COPY_1MIB_NS + k);
  expect_span(rec(&f, 2), COPY_1MIB_NS + k, 2 * COPY_1MIB_NS + k);
  cr_expect_eq(ws_runtime_synchronize(f.rt), 2 * COPY_1MIB_NS + k);
  teardown(&f);
}

Test(runtime, h2d_and_d2h_run_at_once_on_separate_engines) {
  fixture f;
  setup(&f);
  ws_runtime_host a = host_buf(&f, MIB, WS_PCIE_PINNED), b = host_buf(&f, MIB, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f), s2 = stream(&f), s3 = stream(&f);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_big, a, 0, MIB, NULL), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, s2, b, 0, f.d_big, MIB, NULL), WS_OK);
  expect_span(rec(&f, 0), 0, COPY_1MIB_NS);
  expect_span(rec(&f, 1), 0, COPY_1MIB_NS);
  cr_expect_eq(rec(&f, 1)->kind, WS_RUNTIME_OP_D2H);
  cr_expect_eq(rec(&f, 1)->size_bytes, MIB);
  /* a second H2D, even on its own stream, waits for the one H2D engine */
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s3, f.d_big, b, 0, MIB, NULL), WS_OK);
  expect_span(rec(&f, 2), COPY_1MIB_NS, 2 * COPY_1MIB_NS);
  cr_expect_eq(ws_runtime_synchronize(f.rt), 2 * COPY_1MIB_NS);
  teardown(&f);
}

Test(runtime, event_elapsed_time) {
  fixture f;
  setup(&f);
  ws_runtime_host big = host_buf(&f, MIB, WS_PCIE_PINNED);
  ws_runtime_event e0 = event(&f), e1 = event(&f);
  cr_assert_eq(ws_runtime_event_record(f.rt, e0, 0, "start"), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_big, big, 0, MIB, NULL), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_big, big, 0, 1000, NULL), WS_OK);
  cr_assert_eq(ws_runtime_event_record(f.rt, e1, 0, "stop"), WS_OK);
  uint64_t ns = 0;
  cr_assert_eq(ws_runtime_event_elapsed_ns(f.rt, e0, e1, &ns), WS_OK, "%s", ws_errmsg(f.ctx));
  cr_expect_eq(ns, COPY_1MIB_NS + 10070); /* 1000 B: 4 TLPs, 1096 x 65 / 1024 -> 70 ns */
  expect_span(rec(&f, 3), ns, ns);
  cr_expect_eq(rec(&f, 3)->kind, WS_RUNTIME_OP_EVENT);
  cr_expect_eq(ws_runtime_event_elapsed_ns(f.rt, e1, e0, &ns), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "event 1 (0 ns) precedes event 2 (92870 ns)");
  teardown(&f);
}

Test(runtime, pageable_copies_block_the_host) {
  fixture f;
  setup(&f);
  ws_runtime_host pg = host_buf(&f, MIB, WS_PCIE_PAGEABLE), small = host_buf(&f, 4, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f), s2 = stream(&f);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_big, pg, 0, MIB, "pageable"), WS_OK);
  expect_span(rec(&f, 0), 0, PAGEABLE_1MIB_NS);
  cr_expect_eq(rec(&f, 0)->host_mem, WS_PCIE_PAGEABLE);
  cr_expect_eq(ws_runtime_now_ns(f.rt), PAGEABLE_1MIB_NS);
  /* the D2H engine is idle, but the host only issues this once the pageable copy returned */
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, s2, small, 0, f.d_out, 4, NULL), WS_OK);
  expect_span(rec(&f, 1), PAGEABLE_1MIB_NS, PAGEABLE_1MIB_NS + COPY_4B_NS);
  teardown(&f);
}

Test(runtime, stream_waits_on_another_streams_event) {
  fixture f;
  setup(&f);
  ws_runtime_host big = host_buf(&f, MIB, WS_PCIE_PINNED), small = host_buf(&f, 4, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f), s2 = stream(&f), s3 = stream(&f);
  ws_runtime_event done = event(&f);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_big, big, 0, MIB, NULL), WS_OK);
  cr_assert_eq(ws_runtime_event_record(f.rt, done, s1, NULL), WS_OK);
  cr_assert_eq(ws_runtime_stream_wait_event(f.rt, s2, done), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, s2, small, 0, f.d_big, 4, NULL), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, s3, small, 0, f.d_big, 4, NULL), WS_OK);
  expect_span(rec(&f, 1), COPY_1MIB_NS, COPY_1MIB_NS);
  expect_span(rec(&f, 2), COPY_1MIB_NS, COPY_1MIB_NS + COPY_4B_NS);
  /* s3 did not wait, but the one D2H engine serves copies in issue order: after s2's */
  expect_span(rec(&f, 3), COPY_1MIB_NS + COPY_4B_NS, COPY_1MIB_NS + 2 * COPY_4B_NS);
  uint64_t now = 0;
  cr_assert_eq(ws_runtime_stream_synchronize(f.rt, s1, &now), WS_OK);
  cr_expect_eq(now, COPY_1MIB_NS);
  teardown(&f);
}

Test(runtime, without_a_wait_streams_do_not_order) {
  fixture f;
  setup(&f);
  ws_runtime_host big = host_buf(&f, MIB, WS_PCIE_PINNED), small = host_buf(&f, 4, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f), s2 = stream(&f);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_big, big, 0, MIB, NULL), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, s2, small, 0, f.d_big, 4, NULL), WS_OK);
  expect_span(rec(&f, 1), 0, COPY_4B_NS);
  teardown(&f);
}

Test(runtime, kernel_results_are_real_after_d2h) {
  fixture f;
  setup(&f);
  ws_runtime_host in = host_buf(&f, 256, WS_PCIE_PINNED), out = host_buf(&f, 256, WS_PCIE_PINNED);
  uint32_t *vin = ws_runtime_host_data(f.rt, in);
  for (uint32_t i = 0; i < 64; i++) vin[i] = i * 7u;
  cr_assert_eq(ws_runtime_host_work(f.rt, "preprocess", 50000), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, in, 0, 256, "upload"), WS_OK);
  launch(&f, 0, "triple");
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, out, 0, f.d_out, 256, "download"), WS_OK);
  const uint32_t *vout = ws_runtime_host_data(f.rt, out);
  for (uint32_t i = 0; i < 64; i++) cr_expect_eq(vout[i], 3u * i * 7u + 1u, "out[%u]", i);
  cr_assert_eq(rec_count(&f), 4);
  const ws_runtime_record *host = rec(&f, 0), *k = rec(&f, 2);
  cr_expect_eq(host->kind, WS_RUNTIME_OP_HOST);
  cr_expect_eq(host->stream, WS_RUNTIME_STREAM_HOST);
  expect_span(host, 0, 50000);
  expect_span(rec(&f, 1), 50000, 50000 + COPY_256B_NS);
  uint64_t kn = kernel_ns(k);
  /* host issues the launch at 50000 + 4000; the upload ends later, at 60018 */
  expect_span(k, 50000 + COPY_256B_NS, 50000 + COPY_256B_NS + kn);
  cr_expect_eq(k->grid.x, 1);
  cr_expect_eq(k->block.x, 64);
  cr_expect_eq(k->stats.ctas, 1);
  cr_expect_eq(k->stats.warp_insns, 2 * 10, "2 warps x 10 instructions");
  expect_span(rec(&f, 3), 50000 + COPY_256B_NS + kn, 50000 + 2 * COPY_256B_NS + kn);
  cr_expect_str_eq(rec(&f, 3)->name, "download");
  cr_expect_eq(ws_runtime_synchronize(f.rt), 50000 + 2 * COPY_256B_NS + kn);
  teardown(&f);
}

Test(runtime, timeline_is_deterministic) {
  uint64_t ends[2][4];
  for (int run = 0; run < 2; run++) {
    fixture f;
    setup(&f);
    ws_runtime_host h = host_buf(&f, 256, WS_PCIE_PAGEABLE);
    ws_runtime_stream s1 = stream(&f);
    cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, f.d_in, h, 0, 256, NULL), WS_OK);
    launch(&f, s1, NULL);
    launch(&f, 0, NULL);
    cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, h, 0, f.d_out, 256, NULL), WS_OK);
    for (size_t i = 0; i < 4; i++) ends[run][i] = rec(&f, i)->end_ns;
    teardown(&f);
  }
  cr_expect_eq(memcmp(ends[0], ends[1], sizeof ends[0]), 0);
}

Test(runtime, misuse_gets_a_clear_message_and_no_record) {
  fixture f;
  setup(&f);
  ws_runtime_host h = host_buf(&f, 16, WS_PCIE_PINNED), g = host_buf(&f, 16, WS_PCIE_PINNED);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, g, 8, 16, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx),
                   "copy of 16 bytes at offset 8 runs past the end of the 16-byte host buffer 2");
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, g, UINT64_MAX, f.d_in, 1, NULL), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_host_free(f.rt, h), WS_OK);
  cr_expect_null(ws_runtime_host_data(f.rt, h));
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, h, 0, 4, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "host buffer 1 is used after it was freed");
  cr_assert_eq(ws_runtime_host_free(f.rt, h), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, 9, 0, 4, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "unknown host buffer 9");
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 5, f.d_in, g, 0, 4, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "unknown stream 5 (only the default stream 0 exists)");
  /* device memory: a freed device buffer and a copy past its end fail in the device */
  cr_assert_eq(ws_runtime_free(f.rt, f.d_out), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, g, 0, f.d_out, 4, NULL), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "freed"), "%s", ws_errmsg(f.ctx));
  cr_assert_neq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in + 248, g, 0, 16, NULL), WS_OK);
  ws_runtime_event e = event(&f), e2 = event(&f);
  cr_assert_eq(ws_runtime_stream_wait_event(f.rt, 0, e), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "stream 0 waits on event 1, which was never recorded");
  uint64_t ns;
  cr_assert_eq(ws_runtime_event_elapsed_ns(f.rt, e, e2, &ns), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "elapsed time between events 1 and 2: event 1 was never recorded");
  cr_assert_eq(ws_runtime_event_record(f.rt, 7, 0, NULL), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "unknown event 7");
  char longname[80];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  cr_assert_eq(ws_runtime_host_work(f.rt, longname, 5), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "operation name 'xxxxxxxxxxxxxxxxxxxx...' is longer than 63 characters");
  ws_runtime_host bad;
  cr_assert_eq(ws_runtime_host_alloc(f.rt, 0, WS_PCIE_PINNED, &bad), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "cannot allocate a host buffer of 0 bytes");
  cr_expect_eq(rec_count(&f), 0, "failed operations leave the timeline alone");
  cr_expect_eq(ws_runtime_synchronize(f.rt), 0);
  teardown(&f);
}

Test(runtime, failed_launch_costs_nothing) {
  fixture f;
  setup(&f);
  ws_args empty;
  ws_args_init(&empty, f.k);
  cr_assert_eq(ws_runtime_launch(f.rt, 0, f.k, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0, &empty, NULL),
               WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "param 'in' was not set");
  cr_expect_eq(rec_count(&f), 0);
  cr_expect_eq(ws_runtime_now_ns(f.rt), 0);
  ws_runtime_destroy(NULL);
  teardown(&f);
}

Test(runtime, timeline_prints_as_a_table) {
  fixture f;
  setup(&f);
  ws_runtime_host img = host_buf(&f, 12288, WS_PCIE_PINNED);
  ws_runtime_stream s1 = stream(&f);
  uint64_t d_img;
  cr_assert_eq(ws_runtime_malloc(f.rt, 12288, &d_img), WS_OK);
  cr_assert_eq(ws_runtime_host_work(f.rt, "preprocess", 50000), WS_OK);
  /* 12288 B: 48 TLPs, 13440 wire bytes x 65 / 1024 = 853.1 -> 854, plus 10000 setup */
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, s1, d_img, img, 0, 12288, "image"), WS_OK);
  FILE *tmp = tmpfile();
  cr_assert_not_null(tmp);
  ws_runtime_print_timeline(tmp, f.rt);
  rewind(tmp);
  char text[1024] = "";
  size_t n = fread(text, 1, sizeof text - 1, tmp);
  text[n] = '\0';
  fclose(tmp);
  cr_expect_str_eq(text,
                   "   #  op      stream  name                  what                              start_ns  "
                   "      end_ns        dur_ns\n"
                   "   0  host      host  preprocess                                                     0  "
                   "       50000         50000\n"
                   "   1  h2d          1  image                 12288 B pinned                       50000  "
                   "       60854         10854\n");
  teardown(&f);
}

/* Kernels a helper launches straight on the device join the timeline only
 * inside a capture, under the capture's name, placed as ws_runtime_launch
 * places them: each launch call keeps the host LAUNCH_NS, longer than this
 * kernel runs, so the second starts when the host has issued it. */
Test(runtime, capture_puts_device_launches_on_a_stream) {
  fixture f;
  setup(&f);
  ws_launch_stats ls;
  const ws_dim3 g = {1, 1, 1}, b = {64, 1, 1};
  cr_assert_eq(ws_device_launch(f.dev, f.k, g, b, 0, &f.args, &ls), WS_OK);
  cr_expect_eq(rec_count(&f), 0, "outside a capture: not on the timeline");
  ws_runtime_stream s = stream(&f);
  cr_assert_eq(ws_runtime_capture_begin(f.rt, s, "layer"), WS_OK);
  cr_expect_neq(ws_runtime_capture_begin(f.rt, s, "inner"), WS_OK);
  cr_expect(strstr(ws_errmsg(f.ctx), "inside capture 'layer'") != NULL, "%s", ws_errmsg(f.ctx));
  cr_expect_neq(ws_runtime_launch(f.rt, s, f.k, g, b, 0, &f.args, "x"), WS_OK);
  cr_assert_eq(ws_device_launch(f.dev, f.k, g, b, 0, &f.args, NULL), WS_OK);
  cr_assert_eq(ws_device_launch(f.dev, f.k, g, b, 0, &f.args, NULL), WS_OK);
  ws_runtime_capture_end(f.rt);
  cr_assert_eq(ws_device_launch(f.dev, f.k, g, b, 0, &f.args, NULL), WS_OK);
  cr_assert_eq(rec_count(&f), 2);
  uint64_t kn = kernel_ns(rec(&f, 0)), kn1 = kernel_ns(rec(&f, 1));
  cr_expect_lt(kn, ls.cycles, "the runtime keeps the L2 warm: the uncaptured launch left the data there");
  expect_span(rec(&f, 0), LAUNCH_NS, LAUNCH_NS + kn);
  cr_assert_lt(kn, LAUNCH_NS);
  expect_span(rec(&f, 1), 2 * LAUNCH_NS, 2 * LAUNCH_NS + kn1);
  cr_expect_str_eq(rec(&f, 1)->name, "layer");
  cr_expect_str_eq(rec(&f, 1)->kernel, "triple");
  cr_expect_eq(rec(&f, 1)->stream, s);
  cr_expect_eq(rec(&f, 1)->summary.dram_write_bytes + rec(&f, 1)->summary.dram_read_bytes > 0 ||
                   rec(&f, 1)->summary.l2_hit_pct >= 0,
               true, "the memory summary describes the launch");
  teardown(&f);
}

/* ---- pixel following ------------------------------------------------------------ */

/* A tagged host word crosses PCIe, the kernel's out[i] = 3 in[i] + 1
 * carries it, and the copy back tags the host word; an untagged copy over
 * it clears the device's tags, and the copy back the host's. */
Test(runtime, copies_carry_tags_both_ways) {
  fixture f;
  setup(&f);
  ws_device_set_follow(f.dev, true);
  ws_runtime_host hin = host_buf(&f, 256, WS_PCIE_PINNED), hout = host_buf(&f, 256, WS_PCIE_PAGEABLE);
  uint64_t n = 0;
  cr_assert_eq(ws_runtime_host_follow(f.rt, hin, 7 * 4 + 2, 1), WS_OK, "one byte of word 7");
  cr_assert_eq(ws_runtime_host_followed(f.rt, hin, 0, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 1);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, hin, 0, 256, "in"), WS_OK);
  cr_assert_eq(ws_device_followed(f.dev, f.d_in, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 1);
  launch(&f, 0, "triple");
  cr_assert_eq(ws_device_followed(f.dev, f.d_out, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 1);
  cr_assert_eq(ws_device_followed(f.dev, f.d_out + 28, 4, 4, &n), WS_OK);
  cr_expect_eq(n, 1, "out[7]");
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, hout, 0, f.d_out, 256, "out"), WS_OK);
  cr_assert_eq(ws_runtime_host_followed(f.rt, hout, 0, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 1);
  cr_assert_eq(ws_runtime_host_followed(f.rt, hout, 28, 4, 1, &n), WS_OK);
  cr_expect_eq(n, 4, "all four bytes of out[7]: the kernel wrote a tagged word");
  /* an untagged host buffer copied over the tagged input clears it */
  ws_runtime_host plain = host_buf(&f, 256, WS_PCIE_PINNED);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, plain, 0, 256, "in"), WS_OK);
  cr_assert_eq(ws_device_followed(f.dev, f.d_in, 256, 1, &n), WS_OK);
  cr_expect_eq(n, 0);
  launch(&f, 0, "triple");
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, hout, 0, f.d_out, 256, "out"), WS_OK);
  cr_assert_eq(ws_runtime_host_followed(f.rt, hout, 0, 256, 1, &n), WS_OK);
  cr_expect_eq(n, 0, "the copy back of untagged bytes clears the host's tags");
  /* misuse */
  cr_expect_eq(ws_runtime_host_follow(f.rt, hin, 250, 8), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx),
                   "tag of 8 bytes at offset 250 runs past the end of the 256-byte host buffer 1");
  cr_expect_eq(ws_runtime_host_followed(f.rt, hin, 0, 6, 4, &n), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx),
                   "count of tagged elements: 6 bytes are not a whole number of 4-byte elements");
  cr_expect_eq(ws_runtime_host_follow(f.rt, 99, 0, 1), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "unknown host buffer 99");
  teardown(&f);
}

/* With following off, copies move no tags: the device stays untagged, and
 * a copy back clears what the host buffer had. */
Test(runtime, copies_without_following_move_no_tags) {
  fixture f;
  setup(&f);
  ws_runtime_host h = host_buf(&f, 256, WS_PCIE_PINNED);
  uint64_t n = 0;
  cr_assert_eq(ws_runtime_host_follow(f.rt, h, 0, 256), WS_OK);
  cr_assert_eq(ws_runtime_memcpy_htod(f.rt, 0, f.d_in, h, 0, 256, NULL), WS_OK);
  cr_assert_eq(ws_device_followed(f.dev, f.d_in, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 0);
  cr_assert_eq(ws_runtime_memcpy_dtoh(f.rt, 0, h, 0, f.d_in, 128, NULL), WS_OK);
  cr_assert_eq(ws_runtime_host_followed(f.rt, h, 0, 256, 4, &n), WS_OK);
  cr_expect_eq(n, 32, "the first 128 bytes were overwritten by untagged ones");
  teardown(&f);
}

Test(runtime, named_ranges_are_sorted_and_checked) {
  fixture f;
  setup(&f);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 256, "out", WS_RUNTIME_TENSOR_ACTIVATIONS), WS_OK);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in + 128, 128, "in.hi", WS_RUNTIME_TENSOR_WEIGHTS), WS_OK);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in, 128, "in.lo", WS_RUNTIME_TENSOR_IMAGE), WS_OK);
  size_t n;
  const ws_runtime_region *g = ws_runtime_regions(f.rt, &n);
  cr_assert_eq(n, 3);
  cr_expect_str_eq(g[0].name, "in.lo");
  cr_expect_eq(g[0].addr, f.d_in);
  cr_expect_eq(g[0].tensor, WS_RUNTIME_TENSOR_IMAGE);
  cr_expect_str_eq(g[1].name, "in.hi");
  cr_expect_eq(g[1].size_bytes, 128);
  cr_expect_str_eq(g[2].name, "out");
  cr_expect_str_eq(ws_runtime_tensor_name(g[2].tensor), "activations");
  cr_expect_str_eq(ws_runtime_tensor_name(WS_RUNTIME_TENSOR_COUNT), "?");
  /* names outlive the allocation: the table describes the whole run */
  cr_assert_eq(ws_runtime_free(f.rt, f.d_out), WS_OK);
  ws_runtime_regions(f.rt, &n);
  cr_expect_eq(n, 3);
  teardown(&f);
}

Test(runtime, bad_named_ranges_are_refused) {
  fixture f;
  setup(&f);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in, 64, "a", WS_RUNTIME_TENSOR_OTHER), WS_OK);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in + 32, 64, "b", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "range 'b'") && strstr(ws_errmsg(f.ctx), "overlaps 'a'"), "%s",
            ws_errmsg(f.ctx));
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in + 64, 64, "c", WS_RUNTIME_TENSOR_OTHER), WS_OK,
               "touching is not overlapping");
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in + 63, 1, "d", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_in + 200, 100, "e", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "runs past the end"), "%s", ws_errmsg(f.ctx));
  cr_assert_eq(ws_runtime_name_range(f.rt, 0x10, 4, "f", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "not inside any allocation"), "%s", ws_errmsg(f.ctx));
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 4, "", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 4, NULL, WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  char longname[80];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 4, longname, WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(f.ctx), "a range's name must be 1 to 63 characters, not 79");
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 4, "g", WS_RUNTIME_TENSOR_COUNT), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_out, 0, "h", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_assert_eq(ws_runtime_free(f.rt, f.d_big), WS_OK);
  cr_assert_eq(ws_runtime_name_range(f.rt, f.d_big, 4, "i", WS_RUNTIME_TENSOR_OTHER), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(f.ctx), "freed"), "%s", ws_errmsg(f.ctx));
  size_t n;
  ws_runtime_regions(f.rt, &n);
  cr_expect_eq(n, 2, "refused names leave the table alone");
  teardown(&f);
}
