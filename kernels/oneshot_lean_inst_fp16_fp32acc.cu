// Lean one-shot kernels (KernelVariant::lean) for fp16 with fp32-acc accumulation: row fp16_fp32acc of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_lean_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_lean_kernel_fp16_fp32acc(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotLeanFamily, __half, Accumulation::fp32_acc>(nranks, pattern);
}

}  // namespace arlab::kernels
