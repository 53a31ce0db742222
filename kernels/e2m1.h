// The NVFP4 element code of the fused kernels' epilogue (kernels/fused_epilogue.cuh): float -> e2m1,
// round to nearest, ties to even, saturating, as the CUDA toolkit's __nv_cvt_float_to_fp4(x,
// __NV_E2M1, cudaRoundNearest) gives it (docs/operation.md). On sm_90 the toolkit has no e2m1
// instruction (cvt.rn.satfinite.e2m1x2.f32 needs sm_100a), so its conversion widens to double and
// rounds with integer bit manipulation and branches: measured on the emulated H200 it made an NVFP4
// token round 2-4 us longer than an FP8 one (docs/kernels.md, "NVFP4 on sm_90"). This one compares
// the magnitude with the grid's seven rounding boundaries instead, with no branch but the NaN test.
// Plain C++ as well (ARLAB_HD), so a CPU test checks it against the toolkit's host-side conversion
// (tests/reference/test_dtypes_oracle.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "common/host_device.h"

namespace arlab::kernels {

// 4-bit code in the low nibble: sign (bit 3), magnitude code 0..7 for 0, 0.5, 1, 1.5, 2, 3, 4, 6.
ARLAB_HD inline unsigned e2m1_code(float x) {
#if defined(__CUDA_ARCH__)
  const unsigned bits = __float_as_uint(x);
#else
  unsigned bits = 0;
  std::memcpy(&bits, &x, sizeof(bits));
#endif
  const unsigned abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return 0x7u;  // any NaN: +6, sign dropped (the toolkit's choice)
  float a = x;
  if (bits >> 31) a = -x;  // |x| (the sign is in `bits`)
  // The magnitude code counts the rounding boundaries (midpoints between neighbouring grid values)
  // that |x| has passed. At a midpoint the tie goes to the even code: '>' where the lower neighbour's
  // code is even, '>=' where the upper one's is. Above 5 everything, +-Inf included, ends at 7 (6.0).
  const unsigned code = static_cast<unsigned>(a > 0.25f) + static_cast<unsigned>(a >= 0.75f) +
                        static_cast<unsigned>(a > 1.25f) + static_cast<unsigned>(a >= 1.75f) +
                        static_cast<unsigned>(a > 2.5f) + static_cast<unsigned>(a >= 3.5f) +
                        static_cast<unsigned>(a > 5.0f);
  return ((bits >> 28) & 0x8u) | code;
}

}  // namespace arlab::kernels
