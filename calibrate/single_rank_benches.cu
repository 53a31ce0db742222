// The single-rank benches in table order, with one progress line each (calibrate/single_rank_benches.h).
#include "calibrate/single_rank_benches.h"

#include <chrono>
#include <cstdio>
#include <functional>

namespace arlab::calibrate {

void run_single_rank_benches(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out) {
  // ARLAB_SINGLE_RANK_BENCHES (common/microbench_schema.h): the table order.
  const std::pair<const char*, std::function<void()>> benches[] = {
#define ARLAB_BENCH_ROW(name) {#name, [&] { bench_##name(env, nranks, out); }},
      ARLAB_SINGLE_RANK_BENCHES(ARLAB_BENCH_ROW)
#undef ARLAB_BENCH_ROW
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
