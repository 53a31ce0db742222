// GPU half of the seed experiment: runs every seed case on the emulated node (TP ranks as
// green-context SM partitions of one GPU), each one checked against the CPU reference and timed as
// `arlab run` does. All cases of one problem (the policies, and at the explicit-sweep token count
// every explicit configuration) are measured as one group, interleaved round by round, so their
// ratios are taken inside one process (harness/timing.h). Appends one measurement row per case
// to a CSV and one ratio row per case against trtllm to another. Built with CUDA only.
#pragma once

#include <string>
#include <vector>

#include "experiments/seed_cases.h"
#include "harness/timing_stats.h"

namespace arlab::seed {

struct MeasureOptions {
  int device = 0;
  harness::TimingOptions timing;
  unsigned long long seed = 1;
  double timeout_ms = 2000;
  std::string calibration;  // model calibration CSV for predicted_us ("" = defaults)
};

struct SeedRunResult {
  int measured = 0, refused = 0;
  std::vector<std::string> failed;  // one line per case that failed the correctness gate
};

// True when this build has the GPU parts and a CUDA device is visible.
bool gpu_available();

// Measures every case of the sweep into csv_path (measurement rows) and ratios_path (ratio rows).
SeedRunResult measure_seed(const SeedSweep& sweep, const MeasureOptions& opt, const std::string& csv_path,
                           const std::string& ratios_path);

}  // namespace arlab::seed
