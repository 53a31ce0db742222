// How many blocks of a cluster launch are resident at once inside the emulated node's green-context
// partitions when an SM can hold several of them (docs/model.md, "Where clusters land at several
// blocks per SM"). A standalone probe, not part of the build:
//
//   nvcc -arch=sm_90 -O2 -o cluster_capacity scripts/probes/cluster_capacity.cu -lcuda
//   ./cluster_capacity > data/h200/probes/cluster_capacity_emulated.csv
//
// The companion of cluster_placement.cu (one block per SM): for N = 2, 4 and 8 ranks it splits the GPU
// as the harness does (harness/green_partitions.cpp: equal groups of S SMs, asking for the largest
// potential cluster size) and, in rank 0's partition, launches grids of k x S blocks (k = 1, 2, 4, 8,
// 16 blocks per SM; rounded down to whole clusters) in clusters of 1, 2, 4 and 8 with 32-256 threads
// per block, up to 2048 threads per SM. Every block records its %smid and its start on %globaltimer
// and then spins kSpinNs from its own start, so a block that cannot be resident with the first ones
// starts about kSpinNs later. One CSV row per launch (the last of kReps; the time is the shortest):
//   resident_blocks     blocks that started within kSpinNs / 2 of the earliest start: the grid's
//                       first wave, i.e. what was resident at once
//   waves               the latest start over kSpinNs, rounded, plus one
//   max_first_wave_per_sm  the most first-wave blocks on one SM
//   distinct_sms        SMs the first wave used
//   api_clusters        cudaOccupancyMaxActiveClusters for the same launch in the partition (what the
//                       occupancy API promises; 0 where it fails), for cluster > 1
//   best_us             the shortest launch-to-end time over kReps (CUDA events)
// The probe kernel holds few registers and no shared memory, so only the thread and block limits
// (64 warps, 32 blocks per SM) and the cluster scheduler decide residency.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "green_partition.cuh"

namespace {

using probe::check_runtime;

constexpr long long kSpinNs = 20000;  // long beside a launch (a few us), short beside the run
constexpr int kReps = 5;
constexpr int kMaxThreadsPerSm = 2048;  // sm_90: 64 warps
constexpr int kMaxBlocksPerSm = 32;     // sm_90

struct BlockRecord {
  unsigned sm;
  unsigned pad;
  unsigned long long start_ns;
};

__global__ void record_start_and_spin(BlockRecord* records, long long spin_ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  if (threadIdx.x == 0) {
    unsigned sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    records[blockIdx.x].sm = sm;
    records[blockIdx.x].start_ns = start;
  }
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<long long>(now - start) < spin_ns);
}

struct LaunchResult {
  int resident_blocks = 0;
  int waves = 0;
  int max_first_wave_per_sm = 0;
  int distinct_sms = 0;
  int api_clusters = 0;
  float best_us = 0;
};

cudaLaunchConfig_t launch_config(cudaStream_t stream, int grid, int tpb, cudaLaunchAttribute* attr, int cluster) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(tpb);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

LaunchResult launch_and_look(cudaStream_t stream, BlockRecord* records_dev, int grid, int tpb, int cluster) {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = launch_config(stream, grid, tpb, attr, cluster);
  LaunchResult res;
  if (cluster > 1) {
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, record_start_and_spin, &cfg) == cudaSuccess) res.api_clusters = clusters;
    (void)cudaGetLastError();  // a failed query is reported as 0, not carried into the launches
  }
  res.best_us = probe::best_launch_us(stream, kReps, [&] {
    check_runtime(cudaLaunchKernelEx(&cfg, record_start_and_spin, records_dev, kSpinNs), "cudaLaunchKernelEx");
  });
  std::vector<BlockRecord> rec(static_cast<size_t>(grid));
  check_runtime(cudaMemcpy(rec.data(), records_dev, rec.size() * sizeof(BlockRecord), cudaMemcpyDeviceToHost),
                "cudaMemcpy");
  unsigned long long first = rec[0].start_ns, last = rec[0].start_ns;
  for (const BlockRecord& r : rec) {
    first = std::min(first, r.start_ns);
    last = std::max(last, r.start_ns);
  }
  std::map<unsigned, int> first_wave_on;
  for (const BlockRecord& r : rec)
    if (r.start_ns - first < static_cast<unsigned long long>(kSpinNs / 2)) {
      ++res.resident_blocks;
      ++first_wave_on[r.sm];
    }
  res.waves = static_cast<int>((static_cast<double>(last - first) / kSpinNs) + 0.5) + 1;
  res.distinct_sms = static_cast<int>(first_wave_on.size());
  for (const auto& [sm, n] : first_wave_on) res.max_first_wave_per_sm = std::max(res.max_first_wave_per_sm, n);
  return res;
}

}  // namespace

int main() {
  CUdevice dev = 0;
  const CUcontext primary = probe::primary_context(dev);
  std::printf(
      "nranks,sms_per_rank,rank,cluster,tpb,blocks_per_sm_asked,grid,resident_blocks,waves,max_first_wave_per_sm,"
      "distinct_sms,api_clusters,best_us\n");
  for (int nranks : {2, 4, 8}) {
    probe::Split split = probe::split_sms(dev, nranks);
    const unsigned sms = split.sms;
    const int rank = 0;
    probe::Partition part(dev, split.groups[static_cast<size_t>(rank)]);
    BlockRecord* records = nullptr;
    check_runtime(cudaMalloc(&records, static_cast<size_t>(kMaxBlocksPerSm) * sms * sizeof(BlockRecord)), "cudaMalloc");
    for (int cluster : {1, 2, 4, 8})
      for (int tpb : {32, 64, 128, 256})
        for (int k : {1, 2, 4, 8, 16}) {
          if (k * tpb > kMaxThreadsPerSm || k > kMaxBlocksPerSm) continue;
          const int grid = static_cast<int>(k * sms) / cluster * cluster;
          const LaunchResult r = launch_and_look(part.runtime_stream(), records, grid, tpb, cluster);
          std::printf("%d,%u,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f\n", nranks, sms, rank, cluster, tpb, k, grid,
                      r.resident_blocks, r.waves, r.max_first_wave_per_sm, r.distinct_sms, r.api_clusters, r.best_us);
        }
    check_runtime(cudaFree(records), "cudaFree");
    part.close(primary);
  }
  return 0;
}
