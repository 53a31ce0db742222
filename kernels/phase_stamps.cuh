// Phase stamps: where a fused call's time goes, phase by phase, in all four bodies, for probe builds only
// (ARLAB_KERNEL_PROBE=phase_stamps; docs/kernels.md, "Phase stamps"). In every other build each hook
// below is empty (a default build's two-shot objects keep their size, docs/kernels.md).
//
// WHAT IS RECORDED: thread 0 of every block reads its SM's cycle counter (clock64) at the body's phase
// boundaries and keeps the values in registers; at the end of every call it stores them, with the call's
// shape and a per-call counter that every block of every rank agrees on, into a record of its own (rank,
// block) in device memory. On a sampled call (counter % kPhaseSamplePeriod == 0) it first prints the record
// it stored at the end of its previous call, one line per block:
//   ARLAB_PHASE body=<name> n=<N> pattern=<int> rank=<r> block=<b> tokens=<T> hidden=<H> tpb=<tpb>
//   cluster=<c> grid=<g> vpt=<v> call=<counter> smid=<sm> t0=<ns> stamps=<c1>,<c2>,...
// c_i being the cycles from the block's first stamp to stamp i, t0 the %globaltimer at the first (one
// clock for every SM: it says which rank started last). The line describes a call that printed
// nothing (in a printing call, blocks were seen at several times the kernel's median time). Cycles of
// one SM's counter, so only differences within a block mean anything; scripts/phase_table.py turns them
// into microseconds with the SM clock of the run and sets them beside `arlab predict`'s terms. The records are a module-scope __device__ array of each kernel's translation
// unit (one per instantiation; a probe build's scratch, nothing reads it but the hook).
//
// WHERE A STAMP SITS: at a point the whole block has passed (after a __syncthreads of the body, or of
// the hook itself: phase_stamp_synced adds one; the body's next step starts with a block barrier
// anyway, so the added one costs only its own issue), or, where the body has no block-wide point, at
// thread 0's own progress (phase_stamp).
//
// What a probe build changes: a few clock reads and a record of 96 bytes stored per block and call; on one
// call in kPhaseSamplePeriod, a printf of thread 0 (that call is slower: one call in 251 of a run's timed
// calls). What the hooks cost a call has not been measured yet.
#pragma once

#include <cstdio>

#include "kernels/device_sync.cuh"
#include "kernels/fused_params.h"

namespace arlab::kernels {

constexpr int kMaxPhaseStamps = 6;       // boundaries a body records (the reference two-shot has 6, the others 4)
// One call in this many prints: a prime, so that the sampled calls fall on every member of an interleaved
// run (members take turns in batches of 16 calls, scripts/phase_probe.sh).
constexpr int kPhaseSamplePeriod = 251;

#if ARLAB_PROBE_PHASE_STAMPS
struct PhaseStamps {
  long long at[kMaxPhaseStamps] = {};
  unsigned long long start_ns = 0;  // %globaltimer at stamp 0: which rank started last
};

// Thread 0's stamp `i` at its own progress (compile-time index: the stamps stay in registers).
template <int I>
__device__ __forceinline__ void phase_stamp(PhaseStamps& s) {
  static_assert(I >= 0 && I < kMaxPhaseStamps, "phase stamp index out of range");
  if (threadIdx.x == 0) {
    s.at[I] = clock64();
    if constexpr (I == 0) s.start_ns = global_timer_ns();
  }
}

// Stamp `i` once every thread of the block has reached it.
template <int I>
__device__ __forceinline__ void phase_stamp_synced(PhaseStamps& s) {
  __syncthreads();
  phase_stamp<I>(s);
}

// One block's record of its last call.
struct PhaseRecord {
  long long at[kMaxPhaseStamps];
  unsigned long long call, start_ns;
  int tokens, hidden, tpb, cluster, grid, vpt, smid;
};
constexpr int kPhaseRecordBlocks = 1024;  // blocks with a record (kMaxTwoShotBlocks); others keep none
__device__ PhaseRecord phase_records[kMaxRanks][kPhaseRecordBlocks];

// Thread 0, at the end of a call: on a sampled call, print the record of the block's previous call
// (`call`: a counter equal on every block and rank for the same call); then store this call's.
template <int Stamps>
__device__ __noinline__ void phase_stamps_print(const PhaseStamps& s, const char* body, int n, int pattern,
                                                const FusedParams& p, unsigned long long call) {
  static_assert(Stamps >= 2 && Stamps <= kMaxPhaseStamps, "a body records 2 to kMaxPhaseStamps stamps");
  if (threadIdx.x != 0 || blockIdx.x >= kPhaseRecordBlocks || p.rank < 0 || p.rank >= kMaxRanks) return;
  PhaseRecord& r = phase_records[p.rank][blockIdx.x];
  if (call % kPhaseSamplePeriod == 0 && r.call + 1 == call) {
    long long d[kMaxPhaseStamps] = {};
#pragma unroll
    for (int i = 1; i < Stamps; ++i) d[i] = r.at[i] - r.at[0];
    printf("ARLAB_PHASE body=%s n=%d pattern=%d rank=%d block=%d tokens=%d hidden=%d tpb=%d cluster=%d grid=%d vpt=%d "
           "call=%llu smid=%d t0=%llu stamps=%lld,%lld,%lld,%lld,%lld\n",
           body, n, pattern, p.rank, static_cast<int>(blockIdx.x), r.tokens, r.hidden, r.tpb, r.cluster, r.grid, r.vpt,
           r.call, r.smid, r.start_ns, d[1], d[2], d[3], d[4], d[5]);
  }
  unsigned smid = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
#pragma unroll
  for (int i = 0; i < kMaxPhaseStamps; ++i) r.at[i] = s.at[i];
  r.call = call;
  r.start_ns = s.start_ns;
  r.tokens = p.tokens;
  r.hidden = p.hidden;
  r.tpb = static_cast<int>(blockDim.x);
  r.cluster = p.cluster;
  r.grid = static_cast<int>(gridDim.x);
  r.vpt = p.vecs_per_thread;
  r.smid = static_cast<int>(smid);
}
#else
struct PhaseStamps {};
template <int I>
__device__ __forceinline__ void phase_stamp(PhaseStamps&) {}
template <int I>
__device__ __forceinline__ void phase_stamp_synced(PhaseStamps&) {}
template <int Stamps>
__device__ __forceinline__ void phase_stamps_print(const PhaseStamps&, const char*, int, int, const FusedParams&,
                                                   unsigned long long) {}
#endif

}  // namespace arlab::kernels
