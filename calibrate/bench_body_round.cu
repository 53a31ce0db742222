// Bench `body_round`: ONE token round of each one-shot kernel body's poll + reduce + epilogue phase
// at N = 2, 4 and 8 ranks, run with the bodies' own device code, so that what a round costs beyond
// the model's round can be told apart by body and by N. The fused kernels' rows say the model prices
// the lean body's round at N >= 4 too short (emulated H200, 2026-12-03: lean one-shot at TP8 with
// clusters of 4 and 8 predicted 8-10 % short where the reference is within 3 %; docs/model.md), and
// the `epilogue_round` bench runs the reference round at N = 2 only.
//
// The round of each body, exactly as its kernel runs it (bf16, ar_res_rms, pairwise, one block per SM):
//   reference  kernels/oneshot_kernel.cuh step 4: poll_and_sum over the N slots (own slot included,
//              poll_batch<N> slots in flight together), fused_token_epilogue with
//              ReferenceOneshotEpilogue (gamma and residual of the first vector held since the start),
//              cluster.sync() at the end.
//   lean       kernels/oneshot_lean_kernel.cuh step 6: poll_sum_clear (the N - 1 peer slots, the own
//              vector re-read from x and added in its rank's place, then -0.0 written back over the
//              N - 1 consumed slots), fused_token_epilogue with LeanEpilogueFor<N> (the pushed cluster
//              exchange in clusters of 2-4 blocks of whole warps, pushed_exchange_init at the start),
//              the first vector of x (and at N = 2 the gamma of the first two vectors) held in
//              registers since the start at N < 8; at N >= 8 only the first residual vector (since
//              2026-12-04, as the kernel: kLeanHoldsPushOperands).
// Set-up (rank 0 alone, no peers): the "Lamport buffer" is N slots of [tokens, H] bf16 filled with
// 0x3c3c (valid values, never -0.0), so every poll finds its vector arrived at once and no wait
// happens (p.fault points to a zeroed word, checked after each configuration; p.timeout_ns >= 10 s).
// x and residual_in hold 0x3c3c, gamma 0x3f3f. Before every repetition: L2 flushed (a memset of 4x
// L2 bytes), the slots filled again (lean wrote -0.0 over them), then the slots and x read once
// through L2 (ld.cg): the polls and the own vector's re-read hit L2 as after a push, residual_in
// comes from DRAM, as in the kernels.
// Grids: 16 blocks (the emulated TP8 node's partition) and the whole partition (since session 45 also
// 2, 4, 8 and 16 blocks for reference_n2 / lean_n2 at two shapes: `_fewblocks`, below), clusters =
// grid / cluster, R = 8 rounds per cluster (tokens = clusters x R); a configuration whose N slots
// would exceed a third of L2 is skipped. Timing as in `epilogue_round`: every block's thread 0 reads
// %globaltimer after a barrier over its cluster before the loop and after another after it;
// ns_per_round = interval / R. reps = env.reps after one discarded warm-up repetition.
// Rows: bench body_round, variant {reference,lean}_n{2,4,8} (block 0) and the same + "_slowest" (the
// longest block interval, per round), sms = blocks launched, tpb, cluster, size = H ("hidden"), metric
// ns_per_round. Configurations (tpb, cluster, H), one vector per thread: (128, 8, 8192), (256, 4, 8192),
// (512, 2, 8192), (1024, 1, 8192), (64, 8, 4096), (128, 4, 4096), (512, 1, 4096); since 2026-12-03
// 15:00 also (tpb, cluster, H, vectors per thread) (128, 4, 8192, 2), (256, 2, 8192, 2), (128, 2, 8192,
// 4), (128, 1, 4096, 4) (the rows carry no vpt column: it is H / (tpb x cluster x 8)); since session 52
// (2026-12-07) also `{reference,lean}_n{2,4,8}_wide` (+ `_slowest`), warm, 16 blocks: (512, 1, 8192, 2),
// (1024, 1, 16384, 2), (512, 1, 16384, 4), several vectors on 16-32 warps (kWideConfigs; the further-round fits
// read them beside the rows above).
// Since 2026-12-03 19:00, two more kinds of rows (docs/model.md, "The polls from DRAM"):
//   *_cold   every configuration above again with the slots filled and x read BEFORE the L2 flush, so
//            that the polls and lean's re-read of x come from DRAM: what a round costs when a call's
//            pushes and clears have streamed more bytes than L2 holds before its polls.
//   *_reuse_slowest  reference_n4 and lean_n4 at (128, 4, 8192) on the 16-block grid, warm, then B
//            bytes written elsewhere before the rounds, B = {0, 1/8, 1/4, 3/8, 1/2, 3/4, 1, 1.5, 2, 3,
//            4} x L2 (size = B, "bytes written between"): how the round goes from warm to cold as the
//            bytes streamed between a slot's write and its poll grow.
// Since 2026-12-03 23:00, on the emulated node, `*_solo*` and `*_allbusy*` rows: the round at the
// node's N alone and with every other partition running it at once (allbusy_rows below).
// Since 2026-12-04, `reference_fp8_n8` and `lean_fp8_n8` (+ `_slowest`), warm only: the same round with
// the ar_res_rms_fp8 epilogue (FP8 codes written to quant_out, scale 1), whose polls at N = 8 go out in
// four batches of two slots where ar_res_rms sends two of four.
// Since session 29 (2026-12-05), `reference_fp8_n{2,4}` and `lean_fp8_n{2,4}`, and `reference_fp4_n2` and
// `lean_fp4_n2` (+ `_slowest`), warm only: the FP8 round where the polls batch as ar_res_rms's do (N <= 4:
// every slot at once), and the NVFP4 round (codes to quant_out, LINEAR scale factors to scale_out, global
// scale 1). The fused one-shot rows of the quantizing patterns are predicted short in every round after a
// call's first at every N, by a few hundred ns per vector a thread holds, where ar_res_rms's are not
// (docs/model.md, "The quantizing patterns' rounds"): these rows say whether the round itself is
// longer, or whether the cause lies outside it.
// Since session 28 (2026-12-04), `reference2_epilogue_n2` and `reference2_epilogue_ar_n2` (+ `_slowest`),
// warm only: the reference TWO-SHOT body's epilogue round (kernels/twoshot_kernel.cuh step 5: the sum
// loaded from my comm buffer, an L2 hit, the residual from DRAM, the epilogue), ar_res_rms and ar. The
// model prices it as the one-shot round's parts less the rank sum, plus the one-shot round overhead, at
// every round of a call; the reference two-shot rows of many rounds per cluster are predicted long at TP2
// (docs/model.md, "The reference two-shot's epilogue rounds").
// Since session 28 (2026-12-04), `reference_ar_n{2,4,8}` and `lean_ar_n{2,4,8}` (+ `_slowest`), warm only:
// the same round with the `ar` pattern (no norm: the rank sum stored to allreduce_out; no gamma or
// residual held). The model prices the `ar` round's own part with one constant measured at N = 2 beside a
// busy partner (epilogue_round bf16_ar, ar_round_ns), and the fused `ar` rows are predicted long at TP2
// and short at TP8 at every round count (docs/model.md, "Where the `ar` pattern is off by N"): these rows
// say how the `ar` round itself grows with N. Recorded; no constant reads them yet.
// Since session 27 (2026-12-04), the lean TWO-SHOT body's two kinds of token round
// (kernels/twoshot_lean_kernel.cuh step 5), warm only, variants `lean2_owner_n{2,4,8}` and
// `lean2_reader_n{2,4,8}` (+ `_slowest`): the owner's (stage 2: poll_sum_clear over the N - 1 peer
// slots with its own vector of x, the T-rounded sum pushed into slot 0 of the N - 1 peers' regions --
// scratch buffers of rank 0 here -- then the epilogue) and a reader's (stage 3: the owner's slot polled,
// -0.0 written back over it, the epilogue), both with TwoshotLeanEpilogue. The model prices every lean
// two-shot round as the one-shot round at N; a reader polls one slot and adds nothing, the owner also
// pushes its sum to N - 1 peers (docs/model.md, "Where the lean two-shot body is off at a few tokens per
// rank").
// Since session 42 (2026-12-06), the reference two-shot's ar_res_rms epilogue round also in the allbusy
// pass (allbusy_rows below) at every node's N: `reference2_epilogue_solo_slowest` (rank 0's partition alone)
// and `reference2_epilogue_allbusy_slowest` (every other partition running the same rounds), + `_cold`. The
// rows above run it alone, while the one-shot round's overhead, which the model gives the two-shot round, is
// fitted on rows with the partner busy (docs/model.md, "The two-shot epilogue's own round"). Likewise the lean
// two-shot's owner and reader rounds at the node's own N (`lean2_owner_n{N}_solo_slowest`, `_allbusy_slowest`,
// `lean2_reader_n{N}_...`; each partition's owner pushes its sums into scratch regions of its own).
// Since session 43 (2026-12-06) the `ar` pattern's two-shot rounds too, which no constant reads yet: the
// reference epilogue's ar round in the allbusy pass at every node's N (`reference2_epilogue_ar_solo_slowest`,
// `_allbusy_slowest`) and the lean two-shot's owner and reader rounds with the `ar` epilogue, warm and allbusy at
// their own N (`lean2_owner_ar_n{2,4,8}`, `lean2_reader_ar_n{2,4,8}`): the one-shot `ar` round's own line at
// N = 4 and 8 waits for the two-shot `ar` rounds measured beside it (docs/model.md, "The `ar` round at N = 2").
// Since session 53 (2026-12-07) the allbusy pass also runs the configurations of several vectors per thread
// (`{variant}_vpt_solo_slowest`, `_vpt_allbusy_slowest`, warm, the ar_res_rms runs only, the largest grid whose
// buffers take at most kAllBusyL2Share of L2): the fused two-shot rows of 4 vectors per thread and many rounds are
// 10-20 % longer per round than the model's round (the H100's grids 32-35, `scripts/model_bias.py --round-cost`),
// while the warm rows above, rank 0 alone, match it; do the rounds of several vectors grow with every partition
// running them? Recorded; no constant reads them.
// Since session 54 (2026-12-07), the N = 2 rounds of both one-shot bodies (ar_res_rms and ar), the lean two-shot's
// owner and reader and the reference two-shot's epilogue at 2 and 4 blocks per SM (`{variant}_bps2`, `_bps4` +
// `_slowest`, warm; kBlocksPerSm below): every other row runs one block per SM, and the fused rows of several blocks
// per SM read 3-7 % short at every body and algorithm. Since session 55 with `_bps1` rows (one block per SM, the same
// pass) beside them; they set shared_sm_round_ns_per_warp_vector and shared_sm_ar_round_ns_per_warp_vector.
// Since session 44 (2026-12-06) both lean two-shot kinds in one run, in the fused kernel's order, warm and
// allbusy at their own N (`lean2_mixed_n{2,4,8}`): a cluster's first ceil(R / N) rounds an owner's, the rest a
// reader's (R = 8 warm: 4 + 4 at N = 2, 2 + 6 at N = 4, 1 + 7 at N = 8; R = 4 allbusy). The model prices each
// kind by its own line, and its lean two-shot rounds at TP8 are long against the fused rows: these rows say
// whether an owner's pushes drain under the reader rounds after it. They do not (session 45, an H100: the mixed
// run 4-5 % longer than its rounds weighted, scripts/lean2_mixed.py). Recorded; no constant reads them.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"
#include "kernels/oneshot_kernel.cuh"
#include "kernels/oneshot_lean_kernel.cuh"
#include "kernels/twoshot_lean_kernel.cuh"

namespace arlab::calibrate {
namespace {

using T = __nv_bfloat16;
constexpr int kRounds = 8;  // token rounds per cluster (tokens = clusters x kRounds)

// The start gate of the `_allbusy` rows (null elsewhere): a partner partition's kernel holds its blocks
// until the measured kernel has started (`gate_wait` != 0, bounded by p.timeout_ns, a timeout recorded in
// p.fault), and the measured kernel's block 0 opens it at its start (`gate_open`), so every partition's
// rounds run while the measured ones do.
struct StartGate {
  const unsigned* gate_wait = nullptr;
  unsigned* gate_open = nullptr;
};

__device__ __forceinline__ void pass_start_gate(const kernels::FusedParams& p, const StartGate& g) {
  using namespace kernels;
  if (g.gate_open != nullptr && blockIdx.x == 0 && threadIdx.x == 0) st_release_sys(g.gate_open, 1u);
  if (g.gate_wait == nullptr) return;
  if (threadIdx.x == 0) {
    const unsigned long long start = global_timer_ns();
    while (ld_acquire_sys(g.gate_wait) == 0u) {
      if (global_timer_ns() - start > p.timeout_ns) {
        record_fault(p.fault, encode_fault(WaitKind::barrier, p.rank, 0, static_cast<int>(blockIdx.x), 0));
        break;
      }
    }
  }
  __syncthreads();
}

// The rounds' interval of each block, as every kernel of this bench times it: thread 0 reads
// %globaltimer after a barrier over its cluster (every block of the cluster has started) before the
// loop, and after another after it (every thread of the cluster is done; the barrier also keeps shared
// memory alive for remote readers); times[2 b], times[2 b + 1] of block b.
__device__ __forceinline__ unsigned long long rounds_clock_start(int cluster) {
  kernels::cluster_barrier(cluster);
  return threadIdx.x == 0 ? kernels::global_timer_ns() : 0ull;
}
__device__ __forceinline__ void rounds_clock_stop(int cluster, unsigned long long t0, unsigned long long* times) {
  kernels::cluster_barrier(cluster);
  if (threadIdx.x == 0) {
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = kernels::global_timer_ns();
  }
}

template <int N, bool kLean, Pattern kPattern = Pattern::ar_res_rms>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    body_round_kernel(const __grid_constant__ kernels::FusedParams p, unsigned long long* times, unsigned* smids,
                      StartGate gate) {
  using namespace kernels;
  pass_start_gate(p, gate);
  constexpr int kVec = DTypeTraits<T>::kVec;
  // What both bodies poll with for the pattern: at N = 8, 4 slots at a time for ar_res_rms, 2 for the
  // quantizing patterns (kernels/oneshot_steps.cuh poll_batch).
  constexpr int kBatch = poll_batch<N, kPattern != Pattern::ar && kPattern != Pattern::ar_res_rms>();
  __shared__ EpilogueShared epi;
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const TokenMapping m = token_mapping<T>(p);
  if constexpr (kLean) pushed_exchange_init(epi, m.cluster);
  // What each kernel loads at its start and holds: residual_in of the first vector (both bodies),
  // gamma of the first vector (the reference; lean at N < 8), the first vector of x (lean at N < 8:
  // pushed first, added from the register in its poll; kernels/oneshot_lean_kernel.cuh
  // kLeanHoldsPushOperands).
  constexpr bool kHoldPushOperands = !kLean || kLeanHoldsPushOperands<N>;
  const bool has_first = m.t_in_cluster < m.vecs_per_token && m.cluster_id < p.tokens;
  const long long first_off = static_cast<long long>(m.cluster_id) * m.row_bytes +
                              static_cast<long long>(m.t_in_cluster) * kVectorBytes;
  HeldOperands held;
  uint4 x0 = make_uint4(0u, 0u, 0u, 0u);
  if (has_first) {
    if constexpr (PatternOutputs<kPattern>::kResidual) {  // the `ar` pattern has no norm operands to hold
      if constexpr (kHoldPushOperands)
        held.gamma0 = ld_input_v4(static_cast<const char*>(p.gamma) + static_cast<long long>(m.t_in_cluster) * kVectorBytes);
      held.residual0 = ld_input_v4(static_cast<const char*>(p.residual_in) + first_off);
    }
    if constexpr (kLean && kHoldPushOperands) x0 = ld_input_v4(static_cast<const char*>(p.x) + first_off);
  }
  if constexpr (kLean) pushed_exchange_ready(m.cluster);
  char* my_cur = static_cast<char*>(p.my_region);  // buffer cur = 0
  PollState st;
  const QuantScales q = load_quant_scales<kPattern>(p);
  const unsigned long long t0 = rounds_clock_start(m.cluster);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round) {
    if constexpr (kLean) {
      fused_token_epilogue<T, kPattern, LeanEpilogueFor<N, kPattern>>(
          p, m, epi, nullptr, q, tok, round,
          [&](long long off, float(&acc)[kVec]) {
            const uint4 own = kHoldPushOperands && off == first_off ? x0 : ld_input_v4(static_cast<const char*>(p.x) + off);
            poll_sum_clear<T, N, Accumulation::pairwise, kBatch>(my_cur + off, p.slot_bytes, own, tok, p, st, acc);
          },
          held);
    } else {
      fused_token_epilogue<T, kPattern, ReferenceOneshotEpilogue>(
          p, m, epi, nullptr, q, tok, round,
          [&](long long off, float(&acc)[kVec]) {
            poll_and_sum<T, N, Accumulation::pairwise, kBatch>(my_cur + off, p.slot_bytes, tok, p, st, acc);
          },
          held);
    }
  }
  rounds_clock_stop(m.cluster, t0, times);
}

// Which rounds a lean two-shot run times: every round an owner's or a reader's, or (owner_first, since
// session 44) a cluster's first ceil(R / N) of its R rounds an owner's and the rest a reader's, in the order
// of the fused kernel's stage 2 and stage 3 (kernels/twoshot_lean_kernel.cuh step 5).
enum class Lean2Rounds { reader, owner, owner_first };

// The lean two-shot body's rounds, on rank 0 with its data in place (the header above): the same loop and
// timing as body_round_kernel, the round of kernels/twoshot_lean_kernel.cuh step 5.
template <int N, Lean2Rounds kRounds, Pattern kPattern = Pattern::ar_res_rms>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    twoshot_round_kernel(const __grid_constant__ kernels::FusedParams p, unsigned long long* times, unsigned* smids,
                         StartGate gate) {
  using namespace kernels;
  using Tr = DTypeTraits<T>;
  pass_start_gate(p, gate);
  constexpr int kVec = Tr::kVec;
  constexpr int kBatch = poll_batch<N, kPattern != Pattern::ar && kPattern != Pattern::ar_res_rms>();
  constexpr int kOwnerSlot = 1;  // a reader's rows come from rank 1's sums (any peer would do)
  __shared__ EpilogueShared epi;
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const TokenMapping m = token_mapping<T>(p);
  pushed_exchange_init(epi, m.cluster);
  pushed_exchange_ready(m.cluster);
  char* my_cur = static_cast<char*>(p.my_region);  // buffer cur = 0, my slot (rank 0) at offset 0
  PollState st;
  const QuantScales q = load_quant_scales<kPattern>(p);
  // For owner_first: this cluster's rounds, and how many of them are an owner's. The other kinds decide at
  // compile time, so their code is the same as before the mixed kind existed.
  const int my_rounds = (p.tokens - m.cluster_id + m.num_clusters - 1) / m.num_clusters;
  const int owned_rounds = (my_rounds + N - 1) / N;
  const unsigned long long t0 = rounds_clock_start(m.cluster);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round) {
    const bool owner = kRounds == Lean2Rounds::owner || (kRounds == Lean2Rounds::owner_first && round < owned_rounds);
    fused_token_epilogue<T, kPattern, TwoshotLeanEpilogue>(
        p, m, epi, nullptr, q, tok, round, [&](long long off, float(&acc)[kVec]) {
          if (owner) {
            const uint4 own = ld_input_v4(static_cast<const char*>(p.x) + off);
            poll_sum_clear<T, N, Accumulation::pairwise, kBatch>(my_cur + off, p.slot_bytes, own, tok, p, st, acc);
            unsigned bits[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e) bits[e] = Tr::from_float(acc[e]);
            push_vector<N, true>(p, off, vec_clear_neg_zero<T>(vec_pack<T>(bits)));
          } else {
            char* slot = my_cur + kOwnerSlot * p.slot_bytes + off;
            uint4 val[1] = {ld_relaxed_sys_v4(slot)};
            wait_arrived<T, 1>(val, slot, p.slot_bytes, kOwnerSlot, tok, p, st);
#pragma unroll
            for (int e = 0; e < kVec; ++e) acc[e] = Tr::to_float(vec_get<T>(val[0], e));
            st_v4(slot, vec_neg_zero<T>());
          }
        });
  }
  rounds_clock_stop(m.cluster, t0, times);
}

// The reference two-shot body's epilogue round (kernels/twoshot_kernel.cuh step 5) on rank 0 with its data
// in place: the sum of each vector loaded from my comm buffer (here slot 0 of the Lamport buffer, filled
// like the others), the residual from DRAM, the epilogue with ReferenceEpilogue; the same loop and timing
// as body_round_kernel. N-independent code: run at N = 2 only.
template <Pattern kPattern>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    twoshot_epilogue_kernel(const __grid_constant__ kernels::FusedParams p, unsigned long long* times,
                            unsigned* smids, StartGate gate) {
  using namespace kernels;
  using Tr = DTypeTraits<T>;
  pass_start_gate(p, gate);
  constexpr int kVec = Tr::kVec;
  __shared__ EpilogueShared epi;
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const TokenMapping m = token_mapping<T>(p);
  const char* my_comm = static_cast<const char*>(p.my_region);
  const QuantScales q = load_quant_scales<kPattern>(p);
  const unsigned long long t0 = rounds_clock_start(m.cluster);
  int round = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, ++round) {
    fused_token_epilogue<T, kPattern, ReferenceEpilogue>(p, m, epi, nullptr, q, tok, round,
                                                         [&](long long off, float(&acc)[kVec]) {
                                                           const uint4 s = ld_relaxed_sys_v4(my_comm + off);
#pragma unroll
                                                           for (int e = 0; e < kVec; ++e)
                                                             acc[e] = Tr::to_float(vec_get<T>(s, e));
                                                         });
  }
  rounds_clock_stop(m.cluster, t0, times);
}

struct BodyRun {
  const char* variant;
  int nranks;
  void (*kernel)(kernels::FusedParams, unsigned long long*, unsigned*, StartGate);
  bool warm_only = false;  // warm rounds only, no allbusy, cold or reuse rows (the FP8 and two-shot runs)
  // Where set (since session 42): allbusy rows of this N-independent run at every node's N, named
  // `{allbusy_variant}_solo_slowest` / `_allbusy_slowest` (+ `_cold`), although it is warm_only otherwise.
  const char* allbusy_variant = nullptr;
  // Where set (since session 42): allbusy rows of this run at its own N, although it is warm_only otherwise.
  bool allbusy_at_own_n = false;
};
// Since 2026-12-04 also the FP8 pattern at N = 8, whose polls go out 2 slots at a time where ar_res_rms
// sends 4 (the quantizing patterns' register cap): variants reference_fp8_n8, lean_fp8_n8.
const BodyRun kBodyRuns[] = {
    {"reference_n2", 2, body_round_kernel<2, false>}, {"lean_n2", 2, body_round_kernel<2, true>},
    {"reference_n4", 4, body_round_kernel<4, false>}, {"lean_n4", 4, body_round_kernel<4, true>},
    {"reference_n8", 8, body_round_kernel<8, false>}, {"lean_n8", 8, body_round_kernel<8, true>},
    {"reference_fp8_n8", 8, body_round_kernel<8, false, Pattern::ar_res_rms_fp8>, true},
    {"lean_fp8_n8", 8, body_round_kernel<8, true, Pattern::ar_res_rms_fp8>, true},
    // Since session 29: the FP8 round at N = 2 and 4 (polls batched as ar_res_rms's) and the NVFP4 round at N = 2.
    {"reference_fp8_n2", 2, body_round_kernel<2, false, Pattern::ar_res_rms_fp8>, true},
    {"lean_fp8_n2", 2, body_round_kernel<2, true, Pattern::ar_res_rms_fp8>, true},
    {"reference_fp8_n4", 4, body_round_kernel<4, false, Pattern::ar_res_rms_fp8>, true},
    {"lean_fp8_n4", 4, body_round_kernel<4, true, Pattern::ar_res_rms_fp8>, true},
    // Since session 57 the NVFP4 rounds also in the allbusy pass at their own N (`reference_fp4_n2_solo_slowest`,
    // `_allbusy_slowest`): the fused NVFP4 rows read 6-9 % short on the H100 while these warm rounds match the
    // model's, so is it the round beside a busy partner that the fused call pays?
    {"reference_fp4_n2", 2, body_round_kernel<2, false, Pattern::ar_res_rms_fp4>, true, nullptr, true},
    {"lean_fp4_n2", 2, body_round_kernel<2, true, Pattern::ar_res_rms_fp4>, true, nullptr, true},
    // Since session 28: the `ar` pattern's round (no norm: poll, sum, store the sum) of each body at N = 2, 4, 8.
    {"reference_ar_n2", 2, body_round_kernel<2, false, Pattern::ar>, true},
    {"lean_ar_n2", 2, body_round_kernel<2, true, Pattern::ar>, true},
    {"reference_ar_n4", 4, body_round_kernel<4, false, Pattern::ar>, true},
    {"lean_ar_n4", 4, body_round_kernel<4, true, Pattern::ar>, true},
    {"reference_ar_n8", 8, body_round_kernel<8, false, Pattern::ar>, true},
    {"lean_ar_n8", 8, body_round_kernel<8, true, Pattern::ar>, true},
    // Since session 28: the reference two-shot body's epilogue round, ar_res_rms and ar.
    // Since session 42 its ar_res_rms round also alone and beside every other partition running it, at the
    // node's N (`reference2_epilogue_solo_slowest`, `reference2_epilogue_allbusy_slowest`): the fused two-shot
    // runs its epilogue rounds on every partition at once, and the one-shot round's overhead is fitted on rows
    // with the partner busy (docs/model.md, "The two-shot epilogue's own round").
    {"reference2_epilogue_n2", 2, twoshot_epilogue_kernel<Pattern::ar_res_rms>, true, "reference2_epilogue"},
    // Since session 43 its ar round too (`reference2_epilogue_ar_solo_slowest`, `_allbusy_slowest`, at every N).
    {"reference2_epilogue_ar_n2", 2, twoshot_epilogue_kernel<Pattern::ar>, true, "reference2_epilogue_ar"},
    // Since session 27: the lean two-shot body's owner and reader rounds.
    // Since session 42 also in the allbusy pass at their own N (`lean2_owner_n4_solo_slowest`,
    // `lean2_owner_n4_allbusy_slowest`, ...): the fused lean two-shot runs its rounds on every partition at once.
    {"lean2_owner_n2", 2, twoshot_round_kernel<2, Lean2Rounds::owner>, true, nullptr, true},
    {"lean2_reader_n2", 2, twoshot_round_kernel<2, Lean2Rounds::reader>, true, nullptr, true},
    {"lean2_owner_n4", 4, twoshot_round_kernel<4, Lean2Rounds::owner>, true, nullptr, true},
    {"lean2_reader_n4", 4, twoshot_round_kernel<4, Lean2Rounds::reader>, true, nullptr, true},
    {"lean2_owner_n8", 8, twoshot_round_kernel<8, Lean2Rounds::owner>, true, nullptr, true},
    {"lean2_reader_n8", 8, twoshot_round_kernel<8, Lean2Rounds::reader>, true, nullptr, true},
    // Since session 43 the same rounds with the `ar` pattern (no norm: the sum stored to allreduce_out), warm and
    // allbusy at their own N (`lean2_owner_ar_n4`, `lean2_owner_ar_n4_allbusy_slowest`, ...).
    {"lean2_owner_ar_n2", 2, twoshot_round_kernel<2, Lean2Rounds::owner, Pattern::ar>, true, nullptr, true},
    {"lean2_reader_ar_n2", 2, twoshot_round_kernel<2, Lean2Rounds::reader, Pattern::ar>, true, nullptr, true},
    {"lean2_owner_ar_n4", 4, twoshot_round_kernel<4, Lean2Rounds::owner, Pattern::ar>, true, nullptr, true},
    {"lean2_reader_ar_n4", 4, twoshot_round_kernel<4, Lean2Rounds::reader, Pattern::ar>, true, nullptr, true},
    {"lean2_owner_ar_n8", 8, twoshot_round_kernel<8, Lean2Rounds::owner, Pattern::ar>, true, nullptr, true},
    {"lean2_reader_ar_n8", 8, twoshot_round_kernel<8, Lean2Rounds::reader, Pattern::ar>, true, nullptr, true},
    // Since session 44: both kinds in one run, in the fused kernel's order (`lean2_mixed_n{2,4,8}`, warm, and
    // allbusy at their own N): a cluster's first ceil(R / N) rounds an owner's, the rest a reader's, so that
    // an owner's pushes may drain under the reader rounds after it as in a fused call (the model prices each
    // kind by its own line; docs/model.md, "The lean two-shot's second exchange where its hop is").
    {"lean2_mixed_n2", 2, twoshot_round_kernel<2, Lean2Rounds::owner_first>, true, nullptr, true},
    {"lean2_mixed_n4", 4, twoshot_round_kernel<4, Lean2Rounds::owner_first>, true, nullptr, true},
    {"lean2_mixed_n8", 8, twoshot_round_kernel<8, Lean2Rounds::owner_first>, true, nullptr, true},
};
constexpr int kMaxRanksHere = 8;

struct Config {
  int hidden, tpb, cluster;
  int vpt = 1;  // vectors per thread: tpb x cluster x 8 x vpt == H
};
constexpr Config kConfigs[] = {{8192, 128, 8}, {8192, 256, 4}, {8192, 512, 2}, {8192, 1024, 1},
                           {4096, 64, 8},  {4096, 128, 4}, {4096, 512, 1},
                           // several vectors per thread (since 2026-12-03 15:00): does the lean round's
                           // growth with N scale with the vectors a thread holds?
                           {8192, 128, 4, 2}, {8192, 256, 2, 2}, {8192, 128, 2, 4}, {4096, 128, 1, 4}};
// The NVFP4 runs pass no shared amax buffer (nullptr): with an even tpb a scale block's two vectors
// live in neighbouring lanes of one warp and meet through a shuffle (kernels/fused_epilogue.cuh).
constexpr bool every_tpb_even() {
  for (const Config& c : kConfigs)
    if (c.tpb % 2 != 0) return false;
  return true;
}
static_assert(every_tpb_even(), "body_round: the NVFP4 rounds need an even tpb (no amax exchange buffer)");
// The emulated TP8 node's partition: 16 of the H200's 132 SMs (harness/node.h).
constexpr int kSmallGrid = 16;
// The few-block rows (since session 45): one and four vectors per thread at H 4096, clusters of 1, on
// grids up to kSmallGrid.
constexpr Config kFewBlockConfigs[] = {{4096, 512, 1}, {4096, 128, 1, 4}};
// The wide rows (since session 52): several vectors per thread on 16-32 warps, one block per SM, the
// small grid, warm, the ar_res_rms rounds of both bodies at every N (`{variant}_wide` + `_slowest`). The
// fused one-shot rows of 2-4 vectors per thread on many warps and many rounds per cluster are predicted
// 8-16 % short on the H100 (docs/model.md, "Session 52"), while the configurations above hold several
// vectors on 4-8 warps only: is the round itself longer there than the model's? It is (8-21 % beyond the
// model's further round before session 52's fit); the further-round fits read these rows beside the ones above
// (model/calibration_derive.cpp further_round_fit). They are kept apart so that every other reader of the
// variants above (lean_round_ns_per_extra_rank, the records) keeps its rows.
constexpr Config kWideConfigs[] = {{8192, 512, 1, 2}, {16384, 1024, 1, 2}, {16384, 512, 1, 4}};
constexpr int kFewBlocks[] = {2, 4, 8, kSmallGrid};
// The rows of several blocks per SM (since session 54): the N = 2 runs below at every configuration of kConfigs
// whose blocks fit k to an SM (tpb x k <= 1024: 64 registers a thread, the __launch_bounds__(1024) cap), on k x
// the partition's SMs, warm (`{variant}_bps{k}` + `_slowest`). The fused rows with 2-4 and more blocks per SM read
// 3-7 % short at every body and algorithm (the H100's grids 32-37, `scripts/model_bias.py --by
// kernel_variant,@blocks_per_sm,algo`), and every row above runs one block per SM. Since session 55 also at one block
// per SM (`_bps1`), measured in the same pass, the base each k's growth is taken from; the rows set
// shared_sm_round_ns_per_warp_vector and its `ar` twin (model/calibration_derive.cpp shared_sm_rounds).
constexpr int kBlocksPerSm[] = {1, 2, 4};
// Since session 55 also the N = 4 and 8 bodies (`reference_n4_bps2`, ...): records beside the N = 2 constants,
// which the model takes at every N.
constexpr const char* kSeveralBlocksRuns[] = {
    "reference_n2",    "lean_n2",         "reference_ar_n2", "lean_ar_n2",      "lean2_owner_n2",  "lean2_reader_n2",
    "reference2_epilogue_n2",             "reference_n4",    "lean_n4",         "reference_ar_n4", "lean_ar_n4",
    "lean2_owner_n4",  "lean2_reader_n4", "reference_n8",    "lean_n8",         "reference_ar_n8", "lean_ar_n8",
    "lean2_owner_n8",  "lean2_reader_n8"};
constexpr int kMaxBlocksPerSm = 4;

// How the data a round reads stand when it starts:
//   warm   the slots and x read once through L2 just before (as right after a short push)
//   cold   written or read before an L2 flush (4 x L2 bytes written elsewhere): every poll and the lean
//          body's re-read of x come from DRAM, as in a call whose pushes and clears stream far more
//          bytes than L2 holds before the polls reach them
//   reuse  warm, then `between` bytes written elsewhere: how much of the slots L2 keeps after that
enum class Mode { warm, cold, reuse };
constexpr int kFlushL2s = 4;  // the flush writes 4 x L2 bytes: past any replacement policy's reach
struct RoundTimes {
  std::vector<double> block0, slowest;
};
// The reuse curve's configuration (128 threads x clusters of 4, H 8192, one vector per thread) and the
// bytes written between, as fractions of L2: from none to the whole flush.
const Config kReuseConfig{8192, 128, 4};
constexpr double kReuseFractions[] = {0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, kBodyRoundReuseMaxL2s};
static_assert(kReuseFractions[std::size(kReuseFractions) - 1] == kBodyRoundReuseMaxL2s &&
                  kFlushL2s >= kBodyRoundReuseMaxL2s,
              "the reuse curve ends at kBodyRoundReuseMaxL2s x L2 (the derivation's unit), within the flush buffer");

// Every partition at once (`_allbusy`, the emulated node only): the fused kernels at TP8 run their
// rounds on all 8 partitions together, while the rows above run rank 0's alone, and the committed TP8
// grids say the one-shot rounds there cost more than the model's, by more as the rounds per cluster
// grow (docs/model.md, "Every partition at once"). So: the body at the node's N, each
// configuration of one vector per thread, once alone (`_solo`) and once with each of the N - 1 other
// partitions running the same kernel on buffers of its own, held at a start gate until rank 0's kernel
// has started and running 2 rounds more than rank 0 (so they cover its rounds), repetitions of the two
// interleaved. Grids: the whole partition, and where that differs, the largest grid whose buffers, on
// all N partitions, (N slots + x + residual_in + 2 outputs) x N x [tokens, H], take at most 0.3 x L2
// (the reuse curve keeps a buffer warm up to about 0.36 x L2 written). Warm as above (the slots and x
// of every partition read through L2 after the flush). Rows `{body}_n{N}_solo_slowest` and
// `{body}_n{N}_allbusy_slowest` (the slowest of rank 0's blocks, per round), and the same cold
// (`_solo_cold_slowest`, `_allbusy_cold_slowest`: every partition's slots filled and x read before the
// L2 flush, so that every partition's polls come from DRAM at once).
constexpr int kAllBusyRounds = 4;
constexpr int kAllBusyPartnerExtraRounds = 2;
constexpr double kAllBusyL2Share = 0.3;

void allbusy_rows(const BenchEnv& env, const void* gamma, const float* scale, harness::DeviceBuffer& flush, int& flips,
                  std::vector<MicrobenchRow>& out) {
  constexpr int kVec = kernels::DTypeTraits<T>::kVec;
  if (env.partner_streams.empty()) return;
  const int node_ranks = static_cast<int>(env.partner_streams.size()) + 1;
  const long long l2_bytes = std::max<long long>(env.device->props.l2_bytes, 1 << 20);
  const auto tensor_bytes = [](const Config& c, int grid, int rounds) {
    return static_cast<long long>(grid / c.cluster) * rounds * c.hidden * static_cast<long long>(sizeof(T));
  };
  const auto footprint = [&](const Config& c, int grid) {
    return static_cast<double>(node_ranks) * (node_ranks + 4) *
           tensor_bytes(c, grid, kAllBusyRounds + kAllBusyPartnerExtraRounds);
  };
  // The (configuration, grid) points, and the largest tensor among them. One vector per thread: the whole
  // partition and the largest grid that fits the L2 share. Several (since session 53, `_vpt` rows, warm only, the
  // ar_res_rms runs): the largest grid that fits, the whole partition where it does.
  struct Point {
    Config c;
    int grid;
    bool several;
  };
  std::vector<Point> points;
  long long max_tensor = 0;
  for (const Config& c : kConfigs) {
    const int full = env.sms / c.cluster * c.cluster;
    if (full < c.cluster) continue;
    int fitting = 0;
    for (int g = c.cluster; g <= full; g += c.cluster)
      if (footprint(c, g) <= kAllBusyL2Share * static_cast<double>(l2_bytes)) fitting = g;
    std::vector<int> grids;
    if (c.vpt == 1) {
      grids.push_back(full);
      if (fitting >= c.cluster && fitting != full) grids.push_back(fitting);
    } else if (fitting >= c.cluster) {
      grids.push_back(fitting);
    }
    for (const int g : grids) {
      points.push_back({c, g, c.vpt > 1});
      max_tensor = std::max(max_tensor, tensor_bytes(c, g, kAllBusyRounds + kAllBusyPartnerExtraRounds));
    }
  }
  if (points.empty()) return;
  const size_t tensor = static_cast<size_t>(max_tensor);
  // One set of buffers per partition (index 0: rank 0, the measured one).
  struct Buffers {
    harness::DeviceBuffer x, residual_in, residual_out, norm_out, slots, fault, times, smids;
    harness::DeviceBuffer peers;  // where a lean two-shot owner pushes its sums: N - 1 scratch regions of its own
    harness::DeviceBuffer scale_factors;  // the NVFP4 runs' LINEAR scale factors, [tokens, H / 16] (since session 57)
  };
  std::vector<Buffers> bufs;
  for (int i = 0; i < node_ranks; ++i) {
    const int rank = i == 0 ? env.rank : env.partner_ranks[static_cast<size_t>(i - 1)];
    bufs.push_back(Buffers{harness::DeviceBuffer(tensor, rank), harness::DeviceBuffer(tensor, rank),
                           harness::DeviceBuffer(tensor, rank), harness::DeviceBuffer(tensor, rank),
                           harness::DeviceBuffer(static_cast<size_t>(node_ranks) * tensor, rank),
                           harness::DeviceBuffer(sizeof(unsigned long long), rank),
                           harness::DeviceBuffer(2 * static_cast<size_t>(env.sms) * sizeof(unsigned long long), rank),
                           harness::DeviceBuffer(static_cast<size_t>(env.sms) * sizeof(unsigned), rank),
                           harness::DeviceBuffer(static_cast<size_t>(node_ranks - 1) * tensor, rank),
                           harness::DeviceBuffer(tensor / 16, rank)});  // >= tokens x H / 16 B (tensor: x 2 B)
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(bufs.back().x.data(), 0x3c, tensor, env.stream));
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(bufs.back().residual_in.data(), 0x3c, tensor, env.stream));
    ARLAB_CUDA_CHECK_RANK(env.rank,
                          cudaMemsetAsync(bufs.back().fault.data(), 0, sizeof(unsigned long long), env.stream));
  }
  harness::DeviceBuffer gate(sizeof(unsigned), env.rank), sink(sizeof(unsigned), env.rank);
  for (const BodyRun& run : kBodyRuns) {
    const bool at_any_n = run.allbusy_variant != nullptr;
    if (!at_any_n && (run.nranks != node_ranks || (run.warm_only && !run.allbusy_at_own_n))) continue;
    const std::string variant = run.allbusy_variant != nullptr ? run.allbusy_variant : run.variant;
    for (const Point& point : points) {
      // Named variables, not structured bindings: the `row` lambda below captures them (C++17).
      const Config& c = point.c;
      const int grid = point.grid;
      if (point.several && variant.find("_ar") != std::string::npos) continue;  // ar_res_rms only
      if (c.tpb * c.cluster * kVec * c.vpt != c.hidden)
        throw CudaError("body_round: a configuration whose vectors per thread do not cover its H");
      const int clusters = grid / c.cluster;
      std::vector<kernels::FusedParams> params;
      for (int i = 0; i < node_ranks; ++i) {
        const int rounds = kAllBusyRounds + (i == 0 ? 0 : kAllBusyPartnerExtraRounds);
        const long long slot_bytes = tensor_bytes(c, grid, rounds);
        Buffers& b = bufs[static_cast<size_t>(i)];
        kernels::FusedParams p = round_bench_params(env, clusters * rounds, c.hidden, c.cluster, c.vpt, run.nranks,
                                                    b.slots.data(), slot_bytes, gamma, scale,
                                                    b.fault.as<unsigned long long>());
        p.x = b.x.data();
        p.residual_in = b.residual_in.data();
        p.residual_out = b.residual_out.data();
        p.norm_out = b.norm_out.data();
        p.allreduce_out = b.residual_out.data();  // the `ar` runs' sums (since session 43)
        p.quant_out = b.norm_out.data();           // the NVFP4 runs' codes, [tokens, H / 2] (since session 57)
        p.scale_out = b.scale_factors.data();      // their LINEAR scale factors, as in `measure` above
        for (int r = 1; r < run.nranks; ++r)  // the two-shot owner's pushes: scratch of this partition, one region each
          p.regions[r] = static_cast<char*>(b.peers.data()) + static_cast<size_t>(r - 1) * tensor;
        params.push_back(p);
      }
      for (const bool cold : {false, true}) {
        if (cold && point.several) continue;  // the several-vector rows: warm only
        std::vector<double> solo, busy;
        std::vector<unsigned long long> block_times(2 * static_cast<size_t>(grid));
        for (int r = 0; r < 2 * (env.reps + 1); ++r) {  // solo and allbusy in turn; the first pair a warm-up
          const bool with_partners = r % 2 == 1;
          const int partitions = with_partners ? node_ranks : 1;
          const auto fill_slots = [&] {
            for (int i = 0; i < partitions; ++i) {
              const kernels::FusedParams& p = params[static_cast<size_t>(i)];
              ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(const_cast<void*>(p.my_region), 0x3c,
                                                              static_cast<size_t>(p.buffer_bytes), env.stream));
            }
          };
          if (cold) fill_slots();  // cold: every partition's slots and x in DRAM only, as in Mode::cold
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush.bytes(), env.stream));
          if (!cold) {
            fill_slots();
            for (int i = 0; i < partitions; ++i) {
              const kernels::FusedParams& p = params[static_cast<size_t>(i)];
              warm_l2(env, p.my_region, p.buffer_bytes, sink.as<unsigned>());
              warm_l2(env, p.x, p.slot_bytes, sink.as<unsigned>());
            }
          }
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(gate.data(), 0, sizeof(unsigned), env.stream));
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
          if (with_partners)
            for (int i = 1; i < node_ranks; ++i) {
              Buffers& b = bufs[static_cast<size_t>(i)];
              launch(Shape{grid, c.tpb, c.cluster}, env.partner_streams[static_cast<size_t>(i - 1)],
                     env.partner_ranks[static_cast<size_t>(i - 1)], run.kernel, params[static_cast<size_t>(i)],
                     b.times.as<unsigned long long>(), b.smids.as<unsigned>(), StartGate{gate.as<unsigned>(), nullptr});
            }
          launch(Shape{grid, c.tpb, c.cluster}, env.stream, env.rank, run.kernel, params[0],
                 bufs[0].times.as<unsigned long long>(), bufs[0].smids.as<unsigned>(),
                 StartGate{nullptr, with_partners ? gate.as<unsigned>() : nullptr});
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(block_times.data(), bufs[0].times.data(),
                                                          block_times.size() * sizeof(unsigned long long),
                                                          cudaMemcpyDeviceToHost, env.stream));
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
          if (with_partners)
            for (int i = 1; i < node_ranks; ++i)
              ARLAB_CUDA_CHECK_RANK(env.partner_ranks[static_cast<size_t>(i - 1)],
                                    cudaStreamSynchronize(env.partner_streams[static_cast<size_t>(i - 1)]));
          const GridTimes t = grid_times(block_times, grid);
          if (r >= 2) (with_partners ? busy : solo).push_back(t.slowest / kAllBusyRounds);
        }
        for (int i = 0; i < node_ranks; ++i) {
          unsigned long long fault_word = 0;
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpy(&fault_word, bufs[static_cast<size_t>(i)].fault.data(),
                                                     sizeof(fault_word), cudaMemcpyDeviceToHost));
          if (fault_word != 0)
            throw CudaError("body_round allbusy: partition " + std::to_string(i) +
                            " waited and timed out (fault word " + std::to_string(fault_word) + ")");
        }
        const auto row = [&](const char* kind, const std::vector<double>& values) {
          out.push_back(make_point(PointKey{"body_round", variant + (point.several ? "_vpt" : "") + kind, grid, c.tpb, c.cluster,
                                            double(c.hidden), "hidden", "ns_per_round"},
                                   values));
        };
        row(cold ? "_solo_cold_slowest" : "_solo_slowest", solo);
        row(cold ? "_allbusy_cold_slowest" : "_allbusy_slowest", busy);
      }
    }
  }
}

}  // namespace

void bench_body_round(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  constexpr int kVec = kernels::DTypeTraits<T>::kVec;
  const long long l2_bytes = std::max<long long>(env.device->props.l2_bytes, 1 << 20);
  const std::vector<int> grids = sm_counts({kSmallGrid}, env.sms);
  // The largest [tokens, H] tensor and slot area among the configurations that run.
  const auto tensor_bytes = [](const Config& c, int grid) {
    return static_cast<long long>(grid / c.cluster) * kRounds * c.hidden * static_cast<long long>(sizeof(T));
  };
  const auto fits = [&](const Config& c, int grid, int n) { return n * tensor_bytes(c, grid) <= l2_bytes / 3; };
  long long max_tensor = 0;
  for (const Config& c : kConfigs)
    for (const int g : grids)
      if (g >= c.cluster && fits(c, g, 2)) max_tensor = std::max(max_tensor, tensor_bytes(c, g));
  for (const Config& c : kWideConfigs)
    if (env.sms >= kSmallGrid && fits(c, kSmallGrid, 2)) max_tensor = std::max(max_tensor, tensor_bytes(c, kSmallGrid));
  for (const Config& c : kConfigs)
    for (const int k : kBlocksPerSm)
      if (c.tpb * k <= 1024 && fits(c, k * env.sms, 2)) max_tensor = std::max(max_tensor, tensor_bytes(c, k * env.sms));
  if (max_tensor == 0) return;
  const size_t tensor = static_cast<size_t>(max_tensor);
  int max_hidden = 0;  // gamma holds the largest H of any configuration that runs
  for (const Config& c : kConfigs) max_hidden = std::max(max_hidden, c.hidden);
  for (const Config& c : kFewBlockConfigs) max_hidden = std::max(max_hidden, c.hidden);
  for (const Config& c : kWideConfigs) max_hidden = std::max(max_hidden, c.hidden);
  const size_t gamma_bytes = static_cast<size_t>(max_hidden) * sizeof(T);
  harness::DeviceBuffer x(tensor, env.rank), residual_in(tensor, env.rank), residual_out(tensor, env.rank),
      norm_out(tensor, env.rank), slots(kMaxRanksHere * tensor, env.rank), gamma(gamma_bytes, env.rank),
      scale(sizeof(float), env.rank), fault(sizeof(unsigned long long), env.rank),
      times(2 * static_cast<size_t>(kMaxBlocksPerSm * env.sms) * sizeof(unsigned long long), env.rank),
      smids(static_cast<size_t>(kMaxBlocksPerSm * env.sms) * sizeof(unsigned), env.rank), sink(sizeof(unsigned), env.rank),
      peers((kMaxRanksHere - 1) * tensor, env.rank),  // where the two-shot owner pushes its sums
      scale_factors(tensor / (kFp4BlockElems * sizeof(T)), env.rank);  // NVFP4: one e4m3 byte per 16 elements
  const float one = 1.0f;
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(scale.data(), &one, sizeof(float), cudaMemcpyHostToDevice, env.stream));
  // bf16 0x3c3c ~ 0.0115 (inputs), 0x3f3f ~ 0.746 (gamma): finite, never -0.0.
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(x.data(), 0x3c, tensor, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(residual_in.data(), 0x3c, tensor, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(gamma.data(), 0x3f, gamma_bytes, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(fault.data(), 0, sizeof(unsigned long long), env.stream));
  const size_t flush_bytes = static_cast<size_t>(kFlushL2s * l2_bytes);
  harness::DeviceBuffer flush(flush_bytes, env.rank);
  int flips = 0;
  // One configuration's rounds in `mode`, `reps` repetitions after a discarded warm-up: block 0's and
  // the slowest block's ns per round. `between` bytes of the flush buffer are written after the slots
  // (Mode::reuse only).
  const auto measure = [&](const BodyRun& run, const Config& c, int grid_limit, Mode mode, size_t between) {
    const int clusters = grid_limit / c.cluster;
    const int grid = clusters * c.cluster;
    const int tokens = clusters * kRounds;
    const long long slot_bytes = tensor_bytes(c, grid_limit);
    kernels::FusedParams p = round_bench_params(env, tokens, c.hidden, c.cluster, c.vpt, run.nranks, slots.data(),
                                                slot_bytes, gamma.data(), scale.as<float>(), fault.as<unsigned long long>());
    p.x = x.data();
    p.residual_in = residual_in.data();
    p.residual_out = residual_out.data();
    p.norm_out = norm_out.data();
    p.quant_out = norm_out.data();  // FP8 codes, [tokens, H] bytes; NVFP4 codes, [tokens, H / 2] (norm_out holds [tokens, H] x 2)
    p.scale_out = scale_factors.data();  // NVFP4 scale factors, LINEAR [tokens, H / 16] (sf_swizzled 0)
    p.allreduce_out = residual_out.data();  // the `ar` runs' sums
    for (int r = 1; r < run.nranks; ++r)  // the peers' regions (the two-shot owner's pushes): scratch, one each
      p.regions[r] = static_cast<char*>(peers.data()) + static_cast<size_t>(r - 1) * tensor;
    RoundTimes rt;
    std::vector<unsigned long long> block_times(2 * static_cast<size_t>(grid));
    for (int r = 0; r < env.reps + 1; ++r) {  // the first repetition is a warm-up
      const auto flush_l2 = [&](size_t bytes) {
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, bytes, env.stream));
      };
      const auto fill_slots = [&] {
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(slots.data(), 0x3c, static_cast<size_t>(p.buffer_bytes),
                                                        env.stream));
      };
      if (mode == Mode::cold) {  // the slots and x written or read long ago: both in DRAM only
        fill_slots();
        flush_l2(flush_bytes);
      } else {  // warm; reuse: as warm, then `between` bytes written elsewhere before the rounds start
        flush_l2(flush_bytes);
        fill_slots();
        warm_l2(env, slots.data(), p.buffer_bytes, sink.as<unsigned>());
        warm_l2(env, x.data(), slot_bytes, sink.as<unsigned>());
        if (mode == Mode::reuse && between > 0) flush_l2(between);
      }
      launch(Shape{grid, c.tpb, c.cluster}, env.stream, env.rank, run.kernel, p, times.as<unsigned long long>(),
             smids.as<unsigned>(), StartGate{});
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(block_times.data(), times.data(),
                                                      block_times.size() * sizeof(unsigned long long),
                                                      cudaMemcpyDeviceToHost, env.stream));
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
      const GridTimes t = grid_times(block_times, grid);
      if (r > 0) {
        rt.block0.push_back(t.block0 / kRounds);
        rt.slowest.push_back(t.slowest / kRounds);
      }
    }
    std::vector<unsigned> ids(static_cast<size_t>(grid), 0u);
    unsigned long long fault_word = 0;
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(ids.data(), smids.data(), ids.size() * sizeof(unsigned),
                                                    cudaMemcpyDeviceToHost, env.stream));
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(&fault_word, fault.data(), sizeof(fault_word),
                                                    cudaMemcpyDeviceToHost, env.stream));
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
    if (fault_word != 0)
      throw CudaError("body_round: a poll waited and timed out (fault word " + std::to_string(fault_word) + ")");
    if (grid <= env.sms) distinct_sms(ids, grid, "body_round");  // the _bps rows share SMs on purpose
    return rt;
  };
  for (const int grid_limit : grids) {
    for (const BodyRun& run : kBodyRuns) {
      for (const Config& c : kConfigs) {
        if (c.tpb * c.cluster * kVec * c.vpt != c.hidden)
          throw CudaError("body_round: a configuration whose vectors per thread do not cover its H");
        if (grid_limit / c.cluster < 1 || !fits(c, grid_limit, run.nranks)) continue;
        const int grid = (grid_limit / c.cluster) * c.cluster;
        for (const Mode mode : {Mode::warm, Mode::cold}) {
          if (run.warm_only && mode == Mode::cold) continue;
          const RoundTimes rt = measure(run, c, grid_limit, mode, 0);
          const std::string v = std::string(run.variant) + (mode == Mode::cold ? "_cold" : "");
          const auto row = [&](const std::string& name, const std::vector<double>& values) {
            out.push_back(make_point(
                PointKey{"body_round", name, grid, c.tpb, c.cluster, double(c.hidden), "hidden", "ns_per_round"},
                values));
          };
          row(v, rt.block0);
          row(v + "_slowest", rt.slowest);
        }
      }
    }
  }
  allbusy_rows(env, gamma.data(), scale.as<float>(), flush, flips, out);
  // Since session 45: reference_n2's and lean_n2's rounds on few blocks (`{variant}_fewblocks` + `_slowest`,
  // warm): H 4096 at 512 x 1 (one vector per thread) and 128 x 1 (four) on 2, 4, 8 and 16 blocks. A fused
  // call's further round at four vectors per thread takes 3.9 us on 2 blocks and 6.4 us on 16, at one
  // vector 2.1 and 2.5 us (scripts/vpt_rounds.sh --few-blocks, an H100), while the rows above take as long
  // on 16 blocks as on the whole partition; the model shares each vector beyond a thread's first out over
  // the partition's SMs (model/model_terms.cpp round_overhead_ns). Do the body's own rounds grow from 2
  // blocks to 16, or is it the rest of the call? Recorded; no constant reads them.
  for (const BodyRun& run : kBodyRuns) {
    const std::string name = run.variant;
    if (name != "reference_n2" && name != "lean_n2") continue;
    for (const Config& c : kFewBlockConfigs)
      for (const int blocks : kFewBlocks) {
        if (blocks > env.sms || !fits(c, blocks, run.nranks)) continue;
        const RoundTimes rt = measure(run, c, blocks, Mode::warm, 0);
        const auto row = [&](const std::string& variant, const std::vector<double>& values) {
          out.push_back(make_point(
              PointKey{"body_round", variant, blocks, c.tpb, c.cluster, double(c.hidden), "hidden", "ns_per_round"},
              values));
        };
        row(name + "_fewblocks", rt.block0);
        row(name + "_fewblocks_slowest", rt.slowest);
      }
  }
  // The rows of several blocks per SM (kBlocksPerSm, kSeveralBlocksRuns): k x the partition's SMs, warm.
  for (const BodyRun& run : kBodyRuns) {
    const std::string name = run.variant;
    if (std::find(std::begin(kSeveralBlocksRuns), std::end(kSeveralBlocksRuns), name) == std::end(kSeveralBlocksRuns))
      continue;
    for (const Config& c : kConfigs)
      for (const int k : kBlocksPerSm) {
        const int grid_limit = k * env.sms;
        if (c.tpb * k > 1024 || grid_limit / c.cluster < 1 || !fits(c, grid_limit, run.nranks)) continue;
        const RoundTimes rt = measure(run, c, grid_limit, Mode::warm, 0);
        const int grid = grid_limit / c.cluster * c.cluster;
        const std::string v = name + "_bps" + std::to_string(k);
        for (const bool slowest : {false, true})
          out.push_back(make_point(PointKey{"body_round", v + (slowest ? "_slowest" : ""), grid, c.tpb, c.cluster,
                                            double(c.hidden), "hidden", "ns_per_round"},
                                   slowest ? rt.slowest : rt.block0));
      }
  }
  // The wide rows (kWideConfigs): the one-shot bodies' ar_res_rms rounds at every N, the small grid, warm.
  if (env.sms >= kSmallGrid)
    for (const BodyRun& run : kBodyRuns) {
      const std::string name = run.variant;
      if (name != "reference_n" + std::to_string(run.nranks) && name != "lean_n" + std::to_string(run.nranks)) continue;
      for (const Config& c : kWideConfigs) {
        if (c.tpb * c.cluster * kVec * c.vpt != c.hidden)
          throw CudaError("body_round: a configuration whose vectors per thread do not cover its H");
        if (!fits(c, kSmallGrid, run.nranks)) continue;
        const RoundTimes rt = measure(run, c, kSmallGrid, Mode::warm, 0);
        const int grid = kSmallGrid / c.cluster * c.cluster;
        for (const bool slowest : {false, true})
          out.push_back(make_point(PointKey{"body_round", name + (slowest ? "_wide_slowest" : "_wide"), grid, c.tpb,
                                            c.cluster, double(c.hidden), "hidden", "ns_per_round"},
                                   slowest ? rt.slowest : rt.block0));
      }
    }
  // The reuse curve: one configuration of each body at N = 4 on the small grid, after `between` =
  // fraction x L2 bytes written elsewhere (size = between, bytes).
  if (env.sms < kSmallGrid) return;
  for (const BodyRun& run : kBodyRuns) {
    if (run.nranks != 4 || run.warm_only) continue;
    const Config& c = kReuseConfig;
    for (const double fraction : kReuseFractions) {
      const size_t between = static_cast<size_t>(fraction * static_cast<double>(l2_bytes)) / 256 * 256;
      const RoundTimes rt = measure(run, c, kSmallGrid, Mode::reuse, between);
      out.push_back(make_point(PointKey{"body_round", std::string(run.variant) + "_reuse_slowest", kSmallGrid, c.tpb,
                                        c.cluster, double(between), "bytes written between", "ns_per_round"},
                               rt.slowest));
    }
  }
}

}  // namespace arlab::calibrate
