// `arlab run`: one fused problem under one or several launch-configuration policies (and/or
// explicit configurations) on the emulated node (docs/nodes.md) or, when the process was started by
// mpirun / srun as one of several (harness/launch_env.h), as one rank of the multi-process node
// (one process per GPU, workspaces shared through CUDA IPC, harness/mpi_node.h; process 0 prints
// and writes the CSV). It echoes its full configuration, validates every option before touching
// a device, runs each configuration once with every output poisoned and checks every output of
// every rank against the CPU reference (the docs/operation.md gate), times all configurations
// interleaved round by round as docs/measurement.md says (harness/timing.h: gated isolated calls behind a
// host hold, noise-based stopping; graph-captured back-to-back calls), prints one SUMMARY line per
// configuration and one RATIO line per configuration against the first (with its bootstrap CI),
// appends one tidy row per configuration to --csv (common/measurement_schema.h) and exits non-zero
// when a check fails. `--kernel reference,lean,auto` measures every policy and configuration once per
// one-shot kernel body (common/launch_config.h KernelVariant; auto: the model policy chooses it).
// `arlab run --registers` prints the registers of every kernel instantiation, lean ones included.
// Every option (and the calibration, and the CSV outputs' headers) is checked and the configuration
// echoed before any device is touched; without a GPU the command then says so plainly. In a build
// without CUDA the command exists, checks its options, and says it cannot run.
// Under mpirun, a failure in any process ends every process at once (print, MPI_Abort) without
// device synchronisation, frees or barriers on the way; a hidden --inject-fault plants faults to
// test exactly that (harness/node_core.h FaultInjection).
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

#include "common/build_info.h"
#include "common/csv.h"
#include "common/launch_config.h"
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
#include "harness/launch_env.h"
#include "harness/node_core.h"
#include "harness/size_sweep.h"
#include "model/calibration.h"
#include "model/policies.h"
#include "reference/fused_reference.h"

#ifdef ARLAB_HAVE_CUDA
#include <cuda_runtime.h>

#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/device_query.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/measurement.h"
#include "harness/nvml.h"
#include "harness/timing.h"
#include "kernels/dispatch.h"
#include "model/legality.h"
#include "model/timing_model.h"
#include "reference/compare.h"
#ifdef ARLAB_HAVE_MPI
#include "harness/mpi_node.h"
#include "harness/mpi_session.h"
#include "harness/nccl_comm.h"
#endif
#endif

namespace arlab::cli {
namespace {

std::string kernel_option_help() {
  return "fused one-shot kernel body; several (comma-separated) are each measured with every policy and --config, "
         "interleaved in one group (rows labelled policy/kernel): reference (the peer library's design: push to "
         "every rank's buffer, own slot included, poll every slot, then a separate -0.0 clear pass), lean (own "
         "slice added from registers, never pushed or polled; polled slots cleared as they are consumed, no clear "
         "pass) or auto (--policy model only: the model chooses reference or lean with the algorithm and launch "
         "shape). lean is one-shot only (with --algo twoshot, only --policy model, which then picks one-shot); "
         "two-shot and the baselines run the reference kernels";
}

void add_options(CLI::App* run, RunOptions& o) {
  add_problem_options(run, o.problem);
  run->add_option("--policy", o.policies,
                  "legacy, trtllm, occupancy, model or explicit; several (comma-separated) are measured interleaved "
                  "in one process and compared with the first. POLICY/KERNEL (e.g. trtllm/lean, model/lean) measures "
                  "that policy with that kernel only, whatever --kernel says")
      ->delimiter(',')
      ->capture_default_str();
  run->add_option("--baseline", o.baselines,
                  "unfused (arlab's all-reduce-only kernel at the trtllm configuration, then a separate residual + "
                  "RMSNorm kernel) and/or nccl (ncclAllReduce, then that kernel; one GPU per rank under mpirun, N = 2): "
                  "measured beside the policies in the same interleaved group, through the same gate. --algo nccl or "
                  "--algo unfused measures that baseline alone")
      ->delimiter(',');
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
  run->add_option("--calibration", o.calibration, "model calibration CSV for predicted_us (default constants)")
      ->check(non_empty_path());
  run->add_flag("--no-check", o.no_check, "skip the correctness gate");
  run->add_flag("--no-cupti", o.no_cupti, "time with CUDA events only");
  run->add_flag("--registers", o.registers, "print registers / shared / local memory of every kernel and exit");
  run->add_option("--inject-fault", o.inject_fault,
                  "testing: skip-kernel-rank=R (rank R never launches its kernel: the others time out) or "
                  "cuda-error-rank=R (rank R fails before its first collective)")
      ->group("");  // hidden from --help: a test of the failure paths, not a user option
}

}  // namespace

ExplicitShape parse_config(const std::string& text) {
  ExplicitShape e;
  std::vector<int> v;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t slash = text.find('/', pos);
    const std::string part = text.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    try {
      size_t used = 0;
      const int x = std::stoi(part, &used);
      if (used != part.size()) throw std::invalid_argument("trailing characters");
      v.push_back(x);
    } catch (const std::exception&) {
      throw InvalidArgument("--config '" + text + "': '" + part +
                            "' is not an integer (expected tpb/cluster/grid[/vpt])");
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  if (v.size() < 3 || v.size() > 4)
    throw InvalidArgument("--config '" + text + "' has " + std::to_string(v.size()) +
                          " fields (expected tpb/cluster/grid[/vpt])");
  e.tpb = v[0];
  e.cluster = v[1];
  e.grid = v[2];
  e.vpt = v.size() == 4 ? v[3] : 0;
  if (e.tpb < 1 || e.cluster < 1 || e.grid < 1 || e.vpt < 0)
    throw InvalidArgument("--config '" + text + "': tpb, cluster and grid must be >= 1 and vpt >= 0");
  return e;
}

void set_policies(Plan& plan, const std::vector<std::string>& entries) {
  plan.policies.clear();
  plan.policy_kernels.clear();
  for (const std::string& entry : entries) {
    const size_t slash = entry.find('/');
    plan.policies.push_back(model::parse_policy(entry.substr(0, slash)));
    plan.policy_kernels.push_back(std::nullopt);
    if (slash == std::string::npos) continue;
    try {
      plan.policy_kernels.back() = parse_kernel_choice(entry.substr(slash + 1));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("--policy '" + cut_for_message(entry) + "': " + e.what() + " after the '/'");
    }
  }
}

KernelChoice parse_kernel_choice(const std::string& text) {
  if (text == "auto") return KernelChoice{text, all_kernel_variants()};
  if (text == "reference" || text == "lean") return KernelChoice{text, {parse_kernel_variant(text)}};
  throw InvalidArgument("--kernel '" + cut_for_message(text) + "' is not a kernel (expected reference, lean or auto)");
}

namespace {


// --algo nccl / --algo unfused: that baseline alone, on a one-shot problem (its all-reduce step).
bool baseline_only(const RunOptions& o) { return o.problem.algo == "nccl" || o.problem.algo == "unfused"; }

// The --kernel values, parsed, each once.
std::vector<KernelChoice> kernel_choices(const std::vector<std::string>& names) {
  if (names.empty()) throw InvalidArgument("--kernel: at least one of reference, lean or auto");
  std::vector<KernelChoice> out;
  for (const std::string& name : names) {
    for (const KernelChoice& k : out)
      if (k.name == name) throw InvalidArgument("--kernel lists '" + name + "' twice");
    out.push_back(parse_kernel_choice(name));
  }
  return out;
}

// Throws InvalidArgument unless every configuration the plan makes can take every kernel choice:
// auto is the model's choice (no other policy, no explicit shape, chooses a kernel), and a lean
// choice with a two-shot problem needs the model policy (which then picks a one-shot shape; every
// other policy and shape keeps the problem's algorithm, and two-shot has the reference body only).
void check_kernel_choices(const Plan& plan) {
  const bool have_shapes = !plan.shapes.empty();
  // A --policy entry with its own kernel (POLICY/KERNEL) is checked as if it were the only policy.
  for (size_t i = 0; i < plan.policies.size(); ++i) {
    if (!plan.policy_kernels[i]) continue;
    Plan one = plan;
    one.policies = {plan.policies[i]};
    one.policy_kernels = {std::nullopt};
    one.kernels = {*plan.policy_kernels[i]};
    one.shapes.clear();
    check_kernel_choices(one);
  }
  for (const KernelChoice& k : plan.kernels) {
    if (k.automatic()) {
      for (size_t i = 0; i < plan.policies.size(); ++i) {
        const model::Policy policy = plan.policies[i];
        if (plan.policy_kernels[i]) continue;
        if (policy != model::Policy::model && policy != model::Policy::explicit_config)
          throw InvalidArgument(std::string("--kernel auto lets the model policy choose the kernel; --policy ") +
                                model::to_string(policy) + " takes --kernel reference or lean");
      }
      if (have_shapes)
        throw InvalidArgument("--kernel auto lets the model policy choose the kernel; an explicit configuration "
                              "(--config, --policy explicit) takes --kernel reference or lean");
    }
    if (plan.problem.algo != Algorithm::twoshot) continue;
    for (KernelVariant v : k.variants) {
      if (v == KernelVariant::reference || k.automatic()) continue;  // auto: the model may pick two-shot reference
      const std::string why = std::string("--kernel ") + to_string(v) + " with --algo twoshot: the " + to_string(v) +
                              " kernel is one-shot only (two-shot runs the reference kernel)";
      for (size_t i = 0; i < plan.policies.size(); ++i)
        if (!plan.policy_kernels[i] && plan.policies[i] != model::Policy::model &&
            plan.policies[i] != model::Policy::explicit_config)
          throw InvalidArgument(why + ", and --policy " + model::to_string(plan.policies[i]) +
                                " keeps the problem's algorithm; use --algo oneshot, --kernel reference or "
                                "--policy model");
      if (have_shapes)
        throw InvalidArgument(why + ", and an explicit configuration (--config, --policy explicit) keeps the "
                              "problem's algorithm; use --algo oneshot or --kernel reference");
      // The model's lean pick is one-shot; the run switches to it only when nothing else is measured.
      if (!plan.baselines.empty())
        throw InvalidArgument(why + ", and the model policy's one-shot pick cannot share a run with a two-shot "
                              "baseline (--baseline); use --algo oneshot or --kernel reference");
    }
  }
}

}  // namespace

Plan make_plan(const RunOptions& o) {
  Plan plan;
  ProblemOptions problem_options = o.problem;
  if (baseline_only(o)) problem_options.algo = "oneshot";
  plan.problem = to_problem(problem_options);
  for (const std::string& b : o.baselines) {
    const Implementation impl = parse_implementation(b);
    if (impl == Implementation::fused) throw InvalidArgument("--baseline fused: the policies measure the fused kernel");
    plan.baselines.push_back(impl);
  }
  if (o.sweep_begin > 0 || o.sweep_end > 0) {
    if (o.sweep_begin == 0 || o.sweep_end == 0)
      throw InvalidArgument("a size sweep needs both -b/--begin-tokens and -e/--end-tokens");
    plan.sweep = harness::token_sweep(o.sweep_begin, o.sweep_end, o.sweep_factor);
    plan.problem.tokens = plan.sweep.back();
    validate(plan.problem);
  }
  plan.kernels = kernel_choices(o.kernels);
  if (baseline_only(o)) {
    if (!o.configs.empty() || !o.baselines.empty())
      throw InvalidArgument("--algo " + o.problem.algo + " measures that baseline alone: drop --config / --baseline, "
                            "or use --algo oneshot --baseline " + o.problem.algo + " to compare it with the fused kernel");
    if (plan.kernels.size() != 1 || plan.kernels.front().name != "reference")
      throw InvalidArgument("--algo " + o.problem.algo + " measures that baseline alone, which runs the reference "
                            "kernels: drop --kernel, or use --algo oneshot --baseline " + o.problem.algo +
                            " to compare it with the fused kernels");
    plan.baselines = {parse_implementation(o.problem.algo)};
  }
  const std::vector<std::string> policies = baseline_only(o) ? std::vector<std::string>{} : o.policies;
  if (policies.empty() && o.configs.empty() && plan.baselines.empty())
    throw InvalidArgument("--policy: at least one policy, --config or --baseline");
  bool explicit_policy = false;
  set_policies(plan, policies);
  for (model::Policy policy : plan.policies)
    explicit_policy = explicit_policy || policy == model::Policy::explicit_config;
  check_explicit_options_have_policy(o.config, explicit_policy, policies.empty() ? "" : policies.front());
  if (explicit_policy) plan.shapes.push_back(explicit_shape(o.config));
  for (const std::string& c : o.configs) plan.shapes.push_back(parse_config(c));
  for (const ExplicitShape& shape : plan.shapes) explicit_config(shape, plan.problem);  // throws naming tpb
  check_kernel_choices(plan);
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
  plan.distribution = ref::parse_distribution(o.distribution);
  plan.timing = timing_options(o.timing);
  plan.calibration = o.calibration.empty() ? model::default_calibration() : model::load_calibration(o.calibration);
  plan.fault = harness::parse_fault_injection(o.inject_fault, plan.problem.nranks);
  if (!o.csv.empty()) {
    check_output_path(o.csv, {o.calibration}, "--csv");
    check_appendable(o.csv, measurement_header());
  }
  if (!o.ratios_csv.empty()) {
    check_output_path(o.ratios_csv, {o.calibration, o.csv}, "--ratios-csv");
    check_appendable(o.ratios_csv, ratio_header());
  }
  return plan;
}

void print_plan(const RunOptions& o, const Plan& plan) {
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
  std::string configs;
  for (size_t i = 0; i < plan.policies.size(); ++i)
    configs += std::string(configs.empty() ? "" : ", ") + model::to_string(plan.policies[i]) +
               (plan.policy_kernels[i] ? "/" + plan.policy_kernels[i]->name : std::string());
  for (const std::string& c : o.configs) configs += (configs.empty() ? "config " : ", config ") + c;
  for (Implementation b : plan.baselines) configs += std::string(configs.empty() ? "" : ", ") + to_string(b) + " baseline";
  std::string kernels;
  for (const KernelChoice& k : plan.kernels) kernels += (kernels.empty() ? "" : ",") + k.name;
  std::printf("  configurations: %s%s; kernel %s%s; calibration %s; csv %s; device %d, timeout %g ms%s\n",
              configs.c_str(), o.pdl ? " (pdl)" : "", kernels.c_str(),
              plan.kernels.size() > 1 ? " (each policy and --config once per kernel)" : "",
              o.calibration.empty() ? "built-in" : o.calibration.c_str(),
              o.csv.empty() ? "none" : o.csv.c_str(), o.device, o.timeout_ms,
              plan.fault.any() ? ("; INJECTED FAULT " + o.inject_fault).c_str() : "");
  std::fflush(stdout);
}

namespace {

#ifdef ARLAB_HAVE_CUDA

void print_registers() {
  std::printf("%-48s %6s %10s %10s\n", "kernel", "regs", "smem_B", "local_B");
  for (const kernels::KernelKey& key : kernels::all_kernel_keys()) {
    const kernels::FusedKernel k = kernels::find_fused_kernel(key);
    cudaFuncAttributes a{};
    ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, k.fn));
    std::printf("%-48s %6d %10zu %10zu\n", k.name.c_str(), a.numRegs, a.sharedSizeBytes, a.localSizeBytes);
  }
}

// "norm<bf16,ar_res_rms> tpb 1024, grid 128, vpt 1" (nothing for pattern ar: no norm step).
std::string describe_norm(const harness::FusedRunner& runner, const Problem& p) {
  if (!has_residual(p.pattern)) return "(none: pattern ar)";
  const LaunchConfig n = runner.norm_config(p);
  return std::string(to_string(p.dtype)) + "/" + to_string(p.pattern) + " tpb " + std::to_string(n.tpb) + ", grid " +
         std::to_string(n.grid) + ", vpt " + std::to_string(n.vecs_per_thread);
}

// A baseline's configuration: unfused runs the all-reduce-only kernel (pattern ar) at the trtllm
// policy's configuration for that problem (the peer library's choice); nccl has no launch shape.
LaunchConfig baseline_config(Implementation impl, const Problem& p, const harness::Node& node,
                             const harness::FusedRunner& runner, const model::Calibration& cal) {
  LaunchConfig cfg;
  cfg.algo = p.algo;
  if (impl == Implementation::unfused) {
    Problem ar = p;
    ar.pattern = Pattern::ar;
    LaunchConfig probe;
    probe.impl = Implementation::unfused;
    cfg = model::choose_launch_config(model::Policy::trtllm, ar, node.rank_spec(), runner.resources(probe), cal);
  } else {
    cfg.tpb = 0;
    cfg.grid = 0;
    cfg.vecs_per_thread = 0;
  }
  cfg.impl = impl;
  return cfg;
}

// The label a configuration's row carries: the policy's name when one --kernel value was given, else
// "policy/kernel" (trtllm/lean, model/auto); model/measurements.cpp reads both forms.
std::string config_label(const std::string& policy, const Plan& plan, const KernelChoice& k) {
  return plan.kernels.size() == 1 ? policy : policy + "/" + k.name;
}

// The registers and shared memory a policy chooses with for kernel choice k: its kernel's. For auto
// (the model searching reference and lean at once, one resource figure for all candidates) the
// elementwise max over the variants' kernels: conservative -- every configuration the search keeps
// is legal (co-resident, within shared memory) for whichever variant it picks, at the price of
// ruling out the few shapes only the leaner kernel would fit. A variant the runner has no kernel
// of (lean on a two-shot shape) adds nothing: its candidates cannot run here, and a pick of one is
// refused by name (the algorithm differs from the problem's).
model::KernelResources resources_for(const harness::FusedRunner& runner, const KernelChoice& k) {
  model::KernelResources res{0, 0};
  for (KernelVariant v : k.variants) {
    if (v != KernelVariant::reference && runner.shape().algo != Algorithm::oneshot) continue;
    LaunchConfig probe;
    probe.algo = runner.shape().algo;
    probe.variant = v;
    const model::KernelResources r = runner.resources(probe);
    res.regs_per_thread = std::max(res.regs_per_thread, r.regs_per_thread);
    res.smem_per_block_bytes = std::max(res.smem_per_block_bytes, r.smem_per_block_bytes);
  }
  return res;
}

// "oneshot<bf16,N=2,ar_res_rms,pairwise> (52 registers/thread), oneshot_lean<...> (56 ...)": the
// fused kernels the group runs (the baselines' kernels are described on their own lines).
std::string describe_kernels(const harness::FusedRunner& runner, const std::vector<harness::Candidate>& group) {
  std::string out;
  std::vector<std::string> seen;
  for (const harness::Candidate& c : group) {
    if (c.cfg.impl != Implementation::fused) continue;
    const kernels::FusedKernel& k = runner.kernel_for(c.cfg);
    if (std::find(seen.begin(), seen.end(), k.name) != seen.end()) continue;
    seen.push_back(k.name);
    out += (out.empty() ? "" : ", ") + k.name + " (" + std::to_string(runner.resources(c.cfg).regs_per_thread) +
           " registers/thread)";
  }
  return out.empty() ? std::string("no fused kernel (baselines only)") : out;
}

// Everything after the runner exists, the same on the emulated and the multi-process node: every
// process runs its ranks and joins the collectives; process 0 prints and writes the CSV rows.
// Returns the group's measurements; a failed correctness gate throws after the rows are written,
// unless `throw_on_failure` is false (a size sweep counts failures per size and fails at the end).
std::vector<harness::Measurement> measure_and_report(const RunOptions& o, const Plan& plan, harness::Node& node,
                                                     harness::FusedRunner& runner, int nsets,
                                                     harness::CuptiKernelTimer* cupti_timer,
                                                     const std::string& cupti_note, bool throw_on_failure = true) {
  const Problem& p = plan.problem;
  const bool printer = node.process_index() == 0;
  const model::Calibration& cal = plan.calibration;

  // Every policy and explicit shape once per --kernel choice, then the baselines (reference kernels).
  std::vector<harness::Candidate> group;
  size_t next_shape = 0;
  auto add = [&](const std::string& label, LaunchConfig cfg) {
    cfg.pdl = o.pdl;
    if (cfg.algo != p.algo)
      throw InvalidArgument("policy " + label + " chose the " + to_string(cfg.algo) + " algorithm for a " +
                            to_string(p.algo) + " problem; run with --algo " + to_string(cfg.algo) +
                            " or pick another policy");
    runner.validate_call(p, cfg);
    group.push_back(harness::Candidate{label, cfg});
  };
  for (size_t i = 0; i < plan.policies.size(); ++i) {
    const model::Policy policy = plan.policies[i];
    LaunchConfig given;
    const bool is_explicit = policy == model::Policy::explicit_config;
    if (is_explicit) given = explicit_config(plan.shapes.at(next_shape++), p);
    const std::vector<KernelChoice> choices =
        plan.policy_kernels[i] ? std::vector<KernelChoice>{*plan.policy_kernels[i]} : plan.kernels;
    for (const KernelChoice& k : choices)
      add(plan.policy_kernels[i] ? std::string(model::to_string(policy)) + "/" + k.name
                                 : config_label(model::to_string(policy), plan, k),
          model::choose_launch_config(policy, p, node.rank_spec(), resources_for(runner, k), cal,
                                      is_explicit ? &given : nullptr, k.variants));
  }
  for (; next_shape < plan.shapes.size(); ++next_shape) {
    for (const KernelChoice& k : plan.kernels) {
      LaunchConfig cfg = explicit_config(plan.shapes[next_shape], p);
      cfg.variant = k.variants.front();  // make_plan refused auto with explicit shapes
      add(config_label("explicit", plan, k), cfg);
    }
  }
  for (Implementation b : plan.baselines) add(to_string(b), baseline_config(b, p, node, runner, cal));

  const harness::Nvml nvml;
  const harness::GpuClocks clocks(nvml, node.device().ordinal);
  harness::MeasureSettings settings;
  settings.check = !o.no_check;
  settings.timed = !o.timing.no_timing;
  settings.experiment = o.experiment;
  settings.timing = plan.timing;
  settings.link = harness::node_link(node, nvml);

  if (printer) {
    std::printf("  device: %s (%d SMs), driver %s, CUDA runtime %s, git %s\n", node.device().name.c_str(),
                node.device().spec.sm_count, node.device().driver.c_str(), node.device().runtime.c_str(),
                arlab::git_sha());
    std::printf("  node: %s; link %s; workspace %lld tokens, timeout %g ms\n", node.describe().c_str(),
                settings.link.c_str(), node.token_capacity(p.hidden, p.dtype), o.timeout_ms);
    std::printf("  kernel: %s\n", describe_kernels(runner, group).c_str());
    for (const harness::Candidate& c : group) {
      if (c.cfg.impl == Implementation::nccl) {
#ifdef ARLAB_HAVE_MPI
        const std::string version = node.nccl().version();
#else
        const std::string version = "no NCCL in this build";
#endif
        std::printf("  %-9s -> ncclAllReduce (%s), then the separate norm kernel %s\n", c.policy.c_str(),
                    version.c_str(), describe_norm(runner, p).c_str());
        continue;
      }
      std::printf("  %-9s -> tpb %d, cluster %d, grid %d, vpt %d%s, %d B shared/block, kernel %s%s%s\n",
                  c.policy.c_str(), c.cfg.tpb, c.cfg.cluster, c.cfg.grid, c.cfg.vecs_per_thread,
                  c.cfg.pdl ? ", pdl" : "", runner.resources(c.cfg).smem_per_block_bytes, to_string(c.cfg.variant),
                  c.cfg.impl == Implementation::unfused ? " (all-reduce-only kernel), then the separate norm kernel " : "",
                  c.cfg.impl == Implementation::unfused ? describe_norm(runner, p).c_str() : "");
    }
    std::printf("  timing: %s; %d input sets; %s%s\n", describe(o.timing).c_str(), nsets,
                cupti_timer ? "cupti" : (cupti_note.empty() ? "events" : cupti_note.c_str()),
                group.size() > 1 ? "; configurations interleaved round by round" : "");
    std::printf("  clocks: %s\n", nvml.available() ? "NVML (recorded before and after the timed rounds)"
                                                   : nvml.note().c_str());
  }

  const std::vector<harness::Measurement> ms =
      harness::measure_group(runner, p, group, cal, settings, cupti_timer, &clocks);
  const bool meaningful = node.timings_meaningful();
  std::string first_failure;
  for (size_t i = 0; i < ms.size(); ++i) {
    const harness::Measurement& m = ms[i];
    if (m.checked && !m.gate.pass && first_failure.empty())
      first_failure = group[i].policy + ": " + m.gate.first_failure;
    if (m.checked && (printer || !m.gate.pass))
      std::printf("  check %s%s: %s\n", group[i].policy.c_str(), printer ? "" : " (this process)",
                  m.gate.summary().c_str());
    if (!printer) continue;
    if (settings.timed && !m.timing.note.empty()) std::printf("  timing note: %s\n", m.timing.note.c_str());
    if (settings.timed && group[i].cfg.impl != Implementation::fused && !m.timing.kernel_names.empty()) {
      std::string names;
      for (const std::string& n : m.timing.kernel_names) names += (names.empty() ? "" : ", ") + n;
      std::printf("  kernels of %s: %s\n", group[i].policy.c_str(), names.c_str());
    }
    if (!m.prediction_note.empty()) std::printf("  model: no prediction (%s)\n", m.prediction_note.c_str());
    const std::string warn = harness::measurement_warnings(m, settings.timing.stop.max_noise);
    if (!warn.empty()) std::printf("  WARNING %s: %s\n", group[i].policy.c_str(), warn.c_str());
  }
  if (printer && settings.timed && !meaningful)
    std::printf("  WARNING: several processes share one GPU and time-slice it (no MPS): the times below are NOT "
                "kernel times; this run proves correctness only (CSV topology %s)\n", node.topology().c_str());
  for (size_t i = 0; printer && i < ms.size(); ++i) {
    const MeasurementRow& row = ms[i].row;
    std::printf("SUMMARY %s %s N=%d H=%d tokens=%d %s %s %s cfg=%d/%d/%d vpt=%d%s kernel %s | check %s | kernel "
                "%.3f us [%.3f, %.3f] (p10 %.3f p90 %.3f, %d iters, noise %.2f %%, %s, %s) skew-free %.3f us spread "
                "%.3f us start skew %.3f us | graph %.3f us/call | clocks SM %d->%d MHz | model %.2f us | %s%s\n",
                to_string(p.algo), group[i].policy.c_str(), p.nranks, p.hidden, p.tokens, to_string(p.dtype),
                to_string(p.pattern), to_string(p.acc), row.tpb, row.cluster, row.grid, row.vecs_per_thread,
                row.pdl ? " pdl" : "", row.kernel_variant.c_str(), row.check.c_str(), row.kernel_us_median,
                row.kernel_us_ci_lo,
                row.kernel_us_ci_hi, row.kernel_us_p10, row.kernel_us_p90, row.iters, row.noise_pct,
                row.stop_reason.c_str(), settings.timed ? row.timing_source.c_str() : "untimed",
                row.skewfree_us_median, row.rank_spread_us_median, row.start_skew_us_median, row.graph_us_per_call,
                row.sm_clock_mhz_start, row.sm_clock_mhz_end, row.predicted_us, node.topology().c_str(),
                meaningful ? "" : " (timings NOT meaningful)");
  }
  std::vector<RatioRow> ratio_rows;
  if (settings.timed)
    for (size_t i = 1; i < ms.size(); ++i)
      ratio_rows.push_back(harness::ratio_row(ms[i], ms[0], settings.timing.stop.confidence));
  for (const RatioRow& r : ratio_rows)
    if (printer)
      std::printf("RATIO %s / %s = %.4f [%.4f, %.4f] (95 %% bootstrap CI over %d paired rounds, %s)\n",
                  r.numerator.c_str(), r.denominator.c_str(), r.ratio, r.ci_lo, r.ci_hi, r.rounds, r.figure.c_str());

  if (printer && !o.csv.empty()) {
    CsvAppender out(o.csv, measurement_header());
    for (const harness::Measurement& m : ms) out.append(to_cells(m.row));
    std::printf("  appended %zu row(s) to %s\n", ms.size(), o.csv.c_str());
  }
  if (printer && !o.ratios_csv.empty() && !ratio_rows.empty()) {
    CsvAppender out(o.ratios_csv, ratio_header());
    for (const RatioRow& r : ratio_rows) out.append(to_cells(r));
    std::printf("  appended %zu ratio row(s) to %s\n", ratio_rows.size(), o.ratios_csv.c_str());
  }
  if (!first_failure.empty() && throw_on_failure) throw std::runtime_error("correctness gate FAILED: " + first_failure);
  return ms;
}

// The nccl-tests-style table of a size sweep (process 0): per size and configuration, the headline
// time and skew-free time, its algorithm and bus bandwidth, and whether it failed the correctness
// gate (#wrong: 1 for a failed configuration).
struct SweepRow {
  int tokens = 0;
  double bytes = 0;
  std::string policy, config;
  double time_us = 0, skewfree_us = 0;
  int wrong = 0;
};

void print_sweep_table(const std::vector<SweepRow>& rows, int nranks) {
  std::printf("\n#  %8s %12s %-14s %-22s %10s %12s %12s %12s %7s\n", "tokens", "bytes", "policy", "config",
              "time(us)", "skewfree(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  for (const SweepRow& r : rows)
    std::printf("   %8d %12.0f %-14s %-22s %10.3f %12.3f %12.2f %12.2f %7d\n", r.tokens, r.bytes, r.policy.c_str(),
                r.config.c_str(), r.time_us, r.skewfree_us, harness::algbw_gbps(r.bytes, r.time_us),
                harness::busbw_gbps(r.bytes, r.time_us, nranks), r.wrong);
  std::printf("#  config: tpb/cluster/grid/vpt and the kernel; bytes: one rank's input (tokens x H x sizeof(T)); "
              "time: the headline (skew-free median where recorded); busbw = algbw x 2 (N - 1) / N\n");
}

// `--policy model` alone runs the model's own pick, algorithm included: the model searches one- and
// two-shot (model::model_algorithms) over the --kernel choice's variants (lean: one-shot only) and
// the run's problem takes the algorithm it chose (printed). With several --kernel choices the picks
// must agree on the algorithm to switch it. With other policies beside it, every configuration must
// share --algo (one algorithm per run) and a model pick of the other algorithm stays an error naming it.
Plan model_chosen_algorithm(const Plan& plan, const harness::Node& node) {
  if (plan.policies.size() != 1 || plan.policies.front() != model::Policy::model || !plan.shapes.empty() ||
      !plan.baselines.empty())
    return plan;
  // 64 registers: the __launch_bounds__(1024) cap (arlab predict's default); the runner's own count is used once
  // it exists, for the configuration itself.
  const model::KernelResources typical{64, 0};
  std::vector<Algorithm> picks;
  for (const KernelChoice& k : plan.kernels)
    picks.push_back(model::choose_launch_config(model::Policy::model, plan.problem, node.rank_spec(), typical,
                                                plan.calibration, nullptr, k.variants)
                        .algo);
  const Algorithm pick = picks.front();
  if (pick == plan.problem.algo || std::count(picks.begin(), picks.end(), pick) != static_cast<long>(picks.size()))
    return plan;
  Plan adjusted = plan;
  adjusted.problem.algo = pick;
  if (node.process_index() == 0)
    std::printf("  model: chose the %s algorithm for this problem (--algo %s); running its pick\n",
                to_string(pick), to_string(plan.problem.algo));
  return adjusted;
}

}  // namespace

// The runner on a node, then measure_and_report. A failure is handed to on_failure while the node
// and the runner still exist (the runner is held outside the try), so a handler that ends the
// process runs no destructor that would synchronize, free or wait for another process.
void run_on_node(const RunOptions& o, const Plan& plan, harness::Node& node, harness::CuptiKernelTimer* cupti_timer,
                 const std::string& cupti_note, const FailureHandler& on_failure) {
  std::unique_ptr<harness::FusedRunner> runner;
  try {
    const Plan adjusted = model_chosen_algorithm(plan, node);
    const Problem& p = adjusted.problem;
    node.check_fits(p);
    const int nsets = o.sets > 0 ? o.sets : harness::input_sets_for(p, node.device().spec.l2_bytes);
    runner = std::make_unique<harness::FusedRunner>(node, p, nsets, o.seed, plan.distribution);
    runner->inject(plan.fault);
    if (adjusted.sweep.empty()) {
      measure_and_report(o, adjusted, node, *runner, nsets, cupti_timer, cupti_note);
    } else {
      // One runner and workspace for the largest size; every size is its own interleaved group.
      std::vector<SweepRow> table;
      int wrong_total = 0;
      for (int tokens : adjusted.sweep) {
        Plan at = adjusted;
        at.problem.tokens = tokens;
        const std::vector<harness::Measurement> ms =
            measure_and_report(o, at, node, *runner, nsets, cupti_timer, cupti_note, false);
        // One table row per configuration of the group (nccl-tests prints one per size and operation).
        for (const harness::Measurement& m : ms) {
          SweepRow row;
          row.tokens = tokens;
          row.bytes = static_cast<double>(tokens) * p.hidden * dtype_bytes(p.dtype);
          row.policy = m.row.policy;
          row.config = std::to_string(m.row.tpb) + "/" + std::to_string(m.row.cluster) + "/" +
                       std::to_string(m.row.grid) + "/" + std::to_string(m.row.vecs_per_thread) + " " +
                       m.row.kernel_variant;
          row.time_us = std::isfinite(m.row.skewfree_us_median) ? m.row.skewfree_us_median : m.row.kernel_us_median;
          row.skewfree_us = m.row.skewfree_us_median;
          row.wrong = (m.checked && !m.gate.pass) ? 1 : 0;
          wrong_total += row.wrong;
          table.push_back(row);
        }
      }
      if (node.process_index() == 0) print_sweep_table(table, p.nranks);
      if (wrong_total > 0)
        throw std::runtime_error("correctness gate FAILED for " + std::to_string(wrong_total) +
                                 " configuration(s) of the size sweep (#wrong column)");
    }
  } catch (const std::exception& e) {
    if (on_failure) on_failure(e);
    throw;
  }
}

namespace {

#ifdef ARLAB_HAVE_MPI
// One process of the multi-process node. A failure in this process ends every process at once:
// the error is printed and MPI_Abort called where it is caught, before the node or the runner are
// destroyed, so the failure path holds no device synchronisation, no free and no barrier (the
// other processes may be waiting in a collective that this one will never join, and the GPU may
// be stuck). A DeviceTimeout reaches every process together (MpiNode::synchronize).
void run_mpi_process(const RunOptions& o, const Plan& plan, const harness::NodeOptions& nopt,
                     const harness::LaunchEnv& launch, const harness::MpiSession& mpi,
                     harness::CuptiKernelTimer* cupti_timer, const std::string& cupti_note) {
  const FailureHandler end_job = [&mpi](const std::exception& e) {
    std::fprintf(stderr, "arlab: error on MPI rank %d of %d: %s\n", mpi.rank(), mpi.size(), e.what());
    std::fflush(stderr);
    std::fflush(stdout);
    mpi.abort(2);
  };
  std::unique_ptr<harness::MpiNode> node;  // outside the try: a failure never destroys it
  try {
    const int local_rank = launch.local_rank >= 0 ? launch.local_rank : mpi.local_rank();
    node = std::make_unique<harness::MpiNode>(nopt, mpi, local_rank);
  } catch (const std::exception& e) {
    end_job(e);
  }
  run_on_node(o, plan, *node, cupti_timer, cupti_note, end_job);
}
#endif

void run_main(const RunOptions& o) {
  harness::request_device_connections();  // before the first CUDA call
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  if (o.registers) {
    harness::require_cuda_devices("arlab run --registers", -1);
    print_registers();
    return;
  }
  const Plan plan = make_plan(o);  // every option checked before any device is touched
  if (launch.world_rank == 0) print_plan(o, plan);
  if (!harness::is_multi_process(launch)) harness::require_cuda_devices("arlab run", o.device);

  // CUPTI before any context: activity tracing is best enabled before the context exists.
  std::unique_ptr<harness::CuptiKernelTimer> cupti;
  std::string cupti_note;
  if (!o.no_cupti && !o.timing.no_timing) {
    try {
      cupti = std::make_unique<harness::CuptiKernelTimer>();
    } catch (const std::exception& e) {
      cupti_note = std::string("CUPTI unavailable (") + e.what() + "); timing with CUDA events";
    }
  }

  harness::NodeOptions nopt;
  nopt.nranks = plan.problem.nranks;
  nopt.device = o.device;
  nopt.max_tokens = o.max_tokens > 0 ? o.max_tokens : plan.problem.tokens;
  nopt.max_hidden = plan.problem.hidden;
  nopt.max_elem_bytes = dtype_bytes(plan.problem.dtype);
  nopt.timeout_ms = o.timeout_ms;
  nopt.sms_per_rank = o.sms_per_rank;

  if (harness::is_multi_process(launch)) {
#ifdef ARLAB_HAVE_MPI
    harness::MpiSession mpi;  // outlives the node: MPI_Finalize after the IPC mappings are closed
    if (mpi.size() > 1) {
      run_mpi_process(o, plan, nopt, launch, mpi, cupti.get(), cupti_note);
      return;
    }
    // A launcher environment (e.g. an sbatch script's SLURM_NTASKS) but a one-process MPI world:
    // run the emulated node.
    harness::require_cuda_devices("arlab run", o.device);
#else
    throw std::runtime_error("this process was started by " + launch.launcher + " as rank " +
                             std::to_string(launch.world_rank) + " of " + std::to_string(launch.world_size) +
                             ", but this arlab was built without MPI (no MPI at configure time, or "
                             "-DARLAB_ENABLE_MPI=OFF); rebuild with libopenmpi-dev for the multi-process node");
#endif
  }
  harness::EmulatedNode node(nopt);
  run_on_node(o, plan, node, cupti.get(), cupti_note, FailureHandler{});
}

#else  // no CUDA

void run_main(const RunOptions& o) {
  const Plan plan = make_plan(o);  // the options are checked (and echoed) in every build
  if (harness::detect_launch(harness::process_env).world_rank == 0) print_plan(o, plan);
  throw std::runtime_error(
      "`arlab run` needs the GPU parts, and this arlab was built without CUDA (no nvcc at configure time, or "
      "-DARLAB_ENABLE_CUDA=OFF). Rebuild on a machine with the CUDA toolkit to run kernels.");
}

#endif

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "run one fused all-reduce problem under one or several configurations (emulated node on one GPU, or one "
      "rank per process under mpirun/srun): check every output, time them interleaved, append CSV rows");
  add_options(run, *opts);
  run->callback([opts]() { run_main(*opts); });
}

}  // namespace arlab::cli
