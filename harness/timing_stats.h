// Pure statistics of the timing procedure (docs/measurement.md): per iteration, the max-over-ranks kernel
// duration, the skew-free figure max_r(end_r) - max_r(start_r), the spread between ranks and the
// start skew; over iterations, median / p10 / p90, a distribution-free confidence interval of the
// median (the noise that decides when to stop), and ratios of medians with a paired bootstrap
// over interleaved rounds. Timestamps enter as integer nanoseconds and leave as microseconds
// relative to an integer origin (see to_relative_us). No CUDA; unit-tested on the CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace arlab::harness {

// q-quantile (q in [0, 1]) by linear interpolation between order statistics (q = 0.5 is the
// median; the mean of the middle two for an even count). Throws InvalidArgument when v is empty or
// q is outside [0, 1].
double quantile(std::vector<double> v, double q);

struct Spread3 {
  double median = 0, p10 = 0, p90 = 0;
};
Spread3 spread3(const std::vector<double>& v);

// One iteration of N ranks, timestamps on one clock (CUPTI records of one GPU, or event times
// relative to one reference event), any unit.
struct IterationFigures {
  double max_duration = 0;  // max_r(end_r - start_r): what a caller waiting for all ranks sees
  double skew_free = 0;     // max_r(end_r) - max_r(start_r): without the start skew of the ranks
  double rank_spread = 0;   // max_r(duration) - min_r(duration)
  double start_skew = 0;    // max_r(start_r) - min_r(start_r)
};
// Throws InvalidArgument when the vectors are empty, differ in size, or an end precedes its start.
IterationFigures combine_ranks(const std::vector<double>& start, const std::vector<double>& end);

// GPU timestamps are integer nanoseconds since an epoch (CUPTI: ~1.8e18 ns). As a double, such a
// value keeps only 53 bits: its spacing is 256 ns, and once divided by 1000 the microsecond value
// steps by 0.25 us -- every duration computed from it was then a multiple of 0.25 us. Subtracting
// an integer origin first keeps every nanosecond: (t - origin) / 1000, exact below 2^53 ns.
double to_relative_us(uint64_t t_ns, uint64_t origin_ns);

// Distribution-free confidence interval of the median: the order statistics x_(j) and x_(n+1-j)
// with the largest j such that a Binomial(n, 1/2) variable falls below j with probability at most
// (1 - confidence) / 2, so the interval covers the true median with probability >= confidence.
// `exact` is false when n is too small for any such j (then the interval is [min, max]).
struct MedianCI {
  double median = 0, lo = 0, hi = 0;
  bool exact = true;
  // Half-width relative to the median: the noise figure the stopping rule compares with --max-noise.
  double relative_half_width() const;
};
// Throws InvalidArgument when v is empty or confidence is outside (0, 1).
MedianCI median_ci(std::vector<double> v, double confidence);

// Samples of one configuration, grouped by the interleaved round that measured them.
using RoundSamples = std::vector<std::vector<double>>;

// Ratio median(a) / median(b) of two configurations measured in the same rounds (a[k] and b[k] in
// round k), with a percentile-bootstrap confidence interval that resamples whole rounds, keeping
// a and b of a round together, so drift between rounds cancels in the ratio as it does in the
// measurement. Deterministic for a given seed. Throws InvalidArgument when the round counts differ
// or a configuration has no samples.
struct RatioCI {
  double ratio = 0, lo = 0, hi = 0;
  int rounds = 0;
};
RatioCI ratio_of_medians(const RoundSamples& a, const RoundSamples& b, double confidence, int resamples,
                         uint64_t seed);

// When to stop iterating (docs/measurement.md, as nvbench does): after at least min_iters and min_rounds,
// once the headline's median CI is within +-max_noise (relative), or when max_iters or max_time_s
// is hit. min_rounds exists for the ratios: their bootstrap resamples whole rounds, and with fewer
// than about 8 rounds its interval is too narrow (a simulation of two identical configurations,
// timed with a 32 ns clock tick, 5.3 us kernels: 2 rounds of 32 put 1 inside the 95 % interval
// 74 % of the time, 8-10 rounds of 16 did 99 %).
struct StopRule {
  double max_noise = 0.01;
  double confidence = 0.95;
  int min_iters = 64;
  int min_rounds = 10;
  int max_iters = 20000;
  double max_time_s = 2.0;
};
// Throws InvalidArgument naming the field and its valid range.
void validate(const StopRule& rule);
// Everything the timing procedure (harness/timing.h) takes, validated before any device is touched.
struct TimingOptions {
  StopRule stop;            // noise-based stopping, per configuration
  double warmup_ms = 50;    // untimed calls of every configuration first, for at least this long
  int batch = 16;           // gated iterations per configuration per round, all queued before release
  int fixed_iters = 0;      // > 0: exactly this many iterations per configuration, no noise stop
  int graph_calls = 64;     // launches per captured graph (0: no graph timing)
  int graph_reps = 10;      // timed replays (after one warm-up replay)
  bool host_hold = true;    // false: the host-paced procedure (diagnostic: shows the start skew it causes)
};
// A batch puts 2 launches per iteration on each rank's stream before anything runs; 256 iterations
// stay far below the runtime's per-stream launch queue (about a thousand entries), beyond which a
// launch call would block the host while the batch's hold waits for the host.
constexpr int kMaxTimingBatch = 256;
// Throws InvalidArgument naming the option and its range.
void validate(const TimingOptions& opt);

enum class StopReason { keep_going, noise_met, max_iters, max_time };
StopReason stop_reason(const StopRule& rule, int iters, int rounds, double elapsed_s, double relative_noise);
const char* to_string(StopReason r);

}  // namespace arlab::harness
