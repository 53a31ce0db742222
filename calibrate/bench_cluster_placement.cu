// Bench `cluster_placement`: where the hardware puts the blocks of a cluster launch on the rank's SMs
// (docs/model.md, "Where clusters land"). A grid of one block per SM of the rank (tpb 128) in clusters
// of 1, 2, 4 and 8; each block records its %smid and then spins for kSpinNs on %globaltimer, so every
// block that can be resident at once is. Two variants: `shared` (small blocks: two may share an SM)
// and `one_per_sm` (each block asks for more than half of an SM's shared memory, so a cluster that
// finds no free SMs waits for a second wave). Metrics, per (variant, cluster): `sms_used` (distinct
// SMs the grid ran on), `max_blocks_per_sm`, and `duration_us` (CUPTI, the kernel's duration: about
// kSpinNs for one wave, twice that for two). model/calibration_derive.cpp checks the rows against the
// partition's cluster capacity in the model (model::max_active_clusters at one block per SM).
#include <algorithm>
#include <map>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {
namespace {

constexpr long long kSpinNs = 20000;  // long beside a launch (a few us), short beside the calibrate run
constexpr int kTpb = 128;

__global__ void record_sm_and_spin(unsigned* sm_of_block, long long spin_ns) {
  extern __shared__ unsigned char reserved_smem[];  // only reserves the SM's shared memory
  if (threadIdx.x == 0) sm_of_block[blockIdx.x] = smid();
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
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
  harness::DeviceBuffer sm_of_block(static_cast<size_t>(env.sms) * sizeof(unsigned), env.rank);
  std::vector<unsigned> host(static_cast<size_t>(env.sms));
  for (const bool one_per_sm : {false, true})
    for (int cluster : {1, 2, 4, 8}) {
      const int grid = env.sms / cluster * cluster;
      if (grid < cluster) continue;
      std::vector<double> used, most, us;
      for (int r = 0; r < reps; ++r) {
        const std::vector<double> t = time_calls(env, r == 0 ? 1 : 0, 1, {}, [&] {
          cudaLaunchAttribute attr{};
          cudaLaunchConfig_t cfg = launch_config(Shape{grid, kTpb, cluster}, env.stream, attr);
          cfg.dynamicSmemBytes = one_per_sm ? static_cast<size_t>(one_per_sm_smem) : 0;
          ARLAB_CUDA_CHECK_RANK(env.rank,
                                cudaLaunchKernelEx(&cfg, record_sm_and_spin, sm_of_block.as<unsigned>(), kSpinNs));
        });
        us.push_back(t.front());
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(host.data(), sm_of_block.data(), grid * sizeof(unsigned),
                                                   cudaMemcpyDeviceToHost));
        std::map<unsigned, int> blocks_on;
        for (int b = 0; b < grid; ++b) ++blocks_on[host[static_cast<size_t>(b)]];
        int max_blocks = 0;
        for (const auto& [sm, n] : blocks_on) max_blocks = std::max(max_blocks, n);
        used.push_back(static_cast<double>(blocks_on.size()));
        most.push_back(max_blocks);
      }
      const char* variant = one_per_sm ? "one_per_sm" : "shared";
      out.push_back(make_point(PointKey{"cluster_placement", variant, env.sms, kTpb, cluster, double(grid), "blocks",
                                        "sms_used"},
                               used));
      out.push_back(make_point(PointKey{"cluster_placement", variant, env.sms, kTpb, cluster, double(grid), "blocks",
                                        "max_blocks_per_sm"},
                               most));
      out.push_back(make_point(PointKey{"cluster_placement", variant, env.sms, kTpb, cluster, double(grid), "blocks",
                                        "duration_us"},
                               us));
    }
}

}  // namespace arlab::calibrate
