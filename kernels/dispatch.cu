// The dispatch point and launcher of kernels/dispatch.h; the kernels it finds are the generated
// instantiations of kernels/families.cmake (kernels/kernel_table.h kernel_family_registry).
#include "kernels/dispatch.h"

#include "kernels/kernel_table.h"
#include "kernels/norm_dispatch.h"

namespace arlab::kernels {

std::string kernel_name(const KernelKey& key) {
  const bool acc_matters = key.dtype != DType::fp32;
  const std::string body = key.body == Impl::reference ? "" : std::string("_") + to_string(key.body);
  return std::string(to_string(key.algo)) + body + "<" + to_string(key.dtype) + ",N=" + std::to_string(key.nranks) +
         "," + to_string(key.pattern) + "," + (acc_matters ? to_string(key.acc) : "fp32") + ">";
}

namespace {

// The registry entry of the key's family and dtype row; nullptr when the body has no kernel of that
// algorithm.
const FamilyInstantiation* find_instantiation(const KernelKey& k) {
  const Accumulation acc = instantiated_accumulation(k.dtype, k.acc);
  for (const FamilyInstantiation& f : kernel_family_registry())
    if (f.body == k.body && f.algo == k.algo && f.dtype == k.dtype && f.acc == acc) return &f;
  return nullptr;
}

}  // namespace

FusedKernel find_fused_kernel(const KernelKey& key) {
  if (!is_supported_nranks(key.nranks))
    throw InvalidArgument("nranks = " + std::to_string(key.nranks) + " has no kernel (expected 2, 4, 8 or 16)");
  if (!pattern_supports_dtype(key.pattern, key.dtype))
    throw InvalidArgument(std::string("pattern ") + to_string(key.pattern) + " (NVFP4) needs a 16-bit dtype, got fp32");
  if (!is_kernel_body(key.body))
    throw InvalidArgument(std::string(to_string(key.body)) + " is a baseline, not a fused kernel body (" +
                          kernel_body_names() + ")");
  const FamilyInstantiation* family = find_instantiation(key);
  if (family == nullptr)
    throw InvalidArgument(algorithm_limit(key.body) + " (asked for " + kernel_name(key) + ")");
  const void* fn = family->kernel(key.nranks, key.pattern);
  if (fn == nullptr) throw InvalidArgument("no kernel instantiated for " + kernel_name(key));
  return FusedKernel{fn, key, kernel_name(key)};
}

std::vector<KernelKey> all_kernel_keys() {
  std::vector<KernelKey> keys;
  for (const FamilyInstantiation& f : kernel_family_registry())
    for (int n : kSupportedRanks)
      for (int pi = 0; pi < kNumPatterns; ++pi) {
        const Pattern p = static_cast<Pattern>(pi);
        if (pattern_supports_dtype(p, f.dtype)) keys.push_back(KernelKey{f.algo, f.dtype, n, p, f.acc, f.body});
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
