// Phase stamps: where a fused call's time goes, phase by phase, in all four bodies, for probe builds only
// (ARLAB_KERNEL_PROBE=phase_stamps; docs/kernels.md, "Phase stamps"). In every other build each hook
// below is empty (a default build's two-shot objects keep their size, docs/kernels.md).
//
// WHAT IS RECORDED: thread 0 of every block stores its SM's cycle counter (clock64) at the kernel's first
// instruction (slot 0, "entry"), at the body's phase boundaries and at its last instruction, after the
// closing cluster barrier ("exit"), straight into a record of its own (rank, block) in device memory, one
// of two that calls take in turn by the parity of a per-call counter that every block of every rank
// agrees on; at the end of the call it adds the call's shape. On a sampled call (counter %
// kPhaseSamplePeriod == 0) it then prints the other record, the one its previous call stored, one line per
// block:
//   ARLAB_PHASE body=<name> n=<N> pattern=<int> rank=<r> block=<b> tokens=<T> hidden=<H> tpb=<tpb>
//   cluster=<c> grid=<g> vpt=<v> call=<counter> smid=<sm> t0=<ns> stamps=<c1>,...,<c7>
// c_i being the cycles from the entry to slot i (slot 1: the body's first stamp, where its prologue ends;
// the slot after the body's last: the exit; later ones 0), t0 the %globaltimer at the body's first stamp
// (one clock for every SM: it says which rank started last). Until session 57's third version the line
// had five values counted from the body's first stamp, with no entry or exit (scripts/phase_table.py
// reads both). The line describes a call that printed nothing (in a printing call, blocks were seen at
// several times the kernel's median time). Cycles of one SM's counter, so only differences within a block
// mean anything; scripts/phase_table.py turns them into microseconds with the SM clock of the run and sets
// them beside `arlab predict`'s terms. The records are a module-scope __device__ array of each kernel's
// translation unit (one per instantiation; a probe build's scratch, nothing reads it but the hooks).
//
// WHERE A STAMP SITS: at a point the whole block has passed (after a __syncthreads of the body, or of
// the hook itself: phase_stamp_synced adds one; the body's next step starts with a block barrier
// anyway, so the added one costs only its own issue), or, where the body has no block-wide point, at
// thread 0's own progress (phase_stamp).
//
// WHAT A PROBE BUILD COSTS A CALL (scripts/phase_table.py --hooks-cost, docs/kernels.md "Phase stamps"): the
// first version (session 56) kept the stamps in registers until the call's end and called a non-inlined
// function holding the printf at the end of every call; on an H100 (session 57) its calls took 1.05-1.35x
// the default build's one-shot calls (0.8-4.6 us, the most at 1024 threads a block) and 1.01-1.20x the
// two-shot ones. The second holds nothing across the body but the counter the body keeps
// anyway (each stamp recomputes its record's address and stores at once), and calls the printing function
// (scalars and a record pointer) on sampled calls alone: 1.03x (0.97-1.10x) and 1.01x (0.93-1.08x) on
// another H100, about 0.3 us in the median call. This third one adds the entry and exit stamps (the
// entry's cycles held in a register through the prologue).
#pragma once

#include <cstdio>

#include "kernels/device_sync.cuh"
#include "kernels/fused_params.h"

namespace arlab::kernels {

constexpr int kMaxPhaseStamps = 8;  // boundaries a record holds: entry, a body's own (the reference two-shot has 6, the
                                    // others 4), exit
// One call in this many prints: a prime, so that the sampled calls fall on every member of an interleaved
// run (members take turns in batches of 16 calls, scripts/phase_probe.sh).
constexpr int kPhaseSamplePeriod = 251;

#if ARLAB_PROBE_PHASE_STAMPS
// One block's record of one call.
struct PhaseRecord {
  long long at[kMaxPhaseStamps];
  unsigned long long call, start_ns;
  int tokens, hidden, tpb, cluster, grid, vpt, smid;
};
constexpr int kPhaseRecordBlocks = 1024;  // blocks with a record (kMaxTwoShotBlocks); others keep none
// [call parity][rank][block]: a call writes one while a sampled call prints the other (its previous call's).
__device__ PhaseRecord phase_records[2][kMaxRanks][kPhaseRecordBlocks];

// What the hooks need: the rank and the call's counter (its low 32 bits: one register where the body
// does not hold the counter anyway).
struct PhaseStamps {
  int rank;
  unsigned call;
};
// Thread 0's record of this call (null where the block or rank has none).
__device__ __forceinline__ PhaseRecord* phase_record_of(int rank, unsigned call) {
  if (blockIdx.x >= kPhaseRecordBlocks || rank < 0 || rank >= kMaxRanks) return nullptr;
  return &phase_records[call & 1u][rank][blockIdx.x];
}
// The cycle counter at the kernel's first instruction, before the call's counter (and so its record) is
// known: held in a register through the prologue only.
__device__ __forceinline__ long long phase_entry_clock() { return clock64(); }
// Where the body knows the call's counter: record slot 0, the entry's cycles.
__device__ __forceinline__ PhaseStamps phase_stamps_begin(const FusedParams& p, unsigned long long call,
                                                          long long entry_clock) {
  const PhaseStamps s{p.rank, static_cast<unsigned>(call)};
  if (threadIdx.x == 0) {
    PhaseRecord* r = phase_record_of(s.rank, s.call);
    if (r != nullptr) r->at[0] = entry_clock;
  }
  return s;
}

// Thread 0's stamp `I` of the body (record slot I + 1) at its own progress, stored at once.
template <int I>
__device__ __forceinline__ void phase_stamp(const PhaseStamps& s) {
  static_assert(I >= 0 && I + 2 < kMaxPhaseStamps, "phase stamp index out of range (slot 0: entry, the last: exit)");
  if (threadIdx.x != 0) return;
  PhaseRecord* r = phase_record_of(s.rank, s.call);
  if (r == nullptr) return;
  r->at[I + 1] = clock64();
  if constexpr (I == 0) r->start_ns = global_timer_ns();
}

// Stamp `I` once every thread of the block has reached it.
template <int I>
__device__ __forceinline__ void phase_stamp_synced(const PhaseStamps& s) {
  __syncthreads();
  phase_stamp<I>(s);
}

// The printf of one record (sampled calls only; scalars and a pointer to global memory, so that the
// kernel's parameters are never copied to give this call their address).
template <int Stamps>
__device__ __noinline__ void phase_record_print(const PhaseRecord* r, const char* body, int n, int pattern, int rank) {
  long long d[kMaxPhaseStamps] = {};
#pragma unroll
  for (int i = 1; i < Stamps + 2; ++i) d[i] = r->at[i] - r->at[0];
  printf("ARLAB_PHASE body=%s n=%d pattern=%d rank=%d block=%d tokens=%d hidden=%d tpb=%d cluster=%d grid=%d vpt=%d "
         "call=%llu smid=%d t0=%llu stamps=%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
         body, n, pattern, rank, static_cast<int>(blockIdx.x), r->tokens, r->hidden, r->tpb, r->cluster, r->grid,
         r->vpt, r->call, r->smid, r->start_ns, d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
}

// Thread 0, at the kernel's last instruction (after the closing cluster barrier, where there is one): the
// exit stamp (slot Stamps + 1) and the call's shape; on a sampled call the previous call's record (the
// other parity, if that call was the one just before) is printed.
template <int Stamps>
__device__ __forceinline__ void phase_stamps_end(const PhaseStamps& s, const char* body, int n, int pattern,
                                                   const FusedParams& p) {
  static_assert(Stamps >= 2 && Stamps + 2 <= kMaxPhaseStamps, "a body records 2 to kMaxPhaseStamps - 2 stamps");
  if (threadIdx.x != 0) return;
  PhaseRecord* r = phase_record_of(s.rank, s.call);
  if (r == nullptr) return;
  r->at[Stamps + 1] = clock64();
  unsigned smid = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  r->call = s.call;
  r->tokens = p.tokens;
  r->hidden = p.hidden;
  r->tpb = static_cast<int>(blockDim.x);
  r->cluster = p.cluster;
  r->grid = static_cast<int>(gridDim.x);
  r->vpt = p.vecs_per_thread;
  r->smid = static_cast<int>(smid);
  if (s.call % kPhaseSamplePeriod == 0) {
    const PhaseRecord* prev = phase_record_of(s.rank, s.call - 1u);
    if (prev->call + 1 == s.call) phase_record_print<Stamps>(prev, body, n, pattern, s.rank);
  }
}
#else
struct PhaseStamps {};
__device__ __forceinline__ long long phase_entry_clock() { return 0; }
__device__ __forceinline__ PhaseStamps phase_stamps_begin(const FusedParams&, unsigned long long, long long) {
  return {};
}
template <int I>
__device__ __forceinline__ void phase_stamp(const PhaseStamps&) {}
template <int I>
__device__ __forceinline__ void phase_stamp_synced(const PhaseStamps&) {}
template <int Stamps>
__device__ __forceinline__ void phase_stamps_end(const PhaseStamps&, const char*, int, int, const FusedParams&) {}
#endif

}  // namespace arlab::kernels
