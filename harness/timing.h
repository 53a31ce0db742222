// The timing procedure of DESIGN §6 on a FusedRunner:
//  * isolated calls: per iteration every rank runs the start gate then the fused kernel (so all
//    ranks start together and calls never overlap), input sets rotate; kernel start/end from CUPTI
//    records (fallback: CUDA events around each launch, which include launch gaps); per iteration
//    the max over ranks, the skew-free max_r(end) - max_r(start) and the spread between ranks;
//    median / p10 / p90 over iterations after a warm-up;
//  * graph-captured back-to-back calls (the decode-loop case): one CUDA graph per rank holding
//    `calls` launches, replayed after a gate; time per call = max over ranks of the replay's event
//    time / calls, median over replays.
#pragma once

#include <string>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/fused_runner.h"
#include "harness/timing_stats.h"
#include "reference/compare.h"

namespace arlab::harness {

class CuptiKernelTimer;

struct TimingOptions {
  int warmup = 20;
  int iters = 200;
  int graph_calls = 64;  // launches per captured graph
  int graph_reps = 10;   // timed replays (after one warm-up replay)
};

struct TimingReport {
  std::string source;  // "cupti" or "events"
  std::string note;    // why events were used, when they were
  int iters = 0;
  int nsets = 0;
  Spread3 kernel_us;            // max over ranks per iteration
  double skewfree_us = 0;       // median
  double rank_spread_us = 0;    // median
};

// Isolated, gated calls. `cupti` may be null (events only). Throws DeviceTimeout on a fault.
TimingReport time_isolated(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, const TimingOptions& opt,
                           CuptiKernelTimer* cupti);

// Graph-captured back-to-back calls: microseconds per call (median over replays).
double time_graph_per_call(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, const TimingOptions& opt);

// Captures `calls` launches per rank on input set 0, poisons, replays once and gates the outputs.
ref::GateReport check_graph_replay(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, int calls);

}  // namespace arlab::harness
