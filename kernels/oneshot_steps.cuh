// The one-shot skeleton: the steps every body on the Lamport workspace of kernels/lamport_layout.h
// takes (kernels/oneshot_kernel.cuh, kernels/oneshot_lean_kernel.cuh, and the lean two-shot
// kernels/twoshot_lean_kernel.cuh), as device functions. A body is the order in which it calls them
// and what it does differently (docs/kernels.md): the control-block read, the buffers of this call,
// the store of one pushed vector into every rank's (or every peer's) slot, the publication of the
// next call's state, the clear pass over the previous call's buffer, the bounded poll of one
// vector's slots, and the lean bodies' poll that sums and clears what it read.
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
constexpr int kFaultCheckPeriod = 64;  // spins between looks at the fault word (another thread's timeout)
// Spins between reads of %globaltimer: the clock starts at the first such read and is compared at every
// later one, so a wait still gives up after p.timeout_ns (+ at most this many spins, well under 100 us
// at about 1 us per L2 round trip), while the spins between the reads are only the load and the test.
constexpr int kTimerCheckPeriod = 16;

struct OneshotShared {
  EpilogueShared epi;
  unsigned long long clear_bytes;  // bytes per slot the call before the previous one left in buffer prev
  int cur;                         // this call's buffer, flag % 3 (thread 0 reads the flag)
  int prev;                        // the previous call's buffer, (flag + 2) % 3
};

struct PollState {
  bool aborted = false;  // a wait of this rank timed out: stop waiting, finish quickly
};

// flag % 3 in 32-bit arithmetic: 2^32 = 1 (mod 3), so flag = hi * 2^32 + lo = hi + lo (mod 3). (nvcc's
// 64-bit remainder by a constant is a chain of wide multiplications; this is two 32-bit ones.)
static_assert(kLamportBuffers == 3, "mod_buffers is the remainder by 3");
__device__ __forceinline__ int mod_buffers(unsigned long long flag) {
  const unsigned lo = static_cast<unsigned>(flag), hi = static_cast<unsigned>(flag >> 32);
  return static_cast<int>((lo % 3u + hi % 3u) % 3u);
}

// The buffers of the call whose flag is `flag`: cur = flag % 3 (this call's), prev = (flag + 2) % 3
// (the previous call's, nobody's until call flag + 2). Thread 0 works them out from the flag it read
// (read_control_block) and the block reads them from shared memory after the barrier.
struct LamportBuffers {
  long long cur = 0;
  long long prev = 0;
};
__device__ __forceinline__ LamportBuffers shared_buffers(const OneshotShared& sh) { return {sh.cur, sh.prev}; }

// Thread 0: reads my control block's flag and the bytes per slot a previous call left to clear in
// buffer prev; puts the buffers cur and prev and those bytes into shared memory (the block reads them
// after a barrier); returns the flag. The flag
// and all three buffers' byte counts are loaded together (independent loads: one L2 round trip, not
// two; the counts are stable during the call: only the last arriver writes one, after every block's
// read).
__device__ __forceinline__ unsigned long long read_control_block(const FusedParams& p, OneshotShared& sh) {
  const unsigned long long flag = ld_volatile_u64(&p.control->flag);
  unsigned long long bytes[kLamportBuffers];
#pragma unroll
  for (int b = 0; b < kLamportBuffers; ++b) bytes[b] = ld_volatile_u64(&p.control->bytes_in_buffer[b]);
  const int cur = mod_buffers(flag);
  const int prev = cur == 0 ? 2 : cur - 1;  // (flag + 2) % 3
  sh.cur = cur;
  sh.prev = prev;
  // Selected without indexing the array by a run-time value: an indexed array lives in local memory, and
  // its store and load (L1 round trips) would sit between the flag's return and the block's barrier.
  static_assert(kLamportBuffers == 3, "the select below names the three buffers");
  sh.clear_bytes = prev == 0 ? bytes[0] : (prev == 1 ? bytes[1] : bytes[2]);
  return flag;
}

// Thread 0: arrives on the counter once its read of `flag` has returned, and returns the count of
// blocks that arrived before (looked at later, by publish_if_last_arriver, so the atomic's round trip
// overlaps the push). The increment depends on the flag's value (flag >> 63 is 0: flag counts calls),
// so the atomic cannot issue before the read has returned, and no block can read a flag that the
// last arriver publishes after seeing this arrival. No fence: a fence here waited for the thread's
// other loads in flight (its epilogue operands, its first vector of x; DRAM misses), and so delayed
// its warp's push by up to a DRAM round trip, 0.4-0.8 us at 1 token (docs/kernels.md).
__device__ __forceinline__ unsigned arrive_after_flag_read(const FusedParams& p, unsigned long long flag) {
  return atomicAdd(&p.control->arrivals, 1u + static_cast<unsigned>(flag >> 63));
}

// The last block to arrive (every block of the grid has read `flag`): resets the counter, records
// the bytes per slot that buffer cur holds after this call (what the call after next must clear) and
// publishes flag + 1. The caller has ordered every block's flag read before these stores.
__device__ __forceinline__ void publish_next_call(LamportControl* c, unsigned long long flag,
                                                  unsigned long long bytes_left_in_cur) {
  volatile LamportControl* vc = c;
  vc->arrivals = 0u;
  vc->bytes_in_buffer[mod_buffers(flag)] = bytes_left_in_cur;
  vc->flag = flag + 1;
}

// Thread 0, once `arrived_before` (arrive_after_flag_read's result) has returned: the block that
// arrived last publishes the next call's state. The stores depend on the atomic's result (they run
// only when it says every other block has arrived, and each block arrived only after its flag read
// had returned), so no block of this call can read the new flag; the next call reads it after this
// kernel has ended (stream order, or PDL's griddepcontrol.wait). No fence: a fence.acq_rel here
// waited for this thread's pushes to be performed before its warp could clear and poll (docs/kernels.md
// gives what it cost). Like the arrival, the ordering rests on dependencies (a GPU performs no store
// before the branch it depends on has resolved), not on a release / acquire pair of the PTX model.
__device__ __forceinline__ void publish_if_last_arriver(const FusedParams& p, unsigned arrived_before,
                                                        unsigned long long flag,
                                                        unsigned long long bytes_left_in_cur) {
  if (arrived_before != gridDim.x - 1) return;
  publish_next_call(p.control, flag, bytes_left_in_cur);
}

// Push of one vector: `val` (16 bytes of my input, -0.0 already turned into +0.0) stored with
// relaxed.sys stores at byte `off` of every rank's Lamport region (kPeersOnly: every rank but me).
template <int N, bool kPeersOnly>
__device__ __forceinline__ void push_vector(const FusedParams& p, long long off, const uint4& val) {
#pragma unroll
  for (int r = 0; r < N; ++r)
    if (!kPeersOnly || r != p.rank) st_relaxed_sys_v4(static_cast<char*>(p.regions[r]) + off, val);
}

// Clear pass: my buffer prev back to -0.0 over the `clear_bytes` per slot its last user wrote, every
// slot, the grid's threads striding over it. Nobody reads or writes buffer prev now (docs/kernels.md).
template <typename T, int N>
__device__ __forceinline__ void clear_previous_buffer(const FusedParams& p, long long prev,
                                                      unsigned long long clear_bytes, int tpb) {
  char* prev_buf = static_cast<char*>(p.my_region) + prev * p.buffer_bytes;
  const long long vecs_per_slot = static_cast<long long>(clear_bytes) / kVectorBytes;
  const long long first = static_cast<long long>(blockIdx.x) * tpb + threadIdx.x;
  const long long step = static_cast<long long>(gridDim.x) * tpb;
  const uint4 neg_zero = vec_neg_zero<T>();
#pragma unroll
  for (int s = 0; s < N; ++s) {
    char* slot = prev_buf + s * p.slot_bytes;
    for (long long i = first; i < vecs_per_slot; i += step) st_v4(slot + i * kVectorBytes, neg_zero);
  }
}

// Bounded poll: waits until every vector in val[0..B) has arrived (no element is the -0.0 bit
// pattern), reloading the ones that have not with relaxed.sys loads. slot0 = the address of this
// vector in slot `first_slot`; slots are slot_bytes apart. After p.timeout_ns (the clock read every
// kTimerCheckPeriod spins, from the first such read) it records the fault
// (rank, block, the missing peer, token) and gives up; it also gives up once another thread of this
// rank has recorded one.
template <typename T, int B>
__device__ __forceinline__ void wait_arrived(uint4 (&val)[B], const char* slot0, long long slot_bytes, int first_slot,
                                             int token, const FusedParams& p, PollState& st) {
  bool done = true;
#pragma unroll
  for (int j = 0; j < B; ++j) done = done && vec_arrived<T>(val[j]);
  if (done || st.aborted) return;
#if ARLAB_PROBE_PLAIN_POLLS
  // Probe build only (ARLAB_KERNEL_PROBE=plain_polls, docs/kernels.md "The faithful reference"): the
  // library's kind of poll, reload and test, with neither the fault-word looks nor the clock reads; a
  // spin count bounds it instead, so that even this build cannot hang (kProbeSpinLimit spins of an L2
  // round trip each, ~0.5-1 us, give up after a few seconds, as the default --timeout-ms does).
  constexpr unsigned kProbeSpinLimit = 1u << 22;
  for (unsigned spin = 1; spin < kProbeSpinLimit; ++spin) {
    done = true;
#pragma unroll
    for (int j = 0; j < B; ++j) {
      if (!vec_arrived<T>(val[j])) val[j] = ld_relaxed_sys_v4(slot0 + j * slot_bytes);
      done = done && vec_arrived<T>(val[j]);
    }
    if (done) return;
  }
  int missing = 0;
#pragma unroll
  for (int j = B - 1; j >= 0; --j)
    if (!vec_arrived<T>(val[j])) missing = j;
  record_fault(p.fault, encode_fault(WaitKind::peer_data, p.rank, first_slot + missing, static_cast<int>(blockIdx.x),
                                     token));
  st.aborted = true;
#else
  unsigned long long start = 0;
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
    if (spin % kTimerCheckPeriod != 0) continue;
    if (spin == kTimerCheckPeriod) start = global_timer_ns();
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
#endif
}

// The lean bodies' poll (kernels/oneshot_lean_kernel.cuh, kernels/twoshot_lean_kernel.cuh): polls the
// peers' slots of one vector (address `vec0` in slot 0), adds them and my own vector `own` in rank
// order 0..N-1 (acc: the T-rounded sum as fp32 values), then clears the peers' slots back to -0.0.
// `own` is my vector as it was loaded from x; its -0.0 elements become +0.0 here, as they did in the
// push.
//  - N = 2: the one peer slot is polled while my vector's load is still in flight (nothing reads
//    `own` before the add). Until 2026-12-02 the N = 2 poll was the general one below, whose
//    predicated poll loads had `own` as their default value, so they issued only once its load (an L1
//    or L2 hit: x was read in the push) had returned: one more round trip per vector beyond a
//    thread's first (cuobjdump -sass, CUDA 13.0, sm_90). One peer vector and mine in registers; the
//    lean one-shot kernels at N = 2 spill nothing since they hold one vector's epilogue operands
//    (ptxas -v; kernels/oneshot_lean_kernel.cuh LeanEpilogueFor).
//  - N >= 4: kBatch slots in flight together (poll_batch: the reference kernel's register cap), my
//    own vector in its slot's place. Holding `own` beside the batch instead (polls not waiting for
//    it) took 8-32 more bytes of stack under the 64-register cap and measured no faster at TP4/TP8
//    (docs/kernels.md).
template <typename T, int N, Accumulation A, int kBatch>
__device__ __forceinline__ void poll_sum_clear(char* vec0, long long slot_bytes, const uint4& own, int token,
                                               const FusedParams& p, PollState& st,
                                               float (&acc)[DTypeTraits<T>::kVec]) {
  if constexpr (N == 2) {
    const int peer = 1 - p.rank;
    char* peer_vec = vec0 + peer * slot_bytes;
    uint4 val[1] = {ld_relaxed_sys_v4(peer_vec)};
    wait_arrived<T, 1>(val, peer_vec, slot_bytes, peer, token, p, st);
    const uint4 mine = vec_clear_neg_zero<T>(own);
    // Rank order; a branch, not selects (rank is the same for the whole grid): selects of uint4 values
    // went through local memory or kept both in registers (nvcc 13.0, ptxas -v).
    if (p.rank == 0) {
      add_rank_contribution<T, A>(acc, mine, true);
      add_rank_contribution<T, A>(acc, val[0], false);
    } else {
      add_rank_contribution<T, A>(acc, val[0], true);
      add_rank_contribution<T, A>(acc, mine, false);
    }
  } else {
    const uint4 mine = vec_clear_neg_zero<T>(own);
#pragma unroll
    for (int base = 0; base < N; base += kBatch) {
      uint4 val[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        val[j] = base + j == p.rank ? mine : ld_relaxed_sys_v4(vec0 + (base + j) * slot_bytes);
      // `mine` never looks "not arrived" (its -0.0 were turned into +0.0), so it is never reloaded.
      wait_arrived<T, kBatch>(val, vec0 + base * slot_bytes, slot_bytes, base, token, p, st);
#pragma unroll
      for (int j = 0; j < kBatch; ++j) add_rank_contribution<T, A>(acc, val[j], base + j == 0);
    }
  }
  finish_rank_sum<T, A>(acc);
  if (st.aborted) return;  // not every slot arrived: leave them; the host re-initializes the workspace
  const uint4 neg_zero = vec_neg_zero<T>();
#pragma unroll
  for (int r = 0; r < N; ++r)
    if (r != p.rank) st_v4(vec0 + r * slot_bytes, neg_zero);
}

}  // namespace arlab::kernels
