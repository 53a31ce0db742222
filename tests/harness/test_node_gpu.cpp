// GPU tests of the emulated node (docs/nodes.md, docs/measurement.md): each rank's green context runs its kernels on a
// disjoint set of SMs of the partition size model::sm_partition predicts; workspaces start in the
// documented state; the start gate releases all ranks; CUPTI delivers every tagged kernel record.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
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

namespace {

// A two-rank emulated node with a one-shot problem, its runner and the trtllm configuration.
struct TimingFixture {
  NodeOptions o;
  std::unique_ptr<EmulatedNode> node;
  Problem p;
  std::unique_ptr<FusedRunner> runner;
  LaunchConfig cfg;
  TimingFixture() {
    o.nranks = 2;
    o.max_tokens = 64;
    o.max_hidden = 4096;
    node = std::make_unique<EmulatedNode>(o);
    p.tokens = 64;
    p.hidden = 4096;
    p.nranks = 2;
    runner = std::make_unique<FusedRunner>(*node, p, 2, 7, ref::Distribution::normal);
    const model::KernelResources res = runner->resources(LaunchConfig{});
    cfg = model::choose_launch_config(model::Policy::trtllm, p, node->rank_spec(), res, model::default_calibration());
  }
};

std::vector<double> all_samples(const RoundSamples& rounds) {
  std::vector<double> v;
  for (const auto& r : rounds) v.insert(v.end(), r.begin(), r.end());
  return v;
}

}  // namespace

TEST_CASE("timing: CUPTI delivers every tagged kernel, figures are consistent") {
  CuptiKernelTimer cupti;
  TimingFixture f;
  TimingOptions t;
  t.warmup_ms = 5;
  t.batch = 16;
  t.fixed_iters = 40;  // 16 + 16 + 8: the last batch is partial
  t.graph_calls = 8;
  t.graph_reps = 3;
  const TimingReport rep = time_isolated(*f.runner, f.runner->prepare(f.p, f.cfg), t, &cupti);
  INFO(rep.note);
  REQUIRE(rep.source == "cupti");
  REQUIRE(rep.iters == 40);
  REQUIRE(rep.rounds == 3);
  REQUIRE(rep.nsets == 2);
  REQUIRE(rep.kernel_us.median > 0);
  REQUIRE(rep.kernel_us.p10 <= rep.kernel_us.median);
  REQUIRE(rep.kernel_us.median <= rep.kernel_us.p90);
  REQUIRE(rep.kernel.lo <= rep.kernel.median);
  REQUIRE(rep.kernel.median <= rep.kernel.hi);
  REQUIRE(rep.skew_free.median > 0);
  REQUIRE(rep.rank_spread_us >= 0);
  REQUIRE(rep.start_skew_us.median >= 0);
  REQUIRE(std::isfinite(rep.gate_skew_us.median));  // one GPU clock: the gate's release skew is measured
  REQUIRE(all_samples(rep.kernel_rounds).size() == 40);
  const TimingReport ev = time_isolated(*f.runner, f.runner->prepare(f.p, f.cfg), t, nullptr);
  REQUIRE(ev.source == "events");
  REQUIRE(ev.kernel_us.median > 0);
  REQUIRE(std::isnan(ev.skew_free.median));  // events of different ranks share no clock
  const double graph = time_graph_per_call(*f.runner, f.runner->prepare(f.p, f.cfg), t);
  REQUIRE(std::isfinite(graph));
  REQUIRE(graph > 0);
  // The timed calls left the node correct.
  REQUIRE(f.runner->check(f.p, f.cfg).pass);
}

TEST_CASE("timing: CUPTI durations keep nanoseconds (no 0.25 us quantization)") {
  // Absolute CUPTI timestamps (~1.8e18 ns) converted to double microseconds step by 0.25 us; the
  // timing loop subtracts an integer origin first. Among 200 durations of a ~5-10 us kernel,
  // some must fall off the 0.25 us grid (and off any coarser one).
  CuptiKernelTimer cupti;
  TimingFixture f;
  TimingOptions t;
  t.warmup_ms = 5;
  t.fixed_iters = 200;
  t.graph_calls = 0;
  const TimingReport rep = time_isolated(*f.runner, f.runner->prepare(f.p, f.cfg), t, &cupti);
  int off_grid = 0;
  for (double us : all_samples(rep.kernel_rounds)) {
    const double ns = us * 1e3;
    if (std::fabs(ns / 250.0 - std::round(ns / 250.0)) > 1e-6) ++off_grid;
  }
  INFO("durations off the 0.25 us grid: " << off_grid << " of " << rep.iters);
  REQUIRE(off_grid > rep.iters / 2);
}

TEST_CASE("timing: noise-based stopping stops for the reason it reports") {
  CuptiKernelTimer cupti;
  TimingFixture f;
  TimingOptions loose;
  loose.warmup_ms = 5;
  loose.graph_calls = 0;
  loose.stop.max_noise = 0.5;  // +-50 %: met as soon as min_iters are in
  loose.stop.min_iters = 32;
  loose.stop.min_rounds = 1;
  loose.batch = 32;
  const TimingReport a = time_isolated(*f.runner, f.runner->prepare(f.p, f.cfg), loose, &cupti);
  REQUIRE(a.stop == StopReason::noise_met);
  REQUIRE(a.noise_met);
  REQUIRE(a.iters == 32);

  TimingOptions capped = loose;
  capped.stop.max_noise = 1e-9;  // unreachable: the iteration cap ends it
  capped.stop.max_iters = 64;  // two rounds of 32, below the 10 rounds a noise stop would also need
  capped.stop.max_time_s = 60;
  const TimingReport b = time_isolated(*f.runner, f.runner->prepare(f.p, f.cfg), capped, &cupti);
  REQUIRE(b.stop == StopReason::max_iters);
  REQUIRE_FALSE(b.noise_met);
  REQUIRE(b.iters == 64);
}

TEST_CASE("timing: configurations interleave round by round and give a ratio with its CI") {
  CuptiKernelTimer cupti;
  TimingFixture f;
  LaunchConfig other = f.cfg;
  other.grid = std::max(other.cluster, other.grid / 2 / other.cluster * other.cluster);  // half the clusters
  TimingOptions t;
  t.warmup_ms = 5;
  t.graph_calls = 0;
  t.batch = 8;
  t.fixed_iters = 48;
  const std::vector<TimingReport> reps = time_interleaved(*f.runner, {f.runner->prepare(f.p, f.cfg), f.runner->prepare(f.p, other), f.runner->prepare(f.p, f.cfg)}, t, &cupti, nullptr);
  REQUIRE(reps.size() == 3);
  for (const TimingReport& r : reps) {
    REQUIRE(r.iters == 48);
    REQUIRE(r.rounds == 6);
    REQUIRE(r.kernel_rounds.size() == 6);
  }
  const RatioCI same = headline_ratio(reps[2], reps[0], 0.95);
  REQUIRE(same.rounds == 6);
  REQUIRE(same.lo <= same.ratio);
  REQUIRE(same.ratio <= same.hi);
  REQUIRE(same.ratio > 0);
}

TEST_CASE("host hold: a hold the host never releases times out with a clear error") {
  TimingFixture f;
  PinnedBuffer word(sizeof(unsigned int));
  *static_cast<unsigned int*>(word.data()) = 0;
  unsigned int* device_word = nullptr;
  REQUIRE(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_word), word.data(), 0) == cudaSuccess);
  f.node->rank(1).launch_host_hold(device_word, 7, 20'000'000ull);  // 20 ms; the word stays 0
  try {
    f.node->synchronize();
    FAIL("the unreleased hold did not time out");
  } catch (const DeviceTimeout& e) {
    REQUIRE(std::string(e.what()).find("host hold") != std::string::npos);
    REQUIRE(std::string(e.what()).find("rank 1") != std::string::npos);
  }
  // The node recovers: a checked call passes.
  REQUIRE(f.runner->check(f.p, f.cfg).pass);
}
