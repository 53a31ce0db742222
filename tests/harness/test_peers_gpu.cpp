// GPU tests of the peers inside the gate (common/implementations.h rows flashinfer and vllm, built
// against the pinned flashinfer-python wheel's headers, peers/) on the emulated node: FlashInfer's
// fused kernels -- one-shot Lamport and two-shot, at its own configuration and at trtllm's -- pass
// the same correctness gate as arlab's kernels for every pattern it has (FP4 needs sm_100), every
// dtype and N 2, 4 and 8, call after call (its Lamport buffers rotate); vLLM's custom all-reduce + the
// norm kernel passes it where its sum is the reference's bit for bit; the peers are refused, with the
// reason, where they have no kernel or their sum is not the reference's. Skipped (the test reports
// why) when the build has no peers (FlashInfer headers not found at configure time).
#include <string>
#include <vector>

#include "common/implementations.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "model/calibration.h"
#include "model/policies.h"
#include "peers/peer_kernels.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::harness;

namespace {

NodeOptions peers_node(int n, int max_tokens, int max_hidden) {
  NodeOptions o;
  o.nranks = n;
  o.max_tokens = max_tokens;
  o.max_hidden = max_hidden;
  o.max_elem_bytes = 4;
  o.peers = true;
  return o;
}

// The configuration `policy` picks for body `impl` at p (as `arlab run --policy POLICY/flashinfer`).
LaunchConfig config_for(model::Policy policy, Impl impl, const Problem& p, const Node& node, const FusedRunner& runner) {
  LaunchConfig probe;
  probe.impl = impl;
  probe.algo = p.algo;
  const model::PolicyChoice c = model::explain_launch_config(policy, p, node.rank_spec(), runner.resources(probe),
                                                             model::default_calibration(), nullptr, {impl});
  return c.config;
}

}  // namespace

TEST_CASE("flashinfer: every pattern and dtype, N 2/4/8, one- and two-shot, its own and trtllm's configuration pass the gate") {
  if (!peers::built()) {
    WARN("skipped: built without the peers: " << peers::not_built_reason());
    return;
  }
  int checked = 0;
  for (int n : {2, 4, 8}) {
    EmulatedNode node(peers_node(n, 40, 2048));
    for (DType d : {DType::bf16, DType::fp16, DType::fp32})
      for (Pattern pattern : {Pattern::ar, Pattern::ar_res_rms, Pattern::ar_res_rms_fp8, Pattern::ar_res_rms_out_fp8})
        for (Algorithm algo : {Algorithm::oneshot, Algorithm::twoshot}) {
          Problem p;
          p.nranks = n;
          p.dtype = d;
          p.pattern = pattern;
          p.algo = algo;
          p.tokens = 37;  // not a multiple of N: the two-shot ranges are uneven
          p.hidden = pattern == Pattern::ar_res_rms ? 2048 : 1536;
          p.acc = n == 2 ? Accumulation::pairwise : Accumulation::fp32_acc;
          p.scale = 0.75f;
          if (!pattern_supports_dtype(pattern, d)) continue;
          INFO("N " << n << " " << to_string(d) << " " << to_string(pattern) << " " << to_string(algo));
          REQUIRE(implementation_refusal(Impl::flashinfer, p, false, node.rank_spec().cc_major) == "");
          FusedRunner runner(node, p, 1, 23 + static_cast<uint64_t>(checked), ref::Distribution::normal);
          const LaunchConfig trt = config_for(model::Policy::trtllm, Impl::flashinfer, p, node, runner);
          REQUIRE(trt.impl == Impl::flashinfer);
          REQUIRE(trt.algo == algo);
          INFO("trtllm configuration " << to_string(trt));
          // Three calls in a row: the one-shot Lamport buffers rotate through all three.
          for (int call = 0; call < 3; ++call) {
            const ref::GateReport g = runner.check(p, trt);
            INFO("call " << call << ": " << g.summary());
            REQUIRE(g.pass);
          }
          // Its own configuration picks its own algorithm.
          const LaunchConfig own = config_for(model::Policy::flashinfer, Impl::flashinfer, p, node, runner);
          REQUIRE(own.algo == model::flashinfer_algorithm(p));
          const ref::GateReport g = runner.check(p, own);
          INFO("own configuration " << to_string(own) << ": " << g.summary());
          REQUIRE(g.pass);
          ++checked;
        }
  }
  CHECK(checked == 3 * 3 * 4 * 2);  // N x dtype x pattern x algorithm: every one runs
}

TEST_CASE("vllm: its one-stage kernel + the norm kernel passes the gate at N 2, 4 and 8 where its sum is exact") {
  if (!peers::built()) {
    WARN("skipped: built without the peers: " << peers::not_built_reason());
    return;
  }
  for (int n : {2, 4, 8}) {
    EmulatedNode node(peers_node(n, 64, 4096));
    for (DType d : {DType::bf16, DType::fp16})
      for (Pattern pattern : {Pattern::ar, Pattern::ar_res_rms, Pattern::ar_res_rms_out_fp8})
        for (int tokens : {1, 5, 24}) {
          Problem p;
          p.nranks = n;
          p.dtype = d;
          p.pattern = pattern;
          p.tokens = tokens;
          p.hidden = 1536;
          p.acc = n == 2 ? Accumulation::pairwise : Accumulation::fp32_acc;
          INFO("N " << n << " " << to_string(d) << " " << to_string(pattern) << " tokens " << tokens);
          REQUIRE(implementation_refusal(Impl::vllm, p, false, node.rank_spec().cc_major) == "");
          FusedRunner runner(node, p, 1, 31 + static_cast<uint64_t>(tokens), ref::Distribution::normal);
          LaunchConfig cfg = peers::vllm_launch_config(p);
          cfg.impl = Impl::vllm;
          for (int call = 0; call < 2; ++call) {
            const ref::GateReport g = runner.check(p, cfg);
            INFO("call " << call << ": " << g.summary());
            REQUIRE(g.pass);
          }
        }
  }
}

TEST_CASE("peers: refused with the reason where they have no kernel or their sum is not the reference's") {
  if (!peers::built()) {
    WARN("skipped: built without the peers: " << peers::not_built_reason());
    return;
  }
  EmulatedNode node(peers_node(4, 16, 2048));
  Problem p;
  p.nranks = 4;
  p.tokens = 16;
  p.hidden = 2048;
  p.acc = Accumulation::pairwise;
  FusedRunner runner(node, p, 1, 7, ref::Distribution::normal);
  LaunchConfig vllm = peers::vllm_launch_config(p);
  vllm.impl = Impl::vllm;
  // vLLM sums in fp32 and rounds once: not the pairwise reference beyond N = 2.
  REQUIRE_THROWS_WITH(runner.prepare(p, vllm), Catch::Contains("fp32_acc"));
  // NVFP4 needs sm_100 in FlashInfer's kernels.
  Problem fp4 = p;
  fp4.pattern = Pattern::ar_res_rms_fp4;
  if (node.rank_spec().cc_major < 10)
    CHECK(implementation_refusal(Impl::flashinfer, fp4, false, node.rank_spec().cc_major).find("sm_100") !=
          std::string::npos);
  // A node opened without the peers' workspace part refuses them and says so.
  NodeOptions plain = peers_node(2, 16, 2048);
  plain.peers = false;
  EmulatedNode without(plain);
  Problem two = p;
  two.nranks = 2;
  FusedRunner runner2(without, two, 1, 7, ref::Distribution::normal);
  LaunchConfig fi;  // trtllm's mapping for FlashInfer at H 2048 bf16: 256 threads x one 16-byte vector, a block per token
  fi.impl = Impl::flashinfer;
  fi.tpb = 256;
  fi.cluster = 1;
  fi.grid = two.tokens;
  fi.vecs_per_thread = 1;
  REQUIRE_THROWS_WITH(runner2.prepare(two, fi), Catch::Contains("without the peers' workspace part"));
}
