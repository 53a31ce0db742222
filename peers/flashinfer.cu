// FlashInfer's fused kernels behind peers/peer_kernels.h: every dtype row's instantiations
// (peers/flashinfer_launch.cuh) and the dispatch to them, in one translation unit -- the library's
// header defines non-inline functions (get_sm_count, use_oneshot), so it may be included only once per
// binary.
#include "peers/flashinfer_launch.cuh"
#include "peers/peer_kernels.h"

namespace arlab::peers {

bool built() { return true; }
std::string not_built_reason() { return ""; }

namespace {

std::string what(const Problem& p, Algorithm algo) {
  return std::string("FlashInfer ") + flashinfer_version() + " " + to_string(algo) + " kernel for " +
         to_string(p.dtype) + " " + to_string(p.pattern) + " N = " + std::to_string(p.nranks) + " " +
         to_string(p.acc);
}

// The dtype row of p: bf16 / fp16 with their two accumulation modes, fp32 with one.
template <typename F>
auto with_row(const Problem& p, F&& f) {
  const bool acc = p.dtype != DType::fp32 && p.acc == Accumulation::fp32_acc;
  if (p.dtype == DType::fp32) return f(detail::Row<float, false>{});
  if (p.dtype == DType::bf16) return acc ? f(detail::Row<__nv_bfloat16, true>{}) : f(detail::Row<__nv_bfloat16, false>{});
  return acc ? f(detail::Row<__half, true>{}) : f(detail::Row<__half, false>{});
}

}  // namespace

const void* flashinfer_kernel(const Problem& p, Algorithm algo) {
  const void* fn = with_row(p, [&](auto row) { return decltype(row)::kernel(p, algo); });
  if (fn == nullptr)
    throw InvalidArgument("no " + what(p, algo) + " in this build (instantiated: patterns ar, ar_res_rms, "
                          "ar_res_rms_fp8, ar_res_rms_out_fp8 at N 2, 4, 8, 16; NVFP4 needs sm_100)");
  return fn;
}

cudaError_t launch_flashinfer(const Problem& p, const LaunchConfig& cfg, const FlashinferArgs& a,
                              cudaStream_t stream) {
  return with_row(p, [&](auto row) { return decltype(row)::launch(p, cfg, a, stream); });
}

}  // namespace arlab::peers
