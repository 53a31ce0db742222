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
  // The emulated node's second partition (rank 1) for the `_busy` bandwidth variants; null elsewhere.
  cudaStream_t busy_stream = nullptr;
  int busy_rank = 1;
  int busy_sms = 0;
};

// Each bench appends one row per point (rank = env.rank, provenance columns empty).
void bench_launch(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_chase(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_round_load(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_bandwidth(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_clear(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out);
void bench_block_reduce(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_cluster_sync(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_atomic(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_epilogue_math(const BenchEnv& env, std::vector<MicrobenchRow>& out);
void bench_epilogue_round(const BenchEnv& env, std::vector<MicrobenchRow>& out);

// Runs every bench above in table order, printing one progress line per bench (name, points,
// seconds) to stdout. `nranks` is the node's rank count (the clear bench fills N slots).
void run_single_rank_benches(const BenchEnv& env, int nranks, std::vector<MicrobenchRow>& out);

}  // namespace arlab::calibrate
