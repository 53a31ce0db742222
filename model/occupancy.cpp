// Occupancy calculator (mirrors cuda_occupancy.h for the cases arlab uses) and GPC-limited cluster
// capacity. See occupancy.h for the rules; tests/model/test_occupancy.cpp checks them against the
// toolkit header on random configurations.
#include "model/occupancy.h"

#include <algorithm>
#include <climits>

namespace arlab::model {

namespace {
int div_round_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int y) { return y * div_round_up(x, y); }
}  // namespace

OccupancyLimits occupancy_limits(const GpuSpec& s, int tpb, int regs, int smem) {
  OccupancyLimits r;
  if (tpb <= 0 || regs < 0 || smem < 0) return r;  // nothing can launch

  // Warps.
  const int warps = div_round_up(tpb, s.warp_size);
  r.by_warps = tpb > s.max_threads_per_block ? 0 : (s.max_threads_per_sm / s.warp_size) / warps;

  // Registers: allocated per warp, in each of the SM's sub-partitions.
  const int regs_per_warp = round_up(regs * s.warp_size, s.reg_alloc_unit);
  r.regs_allocated_per_block = regs_per_warp * warps;
  const int regs_hw_check = regs_per_warp * round_up(warps, s.warp_alloc_granularity);
  if (regs > s.max_regs_per_thread || s.max_regs_per_block < regs_hw_check ||
      s.max_regs_per_block < r.regs_allocated_per_block) {
    r.by_registers = 0;
  } else if (regs_per_warp == 0) {
    r.by_registers = INT_MAX;
  } else {
    const int warps_per_partition = (s.regs_per_sm / s.warp_alloc_granularity) / regs_per_warp;
    r.by_registers = warps_per_partition * s.warp_alloc_granularity / warps;
  }

  // Shared memory (the driver reserves reserved_smem_per_block for every block).
  const long long allocated = round_up(smem + s.reserved_smem_per_block, s.smem_alloc_unit);
  r.smem_allocated_per_block = static_cast<int>(allocated);
  if (allocated > static_cast<long long>(s.max_smem_per_block_optin) + s.reserved_smem_per_block) {
    r.by_shared_memory = 0;
  } else if (allocated == 0) {
    r.by_shared_memory = INT_MAX;
  } else {
    r.by_shared_memory = static_cast<int>(s.smem_per_sm / allocated);
  }

  r.by_blocks = s.max_blocks_per_sm;
  r.blocks_per_sm = std::min({r.by_warps, r.by_registers, r.by_shared_memory, r.by_blocks});
  return r;
}

int blocks_per_sm(const GpuSpec& s, int tpb, int regs, int smem) {
  return occupancy_limits(s, tpb, regs, smem).blocks_per_sm;
}

// Measured cap on blocks per SM that count towards cluster placement (docs/model.md).
constexpr int kClusterBlocksPerSmCap = 8;

int max_active_clusters(const GpuSpec& s, int cluster_size, int bps) {
  if (bps <= 0 || cluster_size < 1 || cluster_size > s.max_cluster_size) return 0;
  if (cluster_size == 1) return bps * s.sm_count;
  const int measured_one_block_sms =
      cluster_size == 4 ? s.one_block_cluster4_sms : (cluster_size == 8 ? s.one_block_cluster8_sms : 0);
  const int measured_several_blocks_sms =
      cluster_size == 4 ? s.several_blocks_cluster4_sms : (cluster_size == 8 ? s.several_blocks_cluster8_sms : 0);
  const int k = std::min(bps, kClusterBlocksPerSmCap);
  // An emulated partition: what the probes measured, at one block per SM and per block layer at several
  // (docs/model.md, "Where clusters land at several blocks per SM").
  if (k == 1 && measured_one_block_sms > 0) return measured_one_block_sms / cluster_size;
  if (k >= 2 && measured_several_blocks_sms > 0) return k * measured_several_blocks_sms / cluster_size;
  long long clusters = 0;
  for (int g : s.gpc_sms) clusters += static_cast<long long>(k) * g / cluster_size;
  if (cluster_size <= 2) clusters += static_cast<long long>(s.lone_tpcs) * (k * 2 / cluster_size);
  return static_cast<int>(std::min<long long>(clusters, INT_MAX));
}

}  // namespace arlab::model
