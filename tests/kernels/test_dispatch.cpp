// CPU tests of the kernels' host side (no GPU needed): the dispatch point has one instantiation per
// supported (algorithm, dtype, N, pattern, accumulation) and, for one-shot, per kernel body
// (reference, lean), refuses the rest (the lean body with two-shot among them) with messages naming
// the value, and sizes the NVFP4 amax-exchange shared memory only for odd block sizes.
#include <set>
#include <string>

#include "common/launch_config.h"
#include "common/problem.h"
#include "kernels/dispatch.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::kernels;

TEST_CASE("every supported combination has its own kernel") {
  const std::vector<KernelKey> keys = all_kernel_keys();
  // Per kernel body (one-shot reference, two-shot reference, one-shot lean): bf16, fp16: 4 N x 6
  // patterns x 2 acc; fp32: 4 N x 4 patterns (no NVFP4), one acc.
  constexpr size_t kPerBody = 2u * 4 * 6 * 2 + 4u * 4;
  REQUIRE(keys.size() == 3 * kPerBody);
  size_t lean = 0;
  for (const KernelKey& k : keys) {
    if (k.variant != KernelVariant::lean) continue;
    ++lean;
    REQUIRE(k.algo == Algorithm::oneshot);  // the lean body is one-shot only
  }
  REQUIRE(lean == kPerBody);
  std::set<const void*> fns;
  std::set<std::string> names;
  for (const KernelKey& k : keys) {
    const FusedKernel f = find_fused_kernel(k);
    REQUIRE(f.fn != nullptr);
    fns.insert(f.fn);
    names.insert(f.name);
  }
  REQUIRE(fns.size() == keys.size());
  REQUIRE(names.size() == keys.size());
  // fp32's two accumulation modes are the same computation: the same kernel.
  KernelKey a{Algorithm::oneshot, DType::fp32, 4, Pattern::ar_res_rms, Accumulation::pairwise};
  KernelKey b = a;
  b.acc = Accumulation::fp32_acc;
  REQUIRE(find_fused_kernel(a).fn == find_fused_kernel(b).fn);
  REQUIRE(find_fused_kernel(a).name == "oneshot<fp32,N=4,ar_res_rms,fp32>");
  // The same for the lean body, which is another kernel.
  KernelKey al = a, bl = b;
  al.variant = bl.variant = KernelVariant::lean;
  REQUIRE(find_fused_kernel(al).fn == find_fused_kernel(bl).fn);
  REQUIRE(find_fused_kernel(al).fn != find_fused_kernel(a).fn);
  REQUIRE(find_fused_kernel(al).name == "oneshot_lean<fp32,N=4,ar_res_rms,fp32>");
}

TEST_CASE("kernel_key carries the variant; lean keys are named oneshot_lean<...>") {
  Problem p;
  p.nranks = 2;
  p.dtype = DType::bf16;
  p.pattern = Pattern::ar_res_rms;
  p.acc = Accumulation::pairwise;
  REQUIRE(kernel_key(p).variant == KernelVariant::reference);
  REQUIRE(kernel_name(kernel_key(p)) == "oneshot<bf16,N=2,ar_res_rms,pairwise>");
  const KernelKey lean = kernel_key(p, KernelVariant::lean);
  REQUIRE(lean.variant == KernelVariant::lean);
  REQUIRE(kernel_name(lean) == "oneshot_lean<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(find_fused_kernel(lean).name == "oneshot_lean<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(find_fused_kernel(lean).key.variant == KernelVariant::lean);
}

TEST_CASE("unsupported combinations are refused, naming the value") {
  auto message = [](const KernelKey& k) {
    try {
      find_fused_kernel(k);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  KernelKey k{Algorithm::oneshot, DType::fp32, 2, Pattern::ar_res_rms_fp4, Accumulation::pairwise};
  REQUIRE(message(k).find("needs a 16-bit dtype, got fp32") != std::string::npos);
  k = KernelKey{Algorithm::oneshot, DType::bf16, 3, Pattern::ar, Accumulation::pairwise};
  REQUIRE(message(k).find("nranks = 3") != std::string::npos);
  k = KernelKey{Algorithm::twoshot, DType::fp32, 2, Pattern::ar_res_rms_out_fp4, Accumulation::pairwise};
  REQUIRE(message(k).find("needs a 16-bit dtype, got fp32") != std::string::npos);
  k = KernelKey{Algorithm::twoshot, DType::bf16, 2, Pattern::ar, Accumulation::pairwise};
  REQUIRE(find_fused_kernel(k).name == "twoshot<bf16,N=2,ar,pairwise>");
  // The lean body is one-shot only.
  k.variant = KernelVariant::lean;
  REQUIRE(message(k).find("the lean kernel is one-shot only") != std::string::npos);
  REQUIRE(message(k).find("twoshot_lean<bf16,N=2,ar,pairwise>") != std::string::npos);
  k = KernelKey{Algorithm::oneshot, DType::fp32, 2, Pattern::ar_res_rms_fp4, Accumulation::pairwise,
                KernelVariant::lean};
  REQUIRE(message(k).find("needs a 16-bit dtype, got fp32") != std::string::npos);
  k = KernelKey{Algorithm::oneshot, DType::bf16, 3, Pattern::ar, Accumulation::pairwise, KernelVariant::lean};
  REQUIRE(message(k).find("nranks = 3") != std::string::npos);
}

TEST_CASE("dynamic shared memory: the NVFP4 amax exchange, odd block sizes only") {
  const KernelKey fp4{Algorithm::oneshot, DType::bf16, 2, Pattern::ar_res_rms_out_fp4, Accumulation::pairwise};
  const KernelKey rms{Algorithm::oneshot, DType::bf16, 2, Pattern::ar_res_rms, Accumulation::pairwise};
  LaunchConfig c;
  c.tpb = 129;
  c.cluster = 2;
  c.grid = 2;
  c.vecs_per_thread = 4;
  REQUIRE(fused_dynamic_smem_bytes(fp4, c) == 4u * 129 * sizeof(float));
  REQUIRE(fused_dynamic_smem_bytes(rms, c) == 0u);
  c.tpb = 128;
  REQUIRE(fused_dynamic_smem_bytes(fp4, c) == 0u);
}
