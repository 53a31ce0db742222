// What the per-algorithm timing models (model/oneshot_model.cpp, model/twoshot_model.cpp) share: the
// inputs of one prediction, the placement of active clusters on SMs, the rates the calibration
// implies, and a term sheet that records every term with the numbers it was computed from at the
// moment it is computed (so explain() can never drift from the total). Pure C++.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/implementations.h"
#include "common/launch_config.h"
#include "common/problem.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "model/legality.h"
#include "model/timing_model.h"

namespace arlab::model::detail {

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Placement of A active clusters of cs blocks: one block per SM while the clusters that fit one block
// per SM (max_active_clusters(s, cs, 1)) last, then further clusters on SMs already holding one, as
// the hardware places them (docs/model.md, "Where clusters land": on the emulated node's 64-SM
// partitions 16 clusters of 4 use 60 SMs, four of them twice).
struct Placement {
  int sms_used = 0;
  int blocks_per_used_sm = 0;
};
Placement place(const GpuSpec& s, long long active_clusters, int cs);  // blocks_per_used_sm >= 1 when A >= 1

// The terms of one prediction, in the order they were computed. Each add() gives the term's value
// in ns and a function that writes its explanation; the function runs only when explaining, so the
// hot path (candidate search, validation) formats nothing.
class TermSheet {
 public:
  explicit TermSheet(bool explaining) : explaining_(explaining) {}
  template <typename Why>
  double add(const char* name, double ns, Why&& why) {
    total_ns_ += ns;
    if (explaining_) terms_.push_back(Term{name, ns / 1e3, why()});
    return ns;
  }
  double total_ns() const { return total_ns_; }
  std::vector<Term> take_terms() { return std::move(terms_); }

 private:
  bool explaining_;
  double total_ns_ = 0;
  std::vector<Term> terms_;
};

// One of several bounds of a phase: its name and its time (ns).
struct Bound {
  const char* name;
  double ns;
};
// The largest bound (a phase takes as long as its slowest limit); "name value" text of all of them.
Bound slowest(const std::vector<Bound>& bounds);
std::string bounds_text(const std::vector<Bound>& bounds);

// Everything a prediction reads, plus the quantities both algorithms derive the same way.
struct ModelInputs {
  const Problem& p;
  const LaunchConfig& c;
  const GpuSpec& s;
  const Calibration& cal;
  bool nvlink = true;           // peers on other GPUs (else the emulated node: peers share this GPU)
  double elem_bytes = 0;        // sizeof(T)
  double token_bytes = 0;       // H * sizeof(T)
  double input_bytes = 0;       // S = tokens * H * sizeof(T): one rank's input
  double out_bytes_per_token = 0;
  int ops = 0;                  // vector ops per 16-byte vector (vector_ops_per_vector)
  long long clusters = 0;       // grid / cluster
  long long cluster_capacity = 0;
  int vecs_used = 0;            // vectors one thread handles per token: min(vpt, ceil(H/VEC / (tpb*cs)))
  // The vectors per thread averaged over the threads of a cluster's first (busiest) block that hold one:
  // vecs_used - 1 + the share of them that hold a last vector. The kernels hand vector t + k x tpb x cs
  // to cluster thread t (kernels/fused_epilogue.cuh token_mapping), so a last iteration that the token
  // fills only in part runs in the first threads alone (H 12416 at 384 x 4 threads, 2 vectors: 16 of 1536
  // threads hold a second); = vecs_used when the token fills it.
  double vecs_mean = 0;
  // Threads beyond a token's H/VEC vectors hold none (kernels/fused_epilogue.cuh token_mapping: a
  // cluster's first blocks hold the token; the others, or the rest of a block, only take part in the
  // reduction): per-warp costs of loads, pushes, vector ops and stores count the warps that hold a
  // vector (calibrate epilogue_round bf16_ar_res_rms_idle measures a round with half of them idle).
  int warps = 0;                 // warps of a block: ceil(tpb / 32)
  int active_threads = 0;        // threads of a cluster's first (busiest) block that hold a vector: min(tpb, H/VEC)
  int active_warps = 0;          // ceil(active_threads / 32)
  int cluster_active_warps = 0;  // warps of the cluster that hold a vector: ceil(min(tpb x cluster, H/VEC) / 32)
  double port_bytes_per_ns = 0; // one SM's store (and load) rate into L2
  double hbm_bytes_per_ns = 0;  // one rank's achievable HBM bandwidth (read + write bytes), rows_fraction included
  long long row_alignment_bytes = 0;  // the largest power of two dividing a token's row (H x sizeof(T))
  double hbm_rows_fraction = 1;       // hbm_rows_fraction(...): the rate's fraction for rows of that alignment
  double l2_resident_share = 0;      // l2_resident_share(in): the share of the HBM bounds' bytes that stays in L2
  double link_bytes_per_ns = 0; // one rank's achievable peer-store bandwidth per direction (0: local)
  double peer_sm_bytes_per_ns = 0;
};

// The HBM rate's fraction for token rows aligned to `row_alignment_bytes` (the largest power of two dividing
// H x sizeof(T)) at N ranks on the emulated node: the calibrated hbm_rows_fraction_{128,256,512}b_n{2,4,8}
// (calibrate bandwidth rows_read / rows_write, packed against padded to 4 KB while every partition streams;
// docs/model.md, "HBM-bound phases at TP4 and TP8"). Rows aligned to less than 128 bytes take the 128-byte
// fraction, rows aligned to 1 KB or more 1 (the rows bench's 2 KB and 16 KB rows are within a per cent of
// their padded rate); N = 16 takes N = 8's; a real node 1 (nothing measured there).
double hbm_rows_fraction(const Calibration& cal, long long row_alignment_bytes, int nranks, LinkKind link);

// Fills the derived fields; false when the kernel cannot launch (no block fits an SM).
bool derive_inputs(ModelInputs& in, const KernelResources& res);

// One cluster barrier (cluster.sync, which waits for every warp of every block of the cluster) and
// the DSMEM reads after it; 0 for cluster 1.
double cluster_barrier_ns(const ModelInputs& in);
std::string cluster_barrier_text(const ModelInputs& in);

// One step of the push loop (load a vector of x, store it `stores` times: to the ranks, or to a row's
// owner) as a block of the configuration's size sees it (round_load push_store: two stores; its
// slope per warp grows by push_step_ns_per_warp_store per store, push_store_1 / _4). Only the warps
// that hold a vector load and store (in.active_warps).
double push_step_ns(const ModelInputs& in, int stores);
// A push step after the call's first: its per-warp part times push_step_few_blocks_fraction + (1 - it) x
// min(1, blocks of the wave that hold a vector / SMs) (round_load push_store_few: where few blocks push,
// each step's growth with the block's warps is about half the whole partition's; a call's first step
// pays the whole, push_store_steps).
double later_push_step_ns(const ModelInputs& in, int stores);
// `steps` push steps of one thread in a row: the first at push_step_ns, the others at later_push_step_ns.
double push_chain_ns(const ModelInputs& in, int stores, double steps);

// The rank's HBM rate for a call whose phases that touch HBM take `streaming_ns(rate)` at a rank rate
// of `rate` B/ns, and how many ranks stream at once. in.hbm_bytes_per_ns is the GPU's rate split over
// all N ranks. On the emulated node (link local) the ranks' kernels start `start_spacing_ns_nN` apart
// (calibrate start_skew: max - min start of gated empty kernels at N ranks, / (N - 1); 0.94 us at N =
// 8 on the lent H200, beside kernels of 5-10 us) and the prediction is the skew-free time, the LAST
// rank's: a rank that started j gaps earlier streams beside it only for what is left of its own
// streaming time T, so over the last rank's T on average c = 1 + sum_j max(0, 1 - j x spacing / T)
// ranks stream at once, where T = streaming_ns(GPU rate / c) (the fixed point, by bisection: T grows
// with c). Where the spacing is 0 (the priors, a real node: every GPU its own HBM) c = N and the rate
// is in.hbm_bytes_per_ns.
struct HbmRate {
  double bytes_per_ns = 0;  // the rank's rate: the GPU's / ranks_at_once
  double ranks_at_once = 0; // c
  double spacing_ns = 0;    // the start spacing used (0: none)
  double streaming_ns = 0;  // T at that rate (0 where no stagger applies)
};
HbmRate staggered_hbm_rate(const ModelInputs& in, const std::function<double(double)>& streaming_ns);
// `bounds` with an "hbm" bound of `bytes` at `rate` B/ns appended (the phases' HBM bounds, at the rank's
// staggered rate).
std::vector<Bound> with_hbm_bound(std::vector<Bound> bounds, double bytes, double rate);
// " (the GPU's rate over 3.40 of 8 ranks streaming at once: ...)" where the stagger applies, and
// " (x 0.930 for 128-B rows)" where the rows' fraction is not 1, then " (NN % of the bytes stay in L2, ...)" where
// a share stays (l2_resident_share); else "".
std::string staggered_hbm_text(const ModelInputs& in, const HbmRate& rate);

// The chance that a line is gone from L2 once `fraction` x L2 bytes were written or read elsewhere since
// it was written: 0 below l2_reuse_miss_start_fraction, 1 above l2_reuse_miss_full_fraction, linear between
// (calibrate: body_round *_n4_reuse).
double l2_miss_share(const Calibration& cal, double fraction);
// One rank's rate of stores into L2-resident lines while every rank streams (l2_store_busy_gbps).
double l2_store_bytes_per_ns(const ModelInputs& in);
// The share of a call's HBM-bound bytes that stays in L2 on the emulated node: 1 - l2_miss_share of the
// bytes the call itself touches (its Lamport buffer's N slots, its inputs and outputs) over the rank's
// share of L2; 0 on a real node or without l2_store_busy_gbps (docs/model.md, "The HBM bounds' bytes that
// stay in L2").
double l2_resident_share(const ModelInputs& in);
// One DRAM load of a token round as a block of the configuration's size sees it (round_load), over the
// warps that hold a vector.
double round_dram_ns(const ModelInputs& in);
// A thread's `vecs` dependent DRAM loads of one token: the first as a round sees it (the block waits
// for its slowest warp at the round's barrier), the others at the idle chase latency (one warp's own
// loads, no barrier between them).
double token_loads_ns(const ModelInputs& in, double vecs);

// The lean bodies' poll at N >= 4 (kernels/oneshot_steps.cuh poll_sum_clear): its poll loads take the
// thread's own vector as the default value of the predicated load of its own slot, so they, and the
// residual load the compiler places after them, issue only once that vector's load from x has
// returned: `reload_ns` per vector (one-shot: an L2 hit, x was read in the push; the two-shot owner's
// own rows: a DRAM miss, x not read before). At N = 2 the one peer slot is polled while that load is
// in flight: 0.
double lean_own_vector_wait_ns(const ModelInputs& in, double vecs, double reload_ns);

// A phase whose first bound is its rounds' latency chain and whose others are bandwidth limits
// (`bounds`, at least two): the chain and the slowest bandwidth bound overlap imperfectly (a round's
// loads wait longer when the memory system is busy), combined as (chain^p + bandwidth^p)^(1/p), the
// larger one where one dominates and up to 2^(1/p) times it where they are equal. p = 3 is a
// structural choice, not a calibrated constant: of p in {2, 3, 4, inf (the plain max)} it gave the
// lowest error over the committed validation rows of both nodes together (data/h200/model_grid_*.csv,
// data/h200/exp/*_emulated.csv; docs/model.md). The one-shot reduce phase and the lean two-shot rounds.
double chain_with_bandwidth_ns(const std::vector<Bound>& bounds);

// One RMSNorm (or all-reduce-only) token round of the one-shot poll + reduce + epilogue phase with
// `blocks_per_sm` blocks per SM: its parts as modelled, and their sum + round_overhead_ns.
struct RoundParts {
  double loads = 0, compute = 0, reduce = 0, gamma = 0, overhead = 0;
  double parts() const { return loads + compute + reduce + gamma; }
  double total() const { return parts() + overhead; }
};
RoundParts oneshot_round(const ModelInputs& in, double blocks_per_sm);

// One token round of a one-shot kernel body as model/oneshot_model.cpp prices it (the shared round
// with the body's gamma loads, cluster exchange and own-vector wait), ns: what calibrate's body_round
// bench measures. `design` reference or lean (the reference body as it runs today, not fenced).
double oneshot_body_round_ns(const ModelInputs& in, ModelDesign design, double blocks_per_sm);
// A token round after a call's first of that body: the round above plus the body's further-round line at the
// warps of every block on the busiest SM (the `ar` round at N = 2 has its line in the round), ns.
double oneshot_body_further_round_ns(const ModelInputs& in, ModelDesign design, double blocks_per_sm);

// One token round of the reference two-shot body's epilogue (kernels/twoshot_kernel.cuh step 5: the sum
// loaded from my comm buffer, the residual from DRAM, the epilogue) as model/twoshot_model.cpp prices
// it, ns: what calibrate's body_round reference2_epilogue rows measure.
double twoshot_epilogue_round_ns(const ModelInputs& in, double blocks_per_sm);

// One token round of the lean two-shot body as model/twoshot_model.cpp prices it, ns: a reader's (stage 3)
// or, with `owner`, an owner's (stage 2: N - 1 more adds and the wait for its own vector of x), each with its
// measured line: what calibrate's body_round lean2_reader / lean2_owner rows measure.
double twoshot_lean_round_ns(const ModelInputs& in, double blocks_per_sm, bool owner);

// A constant measured at N = 2, 4 and 8 ranks, at n: linear in N between them and beyond 8 (the slope from
// 4 to 8; N = 16 is not measured).
double linear_in_ranks(double at2, double at4, double at8, int n);

// Lines over the warps that hold a vector on the SM, measured at N = 2, 4 and 8 ranks: the calibration's
// intercepts and slopes, in N order.
struct LinesAtRanks {
  double Calibration::* intercept[3];
  double Calibration::* per_warp[3];
};
// The line of `lines` at `warps`, at n ranks (linear_in_ranks).
double line_at_ranks(const Calibration& cal, const LinesAtRanks& lines, int n, double warps);

// What a token round's modelled parts leave out of the kernels' own round code (calibrate's
// epilogue_round bench): the RMSNorm overhead (intercept + per warp that holds a vector + a fraction
// of that per warp that holds none: they still compute the norm's scale and loop; + round_ns_per_extra_vector
// per vector a thread holds beyond its first, epilogue_round bf16_ar_res_rms_vpt*, in a one-shot round the
// last one by the share of the busiest block's threads that hold it, vecs_mean), plus the NVFP4 or
// the ar pattern's own part (NVFP4: a line over warps, + nvfp4_round_ns_per_extra_vector per further
// vector, epilogue_round bf16_ar_res_rms_fp4_vpt*, whole at any grid: thread-local work; ar: ar_round_ns,
// + ar_round_ns_per_extra_vector per further vector, epilogue_round bf16_ar_vpt*, except in the one-shot `ar`
// round at N = 2, whose further vectors are priced from body_round rows: ar_round_measured_at_n2). Shared by
// the one-shot rounds and the two-shot epilogue (the same code).
// With `blocks_per_sm` > 1 (several blocks on the busiest SM: a grid beyond one block per SM, or
// clusters that the partition cannot place one block per SM, `place`) the per-warp part also counts
// the other blocks' warps that hold a vector (docs/model.md, "Where clusters land").
double round_overhead_ns(const ModelInputs& in, double blocks_per_sm);
// The one-shot `ar` round at N = 2, whose round and further vectors the body_round rows price (the
// [lean_]ar_round_line_ns_n2 line per round, [lean_]ar_round_ns_per_further_vector_n2 per further vector;
// oneshot_model.cpp), not round_overhead_ns's ar_round_ns_per_extra_vector.
bool ar_round_measured_at_n2(const ModelInputs& in);
// What a round takes for the other blocks that share its SM, beyond what the lines over the warps price at their
// warps (the lines are fitted at one block per SM): shared_sm_[ar_]round_ns_per_warp_vector x (blocks_per_sm - 1) x
// the warps of a block that hold a vector x the vectors a thread holds (calibrate: body_round {variant}_bps2 /
// _bps4, since session 55; docs/model.md, "Session 55"); 0 at one block per SM. Added to each round after a call's
// first (oneshot_model.cpp with the further-round line, twoshot_model.cpp per epilogue or lean round), not to the
// first round and not to round_overhead_ns: in a call's first round the blocks on an SM arrive apart.
double shared_sm_round_ns(const ModelInputs& in, double blocks_per_sm);
// Its explanation: "for the other K block(s) on the SM, per warp-vector of theirs, measured".
std::string shared_sm_round_text(double blocks_per_sm);
// The part of round_overhead_ns that an NVFP4 round at an odd tpb adds (its amax through shared memory, a
// cluster barrier, the norms recomputed: nvfp4_odd_round_ns + its slope x the warps the barrier waits for
// on the busiest SM; calibrate: epilogue_round bf16_ar_res_rms_fp4_odd); 0 for other patterns and even tpb.
double nvfp4_odd_round_part_ns(const ModelInputs& in, double blocks_per_sm);
// The warps that hold a vector on the busiest SM: a block's, times the blocks that share that SM (at least
// one); what the measured lines over warps of a round are taken at (round_overhead_ns counts the same).
double vector_warps_on_sm(const ModelInputs& in, double blocks_per_sm);

// A cluster barrier as the kernels' last or first one: every warp of the blocks on the busiest SM
// arrives (ceil(tpb / 32) x blocks on that SM, at least one block), and each arrive is its own, so the
// barrier is the bench's line over the warps (calibrate: cluster_sync barrier, one block per SM).
// Bare: cluster.sync() (a release arrive: on sm_90 a GPU-scope MEMBAR per warp); lifetime: the lean
// kernels' relaxed arrive (kernels/device_sync.cuh cluster_lifetime_barrier).
double barrier_warps_on_sm(const ModelInputs& in, double blocks_per_sm);  // the warps those lines are taken at
double bare_cluster_barrier_at_ns(const ModelInputs& in, double blocks_per_sm);
double lifetime_cluster_barrier_at_ns(const ModelInputs& in, double blocks_per_sm);

// Per round, the time of one block-wide (and cluster-wide) RMSNorm reduction: block reduce over
// the block's warps, then (cluster > 1) one cluster barrier and one DSMEM read per block.
double norm_reduce_ns(const ModelInputs& in);
std::string norm_reduce_text(const ModelInputs& in);

// The launch term both algorithms start with: the empty-kernel duration of the grid (+ cluster launch).
void add_launch_term(const ModelInputs& in, TermSheet& sheet);

// The ranks term both algorithms add: what one all-to-all exchange round among N ranks costs beyond
// one among 2 (calibrate: exchange; no term at N = 2, 0 wherever the calibration has no rows of more
// ranks).
double rank_exchange_extra_ns(const Calibration& cal, int nranks);
void add_ranks_term(const ModelInputs& in, TermSheet& sheet);

// What one exchange round between ranks costs beyond a round of one block when `blocks` blocks of the
// configuration's block size take part (calibrate: exchange all_to_all_grid; 0 for one block and
// wherever the calibration has no such rows): exchange_grid_ns_per_block x (S_B - 1) +
// exchange_grid_ns_per_block_warp x (B - 1) x the warps of a block that hold a vector, where S_B =
// min(B, the rank's SMs) is the SMs those blocks occupy: blocks that share an SM add their warps but
// not the per-block part (measured with 2 and 4 blocks per SM since 2026-12-04, docs/model.md).
// grid_exchange_sms_holding gives S_B.
double grid_exchange_sms_holding(const ModelInputs& in, double blocks);
double grid_exchange_extra_ns(const ModelInputs& in, double blocks);
// What the clusters of a grid stride over: tokens (one-shot, the lean two-shot), or the local indices
// of a rank's range, ceil(tokens / N) (the reference two-shot: cluster c takes l = c, c + C, ... of
// every range, so clusters beyond ceil(tokens / N) stay idle).
long long cluster_work_items(const ModelInputs& in);
// The blocks of one wave that hold a vector: the wave's clusters (min(cluster_work_items, clusters), at
// most the co-resident ones) x the blocks of a cluster that hold one.
double wave_blocks_holding(const ModelInputs& in);
// The grid term: `exchanges` rounds per wave, `waves` waves (one-shot: one round per wave; the lean
// two-shot: one per call, though it runs two: docs/model.md, "The grid term").
void add_grid_term(const ModelInputs& in, TermSheet& sheet, long long waves, int exchanges);

// The drain term: a kernel ends only once its last stores have left the SM (calibrate: launch store_1 /
// store_8), so a body whose threads end on stores, with no closing barrier whose release already waited
// for them, adds exit_store_drain_ns (no term where it is 0, the prior). The bench also shows those
// stores' bytes leaving at the SM's port rate; that part is not added here (the rounds' port bound holds
// every byte a round stores, and adding the last round's bytes once more raised the error on the
// committed files: docs/model.md, "The drain").
void add_drain_term(const ModelInputs& in, TermSheet& sheet);

// The one-shot and two-shot models: total ns (terms on `sheet`).
double oneshot_model(const ModelInputs& in, TermSheet& sheet);
double twoshot_model(const ModelInputs& in, TermSheet& sheet);

}  // namespace arlab::model::detail
