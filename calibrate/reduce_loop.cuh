// The loops behind benches `block_reduce` and `cluster_sync`: one block per SM, every block running
// K block-wide float sums through the fused kernels' own cluster_sum (kernels/fused_epilogue.cuh:
// warp shuffles to lane 0, per-warp partials in shared memory, __syncthreads, warp 0 sums them;
// at cluster > 1 a cluster.sync and every block's total read through map_shared_rank). Each sum's
// input depends on the previous sum's result, so the reductions run one after another and none can
// be removed or hoisted. Block 0's thread 0 reads %globaltimer after a first (untimed) reduction
// and after the K-th; ns_per_op = interval / K. pushed_reduce_loop_kernel: the lean kernel's pushed
// cluster exchange instead of cluster_sum (bench cluster_sync, variant pushed).
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

// The same chain of sums through the lean kernel's pushed exchange (kernels/fused_epilogue.cuh
// cluster_sum_pushed: each block's one-barrier block sum pushed into the other blocks' shared memory,
// then a wait on its own mbarrier) at clusters of 2..kMaxPushedClusterSize blocks of whole warps. `p` carries
// only what the exchange reads: the fault word and the bound of its spin (a stuck exchange records
// WaitKind::cluster_total there and the bench refuses the point). Token tags are the sum's index.
__global__ void __launch_bounds__(1024)
    pushed_reduce_loop_kernel(int k_ops, const __grid_constant__ kernels::FusedParams p, float* sink,
                              unsigned long long* times) {
  __shared__ kernels::EpilogueShared sh;
  const int cluster = p.cluster;
  const int block_in_cluster = static_cast<int>(blockIdx.x) % cluster;
  kernels::pushed_exchange_init(sh, cluster);
  kernels::pushed_exchange_ready(cluster);
  float v = 1.0f + static_cast<float>(threadIdx.x) * 1e-3f;
  float total = kernels::cluster_sum_pushed(v, sh, 0, cluster, block_in_cluster, 0, p);  // untimed
  const unsigned long long t0 = kernels::global_timer_ns();
  for (int k = 0; k < k_ops; ++k) {
    v = v + total * 1e-9f;
    total = kernels::cluster_sum_pushed(v, sh, k + 1, cluster, block_in_cluster, k + 1, p);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    sink[0] = total;
    const unsigned long long t1 = kernels::global_timer_ns();
    times[0] = t0;
    times[1] = t1;
  }
  // No closing barrier: no block reads another's shared memory (kernels/fused_epilogue.cuh).
}

// K bare cluster barriers, no sum and no shared-memory read: cooperative_groups' cluster.sync()
// (arrive with release semantics: on sm_90 a GPU-scope MEMBAR first; the reference kernel's closing
// barrier, the lean kernel's pushed-exchange start) or, with `relaxed`, the lean kernel's lifetime
// barrier (kernels/device_sync.cuh cluster_lifetime_barrier: a relaxed arrive, no MEMBAR).
__global__ void __launch_bounds__(1024) barrier_loop_kernel(int k_ops, bool relaxed, unsigned long long* times) {
  cooperative_groups::this_cluster().sync();  // untimed: every block of the cluster is in
  const unsigned long long t0 = kernels::global_timer_ns();
  for (int k = 0; k < k_ops; ++k) {
    if (relaxed) kernels::cluster_lifetime_barrier();
    else cooperative_groups::this_cluster().sync();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    times[0] = t0;
    times[1] = kernels::global_timer_ns();
  }
}

// ONE cluster exchange per launch, as a call of one token round runs it (bench cluster_sync, `first_*`
// variants; the loops above time an exchange among many in a warm chain, with the first one untimed). The
// launch's duration is the figure, so each mode is a kernel of the same shape and the differences between
// modes are what the exchange adds to a call:
//   kFirstNone          the block sum alone (cluster_sum at cluster 1: warp shuffles, __syncthreads), whatever
//                       the launch's cluster size: the baseline
//   kFirstSum           the reference's exchange: cluster_sum (the block sum, cluster.sync, every block's total
//                       read through distributed shared memory), then the relaxed lifetime barrier that the
//                       reference kernel closes with (kernels/oneshot_kernel.cuh)
//   kFirstPushedStart   the lean kernel's pushed-exchange start (pushed_exchange_init: mbarrier init, a relaxed
//                       cluster arrive; pushed_exchange_ready: its wait), then the block sum alone
//   kFirstPushed        the same start, then the pushed exchange itself (cluster_sum_pushed); no closing barrier
// Block b's total goes to sink[b], so no sum can be dropped; `p` carries the cluster size and what the pushed
// exchange's bounded wait reads (the fault word, the timeout).
enum FirstExchangeMode : int { kFirstNone = 0, kFirstSum = 1, kFirstPushedStart = 2, kFirstPushed = 3 };

__global__ void __launch_bounds__(1024)
    first_exchange_kernel(int mode, const __grid_constant__ kernels::FusedParams p, float* sink) {
  __shared__ kernels::EpilogueShared sh;
  const int cluster = p.cluster;
  const bool pushed = mode == kFirstPushedStart || mode == kFirstPushed;
  if (pushed) kernels::pushed_exchange_init(sh, cluster);
  const float v = 1.0f + static_cast<float>(threadIdx.x) * 1e-3f + static_cast<float>(blockIdx.x);
  float total;
  if (mode == kFirstSum) {
    total = kernels::cluster_sum(v, sh, 0, cluster);
  } else if (mode == kFirstPushed) {
    kernels::pushed_exchange_ready(cluster);
    total = kernels::cluster_sum_pushed(v, sh, 0, cluster, static_cast<int>(blockIdx.x) % cluster, 0, p);
  } else {
    if (pushed) kernels::pushed_exchange_ready(cluster);
    total = kernels::cluster_sum(v, sh, 0, 1);
  }
  if (threadIdx.x == 0) sink[blockIdx.x] = total;
  // The reference's close: its blocks' totals were read through distributed shared memory, so no block may
  // leave before every block of its cluster is done reading (kernels/oneshot_kernel.cuh).
  if (mode == kFirstSum && cluster > 1) kernels::cluster_lifetime_barrier();
}

}  // namespace
}  // namespace arlab::calibrate
