// Host helpers shared by the single-rank benches (calibrate/bench_*.cu): kernel launches through
// cudaLaunchKernelEx (the call CUPTI's tagging in harness/cupti_timer.h follows), optionally as
// clusters, and the duration of isolated calls from CUPTI records (CUDA events as the fallback).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "calibrate/single_rank_benches.h"
#include "kernels/fused_params.h"

namespace arlab::calibrate {

// Launch shape of one bench kernel. cluster > 1 adds the cluster-dimension attribute (grid must
// then be a multiple of cluster).
struct Shape {
  int grid = 1;
  int tpb = 1;
  int cluster = 1;
  size_t dynamic_smem = 0;  // bytes of dynamic shared memory per block
};

// The cudaLaunchConfig_t of `s` on `stream`; `attr` must outlive the launch call.
cudaLaunchConfig_t launch_config(const Shape& s, cudaStream_t stream, cudaLaunchAttribute& attr);

// Runs `before` (untimed; may be empty) and then `launch` (exactly one kernel, the timed one) `warmup`
// + `reps` times, synchronizing the stream after each call so every call is isolated, and returns the
// `reps` kernel durations in microseconds: CUPTI records when env.cupti is set, else CUDA events
// recorded around the launch (they include the launch gap; the caller's rows say nothing
// different, so the command prints which source was used). Throws CudaError when CUPTI misses a
// record.
std::vector<double> time_calls(const BenchEnv& env, int warmup, int reps, const std::function<void()>& before,
                               const std::function<void()>& launch);

// Reads two device words t[0], t[1] (%globaltimer ns written by a kernel) and returns t[1] - t[0] in ns.
double device_interval_ns(const BenchEnv& env, const unsigned long long* times_dev);

// Distinct values among `smids` (the SMs a kernel's blocks ran on); prints a WARNING when fewer than
// `expected` (blocks shared an SM, so a per-SM figure would be off).
int distinct_sms(const std::vector<unsigned>& smids, int expected, const char* bench);

// A list of SM counts cut to [1, sms], deduplicated, ascending, with `sms` itself added.
std::vector<int> sm_counts(const std::vector<int>& wanted, int sms);

// The round benches (epilogue_round, body_round): every block's thread 0 writes its (start, end)
// %globaltimer pair to times[2 b], times[2 b + 1]. One repetition's figures, ns: block 0's interval,
// the longest block interval, and the span from the earliest start to the latest end over `grid`
// blocks. Throws CudaError when a block's end precedes its start.
struct GridTimes {
  double block0 = 0, slowest = 0, span = 0;
};
GridTimes grid_times(const std::vector<unsigned long long>& t, int grid);

// The part of a round bench's FusedParams that epilogue_round and body_round share: rank 0 alone, the
// Lamport buffer cur = 0 at `slots` (`nranks` slots of `slot_bytes`), `tokens` x `hidden`, clusters of
// `cluster`, `vpt` vectors per thread, gamma, the scale and the fault word; epsilon 1e-6; the timeout
// env.timeout_ns but at least 10 s (no poll of these benches ever waits). The tensors the bench reads
// and writes (x, residual_in, the outputs) are the caller's to set.
kernels::FusedParams round_bench_params(const BenchEnv& env, int tokens, int hidden, int cluster, int vpt, int nranks,
                                        void* slots, long long slot_bytes, const void* gamma, const float* scale,
                                        unsigned long long* fault);

// Reads [p, p + bytes) once through L2 (ld.cg) on `sms` blocks of 1024 threads on env.stream: puts a
// buffer in L2 as the pushes just before a poll phase would. `sink` (one device word) keeps the loads.
void warm_l2(const BenchEnv& env, const void* p, long long bytes, unsigned* sink);

}  // namespace arlab::calibrate
