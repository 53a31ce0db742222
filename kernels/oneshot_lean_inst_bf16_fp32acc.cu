// Lean one-shot kernels (KernelVariant::lean) for bf16 with fp32-acc accumulation: row bf16_fp32acc of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_lean_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_lean_kernel_bf16_fp32acc(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotLeanFamily, __nv_bfloat16, Accumulation::fp32_acc>(nranks, pattern);
}

}  // namespace arlab::kernels
