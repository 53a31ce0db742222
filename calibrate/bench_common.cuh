// Device helpers and the typed launch of the single-rank benches.
#pragma once

#include <cuda_runtime.h>

#include "calibrate/bench_common.h"
#include "harness/check.h"

namespace arlab::calibrate {

__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Launches `kernel` with shape `s` on `stream` through cudaLaunchKernelEx (so CUPTI tags it);
// errors throw CudaError naming `rank`.
template <typename... Params, typename... Args>
void launch(const Shape& s, cudaStream_t stream, int rank, void (*kernel)(Params...), Args... args) {
  cudaLaunchAttribute attr{};
  const cudaLaunchConfig_t cfg = launch_config(s, stream, attr);
  ARLAB_CUDA_CHECK_RANK(rank, cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...));
}

}  // namespace arlab::calibrate
