// Pure statistics of the timing procedure (DESIGN §6): per iteration, the max-over-ranks kernel
// duration, the skew-free figure max_r(end_r) - max_r(start_r) and the spread between ranks; over
// iterations, median / p10 / p90. No CUDA; unit-tested on the CPU.
#pragma once

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
};
// Throws InvalidArgument when the vectors are empty, differ in size, or an end precedes its start.
IterationFigures combine_ranks(const std::vector<double>& start, const std::vector<double>& end);

}  // namespace arlab::harness
