// Where the blocks of a cluster launch land inside the emulated node's green-context partitions
// (docs/model.md, "Where clusters land"). A standalone probe, not part of the build:
//
//   nvcc -arch=sm_90 -O2 -o cluster_placement scripts/probes/cluster_placement.cu -lcuda
//   ./cluster_placement > data/h200/probes/cluster_placement_emulated.csv
//
// For N = 2, 4 and 8 ranks it splits the GPU as the harness does (harness/green_partitions.cpp:
// equal groups of S SMs, asking for the largest potential cluster size), and in the partitions of
// ranks 0 and 1 launches grids of S/2 and S blocks in clusters of 1, 2, 4 and 8. Each block records
// its %smid and then spins for kSpinNs on %globaltimer, so every block that can be resident at once
// is. Two variants: `shared` (blocks small enough for two to share an SM) and `one_per_sm` (each
// block asks for more than half of an SM's shared memory, so a cluster that finds no free SMs waits
// for a second wave). One CSV row per launch: the SMs the grid used, the most blocks on one SM, and
// the shortest of kReps launch-to-end times (CUDA events, microseconds).
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "green_partition.cuh"

namespace {

using probe::check_runtime;

constexpr long long kSpinNs = 20000;  // long beside a launch (a few us), short beside the run
constexpr int kReps = 5;
constexpr int kOnePerSmSmemBytes = 120 * 1024;  // > half of an H100/H200 SM's 228 KB of shared memory

__global__ void record_sm_and_spin(unsigned* sm_of_block, long long spin_ns) {
  extern __shared__ unsigned char unused_smem[];
  unsigned sm = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = sm;
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<long long>(now - start) < spin_ns);
  if (threadIdx.x == 0 && spin_ns < 0) unused_smem[0] = 0;  // never true: keeps the array referenced
}

struct LaunchResult {
  int distinct_sms = 0;
  int max_blocks_per_sm = 0;
  float best_us = 0;
};

LaunchResult launch_and_look(cudaStream_t stream, unsigned* sm_of_block_dev, int grid, int tpb, int cluster,
                             int smem_bytes) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(tpb);
  cfg.dynamicSmemBytes = smem_bytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  LaunchResult res;
  res.best_us = probe::best_launch_us(stream, kReps, [&] {
    check_runtime(cudaLaunchKernelEx(&cfg, record_sm_and_spin, sm_of_block_dev, kSpinNs), "cudaLaunchKernelEx");
  });
  std::vector<unsigned> sm_of_block(static_cast<size_t>(grid));
  check_runtime(cudaMemcpy(sm_of_block.data(), sm_of_block_dev, sm_of_block.size() * sizeof(unsigned),
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy");
  std::map<unsigned, int> blocks_on;
  for (unsigned sm : sm_of_block) ++blocks_on[sm];
  res.distinct_sms = static_cast<int>(blocks_on.size());
  for (const auto& [sm, n] : blocks_on) res.max_blocks_per_sm = std::max(res.max_blocks_per_sm, n);
  return res;
}

}  // namespace

int main() {
  CUdevice dev = 0;
  const CUcontext primary = probe::primary_context(dev);
  check_runtime(cudaFuncSetAttribute(record_sm_and_spin, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     kOnePerSmSmemBytes),
                "cudaFuncSetAttribute");
  std::printf("nranks,sms_per_rank,rank,variant,cluster,tpb,grid,distinct_sms,max_blocks_per_sm,best_us\n");
  for (int nranks : {2, 4, 8}) {
    probe::Split split = probe::split_sms(dev, nranks);
    const unsigned sms = split.sms;
    for (int rank = 0; rank < 2 && rank < static_cast<int>(split.made); ++rank) {
      probe::Partition part(dev, split.groups[static_cast<size_t>(rank)]);
      unsigned* sm_of_block = nullptr;
      check_runtime(cudaMalloc(&sm_of_block, 4 * sms * sizeof(unsigned)), "cudaMalloc");
      for (const bool one_per_sm : {false, true})
        for (int cluster : {1, 2, 4, 8})
          for (int tpb : {128, 1024})
            for (int grid : {static_cast<int>(sms / 2), static_cast<int>(sms)}) {
              const LaunchResult r = launch_and_look(part.runtime_stream(), sm_of_block, grid, tpb, cluster,
                                                     one_per_sm ? kOnePerSmSmemBytes : 0);
              std::printf("%d,%u,%d,%s,%d,%d,%d,%d,%d,%.1f\n", nranks, sms, rank, one_per_sm ? "one_per_sm" : "shared",
                          cluster, tpb, grid, r.distinct_sms, r.max_blocks_per_sm, r.best_us);
            }
      check_runtime(cudaFree(sm_of_block), "cudaFree");
      part.close(primary);
    }
  }
  return 0;
}
