// One-shot kernel instantiations for T = __half, accumulation fp32_acc (N in {2,4,8,16} x patterns).
#include "kernels/oneshot_instantiate.cuh"
#include "kernels/oneshot_table.h"

namespace arlab::kernels {

const void* oneshot_kernel_fp16_fp32acc(int nranks, Pattern pattern) {
  return oneshot_kernel_by_ranks<__half, Accumulation::fp32_acc>(nranks, pattern);
}

}  // namespace arlab::kernels
