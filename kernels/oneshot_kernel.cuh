// The reference one-shot fused all-reduce kernel (docs/operation.md, docs/kernels.md; the `reference`
// row of common/implementations.h): Lamport push all-reduce + residual add + RMSNorm + optional FP8 /
// NVFP4 quantization, one kernel body templated on <T, N, Pattern, Accumulation>, built from the
// one-shot steps of kernels/oneshot_steps.cuh. Instantiated from kernels/families.cmake, selected
// through the one dispatch point kernels/dispatch.h.
//
// PROTOCOL (one call, every rank runs the same sequence of calls):
//  1. Thread 0 of each block reads my control block: flag (calls completed so far; current buffer
//     cur = flag % 3) and the bytes the previous call left in buffer prev = (flag + 2) % 3; then it
//     arrives on the control block's counter. The block that arrives last (every block of the grid
//     has read the flag) resets the counter, records this call's bytes for buffer cur and publishes
//     flag + 1 for the next call.
//  2. Push: every 16-byte vector of my input x, with -0.0 elements turned into +0.0, is stored into
//     slot `rank` of buffer cur of EVERY rank's Lamport region (peer stores; mine included).
//  3. Clear: my own buffer prev (the previous call's) is refilled with -0.0 over the bytes that call
//     wrote. Nobody reads or writes it now: peers are at most one call ahead of me (they cannot
//     finish call f+1 before I push in f+1), so the earliest next writer into it is call f+2.
//  4. Poll + reduce: for each token of my cluster and each of my vectors, load slot 0..N-1 of my
//     buffer cur with relaxed system-scope 16-byte loads until no element is the -0.0 BIT PATTERN
//     (a NaN or Inf never looks like "not arrived"); sum in rank order 0..N-1 (pairwise: round to T
//     after every add; fp32_acc: round once), then the epilogue (kernels/fused_epilogue.cuh, shared
//     with the two-shot kernel): residual add, RMSNorm with the sum
//     of squares reduced in the block and across the cluster through distributed shared memory,
//     IEEE division and square root (__fdiv_rn, __fsqrt_rn; no rsqrtf, no fast-math), FP8 e4m3 /
//     NVFP4 e2m1 through the toolkit's cuda_fp8.h / cuda_fp4.h conversions (on sm_90 the FP4 one is
//     the toolkit's software path: real codes, never zeros).
//
// MEMORY ORDERING: the protocol needs no fences on the data path: each element carries its own
// "arrived" test (not -0.0), pushes are relaxed.sys stores and polls relaxed.sys loads, so the
// owner eventually sees each peer store and never relies on the order in which they land. The clear
// of buffer prev is ordered before a peer's next write into it by the end of this kernel (all its
// stores are performed) and the causality chain above (the peer writes there only in call f+2, after
// reading my push of call f+1, which starts after this kernel ends). The control block is touched
// only by my own blocks: the read of flag is fenced (__threadfence) before the arrival atomic, and
// the last arriver fences after its atomic before publishing, so no block can read the new flag.
// With programmatic dependent launch every workspace access comes after griddepcontrol.wait.
//
// LAYOUT: slot s of a buffer is rank s's [tokens, H] input, row-major; see lamport_layout.h.
//
// THREAD MAPPING (every configuration model::check_legal accepts): a cluster of `cluster` blocks
// covers one token; thread t of the cluster (t = block_in_cluster * tpb + threadIdx.x) handles the
// vectors t + k * (tpb * cluster) for k < vecs_per_thread that are < H / VEC; clusters stride over
// tokens; idle threads join every reduction with 0, idle clusters only arrive. Any tpb in 1..1024
// (not only multiples of 32) and grids larger than the co-resident capacity are fine: one-shot
// blocks wait only for peer data, which every peer block pushes before it waits.
//
// BOUNDED WAITS: every poll gives up after p.timeout_ns (from %globaltimer), records
// (rank, block, peer, token) in my fault word (first writer wins) and abandons the protocol: the
// thread and, once they see the fault word, all other threads of this rank stop waiting, still pass
// the block / cluster barriers and finish quickly. The host raises an error naming the fault and
// re-initializes the workspace (harness/workspace.*).
#pragma once

#include "kernels/oneshot_steps.cuh"

namespace arlab::kernels {

// Polls slots 0..N-1 of one vector (address `vec0` in slot 0) and sums them in rank order.
// acc receives the T-rounded sum as fp32 values.
template <typename T, int N, Accumulation A, int kBatch>
__device__ __forceinline__ void poll_and_sum(const char* vec0, long long slot_bytes, int token, const FusedParams& p,
                                             PollState& st, float (&acc)[DTypeTraits<T>::kVec]) {
#pragma unroll
  for (int base = 0; base < N; base += kBatch) {
    uint4 val[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) val[j] = ld_relaxed_sys_v4(vec0 + (base + j) * slot_bytes);
    wait_arrived<T, kBatch>(val, vec0 + base * slot_bytes, slot_bytes, base, token, p, st);
#pragma unroll
    for (int j = 0; j < kBatch; ++j) add_rank_contribution<T, A>(acc, val[j], base + j == 0);
  }
  finish_rank_sum<T, A>(acc);
}

template <typename T, int N, Pattern P, Accumulation A>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) oneshot_fused_kernel(const __grid_constant__ FusedParams p) {
  constexpr int kVec = DTypeTraits<T>::kVec;

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const TokenMapping m = token_mapping<T>(p);

  // ---- 1. control block: read flag, arrive; the last arriver publishes the next call's state ----
  if (threadIdx.x == 0) {
    read_control_block(p, sh);
    __threadfence();  // my reads of the control block happen before my arrival
    const unsigned arrived_before = atomicAdd(&p.control->arrivals, 1u);
    if (arrived_before == gridDim.x - 1) {
      __threadfence();  // every block's reads happen before the stores below
      publish_next_call(p.control, sh.flag, static_cast<unsigned long long>(p.tokens) * m.row_bytes);
    }
  }
  __syncthreads();
  pdl_launch_dependents();

  const LamportBuffers buf = lamport_buffers(sh.flag);

  // ---- 2. push my input into slot `rank` of buffer cur of every rank (mine included) ----
  const long long my_slot = buf.cur * p.buffer_bytes + static_cast<long long>(p.rank) * p.slot_bytes;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters) {
    const char* x_row = static_cast<const char*>(p.x) + tok * m.row_bytes;
#pragma unroll 1
    for (int k = 0; k < m.vecs_per_thread; ++k) {
      const int v = m.t_in_cluster + k * m.stride;
      if (v < m.vecs_per_token)
        push_vector<N, false>(p, my_slot + tok * m.row_bytes + static_cast<long long>(v) * kVectorBytes,
                              vec_clear_neg_zero<T>(ld_input_v4(x_row + v * kVectorBytes)));
    }
  }

  // ---- 3. clear my buffer of the previous call back to -0.0 ----
  clear_previous_buffer<T, N>(p, buf.prev, sh.clear_bytes, m.tpb);

  // ---- 4. poll, reduce, epilogue (kernels/fused_epilogue.cuh) ----
  const char* my_cur = static_cast<const char*>(p.my_region) + buf.cur * p.buffer_bytes;
  PollState st;
  const QuantScales q = load_quant_scales<P>(p);
  int parity = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, parity ^= 1) {
    fused_token_epilogue<T, P, ReferenceEpilogue>(
        p, m, sh.epi, fp4_amax_exchange, q, tok, parity, [&](long long off, float(&acc)[kVec]) {
          poll_and_sum<T, N, A, poll_batch<N, P != Pattern::ar && P != Pattern::ar_res_rms>()>(
              my_cur + off, p.slot_bytes, tok, p, st, acc);
        });
  }

  // Keep this block's shared memory alive until no other block of the cluster can still read it.
  if (m.cluster > 1) cooperative_groups::this_cluster().sync();
}

// The reference one-shot kernel as kernels/instantiate.cuh instantiates it (kernels/families.cmake).
struct OneshotFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&oneshot_fused_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
