// Lean one-shot kernels (KernelVariant::lean) for fp32 (both accumulation modes) accumulation: row fp32 of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_lean_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_lean_kernel_fp32(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotLeanFamily, float, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
