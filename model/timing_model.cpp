// The analytic timing model: numeric terms (hot path) and their explanations. See timing_model.h
// for the structure; each quantity below is named after what it counts, with its unit.
#include "model/timing_model.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/fmt.h"
#include "model/occupancy.h"

namespace arlab::model {

// Vector operations per 16-byte vector of one token, in "one convert-and-add of a vector" units
// (sm_ns_per_vector_op calibrates their cost):
//   N        convert and accumulate each rank's vector
//   +1       residual add (patterns with a residual)
//   +3       RMSNorm: square-accumulate, scale by 1/rms, multiply by gamma
//   +1       FP8: scale and convert to e4m3
//   +4       NVFP4: block amax (shuffle), scale factor, e2m1 conversion (software below sm_100)
//   +1       round to T and pack for the stores
int vector_ops_per_vector(const Problem& p) {
  int ops = p.nranks + 1;
  if (has_residual(p.pattern)) ops += 1 + 3;
  if (has_fp8(p.pattern)) ops += 1;
  if (has_fp4(p.pattern)) ops += 4;
  return ops;
}

double output_bytes_per_token(const Problem& p) {
  const double elem = dtype_bytes(p.dtype);
  const double h = p.hidden;
  double bytes = 0;
  if (has_allreduce_out(p.pattern)) bytes += h * elem;
  if (has_residual(p.pattern)) bytes += h * elem;  // residual_out
  if (has_norm_out(p.pattern)) bytes += h * elem;
  if (has_fp8(p.pattern)) bytes += h;              // one e4m3 code per element
  if (has_fp4(p.pattern)) bytes += h / 2 + h / kFp4BlockElems;  // two codes per byte + one e4m3 SF per 16
  return bytes;
}

namespace {

enum TermId {
  kLaunch,
  kSkew,
  // one-shot round chain
  kInputLoads,
  kPush,
  kVisibility,
  kPoll,
  // two-shot phases
  kCopy,
  kBarrier1,
  kRsLoads,
  kRsCompute,
  kRsPush,
  kBarrier2,
  kEpilogueLoads,
  // both
  kCompute,
  kBlockReduce,
  kClusterReduce,
  kOutputStores,
  kBandwidthExcess,
  kClear,
  kArrival,
  kNumTerms
};

const char* term_name(int id) {
  switch (id) {
    case kLaunch: return "launch";
    case kSkew: return "rank_skew";
    case kInputLoads: return "input_loads";
    case kPush: return "push";
    case kVisibility: return "visibility";
    case kPoll: return "poll";
    case kCopy: return "copy";
    case kBarrier1: return "barrier_1";
    case kRsLoads: return "rs_loads";
    case kRsCompute: return "rs_compute";
    case kRsPush: return "rs_push";
    case kBarrier2: return "barrier_2";
    case kEpilogueLoads: return "epilogue_loads";
    case kCompute: return "compute";
    case kBlockReduce: return "block_reduce";
    case kClusterReduce: return "cluster_reduce";
    case kOutputStores: return "output_stores";
    case kBandwidthExcess: return "bandwidth_excess";
    case kClear: return "clear";
    case kArrival: return "arrival";
    default: return "?";
  }
}

// Placement of A active clusters of cs blocks: breadth-first over SMs.
struct Placement {
  int active_clusters = 0;
  int sms_used = 0;
  int blocks_per_used_sm = 0;
};

Placement place(long long active_clusters, int cs, int sm_count) {
  Placement pl;
  pl.active_clusters = static_cast<int>(active_clusters);
  const long long blocks = active_clusters * cs;
  pl.sms_used = static_cast<int>(std::min<long long>(blocks, sm_count));
  pl.blocks_per_used_sm = pl.sms_used > 0 ? static_cast<int>((blocks + pl.sms_used - 1) / pl.sms_used) : 0;
  return pl;
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Everything the terms and their explanations are computed from.
struct Derived {
  bool oneshot = true;
  bool nvlink = true;
  int n = 2;
  int cs = 1;
  int tpb = 0;
  long long clusters = 0;            // grid / cluster
  int blocks_per_sm = 0;             // occupancy limit
  long long resident_clusters = 0;   // min(clusters, cluster capacity)
  long long cluster_capacity = 0;
  double token_bytes = 0;            // H * sizeof(T)
  double input_bytes = 0;            // S = tokens * H * sizeof(T), one rank's input
  double out_bytes_per_token = 0;
  int ops = 0;                       // vector ops per vector
  double port_bytes_per_ns = 0;
  double link_latency_ns = 0;        // store-to-visible
  double remote_load_latency_ns = 0;
  // one-shot
  long long waves = 1;
  long long tokens_per_cluster = 0;
  long long rounds = 0;
  Placement pl;                      // placement of a round's active clusters
  double b_in = 0, b_push = 0, b_poll = 0, b_out = 0;  // bytes per SM per round
  double vectors_per_sm = 0;          // thread-vectors per SM per round
  // two-shot
  long long rs_tokens = 0;
  long long rounds_copy = 0, rounds_rs = 0, rounds_epi = 0;
  Placement pl_copy, pl_rs, pl_epi;
  // bounds
  double hbm_bytes = 0, hbm_ns = 0, link_bytes = 0, link_ns = 0, chain_ns = 0;
  double clear_bytes_per_sm = 0;
  int clear_sms = 0;
};

struct Numeric {
  Derived d;
  std::array<double, kNumTerms> ns{};
  double total_ns = 0;
  bool launchable = true;
};

double load_ns(double bytes, double latency_ns, const Calibration& cal, double port) {
  return std::max({latency_ns, bytes * latency_ns / cal.bytes_in_flight_per_sm, bytes / port});
}
double store_ns(double bytes, double latency_ns, const Calibration& cal, double port) {
  return std::max(bytes * latency_ns / cal.bytes_in_flight_per_sm, bytes / port);
}

double block_reduce_ns(const Problem& p, int tpb, const Calibration& cal) {
  if (!has_residual(p.pattern)) return 0;  // only RMSNorm patterns reduce
  return cal.block_reduce_fixed_ns + cal.block_reduce_ns_per_warp * ceil_div(tpb, 32);
}
double cluster_reduce_ns(const Problem& p, int cs, const Calibration& cal) {
  if (!has_residual(p.pattern) || cs <= 1) return 0;
  return 2 * cal.cluster_sync_ns + cs * cal.dsmem_access_ns;
}

Numeric compute(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                const KernelResources& res) {
  Numeric r;
  Derived& d = r.d;
  d.oneshot = c.algo == Algorithm::oneshot;
  d.nvlink = s.link == LinkKind::nvlink;
  d.n = p.nranks;
  d.cs = c.cluster;
  d.tpb = c.tpb;
  d.clusters = c.grid / c.cluster;
  d.blocks_per_sm = blocks_per_sm(s, c.tpb, res.regs_per_thread, res.smem_per_block_bytes);
  d.cluster_capacity = max_active_clusters(s, c.cluster, d.blocks_per_sm);
  if (d.blocks_per_sm < 1 || d.cluster_capacity < 1 || d.clusters < 1) {
    r.launchable = false;
    return r;
  }
  d.resident_clusters = std::min(d.clusters, d.cluster_capacity);
  d.token_bytes = static_cast<double>(p.hidden) * dtype_bytes(p.dtype);
  d.input_bytes = d.token_bytes * p.tokens;
  d.out_bytes_per_token = output_bytes_per_token(p);
  d.ops = vector_ops_per_vector(p);
  d.port_bytes_per_ns = cal.sm_l2_bytes_per_cycle * s.sm_clock_ghz;
  d.link_latency_ns = d.nvlink ? cal.nvlink_latency_ns : cal.l2_latency_ns;
  d.remote_load_latency_ns = d.nvlink ? 2 * cal.nvlink_latency_ns : cal.l2_latency_ns;
  const double port = d.port_bytes_per_ns;
  const double slice = d.token_bytes / c.cluster;  // bytes of one token per block
  const double vectors_per_block = static_cast<double>(threads_per_token(p)) / c.cluster;
  const double res_factor = has_residual(p.pattern) ? 2.0 : 1.0;  // x (+ residual)
  const double hbm_bytes_per_ns = s.hbm_gbps * cal.hbm_efficiency;
  const double link_bytes_per_ns = s.link_gbps * cal.link_efficiency;
  auto& t = r.ns;

  t[kLaunch] = 1e3 * (cal.launch_overhead_us + (c.cluster > 1 ? cal.cluster_launch_us : 0.0));
  t[kSkew] = 1e3 * cal.rank_skew_us;
  const double block_red = block_reduce_ns(p, c.tpb, cal);
  const double cluster_red = cluster_reduce_ns(p, c.cluster, cal);

  if (d.oneshot) {
    const long long active = std::min<long long>(p.tokens, d.clusters);
    d.waves = ceil_div(active, d.cluster_capacity);
    d.tokens_per_cluster = ceil_div(p.tokens, d.clusters);
    d.rounds = d.waves * d.tokens_per_cluster;
    d.pl = place(std::min<long long>(p.tokens, d.resident_clusters), c.cluster, s.sm_count);
    const double k = d.pl.blocks_per_used_sm;
    d.b_in = k * slice * res_factor;
    d.b_push = k * slice * p.nranks;
    d.b_poll = d.b_push;
    d.b_out = k * d.out_bytes_per_token / c.cluster;
    d.vectors_per_sm = k * vectors_per_block;
    const double R = static_cast<double>(d.rounds);
    t[kInputLoads] = R * load_ns(d.b_in, cal.dram_latency_ns, cal, port);
    t[kPush] = R * store_ns(d.b_push, d.link_latency_ns, cal, port);
    t[kVisibility] = R * d.link_latency_ns;
    t[kPoll] = R * load_ns(d.b_poll, cal.l2_latency_ns, cal, port);
    t[kCompute] = R * d.vectors_per_sm * d.ops * cal.sm_ns_per_vector_op;
    t[kBlockReduce] = R * block_red;
    t[kClusterReduce] = R * cluster_red;
    t[kOutputStores] = R * store_ns(d.b_out, cal.l2_latency_ns, cal, port);
    d.chain_ns = t[kInputLoads] + t[kPush] + t[kVisibility] + t[kPoll] + t[kCompute] + t[kBlockReduce] +
                 t[kClusterReduce] + t[kOutputStores];
    // DRAM traffic of one rank: x and residual in, outputs out, N slots received, N slots cleared.
    d.hbm_bytes = d.input_bytes * res_factor + p.tokens * d.out_bytes_per_token + 2.0 * p.nranks * d.input_bytes;
    d.link_bytes = d.nvlink ? (p.nranks - 1) * d.input_bytes : 0.0;
    // Clear of the previous buffer: grid-stride stores over every SM the grid occupies.
    d.clear_sms = static_cast<int>(std::min<long long>(d.resident_clusters * c.cluster, s.sm_count));
    d.clear_bytes_per_sm = p.nranks * d.input_bytes / d.clear_sms;
    t[kClear] = store_ns(d.clear_bytes_per_sm, cal.l2_latency_ns, cal, port);
    t[kArrival] = cal.l2_latency_ns + static_cast<double>(c.grid) * cal.arrival_atomic_ns;
  } else {
    d.rs_tokens = ceil_div(p.tokens, p.nranks);
    d.rounds_copy = ceil_div(p.tokens, d.clusters);
    d.rounds_rs = ceil_div(d.rs_tokens, d.clusters);
    d.rounds_epi = d.rounds_copy;
    d.pl_copy = place(std::min<long long>(p.tokens, d.clusters), c.cluster, s.sm_count);
    d.pl_rs = place(std::min<long long>(d.rs_tokens, d.clusters), c.cluster, s.sm_count);
    d.pl_epi = d.pl_copy;
    const double kc = d.pl_copy.blocks_per_used_sm, kr = d.pl_rs.blocks_per_used_sm;
    t[kCopy] = d.rounds_copy * (load_ns(kc * slice, cal.dram_latency_ns, cal, port) +
                                store_ns(kc * slice, cal.l2_latency_ns, cal, port));
    t[kBarrier1] = d.link_latency_ns + cal.l2_latency_ns;
    t[kRsLoads] = d.rounds_rs * load_ns(kr * slice * p.nranks, d.remote_load_latency_ns, cal, port);
    t[kRsCompute] = d.rounds_rs * kr * vectors_per_block * (p.nranks + 1) * cal.sm_ns_per_vector_op;
    t[kRsPush] = d.rounds_rs * store_ns(kr * slice * p.nranks, d.link_latency_ns, cal, port);
    t[kBarrier2] = d.link_latency_ns + cal.l2_latency_ns;
    t[kEpilogueLoads] = d.rounds_epi * load_ns(kc * slice * res_factor, cal.dram_latency_ns, cal, port);
    d.vectors_per_sm = kc * vectors_per_block;
    t[kCompute] = d.rounds_epi * d.vectors_per_sm * (d.ops - p.nranks) * cal.sm_ns_per_vector_op;
    t[kBlockReduce] = d.rounds_epi * block_red;
    t[kClusterReduce] = d.rounds_epi * cluster_red;
    d.b_out = kc * d.out_bytes_per_token / c.cluster;
    t[kOutputStores] = d.rounds_epi * store_ns(d.b_out, cal.l2_latency_ns, cal, port);
    d.chain_ns = t[kCopy] + t[kBarrier1] + t[kRsLoads] + t[kRsCompute] + t[kRsPush] + t[kBarrier2] +
                 t[kEpilogueLoads] + t[kCompute] + t[kBlockReduce] + t[kClusterReduce] + t[kOutputStores];
    // DRAM traffic of one rank: x in, comm buffer written and read by all ranks, reduced sums
    // written, epilogue reads sums + residual, outputs out.
    d.hbm_bytes = d.input_bytes * (1 + 1 + 1 + 1 + res_factor) + p.tokens * d.out_bytes_per_token;
    d.link_bytes = d.nvlink ? 2.0 * (p.nranks - 1) * d.input_bytes / p.nranks : 0.0;
  }
  d.hbm_ns = d.hbm_bytes / hbm_bytes_per_ns;
  d.link_ns = d.nvlink ? d.link_bytes / link_bytes_per_ns : 0.0;
  t[kBandwidthExcess] = std::max(0.0, std::max(d.hbm_ns, d.link_ns) - d.chain_ns);
  double total = 0;
  for (double v : t) total += v;
  r.total_ns = total;
  return r;
}

std::string us(double ns) { return fmt("%.3f us", ns / 1e3); }
std::string num(double v) { return fmt("%.0f", v); }
std::string num3(double v) { return fmt("%.3g", v); }

std::string load_expl(double bytes, double lat, const Calibration& cal, double port) {
  return "max(latency " + num(lat) + " ns, Little " + num(bytes) + " B x " + num(lat) + " ns / " +
         num(cal.bytes_in_flight_per_sm) + " B in flight, port " + num(bytes) + " B / " + num3(port) + " B/ns)";
}
std::string store_expl(double bytes, double lat, const Calibration& cal, double port) {
  return "max(Little " + num(bytes) + " B x " + num(lat) + " ns / " + num(cal.bytes_in_flight_per_sm) +
         " B in flight, port " + num(bytes) + " B / " + num3(port) + " B/ns)";
}

std::vector<Term> explain(const Numeric& r, const Problem& p, const LaunchConfig& c, const GpuSpec& s,
                          const Calibration& cal) {
  const Derived& d = r.d;
  const auto& t = r.ns;
  const double port = d.port_bytes_per_ns;
  std::vector<Term> out;
  auto add = [&](int id, std::string e) { out.push_back({term_name(id), t[id] / 1e3, std::move(e)}); };
  add(kLaunch, "launch_overhead " + fmt("%.3f us", cal.launch_overhead_us) +
                   (c.cluster > 1 ? " + cluster launch " + fmt("%.3f us", cal.cluster_launch_us) : std::string()));
  add(kSkew, "rank start skew absorbed by the first wait on a peer: " + fmt("%.3f us", cal.rank_skew_us));
  const std::string link = d.nvlink ? "NVLink" : "local L2";
  const std::string red_note = has_residual(p.pattern) ? "" : " (pattern ar: no RMSNorm)";
  if (d.oneshot) {
    const std::string rounds = std::to_string(d.rounds) + " rounds (" + std::to_string(d.waves) + " wave(s) x ceil(" +
                               std::to_string(p.tokens) + " tokens / " + std::to_string(d.clusters) +
                               " clusters) = " + std::to_string(d.tokens_per_cluster) + " tokens per cluster)";
    const std::string per_sm = "; per SM " + std::to_string(d.pl.blocks_per_used_sm) + " active block(s) on " +
                               std::to_string(d.pl.sms_used) + " SMs";
    add(kInputLoads, rounds + " x " + load_expl(d.b_in, cal.dram_latency_ns, cal, port) + " [x" +
                         (has_residual(p.pattern) ? " + residual" : "") + " slice]" + per_sm);
    add(kPush, std::to_string(d.rounds) + " rounds x " + store_expl(d.b_push, d.link_latency_ns, cal, port) +
                   " [token slice to " + std::to_string(p.nranks) + " ranks over " + link + "]");
    add(kVisibility, std::to_string(d.rounds) + " rounds x " + num(d.link_latency_ns) + " ns (" + link +
                         " store-to-visible latency of the last peer's push)");
    add(kPoll, std::to_string(d.rounds) + " rounds x " + load_expl(d.b_poll, cal.l2_latency_ns, cal, port) + " [" +
                   std::to_string(p.nranks) + " slots]");
    add(kCompute, std::to_string(d.rounds) + " rounds x " + num(d.vectors_per_sm) + " vectors/SM x " +
                      std::to_string(d.ops) + " ops x " + num3(cal.sm_ns_per_vector_op) + " ns");
  } else {
    add(kCopy, std::to_string(d.rounds_copy) + " rounds (ceil(" + std::to_string(p.tokens) + " / " +
                   std::to_string(d.clusters) + " clusters)) x [" +
                   load_expl(d.pl_copy.blocks_per_used_sm * d.token_bytes / c.cluster, cal.dram_latency_ns, cal, port) +
                   " + store " +
                   store_expl(d.pl_copy.blocks_per_used_sm * d.token_bytes / c.cluster, cal.l2_latency_ns, cal, port) +
                   "] [x to my comm buffer]");
    add(kBarrier1, "cross-rank barrier: " + link + " flag " + num(d.link_latency_ns) + " ns + poll " +
                       num(cal.l2_latency_ns) + " ns");
    add(kRsLoads, std::to_string(d.rounds_rs) + " rounds (ceil(" + std::to_string(d.rs_tokens) + " tokens / " +
                      std::to_string(d.clusters) + " clusters)) x " +
                      load_expl(d.pl_rs.blocks_per_used_sm * d.token_bytes / c.cluster * p.nranks,
                                d.remote_load_latency_ns, cal, port) +
                      " [" + std::to_string(p.nranks) + " peers' slices]");
    add(kRsCompute, std::to_string(d.rounds_rs) + " rounds x " +
                        num(d.pl_rs.blocks_per_used_sm * static_cast<double>(threads_per_token(p)) / c.cluster) +
                        " vectors/SM x " + std::to_string(p.nranks + 1) + " ops (sum of " +
                        std::to_string(p.nranks) + " ranks, pack) x " + num3(cal.sm_ns_per_vector_op) + " ns");
    add(kRsPush, std::to_string(d.rounds_rs) + " rounds x " +
                     store_expl(d.pl_rs.blocks_per_used_sm * d.token_bytes / c.cluster * p.nranks, d.link_latency_ns,
                                cal, port) +
                     " [sum to " + std::to_string(p.nranks) + " ranks]");
    add(kBarrier2, "cross-rank barrier: " + link + " flag " + num(d.link_latency_ns) + " ns + poll " +
                       num(cal.l2_latency_ns) + " ns");
    add(kEpilogueLoads, std::to_string(d.rounds_epi) + " rounds x " +
                            load_expl(d.pl_epi.blocks_per_used_sm * d.token_bytes / c.cluster *
                                          (has_residual(p.pattern) ? 2 : 1),
                                      cal.dram_latency_ns, cal, port));
    add(kCompute, std::to_string(d.rounds_epi) + " rounds x " + num(d.vectors_per_sm) + " vectors/SM x " +
                      std::to_string(d.ops - p.nranks) + " epilogue ops x " + num3(cal.sm_ns_per_vector_op) + " ns");
  }
  const long long R = d.oneshot ? d.rounds : d.rounds_epi;
  add(kBlockReduce, std::to_string(R) + " rounds x (" + num(cal.block_reduce_fixed_ns) + " ns + " +
                        num3(cal.block_reduce_ns_per_warp) + " ns x " + std::to_string(ceil_div(c.tpb, 32)) +
                        " warps)" + red_note);
  add(kClusterReduce, c.cluster > 1 && has_residual(p.pattern)
                          ? std::to_string(R) + " rounds x (2 x " + num(cal.cluster_sync_ns) +
                                " ns cluster barrier + " + std::to_string(c.cluster) + " x " +
                                num(cal.dsmem_access_ns) + " ns DSMEM read)"
                          : std::string("no cluster reduction (cluster = 1 or no RMSNorm)"));
  add(kOutputStores, std::to_string(R) + " rounds x " + store_expl(d.b_out, cal.l2_latency_ns, cal, port) + " [" +
                         num(d.out_bytes_per_token) + " B of outputs per token]");
  const std::string bound_kind = d.link_ns > d.hbm_ns ? "link" : "HBM";
  add(kBandwidthExcess,
      "max(0, max(HBM " + num(d.hbm_bytes) + " B / (" + num(s.hbm_gbps) + " GB/s x " + num3(cal.hbm_efficiency) +
          ") = " + us(d.hbm_ns) + ", link " +
          (d.nvlink ? num(d.link_bytes) + " B / (" + num(s.link_gbps) + " GB/s x " + num3(cal.link_efficiency) +
                          ") = " + us(d.link_ns)
                    : std::string("none (local)")) +
          ") - round chain " + us(d.chain_ns) + ")" +
          (t[kBandwidthExcess] > 0 ? ": " + bound_kind + "-bound" : ": latency-bound"));
  if (d.oneshot) {
    add(kClear, store_expl(d.clear_bytes_per_sm, cal.l2_latency_ns, cal, port) + " [N x S = " +
                    num(p.nranks * d.input_bytes) + " B of -0.0 over " + std::to_string(d.clear_sms) + " SMs]");
    add(kArrival, "L2 " + num(cal.l2_latency_ns) + " ns + " + std::to_string(c.grid) + " blocks x " +
                      num3(cal.arrival_atomic_ns) + " ns serialized atomics");
  }
  return out;
}

}  // namespace

double predict_total_us(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                        const KernelResources& res) {
  const Numeric r = compute(p, c, s, cal, res);
  return r.launchable ? r.total_ns / 1e3 : -1.0;
}

Prediction predict(const Problem& p, const LaunchConfig& c, const GpuSpec& s, const Calibration& cal,
                   const KernelResources& res) {
  check_legal(p, c, s, res);
  const Numeric r = compute(p, c, s, cal, res);
  Prediction out;
  out.total_us = r.total_ns / 1e3;
  out.terms = explain(r, p, c, s, cal);
  out.link = s.link == LinkKind::nvlink
                 ? "nvlink"
                 : "local (emulated node: peers share this GPU, peer traffic is its L2/HBM traffic, not NVLink)";
  return out;
}

}  // namespace arlab::model
