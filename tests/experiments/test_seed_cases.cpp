// The seed experiment's sweep: the motivating problem, every policy at every (H, tokens), and an
// explicit-configuration sweep that the kernels can legally run.
#include <set>
#include <string>

#include "experiments/seed_cases.h"
#include "model/gpu_spec.h"
#include "tests/catch.h"

using namespace arlab;

namespace {
model::KernelResources seed_resources() {
  model::KernelResources r;
  r.regs_per_thread = 52;  // one-shot bf16 ar_res_rms N=2 on sm_90 (data/h200/issue4_registers.txt)
  return r;
}
}  // namespace

TEST_CASE("seed problem is the Llama-3 TP2 decode case") {
  const Problem p = seed::seed_problem(128, 8192, 2);
  CHECK(p.dtype == DType::bf16);
  CHECK(p.pattern == Pattern::ar_res_rms);
  CHECK(p.algo == Algorithm::oneshot);
  CHECK(p.nranks == 2);
  CHECK(p.eps == 1e-5f);
  CHECK_THROWS_AS(seed::seed_problem(128, 4100, 2), InvalidArgument);  // 4100 % 8 != 0
}

TEST_CASE("seed sweep: every policy at every (H, tokens), explicit configurations all legal") {
  const model::GpuSpec spec = model::sm_partition(model::gpu_preset("h200_sxm"), 2);
  const seed::SeedSweep sweep;
  const auto cases = seed::seed_cases(sweep, spec, seed_resources());
  size_t policy_cases = 0, explicit_cases = 0;
  std::set<std::string> seen;
  for (const seed::SeedCase& c : cases) {
    if (c.policy == model::Policy::explicit_config) {
      ++explicit_cases;
      CHECK(c.problem.tokens == 128);
      CHECK_NOTHROW(model::check_legal(c.problem, c.explicit_cfg, spec, seed_resources()));
      CHECK(c.explicit_cfg.grid % c.explicit_cfg.cluster == 0);
      const std::string key = std::to_string(c.problem.hidden) + "/" + to_string(c.explicit_cfg);
      CHECK(seen.insert(key).second);  // no configuration twice
    } else {
      ++policy_cases;
      CHECK(c.problem.hidden % 8 == 0);
    }
  }
  CHECK(policy_cases == sweep.hidden.size() * sweep.tokens.size() * sweep.policies.size());
  // Both block-size extremes of the seed story are in the explicit sweep: the legacy-like
  // 128-thread blocks in clusters of 8 and the trtllm-like 1024-thread blocks without clusters.
  CHECK(seen.count("8192/128/8/64 vpt=1 oneshot") == 1);
  CHECK(seen.count("8192/1024/1/64 vpt=1 oneshot") == 1);
  CHECK(explicit_cases >= 20);
  INFO("explicit cases: " << explicit_cases);
}

TEST_CASE("seed --data: a row of another problem is named with the field that differs") {
  const seed::SeedSweep sweep;
  model::MeasuredRow row;
  row.problem = seed::seed_problem(128, 8192, 2);
  row.policy = "trtllm";
  CHECK(seed::seed_row_mismatch(row, sweep).empty());
  row.policy = "model";
  row.problem.algo = Algorithm::twoshot;  // the model policy may switch algorithm
  CHECK(seed::seed_row_mismatch(row, sweep).empty());
  row.policy = "trtllm";
  CHECK(seed::seed_row_mismatch(row, sweep).find("algo = twoshot") == 0);
  row.problem = seed::seed_problem(128, 8192, 2);
  row.problem.nranks = 8;
  CHECK(seed::seed_row_mismatch(row, sweep).find("nranks = 8") == 0);
  row.problem = seed::seed_problem(100, 8192, 2);
  CHECK(seed::seed_row_mismatch(row, sweep).find("tokens = 100") == 0);
  row.problem = seed::seed_problem(128, 8192, 2);
  row.problem.dtype = DType::fp16;
  CHECK(seed::seed_row_mismatch(row, sweep).find("dtype = fp16") == 0);
  row.problem = seed::seed_problem(128, 8192, 2);
  row.policy = "fastest";
  CHECK(seed::seed_row_mismatch(row, sweep).find("policy = fastest") == 0);
}
