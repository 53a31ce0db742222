// Error statistics: APE, mean, median, average ranks and Spearman's rho with ties.
#include "model/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/problem.h"

namespace arlab::model {

double abs_pct_error(double predicted, double measured) {
  if (!(measured > 0)) throw InvalidArgument("abs_pct_error: measured = " + std::to_string(measured) + " must be > 0");
  return std::fabs(predicted - measured) / measured;
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<long>(mid));
  return 0.5 * (lo + hi);
}

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  size_t i = 0;
  while (i < idx.size()) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double avg = 0.5 * static_cast<double>(i + j) + 1.0;  // ranks i+1 .. j+1
    for (size_t k = i; k <= j; ++k) rank[idx[k]] = avg;
    i = j + 1;
  }
  return rank;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw InvalidArgument("spearman: sizes differ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
                          ")");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.size() < 2) return nan;
  const std::vector<double> ra = average_ranks(a), rb = average_ranks(b);
  const double ma = mean(ra), mb = mean(rb);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (saa == 0 || sbb == 0) return nan;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace arlab::model
