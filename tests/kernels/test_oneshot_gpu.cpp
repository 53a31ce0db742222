// GPU tests of the one-shot fused kernels on the emulated node (issue 4), each for both kernel
// bodies (issue 13, common/launch_config.h Impl: reference and lean) unless said otherwise:
//  * a correctness matrix over pattern x dtype x N x tokens x H x accumulation x launch
//    configuration x PDL x scale-factor layout, as a pairwise covering array (every value of every
//    axis and every pair of values of any two axes; NVFP4 with fp32 excluded), each case poisoned,
//    run and gated on every output of every rank;
//  * refusals: NVFP4 with fp32, H not a multiple of the vector width, tokens above the workspace
//    (no kernel runs: one body is enough);
//  * 1000 consecutive checked calls with changing token counts (buffer rotation), then 1000
//    unsynchronized back-to-back calls;
//  * reference and lean calls interleaved on one workspace (every transition between the bodies,
//    checked, then unsynchronized): each body leaves the Lamport buffers as the other expects them;
//  * CUDA-graph capture and replay;
//  * -0.0, NaN and +-Inf inputs (docs/operation.md) never stall and match the reference;
//  * a rank that never runs makes its peer time out with an error naming rank / block / what, and
//    the workspace recovers.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/check.h"
#include "harness/covering_array.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/timing.h"
#include "model/calibration.h"
#include "model/legality.h"
#include "model/policies.h"
#include "reference/compare.h"
#include "reference/fused_reference.h"
#include "tests/catch.h"
#include "tests/harness/pairwise_matrix.h"

using namespace arlab;
using namespace arlab::harness;

namespace {

// ---- the matrix axes (issue 4) ----
const std::vector<Pattern>& kPatterns = testing::kMatrixPatterns;
const std::vector<DType>& kDtypes = testing::kMatrixDtypes;
const std::vector<int>& kRanks = testing::kMatrixRanks;
const std::vector<int> kTokens = {1, 3, 128, 129, 1000};
const std::vector<int>& kHidden = testing::kMatrixHidden;
const std::vector<Accumulation>& kAccs = testing::kMatrixAccs;
const std::vector<ScaleLayout>& kLayouts = testing::kMatrixLayouts;

// Launch configurations: the policies, and explicit shapes that leave the reference mapping.
enum class Recipe {
  legacy,          // peer library before the change
  trtllm,          // after the change
  occupancy,       // trtllm shape, occupancy-sized grid (several blocks per SM)
  vpt2_c1,         // 2 vectors per thread, no cluster
  vpt4_c2,         // 4 vectors per thread, clusters of 2
  many_blocks_c1,  // no cluster, 4 vectors per thread, 8 blocks per SM (grid > tokens when few)
  grid_gt_tokens,  // trtllm shape with 5 idle clusters beyond the tokens
  odd_tpb,         // odd block size, clusters of 2 (NVFP4 amax pairs cross threads / blocks)
};
const std::vector<Recipe> kRecipes = {Recipe::legacy,  Recipe::trtllm,         Recipe::occupancy,
                                      Recipe::vpt2_c1, Recipe::vpt4_c2,        Recipe::many_blocks_c1,
                                      Recipe::grid_gt_tokens, Recipe::odd_tpb};

const char* recipe_name(Recipe r) {
  switch (r) {
    case Recipe::legacy: return "legacy";
    case Recipe::trtllm: return "trtllm";
    case Recipe::occupancy: return "occupancy";
    case Recipe::vpt2_c1: return "vpt2_c1";
    case Recipe::vpt4_c2: return "vpt4_c2";
    case Recipe::many_blocks_c1: return "many_blocks_c1";
    case Recipe::grid_gt_tokens: return "grid_gt_tokens";
    case Recipe::odd_tpb: return "odd_tpb";
  }
  return "?";
}

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

LaunchConfig shaped(const Problem& p, int tpb, int cluster, int grid) {
  LaunchConfig c;
  c.tpb = tpb;
  c.cluster = cluster;
  c.grid = grid;
  c.vecs_per_thread = model::required_vecs_per_thread(p, tpb, cluster);
  c.algo = p.algo;
  return c;
}

LaunchConfig make_config(Recipe r, const Problem& p, const model::GpuSpec& spec, const model::KernelResources& res) {
  const model::Calibration cal = model::default_calibration();
  const long long tpt = threads_per_token(p);
  const int sms = spec.sm_count;
  switch (r) {
    case Recipe::legacy: return model::choose_launch_config(model::Policy::legacy, p, spec, res, cal);
    case Recipe::trtllm: return model::choose_launch_config(model::Policy::trtllm, p, spec, res, cal);
    case Recipe::occupancy: return model::choose_launch_config(model::Policy::occupancy, p, spec, res, cal);
    case Recipe::vpt2_c1: return shaped(p, ceil_div(tpt, 2), 1, sms);
    case Recipe::vpt4_c2: return shaped(p, ceil_div(tpt, 8), 2, 2 * std::min(p.tokens, sms / 2));
    case Recipe::many_blocks_c1: return shaped(p, ceil_div(tpt, 4), 1, 8 * sms);
    case Recipe::grid_gt_tokens: {
      const LaunchConfig t = model::choose_launch_config(model::Policy::trtllm, p, spec, res, cal);
      return shaped(p, t.tpb, t.cluster, t.cluster * (p.tokens + 5));
    }
    case Recipe::odd_tpb: {
      for (int vpt : {2, 1, 4}) {
        const int tpb = ceil_div(tpt, 2LL * vpt) | 1;
        if (tpb <= 1024 && model::required_vecs_per_thread(p, tpb, 2) == vpt)
          return shaped(p, tpb, 2, 2 * std::min(p.tokens, sms / 2));
      }
      break;
    }
  }
  throw std::logic_error(std::string("no ") + recipe_name(r) + " configuration for H = " + std::to_string(p.hidden));
}

std::string describe(const Problem& p, Recipe r, const LaunchConfig& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %s N=%d tokens=%d H=%d %s %s %s cfg=%d/%d/%d vpt=%d%s", to_string(p.pattern),
                to_string(p.dtype), p.nranks, p.tokens, p.hidden, to_string(p.acc), to_string(p.sf_layout),
                recipe_name(r), c.tpb, c.cluster, c.grid, c.vecs_per_thread, c.pdl ? " pdl" : "");
  return buf;
}

NodeOptions matrix_node(int n) {
  NodeOptions o;
  o.nranks = n;
  o.max_tokens = 1000;
  o.max_hidden = 8192;
  o.max_elem_bytes = 4;
  o.timeout_ms = 2000;
  return o;
}

Problem base_problem(int n, int tokens, int hidden, DType d, Pattern pat) {
  Problem p;
  p.nranks = n;
  p.tokens = tokens;
  p.hidden = hidden;
  p.dtype = d;
  p.pattern = pat;
  return p;
}

// The registers and shared memory of the runner's kernel of body v for its shape's algorithm (what its
// policies size grids by).
model::KernelResources resources_of(const FusedRunner& runner, Impl v) {
  LaunchConfig probe;
  probe.impl = v;
  probe.algo = runner.shape().algo;
  return runner.resources(probe);
}

LaunchConfig trtllm_config(FusedRunner& runner, const Problem& p, Impl v = Impl::reference) {
  return model::choose_launch_config(model::Policy::trtllm, p, runner.node().rank_spec(), resources_of(runner, v),
                                     model::default_calibration(), nullptr, {v});
}

}  // namespace

TEST_CASE("one-shot correctness matrix (pairwise covering array), both kernel bodies") {
  const testing::MatrixAxes axes{kPatterns, kDtypes, kRanks, kTokens, kHidden, kAccs,
                                 static_cast<int>(kRecipes.size()), kLayouts};
  // The same cases for each body (the recipes size grids by that body's registers); other inputs
  // per body (seed base), so the two runs are not one data set twice.
  uint64_t seed_base = 1000;
  for (Impl v : arlab_bodies()) {
    INFO("kernel " << to_string(v));
    testing::run_pairwise_matrix(
        std::string("correctness matrix, kernel ") + to_string(v), Algorithm::oneshot, axes, seed_base,
        [](int n) { return matrix_node(n); },
        [](int recipe, const Problem& p, const model::GpuSpec& spec, const model::KernelResources& res) {
          return make_config(kRecipes[static_cast<size_t>(recipe)], p, spec, res);
        },
        [](const Problem& p, int recipe, const LaunchConfig& c) {
          return describe(p, kRecipes[static_cast<size_t>(recipe)], c);
        },
        v);
    seed_base += 1000;
  }
}

TEST_CASE("legacy's odd block size (tpb 129 for bf16 H 1032) and more clusters than tokens") {
  EmulatedNode node(matrix_node(2));
  Problem p = base_problem(2, 3, 1032, DType::bf16, Pattern::ar_res_rms_out_fp8);
  FusedRunner runner(node, p, 1, 5, ref::Distribution::uniform);
  for (Impl v : arlab_bodies()) {
    const LaunchConfig cfg = model::choose_launch_config(model::Policy::legacy, p, node.rank_spec(),
                                                         resources_of(runner, v), model::default_calibration(),
                                                         nullptr, {v});
    INFO(to_string(cfg));
    REQUIRE(cfg.impl == v);
    REQUIRE(cfg.tpb == 129);
    REQUIRE(runner.check(p, cfg).pass);
    LaunchConfig wide = shaped(p, 129, 1, 64);  // 64 clusters for 3 tokens
    wide.impl = v;
    REQUIRE(runner.check(p, wide).pass);
  }
}

TEST_CASE("cluster reductions with many tokens per cluster: pushed totals (whole warps) and barriers (not)") {
  // The lean kernel pushes block totals between the blocks of a cluster of 2 or 4 blocks of whole
  // warps (token parity double-buffers the slots: many tokens per cluster exercise the reuse), and
  // keeps the cluster barriers otherwise (clusters of 8, partial warps); the reference always does.
  EmulatedNode node(matrix_node(2));
  const Problem p = base_problem(2, 61, 4096, DType::bf16, Pattern::ar_res_rms);
  FusedRunner runner(node, p, 2, 11, ref::Distribution::normal);
  const LaunchConfig shapes[] = {shaped(p, 128, 8, 16), shaped(p, 96, 4, 8), shaped(p, 256, 2, 2),
                                 shaped(p, 130, 2, 4), shaped(p, 33, 8, 8)};
  for (Impl v : arlab_bodies()) {
    for (LaunchConfig c : shapes) {
      c.impl = v;
      INFO("kernel " << to_string(v) << " " << to_string(c));
      for (int call = 0; call < 3; ++call) {
        const ref::GateReport rep = runner.check(p, c);
        INFO(rep.summary());
        REQUIRE(rep.pass);
      }
    }
  }
}

TEST_CASE("unsupported problems are refused with a clear error") {
  EmulatedNode node(matrix_node(2));
  SECTION("NVFP4 with fp32") {
    const Problem p = base_problem(2, 8, 4096, DType::fp32, Pattern::ar_res_rms_fp4);
    try {
      FusedRunner runner(node, p, 1, 1, ref::Distribution::normal);
      FAIL("NVFP4 with fp32 must be refused");
    } catch (const InvalidArgument& e) {
      REQUIRE(std::string(e.what()).find("needs a 16-bit dtype, got fp32") != std::string::npos);
    }
    REQUIRE_THROWS_AS(kernels::find_fused_kernel(kernels::kernel_key(p)), InvalidArgument);
  }
  SECTION("H not a multiple of the vector width") {
    const Problem p = base_problem(2, 8, 1028, DType::bf16, Pattern::ar_res_rms);  // 1028 % 8 = 4
    try {
      FusedRunner runner(node, p, 1, 1, ref::Distribution::normal);
      FAIL("H = 1028 with bf16 must be refused");
    } catch (const InvalidArgument& e) {
      REQUIRE(std::string(e.what()).find("hidden = 1028 is not a multiple of the vector width 8") != std::string::npos);
    }
  }
  SECTION("tokens above the workspace") {
    const Problem p = base_problem(2, 1001, 8192, DType::fp32, Pattern::ar_res_rms);
    try {
      FusedRunner runner(node, p, 1, 1, ref::Distribution::normal);
      FAIL("1001 tokens in a 1000-token workspace must be refused");
    } catch (const InvalidArgument& e) {
      REQUIRE(std::string(e.what()).find("tokens = 1001 exceeds the workspace capacity of 1000 tokens") !=
              std::string::npos);
    }
  }
}

namespace {
// A fixed-seed sequence (Knuth's MMIX LCG): token counts and kernel-body schedules that repeat run to run.
struct Lcg {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  }
};
const std::vector<int> kRotationTokens = {1, 2, 3, 7, 16, 31, 64, 100, 128, 129};
}  // namespace

TEST_CASE("1000 consecutive calls with changing token counts are all correct (buffer rotation)") {
  for (Impl v : arlab_bodies()) {
    INFO("kernel " << to_string(v));
    EmulatedNode node(matrix_node(2));
    const Problem shape = base_problem(2, 129, 4096, DType::bf16, Pattern::ar_res_rms);
    FusedRunner runner(node, shape, 1, 11, ref::Distribution::normal);
    Lcg lcg{12345};
    auto next_tokens = [&]() { return kRotationTokens[lcg.next() % kRotationTokens.size()]; };
    int failures = 0;
    for (int call = 0; call < 1000; ++call) {
      Problem p = shape;
      p.tokens = next_tokens();
      LaunchConfig cfg = trtllm_config(runner, p, v);
      cfg.pdl = (call % 3) == 0;
      const ref::GateReport rep = runner.check(p, cfg);
      if (!rep.pass && ++failures <= 5)
        std::printf("  %s call %d (%d tokens): %s\n", to_string(v), call, p.tokens, rep.first_failure.c_str());
    }
    REQUIRE(failures == 0);

    // Back-to-back, unsynchronized: ranks drift up to a call apart; the last call is checked.
    for (int call = 0; call < 1000; ++call) {
      Problem p = shape;
      p.tokens = next_tokens();
      LaunchConfig cfg = trtllm_config(runner, p, v);
      cfg.pdl = (call % 2) == 0;
      runner.enqueue(runner.prepare(p, cfg), 0, false);
    }
    REQUIRE_NOTHROW(node.synchronize());
    REQUIRE(runner.check(shape, trtllm_config(runner, shape, v)).pass);
  }
}

// The two bodies share the workspace protocol (kernels/oneshot_lean_kernel.cuh PROTOCOL): a
// reference call leaves its own slot and a clear pass owed (bytes_in_buffer), which a lean call
// that follows must pay; a lean call leaves its buffer clean, which a reference call that follows
// must find clean. Every transition (reference -> reference, reference -> lean, lean -> reference,
// lean -> lean) is exercised many times, with changing token counts (a longer call after a shorter
// one reaches rows the shorter one never wrote), on 2 and 4 ranks.
TEST_CASE("reference and lean calls interleaved on one workspace are all correct") {
  constexpr int kCheckedCalls = 100;     // per rank count: 200 checked calls in all
  constexpr int kBackToBackCalls = 400;  // unsynchronized, per rank count
  for (int n : {2, 4}) {
    INFO("N = " << n);
    EmulatedNode node(matrix_node(n));
    const Problem shape = base_problem(n, 129, 5120, DType::bf16, Pattern::ar_res_rms_fp8);
    FusedRunner runner(node, shape, 1, 31 + static_cast<uint64_t>(n), ref::Distribution::normal);
    Lcg lcg{777 + static_cast<uint64_t>(n)};
    const std::vector<Impl> variants = arlab_bodies();
    // Mostly alternating, sometimes repeating, so that every transition occurs.
    auto next_variant = [&](Impl last) {
      const bool repeat = lcg.next() % 4 == 0;
      return repeat ? last : (last == Impl::reference ? Impl::lean : Impl::reference);
    };
    std::map<std::pair<Impl, Impl>, int> transitions;
    Impl last = Impl::reference;
    int failures = 0;
    for (int call = 0; call < kCheckedCalls; ++call) {
      const Impl v = call == 0 ? Impl::lean : next_variant(last);
      Problem p = shape;
      p.tokens = kRotationTokens[lcg.next() % kRotationTokens.size()];
      LaunchConfig cfg = trtllm_config(runner, p, v);
      cfg.pdl = (call % 3) == 1;
      const ref::GateReport rep = runner.check(p, cfg);
      if (call > 0) ++transitions[{last, v}];
      if (!rep.pass && ++failures <= 5)
        std::printf("  N=%d call %d (%s after %s, %d tokens): %s\n", n, call, to_string(v), to_string(last),
                    p.tokens, rep.first_failure.c_str());
      last = v;
    }
    REQUIRE(failures == 0);
    for (Impl a : variants)
      for (Impl b : variants) {
        INFO(to_string(a) << " -> " << to_string(b));
        CHECK(transitions[{a, b}] >= 5);
      }

    // Back-to-back, unsynchronized, the bodies mixed; then one checked call of each.
    for (int call = 0; call < kBackToBackCalls; ++call) {
      last = next_variant(last);
      Problem p = shape;
      p.tokens = kRotationTokens[lcg.next() % kRotationTokens.size()];
      LaunchConfig cfg = trtllm_config(runner, p, last);
      cfg.pdl = (call % 2) == 0;
      runner.enqueue(runner.prepare(p, cfg), 0, false);
    }
    REQUIRE_NOTHROW(node.synchronize());
    for (Impl v : variants) REQUIRE(runner.check(shape, trtllm_config(runner, shape, v)).pass);
  }
}

TEST_CASE("CUDA-graph capture and replay are correct") {
  for (Impl v : arlab_bodies()) {
    for (bool pdl : {false, true}) {
      EmulatedNode node(matrix_node(4));
      Problem p = base_problem(4, 96, 5120, DType::bf16, Pattern::ar_res_rms_out_fp4);
      p.scale = 0.5f;
      FusedRunner runner(node, p, 1, 21, ref::Distribution::heavy_tailed);
      LaunchConfig cfg = trtllm_config(runner, p, v);
      cfg.pdl = pdl;
      INFO("kernel " << to_string(v) << ", pdl " << pdl);
      const ref::GateReport rep = check_graph_replay(runner, runner.prepare(p, cfg), 20);
      INFO(rep.summary());
      REQUIRE(rep.pass);
      REQUIRE(runner.check(p, cfg).pass);  // direct launches still agree after the replays
    }
  }
}

namespace {

uint32_t nan_bits(DType d) { return d == DType::fp32 ? 0x7FC00000u : d == DType::bf16 ? 0x7FC0u : 0x7E00u; }
uint32_t inf_bits(DType d, bool negative) {
  const uint32_t pos = d == DType::fp32 ? 0x7F800000u : d == DType::bf16 ? 0x7F80u : 0x7C00u;
  const uint32_t sign = d == DType::fp32 ? 0x80000000u : 0x8000u;
  return negative ? (pos | sign) : pos;
}
uint32_t neg_zero_bits(DType d) { return d == DType::fp32 ? 0x80000000u : 0x8000u; }

// Seeded inputs with -0.0 sprinkled over every x_r, a token whose x is -0.0 on every rank, and
// NaN / +-Inf placed on some ranks' x and in the residual.
ref::FusedInputs special_inputs(const Problem& p) {
  ref::FusedInputs in = ref::make_inputs(p, 99, ref::Distribution::normal);
  ref::add_negative_zeros(in, 7, 0.25);
  const int64_t H = p.hidden;
  in.x[0].set_bits(1 * H + 5, nan_bits(p.dtype));
  in.x[1].set_bits(2 * H + 17, inf_bits(p.dtype, false));
  in.x[p.nranks - 1].set_bits(2 * H + 17, inf_bits(p.dtype, true));  // +Inf + -Inf = NaN
  in.x[p.nranks - 1].set_bits(3 * H + 100, inf_bits(p.dtype, false));
  for (int r = 0; r < p.nranks; ++r)
    for (int64_t i = 0; i < H; ++i) in.x[static_cast<size_t>(r)].set_bits(5 * H + i, neg_zero_bits(p.dtype));
  if (!in.residual_in.empty()) in.residual_in.set_bits(4 * H + 9, nan_bits(p.dtype));
  return in;
}

}  // namespace

TEST_CASE("-0.0, NaN and +-Inf inputs behave as docs/operation.md says and never stall") {
  EmulatedNode node(matrix_node(4));
  node.set_timeout_ms(200);  // a stall would surface as a DeviceTimeout quickly
  for (DType d : kDtypes)
    for (Pattern pat : kPatterns) {
      if (has_fp4(pat) && d == DType::fp32) continue;
      Problem p = base_problem(4, 8, 4096, d, pat);
      std::vector<ref::FusedInputs> sets;
      sets.push_back(special_inputs(p));
      FusedRunner runner(node, p, std::move(sets));
      for (Impl v : arlab_bodies()) {
        const LaunchConfig cfg = trtllm_config(runner, p, v);
        INFO(to_string(d) << " " << to_string(pat) << " kernel " << to_string(v));
        ref::GateReport rep;
        REQUIRE_NOTHROW(rep = runner.check(p, cfg));
        INFO(rep.summary());
        CHECK(rep.pass);
      }
    }
}

TEST_CASE("a rank that never runs: its peer times out naming rank/block/what, the workspace recovers") {
  for (Impl v : arlab_bodies()) {
    INFO("kernel " << to_string(v));
    EmulatedNode node(matrix_node(2));
    node.set_timeout_ms(50);
    const Problem p = base_problem(2, 16, 4096, DType::bf16, Pattern::ar_res_rms);
    FusedRunner runner(node, p, 1, 3, ref::Distribution::normal);
    const LaunchConfig cfg = trtllm_config(runner, p, v);
    REQUIRE(runner.check(p, cfg).pass);
    runner.enqueue_rank(0, runner.prepare(p, cfg), 0, false);  // rank 1 never launches its part
    try {
      node.synchronize();
      FAIL("rank 0 alone must time out");
    } catch (const DeviceTimeout& e) {
      const std::string what = e.what();
      INFO(what);
      REQUIRE(e.fault.kind == kernels::WaitKind::peer_data);
      REQUIRE(e.fault.rank == 0);
      REQUIRE(e.fault.peer == 1);
      REQUIRE(e.fault.block < cfg.grid);
      REQUIRE(what.find("rank 0, block ") != std::string::npos);
      REQUIRE(what.find("rank 1's data") != std::string::npos);
      REQUIRE(what.find("re-initialized") != std::string::npos);
    }
    // Recovered, rotation in step again: either body may follow the re-initialized workspace.
    for (int i = 0; i < 6; ++i) {
      const Impl next = i % 2 == 0 ? v : (v == Impl::lean ? Impl::reference
                                                                             : Impl::lean);
      REQUIRE(runner.check(p, trtllm_config(runner, p, next)).pass);
    }
  }
}

TEST_CASE("each body runs its own kernel of each algorithm") {
  EmulatedNode node(matrix_node(2));
  const Problem p = base_problem(2, 16, 4096, DType::bf16, Pattern::ar_res_rms);
  {
    FusedRunner runner(node, p, 1, 3, ref::Distribution::normal);
    const LaunchConfig cfg = trtllm_config(runner, p, Impl::lean);
    REQUIRE(runner.kernel_for(cfg).kernel.name == "oneshot_lean<bf16,N=2,ar_res_rms,pairwise>");
    REQUIRE(runner.kernel_for(trtllm_config(runner, p)).kernel.name == "oneshot<bf16,N=2,ar_res_rms,pairwise>");
  }
  Problem two = p;
  two.algo = Algorithm::twoshot;
  FusedRunner runner(node, two, 1, 3, ref::Distribution::normal);
  const LaunchConfig ref_cfg = trtllm_config(runner, two);
  const LaunchConfig lean_cfg = trtllm_config(runner, two, Impl::lean);
  REQUIRE(runner.kernel_for(ref_cfg).kernel.name == "twoshot<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(runner.kernel_for(lean_cfg).kernel.name == "twoshot_lean<bf16,N=2,ar_res_rms,pairwise>");
  REQUIRE(runner.check(two, ref_cfg).pass);
  REQUIRE(runner.check(two, lean_cfg).pass);
}

TEST_CASE("one runner, one group: one- and two-shot calls and both bodies, in any order, all pass the gate") {
  // A group mixes algorithms (the model's pick beside trtllm's): calls of either algorithm and either
  // body share the workspace and follow each other on one runner. Three of the four share the
  // Lamport workspace and its control block (both one-shot bodies and the lean two-shot one).
  EmulatedNode node(matrix_node(2));
  const Problem p = base_problem(2, 64, 4096, DType::bf16, Pattern::ar_res_rms);
  FusedRunner runner(node, p, 1, 11, ref::Distribution::normal);
  Problem two = p;
  two.algo = Algorithm::twoshot;
  const auto twoshot_cfg = [&](Impl body) {
    LaunchConfig probe;
    probe.algo = Algorithm::twoshot;
    probe.impl = body;
    return model::choose_launch_config(model::Policy::trtllm, two, node.rank_spec(), runner.resources(probe),
                                       model::default_calibration(), nullptr, {body});
  };
  const CheckedCall calls[] = {runner.prepare(p, trtllm_config(runner, p, Impl::lean)),
                               runner.prepare(p, twoshot_cfg(Impl::reference)),
                               runner.prepare(p, trtllm_config(runner, p)),
                               runner.prepare(p, twoshot_cfg(Impl::lean)),
                               runner.prepare(p, twoshot_cfg(Impl::lean)),
                               runner.prepare(p, trtllm_config(runner, p, Impl::lean)),
                               runner.prepare(p, twoshot_cfg(Impl::reference))};
  REQUIRE(calls[1].problem().algo == Algorithm::twoshot);  // the call takes its configuration's algorithm
  REQUIRE(calls[3].config().impl == Impl::lean);
  for (int round = 0; round < 3; ++round)
    for (const CheckedCall& c : calls) {
      INFO("round " << round << " " << to_string(c.config()));
      REQUIRE(runner.check(c).pass);
    }
}
