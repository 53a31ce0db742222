// The launch configuration of one fused all-reduce kernel call: produced by the policies in
// model/, consumed verbatim by the host launchers in kernels/ (which never compute it), echoed and
// recorded by harness/. Plain data; legality is checked by model::check_legal.
#pragma once

#include <string>
#include <vector>

#include "common/implementations.h"
#include "common/problem.h"

namespace arlab {

struct LaunchConfig {
  int tpb = 0;               // threads per block
  int cluster = 1;           // thread-block cluster size (1, 2, 4 or 8)
  int grid = 0;              // blocks in the grid (a multiple of cluster)
  int vecs_per_thread = 1;   // 16-byte vectors each thread covers per token: ceil(H/VEC / (tpb*cluster))
  Algorithm algo = Algorithm::oneshot;
  bool pdl = false;          // programmatic dependent launch
  // What runs (common/implementations.h): a fused kernel body, whose kernel the fields above
  // configure, or a baseline -- unfused: they configure its all-reduce-only kernel (the separate norm
  // kernel takes model::separate_norm_config); nccl: tpb/cluster/grid are 0.
  Impl impl = Impl::reference;
  // A measured row of the one-shot reference body from before its control block lost its fences
  // (model/measurements.cpp kFenceFreeReferenceSince): the model predicts the design that ran then
  // (the arrival's fence + atomic round trip + fence on the path before the push, gamma loaded
  // after the reduction). Never set for a configuration that is launched.
  bool fenced_reference = false;
  // A measured row of the one-shot reference body from before its closing cluster barrier became a
  // relaxed arrive (model/measurements.cpp kRelaxedExitReferenceSince, a160fc2): it closed with
  // cluster.sync(), whose release arrive waits for the outputs just stored; the model predicts that
  // close for such rows. Never set for a configuration that is launched.
  bool release_exit_reference = false;
};

inline std::string to_string(const LaunchConfig& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) +
         " vpt=" + std::to_string(c.vecs_per_thread) + " " + to_string(c.algo) + (c.pdl ? " pdl" : "") +
         (c.impl == Impl::reference ? "" : std::string(" ") + to_string(c.impl)) +
         (c.fenced_reference ? " (fenced, measured before the fence-free reference)" : "") +
         (c.release_exit_reference && !c.fenced_reference ? " (closing cluster.sync, measured before the relaxed close)"
                                                           : "");
}

inline bool operator==(const LaunchConfig& a, const LaunchConfig& b) {
  return a.tpb == b.tpb && a.cluster == b.cluster && a.grid == b.grid && a.vecs_per_thread == b.vecs_per_thread &&
         a.algo == b.algo && a.pdl == b.pdl && a.impl == b.impl && a.fenced_reference == b.fenced_reference &&
         a.release_exit_reference == b.release_exit_reference;
}
inline bool operator!=(const LaunchConfig& a, const LaunchConfig& b) { return !(a == b); }

}  // namespace arlab
