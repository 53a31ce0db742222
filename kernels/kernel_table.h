// The fused-kernel instantiations, listed once. Each row is one translation unit per algorithm,
// kernels/oneshot_inst_<variant>.cu and kernels/twoshot_inst_<variant>.cu, holding that algorithm's
// kernel for every N in kSupportedRanks and every pattern the dtype supports (kernels/instantiate.cuh
// walks both lists); kernels/dispatch.cu declares the rows' functions and looks kernels up from this
// same list. Splitting by (dtype, accumulation) keeps each translation unit to ~24 kernels, so the
// slow CUDA compiles run in parallel. Pure C++: the host side includes it.
#pragma once

#include "common/problem.h"

// X(variant, dtype, accumulation). fp32 has one row: its two accumulation modes are the same
// computation (docs/operation.md), so both use the pairwise instantiation.
#define ARLAB_KERNEL_VARIANTS(X)   \
  X(bf16_pairwise, bf16, pairwise) \
  X(bf16_fp32acc, bf16, fp32_acc)  \
  X(fp16_pairwise, fp16, pairwise) \
  X(fp16_fp32acc, fp16, fp32_acc)  \
  X(fp32, fp32, pairwise)

namespace arlab::kernels {

// The accumulation mode whose instantiation computes (dtype, acc).
constexpr Accumulation instantiated_accumulation(DType dtype, Accumulation acc) {
  return dtype == DType::fp32 ? Accumulation::pairwise : acc;
}

// One function per row and kernel body: the kernel (as cudaLaunchKernelExC wants it) for N and
// pattern, or nullptr where none is instantiated (N not supported, NVFP4 with fp32). The lean
// one-shot body (KernelVariant::lean) lives in kernels/oneshot_lean_inst_<row>.cu.
#define ARLAB_DECLARE_KERNEL_VARIANT(variant, dtype, acc)                 \
  const void* oneshot_kernel_##variant(int nranks, Pattern pattern);      \
  const void* oneshot_lean_kernel_##variant(int nranks, Pattern pattern); \
  const void* twoshot_kernel_##variant(int nranks, Pattern pattern);
ARLAB_KERNEL_VARIANTS(ARLAB_DECLARE_KERNEL_VARIANT)
#undef ARLAB_DECLARE_KERNEL_VARIANT

}  // namespace arlab::kernels
