/* config.c - default device limits (CUDA C++ Programming Guide, table
 * "Technical Specifications per Compute Capability", column 8.0). */
#include "sim/config.h"

#include <string.h>

ws_gpu_cfg ws_gpu_cfg_default(void) {
  ws_gpu_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  strcpy(cfg.gpu.name, "a100");
  cfg.gpu.num_sms = 108;
  cfg.gpu.dram_size_bytes = 40ull << 30;
  cfg.gpu.const_bank_bytes = 64u * 1024u;
  cfg.gpu.insn_budget_warp_insns = 1ull << 32;
  cfg.sm.max_threads_per_block = 1024;
  cfg.sm.max_block_dim[0] = 1024;
  cfg.sm.max_block_dim[1] = 1024;
  cfg.sm.max_block_dim[2] = 64;
  cfg.sm.max_grid_dim[0] = 2147483647u;
  cfg.sm.max_grid_dim[1] = 65535;
  cfg.sm.max_grid_dim[2] = 65535;
  cfg.smem.max_per_block_bytes = 163u * 1024u;
  cfg.regfile.max_regs_per_thread = 255;
  return cfg;
}
