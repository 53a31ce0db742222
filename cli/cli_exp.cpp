// `arlab exp NAME`: a named experiment (a row of experiments/exp_plan.h's table) run case by case by
// the measuring session (session/session.h run_experiment) on the emulated node (one per rank
// count, --nranks) or, under mpirun/srun with one process per GPU, on the real node. Every case is
// one interleaved group measured as `arlab run` measures it, appended to OUT/NAME/NAME.csv with
// experiment = "NAME/KEY", its in-group ratios against the case's first member to
// OUT/NAME/NAME_ratios.csv. Progress (done/total, elapsed, ETA) goes to stderr; a re-run skips the
// cases already in the CSV (resume); --shard i/n runs every n-th case, and --merge joins shard CSVs.
// At the end: a summary table per case, the experiment's summary step (its row's), the wall time, and
// its figure (plots/<row's script>) when Python with matplotlib is found. An experiment that needs
// no GPU (numerics) runs here on the CPU.
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
#include "common/ratio_schema.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "experiments/exp_csv.h"
#include "experiments/exp_plan.h"
#include "experiments/numerics_sweep.h"
#include "experiments/speedup_summary.h"
#include "harness/launch_env.h"
#include "cli/calibration_choice.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/measurements.h"
#include "model/validate.h"

#include "session/session.h"

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
  bool nranks_given = false;         // --nranks was on the command line
};

// The options each kind of `arlab exp` run uses (names as CLI11 gives them); every other option given
// is refused (cli/cli_checks.h refuse_unused_options): an option is never silently ignored.
const std::vector<std::string> kListOptions = {"--list"};
// --calibration: the summary step over the merged rows takes it (speedup: the variant's predicted time).
const std::vector<std::string> kMergeOptions = {"name", "--merge", "--out-dir", "--no-plots", "--calibration"};
const std::vector<std::string> kCpuExperimentOptions = {"name", "--out-dir", "--no-plots"};

// A GPU experiment uses every option but --list and --merge; --max-configs only where the
// experiment's row takes it (config-space).
std::vector<std::string> gpu_experiment_options(const CLI::App& sub, const exp::ExperimentRow& row) {
  std::vector<std::string> used;
  for (const CLI::Option* opt : sub.get_options({})) {
    const std::string name = option_name(*opt);
    if (name == "--help" || name == "--list" || name == "--merge" ||
        (name == "--max-configs" && !row.takes_max_configs))
      continue;
    used.push_back(name);
  }
  return used;
}

// --calibration (cli/calibration_choice.h): auto takes the measured calibration of the node the
// experiment runs on (real under mpirun/srun, else emulated), of the GPU the node opens (chosen there:
// RunPlan::calibration_for_gpu; this is the H200's, what --merge and the checks before the node see);
// the model policy chooses with it and every row's predicted_us comes from it.
CalibrationChoice exp_calibration(const std::string& given, bool real_node) {
  return choose_calibration(given, real_node ? NodeKind::nvlink : NodeKind::emulated, "h200");
}

std::string csv_path(const ExpOptions& o) { return o.out_dir + "/" + o.name + "/" + o.name + ".csv"; }
std::string figure_prefix(const ExpOptions& o) { return o.out_dir + "/" + o.name + "/" + o.name; }

// For a figure that shows predictions: the current model's prediction of every row of the
// experiment's CSV, with the calibration --calibration names (auto: the rows' node kind), written to
// OUT/NAME/NAME_predictions.csv in the schema of `arlab validate --out`; returns the script's
// arguments (--predictions, --calibration-label), or "" with a note where no prediction can be made.
std::string current_predictions(const ExpOptions& o) {
  if (!exp::experiment(o.name).figure_shows_predictions) return "";
  const std::string path = figure_prefix(o) + "_predictions.csv";
  try {
    const auto rows = model::read_measurements(csv_path(o));
    const CalibrationChoice choice = calibration_for_rows(o.calibration, rows, "");
    const model::ValidationReport rep = model::validate_measurements(rows, load_choice(choice), {});
    model::require_usable_rows(rows, rep, csv_path(o));
    model::write_validation_csv(rows, rep, path);
    std::printf("  predictions: %s (%d row(s) predicted by the current model, calibration %s)\n", path.c_str(),
                rep.rows_used, choice.text.c_str());
    const std::string label = choice.text + ", predicted by arlab " + arlab::git_sha();
    std::string quoted;  // single-quoted for the shell
    for (char ch : label) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return " --predictions '" + path + "' --calibration-label '" + quoted + "'";
  } catch (const std::exception& e) {
    std::printf("  predictions: none (%s); the figure shows predicted_us as stored\n", e.what());
    return "";
  }
}

// Runs the experiment's plot script from the source tree this arlab was built from (or ./plots);
// a missing Python or matplotlib is a note, not a failure: the CSV is the result.
void make_figures(const ExpOptions& o) {
  if (o.no_plots) return;
  const std::string script = exp::experiment(o.name).figure_script;
  if (script.empty()) return;
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
                          script + "' --csv '" + csv_path(o) + "' --out '" + figure_prefix(o) + "'" + which +
                          current_predictions(o);
  std::fflush(stdout);  // what arlab printed comes before the script's output
  const int rc = std::system(cmd.c_str());
  if (rc == 0)
    std::printf("  figures: %s.png / .pdf\n", figure_prefix(o).c_str());
  else
    std::printf("  figures: not drawn (python3 with matplotlib missing, or %s failed: exit %d); the CSV stands\n",
                script.c_str(), rc);
}

// One line per case of the experiment found in the CSV, in case order (experiments/exp_csv.h).
void print_summary(const ExpOptions& o, const std::vector<exp::ExpCase>& cases) {
  std::vector<std::string> keys;
  for (const exp::ExpCase& c : cases) keys.push_back(c.key);
  std::printf("%s", exp::exp_case_summary(csv_path(o), o.name, keys).c_str());
}

// The experiment's summary step (its table row's), over the measurement CSV: summary files beside it
// and their table.
void run_summary_step(const ExpOptions& o, const model::GpuSpec& rank_spec, const model::Calibration& cal) {
  const exp::ExperimentRow& row = exp::experiment(o.name);
  if (row.summary_step == nullptr) return;
  std::printf("\n%s", row.summary_step(csv_path(o), rank_spec, cal).c_str());
}

// The numerics experiment on the CPU: one sweep, appended to OUT/numerics/numerics.csv. A re-run
// resumes: rows already in the file (the same sweep point) are not appended again, and a sweep whose
// rows are all there appends nothing and says so.
void run_numerics_experiment(const ExpOptions& o) {
  const std::string folder = o.out_dir + "/" + o.name;
  if (std::filesystem::is_directory(folder)) {  // a folder still to be made holds nothing to clash with
    check_output_path(csv_path(o), {}, "--out-dir");
    check_appendable(csv_path(o), numerics_header());
  }
  const numerics::SweepConfig c;
  const std::string date = utc_now_iso8601();
  std::printf("arlab exp numerics (git %s, %s): CPU sweep, tokens=%d hidden=%d -> %s\n", arlab::git_sha(),
              date.c_str(), c.tokens, c.hidden, csv_path(o).c_str());
  std::vector<NumericsRow> rows = numerics::run_sweep(c);
  for (NumericsRow& r : rows) {
    r.experiment = "numerics/numerics";
    r.git_sha = arlab::git_sha();
    r.date_utc = date;
  }
  const std::vector<NumericsRow> missing = exp::numerics_rows_missing(csv_path(o), rows);
  if (missing.empty()) {
    std::printf("  skipped: all %zu rows of the sweep are already in %s (resume; remove the file to run it "
                "afresh)\n", rows.size(), csv_path(o).c_str());
  } else {
    MadeFolders made(folder);  // removed again (while empty) when an append fails
    CsvAppender csv(csv_path(o), numerics_header());
    for (const NumericsRow& r : missing) csv.append(to_cells(r));
    made.keep();
    std::printf("  appended %zu rows to %s%s\n", missing.size(), csv_path(o).c_str(),
                missing.size() < rows.size()
                    ? (" (" + std::to_string(rows.size() - missing.size()) + " already there: resumed)").c_str()
                    : "");
  }
  make_figures(o);
}

std::string ratios_path(const ExpOptions& o) { return o.out_dir + "/" + o.name + "/" + o.name + "_ratios.csv"; }

// --merge: the union of the shard CSVs, and of the ratio CSVs beside them (X_ratios.csv, where a shard
// has one), then the experiment's summary step and figures over the merged rows -- what a run over all
// the cases would have left. The summary step gets the H200 preset's spec (its real-node link floor; the
// committed measurements are H200's) and the calibration --calibration names (auto: the emulated one).
void run_merge(const ExpOptions& o) {
  // The summary step's calibration, loaded before anything is written: a bad --calibration leaves no output.
  const CalibrationChoice choice = exp_calibration(o.calibration, false);
  const model::Calibration cal = load_choice(choice);
  const exp::MergeCounts n = exp::merge_csvs(o.merge, csv_path(o), o.name);  // makes the folder once it writes
  std::printf("arlab exp %s --merge: %lld row(s) kept from %s, %lld added from %zu file(s), %lld duplicate(s) "
              "dropped%s\n",
              o.name.c_str(), n.kept, csv_path(o).c_str(), n.added, o.merge.size(), n.dropped,
              n.added == 0 ? " (nothing new: the file is unchanged)" : "");
  std::vector<std::string> ratio_inputs;
  for (const std::string& in : o.merge)
    if (std::filesystem::exists(exp::ratios_path_of(in))) ratio_inputs.push_back(exp::ratios_path_of(in));
  if (!ratio_inputs.empty()) {
    const exp::MergeCounts r = exp::merge_ratio_csvs(ratio_inputs, ratios_path(o), o.name);
    std::printf("  ratios: %lld row(s) kept from %s, %lld added from %zu file(s), %lld duplicate(s) dropped%s\n",
                r.kept, ratios_path(o).c_str(), r.added, ratio_inputs.size(), r.dropped,
                r.added == 0 ? " (nothing new: the file is unchanged)" : "");
  }
  std::printf("  calibration %s\n", choice.text.c_str());
  run_summary_step(o, model::gpu_preset("h200_sxm"), cal);
  make_figures(o);
}

void run_gpu_experiment(const ExpOptions& given) {
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  ExpOptions o = given;
  const CalibrationChoice choice = exp_calibration(given.calibration, harness::is_multi_process(launch));
  const bool automatic = given.calibration == kCalibrationAuto;
  // auto stays auto: the plan chooses for the GPU its node opens (cli_run.cpp make_plan).
  o.run.calibration = automatic ? std::string(kCalibrationAuto)
                      : choice.path.empty() ? std::string(kCalibrationPriors) : choice.path;
  const bool printer = launch.world_rank <= 0;
  if (printer)
    std::printf("arlab exp %s: calibration %s\n", o.name.c_str(),
                automatic ? "auto (the measured calibration of the node kind of the GPU the node opens)"
                          : choice.text.c_str());
  session::ExpRequest req;
  req.name = o.name;
  req.base = make_plan(o.run);  // every run option checked before any device is touched
  if (automatic) req.base.calibration_source = "auto";  // said again once a node has chosen (exp_driver.cpp)
  req.shard = exp::parse_shard(o.shard);
  for (int n : o.nranks)
    if (!is_supported_nranks(n) || n > 8)
      throw InvalidArgument("--nranks " + std::to_string(n) + ": the emulated node runs 2, 4 or 8 ranks");
  if (harness::is_multi_process(launch) && o.nranks != std::vector<int>{launch.world_size} && o.nranks_given)
    throw InvalidArgument("--nranks given, but " + launch.launcher + " started " + std::to_string(launch.world_size) +
                          " processes, and under it the node has one rank per process: leave --nranks out");
  req.nranks = o.nranks;
  req.quick = o.quick;
  req.max_configs = o.max_configs;
  req.csv_path = csv_path(o);
  req.ratios_path = ratios_path(o);
  // The outputs, checked before any device is touched where their folder exists (a folder the run
  // will make holds nothing to clash with).
  if (std::filesystem::is_directory(o.out_dir + "/" + o.name)) {
    check_output_path(req.csv_path, {}, "--out-dir");
    check_appendable(req.csv_path, measurement_header());
    check_output_path(req.ratios_path, {req.csv_path}, "--out-dir");
    check_appendable(req.ratios_path, ratio_header());
  }
  req.output_dir = o.out_dir + "/" + o.name;  // made once a GPU is found
  const session::ExpOutcome out = session::run_experiment(req);
  if (!out.printer) return;
  print_summary(o, out.cases);
  run_summary_step(o, out.rank_spec, out.calibration);
  std::printf("\narlab exp %s: %d case(s) run, %d skipped (in the CSV), %zu refused on this node, wall %.1f s (cases "
              "%.1f s)\n",
              o.name.c_str(), out.run, out.skipped, out.refused.size(), out.wall_s, out.cases_s);
  for (const std::string& r : out.refused) std::printf("  refused (no rows): %s\n", r.c_str());
  make_figures(o);
  if (out.gate_failures > 0)
    throw std::runtime_error("correctness gate FAILED in " + std::to_string(out.gate_failures) + " case(s)");
}

void run_exp(ExpOptions& o, const CLI::App& sub) {
  if (o.list) {
    refuse_unused_options(sub, kListOptions, "`arlab exp --list` lists the experiments and exits");
    std::printf("experiments (arlab exp NAME):\n");
    for (const exp::ExperimentRow& e : exp::experiments())
      std::printf("  %-15s %s\n", e.name.c_str(), e.summary.c_str());
    return;
  }
  if (o.name.empty()) {
    std::printf("experiments (arlab exp NAME):\n");
    for (const exp::ExperimentRow& e : exp::experiments())
      std::printf("  %-15s %s\n", e.name.c_str(), e.summary.c_str());
    throw InvalidArgument("arlab exp: name an experiment (above)");
  }
  const exp::ExperimentRow& row = exp::experiment(o.name);  // throws, listing the known names
  if (!o.merge.empty()) {
    if (!row.needs_gpu)
      throw InvalidArgument("--merge joins the shard CSVs of a measured experiment; `arlab exp " + o.name +
                            "` runs whole on the CPU (no shards): run it again instead (it resumes)");
    refuse_unused_options(sub, kMergeOptions, "`arlab exp " + o.name + " --merge` joins shard CSVs");
    return run_merge(o);
  }
  if (!row.needs_gpu) {
    refuse_unused_options(sub, kCpuExperimentOptions,
                          "`arlab exp " + o.name + "` runs on the CPU with its own fixed sweep");
    return run_numerics_experiment(o);
  }
  refuse_unused_options(sub, gpu_experiment_options(sub, row), "`arlab exp " + o.name + "` (a measured experiment)");
  if (o.max_configs < 0) throw InvalidArgument("--max-configs = " + std::to_string(o.max_configs) + " must be >= 0");
  exp::parse_shard(o.shard);  // checked in every build, before anything else
  run_gpu_experiment(o);
}

}  // namespace

void add_exp_command(CLI::App& app) {
  auto o = std::make_shared<ExpOptions>();
  CLI::App* sub = app.add_subcommand(
      "exp", "run a named experiment (--list shows them) case by case: CSV, ratios, summary table and figures under "
             "OUT/NAME/; resumable, shardable");
  sub->add_option("name", o->name, "the experiment (--list shows them)");
  sub->add_flag("--list", o->list, "list the experiments and exit");
  sub->add_option("--out-dir", o->out_dir, "results go to OUT/NAME/NAME.csv (+ .png/.pdf)")
      ->capture_default_str()
      ->check(non_empty_path());
  sub->add_option("--shard", o->shard, "run only the cases i, i+n, i+2n, ... (i/n, e.g. 0/4 for a Slurm array)")
      ->capture_default_str();
  sub->add_option("--merge", o->merge, "join these shard CSVs into OUT/NAME/NAME.csv (duplicates dropped) and plot")
      ->delimiter(',');
  CLI::Option* nranks =
      sub->add_option("--nranks", o->nranks, "emulated node: the rank counts to run (2, 4, 8); under mpirun: the world")
          ->delimiter(',')
          ->capture_default_str()
          ->check(integer_in(2, 16));  // the rank counts a node of arlab may have (common/problem.h)
  sub->add_flag("--quick", o->quick, "a reduced sweep (a smoke run of the whole path)");
  sub->add_option("--max-configs", o->max_configs,
                  "config-space: at most this many candidates per problem, evenly spaced (0: every legal one)")
      ->capture_default_str()
      ->check(int_at_least(0));
  sub->add_flag("--no-plots", o->no_plots, "write the CSV and summary only");
  RunOptions& r = o->run;
  add_timing_options(sub, r.timing);
  sub->add_option("--seed", r.seed, "input seed")->capture_default_str()->check(unsigned_64());
  sub->add_option("--distribution", r.distribution, "normal, uniform or heavy_tailed")->capture_default_str();
  // 1e9 ms (~11 days): as `arlab run --timeout-ms`.
  sub->add_option("--timeout-ms", r.timeout_ms, "bound of every device spin-wait (ms)")
      ->capture_default_str()
      ->check(finite_in(0, 1e9, /*lo_open=*/true));
  sub->add_option("--device", r.device, "GPU of the emulated node")->capture_default_str()->check(int_at_least(0));
  sub->add_option("--calibration", o->calibration, calibration_option_help() + " (for the model policy and predicted_us; auto: "
                  "chosen for the GPU the node opens)")
      ->capture_default_str();
  sub->add_flag("--no-cupti", r.no_cupti, "time with CUDA events only");
  sub->callback([o, sub, nranks] {
    o->nranks_given = nranks->count() > 0;
    run_exp(*o, *sub);
  });
}

}  // namespace arlab::cli
