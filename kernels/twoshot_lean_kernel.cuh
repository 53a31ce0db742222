// The lean two-shot fused kernel (the `lean` row of common/implementations.h, algorithm twoshot): a
// reduce-scatter and an all-gather on the one-shot Lamport workspace, with no cross-rank barrier.
// The reference two-shot kernel (kernels/twoshot_kernel.cuh) copies its input into its own buffer,
// meets every peer at a flag barrier, loads the N buffers of its range, stores the sums to every
// rank and meets them at a second barrier before its epilogue. Here every transfer is a push whose
// data carries its own "arrived" test (not the -0.0 bit pattern, as in the one-shot kernels), so a
// rank waits only for the elements it reads, and each one-way hop replaces a barrier's round trip:
//   * stage 1 (reduce-scatter push): a row of another rank's range goes straight from x into that
//     owner's Lamport slot `rank` (one store per vector, (N-1)/N of my rows); my own range stays in x;
//   * stage 2 (owner): for a row of my range, poll the N-1 peer slots, add them and my own vector
//     in rank order, write -0.0 back over the consumed slots, push the T-rounded sum into slot
//     `rank` of every peer, and run the epilogue on the sum I hold;
//   * stage 3 (everyone else): for a row of owner r's range, poll slot r of my buffer (the owner's
//     sum), write -0.0 back over it, and run the epilogue.
// The lean one-shot body's other ideas carry over: clear on consume (no clear pass, nothing left
// for the next call), the arrival off the critical path, the lean reduction (one block barrier per
// token; block totals pushed through mbarriers in clusters of blocks of whole warps).
//
// TOKEN RANGES: chunk = ceil(tokens / N); rank r owns tokens [r * chunk, min((r + 1) * chunk, tokens))
// (the reference two-shot's ranges; with tokens < N some ranks own none). Clusters stride over the
// tokens as in the one-shot kernels (cluster c: c, c + C, ...), the same set on every rank.
//
// PROTOCOL (one call; every rank runs the same sequence of calls, one- and two-shot, any body):
//  1. Thread 0 reads my control block (flag: buffer cur = flag % 3; the bytes a previous REFERENCE
//     one-shot call left in buffer prev) and arrives on the counter once the read is back; barrier.
//  2. Stage 1 push: each of my vectors of a token owned by r != rank, -0.0 turned into +0.0, is
//     stored (relaxed.sys) at its [tokens, H] offset in slot `rank` of buffer cur of rank r.
//  3. The last arriver publishes flag + 1 with 0 bytes for buffer cur (clean by the end of the call).
//  4. Buffer prev is refilled with -0.0 only after a reference one-shot call (as the lean one-shot).
//  5. Stage 2 over the cluster's tokens that I own, then stage 3 over the others, each in the
//     cluster's order and each followed by that token's epilogue (kernels/fused_epilogue.cuh, shared
//     with every body). Owned rows first: every rank pushes all its sums before it waits for anyone
//     else's, so the others' sums are on their way while it works on its own rows, and a call costs
//     one hop from owner to reader, not one per token. (In the cluster's plain token order, with
//     ranges that change owner from one token of the cluster to the next, every token waited one hop
//     for its owner: at TP8 and trtllm's grid, 1.4-2.0x the reference two-shot's time. Emulated H200,
//     2026-12-02, arlab run --algo twoshot --kernel reference,lean, binary 38f6bb3.)
// Slot s of my buffer cur therefore holds, in rows of my range, peer s's input (stage 1), and in
// rows of rank s's range, rank s's sums (stage 3): disjoint rows, each written once per call.
//
// RESULT: the owner's sum is the one-shot kernels' (rank order 0..N-1, my own vector in place
// `rank`, pairwise rounding after every add or one fp32 rounding), and the other ranks add nothing
// to it, so every output is bit-identical to the reference kernels'. The pushed sum is passed
// through vec_clear_neg_zero so that it can never look "not arrived"; the T-rounded sum of inputs
// whose -0.0 were turned into +0.0 is never -0.0 (a sum of such values is +0.0 or a nonzero multiple
// of T's smallest subnormal, which T represents exactly), so this changes no bit.
//
// MEMORY ORDERING: as in the one-shot kernels, each element carries its own arrival test; pushes
// are relaxed.sys stores, polls relaxed.sys loads, and writing -0.0 over a slot after reading the
// value there is ordered after that value in the location's coherence order (one thread reads, then
// writes). Reuse of buffer cur: a peer writes into my buffer cur again in call f + 3 at the
// earliest. Any rank finishing a call has read, for every token, either every other rank's stage-1
// push of it (as its owner) or its owner's stage-2 sum, which the owner pushed after reading every
// other rank's stage-1 push; so no rank finishes call g before every rank has entered call g, and a
// peer in call f + 3 has seen me enter call f + 2, after this kernel ended. Buffer prev and the
// control block: as in the lean one-shot kernel (kernels/oneshot_lean_kernel.cuh).
//
// BOUNDED WAITS AND CO-RESIDENCY: a block waits only for the same block index of other ranks (stage
// 2 for their stage-1 pushes, which precede every wait; stage 3 for the owner's stage 2, which
// precedes every stage-3 wait of the owner), so no wait can close a cycle; but the block it waits
// for must run, so, like the reference two-shot kernel, every block of every rank must be resident
// at once (model::check_legal refuses larger two-shot grids). Every poll gives up after p.timeout_ns,
// records (rank, block, the missing slot, token) and abandons the protocol; an owner whose poll gave
// up pushes no sum, so its peers' stage-3 polls give up too; the host re-initializes the workspace.
//
// LAYOUT: kernels/lamport_layout.h. THREAD MAPPING: the one-shot kernels' (kernels/oneshot_kernel.cuh).
#pragma once

#include "kernels/oneshot_steps.cuh"
#include "kernels/phase_stamps.cuh"

namespace arlab::kernels {

// The epilogue options (kernels/fused_epilogue.cuh): the lean reduction; the operands are loaded in
// the epilogue (the sum of a row arrives one hop later than in one-shot, so they are in flight long
// before it is used).
struct TwoshotLeanEpilogue {
  static constexpr bool kGammaHeld = false;
  static constexpr bool kLeanReduce = true;
  static constexpr bool kPow2Scale = kLeanPow2Scale;  // false in the lean_divide probe build
  static constexpr bool kFirstVectorReady = false;
  static constexpr bool kResidualHeld = false;
};

// Stage 1's store of one vector into slot `rank` of the owner's buffer (`off` from its region's
// start): an unrolled select, so the kernel never indexes the region table by a run-time value.
template <int N>
__device__ __forceinline__ void push_to_owner(const FusedParams& p, int owner, long long off, const uint4& val) {
#pragma unroll
  for (int r = 0; r < N; ++r)
    if (r == owner) st_relaxed_sys_v4(static_cast<char*>(p.regions[r]) + off, val);
}

template <typename T, int N, Pattern P, Accumulation A>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) twoshot_lean_kernel(const __grid_constant__ FusedParams p) {
  const long long entry_clock = phase_entry_clock();  // probe builds only (kernels/phase_stamps.cuh)
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;
  constexpr bool kNorm = PatternOutputs<P>::kResidual;
  constexpr int kBatch = poll_batch<N, PatternOutputs<P>::kFp8 || PatternOutputs<P>::kFp4>();

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const TokenMapping m = token_mapping<T>(p);
  pushed_exchange_init(sh.epi, m.cluster);

  // ---- 1. control block ----
  unsigned long long flag0 = 0;
  unsigned arrived_before = 0;
  if (threadIdx.x == 0) {
    flag0 = read_control_block(p, sh);
    arrived_before = arrive_after_flag_read(p, flag0);
  }
  __syncthreads();
  pdl_launch_dependents();
  // Probe builds only (kernels/phase_stamps.cuh); the body's stamps: 0 the prologue's end, 1 thread 0's pushes issued,
  // 2 the owned rows' end (stage 2), 3 the other rows' end (stage 3)
  const PhaseStamps stamps = phase_stamps_begin(p, flag0, entry_clock);
  phase_stamp<0>(stamps);

  const LamportBuffers buf = shared_buffers(sh);
  const int chunk = (p.tokens + N - 1) / N;
  const char* x = static_cast<const char*>(p.x);
  const long long my_slot = buf.cur * p.buffer_bytes + static_cast<long long>(p.rank) * p.slot_bytes;

  // ---- 2. stage 1: the rows of other ranks' ranges into their owners' slot `rank` ----
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters) {
    const int owner = tok / chunk;
    if (owner == p.rank) continue;
    for_each_my_vector(m, tok * m.row_bytes, [&](int, long long off) {
      push_to_owner<N>(p, owner, my_slot + off, vec_clear_neg_zero<T>(ld_input_v4(x + off)));
    });
  }

  phase_stamp<1>(stamps);

  // ---- 3. publication (buffer cur is clean by the end of this call) ----
  if (threadIdx.x == 0) publish_if_last_arriver(p, arrived_before, flag0, 0ull);

  // ---- 4. clear buffer prev, only after a reference one-shot call ----
  if (sh.clear_bytes != 0ull) clear_previous_buffer<T, N>(p, buf.prev, sh.clear_bytes, m.tpb);

  // ---- 5. stage 2 (my range) or stage 3 (the others'), then the epilogue, token by token ----
  char* my_cur = static_cast<char*>(p.my_region) + buf.cur * p.buffer_bytes;
  pushed_exchange_ready(m.cluster);
  PollState st;
  const QuantScales q = load_quant_scales<P>(p);
  int round = 0;  // epilogue rounds so far (kernels/fused_epilogue.cuh cluster_sum_pushed)
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: my rows (stage 2); pass 1: the others' (stage 3)
    for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters) {
      const int owner = tok / chunk;
      if ((owner == p.rank) != (pass == 0)) continue;
      fused_token_epilogue<T, P, TwoshotLeanEpilogue>(
          p, m, sh.epi, fp4_amax_exchange, q, tok, round++, [&](long long off, float(&acc)[kVec]) {
            if (owner == p.rank) {
              const uint4 own = ld_input_v4(x + off);  // its -0.0 turned into +0.0 by poll_sum_clear
              poll_sum_clear<T, N, A, kBatch>(my_cur + off, p.slot_bytes, own, tok, p, st, acc);
              if (st.aborted) return;  // no sum to push: the peers' polls give up in turn
              unsigned bits[kVec];
  #pragma unroll
              for (int e = 0; e < kVec; ++e) bits[e] = Tr::from_float(acc[e]);  // exact: acc is T-rounded
              push_vector<N, true>(p, my_slot + off, vec_clear_neg_zero<T>(vec_pack<T>(bits)));
            } else {
              char* slot = my_cur + static_cast<long long>(owner) * p.slot_bytes + off;
              uint4 val[1] = {ld_relaxed_sys_v4(slot)};
              wait_arrived<T, 1>(val, slot, p.slot_bytes, owner, tok, p, st);
  #pragma unroll
              for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(val[0], e));
              if (!st.aborted) st_v4(slot, vec_neg_zero<T>());
            }
          });
    }
    if (pass == 0) phase_stamp<2>(stamps);
  }
  phase_stamp<3>(stamps);

  // Lifetime of this block's shared memory where another block of the cluster may read it (as in the
  // lean one-shot kernel).
  if (kNorm && m.cluster > 1 && !pushed_exchange_applies(m.cluster)) cluster_lifetime_barrier();
  phase_stamps_end<4>(stamps, "lean2", N, static_cast<int>(P), p);  // the exit stamp; the record
}

// The lean two-shot kernel as kernels/instantiate.cuh instantiates it (kernels/families.cmake).
struct TwoshotLeanFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&twoshot_lean_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
