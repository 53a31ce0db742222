// Two-shot kernels for bf16 with pairwise accumulation: row bf16_pairwise of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/twoshot_kernel.cuh"

namespace arlab::kernels {

const void* twoshot_kernel_bf16_pairwise(int nranks, Pattern pattern) {
  return instantiated_kernel<TwoshotFamily, __nv_bfloat16, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
