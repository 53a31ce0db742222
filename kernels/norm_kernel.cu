// The separate residual-add + RMSNorm (+ FP8 / NVFP4) kernel of the baselines (docs/operation.md;
// common/launch_config.h Implementation): the second step after an all-reduce that left the
// T-rounded sum in p.x. It runs exactly the fused kernels' epilogue (kernels/fused_epilogue.cuh),
// so its outputs are bit-identical to a fused kernel's for the same sum and pass the same gate.
//
// LAYOUT: a cluster covers one token at a time (tokens cluster_id, cluster_id + clusters, ...),
// thread t of the cluster handles the vectors t + k * (tpb * cluster), k < vecs_per_thread
// (fused_epilogue.cuh token mapping). Inputs: p.x = the sum [tokens, H] T, p.residual_in, p.gamma,
// p.scale; outputs: the pattern's residual_out, norm_out, quant_out, scale_out.
// MEMORY ORDERING: none across ranks or blocks -- the sum was written by an earlier kernel on the
// same stream (stream order makes it visible); the only synchronisation is the epilogue's own block
// / cluster reduction. No spin-waits, so no timeout. Instantiated here for every (T, pattern with
// an epilogue) -- 13 kernels; the dispatch point is kernels/norm_dispatch.h.
#include "kernels/fused_epilogue.cuh"
#include "kernels/norm_dispatch.h"

namespace arlab::kernels {
namespace {

template <typename T, Pattern P>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) separate_norm_kernel(const __grid_constant__ FusedParams p) {
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;
  __shared__ EpilogueShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();
  const TokenMapping m = token_mapping<T>(p);
  const QuantScales q = load_quant_scales<P>(p);
  int parity = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, parity ^= 1) {
    fused_token_epilogue<T, P, ReferenceEpilogue>(p, m, sh, fp4_amax_exchange, q, tok, parity, [&](long long off, float (&acc)[kVec]) {
      const uint4 s = ld_input_v4(static_cast<const char*>(p.x) + off);
#pragma unroll
      for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(s, e));
    });
  }
  // Keep this block's shared memory alive until no other block of the cluster can still read it.
  if (m.cluster > 1) cooperative_groups::this_cluster().sync();
}

template <typename T>
const void* norm_kernel_for(Pattern pattern) {
  switch (pattern) {
    case Pattern::ar_res_rms: return reinterpret_cast<const void*>(&separate_norm_kernel<T, Pattern::ar_res_rms>);
    case Pattern::ar_res_rms_fp8:
      return reinterpret_cast<const void*>(&separate_norm_kernel<T, Pattern::ar_res_rms_fp8>);
    case Pattern::ar_res_rms_out_fp8:
      return reinterpret_cast<const void*>(&separate_norm_kernel<T, Pattern::ar_res_rms_out_fp8>);
    case Pattern::ar_res_rms_fp4:
    case Pattern::ar_res_rms_out_fp4:
      if constexpr (DTypeTraits<T>::kBytes == 2) {
        return pattern == Pattern::ar_res_rms_fp4
                   ? reinterpret_cast<const void*>(&separate_norm_kernel<T, Pattern::ar_res_rms_fp4>)
                   : reinterpret_cast<const void*>(&separate_norm_kernel<T, Pattern::ar_res_rms_out_fp4>);
      } else {
        return nullptr;  // NVFP4 needs a 16-bit T (docs/operation.md)
      }
    case Pattern::ar: return nullptr;  // nothing after the all-reduce
  }
  return nullptr;
}

}  // namespace

NormKernel find_norm_kernel(DType dtype, Pattern pattern) {
  if (!has_residual(pattern))
    throw InvalidArgument("pattern ar has no epilogue: its baseline is the all-reduce alone (no separate norm kernel)");
  if (!pattern_supports_dtype(pattern, dtype))
    throw InvalidArgument(std::string("pattern ") + to_string(pattern) + " (NVFP4) needs a 16-bit dtype, got fp32");
  const void* fn = dtype == DType::bf16   ? norm_kernel_for<__nv_bfloat16>(pattern)
                   : dtype == DType::fp16 ? norm_kernel_for<__half>(pattern)
                                          : norm_kernel_for<float>(pattern);
  if (fn == nullptr) throw InvalidArgument(std::string("no separate norm kernel for ") + to_string(dtype) + " " +
                                           to_string(pattern));
  return NormKernel{fn, dtype, pattern, std::string("norm<") + to_string(dtype) + "," + to_string(pattern) + ">"};
}

size_t norm_dynamic_smem_bytes(const NormKernel& kernel, const LaunchConfig& cfg) {
  if (!has_fp4(kernel.pattern) || cfg.tpb % 2 == 0) return 0;
  return static_cast<size_t>(cfg.vecs_per_thread) * static_cast<size_t>(cfg.tpb) * sizeof(float);
}

cudaError_t launch_norm(const NormKernel& kernel, const FusedParams& params, const LaunchConfig& cfg,
                        cudaStream_t stream) {
  return launch_with_config(kernel.fn, norm_dynamic_smem_bytes(kernel, cfg), params, cfg, stream);
}

}  // namespace arlab::kernels
