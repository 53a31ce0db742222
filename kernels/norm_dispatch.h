// The dispatch point and launcher of the separate residual-add + RMSNorm (+ FP8 / NVFP4) kernel of
// the baselines (kernels/norm_kernel.cu): (dtype, pattern) -> kernel. The launcher takes the
// launch configuration as given (model::separate_norm_config chooses it), never allocates,
// synchronizes or queries the device, and returns the launch status.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/launch_config.h"
#include "common/problem.h"
#include "kernels/fused_params.h"

namespace arlab::kernels {

struct NormKernel {
  const void* fn = nullptr;
  DType dtype = DType::bf16;
  Pattern pattern = Pattern::ar_res_rms;
  std::string name;  // e.g. "norm<bf16,ar_res_rms>"
};

// Throws InvalidArgument naming the value for pattern ar (no epilogue) and NVFP4 with fp32.
NormKernel find_norm_kernel(DType dtype, Pattern pattern);

// Dynamic shared memory: the NVFP4 amax exchange when tpb is odd (as the fused kernels).
size_t norm_dynamic_smem_bytes(const NormKernel& kernel, const LaunchConfig& cfg);

// Launches grid x tpb blocks in clusters of cfg.cluster, PDL when cfg.pdl. p.x must hold the sum.
cudaError_t launch_norm(const NormKernel& kernel, const FusedParams& params, const LaunchConfig& cfg,
                        cudaStream_t stream);

// The launch code shared by the fused and the norm launchers: grid, block, cluster and PDL
// attributes from cfg, `params` as the only argument.
cudaError_t launch_with_config(const void* fn, size_t dynamic_smem, const FusedParams& params, const LaunchConfig& cfg,
                               cudaStream_t stream);

}  // namespace arlab::kernels
