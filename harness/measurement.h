// One measured call, the way `arlab run` and the experiments record it: the correctness gate on
// every output of every rank (outputs poisoned first), the DESIGN §6 timings (gated isolated calls:
// max over ranks, skew-free figure, spread; graph-captured back-to-back calls), the model's
// prediction, and the tidy CSV row (common/measurement_schema.h) with its provenance columns.
// Collective on a multi-process node: every process calls it; the row is complete on process 0.
#pragma once

#include <string>

#include "common/launch_config.h"
#include "common/measurement_schema.h"
#include "common/problem.h"
#include "harness/fused_runner.h"
#include "harness/node.h"
#include "harness/timing.h"
#include "model/calibration.h"
#include "reference/compare.h"

namespace arlab::harness {

class CuptiKernelTimer;

struct MeasureSettings {
  TimingOptions timing;     // timing.iters == 0: no timing; timing.graph_calls == 0: no graph timing
  bool check = true;        // run the correctness gate
  std::string experiment = "run";
  std::string policy;       // the policy label recorded in the row
};

struct Measurement {
  MeasurementRow row;
  bool checked = false;
  ref::GateReport gate;
  TimingReport timing;      // valid when settings.timing.iters > 0
  double graph_us = 0;      // NaN when not measured
  double predicted_us = 0;  // NaN when the model cannot predict the configuration
  std::string prediction_note;  // why there is no prediction
};

// Runs `call` with `cfg` on `runner`'s node. Throws DeviceTimeout on a device fault (the node is
// re-initialized first) and whatever the runner throws for an illegal call; a failed gate is
// reported in the result (check = "fail"), not thrown.
Measurement measure_call(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg,
                         const model::Calibration& cal, const MeasureSettings& settings, CuptiKernelTimer* cupti);

// ISO 8601 UTC time of now, as the CSV's date_utc column records it.
std::string utc_now_iso8601();

}  // namespace arlab::harness
