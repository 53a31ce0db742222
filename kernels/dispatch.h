// The one dispatch point of the fused kernels: (kernel body, algorithm, dtype, N, pattern,
// accumulation) -> kernel function, and the thin host launcher. The launcher takes the launch
// configuration as given (policies in model/ choose it), never allocates, synchronizes or queries
// the device, and returns the CUDA status of the launch. Every kernel body of common/implementations.h
// sits behind the same key, with the algorithms kernels/families.cmake gives it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "kernels/fused_params.h"

namespace arlab::kernels {

struct KernelKey {
  Algorithm algo = Algorithm::oneshot;
  DType dtype = DType::bf16;
  int nranks = 2;
  Pattern pattern = Pattern::ar_res_rms;
  Accumulation acc = Accumulation::pairwise;
  Impl body = Impl::reference;  // a fused kernel body of common/implementations.h
};

inline KernelKey kernel_key(const Problem& p, Impl body = Impl::reference) {
  return {p.algo, p.dtype, p.nranks, p.pattern, p.acc, body};
}

struct FusedKernel {
  const void* fn = nullptr;  // the __global__ function (for cudaLaunchKernelExC, cudaFuncGetAttributes)
  KernelKey key;
  std::string name;          // e.g. "oneshot<bf16,N=2,ar_res_rms,pairwise>", "oneshot_lean<bf16,N=2,...>"
};

std::string kernel_name(const KernelKey& key);

// The kernel for `key`; throws InvalidArgument naming the value when none exists (N outside
// {2,4,8,16}, NVFP4 with fp32, a baseline, a body without a kernel of that algorithm).
FusedKernel find_fused_kernel(const KernelKey& key);

// Every instantiated kernel (for the registers table and one-time attribute queries), family by
// family in kernels/families.cmake order.
std::vector<KernelKey> all_kernel_keys();

// Dynamic shared memory the kernel needs for this launch: the NVFP4 amax exchange when tpb is odd.
size_t fused_dynamic_smem_bytes(const KernelKey& key, const LaunchConfig& cfg);

// Launches the fused kernel: grid x tpb blocks, clusters of cfg.cluster blocks, programmatic
// dependent launch when cfg.pdl. Asynchronous; returns the launch status.
cudaError_t launch_fused(const FusedKernel& kernel, const FusedParams& params, const LaunchConfig& cfg,
                         cudaStream_t stream);

}  // namespace arlab::kernels
