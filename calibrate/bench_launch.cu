// Bench `launch`: what a kernel launch costs on the GPU before any work -- the CUPTI duration
// (start to end of the kernel on the GPU's clock) of an EMPTY kernel, over grid x tpb x cluster.
// Every block is still dispatched, so a grid above one wave (more blocks than fit the partition at
// once) shows the per-block dispatch cost; clusters show what placing a cluster (all its blocks on
// one GPC at once) adds. Each call is isolated (stream synchronized after it), as the fused kernel's
// timed calls are. Variant `plain` at cluster 1, `cluster` otherwise; size = grid (blocks).
#include <algorithm>
#include <set>
#include <tuple>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"

namespace arlab::calibrate {
namespace {

__global__ void empty_kernel() {}

}  // namespace

void bench_launch(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  const int sms = env.sms;
  // Grids: a single block, a few, one block per SM, and two and four waves of one block per SM.
  const std::vector<int> grids =
      env.quick ? std::vector<int>{1, sms} : std::vector<int>{1, 8, 32, sms, 2 * sms, 4 * sms};
  // tpb 1024 is what model/calibration_derive.cpp fits the per-block slope on, so --quick keeps it.
  const std::vector<int> tpbs = env.quick ? std::vector<int>{1024} : std::vector<int>{128, 1024};
  // Cluster sizes up to 8, the portable maximum on sm_90 (no non-portable attribute needed).
  const std::vector<int> clusters = env.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4, 8};
  constexpr int kWarmup = 3;  // first launches load the module in the context and ramp clocks
  std::set<std::tuple<int, int, int>> done;
  for (int cluster : clusters)
    for (int tpb : tpbs)
      for (int g : grids) {
        const int grid = (g + cluster - 1) / cluster * cluster;  // a multiple of the cluster size
        if (!done.insert({cluster, tpb, grid}).second) continue;
        const Shape s{grid, tpb, cluster};
        const std::vector<double> us =
            time_calls(env, kWarmup, env.reps, {}, [&] { launch(s, env.stream, env.rank, empty_kernel); });
        out.push_back(make_point(
            PointKey{"launch", cluster == 1 ? "plain" : "cluster", sms, tpb, cluster, double(grid), "blocks",
                     "duration_us"},
            us));
      }
}

}  // namespace arlab::calibrate
