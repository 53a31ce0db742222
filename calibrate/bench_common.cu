// Host helpers of the single-rank benches (calibrate/bench_common.h).
#include "calibrate/bench_common.h"

#include <cstdint>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <unordered_map>

#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "calibrate/bench_common.cuh"

namespace arlab::calibrate {

cudaLaunchConfig_t launch_config(const Shape& s, cudaStream_t stream, cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(s.grid), 1, 1);
  cfg.blockDim = dim3(static_cast<unsigned>(s.tpb), 1, 1);
  cfg.dynamicSmemBytes = s.dynamic_smem;
  cfg.stream = stream;
  cfg.attrs = nullptr;
  cfg.numAttrs = 0;
  if (s.cluster > 1) {
    attr = cudaLaunchAttribute{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(s.cluster);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  return cfg;
}

std::vector<double> time_calls(const BenchEnv& env, int warmup, int reps, const std::function<void()>& before,
                               const std::function<void()>& launch) {
  for (int i = 0; i < warmup; ++i) {
    if (before) before();
    launch();
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
  }
  std::vector<double> us;
  us.reserve(static_cast<size_t>(reps));
  if (env.cupti) {
    env.cupti->collect();  // drop the warm-up's (untagged) records and anything before
    for (int i = 0; i < reps; ++i) {
      if (before) before();
      env.cupti->set_tag(static_cast<uint64_t>(i));
      launch();
      env.cupti->clear_tag();
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
    }
    std::unordered_map<uint64_t, harness::KernelInterval> by_tag;
    for (const harness::KernelInterval& k : env.cupti->collect()) by_tag[k.tag] = k;
    for (int i = 0; i < reps; ++i) {
      const auto it = by_tag.find(static_cast<uint64_t>(i));
      if (it == by_tag.end())
        throw CudaError("CUPTI delivered " + std::to_string(by_tag.size()) + " of " + std::to_string(reps) +
                        " tagged kernel records of a calibrate bench");
      // Integer nanoseconds subtracted first (harness/timing.h, "full resolution"), then converted.
      us.push_back(static_cast<double>(it->second.end_ns - it->second.start_ns) * 1e-3);
    }
    return us;
  }
  harness::Event begin, end;
  for (int i = 0; i < reps; ++i) {
    if (before) before();
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaEventRecord(begin.get(), env.stream));
    launch();
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaEventRecord(end.get(), env.stream));
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaEventSynchronize(end.get()));
    float ms = 0;
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaEventElapsedTime(&ms, begin.get(), end.get()));
    us.push_back(static_cast<double>(ms) * 1e3);
  }
  return us;
}

double device_interval_ns(const BenchEnv& env, const unsigned long long* times_dev) {
  unsigned long long t[2] = {0, 0};
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(t, times_dev, sizeof(t), cudaMemcpyDeviceToHost, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
  if (t[1] < t[0]) throw CudaError("calibrate: a kernel's %globaltimer went backwards");
  return static_cast<double>(t[1] - t[0]);
}

int distinct_sms(const std::vector<unsigned>& smids, int expected, const char* bench) {
  const int n = static_cast<int>(std::set<unsigned>(smids.begin(), smids.end()).size());
  if (n < expected)
    std::printf("  WARNING %s: %d blocks ran on only %d distinct SMs (blocks shared SMs; per-SM figures are off)\n",
                bench, expected, n);
  return n;
}

std::vector<int> sm_counts(const std::vector<int>& wanted, int sms) {
  std::vector<int> v;
  for (int w : wanted)
    if (w >= 1 && w <= sms) v.push_back(w);
  v.push_back(sms);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

GridTimes grid_times(const std::vector<unsigned long long>& t, int grid) {
  GridTimes g;
  unsigned long long first = t[0], last = t[1];
  for (int b = 0; b < grid; ++b) {
    const unsigned long long s = t[2 * b], e = t[2 * b + 1];
    if (e < s) throw CudaError("calibrate: a block's %globaltimer went backwards");
    g.slowest = std::max(g.slowest, static_cast<double>(e - s));
    first = std::min(first, s);
    last = std::max(last, e);
  }
  g.block0 = static_cast<double>(t[1] - t[0]);
  g.span = static_cast<double>(last - first);
  return g;
}

kernels::FusedParams round_bench_params(const BenchEnv& env, int tokens, int hidden, int cluster, int vpt, int nranks,
                                        void* slots, long long slot_bytes, const void* gamma, const float* scale,
                                        unsigned long long* fault) {
  kernels::FusedParams p{};
  p.gamma = gamma;
  p.scale = scale;
  p.eps = 1e-6f;
  p.tokens = tokens;
  p.hidden = hidden;
  p.rank = 0;
  p.cluster = cluster;
  p.vecs_per_thread = vpt;
  p.regions[0] = slots;
  p.my_region = slots;
  p.fault = fault;
  p.slot_bytes = slot_bytes;
  p.buffer_bytes = nranks * slot_bytes;
  p.timeout_ns = std::max<unsigned long long>(env.timeout_ns, 10ull * 1000000000ull);
  return p;
}

namespace {

__global__ void __launch_bounds__(1024) warm_kernel(const uint4* p, long long n, unsigned* sink) {
  unsigned acc = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5bd1e995u) sink[0] = acc;  // practically never; the loads cannot be removed
}

}  // namespace

void warm_l2(const BenchEnv& env, const void* p, long long bytes, unsigned* sink) {
  launch(Shape{env.sms, 1024, 1}, env.stream, env.rank, warm_kernel, static_cast<const uint4*>(p), bytes / 16, sink);
}

}  // namespace arlab::calibrate
