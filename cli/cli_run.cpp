// `arlab run`: one fused problem x one launch-configuration policy (or an explicit configuration)
// on the emulated node (DESIGN §5) or, when the process was started by mpirun / srun as one of
// several (harness/launch_env.h), as one rank of the multi-process node (one process per GPU,
// workspaces shared through CUDA IPC, harness/mpi_node.h; process 0 prints and writes the CSV).
// It echoes its full configuration, runs the problem once with
// every output poisoned and checks every output of every rank against the CPU reference (the
// DESIGN §2 gate), times it as DESIGN §6 says (gated isolated calls: max over ranks, skew-free
// figure, spread; graph-captured back-to-back calls), prints a one-line summary, appends one tidy
// row to --csv (common/measurement_schema.h, predicted_us from model::predict) and exits non-zero
// when the check fails. `arlab run --registers` prints the registers of every kernel instantiation.
// In a build without CUDA the command exists, parses its options, and says it cannot run.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/build_info.h"
#include "common/launch_config.h"
#include "common/problem.h"
#include "cli/cli_config.h"
#include "cli/cli_problem.h"
#include "cli/commands.h"
#include "model/policies.h"

#ifdef ARLAB_HAVE_CUDA
#include <cuda_runtime.h>

#include "common/csv.h"
#include "common/measurement_schema.h"
#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/launch_env.h"
#include "harness/measurement.h"
#include "harness/timing.h"
#include "kernels/dispatch.h"
#include "model/calibration.h"
#include "model/legality.h"
#include "model/timing_model.h"
#include "reference/compare.h"
#include "reference/fused_reference.h"
#ifdef ARLAB_HAVE_MPI
#include "harness/mpi_node.h"
#include "harness/mpi_session.h"
#endif
#endif

namespace arlab::cli {
namespace {

struct RunOptions {
  ProblemOptions problem;
  std::string policy = "trtllm";
  ExplicitConfigOptions config;
  bool pdl = false;
  int warmup = 20;
  int iters = 200;
  int graph_calls = 64;
  int graph_reps = 10;
  int sets = 0;  // input sets (0: enough to exceed 2x L2)
  unsigned long long seed = 1;
  std::string distribution = "normal";
  int max_tokens = 0;  // workspace capacity (0: --tokens)
  double timeout_ms = 2000;
  int sms_per_rank = 0;
  int device = 0;
  std::string csv;
  std::string experiment = "run";
  std::string calibration;
  bool no_check = false;
  bool no_cupti = false;
  bool registers = false;
};

void add_options(CLI::App* run, RunOptions& o) {
  add_problem_options(run, o.problem);
  run->add_option("--policy", o.policy, "legacy, trtllm, occupancy, model or explicit")->capture_default_str();
  add_explicit_config_options(run, o.config);
  run->add_flag("--pdl", o.pdl, "programmatic dependent launch");
  run->add_option("-w,--warmup", o.warmup, "untimed warm-up calls")->capture_default_str();
  run->add_option("-i,--iters", o.iters, "timed isolated calls (0: no timing)")->capture_default_str();
  run->add_option("--graph-calls", o.graph_calls, "calls per captured CUDA graph (0: no graph timing)")
      ->capture_default_str();
  run->add_option("--graph-reps", o.graph_reps, "timed graph replays")->capture_default_str();
  run->add_option("--sets", o.sets, "input sets rotated while timing (0: enough to exceed 2x L2)")
      ->capture_default_str();
  run->add_option("--seed", o.seed, "input seed")->capture_default_str();
  run->add_option("--distribution", o.distribution, "normal, uniform or heavy_tailed")->capture_default_str();
  run->add_option("--max-tokens", o.max_tokens, "workspace capacity in tokens (0: --tokens)")->capture_default_str();
  run->add_option("--timeout-ms", o.timeout_ms, "bound of every device spin-wait")->capture_default_str();
  run->add_option("--sms-per-rank", o.sms_per_rank, "SMs per rank partition (0: largest equal split)")
      ->capture_default_str();
  run->add_option("--device", o.device, "CUDA device ordinal (emulated node; under mpirun/srun: local rank % devices)")
      ->capture_default_str();
  run->add_option("--csv", o.csv, "append one measurement row to this CSV file");
  run->add_option("--experiment", o.experiment, "experiment name recorded in the CSV row")->capture_default_str();
  run->add_option("--calibration", o.calibration, "model calibration CSV for predicted_us (default constants)");
  run->add_flag("--no-check", o.no_check, "skip the correctness gate");
  run->add_flag("--no-cupti", o.no_cupti, "time with CUDA events only");
  run->add_flag("--registers", o.registers, "print registers / shared / local memory of every kernel and exit");
}

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

// Everything after the node exists, the same on the emulated and the multi-process node: every
// process runs its ranks and joins the collectives; process 0 prints and writes the CSV row.
void run_on_node(const RunOptions& o, const Problem& p, model::Policy policy, harness::Node& node,
                 harness::CuptiKernelTimer* cupti_timer, const std::string& cupti_note) {
  const bool printer = node.process_index() == 0;
  node.check_fits(p);

  const int nsets = o.sets > 0 ? o.sets : harness::input_sets_for(p, node.device().spec.l2_bytes);
  harness::FusedRunner runner(node, p, nsets, o.seed, ref::parse_distribution(o.distribution));
  const model::Calibration cal =
      o.calibration.empty() ? model::default_calibration() : model::load_calibration(o.calibration);
  LaunchConfig given;
  if (policy == model::Policy::explicit_config) given = explicit_config(o.config, p);
  model::KernelResources base_res;
  base_res.regs_per_thread = runner.registers_per_thread();
  base_res.smem_per_block_bytes = runner.resources(LaunchConfig{}).smem_per_block_bytes;
  LaunchConfig cfg = model::choose_launch_config(policy, p, node.rank_spec(), base_res, cal,
                                                 policy == model::Policy::explicit_config ? &given : nullptr);
  cfg.pdl = o.pdl;
  if (cfg.algo != p.algo)
    throw InvalidArgument(std::string("policy ") + o.policy + " chose the " + to_string(cfg.algo) +
                          " algorithm for a " + to_string(p.algo) + " problem; run with --algo " + to_string(cfg.algo) +
                          " or pick another policy");
  runner.validate_call(p, cfg);
  const model::KernelResources res = runner.resources(cfg);

  if (printer) {
    std::printf("arlab run: %s tokens=%d H=%d N=%d %s %s acc=%s sf=%s eps=%g scale=%g seed=%llu dist=%s\n",
                to_string(p.algo), p.tokens, p.hidden, p.nranks, to_string(p.dtype), to_string(p.pattern),
                to_string(p.acc), to_string(p.sf_layout), static_cast<double>(p.eps), static_cast<double>(p.scale),
                o.seed, o.distribution.c_str());
    std::printf("  device: %s (%d SMs), driver %s, CUDA runtime %s, git %s\n", node.device().name.c_str(),
                node.device().spec.sm_count, node.device().driver.c_str(), node.device().runtime.c_str(),
                arlab::git_sha());
    std::printf("  node: %s; workspace %lld tokens, timeout %g ms\n", node.describe().c_str(),
                node.token_capacity(p.hidden, p.dtype), o.timeout_ms);
    std::printf("  kernel: %s, %d registers/thread, %d B shared/block\n", runner.kernel().name.c_str(),
                res.regs_per_thread, res.smem_per_block_bytes);
    std::printf("  policy %s -> tpb %d, cluster %d, grid %d, vpt %d%s\n", o.policy.c_str(), cfg.tpb, cfg.cluster,
                cfg.grid, cfg.vecs_per_thread, cfg.pdl ? ", pdl" : "");
    std::printf("  timing: warmup %d, iters %d, graph %d calls x %d replays, %d input sets, %s\n", o.warmup, o.iters,
                o.graph_calls, o.graph_reps, nsets,
                o.iters <= 0 ? "off" : (cupti_timer ? "cupti" : (cupti_note.empty() ? "events" : cupti_note.c_str())));
  }

  harness::MeasureSettings settings;
  settings.check = !o.no_check;
  settings.experiment = o.experiment;
  settings.policy = model::to_string(policy);
  settings.timing.warmup = o.warmup;
  settings.timing.iters = o.iters;
  settings.timing.graph_calls = o.iters > 0 ? o.graph_calls : 0;
  settings.timing.graph_reps = o.graph_reps;
  const harness::Measurement m = harness::measure_call(runner, p, cfg, cal, settings, cupti_timer);
  const bool timed = o.iters > 0;
  if (m.checked && (printer || !m.gate.pass))
    std::printf("  check%s: %s\n", printer ? "" : " (this process)", m.gate.summary().c_str());
  if (printer && timed && !m.timing.note.empty()) std::printf("  timing note: %s\n", m.timing.note.c_str());
  if (printer && !m.prediction_note.empty()) std::printf("  model: no prediction (%s)\n", m.prediction_note.c_str());

  const bool meaningful = node.timings_meaningful();
  if (printer && timed && !meaningful)
    std::printf("  WARNING: several processes share one GPU and time-slice it (no MPS): the times below are NOT "
                "kernel times; this run proves correctness only (CSV topology %s)\n", node.topology().c_str());
  const MeasurementRow& row = m.row;
  if (printer)
    std::printf("SUMMARY %s %s N=%d H=%d tokens=%d %s %s %s cfg=%d/%d/%d vpt=%d%s | check %s | kernel %.2f us "
              "(p10 %.2f p90 %.2f, %s) skew-free %.2f us spread %.2f us | graph %.2f us/call | model %.2f us | %s%s\n",
              to_string(p.algo), o.policy.c_str(), p.nranks, p.hidden, p.tokens, to_string(p.dtype),
              to_string(p.pattern), to_string(p.acc), cfg.tpb, cfg.cluster, cfg.grid, cfg.vecs_per_thread,
              cfg.pdl ? " pdl" : "", row.check.c_str(), row.kernel_us_median, row.kernel_us_p10, row.kernel_us_p90,
              timed ? row.timing_source.c_str() : "untimed", row.skewfree_us_median, row.rank_spread_us_median,
              row.graph_us_per_call, row.predicted_us, node.topology().c_str(),
              meaningful ? "" : " (timings NOT meaningful)");

  if (printer && !o.csv.empty()) {
    CsvAppender(o.csv, measurement_header()).append(to_cells(row));
    std::printf("  appended a row to %s\n", o.csv.c_str());
  }
  if (m.checked && !m.gate.pass) throw std::runtime_error("correctness gate FAILED: " + m.gate.first_failure);
}


void run_main(const RunOptions& o) {
  harness::request_device_connections();  // before the first CUDA call
  if (o.registers) {
    print_registers();
    return;
  }
  const Problem p = to_problem(o.problem);
  const model::Policy policy = model::parse_policy(o.policy);
  if (policy != model::Policy::explicit_config && o.config.any_given())
    throw InvalidArgument("--tpb / --cluster / --grid / --vpt need --policy explicit (got --policy " + o.policy + ")");
  if (o.max_tokens < 0) throw InvalidArgument("--max-tokens = " + std::to_string(o.max_tokens) + " must be >= 0");
  if (o.max_tokens > 0 && p.tokens > o.max_tokens)
    throw InvalidArgument("tokens = " + std::to_string(p.tokens) + " exceeds the workspace capacity of " +
                          std::to_string(o.max_tokens) + " tokens (--max-tokens)");

  // CUPTI first: activity tracing is best enabled before the context exists.
  std::unique_ptr<harness::CuptiKernelTimer> cupti;
  std::string cupti_note;
  if (!o.no_cupti && o.iters > 0) {
    try {
      cupti = std::make_unique<harness::CuptiKernelTimer>();
    } catch (const std::exception& e) {
      cupti_note = std::string("CUPTI unavailable (") + e.what() + "); timing with CUDA events";
    }
  }

  harness::NodeOptions nopt;
  nopt.nranks = p.nranks;
  nopt.device = o.device;
  nopt.max_tokens = o.max_tokens > 0 ? o.max_tokens : p.tokens;
  nopt.max_hidden = p.hidden;
  nopt.max_elem_bytes = dtype_bytes(p.dtype);
  nopt.timeout_ms = o.timeout_ms;
  nopt.sms_per_rank = o.sms_per_rank;

  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  if (harness::is_multi_process(launch)) {
#ifdef ARLAB_HAVE_MPI
    harness::MpiSession mpi;  // outlives the node: MPI_Finalize after the IPC mappings are closed
    if (mpi.size() > 1) {
      try {
        const int local_rank = launch.local_rank >= 0 ? launch.local_rank : mpi.local_rank();
        harness::MpiNode node(nopt, mpi, local_rank);
        run_on_node(o, p, policy, node, cupti.get(), cupti_note);
      } catch (const std::exception& e) {
        // The other processes would wait for this one in their next collective: end them all.
        std::fprintf(stderr, "arlab: error on MPI rank %d of %d: %s\n", mpi.rank(), mpi.size(), e.what());
        std::fflush(stderr);
        mpi.abort(2);
      }
      return;
    }
    // A launcher environment (e.g. an sbatch script's SLURM_NTASKS) but a one-process MPI world:
    // run the emulated node.
#else
    throw std::runtime_error("this process was started by " + launch.launcher + " as rank " +
                             std::to_string(launch.world_rank) + " of " + std::to_string(launch.world_size) +
                             ", but this arlab was built without MPI (no MPI at configure time, or "
                             "-DARLAB_ENABLE_MPI=OFF); rebuild with libopenmpi-dev for the multi-process node");
#endif
  }
  harness::EmulatedNode node(nopt);
  run_on_node(o, p, policy, node, cupti.get(), cupti_note);
}

#else  // no CUDA

void run_main(const RunOptions&) {
  throw std::runtime_error(
      "`arlab run` needs the GPU parts, and this arlab was built without CUDA (no nvcc at configure time, or "
      "-DARLAB_ENABLE_CUDA=OFF). Rebuild on a machine with the CUDA toolkit to run kernels.");
}

#endif

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "run one fused all-reduce problem (emulated node on one GPU, or one rank per process under mpirun/srun): "
      "check every output, time it, append a CSV row");
  add_options(run, *opts);
  run->callback([opts]() { run_main(*opts); });
}

}  // namespace arlab::cli
