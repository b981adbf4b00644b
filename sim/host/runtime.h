/* runtime.h - a CUDA-runtime-shaped host API on top of ws_device: host
 * buffers, device memory, streams, events, copies over PCIe and kernel
 * launches, placed on a simulated timeline.
 *
 * Design: work executes functionally at the call (a copy moves its bytes,
 * a launch runs the kernel through ws_device_launch), in the order the
 * caller issues it, so results are real and deterministic; the timeline is
 * computed alongside from the stream rules (in order within a stream,
 * overlapping across streams when their engines are free: one copy engine
 * per direction, one compute engine) and the preset's link and launch
 * costs. Callers that need a result on the host must copy it back and may
 * read it as soon as the call returns, whatever time the timeline shows.
 * docs/runtime.md gives the model and a worked example. */
#ifndef WS_RUNTIME_H
#define WS_RUNTIME_H

#include <stdint.h>
#include <stdio.h>

#include "base/ctx.h"
#include "sim/host/device.h"
#include "sim/host/pcie.h"
#include "sim/host/report.h"

typedef struct ws_runtime ws_runtime;

/* Handles are small integers; 0 is never a valid host buffer or event. */
typedef uint32_t ws_runtime_host;
typedef uint32_t ws_runtime_stream;
typedef uint32_t ws_runtime_event;

#define WS_RUNTIME_STREAM_DEFAULT 0u      /* exists from creation; an ordinary in-order stream */
#define WS_RUNTIME_STREAM_HOST UINT32_MAX /* the stream field of host-work records */
#define WS_RUNTIME_NAME_MAX 64

typedef enum ws_runtime_op {
  WS_RUNTIME_OP_H2D,
  WS_RUNTIME_OP_D2H,
  WS_RUNTIME_OP_KERNEL,
  WS_RUNTIME_OP_HOST, /* host-side work the caller measured */
  WS_RUNTIME_OP_EVENT,
  WS_RUNTIME_OP_COUNT
} ws_runtime_op;

/* One operation on the timeline. */
typedef struct ws_runtime_record {
  ws_runtime_op kind;
  uint32_t stream; /* WS_RUNTIME_STREAM_HOST for host work */
  char name[WS_RUNTIME_NAME_MAX];
  uint64_t size_bytes;              /* copies */
  ws_pcie_host_mem host_mem;        /* copies: pinned or pageable host side */
  ws_dim3 grid, block;              /* kernels */
  uint64_t start_ns, end_ns;        /* simulated time; events have start == end */
  ws_launch_stats stats;            /* kernels */
  char kernel[WS_RUNTIME_NAME_MAX]; /* kernels: the kernel's own name */
  ws_report_summary summary;        /* kernels: hit rates, occupancy, DRAM bytes */
} ws_runtime_record;

/* What a named device range holds: the visualizer colours the traffic to
 * it by class. OTHER is a named buffer of no class of the four. */
typedef enum ws_runtime_tensor {
  WS_RUNTIME_TENSOR_IMAGE,
  WS_RUNTIME_TENSOR_WEIGHTS,
  WS_RUNTIME_TENSOR_ACTIVATIONS,
  WS_RUNTIME_TENSOR_SCORES,
  WS_RUNTIME_TENSOR_OTHER,
  WS_RUNTIME_TENSOR_COUNT
} ws_runtime_tensor;

/* A named range of device memory (ws_runtime_name_range). */
typedef struct ws_runtime_region {
  uint64_t addr, size_bytes;
  ws_runtime_tensor tensor;
  char name[WS_RUNTIME_NAME_MAX];
} ws_runtime_region;

/* ---- create / destroy --------------------------------------------------------- */

/* `dev` is not owned; it must outlive the runtime. Messages go to the
 * device's context. */
ws_status ws_runtime_create(ws_device *dev, ws_runtime **out);
void ws_runtime_destroy(ws_runtime *rt);
/* The device the runtime drives (what library helpers launch on). */
ws_device *ws_runtime_device(const ws_runtime *rt);

/* ---- memory ---------------------------------------------------------------- */

/* Zero-filled host memory the runtime owns until ws_runtime_host_free or
 * destroy. */
ws_status ws_runtime_host_alloc(ws_runtime *rt, uint64_t size_bytes, ws_pcie_host_mem mem,
                                ws_runtime_host *out);
ws_status ws_runtime_host_free(ws_runtime *rt, ws_runtime_host h);
/* The buffer's bytes; NULL when `h` is not a live buffer. */
void *ws_runtime_host_data(ws_runtime *rt, ws_runtime_host h);
ws_status ws_runtime_malloc(ws_runtime *rt, uint64_t size_bytes, uint64_t *dptr);
ws_status ws_runtime_free(ws_runtime *rt, uint64_t dptr);

/* Names size_bytes of device memory at dptr (inside one live allocation)
 * as `name` (1 to WS_RUNTIME_NAME_MAX - 1 chars) of class `tensor`, so a
 * trace can say which tensor each access touched. Ranges never overlap: a
 * range meeting a named one is refused. Names outlive the allocation they
 * name (the device never reuses an address), so the table describes the
 * whole run when a trace is written after the buffers are freed. */
ws_status ws_runtime_name_range(ws_runtime *rt, uint64_t dptr, uint64_t size_bytes, const char *name,
                                ws_runtime_tensor tensor);
/* The named ranges sorted by address; valid until the next runtime call. */
const ws_runtime_region *ws_runtime_regions(const ws_runtime *rt, size_t *count);
/* "image", "weights", "activations", "scores", "other"; "?" out of range. */
const char *ws_runtime_tensor_name(ws_runtime_tensor t);

/* Pixel following (ws_device_set_follow): tags size_bytes of host buffer h
 * at offset. With following on, an H2D copy gives the device bytes it
 * writes the host bytes' tags and a D2H copy the host bytes the device
 * bytes' (tagged or not); `count` is the elements of elem_bytes in the
 * range that hold at least one tagged byte. */
ws_status ws_runtime_host_follow(ws_runtime *rt, ws_runtime_host h, uint64_t offset, uint64_t size_bytes);
ws_status ws_runtime_host_followed(ws_runtime *rt, ws_runtime_host h, uint64_t offset, uint64_t size_bytes,
                                   uint32_t elem_bytes, uint64_t *count);

/* ---- streams and events --------------------------------------------------- */

ws_status ws_runtime_stream_create(ws_runtime *rt, ws_runtime_stream *out);
ws_status ws_runtime_event_create(ws_runtime *rt, ws_runtime_event *out);
/* The event takes the time at which all work issued to `s` so far is done. */
ws_status ws_runtime_event_record(ws_runtime *rt, ws_runtime_event ev, ws_runtime_stream s, const char *name);
/* Later work on `s` starts no earlier than the event's time. */
ws_status ws_runtime_stream_wait_event(ws_runtime *rt, ws_runtime_stream s, ws_runtime_event ev);
/* end's time minus start's; both must be recorded, start no later than end. */
ws_status ws_runtime_event_elapsed_ns(ws_runtime *rt, ws_runtime_event start, ws_runtime_event end,
                                      uint64_t *elapsed_ns);

/* ---- operations (names may be NULL; at most WS_RUNTIME_NAME_MAX - 1 chars) ---- */

/* size_bytes from host buffer h at host_offset to device address dst. */
ws_status ws_runtime_memcpy_htod(ws_runtime *rt, ws_runtime_stream s, uint64_t dst, ws_runtime_host h,
                                 uint64_t host_offset, uint64_t size_bytes, const char *name);
ws_status ws_runtime_memcpy_dtoh(ws_runtime *rt, ws_runtime_stream s, ws_runtime_host h, uint64_t host_offset,
                                 uint64_t src, uint64_t size_bytes, const char *name);
ws_status ws_runtime_launch(ws_runtime *rt, ws_runtime_stream s, const ws_kernel *k, ws_dim3 grid,
                            ws_dim3 block, uint32_t dyn_shared_bytes, const ws_args *args, const char *name);
/* cudaMemPrefetchAsync of managed memory to the device
 * (ws_device_managed_prefetch): the blocks not yet there move on the H2D
 * copy engine as one pinned transfer (after writing back any evicted to make
 * room); the record's size is the bytes that moved (0: nothing to move, no
 * time). name NULL: "prefetch". */
ws_status ws_runtime_prefetch(ws_runtime *rt, ws_runtime_stream s, uint64_t dptr, uint64_t size_bytes,
                              const char *name);
/* Host-side work of duration_ns (measured by the caller): the host issues
 * nothing else meanwhile. */
/* Between begin and end, every kernel that any code launches on the
 * runtime's device (a library helper calling ws_device_launch) joins stream
 * s under `name`, placed exactly as ws_runtime_launch places it, launch
 * overhead included. Kernels launched on the device outside a capture and
 * outside ws_runtime_launch stay off the timeline. Captures do not nest. */
ws_status ws_runtime_capture_begin(ws_runtime *rt, ws_runtime_stream s, const char *name);
void ws_runtime_capture_end(ws_runtime *rt);

ws_status ws_runtime_host_work(ws_runtime *rt, const char *name, uint64_t duration_ns);

/* ---- time ---------------------------------------------------------------------- */

/* The host waits for `s`; *now_ns (may be NULL) gets the host's time after. */
ws_status ws_runtime_stream_synchronize(ws_runtime *rt, ws_runtime_stream s, uint64_t *now_ns);
/* The host waits for all work; returns the host's time after it. */
uint64_t ws_runtime_synchronize(ws_runtime *rt);
/* The host's current time (when it issues the next call). */
uint64_t ws_runtime_now_ns(const ws_runtime *rt);
/* The records in issue order; valid until the next runtime call. */
const ws_runtime_record *ws_runtime_timeline(const ws_runtime *rt, size_t *count);
const char *ws_runtime_op_name(ws_runtime_op op);
/* The timeline as a table, one line per record: index, op, stream, name,
 * what (bytes and pinned/pageable, or grid and block), start, end and
 * duration in ns. */
void ws_runtime_print_timeline(FILE *out, const ws_runtime *rt);

#endif
