// Bench `clear`: the one-shot kernel's clear pass (step 3 of kernels/oneshot_kernel.cuh) alone:
// N slots of S bytes each refilled with the bf16 -0.0 pattern in 16-byte stores, every thread of a
// grid of `sms` blocks x 1024 threads striding over each slot in turn, exactly as the kernel does.
// N = the node's ranks, S in {1, 4, 16} MiB; size = N x S bytes; gbps = N x S / CUPTI duration.
// The buffer is rewritten by every call, so for N x S below L2 the stores land in L2, as the
// kernel's clear of a buffer its peers wrote one call earlier does. Blocks: {1, 8, 32, all SMs}.
#include <cuda_runtime.h>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"
#include "kernels/device_sync.cuh"

namespace arlab::calibrate {
namespace {

constexpr int kVectorBytes = 16;
constexpr unsigned kBf16NegZeroPair = 0x80008000u;  // two bf16 -0.0 elements in one 32-bit word

__global__ void __launch_bounds__(1024) clear_kernel(char* buf, int nslots, long long slot_bytes) {
  const long long vecs_per_slot = slot_bytes / kVectorBytes;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const uint4 neg_zero = make_uint4(kBf16NegZeroPair, kBf16NegZeroPair, kBf16NegZeroPair, kBf16NegZeroPair);
  for (int s = 0; s < nslots; ++s) {
    char* slot = buf + s * slot_bytes;
    for (long long i = first; i < vecs_per_slot; i += step) kernels::st_v4(slot + i * kVectorBytes, neg_zero);
  }
}

}  // namespace

void bench_clear(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out) {
  constexpr int kTpb = 1024;  // the one-shot kernel's clear runs in its blocks; 1024 is the trtllm choice
  const std::vector<long long> slot_mib = env.quick ? std::vector<long long>{4} : std::vector<long long>{1, 4, 16};
  const std::vector<int> blocks = env.quick ? sm_counts({8}, env.sms) : sm_counts({1, 8, 32}, env.sms);
  harness::DeviceBuffer buf(static_cast<size_t>(nranks) * (size_t(16) << 20), env.rank);
  constexpr int kWarmup = 2;
  for (long long mib : slot_mib)
    for (int g : blocks) {
      const long long slot = mib << 20;
      const std::vector<double> us = time_calls(env, kWarmup, env.reps, {}, [&] {
        launch(Shape{g, kTpb, 1}, env.stream, env.rank, clear_kernel, buf.as<char>(), nranks, slot);
      });
      const double bytes = double(nranks) * double(slot);
      std::vector<double> gbps;
      for (double t : us) gbps.push_back(bytes / (t * 1e3));
      out.push_back(make_point(PointKey{"clear", "neg_zero", g, kTpb, 0, bytes, "bytes (N x S)", "gbps"}, gbps));
    }
}

}  // namespace arlab::calibrate
