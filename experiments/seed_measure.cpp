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
#include "common/ratio_schema.h"
#include "harness/cupti_timer.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/measurement.h"
#include "harness/nvml.h"
#include "harness/timing.h"
#include "model/calibration.h"
#include "model/candidates.h"
#include "model/policies.h"

namespace arlab::seed {
namespace {

// The reference every ratio row divides by: the peer library's current configuration.
constexpr const char* kRatioDenominator = "trtllm";

std::string config_text(const LaunchConfig& c) {  // for the failure list
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) + "/" +
         std::to_string(c.vecs_per_thread) + "/" + to_string(c.algo);
}

}  // namespace

bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

SeedRunResult measure_seed(const SeedSweep& sweep, const MeasureOptions& opt, const std::string& csv_path,
                           const std::string& ratios_path) {
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
  const harness::Nvml nvml;
  const harness::GpuClocks clocks(nvml, node.device().ordinal);
  std::printf("  node: %s; %s, driver %s, CUDA %s; clocks %s\n", node.describe().c_str(),
              node.device().name.c_str(), node.device().driver.c_str(), node.device().runtime.c_str(),
              nvml.available() ? "from NVML" : nvml.note().c_str());

  const model::Calibration cal =
      opt.calibration.empty() ? model::default_calibration() : model::load_calibration(opt.calibration);
  harness::MeasureSettings settings;
  settings.timing = opt.timing;
  settings.experiment = "seed";
  settings.link = harness::node_link(node, nvml);

  CsvAppender out(csv_path, measurement_header());
  CsvAppender ratios(ratios_path, ratio_header());
  SeedRunResult result;
  for (int hidden : sweep.hidden) {
    // One runner per algorithm (the kernel instantiation is the runner's): the one-shot seed problem,
    // and a two-shot one for where the model policy picks two-shot. Same seed, same inputs.
    std::map<Algorithm, std::unique_ptr<harness::FusedRunner>> runners;
    auto runner_for = [&](Algorithm algo) -> harness::FusedRunner& {
      auto& r = runners[algo];
      if (!r) {
        Problem shape = seed_problem(nopt.max_tokens, hidden, sweep.nranks);
        shape.algo = algo;
        const int sets = harness::input_sets_for(shape, node.device().spec.l2_bytes);
        r = std::make_unique<harness::FusedRunner>(node, shape, sets, opt.seed, ref::Distribution::normal);
      }
      return *r;
    };
    // Each algorithm's kernel has its own registers and shared memory: the model policy searches
    // each algorithm's candidates with that kernel's resources and keeps the faster prediction.
    auto resources_of = [&](Algorithm algo) {
      harness::FusedRunner& r = runner_for(algo);
      model::KernelResources res;
      res.regs_per_thread = r.registers_per_thread();
      res.smem_per_block_bytes = r.resources(LaunchConfig{}).smem_per_block_bytes;
      return res;
    };
    const model::KernelResources res = resources_of(Algorithm::oneshot);
    auto choose = [&](const SeedCase& c) {
      if (c.policy != model::Policy::model)
        return model::choose_launch_config(c.policy, c.problem, node.rank_spec(), res, cal,
                                           c.policy == model::Policy::explicit_config ? &c.explicit_cfg : nullptr);
      model::SearchResult best;
      bool found = false;
      for (Algorithm algo : model::model_algorithms(c.problem)) {
        Problem p = c.problem;
        p.algo = algo;
        const model::SearchResult r = model::search_best_config(p, node.rank_spec(), resources_of(algo), cal, {algo});
        if (!found || r.best_us < best.best_us) best = r;
        found = true;
      }
      return best.best;
    };
    SeedSweep one = sweep;
    one.hidden = {hidden};

    // Every case of one (tokens, algorithm) is one interleaved group.
    std::map<std::pair<int, Algorithm>, std::vector<harness::Candidate>> groups;
    for (const SeedCase& c : seed_cases(one, node.rank_spec(), res)) {
      const char* label = model::to_string(c.policy);
      try {
        const LaunchConfig cfg = choose(c);
        Problem call = c.problem;
        call.algo = cfg.algo;  // the model policy may pick the other algorithm; the row says which ran
        runner_for(cfg.algo).validate_call(call, cfg);
        groups[{call.tokens, cfg.algo}].push_back(harness::Candidate{label, cfg});
      } catch (const InvalidArgument& e) {
        ++result.refused;
        std::printf("  H %5d tokens %4d %-9s refused: %s\n", hidden, c.problem.tokens, label, e.what());
      }
    }

    for (const auto& [key, group] : groups) {
      Problem call = seed_problem(key.first, hidden, sweep.nranks);
      call.algo = key.second;
      // Input sets sized for this call, as `arlab run` sizes them: a runner shaped for the largest
      // token count would rotate sets whose first rows (all a smaller call reads) fit in L2.
      harness::FusedRunner group_runner(node, call, harness::input_sets_for(call, node.device().spec.l2_bytes),
                                        opt.seed, ref::Distribution::normal);
      const std::vector<harness::Measurement> ms =
          harness::measure_group(group_runner, call, group, cal, settings, cupti.get(), &clocks);
      const size_t none = ms.size();
      size_t den = none;
      for (size_t i = 0; i < ms.size() && den == none; ++i)
        if (group[i].policy == kRatioDenominator) den = i;
      for (size_t i = 0; i < ms.size(); ++i) {
        const harness::Measurement& m = ms[i];
        const LaunchConfig& cfg = group[i].cfg;
        out.append(to_cells(m.row));
        ++result.measured;
        if (m.checked && !m.gate.pass)
          result.failed.push_back("H " + std::to_string(hidden) + " tokens " + std::to_string(call.tokens) + " " +
                                  group[i].policy + " " + config_text(cfg) + ": " + m.gate.first_failure);
        std::printf("  H %5d tokens %4d %-9s %-7s %4d/%d/%-4d vpt %d: %s, %8.3f us [%.3f, %.3f] (%d iters, noise "
                    "%.2f %%, %s) skew-free %.3f, graph %.2f us/call, model %.2f us\n",
                    hidden, call.tokens, group[i].policy.c_str(), to_string(cfg.algo), cfg.tpb, cfg.cluster, cfg.grid,
                    cfg.vecs_per_thread, m.row.check.c_str(), m.row.kernel_us_median, m.row.kernel_us_ci_lo,
                    m.row.kernel_us_ci_hi, m.row.iters, m.row.noise_pct, m.row.stop_reason.c_str(),
                    m.row.skewfree_us_median, m.row.graph_us_per_call, m.predicted_us);
        const std::string warn = harness::measurement_warnings(m, settings.timing.stop.max_noise);
        if (!warn.empty()) std::printf("    WARNING: %s\n", warn.c_str());
        if (den == none || i == den) continue;
        ratios.append(to_cells(harness::ratio_row(m, ms[den], settings.timing.stop.confidence)));
      }
    }
  }
  std::printf("  measured %d case(s), %d refused, %zu failed the gate; rows in %s, ratios in %s\n", result.measured,
              result.refused, result.failed.size(), csv_path.c_str(), ratios_path.c_str());
  return result;
}

}  // namespace arlab::seed
