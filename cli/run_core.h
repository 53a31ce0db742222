// The core of `arlab run` that `arlab exp` (cli/cli_exp.cpp) runs case by case: the options, the
// checked plan of one run, its echo, and (CUDA builds) one run on an existing node -- every
// configuration checked, timed interleaved, one SUMMARY line each, rows appended to --csv.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_config.h"
#include "cli/cli_problem.h"
#include "cli/cli_timing.h"
#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/node_core.h"
#include "harness/timing_stats.h"
#include "model/calibration.h"
#include "model/policies.h"
#include "reference/fused_reference.h"

namespace arlab::harness {
class Node;
class CuptiKernelTimer;
}  // namespace arlab::harness

namespace arlab::cli {

struct RunOptions {
  ProblemOptions problem;
  std::vector<std::string> policies = {"trtllm"};
  std::vector<std::string> configs;  // explicit configurations "tpb/cluster/grid[/vpt]"
  std::vector<std::string> baselines;  // "unfused", "nccl": measured beside the policies
  std::vector<std::string> kernels = {"reference"};  // --kernel: reference, lean, auto (KernelChoice)
  ExplicitConfigOptions config;
  bool pdl = false;
  TimingCliOptions timing;
  int sets = 0;  // input sets (0: enough to exceed 2x L2)
  unsigned long long seed = 1;
  std::string distribution = "normal";
  int max_tokens = 0;  // workspace capacity (0: --tokens)
  int sweep_begin = 0;  // -b: a size sweep over tokens (0: none, run --tokens)
  int sweep_end = 0;    // -e
  int sweep_factor = 2; // -f
  double timeout_ms = 2000;
  int sms_per_rank = 0;
  int device = 0;
  std::string csv;
  std::string ratios_csv;
  std::string experiment = "run";
  std::string calibration;
  bool no_check = false;
  bool no_cupti = false;
  bool registers = false;
  std::string inject_fault;  // hidden: failure-path tests (harness/node_core.h FaultInjection)
};

// One --kernel value: the kernel variants (common/launch_config.h KernelVariant) a policy's
// configuration may run. reference / lean: that one body; auto: every variant, the model policy
// choosing among them (with the algorithm and the launch shape).
struct KernelChoice {
  std::string name;                    // as given: reference, lean or auto
  std::vector<KernelVariant> variants;  // {reference}, {lean}, or all_kernel_variants() for auto
  bool automatic() const { return variants.size() > 1; }
};
// "reference" / "lean" / "auto" -> its choice; throws InvalidArgument naming the value.
KernelChoice parse_kernel_choice(const std::string& text);

// What to measure, as the options say it, checked before any device is touched: the problem,
// policies (parsed), kernel choices (parsed, each checked against the policies and the algorithm),
// explicit shapes (parsed, and each checked to cover a token), the timing
// options, the input distribution, the calibration (loaded), the injected fault, and the CSV
// outputs (appendable: same header, not an input). Configurations need the node's partition spec
// and are made later.
struct Plan {
  Problem problem;                      // in a size sweep: the largest size (the workspace and inputs hold it)
  std::vector<int> sweep;               // -b/-e/-f token counts; empty: one run at problem.tokens
  std::vector<model::Policy> policies;  // in --policy order; explicit_config stands for the --tpb shape
  // Per policy: its own kernel (a --policy entry POLICY/KERNEL), or none (it takes every --kernel choice).
  std::vector<std::optional<KernelChoice>> policy_kernels;
  std::vector<ExplicitShape> shapes;    // --tpb/--cluster/--grid first (when given), then each --config
  std::vector<Implementation> baselines;  // measured after the policies and shapes (--baseline, --algo nccl|unfused)
  // --kernel in order: every policy and shape is measured once per choice (baselines run the
  // reference kernels, once). auto only with the model policy; lean only with one-shot (or the model).
  std::vector<KernelChoice> kernels = {KernelChoice{"reference", {KernelVariant::reference}}};
  harness::TimingOptions timing;
  ref::Distribution distribution = ref::Distribution::normal;
  model::Calibration calibration;
  harness::FaultInjection fault;
};

// --policy entries, each POLICY or POLICY/KERNEL (that policy measured with that kernel only, e.g.
// trtllm/lean), into plan.policies and plan.policy_kernels; throws InvalidArgument naming a bad part.
void set_policies(Plan& plan, const std::vector<std::string>& entries);

// "tpb/cluster/grid[/vpt]" -> an explicit configuration (vpt 0 = the required one); throws
// InvalidArgument naming the text.
ExplicitShape parse_config(const std::string& text);

// Every option checked (and the calibration loaded) before any device is touched.
Plan make_plan(const RunOptions& o);
// The configuration as the options give it, echoed (by process 0) before any device is touched.
void print_plan(const RunOptions& o, const Plan& plan);

// What a process does with a failure it caught while its node and runner still exist: nothing (the
// exception goes on, the emulated node's destructors wait for the GPU), or, under MPI, end every
// process of the job at once (it does not return).
using FailureHandler = std::function<void(const std::exception&)>;

#ifdef ARLAB_HAVE_CUDA
// The runner on a node, then the measurement and report of plan (a size sweep: one group per
// size). Collective on a multi-process node. Throws on a failed gate after the CSV rows are written.
void run_on_node(const RunOptions& o, const Plan& plan, harness::Node& node, harness::CuptiKernelTimer* cupti_timer,
                 const std::string& cupti_note, const FailureHandler& on_failure);
#endif

}  // namespace arlab::cli
