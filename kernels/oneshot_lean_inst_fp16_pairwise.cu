// Lean one-shot kernels (KernelVariant::lean) for fp16 with pairwise accumulation: row fp16_pairwise of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_lean_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_lean_kernel_fp16_pairwise(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotLeanFamily, __half, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
