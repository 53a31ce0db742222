// Bench `block_reduce`: the time of one block-wide float sum (the RMSNorm sum of squares at
// cluster 1) as a function of the block size: calibrate/reduce_loop.cuh at cluster 1 (warp
// shuffles, shared-memory partials, __syncthreads, warp 0's final sum, __syncthreads), one block
// per SM on all of the rank's SMs, tpb {32, 64, 128, 256, 512, 1024}. ns_per_op = block 0's
// %globaltimer interval / K reductions.
#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "calibrate/reduce_loop.cuh"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {

void bench_block_reduce(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  // 2048 reductions of ~0.3-2 us: ~1-4 ms per call, so the 32 ns timer step is < 0.01 % of it.
  const int k_ops = env.quick ? 512 : 2048;
  const std::vector<int> tpbs = env.quick ? std::vector<int>{128, 1024} : std::vector<int>{32, 64, 128, 256, 512, 1024};
  harness::DeviceBuffer sink(sizeof(float), env.rank), times(2 * sizeof(unsigned long long), env.rank);
  for (int tpb : tpbs) {
    std::vector<double> ns;
    for (int r = 0; r < env.reps + 1; ++r) {  // the first call is a warm-up
      launch(Shape{env.sms, tpb, 1}, env.stream, env.rank, reduce_loop_kernel, k_ops, 1, sink.as<float>(),
             times.as<unsigned long long>());
      const double t = device_interval_ns(env, times.as<unsigned long long>());
      if (r > 0) ns.push_back(t / k_ops);
    }
    out.push_back(make_point(PointKey{"block_reduce", "sum_sq", env.sms, tpb, 1, double(k_ops), "reductions",
                                      "ns_per_op"},
                             ns));
  }
}

}  // namespace arlab::calibrate
