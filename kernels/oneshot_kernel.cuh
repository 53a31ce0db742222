// The one-shot fused all-reduce kernel (DESIGN §2, §3): Lamport push all-reduce + residual add +
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
//     after every add; fp32_acc: round once), then the epilogue: residual add, RMSNorm with the sum
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

#include <cooperative_groups.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include "common/problem.h"
#include "kernels/device_sync.cuh"
#include "kernels/dtype_traits.cuh"
#include "kernels/fused_params.h"

namespace arlab::kernels {

constexpr int kMaxThreadsPerBlock = 1024;  // CUDA's limit; every legal tpb must launch
constexpr int kWarpSize = 32;
constexpr int kMaxWarps = kMaxThreadsPerBlock / kWarpSize;
constexpr int kPollBatch = 4;              // slots polled together: 4 x 16 B in flight per thread (64-register cap)
constexpr int kFaultCheckPeriod = 64;      // spins between looks at the fault word (another thread's timeout)
constexpr float kFp4Max = 6.0f;            // largest e2m1 magnitude (DESIGN §2: sf = e4m3(S*amax/6))

struct OneshotShared {
  float warp_partial[2][kMaxWarps];  // [token parity][warp]
  float block_total[2];              // [token parity], read by the other blocks of the cluster
  unsigned long long flag;
  unsigned long long clear_bytes;
};

// Sum over the first `lanes` lanes of the warp, valid in lane 0. Lanes beyond `lanes` do not exist
// (the last warp of a block whose size is not a multiple of 32); their shuffle results are ignored.
__device__ __forceinline__ float warp_sum_to_lane0(float v, unsigned lanes) {
  const unsigned mask = lanes >= 32u ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) {
    const float other = __shfl_xor_sync(mask, v, m);
    if ((lane ^ static_cast<unsigned>(m)) < lanes) v += other;
  }
  return v;
}

// Sum of v over every thread of the cluster, the same value in every thread (fixed order: warps of
// a block by index, blocks of the cluster by rank). `parity` alternates per token so that one
// barrier per token suffices (block_total is double-buffered for the remote readers).
__device__ __forceinline__ float cluster_sum(float v, OneshotShared& sh, int parity, int cluster) {
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned nwarps = (blockDim.x + 31u) >> 5;
  v = warp_sum_to_lane0(v, min(32u, blockDim.x - warp * 32u));
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
  float total = 0.0f;
  for (int r = 0; r < cluster; ++r) total += *cl.map_shared_rank(&sh.block_total[parity], r);
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
template <typename T, int N, Accumulation A>
__device__ __forceinline__ void poll_and_sum(const char* vec0, long long slot_bytes, int token, const FusedParams& p,
                                             PollState& st, float (&acc)[DTypeTraits<T>::kVec]) {
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;
  constexpr int kBatch = N < kPollBatch ? N : kPollBatch;
#pragma unroll
  for (int base = 0; base < N; base += kBatch) {
    uint4 val[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) val[j] = ld_relaxed_sys_v4(vec0 + (base + j) * slot_bytes);
    wait_arrived<T, kBatch>(val, vec0 + base * slot_bytes, slot_bytes, base, token, p, st);
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float x = Tr::to_float(vec_get<T>(val[j], e));
        if (base + j == 0) {
          acc[e] = x;
        } else if constexpr (A == Accumulation::pairwise) {
          acc[e] = Tr::to_float(Tr::from_float(__fadd_rn(acc[e], x)));  // round to T after every add
        } else {
          acc[e] = __fadd_rn(acc[e], x);
        }
      }
    }
  }
  if constexpr (A == Accumulation::fp32_acc) {
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(Tr::from_float(acc[e]));  // round once
  }
}

// NVFP4 scale-factor offset of (token m, 16-element block k) in LINEAR or SWIZZLED 128x4 (DESIGN §2).
__device__ __forceinline__ long long sf_offset(bool swizzled, long long m, long long k, long long hidden) {
  if (!swizzled) return m * (hidden / 16) + k;
  const long long col_tiles = (hidden + 63) / 64;  // ceil(H/64): 4 blocks of 16 per 128x4 tile column
  return (m / 128) * (col_tiles * 512) + (k / 4) * 512 + (m % 32) * 16 + ((m % 128) / 32) * 4 + (k % 4);
}

__device__ __forceinline__ float e4m3_to_float(__nv_fp8_storage_t v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3)));
}

// Four per-vector floats kept in registers while the loops over k stay rolled (`#pragma unroll 1`
// keeps one copy of the heavy loop bodies, which is what holds the register count under the cap):
// selects instead of a run-time-indexed array, which would live in local memory.
struct PerVector4 {
  float v0 = 0.0f, v1 = 0.0f, v2 = 0.0f, v3 = 0.0f;
  __device__ __forceinline__ float get(int k) const { return k == 0 ? v0 : k == 1 ? v1 : k == 2 ? v2 : v3; }
  __device__ __forceinline__ void set(int k, float x) {
    v0 = k == 0 ? x : v0;
    v1 = k == 1 ? x : v1;
    v2 = k == 2 ? x : v2;
    v3 = k == 3 ? x : v3;
  }
};

template <typename T, int N, Pattern P, Accumulation A>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1) oneshot_fused_kernel(const __grid_constant__ FusedParams p) {
  using Tr = DTypeTraits<T>;
  constexpr int kVec = Tr::kVec;
  constexpr bool kResidual = P != Pattern::ar;
  constexpr bool kNormOut = P == Pattern::ar_res_rms || P == Pattern::ar_res_rms_out_fp8 ||
                            P == Pattern::ar_res_rms_out_fp4;
  constexpr bool kFp8 = P == Pattern::ar_res_rms_fp8 || P == Pattern::ar_res_rms_out_fp8;
  constexpr bool kFp4 = P == Pattern::ar_res_rms_fp4 || P == Pattern::ar_res_rms_out_fp4;
  static_assert(!kFp4 || Tr::kBytes == 2, "NVFP4 patterns need a 16-bit T (DESIGN §2)");

  __shared__ OneshotShared sh;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb], odd tpb with NVFP4 only

  pdl_wait_for_prerequisites();

  const int tpb = static_cast<int>(blockDim.x);
  const int cs = p.cluster;
  const int cluster_id = static_cast<int>(blockIdx.x) / cs;
  const int block_in_cluster = static_cast<int>(blockIdx.x) % cs;
  const int num_clusters = static_cast<int>(gridDim.x) / cs;
  const int t_in_cluster = block_in_cluster * tpb + static_cast<int>(threadIdx.x);
  const int stride = tpb * cs;  // vector stride between a thread's k-th and (k+1)-th vector
  const int vpt = p.vecs_per_thread;
  const int H = p.hidden;
  const int vecs_per_token = H / kVec;
  const long long row_bytes = static_cast<long long>(H) * Tr::kBytes;

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

  // ---- 4. poll, reduce, epilogue ----
  // Register budget (64 per thread at 1024 threads): only the first vector's residual sum (h0) and
  // norm (n0) stay in registers across the cluster barriers; the values of vectors k >= 1 are read
  // back from residual_out, which this same thread has just written (program order makes its own
  // stores visible to it; outputs never alias inputs).
  const char* my_cur = static_cast<const char*>(p.my_region) + cur * p.buffer_bytes;
  PollState st;
  float fp8_rcp = 0.0f, fp4_global = 0.0f;
  if constexpr (kFp8) fp8_rcp = __fdiv_rn(1.0f, *p.scale);  // rcp = 1 / scale, once (DESIGN §2)
  if constexpr (kFp4) fp4_global = *p.scale;
  const bool fp4_pairs_in_warp = (tpb % 2) == 0;  // vector v^1 then lives in lane^1 of the same warp
  int parity = 0;

  for (int tok = cluster_id; tok < p.tokens; tok += num_clusters, parity ^= 1) {
    const long long row = tok * row_bytes;
    uint4 h0 = make_uint4(0u, 0u, 0u, 0u);
    float sum_sq = 0.0f;
#pragma unroll 1
    for (int k = 0; k < vpt; ++k) {
      const int v = t_in_cluster + k * stride;
      if (v < vecs_per_token) {
        const long long off = row + static_cast<long long>(v) * kVectorBytes;
        uint4 res = make_uint4(0u, 0u, 0u, 0u);
        if constexpr (kResidual) res = ld_input_v4(static_cast<const char*>(p.residual_in) + off);
        float acc[kVec];
        poll_and_sum<T, N, A>(my_cur + off, p.slot_bytes, tok, p, st, acc);
        unsigned bits[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          if constexpr (kResidual) {
            bits[e] = Tr::from_float(__fadd_rn(acc[e], Tr::to_float(vec_get<T>(res, e))));
            const float hv = Tr::to_float(bits[e]);
            sum_sq += hv * hv;
          } else {
            bits[e] = Tr::from_float(acc[e]);
          }
        }
        const uint4 hk = vec_pack<T>(bits);
        if (k == 0) h0 = hk;
        st_v4(static_cast<char*>(kResidual ? p.residual_out : p.allreduce_out) + off, hk);
      }
    }
    if constexpr (kResidual) {
      const float total = cluster_sum(sum_sq, sh, parity, cs);
      const float inv = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(total, static_cast<float>(H)), p.eps)));
      // norm of vector k: round_T((float(h) * inv) * float(gamma)), the same wherever it is recomputed
      auto norm_of = [&](int k, int v) -> uint4 {
        const long long off = row + static_cast<long long>(v) * kVectorBytes;
        const uint4 hk = k == 0 ? h0 : *reinterpret_cast<const uint4*>(static_cast<const char*>(p.residual_out) + off);
        const uint4 g = ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(v) * kVectorBytes);
        unsigned nbits[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          nbits[e] = Tr::from_float(__fmul_rn(__fmul_rn(Tr::to_float(vec_get<T>(hk, e)), inv), Tr::to_float(vec_get<T>(g, e))));
        return vec_pack<T>(nbits);
      };
      PerVector4 amax;
      uint4 n0 = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll 1
      for (int k = 0; k < vpt; ++k) {
        const int v = t_in_cluster + k * stride;
        if (v < vecs_per_token) {
          const long long off = row + static_cast<long long>(v) * kVectorBytes;
          const uint4 nk = norm_of(k, v);
          if (k == 0) n0 = nk;
          if constexpr (kNormOut) st_v4(static_cast<char*>(p.norm_out) + off, nk);
          if constexpr (kFp4) {
            float a = 0.0f;
#pragma unroll
            for (int e = 0; e < kVec; ++e) a = fmaxf(a, fabsf(Tr::to_float(vec_get<T>(nk, e))));
            amax.set(k, a);
          }
          if constexpr (kFp8) {
            unsigned codes[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e)
              codes[e] = __nv_cvt_float_to_fp8(__fmul_rn(Tr::to_float(vec_get<T>(nk, e)), fp8_rcp), __NV_SATFINITE,
                                               __NV_E4M3);
            char* q = static_cast<char*>(p.quant_out) + static_cast<long long>(tok) * H + static_cast<long long>(v) * kVec;
            if constexpr (kVec == 8) {
              *reinterpret_cast<uint2*>(q) = make_uint2(codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24),
                                                        codes[4] | (codes[5] << 8) | (codes[6] << 16) | (codes[7] << 24));
            } else {
              *reinterpret_cast<unsigned*>(q) = codes[0] | (codes[1] << 8) | (codes[2] << 16) | (codes[3] << 24);
            }
          }
        }
      }
      if constexpr (kFp4) {
        // A 16-element scale block is vectors (2j, 2j+1): combine my amax with the partner's.
        PerVector4 partner;
        if (fp4_pairs_in_warp) {
          const unsigned warp = threadIdx.x >> 5;
          const unsigned lanes = min(32u, blockDim.x - warp * 32u);
          const unsigned mask = lanes >= 32u ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
#pragma unroll 1
          for (int k = 0; k < vpt; ++k) partner.set(k, __shfl_xor_sync(mask, amax.get(k), 1));
        } else {
          // Odd tpb: v^1 may belong to another k, another thread or another block of the cluster.
#pragma unroll 1
          for (int k = 0; k < vpt; ++k) fp4_amax_exchange[k * tpb + threadIdx.x] = amax.get(k);
          cluster_barrier(cs);
#pragma unroll 1
          for (int k = 0; k < vpt; ++k) {
            const int v = t_in_cluster + k * stride;
            if (v < vecs_per_token) {
              const int pv = v ^ 1;
              const int owner = pv % stride, owner_k = pv / stride;
              const int owner_block = owner / tpb, owner_thread = owner % tpb;
              float* slot = &fp4_amax_exchange[owner_k * tpb + owner_thread];
              if (cs > 1 && owner_block != block_in_cluster)
                slot = cooperative_groups::this_cluster().map_shared_rank(slot, owner_block);
              partner.set(k, *slot);
            }
          }
        }
#pragma unroll 1
        for (int k = 0; k < vpt; ++k) {
          const int v = t_in_cluster + k * stride;
          if (v < vecs_per_token) {
            const uint4 nk = k == 0 ? n0 : norm_of(k, v);
            const float block_amax = fmaxf(amax.get(k), partner.get(k));
            const __nv_fp8_storage_t sf =
                __nv_cvt_float_to_fp8(__fdiv_rn(__fmul_rn(fp4_global, block_amax), kFp4Max), __NV_SATFINITE, __NV_E4M3);
            const float sf_value = e4m3_to_float(sf);
            const float out_scale = sf_value == 0.0f ? 0.0f : __fdiv_rn(fp4_global, sf_value);
            unsigned packed = 0;
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
              const unsigned code = __nv_cvt_float_to_fp4(__fmul_rn(Tr::to_float(vec_get<T>(nk, e)), out_scale),
                                                          __NV_E2M1, cudaRoundNearest);
              packed |= (code & 0xFu) << (4 * e);  // even element in the low nibble
            }
            char* q = static_cast<char*>(p.quant_out) + static_cast<long long>(tok) * (H / 2) +
                      static_cast<long long>(v) * (kVec / 2);
            *reinterpret_cast<unsigned*>(q) = packed;
            if ((v & 1) == 0)
              static_cast<unsigned char*>(p.scale_out)[sf_offset(p.sf_swizzled != 0, tok, v / 2, H)] = sf;
          }
        }
      }
    }
  }

  // Keep this block's shared memory alive until no other block of the cluster can still read it.
  if (cs > 1) cooperative_groups::this_cluster().sync();
}

}  // namespace arlab::kernels
