// The two-shot fused all-reduce kernel (docs/operation.md, docs/kernels.md): copy -> cross-rank barrier ->
// reduce-scatter with the sums pushed to every rank -> barrier -> fused epilogue (the same one as
// one-shot, kernels/fused_epilogue.cuh). One kernel body templated on <T, N, Pattern, Accumulation>,
// instantiated in kernels/twoshot_inst_*.cu, selected through kernels/dispatch.h.
//
// TOKEN RANGES: chunk = ceil(tokens / N); rank r reduces tokens [r*chunk, min((r+1)*chunk, tokens)).
// Cluster c of every rank handles the local indices l = c, c + C, ... < chunk (C = clusters in the
// grid) of EVERY range, with the thread mapping of fused_epilogue.cuh. So in all three phases block b
// of every rank touches exactly the same (token, vector) elements, and a barrier between block b of
// all ranks (not the whole grid) orders everything that matters.
//
// ONE CALL on rank q:
//  1. copy: my input x (-0.0 turned into +0.0, docs/operation.md) into my comm buffer, for my elements of
//     every range;
//  2. barrier 1 (block b of every rank has copied);
//  3. reduce-scatter: for my elements of MY range, load the N comm buffers (relaxed.sys loads; peers'
//     over NVLink / IPC), sum in rank order 0..N-1, and store the T-rounded sum into the same
//     element of EVERY rank's comm buffer (in place: the element is read by me only, and I read all
//     N values before writing any);
//  4. barrier 2 (block b of every rank has pushed its sums);
//  5. epilogue over my elements of every range, reading the sums from my comm buffer.
//     (ReferenceEpilogue: the first vector's norm operands unpacked before the norm's barriers,
//     kFirstVectorReady in fused_epilogue.cuh)
//
// BARRIER (block b, value v): __syncthreads; thread s < N stores v into flags[q][b] of rank s
// (st.release.sys), then spins on my flags[s][b] (ld.acquire.sys) until it is >= v (modulo 2^32:
// (int)(seen - v) >= 0); __syncthreads. The release is cumulative: the block's earlier stores,
// ordered before it by __syncthreads, are visible to whoever acquires the flag; the acquire plus
// the closing __syncthreads orders the block's later loads after the peer's stores. Values: block b
// keeps its epoch e_b in my workspace (only block b touches it); barrier 1 uses e_b + 1, barrier 2
// e_b + 2, and e_b += 2 at the end. Every rank runs the same sequence of calls with the same grids,
// so e_b is equal on all ranks whatever the grids were (block b counts the calls whose grid had a
// block b): consecutive calls, also with different grids, never see each other's values. A peer can
// be at most one barrier ahead (it cannot pass barrier k+1 before I announce it), hence ">=".
// Co-residency: block b waits for block b of the peers, which waits for ITS peers' block b ... all
// blocks of all ranks must be resident at once; the host refuses other grids (model::check_legal).
//
// BOUNDED WAITS: every spin gives up after p.timeout_ns (%globaltimer), records (rank, block, peer,
// barrier 1/2) in my fault word (first writer wins, kind `barrier`) and the block stops waiting
// (still announcing, so peers are not held back by me); other blocks stop once they see the fault
// word. The host raises an error and re-initializes every rank's workspace.
#pragma once

#include <cstdint>

#include "kernels/fused_epilogue.cuh"
#include "kernels/phase_stamps.cuh"
#include "kernels/twoshot_layout.h"

namespace arlab::kernels {

constexpr int kTwoshotLoadBatch = 4;            // peer vectors loaded together: 4 x 16 B in flight per thread
constexpr int kBarrierFaultCheckPeriod = 64;    // spins between looks at the fault word

// The comm buffers' accesses after barrier 1 (the reduce-scatter's loads and its pushed sums, the
// epilogue's loads): relaxed.sys, ordered by the barriers' release and acquire.
#if ARLAB_PROBE_LIBRARY_TWOSHOT
// Probe build only (ARLAB_KERNEL_PROBE=library_twoshot, docs/kernels.md "The faithful reference"): the
// library's two-shot accesses instead: plain loads and stores (the barriers still order them), and
// every rank's vector loaded together at any N (kTwoshotLoadBatch caps the reference at 4).
constexpr bool kTwoshotEveryLoadTogether = true;
__device__ __forceinline__ uint4 ld_comm_v4(const void* p) { return *reinterpret_cast<const uint4*>(p); }
__device__ __forceinline__ void st_comm_v4(void* p, const uint4& v) { st_v4(p, v); }
#else
constexpr bool kTwoshotEveryLoadTogether = false;
__device__ __forceinline__ uint4 ld_comm_v4(const void* p) { return ld_relaxed_sys_v4(p); }
__device__ __forceinline__ void st_comm_v4(void* p, const uint4& v) { st_relaxed_sys_v4(p, v); }
#endif

// Barrier of block blockIdx.x across the N ranks (see the file comment). `stage` (1 or 2) names the
// barrier in a fault record. `aborted` (shared) is set once this block gave up waiting.
template <int N>
__device__ __forceinline__ void twoshot_block_barrier(const FusedParams& p, uint32_t value, int stage, int& aborted) {
  __syncthreads();
  const int peer = static_cast<int>(threadIdx.x);
  if (peer < N) {
    const size_t slot = static_cast<size_t>(p.rank) * kMaxTwoShotBlocks + blockIdx.x;
    st_release_sys(p.twoshot.flags[peer] + slot, value);
    const uint32_t* watch = p.twoshot.my_flags + static_cast<size_t>(peer) * kMaxTwoShotBlocks + blockIdx.x;
    if (!aborted && static_cast<int>(ld_acquire_sys(watch) - value) < 0) {
      const unsigned long long start = global_timer_ns();
      for (unsigned spin = 1;; ++spin) {
        if (static_cast<int>(ld_acquire_sys(watch) - value) >= 0) break;
        if (spin % kBarrierFaultCheckPeriod == 0 && ld_volatile_u64(p.fault) != 0ull) {
          aborted = 1;  // another wait of this rank already timed out
          break;
        }
        if (global_timer_ns() - start > p.timeout_ns) {
          record_fault(p.fault, encode_fault(WaitKind::barrier, p.rank, peer, static_cast<int>(blockIdx.x), stage));
          aborted = 1;
          break;
        }
      }
    }
  }
  __syncthreads();
}

#if ARLAB_PROBE_TWOSHOT_GAMMA_HELD
// The epilogue options of the twoshot_gamma_held probe build: the reference's, gamma of vector 0 held.
struct GammaHeldEpilogue {
  static constexpr bool kGammaHeld = true;
  static constexpr bool kLeanReduce = false;
  static constexpr bool kPow2Scale = false;
  static constexpr bool kFirstVectorReady = false;
  static constexpr bool kResidualHeld = false;
};
#endif

// Probe build only (ARLAB_KERNEL_PROBE=library_twoshot_layout, docs/kernels.md "The faithful reference"):
// the library's layout and loop order, in the #if ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT branches below. The
// sums go to a second copy of the comm buffer (kernels/twoshot_layout.h kTwoshotCommCopies), tokens x H
// elements past the inputs, not in place over them; the copy and the epilogue loop over the ranges outside
// the cluster's rows (range by range) instead of over the rows outside the ranges. Every block touches the
// same elements in every phase as before, so the barriers order them as before. (The library's cluster c
// takes rows c, c + C, ... of every range too: the token-to-block mapping is the same.) The default build's
// code is the #else branches, unchanged.

template <typename T, int N, Pattern P, Accumulation A>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) twoshot_fused_kernel(const __grid_constant__ FusedParams p) {
  const long long entry_clock = phase_entry_clock();  // probe builds only (kernels/phase_stamps.cuh)
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;
  constexpr int kBatch = kTwoshotEveryLoadTogether || N < kTwoshotLoadBatch ? N : kTwoshotLoadBatch;

  __shared__ EpilogueShared sh;
  __shared__ uint32_t epoch;
  __shared__ int aborted;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();
  if (threadIdx.x == 0) {
    epoch = p.twoshot.block_epoch[blockIdx.x];
    aborted = 0;
  }
  __syncthreads();
  pdl_launch_dependents();
  // Probe builds only (kernels/phase_stamps.cuh); the body's stamps: 0 the prologue's end, 1 copied, 2 past barrier 1,
  // 3 reduced, 4 past barrier 2, 5 the epilogue's end
  const PhaseStamps stamps = phase_stamps_begin(p, epoch / 2u, entry_clock);
  phase_stamp<0>(stamps);

  const TokenMapping m = token_mapping<T>(p);
  const int chunk = (p.tokens + N - 1) / N;
#if ARLAB_PROBE_TWOSHOT_GAMMA_HELD
  HeldOperands held;
  if constexpr (PatternOutputs<P>::kResidual)
    if (m.t_in_cluster < m.vecs_per_token)
      held.gamma0 = ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(m.t_in_cluster) * kVectorBytes);
#elif ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
  const HeldOperands held;
#endif

  // ---- 1. copy my input into my comm buffer (my elements of every range) ----
  char* my_comm = static_cast<char*>(p.twoshot.my_comm);
#if ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
  const long long sums_at = static_cast<long long>(p.tokens) * m.row_bytes;  // the second copy
  for (int r = 0; r < N; ++r) {
    for (int l = m.cluster_id; l < chunk; l += m.num_clusters) {
      const int tok = r * chunk + l;
      if (tok >= p.tokens) break;
      for_each_my_vector(m, tok * m.row_bytes, [&](int, long long off) {
        st_v4(my_comm + off, vec_clear_neg_zero<T>(ld_input_v4(static_cast<const char*>(p.x) + off)));
      });
    }
  }
#else
  for (int l = m.cluster_id; l < chunk; l += m.num_clusters) {
    for (int r = 0; r < N; ++r) {
      const int tok = r * chunk + l;
      if (tok >= p.tokens) break;
      for_each_my_vector(m, tok * m.row_bytes, [&](int, long long off) {
        st_v4(my_comm + off, vec_clear_neg_zero<T>(ld_input_v4(static_cast<const char*>(p.x) + off)));
      });
    }
  }
#endif

  phase_stamp_synced<1>(stamps);
  twoshot_block_barrier<N>(p, epoch + 1u, 1, aborted);
  phase_stamp<2>(stamps);

  // ---- 3. reduce my range, push the sums to every rank ----
  for (int l = m.cluster_id; l < chunk; l += m.num_clusters) {
    const int tok = p.rank * chunk + l;
    if (tok >= p.tokens) break;
    for_each_my_vector(m, tok * m.row_bytes, [&](int, long long off) {
      float acc[kVec];
#pragma unroll
      for (int base = 0; base < N; base += kBatch) {
        uint4 val[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
          val[j] = ld_comm_v4(static_cast<const char*>(p.twoshot.comm[base + j]) + off);
#pragma unroll
        for (int j = 0; j < kBatch; ++j) add_rank_contribution<T, A>(acc, val[j], base + j == 0);
      }
      finish_rank_sum<T, A>(acc);
      unsigned bits[kVec];
#pragma unroll
      for (int e = 0; e < kVec; ++e) bits[e] = Tr::from_float(acc[e]);
      const uint4 sum = vec_pack<T>(bits);
#pragma unroll
#if ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
      for (int r = 0; r < N; ++r) st_comm_v4(static_cast<char*>(p.twoshot.comm[r]) + sums_at + off, sum);
#else
      for (int r = 0; r < N; ++r) st_comm_v4(static_cast<char*>(p.twoshot.comm[r]) + off, sum);
#endif
    });
  }

  phase_stamp_synced<3>(stamps);
  twoshot_block_barrier<N>(p, epoch + 2u, 2, aborted);
  phase_stamp<4>(stamps);

  // ---- 5. epilogue over my elements of every range ----
  const QuantScales q = load_quant_scales<P>(p);
  int round = 0;
#if ARLAB_PROBE_TWOSHOT_GAMMA_HELD
  // Probe build only (ARLAB_KERNEL_PROBE=twoshot_gamma_held): gamma of the thread's first vector loaded
  // once, before the barriers, and held for every token's epilogue, as the library holds it (the default
  // loads it per token, after the norm's reduction).
  using Epilogue = GammaHeldEpilogue;
#elif ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
  using Epilogue = ReferenceEpilogue;
#endif
#if ARLAB_PROBE_LIBRARY_TWOSHOT_LAYOUT
  for (int r = 0; r < N; ++r) {
    for (int l = m.cluster_id; l < chunk; l += m.num_clusters, ++round) {
      const int tok = r * chunk + l;
      if (tok >= p.tokens) break;
      fused_token_epilogue<T, P, Epilogue>(p, m, sh, fp4_amax_exchange, q, tok, round,
                                 [&](long long off, float (&acc)[kVec]) {
                                   const uint4 s = ld_comm_v4(my_comm + sums_at + off);
#pragma unroll
                                   for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(s, e));
                                 }, held);
    }
  }
#else
  for (int l = m.cluster_id; l < chunk; l += m.num_clusters) {
    for (int r = 0; r < N; ++r, ++round) {
      const int tok = r * chunk + l;
      if (tok >= p.tokens) break;
#if ARLAB_PROBE_TWOSHOT_GAMMA_HELD
      fused_token_epilogue<T, P, Epilogue>(p, m, sh, fp4_amax_exchange, q, tok, round,
                                 [&](long long off, float (&acc)[kVec]) {
                                   const uint4 s = ld_comm_v4(my_comm + off);
#pragma unroll
                                   for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(s, e));
                                 }, held);
#else
      fused_token_epilogue<T, P, ReferenceEpilogue>(p, m, sh, fp4_amax_exchange, q, tok, round,
                                 [&](long long off, float (&acc)[kVec]) {
                                   const uint4 s = ld_comm_v4(my_comm + off);
#pragma unroll
                                   for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(s, e));
                                 });
#endif
    }
  }
#endif

  phase_stamp<5>(stamps);
  if (threadIdx.x == 0) p.twoshot.block_epoch[blockIdx.x] = epoch + 2u;
  // Keep this block's shared memory alive until no other block of the cluster can still read it
  // (lifetime only, a relaxed arrival: kernels/oneshot_kernel.cuh).
  if (m.cluster > 1) cluster_lifetime_barrier();
  phase_stamps_end<6>(stamps, "reference2", N, static_cast<int>(P), p);  // the exit stamp; the record
}

// The two-shot kernel as kernels/instantiate.cuh instantiates it (kernels/families.cmake).
struct TwoshotFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&twoshot_fused_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
