// Bench `cluster_sync`: the time of one cluster-wide float sum as the fused kernel does it at
// cluster > 1 -- the block sum, cluster.sync, and every block's total read from distributed shared
// memory (map_shared_rank) -- by calibrate/reduce_loop.cuh at cluster {1 (the block sum and
// __syncthreads only), 2, 4, 8} x tpb {128, 1024}, grid = the rank's SMs rounded down to a
// multiple of the cluster. Clusters that do not fit at once (GPC limits) run in later waves; only
// block 0 (in the first cluster) is timed, so they do not change the figure. ns_per_op = block 0's
// %globaltimer interval / K. Variant `pushed`: the lean kernel's pushed exchange instead
// (cluster_sum_pushed, clusters 2..kMaxPushedClusterSize, whole warps), the same tpb and grid.
// Variants `barrier` and `barrier_relaxed`: bare cluster barriers (cluster.sync(), and the lean
// kernel's relaxed lifetime barrier) at clusters 2, 4, 8, no sum and no shared-memory read.
// Variants `first_none`, `first_sum`, `first_pushed_start`, `first_pushed` (since session 49): ONE exchange per
// launch on a grid of one cluster, as a call of one token round runs it, where the loops above time a warm
// chain and leave the first exchange out; the figure is the launch's duration (CUPTI, as bench launch), so
// first_sum - first_none is what the reference's exchange and its closing barrier add to such a call,
// first_pushed - first_pushed_start what the lean kernel's pushed exchange adds, and first_pushed_start -
// first_none its start (calibrate/reduce_loop.cuh first_exchange_kernel). Shapes: tpb x cluster = 256 and 1024
// threads (a token of H 2048 and 8192 at one vector per thread) split over clusters of 1, 2, 4, 8 blocks of at
// least one warp. Why: the fused one-shot rows of one token round with clusters of 2-8 blocks are predicted
// long for the reference and short for the lean body against these loops (docs/model.md, session 49).
// Rows: sms = blocks launched (one cluster), size = 1 exchange, metric duration_us.
#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "calibrate/reduce_loop.cuh"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {

void bench_cluster_sync(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  const int k_ops = env.quick ? 512 : 2048;  // as block_reduce
  const std::vector<int> clusters = env.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4, 8};
  harness::DeviceBuffer sink(sizeof(float), env.rank), times(2 * sizeof(unsigned long long), env.rank);
  for (int cluster : clusters)
    for (int tpb : {128, 1024}) {
      const int grid = env.sms / cluster * cluster;
      if (grid < cluster) continue;
      std::vector<double> ns;
      for (int r = 0; r < env.reps + 1; ++r) {  // the first call is a warm-up
        launch(Shape{grid, tpb, cluster}, env.stream, env.rank, reduce_loop_kernel, k_ops, cluster, sink.as<float>(),
               times.as<unsigned long long>());
        const double t = device_interval_ns(env, times.as<unsigned long long>());
        if (r > 0) ns.push_back(t / k_ops);
      }
      out.push_back(make_point(PointKey{"cluster_sync", "sync_dsmem", grid, tpb, cluster, double(k_ops),
                                        "reductions", "ns_per_op"},
                               ns));
    }
  for (bool relaxed : {false, true})
    for (int cluster : clusters) {
      if (cluster == 1) continue;
      for (int tpb : {128, 1024}) {
        const int grid = env.sms / cluster * cluster;
        if (grid < cluster) continue;
        std::vector<double> ns;
        for (int r = 0; r < env.reps + 1; ++r) {
          launch(Shape{grid, tpb, cluster}, env.stream, env.rank, barrier_loop_kernel, k_ops, relaxed,
                 times.as<unsigned long long>());
          const double t = device_interval_ns(env, times.as<unsigned long long>());
          if (r > 0) ns.push_back(t / k_ops);
        }
        out.push_back(make_point(PointKey{"cluster_sync", relaxed ? "barrier_relaxed" : "barrier", grid, tpb, cluster,
                                          double(k_ops), "barriers", "ns_per_op"},
                                 ns));
      }
    }
  // The pushed exchange: its spins are bounded by env.timeout_ns and record a fault word.
  harness::DeviceBuffer fault(sizeof(unsigned long long), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(fault.data(), 0, sizeof(unsigned long long), env.stream));
  for (int cluster : clusters) {
    if (!lean_pushes_cluster_totals(cluster, 32)) continue;
    for (int tpb : {128, 1024}) {
      const int grid = env.sms / cluster * cluster;
      if (grid < cluster) continue;
      kernels::FusedParams p;
      p.cluster = cluster;
      p.rank = env.rank;
      p.fault = fault.as<unsigned long long>();
      p.timeout_ns = env.timeout_ns;
      std::vector<double> ns;
      for (int r = 0; r < env.reps + 1; ++r) {
        launch(Shape{grid, tpb, cluster}, env.stream, env.rank, pushed_reduce_loop_kernel, k_ops, p,
               sink.as<float>(), times.as<unsigned long long>());
        const double t = device_interval_ns(env, times.as<unsigned long long>());
        if (r > 0) ns.push_back(t / k_ops);
      }
      unsigned long long word = 0;
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(&word, fault.data(), sizeof(word), cudaMemcpyDeviceToHost));
      if (word != 0ull)
        throw CudaError("calibrate cluster_sync/pushed: an exchange spin timed out (cluster " + std::to_string(cluster) +
                        ", tpb " + std::to_string(tpb) + ")");
      out.push_back(make_point(PointKey{"cluster_sync", "pushed", grid, tpb, cluster, double(k_ops), "reductions",
                                        "ns_per_op"},
                               ns));
    }
  }
  // One exchange per launch (first_exchange_kernel): the four modes of each shape back to back.
  harness::DeviceBuffer sums(kMaxClusterSize * sizeof(float), env.rank);
  constexpr int kWarmup = 3;  // as bench launch
  const std::pair<int, const char*> modes[] = {{kFirstNone, "first_none"},
                                               {kFirstSum, "first_sum"},
                                               {kFirstPushedStart, "first_pushed_start"},
                                               {kFirstPushed, "first_pushed"}};
  for (int threads : {256, 1024})
    for (int cluster : clusters) {
      const int tpb = threads / cluster;
      if (cluster > env.sms) continue;
      kernels::FusedParams p;
      p.cluster = cluster;
      p.rank = env.rank;
      p.fault = fault.as<unsigned long long>();
      p.timeout_ns = env.timeout_ns;
      for (const auto& [mode_value, variant] : modes) {
        const int mode = mode_value;  // a lambda captures a variable, not a structured binding (C++17)
        const bool pushed = mode == kFirstPushedStart || mode == kFirstPushed;
        if (pushed && !lean_pushes_cluster_totals(cluster, tpb)) continue;
        const std::vector<double> us = time_calls(env, kWarmup, env.reps, {}, [&] {
          launch(Shape{cluster, tpb, cluster}, env.stream, env.rank, first_exchange_kernel, mode, p,
                 sums.as<float>());
        });
        unsigned long long word = 0;
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(&word, fault.data(), sizeof(word), cudaMemcpyDeviceToHost));
        if (word != 0ull)
          throw CudaError(std::string("calibrate cluster_sync/") + variant + ": an exchange spin timed out (cluster " +
                          std::to_string(cluster) + ", tpb " + std::to_string(tpb) + ")");
        out.push_back(make_point(PointKey{"cluster_sync", variant, cluster, tpb, cluster, 1.0, "exchanges",
                                          "duration_us"},
                                 us));
      }
    }
}

}  // namespace arlab::calibrate
