// The seed experiment's cases (experiments/seed_cases.h): the policy rows and the explicit sweep.
#include "experiments/seed_cases.h"

#include <set>
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
