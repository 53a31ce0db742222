// The kernels of kernels/soak_reference.h.
#include "kernels/soak_reference.h"

#include "kernels/dtype_traits.cuh"

namespace arlab::kernels {
namespace {

using Bf16 = DTypeTraits<__nv_bfloat16>;
constexpr int kThreads = 256;  // one block per token; any size works, the sum order is per element
constexpr unsigned kSignBit = 0x8000u;

__device__ __forceinline__ unsigned load_bits(const void* base, long long i) {
  return static_cast<const unsigned short*>(base)[i];
}
__device__ __forceinline__ void store_bits(void* base, long long i, unsigned bits) {
  static_cast<unsigned short*>(base)[i] = static_cast<unsigned short>(bits);
}
__device__ __forceinline__ unsigned plus_zero(unsigned bits) { return bits == Bf16::kNegZero ? 0u : bits; }

__global__ void soak_reference_kernel(const SoakReferenceParams p) {
  __shared__ float partial[kThreads];
  const int t = blockIdx.x;
  const long long row = static_cast<long long>(t) * p.hidden;
  float sum_sq = 0.0f;
  for (int e = threadIdx.x; e < p.hidden; e += blockDim.x) {
    // Pairwise accumulation in rank order, rounding to bf16 after every add; -0 inputs read as +0.
    float acc = Bf16::to_float(plus_zero(load_bits(p.x[0], row + e)));
    for (int r = 1; r < p.nranks; ++r)
      acc = Bf16::to_float(Bf16::from_float(__fadd_rn(acc, Bf16::to_float(plus_zero(load_bits(p.x[r], row + e))))));
    const unsigned s = Bf16::from_float(acc);
    if (!p.with_norm) {
      store_bits(p.sum_out, row + e, s);
      continue;
    }
    const float res = Bf16::to_float(load_bits(p.residual_in, row + e));
    const unsigned h = Bf16::from_float(__fadd_rn(Bf16::to_float(s), res));
    store_bits(p.sum_out, row + e, h);
    const float hf = Bf16::to_float(h);
    sum_sq = __fadd_rn(sum_sq, __fmul_rn(hf, hf));
  }
  if (!p.with_norm) return;
  partial[threadIdx.x] = sum_sq;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = __fadd_rn(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  const float inv = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(partial[0], static_cast<float>(p.hidden)), p.eps)));
  for (int e = threadIdx.x; e < p.hidden; e += blockDim.x) {
    const float hf = Bf16::to_float(load_bits(p.sum_out, row + e));
    const float g = Bf16::to_float(load_bits(p.gamma, e));
    store_bits(p.norm_out, row + e, Bf16::from_float(__fmul_rn(__fmul_rn(hf, inv), g)));
  }
}

// Distance in representable bf16 values between two bit patterns (sign-magnitude to ordered).
__device__ __forceinline__ int ulp_distance(unsigned a, unsigned b) {
  const int oa = (a & kSignBit) ? -static_cast<int>(a & 0x7FFFu) : static_cast<int>(a);
  const int ob = (b & kSignBit) ? -static_cast<int>(b & 0x7FFFu) : static_cast<int>(b);
  return oa > ob ? oa - ob : ob - oa;
}

__global__ void soak_compare_kernel(const SoakCompareParams p) {
  unsigned long long sum_bad = 0, norm_bad = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.elements; i += stride) {
    sum_bad += load_bits(p.sum, i) != load_bits(p.expected_sum, i) ? 1 : 0;
    if (p.norm) norm_bad += ulp_distance(load_bits(p.norm, i), load_bits(p.expected_norm, i)) > 1 ? 1 : 0;
  }
  if (sum_bad) atomicAdd(&p.counters[0], sum_bad);
  if (norm_bad) atomicAdd(&p.counters[1], norm_bad);
}

}  // namespace

cudaError_t launch_soak_reference(const SoakReferenceParams& p, cudaStream_t stream) {
  soak_reference_kernel<<<p.tokens, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

cudaError_t launch_soak_compare(const SoakCompareParams& p, cudaStream_t stream) {
  constexpr int kBlocks = 64;  // a grid-stride loop; enough blocks to read a few MB quickly
  soak_compare_kernel<<<kBlocks, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace arlab::kernels
