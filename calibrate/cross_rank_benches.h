// The cross-rank microbenchmarks of `arlab calibrate` (calibrate/README.md): what one rank's SM
// stores and flags cost when another rank reads them -- over NVLink on a real node (one process per
// GPU under mpirun), through the same GPU's L2/HBM between two green-context partitions on the
// emulated node. They borrow the node's Lamport workspaces (already mapped into every rank) as
// scratch and re-initialize them before returning.
#pragma once

#include <vector>

#include "common/microbench_schema.h"
#include "harness/node.h"

namespace arlab::harness {
class CuptiKernelTimer;
}

namespace arlab::calibrate {

struct CrossRankOptions {
  bool quick = false;  // fewer sizes and repetitions (the GPU test)
  int reps = 20;       // repetitions behind each point's median / p10 / p90
  // The process's CUPTI timer when the caller holds one (CUPTI allows one per process); null: the
  // benches try to create their own.
  harness::CuptiKernelTimer* cupti = nullptr;
};

// Collective over the node's processes. Runs peer_store, ping_pong, poll and start_skew between
// rank 0 and rank 1 (the other ranks idle) and appends one row per point to `out` (in process 0;
// other processes append nothing). Provenance columns (git_sha, gpu, topology, link, ...) are left
// for the caller to fill.
void run_cross_rank_benches(harness::Node& node, const CrossRankOptions& options, std::vector<MicrobenchRow>& out);

}  // namespace arlab::calibrate
