// Measured calls, the way `arlab run` and the experiments record them: the correctness gate on
// every output of every rank (outputs poisoned first), the docs/measurement.md timings (harness/timing.h:
// gated isolated calls behind a host hold, noise-based stopping, several configurations
// interleaved round by round; graph-captured back-to-back calls), the model's prediction, and the
// tidy CSV row (common/measurement_schema.h) with its provenance columns (clocks, link).
// Collective on a multi-process node: every process calls it; rows are complete on process 0.
#pragma once

#include <string>
#include <vector>

#include "common/launch_config.h"
#include "common/measurement_schema.h"
#include "common/ratio_schema.h"
#include "common/problem.h"
#include "harness/fused_runner.h"
#include "harness/node.h"
#include "harness/nvml.h"
#include "harness/timing.h"
#include "model/calibration.h"
#include "reference/compare.h"

namespace arlab::harness {

class CuptiKernelTimer;

struct MeasureSettings {
  TimingOptions timing;
  bool timed = true;        // false: gate only (no timing)
  bool check = true;        // run the correctness gate
  std::string experiment = "run";
  std::string link;         // the CSV link column (node_link); empty: "local" / "unknown"
  std::string input_distribution;  // the CSV input_distribution / input_seed columns: what the runner generated
  std::string input_seed;
};

// One member of a measured group: the policy label its row carries ("trtllm", "model/lean"), a
// note on how the policy chose (the row's policy_note: the model's search space), and the call
// FusedRunner::prepare validated (its algorithm may differ from the other members').
struct Candidate {
  std::string policy;
  std::string policy_note;
  CheckedCall call;
};

struct Measurement {
  MeasurementRow row;
  bool checked = false;
  ref::GateReport gate;
  TimingReport timing;      // valid when settings.timed
  double graph_us = 0;      // NaN when not measured
  double predicted_us = 0;  // NaN when the model cannot predict the configuration
  std::string prediction_note;  // why there is no prediction
};

// Checks every candidate, then times them all interleaved (one group), then predicts each. Throws
// DeviceTimeout on a device fault (the node is re-initialized first); a failed gate is reported in
// the result (check = "fail"), not thrown.
std::vector<Measurement> measure_group(FusedRunner& runner, const std::vector<Candidate>& group,
                                       const model::Calibration& cal, const MeasureSettings& settings,
                                       CuptiKernelTimer* cupti, const GpuClocks* clocks);

// One candidate.
Measurement measure_call(FusedRunner& runner, const Candidate& candidate, const model::Calibration& cal,
                         const MeasureSettings& settings, CuptiKernelTimer* cupti, const GpuClocks* clocks);

// Collective: the link the node's peer traffic crosses, for the CSV: "local" on one GPU (the
// emulated node, or processes sharing a GPU), else "nvlink" when every pair of the node's GPUs
// has an NVLink path, "pcie" when some pair has only PCIe P2P, "unknown" when NVML cannot tell.
std::string node_link(const Node& node, const Nvml& nvml);

// One line of warnings about a measurement, empty when there is none: noise target missed, clocks
// that moved by more than 5 % between the start and the end.
std::string measurement_warnings(const Measurement& m, double max_noise);

// The ratio row of `numerator` over `denominator`, two members of one measured group.
RatioRow ratio_row(const Measurement& numerator, const Measurement& denominator, double confidence);

}  // namespace arlab::harness
