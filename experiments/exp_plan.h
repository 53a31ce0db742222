// The named experiments of `arlab exp NAME` as data (pure C++, no GPU): each experiment is a list of
// cases, one case = one problem and what one interleaved group measures on it (policies, explicit
// configurations, baselines). The GPU driver (cli/cli_exp.cpp) runs the cases in order on one node
// per rank count and appends one measurement row (common/measurement_schema.h) per variant to
// results/NAME/NAME.csv; this file also holds what makes long sweeps practical: sharding
// (--shard i/n) and the progress line (done/total, elapsed, ETA). Resume (skip cases whose rows are
// already in the CSV) and merging shard CSVs read the CSVs: experiments/exp_csv.h.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/problem.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/legality.h"

namespace arlab::exp {

// One case: a problem and the variants of its interleaved group. `policies` are model::Policy
// names ("trtllm", "legacy", "occupancy", "model"); `configs` explicit configurations
// "tpb/cluster/grid/vpt" (model/explicit_shape.h parse_explicit_shape); `baselines` names of the
// baseline rows of common/implementations.h ("unfused", "nccl").
struct ExpCase {
  Problem problem;
  std::vector<std::string> policies;
  std::vector<std::string> configs;
  std::vector<std::string> baselines;
  // Kernel bodies every policy without its own body (POLICY/BODY) and every config is measured with
  // (`arlab run --kernel`); empty: the reference body alone.
  std::vector<std::string> kernels;
  // Stable identifier of the case, unique within an experiment; written into every row's
  // `experiment` column as "NAME/KEY" (case_key() builds it), which is how resume finds it.
  std::string key;
};

// What the experiment's cases depend on beyond its name.
struct ExpContext {
  std::vector<int> nranks = {2};  // rank counts to run (the node's; emulated: any of 2, 4, 8)
  bool real_node = false;         // one GPU per rank (NCCL is available) rather than the emulated node
  bool quick = false;             // a reduced sweep (smoke runs, CI-sized GPU tests)
  model::GpuSpec rank_spec;       // what each rank's policy sees (config-space and model-accuracy need it)
  model::KernelResources res;     // registers / shared memory of the kernels (legality)
  // config-space: at most this many candidates per (problem, algorithm), evenly spaced through the
  // candidate list (which is ordered by cluster, block size and grid); 0 keeps every candidate.
  int max_configs = 0;
};

// One experiment of `arlab exp`: one row of the table below; nothing else lists experiments.
struct ExperimentRow {
  std::string name;
  std::string summary;                                 // one line for --list and --help
  std::vector<ExpCase> (*cases)(const ExpContext&);    // its cases, in the order they run
  std::string figure_script;                           // plots/<script> drawing its CSV ("": none)
  // After its cases ran (or a --merge): writes the experiment's summary files beside the measurement
  // CSV and returns their table as text; nullptr where the experiment has no summary step.
  std::string (*summary_step)(const std::string& csv_path, const model::GpuSpec& rank_spec,
                              const model::Calibration& cal) = nullptr;
  bool needs_gpu = true;                               // false: runs on the CPU (numerics)
  bool takes_max_configs = false;                      // --max-configs thins its cases (config-space)
  // Its figure shows the model's predictions: `arlab exp` computes them with the current model when it
  // draws the figure (OUT/NAME/NAME_predictions.csv, common/validation_schema.h) and passes them to the
  // script (--predictions), so a figure never shows an older model's stored predicted_us.
  bool figure_shows_predictions = false;
};

// The experiments `arlab exp` knows, in the order `arlab exp --list` prints them.
const std::vector<ExperimentRow>& experiments();
// The row of `name`; throws InvalidArgument naming it and listing the known ones.
const ExperimentRow& experiment(const std::string& name);

// The cases of experiment `name` in the order they run (experiment(name).cases); throws as experiment().
std::vector<ExpCase> experiment_cases(const std::string& name, const ExpContext& ctx);

// The case key: "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot" (+ a suffix the experiment adds).
std::string case_key(const Problem& p, const std::string& suffix = "");

// --shard "i/n" (0 <= i < n): this shard's cases are those whose index % n == i. Throws
// InvalidArgument naming the text when it is not two integers with 0 <= i < n.
struct Shard {
  int index = 0;
  int count = 1;
};
Shard parse_shard(const std::string& text);
std::vector<ExpCase> shard_cases(const std::vector<ExpCase>& cases, const Shard& shard);

// "exp tokens: 12/156 cases (3 skipped: in the CSV), 41 s elapsed, ETA 8 min 10 s" -- `done` counts
// the cases dealt with so far, skipped ones included; the ETA is the mean time of the done - skipped
// cases run so far times the total - done left ("unknown" before the first ran, "0 s" when none is
// left). Durations: "41 s", "8 min 10 s", "1 h 05 min"; "(N skipped: in the CSV)" only when N > 0.
// Throws InvalidArgument unless 0 <= skipped <= done <= total and elapsed_s is finite and >= 0.
std::string progress_line(const std::string& name, int done, int total, int skipped, double elapsed_s);

}  // namespace arlab::exp
