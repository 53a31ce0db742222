// One-shot kernels for fp32, both accumulation modes (one computation): row fp32 of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_kernel_fp32(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotFamily, float, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
