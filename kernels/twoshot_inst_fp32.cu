// Two-shot kernels for fp32, both accumulation modes (one computation): row fp32 of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/twoshot_kernel.cuh"

namespace arlab::kernels {

const void* twoshot_kernel_fp32(int nranks, Pattern pattern) {
  return instantiated_kernel<TwoshotFamily, float, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
