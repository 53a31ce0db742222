// The measuring session: the one layer that owns what every measuring command needs -- the device
// connections and CUPTI set up before any context, the choice of node (the emulated node on one GPU,
// or one rank per process when mpirun / srun started several processes: harness/launch_env.h), the
// failure handling of each (under MPI a failure ends every process at once), and the only CUDA /
// MPI conditional compilation of the CLI's path. The commands (cli/) check and echo their options,
// build a plan and call one of these entry points; a build without CUDA links session/no_gpu.cpp,
// whose entry points say that the command needs the GPU parts. Pure declarations.
#pragma once

#include <string>
#include <vector>

#include "calibrate/calibrate_core.h"
#include "experiments/exp_plan.h"
#include "harness/node_core.h"
#include "session/run_plan.h"

namespace arlab::session {

// True when this build has the GPU parts and a CUDA device is visible (false, never throwing, in a
// build without CUDA).
bool gpu_visible();

// `arlab run`: the plan's group on the node (a size sweep: one group per size): every member
// checked (the correctness gate), timed interleaved, one SUMMARY and RATIO line each, rows appended
// to plan.csv / plan.ratios_csv. Throws after writing the rows when a gate failed.
void run_measurements(const RunPlan& plan);

// `arlab run --registers`: registers, shared and local memory of every kernel instantiation.
void print_kernel_registers();

// `arlab exp NAME` on a GPU (and `arlab seed`'s measuring): every case of the experiment (this
// shard's) as one group on the node of its rank count, resuming from the rows already in csv_path.
struct ExpRequest {
  std::string name;
  std::string csv_path;      // measurement rows (appended; cases already in it are skipped)
  std::string ratios_path;   // one ratio row per member of a case against its first ("" : none)
  std::string output_dir;    // made (with its parents) once the node's GPU is found ("" : none)
  exp::Shard shard;
  std::vector<int> nranks = {2};  // emulated node: the rank counts; under mpirun: the world size
  bool quick = false;
  int max_configs = 0;
  RunPlan base;              // timing, inputs, calibration, node options shared by every case
};
struct ExpOutcome {
  std::vector<exp::ExpCase> cases;  // this shard's cases of every node that ran, in order
  model::GpuSpec rank_spec;         // what each rank's policy saw (the first rank count's)
  model::Calibration calibration;   // the cases' calibration: base's, or chosen for the node's GPU
  std::string calibration_source;   //   (RunPlan::calibration_for_gpu), and where it came from
  int run = 0, skipped = 0, gate_failures = 0;
  std::vector<std::string> refused;  // "case key: why" per case this node cannot run (no rows; not in `run`)
  double wall_s = 0, cases_s = 0;
  bool printer = true;              // this process prints and writes (process 0)
};
ExpOutcome run_experiment(const ExpRequest& request);

// `arlab calibrate`: the microbenchmarks; process 0 makes --out-dir (once a GPU is found) and writes
// microbench.csv and calibration.csv.
// Returns false when the benches finished but no calibration could be derived (or a cross-rank bench
// failed on the emulated node): microbench.csv then holds what was measured and the reason is printed.
bool run_calibration(const calibrate::CalibrateOptions& options);

// `arlab soak`: consecutive calls on the emulated node, each compared on the GPU.
struct SoakRequest {
  Problem problem;
  long long calls = 0;
  int max_tokens = 128;
  int sets = 4;
  unsigned long long seed = 1;
  int sync_every = 512;
  double timeout_ms = 2000;
  int device = 0;
  std::string csv;  // one soak row appended ("" : none)
};
void run_soak(const SoakRequest& request);

}  // namespace arlab::session
