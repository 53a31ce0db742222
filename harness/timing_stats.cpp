// Implementation of harness/timing_stats.h.
#include "harness/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/problem.h"

namespace arlab::harness {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) throw InvalidArgument("quantile of an empty sample");
  if (!(q >= 0.0 && q <= 1.0)) throw InvalidArgument("quantile q = " + std::to_string(q) + " is outside [0, 1]");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

Spread3 spread3(const std::vector<double>& v) {
  constexpr double kP10 = 0.10, kMedian = 0.50, kP90 = 0.90;
  return Spread3{quantile(v, kMedian), quantile(v, kP10), quantile(v, kP90)};
}

IterationFigures combine_ranks(const std::vector<double>& start, const std::vector<double>& end) {
  if (start.empty() || start.size() != end.size())
    throw InvalidArgument("combine_ranks: " + std::to_string(start.size()) + " start and " +
                          std::to_string(end.size()) + " end timestamps (need the same, non-zero count)");
  IterationFigures f;
  double max_start = start[0], max_end = end[0];
  double min_dur = end[0] - start[0], max_dur = min_dur;
  for (size_t r = 0; r < start.size(); ++r) {
    const double d = end[r] - start[r];
    if (d < 0)
      throw InvalidArgument("combine_ranks: rank " + std::to_string(r) + " ends before it starts (" +
                            std::to_string(end[r]) + " < " + std::to_string(start[r]) + ")");
    max_start = std::max(max_start, start[r]);
    max_end = std::max(max_end, end[r]);
    min_dur = std::min(min_dur, d);
    max_dur = std::max(max_dur, d);
  }
  f.max_duration = max_dur;
  f.skew_free = max_end - max_start;
  f.rank_spread = max_dur - min_dur;
  return f;
}

}  // namespace arlab::harness
