// reference/dtypes.h against the CUDA toolkit's own host-side conversions (the independent oracle
// docs/operation.md asks for): float -> bf16 / fp16 / e4m3 / e2m1 on >= 1e6 random bit patterns, >= 1e6
// random values in each format's interesting range, every rounding midpoint (+-1 float ulp),
// subnormals, NaN, +-Inf and overflow; and every code's decoding.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/e2m1.h"
#include "reference/dtypes.h"
#include "tests/catch.h"

using namespace arlab::ref;

namespace {

// The toolkit's conversions, as raw bits.
uint32_t toolkit_bf16(float f) { return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(f)).x; }
uint32_t toolkit_fp16(float f) { return static_cast<__half_raw>(__float2half_rn(f)).x; }
uint32_t toolkit_e4m3(float f) { return __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3); }
uint32_t toolkit_e2m1(float f) { return __nv_cvt_float_to_fp4(f, __NV_E2M1, cudaRoundNearest); }

uint32_t ours_bf16(float f) { return float_to_bf16_bits(f); }
uint32_t ours_fp16(float f) { return float_to_fp16_bits(f); }
uint32_t ours_e4m3(float f) { return float_to_e4m3_bits(f); }
uint32_t ours_e2m1(float f) { return float_to_e2m1_bits(f); }
uint32_t kernel_e2m1(float f) { return arlab::kernels::e2m1_code(f); }  // the fused kernels' own, host-compiled

constexpr int kRandomCount = 1 << 20;  // >= 1e6 per family, as the issue asks

// Special inputs every conversion must agree on.
std::vector<float> special_values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(), bits_as_float(0x7F800001u) /* signalling */,
                          bits_as_float(0xFFC12345u), std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()};
  return v;
}

// Values around every midpoint between consecutive finite codes of a format (decoded by `decode`
// from codes 0..max_code): the midpoint itself and one float ulp either side, both signs.
template <class Decode>
std::vector<float> midpoints(Decode decode, uint32_t max_code) {
  std::vector<float> v;
  for (uint32_t c = 0; c < max_code; ++c) {
    const double lo = decode(c), hi = decode(c + 1);
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    const auto mid = static_cast<float>((lo + hi) / 2);  // exact: the formats are narrower than fp32
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
      v.push_back(m);
      v.push_back(-m);
    }
  }
  return v;
}

std::vector<float> random_bit_patterns(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(kRandomCount);
  for (float& f : v) f = bits_as_float(static_cast<uint32_t>(rng()));
  return v;
}

// Log-uniform magnitudes in [2^lo, 2^hi), random sign: dense around every binade of the format.
std::vector<float> random_in_range(uint32_t seed, double lo_exp, double hi_exp) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(kRandomCount);
  for (float& f : v) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double magnitude = std::exp2(lo_exp + (hi_exp - lo_exp) * u);
    f = static_cast<float>((rng() & 1) ? -magnitude : magnitude);
  }
  return v;
}

template <class Ours, class Toolkit>
void require_same(const std::vector<float>& inputs, Ours ours, Toolkit toolkit) {
  int64_t mismatches = 0;
  for (float f : inputs) {
    const uint32_t a = ours(f), b = toolkit(f);
    if (a != b) {
      if (mismatches == 0) {
        INFO("input bits " << std::hex << float_as_bits(f) << " (" << f << "): arlab " << a << ", toolkit " << b);
        CHECK(a == b);
      }
      ++mismatches;
    }
  }
  REQUIRE(mismatches == 0);
}

}  // namespace

TEST_CASE("float -> bf16 matches __float2bfloat16_rn", "[oracle]") {
  require_same(random_bit_patterns(1), ours_bf16, toolkit_bf16);
  require_same(random_in_range(2, -140, 128), ours_bf16, toolkit_bf16);
  require_same(special_values(), ours_bf16, toolkit_bf16);
  require_same(midpoints([](uint32_t c) { return bf16_bits_to_float(static_cast<uint16_t>(c)); }, 0x7F7F),
               ours_bf16, toolkit_bf16);
}

TEST_CASE("float -> fp16 matches __float2half_rn", "[oracle]") {
  require_same(random_bit_patterns(3), ours_fp16, toolkit_fp16);
  require_same(random_in_range(4, -27, 17), ours_fp16, toolkit_fp16);  // subnormals to overflow
  require_same(special_values(), ours_fp16, toolkit_fp16);
  std::vector<float> mids = midpoints([](uint32_t c) { return fp16_bits_to_float(static_cast<uint16_t>(c)); }, 0x7BFF);
  for (float f : {65504.0f, 65519.0f, 65520.0f, 65521.0f, 70000.0f}) mids.push_back(f);  // overflow edge
  require_same(mids, ours_fp16, toolkit_fp16);
}

TEST_CASE("float -> e4m3 matches __nv_cvt_float_to_fp8(SATFINITE, E4M3)", "[oracle]") {
  require_same(random_bit_patterns(5), ours_e4m3, toolkit_e4m3);
  require_same(random_in_range(6, -12, 10), ours_e4m3, toolkit_e4m3);  // below 2^-10 to above 448
  require_same(special_values(), ours_e4m3, toolkit_e4m3);
  std::vector<float> mids = midpoints([](uint32_t c) { return e4m3_bits_to_float(static_cast<uint8_t>(c)); }, 0x7E);
  for (float f : {448.0f, 463.0f, 464.0f, 465.0f, 480.0f, 1e6f}) mids.push_back(f);  // saturation edge
  require_same(mids, ours_e4m3, toolkit_e4m3);
}

TEST_CASE("float -> e2m1 matches __nv_cvt_float_to_fp4(E2M1, cudaRoundNearest)", "[oracle]") {
  require_same(random_bit_patterns(7), ours_e2m1, toolkit_e2m1);
  require_same(random_in_range(8, -4, 4), ours_e2m1, toolkit_e2m1);
  require_same(special_values(), ours_e2m1, toolkit_e2m1);
  std::vector<float> mids = midpoints([](uint32_t c) { return e2m1_bits_to_float(static_cast<uint8_t>(c)); }, 7);
  for (float f : {6.0f, 6.5f, 7.0f, 100.0f}) mids.push_back(f);
  require_same(mids, ours_e2m1, toolkit_e2m1);
}

TEST_CASE("the kernels' e2m1 conversion matches the toolkit on every float from 2^-3 to 8 and the rest", "[oracle]") {
  // kernels/e2m1.h replaces the toolkit's software path on sm_90; the same random families as above,
  // then every float of either sign whose magnitude lies in [2^-3, 2^3), where all seven rounding
  // boundaries are (2^-3 .. 2^3 is six binades: 2 x 6 x 2^23 inputs).
  require_same(random_bit_patterns(9), kernel_e2m1, toolkit_e2m1);
  require_same(random_in_range(10, -4, 4), kernel_e2m1, toolkit_e2m1);
  require_same(special_values(), kernel_e2m1, toolkit_e2m1);
  require_same(midpoints([](uint32_t c) { return e2m1_bits_to_float(static_cast<uint8_t>(c)); }, 7), kernel_e2m1,
               toolkit_e2m1);
  int64_t mismatches = 0;
  uint32_t first_mismatch = 0;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t b = float_as_bits(0.125f); b < float_as_bits(8.0f); ++b) {
      const float f = bits_as_float(sign | b);
      if (kernel_e2m1(f) != toolkit_e2m1(f) && mismatches++ == 0) first_mismatch = sign | b;
    }
  INFO("first mismatch at input bits " << std::hex << first_mismatch);
  REQUIRE(mismatches == 0);
}

TEST_CASE("decoding every code matches the toolkit", "[oracle]") {
  for (uint32_t b = 0; b <= 0xFFFFu; ++b) {
    __nv_bfloat16_raw br;
    br.x = static_cast<unsigned short>(b);
    __half_raw hr;
    hr.x = static_cast<unsigned short>(b);
    const float tb = __bfloat162float(__nv_bfloat16(br)), th = __half2float(__half(hr));
    const float ob = bf16_bits_to_float(static_cast<uint16_t>(b)), oh = fp16_bits_to_float(static_cast<uint16_t>(b));
    REQUIRE(std::isnan(tb) == std::isnan(ob));
    if (!std::isnan(tb)) REQUIRE(float_as_bits(tb) == float_as_bits(ob));
    REQUIRE(std::isnan(th) == std::isnan(oh));
    if (!std::isnan(th)) REQUIRE(float_as_bits(th) == float_as_bits(oh));
  }
  for (uint32_t c = 0; c < 256; ++c) {
    __nv_fp8_e4m3 t;
    t.__x = static_cast<__nv_fp8_storage_t>(c);
    const float tf = static_cast<float>(t), of = e4m3_bits_to_float(static_cast<uint8_t>(c));
    INFO("e4m3 code " << c);
    REQUIRE(std::isnan(tf) == std::isnan(of));
    if (!std::isnan(tf)) REQUIRE(float_as_bits(tf) == float_as_bits(of));
  }
  for (uint32_t c = 0; c < 16; ++c) {
    __nv_fp4_e2m1 t;
    t.__x = static_cast<__nv_fp4_storage_t>(c);
    INFO("e2m1 code " << c);
    REQUIRE(float_as_bits(static_cast<float>(t)) == float_as_bits(e2m1_bits_to_float(static_cast<uint8_t>(c))));
  }
}
