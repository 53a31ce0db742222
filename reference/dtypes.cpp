// Out-of-line part of reference/dtypes.h: correctly rounded double -> T (used by the error metrics
// against the fp64 "exact" reference).
#include "reference/dtypes.h"

#include <cmath>

namespace arlab::ref {

uint32_t double_to_bits(DType t, double d) {
  if (std::isnan(d)) return float_to_bits(t, bits_as_float(0x7FC00000u));
  const float nearest = static_cast<float>(d);  // round to nearest even (the default FP environment)
  if (t == DType::fp32) return float_as_bits(nearest);
  // Round to odd: if the float is not exact, step it back towards zero when the nearest rounding
  // went away from zero, then force the last mantissa bit to 1 (the "sticky" mark).
  uint32_t u = float_as_bits(nearest);
  if (static_cast<double>(nearest) != d) {
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(d)) --u;
    u |= 1u;
  }
  return float_to_bits(t, bits_as_float(u));
}

}  // namespace arlab::ref
