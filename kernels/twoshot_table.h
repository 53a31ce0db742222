// The per-(dtype, accumulation) tables of two-shot kernel instantiations, one per translation unit
// kernels/twoshot_inst_*.cu. Each returns the kernel function (as cudaLaunchKernelExC wants it) for
// N and pattern, or nullptr where no instantiation exists (N not in {2,4,8,16}, NVFP4 with fp32).
// Only kernels/dispatch.cu calls these.
#pragma once

#include "common/problem.h"

namespace arlab::kernels {

const void* twoshot_kernel_bf16_pairwise(int nranks, Pattern pattern);
const void* twoshot_kernel_bf16_fp32acc(int nranks, Pattern pattern);
const void* twoshot_kernel_fp16_pairwise(int nranks, Pattern pattern);
const void* twoshot_kernel_fp16_fp32acc(int nranks, Pattern pattern);
// fp32: both accumulation modes are the same computation (DESIGN §2), one instantiation.
const void* twoshot_kernel_fp32(int nranks, Pattern pattern);

}  // namespace arlab::kernels
