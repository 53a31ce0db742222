// GPU tests of the baselines (common/launch_config.h Implementation) on the emulated node: the
// unfused call -- arlab's all-reduce-only kernel, then the separate residual + RMSNorm (+ FP8 /
// NVFP4) kernel -- passes the same correctness gate as the fused kernel for every pattern and dtype
// at N 2 and 4, with both algorithms' all-reduce step; its timing joins both kernels of a call
// (first start to last end) and reports the all-reduce step alone; it interleaves with the fused
// kernel in one group; the nccl baseline is refused on the emulated node with a clear message.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "harness/cupti_timer.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/timing.h"
#include "model/policies.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::harness;

namespace {

// The all-reduce-only kernel's trtllm configuration for p, marked unfused (as `arlab run --baseline unfused`).
LaunchConfig unfused_config(const FusedRunner& runner, const Node& node, const Problem& p) {
  Problem ar = p;
  ar.pattern = Pattern::ar;
  LaunchConfig probe;
  probe.impl = Impl::unfused;
  LaunchConfig cfg = model::choose_launch_config(model::Policy::trtllm, ar, node.rank_spec(), runner.resources(probe),
                                                 model::default_calibration());
  cfg.impl = Impl::unfused;
  return cfg;
}

}  // namespace

TEST_CASE("unfused baseline: every pattern and dtype passes the gate (N 2 and 4, one- and two-shot all-reduce)") {
  for (int n : {2, 4}) {
    NodeOptions o;
    o.nranks = n;
    o.max_tokens = 40;
    o.max_hidden = 2048;
    o.max_elem_bytes = 4;
    EmulatedNode node(o);
    for (DType d : {DType::bf16, DType::fp16, DType::fp32})
      for (int pi = 0; pi < kNumPatterns; ++pi)
        for (Algorithm algo : {Algorithm::oneshot, Algorithm::twoshot}) {
          Problem p;
          p.nranks = n;
          p.dtype = d;
          p.pattern = static_cast<Pattern>(pi);
          p.algo = algo;
          p.tokens = 37;  // not a multiple of anything: partial clusters and ranges
          p.hidden = pi % 2 == 0 ? 2048 : 1536;
          p.acc = pi % 3 == 0 ? Accumulation::fp32_acc : Accumulation::pairwise;
          p.scale = 0.75f;
          if (!pattern_supports_dtype(p.pattern, d)) continue;
          FusedRunner runner(node, p, 1, 11 + static_cast<uint64_t>(pi), ref::Distribution::normal);
          const LaunchConfig cfg = unfused_config(runner, node, p);
          INFO("N " << n << " " << to_string(d) << " " << to_string(p.pattern) << " " << to_string(algo) << " cfg "
                    << to_string(cfg));
          const ref::GateReport g = runner.check(p, cfg);
          INFO(g.summary());
          REQUIRE(g.pass);
          // a call of fewer tokens than the shape, too
          Problem fewer = p;
          fewer.tokens = 5;
          REQUIRE(runner.check(fewer, unfused_config(runner, node, fewer)).pass);
        }
  }
}

TEST_CASE("unfused baseline: timing joins both kernels and reports the all-reduce alone; interleaves with fused") {
  NodeOptions o;
  o.nranks = 2;
  o.max_tokens = 128;
  o.max_hidden = 8192;
  EmulatedNode node(o);
  Problem p;
  p.tokens = 128;
  p.hidden = 8192;
  FusedRunner runner(node, p, 2, 3, ref::Distribution::normal);
  const LaunchConfig fused = model::choose_launch_config(model::Policy::trtllm, p, node.rank_spec(),
                                                         runner.resources(LaunchConfig{}), model::default_calibration());
  const LaunchConfig unfused = unfused_config(runner, node, p);
  REQUIRE(runner.kernels_per_call(fused) == 1);
  REQUIRE(runner.kernels_per_call(unfused) == 2);
  CuptiKernelTimer cupti;
  TimingOptions t;
  t.warmup_ms = 5;
  t.batch = 8;
  t.fixed_iters = 32;
  t.graph_calls = 4;
  t.graph_reps = 2;
  const std::vector<TimingReport> reps = time_interleaved(runner, {runner.prepare(p, fused), runner.prepare(p, unfused)}, t, &cupti, nullptr);
  REQUIRE(reps.size() == 2);
  REQUIRE(reps[0].source == "cupti");
  REQUIRE(reps[1].source == "cupti");
  REQUIRE(std::isnan(reps[0].allreduce_us.median));  // one kernel: no separate all-reduce figure
  REQUIRE(std::isfinite(reps[1].allreduce_us.median));
  REQUIRE(reps[1].allreduce_us.median > 0);
  // The call spans both kernels: longer than its all-reduce step alone.
  REQUIRE(reps[1].kernel_us.median > reps[1].allreduce_us.median);
  REQUIRE(reps[1].iters == 32);
  // CUPTI names the call's two kernels (how a real node's run says which NCCL kernel it timed).
  auto names_contain = [](const TimingReport& r, const std::string& part) {
    for (const std::string& n : r.kernel_names)
      if (n.find(part) != std::string::npos) return true;
    return false;
  };
  REQUIRE(names_contain(reps[1], "separate_norm_kernel"));
  REQUIRE(names_contain(reps[1], "oneshot"));
  REQUIRE_FALSE(names_contain(reps[0], "separate_norm_kernel"));
  REQUIRE(std::isfinite(time_graph_per_call(runner, runner.prepare(p, unfused), t)));
  REQUIRE(runner.check(p, unfused).pass);  // the timed calls left the node correct
  REQUIRE(runner.check(p, fused).pass);
}

TEST_CASE("nccl baseline: refused on the emulated node with a message that says why") {
  NodeOptions o;
  o.nranks = 2;
  o.max_tokens = 8;
  o.max_hidden = 1024;
  EmulatedNode node(o);
  Problem p;
  p.tokens = 8;
  p.hidden = 1024;
  FusedRunner runner(node, p, 1, 5, ref::Distribution::normal);
  LaunchConfig nccl;
  nccl.impl = Impl::nccl;
  nccl.tpb = nccl.grid = 0;
  REQUIRE_THROWS_WITH(runner.prepare(p, nccl), Catch::Contains("needs a real node") && Catch::Contains("refuses two ranks on one GPU"));
}
