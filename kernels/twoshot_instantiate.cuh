// Maps (N, pattern) to an instantiation of the two-shot kernel for one (T, accumulation): taking
// the address instantiates it. Included by exactly one kernels/twoshot_inst_*.cu per (T, acc), so
// the instantiations compile in a few translation units in parallel (as kernels/oneshot_inst_*.cu).
#pragma once

#include "kernels/twoshot_kernel.cuh"

namespace arlab::kernels {

template <typename T, int N, Accumulation A>
const void* twoshot_kernel_by_pattern(Pattern pattern) {
  switch (pattern) {
    case Pattern::ar: return reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar, A>);
    case Pattern::ar_res_rms: return reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar_res_rms, A>);
    case Pattern::ar_res_rms_fp8:
      return reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar_res_rms_fp8, A>);
    case Pattern::ar_res_rms_out_fp8:
      return reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar_res_rms_out_fp8, A>);
    case Pattern::ar_res_rms_fp4:
    case Pattern::ar_res_rms_out_fp4:
      if constexpr (DTypeTraits<T>::kBytes == 2) {
        return pattern == Pattern::ar_res_rms_fp4
                   ? reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar_res_rms_fp4, A>)
                   : reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, Pattern::ar_res_rms_out_fp4, A>);
      } else {
        return nullptr;  // NVFP4 needs a 16-bit T
      }
  }
  return nullptr;
}

template <typename T, Accumulation A>
const void* twoshot_kernel_by_ranks(int nranks, Pattern pattern) {
  switch (nranks) {
    case 2: return twoshot_kernel_by_pattern<T, 2, A>(pattern);
    case 4: return twoshot_kernel_by_pattern<T, 4, A>(pattern);
    case 8: return twoshot_kernel_by_pattern<T, 8, A>(pattern);
    case 16: return twoshot_kernel_by_pattern<T, 16, A>(pattern);
    default: return nullptr;
  }
}

}  // namespace arlab::kernels
