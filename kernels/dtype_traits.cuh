// Element types of the fused kernels as 16-byte vectors of raw bits (docs/operation.md): how many
// elements a vector holds, how an element converts to and from fp32 (round-to-nearest-even, the
// toolkit's conversions), and the bit pattern of -0.0, the one-shot "not arrived" mark.
// Elements are kept as bits so the protocol compares patterns, never floats.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "common/problem.h"

namespace arlab::kernels {

template <typename T>
struct DTypeTraits;

template <>
struct DTypeTraits<__nv_bfloat16> {
  static constexpr int kBytes = 2;
  static constexpr int kVec = 8;                       // elements per 16-byte vector
  static constexpr unsigned kNegZero = 0x8000u;        // -0.0 in bf16
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits << 16); }
  __device__ static unsigned from_float(float f) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
  }
};

template <>
struct DTypeTraits<__half> {
  static constexpr int kBytes = 2;
  static constexpr int kVec = 8;
  static constexpr unsigned kNegZero = 0x8000u;        // -0.0 in fp16
  __device__ static float to_float(unsigned bits) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  }
  __device__ static unsigned from_float(float f) { return __half_as_ushort(__float2half_rn(f)); }
};

template <>
struct DTypeTraits<float> {
  static constexpr int kBytes = 4;
  static constexpr int kVec = 4;
  static constexpr unsigned kNegZero = 0x80000000u;    // -0.0 in fp32
  __device__ static float to_float(unsigned bits) { return __uint_as_float(bits); }
  __device__ static unsigned from_float(float f) { return __float_as_uint(f); }
};

// The DType of an element type.
template <typename T>
constexpr DType dtype_of() {
  return std::is_same_v<T, float> ? DType::fp32 : std::is_same_v<T, __half> ? DType::fp16 : DType::bf16;
}

// Element e of a 16-byte vector held as four 32-bit words (little-endian: the even 16-bit element
// is the low half of its word).
template <typename T>
__device__ __forceinline__ unsigned vec_get(const uint4& v, int e) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
  if constexpr (DTypeTraits<T>::kBytes == 4) {
    return w[e];
  } else {
    return (e & 1) ? (w[e >> 1] >> 16) : (w[e >> 1] & 0xFFFFu);
  }
}

// Builds a vector from kVec element bit patterns.
template <typename T>
__device__ __forceinline__ uint4 vec_pack(const unsigned (&bits)[DTypeTraits<T>::kVec]) {
  if constexpr (DTypeTraits<T>::kBytes == 4) {
    return make_uint4(bits[0], bits[1], bits[2], bits[3]);
  } else {
    return make_uint4(bits[0] | (bits[1] << 16), bits[2] | (bits[3] << 16), bits[4] | (bits[5] << 16),
                      bits[6] | (bits[7] << 16));
  }
}

// True when no element of v is the -0.0 pattern: every element of this vector has arrived.
template <typename T>
__device__ __forceinline__ bool vec_arrived(const uint4& v) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
  bool ok = true;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (DTypeTraits<T>::kBytes == 4) {
      ok = ok && (w[i] != DTypeTraits<T>::kNegZero);
    } else {
      ok = ok && ((w[i] & 0xFFFFu) != DTypeTraits<T>::kNegZero) && ((w[i] >> 16) != DTypeTraits<T>::kNegZero);
    }
  }
  return ok;
}

// -0.0 -> +0.0 in every element (inputs equal to -0.0 are treated as +0.0, docs/operation.md); every other
// pattern, NaN and Inf included, is left exactly as it is.
template <typename T>
__device__ __forceinline__ uint4 vec_clear_neg_zero(uint4 v) {
  unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (DTypeTraits<T>::kBytes == 4) {
      w[i] = (w[i] == DTypeTraits<T>::kNegZero) ? 0u : w[i];
    } else {
      const unsigned lo = w[i] & 0xFFFFu, hi = w[i] >> 16;
      w[i] = (lo == DTypeTraits<T>::kNegZero ? 0u : lo) | ((hi == DTypeTraits<T>::kNegZero ? 0u : hi) << 16);
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// A vector whose every element is -0.0.
template <typename T>
__device__ __forceinline__ uint4 vec_neg_zero() {
  constexpr unsigned w = DTypeTraits<T>::kBytes == 4 ? DTypeTraits<T>::kNegZero
                                                    : (DTypeTraits<T>::kNegZero | (DTypeTraits<T>::kNegZero << 16));
  return make_uint4(w, w, w, w);
}

}  // namespace arlab::kernels
