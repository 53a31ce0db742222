// The one-shot fused all-reduce kernel (docs/operation.md, docs/kernels.md): Lamport push all-reduce + residual add +
// RMSNorm + optional FP8 / NVFP4 quantization, one kernel body templated on
// <T, N, Pattern, Accumulation>. Instantiated in kernels/oneshot_inst_*.cu, selected through the
// one dispatch point kernels/dispatch.h.
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

#include "kernels/fused_epilogue.cuh"

namespace arlab::kernels {

// Slots polled together (16 B each in flight per thread). 1024-thread blocks cap a thread at 64
// registers; with N >= 8 and a quantizing epilogue 4 in flight spill a few bytes, 2 do not
// (ptxas -v, CUDA 13.0, sm_90).
template <int N, bool kQuantizes>
__host__ __device__ constexpr int poll_batch() {
  return N <= 4 ? N : (kQuantizes ? 2 : 4);
}
constexpr int kFaultCheckPeriod = 64;      // spins between looks at the fault word (another thread's timeout)

struct OneshotShared {
  EpilogueShared epi;
  unsigned long long flag;
  unsigned long long clear_bytes;
};

struct PollState {
  bool aborted = false;  // a wait of this rank timed out: stop waiting, finish quickly
};

// Waits until every vector in val[0..B) has arrived, reloading the ones that have not.
// slot0 = address of this vector in slot `first_slot`; slots are slot_bytes apart.
template <typename T, int B>
__device__ __forceinline__ void wait_arrived(uint4 (&val)[B], const char* slot0, long long slot_bytes, int first_slot,
                                             int token, const FusedParams& p, PollState& st) {
  bool done = true;
#pragma unroll
  for (int j = 0; j < B; ++j) done = done && vec_arrived<T>(val[j]);
  if (done || st.aborted) return;
  const unsigned long long start = global_timer_ns();
  for (unsigned spin = 1;; ++spin) {
    done = true;
#pragma unroll
    for (int j = 0; j < B; ++j) {
      if (!vec_arrived<T>(val[j])) val[j] = ld_relaxed_sys_v4(slot0 + j * slot_bytes);
      done = done && vec_arrived<T>(val[j]);
    }
    if (done) return;
    if (spin % kFaultCheckPeriod == 0 && ld_volatile_u64(p.fault) != 0ull) {
      st.aborted = true;  // another wait of this rank already timed out
      return;
    }
    if (global_timer_ns() - start > p.timeout_ns) {
      int missing = 0;
#pragma unroll
      for (int j = B - 1; j >= 0; --j)
        if (!vec_arrived<T>(val[j])) missing = j;
      record_fault(p.fault, encode_fault(WaitKind::peer_data, p.rank, first_slot + missing,
                                         static_cast<int>(blockIdx.x), token));
      st.aborted = true;
      return;
    }
  }
}

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
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const TokenMapping m = token_mapping<T>(p);
  const int tpb = m.tpb;
  const int cluster_id = m.cluster_id;
  const int num_clusters = m.num_clusters;
  const int t_in_cluster = m.t_in_cluster;
  const int stride = m.stride;
  const int vpt = m.vecs_per_thread;
  const int vecs_per_token = m.vecs_per_token;
  const long long row_bytes = m.row_bytes;

  // ---- 1. control block: read flag, arrive; the last arriver publishes the next call's state ----
  if (threadIdx.x == 0) {
    LamportControl* c = p.control;
    const unsigned long long flag = ld_volatile_u64(&c->flag);
    sh.flag = flag;
    sh.clear_bytes = ld_volatile_u64(&c->bytes_in_buffer[(flag + 2) % kLamportBuffers]);
    __threadfence();  // my reads of the control block happen before my arrival
    const unsigned arrived_before = atomicAdd(&c->arrivals, 1u);
    if (arrived_before == gridDim.x - 1) {
      __threadfence();  // every block's reads happen before the stores below
      volatile LamportControl* vc = c;
      vc->arrivals = 0u;
      vc->bytes_in_buffer[flag % kLamportBuffers] = static_cast<unsigned long long>(p.tokens) * row_bytes;
      vc->flag = flag + 1;
    }
  }
  __syncthreads();
  pdl_launch_dependents();

  const unsigned long long flag = sh.flag;
  const long long cur = static_cast<long long>(flag % kLamportBuffers);
  const long long prev = static_cast<long long>((flag + 2) % kLamportBuffers);

  // ---- 2. push my input into slot `rank` of buffer cur of every rank ----
  {
    const long long my_slot = cur * p.buffer_bytes + static_cast<long long>(p.rank) * p.slot_bytes;
    for (int tok = cluster_id; tok < p.tokens; tok += num_clusters) {
      const char* x_row = static_cast<const char*>(p.x) + tok * row_bytes;
#pragma unroll 1
      for (int k = 0; k < vpt; ++k) {
        const int v = t_in_cluster + k * stride;
        if (v < vecs_per_token) {
          const uint4 val = vec_clear_neg_zero<T>(ld_input_v4(x_row + v * kVectorBytes));
          const long long off = my_slot + tok * row_bytes + static_cast<long long>(v) * kVectorBytes;
#pragma unroll
          for (int r = 0; r < N; ++r) st_relaxed_sys_v4(static_cast<char*>(p.regions[r]) + off, val);
        }
      }
    }
  }

  // ---- 3. clear my buffer of the previous call back to -0.0 ----
  {
    char* prev_buf = static_cast<char*>(p.my_region) + prev * p.buffer_bytes;
    const long long vecs_per_slot = static_cast<long long>(sh.clear_bytes) / kVectorBytes;
    const long long first = static_cast<long long>(blockIdx.x) * tpb + threadIdx.x;
    const long long step = static_cast<long long>(gridDim.x) * tpb;
    const uint4 neg_zero = vec_neg_zero<T>();
#pragma unroll
    for (int s = 0; s < N; ++s) {
      char* slot = prev_buf + s * p.slot_bytes;
      for (long long i = first; i < vecs_per_slot; i += step) st_v4(slot + i * kVectorBytes, neg_zero);
    }
  }

  // ---- 4. poll, reduce, epilogue (kernels/fused_epilogue.cuh) ----
  const char* my_cur = static_cast<const char*>(p.my_region) + cur * p.buffer_bytes;
  PollState st;
  const QuantScales q = load_quant_scales<P>(p);
  int parity = 0;
  for (int tok = cluster_id; tok < p.tokens; tok += num_clusters, parity ^= 1) {
    fused_token_epilogue<T, P>(p, m, sh.epi, fp4_amax_exchange, q, tok, parity, [&](long long off, float(&acc)[kVec]) {
      poll_and_sum<T, N, A, poll_batch<N, P != Pattern::ar && P != Pattern::ar_res_rms>()>(my_cur + off, p.slot_bytes,
                                                                                           tok, p, st, acc);
    });
  }

  // Keep this block's shared memory alive until no other block of the cluster can still read it.
  if (m.cluster > 1) cooperative_groups::this_cluster().sync();
}

// The one-shot kernel as kernels/instantiate.cuh instantiates it.
struct OneshotFamily {
  template <typename T, int N, Pattern P, Accumulation A>
  static const void* kernel() { return reinterpret_cast<const void*>(&oneshot_fused_kernel<T, N, P, A>); }
};

}  // namespace arlab::kernels
