// `arlab calibrate`: the microbenchmarks of calibrate/ (calibrate/README.md), each measuring one
// hardware quantity the timing model uses, never the fused kernel, run by the measuring session
// (session/session.h run_calibration) on the emulated node or, started by mpirun / srun as one of
// several processes, one rank per process. Every option is checked and the configuration echoed
// before any device is touched; without a GPU the command says so plainly. When the derivation (or
// a cross-rank bench on the emulated node) fails, microbench.csv is still written and the command
// exits with code 1.
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

#include "session/session.h"

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

// Exit code of a run whose benches finished but whose calibration could not be derived (or whose
// cross-rank benches failed on the emulated node): microbench.csv holds what was measured.
constexpr int kIncompleteExitCode = 1;

void calibrate_main(const CalibrateOptions& o) {
  const harness::LaunchEnv launch = harness::detect_launch(harness::process_env);
  const bool multi = harness::is_multi_process(launch);
  calibrate::check_calibrate_options(o);  // every option checked before any device is touched
  if (multi && o.ranks_given && o.ranks != launch.world_size)
    throw InvalidArgument("--ranks = " + std::to_string(o.ranks) + " but " + launch.launcher + " started " +
                          std::to_string(launch.world_size) + " processes (one rank per process): give -n " +
                          std::to_string(launch.world_size) + " or leave it out");
  if (launch.world_rank == 0) print_plan(o, launch);
  if (!session::run_calibration(o)) throw CLI::RuntimeError(kIncompleteExitCode);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* sub = app.add_subcommand(
      "calibrate", "microbenchmarks that set the timing model's constants (launch, the last stores' drain, load "
                   "latency, bandwidth, clear, reductions, atomics, epilogue math and rounds of 1-4 vectors per "
                   "thread (the ar round's too; the NVFP4 and FP8 rounds; the NVFP4 round at an odd block size; the NVFP4 and RMSNorm rounds of 2 and 4 vectors on blocks of 16-32 warps), each one-shot body's round at 2, 4 and 8 ranks (warm, with 2 and 4 vectors also on blocks of 16-32 warps, at 2 ranks also on 2-16 blocks and at 1, 2 and 4 blocks per SM in one pass (both one-shot bodies, the two-shot rounds), with its polls from DRAM, after 0-4 x L2 bytes written between, on the emulated node at N with every partition running it at once, with the FP8 epilogue, with the ar pattern at 2, 4 and 8 ranks, and with the NVFP4 epilogue at 2 ranks), the lean two-shot body's owner and reader rounds at 2, 4 and 8 ranks (apart, and in one run in the fused kernel's order) and the reference two-shot's epilogue round (each with the ar_res_rms and the ar epilogue, alone and with every partition running it), cross-rank stores and flags, one exchange round among 2 .. N ranks and between 2 ranks "
                   "with grids of 1-256 blocks (up to 4 per SM); and, checked against the model, where clusters land; and, as a record, "
                   "the path from launch to the first store (a control word's read, operand loads, a block barrier), "
                   "the push step on 1-32 blocks, the epilogue rounds at 4 and 12 rounds per cluster, one cluster "
                   "exchange per launch and one round between 2 ranks on one cluster of 1-8 blocks with and without "
                   "the exchange after it, the read, write "
                   "and copy rates over buffers that stay in L2, the read and write rates over the fused kernels' rows "
                   "(H 6784-8192, one vector per thread, packed and padded to 4 KB), and, on the emulated node, the "
                   "read, write and copy rates of one partition, and its row rates, while every partition streams the "
                   "same kind): "
                   "writes OUT_DIR/microbench.csv and the derived "
                   "OUT_DIR/calibration.csv (emulated node, or one rank per process under mpirun)");
  sub->add_option("--out-dir", o->out_dir, "directory of microbench.csv and calibration.csv (created when missing)")
      ->capture_default_str()
      ->check(non_empty_path());
  CLI::Option* ranks = sub->add_option("-n,--ranks", o->ranks, "ranks of the node (under mpirun: the process count); the exchange bench runs among 2, 4, .. of "
                                       "them, so -n 8 measures the model's ranks term")
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
