// The loop behind benches `block_reduce` and `cluster_sync`: one block per SM, every block running
// K block-wide float sums through the fused kernels' own cluster_sum (kernels/fused_epilogue.cuh:
// warp shuffles to lane 0, per-warp partials in shared memory, __syncthreads, warp 0 sums them;
// at cluster > 1 a cluster.sync and every block's total read through map_shared_rank). Each sum's
// input depends on the previous sum's result, so the reductions run one after another and none can
// be removed or hoisted. Block 0's thread 0 reads %globaltimer after a first (untimed) reduction
// and after the K-th; ns_per_op = interval / K.
#pragma once

#include <cooperative_groups.h>

#include "kernels/fused_epilogue.cuh"

namespace arlab::calibrate {
// Internal linkage: each bench file that includes this gets its own copy of the kernel.
namespace {

__global__ void __launch_bounds__(1024)
    reduce_loop_kernel(int k_ops, int cluster, float* sink, unsigned long long* times) {
  __shared__ kernels::EpilogueShared sh;
  // A small per-thread value; the 1e-9 feedback keeps the chain without overflowing.
  float v = 1.0f + static_cast<float>(threadIdx.x) * 1e-3f;
  float total = kernels::cluster_sum(v, sh, 0, cluster);  // untimed: every block of the cluster is in
  const unsigned long long t0 = kernels::global_timer_ns();
  for (int k = 0; k < k_ops; ++k) {
    v = v + total * 1e-9f;
    total = kernels::cluster_sum(v, sh, (k + 1) & 1, cluster);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    sink[0] = total;  // waits for the last sum
    const unsigned long long t1 = kernels::global_timer_ns();
    times[0] = t0;
    times[1] = t1;
  }
  // The last iteration's remote reads (map_shared_rank) must finish before any block of the
  // cluster exits and its shared memory goes away.
  if (cluster > 1) cooperative_groups::this_cluster().sync();
}

}  // namespace
}  // namespace arlab::calibrate
