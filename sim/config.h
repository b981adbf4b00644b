/* config.h - the device limits the functional simulator enforces.
 *
 * Design: one plain struct of named limits with units in the names. The
 * default describes an A100-class device (compute capability 8.0, CUDA C++
 * Programming Guide, "Compute Capabilities" table); GPU presets loaded from
 * INI files fill the same struct. */
#ifndef WS_CONFIG_H
#define WS_CONFIG_H

#include <stdint.h>

typedef struct ws_gpu_cfg {
  char name[64];
  uint32_t num_sms;
  uint32_t max_threads_per_block;
  uint32_t max_block_dim[3];
  uint32_t max_grid_dim[3];
  uint32_t max_shared_per_block_bytes; /* static + dynamic, opt-in maximum */
  uint32_t max_regs_per_thread;
  uint64_t dram_size_bytes;
  uint32_t const_bank_bytes;
  uint64_t insn_budget_warp_insns; /* per launch; catches runaway loops */
} ws_gpu_cfg;

/* A100-SXM4-40GB limits: 108 SMs, 1024 threads/block, block dims
 * 1024x1024x64, grid 2^31-1 x 65535 x 65535, 163 KiB shared per block
 * (opt-in), 255 registers per thread, 40 GiB, 64 KiB constant bank. */
ws_gpu_cfg ws_gpu_cfg_default(void);

#endif
