// Bench `epilogue_round`: the time of ONE token round of the one-shot kernel's poll + reduce +
// epilogue phase (kernels/oneshot_kernel.cuh step 4), run with the kernel's own device code: the same
// loop `for (tok = cluster_id; tok < tokens; tok += num_clusters, parity ^= 1)` calling
// kernels::fused_token_epilogue<bf16, ar_res_rms> with the one-shot sum_of (kernels::poll_and_sum,
// N = 2, pairwise, batch 2). One round is a dependent sequence the model otherwise composes from
// separate benches: the residual DRAM load (ld_input_v4) and the two relaxed.sys poll loads of the
// Lamport slots in flight together, the pairwise add (round to bf16), the residual add, the sum of
// squares, the block + cluster reduction (cluster_sum: warp shuffles, __syncthreads, cluster.sync and
// distributed shared memory at cluster > 1), IEEE div / sqrt, the gamma load, the norm, and the
// residual_out / norm_out stores; one block per SM, every thread one vector (vecs_per_thread 1, so
// tpb x cluster x 8 == H). Why: whether the per-phase constants add up to what a real round costs.
//
// Set-up (rank 0 alone, no peers): the "Lamport buffer" is 2 slots of [tokens, H] bf16 filled with
// 0x3c3c (valid values, never the -0.0 pattern 0x8000), so the first poll load already sees every
// vector arrived and no wait ever happens (p.fault points to a zeroed word, checked after each
// configuration; p.timeout_ns >= 10 s). residual_in holds 0x3c3c, gamma 0x3f3f. Before every
// repetition L2 is flushed (a memset of 4x L2 bytes, as bench round_load) so residual_in comes from
// DRAM, then the slot buffer is read once (ld.cg) to put it back in L2, as the peers' pushes just
// before the poll phase would; then the timed kernel runs. CAVEAT: the slot buffer is 2 x tokens x
// H x 2 bytes (tokens = clusters x rounds); at cluster 1 / 2 with H 8192 on a whole H200 (132 SMs,
// 16 rounds) that is 35-69 MB, beyond or near L2 (50 MB), so part of the poll loads may then miss L2.
//
// Grid: clusters = floor(sms / cluster), grid = clusters x cluster blocks (cluster launch attribute
// at cluster > 1), rounds R per cluster (16; quick: 8), tokens = clusters x R. Timing: block 0
// thread 0 reads %globaltimer after a barrier over its cluster (__syncthreads at cluster 1,
// cluster.sync otherwise) before the loop and after another one after the loop (the kernel ends with
// that cluster.sync too); ns_per_round = interval / R (the interval holds R rounds plus one barrier).
// reps = env.reps, after one discarded warm-up repetition. Blocks' SMs are recorded and a WARNING is
// printed when blocks shared an SM. Clusters that do not fit at once (GPC limits) would run in later
// waves; block 0 is in the first.
// Variant bf16_ar_res_rms_busy (emulated node only): the same, while rank 1's partition runs the same
// kernel on its own buffers with twice the rounds, launched just before (both partitions run rounds
// at once, as on the emulated TP2 node).
// Configurations (tpb, cluster): (128, 8), (256, 4), (512, 2), (1024, 1) at H 8192 and (128, 4),
// (512, 1) at H 4096. Row: bench epilogue_round, variant bf16_ar_res_rms, sms = blocks launched,
// tpb, cluster, size = H ("hidden"), metric ns_per_round.
// Every block's slowest and the grid's span (since 2026-12-02 14:40): every block's thread 0 records its
// own interval (times[2 b], times[2 b + 1]); besides block 0's row, each configuration gets a row
// `VARIANT_slowest` (the longest interval over the grid's blocks, per round) and `VARIANT_span` (the
// latest end minus the earliest start, per round: the slowest block plus the blocks' start skew). A
// fused kernel ends with its last block, so these say what a full grid's round takes where block 0's
// row says what one block's takes.
// Grid sweep: variant bf16_ar_res_rms_grid (and _grid_busy, the partner running the same grid on its
// own partition) at (512, 1) H 4096 and (1024, 1) H 8192 with 8, 16 and 32 blocks (the full partition
// is the main rows), each with its _slowest and _span rows: how a round grows with the grid.
// Patterns (since 2026-12-02): the same rounds of the kernels' epilogue for ar_res_rms_fp4 (variant
// bf16_ar_res_rms_fp4[_busy]: quant_out codes and swizzled 128x4 scale factors, global scale 1) and
// for ar (bf16_ar[_busy]: the sum stored to allreduce_out, no norm): the model's nvfp4_round_ns and
// ar_round_ns are what these rounds take beyond its round for that pattern. Since session 29 (2026-12-05)
// also ar_res_rms_fp8 (bf16_ar_res_rms_fp8[_busy]: e4m3 codes to quant_out, scale 1, with its _r4 / _r12
// rows): fp8_round_ns.
// Vectors per thread (since 2026-12-03): variants bf16_ar_res_rms_vpt2 and _vpt4 (+ _busy, _slowest,
// _span) at (tpb, cluster, vpt) (512, 1, 2), (256, 1, 4), (256, 2, 2), (128, 2, 4) at H 8192 and (256,
// 1, 2), (128, 1, 4) at H 4096: every thread holds 2 or 4 vectors of its token. The same for the ar
// pattern (bf16_ar_vpt2 / _vpt4, + _busy; since 7232ac1, 2026-12-04): ar_round_ns_per_extra_vector; and
// for NVFP4 (bf16_ar_res_rms_fp4_vpt2 / _vpt4, + _busy; since session 27): nvfp4_round_ns_per_extra_vector.
// Rounds (since 1ef201f, 2026-12-04): each pattern's main configurations again with 4 and with 12 rounds per
// cluster (variants VARIANT_r4 / VARIANT_r12, + _busy where a partner exists, each with _slowest and
// _span). (12 x t_r12 - 4 x t_r4) / 8 is one further round without the fixed part of the interval (the
// barriers and timer reads around the loop), and 12 rounds keep every configuration's slot buffer
// within 13 MB (the main rows' 16 rounds at 1024/1, H 8192, poll 34 MB of slots, beyond the
// partition's share of L2, with the partner's 67 MB beside them).
// Odd blocks (since session 50, 2026-12-07): variant bf16_ar_res_rms_fp4_odd (+ _busy, _slowest, _span), the
// NVFP4 round where tpb is odd, so a 16-element scale block (vectors 2j, 2j+1) can straddle two threads'
// warps or two blocks: every amax goes through shared memory ([vecs_per_thread][tpb] floats of dynamic
// shared memory), a cluster barrier follows, and each vector's norm is recomputed from residual_out and
// gamma before its codes (kernels/fused_epilogue.cuh). Configurations (tpb, cluster) (85, 8) at H 5440,
// (255, 4) at H 8160, (339, 2) at H 5424 and (991, 1) at H 7928 (3 to 31 warps, every thread one vector):
// the model's nvfp4_odd_round_ns and its slope over warps are what these rounds take beyond its even
// NVFP4 round of the same shape.
// Wide blocks (since session 51): variants bf16_ar_res_rms_fp4_vpt2_wide / _vpt4_wide and, as their control,
// bf16_ar_res_rms_vpt2_wide / _vpt4_wide (+ _busy, _slowest, _span) at (tpb, cluster, vpt) (1024, 1, 2) and
// (512, 1, 4) at H 16384, (768, 1, 2) at H 12288 and (512, 2, 2) at H 16384: 16-32 warps with every thread
// holding 2 or 4 vectors, beyond the 4-16 warps of the vpt rows above.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"
#include "kernels/oneshot_kernel.cuh"

namespace arlab::calibrate {
namespace {

using T = __nv_bfloat16;
constexpr int kVec = kernels::DTypeTraits<T>::kVec;
constexpr int kRanks = 2;
constexpr int kBatch = 2;  // what the one-shot kernel polls with for N = 2, ar_res_rms
static_assert(kBatch == kernels::poll_batch<kRanks, false>(), "the one-shot kernel's poll batch");
template <Pattern kPattern>
__global__ void __launch_bounds__(kMaxThreadsPerBlock, 1)
    epilogue_round_kernel(const __grid_constant__ kernels::FusedParams p, unsigned long long* times, unsigned* smids) {
  __shared__ kernels::EpilogueShared epi;
  extern __shared__ float fp4_amax_exchange[];  // [vecs_per_thread][tpb]: odd tpb with NVFP4 only
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
  const kernels::TokenMapping m = kernels::token_mapping<T>(p);
  const char* my_cur = static_cast<const char*>(p.my_region);  // buffer cur = 0
  kernels::PollState st;
  const kernels::QuantScales q = kernels::load_quant_scales<kPattern>(p);
  kernels::cluster_barrier(m.cluster);  // every block of my cluster has started
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) t0 = kernels::global_timer_ns();
  int parity = 0;
  for (int tok = m.cluster_id; tok < p.tokens; tok += m.num_clusters, parity ^= 1) {
    const auto sum_of = [&](long long off, float(&acc)[kVec]) {
      kernels::poll_and_sum<T, kRanks, Accumulation::pairwise, kBatch>(my_cur + off, p.slot_bytes, tok, p, st, acc);
    };
    kernels::fused_token_epilogue<T, kPattern, kernels::ReferenceEpilogue>(p, m, epi, fp4_amax_exchange, q, tok, parity,
                                                                         sum_of);
  }
  // Every thread of the cluster is done; also keeps shared memory alive for remote readers.
  kernels::cluster_barrier(m.cluster);
  if (threadIdx.x == 0) {
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = kernels::global_timer_ns();
  }
}

struct Config {
  int hidden, tpb, cluster;
  int vpt = 1;  // vectors per thread: tpb x cluster x 8 x vpt == H (x 2 for the idle rows)
};
// Variant bf16_ar_res_rms_idle: the ar_res_rms round with half of every cluster's threads holding no
// vector (tpb x cluster x 8 = 2 H, vecs_per_thread 1): the first blocks of a cluster (block 0 at
// cluster 1: its first half) hold the token, the others only reduce. Whether a round's per-warp
// costs follow the warps that hold a vector or all the warps of the block.
const Config kIdleConfigs[] = {{4096, 1024, 1}, {4096, 512, 2}, {4096, 256, 4}, {4096, 128, 8}};
// Variant bf16_ar_res_rms_fp4_odd: the NVFP4 round at an odd tpb (its shared-memory amax exchange, cluster
// barrier and recomputed norms), every thread one vector: 3, 8, 11 and 31 warps.
const Config kOddConfigs[] = {{5440, 85, 8}, {8160, 255, 4}, {5424, 339, 2}, {7928, 991, 1}};
// The grid sweep's configurations and grids (blocks; the full partition is the main pass).
const Config kSweepConfigs[] = {{4096, 512, 1}, {8192, 1024, 1}};
const int kSweepGrids[] = {8, 16, 32};
// Variants bf16_ar_res_rms_vpt2 / _vpt4 (and _busy): the ar_res_rms round where every thread holds 2 or
// 4 vectors of its token (the kernel's loops over k < vecs_per_thread, with its registers and spills):
// what a round costs per vector a thread holds beyond its first.
const Config kVptConfigs[] = {{8192, 512, 1, 2}, {8192, 256, 1, 4}, {4096, 256, 1, 2},
                              {4096, 128, 1, 4}, {8192, 256, 2, 2}, {8192, 128, 2, 4}};
// Variants VARIANT_vpt2_wide / _vpt4_wide (since session 51; NVFP4 and, as its control, ar_res_rms): the same
// rounds on blocks of 16-32 warps, where the fused NVFP4 rows of 2 vectors per thread run longer than the
// constants from the 4-16 warps above price them (docs/model.md, "Session 51").
const Config kWideVptConfigs[] = {{16384, 1024, 1, 2}, {12288, 768, 1, 2}, {16384, 512, 1, 4}, {16384, 512, 2, 2}};

// The rounds variants' rounds per cluster (VARIANT_r4, VARIANT_r12), the larger last.
constexpr int kVariantRounds[] = {4, 12};
constexpr int kMostVariantRounds = kVariantRounds[1];

// The patterns measured, with their row variant (+ "_busy" for the partner variant).
struct PatternRun {
  const char* variant;
  void (*kernel)(kernels::FusedParams, unsigned long long*, unsigned*);
};
const PatternRun kPatternRuns[] = {
    {"bf16_ar_res_rms", epilogue_round_kernel<Pattern::ar_res_rms>},
    {"bf16_ar_res_rms_fp4", epilogue_round_kernel<Pattern::ar_res_rms_fp4>},
    {"bf16_ar", epilogue_round_kernel<Pattern::ar>},
    // Since session 29: the FP8 round (e4m3 codes of the normed values, scale 1), for fp8_round_ns.
    {"bf16_ar_res_rms_fp8", epilogue_round_kernel<Pattern::ar_res_rms_fp8>},
};
constexpr int kFp4Run = 1;  // kPatternRuns' NVFP4 row
constexpr int kArRun = 2;   // kPatternRuns' ar row

}  // namespace

void bench_epilogue_round(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  const int rounds = env.quick ? 8 : 16;
  const int buffer_rounds = std::max(rounds, kMostVariantRounds);  // what the buffers below hold
  const Config configs[] = {{8192, 128, 8}, {8192, 256, 4}, {8192, 512, 2},
                            {8192, 1024, 1}, {4096, 128, 4}, {4096, 512, 1}};
  constexpr int kMaxHidden = 16384;  // the wide configurations' largest H
  size_t max_bytes = 0;  // largest [tokens, H] bf16 tensor over the configurations
  for (const Config& c : configs)
    max_bytes = std::max(max_bytes, static_cast<size_t>(env.sms / c.cluster) * buffer_rounds * c.hidden * sizeof(T));
  const auto hold = [&](const Config& c) {  // every H <= kMaxHidden too
    max_bytes = std::max(max_bytes, static_cast<size_t>(env.sms / c.cluster) * buffer_rounds * c.hidden * sizeof(T));
  };
  for (const Config& c : kOddConfigs) hold(c);
  for (const Config& c : kWideVptConfigs) hold(c);
  if (max_bytes == 0) return;
  harness::DeviceBuffer residual_in(max_bytes, env.rank), residual_out(max_bytes, env.rank),
      norm_out(max_bytes, env.rank), slots(2 * max_bytes, env.rank), gamma(kMaxHidden * sizeof(T), env.rank);
  harness::DeviceBuffer fault(sizeof(unsigned long long), env.rank),
      times(2 * static_cast<size_t>(env.sms) * sizeof(unsigned long long), env.rank),
      smids(static_cast<size_t>(env.sms) * sizeof(unsigned), env.rank), sink(sizeof(unsigned), env.rank);
  // Quantized outputs: FP8 one code per element ([tokens, H] bytes, half the bf16 tensor), NVFP4 two per
  // byte, and one e4m3 scale factor per 16 elements in the swizzled 128x4 layout (rows padded to 128,
  // 16-blocks to 4: H <= 16384 gives 1024 per row); the global scale 1.
  const size_t quant_bytes = max_bytes / 2;
  const size_t sf_bytes = static_cast<size_t>(env.sms * buffer_rounds + 128) * (kMaxHidden / 16);
  const float one = 1.0f;
  harness::DeviceBuffer quant_out(quant_bytes, env.rank), scale_out(sf_bytes, env.rank), scale(sizeof(float), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank,
                        cudaMemcpyAsync(scale.data(), &one, sizeof(float), cudaMemcpyHostToDevice, env.stream));
  // bf16 0x3c3c ~ 0.0115 (inputs), 0x3f3f ~ 0.746 (gamma): finite, never -0.0.
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(residual_in.data(), 0x3c, max_bytes, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(slots.data(), 0x3c, 2 * max_bytes, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(gamma.data(), 0x3f, kMaxHidden * sizeof(T), env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(fault.data(), 0, sizeof(unsigned long long), env.stream));
  // The partner of the _busy variant (emulated node only): rank 1's partition runs the same rounds on
  // its own buffers, twice as many, started just before the measured kernel so that it covers it --
  // the emulated TP2 node, where both partitions run their rounds at once.
  const bool with_partner = env.partner_stream() != nullptr && env.partner_sms() > 0;
  const size_t partner_bytes = with_partner ? 2 * max_bytes : 0;
  const int partner = env.partner_rank();
  const cudaStream_t partner_stream = env.partner_stream();
  const size_t partner_blocks = static_cast<size_t>(std::max(env.partner_sms(), 1));
  harness::DeviceBuffer p_res_in(partner_bytes, partner), p_res_out(partner_bytes, partner),
      p_norm_out(partner_bytes, partner), p_slots(2 * partner_bytes, partner),
      p_fault(sizeof(unsigned long long), partner),
      p_times(2 * partner_blocks * sizeof(unsigned long long), partner),
      p_smids(partner_blocks * sizeof(unsigned), partner), p_quant_out(with_partner ? 2 * quant_bytes : 0, partner),
      p_scale_out(with_partner ? 2 * sf_bytes : 0, partner), p_scale(sizeof(float), partner);
  if (with_partner) {
    ARLAB_CUDA_CHECK_RANK(partner,
                          cudaMemcpyAsync(p_scale.data(), &one, sizeof(float), cudaMemcpyHostToDevice, partner_stream));
    ARLAB_CUDA_CHECK_RANK(partner, cudaMemsetAsync(p_res_in.data(), 0x3c, partner_bytes, partner_stream));
    ARLAB_CUDA_CHECK_RANK(partner, cudaMemsetAsync(p_slots.data(), 0x3c, 2 * partner_bytes, partner_stream));
    ARLAB_CUDA_CHECK_RANK(partner, cudaMemsetAsync(p_fault.data(), 0, sizeof(unsigned long long), partner_stream));
    ARLAB_CUDA_CHECK_RANK(partner, cudaStreamSynchronize(partner_stream));
  }
  // 4x L2 of fresh writes evicts everything from L2 before each repetition (as bench round_load does).
  const size_t flush_bytes = static_cast<size_t>(4 * std::max<int64_t>(env.device->props.l2_bytes, 1 << 20));
  harness::DeviceBuffer flush(flush_bytes, env.rank);
  int flips = 0;
  struct Pass {
    const PatternRun* run;
    bool busy, idle;
    int blocks;  // the grid sweep's blocks; 0: the full partition
    bool vpt = false;  // the configurations of several vectors per thread
    int rounds = 0;    // rounds per cluster of the rounds variants; 0: the main count (`rounds`)
    bool odd = false;  // the odd-tpb configurations (NVFP4)
    bool wide = false;  // the configurations of several vectors per thread on 16-32 warps
  };
  std::vector<Pass> passes;
  for (const PatternRun& run : kPatternRuns) {
    passes.push_back({&run, false, false, 0});
    if (with_partner) passes.push_back({&run, true, false, 0});
  }
  passes.push_back({&kPatternRuns[0], false, true, 0});
  for (const int blocks : kSweepGrids) {
    if (blocks >= env.sms) continue;
    passes.push_back({&kPatternRuns[0], false, false, blocks});
    if (with_partner) passes.push_back({&kPatternRuns[0], true, false, blocks});
  }
  passes.push_back({&kPatternRuns[0], false, false, 0, true});
  if (with_partner) passes.push_back({&kPatternRuns[0], true, false, 0, true});
  // The ar round at 2 and 4 vectors per thread too (bf16_ar_vpt2 / _vpt4: its loop over the thread's
  // vectors, poll, sum and store each; since 7232ac1: ar_round_ns_per_extra_vector).
  passes.push_back({&kPatternRuns[kArRun], false, false, 0, true});
  if (with_partner) passes.push_back({&kPatternRuns[kArRun], true, false, 0, true});
  // The NVFP4 round at 2 and 4 vectors per thread (bf16_ar_res_rms_fp4_vpt2 / _vpt4: block amax, scale
  // factor and e2m1 codes once per vector; since 2026-12-04 session 27: nvfp4_round_ns_per_extra_vector).
  passes.push_back({&kPatternRuns[kFp4Run], false, false, 0, true});
  if (with_partner) passes.push_back({&kPatternRuns[kFp4Run], true, false, 0, true});
  // The NVFP4 round at odd tpb (bf16_ar_res_rms_fp4_odd; since session 50: nvfp4_odd_round_ns).
  passes.push_back({&kPatternRuns[kFp4Run], false, false, 0, false, 0, true});
  if (with_partner) passes.push_back({&kPatternRuns[kFp4Run], true, false, 0, false, 0, true});
  // The NVFP4 round and, as its control, the RMSNorm round at 2 and 4 vectors per thread on 16-32 warps
  // (VARIANT_vpt2_wide / _vpt4_wide; since session 51).
  for (const PatternRun* run : {&kPatternRuns[kFp4Run], &kPatternRuns[0]}) {
    passes.push_back({run, false, false, 0, true, 0, false, true});
    if (with_partner) passes.push_back({run, true, false, 0, true, 0, false, true});
  }
  for (const PatternRun& run : kPatternRuns)
    for (const int r : kVariantRounds) {
      passes.push_back({&run, false, false, 0, false, r});
      if (with_partner) passes.push_back({&run, true, false, 0, false, r});
    }
  for (const Pass& pass : passes) {
    const PatternRun& run = *pass.run;
    const bool busy = pass.busy;
    const bool sweep = pass.blocks > 0;
    const auto first = pass.idle  ? std::begin(kIdleConfigs)
                       : sweep    ? std::begin(kSweepConfigs)
                       : pass.wide ? std::begin(kWideVptConfigs)
                       : pass.vpt ? std::begin(kVptConfigs)
                       : pass.odd ? std::begin(kOddConfigs)
                                  : std::begin(configs);
    const auto last = pass.idle  ? std::end(kIdleConfigs)
                      : sweep    ? std::end(kSweepConfigs)
                      : pass.wide ? std::end(kWideVptConfigs)
                      : pass.vpt ? std::end(kVptConfigs)
                      : pass.odd ? std::end(kOddConfigs)
                                 : std::end(configs);
    for (auto it = first; it != last; ++it) {
      const Config& c = *it;
      if (c.tpb * c.cluster * kVec * c.vpt != (pass.idle ? 2 : 1) * c.hidden)
        throw CudaError("epilogue_round: a configuration whose vectors per thread do not cover its H");
      if (pass.odd && c.tpb % 2 == 0) throw CudaError("epilogue_round: an odd-tpb configuration with an even tpb");
      const int clusters = (sweep ? pass.blocks : env.sms) / c.cluster;
      if (clusters < 1) continue;
      const int grid = clusters * c.cluster;
      // The amax exchange of an odd tpb (the fused kernels' own size: kernels/dispatch.cu).
      const size_t smem = c.tpb % 2 != 0 ? static_cast<size_t>(c.vpt) * c.tpb * sizeof(float) : 0;
      const int pass_rounds = pass.rounds > 0 ? pass.rounds : rounds;  // <= rounds: the buffers hold them
      const int tokens = clusters * pass_rounds;
      const long long slot_bytes = static_cast<long long>(tokens) * c.hidden * static_cast<long long>(sizeof(T));
      kernels::FusedParams p =
          round_bench_params(env, tokens, c.hidden, c.cluster, c.vpt, kRanks, slots.data(), slot_bytes, gamma.data(),
                             scale.as<float>(), fault.as<unsigned long long>());
      p.residual_in = residual_in.data();
      p.residual_out = residual_out.data();
      p.allreduce_out = residual_out.data();  // ar: the sum goes where the residual sum would
      p.norm_out = norm_out.data();
      p.quant_out = quant_out.data();
      p.scale_out = scale_out.data();
      p.sf_swizzled = 1;
      // The partner: the same shape on rank 1's SMs, 2 x the rounds, its own buffers (same gamma values).
      const int p_clusters = sweep ? clusters : std::max(1, env.partner_sms() / c.cluster);
      kernels::FusedParams q = p;
      if (busy) {
        q.residual_in = p_res_in.data();
        q.residual_out = p_res_out.data();
        q.allreduce_out = p_res_out.data();
        q.norm_out = p_norm_out.data();
        q.quant_out = p_quant_out.data();
        q.scale_out = p_scale_out.data();
        q.scale = p_scale.as<float>();
        q.gamma = gamma.data();
        q.tokens = p_clusters * 2 * pass_rounds;
        q.slot_bytes = static_cast<long long>(q.tokens) * c.hidden * static_cast<long long>(sizeof(T));
        q.buffer_bytes = kRanks * q.slot_bytes;
        q.regions[0] = p_slots.data();
        q.my_region = p_slots.data();
        q.fault = p_fault.as<unsigned long long>();
        q.rank = 1;
      }
      std::vector<double> ns, slowest, span;
      std::vector<unsigned long long> block_times(2 * static_cast<size_t>(grid));
      for (int r = 0; r < env.reps + 1; ++r) {  // the first repetition is a warm-up
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
        warm_l2(env, slots.data(), p.buffer_bytes, sink.as<unsigned>());
        if (busy) {
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
          launch(Shape{p_clusters * c.cluster, c.tpb, c.cluster, smem}, partner_stream, partner,
                 run.kernel, q, p_times.as<unsigned long long>(), p_smids.as<unsigned>());
        }
        launch(Shape{grid, c.tpb, c.cluster, smem}, env.stream, env.rank, run.kernel, p,
               times.as<unsigned long long>(), smids.as<unsigned>());
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(block_times.data(), times.data(),
                                                        block_times.size() * sizeof(unsigned long long),
                                                        cudaMemcpyDeviceToHost, env.stream));
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
        const GridTimes t = grid_times(block_times, grid);
        if (busy) ARLAB_CUDA_CHECK_RANK(partner, cudaStreamSynchronize(partner_stream));
        if (r > 0) {
          ns.push_back(t.block0 / pass_rounds);
          slowest.push_back(t.slowest / pass_rounds);
          span.push_back(t.span / pass_rounds);
        }
      }
      std::vector<unsigned> ids(static_cast<size_t>(grid), 0u);
      unsigned long long fault_word = 0, partner_fault = 0;
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(ids.data(), smids.data(), ids.size() * sizeof(unsigned),
                                                      cudaMemcpyDeviceToHost, env.stream));
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(&fault_word, fault.data(), sizeof(fault_word),
                                                      cudaMemcpyDeviceToHost, env.stream));
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
      if (busy)
        ARLAB_CUDA_CHECK_RANK(partner, cudaMemcpy(&partner_fault, p_fault.data(), sizeof(partner_fault),
                                                        cudaMemcpyDeviceToHost));
      if (fault_word != 0 || partner_fault != 0)
        throw CudaError("epilogue_round: a poll waited and timed out (fault words " + std::to_string(fault_word) +
                        ", " + std::to_string(partner_fault) + ")");
      distinct_sms(ids, grid, "epilogue_round");
      const std::string variant = std::string(run.variant) + (sweep ? "_grid" : "") +
                                  (pass.vpt ? "_vpt" + std::to_string(c.vpt) : std::string()) +
                                  (pass.wide ? "_wide" : "") +
                                  (pass.rounds > 0 ? "_r" + std::to_string(pass.rounds) : std::string()) +
                                  (pass.odd ? "_odd" : "") +
                                  (busy ? "_busy" : pass.idle ? "_idle" : "");
      const auto row = [&](const std::string& v, const std::vector<double>& values) {
        out.push_back(make_point(
            PointKey{"epilogue_round", v, grid, c.tpb, c.cluster, double(c.hidden), "hidden", "ns_per_round"}, values));
      };
      row(variant, ns);
      row(variant + "_slowest", slowest);
      row(variant + "_span", span);
    }
  }
}

}  // namespace arlab::calibrate
