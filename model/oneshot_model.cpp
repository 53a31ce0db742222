// The one-shot timing model: the phases of the one-shot kernels, in the order they run them, each as
// long as its slowest limit (a latency chain, a per-SM rate, the link, HBM). One model serves both
// kernel bodies (common/implementations.h ModelDesign); where the lean body (kernels/
// oneshot_lean_kernel.cuh) differs from the reference (kernels/oneshot_kernel.cuh) the difference is
// a field of OneshotDesign below, and the term's explanation says which body it describes:
//
//   launch        empty-kernel duration of the grid (+ cluster launch)
//   prologue      the flag read (one L2 round trip); both bodies issue the arrival atomic after it
//                 and look at its result only after the push, so the arrival is off the critical
//                 path (the epilogue operands of the first vector load beside the flag read). Rows
//                 of the reference measured before its fence-free control block (LaunchConfig
//                 fenced_reference) are predicted with the design that ran: + the arrival the whole
//                 block waited for (fence, atomic round trip, fence: measured as one block's fenced
//                 atomic) + one serialized atomic per block of the grid, and no gamma held
//   push          per wave: each thread loads a vector of x (a DRAM miss) and stores it to the ranks
//                 (reference: all N, its own slot included; lean: the N-1 peers), tokens x vectors one
//                 after the other (the store needs the load; push_step, measured by the round_load
//                 push_store benches, over the warps that hold a vector and per store: N for the
//                 reference, N-1 for lean; both bodies load and push one vector at a time), so
//                 chain = R x vecs_mean push steps (the vectors per thread averaged over the busiest
//                 block: a last vector that the token fills in part counts by the share of threads
//                 that push it), the first at the whole partition's step, the later
//                 ones with their per-warp part shrunk where few blocks push (model_terms.h
//                 push_chain_ns); against the per-SM load rate (Little's law: bytes in
//                 flight / DRAM latency), the per-SM store rate (the stored slices per token through
//                 the SM's port), the per-SM peer-store rate, the link ((N-1) S per direction) and
//                 HBM (x read, own slot written (reference only), N-1 peers' slots received)
//   clear         reference: N x S bytes of -0.0 grid-strided over the grid's SMs: per-SM store rate vs
//                 HBM. lean: none (each consumed peer slot is cleared in the reduce phase; the steady
//                 state of lean calls; a lean call right after a reference call also clears that call's
//                 buffer, which this model does not predict)
//   first_wait    the first poll waits until the peers' push of the cluster's first token (pushed first)
//                 is visible: what of the one-way store-to-seen latency the clear and this rank's push of
//                 its later tokens have not hidden
// Every HBM bound (push, clear, reduce) runs at the rank's staggered rate (model_terms.h
// staggered_hbm_rate): on the emulated node the ranks start a measured gap apart, so fewer than N
// stream beside the last one where the call's HBM time is short beside the gaps.
//   grid          per wave, what the exchange round adds beyond one block's for the blocks that hold a
//                 vector: exchange_grid_ns_per_block per SM they occupy beyond the first, and _warp x
//                 their warps per block beyond the first (calibrate: exchange all_to_all_grid)
//   reduce        per wave, the rounds' chain and the bandwidth bounds overlapping imperfectly
//                 ((chain^3 + bandwidth^3)^(1/3), model_terms.h chain_with_bandwidth_ns); R rounds of (per vector: the
//                 residual load (DRAM) and the polls (ld.relaxed.sys
//                 L2 hits; lean: the N-1 peer slots, its own vector re-read from x, an L2 hit) in flight
//                 together (lean at N >= 4: after that re-read, lean_own_vector_wait_ns); the epilogue's vector ops; block and cluster reduction; the norm loop's gamma
//                 loads (L2; the reference holds the gamma of its first vector in a register, lean
//                 the gamma and residual sum of its first vector, and at N >= 8 no gamma (the register
//                 budget: kernels/oneshot_lean_kernel.cuh); both bodies load the
//                 residual of their first vector of their first token at the start, so a wave's first
//                 round waits only for its other vectors' residual loads and the polls)); against
//                 HBM (the polled
//                 slots and the residual read, the outputs written; lean: + the -0.0 written back over
//                 the consumed peer slots, + its own vector re-read from x where the polls miss L2
//                 (since session 53)) and the per-SM port
//                 + the round overhead: what these parts leave out of the kernel's own round code
//                 measured in isolation (bench epilogue_round; RMSNorm, with a part per vector a
//                 thread holds beyond its first, scaled by the partition's share of SMs holding one;
//                 NVFP4 and ar: their own part too; lean at N >= 4: lean_round_ns_per_extra_rank +
//                 _per_warp x the vector warps on the SM (since session 51) per rank beyond 2 and vector a
//                 thread holds, bench body_round)
//                 + the polls from DRAM: the share of the call's polls whose lines its own traffic
//                 has pushed out of L2 (poll_miss_fraction: the bytes streamed between a token's
//                 push and its poll against the reuse curve of bench body_round *_reuse) x what a
//                 round's polls from DRAM add per vector (bench body_round *_cold, poll_miss_ns_n*)
//                 + for a quantizing pattern, in every round: what its round takes per vector beyond
//                 ar_res_rms's (quant_further_round_ns_n2 / _n4 / _n8 + _per_warp, bench body_round
//                 *_fp8_n*: at N = 8 its polls go out in four batches of two, not two of four)
//                 + in every round after the first: what such a round takes beyond the model's round
//                 (further_round_ns_n2 / _n4 / _n8 + _per_warp x the warps that hold a vector on the
//                 SM + (_per_extra_vector + _per_extra_vector_per_warp x those warps) x the vectors a
//                 thread holds beyond its first (since session 52; a line per vector, times the vectors,
//                 before), bench body_round reference_n* and _wide: the body alone with its data in
//                 place; negative at N = 2, where the model's round (its overhead measured with a
//                 partner busy) fits a call's first round and the further ones run shorter)
//                 + for `ar` at N = 2, in every round and in place of that line: its own measured
//                 line, per vector (ar_round_line_ns_n2 + _per_warp, lean_ too, bench body_round
//                 *_ar_n2)
//                 lean, clusters of blocks of whole warps: the block totals are sent into the other
//                 blocks' shared memory (st.async into an mbarrier) instead of a cluster barrier
//                 (pushed_exchange_ns + _per_peer x (cluster - 1), bench cluster_sync/pushed)
//   exit          the closing cluster barrier (cluster > 1): the relaxed lifetime barrier in both bodies (bench
//                 cluster_sync barrier_relaxed, a line over the warps on the SM; lean: none where it pushes
//                 its totals or has no norm); the reference as measured before a160fc2 (LaunchConfig
//                 release_exit_reference) closed with cluster.sync(), whose release arrive is a GPU-scope
//                 MEMBAR on sm_90 that waits for the outputs just stored (bench cluster_sync barrier + one L2
//                 round trip). Lean's pushed exchange starts with a relaxed cluster arrive before the flag
//                 read: one relaxed barrier in the prologue
//   drain         where no cluster.sync at exit released them, the last stores leaving the SM before
//                 the kernel ends (calibrate: launch store_1 / store_8, exit_store_drain_ns)
// with R = ceil(tokens / clusters) tokens per cluster and waves = ceil(min(tokens, clusters) /
// co-resident clusters). Rates from Little's law are folded into the chains (one vector in flight
// per thread); the calibration's constants are microbenchmark results (`arlab calibrate`) measured on
// the reference body's code paths; the lean model reuses them, with two lean-specific ones: its pushed
// exchange (cluster_sync pushed) and its round's growth with N (body_round).
// The headline is the skew-free time (docs/measurement.md): the start skew between ranks does not lengthen it
// (the last rank to start finds every peer's data already pushed); the max over ranks adds it.
#include <algorithm>

#include "common/fmt.h"
#include "common/launch_limits.h"
#include "model/model_terms.h"

namespace arlab::model::detail {

namespace {

// What distinguishes the two one-shot kernel bodies, as the phases above see it.
struct OneshotDesign {
  const char* name;
  bool arrival_on_path;      // the block waits for the fenced arrival atomic before pushing (the fenced reference)
  int stored_slots;          // slots each pushed vector is stored to (N: own included; N-1: peers only)
  int polled_slots;          // slots polled per vector (the own vector of lean is an L2 re-read of x)
  bool clear_pass;           // a separate -0.0 pass over the previous call's buffer
  bool clear_on_consume;     // the polled peer slots are written back to -0.0 in the reduce phase
  int gamma_loads_saved;     // leading vectors whose gamma (and residual sum) stay in registers
  bool first_residual_held;  // residual_in of a cluster's first vector of its first token loaded at the start
  bool pushed_cluster_sum;   // blocks of whole warps: the blocks push their totals into each
                             // other's shared memory (no cluster barrier per token, none at exit)
  bool own_from_registers;   // my own vector is added from a register re-read from x, not polled
                             // (at N >= 4 the polls wait for that re-read: lean_own_vector_wait_ns)
  bool release_exit;         // closes (cluster > 1) with cluster.sync(), whose release arrive waits for the
                             // outputs just stored: the reference as measured before a160fc2; since then
                             // both bodies close with the relaxed lifetime barrier
};


OneshotDesign design_of(ModelDesign design, bool fenced, bool release_exit, const Problem& p) {
  const int n = p.nranks;
  // kernels/oneshot_lean_kernel.cuh: the first vector's gamma held at N < 8 (until 2026-12-04 the second
  // one's too at N = 2); at N >= 8 none (kLeanHoldsPushOperands: the register budget), so every vector's
  // norm loads it (L2), as the model's reference round before it held one.
  if (design == ModelDesign::lean)
    return {"lean", false, n - 1, n - 1, false, true, n >= 8 ? 0 : 1, true, true, true, false};
  // The reference as rows measured before its fence-free control block ran it (LaunchConfig
  // fenced_reference): the arrival on the path, gamma loaded after the reduction.
  if (fenced) return {"reference (fenced)", true, n, n, true, false, 0, false, false, false, true};
  // kernels/oneshot_kernel.cuh: gamma (and residual) of the first vector loaded at the start.
  // Rows measured before a160fc2 (LaunchConfig release_exit_reference) closed with cluster.sync().
  return {release_exit ? "reference (closing cluster.sync)" : "reference", false, n, n, true, false, 1, true, false,
          false, release_exit};
}

// One token round of a body (per wave): the shared round (model_terms.h oneshot_round) with the
// body's gamma loads, its cluster exchange and, lean at N >= 4, the polls' wait for the own vector.
struct BodyRound {
  RoundParts parts;
  bool pushed = false;              // the block totals pushed through distributed shared memory
  double pushed_exchange_ns = 0.0;  // that exchange (in parts.reduce, in place of the cluster barrier)
  double own_wait_ns = 0.0;         // lean at N >= 4 (in parts.loads)
  double extra_ranks_ns = 0.0;      // lean: lean_round_ns_per_extra_rank x (N - 2) x vectors (in parts.overhead)
  double miss_fraction = 0.0;       // of the polls that find their line gone from L2 (poll_miss_fraction)
  double poll_miss_ns = 0.0;        // what those misses add to a round (in parts.overhead)
  double quant_ns = 0.0;            // a quantizing pattern's part beyond ar_res_rms's round (in parts.overhead)
  double ar_ns = 0.0;               // `ar` at N = 2: its measured part beyond the model's ar round (in parts.overhead):
  double ar_line_ns = 0.0;          //   the line at the warps on the SM, once per round,
  double ar_vector_ns = 0.0;        //   + this per vector beyond a thread's first (vecs_mean - 1)
  double further_ns = 0.0;          // what each round after a call's first takes beyond parts
                                    // (kFurtherRound at N + the per-vector part x further vectors, 0 for
                                    // ar at N = 2; the first round is parts alone)
};

// What a round's polls (and lean's re-read of its own vector from x) take beyond a warm round when
// they come from DRAM, per vector a thread holds (calibrate: body_round *_cold), at N ranks: the
// constants of N = 2, 4, 8 in N (never below 0 beyond 4).
double poll_miss_ns_per_vector(const Calibration& cal, bool lean, int n) {
  const double miss =
      lean ? linear_in_ranks(cal.lean_poll_miss_ns_n2, cal.lean_poll_miss_ns_n4, cal.lean_poll_miss_ns_n8, n)
           : linear_in_ranks(cal.poll_miss_ns_n2, cal.poll_miss_ns_n4, cal.poll_miss_ns_n8, n);
  return n <= 4 ? miss : std::max(0.0, miss);
}

// What a token round after a call's first takes per vector a thread holds beyond the model's round of the
// body, at N ranks (calibrate: body_round reference_n2 / _n4 / _n8 and lean_n*, the body alone with its
// data in place, against the model's round of the same shape; a line over the warps that hold a vector
// on the SM). The model's round has its overhead from rounds run with a partner partition busy, which
// fits a call's first round; the further ones measure shorter at N = 2 and longer at N = 8, where the
// polls of a vector go out in two batches of four (kernels/oneshot_steps.cuh poll_batch: the second waits
// for the first's round trip) and N = 4 sends one.
constexpr LinesAtRanks kFurtherRound{
    {&Calibration::further_round_ns_n2, &Calibration::further_round_ns_n4, &Calibration::further_round_ns_n8},
    {&Calibration::further_round_ns_per_warp_n2, &Calibration::further_round_ns_per_warp_n4,
     &Calibration::further_round_ns_per_warp_n8}};
constexpr LinesAtRanks kLeanFurtherRound{
    {&Calibration::lean_further_round_ns_n2, &Calibration::lean_further_round_ns_n4,
     &Calibration::lean_further_round_ns_n8},
    {&Calibration::lean_further_round_ns_per_warp_n2, &Calibration::lean_further_round_ns_per_warp_n4,
     &Calibration::lean_further_round_ns_per_warp_n8}};

// What such a round takes per vector a thread holds beyond its first, beyond the line above, at N ranks: a line
// over the same warps (since session 52; calibrate: body_round reference_n* / lean_n* with the _wide rows).
constexpr LinesAtRanks kFurtherVector{
    {&Calibration::further_round_ns_per_extra_vector_n2, &Calibration::further_round_ns_per_extra_vector_n4,
     &Calibration::further_round_ns_per_extra_vector_n8},
    {&Calibration::further_round_ns_per_extra_vector_per_warp_n2,
     &Calibration::further_round_ns_per_extra_vector_per_warp_n4,
     &Calibration::further_round_ns_per_extra_vector_per_warp_n8}};
constexpr LinesAtRanks kLeanFurtherVector{
    {&Calibration::lean_further_round_ns_per_extra_vector_n2, &Calibration::lean_further_round_ns_per_extra_vector_n4,
     &Calibration::lean_further_round_ns_per_extra_vector_n8},
    {&Calibration::lean_further_round_ns_per_extra_vector_per_warp_n2,
     &Calibration::lean_further_round_ns_per_extra_vector_per_warp_n4,
     &Calibration::lean_further_round_ns_per_extra_vector_per_warp_n8}};

// What a quantizing pattern's token round takes per vector a thread holds beyond ar_res_rms's, at N ranks
// (calibrate: body_round *_fp8_n2 / _n4 / _n8 against the model's FP8 round, less the ar_res_rms line of
// that N). At N = 8 their polls go out in four batches of two where ar_res_rms sends two of four; at N = 2
// and 4 they batch alike, and the part is what the FP8 epilogue's round takes beyond what the model prices
// (prior 0 where the microbenchmarks predate those rows). Measured on a call's further rounds, it is a
// difference between two patterns' rounds, so the model adds it to every round, the first included:
// judged on the committed TP8 grids, every one of them is predicted closer than with further rounds only
// (docs/model.md, "The quantizing patterns' rounds").
constexpr LinesAtRanks kQuantRound{
    {&Calibration::quant_further_round_ns_n2, &Calibration::quant_further_round_ns_n4,
     &Calibration::quant_further_round_ns_n8},
    {&Calibration::quant_further_round_ns_per_warp_n2, &Calibration::quant_further_round_ns_per_warp_n4,
     &Calibration::quant_further_round_ns_per_warp_n8}};
constexpr LinesAtRanks kLeanQuantRound{
    {&Calibration::lean_quant_further_round_ns_n2, &Calibration::lean_quant_further_round_ns_n4,
     &Calibration::lean_quant_further_round_ns_n8},
    {&Calibration::lean_quant_further_round_ns_per_warp_n2, &Calibration::lean_quant_further_round_ns_per_warp_n4,
     &Calibration::lean_quant_further_round_ns_per_warp_n8}};

// The mean share of a call's polls that miss L2. Between the write of token t's slots and its poll (u =
// t / tokens), the rank streams through L2 the rest of its push phase, (1 - u) x (x read + the slots it
// stores), the reference's clear of the previous buffer (N slots), and the reduce traffic of the tokens
// before t, u x (residual read + outputs + lean's -0.0 written back over the N - 1 consumed slots); in
// units of the rank's L2 (its share of the GPU's on the emulated node, where every rank streams alike).
// Averaged over 16 evenly spaced u.
double poll_miss_fraction(const ModelInputs& in, const OneshotDesign& d) {
  const double l2 = static_cast<double>(in.s.l2_bytes);
  if (!(l2 > 0)) return 0.0;
  const int n = in.p.nranks;
  const double s = in.input_bytes;
  const double push = (1.0 + d.stored_slots) * s;
  const double clear = d.clear_pass ? n * s : 0.0;
  const double reduce = (has_residual(in.p.pattern) ? s : 0.0) + in.out_bytes_per_token * in.p.tokens +
                        (d.clear_on_consume ? (n - 1) * s : 0.0);
  constexpr int kSamples = 16;
  double sum = 0.0;
  for (int i = 0; i < kSamples; ++i) {
    const double u = (i + 0.5) / kSamples;
    sum += l2_miss_share(in.cal, ((1.0 - u) * push + clear + u * reduce) / l2);
  }
  return sum / kSamples;
}

// The lean round's cost per rank beyond 2 and vector at `warps` warps holding a vector on the SM (calibrate:
// body_round lean_n4 / _n8 against the reference's; a line since session 51).
double lean_extra_rank_ns(const Calibration& cal, double warps) {
  return cal.lean_round_ns_per_extra_rank + cal.lean_round_ns_per_extra_rank_per_warp * warps;
}

BodyRound body_round(const ModelInputs& in, const OneshotDesign& d, double blocks_per_sm) {
  const Calibration& cal = in.cal;
  const LaunchConfig& c = in.c;
  const bool norm = has_residual(in.p.pattern);
  BodyRound b;
  b.parts = oneshot_round(in, blocks_per_sm);
  if (norm) b.parts.gamma = std::max(0.0, static_cast<double>(in.vecs_used - d.gamma_loads_saved)) * cal.l2_latency_ns;
  b.pushed = d.pushed_cluster_sum && lean_pushes_cluster_totals(c.cluster, c.tpb);
  // One exchange of block totals pushed through distributed shared memory (the lean kernel, clusters
  // of blocks of whole warps): each block sends its total into the cluster - 1 others and waits on an
  // mbarrier in its own shared memory for theirs; measured by `arlab calibrate` cluster_sync/pushed
  // beyond a cluster-1 block sum.
  b.pushed_exchange_ns = cal.pushed_exchange_ns + cal.pushed_exchange_ns_per_peer * (c.cluster - 1);
  if (norm && b.pushed) b.parts.reduce += b.pushed_exchange_ns - cluster_barrier_ns(in);
  // Lean at N >= 4: each vector's polls wait for its own vector's re-read from x (an L2 hit), except
  // the first vector of a cluster's first token, held in a register since the push.
  b.own_wait_ns = d.own_from_registers ? lean_own_vector_wait_ns(in, in.vecs_used, cal.l2_latency_ns) : 0.0;
  b.parts.loads += b.own_wait_ns;
  // What the lean round takes per rank beyond 2 and vector beyond its modelled parts (calibrate: body_round;
  // its poll, sum and -0.0 write-back run once per vector).
  // Since session 51 a line over the warps that hold a vector on the busiest SM, as the further rounds' lines.
  if (d.clear_on_consume && norm)
    b.extra_ranks_ns = std::max(0.0, lean_extra_rank_ns(cal, vector_warps_on_sm(in, blocks_per_sm))) *
                       std::max(0, in.p.nranks - 2) * in.vecs_used;
  b.parts.overhead += b.extra_ranks_ns;
  // Polls whose lines the call's own traffic has pushed out of L2 (and lean's re-read of x with them).
  b.miss_fraction = poll_miss_fraction(in, d);
  b.poll_miss_ns = b.miss_fraction * poll_miss_ns_per_vector(cal, d.own_from_registers, in.p.nranks) * in.vecs_used;
  b.parts.overhead += b.poll_miss_ns;
  // Each round after a call's first, over the warps of every block that shares the busiest SM, as the
  // round overhead's per-warp part counts them.
  const double warps_on_sm = vector_warps_on_sm(in, blocks_per_sm);
  // The `ar` round at N = 2: what the body's `ar` round measures beyond the model's (calibrate: body_round
  // reference_ar_n2 / lean_ar_n2, a call's further rounds), in every round, the first included, in place of the
  // ar_res_rms further-round line (the fused `ar` rows of one token round are as long as the further ones
  // against the model): a line over the same warps once per round (the rows of one vector per thread) and, since
  // session 54, a constant per vector a thread holds beyond its first (the rows of 2 and 4), in place of
  // round_overhead_ns's ar_round_ns_per_extra_vector, which shares its cost out over the SMs that hold blocks:
  // the body's rounds of 4 vectors cost the same on 16 SMs as on 64. Before, the line was one per vector, fitted
  // over all the rows, so its negative intercept (the model's round about 400 ns long at one vector) grew with
  // the vectors, and the fused `ar` rows of 2 and 4 vectors read 9-16 % short (docs/model.md, "Session 54").
  // At N = 4 and 8 the rows are records only: the one-shot line alone, with the two-shot `ar` round unmeasured
  // there, moved the model's picks to two-shot `ar` configurations that measure slower (docs/model.md, "The `ar`
  // round at N = 2").
  const bool ar_line = ar_round_measured_at_n2(in);
  if (ar_line) {
    const bool lean = d.own_from_registers;
    b.ar_line_ns = lean ? cal.lean_ar_round_line_ns_n2 + cal.lean_ar_round_line_ns_per_warp_n2 * warps_on_sm
                        : cal.ar_round_line_ns_n2 + cal.ar_round_line_ns_per_warp_n2 * warps_on_sm;
    b.ar_vector_ns = lean ? cal.lean_ar_round_ns_per_further_vector_n2 : cal.ar_round_ns_per_further_vector_n2;
    b.ar_ns = b.ar_line_ns + b.ar_vector_ns * (in.vecs_mean - 1.0);
  }
  b.parts.overhead += b.ar_ns;
  // Since session 52: the line over the warps once per round, and a second line over the same warps per vector
  // a thread holds beyond its first (the per-vector line before counted its slope, set by the one-vector rows of
  // many warps, once per vector).
  const bool lean_rounds = d.own_from_registers;
  b.further_ns = ar_line ? 0.0
                         : line_at_ranks(cal, lean_rounds ? kLeanFurtherRound : kFurtherRound, in.p.nranks, warps_on_sm) +
                               line_at_ranks(cal, lean_rounds ? kLeanFurtherVector : kFurtherVector, in.p.nranks,
                                             warps_on_sm) *
                                   (in.vecs_used - 1);
  b.further_ns += shared_sm_round_ns(in, blocks_per_sm);
  // A quantizing pattern's own part, in every round (the same warps).
  if (has_fp8(in.p.pattern) || has_fp4(in.p.pattern))
    b.quant_ns =
        line_at_ranks(cal, d.own_from_registers ? kLeanQuantRound : kQuantRound, in.p.nranks, warps_on_sm) *
        in.vecs_used;
  b.parts.overhead += b.quant_ns;
  return b;
}

}  // namespace

double oneshot_body_round_ns(const ModelInputs& in, ModelDesign design, double blocks_per_sm) {
  return body_round(in, design_of(design, false, false, in.p), blocks_per_sm).parts.total();
}

double oneshot_body_further_round_ns(const ModelInputs& in, ModelDesign design, double blocks_per_sm) {
  const BodyRound b = body_round(in, design_of(design, false, false, in.p), blocks_per_sm);
  return b.parts.total() + b.further_ns;
}

double oneshot_model(const ModelInputs& in, TermSheet& sheet) {
  const Problem& p = in.p;
  const LaunchConfig& c = in.c;
  const Calibration& cal = in.cal;
  const int n = p.nranks;
  const long long active = std::min<long long>(p.tokens, in.clusters);
  const long long resident = std::min(in.clusters, in.cluster_capacity);
  const long long waves = ceil_div(active, in.cluster_capacity);
  const long long rounds = ceil_div(p.tokens, in.clusters);  // tokens per cluster
  const Placement pl = place(in.s, std::min<long long>(p.tokens, resident), c.cluster);
  const double k = pl.blocks_per_used_sm;
  const double slice = in.token_bytes / c.cluster;  // bytes of one token per block
  const double vecs = in.vecs_used;
  const double s_wave = in.input_bytes / static_cast<double>(waves);
  const double port = in.port_bytes_per_ns;
  const std::string link_name = in.nvlink ? "NVLink" : "local (peers on this GPU)";
  const OneshotDesign d = design_of(implementation(c.impl).model, c.fenced_reference, c.release_exit_reference, p);
  // HBM bytes per wave of the push (x read, every slot written) and the reduce (slots polled, residual
  // read, outputs and lean's -0.0 written), and the clear pass's: at the rank's staggered HBM rate.
  const bool norm = has_residual(p.pattern);
  const double tokens_wave = static_cast<double>(p.tokens) / static_cast<double>(waves);
  const double push_hbm_bytes = (d.stored_slots + 1) * s_wave;
  const double clear_bytes = d.clear_pass ? n * in.input_bytes : 0.0;

  add_launch_term(in, sheet);
  add_ranks_term(in, sheet);
  const bool norm_pattern = norm;
  // The lean kernel's pushed exchange starts before the flag read (kernels/fused_epilogue.cuh
  // pushed_exchange_init): thread 0 initialises two mbarriers and fences them for the cluster, every
  // thread arrives, relaxed (no MEMBAR), and waits only before its poll. Priced as a relaxed cluster
  // barrier (bench cluster_sync barrier_relaxed), an upper bound of what the path waits for.
  const bool pushed_start = d.pushed_cluster_sum && norm_pattern && lean_pushes_cluster_totals(c.cluster, c.tpb);
  const double start_ns = pushed_start ? lifetime_cluster_barrier_at_ns(in, k) : 0.0;
  if (d.arrival_on_path) {
    sheet.add("prologue", cal.l2_latency_ns + cal.arrival_fixed_ns + c.grid * cal.arrival_atomic_ns, [&] {
      return fmt("%s: flag read %.0f ns (L2) + arrival (fences, atomic) %.0f ns + %d blocks x %.3g ns serialized "
                 "atomics",
                 d.name, cal.l2_latency_ns, cal.arrival_fixed_ns, c.grid, cal.arrival_atomic_ns);
    });
  } else {
    sheet.add("prologue", start_ns + cal.l2_latency_ns, [&] {
      return (pushed_start ? fmt("%s: pushed-exchange start (mbarrier init, a relaxed cluster arrive) %.0f ns + ",
                                 d.name, start_ns)
                           : std::string()) +
             fmt("flag read %.0f ns (L2); the arrival atomic is in flight during the push and looked at after it, "
                 "off the critical path",
                 cal.l2_latency_ns);
    });
  }

  const double sm_load_bytes_per_ns = cal.bytes_in_flight_per_sm / cal.dram_latency_ns;  // Little's law
  // ---- the reduce's rounds (per wave): priced here, their HBM bound with the push's below ----
  const BodyRound body = body_round(in, d, k);
  // HBM bytes of the reduce: the polled slots, the residual, the outputs, lean's -0.0 over the consumed slots, and
  // (since session 53) lean's own vector re-read from x where the polls find their lines gone from L2: x was read
  // by the push beside the slots written, so it is gone from L2 as often as they are.
  const double reduce_hbm_bytes = d.polled_slots * s_wave + (norm ? s_wave : 0.0) +
                                  tokens_wave * in.out_bytes_per_token + (d.clear_on_consume ? (n - 1) * s_wave : 0.0) +
                                  (d.own_from_registers ? body.miss_fraction * s_wave : 0.0);
  const RoundParts& round = body.parts;
  const bool pushed = body.pushed;
  const double pushed_exchange_ns = body.pushed_exchange_ns;
  const double own_wait_ns = body.own_wait_ns;
  const double cleared_slice = d.clear_on_consume ? slice * (n - 1) : 0.0;  // -0.0 written back per token, per block
  const double base_loads = round.loads - own_wait_ns;
  const double own_wait_first_ns =
      d.own_from_registers ? lean_own_vector_wait_ns(in, vecs - 1, cal.l2_latency_ns) : 0.0;
  const double round_ns = round.total();
  // The first round of a wave finds its first vector's residual in a register (loaded beside the flag
  // read): its loads are the other vectors' and the polls.
  const double first_round_loads =
      (norm ? std::max(token_loads_ns(in, vecs - 1), vecs * cal.sys_load_latency_ns) : base_loads) +
      own_wait_first_ns;
  const double held_saving_ns = d.first_residual_held ? std::max(0.0, round.loads - first_round_loads) : 0.0;
  // A further round is never shorter than its loads (the lines are fitted at 1-32 warps on the SM).
  const double further_ns = std::max(body.further_ns, round.loads - round_ns);
  const std::vector<Bound> reduce_base = {
      {"rounds", static_cast<double>(rounds) * round_ns - held_saving_ns +
                     static_cast<double>(rounds - 1) * further_ns},
      {"sm_loads", static_cast<double>(rounds) * k * (norm ? slice : 0.0) / sm_load_bytes_per_ns},
      {"sm_port", static_cast<double>(rounds) * k * (slice * n + (norm ? slice : 0.0) + cleared_slice +
                                                     in.out_bytes_per_token / c.cluster) / port}};
  // The push's bounds but HBM, per wave; the clear pass's.
  const std::vector<Bound> push_base = {
      {"chain", push_chain_ns(in, d.stored_slots, static_cast<double>(rounds) * in.vecs_mean)},
      {"sm_loads", static_cast<double>(rounds) * k * slice / sm_load_bytes_per_ns},
      {"sm_port", static_cast<double>(rounds) * k * slice * d.stored_slots / port},
      {"sm_peer_stores", static_cast<double>(rounds) * k * slice * (n - 1) / in.peer_sm_bytes_per_ns},
      {"link", in.nvlink ? (n - 1) * s_wave / in.link_bytes_per_ns : 0.0}};
  const int clear_sms = static_cast<int>(std::min<long long>(c.grid, in.s.sm_count));
  const std::vector<Bound> clear_base = {{"sm_port", clear_bytes / clear_sms / port}};
  // The rank's HBM rate: the phases that stream (push, clear, reduce) take T at a rate; the ranks that
  // stream beside the last one follow from T (model_terms.h staggered_hbm_rate).
  const HbmRate hbm_rate = staggered_hbm_rate(in, [&](double rate) {
    return static_cast<double>(waves) * slowest(with_hbm_bound(push_base, push_hbm_bytes, rate)).ns +
           slowest(with_hbm_bound(clear_base, clear_bytes, rate)).ns +
           static_cast<double>(waves) * chain_with_bandwidth_ns(with_hbm_bound(reduce_base, reduce_hbm_bytes, rate));
  });
  const double hbm = hbm_rate.bytes_per_ns;

  // ---- push (per wave) ----
  const std::vector<Bound> push = with_hbm_bound(push_base, push_hbm_bytes, hbm);
  const double push_ns = slowest(push).ns;
  sheet.add("push", static_cast<double>(waves) * push_ns, [&] {
    return fmt("%lld wave(s) x ", waves) + bounds_text(push) +
           fmt(" [chain: %lld tokens/cluster x %.3g vector(s) of push steps, the first %.0f ns, the later ones %.0f ns "
               "(a DRAM load, then its stores; vectors per thread averaged over the busiest block); "
               "loads: %.0f B in flight per SM / DRAM latency; port: %.0f block(s)/SM x "
               "%.0f B x %d slots (%s) / %.3g B/ns; peer stores: / %.3g B/ns per SM; ",
               rounds, in.vecs_mean, push_step_ns(in, d.stored_slots), later_push_step_ns(in, d.stored_slots),
               cal.bytes_in_flight_per_sm, k, slice, d.stored_slots,
               d.stored_slots == n ? "every rank's, own included" : "the peers'", port, in.peer_sm_bytes_per_ns) +
           (in.nvlink ? fmt("link: %d x %.0f B / %.3g B/ns; ", n - 1, s_wave, in.link_bytes_per_ns)
                      : std::string("link: none, ") + link_name + "; ") +
           fmt("HBM: %d x %.0f B / %.3g B/ns", d.stored_slots + 1, s_wave, hbm) + staggered_hbm_text(in, hbm_rate) + "]";
  });

  // ---- clear of the previous call's buffer ----
  const std::vector<Bound> clear = with_hbm_bound(clear_base, clear_bytes, hbm);
  const double clear_ns = sheet.add("clear", slowest(clear).ns, [&] {
    if (!d.clear_pass)
      return std::string(d.name) + ": no clear pass (each consumed peer slot is written back to -0.0 in reduce)";
    return bounds_text(clear) + fmt(" [%.0f B of -0.0 over %d SMs]", clear_bytes, clear_sms);
  });

  // The first poll is for the cluster's first token, which every peer pushed first (both bodies push and poll in
  // token order): its store-to-seen latency runs under what of the call remains after that push, the clear pass
  // and this rank's push of its later tokens (their share of the push phase, (R - 1) / R). Until session 53 only
  // the clear counted, and the one-shot rows of 2-5 token rounds per cluster read 4-9 % long (docs/model.md,
  // "Session 53").
  const double later_push_ns = static_cast<double>(rounds - 1) / static_cast<double>(rounds) * push_ns;
  sheet.add("first_wait", std::max(0.0, cal.peer_visibility_ns - clear_ns - later_push_ns), [&] {
    return fmt("max(0, store-to-seen %.0f ns (", cal.peer_visibility_ns) + link_name +
           fmt(") - clear %.0f ns - later push %.0f ns)", clear_ns, later_push_ns);
  });

  add_grid_term(in, sheet, waves, 1);

  // ---- poll + reduce + epilogue rounds (per wave) ----
  const std::vector<Bound> reduce = with_hbm_bound(reduce_base, reduce_hbm_bytes, hbm);
  const double reduce_ns = chain_with_bandwidth_ns(reduce);
  sheet.add("reduce", static_cast<double>(waves) * reduce_ns, [&] {
    return fmt("%lld wave(s) x (rounds^3 + max(bandwidth bounds)^3)^(1/3) = %.3f us of ", waves, reduce_ns / 1e3) +
           bounds_text(reduce) +
           fmt(" [round = %.0f ns loads of %d vector(s) (", round.loads, in.vecs_used) +
           (norm ? fmt("residual: round load %.0f ns + DRAM %.0f ns per further vector; polls %.0f ns, in flight "
                         "together",
                         round_dram_ns(in), cal.dram_latency_ns, cal.sys_load_latency_ns)
                 : fmt("polls %.0f ns each", cal.sys_load_latency_ns)) +
           (own_wait_ns > 0 ? fmt("; then, N >= 4, their wait for the own vector's re-read from x, %d x %.0f ns (L2)",
                                  in.vecs_used, cal.l2_latency_ns)
                            : std::string()) +
           fmt(") + compute max(latency %d x %d ops x %.3g ns, issue %.0f block(s) x %d threads x %d x %d ops x "
               "%.3g ns) = %.0f ns + ",
               in.vecs_used, in.ops, cal.vector_op_latency_ns, k, in.active_threads, in.vecs_used, in.ops,
               cal.sm_ns_per_vector_op, round.compute) +
           norm_reduce_text(in) +
           (norm && pushed ? fmt(" (%s: no cluster barrier; the totals pushed through DSMEM, %.0f ns = %.0f + %.0f x "
                                 "%d peers)",
                                 d.name, pushed_exchange_ns, cal.pushed_exchange_ns, cal.pushed_exchange_ns_per_peer,
                                 c.cluster - 1)
                           : std::string()) +
           (norm ? fmt(" + gamma %.0f x %.0f ns (L2)", round.gamma / cal.l2_latency_ns, cal.l2_latency_ns)
                 : std::string()) +
           (round.overhead > 0 ? fmt(" + round overhead %.0f ns", round.overhead) : std::string()) +
           (round.overhead > 0 && k > 1 ? fmt(" (its per-warp part over the %.0f blocks on the busiest SM)", k)
                                        : std::string()) +
           (nvfp4_odd_round_part_ns(in, k) > 0
                ? fmt(" (%.0f ns of it: NVFP4 at an odd tpb, the amax through shared memory, a cluster barrier and the "
                      "norms recomputed)",
                      nvfp4_odd_round_part_ns(in, k))
                : std::string()) +
           (body.extra_ranks_ns > 0
                ? fmt(" (%s: %.0f ns of it for the %d ranks beyond 2 x %d vector(s), %.0f ns each at %.0f warps on "
                      "the SM)",
                      d.name, body.extra_ranks_ns, n - 2, in.vecs_used,
                      body.extra_ranks_ns / ((n - 2) * in.vecs_used), vector_warps_on_sm(in, k))
                : std::string()) +
           (body.quant_ns != 0
                ? fmt(" (%+.0f ns of it: the quantizing pattern's round beyond ar_res_rms's at N = %d, measured)",
                      body.quant_ns, n)
                : std::string()) +
           (body.ar_ns != 0
                ? fmt(" (%+.0f ns of it: the ar round beyond the model's at N = 2, measured: %+.0f ns at %.0f warp(s) on "
                      "the SM + %.2f further vector(s) x %+.0f ns)",
                      body.ar_ns, body.ar_line_ns, vector_warps_on_sm(in, k), in.vecs_mean - 1.0, body.ar_vector_ns)
                : std::string()) +
           (body.poll_miss_ns > 0
                ? fmt(" (%.0f ns of it: %.0f %% of the polls find their line gone from L2, %.0f ns per vector from "
                      "DRAM)",
                      body.poll_miss_ns, 100.0 * body.miss_fraction,
                      poll_miss_ns_per_vector(cal, d.own_from_registers, n))
                : std::string()) +
           (d.clear_on_consume ? fmt("; %s: %d peer slot(s) polled and written back to -0.0", d.name, n - 1)
                               : std::string()) +
           fmt(" = %.0f ns; %lld round(s)", round_ns, rounds) +
           (held_saving_ns > 0 ? fmt(", the first %.0f ns shorter: its first residual vector held", held_saving_ns)
                               : std::string()) +
           (further_ns != 0 && rounds > 1
                ? fmt(", each after the first %+.0f ns at N = %d (%d vector(s) at %.0f warp(s) on the SM: "
                      "a further round alone, measured",
                      further_ns, n, in.vecs_used, vector_warps_on_sm(in, k)) +
                      (shared_sm_round_ns(in, k) != 0.0
                           ? fmt("; %+.0f ns of it ", shared_sm_round_ns(in, k)) + shared_sm_round_text(k)
                           : std::string()) +
                      ")"
                : std::string()) +
           "]";
  });

  // The closing barrier only keeps the cluster's blocks alive (no sum left, no shared-memory read): both bodies
  // close with the relaxed lifetime barrier (the lean body none where it pushes its totals or has no norm); the
  // reference as measured before a160fc2 with cluster.sync(), whose release arrive first waits for the thread's
  // outstanding global stores (its norm outputs, just issued) to reach L2: one L2 round trip on top of the bare
  // barrier. Both barriers are the bench's line over the warps on the SM (calibrate: cluster_sync barrier /
  // barrier_relaxed).
  const bool exit_barrier = c.cluster > 1 && !(pushed || (d.pushed_cluster_sum && !norm));
  const double warps_on_sm = barrier_warps_on_sm(in, k);
  const double exit_ns = !exit_barrier      ? 0.0
                         : d.release_exit ? bare_cluster_barrier_at_ns(in, k) + cal.l2_latency_ns
                                          : lifetime_cluster_barrier_at_ns(in, k);
  sheet.add("exit", exit_ns, [&] {
    if (c.cluster <= 1) return std::string("no cluster barrier (cluster = 1)");
    if (!exit_barrier)
      return std::string(d.name) + ": no closing cluster barrier (no block reads another's shared memory)";
    if (!d.release_exit)
      return fmt("%s: closing lifetime barrier (relaxed arrive) %.0f ns", d.name, exit_ns) +
             fmt(" (%.0f ns + %.3g ns x %.0f warps on the SM)", cal.cluster_lifetime_barrier_ns,
                 cal.cluster_lifetime_barrier_ns_per_warp, warps_on_sm);
    return fmt("%s: closing cluster barrier (cluster.sync) %.0f ns", d.name, exit_ns - cal.l2_latency_ns) +
           fmt(" (%.0f ns + %.3g ns x %.0f warps on the SM)", cal.bare_cluster_barrier_ns,
               cal.bare_cluster_barrier_ns_per_warp, warps_on_sm) +
           fmt(" + its release waiting for the outputs' stores, one L2 round trip %.0f ns", cal.l2_latency_ns);
  });
  // Where no cluster.sync released the last round's stores (its outputs; lean: and -0.0 over the
  // N - 1 peer slots it consumed), the kernel's end waits for them.
  if (!(exit_barrier && d.release_exit)) add_drain_term(in, sheet);
  return sheet.total_ns();
}

}  // namespace arlab::model::detail
