// Lean one-shot kernels (KernelVariant::lean) for bf16 with pairwise accumulation: row bf16_pairwise of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_lean_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_lean_kernel_bf16_pairwise(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotLeanFamily, __nv_bfloat16, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
