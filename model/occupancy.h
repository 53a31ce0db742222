// Occupancy: how many blocks of a kernel fit on one SM, computed exactly as CUDA's occupancy
// calculator (the toolkit's cuda_occupancy.h) computes it, and how many thread-block clusters fit
// on the whole GPU given its GPC layout (docs/model.md).
#pragma once

#include "model/gpu_spec.h"

namespace arlab::model {

// Per-limit breakdown (for explanations). Each field is the block count that limit alone allows.
struct OccupancyLimits {
  int by_warps = 0;
  int by_registers = 0;
  int by_shared_memory = 0;
  int by_blocks = 0;
  int blocks_per_sm = 0;             // min of the above; 0 = cannot launch
  int regs_allocated_per_block = 0;  // registers actually reserved for one block
  int smem_allocated_per_block = 0;  // bytes actually reserved for one block (incl. driver reserve)
};

// The rules (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor; kernel with one block
// barrier, default carveout, dynamic shared memory opted in up to the per-block maximum):
//  warps:   block > max_threads_per_block -> 0, else max_warps_per_sm / ceil(tpb / warp_size)
//  regs:    per warp = roundup(regs * warp_size, reg_alloc_unit); 0 when regs > max_regs_per_thread
//           or max_regs_per_block < per_warp * roundup(warps, warp_alloc_granularity) (the hardware
//           check); else (floor(regs_per_sm / granularity / per_warp) * granularity) / warps.
//           0 registers: no limit.
//  smem:    allocated = roundup(smem + reserved_smem_per_block, smem_alloc_unit); 0 when it exceeds
//           max_smem_per_block_optin + reserved_smem_per_block; else smem_per_sm / allocated.
//  blocks:  max_blocks_per_sm.
// (The block-barrier limit of cc >= 9 allows 2 * max_blocks_per_sm blocks for a one-barrier kernel
// and never binds; partitioned global caching exists only on cc 5.2/6.x and is off.)
OccupancyLimits occupancy_limits(const GpuSpec& spec, int threads_per_block, int regs_per_thread,
                                 int smem_per_block_bytes);
int blocks_per_sm(const GpuSpec& spec, int threads_per_block, int regs_per_thread, int smem_per_block_bytes);

// Clusters of `cluster_size` blocks that can be resident at once when each SM holds up to
// `blocks_per_sm` blocks of the kernel. A cluster's blocks must sit in one GPC (docs/model.md):
//   cluster_size == 1 : blocks_per_sm * sm_count (no cluster launch, no GPC constraint);
//   cluster_size >= 2 : sum over GPCs g of floor(min(blocks_per_sm, 8) * gpc_sms[g] / cluster_size)
//                       + (cluster_size <= 2 ? lone_tpcs * floor(min(blocks_per_sm, 8) * 2 / cluster_size) : 0)
// The min(., 8) cap and the lone-TPC rule are what cudaOccupancyMaxActiveClusters returned on an
// H200 (GPCs {18,18,16,16,16,16,16,8} + 4 lone TPCs: 15 clusters of 8 or 30 of 4 = 120 SMs, 66
// of 2 = 132 SMs at one block per SM). An emulated partition holds what its probes measured: clusters of
// 4 / 8 at one block per SM over one_block_cluster{4,8}_sms / cluster_size, at k >= 2 blocks per SM
// k * several_blocks_cluster{4,8}_sms / cluster_size (k capped at 8 as above).
// Returns 0 when blocks_per_sm is 0 or cluster_size exceeds spec.max_cluster_size.
int max_active_clusters(const GpuSpec& spec, int cluster_size, int blocks_per_sm);

}  // namespace arlab::model
