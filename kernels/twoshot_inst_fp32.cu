// Two-shot kernel instantiations for T = float, accumulation pairwise (= fp32_acc for fp32) (N in {2,4,8,16} x patterns).
#include "kernels/twoshot_instantiate.cuh"
#include "kernels/twoshot_table.h"

namespace arlab::kernels {

const void* twoshot_kernel_fp32(int nranks, Pattern pattern) {
  return twoshot_kernel_by_ranks<float, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
