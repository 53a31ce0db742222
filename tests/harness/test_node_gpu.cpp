// GPU tests of the emulated node (DESIGN §5, §6): each rank's green context runs its kernels on a
// disjoint set of SMs of the partition size model::sm_partition predicts; workspaces start in the
// documented state; the start gate releases all ranks; CUPTI delivers every tagged kernel record.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "harness/cupti_timer.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/timing.h"
#include "model/gpu_spec.h"
#include "model/policies.h"
#include "tests/catch.h"
#include "tests/harness/smid_probe.h"

using namespace arlab;
using namespace arlab::harness;

namespace {
constexpr unsigned long long kProbeSpinNs = 200000;  // 0.2 ms per block: long enough to spread blocks
}

TEST_CASE("green-context partitions are disjoint and of the modelled size") {
  for (int n : {2, 4, 8}) {
    NodeOptions o;
    o.nranks = n;
    o.max_tokens = 8;
    o.max_hidden = 1024;
    EmulatedNode node(o);
    const int want = model::sm_partition(node.device().spec, n).sm_count;
    INFO("N = " << n << ", device " << node.device().name << " with " << node.device().spec.sm_count << " SMs");
    REQUIRE(node.sms_per_rank() == want);
    REQUIRE(node.rank_spec().sm_count == want);
    REQUIRE(node.rank_spec().link == model::LinkKind::local);

    const int blocks = 4 * node.device().spec.sm_count;  // more blocks than the whole GPU has SMs
    std::vector<DeviceBuffer> out;
    for (int r = 0; r < n; ++r) {
      out.emplace_back(sizeof(unsigned) * blocks);
      ARLAB_CUDA_CHECK(launch_smid_probe(out.back().as<unsigned>(), blocks, kProbeSpinNs, node.rank(r).stream()));
    }
    std::vector<std::set<unsigned>> used(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      ARLAB_CUDA_CHECK(cudaStreamSynchronize(node.rank(r).stream()));
      std::vector<unsigned> ids(static_cast<size_t>(blocks));
      ARLAB_CUDA_CHECK(cudaMemcpy(ids.data(), out[static_cast<size_t>(r)].data(), ids.size() * sizeof(unsigned),
                                  cudaMemcpyDeviceToHost));
      used[static_cast<size_t>(r)].insert(ids.begin(), ids.end());
      INFO("rank " << r << " ran on " << used[static_cast<size_t>(r)].size() << " SMs");
      REQUIRE(static_cast<int>(used[static_cast<size_t>(r)].size()) <= want);
    }
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        std::vector<unsigned> shared;
        std::set_intersection(used[static_cast<size_t>(a)].begin(), used[static_cast<size_t>(a)].end(),
                              used[static_cast<size_t>(b)].begin(), used[static_cast<size_t>(b)].end(),
                              std::back_inserter(shared));
        INFO("ranks " << a << " and " << b);
        REQUIRE(shared.empty());
      }
  }
}

TEST_CASE("workspace initialization: control block zero, every buffer byte the dtype's -0.0") {
  NodeOptions o;
  o.nranks = 2;
  o.max_tokens = 3;
  o.max_hidden = 1024;
  o.max_elem_bytes = 4;
  EmulatedNode node(o);
  for (DType d : {DType::bf16, DType::fp32}) {
    node.format(d);
    for (int r = 0; r < 2; ++r) {
      const LamportWorkspace& ws = node.rank(r).workspace();
      std::vector<uint32_t> host(ws.layout().total_bytes / 4);
      ARLAB_CUDA_CHECK(cudaMemcpy(host.data(), ws.base(), ws.layout().total_bytes, cudaMemcpyDeviceToHost));
      const size_t region = kernels::kRegionOffset / 4;
      for (size_t i = 0; i < region; ++i) REQUIRE(host[i] == 0u);
      const uint32_t want = negative_zero_fill(d);
      size_t wrong = 0;
      for (size_t i = region; i < host.size(); ++i) wrong += host[i] != want;
      INFO(to_string(d) << " rank " << r);
      REQUIRE(wrong == 0u);
    }
  }
}

TEST_CASE("start gate releases all ranks, a missing rank times out with a clear error") {
  NodeOptions o;
  o.nranks = 4;
  o.max_tokens = 8;
  o.max_hidden = 1024;
  o.timeout_ms = 100;
  EmulatedNode node(o);
  node.format(DType::bf16);
  for (int round = 0; round < 50; ++round)
    for (int r = 0; r < 4; ++r) node.rank(r).launch_gate(node.timeout_ns());
  REQUIRE_NOTHROW(node.synchronize());
  for (int r = 0; r < 3; ++r) node.rank(r).launch_gate(node.timeout_ns());  // rank 3 never arrives
  try {
    node.synchronize();
    FAIL("a gate without rank 3 must time out");
  } catch (const DeviceTimeout& e) {
    const std::string what = e.what();
    INFO(what);
    REQUIRE(e.fault.kind == kernels::WaitKind::gate);
    REQUIRE(what.find("timing gate") != std::string::npos);
    REQUIRE(what.find("of 4 ranks") != std::string::npos);
    REQUIRE(what.find("re-initialized") != std::string::npos);
  }
  for (int r = 0; r < 4; ++r) node.rank(r).launch_gate(node.timeout_ns());  // usable again
  REQUIRE_NOTHROW(node.synchronize());
}

TEST_CASE("timing: CUPTI delivers every tagged kernel, figures are consistent") {
  CuptiKernelTimer cupti;
  NodeOptions o;
  o.nranks = 2;
  o.max_tokens = 64;
  o.max_hidden = 4096;
  EmulatedNode node(o);
  Problem p;
  p.tokens = 64;
  p.hidden = 4096;
  p.nranks = 2;
  FusedRunner runner(node, p, 2, 7, ref::Distribution::normal);
  model::KernelResources res = runner.resources(LaunchConfig{});
  const LaunchConfig cfg = model::choose_launch_config(model::Policy::trtllm, p, node.rank_spec(), res,
                                                       model::default_calibration());
  TimingOptions t;
  t.warmup = 5;
  t.iters = 40;
  t.graph_calls = 8;
  t.graph_reps = 3;
  const TimingReport rep = time_isolated(runner, p, cfg, t, &cupti);
  INFO(rep.note);
  REQUIRE(rep.source == "cupti");
  REQUIRE(rep.iters == 40);
  REQUIRE(rep.nsets == 2);
  REQUIRE(rep.kernel_us.median > 0);
  REQUIRE(rep.kernel_us.p10 <= rep.kernel_us.median);
  REQUIRE(rep.kernel_us.median <= rep.kernel_us.p90);
  REQUIRE(rep.skewfree_us > 0);
  REQUIRE(rep.rank_spread_us >= 0);
  const TimingReport ev = time_isolated(runner, p, cfg, t, nullptr);
  REQUIRE(ev.source == "events");
  REQUIRE(ev.kernel_us.median > 0);
  const double graph = time_graph_per_call(runner, p, cfg, t);
  REQUIRE(std::isfinite(graph));
  REQUIRE(graph > 0);
  // The timed calls left the node correct.
  REQUIRE(runner.check(p, cfg).pass);
}
