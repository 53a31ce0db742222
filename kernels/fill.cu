// The pattern fill of kernels/fill.h.
#include "kernels/fill.h"

namespace arlab::kernels {

constexpr int kFillThreads = 256;     // one warp multiple; fill is bandwidth-bound
constexpr int kFillMaxBlocks = 4096;  // grid-stride beyond this

__global__ void fill_u32_kernel(uint4* dst, size_t nvec, uint32_t* tail, size_t ntail, uint32_t pattern) {
  const uint4 v = make_uint4(pattern, pattern, pattern, pattern);
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nvec; i += step) dst[i] = v;
  if (blockIdx.x == 0 && threadIdx.x < ntail) tail[threadIdx.x] = pattern;
}

cudaError_t launch_fill_u32(void* dst, size_t bytes, uint32_t pattern, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  if (reinterpret_cast<uintptr_t>(dst) % 16 != 0 || bytes % 4 != 0) return cudaErrorInvalidValue;
  const size_t nvec = bytes / 16;
  const size_t ntail = (bytes % 16) / 4;
  size_t blocks = (nvec + kFillThreads - 1) / kFillThreads;
  if (blocks == 0) blocks = 1;
  if (blocks > kFillMaxBlocks) blocks = kFillMaxBlocks;
  fill_u32_kernel<<<static_cast<unsigned>(blocks), kFillThreads, 0, stream>>>(
      static_cast<uint4*>(dst), nvec, reinterpret_cast<uint32_t*>(static_cast<char*>(dst) + nvec * 16), ntail, pattern);
  return cudaGetLastError();
}

}  // namespace arlab::kernels
