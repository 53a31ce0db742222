#include "experiments/seed_measure.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>

#include "common/csv.h"
#include "common/measurement_schema.h"
#include "harness/cupti_timer.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/measurement.h"
#include "model/calibration.h"
#include "model/policies.h"

namespace arlab::seed {

bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

int measure_seed(const SeedSweep& sweep, const MeasureOptions& opt, const std::string& csv_path) {
  harness::request_device_connections();  // before the first CUDA call that creates a context
  std::unique_ptr<harness::CuptiKernelTimer> cupti;
  try {
    cupti = std::make_unique<harness::CuptiKernelTimer>();
  } catch (const std::exception& e) {
    std::printf("  CUPTI unavailable (%s): timing with CUDA events\n", e.what());
  }

  harness::NodeOptions nopt;
  nopt.nranks = sweep.nranks;
  nopt.device = opt.device;
  nopt.max_tokens = *std::max_element(sweep.tokens.begin(), sweep.tokens.end());
  nopt.max_hidden = *std::max_element(sweep.hidden.begin(), sweep.hidden.end());
  nopt.max_elem_bytes = dtype_bytes(DType::bf16);
  nopt.timeout_ms = opt.timeout_ms;
  harness::EmulatedNode node(nopt);
  std::printf("  node: %s; %s, driver %s, CUDA %s\n", node.describe().c_str(), node.device().name.c_str(),
              node.device().driver.c_str(), node.device().runtime.c_str());

  const model::Calibration cal =
      opt.calibration.empty() ? model::default_calibration() : model::load_calibration(opt.calibration);
  harness::MeasureSettings settings;
  settings.timing.warmup = opt.warmup;
  settings.timing.iters = opt.iters;
  settings.timing.graph_calls = opt.graph_calls;
  settings.timing.graph_reps = opt.graph_reps;
  settings.experiment = "seed";

  CsvAppender out(csv_path, measurement_header());
  int failed = 0, measured = 0, refused = 0;
  for (int hidden : sweep.hidden) {
    // One runner per algorithm (the kernel instantiation is the runner's): the one-shot seed problem,
    // and a two-shot one for where the model policy picks two-shot. Same seed, same inputs.
    std::map<Algorithm, std::unique_ptr<harness::FusedRunner>> runners;
    auto runner_for = [&](Algorithm algo) -> harness::FusedRunner& {
      auto& r = runners[algo];
      if (!r) {
        Problem shape = seed_problem(nopt.max_tokens, hidden, sweep.nranks);
        shape.algo = algo;
        r = std::make_unique<harness::FusedRunner>(node, shape, harness::input_sets_for(shape, node.device().spec.l2_bytes),
                                                   opt.seed, ref::Distribution::normal);
      }
      return *r;
    };
    harness::FusedRunner& oneshot = runner_for(Algorithm::oneshot);
    model::KernelResources res;
    res.regs_per_thread = oneshot.registers_per_thread();
    res.smem_per_block_bytes = oneshot.resources(LaunchConfig{}).smem_per_block_bytes;
    SeedSweep one = sweep;
    one.hidden = {hidden};
    for (const SeedCase& c : seed_cases(one, node.rank_spec(), res)) {
      Problem call = c.problem;
      const char* label = model::to_string(c.policy);
      try {
        const LaunchConfig cfg = model::choose_launch_config(
            c.policy, call, node.rank_spec(), res, cal,
            c.policy == model::Policy::explicit_config ? &c.explicit_cfg : nullptr);
        call.algo = cfg.algo;  // the model policy may pick the other algorithm; the row says which ran
        settings.policy = label;
        const harness::Measurement m =
            harness::measure_call(runner_for(cfg.algo), call, cfg, cal, settings, cupti.get());
        out.append(to_cells(m.row));
        ++measured;
        if (m.checked && !m.gate.pass) ++failed;
        std::printf("  H %5d tokens %4d %-9s %-7s %4d/%d/%-4d vpt %d: %s, %8.2f us (p10 %.2f p90 %.2f, %s) "
                    "graph %.2f us/call, model %.2f us\n",
                    hidden, call.tokens, label, to_string(cfg.algo), cfg.tpb, cfg.cluster, cfg.grid,
                    cfg.vecs_per_thread, m.row.check.c_str(), m.row.kernel_us_median, m.row.kernel_us_p10,
                    m.row.kernel_us_p90, m.row.timing_source.c_str(), m.row.graph_us_per_call, m.predicted_us);
      } catch (const InvalidArgument& e) {
        ++refused;
        std::printf("  H %5d tokens %4d %-9s refused: %s\n", hidden, call.tokens, label, e.what());
      }
    }
  }
  std::printf("  measured %d case(s), %d refused, %d failed the gate; rows in %s\n", measured, refused, failed,
              csv_path.c_str());
  return failed;
}

}  // namespace arlab::seed
