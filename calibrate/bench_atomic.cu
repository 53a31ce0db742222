// Bench `atomic`: the cost of the one-shot kernel's arrival -- G blocks (128 threads) each doing one
// atomicAdd on ONE shared counter (thread 0) and exiting -- as the CUPTI duration of the whole
// kernel, G in {1, 8, 32, 64, 128, 132, 256}. Variants: `one_counter` (atomic only),
// `one_counter_fenced` (a __threadfence before the atomic, as the one-shot arrival does:
// kernels/oneshot_kernel.cuh) and `empty` (the same kernel and grid without the atomic: the launch
// and dispatch baseline to subtract). size = G (blocks); the counter wraps harmlessly.
#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {
namespace {

// mode 0: nothing; 1: atomicAdd; 2: __threadfence then atomicAdd.
__global__ void arrival_kernel(unsigned* counter, int mode) {
  if (threadIdx.x != 0 || mode == 0) return;
  if (mode == 2) __threadfence();
  atomicAdd(counter, 1u);
}

}  // namespace

void bench_atomic(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  constexpr int kTpb = 128;
  constexpr int kWarmup = 3;
  const std::vector<int> grids = env.quick ? std::vector<int>{1, 64} : std::vector<int>{1, 8, 32, 64, 128, 132, 256};
  harness::DeviceBuffer counter(sizeof(unsigned), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(counter.data(), 0, sizeof(unsigned), env.stream));
  const char* variants[] = {"empty", "one_counter", "one_counter_fenced"};
  for (int mode = 0; mode < 3; ++mode)
    for (int g : grids) {
      const std::vector<double> us = time_calls(env, kWarmup, env.reps, {}, [&] {
        launch(Shape{g, kTpb, 1}, env.stream, env.rank, arrival_kernel, counter.as<unsigned>(), mode);
      });
      out.push_back(make_point(PointKey{"atomic", variants[mode], g, kTpb, 0, double(g), "blocks", "duration_us"},
                               us));
    }
}

}  // namespace arlab::calibrate
