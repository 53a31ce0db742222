// The seed experiment's cases (experiments/seed_cases.h): the policy rows and the explicit sweep.
#include "experiments/seed_cases.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/launch_limits.h"

namespace arlab::seed {

Problem seed_problem(int tokens, int hidden, int nranks) {
  Problem p;
  p.tokens = tokens;
  p.hidden = hidden;
  p.nranks = nranks;
  p.dtype = DType::bf16;
  p.pattern = Pattern::ar_res_rms;
  p.acc = Accumulation::pairwise;
  p.algo = Algorithm::oneshot;
  p.eps = 1e-5f;  // Llama-3's RMSNorm epsilon
  validate(p);
  return p;
}

namespace {
template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <class T>
std::string listed(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}
}  // namespace

std::string seed_row_mismatch(const model::MeasuredRow& row, const SeedSweep& sweep) {
  const Problem& p = row.problem;
  const Problem want = seed_problem(sweep.tokens.front(), sweep.hidden.front(), sweep.nranks);
  const std::string seed = " (the seed problem is TP" + std::to_string(sweep.nranks) + ", " + to_string(want.dtype) +
                           ", " + to_string(want.pattern) + ", " + to_string(want.algo) + ", " + to_string(want.acc) +
                           ", H in {" + listed(sweep.hidden) + "}, tokens in {" + listed(sweep.tokens) + "})";
  if (p.nranks != sweep.nranks) return "nranks = " + std::to_string(p.nranks) + seed;
  if (p.dtype != want.dtype) return std::string("dtype = ") + to_string(p.dtype) + seed;
  if (p.pattern != want.pattern) return std::string("pattern = ") + to_string(p.pattern) + seed;
  // The model policy may switch algorithm (model/policies.h): its rows may be two-shot.
  const bool model_row = row.policy == model::to_string(model::Policy::model);
  if (p.algo != want.algo && !model_row)
    return std::string("algo = ") + to_string(p.algo) + " under policy " + row.policy + seed;
  if (p.acc != want.acc) return std::string("acc = ") + to_string(p.acc) + seed;
  if (!contains(sweep.hidden, p.hidden)) return "hidden = " + std::to_string(p.hidden) + seed;
  if (!contains(sweep.tokens, p.tokens)) return "tokens = " + std::to_string(p.tokens) + seed;
  std::vector<std::string> policies = {model::to_string(model::Policy::explicit_config)};
  for (model::Policy policy : sweep.policies) policies.emplace_back(model::to_string(policy));
  if (!contains(policies, row.policy))
    return "policy = " + row.policy +
           " (the seed rows are measured under legacy, trtllm, occupancy, model or explicit)";
  return "";
}

namespace {

constexpr int kClusterSizes[] = {1, 2, 4, 8};
constexpr int kVecsPerThread[] = {1, 2, 4};
constexpr int kGridDivisors[] = {1, 2, 4, 8, 16};  // fraction of the wanted clusters actually launched
constexpr int kMinTpb = 32;                     // one warp

bool legal(const Problem& p, const LaunchConfig& c, const model::GpuSpec& spec, const model::KernelResources& res) {
  try {
    model::check_legal(p, c, spec, res);
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace

std::vector<SeedCase> seed_cases(const SeedSweep& sweep, const model::GpuSpec& rank_spec,
                                 const model::KernelResources& res) {
  std::vector<SeedCase> cases;
  for (int hidden : sweep.hidden)
    for (int tokens : sweep.tokens)
      for (model::Policy pol : sweep.policies) {
        SeedCase c;
        c.problem = seed_problem(tokens, hidden, sweep.nranks);
        c.policy = pol;
        cases.push_back(c);
      }
  for (int hidden : sweep.hidden)
    for (int tokens : sweep.explicit_tokens) {
      const Problem p = seed_problem(tokens, hidden, sweep.nranks);
      const long long tpt = threads_per_token(p);
      std::set<std::tuple<int, int, int>> seen;  // (tpb, cluster, grid)
      for (int cs : kClusterSizes)
        for (int vpt : kVecsPerThread) {
          if (tpt % (static_cast<long long>(cs) * vpt) != 0) continue;
          const long long tpb = tpt / (static_cast<long long>(cs) * vpt);
          if (tpb < kMinTpb || tpb > kMaxThreadsPerBlock) continue;
          std::vector<int> cluster_counts;
          for (int div : kGridDivisors) cluster_counts.push_back(tokens / div > 0 ? tokens / div : 1);
          cluster_counts.push_back(rank_spec.sm_count / cs > 0 ? rank_spec.sm_count / cs : 1);  // the peers' SM cap
          for (int clusters : cluster_counts) {
            LaunchConfig cfg;
            cfg.tpb = static_cast<int>(tpb);
            cfg.cluster = cs;
            cfg.grid = clusters * cs;
            cfg.vecs_per_thread = vpt;
            cfg.algo = p.algo;
            if (!seen.insert({cfg.tpb, cs, cfg.grid}).second || !legal(p, cfg, rank_spec, res)) continue;
            SeedCase c;
            c.problem = p;
            c.policy = model::Policy::explicit_config;
            c.explicit_cfg = cfg;
            cases.push_back(c);
          }
        }
    }
  return cases;
}

}  // namespace arlab::seed
