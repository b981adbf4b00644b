/* vitrun.h - TinyViT32 pixel-to-logit on the simulated GPU: the image and
 * the weights cross PCIe into HBM through the host runtime, every layer
 * runs as a generated kernel (models/kgen/gemmgen.h, attngen.h, nngen.h), the
 * probability comes back, and every layer's output is checked against the
 * OpenBLAS reference forward pass (models/vit/tinyvit.h).
 *
 * Design: the runtime's captures put each layer's kernels on one stream's
 * timeline under the layer's name, so the caller prints one timeline with
 * copies and kernels in order, and each check names the timeline records of
 * its layer. Checking reads device memory directly, outside the simulated
 * timeline: verification is not part of the pipeline being timed. */
#ifndef WS_VITRUN_H
#define WS_VITRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"
#include "models/kgen/attngen.h"
#include "models/kgen/gemmgen.h"
#include "models/vit/tinyvit.h"
#include "sim/host/runtime.h"

typedef enum ws_vitrun_attn {
  WS_VITRUN_ATTN_FLASH, /* one fused kernel per image (FlashAttention-style) */
  WS_VITRUN_ATTN_NAIVE, /* scores to HBM, a softmax kernel, then P V */
  WS_VITRUN_ATTN_COUNT
} ws_vitrun_attn;

/* Where the weights live and how they reach the device. */
typedef enum ws_vitrun_weights {
  WS_VITRUN_WEIGHTS_COPY,     /* device memory, one pinned H2D copy (cudaMemcpy) */
  WS_VITRUN_WEIGHTS_MANAGED,  /* managed memory, paged in by the kernels' faults */
  WS_VITRUN_WEIGHTS_PREFETCH, /* managed memory, moved by one prefetch (cudaMemPrefetchAsync) */
  WS_VITRUN_WEIGHTS_COUNT
} ws_vitrun_weights;

#define WS_VITRUN_ALL_CHANNELS UINT32_MAX

/* A pixel of image 0 to follow (the device's pixel following,
 * ws_device_set_follow): its bytes are tagged in host memory before the
 * image crosses PCIe, and after each layer the run counts the output
 * elements that hold a tagged byte (ws_vitrun_result.reach). */
typedef struct ws_vitrun_follow {
  bool on;
  uint32_t x, y;    /* 0 .. WS_TINYVIT_IMAGE_SIZE - 1 */
  uint32_t channel; /* 0 .. WS_TINYVIT_CHANNELS - 1, or WS_VITRUN_ALL_CHANNELS */
} ws_vitrun_follow;

/* Streams a pipelined run may use: each holds its own activations. */
#define WS_VITRUN_MAX_STREAMS 16u

typedef struct ws_vitrun_cfg {
  uint32_t batch; /* images per run */
  /* Pipelining: the batch runs as passes of micro_batch images (0: the whole
   * batch with one stream, one image with more), pass p on stream
   * p mod streams; the next passes' images cross PCIe while a pass
   * computes. 1..WS_VITRUN_MAX_STREAMS. */
  uint32_t streams;
  uint32_t micro_batch;
  ws_vitrun_attn attn;
  ws_attngen_flash_cfg flash; /* Br, Bc of the fused attention */
  ws_gemmgen_cfg gemm;        /* variant and tiles of every linear layer; epilogues set per layer */
  ws_vitrun_follow follow;    /* off by default */
  ws_vitrun_weights weights;  /* WS_VITRUN_WEIGHTS_COPY by default */
} ws_vitrun_cfg;

/* batch 1 on one stream, flash attention Br = Bc = 64, blocktile2d GEMMs
 * with 32 x 32 tiles (bk 16, 2 x 2 per thread), following nothing. */
ws_vitrun_cfg ws_vitrun_defaults(void);
/* Images per pass (micro_batch, or its default), and passes. */
uint32_t ws_vitrun_pass_images(const ws_vitrun_cfg *cfg);
uint32_t ws_vitrun_passes(const ws_vitrun_cfg *cfg);
/* "copy" / "managed" / "prefetch"; WS_ERR_INVALID naming them for anything else. */
const char *ws_vitrun_weights_name(ws_vitrun_weights w);
ws_status ws_vitrun_weights_parse(ws_ctx *ctx, const char *name, ws_vitrun_weights *out);
/* "flash" / "naive"; WS_ERR_INVALID naming both for anything else. */
const char *ws_vitrun_attn_name(ws_vitrun_attn a);
ws_status ws_vitrun_attn_parse(ws_ctx *ctx, const char *name, ws_vitrun_attn *out);

/* The host memory a run may take: the simulated device memory is backed by
 * host memory, the weights are staged twice (the model and a pinned copy)
 * and the OpenBLAS reference keeps every activation of every image. */
#define WS_VITRUN_MAX_HOST_BYTES ((uint64_t)8 << 30)
/* Images a run may take (--batch); the host memory bound usually binds first. */
#define WS_VITRUN_MAX_IMAGES 65536u

/* Refuses, before anything is allocated, every setting ws_vitrun_run cannot
 * run on `gpu`, with the flag of `warpscope run` and the real range: the
 * model sizes (ws_tinyvit_cfg_validate); the batch (each GEMM has M =
 * 64*batch rows, at most the generator's 65536 and bm times the preset's
 * grid y limit); the GEMM tiles with each epilogue the layers use (bias,
 * bias+GELU, bias+residual) and the flash attention tiles at head_dim =
 * dim/heads against the preset's registers, shared memory and threads; the
 * device memory the run allocates against the preset's, and the host memory
 * against WS_VITRUN_MAX_HOST_BYTES; the followed pixel's coordinates and
 * channel. WS_ERR_INVALID or WS_ERR_LIMIT. */
ws_status ws_vitrun_validate(ws_ctx *ctx, const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *model,
                             const ws_gpu_cfg *gpu);
/* Device bytes a run of cfg and model allocates: the weights and one set of
 * activations per stream in use (min(streams, passes)), each sized for a
 * pass and 256-byte aligned. */
uint64_t ws_vitrun_device_bytes(const ws_vitrun_cfg *cfg, const ws_tinyvit_cfg *model);

/* Tolerances, relative to the layer's largest |reference| (at least 1):
 * fp32 kernels differ from OpenBLAS only in summation order and in the
 * MUFU approximations (a few units of 2^-24 per operation, growing with the
 * depth of the network), so 1e-4 leaves two orders of margin; a GEMM on
 * tensor cores rounds its inputs to binary16 (2^-11 each), so the layers
 * after it may differ by about 1e-3 of their scale, and 2e-2 bounds that
 * with the same margin. */
#define WS_VITRUN_TOL_FP32 1e-4
#define WS_VITRUN_TOL_FP16 2e-2

typedef struct ws_vitrun_check {
  char layer[WS_RUNTIME_NAME_MAX]; /* "blocks.0.qkv"; also the name of its timeline records */
  uint32_t pass_no;                /* the pass whose output it checked */
  size_t first_record, nrecords;   /* its kernels in ws_runtime_timeline */
  uint64_t nvalues;
  double max_abs_err, scale, tol; /* pass: max_abs_err <= tol * scale */
  bool pass;
} ws_vitrun_check;

/* How far the followed pixel reached: one row per layer output, in
 * pipeline order: "patch", "patch_embed", per block "blocks.N.qkv", with
 * naive attention "blocks.N.attn.scores" (S after its kernel) and
 * "blocks.N.attn.softmax" (P, in the same buffer) of image 0, then
 * "blocks.N.attn", "proj", "norm1", "fc1", "fc2"; "pool", "head" (the
 * logits) and "probability" (the host buffer the probabilities are copied
 * back into). Counts cover the whole batch. */
typedef struct ws_vitrun_reach {
  char layer[WS_RUNTIME_NAME_MAX];
  uint64_t reached; /* output elements holding a tagged byte */
  uint64_t total;   /* output elements */
} ws_vitrun_reach;

/* One pass of a run: its images, its stream, its records on the timeline
 * (from its image copy to its probability copy), and when those copies
 * started and ended. */
typedef struct ws_vitrun_pass {
  uint32_t first_image, images;
  ws_runtime_stream stream;
  size_t image_record, prob_record;
  uint64_t start_ns; /* its images' H2D begins */
  uint64_t end_ns;   /* its probabilities' D2H ends */
} ws_vitrun_pass;

typedef struct ws_vitrun_result {
  ws_vitrun_check *checks; /* one per layer and pass, in issue order */
  size_t nchecks;
  ws_vitrun_reach *reach; /* with cfg->follow.on; else NULL */
  size_t nreach;
  float *logit, *prob; /* per image, read back from the device */
  float *ref_logit, *ref_prob;
  ws_vitrun_pass *passes;
  uint32_t npasses;
  uint64_t image_start_ns;    /* the first images' H2D begins */
  uint64_t end_ns;            /* the last probabilities' D2H ends */
  uint64_t peak_device_bytes; /* the device's peak allocated memory (ws_device_peak_allocated_bytes) */
  bool pass;                  /* every check passed */
} ws_vitrun_result;

/* What a pipelined run delivers: images per second over the makespan (first
 * image H2D start to last probability D2H end), and each image's latency,
 * from its pass's image H2D start to its probability D2H end, as
 * nearest-rank percentiles (the smallest latency at least p% of the images
 * do not exceed). */
typedef struct ws_vitrun_serving {
  uint32_t images, passes;
  uint64_t makespan_ns;
  double images_per_s;
  uint64_t p50_ns, p99_ns, max_ns;
} ws_vitrun_serving;

/* false when host memory for the latencies ran out. */
bool ws_vitrun_serving_of(const ws_vitrun_result *r, ws_vitrun_serving *out);

/* Runs cfg->batch images (each 3 x 32 x 32 fp32 CHW, normalized) through
 * the network on rt's device. The weights are uploaded first (their own
 * H2D, stream 0), then each pass's images, kernels and readback follow on
 * its stream; every other stream waits for the weights with an event.
 * With cfg->follow.on the run turns the device's following on for its
 * duration (back off at the end if it was off) and fills out->reach.
 * *out is filled even when a check fails (out->pass false); free it with
 * ws_vitrun_result_free. */
ws_status ws_vitrun_run(ws_runtime *rt, const ws_tinyvit_weights *w, const float *images,
                        const ws_vitrun_cfg *cfg, ws_vitrun_result *out);
void ws_vitrun_result_free(ws_vitrun_result *r);

#endif
