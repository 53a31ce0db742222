// One-shot kernels for fp16 with pairwise accumulation: row fp16_pairwise of
// kernels/kernel_table.h.
#include "kernels/instantiate.cuh"
#include "kernels/kernel_table.h"
#include "kernels/oneshot_kernel.cuh"

namespace arlab::kernels {

const void* oneshot_kernel_fp16_pairwise(int nranks, Pattern pattern) {
  return instantiated_kernel<OneshotFamily, __half, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
