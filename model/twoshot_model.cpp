// The two-shot timing model: the phases of kernels/twoshot_kernel.cuh in order, each as long as its
// slowest limit. chunk = ceil(tokens / N); cluster c of every rank handles the local indices
// c, c + C, ... < chunk of every rank's range, so per cluster: up to N x ceil(chunk / C) tokens in the
// copy and the epilogue (one per non-empty range for each local index: the last ranges are short or
// empty where tokens < N x chunk), ceil(chunk / C) in the reduce-scatter. All blocks are co-resident
// (one wave). Every HBM bound of both bodies runs at the rank's staggered rate (model_terms.h
// staggered_hbm_rate, over the call's HBM bytes of every phase).
//
//   launch          empty-kernel duration of the grid (+ cluster launch)
//   copy            x to my comm buffer: per vector a DRAM load then a store (chain), vs the per-SM
//                   port and HBM (S read + S written)
//   barrier_1       a flag store to every peer and the acquire poll of theirs: store-to-seen + one
//                   ld.acquire.sys
//   reduce_scatter  per vector of my range: N slots loaded (peers' over the link: a remote load is a
//                   round trip, twice the store-to-seen time; local ones an L2-hit sys load), N
//                   adds, the sum stored to N ranks; vs the link (2 (N-1) S / N per direction: the
//                   remote loads in, the peers' sums in), HBM (my buffer read by all and written by
//                   all: 2 S) and the per-SM peer-store rate
//   barrier_2       as barrier_1
//   epilogue        rounds of (per vector: the residual (DRAM) and the sum (L2) loads, the epilogue
//                   ops, the norm reduction, gamma; the one-shot round's overhead and, for the norm patterns,
//                   the two-shot round's own line beyond it: twoshot_round_delta_ns, calibrate body_round
//                   reference2_epilogue_allbusy) vs HBM (S sums + S residual read, outputs written)
//   exit            the closing cluster barrier (cluster > 1)
//   drain           the last stores leaving the SM before the kernel ends (exit_store_drain_ns; the
//                   closing barrier is not priced with a release wait)
//
// The lean two-shot body (kernels/twoshot_lean_kernel.cuh) has no copy and no barrier: every row of
// another rank's range is pushed from x to its owner, the owner polls, sums and pushes the sum back,
// and the other ranks poll for it. Its phases (twoshot_lean_model below), clusters striding over the
// tokens as in one-shot (ceil(tokens / C) token rounds per cluster):
//   launch, ranks   as above
//   prologue        flag read (L2) + the pushed exchange's start in clusters (as lean one-shot)
//   push            (N-1)/N of my rows, one store each: the one-shot push chain per vector, vs the
//                   per-SM port and peer-store rate, the link ((N-1)/N S per direction) and HBM
//   first_wait      store-to-seen of a peer's push (nothing to clear in between)
//   grid            the exchange round's growth with the blocks that hold a vector (calibrate:
//                   exchange all_to_all_grid), once
//   rounds          per token round, the lean one-shot round (its polls, residual, epilogue ops,
//                   reduction, gamma, round overhead) plus, for the owner's rows, N - 1 more adds; for the
//                   norm patterns a reader's and an owner's measured line beyond that (lean2_*_round_ns_n*,
//                   calibrate body_round lean2_reader / lean2_owner allbusy);
//                   vs the per-SM port (outputs, the sums pushed to N-1 peers, the -0.0 written back)
//                   and HBM (residual, outputs, the slots read and written back)
//   second_wait     store-to-seen of the owner's sum and, at N > 2, the second exchange's part beyond one
//                   among 2 ranks, where a cluster runs one token round (the other ranks' rounds run one hop
//                   behind it; with more, both overlap the rank's own rounds)
//   exit            the closing lifetime barrier where no pushed exchange applies (clusters of 8)
//   drain           as above: its last round ends on stores
#include <algorithm>
#include <cmath>

#include "common/fmt.h"
#include "common/implementations.h"
#include "common/launch_limits.h"
#include "model/model_terms.h"

namespace arlab::model::detail {

namespace {

// The measured lines of the lean two-shot's rounds beyond the model's (calibrate: body_round
// lean2_reader_n{N} / lean2_owner_n{N}_allbusy_slowest, every partition running the round; docs/model.md,
// "The lean two-shot's reader and owner rounds").
constexpr LinesAtRanks kLean2ReaderLine{
    {&Calibration::lean2_reader_round_ns_n2, &Calibration::lean2_reader_round_ns_n4, &Calibration::lean2_reader_round_ns_n8},
    {&Calibration::lean2_reader_round_ns_per_warp_n2, &Calibration::lean2_reader_round_ns_per_warp_n4,
     &Calibration::lean2_reader_round_ns_per_warp_n8}};
constexpr LinesAtRanks kLean2OwnerLine{
    {&Calibration::lean2_owner_round_ns_n2, &Calibration::lean2_owner_round_ns_n4, &Calibration::lean2_owner_round_ns_n8},
    {&Calibration::lean2_owner_round_ns_per_warp_n2, &Calibration::lean2_owner_round_ns_per_warp_n4,
     &Calibration::lean2_owner_round_ns_per_warp_n8}};

// One token round of the lean two-shot body (kernels/twoshot_lean_kernel.cuh stages 2 and 3): the lean
// one-shot round (its polls, residual, epilogue ops, reduction, gamma, round overhead; the pushed exchange in
// place of the cluster barrier); what an owner's round adds: N - 1 more adds and, at N >= 4, the polls' wait
// for its own vector of x, a DRAM miss (its own rows were not read in stage 1; model_terms.h
// lean_own_vector_wait_ns); and for the norm patterns the measured lines of each kind beyond these (a line
// over the vector warps on the busiest SM at N = 2, 4 and 8, linear in N between them).
struct LeanTwoshotRound {
  RoundParts round;
  double owner_adds_ns = 0, owner_own_wait_ns = 0;
  double reader_line_ns = 0, owner_line_ns = 0;
};
LeanTwoshotRound lean_twoshot_round(const ModelInputs& in, double k) {
  const Calibration& cal = in.cal;
  const bool norm = has_residual(in.p.pattern);
  const bool pushed = norm && lean_pushes_cluster_totals(in.c.cluster, in.c.tpb);
  LeanTwoshotRound r;
  r.round = oneshot_round(in, k);
  if (norm && pushed)
    r.round.reduce += cal.pushed_exchange_ns + cal.pushed_exchange_ns_per_peer * (in.c.cluster - 1) - cluster_barrier_ns(in);
  r.owner_adds_ns = in.vecs_used * (in.p.nranks - 1) * cal.vector_op_latency_ns;
  r.owner_own_wait_ns = lean_own_vector_wait_ns(in, in.vecs_used, cal.dram_latency_ns);
  if (norm) {
    const double warps_on_sm = vector_warps_on_sm(in, k);
    r.reader_line_ns = line_at_ranks(cal, kLean2ReaderLine, in.p.nranks, warps_on_sm);
    r.owner_line_ns = line_at_ranks(cal, kLean2OwnerLine, in.p.nranks, warps_on_sm);
  }
  return r;
}

double twoshot_lean_model(const ModelInputs& in, TermSheet& sheet) {
  const Problem& p = in.p;
  const LaunchConfig& c = in.c;
  const Calibration& cal = in.cal;
  const int n = p.nranks;
  const long long rounds = ceil_div(p.tokens, in.clusters);  // token rounds per cluster
  const double pushed_share = static_cast<double>(n - 1) / n;  // rows of the other ranks' ranges
  const Placement pl = place(in.s, std::min<long long>(p.tokens, in.clusters), c.cluster);
  const double k = pl.blocks_per_used_sm;
  const double slice = in.token_bytes / c.cluster;
  const double vecs = in.vecs_used;
  const double S = in.input_bytes;
  const double port = in.port_bytes_per_ns;
  const bool norm = has_residual(p.pattern);
  const bool pushed = norm && lean_pushes_cluster_totals(c.cluster, c.tpb);
  // HBM bytes: the push (x read, (N-1)/N S written to the rows' owners) and the rounds (residual read,
  // outputs written, the slots read and written back twice over).
  const double push_hbm_bytes = (1 + pushed_share) * S;
  const double hbm_bytes = (norm ? S : 0.0) + p.tokens * in.out_bytes_per_token + 2 * (2.0 * (n - 1) / n) * S;
  const std::string link_name = in.nvlink ? "NVLink" : "local (peers on this GPU)";

  add_launch_term(in, sheet);
  add_ranks_term(in, sheet);
  const double start_ns = pushed ? lifetime_cluster_barrier_at_ns(in, k) : 0.0;  // as lean one-shot's
  sheet.add("prologue", start_ns + cal.l2_latency_ns, [&] {
    return (pushed ? fmt("lean: pushed-exchange start (mbarrier init, a relaxed cluster arrive) %.0f ns + ", start_ns)
                   : std::string()) +
           fmt("flag read %.0f ns (L2); the arrival off the critical path", cal.l2_latency_ns);
  });

  // The bandwidth bounds see the average cluster's share of rows to push; the chain the busiest
  // cluster's (every round but the ones it owns: at one round per cluster, a whole push step).
  const double push_rounds = static_cast<double>(rounds) * pushed_share;
  const double chain_push_rounds = std::ceil(push_rounds);
  const double sm_load_bytes_per_ns = cal.bytes_in_flight_per_sm / cal.dram_latency_ns;  // Little's law
  const std::vector<Bound> push_base = {
      {"chain", push_chain_ns(in, 1, chain_push_rounds * vecs)},
      {"sm_loads", push_rounds * k * slice / sm_load_bytes_per_ns},
      {"sm_port", push_rounds * k * slice / port},
      {"sm_peer_stores", push_rounds * k * slice / in.peer_sm_bytes_per_ns},
      {"link", in.nvlink ? pushed_share * S / in.link_bytes_per_ns : 0.0}};
  // Token rounds (lean_twoshot_round above): the lean one-shot round, the owner's extras, and the measured
  // lines of a reader's and an owner's round; a cluster runs rounds / N owned rounds and the rest as a reader.
  const LeanTwoshotRound lr = lean_twoshot_round(in, k);
  const RoundParts& round = lr.round;
  const double owner_adds_ns = lr.owner_adds_ns;
  const double owned_rounds = static_cast<double>(rounds) / n;
  const double owner_own_wait_ns = lr.owner_own_wait_ns;
  const double lines_ns = (static_cast<double>(rounds) - owned_rounds) * lr.reader_line_ns + owned_rounds * lr.owner_line_ns;
  // Per cluster and token: my outputs, -0.0 over what I read ((N-1) slots of my rows, 1 of the
  // others'), the sums of my rows to N - 1 peers.
  const double stored_per_token = in.out_bytes_per_token / c.cluster + slice * (2.0 * (n - 1) / n + 1.0 * (n - 1) / n);
  const std::vector<Bound> reduce_base = {
      {"rounds", static_cast<double>(rounds) * round.total() + owned_rounds * (owner_adds_ns + owner_own_wait_ns) + lines_ns +
                     static_cast<double>(rounds - 1) * shared_sm_round_ns(in, k)},
      {"sm_port", static_cast<double>(rounds) * k * (stored_per_token + slice * (norm ? 2 : 1)) / port},
      {"link", in.nvlink ? pushed_share * S / in.link_bytes_per_ns : 0.0}};
  // The rank's HBM rate: the push and the rounds stream (model_terms.h staggered_hbm_rate).
  const HbmRate hbm_rate = staggered_hbm_rate(in, [&](double rate) {
    return slowest(with_hbm_bound(push_base, push_hbm_bytes, rate)).ns +
           chain_with_bandwidth_ns(with_hbm_bound(reduce_base, hbm_bytes, rate));
  });
  const double hbm = hbm_rate.bytes_per_ns;
  const std::vector<Bound> push = with_hbm_bound(push_base, push_hbm_bytes, hbm);
  sheet.add("push", slowest(push).ns, [&] {
    return bounds_text(push) +
           fmt(" [chain: ceil((%d-1)/%d x %lld tokens/cluster) x %d vector(s) of push steps, the first %.0f ns, the "
               "later ones %.0f ns, one store each (to the row's owner); link: ",
               n, n, rounds, in.vecs_used, push_step_ns(in, 1), later_push_step_ns(in, 1)) +
           (in.nvlink ? fmt("%.0f B / %.3g B/ns; ", pushed_share * S, in.link_bytes_per_ns)
                      : std::string("none, ") + link_name + "; ") +
           fmt("HBM: x read + %.2f x S written", pushed_share) + staggered_hbm_text(in, hbm_rate) + "]";
  });
  sheet.add("first_wait", cal.peer_visibility_ns, [&] {
    return fmt("store-to-seen %.0f ns (%s) of the first row pushed to its owner", cal.peer_visibility_ns,
               link_name.c_str());
  });
  // Two exchange rounds of every thread (the rows pushed to their owners, the sums pushed back), one
  // counted: counting both raised the error on the committed files (docs/model.md, "The grid term").
  add_grid_term(in, sheet, 1, 1);

  const std::vector<Bound> reduce = with_hbm_bound(reduce_base, hbm_bytes, hbm);
  const double reduce_ns = chain_with_bandwidth_ns(reduce);
  sheet.add("rounds", reduce_ns, [&] {
    return fmt("(rounds^3 + max(bandwidth bounds)^3)^(1/3) of ") + bounds_text(reduce) +
           fmt(" [%lld round(s) of %.0f ns (the lean one-shot round: loads %.0f + compute %.0f + ", rounds,
               round.total(), round.loads, round.compute) +
           norm_reduce_text(in) + (pushed ? " (pushed exchange instead of the cluster barrier)" : "") +
           fmt(" + gamma %.0f + overhead %.0f) + %.3g owned round(s) x (%d x %d adds x %.3g ns", round.gamma,
               round.overhead, owned_rounds, in.vecs_used, n - 1, cal.vector_op_latency_ns) +
           (owner_own_wait_ns > 0 ? fmt(" + the polls' wait for the own vector of x, %d x %.0f ns (DRAM)",
                                        in.vecs_used, cal.dram_latency_ns)
                                  : std::string()) +
           ")" +
           (lines_ns != 0.0 ? fmt(" + the measured lines: %.3g reader round(s) x %.0f ns", rounds - owned_rounds,
                                  lr.reader_line_ns) +
                                  fmt(" + %.3g owned x %.0f ns", owned_rounds, lr.owner_line_ns)
                            : std::string()) +
           (shared_sm_round_ns(in, k) != 0.0 && rounds > 1
                ? fmt(" + %lld round(s) after the first x %.0f ns ", rounds - 1, shared_sm_round_ns(in, k)) +
                      shared_sm_round_text(k)
                : std::string()) +
           "]";
  });
  // The second exchange (every owner to every other rank) pays what any exchange among N ranks pays
  // beyond one among 2 (the `ranks` term, once more). It and its store-to-seen hop are on the path only
  // where a cluster runs one token round: with two or more, a rank runs its own rows first (stage 2) and
  // reads the others' after, in token order, so a later row's sum travels while it runs its earlier rounds
  // (docs/model.md, "The lean two-shot's second hop", session 36; the exchange's part since session 44,
  // "The lean two-shot's second exchange where its hop is").
  const bool hop_on_path = rounds < 2;
  const double second_ranks_ns = n > 2 ? rank_exchange_extra_ns(cal, n) : 0.0;
  sheet.add("second_wait", hop_on_path ? cal.peer_visibility_ns + second_ranks_ns : 0.0, [&] {
    const std::string exchange =
        n > 2 ? fmt(" + the second exchange among %d ranks beyond one among 2 %.0f ns (as `ranks`)", n, second_ranks_ns)
              : std::string();
    return hop_on_path ? fmt("store-to-seen %.0f ns of the owner's sum: the other ranks' rounds run one hop behind",
                             cal.peer_visibility_ns) +
                             exchange
                       : fmt("the owner's sum's store-to-seen hop (%.0f ns)", cal.peer_visibility_ns) + exchange +
                             fmt(" overlap the %lld rounds of a cluster", rounds);
  });
  const bool exit_barrier = norm && c.cluster > 1 && !pushed;
  const double exit_ns = exit_barrier ? lifetime_cluster_barrier_at_ns(in, k) : 0.0;
  sheet.add("exit", exit_ns, [&] {
    return exit_barrier
               ? fmt("lean: closing lifetime barrier (relaxed arrive) %.0f ns", exit_ns)
               : std::string("lean: no closing cluster barrier (no block reads another's shared memory)");
  });
  add_drain_term(in, sheet);  // its last round ends on its outputs and -0.0 written back
  return sheet.total_ns();
}

// What the reference two-shot's epilogue round (norm patterns) takes beyond a round with the one-shot
// round's overhead: twoshot_round_delta_ns + _per_warp x the vector warps on the busiest SM (calibrate:
// body_round reference2_epilogue_allbusy_slowest; docs/model.md, "The two-shot epilogue's own round"). 0 for ar.
double twoshot_round_delta_ns(const ModelInputs& in, double k) {
  if (!has_residual(in.p.pattern)) return 0.0;
  return in.cal.twoshot_round_delta_ns + in.cal.twoshot_round_delta_ns_per_warp * vector_warps_on_sm(in, k);
}

// One round of the reference two-shot epilogue: the sum (an L2 hit in my comm buffer) and the residual
// (DRAM) loaded together, the epilogue's vector operations less the rank sum (done in the
// reduce-scatter), the norm reduction, gamma (L2) and the round overhead of the shared epilogue code.
struct EpilogueRound {
  double load_ns = 0, compute_ns = 0, overhead_ns = 0, total_ns = 0;
  int ops = 0;
};
EpilogueRound epilogue_round(const ModelInputs& in, double k) {
  const Calibration& cal = in.cal;
  const bool norm = has_residual(in.p.pattern);
  const double vecs = in.vecs_used;
  EpilogueRound r;
  r.load_ns = norm ? std::max(token_loads_ns(in, vecs), vecs * cal.l2_latency_ns) : vecs * cal.l2_latency_ns;
  r.ops = std::max(1, in.ops - in.p.nranks);  // the rank sum was done in the reduce-scatter
  r.compute_ns = std::max(vecs * r.ops * cal.vector_op_latency_ns,
                          k * in.active_threads * vecs * r.ops * cal.sm_ns_per_vector_op);
  // The same epilogue code as one-shot's rounds (kernels/fused_epilogue.cuh): its round overhead, and what
  // the two-shot's own round measures beyond it (model_terms.h twoshot_round_delta_ns).
  r.overhead_ns = round_overhead_ns(in, k) + twoshot_round_delta_ns(in, k);
  r.total_ns = r.load_ns + r.compute_ns + norm_reduce_ns(in) + (norm ? vecs * cal.l2_latency_ns : 0.0) + r.overhead_ns;
  return r;
}

}  // namespace

double twoshot_epilogue_round_ns(const ModelInputs& in, double blocks_per_sm) {
  return epilogue_round(in, blocks_per_sm).total_ns;
}

double twoshot_lean_round_ns(const ModelInputs& in, double blocks_per_sm, bool owner) {
  const LeanTwoshotRound r = lean_twoshot_round(in, blocks_per_sm);
  return r.round.total() + (owner ? r.owner_adds_ns + r.owner_own_wait_ns + r.owner_line_ns : r.reader_line_ns);
}

double twoshot_model(const ModelInputs& in, TermSheet& sheet) {
  if (implementation(in.c.impl).model == ModelDesign::lean) return twoshot_lean_model(in, sheet);
  const Problem& p = in.p;
  const LaunchConfig& c = in.c;
  const Calibration& cal = in.cal;
  const int n = p.nranks;
  const long long chunk = ceil_div(p.tokens, n);
  const long long per_range = ceil_div(chunk, in.clusters);  // tokens of one range per cluster
  // Copy and epilogue rounds of the busiest cluster, cluster 0 (local indices l = 0, C, 2C, ... <
  // chunk): a range r holds token r x chunk + l only where that is < tokens, so with tokens < N x chunk
  // the last ranges are short or empty (17 tokens at N = 8: chunk 3, ranges 6 and 7 empty).
  long long rounds_all = 0;
  for (long long l = 0; l < chunk; l += in.clusters)
    rounds_all += std::min<long long>(n, ceil_div(p.tokens - l, chunk));
  const Placement pl = place(in.s, std::min<long long>(chunk, in.clusters), c.cluster);
  const double k = pl.blocks_per_used_sm;
  const double slice = in.token_bytes / c.cluster;
  const double vecs = in.vecs_used;
  const double S = in.input_bytes;
  const double port = in.port_bytes_per_ns;
  const bool norm = has_residual(p.pattern);
  // HBM bytes of the copy (2 S), the reduce-scatter (2 S) and the epilogue (sums and residual read,
  // outputs written).
  const double epilogue_hbm_bytes = S * (norm ? 2 : 1) + p.tokens * in.out_bytes_per_token;
  // The phases' bounds but HBM: the copy, the reduce-scatter, the epilogue.
  const std::vector<Bound> copy_base = {{"chain", static_cast<double>(rounds_all) * token_loads_ns(in, vecs)},
                                        {"sm_port", static_cast<double>(rounds_all) * k * slice * 2 / port}};
  const double remote_load_ns = in.nvlink ? 2 * cal.peer_visibility_ns : cal.sys_load_latency_ns;
  const double rs_round = vecs * (remote_load_ns + n * cal.vector_op_latency_ns);
  const std::vector<Bound> rs_base = {
      {"chain", static_cast<double>(per_range) * rs_round},
      {"sm_peer_stores", static_cast<double>(per_range) * k * slice * (n - 1) / in.peer_sm_bytes_per_ns},
      {"link", in.nvlink ? 2.0 * (n - 1) * S / n / in.link_bytes_per_ns : 0.0}};
  const EpilogueRound er = epilogue_round(in, k);
  const double load_ns = er.load_ns, compute_ns = er.compute_ns, overhead_ns = er.overhead_ns;
  const int epi_ops = er.ops;
  const double round_ns = er.total_ns;
  // The epilogue's rounds after a call's first at N = 2: the measured round's difference from the model's,
  // per round (calibrate body_round reference2_epilogue_ar_n2 for ar, reference2_epilogue_n2 (ar_res_rms) for
  // the norm patterns: a round that reads its sums and stores its outputs, measured over 8 rounds in a row;
  // docs/model.md, "The reference two-shot's epilogue rounds"; per round since session 36: the ar difference
  // grows far less than the vectors, -450 ns at 1 vector per thread, -600 ns at 4). Not at N >= 4, where it
  // was not measured.
  const bool further_measured = n == 2 && rounds_all > 1;
  const double further_delta_ns =
      p.pattern == Pattern::ar ? cal.twoshot_ar_further_round_ns_n2 : cal.twoshot_further_round_ns_n2;
  const double further_round_ns =
      (further_measured ? std::max(0.0, round_ns + further_delta_ns) : round_ns) + shared_sm_round_ns(in, k);
  const std::vector<Bound> epi_base = {
      {"rounds", round_ns + static_cast<double>(rounds_all - 1) * further_round_ns},
      {"sm_port", static_cast<double>(rounds_all) * k * (slice * (norm ? 2 : 1) + in.out_bytes_per_token / c.cluster) /
                      port}};
  // The rank's HBM rate: the copy, the reduce-scatter and the epilogue stream (model_terms.h
  // staggered_hbm_rate).
  const HbmRate hbm_rate = staggered_hbm_rate(in, [&](double rate) {
    return slowest(with_hbm_bound(copy_base, 2 * S, rate)).ns + slowest(with_hbm_bound(rs_base, 2 * S, rate)).ns +
           slowest(with_hbm_bound(epi_base, epilogue_hbm_bytes, rate)).ns;
  });
  const double hbm = hbm_rate.bytes_per_ns;

  add_launch_term(in, sheet);
  add_ranks_term(in, sheet);

  const std::vector<Bound> copy = with_hbm_bound(copy_base, 2 * S, hbm);
  sheet.add("copy", slowest(copy).ns, [&] {
    return bounds_text(copy) + fmt(" [%lld tokens/cluster x %d vector(s) x DRAM %.0f ns; 2 x %.0f B of HBM",
                                   rounds_all, in.vecs_used, round_dram_ns(in), S) +
           staggered_hbm_text(in, hbm_rate) + "]";
  });

  const double barrier_ns = cal.peer_visibility_ns + cal.sys_load_latency_ns;
  const auto barrier_text = [&] {
    return fmt("store-to-seen %.0f ns + acquire poll %.0f ns", cal.peer_visibility_ns, cal.sys_load_latency_ns);
  };
  sheet.add("barrier_1", barrier_ns, barrier_text);

  const std::vector<Bound> rs = with_hbm_bound(rs_base, 2 * S, hbm);
  sheet.add("reduce_scatter", slowest(rs).ns, [&] {
    return bounds_text(rs) +
           fmt(" [%lld tokens/cluster x %d vector(s) x (load of %d slots %.0f ns", per_range, in.vecs_used, n,
               remote_load_ns) +
           (in.nvlink ? " (remote: 2 x store-to-seen)" : " (local sys load)") +
           fmt(" + %d adds x %.3g ns)]", n, cal.vector_op_latency_ns);
  });
  sheet.add("barrier_2", barrier_ns, barrier_text);

  const std::vector<Bound> epi = with_hbm_bound(epi_base, epilogue_hbm_bytes, hbm);
  sheet.add("epilogue", slowest(epi).ns, [&] {
    return bounds_text(epi) +
           fmt(" [%lld tokens/cluster x (%.0f ns loads of %d vector(s) + %.0f ns compute (%d ops) + ", rounds_all,
               load_ns, in.vecs_used, compute_ns, epi_ops) +
           norm_reduce_text(in) + fmt(" + round overhead %.0f ns", overhead_ns) +
           (k > 1 ? fmt(", its per-warp part over the %.0f blocks on the busiest SM", k) : std::string()) +
           (nvfp4_odd_round_part_ns(in, k) > 0
                ? fmt(", %.0f ns of it NVFP4 at an odd tpb: the amax through shared memory, a cluster barrier, the "
                      "norms recomputed",
                      nvfp4_odd_round_part_ns(in, k))
                : std::string()) +
           ")" +
           (further_measured && further_delta_ns != 0.0
                ? fmt("; the rounds after the first %.0f ns each", further_round_ns) +
                      fmt(" (%+.0f ns per round, measured)", further_delta_ns)
                : std::string()) +
           (shared_sm_round_ns(in, k) != 0.0 && rounds_all > 1
                ? fmt("; each round after the first %+.0f ns ", shared_sm_round_ns(in, k)) + shared_sm_round_text(k)
                : std::string()) +
           "]";
  });
  sheet.add("exit", cluster_barrier_ns(in), [&] { return "closing " + cluster_barrier_text(in); });
  add_drain_term(in, sheet);  // the closing barrier (cluster > 1) is not what waits for the outputs
  return sheet.total_ns();
}

}  // namespace arlab::model::detail
