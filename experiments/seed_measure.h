// GPU half of the seed experiment: runs every seed case on the emulated node (TP ranks as
// green-context SM partitions of one GPU), each one checked against the CPU reference and timed as
// `arlab run` does, and appends one measurement row per case to a CSV. Built with CUDA only.
#pragma once

#include <string>

#include "experiments/seed_cases.h"

namespace arlab::seed {

struct MeasureOptions {
  int device = 0;
  int warmup = 20;
  int iters = 200;
  int graph_calls = 64;
  int graph_reps = 10;
  unsigned long long seed = 1;
  double timeout_ms = 2000;
  std::string calibration;  // model calibration CSV for predicted_us ("" = defaults)
};

// True when this build has the GPU parts and a CUDA device is visible.
bool gpu_available();

// Measures every case of the sweep; returns the number of rows whose correctness check failed.
int measure_seed(const SeedSweep& sweep, const MeasureOptions& opt, const std::string& csv_path);

}  // namespace arlab::seed
