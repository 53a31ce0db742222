// Bit-exact conversions between fp32 and the narrow formats of the fused operation (docs/operation.md):
// bf16 and fp16 (storage dtypes T), e4m3fn (FP8 codes and NVFP4 scale factors) and e2m1 (NVFP4
// codes). Written here with bit manipulation; the semantics are those of the CUDA toolkit's
// host-side conversions (CUDA 13.0: __float2bfloat16_rn, __float2half_rn, __nv_cvt_float_to_fp8
// with __NV_SATFINITE/__NV_E4M3, __nv_cvt_float_to_fp4 with __NV_E2M1/cudaRoundNearest), and
// tests/reference/test_dtypes_oracle.cpp checks them against those functions:
//   * every conversion rounds to nearest, ties to even;
//   * bf16 / fp16: any NaN becomes the canonical NaN 0x7FFF (sign dropped); overflow goes to +-Inf;
//     subnormals are kept (no flush to zero);
//   * e4m3fn (no Inf): +-Inf and anything above 448 + half an ulp (464) saturate to +-448 (0x7E/0xFE);
//     any NaN becomes 0x7F (the toolkit canonicalizes the NaN first, so the sign is dropped);
//     values up to 2^-10 (half the smallest subnormal) become +-0, sign kept;
//   * e2m1: the 4-bit code sits in the low nibble; above 6 (and +-Inf) saturates to +-6; any NaN
//     becomes +6 (0x7, as the toolkit does); values up to 0.25 become +-0, sign kept.
// The hot ones are inline: the reference calls them once per element.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/problem.h"

namespace arlab::ref {

inline uint32_t float_as_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

namespace detail {
constexpr uint32_t kF32AbsMask = 0x7FFFFFFFu;
constexpr uint32_t kF32InfBits = 0x7F800000u;
// What the toolkit's host paths return for any NaN input (cuda_bf16.hpp / cuda_fp16.hpp).
constexpr uint16_t kCanonicalNan16 = 0x7FFFu;

// Shifts `mantissa` right by `shift` (1..31) bits, rounding to nearest, ties to even.
inline uint32_t shift_right_rne(uint32_t mantissa, uint32_t shift) {
  const uint32_t kept = mantissa >> shift;
  const uint32_t dropped = mantissa & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  return kept + ((dropped > half || (dropped == half && (kept & 1u))) ? 1u : 0u);
}

// The subnormal code of a positive fp32 value with bits `a` (exponent field e): its 24-bit
// significand, implicit bit included, shifted right by shift_base - e, rounding to nearest even.
inline uint32_t subnormal_code_rne(uint32_t a, uint32_t shift_base) {
  const uint32_t e = a >> 23;
  return shift_right_rne((a & 0x7FFFFFu) | 0x800000u, shift_base - e);
}

// The fp32 value of a finite minifloat with `mantissa_bits` mantissa bits and exponent bias `bias`
// (sign already in fp32's bit 31): normal 1.m x 2^(exponent - bias) rebiased to fp32's 127, or
// subnormal m x 2^(1 - bias - mantissa_bits). Exact in fp32 for every format here.
inline float finite_minifloat_to_float(uint32_t sign, uint32_t exponent, uint32_t mantissa, uint32_t mantissa_bits,
                                       uint32_t bias) {
  if (exponent != 0)
    return bits_as_float(sign | ((exponent + 127u - bias) << 23) | (mantissa << (23u - mantissa_bits)));
  const float subnormal_unit = bits_as_float((128u - bias - mantissa_bits) << 23);  // 2^(1 - bias - mantissa_bits)
  const float magnitude = static_cast<float>(mantissa) * subnormal_unit;
  return sign ? -magnitude : magnitude;
}
}  // namespace detail

// ---- bf16: fp32 with the low 16 mantissa bits dropped -----------------------------------------
inline uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = float_as_bits(f);
  if ((u & detail::kF32AbsMask) > detail::kF32InfBits) return detail::kCanonicalNan16;
  // Round to nearest even on the 16 dropped bits: add 0x7FFF plus the lowest kept bit; a carry into
  // the exponent is the right answer (it also turns values past the largest bf16 into Inf).
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16_bits_to_float(uint16_t b) { return bits_as_float(static_cast<uint32_t>(b) << 16); }

// ---- fp16: 1 sign, 5 exponent (bias 15), 10 mantissa bits ---------------------------------------
inline uint16_t float_to_fp16_bits(float f) {
  const uint32_t u = float_as_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & detail::kF32AbsMask;
  if (a > detail::kF32InfBits) return detail::kCanonicalNan16;
  // 0x477FF000 = 65520 = largest fp16 (65504) + half its ulp (32/2); the tie rounds to Inf because
  // 65504's mantissa (0x3FF) is odd.
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a >= 0x38800000u) {  // >= 2^-14, the smallest normal fp16
    // Rebias the exponent from 127 to 15 (subtract 112 << 23), then drop 13 mantissa bits (RNE).
    const uint32_t rebased = a - 0x38000000u;
    return static_cast<uint16_t>(sign | ((rebased + 0xFFFu + ((rebased >> 13) & 1u)) >> 13));
  }
  // <= 2^-25 (half the smallest subnormal 2^-24): rounds to zero (the tie goes to the even 0).
  if (a <= 0x33000000u) return static_cast<uint16_t>(sign);
  // Subnormal: value = m * 2^(e-150) with the implicit bit in m; in units of 2^-24 that is
  // m * 2^(e-126), so shift right by 126 - e (e in [102, 112] -> shift in [14, 24]).
  return static_cast<uint16_t>(sign | detail::subnormal_code_rne(a, 126u));
}
inline float fp16_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return bits_as_float(sign | detail::kF32InfBits | (mantissa << 13));  // Inf, NaN
  return detail::finite_minifloat_to_float(sign, exponent, mantissa, 10, 15);
}

// ---- e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; max 448, no Inf, NaN = S.1111.111 ----
inline uint8_t float_to_e4m3_bits(float f) {
  const uint32_t u = float_as_bits(f);
  const uint32_t a = u & detail::kF32AbsMask;
  const uint32_t sign = (u >> 24) & 0x80u;
  if (a > detail::kF32InfBits) return 0x7Fu;
  // 0x43E80000 = 464 = 448 + half of the ulp (32) at the top binade: above it, saturate (Inf too).
  // 464 itself is a tie that rounds to the even 448, so the same code results either way.
  if (a > 0x43E80000u) return static_cast<uint8_t>(sign | 0x7Eu);
  if (a <= 0x3A800000u) return static_cast<uint8_t>(sign);  // <= 2^-10: half the smallest subnormal 2^-9
  const uint32_t e = a >> 23;
  if (e >= 121u) {  // >= 2^-6 (fp32 exponent field 121): normal e4m3, exponent field e - 120
    const uint32_t truncated = ((e - 120u) << 3) | ((a >> 20) & 0x7u);
    const uint32_t dropped = a & 0xFFFFFu;  // the 20 fp32 mantissa bits below e4m3's 3
    const bool round_up = dropped > 0x80000u || (dropped == 0x80000u && (truncated & 1u));
    return static_cast<uint8_t>(sign | (truncated + (round_up ? 1u : 0u)));
  }
  // Subnormal: in units of 2^-9 the value is m * 2^(e-141) -> shift by 141 - e (e in [117, 120]).
  // Rounding up to 8 gives 0x08, which is exactly 2^-6, the smallest normal.
  return static_cast<uint8_t>(sign | detail::subnormal_code_rne(a, 141u));
}
inline float e4m3_bits_to_float(uint8_t c) {
  const uint32_t sign = static_cast<uint32_t>(c & 0x80u) << 24;
  const uint32_t exponent = (c >> 3) & 0xFu;
  const uint32_t mantissa = c & 0x7u;
  if (exponent == 0xFu && mantissa == 0x7u) return bits_as_float(0x7FC00000u);  // NaN
  return detail::finite_minifloat_to_float(sign, exponent, mantissa, 3, 7);
}

// ---- e2m1: 1 sign, 2 exponent (bias 1), 1 mantissa bit; magnitudes 0 .5 1 1.5 2 3 4 6 ------------
inline uint8_t float_to_e2m1_bits(float f) {
  const uint32_t u = float_as_bits(f);
  const uint32_t a_bits = u & detail::kF32AbsMask;
  if (a_bits > detail::kF32InfBits) return 0x7u;  // NaN -> +6, as the toolkit does
  const uint32_t sign = (u >> 28) & 0x8u;
  const float a = bits_as_float(a_bits);
  // The magnitude code counts the rounding boundaries (midpoints of the grid) that |f| has passed.
  // At a midpoint the tie goes to the even code: '>' where the lower neighbour's code is even,
  // '>=' where the upper one is. Above 5 everything, Inf included, ends at 7 (= 6.0, saturated).
  const uint32_t code = static_cast<uint32_t>(a > 0.25f) + static_cast<uint32_t>(a >= 0.75f) +
                        static_cast<uint32_t>(a > 1.25f) + static_cast<uint32_t>(a >= 1.75f) +
                        static_cast<uint32_t>(a > 2.5f) + static_cast<uint32_t>(a >= 3.5f) +
                        static_cast<uint32_t>(a > 5.0f);
  return static_cast<uint8_t>(sign | code);
}
inline float e2m1_bits_to_float(uint8_t c) {
  // Magnitude grid of e2m1 (OCP MX spec): subnormal 0, 0.5; normals 1, 1.5, 2, 3, 4, 6.
  static constexpr float kMagnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float magnitude = kMagnitude[c & 0x7u];
  return (c & 0x8u) ? -magnitude : magnitude;
}

// ---- dtype-generic helpers (T = bf16, fp16 or fp32) ---------------------------------------------
// Bit pattern of f rounded to T (fp32: the float's own bits).
inline uint32_t float_to_bits(DType t, float f) {
  switch (t) {
    case DType::bf16: return float_to_bf16_bits(f);
    case DType::fp16: return float_to_fp16_bits(f);
    case DType::fp32: break;
  }
  return float_as_bits(f);
}
inline float bits_to_float(DType t, uint32_t bits) {
  switch (t) {
    case DType::bf16: return bf16_bits_to_float(static_cast<uint16_t>(bits));
    case DType::fp16: return fp16_bits_to_float(static_cast<uint16_t>(bits));
    case DType::fp32: break;
  }
  return bits_as_float(bits);
}
// Value of f after rounding to T (fp32: identity). NaN comes back as T's canonical NaN.
inline float round_to(DType t, float f) {
  switch (t) {
    case DType::bf16: return bf16_bits_to_float(float_to_bf16_bits(f));
    case DType::fp16: return fp16_bits_to_float(float_to_fp16_bits(f));
    case DType::fp32: break;
  }
  return f;
}

// Correctly rounded (nearest, ties to even) T bit pattern of a double, without the double rounding
// that double -> float -> T would risk: the double is first rounded to float *to odd* (truncate,
// then set the last bit if anything was dropped), which keeps the information needed for the
// second rounding because fp32 has at least 2 more mantissa bits than bf16/fp16.
uint32_t double_to_bits(DType t, double d);

}  // namespace arlab::ref
