// The limits every launch configuration obeys, shared by the kernels (their __launch_bounds__, the
// two-shot workspace's barrier flags) and model/ (legality, policies, candidate space), so that the
// configurations the model allows and the ones the kernels can run are the same by definition.
#pragma once

namespace arlab {

// CUDA's block-size limit; every kernel is built with __launch_bounds__(kMaxThreadsPerBlock), so
// any legal block size launches.
constexpr int kMaxThreadsPerBlock = 1024;

// Two-shot barrier-flag slots per (rank, peer) in the workspace (kernels/twoshot_layout.h): block b
// of a two-shot grid uses slot b, so a two-shot grid has at most this many blocks.
constexpr int kMaxTwoShotBlocks = 1024;

}  // namespace arlab
