// `arlab exp NAME`: a named experiment (experiments/exp_plan.h) run case by case on the emulated
// node (one per rank count, --nranks) or, under mpirun/srun with one process per GPU, on the real
// node. Every case is one interleaved group of `arlab run` (cli/run_core.h: the same gate, timing
// and CSV rows), appended to OUT/NAME/NAME.csv with experiment = "NAME/KEY". Progress (done/total,
// elapsed, ETA) goes to stderr; a re-run skips the cases already in the CSV (resume); --shard i/n
// runs every n-th case, and --merge joins shard CSVs. At the end: a summary table per case, the
// wall time, and the experiment's figure (plots/plot_*.py) when Python with matplotlib is found.
// `numerics` runs the CPU numerics sweep (experiments/numerics_sweep.h) and needs no GPU.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "cli/run_core.h"
#include "common/build_info.h"
#include "common/csv.h"
#include "common/measurement_schema.h"
#include "common/numerics_schema.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "experiments/exp_plan.h"
#include "experiments/numerics_sweep.h"
#include "experiments/speedup_summary.h"
#include "harness/launch_env.h"
#include "model/calibration.h"

#ifdef ARLAB_HAVE_CUDA
#include <cuda_runtime.h>

#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/device_query.h"
#include "harness/emulated_node.h"
#include "kernels/dispatch.h"
#include "model/gpu_spec.h"
#ifdef ARLAB_HAVE_MPI
#include "harness/mpi_node.h"
#include "harness/mpi_session.h"
#endif
#endif

namespace arlab::cli {
namespace {

struct ExpOptions {
  std::string name;
  std::string out_dir = "results";
  std::string shard = "0/1";
  std::vector<int> nranks = {2};
  bool quick = false;
  int max_configs = 0;
  bool no_plots = false;
  bool list = false;
  std::vector<std::string> merge;  // shard CSVs to join into OUT/NAME/NAME.csv
  RunOptions run;                  // timing, seed, distribution, timeout, device, calibration, ...
  std::string calibration = "auto";  // auto: the measured calibration of the node kind, when found
};

// --calibration auto: the measured H200 calibration of the node the experiment runs on
// (data/calibration/h200_nvlink.csv on a real node, h200_emulated.csv on the emulated one), looked for
// in this source tree, then under the working directory; the built-in priors when neither exists.
// The model policy chooses with it and every row's predicted_us comes from it.
std::string resolve_calibration(const std::string& given, bool real_node) {
  if (given != "auto") return given;
  const std::string file = real_node ? "h200_nvlink.csv" : "h200_emulated.csv";
  for (const std::string& dir : {std::string(ARLAB_SOURCE_DIR), std::string(".")}) {
    const std::string path = dir + "/data/calibration/" + file;
    if (std::filesystem::exists(path)) return path;
  }
  return "";  // built-in priors
}

std::string csv_path(const ExpOptions& o) { return o.out_dir + "/" + o.name + "/" + o.name + ".csv"; }
std::string figure_prefix(const ExpOptions& o) { return o.out_dir + "/" + o.name + "/" + o.name; }

// The figure script of each experiment (plots/), fed the experiment's CSV.
std::string plot_script(const std::string& name) {
  if (name == "seed" || name == "tokens") return "plot_tokens.py";
  if (name == "fusion") return "plot_fusion.py";
  if (name == "crossover") return "plot_crossover.py";
  if (name == "config-space") return "plot_config_space.py";
  if (name == "model-accuracy") return "plot_model_accuracy_exp.py";
  if (name == "numerics") return "plot_numerics.py";
  if (name == "speedup") return "plot_speedup.py";
  return "";
}

// Runs the experiment's plot script from the source tree this arlab was built from (or ./plots);
// a missing Python or matplotlib is a note, not a failure: the CSV is the result.
void make_figures(const ExpOptions& o) {
  if (o.no_plots) return;
  const std::string script = plot_script(o.name);
  std::string root;  // a source tree holding plots/ and scripts/find-python.sh
  for (const std::string& dir : {std::string(ARLAB_SOURCE_DIR), std::string(".")})
    if (std::filesystem::exists(dir + "/plots/" + script)) {
      root = dir;
      break;
    }
  if (root.empty()) {
    std::printf("  figures: plots/%s not found (run scripts/figures.sh from the source tree)\n", script.c_str());
    return;
  }
  // The experiment scripts read the rows of one experiment (seed uses the tokens figure).
  const std::string which = o.name == "numerics" ? "" : " --experiment '" + o.name + "'";
  // scripts/find-python.sh: a python3 that imports matplotlib (Debian's before one earlier on PATH).
  const std::string cmd = "py=$('" + root + "/scripts/find-python.sh' 2>/dev/null) && \"$py\" '" + root + "/plots/" +
                          script + "' --csv '" + csv_path(o) + "' --out '" + figure_prefix(o) + "'" + which;
  const int rc = std::system(cmd.c_str());
  if (rc == 0)
    std::printf("  figures: %s.png / .pdf\n", figure_prefix(o).c_str());
  else
    std::printf("  figures: not drawn (python3 with matplotlib missing, or %s failed: exit %d); the CSV stands\n",
                script.c_str(), rc);
}

// The headline of a row: skew-free median where the node defines it, else the max over ranks.
double headline_us(const std::vector<std::string>& cells, size_t skew_col, size_t kernel_col) {
  const double s = std::strtod(cells[skew_col].c_str(), nullptr);
  return std::isfinite(s) && s > 0 ? s : std::strtod(cells[kernel_col].c_str(), nullptr);
}

// One line per case of the experiment found in the CSV, in case order: each variant's headline time
// (a case with many explicit configurations shows its policies and the best explicit one).
void print_summary(const ExpOptions& o, const std::vector<exp::ExpCase>& cases) {
  std::ifstream in(csv_path(o));
  std::string line;
  if (!std::getline(in, line)) return;
  const std::vector<std::string> header = csv_split(line);
  auto col = [&](const std::string& n) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), n) - header.begin());
  };
  const size_t c_exp = col("experiment"), c_pol = col("policy"), c_skew = col("skewfree_us_median"),
               c_kernel = col("kernel_us_median"), c_check = col("check"), c_cfg = col("tpb"), c_algo = col("algo"),
               c_var = col("kernel_variant");  // header.size() (skipped) in a CSV written before kernel variants
  std::map<std::string, std::vector<std::pair<std::string, double>>> by_key;
  std::map<std::string, int> failed;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = csv_split(line);
    if (cells.size() != header.size()) continue;
    const std::string& e = cells[c_exp];
    if (e.rfind(o.name + "/", 0) != 0) continue;
    const std::string key = e.substr(o.name.size() + 1);
    std::string label = cells[c_pol];
    if (c_var < cells.size() && !cells[c_var].empty() && cells[c_var] != "reference") label += "/" + cells[c_var];
    if (label == "explicit") label = "explicit " + cells[c_cfg] + "/" + cells[c_cfg + 1] + "/" + cells[c_cfg + 2];
    if (label == "model") label += " (" + cells[c_algo] + ")";
    by_key[key].emplace_back(label, headline_us(cells, c_skew, c_kernel));
    if (cells[c_check] == "fail") ++failed[key];
  }
  std::printf("\n# %s: headline time per variant (us; skew-free median where the node defines it)\n", o.name.c_str());
  for (const exp::ExpCase& c : cases) {
    const auto it = by_key.find(c.key);
    if (it == by_key.end()) continue;
    std::string text;
    const std::pair<std::string, double>* best_explicit = nullptr;
    for (const auto& v : it->second) {
      if (v.first.rfind("explicit", 0) == 0 && it->second.size() > 6) {
        if (!best_explicit || v.second < best_explicit->second) best_explicit = &v;
        continue;
      }
      text += "  " + v.first + " " + csv_num(v.second);
    }
    if (best_explicit)
      text += "  best of " + std::to_string(it->second.size()) + ": " + best_explicit->first + " " +
              csv_num(best_explicit->second);
    std::printf("%-58s%s%s\n", c.key.c_str(), text.c_str(),
                failed.count(c.key) ? ("  GATE FAILED x" + std::to_string(failed[c.key])).c_str() : "");
  }
}

// `arlab exp speedup`: the summary CSV beside the measurement CSV (experiments/speedup_summary.h:
// each variant against the reference kernel, and the floor) and its table with the goal's figures.
void write_speedup_summary(const ExpOptions& o, const model::GpuSpec& rank_spec, const model::Calibration& cal) {
  if (o.name != "speedup") return;
  const std::vector<SpeedupRow> rows = exp::speedup_rows(csv_path(o), rank_spec, cal);
  const std::string path = exp::speedup_summary_path(csv_path(o));
  write_csv_file(path, speedup_header(), [&](std::ostream& out) {
    for (const SpeedupRow& r : rows) out << csv_join(to_cells(r)) << '\n';
  });
  std::printf("\n# speedup over the reference kernel at the trtllm configuration (%zu rows -> %s)\n%s", rows.size(),
              path.c_str(), exp::speedup_report(rows).c_str());
}

void run_numerics_experiment(const ExpOptions& o) {
  std::filesystem::create_directories(o.out_dir + "/" + o.name);
  check_output_path(csv_path(o), {}, "--out-dir");
  check_appendable(csv_path(o), numerics_header());
  const numerics::SweepConfig c;
  const std::string date = utc_now_iso8601();
  std::printf("arlab exp numerics (git %s, %s): CPU sweep, tokens=%d hidden=%d -> %s\n", arlab::git_sha(),
              date.c_str(), c.tokens, c.hidden, csv_path(o).c_str());
  std::vector<NumericsRow> rows = numerics::run_sweep(c);
  CsvAppender csv(csv_path(o), numerics_header());
  for (NumericsRow& r : rows) {
    r.experiment = "numerics/numerics";
    r.git_sha = arlab::git_sha();
    r.date_utc = date;
    csv.append(to_cells(r));
  }
  std::printf("  appended %zu rows to %s\n", rows.size(), csv_path(o).c_str());
  make_figures(o);
}

void run_merge(const ExpOptions& o) {
  std::filesystem::create_directories(o.out_dir + "/" + o.name);
  const auto [kept, dropped] = exp::merge_csvs(o.merge, csv_path(o));
  std::printf("arlab exp %s --merge: %lld rows from %zu file(s) into %s (%lld duplicate(s) dropped)\n", o.name.c_str(),
              kept, o.merge.size(), csv_path(o).c_str(), dropped);
  make_figures(o);
}

#ifdef ARLAB_HAVE_CUDA

using Clock = std::chrono::steady_clock;

// What every case of one run shares: the options, the CSV, the counters for progress.
struct ExpRun {
  const ExpOptions& o;
  std::set<std::string> done;  // case keys already in the CSV (process 0's view)
  int total = 0, finished = 0, skipped = 0, gate_failures = 0;
  Clock::time_point t0 = Clock::now();
  double ran_s = 0;  // wall time of the cases actually run
};

// Registers and shared memory of the bf16 kernels the experiments run (legality of explicit
// configurations): the one-shot kernel of N ranks, for the candidate lists.
model::KernelResources kernel_resources(int nranks) {
  const kernels::FusedKernel k =
      kernels::find_fused_kernel(kernels::KernelKey{Algorithm::oneshot, DType::bf16, nranks, Pattern::ar_res_rms,
                                                    Accumulation::pairwise});
  cudaFuncAttributes a{};
  ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, k.fn));
  return model::KernelResources{a.numRegs, static_cast<int>(a.sharedSizeBytes)};
}

// The cases of rank count n on `rank_spec`, this shard's only.
std::vector<exp::ExpCase> shard_cases_for(const ExpOptions& o, int n, const model::GpuSpec& rank_spec, bool real_node) {
  exp::ExpContext ctx;
  ctx.nranks = {n};
  ctx.real_node = real_node;
  ctx.quick = o.quick;
  ctx.rank_spec = rank_spec;
  ctx.res = kernel_resources(n);
  ctx.max_configs = o.max_configs;
  return exp::shard_cases(exp::experiment_cases(o.name, ctx), exp::parse_shard(o.shard));
}

// Runs the cases of one node. Process 0 decides which cases are done (resume) and every process
// follows that decision, so the collectives stay in step.
// `base` holds what every case shares (timing, distribution, calibration), checked once.
void run_cases(ExpRun& run, const Plan& base, const std::vector<exp::ExpCase>& cases, harness::Node& node,
               harness::CuptiKernelTimer* cupti, const std::string& cupti_note, const FailureHandler& on_failure) {
  const ExpOptions& o = run.o;
  const bool printer = node.process_index() == 0;
  for (const exp::ExpCase& c : cases) {
    const double skip_mine = printer && run.done.count(c.key) ? 1.0 : 0.0;
    const bool skip = node.allgather({skip_mine}).front() == 1.0;
    if (skip) {
      ++run.skipped;
    } else {
      RunOptions ro = o.run;
      ro.experiment = o.name + "/" + c.key;
      ro.csv = csv_path(o);
      Plan plan = base;
      plan.problem = c.problem;
      plan.sweep.clear();
      plan.shapes.clear();
      plan.baselines.clear();
      set_policies(plan, c.policies);  // POLICY or POLICY/KERNEL (speedup: trtllm/lean, model/lean)
      for (const std::string& cfg : c.configs) plan.shapes.push_back(parse_config(cfg));
      for (const std::string& b : c.baselines) plan.baselines.push_back(parse_implementation(b));
      if (printer) std::printf("\n=== %s/%s\n", o.name.c_str(), c.key.c_str());
      const Clock::time_point t = Clock::now();
      try {
        run_on_node(ro, plan, node, cupti, cupti_note, on_failure);
      } catch (const DeviceTimeout&) {
        throw;  // a hung or faulted kernel ends the experiment (the node re-initialized; say where)
      } catch (const std::runtime_error& e) {
        // A failed gate: its rows (check = fail) are in the CSV; go on, fail at the end.
        if (std::string(e.what()).find("correctness gate FAILED") == std::string::npos) throw;
        ++run.gate_failures;
        if (printer) std::printf("  GATE FAILED: %s\n", e.what());
      }
      run.ran_s += std::chrono::duration<double>(Clock::now() - t).count();
    }
    ++run.finished;
    if (printer) {
      std::fprintf(stderr, "%s\n",
                   exp::progress_line(o.name, run.finished, run.total, run.skipped,
                                      std::chrono::duration<double>(Clock::now() - run.t0).count())
                       .c_str());
      std::fflush(stdout);
    }
  }
}

void run_gpu_experiment(const ExpOptions& given) {
  harness::request_device_connections();  // before the first CUDA call
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  ExpOptions o = given;
  o.run.calibration = resolve_calibration(given.calibration, harness::is_multi_process(launch));
  if (launch.world_rank <= 0)
    std::printf("arlab exp %s: calibration %s\n", o.name.c_str(),
                o.run.calibration.empty() ? "built-in priors (no measured H200 calibration found)"
                                          : o.run.calibration.c_str());
  const Plan base = make_plan(o.run);  // every run option checked before any device is touched
  exp::parse_shard(o.shard);
  for (int n : o.nranks)
    if (!is_supported_nranks(n) || n > 8)
      throw InvalidArgument("--nranks " + std::to_string(n) + ": the emulated node runs 2, 4 or 8 ranks");
  std::filesystem::create_directories(o.out_dir + "/" + o.name);
  check_output_path(csv_path(o), {}, "--out-dir");
  check_appendable(csv_path(o), measurement_header());

  std::unique_ptr<harness::CuptiKernelTimer> cupti;
  std::string cupti_note;
  if (!o.run.no_cupti && !o.run.timing.no_timing) {
    try {
      cupti = std::make_unique<harness::CuptiKernelTimer>();
    } catch (const std::exception& e) {
      cupti_note = std::string("CUPTI unavailable (") + e.what() + "); timing with CUDA events";
    }
  }
  ExpRun run{o, {}};
  const std::string started = utc_now_iso8601();

  // The node of one rank count: a workspace for the largest case.
  auto node_options = [&](int n, const std::vector<exp::ExpCase>& cases) {
    harness::NodeOptions nopt;
    nopt.nranks = n;
    nopt.device = o.run.device;
    nopt.timeout_ms = o.run.timeout_ms;
    nopt.sms_per_rank = o.run.sms_per_rank;
    nopt.max_tokens = 1;
    nopt.max_hidden = 1;
    long long elems = 1;
    for (const exp::ExpCase& c : cases)
      elems = std::max(elems, static_cast<long long>(c.problem.tokens) * c.problem.hidden);
    for (const exp::ExpCase& c : cases) nopt.max_hidden = std::max(nopt.max_hidden, c.problem.hidden);
    nopt.max_tokens = static_cast<int>((elems + nopt.max_hidden - 1) / nopt.max_hidden);
    nopt.max_elem_bytes = 2;
    return nopt;
  };

  if (harness::is_multi_process(launch)) {
#ifdef ARLAB_HAVE_MPI
    harness::MpiSession mpi;
    const FailureHandler end_job = [&mpi](const std::exception& e) {
      std::fprintf(stderr, "arlab exp: error on MPI rank %d of %d: %s\n", mpi.rank(), mpi.size(), e.what());
      std::fflush(stderr);
      std::fflush(stdout);
      mpi.abort(2);
    };
    const int n = mpi.size();
    int devices = 0;
    ARLAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
    const int local_rank = launch.local_rank >= 0 ? launch.local_rank : mpi.local_rank();
    // The GPU the MPI node takes (local rank % devices): the spec the cases' legality is judged on.
    const harness::DeviceInfo dev = harness::query_device(local_rank % std::max(1, devices));
    const std::vector<exp::ExpCase> cases = shard_cases_for(o, n, dev.spec, true);
    std::unique_ptr<harness::MpiNode> node;
    try {
      node = std::make_unique<harness::MpiNode>(node_options(n, cases), mpi, local_rank);
    } catch (const std::exception& e) {
      end_job(e);
    }
    const bool real = node->processes_per_gpu() == 1;
    const std::vector<exp::ExpCase> node_cases = real ? cases : shard_cases_for(o, n, dev.spec, false);
    run.total = static_cast<int>(node_cases.size());
    if (mpi.rank() == 0) {
      run.done = exp::done_case_keys(csv_path(o), o.name);
      std::printf("arlab exp %s (git %s, %s): %d cases on the %s node (N %d, %s), shard %s -> %s\n", o.name.c_str(),
                  arlab::git_sha(), started.c_str(), run.total, real ? "real" : "shared-GPU", n,
                  node->describe().c_str(), o.shard.c_str(), csv_path(o).c_str());
    }
    run_cases(run, base, node_cases, *node, cupti.get(), cupti_note, end_job);
    if (mpi.rank() == 0) {
      print_summary(o, node_cases);
      write_speedup_summary(o, node->rank_spec(), base.calibration);
      std::printf("\narlab exp %s: %d case(s) run, %d skipped (in the CSV), wall %.1f s (cases %.1f s)\n",
                  o.name.c_str(), run.finished - run.skipped, run.skipped,
                  std::chrono::duration<double>(Clock::now() - run.t0).count(), run.ran_s);
      make_figures(o);
    }
    if (run.gate_failures > 0)
      throw std::runtime_error("correctness gate FAILED in " + std::to_string(run.gate_failures) + " case(s)");
    return;
#else
    throw std::runtime_error("started by " + launch.launcher + " but this arlab was built without MPI");
#endif
  }

  harness::require_cuda_devices("arlab exp", o.run.device);
  const harness::DeviceInfo dev = harness::query_device(o.run.device);
  std::map<int, std::vector<exp::ExpCase>> by_n;
  for (int n : o.nranks) {
    by_n[n] = shard_cases_for(o, n, model::sm_partition(dev.spec, n), false);
    run.total += static_cast<int>(by_n[n].size());
  }
  run.done = exp::done_case_keys(csv_path(o), o.name);
  std::string ranks;
  for (int n : o.nranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(n);
  std::printf("arlab exp %s (git %s, %s): %d cases on the emulated node (N %s on one %s), shard %s -> %s\n",
              o.name.c_str(), arlab::git_sha(), started.c_str(), run.total, ranks.c_str(), dev.name.c_str(),
              o.shard.c_str(), csv_path(o).c_str());
  std::vector<exp::ExpCase> all;
  for (auto& [n, cases] : by_n) {
    if (cases.empty()) continue;
    harness::EmulatedNode node(node_options(n, cases));
    run_cases(run, base, cases, node, cupti.get(), cupti_note, FailureHandler{});
    all.insert(all.end(), cases.begin(), cases.end());
  }
  print_summary(o, all);
  write_speedup_summary(o, model::sm_partition(dev.spec, o.nranks.front()), base.calibration);
  std::printf("\narlab exp %s: %d case(s) run, %d skipped (in the CSV), wall %.1f s (cases %.1f s)\n", o.name.c_str(),
              run.finished - run.skipped, run.skipped, std::chrono::duration<double>(Clock::now() - run.t0).count(),
              run.ran_s);
  make_figures(o);
  if (run.gate_failures > 0)
    throw std::runtime_error("correctness gate FAILED in " + std::to_string(run.gate_failures) + " case(s)");
}

#else

void run_gpu_experiment(const ExpOptions& given) {
  ExpOptions o = given;
  o.run.calibration = resolve_calibration(given.calibration, false);
  make_plan(o.run);
  throw std::runtime_error("`arlab exp " + o.name + "` measures on a GPU, and this arlab was built without CUDA; "
                           "`arlab exp numerics` and `arlab exp NAME --merge` run anywhere");
}

#endif

void run_exp(ExpOptions& o) {
  if (o.list || o.name.empty()) {
    std::printf("experiments (arlab exp NAME):\n");
    for (const exp::ExpInfo& e : exp::experiments()) std::printf("  %-15s %s\n", e.name.c_str(), e.summary.c_str());
    if (!o.list) throw InvalidArgument("arlab exp: name an experiment (above)");
    return;
  }
  bool known = false;
  for (const exp::ExpInfo& e : exp::experiments()) known = known || e.name == o.name;
  if (!known) exp::experiment_cases(o.name, exp::ExpContext{});  // throws, listing the known names
  if (o.max_configs < 0) throw InvalidArgument("--max-configs = " + std::to_string(o.max_configs) + " must be >= 0");
  if (!o.merge.empty()) {
    if (o.shard != ExpOptions{}.shard)
      throw InvalidArgument("--merge joins shard CSVs into one: --shard " + o.shard + " does not apply to it");
    return run_merge(o);
  }
  if (o.name == "numerics") return run_numerics_experiment(o);
  exp::parse_shard(o.shard);  // checked in every build, before anything else
  run_gpu_experiment(o);
}

}  // namespace

void add_exp_command(CLI::App& app) {
  auto o = std::make_shared<ExpOptions>();
  CLI::App* sub = app.add_subcommand(
      "exp", "run a named experiment (seed, tokens, config-space, crossover, fusion, model-accuracy, numerics) case "
             "by case: CSV, summary table and figures under OUT/NAME/; resumable, shardable");
  sub->add_option("name", o->name, "the experiment (--list shows them)");
  sub->add_flag("--list", o->list, "list the experiments and exit");
  sub->add_option("--out-dir", o->out_dir, "results go to OUT/NAME/NAME.csv (+ .png/.pdf)")->capture_default_str();
  sub->add_option("--shard", o->shard, "run only the cases i, i+n, i+2n, ... (i/n, e.g. 0/4 for a Slurm array)")
      ->capture_default_str();
  sub->add_option("--merge", o->merge, "join these shard CSVs into OUT/NAME/NAME.csv (duplicates dropped) and plot")
      ->delimiter(',');
  sub->add_option("--nranks", o->nranks, "emulated node: the rank counts to run (2, 4, 8); under mpirun: the world")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_flag("--quick", o->quick, "a reduced sweep (a smoke run of the whole path)");
  sub->add_option("--max-configs", o->max_configs,
                  "config-space: at most this many candidates per problem, evenly spaced (0: every legal one)")
      ->capture_default_str();
  sub->add_flag("--no-plots", o->no_plots, "write the CSV and summary only");
  RunOptions& r = o->run;
  add_timing_options(sub, r.timing);
  sub->add_option("--seed", r.seed, "input seed")->capture_default_str()->check(unsigned_64());
  sub->add_option("--distribution", r.distribution, "normal, uniform or heavy_tailed")->capture_default_str();
  sub->add_option("--timeout-ms", r.timeout_ms, "bound of every device spin-wait (ms)")->capture_default_str();
  sub->add_option("--device", r.device, "GPU of the emulated node")->capture_default_str();
  sub->add_option("--calibration", o->calibration,
                  "model calibration CSV for the model policy and predicted_us; auto: the measured H200 calibration "
                  "of the node kind (data/calibration/h200_{emulated,nvlink}.csv), else the built-in priors")
      ->capture_default_str();
  sub->add_flag("--no-cupti", r.no_cupti, "time with CUDA events only");
  sub->callback([o] { run_exp(*o); });
}

}  // namespace arlab::cli
