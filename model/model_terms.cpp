// Shared parts of the per-algorithm timing models (model/model_terms.h).
#include "model/model_terms.h"

#include <algorithm>
#include <cmath>

#include "common/fmt.h"
#include "common/implementations.h"
#include "model/occupancy.h"

namespace arlab::model::detail {

Placement place(const GpuSpec& s, long long active_clusters, int cs) {
  Placement pl;
  const long long blocks = active_clusters * cs;
  const long long one_per_sm = std::max<long long>(1, max_active_clusters(s, cs, 1));
  pl.sms_used = static_cast<int>(std::min<long long>(blocks, one_per_sm * cs));
  pl.blocks_per_used_sm = pl.sms_used > 0 ? static_cast<int>(ceil_div(active_clusters, one_per_sm)) : 0;
  return pl;
}

Bound slowest(const std::vector<Bound>& bounds) {
  Bound best{"none", 0.0};
  for (const Bound& b : bounds)
    if (b.ns > best.ns) best = b;
  return best;
}

std::string bounds_text(const std::vector<Bound>& bounds) {
  const Bound top = slowest(bounds);
  std::string s = "max(";
  for (size_t i = 0; i < bounds.size(); ++i)
    s += (i ? ", " : "") + std::string(bounds[i].name) + " " + fmt("%.3f", bounds[i].ns / 1e3) + " us";
  return s + "): " + top.name + "-bound";
}

double hbm_rows_fraction(const Calibration& cal, long long row_alignment_bytes, int nranks, LinkKind link) {
  if (link != LinkKind::local || row_alignment_bytes >= 1024) return 1.0;
  const bool n2 = nranks <= 2, n4 = nranks == 3 || nranks == 4;  // N = 3 takes N = 4's, 5-16 N = 8's
  if (row_alignment_bytes <= 128)
    return n2 ? cal.hbm_rows_fraction_128b_n2 : n4 ? cal.hbm_rows_fraction_128b_n4 : cal.hbm_rows_fraction_128b_n8;
  if (row_alignment_bytes == 256)
    return n2 ? cal.hbm_rows_fraction_256b_n2 : n4 ? cal.hbm_rows_fraction_256b_n4 : cal.hbm_rows_fraction_256b_n8;
  return n2 ? cal.hbm_rows_fraction_512b_n2 : n4 ? cal.hbm_rows_fraction_512b_n4 : cal.hbm_rows_fraction_512b_n8;
}

double l2_miss_share(const Calibration& cal, double fraction) {
  const double lo = cal.l2_reuse_miss_start_fraction, hi = cal.l2_reuse_miss_full_fraction;
  if (fraction <= lo) return 0.0;
  if (fraction >= hi) return 1.0;
  return (fraction - lo) / (hi - lo);
}

double l2_store_bytes_per_ns(const ModelInputs& in) {
  // The bench's partition and its busy partner are two of the emulated node's ranks: the GPU's L2 takes
  // twice that rate, shared by the N ranks that stream at once.
  return in.cal.l2_store_busy_gbps * 2.0 / std::max(1, in.p.nranks);
}

double l2_resident_share(const ModelInputs& in) {
  if (!(in.cal.l2_store_busy_gbps > 0) || in.s.link != LinkKind::local || !(in.s.l2_bytes > 0)) return 0.0;
  const double s = in.input_bytes;
  const double footprint = in.p.nranks * s + s + (has_residual(in.p.pattern) ? s : 0.0) +
                           in.out_bytes_per_token * in.p.tokens;
  return 1.0 - l2_miss_share(in.cal, footprint / static_cast<double>(in.s.l2_bytes));
}

bool derive_inputs(ModelInputs& in, const KernelResources& res) {
  const Problem& p = in.p;
  const LaunchConfig& c = in.c;
  in.nvlink = in.s.link == LinkKind::nvlink;
  in.elem_bytes = dtype_bytes(p.dtype);
  in.token_bytes = static_cast<double>(p.hidden) * in.elem_bytes;
  in.input_bytes = in.token_bytes * p.tokens;
  in.out_bytes_per_token = output_bytes_per_token(p);
  in.ops = vector_ops_per_vector(p);
  in.clusters = c.grid / c.cluster;
  const int bps = blocks_per_sm(in.s, c.tpb, res.regs_per_thread, res.smem_per_block_bytes);
  in.cluster_capacity = bps < 1 ? 0 : max_active_clusters(in.s, c.cluster, bps);
  if (bps < 1 || in.cluster_capacity < 1 || in.clusters < 1) return false;
  const long long threads_per_cluster = static_cast<long long>(c.tpb) * c.cluster;
  in.vecs_used = static_cast<int>(std::min<long long>(c.vecs_per_thread,
                                                      ceil_div(threads_per_token(p), threads_per_cluster)));
  const long long vectors = threads_per_token(p);
  const long long last_iteration = vectors - threads_per_cluster * (in.vecs_used - 1);  // 1 .. tpb x cs
  in.vecs_mean = (in.vecs_used - 1) + static_cast<double>(std::min<long long>(c.tpb, last_iteration)) /
                                          static_cast<double>(std::min<long long>(c.tpb, vectors));
  in.warps = static_cast<int>(ceil_div(c.tpb, 32));
  in.active_threads = static_cast<int>(std::min<long long>(c.tpb, threads_per_token(p)));
  in.active_warps = static_cast<int>(ceil_div(in.active_threads, 32));
  in.cluster_active_warps = static_cast<int>(ceil_div(std::min<long long>(threads_per_cluster, threads_per_token(p)), 32));
  const Calibration& cal = in.cal;
  in.port_bytes_per_ns = cal.sm_l2_bytes_per_cycle * in.s.sm_clock_ghz;
  const auto row_bytes = static_cast<long long>(in.token_bytes);
  in.row_alignment_bytes = row_bytes & -row_bytes;
  in.hbm_rows_fraction = hbm_rows_fraction(cal, in.row_alignment_bytes, p.nranks, in.s.link);
  in.hbm_bytes_per_ns = in.s.hbm_gbps * cal.hbm_efficiency * in.hbm_rows_fraction;
  in.l2_resident_share = l2_resident_share(in);
  if (in.l2_resident_share > 0) {
    // The share that stays in L2 moves at the faster of the two measured rates; the rest at HBM's.
    const double resident_rate = std::max(in.hbm_bytes_per_ns, l2_store_bytes_per_ns(in));
    in.hbm_bytes_per_ns =
        1.0 / ((1.0 - in.l2_resident_share) / in.hbm_bytes_per_ns + in.l2_resident_share / resident_rate);
  }
  in.link_bytes_per_ns = in.nvlink ? in.s.link_gbps * cal.link_efficiency : 0.0;
  in.peer_sm_bytes_per_ns = cal.peer_store_gbps_per_sm;
  return true;
}

double start_spacing_ns(const ModelInputs& in) {
  if (in.nvlink || in.s.link != LinkKind::local) return 0.0;  // a real node: every GPU streams its own HBM
  switch (in.p.nranks) {
    case 2: return in.cal.start_spacing_ns_n2;
    case 4: return in.cal.start_spacing_ns_n4;
    default: return in.cal.start_spacing_ns_n8;  // N = 8, and N = 16 at N = 8's spacing
  }
}

HbmRate staggered_hbm_rate(const ModelInputs& in, const std::function<double(double)>& streaming_ns) {
  const int n = in.p.nranks;
  HbmRate r{in.hbm_bytes_per_ns, static_cast<double>(n), start_spacing_ns(in), 0.0};
  if (!(r.spacing_ns > 0)) return r;
  const double gpu_rate = in.hbm_bytes_per_ns * n;
  // h(c) = 1 + sum_j max(0, 1 - j s / T(c)) - c: h(1) >= 0, h(N) <= 0, bisection to 1e-6 of a rank.
  const auto h = [&](double c) {
    const double t = streaming_ns(gpu_rate / c);
    double at_once = 1.0;
    for (int j = 1; j < n && t > 0; ++j) at_once += std::max(0.0, 1.0 - j * r.spacing_ns / t);
    return at_once - c;
  };
  double lo = 1.0, hi = static_cast<double>(n);
  for (int i = 0; i < 60 && hi - lo > 1e-6; ++i) {
    const double mid = 0.5 * (lo + hi);
    (h(mid) >= 0 ? lo : hi) = mid;
  }
  r.ranks_at_once = 0.5 * (lo + hi);
  r.bytes_per_ns = gpu_rate / r.ranks_at_once;
  r.streaming_ns = streaming_ns(r.bytes_per_ns);
  return r;
}

std::vector<Bound> with_hbm_bound(std::vector<Bound> bounds, double bytes, double rate) {
  bounds.push_back({"hbm", bytes / rate});
  return bounds;
}

std::string staggered_hbm_text(const ModelInputs& in, const HbmRate& rate) {
  std::string rows =
      in.hbm_rows_fraction != 1.0 ? fmt(" (x %.3f for ", in.hbm_rows_fraction) + fmt("%lld-B rows)", in.row_alignment_bytes)
                                  : std::string();
  if (in.l2_resident_share > 0)
    rows += fmt(" (%.0f %% of the bytes stay in L2, at the faster of HBM's rate and ", 100.0 * in.l2_resident_share) +
            fmt("the L2 store rate %.3g B/ns)", l2_store_bytes_per_ns(in));
  if (!(rate.spacing_ns > 0)) return rows;
  return rows +
         fmt(" (the GPU's rate over %.2f of %d ranks streaming at once: the ranks start %.0f ns apart, ",
             rate.ranks_at_once, in.p.nranks, rate.spacing_ns) +
         fmt("the phases that stream take %.0f ns)", rate.streaming_ns);
}

double round_dram_ns(const ModelInputs& in) {
  return in.cal.dram_round_latency_ns + in.cal.dram_round_ns_per_warp * in.active_warps;
}

namespace {
// One push step with its per-warp part scaled by `share` (1: the whole partition's step).
double push_step_at_share_ns(const ModelInputs& in, int stores, double share) {
  const Calibration& cal = in.cal;
  return cal.push_step_ns +
         share * (cal.push_step_ns_per_warp + cal.push_step_ns_per_warp_store * (stores - 2)) * in.active_warps;
}
}  // namespace

double push_step_ns(const ModelInputs& in, int stores) { return push_step_at_share_ns(in, stores, 1.0); }

double later_push_step_ns(const ModelInputs& in, int stores) {
  const double f = in.cal.push_step_few_blocks_fraction;
  return push_step_at_share_ns(in, stores, f + (1.0 - f) * std::min(1.0, wave_blocks_holding(in) / in.s.sm_count));
}

double push_chain_ns(const ModelInputs& in, int stores, double steps) {
  if (!(steps > 0)) return 0.0;
  return push_step_ns(in, stores) + (steps - 1.0) * later_push_step_ns(in, stores);
}

double token_loads_ns(const ModelInputs& in, double vecs) {
  return vecs <= 0 ? 0.0 : round_dram_ns(in) + (vecs - 1) * in.cal.dram_latency_ns;
}

double lean_own_vector_wait_ns(const ModelInputs& in, double vecs, double reload_ns) {
  return in.p.nranks > 2 && vecs > 0 ? vecs * reload_ns : 0.0;
}

double cluster_barrier_ns(const ModelInputs& in) {
  if (in.c.cluster <= 1) return 0;
  const Calibration& cal = in.cal;
  return cal.cluster_sync_ns + cal.dsmem_access_ns * in.cluster_active_warps;
}

std::string cluster_barrier_text(const ModelInputs& in) {
  if (in.c.cluster <= 1) return "no cluster barrier (cluster = 1)";
  return fmt("cluster barrier %.0f ns + %.3g ns x %d warps of the cluster that hold a vector", in.cal.cluster_sync_ns,
             in.cal.dsmem_access_ns, in.cluster_active_warps);
}

double norm_reduce_ns(const ModelInputs& in) {
  if (!has_residual(in.p.pattern)) return 0;  // only RMSNorm patterns reduce
  const Calibration& cal = in.cal;
  double ns = cal.block_reduce_fixed_ns + cal.block_reduce_ns_per_warp * in.warps;
  return ns + cluster_barrier_ns(in);
}

std::string norm_reduce_text(const ModelInputs& in) {
  if (!has_residual(in.p.pattern)) return "no RMSNorm (pattern ar)";
  const Calibration& cal = in.cal;
  std::string s = fmt("block reduce %.0f ns + %.3g ns x %d warps", cal.block_reduce_fixed_ns,
                      cal.block_reduce_ns_per_warp, in.warps);
  if (in.c.cluster > 1) s += " + " + cluster_barrier_text(in);
  return s;
}

void add_launch_term(const ModelInputs& in, TermSheet& sheet) {
  const Calibration& cal = in.cal;
  const LaunchConfig& c = in.c;
  sheet.add("launch",
            1e3 * cal.launch_overhead_us + c.grid * cal.launch_per_block_ns +
                (c.cluster > 1 ? 1e3 * cal.cluster_launch_us : 0.0),
            [&] {
              return fmt("empty kernel %.3f us + %d blocks x %.3g ns", cal.launch_overhead_us, c.grid,
                         cal.launch_per_block_ns) +
                     (c.cluster > 1 ? fmt(" + cluster launch %.3f us", cal.cluster_launch_us) : std::string());
            });
}

double rank_exchange_extra_ns(const Calibration& cal, int nranks) {
  const double x = std::max(0, nranks - 2);
  return cal.exchange_ns_per_rank * x + cal.exchange_ns_per_rank_sq * x * x;
}

void add_ranks_term(const ModelInputs& in, TermSheet& sheet) {
  const int n = in.p.nranks;
  if (n <= 2) return;  // no term at N = 2: the constants describe more ranks than 2
  const Calibration& cal = in.cal;
  sheet.add("ranks", rank_exchange_extra_ns(cal, n), [&] {
    return fmt("one exchange round among %d ranks beyond one among 2: %.3g ns x %d + %.3g ns x %d^2", n,
               cal.exchange_ns_per_rank, std::max(0, n - 2), cal.exchange_ns_per_rank_sq, std::max(0, n - 2));
  });
}

double grid_exchange_sms_holding(const ModelInputs& in, double blocks) {
  return std::min(blocks, static_cast<double>(in.s.sm_count));
}

double grid_exchange_extra_ns(const ModelInputs& in, double blocks) {
  const double sms_beyond = std::max(0.0, grid_exchange_sms_holding(in, blocks) - 1.0);
  const double blocks_beyond = std::max(0.0, blocks - 1.0);
  return sms_beyond * in.cal.exchange_grid_ns_per_block +
         blocks_beyond * in.cal.exchange_grid_ns_per_block_warp * in.active_warps;
}

long long cluster_work_items(const ModelInputs& in) {
  const bool ranges = in.p.algo == Algorithm::twoshot && implementation(in.c.impl).model != ModelDesign::lean;
  return ranges ? ceil_div(in.p.tokens, in.p.nranks) : in.p.tokens;
}

double wave_blocks_holding(const ModelInputs& in) {
  const long long clusters = std::min({cluster_work_items(in), in.clusters, in.cluster_capacity});
  const long long threads = std::min<long long>(static_cast<long long>(in.c.tpb) * in.c.cluster, threads_per_token(in.p));
  return static_cast<double>(clusters * ceil_div(threads, in.c.tpb));
}

void add_grid_term(const ModelInputs& in, TermSheet& sheet, long long waves, int exchanges) {
  const double blocks = wave_blocks_holding(in);
  const double per_round = grid_exchange_extra_ns(in, blocks);
  if (per_round <= 0) return;
  const Calibration& cal = in.cal;
  sheet.add("grid", static_cast<double>(waves * exchanges) * per_round, [&] {
    return fmt("%lld wave(s) x %d exchange round(s) x the round's growth with its blocks beyond one: (%.0f SMs "
               "that hold them - 1) x %.3g ns + (%.0f blocks that hold a vector - 1) x %.3g ns x %d warps",
               waves, exchanges, grid_exchange_sms_holding(in, blocks), cal.exchange_grid_ns_per_block, blocks,
               cal.exchange_grid_ns_per_block_warp, in.active_warps);
  });
}

double chain_with_bandwidth_ns(const std::vector<Bound>& bounds) {
  constexpr double kOverlapPower = 3.0;
  const double chain_ns = bounds.front().ns;
  const double bw_ns = slowest({bounds.begin() + 1, bounds.end()}).ns;
  return std::pow(std::pow(chain_ns, kOverlapPower) + std::pow(bw_ns, kOverlapPower), 1.0 / kOverlapPower);
}

RoundParts oneshot_round(const ModelInputs& in, double blocks_per_sm) {
  const Calibration& cal = in.cal;
  const bool norm = has_residual(in.p.pattern);
  const double vecs = in.vecs_used;
  RoundParts r;
  r.loads = norm ? std::max(token_loads_ns(in, vecs), vecs * cal.sys_load_latency_ns) : vecs * cal.sys_load_latency_ns;
  r.compute = std::max(vecs * in.ops * cal.vector_op_latency_ns,
                       blocks_per_sm * in.active_threads * vecs * in.ops * cal.sm_ns_per_vector_op);
  r.reduce = norm_reduce_ns(in);
  r.gamma = norm ? vecs * cal.l2_latency_ns : 0.0;
  r.overhead = round_overhead_ns(in, blocks_per_sm);
  return r;
}

double linear_in_ranks(double at2, double at4, double at8, int n) {
  if (n <= 4) return at2 + (at4 - at2) * (n - 2) / 2.0;
  return at4 + (at8 - at4) * (n - 4) / 4.0;
}

double line_at_ranks(const Calibration& cal, const LinesAtRanks& lines, int n, double warps) {
  double at[3];
  for (int i = 0; i < 3; ++i) at[i] = cal.*lines.intercept[i] + cal.*lines.per_warp[i] * warps;
  return linear_in_ranks(at[0], at[1], at[2], n);
}

double vector_warps_on_sm(const ModelInputs& in, double blocks_per_sm) {
  return in.active_warps * std::max(1.0, blocks_per_sm);
}

double barrier_warps_on_sm(const ModelInputs& in, double blocks_per_sm) {
  return std::ceil(in.c.tpb / 32.0) * std::max(1.0, blocks_per_sm);
}

double bare_cluster_barrier_at_ns(const ModelInputs& in, double blocks_per_sm) {
  return in.cal.bare_cluster_barrier_ns +
         in.cal.bare_cluster_barrier_ns_per_warp * barrier_warps_on_sm(in, blocks_per_sm);
}

double lifetime_cluster_barrier_at_ns(const ModelInputs& in, double blocks_per_sm) {
  return in.cal.cluster_lifetime_barrier_ns +
         in.cal.cluster_lifetime_barrier_ns_per_warp * barrier_warps_on_sm(in, blocks_per_sm);
}

double nvfp4_odd_round_part_ns(const ModelInputs& in, double blocks_per_sm) {
  if (!has_fp4(in.p.pattern) || in.c.tpb % 2 == 0) return 0.0;
  return in.cal.nvfp4_odd_round_ns + in.cal.nvfp4_odd_round_ns_per_warp * barrier_warps_on_sm(in, blocks_per_sm);
}

bool ar_round_measured_at_n2(const ModelInputs& in) {
  return in.p.pattern == Pattern::ar && in.p.nranks == 2 && in.c.algo == Algorithm::oneshot;
}

double round_overhead_ns(const ModelInputs& in, double blocks_per_sm) {
  const Calibration& cal = in.cal;
  const Pattern pattern = in.p.pattern;
  double ns = 0.0;
  // The per-warp part counts the warps of every block that shares the busiest SM: the other blocks'
  // vector warps issue on the same SM during the round (their idle warps are not counted again).
  const double vector_warps = vector_warps_on_sm(in, blocks_per_sm);
  if (has_residual(pattern))
    ns += cal.round_overhead_ns +
          cal.round_overhead_ns_per_warp *
              (vector_warps + cal.round_overhead_idle_warp_fraction * (in.warps - in.active_warps));
  // Each vector a thread holds beyond its first (calibrate: epilogue_round bf16_ar_res_rms_vpt*). In a
  // one-shot round the last one counts by the share of the busiest block's threads that hold it
  // (vecs_mean; the bench fills every one); the two-shot epilogue counts it whole (measured: at N = 4 and
  // 8, H 5120 x 1024 tokens, 192 threads x 4 vectors with the last a third filled take 3.5 % longer than
  // 320 x 2 full ones, which the share would price the same; docs/model.md, "A last vector that the token
  // fills in part").
  const double further_vectors = (in.c.algo == Algorithm::oneshot ? in.vecs_mean : in.vecs_used) - 1.0;
  if (has_residual(pattern) && in.vecs_used > 1)
    ns += cal.round_ns_per_extra_vector * further_vectors *
          std::min(1.0, wave_blocks_holding(in) / static_cast<double>(in.s.sm_count));
  // The NVFP4 round's own part: a line over the warps that hold a vector on the busiest SM (calibrate:
  // epilogue_round bf16_ar_res_rms_fp4, whose every warp holds one). The ar round's: one constant (the
  // bench's lines over warps predict the fused ar rows worse at some N: docs/model.md "The NVFP4 round
  // over warps", "The `ar` round from the rows with the partner idle").
  if (has_fp4(pattern))
    ns += cal.nvfp4_round_ns + cal.nvfp4_round_ns_per_warp * vector_warps;
  // Each vector an NVFP4 thread holds beyond its first (calibrate: epilogue_round bf16_ar_res_rms_fp4_vpt*):
  // its block amax (shuffles), scale factor and software e2m1 codes run once per vector in the thread
  // itself, so unlike the memory-side constants above it is not shared out over the SMs that hold blocks
  // (docs/model.md, "The NVFP4 round's further vectors").
  if (has_fp4(pattern) && in.vecs_used > 1) ns += cal.nvfp4_round_ns_per_extra_vector * further_vectors;
  // An odd tpb: a scale block's two vectors can sit in two warps or two blocks, so the amax goes through
  // shared memory, a cluster barrier follows and each norm is recomputed before its codes
  // (kernels/fused_epilogue.cuh; calibrate: epilogue_round bf16_ar_res_rms_fp4_odd): a line over the warps
  // the barrier waits for on the busiest SM.
  ns += nvfp4_odd_round_part_ns(in, blocks_per_sm);
  // The FP8 round's own part, as the NVFP4 round's (calibrate: epilogue_round bf16_ar_res_rms_fp8; since
  // session 29, prior 0 before it).
  if (has_fp8(pattern)) ns += cal.fp8_round_ns + cal.fp8_round_ns_per_warp * vector_warps;
  if (pattern == Pattern::ar) ns += cal.ar_round_ns;
  // Each vector an ar thread holds beyond its first (calibrate: epilogue_round bf16_ar_vpt*), shared out
  // over the SMs as the RMSNorm round's.
  if (pattern == Pattern::ar && in.vecs_used > 1 && !ar_round_measured_at_n2(in))
    ns += cal.ar_round_ns_per_extra_vector * further_vectors *
          std::min(1.0, wave_blocks_holding(in) / static_cast<double>(in.s.sm_count));
  return ns;
}

double shared_sm_round_ns(const ModelInputs& in, double blocks_per_sm) {
  if (blocks_per_sm <= 1.0) return 0.0;
  const double per_warp_vector = in.p.pattern == Pattern::ar ? in.cal.shared_sm_ar_round_ns_per_warp_vector
                                                             : in.cal.shared_sm_round_ns_per_warp_vector;
  return per_warp_vector * (blocks_per_sm - 1.0) * in.active_warps * in.vecs_used;
}

std::string shared_sm_round_text(double blocks_per_sm) {
  return fmt("for the other %.0f block(s) on the SM, per warp-vector of theirs, measured", blocks_per_sm - 1.0);
}

void add_drain_term(const ModelInputs& in, TermSheet& sheet) {
  if (in.cal.exit_store_drain_ns <= 0) return;  // the priors (no launch store rows): no term
  sheet.add("drain", in.cal.exit_store_drain_ns, [&] {
    return fmt("the last stores leave the SM before the kernel ends: %.0f ns (their bytes are counted in the "
               "rounds' port bound)",
               in.cal.exit_store_drain_ns);
  });
}

}  // namespace arlab::model::detail
