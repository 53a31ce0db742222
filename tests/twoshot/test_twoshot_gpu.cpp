// GPU tests of the two-shot fused kernels on the emulated node (issue 5; the lean body, issue 24):
//  * the correctness matrix of the one-shot tests extended to two-shot: pattern x dtype x N x
//    tokens (all >= N, including ranges that leave the last rank empty) x H x accumulation x
//    launch configuration x PDL x scale-factor layout, as a pairwise covering array
//    (harness/covering_array.h), each case poisoned, run and gated on every output of every rank,
//    once per kernel body;
//  * refusals: fewer tokens than ranks, a grid that cannot be co-resident, more blocks than barrier
//    flags -- each with a message naming the value and the limit;
//  * consecutive calls changing token counts AND grids (checked one by one, then back-to-back
//    without synchronization), which is what the cycling barrier values and the Lamport buffer
//    rotation must survive: each body alone, then the two mixed call by call;
//  * CUDA-graph capture and replay, both bodies;
//  * a rank that never runs: its peer times out (the reference at its barrier, the lean body in its
//    poll) with an error naming rank, block and what it waited for, and the node recovers
//    (workspaces re-initialized).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/implementations.h"
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

const std::vector<Pattern>& kPatterns = testing::kMatrixPatterns;
const std::vector<DType>& kDtypes = testing::kMatrixDtypes;
const std::vector<int>& kRanks = testing::kMatrixRanks;
// >= the largest N; 13 leaves rank 7 of 8 without tokens (chunk 2), 129 splits unevenly.
const std::vector<int> kTokens = {8, 13, 128, 129, 1000};
const std::vector<int>& kHidden = testing::kMatrixHidden;
const std::vector<Accumulation>& kAccs = testing::kMatrixAccs;
const std::vector<ScaleLayout>& kLayouts = testing::kMatrixLayouts;

// Launch configurations; every one must pass model::check_legal (co-resident grids).
enum class Recipe {
  legacy,          // peer library before the change
  trtllm,          // after the change
  vpt2_c1,         // 2 vectors per thread, no cluster, one block per SM of the partition
  vpt4_c2,         // 4 vectors per thread, clusters of 2
  max_coresident,  // no cluster, 4 vectors per thread, the largest co-resident grid (several blocks/SM)
  odd_tpb,         // odd block size, clusters of 2 (NVFP4 amax pairs cross threads / blocks)
};
const std::vector<Recipe> kRecipes = {Recipe::legacy,  Recipe::trtllm,         Recipe::vpt2_c1,
                                      Recipe::vpt4_c2, Recipe::max_coresident, Recipe::odd_tpb};

const char* recipe_name(Recipe r) {
  switch (r) {
    case Recipe::legacy: return "legacy";
    case Recipe::trtllm: return "trtllm";
    case Recipe::vpt2_c1: return "vpt2_c1";
    case Recipe::vpt4_c2: return "vpt4_c2";
    case Recipe::max_coresident: return "max_coresident";
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

// The largest grid (a multiple of the cluster, at most `start`) that model::check_legal accepts.
LaunchConfig largest_legal_grid(const Problem& p, LaunchConfig c, int start, const model::GpuSpec& spec,
                                const model::KernelResources& res) {
  for (int g = start - start % c.cluster; g >= c.cluster; g -= c.cluster) {
    c.grid = g;
    if (model::legality_violation(p, c, spec, res).empty()) return c;
  }
  throw std::logic_error("no legal two-shot grid for tpb " + std::to_string(c.tpb));
}

LaunchConfig make_config(Recipe r, const Problem& p, const model::GpuSpec& spec, const model::KernelResources& res) {
  const model::Calibration cal = model::default_calibration();
  const long long tpt = threads_per_token(p);
  const int sms = spec.sm_count;
  const int chunk = ceil_div(p.tokens, p.nranks);
  switch (r) {
    case Recipe::legacy: return model::choose_launch_config(model::Policy::legacy, p, spec, res, cal);
    case Recipe::trtllm: return model::choose_launch_config(model::Policy::trtllm, p, spec, res, cal);
    case Recipe::vpt2_c1: return shaped(p, std::max(ceil_div(tpt, 2), p.nranks), 1, std::min(chunk, sms));
    case Recipe::vpt4_c2:
      return largest_legal_grid(p, shaped(p, std::max(ceil_div(tpt, 8), p.nranks), 2, 2), 2 * std::min(chunk, sms),
                                spec, res);
    case Recipe::max_coresident:
      return largest_legal_grid(p, shaped(p, std::max(ceil_div(tpt, 4), p.nranks), 1, 1), 8 * sms, spec, res);
    case Recipe::odd_tpb: {
      for (int vpt : {2, 1, 4}) {
        const int tpb = ceil_div(tpt, 2LL * vpt) | 1;
        if (tpb <= 1024 && tpb >= p.nranks && model::required_vecs_per_thread(p, tpb, 2) == vpt)
          return largest_legal_grid(p, shaped(p, tpb, 2, 2), 2 * std::min(chunk, sms), spec, res);
      }
      break;
    }
  }
  throw std::logic_error(std::string("no ") + recipe_name(r) + " configuration for H = " + std::to_string(p.hidden));
}

std::string describe(const Problem& p, Recipe r, const LaunchConfig& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "twoshot %s %s N=%d tokens=%d H=%d %s %s %s cfg=%d/%d/%d vpt=%d%s",
                to_string(p.pattern), to_string(p.dtype), p.nranks, p.tokens, p.hidden, to_string(p.acc),
                to_string(p.sf_layout), recipe_name(r), c.tpb, c.cluster, c.grid, c.vecs_per_thread,
                c.pdl ? " pdl" : "");
  return buf;
}

NodeOptions test_node(int n, int max_tokens, int max_elem_bytes) {
  NodeOptions o;
  o.nranks = n;
  o.max_tokens = max_tokens;
  o.max_hidden = 8192;
  o.max_elem_bytes = max_elem_bytes;
  o.timeout_ms = 2000;
  return o;
}

Problem twoshot_problem(int n, int tokens, int hidden, DType d, Pattern pat) {
  Problem p;
  p.algo = Algorithm::twoshot;
  p.nranks = n;
  p.tokens = tokens;
  p.hidden = hidden;
  p.dtype = d;
  p.pattern = pat;
  return p;
}

// The message of the InvalidArgument `f` throws ("" when it throws nothing or something else).
template <typename F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The registers and shared memory of the runner's two-shot kernel of `body` (what grids are sized by).
model::KernelResources twoshot_resources(const FusedRunner& runner, Impl body) {
  LaunchConfig probe;
  probe.algo = Algorithm::twoshot;
  probe.impl = body;
  return runner.resources(probe);
}

// trtllm's two-shot configuration for `body`.
LaunchConfig trtllm_twoshot(FusedRunner& runner, const Problem& p, Impl body) {
  return model::choose_launch_config(model::Policy::trtllm, p, runner.node().rank_spec(),
                                     twoshot_resources(runner, body), model::default_calibration(), nullptr, {body});
}

// Rank 0 runs its part of one call and rank 1 never does: the wait must time out (DeviceTimeout,
// looked at by `check`), and after it the node must recover (workspaces re-initialized: the next call
// is correct).
template <typename Check>
void expect_timeout_without_rank1(EmulatedNode& node, FusedRunner& runner, const Problem& p, const LaunchConfig& cfg,
                                  Check&& check) {
  runner.enqueue_rank(0, runner.prepare(p, cfg), 0, /*gate=*/false);
  bool timed_out = false;
  try {
    node.synchronize();
  } catch (const DeviceTimeout& e) {
    timed_out = true;
    const std::string what = e.what();
    INFO(what);
    check(e, what);
  }
  CHECK(timed_out);
  CHECK(runner.check(p, cfg).pass);
}

}  // namespace

TEST_CASE("two-shot correctness matrix (pairwise covering array), both kernel bodies") {
  const testing::MatrixAxes axes{kPatterns, kDtypes, kRanks, kTokens, kHidden, kAccs,
                                 static_cast<int>(kRecipes.size()), kLayouts};
  uint64_t seed_base = 2000;  // other inputs per body
  for (Impl body : arlab_bodies()) {
    INFO("kernel " << to_string(body));
    testing::run_pairwise_matrix(
        std::string("two-shot matrix, kernel ") + to_string(body), Algorithm::twoshot, axes, seed_base,
        [](int n) { return test_node(n, 1000, 4); },
        [](int recipe, const Problem& p, const model::GpuSpec& spec, const model::KernelResources& res) {
          return make_config(kRecipes[static_cast<size_t>(recipe)], p, spec, res);
        },
        [](const Problem& p, int recipe, const LaunchConfig& c) {
          return describe(p, kRecipes[static_cast<size_t>(recipe)], c);
        },
        body);
    seed_base += 1000;
  }
}

TEST_CASE("two-shot refuses fewer tokens than ranks, non-co-resident grids and grids beyond the flags") {
  EmulatedNode node(test_node(4, 64, 2));
  const Problem shape = twoshot_problem(4, 64, 4096, DType::bf16, Pattern::ar_res_rms);
  FusedRunner runner(node, shape, 1, 7, ref::Distribution::normal);
  const model::KernelResources res = twoshot_resources(runner, Impl::reference);

  // tokens 3 < N 4
  Problem few = shape;
  few.tokens = 3;
  const LaunchConfig small = shaped(few, 512, 1, 1);
  const std::string m1 = invalid_argument_message([&] { runner.check(few, small); });
  INFO(m1);
  CHECK(contains(m1, "tokens = 3 must be >= nranks = 4"));

  // 1024-thread blocks: one per SM, so twice the partition's SMs cannot be resident
  const int sms = node.rank_spec().sm_count;
  const LaunchConfig too_many = shaped(shape, 1024, 1, 2 * sms);
  const std::string m2 = invalid_argument_message([&] { runner.check(shape, too_many); });
  INFO(m2);
  CHECK(contains(m2, "co-residency"));
  CHECK(contains(m2, "grid = " + std::to_string(2 * sms)));

  // small blocks (128 threads, 4 vectors each): more blocks than barrier flags; on a partition the
  // co-residency rule may refuse first, either way the grid is named
  const LaunchConfig beyond_flags = shaped(shape, 128, 1, kMaxTwoShotBlocks + 32);
  REQUIRE(beyond_flags.vecs_per_thread == 4);
  const std::string m3 = invalid_argument_message([&] { runner.check(shape, beyond_flags); });
  INFO(m3);
  CHECK((contains(m3, "barrier flags") || contains(m3, "co-residency")));
  CHECK(contains(m3, "grid = " + std::to_string(kMaxTwoShotBlocks + 32)));

  // the node still works after the refusals
  const LaunchConfig ok = model::choose_launch_config(model::Policy::trtllm, shape, node.rank_spec(), res,
                                                      model::default_calibration());
  CHECK(runner.check(shape, ok).pass);
}

TEST_CASE("two-shot: consecutive calls with changing token counts and grids") {
  constexpr int kN = 4, kMaxTokens = 64, kHiddenSize = 1024;
  EmulatedNode node(test_node(kN, kMaxTokens, 2));
  const Problem shape = twoshot_problem(kN, kMaxTokens, kHiddenSize, DType::bf16, Pattern::ar_res_rms_out_fp8);
  FusedRunner runner(node, shape, 1, 11, ref::Distribution::normal);
  const int sms = node.rank_spec().sm_count;
  // Each body alone, then both mixed call by call (the mixed sequence alternates the reference's
  // barrier workspace and the lean body's Lamport buffers).
  enum class Bodies { reference, lean, mixed };
  const Bodies modes[] = {Bodies::reference, Bodies::lean, Bodies::mixed};
  for (Bodies mode : modes) {
    const char* mode_name = mode == Bodies::reference ? "reference" : mode == Bodies::lean ? "lean" : "mixed";
    INFO("bodies: " << mode_name);
    std::mt19937 rng(12345);  // fixed seed: the sequence of (tokens, grid) is reproducible
    std::uniform_int_distribution<int> tokens_dist(kN, kMaxTokens);

    // A call of `tokens` tokens with a grid drawn from 1 .. a co-resident maximum (vpt 1, tpb 128).
    auto random_call = [&](Problem& p, LaunchConfig& c) {
      p = shape;
      p.tokens = tokens_dist(rng);
      const int cluster = (rng() % 2 == 0) ? 1 : 2;
      const Impl body = mode == Bodies::reference ? Impl::reference
                        : mode == Bodies::lean    ? Impl::lean
                                                  : (rng() % 2 == 0 ? Impl::reference : Impl::lean);
      c = shaped(p, 128 / cluster, cluster, cluster);
      c.impl = body;
      const int max_grid = largest_legal_grid(p, c, std::min(4 * sms, kMaxTwoShotBlocks), node.rank_spec(),
                                              twoshot_resources(runner, body))
                               .grid;
      c.grid = cluster * (1 + static_cast<int>(rng() % static_cast<unsigned>(max_grid / cluster)));
    };

    int failures = 0;
    constexpr int kCheckedCalls = 300;
    for (int i = 0; i < kCheckedCalls; ++i) {
      Problem p;
      LaunchConfig c;
      random_call(p, c);
      const ref::GateReport rep = runner.check(p, c);
      if (!rep.pass) {
        ++failures;
        std::printf("  call %d tokens %d grid %d cluster %d: %s\n", i, p.tokens, c.grid, c.cluster,
                    rep.summary().c_str());
      }
    }
    CHECK(failures == 0);

    // Back to back, no host synchronization: barrier values of consecutive calls with different grids
    // must never be confused. Then one checked call.
    constexpr int kUnsyncedCalls = 1000;
    for (int i = 0; i < kUnsyncedCalls; ++i) {
      Problem p;
      LaunchConfig c;
      random_call(p, c);
      runner.enqueue(runner.prepare(p, c), 0, /*gate=*/false);
    }
    node.synchronize();  // throws DeviceTimeout if any barrier was confused into a hang
    Problem p;
    LaunchConfig c;
    random_call(p, c);
    CHECK(runner.check(p, c).pass);
  }
}

TEST_CASE("two-shot under CUDA-graph capture and replay") {
  EmulatedNode node(test_node(2, 256, 2));
  for (Impl body : arlab_bodies())
    for (Pattern pat : {Pattern::ar_res_rms, Pattern::ar_res_rms_out_fp4}) {
      const Problem p = twoshot_problem(2, 256, 4096, DType::bf16, pat);
      FusedRunner runner(node, p, 1, 21, ref::Distribution::normal);
      const LaunchConfig cfg = trtllm_twoshot(runner, p, body);
      INFO(to_string(body) << " " << to_string(pat));
      const ref::GateReport rep = check_graph_replay(runner, runner.prepare(p, cfg), 16);
      std::printf("  graph replay (16 calls) %s %s: %s\n", to_string(body), to_string(pat), rep.summary().c_str());
      CHECK(rep.pass);
    }
}

TEST_CASE("two-shot: a rank that never runs times out at the barrier, naming it, and the node recovers") {
  EmulatedNode node(test_node(2, 64, 2));
  node.set_timeout_ms(200);
  const Problem p = twoshot_problem(2, 64, 4096, DType::bf16, Pattern::ar_res_rms);
  FusedRunner runner(node, p, 1, 31, ref::Distribution::normal);
  expect_timeout_without_rank1(node, runner, p, trtllm_twoshot(runner, p, Impl::reference),
                               [](const DeviceTimeout& e, const std::string& what) {
                                 CHECK(e.fault.kind == kernels::WaitKind::barrier);
                                 CHECK(e.fault.rank == 0);
                                 CHECK(e.fault.peer == 1);
                                 CHECK(e.fault.token == 1);  // barrier 1: rank 1 never copied its input
                                 CHECK(contains(what, "two-shot barrier 1"));
                                 CHECK(contains(what, "rank 1"));
                               });
}

TEST_CASE("lean two-shot: a rank that never runs times out in the poll, naming it, and the node recovers") {
  EmulatedNode node(test_node(2, 64, 2));
  node.set_timeout_ms(200);
  const Problem p = twoshot_problem(2, 64, 4096, DType::bf16, Pattern::ar_res_rms);
  FusedRunner runner(node, p, 1, 33, ref::Distribution::normal);
  const LaunchConfig cfg = trtllm_twoshot(runner, p, Impl::lean);
  REQUIRE(cfg.impl == Impl::lean);
  expect_timeout_without_rank1(node, runner, p, cfg, [](const DeviceTimeout& e, const std::string& what) {
    // Rank 0 owns tokens 0-31: its first poll waits for rank 1's stage-1 push of its block's token.
    CHECK(e.fault.kind == kernels::WaitKind::peer_data);
    CHECK(e.fault.rank == 0);
    CHECK(e.fault.peer == 1);
    CHECK(e.fault.token < 32);
    CHECK(contains(what, "rank 1"));
  });
}
