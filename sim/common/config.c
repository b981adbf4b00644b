/* config.c - the GPU preset key table, the INI loader (inih), `--set`
 * overrides, every consistency check and the derived geometry.
 *
 * Design: one const table describes every field of ws_gpu_cfg (where it
 * lives, its type, range, unit, meaning and the public source of its value
 * or default), and every consumer walks that table: the INI handler, --set,
 * `warpscope gpus show` and the generated docs/presets.md. inih does the
 * lexing; our reader feeds it the text line by line, counting lines and
 * stripping comments first, because Debian's libinih is built without
 * INI_HANDLER_LINENO (the handler cannot learn the line) and with a
 * 200-byte line limit that long source citations would overflow. The
 * reader also checks each line's shape itself (a NUL byte, an unterminated
 * [section], a line that is neither a section nor a key), so the first
 * error by line number is the one reported, whichever of inih or the key
 * handler would have met it, and every byte a message quotes from the file
 * is escaped (\xNN).
 * The components below trust a config that passed validate(): every rule
 * one of them relies on is checked here, at load and after overrides, with
 * the file and line that set the key, and derive() computes every quantity
 * that follows from the keys once, so no component re-derives one per
 * access or disagrees with another about it. */
#include "sim/common/config.h"

#include <ctype.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/embedded.h"
#include "base/file.h"
#include "base/gf2.h"
#include "base/text.h"

/* The presets table cmake/embed.cmake generates (generated/embedded_presets.c);
 * only this file reads it, through ws_config_preset_text. */
extern const ws_embedded_file ws_config_preset_files[];
extern const size_t ws_config_preset_files_count;

#define CUDA_GUIDE "CUDA C++ Programming Guide, Technical Specifications per Compute Capability"
#define MODEL "modelling choice"
#define PCIE_SPEC "PCI-SIG PCI Express Base Specification"

static const char *const sched_names[] = {"lrr", "gto", NULL};
static const char *const write_names[] = {"write-through", "write-back", NULL};
static const char *const l1_alloc_names[] = {"on-miss", "streaming", NULL};

#define OFF(f) offsetof(ws_gpu_cfg, f), sizeof(((ws_gpu_cfg *)0)->f)
/* required keys: each preset gives the value and cites it on its line */
#define REQ(sec, key, field, lo, hi, unit, desc)                                                             \
  { sec, key, WS_CFG_U32, OFF(field), lo, hi, true, 0, NULL, unit, desc, "per preset (cited in its .ini)" }
#define REQ64(sec, key, field, lo, hi, unit, desc)                                                           \
  { sec, key, WS_CFG_U64, OFF(field), lo, hi, true, 0, NULL, unit, desc, "per preset (cited in its .ini)" }
/* keys with one value on every modelled GPU; a preset may still override */
#define DEF(sec, key, field, lo, hi, def, unit, desc, src)                                                   \
  { sec, key, WS_CFG_U32, OFF(field), lo, hi, false, def, NULL, unit, desc, src }
#define STR(sec, key, field, desc)                                                                           \
  { sec, key, WS_CFG_STRING, OFF(field), 0, 0, true, 0, NULL, "", desc, "per preset" }
#define XOR(sec, key, field, desc, src)                                                                      \
  { sec, key, WS_CFG_XOR, OFF(field), 0, 0, false, 0, NULL, "", desc, src }
#define ENUM(sec, key, field, names, def, desc, src)                                                         \
  { sec, key, WS_CFG_ENUM, OFF(field), 0, 0, false, def, names, "", desc, src }

static const ws_cfg_key keys[] = {
    STR("gpu", "name", gpu.name, "preset name (what --gpu takes)"),
    STR("gpu", "full_name", gpu.full_name, "the product this preset models"),
    REQ("gpu", "cc_major", gpu.cc_major, 1, 20, "", "compute capability, major (occupancy rules)"),
    REQ("gpu", "cc_minor", gpu.cc_minor, 0, 9, "", "compute capability, minor"),
    REQ("gpu", "num_sms", gpu.num_sms, 1, WS_CFG_MAX_SMS, "SMs", "streaming multiprocessors enabled"),
    REQ("gpu", "core_clock_mhz", gpu.core_clock_mhz, 1, 10000, "MHz",
        "SM clock that converts cycles to time"),
    REQ64("gpu", "dram_size_bytes", gpu.dram_size_bytes, 1u << 20, 1ull << 40, "B", "device memory"),
    DEF("gpu", "const_bank_bytes", gpu.const_bank_bytes, 4, 1u << 20, 64u * 1024u, "B",
        "constant bank (kernel constants)", CUDA_GUIDE ": 64 KB constant memory"),
    {"gpu", "insn_budget_warp_insns", WS_CFG_U64, OFF(gpu.insn_budget_warp_insns), 1, UINT64_MAX, false,
     1ull << 32, NULL, "warp insns", "per-launch instruction budget (stops runaway loops)",
     MODEL ": large enough for every shipped example, small enough to stop an endless loop"},

    DEF("sm", "subpartitions", sm.subpartitions, 1, WS_CFG_MAX_SUBPARTITIONS, 4, "",
        "warp schedulers (processing blocks) per SM",
        "NVIDIA Volta/GA100/GA102/H100 whitepapers: 4 processing blocks per SM"),
    REQ("sm", "max_warps_per_sm", sm.max_warps_per_sm, 1, 128, "warps", "resident warps per SM"),
    DEF("sm", "max_threads_per_block", sm.max_threads_per_block, 32, 4096, 1024, "threads", "threads per CTA",
        CUDA_GUIDE ": 1024"),
    DEF("sm", "max_block_dim_x", sm.max_block_dim[0], 1, 4096, 1024, "threads", "CTA x extent",
        CUDA_GUIDE ": 1024"),
    DEF("sm", "max_block_dim_y", sm.max_block_dim[1], 1, 4096, 1024, "threads", "CTA y extent",
        CUDA_GUIDE ": 1024"),
    DEF("sm", "max_block_dim_z", sm.max_block_dim[2], 1, 4096, 64, "threads", "CTA z extent",
        CUDA_GUIDE ": 64"),
    DEF("sm", "max_grid_dim_x", sm.max_grid_dim[0], 1, 2147483647u, 2147483647u, "CTAs", "grid x extent",
        CUDA_GUIDE ": 2^31-1"),
    DEF("sm", "max_grid_dim_y", sm.max_grid_dim[1], 1, 65535, 65535, "CTAs", "grid y extent",
        CUDA_GUIDE ": 65535"),
    DEF("sm", "max_grid_dim_z", sm.max_grid_dim[2], 1, 65535, 65535, "CTAs", "grid z extent",
        CUDA_GUIDE ": 65535"),
    REQ("sm", "max_ctas_per_sm", sm.max_ctas_per_sm, 1, 64, "CTAs", "resident CTAs per SM"),
    ENUM("sm", "scheduler", sm.scheduler, sched_names, WS_SCHED_GTO,
         "warp scheduling policy: gto (greedy-then-oldest) or lrr (loose round robin)",
         MODEL ": GPGPU-Sim's default (gto); NVIDIA does not publish its policy"),
    REQ("sm", "int_lat_cycles", sm.int_lat_cycles, 1, 1000, "cycles", "INT32 dependent-issue latency"),
    REQ("sm", "int_ii_cycles", sm.int_ii_cycles, 1, 1000, "cycles",
        "INT32 initiation interval per sub-partition"),
    REQ("sm", "fp32_lat_cycles", sm.fp32_lat_cycles, 1, 1000, "cycles", "FP32 dependent-issue latency"),
    REQ("sm", "fp32_ii_cycles", sm.fp32_ii_cycles, 1, 1000, "cycles",
        "FP32 initiation interval per sub-partition"),
    REQ("sm", "sfu_lat_cycles", sm.sfu_lat_cycles, 1, 1000, "cycles", "SFU (MUFU) latency"),
    REQ("sm", "sfu_ii_cycles", sm.sfu_ii_cycles, 1, 1000, "cycles", "SFU initiation interval"),
    REQ("sm", "shfl_lat_cycles", sm.shfl_lat_cycles, 1, 1000, "cycles", "warp shuffle latency"),
    REQ("sm", "shfl_ii_cycles", sm.shfl_ii_cycles, 1, 1000, "cycles", "warp shuffle initiation interval"),
    REQ("sm", "tensor_lat_cycles", sm.tensor_lat_cycles, 1, 1000, "cycles", "HMMA latency"),
    REQ("sm", "tensor_ii_cycles", sm.tensor_ii_cycles, 1, 1000, "cycles",
        "HMMA m16n8k16 initiation interval per sub-partition"),
    REQ("sm", "branch_lat_cycles", sm.branch_lat_cycles, 1, 1000, "cycles", "branch resolution latency"),
    REQ("sm", "const_lat_cycles", sm.const_lat_cycles, 1, 1000, "cycles", "constant-cache hit latency"),
    REQ("sm", "lsu_ii_cycles", sm.lsu_ii_cycles, 1, 1000, "cycles",
        "memory instructions: initiation interval per sub-partition"),
    DEF("sm", "lsu_queue_insns", sm.lsu_queue_insns, 1, WS_CFG_MAX_LSU_QUEUE, 16, "insns",
        "the LSU's MIO queue: global memory instructions waiting to send their lines (a power of two)",
        MODEL ": NVIDIA does not publish it; 16 is the order GPGPU-Sim's ldst unit and Accel-Sim's Ampere "
              "configurations use"),
    DEF("sm", "smem_backlog_cycles", sm.smem_backlog_cycles, 1, 4096, 16, "cycles",
        "shared-memory wavefronts queued before the issue stage throttles (MIO throttle)",
        MODEL ": the MIO queue's 16 entries, one wavefront each (Nsight Compute's mio_throttle stall; "
              "the depth is not published)"),
    DEF("sm", "async_groups", sm.async_groups, 1, WS_CFG_MAX_ASYNC_GROUPS, 8, "groups",
        "committed LDGSTS (cp.async) groups a warp may have in flight before the next commit waits",
        MODEL ": PTX's cp.async.wait_group takes any count and NVIDIA publishes no hardware limit; 8 covers "
              "the deepest pipelines CUTLASS configures (up to 7 stages)"),
    REQ("sm", "fp32_lanes_per_subpartition", sm.fp32_lanes_per_subpartition, 1, 64, "lanes",
        "FP32 FMA lanes per sub-partition"),
    REQ("sm", "tensor_flops_per_cycle_per_sm", sm.tensor_flops_per_cycle_per_sm, 1, 1u << 20, "FLOP/cycle",
        "dense FP16 tensor FLOP per cycle per SM (FP32 accumulate)"),

    DEF("regfile", "regs_per_sm", regfile.regs_per_sm, 1024, 1u << 20, 65536, "regs",
        "32-bit registers per SM", CUDA_GUIDE ": 64K"),
    DEF("regfile", "max_regs_per_thread", regfile.max_regs_per_thread, 16, 255, 255, "regs",
        "registers per thread", CUDA_GUIDE ": 255"),
    DEF("regfile", "alloc_unit_regs", regfile.alloc_unit_regs, 1, 4096, 256, "regs",
        "per-warp register allocation unit", "CUDA Occupancy Calculator (cuda_occupancy.h): 256"),
    DEF("regfile", "banks_per_subpartition", regfile.banks_per_subpartition, 1, 16, 2, "banks",
        "register-file banks per sub-partition",
        "Jia et al., Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking (2018): 2 banks"),

    REQ("smem", "per_sm_bytes", smem.per_sm_bytes, 1024, 1u << 20, "B",
        "shared memory per SM (the occupancy carve-out)"),
    REQ("smem", "max_per_block_bytes", smem.max_per_block_bytes, 1024, 1u << 20, "B",
        "shared memory per CTA (opt-in maximum)"),
    REQ("smem", "reserved_per_block_bytes", smem.reserved_per_block_bytes, 0, 65536, "B",
        "driver reserve per CTA"),
    REQ("smem", "alloc_unit_bytes", smem.alloc_unit_bytes, 1, 65536, "B",
        "shared memory allocation granularity"),
    DEF("smem", "banks", smem.banks, 1, 256, 32, "banks", "shared memory banks",
        "CUDA C++ Programming Guide, Shared Memory (cc 5.x and later): 32 banks"),
    DEF("smem", "bank_width_bytes", smem.bank_width_bytes, 1, 64, 4, "B", "bank width",
        "CUDA C++ Programming Guide, Shared Memory: successive 32-bit words map to successive banks"),
    REQ("smem", "lat_cycles", smem.lat_cycles, 1, 1000, "cycles", "conflict-free load-to-use latency"),

    REQ("l1", "size_kib", l1.size_kib, 1, 1024, "KiB", "L1 data cache capacity"),
    DEF("l1", "line_bytes", l1.line_bytes, 16, 1024, 128, "B", "line size",
        "CUDA C++ Best Practices Guide: 128-byte cache lines of 32-byte sectors"),
    DEF("l1", "sector_bytes", l1.sector_bytes, 4, 1024, 32, "B", "sector size (fill unit)",
        "CUDA C++ Best Practices Guide: 32-byte sectors"),
    REQ("l1", "assoc", l1.assoc, 1, 64, "ways", "associativity"),
    REQ("l1", "hit_lat_cycles", l1.hit_lat_cycles, 1, 1000, "cycles", "load-to-use latency of a hit"),
    DEF("l1", "mshr_entries", l1.mshr_entries, 1, 4096, 256, "lines", "outstanding missed lines",
        MODEL ": GPGPU-Sim's Volta L1 MSHR count; not published by NVIDIA"),
    DEF("l1", "mshr_max_merge", l1.mshr_max_merge, 1, 256, 8, "requests", "requests one MSHR entry can hold",
        MODEL ": GPGPU-Sim's default merge limit"),
    DEF("l1", "mshr_waiters", l1.mshr_waiters, 0, 65536, 0, "requests",
        "requests the MSHRs hold together, drawn by any line up to mshr_max_merge (0: mshr_entries x "
        "mshr_max_merge, a fixed share per entry)",
        MODEL ": NVIDIA does not publish how its L1 tracks merged requests; a shared pool lets one line "
              "take many waiters without reserving that many for every entry"),
    DEF("l1", "port_bytes_per_cycle", l1.port_bytes_per_cycle, 1, 4096, 128, "B/cycle",
        "L1 data returned to the SM per cycle",
        "NVIDIA A100 whitepaper: 128 bytes/clock per SM for L1/shared memory"),
    ENUM("l1", "write_policy", l1.write_policy, write_names, WS_WRITE_THROUGH_NOALLOC,
         "write-through (no allocate) or write-back (allocate)",
         "Jia et al. 2018: the Volta L1 is write-through for global stores"),
    ENUM("l1", "allocation", l1.allocation, l1_alloc_names, WS_L1_ALLOC_ON_MISS,
         "when a missed line takes a way: at the miss, held until the fill (on-miss), or at the fill, the "
         "miss waiting in an MSHR alone (streaming)",
         "GPGPU-Sim 3.x reserves the way at the miss; per preset from Volta on (cited in its .ini)"),

    REQ("l2", "size_kib", l2.size_kib, 1, 1u << 20, "KiB", "L2 capacity over all slices"),
    REQ("l2", "slices", l2.slices, 1, WS_CFG_MAX_L2_SLICES, "slices", "L2 slices (banks)"),
    REQ("l2", "partitions", l2.partitions, 1, 2, "", "1, or 2 near/far halves"),
    DEF("l2", "line_bytes", l2.line_bytes, 16, 1024, 128, "B", "line size",
        "CUDA C++ Best Practices Guide: 128-byte lines"),
    DEF("l2", "sector_bytes", l2.sector_bytes, 4, 1024, 32, "B", "sector size (DRAM access unit)",
        "CUDA C++ Best Practices Guide: 32-byte L2 transactions"),
    REQ("l2", "assoc", l2.assoc, 1, 64, "ways", "associativity"),
    REQ("l2", "hit_lat_cycles", l2.hit_lat_cycles, 1, 2000, "cycles", "slice tag + data access"),
    REQ("l2", "far_extra_lat_cycles", l2.far_extra_lat_cycles, 0, 2000, "cycles",
        "added when the slice is in the other partition"),
    DEF("l2", "mshr_entries_per_slice", l2.mshr_entries_per_slice, 1, 4096, 64, "lines",
        "outstanding misses per slice", MODEL ": not published by NVIDIA"),
    REQ("l2", "slice_bytes_per_cycle", l2.slice_bytes_per_cycle, 1, 1024, "B/cycle",
        "data one slice returns per cycle"),

    REQ("noc", "lat_cycles", noc.lat_cycles, 0, 1000, "cycles", "one way, SM <-> L2 slice"),
    DEF("noc", "sm_port_bytes_per_cycle", noc.sm_port_bytes_per_cycle, 1, 1024, 64, "B/cycle",
        "crossbar port of one SM", MODEL ": two sectors per cycle; not published by NVIDIA"),
    DEF("noc", "slice_port_bytes_per_cycle", noc.slice_port_bytes_per_cycle, 1, 1024, 64, "B/cycle",
        "crossbar port of one L2 slice", MODEL ": matches the slice data path"),
    DEF("noc", "header_bytes", noc.header_bytes, 1, 256, 8, "B",
        "a request packet without data (address, sector mask, kind, ids); stores and atomics carry their "
        "data after it",
        MODEL ": a 48-bit address, a sector mask, the access kind and two ids fit 8 bytes; NVIDIA "
              "publishes no packet format"),
    DEF("noc", "queue_depth", noc.queue_depth, 1, 4096, 64, "packets", "buffered packets per port",
        MODEL ": not published by NVIDIA; a credit is held for the whole crossbar flight, so a "
              "port needs about bandwidth x flight time of credits (one packet per cycle over a "
              "45-200 cycle flight) to stay busy"),

    REQ("hbm", "channels", hbm.channels, 1, WS_CFG_MAX_HBM_CHANNELS, "channels",
        "independent DRAM channels (HBM or GDDR: the section models the GPU's DRAM)"),
    REQ("hbm", "banks_per_channel", hbm.banks_per_channel, 1, 256, "banks", "banks per channel"),
    REQ("hbm", "row_bytes", hbm.row_bytes, 32, 65536, "B", "row (page) size"),
    REQ("hbm", "burst_bytes", hbm.burst_bytes, 4, 4096, "B", "bytes per column access"),
    REQ("hbm", "channel_mbps", hbm.channel_mbps, 1, 1000000, "MB/s", "peak bandwidth per channel"),
    REQ("hbm", "t_rcd_ps", hbm.t_rcd_ps, 1, 1000000, "ps", "activate to read"),
    REQ("hbm", "t_cl_ps", hbm.t_cl_ps, 1, 1000000, "ps", "read to data (CAS latency)"),
    REQ("hbm", "t_rp_ps", hbm.t_rp_ps, 1, 1000000, "ps", "precharge"),
    REQ("hbm", "t_ras_ps", hbm.t_ras_ps, 1, 1000000, "ps", "activate to precharge"),
    DEF("hbm", "queue_depth", hbm.queue_depth, 1, 4096, 32, "requests", "requests per channel controller",
        MODEL ": not published by NVIDIA"),
    REQ("hbm", "ctrl_lat_cycles", hbm.ctrl_lat_cycles, 0, 2000, "cycles",
        "memory controller + PHY, each way"),
    DEF("hbm", "bank_groups", hbm.bank_groups, 0, 64, 0, "groups",
        "bank groups per channel (bank b in group b mod groups; 0 or 1: none)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "pseudo_channels", hbm.pseudo_channels, 0, 4, 0, "",
        "pseudo-channels one channel stands for: each has its own four-activate window (0 or 1: none)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_ccd_s_ps", hbm.t_ccd_s_ps, 0, 1000000, 0, "ps",
        "column command to column command, other bank group (0: not modelled)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_ccd_l_ps", hbm.t_ccd_l_ps, 0, 1000000, 0, "ps",
        "column command to column command, same bank group", "per preset (cited in its .ini)"),
    DEF("hbm", "t_rrd_s_ps", hbm.t_rrd_s_ps, 0, 1000000, 0, "ps",
        "activate to activate, other bank group (0: not modelled)", "per preset (cited in its .ini)"),
    DEF("hbm", "t_rrd_l_ps", hbm.t_rrd_l_ps, 0, 1000000, 0, "ps", "activate to activate, same bank group",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_faw_ps", hbm.t_faw_ps, 0, 10000000, 0, "ps",
        "four-activate window: a fifth activate waits until the first is this old (0: not modelled)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_wtr_ps", hbm.t_wtr_ps, 0, 1000000, 0, "ps",
        "write command to the next read command: write latency, burst and tWTR (0: not modelled)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_rtw_ps", hbm.t_rtw_ps, 0, 1000000, 0, "ps",
        "read command to the next write command: the bus turnaround (0: not modelled)",
        "per preset (cited in its .ini)"),
    DEF("hbm", "t_refi_ps", hbm.t_refi_ps, 0, 1000000000, 0, "ps",
        "all-bank refresh interval (0: no refresh)", "per preset (cited in its .ini)"),
    DEF("hbm", "t_rfc_ps", hbm.t_rfc_ps, 0, 10000000, 0, "ps",
        "all-bank refresh: the channel is busy this long", "per preset (cited in its .ini)"),
    DEF("hbm", "t_rfcsb_ps", hbm.t_rfcsb_ps, 0, 10000000, 0, "ps",
        "per-bank refresh: with it the banks refresh one at a time, a bank every t_refi_ps / "
        "banks_per_channel, busy this long while the others work (0: all-bank refresh)",
        "per preset (cited in its .ini): JEDEC's HBM2 and HBM3 define both kinds"),
    DEF("hbm", "write_high", hbm.write_high, 0, 4096, 0, "requests",
        "write drain: queued writes that make the controller serve writes first (0: reads and writes in "
        "arrival order)",
        MODEL ": memory controllers batch writes between watermarks to pay fewer turnarounds; NVIDIA "
              "publishes none"),
    DEF("hbm", "write_low", hbm.write_low, 0, 4096, 0, "requests", "write drain: queued writes it stops at",
        MODEL ": as hbm.write_high"),
    XOR("hbm", "channel_xor", hbm.channel_xor,
        "XOR address map: channel bit i is the parity of the address under mask i, lowest bit first "
        "(none: the skewed interleave)",
        "per preset (cited in its .ini): the functions reverse-engineered on real parts"),
    XOR("hbm", "bank_xor", hbm.bank_xor,
        "XOR address map: bank bit i within the channel, as hbm.channel_xor (set both or neither)",
        "per preset (cited in its .ini)"),

    DEF("pcie", "gen", pcie.gen, 1, 5, 4, "", "PCIe generation (sets lane rate and line encoding)",
        PCIE_SPEC ": gen1/2/3/4/5 run 2.5/5/8/16/32 GT/s per lane, 8b/10b through gen2 and "
                  "128b/130b from gen3; per GPU: NVIDIA Tesla V100 datasheet (PCIe gen3, 32 GB/s "
                  "both ways; the SXM2 module's host link too), A100 datasheet (PCIe gen4, "
                  "64 GB/s), H100 datasheet (PCIe gen5, 128 GB/s), RTX A6000 datasheet (PCI "
                  "Express Gen 4 x16)"),
    DEF("pcie", "lanes", pcie.lanes, 1, 32, 16, "lanes", "link width",
        "NVIDIA V100, A100, H100 and RTX A6000 datasheets: x16 host interface"),
    DEF("pcie", "max_payload_bytes", pcie.max_payload_bytes, 128, 4096, 256, "B",
        "maximum payload per TLP (MPS)",
        MODEL ": 256 B, what x86 server root ports commonly grant; " PCIE_SPEC " allows 128 B to 4 KiB"),
    DEF("pcie", "tlp_overhead_bytes", pcie.tlp_overhead_bytes, 0, 256, 24, "B",
        "per-TLP framing, sequence number, header and LCRC",
        "Intel AN 855 (PCI Express High Performance Reference Design), Protocol Overhead: 6 "
        "dwords per TLP without ECRC (start/end framing, sequence number, 4-dword header, LCRC); "
        "ACK and flow-control DLLPs travel the other way"),
    DEF("pcie", "setup_lat_ns", pcie.setup_lat_ns, 0, 100000000, 10000, "ns",
        "per transfer: driver call and DMA descriptor",
        "M. Boyer, CUDA memory transfer overhead (U. Virginia, GTX 280 on PCIe 2.0): cudaMemcpy "
        "has a constant overhead of about 10 us below 8 KB"),
    DEF("pcie", "host_memcpy_mbps", pcie.host_memcpy_mbps, 1, 10000000, 8000, "MB/s",
        "host CPU copy to or from the pinned staging buffer (pageable transfers)",
        MODEL ": between the 5.6 GB/s (Broadwell-E) and 11.4 GB/s (Skylake) single-threaded "
              "memcpy measured in Stack Overflow question 39260020; one core's bandwidth is "
              "concurrency-limited (J. McCalpin)"),
    DEF("pcie", "staging_chunk_bytes", pcie.staging_chunk_bytes, 4096, 1u << 30, 65536, "B",
        "pageable transfers: staging chunk, host copy of one chunk overlaps the DMA of the "
        "previous",
        MODEL ": the CUDA driver's staging-buffer size is not published"),
    DEF("pcie", "launch_overhead_ns", pcie.launch_overhead_ns, 0, 100000000, 4000, "ns",
        "host time of one kernel launch call",
        MODEL ": NVIDIA's Getting Started with CUDA Graphs (2019) shows launch overheads of a "
              "few microseconds dominating kernels of similar length"),
    DEF("pcie", "zero_copy_lat_ns", pcie.zero_copy_lat_ns, 1, 1000000, 700, "ns",
        "a kernel's load from mapped host memory: from the L1 across the link to host DRAM and back",
        MODEL ": between the 535 and 785 ns Chips and Cheese measured for a GPU's loads from host "
              "memory through a CPU's own PCIe lanes (C. Lam, Microbenchmarking Chipsets for "
              "Giggles, 2026: NVIDIA T1000, PCIe 3.0, on Skylake, Zen 5 and Arrow Lake hosts)"),

    DEF("pcie", "zero_copy_tags", pcie.zero_copy_tags, 1, 1024, 256, "reads",
        "reads of mapped host memory a GPU may have outstanding (non-posted requests need a tag)",
        PCIE_SPEC ": the 8-bit Tag field names 256 outstanding requests (10-bit tags, 768, are optional "
                  "from 4.0)"),

    DEF("uvm", "fault_batch_ns", uvm.fault_batch_ns, 0, 100000000, 45000, "ns",
        "managed memory: the driver's fixed work per batch of GPU page faults (the migration's link "
        "time is added)",
        MODEL ": the 45 us average far-fault latency of GPGPU-Sim UVMSmart (Ganguly et al., ISCA 2019; "
              "gpu-sim.cc -page_fault_latency 66645 cycles at the GTX 1080 Ti config's 1481 MHz), "
              "which times the PCIe transfer apart"),
    DEF("uvm", "batch_faults", uvm.batch_faults, 1, 65536, 256, "faults",
        "4 KiB page faults one batch takes at most",
        "NVIDIA open GPU kernel modules, nvidia-uvm/uvm_gpu_replayable_faults.c: "
        "UVM_PERF_FAULT_BATCH_COUNT_DEFAULT 256"),
    DEF("uvm", "migrate_bytes", uvm.migrate_bytes, 4096, 1u << 21, 65536, "B",
        "a faulted 4 KiB page migrates as the whole block of this size (the big page)",
        "NVIDIA open GPU kernel modules, nvidia-uvm/uvm_va_block_types.h: UVM_MIN_BIG_PAGE_SIZE 64K; "
        "faults are widened to whole big pages"),
    DEF("uvm", "chunk_bytes", uvm.chunk_bytes, 4096, 1u << 30, 2u << 20, "B",
        "the density prefetcher's region and the eviction unit (at most 32 blocks)",
        "NVIDIA open GPU kernel modules: VA blocks of 2 MiB (uvm_va_block_types.h UVM_VA_BLOCK_BITS 21), "
        "root chunks of 2 MiB evicted whole, oldest allocation first (uvm_pmm_gpu.h, uvm_pmm_gpu.c)"),
    DEF("uvm", "prefetch_threshold_pct", uvm.prefetch_threshold_pct, 1, 100, 51, "%",
        "density prefetch: a region joins a migration when more than this share of its blocks is "
        "resident or faulted (100: no prefetch)",
        "NVIDIA open GPU kernel modules, nvidia-uvm/uvm_perf_prefetch.c: "
        "UVM_PREFETCH_THRESHOLD_DEFAULT 51"),
};

#define KEY_COUNT (sizeof keys / sizeof keys[0])

static const char *const sections[] = {"gpu", "sm",  "regfile", "smem", "l1", "l2",
                                       "noc", "hbm", "pcie",    "uvm",  NULL};
static const char *const preset_names[] = {"a100", "classroom", "h100", "rtx-a6000", "v100", NULL};

size_t ws_config_key_count(void) { return KEY_COUNT; }

const ws_cfg_key *ws_config_key(size_t i) { return i < KEY_COUNT ? &keys[i] : NULL; }

const char *const *ws_config_preset_names(void) { return preset_names; }

static const ws_cfg_key *find_key(const char *section, const char *key) {
  for (size_t i = 0; i < KEY_COUNT; i++)
    if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0) return &keys[i];
  return NULL;
}

const ws_cfg_key *ws_config_find_key(const char *section_dot_key) {
  const char *dot = strchr(section_dot_key, '.');
  char section[32];
  if (!dot || (size_t)(dot - section_dot_key) >= sizeof section) return NULL;
  memcpy(section, section_dot_key, (size_t)(dot - section_dot_key));
  section[dot - section_dot_key] = '\0';
  return find_key(section, dot + 1);
}

static bool known_section(const char *section) {
  for (size_t i = 0; sections[i]; i++)
    if (strcmp(sections[i], section) == 0) return true;
  return false;
}

/* ---- field access ---------------------------------------------------------------- */

static uint64_t get_number(const ws_gpu_cfg *cfg, const ws_cfg_key *k) {
  const char *p = (const char *)cfg + k->offset;
  if (k->type == WS_CFG_U64) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  uint32_t v; /* u32 fields and enums (which are int-sized) */
  memcpy(&v, p, sizeof v);
  return v;
}

static void put_number(ws_gpu_cfg *cfg, const ws_cfg_key *k, uint64_t v) {
  char *p = (char *)cfg + k->offset;
  if (k->type == WS_CFG_U64) {
    memcpy(p, &v, sizeof v);
  } else if (k->type == WS_CFG_ENUM) {
    int e = (int)v;
    memcpy(p, &e, sizeof e);
  } else {
    uint32_t w = (uint32_t)v;
    memcpy(p, &w, sizeof w);
  }
}

/* "none", or the masks in hex: what set_xor reads back. */
static void format_xor(const ws_cfg_xor *x, char *buf, size_t buf_bytes) {
  snprintf(buf, buf_bytes, "none");
  for (uint32_t i = 0; i < x->count; i++) {
    size_t at = i ? strlen(buf) : 0;
    snprintf(buf + at, buf_bytes - at, "%s0x%llx", i ? ", " : "", (unsigned long long)x->masks[i]);
  }
}

void ws_config_format(const ws_gpu_cfg *cfg, const ws_cfg_key *k, char *buf, size_t buf_bytes) {
  if (k->type == WS_CFG_XOR) {
    ws_cfg_xor x;
    memcpy(&x, (const char *)cfg + k->offset, sizeof x);
    format_xor(&x, buf, buf_bytes);
  } else if (k->type == WS_CFG_STRING) {
    snprintf(buf, buf_bytes, "%s", (const char *)cfg + k->offset);
  } else if (k->type == WS_CFG_ENUM) {
    int e;
    memcpy(&e, (const char *)cfg + k->offset, sizeof e);
    int n = 0;
    while (k->enum_names[n]) n++;
    snprintf(buf, buf_bytes, "%s", e >= 0 && e < n ? k->enum_names[e] : "?");
  } else {
    snprintf(buf, buf_bytes, "%llu", (unsigned long long)get_number(cfg, k));
  }
}

static void apply_defaults(ws_gpu_cfg *cfg) {
  memset(cfg, 0, sizeof *cfg);
  for (size_t i = 0; i < KEY_COUNT; i++)
    if (!keys[i].required && keys[i].type != WS_CFG_STRING && keys[i].type != WS_CFG_XOR)
      put_number(cfg, &keys[i], keys[i].def);
}

/* Strict unsigned decimal: digits only, no sign, no trailing text. */
static bool parse_uint(const char *text, uint64_t *out, bool *overflow) {
  *overflow = false;
  if (!*text) return false;
  uint64_t v = 0;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) *overflow = true;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* "lrr, gto": an enum key's names, for messages; returns how many there are. */
static size_t enum_list(const ws_cfg_key *k, char *list, size_t list_bytes) {
  size_t n = 0;
  list[0] = '\0';
  for (; k->enum_names[n]; n++)
    snprintf(list + strlen(list), list_bytes - strlen(list), "%s%s", n ? ", " : "", k->enum_names[n]);
  return n;
}

/* A NUL-terminated value as messages quote it: non-printable bytes as \xNN. */
static const char *escape(char *buf, size_t buf_bytes, const char *value) {
  return ws_text_escape(buf, buf_bytes, value, strlen(value));
}

/* Names are printed by `warpscope gpus` and written into reports: printable
 * ASCII only, so no preset can put control bytes on a terminal. */
static ws_status set_string(ws_ctx *ctx, ws_gpu_cfg *cfg, const ws_cfg_key *k, const char *value,
                            const char *where) {
  size_t len = strlen(value);
  if (len == 0 || len >= k->size_bytes)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: key '%s.%s' expects 1 to %zu characters, found %zu",
                       where, k->section, k->key, k->size_bytes - 1, len);
  for (const char *p = value; *p; p++)
    if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
      char shown[128];
      return ws_ctx_fail(ctx, WS_ERR_INVALID,
                         "%s: error: key '%s.%s' expects printable ASCII text, found '%s'", where, k->section,
                         k->key, escape(shown, sizeof shown, value));
    }
  memcpy((char *)cfg + k->offset, value, len + 1);
  return WS_OK;
}

static ws_status set_enum(ws_ctx *ctx, ws_gpu_cfg *cfg, const ws_cfg_key *k, const char *value,
                          const char *where) {
  for (size_t i = 0; k->enum_names[i]; i++)
    if (strcmp(k->enum_names[i], value) == 0) {
      put_number(cfg, k, i);
      return WS_OK;
    }
  char list[128], shown[128];
  enum_list(k, list, sizeof list);
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: key '%s.%s' expects one of %s, found '%s'", where,
                     k->section, k->key, list, escape(shown, sizeof shown, value));
}

static const char *skip_blanks(const char *p) { return p + strspn(p, " \t"); }

/* One hex mask "0x..." of set_xor's list; returns the text after it, or
 * NULL when it is not one. */
static const char *parse_mask(const char *p, uint64_t *mask) {
  p = skip_blanks(p);
  if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2])) return NULL;
  uint64_t v = 0;
  for (p += 2; isxdigit((unsigned char)*p); p++) {
    if (v >> (WS_CFG_XOR_ADDR_BITS - 4)) return NULL; /* a digit more would pass the top bit */
    v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
  }
  *mask = v;
  return skip_blanks(p);
}

/* "none" or up to WS_CFG_MAX_XOR_BITS nonzero hex masks separated by commas,
 * each below bit WS_CFG_XOR_ADDR_BITS; the cross-field rules are
 * check_address_map's. */
static ws_status set_xor(ws_ctx *ctx, ws_gpu_cfg *cfg, const ws_cfg_key *k, const char *value,
                         const char *where) {
  ws_cfg_xor x = {0};
  char shown[128];
  const char *p = skip_blanks(value);
  if (strncmp(p, "none", 4) != 0 || *skip_blanks(p + 4)) {
    do {
      uint64_t mask = 0;
      if (x.count) p++; /* the comma after the previous mask */
      p = x.count < WS_CFG_MAX_XOR_BITS ? parse_mask(p, &mask) : NULL;
      if (!p || !mask)
        return ws_ctx_fail(ctx, WS_ERR_INVALID,
                           "%s: error: key '%s.%s' expects none or 1 to %u nonzero hex masks below bit %u "
                           "separated by commas (0x400, 0x2800), found '%s'",
                           where, k->section, k->key, WS_CFG_MAX_XOR_BITS, WS_CFG_XOR_ADDR_BITS,
                           escape(shown, sizeof shown, value));
      x.masks[x.count++] = mask;
    } while (*p == ',');
    if (*p)
      return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: key '%s.%s': unexpected '%s' after the masks",
                         where, k->section, k->key, escape(shown, sizeof shown, p));
  }
  memcpy((char *)cfg + k->offset, &x, sizeof x);
  return WS_OK;
}

/* Parses `value` by the key's type and range into cfg; `where` prefixes the
 * message ("FILE:LINE" or "--set ..."). */
static ws_status set_field(ws_ctx *ctx, ws_gpu_cfg *cfg, const ws_cfg_key *k, const char *value,
                           const char *where) {
  if (k->type == WS_CFG_ENUM) return set_enum(ctx, cfg, k, value, where);
  if (k->type == WS_CFG_STRING) return set_string(ctx, cfg, k, value, where);
  if (k->type == WS_CFG_XOR) return set_xor(ctx, cfg, k, value, where);
  uint64_t v = 0;
  bool overflow;
  char shown[128];
  if (!parse_uint(value, &v, &overflow))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: key '%s.%s' expects an unsigned integer, found '%s'",
                       where, k->section, k->key, escape(shown, sizeof shown, value));
  if (overflow || v < k->min || v > k->max)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: key '%s.%s' = %s is out of range [%llu, %llu]%s%s",
                       where, k->section, k->key, escape(shown, sizeof shown, value),
                       (unsigned long long)k->min, (unsigned long long)k->max, *k->unit ? " " : "", k->unit);
  put_number(cfg, k, v);
  return WS_OK;
}

/* ---- validation --------------------------------------------------------------------- */

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

uint32_t ws_config_l1_waiters(const ws_gpu_cfg *c) {
  uint64_t all = (uint64_t)c->l1.mshr_entries * c->l1.mshr_max_merge;
  return c->l1.mshr_waiters ? c->l1.mshr_waiters : (uint32_t)(all < UINT32_MAX ? all : UINT32_MAX);
}

/* Every place the memory system can hold a request record, at its capacity
 * (memsys.c sizes its pool by this): per SM the L1 MSHRs' waiters and the
 * write buffer, per slice its input queue and its fetches and write-backs,
 * per channel its controller queue, and two spare records. */
static uint64_t mem_requests(const ws_gpu_cfg *c) {
  uint64_t spl = c->l2.line_bytes / c->l2.sector_bytes;
  uint64_t per_sm = ws_config_l1_waiters(c) + (uint64_t)c->l1.mshr_entries;
  uint64_t per_slice = c->noc.queue_depth + (uint64_t)c->l2.mshr_entries_per_slice * (spl + 1u);
  uint64_t per_channel = c->hbm.queue_depth;
  return per_sm * c->gpu.num_sms + per_slice * c->l2.slices + per_channel * c->hbm.channels + 2u;
}

typedef struct checker {
  ws_ctx *ctx;
  const char *origin;
  const uint32_t *lines; /* per key, the line that set it (0: unknown), or NULL */
} checker;

static ws_status bad(const checker *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "ORIGIN[:LINE]: error: key 'KEY': MESSAGE" */
static ws_status bad(const checker *c, const char *key, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const ws_cfg_key *k = ws_config_find_key(key);
  uint32_t line = c->lines && k ? c->lines[k - keys] : 0;
  if (line)
    return ws_ctx_fail(c->ctx, WS_ERR_INVALID, "%s:%u: error: key '%s': %s", c->origin, line, key, msg);
  return ws_ctx_fail(c->ctx, WS_ERR_INVALID, "%s: error: key '%s': %s", c->origin, key, msg);
}

/* Sector, line and set geometry of one cache (the L2 per slice). */
static ws_status check_cache(const checker *c, const char *sec, uint32_t size_kib, uint32_t per,
                             uint32_t line, uint32_t sector, uint32_t assoc) {
  char key[32];
  snprintf(key, sizeof key, "%s.sector_bytes", sec);
  if (!pow2(sector)) return bad(c, key, "%u B is not a power of two", sector);
  snprintf(key, sizeof key, "%s.line_bytes", sec);
  if (line % sector || !pow2(line))
    return bad(c, key, "%u B is not a power-of-two multiple of the %u B sector", line, sector);
  snprintf(key, sizeof key, "%s.size_kib", sec);
  uint64_t bytes = (uint64_t)size_kib * 1024u, way_bytes = (uint64_t)assoc * line * per;
  if (bytes % way_bytes || !pow2(bytes / way_bytes))
    return bad(c, key, "%u KiB / (%u slice%s x %u ways x %u B lines) = %.4g sets, not a power of two",
               size_kib, per, per == 1 ? "" : "s", assoc, line, (double)bytes / (double)way_bytes);
  return WS_OK;
}

static ws_status check_limits(const checker *c, const ws_gpu_cfg *g) {
  /* warps are dealt to sub-partitions round robin, and each scheduler keeps
   * its warps in one 32-bit slot mask (sim/sm/sched.h) */
  uint32_t slots = g->sm.subpartitions * WS_CFG_MAX_WARPS_PER_SUBPARTITION;
  if (g->sm.max_warps_per_sm > slots)
    return bad(c, "sm.max_warps_per_sm",
               "%u resident warps exceed sm.subpartitions (%u) x %u warp slots per sub-partition (%u)",
               g->sm.max_warps_per_sm, g->sm.subpartitions, WS_CFG_MAX_WARPS_PER_SUBPARTITION, slots);
  if (g->sm.max_threads_per_block > g->sm.max_warps_per_sm * 32u)
    return bad(c, "sm.max_threads_per_block", "%u threads exceed max_warps_per_sm (%u) x 32",
               g->sm.max_threads_per_block, g->sm.max_warps_per_sm);
  for (int d = 0; d < 3; d++)
    if (g->sm.max_block_dim[d] > g->sm.max_threads_per_block)
      return bad(c,
                 d == 0   ? "sm.max_block_dim_x"
                 : d == 1 ? "sm.max_block_dim_y"
                          : "sm.max_block_dim_z",
                 "%u exceeds max_threads_per_block (%u)", g->sm.max_block_dim[d],
                 g->sm.max_threads_per_block);
  if (g->regfile.regs_per_sm % (g->sm.subpartitions * g->regfile.alloc_unit_regs))
    return bad(c, "regfile.regs_per_sm", "%u is not a multiple of subpartitions (%u) x alloc_unit_regs (%u)",
               g->regfile.regs_per_sm, g->sm.subpartitions, g->regfile.alloc_unit_regs);
  if (!pow2(g->smem.alloc_unit_bytes))
    return bad(c, "smem.alloc_unit_bytes", "%u B is not a power of two", g->smem.alloc_unit_bytes);
  if ((uint64_t)g->smem.max_per_block_bytes + g->smem.reserved_per_block_bytes > g->smem.per_sm_bytes)
    return bad(c, "smem.max_per_block_bytes", "%u B + the %u B reserve exceed per_sm_bytes (%u B)",
               g->smem.max_per_block_bytes, g->smem.reserved_per_block_bytes, g->smem.per_sm_bytes);
  return WS_OK;
}

/* The L1 and the L2 exchange whole lines and sector masks, and a mask is
 * 8 bits wide. */
static ws_status check_lines(const checker *c, const ws_gpu_cfg *g) {
  uint32_t line = g->l1.line_bytes, sector = g->l1.sector_bytes;
  if (line / sector > WS_CFG_MAX_SECTORS_PER_LINE)
    return bad(c, "l1.line_bytes", "%u B lines hold %u sectors of %u B; at most %u sectors per line", line,
               line / sector, sector, WS_CFG_MAX_SECTORS_PER_LINE);
  if (g->l2.line_bytes != line || g->l2.sector_bytes != sector)
    return bad(c, g->l2.line_bytes != line ? "l2.line_bytes" : "l2.sector_bytes",
               "line and sector sizes must match the L1's (L1: %u B lines of %u B sectors, L2: %u B of %u B)",
               line, sector, g->l2.line_bytes, g->l2.sector_bytes);
  return WS_OK;
}

static ws_status check_memory(const checker *c, const ws_gpu_cfg *g) {
  /* a fill that evicts a dirty line would need a write-buffer slot the
   * fill itself may be what frees: GPGPU-Sim refuses the pair for the
   * deadlock it makes */
  if (g->l1.allocation == WS_L1_ALLOC_STREAMING && g->l1.write_policy == WS_WRITE_BACK_ALLOC)
    return bad(c, "l1.allocation",
               "streaming allocates at the fill and needs l1.write_policy = write-through "
               "(a write-back L1 allocates at the miss: l1.allocation = on-miss)");
  ws_status st = check_cache(c, "l1", g->l1.size_kib, 1, g->l1.line_bytes, g->l1.sector_bytes, g->l1.assoc);
  if (st == WS_OK)
    st =
        check_cache(c, "l2", g->l2.size_kib, g->l2.slices, g->l2.line_bytes, g->l2.sector_bytes, g->l2.assoc);
  if (st == WS_OK) st = check_lines(c, g);
  if (st != WS_OK) return st;
  if (g->l2.slices % g->l2.partitions)
    return bad(c, "l2.slices", "%u slices do not divide evenly into %u partitions", g->l2.slices,
               g->l2.partitions);
  if (g->l2.partitions == 1 && g->l2.far_extra_lat_cycles)
    return bad(c, "l2.far_extra_lat_cycles", "%u cycles, but there is only one partition",
               g->l2.far_extra_lat_cycles);
  if (g->hbm.burst_bytes > g->hbm.row_bytes || g->hbm.row_bytes % g->hbm.burst_bytes)
    return bad(c, "hbm.burst_bytes", "%u B does not divide the %u B row", g->hbm.burst_bytes,
               g->hbm.row_bytes);
  /* the memory system names its requests by 32-bit index, UINT32_MAX meaning none */
  uint64_t requests = mem_requests(g);
  if (requests >= UINT32_MAX)
    return bad(c, "l1.mshr_entries", "%llu requests could be in flight at once; at most %u",
               (unsigned long long)requests, UINT32_MAX - 1);
  return WS_OK;
}

/* Link widths the PCIe base specification defines. */
static ws_status check_pcie(const checker *c, const ws_gpu_cfg *g) {
  static const uint32_t widths[] = {1, 2, 4, 8, 12, 16, 32};
  bool width_ok = false;
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) width_ok |= g->pcie.lanes == widths[i];
  if (!width_ok)
    return bad(c, "pcie.lanes", "x%u is not a PCIe link width (x1, x2, x4, x8, x12, x16, x32)",
               g->pcie.lanes);
  uint32_t mps = g->pcie.max_payload_bytes;
  if (!pow2(mps)) return bad(c, "pcie.max_payload_bytes", "%u B is not a power of two", mps);
  return WS_OK;
}

/* The JEDEC rules fit together: bank groups split the banks evenly, the
 * same-group spacings are no shorter than the others, a refresh ends before
 * the next is due, and the write watermarks fit the queue in order. */
static ws_status check_dram_rules(const checker *c, const ws_gpu_cfg *g) {
  const ws_cfg_hbm *h = &g->hbm;
  if (h->bank_groups && h->banks_per_channel % h->bank_groups)
    return bad(c, "hbm.bank_groups", "%u groups do not split %u banks evenly", h->bank_groups,
               h->banks_per_channel);
  if (h->t_ccd_l_ps < h->t_ccd_s_ps)
    return bad(c, "hbm.t_ccd_l_ps", "%u ps is shorter than t_ccd_s_ps (%u ps)", h->t_ccd_l_ps, h->t_ccd_s_ps);
  if (h->t_rrd_l_ps < h->t_rrd_s_ps)
    return bad(c, "hbm.t_rrd_l_ps", "%u ps is shorter than t_rrd_s_ps (%u ps)", h->t_rrd_l_ps, h->t_rrd_s_ps);
  /* a channel refreshing most of the time would crawl: JEDEC parts spend a
   * few percent of it there (tRFC 260 ns per 3.9 us on HBM2) */
  if (h->t_refi_ps && h->t_refi_ps < 100000)
    return bad(c, "hbm.t_refi_ps", "%u ps is below 100 ns (JEDEC parts refresh every few microseconds)",
               h->t_refi_ps);
  if ((h->t_refi_ps == 0) != (h->t_rfc_ps == 0) || (h->t_refi_ps && h->t_rfc_ps > h->t_refi_ps / 2))
    return bad(c, "hbm.t_rfc_ps",
               "%u ps with t_refi_ps %u ps: set both, the refresh at most half the interval", h->t_rfc_ps,
               h->t_refi_ps);
  if (h->t_rfcsb_ps && (!h->t_refi_ps || h->t_rfcsb_ps > h->t_refi_ps / 2))
    return bad(c, "hbm.t_rfcsb_ps",
               "%u ps with t_refi_ps %u ps: per-bank refresh needs the interval, and at most half of it",
               h->t_rfcsb_ps, h->t_refi_ps);
  if (h->write_high > h->queue_depth || h->write_low > h->write_high ||
      (h->write_high && h->write_low == h->write_high))
    return bad(c, "hbm.write_high",
               "watermarks %u (high) and %u (low) must satisfy low < high <= queue_depth (%u)", h->write_high,
               h->write_low, h->queue_depth);
  return WS_OK;
}

uint32_t ws_config_xor_masks(const ws_cfg_hbm *h, uint64_t *masks) {
  memcpy(masks, h->channel_xor.masks, h->channel_xor.count * sizeof *masks);
  memcpy(masks + h->channel_xor.count, h->bank_xor.masks, h->bank_xor.count * sizeof *masks);
  return h->channel_xor.count + h->bank_xor.count;
}

/* One XOR map's own rules: at most WS_CFG_MAX_XOR_BITS nonzero masks,
 * none reaching below the line (a line maps to one place) or above
 * WS_CFG_XOR_ADDR_BITS, giving `units` (a power of two) indices. */
static ws_status check_xor(const checker *c, const char *key, const ws_cfg_xor *x, uint32_t units,
                           const char *what, uint32_t line_bytes) {
  if (x->count > WS_CFG_MAX_XOR_BITS)
    return bad(c, key, "%u masks; at most %u", x->count, WS_CFG_MAX_XOR_BITS);
  if ((1ull << x->count) != units)
    return bad(c, key, "%u masks give %llu %s, but the preset has %u", x->count, 1ull << x->count, what,
               units);
  for (uint32_t i = 0; i < x->count; i++) {
    uint64_t m = x->masks[i];
    if (!m || m >> WS_CFG_XOR_ADDR_BITS)
      return bad(c, key, "mask %u (0x%llx) is empty or reaches past bit %u", i, (unsigned long long)m,
                 WS_CFG_XOR_ADDR_BITS - 1);
    if (m & (line_bytes - 1u))
      return bad(c, key,
                 "mask %u (0x%llx) takes address bit %d, inside a %u B line (a line maps to one place)", i,
                 (unsigned long long)m, __builtin_ctzll(m), line_bytes);
  }
  return WS_OK;
}

/* An XOR address map names both the channel and the bank, and must be a
 * bijection on the device's memory: the masks independent over its address
 * bits (ws_gf2_pivots), so every channel and bank is used, and a row of
 * whole lines (a power of two of them). */
static ws_status check_address_map(const checker *c, const ws_gpu_cfg *g) {
  const ws_cfg_hbm *h = &g->hbm;
  if (!h->channel_xor.count && !h->bank_xor.count) return WS_OK;
  if (!h->channel_xor.count || !h->bank_xor.count)
    return bad(c, h->channel_xor.count ? "hbm.bank_xor" : "hbm.channel_xor",
               "an XOR map gives both the channel and the bank: set hbm.channel_xor and hbm.bank_xor, or "
               "neither");
  uint32_t line = g->l2.line_bytes;
  ws_status st = check_xor(c, "hbm.channel_xor", &h->channel_xor, h->channels, "channels", line);
  if (st == WS_OK) st = check_xor(c, "hbm.bank_xor", &h->bank_xor, h->banks_per_channel, "banks", line);
  if (st != WS_OK) return st;
  if (h->row_bytes < line || !pow2(h->row_bytes / line) || h->row_bytes % line)
    return bad(c, "hbm.row_bytes", "%u B is not a power of two of %u B lines, as an XOR map needs",
               h->row_bytes, line);
  uint64_t masks[2 * WS_CFG_MAX_XOR_BITS];
  uint32_t n = ws_config_xor_masks(h, masks);
  /* every address below 2^hi is device memory, so pivots below it reach every channel and bank */
  uint32_t lo = (uint32_t)__builtin_ctz(line), hi = 63u - (uint32_t)__builtin_clzll(g->gpu.dram_size_bytes);
  uint8_t pivots[2 * WS_CFG_MAX_XOR_BITS];
  if (ws_gf2_pivots(masks, n, lo, hi, pivots) < n)
    return bad(c, "hbm.bank_xor",
               "the channel and bank masks are not independent over address bits %u to %u (the largest power "
               "of two within %llu B of device memory): some channel and bank pairs would never be used",
               lo, hi - 1, (unsigned long long)g->gpu.dram_size_bytes);
  return WS_OK;
}

/* The LSU's queue is a ring indexed with a mask. */
static ws_status check_sm_queues(const checker *c, const ws_gpu_cfg *g) {
  if (!pow2(g->sm.lsu_queue_insns))
    return bad(c, "sm.lsu_queue_insns", "%u is not a power of two", g->sm.lsu_queue_insns);
  return WS_OK;
}

/* A chunk is whole blocks, at most 32 (one 32-bit mask per chunk). */
static ws_status check_uvm(const checker *c, const ws_gpu_cfg *g) {
  uint32_t block = g->uvm.migrate_bytes, chunk = g->uvm.chunk_bytes;
  if (!pow2(block)) return bad(c, "uvm.migrate_bytes", "%u B is not a power of two", block);
  if (!pow2(chunk)) return bad(c, "uvm.chunk_bytes", "%u B is not a power of two", chunk);
  if (chunk < block || chunk / block > 32)
    return bad(c, "uvm.chunk_bytes", "%u B holds %u blocks of %u B; 1 to 32 are modelled", chunk,
               chunk / block, block);
  return WS_OK;
}

/* What the loader and --set check value by value, for a config whose fields
 * were written directly: every cross-field rule above assumes it. */
static ws_status check_ranges(const checker *c, const ws_gpu_cfg *g) {
  for (size_t i = 0; i < KEY_COUNT; i++) {
    const ws_cfg_key *k = &keys[i];
    if (k->type == WS_CFG_STRING || k->type == WS_CFG_XOR)
      continue; /* strings: any; masks: check_address_map */
    unsigned long long v = get_number(g, k);
    char list[128];
    if (k->type == WS_CFG_ENUM) {
      if (v >= enum_list(k, list, sizeof list))
        return ws_ctx_fail(c->ctx, WS_ERR_INVALID, "%s: error: key '%s.%s' = %llu is not one of %s",
                           c->origin, k->section, k->key, v, list);
    } else if (v < k->min || v > k->max) {
      return ws_ctx_fail(c->ctx, WS_ERR_INVALID,
                         "%s: error: key '%s.%s' = %llu is out of range [%llu, %llu]%s%s", c->origin,
                         k->section, k->key, v, (unsigned long long)k->min, (unsigned long long)k->max,
                         *k->unit ? " " : "", k->unit);
    }
  }
  return WS_OK;
}

static ws_status validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *origin, const uint32_t *lines) {
  checker c = {ctx, origin, lines};
  ws_status st = check_ranges(&c, cfg);
  if (st == WS_OK) st = check_limits(&c, cfg);
  if (st == WS_OK) st = check_memory(&c, cfg);
  if (st == WS_OK) st = check_pcie(&c, cfg);
  if (st == WS_OK) st = check_dram_rules(&c, cfg);
  if (st == WS_OK) st = check_address_map(&c, cfg);
  if (st == WS_OK) st = check_sm_queues(&c, cfg);
  return st == WS_OK ? check_uvm(&c, cfg) : st;
}

ws_status ws_config_validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *origin) {
  return validate(ctx, cfg, origin, NULL);
}

/* ---- derived geometry ------------------------------------------------------------ */

/* ceil(ps * core_clock_mhz / 10^6): a DRAM timing in core cycles. */
static uint64_t ps_to_cycles(uint64_t ps, uint32_t core_clock_mhz) {
  return (ps * core_clock_mhz + 999999u) / 1000000u;
}

/* The one derivation of every dependent quantity. It must not fail on a
 * config that is not yet consistent (--set derives after each override,
 * before the whole is checked): every key is within its range by then, and
 * the table's minimums keep every divisor positive. */
const ws_cfg_pcie_gen *ws_config_pcie_gen(uint32_t gen) {
  static const ws_cfg_pcie_gen gens[] = {
      {2500, 8, 10}, {5000, 8, 10}, {8000, 128, 130}, {16000, 128, 130}, {32000, 128, 130},
  };
  return gen >= 1 && gen <= sizeof gens / sizeof gens[0] ? &gens[gen - 1] : NULL;
}

uint64_t ws_config_pcie_wire_bytes(const ws_cfg_pcie *p, uint64_t size_bytes) {
  uint64_t tlps = (size_bytes + p->max_payload_bytes - 1) / p->max_payload_bytes;
  return size_bytes + tlps * p->tlp_overhead_bytes;
}

uint64_t ws_config_cycles_to_ns(uint64_t cycles, uint32_t core_clock_mhz) {
  uint64_t mhz = core_clock_mhz; /* whole microseconds first: no overflow for any cycle count */
  return (cycles / mhz) * 1000u + ((cycles % mhz) * 1000u + mhz - 1) / mhz;
}

/* wire bits = wire bytes x 8 x line/data; one transfer carries one bit per
 * lane, so ns = wire bits x 1000 / (lanes x MT/s), ceil(a x n / d) without
 * overflow for the ranges the key table allows. */
uint64_t ws_config_pcie_dma_ns(const ws_cfg_pcie *p, uint64_t size_bytes) {
  const ws_cfg_pcie_gen *g = ws_config_pcie_gen(p->gen);
  if (!g || size_bytes == 0) return 0;
  uint64_t n = 8ull * g->code_line_bits * 1000u, d = (uint64_t)g->code_data_bits * p->lanes * g->lane_mtps;
  uint64_t a = ws_config_pcie_wire_bytes(p, size_bytes);
  return (a / d) * n + ((a % d) * n + d - 1) / d;
}

/* lanes x lane rate x line-code efficiency, in MB/s (a lane carries one bit per transfer) */
static uint32_t pcie_wire_mbps(const ws_cfg_pcie *p) {
  const ws_cfg_pcie_gen *g = ws_config_pcie_gen(p->gen);
  if (!g) return 1;
  uint64_t mbps = (uint64_t)p->lanes * g->lane_mtps * g->code_data_bits / (8ull * g->code_line_bits);
  return mbps ? (uint32_t)mbps : 1;
}

static void derive(ws_gpu_cfg *cfg) {
  ws_gpu_geom *g = &cfg->geom;
  memset(g, 0, sizeof *g);
  uint32_t line = cfg->l1.line_bytes;
  g->line_shift = (uint32_t)__builtin_ctz(line);
  g->sectors_per_line = line / cfg->l1.sector_bytes;
  g->l1_sets = (uint32_t)((uint64_t)cfg->l1.size_kib * 1024u / ((uint64_t)cfg->l1.assoc * line));
  g->l2_bytes = (uint64_t)cfg->l2.size_kib * 1024u;
  g->l2_slice_bytes = g->l2_bytes / cfg->l2.slices;
  g->l2_sets_per_slice = (uint32_t)(g->l2_slice_bytes / ((uint64_t)cfg->l2.assoc * cfg->l2.line_bytes));
  g->l2_partitions = cfg->l2.partitions ? cfg->l2.partitions : 1;
  g->l2_far_extra_lat_cycles = g->l2_partitions > 1 ? cfg->l2.far_extra_lat_cycles : 0;
  uint32_t row = cfg->hbm.row_bytes;
  g->hbm_lines_per_row = row >= cfg->l2.line_bytes ? row / cfg->l2.line_bytes : 1;
  uint32_t mhz = cfg->gpu.core_clock_mhz;
  g->hbm_t_rcd_cycles = ps_to_cycles(cfg->hbm.t_rcd_ps, mhz);
  g->hbm_t_cl_cycles = ps_to_cycles(cfg->hbm.t_cl_ps, mhz);
  g->hbm_t_rp_cycles = ps_to_cycles(cfg->hbm.t_rp_ps, mhz);
  g->hbm_t_ras_cycles = ps_to_cycles(cfg->hbm.t_ras_ps, mhz);
  g->hbm_t_ccd_s_cycles = ps_to_cycles(cfg->hbm.t_ccd_s_ps, mhz);
  g->hbm_t_ccd_l_cycles = ps_to_cycles(cfg->hbm.t_ccd_l_ps, mhz);
  g->hbm_t_rrd_s_cycles = ps_to_cycles(cfg->hbm.t_rrd_s_ps, mhz);
  g->hbm_t_rrd_l_cycles = ps_to_cycles(cfg->hbm.t_rrd_l_ps, mhz);
  g->hbm_t_faw_cycles = ps_to_cycles(cfg->hbm.t_faw_ps, mhz);
  g->hbm_t_wtr_cycles = ps_to_cycles(cfg->hbm.t_wtr_ps, mhz);
  g->hbm_t_rtw_cycles = ps_to_cycles(cfg->hbm.t_rtw_ps, mhz);
  g->hbm_t_refi_cycles = ps_to_cycles(cfg->hbm.t_refi_ps, mhz);
  g->hbm_t_rfc_cycles = ps_to_cycles(cfg->hbm.t_rfc_ps, mhz);
  g->hbm_t_rfcsb_cycles = ps_to_cycles(cfg->hbm.t_rfcsb_ps, mhz);
  g->mem_requests = mem_requests(cfg);
  g->pcie_wire_mbps = pcie_wire_mbps(&cfg->pcie);
  g->zero_copy_lat_cycles = ps_to_cycles((uint64_t)cfg->pcie.zero_copy_lat_ns * 1000u, mhz);
  g->uvm_batch_cycles = ps_to_cycles((uint64_t)cfg->uvm.fault_batch_ns * 1000u, mhz);
}

ws_status ws_config_resolve(ws_ctx *ctx, ws_gpu_cfg *cfg, const char *origin) {
  ws_status st = validate(ctx, cfg, origin, NULL);
  if (st == WS_OK) derive(cfg);
  return st;
}

/* ---- INI loading ---------------------------------------------------------------------- */

typedef struct loader {
  ws_ctx *ctx;
  ws_gpu_cfg *cfg;
  const char *filename;         /* escaped, as every message shows it */
  const char *text, *end, *pos; /* the reader's cursor */
  uint32_t line;                /* lines handed to inih so far */
  ws_status status;             /* WS_OK until the first error is recorded */
  uint32_t seen[KEY_COUNT];     /* line of each key's assignment, 0 when absent */
} loader;

static void fail_line(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records "FILE:LINE: error: ..." for the line being read or handled, unless
 * an earlier line already failed: lines come in order, so the first error
 * recorded is the first in the file. */
static void fail_line(loader *L, const char *fmt, ...) {
  if (L->status != WS_OK) return;
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  L->status = ws_ctx_fail(L->ctx, WS_ERR_INVALID, "%s:%u: error: %s", L->filename, L->line, msg);
}

/* Cuts a ';' or '#' comment that starts the line or follows whitespace. */
static void strip_comment(char *s) {
  for (char *p = s; *p; p++)
    if ((*p == ';' || *p == '#') && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
      *p = '\0';
      return;
    }
}

/* What inih would refuse in a comment-free line, checked here so that the
 * message names this line (inih only reports a line number at the end,
 * after the handler may have failed on a later line). */
static void check_shape(loader *L, const char *s) {
  size_t len = strlen(s);
  while (len && isspace((unsigned char)s[len - 1])) len--;
  if (!len) return;
  char shown[96];
  ws_text_escape(shown, sizeof shown, s, len < 40 ? len : 40);
  if (s[0] == '[' && !memchr(s, ']', len))
    fail_line(L, "unterminated section header '%s' (expected ']')", shown);
  else if (s[0] != '[' && !memchr(s, '=', len) && !memchr(s, ':', len))
    fail_line(L, "expected '[section]' or 'key = value', found '%s'", shown);
}

/* A NUL byte would end the line for inih and hide the rest: a text preset
 * has none, so one means a binary or damaged file. */
static bool check_nul(loader *L, const char *line, const char *stop) {
  const char *nul = memchr(line, '\0', (size_t)(stop - line));
  if (!nul) return true;
  if (L->status == WS_OK)
    L->status = ws_ctx_fail(L->ctx, WS_ERR_INVALID, "%s:%u:%zu: error: NUL byte (a preset is text)",
                            L->filename, L->line, (size_t)(nul - line) + 1);
  return false;
}

/* inih's ini_reader: the next line (comment removed), or NULL at the end. A
 * line found malformed is recorded and handed over empty. */
static char *read_line(char *str, int num, void *stream) {
  loader *L = stream;
  if (L->pos >= L->end) return NULL;
  const char *line = L->pos;
  const char *nl = memchr(line, '\n', (size_t)(L->end - line));
  const char *stop = nl ? nl : L->end;
  L->pos = nl ? nl + 1 : L->end;
  L->line++;
  if (L->line == 1 && stop - line >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3; /* UTF-8 BOM */
  char buf[4096];
  size_t len = (size_t)(stop - line);
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, line, len);
  buf[len] = '\0';
  strip_comment(buf);
  /* no leading blanks: inih would read an indented line as a continuation of the previous value */
  const char *start = buf;
  while (isspace((unsigned char)*start)) start++;
  size_t keep = strlen(start);
  bool ok = check_nul(L, line, stop);
  if (ok && keep + 2 > (size_t)num) /* room for "\n" and the NUL */
    fail_line(L, "line longer than %d characters (comments excluded)", num - 2);
  if (ok) check_shape(L, start);
  if (!ok || keep + 2 > (size_t)num) keep = 0;
  memcpy(str, start, keep);
  str[keep] = '\n';
  str[keep + 1] = '\0';
  return str;
}

static int on_value(void *user, const char *section, const char *name, const char *value) {
  loader *L = user;
  if (L->status != WS_OK) return 0; /* keep the first message */
  char where[512], sec[128], key[128];
  snprintf(where, sizeof where, "%s:%u", L->filename, L->line);
  escape(sec, sizeof sec, section);
  escape(key, sizeof key, name);
  if (!*section) {
    fail_line(L, "key '%s' is outside any [section]", key);
    return 0;
  }
  if (!known_section(section)) {
    char list[128] = "";
    for (size_t i = 0; sections[i]; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", sections[i]);
    fail_line(L, "unknown section [%s] (sections: %s)", sec, list);
    return 0;
  }
  const ws_cfg_key *k = find_key(section, name);
  if (!k) {
    fail_line(L, "unknown key '%s' in section [%s]", key, sec);
    return 0;
  }
  uint32_t *seen = &L->seen[k - keys];
  if (*seen) {
    fail_line(L, "duplicate key '%s.%s' (first set on line %u)", sec, key, *seen);
    return 0;
  }
  *seen = L->line;
  L->status = set_field(L->ctx, L->cfg, k, value, where);
  return L->status == WS_OK;
}

static ws_status check_required(const loader *L) {
  for (size_t i = 0; i < KEY_COUNT; i++)
    if (keys[i].required && !L->seen[i])
      return ws_ctx_fail(L->ctx, WS_ERR_INVALID, "%s: error: missing required key '%s.%s'", L->filename,
                         keys[i].section, keys[i].key);
  return WS_OK;
}

ws_status ws_config_load_text(ws_ctx *ctx, const char *text, size_t len, const char *filename,
                              ws_gpu_cfg *out) {
  loader *L = calloc(1, sizeof *L);
  if (!L) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of memory loading %s", filename);
  char name[512];
  ws_text_escape(name, sizeof name, filename, strlen(filename));
  ws_gpu_cfg cfg;
  apply_defaults(&cfg);
  *L = (loader){.ctx = ctx, .cfg = &cfg, .filename = name, .text = text, .end = text + len, .pos = text};
  int rc = ini_parse_stream(read_line, L, on_value, L);
  ws_status st = L->status;
  /* the reader checks every line inih can refuse, and a stack-buffered inih
   * allocates nothing: a nonzero rc with no message is a mismatch between them */
  if (st == WS_OK && rc != 0)
    st = ws_ctx_fail(ctx, WS_ERR_INVALID, "%s:%d: error: expected '[section]' or 'key = value'", name, rc);
  if (st == WS_OK) st = check_required(L);
  if (st == WS_OK) st = validate(ctx, &cfg, name, L->seen);
  if (st == WS_OK) derive(&cfg);
  free(L);
  if (st == WS_OK) *out = cfg;
  return st;
}

ws_status ws_config_load_file(ws_ctx *ctx, const char *path, ws_gpu_cfg *out) {
  char *text = NULL;
  size_t size = 0;
  ws_status st = ws_file_read(ctx, path, WS_CONFIG_MAX_FILE_BYTES, "GPU presets", &text, &size);
  if (st == WS_OK) st = ws_config_load_text(ctx, text, size, path, out);
  free(text);
  return st;
}

/* Only the listed names are looked up, so a name cannot reach another file. */
static const ws_embedded_file *find_preset(const char *name) {
  char path[128];
  snprintf(path, sizeof path, "sim/presets/%s.ini", name);
  for (size_t i = 0; preset_names[i]; i++)
    if (strcmp(preset_names[i], name) == 0)
      return ws_embedded_find(ws_config_preset_files, ws_config_preset_files_count, path);
  return NULL;
}

const char *ws_config_preset_text(const char *name) {
  const ws_embedded_file *f = find_preset(name);
  return f ? f->text : NULL;
}

/* Reads the text itself rather than through inih: the loader strips
 * comments before inih sees a line, and this wants exactly the comment. */
void ws_config_key_source(const char *ini_text, const char *section, const char *key, char *out,
                          size_t out_bytes) {
  char cur[32] = "";
  size_t klen = strlen(key);
  out[0] = '\0';
  for (const char *line = ini_text; *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (line[0] == '[') {
      size_t s = strcspn(line + 1, "]");
      snprintf(cur, sizeof cur, "%.*s", (int)(s < sizeof cur ? s : sizeof cur - 1), line + 1);
    } else if (strcmp(cur, section) == 0 && len > klen && strncmp(line, key, klen) == 0 &&
               strchr(" =", line[klen])) {
      const char *semi = memchr(line, ';', len);
      if (semi) {
        const char *c = semi + 1 + strspn(semi + 1, " ");
        snprintf(out, out_bytes, "%.*s", (int)(line + len - c), c);
      }
      return;
    }
    line = nl ? nl + 1 : line + len;
  }
}

ws_status ws_config_load_preset(ws_ctx *ctx, const char *name, ws_gpu_cfg *out) {
  const ws_embedded_file *f = find_preset(name);
  if (!f) {
    char list[256] = "";
    for (size_t i = 0; preset_names[i]; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", preset_names[i]);
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown GPU preset '%s' (presets: %s)", name, list);
  }
  return ws_config_load_text(ctx, f->text, f->size_bytes, f->path, out);
}

ws_status ws_config_set(ws_ctx *ctx, ws_gpu_cfg *cfg, const char *assignment) {
  char where[256], shown[200];
  snprintf(where, sizeof where, "--set %s", escape(shown, sizeof shown, assignment));
  const char *eq = strchr(assignment, '=');
  char name[96];
  size_t len = eq ? (size_t)(eq - assignment) : 0;
  if (!eq || len == 0 || len >= sizeof name || !memchr(assignment, '.', len))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: expected SECTION.KEY=VALUE", where);
  memcpy(name, assignment, len);
  name[len] = '\0';
  const ws_cfg_key *k = ws_config_find_key(name);
  if (!k)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: error: unknown key '%s'", where,
                       escape(shown, sizeof shown, name));
  ws_status st = set_field(ctx, cfg, k, eq + 1, where);
  if (st == WS_OK) derive(cfg);
  return st;
}

/* The a100 preset is embedded and loaded by the test suite
 * (tests/sim/common/test_config.c), so a failure here is a build defect, not an
 * input error: there is nothing a caller could do about it. */
ws_gpu_cfg ws_config_default(void) {
  ws_gpu_cfg cfg;
  if (ws_config_load_preset(NULL, "a100", &cfg) != WS_OK) apply_defaults(&cfg);
  return cfg;
}

ws_gpu_peaks ws_config_peaks(const ws_gpu_cfg *c) {
  double hz = c->gpu.core_clock_mhz * 1e6, sms = c->gpu.num_sms;
  return (ws_gpu_peaks){sms * c->sm.subpartitions * c->sm.fp32_lanes_per_subpartition * 2.0 * hz,
                        sms * c->sm.tensor_flops_per_cycle_per_sm * hz,
                        c->l1.port_bytes_per_cycle * hz,
                        (double)c->smem.banks * c->smem.bank_width_bytes * hz,
                        (double)c->l2.slices * c->l2.slice_bytes_per_cycle * hz,
                        (double)c->hbm.channels * c->hbm.channel_mbps * 1e6};
}
