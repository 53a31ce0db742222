// One-shot kernel instantiations for T = float (pairwise and fp32_acc are the same computation) (N in {2,4,8,16} x patterns).
#include "kernels/oneshot_instantiate.cuh"
#include "kernels/oneshot_table.h"

namespace arlab::kernels {

const void* oneshot_kernel_fp32(int nranks, Pattern pattern) {
  return oneshot_kernel_by_ranks<float, Accumulation::pairwise>(nranks, pattern);
}

}  // namespace arlab::kernels
