// `arlab run`: one fused problem under one or several launch-configuration policies, explicit
// configurations and baselines, measured as one interleaved group (docs/measurement.md) by the
// measuring session (session/session.h): on the emulated node (docs/nodes.md) or, when mpirun / srun
// started several processes, one rank per process. This file is the command: its options, their one
// conversion into a checked plan (session/run_plan.h) and the echo of the full configuration, all
// before any device is touched. The session checks every output of every rank against the CPU
// reference (the docs/operation.md gate), times the members interleaved round by round, prints one
// SUMMARY line per member and one RATIO line per member against the first, appends one row per member
// to --csv and exits non-zero when a check fails. `--kernel reference,lean,auto` measures every policy
// and explicit configuration once per kernel body (common/implementations.h; auto: the model policy
// chooses the body with the algorithm and the shape); a group may mix one- and two-shot members (the
// model's pick runs with the algorithm it chose). `arlab run --registers` prints the registers of
// every kernel instantiation. A hidden --inject-fault plants faults to test the failure paths
// (harness/node_core.h FaultInjection).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/implementations.h"
#include "common/measurement_schema.h"
#include "common/output_file.h"
#include "common/problem.h"
#include "common/ratio_schema.h"
#include "cli/cli_checks.h"
#include "cli/cli_config.h"
#include "cli/cli_problem.h"
#include "cli/cli_timing.h"
#include "cli/commands.h"
#include "cli/run_core.h"
#include "harness/input_sets.h"
#include "cli/calibration_choice.h"
#include "harness/launch_env.h"
#include "harness/node_core.h"
#include "harness/size_sweep.h"
#include "model/calibration.h"
#include "model/policies.h"
#include "reference/fused_reference.h"
#include "session/session.h"

namespace arlab::cli {
namespace {

// The --kernel and --baseline help: every row of the implementation table of that kind.
std::string kernel_option_help() {
  std::string text = "fused kernel body; several (comma-separated) are each measured with every policy and --config, "
                     "interleaved in one group (rows labelled policy/kernel): ";
  for (Impl body : kernel_bodies()) text += std::string(to_string(body)) + " (" + implementation(body).summary + "); ";
  return text + "or auto (--policy model only: the model chooses the body with the algorithm and launch shape)";
}
std::string baseline_option_help() {
  std::string text = "measured beside the policies in the same interleaved group, through the same gate: ";
  for (Impl b : baselines()) text += std::string(to_string(b)) + " (" + implementation(b).summary + "); ";
  return text + "--algo NAME measures that baseline alone";
}

void add_options(CLI::App* run, RunOptions& o) {
  add_problem_options(run, o.problem);
  run->add_option("--policy", o.policies,
                  "legacy, trtllm, occupancy, model or explicit; several (comma-separated) are measured interleaved "
                  "in one process and compared with the first. POLICY/KERNEL (e.g. trtllm/lean, model/lean) measures "
                  "that policy with that kernel only, whatever --kernel says")
      ->delimiter(',')
      ->capture_default_str();
  run->add_option("--baseline", o.baselines, baseline_option_help())->delimiter(',');
  run->add_option("--kernel", o.kernels, kernel_option_help())->delimiter(',')->capture_default_str();
  run->add_option("--config", o.configs,
                  "an explicit configuration tpb/cluster/grid[/vpt] measured beside the policies (repeatable)");
  add_explicit_config_options(run, o.config);
  run->add_flag("--pdl", o.pdl, "programmatic dependent launch");
  add_timing_options(run, o.timing);
  run->add_option("--sets", o.sets, "input sets rotated while timing (0: enough to exceed 2x L2)")
      ->capture_default_str()
      ->check(integer_in(0, harness::kMaxInputSets));
  run->add_option("--seed", o.seed, "input seed")->capture_default_str()->check(unsigned_64());
  run->add_option("--distribution", o.distribution, "normal, uniform or heavy_tailed")->capture_default_str();
  run->add_option("-b,--begin-tokens", o.sweep_begin,
                  "size sweep as nccl-tests: from this many tokens (with -e; replaces --tokens), one table row per size")
      ->check(int_at_least(1));
  run->add_option("-e,--end-tokens", o.sweep_end, "size sweep: up to this many tokens")->check(int_at_least(1));
  run->add_option("-f,--step-factor", o.sweep_factor, "size sweep: multiply the tokens by this each step")
      ->capture_default_str()
      ->check(int_at_least(2));
  run->add_option("--max-tokens", o.max_tokens, "workspace capacity in tokens (0: --tokens)")
      ->capture_default_str()
      ->check(int_at_least(0));
  // 1e9 ms (~11 days): far beyond any wait, and its nanoseconds still fit the kernels' 64-bit bound.
  run->add_option("--timeout-ms", o.timeout_ms, "bound of every device spin-wait")
      ->capture_default_str()
      ->check(finite_in(0, 1e9, /*lo_open=*/true));
  run->add_option("--sms-per-rank", o.sms_per_rank, "SMs per rank partition (0: largest equal split)")
      ->capture_default_str()
      ->check(int_at_least(0));
  run->add_option("--device", o.device, "CUDA device ordinal (emulated node; under mpirun/srun: local rank % devices)")
      ->capture_default_str()
      ->check(int_at_least(0));
  run->add_option("--csv", o.csv, "append one measurement row per configuration to this CSV file")
      ->check(non_empty_path());
  run->add_option("--ratios-csv", o.ratios_csv,
                  "append one ratio row (each configuration over the first, with its CI) to this CSV file")
      ->check(non_empty_path());
  run->add_option("--experiment", o.experiment, "experiment name recorded in the CSV row")->capture_default_str();
  run->add_option("--calibration", o.calibration,
                  calibration_option_help() + " (for the model policy and predicted_us; the node kind is the emulated "
                  "node, or the real one under mpirun/srun, on the GPU the node opens)")
      ->capture_default_str()
      ->check(non_empty_path());
  run->add_flag("--no-check", o.no_check, "skip the correctness gate");
  run->add_flag("--no-cupti", o.no_cupti, "time with CUDA events only");
  run->add_flag("--registers", o.registers, "print registers / shared / local memory of every kernel and exit");
  run->add_option("--inject-fault", o.inject_fault,
                  "testing: skip-kernel-rank=R (rank R never launches its kernel: the others time out) or "
                  "cuda-error-rank=R (rank R fails before its first collective)")
      ->group("");  // hidden from --help: a test of the failure paths, not a user option
}


// --algo NAME with a baseline's name: that baseline alone, on a one-shot problem (its all-reduce step).
bool baseline_only(const RunOptions& o) {
  for (Impl b : baselines())
    if (o.problem.algo == to_string(b)) return true;
  return false;
}

}  // namespace

session::RunPlan make_plan(const RunOptions& o) {
  session::RunPlan plan;
  ProblemOptions problem_options = o.problem;
  if (baseline_only(o)) problem_options.algo = "oneshot";
  plan.problem = to_problem(problem_options);
  if (o.sweep_begin > 0 || o.sweep_end > 0) {
    if (o.sweep_begin == 0 || o.sweep_end == 0)
      throw InvalidArgument("a size sweep needs both -b/--begin-tokens and -e/--end-tokens");
    plan.sweep = harness::token_sweep(o.sweep_begin, o.sweep_end, o.sweep_factor);
    plan.problem.tokens = plan.sweep.back();
    validate(plan.problem);
  }
  session::GroupRequest group;
  group.kernels = session::parse_kernel_choices(o.kernels);
  for (const std::string& b : o.baselines) {
    bool body = b == "fused";  // the implementation label of the fused kernel in older CSVs
    for (Impl k : kernel_bodies()) body = body || b == to_string(k);
    if (body)
      throw InvalidArgument("--baseline " + b + ": the policies measure the fused kernel bodies (--kernel " +
                            kernel_body_names() + "); the baselines are " + baseline_names());
    group.baselines.push_back(parse_baseline(b));
  }
  if (baseline_only(o)) {
    if (!o.configs.empty() || !o.baselines.empty())
      throw InvalidArgument("--algo " + o.problem.algo + " measures that baseline alone: drop --config / --baseline, "
                            "or use --algo oneshot --baseline " + o.problem.algo + " to compare it with the fused kernel");
    if (group.kernels.size() != 1 || group.kernels.front().name != "reference")
      throw InvalidArgument("--algo " + o.problem.algo + " measures that baseline alone, which runs the reference "
                            "kernels: drop --kernel, or use --algo oneshot --baseline " + o.problem.algo +
                            " to compare it with the fused kernels");
    group.baselines = {parse_baseline(o.problem.algo)};
  } else {
    group.policies = o.policies;
  }
  bool explicit_policy = false;
  for (const std::string& entry : group.policies)
    explicit_policy = explicit_policy || entry.substr(0, entry.find('/')) == "explicit";
  check_explicit_options_have_policy(o.config, explicit_policy,
                                     group.policies.empty() ? "" : group.policies.front());
  if (explicit_policy) group.shapes.push_back(explicit_shape(o.config));
  for (const std::string& c : o.configs) group.shapes.push_back(model::parse_explicit_shape(c));
  for (const ExplicitShape& shape : group.shapes) explicit_config(shape, plan.problem);  // throws naming tpb
  plan.entries = session::plan_group(group, plan.problem);
  if (o.max_tokens < 0) throw InvalidArgument("--max-tokens = " + std::to_string(o.max_tokens) + " must be >= 0");
  if (o.max_tokens > 0 && plan.problem.tokens > o.max_tokens)
    throw InvalidArgument("tokens = " + std::to_string(plan.problem.tokens) + " exceeds the workspace capacity of " +
                          std::to_string(o.max_tokens) + " tokens (--max-tokens)");
  if (o.sets < 0 || o.sets > harness::kMaxInputSets)
    throw InvalidArgument("--sets = " + std::to_string(o.sets) + " must be in [0, " +
                          std::to_string(harness::kMaxInputSets) + "] (0: enough to exceed 2x L2)");
  if (!(o.timeout_ms > 0) || !std::isfinite(o.timeout_ms))
    throw InvalidArgument("--timeout-ms = " + std::to_string(o.timeout_ms) + " must be finite and > 0");
  if (o.device < 0) throw InvalidArgument("--device = " + std::to_string(o.device) + " must be >= 0");
  if (o.sms_per_rank < 0)
    throw InvalidArgument("--sms-per-rank = " + std::to_string(o.sms_per_rank) + " must be >= 0 (0: equal split)");
  plan.pdl = o.pdl;
  plan.distribution = ref::parse_distribution(o.distribution);
  plan.timing = timing_options(o.timing);
  plan.timed = !o.timing.no_timing;
  plan.check = !o.no_check;
  plan.cupti = !o.no_cupti;
  plan.seed = o.seed;
  plan.sets = o.sets;
  // The node kind the run is about: the emulated node, or the real one when launched one process per
  // rank. Its GPU is known once the node has queried the device: with --calibration auto the plan
  // carries the choice for it (RunPlan::calibration_for_gpu), and until then the H200's (what an
  // option check before the node opens sees).
  const NodeKind node =
      harness::is_multi_process(harness::detect_launch(harness::process_env)) ? NodeKind::nvlink : NodeKind::emulated;
  const CalibrationChoice calibration = choose_calibration(o.calibration, node, "h200");
  plan.calibration = load_choice(calibration);
  plan.calibration_source = calibration.text;
  if (o.calibration == kCalibrationAuto)
    plan.calibration_for_gpu = [node](session::RunPlan& chosen, const std::string& gpu_name) {
      choose_for_gpu(node, chosen, gpu_name);
    };
  plan.fault = harness::parse_fault_injection(o.inject_fault, plan.problem.nranks);
  plan.device = o.device;
  plan.max_tokens = o.max_tokens;
  plan.timeout_ms = o.timeout_ms;
  plan.sms_per_rank = o.sms_per_rank;
  plan.experiment = o.experiment;
  plan.csv = o.csv;
  plan.ratios_csv = o.ratios_csv;
  if (!o.csv.empty()) {
    check_output_path(o.csv, {calibration.path}, "--csv");
    check_appendable(o.csv, measurement_header());
  }
  if (!o.ratios_csv.empty()) {
    check_output_path(o.ratios_csv, {calibration.path, o.csv}, "--ratios-csv");
    check_appendable(o.ratios_csv, ratio_header());
  }
  return plan;
}

void print_plan(const RunOptions& o, const session::RunPlan& plan) {
  const Problem& p = plan.problem;
  std::printf("arlab run: %s tokens=%d H=%d N=%d %s %s acc=%s sf=%s eps=%g scale=%g seed=%llu dist=%s\n",
              to_string(p.algo), p.tokens, p.hidden, p.nranks, to_string(p.dtype), to_string(p.pattern),
              to_string(p.acc), to_string(p.sf_layout), static_cast<double>(p.eps), static_cast<double>(p.scale),
              o.seed, o.distribution.c_str());
  if (!plan.sweep.empty()) {
    std::string sizes;
    for (int t : plan.sweep) sizes += (sizes.empty() ? "" : ", ") + std::to_string(t);
    std::printf("  size sweep (-b %d -e %d -f %d): tokens {%s}, one interleaved group per size\n", o.sweep_begin,
                o.sweep_end, o.sweep_factor, sizes.c_str());
  }
  std::string members;
  for (const session::GroupEntry& e : plan.entries) {
    std::string text = e.label;
    if (e.kind == session::GroupEntry::Kind::explicit_shape || e.policy == model::Policy::explicit_config)
      text += " " + std::to_string(e.shape.tpb) + "/" + std::to_string(e.shape.cluster) + "/" +
              std::to_string(e.shape.grid) + (e.shape.vpt > 0 ? "/" + std::to_string(e.shape.vpt) : "");
    if (e.kind == session::GroupEntry::Kind::baseline) text += " baseline";
    members += (members.empty() ? "" : ", ") + text;
  }
  std::printf("  group: %s%s; calibration %s; csv %s; device %d, timeout %g ms%s\n", members.c_str(),
              o.pdl ? " (pdl)" : "", plan.calibration_source.c_str(), o.csv.empty() ? "none" : o.csv.c_str(), o.device,
              o.timeout_ms, plan.fault.any() ? ("; INJECTED FAULT " + o.inject_fault).c_str() : "");
  std::printf("  timing: %s\n", describe(o.timing).c_str());
  std::fflush(stdout);
}

namespace {

// Every given option is used (cli/cli_checks.h refuse_unused_options): --registers prints a table
// and runs nothing; a size sweep replaces --tokens; --no-timing leaves the timing options unused.
void refuse_unused(const RunOptions& o, const CLI::App& run) {
  if (o.registers)
    refuse_unused_options(run, {"--registers"}, "`arlab run --registers` prints every kernel's registers and exits");
  if (o.sweep_begin > 0 || o.sweep_end > 0)
    refuse_unused_options(run, options_except(run, {"--tokens"}),
                          "a size sweep (-b/-e) runs the tokens it lists in place of --tokens");
  if (o.timing.no_timing) {
    std::vector<std::string> timing = timing_option_names();
    timing.erase(std::find(timing.begin(), timing.end(), "--no-timing"));
    refuse_unused_options(run, options_except(run, timing), "--no-timing checks the outputs without timing them");
  }
}

void run_main(const RunOptions& o, const CLI::App& run) {
  refuse_unused(o, run);
  if (o.registers) {
    session::print_kernel_registers();
    return;
  }
  const session::RunPlan plan = make_plan(o);  // every option checked before any device is touched
  if (harness::detect_launch(harness::process_env).world_rank == 0) print_plan(o, plan);
  session::run_measurements(plan);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "run one fused all-reduce problem under one or several configurations (emulated node on one GPU, or one "
      "rank per process under mpirun/srun): check every output, time them interleaved, append CSV rows");
  add_options(run, *opts);
  run->callback([opts, run]() { run_main(*opts, *run); });
}

}  // namespace arlab::cli
