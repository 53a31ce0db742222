// The lean one-shot fused kernel (the `lean` row of common/implementations.h): the same Lamport
// workspace, thread mapping, launch shapes, one-shot steps (kernels/oneshot_steps.cuh) and epilogue as
// the reference one-shot kernel (kernels/oneshot_kernel.cuh), with six changes that remove traffic
// and latency from the reference design's critical path:
//   1. own slice from registers: my input never goes through my own Lamport slot. The reference
//      stores it there and polls it back (a store and a load of S bytes per call, and S more of
//      -0.0 to clear); here the vector I push is the one I add, in its rank-order place.
//   2. clear on consume: after a vector has arrived from every peer and been summed, this thread
//      stores -0.0 back over the peers' slots it read (lines that are in L2: they were just read).
//      There is no clear pass between push and poll, and nothing for the next call to clear.
//   3. arrival off the critical path (now shared with the reference: kernels/oneshot_steps.cuh):
//      thread 0 arrives once its flag read is back, with no fence, and looks at the result only after
//      its push, where the last arriver publishes the next call's state while the peers' data is on
//      its way. (Waiting for the atomic in thread 0's warp before its push measured 0.2-0.5 us slower
//      at 1-16 tokens: the round trip outlasts the first x load; fences before the atomic and before
//      the publication waited for the warp's early loads and its pushes: docs/kernels.md.)
//   4. epilogue operands early: gamma and residual_in of the thread's first vector are loaded before
//      the push (as the faithful reference now does too) and gamma stays in a register for every
//      token. At N >= 8 only residual_in is held (kLeanHoldsPushOperands below: the register
//      budget), gamma is loaded in the norm loop.
//   5. at N < 8 the first vector of x is loaded while thread 0 reads the flag, and kept as loaded:
//      its -0.0 are cleared at the push, so no instruction waits for it before gamma's and
//      residual_in's loads issue (clearing it on load stalled every warp for that DRAM load first;
//      docs/kernels.md "The first vector's clear, at the push"); the others are loaded and
//      pushed one at a time, as the reference does (at N >= 8 the first one too). (Until
//      2026-12-02 a token's vectors were all loaded before any was pushed and every other input
//      line was prefetched into L2 at the start;
//      both cost time: up to 0.8 us at 1 token and 2-9 us at 128-512 tokens where a thread has 2-4
//      vectors, emulated H200, docs/kernels.md "Two ideas that did not pay".)
//   6. a shorter reduction: one block barrier per token where the block is one cluster of whole
//      warps (every warp then sums the warps' partials itself, in warp 0's order); in a cluster of
//      blocks of whole warps, no cluster barrier at all: each block sends its total into the other
//      blocks' shared memory with st.async and waits on an mbarrier in its own
//      (kernels/fused_epilogue.cuh cluster_sum_pushed; the reference pays two cluster barriers, one
//      per token and one before exit; where lean keeps the barriers -- blocks that are not whole
//      warps -- its closing one is a relaxed lifetime barrier, no MEMBAR); and the mean
//      square as a multiplication by 1/H for a power-of-two H (bit-identical to the division).
//
// PROTOCOL (one call; every rank runs the same sequence of calls, reference and lean mixed):
//  1. Thread 0 reads my control block: flag (calls so far; buffer cur = flag % 3), and the bytes a
//     previous REFERENCE call left in buffer prev = (flag + 2) % 3 (0 after a lean call); barrier.
//  2. Thread 0 arrives on the control block's counter once its flag read is back (the result is
//     looked at in step 4).
//  3. Push: every 16-byte vector of my input x, with -0.0 elements turned into +0.0, is stored into
//     slot `rank` of buffer cur of every PEER's Lamport region (relaxed.sys stores; not mine).
//  4. The block that arrived last records 0 bytes for buffer cur (by the end of this call it is
//     clean: every peer slot is consumed and cleared in step 6, my own slot is never written) and
//     publishes flag + 1 (read by the next call only: it starts after this kernel has ended).
//  5. Clear prev, only when the call before was a reference call (its own slot and its clear pass
//     are still owed): my buffer prev back to -0.0 over those bytes, as the reference does.
//  6. Poll + reduce + epilogue per token: each vector's peer slots are loaded with relaxed.sys
//     16-byte loads until no element is the -0.0 bit pattern; the sum runs in rank order 0..N-1
//     with my own vector (the first one from a register, the others re-read from x: L2 hits, they
//     were read in step 3) in place `rank`, so the
//     result is bit-identical to the reference kernel's; the peer slots are then overwritten with
//     -0.0 (plain stores). The epilogue is kernels/fused_epilogue.cuh's, shared with the reference.
//
// MEMORY ORDERING: as in the reference kernel, each element carries its own "arrived" test, pushes
// are relaxed.sys stores and polls relaxed.sys loads. Clearing a slot after reading the peer's value
// there is ordered after that store in the location's coherence order (read, then write, by one
// thread). The next write into buffer cur of mine is a peer's push of call f + 3 (peers are at most
// one call ahead), which starts after this kernel has ended. Buffer prev is cleared (step 5) before
// its next writer (call f + 2) as in the reference. The control block: as in the reference (thread
// 0's arrival takes an operand computed from the flag it read, so it issues after the read has
// returned; the last arriver's publishing stores run only once its atomic has returned every other
// arrival), so no block of this call can read the new flag. The next
// call reads it after this kernel has ended (stream order, or PDL's griddepcontrol.wait).
//
// LAYOUT: kernels/lamport_layout.h (slot s of a buffer is rank s's [tokens, H] input, row-major);
// the lean kernel leaves slot `rank` of its own buffers at -0.0 throughout.
//
// THREAD MAPPING, BOUNDED WAITS: those of the reference kernel (every configuration
// model::check_legal accepts; every poll gives up after p.timeout_ns, records the fault and
// abandons the protocol; the host re-initializes the workspace after a fault).
#pragma once

#include "kernels/oneshot_steps.cuh"
#include "kernels/phase_stamps.cuh"

namespace arlab::kernels {

// What the lean body holds in registers from its start, by N. Under the 64-register cap of
// 1024-thread blocks, N >= 8 leaves no room for x0, gamma and residual_in beside the poll's batch of
// four slots: ptxas spilled gamma and residual_in right after their loads (88 bytes of spill stores at
// N = 8, bf16 ar_res_rms; `ptxas -v`, CUDA 13.0, sm_90), and a spill store waits for its load, so every
// warp reached the block barrier only after a DRAM round trip and the push started that much later
// (cuobjdump -sass: the STLs sat between the loads and the BAR.SYNC). At N >= 8 the body therefore
// holds only the first residual vector: x is loaded in the push loop (as the reference does) and
// gamma in the norm loop (an L2 hit). Spill stores fall to 20 bytes, none before the barrier; on the
// emulated H200 TP8 node lean went from 0.91-0.99x of the reference at the same configuration to
// 1.00-1.07x at 1-8 tokens (docs/kernels.md, "Lean at eight ranks: the spills before the barrier").
template <int N>
constexpr bool kLeanHoldsPushOperands = N < 8;

// The lean body's epilogue options (kernels/fused_epilogue.cuh EpilogueOptions): gamma of the first
// vector loaded before the poll wherever there is a norm and N < 8 (kLeanHoldsPushOperands); the
// residual of the first vector of the first token held at every N; the lean reduction. One vector's
// operands only, at every N: holding the second vector's gamma and residual sum as well at N = 2
// (until 2026-12-04) spilled 16-40 bytes under the 64-register cap (`ptxas -v`, CUDA 13.0, sm_90, bf16
// pairwise), and without it the N = 2 norm patterns spill nothing and lean measured 0-6 % faster
// against the reference at every TP2 configuration tried, 2 and 4 vectors per thread included
// (docs/kernels.md, "One held vector at N = 2").
template <int N, Pattern P>
struct LeanEpilogueFor {
  static constexpr bool kNorm = PatternOutputs<P>::kResidual;
  static constexpr bool kGammaHeld = kNorm && kLeanHoldsPushOperands<N>;
  static constexpr bool kLeanReduce = true;
  static constexpr bool kPow2Scale = kLeanPow2Scale;  // false in the lean_divide probe build
  static constexpr bool kFirstVectorReady = false;
  // residual_in of the first vector of the first token, loaded beside the flag read (the reference
  // does the same), at every N.
  static constexpr bool kResidualHeld = kNorm;
};

template <typename T, int N, Pattern P, Accumulation A>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) oneshot_lean_kernel(const __grid_constant__ FusedParams p) {
  const long long entry_clock = phase_entry_clock();  // probe builds only (kernels/phase_stamps.cuh)
  constexpr int kVec = DTypeTraits<T>::kVec;
  using Epilogue = LeanEpilogueFor<N, P>;

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const TokenMapping m = token_mapping<T>(p);
  const int vpt = m.vecs_per_thread;
  const long long row_bytes = m.row_bytes;
  pushed_exchange_init(sh.epi, m.cluster);  // the cluster's block totals are pushed (change 6)

  // ---- 1. control block: thread 0 reads the flag and what a reference call left to clear ----
  unsigned long long flag0 = 0;
  if (threadIdx.x == 0) flag0 = read_control_block(p, sh);
  // While the flag read is in flight: my first vector of x (pushed first), gamma of my first vector
  // (the same for every token) and my first residual vector.
  const bool has_first = m.t_in_cluster < m.vecs_per_token && m.cluster_id < p.tokens;
  const long long first_off = static_cast<long long>(m.cluster_id) * row_bytes +
                              static_cast<long long>(m.t_in_cluster) * kVectorBytes;  // token cluster_id, k = 0
  // My first vector of x, as loaded (its -0.0 are turned into +0.0 at the push); at N >= 8 not held
  // (kLeanHoldsPushOperands): the push loop loads it like the others.
  constexpr bool kHoldX0 = kLeanHoldsPushOperands<N>;
  uint4 x0 = make_uint4(0u, 0u, 0u, 0u);
  if (kHoldX0 && has_first) x0 = ld_input_v4(static_cast<const char*>(p.x) + first_off);
  HeldOperands held;  // my first residual vector; gamma of my first vector (the same for every token)
  if constexpr (Epilogue::kResidualHeld) {
    if (has_first) held.residual0 = ld_input_v4(static_cast<const char*>(p.residual_in) + first_off);
  }
  if constexpr (Epilogue::kGammaHeld) {
    const char* gamma = static_cast<const char*>(p.gamma);
    if (m.t_in_cluster < m.vecs_per_token)
      held.gamma0 = ld_input_v4(gamma + static_cast<long long>(m.t_in_cluster) * kVectorBytes);
  }
  // ---- 2. arrival: thread 0, once its flag read is back; the result is looked at after the push ----
  unsigned arrived_before = 0;
  if (threadIdx.x == 0) arrived_before = arrive_after_flag_read(p, flag0);
  __syncthreads();
  pdl_launch_dependents();
  // Probe builds only (kernels/phase_stamps.cuh); the body's stamps: 0 the prologue's end, 1 thread 0's pushes issued,
  // 2 past the clear a reference call left (none after a lean one), 3 the last round's end
  const PhaseStamps stamps = phase_stamps_begin(p, flag0, entry_clock);
  phase_stamp<0>(stamps);

  const LamportBuffers buf = shared_buffers(sh);

  // ---- 3. push my input into slot `rank` of buffer cur of every peer ----
  // One vector at a time: load (the first one is x0, loaded above), then store it to every peer.
  const long long my_slot = buf.cur * p.buffer_bytes + static_cast<long long>(p.rank) * p.slot_bytes;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters) {
#pragma unroll 1
    for (int k = 0; k < vpt; ++k) {
      const int v = m.t_in_cluster + k * m.stride;
      if (v >= m.vecs_per_token) break;
      const long long off = tok * row_bytes + static_cast<long long>(v) * kVectorBytes;
      const uint4 val =
          vec_clear_neg_zero<T>(kHoldX0 && off == first_off ? x0 : ld_input_v4(static_cast<const char*>(p.x) + off));
      push_vector<N, true>(p, my_slot + off, val);
    }
  }

  phase_stamp<1>(stamps);

  // ---- 4. the last arriver publishes the next call's state (its atomic has returned by now) ----
  // Buffer cur is clean by the end of this call (protocol step 4): 0 bytes to clear.
  if (threadIdx.x == 0) publish_if_last_arriver(p, arrived_before, flag0, 0ull);

  // ---- 5. clear buffer prev, only after a reference call (0 bytes after a lean call) ----
  if (sh.clear_bytes != 0ull) clear_previous_buffer<T, N>(p, buf.prev, sh.clear_bytes, m.tpb);
  phase_stamp<2>(stamps);

  // ---- 6. poll, reduce with my own vector in place, clear what was consumed, epilogue ----
  char* my_cur = static_cast<char*>(p.my_region) + buf.cur * p.buffer_bytes;
  pushed_exchange_ready(m.cluster);  // long since complete: every block initialised its slots at its start
  PollState st;
  const QuantScales q = load_quant_scales<P>(p);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round) {
    fused_token_epilogue<T, P, Epilogue>(
        p, m, sh.epi, fp4_amax_exchange, q, tok, round,
        [&](long long off, float(&acc)[kVec]) {
          // My vector as loaded (poll_sum_clear turns its -0.0 into +0.0); at N >= 8 re-read from x.
          const uint4 own = kHoldX0 && off == first_off ? x0 : ld_input_v4(static_cast<const char*>(p.x) + off);
          poll_sum_clear<T, N, A, poll_batch<N, PatternOutputs<P>::kFp8 || PatternOutputs<P>::kFp4>()>(
              my_cur + off, p.slot_bytes, own, tok, p, st, acc);
        },
        held);
  }
  phase_stamp<3>(stamps);

  // Keep this block's shared memory alive until no other block of the cluster can still read it:
  // only where the epilogue read another block's shared memory (cluster_sum without the pushed
  // exchange: clusters of 8, blocks that are not whole warps, the odd-tpb NVFP4 exchange among them).
  // Lifetime only, so a relaxed arrival: cooperative_groups' cluster.sync() arrives with release
  // semantics, which on sm_90 is a GPU-scope MEMBAR that waits for this thread's outstanding global
  // stores (its outputs and cleared slots) before the arrival; nothing here needs that order. Every
  // remote shared-memory value this thread loaded has been consumed (summed into the norm it stored)
  // before this instruction issues, so its load has returned. Measured on the emulated H200 TP2 node,
  // 1 token, clusters of 8: 0.22-0.29 us less than cluster.sync() (docs/kernels.md).
  if (Epilogue::kNorm && m.cluster > 1 && !pushed_exchange_applies(m.cluster)) cluster_lifetime_barrier();
  phase_stamps_end<4>(stamps, "lean1", N, static_cast<int>(P), p);  // the exit stamp; the record
}

// The lean one-shot kernel as kernels/instantiate.cuh instantiates it (kernels/families.cmake).
struct OneshotLeanFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&oneshot_lean_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
