// FlashInfer's fused all-reduce kernels (trtllm_allreduce_fusion.cuh of the pinned wheel,
// peers/flashinfer.pin) for one dtype row: the kernel of (algorithm, N, pattern) and its launch,
// as the library's own launcher builds AllReduceFusionParams and the two-shot token split
// (allreduce_fusion_kernel_launcher), with the launch shape given rather than computed (arlab's
// --policy flashinfer computes the library's shape: model/policies.h). Included once, by
// peers/flashinfer.cu (the library's header may be included only once per binary).
#pragma once

#include <array>

#include "flashinfer/comm/trtllm_allreduce_fusion.cuh"
#include "peers/peer_kernels.h"

namespace arlab::peers::detail {

namespace fi = flashinfer::trtllm_allreduce_fusion;

// The patterns instantiated: the ones FlashInfer runs on sm_90 (its NVFP4 conversion is sm_100+
// only: common/implementations.h refuses NVFP4 there).
template <Pattern P>
constexpr bool kInstantiated = P == Pattern::ar || P == Pattern::ar_res_rms || P == Pattern::ar_res_rms_fp8 ||
                               P == Pattern::ar_res_rms_out_fp8;

template <Pattern P>
constexpr fi::AllReduceFusionPattern fusion_pattern() {
  return static_cast<fi::AllReduceFusionPattern>(static_cast<int>(P));  // the same numbering (docs/operation.md)
}

template <typename T, int N, Pattern P, bool Acc>
const void* kernel_of(Algorithm algo) {
  constexpr fi::AllReduceFusionPattern FP = fusion_pattern<P>();
  if (algo == Algorithm::oneshot)
    return reinterpret_cast<const void*>(&fi::allreduce_fusion_kernel_oneshot_lamport<FP, T, N, Acc, true>);
  return reinterpret_cast<const void*>(&fi::allreduce_fusion_kernel_twoshot_sync<FP, T, N, Acc>);
}

template <typename T, int N, Pattern P, bool Acc>
cudaError_t launch_of(const Problem& p, const LaunchConfig& cfg, const FlashinferArgs& a, cudaStream_t stream) {
  constexpr fi::AllReduceFusionPattern FP = fusion_pattern<P>();
  fi::AllReduceFusionParams<T> params;
  params.nranks = N;
  params.rank = a.rank;
  params.size = p.tokens * p.hidden;
  params.hidden_dim = p.hidden;
  params.workspace = const_cast<void**>(a.workspace);
  params.allreduce_in = const_cast<void*>(a.x);
  params.allreduce_out = a.allreduce_out;
  params.residual_in = const_cast<void*>(a.residual_in);
  params.residual_out = a.residual_out;
  params.norm_out = a.norm_out;
  params.quant_out = a.quant_out;
  params.scale_out = a.scale_out;
  params.rms_gamma = const_cast<void*>(a.gamma);
  params.rms_eps = p.eps;
  params.scale_factor = const_cast<float*>(a.scale);
  params.use_oneshot = cfg.algo == Algorithm::oneshot;
  params.layout = p.sf_layout == ScaleLayout::linear ? flashinfer::QuantizationSFLayout::LINEAR
                                                     : flashinfer::QuantizationSFLayout::SWIZZLED_128x4;
  params.stream = stream;
  params.pattern = FP;
  params.trigger_completion_at_end = true;
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(static_cast<unsigned>(cfg.grid));
  lc.blockDim = dim3(static_cast<unsigned>(cfg.tpb));
  lc.dynamicSmemBytes = 0;
  lc.stream = stream;
  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = cfg.pdl ? 1 : 0;
  attrs[1].id = cudaLaunchAttributeClusterDimension;
  attrs[1].val.clusterDim.x = static_cast<unsigned>(cfg.cluster);
  attrs[1].val.clusterDim.y = 1;
  attrs[1].val.clusterDim.z = 1;
  lc.attrs = attrs;
  lc.numAttrs = 2;
  if (cfg.algo == Algorithm::oneshot)
    return cudaLaunchKernelEx(&lc, fi::allreduce_fusion_kernel_oneshot_lamport<FP, T, N, Acc, true>, params);
  // The two-shot token split of allreduce_fusion_kernel_launcher: rank r reduces tokens
  // [begin[r], begin[r] + count[r]), the first tokens % N ranks one more.
  std::array<int, N> begin{}, count{};
  const int per_rank = p.tokens / N, remaining = p.tokens % N;
  for (int r = 0; r < N; ++r) {
    begin[r] = r * per_rank + (remaining > r ? r : remaining);
    count[r] = per_rank + (remaining > r ? 1 : 0);
  }
  return cudaLaunchKernelEx(&lc, fi::allreduce_fusion_kernel_twoshot_sync<FP, T, N, Acc>, params, begin, count);
}

// The kernel or launch of (N, pattern) for one dtype row; nullptr / cudaErrorInvalidValue where none
// is instantiated (the caller refused those combinations by name first).
template <typename T, bool Acc>
struct Row {
  template <int N, Pattern P>
  static void visit(int n, Pattern p, Algorithm algo, const void*& fn) {
    if constexpr (kInstantiated<P>)
      if (n == N && p == P) fn = kernel_of<T, N, P, Acc>(algo);
  }
  template <int N, Pattern P>
  static void visit_launch(int n, Pattern p, const Problem& prob, const LaunchConfig& cfg, const FlashinferArgs& a,
                           cudaStream_t s, cudaError_t& rc) {
    if constexpr (kInstantiated<P>)
      if (n == N && p == P) rc = launch_of<T, N, P, Acc>(prob, cfg, a, s);
  }
  template <int N>
  static void each_pattern(int n, Pattern p, Algorithm algo, const void*& fn) {
    visit<N, Pattern::ar>(n, p, algo, fn);
    visit<N, Pattern::ar_res_rms>(n, p, algo, fn);
    visit<N, Pattern::ar_res_rms_fp8>(n, p, algo, fn);
    visit<N, Pattern::ar_res_rms_out_fp8>(n, p, algo, fn);
  }
  template <int N>
  static void each_pattern_launch(int n, Pattern p, const Problem& prob, const LaunchConfig& cfg,
                                  const FlashinferArgs& a, cudaStream_t s, cudaError_t& rc) {
    visit_launch<N, Pattern::ar>(n, p, prob, cfg, a, s, rc);
    visit_launch<N, Pattern::ar_res_rms>(n, p, prob, cfg, a, s, rc);
    visit_launch<N, Pattern::ar_res_rms_fp8>(n, p, prob, cfg, a, s, rc);
    visit_launch<N, Pattern::ar_res_rms_out_fp8>(n, p, prob, cfg, a, s, rc);
  }
  static const void* kernel(const Problem& p, Algorithm algo) {
    const void* fn = nullptr;
    each_pattern<2>(p.nranks, p.pattern, algo, fn);
    each_pattern<4>(p.nranks, p.pattern, algo, fn);
    each_pattern<8>(p.nranks, p.pattern, algo, fn);
    each_pattern<16>(p.nranks, p.pattern, algo, fn);
    return fn;
  }
  static cudaError_t launch(const Problem& p, const LaunchConfig& cfg, const FlashinferArgs& a, cudaStream_t s) {
    cudaError_t rc = cudaErrorInvalidValue;
    each_pattern_launch<2>(p.nranks, p.pattern, p, cfg, a, s, rc);
    each_pattern_launch<4>(p.nranks, p.pattern, p, cfg, a, s, rc);
    each_pattern_launch<8>(p.nranks, p.pattern, p, cfg, a, s, rc);
    each_pattern_launch<16>(p.nranks, p.pattern, p, cfg, a, s, rc);
    return rc;
  }
};

}  // namespace arlab::peers::detail
