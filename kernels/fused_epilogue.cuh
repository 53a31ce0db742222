// The parts of the fused kernels that do not depend on how the all-reduce moves data (docs/operation.md,
// §3), shared by the one-shot (kernels/oneshot_kernel.cuh) and two-shot (kernels/twoshot_kernel.cuh)
// kernel bodies so both compute bit-identical outputs:
//  * the thread mapping: a cluster covers one token, thread t of the cluster handles the vectors
//    t + k * (tpb * cluster), k < vecs_per_thread, that are < H / VEC;
//  * the sum in rank order 0..N-1 (pairwise: round to T after every add; fp32_acc: round once);
//  * the per-token epilogue: residual add, RMSNorm with the sum of squares reduced in the block and
//    across the cluster through distributed shared memory, IEEE division and square root
//    (__fdiv_rn, __fsqrt_rn; no rsqrtf, no fast-math), FP8 e4m3 through the toolkit's cuda_fp8.h
//    conversion, NVFP4 e2m1 through kernels/e2m1.h (the toolkit's rounding, without its software
//    path through double on sm_90) and the LINEAR / SWIZZLED 128x4 scale-factor layouts.
// The epilogue takes the all-reduced sum of a vector from a caller-supplied functor: the one-shot
// kernel polls its Lamport buffer there, the two-shot kernel reads its reduced comm buffer.
#pragma once

#include <cooperative_groups.h>
#include <cuda_fp8.h>

#include "common/launch_limits.h"
#include "common/problem.h"
#include "kernels/device_sync.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/e2m1.h"
#include "kernels/fused_params.h"

namespace arlab::kernels {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = kMaxThreadsPerBlock / kWarpSize;
constexpr float kFp4Max = 6.0f;            // largest e2m1 magnitude (docs/operation.md: sf = e4m3(S*amax/6))

// Shared memory of the epilogue's reductions.
struct EpilogueShared {
  float warp_partial[2][kMaxWarps];  // [token parity][warp]
  float block_total[2];              // [token parity], read by the other blocks of the cluster
  // The lean kernel's pushed exchange (cluster_sum_pushed): [round parity][source block] = the
  // source block's total, tagged with the token, stored here by the source block with st.async, and
  // the mbarrier of each parity that those stores complete.
  unsigned long long pushed_total[2][kMaxClusterSize];
  unsigned long long pushed_bar[2];
#if ARLAB_PROBE_LIBRARY_NORM
  float scale[2];  // [token parity]: the norm's scale, block_scale_by_thread0 (probe builds only)
#endif
};

// Lanes of this thread's warp that exist: 32, or fewer in the last warp of a block whose size is
// not a multiple of 32.
__device__ __forceinline__ unsigned lanes_in_my_warp() {
  const unsigned warp = threadIdx.x / kWarpSize;
  return min(static_cast<unsigned>(kWarpSize), blockDim.x - warp * kWarpSize);
}

// The __shfl_*_sync member mask of the first `lanes` lanes of a warp.
__device__ __forceinline__ unsigned lane_mask(unsigned lanes) {
  return lanes >= static_cast<unsigned>(kWarpSize) ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
}

// Sum over the first `lanes` lanes of the warp, valid in lane 0. Lanes beyond `lanes` do not exist
// (the last warp of a block whose size is not a multiple of 32); their shuffle results are ignored.
// A whole warp (the common case, warp-uniform) takes the full mask and adds every step: the same adds in
// the same order, so the same bits, without the partial warp's member checks and predicated adds (a
// run-time mask made nvcc check the warp's convergence before the shuffles: docs/kernels.md, "The
// reference at one token: issue time").
__device__ __forceinline__ float warp_sum_to_lane0(float v, unsigned lanes) {
  if (lanes >= static_cast<unsigned>(kWarpSize)) {
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, m);
    return v;
  }
  const unsigned mask = lane_mask(lanes);
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) {
    const float other = __shfl_xor_sync(mask, v, m);
    if ((lane ^ static_cast<unsigned>(m)) < lanes) v += other;
  }
  return v;
}

// Sum of v over the block, the same value in every thread, with one barrier (whole warps only):
// after the barrier every warp reduces the warps' partials itself, exactly as warp 0 does in
// cluster_sum (the same lanes, values and shuffle tree; lane 0's result broadcast), so every warp
// gets the bits warp 0 would. warp_partial is double-buffered by `parity`: the next write to this
// parity (two tokens later) is behind the next token's barrier, which every reader has passed.
__device__ __forceinline__ float block_sum_every_warp(float v, EpilogueShared& sh, int parity) {
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned nwarps = blockDim.x >> 5;
  v = warp_sum_to_lane0(v, kWarpSize);
  if (lane == 0) sh.warp_partial[parity][warp] = v;
  __syncthreads();
  float b = lane < nwarps ? sh.warp_partial[parity][lane] : 0.0f;
  b = warp_sum_to_lane0(b, min(32u, blockDim.x));
  return __shfl_sync(0xFFFFFFFFu, b, 0);
}

// The blocks' totals of a cluster of C blocks (`total` in each block's shared memory), loaded together and
// summed in block order from 0.0f.
template <int C>
__device__ __forceinline__ float sum_cluster_totals(cooperative_groups::cluster_group& cl, float& total) {
  float totals[C];
#pragma unroll
  for (int r = 0; r < C; ++r) totals[r] = *cl.map_shared_rank(&total, r);
  float sum = 0.0f;
#pragma unroll
  for (int r = 0; r < C; ++r) sum += totals[r];
  return sum;
}

// Sum of v over every thread of the cluster, the same value in every thread (fixed order: warps of
// a block by index, blocks of the cluster by rank). `parity` alternates per token so that one
// barrier per token suffices (block_total is double-buffered for the remote readers).
//
// kOneBarrier (the lean kernel), cluster == 1 and whole warps only: block_sum_every_warp, so the
// block needs no second barrier and gets the same bits.
template <bool kOneBarrier = false>
__device__ __forceinline__ float cluster_sum(float v, EpilogueShared& sh, int parity, int cluster) {
  if (kOneBarrier && cluster == 1 && blockDim.x % kWarpSize == 0) return block_sum_every_warp(v, sh, parity);
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned nwarps = (blockDim.x + 31u) >> 5;
  v = warp_sum_to_lane0(v, lanes_in_my_warp());
  if (lane == 0) sh.warp_partial[parity][warp] = v;
  __syncthreads();
  if (warp == 0) {
    float b = lane < nwarps ? sh.warp_partial[parity][lane] : 0.0f;
    b = warp_sum_to_lane0(b, min(32u, blockDim.x));
    if (lane == 0) sh.block_total[parity] = b;
  }
  if (cluster == 1) {
    __syncthreads();
    return sh.block_total[parity];
  }
  namespace cg = cooperative_groups;
  cg::cluster_group cl = cg::this_cluster();
  cl.sync();
  // Every block's total loaded first (the distributed-shared-memory loads in flight together), then
  // summed in block order from 0.0f: the same bits as one load and add at a time. One unrolled copy per
  // cluster size (model/legality.h: 2, 4 or 8), so a cluster of 2 issues two loads, not eight predicated ones.
  switch (cluster) {
    case 2: return sum_cluster_totals<2>(cl, sh.block_total[parity]);
    case 4: return sum_cluster_totals<4>(cl, sh.block_total[parity]);
    default: return sum_cluster_totals<kMaxClusterSize>(cl, sh.block_total[parity]);
  }
}

#if ARLAB_PROBE_LIBRARY_NORM
// Probe build only (ARLAB_KERNEL_PROBE=library_norm, docs/kernels.md "The faithful reference"): the
// norm's scale as the library's block reduction makes it: the warp sums to shared memory, a barrier,
// warp 0 sums the partials into the block's total; in a cluster, a cluster barrier, then thread 0 alone
// loads the cluster's block totals (distributed shared memory) and sums them in block order; thread 0
// takes the mean and the scale (inv_of) BEFORE the last barrier, and every thread reads the scale after
// it. The default (cluster_sum) has every thread read the total(s) after the barrier and take the scale
// itself. The sums, their order and the scale's arithmetic are the default's, so the bits are too. (The
// library takes one more cluster barrier per token, before thread 0 overwrites its single total; the
// double-buffered totals here need none.)
template <typename InvOf>
__device__ __forceinline__ float block_scale_by_thread0(float v, EpilogueShared& sh, int parity, int cluster,
                                                        InvOf&& inv_of) {
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned nwarps = (blockDim.x + 31u) >> 5;
  v = warp_sum_to_lane0(v, lanes_in_my_warp());
  if (lane == 0) sh.warp_partial[parity][warp] = v;
  __syncthreads();
  if (warp == 0) {
    float b = lane < nwarps ? sh.warp_partial[parity][lane] : 0.0f;
    b = warp_sum_to_lane0(b, min(32u, blockDim.x));
    if (lane == 0) sh.block_total[parity] = b;
  }
  if (cluster > 1) cooperative_groups::this_cluster().sync();
  if (threadIdx.x == 0) {
    float total = sh.block_total[parity];
    if (cluster > 1) {
      cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
      total = 0.0f;
      for (int r = 0; r < cluster; ++r) total += *cl.map_shared_rank(&sh.block_total[parity], r);
    }
    sh.scale[parity] = inv_of(total);
  }
  __syncthreads();
  return sh.scale[parity];
}
#endif

// ---- The lean kernel's pushed cluster exchange (2..kMaxPushedClusterSize blocks of whole warps) ----
// cluster_sum needs two cluster barriers per call of the lean kernel's size (one per token, one
// before exit, so that no block leaves while another still reads its shared memory); each waits for
// every warp of every block of the cluster, and cooperative_groups' arrive is a release (on sm_90 a
// GPU-scope MEMBAR that first waits for the thread's outstanding global stores: the residual_out
// just written). The pushed exchange needs none: each block SENDS its total into every other
// block's shared memory with st.async (pushed_total[round parity][me], tagged with the token), which
// completes 8 bytes of transaction on the receiver's mbarrier of that parity; each block then waits
// on its OWN mbarrier until the other c - 1 totals are there (one arrival, by its thread 0, expecting
// 8 (c - 1) bytes). The sum runs over the blocks in rank order from 0.0f, as cluster_sum's does: the
// same bits.
//  * start: thread 0 initialises the two mbarriers and fences the initialisation for the cluster
//    (fence.mbarrier_init, no MEMBAR); every thread arrives on the cluster barrier, relaxed, and
//    waits on it before its first exchange, so no block's st.async can reach an uninitialised
//    barrier (pushed_exchange_init / pushed_exchange_ready).
//  * phases: round i (the i-th token of this block) uses barrier i % 2 in its phase (i / 2) % 2.
//    A block sends its round-(i+2) total only after it has received every total of round i+1, and
//    I send mine of round i+1 only after my round-i phase has completed and I have read its totals:
//    no transaction of a later round lands in the phase, or the slot, of an earlier one. A sender's
//    bytes may land before the receiver's thread 0 has arrived for the round (the tx-count goes
//    below zero for a while); the phase cannot complete before that arrival.
//  * lifetime: a block stores into another block only a total that block waits for before it can
//    finish that token, so the target is alive when the store lands, and no block reads another's
//    shared memory: no barrier before exit.
//  * bounded: the wait gives up after p.timeout_ns and records WaitKind::cluster_total with the first
//    block whose slot does not hold this token's tag (diagnostic only: a slot is never initialised,
//    so a stale word could match). It does not stop early on another thread's fault: every block
//    reaches every exchange (a block whose polls gave up still sends its total), so the total arrives
//    soon after and no store can land in a block that has exited.
// Until 2026-12-03 the totals went with st.relaxed.cluster stores, tagged, and each block spun on its
// slots one after another, after a release arrive (a MEMBAR) at its start (docs/kernels.md).

// Clusters of 2..kMaxPushedClusterSize blocks of whole warps (common/launch_limits.h).
__device__ __forceinline__ bool pushed_exchange_applies(int cluster) {
  return lean_pushes_cluster_totals(cluster, static_cast<int>(blockDim.x));
}

// Kernel start (all threads): thread 0 initialises my two barriers; every thread arrives, relaxed.
__device__ __forceinline__ void pushed_exchange_init(EpilogueShared& sh, int cluster) {
  if (!pushed_exchange_applies(cluster)) return;
  if (threadIdx.x == 0) {
    mbarrier_init(shared_address(&sh.pushed_bar[0]), 1u);
    mbarrier_init(shared_address(&sh.pushed_bar[1]), 1u);
    fence_mbarrier_init_cluster();
  }
  cluster_arrive_relaxed();
}

// Before the first exchange (all threads): every block of the cluster has initialised its barriers.
__device__ __forceinline__ void pushed_exchange_ready(int cluster) {
  if (pushed_exchange_applies(cluster)) cluster_wait_acquire();
}

// The cluster-wide sum of v in round `round` (0, 1, 2, ...: the block's token count so far; its
// parity is the `parity` of block_sum_every_warp) for token `tok`.
__device__ __forceinline__ float cluster_sum_pushed(float v, EpilogueShared& sh, int round, int cluster,
                                                    int block_in_cluster, int tok, const FusedParams& p) {
  const int parity = round & 1;
  const unsigned phase = static_cast<unsigned>(round >> 1) & 1u;
  const float mine = block_sum_every_warp(v, sh, parity);
  const unsigned bar = shared_address(&sh.pushed_bar[parity]);
  if (threadIdx.x == 0) mbarrier_arrive_expect_tx(bar, static_cast<unsigned>(sizeof(unsigned long long)) * (cluster - 1));
  if (static_cast<int>(threadIdx.x) < cluster && static_cast<int>(threadIdx.x) != block_in_cluster) {
    const unsigned long long tagged =
        (static_cast<unsigned long long>(static_cast<unsigned>(tok)) << 32) | __float_as_uint(mine);
    const unsigned target = threadIdx.x;
    st_async_u64(cluster_map_shared(shared_address(&sh.pushed_total[parity][block_in_cluster]), target), tagged,
                 cluster_map_shared(bar, target));
  }
  if (!mbarrier_try_wait_parity(bar, phase)) {
    const unsigned long long start = global_timer_ns();
    while (!mbarrier_try_wait_parity(bar, phase)) {
      if (global_timer_ns() - start > p.timeout_ns) {
        int missing = 0;
        for (int r = cluster - 1; r >= 0; --r)
          if (r != block_in_cluster && static_cast<unsigned>(sh.pushed_total[parity][r] >> 32) != static_cast<unsigned>(tok))
            missing = r;
        record_fault(p.fault, encode_fault(WaitKind::cluster_total, p.rank, missing, static_cast<int>(blockIdx.x), tok));
        break;
      }
    }
  }
  float total = 0.0f;
  for (int r = 0; r < cluster; ++r)
    total += r == block_in_cluster ? mine : __uint_as_float(static_cast<unsigned>(sh.pushed_total[parity][r]));
  return total;
}

// Barrier over the whole cluster (the block when there is no cluster).
__device__ __forceinline__ void cluster_barrier(int cluster) {
  if (cluster == 1) {
    __syncthreads();
  } else {
    cooperative_groups::this_cluster().sync();
  }
}

// Adds rank r's elements (raw vector `val`) to the running sum, in rank order: rank 0 starts the
// sum; pairwise rounds to T after every add, fp32_acc keeps fp32 until finish_rank_sum.
template <typename T, Accumulation A>
__device__ __forceinline__ void add_rank_contribution(float (&acc)[DTypeTraits<T>::kVec], const uint4& val,
                                                      bool first_rank) {
  using Tr = DTypeTraits<T>;
#pragma unroll
  for (int e = 0; e < Tr::kVec; ++e) {
    const float x = Tr::to_float(vec_get<T>(val, e));
    if (first_rank) {
      acc[e] = x;
    } else if constexpr (A == Accumulation::pairwise) {
      acc[e] = Tr::to_float(Tr::from_float(__fadd_rn(acc[e], x)));  // round to T after every add
    } else {
      acc[e] = __fadd_rn(acc[e], x);
    }
  }
}

// After the last rank: the sum as T-rounded values (fp32_acc rounds once here).
template <typename T, Accumulation A>
__device__ __forceinline__ void finish_rank_sum(float (&acc)[DTypeTraits<T>::kVec]) {
  using Tr = DTypeTraits<T>;
  if constexpr (A == Accumulation::fp32_acc) {
#pragma unroll
    for (int e = 0; e < Tr::kVec; ++e) acc[e] = Tr::to_float(Tr::from_float(acc[e]));  // round once
  }
}

// NVFP4 scale-factor offset of (token m, 16-element block k) in LINEAR or SWIZZLED 128x4 (docs/operation.md).
__device__ __forceinline__ long long sf_offset(bool swizzled, long long m, long long k, long long hidden) {
  if (!swizzled) return m * (hidden / 16) + k;
  const long long col_tiles = (hidden + 63) / 64;  // ceil(H/64): 4 blocks of 16 per 128x4 tile column
  return (m / 128) * (col_tiles * 512) + (k / 4) * 512 + (m % 32) * 16 + ((m % 128) / 32) * 4 + (k % 4);
}

__device__ __forceinline__ float e4m3_to_float(__nv_fp8_storage_t v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3)));
}

// This thread's place in the token mapping (see the file comment).
struct TokenMapping {
  int tpb = 0;
  int cluster = 1;
  int cluster_id = 0;
  int num_clusters = 0;
  int block_in_cluster = 0;
  int t_in_cluster = 0;
  int stride = 0;          // vector stride between a thread's k-th and (k+1)-th vector
  int vecs_per_thread = 0;
  int vecs_per_token = 0;
  long long row_bytes = 0;
};

// The block's place among the clusters of a one-dimensional grid, from the special registers (a block
// launched without a cluster is a cluster of one: %clusterid = %ctaid, %nclusterid = %nctaid,
// %cluster_ctarank = 0). They equal blockIdx.x / cluster, gridDim.x / cluster and blockIdx.x % cluster, but
// cost one register read each where the divisions by the run-time cluster size took about 40 instructions
// ahead of thread 0's control-block read (docs/kernels.md, "The reference at one token: issue time").
struct ClusterPlace {
  int cluster_id, num_clusters, block_in_cluster;
};
__device__ __forceinline__ ClusterPlace cluster_place() {
  unsigned id, count, rank;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(id));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(count));
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return {static_cast<int>(id), static_cast<int>(count), static_cast<int>(rank)};
}

template <typename T>
__device__ __forceinline__ TokenMapping token_mapping(const FusedParams& p) {
  TokenMapping m;
  m.tpb = static_cast<int>(blockDim.x);
  m.cluster = p.cluster;
  const ClusterPlace place = cluster_place();
  m.cluster_id = place.cluster_id;
  m.num_clusters = place.num_clusters;
  m.block_in_cluster = place.block_in_cluster;
  m.t_in_cluster = m.block_in_cluster * m.tpb + static_cast<int>(threadIdx.x);
  m.stride = m.tpb * m.cluster;
  m.vecs_per_thread = p.vecs_per_thread;
  m.vecs_per_token = p.hidden / DTypeTraits<T>::kVec;
  m.row_bytes = static_cast<long long>(p.hidden) * DTypeTraits<T>::kBytes;
  return m;
}

// Calls f(v, off) for each of this thread's vectors of the token whose row starts at byte `row`:
// v = t_in_cluster + k * stride for k < vecs_per_thread while v < vecs_per_token, off = its byte
// offset in the [tokens, H] tensors. The loop stays rolled (`#pragma unroll 1` keeps one copy of the
// heavy loop bodies, which is what holds the register count under the cap).
template <typename F>
__device__ __forceinline__ void for_each_my_vector(const TokenMapping& m, long long row, F&& f) {
#pragma unroll 1
  for (int k = 0; k < m.vecs_per_thread; ++k) {
    const int v = m.t_in_cluster + k * m.stride;
    if (v < m.vecs_per_token) f(v, row + static_cast<long long>(v) * kVectorBytes);
  }
}

// Which outputs a pattern writes (docs/operation.md table).
template <Pattern P>
struct PatternOutputs {
  static constexpr bool kResidual = P != Pattern::ar;
  static constexpr bool kNormOut =
      P == Pattern::ar_res_rms || P == Pattern::ar_res_rms_out_fp8 || P == Pattern::ar_res_rms_out_fp4;
  static constexpr bool kFp8 = P == Pattern::ar_res_rms_fp8 || P == Pattern::ar_res_rms_out_fp8;
  static constexpr bool kFp4 = P == Pattern::ar_res_rms_fp4 || P == Pattern::ar_res_rms_out_fp4;
};

// Quantization constants, read once per kernel: rcp = 1 / scale (FP8), S (NVFP4).
struct QuantScales {
  float fp8_rcp = 0.0f;
  float fp4_global = 0.0f;
};

// The scales from the loaded *p.scale (`scale`; any value where the pattern does not quantize).
template <Pattern P>
__device__ __forceinline__ QuantScales quant_scales_from(float scale) {
  QuantScales q;
  if constexpr (PatternOutputs<P>::kFp8) q.fp8_rcp = __fdiv_rn(1.0f, scale);  // once (docs/operation.md)
  if constexpr (PatternOutputs<P>::kFp4) q.fp4_global = scale;
  return q;
}

// *p.scale, loaded only where the pattern quantizes (0 elsewhere). Nothing waits for the load until
// quant_scales_from uses the value, so a kernel can issue it early.
template <Pattern P>
__device__ __forceinline__ float load_scale(const FusedParams& p) {
  if constexpr (PatternOutputs<P>::kFp8 || PatternOutputs<P>::kFp4) return *p.scale;
  return 0.0f;
}

template <Pattern P>
__device__ __forceinline__ QuantScales load_quant_scales(const FusedParams& p) {
  return quant_scales_from<P>(load_scale<P>(p));
}

// The fused epilogue of one token `tok` for this thread's vectors: residual add, RMSNorm, quant.
// sum_of(off, acc) must fill acc with the T-rounded all-reduced sum (as fp32 values) of the vector
// at byte offset `off` of the [tokens, H] tensors. Every thread of the cluster calls this for the
// same tokens in the same order (it contains cluster-wide barriers); idle threads join with 0.
// `round` counts the block's earlier calls in this kernel (0, 1, 2, ...): its parity picks the
// double-buffered shared memory of the reductions, and the pushed exchange its barrier phase.
//
// Register budget (64 per thread at 1024 threads): only the first vector's residual sum (h0) and
// norm (n0) stay in registers across the cluster barriers; the values of vectors k >= 1 are read
// back from residual_out, which this same thread has just written (program order makes its own
// stores visible to it; outputs never alias inputs).
//
// EpilogueOptions: a struct of five constants choosing how the epilogue runs. The reference
// kernels take ReferenceEpilogue, the behaviour described above; the lean one-shot kernel its own
// (kernels/oneshot_lean_kernel.cuh LeanEpilogueFor). (Until 2026-12-04 another, kHeldVectors, let
// the lean body at N = 2 keep its second vector's residual sum and gamma in registers too; under the
// 64-register cap that spilled 16-40 bytes, and one vector measured 0-6 % faster at every TP2
// configuration, 2 and 4 vectors per thread included: docs/kernels.md, "One held vector at N = 2".)
//   kGammaHeld    the caller loaded gamma of its first vector before the poll and passes it in `held`,
//                 so the norm loop does not wait for a load after the reduction
//   kLeanReduce   one block barrier per token where cluster_sum allows it (kOneBarrier), and the
//                 pushed cluster exchange (cluster_sum_pushed; the kernel calls pushed_exchange_init
//                 and pushed_exchange_ready) in clusters of 2-4 blocks of whole warps
//   kPow2Scale    the mean square as a multiplication by 1/H where H is a power of two (x / 2^k and
//                 x * 2^-k are the same correctly rounded real, so the bits are those of __fdiv_rn)
//   kFirstVectorReady  the norm's operands of the first vector (the residual sum and gamma, unpacked to
//                 fp32) made ready before the reduction's barriers, so that after the
//                 last barrier the first vector needs only its multiplications, packing and store (the
//                 library holds them the same way); the same arithmetic, so the same bits
//   kResidualHeld the caller loaded residual_in of its first vector of its first token (token
//                 m.cluster_id) at the kernel's start and passes it in `held` (the library's
//                 one-shot kernel does the same: its epilogue operands load beside the flag read)
// ReferenceEpilogue is the two-shot and unfused kernels'; the one-shot reference takes
// ReferenceOneshotEpilogue (gamma and residual of its first vector loaded before the flag read, as
// the library it reproduces does; kernels/oneshot_kernel.cuh).
// The lean bodies' kPow2Scale (kernels/oneshot_lean_kernel.cuh, kernels/twoshot_lean_kernel.cuh): on by
// default; off in the probe build ARLAB_KERNEL_PROBE=lean_divide, which divides at every H (docs/kernels.md,
// "The epilogue alone, profiled").
#if ARLAB_PROBE_LEAN_DIVIDE
inline constexpr bool kLeanPow2Scale = false;
#else
inline constexpr bool kLeanPow2Scale = true;
#endif
struct ReferenceEpilogue {
  static constexpr bool kGammaHeld = false;
  static constexpr bool kLeanReduce = false;
  static constexpr bool kPow2Scale = false;
  static constexpr bool kFirstVectorReady = true;
  static constexpr bool kResidualHeld = false;
};
struct ReferenceOneshotEpilogue {
  static constexpr bool kGammaHeld = true;
  static constexpr bool kLeanReduce = false;
  static constexpr bool kPow2Scale = false;
  static constexpr bool kFirstVectorReady = false;  // true spilled 8-16 bytes at N = 4 and 8 (64-register cap)
  static constexpr bool kResidualHeld = true;
};
struct HeldOperands {
  uint4 gamma0 = make_uint4(0u, 0u, 0u, 0u);
  uint4 residual0 = make_uint4(0u, 0u, 0u, 0u);  // kResidualHeld: residual_in of vector k = 0, token m.cluster_id
};
template <typename T, Pattern P, typename Options, typename SumOf>
__device__ __forceinline__ void fused_token_epilogue(const FusedParams& p, const TokenMapping& m, EpilogueShared& sh,
                                                     float* fp4_amax_exchange, const QuantScales& q, int tok,
                                                     int round, SumOf&& sum_of, const HeldOperands& held = {}) {
  constexpr bool kGammaHeld = Options::kGammaHeld;
  constexpr bool kLeanReduce = Options::kLeanReduce;
  using Tr = DTypeTraits<T>;
  using Out = PatternOutputs<P>;
  constexpr int kVec = Tr::kVec;
  static_assert(!Out::kFp4 || Tr::kBytes == 2, "NVFP4 patterns need a 16-bit T (docs/operation.md)");
  const int H = p.hidden;
  const int vpt = m.vecs_per_thread;
  const long long row = tok * m.row_bytes;
  const int parity = round & 1;  // the shared-memory buffers of this round's reductions

  uint4 h0 = make_uint4(0u, 0u, 0u, 0u);
  float sum_sq = 0.0f;
#pragma unroll 1
  for (int k = 0; k < vpt; ++k) {
    const int v = m.t_in_cluster + k * m.stride;
    if (v < m.vecs_per_token) {
      const long long off = row + static_cast<long long>(v) * kVectorBytes;
      uint4 res = make_uint4(0u, 0u, 0u, 0u);
      if constexpr (Out::kResidual)
        res = Options::kResidualHeld && k == 0 && tok == m.cluster_id
                  ? held.residual0
                  : ld_input_v4(static_cast<const char*>(p.residual_in) + off);
      float acc[kVec];
      sum_of(off, acc);
      unsigned bits[kVec];
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        if constexpr (Out::kResidual) {
          bits[e] = Tr::from_float(__fadd_rn(acc[e], Tr::to_float(vec_get<T>(res, e))));
          const float hv = Tr::to_float(bits[e]);
          // Square, round, then add: never one FMA, which nvcc's default -fmad=true would make of
          // `sum_sq += hv * hv` (the reference rounds the square; norm_ulp_tolerance assumes it).
          sum_sq = __fadd_rn(sum_sq, __fmul_rn(hv, hv));
        } else {
          bits[e] = Tr::from_float(acc[e]);
        }
      }
      const uint4 hk = vec_pack<T>(bits);
      if (k == 0) h0 = hk;
      st_v4(static_cast<char*>(Out::kResidual ? p.residual_out : p.allreduce_out) + off, hk);
    }
  }
  if constexpr (Out::kResidual) {
    // kFirstVectorReady: the first vector's norm operands unpacked while the reduction's barriers wait.
    [[maybe_unused]] const int v0 = m.t_in_cluster;
    [[maybe_unused]] const bool have0 = vpt > 0 && v0 < m.vecs_per_token;
    [[maybe_unused]] float h0f[kVec], g0f[kVec];
    if constexpr (Options::kFirstVectorReady) {
      const uint4 g = kGammaHeld ? held.gamma0
                                 : (have0 ? ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(v0) * kVectorBytes)
                                          : make_uint4(0u, 0u, 0u, 0u));
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        h0f[e] = Tr::to_float(vec_get<T>(h0, e));
        g0f[e] = Tr::to_float(vec_get<T>(g, e));
      }
    }
#if ARLAB_PROBE_LIBRARY_NORM
    // Probe build only (ARLAB_KERNEL_PROBE=library_norm): the scale below, taken by thread 0 before the
    // last barrier in the reference bodies (block_scale_by_thread0). The default's code is the #else
    // branch, kept as it was so that its machine code is unchanged.
    const bool h_pow2 = Options::kPow2Scale && (H & (H - 1)) == 0;
    auto inv_of = [&](float total) -> float {
      const float mean_sq = h_pow2 ? __fmul_rn(total, __frcp_rn(static_cast<float>(H)))
                                   : __fdiv_rn(total, static_cast<float>(H));
#if ARLAB_PROBE_RSQRT_NORM
      return rsqrtf(__fadd_rn(mean_sq, p.eps));
#else
      return __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(mean_sq, p.eps)));
#endif
    };
    const float inv = !kLeanReduce ? block_scale_by_thread0(sum_sq, sh, parity, m.cluster, inv_of)
                                   : inv_of(pushed_exchange_applies(m.cluster)
                                                ? cluster_sum_pushed(sum_sq, sh, round, m.cluster, m.block_in_cluster, tok, p)
                                                : cluster_sum<kLeanReduce>(sum_sq, sh, parity, m.cluster));
#else
    const float total = kLeanReduce && pushed_exchange_applies(m.cluster)
                            ? cluster_sum_pushed(sum_sq, sh, round, m.cluster, m.block_in_cluster, tok, p)
                            : cluster_sum<kLeanReduce>(sum_sq, sh, parity, m.cluster);
    const bool h_pow2 = Options::kPow2Scale && (H & (H - 1)) == 0;
    const float mean_sq = h_pow2 ? __fmul_rn(total, __frcp_rn(static_cast<float>(H)))
                                 : __fdiv_rn(total, static_cast<float>(H));
#if ARLAB_PROBE_RSQRT_NORM
    // Probe build only (ARLAB_KERNEL_PROBE=rsqrt_norm, docs/kernels.md "The faithful reference"): the
    // library's approximate reciprocal square root in place of the IEEE one below.
    const float inv = rsqrtf(__fadd_rn(mean_sq, p.eps));
#else
    const float inv = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(mean_sq, p.eps)));
#endif
#endif
    // norm of vector k: round_T((float(h) * inv) * float(gamma)), the same wherever it is recomputed
    auto norm_of = [&](int k, int v) -> uint4 {
      const long long off = row + static_cast<long long>(v) * kVectorBytes;
      const uint4 hk = k == 0 ? h0 : *reinterpret_cast<const uint4*>(static_cast<const char*>(p.residual_out) + off);
      const uint4 g = kGammaHeld && k == 0
                          ? held.gamma0
                          : ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(v) * kVectorBytes);
      unsigned nbits[kVec];
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        nbits[e] =
            Tr::from_float(__fmul_rn(__fmul_rn(Tr::to_float(vec_get<T>(hk, e)), inv), Tr::to_float(vec_get<T>(g, e))));
      return vec_pack<T>(nbits);
    };
    uint4 n0 = make_uint4(0u, 0u, 0u, 0u);
    // NVFP4, the largest magnitude of a norm vector (its half of a 16-element scale block).
    [[maybe_unused]] auto amax_of = [&](const uint4& nk) {
      float a = 0.0f;
#pragma unroll
      for (int e = 0; e < kVec; ++e) a = fmaxf(a, fabsf(Tr::to_float(vec_get<T>(nk, e))));
      return a;
    };
    // NVFP4, the codes and scale factor of vector k (index v) from its norm nk and its scale block's amax.
    [[maybe_unused]] auto fp4_codes = [&](int v, const uint4& nk, float block_amax) {
      const __nv_fp8_storage_t sf =
          __nv_cvt_float_to_fp8(__fdiv_rn(__fmul_rn(q.fp4_global, block_amax), kFp4Max), __NV_SATFINITE, __NV_E4M3);
      const float sf_value = e4m3_to_float(sf);
      const float out_scale = sf_value == 0.0f ? 0.0f : __fdiv_rn(q.fp4_global, sf_value);
      unsigned packed = 0;
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const unsigned code = e2m1_code(__fmul_rn(Tr::to_float(vec_get<T>(nk, e)), out_scale));
        packed |= (code & 0xFu) << (4 * e);  // even element in the low nibble
      }
      char* qo = static_cast<char*>(p.quant_out) + static_cast<long long>(tok) * (H / 2) +
                 static_cast<long long>(v) * (kVec / 2);
      *reinterpret_cast<unsigned*>(qo) = packed;
      if ((v & 1) == 0) static_cast<unsigned char*>(p.scale_out)[sf_offset(p.sf_swizzled != 0, tok, v / 2, H)] = sf;
    };
    // NVFP4 with an even tpb: a 16-element scale block is vectors (2j, 2j+1), and vector v^1 lives in
    // lane^1 of the same warp at the same k. So each vector's codes follow its amax at once, after one
    // shuffle that every lane of the warp takes (idle vectors with amax 0), while its norm is still in
    // registers. (Until session 40 every amax came first and a second pass recomputed each norm of
    // k >= 1, reading residual_out and gamma again: docs/kernels.md, "NVFP4's further vectors".)
    [[maybe_unused]] const bool fp4_pairs_in_warp = m.tpb % 2 == 0;
    // With an odd tpb (below) the amax goes to shared memory instead, for after the cluster barrier.
    [[maybe_unused]] auto fp4_vector = [&](int k, int v, bool valid, const uint4& nk) {
      const float a = valid ? amax_of(nk) : 0.0f;
      if (fp4_pairs_in_warp) {
        const float partner = __shfl_xor_sync(lane_mask(lanes_in_my_warp()), a, 1);
        if (valid) fp4_codes(v, nk, fmaxf(a, partner));
      } else {
        fp4_amax_exchange[k * m.tpb + threadIdx.x] = a;
      }
    };
    if constexpr (Options::kFirstVectorReady) {
      // The outputs of vector k (index v, byte offset off) from its norm nk.
      auto emit = [&](int k, int v, long long off, const uint4& nk) {
        if constexpr (Out::kNormOut) st_v4(static_cast<char*>(p.norm_out) + off, nk);
        if constexpr (Out::kFp8) {
          unsigned codes[kVec];
#pragma unroll
          for (int e = 0; e < kVec; ++e)
            codes[e] =
                __nv_cvt_float_to_fp8(__fmul_rn(Tr::to_float(vec_get<T>(nk, e)), q.fp8_rcp), __NV_SATFINITE, __NV_E4M3);
          char* qo =
              static_cast<char*>(p.quant_out) + static_cast<long long>(tok) * H + static_cast<long long>(v) * kVec;
          if constexpr (kVec == 8) {
            *reinterpret_cast<uint2*>(qo) =
                make_uint2(codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24),
                           codes[4] | (codes[5] << 8) | (codes[6] << 16) | (codes[7] << 24));
          } else {
            *reinterpret_cast<unsigned*>(qo) = codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24);
          }
        }
      };
      if (have0) {
        unsigned nbits[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) nbits[e] = Tr::from_float(__fmul_rn(__fmul_rn(h0f[e], inv), g0f[e]));
        n0 = vec_pack<T>(nbits);
        emit(0, v0, row + static_cast<long long>(v0) * kVectorBytes, n0);
      }
      if constexpr (Out::kFp4) {
        if (vpt > 0) fp4_vector(0, v0, have0, n0);
      }
#pragma unroll 1
      for (int k = 1; k < vpt; ++k) {
        const int v = m.t_in_cluster + k * m.stride;
        const bool valid = v < m.vecs_per_token;
        uint4 nk = make_uint4(0u, 0u, 0u, 0u);
        if (valid) {
          const long long off = row + static_cast<long long>(v) * kVectorBytes;
          nk = norm_of(k, v);
          emit(k, v, off, nk);
        }
        if constexpr (Out::kFp4) fp4_vector(k, v, valid, nk);
      }
    } else {
      // (kept as it was before kFirstVectorReady, so that the other bodies' machine code is unchanged)
#pragma unroll 1
      for (int k = 0; k < vpt; ++k) {
        const int v = m.t_in_cluster + k * m.stride;
        const bool valid = v < m.vecs_per_token;
        uint4 nk = make_uint4(0u, 0u, 0u, 0u);
        if (valid) {
          const long long off = row + static_cast<long long>(v) * kVectorBytes;
          nk = norm_of(k, v);
          if constexpr (Out::kNormOut) st_v4(static_cast<char*>(p.norm_out) + off, nk);
          if constexpr (Out::kFp8) {
            unsigned codes[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e)
              codes[e] =
                  __nv_cvt_float_to_fp8(__fmul_rn(Tr::to_float(vec_get<T>(nk, e)), q.fp8_rcp), __NV_SATFINITE, __NV_E4M3);
            char* qo =
                static_cast<char*>(p.quant_out) + static_cast<long long>(tok) * H + static_cast<long long>(v) * kVec;
            if constexpr (kVec == 8) {
              *reinterpret_cast<uint2*>(qo) =
                  make_uint2(codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24),
                             codes[4] | (codes[5] << 8) | (codes[6] << 16) | (codes[7] << 24));
            } else {
              *reinterpret_cast<unsigned*>(qo) = codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24);
            }
          }
        }
        if constexpr (Out::kFp4) fp4_vector(k, v, valid, nk);
      }
    }
    if constexpr (Out::kFp4) {
      if (!fp4_pairs_in_warp) {
        // Odd tpb: vector v^1 may belong to another k, another thread or another block of the cluster,
        // so every amax went through shared memory (fp4_vector) and the codes follow a cluster barrier,
        // each norm recomputed from residual_out and gamma (as this rare shape always did).
        cluster_barrier(m.cluster);
#pragma unroll 1
        for (int k = 0; k < vpt; ++k) {
          const int v = m.t_in_cluster + k * m.stride;
          if (v < m.vecs_per_token) {
            const int pv = v ^ 1;
            const int owner = pv % m.stride, owner_k = pv / m.stride;
            const int owner_block = owner / m.tpb, owner_thread = owner % m.tpb;
            float* slot = &fp4_amax_exchange[owner_k * m.tpb + owner_thread];
            if (m.cluster > 1 && owner_block != m.block_in_cluster)
              slot = cooperative_groups::this_cluster().map_shared_rank(slot, owner_block);
            fp4_codes(v, norm_of(k, v), fmaxf(fp4_amax_exchange[k * m.tpb + threadIdx.x], *slot));
          }
        }
      }
    }
  }
}

}  // namespace arlab::kernels
