// reference/dtypes.h and reference/ulp.h on exhaustive round trips and hand-known values (the
// comparison against the CUDA toolkit itself is test_dtypes_oracle.cpp).
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/dtypes.h"
#include "reference/ulp.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::ref;

namespace {
float pow2(int e) { return std::ldexp(1.0f, e); }
const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("every bf16 bit pattern round-trips through float", "[dtypes]") {
  int nans = 0;
  for (uint32_t b = 0; b <= 0xFFFFu; ++b) {
    const float f = bf16_bits_to_float(static_cast<uint16_t>(b));
    if (is_nan_bits(DType::bf16, b)) {
      ++nans;
      REQUIRE(std::isnan(f));
      REQUIRE(float_to_bf16_bits(f) == 0x7FFFu);
    } else {
      REQUIRE(float_to_bf16_bits(f) == b);
    }
  }
  REQUIRE(nans == 2 * 127);  // exponent all ones, mantissa != 0, both signs
}

TEST_CASE("every fp16 bit pattern round-trips through float", "[dtypes]") {
  int nans = 0;
  for (uint32_t b = 0; b <= 0xFFFFu; ++b) {
    const float f = fp16_bits_to_float(static_cast<uint16_t>(b));
    if (is_nan_bits(DType::fp16, b)) {
      ++nans;
      REQUIRE(std::isnan(f));
      REQUIRE(float_to_fp16_bits(f) == 0x7FFFu);
    } else {
      REQUIRE(float_to_fp16_bits(f) == b);
    }
  }
  REQUIRE(nans == 2 * 1023);
}

TEST_CASE("bf16 rounding: ties to even, overflow, NaN", "[dtypes]") {
  CHECK(float_to_bf16_bits(1.0f) == 0x3F80u);
  CHECK(float_to_bf16_bits(1.0f + pow2(-8)) == 0x3F80u);                // tie between 0x3F80 and 0x3F81 -> even
  CHECK(float_to_bf16_bits(1.0f + 3 * pow2(-8)) == 0x3F82u);            // tie between 0x3F81 and 0x3F82 -> even
  CHECK(float_to_bf16_bits(1.0f + pow2(-8) + pow2(-20)) == 0x3F81u);    // just above the tie
  CHECK(float_to_bf16_bits(-1.0f) == 0xBF80u);
  CHECK(float_to_bf16_bits(std::numeric_limits<float>::max()) == 0x7F80u);  // rounds up to Inf
  CHECK(float_to_bf16_bits(-kInf) == 0xFF80u);
  CHECK(float_to_bf16_bits(-kNan) == 0x7FFFu);                          // canonical NaN, sign dropped
  CHECK(float_to_bf16_bits(bits_as_float(0x00010000u)) == 0x0001u);     // smallest subnormal kept
  CHECK(float_to_bf16_bits(-0.0f) == 0x8000u);
}

TEST_CASE("fp16 rounding: ties, overflow threshold, subnormals", "[dtypes]") {
  CHECK(float_to_fp16_bits(1.0f) == 0x3C00u);
  CHECK(float_to_fp16_bits(65504.0f) == 0x7BFFu);                       // largest fp16
  CHECK(float_to_fp16_bits(65519.996f) == 0x7BFFu);                     // below max + half ulp (65520)
  CHECK(float_to_fp16_bits(65520.0f) == 0x7C00u);                       // the tie goes to Inf (0x3FF is odd)
  CHECK(float_to_fp16_bits(-1e6f) == 0xFC00u);
  CHECK(float_to_fp16_bits(pow2(-14)) == 0x0400u);                      // smallest normal
  CHECK(float_to_fp16_bits(pow2(-24)) == 0x0001u);                      // smallest subnormal
  CHECK(float_to_fp16_bits(pow2(-25)) == 0x0000u);                      // half of it: tie -> even 0
  CHECK(float_to_fp16_bits(1.5f * pow2(-25)) == 0x0001u);
  CHECK(float_to_fp16_bits(3.0f * pow2(-25)) == 0x0002u);               // 1.5 * 2^-24: tie -> even 2
  CHECK(float_to_fp16_bits(-pow2(-26)) == 0x8000u);                     // underflow keeps the sign
  CHECK(float_to_fp16_bits(pow2(-14) - pow2(-26)) == 0x0400u);          // subnormal rounding up into the normals
  CHECK(float_to_fp16_bits(1.0f + pow2(-11)) == 0x3C00u);               // tie -> even
  CHECK(float_to_fp16_bits(1.0f + 3 * pow2(-11)) == 0x3C02u);
  CHECK(float_to_fp16_bits(kNan) == 0x7FFFu);
  CHECK(float_to_fp16_bits(kInf) == 0x7C00u);
}

TEST_CASE("all 256 e4m3 codes decode to their hand-known values", "[dtypes]") {
  CHECK(e4m3_bits_to_float(0x7E) == 448.0f);
  CHECK(e4m3_bits_to_float(0xFE) == -448.0f);
  CHECK(e4m3_bits_to_float(0x01) == pow2(-9));      // smallest subnormal
  CHECK(e4m3_bits_to_float(0x07) == 7 * pow2(-9));  // largest subnormal
  CHECK(e4m3_bits_to_float(0x08) == pow2(-6));      // smallest normal
  CHECK(e4m3_bits_to_float(0x38) == 1.0f);          // exponent field 7 = bias
  CHECK(e4m3_bits_to_float(0x3F) == 1.875f);
  CHECK(e4m3_bits_to_float(0x40) == 2.0f);
  CHECK(e4m3_bits_to_float(0x7D) == 416.0f);
  CHECK(std::isnan(e4m3_bits_to_float(0x7F)));
  CHECK(std::isnan(e4m3_bits_to_float(0xFF)));
  CHECK(std::signbit(e4m3_bits_to_float(0x80)));
  CHECK(e4m3_bits_to_float(0x80) == 0.0f);
  // The general rule: (-1)^s * 2^(e-7) * (1 + m/8), subnormal 2^-6 * m/8; strictly increasing.
  float previous = -1.0f;
  for (int c = 0; c < 0x7F; ++c) {
    const int e = c >> 3, m = c & 7;
    const float want = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1.0f + m / 8.0f, e - 7);
    REQUIRE(e4m3_bits_to_float(static_cast<uint8_t>(c)) == want);
    REQUIRE(e4m3_bits_to_float(static_cast<uint8_t>(c | 0x80)) == -want);
    REQUIRE(want > previous);
    previous = want;
    // and every code re-encodes to itself
    REQUIRE(float_to_e4m3_bits(want) == c);
    REQUIRE(float_to_e4m3_bits(-want) == (c | 0x80));
  }
}

TEST_CASE("e4m3 encoding: ties, saturation, underflow, NaN", "[dtypes]") {
  CHECK(float_to_e4m3_bits(1.0625f) == 0x38);     // tie between 1.0 (0x38) and 1.125 (0x39) -> even
  CHECK(float_to_e4m3_bits(1.1875f) == 0x3A);     // tie between 0x39 and 0x3A -> even
  CHECK(float_to_e4m3_bits(464.0f) == 0x7E);      // tie between 448 and (absent) 480 -> 448
  CHECK(float_to_e4m3_bits(465.0f) == 0x7E);      // saturates (satfinite)
  CHECK(float_to_e4m3_bits(1e30f) == 0x7E);
  CHECK(float_to_e4m3_bits(kInf) == 0x7E);
  CHECK(float_to_e4m3_bits(-kInf) == 0xFE);
  CHECK(float_to_e4m3_bits(-1000.0f) == 0xFE);
  CHECK(float_to_e4m3_bits(kNan) == 0x7F);
  CHECK(float_to_e4m3_bits(-kNan) == 0x7F);       // the toolkit drops the NaN's sign
  CHECK(float_to_e4m3_bits(pow2(-10)) == 0x00);   // half the smallest subnormal: tie -> 0
  CHECK(float_to_e4m3_bits(-pow2(-10)) == 0x80);
  CHECK(float_to_e4m3_bits(1.5f * pow2(-10)) == 0x01);
  CHECK(float_to_e4m3_bits(3.0f * pow2(-10)) == 0x02);  // 1.5 * 2^-9: tie -> even 2
  CHECK(float_to_e4m3_bits(pow2(-6) - pow2(-11)) == 0x08);  // rounds up out of the subnormals
  CHECK(float_to_e4m3_bits(-0.0f) == 0x80);
}

TEST_CASE("e2m1: all 16 codes and the rounding grid", "[dtypes]") {
  const float grid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int c = 0; c < 8; ++c) {
    CHECK(e2m1_bits_to_float(static_cast<uint8_t>(c)) == grid[c]);
    CHECK(e2m1_bits_to_float(static_cast<uint8_t>(c | 8)) == -grid[c]);
    CHECK(float_to_e2m1_bits(grid[c]) == c);
    CHECK(float_to_e2m1_bits(-grid[c]) == (c | 8));
  }
  // midpoints: ties go to the even code
  CHECK(float_to_e2m1_bits(0.25f) == 0);
  CHECK(float_to_e2m1_bits(0.75f) == 2);
  CHECK(float_to_e2m1_bits(1.25f) == 2);
  CHECK(float_to_e2m1_bits(1.75f) == 4);
  CHECK(float_to_e2m1_bits(2.5f) == 4);
  CHECK(float_to_e2m1_bits(3.5f) == 6);
  CHECK(float_to_e2m1_bits(5.0f) == 6);
  CHECK(float_to_e2m1_bits(5.001f) == 7);
  CHECK(float_to_e2m1_bits(0.2501f) == 1);
  // saturation, specials
  CHECK(float_to_e2m1_bits(100.0f) == 7);
  CHECK(float_to_e2m1_bits(-100.0f) == 0xF);
  CHECK(float_to_e2m1_bits(kInf) == 7);
  CHECK(float_to_e2m1_bits(-kInf) == 0xF);
  CHECK(float_to_e2m1_bits(kNan) == 7);
  CHECK(float_to_e2m1_bits(-kNan) == 7);
  CHECK(float_to_e2m1_bits(-0.0f) == 8);
  CHECK(float_to_e2m1_bits(-0.1f) == 8);
}

TEST_CASE("round_to and the dtype-generic helpers", "[dtypes]") {
  CHECK(round_to(DType::fp32, 1.0f + pow2(-20)) == 1.0f + pow2(-20));
  CHECK(round_to(DType::bf16, 1.0f + pow2(-8)) == 1.0f);
  CHECK(round_to(DType::fp16, 1.0f + pow2(-11)) == 1.0f);
  CHECK(round_to(DType::fp16, 70000.0f) == kInf);
  CHECK(std::isnan(round_to(DType::bf16, kNan)));
  CHECK(float_to_bits(DType::fp32, 1.0f) == 0x3F800000u);
  CHECK(bits_to_float(DType::fp16, 0x3C00u) == 1.0f);
}

TEST_CASE("double_to_bits rounds once, avoiding double rounding", "[dtypes]") {
  // 1 + 2^-8 + 2^-30: just above the bf16 tie. Rounding to float first lands exactly on the tie
  // (1 + 2^-8), which would then go to the even 1.0; the correct bf16 is 1 + 2^-7 (0x3F81).
  const double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  CHECK(float_to_bf16_bits(static_cast<float>(d)) == 0x3F80u);  // the trap
  CHECK(double_to_bits(DType::bf16, d) == 0x3F81u);
  CHECK(double_to_bits(DType::fp16, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)) == 0x3C01u);
  CHECK(double_to_bits(DType::fp16, -1.0 - std::ldexp(1.0, -11) - std::ldexp(1.0, -40)) == 0xBC01u);
  CHECK(double_to_bits(DType::bf16, 1.0 + std::ldexp(1.0, -8)) == 0x3F80u);  // exact tie stays a tie
  CHECK(double_to_bits(DType::fp32, 0.1) == float_as_bits(0.1f));
  CHECK(double_to_bits(DType::fp16, 1e300) == 0x7C00u);
  CHECK(double_to_bits(DType::bf16, -1e300) == 0xFF80u);
  CHECK(double_to_bits(DType::fp16, 1e-300) == 0x0000u);
  CHECK(is_nan_bits(DType::fp16, double_to_bits(DType::fp16, std::nan(""))));
}

TEST_CASE("ulp and step distances", "[dtypes]") {
  CHECK(ulp_distance(DType::bf16, 0x3F80u, 0x3F81u) == 1);
  CHECK(ulp_distance(DType::bf16, 0x3F81u, 0x3F80u) == 1);
  CHECK(ulp_distance(DType::bf16, 0x0000u, 0x8000u) == 0);  // +0 and -0
  CHECK(ulp_distance(DType::fp16, 0x0001u, 0x8001u) == 2);  // across zero
  CHECK(ulp_distance(DType::fp16, 0x7BFFu, 0x7C00u) == 1);  // max to Inf
  CHECK(ulp_distance(DType::fp32, 0x3F800000u, 0x3F800003u) == 3);
  CHECK(ulp_distance(DType::fp16, 0x7E00u, 0x7FFFu) == 0);  // two NaNs
  CHECK(ulp_distance(DType::bf16, 0x7FFFu, 0x3F80u) == kNanDistance);
  CHECK(e4m3_step_distance(0x38, 0x39) == 1);
  CHECK(e4m3_step_distance(0x01, 0x81) == 2);
  CHECK(e4m3_step_distance(0x7F, 0xFF) == 0);
  CHECK(e4m3_step_distance(0x7F, 0x7E) == kNanDistance);
  CHECK(e2m1_step_distance(0x7, 0x6) == 1);
  CHECK(e2m1_step_distance(0x1, 0x9) == 2);
  CHECK(e2m1_step_distance(0x0, 0x8) == 0);
}
