// The timing procedure of docs/measurement.md on a FusedRunner.
//
// Isolated calls. Each configuration of a group is measured in batches: at the head of every local
// rank's stream a host hold (kernels/gate.h), behind it `batch` iterations of (start gate, fused
// kernel), then the host releases the hold, so every rank's kernel is queued behind its gate when
// the gate opens and the ranks start within the gate's own release skew rather than the host's
// launch time. Kernel start/end come from CUPTI records as integer nanoseconds, made relative to
// an integer origin before any floating point (harness/timing_stats.h: to_relative_us; the old
// conversion of absolute timestamps to double quantized every time to 0.25 us). Fallback without
// CUPTI: CUDA events around each launch (they include launch gaps). Per iteration: the max over
// ranks of the kernel duration, the skew-free max_r(end) - max_r(start), the spread between ranks,
// the kernels' start skew, and the gate's release skew (one GPU clock only).
//
// A baseline call (LaunchConfig::impl unfused or nccl: an all-reduce, then the separate norm kernel)
// is two kernels per rank under one tag; its time runs from the first kernel's start to the last
// one's end, and the all-reduce step alone is reported beside it (TimingReport::allreduce_us).
//
// Stopping (as nvbench does): warm up by time (clocks ramp), then rounds until the 95 % CI of the
// headline median is within +-max_noise, or max iterations / max time is reached. Several
// configurations are interleaved round by round (A B A B ...), so drift between rounds cancels
// in their ratios (timing_stats.h: ratio_of_medians).
//
// Graph-captured back-to-back calls (the decode-loop case): one CUDA graph per rank holding
// `calls` launches, replayed behind a host hold and a gate; time per call = max over ranks of the
// replay's event time / calls, median over replays.
#pragma once

#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/fused_runner.h"
#include "harness/nvml.h"
#include "harness/timing_stats.h"
#include "reference/compare.h"

namespace arlab::harness {

class CuptiKernelTimer;

// The figure the noise target, the ratios and the model refer to (the headline), chosen from H200
// evidence (README, "Measurement", data/h200/repeatability.csv): the skew-free figure
// max_r(end) - max_r(start), the kernel's time from the moment the last rank starts. With the host
// hold and the push gate, 5 separate processes per point repeat it within 2.3 % at 1 token and
// 1.8 % at >= 16 tokens on the emulated node, and within 1.4 % everywhere on 2 H200s over NVLink;
// the max-over-ranks duration (what a caller waiting for every rank sees, kept in every CSV as
// kernel_us_*) also carries the residual start skew (0.2-0.45 us median on NVLink, varying
// between processes) and spread 2.5-3.0 % at three real-node points. Where the ranks share no
// clock (CUDA events) the skew-free figure is undefined and the max over ranks stands in.
enum class Headline { max_over_ranks, skew_free };
const char* to_string(Headline h);

struct TimingReport {
  std::string source;  // "cupti" or "events"
  std::string note;    // why events were used, when they were
  std::vector<std::string> kernel_names;  // CUPTI: the distinct names of the timed calls' kernels (which
                                          // NCCL kernel -- algorithm and protocol -- a baseline ran)
  int iters = 0;
  int rounds = 0;
  int nsets = 0;
  double elapsed_s = 0;            // wall time of the timed rounds (the whole group's)
  StopReason stop = StopReason::keep_going;
  MedianCI kernel;                 // max over ranks per iteration: median and its CI
  Spread3 kernel_us;               // the same: median / p10 / p90
  MedianCI skew_free;              // max_r(end) - max_r(start)
  double rank_spread_us = 0;       // median of max_r(duration) - min_r(duration)
  Spread3 start_skew_us;           // fused kernels' start skew (NaN without one clock)
  Spread3 gate_skew_us;            // the gate's release skew on the GPU clock (NaN across GPUs)
  Spread3 allreduce_us;            // baselines: the all-reduce step alone, max over ranks (NaN otherwise)
  Headline headline_figure = Headline::skew_free;  // max_over_ranks when skew-free is undefined
  double noise = 0;                // relative half-width of the headline's CI
  bool noise_met = false;
  ClockReading clocks_start, clocks_end;  // node-wide minimum over processes
  RoundSamples kernel_rounds, skew_free_rounds;  // samples by round, for ratios
  const MedianCI& headline() const { return headline_figure == Headline::max_over_ranks ? kernel : skew_free; }
  const RoundSamples& headline_rounds() const {
    return headline_figure == Headline::max_over_ranks ? kernel_rounds : skew_free_rounds;
  }
};

// Isolated, gated calls of every prepared call in `calls` (any mix of algorithms and
// implementations), interleaved round by round; one report per call, in order. `cupti` and `clocks`
// may be null. Collective on a multi-process node. Throws DeviceTimeout on a fault.
std::vector<TimingReport> time_interleaved(FusedRunner& runner, const std::vector<CheckedCall>& calls,
                                           const TimingOptions& opt, CuptiKernelTimer* cupti,
                                           const GpuClocks* clocks);

// One call.
TimingReport time_isolated(FusedRunner& runner, const CheckedCall& call, const TimingOptions& opt,
                           CuptiKernelTimer* cupti, const GpuClocks* clocks = nullptr);

// Headline ratio a / b of two reports of one time_interleaved group, with its bootstrap CI.
RatioCI headline_ratio(const TimingReport& a, const TimingReport& b, double confidence);

// Graph-captured back-to-back calls: microseconds per call (median over replays).
double time_graph_per_call(FusedRunner& runner, const CheckedCall& call, const TimingOptions& opt);

// Captures `calls` launches per rank on input set 0, poisons, replays once and gates the outputs.
ref::GateReport check_graph_replay(FusedRunner& runner, const CheckedCall& call, int calls);

}  // namespace arlab::harness
