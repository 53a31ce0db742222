// The dispatch point and launcher of kernels/dispatch.h; the kernels it finds are listed in
// kernels/kernel_table.h.
#include "kernels/dispatch.h"

#include <utility>

#include "kernels/kernel_table.h"
#include "kernels/norm_dispatch.h"

namespace arlab::kernels {

std::string kernel_name(const KernelKey& key) {
  const bool acc_matters = key.dtype != DType::fp32;
  const std::string body = key.variant == KernelVariant::reference ? "" : std::string("_") + to_string(key.variant);
  return std::string(to_string(key.algo)) + body + "<" + to_string(key.dtype) + ",N=" + std::to_string(key.nranks) +
         "," + to_string(key.pattern) + "," + (acc_matters ? to_string(key.acc) : "fp32") + ">";
}

// The row of kernels/kernel_table.h that holds the key's kernel, asked for it (the caller has
// refused the lean body with two-shot).
static const void* lookup(const KernelKey& k) {
  const Accumulation acc = instantiated_accumulation(k.dtype, k.acc);
  const bool lean = k.variant == KernelVariant::lean;
#define ARLAB_LOOKUP_KERNEL_VARIANT(variant, dtype_, acc_)                                          \
  if (k.dtype == DType::dtype_ && acc == Accumulation::acc_)                                      \
    return k.algo == Algorithm::twoshot ? twoshot_kernel_##variant(k.nranks, k.pattern)           \
           : lean                       ? oneshot_lean_kernel_##variant(k.nranks, k.pattern)      \
                                        : oneshot_kernel_##variant(k.nranks, k.pattern);
  ARLAB_KERNEL_VARIANTS(ARLAB_LOOKUP_KERNEL_VARIANT)
#undef ARLAB_LOOKUP_KERNEL_VARIANT
  return nullptr;
}

FusedKernel find_fused_kernel(const KernelKey& key) {
  if (!is_supported_nranks(key.nranks))
    throw InvalidArgument("nranks = " + std::to_string(key.nranks) + " has no kernel (expected 2, 4, 8 or 16)");
  if (!pattern_supports_dtype(key.pattern, key.dtype))
    throw InvalidArgument(std::string("pattern ") + to_string(key.pattern) + " (NVFP4) needs a 16-bit dtype, got fp32");
  if (key.algo == Algorithm::twoshot && key.variant != KernelVariant::reference)
    throw InvalidArgument(std::string("the ") + to_string(key.variant) +
                          " kernel is one-shot only: two-shot runs the reference kernel (asked for " +
                          kernel_name(key) + ")");
  const void* fn = lookup(key);
  if (fn == nullptr) throw InvalidArgument("no kernel instantiated for " + kernel_name(key));
  return FusedKernel{fn, key, kernel_name(key)};
}

std::vector<KernelKey> all_kernel_keys() {
  // (algorithm, body) pairs that exist: the lean body is one-shot only.
  const std::pair<Algorithm, KernelVariant> bodies[] = {{Algorithm::oneshot, KernelVariant::reference},
                                                        {Algorithm::twoshot, KernelVariant::reference},
                                                        {Algorithm::oneshot, KernelVariant::lean}};
  std::vector<KernelKey> keys;
  for (const auto& [algo, variant] : bodies) {
    for (DType d : {DType::bf16, DType::fp16, DType::fp32}) {
      for (int n : kSupportedRanks) {
        for (int pi = 0; pi < kNumPatterns; ++pi) {
          const Pattern p = static_cast<Pattern>(pi);
          if (!pattern_supports_dtype(p, d)) continue;
          for (Accumulation a : {Accumulation::pairwise, Accumulation::fp32_acc}) {
            if (instantiated_accumulation(d, a) != a) continue;  // fp32: the pairwise kernel serves both
            keys.push_back(KernelKey{algo, d, n, p, a, variant});
          }
        }
      }
    }
  }
  return keys;
}

size_t fused_dynamic_smem_bytes(const KernelKey& key, const LaunchConfig& cfg) {
  if (!has_fp4(key.pattern) || cfg.tpb % 2 == 0) return 0;
  return static_cast<size_t>(cfg.vecs_per_thread) * static_cast<size_t>(cfg.tpb) * sizeof(float);
}

cudaError_t launch_with_config(const void* fn, size_t dynamic_smem, const FusedParams& params, const LaunchConfig& cfg,
                               cudaStream_t stream) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(static_cast<unsigned>(cfg.grid), 1, 1);
  lc.blockDim = dim3(static_cast<unsigned>(cfg.tpb), 1, 1);
  lc.dynamicSmemBytes = dynamic_smem;
  lc.stream = stream;
  cudaLaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (cfg.cluster > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = static_cast<unsigned>(cfg.cluster);
    attrs[n].val.clusterDim.y = 1;
    attrs[n].val.clusterDim.z = 1;
    ++n;
  }
  if (cfg.pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  lc.attrs = attrs;
  lc.numAttrs = n;
  void* args[] = {const_cast<FusedParams*>(&params)};
  return cudaLaunchKernelExC(&lc, fn, args);
}

cudaError_t launch_fused(const FusedKernel& kernel, const FusedParams& params, const LaunchConfig& cfg,
                         cudaStream_t stream) {
  return launch_with_config(kernel.fn, fused_dynamic_smem_bytes(kernel.key, cfg), params, cfg, stream);
}

}  // namespace arlab::kernels
