// The single-rank benches in table order, with one progress line each (calibrate/single_rank_benches.h).
#include "calibrate/single_rank_benches.h"

#include <chrono>
#include <cstdio>
#include <functional>

namespace arlab::calibrate {

void run_single_rank_benches(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out) {
  const std::pair<const char*, std::function<void()>> benches[] = {
      {"launch", [&] { bench_launch(env, out); }},
      {"chase", [&] { bench_chase(env, out); }},
      {"round_load", [&] { bench_round_load(env, out); }},
      {"bandwidth", [&] { bench_bandwidth(env, out); }},
      {"clear", [&] { bench_clear(env, nranks, out); }},
      {"block_reduce", [&] { bench_block_reduce(env, out); }},
      {"cluster_sync", [&] { bench_cluster_sync(env, out); }},
      {"atomic", [&] { bench_atomic(env, out); }},
      {"epilogue_math", [&] { bench_epilogue_math(env, out); }},
      {"epilogue_round", [&] { bench_epilogue_round(env, out); }},
  };
  for (const auto& [name, run] : benches) {
    const size_t before = out.size();
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  bench %-14s %3zu points  %6.2f s\n", name, out.size() - before, s);
    std::fflush(stdout);
  }
}

}  // namespace arlab::calibrate
