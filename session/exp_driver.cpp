// `arlab exp NAME` on a GPU (session/session.h run_experiment): the experiment's cases (this shard's)
// run one group each, on the emulated node (one node per rank count) or, under mpirun / srun with
// one process per GPU, on the real node. Every case is one RunPlan measured as `arlab run` measures
// it (session/run_driver.h), its rows appended with experiment = "NAME/KEY"; a re-run skips the cases
// already in the CSV (resume). Progress (done/total, elapsed, ETA) goes to stderr.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/build_info.h"
#include "common/problem.h"
#include "common/utc_time.h"
#include "experiments/exp_csv.h"
#include "harness/check.h"
#include "kernels/dispatch.h"
#include "session/node_session.h"
#include "session/run_driver.h"
#include "session/session.h"

namespace arlab::session {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Registers and shared memory of the bf16 one-shot reference kernel of N ranks: what the case lists'
// explicit configurations are judged legal with.
model::KernelResources kernel_resources(int nranks) {
  const kernels::FusedKernel k = kernels::find_fused_kernel(
      kernels::KernelKey{Algorithm::oneshot, DType::bf16, nranks, Pattern::ar_res_rms, Accumulation::pairwise});
  cudaFuncAttributes a{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, k.fn));
  return model::KernelResources{a.numRegs, static_cast<int>(a.sharedSizeBytes)};
}

// This shard's cases of rank count n on `rank_spec`.
std::vector<exp::ExpCase> shard_cases_for(const ExpRequest& r, int n, const model::GpuSpec& rank_spec, bool real) {
  exp::ExpContext ctx;
  ctx.nranks = {n};
  ctx.real_node = real;
  ctx.quick = r.quick;
  ctx.rank_spec = rank_spec;
  ctx.res = kernel_resources(n);
  ctx.max_configs = r.max_configs;
  return exp::shard_cases(exp::experiment_cases(r.name, ctx), r.shard);
}

// The plan of one case: the base plan's timing, inputs and calibration, the case's problem and group.
RunPlan case_plan(const ExpRequest& r, const exp::ExpCase& c) {
  RunPlan plan = r.base;
  plan.problem = c.problem;
  plan.sweep.clear();
  GroupRequest group;
  group.policies = c.policies;
  if (!c.kernels.empty()) group.kernels = parse_kernel_choices(c.kernels);
  for (const std::string& cfg : c.configs) group.shapes.push_back(model::parse_explicit_shape(cfg));
  for (const std::string& b : c.baselines) group.baselines.push_back(parse_baseline(b));
  plan.entries = plan_group(group, c.problem);
  plan.experiment = r.name + "/" + c.key;
  plan.csv = r.csv_path;
  plan.ratios_csv = r.ratios_path;
  return plan;
}

// The node of one rank count: a workspace for the largest case (in elements), 2-byte dtypes.
harness::NodeOptions node_options(const ExpRequest& r, int n, const std::vector<exp::ExpCase>& cases) {
  harness::NodeOptions nopt;
  nopt.nranks = n;
  nopt.timeout_ms = r.base.timeout_ms;
  nopt.sms_per_rank = r.base.sms_per_rank;
  nopt.max_hidden = 1;
  long long elems = 1;
  for (const exp::ExpCase& c : cases) {
    elems = std::max(elems, static_cast<long long>(c.problem.tokens) * c.problem.hidden);
    nopt.max_hidden = std::max(nopt.max_hidden, c.problem.hidden);
  }
  nopt.max_tokens = static_cast<int>((elems + nopt.max_hidden - 1) / nopt.max_hidden);
  nopt.max_elem_bytes = 2;
  for (const exp::ExpCase& c : cases) nopt.peers = nopt.peers || needs_peers(case_plan(r, c).entries);
  return nopt;
}

struct Progress {
  std::set<std::string> done;  // case keys already in the CSV (process 0's view)
  int total = 0, finished = 0, skipped = 0, gate_failures = 0;
  std::vector<std::string> refused;  // "case key: why" of the cases this node cannot run
  Clock::time_point t0 = Clock::now();
  double ran_s = 0;
};

// Runs the cases on one node. Process 0 decides which cases are done (resume) and every process
// follows that decision, so the collectives stay in step.
void run_cases(const ExpRequest& r, const std::vector<exp::ExpCase>& cases, harness::Node& node,
               const NodeSession& s, Progress& progress) {
  const bool printer = node.process_index() == 0;
  for (const exp::ExpCase& c : cases) {
    const double skip_mine = printer && progress.done.count(c.key) ? 1.0 : 0.0;
    if (node.allgather({skip_mine}).front() == 1.0) {
      ++progress.skipped;
    } else {
      if (printer) std::printf("\n=== %s/%s\n", r.name.c_str(), c.key.c_str());
      const Clock::time_point t = Clock::now();
      try {
        run_plan_on_node(case_plan(r, c), node, s.cupti(), s.cupti_note());
      } catch (const DeviceTimeout&) {
        throw;  // a hung or faulted kernel ends the experiment (the node re-initialized; say where)
      } catch (const InvalidArgument& e) {
        // The case cannot run on this node: a policy's configuration is illegal here (e.g. FlashInfer's
        // own two-shot rule asks for clusters that a 16-SM partition cannot hold at once). Every process
        // resolves the same plan, so all of them refuse it before anything is launched: no rows; say
        // why, go on, and list it at the end.
        progress.refused.push_back(c.key + ": " + e.what());
        if (printer) std::printf("  REFUSED on this node: %s\n", e.what());
      } catch (const std::runtime_error& e) {
        // A failed gate: its rows (check = fail) are in the CSV; go on, fail at the end.
        if (std::string(e.what()).find("correctness gate FAILED") == std::string::npos) throw;
        ++progress.gate_failures;
        if (printer) std::printf("  GATE FAILED: %s\n", e.what());
      }
      progress.ran_s += seconds_since(t);
    }
    ++progress.finished;
    if (printer) {
      std::fprintf(stderr, "%s\n",
                   exp::progress_line(r.name, progress.finished, progress.total, progress.skipped,
                                      seconds_since(progress.t0))
                       .c_str());
      std::fflush(stdout);
    }
  }
}

// The request with its calibration chosen for the GPU the node opened (RunPlan::calibration_for_gpu), kept
// in `out` for the summary step; said once where it differs from the calibration the request came with.
ExpRequest for_node_gpu(const ExpRequest& r, const harness::Node& node, ExpOutcome& out) {
  ExpRequest chosen = r;
  if (!r.base.calibration_for_gpu) return chosen;
  r.base.calibration_for_gpu(chosen.base, node.device().name);
  if (out.printer && chosen.base.calibration_source != out.calibration_source)
    std::printf("arlab exp %s: calibration for %s: %s\n", r.name.c_str(), node.device().name.c_str(),
                chosen.base.calibration_source.c_str());
  out.calibration = chosen.base.calibration;
  out.calibration_source = chosen.base.calibration_source;
  return chosen;
}

}  // namespace

ExpOutcome run_experiment(const ExpRequest& r) {
  NodeSession s("arlab exp " + r.name, r.base.device, r.base.cupti && r.base.timed);
  if (!r.output_dir.empty()) std::filesystem::create_directories(r.output_dir);
  ExpOutcome out;
  out.calibration = r.base.calibration;
  out.calibration_source = r.base.calibration_source;
  Progress progress;
  const std::string started = utc_now_iso8601();
  out.printer = s.printer();
  if (s.multi_process()) {
    const int n = s.node_ranks(0);
    out.rank_spec = s.rank_spec(n);
    const std::vector<exp::ExpCase> real_cases = shard_cases_for(r, n, out.rank_spec, true);
    harness::NodeOptions nopt = node_options(r, n, real_cases);
    s.on_node(nopt, [&](harness::Node& node) {
      const bool real = node.topology() == "mpi";
      out.cases = real ? real_cases : shard_cases_for(r, n, out.rank_spec, false);
      progress.total = static_cast<int>(out.cases.size());
      if (out.printer) {
        progress.done = exp::done_case_keys(r.csv_path, r.name);
        std::printf("arlab exp %s (git %s, %s): %d cases on the %s node (N %d, %s), shard %d/%d -> %s\n",
                    r.name.c_str(), arlab::git_sha(), started.c_str(), progress.total, real ? "real" : "shared-GPU",
                    n, node.describe().c_str(), r.shard.index, r.shard.count, r.csv_path.c_str());
      }
      run_cases(for_node_gpu(r, node, out), out.cases, node, s, progress);
    });
  } else {
    std::vector<std::vector<exp::ExpCase>> by_n;
    for (int n : r.nranks) {
      by_n.push_back(shard_cases_for(r, n, s.rank_spec(n, r.base.sms_per_rank), false));
      progress.total += static_cast<int>(by_n.back().size());
    }
    out.rank_spec = s.rank_spec(r.nranks.front(), r.base.sms_per_rank);
    progress.done = exp::done_case_keys(r.csv_path, r.name);
    std::string ranks;
    for (int n : r.nranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(n);
    std::printf("arlab exp %s (git %s, %s): %d cases on the emulated node (N %s), shard %d/%d -> %s\n",
                r.name.c_str(), arlab::git_sha(), started.c_str(), progress.total, ranks.c_str(), r.shard.index,
                r.shard.count, r.csv_path.c_str());
    for (size_t i = 0; i < r.nranks.size(); ++i) {
      const std::vector<exp::ExpCase>& cases = by_n[i];
      if (cases.empty()) continue;
      s.on_node(node_options(r, r.nranks[i], cases),
                [&](harness::Node& node) { run_cases(for_node_gpu(r, node, out), cases, node, s, progress); });
      out.cases.insert(out.cases.end(), cases.begin(), cases.end());
    }
  }
  out.run = progress.finished - progress.skipped - static_cast<int>(progress.refused.size());
  out.skipped = progress.skipped;
  out.gate_failures = progress.gate_failures;
  out.refused = progress.refused;
  out.wall_s = seconds_since(progress.t0);
  out.cases_s = progress.ran_s;
  return out;
}

}  // namespace arlab::session
