// Bench `cluster_placement`: where the hardware puts the blocks of a cluster launch on the rank's SMs
// (docs/model.md, "Where clusters land"). A grid of one block per SM of the rank (tpb 128) in clusters
// of 1, 2, 4 and 8; each block records its %smid and then spins for kSpinNs on %globaltimer, so every
// block that can be resident at once is. Two variants: `shared` (small blocks: two may share an SM)
// and `one_per_sm` (each block asks for more than half of an SM's shared memory, so a cluster that
// finds no free SMs waits for a second wave). Metrics, per (variant, cluster): `sms_used` (distinct
// SMs the grid ran on), `max_blocks_per_sm`, and `duration_us` (CUPTI, the kernel's duration: about
// kSpinNs for one wave, twice that for two). A third variant, `several` (since session 38): grids of k = 2,
// 4 and 8 blocks per SM (tpb 128; for k = 2 and 4 each block reserves 1/k of the SM's shared memory so
// that no more than k fit, for 8 none: up to 16 fit and a cluster launch holds 8), whose metric
// `resident_blocks` counts the blocks that started within kSpinNs / 2 of the first (each spins kSpinNs from
// its own start): what the partition holds at once at k blocks per SM (docs/model.md, "Where clusters land
// at several blocks per SM"). model/calibration_derive.cpp checks the rows against the partition's cluster
// capacity in the model (model::max_active_clusters at one block per SM, and at k = grid / SMs for `several`).
#include <algorithm>
#include <map>
#include <string>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {
namespace {

constexpr long long kSpinNs = 20000;  // long beside a launch (a few us), short beside the calibrate run
constexpr int kTpb = 128;
constexpr int kSeveralBlocksPerSm[] = {2, 4, 8};  // 8: the cap a cluster launch has (model/occupancy.cpp)
constexpr int kMostBlocksPerSm = 8;

__global__ void record_sm_and_spin(unsigned* sm_of_block, unsigned long long* start_of_block, long long spin_ns) {
  extern __shared__ unsigned char reserved_smem[];  // only reserves the SM's shared memory
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  if (threadIdx.x == 0) {
    sm_of_block[blockIdx.x] = smid();
    start_of_block[blockIdx.x] = start;
  }
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<long long>(now - start) < spin_ns);
  if (spin_ns < 0) reserved_smem[threadIdx.x] = 0;  // never: keeps the array referenced
}

}  // namespace

void bench_cluster_placement(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  int device = 0, smem_per_sm = 0;
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaGetDevice(&device));
  ARLAB_CUDA_CHECK_RANK(env.rank,
                        cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  // More than half of the SM's shared memory (1 KB more, and what the driver reserves per block):
  // no second block fits.
  const int one_per_sm_smem = smem_per_sm / 2 + 1024;
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaFuncSetAttribute(record_sm_and_spin,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, one_per_sm_smem));
  const int reps = std::min(env.reps, 5);  // placement repeats; the duration only tells one wave from two
  const size_t most_blocks = static_cast<size_t>(env.sms) * kMostBlocksPerSm;
  harness::DeviceBuffer sm_of_block(most_blocks * sizeof(unsigned), env.rank);
  harness::DeviceBuffer start_of_block(most_blocks * sizeof(unsigned long long), env.rank);
  std::vector<unsigned> host(most_blocks);
  std::vector<unsigned long long> starts(most_blocks);
  struct Case {
    const char* variant;
    int blocks_per_sm;  // the grid's blocks per SM
    int smem_bytes;     // dynamic shared memory per block
  };
  std::vector<Case> cases = {{"shared", 1, 0}, {"one_per_sm", 1, one_per_sm_smem}};
  // k blocks of smem_per_sm / k - 2 KB each (with the 1 KB the driver reserves per block) fit an SM, k + 1 do not.
  for (int k : kSeveralBlocksPerSm) cases.push_back({"several", k, k == kMostBlocksPerSm ? 0 : smem_per_sm / k - 2048});
  for (const Case& c : cases)
    for (int cluster : {1, 2, 4, 8}) {
      const char* variant = c.variant;
      const bool several = std::string(variant) == "several";
      const int grid = c.blocks_per_sm * env.sms / cluster * cluster;
      if (grid < cluster) continue;
      std::vector<double> used, most, us, resident;
      for (int r = 0; r < reps; ++r) {
        const std::vector<double> t = time_calls(env, r == 0 ? 1 : 0, 1, {}, [&] {
          cudaLaunchAttribute attr{};
          cudaLaunchConfig_t cfg = launch_config(Shape{grid, kTpb, cluster}, env.stream, attr);
          cfg.dynamicSmemBytes = static_cast<size_t>(c.smem_bytes);
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaLaunchKernelEx(&cfg, record_sm_and_spin, sm_of_block.as<unsigned>(),
                                                             start_of_block.as<unsigned long long>(), kSpinNs));
        });
        us.push_back(t.front());
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(host.data(), sm_of_block.data(), grid * sizeof(unsigned),
                                                   cudaMemcpyDeviceToHost));
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(starts.data(), start_of_block.data(),
                                                   grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        std::map<unsigned, int> blocks_on;
        for (int b = 0; b < grid; ++b) ++blocks_on[host[static_cast<size_t>(b)]];
        int max_blocks = 0;
        for (const auto& [sm, n] : blocks_on) max_blocks = std::max(max_blocks, n);
        used.push_back(static_cast<double>(blocks_on.size()));
        most.push_back(max_blocks);
        const unsigned long long first = *std::min_element(starts.begin(), starts.begin() + grid);
        resident.push_back(static_cast<double>(std::count_if(starts.begin(), starts.begin() + grid, [&](unsigned long long v) {
          return v - first < static_cast<unsigned long long>(kSpinNs / 2);
        })));
      }
      const auto point = [&](const char* metric, const std::vector<double>& v) {
        out.push_back(
            make_point(PointKey{"cluster_placement", variant, env.sms, kTpb, cluster, double(grid), "blocks", metric}, v));
      };
      if (several) {
        point("resident_blocks", resident);
        point("duration_us", us);
      } else {
        point("sms_used", used);
        point("max_blocks_per_sm", most);
        point("duration_us", us);
      }
    }
}

}  // namespace arlab::calibrate
