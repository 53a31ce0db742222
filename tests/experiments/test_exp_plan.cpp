// The experiments of `arlab exp` as case lists (experiments/exp_plan.h): the case counts of every
// experiment (computed here from the sweep's definition), unique keys, legal explicit
// configurations, and the sweep mechanics -- shards and the progress line (resume and merge:
// test_exp_csv.cpp).
#include <algorithm>
#include <fstream>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/exp_plan.h"
#include "model/policies.h"
#include "experiments/peers_summary.h"
#include "experiments/seed_cases.h"
#include "model/candidates.h"
#include "model/gpu_spec.h"
#include "model/legality.h"
#include "tests/catch.h"

using namespace arlab;

namespace {

model::KernelResources plan_resources() {
  model::KernelResources r;
  r.regs_per_thread = 52;  // one-shot bf16 ar_res_rms N=2 on sm_90 (data/h200/issue4_registers.txt)
  return r;
}

// The emulated TP2 node of one H200 (two 64-SM partitions), as the GPU driver would pass it.
exp::ExpContext plan_context(std::vector<int> nranks, bool quick, bool real_node = false) {
  exp::ExpContext ctx;
  ctx.nranks = std::move(nranks);
  ctx.quick = quick;
  ctx.real_node = real_node;
  ctx.rank_spec = model::sm_partition(model::gpu_preset("h200_sxm"), 2);
  ctx.res = plan_resources();
  return ctx;
}

std::vector<int> powers_of_two(int max) {
  std::vector<int> v;
  for (int t = 1; t <= max; t *= 2) v.push_back(t);
  return v;
}

// Algorithms a (tokens, N) problem gets: two-shot needs a token per rank.
int algorithm_count(int tokens, int nranks) { return tokens >= nranks ? 2 : 1; }

// "tpb/cluster/grid/vpt" back into a configuration of `p`'s algorithm.
LaunchConfig parse_config_text(const std::string& text, const Problem& p) {
  std::vector<int> fields;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, '/');) fields.push_back(std::stoi(part));
  REQUIRE(fields.size() == 4);
  LaunchConfig c;
  c.tpb = fields[0];
  c.cluster = fields[1];
  c.grid = fields[2];
  c.vecs_per_thread = fields[3];
  c.algo = p.algo;
  return c;
}

std::string config_text(const LaunchConfig& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) + "/" +
         std::to_string(c.vecs_per_thread);
}

// Every case of every experiment keeps these invariants.
void check_common_invariants(const std::string& name, const std::vector<exp::ExpCase>& cases,
                             const exp::ExpContext& ctx) {
  INFO("experiment " << name);
  std::set<std::string> keys;
  for (const exp::ExpCase& c : cases) {
    INFO("case " << c.key);
    CHECK(keys.insert(c.key).second);  // unique within the experiment
    CHECK(c.key.find(',') == std::string::npos);  // a CSV cell without quoting
    if (name == "numerics") continue;
    CHECK(c.key.rfind(exp::case_key(c.problem), 0) == 0);
    CHECK_NOTHROW(validate(c.problem));
    if (c.problem.algo == Algorithm::twoshot) CHECK(c.problem.tokens >= c.problem.nranks);
    CHECK_FALSE(c.policies.empty());
    // The model's own pick may switch algorithm, so it always runs alone, in a case keyed "... model".
    const bool model_key = c.key.size() >= 6 && c.key.compare(c.key.size() - 6, 6, " model") == 0;
    const bool has_model = std::count(c.policies.begin(), c.policies.end(), "model") > 0;
    CHECK(model_key == has_model);
    if (has_model || model_key) {
      CHECK(c.policies == std::vector<std::string>{"model"});
      CHECK(c.key == exp::case_key(c.problem, "model"));
      CHECK(c.problem.algo == Algorithm::oneshot);
      CHECK(c.configs.empty());
      CHECK(c.baselines.empty());
    }
    for (const std::string& config : c.configs)
      CHECK_NOTHROW(model::check_legal(c.problem, parse_config_text(config, c.problem), ctx.rank_spec, ctx.res));
  }
}

std::string exception_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("exp: the experiments, in --list order, and an unknown name lists them") {
  std::vector<std::string> names;
  for (const exp::ExperimentRow& e : exp::experiments()) {
    names.push_back(e.name);
    CHECK_FALSE(e.summary.empty());
    CHECK(e.summary.find('\n') == std::string::npos);
    CHECK(e.cases != nullptr);
    // Every figure script the table names exists in plots/.
    if (!e.figure_script.empty()) CHECK(std::ifstream(std::string(ARLAB_SOURCE_DIR) + "/plots/" + e.figure_script).good());
  }
  CHECK(exp::experiment("speedup").summary_step != nullptr);
  CHECK_FALSE(exp::experiment("numerics").needs_gpu);
  CHECK(names == std::vector<std::string>{"seed", "tokens", "config-space", "crossover", "fusion", "model-accuracy",
                                          "numerics", "speedup", "peers"});
  const std::string message = exception_text([] { exp::experiment_cases("token", plan_context({2}, false)); });
  CHECK(message.find("'token'") != std::string::npos);
  for (const std::string& name : names) CHECK(message.find(name) != std::string::npos);
}

TEST_CASE("exp: case key names the problem and the suffix") {
  Problem p;
  p.tokens = 128;
  p.hidden = 8192;
  p.nranks = 2;
  CHECK(exp::case_key(p) == "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot");
  p.algo = Algorithm::twoshot;
  p.nranks = 4;
  CHECK(exp::case_key(p, "part 3") == "N=4 H=8192 T=128 bf16 ar_res_rms pairwise twoshot part 3");
}

TEST_CASE("exp seed: trtllm/legacy/occupancy, the model alone, FlashInfer at trtllm/legacy, at every (H, tokens); explicit at 128") {
  for (const std::vector<int>& nranks : {std::vector<int>{2}, std::vector<int>{2, 4}}) {
    INFO("N " << nranks.size() << " rank counts");
    const exp::ExpContext ctx = plan_context(nranks, false);
    const auto cases = exp::experiment_cases("seed", ctx);
    check_common_invariants("seed", cases, ctx);
    // The keys in run order, from the sweep's definition: per (N, H, tokens) the policies' case, the
    // model's case, and at 128 tokens the explicit case after them.
    std::vector<std::string> expected_keys;
    for (int n : nranks)
      for (int h : {4096, 8192})
        for (int t : {1, 8, 32, 64, 128, 256, 512}) {  // arlab seed's token counts
          const Problem p = seed::seed_problem(t, h, n);
          expected_keys.push_back(exp::case_key(p));
          expected_keys.push_back(exp::case_key(p, "model"));
          if (n == 2) expected_keys.push_back(exp::case_key(p, "flashinfer"));
          if (t == 128) expected_keys.push_back(exp::case_key(p, "explicit"));
        }
    const size_t problems = nranks.size() * 2 * 7;  // N x H {4096, 8192} x 7 token counts
    const size_t explicit_cases = nranks.size() * 2;  // one per (N, H)
    const size_t library_cases = 2 * 7;             // the library's kernel: N = 2 only
    CHECK(expected_keys.size() == 2 * problems + explicit_cases + library_cases);
    std::vector<std::string> keys;
    for (const exp::ExpCase& c : cases) keys.push_back(c.key);
    CHECK(keys == expected_keys);

    size_t seen_policies = 0, seen_model = 0, seen_explicit = 0, seen_library = 0;
    for (const exp::ExpCase& c : cases) {
      INFO("case " << c.key);
      CHECK(c.problem == seed::seed_problem(c.problem.tokens, c.problem.hidden, c.problem.nranks));  // one-shot
      CHECK(c.baselines.empty());
      if (c.key == exp::case_key(c.problem)) {
        ++seen_policies;
        CHECK(c.policies == std::vector<std::string>{"trtllm", "legacy", "occupancy"});
        CHECK(c.configs.empty());
        continue;
      }
      if (c.key == exp::case_key(c.problem, "model")) {
        ++seen_model;
        CHECK(c.policies == std::vector<std::string>{"model"});
        CHECK(c.configs.empty());
        continue;
      }
      if (c.key == exp::case_key(c.problem, "flashinfer")) {
        // FlashInfer's own kernel at trtllm (first: the ratio's denominator) and at legacy, TP2 only.
        ++seen_library;
        CHECK(c.problem.nranks == 2);
        CHECK(c.policies == std::vector<std::string>{"trtllm/flashinfer", "legacy/flashinfer"});
        CHECK(c.configs.empty());
        continue;
      }
      ++seen_explicit;
      CHECK(c.key == exp::case_key(c.problem, "explicit"));
      CHECK(c.problem.tokens == 128);
      CHECK(c.policies == std::vector<std::string>{"trtllm"});
      REQUIRE_FALSE(c.configs.empty());
      CHECK(std::set<std::string>(c.configs.begin(), c.configs.end()).size() == c.configs.size());
      // The same explicit configurations, in the same order, that `arlab seed` measures.
      seed::SeedSweep sweep;
      sweep.hidden = {c.problem.hidden};
      sweep.nranks = c.problem.nranks;
      std::vector<std::string> seed_explicit;
      for (const seed::SeedCase& s : seed::seed_cases(sweep, ctx.rank_spec, ctx.res))
        if (s.policy == model::Policy::explicit_config) seed_explicit.push_back(config_text(s.explicit_cfg));
      CHECK(c.configs == seed_explicit);
      if (c.problem.hidden == 8192 && c.problem.nranks == 2) {
        // Both ends of the seed story: legacy-like 128-thread blocks in clusters of 8, trtllm-like 1024.
        CHECK(std::count(c.configs.begin(), c.configs.end(), "128/8/64/1") == 1);
        CHECK(std::count(c.configs.begin(), c.configs.end(), "1024/1/64/1") == 1);
      }
    }
    CHECK(seen_policies == problems);
    CHECK(seen_model == problems);
    CHECK(seen_explicit == explicit_cases);
    CHECK(seen_library == library_cases);
  }
  // Quick: H 8192, tokens 1 and 128, each with its model case; no explicit sweep.
  const exp::ExpContext quick_ctx = plan_context({2}, true);
  const auto quick = exp::experiment_cases("seed", quick_ctx);
  check_common_invariants("seed (quick)", quick, quick_ctx);
  REQUIRE(quick.size() == 4);
  CHECK(quick[0].key == "N=2 H=8192 T=1 bf16 ar_res_rms pairwise oneshot");
  CHECK(quick[1].key == "N=2 H=8192 T=1 bf16 ar_res_rms pairwise oneshot model");
  CHECK(quick[2].key == "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot");
  CHECK(quick[3].key == "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot model");
  for (size_t i : {0, 2}) {
    CHECK(quick[i].policies == std::vector<std::string>{"trtllm", "legacy", "occupancy"});
    CHECK(quick[i].configs.empty());
  }
  for (size_t i : {1, 3}) CHECK(quick[i].policies == std::vector<std::string>{"model"});
}

TEST_CASE("exp tokens: one-shot and two-shot (tokens >= N) per problem, and the model's pick") {
  for (const std::vector<int>& nranks : {std::vector<int>{2}, std::vector<int>{2, 4, 8}}) {
    const exp::ExpContext ctx = plan_context(nranks, false);
    const auto cases = exp::experiment_cases("tokens", ctx);
    check_common_invariants("tokens", cases, ctx);
    size_t expected = 0;
    for (int n : nranks)
      for (int t : powers_of_two(4096)) expected += 6 * (algorithm_count(t, n) + 1);  // 6 hidden sizes; + model
    CHECK(cases.size() == expected);
    // Per (N, H, tokens): one-shot, two-shot when tokens >= N, and the model's case.
    std::map<std::string, int> per_problem;
    std::map<std::string, int> expected_per_problem;
    for (const exp::ExpCase& c : cases) {
      CHECK(c.configs.empty());
      CHECK(c.baselines.empty());
      if (c.policies == std::vector<std::string>{"model"}) {
        CHECK(c.problem.algo == Algorithm::oneshot);
        CHECK(c.key == exp::case_key(c.problem, "model"));
      } else if (c.problem.algo == Algorithm::oneshot) {
        CHECK(c.policies == std::vector<std::string>{"trtllm", "legacy"});
      } else {
        CHECK(c.policies == std::vector<std::string>{"trtllm"});
      }
      Problem one = c.problem;
      one.algo = Algorithm::oneshot;
      ++per_problem[exp::case_key(one)];
      expected_per_problem[exp::case_key(one)] = algorithm_count(c.problem.tokens, c.problem.nranks) + 1;
    }
    CHECK(per_problem == expected_per_problem);
    CHECK(per_problem.size() == nranks.size() * 6 * 13);
  }
  const auto quick = exp::experiment_cases("tokens", plan_context({2}, true));
  CHECK(quick.size() == 2 + 3);  // T=1: one-shot + model; T=128: one-shot, two-shot, model
}

TEST_CASE("exp config-space: every legal candidate, in parts of at most 24, each beside trtllm") {
  const exp::ExpContext ctx = plan_context({2, 4}, false);
  const auto cases = exp::experiment_cases("config-space", ctx);
  check_common_invariants("config-space", cases, ctx);
  size_t expected_cases = 0;
  for (int n : ctx.nranks)
    for (auto [tokens, hidden] : {std::pair<int, int>{128, 8192}, {512, 8192}, {2048, 4096}})
      for (Algorithm algo : {Algorithm::oneshot, Algorithm::twoshot}) {
        if (algo == Algorithm::twoshot && tokens < n) continue;
        Problem p = seed::seed_problem(tokens, hidden, n);
        p.algo = algo;
        const auto candidates = model::candidate_configs(p, ctx.rank_spec, ctx.res, {algo});
        REQUIRE_FALSE(candidates.empty());
        expected_cases += (candidates.size() + 23) / 24;
        // The parts of this problem, in order, hold every candidate once.
        std::vector<std::string> measured;
        int part = 0;
        for (const exp::ExpCase& c : cases) {
          if (!(c.problem == p)) continue;
          ++part;
          CHECK(c.key == exp::case_key(p, "part " + std::to_string(part)));
          CHECK(c.policies == std::vector<std::string>{"trtllm"});
          CHECK(c.configs.size() <= 24);
          CHECK_FALSE(c.configs.empty());
          measured.insert(measured.end(), c.configs.begin(), c.configs.end());
        }
        std::vector<std::string> want;
        for (const LaunchConfig& cfg : candidates) want.push_back(config_text(cfg));
        CHECK(measured == want);
      }
  CHECK(cases.size() == expected_cases);

  const auto quick = exp::experiment_cases("config-space", plan_context({2}, true));
  REQUIRE(quick.size() == 1);
  CHECK(quick[0].problem.tokens == 128);
  CHECK(quick[0].problem.hidden == 8192);
  CHECK(quick[0].problem.algo == Algorithm::oneshot);
  CHECK(quick[0].configs.size() == 8);
}

TEST_CASE("exp config-space --max-configs: evenly spaced candidates, the first kept, none twice") {
  exp::ExpContext ctx = plan_context({2}, false);
  ctx.max_configs = 40;
  const auto cases = exp::experiment_cases("config-space", ctx);
  Problem p = seed::seed_problem(128, 8192, 2);
  const auto candidates = model::candidate_configs(p, ctx.rank_spec, ctx.res, {Algorithm::oneshot});
  REQUIRE(candidates.size() > 40);
  std::vector<std::string> measured;
  for (const exp::ExpCase& c : cases)
    if (c.problem == p) measured.insert(measured.end(), c.configs.begin(), c.configs.end());
  REQUIRE(measured.size() == 40);
  CHECK(measured.front() == config_text(candidates.front()));
  CHECK(std::set<std::string>(measured.begin(), measured.end()).size() == 40);
  // spread over the whole list: the last one sampled lies in the last 1/40 of the candidates
  CHECK(measured.back() == config_text(candidates[39 * candidates.size() / 40]));
}

TEST_CASE("exp crossover and fusion: baselines by node kind") {
  for (bool real_node : {false, true}) {
    const exp::ExpContext ctx = plan_context({2, 8}, false, real_node);
    const auto crossover = exp::experiment_cases("crossover", ctx);
    check_common_invariants("crossover", crossover, ctx);
    size_t expected = 0;
    for (int n : ctx.nranks)
      for (int t : powers_of_two(4096)) expected += 2 * algorithm_count(t, n);  // H 4096, 8192
    CHECK(crossover.size() == expected);
    for (const exp::ExpCase& c : crossover) {
      CHECK(c.policies == std::vector<std::string>{"trtllm"});
      if (c.problem.algo == Algorithm::twoshot) CHECK(c.baselines.empty());
      else if (real_node) CHECK(c.baselines == std::vector<std::string>{"unfused", "nccl"});
      else CHECK(c.baselines == std::vector<std::string>{"unfused"});
    }

    const auto fusion = exp::experiment_cases("fusion", ctx);
    check_common_invariants("fusion", fusion, ctx);
    CHECK(fusion.size() == ctx.nranks.size() * 2 * 13 * 2);  // N x H x tokens 1..4096 x (trtllm, model)
    for (const exp::ExpCase& c : fusion) {
      CHECK(c.problem.algo == Algorithm::oneshot);
      if (c.policies == std::vector<std::string>{"model"}) {
        CHECK(c.key == exp::case_key(c.problem, "model"));
        CHECK(c.baselines.empty());
      } else {
        CHECK(c.policies == std::vector<std::string>{"trtllm"});
        CHECK(c.baselines == std::vector<std::string>{real_node ? "nccl" : "unfused"});
      }
    }
  }
  CHECK(exp::experiment_cases("crossover", plan_context({2}, true)).size() == 1 + 2 + 2);  // T 1, 128, 1024
  CHECK(exp::experiment_cases("fusion", plan_context({2}, true)).size() == 2 * 2);
}

TEST_CASE("exp model-accuracy: a fixed sample of distinct legal candidates per held-out problem, every body, the model beside them") {
  for (const std::vector<int>& nranks : {std::vector<int>{2}, std::vector<int>{2, 4}}) {
    INFO(nranks.size() << " rank counts");
    const exp::ExpContext ctx = plan_context(nranks, false);
    const auto cases = exp::experiment_cases("model-accuracy", ctx);
    check_common_invariants("model-accuracy", cases, ctx);
    // The keys in run order: per (N, H, held-out tokens) one-shot, then two-shot when tokens >= N.
    std::vector<std::string> expected_keys;
    size_t problems = 0;
    for (int n : nranks)
      for (int h : {5272, 8848, 12736})
        for (int t : {4, 28, 144, 344}) {
          ++problems;
          Problem p = seed::seed_problem(t, h, n);
          expected_keys.push_back(exp::case_key(p));
          p.algo = Algorithm::twoshot;
          if (t >= n) expected_keys.push_back(exp::case_key(p));
        }
    // Then every other pattern at its own held-out sizes, a smaller sample.
    const size_t seed_pattern_cases = expected_keys.size();
    for (int n : nranks)
      for (Pattern pattern : {Pattern::ar, Pattern::ar_res_rms_fp8, Pattern::ar_res_rms_fp4, Pattern::ar_res_rms_out_fp8,
                              Pattern::ar_res_rms_out_fp4})
        for (int h : {5936, 11168})
          for (int t : {4, 200}) {
            ++problems;
            Problem p = seed::seed_problem(t, h, n);
            p.pattern = pattern;
            expected_keys.push_back(exp::case_key(p));
            p.algo = Algorithm::twoshot;
            if (t >= n) expected_keys.push_back(exp::case_key(p));
          }
    std::vector<std::string> keys;
    for (const exp::ExpCase& c : cases) keys.push_back(c.key);
    CHECK(keys == expected_keys);

    // Deterministic: the same sample on every call (every shard and re-run sees the same cases).
    const auto again = exp::experiment_cases("model-accuracy", ctx);
    REQUIRE(again.size() == cases.size());
    for (size_t i = 0; i < cases.size(); ++i) CHECK(again[i].configs == cases[i].configs);

    size_t oneshot_cases = 0, not_the_first_ten = 0;
    for (size_t index = 0; index < cases.size(); ++index) {
      const exp::ExpCase& c = cases[index];
      INFO("case " << index << ": " << c.key);
      CHECK(c.baselines.empty());
      CHECK(c.key == exp::case_key(c.problem));
      // Both bodies (each runs both algorithms), and in one-shot groups the model's own pick of body,
      // algorithm and shape.
      CHECK(c.kernels == std::vector<std::string>{"reference", "lean"});
      if (c.problem.algo == Algorithm::oneshot) {
        ++oneshot_cases;
        CHECK(c.policies == std::vector<std::string>{"trtllm", "model/auto"});
      } else {
        CHECK(c.policies == std::vector<std::string>{"trtllm"});
      }
      const auto candidates = model::candidate_configs(c.problem, ctx.rank_spec, ctx.res, {c.problem.algo});
      std::vector<std::string> all;
      for (const LaunchConfig& cfg : candidates) all.push_back(config_text(cfg));
      const size_t sample = index < seed_pattern_cases ? 10 : 6;
      REQUIRE(c.configs.size() == std::min<size_t>(sample, all.size()));
      CHECK(std::set<std::string>(c.configs.begin(), c.configs.end()).size() == c.configs.size());
      for (const std::string& cfg : c.configs) CHECK(std::count(all.begin(), all.end(), cfg) == 1);
      // The documented sample: a partial Fisher-Yates shuffle from std::mt19937_64 seeded with the
      // fixed constant plus the case's index in the list, the indices sorted. A resumed run keeps
      // keys, so a silent change here would mix two samples in one CSV.
      std::vector<size_t> order(all.size());
      std::iota(order.begin(), order.end(), size_t{0});
      std::mt19937_64 rng(0x3243F6A8885A308DULL + index);
      for (size_t i = 0; i < c.configs.size(); ++i)
        std::swap(order[i], order[i + static_cast<size_t>(rng() % static_cast<std::uint64_t>(all.size() - i))]);
      order.resize(c.configs.size());
      std::sort(order.begin(), order.end());
      std::vector<std::string> want;
      for (size_t i : order) want.push_back(all[i]);
      CHECK(c.configs == want);
      if (all.size() > sample && !std::equal(c.configs.begin(), c.configs.end(), all.begin())) ++not_the_first_ten;
    }
    CHECK(oneshot_cases == problems);  // one per (N, H, tokens)
    CHECK(not_the_first_ten > cases.size() / 2);  // a sample, not a prefix
  }
  // Quick: T 128 at H 8192: one-shot (4 sampled, both bodies, the model beside them), two-shot (4 sampled).
  const exp::ExpContext quick_ctx = plan_context({2}, true);
  const auto quick = exp::experiment_cases("model-accuracy", quick_ctx);
  check_common_invariants("model-accuracy (quick)", quick, quick_ctx);
  REQUIRE(quick.size() == 2);
  CHECK(quick[0].key == "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot");
  CHECK(quick[1].key == "N=2 H=8192 T=128 bf16 ar_res_rms pairwise twoshot");
  CHECK(quick[0].policies == std::vector<std::string>{"trtllm", "model/auto"});
  CHECK(quick[1].policies == std::vector<std::string>{"trtllm"});
  for (size_t i : {0, 1}) CHECK(quick[i].configs.size() == 4);
}

TEST_CASE("exp speedup: issue 24's problems, reference at trtllm vs lean at trtllm and at the model's choice, "
          "arlab's best and the peer") {
  const auto cases = exp::experiment_cases("speedup", plan_context({2, 4, 8}, false));
  REQUIRE(cases.size() == 70 + 10 + 10);
  std::set<std::tuple<int, int, int>> problems;
  for (const exp::ExpCase& c : cases) {
    CHECK(c.policies ==
          std::vector<std::string>{"trtllm", "trtllm/lean", "model/lean", "model/auto", "flashinfer/flashinfer"});
    CHECK(c.problem.algo == Algorithm::oneshot);
    CHECK(c.configs.empty());
    CHECK(c.baselines.empty());
    problems.insert({c.problem.nranks, c.problem.hidden, c.problem.tokens});
  }
  for (int h : {2048, 4096, 5120, 7168, 8192, 12288, 16384})
    for (int t : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}) CHECK(problems.count({2, h, t}) == 1);
  for (int n : {4, 8})
    for (int h : {4096, 8192})
      for (int t : {1, 8, 32, 128, 512}) CHECK(problems.count({n, h, t}) == 1);
  CHECK(exp::experiment_cases("speedup", plan_context({2}, false)).size() == 70);
  CHECK(exp::experiment_cases("speedup", plan_context({2}, true)).size() == 2);
}

TEST_CASE("exp peers: FlashInfer at its own configuration first, then arlab's reference and best, vLLM where exact") {
  const auto emulated = exp::experiment_cases("peers", plan_context({2, 4, 8}, false));
  REQUIRE(emulated.size() == 3u * 6 * 12);  // TP 2/4/8 x H 2048-16384 x tokens 1-4096
  int with_vllm = 0, twoshot = 0;
  for (const exp::ExpCase& c : emulated) {
    INFO(c.key);
    CHECK(c.policies == std::vector<std::string>{exp::kFlashinferMember, "trtllm", "model/auto"});
    CHECK(c.problem.acc == (c.problem.nranks == 2 ? Accumulation::pairwise : Accumulation::fp32_acc));
    // The case's algorithm (the reference kernel's) is the one FlashInfer's rule picks.
    CHECK(c.problem.algo == model::flashinfer_algorithm(c.problem));
    twoshot += c.problem.algo == Algorithm::twoshot ? 1 : 0;
    // vLLM only where its sum is the reference's bit for bit (one-stage kernel beyond N = 2); no NCCL
    // on the emulated node.
    const long long bytes = static_cast<long long>(c.problem.tokens) * c.problem.hidden * 2;
    const bool exact = c.problem.nranks == 2 || bytes < vllm_two_stage_min_bytes(c.problem.nranks);
    CHECK(c.baselines == (exact ? std::vector<std::string>{"vllm"} : std::vector<std::string>{}));
    with_vllm += exact ? 1 : 0;
  }
  CHECK(with_vllm > 72);  // every TP2 problem and the small ones of TP4 / TP8
  CHECK(twoshot > 0);       // the large TP4 / TP8 problems, past FlashInfer's one-shot bound
  // A real TP2 node adds NCCL and its symmetric kernels (exact at N = 2 only).
  for (const exp::ExpCase& c : exp::experiment_cases("peers", plan_context({2}, false, true)))
    CHECK(c.baselines == std::vector<std::string>{"vllm", "nccl", "nccl_symmetric"});
  for (const exp::ExpCase& c : exp::experiment_cases("peers", plan_context({4}, false, true)))
    CHECK(std::find(c.baselines.begin(), c.baselines.end(), "nccl") == c.baselines.end());
  CHECK(exp::experiment_cases("peers", plan_context({2}, true)).size() == 2);
}

TEST_CASE("exp numerics: one case") {
  const auto cases = exp::experiment_cases("numerics", plan_context({2, 4}, false));
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].key == "numerics");
  CHECK(cases[0].policies.empty());
  CHECK(cases[0].configs.empty());
  CHECK(cases[0].baselines.empty());
}

TEST_CASE("exp --shard: i/n, strictly") {
  const exp::Shard s = exp::parse_shard("3/5");
  CHECK(s.index == 3);
  CHECK(s.count == 5);
  CHECK(exp::parse_shard("0/1").count == 1);
  for (const char* bad : {"1/0", "2/2", "-1/3", "a/b", "1/2/3", "", "1", "/3", "1/", " 1/3", "1/3 ", "+1/3", "0/-1",
                          "0/99999999999999999999"}) {
    INFO("--shard '" << bad << "'");
    CHECK_THROWS_AS(exp::parse_shard(bad), InvalidArgument);
  }
  CHECK(exception_text([] { exp::parse_shard("2/2"); }).find("'2/2'") != std::string::npos);
}

TEST_CASE("exp shards partition the cases, in order") {
  const auto cases = exp::experiment_cases("tokens", plan_context({2}, false));
  for (int n = 1; n <= 5; ++n) {
    INFO("n = " << n);
    std::vector<int> owner(cases.size(), -1);
    for (int i = 0; i < n; ++i) {
      const auto mine = exp::shard_cases(cases, exp::Shard{i, n});
      size_t last = 0;
      bool first = true;
      for (const exp::ExpCase& c : mine) {
        const auto it = std::find_if(cases.begin(), cases.end(), [&](const exp::ExpCase& x) { return x.key == c.key; });
        REQUIRE(it != cases.end());
        const size_t index = static_cast<size_t>(it - cases.begin());
        CHECK(static_cast<int>(index % n) == i);
        CHECK((first || index > last));  // order kept
        CHECK(owner[index] == -1);       // disjoint
        owner[index] = i;
        last = index;
        first = false;
      }
    }
    CHECK(std::count(owner.begin(), owner.end(), -1) == 0);  // union = all
  }
}

TEST_CASE("exp progress line") {
  CHECK(exp::progress_line("tokens", 0, 156, 0, 0.0) == "exp tokens: 0/156 cases, 0 s elapsed, ETA unknown");
  CHECK(exp::progress_line("tokens", 3, 156, 3, 0.2) ==
        "exp tokens: 3/156 cases (3 skipped: in the CSV), 0 s elapsed, ETA unknown");
  // 9 cases ran in 41 s: 144 left at 4.56 s each = 656 s.
  CHECK(exp::progress_line("tokens", 12, 156, 3, 41.0) ==
        "exp tokens: 12/156 cases (3 skipped: in the CSV), 41 s elapsed, ETA 10 min 56 s");
  // 10 ran in 490 s: 40 left = 1960 s; 1 ran in 100 s: 44 left = 4400 s = 1 h 13 min 20 s.
  CHECK(exp::progress_line("seed", 10, 50, 0, 490.0) == "exp seed: 10/50 cases, 8 min 10 s elapsed, ETA 32 min 40 s");
  CHECK(exp::progress_line("seed", 1, 45, 0, 100.0) == "exp seed: 1/45 cases, 1 min 40 s elapsed, ETA 1 h 13 min");
  CHECK(exp::progress_line("seed", 1, 2, 0, 3900.0) == "exp seed: 1/2 cases, 1 h 05 min elapsed, ETA 1 h 05 min");
  CHECK(exp::progress_line("seed", 1, 2, 0, 65.0) == "exp seed: 1/2 cases, 1 min 05 s elapsed, ETA 1 min 05 s");
  CHECK(exp::progress_line("seed", 5, 5, 5, 0.0) ==
        "exp seed: 5/5 cases (5 skipped: in the CSV), 0 s elapsed, ETA 0 s");
  CHECK_THROWS_AS(exp::progress_line("seed", 6, 5, 0, 1.0), InvalidArgument);
  CHECK_THROWS_AS(exp::progress_line("seed", 2, 5, 3, 1.0), InvalidArgument);
  CHECK_THROWS_AS(exp::progress_line("seed", 2, 5, 0, -1.0), InvalidArgument);
}
