// The reference one-shot fused all-reduce kernel (docs/operation.md, docs/kernels.md; the `reference`
// row of common/implementations.h): Lamport push all-reduce + residual add + RMSNorm + optional FP8 /
// NVFP4 quantization, one kernel body templated on <T, N, Pattern, Accumulation>, built from the
// one-shot steps of kernels/oneshot_steps.cuh. Instantiated from kernels/families.cmake, selected
// through the one dispatch point kernels/dispatch.h.
//
// PROTOCOL (one call, every rank runs the same sequence of calls):
//  0. Every thread loads the epilogue operands of its first vector of its first token (gamma,
//     residual_in, the quantization scale) while thread 0 reads the control block: they do not
//     depend on the flag.
//  1. Thread 0 reads my control block in one round trip: flag (calls completed so far; current
//     buffer cur = flag % 3) and the bytes the previous call left in buffer prev = (flag + 2) % 3,
//     and puts cur, prev and those bytes into shared memory; once the flag is back it arrives on the
//     control block's counter (looking at the result only after its push); barrier. The block that
//     arrived last (every block of the grid has read the flag) resets the counter, records this
//     call's bytes for buffer cur and publishes flag + 1 for the next call. (This is the library's
//     order: its arrival is a fire-and-forget atomic after the flag read, and nothing waits for it
//     before the push.)
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
//     IEEE division and square root (__fdiv_rn, __fsqrt_rn; no rsqrtf, no fast-math), FP8 e4m3
//     through the toolkit's cuda_fp8.h conversion, NVFP4 e2m1 through kernels/e2m1.h (the toolkit's
//     rounding; real codes, never zeros).
//
// MEMORY ORDERING: the protocol needs no fences on the data path: each element carries its own
// "arrived" test (not -0.0), pushes are relaxed.sys stores and polls relaxed.sys loads, so the
// owner eventually sees each peer store and never relies on the order in which they land. The clear
// of buffer prev is ordered before a peer's next write into it by the end of this kernel (all its
// stores are performed) and the causality chain above (the peer writes there only in call f+2, after
// reading my push of call f+1, which starts after this kernel ends). The control block is touched
// only by my own blocks, and its ordering rests on dependencies, as the library's does (it has none
// at all), not on fences (kernels/oneshot_steps.cuh; docs/kernels.md gives what the fences cost):
// thread 0's arrival atomic takes an operand computed from the flag it read, so it issues only after
// that read has returned; the last arriver's publishing stores run only after its atomic has
// returned the count of every other block's arrival; so no block can read the new flag.
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
#include "kernels/phase_stamps.cuh"

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
  const long long entry_clock = phase_entry_clock();  // probe builds only (kernels/phase_stamps.cuh)
  constexpr int kVec = DTypeTraits<T>::kVec;

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const TokenMapping m = token_mapping<T>(p);

  // ---- 0./1. thread 0 reads the control block (one round trip); meanwhile every thread loads the
  // epilogue operands of its first vector; thread 0 arrives once the flag is back; barrier ----
  unsigned long long flag = 0;
  if (threadIdx.x == 0) flag = read_control_block(p, sh);
  const bool has_first = m.t_in_cluster < m.vecs_per_token && m.cluster_id < p.tokens;
  HeldOperands held;
  const float scale = load_scale<P>(p);  // the quantization scale (used after the poll)
  if constexpr (PatternOutputs<P>::kResidual) {
    if (has_first) {
      const long long first_vec = static_cast<long long>(m.t_in_cluster) * kVectorBytes;
      held.gamma0 = ld_input_v4(static_cast<const char*>(p.gamma) + first_vec);
      held.residual0 = ld_input_v4(static_cast<const char*>(p.residual_in) + m.cluster_id * m.row_bytes + first_vec);
    }
  }
  unsigned arrived_before = 0;
  if (threadIdx.x == 0) arrived_before = arrive_after_flag_read(p, flag);
  __syncthreads();
  pdl_launch_dependents();
  // Probe builds only (kernels/phase_stamps.cuh); the body's stamps: 0 the prologue's end, 1 thread 0's pushes issued,
  // 2 its clear pass done, 3 the last token round's end
  const PhaseStamps stamps = phase_stamps_begin(p, flag, entry_clock);
  phase_stamp<0>(stamps);

  const LamportBuffers buf = shared_buffers(sh);

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
  if (threadIdx.x == 0)
    publish_if_last_arriver(p, arrived_before, flag, static_cast<unsigned long long>(p.tokens) * m.row_bytes);

  phase_stamp<1>(stamps);

  // ---- 3. clear my buffer of the previous call back to -0.0 ----
  clear_previous_buffer<T, N>(p, buf.prev, sh.clear_bytes, m.tpb);
  phase_stamp<2>(stamps);

  // ---- 4. poll, reduce, epilogue (kernels/fused_epilogue.cuh) ----
#if ARLAB_PROBE_LIBRARY_VIEW
  // Probe build only (ARLAB_KERNEL_PROBE=library_view, docs/kernels.md "By ranks and shape"): every thread
  // builds a view of buffer cur of every rank and reads its own through view[rank], an index known only at
  // run time, as the library's threads do through theirs: nvcc keeps the view in a local-memory frame of
  // 8 bytes per rank that every thread stores (the library's grows by 8 bytes per rank too).
  const char* view[N];
#pragma unroll
  for (int r = 0; r < N; ++r) view[r] = static_cast<const char*>(p.regions[r]) + buf.cur * p.buffer_bytes;
  const char* my_cur = view[p.rank];
#else
  const char* my_cur = static_cast<const char*>(p.my_region) + buf.cur * p.buffer_bytes;
#endif
  PollState st;
  const QuantScales q = quant_scales_from<P>(scale);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round) {
    fused_token_epilogue<T, P, ReferenceOneshotEpilogue>(
        p, m, sh.epi, fp4_amax_exchange, q, tok, round,
        [&](long long off, float(&acc)[kVec]) {
          poll_and_sum<T, N, A, poll_batch<N, P != Pattern::ar && P != Pattern::ar_res_rms>()>(
              my_cur + off, p.slot_bytes, tok, p, st, acc);
        },
        held);
  }
  phase_stamp<3>(stamps);

  // Keep this block's shared memory alive until no other block of the cluster can still read it:
  // lifetime only, so a relaxed arrival (the lean body's, kernels/oneshot_lean_kernel.cuh, says why
  // cluster.sync()'s release waited for this thread's output stores). Every remote total this thread
  // loaded has been consumed (summed into the norm it stored) before this instruction issues.
  if (m.cluster > 1) cluster_lifetime_barrier();
  phase_stamps_end<4>(stamps, "reference1", N, static_cast<int>(P), p);  // the exit stamp; the record
}

// The reference one-shot kernel as kernels/instantiate.cuh instantiates it (kernels/families.cmake).
struct OneshotFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&oneshot_fused_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
