// error_vs_exact (reference/error_metrics.h).
#include "reference/error_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/dtypes.h"
#include "reference/ulp.h"

namespace arlab::ref {

ErrorStats error_vs_exact(const HostTensor& got, const std::vector<double>& exact) {
  if (static_cast<int64_t>(exact.size()) != got.numel())
    throw InvalidArgument("error_vs_exact: " + std::to_string(got.numel()) + " values against " +
                          std::to_string(exact.size()) + " exact values");
  ErrorStats s;
  double sum_sq_err = 0.0, sum_sq_exact = 0.0, sum_ulp = 0.0;
  int64_t correctly_rounded = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double e = exact[static_cast<size_t>(i)];
    if (!std::isfinite(e)) continue;
    const uint32_t bits = got.bits(i);
    const double g = bits_to_float(got.dtype, bits);
    const double err = std::isfinite(g) ? std::fabs(g - e) : std::numeric_limits<double>::infinity();
    const int64_t ulp = ulp_distance(got.dtype, bits, double_to_bits(got.dtype, e));
    ++s.elements;
    s.max_abs = std::max(s.max_abs, err);
    sum_sq_err += err * err;
    sum_sq_exact += e * e;
    s.max_ulp = std::max(s.max_ulp, ulp);
    sum_ulp += static_cast<double>(ulp);
    correctly_rounded += ulp == 0 ? 1 : 0;
  }
  if (s.elements > 0) {
    s.rel_rms = sum_sq_exact > 0.0 ? std::sqrt(sum_sq_err / sum_sq_exact)
                                   : (sum_sq_err > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
    s.mean_ulp = sum_ulp / static_cast<double>(s.elements);
    s.frac_correctly_rounded = static_cast<double>(correctly_rounded) / static_cast<double>(s.elements);
  }
  return s;
}

}  // namespace arlab::ref
