// Two-shot kernel instantiations for T = __nv_bfloat16, accumulation pairwise (N in {2,4,8,16} x patterns).
#include "kernels/twoshot_instantiate.cuh"
#include "kernels/twoshot_table.h"

namespace arlab::kernels {

const void* twoshot_kernel_bf16_pairwise(int nranks, Pattern pattern) {
  return twoshot_kernel_by_ranks<__nv_bfloat16, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
