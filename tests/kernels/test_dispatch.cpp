// CPU tests of the kernels' host side (no GPU needed): the dispatch point has one instantiation per
// supported (kernel body, algorithm, dtype, N, pattern, accumulation), refuses the rest with
// messages naming the value, and sizes the NVFP4 amax-exchange shared memory only for odd block sizes.
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/launch_config.h"
#include "common/problem.h"
#include "kernels/dispatch.h"
#include "kernels/kernel_table.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::kernels;

TEST_CASE("every supported combination has its own kernel") {
  const std::vector<KernelKey> keys = all_kernel_keys();
  // Per kernel family (reference and lean, one-shot and two-shot each): bf16, fp16: 4 N x 6
  // patterns x 2 acc; fp32: 4 N x 4 patterns (no NVFP4), one acc.
  constexpr size_t kPerFamily = 2u * 4 * 6 * 2 + 4u * 4;
  REQUIRE(keys.size() == 4 * kPerFamily);
  std::map<std::pair<Impl, Algorithm>, size_t> per_family;
  for (const KernelKey& k : keys) ++per_family[{k.body, k.algo}];
  REQUIRE(per_family.size() == 4);
  for (const auto& [family, count] : per_family) REQUIRE(count == kPerFamily);
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
  al.body = bl.body = Impl::lean;
  REQUIRE(find_fused_kernel(al).fn == find_fused_kernel(bl).fn);
  REQUIRE(find_fused_kernel(al).fn != find_fused_kernel(a).fn);
  REQUIRE(find_fused_kernel(al).name == "oneshot_lean<fp32,N=4,ar_res_rms,fp32>");
}

TEST_CASE("the kernel families cover the implementation table's kernel bodies exactly") {
  // kernels/families.cmake against common/implementations.h: every kernel body has a kernel of each
  // algorithm its row runs, for every dtype row, and no kernel of an algorithm its row does not run.
  for (Impl body : arlab_bodies())
    for (Algorithm algo : {Algorithm::oneshot, Algorithm::twoshot}) {
      size_t rows = 0;
      for (const FamilyInstantiation& f : kernel_family_registry())
        if (f.body == body && f.algo == algo) ++rows;
      INFO(to_string(body) << " " << to_string(algo));
      CHECK(rows == (runs_algorithm(body, algo) ? 5u : 0u));  // 5 dtype rows (kernels/kernel_table.h)
    }
  for (const FamilyInstantiation& f : kernel_family_registry()) CHECK(is_kernel_body(f.body));
  for (Impl b : baselines()) {
    KernelKey k{Algorithm::oneshot, DType::bf16, 2, Pattern::ar, Accumulation::pairwise, b};
    CHECK_THROWS_WITH(find_fused_kernel(k), Catch::Contains("a baseline, not a fused kernel body"));
  }
}

TEST_CASE("kernel_key carries the body; lean keys are named oneshot_lean<...>") {
  Problem p;
  p.nranks = 2;
  p.dtype = DType::bf16;
  p.pattern = Pattern::ar_res_rms;
  p.acc = Accumulation::pairwise;
  REQUIRE(kernel_key(p).body == Impl::reference);
  REQUIRE(kernel_name(kernel_key(p)) == "oneshot<bf16,N=2,ar_res_rms,pairwise>");
  const KernelKey lean = kernel_key(p, Impl::lean);
  REQUIRE(lean.body == Impl::lean);
  REQUIRE(kernel_name(lean) == "oneshot_lean<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(find_fused_kernel(lean).name == "oneshot_lean<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(find_fused_kernel(lean).key.body == Impl::lean);
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
  // The lean body's two-shot kernel is its own.
  k.body = Impl::lean;
  REQUIRE(find_fused_kernel(k).name == "twoshot_lean<bf16,N=2,ar,pairwise>");
  REQUIRE(find_fused_kernel(k).fn != find_fused_kernel(KernelKey{Algorithm::twoshot, DType::bf16, 2, Pattern::ar,
                                                                  Accumulation::pairwise}).fn);
  k = KernelKey{Algorithm::oneshot, DType::fp32, 2, Pattern::ar_res_rms_fp4, Accumulation::pairwise,
                Impl::lean};
  REQUIRE(message(k).find("needs a 16-bit dtype, got fp32") != std::string::npos);
  k = KernelKey{Algorithm::oneshot, DType::bf16, 3, Pattern::ar, Accumulation::pairwise, Impl::lean};
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
