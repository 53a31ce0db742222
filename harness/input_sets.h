// The largest number of input sets a fused runner rotates while timing (harness/fused_runner.h
// input_sets_for): a pure constant, so that `arlab run` checks --sets before any device is touched,
// in every build.
#pragma once

namespace arlab::harness {

// docs/measurement.md wants several input sets when the data fits in L2; 16 is the bound input_sets_for has
// always applied (moved here unchanged from harness/fused_runner.h).
constexpr int kMaxInputSets = 16;

}  // namespace arlab::harness
