// Distances between encoded values, the unit of the correctness gate (docs/operation.md): ulps of T for
// bf16/fp16/fp32 and quantization steps for e4m3 / e2m1 codes. All use the "ordered integer" of a
// sign-magnitude encoding (magnitude bits, negated when the sign is set), which is monotone in the
// value, so neighbouring representable values are 1 apart and +0 / -0 are 0 apart.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>

#include "common/problem.h"

namespace arlab::ref {

// Distance reported when exactly one side is NaN: larger than any real distance.
constexpr int64_t kNanDistance = std::numeric_limits<int64_t>::max();

inline int64_t ordered_from_sign_magnitude(uint32_t bits, int width_bits) {
  const uint32_t sign_bit = 1u << (width_bits - 1);
  const int64_t magnitude = bits & (sign_bit - 1u);
  return (bits & sign_bit) ? -magnitude : magnitude;
}

inline bool is_nan_bits(DType t, uint32_t bits) {
  if (t == DType::fp32) return (bits & 0x7FFFFFFFu) > 0x7F800000u;
  if (t == DType::bf16) return (bits & 0x7FFFu) > 0x7F80u;
  return (bits & 0x7FFFu) > 0x7C00u;  // fp16
}
inline bool is_e4m3_nan(uint8_t code) { return (code & 0x7Fu) == 0x7Fu; }

// ulp distance between two T bit patterns. Two NaNs are 0 apart (any payload), NaN vs a number is
// kNanDistance.
inline int64_t ulp_distance(DType t, uint32_t a, uint32_t b) {
  const bool nan_a = is_nan_bits(t, a), nan_b = is_nan_bits(t, b);
  if (nan_a || nan_b) return (nan_a && nan_b) ? 0 : kNanDistance;
  const int width = dtype_bytes(t) * 8;
  return std::llabs(ordered_from_sign_magnitude(a, width) - ordered_from_sign_magnitude(b, width));
}

// Quantization steps between two e4m3fn codes (NaN codes 0x7F / 0xFF as above).
inline int64_t e4m3_step_distance(uint8_t a, uint8_t b) {
  const bool nan_a = is_e4m3_nan(a), nan_b = is_e4m3_nan(b);
  if (nan_a || nan_b) return (nan_a && nan_b) ? 0 : kNanDistance;
  return std::llabs(ordered_from_sign_magnitude(a, 8) - ordered_from_sign_magnitude(b, 8));
}

// Quantization steps between two e2m1 codes (low nibbles; e2m1 has no NaN).
inline int64_t e2m1_step_distance(uint8_t a, uint8_t b) {
  return std::llabs(ordered_from_sign_magnitude(a & 0xFu, 4) - ordered_from_sign_magnitude(b & 0xFu, 4));
}

}  // namespace arlab::ref
