/* config.h - a GPU preset: every number the simulator's limits and timing
 * model use, grouped as the INI sections that set them, and the geometry
 * derived from them.
 *
 * Design: configuration is data. Each field is set through one table of
 * {section, key, type, offset, range, default, unit, description, source}
 * (config.c); the INI loader, `--set section.key=value`, `warpscope gpus
 * show` and docs/presets.md are all driven by that table, so a field added
 * here and there is everywhere at once. Units are in the names.
 *
 * Every check lives here too, and so does every quantity that follows from
 * the keys (sets per cache, picosecond timings in core cycles, ...): one
 * function derives them all into the `geom` member whenever a config is
 * loaded, overridden or resolved. The geometry rides inside ws_gpu_cfg
 * rather than beside it so that every component keeps its one `cfg`
 * argument and copies of a config stay whole; components trust a resolved
 * config and neither re-check nor re-derive it. */
#ifndef WS_CONFIG_H
#define WS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ctx.h"

#define WS_CFG_NAME_MAX 64

typedef enum ws_sched_policy { WS_SCHED_LRR, WS_SCHED_GTO, WS_SCHED_COUNT } ws_sched_policy;

typedef enum ws_write_policy {
  WS_WRITE_THROUGH_NOALLOC, /* NVIDIA L1 default: stores go to L2, invalidate the L1 line's sectors */
  WS_WRITE_BACK_ALLOC,      /* stores allocate and dirty L1 sectors, written back on eviction */
  WS_WRITE_POLICY_COUNT
} ws_write_policy;

typedef enum ws_l1_alloc {
  WS_L1_ALLOC_ON_MISS,   /* a miss reserves its line's way until the fill (GPGPU-Sim 3.x, Fermi) */
  WS_L1_ALLOC_STREAMING, /* misses live in MSHRs only; the fill takes a way (Volta and later) */
  WS_L1_ALLOC_COUNT
} ws_l1_alloc;

typedef struct ws_cfg_gpu {
  char name[WS_CFG_NAME_MAX];
  char full_name[WS_CFG_NAME_MAX * 2]; /* e.g. "NVIDIA A100-SXM4-40GB" */
  uint32_t cc_major, cc_minor;         /* compute capability: occupancy rules depend on it */
  uint32_t num_sms;
  uint32_t core_clock_mhz; /* SM clock the cycle counts are converted with */
  uint64_t dram_size_bytes;
  uint32_t const_bank_bytes;
  uint64_t insn_budget_warp_insns; /* per launch; catches runaway loops */
} ws_cfg_gpu;

typedef struct ws_cfg_sm {
  uint32_t subpartitions; /* warp schedulers per SM (4 since Volta) */
  uint32_t max_warps_per_sm;
  uint32_t max_threads_per_block;
  uint32_t max_block_dim[3];
  uint32_t max_grid_dim[3];
  uint32_t max_ctas_per_sm;
  ws_sched_policy scheduler;
  /* latency (dependent-issue distance) and initiation interval (cycles
   * between two instructions of the class on one sub-partition) per unit */
  uint32_t int_lat_cycles, int_ii_cycles;
  uint32_t fp32_lat_cycles, fp32_ii_cycles;
  uint32_t sfu_lat_cycles, sfu_ii_cycles;
  uint32_t shfl_lat_cycles, shfl_ii_cycles;
  uint32_t tensor_lat_cycles, tensor_ii_cycles;
  uint32_t branch_lat_cycles;
  uint32_t const_lat_cycles;    /* LDC/LDP hit in the constant cache */
  uint32_t lsu_ii_cycles;       /* per memory instruction per sub-partition (MIO) */
  uint32_t lsu_queue_insns;     /* MIO queue of an SM's LSU, in warp instructions (a power of two) */
  uint32_t smem_backlog_cycles; /* shared-memory wavefronts waiting before issue throttles */
  uint32_t async_groups;        /* committed LDGSTS groups a warp may have in flight */
  uint32_t
      fp32_lanes_per_subpartition; /* FP32 FMA lanes; peak FP32 = 2 x lanes x subpartitions x SMs x clock */
  uint32_t tensor_flops_per_cycle_per_sm; /* dense FP16 multiply, FP32 accumulate */
} ws_cfg_sm;

typedef struct ws_cfg_regfile {
  uint32_t regs_per_sm; /* 32-bit registers */
  uint32_t max_regs_per_thread;
  uint32_t alloc_unit_regs;        /* per-warp allocation granularity (256) */
  uint32_t banks_per_subpartition; /* operand-collector banks; same-bank reads serialise */
} ws_cfg_regfile;

typedef struct ws_cfg_smem {
  uint32_t per_sm_bytes;             /* shared memory carve-out the occupancy rules use */
  uint32_t max_per_block_bytes;      /* opt-in maximum per block */
  uint32_t reserved_per_block_bytes; /* driver reserve per CTA (1 KiB on cc 8.x/9.x) */
  uint32_t alloc_unit_bytes;         /* allocation granularity (128 B; 256 B on cc 7.0) */
  uint32_t banks;
  uint32_t bank_width_bytes;
  uint32_t lat_cycles; /* conflict-free load-to-use latency */
} ws_cfg_smem;

typedef struct ws_cfg_l1 {
  uint32_t size_kib;
  uint32_t line_bytes;
  uint32_t sector_bytes;
  uint32_t assoc;
  uint32_t hit_lat_cycles;       /* load-to-use on a sector hit */
  uint32_t mshr_entries;         /* outstanding missed lines */
  uint32_t mshr_max_merge;       /* requests one MSHR entry can hold */
  uint32_t mshr_waiters;         /* requests all MSHRs hold together (0: entries x max_merge) */
  uint32_t port_bytes_per_cycle; /* data returned to the SM per cycle */
  ws_write_policy write_policy;
  ws_l1_alloc allocation;
} ws_cfg_l1;

typedef struct ws_cfg_l2 {
  uint32_t size_kib; /* total over all slices */
  uint32_t slices;
  uint32_t partitions; /* 1, or 2 where the GPU has near/far halves */
  uint32_t line_bytes;
  uint32_t sector_bytes;
  uint32_t assoc;
  uint32_t hit_lat_cycles;       /* slice tag + data access */
  uint32_t far_extra_lat_cycles; /* added when the slice is in the other partition */
  uint32_t mshr_entries_per_slice;
  uint32_t slice_bytes_per_cycle;
} ws_cfg_l2;

typedef struct ws_cfg_noc {
  uint32_t lat_cycles; /* one way, SM <-> L2 slice */
  uint32_t sm_port_bytes_per_cycle;
  uint32_t slice_port_bytes_per_cycle;
  uint32_t queue_depth;  /* packets buffered per port */
  uint32_t header_bytes; /* a request packet without data: address, mask, kind, ids */
} ws_cfg_noc;

#define WS_CFG_MAX_XOR_BITS 8u   /* index bits of an XOR address map: up to 256 channels or banks */
#define WS_CFG_XOR_ADDR_BITS 48u /* address bits an XOR mask may take (256 TiB) */

/* An index (channel or bank) as XOR functions of address bits: index bit i
 * is the parity of (address & masks[i]). count 0: no XOR map. */
typedef struct ws_cfg_xor {
  uint32_t count;
  uint64_t masks[WS_CFG_MAX_XOR_BITS];
} ws_cfg_xor;

typedef struct ws_cfg_hbm {
  uint32_t channels;
  uint32_t banks_per_channel;
  uint32_t row_bytes;
  uint32_t burst_bytes;                          /* bytes moved per column access */
  uint32_t channel_mbps;                         /* per-channel bandwidth, MB/s (10^6 B/s) */
  uint32_t t_rcd_ps, t_cl_ps, t_rp_ps, t_ras_ps; /* in picoseconds */
  uint32_t queue_depth;                          /* requests per channel controller */
  uint32_t ctrl_lat_cycles;                      /* controller + PHY, each way */
  /* JEDEC rules between commands of one channel (0: not modelled) */
  uint32_t bank_groups;            /* bank b is in group b mod bank_groups */
  uint32_t pseudo_channels;        /* a channel's pseudo-channels: each has its own tFAW window */
  uint32_t t_ccd_s_ps, t_ccd_l_ps; /* column to column: other / same bank group */
  uint32_t t_rrd_s_ps, t_rrd_l_ps; /* activate to activate: other / same bank group */
  uint32_t t_faw_ps;               /* at most four activates in any window this long */
  uint32_t t_wtr_ps;               /* write command to read command (turnaround) */
  uint32_t t_rtw_ps;               /* read command to write command (turnaround) */
  uint32_t t_refi_ps, t_rfc_ps;    /* all-bank refresh: one every t_refi, the channel busy t_rfc */
  uint32_t t_rfcsb_ps;             /* per-bank refresh instead: a bank every t_refi / banks, busy t_rfcsb */
  uint32_t write_high, write_low;  /* write drain: start at this many queued writes, stop at that */
  /* the address map: both empty for the skewed interleave (addrmap.h) */
  ws_cfg_xor channel_xor, bank_xor;
} ws_cfg_hbm;

/* Device addresses at and above this one are host memory mapped into the
 * device's address space (zero-copy, sim/exec/mem.h): the memory system
 * sends their accesses over the host link. */
#define WS_CFG_SYSMEM_BASE 0x00007F0000000000ull
/* Managed (unified) memory lies at and above this one, below the mapped
 * host memory: its pages migrate between host and device on demand
 * (sim/memsys/uvm.h). */
#define WS_CFG_MANAGED_BASE 0x00007E0000000000ull

/* The host link (sim/host/pcie.c) and the host-side costs the runtime
 * (sim/host/runtime.c) charges around it. */
typedef struct ws_cfg_pcie {
  uint32_t gen; /* PCIe generation: sets the lane rate and the line encoding */
  uint32_t lanes;
  uint32_t max_payload_bytes;   /* data bytes per TLP (MPS) */
  uint32_t tlp_overhead_bytes;  /* framing + sequence number + header + LCRC per TLP */
  uint32_t setup_lat_ns;        /* per transfer: driver call + DMA descriptor */
  uint32_t host_memcpy_mbps;    /* CPU copy into or out of the pinned staging buffer, MB/s */
  uint32_t staging_chunk_bytes; /* pageable copies are staged in chunks of this size */
  uint32_t launch_overhead_ns;  /* host time of one kernel launch call */
  uint32_t zero_copy_lat_ns;    /* a kernel's load from mapped host memory: the round trip */
  uint32_t zero_copy_tags;      /* reads of mapped host memory outstanding at most */
} ws_cfg_pcie;

/* Managed memory (sim/memsys/uvm.h): how NVIDIA's UVM driver services GPU
 * page faults. */
typedef struct ws_cfg_uvm {
  uint32_t fault_batch_ns;         /* the driver's fixed work per fault batch */
  uint32_t batch_faults;           /* 4 KiB faults one batch takes at most */
  uint32_t migrate_bytes;          /* a faulted page migrates as this block (the big page) */
  uint32_t chunk_bytes;            /* prefetch region and eviction unit (the VA block) */
  uint32_t prefetch_threshold_pct; /* density prefetch: a region's blocks resident above this; 100: off */
} ws_cfg_uvm;

/* Bounds of the key table that components size their types by (crossbar and
 * event unit numbers are 16-bit, sector masks 8-bit, a scheduler's warp
 * slots one 32-bit mask); they assert them at compile time instead of
 * checking each config. */
#define WS_CFG_MAX_SMS 1024u
#define WS_CFG_MAX_LSU_QUEUE 64u   /* sm.lsu_queue_insns at most: the LSU's queue array */
#define WS_CFG_MAX_ASYNC_GROUPS 8u /* sm.async_groups at most: a warp's group array */
#define WS_CFG_MAX_SUBPARTITIONS 8u
#define WS_CFG_MAX_WARPS_PER_SUBPARTITION 32u
#define WS_CFG_MAX_L2_SLICES 1024u
#define WS_CFG_MAX_HBM_CHANNELS 1024u
#define WS_CFG_MAX_SECTORS_PER_LINE 8u
/* a key's value as ws_config_format writes it, at most (8 masks of 48 bits in hex) */
#define WS_CFG_VALUE_BYTES 256u

/* What follows from the keys, derived once (see above). The L1 and the L2
 * share their line and sector sizes (a checked rule), so the line figures
 * serve both levels. */
typedef struct ws_gpu_geom {
  uint64_t l2_bytes;         /* l2.size_kib x 1024, over all slices */
  uint64_t l2_slice_bytes;   /* l2_bytes / l2.slices */
  uint64_t hbm_t_rcd_cycles; /* hbm.t_*_ps in core cycles, rounded up */
  uint64_t hbm_t_cl_cycles;
  uint64_t hbm_t_rp_cycles;
  uint64_t hbm_t_ras_cycles;
  uint64_t mem_requests;            /* requests the memory system can hold at once (memsys.c) */
  uint32_t l1_sets;                 /* l1.size_kib x 1024 / (l1.assoc x line_bytes) */
  uint32_t l2_sets_per_slice;       /* l2_slice_bytes / (l2.assoc x line_bytes) */
  uint32_t line_shift;              /* log2(line_bytes): a line number is addr >> line_shift */
  uint32_t sectors_per_line;        /* line_bytes / sector_bytes, at most 8 */
  uint32_t l2_partitions;           /* l2.partitions, at least 1 */
  uint32_t l2_far_extra_lat_cycles; /* l2.far_extra_lat_cycles, 0 with one partition */
  uint32_t hbm_lines_per_row;       /* hbm.row_bytes / line_bytes, at least 1 */
  /* hbm.t_*_ps of the JEDEC rules in core cycles, rounded up */
  uint64_t hbm_t_ccd_s_cycles, hbm_t_ccd_l_cycles, hbm_t_rrd_s_cycles, hbm_t_rrd_l_cycles;
  uint64_t hbm_t_faw_cycles, hbm_t_wtr_cycles, hbm_t_rtw_cycles, hbm_t_refi_cycles, hbm_t_rfc_cycles;
  uint64_t hbm_t_rfcsb_cycles;
  uint32_t pcie_wire_mbps;       /* the link's raw rate after line coding, MB/s, one direction */
  uint64_t zero_copy_lat_cycles; /* pcie.zero_copy_lat_ns in core cycles, rounded up */
  uint64_t uvm_batch_cycles;     /* uvm.fault_batch_ns in core cycles, rounded up */
} ws_gpu_geom;

typedef struct ws_gpu_cfg {
  ws_cfg_gpu gpu;
  ws_cfg_sm sm;
  ws_cfg_regfile regfile;
  ws_cfg_smem smem;
  ws_cfg_l1 l1;
  ws_cfg_l2 l2;
  ws_cfg_noc noc;
  ws_cfg_hbm hbm;
  ws_cfg_pcie pcie;
  ws_cfg_uvm uvm;
  ws_gpu_geom geom; /* derived from the fields above, never set directly */
} ws_gpu_cfg;

/* ---- the key table -------------------------------------------------------- */

typedef enum ws_cfg_type {
  WS_CFG_U32,
  WS_CFG_U64,
  WS_CFG_ENUM,
  WS_CFG_STRING,
  WS_CFG_XOR, /* ws_cfg_xor: masks in hex, "0x400, 0x800", or "none" */
  WS_CFG_TYPE_COUNT
} ws_cfg_type;

/* One settable field: `[section] key = value` in an INI file, or
 * `--set section.key=value`. */
typedef struct ws_cfg_key {
  const char *section, *key;
  ws_cfg_type type;
  size_t offset;                 /* into ws_gpu_cfg */
  size_t size_bytes;             /* of the field (strings: the buffer, NUL included) */
  uint64_t min, max;             /* numbers: inclusive range; enums: unused */
  bool required;                 /* must appear in every preset file */
  uint64_t def;                  /* the value when not required and absent (enums: the index) */
  const char *const *enum_names; /* enums: NULL-terminated, indexed by value */
  const char *unit, *description, *source;
} ws_cfg_key;

size_t ws_config_key_count(void);
const ws_cfg_key *ws_config_key(size_t i);
/* The key named "section.key"; NULL when none. */
const ws_cfg_key *ws_config_find_key(const char *section_dot_key);
/* The field's value as it would be written in an INI file, into buf. */
void ws_config_format(const ws_gpu_cfg *cfg, const ws_cfg_key *k, char *buf, size_t buf_bytes);

/* ---- loading ------------------------------------------------------------------ */

/* Parses INI text (`filename` only names it in messages): every required key
 * once, nothing unknown, then ws_config_validate. Messages read
 * "FILE:LINE: error: ...". */
ws_status ws_config_load_text(ws_ctx *ctx, const char *text, size_t len, const char *filename,
                              ws_gpu_cfg *out);
/* A preset is a few KiB of INI; 1 MiB leaves two orders of magnitude. */
#define WS_CONFIG_MAX_FILE_BYTES ((size_t)1 << 20)
ws_status ws_config_load_file(ws_ctx *ctx, const char *path, ws_gpu_cfg *out);
/* A preset compiled into the binary (sim/presets/<name>.ini). */
ws_status ws_config_load_preset(ws_ctx *ctx, const char *name, ws_gpu_cfg *out);
/* The embedded preset names, sorted, NULL-terminated. */
const char *const *ws_config_preset_names(void);
/* The embedded INI text of preset `name`; NULL when there is none. */
const char *ws_config_preset_text(const char *name);
/* The source a preset cites for `[section] key`: the comment after ';' on
 * the key's line of INI text, copied into out; "" when the line has none or
 * is absent. What `warpscope gpus show` and docs/presets.md print beside
 * each value, read from the same text the simulator parsed. */
void ws_config_key_source(const char *ini_text, const char *section, const char *key, char *out,
                          size_t out_bytes);
/* Applies one "section.key=value" override and re-derives the geometry;
 * does not validate (several overrides may only be consistent together). */
ws_status ws_config_set(ws_ctx *ctx, ws_gpu_cfg *cfg, const char *assignment);
/* Every key within its range, then cross-field consistency (cache geometry,
 * partitions, limits, link width); messages read "ORIGIN: error: key '...': ...". */
ws_status ws_config_validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, const char *origin);
/* ws_config_validate, then derives cfg->geom: for a config whose fields
 * were changed directly (the loaders and ws_config_set derive by themselves). */
ws_status ws_config_resolve(ws_ctx *ctx, ws_gpu_cfg *cfg, const char *origin);

/* Per-lane signalling of one PCIe generation. */
typedef struct ws_cfg_pcie_gen {
  uint32_t lane_mtps;      /* raw transfers per second per lane, in MT/s (1 bit each) */
  uint32_t code_data_bits; /* line code: code_data_bits of data ... */
  uint32_t code_line_bits; /* ... travel as code_line_bits on the wire (8b/10b, 128b/130b) */
} ws_cfg_pcie_gen;
/* The signalling of generation `gen` (1..5); NULL for any other. */
const ws_cfg_pcie_gen *ws_config_pcie_gen(uint32_t gen);
/* The link's time for size_bytes of payload one way: TLPs of at most
 * max_payload_bytes, each with tlp_overhead_bytes of framing, at lanes x
 * lane rate x line code, rounded up to whole ns (0 bytes: 0). The one
 * formula the runtime's copies (sim/host/pcie.h) and managed memory's
 * migrations (sim/memsys/uvm.h) are timed with. */
uint64_t ws_config_pcie_wire_bytes(const ws_cfg_pcie *p, uint64_t size_bytes);
uint64_t ws_config_pcie_dma_ns(const ws_cfg_pcie *p, uint64_t size_bytes);
/* Core cycles as ns at `core_clock_mhz` (at least 1), rounded up: how the
 * runtime's timeline and the demos turn a launch's cycles into time. */
uint64_t ws_config_cycles_to_ns(uint64_t cycles, uint32_t core_clock_mhz);
/* The XOR map's masks in one list, the channel's then the bank's (at most
 * 2 x WS_CFG_MAX_XOR_BITS); returns how many. */
uint32_t ws_config_xor_masks(const ws_cfg_hbm *h, uint64_t *masks);
/* The requests an SM's L1 MSHRs hold together: l1.mshr_waiters, or
 * mshr_entries x mshr_max_merge when it is 0. */
uint32_t ws_config_l1_waiters(const ws_gpu_cfg *c);

/* The default preset (a100), fully resolved. */
ws_gpu_cfg ws_config_default(void);

/* The peaks a preset's keys imply (what `warpscope gpus show` prints and a
 * roofline's roofs are): FLOP/s and bytes/s over the whole GPU. */
typedef struct ws_gpu_peaks {
  double fp32_flops;      /* SMs x sub-partitions x FP32 lanes x 2 (FMA) x clock */
  double tensor_flops;    /* SMs x dense FP16 tensor FLOP/cycle x clock */
  double l1_bps_per_sm;   /* L1 port bytes/cycle x clock */
  double smem_bps_per_sm; /* banks x bank width x clock */
  double l2_bps;          /* slices x slice bytes/cycle x clock */
  double dram_bps;        /* channels x channel MB/s */
} ws_gpu_peaks;
ws_gpu_peaks ws_config_peaks(const ws_gpu_cfg *cfg);

#endif
