// The launch configuration of one fused all-reduce kernel call: produced by the policies in
// model/, consumed verbatim by the host launchers in kernels/ (which never compute it), echoed and
// recorded by harness/. Plain data; legality is checked by model::check_legal.
#pragma once

#include <string>
#include <vector>

#include "common/problem.h"

namespace arlab {

// How one call is executed: arlab's fused kernel, or a baseline of two steps -- an all-reduce, then
// arlab's separate residual-add + RMSNorm (+ FP8/NVFP4) kernel (kernels/norm_kernel.cuh), which
// computes the same epilogue as the fused kernels and passes the same gate. `unfused` runs arlab's
// all-reduce-only kernel (pattern ar, the configuration's algorithm and launch shape) as the first
// step; `nccl` runs ncclAllReduce (one GPU per rank only: NCCL refuses two ranks on one GPU).
enum class Implementation { fused, unfused, nccl };

inline const char* to_string(Implementation i) {
  return i == Implementation::fused ? "fused" : i == Implementation::unfused ? "unfused" : "nccl";
}
inline Implementation parse_implementation(const std::string& s) {
  if (s == "fused") return Implementation::fused;
  if (s == "unfused") return Implementation::unfused;
  if (s == "nccl") return Implementation::nccl;
  throw InvalidArgument("unknown implementation '" + s + "' (expected fused, unfused or nccl)");
}

// Which kernel body runs a fused call of the one-shot algorithm (issue 13, `--kernel NAME`):
//   reference  kernels/oneshot_kernel.cuh: the peer library's design (push to every rank's buffer,
//              own slot included; a separate -0.0 clear pass; poll every slot) -- the seed
//              experiment's subject, kept as it is;
//   lean       kernels/oneshot_lean_kernel.cuh: the same Lamport buffers and launch shapes, with the
//              own slice added from registers (never pushed or polled), the polled slots cleared as
//              they are consumed (no clear pass), the arrival atomic off the block's critical path
//              and the epilogue's operands (residual, gamma) loaded before the poll.
// Two-shot calls and baselines run the reference bodies only.
enum class KernelVariant { reference, lean };

inline const char* to_string(KernelVariant v) { return v == KernelVariant::reference ? "reference" : "lean"; }
inline KernelVariant parse_kernel_variant(const std::string& s) {
  if (s == "reference") return KernelVariant::reference;
  if (s == "lean") return KernelVariant::lean;
  throw InvalidArgument("unknown kernel variant '" + s + "' (expected reference or lean)");
}
inline std::vector<KernelVariant> all_kernel_variants() { return {KernelVariant::reference, KernelVariant::lean}; }

struct LaunchConfig {
  int tpb = 0;               // threads per block
  int cluster = 1;           // thread-block cluster size (1, 2, 4 or 8)
  int grid = 0;              // blocks in the grid (a multiple of cluster)
  int vecs_per_thread = 1;   // 16-byte vectors each thread covers per token: ceil(H/VEC / (tpb*cluster))
  Algorithm algo = Algorithm::oneshot;
  bool pdl = false;          // programmatic dependent launch
  // fused: the fields above configure the fused kernel; unfused: they configure the all-reduce-only
  // kernel (the separate norm kernel takes model::separate_norm_config); nccl: tpb/cluster/grid are 0.
  Implementation impl = Implementation::fused;
  KernelVariant variant = KernelVariant::reference;  // fused one-shot calls only (reference otherwise)
};

inline std::string to_string(const LaunchConfig& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) +
         " vpt=" + std::to_string(c.vecs_per_thread) + " " + to_string(c.algo) + (c.pdl ? " pdl" : "") +
         (c.impl == Implementation::fused ? "" : std::string(" ") + to_string(c.impl)) +
         (c.variant == KernelVariant::reference ? "" : std::string(" ") + to_string(c.variant));
}

inline bool operator==(const LaunchConfig& a, const LaunchConfig& b) {
  return a.tpb == b.tpb && a.cluster == b.cluster && a.grid == b.grid && a.vecs_per_thread == b.vecs_per_thread &&
         a.algo == b.algo && a.pdl == b.pdl && a.impl == b.impl &&
         a.variant == b.variant;
}
inline bool operator!=(const LaunchConfig& a, const LaunchConfig& b) { return !(a == b); }

}  // namespace arlab
