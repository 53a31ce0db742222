// The options of `arlab run`, shared with `arlab exp` (which runs every case as `arlab run` would),
// and their one conversion into a checked plan (session/run_plan.h) -- every option checked, the
// calibration loaded and the CSV outputs checked before any device is touched -- and its echo.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_config.h"
#include "cli/cli_problem.h"
#include "cli/cli_timing.h"
#include "session/run_plan.h"

namespace arlab::cli {

struct RunOptions {
  ProblemOptions problem;
  std::vector<std::string> policies = {"trtllm"};
  std::vector<std::string> configs;    // explicit configurations "tpb/cluster/grid[/vpt]"
  std::vector<std::string> baselines;  // baseline rows of common/implementations.h, measured beside the policies
  std::vector<std::string> kernels = {"reference"};  // --kernel: kernel bodies, or auto
  ExplicitConfigOptions config;
  bool pdl = false;
  TimingCliOptions timing;
  int sets = 0;  // input sets (0: enough to exceed 2x L2)
  unsigned long long seed = 1;
  std::string distribution = "normal";
  int max_tokens = 0;    // workspace capacity (0: --tokens)
  int sweep_begin = 0;   // -b: a size sweep over tokens (0: none, run --tokens)
  int sweep_end = 0;     // -e
  int sweep_factor = 2;  // -f
  double timeout_ms = 2000;
  int sms_per_rank = 0;
  int device = 0;
  std::string csv;
  std::string ratios_csv;
  std::string experiment = "run";
  std::string calibration = "auto";  // cli/calibration_choice.h: auto, priors ("" too) or a file
  bool no_check = false;
  bool no_cupti = false;
  bool registers = false;
  std::string inject_fault;  // hidden: failure-path tests (harness/node_core.h FaultInjection)
};

// Every option checked (and the calibration loaded) before any device is touched; throws
// InvalidArgument naming the option and value.
session::RunPlan make_plan(const RunOptions& o);
// The configuration as the options give it, echoed (by process 0) before any device is touched.
void print_plan(const RunOptions& o, const session::RunPlan& plan);

}  // namespace arlab::cli
