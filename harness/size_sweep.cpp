// Size sweeps and bandwidth figures (harness/size_sweep.h).
#include "harness/size_sweep.h"

#include <limits>

#include "common/problem.h"

namespace arlab::harness {

std::vector<int> token_sweep(int begin, int end, int factor) {
  if (begin < 1) throw InvalidArgument("-b/--begin-tokens = " + std::to_string(begin) + " must be >= 1");
  if (end < begin)
    throw InvalidArgument("-e/--end-tokens = " + std::to_string(end) + " must be >= -b/--begin-tokens = " +
                          std::to_string(begin));
  if (factor < 2) throw InvalidArgument("-f/--step-factor = " + std::to_string(factor) + " must be >= 2");
  std::vector<int> sizes;
  for (long long t = begin; t <= end; t *= factor) sizes.push_back(static_cast<int>(t));
  return sizes;
}

double algbw_gbps(double bytes, double us) {
  return us > 0 ? bytes / (us * 1e3) : std::numeric_limits<double>::quiet_NaN();
}

double busbw_gbps(double bytes, double us, int nranks) {
  return algbw_gbps(bytes, us) * 2.0 * (nranks - 1) / nranks;
}

}  // namespace arlab::harness
