// The single-rank microbenchmarks of `arlab calibrate` (calibrate/README.md): each measures one
// hardware quantity on one rank's SMs -- its green-context partition on the emulated node, its GPU
// under mpirun -- while the other ranks idle (except the `_busy` bandwidth variants, during which
// rank 1's partition streams a copy). One small .cu file per bench (calibrate/bench_*.cu).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common/microbench_schema.h"
#include "harness/cupti_timer.h"
#include "harness/device_query.h"

namespace arlab::calibrate {

// Where and how the benches run.
struct BenchEnv {
  cudaStream_t stream = nullptr;  // the measuring rank's stream (its green context on the emulated node)
  int rank = 0;                   // the measuring rank (named in CUDA errors)
  int sms = 0;                    // SMs that stream's kernels may use (the partition, or the whole GPU)
  const harness::DeviceInfo* device = nullptr;
  harness::CuptiKernelTimer* cupti = nullptr;  // null: kernel durations from CUDA events around each call
  bool quick = false;
  int reps = 20;
  unsigned long long timeout_ns = 0;  // bound of every device spin-wait
  // The emulated node's other partitions (ranks 1 .. N-1, each `sms` SMs): the first is the partner of
  // the `_busy` bandwidth and epilogue_round variants, all of them run body_round's `_allbusy` rows;
  // empty elsewhere.
  std::vector<cudaStream_t> partner_streams;
  std::vector<int> partner_ranks;

  // The `_busy` variants' partner (rank 1's partition): its stream (null without one), rank and SMs (0
  // without one).
  cudaStream_t partner_stream() const { return partner_streams.empty() ? nullptr : partner_streams.front(); }
  int partner_rank() const { return partner_ranks.empty() ? 1 : partner_ranks.front(); }
  int partner_sms() const { return partner_streams.empty() ? 0 : sms; }
};

// Each bench appends one row per point (rank = env.rank, provenance columns empty).
// One function per single-rank bench of common/microbench_schema.h ARLAB_SINGLE_RANK_BENCHES, each in
// calibrate/bench_NAME.cu: bench_NAME(env, nranks, rows) appends its points (nranks: the node's ranks,
// for the benches whose points depend on it).
#define ARLAB_DECLARE_BENCH(name) void bench_##name(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out);
ARLAB_SINGLE_RANK_BENCHES(ARLAB_DECLARE_BENCH)
#undef ARLAB_DECLARE_BENCH

// Runs every bench above in table order, printing one progress line per bench (name, points,
// seconds) to stdout. `nranks` is the node's rank count (the clear bench fills N slots).
void run_single_rank_benches(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out);

}  // namespace arlab::calibrate
