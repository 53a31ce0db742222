// Implementation of harness/timing_stats.h.
#include "harness/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "common/csv.h"
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
  f.start_skew = max_start - *std::min_element(start.begin(), start.end());
  return f;
}

double to_relative_us(uint64_t t_ns, uint64_t origin_ns) {
  constexpr double kNsPerUs = 1e3;
  // Signed difference in integers first: a timestamp may precede the origin (another process's).
  const int64_t d = static_cast<int64_t>(t_ns - origin_ns);
  return static_cast<double>(d) / kNsPerUs;
}

namespace {

// Median of v (reordered in place): the middle order statistic, or the mean of the middle two.
double median_inplace(std::vector<double>& v) {
  const size_t n = v.size();
  const size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

// Largest j >= 1 with P(Binomial(n, 1/2) <= j - 1) <= tail, or 0 when even j = 1 exceeds it.
size_t binomial_lower_rank(size_t n, double tail) {
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const double lg_n1 = std::lgamma(static_cast<double>(n) + 1.0);
  double cdf = 0;
  for (size_t k = 0; k <= n / 2; ++k) {
    const double log_pmf = lg_n1 - std::lgamma(static_cast<double>(k) + 1.0) -
                           std::lgamma(static_cast<double>(n - k) + 1.0) + log_half_n;
    cdf += std::exp(log_pmf);
    if (cdf > tail) return k;  // P(X <= k) > tail, so j - 1 = k - 1 is the last that fits
  }
  return n / 2;
}

}  // namespace

double MedianCI::relative_half_width() const {
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  return 0.5 * (hi - lo) / median;
}

MedianCI median_ci(std::vector<double> v, double confidence) {
  if (v.empty()) throw InvalidArgument("median_ci of an empty sample");
  if (!(confidence > 0.0 && confidence < 1.0))
    throw InvalidArgument("confidence = " + std::to_string(confidence) + " is outside (0, 1)");
  std::sort(v.begin(), v.end());
  MedianCI ci;
  ci.median = quantile(v, 0.5);
  const size_t n = v.size();
  const size_t j = binomial_lower_rank(n, 0.5 * (1.0 - confidence));  // 1-based rank of the lower bound
  if (j == 0) {
    ci.exact = false;
    ci.lo = v.front();
    ci.hi = v.back();
  } else {
    ci.lo = v[j - 1];
    ci.hi = v[n - j];
  }
  return ci;
}

RatioCI ratio_of_medians(const RoundSamples& a, const RoundSamples& b, double confidence, int resamples,
                         uint64_t seed) {
  if (a.size() != b.size() || a.empty())
    throw InvalidArgument("ratio_of_medians: " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                          " rounds (need the same, non-zero count)");
  if (!(confidence > 0.0 && confidence < 1.0))
    throw InvalidArgument("confidence = " + std::to_string(confidence) + " is outside (0, 1)");
  if (resamples < 1) throw InvalidArgument("resamples = " + std::to_string(resamples) + " must be >= 1");
  auto pooled_median = [](const RoundSamples& s, const std::vector<size_t>& rounds, std::vector<double>& buf) {
    buf.clear();
    for (size_t k : rounds) buf.insert(buf.end(), s[k].begin(), s[k].end());
    if (buf.empty()) throw InvalidArgument("ratio_of_medians: a configuration has no samples");
    return median_inplace(buf);
  };
  const size_t rounds = a.size();
  std::vector<size_t> all(rounds);
  for (size_t k = 0; k < rounds; ++k) all[k] = k;
  std::vector<double> buf;
  RatioCI r;
  r.rounds = static_cast<int>(rounds);
  r.ratio = pooled_median(a, all, buf) / pooled_median(b, all, buf);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, rounds - 1);
  std::vector<double> ratios;
  std::vector<size_t> chosen(rounds);
  for (int i = 0; i < resamples; ++i) {
    for (size_t& k : chosen) k = pick(rng);
    ratios.push_back(pooled_median(a, chosen, buf) / pooled_median(b, chosen, buf));
  }
  const double tail = 0.5 * (1.0 - confidence);
  r.lo = quantile(ratios, tail);
  r.hi = quantile(ratios, 1.0 - tail);
  return r;
}

void validate(const StopRule& rule) {
  if (!(rule.max_noise > 0.0 && rule.max_noise < 1.0))
    throw InvalidArgument("max noise = " + csv_num(rule.max_noise) +
                          " must be in (0, 1) (a fraction: 0.01 = 1 %; the CLI's --max-noise is in percent)");
  if (!(rule.confidence > 0.0 && rule.confidence < 1.0))
    throw InvalidArgument("confidence = " + csv_num(rule.confidence) + " must be in (0, 1)");
  // The messages name the CLI options that set each field (cli/cli_timing.h), where the fix is.
  if (rule.min_iters < 1)
    throw InvalidArgument("min iterations (--min-iters) = " + std::to_string(rule.min_iters) + " must be >= 1");
  if (rule.min_rounds < 1)
    throw InvalidArgument("min rounds (--min-rounds) = " + std::to_string(rule.min_rounds) + " must be >= 1");
  if (rule.max_iters < rule.min_iters)
    throw InvalidArgument("max iterations (--max-iters) = " + std::to_string(rule.max_iters) +
                          " must be >= min iterations (--min-iters) = " + std::to_string(rule.min_iters) +
                          ": raise --max-iters or lower --min-iters");
  if (!(rule.max_time_s > 0.0) || !std::isfinite(rule.max_time_s))
    throw InvalidArgument("max time (--max-time) = " + csv_num(rule.max_time_s) + " s must be finite and > 0");
}

void validate(const TimingOptions& opt) {
  validate(opt.stop);
  if (!(opt.warmup_ms >= 0) || !std::isfinite(opt.warmup_ms))
    throw InvalidArgument("warm-up (--warmup-ms) = " + csv_num(opt.warmup_ms) + " ms must be finite and >= 0");
  if (opt.batch < 1 || opt.batch > kMaxTimingBatch)
    throw InvalidArgument("batch (--batch) = " + std::to_string(opt.batch) + " must be in [1, " +
                          std::to_string(kMaxTimingBatch) + "]");
  if (opt.fixed_iters < 0)
    throw InvalidArgument("fixed iterations (--iters) = " + std::to_string(opt.fixed_iters) +
                          " must be >= 0 (0: noise-based)");
  if (opt.graph_calls < 0 || opt.graph_reps < 1)
    throw InvalidArgument("graph calls (--graph-calls) = " + std::to_string(opt.graph_calls) +
                          " (>= 0) and replays (--graph-reps) = " + std::to_string(opt.graph_reps) + " (>= 1) required");
}

StopReason stop_reason(const StopRule& rule, int iters, int rounds, double elapsed_s, double relative_noise) {
  if (iters >= rule.min_iters && rounds >= rule.min_rounds && relative_noise <= rule.max_noise)
    return StopReason::noise_met;
  if (iters >= rule.max_iters) return StopReason::max_iters;
  if (elapsed_s >= rule.max_time_s) return StopReason::max_time;
  return StopReason::keep_going;
}

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::keep_going: return "running";
    case StopReason::noise_met: return "noise target met";
    case StopReason::max_iters: return "max iterations";
    case StopReason::max_time: return "max time";
  }
  return "?";
}

}  // namespace arlab::harness
