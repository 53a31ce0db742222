// The limits every launch configuration obeys, shared by the kernels (their __launch_bounds__, the
// two-shot workspace's barrier flags) and model/ (legality, policies, candidate space), so that the
// configurations the model allows and the ones the kernels can run are the same by definition.
#pragma once

#include "common/host_device.h"

namespace arlab {

// CUDA's block-size limit; every kernel is built with __launch_bounds__(kMaxThreadsPerBlock), so
// any legal block size launches.
constexpr int kMaxThreadsPerBlock = 1024;

// Two-shot barrier-flag slots per (rank, peer) in the workspace (kernels/twoshot_layout.h): block b
// of a two-shot grid uses slot b, so a two-shot grid has at most this many blocks.
constexpr int kMaxTwoShotBlocks = 1024;

// Largest thread-block cluster a launch configuration may use: the portable cluster size of sm_90
// (CUDA programming guide, "Thread Block Clusters"); model/legality.cpp's rule 1 and the lean
// kernel's per-block exchange slots (kernels/fused_epilogue.cuh) are sized by it.
constexpr int kMaxClusterSize = 8;

// Largest cluster whose blocks the lean kernels let push their RMSNorm totals into each other's
// shared memory instead of meeting at cluster barriers (kernels/fused_epilogue.cuh
// pushed_exchange_applies; model/oneshot_model.cpp follows it): every cluster size. With tagged
// stores and a spin on each slot in turn (until 2026-12-03) pushing was 3-10 % slower than the
// barriers at clusters of 8 (each block waited for 7 stores one after another), so the limit was 4;
// with st.async into an mbarrier (one wait for all 7), lean at clusters of 8 moved by -1.6 % to +9.0 %
// against the reference of its group, more than 2 % faster at 9 of 11 configurations of the emulated
// H200 probe (docs/kernels.md, "The cluster exchange through mbarriers").
constexpr int kMaxPushedClusterSize = 8;

// Whether the lean kernel pushes its cluster's RMSNorm totals (rather than meeting at cluster
// barriers) for blocks of `tpb` threads in clusters of `cluster`: 2..kMaxPushedClusterSize blocks of
// whole warps (32 threads; the pushed sum needs every warp full). The one rule the kernel
// (kernels/fused_epilogue.cuh) and the model (model/oneshot_model.cpp) both follow.
ARLAB_HD constexpr bool lean_pushes_cluster_totals(int cluster, int tpb) {
  return cluster > 1 && cluster <= kMaxPushedClusterSize && tpb % 32 == 0;
}

}  // namespace arlab
