// Error of a T-valued output against the fp64 "exact" reference (docs/operation.md: how accumulation modes
// and kernels are compared numerically). Used by the correctness gate and by `arlab numerics`.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/host_tensor.h"

namespace arlab::ref {

struct ErrorStats {
  int64_t elements = 0;                // elements compared: those whose exact value is finite
  double max_abs = 0.0;                // max |got - exact|
  double rel_rms = 0.0;                // sqrt(sum (got - exact)^2 / sum exact^2)
  int64_t max_ulp = 0;                 // max ulp distance (of T) from the correctly rounded exact value
  double mean_ulp = 0.0;               // mean of the same
  double frac_correctly_rounded = 0.0; // share of elements equal to the correctly rounded exact value
};

// `exact` has got.numel() values (row-major). Throws InvalidArgument when the sizes differ.
// A non-finite `got` where the exact value is finite gives max_abs = Inf and max_ulp = kNanDistance
// (NaN) or the ulp distance to Inf.
ErrorStats error_vs_exact(const HostTensor& got, const std::vector<double>& exact);

}  // namespace arlab::ref
