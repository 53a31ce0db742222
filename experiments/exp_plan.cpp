// The named experiments of `arlab exp NAME` as case lists (experiments/exp_plan.h), and what makes
// long sweeps practical: case keys, sharding and the progress line (resume and merge, which read the
// CSVs: experiments/exp_csv.h). Pure C++: the cases depend only on the experiment's name and its ExpContext,
// so every shard and every re-run of one experiment sees the same list in the same order.
#include "experiments/exp_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>

#include "common/csv.h"
#include "common/launch_config.h"
#include "common/peers_schema.h"
#include "common/speedup_schema.h"
#include "common/output_file.h"
#include "experiments/seed_cases.h"
#include "experiments/peers_summary.h"
#include "experiments/speedup_summary.h"
#include "model/candidates.h"
#include "model/explicit_shape.h"
#include "model/policies.h"

namespace arlab::exp {

namespace {

// ---------------------------------------------------------------------------------------------
// Sweep axes shared by several experiments.

// Llama-3 8B and 70B hidden sizes: the two H of the seed case (docs/policies.md).
const std::vector<int>& llama_hidden_sizes() {
  static const std::vector<int> sizes = {4096, 8192};
  return sizes;
}

// Powers of two from 1 to `max_tokens` (decode concurrency up to prefill-sized calls).
std::vector<int> powers_of_two_up_to(int max_tokens) {
  std::vector<int> tokens;
  for (int t = 1; t <= max_tokens; t *= 2) tokens.push_back(t);
  return tokens;
}

// The long sweeps' largest token count: a 4096-token prefill chunk, where two-shot has long won.
constexpr int kSweepMaxTokens = 4096;
// The token count of the seed story's kernel (Llama-3 decode with 128 concurrent tokens, docs/seed.md).
constexpr int kSeedTokens = 128;
// At most this many explicit configurations per config-space case: one interleaved group alternates
// all its variants batch by batch, so a group of a few dozen keeps its rounds short and its clocks
// comparable (the seed explicit sweep's groups are of that size).
constexpr size_t kMaxConfigsPerCase = 24;
// The quick config-space case keeps this many of the candidates (a smoke run, not a sweep).
constexpr size_t kQuickConfigSpaceConfigs = 8;
// model-accuracy: configurations sampled per case (full / quick): enough to rank the model's
// prediction against a dozen measured points per problem without measuring the whole space.
constexpr size_t kAccuracySampleSize = 10;  // x 2 bodies at one-shot: a group of about two dozen
constexpr size_t kQuickAccuracySampleSize = 4;
// model-accuracy's other patterns: a smaller sample per group (five patterns x 2 H x 2 token counts
// x 1-2 algorithms are 20-40 more groups; 6 configurations keep the run about twice the seed pattern's).
constexpr size_t kPatternAccuracySampleSize = 6;
// model-accuracy's sampling seed: any fixed constant (the digits of pi); changing it changes the
// held-out sample, and with it every case's configuration list (and resume keys stay the same).
constexpr std::uint64_t kAccuracySampleSeed = 0x3243F6A8885A308DULL;

// The problem every experiment here sweeps: bf16 ar_res_rms, pairwise accumulation, eps 1e-5 --
// the seed problem (experiments/seed_cases.h) with the algorithm given.
Problem sweep_problem(int tokens, int hidden, int nranks, Algorithm algo) {
  Problem p = seed::seed_problem(tokens, hidden, nranks);
  p.algo = algo;
  return p;
}

// model-accuracy's patterns beside the seed problem's ar_res_rms: every other one, in enum order.
std::vector<Pattern> model_accuracy_other_patterns() {
  std::vector<Pattern> patterns;
  for (int i = 0; i < kNumPatterns; ++i)
    if (static_cast<Pattern>(i) != Pattern::ar_res_rms) patterns.push_back(static_cast<Pattern>(i));
  return patterns;
}

// One-shot always; two-shot when every rank owns at least one token (tokens >= N, legality rule 4).
std::vector<Algorithm> algorithms_for(int tokens, int nranks) {
  if (tokens >= nranks) return {Algorithm::oneshot, Algorithm::twoshot};
  return {Algorithm::oneshot};
}

// "tpb/cluster/grid/vpt": the explicit-configuration syntax (model/explicit_shape.h).
std::string config_text(const LaunchConfig& c) { return model::explicit_shape_text(c); }

std::vector<std::string> config_texts(const std::vector<LaunchConfig>& configs) {
  std::vector<std::string> texts;
  texts.reserve(configs.size());
  for (const LaunchConfig& c : configs) texts.push_back(config_text(c));
  return texts;
}

ExpCase make_case(const Problem& p, std::vector<std::string> policies, const std::string& suffix = "") {
  ExpCase c;
  c.problem = p;
  c.policies = std::move(policies);
  c.key = case_key(p, suffix);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The experiments.

// seed: every seed policy at every (H, tokens), plus the explicit sweep at the seed token count
// compared against trtllm in one group.
std::vector<ExpCase> seed_experiment(const ExpContext& ctx) {
  const std::vector<int> hidden = ctx.quick ? std::vector<int>{8192} : llama_hidden_sizes();
  // arlab seed's token counts (1 ... 512, experiments/seed_cases.h), so `arlab seed --mode predict --data`
  // takes these rows and puts the model beside them (README command (a) on a real node).
  const std::vector<int> tokens = ctx.quick ? std::vector<int>{1, kSeedTokens} : seed::SeedSweep{}.tokens;
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens) {
        const Problem p = sweep_problem(t, h, n, Algorithm::oneshot);
        cases.push_back(make_case(p, {"trtllm", "legacy", "occupancy"}));
        // The model's own pick runs alone: it may choose two-shot (one kernel per group).
        cases.push_back(make_case(p, {"model"}, "model"));
        // The library's own kernel at the seed story's two configurations, in a group of its own so that
        // its legacy / trtllm ratio is in-process: does the seed's conclusion hold for FlashInfer's kernel,
        // not only for arlab's reproduction of it (docs/seed.md, "The library's own kernel")? At N = 2
        // only: the seed problem sums pairwise, which is FlashInfer's fp32 sum only for two ranks.
        if (!ctx.quick && n == 2 &&
            implementation_refusal(Impl::flashinfer, p, ctx.real_node, ctx.rank_spec.cc_major).empty())
          cases.push_back(make_case(p, {seed::kFlashinferTrtllmMember, seed::kFlashinferLegacyMember}, "flashinfer"));
        if (ctx.quick || t != kSeedTokens) continue;
        // The explicit configurations of arlab seed's sweep for this (H, N) at 128 tokens.
        seed::SeedSweep sweep;
        sweep.hidden = {h};
        sweep.tokens = {};
        sweep.nranks = n;
        sweep.explicit_tokens = {kSeedTokens};
        std::vector<std::string> configs;
        for (const seed::SeedCase& sc : seed::seed_cases(sweep, ctx.rank_spec, ctx.res))
          if (sc.policy == model::Policy::explicit_config) configs.push_back(config_text(sc.explicit_cfg));
        if (configs.empty()) continue;  // nothing legal on this spec: no group to compare
        ExpCase c = make_case(p, {"trtllm"}, "explicit");
        c.configs = std::move(configs);
        cases.push_back(std::move(c));
      }
  return cases;
}

// tokens: where one-shot and two-shot cross over and where legacy loses, over the hidden sizes of
// current models; the model's own pick as a separate case (it may switch algorithm).
std::vector<ExpCase> tokens_experiment(const ExpContext& ctx) {
  // Llama-3 8B / 70B (4096 / 8192), Llama-3 405B (16384), Mistral-Nemo / Qwen (5120), DeepSeek-V3
  // (7168) and a small model (2048).
  const std::vector<int> hidden =
      ctx.quick ? std::vector<int>{8192} : std::vector<int>{2048, 4096, 5120, 7168, 8192, 16384};
  const std::vector<int> tokens = ctx.quick ? std::vector<int>{1, kSeedTokens} : powers_of_two_up_to(kSweepMaxTokens);
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens) {
        for (Algorithm algo : algorithms_for(t, n)) {
          std::vector<std::string> policies = {"trtllm"};
          if (algo == Algorithm::oneshot) policies.push_back("legacy");
          cases.push_back(make_case(sweep_problem(t, h, n, algo), policies));
        }
        cases.push_back(make_case(sweep_problem(t, h, n, Algorithm::oneshot), {"model"}, "model"));
      }
  return cases;
}

// config-space: every legal candidate of the model's search at three problems, measured against
// trtllm in groups of at most kMaxConfigsPerCase.
std::vector<ExpCase> config_space_experiment(const ExpContext& ctx) {
  struct TokensHidden {
    int tokens, hidden;
  };
  // Decode at the seed concurrency, a larger decode batch, and a prefill chunk at Llama-3 8B's H.
  const std::vector<TokensHidden> problems =
      ctx.quick ? std::vector<TokensHidden>{{kSeedTokens, 8192}}
                : std::vector<TokensHidden>{{kSeedTokens, 8192}, {512, 8192}, {2048, 4096}};
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (const TokensHidden& th : problems)
      for (Algorithm algo : algorithms_for(th.tokens, n)) {
        if (ctx.quick && algo != Algorithm::oneshot) continue;
        const Problem p = sweep_problem(th.tokens, th.hidden, n, algo);
        std::vector<LaunchConfig> configs = model::candidate_configs(p, ctx.rank_spec, ctx.res, {algo});
        if (ctx.quick && configs.size() > kQuickConfigSpaceConfigs) configs.resize(kQuickConfigSpaceConfigs);
        if (!ctx.quick && ctx.max_configs > 0 && configs.size() > static_cast<size_t>(ctx.max_configs)) {
          // Evenly spaced: candidate i * size / max_configs for i < max_configs (the first always kept).
          std::vector<LaunchConfig> thinned;
          for (size_t i = 0; i < static_cast<size_t>(ctx.max_configs); ++i)
            thinned.push_back(configs[i * configs.size() / static_cast<size_t>(ctx.max_configs)]);
          configs = std::move(thinned);
        }
        const std::vector<std::string> texts = config_texts(configs);
        for (size_t first = 0, part = 1; first < texts.size(); first += kMaxConfigsPerCase, ++part) {
          const size_t last = std::min(texts.size(), first + kMaxConfigsPerCase);
          ExpCase c = make_case(p, {"trtllm"}, "part " + std::to_string(part));
          c.configs.assign(texts.begin() + static_cast<std::ptrdiff_t>(first),
                           texts.begin() + static_cast<std::ptrdiff_t>(last));
          cases.push_back(std::move(c));
        }
      }
  return cases;
}

// crossover: fused one-shot and two-shot against the unfused baseline (and NCCL on a real node).
std::vector<ExpCase> crossover_experiment(const ExpContext& ctx) {
  const std::vector<int> hidden = ctx.quick ? std::vector<int>{8192} : llama_hidden_sizes();
  const std::vector<int> tokens =
      ctx.quick ? std::vector<int>{1, kSeedTokens, 1024} : powers_of_two_up_to(kSweepMaxTokens);
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens)
        for (Algorithm algo : algorithms_for(t, n)) {
          ExpCase c = make_case(sweep_problem(t, h, n, algo), {"trtllm"});
          if (algo == Algorithm::oneshot) {
            c.baselines = {"unfused"};
            if (ctx.real_node) c.baselines.push_back("nccl");  // NCCL needs one GPU per rank
          }
          cases.push_back(std::move(c));
        }
  return cases;
}

// fusion: what fusing the epilogue into the all-reduce saves, against NCCL + the separate norm
// kernel on a real node (else arlab's own all-reduce + the norm kernel), and the model's pick.
std::vector<ExpCase> fusion_experiment(const ExpContext& ctx) {
  const std::vector<int> hidden = ctx.quick ? std::vector<int>{8192} : llama_hidden_sizes();
  const std::vector<int> tokens = ctx.quick ? std::vector<int>{1, kSeedTokens} : powers_of_two_up_to(kSweepMaxTokens);
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens) {
        const Problem p = sweep_problem(t, h, n, Algorithm::oneshot);
        ExpCase fused = make_case(p, {"trtllm"});
        fused.baselines = {ctx.real_node ? "nccl" : "unfused"};
        cases.push_back(std::move(fused));
        cases.push_back(make_case(p, {"model"}, "model"));
      }
  return cases;
}

// speedup (issues 13, 24): the reference kernel at the trtllm configuration (the peer library's
// kernel) against each other kernel variant at the trtllm configuration (the design alone) and at the
// model's choice for that variant (design and configuration), arlab's best (model/auto) and FlashInfer
// at its own configuration, in one interleaved group per problem.
// The problems of issue 24's goal: TP2 tokens {1, 2, 4, ..., 512} x H {2048, 4096, 5120, 7168, 8192,
// 12288, 16384}; TP4 and TP8 (further --nranks) tokens {1, 8, 32, 128, 512} x H {4096, 8192}.
std::vector<ExpCase> speedup_experiment(const ExpContext& ctx) {
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks) {
    std::vector<int> hidden, tokens;
    if (ctx.quick) {
      hidden = {8192};
      tokens = {1, kSeedTokens};
    } else if (n == 2) {
      hidden = {2048, 4096, 5120, 7168, 8192, 12288, 16384};
      tokens = powers_of_two_up_to(512);
    } else {
      hidden = llama_hidden_sizes();
      tokens = {1, 8, 32, 128, 512};
    }
    for (int h : hidden)
      for (int t : tokens) {
        const Problem p = sweep_problem(t, h, n, Algorithm::oneshot);
        std::vector<std::string> policies = {"trtllm"};
        for (Impl body : arlab_bodies()) {
          if (body == Impl::reference || !runs_algorithm(body, Algorithm::oneshot)) continue;
          policies.push_back(std::string("trtllm/") + to_string(body));
          policies.push_back(std::string("model/") + to_string(body));
        }
        policies.push_back("model/auto");  // arlab's best: the model chooses body, algorithm and shape
        // The peer at its own configuration and algorithm, where it runs this problem.
        if (implementation_refusal(Impl::flashinfer, p, ctx.real_node, ctx.rank_spec.cc_major).empty())
          policies.push_back(kFlashinferMember);
        cases.push_back(make_case(p, policies));
      }
  }
  return cases;
}

// peers (issue 23): arlab against the kernels people run, each problem one interleaved group whose
// first member is FlashInfer at its own configuration (so every ratio row is against it): arlab's
// reference kernel at trtllm's configuration and the algorithm FlashInfer's rule picks (the case's
// algorithm: like for like, the reproduction against the library), arlab's best (the model's pick over
// kernel bodies and algorithms), vLLM's custom all-reduce + the norm kernel where its sum is the
// reference's bit for bit, and on a real node NCCL (+ its symmetric kernels) + the norm kernel at
// N = 2. The sum is pairwise at N = 2 and fp32_acc above (vLLM's: fp32 sums; at N = 2 the two are the
// same).
std::vector<ExpCase> peers_experiment(const ExpContext& ctx) {
  const std::vector<int> hidden =
      ctx.quick ? std::vector<int>{4096} : std::vector<int>{2048, 4096, 5120, 7168, 8192, 16384};
  const std::vector<int> tokens = ctx.quick ? std::vector<int>{1, 128}
                                            : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096};
  std::vector<ExpCase> cases;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens) {
        Problem p = sweep_problem(t, h, n, Algorithm::oneshot);
        p.acc = n == 2 ? Accumulation::pairwise : Accumulation::fp32_acc;
        Problem one_token = p;  // the size-independent refusals (N, pattern, GPU) before FlashInfer's rule
        one_token.tokens = 1;
        if (!implementation_refusal(Impl::flashinfer, one_token, ctx.real_node, ctx.rank_spec.cc_major).empty()) continue;
        p.algo = model::flashinfer_algorithm(p);
        if (!implementation_refusal(Impl::flashinfer, p, ctx.real_node, ctx.rank_spec.cc_major).empty()) continue;
        ExpCase c = make_case(p, {kFlashinferMember, "trtllm", "model/auto"});
        for (Impl b : {Impl::vllm, Impl::nccl, Impl::nccl_symmetric})
          if (implementation_refusal(b, p, ctx.real_node, ctx.rank_spec.cc_major).empty())
            c.baselines.push_back(to_string(b));
        cases.push_back(std::move(c));
      }
  return cases;
}

// `count` distinct indices of [0, population), in increasing order, drawn by a partial Fisher-Yates
// shuffle from a std::mt19937_64 (whose output the standard fixes, unlike the distributions').
std::vector<size_t> sample_indices(size_t population, size_t count, std::uint64_t seed) {
  std::vector<size_t> order(population);
  for (size_t i = 0; i < population; ++i) order[i] = i;
  count = std::min(count, population);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < count; ++i) {
    // Modulo mapping: its bias is below population / 2^64, far under anything a sample can show.
    const size_t j = i + static_cast<size_t>(rng() % static_cast<std::uint64_t>(population - i));
    std::swap(order[i], order[j]);
  }
  order.resize(count);
  std::sort(order.begin(), order.end());
  return order;
}

// model-accuracy: held-out problems, chosen anew when the model or its calibration changes (since session 55,
// 2026-12-07, defined before any of it was measured, for the rounds after a call's first priced for the other blocks
// that share their SM, from the body_round _bps rows): H {5272, 8848, 12736} x tokens {4, 28, 144, 344}, rows aligned
// to 16, 32 and 128 bytes, H values no committed measurement holds, then every other pattern (ar and the four
// quantizing ones) at H {5936, 11168} x tokens {4, 200}, 32- and 64-byte rows, H values no committed measurement
// holds either (grid38); the grids before: H {4744, 9680, 13696} x tokens {2, 22, 112, 376} with H {6352, 10720} x
// tokens {5, 184} (session 54, the one-shot `ar` round at N = 2 priced per round and per further vector),
// data/h100/exp/model-accuracy_emulated_grid37*.csv; H {4856, 9712, 13440} x tokens {3, 24, 120, 392} with H {6224, 10560} x tokens {6, 168} (session
// 53, the one-shot first poll's wait hidden by the push of a cluster's later tokens and lean's re-read of x from
// DRAM), data/h100/exp/model-accuracy_emulated_grid36.csv (TP2); H {5016, 9120,
// 14080} x tokens {2, 34, 184, 456} with H {5808, 9888} x tokens {7, 216} (session 52, the further rounds' part
// per vector beyond the first as a line over the warps, from the body_round rows of several vectors on 16-32
// warps), data/h100/exp/model-accuracy_emulated_grid35*.csv; H {4680, 10944, 13856} x tokens {3, 26, 168, 432} with H {6096, 9440} x tokens {5, 208} (session
// 51, for the H200's calibration derived again from runs of today's kernels and the NVFP4 round's further vectors
// at many warps), data/h100/exp/model-accuracy_emulated_grid34*.csv; H {3960, 10432, 13088} x tokens {2, 28, 176, 464} with H {5424, 8928} x tokens {3, 232} (session 49, the
// cluster barriers priced over the warps on the SM and the reference's relaxed close),
// data/h100/exp/model-accuracy_emulated_grid33*.csv (and data/h200/exp/); H {4264, 8640, 12256} x tokens {4, 40,
// 192, 416} with H {5360, 8800} x tokens {13, 224} (session 47, for the H100's grid term taken by partition and
// its calibration derived again from microbenchmarks of the trimmed kernels, a160fc2; measured at TP2 and TP4 on
// an H100 in session 48), data/h100/exp/model-accuracy_emulated_grid32*.csv; H {4424, 8384, 12304} x tokens {5, 44,
// 176, 440} with H {5232, 8512} x tokens {11, 264} (session 44, the lean two-shot's second exchange priced only
// where its hop is), data/h100/exp/model-accuracy_emulated_grid31*.csv; H {5000, 8256, 12992} x tokens {6, 56,
// 200, 480} with H {5008, 10176} x tokens {9, 300} (session 42, the lean two-shot's reader and owner lines),
// data/h100/exp/model-accuracy_emulated_grid30*.csv; H {4000, 9792, 12352} x tokens {3, 40, 150, 400} with H {6000, 11072} x tokens {7, 240}
// (session 42, the reference two-shot epilogue's own round), data/h100/exp/model-accuracy_emulated_grid29*.csv;
// H {3520, 8000, 13568} x tokens {5, 72, 180, 360} with H {8128, 13184} x tokens {10, 200}
// (session 41, a first version of the HBM bounds' L2-resident share), data/h100/exp/model-accuracy_emulated_grid28*.csv;
// H {4992, 9024, 13056} x tokens {4, 58, 164, 328} with H {3776, 12928} x tokens {9, 184}
// (session 37, after session 36's three changes: the per-round further rounds of the reference two-shot and
// the lean two-shot's second hop), data/h200/exp/model-accuracy_emulated_grid27*.csv (and data/h100/exp/);
// H {4736, 7488, 12544} x tokens {6, 50,
// 140, 296} with H {6592, 12672} x tokens {11, 152} (the HBM rate's fraction by the rows' alignment),
// data/h200/exp/model-accuracy_emulated_grid26*.csv (and data/h100/exp/); H {3392,
// 6848, 11200} x tokens {5, 46, 124, 312} with H {5952, 9280} x tokens {13, 168} (a quantizing pattern's part
// in every round), data/h200/exp/model-accuracy_emulated_grid25*.csv (measured 2026-12-05, binary 922d8c8);
// H {4032, 7232, 10816} x tokens {7, 52, 136, 288} with H {6336, 9408} x tokens {10, 144} (the
// NVFP4 round's further vectors), data/h200/exp/model-accuracy_emulated_grid24*.csv; H {3648, 6720, 10304} x tokens
// {5, 36, 112, 240} with H {5568, 8896} x tokens {12, 128} (the two-shot epilogue's last vector counted
// whole), data/h200/exp/model-accuracy_emulated_grid23.csv; H {3904, 8768, 11840}
// x tokens {3, 28, 96, 240} with H {5184, 9536} x tokens {8, 160} (a last vector filled in part),
// data/h200/exp/model-accuracy_emulated_grid22*.csv; H {4288, 7616, 12416} x tokens {9, 60,
// 150, 320} with H {6464, 9152} x tokens {10, 200} (the ar round's cost per further vector),
// data/h200/exp/model-accuracy_emulated_grid21*.csv; H {4416, 7360, 12160} x tokens {5, 44,
// 120, 280} with H {6208, 9664} x tokens {12, 176} (the ar round's partner-idle line, measured and not
// kept), data/h200/exp/model-accuracy_emulated_grid20*.csv; H {4160, 6976, 11904} x tokens {6, 36,
// 110, 300} with H {5824, 9920} x tokens {14, 160} (the NVFP4 round over warps),
// data/h200/exp/model-accuracy_emulated_grid19*.csv; H {4800, 7872, 11136} x tokens {10, 48,
// 130, 260} with H {6080, 10048} x tokens {18, 144} (the grid term over the SMs a grid occupies),
// data/h200/exp/model-accuracy_emulated_grid18*.csv; H {5440,
// 8064, 11392} x tokens {12, 40, 100, 200} with H {6528, 10368} x tokens {16, 96} (a call's later push
// steps on few blocks), data/h200/exp/model-accuracy_emulated_grid17*.csv; H {4928, 7104, 10624}
// x tokens {8, 30, 80, 240} with H {5696, 8576} x tokens {20, 120} (the staggered HBM rate),
// data/h200/exp/model-accuracy_emulated_grid16*.csv; H {4544, 7744, 10112} x tokens
// {14, 35, 90, 220} with H {6016, 9344} x tokens {23, 130} (a call's further rounds),
// data/h200/exp/model-accuracy_emulated_grid15*.csv; H {5056, 8320, 11648} x tokens
// {12, 29, 100, 250} with H {5312, 8832} x tokens {18, 150} (the reference two-shot's empty ranges),
// data/h200/exp/model-accuracy_emulated_grid14*.csv; H {4672,
// 7296, 11008} x tokens {4, 17, 70, 280} with H {6272, 9600} x tokens {10, 140} (the polls from DRAM),
// data/h200/exp/model-accuracy_emulated_grid13*.csv; H {3968, 6784, 12032} x tokens
// {5, 22, 88, 352} with H {5760, 8448} x tokens {9, 152} (the Lamport workspace in L2, measured and
// not kept), data/h200/exp/model-accuracy_emulated_grid12_tp8_partial.csv; H {4224, 7552,
// 10880} x tokens {6, 27, 108, 432} with H {5504, 9088} x tokens {11, 196} (the lean round per rank),
// data/h200/exp/model-accuracy_emulated_grid11*.csv; H {3712,
// 7808, 11520} x tokens {23, 92, 368, 1472} with H {4992, 9856} x tokens {25, 232} (the further
// vectors), data/h200/exp/model-accuracy_emulated_grid10_partial.csv; H {2944,
// 6400, 13824} x tokens {19, 76, 304, 1216} with H {4480, 9472} x tokens {21, 168} (the drain term),
// data/h200/exp/model-accuracy_emulated_grid9*.csv; H {3200, 7040, 12800} x tokens {13,
// 52, 208, 832} with H {5248, 10496} x tokens {17, 136}, data/h200/exp/model-accuracy_emulated_grid8*.csv;
// H {3456, 6912, 13312} x tokens {11,
// 44, 176, 704} with H {4864, 9984} x tokens {15, 120}, data/h200/exp/model-accuracy_emulated_grid7*.csv;
// H {4352, 7424, 11776} x tokens {9, 36, 144, 640} with H {5888, 8960} x tokens {13, 112},
// data/h200/exp/model-accuracy_emulated_grid6*.csv; H {2304, 4608, 9728} x tokens {7, 48, 192, 768} with H {5376, 7936} x tokens {20, 72},
// data/h200/exp/model-accuracy_emulated_grid5*.csv; H {3328, 6656, 10752} x tokens {10, 56, 224, 896} with H {3840, 8704} x tokens {14, 80},
// data/h200/exp/model-accuracy_emulated_grid4*.csv; H {2560, 5632, 11264} x tokens {5, 40, 320, 1280} with H {2816, 7680} x tokens
// {12, 96}, data/h200/exp/model-accuracy_emulated_grid3.csv; H {3072, 6144, 10240} x tokens {3, 24,
// 192, 768} with H {3584, 9216} x tokens {6, 160}, and H 4096/8192 x tokens {1, 8, ..., 2048},
// data/h200/exp/model-accuracy_emulated.csv and its history). Per problem and
// algorithm one interleaved group: trtllm and a fixed-seed sample of legal candidates, each measured
// with every arlab body that runs the algorithm (reference and lean, one- and two-shot), and in the
// one-shot group the model's own pick of body, algorithm and configuration (model/auto) beside them;
// its regret compares it with every row of the problem.
std::vector<ExpCase> model_accuracy_experiment(const ExpContext& ctx) {
  std::vector<ExpCase> cases;
  const auto add_groups = [&](const Problem& shape, size_t sample_size) {
    for (Algorithm algo : algorithms_for(shape.tokens, shape.nranks)) {
      Problem p = shape;
      p.algo = algo;
      validate(p);
      const std::vector<LaunchConfig> candidates = model::candidate_configs(p, ctx.rank_spec, ctx.res, {algo});
      ExpCase c = make_case(p, {"trtllm"});
      for (Impl body : arlab_bodies())
        if (runs_algorithm(body, algo)) c.kernels.push_back(to_string(body));
      for (size_t i : sample_indices(candidates.size(), sample_size, kAccuracySampleSeed + cases.size()))
        c.configs.push_back(config_text(candidates[i]));
      if (algo == Algorithm::oneshot) c.policies.push_back("model/auto");
      cases.push_back(std::move(c));
    }
  };
  const std::vector<int> hidden = ctx.quick ? std::vector<int>{8192} : std::vector<int>{5272, 8848, 12736};
  // Held out: from a decode step of 4 tokens to a prefill chunk (344), a factor of 2.4-7 apart; 4 is a
  // latency-bound step, one token round per cluster at every grid that holds four clusters (at N = 8 one-shot
  // only: fewer tokens than ranks); 28 and 144 put many of the sampled grids at 2-5 token rounds per cluster, and
  // 144 some at 2-4 blocks per SM; 344 many rounds per cluster and a rank's data from inside L2 to beyond it.
  const std::vector<int> tokens = ctx.quick ? std::vector<int>{kSeedTokens} : std::vector<int>{4, 28, 144, 344};
  const size_t sample_size = ctx.quick ? kQuickAccuracySampleSize : kAccuracySampleSize;
  for (int n : ctx.nranks)
    for (int h : hidden)
      for (int t : tokens) add_groups(sweep_problem(t, h, n, Algorithm::oneshot), sample_size);
  if (ctx.quick) return cases;
  for (int n : ctx.nranks)
    for (Pattern pattern : model_accuracy_other_patterns())
      for (int h : {5936, 11168})
        for (int t : {4, 200}) {
          Problem p = sweep_problem(t, h, n, Algorithm::oneshot);
          p.pattern = pattern;
          add_groups(p, kPatternAccuracySampleSize);
        }
  return cases;
}

// numerics: the CPU sweep (experiments/numerics_sweep.h) already covers N = 2, 4, 8 and 16, so one
// case, whatever ctx.nranks lists.
std::vector<ExpCase> numerics_experiment(const ExpContext&) {
  ExpCase c;
  c.key = "numerics";
  return {c};
}

std::string known_experiment_names();

// peers's summary step: the summary CSV beside the measurement CSV (experiments/peers_summary.h).
std::string peers_summary_step(const std::string& csv_path, const model::GpuSpec&, const model::Calibration&) {
  const std::vector<PeersRow> rows = peers_rows(csv_path);
  const std::string path = peers_summary_path(csv_path);
  write_csv_file(path, peers_header(), [&](std::ostream& out) {
    for (const PeersRow& r : rows) out << csv_join(to_cells(r)) << '\n';
  });
  return "# against FlashInfer " + std::string(flashinfer_version()) + " at its own configuration (" +
         std::to_string(rows.size()) + " rows -> " + path + ")\n" + peers_report(rows);
}

// speedup's summary step: the summary CSV beside the measurement CSV (experiments/speedup_summary.h:
// each kernel body against the reference kernel, and the floor) and its table.
std::string speedup_summary_step(const std::string& csv_path, const model::GpuSpec& rank_spec,
                                 const model::Calibration& cal) {
  const std::vector<SpeedupRow> rows = speedup_rows(csv_path, rank_spec, cal);
  const std::string path = speedup_summary_path(csv_path);
  write_csv_file(path, speedup_header(), [&](std::ostream& out) {
    for (const SpeedupRow& r : rows) out << csv_join(to_cells(r)) << '\n';
  });
  return "# speedup over the reference kernel at the trtllm configuration (" + std::to_string(rows.size()) +
         " rows -> " + path + ")\n" + speedup_report(rows);
}

// "1 h 05 min", "8 min 10 s", "41 s".
std::string duration_text(double seconds) {
  const long long whole = std::llround(seconds);
  auto two_digits = [](long long v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (whole < 60) return std::to_string(whole) + " s";
  if (whole < 3600) return std::to_string(whole / 60) + " min " + two_digits(whole % 60) + " s";
  const long long minutes = (whole + 30) / 60;  // hours: to the nearest minute
  return std::to_string(minutes / 60) + " h " + two_digits(minutes % 60) + " min";
}

std::string known_experiment_names() {
  std::string names;
  for (const ExperimentRow& e : experiments()) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

}  // namespace

const std::vector<ExperimentRow>& experiments() {
  static const std::vector<ExperimentRow> rows = {
      {"seed",
       "the motivating case: TP2 bf16 ar_res_rms one-shot, H 4096/8192, tokens 1-512, legacy vs trtllm vs occupancy "
       "vs model, the library's own kernel (FlashInfer) at legacy and trtllm, plus the explicit configurations at "
       "128 tokens",
       seed_experiment, "plot_tokens.py"},
      {"tokens",
       "tokens 1-4096 x H 2048-16384, one-shot and two-shot under trtllm (one-shot also legacy), and the model's own "
       "pick",
       tokens_experiment, "plot_tokens.py"},
      {"config-space", "every legal configuration of the model's search space at 3 problems, beside trtllm",
       config_space_experiment, "plot_config_space.py", nullptr, true, /*takes_max_configs=*/true,
       /*figure_shows_predictions=*/true},
      {"crossover", "fused one-shot vs two-shot vs unfused (and NCCL on a real node), tokens 1-4096, H 4096/8192",
       crossover_experiment, "plot_crossover.py"},
      {"fusion", "fused trtllm and the model's pick vs all-reduce + separate norm kernel, tokens 1-4096",
       fusion_experiment, "plot_fusion.py"},
      {"model-accuracy", "held-out problems, 10 sampled legal configurations each with every arlab body, and the model's pick in the same group: the model's error and ranking",
       model_accuracy_experiment, "plot_model_accuracy_exp.py", nullptr, true, false,
       /*figure_shows_predictions=*/true},
      {"numerics", "CPU: accumulation-mode error against fp64 (pairwise vs fp32_acc)", numerics_experiment,
       "plot_numerics.py", nullptr, false},
      {"speedup",
       "the reference kernel at trtllm vs each other kernel body at trtllm and at the model's choice, arlab's best "
       "(model/auto) and FlashInfer at its own rule, interleaved: TP2 tokens 1-512 x H 2048-16384 (70 problems), "
       "TP4/TP8 tokens 1-512 x H 4096/8192 (10 each)",
       speedup_experiment, "plot_speedup.py", speedup_summary_step},
      {"peers",
       "arlab's reference and its best against FlashInfer at its own configuration, vLLM + norm, NCCL (+ "
       "symmetric) + norm on a real node: tokens 1-4096 x H 2048-16384, TP 2/4/8 (--nranks)",
       peers_experiment, "plot_peers.py", peers_summary_step},
  };
  return rows;
}

const ExperimentRow& experiment(const std::string& name) {
  for (const ExperimentRow& e : experiments())
    if (e.name == name) return e;
  throw InvalidArgument("unknown experiment '" + cut_for_message(name) + "' (known: " + known_experiment_names() + ")");
}

std::vector<ExpCase> experiment_cases(const std::string& name, const ExpContext& ctx) {
  return experiment(name).cases(ctx);
}

std::string case_key(const Problem& p, const std::string& suffix) {
  std::string key = "N=" + std::to_string(p.nranks) + " H=" + std::to_string(p.hidden) +
                    " T=" + std::to_string(p.tokens) + " " + to_string(p.dtype) + " " + to_string(p.pattern) + " " +
                    to_string(p.acc) + " " + to_string(p.algo);
  if (!suffix.empty()) key += " " + suffix;
  return key;
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&text](const std::string& why) {
    return InvalidArgument("--shard '" + cut_for_message(text) + "': " + why +
                           " (expected i/n with whole numbers 0 <= i < n, e.g. 0/4)");
  };
  // A whole number of decimal digits only: no sign, no spaces, nothing after it.
  const auto parse_count = [&bad](const std::string& part, const char* what) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      throw bad(std::string(what) + " '" + part + "' is not a whole number");
    int value = 0;
    const auto [end, err] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (err != std::errc() || end != part.data() + part.size())
      throw bad(std::string(what) + " '" + part + "' is out of range");
    return value;
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad("no '/'");
  if (text.find('/', slash + 1) != std::string::npos) throw bad("more than one '/'");
  Shard s;
  s.index = parse_count(text.substr(0, slash), "index");
  s.count = parse_count(text.substr(slash + 1), "count");
  if (s.count < 1) throw bad("the count must be at least 1");
  if (s.index >= s.count) throw bad("the index must be below the count");
  return s;
}

std::vector<ExpCase> shard_cases(const std::vector<ExpCase>& cases, const Shard& shard) {
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw InvalidArgument("shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                          ": expected 0 <= index < count");
  std::vector<ExpCase> mine;
  for (size_t i = 0; i < cases.size(); ++i)
    if (static_cast<int>(i % static_cast<size_t>(shard.count)) == shard.index) mine.push_back(cases[i]);
  return mine;
}

std::string progress_line(const std::string& name, int done, int total, int skipped, double elapsed_s) {
  if (total < 0 || done < 0 || skipped < 0 || done > total || skipped > done || !std::isfinite(elapsed_s) ||
      elapsed_s < 0)
    throw InvalidArgument("progress of exp " + name + ": done " + std::to_string(done) + ", total " +
                          std::to_string(total) + ", skipped " + std::to_string(skipped) + ", elapsed " +
                          std::to_string(elapsed_s) + " s: expected 0 <= skipped <= done <= total, elapsed >= 0");
  const int ran = done - skipped;  // cases measured in this run: the only ones that took time
  const int remaining = total - done;
  std::string eta;
  if (remaining == 0) eta = duration_text(0);
  else if (ran == 0) eta = "unknown";
  else eta = duration_text(elapsed_s / ran * remaining);
  std::string line = "exp " + name + ": " + std::to_string(done) + "/" + std::to_string(total) + " cases";
  if (skipped > 0) line += " (" + std::to_string(skipped) + " skipped: in the CSV)";
  return line + ", " + duration_text(elapsed_s) + " elapsed, ETA " + eta;
}

}  // namespace arlab::exp
