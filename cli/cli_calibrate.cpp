// `arlab calibrate`: the microbenchmarks of calibrate/ (calibrate/README.md), each measuring one
// hardware quantity the timing model uses, never the fused kernel. On the emulated node (one GPU,
// one green-context partition per rank) or, started by mpirun / srun as one of several processes,
// as one rank per process (harness/mpi_node.h; failures end every process at once, as `arlab run`
// does). The single-rank benches run on rank 0's stream while the other ranks idle (except the
// `_busy` bandwidth variants), then the cross-rank benches run between ranks 0 and 1. Process 0
// fills the provenance columns, writes <out-dir>/microbench.csv (atomically), derives the model's
// constants from those rows (model::derive_calibration) into <out-dir>/calibration.csv and prints
// the derivation's notes. Every option is checked and the configuration echoed before any device is
// touched; without a GPU the command says so plainly. When the derivation (or a cross-rank bench
// on the emulated node) fails, microbench.csv is still written and the command exits with code 1.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/calibrate_core.h"
#include "cli/cli_checks.h"
#include "cli/commands.h"
#include "common/build_info.h"
#include "common/csv.h"
#include "common/microbench_schema.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "harness/launch_env.h"
#include "model/calibration.h"
#include "model/calibration_derive.h"

#ifdef ARLAB_HAVE_CUDA
#include "calibrate/cross_rank_benches.h"
#include "calibrate/single_rank_benches.h"
#include "harness/cupti_timer.h"
#include "harness/device_query.h"
#include "harness/emulated_node.h"
#include "harness/measurement.h"
#include "harness/nvml.h"
#ifdef ARLAB_HAVE_MPI
#include "harness/mpi_node.h"
#include "harness/mpi_session.h"
#endif
#endif

namespace arlab::cli {
namespace {

using calibrate::CalibrateOptions;

void print_plan(const CalibrateOptions& o, const harness::LaunchEnv& launch) {
  std::printf("arlab calibrate: %s; %s; git %s\n", calibrate::describe(o).c_str(),
              harness::is_multi_process(launch)
                  ? ("one rank per process (" + launch.launcher + ", " + std::to_string(launch.world_size) +
                     " processes)").c_str()
                  : "emulated node (one green-context partition per rank)",
              arlab::git_sha());
  const calibrate::CalibrateOutputs out = calibrate::calibrate_outputs(o.out_dir);
  std::printf("  outputs: %s, %s\n", out.microbench_csv.c_str(), out.calibration_csv.c_str());
  std::fflush(stdout);
}

#ifdef ARLAB_HAVE_CUDA

// Exit code of a run whose benches finished but whose calibration could not be derived (or whose
// cross-rank benches failed on the emulated node): microbench.csv holds what was measured.
constexpr int kIncompleteExitCode = 1;

// Process 0, after every bench: provenance, microbench.csv, the derivation, calibration.csv.
// `failure` (non-empty) is a bench failure to report after the measured rows are written.
void write_outputs(const CalibrateOptions& o, std::vector<MicrobenchRow>& rows, const calibrate::Provenance& prov,
                   const model::GpuSpec& spec, const std::string& failure) {
  const calibrate::CalibrateOutputs out = calibrate::calibrate_outputs(o.out_dir);
  calibrate::fill_provenance(rows, prov);
  write_csv_file(out.microbench_csv, microbench_header(), [&](std::ostream& os) {
    for (const MicrobenchRow& r : rows) os << csv_join(to_cells(r)) << '\n';
  });
  std::printf("  wrote %zu microbenchmark rows to %s\n", rows.size(), out.microbench_csv.c_str());
  if (!failure.empty()) {
    std::fprintf(stderr, "arlab calibrate: error: %s\n  (%s holds the rows measured before it; no calibration "
                         "derived)\n", failure.c_str(), out.microbench_csv.c_str());
    throw CLI::RuntimeError(kIncompleteExitCode);
  }
  model::DerivedCalibration derived;
  try {
    derived = model::derive_calibration(rows, spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arlab calibrate: error: no calibration derived from %s: %s\n", out.microbench_csv.c_str(),
                 e.what());
    throw CLI::RuntimeError(kIncompleteExitCode);
  }
  model::save_calibration(derived.calibration, out.calibration_csv,
                          calibrate::calibration_source(prov, out.microbench_csv));
  for (const std::string& note : derived.notes) std::printf("  %s\n", note.c_str());
  std::printf("  wrote the calibration to %s\n", out.calibration_csv.c_str());
}

using FailureHandler = std::function<void(const std::exception&)>;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every process: the benches (process 0 runs the single-rank ones), then process 0 writes the
// outputs. A failure is handed to on_failure (under MPI: print and end the job) while the node still
// exists. On the emulated node (no handler) a cross-rank failure still lets the measured rows be
// written.
void run_on_node(const CalibrateOptions& o, harness::Node& node, harness::CuptiKernelTimer* cupti,
                 const std::string& cupti_note, const FailureHandler& on_failure) {
  const bool printer = node.process_index() == 0;
  std::vector<MicrobenchRow> rows;
  std::string link, failure;
  const auto started = std::chrono::steady_clock::now();
  try {
    const harness::Nvml nvml;
    link = harness::node_link(node, nvml);  // collective under MPI
    if (printer) {
      std::printf("  device: %s (%d SMs), driver %s, CUDA runtime %s\n", node.device().name.c_str(),
                  node.device().spec.sm_count, node.device().driver.c_str(), node.device().runtime.c_str());
      std::printf("  node: %s; link %s; kernel durations from %s\n", node.describe().c_str(), link.c_str(),
                  cupti ? "CUPTI records" : cupti_note.c_str());
      std::fflush(stdout);
      calibrate::BenchEnv env;
      env.rank = node.local_ranks().front();
      env.stream = node.rank(env.rank).stream();
      env.sms = node.sms_per_rank();
      env.device = &node.device();
      env.cupti = cupti;
      // --quick caps the repetitions only: derive_calibration needs every point of the full lists
      // (a reduced list left constants underivable: the quick GPU test failed on it).
      env.quick = false;
      env.reps = calibrate::effective_reps(o);
      env.timeout_ns = node.timeout_ns();
      if (node.topology() == "emulated" && node.nranks() >= 2) {
        env.busy_rank = 1;
        env.busy_stream = node.rank(1).stream();
        env.busy_sms = node.sms_per_rank();
      }
      calibrate::run_single_rank_benches(env, node.nranks(), rows);
    }
    node.allgather({0.0});  // every process waits here until process 0's single-rank benches are done
  } catch (const std::exception& e) {
    if (on_failure) on_failure(e);
    throw;
  }
  const auto cross_start = std::chrono::steady_clock::now();
  const size_t before = rows.size();
  try {
    calibrate::CrossRankOptions cro;
    cro.quick = false;  // as env.quick above: --quick caps the repetitions only
    cro.reps = calibrate::effective_reps(o);
    cro.cupti = cupti;
    calibrate::run_cross_rank_benches(node, cro, rows);
    if (printer)
      std::printf("  cross-rank benches %3zu points  %6.2f s\n", rows.size() - before, seconds_since(cross_start));
  } catch (const std::exception& e) {
    if (on_failure) on_failure(e);
    failure = std::string("cross-rank benches failed: ") + e.what();
  }
  if (!printer) return;
  std::printf("  all benches: %zu points in %.1f s\n", rows.size(), seconds_since(started));
  const calibrate::Provenance prov{arlab::git_sha(), arlab::utc_now_iso8601(), node.device().name, node.topology(),
                                   link, node.nranks(), node.sms_per_rank()};
  write_outputs(o, rows, prov, node.rank_spec(), failure);
}

#ifdef ARLAB_HAVE_MPI
// One process of the multi-process node, with `arlab run`'s failure handling (cli/cli_run.cpp
// run_mpi_process): a failure is printed and MPI_Abort called where it is caught, before the node is
// destroyed, so no destructor synchronizes, frees or waits for another process.
void run_mpi_process(const CalibrateOptions& o, const harness::NodeOptions& nopt, const harness::LaunchEnv& launch,
                     const harness::MpiSession& mpi, harness::CuptiKernelTimer* cupti, const std::string& cupti_note) {
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
  run_on_node(o, *node, cupti, cupti_note, end_job);
}
#endif

void calibrate_main(const CalibrateOptions& o) {
  harness::request_device_connections();  // before the first CUDA call
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  const bool multi = harness::is_multi_process(launch);
  calibrate::check_calibrate_options(o);  // every option checked before any device is touched
  if (multi && o.ranks_given && o.ranks != launch.world_size)
    throw InvalidArgument("--ranks = " + std::to_string(o.ranks) + " but " + launch.launcher + " started " +
                          std::to_string(launch.world_size) + " processes (one rank per process): give -n " +
                          std::to_string(launch.world_size) + " or leave it out");
  if (launch.world_rank == 0) {
    calibrate::prepare_outputs(o);
    print_plan(o, launch);
  }
  if (!multi) harness::require_cuda_devices("arlab calibrate", o.device);

  // CUPTI before any context, as `arlab run` does.
  std::unique_ptr<harness::CuptiKernelTimer> cupti;
  std::string cupti_note;
  try {
    cupti = std::make_unique<harness::CuptiKernelTimer>();
  } catch (const std::exception& e) {
    cupti_note = std::string("CUDA events (CUPTI unavailable: ") + e.what() + ")";
  }

  harness::NodeOptions nopt;
  nopt.nranks = o.ranks;
  nopt.device = o.device;
  nopt.timeout_ms = o.timeout_ms;
  nopt.sms_per_rank = o.sms_per_rank;
  if (multi) {
#ifdef ARLAB_HAVE_MPI
    harness::MpiSession mpi;  // outlives the node: MPI_Finalize after the IPC mappings are closed
    if (mpi.size() > 1) {
      nopt.nranks = mpi.size();
      run_mpi_process(o, nopt, launch, mpi, cupti.get(), cupti_note);
      return;
    }
    // A launcher environment but a one-process MPI world: the emulated node.
    harness::require_cuda_devices("arlab calibrate", o.device);
#else
    throw std::runtime_error("this process was started by " + launch.launcher + " as rank " +
                             std::to_string(launch.world_rank) + " of " + std::to_string(launch.world_size) +
                             ", but this arlab was built without MPI; rebuild with libopenmpi-dev for the "
                             "multi-process node");
#endif
  }
  harness::EmulatedNode node(nopt);
  run_on_node(o, node, cupti.get(), cupti_note, FailureHandler{});
}

#else  // no CUDA

void calibrate_main(const CalibrateOptions& o) {
  calibrate::check_calibrate_options(o);
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  if (launch.world_rank == 0) print_plan(o, launch);
  throw std::runtime_error("`arlab calibrate` needs the GPU parts, and this arlab was built without CUDA (no nvcc at "
                           "configure time, or -DARLAB_ENABLE_CUDA=OFF)");
}

#endif

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* sub = app.add_subcommand(
      "calibrate", "microbenchmarks that set the timing model's constants (launch, load latency, bandwidth, clear, "
                   "reductions, atomics, epilogue math, cross-rank stores and flags): writes OUT_DIR/microbench.csv "
                   "and the derived OUT_DIR/calibration.csv (emulated node, or one rank per process under mpirun)");
  sub->add_option("--out-dir", o->out_dir, "directory of microbench.csv and calibration.csv (created when missing)")
      ->capture_default_str()
      ->check(non_empty_path());
  CLI::Option* ranks = sub->add_option("-n,--ranks", o->ranks, "ranks of the node (under mpirun: the process count)")
                           ->capture_default_str()
                           ->check(integer_in(calibrate::kMinRanks, calibrate::kMaxRanks));
  sub->add_option("--device", o->device, "CUDA device ordinal (emulated node; under mpirun/srun: local rank % devices)")
      ->capture_default_str()
      ->check(int_at_least(0));
  sub->add_option("--sms-per-rank", o->sms_per_rank, "SMs per rank partition (0: largest equal split)")
      ->capture_default_str()
      ->check(int_at_least(0));
  sub->add_flag("--quick", o->quick, "at most 5 repetitions per point, every point kept (2.5 s on an H200 at 7d4709b; the GPU test)");
  sub->add_option("--timeout-ms", o->timeout_ms, "bound of every device spin-wait")
      ->capture_default_str()
      ->check(finite_in(0, calibrate::kMaxTimeoutMs, /*lo_open=*/true));
  sub->add_option("--reps", o->reps, "repetitions behind each point's median / p10 / p90 (--quick: at most 5)")
      ->capture_default_str()
      ->check(integer_in(calibrate::kMinReps, calibrate::kMaxReps));
  sub->callback([o, ranks] {
    o->ranks_given = ranks->count() > 0;
    calibrate_main(*o);
  });
}

}  // namespace arlab::cli
