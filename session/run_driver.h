// Running a RunPlan's group on an open node (CUDA builds only): what `arlab run` does for each size
// and `arlab exp` for each case. Every member's configuration is chosen (policies, explicit shapes,
// baselines), prepared once by the runner (its algorithm may differ from the others': the model's
// pick runs as chosen), checked by the correctness gate, timed interleaved, predicted; process 0
// prints SUMMARY and RATIO lines and appends the rows.
#pragma once

#include <string>
#include <vector>

#include "harness/fused_runner.h"
#include "harness/measurement.h"
#include "harness/node.h"
#include "session/run_plan.h"

namespace arlab::harness {
class CuptiKernelTimer;
}

namespace arlab::session {

// The group of plan.entries at plan.problem on `runner`, measured and reported. Returns the
// measurements (in entry order). A failed gate is reported and the rows written; it throws
// (std::runtime_error "correctness gate FAILED: ...") only when throw_on_failure.
std::vector<harness::Measurement> measure_plan_group(const RunPlan& plan, harness::FusedRunner& runner,
                                                     harness::CuptiKernelTimer* cupti, const std::string& cupti_note,
                                                     bool throw_on_failure);

// The runner for plan.problem (plan.sets input sets, or enough to exceed 2x L2) on `node`, then every
// size of the plan (a size sweep: one group per size, then the nccl-tests-style table). Collective.
void run_plan_on_node(const RunPlan& plan, harness::Node& node, harness::CuptiKernelTimer* cupti,
                      const std::string& cupti_note);

}  // namespace arlab::session
