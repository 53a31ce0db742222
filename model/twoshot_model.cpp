// The two-shot timing model: the phases of kernels/twoshot_kernel.cuh in order, each as long as its
// slowest limit. chunk = ceil(tokens / N); cluster c of every rank handles the local indices
// c, c + C, ... < chunk of every rank's range, so per cluster: N x ceil(chunk / C) tokens in the copy
// and the epilogue, ceil(chunk / C) in the reduce-scatter. All blocks are co-resident (one wave).
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
//                   ops, the norm reduction, gamma) vs HBM (S sums + S residual read, outputs written)
//   exit            the closing cluster barrier (cluster > 1)
#include <algorithm>

#include "common/fmt.h"
#include "model/model_terms.h"

namespace arlab::model::detail {

double twoshot_model(const ModelInputs& in, TermSheet& sheet) {
  const Problem& p = in.p;
  const LaunchConfig& c = in.c;
  const Calibration& cal = in.cal;
  const int n = p.nranks;
  const long long chunk = ceil_div(p.tokens, n);
  const long long per_range = ceil_div(chunk, in.clusters);  // tokens of one range per cluster
  const long long rounds_all = n * per_range;                // copy and epilogue
  const Placement pl = place(std::min<long long>(chunk, in.clusters), c.cluster, in.s.sm_count);
  const double k = pl.blocks_per_used_sm;
  const double slice = in.token_bytes / c.cluster;
  const double vecs = in.vecs_used;
  const double S = in.input_bytes;
  const double port = in.port_bytes_per_ns;
  const double hbm = in.hbm_bytes_per_ns;
  const bool norm = has_residual(p.pattern);

  add_launch_term(in, sheet);
  add_ranks_term(in, sheet);

  const std::vector<Bound> copy = {{"chain", static_cast<double>(rounds_all) * token_loads_ns(in, vecs)},
                                   {"sm_port", static_cast<double>(rounds_all) * k * slice * 2 / port},
                                   {"hbm", 2 * S / hbm}};
  sheet.add("copy", slowest(copy).ns, [&] {
    return bounds_text(copy) + fmt(" [%lld tokens/cluster x %d vector(s) x DRAM %.0f ns; 2 x %.0f B of HBM]",
                                   rounds_all, in.vecs_used, round_dram_ns(in), S);
  });

  const double barrier_ns = cal.peer_visibility_ns + cal.sys_load_latency_ns;
  const auto barrier_text = [&] {
    return fmt("store-to-seen %.0f ns + acquire poll %.0f ns", cal.peer_visibility_ns, cal.sys_load_latency_ns);
  };
  sheet.add("barrier_1", barrier_ns, barrier_text);

  const double remote_load_ns = in.nvlink ? 2 * cal.peer_visibility_ns : cal.sys_load_latency_ns;
  const double rs_round = vecs * (remote_load_ns + n * cal.vector_op_latency_ns);
  const std::vector<Bound> rs = {
      {"chain", static_cast<double>(per_range) * rs_round},
      {"sm_peer_stores", static_cast<double>(per_range) * k * slice * (n - 1) / in.peer_sm_bytes_per_ns},
      {"link", in.nvlink ? 2.0 * (n - 1) * S / n / in.link_bytes_per_ns : 0.0},
      {"hbm", 2 * S / hbm}};
  sheet.add("reduce_scatter", slowest(rs).ns, [&] {
    return bounds_text(rs) +
           fmt(" [%lld tokens/cluster x %d vector(s) x (load of %d slots %.0f ns", per_range, in.vecs_used, n,
               remote_load_ns) +
           (in.nvlink ? " (remote: 2 x store-to-seen)" : " (local sys load)") +
           fmt(" + %d adds x %.3g ns)]", n, cal.vector_op_latency_ns);
  });
  sheet.add("barrier_2", barrier_ns, barrier_text);

  const double load_ns = norm ? std::max(token_loads_ns(in, vecs), vecs * cal.l2_latency_ns) : vecs * cal.l2_latency_ns;
  const int epi_ops = std::max(1, in.ops - n);  // the rank sum was done in the reduce-scatter
  const double compute_ns = std::max(vecs * epi_ops * cal.vector_op_latency_ns,
                                     k * c.tpb * vecs * epi_ops * cal.sm_ns_per_vector_op);
  // The same epilogue code as one-shot's rounds (kernels/fused_epilogue.cuh): its round overhead too.
  const double overhead_ns = round_overhead_ns(cal, p.pattern, c.tpb);
  const double round_ns =
      load_ns + compute_ns + norm_reduce_ns(in) + (norm ? vecs * cal.l2_latency_ns : 0.0) + overhead_ns;
  const std::vector<Bound> epi = {
      {"rounds", static_cast<double>(rounds_all) * round_ns},
      {"sm_port", static_cast<double>(rounds_all) * k * (slice * (norm ? 2 : 1) + in.out_bytes_per_token / c.cluster) /
                      port},
      {"hbm", (S * (norm ? 2 : 1) + p.tokens * in.out_bytes_per_token) / hbm}};
  sheet.add("epilogue", slowest(epi).ns, [&] {
    return bounds_text(epi) +
           fmt(" [%lld tokens/cluster x (%.0f ns loads of %d vector(s) + %.0f ns compute (%d ops) + ", rounds_all,
               load_ns, in.vecs_used, compute_ns, epi_ops) +
           norm_reduce_text(in) + fmt(" + round overhead %.0f ns)]", overhead_ns);
  });
  sheet.add("exit", cluster_barrier_ns(in), [&] { return "closing " + cluster_barrier_text(in); });
  return sheet.total_ns();
}

}  // namespace arlab::model::detail
