// The seed experiment's sweep (pure data, no GPU): the motivating case of arlab -- Llama-3 decode,
// TP2, one-shot fused all-reduce + residual + RMSNorm in bf16, where a launch-configuration change
// took a peer library's kernel from ~26.8 us to ~9.8 us at 128 tokens (docs/seed.md, docs/policies.md) -- as
// problems x policies, plus a sweep of explicit configurations at the seed token count that gives
// the model's rank correlation and regret something to be judged on.
#pragma once

#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/gpu_spec.h"
#include "model/legality.h"
#include "model/measurements.h"
#include "model/policies.h"

namespace arlab::seed {

struct SeedSweep {
  std::vector<int> hidden = {4096, 8192};  // Llama-3 8B and 70B: the source does not say which (docs/policies.md)
  std::vector<int> tokens = {1, 8, 32, 64, 128, 256, 512};
  int nranks = 2;                           // TP2
  std::vector<model::Policy> policies = {model::Policy::legacy, model::Policy::trtllm, model::Policy::occupancy,
                                         model::Policy::model};
  std::vector<int> explicit_tokens = {128}; // where the explicit-configuration sweep runs
};

// The seed experiment's group of the library's own kernel (FlashInfer's one-shot, `arlab exp seed`,
// beside each problem's groups of arlab's reference): at trtllm's configuration (the group's first
// member, so the ratio row is legacy over it) and at legacy's, the two ends of the seed story.
constexpr const char* kFlashinferTrtllmMember = "trtllm/flashinfer";
constexpr const char* kFlashinferLegacyMember = "legacy/flashinfer";

struct SeedCase {
  Problem problem;
  model::Policy policy = model::Policy::trtllm;
  LaunchConfig explicit_cfg;  // used when policy == explicit_config
};

// The seed problem: bf16 ar_res_rms one-shot, pairwise, eps 1e-5.
Problem seed_problem(int tokens, int hidden, int nranks);

// "" when `row` is a row of the seed sweep, else why not, naming the first field that differs and
// its value: the problem must be seed_problem's (nranks = sweep.nranks, bf16, ar_res_rms, one-shot
// -- or two-shot under the model policy, which may switch algorithm -- pairwise) at one of the
// sweep's hidden sizes and token counts, under one of the seed policies or an explicit configuration.
// `arlab seed --data` refuses a file with any other row.
std::string seed_row_mismatch(const model::MeasuredRow& row, const SeedSweep& sweep);

// Policy cases for every (hidden, tokens), then the explicit sweep: for every hidden and
// explicit_tokens, every (cluster, vecs_per_thread) whose block size tpb = threads_per_token /
// (cluster x vpt) is a whole number in [32, 1024], with 1, 1/2, 1/4, 1/8 and 1/16 of the clusters the
// tokens want (at least one) and with the peers' cap of SMs / cluster clusters, keeping only what
// check_legal accepts on `rank_spec` with `res`.
std::vector<SeedCase> seed_cases(const SeedSweep& sweep, const model::GpuSpec& rank_spec,
                                 const model::KernelResources& res);

}  // namespace arlab::seed
